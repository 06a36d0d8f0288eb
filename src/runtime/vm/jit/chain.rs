//! An advice chain compiled as one function: its laws, its behaviour and its
//! side-effects called one after the other, as a join point runs them, from straight-line
//! code instead of a loop of the machine's own (`docs/machine.md`, "Chains as
//! functions"). Each body is called through its direct form's place in the generator's
//! table, read at each call: a form taken away since the chain was compiled makes the
//! chain give up, as the loop did. What the code does for each body is what the loop did:
//! the body's run counted, its entity's `Jx` told which body runs, the body's `End` step
//! counted, the step check after it, a law's veto, the values let go. A law or
//! side-effect whose first test ends it when false has that test made here ([`Guard`]),
//! and is called only when it passes.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, AtomicRmwOp, Block, InstBuilder, MemFlagsData, SigRef};
use cranelift_codegen::ir::{UserFuncName, Value as V};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{Linkage, Module};

use crate::compile::builtins::index as builtin_index;
use crate::compile::bytecode::{Code, CodeId, Op, letter_set};
use crate::symbol::Symbol;

use super::super::super::world::Chain;
use super::super::fast::Exit;
use super::emit::{letter_bit, may_hold_count, one_letter, signature, truth};
use super::raw::{EXIT, NIL, Raw, STR, from_raw, jit_drop, sym_word};
use super::{GuardReads, Jit, Jx, Site, Sites, State};

/// Not a value: a law of the chain vetoed the message (the payload says which).
const VETOED: u64 = 253;

/// The builtin `contains`, which a guard's letter test makes.
const CONTAINS: u16 = builtin_index("contains");

/// How a body (or its guard's read) that leaves early leaves the chain: the sender's and
/// the body's `Jx`, the behaviour's value so far, and the block that leaves with it.
type Out = (V, V, (V, V), Block);

/// A chain's code: run with the `Jx` of the body that sends (or of the outermost join
/// point) and the one its bodies run with.
pub(super) type ChainEntry = unsafe extern "C" fn(*mut Jx, *mut Jx) -> Raw;

/// How a chain run directly ended.
pub(super) enum Chained {
    /// Every body ran: the behaviour's value (nil without one).
    Value(super::super::super::value::Value),
    /// The law of this index vetoed the message.
    Vetoed(usize),
    /// A body left early: the transaction gives up or stops, as the sender's
    /// [`Jx::exit`] says.
    Left,
}

/// Run the chain `code` was compiled for, from the body `jx` runs, its bodies on
/// `inner` (whose entity, values and depth are set).
///
/// # Safety
/// `jx` and `inner` are live and name the running machine; `code` is a chain's code of
/// the generator whose direct forms `inner` names.
pub(super) unsafe fn run(code: ChainEntry, jx: *mut Jx, inner: &mut Jx) -> Chained {
    // SAFETY: as the function's contract says.
    let r = unsafe { code(jx, inner) };
    match r.tag {
        EXIT => Chained::Left,
        VETOED => Chained::Vetoed(r.word as usize),
        // SAFETY: the code hands over the behaviour's value.
        _ => Chained::Value(unsafe { from_raw(r) }),
    }
}

/// What a body of the chain is: a law or a side-effect with the test it starts with, if
/// it starts with one the chain makes itself ([`Guard`]).
#[derive(Clone, Copy)]
enum Part {
    Law(Option<Guard>),
    Behaviour,
    SideEffect(Option<Guard>),
}

/// A law or a side-effect that starts with a test and ends at once, giving nil, when the
/// test fails (`(if (contains "Bb" (property "piece")) ...)`, `(if (property
/// "king-home") ...)`, `(if (attribute "promotion") ...)`, `(if (property "over" of
/// "game") ...)`, with nothing after the `if`; or one that does nothing): most laws and
/// side-effects of a game pass most messages so. The chain reads the value and makes
/// the test itself, and calls the body only when the test passes (the body then makes
/// it again), or when the value is not one it tests (then the body makes the test as
/// ever). A failed test counts the steps the body would have: its instructions to its
/// `End`, with the string's length that `contains` counts as its work.
#[derive(Clone, Copy)]
struct Guard {
    /// What the test reads.
    read: Read,
    /// The letters looked for (`contains` of a string of distinct letters, see
    /// [`letter_set`]), or none: the value's truth.
    letters: Option<u64>,
    /// The steps of the body when the test fails, its `End` among them.
    steps: u64,
}

/// What a [`Guard`] reads, by its site: a property of the body's entity, of an entity
/// of the game by its name, or an attribute of the message; or nothing (a body that
/// does nothing fails every test).
#[derive(Clone, Copy)]
enum Read {
    Property(u64),
    PropertyOf(u64, Symbol),
    Attribute(u64),
    Nothing,
}

impl Guard {
    /// The guard `code` starts with, if it starts with one, its site kept in `sites`.
    fn of(code: &Code, jit: &Jit, sites: &mut Sites) -> Option<Guard> {
        let ops = code.ops();
        let mut site = |at: usize, name: Symbol| {
            let mut site = Site::plain(*code.spans.get(at)?, jit);
            site.name = name;
            Some(sites.keep(site))
        };
        // What is read (and its steps), and where the test follows.
        let (read, letters, steps, next) = match ops {
            [Op::NilEnd, ..] => {
                return Some(Guard {
                    read: Read::Nothing,
                    letters: None,
                    steps: 2,
                });
            }
            // `Str Property Builtin(contains)`: 3 steps, and the string's length.
            [Op::LetterInProperty { s, name }, ..] => {
                let letters = letter_set(s.as_str())?;
                let len = u64::from(letters.count_ones());
                (Read::Property(site(1, *name)?), Some(letters), 3 + len, 3)
            }
            [
                Op::Str(s),
                Op::Attribute(name),
                Op::Builtin(CONTAINS, 2),
                ..,
            ] => {
                let letters = letter_set(s.as_str())?;
                let len = u64::from(letters.count_ones());
                (Read::Attribute(site(1, *name)?), Some(letters), 3 + len, 3)
            }
            [Op::Property(name), ..] => (Read::Property(site(0, *name)?), None, 1, 1),
            // (Not an attribute first in an `and`: one that comes with most messages,
            // `(and (attribute "from") ...)`, would be tested twice in most runs.)
            [Op::Attribute(name), Op::TestEnd(_), ..] => {
                (Read::Attribute(site(0, *name)?), None, 1, 1)
            }
            [Op::NamedPropertyOf { entity, name }, ..] => {
                (Read::PropertyOf(site(1, *name)?, *entity), None, 2, 2)
            }
            _ => return None,
        };
        // The test, ending the body when it fails: `JumpIfFalse` to `Nil End` (3
        // steps), or `AndJump` to such a `JumpIfFalse` (4).
        let end = match ops.get(next)? {
            Op::TestEnd(_) => 3,
            Op::AndExit { ends: true, .. } => 4,
            _ => return None,
        };
        Some(Guard {
            read,
            letters,
            steps: steps + end,
        })
    }
}

/// Compile `chain` (with `behaviour`): the code's address.
pub(super) fn make(
    jit: &Jit,
    state: &mut State,
    chain: &Chain,
    behaviour: Option<CodeId>,
) -> Result<usize, String> {
    let Some(module) = state.module.as_mut() else {
        return Err("no code generator".into());
    };
    let sites = &mut state.sites;
    let mut guard = |code: CodeId| {
        let c = jit.codes.get(code.0 as usize);
        c.and_then(|c| Guard::of(c, jit, sites))
    };
    let mut parts: Vec<(CodeId, Part)> = Vec::new();
    for a in &chain.laws {
        parts.push((a.code, Part::Law(guard(a.code))));
    }
    parts.extend(behaviour.map(|b| (b, Part::Behaviour)));
    for a in &chain.side_effects {
        parts.push((a.code, Part::SideEffect(guard(a.code))));
    }
    if parts
        .iter()
        .any(|(c, _)| jit.entries.get(c.0 as usize).is_none())
    {
        return Err("a body the generator does not have".into());
    }
    let target = module.isa().frontend_config();
    let ctx = &mut state.ctx;
    let signature = &mut ctx.func.signature;
    signature.params.clear();
    signature.returns.clear();
    signature
        .params
        .extend([AbiParam::new(I64), AbiParam::new(I64)]);
    signature
        .returns
        .extend([AbiParam::new(I64), AbiParam::new(I64)]);
    state.chains += 1;
    ctx.func.name = UserFuncName::user(2, state.chains);
    let mut b = FunctionBuilder::new(&mut ctx.func, &mut state.fctx);
    Lowering::new(&mut b).chain(jit, &parts);
    b.seal_all_blocks();
    b.finalize(target);
    let defined = module
        .declare_function(
            &format!("chain{}", state.chains),
            Linkage::Local,
            &ctx.func.signature,
        )
        .map_err(|e| e.to_string())
        .and_then(|id| {
            module
                .define_function(id, ctx)
                .map(|()| id)
                .map_err(|e| format!("{e:?}"))
        });
    module.clear_context(ctx);
    let id = defined?;
    module
        .finalize_definitions()
        .map_err(|e| format!("could not be made ready: {e}"))?;
    Ok(module.get_finalized_function(id) as usize)
}

/// The chain's function as it is built.
struct Lowering<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    /// Signatures by (arguments, results).
    sigs: Vec<((usize, usize), SigRef)>,
}

impl<'a, 'b> Lowering<'a, 'b> {
    fn new(b: &'a mut FunctionBuilder<'b>) -> Self {
        Lowering {
            b,
            sigs: Vec::new(),
        }
    }

    fn int(&mut self, v: u64) -> V {
        self.b.ins().iconst(I64, v as i64)
    }

    fn call(&mut self, f: V, args: &[V], rets: usize) -> Vec<V> {
        let sig = signature(self.b, &mut self.sigs, args.len(), rets);
        let inst = self.b.ins().call_indirect(sig, f, args);
        self.b.inst_results(inst).to_vec()
    }

    fn helper(&mut self, f: usize, args: &[V], rets: usize) -> Vec<V> {
        let f = self.int(f as u64);
        self.call(f, args, rets)
    }

    /// Let go of a value that may hold a count.
    fn let_go(&mut self, (tag, word): (V, V)) {
        let may = may_hold_count(self.b, tag, word);
        let yes = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(may, yes, &[], cont, &[]);
        self.b.switch_to_block(yes);
        self.helper(jit_drop as *const () as usize, &[tag, word], 0);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// The test `guard` of the body about to be called, on the body's `Jx` (`inner`):
    /// on to `failed` when it fails; on to the block given back when it passes, or when
    /// the value is not one it tests (the body makes the test then), the value let go
    /// (none for a body that does nothing: it is never called); out of the chain (by
    /// `left`, with the behaviour's `value`) when the read gives up.
    fn guard(&mut self, guard: Guard, out: Out, failed: Block) -> Option<Block> {
        let inner = out.1;
        let r = match guard.read {
            Read::Nothing => {
                self.b.ins().jump(failed, &[]);
                return None;
            }
            Read::Property(site) => {
                let f = GuardReads::get().property;
                let site = self.int(site);
                self.helper(f, &[inner, site], 2)
            }
            Read::Attribute(site) => {
                let f = GuardReads::get().attribute;
                let site = self.int(site);
                self.helper(f, &[inner, site], 2)
            }
            Read::PropertyOf(site, entity) => {
                let f = GuardReads::get().property_of;
                let (site, tag, word) = (self.int(site), self.int(STR), self.int(sym_word(entity)));
                self.helper(f, &[inner, site, tag, word], 2)
            }
        };
        let (tag, word) = (r[0], r[1]);
        let gave_up = self.b.ins().icmp_imm_u(IntCC::Equal, tag, EXIT as i64);
        let early = self.b.create_block();
        let read = self.b.create_block();
        self.b.ins().brif(gave_up, early, &[], read, &[]);
        self.b.switch_to_block(early);
        self.leave_early(out);
        self.b.switch_to_block(read);
        let call = self.b.create_block();
        let test = match guard.letters {
            // A one-letter name: the bit of its letter; anything else to the law.
            Some(letters) => {
                let letter = one_letter(self.b, tag, word);
                let test = self.b.create_block();
                self.b.ins().brif(letter, test, &[], call, &[]);
                self.b.switch_to_block(test);
                letter_bit(self.b, word, letters)
            }
            None => truth(self.b, tag, word),
        };
        // (A failed test's value is nil, false or a name: nothing to let go.)
        self.b.ins().brif(test, call, &[], failed, &[]);
        self.b.switch_to_block(call);
        self.let_go((tag, word));
        let passed = self.b.create_block();
        self.b.ins().jump(passed, &[]);
        Some(passed)
    }

    /// Out of the chain as a body that left early leaves it: the sender told how (by
    /// the body's `Jx`), by `left` with the behaviour's value.
    fn leave_early(&mut self, (outer, inner, value, left): Out) {
        self.helper(left_early as *const () as usize, &[outer, inner], 0);
        self.b.ins().jump(left, &[value.0.into(), value.1.into()]);
    }

    /// `n` more steps counted at `steps`.
    fn add_steps(&mut self, steps: V, n: u64) {
        let flags = MemFlagsData::trusted();
        let s = self.b.ins().load(I64, flags, steps, 0);
        let s = self.b.ins().iadd_imm_u(s, n as i64);
        self.b.ins().store(flags, s, steps, 0);
    }

    /// The step check after a body, when due (`steps`, `check_at`: where the count and
    /// the step it is due at lie): on to `next`, or out of the chain by `left` with the
    /// behaviour's `value` when it stops the transaction, the body's value (`held`, if
    /// any) let go.
    fn check_after(
        &mut self,
        outer: V,
        (steps, check_at): (V, V),
        next: Block,
        (left, value): (Block, (V, V)),
        held: Option<(V, V)>,
    ) {
        let flags = MemFlagsData::trusted();
        let s = self.b.ins().load(I64, flags, steps, 0);
        let due_at = self.b.ins().load(I64, flags, check_at, 0);
        let due = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, s, due_at);
        let slow = self.b.create_block();
        let stop = self.b.create_block();
        self.b.ins().brif(due, slow, &[], next, &[]);
        self.b.switch_to_block(slow);
        let stopped = self.helper(step_check as *const () as usize, &[outer], 1);
        self.b.ins().brif(stopped[0], stop, &[], next, &[]);
        self.b.switch_to_block(stop);
        if let Some(r) = held {
            self.let_go(r);
        }
        self.b.ins().jump(left, &[value.0.into(), value.1.into()]);
    }

    /// The function: each body in turn, then the behaviour's value.
    fn chain(&mut self, jit: &Jit, parts: &[(CodeId, Part)]) {
        let flags = MemFlagsData::trusted();
        let start = self.b.create_block();
        self.b.append_block_params_for_function_params(start);
        self.b.switch_to_block(start);
        let (outer, inner) = {
            let p = self.b.block_params(start);
            (p[0], p[1])
        };
        let steps = self
            .b
            .ins()
            .load(I64, flags, inner, offset_of!(Jx, steps) as i32);
        let check_at = self
            .b
            .ins()
            .load(I64, flags, inner, offset_of!(Jx, check_at) as i32);
        // Leaving early: the behaviour's value (nil before it ran) let go.
        let left = self.b.create_block();
        self.b.append_block_param(left, I64);
        self.b.append_block_param(left, I64);
        let nil = (self.int(NIL), self.int(0));
        let mut value = nil;
        let mut law = 0u64;
        for &(code, part) in parts {
            let d = &jit.entries[code.0 as usize];
            let at = self.int(&d.entry as *const _ as u64);
            let entry = self.b.ins().load(I64, flags, at, 0);
            // Taken away since the chain was compiled: the transaction gives up.
            let missing = self.b.create_block();
            let there = self.b.create_block();
            self.b.ins().brif(entry, there, &[], missing, &[]);
            self.b.switch_to_block(missing);
            self.helper(gave_up as *const () as usize, &[outer], 0);
            self.b.ins().jump(left, &[value.0.into(), value.1.into()]);
            self.b.switch_to_block(there);
            let runs = self.int(&d.runs as *const _ as u64);
            let one = self.b.ins().iconst(I32, 1);
            self.b
                .ins()
                .atomic_rmw(I32, flags, AtomicRmwOp::Add, runs, one);
            let c = self.int(u64::from(code.0));
            self.b
                .ins()
                .store(flags, c, inner, offset_of!(Jx, code) as i32);
            let out = (outer, inner, value, left);
            // A body whose test the chain makes: on past it when the test fails.
            let after = match part {
                Part::Law(Some(guard)) | Part::SideEffect(Some(guard)) => {
                    let (after, failed) = (self.b.create_block(), self.b.create_block());
                    let passed = self.guard(guard, out, failed);
                    // Failed: the body's steps, and the check after it.
                    self.b.switch_to_block(failed);
                    self.add_steps(steps, guard.steps);
                    self.check_after(outer, (steps, check_at), after, (left, value), None);
                    match passed {
                        Some(passed) => self.b.switch_to_block(passed),
                        // A body that does nothing is never called.
                        None => {
                            self.b.switch_to_block(after);
                            law += u64::from(matches!(part, Part::Law(_)));
                            continue;
                        }
                    }
                    Some(after)
                }
                _ => None,
            };
            // (Every way out of a body says how it ended in `how`.)
            let r = self.call(entry, &[inner], 2);
            let r = (r[0], r[1]);
            let how = self
                .b
                .ins()
                .load(I64, flags, inner, offset_of!(Jx, how) as i32);
            // At its `End`: one step; by `return`: counted; else it left early.
            let ended = self.b.create_block();
            let other = self.b.create_block();
            let early = self.b.create_block();
            let check = self.b.create_block();
            self.b.ins().brif(how, other, &[], ended, &[]);
            self.b.switch_to_block(ended);
            self.add_steps(steps, 1);
            self.b.ins().jump(check, &[]);
            self.b.switch_to_block(other);
            let returned = self.b.ins().icmp_imm_u(IntCC::Equal, how, 1);
            self.b.ins().brif(returned, check, &[], early, &[]);
            self.b.switch_to_block(early);
            self.leave_early(out);
            // The check after each body.
            self.b.switch_to_block(check);
            let cont = self.b.create_block();
            self.check_after(outer, (steps, check_at), cont, (left, value), Some(r));
            self.b.switch_to_block(cont);
            match part {
                Part::Law(_) => {
                    self.let_go(r);
                    let vetoed = self.b.create_block();
                    let next = self.b.create_block();
                    let returned = self.b.ins().icmp_imm_u(IntCC::Equal, how, 1);
                    self.b.ins().brif(returned, vetoed, &[], next, &[]);
                    self.b.switch_to_block(vetoed);
                    let tag = self.int(VETOED);
                    let which = self.int(law);
                    self.b.ins().return_(&[tag, which]);
                    self.b.switch_to_block(next);
                    law += 1;
                }
                Part::Behaviour => value = r,
                Part::SideEffect(_) => self.let_go(r),
            }
            if let Some(after) = after {
                self.b.ins().jump(after, &[]);
                self.b.switch_to_block(after);
            }
        }
        self.b.ins().return_(&[value.0, value.1]);
        self.b.switch_to_block(left);
        let held = {
            let p = self.b.block_params(left);
            (p[0], p[1])
        };
        self.let_go(held);
        let exit = self.int(EXIT);
        let zero = self.int(0);
        self.b.ins().return_(&[exit, zero]);
    }
}

/// The step check after a body, when due: 1, the sender's exit set, when it stops the
/// transaction.
unsafe extern "C" fn step_check(jx: *mut Jx) -> u64 {
    // SAFETY: the chain's code passes the sender's `Jx`, whose machine runs.
    match unsafe { &mut *(*jx).fx }.check() {
        Ok(()) => 0,
        Err(exit) => {
            unsafe { (*jx).exit = exit };
            1
        }
    }
}

/// A body's direct form was taken away since its chain was compiled: the transaction
/// gives up.
unsafe extern "C" fn gave_up(jx: *mut Jx) {
    // SAFETY: the chain's code passes the sender's `Jx`.
    unsafe { (*jx).exit = Exit::GiveUp };
}

/// A body left early: the sender leaves as it did.
unsafe extern "C" fn left_early(jx: *mut Jx, inner: *mut Jx) {
    // SAFETY: the chain's code passes both, live.
    unsafe { (*jx).exit = (*inner).exit };
}
