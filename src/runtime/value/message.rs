//! Message values ([`Message`]): a label and attributes.

use super::{Attrs, Key};
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
