//! The play layer: everything that plays a game rather than runs it. Random playouts,
//! perft, agents and their Monte Carlo tree searches (seeing the world, or, for games of
//! hidden information, only what the deciding player has seen), runs of many games spread over
//! threads, and the statistics of what they gave.
//!
//! Boundary: it sits on the public game API ([`crate::api`]) and imports nothing from the
//! runtime or the compiler: a search works on a [`crate::api::Match`], trying the game's
//! candidate moves in place ([`crate::api::Match::try_move`], [`crate::api::Match::make`]).
//! Its entry points are functions of the match (`playout::playout`, `perft::perft`,
//! `mcts::playout_with`, `mcts::analyse`, `games::play`), each in the file of its concept;
//! the runtime knows nothing of them (`tests/layers.rs` checks both).

pub mod agent;
pub mod duplicate;
pub mod games;
pub mod ismcts;
pub mod mcts;
pub mod perft;
pub mod playout;
pub mod plot;
pub mod pool;
pub mod range;
pub mod stats;
pub mod summary;
pub mod system;
