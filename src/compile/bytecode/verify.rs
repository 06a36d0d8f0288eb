//! The verifier ([`verify`]): what the instruction loop may take for granted about a
//! compiled body, proved once when the body is compiled rather than checked at every
//! instruction.
//!
//! It follows every path through the body from its first instruction, fused
//! instructions' fast cases and their plain fallbacks alike, and finds:
//!
//! - that every instruction a path reaches is in the body, and none runs off its end;
//! - that every local an instruction names is one of the body's slots;
//! - the height of the operand stack (above the locals) at each instruction, the same on
//!   every path that reaches it, and never below what the instruction takes from it;
//! - the greatest height any path reaches: the room the body needs above its locals.
//!
//! So the instruction loop fetches instructions, reads and writes locals and pops its
//! operands without bounds checks, and pushes without a capacity check once the frame has
//! reserved that room (see `runtime/vm/stack.rs`).

use super::{Code, Op};

/// Where a body is malformed, and how: a fault of the compiler, never of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// The instruction.
    pub at: usize,
    /// What is wrong there.
    pub what: String,
}

/// The greatest height the operand stack may have above the locals. No program comes
/// near it: forms nest at most 200 deep (`syntax::reader::MAX_NESTING`) and a call takes
/// at most 255 arguments, so a body past it is a fault of the compiler.
const MAX_HEIGHT: u32 = 1 << 20;

/// Where an instruction may go and what it leaves: at most four places, each with the
/// change in the stack's height on the way there.
struct Edges {
    /// How many values the instruction reads from the top of the stack.
    need: u32,
    to: [(usize, i64); 4],
    n: usize,
}

impl Edges {
    fn new(need: u32) -> Edges {
        Edges {
            need,
            to: [(0, 0); 4],
            n: 0,
        }
    }

    fn go(mut self, to: usize, delta: i64) -> Edges {
        self.to[self.n] = (to, delta);
        self.n += 1;
        self
    }

    fn needing(mut self, need: u32) -> Edges {
        self.need = self.need.max(need);
        self
    }
}

/// Whether two instructions are of one kind (`plain` gives a plain instruction back as
/// it is, a fused one as another kind).
fn same_kind(a: Op, b: Op) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
}

/// Where plain instruction `op` at `ip` may go.
fn plain_edges(op: Op, ip: usize) -> Edges {
    let next = ip + 1;
    match op {
        Op::Nil
        | Op::Bool(_)
        | Op::Int(_)
        | Op::Float(_)
        | Op::Str(_)
        | Op::Load(_)
        | Op::Take(_)
        | Op::Message
        | Op::Hole
        | Op::Property(_)
        | Op::Attribute(_) => Edges::new(0).go(next, 1),
        Op::Store(_) | Op::PropertyOf(_) => Edges::new(1).go(next, 0),
        Op::SetLocal(_) | Op::Pop => Edges::new(1).go(next, -1),
        Op::Jump(t) => Edges::new(0).go(t as usize, 0),
        Op::JumpIfFalse(t) => Edges::new(1).go(t as usize, -1).go(next, -1),
        Op::AndJump(t) | Op::OrJump(t) => Edges::new(1).go(t as usize, 0).go(next, -1),
        // The switched value stays below the result.
        Op::CaseEq => Edges::new(2).go(next, 0),
        Op::Call(_, argc) | Op::CallSmall(_, argc) | Op::Builtin(_, argc) => {
            Edges::new(u32::from(argc)).go(next, 1 - i64::from(argc))
        }
        Op::UpdateLocal { argc, .. } => Edges::new(u32::from(argc)).go(next, 1 - i64::from(argc)),
        Op::IterStart => Edges::new(1).go(next, 1),
        Op::IterNext { exit, .. } => Edges::new(2).go(next, 0).go(exit as usize, -2),
        Op::Form(form, nattrs) => {
            let k = form.operands().len() as u32 + 2 * u32::from(nattrs);
            Edges::new(k).go(next, 1 - i64::from(k))
        }
        Op::Return | Op::End => Edges::new(1),
        // A fused instruction: its plain first instruction's edges. (An instruction
        // `plain` gives back unchanged is a plain one missing above: it is refused, by
        // needing more than any stack holds, so a new instruction cannot pass unseen.)
        fused => match fused.plain(super::builtin_of) {
            plain if !same_kind(plain, fused) => plain_edges(plain, ip),
            _ => Edges::new(u32::MAX),
        },
    }
}

/// Where plain instruction `op` at `ip` may go, each with the change of the stack's
/// height there (the machine code generator's reading of the plain program); `None` for
/// a fused instruction.
pub fn plain_successors(op: Op, ip: usize) -> Option<Vec<(usize, i64)>> {
    if !same_kind(op.plain(super::builtin_of), op) {
        return None;
    }
    let edges = plain_edges(op, ip);
    (edges.need != u32::MAX).then(|| edges.to[..edges.n].to_vec())
}

/// Where instruction `op` at `ip` may go: a plain instruction's edges, or a fused one's
/// fast case's together with its plain first instruction's (its fallback).
fn edges(op: Op, ip: usize) -> Edges {
    let plain = plain_edges(op, ip);
    let at = |k: usize| ip + k;
    match op {
        Op::LocalConst { .. }
        | Op::Locals { .. }
        | Op::ReadLocals { .. }
        | Op::ReadConst { .. } => plain.go(at(3), 1),
        Op::LetterIn { .. } | Op::LetterInProperty { .. } => plain.go(at(3), 1),
        Op::GetOr { .. } | Op::PropertyGet { .. } | Op::NamedPropertyGet { .. } => {
            plain.go(at(4), 1)
        }
        Op::LocalPropertyOf { .. } | Op::NamedPropertyOf { .. } => plain.go(at(2), 1),
        Op::Const { .. } | Op::StrCmp { .. } => plain.go(at(2), 0).needing(1),
        Op::NilPop => plain.go(at(2), 0),
        Op::SetLocalConst { .. } => plain.go(at(4), 0),
        Op::LocalPropertyTo { .. } => plain.go(at(3), 0),
        Op::PutAdd { .. } => plain.go(at(10), 0),
        Op::LocalConstJump { to, .. }
        | Op::LocalsJump { to, .. }
        | Op::LocalStrCmpJump { to, .. }
        | Op::LocalNilJump { to, .. } => plain.go(at(4), 0).go(to as usize, 0),
        Op::LocalStateJump { to, .. } => plain.go(at(5), 0).go(to as usize, 0),
        Op::LocalJump { to, .. } => plain.go(at(2), 0).go(to as usize, 0),
        Op::LoopLocalConst { exit, body, .. } | Op::LoopLocals { exit, body, .. } => {
            plain.go(exit as usize, 0).go(body as usize, 0)
        }
        Op::OpJump { to, .. } => plain.go(at(2), -2).go(to as usize, -2),
        Op::StrCmpJump { to, .. } => plain.go(at(3), -1).go(to as usize, -1).needing(1),
        Op::SetLocalJump { to, .. } => plain.go(at(3), -1).go(to as usize, -1),
        Op::AndExit { exit, .. } => plain.go(exit as usize, -1),
        Op::IterLoop { to, exit, .. } => plain
            .go(to as usize + 1, 0)
            .go(exit as usize, -2)
            .needing(2),
        Op::JumpPop(to) => plain.go(to as usize + 1, -1).needing(1),
        Op::PutLocal { .. } => plain.go(at(2), -3),
        // Their fast cases end the body (with the value on top, or a nil they stand for).
        Op::JumpEnd(_) => plain.needing(1),
        Op::TestEnd(_) | Op::NilEnd => plain,
        // A plain instruction: its own edges. (A fused one missing above is refused, as
        // in `plain_edges`.)
        _ if same_kind(op.plain(super::builtin_of), op) => plain,
        _ => Edges::new(u32::MAX),
    }
}

/// The locals instruction `op` names (at most two).
fn locals_named(op: Op) -> [Option<u16>; 2] {
    match op {
        Op::Load(a)
        | Op::Store(a)
        | Op::SetLocal(a)
        | Op::Take(a)
        | Op::IterNext { var: a, .. }
        | Op::IterLoop { var: a, .. }
        | Op::UpdateLocal { slot: a, .. }
        | Op::PutLocal { slot: a }
        | Op::LocalConst { a, .. }
        | Op::LocalConstJump { a, .. }
        | Op::LoopLocalConst { a, .. }
        | Op::ReadConst { c: a, .. }
        | Op::LetterIn { a, .. }
        | Op::LocalStrCmpJump { a, .. }
        | Op::LocalStateJump { a, .. }
        | Op::LocalNilJump { a, .. }
        | Op::LocalPropertyOf { a, .. }
        | Op::NamedPropertyGet { k: a, .. }
        | Op::SetLocalJump { a, .. }
        | Op::LocalJump { a, .. } => [Some(a), None],
        Op::Locals { a, b, .. }
        | Op::LocalsJump { a, b, .. }
        | Op::LoopLocals { a, b, .. }
        | Op::SetLocalConst { a, dst: b, .. }
        | Op::ReadLocals { c: a, k: b, .. }
        | Op::GetOr { c: a, k: b, .. }
        | Op::LocalPropertyTo { a, dst: b, .. }
        | Op::PropertyGet { a, k: b, .. }
        | Op::PutAdd { d: a, k: b, .. } => [Some(a), Some(b)],
        _ => [None, None],
    }
}

/// Check `code` as the module says, and give the room it needs on the operand stack
/// above its locals (at least one value: the body's own, which a fast tier may push).
pub fn verify(code: &Code) -> Result<u32, Malformed> {
    let ops = &code.ops;
    let bad = |at: usize, what: String| Err(Malformed { at, what });
    if ops.is_empty() {
        return bad(0, "no instructions".into());
    }
    if ops.len() != code.spans.len() {
        return bad(
            0,
            format!("{} instructions but {} spans", ops.len(), code.spans.len()),
        );
    }
    if ops.len() >= u32::MAX as usize {
        return bad(0, "too many instructions".into());
    }
    for (ip, op) in ops.iter().enumerate() {
        for slot in locals_named(*op).into_iter().flatten() {
            if slot >= code.locals {
                return bad(ip, format!("{op:?} names local {slot} of {}", code.locals));
            }
        }
    }
    let mut height: Vec<Option<u32>> = vec![None; ops.len()];
    let mut work = vec![0usize];
    height[0] = Some(0);
    let mut room = 1u32;
    while let Some(ip) = work.pop() {
        let h = height[ip].unwrap_or_default();
        let op = ops[ip];
        let e = edges(op, ip);
        if h < e.need {
            return bad(
                ip,
                format!("{op:?} takes {} values from a stack of {h}", e.need),
            );
        }
        for &(to, delta) in &e.to[..e.n] {
            if to >= ops.len() {
                return bad(
                    ip,
                    format!("{op:?} goes to {to}, past the end ({})", ops.len()),
                );
            }
            let after = i64::from(h) + delta;
            if after < 0 || after > i64::from(MAX_HEIGHT) {
                return bad(ip, format!("{op:?} leaves a stack of {after}"));
            }
            let after = after as u32;
            room = room.max(after);
            match height[to] {
                None => {
                    height[to] = Some(after);
                    work.push(to);
                }
                Some(there) if there != after => {
                    return bad(
                        to,
                        format!("reached with a stack of {there} and, from {ip}, of {after}"),
                    );
                }
                Some(_) => {}
            }
        }
    }
    Ok(room)
}

#[cfg(test)]
mod tests {
    use super::{Malformed, verify};
    use crate::compile::bytecode::{Code, IntOp, Op, builtin_of};
    use crate::source::Span;

    fn code(locals: u16, ops: Vec<Op>) -> Code {
        let mut c = Code::placeholder(Span::default());
        c.spans = vec![Span::default(); ops.len()];
        c.ops = ops;
        c.locals = locals;
        c
    }

    fn fault(locals: u16, ops: Vec<Op>) -> Malformed {
        verify(&code(locals, ops)).expect_err("malformed")
    }

    fn add() -> Op {
        Op::Builtin(builtin_of(IntOp::Add), 2)
    }

    #[test]
    fn the_room_is_the_highest_stack_on_any_path() {
        // (if x (+ 1 (+ 2 3)) else nil): three values at most, on the first branch.
        let ops = vec![
            Op::Load(0),
            Op::JumpIfFalse(8),
            Op::Int(1),
            Op::Int(2),
            Op::Int(3),
            add(),
            add(),
            Op::Jump(9),
            Op::Nil,
            Op::End,
        ];
        assert_eq!(verify(&code(1, ops)), Ok(3));
        assert_eq!(verify(&code(0, vec![Op::Nil, Op::End])), Ok(1));
    }

    #[test]
    fn a_loop_verifies_when_it_comes_back_as_it_left() {
        // (foreach x in l (print x)) then nil.
        let ops = vec![
            Op::Load(0),
            Op::IterStart,
            Op::IterNext { var: 1, exit: 7 },
            Op::Load(1),
            Op::Builtin(0, 1),
            Op::Pop,
            Op::Jump(2),
            Op::Nil,
            Op::End,
        ];
        assert_eq!(verify(&code(2, ops)), Ok(3));
    }

    #[test]
    fn each_fault_is_found_where_it_is() {
        let at = |m: Malformed| m.at;
        assert_eq!(at(fault(0, vec![])), 0);
        assert_eq!(
            at(fault(0, vec![Op::Pop, Op::Nil, Op::End])),
            0,
            "a pop of nothing"
        );
        assert_eq!(
            at(fault(0, vec![Op::Nil, Op::Jump(7), Op::End])),
            1,
            "past the end"
        );
        assert_eq!(at(fault(0, vec![Op::Nil])), 0, "running off the end");
        assert_eq!(
            at(fault(1, vec![Op::Load(1), Op::End])),
            0,
            "a local not there"
        );
        assert_eq!(
            at(fault(0, vec![Op::Nil, Op::End, Op::Load(3)])),
            2,
            "even unreached"
        );
        // Two paths reach the `End` with different stacks.
        let m = fault(0, vec![Op::Nil, Op::JumpIfFalse(3), Op::Nil, Op::End]);
        assert_eq!(m.at, 3, "{}", m.what);
        // A call takes its arguments.
        let m = fault(0, vec![Op::Nil, add(), Op::End]);
        assert!(
            m.what.contains("takes 2 values from a stack of 1"),
            "{}",
            m.what
        );
    }

    #[test]
    fn a_fused_instruction_must_stand_for_the_sequence_after_it() {
        // `LocalConst` stands for `Load Int Builtin/2`: its fast case lands after them
        // with one value more, as they do.
        let good = vec![
            Op::LocalConst {
                a: 0,
                op: IntOp::Add,
                k: 1,
            },
            Op::Int(1),
            add(),
            Op::End,
        ];
        assert_eq!(verify(&code(1, good)), Ok(2));
        // With a `Nil` where the `+` was, the sequence leaves three values.
        let bad = vec![
            Op::LocalConst {
                a: 0,
                op: IntOp::Add,
                k: 1,
            },
            Op::Int(1),
            Op::Nil,
            Op::End,
        ];
        assert_eq!(fault(1, bad).at, 3);
        // A fused instruction's own local is checked as a plain one's is.
        let far = vec![
            Op::Locals {
                a: 0,
                b: 2,
                op: IntOp::Add,
            },
            Op::Load(0),
            add(),
            Op::End,
        ];
        assert_eq!(fault(1, far).at, 0);
    }

    #[test]
    fn a_rewrite_that_breaks_the_body_is_refused_and_undone() {
        let mut c = code(1, vec![Op::Load(0), Op::End]);
        c.room = 1;
        let m = c.rewrite_ops(|op| {
            if *op == Op::Load(0) {
                *op = Op::Pop;
            }
        });
        assert!(m.is_err());
        assert_eq!(c.ops(), &[Op::Load(0), Op::End]);
        c.rewrite_ops(|op| {
            if *op == Op::Load(0) {
                *op = Op::Int(4);
            }
        })
        .expect("still verifies");
        assert_eq!((c.ops()[0], c.room()), (Op::Int(4), 1));
    }
}
