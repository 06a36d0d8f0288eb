//! The compiled form of code: a flat list of [`Op`]s per body, with literals inline and
//! locals resolved to slots.
//!
//! Every value-producing form leaves exactly one value on the operand stack; statements in
//! a sequence pop the values they do not need. Jump targets are absolute op indices.
//!
//! The instructions are in `ops.rs`, the peephole pass that fuses sequences of them in
//! `fuse.rs`, the verifier that proves what the instruction loop takes for granted in
//! `verify.rs`; this module holds a compiled body ([`Code`]) and the indices that name one.

use crate::source::Span;

mod fuse;
mod ops;
mod small;
#[cfg(test)]
mod tests;
mod verify;

pub use fuse::{fuse, letter_set};
pub use ops::{IntOp, IntValue, Op, Read, builtin_of, put_builtin};
pub use small::{call_op, mark_small_calls, small_targets};
pub use verify::{Malformed, plain_successors, verify};

/// Index of a compiled body in [`super::program::Game::codes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CodeId(pub u32);

/// Index of a `#define`d function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

/// A compiled body. The compiler makes every one through [`verify`], which the
/// instruction loop relies on (see `room`): so the instructions, the locals and the room
/// are read through [`Code::ops`], [`Code::locals`] and [`Code::room`], and changed only
/// by [`Code::rewrite_ops`], which verifies again.
#[derive(Clone, Debug)]
pub struct Code {
    /// The instructions.
    pub(crate) ops: Vec<Op>,
    /// The source span of each instruction (same length as `ops`).
    pub spans: Vec<Span>,
    /// How many local slots the body uses (parameters first).
    pub(crate) locals: u16,
    /// The most values the body holds on the operand stack above its locals, as
    /// [`verify`] found it; set only once the body is verified. A frame reserves this
    /// much before its instructions run, and the instruction loop fetches, reads locals,
    /// pops and pushes without checks on that proof.
    pub(crate) room: u32,
    /// The variable each local slot holds, in slot order (for listings).
    pub local_names: Vec<crate::symbol::Symbol>,
    /// How many parameters (for functions).
    pub params: u16,
    /// What the body is, for traces and errors ("behaviour hole/default/seed", ...). (A
    /// boxed `str`, not a `String`: the body stays 128 bytes with its room.)
    pub name: Box<str>,
    /// The span of the whole body.
    pub span: Span,
    /// The body's checked AST, from which the runtime builds its fast tier (see
    /// `runtime/vm/fast.rs`); `None` for a body made without one.
    pub ast: Option<std::sync::Arc<[crate::syntax::ast::Expr]>>,
}

impl Code {
    /// The instructions.
    #[inline]
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// How many local slots the body uses (parameters first).
    #[inline]
    pub fn locals(&self) -> u16 {
        self.locals
    }

    /// The most values the body holds on the operand stack above its locals (see
    /// [`verify`]).
    #[inline]
    pub fn room(&self) -> u32 {
        self.room
    }

    /// Change each instruction with `f` (a test puts fused instructions back to their
    /// plain ones, say), then verify the body again: when it no longer verifies, it is
    /// left as it was and the fault is returned.
    pub fn rewrite_ops(&mut self, f: impl FnMut(&mut Op)) -> Result<(), Malformed> {
        let old = self.ops.clone();
        self.ops.iter_mut().for_each(f);
        match verify(self) {
            Ok(room) => {
                self.room = room;
                Ok(())
            }
            Err(m) => {
                self.ops = old;
                Err(m)
            }
        }
    }

    /// A verified body that gives nil: the place of a function compiled later.
    pub fn placeholder(span: Span) -> Code {
        Code {
            ops: vec![Op::Nil, Op::End],
            spans: vec![span; 2],
            locals: 0,
            room: 1,
            local_names: Vec::new(),
            params: 0,
            name: Box::default(),
            span,
            ast: None,
        }
    }

    /// Whether running this body may change the world (properties, states, entities, the
    /// outcome, the random generator, checkpoints), or send a message, which may. Reading
    /// and changing the handled message does not count. Calls count (conservatively).
    pub fn may_change_world(&self) -> bool {
        self.may_change_world_itself()
            || self
                .ops
                .iter()
                .any(|op| matches!(op, Op::Call(..) | Op::CallSmall(..)))
    }

    /// [`Code::may_change_world`] but for its calls: whether its own instructions may.
    pub fn may_change_world_itself(&self) -> bool {
        use crate::syntax::ast::FormOp as F;
        self.ops.iter().any(|op| match op {
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
