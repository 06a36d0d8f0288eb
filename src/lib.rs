//! flexrules: an interpreter for a Lisp-like board-game definition language in which the
//! rules people change are laws and side-effects kept apart from the entities' behaviours.
//!
//! The layers, lowest first: [`source`] and [`diagnostic`] (shared by all), [`syntax`]
//! (tokens to AST), [`compile`] (name resolution and static checks), [`runtime`], [`play`]
//! (playouts, perft, agents: what plays a game rather than runs it), [`repr`]
//! (renderers), the front ends [`repl`], [`serve`] (web play) and [`lsp`] (editors),
//! [`cli`].

#![warn(missing_docs)]

pub mod api;
pub mod board;
pub mod cli;
pub mod compile;
pub mod diagnostic;
pub mod lsp;
pub mod play;
pub mod repl;
pub mod repr;
pub mod runtime;
pub mod serve;
pub mod sgf;
pub mod source;
pub mod symbol;
pub mod syntax;
