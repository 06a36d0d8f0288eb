//! What the two generators of machine code (a body's, [`super::lower`], and a chain's,
//! [`super::chain`]) both emit: a helper's signature, and the test of whether a value
//! may hold a count.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{self, AbiParam, InstBuilder, SigRef, Value as V};
use cranelift_frontend::FunctionBuilder;

use super::raw::STR;

/// The signature of a helper of `args` words giving `rets`, imported into `b`'s
/// function once (`sigs` keeps those imported).
pub(super) fn signature(
    b: &mut FunctionBuilder<'_>,
    sigs: &mut Vec<((usize, usize), SigRef)>,
    args: usize,
    rets: usize,
) -> SigRef {
    if let Some(&(_, s)) = sigs.iter().find(|(k, _)| *k == (args, rets)) {
        return s;
    }
    let mut sig = ir::Signature::new(b.func.signature.call_conv);
    sig.params.extend((0..args).map(|_| AbiParam::new(I64)));
    sig.returns.extend((0..rets).map(|_| AbiParam::new(I64)));
    let s = b.import_signature(sig);
    sigs.push(((args, rets), s));
    s
}

/// Whether the value `(tag, word)` may hold a count: a list, a dictionary, a message,
/// or a string made at run time (an interned name's payload has its low bit set). One
/// compare: `2 * tag + 1 - (word & 1)` is at least `2 * STR + 1` exactly then (a string's
/// is `2 * STR + 1` when made, one less when a name; a tag past a string's gives more,
/// one before it less).
pub(super) fn may_hold_count(b: &mut FunctionBuilder<'_>, tag: V, word: V) -> V {
    let twice = b.ins().ishl_imm_u(tag, 1);
    let odd = b.ins().iadd_imm_u(twice, 1);
    let low = b.ins().band_imm_u(word, 1);
    let x = b.ins().isub(odd, low);
    b.ins()
        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, x, 2 * STR as i64 + 1)
}
