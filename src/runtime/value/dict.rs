//! The dictionary behind a dictionary value.
//!
//! A dictionary is kept as (key, value) entries sorted by key ([`Key`]'s order: integers
//! first, by value; then strings by text), so iterating, displaying, comparing and writing
//! it as JSON read the entries in order.
//!
//! A dictionary is one plain vector while it has at most [`FLAT_MAX`] entries and nobody
//! else holds it when it is updated (nearly every dictionary a game makes: the kings of a
//! chess position, the scores, a table of counts built in a loop): one allocation, a lookup
//! is a binary search (one probe for consecutive integer keys; a scan for a string key in a
//! short one, which compares symbols instead of texts), and an update of a key already
//! there writes in place.
//!
//! Otherwise it is a vector of *chunks*, each a sorted vector of at most [`CHUNK_MAX`]
//! entries behind its own `Rc`: a lookup is a binary search over the chunks' first keys,
//! then one in the chunk. A dictionary grows into chunks past [`FLAT_MAX`] entries, and a
//! vector of more than [`CHUNK_MAX`] entries that someone else holds is copied into chunks
//! when it is updated: such a dictionary is usually a property shared with the undo history
//! and the checkpoints and updated every move (the empty points of a Go board), and updating
//! chunks someone else holds copies the list of chunks (a reference count each) and the one
//! chunk changed, not every entry. Adding a key moves at most a chunk's entries.
//!
//! Either way the value holds the dictionary behind an `Rc`: copying a dictionary value is
//! a reference count.

use std::fmt;
use std::iter::FusedIterator;
use std::rc::Rc;

use super::{Key, Text, Value};

mod names;
mod search;
#[cfg(test)]
mod tests;

use names::Names;

use search::{chunk_of, flat_search, int_chunk_of, int_search, scan_text};

/// The most entries kept as one vector; larger dictionaries are split into chunks.
pub const FLAT_MAX: usize = 1024;

/// The most entries of one chunk of a large dictionary. A full chunk that gets one more is
/// split in two halves.
pub const CHUNK_MAX: usize = 64;

/// How full the chunks of a large dictionary made at once are (room to add a few keys to
/// each before it splits).
const CHUNK_FILL: usize = CHUNK_MAX * 3 / 4;

/// A chunked dictionary that shrinks to this many entries becomes one vector again (below
/// [`CHUNK_MAX`], so that adding and taking out one key does not convert it back and forth).
const FLATTEN_AT: usize = CHUNK_MAX / 2;

/// Up to this many entries, a string key is looked for by equality (two symbols compare as
/// one word) rather than by a binary search comparing texts.
const SCAN_UP_TO: usize = 32;

type Entry = (Key, Value);
type Chunk = Rc<Vec<Entry>>;

/// A dictionary: values by [`Key`], in key order (see the module documentation).
pub struct Dict {
    entries: Entries,
    /// Where its interned names are, once it is looked up by name often (`names.rs`).
    names: Names,
}

#[derive(Clone)]
enum Entries {
    /// At most [`FLAT_MAX`] entries.
    Flat(Vec<Entry>),
    /// More: the chunks (none empty, each at most [`CHUNK_MAX`] entries) in key order, and
    /// how many entries they hold together.
    Chunks(Vec<Chunk>, usize),
}

/// Where a key is or would go in a dictionary ([`Dict::search`]), to insert it there
/// without searching again: the chunk (0 for a dictionary of one vector), and the place in
/// it (`Ok` where the key is, `Err` where it would go).
#[derive(Clone, Copy, Debug)]
pub struct Place {
    chunk: usize,
    at: Result<usize, usize>,
}

impl Place {
    /// Whether the key is not in the dictionary yet.
    #[inline]
    pub fn is_new(self) -> bool {
        self.at.is_err()
    }
}

/// `entries` (sorted, no two keys equal) cut into chunks [`CHUNK_FILL`] full.
/// Copies of `entries`, in order, with room for `extra` more; each value copied inline
/// (see [`Value::clone_inline`]).
#[inline]
fn copy_entries(entries: &[Entry], extra: usize) -> Vec<Entry> {
    let mut copy = Vec::with_capacity(entries.len() + extra);
    copy.extend(entries.iter().map(|(k, v)| (k.clone(), v.clone_inline())));
    copy
}

/// The entries of the chunk in `slot`, to update: in place when nobody else holds the
/// chunk, otherwise a copy (with room for `extra` more entries) that replaces it in `slot`.
#[inline]
fn chunk_mut(slot: &mut Chunk, extra: usize) -> &mut Vec<Entry> {
    if Rc::get_mut(slot).is_none() {
        *slot = Rc::new(copy_entries(slot, extra));
    }
    match Rc::get_mut(slot) {
        Some(entries) => entries,
        None => unreachable!("a new chunk has one holder"),
    }
}

fn chunked(entries: Vec<Entry>) -> Vec<Chunk> {
    let mut chunks = Vec::with_capacity(entries.len().div_ceil(CHUNK_FILL));
    let mut rest = entries.into_iter().peekable();
    while rest.peek().is_some() {
        let mut chunk = Vec::with_capacity(CHUNK_MAX);
        chunk.extend(rest.by_ref().take(CHUNK_FILL));
        chunks.push(Rc::new(chunk));
    }
    chunks
}

impl Dict {
    /// An empty dictionary.
    #[inline]
    pub fn new() -> Dict {
        Dict {
            entries: Entries::Flat(Vec::new()),
            names: Names::default(),
        }
    }

    /// How many entries.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.entries {
            Entries::Flat(v) => v.len(),
            Entries::Chunks(_, len) => *len,
        }
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `key`.
    #[inline(always)]
    pub fn get(&self, key: &Key) -> Option<&Value> {
        match (&self.entries, key) {
            (Entries::Flat(v), Key::Int(k)) => int_search(v, *k).ok().map(|i| &v[i].1),
            (Entries::Chunks(chunks, _), Key::Int(k)) => {
                let v = chunks.get(int_chunk_of(chunks, *k))?;
                int_search(v, *k).ok().map(|i| &v[i].1)
            }
            _ => self.get_other(key),
        }
    }

    /// [`Dict::get`] of a string key.
    #[inline(never)]
    fn get_other(&self, key: &Key) -> Option<&Value> {
        let v: &[Entry] = match &self.entries {
            Entries::Flat(v) => {
                if let Key::Str(t) = key
                    && let Some(found) = self.by_name(v, t)
                {
                    return found;
                }
                v
            }
            Entries::Chunks(chunks, _) => chunks.get(chunk_of(chunks, key))?,
        };
        match key {
            Key::Str(t) if v.len() <= SCAN_UP_TO => scan_text(v, t),
            _ => flat_search(v, key).ok().map(|i| &v[i].1),
        }
    }

    /// The value at the string key `t` of the one vector `v` of entries, by the table of
    /// its names (`names.rs`), when `t` is an interned name and there is one.
    #[inline(always)]
    fn by_name<'a>(&self, v: &'a [Entry], t: &Text) -> Option<Option<&'a Value>> {
        if v.len() < names::FEWEST || !t.is_symbol() {
            return None;
        }
        let at = self.names.find(v, t.ptr.as_ptr().addr())?;
        Some(at.map(|i| &v[i].1))
    }

    /// [`Dict::get`] of the string key `t`, without making a key of it.
    #[inline(never)]
    pub fn get_text(&self, t: &Text) -> Option<&Value> {
        match &self.entries {
            Entries::Flat(v) if v.len() <= SCAN_UP_TO => match self.by_name(v, t) {
                Some(found) => found,
                None => scan_text(v, t),
            },
            _ => self.get_other(&Key::Str(t.clone())),
        }
    }

    /// The value at `key`, to change it.
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut Value> {
        match &mut self.entries {
            Entries::Flat(v) => flat_search(v, key).ok().map(|i| &mut v[i].1),
            Entries::Chunks(chunks, _) => {
                let c = chunk_of(chunks, key);
                let i = flat_search(chunks.get(c)?, key).ok()?;
                chunk_mut(&mut chunks[c], 0).get_mut(i).map(|(_, v)| v)
            }
        }
    }

    /// Whether there is a value at `key`.
    #[inline]
    pub fn contains_key(&self, key: &Key) -> bool {
        self.get(key).is_some()
    }

    /// Where `key` is or would go, to [`Dict::insert_at`] it there.
    #[inline(always)]
    pub fn search(&self, key: &Key) -> Place {
        match (&self.entries, key) {
            (Entries::Flat(v), Key::Int(k)) => Place {
                chunk: 0,
                at: int_search(v, *k),
            },
            (Entries::Chunks(chunks, _), Key::Int(k)) => {
                let chunk = int_chunk_of(chunks, *k);
                let at = chunks.get(chunk).map_or(Err(0), |c| int_search(c, *k));
                Place { chunk, at }
            }
            _ => self.search_other(key),
        }
    }

    /// [`Dict::search`] of a string key.
    #[inline(never)]
    fn search_other(&self, key: &Key) -> Place {
        match &self.entries {
            Entries::Flat(v) => Place {
                chunk: 0,
                at: flat_search(v, key),
            },
            Entries::Chunks(chunks, _) => {
                let chunk = chunk_of(chunks, key);
                let at = chunks.get(chunk).map_or(Err(0), |c| flat_search(c, key));
                Place { chunk, at }
            }
        }
    }

    /// The value at `place`, which [`Dict::search`] of a key gave for this dictionary:
    /// the key's value, or `None` when the key is not there.
    #[inline(always)]
    pub fn value_at(&self, place: Place) -> Option<&Value> {
        let i = place.at.ok()?;
        let entries: &[Entry] = match &self.entries {
            Entries::Flat(v) => v,
            Entries::Chunks(chunks, _) => chunks.get(place.chunk)?,
        };
        entries.get(i).map(|(_, v)| v)
    }

    /// The integer at `place` ([`Dict::search`] of a key for the dictionary in `this`),
    /// to change where it lies, when the key is there with an integer and nobody else
    /// holds the dictionary (or the chunk it is in).
    #[inline(always)]
    pub fn int_at_mut(this: &mut Rc<Dict>, place: Place) -> Option<&mut i64> {
        let i = place.at.ok()?;
        let entries: &mut [Entry] = match &mut Rc::get_mut(this)?.entries {
            Entries::Flat(v) => v,
            Entries::Chunks(chunks, _) => Rc::get_mut(chunks.get_mut(place.chunk)?)?,
        };
        match entries.get_mut(i) {
            Some((_, Value::Int(x))) => Some(x),
            _ => None,
        }
    }

    /// Set `key` to `value` at `place`, which [`Dict::search`] of `key` gave for this
    /// dictionary (or one with the same entries), returning the value replaced.
    #[inline(always)]
    pub fn insert_at(&mut self, place: Place, key: Key, value: Value) -> Option<Value> {
        match (&mut self.entries, place.at) {
            (Entries::Flat(v), Ok(i)) if i < v.len() => Some(std::mem::replace(&mut v[i].1, value)),
            (Entries::Flat(v), Err(i)) if v.len() < FLAT_MAX && i <= v.len() => {
                v.insert(i, (key, value));
                self.names.forget();
                None
            }
            _ => self.insert_other(place, key, value),
        }
    }

    /// [`Dict::insert_at`] into chunks, or into a full vector (which becomes chunks).
    #[inline(never)]
    fn insert_other(&mut self, place: Place, key: Key, value: Value) -> Option<Value> {
        // (A key already there is not a change of the keys, but this way is rare.)
        self.names.forget();
        // A key already there, in a chunk nobody else holds.
        if let (Entries::Chunks(chunks, _), Ok(i)) = (&mut self.entries, place.at)
            && let Some((k, v)) = chunks
                .get_mut(place.chunk)
                .and_then(Rc::get_mut)
                .and_then(|c| c.get_mut(i))
            && *k == key
        {
            return Some(std::mem::replace(v, value));
        }
        if let Entries::Flat(v) = &mut self.entries {
            match flat_search(v, &key) {
                Ok(i) => return Some(std::mem::replace(&mut v[i].1, value)),
                Err(i) if v.len() < FLAT_MAX => {
                    v.insert(i, (key, value));
                    return None;
                }
                Err(_) => {
                    let len = v.len();
                    self.entries = Entries::Chunks(chunked(std::mem::take(v)), len);
                    let place = self.search(&key);
                    return self.insert_other(place, key, value);
                }
            }
        }
        let Entries::Chunks(chunks, len) = &mut self.entries else {
            return None;
        };
        // A place of this dictionary names one of its chunks; any other is found again.
        let c = if place.chunk < chunks.len() {
            place.chunk
        } else {
            chunk_of(chunks, &key)
        };
        let Some(slot) = chunks.get_mut(c) else {
            // No chunk at all (never made so): the key is the first entry.
            chunks.push(Rc::new(vec![(key, value)]));
            *len += 1;
            return None;
        };
        let chunk = chunk_mut(slot, 1);
        let at = match place.at {
            Ok(i) if chunk.get(i).is_some_and(|(k, _)| *k == key) => Ok(i),
            Err(i) if i <= chunk.len() => Err(i),
            // Not a place of this dictionary: find it.
            _ => flat_search(chunk, &key),
        };
        match at {
            Ok(i) => Some(std::mem::replace(&mut chunk[i].1, value)),
            Err(i) => {
                *len += 1;
                if chunk.len() < CHUNK_MAX {
                    chunk.insert(i, (key, value));
                    return None;
                }
                // A full chunk splits in two halves; the key goes into its half.
                let mut upper = Vec::with_capacity(CHUNK_MAX);
                upper.extend(chunk.drain(CHUNK_MAX / 2..));
                if i <= CHUNK_MAX / 2 {
                    chunk.insert(i, (key, value));
                } else {
                    upper.insert(i - CHUNK_MAX / 2, (key, value));
                }
                chunks.insert(c + 1, Rc::new(upper));
                None
            }
        }
    }

    /// Set `key` to `value`, returning the value replaced.
    #[inline]
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        let place = self.search(&key);
        self.insert_at(place, key, value)
    }

    /// Take out the value at `key`.
    pub fn remove(&mut self, key: &Key) -> Option<Value> {
        let place = self.search(key);
        self.remove_at(place, key)
    }

    /// Take out the value at `key`, which is at `place` ([`Dict::search`] of `key` for
    /// this dictionary or one with the same entries).
    pub fn remove_at(&mut self, place: Place, key: &Key) -> Option<Value> {
        let Ok(at) = place.at else {
            return None;
        };
        self.names.forget();
        match &mut self.entries {
            Entries::Flat(v) => match v.get(at) {
                Some((k, _)) if k == key => Some(v.remove(at).1),
                _ => flat_search(v, key).ok().map(|i| v.remove(i).1),
            },
            Entries::Chunks(chunks, len) => {
                let c = place.chunk;
                let slot = chunks.get_mut(c)?;
                let i = match slot.get(at) {
                    Some((k, _)) if k == key => at,
                    _ => flat_search(slot, key).ok()?,
                };
                let chunk = chunk_mut(slot, 0);
                let (_, old) = chunk.remove(i);
                *len -= 1;
                let left = chunk.len();
                if *len <= FLATTEN_AT {
                    let mut flat = Vec::with_capacity(*len);
                    for chunk in std::mem::take(chunks) {
                        flat.extend(Rc::unwrap_or_clone(chunk));
                    }
                    self.entries = Entries::Flat(flat);
                } else if left == 0 {
                    chunks.remove(c);
                } else if left < CHUNK_MAX / 4 {
                    merge_small(chunks, c);
                }
                Some(old)
            }
        }
    }

    /// Set `key` to `value` at `place` ([`Dict::search`] of `key` for the dictionary in
    /// `this`) in the dictionary in `this`: in place when nobody else holds it, otherwise
    /// in a copy that replaces it in `this`. Gives the value replaced.
    #[inline]
    pub fn insert_in(this: &mut Rc<Dict>, place: Place, key: Key, value: Value) -> Option<Value> {
        if let Some(d) = Rc::get_mut(this) {
            return d.insert_at(place, key, value);
        }
        // The copy may be held differently (a large vector is copied into chunks): search it.
        let copy = Dict::make_mut(this, usize::from(place.is_new()));
        let place = copy.search(&key);
        copy.insert_at(place, key, value)
    }

    /// Take out the value at `key`, which is at `place` ([`Dict::search`] of `key` for the
    /// dictionary in `this`), from the dictionary in `this`: in place when nobody else holds
    /// it, otherwise from a copy that replaces it in `this`.
    pub fn remove_in(this: &mut Rc<Dict>, place: Place, key: &Key) -> Option<Value> {
        if place.is_new() {
            return None;
        }
        if let Some(d) = Rc::get_mut(this) {
            return d.remove_at(place, key);
        }
        Dict::make_mut(this, 0).remove(key)
    }

    /// The dictionary in `this`, to update: in place when nobody else holds it, otherwise
    /// a copy (with room for `extra` more entries) that replaces it in `this`. The copy of
    /// a chunked dictionary shares its chunks (the one updated is copied then); a large
    /// vector is copied into chunks, so a [`Place`] found before is not one of the copy.
    #[inline]
    pub fn make_mut(this: &mut Rc<Dict>, extra: usize) -> &mut Dict {
        super::unique_or_copy(this, |d| d.copy_with_room(extra))
    }

    #[inline(never)]
    fn copy_with_room(&self, extra: usize) -> Dict {
        let entries = match &self.entries {
            // A large vector that someone else holds, copied to be updated, is copied into
            // chunks: the next copies (the dictionary is likely to be shared again, held
            // in a property the undo history keeps) copy one chunk, not every entry.
            Entries::Flat(v) if v.len() > CHUNK_MAX => {
                Entries::Chunks(chunked(copy_entries(v, 0)), v.len())
            }
            Entries::Flat(v) => Entries::Flat(copy_entries(v, extra)),
            Entries::Chunks(chunks, len) => {
                let mut copy = Vec::with_capacity(chunks.len() + extra.min(1));
                copy.extend_from_slice(chunks);
                Entries::Chunks(copy, *len)
            }
        };
        Dict {
            entries,
            names: Names::default(),
        }
    }

    /// The entries in key order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        match &self.entries {
            Entries::Flat(v) => Iter {
                front: v.iter(),
                chunks: [].iter(),
                back: [].iter(),
                left: v.len(),
            },
            Entries::Chunks(chunks, len) => Iter {
                front: [].iter(),
                chunks: chunks.iter(),
                back: [].iter(),
                left: *len,
            },
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
            Entries::Chunks(..) => None,
        }
    }

    /// The entries as consecutive slices, in key order.
    pub fn chunks(&self) -> impl Iterator<Item = &[(Key, Value)]> {
        let (flat, chunks) = match &self.entries {
            Entries::Flat(v) => (Some(v.as_slice()), [].iter()),
            Entries::Chunks(chunks, _) => (None, chunks.iter()),
        };
        flat.into_iter().chain(chunks.map(|c| c.as_slice()))
    }

    /// A dictionary of `entries` sorted by key, without two equal keys.
    fn from_sorted(entries: Vec<Entry>) -> Dict {
        let entries = if entries.len() <= FLAT_MAX {
            Entries::Flat(entries)
        } else {
            let len = entries.len();
            Entries::Chunks(chunked(entries), len)
        };
        Dict {
            entries,
            names: Names::default(),
        }
    }

    /// Whether the dictionary is one vector (for tests of the representation).
    #[cfg(test)]
    fn is_flat(&self) -> bool {
        matches!(self.entries, Entries::Flat(_))
    }

    /// Check the representation's invariants (for tests).
    #[cfg(test)]
    fn check(&self) {
        match &self.entries {
            Entries::Flat(v) => assert!(v.len() <= FLAT_MAX),
            Entries::Chunks(chunks, len) => {
                assert!(*len > FLATTEN_AT);
                assert_eq!(chunks.iter().map(|c| c.len()).sum::<usize>(), *len);
                assert!(chunks.iter().all(|c| !c.is_empty() && c.len() <= CHUNK_MAX));
            }
        }
        let keys: Vec<&Key> = self.keys().collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "keys in order");
    }
}

/// After chunk `c` of `chunks` became small, join it with a neighbour when the two fit in
/// one chunk, so that taking keys out does not leave many tiny chunks.
fn merge_small(chunks: &mut Vec<Chunk>, c: usize) {
    let fits = |a: usize, b: usize| chunks[a].len() + chunks[b].len() <= CHUNK_MAX * 3 / 4;
    let pair = if c + 1 < chunks.len() && fits(c, c + 1) {
        Some(c)
    } else if c > 0 && fits(c - 1, c) {
        Some(c - 1)
    } else {
        None
    };
    if let Some(a) = pair {
        let b = chunks.remove(a + 1);
        let more = b.len();
        chunk_mut(&mut chunks[a], more).extend(Rc::unwrap_or_clone(b));
    }
}

impl Clone for Dict {
    /// A copy of every entry (of the list of chunks, for a chunked dictionary). Kept out of
    /// line: the values holding a dictionary (a world's outcome, usually none) stay cheap to
    /// copy where there is none.
    #[inline(never)]
    fn clone(&self) -> Dict {
        Dict {
            entries: self.entries.clone(),
            names: Names::default(),
        }
    }
}

impl Default for Dict {
    fn default() -> Dict {
        Dict::new()
    }
}

impl Dict {
    /// A copy that shares no reference count with `self` (see [`Value::private_copy`]).
    pub fn private_copy(&self) -> Dict {
        self.iter()
            .map(|(k, v)| (k.private_copy(), v.private_copy()))
            .collect()
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
    type IntoIter = std::vec::IntoIter<(Key, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        match self.entries {
            Entries::Flat(v) => v.into_iter(),
            Entries::Chunks(chunks, len) => {
                let mut all = Vec::with_capacity(len);
                for chunk in chunks {
                    all.extend(Rc::unwrap_or_clone(chunk));
                }
                all.into_iter()
            }
        }
    }
}

/// The entries of a [`Dict`], in key order.
#[derive(Clone)]
pub struct Iter<'a> {
    /// The rest of the chunk read from the front.
    front: std::slice::Iter<'a, Entry>,
    /// The chunks not started.
    chunks: std::slice::Iter<'a, Chunk>,
    /// The rest of the chunk read from the back.
    back: std::slice::Iter<'a, Entry>,
    /// How many entries are left.
    left: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Key, &'a Value);

    #[inline]
    fn next(&mut self) -> Option<(&'a Key, &'a Value)> {
        loop {
            if let Some((k, v)) = self.front.next() {
                self.left -= 1;
                return Some((k, v));
            }
            match self.chunks.next() {
                Some(c) => self.front = c.iter(),
                None => {
                    let (k, v) = self.back.next()?;
                    self.left -= 1;
                    return Some((k, v));
                }
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((k, v)) = self.back.next_back() {
                self.left -= 1;
                return Some((k, v));
            }
            match self.chunks.next_back() {
                Some(c) => self.back = c.iter(),
                None => {
                    let (k, v) = self.front.next_back()?;
                    self.left -= 1;
                    return Some((k, v));
                }
            }
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl FusedIterator for Iter<'_> {}
