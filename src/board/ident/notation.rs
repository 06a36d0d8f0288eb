//! The notation shared by reading and writing identification strings: the letter of each
//! step, the symmetries the markers claim between the four parts of an integral path, and
//! the parsed form.

use crate::board::outline::Move;
use crate::board::shape::Shape;

/// The most cells a board described by a string may have.
pub const MAX_CELLS: u64 = 1_000_000;

/// The letter of every step.
const LETTERS: [(char, Move); 8] = [
    ('q', Move::new(-1, 1)),
    ('w', Move::new(0, 1)),
    ('e', Move::new(1, 1)),
    ('a', Move::new(-1, 0)),
    ('d', Move::new(1, 0)),
    ('z', Move::new(-1, -1)),
    ('s', Move::new(0, -1)),
    ('c', Move::new(1, -1)),
];

/// The letter written for step `m`.
pub fn letter(m: Move) -> char {
    LETTERS
        .iter()
        .find(|(_, s)| *s == m)
        .map_or('?', |(c, _)| *c)
}

pub(super) fn step_of(c: char) -> Option<Move> {
    LETTERS.iter().find(|(l, _)| *l == c).map(|(_, m)| *m)
}

/// A parsed identification string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The numbers before the planar board: none, `[levels]` (3D) or `[columns, rows]`
    /// (4D).
    pub extra: Vec<u32>,
    /// The planar shape of every level.
    pub shape: Shape,
}

pub(super) fn map(steps: &[Move], f: fn(Move) -> Move) -> Vec<Move> {
    steps.iter().map(|m| f(*m)).collect()
}

pub(super) fn rev(steps: &[Move]) -> Vec<Move> {
    steps.iter().rev().copied().collect()
}

/// Point symmetry: C and D are A and B turned by half a turn.
pub(super) fn point_symmetric(p: &[Vec<Move>; 4]) -> bool {
    p[0] == map(&p[2], Move::turned) && p[1] == map(&p[3], Move::turned)
}

/// `second` is `first` mirrored top to bottom (reversed, x flipped).
pub(super) fn mirrored_top_bottom(first: &[Move], second: &[Move]) -> bool {
    first == map(&rev(second), Move::xflip)
}

/// The fourth part mirrors the first left to right (reversed, y flipped).
pub(super) fn mirrored_left_right_14(p: &[Vec<Move>; 4]) -> bool {
    p[0] == map(&rev(&p[3]), Move::yflip)
}

/// The third part mirrors the second left to right.
pub(super) fn mirrored_left_right_23(p: &[Vec<Move>; 4]) -> bool {
    rev(&p[1]) == map(&p[2], Move::yflip)
}
