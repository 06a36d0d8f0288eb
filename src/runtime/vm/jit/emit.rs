//! What the two generators of machine code (a body's, [`super::lower`], and a chain's,
//! [`super::chain`]) both emit: a helper's signature, the test of whether a value may
//! hold a count, and the tests of a value's truth and of a letter.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{self, AbiParam, InstBuilder, SigRef, Value as V};
use cranelift_frontend::FunctionBuilder;

use super::raw::{BOOL, NIL, STR};

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

/// Whether the value `(tag, word)` is true: neither nil nor false.
pub(super) fn truth(b: &mut FunctionBuilder<'_>, tag: V, word: V) -> V {
    let is_bool = b.ins().icmp_imm_u(IntCC::Equal, tag, BOOL as i64);
    let bool_true = b.ins().icmp_imm_u(IntCC::NotEqual, word, 0);
    let not_nil = b.ins().icmp_imm_u(IntCC::NotEqual, tag, NIL as i64);
    b.ins().select(is_bool, bool_true, not_nil)
}

/// Whether the value `(tag, word)` is an interned name of one ASCII letter (whose
/// number is the letter).
pub(super) fn one_letter(b: &mut FunctionBuilder<'_>, tag: V, word: V) -> V {
    let is_str = b.ins().icmp_imm_u(IntCC::Equal, tag, STR as i64);
    let name = b.ins().band_imm_u(word, 1);
    let name = b.ins().icmp_imm_u(IntCC::NotEqual, name, 0);
    let ascii = b.ins().icmp_imm_u(IntCC::UnsignedLessThan, word, 256);
    let letter = b.ins().band(is_str, name);
    b.ins().band(letter, ascii)
}

/// Whether the one-letter name whose payload is `word` ([`one_letter`]) is one of
/// `letters` (a set of bytes from 64, as `letter_set` gives it): 1 or 0, a boolean's
/// word.
pub(super) fn letter_bit(b: &mut FunctionBuilder<'_>, word: V, letters: u64) -> V {
    let byte = b.ins().ushr_imm_u(word, 1);
    let high = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, byte, 64);
    let shift = b.ins().iadd_imm_u(byte, -64i64);
    let set = b.ins().iconst(I64, letters as i64);
    let bits = b.ins().ushr(set, shift);
    let bit = b.ins().band_imm_u(bits, 1);
    let zero = b.ins().iconst(I64, 0);
    b.ins().select(high, bit, zero)
}
