//! The virtual machine: explicit frames, an operand stack and a stack of join points.
//!
//! A transaction is a [`Machine`]. Nothing about a message chain or a recursion lives on
//! the Rust stack: sending pushes a join point, running a body pushes a frame, and the
//! loop in [`Machine::run`] picks up whatever is on top. So a transaction can stop between
//! any two join-point steps (stepping) or inside `(wait signal ...)` and be resumed later,
//! and a chain 100,000 messages deep costs memory, not stack.

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::compile::builtins::BUILTINS;
use crate::compile::bytecode::{CodeId, IntOp, IntValue, Op, Read, builtin_of, put_builtin};
use crate::compile::program::{Game, TypeId};
use crate::source::Span;
use crate::symbol::Symbol;

use super::budget::{ELEMENT_BYTES, ENTRY_BYTES, Meter, is_collection};
use super::builtins::{
    BuiltinError, PureFn, ascii_name, contains_letter, pure_fn, read_fast, same_text, text_of,
};
use super::profile::Profile;
use super::trace::{Output, RuntimeError, Status, TraceEvent};
use super::value::{Attrs, Dict, Key, List, Message, Value};
use super::world::{Chain, EntityId, FixedNames, World};

pub use super::budget::Limits;

/// Advice chains already worked out, per (type, instance with its own advice, state,
/// label), for one advice table.
#[derive(Default, Debug)]
pub struct ChainCache {
    version: u64,
    chains: FxHashMap<(TypeId, Option<Symbol>, Symbol, Symbol), Arc<Chain>>,
    /// Instances that some advice names directly.
    instance_targets: Vec<Symbol>,
    /// The chain of a representation's join point: no advice binds to representations.
    empty: Arc<Chain>,
    /// The chains asked for last (a few, the oldest replaced first), with the behaviour
    /// their type has for that state and label: a transaction's join points, which most
    /// often follow the same few kinds of message from move to move, find both with a
    /// few compares, without hashing (a game's behaviours never change once it is
    /// built).
    recent: [Option<Recent>; RECENT_CHAINS],
    /// The entry of `recent` to replace next.
    next_recent: usize,
}

/// How many chains a [`ChainCache`] keeps at hand.
const RECENT_CHAINS: usize = 4;

/// A chain a [`ChainCache`] was asked for lately, by the key of its table.
#[derive(Debug)]
struct Recent {
    key: (TypeId, Option<Symbol>, Symbol, Symbol),
    chain: Arc<Chain>,
    behaviour: Option<CodeId>,
}

impl ChainCache {
    fn get(
        &mut self,
        game: &Game,
        world: &World,
        ty: TypeId,
        entity: Symbol,
        state: Symbol,
        label: Symbol,
    ) -> (Arc<Chain>, Option<CodeId>) {
        let table = &world.advice;
        if table.version != self.version {
            self.chains.clear();
            self.recent = Default::default();
            self.version = table.version;
            self.instance_targets = table
                .entries
                .iter()
                .filter_map(|e| match e.advice.target {
                    crate::compile::program::AdviceTarget::Instance(n) => Some(n),
                    _ => None,
                })
                .collect();
        }
        let inst = self.instance_targets.contains(&entity).then_some(entity);
        let key = (ty, inst, state, label);
        if let Some(r) = self.recent.iter().flatten().find(|r| r.key == key) {
            return (r.chain.clone(), r.behaviour);
        }
        let chain = self
            .chains
            .entry(key)
            .or_insert_with(|| Arc::new(table.chain(game, ty, entity, state, label)))
            .clone();
        let behaviour = game.ty(ty).behaviours.get(&(state, label)).copied();
        self.recent[self.next_recent] = Some(Recent {
            key,
            chain: chain.clone(),
            behaviour,
        });
        self.next_recent = (self.next_recent + 1) % RECENT_CHAINS;
        (chain, behaviour)
    }
}

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
}

/// Why [`Machine::run`] returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// The transaction is over.
    Finished(Status),
    /// Stepping: a join-point step happened (the last trace event says which).
    Stepped,
    /// `(wait signal s)`: resume with [`Machine::signal`].
    Waiting(Symbol),
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

/// The integer operator of each of the first builtins (arithmetic and comparison), by
/// index: the instruction loop's fast path for two integers (`/` has none: its result may
/// be a float). Checked by a test against [`IntOp::of_builtin`].
const FAST_OPS: [Option<IntOp>; 12] = [
    Some(IntOp::Add),
    Some(IntOp::Sub),
    Some(IntOp::Mul),
    None,
    Some(IntOp::Rem),
    Some(IntOp::Eq),
    Some(IntOp::Eq),
    Some(IntOp::Ne),
    Some(IntOp::Lt),
    Some(IntOp::Gt),
    Some(IntOp::Le),
    Some(IntOp::Ge),
];

use crate::compile::builtins::index as builtin_index;

/// The index of `not` (the instruction loop answers it itself).
const NOT: u16 = builtin_index("not");

/// The index of `lower` (the instruction loop answers it itself for a one-character
/// name).
const LOWER: u16 = builtin_index("lower");

/// The index of `contains` (the instruction loop answers it itself for a one-character
/// name in a string).
const CONTAINS: u16 = builtin_index("contains");

/// The indices of `first` and `last` (the instruction loop answers them itself for a
/// list).
const FIRST: u16 = builtin_index("first");
const LAST: u16 = builtin_index("last");

/// The index of `self` (`call_builtin` answers it first).
const SELF: u16 = builtin_index("self");

/// The builtins the machine runs itself, as they read the game, the world or the running
/// join point (the others are [`pure_fn`]s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GameFn {
    SelfName,
    Sender,
    Param,
    Random,
    Shuffle,
    Notify,
    Print,
    Neighbor,
    Walk,
    Ray,
    Directions,
}

/// The [`GameFn`] of each builtin, by index of [`BUILTINS`], worked out at compile time: a
/// call picks its code by index, not by comparing names.
static GAME_FNS: [Option<GameFn>; BUILTINS.len()] = {
    const NAMED: [(&str, GameFn); 11] = [
        ("self", GameFn::SelfName),
        ("sender", GameFn::Sender),
        ("param", GameFn::Param),
        ("random", GameFn::Random),
        ("shuffle", GameFn::Shuffle),
        ("notify", GameFn::Notify),
        ("print", GameFn::Print),
        ("neighbor", GameFn::Neighbor),
        ("walk", GameFn::Walk),
        ("ray", GameFn::Ray),
        ("directions", GameFn::Directions),
    ];
    let mut table = [None; BUILTINS.len()];
    let mut i = 0;
    while i < BUILTINS.len() {
        let mut k = 0;
        while k < NAMED.len() {
            if same_text(NAMED[k].0, BUILTINS[i].name) {
                table[i] = Some(NAMED[k].1);
            }
            k += 1;
        }
        i += 1;
    }
    table
};

/// Drop a value popped or overwritten by the instruction loop, skipping the out-of-line drop
/// for the values that own nothing (the common case: integers, booleans, nil).
#[inline(always)]
fn discard(v: Value) {
    if matches!(
        v,
        Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Float(_)
    ) {
        // These variants hold no heap data or reference count: forgetting frees nothing.
        std::mem::forget(v);
    } else {
        drop_counted(v);
    }
}

/// Let go of a value that holds a reference count, out of line: the instruction loop keeps
/// no code for what its last holder frees.
#[inline(never)]
fn drop_counted(v: Value) {
    drop(v);
}

/// Overwrite `slot` with `v`, dropping what it held through [`discard`].
#[inline(always)]
fn overwrite(slot: &mut Value, v: Value) {
    discard(std::mem::replace(slot, v));
}

/// Push `n` nils (a frame's locals): one capacity check, then a store of each nil's tag
/// and one of the length (a `push` per nil stores the length each time and checks the
/// capacity again; extending with a repeated nil clones it through the general `clone`
/// out of line).
#[inline(always)]
fn push_nils(stack: &mut Vec<Value>, n: usize) {
    stack.reserve(n);
    let len = stack.len();
    for slot in &mut stack.spare_capacity_mut()[..n] {
        slot.write(Value::Nil);
    }
    // SAFETY: the `n` values past `len` were written just above.
    unsafe { stack.set_len(len + n) };
}

/// Drop the values of `stack` above its first `len` (a frame's locals and what its body
/// left), as `truncate` does, but calling the general drop only for the values that hold
/// something (`truncate` calls it for every value, most often a nil or a number).
#[inline(always)]
fn truncate_releasing(stack: &mut Vec<Value>, len: usize) {
    let n = stack.len();
    if len >= n {
        return;
    }
    // SAFETY: as in `Vec::truncate`: the length is lowered first, so the values past it,
    // initialised and now out of the vector, are each dropped once, here (a panicking
    // drop leaks the rest, never drops one twice).
    unsafe {
        let tail = std::ptr::slice_from_raw_parts_mut(stack.as_mut_ptr().add(len), n - len);
        stack.set_len(len);
        for v in &mut *tail {
            if !v.holds_nothing() {
                std::ptr::drop_in_place(v);
            }
        }
    }
}

/// [`push_nils`] kept out of line, for the instruction loop (its registers hold what the
/// common instructions use).
#[inline(never)]
fn push_nils_apart(stack: &mut Vec<Value>, n: usize) {
    // One capacity check, then a store per nil (no length update or check per push), all
    // inline (`resize_with` is a call of its own).
    stack.extend((0..n).map(|_| Value::Nil));
}

/// Make the stack from `at` hold `n` nils (the locals of a body that starts where another
/// ended): what was there is let go, slots already there are reused.
#[inline(always)]
fn renew_locals(stack: &mut Vec<Value>, at: usize, n: usize) {
    let len = stack.len();
    if len >= at + n {
        truncate_releasing(stack, at + n);
        for v in &mut stack[at..] {
            overwrite(v, Value::Nil);
        }
    } else {
        for v in &mut stack[at..] {
            overwrite(v, Value::Nil);
        }
        push_nils_apart(stack, at + n - len);
    }
}

/// The body [`Machine::next_body`] found to run next: its code, kind, and the base of the
/// frame it replaces (which keeps its join point).
struct NextBody {
    code: CodeId,
    kind: Kind,
    base: u32,
}

/// The body of `jp`'s chain that follows the one of kind `kind` that just ended, the
/// join point's phase once it runs, and its kind: the next law, the behaviour after the
/// last law (unless the join point keeps a world for a veto, `before`, which the general
/// path lets go), the first side-effect after the behaviour, the next side-effect. `None`
/// for anything else (no behaviour, the end of the join point: see `Machine::advance`).
#[inline(always)]
fn next_advice(jp: &JoinPoint, kind: Kind) -> Option<(CodeId, Phase, Kind)> {
    match (jp.phase, kind) {
        (Phase::Laws(i), Kind::Law) => match jp.chain.laws.get(i) {
            Some(l) => Some((l.code, Phase::Laws(i + 1), Kind::Law)),
            None if !jp.before => jp
                .behaviour
                .map(|b| (b, Phase::SideEffects(0), Kind::Behaviour)),
            None => None,
        },
        (Phase::SideEffects(i), Kind::SideEffect | Kind::Behaviour) => jp
            .chain
            .side_effects
            .get(i)
            .map(|se| (se.code, Phase::SideEffects(i + 1), Kind::SideEffect)),
        _ => None,
    }
}

/// Where a loop's fused test (`op`, an [`Op::LoopLocalConst`] or [`Op::LoopLocals`] on the
/// locals of the frame at `base` in `stack`) sends the loop: its body or its exit; `None`
/// when its fast case does not apply (a value that is not an integer, another
/// instruction).
#[inline(always)]
fn loop_test(stack: &[Value], base: usize, op: Op) -> Option<u32> {
    let (t, exit, body) = match op {
        Op::LoopLocalConst {
            a,
            op: f,
            k,
            exit,
            body,
        } => match stack[base + a as usize] {
            Value::Int(x) => (f.apply(x, i64::from(k))?, exit, body),
            _ => return None,
        },
        Op::LoopLocals {
            a,
            b,
            op: f,
            exit,
            body,
        } => match (&stack[base + a as usize], &stack[base + b as usize]) {
            (Value::Int(x), Value::Int(y)) => (f.apply(*x, *y)?, exit, body),
            _ => return None,
        },
        _ => return None,
    };
    match t {
        IntValue::Bool(true) => Some(body),
        IntValue::Bool(false) => Some(exit),
        IntValue::Int(_) => None,
    }
}

/// The step count at which the machine next stops to check: the first multiple of
/// `every + 1` after `steps` (65,536 with [`CHECK_EVERY`], to look for an interrupt; the
/// next step with 0, when profiling), or the first step past the budget.
#[inline]
fn next_check(steps: u64, max_steps: u64, every: u64) -> u64 {
    ((steps | every).saturating_add(1)).min(max_steps.saturating_add(1))
}

/// What [`next_check`] rounds the step count up to, less one: checks every 65,536 steps.
const CHECK_EVERY: u64 = 0xFFFF;

/// Whether a dictionary of `len` entries may take one more within the length and memory
/// limits, as `put` checks them; when it may, its memory is counted.
#[inline(always)]
fn add_entry(m: &mut Meter, len: usize) -> bool {
    let memory = m.memory.saturating_add(ENTRY_BYTES);
    if len + 1 > m.limits.max_length || memory > m.limits.max_memory {
        return false;
    }
    m.memory = memory;
    true
}

/// The value of an integer operator's result.
#[inline(always)]
fn int_value(r: IntValue) -> Value {
    match r {
        IntValue::Int(i) => Value::Int(i),
        IntValue::Bool(b) => Value::bool(b),
    }
}

/// How a run without anyone to answer ends when the transaction waits for `signal`.
#[cold]
#[inline(never)]
fn unanswered(signal: Symbol) -> Status {
    Status::Failed(RuntimeError {
        message: format!("waiting for signal \"{signal}\" with no one to answer"),
        hint: Some("signals are answered from the REPL (:signal) or the board".into()),
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Laws(usize),
    Behaviour,
    SideEffects(usize),
}

#[derive(Debug)]
struct JoinPoint {
    entity: EntityId,
    name: Symbol,
    msg: Handled,
    sender: Option<Symbol>,
    state: Symbol,
    chain: Arc<Chain>,
    behaviour: Option<CodeId>,
    phase: Phase,
    value: Value,
    then: Then,
    /// Whether the join point has its entry on [`Machine::befores`]: the world and the
    /// open checkpoints when it began, kept when it has laws that may change the world
    /// (only a law can veto) and is not the outermost; a veto puts them back, so a
    /// vetoed message did nothing at any depth. Kept apart, as few join points have
    /// one: the join point stays small to push and pop.
    before: bool,
}

/// The message a join point handles, read through it as the `Arc` it is. When the join
/// point goes holding the only reference (a message made by `send new message`, most
/// often), the allocation is kept, emptied, for the next message a form makes on this
/// thread ([`spare_message`]) instead of being freed and allocated again.
struct Handled(std::mem::ManuallyDrop<Rc<Message>>);

impl Handled {
    #[inline(always)]
    fn new(msg: Rc<Message>) -> Handled {
        Handled(std::mem::ManuallyDrop::new(msg))
    }
}

impl std::ops::Deref for Handled {
    type Target = Rc<Message>;
    #[inline(always)]
    fn deref(&self) -> &Rc<Message> {
        &self.0
    }
}

impl std::ops::DerefMut for Handled {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Rc<Message> {
        &mut self.0
    }
}

impl std::fmt::Debug for Handled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Drop for Handled {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: the message is taken once, here, as the join point goes; nothing reads
        // this field again.
        let msg = unsafe { std::mem::ManuallyDrop::take(&mut self.0) };
        // A message someone else holds (a delivered or tried one, most often) is only
        // counted down, in line.
        if Rc::strong_count(&msg) == 1 {
            keep_message(msg);
        }
    }
}

thread_local! {
    /// Message allocations kept for the next messages made on this thread (see
    /// [`Handled`]): two, as a message's behaviour often sends one that ends before it.
    static SPARE_MESSAGES: std::cell::Cell<[Option<Rc<Message>>; 2]> =
        const { std::cell::Cell::new([None, None]) };
}

/// Let `msg` go, keeping its allocation, emptied, for the next message made on this
/// thread when nothing else holds it, its attributes have room for few (a message that
/// had many gives back their memory) and a spare place is free.
#[inline(never)]
fn keep_message(mut msg: Rc<Message>) {
    if let Some(m) = Rc::get_mut(&mut msg)
        && m.attrs.capacity() <= super::attrs::ORDER_UP_TO
    {
        m.attrs.clear();
        // At the thread's end the places may be gone: the message is then let go.
        let _ = SPARE_MESSAGES.try_with(|s| {
            let mut spares = s.take();
            if let Some(free) = spares.iter_mut().find(|p| p.is_none()) {
                *free = Some(msg);
            }
            s.set(spares);
        });
    }
}

/// A message allocation nothing else holds, its attributes empty, kept when a join point
/// went (see [`Handled`]), if there is one.
#[inline(always)]
pub(super) fn spare_message() -> Option<Rc<Message>> {
    SPARE_MESSAGES
        .try_with(|s| {
            let mut spares = s.take();
            let msg = match spares[1].take() {
                Some(msg) => Some(msg),
                None => spares[0].take(),
            };
            s.set(spares);
            msg
        })
        .ok()
        .flatten()
}

/// What happens when a join point is over, besides giving its value to the sender.
#[derive(Clone, Debug)]
enum Then {
    /// Nothing: the value of the `send` is the behaviour's.
    Give,
    /// A representation was told of a property change: make the change now, and the
    /// form that asked for it yields `nil`.
    Write {
        entity: EntityId,
        name: Symbol,
        value: Value,
        new: bool,
        /// Whether a step was pending when the representation was told: the write and
        /// its observer are one step of the game, so the pause waits for the write.
        held: bool,
    },
    /// A representation received `init` for a new entity: the form yields this.
    Yield(Value),
}

/// A change a machine made in place to the world it was given, and what undoes it (see
/// [`Machine::start`]).
#[derive(Debug)]
enum Undo {
    /// Layout property `slot` of entity `id` held `old`.
    Slot { id: EntityId, slot: u16, old: Value },
    /// Entity `id` was in state `old`.
    State { id: EntityId, old: Symbol },
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
    /// The worlds and open-checkpoint counts kept by the join points marked `before`,
    /// innermost last (see [`JoinPoint::before`]).
    befores: Vec<(World, usize)>,
    checkpoints: Vec<Checkpoint>,
    meter: Meter,
    /// Lines written by `notify` and `print`.
    pub output: Vec<Output>,
    /// Steps recorded when tracing.
    pub trace: Vec<TraceEvent>,
    waiting: Option<Symbol>,
    paused: bool,
    /// A step is pending after a property write that waited for its observer: it pauses
    /// where the write would have paused unobserved (at the writer's next join-point
    /// step), not as the observer's join point ends.
    pause_later: bool,
    /// The step count at which the instruction loop next checks (see [`Machine::exec`]).
    check_at: u64,
    done: Option<Status>,
    fixed: Arc<FixedNames>,
    /// Where the steps go, when profiling (see [`super::profile`]): the loop then checks
    /// after every instruction, and the check charges it to its body.
    profile: Option<Box<Profile>>,
    /// [`CHECK_EVERY`], or 0 (a check after every instruction) when profiling.
    check_every: u64,
}

/// How a transaction ended, as far as cleaning up after it goes ([`Machine::end`]).
#[derive(Clone, Copy)]
enum Ending {
    Committed,
    RolledBack,
    /// Vetoed or failed.
    Refused,
}

impl Ending {
    #[inline(always)]
    fn of(status: &Status) -> Ending {
        match status {
            Status::Committed(_) => Ending::Committed,
            Status::RolledBack { .. } => Ending::RolledBack,
            Status::Vetoed { .. } | Status::Failed(_) => Ending::Refused,
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
    Wait(Symbol),
    /// Ended the transaction.
    End(Status),
}

/// What [`Machine::exec`] does after an instruction run out of its loop.
enum Next {
    /// Go on with the next instruction.
    Go,
    /// Go on past this many more instructions (the rest of a fused instruction's
    /// sequence, whose steps are counted).
    Skip(usize),
    /// The top frame changed: pick it up.
    Frames,
    /// Return from `exec` (boxed, as is the error below: `Next` stays two words, returned
    /// in registers).
    Done(Box<Flow>),
    /// Fail with this error.
    Fail(Box<RuntimeError>),
}

/// The emptied stack, frame and join-point vectors of a finished transaction, kept for the
/// next one on the same thread so that trying a move does not allocate them anew.
struct Buffers {
    stack: Vec<Value>,
    frames: Vec<Frame>,
    jps: Vec<JoinPoint>,
}

impl Buffers {
    fn fresh() -> Buffers {
        Buffers {
            stack: Vec::with_capacity(64),
            frames: Vec::with_capacity(16),
            jps: Vec::with_capacity(16),
        }
    }
}

/// Buffers larger than this (in elements) are not kept: a deep transaction does not pin
/// its memory for the rest of the thread's life.
const KEEP_BUFFERS_UP_TO: usize = 4096;

/// Empty `v`, if it holds anything (emptying an empty vector of values that need dropping
/// still walks them: the check is cheaper).
#[inline(always)]
fn clear<T>(v: &mut Vec<T>) {
    if !v.is_empty() {
        v.clear();
    }
}

/// Free an emptied buffer grown past what is kept between transactions.
fn let_go_if_large<T>(v: &mut Vec<T>) {
    if v.capacity() > KEEP_BUFFERS_UP_TO {
        *v = Vec::new();
    }
}

thread_local! {
    static SPARE: std::cell::Cell<Option<Buffers>> = const { std::cell::Cell::new(None) };
}

impl Machine {
    /// A machine on `world`, keeping a copy of it for a veto or a failure to put back.
    #[inline(always)]
    fn new(world: World, cx: &Context<'_>) -> Machine {
        let b = SPARE.with(|s| s.take()).unwrap_or_else(Buffers::fresh);
        let start = Some(world.clone());
        Machine::assemble(world, start, b, cx.limits, cx.fixed.clone())
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
        Machine {
            fixed,
            start,
            undo: Vec::new(),
            start_rng: world.rng,
            trial: false,
            world,
            stack: b.stack,
            frames: b.frames,
            jps: b.jps,
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
        self.undo.clear();
        self.stack.clear();
        self.frames.clear();
        self.jps.clear();
        self.befores.clear();
        self.checkpoints.clear();
    }

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
        self.undo.push(Undo::Slot { id, slot, old });
    }

    /// Log that entity `id` was in state `old`.
    #[inline(always)]
    pub(super) fn log_state(&mut self, id: EntityId, old: Symbol) {
        self.undo.push(Undo::State { id, old });
    }

    /// Put the world back as it was when the transaction began (a veto, a failure, an
    /// abandoned wait).
    fn restore_start(&mut self) {
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

    /// Give the machine's stack, frame and join-point buffers, emptied, to the next machine
    /// made on this thread. Called when the transaction is over and the machine is dropped.
    pub fn recycle_buffers(&mut self) {
        let mut b = Buffers {
            stack: std::mem::take(&mut self.stack),
            frames: std::mem::take(&mut self.frames),
            jps: std::mem::take(&mut self.jps),
        };
        if b.stack.capacity() > KEEP_BUFFERS_UP_TO
            || b.frames.capacity() > KEEP_BUFFERS_UP_TO
            || b.jps.capacity() > KEEP_BUFFERS_UP_TO
        {
            return;
        }
        b.stack.clear();
        b.frames.clear();
        b.jps.clear();
        SPARE.with(|s| s.set(Some(b)));
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

    /// The signal the transaction waits for, if any.
    pub fn waiting_for(&self) -> Option<Symbol> {
        self.waiting
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
        if let Some(signal) = self.waiting {
            return Run::Waiting(signal);
        }
        match self.exec(cx) {
            Ok(Flow::End(status)) => self.finish(status),
            Ok(Flow::Wait(sig)) => {
                self.waiting = Some(sig);
                Run::Waiting(sig)
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
            if let Some(signal) = self.waiting {
                return unanswered(signal);
            }
            // The transaction is ended while `exec`'s result stays where `exec` left it
            // (`end` reads only how it ended), then the status moves once, to the
            // caller: it is large to move.
            let mut r = self.exec(cx);
            match &mut r {
                Ok(Flow::End(status)) => self.end(Ending::of(status)),
                Err(e) => self.fail(cx.game, e),
                Ok(_) => {}
            }
            match r {
                Ok(Flow::End(status)) => return status,
                Err(e) => return Status::Failed(e),
                Ok(Flow::Wait(signal)) => {
                    self.waiting = Some(signal);
                    return unanswered(signal);
                }
                Ok(_) => {}
            }
        }
    }

    /// End the transaction after runtime error `e`, which is first told the calls of
    /// functions it happened inside (see [`Machine::note_calls`]).
    #[cold]
    #[inline(never)]
    fn fail(&mut self, game: &Game, e: &mut RuntimeError) {
        self.note_calls(game, e);
        self.end(Ending::Refused);
    }

    fn finish(&mut self, status: Status) -> Run {
        self.end(Ending::of(&status));
        Run::Finished(status)
    }

    /// Clean up after a transaction ended as `ending` says: a failure, a veto or a
    /// rollback puts back the start (a kept rollback the checkpoint's world), and the
    /// stacks are emptied.
    fn end(&mut self, ending: Ending) {
        if let Some(p) = &mut self.profile {
            p.finish(self.meter.steps);
        }
        match ending {
            // A trial's caller keeps, logs or undoes what it did.
            Ending::Committed if self.trial => {}
            Ending::Committed => clear(&mut self.undo),
            Ending::RolledBack if !self.trial => clear(&mut self.undo),
            Ending::RolledBack | Ending::Refused => self.restore_start(),
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

    /// A builtin's error, at `span`.
    fn builtin_error(&self, span: Span, e: BuiltinError) -> RuntimeError {
        RuntimeError {
            message: e.message,
            hint: e.hint,
            span: (span != OUTSIDE).then_some(span),
            chain: self.chain(),
            calls: None,
        }
    }

    fn error(&self, span: Span, message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            message: message.into(),
            hint: None,
            span: (span != OUTSIDE).then_some(span),
            chain: self.chain(),
            calls: None,
        }
    }

    /// Point error `e` at the calls of functions the failing code is in (the frames above
    /// the body of the join point), innermost first, where each was called from: each
    /// place once, with how many of the calls were made there.
    #[cold]
    fn note_calls(&self, game: &Game, e: &mut RuntimeError) {
        let mut calls = super::trace::Calls::default();
        let mut frames = self.frames.iter().rev().peekable();
        while let Some(f) = frames.next() {
            let (Kind::Function, Some(caller)) = (f.kind, frames.peek()) else {
                break;
            };
            // The caller keeps the place after its `Call`.
            let code = game.code(caller.code);
            let Some(&at) = (caller.ip as usize)
                .checked_sub(1)
                .and_then(|i| code.spans.get(i))
            else {
                continue;
            };
            // A place already shown (a recursion) counts the call there.
            let full = calls.sites.len() == super::trace::CALLS_SHOWN;
            match calls.sites.iter_mut().find(|c| c.at == at) {
                Some(shown) => shown.times += 1,
                None if full => calls.more += 1,
                None => calls.sites.push(super::trace::CallSite {
                    function: game.code(f.code).name.clone(),
                    at,
                    times: 1,
                }),
            }
        }
        if !calls.sites.is_empty() {
            e.calls = Some(Box::new(calls));
        }
    }

    /// The chain of messages that led here, innermost first.
    ///
    /// A deep chain is shortened to its innermost and outermost links, so an error 100,000
    /// messages deep neither formats every link nor prints them all.
    fn chain(&self) -> Vec<String> {
        const INNER: usize = 8;
        let link = |jp: &JoinPoint| {
            format!(
                "{} handled {} from {}",
                jp.name,
                jp.msg.label,
                jp.sender.map_or("user", |s| s.as_str())
            )
        };
        let mut out: Vec<String> = self.jps.iter().rev().take(INNER).map(link).collect();
        if self.jps.len() > INNER + 1 {
            out.push(format!("... {} more", self.jps.len() - INNER - 1));
        }
        if self.jps.len() > INNER {
            out.extend(self.jps.first().map(link));
        }
        out
    }

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
        let id = self.current_jp()?.entity;
        if id.is_representation() {
            return None;
        }
        self.world.game_entity(id)?.layout_property(game, name)
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
    fn me(&self) -> Option<(EntityId, Symbol)> {
        self.current_jp().map(|jp| (jp.entity, jp.name))
    }

    fn exec(&mut self, cx: &mut Context<'_>) -> Result<Flow, RuntimeError> {
        let game = cx.game;
        'frames: loop {
            if self.pause_later {
                self.pause_later = false;
            } else if self.paused {
                self.paused = false;
                return Ok(Flow::Enter);
            }
            let Some(frame) = self.frames.last() else {
                // A transaction whose last frame or join point finished: its value is
                // on the stack.
                return Ok(Flow::End(Status::Committed(
                    self.stack.pop().unwrap_or_default(),
                )));
            };
            let mut code = game.code(frame.code);
            let mut base = frame.base as usize;
            let mut ip = frame.ip as usize;
            // How many steps are left before the next check (`left`), which is due at
            // step `self.check_at`: past the budget, or a multiple of 65,536, to look for
            // an interrupt. While the loop runs the step count is `check_at - left`: each
            // instruction takes one from `left` and compares it with zero, and the check
            // itself is out of line (`step_check`), so the loop keeps only `left` in a
            // register. The count is written back to the meter before anything that reads
            // or charges it (builtins, forms, errors, leaving the loop) and read again
            // after.
            self.check_at = next_check(
                self.meter.steps,
                self.meter.limits.max_steps,
                self.check_every,
            );
            let mut left = self.left_to_check();
            // The step count, written back to the meter.
            macro_rules! sync {
                () => {
                    self.meter.steps = self.check_at.wrapping_sub(left as u64)
                };
            }
            // The step count read again from the meter, after something that may have
            // charged it.
            macro_rules! resync {
                () => {
                    left = self.left_to_check()
                };
            }
            macro_rules! out {
                ($e:expr) => {{
                    sync!();
                    let r = $e;
                    resync!();
                    r
                }};
            }
            loop {
                let op = &code.ops[ip];
                #[cfg(feature = "op-stats")]
                super::opstats::count(op, self.frames.last().map_or("top", |f| f.kind.label()));
                ip += 1;
                left -= 1;
                if left <= 0 {
                    sync!();
                    left = self.step_check(cx, code, ip - 1)?;
                }
                // A fused instruction whose fast case does not apply runs the first plain
                // instruction of its sequence instead (its step is already counted), and
                // the rest of the sequence follows.
                macro_rules! load {
                    ($a:expr) => {{
                        let v = self.stack[base + $a as usize].clone();
                        self.stack.push(v);
                    }};
                }
                // Whether the `extra` steps of a fused instruction beyond its first stay
                // short of the next check (else its plain sequence must run, so the check
                // happens at the very instruction it would have happened at).
                macro_rules! room {
                    ($extra:expr) => {
                        left > ($extra) as i64
                    };
                }
                // The frame of the body `next_body` found takes the place of the one
                // that ended, and the loop goes on in it.
                macro_rules! start_next {
                    ($next:expr) => {{
                        let NextBody {
                            code: next,
                            kind,
                            base: at,
                        } = $next;
                        // The ended body's frame becomes the next one's (same base, same
                        // join point), and its locals start nil where the ended one's were.
                        let callee = game.code(next);
                        renew_locals(&mut self.stack, at as usize, callee.locals as usize);
                        if let Some(f) = self.frames.last_mut() {
                            f.code = next;
                            f.ip = 0;
                            f.kind = kind;
                        }
                        code = callee;
                        base = at as usize;
                        ip = 0;
                    }};
                }
                // A `foreach`'s next element into slot `var` (the list and the position
                // on top of the stack), or the loop left for `exit` when there is none;
                // `ip` is past the `IterNext`, whose span an error has.
                macro_rules! iter_next {
                    ($var:expr, $exit:expr) => {{
                        let n = self.stack.len();
                        let (Value::List(list), Value::Int(i)) =
                            (&self.stack[n - 2], &self.stack[n - 1])
                        else {
                            sync!();
                            return Err(self.error(code.spans[ip - 1], "internal: loop state lost"));
                        };
                        let i = *i as usize;
                        match list.get(i) {
                            Some(item) => {
                                let item = item.clone();
                                // An integer over an integer: nothing to drop.
                                std::mem::forget(std::mem::replace(
                                    &mut self.stack[n - 1],
                                    Value::Int(i as i64 + 1),
                                ));
                                overwrite(&mut self.stack[base + $var as usize], item);
                            }
                            None => {
                                self.stack.truncate(n - 2);
                                ip = $exit as usize;
                            }
                        }
                    }};
                }
                // A fused collection read of the collection in local `c` with `key` (and
                // `default`), `extra` steps beyond its first: the value read, or the
                // sequence's first plain instruction.
                macro_rules! fused_read {
                    ($c:expr, $read:expr, $key:expr, $default:expr, $extra:expr) => {{
                        if room!($extra)
                            && let Some(v) =
                                read_fast($read, &self.stack[base + $c as usize], $key, $default)
                        {
                            left -= ($extra) as i64;
                            self.stack.push(v);
                            ip += $extra;
                        } else {
                            load!($c)
                        }
                    }};
                }
                match *op {
                    Op::Nil => self.stack.push(Value::Nil),
                    Op::Bool(b) => self.stack.push(Value::bool(b)),
                    Op::Int(i) => self.stack.push(Value::Int(i)),
                    Op::Float(x) => self.stack.push(Value::float(x)),
                    Op::Str(s) => self.stack.push(Value::sym(s)),
                    Op::Load(slot) => {
                        let v = self.stack[base + slot as usize].clone();
                        self.stack.push(v);
                    }
                    Op::Store(slot) => {
                        let v = self.stack.last().cloned().unwrap_or_default();
                        overwrite(&mut self.stack[base + slot as usize], v);
                    }
                    Op::Take(slot) => {
                        let v = std::mem::take(&mut self.stack[base + slot as usize]);
                        self.stack.push(v);
                    }
                    Op::SetLocal(slot) => {
                        let v = self.stack.pop().unwrap_or_default();
                        overwrite(&mut self.stack[base + slot as usize], v);
                    }
                    Op::Pop => {
                        if let Some(v) = self.stack.pop() {
                            discard(v);
                        }
                    }
                    Op::Jump(t) => ip = t as usize,
                    Op::JumpIfFalse(t) => {
                        let v = self.stack.pop().unwrap_or_default();
                        if !v.truthy() {
                            ip = t as usize;
                        }
                        discard(v);
                    }
                    Op::AndJump(t) => {
                        if self.stack.last().is_some_and(|v| !v.truthy()) {
                            ip = t as usize;
                        } else if let Some(v) = self.stack.pop() {
                            discard(v);
                        }
                    }
                    Op::AndExit { to, exit, ends } => {
                        if self.stack.last().is_some_and(|v| !v.truthy()) {
                            if ends
                                && room!(3)
                                && let Some(next) = self.next_body(cx, false)
                            {
                                // The `if` that ends a law or side-effect is false: the
                                // next body starts (the value, nil or false, is left to
                                // the frame's end).
                                left -= 3;
                                start_next!(next)
                            } else if room!(1) {
                                left -= 1;
                                // Nil or false: nothing to drop.
                                self.stack.pop();
                                ip = exit as usize;
                            } else {
                                ip = to as usize;
                            }
                        } else if let Some(v) = self.stack.pop() {
                            discard(v);
                        }
                    }
                    Op::OrJump(t) => {
                        if self.stack.last().is_some_and(Value::truthy) {
                            ip = t as usize;
                        } else if let Some(v) = self.stack.pop() {
                            discard(v);
                        }
                    }
                    Op::Builtin(index, 2)
                        if (index as usize) < FAST_OPS.len()
                            && matches!(
                                self.stack[self.stack.len() - 2..],
                                [Value::Int(_), Value::Int(_)]
                            ) =>
                    {
                        // Two integers: the commonest case of arithmetic and comparison,
                        // done in place. Overflow and division go the general way.
                        let n = self.stack.len();
                        let (Value::Int(a), Value::Int(b)) =
                            (&self.stack[n - 2], &self.stack[n - 1])
                        else {
                            unreachable!("matched above")
                        };
                        let (a, b) = (*a, *b);
                        let r = FAST_OPS[index as usize]
                            .and_then(|f| f.apply(a, b))
                            .map(int_value);
                        match r {
                            Some(v) => {
                                // Both were integers: nothing to drop.
                                if let Some(b) = self.stack.pop() {
                                    std::mem::forget(b);
                                }
                                std::mem::forget(std::mem::replace(&mut self.stack[n - 2], v));
                            }
                            None => {
                                let f = pure_fn(index as usize);
                                let result = match f {
                                    Some(f) => out!(f(&mut self.stack[n - 2..], &mut self.meter))
                                        .map_err(|e| {
                                        self.builtin_error(code.spans[ip - 1], e)
                                    })?,
                                    None => Value::Nil,
                                };
                                self.stack.truncate(n - 2);
                                self.stack.push(result);
                            }
                        }
                    }
                    Op::Builtin(index, 2)
                        if matches!(
                            FAST_OPS.get(index as usize),
                            Some(Some(IntOp::Eq | IntOp::Ne))
                        ) && !is_collection(&self.stack[self.stack.len() - 2]) =>
                    {
                        // `=` and `!=` whose first value is not a collection (a name,
                        // nil, a boolean, a number): what the builtin would answer, in one
                        // step with nothing to meter.
                        let b = self.stack.pop().unwrap_or_default();
                        let n = self.stack.len();
                        let same = self.stack[n - 1] == b;
                        let r = same == matches!(FAST_OPS[index as usize], Some(IntOp::Eq));
                        discard(b);
                        overwrite(&mut self.stack[n - 1], Value::bool(r));
                    }
                    Op::Builtin(NOT, 1) => {
                        // `not`: what the builtin answers, in place.
                        if let Some(top) = self.stack.last_mut() {
                            let r = Value::bool(!top.truthy());
                            overwrite(top, r);
                        }
                    }
                    Op::Builtin(index @ (FIRST | LAST), 1)
                        if matches!(self.stack.last(), Some(Value::List(_))) =>
                    {
                        // The first or last element of a list (nil when it is empty): what
                        // the builtin answers (it counts nothing), without the call.
                        if let Some(top) = self.stack.last_mut() {
                            let v = match &*top {
                                Value::List(l) if index == FIRST => l.front().cloned(),
                                Value::List(l) => l.back().cloned(),
                                _ => None,
                            };
                            overwrite(top, v.unwrap_or_default());
                        }
                    }
                    Op::Builtin(LOWER, 1)
                        if room!(1)
                            && self.stack.last().and_then(ascii_name).is_some_and(|b| {
                                !b.is_ascii_uppercase()
                                    || self.meter.memory < self.meter.limits.max_memory
                            }) =>
                    {
                        // `lower` of a one-character name (a piece letter): what the
                        // builtin answers, counted as it counts (one step of work, short of
                        // the next check, and a byte of memory when the case changes, which
                        // the guard saw fit), without the call.
                        left -= 1;
                        if let Some(top) = self.stack.last_mut()
                            && let Some(b) = ascii_name(top)
                            && b.is_ascii_uppercase()
                        {
                            self.meter.memory += 1;
                            let lower = Symbol::from_id(u32::from(b.to_ascii_lowercase()));
                            overwrite(top, Value::sym(lower));
                        }
                    }
                    Op::Builtin(CONTAINS, 2) => {
                        // A one-character name in a string (a piece letter in "KQRBNP"):
                        // what the builtin answers, its work (the string's length) counted
                        // when it stays short of the next check, without the call; anything
                        // else calls the builtin.
                        let n = self.stack.len();
                        match contains_letter(&self.stack[n - 2], &self.stack[n - 1])
                            .filter(|&(len, _)| room!(len))
                        {
                            Some((len, found)) => {
                                left -= len as i64;
                                if let Some(v) = self.stack.pop() {
                                    discard(v);
                                }
                                overwrite(&mut self.stack[n - 2], Value::bool(found));
                            }
                            None => {
                                if let Some(f) = pure_fn(CONTAINS as usize)
                                    && let Err(e) = out!(self.call_pure(f, 2))
                                {
                                    sync!();
                                    return Err(self.builtin_error(code.spans[ip - 1], e));
                                }
                            }
                        }
                    }
                    Op::Builtin(index, argc) => match pure_fn(index as usize) {
                        Some(f) => {
                            if let Err(e) = out!(self.call_pure(f, argc)) {
                                sync!();
                                return Err(self.builtin_error(code.spans[ip - 1], e));
                            }
                        }
                        None => out!(self.call_builtin(cx, index, argc, code, ip))?,
                    },
                    // A list to iterate stays where it is, its position after it (a
                    // dictionary, nil or an error goes the general way).
                    Op::IterStart if matches!(self.stack.last(), Some(Value::List(_))) => {
                        self.stack.push(Value::Int(0))
                    }
                    Op::IterNext { var, exit } => iter_next!(var, exit),
                    // The end of a `foreach` body takes the next element at once.
                    Op::IterLoop { to, var, exit } => {
                        if room!(1) {
                            left -= 1;
                            ip = to as usize + 1;
                            iter_next!(var, exit)
                        } else {
                            ip = to as usize;
                        }
                    }
                    // A property of the layout of the entity running, read where it lies;
                    // anything else (a representation, a property made at run time, a
                    // missing one) the general way.
                    Op::Property(name) if let Some(v) = self.own_layout_property(game, name) => {
                        let v = v.clone();
                        self.stack.push(v);
                    }
                    Op::Property(name) => {
                        let span = code.spans[ip - 1];
                        let v = match self.me() {
                            Some((id, _)) => out!(self.own_property(cx, id, name, span))?,
                            None => {
                                sync!();
                                return Err(self.no_entity(span, "(property <name> of <entity>)"));
                            }
                        };
                        self.stack.push(v);
                    }
                    Op::PropertyOf(name) => {
                        let entity = self.stack.pop().unwrap_or_default();
                        let v = out!(self.property_of(cx, &entity, name, code.spans[ip - 1]))?;
                        self.stack.push(v);
                    }
                    Op::Attribute(key) => {
                        let v = match self.current_jp() {
                            Some(jp) => jp
                                .msg
                                .attrs
                                .get(&Key::sym(key))
                                .cloned()
                                .unwrap_or_default(),
                            None => {
                                sync!();
                                return Err(self.no_message(code.spans[ip - 1]));
                            }
                        };
                        self.stack.push(v);
                    }
                    Op::Hole => self.stack.push(Value::Nil),
                    // Calling a #define function and returning from one switch frames
                    // here, without going round the outer loop, unless a step is pending:
                    // neither can end the transaction.
                    Op::Call(callee_id, argc) => {
                        // Frames are only ever pushed under a running frame, so there is
                        // always a caller here: it keeps where to come back to.
                        let jp = match self.frames.last_mut() {
                            Some(f) => {
                                f.ip = ip as u32;
                                f.jp
                            }
                            None => NO_JP,
                        };
                        if self.frames.len() + self.jps.len() >= cx.limits.max_depth {
                            sync!();
                            return Err(self.depth_error(code.spans[ip - 1], cx.limits));
                        }
                        let callee = game.code(callee_id);
                        let at = self.stack.len() - argc as usize;
                        // The parameters are the arguments: only the other locals start nil.
                        let extra = (callee.locals as usize).saturating_sub(argc as usize);
                        if extra > 0 {
                            push_nils_apart(&mut self.stack, extra);
                        }
                        self.frames.push(Frame {
                            code: callee_id,
                            ip: 0,
                            base: at as u32,
                            kind: Kind::Function,
                            jp,
                        });
                        if self.paused | self.pause_later {
                            // A step is pending (from a form before the call): it is
                            // taken where the frames switch, as for any other frame.
                            sync!();
                            continue 'frames;
                        }
                        code = callee;
                        base = at;
                        ip = 0;
                    }
                    // A function's frame always has its caller's below it (only `Op::Call`
                    // pushes one), so leaving it never ends the transaction.
                    // `JumpEnd` counts its jump's step too, and only when that step stays
                    // short of the next check, as a fused instruction does.
                    Op::Return | Op::End | Op::JumpEnd(_)
                        if self.frames.last().is_some_and(|f| f.kind == Kind::Function)
                            && (!matches!(op, Op::JumpEnd(_)) || room!(1)) =>
                    {
                        debug_assert!(self.frames.len() >= 2, "a function frame has a caller");
                        if let Op::JumpEnd(to) = *op {
                            debug_assert!(code.ops.get(to as usize) == Some(&Op::End));
                            left -= 1;
                        }
                        self.frames.pop();
                        // The value on top takes the place of the first local (or
                        // argument), and the rest go: the commonest case, one parameter,
                        // drops just it, inline, where `truncate` calls the general drop.
                        let len = self.stack.len();
                        debug_assert!(len > base, "a body leaves its value above its locals");
                        if len > base + 1 {
                            let first = self.stack.swap_remove(base);
                            self.stack.truncate(base + 1);
                            Value::release(first);
                        } else if len <= base {
                            // The body left nothing above its locals (no body does).
                            self.stack.truncate(base);
                            self.stack.push(Value::Nil);
                        }
                        if self.paused | self.pause_later {
                            sync!();
                            continue 'frames;
                        }
                        let Some(caller) = self.frames.last() else {
                            sync!();
                            continue 'frames;
                        };
                        code = game.code(caller.code);
                        base = caller.base as usize;
                        ip = caller.ip as usize;
                    }
                    // The end of a law or side-effect body (not a `return`, which in a
                    // law vetoes) that is not the last of its join point's chain: the
                    // next one starts here (see `Machine::next_body`).
                    Op::End | Op::NilEnd
                        if (matches!(op, Op::End) || room!(1))
                            && let Some(next) = self.next_body(cx, matches!(op, Op::End)) =>
                    {
                        if matches!(op, Op::NilEnd) {
                            left -= 1;
                        }
                        start_next!(next)
                    }
                    // `(if c ...)` ending such a body: a false test ends it at once.
                    Op::TestEnd(to) => {
                        let v = self.stack.pop().unwrap_or_default();
                        let go_on = v.truthy();
                        discard(v);
                        if !go_on {
                            if room!(2)
                                && let Some(next) = self.next_body(cx, false)
                            {
                                left -= 2;
                                start_next!(next)
                            } else {
                                ip = to as usize;
                            }
                        }
                    }
                    Op::NilEnd => self.stack.push(Value::Nil),
                    Op::LocalConst { a, op: f, k } => {
                        if let Value::Int(x) = self.stack[base + a as usize]
                            && let Some(r) = f.apply(x, i64::from(k))
                            && room!(2)
                        {
                            left -= 2;
                            self.stack.push(int_value(r));
                            ip += 2;
                        } else {
                            load!(a)
                        }
                    }
                    Op::Locals { a, b, op: f } => {
                        if let (Value::Int(x), Value::Int(y)) = (
                            &self.stack[base + a as usize],
                            &self.stack[base + b as usize],
                        ) && let Some(r) = f.apply(*x, *y)
                            && room!(2)
                        {
                            left -= 2;
                            self.stack.push(int_value(r));
                            ip += 2;
                        } else {
                            load!(a)
                        }
                    }
                    Op::Const { op: f, k } => {
                        if let Some(top) = self.stack.last_mut()
                            && let Value::Int(x) = *top
                            && let Some(r) = f.apply(x, i64::from(k))
                            && room!(1)
                        {
                            left -= 1;
                            // An integer is replaced: nothing to drop.
                            std::mem::forget(std::mem::replace(top, int_value(r)));
                            ip += 1;
                        } else {
                            self.stack.push(Value::Int(i64::from(k)))
                        }
                    }
                    Op::SetLocalConst { a, dst, op: f, k } => {
                        if let Value::Int(x) = self.stack[base + a as usize]
                            && let Some(r) = f.apply(x, i64::from(k))
                            && room!(3)
                        {
                            left -= 3;
                            let slot = &mut self.stack[base + dst as usize];
                            match (slot, r) {
                                // An integer over an integer (`(var i (+ i 1))`): nothing
                                // to drop.
                                (Value::Int(old), IntValue::Int(new)) => *old = new,
                                (slot, r) => overwrite(slot, int_value(r)),
                            }
                            ip += 3;
                            // A loop's body ends here (`(var i (+ i 1))` before the jump back
                            // to its fused test): the test runs now, as its instruction would
                            // next, counting its own step and the four it stands for, short
                            // of the next check; else the loop goes on as usual.
                            if let Some(to) = code
                                .ops
                                .get(ip)
                                .and_then(|&next| loop_test(&self.stack, base, next))
                                && room!(5)
                            {
                                left -= 5;
                                ip = to as usize;
                            }
                        } else {
                            load!(a)
                        }
                    }
                    Op::LocalConstJump { a, op: f, k, to } => {
                        if let Value::Int(x) = self.stack[base + a as usize]
                            && let Some(IntValue::Bool(t)) = f.apply(x, i64::from(k))
                            && room!(3)
                        {
                            left -= 3;
                            ip = if t { ip + 3 } else { to as usize };
                        } else {
                            load!(a)
                        }
                    }
                    Op::LocalsJump { a, b, op: f, to } => {
                        if let (Value::Int(x), Value::Int(y)) = (
                            &self.stack[base + a as usize],
                            &self.stack[base + b as usize],
                        ) && let Some(IntValue::Bool(t)) = f.apply(*x, *y)
                            && room!(3)
                        {
                            left -= 3;
                            ip = if t { ip + 3 } else { to as usize };
                        } else {
                            load!(a)
                        }
                    }
                    Op::LoopLocalConst { body, .. } | Op::LoopLocals { body, .. } => {
                        if let Some(to) = loop_test(&self.stack, base, *op)
                            && room!(4)
                        {
                            left -= 4;
                            ip = to as usize;
                        } else {
                            // The plain jump to the test.
                            ip = body as usize - 4;
                        }
                    }
                    Op::JumpEnd(to) => ip = to as usize,
                    // Collection reads: the collection and the key are borrowed in their
                    // slots, and only the value read is cloned. Anything but a plain read
                    // (another kind, `nth` out of range, an error) runs the plain sequence.
                    Op::ReadLocals { c, k, read } => {
                        fused_read!(c, read, &self.stack[base + k as usize], None, 2)
                    }
                    Op::ReadConst { c, read, k } => {
                        fused_read!(c, read, &Value::Int(i64::from(k)), None, 2)
                    }
                    Op::GetOr { c, k, default } => fused_read!(
                        c,
                        Read::Get,
                        &self.stack[base + k as usize],
                        Some(i64::from(default)),
                        3
                    ),
                    // `(contains "KQRBNP" p)`: a one-character name looked for in a
                    // string of distinct letters, answered by one bit test, its work (the
                    // string's length) counted as `Op::Builtin`'s fast path counts it.
                    Op::LetterIn { s, letters, a } => {
                        let len = letters.count_ones();
                        let byte = match &self.stack[base + a as usize] {
                            Value::Str(t) => t.ascii_byte(),
                            _ => None,
                        };
                        match byte {
                            Some(b) if room!(2 + len) => {
                                left -= 2 + i64::from(len);
                                let found = b >= 64 && (letters >> (b - 64)) & 1 == 1;
                                self.stack.push(Value::bool(found));
                                ip += 2;
                            }
                            _ => self.stack.push(Value::sym(s)),
                        }
                    }
                    // `(contains "Bb" (property "piece"))`: as `LetterIn`, on the running
                    // entity's property read where it lies; anything else (no such
                    // property here, a value that is not a one-character name, a budget
                    // that ends inside) runs the plain instructions.
                    Op::LetterInProperty { s, name } => {
                        let byte = match self.me() {
                            Some((id, _)) => {
                                match self.world.entity(id).and_then(|e| e.property(game, name)) {
                                    Some(Value::Str(t)) => t.ascii_byte(),
                                    _ => None,
                                }
                            }
                            None => None,
                        };
                        let hay = byte.map(|b| (b, s.as_str().as_bytes()));
                        match hay {
                            Some((b, hay)) if room!(2 + hay.len()) => {
                                left -= 2 + hay.len() as i64;
                                self.stack.push(Value::bool(hay.contains(&b)));
                                ip += 2;
                            }
                            _ => self.stack.push(Value::sym(s)),
                        }
                    }
                    Op::NilPop => {
                        if room!(1) {
                            left -= 1;
                            ip += 1;
                        } else {
                            self.stack.push(Value::Nil);
                        }
                    }
                    // `=` or `!=` with a literal string, on a value that is not a
                    // collection: what `Op::Builtin`'s fast path answers.
                    Op::StrCmp { s, eq } => {
                        if room!(1)
                            && let Some(top) = self.stack.last_mut()
                            && !is_collection(top)
                        {
                            left -= 1;
                            let r = (*top == Value::sym(s)) == eq;
                            overwrite(top, Value::bool(r));
                            ip += 1;
                        } else {
                            self.stack.push(Value::sym(s));
                        }
                    }
                    Op::StrCmpJump { s, eq, to } => {
                        if room!(2)
                            && let Some(top) = self.stack.last()
                            && !is_collection(top)
                        {
                            left -= 2;
                            let t = (*top == Value::sym(s)) == eq;
                            if let Some(v) = self.stack.pop() {
                                discard(v);
                            }
                            ip = if t { ip + 2 } else { to as usize };
                        } else {
                            self.stack.push(Value::sym(s));
                        }
                    }
                    // `(if (= p "K") ...)` on a local that is not a collection: what
                    // `StrCmpJump` answers, without copying the local.
                    Op::LocalStrCmpJump { a, s, eq, to } => {
                        let local = &self.stack[base + a as usize];
                        if room!(3) && !is_collection(local) {
                            left -= 3;
                            let t = (*local == Value::sym(s)) == eq;
                            ip = if t { ip + 3 } else { to as usize };
                        } else {
                            load!(a)
                        }
                    }
                    // `(if (= q nil) ...)` on a local that is not a collection.
                    Op::LocalNilJump { a, eq, to } => {
                        let local = &self.stack[base + a as usize];
                        if room!(3) && !is_collection(local) {
                            left -= 3;
                            let t = (*local == Value::Nil) == eq;
                            ip = if t { ip + 3 } else { to as usize };
                        } else {
                            load!(a)
                        }
                    }
                    Op::LocalJump { a, to } => {
                        if room!(1) {
                            left -= 1;
                            ip = if self.stack[base + a as usize].truthy() {
                                ip + 1
                            } else {
                                to as usize
                            };
                        } else {
                            load!(a)
                        }
                    }
                    // `(property "p" of e)` with `e` a local or a literal name: the name
                    // is read where it lies, and the span is the `PropertyOf`'s.
                    Op::LocalPropertyOf { a, name } => {
                        if room!(1) {
                            left -= 1;
                            let entity = &self.stack[base + a as usize];
                            let v = match self.fixed_property(game, entity, name) {
                                Some(v) => v.clone(),
                                None => out!(self.property_of(cx, entity, name, code.spans[ip]))?,
                            };
                            self.stack.push(v);
                            ip += 1;
                        } else {
                            load!(a)
                        }
                    }
                    // The same, into a local: in one step when the property is one the
                    // loop reads itself, else as `LocalPropertyOf` (its `SetLocal` next).
                    Op::LocalPropertyTo { a, name, dst } => {
                        let fast = if room!(2) {
                            self.fixed_property(game, &self.stack[base + a as usize], name)
                                .cloned()
                        } else {
                            None
                        };
                        match fast {
                            Some(v) => {
                                left -= 2;
                                overwrite(&mut self.stack[base + dst as usize], v);
                                ip += 2;
                            }
                            None => load!(a),
                        }
                    }
                    Op::SetLocalJump { a, to } => {
                        let v = self.stack.pop().unwrap_or_default();
                        let go_on = v.truthy();
                        overwrite(&mut self.stack[base + a as usize], v);
                        if room!(2) {
                            left -= 2;
                            ip = if go_on { ip + 2 } else { to as usize };
                        }
                    }
                    Op::NamedPropertyOf { entity, name } => {
                        if room!(1) {
                            left -= 1;
                            let fast = self
                                .fixed_entity_of(entity)
                                .and_then(|(_, e)| e.layout_property(game, name));
                            let v = match fast {
                                Some(v) => v.clone(),
                                None => out!(self.property_of(
                                    cx,
                                    &Value::sym(entity),
                                    name,
                                    code.spans[ip]
                                ))?,
                            };
                            self.stack.push(v);
                            ip += 1;
                        } else {
                            self.stack.push(Value::sym(entity));
                        }
                    }
                    // `(get (property "p" of e) k)`: the table read where it lies, only
                    // the value found copied (no count taken on the table); anything the
                    // fused read does not answer runs the plain instructions.
                    Op::PropertyGet { .. } | Op::NamedPropertyGet { .. } => {
                        match if room!(3) {
                            self.property_get(game, base, *op)
                        } else {
                            None
                        } {
                            Some(v) => {
                                left -= 3;
                                self.stack.push(v);
                                ip += 3;
                            }
                            None => match *op {
                                Op::PropertyGet { a, .. } => load!(a),
                                Op::NamedPropertyGet { entity, .. } => {
                                    self.stack.push(Value::sym(entity))
                                }
                                _ => {}
                            },
                        }
                    }
                    Op::JumpPop(to) => {
                        if room!(1) {
                            left -= 1;
                            if let Some(v) = self.stack.pop() {
                                discard(v);
                            }
                            ip = to as usize + 1;
                        } else {
                            ip = to as usize;
                        }
                    }
                    Op::OpJump { op: f, to } => {
                        let n = self.stack.len();
                        if n >= 2
                            && let (Value::Int(x), Value::Int(y)) =
                                (&self.stack[n - 2], &self.stack[n - 1])
                            && let Some(IntValue::Bool(t)) = f.apply(*x, *y)
                            && room!(1)
                        {
                            left -= 1;
                            // Two integers: nothing to drop.
                            for _ in 0..2 {
                                if let Some(v) = self.stack.pop() {
                                    discard(v);
                                }
                            }
                            ip = if t { ip + 1 } else { to as usize };
                        } else if matches!(f, IntOp::Eq | IntOp::Ne)
                            && n >= 2
                            && !is_collection(&self.stack[n - 2])
                        {
                            // `=` or `!=` whose first value is not a collection (a name
                            // compared with a name, most often): answered here as
                            // `Op::Builtin`'s fast path answers it, then the jump, when
                            // its step stays short of the next check (else the plain
                            // `JumpIfFalse` follows).
                            let b = self.stack.pop().unwrap_or_default();
                            let a = self.stack.pop().unwrap_or_default();
                            let t = (a == b) == (f == IntOp::Eq);
                            discard(a);
                            discard(b);
                            if room!(1) {
                                left -= 1;
                                ip = if t { ip + 1 } else { to as usize };
                            } else {
                                self.stack.push(Value::bool(t));
                            }
                        } else {
                            out!(self.call_builtin(cx, builtin_of(f), 2, code, ip))?;
                        }
                    }
                    _ => match out!(self.exec_other(cx, *op, code, base, ip)) {
                        Next::Go => {}
                        Next::Skip(extra) => ip += extra,
                        Next::Frames => continue 'frames,
                        Next::Done(flow) => return Ok(*flow),
                        Next::Fail(e) => return Err(*e),
                    },
                }
            }
        }
    }

    /// When the running frame is a law, behaviour or side-effect body that has just
    /// ended normally and the next body of its join point's chain is due (see
    /// `next_advice`), with nothing traced or stepped and no step pending: that next body,
    /// its join point's phase moved on to it (and a behaviour's value, on top of the
    /// stack when `value_on_stack`, else nil, kept as the join point's), for the
    /// instruction loop to start in the ended one's place as `leave` and `advance` would
    /// (their events, unrecorded, are not made). `None`, with nothing changed, otherwise.
    #[inline(always)]
    fn next_body(&mut self, cx: &Context<'_>, value_on_stack: bool) -> Option<NextBody> {
        if cx.trace || cx.stepping || self.paused || self.pause_later {
            return None;
        }
        let &Frame {
            kind: ended @ (Kind::Law | Kind::SideEffect | Kind::Behaviour),
            base,
            jp,
            ..
        } = self.frames.last()?
        else {
            return None;
        };
        let point = self.jps.last_mut()?;
        let (code, phase, kind) = next_advice(point, ended)?;
        point.phase = phase;
        if ended == Kind::Behaviour {
            let value = if value_on_stack {
                self.stack.pop().unwrap_or_default()
            } else {
                Value::Nil
            };
            overwrite(&mut point.value, value);
        }
        debug_assert_eq!(jp as usize, self.jps.len() - 1);
        Some(NextBody { code, kind, base })
    }

    /// What a fused `(get (property name of e) k)` (`op`, an [`Op::PropertyGet`] or
    /// [`Op::NamedPropertyGet`] in the frame at `base`) reads, when the entity is one the
    /// game started with, the property one of its layout and the read one `read_fast`
    /// answers; `None` otherwise (the plain instructions run). Out of line: the
    /// instruction loop keeps its registers.
    #[inline(never)]
    fn property_get(&self, game: &Game, base: usize, op: Op) -> Option<Value> {
        let (table, k) = match op {
            Op::PropertyGet { a, name, k } => (
                self.fixed_property(game, &self.stack[base + a as usize], name)?,
                k,
            ),
            Op::NamedPropertyGet { entity, name, k } => (
                self.fixed_entity_of(entity)?
                    .1
                    .layout_property(game, name)?,
                k,
            ),
            _ => return None,
        };
        read_fast(Read::Get, table, &self.stack[base + k as usize], None)
    }

    /// The steps left before the instruction loop's next check, due at step
    /// [`Machine::check_at`]: zero or less when the count has reached it (a builtin may
    /// count past it), so the check is due at the next instruction and `check_at - left`
    /// is still the count.
    #[inline(always)]
    fn left_to_check(&self) -> i64 {
        self.check_at.wrapping_sub(self.meter.steps) as i64
    }

    /// The instruction loop's check, due (the count is in the meter) after instruction
    /// `at` of `code`: the step budget, then an interrupt; the steps left before the next
    /// one. Out of line, so the loop keeps none of what it reads in registers.
    #[inline(never)]
    fn step_check(
        &mut self,
        cx: &Context<'_>,
        code: &crate::compile::bytecode::Code,
        at: usize,
    ) -> Result<i64, RuntimeError> {
        let steps = self.meter.steps;
        let max_steps = self.meter.limits.max_steps;
        if let Some(p) = &mut self.profile
            && let Some(f) = self.frames.last()
        {
            p.charge(steps, f.code, (self.frames.len(), f.base), at);
        }
        let span = code.spans[at];
        if steps > max_steps {
            let e = self.meter.step_error();
            return Err(self.builtin_error(span, e));
        }
        if cx
            .interrupt
            .is_some_and(|i| i.swap(false, std::sync::atomic::Ordering::Relaxed))
        {
            return Err(self.error(span, "interrupted"));
        }
        self.check_at = next_check(steps, max_steps, self.check_every);
        Ok(self.left_to_check())
    }

    /// The fast case of a fused update of a collection in its local ([`Op::PutLocal`],
    /// [`Op::PutAdd`]) of the frame whose locals start at `base`: whether it applied. When
    /// it does not (another kind of value, a value to measure, an error to report, no room
    /// before the next step check, a step pending), nothing has changed and the plain
    /// instructions run.
    ///
    /// The instruction loop leaves these instructions to [`Machine::exec_other`] (so the
    /// loop, which keeps the common instructions in registers, has no more code): when the
    /// fast case applies, the sequence's steps are counted here and the loop goes on past
    /// the rest of the sequence ([`Next::Skip`]), in the same frame. The loop checks steps
    /// at [`next_check`] of the count it last checked at, which is [`next_check`] of any
    /// count short of it: the sequence's steps must stay short of that (the loop's
    /// `room!`).
    #[inline(never)]
    fn fused_update(&mut self, op: Op, base: usize) -> bool {
        let steps = self.meter.steps;
        let extra = op.weight() - 1;
        if steps + extra >= next_check(steps, self.meter.limits.max_steps, self.check_every) {
            return false;
        }
        let done = match op {
            Op::PutLocal { slot } => self.put_local(base + slot as usize),
            Op::PutAdd { d, k, default, n } => {
                self.put_add(base + d as usize, base + k as usize, default, n)
            }
            _ => false,
        };
        if done {
            self.meter.steps += extra;
        }
        done
    }

    /// [`Op::PutLocal`]: `(var c (put c key value))` on the dictionary or list in stack
    /// slot `at` (a local), with the key and the value on top of the stack above the hole,
    /// when the value is not a collection (measuring it costs nothing) and the key is one
    /// the collection takes, new within the limits: the collection is updated where it
    /// lies, as `put` updates it, and the hole, key and value go.
    fn put_local(&mut self, at: usize) -> bool {
        let n = self.stack.len();
        let Some((locals, [_, key, value])) =
            n.checked_sub(3).map(|top| self.stack.split_at_mut(top))
        else {
            return false;
        };
        if is_collection(value) {
            return false;
        }
        match (locals.get_mut(at), &*key) {
            (Some(Value::Dict(dict)), Value::Int(_) | Value::Str(_)) => {
                let key = match &*key {
                    Value::Int(i) => Key::Int(*i),
                    Value::Str(s) => Key::Str(s.clone()),
                    _ => return false,
                };
                let place = dict.search(&key);
                if place.is_new() && !add_entry(&mut self.meter, dict.len()) {
                    return false;
                }
                if let Some(old) = Dict::insert_in(dict, place, key, std::mem::take(value)) {
                    Value::release(old);
                }
            }
            (Some(Value::List(list)), Value::Int(i)) => {
                let Some(u) = usize::try_from(*i).ok().filter(|&u| u < list.len()) else {
                    return false;
                };
                List::make_mut(list, 0).set(u, std::mem::take(value), 0);
            }
            _ => return false,
        }
        // The hole (nil), the key and the value (moved out): nothing to drop but a string
        // key.
        for v in &mut self.stack[n - 3..] {
            Value::release(std::mem::take(v));
        }
        // SAFETY: the last three values are nil (taken above): letting them go frees
        // nothing.
        unsafe { self.stack.set_len(n - 3) };
        true
    }

    /// [`Op::PutAdd`]: `(var d (put d k (+ (get d k default) n)))` on the dictionary in
    /// stack slot `d` with the key in slot `k` (locals), when it is an integer or a string,
    /// the value read (or the default) is an integer, the sum does not overflow and a new
    /// key stays within the limits: the dictionary is searched once and updated where it
    /// lies, as `put` updates it.
    fn put_add(&mut self, d: usize, k: usize, default: i32, n: i32) -> bool {
        let key = match self.stack.get(k) {
            Some(Value::Int(i)) => Key::Int(*i),
            Some(Value::Str(s)) => Key::Str(s.clone()),
            _ => return false,
        };
        let Some(Value::Dict(dict)) = self.stack.get_mut(d) else {
            return false;
        };
        let place = dict.search(&key);
        let old = match dict.value_at(place) {
            Some(Value::Int(x)) => *x,
            Some(_) => return false,
            None => i64::from(default),
        };
        let Some(sum) = old.checked_add(i64::from(n)) else {
            return false;
        };
        if place.is_new() && !add_entry(&mut self.meter, dict.len()) {
            return false;
        }
        if let Some(old) = Dict::insert_in(dict, place, key, Value::Int(sum)) {
            Value::release(old);
        }
        true
    }

    /// Call builtin `index` on the `argc` values on top of the stack, leaving its result
    /// there instead. The instruction is the one before `ip` in `code`: its span is looked
    /// up only when it is needed (an error, or a builtin that reads the context).
    fn call_builtin(
        &mut self,
        cx: &mut Context<'_>,
        index: u16,
        argc: u8,
        code: &crate::compile::bytecode::Code,
        ip: usize,
    ) -> Result<(), RuntimeError> {
        if index == SELF {
            // `self` (common in laws and behaviours): the running entity's name, as
            // `context_builtin` gives it, without its dispatch.
            let v = self.me().map_or(Value::Nil, |(_, n)| Value::sym(n));
            self.stack.push(v);
            return Ok(());
        }
        let at = self.stack.len() - argc as usize;
        let result = match pure_fn(index as usize) {
            Some(f) => match f(&mut self.stack[at..], &mut self.meter) {
                Ok(v) => v,
                Err(e) => return Err(self.builtin_error(code.spans[ip - 1], e)),
            },
            None => self.context_builtin(cx, index as usize, at, code.spans[ip - 1])?,
        };
        self.place_result(at, argc, result);
        Ok(())
    }

    /// Call pure builtin `f` on the `argc` values on top of the stack, where they lie,
    /// leaving its result there instead: [`Machine::call_builtin`] for a builtin the
    /// instruction loop found pure, with less to set up.
    #[inline(never)]
    fn call_pure(&mut self, f: PureFn, argc: u8) -> Result<(), BuiltinError> {
        let at = self.stack.len() - argc as usize;
        let result = f(&mut self.stack[at..], &mut self.meter)?;
        self.place_result(at, argc, result);
        Ok(())
    }

    /// Put `result` of a builtin called on the `argc` values from `at` to the top of the
    /// stack in their place: over the first argument (no capacity check), or pushed when
    /// there were none.
    #[inline(always)]
    fn place_result(&mut self, at: usize, argc: u8, result: Value) {
        if argc == 0 {
            self.stack.push(result);
        } else {
            while self.stack.len() > at + 1 {
                if let Some(v) = self.stack.pop() {
                    Value::release(v);
                }
            }
            Value::release(std::mem::replace(&mut self.stack[at], result));
        }
    }

    /// The less common instructions [`Machine::exec`] does not run in its own loop
    /// (`switch` cases, the message, starting a `foreach`, forms, leaving a body that is
    /// not a function, in-place updates). Kept out of the loop so its registers hold what
    /// the common instructions use.
    #[inline(never)]
    fn exec_other(
        &mut self,
        cx: &mut Context<'_>,
        op: Op,
        code: &crate::compile::bytecode::Code,
        base: usize,
        ip: usize,
    ) -> Next {
        match self.exec_other_inner(cx, op, code, base, ip) {
            Ok(next) => next,
            Err(e) => Next::Fail(Box::new(e)),
        }
    }

    #[inline(always)]
    fn exec_other_inner(
        &mut self,
        cx: &mut Context<'_>,
        op: Op,
        code: &crate::compile::bytecode::Code,
        base: usize,
        ip: usize,
    ) -> Result<Next, RuntimeError> {
        match op {
            Op::PutLocal { .. } | Op::PutAdd { .. } if self.fused_update(op, base) => {
                return Ok(Next::Skip((op.weight() - 1) as usize));
            }
            Op::Message => {
                let v = match self.current_jp() {
                    Some(jp) => Value::Message(jp.msg.clone()),
                    None => Value::Nil,
                };
                self.stack.push(v);
            }
            Op::CaseEq => {
                let v = self.stack.pop().unwrap_or_default();
                let eq = match self.stack.last() {
                    Some(x) => self
                        .meter
                        .equal(x, &v)
                        .map_err(|e| self.builtin_error(code.spans[ip - 1], e))?,
                    None => false,
                };
                self.stack.push(Value::bool(eq));
            }
            Op::IterStart => {
                let v = self.stack.pop().unwrap_or_default();
                let list = match v {
                    Value::List(l) => l,
                    Value::Dict(d) => {
                        self.meter
                            .work(d.len())
                            .and_then(|()| self.meter.alloc(ELEMENT_BYTES * d.len() as u64))
                            .map_err(|e| self.builtin_error(code.spans[ip - 1], e))?;
                        Rc::new(d.keys().map(|k| k.to_value()).collect())
                    }
                    Value::Nil => Rc::new(List::new()),
                    other => {
                        return Err(self.error(
                            code.spans[ip - 1],
                            format!(
                                "foreach needs a list or dictionary, got {} {other}",
                                other.type_name()
                            ),
                        ));
                    }
                };
                self.stack.push(Value::List(list));
                self.stack.push(Value::Int(0));
            }
            Op::Form(form, nattrs) => {
                // The commonest write, done in place: its nil is already on the stack.
                if matches!(form, crate::syntax::ast::FormOp::UpdateProperty)
                    && nattrs == 0
                    && self.update_own_property_here(cx)
                {
                    return Ok(Next::Go);
                }
                if let Some(f) = self.frames.last_mut() {
                    f.ip = ip as u32;
                }
                match self.form(cx, form, nattrs, code.spans[ip - 1])? {
                    Flow::Value(v) => self.stack.push(v),
                    Flow::Enter => return Ok(Next::Frames),
                    other => return Ok(Next::Done(Box::new(other))),
                }
            }
            Op::Return | Op::End => {
                let value = self.stack.pop().unwrap_or_default();
                match self.leave(cx, value, matches!(op, Op::Return)) {
                    // The commonest end: with no frame left and no step pending, the
                    // outer loop ends the transaction with the value on the stack, so
                    // nothing is boxed.
                    Some(Status::Committed(value)) if !self.paused && !self.pause_later => {
                        self.stack.push(value);
                        return Ok(Next::Frames);
                    }
                    Some(status) => return Ok(Next::Done(Box::new(Flow::End(status)))),
                    None => {}
                }
                return Ok(Next::Frames);
            }
            // A fused update whose fast case did not apply runs its first plain instruction:
            // `UpdateLocal`, or the `Hole` of an `Op::PutAdd`.
            Op::UpdateLocal { .. } | Op::PutLocal { .. } | Op::PutAdd { .. } => {
                let plain = match op {
                    Op::PutLocal { slot } => Some((slot, put_builtin(), 3)),
                    Op::UpdateLocal { slot, func, argc } => Some((slot, func, argc)),
                    _ => None,
                };
                let result = match plain {
                    Some((slot, func, argc)) => {
                        let span = code.spans[ip - 1];
                        let v = std::mem::take(&mut self.stack[base + slot as usize]);
                        let at = self.stack.len() - argc as usize;
                        // The hole pushed where the collection was read: it holds nil.
                        self.stack[at] = v;
                        let result = match pure_fn(func as usize) {
                            Some(f) => f(&mut self.stack[at..], &mut self.meter)
                                .map_err(|e| self.builtin_error(span, e)),
                            None => self.context_builtin(cx, func as usize, at, span),
                        }?;
                        self.stack.truncate(at);
                        result
                    }
                    None => Value::Nil,
                };
                self.stack.push(result);
            }
            _ => {}
        }
        Ok(Next::Go)
    }

    fn depth_error(&self, span: Span, limits: Limits) -> RuntimeError {
        let mut e = self.error(
            span,
            format!(
                "message depth limit reached: {} nested sends and calls",
                limits.max_depth
            ),
        );
        e.hint = Some(
            "an endless chain of messages or recursion? raise the limit with --max-depth".into(),
        );
        e
    }

    /// The running frame returned `value`. Returns the final status when the transaction
    /// is over.
    fn leave(&mut self, cx: &mut Context<'_>, value: Value, explicit: bool) -> Option<Status> {
        let frame = self.frames.pop()?;
        truncate_releasing(&mut self.stack, frame.base as usize);
        match frame.kind {
            Kind::Function => {
                self.stack.push(value);
                None
            }
            Kind::Top => {
                if self.frames.is_empty() {
                    Some(Status::Committed(value))
                } else {
                    self.stack.push(value);
                    None
                }
            }
            Kind::Law if explicit => {
                Value::release(value);
                self.veto(cx)
            }
            Kind::Law | Kind::SideEffect => {
                // A law or side-effect's value goes unread (most often nil, from its
                // last `if`).
                Value::release(value);
                self.advance(cx)
            }
            Kind::Behaviour => {
                if let Some(jp) = self.jps.last_mut() {
                    if jp.chain.side_effects.is_empty()
                        && matches!(jp.then, Then::Give)
                        && !(cx.trace || cx.stepping)
                    {
                        // No side-effect to run and nothing to record: the join point
                        // ends with the behaviour's value, as `advance` would end it
                        // (dropped where it lies: popping it would move it first).
                        self.jps.truncate(self.jps.len() - 1);
                        if self.jps.is_empty() && self.frames.is_empty() {
                            return Some(Status::Committed(value));
                        }
                        self.stack.push(value);
                        return None;
                    }
                    overwrite(&mut jp.value, value);
                }
                self.advance(cx)
            }
        }
    }

    fn veto(&mut self, cx: &mut Context<'_>) -> Option<Status> {
        let jp = self.jps.pop()?;
        let law = match jp.phase {
            Phase::Laws(i) => jp.chain.laws[i - 1].name,
            _ => Symbol::intern("?"),
        };
        let depth = self.jps.len() + 1;
        self.event(cx, TraceEvent::Vetoed { depth, name: law });
        if self.jps.iter().all(|jp| jp.entity.is_representation()) {
            // The outermost join point of the game (a click's representation join points
            // do not count): the move did not happen.
            return Some(Status::Vetoed { law });
        }
        // An inner join point: what it did (its laws' changes and sends) is undone too,
        // and the send that made it gives nil.
        if jp.before
            && let Some((world, open)) = self.befores.pop()
        {
            self.world = world;
            self.checkpoints.truncate(open);
        }
        self.stack.push(Value::Nil);
        None
    }

    /// Run the next step of the top join point: its next law, its behaviour, its next
    /// side-effect, or finish it.
    fn advance(&mut self, cx: &mut Context<'_>) -> Option<Status> {
        // The frame to start (a law, the behaviour or a side-effect), pushed in one place
        // below, in line.
        let (code, kind, jp_index) = loop {
            let depth = self.jps.len();
            let jp_index = (depth - 1) as u32;
            let jp = self.jps.last_mut()?;
            match jp.phase {
                Phase::Laws(i) if i < jp.chain.laws.len() => {
                    jp.phase = Phase::Laws(i + 1);
                    let (name, code) = (jp.chain.laws[i].name, jp.chain.laws[i].code);
                    self.event(cx, TraceEvent::Law { depth, name });
                    break (code, Kind::Law, jp_index);
                }
                Phase::Laws(_) => {
                    // Every law let the message through: nothing can veto it now, and
                    // dropping the copy keeps the behaviour's updates in place.
                    if jp.before {
                        jp.before = false;
                        self.befores.pop();
                    }
                    jp.phase = Phase::Behaviour;
                }
                Phase::Behaviour => {
                    jp.phase = Phase::SideEffects(0);
                    match jp.behaviour {
                        Some(code) => {
                            if cx.trace || cx.stepping {
                                let name = cx.game.code(code).name.clone();
                                self.event(cx, TraceEvent::Behaviour { depth, name });
                            }
                            break (code, Kind::Behaviour, jp_index);
                        }
                        None => {
                            let e = TraceEvent::NoBehaviour {
                                depth,
                                entity: jp.name,
                                label: jp.msg.label,
                                state: jp.state,
                            };
                            self.event(cx, e);
                        }
                    }
                }
                Phase::SideEffects(i) if i < jp.chain.side_effects.len() => {
                    jp.phase = Phase::SideEffects(i + 1);
                    let se = &jp.chain.side_effects[i];
                    let (name, code) = (se.name, se.code);
                    self.event(cx, TraceEvent::SideEffect { depth, name });
                    break (code, Kind::SideEffect, jp_index);
                }
                Phase::SideEffects(_) => {
                    let jp = self.jps.pop()?;
                    let hidden = jp.entity.is_representation();
                    let value = match jp.then {
                        Then::Give => jp.value,
                        Then::Yield(v) => v,
                        Then::Write {
                            entity,
                            name,
                            value,
                            new,
                            held,
                        } => {
                            if let Err(e) = self.store_property(cx, entity, name, value, new) {
                                return Some(Status::Failed(e));
                            }
                            self.paused |= held;
                            self.pause_later = self.paused;
                            Value::Nil
                        }
                    };
                    if (cx.trace || cx.stepping) && !hidden {
                        self.event(
                            cx,
                            TraceEvent::Done {
                                depth,
                                value: value.clone(),
                            },
                        );
                    }
                    if self.jps.is_empty() && self.frames.is_empty() {
                        return Some(Status::Committed(value));
                    }
                    self.stack.push(value);
                    return None;
                }
            }
        };
        self.push_frame_here(cx, code, kind, jp_index);
        None
    }

    /// Deliver `msg` from the user to the entity named `to`, as [`Machine::send`] does
    /// with nothing running (so no representation is sending), without making a name
    /// value: an entity made when the game started is found in the fixed table, any
    /// other name (or a missing one, for its error) as `send` finds it.
    #[inline(never)]
    fn send_from_outside(
        &mut self,
        cx: &mut Context<'_>,
        to: Symbol,
        msg: Rc<Message>,
    ) -> Result<Flow, RuntimeError> {
        self.send_from_outside_here(cx, to, msg)
    }

    /// [`Machine::send_from_outside`] inlined, for [`Machine::restart_deliver`] (called
    /// once per transaction from outside the machine: one call less).
    #[inline(always)]
    fn send_from_outside_here(
        &mut self,
        cx: &mut Context<'_>,
        to: Symbol,
        msg: Rc<Message>,
    ) -> Result<Flow, RuntimeError> {
        debug_assert!(self.frames.is_empty() && self.jps.is_empty());
        let entity = match self.fixed_entity_of(to) {
            Some((id, _)) => id,
            None => self.entity_named(&Value::sym(to), OUTSIDE)?,
        };
        self.send_to_here(cx, entity, msg, OUTSIDE, Then::Give)
    }

    /// Deliver `msg` to the entity named by `to`, as the running code (or the user).
    fn send(
        &mut self,
        cx: &mut Context<'_>,
        to: &Value,
        msg: Rc<Message>,
        span: Span,
    ) -> Result<Flow, RuntimeError> {
        // An entity the game started with is found in line (`entity_named`, out of line,
        // looks there first too).
        let entity = match self.fixed_entity(to) {
            Some((id, _)) => id,
            None => self.entity_named(to, span)?,
        };
        if let Some((me, my_name)) = self.me()
            && me.is_representation()
            && me.represented() != entity
        {
            let mut e = self.error(
                span,
                format!(
                    "the representation of {my_name} sent \"{}\" to {to}: a representation sends only to its own entity",
                    msg.label
                ),
            );
            e.hint = Some(format!(
                "send to (self), which is {my_name}, and let it pass the message on"
            ));
            return Err(e);
        }
        self.send_to_here(cx, entity, msg, span, Then::Give)
    }

    /// Deliver `msg` to entity (or representation) `entity`.
    #[inline(never)]
    fn send_to(
        &mut self,
        cx: &mut Context<'_>,
        entity: EntityId,
        msg: Rc<Message>,
        span: Span,
        then: Then,
    ) -> Result<Flow, RuntimeError> {
        self.send_to_here(cx, entity, msg, span, then)
    }

    /// [`Machine::send_to`] inlined, for the sends of running code (`send`) and of the
    /// user (`send_from_outside_here`): no call, and the join point's `Then::Give` is
    /// not passed through memory.
    #[inline(always)]
    fn send_to_here(
        &mut self,
        cx: &mut Context<'_>,
        entity: EntityId,
        msg: Rc<Message>,
        span: Span,
        then: Then,
    ) -> Result<Flow, RuntimeError> {
        if self.frames.len() + self.jps.len() >= cx.limits.max_depth {
            return Err(self.depth_error(span, cx.limits));
        }
        let sender = self.me().map(|(_, n)| n);
        let Some(e) = self.world.entity(entity) else {
            return Err(self.error(span, "internal: entity vanished"));
        };
        let (name, ty, state) = (e.name, e.ty, e.state);
        let hidden = entity.is_representation();
        let (chain, behaviour) = if hidden {
            let behaviour = cx.game.ty(ty).behaviours.get(&(state, msg.label)).copied();
            (cx.cache.empty.clone(), behaviour)
        } else {
            cx.cache
                .get(cx.game, &self.world, ty, name, state, msg.label)
        };
        let depth = self.jps.len() + 1;
        if (cx.trace || cx.stepping) && !hidden {
            self.event(
                cx,
                TraceEvent::Arrive {
                    depth,
                    entity: name,
                    state,
                    message: Value::Message(msg.clone()),
                    sender,
                },
            );
        }
        // The outermost join point needs no copy: a veto there restores the start.
        let before = chain.laws_may_change_world && !self.jps.is_empty();
        if before {
            self.befores
                .push((self.world.clone(), self.checkpoints.len()));
        }
        // No law and a behaviour, untraced and not stepping: the join point starts at its
        // behaviour, as `advance` would start it (nothing to record, no copy to drop).
        if chain.laws.is_empty()
            && !before
            && !(cx.trace || cx.stepping)
            && let Some(code) = behaviour
        {
            self.jps.push(JoinPoint {
                entity,
                name,
                msg: Handled::new(msg),
                sender,
                state,
                chain,
                behaviour,
                phase: Phase::SideEffects(0),
                value: Value::Nil,
                then,
                before,
            });
            self.push_frame_here(cx, code, Kind::Behaviour, (depth - 1) as u32);
            return Ok(Flow::Enter);
        }
        self.jps.push(JoinPoint {
            entity,
            name,
            msg: Handled::new(msg),
            sender,
            state,
            chain,
            behaviour,
            phase: Phase::Laws(0),
            value: Value::Nil,
            then,
            before,
        });
        match self.advance(cx) {
            Some(status) => Ok(Flow::End(status)),
            None => Ok(Flow::Enter),
        }
    }

    /// The entity a name value designates.
    fn entity_named(&self, v: &Value, span: Span) -> Result<EntityId, RuntimeError> {
        let Value::Str(name) = v else {
            return Err(self.error(
                span,
                format!("an entity is named by a string, got {} {v}", v.type_name()),
            ));
        };
        // Entities made when the game started keep their ids: look them up in the
        // session's fixed table first (an array by symbol number), then in the world's.
        // A string made at run time names an entity only if its text is interned (every
        // entity name is): look it up without adding it.
        let sym = name.symbol();
        if let Some((id, _)) = sym.and_then(|sym| self.fixed_entity_of(sym)) {
            return Ok(id);
        }
        sym.and_then(|sym| self.world.lookup(sym)).ok_or_else(|| {
            let mut e = self.error(span, format!("no entity named \"{name}\""));
            let names: Vec<&str> = self.world.iter().map(|(_, e)| e.name.as_str()).collect();
            if let Some(c) = crate::diagnostic::closest(name.as_str(), names.iter().copied()) {
                e.hint = Some(format!("did you mean \"{c}\"?"));
            }
            e
        })
    }

    fn context_builtin(
        &mut self,
        cx: &mut Context<'_>,
        index: usize,
        at: usize,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let Some(Some(g)) = GAME_FNS.get(index).copied() else {
            let name = BUILTINS.get(index).map_or("?", |b| b.name);
            return Err(self.error(
                span,
                format!("internal: builtin `{name}` has no implementation"),
            ));
        };
        let args = &self.stack[at..];
        match g {
            GameFn::SelfName => Ok(self.me().map_or(Value::Nil, |(_, n)| Value::sym(n))),
            GameFn::Sender => Ok(self
                .current_jp()
                .and_then(|jp| jp.sender)
                .map_or(Value::Nil, Value::sym)),
            GameFn::Param => {
                let key = match &args[0] {
                    Value::Str(s) => s,
                    other => {
                        return Err(self.error(
                            span,
                            format!("a parameter is named by a string, got {other}"),
                        ));
                    }
                };
                let found = key.symbol().and_then(|k| cx.params.get(&k));
                found.cloned().ok_or_else(|| {
                    let mut e = self.error(span, format!("no parameter \"{key}\""));
                    e.hint = Some(format!("declare it with #param {key} <default>"));
                    e
                })
            }
            GameFn::Random => match args[0] {
                Value::Int(n) if n > 0 => Ok(Value::Int(self.world.random_below(n as u64) as i64)),
                ref other => Err(self.error(
                    span,
                    format!("random needs a positive integer, got {other}"),
                )),
            },
            GameFn::Shuffle => match &args[0] {
                Value::List(l) => {
                    self.meter
                        .work(l.len())
                        .and_then(|()| self.meter.alloc(ELEMENT_BYTES * l.len() as u64))
                        .map_err(|e| self.builtin_error(span, e))?;
                    let mut items: Vec<Value> = l.iter().cloned().collect();
                    for i in (1..items.len()).rev() {
                        let j = self.world.random_below(i as u64 + 1) as usize;
                        items.swap(i, j);
                    }
                    Ok(Value::list(items.into_iter().collect()))
                }
                other => Err(self.error(
                    span,
                    format!("shuffle needs a list, got {} {other}", other.type_name()),
                )),
            },
            GameFn::Notify => {
                let text = text_of(&args[..1], "", &mut self.meter, "`notify`: the line")
                    .map_err(|e| self.builtin_error(span, e))?;
                self.output.push(Output::Notify(text));
                Ok(Value::Nil)
            }
            GameFn::Print => {
                let text = text_of(args, " ", &mut self.meter, "`print`: the line")
                    .map_err(|e| self.builtin_error(span, e))?;
                self.output.push(Output::Print(text));
                Ok(Value::Nil)
            }
            GameFn::Neighbor | GameFn::Walk | GameFn::Ray | GameFn::Directions => {
                self.navigate(cx, g, BUILTINS[index].name, at, span)
            }
        }
    }

    /// The board builtins: `neighbor`, `walk`, `ray`, `directions`.
    fn navigate(
        &self,
        cx: &Context<'_>,
        g: GameFn,
        name: &str,
        at: usize,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let args = &self.stack[at..];
        let game = cx.game;
        let Value::Str(cell) = &args[0] else {
            return Err(self.error(
                span,
                format!(
                    "`{name}` needs a cell name, got {} {}",
                    args[0].type_name(),
                    args[0]
                ),
            ));
        };
        let Some(&(b, c)) = cell.symbol().and_then(|cell| game.cells.get(&cell)) else {
            let mut e = self.error(span, format!("\"{cell}\" is not a cell of any #board"));
            e.hint = Some(
                "cells are the entities a #board makes, such as \"a1\" on an 8x8 board".into(),
            );
            return Err(e);
        };
        let board = &game.boards[b as usize];
        let dir = |v: &Value| -> Result<crate::board::DirId, RuntimeError> {
            let Value::Str(d) = v else {
                return Err(self.error(
                    span,
                    format!("a direction is a string, got {} {v}", v.type_name()),
                ));
            };
            d.symbol()
                .and_then(|d| board.direction_by_symbol(d))
                .ok_or_else(|| {
                    let names: Vec<&str> = board
                        .directions(c)
                        .map(|d| board.dir_name(d).as_str())
                        .collect();
                    let mut e = self.error(span, format!("this board has no direction \"{d}\""));
                    e.hint = Some(
                        match crate::diagnostic::closest(d.as_str(), names.iter().copied()) {
                            Some(n) => format!("did you mean \"{n}\"?"),
                            None => format!("the directions from {cell} are {}", names.join(" ")),
                        },
                    );
                    e
                })
        };
        let cell_value = |c: Option<crate::board::CellId>| {
            c.map_or(Value::Nil, |c| Value::sym(board.cell_name(c)))
        };
        Ok(match g {
            GameFn::Neighbor => cell_value(board.neighbor(c, dir(&args[1])?)),
            GameFn::Walk => {
                let Value::List(steps) = &args[1] else {
                    return Err(self.error(
                        span,
                        format!(
                            "`walk` needs a list of directions, got {} {}",
                            args[1].type_name(),
                            args[1]
                        ),
                    ));
                };
                let dirs = steps.iter().map(&dir).collect::<Result<Vec<_>, _>>()?;
                cell_value(board.walk(c, &dirs))
            }
            // A list of cell names: scalars, one deep (the names kept from the first time).
            GameFn::Ray => {
                let d = dir(&args[1])?;
                game.rays.get_or_make(&game.boards, b as usize, c, d, || {
                    board
                        .ray(c, d)
                        .into_iter()
                        .map(|c| board.cell_name(c))
                        .collect()
                })
            }
            _ => Value::list(
                board
                    .directions(c)
                    .map(|d| Value::sym(board.dir_name(d)))
                    .collect(),
            ),
        })
    }

    /// The `n` attribute pairs on the stack as a dictionary (for the forms that keep
    /// them as one: `new entity`, `finish`, the drawing forms).
    fn pop_attrs(&mut self, n: u8, span: Span) -> Result<Dict, RuntimeError> {
        let mut attrs = Attrs::new();
        self.pop_message_attrs(n, span, &mut attrs)?;
        Ok(attrs.to_dict())
    }

    fn pop_args<const N: usize>(&mut self) -> [Value; N] {
        let at = self.stack.len() - N;
        let out = std::array::from_fn(|i| std::mem::take(&mut self.stack[at + i]));
        self.stack.truncate(at);
        out
    }

    /// The name a string value gives (a string built at run time becomes a name here, and is
    /// interned like every name).
    #[inline(always)]
    fn symbol(&self, v: &Value, what: &str, span: Span) -> Result<Symbol, RuntimeError> {
        // The common case, a name written in the game: no call.
        if let Value::Str(s) = v
            && let Some(sym) = s.as_symbol()
        {
            return Ok(sym);
        }
        self.symbol_slowly(v, what, span)
    }

    #[inline(never)]
    fn symbol_slowly(&self, v: &Value, what: &str, span: Span) -> Result<Symbol, RuntimeError> {
        match v {
            Value::Str(s) => Ok(s.intern()),
            other => Err(self.error(
                span,
                format!("{what} must be a string, got {} {other}", other.type_name()),
            )),
        }
    }

    fn defaults_for(&self, cx: &Context<'_>, ty: TypeId) -> Vec<Value> {
        cx.defaults.get(ty.0 as usize).cloned().unwrap_or_default()
    }
}

/// Undo the changes of `log`, last first, in `world`, and put the random generator back
/// to `rng`: the world as it was before them (see [`Machine::start`]). Empties the log.
fn undo_all(world: &mut World, log: &mut Vec<Undo>, rng: u64) {
    undo_down_to(world, log, 0, rng);
}

/// Undo the changes of `log` past its first `len`, last first, in `world`, and put the
/// random generator back to `rng`; the log keeps its first `len` changes.
fn undo_down_to(world: &mut World, log: &mut Vec<Undo>, len: usize, rng: u64) {
    // A move's changes to one entity often follow each other: it is found once for them.
    let mut entity: Option<(EntityId, &mut super::world::Entity)> = None;
    while log.len() > len {
        let Some(u) = log.pop() else {
            break;
        };
        let (Undo::Slot { id, .. } | Undo::State { id, .. }) = u;
        if entity.as_ref().is_none_or(|(found, _)| *found != id) {
            entity = world.entity_mut(id).map(|e| (id, e));
        }
        let Some((_, e)) = entity.as_mut() else {
            continue;
        };
        match u {
            Undo::Slot { slot, old, .. } => {
                if let Some(place) = e.props.get_mut(slot as usize) {
                    *place = old;
                }
            }
            Undo::State { old, .. } => e.state = old,
        }
    }
    world.rng = rng;
}

mod drawing;
mod forms;
mod undo;

use undo::Checkpoint;
pub use undo::{MoveLog, TrialEnd};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_paths_name_the_right_builtins() {
        for (index, op) in FAST_OPS.iter().enumerate() {
            assert_eq!(*op, IntOp::of_builtin(index as u16), "builtin {index}");
        }
        assert_eq!(BUILTINS[NOT as usize].name, "not");
        assert_eq!(BUILTINS[LOWER as usize].name, "lower");
        assert_eq!(BUILTINS[CONTAINS as usize].name, "contains");
        assert_eq!(BUILTINS[FIRST as usize].name, "first");
        assert_eq!(BUILTINS[LAST as usize].name, "last");
        assert_eq!(BUILTINS[SELF as usize].name, "self");
        assert_eq!(GAME_FNS[SELF as usize], Some(GameFn::SelfName));
    }
}
