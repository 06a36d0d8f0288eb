//! What the comparisons with independent implementations share (OpenSpiel's Oware and Go,
//! python-chess): finding the crate root, building a bundled game with rules files,
//! reading properties, perft counts, and the live side (is the Python package there, which
//! seeds to play).

#![allow(dead_code)] // each comparison uses its own part of this module

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use flexrules::compile::build_game_with_rules;
use flexrules::compile::program::Game;
use flexrules::runtime::session::Session;
use flexrules::runtime::value::Value;
use flexrules::symbol::Symbol;
use flexrules::syntax::load::DiskFs;

/// The crate's root directory.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The game in `dir` (from the crate root) with the rules files `rules` (full paths).
pub fn game_with(dir: &str, rules: &[PathBuf]) -> Arc<Game> {
    match build_game_with_rules(&DiskFs, &root().join(dir), rules) {
        Ok(b) => b.game,
        Err(e) => panic!("{dir} with {rules:?} does not build: {e:?}"),
    }
}

/// The rules files `rules`, named from the game directory `dir`, as full paths.
pub fn rules_in(dir: &str, rules: &[&str]) -> Vec<PathBuf> {
    let dir: &Path = &root().join(dir);
    rules.iter().map(|r| dir.join(r)).collect()
}

pub fn sym(s: &str) -> Symbol {
    Symbol::intern(s)
}

/// Property `name` of the entity named `entity`.
pub fn property(session: &Session, entity: &str, name: &str) -> Value {
    let id = session
        .world
        .lookup(sym(entity))
        .unwrap_or_else(|| panic!("no entity {entity}"));
    let e = session.world.entity(id).expect("alive");
    e.property(&session.game, sym(name))
        .unwrap_or_else(|| panic!("{entity} has no property {name}"))
        .clone()
}

/// Perft counts per depth; a candidate failing with a runtime error fails the test.
pub fn perft_counts(session: &mut Session, depth: usize) -> Vec<u64> {
    let perft = session.perft(depth);
    assert!(
        perft.failures.is_empty(),
        "perft met errors: {:?}",
        perft.failures
    );
    perft.counts
}

/// Whether `python3` can import `module` (the live comparisons need it).
pub fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// The seeds of a live comparison: those listed in the environment variable `var`
/// (`1,2,...`), else `count` fresh ones, different on every run and far from the seeds
/// of the recorded fixtures.
pub fn live_seeds(var: &str, count: u64) -> Vec<u64> {
    if let Ok(s) = std::env::var(var) {
        return s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{var}: numbers separated by commas"))
            })
            .collect();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let base = 1_000 + now % 1_000_000_000;
    (base..base + count).collect()
}
