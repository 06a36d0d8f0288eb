//! The operand stack's helpers: pushing and letting go of values cheaply (most own
//! nothing), a frame's locals, and the instruction loop's unchecked reads, pops and
//! pushes, which rest on the verifier's proof (below).

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

// The instruction loop's own pushes, pops and local slots, unchecked. Each rests on what
// the verifier (`compile/bytecode/verify.rs`) proved of the running body and on the
// frame's reservation: every local slot a body's instructions name is below its
// `locals`, which its frame holds above its base; no instruction pops below the locals;
// and no path holds more than the body's `room` values above them, which was reserved
// when the frame started (`reserve_room`) and stays reserved, as the stack only grows
// while the machine runs (it is let go only with the machine: `recycle_buffers`).
// Debug builds check each use.

/// Make room for `room` more values (a body's verified room, as its frame starts):
/// pushes of the body's instructions then need no capacity check.
#[inline(always)]
pub(super) fn reserve_room(stack: &mut Vec<Value>, room: u32) {
    stack.reserve(room as usize);
}

/// Push `v` where the running body's reserved room is.
#[inline(always)]
pub(super) fn push_in_room(stack: &mut Vec<Value>, v: Value) {
    let len = stack.len();
    debug_assert!(len < stack.capacity(), "a push past the reserved room");
    // SAFETY: the verified room of the running body was reserved when its frame started
    // and is never given back while it runs (see above): `len` is within capacity.
    unsafe {
        stack.as_mut_ptr().add(len).write(v);
        stack.set_len(len + 1);
    }
}

/// Pop the top value, which the verifier proved is there (above the locals).
#[inline(always)]
pub(super) fn pop_verified(stack: &mut Vec<Value>) -> Value {
    let len = stack.len();
    debug_assert!(len > 0, "a pop of an empty stack");
    // SAFETY: the instruction's verified height is at least the values it takes, all
    // above the frame's locals: the stack holds at least one value; the length is
    // lowered first, so the value read out is owned once.
    unsafe {
        stack.set_len(len - 1);
        stack.as_ptr().add(len - 1).read()
    }
}

/// Local `slot` of the frame at `base`, which the verifier proved is one of its slots.
#[inline(always)]
pub(super) fn local(stack: &[Value], base: usize, slot: u16) -> &Value {
    debug_assert!(
        base + (slot as usize) < stack.len(),
        "a local past the stack"
    );
    // SAFETY: `slot` is below the body's `locals` (verified), which its frame holds from
    // `base`, below every value its instructions push (no instruction pops below them).
    unsafe { stack.get_unchecked(base + slot as usize) }
}

/// [`local`], to write.
#[inline(always)]
pub(super) fn local_mut(stack: &mut [Value], base: usize, slot: u16) -> &mut Value {
    debug_assert!(
        base + (slot as usize) < stack.len(),
        "a local past the stack"
    );
    // SAFETY: as in `local`.
    unsafe { stack.get_unchecked_mut(base + slot as usize) }
}

/// The value `k` places below the top (0: the top), which the verifier proved is there:
/// the instruction reading it takes more than `k` values.
#[inline(always)]
pub(super) fn top(stack: &[Value], k: usize) -> &Value {
    debug_assert!(k < stack.len(), "a read below the stack");
    // SAFETY: the instruction's verified height is more than `k`: the value is there.
    unsafe { stack.get_unchecked(stack.len() - 1 - k) }
}

/// [`top`], to write.
#[inline(always)]
pub(super) fn top_mut(stack: &mut [Value], k: usize) -> &mut Value {
    debug_assert!(k < stack.len(), "a write below the stack");
    let i = stack.len() - 1 - k;
    // SAFETY: as in `top`.
    unsafe { stack.get_unchecked_mut(i) }
}
