//! A compiled game: entity types with their property layouts and behaviour tables,
//! functions, advice, instances and every compiled body.
//!
//! Everything the runtime dispatches on is here, indexed by small integers, so that a
//! join point finds its behaviour and its advice without touching a string.

use rustc_hash::FxHashMap;

use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::AdviceKind;

use super::bytecode::{Code, CodeId, FuncId};

/// Index of an entity type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// A compiled entity type.
#[derive(Clone, Debug)]
pub struct EntityType {
    /// Its name.
    pub name: Symbol,
    /// `#extends`.
    pub parent: Option<TypeId>,
    /// Itself, then its parent, grandparent, ...
    pub ancestors: Vec<TypeId>,
    /// Property layout: inherited properties first, each with the body computing its default.
    pub properties: Vec<(Symbol, CodeId)>,
    /// Property name to slot in the layout.
    pub slots: FxHashMap<Symbol, u16>,
    /// Slot per property column of the game ([`Game::slot`]), [`NO_SLOT`] for the columns
    /// this type does not have; empty until [`Game::index_properties`].
    pub columns: Vec<u16>,
    /// (state, label) to behaviour, inherited ones included (the nearest ancestor wins).
    pub behaviours: FxHashMap<(Symbol, Symbol), CodeId>,
}

/// In [`EntityType::columns`]: the type has no such property.
pub const NO_SLOT: u16 = u16::MAX;

/// In [`Game::property_columns`]: no type has a property of that name.
const NO_COLUMN: u32 = u32::MAX;

/// What an advice is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdviceTarget {
    /// Every instance of the type and of its subtypes.
    Type(TypeId),
    /// One instance, by name.
    Instance(Symbol),
}

/// A law or side-effect.
#[derive(Clone, Debug)]
pub struct Advice {
    /// Its name (explicit, file stem, or `<entity>/<label>/<state>#<n>`).
    pub name: Symbol,
    /// Law or side-effect.
    pub kind: AdviceKind,
    /// The label matched (`None`: any).
    pub label: Option<Symbol>,
    /// The entity it binds to.
    pub target: AdviceTarget,
    /// The state matched (`None`: any).
    pub state: Option<Symbol>,
    /// Its code.
    pub code: CodeId,
    /// Where it comes from: the file, or "inline".
    pub source: String,
    /// The directive.
    pub span: Span,
}

/// The function a game may define to say what it means that no move is legal (a loss, a
/// draw, a pass): the engine runs it, as the user, when it finds no legal move in a
/// position whose game has not finished.
pub const NO_LEGAL_MOVE: &str = "no-legal-move";

/// A `#define`d function.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name.
    pub name: Symbol,
    /// Its body (parameters in the first slots).
    pub code: CodeId,
}

/// An entity made when the game starts (`#instance` or a board cell).
#[derive(Clone, Debug)]
pub struct Instance {
    /// Its name.
    pub name: Symbol,
    /// Its type.
    pub ty: TypeId,
    /// Initial property values that differ from the type's defaults.
    pub properties: Vec<(Symbol, InitValue)>,
    /// Where it was made.
    pub span: Span,
}

/// An initial property value: computed by a body, or known (board links).
#[derive(Clone, Debug)]
pub enum InitValue {
    /// Run this body (no entity, no message) for the value.
    Code(CodeId),
    /// A name (such as a neighbouring cell).
    Str(Symbol),
    /// An integer (such as a cell index).
    Int(i64),
    /// A dictionary of names (such as a links table).
    Links(Vec<(Symbol, Symbol)>),
    /// A list of integers (such as coordinates).
    Ints(Vec<i64>),
    /// Per direction, a dictionary of directions (the turns of links that permute them).
    Turns(Vec<(Symbol, Vec<(Symbol, Symbol)>)>),
}

/// A `#board` whose description is computed when the game starts (see
/// [`super::boards::build_late`]).
#[derive(Clone, Debug)]
pub struct LateBoard {
    /// The expression giving the identification string, or the size of a ring.
    pub value: CodeId,
    /// For a ring, the cell name prefix.
    pub ring: Option<Symbol>,
    /// How a grid names its cells.
    pub naming: crate::board::Naming,
    /// The type of the cells.
    pub ty: TypeId,
    /// The directive.
    pub span: Span,
}

/// A `#param`.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name.
    pub name: Symbol,
    /// Its default.
    pub default: CodeId,
}

/// A whole compiled game.
#[derive(Clone, Debug, Default)]
pub struct Game {
    /// Entity types by [`TypeId`].
    pub types: Vec<EntityType>,
    /// Type name to id.
    pub type_ids: FxHashMap<Symbol, TypeId>,
    /// Functions by [`FuncId`].
    pub functions: Vec<Function>,
    /// Function name to id.
    pub function_ids: FxHashMap<Symbol, FuncId>,
    /// Advice in definition order.
    pub advice: Vec<Advice>,
    /// The names of the advice a rules file switched off (`#disable`): they stay in
    /// `advice`, in order, and start disabled.
    pub disabled: Vec<Symbol>,
    /// Parameters in definition order.
    pub params: Vec<Param>,
    /// `#setup` bodies in order.
    pub setup: Vec<CodeId>,
    /// The `#actions` body.
    pub actions: Option<CodeId>,
    /// A call of the game's `to-move`, when it defines one without parameters: whose
    /// turn it is, for the rules that ask about a player's legal moves.
    pub to_move_call: Option<CodeId>,
    /// A call of the game's `no-legal-move`, when it defines one: what it means that
    /// nobody to move has a legal move (see [`NO_LEGAL_MOVE`]).
    pub no_legal_move_call: Option<CodeId>,
    /// Entities made at start, in definition order.
    pub instances: Vec<Instance>,
    /// Every compiled body.
    pub codes: Vec<Code>,
    /// Whether a call of each body (by [`CodeId`], up to the last function's) is an
    /// `Op::CallSmall`, started in the machine's small loop (`bytecode/small.rs`).
    pub small_calls: Vec<bool>,
    /// The boards `#board` built, for navigation.
    pub boards: Vec<std::sync::Arc<crate::board::Board>>,
    /// Cell name to its board and cell.
    pub cells: FxHashMap<Symbol, (u32, crate::board::CellId)>,
    /// Boards built when the game starts; a session's game has them in `boards`, `cells`
    /// and `instances`, and this list empty.
    pub late_boards: Vec<LateBoard>,
    /// Board files named by parameters the user gave (`--param board=<file>.xml`), read
    /// and built when the game was loaded: a board computed at start whose description is
    /// one of these texts is this board.
    pub board_files: Vec<(String, std::sync::Arc<crate::board::Board>)>,
    /// Per entity type (by [`TypeId`]), the type of its `#representation` (its own, or
    /// its nearest ancestor's). Representation types come after the entity types in
    /// `types` and are not in `type_ids`.
    pub representations: Vec<Option<TypeId>>,
    /// Per symbol number, the column of the property of that name (every name some type
    /// has as a property gets one column); indexed by [`Symbol::index`] up to the largest
    /// property name, so finding a property's slot is two array reads, not a hash lookup.
    pub property_columns: std::sync::Arc<[u32]>,
    /// Every type's [`EntityType::columns`] end to end (type `t`'s column `c` at
    /// `t * slot_stride + c`), so that finding a slot reads one array after the column.
    pub slot_table: std::sync::Arc<[u16]>,
    /// The number of columns (the length of each type's row in `slot_table`).
    pub slot_stride: usize,
    /// The lists `ray` gives, made at first use.
    pub rays: RayCache,
    /// The bodies built for the fast tier (the runtime's `FastTable`), made at first use
    /// and shared by every session of the game.
    pub fast: Kept<Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>>,
    /// The copies of the game made with its late boards built, by their descriptions.
    pub late_games: LateGames,
}

/// What is made from a game at first use and kept with it, behind a lock, for its
/// sessions to share. A copy of the game starts without: it is made to be changed.
#[derive(Default)]
pub struct Kept<T>(std::sync::Mutex<T>);

impl<T> Kept<T> {
    /// What is kept, to read or replace.
    pub fn lock(&self) -> std::sync::MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T: Default> Clone for Kept<T> {
    fn clone(&self) -> Kept<T> {
        Kept::default()
    }
}

impl<T> std::fmt::Debug for Kept<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kept")
    }
}

/// The copies of a game with boards computed at start made for its sessions, by what
/// their boards' descriptions gave, so that sessions on the same boards share one game
/// (and the code compiled for it). At most [`LATE_GAMES_KEPT`] are kept; others are made
/// for each session.
pub type LateGames = Kept<Vec<(String, std::sync::Arc<Game>)>>;

/// How many copies for computed boards a game keeps ([`LateGames`]).
pub const LATE_GAMES_KEPT: usize = 8;

impl LateGames {
    /// The copy made for the descriptions `key`, if one was kept.
    pub fn get(&self, key: &str) -> Option<std::sync::Arc<Game>> {
        self.lock()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, g)| g.clone())
    }

    /// Keep `game`, made for the descriptions `key`, while there is room.
    pub fn keep(&self, key: String, game: &std::sync::Arc<Game>) {
        let mut kept = self.lock();
        if kept.len() < LATE_GAMES_KEPT && !kept.iter().any(|(k, _)| *k == key) {
            kept.push((key, game.clone()));
        }
    }
}

/// The list of cell names `ray` gives from each cell of each board in each direction,
/// made the first time it is asked for and shared after: a ray depends on the board alone,
/// so building it again each time would give the same list. The table is sized from the
/// boards there are when the first ray is asked for; a board added later (a copy of the
/// game with its late boards) has its rays made each time instead.
///
/// What is kept is bounded, so a game on a huge board cannot fill memory with rays it
/// asked for once: a board with more than [`RayCache::MAX_SLOTS`] cell-direction pairs
/// gets no table, and once [`RayCache::MAX_CELLS`] cell names are kept in all, further
/// rays are made each time.
#[derive(Default)]
pub struct RayCache {
    table: std::sync::OnceLock<Box<[BoardRays]>>,
    /// The cell names kept so far, in all rays.
    kept: std::sync::atomic::AtomicUsize,
}

/// What [`RayCache::get_or_make`] gives a ray as, made from the names of its cells (the
/// runtime gives a list value).
pub trait FromRay {
    /// The ray passing `cells`, in order.
    fn from_ray(cells: &[Symbol]) -> Self;
}

/// The rays of one board, by `cell * directions + direction` (empty: not kept).
type BoardRays = Box<[std::sync::OnceLock<Box<[Symbol]>>]>;

impl Clone for RayCache {
    fn clone(&self) -> Self {
        RayCache {
            table: self.table.clone(),
            kept: std::sync::atomic::AtomicUsize::new(
                self.kept.load(std::sync::atomic::Ordering::Relaxed),
            ),
        }
    }
}

impl std::fmt::Debug for RayCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RayCache")
    }
}

impl RayCache {
    /// The most cell-direction pairs a board may have for its rays to be kept (a 64 by 64
    /// board with eight directions; the table costs a few bytes a pair).
    pub const MAX_SLOTS: usize = 64 * 64 * 8;
    /// The most cell names kept in all rays together (16 bytes each).
    pub const MAX_CELLS: usize = 1 << 20;

    /// The ray of board `b` (of `boards`) from cell `c` in direction `d`, as a list of
    /// cell names: the cells kept, or `make`'s, kept for next time while there is room.
    /// (The cells are kept rather than the list: values stay on the thread that made
    /// them, and the game is shared by every thread.)
    pub fn get_or_make<T: FromRay>(
        &self,
        boards: &[std::sync::Arc<crate::board::Board>],
        b: usize,
        c: crate::board::CellId,
        d: crate::board::DirId,
        make: impl FnOnce() -> Box<[Symbol]>,
    ) -> T {
        use std::sync::atomic::Ordering::Relaxed;
        let list = |cells: &[Symbol]| T::from_ray(cells);
        let table = self.table.get_or_init(|| {
            boards
                .iter()
                .map(|board| {
                    let pairs = board.cell_count() * board.direction_count();
                    if pairs > Self::MAX_SLOTS {
                        return Box::default();
                    }
                    (0..pairs).map(|_| std::sync::OnceLock::new()).collect()
                })
                .collect()
        });
        let slot = boards.get(b).zip(table.get(b)).and_then(|(board, rays)| {
            let dirs = board.direction_count();
            let d = usize::from(d.0);
            (d < dirs)
                .then(|| rays.get(c.0 as usize * dirs + d))
                .flatten()
        });
        let Some(slot) = slot else {
            return list(&make());
        };
        if let Some(ray) = slot.get() {
            return list(ray);
        }
        let ray = make();
        let cells = ray.len();
        // Room is taken before the ray is kept; two threads racing for the last room
        // may leave a little unused, never more than the bound kept.
        let room = self
            .kept
            .fetch_update(Relaxed, Relaxed, |k| {
                (k + cells <= Self::MAX_CELLS).then_some(k + cells)
            })
            .is_ok();
        let value = list(&ray);
        if room && slot.set(ray).is_err() {
            // Another thread kept the same ray first: give its room back.
            self.kept.fetch_sub(cells, Relaxed);
        }
        value
    }
}

impl Game {
    /// The body `id`.
    pub fn code(&self, id: CodeId) -> &Code {
        &self.codes[id.0 as usize]
    }

    /// The type `id`.
    pub fn ty(&self, id: TypeId) -> &EntityType {
        &self.types[id.0 as usize]
    }

    /// Number the property names of every type ([`Game::property_columns`]) and give each
    /// type its slot per column. Called once the types are laid out.
    pub fn index_properties(&mut self) {
        let mut names: Vec<Symbol> = self
            .types
            .iter()
            .flat_map(|t| t.properties.iter().map(|(n, _)| *n))
            .collect();
        names.sort_by_key(|n| n.index());
        names.dedup();
        let len = names.last().map_or(0, |n| n.index() + 1);
        let mut columns = vec![NO_COLUMN; len];
        for (c, n) in names.iter().enumerate() {
            columns[n.index()] = c as u32;
        }
        let mut table = Vec::with_capacity(self.types.len() * names.len());
        for t in &mut self.types {
            t.columns = vec![NO_SLOT; names.len()];
            for (slot, (n, _)) in t.properties.iter().enumerate() {
                t.columns[columns[n.index()] as usize] = slot as u16;
            }
            table.extend_from_slice(&t.columns);
        }
        self.property_columns = columns.into();
        self.slot_table = table.into();
        self.slot_stride = names.len();
    }

    /// The slot of property `name` in type `ty`'s layout, if it has one: the name's column,
    /// then the type's slot in that column, two array reads.
    #[inline(always)]
    pub fn slot(&self, ty: TypeId, name: Symbol) -> Option<u16> {
        match self.slot_entry(ty, name) {
            Some(slot) => (slot != NO_SLOT).then_some(slot),
            None => self.slot_unindexed(ty, name),
        }
    }

    /// [`Game::slot`] when the table has it (the commonest case, with no call out of
    /// line); `None` may also mean that the table does not cover it.
    #[inline(always)]
    pub fn indexed_slot(&self, ty: TypeId, name: Symbol) -> Option<u16> {
        self.slot_entry(ty, name).filter(|&slot| slot != NO_SLOT)
    }

    /// The table's entry for `name` in type `ty` ([`NO_SLOT`] where the type has no such
    /// property), if the table covers both.
    #[inline(always)]
    fn slot_entry(&self, ty: TypeId, name: Symbol) -> Option<u16> {
        // A name no type has as a property has the column `NO_COLUMN`, far past the end
        // of the table; so is every column of a type laid out after the table was made.
        let column = *self.property_columns.get(name.index())?;
        self.slot_table
            .get((ty.0 as usize) * self.slot_stride + column as usize)
            .copied()
    }

    /// [`Game::slot`] for a name no type had as a property when the table was made, or a
    /// type laid out since (or a game never indexed).
    #[cold]
    #[inline(never)]
    fn slot_unindexed(&self, ty: TypeId, name: Symbol) -> Option<u16> {
        let t = self.ty(ty);
        if t.columns.is_empty() {
            // Not indexed (or no property at all).
            return t.slots.get(&name).copied();
        }
        None
    }

    /// Add `advice` after the others, or in the place of the advice named `replaces`.
    pub fn add_advice(&mut self, advice: Advice, replaces: Option<Symbol>) {
        match replaces.and_then(|r| self.advice.iter().position(|a| a.name == r)) {
            Some(i) => self.advice[i] = advice,
            None => self.advice.push(advice),
        }
    }

    /// The representation type of entity type `ty`, if it has one.
    pub fn representation(&self, ty: TypeId) -> Option<TypeId> {
        self.representations.get(ty.0 as usize).copied().flatten()
    }

    /// Whether `ty` is `ancestor` or one of its subtypes.
    pub fn is_a(&self, ty: TypeId, ancestor: TypeId) -> bool {
        self.ty(ty).ancestors.contains(&ancestor)
    }
}

#[cfg(test)]
mod tests {
    use super::{FromRay, RayCache};
    use crate::board::grid::from_identification;
    use crate::board::{CellId, DirId};
    use crate::symbol::Symbol;
    use std::sync::Arc;

    /// A ray as the cell names it passes.
    #[derive(Debug, PartialEq)]
    struct Ray(Vec<Symbol>);

    impl FromRay for Ray {
        fn from_ray(cells: &[Symbol]) -> Ray {
            Ray(cells.to_vec())
        }
    }

    fn cells_of(board: &crate::board::Board, c: CellId, d: DirId) -> Box<[crate::symbol::Symbol]> {
        board
            .ray(c, d)
            .into_iter()
            .map(|c| board.cell_name(c))
            .collect()
    }

    fn ray_of(board: &crate::board::Board, c: CellId, d: DirId) -> Ray {
        Ray(board
            .ray(c, d)
            .into_iter()
            .map(|c| board.cell_name(c))
            .collect())
    }

    #[test]
    fn rays_are_kept_within_bounds_and_always_right() {
        // A small board (kept) and one with more cell-direction pairs than a table holds.
        let boards = vec![
            Arc::new(from_identification("8x8").expect("8x8")),
            Arc::new(from_identification("100x100").expect("100x100")),
        ];
        let cache = RayCache::default();
        for (b, board) in boards.iter().enumerate() {
            for c in board.cells().step_by(7) {
                for d in board.all_directions() {
                    let want = ray_of(board, c, d);
                    let made = std::cell::Cell::new(0);
                    let get = || -> Ray {
                        cache.get_or_make(&boards, b, c, d, || {
                            made.set(made.get() + 1);
                            cells_of(board, c, d)
                        })
                    };
                    assert_eq!(get(), want);
                    assert_eq!(get(), want);
                    // The small board's rays are made once, the big board's each time.
                    assert_eq!(made.get(), if b == 0 { 1 } else { 2 });
                }
            }
        }
        let kept = cache.kept.load(std::sync::atomic::Ordering::Relaxed);
        assert!(kept > 0 && kept <= RayCache::MAX_CELLS);
        // Past the bound on cell names kept, rays are still given, made each time.
        cache
            .kept
            .store(RayCache::MAX_CELLS, std::sync::atomic::Ordering::Relaxed);
        // A ray kept before stays kept (cell 0 was asked for above); a new one is made
        // each time.
        for (c, times) in [(CellId(0), 0), (CellId(1), 2)] {
            let d = DirId(0);
            let made = std::cell::Cell::new(0);
            for _ in 0..2 {
                let r: Ray = cache.get_or_make(&boards, 0, c, d, || {
                    made.set(made.get() + 1);
                    cells_of(&boards[0], c, d)
                });
                assert_eq!(r, ray_of(&boards[0], c, d));
            }
            assert_eq!(made.get(), times);
        }
    }
}
