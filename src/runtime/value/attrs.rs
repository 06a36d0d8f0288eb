//! The attributes of a message: a small record kept in key order.
//!
//! A message usually has a handful of attributes, made once and read a few times, so they
//! are a short vector of (key, value) pairs stored inline (no allocation for up to
//! [`INLINE`] of them), sorted in key order ([`Key`]'s order: integers first, then
//! strings by text) so that iterating, displaying and comparing them is what a dictionary
//! does. Looking a key up compares symbols, not text; only inserting a new key compares
//! texts to find its place.

use smallvec::SmallVec;

use super::{Dict, Key, Value};
use crate::symbol::Symbol;

/// How many attributes a message holds without a heap allocation of their own.
pub const INLINE: usize = 4;

/// Past this many attributes, lookups search by key order instead of scanning.
const SCAN_UP_TO: usize = 8;

/// The attributes of a message, in key order.
#[derive(Clone, Default, PartialEq, Debug)]
pub struct Attrs(SmallVec<[(Key, Value); INLINE]>);

impl Attrs {
    /// No attributes.
    pub fn new() -> Attrs {
        Attrs(SmallVec::new())
    }

    /// No attributes, with room for `n`.
    pub fn with_capacity(n: usize) -> Attrs {
        Attrs(SmallVec::with_capacity(n))
    }

    /// Whether they live in a heap allocation of their own (more than [`INLINE`] of them
    /// at some time).
    #[inline(always)]
    pub fn spilled(&self) -> bool {
        self.0.spilled()
    }

    /// How many attributes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// How many attributes they have room for without growing.
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Remove every attribute, keeping the room they took.
    #[inline]
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value at place `i`, if its key is the name `key` held as a symbol (a guess at
    /// where `key` is, checked; a key of the same letters made at run time is missed, and
    /// found by [`Attrs::find`]).
    #[inline]
    pub fn get_at(&self, i: usize, key: crate::symbol::Symbol) -> Option<&Value> {
        match self.0.get(i) {
            Some((Key::Str(t), v)) if t.is_symbol_of(key) => Some(v),
            _ => None,
        }
    }

    /// Whether `key` is surely not among the keys: each is a symbol, none of them
    /// `key`. (A key that is a string made at run time may have its text.)
    #[inline]
    pub fn lacks_symbol(&self, key: crate::symbol::Symbol) -> bool {
        self.0.iter().all(|(k, _)| match k {
            Key::Str(t) => t.is_symbol() && !t.is_symbol_of(key),
            Key::Int(_) => true,
        })
    }

    /// The value at place `i`.
    #[inline]
    pub fn value_at(&self, i: usize) -> Option<&Value> {
        self.0.get(i).map(|(_, v)| v)
    }

    /// Where `key` is, by symbol (or integer) equality.
    #[inline]
    pub fn find(&self, key: &Key) -> Option<usize> {
        if self.0.len() <= SCAN_UP_TO {
            self.0.iter().position(|(k, _)| k == key)
        } else {
            self.find_in_order(key)
        }
    }

    #[inline(never)]
    fn find_in_order(&self, key: &Key) -> Option<usize> {
        self.0.binary_search_by(|(k, _)| k.cmp(key)).ok()
    }

    /// The value of attribute `key`.
    #[inline]
    pub fn get(&self, key: &Key) -> Option<&Value> {
        self.find(key).map(|i| &self.0[i].1)
    }

    /// The value of attribute `key`, to change it.
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut Value> {
        self.find(key).map(|i| &mut self.0[i].1)
    }

    /// Set attribute `key` to `value`, returning the value it replaces.
    ///
    /// One binary search finds the key or the place of a new one (a few key compares:
    /// two symbols compare by their remembered order), in line.
    #[inline]
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        let pairs: &mut [(Key, Value)] = &mut self.0;
        let (mut lo, mut hi) = (0, pairs.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match pairs[mid].0.cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Some(std::mem::replace(&mut pairs[mid].1, value));
                }
            }
        }
        self.0.insert(lo, (key, value));
        None
    }

    /// Replace the attributes with the `n` pairs `pair(0)`, `pair(1)`, ... (stopping at
    /// the first error, which leaves no attributes): later pairs win over earlier ones
    /// with the same key, as inserting them one by one would. The pairs are taken in the
    /// order given and then put in key order by an insertion sort, the few pairs of a
    /// message being most often in order or nearly, so each costs a key compare or two
    /// instead of a search for its place and a move of the pairs after it.
    pub fn fill<E>(
        &mut self,
        n: usize,
        mut pair: impl FnMut(usize) -> Result<(Key, Value), E>,
    ) -> Result<(), E> {
        self.0.clear();
        self.0.reserve(n);
        for i in 0..n {
            match pair(i) {
                Ok(p) => self.0.push(p),
                Err(e) => {
                    self.0.clear();
                    return Err(e);
                }
            }
        }
        let v = &mut self.0;
        for i in 1..v.len() {
            // A stable sort: pairs with the same key stay in the order given.
            let mut j = i;
            while j > 0 && v[j - 1].0.cmp(&v[j].0).is_gt() {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        // Of the pairs with the same key, now side by side, the last given wins.
        let mut i = 1;
        while i < v.len() {
            if v[i - 1].0 == v[i].0 {
                v.remove(i - 1);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Make room for `n` more attributes (rounded up to a power of two, as adding one at
    /// a time would: a message often gets one or two more after it is made).
    pub fn reserve(&mut self, n: usize) {
        self.0.reserve(n);
    }

    /// Add attribute `key` after the others: it comes after them in key order (see
    /// [`key_order`]). No search, no check of the order.
    #[inline(always)]
    pub fn push_ordered(&mut self, key: Key, value: Value) {
        debug_assert!(self.0.last().is_none_or(|(k, _)| *k < key));
        self.0.push((key, value));
    }

    /// Remove attribute `key`, returning its value.
    pub fn remove(&mut self, key: &Key) -> Option<Value> {
        self.find(key).map(|i| self.0.remove(i).1)
    }

    /// The attributes in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Key, &Value)> + ExactSizeIterator {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.0.iter().map(|(_, v)| v)
    }

    /// The attributes as a dictionary.
    pub fn to_dict(&self) -> Dict {
        self.0.iter().cloned().collect()
    }
}

/// How many attributes [`key_order`] puts in order.
pub const ORDER_UP_TO: usize = 8;

/// The order in which attributes named `names` (at most [`ORDER_UP_TO`] of them) are
/// kept: the positions of the names sorted by text (`order[j]` is where the `j`th key in
/// key order was given), or `None` when a name is given twice (then which value wins must
/// be worked out: [`Attrs::fill`] does) or there are too many. An insertion sort of the
/// positions, not of the pairs: the few names of a message are often in order or nearly,
/// and two names compare by symbol number in the common case ([`Symbol::cmp_text`]
/// remembers their order).
#[inline(always)]
pub fn key_order(names: &[Symbol]) -> Option<[u8; ORDER_UP_TO]> {
    let mut order = [0u8; ORDER_UP_TO];
    if names.len() > ORDER_UP_TO {
        return None;
    }
    for i in 1..names.len() {
        let mut j = i;
        while j > 0 {
            match names[usize::from(order[j - 1])].cmp_text(names[i]) {
                std::cmp::Ordering::Less => break,
                std::cmp::Ordering::Equal => return None,
                std::cmp::Ordering::Greater => {
                    order[j] = order[j - 1];
                    j -= 1;
                }
            }
        }
        order[j] = i as u8;
    }
    Some(order)
}

impl FromIterator<(Key, Value)> for Attrs {
    /// Later pairs win over earlier ones with the same key, as in a dictionary.
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(iter: I) -> Attrs {
        let iter = iter.into_iter();
        let mut a = Attrs::with_capacity(iter.size_hint().0);
        a.extend(iter);
        a
    }
}

impl Extend<(Key, Value)> for Attrs {
    fn extend<I: IntoIterator<Item = (Key, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl From<Dict> for Attrs {
    fn from(d: Dict) -> Attrs {
        // A dictionary is already in key order.
        Attrs(d.into_iter().collect())
    }
}

impl IntoIterator for Attrs {
    type Item = (Key, Value);
    type IntoIter = smallvec::IntoIter<[(Key, Value); INLINE]>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Attrs {
    type Item = (&'a Key, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Key, Value)>,
        fn(&'a (Key, Value)) -> (&'a Key, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::Symbol;

    fn s(t: &str) -> Key {
        Key::sym(Symbol::intern(t))
    }

    fn shown(a: &Attrs) -> Vec<String> {
        a.iter()
            .map(|(k, v)| format!("{} {v}", k.to_value()))
            .collect()
    }

    #[test]
    fn iterates_in_key_order_like_a_dictionary() {
        // Interned in an order unlike the text order: numbers must not decide.
        let keys = ["zeta", "alpha", "mid", "beta", "omega", "gamma", "delta"];
        let ks: Vec<Key> = keys.iter().map(|k| s(k)).collect();
        let mut a = Attrs::new();
        let mut d = Dict::new();
        for (i, k) in ks.iter().enumerate() {
            a.insert(k.clone(), Value::Int(i as i64));
            d.insert(k.clone(), Value::Int(i as i64));
        }
        a.insert(Key::Int(7), Value::Nil);
        d.insert(Key::Int(7), Value::Nil);
        a.insert(Key::Int(-2), Value::bool(true));
        d.insert(Key::Int(-2), Value::bool(true));
        let from_dict: Vec<String> = d
            .iter()
            .map(|(k, v)| format!("{} {v}", k.to_value()))
            .collect();
        assert_eq!(shown(&a), from_dict);
        assert_eq!(Attrs::from(d.clone()), a);
        assert_eq!(a.to_dict(), d);
    }

    #[test]
    fn many_attributes_updated_and_looked_up() {
        let mut a = Attrs::new();
        let mut d = Dict::new();
        for i in (0..40).rev() {
            let k = s(&format!("k{i}"));
            a.insert(k.clone(), Value::Int(i));
            d.insert(k, Value::Int(i));
        }
        for i in (0..40).step_by(3) {
            let k = s(&format!("k{i}"));
            assert_eq!(a.insert(k.clone(), Value::Int(-i)), Some(Value::Int(i)));
            d.insert(k, Value::Int(-i));
        }
        assert_eq!(a.len(), 40);
        for i in 0..40 {
            let k = s(&format!("k{i}"));
            assert_eq!(a.get(&k), d.get(&k));
        }
        assert_eq!(a.get(&s("absent")), None);
        assert_eq!(a, Attrs::from(d));
        assert_eq!(a.remove(&s("k1")), Some(Value::Int(1)));
        assert_eq!(a.get(&s("k1")), None);
    }

    proptest::proptest! {
        /// Any sequence of inserts and removals leaves the same entries, in the same
        /// order, as a dictionary given the same sequence.
        #[test]
        fn behaves_as_a_dictionary(ops in proptest::collection::vec((0u8..24, -3i64..3, proptest::bool::weighted(0.15)), 0..60)) {
            let key = |k: u8| if k < 4 {
                Key::Int(i64::from(k) - 2)
            } else {
                // Names whose symbol numbers do not follow their text order.
                s(&format!("{}{}", (b'z' - k) as char, k % 3))
            };
            let mut a = Attrs::new();
            let mut d = Dict::new();
            for (k, v, remove) in ops {
                let k = key(k);
                if remove {
                    proptest::prop_assert_eq!(a.remove(&k), d.remove(&k));
                } else {
                    proptest::prop_assert_eq!(a.insert(k.clone(), Value::Int(v)), d.insert(k.clone(), Value::Int(v)));
                }
                proptest::prop_assert_eq!(a.len(), d.len());
                proptest::prop_assert_eq!(a.get(&k), d.get(&k));
            }
            proptest::prop_assert_eq!(shown(&a), d.iter().map(|(k, v)| format!("{} {v}", k.to_value())).collect::<Vec<_>>());
        }
    }

    proptest::proptest! {
        #[test]
        fn filled_as_inserted_one_by_one(pairs in proptest::collection::vec((0u8..12, -3i64..3), 0..10)) {
            let key = |k: u8| if k < 4 { Key::Int(i64::from(k) - 1) } else { s(["b", "a", "ab", "c", "", "B", "ba", "abc"][usize::from(k - 4)]) };
            let mut inserted = Attrs::new();
            for &(k, v) in &pairs {
                inserted.insert(key(k), Value::Int(v));
            }
            let mut filled = Attrs::new();
            filled.insert(s("old"), Value::Nil);
            let r: Result<(), ()> = filled.fill(pairs.len(), |i| Ok((key(pairs[i].0), Value::Int(pairs[i].1))));
            proptest::prop_assert!(r.is_ok());
            proptest::prop_assert_eq!(&filled, &inserted);
            proptest::prop_assert_eq!(shown(&filled), shown(&inserted));
            // An error leaves nothing.
            let r = filled.fill(pairs.len() + 1, |i| pairs.get(i).map(|&(k, v)| (key(k), Value::Int(v))).ok_or(()));
            proptest::prop_assert!(r.is_err() && filled.is_empty());
        }
    }

    proptest::proptest! {
        /// Names put in order by `key_order` and pushed in that order make the attributes
        /// inserting them makes; a name given twice, or too many names, are refused.
        #[test]
        fn ordered_as_inserted(names in proptest::collection::vec(0u8..12, 0..11)) {
            let texts = ["b", "a", "ab", "c", "", "B", "ba", "abc", "zeta", "alpha", "mid", "a1"];
            let syms: Vec<Symbol> = names.iter().map(|&k| Symbol::intern(texts[usize::from(k)])).collect();
            let mut inserted = Attrs::new();
            for (i, &n) in syms.iter().enumerate() {
                inserted.insert(Key::sym(n), Value::Int(i as i64));
            }
            let twice = inserted.len() < syms.len();
            match key_order(&syms) {
                None => proptest::prop_assert!(twice || syms.len() > ORDER_UP_TO),
                Some(order) => {
                    proptest::prop_assert!(!twice && syms.len() <= ORDER_UP_TO);
                    let mut pushed = Attrs::new();
                    pushed.reserve(syms.len());
                    for &i in &order[..syms.len()] {
                        let i = usize::from(i);
                        pushed.push_ordered(Key::sym(syms[i]), Value::Int(i as i64));
                    }
                    proptest::prop_assert_eq!(&pushed, &inserted);
                }
            }
        }
    }

    #[test]
    fn later_pairs_win() {
        let a: Attrs = [(s("x"), Value::Int(1)), (s("x"), Value::Int(2))]
            .into_iter()
            .collect();
        assert_eq!(a.len(), 1);
        assert_eq!(a.get(&s("x")), Some(&Value::Int(2)));
    }

    #[test]
    fn a_guess_matches_symbols_only_and_the_search_finds_the_rest() {
        // A key made at run time before its text was interned is held as text.
        let text = "attrs-test-a-key-interned-late";
        let early = Key::Str(super::super::Text::owned(text.into()));
        let mut a = Attrs::new();
        a.insert(s("alpha"), Value::Int(1));
        a.insert(early, Value::Int(2));
        let late = Symbol::intern(text);
        assert_eq!(a.get_at(0, Symbol::intern("alpha")), Some(&Value::Int(1)));
        assert_eq!(a.get_at(1, late), None);
        assert_eq!(a.get_at(0, late), None);
        assert_eq!(a.find(&Key::sym(late)), Some(1));
        // Nor can a scan of symbols say the key is not there.
        assert!(!a.lacks_symbol(late));
        assert!(!a.lacks_symbol(Symbol::intern("alpha")));
        let mut b = Attrs::new();
        b.insert(s("alpha"), Value::Int(1));
        b.insert(Key::Int(4), Value::Nil);
        assert!(b.lacks_symbol(late));
        assert!(!b.lacks_symbol(Symbol::intern("alpha")));
        assert_eq!(a.value_at(1), Some(&Value::Int(2)));
        assert_eq!(a.value_at(2), None);
        // Held as the symbol, the guess finds it.
        a.insert(Key::sym(late), Value::Int(3));
        assert_eq!(a.len(), 2);
        assert_eq!(a.get(&Key::sym(late)), Some(&Value::Int(3)));
    }
}
