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
use super::super::value::{DepthJournal, Key, List, Value};
use super::stack::{overwrite, push_nils_apart, truncate_releasing};
use super::steps::next_check;
use super::{Context, Flow, Machine};

/// Which tier runs a session's transactions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tier {
    /// The interpreter alone (the default: see `docs/performance.md`, "The fast tier,
    /// 2026-11-29", for where the fast tier is not yet faster).
    #[default]
    Interpreter,
    /// The fast tier where it applies, the interpreter for the rest and for every
    /// transaction the fast tier gives up on.
    Fast,
    /// Every transaction the fast tier took part in is run again on the interpreter
    /// alone, and the two must agree on the status, the world, the steps, the memory and
    /// the output: the process stops at the first difference, showing both.
    Both,
}

impl Tier {
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
}

impl std::fmt::Debug for FastCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FastCode(calls {:?})", self.callees)
    }
}

impl FastCode {
    pub(crate) fn new(body: Node, callees: Vec<CodeId>, return_at: u32, entered: bool) -> FastCode {
        FastCode {
            run: Arc::from(body),
            callees: callees.into(),
            return_at,
            entered,
        }
    }
}

/// What a fast body runs on: the transaction's machine, its context, and the place of the
/// running body's locals on the machine's stack.
pub(crate) struct Fx<'a, 'b> {
    m: &'a mut Machine,
    cx: &'a mut Context<'b>,
    base: usize,
    /// Function calls open in the fast tier.
    depth: usize,
    /// The value of the `(return v)` leaving a body.
    returned: Value,
}

/// What a body run fast from the instruction loop ended with.
pub(super) enum Ended {
    /// Its value, at its end.
    Value(Value),
    /// Its value, at a `(return v)`.
    Return(Value),
    /// The fast tier gave up.
    GiveUp,
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
        let r = (fast.run)(&mut fx);
        if fx.check().is_err() {
            return Ended::GiveUp;
        }
        match r {
            Ok(v) => Ended::Value(v),
            Err(Exit::Return) => Ended::Return(std::mem::take(&mut fx.returned)),
            Err(Exit::GiveUp) => Ended::GiveUp,
        }
    }

    /// Call function `code` (whose fast form is `fast`) from the instruction loop, its
    /// arguments on top of the stack from `at`, as the fast tier calls one: its value, in
    /// their place; `None` when the fast tier gave up.
    pub(super) fn call_fast(
        &mut self,
        cx: &mut Context<'_>,
        code: &crate::compile::bytecode::Code,
        fast: &FastCode,
        at: usize,
    ) -> Option<Value> {
        let mut fx = Fx::new(self, cx, at);
        let r = fx.call_body(code, fast, at);
        // After the function's `End`: the interpreter would check there.
        if fx.check().is_err() {
            return None;
        }
        r.ok()
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
            let r = self.exec(cx);
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

impl<'a, 'b> Fx<'a, 'b> {
    /// The fast tier on `m`, a body's locals at `base`, no function called yet.
    fn new(m: &'a mut Machine, cx: &'a mut Context<'b>, base: usize) -> Fx<'a, 'b> {
        m.ran_fast = true;
        count(|c| c.bodies += 1);
        Fx {
            m,
            cx,
            base,
            depth: 0,
            returned: Value::Nil,
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
        let (game, table) = (self.cx.game, self.cx.fast);
        match table.get(code) {
            Some(fast) => self.call_body(game.code(code), fast, at),
            None => Err(Exit::GiveUp),
        }
    }

    /// [`Fx::call`] of the function whose body is `callee`, of fast form `fast`.
    fn call_body(
        &mut self,
        callee: &crate::compile::bytecode::Code,
        fast: &FastCode,
        at: usize,
    ) -> Done {
        if self.depth >= FAST_DEPTH
            || self.m.frames.len() + self.m.jps.len() + self.depth >= self.cx.limits.max_depth
        {
            return Err(Exit::GiveUp);
        }
        let extra = (callee.locals as usize).saturating_sub(self.m.stack.len() - at);
        if extra > 0 {
            push_nils_apart(&mut self.m.stack, extra);
        }
        self.check()?;
        let base = std::mem::replace(&mut self.base, at);
        self.depth += 1;
        let r = (fast.run)(self);
        self.depth -= 1;
        self.base = base;
        let v = match r {
            Ok(v) => {
                // The body's `End`.
                self.step(1);
                v
            }
            Err(Exit::Return) => std::mem::take(&mut self.returned),
            Err(Exit::GiveUp) => return Err(Exit::GiveUp),
        };
        truncate_releasing(&mut self.m.stack, at);
        Ok(v)
    }

    /// A form on the operands pushed from `at` (and `nattrs` key/value pairs after them):
    /// its value, when it only makes one.
    pub(crate) fn form(&mut self, op: FormOp, nattrs: u8, span: Span) -> Done {
        match self.m.form(self.cx, op, nattrs, span) {
            Ok(Flow::Value(v)) => Ok(v),
            _ => Err(Exit::GiveUp),
        }
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
        self.m
            .property_of(self.cx, entity, name, span)
            .map_err(|_| Exit::GiveUp)
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
