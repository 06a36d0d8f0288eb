//! A game being played: the compiled game, the current world and what it takes to run
//! transactions on it (parameters, property defaults, the advice-chain cache, limits).
//!
//! This is the embedding API: load a game, start a session, deliver messages, read the
//! world. The CLI and the REPL are built on it.

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::compile::boards::Described;
use crate::compile::bytecode::CodeId;
use crate::compile::program::{Game, InitValue, LateBoard};
use crate::diagnostic::Diagnostic;
use crate::symbol::Symbol;

use super::trace::{RuntimeError, Status, Transaction};
use super::value::{Message, Value};
use super::vm::{ChainCache, Context, Limits, Machine, MoveLog, OnWait, Run, TrialEnd, Wait};
use super::world::{Entity, World, links_dict};

mod candidates;
mod fork;

pub use candidates::{Action, Candidate, CandidateItems, action_name};
pub use fork::Isolated;

/// How to start a session.
#[derive(Clone, Debug, Default)]
pub struct SessionOptions {
    /// Seed of the random generator.
    pub seed: u64,
    /// `--param name=value` overrides.
    pub params: Vec<(String, Value)>,
    /// Transaction limits.
    pub limits: Limits,
    /// Record trace events.
    pub trace: bool,
    /// Which tier runs the transactions (see `vm/fast.rs`).
    pub tier: super::vm::Tier,
}

/// Why a session could not start.
#[derive(Debug)]
pub enum StartError {
    /// A `--param` names no `#param`.
    UnknownParam(String),
    /// A default, an instance property or `#setup` failed.
    Failed(RuntimeError),
    /// `#setup` was vetoed or rolled back.
    Refused(String),
}

impl StartError {
    /// The error as a diagnostic, where it has a place in the sources.
    pub fn diagnostic(&self) -> Option<Diagnostic> {
        match self {
            StartError::Failed(e) => e.to_diagnostic(),
            _ => None,
        }
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::UnknownParam(p) => write!(f, "the game has no parameter `{p}`"),
            StartError::Failed(e) => write!(f, "the game failed to start: {}", e.message),
            StartError::Refused(s) => write!(f, "#setup did not commit: {s}"),
        }
    }
}

/// A running game.
pub struct Session {
    /// The compiled game.
    pub game: Arc<Game>,
    params: FxHashMap<Symbol, Value>,
    defaults: Vec<Vec<Value>>,
    cache: ChainCache,
    /// Transaction limits.
    pub limits: Limits,
    /// Record trace events in each transaction.
    pub trace: bool,
    /// Which tier runs the transactions.
    pub tier: super::vm::Tier,
    /// The game's bodies built for the fast tier (when first needed, and again when the
    /// game has more code: the game's own, shared by its sessions and their forks).
    fast: Arc<super::vm::FastTable>,
    /// Set (from a signal handler) to interrupt the running transaction.
    pub interrupt: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Ids of the entities made at start, by name (they never change).
    fixed: Arc<super::world::FixedNames>,
    /// The machine that holds the current world ([`Session::world`]) and runs the
    /// transactions made on it in place ([`Session::deliver`], [`Session::eval`], moves
    /// tried in place), keeping its buffers from one to the next. The world stays in it:
    /// starting or ending a transaction moves no world.
    home: Box<Machine>,
    /// The message [`Session::deliver`] delivered last, to reuse its allocation.
    kept_message: Option<Rc<Message>>,
    /// The lists `#actions` gave lately, found to hold only candidates.
    checked: candidates::CheckedLists,
    /// Whether starting (parameters, defaults, instances, `#setup`) drew a number from the
    /// world's generator: when it did not, the start is the same from every seed.
    start_drew: bool,
}

impl Session {
    /// Start `game`: parameters, property defaults, instances and board cells, then
    /// `#setup` as one transaction. Returns the session and the setup transaction.
    pub fn start(
        game: Arc<Game>,
        options: &SessionOptions,
    ) -> Result<(Session, Option<Transaction>), StartError> {
        let mut s = Session {
            home: Box::new(Machine::holding(World::new(&game, options.seed))),
            game: game.clone(),
            params: FxHashMap::default(),
            defaults: Vec::new(),
            cache: ChainCache::default(),
            limits: options.limits,
            trace: options.trace,
            tier: options.tier,
            fast: Arc::default(),
            interrupt: None,
            fixed: Arc::default(),
            kept_message: None,
            checked: Default::default(),
            start_drew: false,
        };
        let seeded = s.world().rng;
        for (name, value) in &options.params {
            if !game.params.iter().any(|p| p.name.as_str() == name) {
                return Err(StartError::UnknownParam(name.clone()));
            }
            s.params.insert(Symbol::intern(name), value.clone());
        }
        for p in &game.params {
            if !s.params.contains_key(&p.name) {
                let v = s.value(p.default)?;
                s.params.insert(p.name, v);
            }
        }
        let game = if game.late_boards.is_empty() {
            game
        } else {
            let built = s.game_with_late_boards()?;
            s.game = built.clone();
            built
        };
        for ty in &game.types {
            let mut values = Vec::with_capacity(ty.properties.len());
            for (_, code) in &ty.properties {
                values.push(s.value(*code)?);
            }
            s.defaults.push(values);
        }
        for inst in &game.instances {
            let mut entity = Entity {
                name: inst.name,
                ty: inst.ty,
                state: Symbol::intern("default"),
                props: s.defaults[inst.ty.0 as usize].as_slice().into(),
                extra: Default::default(),
            };
            for (name, init) in &inst.properties {
                let v = match init {
                    InitValue::Code(c) => s.value(*c)?,
                    InitValue::Str(x) => Value::sym(*x),
                    InitValue::Int(i) => Value::Int(*i),
                    InitValue::Links(l) => links_dict(l),
                    InitValue::Ints(v) => Value::list(v.iter().map(|&i| Value::Int(i)).collect()),
                    InitValue::Turns(t) => Value::dict(
                        t.iter()
                            .map(|(d, moved)| (super::value::Key::sym(*d), links_dict(moved)))
                            .collect(),
                    ),
                };
                match entity.property_mut(&game, *name) {
                    Some(slot) => *slot = v,
                    None => {
                        entity.extra.insert(super::value::Key::sym(*name), v);
                    }
                }
            }
            s.world_mut().add(entity);
        }
        s.fixed = Arc::new(s.world().iter().map(|(id, e)| (e.name, id)).collect());
        let mut setup = None;
        for code in &game.setup {
            let tx = s.run_kept(Start::Eval(*code));
            match &tx.status {
                Status::Committed(_) => {}
                Status::Failed(e) => return Err(StartError::Failed(e.clone())),
                other => return Err(StartError::Refused(other.summary())),
            }
            setup = Some(tx);
        }
        if game.no_legal_move_call.is_some() {
            let before = s.world().clone();
            let mut tx = setup.take().unwrap_or(Transaction {
                status: Status::Committed(Value::Nil),
                output: Vec::new(),
                trace: Vec::new(),
                steps: 0,
            });
            s.follow_no_legal_move(&mut tx, &before);
            if let Status::Failed(e) = &tx.status {
                return Err(StartError::Failed(e.clone()));
            }
            setup = Some(tx);
        }
        s.start_drew = s.world().rng != seeded;
        Ok((s, setup))
    }

    /// The bodies built for the fast tier that this session runs (none yet before its
    /// first transaction on that tier): its game's, shared with the game's other
    /// sessions.
    pub fn fast_table(&self) -> &Arc<super::vm::FastTable> {
        &self.fast
    }

    /// Whether the session's start drew a number from the world's generator (parameters,
    /// defaults, instances, `#setup`): when it did not, the start cannot depend on the
    /// seed, which reaches the world only through its generator.
    pub fn start_drew(&self) -> bool {
        self.start_drew
    }

    /// The game with its boards computed at start built: each description evaluated (the
    /// parameters are known) and checked, then the game made for those descriptions, or
    /// the one made before for the same ones, which the game keeps
    /// ([`LateGames`](crate::compile::program::LateGames)) so that its sessions on the
    /// same boards share one game, and with it the code compiled for it.
    fn game_with_late_boards(&mut self) -> Result<Arc<Game>, StartError> {
        let game = Arc::clone(&self.game);
        let mut values = Vec::with_capacity(game.late_boards.len());
        let mut key = String::new();
        for late in &game.late_boards {
            let value = self.value(late.value)?;
            match describe(&value, late.ring.is_some()) {
                Ok(Described::Text(text)) => key.push_str(&format!("t{}:{text}", text.len())),
                Ok(Described::Size(n)) => key.push_str(&format!("n{n};")),
                Err((message, hint)) => return Err(late_failure(late, message, hint)),
            }
            values.push(value);
        }
        if let Some(made) = game.late_games.get(&key) {
            return Ok(made);
        }
        let made = Arc::new(build_late_boards(&game, &values)?);
        game.late_games.keep(key, &made);
        Ok(made)
    }

    /// Evaluate a value-context body (a default, an instance property) on a scratch world.
    fn value(&mut self, code: CodeId) -> Result<Value, StartError> {
        let tx = self
            .run_on(self.world().clone(), Start::Eval(code), false, false)
            .0;
        match tx.status {
            Status::Committed(v) => Ok(v),
            Status::Failed(e) => Err(StartError::Failed(e)),
            other => Err(StartError::Refused(other.summary())),
        }
    }

    /// The value of parameter `name`.
    pub fn param(&self, name: Symbol) -> Option<&Value> {
        self.params.get(&name)
    }

    /// The current world.
    #[inline]
    pub fn world(&self) -> &World {
        &self.home.world
    }

    /// The current world, to change it (a transaction's change belongs in a transaction;
    /// this is for setting up, loading and undoing).
    #[inline]
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.home.world
    }

    /// Replace the current world with `world`; returns the one it replaces.
    pub fn replace_world(&mut self, world: World) -> World {
        std::mem::replace(&mut self.home.world, world)
    }

    fn context(&mut self) -> Context<'_> {
        self.home_and_context().1
    }

    /// The machine holding the session's world, and a context for a transaction on it.
    fn home_and_context(&mut self) -> (&mut Machine, Context<'_>) {
        if self.tier != super::vm::Tier::Interpreter && !self.fast.covers(&self.game) {
            self.fast = super::vm::FastTable::of(&self.game);
        }
        let cx = Context {
            game: &self.game,
            params: &self.params,
            defaults: &self.defaults,
            cache: &mut self.cache,
            limits: self.limits,
            trace: self.trace,
            stepping: false,
            interrupt: self.interrupt.as_deref(),
            fixed: &self.fixed,
            tier: self.tier,
            fast: &self.fast,
        };
        (&mut self.home, cx)
    }

    /// Run a transaction on `world` to its end; returns it and the resulting world.
    /// A wait counts as legal when `wait_legal` is set (see [`OnWait::Legal`]).
    fn run_on(
        &mut self,
        world: World,
        start: Start,
        trace: bool,
        wait_legal: bool,
    ) -> (Transaction, World) {
        let mut cx = self.context();
        cx.trace = trace;
        let mut m = start.machine(world, &mut cx);
        let mut on_wait = if wait_legal {
            OnWait::Legal
        } else {
            OnWait::Fail
        };
        let status = m.run_out_answering(&mut cx, &mut on_wait);
        let output = std::mem::take(&mut m.output);
        let trace = std::mem::take(&mut m.trace);
        let steps = m.steps();
        (
            Transaction {
                status,
                output,
                trace,
                steps,
            },
            m.into_world(),
        )
    }

    /// Run an untraced transaction on `world` to its end: its status and the world it
    /// leaves. The machine stays in this frame (it is large: moving it costs more than
    /// a short transaction's work).
    fn run_quiet(&mut self, world: World, start: Start) -> (Status, World) {
        let mut cx = self.context();
        cx.trace = false;
        let mut m = start.machine(world, &mut cx);
        let status = m.run_out(&mut cx);
        (status, m.into_world())
    }

    /// Start delivering `msg` to `to` without running it: drive it with [`Session::resume`]
    /// (stepping, signals) and end it with [`Session::conclude`].
    pub fn begin_deliver(&mut self, to: Symbol, msg: Message, stepping: bool) -> Machine {
        let world = self.world().clone();
        let mut cx = self.context();
        cx.trace = true;
        cx.stepping = stepping;
        Machine::deliver(world, &mut cx, to, msg)
    }

    /// Start delivering `msg` straight to entity (or representation) `id`.
    pub(super) fn begin_to(&mut self, id: super::world::EntityId, msg: Message) -> Machine {
        let world = self.world().clone();
        let mut cx = self.context();
        cx.trace = true;
        Machine::deliver_to(world, &mut cx, id, msg)
    }

    /// The default property values of type `ty`.
    pub(super) fn defaults(&self, ty: crate::compile::program::TypeId) -> Vec<Value> {
        self.defaults
            .get(ty.0 as usize)
            .cloned()
            .unwrap_or_default()
    }

    /// Start running `code` as the user without running it (see [`Session::begin_deliver`]).
    pub fn begin_eval(&mut self, code: CodeId) -> Machine {
        let world = self.world().clone();
        let mut cx = self.context();
        Machine::eval(world, &mut cx, code)
    }

    /// Run `m` until it ends, takes a step (when `stepping`) or waits for a signal.
    pub fn resume(&mut self, m: &mut Machine, stepping: bool) -> Run {
        let mut cx = self.context();
        cx.trace = true;
        cx.stepping = stepping;
        m.run(&mut cx)
    }

    /// A finished machine's transaction; its world becomes the session's.
    pub fn conclude(&mut self, mut m: Machine, status: Status) -> Transaction {
        let output = std::mem::take(&mut m.output);
        let trace = std::mem::take(&mut m.trace);
        let steps = m.steps();
        self.home.world = m.world;
        Transaction {
            status,
            output,
            trace,
            steps,
        }
    }

    /// [`Session::conclude`] a transaction that may have left the game without a legal
    /// move (a move, a message, a click, an expression typed): then the game's
    /// `no-legal-move` runs as part of it ([`Session::follow_no_legal_move`]).
    pub fn conclude_move(&mut self, mut m: Machine, status: Status) -> Transaction {
        let before = m.take_start();
        let mut tx = self.conclude(m, status);
        if let Some(before) = before {
            self.follow_no_legal_move(&mut tx, &before);
        }
        tx
    }

    /// Add a compiled body to the game (code typed while it runs).
    pub fn game_mut(&mut self) -> &mut Game {
        Arc::make_mut(&mut self.game)
    }

    /// Deliver `msg` to the entity named `to`, as one transaction, and keep its result.
    ///
    /// The transaction runs on the session's world where it is, in the machine that holds
    /// it: its writes change entities that nothing else holds in place, with an undo log
    /// for a veto or a failure, instead of copying them because a snapshot shares them. Copies of the world kept elsewhere (undo history, checkpoints) still share
    /// it, and a write copies what they share, as always.
    pub fn deliver(&mut self, to: Symbol, msg: Message) -> Transaction {
        // The last message delivered is kept: when nothing took it (into a property, a
        // list), this one goes in its place instead of a new allocation.
        if self.game.no_legal_move_call.is_some() {
            return self.run_following(Start::Deliver(to, Rc::new(msg)));
        }
        // Dropped by hand: a message with no attributes held inline has nothing to drop,
        // and its label is all that is used of it (no call to drop the attributes).
        let msg = std::mem::ManuallyDrop::new(msg);
        if let Some(kept) = &mut self.kept_message
            && let Some(slot) = Rc::get_mut(kept)
        {
            // The commonest message has no attributes: when neither has any, the label is
            // all there is to replace (no copy of the inline attribute space).
            if slot.attrs.is_empty() && msg.attrs.is_empty() {
                slot.label = msg.label;
                if msg.attrs.spilled() {
                    drop(std::mem::ManuallyDrop::into_inner(msg));
                }
            } else {
                *slot = std::mem::ManuallyDrop::into_inner(msg);
            }
            let msg = kept.clone();
            return self.run_kept(Start::Deliver(to, msg));
        }
        let msg = Rc::new(std::mem::ManuallyDrop::into_inner(msg));
        self.kept_message = Some(msg.clone());
        self.run_kept(Start::Deliver(to, msg))
    }

    /// Run `code` as the user, as one transaction, and keep its result (the transaction
    /// owns the world while it runs, as in [`Session::deliver`]).
    pub fn eval(&mut self, code: CodeId) -> Transaction {
        if self.game.no_legal_move_call.is_some() {
            return self.run_following(Start::Eval(code));
        }
        self.run_kept(Start::Eval(code))
    }

    /// [`Session::run_kept`], then the game's `no-legal-move` when the transaction left
    /// no legal move ([`Session::follow_no_legal_move`]).
    fn run_following(&mut self, start: Start) -> Transaction {
        let before = self.world().clone();
        let mut tx = self.run_kept(start);
        self.follow_no_legal_move(&mut tx, &before);
        tx
    }

    /// Run a transaction on the session's world to its end on the machine holding it,
    /// in place; the world it leaves is the session's.
    #[inline(always)]
    pub(super) fn run_kept(&mut self, start: Start) -> Transaction {
        let (m, mut cx) = self.home_and_context();
        match start {
            Start::Deliver(to, msg) => m.restart_deliver(&mut cx, to, msg),
            Start::Eval(code) => m.restart_eval(&mut cx, code),
        }
        // Built in place, the status included: the transaction is large to move.
        Transaction {
            status: {
                let status = m.run_out(&mut cx);
                m.settle();
                status
            },
            output: std::mem::take(&mut m.output),
            trace: std::mem::take(&mut m.trace),
            steps: m.steps(),
        }
    }

    /// Deliver `msg` to `to` on a copy of the world: the transaction and the world it
    /// would leave; the session is unchanged. A move that waits for a signal counts as
    /// committed there (it is legal; its answers come later), leaving the world as it is.
    pub fn try_deliver(&mut self, to: Symbol, msg: Message) -> (Transaction, World) {
        self.run_on(
            self.unwatched(),
            Start::Deliver(to, Rc::new(msg)),
            false,
            true,
        )
    }

    /// Deliver `msg` to `to` as one transaction, answering the signals it waits for with
    /// `answers`, in order, and keep its result. When it waits once they are used up (or
    /// one is refused), the world is as it was and the wait is given with the transaction
    /// (whose status is the failure of a wait with no one to answer): the move is still
    /// to be answered, and delivering it again with more answers replays it from here.
    pub fn deliver_answering(
        &mut self,
        to: Symbol,
        msg: Rc<Message>,
        answers: &[Value],
    ) -> (Transaction, Option<Rc<Wait>>) {
        let before = self.world().clone();
        let mut given = answers.iter();
        let mut script = |_: &Wait| given.next().cloned();
        let mut on_wait = OnWait::Answer(&mut script);
        let (m, mut cx) = self.home_and_context();
        m.restart_deliver(&mut cx, to, msg);
        let status = m.run_out_answering(&mut cx, &mut on_wait);
        let wait = m.wait().cloned();
        m.settle();
        let mut tx = Transaction {
            status,
            output: std::mem::take(&mut m.output),
            trace: std::mem::take(&mut m.trace),
            steps: m.steps(),
        };
        if wait.is_none() {
            self.follow_no_legal_move(&mut tx, &before);
        }
        (tx, wait)
    }

    /// [`Session::try_deliver`] traced: the transaction with its steps (the world it
    /// would leave is let go).
    pub fn try_deliver_traced(&mut self, to: Symbol, msg: Message) -> Transaction {
        self.run_on(
            self.unwatched(),
            Start::Deliver(to, Rc::new(msg)),
            true,
            true,
        )
        .0
    }

    /// Try `candidate` on a copy of the world: how its transaction ended and the world it
    /// leaves (the world as it is unless it committed or rolled back). Neither the message
    /// nor the output is copied, and no transaction record is made; the session is
    /// unchanged. Move lists, playouts and perft try moves in place instead
    /// ([`Session::make`]), which costs no copy of what a move changes.
    pub fn trial(&mut self, candidate: &Candidate) -> (Status, World) {
        let start = Start::Deliver(candidate.recipient, candidate.message.clone());
        self.run_quiet(self.unwatched(), start)
    }

    /// Make `candidate`'s move in place on the session's world (copying nothing the
    /// world does not share): how its transaction ended. When it committed, the world is
    /// the one the move leaves and `log` holds what undoes it ([`Session::unmake`]);
    /// otherwise (vetoed, failed, rolled back) the world is exactly as it was. The
    /// status and the world are those of [`Session::trial`]: the move is made untraced
    /// on the world without its canvas (trying moves does not draw), which unmaking it
    /// puts back.
    pub fn make(&mut self, candidate: &Candidate, log: &mut MoveLog) -> Status {
        let canvas = self.unwatch();
        let status = self.make_unwatched(candidate, log);
        if let Some(canvas) = canvas {
            if status.committed() {
                log.keep_canvas(canvas);
            } else {
                self.world_mut().canvas = canvas;
            }
        }
        status
    }

    /// Undo the last move [`Session::make`] made with `log`: the world is exactly as it
    /// was before it. False when `log` holds no move.
    pub fn unmake(&mut self, log: &mut MoveLog) -> bool {
        log.unmake(self.world_mut())
    }

    /// [`Session::make`] on a world without an active canvas ([`Session::unwatch`]): the
    /// canvas is neither taken off nor kept in `log`. How perft makes its moves.
    pub fn make_unwatched(&mut self, candidate: &Candidate, log: &mut MoveLog) -> Status {
        let start = Start::Deliver(candidate.recipient, candidate.message.clone());
        self.trial_in_place(start, TrialEnd::Log(log), OnWait::Fail)
    }

    /// Whether `candidate`'s move would commit now, tried in place and undone: a move that
    /// waits for a signal counts as legal (its answers come later). The world is unchanged.
    pub fn test_in_place(&mut self, candidate: &Candidate) -> Status {
        let start = Start::Deliver(candidate.recipient, candidate.message.clone());
        self.trial_in_place(start, TrialEnd::Undo, OnWait::Legal)
    }

    /// Play `candidate`'s move in place on the session's world, which has no active
    /// canvas ([`Session::unwatch`]), untraced: how its transaction ended. A move that
    /// commits is kept; one that does not (vetoed, failed, rolled back) leaves the world
    /// exactly as it was. How playouts and searches play their moves.
    #[inline]
    pub fn play_in_place(&mut self, candidate: Candidate) -> Status {
        let start = Start::Deliver(candidate.recipient, candidate.message);
        self.trial_in_place(start, TrialEnd::Keep, OnWait::Fail)
    }

    /// [`Session::play_in_place`], the signals the move waits for answered by `answer`
    /// (`None`: not answered, and the move fails).
    pub fn play_in_place_answering(
        &mut self,
        candidate: Candidate,
        answer: &mut dyn FnMut(&Wait) -> Option<Value>,
    ) -> Status {
        let start = Start::Deliver(candidate.recipient, candidate.message);
        self.trial_in_place(start, TrialEnd::Keep, OnWait::Answer(answer))
    }

    /// Run `code` (a call of one of the game's functions, made by
    /// [`crate::compile::codegen::compile_call`]) in place on the session's world (on a
    /// copy without the canvas when the world is watched: see [`Session::unwatch`]),
    /// untraced, and undo whatever it changed: how it ended (with its value, when it
    /// committed). How a game's `to-move` and `evaluate` are asked.
    #[inline]
    pub fn eval_in_place(&mut self, code: CodeId) -> Status {
        // On a watched world, on a copy without the canvas.
        if self.world().canvas.active {
            return self.run_quiet(self.unwatched(), Start::Eval(code)).0;
        }
        self.trial_in_place(Start::Eval(code), TrialEnd::Undo, OnWait::Fail)
    }

    /// [`Session::eval_in_place`] keeping what `code` changed when it commits: how a search
    /// remakes, on its copy of the world, what its player cannot see (the code runs as
    /// the user, who may update any entity's properties).
    #[inline]
    pub fn eval_kept_in_place(&mut self, code: CodeId) -> Status {
        self.trial_in_place(Start::Eval(code), TrialEnd::Keep, OnWait::Fail)
    }

    /// Try a move in place on the session's world, which is not watched, on the machine
    /// holding it (see `vm/undo.rs`): its status. A move that does not commit leaves the
    /// world as it was; one that commits is kept, undone or logged as `then` says.
    pub(super) fn trial_in_place(
        &mut self,
        start: Start,
        then: TrialEnd<'_>,
        mut on_wait: OnWait<'_>,
    ) -> Status {
        let (m, mut cx) = self.home_and_context();
        debug_assert!(
            !m.world.canvas.active,
            "a trial in place on a watched world"
        );
        cx.trace = false;
        match start {
            Start::Deliver(to, msg) => m.restart_trial(&mut cx, to, msg),
            Start::Eval(code) => m.restart_trial_eval(&mut cx, code),
        }
        let status = m.run_out_answering(&mut cx, &mut on_wait);
        m.end_trial(status.committed(), then);
        status
    }

    /// Take the canvas off the session's world if it is watched: trying moves does not
    /// draw. The canvas taken, if any (put it back in [`World::canvas`] to watch again).
    pub fn unwatch(&mut self) -> Option<Rc<super::canvas::Canvas>> {
        let world = self.world_mut();
        world
            .canvas
            .active
            .then(|| std::mem::take(&mut world.canvas))
    }

    /// The world without its canvas: trying moves (legal-move lists, playouts, perft) does
    /// not draw.
    fn unwatched(&self) -> World {
        let mut world = self.world().clone();
        if world.canvas.active {
            world.canvas = Rc::default();
        }
        world
    }

    /// The candidate actions `#actions` gives now (empty when the game has none).
    pub fn candidates(&mut self) -> Result<Vec<Action>, RuntimeError> {
        Ok(self
            .candidate_list()?
            .into_iter()
            .map(Candidate::into_action)
            .collect())
    }

    /// [`Session::candidates`] without their names.
    pub fn candidate_list(&mut self) -> Result<Vec<Candidate>, RuntimeError> {
        Ok(self.candidate_items()?.to_vec())
    }

    /// The list `#actions` gives now, checked to hold only `(list <recipient> <message>)`
    /// items, each read as a [`Candidate`] only when asked for ([`CandidateItems::get`]):
    /// a playout tries one or two of a position's candidates, and makes no more.
    pub fn candidate_items(&mut self) -> Result<CandidateItems, RuntimeError> {
        let Some(code) = self.game.actions else {
            return Ok(CandidateItems::default());
        };
        // `#actions` runs in place and what it changed, if anything, is undone (on a
        // watched world, on a copy without the canvas).
        let value = match self.eval_in_place(code) {
            Status::Committed(v) => v,
            Status::Failed(e) => return Err(e),
            other => {
                return Err(RuntimeError {
                    message: format!("#actions did not commit: {}", other.summary()),
                    hint: None,
                    span: Some(self.game.code(code).span),
                    chain: Vec::new(),
                    calls: None,
                });
            }
        };
        let bad = |what: String| RuntimeError {
            message: what,
            hint: Some("#actions must give a list of (list <recipient> <message>)".into()),
            span: Some(self.game.code(code).span),
            chain: Vec::new(),
            calls: None,
        };
        let items = match value {
            Value::List(l) => l,
            Value::Nil => return Ok(CandidateItems::default()),
            other => return Err(bad(format!("#actions gave {} {other}", other.type_name()))),
        };
        if !self.checked.has(&items) {
            for chunk in items.chunks() {
                for item in chunk {
                    super::value::check_action(item).map_err(bad)?;
                }
            }
            self.checked.keep(&items);
        }
        Ok(CandidateItems { items: Some(items) })
    }

    /// The actions that would commit now, in the order `#actions` gives them. A candidate
    /// that fails with a runtime error is an error here, not an illegal action
    /// ([`Session::try_candidates`] keeps both).
    pub fn legal_actions(&mut self) -> Result<Vec<Action>, RuntimeError> {
        let tried = self.try_moves()?;
        if let Some((a, e)) = tried.failed.into_iter().next() {
            let mut e = e;
            e.message = format!("trying `{}`: {}", a.name, e.message);
            return Err(e);
        }
        Ok(tried.legal)
    }

    /// Count from now on where the steps of the transactions run on the session's world
    /// go, by body (see [`super::profile`]); `false` stops counting and forgets the
    /// counts. Profiling checks after every instruction: transactions run several times
    /// slower, and count the same steps.
    pub fn set_profiling(&mut self, on: bool) {
        self.home.set_profile(on.then(Box::default));
    }

    /// Whether the session counts steps by body ([`Session::set_profiling`]).
    pub fn profiling(&self) -> bool {
        self.home.profiling()
    }

    /// The steps counted by body since profiling began or the last take (`None` when not
    /// profiling); counting goes on from zero.
    pub fn take_profile(&mut self) -> Option<super::profile::Profile> {
        self.home.profile_mut().map(std::mem::take)
    }

    /// Add `other`'s counts to the session's profile, if it profiles (what a thread
    /// counted on a fork).
    pub fn merge_profile(&mut self, other: &super::profile::Profile) {
        if let Some(p) = self.home.profile_mut() {
            p.merge(other);
        }
    }

    /// The outcome recorded by `(finish with ...)`, if any.
    pub fn outcome(&self) -> Option<&super::value::Dict> {
        self.world().outcome.as_ref()
    }
}

pub(super) enum Start {
    Deliver(Symbol, Rc<Message>),
    Eval(CodeId),
}

impl Start {
    /// The machine of a transaction starting this way on `world`.
    #[inline(always)]
    fn machine(self, world: World, cx: &mut Context<'_>) -> Machine {
        match self {
            Start::Deliver(to, msg) => Machine::deliver_shared(world, cx, to, msg),
            Start::Eval(code) => Machine::eval(world, cx, code),
        }
    }
}

/// How a board computed at start is described by the value its description gave: a
/// ring's size, or an identification string or board file's text; otherwise what is
/// wrong and a hint.
fn describe(value: &Value, ring: bool) -> Result<Described<'_>, (String, Option<String>)> {
    match (value, ring) {
        (Value::Str(text), false) => Ok(Described::Text(text.as_str())),
        (Value::Int(n), true) => Ok(Described::Size(*n)),
        (Value::Nil, false) => Err((
            "the board's description is nil: nothing says which board to play on".into(),
            Some("a board computed from a parameter needs it: --param <name>=<identification or file.xml> (the game's #param says which)".into()),
        )),
        (other, false) => Err((
            format!(
                "the board's description is {} `{other}`, not an identification string",
                other.type_name()
            ),
            Some("compute a string such as \"9x9\": (str (param \"size\") \"x\" (param \"size\"))".into()),
        )),
        (other, true) => Err((
            format!("the ring's size is {} `{other}`, not an integer", other.type_name()),
            None,
        )),
    }
}

/// The start's failure at the board computed at start `late`.
fn late_failure(late: &LateBoard, message: String, hint: Option<String>) -> StartError {
    StartError::Failed(RuntimeError {
        message,
        hint,
        span: Some(late.span),
        chain: Vec::new(),
        calls: None,
    })
}

/// `game` with its boards computed at start built from their descriptions' `values`
/// (checked): each board made, its cells put after the entities made at compile time (so
/// the ids of those do not depend on the parameters); an `#instance` naming a cell of
/// the same type configures it.
fn build_late_boards(game: &Game, values: &[Value]) -> Result<Game, StartError> {
    use crate::compile::boards::{build_late, cell_instances};
    let mut game = game.clone();
    let lates = std::mem::take(&mut game.late_boards);
    for (late, value) in lates.iter().zip(values) {
        let fail = |message: String, hint: Option<String>| late_failure(late, message, hint);
        let described = describe(value, late.ring.is_some()).map_err(|(m, h)| fail(m, h))?;
        let board =
            build_late(late, described, &game.board_files).map_err(|e| fail(e.message, e.hint))?;
        let index = game.boards.len() as u32;
        let mut cells = cell_instances(&board, late.ty, late.ring.is_some(), late.span);
        for (c, inst) in board.cells().zip(&cells) {
            if game.cells.insert(inst.name, (index, c)).is_some() {
                return Err(fail(
                    format!("the cell `{}` is made by two boards", inst.name),
                    Some("give the cells of each board different names".into()),
                ));
            }
        }
        // `#instance`s naming these cells configure them.
        let names: rustc_hash::FxHashMap<Symbol, usize> =
            cells.iter().enumerate().map(|(i, c)| (c.name, i)).collect();
        let mut kept = Vec::with_capacity(game.instances.len());
        for inst in std::mem::take(&mut game.instances) {
            match names.get(&inst.name) {
                Some(&i) if inst.ty == late.ty => cells[i].properties.extend(inst.properties),
                Some(_) => {
                    return Err(fail(
                        format!(
                            "`{}` is a cell of this board and an instance of another type",
                            inst.name
                        ),
                        Some("rename the instance".into()),
                    ));
                }
                None => kept.push(inst),
            }
        }
        game.instances = kept;
        game.instances.extend(cells);
        game.boards.push(board);
    }
    Ok(game)
}
