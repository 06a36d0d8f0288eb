//! The operand stack's helpers: pushing and letting go of values cheaply (most own
//! nothing) and a frame's locals.

use super::super::value::Value;
use super::Machine;

/// Drop a value popped or overwritten by the instruction loop, skipping the out-of-line drop
/// for the values that own nothing (the common case: integers, booleans, nil).
#[inline(always)]
pub(super) fn discard(v: Value) {
    if matches!(
        v,
        Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Float(_)
    ) {
        // These variants hold no heap data or reference count: forgetting frees nothing.
        std::mem::forget(v);
    } else {
        drop_counted(v);
    }
}

/// Let go of a value that holds a reference count, out of line: the instruction loop keeps
/// no code for what its last holder frees.
#[inline(never)]
pub(super) fn drop_counted(v: Value) {
    drop(v);
}

/// Overwrite `slot` with `v`, dropping what it held through [`discard`].
#[inline(always)]
pub(super) fn overwrite(slot: &mut Value, v: Value) {
    discard(std::mem::replace(slot, v));
}

/// Push `n` nils (a frame's locals): one capacity check, then a store of each nil's tag
/// and one of the length (a `push` per nil stores the length each time and checks the
/// capacity again; extending with a repeated nil clones it through the general `clone`
/// out of line).
#[inline(always)]
pub(super) fn push_nils(stack: &mut Vec<Value>, n: usize) {
    stack.reserve(n);
    let len = stack.len();
    for slot in &mut stack.spare_capacity_mut()[..n] {
        slot.write(Value::Nil);
    }
    // SAFETY: the `n` values past `len` were written just above.
    unsafe { stack.set_len(len + n) };
}

/// Drop the values of `stack` above its first `len` (a frame's locals and what its body
/// left), as `truncate` does, but calling the general drop only for the values that hold
/// something (`truncate` calls it for every value, most often a nil or a number).
#[inline(always)]
pub(super) fn truncate_releasing(stack: &mut Vec<Value>, len: usize) {
    let n = stack.len();
    if len >= n {
        return;
    }
    // SAFETY: as in `Vec::truncate`: the length is lowered first, so the values past it,
    // initialised and now out of the vector, are each dropped once, here (a panicking
    // drop leaks the rest, never drops one twice).
    unsafe {
        let tail = std::ptr::slice_from_raw_parts_mut(stack.as_mut_ptr().add(len), n - len);
        stack.set_len(len);
        for v in &mut *tail {
            if !v.holds_nothing() {
                std::ptr::drop_in_place(v);
            }
        }
    }
}

/// [`push_nils`] kept out of line, for the instruction loop (its registers hold what the
/// common instructions use).
#[inline(never)]
pub(super) fn push_nils_apart(stack: &mut Vec<Value>, n: usize) {
    // One capacity check, then a store per nil (no length update or check per push), all
    // inline (`resize_with` is a call of its own).
    stack.extend((0..n).map(|_| Value::Nil));
}

/// Make the stack from `at` hold `n` nils (the locals of a body that starts where another
/// ended): what was there is let go, slots already there are reused.
#[inline(always)]
pub(super) fn renew_locals(stack: &mut Vec<Value>, at: usize, n: usize) {
    let len = stack.len();
    if len >= at + n {
        truncate_releasing(stack, at + n);
        for v in &mut stack[at..] {
            overwrite(v, Value::Nil);
        }
    } else {
        for v in &mut stack[at..] {
            overwrite(v, Value::Nil);
        }
        push_nils_apart(stack, at + n - len);
    }
}

impl Machine {
    pub(super) fn pop_args<const N: usize>(&mut self) -> [Value; N] {
        let at = self.stack.len() - N;
        let out = std::array::from_fn(|i| std::mem::take(&mut self.stack[at + i]));
        self.stack.truncate(at);
        out
    }
}
