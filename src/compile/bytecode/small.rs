//! Small functions: the `#define`s whose every instruction the machine's small loop runs
//! (`runtime/vm/small.rs`), and the calls of them, which become [`Op::CallSmall`]. See
//! `docs/machine.md`, "The small loop".

use super::{Code, CodeId, IntOp, Op};
use crate::compile::builtins::index as builtin_index;

/// The index of `not`.
const NOT: u16 = builtin_index("not");

/// Whether the small loop runs `op` (a call counts when its callee is small, which
/// [`mark_small_calls`] decides). The loop hands every case it does not take (an operand
/// that is not an integer, an overflow, an instruction not on this list) to the main
/// loop; what it relies on is the steps these count (at most 5, or 9 for a
/// `SetLocalConst` and the loop test after it) and the jumps checked by [`is_small`].
fn small_op(op: Op) -> bool {
    match op {
        Op::Nil
        | Op::Bool(_)
        | Op::Int(_)
        | Op::Load(_)
        | Op::Store(_)
        | Op::SetLocal(_)
        | Op::Pop
        | Op::Jump(_)
        | Op::JumpIfFalse(_)
        | Op::AndJump(_)
        | Op::AndExit { .. }
        | Op::OrJump(_)
        | Op::Const { .. }
        | Op::LocalConst { .. }
        | Op::Locals { .. }
        | Op::LocalConstJump { .. }
        | Op::LocalsJump { .. }
        | Op::SetLocalConst { .. }
        | Op::LoopLocalConst { .. }
        | Op::LoopLocals { .. }
        | Op::OpJump { .. }
        | Op::NilPop
        | Op::NilEnd
        | Op::JumpPop(_)
        | Op::TestEnd(_)
        | Op::JumpEnd(_)
        | Op::Return
        | Op::End => true,
        Op::Builtin(i, 2) => IntOp::of_builtin(i).is_some(),
        Op::Builtin(i, 1) => i == NOT,
        _ => false,
    }
}

/// Where the small loop may go from `op` other than the instructions after it: its jump
/// targets (`JumpPop`'s is the one after its target; a loop's plain jump is to four
/// before its body, wrapping below zero).
pub fn small_targets(op: Op) -> impl Iterator<Item = u32> {
    let (a, b, c) = match op {
        Op::Jump(t)
        | Op::JumpIfFalse(t)
        | Op::TestEnd(t)
        | Op::AndJump(t)
        | Op::OrJump(t)
        | Op::JumpEnd(t)
        | Op::OpJump { to: t, .. }
        | Op::LocalConstJump { to: t, .. }
        | Op::LocalsJump { to: t, .. } => (Some(t), None, None),
        Op::JumpPop(t) => (Some(t), Some(t.wrapping_add(1)), None),
        Op::AndExit { to, exit, .. } => (Some(to), Some(exit), None),
        Op::LoopLocalConst { exit, body, .. } | Op::LoopLocals { exit, body, .. } => {
            (Some(exit), Some(body), Some(body.wrapping_sub(4)))
        }
        _ => (None, None, None),
    };
    [a, b, c].into_iter().flatten()
}

/// Whether `op` may only jump forward (the small loop checks its steps at the start of a
/// body, at returns and at jumps back, not at every instruction): all but `Jump` and the
/// loops' jumps.
fn jumps_back(op: Op) -> bool {
    matches!(
        op,
        Op::Jump(_) | Op::LoopLocalConst { .. } | Op::LoopLocals { .. }
    )
}

/// Whether a body is small, given which functions are: every instruction is one the
/// small loop runs, every call is of a small function, and only `Jump` and the loops'
/// own jumps go back.
fn is_small(code: &Code, small: &[bool]) -> bool {
    code.ops.iter().enumerate().all(|(i, &op)| match op {
        Op::Call(c, _) | Op::CallSmall(c, _) => small.get(c.0 as usize) == Some(&true),
        op => small_op(op) && (jumps_back(op) || small_targets(op).all(|t| t as usize > i)),
    })
}

/// Whether a body loops: jumps back.
fn loops(code: &Code) -> bool {
    code.ops.iter().enumerate().any(|(i, &op)| match op {
        Op::LoopLocalConst { .. } | Op::LoopLocals { .. } => true,
        Op::Jump(to) => (to as usize) <= i,
        _ => false,
    })
}

/// The bodies a body calls.
fn callees(code: &Code) -> impl Iterator<Item = usize> + '_ {
    code.ops.iter().filter_map(|op| match *op {
        Op::Call(c, _) | Op::CallSmall(c, _) => Some(c.0 as usize),
        _ => None,
    })
}

/// Which of the `small` bodies may run long enough to be worth starting the small loop
/// for from a body that is not small: those that loop, or call themselves, or call one
/// that does. A call of one that runs straight through (`(opponent p)` in Awele) costs
/// less as the main loop's own call than as a start of the small loop, which also checks
/// the bodies it may run each time it starts.
fn runs_long(codes: &[Code], small: &[bool]) -> Vec<bool> {
    let n = codes.len();
    let mut long: Vec<bool> = (0..n).map(|i| small[i] && loops(&codes[i])).collect();
    // Calling itself, through any number of small calls.
    for f in 0..n {
        if !small[f] || long[f] {
            continue;
        }
        let mut seen = vec![false; n];
        let mut todo: Vec<usize> = callees(&codes[f]).collect();
        while let Some(c) = todo.pop() {
            if c == f {
                long[f] = true;
                break;
            }
            if c < n && small[c] && !std::mem::replace(&mut seen[c], true) {
                todo.extend(callees(&codes[c]));
            }
        }
    }
    // Calling one that runs long.
    loop {
        let mut changed = false;
        for f in 0..n {
            if small[f] && !long[f] && callees(&codes[f]).any(|c| long.get(c) == Some(&true)) {
                long[f] = true;
                changed = true;
            }
        }
        if !changed {
            return long;
        }
    }
}

/// Find the small functions among `functions` (the bodies of the game's `#define`s), and
/// make the calls of them [`Op::CallSmall`]s: every one in a small function's body, and
/// in the other bodies of `codes` those of the small functions that may run long
/// ([`runs_long`]). A function is small when its instructions are, and calls only small
/// functions (itself included): the greatest such set, found by striking out until
/// nothing changes. Returns, by [`CodeId`], whether a body that is not small calls each
/// body with an `Op::CallSmall` (for [`call_op`]).
pub fn mark_small_calls(codes: &mut [Code], functions: &[CodeId]) -> Vec<bool> {
    let mut small = vec![false; codes.len()];
    for f in functions {
        if let Some(s) = small.get_mut(f.0 as usize) {
            *s = true;
        }
    }
    loop {
        let mut changed = false;
        for f in functions {
            let i = f.0 as usize;
            if small[i] && !is_small(&codes[i], &small) {
                small[i] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let entered = runs_long(codes, &small);
    for (i, code) in codes.iter_mut().enumerate() {
        let from = if small[i] { &small } else { &entered };
        for op in &mut code.ops {
            if let Op::Call(c, argc) = *op
                && from.get(c.0 as usize) == Some(&true)
            {
                *op = Op::CallSmall(c, argc);
            }
        }
    }
    entered
}

/// The instruction that calls `callee` with `argc` arguments in a body that is not small,
/// `entered` being what [`mark_small_calls`] returned (empty before it ran).
pub fn call_op(callee: CodeId, entered: &[bool], argc: u8) -> Op {
    if entered.get(callee.0 as usize) == Some(&true) {
        Op::CallSmall(callee, argc)
    } else {
        Op::Call(callee, argc)
    }
}
