//! The compile layer: name resolution, static checks and lowering to bytecode.
//!
//! Boundary: this layer knows what names mean (entity types, instances, functions,
//! parameters, locals, builtins) and how code is laid out for the VM, but not how anything
//! runs. It reads the AST and never changes it.

pub mod boards;
pub mod builtins;
pub mod bytecode;
pub mod check;
pub mod codegen;
pub mod listing;
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
    /// The game has errors; the diagnostics (with the warnings found alongside) point into
    /// the sources.
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
    build_game_with_rules(fs, path, &[])
}

/// Like [`build_game`], then apply each rules file in `rules` (house rules and variants:
/// files of `#law` and `#sideeffect` directives, which may `replaces` the game's own) after
/// the game's advice.
pub fn build_game_with_rules(
    fs: &dyn FileSystem,
    path: &Path,
    rules: &[std::path::PathBuf],
) -> Result<Built, BuildError> {
    let built = build_base(fs, path)?;
    if rules.is_empty() {
        return Ok(built);
    }
    let Built {
        mut sources,
        game,
        program,
        root,
        mut warnings,
    } = built;
    let mut game = std::sync::Arc::unwrap_or_clone(game);
    // Every diagnostic of the rules files, errors and warnings.
    let mut report = Vec::new();
    for rules_path in rules {
        let loaded = match crate::syntax::load::load_into(fs, rules_path, sources) {
            Ok(l) => l,
            Err(e) => return Err(BuildError::Open(e)),
        };
        sources = loaded.sources;
        let mut diags = loaded.diagnostics;
        for item in &loaded.program.items {
            let crate::syntax::ast::Item::Advice(a) = item else {
                diags.push(
                    Diagnostic::error(
                        "not-a-rule",
                        item.span(),
                        "a rules file holds only #law and #sideeffect directives",
                    )
                    .with_hint("put entities, functions and the rest in the game itself"),
                );
                continue;
            };
            let in_force: Vec<String> = game
                .advice
                .iter()
                .map(|a| a.name.as_str().to_string())
                .collect();
            let found = check::check_snippet(&program, &in_force, check::Snippet::Advice(a));
            let refused = found.iter().any(Diagnostic::is_error);
            diags.extend(found);
            if refused {
                continue;
            }
            let name = crate::symbol::Symbol::intern(&check::advice_name(a, game.advice.len() + 1));
            let replaces = a.replaces.map(|r| r.sym);
            if in_force.iter().any(|n| n == name.as_str()) && replaces != Some(name) {
                diags.push(
                    Diagnostic::error(
                        "duplicate-advice",
                        a.name.map_or(a.span, |n| n.span),
                        format!("the game already has advice named `{name}`"),
                    )
                    .with_hint("give the rule another name, or write `replaces` to take its place"),
                );
                continue;
            }
            match codegen::compile_advice(&mut game, a, name) {
                Ok(advice) => game.add_advice(advice, replaces),
                Err(e) => diags.extend(e),
            }
        }
        report.extend(diags);
    }
    diagnostic::sort(&mut report);
    if report.iter().any(Diagnostic::is_error) {
        // The warnings go with the errors: the rules files' whole report.
        return Err(BuildError::Errors(sources, report));
    }
    warnings.extend(report);
    Ok(Built {
        sources,
        game: std::sync::Arc::new(game),
        program,
        root,
        warnings,
    })
}

fn build_base(fs: &dyn FileSystem, path: &Path) -> Result<Built, BuildError> {
    let checked = check_game(fs, path, &CheckOptions::default()).map_err(BuildError::Open)?;
    if !checked.is_clean() {
        return Err(BuildError::Errors(
            checked.loaded.sources,
            checked.diagnostics,
        ));
    }
    match codegen::compile(&checked.loaded.program, &checked.loaded.sources) {
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
