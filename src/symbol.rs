//! Interned strings, shared by every game in the process.
//!
//! Every identifier and string literal is interned when a game is loaded, so comparing,
//! hashing and dispatching on names costs a word compare. The table only grows, so it holds
//! names, not data: a string a game builds at run time is interned only when it is used as
//! a name (a message label, a property, state, entity or type name, a signal); otherwise it
//! is a reference-counted [`crate::runtime::value::Text`], freed with the last value holding
//! it. Reading a symbol's text takes no lock.
//! Symbols are ordered by text where order matters ([`Symbol::cmp_text`]), never by number,
//! because numbers depend on what else the process loaded first.

use std::sync::{OnceLock, RwLock};

use rustc_hash::FxHashMap;

/// An interned string.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Symbol(u32);

struct Table {
    ids: RwLock<FxHashMap<&'static str, Symbol>>,
    texts: boxcar::Vec<&'static str>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let t = Table {
            ids: RwLock::new(FxHashMap::default()),
            texts: boxcar::Vec::new(),
        };
        // The one-character ASCII strings are symbols 0 to 127, in byte order, so that
        // they are found without a lookup (see `ascii`): a piece letter, a file, a
        // character of `chars`.
        let mut ids = FxHashMap::default();
        for b in 0..=127u8 {
            let text: &'static str = Box::leak(char::from(b).to_string().into_boxed_str());
            let id = t.texts.push(text);
            debug_assert_eq!(id, usize::from(b), "the first symbols are the ASCII bytes");
            ids.insert(text, Symbol(u32::from(b)));
        }
        *t.ids.write().unwrap_or_else(|e| e.into_inner()) = ids;
        t
    })
}

/// The symbol of a one-character ASCII string (numbered by its byte, see `table`).
#[inline]
fn ascii(text: &str) -> Option<Symbol> {
    match text.as_bytes() {
        [b] if b.is_ascii() => Some(Symbol(u32::from(*b))),
        _ => None,
    }
}

impl Symbol {
    /// The symbol for `text`, adding it if new.
    pub fn intern(text: &str) -> Symbol {
        let t = table();
        if let Some(sym) = ascii(text) {
            return sym;
        }
        if let Some(&sym) = t.ids.read().unwrap_or_else(|e| e.into_inner()).get(text) {
            return sym;
        }
        let mut ids = t.ids.write().unwrap_or_else(|e| e.into_inner());
        if let Some(&sym) = ids.get(text) {
            return sym;
        }
        let leaked: &'static str = Box::leak(text.into());
        // Two billion distinct strings would need far more memory than any limit allows;
        // reaching it is a broken invariant, not a wrapped id.
        // Ids stay below 2^31 so that a string value can pack one into a word with a tag
        // bit (see `runtime::value::Text`).
        let Some(id) = u32::try_from(t.texts.push(leaked))
            .ok()
            .filter(|&id| id < 1 << 31)
        else {
            panic!("the symbol table is full (2^31 distinct strings)");
        };
        let sym = Symbol(id);
        ids.insert(leaked, sym);
        sym
    }

    /// The symbol for `text` if it was ever interned.
    pub fn get(text: &str) -> Option<Symbol> {
        let t = table();
        if let Some(sym) = ascii(text) {
            return Some(sym);
        }
        t.ids
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(text)
            .copied()
    }

    /// How many distinct strings were ever interned (the table never shrinks).
    pub fn count() -> usize {
        table().texts.count()
    }

    /// The number of this symbol, for packing it into a word.
    #[inline]
    pub(crate) fn id(self) -> u32 {
        self.0
    }

    /// The symbol numbered `id`, which must come from [`Symbol::id`].
    #[inline]
    pub(crate) fn from_id(id: u32) -> Symbol {
        Symbol(id)
    }

    /// The text.
    pub fn as_str(self) -> &'static str {
        // A Symbol is only made by `intern`, after its text was pushed.
        table().texts[self.0 as usize]
    }

    /// The symbol's number: dense from 0, for tables indexed by symbol. It says nothing of
    /// the text's order.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Compare by text.
    pub fn cmp_text(self, other: Symbol) -> std::cmp::Ordering {
        if self == other {
            std::cmp::Ordering::Equal
        } else {
            self.as_str().cmp(other.as_str())
        }
    }
}

impl std::fmt::Debug for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl std::fmt::Display for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_character_ascii_strings_are_their_byte() {
        for b in 0..=127u8 {
            let text = char::from(b).to_string();
            let sym = Symbol::intern(&text);
            assert_eq!(sym.index(), usize::from(b));
            assert_eq!(sym.as_str(), text);
            assert_eq!(Symbol::get(&text), Some(sym));
        }
        // Longer and non-ASCII strings go through the table as before.
        let e = Symbol::intern("é");
        assert_eq!(Symbol::get("é"), Some(e));
        assert_eq!(e.as_str(), "é");
        assert!(e.index() >= 128);
        assert_eq!(Symbol::intern("ab"), Symbol::intern("ab"));
    }
}
