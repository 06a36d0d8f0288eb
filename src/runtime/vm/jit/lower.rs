//! A body's bytecode lowered to Cranelift's IR.
//!
//! The input is the verified bytecode read as its plain program: a fused instruction
//! is its first plain instruction ([`Op::plain`]), the rest of its sequence following
//! it, so the generated code counts each plain instruction's step and the total is the
//! interpreter's by construction. The operand stack's heights are worked out first
//! (the verifier proved them), so each operand is a pair of the code's own variables,
//! tag and payload ([`super::raw`]), each local a pair of words in the body's frame, and
//! nothing is dispatched. The steps are counted by one addition before anything that may
//! call the machine or leave. What is not a plain copy, constant, jump or integer
//! operation is a call of one of the machine's functions ([`super::helpers`]). Where a
//! loop goes round, the step check is made, as on the fast tier. A body is lowered in one
//! of two [`Form`]s: to run at its join point, or directly, for a send.
//!
//! Ownership: a local or an operand holds one count of a value that has one. The
//! generator knows, for each, whether it may hold one (`own_l`, `own_s`: not after a
//! constant, a boolean, an integer, a move or a pop; where paths meet, every local and
//! every operand below the height may), and copies or lets go only those; where a body
//! leaves early ([`Lowering::leave`]) it lets go of the frame and of those operands.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{self, Block, InstBuilder, MemFlagsData, SigRef};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};

use crate::compile::builtins::{BUILTINS, index as builtin_index};
use crate::compile::bytecode::{Code, IntOp, Op, Read, builtin_of, letter_set, plain_successors};
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::super::builtins::pure_fn;
use super::super::super::value::attrs::key_order;
use super::super::addresses::{Entry as Kept, View};
use super::super::fast::MessageShape;
use super::emit::{letter_bit, may_hold_count, one_letter, signature, truth};
use super::helpers::two;
use super::raw::{self, BOOL, DONE, EXIT, FLOAT, INT, LIST, NIL, STR, sym_word};
use super::{Form, Jit, Jx, Site, Sites, helpers};
use crate::runtime::entity::Entity;

type V = ir::Value;

const CONTAINS: u16 = builtin_index("contains");
const APPEND: u16 = builtin_index("append");
const PUT: u16 = builtin_index("put");
const NOT: u16 = builtin_index("not");
const LIST_OF: u16 = builtin_index("list");
const EQ: u16 = builtin_index("=");
const NE: u16 = builtin_index("!=");
/// Pure builtins whose value, when they give one, is a boolean: it holds no count, so
/// nothing lets it go, and its truth is its word.
const BOOL_VALUED: [u16; 9] = [
    EQ,
    NE,
    builtin_index("=="),
    builtin_index("<"),
    builtin_index(">"),
    builtin_index("<="),
    builtin_index(">="),
    CONTAINS,
    builtin_index("has"),
];
/// Those whose value is an integer: it holds no count either.
const INT_VALUED: [u16; 2] = [builtin_index("index-of"), builtin_index("length")];

/// How many locals that may hold a count a body's end lets go of in line, each tested
/// for one (more go to [`helpers::let_go_all`] in one call, which tests every local).
const LET_GO_IN_LINE: usize = 4;

/// Where plain instruction `op` at `ip` may go, with the change of the stack's height
/// there (the verifier's reading); `None` for an instruction the generator does not take.
fn edges(op: Op, ip: usize) -> Option<Vec<(usize, i64)>> {
    match op {
        Op::Form(FormOp::WaitSignal, _) => None,
        _ => plain_successors(op, ip),
    }
}

/// The plain program of `code`: each instruction's plain form, the operand height
/// before each one reached, and whether each starts a stretch of straight code.
struct Shape {
    ops: Vec<Op>,
    heights: Vec<Option<usize>>,
    leaders: Vec<bool>,
    max: usize,
}

fn shape(code: &Code) -> Result<Shape, String> {
    let ops: Vec<Op> = code.ops().iter().map(|op| op.plain(builtin_of)).collect();
    let n = ops.len();
    let mut heights: Vec<Option<usize>> = vec![None; n];
    let mut leaders = vec![false; n];
    let mut work = vec![(0usize, 0usize)];
    let mut max = 0;
    if n > 0 {
        leaders[0] = true;
    }
    while let Some((ip, h)) = work.pop() {
        if ip >= n {
            return Err(format!("a jump to {ip}, past the end"));
        }
        match heights[ip] {
            Some(seen) if seen == h => continue,
            Some(seen) => return Err(format!("heights {seen} and {h} meet at {ip}")),
            None => heights[ip] = Some(h),
        }
        let op = ops[ip];
        let out = edges(op, ip).ok_or_else(|| format!("{op:?} at {ip}"))?;
        let straight =
            matches!(&out[..], [(t, _)] if *t == ip + 1) && !matches!(op, Op::IterNext { .. });
        for &(to, delta) in &out {
            let h2 = h as i64 + delta;
            if h2 < 0 {
                return Err(format!("the stack runs out at {ip}"));
            }
            max = max.max(h2 as usize).max(h);
            if !straight {
                if to < n {
                    leaders[to] = true;
                }
                if ip + 1 < n {
                    leaders[ip + 1] = true;
                }
            }
            work.push((to, h2 as usize));
        }
    }
    Ok(Shape {
        ops,
        heights,
        leaders,
        max: max + 1,
    })
}

/// The builtins that read the game but not the join point, which a body running without
/// one may call (`self` it answers itself).
const FREE_GAME_FNS: &[&str] = &[
    "param",
    "random",
    "shuffle",
    "neighbor",
    "ray",
    "walk",
    "directions",
    "board-data",
];

/// Whether builtin `index` needs no join point.
fn free_builtin(index: u16) -> bool {
    pure_fn(index as usize).is_some()
        || BUILTINS
            .get(index as usize)
            .is_some_and(|b| FREE_GAME_FNS.contains(&b.name))
}

/// Whether `index` is the builtin `self`.
fn is_self(index: u16) -> bool {
    BUILTINS
        .get(index as usize)
        .is_some_and(|b| b.name == "self")
}

/// The forms that read neither the join point nor the running entity, which a body
/// running without a join point hands to the machine as the fast tier does.
fn free_form(form: FormOp) -> bool {
    matches!(
        form,
        FormOp::StateOf
            | FormOp::PropertyOf
            | FormOp::TypeOf
            | FormOp::EntitiesOf
            | FormOp::LabelOf
            | FormOp::AttributeOf
            | FormOp::NewMessage
            | FormOp::Match
    )
}

/// The forms that concern the whole transaction and read neither the message nor the
/// running entity: the machine does them alike for a body at its join point and for one
/// running without it (`open checkpoint`, `rollback`, `finish`). A law holding one may
/// change the world (`Code::may_change_world_itself`): it runs directly only at the
/// outermost join point, whose veto needs no copy of the world (`outermost`).
fn transaction_form(form: FormOp) -> bool {
    matches!(
        form,
        FormOp::OpenCheckpoint | FormOp::Rollback | FormOp::Finish
    )
}

/// Which of `codes` satisfy `each` and call only bodies that do (and so on).
fn closed(codes: &[Code], each: impl Fn(&Code) -> bool) -> Vec<bool> {
    let calls: Vec<Vec<usize>> = codes
        .iter()
        .map(|code| {
            code.ops()
                .iter()
                .filter_map(|op| match op.plain(builtin_of) {
                    Op::Call(callee, _) => Some(callee.0 as usize),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut ok: Vec<bool> = codes.iter().map(each).collect();
    // A body calling one that does not is not: until nothing changes.
    loop {
        let mut changed = false;
        for (i, callees) in calls.iter().enumerate() {
            if ok[i]
                && callees
                    .iter()
                    .any(|&c| !ok.get(c).copied().unwrap_or(false))
            {
                ok[i] = false;
                changed = true;
            }
        }
        if !changed {
            return ok;
        }
    }
}

/// Which of `codes` a body running without a join point may call: the functions that
/// read neither the join point nor the running entity (no message, attribute, own
/// property, `self`, `sender`, send, or form but [`free_form`]s), and call only such
/// functions. The machine runs them as the fast tier does, their depth counted as the
/// interpreter's would be ([`helpers::call`]).
pub(super) fn free_functions(codes: &[Code]) -> Vec<bool> {
    closed(codes, |code| {
        code.ops().iter().all(|op| match op.plain(builtin_of) {
            Op::Message | Op::Attribute(_) | Op::Property(_) => false,
            Op::Builtin(f, _) | Op::UpdateLocal { func: f, .. } => free_builtin(f),
            Op::Form(form, _) => free_form(form),
            _ => true,
        })
    })
}

/// Which of `codes` cannot change the world, nor can those they call
/// ([`Code::may_change_world_itself`]): a law that cannot vetoes with nothing to undo,
/// so its chain may run directly.
pub(super) fn quiet_bodies(codes: &[Code]) -> Vec<bool> {
    closed(codes, |code| !code.may_change_world_itself())
}

/// The forms a body running without its join point does itself, hands to the machine
/// at the outermost join point and does or gives up at elsewhere
/// ([`Lowering::at_outermost`]: `update message attribute` writes the message of the
/// chain run directly; a name made at run time gives up, rare there): any other form
/// keeps the body at its join point (a write to another entity, a wait, ...).
fn direct_form(form: FormOp) -> bool {
    free_form(form)
        || transaction_form(form)
        || matches!(
            form,
            FormOp::ChangeState
                | FormOp::SendNew
                | FormOp::UpdateProperty
                | FormOp::UpdateAttribute
                | FormOp::Property
                | FormOp::Attribute
                | FormOp::State
                | FormOp::Label
        )
}

/// What in a body keeps it from running without its join point, so that it has no
/// direct form: the message itself, a function that reads the join point (or calls one
/// that does), a form it does not do ([`direct_form`]). The builtins that read the join
/// point or write output are done by the machine at the outermost join point and give
/// up where they are reached elsewhere ([`Lowering::at_outermost`]), as `notify` does
/// for a grand slam in a capture sent from a body.
fn needs_join_point(shape: &Shape, free: &[bool]) -> Option<String> {
    shape
        .ops
        .iter()
        .zip(&shape.heights)
        .filter(|(_, h)| h.is_some())
        .find_map(|(&op, _)| match op {
            Op::Message => Some(format!("{op:?}")),
            Op::Call(callee, _) if !free.get(callee.0 as usize).copied().unwrap_or(false) => {
                Some(format!("{op:?}"))
            }
            Op::Form(form, _) if !direct_form(form) => Some(format!("{op:?}")),
            _ => None,
        })
}

/// Lower `code` into `func` (whose signature is set): the sites its calls name go in
/// `sites`. An error names what the generator does not take.
pub(super) fn lower(
    func: &mut ir::Function,
    fctx: &mut FunctionBuilderContext,
    code: &Code,
    sites: &mut Sites,
    target: TargetFrontendConfig,
    form: Form,
    jit: &Jit,
) -> Result<(), String> {
    let shape = shape(code)?;
    if form == Form::Direct
        && let Some(why) = needs_join_point(&shape, &jit.free)
    {
        return Err(why);
    }
    let b = FunctionBuilder::new(func, fctx);
    let mut lw = Lowering::new(b, code, &shape, sites);
    lw.direct = form == Form::Direct;
    lw.jit = jit;
    lw.body()?;
    lw.finish(target);
    Ok(())
}

/// What is known of an operand where a stretch starts: the interned name it is, the
/// tag it has.
type Known = (Option<Symbol>, Option<u64>);

/// A value's two variables.
#[derive(Clone, Copy)]
struct Pair {
    tag: Variable,
    word: Variable,
}

struct Lowering<'a, 'b> {
    b: FunctionBuilder<'b>,
    code: &'a Code,
    shape: &'a Shape,
    sites: &'a mut Sites,
    /// Whether the body is lowered to run without a join point ([`Form::Direct`]).
    direct: bool,
    jit: *const Jit,
    blocks: Vec<Option<Block>>,
    /// The locals live in the frame at `fp` (two words each; the operands the body holds
    /// when it leaves early are put after them): every call may change them, so the
    /// code's registers would not keep them anyway, and leaving early lets go of the
    /// frame with one call.
    nlocals: usize,
    fp: V,
    stack: Vec<Pair>,
    /// The interned name each operand is known to be, in the stretch being lowered.
    names: Vec<Option<Symbol>>,
    /// The tag each operand is known to have (a constant's, a comparison's boolean), in
    /// the stretch being lowered: its truth is then tested without the tag.
    tags: Vec<Option<u64>>,
    /// The names and tags known where each stretch starts, from the jumps to it lowered
    /// so far (each kept where every path agrees): a stretch that only forward jumps
    /// reach starts with them (the label and keys of a send whose values are worked out
    /// by an `if` stay known, as does the boolean an `and` leaves); one a loop jumps back
    /// to knows none.
    incoming: Vec<Option<Vec<Known>>>,
    /// Which locals, and which operands below its height, may hold a count where each
    /// stretch starts, from the jumps to it lowered so far (any that may on one path
    /// may there); as for `incoming`, a stretch a loop jumps back to assumes all may.
    incoming_own: Vec<Option<(Vec<bool>, Vec<bool>)>>,
    /// Whether a jump lands on each instruction from it or after it (a loop's start).
    back: Vec<bool>,
    h: usize,
    /// Whether each local and each operand may hold a count (false: known to hold none).
    own_l: Vec<bool>,
    own_s: Vec<bool>,
    /// Steps of the instructions lowered but not yet counted.
    pending: u64,
    jx: V,
    steps: V,
    check_at: V,
    unwind: Block,
    /// The ways out made so far, by the operands held and whether locals may hold
    /// counts ([`Lowering::way_out`]).
    exits: Vec<((usize, bool), Block)>,
    sigs: Vec<((usize, usize), SigRef)>,
}

impl<'a, 'b> Lowering<'a, 'b> {
    fn new(
        mut b: FunctionBuilder<'b>,
        code: &'a Code,
        shape: &'a Shape,
        sites: &'a mut Sites,
    ) -> Lowering<'a, 'b> {
        let pair = |b: &mut FunctionBuilder<'b>| Pair {
            tag: b.declare_var(I64),
            word: b.declare_var(I64),
        };
        let stack = (0..shape.max).map(|_| pair(&mut b)).collect();
        let blocks = shape
            .leaders
            .iter()
            .zip(&shape.heights)
            .map(|(&l, h)| (l && h.is_some()).then(|| b.create_block()))
            .collect();
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let jx = b.block_params(entry)[0];
        let flags = MemFlagsData::trusted();
        let steps = b
            .ins()
            .load(I64, flags, jx, std::mem::offset_of!(Jx, steps) as i32);
        let check_at = b
            .ins()
            .load(I64, flags, jx, std::mem::offset_of!(Jx, check_at) as i32);
        let unwind = b.create_block();
        let spill = b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            16 * (u32::from(code.locals()) + shape.max as u32),
            3,
        ));
        let fp = b.ins().stack_addr(I64, spill, 0);
        Lowering {
            b,
            code,
            shape,
            sites,
            direct: false,
            jit: std::ptr::null(),
            blocks,
            nlocals: code.locals() as usize,
            fp,
            stack,
            names: vec![None; shape.max],
            tags: vec![None; shape.max],
            incoming: vec![None; shape.ops.len()],
            incoming_own: vec![None; shape.ops.len()],
            back: {
                let mut back = vec![false; shape.ops.len()];
                for (ip, op) in shape.ops.iter().enumerate() {
                    if shape.heights[ip].is_some() {
                        for (to, _) in edges(*op, ip).unwrap_or_default() {
                            if to <= ip && to < back.len() {
                                back[to] = true;
                            }
                        }
                    }
                }
                back
            },
            h: 0,
            own_l: vec![true; code.locals() as usize],
            own_s: vec![false; shape.max],
            pending: 0,
            jx,
            steps,
            check_at,
            unwind,
            exits: Vec::new(),
            sigs: Vec::new(),
        }
    }

    fn int(&mut self, v: u64) -> V {
        self.b.ins().iconst(I64, v as i64)
    }

    /// Give operand `p` the value `(tag, word)`: its tag known no more (a push
    /// learns it again).
    fn def(&mut self, p: Pair, (tag, word): (V, V)) {
        self.b.def_var(p.tag, tag);
        self.b.def_var(p.word, word);
        if let Some(i) = self.stack.iter().position(|q| q.tag == p.tag) {
            self.tags[i] = None;
        }
    }

    /// The constant `v` is, when the instruction that gives it is one.
    fn const_of(&self, v: V) -> Option<u64> {
        let dfg = &self.b.func.dfg;
        match dfg.value_def(dfg.resolve_aliases(v)) {
            ir::ValueDef::Result(inst, 0) => match dfg.insts[inst] {
                ir::InstructionData::UnaryImm {
                    opcode: ir::Opcode::Iconst,
                    imm,
                } => Some(imm.bits() as u64),
                _ => None,
            },
            _ => None,
        }
    }

    fn read(&mut self, p: Pair) -> (V, V) {
        (self.b.use_var(p.tag), self.b.use_var(p.word))
    }

    fn nil(&mut self) -> (V, V) {
        let z = self.int(NIL);
        (z, z)
    }

    fn constant(&mut self, tag: u64, word: u64) -> (V, V) {
        (self.int(tag), self.int(word))
    }

    /// Local `a`.
    fn local(&mut self, a: usize) -> (V, V) {
        let flags = MemFlagsData::trusted();
        let tag = self.b.ins().load(I64, flags, self.fp, 16 * a as i32);
        let word = self.b.ins().load(I64, flags, self.fp, 16 * a as i32 + 8);
        (tag, word)
    }

    /// Write `v` in local `a` (what was there not let go of).
    fn put_local(&mut self, a: usize, (tag, word): (V, V)) {
        let flags = MemFlagsData::trusted();
        self.b.ins().store(flags, tag, self.fp, 16 * a as i32);
        self.b.ins().store(flags, word, self.fp, 16 * a as i32 + 8);
    }

    /// Set local `a` to nil.
    fn clear_local(&mut self, a: usize) {
        let nil = self.nil();
        self.put_local(a, nil);
        self.own_l[a] = false;
    }

    /// Push a value that may hold a count.
    fn push(&mut self, v: (V, V)) {
        self.push_owning(v, true);
    }

    /// Push a value that holds no count (a constant, a boolean, an integer).
    fn push_plain(&mut self, v: (V, V)) {
        self.push_owning(v, false);
    }

    fn push_owning(&mut self, v: (V, V), own: bool) {
        let p = self.stack[self.h];
        self.def(p, v);
        self.names[self.h] = None;
        self.tags[self.h] = self.const_of(v.0);
        self.own_s[self.h] = own;
        self.h += 1;
    }

    /// Take the top operand: its value, and whether it may hold a count.
    fn pop(&mut self) -> ((V, V), bool) {
        self.h -= 1;
        let p = self.stack[self.h];
        let v = self.read(p);
        (v, std::mem::replace(&mut self.own_s[self.h], false))
    }

    fn sig(&mut self, args: usize, rets: usize) -> SigRef {
        signature(&mut self.b, &mut self.sigs, args, rets)
    }

    fn call(&mut self, f: usize, args: &[V], rets: usize) -> Vec<V> {
        let sig = self.sig(args.len(), rets);
        let callee = self.int(f as u64);
        let inst = self.b.ins().call_indirect(sig, callee, args);
        self.b.inst_results(inst).to_vec()
    }

    /// Call a helper giving a value; leave the body when it says so.
    fn call_value(&mut self, f: usize, args: &[V]) -> (V, V) {
        let r = self.call(f, args, 2);
        let out = self.b.ins().icmp_imm_u(IntCC::Equal, r[0], EXIT as i64);
        self.leave_if(out);
        (r[0], r[1])
    }

    /// Leave the body when `out` is true, letting go of every value held now.
    fn leave_if(&mut self, out: V) {
        let (exit, args) = self.way_out();
        let cont = self.b.create_block();
        self.b.ins().brif(out, exit, &args, cont, &[]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// Leave the body: every value that may hold a count let go of, and out.
    fn leave(&mut self) {
        let (exit, args) = self.way_out();
        self.b.ins().jump(exit, &args);
    }

    /// Where the body leaves from here, and what it passes there: the operands that may
    /// hold a count. The ways out are shared by every place that holds as many operands
    /// and whose locals may (or may not) hold counts, and made at the end
    /// ([`Lowering::ways_out`]): each puts the operands in the spill area and lets go
    /// of them, with the locals, in one call of [`helpers::let_go_all`].
    fn way_out(&mut self) -> (Block, Vec<ir::BlockArg>) {
        let held: Vec<Pair> = (0..self.h)
            .filter(|&i| self.own_s[i])
            .map(|i| self.stack[i])
            .collect();
        let key = (held.len(), self.own_l.iter().any(|&o| o));
        let exit = match self.exits.iter().find(|(k, _)| *k == key) {
            Some(&(_, b)) => b,
            None => {
                let b = self.b.create_block();
                for _ in 0..2 * held.len() {
                    self.b.append_block_param(b, I64);
                }
                self.exits.push((key, b));
                b
            }
        };
        let mut args = Vec::with_capacity(2 * held.len());
        for p in held {
            let (t, w) = self.read(p);
            args.extend([ir::BlockArg::Value(t), ir::BlockArg::Value(w)]);
        }
        (exit, args)
    }

    /// The code of the ways out ([`Lowering::way_out`]).
    fn ways_out(&mut self) {
        let flags = MemFlagsData::trusted();
        let after = 16 * self.nlocals as i32;
        for ((held, locals), exit) in std::mem::take(&mut self.exits) {
            self.b.switch_to_block(exit);
            let params = self.b.block_params(exit).to_vec();
            for (i, v) in params.iter().enumerate() {
                self.b.ins().store(flags, *v, self.fp, after + 8 * i as i32);
            }
            let (from, n) = if locals {
                (self.fp, self.nlocals + held)
            } else {
                (self.b.ins().iadd_imm_u(self.fp, i64::from(after)), held)
            };
            if n > 0 {
                let n = self.int(n as u64);
                self.call(helpers::let_go_all as *const () as usize, &[from, n], 0);
            }
            self.b.ins().jump(self.unwind, &[]);
        }
    }

    /// The machine's entry for the entity a name value names (`vm/addresses.rs`), when
    /// the value is an interned name of the game's fixed table and the entry is good in
    /// the world's generation (and is the entity of that name); on to `slow` otherwise
    /// (about twenty instructions in line instead of a call that finds the entity in the
    /// world).
    fn kept_entry(&mut self, (tag, word): (V, V), slow: Block) -> V {
        let flags = MemFlagsData::trusted();
        let field =
            |lw: &mut Self, base: V, at: usize| lw.b.ins().load(I64, flags, base, at as i32);
        let is_str = self.b.ins().icmp_imm_u(IntCC::Equal, tag, STR as i64);
        let low = self.b.ins().band_imm_u(word, 1);
        let name = self.b.ins().icmp_imm_u(IntCC::NotEqual, low, 0);
        let view = field(self, self.jx, std::mem::offset_of!(Jx, kept));
        let first = field(self, view, std::mem::offset_of!(View, first));
        let names = field(self, view, std::mem::offset_of!(View, names));
        let number = self.b.ins().ushr_imm_u(word, 1);
        let place = self.b.ins().isub(number, first);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, place, names);
        let ok = self.b.ins().band(is_str, name);
        let ok = self.b.ins().band(ok, inside);
        let named = self.b.create_block();
        self.b.ins().brif(ok, named, &[], slow, &[]);
        self.b.switch_to_block(named);
        self.b.seal_block(named);
        // Its id (`u32::MAX`, past every table, where no entity has the name).
        let ids = field(self, view, std::mem::offset_of!(View, ids));
        let at = self.b.ins().ishl_imm_u(place, 2);
        let at = self.b.ins().iadd(ids, at);
        let id = self.b.ins().uload32(flags, at, 0);
        let len = field(self, view, std::mem::offset_of!(View, len));
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, id, len);
        let found = self.b.create_block();
        self.b.ins().brif(inside, found, &[], slow, &[]);
        self.b.switch_to_block(found);
        self.b.seal_block(found);
        let entries = field(self, view, std::mem::offset_of!(View, entries));
        let at = self
            .b
            .ins()
            .imul_imm_u(id, std::mem::size_of::<Kept>() as i64);
        let kept = self.b.ins().iadd(entries, at);
        let generation = field(self, kept, std::mem::offset_of!(Kept, generation));
        let now = field(self, view, std::mem::offset_of!(View, generation));
        let now = self.b.ins().load(I64, flags, now, 0);
        let good = self.b.ins().icmp(IntCC::Equal, generation, now);
        let at = std::mem::offset_of!(Kept, name) as i32;
        let named = self.b.ins().uload32(flags, kept, at);
        let same = self.b.ins().icmp(IntCC::Equal, named, number);
        let good = self.b.ins().band(good, same);
        let read = self.b.create_block();
        self.b.ins().brif(good, read, &[], slow, &[]);
        self.b.switch_to_block(read);
        self.b.seal_block(read);
        kept
    }

    fn site(&mut self, site: Site) -> V {
        let at = self.sites.keep(site);
        self.int(at)
    }

    fn plain_site(&self, ip: usize) -> Site {
        Site::plain(self.code.spans[ip], self.jit)
    }

    /// Call `f` (a copy's count, or a let-go) on a value that may hold a count.
    fn counted(&mut self, f: usize, (tag, word): (V, V)) {
        // A constant tag: nothing to test.
        match self.const_of(tag) {
            Some(t) if t < STR => return,
            Some(t) if t > STR && t <= raw::MESSAGE => {
                self.call(f, &[tag, word], 0);
                return;
            }
            _ => {}
        }
        let may = may_hold_count(&mut self.b, tag, word);
        let yes = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(may, yes, &[], cont, &[]);
        self.b.switch_to_block(yes);
        self.b.seal_block(yes);
        self.call(f, &[tag, word], 0);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    fn let_go(&mut self, v: (V, V)) {
        self.counted(raw::jit_drop as *const () as usize, v);
    }

    fn copy(&mut self, v: (V, V)) {
        self.counted(raw::jit_clone as *const () as usize, v);
    }

    /// Whether a value is true: neither nil nor false. Of a value whose tag is `known`,
    /// its word's test (a boolean), or a constant.
    fn truthy(&mut self, (tag, word): (V, V), known: Option<u64>) -> V {
        match known {
            Some(BOOL) => return self.b.ins().icmp_imm_u(IntCC::NotEqual, word, 0),
            Some(t) => return self.b.ins().iconst(ir::types::I8, i64::from(t != NIL)),
            None => {}
        }
        truth(&mut self.b, tag, word)
    }

    /// The locals that the code from `start` (a loop's start) to the last jump back to it
    /// sets: the only ones that may hold a count there that did not on the way in.
    fn set_in_loop(&self, start: usize) -> Vec<bool> {
        let mut set = vec![false; self.nlocals];
        let end = (start..self.shape.ops.len())
            .filter(|&ip| {
                self.shape.heights[ip].is_some()
                    && edges(self.shape.ops[ip], ip)
                        .unwrap_or_default()
                        .iter()
                        .any(|&(to, _)| to == start)
            })
            .max()
            .unwrap_or(self.shape.ops.len() - 1);
        for op in &self.shape.ops[start..=end] {
            if let Op::Store(a) | Op::SetLocal(a) | Op::IterNext { var: a, .. } = *op
                && let Some(s) = set.get_mut(a as usize)
            {
                *s = true;
            }
        }
        set
    }

    /// Where the test at `t` sends the value an `and` or `or` (`op`) keeps and jumps to
    /// it with, when `t` only tests it (`(if (and a b) ...)`): the value is false for an
    /// `and`'s jump and true for an `or`'s, so the test's answer is known.
    fn tested_at(&self, op: Op, t: usize) -> Option<usize> {
        let Op::JumpIfFalse(no) = *self.shape.ops.get(t)? else {
            return None;
        };
        if self.code.ops()[t].weight() > 1 {
            return None;
        }
        Some(match op {
            Op::AndJump(_) => no as usize,
            _ => t + 1,
        })
    }

    /// The test at `t` (see [`Lowering::tested_at`]) of the top operand, lowered where
    /// its answer is known: its step counted (and its step check, if it jumps back),
    /// the operand let go of, and on `to`. The operand is the stretch's again after.
    fn test_passed(&mut self, t: usize, to: usize) {
        let own = self.own_s[self.h - 1];
        self.pending += 1;
        self.flush();
        if let Op::JumpIfFalse(no) = self.shape.ops[t]
            && no as usize <= t
        {
            self.check();
        }
        let (v, held) = self.pop();
        if held {
            self.let_go(v);
        }
        let next = self.block(to);
        self.b.ins().jump(next, &[]);
        self.h += 1;
        self.own_s[self.h - 1] = own;
    }

    /// The step check where a loop goes round.
    fn check(&mut self) {
        let flags = MemFlagsData::trusted();
        let s = self.b.ins().load(I64, flags, self.steps, 0);
        let at = self.b.ins().load(I64, flags, self.check_at, 0);
        let due = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, s, at);
        let slow = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(due, slow, &[], cont, &[]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let jx = self.jx;
        let r = self.call(helpers::check as *const () as usize, &[jx], 1);
        self.leave_if(r[0]);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// Whether the steps pending before `op` (its own too) may be counted with the next
    /// ones rather than before it:
    /// - a read of the world in a body running without its join point, which can only
    ///   give up (its helper never fails with an error, runs no code, and neither
    ///   checks nor charges steps); a transaction whose body gives up is run again from
    ///   its start on the interpreter, so the count a give-up leaves is never seen;
    /// - a comparison in line, which counts them itself on its way to the builtin
    ///   ([`Lowering::int_op`]).
    ///
    /// Anything else that can see the count (an error, a call, a check, a builtin's
    /// work, a jump) has it counted before, as ever.
    fn counted_later(&self, op: Op) -> bool {
        let compare = |index| {
            matches!(
                IntOp::of_builtin(index),
                Some(IntOp::Eq | IntOp::Ne | IntOp::Lt | IntOp::Gt | IntOp::Le | IntOp::Ge)
            )
        };
        match op {
            Op::Property(_) | Op::Attribute(_) | Op::PropertyOf(_) => self.direct,
            Op::Builtin(index, 2) => compare(index),
            _ => false,
        }
    }

    /// Count the `w` steps of a fused sequence lowered as a unit, with those pending.
    fn count(&mut self, w: usize) {
        self.pending += w as u64;
        self.flush();
    }

    /// Count the steps of the instructions lowered since the last count.
    fn flush(&mut self) {
        let n = std::mem::take(&mut self.pending);
        self.add_steps(n as i64);
    }

    /// `n` steps more (or fewer) in the count.
    fn add_steps(&mut self, n: i64) {
        if n == 0 {
            return;
        }
        let flags = MemFlagsData::trusted();
        let s = self.b.ins().load(I64, flags, self.steps, 0);
        let s = self.b.ins().iadd_imm_s(s, n);
        self.b.ins().store(flags, s, self.steps, 0);
    }

    fn block(&mut self, ip: usize) -> Block {
        self.arrive(ip);
        self.blocks[ip].expect("a jump target starts a stretch")
    }

    /// A jump (or the code running on) to the stretch at `ip` from here: what is known
    /// of the names below its height, met with what the other jumps to it knew.
    fn arrive(&mut self, ip: usize) {
        let h = self.shape.heights.get(ip).copied().flatten().unwrap_or(0);
        let here: Vec<Known> = (0..h)
            .map(|i| match i < self.h {
                true => (self.names[i], self.tags[i]),
                false => (None, None),
            })
            .collect();
        fn same<T: PartialEq>(a: Option<T>, b: Option<T>) -> Option<T> {
            if a == b { a } else { None }
        }
        let met = match self.incoming[ip].take() {
            None => here,
            Some(known) => known
                .into_iter()
                .zip(here)
                .map(|((n, t), (m, u))| (same(n, m), same(t, u)))
                .collect(),
        };
        self.incoming[ip] = Some(met);
        let locals = self.own_l.clone();
        let operands: Vec<bool> = (0..h).map(|i| i >= self.h || self.own_s[i]).collect();
        let met = match self.incoming_own[ip].take() {
            None => (locals, operands),
            Some((l, o)) => (
                l.iter().zip(&locals).map(|(a, b)| a | b).collect(),
                o.iter().zip(&operands).map(|(a, b)| a | b).collect(),
            ),
        };
        self.incoming_own[ip] = Some(met);
    }

    /// Push the top `k` operands on the machine's stack, the lowest first.
    fn hand_over(&mut self, k: usize) {
        let values = self.take_operands(k);
        self.push_values(&values);
    }

    /// Take the top `k` operands, the lowest first, with what they hold: the values,
    /// whose counts go with them.
    fn take_operands(&mut self, k: usize) -> Vec<(V, V)> {
        let values = (self.h - k..self.h)
            .map(|i| {
                self.own_s[i] = false;
                self.read(self.stack[i])
            })
            .collect();
        self.h -= k;
        values
    }

    /// Push `values` on the machine's stack, in order: one by one, or through the spill
    /// area in one call.
    fn push_values(&mut self, values: &[(V, V)]) {
        let jx = self.jx;
        if values.len() < 2 {
            for &(t, w) in values {
                self.call(helpers::push as *const () as usize, &[jx, t, w], 0);
            }
            return;
        }
        let at = self.spill(values);
        let n = self.int(values.len() as u64);
        self.call(helpers::push_all as *const () as usize, &[jx, at, n], 0);
    }

    /// Put `values` in the spill area, two words each: its address.
    fn spill(&mut self, values: &[(V, V)]) -> V {
        let flags = MemFlagsData::trusted();
        let after = 16 * self.nlocals as i32;
        for (i, &(t, w)) in values.iter().enumerate() {
            self.b.ins().store(flags, t, self.fp, after + 16 * i as i32);
            self.b
                .ins()
                .store(flags, w, self.fp, after + 16 * i as i32 + 8);
        }
        self.b.ins().iadd_imm_u(self.fp, i64::from(after))
    }

    fn body(&mut self) -> Result<(), String> {
        // Every variable nil, but the parameters, taken from the frame.
        let jx = self.jx;
        let params = usize::from(self.code.params).min(self.nlocals);
        if params > 0 {
            // Where the caller's code put them (a call from compiled code), else from
            // the machine's stack.
            let flags = MemFlagsData::trusted();
            let at = std::mem::offset_of!(Jx, params) as i32;
            let apart = self.b.ins().load(I64, flags, jx, at);
            let copy = self.b.create_block();
            let take = self.b.create_block();
            let start = self.b.create_block();
            self.b.ins().brif(apart, copy, &[], take, &[]);
            self.b.switch_to_block(copy);
            self.b.seal_block(copy);
            for i in 0..params {
                let tag = self.b.ins().load(I64, flags, apart, 16 * i as i32);
                let word = self.b.ins().load(I64, flags, apart, 16 * i as i32 + 8);
                self.put_local(i, (tag, word));
            }
            self.b.ins().jump(start, &[]);
            self.b.switch_to_block(take);
            self.b.seal_block(take);
            let (fp, n) = (self.fp, self.int(params as u64));
            self.call(helpers::take_params as *const () as usize, &[jx, fp, n], 0);
            self.b.ins().jump(start, &[]);
            self.b.switch_to_block(start);
            self.b.seal_block(start);
        }
        for i in params..self.nlocals {
            self.clear_local(i);
        }
        let first = self.block(0);
        self.b.ins().jump(first, &[]);
        let mut open = false;
        // The end of the fused sequence lowered as one unit, whose rest is not lowered.
        let mut past = 0;
        for ip in 0..self.shape.ops.len() {
            if ip < past {
                continue;
            }
            let Some(h) = self.shape.heights[ip] else {
                open = false;
                continue;
            };
            if let Some(block) = self.blocks[ip] {
                if open {
                    self.flush();
                    self.arrive(ip);
                    self.b.ins().jump(block, &[]);
                }
                self.b.switch_to_block(block);
                self.h = h;
                self.names.iter_mut().for_each(|n| *n = None);
                self.tags.iter_mut().for_each(|t| *t = None);
                if let Some(known) = self.incoming[ip].take()
                    && !self.back[ip]
                {
                    for (i, (name, tag)) in known.into_iter().enumerate() {
                        self.names[i] = name;
                        self.tags[i] = tag;
                    }
                }
                // What is known of the values where paths meet: where only jumps
                // from before lead, what any of them knew; else the operands below
                // the height may hold counts, the locals may.
                match self.incoming_own[ip].take() {
                    Some((locals, operands)) if !self.back[ip] => {
                        self.own_l.copy_from_slice(&locals);
                        for (i, o) in self.own_s.iter_mut().enumerate() {
                            *o = operands.get(i).copied().unwrap_or(false);
                        }
                    }
                    // A loop's start: what the jumps from before knew, and every
                    // local the loop sets (all of them where nothing is known).
                    incoming => {
                        let known = incoming.map(|(locals, _)| (locals, self.set_in_loop(ip)));
                        for (i, o) in self.own_l.iter_mut().enumerate() {
                            *o = known.as_ref().is_none_or(|(l, set)| l[i] || set[i]);
                        }
                        for (i, o) in self.own_s.iter_mut().enumerate() {
                            *o = i < h;
                        }
                    }
                }
            }
            open = match self.unit(ip) {
                Some(open) => {
                    past = ip + self.code.ops()[ip].weight() as usize;
                    open
                }
                None if self.list_update(ip) => {
                    past = ip + 2;
                    true
                }
                None => self.op(ip)?,
            };
        }
        Ok(())
    }

    /// Lower the fused instruction at `ip` as one unit, where the generator takes it and
    /// no jump lands inside its sequence: a call of one of the machine's functions that
    /// reads the values where they lie (the locals lent, not copied), or code in line.
    /// Whether the code goes on after it; `None` to lower its plain instructions instead.
    /// Its steps are counted before the call: the functions run no other code, and a
    /// body that leaves in one gives up (so that nothing sees the steps there).
    fn unit(&mut self, ip: usize) -> Option<bool> {
        let op = self.code.ops()[ip];
        let w = op.weight() as usize;
        if w < 2
            || op.rest_after() + 1 != w
            || (ip + 1..ip + w).any(|j| self.blocks.get(j).copied().flatten().is_some())
        {
            return None;
        }
        let jx = self.jx;
        let int = |lw: &mut Self, k: i32| lw.constant(INT, i64::from(k) as u64);
        match op {
            // `(property "p" of e)`, of a local or a name written in the code.
            Op::LocalPropertyOf { name, .. }
            | Op::LocalPropertyTo { name, .. }
            | Op::NamedPropertyOf { name, .. } => {
                // A read that can only give up (without its join point): its steps
                // counted with the next ones (see `Lowering::counted_later`).
                match self.direct {
                    true => self.pending += w as u64,
                    false => self.count(w),
                }
                let e = match op {
                    Op::NamedPropertyOf { entity, .. } => self.constant(STR, sym_word(entity)),
                    Op::LocalPropertyOf { a, .. } | Op::LocalPropertyTo { a, .. } => {
                        self.local(a as usize)
                    }
                    _ => return None,
                };
                let mut site = self.plain_site(ip + 1);
                site.name = name;
                let s = self.site(site);
                let f = helpers::property_of_lent as *const () as usize;
                let r = self.call_value(f, &[jx, s, e.0, e.1]);
                match op {
                    Op::LocalPropertyTo { dst, .. } => self.set_local(dst as usize, r, true),
                    _ => self.push(r),
                }
            }
            // `(get c k)`, `(nth c k)`, `(get c k default)` of locals (and a constant).
            Op::ReadLocals { .. } | Op::ReadConst { .. } | Op::GetOr { .. } => {
                self.count(w);
                let (c, k, read, default) = match op {
                    Op::ReadLocals { c, k, read } => (c, self.local(k as usize), read, None),
                    Op::ReadConst { c, read, k } => (c, int(self, k), read, None),
                    Op::GetOr { c, k, default } => (
                        c,
                        self.local(k as usize),
                        Read::Get,
                        Some(i64::from(default)),
                    ),
                    _ => return None,
                };
                let c = self.local(c as usize);
                let mut site = self.plain_site(ip + w - 1);
                site.index = read.builtin() as usize;
                site.argc = 2 + u8::from(default.is_some());
                site.pure = pure_fn(site.index);
                site.default = default;
                let s = self.site(site);
                let f = helpers::read_lent as *const () as usize;
                let r = self.call_value(f, &[jx, s, c.0, c.1, k.0, k.1]);
                self.push(r);
            }
            // `(get (property "p" of e) k)`: the table read where it lies.
            Op::PropertyGet { name, k, .. } | Op::NamedPropertyGet { name, k, .. } => {
                self.count(w);
                let e = match op {
                    Op::NamedPropertyGet { entity, .. } => self.constant(STR, sym_word(entity)),
                    Op::PropertyGet { a, .. } => self.local(a as usize),
                    _ => return None,
                };
                let k = self.local(k as usize);
                let mut site = self.plain_site(ip + 1);
                site.name = name;
                site.index = Read::Get.builtin() as usize;
                site.argc = 2;
                site.pure = pure_fn(site.index);
                let s = self.site(site);
                let f = helpers::property_get_lent as *const () as usize;
                let r = self.call_value(f, &[jx, s, e.0, e.1, k.0, k.1]);
                self.push(r);
            }
            // `(if (= (state of e) "s") ...)`: the state compared where it lies.
            Op::LocalStateJump { a, s, eq, to } if to as usize > ip => {
                self.count(w);
                let e = self.local(a as usize);
                // Read where the entity lies, when the machine keeps where that is.
                let slow = self.b.create_block();
                let kept = self.kept_entry(e, slow);
                let flags = MemFlagsData::trusted();
                let at = std::mem::offset_of!(Kept, entity) as i32;
                let entity = self.b.ins().load(I64, flags, kept, at);
                let at = std::mem::offset_of!(Entity, state) as i32;
                let state = self.b.ins().uload32(flags, entity, at);
                let same = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::Equal, state, i64::from(s.id()));
                let (yes, no) = (self.block(ip + w), self.block(to as usize));
                if eq {
                    self.b.ins().brif(same, yes, &[], no, &[]);
                } else {
                    self.b.ins().brif(same, no, &[], yes, &[]);
                }
                self.b.switch_to_block(slow);
                self.b.seal_block(slow);
                let mut site = self.plain_site(ip + 1);
                site.name = s;
                let site = self.site(site);
                let f = helpers::state_is_lent as *const () as usize;
                let r = self.call(f, &[jx, site, e.0, e.1], 1)[0];
                let out = self.b.ins().icmp_imm_u(IntCC::Equal, r, 2);
                self.leave_if(out);
                let same = self.b.ins().icmp_imm_u(IntCC::Equal, r, 1);
                let (yes, no) = (self.block(ip + w), self.block(to as usize));
                if eq {
                    self.b.ins().brif(same, yes, &[], no, &[]);
                } else {
                    self.b.ins().brif(same, no, &[], yes, &[]);
                }
                return Some(false);
            }
            // `(contains "KQRBNP" p)` on a one-letter name: a bit test, its work (the
            // string's length) counted as `contains` counts it.
            Op::LetterIn { s, letters, a } => {
                let v = self.local(a as usize);
                let found = self.letter_test(ip + 2, s, letters, v, w as u64, true);
                let t = self.int(BOOL);
                self.push_plain((t, found));
            }
            _ => return None,
        }
        Some(true)
    }

    /// `(contains s v)` for a string `s` of the distinct letters `letters` (see
    /// [`letter_set`]): a bit test when `v` is a one-letter (ASCII) name, its work (the
    /// string's length) counted as `contains` counts it; else `contains` by the machine
    /// (its site at `site_ip`), on a copy of `v` when `copy` (a local lent), on `v`
    /// itself otherwise (an operand taken). `steps` more are counted first either way.
    /// The boolean's word.
    fn letter_test(
        &mut self,
        site_ip: usize,
        s: Symbol,
        letters: u64,
        (tag, word): (V, V),
        steps: u64,
        copy: bool,
    ) -> V {
        let jx = self.jx;
        let letter = one_letter(&mut self.b, tag, word);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, I64);
        self.b.ins().brif(letter, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let pending = self.pending;
        self.pending += steps + u64::from(letters.count_ones());
        self.flush();
        // The work may reach the step check.
        self.check();
        let found = letter_bit(&mut self.b, word, letters);
        self.b.ins().jump(join, &[found.into()]);
        // Anything else: `contains` by the machine (on a copy of a local).
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        self.pending = pending + steps;
        self.flush();
        if copy {
            self.copy((tag, word));
        }
        let mut site = self.plain_site(site_ip);
        site.index = CONTAINS as usize;
        site.argc = 2;
        site.pure = pure_fn(site.index);
        let site = self.site(site);
        let hay = self.constant(STR, sym_word(s));
        let f = helpers::pure2::<{ two::CONTAINS }> as *const () as usize;
        let r = self.call_value(f, &[jx, site, hay.0, hay.1, tag, word]);
        self.b.ins().jump(join, &[r.1.into()]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }

    /// `(update property "p" to (append (property "p") x))` at its `append`, or
    /// `(update property "p" to (put (property "p") i x))` at its `put`, the form next
    /// and the name known: both in one call ([`helpers::append_property`],
    /// [`helpers::put_property`], each with a direct form without the join point), which
    /// pushes the element onto the list, or replaces the element, where the list lies
    /// when nobody else holds it, as the instruction loop does. Whether it was lowered
    /// so (the form with it).
    fn list_update(&mut self, ip: usize) -> bool {
        let next = ip + 1;
        let argc = match self.shape.ops[ip] {
            Op::Builtin(APPEND, 2) => 2,
            Op::Builtin(PUT, 3) => 3,
            _ => return false,
        };
        if self.shape.ops.get(next) != Some(&Op::Form(FormOp::UpdateProperty, 0))
            || self.blocks.get(next).copied().flatten().is_some()
            || self.h < argc + 1
        {
            return false;
        }
        let Some(name) = self.names[self.h - argc - 1] else {
            return false;
        };
        // Both steps before the call: the builtin can only give up.
        self.pending += 2;
        self.flush();
        let mut args = vec![self.jx, self.jx];
        for _ in 0..argc {
            let ((tag, word), _) = self.pop();
            args.splice(2..2, [tag, word]);
        }
        self.pop();
        let mut site = self.plain_site(next);
        site.name = name;
        site.index = if argc == 2 { APPEND } else { PUT } as usize;
        site.argc = argc as u8;
        site.pure = pure_fn(site.index);
        args[1] = self.site(site);
        let f = match (argc, self.direct) {
            (2, true) => helpers::append_property::<true> as *const () as usize,
            (2, false) => helpers::append_property::<false> as *const () as usize,
            (_, true) => helpers::put_property::<true> as *const () as usize,
            (_, false) => helpers::put_property::<false> as *const () as usize,
        };
        let r = self.call_value(f, &args);
        match self.direct {
            true => self.push_plain(r),
            false => self.push(r),
        }
        true
    }

    /// Lower the instruction at `ip`: whether the code goes on to the next one.
    fn op(&mut self, ip: usize) -> Result<bool, String> {
        let op = self.shape.ops[ip];
        let jx = self.jx;
        // Each instruction's step; the body's `End` is counted by whoever entered it.
        // The steps are counted before anything that may call the machine or leave,
        // so that a transaction ending in a call has counted exactly the steps before.
        if op != Op::End {
            self.pending += 1;
        }
        let cheap = matches!(
            op,
            Op::Nil
                | Op::Hole
                | Op::Bool(_)
                | Op::Int(_)
                | Op::Float(_)
                | Op::Str(_)
                | Op::Load(_)
                | Op::Take(_)
                | Op::Store(_)
                | Op::SetLocal(_)
                | Op::Pop
        );
        if !cheap && !self.counted_later(op) {
            self.flush();
        }
        match op {
            Op::Nil | Op::Hole => {
                let v = self.nil();
                self.push_plain(v);
            }
            Op::Bool(x) => {
                let v = self.constant(BOOL, u64::from(x));
                self.push_plain(v);
            }
            Op::Int(i) => {
                let v = self.constant(INT, i as u64);
                self.push_plain(v);
            }
            Op::Float(f) => {
                let v = self.constant(FLOAT, f.to_bits());
                self.push_plain(v);
            }
            Op::Str(s) => {
                let v = self.constant(STR, sym_word(s));
                self.push_plain(v);
                self.names[self.h - 1] = Some(s);
            }
            Op::Load(a) => {
                let a = a as usize;
                let v = self.local(a);
                let own = self.own_l[a];
                if own {
                    self.copy(v);
                }
                self.push_owning(v, own);
            }
            Op::Take(a) => {
                let a = a as usize;
                let v = self.local(a);
                let own = self.own_l[a];
                self.clear_local(a);
                self.push_owning(v, own);
            }
            Op::Store(a) => {
                let a = a as usize;
                let v = self.read(self.stack[self.h - 1]);
                let own = self.own_s[self.h - 1];
                if own {
                    self.copy(v);
                }
                self.set_local(a, v, own);
            }
            Op::SetLocal(a) => {
                let (v, own) = self.pop();
                self.set_local(a as usize, v, own);
            }
            Op::Message => {
                let r = self.call(helpers::message as *const () as usize, &[jx], 2);
                self.push((r[0], r[1]));
            }
            Op::Pop => {
                let (v, own) = self.pop();
                if own {
                    self.let_go(v);
                }
            }
            Op::Jump(t) => {
                if t as usize <= ip {
                    self.check();
                }
                let to = self.block(t as usize);
                self.b.ins().jump(to, &[]);
                return Ok(false);
            }
            Op::JumpIfFalse(t) => {
                if t as usize <= ip {
                    self.check();
                }
                let known = self.tags[self.h - 1];
                let (v, own) = self.pop();
                let c = self.truthy(v, known);
                if own {
                    self.let_go(v);
                }
                let (yes, no) = (self.block(ip + 1), self.block(t as usize));
                self.b.ins().brif(c, yes, &[], no, &[]);
                return Ok(false);
            }
            Op::AndJump(t) | Op::OrJump(t) => {
                let top = self.stack[self.h - 1];
                let v = self.read(top);
                let c = self.truthy(v, self.tags[self.h - 1]);
                let t = t as usize;
                let through = self.tested_at(op, t);
                let keep = match through {
                    Some(_) => self.b.create_block(),
                    None => self.block(t),
                };
                let drop = self.b.create_block();
                if matches!(op, Op::AndJump(_)) {
                    self.b.ins().brif(c, drop, &[], keep, &[]);
                } else {
                    self.b.ins().brif(c, keep, &[], drop, &[]);
                }
                if let Some(to) = through {
                    self.b.switch_to_block(keep);
                    self.b.seal_block(keep);
                    self.test_passed(t, to);
                }
                self.b.switch_to_block(drop);
                self.b.seal_block(drop);
                let (v, own) = self.pop();
                if own {
                    self.let_go(v);
                }
                let next = self.block(ip + 1);
                self.b.ins().jump(next, &[]);
                return Ok(false);
            }
            Op::CaseEq => {
                let (v, own) = self.pop();
                let x = self.read(self.stack[self.h - 1]);
                let f = helpers::equal as *const () as usize;
                let r = self.call(f, &[jx, x.0, x.1, v.0, v.1], 1);
                if own {
                    self.let_go(v);
                }
                let out = self.b.ins().icmp_imm_u(IntCC::Equal, r[0], 2);
                self.leave_if(out);
                let tag = self.int(BOOL);
                self.push_plain((tag, r[0]));
            }
            Op::Call(callee, argc) => {
                // The arguments in the spill area, handed to the callee's code there.
                let values = self.take_operands(argc as usize);
                let at = match values.is_empty() {
                    true => self.int(0),
                    false => self.spill(&values),
                };
                let n = self.int(values.len() as u64);
                let mut site = self.plain_site(ip);
                site.index = callee.0 as usize;
                site.argc = argc;
                let s = self.site(site);
                let f = helpers::call as *const () as usize;
                let r = self.call_value(f, &[jx, s, at, n]);
                self.push(r);
            }
            Op::Builtin(index, 2) if IntOp::of_builtin(index).is_some() => {
                let int_op = IntOp::of_builtin(index).unwrap_or(IntOp::Eq);
                self.int_op(ip, index, int_op);
            }
            Op::Builtin(index, argc @ 3..)
                if matches!(
                    IntOp::of_builtin(index),
                    Some(IntOp::Add | IntOp::Sub | IntOp::Mul)
                ) =>
            {
                let int_op = IntOp::of_builtin(index).unwrap_or(IntOp::Add);
                self.int_fold(ip, index, int_op, argc);
            }
            Op::Builtin(index, 0) if self.direct && is_self(index) => {
                // The name the send found its entity by, as the join point keeps it.
                let flags = MemFlagsData::trusted();
                let at = std::mem::offset_of!(Jx, me_name) as i32;
                let word = self.b.ins().load(I64, flags, jx, at);
                let tag = self.int(STR);
                self.push_plain((tag, word));
            }
            Op::Builtin(index, argc) if self.direct && !free_builtin(index) => {
                let mut site = self.plain_site(ip);
                site.index = index as usize;
                site.argc = argc;
                let helper = helpers::builtin_outermost as *const () as usize;
                self.at_outermost(argc as usize, site, helper);
            }
            Op::Builtin(index, argc) => {
                self.builtin(ip, index, argc);
            }
            Op::UpdateLocal { func, argc, .. } if self.direct && !free_builtin(func) => {
                // The hole and the other arguments.
                self.rare(argc as usize);
            }
            Op::UpdateLocal { slot, func, argc } => {
                // The collection, taken from its variable, where the hole was pushed.
                let slot = slot as usize;
                let v = self.local(slot);
                let own = self.own_l[slot];
                self.clear_local(slot);
                let at = self.h - argc as usize;
                self.def(self.stack[at], v);
                self.own_s[at] = own;
                self.builtin(ip, func, argc);
            }
            Op::IterStart => {
                let ((tag, word), own) = self.pop();
                let p = self.stack[self.h];
                self.def(p, (tag, word));
                self.own_s[self.h] = own;
                let is_list = self.b.ins().icmp_imm_u(IntCC::Equal, tag, LIST as i64);
                let other = self.b.create_block();
                let join = self.b.create_block();
                self.b.ins().brif(is_list, join, &[], other, &[]);
                self.b.switch_to_block(other);
                self.b.seal_block(other);
                self.own_s[self.h] = false;
                let f = helpers::iteration as *const () as usize;
                let r = self.call_value(f, &[jx, tag, word]);
                self.def(p, r);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                self.b.seal_block(join);
                self.own_s[self.h] = true;
                self.h += 1;
                let zero = self.constant(INT, 0);
                self.push_plain(zero);
            }
            Op::IterNext { var, exit } => {
                let list = self.stack[self.h - 2];
                let index = self.stack[self.h - 1];
                let (_, list_word) = self.read(list);
                let (_, i) = self.read(index);
                let r = self.call(helpers::item as *const () as usize, &[list_word, i], 2);
                let done = self.b.ins().icmp_imm_u(IntCC::Equal, r[0], DONE as i64);
                let end = self.b.create_block();
                let more = self.b.create_block();
                self.b.ins().brif(done, end, &[], more, &[]);
                self.b.switch_to_block(end);
                self.b.seal_block(end);
                let l = self.read(list);
                self.call(raw::jit_drop as *const () as usize, &[l.0, l.1], 0);
                let exit = self.block(exit as usize);
                self.b.ins().jump(exit, &[]);
                self.b.switch_to_block(more);
                self.b.seal_block(more);
                self.set_local(var as usize, (r[0], r[1]), true);
                let tag = self.int(INT);
                let i2 = self.b.ins().iadd_imm_u(i, 1);
                self.def(index, (tag, i2));
                let next = self.block(ip + 1);
                self.b.ins().jump(next, &[]);
                return Ok(false);
            }
            Op::Property(name) => {
                let joined = helpers::property as *const () as usize;
                let direct = helpers::property_direct as *const () as usize;
                self.named(ip, name, [joined, direct], None);
            }
            Op::Attribute(name) => {
                let joined = helpers::attribute as *const () as usize;
                let direct = helpers::attribute_direct as *const () as usize;
                self.named(ip, name, [joined, direct], None);
            }
            Op::PropertyOf(name) => {
                let (entity, _) = self.pop();
                let joined = helpers::property_of as *const () as usize;
                let direct = helpers::property_of_direct as *const () as usize;
                self.named(ip, name, [joined, direct], Some(entity));
            }
            Op::Form(form, nattrs) => self.form(ip, form, nattrs)?,
            Op::Return | Op::End => {
                let (v, _) = self.pop();
                self.let_go_held();
                let how = self.int(u64::from(op == Op::Return));
                let flags = MemFlagsData::trusted();
                self.b
                    .ins()
                    .store(flags, how, jx, std::mem::offset_of!(Jx, how) as i32);
                self.b.ins().return_(&[v.0, v.1]);
                return Ok(false);
            }
            other => return Err(format!("{other:?}")),
        }
        Ok(true)
    }

    /// An instruction naming `name` (and taking `operand`, if any): a call of the first
    /// of `helpers` at the join point, of the second in a direct form, its value pushed.
    fn named(&mut self, ip: usize, name: Symbol, helpers: [usize; 2], operand: Option<(V, V)>) {
        let mut site = self.plain_site(ip);
        site.name = name;
        let s = self.site(site);
        let mut args = vec![self.jx, s];
        args.extend(operand.into_iter().flat_map(|(t, w)| [t, w]));
        let r = self.call_value(helpers[usize::from(self.direct)], &args);
        self.push(r);
    }

    /// An instruction on the top `k` operands that a body running without its join point
    /// does not do: it gives up there ([`helpers::rare`]), letting go of what it holds.
    fn rare(&mut self, k: usize) {
        let jx = self.jx;
        let r = self.call_value(helpers::rare as *const () as usize, &[jx]);
        // Not reached: the helper always leaves.
        for _ in 0..k {
            self.pop();
        }
        self.push(r);
    }

    /// A form or builtin that reads the join point, in a direct form: its `k` operands
    /// handed over to `helper` ([`helpers::form_outermost`] or
    /// [`helpers::builtin_outermost`]), which does it at the outermost join point and
    /// gives up anywhere else (but for a message written, which it does there too).
    fn at_outermost(&mut self, k: usize, site: Site, helper: usize) {
        self.hand_over(k);
        let s = self.site(site);
        let jx = self.jx;
        let r = self.call_value(helper, &[jx, s]);
        self.push(r);
    }

    /// Set local `a` to `v` (which may hold a count when `own`), letting go of its value.
    fn set_local(&mut self, a: usize, v: (V, V), own: bool) {
        if self.own_l[a] {
            let old = self.local(a);
            self.let_go(old);
        }
        self.put_local(a, v);
        self.own_l[a] = own;
    }

    /// Builtin `index` on the top `argc` operands, by the machine (a pure one on one or
    /// two given in registers).
    fn builtin(&mut self, ip: usize, index: u16, argc: u8) {
        let mut site = self.plain_site(ip);
        site.index = index as usize;
        site.argc = argc;
        site.pure = pure_fn(index as usize);
        let jx = self.jx;
        if index == CONTAINS
            && argc == 2
            && let Some(s) = self.names[self.h - 2]
            && let Some(letters) = letter_set(s.as_str())
        {
            // `(contains "Rr" (property "piece"))`: the string written in the code.
            let (v, _) = self.pop();
            self.pop();
            let found = self.letter_test(ip, s, letters, v, 0, false);
            let t = self.int(BOOL);
            self.push_plain((t, found));
            return;
        }
        if index == NOT && argc == 1 {
            // Cannot fail: no way out after it.
            let known = self.tags[self.h - 1];
            let (v, own) = self.pop();
            let c = self.truthy(v, known);
            if own {
                self.let_go(v);
            }
            let c = self.b.ins().bxor_imm_u(c, 1);
            let word = self.b.ins().uextend(I64, c);
            let tag = self.int(BOOL);
            self.push_plain((tag, word));
            return;
        }
        if site.pure.is_some() && (argc == 1 || argc == 2) {
            let s = self.site(site);
            let mut args = vec![jx, s];
            for i in self.h - argc as usize..self.h {
                let (t, w) = self.read(self.stack[i]);
                self.own_s[i] = false;
                args.extend([t, w]);
            }
            self.h -= argc as usize;
            let f = match argc {
                1 => helpers::pure1 as *const () as usize,
                _ if index == CONTAINS => helpers::pure2::<{ two::CONTAINS }> as *const () as usize,
                _ if index == EQ || index == NE => {
                    helpers::pure2::<{ two::EQUAL }> as *const () as usize
                }
                _ => helpers::pure2::<{ two::ANY }> as *const () as usize,
            };
            let r = self.call_value(f, &args);
            self.push_owning(
                r,
                !BOOL_VALUED.contains(&index) && !INT_VALUED.contains(&index),
            );
            if BOOL_VALUED.contains(&index) {
                self.tags[self.h - 1] = Some(BOOL);
            }
            return;
        }
        if index == LIST_OF && argc > 2 {
            // The values in the spill area, made into the list there: the machine's
            // stack is not used.
            let values = self.take_operands(argc as usize);
            let at = self.spill(&values);
            let n = self.int(values.len() as u64);
            let r = self.call_value(helpers::list_from as *const () as usize, &[jx, at, n]);
            self.push(r);
            return;
        }
        self.hand_over(argc as usize);
        let s = self.site(site);
        let r = self.call_value(helpers::builtin as *const () as usize, &[jx, s]);
        self.push(r);
    }

    /// An integer operator on the top two operands: done here on two integers (two
    /// interned names, for `=` and `!=`), by the builtin otherwise.
    fn int_op(&mut self, ip: usize, index: u16, op: IntOp) {
        let a_p = self.stack[self.h - 2];
        let b_p = self.stack[self.h - 1];
        let (ta, wa) = self.read(a_p);
        let (tb, wb) = self.read(b_p);
        let ints = {
            let a_int = self.b.ins().icmp_imm_u(IntCC::Equal, ta, INT as i64);
            let b_int = self.b.ins().icmp_imm_u(IntCC::Equal, tb, INT as i64);
            self.b.ins().band(a_int, b_int)
        };
        // `(= x nil)` (or `(= nil x)`) with the nil written in the code: of any `x` but
        // a collection (whose comparison the builtin counts) or a string that holds a
        // count, whether `x` is nil; nothing to let go.
        let nil_side = match (op, self.const_of(ta), self.const_of(tb)) {
            (IntOp::Eq | IntOp::Ne, _, Some(NIL)) => Some((ta, wa)),
            (IntOp::Eq | IntOp::Ne, Some(NIL), _) => Some((tb, wb)),
            _ => None,
        };
        let here = match op {
            _ if let Some((t, w)) = nil_side => {
                let may = may_hold_count(&mut self.b, t, w);
                self.b.ins().bxor_imm_u(may, 1)
            }
            IntOp::Eq | IntOp::Ne => {
                // Same tag, and nil, a boolean, an integer, or two interned names.
                let same = self.b.ins().icmp(IntCC::Equal, ta, tb);
                let plain = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, ta, INT as i64);
                let is_str = self.b.ins().icmp_imm_u(IntCC::Equal, ta, STR as i64);
                let both = self.b.ins().band(wa, wb);
                let low = self.b.ins().band_imm_u(both, 1);
                let names = self.b.ins().icmp_imm_u(IntCC::NotEqual, low, 0);
                let names = self.b.ins().band(is_str, names);
                let simple = self.b.ins().bor(plain, names);
                self.b.ins().band(same, simple)
            }
            _ => ints,
        };
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(here, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let jx = self.jx;
        let cmp = |op: IntOp| match op {
            IntOp::Eq => Some(IntCC::Equal),
            IntOp::Ne => Some(IntCC::NotEqual),
            IntOp::Lt => Some(IntCC::SignedLessThan),
            IntOp::Gt => Some(IntCC::SignedGreaterThan),
            IntOp::Le => Some(IntCC::SignedLessThanOrEqual),
            IntOp::Ge => Some(IntCC::SignedGreaterThanOrEqual),
            _ => None,
        };
        if let Some(cc) = cmp(op) {
            let c = match nil_side {
                Some((t, _)) => self.b.ins().icmp_imm_u(cc, t, NIL as i64),
                None => self.b.ins().icmp(cc, wa, wb),
            };
            let w = self.b.ins().uextend(I64, c);
            let t = self.int(BOOL);
            self.def(a_p, (t, w));
            self.b.ins().jump(join, &[]);
        } else {
            let done = match op {
                IntOp::Add => Some(self.b.ins().sadd_overflow(wa, wb)),
                IntOp::Sub => Some(self.b.ins().ssub_overflow(wa, wb)),
                IntOp::Mul => Some(self.b.ins().smul_overflow(wa, wb)),
                _ => None,
            };
            match done {
                Some((w, overflow)) => {
                    self.unless_overflow(op, overflow, wa, wb);
                    let t = self.int(INT);
                    self.def(a_p, (t, w));
                    self.b.ins().jump(join, &[]);
                }
                None => {
                    let code = self.int(op as u64);
                    let r =
                        self.call_value(helpers::int_op as *const () as usize, &[jx, code, wa, wb]);
                    self.def(a_p, r);
                    self.b.ins().jump(join, &[]);
                }
            }
        }
        // Anything else: the builtin, with the steps pending counted before it (it may
        // fail, or count its work) and, past it, pending again as on the other path.
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let h = self.h;
        let pending = std::mem::take(&mut self.pending);
        self.add_steps(pending as i64);
        self.builtin(ip, index, 2);
        self.add_steps(-(pending as i64));
        self.pending = pending;
        self.h = h;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.h -= 1;
        self.own_s[self.h] = false;
        // A comparison gives a boolean on either path; arithmetic may give a string.
        self.own_s[self.h - 1] = cmp(op).is_none();
        self.names[self.h - 1] = None;
        self.tags[self.h - 1] = cmp(op).map(|_| BOOL);
    }

    /// Go on where `overflow` (of `op` on `a` and `b`) is false; where it is true, the
    /// builtin's error, on the interpreter (the body gives up).
    fn unless_overflow(&mut self, op: IntOp, overflow: V, a: V, b: V) {
        let ok = self.b.create_block();
        let over = self.b.create_block();
        self.b.ins().brif(overflow, over, &[], ok, &[]);
        self.b.switch_to_block(over);
        self.b.seal_block(over);
        let (jx, code) = (self.jx, self.int(op as u64));
        self.call(helpers::int_op as *const () as usize, &[jx, code, a, b], 2);
        self.leave();
        self.b.switch_to_block(ok);
        self.b.seal_block(ok);
    }

    /// `+`, `-` or `*` of more than two operands (`(+ a b c d e f)`): on integers, done
    /// here from the left, as the builtin folds them; an overflow gives up (the
    /// interpreter reports it), anything but integers goes to the builtin.
    fn int_fold(&mut self, ip: usize, index: u16, op: IntOp, argc: u8) {
        let k = argc as usize;
        let places: Vec<Pair> = self.stack[self.h - k..self.h].to_vec();
        let values: Vec<(V, V)> = places.iter().map(|&p| self.read(p)).collect();
        let mut ints = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, values[0].0, INT as i64);
        for &(t, _) in &values[1..] {
            let int = self.b.ins().icmp_imm_u(IntCC::Equal, t, INT as i64);
            ints = self.b.ins().band(ints, int);
        }
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(ints, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let mut acc = values[0].1;
        for &(_, w) in &values[1..] {
            let (sum, overflow) = match op {
                IntOp::Sub => self.b.ins().ssub_overflow(acc, w),
                IntOp::Mul => self.b.ins().smul_overflow(acc, w),
                _ => self.b.ins().sadd_overflow(acc, w),
            };
            self.unless_overflow(op, overflow, acc, w);
            acc = sum;
        }
        let t = self.int(INT);
        self.def(places[0], (t, acc));
        self.b.ins().jump(join, &[]);
        // Anything else: the builtin.
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let h = self.h;
        self.builtin(ip, index, argc);
        self.h = h;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.h -= k - 1;
        for i in self.h..self.h + k - 1 {
            self.own_s[i] = false;
        }
        // Arithmetic may give a string on the builtin's path.
        self.own_s[self.h - 1] = true;
        self.names[self.h - 1] = None;
        self.tags[self.h - 1] = None;
    }

    /// A form of the game model.
    fn form(&mut self, ip: usize, form: FormOp, nattrs: u8) -> Result<(), String> {
        let jx = self.jx;
        let k = form.operands().len() + 2 * nattrs as usize;
        let mut site = self.plain_site(ip);
        site.form = form;
        site.argc = nattrs;
        match (form, nattrs, self.direct) {
            (FormOp::StateOf, 0, true) => {
                let ((tag, word), _) = self.pop();
                let f = helpers::state_of_direct as *const () as usize;
                let r = self.call_value(f, &[jx, tag, word]);
                self.push(r);
                return Ok(());
            }
            (FormOp::ChangeState, 0, true) => {
                let ((tag, word), _) = self.pop();
                let f = helpers::change_state_direct as *const () as usize;
                let r = self.call_value(f, &[jx, tag, word]);
                self.push_plain(r);
                return Ok(());
            }
            (FormOp::UpdateAttribute, 0, _) if self.names[self.h - 2].is_some() => {
                site.name = self.names[self.h - 2].unwrap_or(site.name);
                let ((tag, word), _) = self.pop();
                self.pop();
                let s = self.site(site);
                let f = helpers::update_attribute as *const () as usize;
                let r = self.call_value(f, &[jx, s, tag, word]);
                self.push_plain(r);
                return Ok(());
            }
            (FormOp::Label, 0, _) => {
                let r = self.call_value(helpers::label as *const () as usize, &[jx]);
                self.push_plain(r);
                return Ok(());
            }
            (FormOp::StateOf, 0, false) => {
                let ((tag, word), _) = self.pop();
                let s = self.site(site);
                let f = helpers::state_of as *const () as usize;
                let r = self.call_value(f, &[jx, s, tag, word]);
                self.push(r);
                return Ok(());
            }
            (FormOp::UpdateProperty, 0, direct) if self.names[self.h - 2].is_some() => {
                site.name = self.names[self.h - 2].unwrap_or(site.name);
                let ((tag, word), _) = self.pop();
                self.pop();
                let s = self.site(site);
                let f = match direct {
                    true => helpers::update_property_direct as *const () as usize,
                    false => helpers::update_property as *const () as usize,
                };
                let r = self.call_value(f, &[jx, s, tag, word]);
                if direct {
                    self.push_plain(r);
                } else {
                    self.push(r);
                }
                return Ok(());
            }
            (FormOp::SendNew, _, _) | (FormOp::NewMessage, _, false) => {
                if let Some(shape) = self.shape_of(form, nattrs, site.span) {
                    let send = shape.send;
                    site.shape = Some(shape);
                    if send {
                        // SAFETY: the generator outlives its lowerings.
                        let sends = unsafe { &(*self.jit).sends };
                        site.send = sends.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    // The label and the keys are names the site knows: only the
                    // recipient and the values go to the machine.
                    let base = self.h - k;
                    let mut taken = Vec::new();
                    let first = 1 + usize::from(send);
                    for i in base..self.h {
                        let p = self.stack[i];
                        let v = self.read(p);
                        self.own_s[i] = false;
                        // The label, the recipient, then keys and values in turn.
                        let off = i - base;
                        let value = (send && off == 1) || (off >= first && (off - first) % 2 == 1);
                        if value {
                            taken.push(v);
                        }
                    }
                    self.h = base;
                    self.push_values(&taken);
                    let s = self.site(site);
                    let r = self.call_value(helpers::send as *const () as usize, &[jx, s]);
                    self.push(r);
                    return Ok(());
                }
            }
            _ => {}
        }
        if self.direct && !free_form(form) && !transaction_form(form) {
            // A form that reads the join point (or a send whose label or keys are made
            // at run time, which would name it as the sender).
            let helper = helpers::form_outermost as *const () as usize;
            self.at_outermost(k, site, helper);
            return Ok(());
        }
        self.hand_over(k);
        let s = self.site(site);
        let r = self.call_value(helpers::form as *const () as usize, &[jx, s]);
        self.push(r);
        Ok(())
    }

    /// The shape of a message made or sent with its label and keys known names.
    fn shape_of(
        &self,
        form: FormOp,
        nattrs: u8,
        span: crate::source::Span,
    ) -> Option<MessageShape> {
        let send = form == FormOp::SendNew;
        let k = form.operands().len() + 2 * nattrs as usize;
        let base = self.h - k;
        let label = self.names[base]?;
        let first = base + 1 + usize::from(send);
        let names: Vec<Symbol> = (0..nattrs as usize)
            .map(|i| self.names[first + 2 * i])
            .collect::<Option<_>>()?;
        let order = key_order(&names)?;
        Some(MessageShape {
            label,
            names: names.into(),
            order,
            send,
            span,
        })
    }

    /// Let go of every local and operand that may hold a count (at the body's end): a
    /// few locals each in line (a test of its kind, a call only for a value with a
    /// count), more in one call.
    fn let_go_held(&mut self) {
        let owned: Vec<usize> = (0..self.nlocals).filter(|&i| self.own_l[i]).collect();
        if owned.len() > LET_GO_IN_LINE {
            let n = self.int(self.nlocals as u64);
            let fp = self.fp;
            self.call(helpers::let_go_all as *const () as usize, &[fp, n], 0);
        } else {
            for i in owned {
                let v = self.local(i);
                self.let_go(v);
            }
        }
        let held: Vec<Pair> = (0..self.h)
            .filter(|&i| self.own_s[i])
            .map(|i| self.stack[i])
            .collect();
        for p in held {
            let v = self.read(p);
            self.let_go(v);
        }
    }

    fn finish(mut self, target: TargetFrontendConfig) {
        self.ways_out();
        // Leaving early (the values let go on the way here): the way out said.
        self.b.switch_to_block(self.unwind);
        let jx = self.jx;
        let how = self.int(2);
        let flags = MemFlagsData::trusted();
        self.b
            .ins()
            .store(flags, how, jx, std::mem::offset_of!(Jx, how) as i32);
        let exit = self.constant(EXIT, 0);
        self.b.ins().return_(&[exit.0, exit.1]);
        self.b.seal_all_blocks();
        self.b.finalize(target);
    }
}
