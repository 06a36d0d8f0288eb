//! Message values ([`Message`]): a label and attributes.

use std::rc::Rc;

use super::{Attrs, Key, Text, Value};
use crate::symbol::Symbol;

/// A message value.
#[derive(Clone, PartialEq, Debug)]
pub struct Message {
    /// The label it is dispatched on.
    pub label: Symbol,
    /// Its attributes, in key order.
    pub attrs: Attrs,
}

impl Message {
    /// A message with label `label` and attributes `attrs`.
    pub fn new(label: Symbol, attrs: impl Into<Attrs>) -> Message {
        Message {
            label,
            attrs: attrs.into(),
        }
    }
}

/// The name of an action: its message's `"name"` attribute, else
/// `<label>@<recipient>` followed by `{key=value ...}` when it has attributes.
pub fn action_name(recipient: Symbol, m: &Message) -> String {
    if let Some(name) = m.attrs.get(&Key::sym(Symbol::intern("name"))) {
        return name.to_text();
    }
    let mut s = format!("{}@{}", m.label, recipient);
    if !m.attrs.is_empty() {
        let attrs: Vec<String> = m
            .attrs
            .iter()
            .map(|(k, v)| format!("{}={}", k.to_value().to_text(), v.to_text()))
            .collect();
        s.push_str(&format!("{{{}}}", attrs.join(",")));
    }
    s
}

/// The player a move belongs to, as seats see it: its `by` attribute when it has one
/// (a player who gives another's move: bridge's declarer playing dummy's card), else its
/// `player`.
pub fn mover_of(m: &Message) -> Option<String> {
    let by = m.attrs.get(&Key::sym(Symbol::intern("by")));
    by.or_else(|| m.attrs.get(&Key::sym(Symbol::intern("player"))))
        .map(Value::to_text)
}

/// The candidate action an item of the list `#actions` gives stands for: its recipient and
/// its message, when it is `(list <recipient> <message>)`; else what is wrong with it.
pub fn action_of(item: &Value) -> Result<(Symbol, Rc<Message>), String> {
    action_parts(item).map(|(to, m)| (to.intern(), m.clone()))
}

/// Whether `item` stands for a candidate action, as [`action_of`] reads it, without
/// taking its parts: the whole list `#actions` gives is checked this way, and only the
/// candidates used are read (a message's count left alone, a name not looked up). The
/// common case, a flat pair, is a few tests in line; anything else is looked at out of
/// line, where what is wrong is said.
#[inline(always)]
pub fn check_action(item: &Value) -> Result<(), String> {
    if let Value::List(pair) = item
        && let Some([Value::Str(_), Value::Message(_)]) = pair.as_slice()
    {
        return Ok(());
    }
    check_other_action(item)
}

#[inline(never)]
fn check_other_action(item: &Value) -> Result<(), String> {
    action_parts(item).map(|_| ())
}

#[inline]
fn action_parts(item: &Value) -> Result<(&Text, &Rc<Message>), String> {
    let Value::List(pair) = item else {
        return Err(format!("an action is {} {item}", item.type_name()));
    };
    // A pair is a flat list: read as a slice.
    if let Some([Value::Str(to), Value::Message(m)]) = pair.as_slice() {
        return Ok((to, m));
    }
    match (pair.len(), pair.front(), pair.back()) {
        (2, Some(Value::Str(to)), Some(Value::Message(m))) => Ok((to, m)),
        _ => Err(format!("an action is {item}")),
    }
}
