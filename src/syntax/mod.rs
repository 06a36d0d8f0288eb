//! The syntax layer: tokens, reader, AST, lowering and the file loader.
//!
//! Boundary: this layer knows the shape of the language but nothing about what names
//! mean (that is `compile`) or how anything runs (that is `runtime`). Parsing never fails:
//! it returns a tree and a list of diagnostics.

pub mod ast;
pub mod dump;
pub mod load;
pub mod lower;
pub mod reader;
pub mod token;
