//! The compiled form of code: a flat list of [`Op`]s per body, with literals inline and
//! locals resolved to slots.
//!
//! Every value-producing form leaves exactly one value on the operand stack; statements in
//! a sequence pop the values they do not need. Jump targets are absolute op indices.

use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

/// Index of a compiled body in [`super::program::Game::codes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CodeId(pub u32);

/// Index of a `#define`d function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

/// One instruction.
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
    /// Call a defined function with `argc` arguments on the stack.
    Call(FuncId, u8),
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
