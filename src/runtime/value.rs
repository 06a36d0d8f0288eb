//! Values of the language.
//!
//! Small values (nil, booleans, integers, floats, strings as interned [`Symbol`]s) are
//! stored inline; lists, dictionaries and messages are persistent imbl collections behind
//! an `Arc`, so copying a value is a word copy plus at most a reference count, and updating
//! a collection that nobody else holds happens in place (`Arc::make_mut`).

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use crate::symbol::Symbol;

pub use super::attrs::Attrs;

/// A list.
pub type List = imbl::Vector<Value>;
/// A dictionary, iterated in key order.
pub type Dict = imbl::OrdMap<Key, Value>;

/// A value.
#[derive(Clone, Default)]
pub enum Value {
    /// Nothing; false.
    #[default]
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(f64),
    /// A string.
    Str(Symbol),
    /// A persistent list.
    List(Arc<List>),
    /// A persistent dictionary.
    Dict(Arc<Dict>),
    /// A message: a label and attributes.
    Message(Arc<Message>),
}

/// A dictionary key: an integer or a string. Integers sort before strings; strings sort
/// by text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Key {
    /// An integer key.
    Int(i64),
    /// A string key.
    Str(Symbol),
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Int(a), Key::Int(b)) => a.cmp(b),
            (Key::Int(_), Key::Str(_)) => Ordering::Less,
            (Key::Str(_), Key::Int(_)) => Ordering::Greater,
            (Key::Str(a), Key::Str(b)) => a.cmp_text(*b),
        }
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Key {
    /// The key as a value.
    pub fn to_value(self) -> Value {
        match self {
            Key::Int(i) => Value::Int(i),
            Key::Str(s) => Value::Str(s),
        }
    }
}

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

impl Value {
    /// A string value.
    pub fn str(text: &str) -> Value {
        Value::Str(Symbol::intern(text))
    }

    /// A list value.
    pub fn list(items: List) -> Value {
        Value::List(Arc::new(items))
    }

    /// A dictionary value.
    pub fn dict(items: Dict) -> Value {
        Value::Dict(Arc::new(items))
    }

    /// `nil` and `false` are false; everything else is true.
    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// The name of this value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Dict(_) => "dictionary",
            Value::Message(_) => "message",
        }
    }

    /// This value as a dictionary key, if it can be one.
    pub fn as_key(&self) -> Option<Key> {
        match self {
            Value::Int(i) => Some(Key::Int(*i)),
            Value::Str(s) => Some(Key::Str(*s)),
            Value::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(Key::Int(*x as i64)),
            _ => None,
        }
    }

    /// Total order used by `sort`, `min` and `max`: numbers by value, then strings by text,
    /// then lists element-wise; other kinds by kind.
    pub fn compare(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::List(a), Value::List(b)) => {
                for (x, y) in a.iter().zip(b.iter()) {
                    match x.compare(y) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => self.compare_shallow(other),
        }
    }

    /// [`Value::compare`] for every pair but two lists (which compare equal here).
    pub fn compare_shallow(&self, other: &Value) -> Ordering {
        fn rank(v: &Value) -> u8 {
            match v {
                Value::Nil => 0,
                Value::Bool(_) => 1,
                Value::Int(_) | Value::Float(_) => 2,
                Value::Str(_) => 3,
                Value::List(_) => 4,
                Value::Dict(_) => 5,
                Value::Message(_) => 6,
            }
        }
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Int(a), Value::Float(b)) => (*a as f64).total_cmp(b),
            (Value::Float(a), Value::Int(b)) => a.total_cmp(&(*b as f64)),
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Str(a), Value::Str(b)) => a.cmp_text(*b),
            _ => rank(self).cmp(&rank(other)),
        }
    }

    /// The text `str` and `print` use: strings without quotes, the rest as displayed.
    pub fn to_text(&self) -> String {
        match self {
            Value::Str(s) => s.as_str().to_string(),
            other => other.to_string(),
        }
    }

    /// The JSON form (`--json`): nil is null, dictionaries are objects with string keys,
    /// messages are `{"label": ..., "attributes": {...}}`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Nil => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(x) => serde_json::Number::from_f64(*x).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.as_str().to_string()),
            Value::List(l) => J::Array(l.iter().map(Value::to_json).collect()),
            Value::Dict(d) => dict_json(d),
            Value::Message(m) => {
                let mut o = serde_json::Map::new();
                o.insert("label".into(), J::String(m.label.as_str().to_string()));
                o.insert("attributes".into(), entries_json(m.attrs.iter()));
                J::Object(o)
            }
        }
    }
}

fn dict_json(d: &Dict) -> serde_json::Value {
    entries_json(d.iter())
}

fn entries_json<'a>(entries: impl Iterator<Item = (&'a Key, &'a Value)>) -> serde_json::Value {
    serde_json::Value::Object(entries.map(|(k, v)| (key_text(*k), v.to_json())).collect())
}

fn key_text(k: Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => s.as_str().to_string(),
    }
}

impl PartialEq for Value {
    /// Structural equality; an integer equals the float of the same value.
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Int(a), Value::Float(b)) | (Value::Float(b), Value::Int(a)) => {
                (*a as f64) == *b && b.fract() == 0.0 && (*b as i64) == *a
            }
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => Arc::ptr_eq(a, b) || a == b,
            (Value::Dict(a), Value::Dict(b)) => Arc::ptr_eq(a, b) || a == b,
            (Value::Message(a), Value::Message(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}

fn write_float(f: &mut fmt::Formatter<'_>, x: f64) -> fmt::Result {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        write!(f, "{x:.1}")
    } else {
        write!(f, "{x}")
    }
}

impl fmt::Display for Value {
    /// The display form: lists as `(1 2 3)`, dictionaries as `{"a" 1, 2 3}`, messages as
    /// `<label "k" v>`, strings in quotes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write_float(f, *x),
            Value::Str(s) => write!(f, "{:?}", s.as_str()),
            Value::List(l) => {
                f.write_str("(")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Value::Dict(d) => {
                f.write_str("{")?;
                write_attrs(f, d.iter())?;
                f.write_str("}")
            }
            Value::Message(m) => {
                write!(f, "<{}", m.label)?;
                if !m.attrs.is_empty() {
                    f.write_str(" ")?;
                    write_attrs(f, m.attrs.iter())?;
                }
                f.write_str(">")
            }
        }
    }
}

fn write_attrs<'a>(
    f: &mut fmt::Formatter<'_>,
    entries: impl Iterator<Item = (&'a Key, &'a Value)>,
) -> fmt::Result {
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{} {v}", k.to_value())?;
    }
    Ok(())
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_two_words() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
    }

    #[test]
    fn integers_equal_floats_of_the_same_value() {
        assert_eq!(Value::Int(1), Value::Float(1.0));
        assert_ne!(Value::Int(1), Value::Float(1.5));
        assert_ne!(Value::Int(1), Value::str("1"));
    }

    #[test]
    fn keys_sort_integers_first_then_text() {
        let mut keys = [
            Key::Str(Symbol::intern("b")),
            Key::Int(3),
            Key::Str(Symbol::intern("a")),
            Key::Int(-1),
        ];
        keys.sort();
        let shown: Vec<String> = keys.iter().map(|k| k.to_value().to_text()).collect();
        assert_eq!(shown, ["-1", "3", "a", "b"]);
    }

    #[test]
    fn display_forms() {
        let l = Value::list(imbl::vector![
            Value::Int(1),
            Value::str("x"),
            Value::Float(2.0)
        ]);
        assert_eq!(l.to_string(), "(1 \"x\" 2.0)");
        assert_eq!(Value::str("x").to_text(), "x");
    }
}
