//! Assembling a [`Board`]: cells and directions first, then links, and at the end the
//! problems that break the conditions of a link table.
//!
//! The builders of the formats (grids and rings, BoardGame and joChess files) fill a
//! [`BoardBuilder`]; [`BoardBuilder::finish`] checks the board ([`super::validate`]).

use rustc_hash::FxHashMap;

use super::problem::Problem;
use super::topology::{
    Board, Cell, CellId, DirId, DirKind, Direction, EMPTY, Geometry, InverseRule, Link,
    MAX_DIRECTIONS, MAX_LINK_SLOTS, NONE16, NONE32, Origin, PermId, Permutation, Slot, SourcePos,
};
use super::validate;
use crate::symbol::Symbol;

/// Why a builder refused something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// A cell with this name exists already.
    DuplicateCell(CellId),
    /// A direction with this name exists already.
    DuplicateDirection(DirId),
    /// The board would have more directions than [`MAX_DIRECTIONS`] or a link table larger
    /// than [`MAX_LINK_SLOTS`].
    TooLarge,
    /// The cell already has a link in this direction (condition 1); it is kept.
    LinkExists(CellId),
}

/// Assembles a [`Board`]: cells and directions first, then links.
pub struct BoardBuilder {
    board: Board,
    link_positions: FxHashMap<(u32, u16), SourcePos>,
    problems: Vec<Problem>,
}

impl BoardBuilder {
    /// An empty board whose cells have `dims` coordinates.
    pub fn new(name: impl Into<String>, dims: usize, inverse_rule: InverseRule) -> BoardBuilder {
        BoardBuilder {
            board: Board {
                name: name.into(),
                origin: Origin::Ring,
                inverse_rule,
                cells: Vec::new(),
                dims,
                coords: Vec::new(),
                directions: Vec::new(),
                perms: Vec::new(),
                slots: Vec::new(),
                cell_names: FxHashMap::default(),
                dir_names: FxHashMap::default(),
                problems: Vec::new(),
            },
            link_positions: FxHashMap::default(),
            problems: Vec::new(),
        }
    }

    /// Add a cell. Panics if links were added already (builders add cells first).
    pub fn add_cell(
        &mut self,
        name: Symbol,
        coords: &[i32],
        geometry: Option<Geometry>,
    ) -> Result<CellId, BuildError> {
        assert!(self.board.slots.is_empty(), "cells are added before links");
        if let Some(&c) = self.board.cell_names.get(&name) {
            return Err(BuildError::DuplicateCell(c));
        }
        let id = CellId(self.board.cells.len() as u32);
        self.board.cells.push(Cell { name, geometry });
        let dims = self.board.dims;
        self.board
            .coords
            .extend((0..dims).map(|i| coords.get(i).copied().unwrap_or(0)));
        self.board.cell_names.insert(name, id);
        Ok(id)
    }

    /// Add a direction. Panics if links were added already.
    pub fn add_direction(&mut self, name: Symbol, kind: DirKind) -> Result<DirId, BuildError> {
        assert!(
            self.board.slots.is_empty(),
            "directions are added before links"
        );
        if let Some(&d) = self.board.dir_names.get(&name) {
            return Err(BuildError::DuplicateDirection(d));
        }
        if self.board.directions.len() >= MAX_DIRECTIONS {
            return Err(BuildError::TooLarge);
        }
        let id = DirId(self.board.directions.len() as u16);
        self.board.directions.push(Direction {
            name,
            kind,
            opposite: None,
        });
        self.board.dir_names.insert(name, id);
        Ok(id)
    }

    /// Declare `a` and `b` opposite directions.
    pub fn set_opposite(&mut self, a: DirId, b: DirId) {
        self.board.directions[a.0 as usize].opposite = Some(b);
        self.board.directions[b.0 as usize].opposite = Some(a);
    }

    /// The direction named `name`, if added.
    pub fn direction_named(&self, name: Symbol) -> Option<DirId> {
        self.board.dir_names.get(&name).copied()
    }

    /// The cell named `name`, if added.
    pub fn cell_named(&self, name: Symbol) -> Option<CellId> {
        self.board.cell_names.get(&name).copied()
    }

    /// The number of directions so far.
    pub fn direction_count(&self) -> usize {
        self.board.directions.len()
    }

    /// The number of cells so far.
    pub fn cell_count(&self) -> usize {
        self.board.cells.len()
    }

    /// The geometry of cell `c`.
    pub fn geometry(&self, c: CellId) -> Option<&Geometry> {
        self.board.cells[c.0 as usize].geometry.as_ref()
    }

    /// Add a permutation, or find an equal one (same images and name) already added.
    pub fn add_permutation(&mut self, perm: Permutation) -> Result<PermId, BuildError> {
        if let Some(i) = self.board.perms.iter().position(|p| *p == perm) {
            return Ok(PermId(i as u16));
        }
        if self.board.perms.len() >= MAX_DIRECTIONS {
            return Err(BuildError::TooLarge);
        }
        self.board.perms.push(perm);
        Ok(PermId(self.board.perms.len() as u16 - 1))
    }

    /// The permutation `p`.
    pub fn permutation(&self, p: PermId) -> &Permutation {
        &self.board.perms[p.0 as usize]
    }

    fn ensure_slots(&mut self) -> Result<(), BuildError> {
        if self.board.slots.is_empty() {
            let n = self
                .board
                .cells
                .len()
                .checked_mul(self.board.directions.len())
                .filter(|&n| n <= MAX_LINK_SLOTS)
                .ok_or(BuildError::TooLarge)?;
            self.board.slots = vec![EMPTY; n];
        }
        Ok(())
    }

    /// Link `from` to `to` in direction `dir`. `ahead` is where a ray goes on from `to`
    /// (`None`: it stops). A second link in the same direction is refused (condition 1):
    /// the error names the target kept.
    pub fn link(
        &mut self,
        from: CellId,
        dir: DirId,
        to: CellId,
        perm: Option<PermId>,
        ahead: Option<DirId>,
    ) -> Result<(), BuildError> {
        self.ensure_slots()?;
        let n = self.board.directions.len();
        let slot = &mut self.board.slots[from.0 as usize * n + dir.0 as usize];
        if slot.target != NONE32 {
            return Err(BuildError::LinkExists(CellId(slot.target)));
        }
        *slot = Slot {
            target: to.0,
            perm: perm.map_or(NONE16, |p| p.0),
            ahead: ahead.map_or(NONE16, |d| d.0),
        };
        Ok(())
    }

    /// The link from `from` in direction `dir`, if added.
    pub fn get_link(&self, from: CellId, dir: DirId) -> Option<Link> {
        self.board.slot(from, dir).link()
    }

    /// Change the permutation and onward direction of an existing link.
    pub fn set_turn(
        &mut self,
        from: CellId,
        dir: DirId,
        perm: Option<PermId>,
        ahead: Option<DirId>,
    ) {
        let n = self.board.directions.len();
        if let Some(slot) = self
            .board
            .slots
            .get_mut(from.0 as usize * n + dir.0 as usize)
            && slot.target != NONE32
        {
            slot.perm = perm.map_or(NONE16, |p| p.0);
            slot.ahead = ahead.map_or(NONE16, |d| d.0);
        }
    }

    /// Remember where the link from `from` in direction `dir` is written, so that problems
    /// about it can point there.
    pub fn set_link_position(&mut self, from: CellId, dir: DirId, pos: SourcePos) {
        self.link_positions.insert((from.0, dir.0), pos);
    }

    /// Record a problem found while reading the source (such as a second link).
    pub fn add_problem(&mut self, problem: Problem) {
        self.problems.push(problem);
    }

    /// The board, with its problems: those recorded while reading, then every link without
    /// its inverse.
    pub fn finish(mut self, origin: Origin) -> Result<Board, BuildError> {
        self.ensure_slots()?;
        self.board.origin = origin;
        let mut problems = self.problems;
        problems.extend(validate::inverse_problems(&self.board, |c, d| {
            self.link_positions.get(&(c.0, d.0)).cloned()
        }));
        validate::sort(&self.board, &mut problems);
        self.board.problems = problems;
        Ok(self.board)
    }
}
