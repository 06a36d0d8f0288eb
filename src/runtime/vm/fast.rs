//! The fast tier (see `docs/machine.md`): bodies compiled a second time, from the checked
//! AST, into trees of Rust closures that return their values directly, with no operand
//! stack, no dispatch and no frame per call. `fast_build.rs` builds them; this file is
//! what they run on ([`Fx`]), how the instruction loop hands a body to them, and how a
//! transaction is run again on the interpreter when they give up.
//!
//! The contract: a body run fast counts the same steps and memory, and changes the world
//! and the output exactly as the interpreter would, or it *gives up* ([`Exit::GiveUp`]):
//! on any error, on reaching a step check that would fail (the budget, an interrupt), on
//! a form that would enter a join point, end the transaction or wait, or deeper than
//! [`FAST_DEPTH`] calls. Giving up undoes the whole transaction and runs it again from
//! its start with the fast tier off ([`Machine::replay`]), so every error, limit and wait
//! is reported by the interpreter, at its place, with its chain.

use std::sync::Arc;

use crate::compile::bytecode::CodeId;
use crate::compile::program::Game;
use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::budget::{ELEMENT_BYTES, Meter};
use super::super::builtins::PureFn;
use super::super::trace::{Output, RuntimeError, Status};
use super::super::value::attrs::ORDER_UP_TO;
use super::super::value::{DepthJournal, Key, List, Value};
use super::sends::{NextBody, Phase, next_advice};
use super::stack::{overwrite, push_nils_apart, renew_locals, reserve_room, truncate_releasing};
use super::steps::next_check;
use super::{Context, Flow, Frame, Kind, Machine, NO_JP};

/// Which tier runs a session's transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The interpreter alone (the default in a build without machine code: there the
    /// fast tier is not faster; see `docs/performance.md`, "The fast tier with sends").
    Interpreter,
    /// The fast tier where it applies, the interpreter for the rest and for every
    /// transaction the fast tier gives up on (the default in a build with machine code,
    /// the `jit` feature, on by default).
    Fast,
    /// Every transaction the fast tier took part in is run again on the interpreter
    /// alone, and the two must agree on the status, the world, the steps, the memory and
    /// the output: the process stops at the first difference, showing both.
    Both,
}

impl Default for Tier {
    /// The fast tier where its bodies are compiled to machine code, the interpreter where
    /// they are not.
    fn default() -> Tier {
        if cfg!(feature = "jit") {
            Tier::Fast
        } else {
            Tier::Interpreter
        }
    }
}

impl Tier {
    /// The name [`Tier::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Interpreter => "interpreter",
            Tier::Fast => "fast",
            Tier::Both => "both",
        }
    }

    /// The tier named `text` (`interpreter`, `fast`, `both`).
    pub fn parse(text: &str) -> Result<Tier, String> {
        match text {
            "interpreter" => Ok(Tier::Interpreter),
            "fast" => Ok(Tier::Fast),
            "both" => Ok(Tier::Both),
            other => Err(format!(
                "unknown tier `{other}`: the tiers are interpreter, fast and both"
            )),
        }
    }
}

thread_local! {
    /// Bodies the instruction loop handed to the fast tier, and transactions run again on
    /// the interpreter after it gave up, on this thread ([`tier_counts`]).
    static COUNTS: std::cell::Cell<TierCounts> = const { std::cell::Cell::new(TierCounts { bodies: 0, replays: 0 }) };
}

/// What the fast tier did on this thread since it started ([`tier_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierCounts {
    /// Bodies the instruction loop handed to the fast tier (functions called from them
    /// not counted).
    pub bodies: u64,
    /// Transactions run again on the interpreter because the fast tier gave up.
    pub replays: u64,
}

/// What the fast tier did on this thread since it started.
pub fn tier_counts() -> TierCounts {
    COUNTS.with(|c| c.get())
}

fn count(f: impl FnOnce(&mut TierCounts)) {
    COUNTS.with(|c| {
        let mut n = c.get();
        f(&mut n);
        c.set(n);
    });
}

/// How many calls of functions the fast tier nests (as Rust calls) before it gives up,
/// leaving deeper recursion to the interpreter, whose frames are on the heap.
pub const FAST_DEPTH: usize = 200;

/// How a fast body left, other than with its value. (No value in it: a [`Done`] is then
/// the size of a value, returned in registers.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// `(return v)`, the value in [`Fx::returned`].
    Return,
    /// The fast tier gives up on the transaction.
    GiveUp,
    /// The transaction ended (a rollback, a veto of its outermost join point), the
    /// status in [`Fx::ended`].
    End,
}

/// A transaction's outermost join point run another way than by the instruction loop
/// (with the `jit` feature, its chain's machine code run directly: `jit::outermost`):
/// how the transaction ended, or `None`, with nothing changed, when it is not run so.
#[derive(Clone)]
pub(super) struct Outermost(pub(super) Arc<RunOutermost>);

/// What [`Outermost`] runs.
type RunOutermost =
    dyn Fn(&mut Machine, &mut Context<'_>) -> Option<Result<Flow, RuntimeError>> + Send + Sync;

impl std::fmt::Debug for Outermost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Outermost")
    }
}

/// What a fast node gives.
pub(crate) type Done = Result<Value, Exit>;

/// A node of a fast body: an expression compiled to a closure.
pub(crate) type Node = Box<dyn Fn(&mut Fx<'_, '_>) -> Done + Send + Sync>;

/// A body compiled for the fast tier.
#[derive(Clone)]
pub struct FastCode {
    run: Arc<dyn Fn(&mut Fx<'_, '_>) -> Done + Send + Sync>,
    /// The functions the body calls: a body runs fast only if they all do.
    pub(crate) callees: Arc<[CodeId]>,
    /// The place of a `Return` in the body's instructions, where the instruction loop
    /// goes on after the fast body returned.
    pub(crate) return_at: u32,
    /// Whether the instruction loop hands the body's start to the fast tier (a call of
    /// it as a function always is).
    pub(crate) entered: bool,
    /// How many locals the body has (its parameters first).
    pub(crate) locals: usize,
    /// Whether a call of it as a function has a frame, as on the interpreter: when it
    /// sends, or calls a function that does, so that what it sends counts it in its
    /// depth and runs under it. A call without one is counted in
    /// [`Machine::frameless`].
    pub(crate) frame: bool,
    /// Whether the body is to run on the fast tier now, asked each time it is about to
    /// (none: always): the code generator's count of the body's runs, which compiles it
    /// when it is due ([`FastCode::ready`]).
    ready: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
}

impl std::fmt::Debug for FastCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FastCode(calls {:?})", self.callees)
    }
}

impl FastCode {
    /// The same body run by `run` (the same calls, frame and place of its `return`) in
    /// place of its closures, on the fast tier only when `ready` says so, on the
    /// interpreter until then.
    #[cfg(feature = "jit")]
    pub(crate) fn with_run(
        &self,
        run: Node,
        ready: Arc<dyn Fn() -> bool + Send + Sync>,
    ) -> FastCode {
        FastCode {
            run: Arc::from(run),
            ready: Some(ready),
            ..self.clone()
        }
    }

    /// Whether the body is to run on the fast tier this time (asked once for each run
    /// it may have there): the closures always; machine code once it is compiled, the
    /// interpreter running the body until then (it is cheaper than the closures, and
    /// the code generator counts the runs that make a body due).
    #[inline(never)]
    pub(crate) fn ready(&self) -> bool {
        self.ready.as_ref().is_none_or(|ready| ready())
    }

    pub(crate) fn new(
        body: Node,
        callees: Vec<CodeId>,
        return_at: u32,
        entered: bool,
        locals: usize,
        sends: bool,
    ) -> FastCode {
        FastCode {
            run: Arc::from(body),
            callees: callees.into(),
            return_at,
            entered,
            locals,
            frame: sends,
            ready: None,
        }
    }
}

/// A fast node's message of known label and keys.
pub(crate) struct MessageShape {
    pub(crate) label: Symbol,
    pub(crate) names: Box<[Symbol]>,
    /// The names' key order (`value::attrs::key_order`).
    pub(crate) order: [u8; ORDER_UP_TO],
    /// Whether the form sends it (its recipient first on the stack).
    pub(crate) send: bool,
    pub(crate) span: Span,
}

/// What a fast body runs on: the transaction's machine, its context, and the place of the
/// running body's locals on the machine's stack.
pub(crate) struct Fx<'a, 'b> {
    pub(super) m: &'a mut Machine,
    pub(super) cx: &'a mut Context<'b>,
    base: usize,
    /// The value of the `(return v)` leaving a body.
    returned: Value,
    /// How the transaction ended, leaving with [`Exit::End`].
    ended: Option<Status>,
}

/// What a body run fast from the instruction loop ended with.
pub(super) enum Ended {
    /// Its value, at its end.
    Value(Value),
    /// Its value, at a `(return v)`.
    Return(Value),
    /// The transaction ended ([`Flow::End`]), or the fast tier gave up
    /// ([`Flow::GiveUp`]).
    Stop(Flow),
}

impl Machine {
    /// Whether a body may run fast now.
    #[inline(always)]
    pub(super) fn fast_on(&self, cx: &Context<'_>) -> bool {
        self.fast && !cx.trace && !cx.stepping
    }

    /// Run body `fast` from its start, its frame's locals at `base`, from the instruction
    /// loop (the step count written back to the meter).
    pub(super) fn run_fast(&mut self, cx: &mut Context<'_>, fast: &FastCode, base: usize) -> Ended {
        let mut fx = Fx::new(self, cx, base);
        let ended = match (fast.run)(&mut fx) {
            Err(exit) => match fx.stop(exit) {
                Ok(v) => Ended::Return(v),
                Err(flow) => return Ended::Stop(flow),
            },
            Ok(v) => Ended::Value(v),
        };
        // At its end or its `return` alike: a body may have counted past the budget
        // since its last check (the loop would not look again before its next step).
        if fx.check().is_err() {
            return Ended::Stop(Flow::GiveUp);
        }
        ended
    }

    /// Call function `code` (whose fast form is `fast`) from the instruction loop, its
    /// arguments on top of the stack from `at`, as the fast tier calls one: its value, in
    /// their place; how the loop stops when the transaction ended or the fast tier gave
    /// up.
    pub(super) fn call_fast(
        &mut self,
        cx: &mut Context<'_>,
        code: CodeId,
        fast: &FastCode,
        at: usize,
    ) -> Result<Value, Flow> {
        let mut fx = Fx::new(self, cx, at);
        match fx.call_body(code, fast, at) {
            Err(exit) => Err(fx.stop(exit).err().unwrap_or(Flow::GiveUp)),
            // After the function's `End`: the interpreter would check there.
            Ok(_) if fx.check().is_err() => Err(Flow::GiveUp),
            Ok(v) => Ok(v),
        }
    }

    /// Undo the transaction and start it again from its start on the interpreter alone
    /// (after the fast tier gave up, or to compare the tiers), the depths its walks found
    /// since journal mark `journal` put back first. How it ended, when starting it ended
    /// it.
    #[cold]
    #[inline(never)]
    fn replay(&mut self, cx: &mut Context<'_>, journal: usize) -> Option<Status> {
        DepthJournal::undo(journal);
        self.restore_start();
        if !self.kept_start {
            // A machine working in place goes on in place: its log must cover the
            // transaction from its start, as it would have.
            self.start = None;
        }
        self.empty();
        self.meter = Meter::new(cx.limits);
        self.output.clear();
        self.trace.clear();
        self.waiting = None;
        self.paused = false;
        self.pause_later = false;
        self.done = None;
        self.fast = false;
        self.fast_nest = 0;
        self.frameless = 0;
        self.direct_sender = None;
        self.floor = 0;
        match self.origin.clone() {
            Origin::Send(to, msg) => {
                if let Err(e) = self.send_from_outside(cx, to, msg) {
                    self.done = Some(Status::Failed(e));
                }
            }
            Origin::Eval(code) => {
                self.push_frame(cx, code, super::Kind::Top, super::NO_JP);
            }
            Origin::Other => {
                unreachable!("the fast tier runs only transactions it can start again")
            }
        }
        self.done.take()
    }

    /// [`Machine::exec`], running again on the interpreter a transaction the fast tier
    /// gave up on, and under [`Tier::Both`], every transaction it took part in, checking
    /// that the two runs agree.
    pub(super) fn exec_tiered(&mut self, cx: &mut Context<'_>) -> Result<Flow, RuntimeError> {
        if !self.fast {
            return self.exec(cx);
        }
        // What the run's walks find out about lists is put back before it is run again.
        struct Journal(usize);
        impl Drop for Journal {
            fn drop(&mut self) {
                DepthJournal::close();
            }
        }
        let journal = Journal(DepthJournal::open());
        loop {
            let r = self.exec_first(cx);
            match &r {
                Ok(Flow::GiveUp) => {
                    count(|c| c.replays += 1);
                    if let Some(status) = self.replay(cx, journal.0) {
                        return Ok(Flow::End(status));
                    }
                    continue;
                }
                Ok(Flow::Wait(_)) => {
                    // A transaction that waited cannot be started again: the rest of it
                    // runs on the interpreter, and it is not compared.
                    self.fast = false;
                    self.ran_fast = false;
                    self.compare = None;
                }
                Ok(Flow::End(_)) | Err(_) if self.ran_fast && cx.tier == Tier::Both => {
                    let fast = Ran::of(self, cx.game, &r);
                    self.ran_fast = false;
                    self.compare = Some(Box::new(fast));
                    if let Some(status) = self.replay(cx, journal.0) {
                        let r = Ok(Flow::End(status));
                        self.check_same(cx.game, &r);
                        return r;
                    }
                    continue;
                }
                Ok(Flow::End(_)) | Err(_) => self.check_same(cx.game, &r),
                _ => {}
            }
            return r;
        }
    }

    /// The transaction run on the fast tier: its outermost join point run another way
    /// when the fast table has one ([`Outermost`]) and it takes it, else the
    /// instruction loop.
    #[inline(always)]
    fn exec_first(&mut self, cx: &mut Context<'_>) -> Result<Flow, RuntimeError> {
        let table = cx.fast;
        if let Some(outermost) = &table.outermost
            && self.fast_on(cx)
            && let Some(r) = (outermost.0)(self, cx)
        {
            return r;
        }
        self.exec(cx)
    }

    /// Under [`Tier::Both`], the interpreter's run `r` against the fast tier's.
    fn check_same(&mut self, game: &Game, r: &Result<Flow, RuntimeError>) {
        if let Some(fast) = self.compare.take() {
            let slow = Ran::of(self, game, r);
            if *fast != slow {
                panic!(
                    "the fast tier and the interpreter differ on {}\n  fast tier:   {fast:?}\n  \
                     interpreter: {slow:?}",
                    self.origin
                );
            }
        }
    }
}

/// How a transaction may be started again ([`Machine::replay`]).
#[derive(Clone, Debug, Default)]
pub(super) enum Origin {
    /// Not at all (the fast tier is off).
    #[default]
    Other,
    /// A message from the user to the entity named.
    Send(Symbol, std::rc::Rc<super::super::value::Message>),
    /// Code run as the user.
    Eval(CodeId),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Other => write!(f, "a transaction"),
            Origin::Send(to, msg) => write!(f, "{} to {to}", Value::Message(msg.clone())),
            Origin::Eval(code) => write!(f, "the code of body {}", code.0),
        }
    }
}

/// What a run of a transaction did, compared under [`Tier::Both`].
#[derive(Debug, PartialEq)]
pub(super) struct Ran {
    status: Result<Status, RuntimeError>,
    digest: u64,
    steps: u64,
    memory: u64,
    output: Vec<Output>,
}

impl Ran {
    fn of(m: &Machine, game: &Game, r: &Result<Flow, RuntimeError>) -> Ran {
        Ran {
            status: match r {
                Ok(Flow::End(s)) => Ok(s.clone()),
                Err(e) => Err(e.clone()),
                Ok(_) => Ok(Status::Committed(Value::Nil)),
            },
            digest: super::super::digest::digest(game, &m.world),
            steps: m.meter.steps,
            memory: m.meter.memory,
            output: m.output.clone(),
        }
    }
}

/// The instruction loop's `next_body` (`sends.rs`) in two steps, for the fast tier's join
/// points. (The loop keeps its own code: sharing these cost it 1.2% on Awele, as the
/// compiler then laid the loop out differently.)
impl Machine {
    /// The body due after the running frame's, a law, behaviour or side-effect body that
    /// ended normally, in its join point's chain (see `next_advice`); the phase the join
    /// point moves to when it starts, and the ended body's kind. Nothing is changed.
    #[inline(always)]
    fn due_next(&self) -> Option<(NextBody, Phase, Kind)> {
        let &Frame {
            kind: ended @ (Kind::Law | Kind::SideEffect | Kind::Behaviour),
            base,
            jp,
            ..
        } = self.frames.last()?
        else {
            return None;
        };
        let (code, phase, kind) = next_advice(self.jps.last()?, ended)?;
        debug_assert_eq!(jp as usize, self.jps.len() - 1);
        Some((NextBody { code, kind, base }, phase, ended))
    }

    /// Move the top join point on to `phase` after a body of kind `ended` gave `value`,
    /// which a behaviour's join point keeps.
    #[inline(always)]
    fn move_on(&mut self, phase: Phase, ended: Kind, value: Value) {
        if let Some(point) = self.jps.last_mut() {
            point.phase = phase;
            if ended == Kind::Behaviour {
                overwrite(&mut point.value, value);
                return;
            }
        }
        Value::release(value);
    }
}

impl<'a, 'b> Fx<'a, 'b> {
    /// The fast tier on `m`, a body's locals at `base`, no function called yet.
    pub(super) fn new(m: &'a mut Machine, cx: &'a mut Context<'b>, base: usize) -> Fx<'a, 'b> {
        m.ran_fast = true;
        count(|c| c.bodies += 1);
        Fx {
            m,
            cx,
            base,
            returned: Value::Nil,
            ended: None,
        }
    }

    /// What a body leaving with `exit` gives the instruction loop: the value of its
    /// `return`, or how the loop stops.
    pub(super) fn stop(&mut self, exit: Exit) -> Result<Value, Flow> {
        match exit {
            Exit::Return => Ok(std::mem::take(&mut self.returned)),
            Exit::GiveUp => Err(Flow::GiveUp),
            Exit::End => Err(self.ended.take().map_or(Flow::GiveUp, Flow::End)),
        }
    }
}

impl Fx<'_, '_> {
    /// Leave the body with `(return v)`.
    #[inline(always)]
    pub(crate) fn return_with(&mut self, v: Value) -> Done {
        self.returned = v;
        Err(Exit::Return)
    }

    /// Count `n` steps.
    #[inline(always)]
    pub(crate) fn step(&mut self, n: u64) {
        self.m.meter.steps += n;
    }

    /// The instruction loop's check, where a loop goes round or a function is called:
    /// the fast tier gives up when the check would stop the transaction.
    #[inline(always)]
    pub(crate) fn check(&mut self) -> Result<(), Exit> {
        if self.m.meter.steps >= self.m.check_at {
            self.check_slowly()
        } else {
            Ok(())
        }
    }

    #[cold]
    #[inline(never)]
    fn check_slowly(&mut self) -> Result<(), Exit> {
        let steps = self.m.meter.steps;
        let max = self.m.meter.limits.max_steps;
        if steps > max
            || self
                .cx
                .interrupt
                .is_some_and(|i| i.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Err(Exit::GiveUp);
        }
        self.m.check_at = next_check(steps, max, self.m.check_every);
        Ok(())
    }

    /// Local `slot`, read in place.
    #[inline(always)]
    pub(crate) fn local(&self, slot: usize) -> &Value {
        &self.m.stack[self.base + slot]
    }

    /// `(var d (put d k (+ (get d k default) n)))` on the dictionary in local `d`, done
    /// where it lies as the instruction loop's `PutAdd` does it, when its fast case
    /// applies (the steps are then the caller's to count).
    #[inline(always)]
    pub(crate) fn put_add(&mut self, d: usize, k: usize, default: i32, n: i32) -> bool {
        self.m.put_add(self.base + d, self.base + k, default, n)
    }

    /// Set local `slot` to `v`.
    #[inline(always)]
    pub(crate) fn set_local(&mut self, slot: usize, v: Value) {
        overwrite(&mut self.m.stack[self.base + slot], v);
    }

    /// Take local `slot` out, leaving nil.
    #[inline(always)]
    pub(crate) fn take_local(&mut self, slot: usize) -> Value {
        std::mem::take(&mut self.m.stack[self.base + slot])
    }

    /// Push an argument for a call.
    #[inline(always)]
    pub(crate) fn push(&mut self, v: Value) {
        self.m.stack.push(v);
    }

    /// Put `v` in the place held for an argument at `at`.
    #[inline(always)]
    pub(crate) fn put_arg(&mut self, at: usize, v: Value) {
        self.m.stack[at] = v;
    }

    /// Where the next argument pushed goes.
    #[inline(always)]
    pub(crate) fn top(&self) -> usize {
        self.m.stack.len()
    }

    /// Call pure builtin `f` on the arguments pushed from `at`, which go.
    #[inline(always)]
    pub(crate) fn pure(&mut self, f: PureFn, at: usize) -> Done {
        let r = f(&mut self.m.stack[at..], &mut self.m.meter);
        truncate_releasing(&mut self.m.stack, at);
        r.map_err(|_| Exit::GiveUp)
    }

    /// Call builtin `index` that reads the game or the session, on the arguments pushed
    /// from `at`, which go.
    pub(crate) fn game_builtin(&mut self, index: usize, at: usize, span: Span) -> Done {
        let r = self.m.context_builtin(self.cx, index, at, span);
        truncate_releasing(&mut self.m.stack, at);
        r.map_err(|_| Exit::GiveUp)
    }

    /// Call function `code` on the arguments pushed from `at`, which go.
    pub(crate) fn call(&mut self, code: CodeId, at: usize) -> Done {
        match self.cx.fast.get(code) {
            Some(fast) if fast.ready() => self.call_body(code, fast, at),
            Some(_) => self.interpret(code, at),
            None => Err(Exit::GiveUp),
        }
    }

    /// [`Fx::call`] of function `code` on the interpreter, as its `Call` instruction
    /// calls one (while the function is not ready for the fast tier): its frame pushed,
    /// the instruction loop run down to the caller's level ([`Machine::floor`]). The
    /// frame is a top-level one (`Kind::Top`), which the loop leaves by its general way,
    /// back to its start where the floor is looked at: a function's would go straight
    /// on into its caller's code, here the fast tier's. (Both give the value back in
    /// the callee's place and count the same steps; an error gives up either way.)
    /// The calls the fast tier made without frames ([`Machine::frameless`]) stand, for
    /// the loop, as that much less room under the depth limit.
    #[inline(never)]
    fn interpret(&mut self, code: CodeId, at: usize) -> Done {
        let m = &mut *self.m;
        let hidden = m.frameless;
        let limit = self.cx.limits.max_depth;
        if m.frames.len() + hidden + m.jps.len() >= limit {
            return Err(Exit::GiveUp);
        }
        let callee = self.cx.game.code(code);
        start_locals(&mut m.stack, at, callee.locals as usize);
        reserve_room(&mut m.stack, callee.room);
        let level = m.frames.len();
        push_call(m, code, at, Kind::Top);
        self.m.frameless = 0;
        self.cx.limits.max_depth = limit - hidden;
        let r = self.down_to(level);
        self.m.frameless = hidden;
        self.cx.limits.max_depth = limit;
        r
    }

    /// The frames above `level` run on the instruction loop to their end: the value
    /// they leave.
    fn down_to(&mut self, level: usize) -> Done {
        let floor = std::mem::replace(&mut self.m.floor, level);
        let r = self.m.exec(self.cx);
        self.m.floor = floor;
        match r {
            Ok(Flow::Value(v)) => Ok(v),
            Ok(flow) => self.stop_with(flow),
            Err(_) => Err(Exit::GiveUp),
        }
    }

    /// [`Fx::call`] of function `code`, of fast form `fast`, with a frame when it needs
    /// one ([`FastCode::frame`]).
    fn call_body(&mut self, code: CodeId, fast: &FastCode, at: usize) -> Done {
        self.call_body_with(code, fast, at, fast.locals, |fx| (fast.run)(fx))
    }

    /// [`Fx::call_body`], the body run by `run` (its machine code, known to the caller,
    /// in place of its fast form's `run`), with `locals` slots on the machine's stack
    /// from `at` (none for machine code that keeps its locals in its own frame).
    #[inline(always)]
    pub(crate) fn call_body_with(
        &mut self,
        code: CodeId,
        fast: &FastCode,
        at: usize,
        locals: usize,
        run: impl FnOnce(&mut Self) -> Done,
    ) -> Done {
        if self.too_deep_to_call() {
            return Err(Exit::GiveUp);
        }
        let m = &mut *self.m;
        start_locals(&mut m.stack, at, locals);
        self.enter(code, fast, at);
        self.check()?;
        self.run_entered(fast, at, run)
    }

    /// Enter a call whose depth was checked: its frame pushed, or, for a function that
    /// needs none, its place counted among the frames not pushed.
    #[inline(always)]
    fn enter(&mut self, code: CodeId, fast: &FastCode, at: usize) {
        let m = &mut *self.m;
        if fast.frame {
            push_call(m, code, at, Kind::Function);
        } else {
            m.frameless += 1;
        }
    }

    /// The body of a call [`Fx::enter`]ed, run by `run` with its locals from `at`: its
    /// value, its `End` counted, its frame gone.
    #[inline(always)]
    fn run_entered(
        &mut self,
        fast: &FastCode,
        at: usize,
        run: impl FnOnce(&mut Self) -> Done,
    ) -> Done {
        let base = std::mem::replace(&mut self.base, at);
        self.m.fast_nest += 1;
        let r = run(self);
        self.m.fast_nest -= 1;
        if !fast.frame {
            self.m.frameless -= 1;
        }
        self.base = base;
        let v = match r {
            Ok(v) => {
                // The body's `End`.
                self.step(1);
                v
            }
            Err(Exit::Return) => std::mem::take(&mut self.returned),
            Err(exit) => return Err(exit),
        };
        if fast.frame {
            self.m.frames.pop();
        }
        truncate_releasing(&mut self.m.stack, at);
        Ok(v)
    }

    /// [`Fx::call_body_with`] of a function whose arguments are not on the machine's
    /// stack (the code calling it hands them over apart, and its code keeps its locals
    /// in its own frame): its frame starts at the top, with no slots there. `None` when
    /// the call is not made (too deep, or stopped at a step check), the arguments not
    /// taken.
    #[cfg(feature = "jit")]
    #[inline(always)]
    pub(crate) fn call_body_apart(
        &mut self,
        code: CodeId,
        fast: &FastCode,
        run: impl FnOnce(&mut Self) -> Done,
    ) -> Option<Done> {
        if self.too_deep_to_call() || self.check().is_err() {
            return None;
        }
        let at = self.m.stack.len();
        self.enter(code, fast, at);
        Some(self.run_entered(fast, at, run))
    }

    /// Whether a call's frame would be past the fast tier's nesting of Rust calls or
    /// the depth limit (the fast tier gives up; the interpreter goes on or reports it).
    #[inline(always)]
    fn too_deep_to_call(&self) -> bool {
        let m = &*self.m;
        m.fast_nest >= FAST_DEPTH
            || m.frames.len() + m.frameless + m.jps.len() >= self.cx.limits.max_depth
    }

    /// A form on the operands pushed from `at` (and `nattrs` key/value pairs after them):
    /// its value. A form that enters a join point (a send, a property change a
    /// representation observes) runs it here to its end ([`Fx::join`]).
    pub(crate) fn form(&mut self, op: FormOp, nattrs: u8, span: Span) -> Done {
        let level = self.m.frames.len();
        let r = self.m.form(self.cx, op, nattrs, span);
        self.then(r, level)
    }

    /// `(update property name to v)` of the running entity.
    pub(crate) fn update_property(&mut self, name: Symbol, v: Value, span: Span) -> Done {
        let Some((id, _)) = self.m.me() else {
            return Err(Exit::GiveUp);
        };
        match self.m.write_layout_slot(self.cx, id, name, v) {
            Ok(()) => Ok(Value::Nil),
            Err(v) => {
                // The general way, the operands as the instruction loop has them.
                self.push(Value::sym(name));
                self.push(v);
                self.form(FormOp::UpdateProperty, 0, span)
            }
        }
    }

    /// The message of `shape`, its recipient (when it sends) and its values pushed from
    /// `at`, which go: made, as `(new message ...)` makes it, or sent.
    pub(crate) fn new_message(&mut self, shape: &MessageShape, at: usize) -> Done {
        let m = &mut *self.m;
        let first = at + usize::from(shape.send);
        let max = m.meter.limits.max_nesting;
        // Values whose nesting is known without a walk, as the instruction loop asks.
        let plain = m.stack[first..].iter().all(|v| match v {
            Value::List(l) => (l.depth() as usize) < max,
            Value::Dict(_) | Value::Message(_) => false,
            _ => true,
        });
        if !plain {
            return self.new_message_slowly(shape, at);
        }
        let names = &shape.names;
        let made = m.message_taking(shape.label, names, &shape.order, |i| first + i, shape.span);
        let Ok(msg) = made else {
            return Err(Exit::GiveUp);
        };
        if !shape.send {
            truncate_releasing(&mut m.stack, at);
            return Ok(Value::Message(msg));
        }
        let to = std::mem::take(&mut m.stack[at]);
        truncate_releasing(&mut m.stack, at);
        let level = m.frames.len();
        let r = m.send(self.cx, &to, msg, shape.span);
        Value::release(to);
        self.then(r, level)
    }

    /// [`Fx::new_message`] the general way: the operands as the instruction loop has
    /// them, for its form.
    #[cold]
    #[inline(never)]
    fn new_message_slowly(&mut self, shape: &MessageShape, at: usize) -> Done {
        let stack = &mut self.m.stack;
        let mut operands = stack.split_off(at).into_iter();
        stack.push(Value::sym(shape.label));
        if shape.send {
            stack.push(operands.next().unwrap_or_default());
        }
        for (&name, v) in shape.names.iter().zip(operands) {
            stack.push(Value::sym(name));
            stack.push(v);
        }
        let op = if shape.send {
            FormOp::SendNew
        } else {
            FormOp::NewMessage
        };
        self.form(op, shape.names.len() as u8, shape.span)
    }

    /// What a form of the machine's gave: its value, the value of the join point it
    /// entered above frame `level` ([`Fx::join`]), or a stop.
    fn then(&mut self, r: Result<Flow, RuntimeError>, level: usize) -> Done {
        match r {
            Ok(Flow::Value(v)) => Ok(v),
            Ok(Flow::Enter) => self.join(level),
            Ok(flow) => self.stop_with(flow),
            Err(_) => Err(Exit::GiveUp),
        }
    }

    /// Leave every body for the instruction loop to stop with `flow`.
    #[cold]
    fn stop_with(&mut self, flow: Flow) -> Done {
        match flow {
            Flow::End(status) => {
                self.ended = Some(status);
                Err(Exit::End)
            }
            _ => Err(Exit::GiveUp),
        }
    }

    /// Run the frames a form pushed above `level` (a join point's laws, behaviour and
    /// side-effects, one after the other as the machine's `leave` moves it on) to their
    /// end: the join point's value, which the machine left on the stack. A body with a
    /// fast form ready runs here; one without runs on the interpreter
    /// ([`Machine::floor`]).
    fn join(&mut self, level: usize) -> Done {
        if self.m.fast_nest >= FAST_DEPTH {
            return Err(Exit::GiveUp);
        }
        self.m.fast_nest += 1;
        let r = self.run_frames(level);
        self.m.fast_nest -= 1;
        r
    }

    fn run_frames(&mut self, level: usize) -> Done {
        let table = self.cx.fast;
        while self.m.frames.len() > level {
            if self.m.paused || self.m.pause_later {
                return Err(Exit::GiveUp);
            }
            let frame = self.m.frames[self.m.frames.len() - 1];
            let Some(fast) = table.get(frame.code).filter(|f| frame.ip == 0 && f.ready()) else {
                return self.down_to(level);
            };
            let base = std::mem::replace(&mut self.base, frame.base as usize);
            let r = (fast.run)(self);
            self.base = base;
            let (v, explicit) = match r {
                Ok(v) => {
                    // The body's `End`.
                    self.step(1);
                    (v, false)
                }
                Err(Exit::Return) => (std::mem::take(&mut self.returned), true),
                Err(exit) => return Err(exit),
            };
            self.check()?;
            // The next law, the behaviour or the next side-effect starts in the ended
            // body's frame, as in the instruction loop; the general way otherwise.
            if !(explicit || self.m.paused || self.m.pause_later)
                && let Some((next, phase, ended)) = self.m.due_next()
            {
                self.m.move_on(phase, ended, v);
                let locals = self.cx.game.code(next.code).locals as usize;
                renew_locals(&mut self.m.stack, next.base as usize, locals);
                if let Some(f) = self.m.frames.last_mut() {
                    f.code = next.code;
                    f.kind = next.kind;
                }
                continue;
            }
            if let Some(status) = self.m.leave(self.cx, v, explicit) {
                return self.stop_with(Flow::End(status));
            }
        }
        Ok(self.m.stack.pop().unwrap_or_default())
    }

    /// `(property "name")` of the running entity.
    #[inline(always)]
    pub(crate) fn property(&mut self, name: Symbol, span: Span) -> Done {
        if let Some(v) = self.m.own_layout_property(self.cx.game, name) {
            return Ok(v.clone());
        }
        match self.m.me() {
            Some((id, _)) => self
                .m
                .own_property(self.cx, id, name, span)
                .map_err(|_| Exit::GiveUp),
            None => Err(Exit::GiveUp),
        }
    }

    /// `(property "name" of entity)`.
    #[inline(always)]
    pub(crate) fn property_of(&mut self, entity: &Value, name: Symbol, span: Span) -> Done {
        // An entity the game started with and a property of its layout, in line, as the
        // instruction loop reads it.
        match self.m.fixed_property(self.cx.game, entity, name) {
            Some(v) => Ok(v.clone()),
            None => self.property_of_slowly(entity, name, span),
        }
    }

    /// `(property "name" of entity)` of the entity named in local `slot`.
    #[inline(always)]
    pub(crate) fn local_property_of(&mut self, slot: usize, name: Symbol, span: Span) -> Done {
        let m = &*self.m;
        match m.fixed_property(self.cx.game, &m.stack[self.base + slot], name) {
            Some(v) => Ok(v.clone()),
            None => {
                let entity = self.local(slot).clone();
                self.property_of_slowly(&entity, name, span)
            }
        }
    }

    #[inline(never)]
    fn property_of_slowly(&mut self, entity: &Value, name: Symbol, span: Span) -> Done {
        self.m
            .property_of(self.cx, entity, name, span)
            .map_err(|_| Exit::GiveUp)
    }

    /// `(state of entity)`: read in line for an entity the game started with, as the
    /// instruction loop reads it; by the form otherwise (its step already counted).
    pub(crate) fn state_of(&mut self, entity: Value, span: Span) -> Done {
        if let Some(state) = self.m.fixed_state(&entity) {
            Value::release(entity);
            return Ok(Value::sym(state));
        }
        self.push(entity);
        self.form(FormOp::StateOf, 0, span)
    }

    /// `(attribute "key")` of the handled message.
    #[inline(always)]
    pub(crate) fn attribute(&mut self, key: Symbol) -> Done {
        match self.m.current_jp() {
            Some(jp) => Ok(jp
                .msg
                .attrs
                .get(&Key::sym(key))
                .cloned()
                .unwrap_or_default()),
            None => Err(Exit::GiveUp),
        }
    }

    /// The handled message (nil outside a join point).
    pub(crate) fn message(&mut self) -> Value {
        match self.m.current_jp() {
            Some(jp) => Value::Message(jp.msg.clone()),
            None => Value::Nil,
        }
    }

    /// Whether `a` equals `b`, as a `switch` compares.
    pub(crate) fn equal(&mut self, a: &Value, b: &Value) -> Result<bool, Exit> {
        self.m.meter.equal(a, b).map_err(|_| Exit::GiveUp)
    }

    /// What a `foreach` iterates over `v`: a list as it is, a dictionary's keys (counted
    /// as the interpreter counts them), nothing for nil.
    pub(crate) fn iteration(&mut self, v: Value) -> Result<std::rc::Rc<List>, Exit> {
        match v {
            Value::List(l) => Ok(l),
            Value::Dict(d) => {
                self.m
                    .meter
                    .work(d.len())
                    .and_then(|()| self.m.meter.alloc(ELEMENT_BYTES * d.len() as u64))
                    .map_err(|_| Exit::GiveUp)?;
                Ok(std::rc::Rc::new(d.keys().map(|k| k.to_value()).collect()))
            }
            Value::Nil => Ok(std::rc::Rc::new(List::new())),
            _ => Err(Exit::GiveUp),
        }
    }
}

/// The locals of a call whose arguments lie from `at`, `locals` in all: the rest start
/// nil.
fn start_locals(stack: &mut Vec<Value>, at: usize, locals: usize) {
    let extra = locals.saturating_sub(stack.len() - at);
    if extra > 0 {
        push_nils_apart(stack, extra);
    }
}

/// The frame of a call of `code`, of `kind`, its arguments from `at`, under its caller's
/// join point.
fn push_call(m: &mut Machine, code: CodeId, at: usize, kind: Kind) {
    let jp = m.frames.last().map_or(NO_JP, |f| f.jp);
    m.frames.push(Frame {
        code,
        ip: 0,
        base: at as u32,
        kind,
        jp,
    });
}
