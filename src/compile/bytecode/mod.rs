//! The compiled form of code: a flat list of [`Op`]s per body, with literals inline and
//! locals resolved to slots.
//!
//! Every value-producing form leaves exactly one value on the operand stack; statements in
//! a sequence pop the values they do not need. Jump targets are absolute op indices.

use crate::compile::builtins::index;
use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

/// Index of a compiled body in [`super::program::Game::codes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CodeId(pub u32);

/// Index of a `#define`d function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

/// An integer operator with an instruction of its own when both operands are integers
/// (fused instructions carry one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `%`
    Rem,
    /// `=` and `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
}

impl IntOp {
    /// The operator the builtin at `index` of [`crate::compile::builtins::BUILTINS`] is,
    /// when it has one.
    pub fn of_builtin(index: u16) -> Option<IntOp> {
        let name = crate::compile::builtins::BUILTINS.get(index as usize)?.name;
        Some(match name {
            "+" => IntOp::Add,
            "-" => IntOp::Sub,
            "*" => IntOp::Mul,
            "%" => IntOp::Rem,
            "=" | "==" => IntOp::Eq,
            "!=" => IntOp::Ne,
            "<" => IntOp::Lt,
            ">" => IntOp::Gt,
            "<=" => IntOp::Le,
            ">=" => IntOp::Ge,
            _ => return None,
        })
    }

    /// The result on two integers, or `None` when the builtin must decide (an overflow,
    /// a remainder by zero): then it reports the error.
    #[inline(always)]
    pub fn apply(self, a: i64, b: i64) -> Option<IntValue> {
        Some(match self {
            IntOp::Add => IntValue::Int(a.checked_add(b)?),
            IntOp::Sub => IntValue::Int(a.checked_sub(b)?),
            IntOp::Mul => IntValue::Int(a.checked_mul(b)?),
            IntOp::Rem => {
                if b == 0 {
                    return None;
                }
                // As the `%` builtin: the sign of the divisor; i64::MIN % -1 is 0.
                let r = a.wrapping_rem(b);
                IntValue::Int(if r != 0 && (r < 0) != (b < 0) {
                    r + b
                } else {
                    r
                })
            }
            IntOp::Eq => IntValue::Bool(a == b),
            IntOp::Ne => IntValue::Bool(a != b),
            IntOp::Lt => IntValue::Bool(a < b),
            IntOp::Gt => IntValue::Bool(a > b),
            IntOp::Le => IntValue::Bool(a <= b),
            IntOp::Ge => IntValue::Bool(a >= b),
        })
    }
}

/// The result of an [`IntOp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntValue {
    /// An integer (arithmetic).
    Int(i64),
    /// A truth value (comparison).
    Bool(bool),
}

/// A collection read with an instruction of its own (fused instructions carry one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// `get`: a dictionary's value at a key, a list's element at an index, or nil.
    Get,
    /// `nth`: a list's element at an index (an error when out of range).
    Nth,
}

impl Read {
    /// The builtin index of the read.
    pub fn builtin(self) -> u16 {
        READS[self as usize]
    }
}

/// The builtin indices of `get` and `nth`.
const READS: [u16; 2] = [index("get"), index("nth")];

/// The builtin index of `contains`.
const CONTAINS: u16 = index("contains");

/// The builtin index of `put`.
pub fn put_builtin() -> u16 {
    const PUT: u16 = index("put");
    PUT
}

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

/// One instruction.
///
/// The instructions from [`Op::LocalConst`] on are *fused*: each stands for a short
/// sequence of the plain ones that the peephole pass ([`fuse`]) found in a body. A fused
/// instruction replaces only the first instruction of its sequence; the others stay where
/// they were, so a jump into the middle of the sequence still finds them. When its fast
/// case does not apply (an operand is not an integer, the arithmetic overflows, a step
/// check falls inside the sequence), the machine runs the sequence's first plain
/// instruction instead ([`Op::plain`]) and goes on with the rest: a fused instruction
/// never behaves differently from its sequence, and counts as many steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Push nil.
    Nil,
    /// Push a boolean.
    Bool(bool),
    /// Push an integer.
    Int(i64),
    /// Push a float.
    Float(f64),
    /// Push a string.
    Str(Symbol),
    /// Push the value of local slot `n`.
    Load(u16),
    /// Pop into local slot `n`, and push the value back (`var` has the assigned value).
    Store(u16),
    /// Pop into local slot `n` (a `var` whose own value is not used).
    SetLocal(u16),
    /// Push the value of local slot `n`, leaving nil there (`(var d (put d k v))`).
    Take(u16),
    /// Push the message being handled.
    Message,
    /// Drop the top value.
    Pop,
    /// Go to op `n`.
    Jump(u32),
    /// Pop; go to op `n` when the value is false.
    JumpIfFalse(u32),
    /// If the top value is false go to op `n` keeping it, else pop it (`and`).
    AndJump(u32),
    /// If the top value is true go to op `n` keeping it, else pop it (`or`).
    OrJump(u32),
    /// Compare the two top values for equality, pop the second, push the result
    /// (`switch`: keeps the switched value below).
    CaseEq,
    /// Call a defined function, named by its body, with `argc` arguments on the stack.
    Call(CodeId, u8),
    /// Call builtin `n` of the builtin table with `argc` arguments.
    Builtin(u16, u8),
    /// Turn the top value into a list to iterate (a dictionary gives its keys) and push
    /// the position 0 after it.
    IterStart,
    /// With a list and a position on the stack: store the next element in slot `var` and
    /// advance, or pop both and go to `exit` when done.
    IterNext {
        /// Loop variable slot.
        var: u16,
        /// Where to go when the list is exhausted.
        exit: u32,
    },
    /// `(property "p")` with a literal name: push the running entity's property.
    Property(Symbol),
    /// `(property "p" of e)` with a literal name: pop the entity name, push its property.
    PropertyOf(Symbol),
    /// `(attribute "k")` with a literal key: push the handled message's attribute.
    Attribute(Symbol),
    /// A game-model form: pops its operands (and `attrs` key/value pairs) and pushes its
    /// result.
    Form(FormOp, u8),
    /// `(return v)`: leave the body with the top value.
    Return,
    /// The end of a body: leave it with the top value, having run to completion.
    End,
    /// Push nil: holds the place of a value that is read later (the collection an
    /// [`Op::UpdateLocal`] takes, where it was written).
    Hole,
    /// `k`, `v`, ... on the stack: take local `slot` (leaving nil there), call builtin
    /// `func` with it as the first of `argc` arguments, push the result. Emitted for
    /// `(var d (put d k (+ (get d k 0) 1)))` when `k` and `v` cannot assign `d`: the
    /// dictionary is read after its siblings instead of before, so a `get` in them has
    /// let go of it and `put` updates it in place. A [`Op::Hole`] stands where `d` was:
    /// the taken value fills it.
    UpdateLocal {
        /// The updated variable.
        slot: u16,
        /// The builtin (`put`, `append`, ...).
        func: u16,
        /// Its argument count, the collection included.
        argc: u8,
    },

    // Fused instructions (see above): their sequences, and how many steps they count.
    /// `Load(a) Int(k) Builtin(op, 2)`: 3 steps.
    LocalConst {
        /// The local.
        a: u16,
        /// The operator.
        op: IntOp,
        /// The constant.
        k: i32,
    },
    /// `Load(a) Load(b) Builtin(op, 2)`: 3 steps.
    Locals {
        /// The left local.
        a: u16,
        /// The right local.
        b: u16,
        /// The operator.
        op: IntOp,
    },
    /// `Int(k) Builtin(op, 2)`: 2 steps.
    Const {
        /// The operator.
        op: IntOp,
        /// The constant.
        k: i32,
    },
    /// `Load(a) Int(k) Builtin(op, 2) SetLocal(dst)`: 4 steps (`(var i (+ i 1))`).
    SetLocalConst {
        /// The local read.
        a: u16,
        /// The local written.
        dst: u16,
        /// The operator.
        op: IntOp,
        /// The constant.
        k: i32,
    },
    /// `Load(a) Int(k) Builtin(op, 2) JumpIfFalse(to)`: 4 steps (`(while (< i 10) ...)`).
    LocalConstJump {
        /// The local.
        a: u16,
        /// The comparison.
        op: IntOp,
        /// The constant.
        k: i32,
        /// Where to go when the comparison is false.
        to: u32,
    },
    /// `Load(a) Load(b) Builtin(op, 2) JumpIfFalse(to)`: 4 steps.
    LocalsJump {
        /// The left local.
        a: u16,
        /// The right local.
        b: u16,
        /// The comparison.
        op: IntOp,
        /// Where to go when the comparison is false.
        to: u32,
    },
    /// `Jump(body - 4)` to a [`Op::LocalConstJump`] (the test of a `while` loop, from the
    /// end of its body): 5 steps.
    LoopLocalConst {
        /// The local.
        a: u16,
        /// The comparison.
        op: IntOp,
        /// The constant.
        k: i32,
        /// Where to go when the comparison is false (the loop's exit).
        exit: u32,
        /// Where to go when it is true (the loop's body, just after the test).
        body: u32,
    },
    /// `Jump(body - 4)` to a [`Op::LocalsJump`]: 5 steps.
    LoopLocals {
        /// The left local.
        a: u16,
        /// The right local.
        b: u16,
        /// The comparison.
        op: IntOp,
        /// Where to go when the comparison is false (the loop's exit).
        exit: u32,
        /// Where to go when it is true (the loop's body, just after the test).
        body: u32,
    },
    /// `Jump(to)` to the [`Op::End`] at `to` (the branch of an `if` that ends a body, and
    /// a function's base case in particular): 2 steps.
    JumpEnd(u32),
    /// `Builtin(op, 2) JumpIfFalse(to)`: 2 steps.
    OpJump {
        /// The comparison.
        op: IntOp,
        /// Where to go when the comparison is false.
        to: u32,
    },
    /// `Load(c) Load(k) Builtin(get|nth, 2)`: 3 steps (`(get d k)`, `(nth l i)`).
    ReadLocals {
        /// The collection's local.
        c: u16,
        /// The key's local.
        k: u16,
        /// The read.
        read: Read,
    },
    /// `Load(c) Int(k) Builtin(get|nth, 2)`: 3 steps (`(nth l 0)`).
    ReadConst {
        /// The collection's local.
        c: u16,
        /// The read.
        read: Read,
        /// The key.
        k: i32,
    },
    /// `Load(c) Load(k) Int(default) Builtin(get, 3)`: 4 steps (`(get d k 0)`).
    GetOr {
        /// The collection's local.
        c: u16,
        /// The key's local.
        k: u16,
        /// The default.
        default: i32,
    },
    /// `Nil Pop`: 2 steps (the missing `else` of an `if` whose value is not used).
    NilPop,
    /// `Str(s) Load(a) Builtin(contains, 2)`: 3 steps and the string's length, as
    /// `contains` counts its work (`(contains "KQRBNP" p)`), for a string `s` that
    /// [`letter_set`] gives the set `letters` of.
    LetterIn {
        /// The string.
        s: Symbol,
        /// Its characters (see [`letter_set`]).
        letters: u64,
        /// The local looked for in it.
        a: u16,
    },
    /// `AndJump(to)` to a `JumpIfFalse(exit)` (`(if (and a b) ...)`): when the value is
    /// false, 2 steps to `exit`, the value popped; else 1, as `AndJump`. When `exit` is a
    /// `Nil End` (`ends`: the `if` ends the body), a false value may end the body there
    /// and then, in 4 steps.
    AndExit {
        /// The `JumpIfFalse` the plain `AndJump` goes to.
        to: u32,
        /// Where that `JumpIfFalse` goes.
        exit: u32,
        /// Whether `exit` is a `Nil End`.
        ends: bool,
    },
    /// `Str(s) Property(name) Builtin(contains, 2)`: 3 steps and the string's length, as
    /// `contains` counts its work (`(contains "Bb" (property "piece"))`), for a string `s`
    /// of distinct letters (see [`letter_set`]).
    LetterInProperty {
        /// The string.
        s: Symbol,
        /// The running entity's property looked for in it.
        name: Symbol,
    },
    /// `Jump(to)` back to the [`Op::IterNext`] at `to` (the end of a `foreach` body): 2
    /// steps, the next element taken (or the loop left) as that one does.
    IterLoop {
        /// The `IterNext`.
        to: u32,
        /// Its loop variable slot.
        var: u16,
        /// Where it goes when the list is exhausted.
        exit: u32,
    },
    /// `JumpIfFalse(to)` to a `Nil End` (a body ending with an `if` without `else`): 3
    /// steps when false, the body ended; else 1.
    TestEnd(u32),
    /// `Nil End`: 2 steps (a body that ends with an `if` without `else`, as most laws and
    /// side-effects do).
    NilEnd,
    /// `Jump(to)` to a `Pop` (the end of an `if` branch whose value is not used): 2 steps.
    JumpPop(u32),
    /// `Str(s) Builtin(=|!=, 2)`: 2 steps (`(= x "name")`).
    StrCmp {
        /// The string.
        s: Symbol,
        /// `=` (else `!=`).
        eq: bool,
    },
    /// `Str(s) Builtin(=|!=, 2) JumpIfFalse(to)`: 3 steps (`(if (= x "name") ...)`).
    StrCmpJump {
        /// The string.
        s: Symbol,
        /// `=` (else `!=`).
        eq: bool,
        /// Where to go when the comparison is false.
        to: u32,
    },
    /// `Load(a) Str(s) Builtin(=|!=, 2) JumpIfFalse(to)`: 4 steps (`(if (= p "K") ...)`).
    LocalStrCmpJump {
        /// The local compared.
        a: u16,
        /// The string.
        s: Symbol,
        /// `=` (else `!=`).
        eq: bool,
        /// Where to go when the comparison is false.
        to: u32,
    },
    /// `Load(a) Nil Builtin(=|!=, 2) JumpIfFalse(to)`: 4 steps (`(if (= q nil) ...)`).
    LocalNilJump {
        /// The local compared.
        a: u16,
        /// `=` (else `!=`).
        eq: bool,
        /// Where to go when the comparison is false.
        to: u32,
    },
    /// `Load(a) PropertyOf(name)`: 2 steps (`(property "p" of e)`).
    LocalPropertyOf {
        /// The local naming the entity.
        a: u16,
        /// The property.
        name: Symbol,
    },
    /// `Str(entity) PropertyOf(name)`: 2 steps (`(property "p" of "pit3")`).
    NamedPropertyOf {
        /// The entity's name.
        entity: Symbol,
        /// The property.
        name: Symbol,
    },
    /// `Load(a) PropertyOf(name) SetLocal(dst)`: 3 steps (`(var p (property "piece" of
    /// c))`).
    LocalPropertyTo {
        /// The local naming the entity.
        a: u16,
        /// The property.
        name: Symbol,
        /// The local set to the property's value.
        dst: u16,
    },
    /// `Load(a) PropertyOf(name) Load(k) Builtin(get, 2)`: 4 steps (`(get (property
    /// "lines" of c) d)`): the table read where it lies in the world.
    PropertyGet {
        /// The local naming the entity.
        a: u16,
        /// The property.
        name: Symbol,
        /// The local holding the key.
        k: u16,
    },
    /// `Str(entity) PropertyOf(name) Load(k) Builtin(get, 2)`: 4 steps (`(get (property
    /// "kings" of "game") side)`).
    NamedPropertyGet {
        /// The entity's name.
        entity: Symbol,
        /// The property.
        name: Symbol,
        /// The local holding the key.
        k: u16,
    },
    /// `SetLocal(a) Load(a) JumpIfFalse(to)`: 3 steps (`(var x ...) (if x ...)`).
    SetLocalJump {
        /// The local set, then tested.
        a: u16,
        /// Where to go when it is false.
        to: u32,
    },
    /// `Load(a) JumpIfFalse(to)`: 2 steps (`(if x ...)`).
    LocalJump {
        /// The local tested.
        a: u16,
        /// Where to go when it is false.
        to: u32,
    },
    /// `UpdateLocal { slot, func: put, argc: 3 } SetLocal(slot)`: 2 steps (the end of
    /// `(var d (put d k (+ (get d k 0) 1)))`). A dictionary or list is updated where it
    /// lies, in its local, and the key and value are dropped.
    PutLocal {
        /// The updated variable.
        slot: u16,
    },
    /// `Hole Load(k) Load(d) Load(k) Int(default) Builtin(get, 3) Int(n) Builtin(+, 2)
    /// UpdateLocal { slot: d, func: put, argc: 3 } SetLocal(d)`: 10 steps
    /// (`(var d (put d k (+ (get d k 0) 1)))`, a count in a dictionary). The dictionary is
    /// searched once and updated where it lies, in its local.
    PutAdd {
        /// The dictionary's local.
        d: u16,
        /// The key's local.
        k: u16,
        /// The default of the `get`.
        default: i32,
        /// The number added.
        n: i32,
    },
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

impl Op {
    /// How many of the instructions right after this one are the rest of the plain
    /// sequence it stands for (they run in its place when its fast case does not apply).
    /// A fused jump stands for the instruction it lands on instead: none.
    pub fn rest_after(self) -> usize {
        match self {
            Op::JumpEnd(_)
            | Op::JumpPop(_)
            | Op::IterLoop { .. }
            | Op::LoopLocalConst { .. }
            | Op::LoopLocals { .. } => 0,
            other => other.weight() as usize - 1,
        }
    }

    /// How many plain instructions a fused instruction stands for (1 for a plain one).
    pub fn weight(self) -> u64 {
        match self {
            Op::Const { .. }
            | Op::OpJump { .. }
            | Op::JumpEnd(_)
            | Op::NilPop
            | Op::NilEnd
            | Op::IterLoop { .. }
            | Op::JumpPop(_)
            | Op::StrCmp { .. }
            | Op::LocalJump { .. }
            | Op::LocalPropertyOf { .. }
            | Op::NamedPropertyOf { .. }
            | Op::PutLocal { .. } => 2,
            Op::LocalConst { .. }
            | Op::Locals { .. }
            | Op::ReadLocals { .. }
            | Op::ReadConst { .. }
            | Op::LetterIn { .. }
            | Op::LetterInProperty { .. }
            | Op::LocalPropertyTo { .. }
            | Op::SetLocalJump { .. }
            | Op::StrCmpJump { .. } => 3,
            Op::SetLocalConst { .. }
            | Op::LocalConstJump { .. }
            | Op::LocalsJump { .. }
            | Op::GetOr { .. }
            | Op::PropertyGet { .. }
            | Op::NamedPropertyGet { .. }
            | Op::LocalStrCmpJump { .. }
            | Op::LocalNilJump { .. } => 4,
            Op::LoopLocalConst { .. } | Op::LoopLocals { .. } => 5,
            Op::PutAdd { .. } => 10,
            _ => 1,
        }
    }

    /// The first plain instruction of a fused instruction's sequence (a plain instruction
    /// is its own). `builtin` gives the builtin index of an operator.
    pub fn plain(self, builtin: impl Fn(IntOp) -> u16) -> Op {
        match self {
            Op::LocalConst { a, .. }
            | Op::Locals { a, .. }
            | Op::SetLocalConst { a, .. }
            | Op::LocalConstJump { a, .. }
            | Op::LocalsJump { a, .. } => Op::Load(a),
            Op::ReadLocals { c, .. } | Op::ReadConst { c, .. } | Op::GetOr { c, .. } => Op::Load(c),
            Op::NilPop | Op::NilEnd => Op::Nil,
            Op::StrCmp { s, .. }
            | Op::StrCmpJump { s, .. }
            | Op::LetterIn { s, .. }
            | Op::LetterInProperty { s, .. } => Op::Str(s),
            Op::LocalJump { a, .. }
            | Op::LocalPropertyOf { a, .. }
            | Op::LocalPropertyTo { a, .. }
            | Op::PropertyGet { a, .. }
            | Op::LocalStrCmpJump { a, .. }
            | Op::LocalNilJump { a, .. } => Op::Load(a),
            Op::NamedPropertyGet { entity, .. } => Op::Str(entity),
            Op::SetLocalJump { a, .. } => Op::SetLocal(a),
            Op::NamedPropertyOf { entity, .. } => Op::Str(entity),
            Op::JumpPop(to) => Op::Jump(to),
            Op::Const { k, .. } => Op::Int(i64::from(k)),
            Op::OpJump { op, .. } => Op::Builtin(builtin(op), 2),
            Op::JumpEnd(to) => Op::Jump(to),
            Op::AndExit { to, .. } => Op::AndJump(to),
            Op::IterLoop { to, .. } => Op::Jump(to),
            Op::TestEnd(to) => Op::JumpIfFalse(to),
            Op::PutAdd { .. } => Op::Hole,
            Op::PutLocal { slot } => Op::UpdateLocal {
                slot,
                func: put_builtin(),
                argc: 3,
            },
            Op::LoopLocalConst { body, .. } | Op::LoopLocals { body, .. } => {
                Op::Jump(body.wrapping_sub(4))
            }
            other => other,
        }
    }
}

/// The builtin index of each [`IntOp`].
pub fn builtin_of(op: IntOp) -> u16 {
    const TABLE: [u16; 10] = [
        index("+"),
        index("-"),
        index("*"),
        index("%"),
        index("="),
        index("!="),
        index("<"),
        index(">"),
        index("<="),
        index(">="),
    ];
    TABLE[op as usize]
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

/// A compiled body.
#[derive(Clone, Debug, Default)]
pub struct Code {
    /// The instructions.
    pub ops: Vec<Op>,
    /// The source span of each instruction (same length as `ops`).
    pub spans: Vec<Span>,
    /// How many local slots the body uses (parameters first).
    pub locals: u16,
    /// The variable each local slot holds, in slot order (for listings).
    pub local_names: Vec<crate::symbol::Symbol>,
    /// How many parameters (for functions).
    pub params: u16,
    /// What the body is, for traces and errors ("behaviour hole/default/seed", ...).
    pub name: String,
    /// The span of the whole body.
    pub span: Span,
}

impl Code {
    /// Whether running this body may change the world (properties, states, entities, the
    /// outcome, the random generator, checkpoints), or send a message, which may. Reading
    /// and changing the handled message does not count. Calls count (conservatively).
    pub fn may_change_world(&self) -> bool {
        use crate::syntax::ast::FormOp as F;
        self.ops.iter().any(|op| match op {
            Op::Call(..) => true,
            Op::UpdateLocal { func, .. } => matches!(
                crate::compile::builtins::BUILTINS
                    .get(*func as usize)
                    .map(|b| b.name),
                Some("random" | "shuffle")
            ),
            Op::Builtin(index, _) => matches!(
                crate::compile::builtins::BUILTINS
                    .get(*index as usize)
                    .map(|b| b.name),
                Some("random" | "shuffle")
            ),
            Op::Form(form, _) => !matches!(
                form,
                F::NewMessage
                    | F::UpdateAttribute
                    | F::Attribute
                    | F::AttributeOf
                    | F::Label
                    | F::LabelOf
                    | F::State
                    | F::StateOf
                    | F::TypeOf
                    | F::EntitiesOf
                    | F::Match
                    | F::Property
                    | F::PropertyOf
            ),
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn int_ops_name_their_builtins() {
        let ops = [
            IntOp::Add,
            IntOp::Sub,
            IntOp::Mul,
            IntOp::Rem,
            IntOp::Eq,
            IntOp::Ne,
            IntOp::Lt,
            IntOp::Gt,
            IntOp::Le,
            IntOp::Ge,
        ];
        for op in ops {
            assert_eq!(IntOp::of_builtin(builtin_of(op)), Some(op), "{op:?}");
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
}
