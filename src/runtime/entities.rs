//! The world's entities by id: a persistent vector that only grows.
//!
//! A tree of 32-way nodes of fixed depth for its length (a trie on the bits of the id, as
//! in Clojure's vectors): reading entity `id` is one array index per level (one level up
//! to 32 entities, two up to 1,024, three up to 32,768), with no size tables or buffers
//! to look through first. Cloning is a reference count; writing to an entity that a clone
//! shares copies the nodes on its path (32 pointers a level) and the entity itself.
//! Entities are never removed from the vector: a deleted entity leaves `None` in its
//! place, so ids stay valid and are never reused.
//!
//! Each value carries a *generation*, a number no other change in the process was given:
//! it is renewed whenever an entity this value holds may come to lie elsewhere (copied on
//! its first write after a clone, its slot replaced or emptied, an entity added). Two
//! values of one generation hold every entity at the same address, and an entity found
//! at a generation stays where it was found while the value keeps it: what lets the
//! machine keep entities' addresses and read through them (`vm/addresses.rs`).

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::entity::Entity;

const BITS: u32 = 5;
const WIDTH: usize = 1 << BITS;
const MASK: usize = WIDTH - 1;

type Slot = Option<Rc<Entity>>;

#[derive(Clone)]
enum Node {
    Leaf([Slot; WIDTH]),
    Branch([Option<Rc<Node>>; WIDTH]),
}

impl Node {
    fn leaf() -> Node {
        Node::Leaf(std::array::from_fn(|_| None))
    }

    fn branch() -> Node {
        Node::Branch(std::array::from_fn(|_| None))
    }
}

/// What `a` points to, to change: [`Rc::make_mut`] with the test that nothing else
/// holds it (the common case) made here, and the copy out of line. Always `Some`.
#[inline(always)]
fn unshared<T: Clone>(a: &mut Rc<T>) -> Option<&mut T> {
    if Rc::get_mut(a).is_none() {
        unshare(a);
    }
    Rc::get_mut(a)
}

/// Make `a` the only holder of its value (a copy if another holds it).
#[cold]
#[inline(never)]
fn unshare<T: Clone>(a: &mut Rc<T>) {
    Rc::make_mut(a);
}

/// The generation the next change takes: never 0 (which no value has, so that a
/// table of addresses can mark an empty place with it) and never given twice.
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

/// A generation no value had before.
fn fresh_generation() -> u64 {
    GENERATIONS.fetch_add(1, Ordering::Relaxed)
}

/// Entities by id; `None` where one was deleted.
pub struct Entities {
    root: Rc<Node>,
    /// Levels of branches above the leaves.
    depth: u32,
    len: usize,
    /// Renewed whenever an entity may come to lie elsewhere (see the module's
    /// documentation); a clone keeps it, as it keeps every entity where it is.
    generation: u64,
    /// Renewed, in this value and in the new one, whenever the value is cloned: while it
    /// is the same, what this value made its own (an entity written, and the nodes above
    /// it) is still its own, as only a clone shares an entity or a node (nothing else
    /// holds them). Never 0.
    owner: Cell<u64>,
}

impl Clone for Entities {
    fn clone(&self) -> Entities {
        self.owner.set(fresh_generation());
        Entities {
            root: Rc::clone(&self.root),
            depth: self.depth,
            len: self.len,
            generation: self.generation,
            owner: Cell::new(fresh_generation()),
        }
    }
}

impl Default for Entities {
    fn default() -> Entities {
        Entities::new()
    }
}

impl Entities {
    /// No entities.
    pub fn new() -> Entities {
        Entities {
            root: Rc::new(Node::leaf()),
            depth: 0,
            len: 0,
            generation: fresh_generation(),
            owner: Cell::new(fresh_generation()),
        }
    }

    /// This value's generation: while it is the same, every entity lies where it lay.
    #[inline(always)]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Who this value is, as far as what it owns goes: renewed by each clone (see
    /// `owner`'s field). An entity [`Entities::entity_mut`] gave while it is the same is
    /// this value's alone, and may be written where it lies.
    #[inline(always)]
    pub fn owner(&self) -> u64 {
        self.owner.get()
    }

    /// Where the generation is kept, for code that reads it while the value stays put.
    #[inline(always)]
    pub fn generation_at(&self) -> *const u64 {
        &raw const self.generation
    }

    /// How many ids were given (deleted entities included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no entity was ever added.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of id `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Slot> {
        if i >= self.len {
            return None;
        }
        let mut node: &Node = &self.root;
        let mut shift = self.depth * BITS;
        loop {
            match node {
                Node::Branch(children) => {
                    node = children[(i >> shift) & MASK].as_deref()?;
                    shift -= BITS;
                }
                Node::Leaf(slots) => return Some(&slots[i & MASK]),
            }
        }
    }

    /// The slot of id `i`, to replace or empty (the nodes on its path are copied first if
    /// a clone shares them). A new generation: the entity there may go.
    pub fn slot_mut(&mut self, i: usize) -> Option<&mut Slot> {
        self.generation = fresh_generation();
        path_mut(&mut self.root, self.depth, self.len, i)
    }

    /// The entity `i`, to change in place: the nodes on its path and the entity itself
    /// copied first if a clone shares them (a new generation if the entity is copied).
    /// `None` for an id never given or an entity deleted.
    #[inline(always)]
    pub fn entity_mut(&mut self, i: usize) -> Option<&mut Entity> {
        let Entities {
            root,
            depth,
            len,
            generation,
            ..
        } = self;
        let e = path_mut(root, *depth, *len, i)?.as_mut()?;
        if Rc::get_mut(e).is_none() {
            *generation = fresh_generation();
            unshare(e);
        }
        Rc::get_mut(e)
    }

    /// Add `entity` with the next id.
    pub fn push_back(&mut self, entity: Slot) {
        // Another value of this generation may add a different entity with this id.
        self.generation = fresh_generation();
        let i = self.len;
        // Full at this depth: the old root becomes the first child of a new one.
        if i >> ((self.depth + 1) * BITS) > 0 {
            let old = std::mem::replace(&mut self.root, Rc::new(Node::branch()));
            if let Node::Branch(children) = Rc::make_mut(&mut self.root) {
                children[0] = Some(old);
            }
            self.depth += 1;
        }
        let mut node: &mut Node = Rc::make_mut(&mut self.root);
        let mut level = self.depth;
        loop {
            match node {
                Node::Branch(children) => {
                    let shift = level * BITS;
                    level -= 1;
                    let child = children[(i >> shift) & MASK].get_or_insert_with(|| {
                        Rc::new(if level == 0 {
                            Node::leaf()
                        } else {
                            Node::branch()
                        })
                    });
                    node = Rc::make_mut(child);
                }
                Node::Leaf(slots) => {
                    slots[i & MASK] = entity;
                    break;
                }
            }
        }
        self.len = i + 1;
    }

    /// Every slot, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Slot> + '_ {
        (0..self.len).filter_map(|i| self.get(i))
    }

    /// About how many bytes `self` holds that `older` (an earlier copy it grew from) does
    /// not share: the nodes and entities written or added since, found by walking only
    /// the nodes that differ (a shared node is one pointer compare). Deterministic: it
    /// counts sizes of the structures, not the allocator's.
    pub fn new_bytes_since(&self, older: &Entities) -> u64 {
        // A deeper tree holds the older one's root down its first children.
        let mut node: &Node = &self.root;
        let mut extra = 0;
        let mut depth = self.depth;
        while depth > older.depth {
            extra += NODE_BYTES;
            let Node::Branch(children) = node else {
                return extra;
            };
            for c in children.iter().skip(1).flatten() {
                extra += fresh_bytes(c, None);
            }
            let Some(first) = children[0].as_deref() else {
                return extra;
            };
            node = first;
            depth -= 1;
        }
        if depth < older.depth {
            // Not grown from `older`: all of it.
            return fresh_bytes(&self.root, None);
        }
        if std::ptr::eq(node, &*older.root) {
            return extra;
        }
        extra + node_bytes(node, Some(&older.root))
    }
}

/// The slot of id `i` in the trie at `root` (`depth` levels of branches, `len` ids), the
/// nodes on its path made the caller's own.
fn path_mut(root: &mut Rc<Node>, depth: u32, len: usize, i: usize) -> Option<&mut Slot> {
    if i >= len {
        return None;
    }
    let mut node: &mut Node = unshared(root)?;
    let mut shift = depth * BITS;
    loop {
        match node {
            Node::Branch(children) => {
                node = unshared(children[(i >> shift) & MASK].as_mut()?)?;
                shift -= BITS;
            }
            Node::Leaf(slots) => return Some(&mut slots[i & MASK]),
        }
    }
}

/// Bytes counted for one node of the trie (32 pointers, and its reference counts).
const NODE_BYTES: u64 = (std::mem::size_of::<Node>() + 16) as u64;

/// Bytes counted for one entity: its shared allocation and the properties kept outside.
fn entity_bytes(e: &Entity) -> u64 {
    let outside = if e.props.spilled() { e.props.len() } else { 0 };
    let added = e.extra.iter().count();
    (std::mem::size_of::<Entity>() + 16 + 16 * outside + 32 * added) as u64
}

/// [`node_bytes`] of `node` unless `older` is the same node.
fn fresh_bytes(node: &Rc<Node>, older: Option<&Rc<Node>>) -> u64 {
    match older {
        Some(o) if Rc::ptr_eq(node, o) => 0,
        _ => node_bytes(node, older.map(|o| &**o)),
    }
}

/// The bytes of `node` (not shared with `older`, at the same place) and of what it holds
/// that `older` does not. Recursion is bounded by the trie's depth (at most 7 levels).
fn node_bytes(node: &Node, older: Option<&Node>) -> u64 {
    let mut bytes = NODE_BYTES;
    match node {
        Node::Branch(children) => {
            let olds = match older {
                Some(Node::Branch(o)) => Some(o),
                _ => None,
            };
            for (k, c) in children.iter().enumerate() {
                if let Some(c) = c {
                    let o = olds.and_then(|o| o[k].as_ref());
                    bytes += fresh_bytes(c, o);
                }
            }
        }
        Node::Leaf(slots) => {
            let olds = match older {
                Some(Node::Leaf(o)) => Some(o),
                _ => None,
            };
            for (k, e) in slots.iter().enumerate() {
                let Some(e) = e else { continue };
                let shared = olds
                    .and_then(|o| o[k].as_ref())
                    .is_some_and(|o| Rc::ptr_eq(o, e));
                if !shared {
                    bytes += entity_bytes(e);
                }
            }
        }
    }
    bytes
}

impl std::fmt::Debug for Entities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::program::TypeId;
    use crate::symbol::Symbol;

    fn entity(i: usize) -> Slot {
        Some(Rc::new(Entity {
            name: Symbol::intern(&format!("e{i}")),
            ty: TypeId(0),
            state: Symbol::intern("default"),
            props: Default::default(),
            extra: Default::default(),
        }))
    }

    fn name(s: &Slot) -> Option<String> {
        s.as_ref().map(|e| e.name.as_str().to_string())
    }

    #[test]
    fn grows_through_levels_and_reads_back() {
        let mut v = Entities::new();
        let mut snapshots = Vec::new();
        for i in 0..40_000 {
            if i % 4_999 == 0 {
                snapshots.push((i, v.clone()));
            }
            v.push_back(entity(i));
        }
        assert_eq!(v.len(), 40_000);
        for i in [0, 1, 31, 32, 33, 1023, 1024, 1025, 32_767, 32_768, 39_999] {
            assert_eq!(name(v.get(i).unwrap()), Some(format!("e{i}")));
        }
        assert!(v.get(40_000).is_none());
        // Older copies are untouched by later additions.
        for (n, s) in &snapshots {
            assert_eq!(s.len(), *n);
            if *n > 0 {
                assert_eq!(name(s.get(n - 1).unwrap()), Some(format!("e{}", n - 1)));
            }
            assert!(s.get(*n).is_none());
        }
        assert_eq!(v.iter().count(), 40_000);
    }

    #[test]
    fn writes_copy_only_what_a_clone_shares() {
        let mut v = Entities::new();
        for i in 0..100 {
            v.push_back(entity(i));
        }
        let before = v.clone();
        *v.slot_mut(70).unwrap() = None;
        *v.slot_mut(3).unwrap() = entity(1000);
        assert!(v.get(70).unwrap().is_none());
        assert_eq!(name(v.get(3).unwrap()), Some("e1000".into()));
        assert_eq!(name(before.get(70).unwrap()), Some("e70".into()));
        assert_eq!(name(before.get(3).unwrap()), Some("e3".into()));
        // Untouched entities are still shared.
        let (a, b) = (v.get(50).unwrap(), before.get(50).unwrap());
        assert!(Rc::ptr_eq(a.as_ref().unwrap(), b.as_ref().unwrap()));
        assert!(v.slot_mut(100).is_none());
    }

    #[test]
    fn a_clone_renews_the_owner_of_both_values_and_nothing_else_does() {
        let mut v = Entities::new();
        for i in 0..40 {
            v.push_back(entity(i));
        }
        let o = v.owner();
        assert_ne!(o, 0);
        v.entity_mut(5).unwrap().state = Symbol::intern("written");
        *v.slot_mut(7).unwrap() = entity(700);
        v.push_back(entity(40));
        assert_eq!(v.owner(), o);
        let w = v.clone();
        assert!(v.owner() != o && w.owner() != o && v.owner() != w.owner());
    }

    #[test]
    fn a_generation_is_renewed_whenever_an_entity_may_move() {
        let mut v = Entities::new();
        for i in 0..40 {
            v.push_back(entity(i));
        }
        let g = v.generation();
        let at =
            |v: &Entities, i: usize| -> *const Entity { &**v.get(i).unwrap().as_ref().unwrap() };
        // Written in place, nothing else holding it: where it was, the same generation.
        let before = at(&v, 5);
        v.entity_mut(5).unwrap().state = Symbol::intern("moved");
        assert_eq!((v.generation(), at(&v, 5)), (g, before));
        // A clone keeps every entity where it is, and the generation.
        let mut w = v.clone();
        assert_eq!(w.generation(), g);
        // The first write after it copies the entity for the writer, which takes a new
        // generation; the other then holds its entity alone and writes it in place.
        w.entity_mut(5).unwrap().state = Symbol::intern("w");
        assert_ne!(w.generation(), g);
        assert_ne!(at(&w, 5), before);
        v.entity_mut(5).unwrap().state = Symbol::intern("v");
        assert_eq!((v.generation(), at(&v, 5)), (g, before));
        // Two values written after a clone never share a generation.
        let mut u = v.clone();
        u.entity_mut(6).unwrap().state = Symbol::intern("u");
        let mut x = v.clone();
        x.entity_mut(6).unwrap().state = Symbol::intern("x");
        assert!(u.generation() != x.generation() && u.generation() != g);
        // A slot replaced or emptied, an entity added: a new generation each time.
        for change in [
            (|v: &mut Entities| *v.slot_mut(7).unwrap() = None) as fn(&mut Entities),
            |v| *v.slot_mut(8).unwrap() = entity(99),
            |v| v.push_back(entity(100)),
        ] {
            let g = v.generation();
            change(&mut v);
            assert_ne!(v.generation(), g);
        }
        // An id never given or an entity deleted is not there to write.
        assert!(v.entity_mut(7).is_none() && v.entity_mut(1000).is_none());
    }
}
