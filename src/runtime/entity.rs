//! One entity: its name, type, state and properties (those of its type's layout inline,
//! those added at run time by name), and the id that names it in the world.

use smallvec::SmallVec;

use crate::compile::program::{Game, TypeId};
use crate::symbol::Symbol;

use super::value::{Dict, Key, Value};

/// Index of an entity in the world. Never reused after deletion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntityId(pub u32);

/// How many layout properties an entity keeps inline, in its own allocation.
pub const INLINE_PROPS: usize = 4;

/// An entity's layout properties, in its type's order.
///
/// Most types have a handful of properties: up to [`INLINE_PROPS`] of them live inside
/// the entity, so copying an entity that a snapshot shares (the first write to it in a
/// tried move) is one allocation, and dropping the copy one free. Types with more
/// properties keep them in a separate array, as a `Vec` would.
pub type Props = SmallVec<[Value; INLINE_PROPS]>;

/// The properties an entity was given at run time (`new property`), by name.
///
/// Few entities ever get one, so the map is only allocated on the first: an entity
/// without any carries one null pointer, which copying and dropping only test.
#[derive(Clone, Debug, Default)]
pub struct Extra(Option<Box<Dict>>);

impl Extra {
    /// A copy that shares no reference count with `self` (see [`Value::private_copy`]).
    pub fn private_copy(&self) -> Extra {
        Extra(self.0.as_ref().map(|d| Box::new(d.private_copy())))
    }

    /// The value of `key`, if added.
    #[inline]
    pub fn get(&self, key: &Key) -> Option<&Value> {
        self.0.as_deref().and_then(|d| d.get(key))
    }

    /// A mutable reference to the value of `key`, if added.
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut Value> {
        self.0.as_deref_mut().and_then(|d| d.get_mut(key))
    }

    /// Set `key` to `value`, returning the value it had.
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        self.0.get_or_insert_with(Box::default).insert(key, value)
    }

    /// Whether no property was added.
    pub fn is_empty(&self) -> bool {
        self.0.as_deref().is_none_or(|d| d.is_empty())
    }

    /// Every added property, by key order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.0.as_deref().into_iter().flat_map(|d| d.iter())
    }
}

impl PartialEq for Extra {
    fn eq(&self, other: &Extra) -> bool {
        match (self.0.as_deref(), other.0.as_deref()) {
            (Some(a), Some(b)) => a == b,
            _ => self.is_empty() && other.is_empty(),
        }
    }
}

/// One entity.
#[derive(Debug)]
pub struct Entity {
    /// Its name.
    pub name: Symbol,
    /// Its type.
    pub ty: TypeId,
    /// Its current state.
    pub state: Symbol,
    /// Properties in its type's layout. Written element by element, never replaced nor
    /// grown while the entity lives: the machine keeps where they lie
    /// (`vm/addresses.rs`).
    pub props: Props,
    /// Properties added at run time with `new property`.
    pub extra: Extra,
}

impl Clone for Entity {
    /// A copy (what a write to an entity a snapshot shares makes). Inline properties are
    /// cloned into a fixed array in one pass, with none of the capacity checks of
    /// extending a vector one element at a time.
    fn clone(&self) -> Entity {
        let props = if self.props.spilled() {
            self.props.clone()
        } else {
            let n = self.props.len();
            let buf: [Value; INLINE_PROPS] =
                std::array::from_fn(|i| self.props.get(i).cloned().unwrap_or_default());
            // The slots past `n` hold `Nil`, which owns nothing, so not dropping them is fine.
            Props::from_buf_and_len(buf, n)
        };
        Entity {
            name: self.name,
            ty: self.ty,
            state: self.state,
            props,
            extra: self.extra.clone(),
        }
    }
}

impl Entity {
    /// A copy that shares no reference count with `self` (see [`Value::private_copy`]).
    pub fn private_copy(&self) -> Entity {
        Entity {
            name: self.name,
            ty: self.ty,
            state: self.state,
            props: self.props.iter().map(Value::private_copy).collect(),
            extra: self.extra.private_copy(),
        }
    }

    /// The value of property `name`, if it has one.
    #[inline(always)]
    pub fn property(&self, game: &Game, name: Symbol) -> Option<&Value> {
        match game.slot(self.ty, name) {
            Some(slot) => self.props.get(slot as usize),
            None => self.extra_property(name),
        }
    }

    /// The value of property `name` when it is in the layout and the game's slot table
    /// has it (every property of the game's types): no call out of line. `None` when
    /// [`Entity::property`] must be asked.
    #[inline(always)]
    pub fn layout_property(&self, game: &Game, name: Symbol) -> Option<&Value> {
        self.props.get(game.indexed_slot(self.ty, name)? as usize)
    }

    /// The value of property `name` made at run time, if it has one.
    #[inline(never)]
    fn extra_property(&self, name: Symbol) -> Option<&Value> {
        self.extra.get(&Key::sym(name))
    }

    /// A mutable reference to property `name`, if it has one.
    pub fn property_mut(&mut self, game: &Game, name: Symbol) -> Option<&mut Value> {
        match game.slot(self.ty, name) {
            Some(slot) => self.props.get_mut(slot as usize),
            None => self.extra.get_mut(&Key::sym(name)),
        }
    }

    /// Every property, in layout order then run-time additions by name.
    pub fn properties<'a>(&'a self, game: &'a Game) -> impl Iterator<Item = (Symbol, &'a Value)> {
        game.ty(self.ty)
            .properties
            .iter()
            .map(|(n, _)| *n)
            .zip(self.props.iter())
            .chain(self.extra.iter().filter_map(|(k, v)| match k {
                Key::Str(s) => Some((s.intern(), v)),
                Key::Int(_) => None,
            }))
    }
}
