//! A move as the API names it: its name, the stable index of that name, and the player
//! whose order it is.

use std::fmt;

use crate::runtime::digest::fnv1a;

/// The stable index of a move name: the same name has the same index in every process and
/// every run, so a move can be sent between processes and recorded as a number.
///
/// It is the 64-bit FNV-1a hash of the name's UTF-8 bytes with the top bit cleared, so it
/// fits a signed 64-bit integer (OpenSpiel's actions, Python's ints). Two names of one
/// position sharing an index is refused when that index is played
/// ([`Match::play_index`](super::Match::play_index)); with 2^63 indices it does not happen
/// in practice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MoveIndex(pub u64);

impl MoveIndex {
    /// The index of the move called `name`.
    pub fn of(name: &str) -> MoveIndex {
        MoveIndex(fnv1a(name.as_bytes()) & (u64::MAX >> 1))
    }
}

impl fmt::Display for MoveIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// What the players call it (`a3`, `e2e4`, `0:13`).
    pub name: String,
    /// The stable index of the name.
    pub index: MoveIndex,
    /// The player whose order it is, when the move's message says (its `player`
    /// attribute, as in games where several players order at once).
    pub player: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::MoveIndex;

    #[test]
    fn indices_are_fixed_and_fit_a_signed_integer() {
        // Fixed forever: recorded games and other processes rely on them.
        assert_eq!(MoveIndex::of("").0, 0xcbf2_9ce4_8422_2325 & (u64::MAX >> 1));
        assert_eq!(
            MoveIndex::of("a").0,
            0xaf63_dc4c_8601_ec8c & (u64::MAX >> 1)
        );
        assert_ne!(MoveIndex::of("e2e4"), MoveIndex::of("e2e3"));
        for name in ["a1", "pass", "0:13", "e7e8q"] {
            assert!(i64::try_from(MoveIndex::of(name).0).is_ok());
        }
    }
}
