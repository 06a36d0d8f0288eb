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

/// A game compiled and ready to start.
#[derive(Debug)]
pub struct Built {
    /// Every file read (for diagnostics, including runtime ones).
    pub sources: crate::source::SourceMap,
    /// The compiled game.
    pub game: std::sync::Arc<program::Game>,
    /// The checked program (code added while the game runs is checked against it).
    pub program: std::sync::Arc<crate::syntax::ast::Program>,
    /// The game's directory.
    pub root: std::path::PathBuf,
    /// Warnings found on the way.
    pub warnings: Vec<Diagnostic>,
}

/// Why a game could not be built.
#[derive(Debug)]
pub enum BuildError {
    /// The game could not be opened at all.
    Open(OpenError),
    /// The game has errors; the diagnostics point into the sources.
    Errors(crate::source::SourceMap, Vec<Diagnostic>),
}

impl BuildError {
    /// The problem rendered without colour.
    pub fn render_plain(&self) -> String {
        match self {
            BuildError::Open(e) => format!("error: {e}\n"),
            BuildError::Errors(sources, diags) => diagnostic::render_plain(sources, diags),
        }
    }
}

/// Load, check and compile the game at `path`: everything before it runs.
pub fn build_game(fs: &dyn FileSystem, path: &Path) -> Result<Built, BuildError> {
    let checked = check_game(fs, path, &CheckOptions::default()).map_err(BuildError::Open)?;
    if !checked.is_clean() {
        return Err(BuildError::Errors(
            checked.loaded.sources,
            checked.diagnostics,
        ));
    }
    match codegen::compile(&checked.loaded.program) {
        Ok(game) => Ok(Built {
            sources: checked.loaded.sources,
            game: std::sync::Arc::new(game),
            program: std::sync::Arc::new(checked.loaded.program),
            root: checked.loaded.root,
            warnings: checked.diagnostics,
        }),
        Err(errors) => Err(BuildError::Errors(checked.loaded.sources, errors)),
    }
}
