//! Where a dictionary's interned names are: a small table of its entries by name, made
//! once the dictionary has been looked up by a name a few times, so that a lookup is a
//! hash of the name's number and a probe or two instead of a scan of every entry (chess's
//! tables of squares by square, looked up by name many times a move).
//!
//! The table is made only for a dictionary held as one vector of a few entries to a few
//! hundred, whose string keys are all interned names (two different names are two
//! different texts, so a name the table does not have is not a key), and it is dropped
//! whenever a key is added or taken out (the places move); a value changed in place
//! leaves it as it is. A copy of the dictionary starts without one.

use std::cell::{Cell, OnceCell};

use super::Entry;
use super::search::key_word;
use crate::runtime::value::Key;

/// How many lookups by a name a dictionary answers by its scan before the table is made:
/// a dictionary made, read once or twice and dropped never pays for one.
const MAKE_AFTER: u8 = 4;

/// [`Names::asks`] of entries that cannot have a table: not asked again until they change.
const NEVER: u8 = u8::MAX;

/// The fewest entries worth a table (fewer are scanned as quickly).
pub(super) const FEWEST: usize = 9;

/// The most entries a table takes (a place is one byte).
const MOST: usize = 254;

/// The table of a dictionary's names, if made, and how often it was asked for meanwhile.
#[derive(Default)]
pub(super) struct Names {
    asks: Cell<u8>,
    /// By a name's hash (its number's, to the table's size, a power of two), the place of
    /// its entry plus one; 0 where no name is (a probe goes on to the next slot).
    table: OnceCell<Box<[u8]>>,
}

/// Where the name of word `word` hashes in a table of `mask + 1` slots.
#[inline(always)]
fn slot(word: usize, mask: usize) -> usize {
    ((word as u64 >> 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask
}

impl Names {
    /// The place in `entries` (this dictionary's, sorted) of the key that is the interned
    /// name held as `word`: `Some(None)` when there is none, `None` when the dictionary has
    /// no table (yet): the caller scans. Counts the lookup towards making the table.
    #[inline(always)]
    pub(super) fn find(&self, entries: &[Entry], word: usize) -> Option<Option<usize>> {
        let Some(table) = self.table.get() else {
            self.ask(entries);
            return None;
        };
        let mask = table.len() - 1;
        let mut i = slot(word, mask);
        loop {
            let at = usize::from(table[i]);
            if at == 0 {
                return Some(None);
            }
            if entries
                .get(at - 1)
                .is_some_and(|(k, _)| key_word(k) == word)
            {
                return Some(Some(at - 1));
            }
            i = (i + 1) & mask;
        }
    }

    /// One more lookup without the table: the table made when it is due and `entries`
    /// can have one.
    #[inline(never)]
    fn ask(&self, entries: &[Entry]) {
        match self.asks.get() {
            NEVER => {}
            n if n < MAKE_AFTER => self.asks.set(n + 1),
            _ => match made(entries) {
                Some(table) => {
                    let _ = self.table.set(table);
                }
                None => self.asks.set(NEVER),
            },
        }
    }

    /// The keys changed: the table, if any, is wrong now.
    #[inline(always)]
    pub(super) fn forget(&mut self) {
        if self.table.get().is_some() || self.asks.get() != 0 {
            *self = Names::default();
        }
    }
}

/// The table of `entries`, when it can have one: between [`FEWEST`] and [`MOST`]
/// entries, and every string key an interned name.
fn made(entries: &[Entry]) -> Option<Box<[u8]>> {
    if !(FEWEST..=MOST).contains(&entries.len()) {
        return None;
    }
    let size = (2 * entries.len()).next_power_of_two();
    let mut table = vec![0u8; size].into_boxed_slice();
    let mask = size - 1;
    for (at, (k, _)) in entries.iter().enumerate() {
        let Key::Str(t) = k else {
            continue;
        };
        if !t.is_symbol() {
            return None;
        }
        let mut i = slot(key_word(k), mask);
        while table[i] != 0 {
            i = (i + 1) & mask;
        }
        table[i] = at as u8 + 1;
    }
    Some(table)
}

#[cfg(test)]
impl Names {
    /// Whether the table is made (for the dictionary's tests).
    pub(super) fn is_made(&self) -> bool {
        self.table.get().is_some()
    }
}
