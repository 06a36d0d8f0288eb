//! Finding a key in a dictionary's sorted entries and chunks: a binary search (one probe
//! for consecutive integer keys), and for a string key in a short vector a scan by
//! equality.

use super::{Chunk, Entry, SCAN_UP_TO};
use crate::runtime::value::{Key, Text, Value};

/// Where `key` is in `entries` (sorted by key), or where it would go.
#[inline]
pub(super) fn flat_search(entries: &[Entry], key: &Key) -> Result<usize, usize> {
    match key {
        Key::Int(k) => int_search(entries, *k),
        Key::Str(_) => str_search(entries, key),
    }
}

/// [`flat_search`] of an integer key, which compares with integers only and sorts before
/// every string.
#[inline]
pub(super) fn int_search(entries: &[Entry], k: i64) -> Result<usize, usize> {
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
pub(super) fn scan_text<'a>(entries: &'a [Entry], t: &Text) -> Option<&'a Value> {
    // The string keys come after the integer ones.
    let strings = match entries.first() {
        Some((Key::Str(_), _)) => entries,
        _ => &entries[entries.partition_point(|(k, _)| matches!(k, Key::Int(_)))..],
    };
    if t.is_symbol() {
        let word = t.ptr.as_ptr().addr();
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

/// The word a string key is held as, an interned name's odd (an integer key, never
/// among the string keys looked at, gives its bits: read the same way, no branch on the
/// kind).
#[inline(always)]
pub(super) fn key_word(k: &Key) -> usize {
    match k {
        Key::Str(t) => t.ptr.as_ptr().addr(),
        Key::Int(i) => *i as usize,
    }
}

/// Which of `chunks` holds `key` or would take it: the last whose first key is not after
/// it (the first chunk for a key before every other).
#[inline]
pub(super) fn chunk_of(chunks: &[Chunk], key: &Key) -> usize {
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
pub(super) fn int_chunk_of(chunks: &[Chunk], k: i64) -> usize {
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
