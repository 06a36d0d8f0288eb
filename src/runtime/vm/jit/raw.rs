//! Values as the generated code keeps them: two words, a tag and a payload ([`Raw`]).
//!
//! The tags are this module's own, not the compiler's layout of [`Value`]: a value
//! crosses between Rust and the generated code through [`into_raw`] and [`from_raw`],
//! which hand its reference count over whole. A raw value with a tag of [`STR`] or more
//! may own a count (a string made at run time, a list, a dictionary, a message; an
//! interned name is a string whose payload's low bit is set, and owns nothing): the
//! generated code gives it to [`jit_clone`] when it copies one and to [`jit_drop`] when it
//! lets one go, and leaves every other value alone.

use std::rc::Rc;

use crate::symbol::Symbol;

use super::super::super::value::{Dict, List, Message, Text, Truth, Value};

/// A value in two words, returned in two registers.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Raw {
    pub tag: u64,
    pub word: u64,
}

pub(crate) const NIL: u64 = 0;
pub(crate) const BOOL: u64 = 1;
pub(crate) const INT: u64 = 2;
pub(crate) const FLOAT: u64 = 3;
pub(crate) const STR: u64 = 4;
pub(crate) const LIST: u64 = 5;
pub(crate) const DICT: u64 = 6;
pub(crate) const MESSAGE: u64 = 7;
/// Not a value: the helper that returned it left the body ([`super::Jx::exit`] says how).
pub(crate) const EXIT: u64 = 255;
/// Not a value: an iteration has no element left.
pub(crate) const DONE: u64 = 254;

impl Raw {
    pub(crate) const EXIT: Raw = Raw { tag: EXIT, word: 0 };
}

/// The payload of an interned name as a string.
#[inline(always)]
pub(crate) fn sym_word(s: Symbol) -> u64 {
    (u64::from(s.id()) << 1) | 1
}

/// `v` as two words, its count (if it has one) handed over.
#[inline(always)]
pub(crate) fn into_raw(v: Value) -> Raw {
    let (tag, word) = match v {
        Value::Nil => (NIL, 0),
        Value::Bool(t) => (BOOL, t as u64),
        Value::Int(i) => (INT, i as u64),
        Value::Float(f) => (FLOAT, f.get().to_bits()),
        Value::Str(t) => (STR, t.into_word()),
        Value::List(l) => (LIST, Rc::into_raw(l).expose_provenance() as u64),
        Value::Dict(d) => (DICT, Rc::into_raw(d).expose_provenance() as u64),
        Value::Message(m) => (MESSAGE, Rc::into_raw(m).expose_provenance() as u64),
    };
    Raw { tag, word }
}

/// A copy of `v` as two words (its count taken, if it has one): read from the value's
/// layout (`repr(u64)`: the tag, then the payload) where it holds no count.
#[inline(always)]
pub(crate) fn copy_of(v: &Value) -> Raw {
    let at = (v as *const Value).cast::<u64>();
    // SAFETY: a value's first word is its tag, which the numbers here are (checked where
    // `Value` is declared).
    let tag = unsafe { *at };
    if tag == NIL {
        return Raw { tag, word: 0 };
    }
    // SAFETY: every value but nil has its payload in the second word.
    let word = unsafe { *at.add(1) };
    if tag < STR || (tag == STR && word & 1 == 1) {
        return Raw { tag, word };
    }
    into_raw(v.clone())
}

/// The value `r` stands for, its count (if it has one) taken back.
///
/// # Safety
/// `r` came from [`into_raw`] (or is a constant of a tag below [`STR`], or an interned
/// name), and is taken back once.
#[inline(always)]
pub(crate) unsafe fn from_raw(r: Raw) -> Value {
    let ptr = |w: u64| std::ptr::with_exposed_provenance::<u8>(w as usize);
    // SAFETY: as the function's contract says.
    unsafe {
        match r.tag {
            BOOL => Value::Bool(if r.word == 0 {
                Truth::False
            } else {
                Truth::True
            }),
            INT => Value::Int(r.word as i64),
            FLOAT => Value::float(f64::from_bits(r.word)),
            STR => Value::Str(Text::from_word(r.word)),
            LIST => Value::List(Rc::from_raw(ptr(r.word).cast::<List>())),
            DICT => Value::Dict(Rc::from_raw(ptr(r.word).cast::<Dict>())),
            MESSAGE => Value::Message(Rc::from_raw(ptr(r.word).cast::<Message>())),
            _ => Value::Nil,
        }
    }
}

/// A second count for the value `tag`, `word` stands for (the generated code copied it).
///
/// # Safety
/// The value is live.
pub(crate) unsafe extern "C" fn jit_clone(tag: u64, word: u64) {
    // SAFETY: the value is live, so a copy of it is a value too.
    let v = unsafe { from_raw(Raw { tag, word }) };
    std::mem::forget(v.clone());
    std::mem::forget(v);
}

/// Let go of the value `tag`, `word` stands for.
///
/// # Safety
/// The value is live and let go once.
pub(crate) unsafe extern "C" fn jit_drop(tag: u64, word: u64) {
    // SAFETY: as the function's contract says.
    Value::release(unsafe { from_raw(Raw { tag, word }) });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_cross_as_two_words_and_back() {
        let values = [
            Value::Nil,
            Value::bool(true),
            Value::bool(false),
            Value::Int(-7),
            Value::float(2.5),
            Value::sym(Symbol::intern("withStone")),
            Value::str("made at run time"),
            Value::List(Rc::new(List::from_iter([Value::Int(1), Value::str("x")]))),
        ];
        for v in values {
            let shown = format!("{v:?}");
            let r = into_raw(v);
            // SAFETY: a copy's count is given back by the drop below.
            unsafe { jit_clone(r.tag, r.word) };
            unsafe { jit_drop(r.tag, r.word) };
            let back = unsafe { from_raw(r) };
            assert_eq!(format!("{back:?}"), shown);
        }
        assert_eq!(
            into_raw(Value::sym(Symbol::intern("a"))).word,
            sym_word(Symbol::intern("a"))
        );
        // A copy read from the layout is the value's two words, its count taken.
        let made = Value::str("made");
        for v in [
            Value::Nil,
            Value::bool(true),
            Value::Int(-9),
            Value::float(0.5),
            Value::sym(Symbol::intern("b")),
            made.clone(),
            Value::List(Rc::new(List::from_iter([Value::Int(1)]))),
        ] {
            let copy = copy_of(&v);
            assert_eq!(format!("{:?}", unsafe { from_raw(copy) }), format!("{v:?}"));
        }
        assert!(matches!(&made, Value::Str(t) if t.to_string() == "made"));
    }
}
