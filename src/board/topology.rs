//! The board model: cells, directions, permutations and links, stored densely.
//!
//! A [`Board`] is a set of cells (each with a name, integer coordinates and an optional
//! drawing), a set of named directions, a table of permutations of those directions and,
//! for every cell and direction, at most one link: the target cell, the permutation applied
//! to the walker's directions when the link is crossed, and the direction in which a ray
//! goes on after crossing it. Links live in one table indexed by cell and direction, so
//! [`Board::neighbor`], [`Board::walk`] and [`Board::ray`] cost O(1) per step.
//!
//! *Invariant:* every link's target, permutation and onward direction exist on the board.
//! *Boundary:* parses no description (strings, XML) and knows nothing about entities;
//! the builders in the sibling modules fill it, the runtime only reads it.

use rustc_hash::{FxHashMap, FxHashSet};

pub use super::ids::{CellId, DirId, PermId, SourcePos};
pub use super::origin::Origin;
use super::problem::Problem;
use crate::symbol::Symbol;

pub(super) const NONE32: u32 = u32::MAX;
pub(super) const NONE16: u16 = u16::MAX;

/// The most directions a board may have (one index is kept as "none").
pub const MAX_DIRECTIONS: usize = NONE16 as usize - 1;

/// The most entries (cells times directions) of a board's link table.
pub const MAX_LINK_SLOTS: usize = 32_000_000;

/// How a cell is drawn, in the units of the file it came from (y grows downwards).
#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    /// An axis-parallel rectangle, such as a BoardGame field.
    Rect {
        /// Left edge.
        left: f64,
        /// Top edge.
        top: f64,
        /// Width.
        width: f64,
        /// Height.
        height: f64,
    },
    /// A polygon given by its corners in order, such as a joChess position.
    Polygon(Vec<(f64, f64)>),
}

impl Geometry {
    /// The centre of the shape (the mean of a polygon's corners).
    pub fn center(&self) -> (f64, f64) {
        match self {
            Geometry::Rect {
                left,
                top,
                width,
                height,
            } => (left + width / 2.0, top + height / 2.0),
            Geometry::Polygon(points) => {
                if points.is_empty() {
                    return (0.0, 0.0);
                }
                let n = points.len() as f64;
                let (sx, sy) = points
                    .iter()
                    .fold((0.0, 0.0), |(ax, ay), (x, y)| (ax + x, ay + y));
                (sx / n, sy / n)
            }
        }
    }
}

/// One cell of a board.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Its name, unique on the board (`a1`, `hole3`, a BoardGame field id).
    pub name: Symbol,
    /// How to draw it, when its source says.
    pub geometry: Option<Geometry>,
}

/// What kind of neighbour a direction reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirKind {
    /// No distinction (grids, rings, BoardGame boards).
    Plain,
    /// Across a shared edge (joChess `EDGE`).
    Edge,
    /// Across a shared corner (joChess `VERTEX`).
    Vertex,
}

/// One named direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Direction {
    /// Its name, unique on the board (`n`, `next`, `E3`).
    pub name: Symbol,
    /// Edge or vertex, for joChess boards.
    pub kind: DirKind,
    /// The direction that points the other way, where the board has one (grids, rings).
    pub opposite: Option<DirId>,
}

/// A permutation of a board's directions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permutation {
    /// Its name in the source file, if it has one.
    pub name: Option<Symbol>,
    /// The image of each direction, indexed by direction.
    map: Box<[DirId]>,
}

impl Permutation {
    /// A permutation from the image of every direction. `None` unless `map` is a bijection
    /// of `0..map.len()`.
    pub fn new(name: Option<Symbol>, map: Vec<DirId>) -> Option<Permutation> {
        let mut seen = vec![false; map.len()];
        for d in &map {
            let slot = seen.get_mut(d.0 as usize)?;
            if *slot {
                return None;
            }
            *slot = true;
        }
        Some(Permutation {
            name,
            map: map.into_boxed_slice(),
        })
    }

    /// The image of `d` (directions the permutation does not cover are fixed).
    pub fn apply(&self, d: DirId) -> DirId {
        self.map.get(d.0 as usize).copied().unwrap_or(d)
    }

    /// The images of all directions, indexed by direction.
    pub fn images(&self) -> &[DirId] {
        &self.map
    }

    /// True when every direction is its own image.
    pub fn is_identity(&self) -> bool {
        self.map.iter().enumerate().all(|(i, d)| d.0 as usize == i)
    }

    /// The images of the inverse permutation.
    pub fn inverse_images(&self) -> Vec<DirId> {
        let mut inverse = vec![DirId(0); self.map.len()];
        for (i, d) in self.map.iter().enumerate() {
            inverse[d.0 as usize] = DirId(i as u16);
        }
        inverse
    }

    /// The directions that move, as `(from, to)` pairs.
    pub fn moved(&self) -> impl Iterator<Item = (DirId, DirId)> + '_ {
        self.map
            .iter()
            .enumerate()
            .filter(|(i, d)| d.0 as usize != *i)
            .map(|(i, d)| (DirId(i as u16), *d))
    }
}

/// A link as the navigation functions see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The cell reached.
    pub target: CellId,
    /// The permutation applied to the walker's directions on the way, if any.
    pub perm: Option<PermId>,
    /// The direction in which a ray goes on from the target (`None`: a ray stops there).
    pub ahead: Option<DirId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) target: u32,
    pub(super) perm: u16,
    pub(super) ahead: u16,
}

pub(super) const EMPTY: Slot = Slot {
    target: NONE32,
    perm: NONE16,
    ahead: NONE16,
};

impl Slot {
    pub(super) fn link(self) -> Option<Link> {
        (self.target != NONE32).then_some(Link {
            target: CellId(self.target),
            perm: (self.perm != NONE16).then_some(PermId(self.perm)),
            ahead: (self.ahead != NONE16).then_some(DirId(self.ahead)),
        })
    }
}

/// How the two conditions of a link table are checked on this board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InverseRule {
    /// The link back from `b` after crossing `(a, k, r)` is in direction `r(k)`, as the
    /// BoardGame seed states it (a link without permutation counts as the identity).
    Permuted,
    /// The link back is in the opposite of `k` (grids, rings).
    Opposite,
    /// The link back is whichever direction of `b` leads to `a` (joChess, whose direction
    /// names are local to each position).
    AnyBack,
}

/// A board: cells, directions, permutations and links.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    pub(super) name: String,
    pub(super) origin: Origin,
    pub(super) inverse_rule: InverseRule,
    pub(super) cells: Vec<Cell>,
    pub(super) dims: usize,
    pub(super) coords: Vec<i32>,
    pub(super) directions: Vec<Direction>,
    pub(super) perms: Vec<Permutation>,
    pub(super) slots: Vec<Slot>,
    pub(super) cell_names: FxHashMap<Symbol, CellId>,
    pub(super) dir_names: FxHashMap<Symbol, DirId>,
    pub(super) problems: Vec<Problem>,
}

/// One step of a walk, for tracing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Where the step starts.
    pub from: CellId,
    /// The direction asked for, in the walker's own terms.
    pub asked: DirId,
    /// The direction taken on the board (differs once a permutation was crossed).
    pub taken: DirId,
    /// The link followed, or `None` when the board ends there.
    pub link: Option<Link>,
}

impl Board {
    /// Its name: the identification string, the file's board name, `ring <n>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where it came from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// How condition 2 (inverse links) is read on this board.
    pub fn inverse_rule(&self) -> InverseRule {
        self.inverse_rule
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.cells.len()
    }

    /// Number of links.
    pub fn link_count(&self) -> usize {
        self.slots.iter().filter(|s| s.target != NONE32).count()
    }

    /// All cells, in board order.
    pub fn cells(&self) -> impl ExactSizeIterator<Item = CellId> + use<> {
        (0..self.cells.len() as u32).map(CellId)
    }

    /// The cell `c`.
    pub fn cell(&self, c: CellId) -> &Cell {
        &self.cells[c.0 as usize]
    }

    /// The name of cell `c`.
    pub fn cell_name(&self, c: CellId) -> Symbol {
        self.cells[c.0 as usize].name
    }

    /// The cell named `name`.
    pub fn cell_named(&self, name: &str) -> Option<CellId> {
        Symbol::get(name).and_then(|s| self.cell_names.get(&s).copied())
    }

    /// The cell whose name is the symbol `name`.
    pub fn cell_by_symbol(&self, name: Symbol) -> Option<CellId> {
        self.cell_names.get(&name).copied()
    }

    /// How many coordinates each cell has.
    pub fn dimensions(&self) -> usize {
        self.dims
    }

    /// The integer coordinates of `c` (file and rank from 0 on grids, the index on rings).
    pub fn coords(&self, c: CellId) -> &[i32] {
        let start = c.0 as usize * self.dims;
        &self.coords[start..start + self.dims]
    }

    /// All directions, in board order.
    pub fn all_directions(&self) -> impl ExactSizeIterator<Item = DirId> + use<> {
        (0..self.directions.len() as u16).map(DirId)
    }

    /// Number of directions.
    pub fn direction_count(&self) -> usize {
        self.directions.len()
    }

    /// The direction `d`.
    pub fn direction(&self, d: DirId) -> &Direction {
        &self.directions[d.0 as usize]
    }

    /// The name of direction `d`.
    pub fn dir_name(&self, d: DirId) -> Symbol {
        self.directions[d.0 as usize].name
    }

    /// The direction named `name`.
    pub fn direction_named(&self, name: &str) -> Option<DirId> {
        Symbol::get(name).and_then(|s| self.dir_names.get(&s).copied())
    }

    /// The direction whose name is the symbol `name`.
    pub fn direction_by_symbol(&self, name: Symbol) -> Option<DirId> {
        self.dir_names.get(&name).copied()
    }

    /// The permutation `p`.
    pub fn permutation(&self, p: PermId) -> &Permutation {
        &self.perms[p.0 as usize]
    }

    /// Number of permutations.
    pub fn permutation_count(&self) -> usize {
        self.perms.len()
    }

    /// The name shown for permutation `p`: its own, or `π<index>` for derived ones.
    pub fn perm_label(&self, p: PermId) -> String {
        match self.perms[p.0 as usize].name {
            Some(name) => name.to_string(),
            None => format!("π{}", p.0),
        }
    }

    pub(super) fn slot(&self, c: CellId, d: DirId) -> Slot {
        let n = self.directions.len();
        self.slots
            .get(c.0 as usize * n + d.0 as usize)
            .copied()
            .unwrap_or(EMPTY)
    }

    /// The link from `c` in direction `d`.
    pub fn link(&self, c: CellId, d: DirId) -> Option<Link> {
        self.slot(c, d).link()
    }

    /// The neighbour of `c` in direction `d` (permutations play no part in one step).
    pub fn neighbor(&self, c: CellId, d: DirId) -> Option<CellId> {
        self.link(c, d).map(|l| l.target)
    }

    /// The directions in which `c` has a link, in board order.
    pub fn directions(&self, c: CellId) -> impl Iterator<Item = DirId> + '_ {
        self.links(c).map(|(d, _)| d)
    }

    /// The links of `c` with their directions, in board order.
    pub fn links(&self, c: CellId) -> impl Iterator<Item = (DirId, Link)> + '_ {
        let n = self.directions.len();
        let start = c.0 as usize * n;
        self.slots[start..start + n]
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.link().map(|l| (DirId(i as u16), l)))
    }

    /// Follow `dirs` from `c`, one link each. Every permutation crossed is applied to the
    /// directions still to come: after crossing a link whose permutation sends `r` to `l`,
    /// a later `r` is taken as `l`. `None` when a step leaves the board. Each step is one
    /// table lookup; crossing a permutation also composes it into the walker's frame (one
    /// pass over the directions), which boards built from strings and rings never do.
    pub fn walk(&self, c: CellId, dirs: &[DirId]) -> Option<CellId> {
        let mut frame = Frame::default();
        let mut here = c;
        for &asked in dirs {
            let taken = frame.apply(asked);
            let link = self.link(here, taken)?;
            if let Some(p) = link.perm {
                frame.cross(&self.perms[p.0 as usize], self.directions.len());
            }
            here = link.target;
        }
        Some(here)
    }

    /// [`Board::walk`] with every step recorded; stops after the first step that leaves the
    /// board (its `link` is `None`).
    pub fn walk_steps(&self, c: CellId, dirs: &[DirId]) -> Vec<Step> {
        let mut frame = Frame::default();
        let mut here = c;
        let mut steps = Vec::with_capacity(dirs.len());
        for &asked in dirs {
            let taken = frame.apply(asked);
            let link = self.link(here, taken);
            steps.push(Step {
                from: here,
                asked,
                taken,
                link,
            });
            let Some(link) = link else { break };
            if let Some(p) = link.perm {
                frame.cross(&self.perms[p.0 as usize], self.directions.len());
            }
            here = link.target;
        }
        steps
    }

    /// The cells met going from `c` in direction `d` until the edge of the board (the start
    /// excluded). After each link the ray goes on in the link's onward direction (the
    /// permuted direction, or on joChess boards the straight continuation), and it stops
    /// before entering a cell it has already met, so it ends on every board.
    pub fn ray(&self, c: CellId, d: DirId) -> Vec<CellId> {
        let mut cells = Vec::new();
        let mut seen: Option<FxHashSet<u32>> = None;
        let mut here = c;
        let mut dir = Some(d);
        while let Some(d) = dir {
            let Some(link) = self.link(here, d) else {
                break;
            };
            let next = link.target;
            let repeated = match &mut seen {
                Some(set) => !set.insert(next.0),
                None if cells.len() < 16 => next == c || cells.contains(&next),
                None => {
                    let mut set: FxHashSet<u32> = cells.iter().map(|x: &CellId| x.0).collect();
                    set.insert(c.0);
                    let repeated = !set.insert(next.0);
                    seen = Some(set);
                    repeated
                }
            };
            if repeated {
                break;
            }
            cells.push(next);
            here = next;
            dir = link.ahead;
        }
        cells
    }

    /// What is wrong with the board: second links in one direction (condition 1) and links
    /// without their inverse (condition 2), in cell order.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }
}

/// The walker's frame: its own direction names mapped to the board's.
#[derive(Default)]
struct Frame {
    map: Option<Vec<DirId>>,
}

impl Frame {
    fn apply(&self, d: DirId) -> DirId {
        match &self.map {
            Some(m) => m.get(d.0 as usize).copied().unwrap_or(d),
            None => d,
        }
    }

    /// Compose with `p`: what the walker called `x` is now `p(frame(x))`.
    fn cross(&mut self, p: &Permutation, n: usize) {
        let map = self
            .map
            .get_or_insert_with(|| (0..n as u16).map(DirId).collect());
        for d in map.iter_mut() {
            *d = p.apply(*d);
        }
    }
}
