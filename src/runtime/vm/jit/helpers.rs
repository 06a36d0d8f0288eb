//! The machine's functions the generated code calls, with the C calling convention:
//! each takes the running body's [`Jx`] and what its instruction names (a [`Site`] kept
//! by the compiled module, or values as two words), and gives a value as two words, or
//! [`EXIT`] having said in the `Jx` how the body leaves.

use crate::compile::bytecode::{CodeId, IntOp};

use super::super::super::value::Value;
use super::super::fast::{Done, Exit, Fx};
use super::raw::{DONE, LIST, Raw, from_raw, into_raw};
use super::{Jx, Site};

/// The fast tier the body runs on.
///
/// # Safety
/// `jx` is the live `Jx` the body was entered with.
#[inline(always)]
unsafe fn fx<'a>(jx: *mut Jx) -> &'a mut Fx<'static, 'static> {
    // SAFETY: `Jx::fx` is the `Fx` running the body, borrowed for its call.
    unsafe { &mut *(*jx).fx }
}

/// What a helper gives back for `r`.
#[inline(always)]
unsafe fn give(jx: *mut Jx, r: Done) -> Raw {
    match r {
        Ok(v) => into_raw(v),
        Err(exit) => {
            // SAFETY: `jx` is live.
            unsafe { (*jx).exit = exit };
            Raw::EXIT
        }
    }
}

/// A value handed over by the generated code.
#[inline(always)]
unsafe fn value(tag: u64, word: u64) -> Value {
    // SAFETY: the generated code hands over a live value whose count it gives up.
    unsafe { from_raw(Raw { tag, word }) }
}

pub(super) unsafe extern "C" fn property(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let r = fx.property(site.name, site.span);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn property_of(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let entity = unsafe { value(tag, word) };
    let r = fx.property_of(&entity, site.name, site.span);
    Value::release(entity);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn attribute(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let r = fx.attribute(site.name);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn state_of(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let entity = unsafe { value(tag, word) };
    let r = fx.state_of(entity, site.span);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn update_property(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let v = unsafe { value(tag, word) };
    let r = fx.update_property(site.name, v, site.span);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn message(jx: *mut Jx) -> Raw {
    into_raw(unsafe { fx(jx) }.message())
}

/// Push a value on the machine's stack, an operand of the form or call that follows.
pub(super) unsafe extern "C" fn push(jx: *mut Jx, tag: u64, word: u64) {
    let v = unsafe { value(tag, word) };
    unsafe { fx(jx) }.push(v);
}

/// Parameter `slot`, taken from the frame (nil left there).
pub(super) unsafe extern "C" fn take_local(jx: *mut Jx, slot: u64) -> Raw {
    into_raw(unsafe { fx(jx) }.take_local(slot as usize))
}

/// A form on the operands pushed.
pub(super) unsafe extern "C" fn form(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let r = match &site.shape {
        Some(shape) => {
            let at = fx.top() - usize::from(shape.send) - shape.names.len();
            fx.new_message(shape, at)
        }
        None => fx.form(site.form, site.argc, site.span),
    };
    unsafe { give(jx, r) }
}

/// A builtin on the `argc` arguments pushed.
pub(super) unsafe extern "C" fn builtin(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let at = fx.top() - usize::from(site.argc);
    let r = match site.pure {
        Some(f) => fx.pure(f, at),
        None => fx.game_builtin(site.index, at, site.span),
    };
    unsafe { give(jx, r) }
}

/// Function `site.code` on the `argc` arguments pushed.
pub(super) unsafe extern "C" fn call(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let at = fx.top() - usize::from(site.argc);
    let r = fx.call(CodeId(site.index as u32), at);
    unsafe { give(jx, r) }
}

/// An integer operator the generated code does not do itself (`%`, an overflow): its
/// value, or a give-up where the builtin would fail.
pub(super) unsafe extern "C" fn int_op(jx: *mut Jx, op: u64, a: u64, b: u64) -> Raw {
    const OPS: [IntOp; 10] = [
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
    let r = OPS[op as usize]
        .apply(a as i64, b as i64)
        .map(super::super::fused::int_value)
        .ok_or(Exit::GiveUp);
    unsafe { give(jx, r) }
}

/// Whether two values are equal as a `switch` compares them (neither let go); 2 to
/// leave.
pub(super) unsafe extern "C" fn equal(
    jx: *mut Jx,
    a_tag: u64,
    a_word: u64,
    b_tag: u64,
    b_word: u64,
) -> u64 {
    let a = std::mem::ManuallyDrop::new(unsafe { value(a_tag, a_word) });
    let b = std::mem::ManuallyDrop::new(unsafe { value(b_tag, b_word) });
    match unsafe { fx(jx) }.equal(&a, &b) {
        Ok(same) => u64::from(same),
        Err(exit) => {
            unsafe { (*jx).exit = exit };
            2
        }
    }
}

/// What a `foreach` iterates over a value other than a list.
pub(super) unsafe extern "C" fn iteration(jx: *mut Jx, tag: u64, word: u64) -> Raw {
    let v = unsafe { value(tag, word) };
    let r = unsafe { fx(jx) }.iteration(v).map(Value::List);
    unsafe { give(jx, r) }
}

/// Element `i` of the list `word` stands for, a copy; [`DONE`] past its end.
pub(super) unsafe extern "C" fn item(word: u64, i: u64) -> Raw {
    let list = std::mem::ManuallyDrop::new(unsafe { value(LIST, word) });
    let Value::List(list) = &*list else {
        return Raw { tag: DONE, word: 0 };
    };
    match list.get(i as usize) {
        Some(v) => into_raw(v.clone()),
        None => Raw { tag: DONE, word: 0 },
    }
}

/// Let go of the `n` values (two words each) at `at`: those a body held when it left.
pub(super) unsafe extern "C" fn let_go_all(at: *const u64, n: u64) {
    for i in 0..n as usize {
        // SAFETY: the generated code put `n` live values there, whose counts it gives up.
        unsafe {
            let (tag, word) = (*at.add(2 * i), *at.add(2 * i + 1));
            Value::release(value(tag, word));
        }
    }
}

/// The check where a loop goes round: 1 to leave.
pub(super) unsafe extern "C" fn check(jx: *mut Jx) -> u64 {
    match unsafe { fx(jx) }.check() {
        Ok(()) => 0,
        Err(exit) => {
            unsafe { (*jx).exit = exit };
            1
        }
    }
}
