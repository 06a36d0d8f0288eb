//! The world's entities by id: a persistent array (a radix tree of 32-wide nodes).
//!
//! Cloning it is one reference count; reading entity `i` is one step per level (two levels
//! up to 1,024 entities, four up to a million); writing copies the nodes on the path to it
//! that a snapshot still shares, each at most 32 pointers. Trying a move on a copy of the
//! world and dropping it costs what the move touched.

use std::sync::Arc;

use super::Entity;

const BITS: u32 = 5;
const WIDTH: usize = 1 << BITS;
const MASK: usize = WIDTH - 1;

type Slot = Option<Arc<Entity>>;

#[derive(Clone, Debug)]
enum Node {
    Branch(Arc<Vec<Node>>),
    Leaf(Arc<Vec<Slot>>),
}

/// Entities by id; `None` once deleted.
#[derive(Clone, Debug)]
pub struct Entities {
    root: Node,
    /// Bits of the index consumed above the leaves (0 when the root is a leaf).
    shift: u32,
    len: usize,
}

impl Default for Entities {
    fn default() -> Entities {
        Entities {
            root: Node::Leaf(Arc::new(Vec::new())),
            shift: 0,
            len: 0,
        }
    }
}

impl Entities {
    /// How many ids have been given (deleted entities included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no id has been given.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of id `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Slot> {
        if i >= self.len {
            return None;
        }
        let mut node = &self.root;
        let mut shift = self.shift;
        loop {
            match node {
                Node::Branch(b) => {
                    node = b.get((i >> shift) & MASK)?;
                    shift = shift.saturating_sub(BITS);
                }
                Node::Leaf(l) => return l.get(i & MASK),
            }
        }
    }

    /// The slot of id `i`, writable: the nodes on its path that a copy shares are copied.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Slot> {
        if i >= self.len {
            return None;
        }
        let mut node = &mut self.root;
        let mut shift = self.shift;
        loop {
            match node {
                Node::Branch(b) => {
                    node = Arc::make_mut(b).get_mut((i >> shift) & MASK)?;
                    shift = shift.saturating_sub(BITS);
                }
                Node::Leaf(l) => return Arc::make_mut(l).get_mut(i & MASK),
            }
        }
    }

    /// Give the next id to `slot`.
    pub fn push_back(&mut self, slot: Slot) {
        let i = self.len;
        // A full tree gets a new root above it.
        if i > 0 && i >> self.shift >= WIDTH {
            let old = std::mem::replace(&mut self.root, Node::Leaf(Arc::new(Vec::new())));
            self.root = Node::Branch(Arc::new(vec![old]));
            self.shift += BITS;
        }
        let mut node = &mut self.root;
        let mut shift = self.shift;
        loop {
            match node {
                Node::Branch(b) => {
                    let b = Arc::make_mut(b);
                    let at = (i >> shift) & MASK;
                    shift -= BITS;
                    if at == b.len() {
                        b.push(if shift == 0 {
                            Node::Leaf(Arc::new(Vec::with_capacity(WIDTH)))
                        } else {
                            Node::Branch(Arc::new(Vec::with_capacity(WIDTH)))
                        });
                    }
                    node = &mut b[at];
                }
                Node::Leaf(l) => {
                    Arc::make_mut(l).push(slot);
                    self.len += 1;
                    return;
                }
            }
        }
    }

    /// Every slot, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Slot> {
        let mut stack = vec![(&self.root, 0usize)];
        std::iter::from_fn(move || {
            loop {
                let (node, at) = stack.last_mut()?;
                match node {
                    Node::Branch(b) => match b.get(*at) {
                        Some(child) => {
                            *at += 1;
                            stack.push((child, 0));
                        }
                        None => {
                            stack.pop();
                        }
                    },
                    Node::Leaf(l) => match l.get(*at) {
                        Some(slot) => {
                            *at += 1;
                            return Some(slot);
                        }
                        None => {
                            stack.pop();
                        }
                    },
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::program::TypeId;
    use crate::runtime::value::Value;
    use crate::symbol::Symbol;

    fn entity(i: usize) -> Slot {
        Some(Arc::new(Entity {
            name: Symbol::intern(&format!("e{i}")),
            ty: TypeId(0),
            state: Symbol::intern("default"),
            props: vec![Value::Int(i as i64)],
            extra: Default::default(),
        }))
    }

    fn value(s: &Slot) -> i64 {
        match s.as_deref().map(|e| &e.props[0]) {
            Some(Value::Int(i)) => *i,
            _ => -1,
        }
    }

    #[test]
    fn grows_reads_and_writes_through_levels() {
        for n in [0, 1, 31, 32, 33, 1023, 1024, 1025, 40_000] {
            let mut t = Entities::default();
            for i in 0..n {
                t.push_back(entity(i));
            }
            assert_eq!(t.len(), n);
            assert!(t.get(n).is_none());
            assert_eq!(t.iter().count(), n);
            assert!(t.iter().enumerate().all(|(i, s)| value(s) == i as i64));
            assert!((0..n).all(|i| t.get(i).map(value) == Some(i as i64)));
            // A copy keeps its values while the original changes and deletes.
            let copy = t.clone();
            for i in (0..n).step_by(7) {
                *t.get_mut(i).expect("slot") = entity(i + 1);
            }
            if n > 0 {
                *t.get_mut(n - 1).expect("slot") = None;
                assert!(t.get(n - 1).expect("slot").is_none());
            }
            assert!((0..n).all(|i| copy.get(i).map(value) == Some(i as i64)));
            assert!(
                (0..n.saturating_sub(1))
                    .all(|i| t.get(i).map(value) == Some(i as i64 + i64::from(i % 7 == 0)))
            );
        }
    }
}
