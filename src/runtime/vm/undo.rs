//! Undoing in place: checkpoints that are marks in the undo log, and trials of moves on
//! the world itself rather than on a copy.
//!
//! A machine that owns its world and logs its changes (see [`Machine::start`]) opens a
//! checkpoint as a mark in its log, not a copy of the world: a copy would make every
//! later write copy the entity it changes (the checkpoint shares it), and a rollback
//! undoes the log down to the mark instead. The law that opens a checkpoint before every
//! move (as the bundled games do) then costs nothing.
//!
//! A kept machine given the world to own (as [`Machine::restart_deliver`]) writes layout
//! properties, states and the random generator in place with an undo log. A trial runs
//! the same way, and then:
//! - a move that does not commit (vetoed, failed, rolled back, waiting) leaves the world
//!   exactly as it was: a rollback puts back the start too, unlike a transaction the
//!   session keeps (a move that rolls back is not played);
//! - a move that commits is kept ([`TrialEnd::Keep`], a playout), undone at once
//!   ([`TrialEnd::Undo`], a legal-move list) or kept with what undoes it
//!   ([`TrialEnd::Log`], perft's make and unmake): the undo log and the random state it
//!   began with, or the start world when the machine had to keep one (a change the log
//!   does not cover, such as finishing the game).
//!
//! The caller sees to it that the world is not watched: the log does not cover the
//! canvas, and a trial does not draw.

use std::rc::Rc;

use super::{Context, Machine};
use crate::compile::bytecode::CodeId;
use crate::runtime::canvas::Canvas;
use crate::runtime::value::{List, Marks, Message, Value};
use crate::runtime::world::{EntityId, World};
use crate::symbol::Symbol;

/// An open checkpoint: what a rollback puts back.
#[derive(Debug)]
pub(super) enum Checkpoint {
    /// The world as it was (a machine that keeps its start).
    World(World),
    /// The undo log's length and the random generator's state when it was opened (a
    /// machine that logs its changes): a rollback undoes the log down to `len`. Why that
    /// gives back the world as it was, even after vetoes put back copies held by join
    /// points: the first change logged past `len` to a property or state holds its value
    /// at the checkpoint (a join point's copy put back by a veto is the checkpoint's
    /// world with some of the changes past `len` made, in order, since a veto also
    /// closes the checkpoints opened inside its join point), and what was not changed
    /// past `len` is as it was. [`Machine::keep_start`] turns the marks into worlds.
    Mark { len: usize, rng: u64 },
}

impl Machine {
    /// Open a checkpoint: a mark in the undo log when the machine logs its changes, else
    /// a copy of the world.
    pub(super) fn open_checkpoint(&mut self) {
        let checkpoint = if self.logging() {
            Checkpoint::Mark {
                len: self.undo.len(),
                rng: self.world.rng,
            }
        } else {
            Checkpoint::World(self.world.clone())
        };
        self.checkpoints.push(checkpoint);
    }

    /// Put the world back as it was when the last open checkpoint was opened, and close
    /// it; false when none is open.
    pub(super) fn roll_back(&mut self) -> bool {
        match self.checkpoints.pop() {
            Some(Checkpoint::World(world)) => self.world = world,
            Some(Checkpoint::Mark { len, rng }) => {
                undo_down_to(&mut self.world, &mut self.undo, len, rng)
            }
            None => return false,
        }
        true
    }
}

/// What undoes the moves made in place with [`TrialEnd::Log`], last made first: their
/// undo logs, one after the other in one buffer, and where each begins.
#[derive(Debug, Default)]
pub struct MoveLog {
    /// The changes of every move made and not unmade, in the order they were made.
    changes: Vec<Undo>,
    /// One per move made and not unmade.
    moves: Vec<Made>,
}

/// What undoes one move made in place.
#[derive(Debug)]
struct Made {
    /// Where its changes begin in [`MoveLog::changes`].
    from: usize,
    /// The random generator's state before it.
    rng: u64,
    /// The world before it, when the machine had to keep it (its changes are then not
    /// logged).
    start: Option<World>,
    /// The canvas the world had before it, taken off for the move (a trial does not draw).
    canvas: Option<Rc<Canvas>>,
}

impl MoveLog {
    /// How many moves made are not unmade.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether every move made is unmade.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Undo the last move made in `world` (the world it was made on, as it left it):
    /// the world is then exactly as before the move. False when there is none.
    pub fn unmake(&mut self, world: &mut World) -> bool {
        let Some(made) = self.moves.pop() else {
            return false;
        };
        match made.start {
            Some(start) => {
                *world = start;
                self.changes.truncate(made.from);
            }
            None => undo_down_to(world, &mut self.changes, made.from, made.rng),
        }
        if let Some(canvas) = made.canvas {
            world.canvas = canvas;
        }
        true
    }

    /// Keep `canvas`, taken off the world for the last move made, for its unmake to
    /// put back.
    pub fn keep_canvas(&mut self, canvas: Rc<Canvas>) {
        if let Some(made) = self.moves.last_mut() {
            made.canvas = Some(canvas);
        }
    }
}

/// What becomes of a trial that commits.
pub enum TrialEnd<'a> {
    /// The move is played: the world stays as it left it.
    Keep,
    /// The move is undone at once: the world is as before it.
    Undo,
    /// The move is played, and `log` gets what undoes it ([`MoveLog::unmake`]).
    Log(&'a mut MoveLog),
}

impl Machine {
    /// Start trying `msg` delivered to `to` in place, on the world the machine holds (as
    /// [`Machine::restart_deliver`]). End it with [`Machine::end_trial`].
    pub fn restart_trial(&mut self, cx: &mut Context<'_>, to: Symbol, msg: Rc<Message>) {
        // Only `finish` and `end_trial` read the mark, long after the send is set up.
        self.restart_deliver(cx, to, msg);
        self.trial = true;
    }

    /// [`Machine::restart_trial`] running `code` as the user (`#actions`).
    pub fn restart_trial_eval(&mut self, cx: &mut Context<'_>, code: CodeId) {
        self.restart_eval(cx, code);
        self.trial = true;
    }

    /// End a trial run to its end, which `committed` or not, as [`Machine::settle`] does:
    /// the world the machine holds is unchanged unless the trial committed, and then as
    /// `then` says.
    pub fn end_trial(&mut self, committed: bool, then: TrialEnd<'_>) {
        if committed && self.waiting.is_none() {
            match then {
                TrialEnd::Keep => {}
                TrialEnd::Undo => self.restore_start(),
                TrialEnd::Log(log) => {
                    let from = log.changes.len();
                    log.changes.append(&mut self.undo);
                    log.moves.push(Made {
                        from,
                        rng: self.start_rng,
                        start: self.start.take(),
                        canvas: None,
                    });
                }
            }
        }
        self.trial = false;
        self.settle();
    }
}

/// A change a machine made in place to the world it was given, and what undoes it (see
/// [`Machine::start`]).
#[derive(Debug)]
pub(super) enum Undo {
    /// Layout property `slot` of entity `id` held `old`; or, when `element` is not
    /// [`WHOLE`], element `element` of the list it holds did, replaced where the list
    /// lies, which nobody else held, its bounds unchanged ([`Machine::put_own_here`]).
    /// (One variant for both keeps a change in three words.)
    Slot {
        id: EntityId,
        slot: u16,
        element: u16,
        old: Value,
    },
    /// Entity `id` was in state `old`.
    State { id: EntityId, old: Symbol },
    /// The list in layout property `slot` of entity `id`, which nobody else held, had an
    /// element pushed at its end where it lies, its bounds `marks` before
    /// ([`Machine::append_own_here`]).
    Pushed {
        id: EntityId,
        slot: u16,
        marks: Marks,
    },
}

/// The `element` of an [`Undo::Slot`] that stands for the whole property.
pub(super) const WHOLE: u16 = u16::MAX;

// The log is written at every change a move makes and read back at its undoing: a
// change is kept in three words.
const _: () = assert!(std::mem::size_of::<Undo>() == 24);

impl Machine {
    /// Before a change the undo log does not record: rebuild the world as it was when
    /// the transaction began from the log, and keep it from now on (writes then copy
    /// what it shares, and the log is no longer kept); the open checkpoints, marks in
    /// the log, become the worlds they stand for.
    pub(super) fn keep_start(&mut self) {
        if self.start.is_none() {
            // The open checkpoints, last first, then the start, each rebuilt from the
            // one after it (see `Checkpoint`).
            let mut world = self.world.clone();
            for checkpoint in self.checkpoints.iter_mut().rev() {
                if let Checkpoint::Mark { len, rng } = *checkpoint {
                    undo_down_to(&mut world, &mut self.undo, len, rng);
                    *checkpoint = Checkpoint::World(world.clone());
                }
            }
            undo_all(&mut world, &mut self.undo, self.start_rng);
            self.start = Some(world);
        }
    }

    /// Whether the machine logs the changes it makes in place (see [`Machine::start`]).
    #[inline(always)]
    pub(super) fn logging(&self) -> bool {
        self.start.is_none()
    }

    /// Log that layout property `slot` of entity `id` held `old`.
    #[inline(always)]
    pub(super) fn log_slot(&mut self, id: EntityId, slot: u16, old: Value) {
        self.log_put(id, slot, WHOLE, old);
    }

    /// Log that the list in layout property `slot` of entity `id` had an element pushed
    /// in place, its bounds `marks` before.
    #[inline(always)]
    pub(super) fn log_pushed(&mut self, id: EntityId, slot: u16, marks: Marks) {
        self.undo.push(Undo::Pushed { id, slot, marks });
    }

    /// Log that element `element` (below [`WHOLE`]) of the list in layout property
    /// `slot` of entity `id` held `old` before it was replaced in place; or, for
    /// `WHOLE`, that the property did.
    #[inline(always)]
    pub(super) fn log_put(&mut self, id: EntityId, slot: u16, element: u16, old: Value) {
        self.undo.push(Undo::Slot {
            id,
            slot,
            element,
            old,
        });
    }

    /// Log that entity `id` was in state `old`.
    #[inline(always)]
    pub(super) fn log_state(&mut self, id: EntityId, old: Symbol) {
        self.undo.push(Undo::State { id, old });
    }

    /// Put the world back as it was when the transaction began (a veto, a failure, an
    /// abandoned wait).
    #[inline]
    pub(super) fn restore_start(&mut self) {
        // Copies of the world held by join points and checkpoints go first, so undoing
        // in place finds the entities unshared again.
        self.jps.clear();
        self.befores.clear();
        self.checkpoints.clear();
        match &self.start {
            Some(start) => self.world = start.clone(),
            None => undo_all(&mut self.world, &mut self.undo, self.start_rng),
        }
    }
}

/// Undo the changes of `log`, last first, in `world`, and put the random generator back
/// to `rng`: the world as it was before them (see [`Machine::start`]). Empties the log.
fn undo_all(world: &mut World, log: &mut Vec<Undo>, rng: u64) {
    undo_down_to(world, log, 0, rng);
}

/// Undo the changes of `log` past its first `len`, last first, in `world`, and put the
/// random generator back to `rng`; the log keeps its first `len` changes.
pub(super) fn undo_down_to(world: &mut World, log: &mut Vec<Undo>, len: usize, rng: u64) {
    // A move's changes to one entity often follow each other: it is found once for them.
    let mut entity: Option<(EntityId, &mut super::super::world::Entity)> = None;
    while log.len() > len {
        let Some(u) = log.pop() else {
            break;
        };
        let (Undo::Slot { id, .. } | Undo::State { id, .. } | Undo::Pushed { id, .. }) = u;
        if entity.as_ref().is_none_or(|(found, _)| *found != id) {
            entity = world.entity_mut(id).map(|e| (id, e));
        }
        let Some((_, e)) = entity.as_mut() else {
            continue;
        };
        match u {
            Undo::Slot {
                slot,
                element: WHOLE,
                old,
                ..
            } => {
                if let Some(place) = e.props.get_mut(slot as usize) {
                    *place = old;
                }
            }
            // The element put back, as a push is taken off below (and for the same
            // reasons, on a copy or on a list that no longer matters).
            Undo::Slot {
                slot, element, old, ..
            } => {
                if let Some(Value::List(list)) = e.props.get_mut(slot as usize) {
                    let list = List::make_mut(list, 0);
                    Value::release(list.put_back(element as usize, old).unwrap_or_default());
                }
            }
            Undo::State { old, .. } => e.state = old,
            // The element taken off again (from a copy when the world being rebuilt
            // shares the list with the one running). Every change logged after it to the
            // same slot was undone before it, so the slot holds the list it pushed onto;
            // unless a veto put back a copy of the world taken before the write that
            // made that list, whose undoing, next, puts back the value before it (see
            // docs/world-and-undo.md): then what is taken off here does not matter.
            Undo::Pushed { slot, marks, .. } => {
                if let Some(Value::List(list)) = e.props.get_mut(slot as usize) {
                    Value::release(List::make_mut(list, 0).unpush(marks).unwrap_or_default());
                }
            }
        }
    }
    world.rng = rng;
}
