//! The peephole pass ([`fuse`]): it puts a fused instruction at the start of every
//! sequence of plain instructions one stands for.

use super::ops::READS;
use super::{IntOp, Op, Read, builtin_of, put_builtin};
use crate::compile::builtins::index;
use crate::syntax::ast::FormOp;

/// The builtin index of `contains`.
pub(super) const CONTAINS: u16 = index("contains");

/// The set of the characters of `s` as bits (bit `b - 64` for byte `b`), when `s` is one
/// or more distinct characters from `@` to DEL (letters, most often: "KQRBNP"); `None`
/// otherwise. With its characters distinct, the string's length is the set's size.
pub fn letter_set(s: &str) -> Option<u64> {
    let mut mask = 0u64;
    for &b in s.as_bytes() {
        if !(64..128).contains(&b) || mask & (1 << (b - 64)) != 0 {
            return None;
        }
        mask |= 1 << (b - 64);
    }
    (mask != 0).then_some(mask)
}

/// The [`Op::PutAdd`] whose plain sequence starts `plain` (at its `Hole`), with the key in
/// local `k`.
fn put_add(plain: &[Op], k: u16) -> Option<Op> {
    let [
        Op::Hole,
        Op::Load(k1),
        Op::Load(d),
        Op::Load(k2),
        Op::Int(default),
        Op::Builtin(get, 3),
        Op::Int(n),
        Op::Builtin(add, 2),
        Op::UpdateLocal {
            slot,
            func,
            argc: 3,
        },
        Op::SetLocal(dst),
        ..,
    ] = *plain
    else {
        return None;
    };
    let fits = [k1, k2] == [k, k]
        && [slot, dst] == [d, d]
        && get == Read::Get.builtin()
        && add == builtin_of(IntOp::Add)
        && func == put_builtin();
    Some(Op::PutAdd {
        d,
        k,
        default: i32::try_from(default).ok()?,
        n: i32::try_from(n).ok()?,
    })
    .filter(|_| fits)
}

/// The peephole pass: put a fused instruction at the start of every sequence it stands
/// for (see [`Op`]). Sequences are matched on the plain instructions, so every position
/// holds an instruction that does what the plain sequence from there does.
pub fn fuse(ops: &mut [Op]) {
    let plain = ops.to_vec();
    let int_op = |op: Op| match op {
        Op::Builtin(i, 2) => IntOp::of_builtin(i),
        _ => None,
    };
    let small = |k: i64| i32::try_from(k).ok();
    let is_cmp = |op: IntOp| !matches!(op, IntOp::Add | IntOp::Sub | IntOp::Mul | IntOp::Rem);
    let [get, nth] = READS;
    let put = put_builtin();
    let read = |op: Op, argc: u8| match op {
        Op::Builtin(i, n) if n == argc && i == get => Some(Read::Get),
        Op::Builtin(i, n) if n == argc && i == nth => Some(Read::Nth),
        _ => None,
    };
    for (p, slot) in ops.iter_mut().enumerate() {
        let at = |i: usize| plain.get(p + i).copied();
        let reads = match (at(0), at(1), at(2), at(3)) {
            (Some(Op::Load(c)), Some(Op::Load(k)), Some(Op::Int(d)), Some(last))
                if read(last, 3) == Some(Read::Get) && small(d).is_some() =>
            {
                small(d).map(|default| Op::GetOr { c, k, default })
            }
            (Some(Op::Load(c)), Some(Op::Load(k)), Some(last), _) => {
                read(last, 2).map(|read| Op::ReadLocals { c, k, read })
            }
            (Some(Op::Load(c)), Some(Op::Int(k)), Some(last), _) => read(last, 2)
                .zip(small(k))
                .map(|(read, k)| Op::ReadConst { c, read, k }),
            (Some(Op::Nil), Some(Op::Pop), _, _) => Some(Op::NilPop),
            (Some(Op::Nil), Some(Op::End), _, _) => Some(Op::NilEnd),
            (Some(Op::Load(a)), Some(Op::Str(s)), Some(cmp), Some(Op::JumpIfFalse(to)))
                if matches!(int_op(cmp), Some(IntOp::Eq | IntOp::Ne)) =>
            {
                let eq = int_op(cmp) == Some(IntOp::Eq);
                Some(Op::LocalStrCmpJump { a, s, eq, to })
            }
            (
                Some(Op::Load(a)),
                Some(Op::Form(FormOp::StateOf, 0)),
                Some(Op::Str(s)),
                Some(cmp),
            ) if matches!(int_op(cmp), Some(IntOp::Eq | IntOp::Ne)) => {
                let eq = int_op(cmp) == Some(IntOp::Eq);
                match at(4) {
                    Some(Op::JumpIfFalse(to)) => Some(Op::LocalStateJump { a, s, eq, to }),
                    _ => None,
                }
            }
            (Some(Op::Load(a)), Some(Op::Nil), Some(cmp), Some(Op::JumpIfFalse(to)))
                if matches!(int_op(cmp), Some(IntOp::Eq | IntOp::Ne)) =>
            {
                let eq = int_op(cmp) == Some(IntOp::Eq);
                Some(Op::LocalNilJump { a, eq, to })
            }
            (Some(Op::Load(a)), Some(Op::PropertyOf(name)), Some(Op::Load(k)), Some(last))
                if read(last, 2) == Some(Read::Get) =>
            {
                Some(Op::PropertyGet { a, name, k })
            }
            (Some(Op::Str(entity)), Some(Op::PropertyOf(name)), Some(Op::Load(k)), Some(last))
                if read(last, 2) == Some(Read::Get) =>
            {
                Some(Op::NamedPropertyGet { entity, name, k })
            }
            (Some(Op::Load(a)), Some(Op::PropertyOf(name)), Some(Op::SetLocal(dst)), _) => {
                Some(Op::LocalPropertyTo { a, name, dst })
            }
            (Some(Op::Load(a)), Some(Op::PropertyOf(name)), _, _) => {
                Some(Op::LocalPropertyOf { a, name })
            }
            (Some(Op::SetLocal(a)), Some(Op::Load(b)), Some(Op::JumpIfFalse(to)), _) if a == b => {
                Some(Op::SetLocalJump { a, to })
            }
            (Some(Op::Str(entity)), Some(Op::PropertyOf(name)), _, _) => {
                Some(Op::NamedPropertyOf { entity, name })
            }
            (Some(Op::Str(s)), Some(Op::Load(a)), Some(Op::Builtin(f, 2)), _) if f == CONTAINS => {
                letter_set(s.as_str()).map(|letters| Op::LetterIn { s, letters, a })
            }
            (Some(Op::Str(s)), Some(Op::Property(name)), Some(Op::Builtin(f, 2)), _)
                if f == CONTAINS =>
            {
                letter_set(s.as_str()).map(|_| Op::LetterInProperty { s, name })
            }
            (Some(Op::Str(s)), Some(cmp), jump, _) => {
                let eq = match int_op(cmp) {
                    Some(IntOp::Eq) => Some(true),
                    Some(IntOp::Ne) => Some(false),
                    _ => None,
                };
                eq.map(|eq| match jump {
                    Some(Op::JumpIfFalse(to)) => Op::StrCmpJump { s, eq, to },
                    _ => Op::StrCmp { s, eq },
                })
            }
            (Some(Op::Load(a)), Some(Op::JumpIfFalse(to)), _, _) => Some(Op::LocalJump { a, to }),
            (Some(Op::Hole), Some(Op::Load(k)), _, _) => put_add(&plain[p..], k),
            (Some(Op::UpdateLocal { slot, func, argc }), Some(Op::SetLocal(dst)), _, _)
                if func == put && argc == 3 && dst == slot =>
            {
                Some(Op::PutLocal { slot })
            }
            _ => None,
        };
        if let Some(f) = reads {
            *slot = f;
            continue;
        }
        let fused = match (at(0), at(1), at(2).and_then(int_op), at(3)) {
            (Some(Op::Load(a)), Some(Op::Int(k)), Some(op), Some(Op::JumpIfFalse(to)))
                if is_cmp(op) && small(k).is_some() =>
            {
                small(k).map(|k| Op::LocalConstJump { a, op, k, to })
            }
            (Some(Op::Load(a)), Some(Op::Load(b)), Some(op), Some(Op::JumpIfFalse(to)))
                if is_cmp(op) =>
            {
                Some(Op::LocalsJump { a, b, op, to })
            }
            (Some(Op::Load(a)), Some(Op::Int(k)), Some(op), Some(Op::SetLocal(dst)))
                if small(k).is_some() =>
            {
                small(k).map(|k| Op::SetLocalConst { a, dst, op, k })
            }
            (Some(Op::Load(a)), Some(Op::Int(k)), Some(op), _) => {
                small(k).map(|k| Op::LocalConst { a, op, k })
            }
            (Some(Op::Load(a)), Some(Op::Load(b)), Some(op), _) => Some(Op::Locals { a, b, op }),
            _ => None,
        };
        let fused = fused.or_else(|| match (at(0), at(1)) {
            (Some(Op::Int(k)), Some(next)) if int_op(next).is_some() => small(k)
                .zip(int_op(next))
                .map(|(k, op)| Op::Const { op, k }),
            (Some(first), Some(Op::JumpIfFalse(to))) => match int_op(first) {
                Some(op) if is_cmp(op) => Some(Op::OpJump { op, to }),
                _ => None,
            },
            _ => None,
        });
        if let Some(f) = fused {
            *slot = f;
        }
    }
    // A jump back to a loop's fused test (or to a `foreach`'s next element) runs the test
    // itself, a jump to the end of the body ends it, and a false `and` whose value a `JumpIfFalse` tests goes on to where
    // that one goes.
    for (p, op) in plain.iter().enumerate() {
        if let Op::JumpIfFalse(to) = *op {
            // A false test that ends the body.
            if plain.get(to as usize..to as usize + 2) == Some(&[Op::Nil, Op::End])
                && ops[p] == Op::JumpIfFalse(to)
            {
                ops[p] = Op::TestEnd(to);
            }
            continue;
        }
        if let Op::AndJump(to) = *op {
            // An `and` tested by `if` or `while`: a false value goes on to the exit.
            if let Some(&Op::JumpIfFalse(exit)) = plain.get(to as usize) {
                let ends = plain.get(exit as usize..exit as usize + 2) == Some(&[Op::Nil, Op::End]);
                ops[p] = Op::AndExit { to, exit, ends };
            }
            continue;
        }
        let Op::Jump(t) = *op else { continue };
        let body = t.wrapping_add(4);
        ops[p] = match ops.get(t as usize).copied() {
            Some(Op::End) => Op::JumpEnd(t),
            Some(Op::IterNext { var, exit }) => Op::IterLoop { to: t, var, exit },
            _ if plain.get(t as usize) == Some(&Op::Pop) => Op::JumpPop(t),
            Some(Op::LocalConstJump { a, op, k, to }) => Op::LoopLocalConst {
                a,
                op,
                k,
                exit: to,
                body,
            },
            Some(Op::LocalsJump { a, b, op, to }) => Op::LoopLocals {
                a,
                b,
                op,
                exit: to,
                body,
            },
            _ => continue,
        };
    }
}
