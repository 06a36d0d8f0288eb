//! The runtime: values, the world, the bytecode VM, transactions and join points.
//!
//! Boundary: the runtime runs what `compile` produced; it never looks at the source text
//! except through spans carried by compiled code, nor at the AST except in one place: the
//! fast tier (`vm/fast_build.rs`) is built from the AST each compiled body keeps.

pub mod board_data;
pub mod budget;
pub mod builtin_error;
pub mod builtins;
pub mod canvas;
pub mod digest;
pub mod entities;
pub mod entity;
pub mod moves;
pub mod opstats;
pub mod outside;
pub mod profile;
pub mod session;
pub mod trace;
pub mod trace_text;
pub mod value;
pub mod vm;
pub mod watch;
pub mod world;
