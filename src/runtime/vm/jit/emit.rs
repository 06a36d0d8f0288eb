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
/// or a string made at run time (an interned name's payload has its low bit set).
pub(super) fn may_hold_count(b: &mut FunctionBuilder<'_>, tag: V, word: V) -> V {
    let past = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedGreaterThan, tag, STR as i64);
    let is_str = b.ins().icmp_imm_u(IntCC::Equal, tag, STR as i64);
    let low = b.ins().band_imm_u(word, 1);
    let made = b.ins().icmp_imm_u(IntCC::Equal, low, 0);
    let made = b.ins().band(is_str, made);
    b.ins().bor(past, made)
}
