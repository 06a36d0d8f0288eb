//! Boards made from a shape or a number: grids of one to four dimensions, and rings.
//!
//! # Grids
//!
//! A planar grid has a cell for every cell of its [`Shape`], named by file and rank: files
//! `a` to `z` from the left, then `aa`, `ab`, ... `az`, `ba`, ... (as spreadsheet columns,
//! so `aa1` is the 27th file; letters then digits keep names unambiguous), ranks `1`, `2`,
//! ... from the bottom. Its coordinates are `[file, rank]` from 0 and its directions
//! `n ne e se s sw w nw`, each the opposite of the one four places on.
//! With [`Naming::Go`] files are named as Go players name columns: `a` to `z` without `i`,
//! so such a grid has at most 25 files.
//!
//! A 3D grid (`3x8x8`) stacks levels named `A`, `B`, ... from the bottom: cell `Ba1` is
//! `a1` on the second level, with coordinates `[file, rank, level]`. Directions add `up`
//! and `down` alone and combined with the planar ones (`up-n`, `down-se`): 26 in all.
//! A 4D grid (`4x4x8x8`) is a board of boards: its columns named `A`, `B`, ... and rows
//! `1`, `2`, ..., so cell `B3a1` is `a1` on the board in column B, row 3, with coordinates
//! `[file, rank, column, row]`. The column axis is `up`/`down` as in 3D and the row axis
//! `ana`/`kata`; combined names put `ana`/`kata` first (`ana-up-ne`): 80 directions.
//!
//! # Rings
//!
//! `ring(n, prefix)` makes cells `<prefix>0` to `<prefix><n-1>` with coordinates `[i]`,
//! linked by `next` (i to i+1, the last to the first) and `prev`.
//!
//! No link of a grid or ring carries a permutation; a ray goes on in its own direction.

use super::builder::{BoardBuilder, BuildError};
use super::error::{BoardError, ErrorPlace};
use super::ident::{self, MAX_CELLS};
pub use super::naming::{Naming, file_index, file_label, level_label};
pub use super::origin::GridInfo;
use super::shape::Shape;
use super::topology::{Board, CellId, DirId, DirKind, InverseRule, Origin};
use crate::symbol::Symbol;

/// The most cells a ring may have.
pub const MAX_RING: usize = 100_000;

const PLANAR: [(&str, i32, i32); 8] = [
    ("n", 0, 1),
    ("ne", 1, 1),
    ("e", 1, 0),
    ("se", 1, -1),
    ("s", 0, -1),
    ("sw", -1, -1),
    ("w", -1, 0),
    ("nw", -1, 1),
];

/// The directions of a grid with `extra` dimensions beyond the plane, with their steps in
/// `[file, rank, third, fourth]`.
pub(crate) fn grid_directions(extra: usize) -> Vec<(String, [i32; 4])> {
    let thirds: &[i32] = if extra >= 1 { &[0, 1, -1] } else { &[0] };
    let fourths: &[i32] = if extra >= 2 { &[0, 1, -1] } else { &[0] };
    let mut dirs = Vec::new();
    for &d4 in fourths {
        for &d3 in thirds {
            let mut prefix = Vec::new();
            match d4 {
                1 => prefix.push("ana"),
                -1 => prefix.push("kata"),
                _ => {}
            }
            match d3 {
                1 => prefix.push("up"),
                -1 => prefix.push("down"),
                _ => {}
            }
            if !prefix.is_empty() {
                dirs.push((prefix.join("-"), [0, 0, d3, d4]));
            }
            for (name, dx, dy) in PLANAR {
                let mut full = prefix.clone();
                full.push(name);
                dirs.push((full.join("-"), [dx, dy, d3, d4]));
            }
        }
    }
    dirs
}

fn too_large(what: &str) -> BoardError {
    BoardError::new(
        "board-too-large",
        ErrorPlace::Nowhere,
        format!("{what} is too large"),
    )
}

fn build_error(e: BuildError) -> BoardError {
    match e {
        BuildError::TooLarge => too_large("the board"),
        other => BoardError::new(
            "board-internal",
            ErrorPlace::Nowhere,
            format!("the board could not be built: {other:?}"),
        ),
    }
}

/// The board described by an identification string.
pub fn from_identification(text: &str) -> Result<Board, BoardError> {
    from_identification_named(text, Naming::Letters)
}

/// The board described by an identification string, its files named by `naming`.
pub fn from_identification_named(text: &str, naming: Naming) -> Result<Board, BoardError> {
    let parsed = ident::parse(text)?;
    grid_named(text.trim(), parsed.extra, parsed.shape, naming)
}

/// The grid of `shape` on every level of `extra` (see [`GridInfo::extra`]), named `name`.
pub fn grid(name: &str, extra: Vec<u32>, shape: Shape) -> Result<Board, BoardError> {
    grid_named(name, extra, shape, Naming::Letters)
}

/// [`grid`], with files named by `naming`.
pub fn grid_named(
    name: &str,
    extra: Vec<u32>,
    shape: Shape,
    naming: Naming,
) -> Result<Board, BoardError> {
    if let Some(max) = naming.max_files()
        && shape.width() > max
    {
        return Err(BoardError::new(
            "board-naming",
            ErrorPlace::Nowhere,
            format!(
                "Go names at most {max} columns (a to z without i); this board has {}",
                shape.width()
            ),
        )
        .with_hint("a board named go is at most 25 columns wide"));
    }
    if extra.len() > 2 {
        return Err(BoardError::new(
            "board-too-many-dimensions",
            ErrorPlace::Nowhere,
            "a grid has at most four dimensions",
        ));
    }
    let (w, h) = (shape.width() as usize, shape.height() as usize);
    let third = extra.first().map_or(1, |&n| n as usize);
    let fourth = extra.get(1).map_or(1, |&n| n as usize);
    let extent = [w, h, third, fourth];
    let positions = extent
        .iter()
        .try_fold(1u64, |acc, &n| acc.checked_mul(n as u64))
        .filter(|&n| n <= MAX_CELLS * 16)
        .ok_or_else(|| too_large("the grid"))? as usize;
    if (shape.count() as u64).saturating_mul((third * fourth) as u64) > MAX_CELLS {
        return Err(too_large("the grid"));
    }
    let dims = 2 + extra.len();
    let mut builder = BoardBuilder::new(name, dims, InverseRule::Opposite);
    let directions = grid_directions(extra.len());
    let mut dir_ids = Vec::with_capacity(directions.len());
    for (dname, _) in &directions {
        dir_ids.push(
            builder
                .add_direction(Symbol::intern(dname), DirKind::Plain)
                .map_err(build_error)?,
        );
    }
    for (i, (_, v)) in directions.iter().enumerate() {
        let opposite = [-v[0], -v[1], -v[2], -v[3]];
        if let Some(j) = directions.iter().position(|(_, u)| *u == opposite)
            && i < j
        {
            builder.set_opposite(dir_ids[i], dir_ids[j]);
        }
    }
    let index = |p: [usize; 4]| ((p[3] * third + p[2]) * h + p[1]) * w + p[0];
    let mut at: Vec<u32> = vec![u32::MAX; positions];
    let mut cells: Vec<(CellId, [usize; 4])> = Vec::new();
    for r4 in 0..fourth {
        for r3 in 0..third {
            for (x, y) in shape.cells() {
                let p = [x as usize, y as usize, r3, r4];
                let mut cell_name = String::new();
                match extra.len() {
                    1 => cell_name.push_str(&level_label(r3 as u32)),
                    2 => {
                        cell_name.push_str(&level_label(r3 as u32));
                        cell_name.push_str(&(r4 + 1).to_string());
                    }
                    _ => {}
                }
                cell_name.push_str(&naming.file_label(x));
                cell_name.push_str(&(y + 1).to_string());
                let coords = [x as i32, y as i32, r3 as i32, r4 as i32];
                let id = builder
                    .add_cell(Symbol::intern(&cell_name), &coords[..dims], None)
                    .map_err(build_error)?;
                at[index(p)] = id.0;
                cells.push((id, p));
            }
        }
    }
    for (id, p) in &cells {
        for (d, (_, v)) in directions.iter().enumerate() {
            let mut q = [0usize; 4];
            let mut inside = true;
            for axis in 0..4 {
                let c = p[axis] as i64 + i64::from(v[axis]);
                if c < 0 || c >= extent[axis] as i64 {
                    inside = false;
                    break;
                }
                q[axis] = c as usize;
            }
            if !inside || at[index(q)] == u32::MAX {
                continue;
            }
            let dir: DirId = dir_ids[d];
            builder
                .link(*id, dir, CellId(at[index(q)]), None, Some(dir))
                .map_err(build_error)?;
        }
    }
    builder
        .finish(Origin::Grid(GridInfo {
            extra,
            shape,
            naming,
        }))
        .map_err(build_error)
}

/// A ring of `n` cells named `<prefix>0` to `<prefix><n-1>`.
pub fn ring(n: usize, prefix: &str) -> Result<Board, BoardError> {
    if n == 0 || n > MAX_RING {
        return Err(BoardError::new(
            "board-ring-size",
            ErrorPlace::Nowhere,
            format!("a ring has 1 to {MAX_RING} cells, not {n}"),
        ));
    }
    let mut builder = BoardBuilder::new(format!("ring {n}"), 1, InverseRule::Opposite);
    let next = builder
        .add_direction(Symbol::intern("next"), DirKind::Plain)
        .map_err(build_error)?;
    let prev = builder
        .add_direction(Symbol::intern("prev"), DirKind::Plain)
        .map_err(build_error)?;
    builder.set_opposite(next, prev);
    for i in 0..n {
        builder
            .add_cell(Symbol::intern(&format!("{prefix}{i}")), &[i as i32], None)
            .map_err(build_error)?;
    }
    for i in 0..n {
        let here = CellId(i as u32);
        let after = CellId(((i + 1) % n) as u32);
        let before = CellId(((i + n - 1) % n) as u32);
        builder
            .link(here, next, after, None, Some(next))
            .map_err(build_error)?;
        builder
            .link(here, prev, before, None, Some(prev))
            .map_err(build_error)?;
    }
    builder.finish(Origin::Ring).map_err(build_error)
}
