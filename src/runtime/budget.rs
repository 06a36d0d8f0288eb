//! The limits of one transaction and the [`Meter`] that holds it to them.
//!
//! Every limit turns a runaway or hostile program into an error of the transaction (which
//! then leaves the world as it was), never into a hang, an abort or an out-of-memory kill:
//!
//! - *steps*: instructions, plus the work builtins do in proportion to what they walk (one
//!   step per element compared, copied, summed or printed, and one per [`TEXT_STEP`] bytes
//!   of text compared, ordered or looked for: see [`texts_equal_within`]);
//! - *depth*: join points and function calls open at once;
//! - *nesting*: how deep values nest (a list in a list in ...). Checked when a value is put
//!   into a collection or a message, so every value stays shallow enough for the recursive
//!   walks (drop, compare, print, serialise) to be bounded by this limit;
//! - *length*: elements of one list or dictionary, bytes of one string;
//! - *memory*: bytes of the values a transaction makes, the entities it creates, the
//!   graphics it draws and the output it buffers, counted as they are made (a
//!   deterministic measure, not the allocator's, made to stay within a small factor of
//!   what the process really holds: see [`ENTITY_BYTES`], [`LINE_BYTES`],
//!   [`GRAPHIC_BYTES`]).
//!
//! The checks are a compare and an add each; the walks they charge for are the ones the
//! builtin does anyway.

use std::cmp::Ordering;

use super::builtin_error::BuiltinError;
pub use super::value::TEXT_STEP;
use super::value::{Dict, Key, List, Text, Value, common_start};

/// Limits on one transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Instructions (and builtin work) a transaction may execute.
    pub max_steps: u64,
    /// Frames (join points and function calls) that may be open at once.
    pub max_depth: usize,
    /// How deep values may nest.
    pub max_nesting: usize,
    /// Elements of a list or dictionary, bytes of a string.
    pub max_length: usize,
    /// Bytes of values made, entities created, graphics drawn and output buffered by one
    /// transaction. The default, 512 MiB, keeps a process that runs one transaction at a
    /// time (and a REPL's history, bounded apart) well under 2 GB.
    pub max_memory: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 200_000_000,
            max_depth: 1_000_000,
            max_nesting: 256,
            max_length: 10_000_000,
            max_memory: 1 << 29,
        }
    }
}

/// Bytes counted for one element of a list.
pub const ELEMENT_BYTES: u64 = 16;
/// Bytes counted for one entry of a dictionary or message.
pub const ENTRY_BYTES: u64 = 32;
/// Bytes counted for one entity created (plus the bytes of its name and
/// [`ELEMENT_BYTES`] per property beyond those kept inline): its shared allocation
/// (reference counts, name, type, state, inline properties), its slot in the world's
/// trie and its share of the trie's nodes, its entry in the map of names, and the name's
/// entry in the process's table of names. Measured: about 290 bytes of resident memory
/// per entity created by a loop of `new entity`.
pub const ENTITY_BYTES: u64 = 288;
/// Bytes counted for one line of output buffered by `print` or `notify`, beyond the
/// [`ELEMENT_BYTES`] and bytes its text is counted as made: its own allocation's
/// overhead and its place in the transaction's output (the bytes of the line are counted
/// once more, for the copy of it the REPL or `run` shows). Measured: about 63 bytes of
/// resident memory per one-byte line buffered, against 66 counted. (Under `run --json`
/// a line takes some 700 bytes more; that document has its own bound.)
pub const LINE_BYTES: u64 = 48;
/// The longest name (an entity, property, state or type name, a message label, a
/// signal, a graphic id) a string made at run time or typed by a person may become:
/// interning hashes and keeps the text for the life of the process, so its work and
/// memory stay bounded by this.
pub const MAX_NAME_BYTES: usize = 1024;
/// Bytes counted for one graphic drawn by `new graphic` (plus [`ENTRY_BYTES`] per
/// attribute and the bytes of its id): its place among the canvas's graphics, its id and
/// owner, its attribute map and its click hook.
pub const GRAPHIC_BYTES: u64 = 256;

/// What one transaction has used so far, against its limits.
#[derive(Clone, Debug)]
pub struct Meter {
    /// Steps taken (instructions and builtin work).
    pub steps: u64,
    /// Bytes counted.
    pub memory: u64,
    /// The limits.
    pub limits: Limits,
}

impl Meter {
    /// A fresh meter.
    pub fn new(limits: Limits) -> Meter {
        Meter {
            steps: 0,
            memory: 0,
            limits,
        }
    }

    /// Count `work` steps; fails when that passes the step limit.
    #[inline(always)]
    pub fn work(&mut self, work: usize) -> Result<(), BuiltinError> {
        self.steps = self.steps.saturating_add(work as u64);
        if self.steps > self.limits.max_steps {
            return Err(self.step_error());
        }
        Ok(())
    }

    /// The error of a transaction that ran out of steps.
    #[cold]
    #[inline(never)]
    pub fn step_error(&self) -> BuiltinError {
        BuiltinError::new(format!(
            "step limit reached: the transaction ran {} instructions",
            self.limits.max_steps
        ))
        .with_hint("an endless loop or message cycle? raise the limit with --max-steps")
    }

    /// Count `bytes` of memory; fails when that passes the memory limit.
    #[inline(always)]
    pub fn alloc(&mut self, bytes: u64) -> Result<(), BuiltinError> {
        self.memory = self.memory.saturating_add(bytes);
        if self.memory > self.limits.max_memory {
            return Err(self.memory_error());
        }
        Ok(())
    }

    /// Whether [`Meter::alloc`] of `bytes` would stay within the limit (nothing charged).
    #[inline(always)]
    pub fn fits(&self, bytes: u64) -> bool {
        self.memory.saturating_add(bytes) <= self.limits.max_memory
    }

    #[cold]
    #[inline(never)]
    fn memory_error(&self) -> BuiltinError {
        BuiltinError::new(format!(
            "memory limit reached: the transaction made more than {} bytes of values and output",
            self.limits.max_memory
        ))
        .with_hint("a collection or string growing without end? raise the limit with --max-memory")
    }

    /// Check that a collection of `len` elements may exist (`what` names it, e.g.
    /// "`append`: the list").
    #[inline(always)]
    pub fn length(&self, len: usize, what: &str) -> Result<(), BuiltinError> {
        if len > self.limits.max_length {
            return Err(self.too_many(len, what));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_many(&self, len: usize, what: &str) -> BuiltinError {
        self.too_long(
            what,
            &format!("{len} elements (at most {})", self.limits.max_length),
        )
    }

    /// The error of a collection or string longer than the length limit (`size` says
    /// how long, e.g. "12000000 elements", "more than 1000 bytes").
    pub fn too_long(&self, what: &str, size: &str) -> BuiltinError {
        BuiltinError::new(format!("{what} would have {size}, past the length limit",))
            .with_hint("raise the limit with --max-length")
    }

    /// Check that `v` may be put into a collection or message (its nesting plus one stays
    /// within the limit), counting the walk.
    #[inline(always)]
    pub fn nest(&mut self, v: &Value) -> Result<(), BuiltinError> {
        self.nest_depth(v).map(|_| ())
    }

    /// [`Meter::nest`], giving how deep `v` nests (0 for a scalar, 1 for a collection of
    /// scalars ...), or a bound on it that is within the limit.
    ///
    /// A list carries such a bound (see [`List::depth`]), so checking a list costs a
    /// compare; a dictionary or message is walked, one step per value looked at (lists
    /// inside it are not walked when their bound is low enough). A list whose bound is
    /// past the limit (it once held something deeper, or holds unmeasured dictionaries)
    /// is walked too, and keeps the depth found.
    #[inline(always)]
    pub fn nest_depth(&mut self, v: &Value) -> Result<u32, BuiltinError> {
        if !is_collection(v) {
            return Ok(0);
        }
        match v {
            // `v` may nest at most `max - 1` deep: the collection it goes into adds one.
            Value::List(l) if (l.depth() as usize) < self.limits.max_nesting => Ok(l.depth()),
            // The usual message, of scalars: one step per attribute, no walk to set up.
            Value::Message(m)
                if self.limits.max_nesting > 1 && !m.attrs.values().any(is_collection) =>
            {
                self.work(m.attrs.len())?;
                Ok(1)
            }
            _ => self.nest_walk(v),
        }
    }

    #[inline(never)]
    fn nest_walk(&mut self, v: &Value) -> Result<u32, BuiltinError> {
        let limit = u32::try_from(self.limits.max_nesting.saturating_sub(1)).unwrap_or(u32::MAX);
        let mut visited = 0usize;
        let depth = depth_within(v, limit, &mut visited);
        self.work(visited)?;
        depth.ok_or_else(|| self.too_deep())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> BuiltinError {
        BuiltinError::new(format!(
            "values may nest at most {} deep (a list in a list ...)",
            self.limits.max_nesting
        ))
        .with_hint("raise the limit with --max-nesting")
    }

    /// Equality that counts one step per element of the collections it looks at (two
    /// scalars are compared within the step of the instruction that compares them, but
    /// for long texts: see [`texts_equal_within`]).
    #[inline(always)]
    pub fn equal(&mut self, a: &Value, b: &Value) -> Result<bool, BuiltinError> {
        if !is_collection(a) {
            // Not a collection: one step, already counted by the instruction.
            return match equal_in_step(a, b) {
                Some(same) => Ok(same),
                None => self.equal_long_texts(a, b),
            };
        }
        self.equal_collections(a, b)
    }

    /// [`Meter::equal`] of two texts of the same length of at least [`TEXT_STEP`] bytes.
    #[cold]
    #[inline(never)]
    fn equal_long_texts(&mut self, a: &Value, b: &Value) -> Result<bool, BuiltinError> {
        let mut left = self.remaining();
        let r = scalar_equal_within(a, b, &mut left);
        self.spend(left)?;
        r.ok_or_else(|| self.step_error())
    }

    /// The order of two texts, counting one step per [`TEXT_STEP`] bytes of the start
    /// they have in common (see [`texts_order_within`]).
    #[inline]
    pub fn order_texts(&mut self, x: &Text, y: &Text) -> Result<Ordering, BuiltinError> {
        if x.as_str().len().min(y.as_str().len()) < TEXT_STEP {
            return Ok(x.cmp(y));
        }
        self.order_long_texts(x, y)
    }

    #[cold]
    #[inline(never)]
    fn order_long_texts(&mut self, x: &Text, y: &Text) -> Result<Ordering, BuiltinError> {
        let mut left = self.remaining();
        let r = texts_order_within(x, y, &mut left);
        self.spend(left)?;
        r.ok_or_else(|| self.step_error())
    }

    /// Where the first string of `l` equal to the text `needle` of at least
    /// [`TEXT_STEP`] bytes is, counting each comparison as [`texts_equal_within`] does
    /// (the step of each element is counted by the caller).
    #[cold]
    #[inline(never)]
    pub fn find_long_text(
        &mut self,
        l: &List,
        needle: &Text,
    ) -> Result<Option<usize>, BuiltinError> {
        self.find_first(l, |v, left| match v {
            Value::Str(t) => texts_equal_within(t, needle, left),
            _ => Some(false),
        })
    }

    /// Where the first element of `l` that `same` finds equal to what is looked for is,
    /// `same` counting the steps it takes out of those left (`None`: they ran out, and
    /// the search fails with the step error).
    #[inline(always)]
    fn find_first(
        &mut self,
        l: &List,
        mut same: impl FnMut(&Value, &mut u64) -> Option<bool>,
    ) -> Result<Option<usize>, BuiltinError> {
        let mut left = self.remaining();
        let mut found = Ok(None);
        for (k, v) in l.iter().enumerate() {
            match same(v, &mut left) {
                Some(true) => {
                    found = Ok(Some(k));
                    break;
                }
                Some(false) => {}
                None => {
                    found = Err(());
                    break;
                }
            }
        }
        self.spend(left)?;
        found.map_err(|()| self.step_error())
    }

    /// Count the search of `key` among the `entries` keys of a dictionary: nothing for
    /// an integer or a string of fewer than [`TEXT_STEP`] bytes; for a longer string (made
    /// at run time, or a long name: compared as one word with the names among the keys,
    /// but by its bytes with the strings made at run time), one step per [`TEXT_STEP`] of
    /// its bytes for each key the search may compare it with ([`key_probes`]).
    #[inline]
    pub fn key(&mut self, key: &Key, entries: usize) -> Result<(), BuiltinError> {
        match key {
            Key::Str(t) => self.text_key(t, entries),
            Key::Int(_) => Ok(()),
        }
    }

    /// [`Meter::key`] of a text.
    #[inline]
    pub fn text_key(&mut self, t: &Text, entries: usize) -> Result<(), BuiltinError> {
        if t.is_symbol() {
            return self.name_key(t, entries);
        }
        if !t.is_long_made() {
            return Ok(());
        }
        self.long_key(t.as_str().len(), entries)
    }

    /// [`Meter::text_key`] of a name: its length is read from the symbol table.
    #[inline(never)]
    fn name_key(&mut self, t: &Text, entries: usize) -> Result<(), BuiltinError> {
        let len = t.as_str().len();
        if len < TEXT_STEP {
            return Ok(());
        }
        self.long_key(len, entries)
    }

    /// Count looking a string up among the names (hashing it): one step per
    /// [`TEXT_STEP`] of its bytes for a string made at run time (a name's text is
    /// hashed by number).
    #[inline]
    pub fn name_lookup(&mut self, t: &Text) -> Result<(), BuiltinError> {
        if !t.is_long_made() {
            return Ok(());
        }
        self.work(t.as_str().len() / TEXT_STEP)
    }

    #[cold]
    #[inline(never)]
    fn long_key(&mut self, len: usize, entries: usize) -> Result<(), BuiltinError> {
        self.work((len / TEXT_STEP).saturating_mul(key_probes(entries)))
    }

    /// [`Meter::equal`] when `a` is a collection.
    #[inline(never)]
    fn equal_collections(&mut self, a: &Value, b: &Value) -> Result<bool, BuiltinError> {
        let mut left = self.remaining();
        let r = equal_within(a, b, &mut left);
        self.spend(left)?;
        r.ok_or_else(|| self.step_error())
    }

    /// Where the first element of `l` equal to the collection `needle` is, counting as
    /// [`Meter::equal`] of each element and `needle` would (a scalar element is unequal
    /// within the step of the instruction), in one pass.
    pub fn find_collection(
        &mut self,
        l: &List,
        needle: &Value,
    ) -> Result<Option<usize>, BuiltinError> {
        let flat = match needle {
            Value::List(n) if n.depth() == 1 => n.as_slice(),
            _ => None,
        };
        self.find_first(l, |v, left| {
            if !is_collection(v) {
                return Some(false);
            }
            match (flat, v) {
                // A short list of scalars against another (a position among those seen):
                // [`equal_within`] without the calls, the same steps.
                (Some(b), Value::List(x)) if x.depth() == 1 && x.len() == b.len() => {
                    match x.as_slice() {
                        Some(a) if *left > 0 && !std::ptr::eq(a, b) => {
                            *left -= 1;
                            flat_equal(a, b, left)
                        }
                        _ => equal_within(v, needle, left),
                    }
                }
                _ => equal_within(v, needle, left),
            }
        })
    }

    /// [`Value::compare`] that counts one step per element it looks at; `None` (and the
    /// meter over its limit) when the steps ran out.
    pub fn compare(&mut self, a: &Value, b: &Value) -> Option<Ordering> {
        let mut left = self.remaining();
        let r = compare_within(a, b, &mut left);
        let _ = self.spend(left);
        r
    }

    /// The steps left before the limit.
    pub fn remaining(&self) -> u64 {
        self.limits.max_steps.saturating_sub(self.steps)
    }

    /// Record that only `left` of [`Meter::remaining`] steps are left.
    fn spend(&mut self, left: u64) -> Result<(), BuiltinError> {
        let used = self.remaining() - left.min(self.remaining());
        self.steps += used;
        if left == 0 {
            self.steps = self.limits.max_steps.saturating_add(1);
            return Err(self.step_error());
        }
        Ok(())
    }

    /// Whether the step limit has been passed.
    pub fn exhausted(&self) -> bool {
        self.steps > self.limits.max_steps
    }
}

/// How deep `v` nests (0 for a scalar) if at most `limit`, else `None`; counts each value
/// looked at in `visited`. A list whose depth bound is within what is left is not walked;
/// a list walked keeps the depth found. Recursion is bounded by `limit`.
fn depth_within(v: &Value, limit: u32, visited: &mut usize) -> Option<u32> {
    if limit == 0 {
        return None;
    }
    match v {
        Value::List(l) => {
            let d = children_depth(l.iter(), limit, visited)?;
            List::walked(l, d);
            Some(d)
        }
        Value::Dict(d) => children_depth(d.values(), limit, visited),
        Value::Message(m) => children_depth(m.attrs.values(), limit, visited),
        _ => Some(0),
    }
}

/// [`depth_within`] of a collection of `children` (`limit` is at least 1).
fn children_depth<'a>(
    children: impl Iterator<Item = &'a Value>,
    limit: u32,
    visited: &mut usize,
) -> Option<u32> {
    let mut deepest = 0;
    for c in children {
        *visited += 1;
        let d = match c {
            Value::List(l) if l.depth() < limit => l.depth(),
            Value::List(_) | Value::Dict(_) | Value::Message(_) => {
                depth_within(c, limit - 1, visited)?
            }
            _ => 0,
        };
        deepest = deepest.max(d);
    }
    Some(deepest + 1)
}

/// How many keys a search in a dictionary of `n` entries may compare the key it looks
/// for with, at most: the short vectors (up to 32 entries, in a vector or a chunk) are
/// scanned, the rest halved, in the chunks and then in one chunk.
pub fn key_probes(n: usize) -> usize {
    let halvings = (usize::BITS - n.leading_zeros()) as usize;
    n.min(32) + 2 * halvings + 1
}

/// `a == b` when `a` is not a collection and the answer needs no text compared past the
/// step of the instruction ([`Text::eq_in_step`]); `None` for a collection `a`, or two
/// texts of the same length of at least [`TEXT_STEP`] bytes. Out of line, as the
/// equality of values it stands for, so the instruction loop's fast paths stay small.
#[inline(never)]
pub fn equal_in_step(a: &Value, b: &Value) -> Option<bool> {
    match (a, b) {
        (Value::List(_) | Value::Dict(_) | Value::Message(_), _) => None,
        (Value::Str(x), Value::Str(y)) => x.eq_in_step(y),
        _ => Some(a == b),
    }
}

/// Equality of two texts with a step allowance: beyond [`Text::eq_in_step`], two texts
/// of the same length are compared byte by byte, one step per [`TEXT_STEP`] bytes of the
/// start they have in common (all of it when they are equal); `None` when the steps ran
/// out, before the bytes past them are read.
pub fn texts_equal_within(x: &Text, y: &Text, left: &mut u64) -> Option<bool> {
    match x.eq_in_step(y) {
        Some(same) => Some(same),
        None => {
            let a = x.as_str();
            Some(common_start_within(a, y.as_str(), left)? == a.len())
        }
    }
}

/// The order of two texts with a step allowance: one step per [`TEXT_STEP`] bytes of
/// the start they have in common, whichever way they are held; `None` when the steps ran
/// out.
pub fn texts_order_within(x: &Text, y: &Text, left: &mut u64) -> Option<Ordering> {
    let (a, b) = (x.as_str(), y.as_str());
    if a.len().min(b.len()) < TEXT_STEP {
        return Some(x.cmp(y));
    }
    let p = common_start_within(a, b, left)?;
    Some(match (a.as_bytes().get(p), b.as_bytes().get(p)) {
        (Some(c), Some(d)) => c.cmp(d),
        _ => a.len().cmp(&b.len()),
    })
}

/// How many bytes `a` and `b` have in common at their start, taking one step per
/// [`TEXT_STEP`] of them from `left`; `None` (and nothing left) when there are not
/// enough, found without reading much past what they pay for.
fn common_start_within(a: &str, b: &str, left: &mut u64) -> Option<usize> {
    let max = usize::try_from(*left)
        .unwrap_or(usize::MAX)
        .saturating_mul(TEXT_STEP)
        .saturating_add(TEXT_STEP - 1);
    match common_start(a, b, max) {
        Some(p) => {
            *left -= (p / TEXT_STEP) as u64;
            Some(p)
        }
        None => {
            *left = 0;
            None
        }
    }
}

/// [`scalar_eq`] with a step allowance for long texts ([`texts_equal_within`]).
#[inline]
fn scalar_equal_within(p: &Value, q: &Value, left: &mut u64) -> Option<bool> {
    match (p, q) {
        (Value::Str(x), Value::Str(y)) => texts_equal_within(x, y, left),
        _ => Some(scalar_eq(p, q)),
    }
}

/// Whether `v` is a list, dictionary or message.
#[inline(always)]
pub fn is_collection(v: &Value) -> bool {
    matches!(v, Value::List(_) | Value::Dict(_) | Value::Message(_))
}

/// `==` of two values of which at least one is a scalar, with integers first.
#[inline(always)]
pub fn scalar_eq(p: &Value, q: &Value) -> bool {
    match (p, q) {
        (Value::Int(a), Value::Int(b)) => a == b,
        _ => p == q,
    }
}

/// Take one step from `left`; false when none was left.
#[inline]
fn step(left: &mut u64) -> bool {
    if *left == 0 {
        return false;
    }
    *left -= 1;
    true
}

/// Structural equality ([`Value`]'s `==`) with a step allowance; `None` when it ran out.
/// Recursion is bounded by the nesting of the values.
pub fn equal_within(a: &Value, b: &Value, left: &mut u64) -> Option<bool> {
    if !step(left) {
        return None;
    }
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            if std::rc::Rc::ptr_eq(x, y) {
                return Some(true);
            }
            lists_equal(x, y, left)
        }
        (Value::Dict(x), Value::Dict(y)) => {
            if std::rc::Rc::ptr_eq(x, y) {
                return Some(true);
            }
            dicts_equal(x, y, left)
        }
        (Value::Message(x), Value::Message(y)) => {
            if std::rc::Rc::ptr_eq(x, y) {
                return Some(true);
            }
            if x.label != y.label {
                return Some(false);
            }
            if x.attrs.len() != y.attrs.len() {
                return Some(false);
            }
            entries_equal(x.attrs.iter(), y.attrs.iter(), left)
        }
        _ => Some(a == b),
    }
}

fn lists_equal(x: &List, y: &List, left: &mut u64) -> Option<bool> {
    if x.len() != y.len() {
        return Some(false);
    }
    if let (Some(a), Some(b)) = (x.as_slice(), y.as_slice()) {
        if x.depth() == 1 && y.depth() == 1 {
            return flat_equal(a, b, left);
        }
        return pairs_equal(a.iter().zip(b), left);
    }
    pairs_equal(x.iter().zip(y.iter()), left)
}

/// Equality of two short lists of scalars of the same length (a position, a move): one
/// pass, one step per pair looked at.
#[inline(always)]
fn flat_equal(a: &[Value], b: &[Value], left: &mut u64) -> Option<bool> {
    let mut looked = a.len();
    let mut same = true;
    for (k, (p, q)) in a.iter().zip(b).enumerate() {
        let eq = match (p, q) {
            (Value::Int(x), Value::Int(y)) => x == y,
            _ => match equal_in_step(p, q) {
                Some(eq) => eq,
                // Two long texts: compared as the general way compares them.
                None => return pairs_equal(a.iter().zip(b), left),
            },
        };
        if !eq {
            looked = k + 1;
            same = false;
            break;
        }
    }
    if looked as u64 > *left {
        *left = 0;
        return None;
    }
    *left -= looked as u64;
    Some(same)
}

/// Equality of the pairs of elements of two lists of the same length.
fn pairs_equal<'a>(
    pairs: impl Iterator<Item = (&'a Value, &'a Value)>,
    left: &mut u64,
) -> Option<bool> {
    for (p, q) in pairs {
        let same = match p {
            Value::List(_) | Value::Dict(_) | Value::Message(_) => equal_within(p, q, left)?,
            _ if step(left) => scalar_equal_within(p, q, left)?,
            _ => return None,
        };
        if !same {
            return Some(false);
        }
    }
    Some(true)
}

fn dicts_equal(x: &Dict, y: &Dict, left: &mut u64) -> Option<bool> {
    if x.len() != y.len() {
        return Some(false);
    }
    entries_equal(x.iter(), y.iter(), left)
}

/// Equality of two sequences of (key, value) entries of the same length, in order.
fn entries_equal<'a>(
    x: impl Iterator<Item = (&'a Key, &'a Value)>,
    y: impl Iterator<Item = (&'a Key, &'a Value)>,
    left: &mut u64,
) -> Option<bool> {
    for ((kp, p), (kq, q)) in x.zip(y) {
        let same_key = match (kp, kq) {
            (Key::Str(x), Key::Str(y)) => texts_equal_within(x, y, left)?,
            _ => kp == kq,
        };
        if !same_key || !equal_within(p, q, left)? {
            return Some(false);
        }
    }
    Some(true)
}

/// [`Value::compare`] with a step allowance; `None` when it ran out.
pub fn compare_within(a: &Value, b: &Value, left: &mut u64) -> Option<Ordering> {
    if !step(left) {
        return None;
    }
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match compare_within(p, q, left)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        (Value::Str(x), Value::Str(y)) => texts_order_within(x, y, left),
        _ => Some(a.compare_shallow(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> Value {
        let mut v = Value::Int(0);
        for _ in 0..depth {
            v = one(v);
        }
        v
    }

    /// A list of one element.
    fn one(v: Value) -> Value {
        Value::list(std::iter::once(v).collect())
    }

    #[test]
    fn list_depths_are_known_without_a_walk_and_stale_bounds_are_walked() {
        let mut m = Meter::new(Limits {
            max_nesting: 4,
            ..Limits::default()
        });
        let l = nested(3);
        assert_eq!(m.nest_depth(&l).ok(), Some(3));
        assert_eq!(m.steps, 0, "a list's depth is known");
        assert!(m.nest(&nested(4)).is_err());
        // A list that held something deep and no longer does: its bound is too high, a
        // walk finds it shallow and keeps what it found.
        let mut shrunk = List::new();
        shrunk.push_back(nested(3), 3);
        shrunk.push_back(Value::Int(1), 0);
        shrunk.pop_front();
        let shrunk = Value::list(shrunk);
        assert_eq!(m.nest_depth(&shrunk).ok(), Some(1));
        assert!(m.steps > 0);
        let steps = m.steps;
        assert_eq!(m.nest_depth(&shrunk).ok(), Some(1));
        assert_eq!(m.steps, steps, "walked once");
        // Dictionaries and messages are walked; the lists in them are not.
        let mut d = Dict::new();
        d.insert(Key::Int(1), nested(2));
        assert_eq!(m.nest_depth(&Value::dict(d.clone())).ok(), Some(3));
        d.insert(Key::Int(2), nested(3));
        assert!(m.nest(&Value::dict(d.clone())).is_err());
        // A list holding a dictionary nobody measured is walked.
        let unmeasured = one(Value::dict(d));
        assert!(m.nest(&unmeasured).is_err());
        assert!(m.nest(&one(unmeasured)).is_err());
    }

    #[test]
    fn finding_a_collection_counts_what_comparing_each_element_counts() {
        let flat = |xs: &[i64]| Value::list(xs.iter().map(|&x| Value::Int(x)).collect());
        let needle = flat(&[1, 2, 3, 4]);
        let nested = Value::list(vec![flat(&[1]), Value::Int(2)].into_iter().collect());
        let items: List = vec![
            flat(&[1, 2, 9, 4]),
            Value::Int(7),
            flat(&[1, 2]),
            nested.clone(),
            needle.clone(),
            flat(&[1, 2, 3, 4]),
        ]
        .into_iter()
        .collect();
        for target in [needle.clone(), flat(&[1, 2, 3, 4]), nested, flat(&[5])] {
            let mut one_pass = Meter::new(Limits::default());
            let found = one_pass.find_collection(&items, &target).ok().flatten();
            let mut each = Meter::new(Limits::default());
            let mut expected = None;
            for (k, v) in items.iter().enumerate() {
                if each.equal(v, &target) == Ok(true) {
                    expected = Some(k);
                    break;
                }
            }
            assert_eq!(found, expected, "{target}");
            assert_eq!(one_pass.steps, each.steps, "{target}");
        }
        // Out of steps part way: an error, as element by element.
        let mut m = Meter::new(Limits {
            max_steps: 6,
            ..Limits::default()
        });
        assert!(m.find_collection(&items, &needle).is_err());
    }

    #[test]
    fn nesting_is_checked_against_the_limit() {
        let mut m = Meter::new(Limits {
            max_nesting: 4,
            ..Limits::default()
        });
        assert!(m.nest(&nested(3)).is_ok());
        let e = m.nest(&nested(4)).unwrap_err();
        assert!(e.message.contains("at most 4 deep"), "{}", e.message);
    }

    /// A value at the highest nesting limit the command line allows (1024) can be
    /// printed, serialised, compared and dropped on a thread with a 4 MB stack (half of a
    /// main thread's), even unoptimised.
    #[test]
    fn values_at_the_nesting_limit_fit_a_small_stack() {
        let run = std::thread::Builder::new()
            .stack_size(4 << 20)
            .spawn(|| {
                let max = 1024;
                let limits = Limits {
                    max_nesting: max,
                    ..Limits::default()
                };
                let mut m = Meter::new(limits);
                let build = |m: &mut Meter| {
                    let mut v = Value::Int(0);
                    for k in 0..max {
                        m.nest(&v).expect("within the limit");
                        v = match k % 3 {
                            0 => one(v),
                            1 => {
                                let mut d = Dict::new();
                                d.insert(super::super::value::Key::Int(1), v);
                                Value::dict(d)
                            }
                            _ => {
                                let mut attrs = super::super::value::Attrs::new();
                                attrs.insert(super::super::value::Key::Int(1), v);
                                Value::Message(std::rc::Rc::new(super::super::value::Message {
                                    label: crate::symbol::Symbol::intern("m"),
                                    attrs,
                                }))
                            }
                        };
                    }
                    v
                };
                let v = build(&mut m);
                assert!(m.nest(&v).is_err());
                // Built separately: nothing is shared, so equality walks every level.
                let other = build(&mut m);
                let text = v.to_string();
                assert!(text.len() > max);
                let _ = v.to_json().to_string();
                assert_eq!(m.equal(&v, &other), Ok(true));
                assert!(v == other);
                let _ = v.compare(&other);
                drop((v, other));
            })
            .expect("thread starts");
        assert!(run.join().is_ok());
    }

    /// Two texts cost one step per 64 bytes of the start they have in common, whether
    /// compared for equality or order, and the walk stops where the steps run out.
    #[test]
    fn texts_are_counted_by_the_bytes_they_have_in_common() {
        let long = |tail: &str| Value::str(&format!("{}{tail}", "k".repeat(1000)));
        let (a, b, c) = (long("a"), long("a"), long("b"));
        let (Value::Str(x), Value::Str(y), Value::Str(z)) = (&a, &b, &c) else {
            unreachable!()
        };
        let mut m = Meter::new(Limits::default());
        assert_eq!(m.equal(&a, &b), Ok(true));
        assert_eq!(m.steps, 1001 / 64);
        assert_eq!(m.equal(&a, &c), Ok(false));
        assert_eq!(m.steps, 1001 / 64 + 1000 / 64);
        // The same string, or of another length: nothing to read.
        let before = m.steps;
        assert_eq!(m.equal(&a, &a), Ok(true));
        assert_eq!(m.equal(&a, &long("ab")), Ok(false));
        assert_eq!(m.steps, before);
        assert_eq!(m.order_texts(x, z), Ok(Ordering::Less));
        assert_eq!(m.order_texts(z, y), Ok(Ordering::Greater));
        assert_eq!(m.order_texts(x, y), Ok(Ordering::Equal));
        assert_eq!(m.steps, before + 2 * (1000 / 64) + 1001 / 64);
        let mut left = 3;
        assert_eq!(compare_within(&a, &c, &mut left), None);
        assert_eq!(left, 0);
        let mut m = Meter::new(Limits {
            max_steps: 10,
            ..Limits::default()
        });
        assert!(m.equal(&a, &b).is_err());
        assert!(m.exhausted());
        // Short texts: within the step, equal or not.
        let mut m = Meter::new(Limits::default());
        let short = Value::str(&"s".repeat(63));
        assert_eq!(m.equal(&short, &Value::str(&"s".repeat(63))), Ok(true));
        assert_eq!(m.steps, 0);
        assert_eq!(key_probes(0), 1);
        assert_eq!(key_probes(1), 4);
        assert_eq!(key_probes(1000), 32 + 20 + 1);
    }

    #[test]
    fn the_common_start_is_found_within_its_bound() {
        let a = "ab".repeat(5000);
        let mut b = a.clone();
        b.push('x');
        assert_eq!(common_start(&a, &b, usize::MAX), Some(10_000));
        let mut c = a.clone().into_bytes();
        c[7000] = b'z';
        let c = String::from_utf8(c).unwrap_or_default();
        assert_eq!(common_start(&a, &c, usize::MAX), Some(7000));
        assert_eq!(common_start(&a, &c, 6999), None);
        assert_eq!(common_start(&a, &c, 7000), Some(7000));
        assert_eq!(common_start("", &a, 0), Some(0));
    }

    #[test]
    fn equality_runs_out_of_steps_on_huge_shared_values() {
        let inner: List = (0..1000).map(Value::Int).collect();
        let mut other = inner.clone();
        other.push_back(Value::Int(0), 0);
        other.truncate(1000);
        let a = Value::list((0..1000).map(|_| Value::list(inner.clone())).collect());
        let b = Value::list((0..1000).map(|_| Value::list(other.clone())).collect());
        let mut m = Meter::new(Limits {
            max_steps: 10_000,
            ..Limits::default()
        });
        assert!(m.equal(&a, &b).is_err());
        let mut m = Meter::new(Limits::default());
        assert_eq!(m.equal(&a, &b), Ok(true));
        assert!(m.steps > 1_000_000);
    }
}
