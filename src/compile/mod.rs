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

/// What a rules file may hold, said when it holds anything else.
pub const NOT_A_RULE: &str =
    "a rules file holds only #law, #sideeffect, #disable and #enable directives";

/// Like [`build_game`], then apply each rules file in `rules` (house rules and variants:
/// files of `#law` and `#sideeffect` directives, which may `replaces` the game's own, and
/// of `#disable` and `#enable` directives, which switch a rule off or on) after the game's
/// advice, in order.
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
            let a = match item {
                crate::syntax::ast::Item::Advice(a) => a,
                crate::syntax::ast::Item::Switch(sw) => {
                    diags.extend(switch_rule(&mut game, sw));
                    continue;
                }
                _ => {
                    diags.push(
                        Diagnostic::error("not-a-rule", item.span(), NOT_A_RULE)
                            .with_hint("put entities, functions and the rest in the game itself"),
                    );
                    continue;
                }
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
                Ok(advice) => {
                    // The rule taking a disabled one's place is in force.
                    game.disabled.retain(|n| *n != name && Some(*n) != replaces);
                    game.add_advice(advice, replaces);
                }
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

/// Apply `#disable` or `#enable` (`sw`) to the rules of `game`; the error when it cannot.
fn switch_rule(game: &mut program::Game, sw: &crate::syntax::ast::SwitchDef) -> Option<Diagnostic> {
    let name = sw.name.sym;
    let names: Vec<&str> = game.advice.iter().map(|a| a.name.as_str()).collect();
    let enabled =
        (game.advice.iter().any(|a| a.name == name)).then(|| !game.disabled.contains(&name));
    if let Some(refused) = check_switch(sw, &names, enabled) {
        return Some(refused);
    }
    if sw.enable {
        game.disabled.retain(|n| *n != name);
    } else {
        game.disabled.push(name);
    }
    None
}

/// The checks `#disable` and `#enable` (`sw`) make, as `:disable` and `:enable` in the
/// REPL: the rule must be one of `names` (the rules in force, in order), and `enabled` (its
/// switch, `None` when there is no such rule) must be on to disable it, off to enable it.
/// The error when it is not.
pub fn check_switch(
    sw: &crate::syntax::ast::SwitchDef,
    names: &[&str],
    enabled: Option<bool>,
) -> Option<Diagnostic> {
    let name = sw.name.sym;
    let verb = if sw.enable { "enable" } else { "disable" };
    let Some(enabled) = enabled else {
        let hint = match diagnostic::closest(name.as_str(), names.iter().copied()) {
            Some(c) => format!("did you mean \"{c}\"?"),
            None if names.is_empty() => "the game has no law or side-effect".to_string(),
            None => format!(
                "the laws and side-effects are {}",
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Some(
            Diagnostic::error(
                "unknown-rule",
                sw.name.span,
                format!("cannot {verb}: no law or side-effect named \"{name}\""),
            )
            .with_hint(hint),
        );
    };
    if enabled == sw.enable {
        let state = if enabled { "enabled" } else { "disabled" };
        return Some(
            Diagnostic::error(
                "rule-already-switched",
                sw.name.span,
                format!("\"{name}\" is already {state}"),
            )
            .with_hint(format!("this #{verb} changes nothing; remove it")),
        );
    }
    None
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
