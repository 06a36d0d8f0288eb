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

    /// Compare by text. The order of two symbols never changes, so the answer is
    /// remembered in a small table shared by every thread ([`ORDERS`]): the same keys of
    /// messages and dictionaries compared again cost a load instead of two text lookups
    /// and a byte compare.
    #[inline]
    pub fn cmp_text(self, other: Symbol) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        use std::sync::atomic::Ordering::Relaxed;
        if self == other {
            return Ordering::Equal;
        }
        // An entry holds both numbers (each below 2^31) and the order (1: less, 2:
        // greater; 0 marks an empty entry). It is written and read whole, so a race
        // between threads loses an entry at worst, never gives a wrong order.
        let key = u64::from(self.0) | u64::from(other.0) << 31;
        let slot = &ORDERS[order_slot(self.0, other.0)];
        let seen = slot.load(Relaxed);
        if seen & !(3 << 62) == key {
            match seen >> 62 {
                1 => return Ordering::Less,
                2 => return Ordering::Greater,
                _ => {}
            }
        }
        self.cmp_text_slowly(other, slot, key)
    }

    /// [`Symbol::cmp_text`] of a pair it does not remember: compare the texts and
    /// remember the answer in `slot`.
    #[cold]
    #[inline(never)]
    fn cmp_text_slowly(
        self,
        other: Symbol,
        slot: &std::sync::atomic::AtomicU64,
        key: u64,
    ) -> std::cmp::Ordering {
        let order = self.as_str().cmp(other.as_str());
        let code: u64 = if order.is_lt() { 1 } else { 2 };
        slot.store(key | code << 62, std::sync::atomic::Ordering::Relaxed);
        order
    }
}

/// How many symbol pairs [`Symbol::cmp_text`] remembers (a power of two).
const ORDER_SLOTS: usize = 4096;

/// The remembered orders of symbol pairs (see [`Symbol::cmp_text`]).
static ORDERS: [std::sync::atomic::AtomicU64; ORDER_SLOTS] =
    [const { std::sync::atomic::AtomicU64::new(0) }; ORDER_SLOTS];

/// Where the order of symbols numbered `a` and `b` is remembered.
#[inline(always)]
fn order_slot(a: u32, b: u32) -> usize {
    let h = (a.wrapping_mul(0x9E37_79B1) ^ b).wrapping_mul(0x85EB_CA6B);
    (h >> (32 - ORDER_SLOTS.trailing_zeros())) as usize
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

    #[test]
    fn remembered_orders_are_the_orders_of_the_texts() {
        // More pairs than the table has entries, each asked three times (the first answer
        // is worked out, the next ones may be remembered or overwritten by a colliding
        // pair), in both directions.
        let syms: Vec<Symbol> = (0..60)
            .map(|i| Symbol::intern(&format!("order-{}", (i * 37) % 60)))
            .chain((b'a'..=b'z').map(|b| Symbol::intern(&char::from(b).to_string())))
            .collect();
        for _ in 0..3 {
            for &a in &syms {
                for &b in &syms {
                    assert_eq!(a.cmp_text(b), a.as_str().cmp(b.as_str()), "{a} {b}");
                }
            }
        }
    }
}
