//! Tests of the instructions and the peephole pass.

use super::fuse::CONTAINS;
use super::ops::READS;
use super::*;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

/// `plain` fused, each instruction checked to stand for the plain one in its place.
fn fused(plain: &[Op]) -> Vec<Op> {
    let mut ops = plain.to_vec();
    fuse(&mut ops);
    for (p, op) in ops.iter().enumerate() {
        assert_eq!(op.plain(builtin_of), plain[p], "at {p}");
    }
    ops
}

#[test]
fn an_instruction_fits_in_16_bytes() {
    assert!(
        std::mem::size_of::<Op>() <= 16,
        "{}",
        std::mem::size_of::<Op>()
    );
}

/// The instruction loop finds a body (`Game::code`) at every frame switch, and its machine
/// code depends on the size of what it indexes: 120 or 136 bytes instead of these 128 made
/// chess perft(3) 2.4% dearer. See docs/performance.md, "The small loop"; measure with the
/// machine bench's callgrind before changing this.
#[test]
fn a_body_stays_128_bytes() {
    assert_eq!(std::mem::size_of::<super::Code>(), 128);
}

#[test]
fn int_ops_name_their_builtins() {
    for (i, op) in IntOp::ALL.into_iter().enumerate() {
        assert_eq!(IntOp::of_builtin(builtin_of(op)), Some(op), "{op:?}");
        // In their discriminants' order: machine code names an operator by its number.
        assert_eq!(op as usize, i, "{op:?}");
    }
}

#[test]
fn remainder_follows_the_sign_of_the_divisor() {
    let rem = |a, b| IntOp::Rem.apply(a, b);
    assert_eq!(rem(7, 3), Some(IntValue::Int(1)));
    assert_eq!(rem(-7, 3), Some(IntValue::Int(2)));
    assert_eq!(rem(7, -3), Some(IntValue::Int(-2)));
    assert_eq!(rem(i64::MIN, -1), Some(IntValue::Int(0)));
    assert_eq!(rem(1, 0), None);
    assert_eq!(IntOp::Add.apply(i64::MAX, 1), None);
    assert_eq!(IntOp::Mul.apply(i64::MIN, -1), None);
}

/// Each sequence gets its fused instruction at its start, the rest stays, and an
/// instruction inside a sequence is fused from where it stands.
#[test]
fn a_jump_to_the_end_of_a_body_ends_it() {
    // (if c 1 else 2), then the end: the `then` branch jumps to the end.
    let plain = vec![
        Op::Load(0),
        Op::JumpIfFalse(4),
        Op::Int(1),
        Op::Jump(5),
        Op::Int(2),
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(ops[3], Op::JumpEnd(5));
    assert_eq!(ops[3].weight(), 2);
    // A jump elsewhere stays a jump.
    let mut ops = vec![Op::Jump(2), Op::Nil, Op::Int(1), Op::End];
    fuse(&mut ops);
    assert_eq!(ops[0], Op::Jump(2));
}

/// `(contains "KQRBNP" p)` with `p` a local: one bit test, for a string of distinct
/// characters from `@` up only.
#[test]
fn a_local_looked_for_in_a_string_of_letters_is_fused() {
    let contains = Op::Builtin(CONTAINS, 2);
    for (text, letters) in [
        ("KQRBNP", true),
        ("Pp", true),
        ("@~", true),
        ("KK", false),
        ("K1", false),
        ("", false),
        ("é", false),
    ] {
        let s = Symbol::intern(text);
        let plain = vec![Op::Str(s), Op::Load(2), contains, Op::End];
        let ops = fused(&plain);
        assert_eq!(
            matches!(ops[0], Op::LetterIn { a: 2, .. }),
            letters,
            "{text:?}: {:?}",
            ops[0]
        );
    }
    assert_eq!(letter_set("Bb"), Some(1 << 2 | 1 << 34));
    // `(contains "Bb" (property "piece"))`.
    let (bb, piece) = (Symbol::intern("Bb"), Symbol::intern("piece"));
    let plain = vec![Op::Str(bb), Op::Property(piece), contains, Op::End];
    let ops = fused(&plain);
    assert_eq!(ops[0], Op::LetterInProperty { s: bb, name: piece });
    assert_eq!(ops[0].weight(), 3);
    assert_eq!(
        Op::LetterIn {
            s: Symbol::intern("Bb"),
            letters: 0,
            a: 0
        }
        .weight(),
        3
    );
}

/// `(if (and a b) 1 else 2)`: a false `a` goes on to where the `if`'s test goes; an
/// `and` whose value is not tested stays as it is.
#[test]
fn a_false_and_tested_by_if_goes_to_the_else() {
    let plain = vec![
        Op::Load(0),
        Op::AndJump(3),
        Op::Load(1),
        Op::JumpIfFalse(6),
        Op::Int(1),
        Op::Jump(7),
        Op::Int(2),
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(
        ops[1],
        Op::AndExit {
            to: 3,
            exit: 6,
            ends: false
        }
    );
    // (var x (and a b)): kept.
    let mut ops = vec![
        Op::Load(0),
        Op::AndJump(3),
        Op::Load(1),
        Op::SetLocal(2),
        Op::End,
    ];
    fuse(&mut ops);
    assert_eq!(ops[1], Op::AndJump(3));
}

/// `(foreach x in l (f x))`: the end of the body takes the next element itself.
#[test]
fn the_end_of_a_foreach_body_takes_the_next_element() {
    let plain = vec![
        Op::Load(0),
        Op::IterStart,
        Op::IterNext { var: 1, exit: 6 },
        Op::Load(1),
        Op::Pop,
        Op::Jump(2),
        Op::Nil,
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(
        ops[5],
        Op::IterLoop {
            to: 2,
            var: 1,
            exit: 6
        }
    );
    assert_eq!(ops[5].weight(), 2);
}

/// `(var p (property "piece" of c)) (if p ...)`: the read goes straight into its
/// local, and the local set is tested where it was set.
#[test]
fn a_property_read_into_a_local_and_tested_is_fused() {
    let piece = Symbol::intern("piece");
    let plain = vec![
        Op::Load(0),
        Op::PropertyOf(piece),
        Op::SetLocal(1),
        Op::Load(1),
        Op::JumpIfFalse(6),
        Op::Nil,
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(
        ops[0],
        Op::LocalPropertyTo {
            a: 0,
            name: piece,
            dst: 1
        }
    );
    assert_eq!(ops[2], Op::SetLocalJump { a: 1, to: 6 });
    assert_eq!((ops[0].weight(), ops[2].weight()), (3, 3));
    // Another local tested: a plain set.
    let mut ops = vec![Op::SetLocal(1), Op::Load(2), Op::JumpIfFalse(3), Op::End];
    fuse(&mut ops);
    assert_eq!(ops[0], Op::SetLocal(1));
}

/// `(if (= p "K") ...)` with `p` a local: one instruction for the four.
#[test]
fn a_local_compared_with_a_string_and_tested_is_fused() {
    let k = Symbol::intern("K");
    for (op, eq) in [(IntOp::Eq, true), (IntOp::Ne, false)] {
        let plain = vec![
            Op::Load(3),
            Op::Str(k),
            Op::Builtin(builtin_of(op), 2),
            Op::JumpIfFalse(5),
            Op::Int(1),
            Op::End,
        ];
        let ops = fused(&plain);
        assert_eq!(
            ops[0],
            Op::LocalStrCmpJump {
                a: 3,
                s: k,
                eq,
                to: 5
            }
        );
        assert_eq!(ops[1], Op::StrCmpJump { s: k, eq, to: 5 });
        assert_eq!(ops[0].weight(), 4);
    }
}

/// `(if (= (state of n) "s") ...)` with `n` a local: one instruction for the five, over
/// the string comparison's own fused instruction.
#[test]
fn a_state_compared_with_a_string_and_tested_is_fused() {
    let s = Symbol::intern("withStone");
    for (op, eq) in [(IntOp::Eq, true), (IntOp::Ne, false)] {
        let plain = vec![
            Op::Load(1),
            Op::Form(FormOp::StateOf, 0),
            Op::Str(s),
            Op::Builtin(builtin_of(op), 2),
            Op::JumpIfFalse(6),
            Op::Int(1),
            Op::End,
        ];
        let ops = fused(&plain);
        assert_eq!(ops[0], Op::LocalStateJump { a: 1, s, eq, to: 6 });
        assert_eq!(ops[1], Op::Form(FormOp::StateOf, 0));
        assert_eq!(ops[2], Op::StrCmpJump { s, eq, to: 6 });
        assert_eq!(ops[0].weight(), 5);
        assert_eq!(ops[0].plain(builtin_of), Op::Load(1));
    }
    // Without its jump, or compared otherwise, the sequence is left to the others.
    let plain = vec![
        Op::Load(1),
        Op::Form(FormOp::StateOf, 0),
        Op::Str(s),
        Op::Builtin(builtin_of(IntOp::Eq), 2),
        Op::End,
    ];
    assert_eq!(fused(&plain)[0], Op::Load(1));
}

/// `(if (= q nil) ...)` with `q` a local: one instruction for the four.
#[test]
fn a_local_compared_with_nil_and_tested_is_fused() {
    for (op, eq) in [(IntOp::Eq, true), (IntOp::Ne, false)] {
        let plain = vec![
            Op::Load(1),
            Op::Nil,
            Op::Builtin(builtin_of(op), 2),
            Op::JumpIfFalse(5),
            Op::Int(1),
            Op::End,
        ];
        let ops = fused(&plain);
        assert_eq!(ops[0], Op::LocalNilJump { a: 1, eq, to: 5 });
        assert_eq!(ops[0].weight(), 4);
    }
}

/// `(get (property "lines" of c) d)` and `(get (property "kings" of "game") s)`: the
/// table read where it lies.
#[test]
fn a_read_of_a_property_table_is_fused() {
    let lines = Symbol::intern("lines");
    let game = Symbol::intern("game");
    let get = Op::Builtin(READS[0], 2);
    let plain = vec![
        Op::Load(0),
        Op::PropertyOf(lines),
        Op::Load(1),
        get,
        Op::Str(game),
        Op::PropertyOf(lines),
        Op::Load(1),
        get,
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(
        ops[0],
        Op::PropertyGet {
            a: 0,
            name: lines,
            k: 1
        }
    );
    assert_eq!(
        ops[4],
        Op::NamedPropertyGet {
            entity: game,
            name: lines,
            k: 1
        }
    );
    assert_eq!((ops[0].weight(), ops[4].weight()), (4, 4));
}

/// A body ending with `(if c (f))`: the missing `else` pushes nil and the body ends.
#[test]
fn a_body_ending_with_an_if_without_else_ends_at_a_false_test() {
    let plain = vec![
        Op::Load(0),
        Op::JumpIfFalse(4),
        Op::Int(1),
        Op::Jump(5),
        Op::Nil,
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(ops[1], Op::TestEnd(4));
    assert_eq!(ops[3], Op::JumpEnd(5));
    assert_eq!(ops[4], Op::NilEnd);
    assert_eq!(ops[4].weight(), 2);
}

/// `(if c (f))` as a statement: the missing `else` pushes nil and both branches meet
/// at the `Pop` of the unused value.
#[test]
fn an_unused_if_skips_its_nil_and_pop() {
    let plain = vec![
        Op::Load(0),
        Op::JumpIfFalse(4),
        Op::Int(1),
        Op::Jump(5),
        Op::Nil,
        Op::Pop,
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(ops[3], Op::JumpPop(5));
    assert_eq!(ops[4], Op::NilPop);
    assert_eq!((ops[3].weight(), ops[4].weight()), (2, 2));
}

/// Comparisons with a literal string, and tests of a local.
#[test]
fn string_tests_and_local_tests_are_fused() {
    let eq = builtin_of(IntOp::Eq);
    let ne = builtin_of(IntOp::Ne);
    let add = builtin_of(IntOp::Add);
    let s = Symbol::intern("empty");
    let plain = vec![
        Op::Load(0),
        Op::Str(s),
        Op::Builtin(eq, 2),
        Op::JumpIfFalse(11),
        Op::Load(1),
        Op::Str(s),
        Op::Builtin(ne, 2),
        Op::SetLocal(2),
        Op::Load(2),
        Op::JumpIfFalse(11),
        Op::SetLocal(3),
        Op::Load(3),
        Op::Int(1),
        Op::Builtin(add, 2),
        Op::SetLocal(3),
        Op::Load(0),
        Op::Str(s),
        Op::Builtin(add, 2),
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(
        ops[1],
        Op::StrCmpJump {
            s,
            eq: true,
            to: 11
        }
    );
    assert_eq!(ops[5], Op::StrCmp { s, eq: false });
    assert_eq!(ops[8], Op::LocalJump { a: 2, to: 11 });
    assert!(matches!(ops[11], Op::SetLocalConst { .. }));
    let p = Symbol::intern("seeds");
    let mut reads = vec![
        Op::Load(0),
        Op::PropertyOf(p),
        Op::Str(s),
        Op::PropertyOf(p),
        Op::End,
    ];
    fuse(&mut reads);
    assert_eq!(reads[0], Op::LocalPropertyOf { a: 0, name: p });
    assert_eq!(reads[2], Op::NamedPropertyOf { entity: s, name: p });
    assert_eq!((reads[0].weight(), reads[2].weight()), (2, 2));
    assert_eq!(reads[2].plain(builtin_of), Op::Str(s));
    // `+` with a string is no comparison.
    assert_eq!(ops[16], Op::Str(s));
    assert_eq!(
        (ops[1].weight(), ops[5].weight(), ops[8].weight()),
        (3, 2, 2)
    );
}

/// `get` and `nth` with local or constant operands, and `get` with a constant default.
#[test]
fn collection_reads_are_fused() {
    let (get, nth) = (Read::Get.builtin(), Read::Nth.builtin());
    let length = crate::compile::builtins::BUILTINS
        .iter()
        .position(|b| b.name == "length")
        .map(|i| i as u16);
    assert!(get != u16::MAX && nth != u16::MAX && Some(get) != length);
    let plain = vec![
        Op::Load(0),
        Op::Load(1),
        Op::Builtin(get, 2),
        Op::Load(2),
        Op::Int(3),
        Op::Builtin(nth, 2),
        Op::Load(0),
        Op::Load(1),
        Op::Int(-1),
        Op::Builtin(get, 3),
        Op::Load(0),
        Op::Int(i64::MAX),
        Op::Builtin(get, 2),
        Op::Load(0),
        Op::Load(1),
        Op::Int(0),
        Op::Builtin(nth, 3),
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(
        ops[0],
        Op::ReadLocals {
            c: 0,
            k: 1,
            read: Read::Get
        }
    );
    assert_eq!(
        ops[3],
        Op::ReadConst {
            c: 2,
            read: Read::Nth,
            k: 3
        }
    );
    assert_eq!(
        ops[6],
        Op::GetOr {
            c: 0,
            k: 1,
            default: -1
        }
    );
    // A constant too big, and a read with arguments it does not take, stay plain.
    assert_eq!(ops[10], Op::Load(0));
    assert_eq!(ops[13], Op::Load(0));
    assert_eq!(
        (ops[0].weight(), ops[3].weight(), ops[6].weight()),
        (3, 3, 4)
    );
}

/// `(var d (put d k (+ (get d k 0) 1)))` is one instruction at its `Hole`, and the
/// in-place `put` with the `SetLocal` after it one at its `UpdateLocal`; other shapes
/// stay plain.
#[test]
fn counts_and_in_place_puts_are_fused() {
    let get = Read::Get.builtin();
    let add = builtin_of(IntOp::Add);
    let sub = builtin_of(IntOp::Sub);
    let put = put_builtin();
    let count = |k2: u16, n: i64, plus: u16, dst: u16| {
        vec![
            Op::Hole,
            Op::Load(1),
            Op::Load(0),
            Op::Load(k2),
            Op::Int(0),
            Op::Builtin(get, 3),
            Op::Int(n),
            Op::Builtin(plus, 2),
            Op::UpdateLocal {
                slot: 0,
                func: put,
                argc: 3,
            },
            Op::SetLocal(dst),
            Op::End,
        ]
    };
    let plain = count(1, 1, add, 0);
    let ops = fused(&plain);
    assert_eq!(
        ops[0],
        Op::PutAdd {
            d: 0,
            k: 1,
            default: 0,
            n: 1
        }
    );
    assert_eq!(ops[8], Op::PutLocal { slot: 0 });
    assert_eq!((ops[0].weight(), ops[8].weight()), (10, 2));
    // Another key read, another operator, a number too big, another variable set.
    for plain in [
        count(2, 1, add, 0),
        count(1, 1, sub, 0),
        count(1, 1 << 40, add, 0),
        count(1, 1, add, 3),
    ] {
        let ops = fused(&plain);
        assert!(!matches!(ops[0], Op::PutAdd { .. }), "{ops:?}");
    }
    // Only `put` with three arguments.
    let mut ops = vec![
        Op::UpdateLocal {
            slot: 0,
            func: get,
            argc: 3,
        },
        Op::SetLocal(0),
    ];
    fuse(&mut ops);
    assert!(matches!(ops[0], Op::UpdateLocal { .. }));
}

#[test]
fn fusing_keeps_the_plain_instructions_after_the_first() {
    let lt = builtin_of(IntOp::Lt);
    let add = builtin_of(IntOp::Add);
    let plain = vec![
        Op::Load(0),
        Op::Int(10),
        Op::Builtin(lt, 2),
        Op::JumpIfFalse(9),
        Op::Load(0),
        Op::Int(1),
        Op::Builtin(add, 2),
        Op::SetLocal(0),
        Op::Jump(0),
        Op::Nil,
        Op::Load(0),
        Op::Int(1 << 40),
        Op::Builtin(add, 2),
        Op::End,
    ];
    let ops = fused(&plain);
    assert_eq!(
        ops[0],
        Op::LocalConstJump {
            a: 0,
            op: IntOp::Lt,
            k: 10,
            to: 9
        }
    );
    assert_eq!(
        ops[1],
        Op::Const {
            op: IntOp::Lt,
            k: 10
        }
    );
    assert_eq!(
        ops[2],
        Op::OpJump {
            op: IntOp::Lt,
            to: 9
        }
    );
    assert_eq!(ops[3], plain[3]);
    assert_eq!(
        ops[4],
        Op::SetLocalConst {
            a: 0,
            dst: 0,
            op: IntOp::Add,
            k: 1
        }
    );
    assert_eq!(
        ops[5],
        Op::Const {
            op: IntOp::Add,
            k: 1
        }
    );
    assert_eq!(ops[6..8], plain[6..8]);
    // The jump back to the test runs the test.
    assert_eq!(
        ops[8],
        Op::LoopLocalConst {
            a: 0,
            op: IntOp::Lt,
            k: 10,
            exit: 9,
            body: 4
        }
    );
    assert_eq!(ops[9], plain[9]);
    // A constant too big for a fused instruction stays plain.
    assert_eq!(ops[10..], plain[10..]);
    for (p, op) in ops.iter().enumerate() {
        assert_eq!(op.plain(builtin_of), plain[p], "at {p}");
        assert!(op.weight() >= 1);
    }
}
