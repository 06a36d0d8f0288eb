//! Where the instruction loop is in a verified body: a pointer to the next instruction,
//! so that a fetch is one load and moving on is one add, where an index would have the
//! body's instructions loaded, shifted and added at every instruction.
//!
//! Sound by the verifier's proof (`compile/bytecode/verify.rs`), as the unchecked
//! accesses of `stack.rs` are: a place is made only at an instruction the body goes to
//! (its start, a jump's target, the instruction after one, a frame's saved place), or by
//! moving on from one along an edge the verifier followed (a fused instruction's fast
//! case lands where its plain sequence would), and the loop always reads a place with the
//! body it was made in.

use crate::compile::bytecode::{Code, Op};

/// A place in a verified body: the instruction it points to, read with [`Pc::op`] and the
/// body it was made in; [`Pc::index`] gives its number back (for a span, an error, a
/// frame's saved place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pc(*const Op);

impl Pc {
    /// Instruction `i` of `code`, which `verify` proved the body goes to.
    #[inline(always)]
    pub(super) fn at(code: &Code, i: usize) -> Pc {
        debug_assert!(i < code.ops.len(), "a place past the body's end");
        Pc(code.ops.as_ptr().wrapping_add(i))
    }

    /// The instruction here, of `code`, the body this place was made in.
    #[inline(always)]
    pub(super) fn op(self, code: &Code) -> &Op {
        debug_assert!(
            self.index(code) < code.ops.len(),
            "an instruction past the body's end"
        );
        // SAFETY: a place points at an instruction of the body it was made in (the
        // module's doc), and `code` is that body, which outlives the borrow returned.
        unsafe { &*self.0 }
    }

    /// The place `n` instructions on: where a fused instruction's fast case lands, or the
    /// next instruction after a fetch (which `verify` proved is in the body for every
    /// instruction that does not end it or jump).
    #[inline(always)]
    pub(super) fn skip(self, n: usize) -> Pc {
        Pc(self.0.wrapping_add(n))
    }

    /// The number of the instruction here in `code`.
    #[inline(always)]
    pub(super) fn index(self, code: &Code) -> usize {
        (self.0 as usize).wrapping_sub(code.ops.as_ptr() as usize) / size_of::<Op>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    #[test]
    fn a_place_counts_instructions_and_reads_the_one_it_points_to() {
        let code = Code::placeholder(Span::default());
        let start = Pc::at(&code, 0);
        assert_eq!(start.index(&code), 0);
        assert_eq!(start.skip(1).index(&code), 1);
        assert_eq!(*start.op(&code), code.ops()[0]);
        assert_eq!(
            Pc::at(&code, code.ops().len() - 1).index(&code),
            code.ops().len() - 1
        );
    }
}
