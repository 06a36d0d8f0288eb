//! The canvas: what the representations have drawn, as persistent data in the world.
//!
//! A representation is an instance of a `#representation` type attached to one entity.
//! Its state and properties are an [`Entity`] kept here (not among the world's entities:
//! game code never sees it by name), its graphics live in one ordered map keyed by owner
//! and graphic id, and the properties it observes in another. Everything is imbl data,
//! so a snapshot of the world (a checkpoint, an undo step, the world a failed move goes
//! back to) holds the drawing as it was, for the price of a few reference counts.
//!
//! Boundary: this is data. Running representation code is the VM's business; turning a
//! canvas into text or SVG is `crate::repr`'s.

use std::rc::Rc;

use crate::symbol::Symbol;

use super::entity::{Entity, EntityId};
use super::value::{Dict, Key, Message, Value};

/// The bit that marks an [`EntityId`] as the representation of the entity with the same
/// index (the VM addresses representations like entities).
pub const REPRESENTATION_BIT: u32 = 1 << 31;

impl EntityId {
    /// The id of this entity's representation.
    pub fn representation(self) -> EntityId {
        EntityId(self.0 | REPRESENTATION_BIT)
    }

    /// Whether this id names a representation.
    pub fn is_representation(self) -> bool {
        self.0 & REPRESENTATION_BIT != 0
    }

    /// The entity a representation id stands for (itself for an entity id).
    pub fn represented(self) -> EntityId {
        EntityId(self.0 & !REPRESENTATION_BIT)
    }
}

/// What a click on a graphic does.
#[derive(Clone, Debug, PartialEq)]
pub enum Click {
    /// `(on id clicked notify m)`: deliver `m` to the representation.
    Notify(Rc<Message>),
    /// `(on id clicked emit s with t)`: emit signal `s` with tag `t`.
    Emit {
        /// The signal.
        signal: Symbol,
        /// What `(wait signal s)` returns.
        tag: Value,
    },
}

/// One graphical object.
#[derive(Clone, Debug, PartialEq)]
pub struct Graphic {
    /// The entity whose representation drew it.
    pub owner: Symbol,
    /// Its id, unique within its owner's graphics.
    pub id: Symbol,
    /// Its attributes (`shape`, `x`, `y`, `fill`, `text`, `view`, ...).
    pub attrs: Dict,
    /// Creation order, for drawing graphics of one layer in the order they were made.
    pub order: u64,
    /// What a click does, if anything.
    pub click: Option<Click>,
}

impl Graphic {
    /// Attribute `name`, if set.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        self.attrs.get(&Key::sym(Symbol::intern(name)))
    }

    /// Whether the graphic is shown in `view`.
    pub fn visible_in(&self, view: &View) -> bool {
        match self.attr("view") {
            None | Some(Value::Nil) => true,
            Some(Value::Str(s)) if s.as_str() == "public" => true,
            Some(v) => matches!(view, View::Player(p) if p == v),
        }
    }
}

/// Who looks at the canvas.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// Everyone: only the public graphics.
    Public,
    /// One player: the public graphics and the ones whose `view` is this player's id.
    Player(Value),
}

impl View {
    /// The view named by `text`: `public`, or a player id (an integer or a name).
    pub fn parse(text: &str) -> View {
        let text = text.trim();
        if text.is_empty() || text == "public" {
            return View::Public;
        }
        match text.parse::<i64>() {
            Ok(i) => View::Player(Value::Int(i)),
            Err(_) => View::Player(Value::str(text.trim_matches('"'))),
        }
    }
}

impl std::fmt::Display for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            View::Public => f.write_str("public"),
            View::Player(p) => write!(f, "{}", p.to_text()),
        }
    }
}

/// A number attribute as a float (integers and floats; anything else is not a number).
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) => Some(x.get()),
        _ => None,
    }
}

/// A graphic's key: its owner (the entity's id) and its id.
pub type GraphicKey = (EntityId, Symbol);

/// A persistent hash map with the fast deterministic hasher.
pub type FxMap<K, V> = imbl::GenericHashMap<
    K,
    V,
    std::hash::BuildHasherDefault<rustc_hash::FxHasher>,
    imbl::shared_ptr::DefaultSharedPtr,
>;

/// Everything drawn, and the representations that drew it.
#[derive(Clone, Debug, Default)]
pub struct Canvas {
    /// Whether representations run on this world (set when someone watches).
    pub active: bool,
    /// The representation of each entity, by the entity's index.
    pub representations: imbl::Vector<Option<Rc<Entity>>>,
    /// The graphics, by owner and id.
    pub graphics: FxMap<GraphicKey, Rc<Graphic>>,
    /// `(observe p notify l)`: (entity, property) to the label delivered.
    pub observers: FxMap<(EntityId, Symbol), Symbol>,
    /// The next creation number.
    pub next_order: u64,
}

impl Canvas {
    /// The representation of entity `id`, if it has one.
    pub fn representation(&self, id: EntityId) -> Option<&Entity> {
        self.representations
            .get(id.represented().0 as usize)
            .and_then(|r| r.as_deref())
    }

    /// A writable representation of entity `id`.
    pub fn representation_mut(&mut self, id: EntityId) -> Option<&mut Entity> {
        self.representations
            .get_mut(id.represented().0 as usize)
            .and_then(|r| r.as_mut())
            .map(Rc::make_mut)
    }

    /// Attach `repr` to entity `id`.
    pub fn attach(&mut self, id: EntityId, repr: Entity) {
        let index = id.represented().0 as usize;
        while self.representations.len() <= index {
            self.representations.push_back(None);
        }
        self.representations.set(index, Some(Rc::new(repr)));
    }

    /// Remove entity `id`'s representation, its graphics and its observers.
    pub fn detach(&mut self, id: EntityId) {
        let id = id.represented();
        if let Some(slot) = self.representations.get_mut(id.0 as usize) {
            *slot = None;
        }
        self.graphics.retain(|(owner, _), _| *owner != id);
        self.observers.retain(|(owner, _), _| *owner != id);
    }

    /// The graphics shown in `view`, in drawing order: by `layer` (a number, default 0),
    /// then in the order they were made.
    pub fn visible(&self, view: &View) -> Vec<&Graphic> {
        let mut out: Vec<&Graphic> = self
            .graphics
            .values()
            .map(|g| &**g)
            .filter(|g| g.visible_in(view))
            .collect();
        out.sort_by(|a, b| {
            let layer = |g: &Graphic| g.attr("layer").and_then(number).unwrap_or(0.0);
            layer(a).total_cmp(&layer(b)).then(a.order.cmp(&b.order))
        });
        out
    }

    /// The graphic `id` drawn by the representation of the entity named `owner`.
    pub fn find(&self, owner: Symbol, id: Symbol) -> Option<&Graphic> {
        self.graphics
            .values()
            .find(|g| g.owner == owner && g.id == id)
            .map(|g| &**g)
    }

    /// Whether anything is drawn.
    pub fn is_empty(&self) -> bool {
        self.graphics.is_empty()
    }

    /// Whether two canvases hold the same drawing and representations.
    pub fn same_as(&self, other: &Canvas) -> bool {
        self.active == other.active
            && self.graphics == other.graphics
            && self.observers == other.observers
            && self.representations.len() == other.representations.len()
            && self
                .representations
                .iter()
                .zip(other.representations.iter())
                .all(|(a, b)| match (a, b) {
                    (None, None) => true,
                    (Some(a), Some(b)) => {
                        Rc::ptr_eq(a, b)
                            || (a.state == b.state && a.props == b.props && a.extra == b.extra)
                    }
                    _ => false,
                })
    }
}
