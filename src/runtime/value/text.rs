//! The text of a string value ([`Text`]): an interned symbol or a reference-counted string
//! made at run time, in one word, compared, ordered and hashed by its text.

use std::cmp::Ordering;
use std::fmt;
use std::ptr::NonNull;
use std::rc::Rc;

use crate::symbol::Symbol;

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
    pub(super) ptr: NonNull<Box<str>>,
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

    pub(super) fn owned(text: Box<str>) -> Text {
        let raw = Rc::into_raw(Rc::new(text)).cast_mut();
        // `Rc::into_raw` never returns null; its alignment clears the low bit.
        let ptr = NonNull::new(raw).unwrap_or(NonNull::dangling());
        Text { ptr }
    }

    /// The text as one word, for code that keeps values as words (the `jit` feature):
    /// a symbol's tagged id, or a string's pointer with its count, which
    /// [`Text::from_word`] takes back.
    #[cfg(feature = "jit")]
    pub(crate) fn into_word(self) -> u64 {
        let this = std::mem::ManuallyDrop::new(self);
        this.ptr.as_ptr().expose_provenance() as u64
    }

    /// The text [`Text::into_word`] gave as `word`.
    ///
    /// # Safety
    /// `word` came from `into_word`, and the count it holds is given back once.
    #[cfg(feature = "jit")]
    pub(crate) unsafe fn from_word(word: u64) -> Text {
        let ptr = std::ptr::with_exposed_provenance_mut::<Box<str>>(word as usize);
        Text {
            ptr: NonNull::new(ptr).unwrap_or(NonNull::dangling()),
        }
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
    #[inline]
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

    /// Whether this is `sym` itself, held as a symbol (one compare; a text of the same
    /// letters made at run time is not).
    #[inline(always)]
    pub fn is_symbol_of(&self, sym: Symbol) -> bool {
        self.ptr.as_ptr().addr() == ((sym.id() as usize) << 1) | 1
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

/// Bytes of text looked at per step when strings are compared, ordered or looked for:
/// comparing two texts counts one step per this many bytes of the start they have in
/// common, so texts shorter than this are compared within the step of the instruction.
pub const TEXT_STEP: usize = 64;

impl Text {
    /// `self == other` when the answer needs no more than [`TEXT_STEP`] bytes of text
    /// looked at: the same string, two symbols, texts of different lengths or of fewer
    /// than [`TEXT_STEP`] bytes. `None` for two texts of the same length of at least
    /// [`TEXT_STEP`] bytes, whose comparison is counted ([`common_start`]).
    #[inline(always)]
    pub fn eq_in_step(&self, other: &Text) -> Option<bool> {
        if self.ptr == other.ptr {
            return Some(true);
        }
        if self.ptr.as_ptr().addr() & other.ptr.as_ptr().addr() & 1 == 1 {
            return Some(false);
        }
        texts_equal_in_step(self, other)
    }

    /// Whether the text has at least [`TEXT_STEP`] bytes (out of line: a symbol's
    /// length is a lookup in the table).
    #[inline(never)]
    pub fn is_long(&self) -> bool {
        self.as_str().len() >= TEXT_STEP
    }

    /// Whether this is a string made at run time (not a symbol) of at least
    /// [`TEXT_STEP`] bytes: a test of a bit and a length, no lookup.
    #[inline(always)]
    pub fn is_long_made(&self) -> bool {
        match self.repr() {
            Repr::Sym(_) => false,
            Repr::Owned(t) => t.len() >= TEXT_STEP,
        }
    }
}

/// [`Text::eq_in_step`] of two texts, one of them made at run time.
#[inline(never)]
fn texts_equal_in_step(a: &Text, b: &Text) -> Option<bool> {
    let (a, b) = (a.as_str(), b.as_str());
    if a.len() != b.len() {
        return Some(false);
    }
    if a.len() < TEXT_STEP {
        return Some(a == b);
    }
    None
}

/// How many bytes `a` and `b` have in common at their start, reading a little past `max`
/// bytes of each at most: `None` when that is more than `max`.
#[cold]
#[inline(never)]
pub fn common_start(a: &str, b: &str, max: usize) -> Option<usize> {
    const BLOCK: usize = 4096;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().min(b.len());
    let mut at = 0;
    while at < n {
        if at > max {
            return None;
        }
        let end = n.min(at + BLOCK);
        if a[at..end] != b[at..end] {
            let k = a[at..end]
                .iter()
                .zip(&b[at..end])
                .position(|(x, y)| x != y)
                .unwrap_or(end - at);
            at += k;
            break;
        }
        at = end;
    }
    (at <= max).then_some(at)
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
    #[inline]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::value::{Dict, Key, Value};

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
}
