//! The world: every entity, the outcome, the advice in force and the random generator,
//! in one persistent value.
//!
//! Cloning a [`World`] is O(1) (a few reference counts), which is what checkpoints, undo
//! and trying a move on a copy rely on. Writing to an entity that a snapshot shares copies
//! only that entity and the path to it.

use std::hash::BuildHasherDefault;
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHasher;

use crate::compile::program::{Advice, AdviceTarget, FromRay, Game, TypeId};
use crate::symbol::Symbol;
use crate::syntax::ast::AdviceKind;

pub use super::entity::{Entity, EntityId, Extra, INLINE_PROPS, Props};
use super::value::{Dict, Key, List, Value};

/// The ids of the entities a session started with, by name.
///
/// Names are symbols, and the names of one game's entities are mostly interned together,
/// so their numbers are close: the table is an array indexed by symbol number (from the
/// smallest), which turns finding `"a1"` into one array read. Names spread too far apart
/// for an array go in a hash map. A name found here still has to be checked against the
/// world: the entity may have been deleted since (ids are never reused, and a new entity
/// of the same name has a new id).
#[derive(Debug, Default)]
pub struct FixedNames {
    /// The symbol number of `ids[0]`.
    first: usize,
    /// Entity ids by symbol number, [`NO_ENTITY`] where no entity has that name.
    ids: Vec<u32>,
    /// The names the array does not cover.
    others: rustc_hash::FxHashMap<Symbol, EntityId>,
    /// One more than the largest id in the table (0 when empty).
    id_bound: usize,
}

const NO_ENTITY: u32 = u32::MAX;

impl FixedNames {
    /// The id the entity named `name` had when the session started.
    #[inline]
    pub fn get(&self, name: Symbol) -> Option<EntityId> {
        match self.ids.get(name.index().wrapping_sub(self.first)) {
            Some(&id) if id != NO_ENTITY => Some(EntityId(id)),
            Some(_) => None,
            None if self.others.is_empty() => None,
            None => self.others.get(&name).copied(),
        }
    }

    /// The array the table reads: the symbol number of its first place, and the ids by
    /// place ([`u32::MAX`] where no entity has that name). Names it does not cover are
    /// found another way.
    pub fn array(&self) -> (usize, &[u32]) {
        (self.first, &self.ids)
    }

    /// One more than the largest id the table gives (0 when it gives none).
    pub fn id_bound(&self) -> usize {
        self.id_bound
    }
}

impl FromIterator<(Symbol, EntityId)> for FixedNames {
    fn from_iter<I: IntoIterator<Item = (Symbol, EntityId)>>(iter: I) -> FixedNames {
        let mut names: Vec<(Symbol, EntityId)> = iter.into_iter().collect();
        names.sort_by_key(|(n, _)| n.index());
        let mut t = FixedNames::default();
        let (Some(lo), Some(hi)) = (names.first(), names.last()) else {
            return t;
        };
        t.id_bound = names
            .iter()
            .map(|(_, id)| id.0 as usize + 1)
            .max()
            .unwrap_or(0);
        let span = hi.0.index() - lo.0.index() + 1;
        // At most 16 empty places per name (plus a little), else a hash map.
        if span <= 16 * names.len() + 1024 {
            t.first = lo.0.index();
            t.ids = vec![NO_ENTITY; span];
            for (n, id) in names {
                t.ids[n.index() - t.first] = id.0;
            }
        } else {
            t.others = names.into_iter().collect();
        }
        t
    }
}

/// An advice with its switch.
#[derive(Clone, Debug)]
pub struct AdviceEntry {
    /// The advice.
    pub advice: Arc<Advice>,
    /// Disabled advice stays in the list (and in order) but does not run.
    pub enabled: bool,
}

/// The advice in force, in definition order.
#[derive(Clone, Debug, Default)]
pub struct AdviceTable {
    /// The entries.
    pub entries: Vec<AdviceEntry>,
    /// A number no other table has had, renewed on every change, so caches of advice
    /// chains know when to rebuild.
    pub version: u64,
}

/// A fresh advice-table version.
pub fn next_version() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl AdviceTable {
    /// The game's advice, enabled but for those a rules file disabled.
    pub fn from_game(game: &Game) -> AdviceTable {
        AdviceTable {
            entries: game
                .advice
                .iter()
                .map(|a| AdviceEntry {
                    advice: Arc::new(a.clone()),
                    enabled: !game.disabled.contains(&a.name),
                })
                .collect(),
            version: next_version(),
        }
    }

    /// The entry named `name`.
    pub fn find(&self, name: Symbol) -> Option<usize> {
        self.entries.iter().position(|e| e.advice.name == name)
    }

    /// The laws and side-effects that run when `label` reaches `entity` (of type `ty`) in
    /// `state`, in definition order.
    pub fn chain(
        &self,
        game: &Game,
        ty: TypeId,
        entity: Symbol,
        state: Symbol,
        label: Symbol,
    ) -> Chain {
        let mut chain = Chain::default();
        for e in self.entries.iter().filter(|e| e.enabled) {
            let a = &e.advice;
            let target = match a.target {
                AdviceTarget::Type(t) => game.is_a(ty, t),
                AdviceTarget::Instance(n) => n == entity,
            };
            if target && a.label.is_none_or(|l| l == label) && a.state.is_none_or(|s| s == state) {
                match a.kind {
                    AdviceKind::Law => {
                        chain.laws_may_change_world |= game.code(a.code).may_change_world();
                        chain.laws.push(a.clone());
                    }
                    AdviceKind::SideEffect => chain.side_effects.push(a.clone()),
                }
            }
        }
        chain
    }
}

/// The ordered advice of one join point.
#[derive(Clone, Debug, Default)]
pub struct Chain {
    /// Laws, in order.
    pub laws: Vec<Arc<Advice>>,
    /// Side-effects, in order.
    pub side_effects: Vec<Arc<Advice>>,
    /// Whether some law may change the world (so a veto has something to undo).
    pub laws_may_change_world: bool,
    /// For the machine-code generator: every body of the chain, and the behaviour its
    /// join points run, was found to have a direct form, by the generator whose number
    /// is in the high half, when as many direct forms had been taken away as the low
    /// half says, less one (0: not known).
    #[cfg(feature = "jit")]
    pub direct: std::cell::Cell<u64>,
    /// For the machine-code generator: the chain compiled as one function, by the
    /// generator whose number is first: its address (0: not yet; 1: it could not be).
    #[cfg(feature = "jit")]
    pub code: std::cell::Cell<(u32, usize)>,
}

type NameMap = imbl::GenericHashMap<
    Symbol,
    EntityId,
    BuildHasherDefault<FxHasher>,
    imbl::shared_ptr::DefaultSharedPtr,
>;

// A copy of the world for another thread (`private_copy`) shares its name map: names and
// ids, in nodes that are safe to share between threads.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<NameMap>();
};

/// Everything a game's state is.
#[derive(Clone, Debug)]
pub struct World {
    /// Entities by id; `None` once deleted.
    pub entities: super::entities::Entities,
    /// Entity names to ids.
    pub names: NameMap,
    /// What `(finish with ...)` recorded.
    pub outcome: Option<Dict>,
    /// The advice in force.
    pub advice: Arc<AdviceTable>,
    /// The state of the random generator.
    pub rng: u64,
    /// What the representations drew (empty unless someone watches).
    pub canvas: Rc<super::canvas::Canvas>,
}

impl World {
    /// A copy of the world that shares no reference count with `self`: its own entities
    /// (and the nodes that hold them), property values copied all the way down (see
    /// [`Value::private_copy`]), its own outcome and advice. What a thread that plays from
    /// this world gets (values stay on the thread that made them, see [`Value`]); it has
    /// no canvas (nobody draws while threads play).
    pub fn private_copy(&self) -> World {
        let mut entities = super::entities::Entities::new();
        for i in 0..self.entities.len() {
            let slot = self.entities.get(i).and_then(|e| e.as_deref());
            entities.push_back(slot.map(|e| Rc::new(e.private_copy())));
        }
        World {
            entities,
            names: self.names.clone(),
            outcome: self.outcome.as_ref().map(Dict::private_copy),
            advice: Arc::new((*self.advice).clone()),
            rng: self.rng,
            canvas: Rc::default(),
        }
    }

    /// An empty world with the game's advice and a generator seeded with `seed`.
    pub fn new(game: &Game, seed: u64) -> World {
        World {
            entities: Default::default(),
            names: NameMap::default(),
            outcome: None,
            advice: Arc::new(AdviceTable::from_game(game)),
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            canvas: Rc::default(),
        }
    }

    /// The id of the entity named `name`.
    pub fn lookup(&self, name: Symbol) -> Option<EntityId> {
        self.names.get(&name).copied()
    }

    /// The entity `id`, unless deleted (or the representation, for a representation id).
    #[inline]
    pub fn entity(&self, id: EntityId) -> Option<&Entity> {
        if id.is_representation() {
            return self.canvas.representation(id);
        }
        self.entities.get(id.0 as usize).and_then(|e| e.as_deref())
    }

    /// The entity `id` of the game (an id the world gave, never a representation's),
    /// unless deleted.
    #[inline(always)]
    pub fn game_entity(&self, id: EntityId) -> Option<&Entity> {
        debug_assert!(!id.is_representation());
        self.entities.get(id.0 as usize).and_then(|e| e.as_deref())
    }

    /// A writable entity `id` of the game (never a representation's), copied first if a
    /// snapshot shares it.
    #[inline(always)]
    pub fn game_entity_mut(&mut self, id: EntityId) -> Option<&mut Entity> {
        debug_assert!(!id.is_representation());
        self.entities.entity_mut(id.0 as usize)
    }

    /// A writable entity `id` (copied first if a snapshot shares it).
    #[inline(always)]
    pub fn entity_mut(&mut self, id: EntityId) -> Option<&mut Entity> {
        if id.is_representation() {
            return Rc::make_mut(&mut self.canvas).representation_mut(id);
        }
        self.entities.entity_mut(id.0 as usize)
    }

    /// Add an entity; the caller has checked the name is free.
    pub fn add(&mut self, entity: Entity) -> EntityId {
        // An entity takes far more memory than the ids four billion entities would need.
        let Ok(index) = u32::try_from(self.entities.len()) else {
            panic!("more than 2^32 entities");
        };
        let id = EntityId(index);
        self.names.insert(entity.name, id);
        self.entities.push_back(Some(Rc::new(entity)));
        id
    }

    /// Delete entity `id`.
    pub fn remove(&mut self, id: EntityId) {
        if let Some(slot) = self.entities.slot_mut(id.0 as usize)
            && let Some(e) = slot.take()
        {
            self.names.remove(&e.name);
        }
        if self.canvas.active {
            Rc::make_mut(&mut self.canvas).detach(id);
        }
    }

    /// Every live entity, in creation order.
    pub fn iter(&self) -> impl Iterator<Item = (EntityId, &Entity)> {
        self.entities
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_deref().map(|e| (EntityId(i as u32), e)))
    }

    /// The next number of the seeded generator (splitmix64).
    pub fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (n > 0).
    pub fn random_below(&mut self, n: u64) -> u64 {
        // Rejection sampling keeps it uniform and deterministic.
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let r = self.next_random();
            if r < zone {
                return r % n;
            }
        }
    }

    /// About how many bytes of entities and of the nodes that hold them `self` holds that
    /// `older` (a world it was made from) does not share (see
    /// [`super::entities::Entities::new_bytes_since`]); what a REPL's history counts a
    /// change beside the memory its transaction was counted.
    pub fn new_bytes_since(&self, older: &World) -> u64 {
        self.entities.new_bytes_since(&older.entities)
    }

    /// Structural equality of two worlds (entities, names, outcome, advice switches,
    /// generator), for tests and replay checks.
    pub fn same_as(&self, other: &World) -> bool {
        let entities_equal = self.entities.len() == other.entities.len()
            && self
                .entities
                .iter()
                .zip(other.entities.iter())
                .all(|(a, b)| match (a, b) {
                    (None, None) => true,
                    (Some(a), Some(b)) => {
                        Rc::ptr_eq(a, b)
                            || (a.name == b.name
                                && a.ty == b.ty
                                && a.state == b.state
                                && a.props == b.props
                                && a.extra == b.extra)
                    }
                    _ => false,
                });
        entities_equal
            && self.outcome == other.outcome
            && self.rng == other.rng
            && (Rc::ptr_eq(&self.canvas, &other.canvas) || self.canvas.same_as(&other.canvas))
            && self.advice.entries.len() == other.advice.entries.len()
            && self
                .advice
                .entries
                .iter()
                .zip(other.advice.entries.iter())
                .all(|(a, b)| a.enabled == b.enabled && Arc::ptr_eq(&a.advice, &b.advice))
    }
}

/// A ray of a board as the VM gives it: a list of cell names, scalars, one deep.
impl FromRay for Value {
    #[inline]
    fn from_ray(cells: &[Symbol]) -> Value {
        Value::list(List::with_depth(
            cells.iter().map(|&c| Value::sym(c)).collect(),
            1,
        ))
    }
}

/// Build a dictionary of names (a links table).
pub fn links_dict(links: &[(Symbol, Symbol)]) -> Value {
    Value::dict(
        links
            .iter()
            .map(|(d, c)| (Key::sym(*d), Value::sym(*c)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(props: usize) -> Entity {
        Entity {
            name: Symbol::intern("pit"),
            ty: TypeId(0),
            state: Symbol::intern("default"),
            props: (0..props as i64).map(Value::Int).collect(),
            extra: Default::default(),
        }
    }

    #[test]
    fn a_copied_entity_leaves_the_snapshot_unchanged() {
        // Inline (a few properties) and spilled (more than fit inline) layouts alike.
        for n in [0, 1, INLINE_PROPS, INLINE_PROPS + 3] {
            let shared = Rc::new(entity(n));
            let mut mine = Rc::clone(&shared);
            let e = Rc::make_mut(&mut mine);
            if let Some(first) = e.props.first_mut() {
                *first = Value::str("changed");
            }
            e.extra
                .insert(Key::sym(Symbol::intern("added")), Value::Int(7));
            assert!(!Rc::ptr_eq(&shared, &mine));
            assert_eq!(shared.props.len(), n);
            assert_eq!(mine.props.len(), n);
            for (i, v) in shared.props.iter().enumerate() {
                assert_eq!(*v, Value::Int(i as i64));
            }
            if n > 0 {
                assert_eq!(mine.props[0], Value::str("changed"));
                assert_eq!(&mine.props[1..], &shared.props[1..]);
            }
            assert!(shared.extra.is_empty());
            assert_eq!(shared.extra, Extra::default());
            assert_ne!(mine.extra, shared.extra);
            assert_eq!(mine.extra.iter().count(), 1);
            assert_eq!(
                mine.extra.get(&Key::sym(Symbol::intern("added"))),
                Some(&Value::Int(7))
            );
        }
    }

    #[test]
    fn run_time_properties_are_kept_apart_from_the_layout() {
        let mut e = entity(2);
        let (a, b) = (Key::sym(Symbol::intern("a")), Key::sym(Symbol::intern("b")));
        assert_eq!(e.extra.get(&a), None);
        assert_eq!(e.extra.insert(b.clone(), Value::Int(2)), None);
        assert_eq!(e.extra.insert(a.clone(), Value::Int(1)), None);
        *e.extra.get_mut(&b).unwrap_or_else(|| unreachable!()) = Value::Int(20);
        let keys: Vec<_> = e
            .extra
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(keys, vec![(a, Value::Int(1)), (b, Value::Int(20))]);
        assert_eq!(e.props.len(), 2);
        let copy = e.clone();
        assert_eq!(copy.extra, e.extra);
    }

    #[test]
    fn a_few_properties_need_no_array_of_their_own() {
        assert!(!entity(INLINE_PROPS).props.spilled());
        assert!(entity(INLINE_PROPS + 1).props.spilled());
    }
}
