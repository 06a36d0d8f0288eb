//! Copies of a session: [`Session::fork`] for another thread (wrapped in [`Isolated`],
//! which says what may cross threads) and [`Session::branch`] on this one.

use crate::compile::program::Game;
use crate::runtime::value::Value;
use crate::runtime::vm::{ChainCache, Limits, Machine};

use super::Session;

impl Session {
    /// A copy sharing the game, with the same world and parameters and its own caches, to
    /// run playouts or perft on another thread (profiling, from zero, if this session is).
    /// The world (without its canvas: nobody draws on those threads), the parameters and
    /// the defaults are copied all the way down, so the copy holds no reference count of
    /// this session's values and may go to another thread.
    pub fn fork(&self) -> Isolated<Session> {
        let mut home = Box::new(Machine::holding(self.world().private_copy()));
        if self.home.profiling() {
            home.set_profile(Some(Box::default()));
        }
        let session = Session {
            game: self.game.clone(),
            home,
            params: self
                .params
                .iter()
                .map(|(k, v)| (*k, v.private_copy()))
                .collect(),
            defaults: self
                .defaults
                .iter()
                .map(|row| row.iter().map(Value::private_copy).collect())
                .collect(),
            cache: ChainCache::default(),
            limits: self.limits,
            trace: false,
            tier: self.tier,
            fast: self.fast.clone(),
            interrupt: None,
            fixed: self.fixed.clone(),
            kept_message: None,
            checked: Default::default(),
            start_drew: self.start_drew,
        };
        Isolated(session)
    }

    /// A copy on this thread sharing everything with this one: the same world (a
    /// persistent value, so the copy costs a few reference counts, and a write in either
    /// copies only what it changes), parameters and defaults, with caches of its own.
    pub fn branch(&self) -> Session {
        Session {
            game: self.game.clone(),
            home: Box::new(Machine::holding(self.world().clone())),
            params: self.params.clone(),
            defaults: self.defaults.clone(),
            cache: ChainCache::default(),
            limits: self.limits,
            trace: self.trace,
            tier: self.tier,
            fast: self.fast.clone(),
            interrupt: self.interrupt.clone(),
            fixed: self.fixed.clone(),
            kept_message: None,
            checked: Default::default(),
            start_drew: self.start_drew,
        }
    }
}

/// What goes to another thread: a session or values that hold no reference count that
/// anything else holds. A value's counts are not atomic, so values stay on the thread
/// that made them (see `value`); another thread gets copies made all the way down
/// ([`Value::private_copy`], [`World::private_copy`]), wrapped in this.
pub struct Isolated<T>(T);

// SAFETY: an `Isolated` is made only by `Session::fork` and `Isolated::new`, and each
// copies every value it puts in all the way down (`new` by its caller's promise): no
// reference count inside an `Isolated` is held outside it, so the thread that takes it
// is the only one to touch those counts. What a fork shares with the session it came
// from (the game, the advice, the names of the entities) is `Send` and `Sync`, checked
// below and beside `World`; the rest of it (its entities and their tree, its machine's
// buffers, its caches) is its own.
unsafe impl<T> Send for Isolated<T> {}

// What a fork shares with the session it was made from (rather than copying) is safe to
// share between threads: checked here, as `Isolated`'s `Send` does not check it.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Game>();
    shared::<crate::runtime::world::FixedNames>();
    shared::<crate::runtime::world::AdviceTable>();
    shared::<Limits>();
};

impl<T> Isolated<T> {
    /// `value` to hand to another thread.
    ///
    /// # Safety
    ///
    /// Nothing outside `value` may hold a reference count of a value inside it: it was
    /// copied all the way down (the copy's counts are the copy's alone) or made for the
    /// purpose, and nothing kept a copy of it since.
    pub unsafe fn new(value: T) -> Isolated<T> {
        Isolated(value)
    }

    /// What was handed over, on the thread that took it.
    pub fn into_inner(self) -> T {
        self.0
    }
}
