//! Planar shapes: which cells of an enclosing rectangle belong to a board.
//!
//! A [`Shape`] is the set of cells of a planar grid board, stored as a bitmap of its
//! smallest enclosing rectangle (file 0 on the left, rank 0 at the bottom). Identification
//! strings describe shapes; grids are built from them. Knows nothing about cell names,
//! directions or strings.

use std::fmt;

/// The largest enclosing rectangle (in cells) a shape may have.
pub const MAX_SHAPE_AREA: u64 = 16_000_000;

/// A set of cells inside its smallest enclosing rectangle.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Shape {
    width: u32,
    height: u32,
    bits: Vec<bool>,
}

/// Why a shape has no identification string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// No cell at all.
    Empty,
    /// Some cells are not reachable from the others through shared edges.
    NotConnected,
    /// Some empty cells are enclosed by the board.
    HasHoles,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShapeError::Empty => "the board has no cell",
            ShapeError::NotConnected => {
                "the board falls apart: some cells touch the others only at corners or not at all"
            }
            ShapeError::HasHoles => "the board has holes: empty cells enclosed by cells",
        })
    }
}

impl Shape {
    /// The full `width` × `height` rectangle. Panics if either is 0 or the area exceeds
    /// [`MAX_SHAPE_AREA`] (callers check sizes first).
    pub fn rectangle(width: u32, height: u32) -> Shape {
        assert!(width > 0 && height > 0 && u64::from(width) * u64::from(height) <= MAX_SHAPE_AREA);
        Shape {
            width,
            height,
            bits: vec![true; width as usize * height as usize],
        }
    }

    /// The shape made of `cells` (file, rank), moved so that its enclosing rectangle starts
    /// at (0, 0). `None` when there is no cell or the rectangle exceeds [`MAX_SHAPE_AREA`].
    pub fn from_cells(cells: impl IntoIterator<Item = (i64, i64)>) -> Option<Shape> {
        let cells: Vec<(i64, i64)> = cells.into_iter().collect();
        let min_x = cells.iter().map(|c| c.0).min()?;
        let max_x = cells.iter().map(|c| c.0).max()?;
        let min_y = cells.iter().map(|c| c.1).min()?;
        let max_y = cells.iter().map(|c| c.1).max()?;
        let width = u64::try_from(i128::from(max_x) - i128::from(min_x) + 1).ok()?;
        let height = u64::try_from(i128::from(max_y) - i128::from(min_y) + 1).ok()?;
        if width.checked_mul(height)? > MAX_SHAPE_AREA {
            return None;
        }
        let (width, height) = (width as u32, height as u32);
        let mut bits = vec![false; width as usize * height as usize];
        for (x, y) in cells {
            let (x, y) = ((x - min_x) as usize, (y - min_y) as usize);
            bits[y * width as usize + x] = true;
        }
        Some(Shape {
            width,
            height,
            bits,
        })
    }

    /// A shape from a bitmap of `width` × `height` (rank 0 first). The caller guarantees
    /// the sizes match; the rectangle is not tightened.
    pub(crate) fn from_bits(width: u32, height: u32, bits: Vec<bool>) -> Shape {
        debug_assert_eq!(bits.len(), width as usize * height as usize);
        Shape {
            width,
            height,
            bits,
        }
    }

    /// Number of files of the enclosing rectangle.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Number of ranks of the enclosing rectangle.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether the cell at file `x`, rank `y` (from 0) belongs to the shape; false outside
    /// the rectangle.
    pub fn contains(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return false;
        }
        self.bits[y as usize * self.width as usize + x as usize]
    }

    /// Number of cells.
    pub fn count(&self) -> usize {
        self.bits.iter().filter(|b| **b).count()
    }

    /// The cells, rank by rank from the bottom, each from the left.
    pub fn cells(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let w = self.width as usize;
        self.bits
            .iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(move |(i, _)| ((i % w) as u32, (i / w) as u32))
    }

    /// True when every cell of the rectangle belongs to the shape.
    pub fn is_rectangle(&self) -> bool {
        self.bits.iter().all(|b| *b)
    }

    /// True when the shape touches all four sides of its rectangle (it is the smallest).
    pub fn is_tight(&self) -> bool {
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        (0..w).any(|x| self.contains(x, 0))
            && (0..w).any(|x| self.contains(x, h - 1))
            && (0..h).any(|y| self.contains(0, y))
            && (0..h).any(|y| self.contains(w - 1, y))
    }

    /// Check that the shape has an identification string: cells, all connected through
    /// shared edges, and no enclosed empty cell.
    pub fn check(&self) -> Result<(), ShapeError> {
        let Some(first) = self.bits.iter().position(|b| *b) else {
            return Err(ShapeError::Empty);
        };
        if flood(self.width as usize, self.height as usize, first, |i| {
            self.bits[i]
        }) != self.count()
        {
            return Err(ShapeError::NotConnected);
        }
        // The complement, in the rectangle grown by one cell on every side, must be one
        // region reached from the outside through shared edges.
        let (w, h) = (self.width as usize + 2, self.height as usize + 2);
        let outside = |i: usize| {
            let (x, y) = ((i % w) as i64 - 1, (i / w) as i64 - 1);
            !self.contains(x, y)
        };
        let empty = w * h - self.count();
        if flood(w, h, 0, outside) != empty {
            return Err(ShapeError::HasHoles);
        }
        Ok(())
    }
}

/// The number of cells reached from `start` through shared edges among cells where `keep`
/// holds, in a `w` × `h` grid.
fn flood(w: usize, h: usize, start: usize, keep: impl Fn(usize) -> bool) -> usize {
    let mut seen = vec![false; w * h];
    let mut stack = vec![start];
    seen[start] = true;
    let mut count = 0;
    while let Some(i) = stack.pop() {
        count += 1;
        let (x, y) = (i % w, i / w);
        let mut visit = |j: usize| {
            if !seen[j] && keep(j) {
                seen[j] = true;
                stack.push(j);
            }
        };
        if x > 0 {
            visit(i - 1);
        }
        if x + 1 < w {
            visit(i + 1);
        }
        if y > 0 {
            visit(i - w);
        }
        if y + 1 < h {
            visit(i + w);
        }
    }
    count
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Shape {}x{}", self.width, self.height)?;
        for y in (0..i64::from(self.height)).rev() {
            let row: String = (0..i64::from(self.width))
                .map(|x| if self.contains(x, y) { '#' } else { '.' })
                .collect();
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}
