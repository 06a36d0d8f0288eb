//! The list behind a list value.
//!
//! A short list (at most [`FLAT_MAX`] elements, nearly every list a game makes: a move, a
//! position key, a row of houses, the legal moves) is a plain vector: one allocation of exactly its size,
//! read by slice, copied by a loop. A longer one is a persistent imbl vector, so adding to
//! a long list someone else holds copies a chunk, not the list, and `concat` of a list
//! with itself shares instead of copying. Either way the value holds it behind an `Rc`:
//! copying a list value is a reference count, and updating one nobody else holds happens
//! in place.
//!
//! Every list also carries a bound on how deep it nests (1 for a list of scalars, one more
//! than its deepest element otherwise), kept as elements are added, so the transaction's
//! nesting check ([`crate::runtime::budget::Meter::nest_depth`]) of a list is a load and a
//! compare, not a walk. The bound is never below the true depth; it can be above it after
//! elements are taken out, in which case the check walks the list once and tightens it.

use std::fmt;
use std::iter::FusedIterator;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering as Relaxed};

use super::Value;

/// The longest list kept as a plain vector; longer ones are imbl vectors. Updating a
/// shared list copies it when flat (at most this many elements, a few times the 64 of
/// an imbl leaf, which is what imbl copies), and only a leaf and a path when a tree.
/// Long enough for the lists games make to stay flat and be read by index: a chess
/// position key (64 squares and a few more), the 361 points and the legal moves of a
/// 19×19 Go board (read through an imbl tree, an index costs about twenty times more).
pub const FLAT_MAX: usize = 512;

/// A list's bounds before an element was pushed ([`List::marks`]), which
/// [`List::unpush`] puts back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marks {
    depth: u32,
    plain: bool,
}

/// The depth bound of a list whose depth is not known (it holds a dictionary or message
/// that nobody has measured): the nesting check walks it.
pub const UNKNOWN_DEPTH: u32 = u32::MAX;

type Tree = imbl::Vector<Value>;

/// A list of values (see the module documentation).
pub struct List {
    items: Items,
    /// At least how deep the list nests ([`UNKNOWN_DEPTH`] when not known). Atomic only
    /// so a walk that finds the exact depth can lower it through a shared reference; the
    /// list's elements cannot change while it is shared.
    depth: AtomicU32,
    /// Whether every element is known to hold nothing (see [`Value::holds_nothing`]):
    /// then copying the list is one block copy and dropping it drops no element. `false`
    /// says nothing (not known, or an element holds something). Every change that adds an
    /// element clears it unless the element holds nothing; a copy that finds the list
    /// plain sets it on the copy.
    plain: AtomicBool,
}

#[derive(Clone)]
enum Items {
    Flat(Vec<Value>),
    Tree(Box<Tree>),
}

/// The depth bound a value adds to a list it is put into, without walking it: 0 for a
/// scalar, a list's bound, [`UNKNOWN_DEPTH`] for a dictionary or message.
#[inline]
pub fn depth_hint(v: &Value) -> u32 {
    match v {
        Value::List(l) => l.depth(),
        Value::Dict(_) | Value::Message(_) => UNKNOWN_DEPTH,
        _ => 0,
    }
}

/// The depth of a list holding an element of depth `d`.
#[inline]
fn above(d: u32) -> u32 {
    d.saturating_add(1)
}

thread_local! {
    static DEPTHS: std::cell::RefCell<DepthJournal> = const {
        std::cell::RefCell::new(DepthJournal { open: 0, entries: Vec::new() })
    };
}

/// The depth bounds walks lowered on this thread while a journal was open, with the bound
/// each list had before: a transaction run again from its start
/// (`runtime/vm/fast.rs`) puts them back first, so that its walks count the steps they
/// counted the first time. (A list keeps the depth a walk found so as not to walk it
/// again, and a walk counts its steps.)
pub struct DepthJournal {
    open: u32,
    entries: Vec<(std::rc::Weak<List>, u32)>,
}

impl DepthJournal {
    /// Open a journal on this thread (they nest): where its entries begin.
    pub fn open() -> usize {
        DEPTHS.with(|j| {
            let mut j = j.borrow_mut();
            j.open += 1;
            j.entries.len()
        })
    }

    /// Put back the bounds lowered since `mark`, last first.
    pub fn undo(mark: usize) {
        DEPTHS.with(|j| {
            let mut j = j.borrow_mut();
            while j.entries.len() > mark {
                if let Some((list, old)) = j.entries.pop()
                    && let Some(list) = list.upgrade()
                {
                    list.depth.store(old, Relaxed::Relaxed);
                }
            }
        });
    }

    /// Close the journal opened last; the entries go when no journal is open.
    pub fn close() {
        DEPTHS.with(|j| {
            let mut j = j.borrow_mut();
            j.open = j.open.saturating_sub(1);
            if j.open == 0 {
                j.entries.clear();
                if j.entries.capacity() > 4096 {
                    j.entries.shrink_to(4096);
                }
            }
        });
    }
}

impl List {
    /// An empty list.
    #[inline]
    pub fn new() -> List {
        List::with_depth(Vec::new(), 1)
    }

    /// The list of `items`, whose elements nest at most `depth - 1` deep (the caller
    /// measured them; a bound above the truth is allowed, below it is not).
    #[inline]
    pub fn with_depth(items: Vec<Value>, depth: u32) -> List {
        let items = if items.len() <= FLAT_MAX {
            Items::Flat(items)
        } else {
            Items::Tree(Box::new(items.into_iter().collect()))
        };
        List {
            items,
            depth: AtomicU32::new(depth.max(1)),
            plain: AtomicBool::new(false),
        }
    }

    /// The list of `items`, its depth bound taken from theirs (see [`depth_hint`]).
    pub fn from_vec(items: Vec<Value>) -> List {
        let depth = items.iter().map(depth_hint).max().map_or(1, above);
        List::with_depth(items, depth)
    }

    /// At least how deep the list nests; [`UNKNOWN_DEPTH`] when not known.
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth.load(Relaxed::Relaxed)
    }

    /// Record the exact depth a walk found (never raises the bound).
    pub(crate) fn found_depth(&self, depth: u32) {
        self.depth.fetch_min(depth.max(1), Relaxed::Relaxed);
    }

    /// Record the exact depth a walk of `list` found, as [`List::found_depth`] does, and
    /// note the bound it had in the journal when one is open ([`DepthJournal`]).
    pub(crate) fn walked(list: &Rc<List>, depth: u32) {
        let old = list.depth();
        if depth.max(1) < old {
            DEPTHS.with(|j| {
                let mut j = j.borrow_mut();
                if j.open > 0 {
                    j.entries.push((Rc::downgrade(list), old));
                }
            });
        }
        list.found_depth(depth);
    }

    /// Raise the bound for an element `v` of depth `d` added; the list is no longer known
    /// to be plain unless `v` holds nothing.
    #[inline]
    fn holds(&mut self, v: &Value, d: u32) {
        let depth = self.depth.get_mut();
        *depth = (*depth).max(above(d));
        if !v.holds_nothing() {
            *self.plain.get_mut() = false;
        }
    }

    /// How many elements.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.items {
            Items::Flat(v) => v.len(),
            Items::Tree(t) => t.len(),
        }
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<&Value> {
        match &self.items {
            Items::Flat(v) => v.get(index),
            Items::Tree(t) => t.get(index),
        }
    }

    /// The first element.
    #[inline]
    pub fn front(&self) -> Option<&Value> {
        self.get(0)
    }

    /// The last element.
    #[inline]
    pub fn back(&self) -> Option<&Value> {
        match &self.items {
            Items::Flat(v) => v.last(),
            Items::Tree(t) => t.back(),
        }
    }

    /// Whether every element is known to hold nothing.
    #[inline]
    fn is_plain(&self) -> bool {
        self.plain.load(Relaxed::Relaxed)
    }

    /// The elements in order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        match &self.items {
            Items::Flat(v) => Iter::Flat(v.iter()),
            Items::Tree(t) => Iter::Tree(t.iter()),
        }
    }

    /// The elements as one slice, when the list is short enough to be one.
    #[inline]
    pub fn as_slice(&self) -> Option<&[Value]> {
        match &self.items {
            Items::Flat(v) => Some(v),
            Items::Tree(_) => None,
        }
    }

    /// The elements as consecutive slices, in order.
    pub fn chunks(&self) -> impl Iterator<Item = &[Value]> {
        let (flat, tree) = match &self.items {
            Items::Flat(v) => (Some(v.as_slice()), None),
            Items::Tree(t) => (None, Some(t.leaves())),
        };
        flat.into_iter().chain(tree.into_iter().flatten())
    }

    /// The list in `this`, to update: in place when nobody else holds it, otherwise a
    /// copy (with room for `extra` more elements) that replaces it in `this`.
    #[inline]
    pub fn make_mut(this: &mut Rc<List>, extra: usize) -> &mut List {
        super::unique_or_copy(this, |l| l.copy_with_room(extra))
    }

    #[inline]
    fn copy_with_room(&self, extra: usize) -> List {
        let mut plain = self.is_plain();
        let items = match &self.items {
            Items::Flat(v) => {
                // Known plain (a board copied to be changed by names and nils, then
                // copied again), or found so by a walk: the copy is known plain too.
                plain = plain || v.iter().all(Value::holds_nothing);
                if !plain {
                    // Lists among the elements (groups of cells, pairs): each copied
                    // inline, without a call per element.
                    Items::Flat(Value::copy_all(v, extra))
                } else {
                    let mut copy = Vec::with_capacity(v.len() + extra);
                    // A list of numbers and names (a board): copied as one block.
                    // SAFETY: `copy` has room for `v.len()` values, and a value that
                    // holds nothing is its bits (see `Value::holds_nothing`): the copies
                    // are values in their own right, the originals keep theirs.
                    unsafe {
                        std::ptr::copy_nonoverlapping(v.as_ptr(), copy.as_mut_ptr(), v.len());
                        copy.set_len(v.len());
                    }
                    Items::Flat(copy)
                }
            }
            Items::Tree(t) => Items::Tree(t.clone()),
        };
        List {
            items,
            depth: AtomicU32::new(self.depth()),
            plain: AtomicBool::new(plain),
        }
    }

    /// Add `v`, which nests `d` deep, at the end.
    #[inline]
    pub fn push_back(&mut self, v: Value, d: u32) {
        self.holds(&v, d);
        match &mut self.items {
            Items::Flat(items) if items.len() < FLAT_MAX => items.push(v),
            Items::Flat(_) => {
                self.grow();
                self.push_back(v, d);
            }
            Items::Tree(t) => t.push_back(v),
        }
    }

    /// Whether [`List::push_back`] would only add at the end of the plain vector the
    /// list is (no change into a tree).
    #[inline]
    pub fn has_flat_room(&self) -> bool {
        matches!(&self.items, Items::Flat(items) if items.len() < FLAT_MAX)
    }

    /// What [`List::push_back`] may change besides the elements: for
    /// [`List::unpush`] to put back.
    #[inline]
    pub fn marks(&mut self) -> Marks {
        Marks {
            depth: *self.depth.get_mut(),
            plain: *self.plain.get_mut(),
        }
    }

    /// Undo the last [`List::push_back`] made on a list that had `marks` before it (and
    /// room: see [`List::has_flat_room`]): its last element taken off and returned, its
    /// bounds as they were. The list is then the one it was before the push.
    pub fn unpush(&mut self, marks: Marks) -> Option<Value> {
        let last = match &mut self.items {
            Items::Flat(items) => items.pop(),
            Items::Tree(t) => t.pop_back(),
        };
        *self.depth.get_mut() = marks.depth;
        *self.plain.get_mut() = marks.plain;
        last
    }

    /// Whether putting `v`, which nests `d` deep, into the list leaves its bounds as
    /// they are (its depth bound, and whether it is known plain): then
    /// [`List::put_back`] undoes [`List::replace`].
    #[inline]
    pub fn keeps_bounds(&self, v: &Value, d: u32) -> bool {
        above(d) <= self.depth() && (v.holds_nothing() || !self.is_plain())
    }

    /// Put `v`, which nests `d` deep, at `index` (below [`List::len`]) as [`List::set`]
    /// does, and give back the element it replaces.
    pub fn replace(&mut self, index: usize, v: Value, d: u32) -> Option<Value> {
        self.holds(&v, d);
        match &mut self.items {
            Items::Flat(items) => items.get_mut(index).map(|slot| std::mem::replace(slot, v)),
            Items::Tree(t) => (index < t.len()).then(|| t.set(index, v)),
        }
    }

    /// Undo a [`List::replace`] at `index` that left the bounds as they were
    /// ([`List::keeps_bounds`]): `old` back in its place; the element taken out is given
    /// back.
    pub fn put_back(&mut self, index: usize, old: Value) -> Option<Value> {
        match &mut self.items {
            Items::Flat(items) => items
                .get_mut(index)
                .map(|slot| std::mem::replace(slot, old)),
            Items::Tree(t) => (index < t.len()).then(|| t.set(index, old)),
        }
    }

    /// Add `v`, which nests `d` deep, at the front.
    pub fn push_front(&mut self, v: Value, d: u32) {
        self.holds(&v, d);
        match &mut self.items {
            Items::Flat(items) if items.len() < FLAT_MAX => items.insert(0, v),
            Items::Flat(_) => {
                self.grow();
                self.push_front(v, d);
            }
            Items::Tree(t) => t.push_front(v),
        }
    }

    /// Turn a full flat list into a tree.
    #[inline(never)]
    fn grow(&mut self) {
        if let Items::Flat(items) = &mut self.items {
            let tree: Tree = std::mem::take(items).into_iter().collect();
            self.items = Items::Tree(Box::new(tree));
        }
    }

    /// Replace the element at `index` (which must exist) by `v`, which nests `d` deep.
    pub fn set(&mut self, index: usize, v: Value, d: u32) {
        self.holds(&v, d);
        match &mut self.items {
            Items::Flat(items) => {
                if let Some(slot) = items.get_mut(index) {
                    Value::release(std::mem::replace(slot, v));
                }
            }
            Items::Tree(t) => {
                if index < t.len() {
                    t.set(index, v);
                }
            }
        }
    }

    /// Take out the first element.
    pub fn pop_front(&mut self) -> Option<Value> {
        match &mut self.items {
            Items::Flat(items) if items.is_empty() => None,
            Items::Flat(items) => Some(items.remove(0)),
            Items::Tree(t) => t.pop_front(),
        }
    }

    /// Take out the element at `index` (which must exist).
    pub fn remove(&mut self, index: usize) -> Option<Value> {
        if index >= self.len() {
            return None;
        }
        Some(match &mut self.items {
            Items::Flat(items) => items.remove(index),
            Items::Tree(t) => t.remove(index),
        })
    }

    /// Keep the first `n` elements.
    pub fn truncate(&mut self, n: usize) {
        match &mut self.items {
            Items::Flat(items) => items.truncate(n),
            Items::Tree(t) => t.truncate(n),
        }
    }

    /// The list in `this` without its first `n` elements: in place when nobody else
    /// holds it, otherwise a copy of the rest only.
    pub fn drop_front_of(this: &mut Rc<List>, n: usize) {
        if Rc::get_mut(this).is_none()
            && let Some(items) = this.as_slice()
        {
            let rest = items[n.min(items.len())..].to_vec();
            *this = Rc::new(List::with_depth(rest, this.depth()));
            return;
        }
        List::make_mut(this, 0).drop_front(n);
    }

    /// Drop the first `n` elements (`n` at most the length).
    pub fn drop_front(&mut self, n: usize) {
        match &mut self.items {
            Items::Flat(items) => {
                items.drain(..n.min(items.len()));
            }
            Items::Tree(t) => {
                let n = n.min(t.len());
                **t = t.split_off(n);
            }
        }
    }

    /// Add the elements of `other` at the end (moved when nobody else holds it, copied
    /// otherwise; a long list's parts are shared, not copied).
    pub fn append(&mut self, other: Rc<List>) {
        let d = other.depth();
        let depth = self.depth.get_mut();
        *depth = (*depth).max(d);
        if !other.is_plain() {
            *self.plain.get_mut() = false;
        }
        if let Items::Flat(items) = &mut self.items
            && items.len() + other.len() <= FLAT_MAX
        {
            match Rc::try_unwrap(other) {
                Ok(mut more) => match &mut more.items {
                    Items::Flat(more) => items.append(more),
                    Items::Tree(_) => items.extend(more.iter().cloned()),
                },
                Err(shared) => items.extend(shared.iter().cloned()),
            }
            return;
        }
        self.grow();
        if let Items::Tree(t) = &mut self.items {
            match &other.items {
                Items::Tree(more) => t.append(Tree::clone(more)),
                Items::Flat(more) => t.extend(more.iter().cloned()),
            }
        }
    }
}

impl Drop for List {
    /// Most elements of a short list own nothing (numbers, names): they are let go
    /// without the general drop (all at once when none owns anything), which runs only
    /// for the others.
    fn drop(&mut self) {
        if let Items::Flat(items) = &mut self.items {
            if *self.plain.get_mut() {
                // SAFETY: no element holds anything (the flag's invariant): letting them
                // go without a drop frees nothing; the vector then frees its buffer.
                unsafe { items.set_len(0) };
                return;
            }
            let len = items.len();
            // SAFETY: the vector is emptied first, so each element is dropped here once
            // (or, should a drop panic, the rest are leaked, never dropped twice); an
            // element that owns nothing is let go as it is (see `Value::holds_nothing`).
            // The vector then frees its buffer.
            unsafe {
                items.set_len(0);
                let first = items.as_mut_ptr();
                for i in 0..len {
                    let v = first.add(i);
                    if !(*v).holds_nothing() {
                        std::ptr::drop_in_place(v);
                    }
                }
            }
        }
    }
}

impl Default for List {
    fn default() -> List {
        List::new()
    }
}

impl Clone for List {
    fn clone(&self) -> List {
        List {
            items: self.items.clone(),
            depth: AtomicU32::new(self.depth()),
            plain: AtomicBool::new(self.is_plain()),
        }
    }
}

impl PartialEq for List {
    /// Element by element ([`Value`]'s `==`).
    fn eq(&self, other: &List) -> bool {
        if self.len() != other.len() {
            return false;
        }
        let same = |p: &Value, q: &Value| match (p, q) {
            (Value::Int(a), Value::Int(b)) => a == b,
            _ => p == q,
        };
        match (self.as_slice(), other.as_slice()) {
            (Some(a), Some(b)) => a.iter().zip(b).all(|(p, q)| same(p, q)),
            _ => self.iter().zip(other.iter()).all(|(p, q)| same(p, q)),
        }
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::ops::Index<usize> for List {
    type Output = Value;

    fn index(&self, index: usize) -> &Value {
        match &self.items {
            Items::Flat(v) => &v[index],
            Items::Tree(t) => &t[index],
        }
    }
}

impl FromIterator<Value> for List {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> List {
        List::from_vec(iter.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a List {
    type Item = &'a Value;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The elements of a [`List`], in order.
pub enum Iter<'a> {
    /// Of a flat list.
    Flat(std::slice::Iter<'a, Value>),
    /// Of a tree.
    Tree(imbl::vector::Iter<'a, Value, imbl::shared_ptr::DefaultSharedPtr>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Value;

    #[inline]
    fn next(&mut self) -> Option<&'a Value> {
        match self {
            Iter::Flat(i) => i.next(),
            Iter::Tree(i) => i.next(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Flat(i) => i.size_hint(),
            Iter::Tree(i) => i.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Flat(i) => i.next_back(),
            Iter::Tree(i) => i.next_back(),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl FusedIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(r: std::ops::Range<i64>) -> List {
        r.map(Value::Int).collect()
    }

    #[test]
    fn a_shared_list_is_copied_before_a_change_and_its_elements_counted() {
        use crate::symbol::Symbol;
        let made = Value::str("list-test-counted-text");
        assert!(!made.holds_nothing());
        let inner = Rc::new(ints(0..3));
        let plain: Vec<Value> = (0..64)
            .map(|i| match i % 4 {
                0 => Value::Nil,
                1 => Value::Int(i),
                2 => Value::sym(Symbol::intern("k")),
                _ => Value::float(0.5),
            })
            .collect();
        let mut mixed = plain.clone();
        mixed[10] = made.clone();
        mixed[20] = Value::List(inner.clone());
        for items in [plain, mixed] {
            let mut shared = Rc::new(List::from_vec(items.clone()));
            let other = shared.clone();
            List::make_mut(&mut shared, 1).set(5, Value::Int(-1), 0);
            assert!(!Rc::ptr_eq(&shared, &other));
            assert_eq!(other.as_slice(), Some(items.as_slice()));
            let mut expected = items.clone();
            expected[5] = Value::Int(-1);
            assert_eq!(shared.as_slice(), Some(expected.as_slice()));
            drop(other);
            drop(shared);
        }
        // Every copy of the counted elements was given back.
        assert_eq!(Rc::strong_count(&inner), 1);
        let copy = made.clone();
        drop(made);
        assert_eq!(copy.to_string(), "\"list-test-counted-text\"");
    }

    #[test]
    fn a_shared_list_of_lists_is_copied_and_dropped_with_its_counts() {
        let inner = Rc::new(ints(0..3));
        let text = Value::str("list-test-group-text");
        // Lists only (groups of cells), and lists after values that hold nothing.
        let groups: Vec<Value> = (0..20).map(|_| Value::List(inner.clone())).collect();
        let mut late = vec![Value::Int(7); 10];
        late.push(Value::List(inner.clone()));
        late.push(text.clone());
        for items in [groups, late] {
            let mut shared = Rc::new(List::from_vec(items.clone()));
            let other = shared.clone();
            List::make_mut(&mut shared, 2).push_back(text.clone(), 0);
            List::make_mut(&mut shared, 0).set(0, Value::Int(-1), 0);
            assert_eq!(other.as_slice(), Some(items.as_slice()));
            let mut expected = items.clone();
            expected[0] = Value::Int(-1);
            expected.push(text.clone());
            assert_eq!(shared.as_slice(), Some(expected.as_slice()));
            drop((other, shared, expected, items));
        }
        assert_eq!(Rc::strong_count(&inner), 1);
        assert_eq!(text.to_string(), "\"list-test-group-text\"");
    }

    /// A list known to hold nothing to count is copied as a block; whatever adds an element
    /// that holds something (push, set, append) makes copies count it again, so every
    /// count taken is given back.
    #[test]
    fn a_plain_list_stays_plain_only_while_its_elements_hold_nothing() {
        use crate::symbol::Symbol;
        let inner = Rc::new(ints(0..3));
        let counted = || Value::List(inner.clone());
        let name = Value::sym(Symbol::intern("list-test-plain"));
        type Change = fn(&mut List, Value);
        let changes: [Change; 4] = [
            |l, v| l.push_back(v, 1),
            |l, v| l.push_front(v, 1),
            |l, v| l.set(1, v, 1),
            |l, v| l.append(Rc::new(List::from_vec(vec![Value::Int(0), v]))),
        ];
        for change in changes {
            // Built from nothing by names, copied (known plain), then changed.
            let mut board = Rc::new(List::new());
            for _ in 0..8 {
                List::make_mut(&mut board, 1).push_back(name.clone(), 0);
            }
            let before = board.clone();
            let mut copy = board.clone();
            change(List::make_mut(&mut copy, 1), counted());
            let mut again = copy.clone();
            List::make_mut(&mut again, 0).set(2, Value::Nil, 0);
            assert_eq!(Rc::strong_count(&inner), 3);
            drop((copy, again));
            assert_eq!(Rc::strong_count(&inner), 1);
            assert_eq!(*before, *board);
        }
        // Copies of a plain list changed by names only stay plain and equal.
        let mut a = Rc::new(List::from_vec(vec![name.clone(); 64]));
        let held = a.clone();
        List::make_mut(&mut a, 0).set(3, Value::Int(5), 0);
        let held2 = a.clone();
        List::make_mut(&mut a, 0).set(4, Value::Nil, 0);
        assert_eq!(held.len(), 64);
        assert_eq!(held2[3], Value::Int(5));
        assert_eq!(a[4], Value::Nil);
        assert_eq!(a[3], Value::Int(5));
    }

    #[test]
    fn short_lists_are_flat_and_long_ones_trees_with_the_same_behaviour() {
        for n in [0, 1, 3, FLAT_MAX - 1, FLAT_MAX, FLAT_MAX + 1, 200] {
            let n = n as i64;
            let mut l = ints(0..n);
            assert_eq!(l.as_slice().is_some(), n as usize <= FLAT_MAX);
            assert_eq!(l.len(), n as usize);
            assert!(l.iter().cloned().eq((0..n).map(Value::Int)));
            assert!(l.iter().rev().cloned().eq((0..n).rev().map(Value::Int)));
            assert_eq!(l.chunks().map(<[Value]>::len).sum::<usize>(), n as usize);
            l.push_back(Value::Int(n), 0);
            l.push_front(Value::Int(-1), 0);
            assert_eq!(l, ints(-1..n + 1));
            assert_eq!(l.pop_front(), Some(Value::Int(-1)));
            l.drop_front(1);
            l.truncate((n as usize).saturating_sub(1));
            assert_eq!(l, ints(1..n.max(1)));
            let mut a = ints(0..n);
            a.append(Rc::new(ints(n..2 * n)));
            let shared = Rc::new(ints(2 * n..3 * n));
            a.append(shared.clone());
            assert_eq!(*shared, ints(2 * n..3 * n));
            a.truncate(2 * n as usize);
            assert_eq!(a, ints(0..2 * n));
            assert_eq!(a.depth(), 1);
        }
    }

    #[test]
    fn the_depth_bound_follows_what_is_added() {
        let inner = Value::list(ints(0..3));
        let mut l = List::new();
        assert_eq!(l.depth(), 1);
        l.push_back(inner.clone(), depth_hint(&inner));
        assert_eq!(l.depth(), 2);
        let outer = Value::list(l.clone());
        let built: List = vec![Value::Int(1), outer].into_iter().collect();
        assert_eq!(built.depth(), 3);
        let with_dict: List = vec![Value::dict(Default::default())].into_iter().collect();
        assert_eq!(with_dict.depth(), UNKNOWN_DEPTH);
        // Taking the deep element out leaves the bound; a walk lowers it.
        l.pop_front();
        assert_eq!(l.depth(), 2);
        l.found_depth(1);
        assert_eq!(l.depth(), 1);
    }

    #[test]
    fn updating_a_shared_list_copies_it() {
        let mut a = Rc::new(ints(0..3));
        let b = a.clone();
        List::make_mut(&mut a, 1).push_back(Value::Int(3), 0);
        assert_eq!(*a, ints(0..4));
        assert_eq!(*b, ints(0..3));
        for n in [3, FLAT_MAX as i64 + 10] {
            let mut c = Rc::new(ints(0..n));
            let held = c.clone();
            List::drop_front_of(&mut c, 2);
            assert_eq!(*c, ints(2..n));
            assert_eq!(*held, ints(0..n));
            List::drop_front_of(&mut c, 1);
            assert_eq!(*c, ints(3..n));
        }
    }
}
