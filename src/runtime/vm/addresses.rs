//! Where the entities the game started with lie, kept from one read to the next.
//!
//! Finding entity `id` in the world is a walk down its persistent table (one node a
//! level, an option tested at each) and, for a name, a look in the session's fixed
//! table first. Playouts and tried moves run in place, with the undo log behind them, so
//! an entity stays where it is for hundreds of reads (`docs/machine.md`, plan step 11:
//! one copy per 289 reads in Go 19×19, per 9,577 in chess perft). The world's entities
//! carry a generation that is renewed whenever one of them may come to lie elsewhere
//! (`runtime/entities.rs`); this table keeps, for each id the fixed table gives, the
//! address the entity was found at and the generation it was found in, and reads through
//! the address while the world's generation is the same.
//!
//! Why that is sound: a generation is never given twice, a clone of the entities keeps
//! every entity where it is, and every change that could move or free an entity renews
//! it. So while the world the machine reads has the generation an entry was filled in,
//! that world holds the entity at the entry's address (in whatever state it is now: an
//! entity written in place stays where it is). The table belongs to one fixed table (the
//! ids it is indexed by) and is emptied when a machine of another session takes it.
//!
//! The entries are laid out for the generated code too (`jit`): the state test of a name
//! reads them in line, the helpers that read properties and states read them first.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::super::entities::Entities;
use super::super::entity::Entity;
use super::super::value::Value;
use super::super::world::FixedNames;

/// What the table knows of one id.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    /// The generation the entity was found in; 0 (which no world has) for none.
    pub(crate) generation: u64,
    pub(crate) entity: *const Entity,
    /// Its layout properties (inside the entity, or in an array of their own: either
    /// way where they stay while the entity does, as an entity's layout never grows).
    pub(crate) props: *const Value,
    pub(crate) ty: u32,
    pub(crate) len: u32,
    /// Its name's symbol number (a read by name checks it, as the fixed table's
    /// readers do: the world may not be the one the table was made from).
    pub(crate) name: u32,
    /// The owner (`Entities::owner`) of the entities when a write made the entity and
    /// the nodes above it theirs alone, kept with a pointer to its properties from that
    /// write; 0 when found by a read. While both it and the generation are the same, the
    /// entity may be written where it lies ([`Addresses::owned_property`]).
    pub(crate) owned: u64,
}

const EMPTY: Entry = Entry {
    generation: 0,
    entity: std::ptr::null(),
    props: std::ptr::null(),
    ty: 0,
    len: 0,
    name: 0,
    owned: 0,
};

/// The addresses of the entities of one session's fixed table, by id.
pub(crate) struct Addresses {
    entries: Vec<Cell<Entry>>,
    /// The fixed table the entries are for (compared, never read through).
    owner: *const FixedNames,
    /// What the generated code reads.
    pub(crate) view: View,
}

/// The table as the generated code reads it: a name's number less `first`, below
/// `names`, is its place in `ids`, which gives its id; an id below `len` its entry; an
/// entry is good while its generation is the one at `generation` (the world's, which
/// the machine points at before it runs generated code: `vm/jit`).
#[repr(C)]
pub(crate) struct View {
    pub(crate) first: u64,
    pub(crate) names: u64,
    pub(crate) ids: *const u32,
    pub(crate) entries: *const Entry,
    pub(crate) len: u64,
    pub(crate) generation: *const u64,
}

impl View {
    /// The good entry of the entity whose name is the interned symbol number `number`,
    /// if the table has one: what the generated code does in line, for helpers it calls.
    #[inline(always)]
    pub(crate) fn entry(&self, number: u64) -> Option<&Entry> {
        let place = number.wrapping_sub(self.first);
        if place >= self.names {
            return None;
        }
        // SAFETY: `ids` holds `names` ids.
        let id = u64::from(unsafe { *self.ids.add(place as usize) });
        self.entry_of(id).filter(|e| u64::from(e.name) == number)
    }

    /// The good entry of entity `id`, if the table has one.
    #[inline(always)]
    pub(crate) fn entry_of(&self, id: u64) -> Option<&Entry> {
        if id >= self.len {
            return None;
        }
        // SAFETY: `entries` holds `len` entries; `generation` points at the world's
        // while code runs (the only time this is asked).
        unsafe {
            let e = &*self.entries.add(id as usize);
            (e.generation == *self.generation).then_some(e)
        }
    }
}

impl Entry {
    /// The layout property at `place` (as a property read keeps it: `(type + 1) << 32 |
    /// place`, see `jit::Site::slot`), if this entity's type is the one kept.
    #[inline(always)]
    pub(crate) fn property_at(&self, place: u64) -> Option<&Value> {
        let ty = u64::from(self.ty) + 1;
        let at = place as u32;
        // SAFETY: the entry is good (found so), and the entity has `len` of them.
        (place >> 32 == ty && at < self.len).then(|| unsafe { &*self.props.add(at as usize) })
    }
}

/// How a read keeps the place of a property of type `ty`'s layout, for
/// [`Entry::property_at`].
#[inline(always)]
pub(crate) fn place_of(ty: crate::compile::program::TypeId, slot: u16) -> u64 {
    (u64::from(ty.0) + 1) << 32 | u64::from(slot)
}

impl Default for Addresses {
    fn default() -> Addresses {
        Addresses {
            entries: Vec::new(),
            owner: std::ptr::null(),
            view: View {
                first: 0,
                names: 0,
                ids: std::ptr::null(),
                entries: std::ptr::null(),
                len: 0,
                generation: std::ptr::null(),
            },
        }
    }
}

impl Addresses {
    /// Serve a machine reading the entities of `fixed`: emptied if it served another.
    #[inline(always)]
    pub(super) fn serve(&mut self, fixed: &Arc<FixedNames>) {
        if !std::ptr::eq(self.owner, Arc::as_ptr(fixed)) {
            self.take_up(fixed);
        }
    }

    #[cold]
    #[inline(never)]
    fn take_up(&mut self, fixed: &Arc<FixedNames>) {
        self.owner = Arc::as_ptr(fixed);
        self.entries.clear();
        self.entries.resize(fixed.id_bound(), Cell::new(EMPTY));
        let (first, ids) = fixed.array();
        self.view = View {
            first: first as u64,
            names: ids.len() as u64,
            ids: ids.as_ptr(),
            entries: self.entries.as_ptr().cast(),
            len: self.entries.len() as u64,
            generation: std::ptr::null(),
        };
    }

    /// The entity `id` of `entities`, if it lies there: read through the kept address
    /// while the generation is the one it was found in, else found and kept.
    #[inline(always)]
    pub(super) fn find<'w>(&self, entities: &'w Entities, id: u32) -> Option<&'w Entity> {
        let Some(cell) = self.entries.get(id as usize) else {
            return entities.get(id as usize)?.as_deref();
        };
        let e = cell.get();
        if e.generation != entities.generation() {
            return self.fill(cell, entities, id);
        }
        // SAFETY: the world holds, in the generation the entry was filled in, the entity
        // where it was found (the module's documentation).
        let found = unsafe { &*e.entity };
        debug_assert!(std::ptr::eq(
            found,
            entities
                .get(id as usize)
                .and_then(|s| s.as_deref())
                .unwrap()
        ));
        Some(found)
    }

    /// Find entity `id` and keep where it lies.
    #[inline(never)]
    fn fill<'w>(&self, cell: &Cell<Entry>, entities: &'w Entities, id: u32) -> Option<&'w Entity> {
        let found = entities.get(id as usize)?.as_deref()?;
        cell.set(Entry {
            generation: entities.generation(),
            entity: found,
            props: found.props.as_ptr(),
            ty: found.ty.0,
            len: found.props.len() as u32,
            name: found.name.id(),
            owned: 0,
        });
        Some(found)
    }

    /// Where the layout property at `place` (as a property read keeps it, see
    /// [`place_of`]) of entity `id` lies, to be written there: when a write made the
    /// entity theirs alone in this generation of `entities` and they have not been cloned
    /// since (so nothing else holds it or the nodes above it).
    #[inline(always)]
    pub(super) fn owned_property(
        &self,
        entities: &Entities,
        id: u32,
        place: u64,
    ) -> Option<*mut Value> {
        let e = self.entries.get(id as usize)?.get();
        let ty = u64::from(e.ty) + 1;
        let at = place as u32;
        (e.generation == entities.generation()
            && e.owned == entities.owner()
            && place >> 32 == ty
            && at < e.len)
            // SAFETY: the entity has `len` properties there, from a `&mut` to it.
            .then(|| unsafe { e.props.cast_mut().add(at as usize) })
    }
}

impl super::Machine {
    /// [`super::Machine::write_layout_slot`] for the generated code: the running entity
    /// `id`'s property `name` at `place` (the place the write kept, `place_of`), written
    /// where it lies when [`Addresses::owned_property`] says it may be; else the general
    /// way, after which the entity's place, its owner and the property's place are kept.
    #[inline(always)]
    pub(super) fn write_kept_slot(
        &mut self,
        cx: &super::Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        place: &AtomicU64,
        value: Value,
    ) -> Result<(), Value> {
        let at = place.load(Ordering::Relaxed);
        let free = !(self.world.canvas.active || id.is_representation() || cx.trace || cx.stepping);
        match self
            .addresses
            .owned_property(&self.world.entities, id.0, at)
        {
            Some(p) if free => {
                // SAFETY: the entity is the entities' alone and lies where it was written
                // last (`owned_property`); nothing borrows it while the code runs.
                let old = unsafe { std::ptr::replace(p, value) };
                if self.logging() {
                    self.log_slot(id, at as u16, old);
                } else {
                    Value::release(old);
                }
                Ok(())
            }
            _ => self.write_kept_slowly(cx, id, name, place, value),
        }
    }

    #[inline(never)]
    fn write_kept_slowly(
        &mut self,
        cx: &super::Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        place: &AtomicU64,
        value: Value,
    ) -> Result<(), Value> {
        self.write_layout_slot(cx, id, name, value)?;
        // An entity the table has no place for (one made at run time) is not kept.
        let Some(cell) = self.addresses.entries.get(id.0 as usize) else {
            return Ok(());
        };
        // The entity, just written through `entity_mut`, is the entities' alone.
        let entities = &mut self.world.entities;
        let Some(e) = entities.entity_mut(id.0 as usize) else {
            return Ok(());
        };
        let Some(slot) = cx.game.slot(e.ty, name) else {
            return Ok(());
        };
        let at = place_of(e.ty, slot);
        let mut kept = Entry {
            generation: 0,
            entity: &raw const *e,
            props: e.props.as_mut_ptr(),
            ty: e.ty.0,
            len: e.props.len() as u32,
            name: e.name.id(),
            owned: 0,
        };
        (kept.generation, kept.owned) = (entities.generation(), entities.owner());
        cell.set(kept);
        place.store(at, Ordering::Relaxed);
        Ok(())
    }
}

impl super::Machine {
    /// Property `name` of entity `id` (of the game, named `named` if that is given)
    /// from its layout, and its place there ([`place_of`]): the entity found through the
    /// table (and kept).
    pub(super) fn kept_layout_property(
        &self,
        game: &crate::compile::program::Game,
        id: u32,
        named: Option<crate::symbol::Symbol>,
        name: crate::symbol::Symbol,
    ) -> Option<(&Value, u64)> {
        let e = self.addresses.find(&self.world.entities, id)?;
        if named.is_some_and(|n| n != e.name) {
            return None;
        }
        let slot = game.indexed_slot(e.ty, name)?;
        Some((e.props.get(usize::from(slot))?, place_of(e.ty, slot)))
    }

    /// The id the fixed table gives `name`.
    #[inline(always)]
    pub(super) fn fixed_id(&self, name: crate::symbol::Symbol) -> Option<u32> {
        self.fixed.get(name).map(|id| id.0)
    }

    /// [`super::Machine::fixed_entity_of`] through the table: the entity the game started
    /// with that is named `name`, if it still exists, read where it was found last or
    /// found and kept (for the generated code, which reads the table in line).
    #[inline(always)]
    pub(super) fn kept_entity_of(
        &self,
        name: crate::symbol::Symbol,
    ) -> Option<(super::EntityId, &Entity)> {
        let id = self.fixed.get(name)?;
        let e = self.addresses.find(&self.world.entities, id.0)?;
        (e.name == name).then_some((id, e))
    }
}
