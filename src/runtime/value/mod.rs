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
use std::ptr::NonNull;
use std::rc::Rc;

use crate::symbol::Symbol;

pub use super::attrs::Attrs;

mod dict;
mod list;
pub use dict::{
    CHUNK_MAX as DICT_CHUNK_MAX, Dict, FLAT_MAX as DICT_FLAT_MAX, Iter as DictIter,
    Place as DictPlace,
};
pub use list::{FLAT_MAX, Iter as ListIter, List, UNKNOWN_DEPTH, depth_hint};

/// A value.
///
/// Every variant keeps its payload in one 64-bit word (a boolean as a [`Truth`], a float
/// as its bits in a [`Float`]), so a value is a pair of scalars, its tag and that word:
/// it is passed and returned in two registers, and copied or pushed as two stores that
/// a later read of either finds at once, never as a 16-byte block read back from a
/// temporary written by narrower stores.
#[derive(Default)]
pub enum Value {
    /// Nothing; false.
    #[default]
    Nil,
    /// `true` or `false`.
    Bool(Truth),
    /// A 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(Float),
    /// A string.
    Str(Text),
    /// A persistent list.
    List(Rc<List>),
    /// A persistent dictionary.
    Dict(Rc<Dict>),
    /// A message: a label and attributes.
    Message(Rc<Message>),
}

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

/// The text of a string value.
///
/// Names and literals are interned [`Symbol`]s. A string made at run time (`str`, `chars`,
/// `split`, `join`, `upper`, `lower`, text typed or read from outside) is the symbol of
/// its text when that text is already interned (a lookup that never inserts), and
/// otherwise a reference-counted string freed when the last value holding it is dropped,
/// so building millions of strings does not grow the process-wide symbol table.
///
/// Both forms compare, order and hash by text, so they are interchangeable everywhere:
/// two symbols compare as one `u32` compare, and a run-time string equals the symbol of
/// the same text (the text may have been interned after the string was made).
///
/// One word: a symbol's id shifted left with the low bit set, or the pointer of an
/// `Rc<Box<str>>` (aligned, so its low bit is clear). Keeping it one word keeps
/// [`Value`] at two words with a plain tag, so copying and dropping values that are not
/// run-time strings costs what it did when every string was a symbol.
pub struct Text {
    ptr: NonNull<Box<str>>,
}

// A `Text` holding a string made at run time shares a count that is not atomic: like
// every value, it stays on the thread that made it (see the module documentation).
// (`NonNull` makes it neither `Send` nor `Sync`.)

/// What a [`Text`] holds.
enum Repr<'a> {
    Sym(Symbol),
    Owned(&'a str),
}

impl Text {
    /// The text of a symbol.
    #[inline]
    pub fn sym(s: Symbol) -> Text {
        let tagged = ((s.id() as usize) << 1) | 1;
        // Never null: the low bit is set.
        let ptr = NonNull::new(std::ptr::without_provenance_mut::<Box<str>>(tagged))
            .unwrap_or(NonNull::dangling());
        Text { ptr }
    }

    fn owned(text: Box<str>) -> Text {
        let raw = Rc::into_raw(Rc::new(text)).cast_mut();
        // `Rc::into_raw` never returns null; its alignment clears the low bit.
        let ptr = NonNull::new(raw).unwrap_or(NonNull::dangling());
        Text { ptr }
    }

    #[inline]
    fn repr(&self) -> Repr<'_> {
        let addr = self.ptr.as_ptr().addr();
        if addr & 1 == 1 {
            // Only `Text::sym` sets the low bit, from a symbol's id (below 2^31, so the
            // shifted id fits in a word and shifting back gives it whole).
            Repr::Sym(Symbol::from_id((addr >> 1) as u32))
        } else {
            // SAFETY: an even pointer came from `Rc::into_raw` in `owned` and this `Text`
            // holds one strong count, so the `Box<str>` lives at least as long as `self`.
            Repr::Owned(unsafe { &*self.ptr.as_ptr() })
        }
    }

    /// The text of a string made at run time: the symbol when `text` is already interned,
    /// otherwise a fresh reference-counted string. Never adds to the symbol table.
    pub fn new(text: &str) -> Text {
        match Symbol::get(text) {
            Some(s) => Text::sym(s),
            None => Text::owned(text.into()),
        }
    }

    /// [`Text::new`] for a string already built (not copied again when not interned).
    pub fn from_string(text: String) -> Text {
        match Symbol::get(&text) {
            Some(s) => Text::sym(s),
            None => Text::owned(text.into_boxed_str()),
        }
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match self.repr() {
            Repr::Sym(s) => s.as_str(),
            Repr::Owned(t) => t,
        }
    }

    /// The symbol this text is held as, if it is held as one (no lookup).
    #[inline]
    pub fn as_symbol(&self) -> Option<Symbol> {
        match self.repr() {
            Repr::Sym(s) => Some(s),
            Repr::Owned(_) => None,
        }
    }

    /// The symbol of this text if the text is interned (a lookup, never an insertion).
    #[inline]
    pub fn symbol(&self) -> Option<Symbol> {
        match self.repr() {
            Repr::Sym(s) => Some(s),
            Repr::Owned(t) => Symbol::get(t),
        }
    }

    /// The symbol of this text, interning it: for a string used as a name (a message
    /// label, a property, state, entity or type name, a signal), which is kept for the
    /// life of the process like every name.
    pub fn intern(&self) -> Symbol {
        match self.repr() {
            Repr::Sym(s) => s,
            Repr::Owned(t) => Symbol::intern(t),
        }
    }

    /// A copy that shares no reference count with `self`: a symbol's text is itself, a
    /// string made at run time is copied.
    pub fn private_copy(&self) -> Text {
        match self.repr() {
            Repr::Sym(_) => self.clone(),
            Repr::Owned(t) => Text::owned(t.into()),
        }
    }

    /// Whether this is a symbol's text (a word with nothing to count or free).
    #[inline(always)]
    pub fn is_symbol(&self) -> bool {
        self.ptr.as_ptr().addr() & 1 == 1
    }

    /// The byte of a one-character ASCII text held as its symbol (those symbols are
    /// numbered by their byte), without reading the text; `None` for any other text.
    #[inline]
    pub fn ascii_byte(&self) -> Option<u8> {
        self.as_symbol()
            .and_then(|s| u8::try_from(s.id()).ok())
            .filter(u8::is_ascii)
    }

    /// Whether this is the text of `sym`.
    #[inline]
    pub fn is(&self, sym: Symbol) -> bool {
        match self.repr() {
            Repr::Sym(s) => s == sym,
            Repr::Owned(t) => t == sym.as_str(),
        }
    }
}

impl Clone for Text {
    #[inline]
    fn clone(&self) -> Text {
        if self.ptr.as_ptr().addr() & 1 == 0 {
            // SAFETY: an even pointer came from `Rc::into_raw` and `self` holds a count.
            unsafe { Rc::increment_strong_count(self.ptr.as_ptr().cast_const()) };
        }
        Text { ptr: self.ptr }
    }
}

impl Drop for Text {
    #[inline]
    fn drop(&mut self) {
        if self.ptr.as_ptr().addr() & 1 == 0 {
            // SAFETY: an even pointer came from `Rc::into_raw`; this `Text` gives back the
            // one count it held.
            drop(unsafe { Rc::from_raw(self.ptr.as_ptr().cast_const()) });
        }
    }
}

impl From<Symbol> for Text {
    #[inline]
    fn from(s: Symbol) -> Text {
        Text::sym(s)
    }
}

impl PartialEq for Text {
    /// One word compare when both are symbols (or the same string); the texts otherwise.
    #[inline(always)]
    fn eq(&self, other: &Text) -> bool {
        if self.ptr == other.ptr {
            return true;
        }
        // Two different symbols are two different texts.
        if self.ptr.as_ptr().addr() & other.ptr.as_ptr().addr() & 1 == 1 {
            return false;
        }
        texts_equal(self, other)
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

/// The order of two texts, one of them made at run time (kept out of line, as
/// `texts_equal`).
#[inline(never)]
fn texts_order(a: &Text, b: &Text) -> Ordering {
    a.as_str().cmp(b.as_str())
}

/// Whether two texts, one of them made at run time, are the same (kept out of line so the
/// symbol fast path of `==` stays small enough to inline everywhere).
#[inline(never)]
fn texts_equal(a: &Text, b: &Text) -> bool {
    a.as_str() == b.as_str()
}

impl Eq for Text {}

impl PartialEq<Symbol> for Text {
    #[inline]
    fn eq(&self, other: &Symbol) -> bool {
        self.is(*other)
    }
}

impl Ord for Text {
    #[inline]
    fn cmp(&self, other: &Text) -> Ordering {
        if self.ptr == other.ptr {
            return Ordering::Equal;
        }
        // Two symbols: their order is most often remembered (see `Symbol::cmp_text`).
        if let (Some(a), Some(b)) = (self.as_symbol(), other.as_symbol()) {
            return a.cmp_text(b);
        }
        texts_order(self, other)
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::hash::Hash for Text {
    /// By text, as equality is.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h);
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// A dictionary key: an integer or a string. Integers sort before strings; strings sort
/// by text.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Key {
    /// An integer key.
    Int(i64),
    /// A string key.
    Str(Text),
}

impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Int(a), Key::Int(b)) => a.cmp(b),
            (Key::Int(_), Key::Str(_)) => Ordering::Less,
            (Key::Str(_), Key::Int(_)) => Ordering::Greater,
            (Key::Str(a), Key::Str(b)) => a.cmp(b),
        }
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Key {
    /// A copy that shares no reference count with `self` (see [`Value::private_copy`]).
    pub fn private_copy(&self) -> Key {
        match self {
            Key::Int(i) => Key::Int(*i),
            Key::Str(t) => Key::Str(t.private_copy()),
        }
    }

    /// The key named by a symbol.
    #[inline]
    pub fn sym(s: Symbol) -> Key {
        Key::Str(Text::sym(s))
    }

    /// The key as a value.
    pub fn to_value(&self) -> Value {
        match self {
            Key::Int(i) => Value::Int(*i),
            Key::Str(s) => Value::Str(s.clone()),
        }
    }
}

/// A message value.
#[derive(Clone, PartialEq, Debug)]
pub struct Message {
    /// The label it is dispatched on.
    pub label: Symbol,
    /// Its attributes, in key order.
    pub attrs: Attrs,
}

impl Message {
    /// A message with label `label` and attributes `attrs`.
    pub fn new(label: Symbol, attrs: impl Into<Attrs>) -> Message {
        Message {
            label,
            attrs: attrs.into(),
        }
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
            Value::List(l) => Value::List(Rc::new(l.iter().map(Value::private_copy).collect())),
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

    /// The text `str` and `print` use: strings without quotes, the rest as displayed.
    pub fn to_text(&self) -> String {
        match self {
            Value::Str(s) => s.as_str().to_string(),
            other => other.to_string(),
        }
    }

    /// The JSON form (`--json`): nil is null, dictionaries are objects with string keys,
    /// messages are `{"label": ..., "attributes": {...}}`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Nil => J::Null,
            Value::Bool(b) => J::Bool(b.get()),
            Value::Int(i) => J::from(*i),
            Value::Float(x) => serde_json::Number::from_f64(x.get()).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.as_str().to_string()),
            Value::List(l) => J::Array(l.iter().map(Value::to_json).collect()),
            Value::Dict(d) => dict_json(d),
            Value::Message(m) => {
                let mut o = serde_json::Map::new();
                o.insert("label".into(), J::String(m.label.as_str().to_string()));
                o.insert("attributes".into(), entries_json(m.attrs.iter()));
                J::Object(o)
            }
        }
    }
}

fn dict_json(d: &Dict) -> serde_json::Value {
    entries_json(d.iter())
}

fn entries_json<'a>(entries: impl Iterator<Item = (&'a Key, &'a Value)>) -> serde_json::Value {
    serde_json::Value::Object(entries.map(|(k, v)| (key_text(k), v.to_json())).collect())
}

fn key_text(k: &Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => s.as_str().to_string(),
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

/// The most characters (bytes) the display form of one value takes when shown to people
/// (`{}` of a value: REPL results, property listings, traces, diagnostics). A value that
/// shares its parts (a list doubled by `concat` 60 times) is small in memory but would be
/// enormous written out; past this it is cut with an ellipsis saying how many elements
/// were left out. `str`, `print` and `notify` in a game write the whole text
/// ([`Value::write_text`]), bounded by the transaction's length limit instead.
pub const DISPLAY_CAP: usize = 100_000;

/// The most bytes of JSON one `--json` document may hold ([`Value::to_json_within`]).
pub const JSON_CAP: usize = 64 << 20;

impl Value {
    /// Write the display form (see [`fmt::Display`]) to `out`, all of it: a writer that
    /// refuses more text stops it with an error. When it stops inside collections, the
    /// elements not started are added to `left_out`.
    pub fn write_text(&self, out: &mut dyn fmt::Write, left_out: &mut u64) -> fmt::Result {
        match self {
            Value::Nil => out.write_str("nil"),
            Value::Bool(b) => out.write_str(if b.get() { "true" } else { "false" }),
            Value::Int(i) => write!(out, "{i}"),
            Value::Float(x) => {
                if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
                    write!(out, "{x:.1}")
                } else {
                    write!(out, "{x}")
                }
            }
            Value::Str(s) => write!(out, "{:?}", s.as_str()),
            Value::List(l) => {
                out.write_str("(")?;
                for (i, v) in l.iter().enumerate() {
                    let r = if i > 0 { out.write_str(" ") } else { Ok(()) }
                        .and_then(|()| v.write_text(out, left_out));
                    if r.is_err() {
                        *left_out += (l.len() - i - 1) as u64;
                        return r;
                    }
                }
                out.write_str(")")
            }
            Value::Dict(d) => {
                out.write_str("{")?;
                write_attrs(out, d.iter(), d.len(), left_out)?;
                out.write_str("}")
            }
            Value::Message(m) => {
                write!(out, "<{}", m.label)?;
                if !m.attrs.is_empty() {
                    out.write_str(" ")?;
                    write_attrs(out, m.attrs.iter(), m.attrs.len(), left_out)?;
                }
                out.write_str(">")
            }
        }
    }

    /// The JSON form ([`Value::to_json`]) if it takes at most `budget` bytes (counted
    /// roughly, never less than it takes), which is reduced by what it takes; `None`
    /// (and the budget spent) when it would take more. The walk stops there, so a huge
    /// shared value costs no more than the budget.
    pub fn to_json_within(&self, budget: &mut usize) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        let mut take = |n: usize| -> Option<()> {
            *budget = budget.checked_sub(n)?;
            Some(())
        };
        Some(match self {
            Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Float(_) => {
                take(24)?;
                self.to_json()
            }
            Value::Str(s) => {
                // Escapes can take up to six bytes a byte.
                take(2 + 6 * s.as_str().len())?;
                J::String(s.as_str().to_string())
            }
            Value::List(l) => {
                take(2 + l.len())?;
                let mut items = Vec::new();
                for v in l.iter() {
                    items.push(v.to_json_within(budget)?);
                }
                J::Array(items)
            }
            Value::Dict(d) => dict_json_within(d.iter(), budget)?,
            Value::Message(m) => {
                take(32 + 6 * m.label.as_str().len())?;
                let mut o = serde_json::Map::new();
                o.insert("label".into(), J::String(m.label.as_str().to_string()));
                o.insert(
                    "attributes".into(),
                    dict_json_within(m.attrs.iter(), budget)?,
                );
                J::Object(o)
            }
        })
    }
}

fn dict_json_within<'a>(
    entries: impl ExactSizeIterator<Item = (&'a Key, &'a Value)>,
    budget: &mut usize,
) -> Option<serde_json::Value> {
    *budget = budget.checked_sub(2 + 2 * entries.len())?;
    let mut o = serde_json::Map::new();
    for (k, v) in entries {
        let key = key_text(k);
        *budget = budget.checked_sub(2 + 6 * key.len())?;
        o.insert(key, v.to_json_within(budget)?);
    }
    Some(serde_json::Value::Object(o))
}

/// A writer that takes at most `left` more bytes (cut at a character boundary), then
/// refuses with `cut` set.
struct Capped<'a, 'b> {
    out: &'a mut fmt::Formatter<'b>,
    left: usize,
    cut: bool,
}

impl fmt::Write for Capped<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() <= self.left {
            self.left -= s.len();
            return self.out.write_str(s);
        }
        let mut n = self.left;
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.out.write_str(&s[..n])?;
        self.left = 0;
        self.cut = true;
        Err(fmt::Error)
    }
}

impl fmt::Display for Value {
    /// The display form: lists as `(1 2 3)`, dictionaries as `{"a" 1, 2 3}`, messages as
    /// `<label "k" v>`, strings in quotes; at most [`DISPLAY_CAP`] bytes, then `…` and
    /// how much was left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Capped {
            out: &mut *f,
            left: DISPLAY_CAP,
            cut: false,
        };
        let mut left_out = 0u64;
        match self.write_text(&mut out, &mut left_out) {
            Ok(()) => Ok(()),
            Err(e) if !out.cut => Err(e),
            Err(_) if left_out == 0 => write!(f, "… (cut at {DISPLAY_CAP} characters)"),
            Err(_) => write!(
                f,
                "… (cut at {DISPLAY_CAP} characters; {left_out} more elements not shown)"
            ),
        }
    }
}

fn write_attrs<'a>(
    out: &mut dyn fmt::Write,
    entries: impl Iterator<Item = (&'a Key, &'a Value)>,
    len: usize,
    left_out: &mut u64,
) -> fmt::Result {
    for (i, (k, v)) in entries.enumerate() {
        let r = if i > 0 { out.write_str(", ") } else { Ok(()) }
            .and_then(|()| k.to_value().write_text(out, left_out))
            .and_then(|()| out.write_str(" "))
            .and_then(|()| v.write_text(out, left_out));
        if r.is_err() {
            *left_out += (len - i - 1) as u64;
            return r;
        }
    }
    Ok(())
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
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
    fn one_character_ascii_texts_know_their_byte() {
        assert_eq!(Text::new("K").ascii_byte(), Some(b'K'));
        assert_eq!(Text::sym(Symbol::intern("~")).ascii_byte(), Some(b'~'));
        assert_eq!(Text::new("KQ").ascii_byte(), None);
        assert_eq!(Text::new("é").ascii_byte(), None);
        assert_eq!(Text::new("").ascii_byte(), None);
    }

    #[test]
    fn run_time_strings_are_symbols_only_when_already_interned() {
        let known = Symbol::intern("value-test-known");
        assert!(Text::new("value-test-known").as_symbol() == Some(known));
        let fresh = Text::new("value-test-fresh-text");
        assert_eq!(fresh.as_symbol(), None);
        assert_eq!(
            Symbol::get("value-test-fresh-text"),
            None,
            "nothing was interned"
        );
        assert_eq!(fresh.as_str(), "value-test-fresh-text");
        let copy = fresh.clone();
        assert!(copy == fresh);
        drop(fresh);
        assert_eq!(copy.as_str(), "value-test-fresh-text");
    }

    #[test]
    fn a_run_time_string_and_a_symbol_of_the_same_text_are_the_same_string() {
        use std::hash::{BuildHasher, RandomState};
        // The text is interned after the run-time string was made (a REPL line can do
        // that): the two forms must still be one string everywhere.
        let made = Text::new("value-test-interned-later");
        let later = Symbol::intern("value-test-interned-later");
        let sym = Text::sym(later);
        assert_eq!(made.as_symbol(), None);
        assert_eq!(made.symbol(), Some(later));
        assert!(made == sym);
        assert!(sym == made);
        assert!(made.is(later));
        assert_eq!(made.cmp(&sym), Ordering::Equal);
        let h = RandomState::new();
        assert_eq!(h.hash_one(&made), h.hash_one(&sym));
        let (a, b) = (Value::Str(made.clone()), Value::sym(later));
        assert_eq!(a, b);
        assert_eq!(a.compare(&b), Ordering::Equal);
        let mut d = Dict::new();
        d.insert(Key::Str(made), Value::Int(1));
        d.insert(Key::sym(later), Value::Int(2));
        assert_eq!(d.len(), 1);
        assert_eq!(d.get(&Key::sym(later)), Some(&Value::Int(2)));
        // Order is by text whichever form each side has.
        let z = Value::str("value-test-zzz-not-interned");
        assert_eq!(b.compare(&z), Ordering::Less);
        assert_eq!(z.compare(&b), Ordering::Greater);
        assert_eq!(a.to_string(), "\"value-test-interned-later\"");
    }

    #[test]
    fn integers_equal_floats_of_the_same_value() {
        assert_eq!(Value::Int(1), Value::float(1.0));
        assert_ne!(Value::Int(1), Value::float(1.5));
        assert_ne!(Value::Int(1), Value::str("1"));
    }

    #[test]
    fn keys_sort_integers_first_then_text() {
        let mut keys = [
            Key::sym(Symbol::intern("b")),
            Key::Int(3),
            Key::sym(Symbol::intern("a")),
            Key::Int(-1),
        ];
        keys.sort();
        let shown: Vec<String> = keys.iter().map(|k| k.to_value().to_text()).collect();
        assert_eq!(shown, ["-1", "3", "a", "b"]);
    }

    #[test]
    fn display_forms() {
        let l = Value::list(List::from_vec(vec![
            Value::Int(1),
            Value::str("x"),
            Value::float(2.0),
        ]));
        assert_eq!(l.to_string(), "(1 \"x\" 2.0)");
        assert_eq!(Value::str("x").to_text(), "x");
    }
}
