//! The fast cases of fused instructions the loop does not answer in line: a loop's
//! fused test, an update of a collection in its local, a read of a property's table.

use crate::compile::bytecode::{IntValue, Op, Read};
use crate::compile::program::Game;

use super::super::budget::{ENTRY_BYTES, Meter, is_collection};
use super::super::builtins::read_fast;
use super::super::value::{Dict, Key, List, Value};
use super::Machine;
use super::stack::local;

/// Where a loop's fused test (`op`, an [`Op::LoopLocalConst`] or [`Op::LoopLocals`] on the
/// locals of the frame at `base` in `stack`) sends the loop: its body or its exit; `None`
/// when its fast case does not apply (a value that is not an integer, another
/// instruction). The locals are read unchecked, as the loops read them: `op` is an
/// instruction of the verified body whose frame is at `base` (see `stack.rs`).
#[inline(always)]
pub(super) fn loop_test(stack: &[Value], base: usize, op: Op) -> Option<u32> {
    let (t, exit, body) = match op {
        Op::LoopLocalConst {
            a,
            op: f,
            k,
            exit,
            body,
        } => match local(stack, base, a) {
            Value::Int(x) => (f.apply(*x, i64::from(k))?, exit, body),
            _ => return None,
        },
        Op::LoopLocals {
            a,
            b,
            op: f,
            exit,
            body,
        } => match (local(stack, base, a), local(stack, base, b)) {
            (Value::Int(x), Value::Int(y)) => (f.apply(*x, *y)?, exit, body),
            _ => return None,
        },
        _ => return None,
    };
    match t {
        IntValue::Bool(true) => Some(body),
        IntValue::Bool(false) => Some(exit),
        IntValue::Int(_) => None,
    }
}

/// Whether a dictionary of `len` entries may take one more within the length and memory
/// limits, as `put` checks them; when it may, its memory is counted.
#[inline(always)]
pub(super) fn add_entry(m: &mut Meter, len: usize) -> bool {
    let memory = m.memory.saturating_add(ENTRY_BYTES);
    if len + 1 > m.limits.max_length || memory > m.limits.max_memory {
        return false;
    }
    m.memory = memory;
    true
}

/// The value of an integer operator's result.
#[inline(always)]
pub(super) fn int_value(r: IntValue) -> Value {
    match r {
        IntValue::Int(i) => Value::Int(i),
        IntValue::Bool(b) => Value::bool(b),
    }
}

impl Machine {
    /// What a fused `(get (property name of e) k)` (`op`, an [`Op::PropertyGet`] or
    /// [`Op::NamedPropertyGet`] in the frame at `base`) reads, when the entity is one the
    /// game started with, the property one of its layout and the read one `read_fast`
    /// answers; `None` otherwise (the plain instructions run). Out of line: the
    /// instruction loop keeps its registers.
    #[inline(never)]
    pub(super) fn property_get(&self, game: &Game, base: usize, op: Op) -> Option<Value> {
        let (table, k) = match op {
            Op::PropertyGet { a, name, k } => (
                self.fixed_property(game, &self.stack[base + a as usize], name)?,
                k,
            ),
            Op::NamedPropertyGet { entity, name, k } => (
                self.fixed_entity_of(entity)?
                    .1
                    .layout_property(game, name)?,
                k,
            ),
            _ => return None,
        };
        read_fast(Read::Get, table, &self.stack[base + k as usize], None)
    }

    /// The fast case of a fused update of a collection in its local ([`Op::PutLocal`],
    /// [`Op::PutAdd`]) of the frame whose locals start at `base`: whether it applied. When
    /// it does not (another kind of value, a value to measure, an error to report, no room
    /// before the next step check, a step pending), nothing has changed and the plain
    /// instructions run.
    ///
    /// The instruction loop calls it out of line, its step count written to the meter (so
    /// the loop, which keeps the common instructions in registers, has one guard more and
    /// no more code): when the fast case applies, the sequence's steps are counted here and
    /// the loop goes on past the rest of the sequence, in the same frame. The loop checks
    /// steps when its count reaches `check_at`: the sequence's steps must stay short of
    /// that (the loop's `room!`).
    #[inline(never)]
    pub(super) fn fused_update(&mut self, op: Op, base: usize) -> bool {
        let extra = op.weight() - 1;
        if self.left_to_check() <= extra as i64 {
            return false;
        }
        let done = match op {
            Op::PutLocal { slot } => self.put_local(base + slot as usize),
            Op::PutAdd { d, k, default, n } => {
                self.put_add(base + d as usize, base + k as usize, default, n)
            }
            _ => false,
        };
        if done {
            self.meter.steps += extra;
        }
        done
    }

    /// [`Op::PutLocal`]: `(var c (put c key value))` on the dictionary or list in stack
    /// slot `at` (a local), with the key and the value on top of the stack above the hole,
    /// when the value is not a collection (measuring it costs nothing) and the key is one
    /// the collection takes, new within the limits: the collection is updated where it
    /// lies, as `put` updates it, and the hole, key and value go.
    pub(super) fn put_local(&mut self, at: usize) -> bool {
        let n = self.stack.len();
        let Some((locals, [_, key, value])) =
            n.checked_sub(3).map(|top| self.stack.split_at_mut(top))
        else {
            return false;
        };
        if is_collection(value) {
            return false;
        }
        match (locals.get_mut(at), &*key) {
            (Some(Value::Dict(dict)), Value::Int(_) | Value::Str(_)) => {
                let key = match &*key {
                    Value::Int(i) => Key::Int(*i),
                    Value::Str(s) => Key::Str(s.clone()),
                    _ => return false,
                };
                let place = dict.search(&key);
                if place.is_new() && !add_entry(&mut self.meter, dict.len()) {
                    return false;
                }
                if let Some(old) = Dict::insert_in(dict, place, key, std::mem::take(value)) {
                    Value::release(old);
                }
            }
            (Some(Value::List(list)), Value::Int(i)) => {
                let Some(u) = usize::try_from(*i).ok().filter(|&u| u < list.len()) else {
                    return false;
                };
                List::make_mut(list, 0).set(u, std::mem::take(value), 0);
            }
            _ => return false,
        }
        // The hole (nil), the key and the value (moved out): nothing to drop but a string
        // key.
        for v in &mut self.stack[n - 3..] {
            Value::release(std::mem::take(v));
        }
        // SAFETY: the last three values are nil (taken above): letting them go frees
        // nothing.
        unsafe { self.stack.set_len(n - 3) };
        true
    }

    /// [`Op::PutAdd`]: `(var d (put d k (+ (get d k default) n)))` on the dictionary in
    /// stack slot `d` with the key in slot `k` (locals), when it is an integer or a string,
    /// the value read (or the default) is an integer, the sum does not overflow and a new
    /// key stays within the limits: the dictionary is searched once and updated where it
    /// lies, as `put` updates it.
    pub(super) fn put_add(&mut self, d: usize, k: usize, default: i32, n: i32) -> bool {
        let key = match self.stack.get(k) {
            Some(Value::Int(i)) => Key::Int(*i),
            Some(Value::Str(s)) => Key::Str(s.clone()),
            _ => return false,
        };
        let Some(Value::Dict(dict)) = self.stack.get_mut(d) else {
            return false;
        };
        let place = dict.search(&key);
        // A count already there, in a dictionary nobody else holds: added to where it lies.
        if let Some(x) = Dict::int_at_mut(dict, place) {
            return match x.checked_add(i64::from(n)) {
                Some(sum) => {
                    *x = sum;
                    true
                }
                None => false,
            };
        }
        let old = match dict.value_at(place) {
            Some(Value::Int(x)) => *x,
            Some(_) => return false,
            None => i64::from(default),
        };
        let Some(sum) = old.checked_add(i64::from(n)) else {
            return false;
        };
        if place.is_new() && !add_entry(&mut self.meter, dict.len()) {
            return false;
        }
        if let Some(old) = Dict::insert_in(dict, place, key, Value::Int(sum)) {
            Value::release(old);
        }
        true
    }
}
