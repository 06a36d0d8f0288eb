//! The compiled form of code: a flat list of [`Op`]s per body, with literals inline and
//! locals resolved to slots.
//!
//! Every value-producing form leaves exactly one value on the operand stack; statements in
//! a sequence pop the values they do not need. Jump targets are absolute op indices.
//!
//! The instructions are in `ops.rs`, the peephole pass that fuses sequences of them in
//! `fuse.rs`; this module holds a compiled body ([`Code`]) and the indices that name one.

use crate::source::Span;

mod fuse;
mod ops;
mod small;
#[cfg(test)]
mod tests;

pub use fuse::{fuse, letter_set};
pub use ops::{IntOp, IntValue, Op, Read, builtin_of, put_builtin};
pub use small::{call_op, mark_small_calls, small_targets};

/// Index of a compiled body in [`super::program::Game::codes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CodeId(pub u32);

/// Index of a `#define`d function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

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
    /// The body's checked AST, from which the runtime builds its fast tier (see
    /// `runtime/vm/fast.rs`); `None` for a body made without one.
    pub ast: Option<std::sync::Arc<[crate::syntax::ast::Expr]>>,
}

impl Code {
    /// Whether running this body may change the world (properties, states, entities, the
    /// outcome, the random generator, checkpoints), or send a message, which may. Reading
    /// and changing the handled message does not count. Calls count (conservatively).
    pub fn may_change_world(&self) -> bool {
        use crate::syntax::ast::FormOp as F;
        self.ops.iter().any(|op| match op {
            Op::Call(..) | Op::CallSmall(..) => true,
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
