//! The compile layer: name resolution, static checks and lowering to bytecode.
//!
//! Boundary: this layer knows what names mean (entity types, instances, functions,
//! parameters, locals, builtins) and how code is laid out for the VM, but not how anything
//! runs. It reads the AST and never changes it.

pub mod builtins;
pub mod bytecode;
pub mod check;
pub mod codegen;
pub mod program;

pub use check::{CheckOptions, check};

use std::path::Path;

use crate::diagnostic::{self, Diagnostic};
use crate::syntax::load::{FileSystem, Loaded, OpenError, load};

/// A game read and checked: the sources and AST, and every diagnostic of every phase in
/// source order.
#[derive(Debug)]
pub struct Checked {
    /// The loaded game.
    pub loaded: Loaded,
    /// Lexer, parser, loader and checker diagnostics, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// True when no diagnostic is an error.
    pub fn is_clean(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Load the game at `path` from `fs` and run every static check: the whole front end.
pub fn check_game(
    fs: &dyn FileSystem,
    path: &Path,
    options: &CheckOptions,
) -> Result<Checked, OpenError> {
    let loaded = load(fs, path)?;
    let mut diagnostics = loaded.diagnostics.clone();
    diagnostics.extend(check(&loaded, options));
    diagnostic::sort(&mut diagnostics);
    Ok(Checked {
        loaded,
        diagnostics,
    })
}
