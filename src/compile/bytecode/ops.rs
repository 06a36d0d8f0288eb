//! The instructions ([`Op`]): the plain ones the compiler emits and the fused ones that
//! each stand for a short sequence of them, with the integer operators and collection
//! reads fused instructions carry.

use super::CodeId;
use crate::compile::builtins::index;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

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
    /// Every operator, in the order of their discriminants.
    pub const ALL: [IntOp; 10] = [
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
    #[inline]
    pub fn builtin(self) -> u16 {
        READS[self as usize]
    }
}

/// The builtin indices of `get` and `nth`.
pub(super) const READS: [u16; 2] = [index("get"), index("nth")];

/// The builtin index of `put`.
#[inline]
pub fn put_builtin() -> u16 {
    const PUT: u16 = index("put");
    PUT
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
    /// [`Op::Call`] of a small function (see `small.rs`): the same call, which the machine
    /// runs in its small loop when it can.
    CallSmall(CodeId, u8),
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
    /// `Load(a) Form(StateOf, 0) Str(s) Builtin(=|!=, 2) JumpIfFalse(to)`: 5 steps
    /// (`(if (= (state of n) "withStone") ...)`).
    LocalStateJump {
        /// The local naming the entity.
        a: u16,
        /// The state compared with.
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
    #[inline]
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
            Op::LoopLocalConst { .. } | Op::LoopLocals { .. } | Op::LocalStateJump { .. } => 5,
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
            | Op::LocalStateJump { a, .. }
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
            Op::CallSmall(callee, argc) => Op::Call(callee, argc),
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
#[inline]
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
