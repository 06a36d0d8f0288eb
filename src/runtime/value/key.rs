//! Dictionary keys ([`Key`]): an integer or a string, integers ordered first.

use std::cmp::Ordering;

use super::{Text, Value};
use crate::symbol::Symbol;

/// A dictionary key: an integer or a string. Integers sort before strings; strings sort
/// by text.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Key {
    /// An integer key.
    Int(i64),
    /// A string key.
    Str(Text),
}

impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Int(a), Key::Int(b)) => a.cmp(b),
            (Key::Int(_), Key::Str(_)) => Ordering::Less,
            (Key::Str(_), Key::Int(_)) => Ordering::Greater,
            (Key::Str(a), Key::Str(b)) => a.cmp(b),
        }
    }
}

impl PartialOrd for Key {
    #[inline]
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Key {
    /// A copy that shares no reference count with `self` (see [`Value::private_copy`]).
    pub fn private_copy(&self) -> Key {
        match self {
            Key::Int(i) => Key::Int(*i),
            Key::Str(t) => Key::Str(t.private_copy()),
        }
    }

    /// The key named by a symbol.
    #[inline]
    pub fn sym(s: Symbol) -> Key {
        Key::Str(Text::sym(s))
    }

    /// The key as a value.
    #[inline]
    pub fn to_value(&self) -> Value {
        match self {
            Key::Int(i) => Value::Int(*i),
            Key::Str(s) => Value::Str(s.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_integers_first_then_text() {
        let mut keys = [
            Key::sym(Symbol::intern("b")),
            Key::Int(3),
            Key::sym(Symbol::intern("a")),
            Key::Int(-1),
        ];
        keys.sort();
        let shown: Vec<String> = keys.iter().map(|k| k.to_value().to_text()).collect();
        assert_eq!(shown, ["-1", "3", "a", "b"]);
    }
}
