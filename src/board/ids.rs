//! The small indices a board and its problems are written in: cells, directions and
//! permutations by number, and places in a board's source file.

use std::ops::Range;

/// Index of a cell in its board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellId(pub u32);

/// Index of a direction in its board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DirId(pub u16);

/// Index of a permutation in its board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PermId(pub u16);

/// A place in a board's source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// Byte range of the element.
    pub range: Range<usize>,
}
