//! Values of the language.
//!
//! Small values (nil, booleans, integers, floats, strings as a [`Text`]: an interned
//! [`Symbol`] or a reference-counted string made at run time) are stored inline; lists
//! ([`List`]: a plain vector while short, an imbl vector when long), dictionaries ([`Dict`]:
//! a sorted vector while small, chunks of one when large or shared) and messages are behind
//! an `Rc`, so copying a value is a word copy plus at most a reference count, and updating
//! a collection that nobody else holds happens in place.
//!
//! The counts are plain, not atomic, so values stay on the thread that made them: no
//! value type is `Send` or `Sync`. What goes to another thread is copied all the way down
//! first ([`Value::private_copy`]) and handed over as a
//! [`crate::runtime::session::Isolated`].

use std::cmp::Ordering;
use std::fmt;
use std::rc::Rc;

use crate::symbol::Symbol;

pub mod attrs;
mod dict;
mod display;
mod key;
mod list;
mod message;
mod text;
pub use attrs::Attrs;
pub use dict::{
    CHUNK_MAX as DICT_CHUNK_MAX, Dict, FLAT_MAX as DICT_FLAT_MAX, Iter as DictIter,
    Place as DictPlace,
};
pub use display::{DISPLAY_CAP, JSON_CAP};
pub use key::Key;
pub use list::{DepthJournal, FLAT_MAX, Iter as ListIter, List, Marks, UNKNOWN_DEPTH, depth_hint};
pub use message::{Message, action_name, action_of, check_action, mover_of};
pub use text::{TEXT_STEP, Text, common_start};

/// A value.
///
/// Every variant keeps its payload in one 64-bit word (a boolean as a [`Truth`], a float
/// as its bits in a [`Float`]), so a value is a pair of scalars, its tag and that word:
/// it is passed and returned in two registers, and copied or pushed as two stores that
/// a later read of either finds at once, never as a 16-byte block read back from a
/// temporary written by narrower stores.
///
/// Its layout is fixed (`repr(u64)`): the tag in the first word, with the numbers given
/// below, and the payload in the second. Code the machine generates reads a value where
/// it lies by that layout (`vm/jit/raw.rs` has the same numbers; a boolean's word is 0
/// or 1, a float's its bits, a string's the [`Text`]'s word).
#[derive(Default)]
#[repr(u64)]
pub enum Value {
    /// Nothing; false.
    #[default]
    Nil = 0,
    /// `true` or `false`.
    Bool(Truth) = 1,
    /// A 64-bit integer.
    Int(i64) = 2,
    /// A 64-bit float.
    Float(Float) = 3,
    /// A string.
    Str(Text) = 4,
    /// A persistent list.
    List(Rc<List>) = 5,
    /// A persistent dictionary.
    Dict(Rc<Dict>) = 6,
    /// A message: a label and attributes.
    Message(Rc<Message>) = 7,
}

// The layout the generated code reads: the tag in the first word, the payload in the
// second.
const _: () = {
    const fn words(v: Value) -> [u64; 2] {
        // SAFETY: a value of `repr(u64)` is two words, both set for these variants.
        unsafe { std::mem::transmute::<Value, [u64; 2]>(v) }
    }
    assert!(std::mem::size_of::<Value>() == 16);
    assert!(words(Value::Bool(Truth::True))[0] == 1 && words(Value::Bool(Truth::True))[1] == 1);
    assert!(words(Value::Int(-3))[0] == 2 && words(Value::Int(-3))[1] == (-3i64) as u64);
    assert!(words(Value::Float(Float(7)))[0] == 3 && words(Value::Float(Float(7)))[1] == 7);
};

/// A boolean in a 64-bit word (see [`Value`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u64)]
pub enum Truth {
    /// `false`.
    False = 0,
    /// `true`.
    True = 1,
}

impl Truth {
    /// The boolean.
    #[inline(always)]
    pub fn get(self) -> bool {
        matches!(self, Truth::True)
    }
}

/// A float held as its bits in a 64-bit integer (see [`Value`]).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Float(u64);

impl Float {
    /// The float.
    #[inline(always)]
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl std::ops::Deref for Float {
    type Target = f64;

    #[inline(always)]
    fn deref(&self) -> &f64 {
        // SAFETY: `Float` is a `u64` (`repr(transparent)`), of the size and alignment of
        // an `f64`, and every bit pattern is an `f64`.
        unsafe { &*(self as *const Float).cast::<f64>() }
    }
}

impl PartialEq for Float {
    /// As floats compare (so NaN is unequal to itself).
    #[inline(always)]
    fn eq(&self, other: &Float) -> bool {
        self.get() == other.get()
    }
}

impl fmt::Debug for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

impl fmt::Display for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

/// The value `a` holds, to change: in place when `a` is its only holder (one
/// [`Rc::get_mut`]), otherwise in a copy made by `copy` that replaces it in `a`.
#[inline(always)]
pub(crate) fn unique_or_copy<T>(a: &mut Rc<T>, copy: impl FnOnce(&T) -> T) -> &mut T {
    if let Some(v) = Rc::get_mut(a) {
        let v: *mut T = v;
        // SAFETY: `v` is the value `a` alone holds, borrowed from `a` for as long as the
        // result lives (returning the borrow itself is refused only by the current
        // borrow checker's handling of a borrow returned from one branch).
        return unsafe { &mut *v };
    }
    *a = Rc::new(copy(a));
    match Rc::get_mut(a) {
        Some(v) => v,
        None => unreachable!("a new Rc has one holder"),
    }
}

impl Clone for Value {
    /// A value that holds nothing (see [`Value::holds_nothing`]) is copied as it is; the
    /// others take a reference count.
    #[inline(always)]
    fn clone(&self) -> Value {
        if self.holds_nothing() {
            // SAFETY: nil, a boolean, a number or a symbol's text owns nothing and counts
            // no reference: its bits are the whole value, and both copies may be dropped
            // (dropping either frees nothing).
            unsafe { std::ptr::read(self) }
        } else {
            self.clone_counted()
        }
    }
}

impl Value {
    /// A copy that shares no reference count with `self`, however deep: every list,
    /// dictionary, message and string made at run time in it is copied. Threads that each
    /// read a value of their own never write to the same count (a count written by two
    /// cores moves its cache line between them at every copy and drop of the value).
    pub fn private_copy(&self) -> Value {
        match self {
            Value::Str(t) => Value::Str(t.private_copy()),
            // The copy keeps the list's depth bound (true of the copy, which has the same
            // shape): a bound recomputed from the elements would be unknown above a
            // message or a dictionary, and the copy's first `append` elsewhere would walk
            // it, counting steps the original does not.
            Value::List(l) => Value::List(Rc::new(List::with_depth(
                l.iter().map(Value::private_copy).collect(),
                l.depth(),
            ))),
            Value::Dict(d) => Value::Dict(Rc::new(d.private_copy())),
            Value::Message(m) => Value::Message(Rc::new(Message {
                label: m.label,
                attrs: m
                    .attrs
                    .iter()
                    .map(|(k, v)| (k.private_copy(), v.private_copy()))
                    .collect(),
            })),
            other => other.clone(),
        }
    }

    /// [`Clone::clone`] of a value that holds a reference count.
    #[inline(never)]
    fn clone_counted(&self) -> Value {
        self.clone_inline()
    }

    /// [`Clone::clone`] with every case inline, for the loops that copy many values at
    /// once (a list or a dictionary copied to be updated): there, one call per element
    /// that holds a count costs more than the code it saves.
    #[inline(always)]
    pub fn clone_inline(&self) -> Value {
        match self {
            Value::Nil => Value::Nil,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Float(x) => Value::Float(*x),
            Value::Str(t) => Value::Str(t.clone()),
            Value::List(l) => Value::List(Rc::clone(l)),
            Value::Dict(d) => Value::Dict(Rc::clone(d)),
            Value::Message(m) => Value::Message(Rc::clone(m)),
        }
    }

    /// Copies of `values`, in order, each made by [`Value::clone_inline`], with room for
    /// `extra` more.
    #[inline]
    pub fn copy_all(values: &[Value], extra: usize) -> Vec<Value> {
        let mut copy = Vec::with_capacity(values.len() + extra);
        copy.extend(values.iter().map(Value::clone_inline));
        copy
    }

    /// Whether the value holds nothing to count or free: nil, a boolean, a number or a
    /// string held as its symbol. Copying one is a copy of its bits; dropping one frees
    /// nothing.
    #[inline(always)]
    pub fn holds_nothing(&self) -> bool {
        match self {
            Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Float(_) => true,
            Value::Str(t) => t.is_symbol(),
            Value::List(_) | Value::Dict(_) | Value::Message(_) => false,
        }
    }

    /// Drop `v`, without calling the general drop when it holds nothing (the common case
    /// of a value popped from the stack or taken out of a list).
    #[inline(always)]
    pub fn release(v: Value) {
        if v.holds_nothing() {
            std::mem::forget(v);
        } else {
            drop(v);
        }
    }

    /// The value of boolean `b`.
    #[inline(always)]
    pub const fn bool(b: bool) -> Value {
        Value::Bool(if b { Truth::True } else { Truth::False })
    }

    /// The value of float `x`.
    #[inline(always)]
    pub const fn float(x: f64) -> Value {
        Value::Float(Float(x.to_bits()))
    }

    /// A string value made at run time (see [`Text::new`]: never adds to the symbol table).
    pub fn str(text: &str) -> Value {
        Value::Str(Text::new(text))
    }

    /// The string value of a symbol.
    #[inline]
    pub fn sym(s: Symbol) -> Value {
        Value::Str(Text::sym(s))
    }

    /// A list value.
    pub fn list(items: List) -> Value {
        Value::List(Rc::new(items))
    }

    /// A dictionary value.
    pub fn dict(items: Dict) -> Value {
        Value::Dict(Rc::new(items))
    }

    /// `nil` and `false` are false; everything else is true.
    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(Truth::False))
    }

    /// The name of this value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Dict(_) => "dictionary",
            Value::Message(_) => "message",
        }
    }

    /// This value as a dictionary key, if it can be one.
    pub fn as_key(&self) -> Option<Key> {
        match self {
            Value::Int(i) => Some(Key::Int(*i)),
            Value::Str(s) => Some(Key::Str(s.clone())),
            Value::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => {
                Some(Key::Int(x.get() as i64))
            }
            _ => None,
        }
    }

    /// Total order used by `sort`, `min` and `max`: numbers by value, then strings by text,
    /// then lists element-wise; other kinds by kind.
    pub fn compare(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::List(a), Value::List(b)) => {
                for (x, y) in a.iter().zip(b.iter()) {
                    match x.compare(y) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => self.compare_shallow(other),
        }
    }

    /// [`Value::compare`] for every pair but two lists (which compare equal here).
    pub fn compare_shallow(&self, other: &Value) -> Ordering {
        fn rank(v: &Value) -> u8 {
            match v {
                Value::Nil => 0,
                Value::Bool(_) => 1,
                Value::Int(_) | Value::Float(_) => 2,
                Value::Str(_) => 3,
                Value::List(_) => 4,
                Value::Dict(_) => 5,
                Value::Message(_) => 6,
            }
        }
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Int(a), Value::Float(b)) => (*a as f64).total_cmp(b),
            (Value::Float(a), Value::Int(b)) => a.total_cmp(&(*b as f64)),
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            _ => rank(self).cmp(&rank(other)),
        }
    }
}

impl PartialEq for Value {
    /// Structural equality; an integer equals the float of the same value.
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Int(a), Value::Float(b)) | (Value::Float(b), Value::Int(a)) => {
                (*a as f64) == b.get() && b.fract() == 0.0 && (b.get() as i64) == *a
            }
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => Rc::ptr_eq(a, b) || a == b,
            (Value::Dict(a), Value::Dict(b)) => Rc::ptr_eq(a, b) || a == b,
            (Value::Message(a), Value::Message(b)) => Rc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `a` and `b` hold a reference-counted value in common, at any depth.
    fn share(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Str(x), Value::Str(y)) => !x.is_symbol() && x.ptr == y.ptr,
            (Value::List(x), Value::List(y)) => {
                Rc::ptr_eq(x, y) || x.iter().zip(y.iter()).any(|(a, b)| share(a, b))
            }
            (Value::Dict(x), Value::Dict(y)) => {
                Rc::ptr_eq(x, y) || x.iter().zip(y.iter()).any(|((k, a), (l, b))| {
                    matches!((k, l), (Key::Str(k), Key::Str(l)) if !k.is_symbol() && k.ptr == l.ptr)
                        || share(a, b)
                })
            }
            (Value::Message(x), Value::Message(y)) => {
                Rc::ptr_eq(x, y)
                    || x.attrs
                        .values()
                        .zip(y.attrs.values())
                        .any(|(a, b)| share(a, b))
            }
            _ => false,
        }
    }

    /// A list holding a message (a candidate move, `(list "e2" <message>)`) knows how
    /// deep it nests when made; its private copy (a session's copy for another thread)
    /// knows it too, so putting either into another collection counts the same steps.
    #[test]
    fn a_private_copy_keeps_a_lists_depth() {
        use crate::runtime::budget::{Limits, Meter};
        let message = Message::new(
            Symbol::intern("move"),
            [(
                Key::Str(Text::sym(Symbol::intern("to"))),
                Value::sym(Symbol::intern("e4")),
            )]
            .into_iter()
            .collect::<Attrs>(),
        );
        let original = Value::List(Rc::new(List::with_depth(
            vec![
                Value::sym(Symbol::intern("e2")),
                Value::Message(Rc::new(message)),
            ],
            2,
        )));
        let copy = original.private_copy();
        let (Value::List(a), Value::List(b)) = (&original, &copy) else {
            unreachable!()
        };
        assert_eq!(b.depth(), a.depth());
        let steps = |v: &Value| {
            let mut m = Meter::new(Limits::default());
            let depth = m.nest_depth(v).expect("within the limits");
            (depth, m.steps)
        };
        assert_eq!(steps(&copy), steps(&original));
    }

    #[test]
    fn a_private_copy_is_equal_and_shares_no_count() {
        let owned = || Value::Str(Text::owned("made at run time".into()));
        let long: Vec<Value> = (0..600)
            .map(|i| Value::Int(i % 7))
            .chain([owned()])
            .collect();
        let dict: Dict = [
            (Key::Str(Text::owned("an owned key".into())), owned()),
            (Key::Int(3), Value::List(Rc::new(List::from_vec(long)))),
            (
                Key::Str(Text::sym(Symbol::intern("a1"))),
                Value::sym(Symbol::intern("P")),
            ),
        ]
        .into_iter()
        .collect();
        let message = Message::new(
            Symbol::intern("move"),
            [(Key::Str(Text::sym(Symbol::intern("to"))), owned())]
                .into_iter()
                .collect::<Attrs>(),
        );
        let original = Value::List(Rc::new(List::from_vec(vec![
            Value::Int(1),
            owned(),
            Value::Dict(Rc::new(dict)),
            Value::Message(Rc::new(message)),
            Value::Nil,
        ])));
        let copy = original.private_copy();
        assert!(copy == original, "the copy equals the original");
        assert!(
            !share(&copy, &original),
            "the copy shares a count with the original"
        );
        // A clone, by contrast, shares them all.
        assert!(share(&original.clone(), &original));
        // Scalars and symbols are copied as they are.
        assert!(
            Value::sym(Symbol::intern("e4")).private_copy() == Value::sym(Symbol::intern("e4"))
        );
    }

    #[test]
    fn sole_holders_change_in_place_and_shared_values_are_copied() {
        let mut a = Rc::new(vec![1, 2]);
        Rc::get_mut(&mut a).expect("the only holder").push(3);
        let b = a.clone();
        assert!(Rc::get_mut(&mut a).is_none(), "another holds it");
        unique_or_copy(&mut a, |v| v.clone()).push(4);
        let (seen_a, seen_b): (&[i32], &[i32]) = (&a, &b);
        assert_eq!((seen_a, seen_b), (&[1, 2, 3, 4][..], &[1, 2, 3][..]));
        assert!(!Rc::ptr_eq(&a, &b), "the other holder's value is untouched");
        let mut b = b;
        let before = Rc::as_ptr(&b);
        unique_or_copy(&mut b, |_| unreachable!("b is its only holder now")).push(5);
        assert_eq!(Rc::as_ptr(&b), before, "changed in place");
        assert!(Rc::get_mut(&mut b).is_some());
        let weak = Rc::downgrade(&b);
        unique_or_copy(&mut b, |v| v.clone()).push(6);
        assert!(
            !std::ptr::eq(Rc::as_ptr(&b), before),
            "a Weak could make another holder"
        );
        assert_eq!(weak.upgrade().map(|v| v.len()), None, "the old value went");
    }

    #[test]
    fn value_is_two_words() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
        // Every payload is one 64-bit word of integer or pointer kind, so the value is a
        // pair of scalars (passed in registers): a boolean or a float takes a word too.
        assert_eq!(std::mem::size_of::<Truth>(), 8);
        assert_eq!(std::mem::size_of::<Float>(), 8);
        assert_eq!(std::mem::size_of::<Option<Value>>(), 16);
        assert!(Value::bool(true).truthy() && !Value::bool(false).truthy());
        for x in [0.0, -0.0, 1.5, f64::INFINITY, f64::MIN_POSITIVE] {
            let Value::Float(f) = Value::float(x) else {
                panic!("a float")
            };
            assert_eq!(f.get().to_bits(), x.to_bits());
            assert_eq!(*f, x);
        }
        let Value::Float(nan) = Value::float(f64::NAN) else {
            panic!("a float")
        };
        assert!(nan.is_nan() && nan != nan, "NaN stays unequal to itself");
    }

    #[test]
    fn values_that_hold_nothing_are_copied_and_the_others_counted() {
        let made = Value::str("value-test-counted-text");
        let list = Value::list(List::from_vec(vec![Value::Int(1), made.clone()]));
        let plain = [
            Value::Nil,
            Value::bool(true),
            Value::Int(-7),
            Value::float(2.5),
            Value::sym(Symbol::intern("value-test-plain")),
            Value::sym(Symbol::intern("k")),
        ];
        for v in &plain {
            assert!(v.holds_nothing(), "{v}");
            let copy = v.clone();
            assert!(copy == *v, "{v}");
            assert_eq!(copy.to_string(), v.to_string());
            Value::release(copy);
        }
        for v in [&made, &list] {
            assert!(!v.holds_nothing(), "{v}");
        }
        let Value::Str(t) = &made else { unreachable!() };
        assert!(!t.is_symbol());
        // Copies of a counted value share it; releasing them gives their counts back.
        let Value::List(l) = &list else {
            unreachable!()
        };
        let before = Rc::strong_count(l);
        let copies: Vec<Value> = (0..3).map(|_| list.clone()).collect();
        assert_eq!(Rc::strong_count(l), before + 3);
        for c in copies {
            Value::release(c);
        }
        assert_eq!(Rc::strong_count(l), before);
        let text = made.clone();
        Value::release(text);
        assert_eq!(made.to_string(), "\"value-test-counted-text\"");
        // A list's elements that hold something are freed with it, the others let go.
        drop(list);
        assert_eq!(made.to_string(), "\"value-test-counted-text\"");
    }

    #[test]
    fn integers_equal_floats_of_the_same_value() {
        assert_eq!(Value::Int(1), Value::float(1.0));
        assert_ne!(Value::Int(1), Value::float(1.5));
        assert_ne!(Value::Int(1), Value::str("1"));
    }
}
