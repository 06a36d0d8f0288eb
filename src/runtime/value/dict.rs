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

/// The value at the string key `t` in the short `entries`, found by equality. When `t`
/// is a symbol, one word compare per string key finds it, and only a key made at run time
/// (rare) has its text compared.
#[inline(always)]
fn scan_text<'a>(entries: &'a [Entry], t: &Text) -> Option<&'a Value> {
    // The string keys come after the integer ones.
    let strings = match entries.first() {
        Some((Key::Str(_), _)) => entries,
        _ => &entries[entries.partition_point(|(k, _)| matches!(k, Key::Int(_)))..],
    };
    if t.is_symbol() {
        let word = t.ptr.as_ptr().addr();
        // The word a string key is held as (an integer key, which is never among
        // `strings`, gives its bits: read the same way, no branch on the kind).
        let key_word = |k: &Key| match k {
            Key::Str(e) => e.ptr.as_ptr().addr(),
            Key::Int(i) => *i as usize,
        };
        // A key made at run time has its low bit clear.
        let mut symbols_only = 1;
        // Four keys a round: a compare and a branch each, one loop test.
        let (fours, rest) = strings.as_chunks::<4>();
        for four in fours {
            let mut all = 1;
            for (k, v) in four {
                let w = key_word(k);
                if w == word {
                    return Some(v);
                }
                all &= w;
            }
            symbols_only &= all;
        }
        for (k, v) in rest {
            let w = key_word(k);
            if w == word {
                return Some(v);
            }
            symbols_only &= w;
        }
        if symbols_only & 1 == 1 {
            // Two different symbols are two different texts.
            return None;
        }
    }
    strings
        .iter()
        .find(|(k, _)| matches!(k, Key::Str(e) if e == t))
        .map(|(_, v)| v)
}

/// Which of `chunks` holds `key` or would take it: the last whose first key is not after
/// it (the first chunk for a key before every other).
#[inline]
fn chunk_of(chunks: &[Chunk], key: &Key) -> usize {
    let starts_at_or_before = |c: &Chunk| match (c.first(), key) {
        (Some((Key::Int(x), _)), Key::Int(k)) => x <= k,
        (Some((first, _)), _) => first <= key,
        (None, _) => true,
    };
    chunks
        .partition_point(starts_at_or_before)
        .saturating_sub(1)
}

/// [`chunk_of`] an integer key, without a branch on the comparisons.
#[inline]
fn int_chunk_of(chunks: &[Chunk], k: i64) -> usize {
    let starts_at_or_before = |i: usize| matches!(chunks.get(i).and_then(|c| c.first()), Some((Key::Int(x), _)) if *x <= k);
    let mut base = 0;
    let mut size = chunks.len();
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = if starts_at_or_before(mid) { mid } else { base };
        size -= half;
    }
    base
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
            Entries::Flat(v) => v,
            Entries::Chunks(chunks, _) => chunks.get(chunk_of(chunks, key))?,
        };
        match key {
            Key::Str(t) if v.len() <= SCAN_UP_TO => scan_text(v, t),
            _ => flat_search(v, key).ok().map(|i| &v[i].1),
        }
    }

    /// [`Dict::get`] of the string key `t`, without making a key of it.
    #[inline(never)]
    pub fn get_text(&self, t: &Text) -> Option<&Value> {
        match &self.entries {
            Entries::Flat(v) if v.len() <= SCAN_UP_TO => scan_text(v, t),
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

    /// Set `key` to `value` at `place`, which [`Dict::search`] of `key` gave for this
    /// dictionary (or one with the same entries), returning the value replaced.
    #[inline(always)]
    pub fn insert_at(&mut self, place: Place, key: Key, value: Value) -> Option<Value> {
        match (&mut self.entries, place.at) {
            (Entries::Flat(v), Ok(i)) if i < v.len() => Some(std::mem::replace(&mut v[i].1, value)),
            (Entries::Flat(v), Err(i)) if v.len() < FLAT_MAX && i <= v.len() => {
                v.insert(i, (key, value));
                None
            }
            _ => self.insert_other(place, key, value),
        }
    }

    /// [`Dict::insert_at`] into chunks, or into a full vector (which becomes chunks).
    #[inline(never)]
    fn insert_other(&mut self, place: Place, key: Key, value: Value) -> Option<Value> {
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
        Dict { entries }
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
        Dict { entries }
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::symbol::Symbol;

    /// A string key is found the same way whether the key or the entry is a symbol or a
    /// string made at run time, among integer keys or not, in a short dictionary (one word
    /// compare per key) or a long one.
    #[test]
    fn string_keys_are_found_as_symbols_or_texts() {
        let sym = |t: &str| Text::sym(Symbol::intern(t));
        let made = |t: &str| Text::new(t);
        for size in [0, 1, 5, SCAN_UP_TO, SCAN_UP_TO + 1, 100] {
            for with_ints in [false, true] {
                for made_every in [0, 1, 3] {
                    let mut d = Dict::new();
                    if with_ints {
                        d.insert(Key::Int(-4), Value::Int(0));
                        d.insert(Key::Int(7), Value::Int(1));
                    }
                    for i in 0..size {
                        let name = format!("dict-scan-key-{i}");
                        let text = if made_every > 0 && i % made_every == 0 {
                            made(&name)
                        } else {
                            sym(&name)
                        };
                        d.insert(Key::Str(text), Value::Int(i as i64));
                    }
                    for i in 0..size + 2 {
                        let name = format!("dict-scan-key-{i}");
                        let want = (i < size).then_some(Value::Int(i as i64));
                        for key in [sym(&name), made(&name)] {
                            assert_eq!(d.get_text(&key).cloned(), want, "{size} {name}");
                            assert_eq!(d.get(&Key::Str(key.clone())).cloned(), want);
                        }
                    }
                    for absent in ["", "dict-scan-key", "z"] {
                        assert_eq!(d.get_text(&sym(absent)), None);
                        assert_eq!(d.get_text(&made(absent)), None);
                    }
                }
            }
        }
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Key number `n`: integers (negative too), then strings, some interned and some made
    /// at run time, named so that their order is not the order of their numbers.
    fn key(n: u64) -> Key {
        match n % 4 {
            0 | 1 => Key::Int(n as i64 / 2 - 300),
            2 => Key::sym(Symbol::intern(&format!("k{}", n * 7919 % 1000))),
            _ => Key::Str(super::super::Text::new(&format!(
                "dict-test-{}",
                n * 31 % 997
            ))),
        }
    }

    fn same(d: &Dict, model: &BTreeMap<Key, Value>) {
        d.check();
        assert_eq!(d.len(), model.len());
        assert!(d.iter().eq(model.iter()), "same entries in the same order");
        assert!(d.iter().rev().eq(model.iter().rev()), "and backwards");
        assert!(d.keys().eq(model.keys()));
        assert!(d.values().eq(model.values()));
        assert_eq!(d.chunks().map(<[Entry]>::len).sum::<usize>(), d.len());
        assert_eq!(d.clone().into_iter().collect::<BTreeMap<_, _>>(), *model);
    }

    /// Random puts, removals and lookups on a dictionary and a `BTreeMap`, some on copies
    /// that someone else holds: the two always agree, and a copy held never changes.
    /// Gives whether the dictionary was seen as chunks.
    fn against_the_model(seed: u64, keys: u64, steps: usize) -> bool {
        let mut chunked = false;
        let mut rng = Rng(seed);
        let mut d = Rc::new(Dict::new());
        let mut model = BTreeMap::new();
        let mut held: Vec<(Rc<Dict>, BTreeMap<Key, Value>)> = Vec::new();
        for step in 0..steps {
            let k = key(rng.below(keys));
            match rng.below(10) {
                0..=4 => {
                    let v = Value::Int(step as i64);
                    let place = d.search(&k);
                    assert_eq!(place.is_new(), !model.contains_key(&k));
                    let old = Dict::insert_in(&mut d, place, k.clone(), v.clone());
                    assert_eq!(old, model.insert(k.clone(), v));
                }
                5..=6 => {
                    let place = d.search(&k);
                    assert_eq!(Dict::remove_in(&mut d, place, &k), model.remove(&k));
                }
                7 => {
                    if let Some(v) = Dict::make_mut(&mut d, 0).get_mut(&k) {
                        *v = Value::Int(-1);
                        model.insert(k.clone(), Value::Int(-1));
                    }
                }
                8 => {
                    if held.len() > 3 {
                        held.remove(rng.below(4) as usize);
                    }
                    held.push((d.clone(), model.clone()));
                }
                _ => {
                    assert_eq!(Dict::make_mut(&mut d, 0).remove(&k), model.remove(&k));
                }
            }
            assert_eq!(d.get(&k), model.get(&k));
            assert_eq!(d.contains_key(&k), model.contains_key(&k));
            chunked |= !d.is_flat();
            if step % 64 == 0 {
                same(&d, &model);
                for (h, m) in &held {
                    same(h, m);
                }
            }
        }
        same(&d, &model);
        for (h, m) in &held {
            same(h, m);
        }
        let rebuilt: Dict = model.clone().into_iter().collect();
        assert!(rebuilt == *d);
        same(&rebuilt, &model);
        chunked
    }

    #[test]
    fn small_dictionaries_behave_as_ordered_maps() {
        for seed in 1..20 {
            assert!(!against_the_model(seed, 40, 400));
        }
    }

    #[test]
    fn dictionaries_across_the_chunk_boundaries_behave_as_ordered_maps() {
        // Around the size where one vector becomes chunks, then well past it.
        // Shared copies of more than a chunk, and growth past the largest vector.
        for (seed, keys) in [(7, 150), (8, 160), (9, 700), (10, 3000), (11, 5000)] {
            assert!(against_the_model(seed, keys, 6000));
        }
    }

    #[test]
    fn growing_in_order_and_backwards_then_emptying() {
        for keys in [
            (0..1500).collect::<Vec<i64>>(),
            (0..1500).rev().collect(),
            (0..1500).map(|i| i * 7 % 1500).collect(),
        ] {
            let mut d = Dict::new();
            let mut model = BTreeMap::new();
            for &k in &keys {
                d.insert(Key::Int(k), Value::Int(k));
                model.insert(Key::Int(k), Value::Int(k));
            }
            assert!(!d.is_flat());
            same(&d, &model);
            for &k in keys.iter().rev() {
                assert_eq!(d.remove(&Key::Int(k)), model.remove(&Key::Int(k)));
                if k % 97 == 0 {
                    same(&d, &model);
                }
            }
            assert!(d.is_flat() && d.is_empty());
        }
    }

    #[test]
    fn a_write_to_a_copy_never_shows_in_the_original() {
        for n in [3, CHUNK_MAX, CHUNK_MAX + 1, 500, FLAT_MAX, FLAT_MAX + 1] {
            let original: Dict = (0..n as i64)
                .map(|i| (Key::Int(i), Value::Int(i)))
                .collect();
            let model: BTreeMap<Key, Value> = original
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let held = Rc::new(original);
            let mut copy = held.clone();
            let place = copy.search(&Key::Int(1));
            Dict::insert_in(&mut copy, place, Key::Int(1), Value::Nil);
            let place = copy.search(&Key::Int(-5));
            Dict::insert_in(&mut copy, place, Key::Int(-5), Value::Nil);
            let place = copy.search(&Key::Int(2));
            Dict::remove_in(&mut copy, place, &Key::Int(2));
            same(&held, &model);
            assert_eq!(held.is_flat(), n <= FLAT_MAX);
            // A large vector is copied into chunks; a small one stays a vector.
            assert_eq!(copy.is_flat(), n <= CHUNK_MAX);
            assert_eq!(copy.get(&Key::Int(1)), Some(&Value::Nil));
            assert_eq!(copy.len(), n + 1 - 1);
        }
    }

    #[test]
    fn copied_chunks_count_the_values_they_share() {
        let inner = Rc::new(super::super::List::from_vec(vec![
            Value::Int(1),
            Value::Int(2),
        ]));
        let text = Value::str("dict-test-shared-text");
        for n in [3, CHUNK_MAX + 1, 300] {
            let original: Dict = (0..n as i64)
                .map(|i| {
                    let v = match i % 3 {
                        0 => Value::List(inner.clone()),
                        1 => text.clone(),
                        _ => Value::Int(i),
                    };
                    (Key::Int(i), v)
                })
                .collect();
            let model: BTreeMap<Key, Value> = original
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let first = Rc::new(original);
            // A large one is chunked from here on: each update below copies one chunk.
            let mut held = first.clone();
            Dict::make_mut(&mut held, 0);
            drop(first);
            assert_eq!(held.is_flat(), n <= CHUNK_MAX);
            for step in 0..3i64 {
                let mut copy = held.clone();
                let place = copy.search(&Key::Int(0));
                Dict::insert_in(&mut copy, place, Key::Int(0), Value::Int(-1));
                let place = copy.search(&Key::Int(n as i64 + step));
                Dict::insert_in(&mut copy, place, Key::Int(n as i64 + step), text.clone());
                let place = copy.search(&Key::Int(1));
                Dict::remove_in(&mut copy, place, &Key::Int(1));
                assert_eq!(copy.get(&Key::Int(0)), Some(&Value::Int(-1)));
                if let Some(v) = Dict::make_mut(&mut copy, 0).get_mut(&Key::Int(n as i64 - 1)) {
                    *v = Value::List(inner.clone());
                }
                same(&held, &model);
                assert_eq!(
                    copy.get(&Key::Int(n as i64 - 1)),
                    Some(&Value::List(inner.clone()))
                );
                assert_eq!(copy.get(&Key::Int(1)), None);
                assert_eq!(copy.len(), n + 1 - 1);
            }
            drop(held);
        }
        // Every copy of the counted values was given back.
        assert_eq!(Rc::strong_count(&inner), 1);
        assert_eq!(text.to_string(), "\"dict-test-shared-text\"");
    }

    proptest::proptest! {
        /// Any sequence of puts, removals, bulk insertions (past the largest vector) and
        /// copies kept (so that the next update copies) leaves the same entries, in the same
        /// order, as an ordered map given the same sequence, and never changes a copy kept.
        #[test]
        fn behaves_as_an_ordered_map(ops in proptest::collection::vec((0u8..10, 0u64..400), 0..300)) {
            let mut d = Rc::new(Dict::new());
            let mut model = BTreeMap::new();
            let mut held = Vec::new();
            for (i, (op, k)) in ops.into_iter().enumerate() {
                let key = key(k);
                match op {
                    0..=4 => {
                        let place = d.search(&key);
                        let old = Dict::insert_in(&mut d, place, key.clone(), Value::Int(i as i64));
                        proptest::prop_assert_eq!(old, model.insert(key.clone(), Value::Int(i as i64)));
                    }
                    5..=7 => {
                        let place = d.search(&key);
                        proptest::prop_assert_eq!(Dict::remove_in(&mut d, place, &key), model.remove(&key));
                    }
                    8 => held.push((d.clone(), model.clone())),
                    _ => {
                        for n in 0..FLAT_MAX as i64 + 100 {
                            let key = Key::Int(n * 3 - 1000 + k as i64);
                            Dict::make_mut(&mut d, 1).insert(key.clone(), Value::Int(n));
                            model.insert(key, Value::Int(n));
                        }
                    }
                }
                proptest::prop_assert_eq!(d.get(&key), model.get(&key));
            }
            same(&d, &model);
            for (h, m) in &held {
                same(h, m);
            }
        }
    }

    #[test]
    fn later_pairs_win_and_any_order_is_sorted() {
        let d: Dict = [(3, 1), (1, 2), (3, 3), (2, 4), (1, 5)]
            .into_iter()
            .map(|(k, v)| (Key::Int(k), Value::Int(v)))
            .collect();
        let shown: Vec<(i64, i64)> = d
            .iter()
            .map(|(k, v)| match (k, v) {
                (Key::Int(k), Value::Int(v)) => (*k, *v),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(shown, [(1, 5), (2, 4), (3, 3)]);
    }
}
