//! The play layer: everything that plays a game rather than runs it. Random playouts,
//! perft, agents and their Monte Carlo tree search, runs of many games spread over
//! threads, and the statistics of what they gave.
//!
//! Boundary: it sits above the runtime and uses only the runtime's public API (a
//! [`Session`](crate::runtime::session::Session), its moves tried in place); the runtime
//! knows nothing of it. Its methods on `Session` (`playout`, `perft`, `playout_with`,
//! `analyse`, ...) are defined here, in the file of their concept.

pub mod agent;
pub mod games;
pub mod mcts;
pub mod perft;
pub mod playout;
pub mod pool;
pub mod stats;
