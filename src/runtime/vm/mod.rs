//! The virtual machine: explicit frames, an operand stack and a stack of join points.
//!
//! A transaction is a [`Machine`]. Nothing about a message chain or a recursion lives on
//! the Rust stack: sending pushes a join point, running a body pushes a frame, and the
//! loop in [`Machine::run`] picks up whatever is on top. So a transaction can stop between
//! any two join-point steps (stepping) or inside `(wait signal ...)` and be resumed later,
//! and a chain 100,000 messages deep costs memory, not stack.
//!
//! This file holds the [`Machine`] itself: starting, running and ending a transaction.
//! The rest is by concept: the instruction loop (`exec`), the instructions it runs out of
//! line (`exec_other`), the fast cases of fused instructions (`fused`), counting steps
//! (`steps`), the operand stack's helpers (`stack`), join points and sends (`sends`),
//! recycling messages (`recycle`), the advice-chain cache (`chains`), the builtins that
//! read the game (`game_fns`), the forms (`forms`, `drawing`), undoing in place (`undo`)
//! and error reports (`errors`).

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::compile::bytecode::CodeId;
use crate::compile::program::Game;
use crate::source::Span;
use crate::symbol::Symbol;

use super::budget::Meter;
// How a transaction ended, for cleaning up after it ([`Machine::end`]) and for a profile.
use super::profile::{Ended as Ending, Profile};
use super::trace::{Output, RuntimeError, Status, TraceEvent};
use super::value::{Message, Value};
use super::world::{EntityId, FixedNames, World};

pub use super::budget::Limits;

#[cfg(feature = "jit")]
mod addresses;
mod buffers;
mod chains;
mod drawing;
mod errors;
mod exec;
mod exec_other;
mod fast;
mod fast_build;
mod forms;
mod fused;
mod game_fns;
#[cfg(feature = "hand-chains")]
mod hand_chains;
#[cfg(feature = "jit")]
mod jit;
mod place;
mod queries;
mod recycle;
mod sends;
mod small;
mod stack;
mod steps;
#[cfg(test)]
mod tests;
mod undo;

use buffers::{Buffers, SPARE, clear, let_go_if_large};
pub use chains::ChainCache;
use recycle::SpareMessages;
use sends::{JoinPoint, Then};
use stack::push_nils;
use steps::CHECK_EVERY;
use undo::{Checkpoint, Undo};
pub use undo::{MoveLog, TrialEnd};

use fast::Origin;
pub use fast::{FAST_DEPTH, FastCode, Tier, TierCounts, tier_counts};
pub use fast_build::FastTable;
#[cfg(feature = "jit")]
pub use jit::compile_after;

/// What the machine needs besides itself.
pub struct Context<'a> {
    /// The compiled game.
    pub game: &'a Game,
    /// Parameter values.
    pub params: &'a FxHashMap<Symbol, Value>,
    /// Property defaults per type, in layout order.
    pub defaults: &'a [Vec<Value>],
    /// Advice chain cache.
    pub cache: &'a mut ChainCache,
    /// Limits.
    pub limits: Limits,
    /// Record trace events.
    pub trace: bool,
    /// Stop after every join-point step.
    pub stepping: bool,
    /// Set from another thread (Ctrl-C) to make the transaction fail.
    pub interrupt: Option<&'a std::sync::atomic::AtomicBool>,
    /// Ids of the entities made when the game started, by name.
    pub fixed: &'a Arc<FixedNames>,
    /// Which tier runs the transaction (see `vm/fast.rs`).
    pub tier: Tier,
    /// The game's bodies built for the fast tier.
    pub fast: &'a FastTable,
}

/// Why [`Machine::run`] returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// The transaction is over.
    Finished(Status),
    /// Stepping: a join-point step happened (the last trace event says which).
    Stepped,
    /// `(wait signal s ...)`: resume with [`Machine::signal`].
    Waiting(Rc<Wait>),
}

/// What a transaction run to its end ([`Machine::run_out_answering`]) does when it waits
/// for a signal, with nobody at a prompt to answer.
pub enum OnWait<'a> {
    /// It fails: "waiting for signal ... with no one to answer".
    Fail,
    /// It stops there and counts as committed (a legal move whose answers come later):
    /// the world is left as it was before it, as for a transaction still waiting.
    Legal,
    /// `answer` answers each wait in turn; `None`, or an answer the wait refuses, leaves
    /// it unanswered, and it fails.
    Answer(&'a mut dyn FnMut(&Wait) -> Option<Value>),
}

/// What a `(wait signal <signal> from <player> among <list>)` waits for.
#[derive(Debug, Clone, PartialEq)]
pub struct Wait {
    /// The signal.
    pub signal: Symbol,
    /// Who must answer (`from`); `None`: the player who gave the move.
    pub player: Option<Value>,
    /// The possible answers (`among`), in order; `None`: any tag answers.
    pub answers: Option<Vec<Value>>,
}

impl Wait {
    /// Whether `tag` answers the wait: any tag when it has no `among`, else one of its
    /// answers (compared as `=` compares). The refusal, for people, lists the answers.
    pub fn check(&self, tag: &Value) -> Result<(), String> {
        match &self.answers {
            Some(answers) if !answers.contains(tag) => Err(format!(
                "{tag} is not an answer to signal \"{}\": the answers are {}",
                self.signal,
                self.answers_text().unwrap_or_default()
            )),
            _ => Ok(()),
        }
    }

    /// The answers as written in messages (`"rope", "sail", "oar"`), when it has some.
    pub fn answers_text(&self) -> Option<String> {
        let answers = self.answers.as_ref()?;
        Some(
            answers
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Top,
    Function,
    Law,
    Behaviour,
    SideEffect,
}

#[cfg(feature = "op-stats")]
impl Kind {
    /// What the instruction counts call a body of this kind.
    fn label(self) -> &'static str {
        match self {
            Kind::Top => "top",
            Kind::Function => "function",
            Kind::Law => "law",
            Kind::Behaviour => "behaviour",
            Kind::SideEffect => "side-effect",
        }
    }
}

const NO_JP: u32 = u32::MAX;

/// How a run without anyone to answer ends when the transaction waits for `signal`.
#[cold]
#[inline(never)]
fn unanswered(wait: &Wait) -> Status {
    let signal = wait.signal;
    let hint = if wait.answers.is_some() {
        "signals are answered from the REPL (:signal) or the board"
    } else {
        "signals are answered from the REPL (:signal) or the board; to let playouts and \
         agents answer too, give the answers: (wait signal <signal> among <list>)"
    };
    Status::Failed(RuntimeError {
        message: format!("waiting for signal \"{signal}\" with no one to answer"),
        hint: Some(hint.into()),
        span: None,
        chain: Vec::new(),
        calls: None,
    })
}

/// The span of a message from outside: it has no place in the sources.
const OUTSIDE: Span = Span {
    file: crate::source::FileId(u32::MAX),
    start: 0,
    end: 0,
};

#[derive(Clone, Copy, Debug)]
struct Frame {
    code: CodeId,
    ip: u32,
    base: u32,
    kind: Kind,
    jp: u32,
}

/// One transaction in progress.
pub struct Machine {
    /// The world as the transaction sees it.
    pub world: World,
    /// The world as it was when the transaction began, for a veto or a failure to put
    /// back. `None` while the machine changes the world it was given in place and keeps
    /// `undo` instead: a machine given a world to own ([`Machine::restart_deliver`],
    /// [`Machine::restart_eval`]; a watched world excepted, as the log does not cover the
    /// canvas; a trial, [`Machine::restart_trial`], too) keeps no copy, so its writes
    /// find the entities unshared and copy nothing. The commonest changes (a layout
    /// property, a state, the random generator) are undone from the log, and a checkpoint
    /// is a mark in it (see `vm/undo.rs`); before any other change the start is rebuilt
    /// from the log ([`Machine::keep_start`]) and kept from then on.
    ///
    /// Why the log undoes a world the transaction replaced (a veto putting back a join
    /// point's copy): every world the machine holds is the start with some of the logged
    /// changes made, in order, and no entity is added or removed while the log is kept.
    /// So for each property and state the first change logged holds its value at the
    /// start, which undoing the whole log, last change first, puts back in any of them.
    start: Option<World>,
    undo: Vec<Undo>,
    /// The random generator's state when the transaction began.
    start_rng: u64,
    /// Whether the transaction is a trial of a move in place (see `vm/undo.rs`): a
    /// rollback puts back the start (a move that rolls back is not played), and a commit
    /// keeps its undo log for the caller to keep, log or undo.
    trial: bool,
    stack: Vec<Value>,
    frames: Vec<Frame>,
    jps: Vec<JoinPoint>,
    /// Allocations of messages whose join points ended, for the next messages made.
    spares: SpareMessages,
    /// The worlds and open-checkpoint counts kept by the join points marked `before`,
    /// innermost last (see [`JoinPoint::before`]).
    befores: Vec<(World, usize)>,
    checkpoints: Vec<Checkpoint>,
    meter: Meter,
    /// Lines written by `notify` and `print`.
    pub output: Vec<Output>,
    /// Steps recorded when tracing.
    pub trace: Vec<TraceEvent>,
    waiting: Option<Rc<Wait>>,
    paused: bool,
    /// A step is pending after a property write that waited for its observer: it pauses
    /// where the write would have paused unobserved (at the writer's next join-point
    /// step), not as the observer's join point ends.
    pause_later: bool,
    /// The step count at which the instruction loop next checks (see [`Machine::exec`]).
    check_at: u64,
    done: Option<Status>,
    fixed: Arc<FixedNames>,
    /// Where the entities of `fixed` lie, for the generated code (see `vm/addresses.rs`).
    #[cfg(feature = "jit")]
    addresses: addresses::Addresses,
    /// Where the steps go, when profiling (see [`super::profile`]): the loop then checks
    /// after every instruction, and the check charges it to its body.
    profile: Option<Box<Profile>>,
    /// [`CHECK_EVERY`], or 0 (a check after every instruction) when profiling.
    check_every: u64,
    /// The moves being tried, outermost first, each with the position it is tried in,
    /// when the machine tries moves to answer a rule's question about the legal moves (see
    /// `vm/queries.rs`): a question asked while one of them is tried may not try it again
    /// in the same position.
    trying: Vec<(Symbol, Rc<Message>, World)>,
    /// Whether bodies may run on the fast tier in this transaction (see `vm/fast.rs`).
    fast: bool,
    /// Whether a body ran on the fast tier in this transaction.
    ran_fast: bool,
    /// How the transaction started, to start it again when the fast tier gives up.
    origin: Origin,
    /// Whether the machine kept a copy of the world when the transaction began.
    kept_start: bool,
    /// Under [`Tier::Both`], what the fast tier's run did, to compare with the
    /// interpreter's.
    compare: Option<Box<fast::Ran>>,
    /// Join points and function calls the fast tier has open as Rust calls (bounded by
    /// [`FAST_DEPTH`]).
    fast_nest: usize,
    /// Calls of functions the fast tier has open without a frame (see
    /// `FastCode::frame`), and the join points and frames of bodies it runs directly
    /// (machine code, for a send): counted in the depth as frames are.
    frameless: usize,
    /// The entity a send the fast tier makes the general way from a body it runs directly
    /// names as its sender (that body's, whose join point it does not push).
    direct_sender: Option<Symbol>,
    /// The attributes the laws of chains run directly (machine code, for a send) wrote
    /// that their messages were sent without: where the message's attributes lie on the
    /// stack, the name and the value, the innermost send's last.
    #[cfg(feature = "jit")]
    written: Vec<(usize, Symbol, Value)>,
    /// The frame count at which [`Machine::exec`] stops with the value on top, when the
    /// fast tier runs a body it has no form of on the interpreter (0: run to the end).
    floor: usize,
}

impl Ending {
    #[inline(always)]
    fn of(status: &Status) -> Ending {
        match status {
            Status::Committed(_) => Ending::Committed,
            Status::RolledBack { .. } => Ending::RolledBack,
            Status::Vetoed { .. } => Ending::Vetoed,
            Status::Failed(_) => Ending::Failed,
        }
    }
}

/// What a form did.
enum Flow {
    /// Produced a value.
    Value(Value),
    /// Pushed a join point or frame: continue with the new top.
    Enter,
    /// Waits for a signal.
    Wait(Rc<Wait>),
    /// Ended the transaction.
    End(Status),
    /// The fast tier gave up: the transaction is to run again on the interpreter.
    GiveUp,
}

impl Machine {
    /// A machine on `world`, keeping a copy of it for a veto or a failure to put back.
    #[inline(always)]
    fn new(world: World, cx: &Context<'_>) -> Machine {
        let b = SPARE.with(|s| s.take()).unwrap_or_else(Buffers::fresh);
        let start = Some(world.clone());
        let mut m = Machine::assemble(world, start, b, cx.limits, cx.fixed.clone());
        m.kept_start = true;
        m
    }

    /// Let bodies run on the fast tier in the transaction starting, which `origin` can
    /// start again, when the context allows it.
    #[inline(always)]
    fn allow_fast(&mut self, cx: &Context<'_>, origin: Origin) {
        self.ran_fast = false;
        self.compare = None;
        self.fast = cx.tier != Tier::Interpreter
            && !cx.trace
            && !cx.stepping
            && self.profile.is_none()
            && !self.world.canvas.active;
        if self.fast {
            self.origin = origin;
        }
    }

    /// A machine on `world`, nothing run yet.
    #[inline(always)]
    fn assemble(
        world: World,
        start: Option<World>,
        b: Buffers,
        limits: Limits,
        fixed: Arc<FixedNames>,
    ) -> Machine {
        #[cfg(feature = "jit")]
        let mut addresses = b.addresses;
        #[cfg(feature = "jit")]
        addresses.serve(&fixed);
        Machine {
            fixed,
            #[cfg(feature = "jit")]
            addresses,
            start,
            undo: Vec::new(),
            start_rng: world.rng,
            trial: false,
            world,
            stack: b.stack,
            frames: b.frames,
            jps: b.jps,
            spares: b.spares,
            befores: Vec::new(),
            checkpoints: Vec::new(),
            meter: Meter::new(limits),
            output: Vec::new(),
            trace: Vec::new(),
            waiting: None,
            paused: false,
            pause_later: false,
            check_at: 0,
            done: None,
            profile: None,
            check_every: CHECK_EVERY,
            trying: Vec::new(),
            fast: false,
            ran_fast: false,
            origin: Origin::Other,
            kept_start: false,
            compare: None,
            fast_nest: 0,
            frameless: 0,
            direct_sender: None,
            #[cfg(feature = "jit")]
            written: Vec::new(),
            floor: 0,
        }
    }

    /// A transaction delivering `msg` to the entity `to` from the user.
    pub fn deliver(world: World, cx: &mut Context<'_>, to: Symbol, msg: Message) -> Machine {
        Machine::deliver_shared(world, cx, to, Rc::new(msg))
    }

    /// [`Machine::deliver`] for a message already shared (a candidate action's): trying a
    /// move neither copies its message nor allocates a new one.
    #[inline(always)]
    pub fn deliver_shared(
        world: World,
        cx: &mut Context<'_>,
        to: Symbol,
        msg: Rc<Message>,
    ) -> Machine {
        let mut m = Machine::new(world, cx);
        m.allow_fast(cx, Origin::Send(to, msg.clone()));
        match m.send_from_outside(cx, to, msg) {
            Ok(_) => {}
            Err(e) => m.done = Some(Status::Failed(e)),
        }
        m
    }

    /// A transaction delivering `msg` from the user straight to entity (or representation)
    /// `id`: a representation's `init`, or the message a click on its graphic notifies.
    pub fn deliver_to(world: World, cx: &mut Context<'_>, id: EntityId, msg: Message) -> Machine {
        let mut m = Machine::new(world, cx);
        if let Err(e) = m.send_to(cx, id, Rc::new(msg), OUTSIDE, Then::Give) {
            m.done = Some(Status::Failed(e));
        }
        m
    }

    /// A transaction running `code` as the user (no entity, no message).
    pub fn eval(world: World, cx: &mut Context<'_>, code: CodeId) -> Machine {
        let mut m = Machine::new(world, cx);
        m.allow_fast(cx, Origin::Eval(code));
        m.push_frame(cx, code, Kind::Top, NO_JP);
        m
    }

    /// A machine running nothing, holding `world`: one to run transactions on that world
    /// in place again and again ([`Machine::restart_deliver`]), keeping its buffers
    /// between them. The world stays in the machine (its `world`), which is where its
    /// owner reads and changes it between transactions: starting or ending one moves no
    /// world.
    pub fn holding(world: World) -> Machine {
        let fixed = Arc::default();
        Machine::assemble(world, None, Buffers::fresh(), Limits::default(), fixed)
    }

    /// Start a transaction delivering `msg` to `to` on this finished (or idle) machine,
    /// on the world it holds. The machine keeps no copy of that world: it writes in place
    /// with an undo log (see [`Machine::start`]), so a write copies no entity that
    /// nothing else holds. A veto or a failure still leaves the world as it was. End the
    /// transaction with [`Machine::settle`]. Inlined into its two callers (a delivery, a
    /// trial): no call and prologue per transaction.
    #[inline(always)]
    pub fn restart_deliver(&mut self, cx: &mut Context<'_>, to: Symbol, msg: Rc<Message>) {
        self.restart(cx);
        if cx.tier != Tier::Interpreter {
            self.allow_fast(cx, Origin::Send(to, msg.clone()));
        }
        match self.send_from_outside_here(cx, to, msg) {
            // The commonest start: nothing to drop.
            Ok(Flow::Enter) => {}
            Ok(other) => drop(other),
            Err(e) => self.done = Some(Status::Failed(e)),
        }
    }

    /// [`Machine::restart_deliver`] running `code` as the user (as [`Machine::eval`]).
    pub fn restart_eval(&mut self, cx: &mut Context<'_>, code: CodeId) {
        self.restart(cx);
        if cx.tier != Tier::Interpreter {
            self.allow_fast(cx, Origin::Eval(code));
        }
        self.push_frame(cx, code, Kind::Top, NO_JP);
    }

    /// Make the machine as new for a transaction on the world it holds. The machine is
    /// idle or was settled ([`Machine::settle`]), which leaves its stacks and log empty
    /// and no start kept: only what a transaction's end does not reset is reset here.
    #[inline(always)]
    fn restart(&mut self, cx: &Context<'_>) {
        debug_assert!(
            self.is_emptied(),
            "a machine restarted before it was settled"
        );
        if self.world.canvas.active {
            self.start = Some(self.world.clone());
        }
        self.kept_start = self.start.is_some();
        self.fast = false;
        self.start_rng = self.world.rng;
        self.trial = false;
        self.meter = Meter::new(cx.limits);
        clear(&mut self.output);
        clear(&mut self.trace);
        self.waiting = None;
        self.paused = false;
        self.pause_later = false;
        self.done = None;
        if let Some(p) = &mut self.profile {
            p.begin();
        }
        if !Arc::ptr_eq(&self.fixed, cx.fixed) {
            self.fixed = cx.fixed.clone();
            #[cfg(feature = "jit")]
            self.addresses.serve(&self.fixed);
        }
    }

    /// End a transaction begun with [`Machine::restart_deliver`] or
    /// [`Machine::restart_eval`] and run to its end: the machine holds the world it
    /// leaves (the world it began with if it still waits for a signal), and nothing else
    /// of the transaction but its output and trace (for the caller to take) and its
    /// emptied buffers.
    pub fn settle(&mut self) {
        if self.waiting.take().is_some() {
            // An abandoned wait: the transaction did not finish, so its stacks are as it
            // left them.
            self.restore_start();
            self.empty();
        }
        self.start = None;
        // A kept trial leaves its log here.
        clear(&mut self.undo);
        // A finished transaction emptied its stacks (`end`).
        debug_assert!(self.is_emptied(), "a machine settled before it finished");
        // A deep transaction does not pin its memory until the next one.
        let_go_if_large(&mut self.stack);
        let_go_if_large(&mut self.frames);
        let_go_if_large(&mut self.jps);
        let_go_if_large(&mut self.undo);
    }

    /// Whether the stacks, the undo log and the checkpoints are empty and no start is
    /// kept, as [`Machine::settle`] leaves them.
    #[inline(always)]
    fn is_emptied(&self) -> bool {
        self.start.is_none()
            && self.undo.is_empty()
            && self.stack.is_empty()
            && self.frames.is_empty()
            && self.jps.is_empty()
            && self.befores.is_empty()
            && self.checkpoints.is_empty()
    }

    /// Empty the stacks, the undo log and the checkpoints.
    #[inline(never)]
    #[cold]
    fn empty(&mut self) {
        #[cfg(feature = "jit")]
        self.written.clear();
        self.undo.clear();
        self.stack.clear();
        self.frames.clear();
        self.jps.clear();
        self.befores.clear();
        self.checkpoints.clear();
    }

    /// The world a finished machine leaves: the one it started from if it still waits for
    /// a signal, else its own (its buffers go to the next machine on this thread).
    #[inline(always)]
    pub fn into_world(mut self) -> World {
        if self.waiting.is_some() {
            self.restore_start();
            self.world
        } else {
            self.recycle_buffers();
            self.world
        }
    }

    /// The world the transaction began from, when the machine kept it (a machine made for
    /// one transaction keeps it; one working in place keeps an undo log instead).
    pub fn take_start(&mut self) -> Option<World> {
        self.start.take()
    }

    /// The signal the transaction waits for, if any.
    pub fn waiting_for(&self) -> Option<Symbol> {
        self.waiting.as_ref().map(|w| w.signal)
    }

    /// What the transaction waits for, if it waits.
    pub fn wait(&self) -> Option<&Rc<Wait>> {
        self.waiting.as_ref()
    }

    /// Answer a pending `(wait signal ...)` with `tag`.
    pub fn signal(&mut self, tag: Value) -> bool {
        if self.waiting.take().is_some() {
            self.stack.push(tag);
            true
        } else {
            false
        }
    }

    /// Instructions executed so far.
    pub fn steps(&self) -> u64 {
        self.meter.steps
    }

    /// Bytes of memory counted so far (see [`super::budget::Meter::alloc`]).
    pub fn memory(&self) -> u64 {
        self.meter.memory
    }

    /// How many checkpoints the transaction has open.
    pub fn open_checkpoints(&self) -> usize {
        self.checkpoints.len()
    }

    /// Run until the transaction ends, a step is taken (when stepping) or a signal is
    /// awaited.
    pub fn run(&mut self, cx: &mut Context<'_>) -> Run {
        if let Some(status) = self.done.take() {
            return self.finish(status);
        }
        if let Some(wait) = &self.waiting {
            return Run::Waiting(wait.clone());
        }
        match self.exec_tiered(cx) {
            Ok(Flow::End(status)) => self.finish(status),
            Ok(Flow::Wait(wait)) => {
                self.waited();
                self.waiting = Some(wait.clone());
                Run::Waiting(wait)
            }
            Ok(_) => Run::Stepped,
            Err(mut e) => {
                self.fail(cx.game, &mut e);
                Run::Finished(Status::Failed(e))
            }
        }
    }

    /// Abandon the transaction, returning the world as it was before it.
    pub fn abort(mut self) -> World {
        self.restore_start();
        self.world
    }

    /// Run to the end without stepping: the transaction's status. A wait for a signal
    /// ends the run as a failure (with no one to answer, a wait cannot be satisfied),
    /// the machine left waiting. As [`Machine::run`] called until it finishes, without
    /// moving the status through [`Run`] at every level.
    pub fn run_out(&mut self, cx: &mut Context<'_>) -> Status {
        // (Only the start of a transaction sets `done`.)
        if self.done.is_some()
            && let Some(status) = self.done.take()
        {
            self.end(Ending::of(&status));
            return status;
        }
        loop {
            if let Some(wait) = &self.waiting {
                return unanswered(wait);
            }
            // The transaction is ended while `exec`'s result stays where `exec` left it
            // (`end` reads only how it ended), then the status moves once, to the
            // caller: it is large to move.
            let mut r = self.exec_tiered(cx);
            match &mut r {
                Ok(Flow::End(status)) => self.end(Ending::of(status)),
                Err(e) => self.fail(cx.game, e),
                Ok(_) => {}
            }
            match r {
                Ok(Flow::End(status)) => return status,
                Err(e) => return Status::Failed(e),
                Ok(Flow::Wait(wait)) => {
                    self.waited();
                    let status = unanswered(&wait);
                    self.waiting = Some(wait);
                    return status;
                }
                Ok(_) => {}
            }
        }
    }

    /// [`Machine::run_out`], a wait met on the way handled as `on_wait` says: the machine
    /// is left waiting only when the wait is not answered.
    #[inline(always)]
    pub fn run_out_answering(&mut self, cx: &mut Context<'_>, on_wait: &mut OnWait<'_>) -> Status {
        let status = self.run_out(cx);
        if self.waiting.is_none() {
            return status;
        }
        self.answer_waits(cx, on_wait, status)
    }

    #[cold]
    #[inline(never)]
    fn answer_waits(
        &mut self,
        cx: &mut Context<'_>,
        on_wait: &mut OnWait<'_>,
        mut status: Status,
    ) -> Status {
        while let Some(wait) = self.waiting.clone() {
            match on_wait {
                OnWait::Fail => break,
                OnWait::Legal => return Status::Committed(Value::Nil),
                OnWait::Answer(answer) => match answer(&wait) {
                    Some(tag) if wait.check(&tag).is_ok() => {
                        self.signal(tag);
                        status = self.run_out(cx);
                    }
                    _ => break,
                },
            }
        }
        status
    }

    /// End the transaction after runtime error `e`, which is first told the calls of
    /// functions it happened inside (see [`Machine::note_calls`]).
    #[cold]
    #[inline(never)]
    fn fail(&mut self, game: &Game, e: &mut RuntimeError) {
        self.note_calls(game, e);
        self.end(Ending::Failed);
    }

    fn finish(&mut self, status: Status) -> Run {
        self.end(Ending::of(&status));
        Run::Finished(status)
    }

    /// The transaction stops at a `wait signal`: the profile tallies it then (it may
    /// never end).
    #[cold]
    #[inline(never)]
    fn waited(&mut self) {
        if let Some(p) = &mut self.profile {
            p.wait(self.meter.steps);
        }
    }

    /// Clean up after a transaction ended as `ending` says: a failure, a veto or a
    /// rollback puts back the start (a kept rollback the checkpoint's world), and the
    /// stacks are emptied.
    fn end(&mut self, ending: Ending) {
        // Every transaction that ends, ends here: the profile tallies it.
        if let Some(p) = &mut self.profile {
            p.finish(self.meter.steps, ending);
        }
        match ending {
            // A trial's caller keeps, logs or undoes what it did.
            Ending::Committed if self.trial => {}
            Ending::Committed => clear(&mut self.undo),
            Ending::RolledBack if !self.trial => clear(&mut self.undo),
            Ending::RolledBack | Ending::Vetoed | Ending::Failed => self.restore_start(),
        }
        self.frames.clear();
        clear(&mut self.jps);
        clear(&mut self.befores);
        clear(&mut self.stack);
        clear(&mut self.checkpoints);
    }

    /// Record step `e` when tracing and pause after it when stepping. Inlined: a
    /// transaction nobody traces or steps neither builds nor drops the event.
    #[inline(always)]
    fn event(&mut self, cx: &Context<'_>, e: TraceEvent) {
        if cx.trace || cx.stepping {
            self.record(cx, e);
        } else if matches!(
            e,
            TraceEvent::Law { .. }
                | TraceEvent::Vetoed { .. }
                | TraceEvent::NoBehaviour { .. }
                | TraceEvent::SideEffect { .. }
                | TraceEvent::StateChange { .. }
                | TraceEvent::Created { .. }
                | TraceEvent::Deleted { .. }
                | TraceEvent::Checkpoint { .. }
        ) {
            // An event of names and numbers, whose kind is known where it is made: let
            // go without a call to the general drop (which the compiler does not see
            // through).
            std::mem::forget(e);
        }
    }

    #[inline(never)]
    fn record(&mut self, cx: &Context<'_>, e: TraceEvent) {
        // What representations do is drawing, not the game: it is not traced or stepped.
        if self
            .jps
            .last()
            .is_some_and(|jp| jp.entity.is_representation())
        {
            return;
        }
        if cx.trace {
            self.trace.push(e);
        }
        if cx.stepping {
            self.paused = true;
        }
    }

    fn push_frame(&mut self, cx: &Context<'_>, code: CodeId, kind: Kind, jp: u32) {
        self.push_frame_here(cx, code, kind, jp)
    }

    /// [`Machine::push_frame`] inlined, for the join point a send starts at its behaviour
    /// (`send_to`): one call less on every such send.
    #[inline(always)]
    fn push_frame_here(&mut self, cx: &Context<'_>, code: CodeId, kind: Kind, jp: u32) {
        let c = cx.game.code(code);
        let base = self.stack.len() as u32;
        push_nils(&mut self.stack, c.locals as usize);
        self.frames.push(Frame {
            code,
            ip: 0,
            base,
            kind,
            jp,
        });
    }

    /// The message of the running body's join point, to write: copied first when
    /// another holds it (a candidate's message, kept in the list of candidates).
    #[inline]
    pub(crate) fn message_to_write(&mut self) -> Option<&mut Message> {
        let f = self.frames.last()?;
        let jp = self.jps.get_mut(f.jp as usize)?;
        Some(Rc::make_mut(&mut jp.msg))
    }

    #[inline]
    fn current_jp(&self) -> Option<&JoinPoint> {
        let f = self.frames.last()?;
        if f.jp == NO_JP {
            None
        } else {
            self.jps.get(f.jp as usize)
        }
    }

    /// Property `name` of the layout of the entity whose code is running, when that is an
    /// entity of the game (not a representation) and its layout has the property.
    #[inline(always)]
    fn own_layout_property(&self, game: &Game, name: Symbol) -> Option<&Value> {
        self.world
            .game_entity(self.own_game_entity()?)?
            .layout_property(game, name)
    }

    /// The entity whose code is running, when that is an entity of the game (not a
    /// representation, which lives in the canvas the undo log does not cover).
    #[inline(always)]
    fn own_game_entity(&self) -> Option<EntityId> {
        let id = self.current_jp()?.entity;
        (!id.is_representation()).then_some(id)
    }

    /// Count where the steps go into `profile` (see [`super::profile`]), checking after
    /// every instruction; `None` stops counting.
    pub(crate) fn set_profile(&mut self, profile: Option<Box<Profile>>) {
        self.check_every = if profile.is_some() { 0 } else { CHECK_EVERY };
        self.profile = profile;
    }

    /// Whether the machine counts where the steps go.
    pub(crate) fn profiling(&self) -> bool {
        self.profile.is_some()
    }

    /// The profile counted into, when profiling.
    pub(crate) fn profile_mut(&mut self) -> Option<&mut Profile> {
        self.profile.as_deref_mut()
    }

    /// The entity whose code is running, if any.
    #[inline]
    fn me(&self) -> Option<(EntityId, Symbol)> {
        self.current_jp().map(|jp| (jp.entity, jp.name))
    }
}
