//! The advice-chain cache: the laws and side-effects that apply to a message, worked out
//! once per (type, instance, state, label) and kept, with the few asked for last at hand.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::compile::bytecode::CodeId;
use crate::compile::program::{Game, TypeId};
use crate::symbol::Symbol;

use super::super::world::{Chain, World};

/// Advice chains already worked out, per (type, instance with its own advice, state,
/// label), for one advice table.
#[derive(Default, Debug)]
pub struct ChainCache {
    version: u64,
    chains: FxHashMap<(TypeId, Option<Symbol>, Symbol, Symbol), Rc<Chain>>,
    /// Instances that some advice names directly.
    pub(super) instance_targets: Vec<Symbol>,
    /// The chain of a representation's join point: no advice binds to representations.
    pub(super) empty: Rc<Chain>,
    /// The chains asked for last (a few, the oldest replaced first), with the behaviour
    /// their type has for that state and label: a transaction's join points, which most
    /// often follow the same few kinds of message from move to move, find both with a
    /// few compares, without hashing (a game's behaviours never change once it is
    /// built).
    recent: [Option<Recent>; RECENT_CHAINS],
    /// The entry of `recent` to replace next.
    next_recent: usize,
    /// For machine code: what each send (by its site's number) reached last, run
    /// directly: a send to an entity of the same type in the same state under the same
    /// advice finds its chain's code here without looking the chain up.
    #[cfg(feature = "jit")]
    pub(super) sends: Vec<SendMemo>,
}

/// What a send of machine code reached last ([`ChainCache::sends`]).
#[cfg(feature = "jit")]
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SendMemo {
    /// The advice table's version, and the generator's stamp (its number and how many
    /// direct forms had been taken away), when it was kept (0: nothing kept).
    pub version: u64,
    pub stamp: u64,
    /// The recipient's type and state (a recipient some advice names itself is not
    /// kept).
    pub ty: Option<TypeId>,
    pub state: Option<Symbol>,
    /// The code of the chain that runs.
    pub code: usize,
}

/// How many chains a [`ChainCache`] keeps at hand.
const RECENT_CHAINS: usize = 8;

/// A chain a [`ChainCache`] was asked for lately, by the key of its table.
#[derive(Debug)]
struct Recent {
    key: (TypeId, Option<Symbol>, Symbol, Symbol),
    chain: Rc<Chain>,
    behaviour: Option<CodeId>,
}

impl ChainCache {
    #[inline]
    pub(super) fn get(
        &mut self,
        game: &Game,
        world: &World,
        ty: TypeId,
        entity: Symbol,
        state: Symbol,
        label: Symbol,
    ) -> (Rc<Chain>, Option<CodeId>) {
        let table = &world.advice;
        if table.version != self.version {
            self.chains.clear();
            self.recent = Default::default();
            self.version = table.version;
            self.instance_targets = table
                .entries
                .iter()
                .filter_map(|e| match e.advice.target {
                    crate::compile::program::AdviceTarget::Instance(n) => Some(n),
                    _ => None,
                })
                .collect();
        }
        let inst = self.instance_targets.contains(&entity).then_some(entity);
        let key = (ty, inst, state, label);
        if let Some(r) = self.recent.iter().flatten().find(|r| r.key == key) {
            return (r.chain.clone(), r.behaviour);
        }
        let chain = self
            .chains
            .entry(key)
            .or_insert_with(|| Rc::new(table.chain(game, ty, entity, state, label)))
            .clone();
        let behaviour = game.ty(ty).behaviours.get(&(state, label)).copied();
        self.recent[self.next_recent] = Some(Recent {
            key,
            chain: chain.clone(),
            behaviour,
        });
        self.next_recent = (self.next_recent + 1) % RECENT_CHAINS;
        (chain, behaviour)
    }
}
