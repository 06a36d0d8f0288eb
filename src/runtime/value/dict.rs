//! The dictionary behind a dictionary value.
//!
//! A dictionary of at most [`FLAT_MAX`] entries (nearly every dictionary a game makes: the
//! kings of a chess position, the scores, the empty points of a Go board, a table of
//! counts) is a plain vector of (key, value) pairs sorted by key: one allocation, a lookup
//! is a binary search over it (a scan for a string key in a short one, which compares
//! symbols instead of texts), and iterating it reads the vector in order. A larger one is
//! an imbl ordered map, so adding to a large dictionary someone else holds copies a path
//! of small nodes instead of every entry. Either way the value holds it behind an `Arc`:
//! copying a dictionary value is a reference count, and updating one nobody else holds
//! happens in place.
//!
//! Keys are kept in [`Key`]'s order (integers first, by value; then strings by text), so
//! iteration, display, comparison and JSON are in that order whichever form holds them.

use std::fmt;
use std::iter::FusedIterator;
use std::sync::Arc;

use super::{Key, Value};

/// The most entries kept as a sorted vector; larger dictionaries are imbl maps.
pub const FLAT_MAX: usize = 1024;

/// A tree that shrinks to this many entries becomes a vector again (below [`FLAT_MAX`], so
/// that adding and taking out one entry at the boundary does not convert back and forth).
const FLATTEN_AT: usize = FLAT_MAX / 2;

/// Up to this many entries, a string key is looked for by equality (symbols compare as one
/// word) rather than by a binary search comparing texts.
const SCAN_UP_TO: usize = 8;

type Entry = (Key, Value);
type Tree = imbl::OrdMap<Key, Value>;

/// A dictionary: values by [`Key`], in key order (see the module documentation).
#[derive(Clone)]
pub struct Dict {
    entries: Entries,
}

#[derive(Clone)]
enum Entries {
    Flat(Vec<Entry>),
    Tree(Tree),
}

/// Where a key is or would go in a dictionary ([`Dict::search`]), to insert it there
/// without searching again.
#[derive(Clone, Copy, Debug)]
pub struct Place(Result<usize, usize>);

impl Place {
    /// Whether the key is not in the dictionary yet.
    #[inline]
    pub fn is_new(self) -> bool {
        self.0.is_err()
    }
}

/// Where `key` is in `entries` (sorted by key), or where it would go.
#[inline]
fn flat_search(entries: &[Entry], key: &Key) -> Result<usize, usize> {
    match key {
        Key::Int(k) => int_search(entries, *k),
        Key::Str(_) => str_search(entries, key),
    }
}

/// [`flat_search`] of an integer key, which compares with integers only and sorts before
/// every string.
#[inline]
fn int_search(entries: &[Entry], k: i64) -> Result<usize, usize> {
    let n = entries.len();
    // Keys that are consecutive integers (a table by index, a count per number) have `k`
    // at `k - first`: one probe.
    if let Some((Key::Int(first), _)) = entries.first() {
        let guess = k.wrapping_sub(*first) as u64;
        if guess < n as u64
            && let Some((Key::Int(x), _)) = entries.get(guess as usize)
            && *x == k
        {
            return Ok(guess as usize);
        }
    } else {
        // Empty, or strings only: the integer goes first.
        return Err(0);
    }
    // A binary search for the first entry not below `k`, without a branch on the
    // comparison.
    let below = |i: usize| matches!(entries.get(i), Some((Key::Int(x), _)) if *x < k);
    let mut base = 0;
    let mut size = n;
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = if below(mid) { mid } else { base };
        size -= half;
    }
    let i = base + usize::from(below(base));
    match entries.get(i) {
        Some((Key::Int(x), _)) if *x == k => Ok(i),
        _ => Err(i),
    }
}

/// [`flat_search`] of a string key.
#[inline]
fn str_search(entries: &[Entry], key: &Key) -> Result<usize, usize> {
    if entries.len() <= SCAN_UP_TO {
        if let Some(i) = entries.iter().position(|(e, _)| e == key) {
            return Ok(i);
        }
        return Err(entries.partition_point(|(e, _)| e < key));
    }
    entries.binary_search_by(|(e, _)| e.cmp(key))
}

impl Dict {
    /// An empty dictionary.
    #[inline]
    pub fn new() -> Dict {
        Dict {
            entries: Entries::Flat(Vec::new()),
        }
    }

    /// How many entries.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.entries {
            Entries::Flat(v) => v.len(),
            Entries::Tree(t) => t.len(),
        }
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `key`.
    #[inline]
    pub fn get(&self, key: &Key) -> Option<&Value> {
        if let (Entries::Flat(v), Key::Int(k)) = (&self.entries, key) {
            return int_search(v, *k).ok().map(|i| &v[i].1);
        }
        self.get_other(key)
    }

    /// [`Dict::get`] of a string key, or in a tree.
    #[inline(never)]
    fn get_other(&self, key: &Key) -> Option<&Value> {
        match &self.entries {
            Entries::Flat(v) => match key {
                Key::Str(_) if v.len() <= SCAN_UP_TO => {
                    v.iter().find(|(e, _)| e == key).map(|(_, value)| value)
                }
                _ => flat_search(v, key).ok().map(|i| &v[i].1),
            },
            Entries::Tree(t) => t.get(key),
        }
    }

    /// The value at `key`, to change it.
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut Value> {
        match &mut self.entries {
            Entries::Flat(v) => flat_search(v, key).ok().map(|i| &mut v[i].1),
            Entries::Tree(t) => t.get_mut(key),
        }
    }

    /// Whether there is a value at `key`.
    #[inline]
    pub fn contains_key(&self, key: &Key) -> bool {
        self.get(key).is_some()
    }

    /// Where `key` is or would go, to [`Dict::insert_at`] it there.
    #[inline]
    pub fn search(&self, key: &Key) -> Place {
        if let (Entries::Flat(v), Key::Int(k)) = (&self.entries, key) {
            return Place(int_search(v, *k));
        }
        self.search_other(key)
    }

    /// [`Dict::search`] of a string key, or in a tree.
    #[inline(never)]
    fn search_other(&self, key: &Key) -> Place {
        Place(match &self.entries {
            Entries::Flat(v) => flat_search(v, key),
            Entries::Tree(t) if t.contains_key(key) => Ok(usize::MAX),
            Entries::Tree(_) => Err(usize::MAX),
        })
    }

    /// Set `key` to `value` at `place`, which [`Dict::search`] of `key` gave for this
    /// dictionary (or one with the same entries), returning the value replaced.
    #[inline]
    pub fn insert_at(&mut self, place: Place, key: Key, value: Value) -> Option<Value> {
        match (&mut self.entries, place.0) {
            (Entries::Flat(v), Ok(i)) if i < v.len() => {
                Some(std::mem::replace(&mut v[i].1, value))
            }
            (Entries::Flat(v), Err(i)) if v.len() < FLAT_MAX && i <= v.len() => {
                v.insert(i, (key, value));
                None
            }
            _ => self.insert_slow(key, value),
        }
    }

    /// Set `key` to `value`, returning the value replaced.
    #[inline]
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        let place = self.search(&key);
        self.insert_at(place, key, value)
    }

    /// Insert into a full vector (which becomes a tree) or a tree.
    #[inline(never)]
    fn insert_slow(&mut self, key: Key, value: Value) -> Option<Value> {
        if let Entries::Flat(v) = &mut self.entries {
            if let Ok(i) = flat_search(v, &key) {
                return Some(std::mem::replace(&mut v[i].1, value));
            }
            if v.len() < FLAT_MAX {
                let i = flat_search(v, &key).unwrap_or_else(|i| i);
                v.insert(i, (key, value));
                return None;
            }
            self.entries = Entries::Tree(std::mem::take(v).into_iter().collect());
        }
        match &mut self.entries {
            Entries::Tree(t) => t.insert(key, value),
            Entries::Flat(_) => None,
        }
    }

    /// Take out the value at `key`.
    pub fn remove(&mut self, key: &Key) -> Option<Value> {
        let place = self.search(key);
        self.remove_at(place, key)
    }

    /// Take out the value at `key`, which is at `place` ([`Dict::search`] of `key` for
    /// this dictionary or one with the same entries).
    pub fn remove_at(&mut self, place: Place, key: &Key) -> Option<Value> {
        match &mut self.entries {
            Entries::Flat(v) => match place.0 {
                Ok(i) if i < v.len() => Some(v.remove(i).1),
                Ok(_) => flat_search(v, key).ok().map(|i| v.remove(i).1),
                Err(_) => None,
            },
            Entries::Tree(t) => {
                let old = t.remove(key);
                if t.len() <= FLATTEN_AT {
                    let flat = std::mem::take(t).into_iter().collect();
                    self.entries = Entries::Flat(flat);
                }
                old
            }
        }
    }

    /// Set `key` to `value` at `place` ([`Dict::search`] of `key` for the dictionary in
    /// `this`) in the dictionary in `this`: in place when nobody else holds it, otherwise
    /// in a copy that replaces it in `this`. Gives the value replaced.
    #[inline]
    pub fn insert_in(this: &mut Arc<Dict>, place: Place, key: Key, value: Value) -> Option<Value> {
        if let Some(d) = Arc::get_mut(this) {
            return d.insert_at(place, key, value);
        }
        Dict::make_mut(this, usize::from(place.is_new())).insert_at(place, key, value)
    }

    /// Take out the value at `key`, which is at `place` ([`Dict::search`] of `key` for the
    /// dictionary in `this`), from the dictionary in `this`: in place when nobody else holds
    /// it, otherwise from a copy that replaces it in `this`.
    pub fn remove_in(this: &mut Arc<Dict>, place: Place, key: &Key) -> Option<Value> {
        if place.is_new() {
            return None;
        }
        if let Some(d) = Arc::get_mut(this) {
            return d.remove_at(place, key);
        }
        Dict::make_mut(this, 0).remove_at(place, key)
    }

    /// The dictionary in `this`, to update: in place when nobody else holds it, otherwise
    /// a copy (with room for `extra` more entries) that replaces it in `this`.
    #[inline]
    pub fn make_mut(this: &mut Arc<Dict>, extra: usize) -> &mut Dict {
        if Arc::get_mut(this).is_none() {
            *this = Arc::new(this.copy_with_room(extra));
        }
        Arc::make_mut(this)
    }

    #[inline(never)]
    fn copy_with_room(&self, extra: usize) -> Dict {
        let entries = match &self.entries {
            Entries::Flat(v) => {
                let mut copy = Vec::with_capacity(v.len() + extra);
                copy.extend_from_slice(v);
                Entries::Flat(copy)
            }
            Entries::Tree(t) => Entries::Tree(t.clone()),
        };
        Dict { entries }
    }

    /// The entries in key order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        match &self.entries {
            Entries::Flat(v) => Iter::Flat(v.iter()),
            Entries::Tree(t) => Iter::Tree(t.iter()),
        }
    }

    /// The keys in order.
    #[inline]
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator {
        self.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    #[inline]
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.iter().map(|(_, v)| v)
    }

    /// The entries as one slice in key order, when the dictionary is small enough to be one.
    #[inline]
    pub fn as_slice(&self) -> Option<&[(Key, Value)]> {
        match &self.entries {
            Entries::Flat(v) => Some(v),
            Entries::Tree(_) => None,
        }
    }

    /// A dictionary of `entries` sorted by key, without two equal keys.
    fn from_sorted(entries: Vec<Entry>) -> Dict {
        if entries.len() <= FLAT_MAX {
            Dict {
                entries: Entries::Flat(entries),
            }
        } else {
            Dict {
                entries: Entries::Tree(entries.into_iter().collect()),
            }
        }
    }
}

impl Default for Dict {
    fn default() -> Dict {
        Dict::new()
    }
}

impl FromIterator<(Key, Value)> for Dict {
    /// A later pair wins over an earlier one with the same key.
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(iter: I) -> Dict {
        let mut entries: Vec<Entry> = iter.into_iter().collect();
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            // Stable: of equal keys, the later pair stays later, and is the one kept.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    std::mem::swap(&mut later.1, &mut kept.1);
                }
                same
            });
        }
        Dict::from_sorted(entries)
    }
}

impl PartialEq for Dict {
    /// Entry by entry, in key order ([`Value`]'s `==` for values).
    fn eq(&self, other: &Dict) -> bool {
        if self.len() != other.len() {
            return false;
        }
        match (self.as_slice(), other.as_slice()) {
            (Some(a), Some(b)) => a == b,
            _ => self.iter().eq(other.iter()),
        }
    }
}

impl fmt::Debug for Dict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a Dict {
    type Item = (&'a Key, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl IntoIterator for Dict {
    type Item = (Key, Value);
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        match self.entries {
            Entries::Flat(v) => IntoIter::Flat(v.into_iter()),
            Entries::Tree(t) => IntoIter::Tree(t.into_iter()),
        }
    }
}

/// The entries of a [`Dict`], in key order.
pub enum Iter<'a> {
    /// Of a vector.
    Flat(std::slice::Iter<'a, Entry>),
    /// Of a tree.
    Tree(imbl::ordmap::Iter<'a, Key, Value, imbl::shared_ptr::DefaultSharedPtr>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Key, &'a Value);

    #[inline]
    fn next(&mut self) -> Option<(&'a Key, &'a Value)> {
        match self {
            Iter::Flat(i) => i.next().map(|(k, v)| (k, v)),
            Iter::Tree(i) => i.next(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Flat(i) => i.size_hint(),
            Iter::Tree(i) => i.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Flat(i) => i.next_back().map(|(k, v)| (k, v)),
            Iter::Tree(i) => i.next_back(),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl FusedIterator for Iter<'_> {}

/// The entries of a [`Dict`] taken out, in key order.
pub enum IntoIter {
    /// Of a vector.
    Flat(std::vec::IntoIter<Entry>),
    /// Of a tree.
    Tree(imbl::ordmap::ConsumingIter<Key, Value, imbl::shared_ptr::DefaultSharedPtr>),
}

impl Iterator for IntoIter {
    type Item = (Key, Value);

    #[inline]
    fn next(&mut self) -> Option<(Key, Value)> {
        match self {
            IntoIter::Flat(i) => i.next(),
            IntoIter::Tree(i) => i.next(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            IntoIter::Flat(i) => i.size_hint(),
            IntoIter::Tree(i) => i.size_hint(),
        }
    }
}

impl ExactSizeIterator for IntoIter {}
