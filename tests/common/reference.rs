//! What the comparisons with independent implementations share (OpenSpiel's Oware and Go,
//! python-chess): finding the crate root, building a bundled game with rules files,
//! reading properties, perft counts, and the live side (is the Python package there, which
//! seeds to play).

#![allow(dead_code)] // each comparison uses its own part of this module

use flexrules::api::Match;
use flexrules::play::perft::perft;
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

/// The fixture files in `dir` whose names start with `prefix` and end in `.txt`, in name
/// order.
pub fn fixture_files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".txt"))
        })
        .collect();
    files.sort();
    files
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
        .world()
        .lookup(sym(entity))
        .unwrap_or_else(|| panic!("no entity {entity}"));
    let e = session.world().entity(id).expect("alive");
    e.property(&session.game, sym(name))
        .unwrap_or_else(|| panic!("{entity} has no property {name}"))
        .clone()
}

/// Perft counts per depth; a candidate failing with a runtime error fails the test.
pub fn perft_counts(session: &mut Session, depth: usize) -> Vec<u64> {
    let perft = Match::around(session, |m| perft(m, depth));
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

/// The whole number in the environment variable `var`, or `default`.
pub fn env_count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// What the reference script `tools/<script>` prints for each of `seeds`, run as
/// `python3 tools/<script> <args> --seed <seed> --count <count>`; then the seeds are
/// printed with the variable `seeds_var` that replays them, so a failure can be rerun.
pub fn run_reference(
    script: &str,
    args: &[&str],
    seeds: &[u64],
    count: usize,
    seeds_var: &str,
) -> Vec<(u64, String)> {
    let script = root().join("tools").join(script);
    let mut out = Vec::new();
    for &seed in seeds {
        let run = Command::new("python3")
            .arg(&script)
            .args(args)
            .args(["--seed", &seed.to_string(), "--count", &count.to_string()])
            .output()
            .expect("python3 runs");
        assert!(
            run.status.success(),
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        out.push((seed, String::from_utf8(run.stdout).expect("UTF-8")));
    }
    let list: Vec<String> = seeds.iter().map(u64::to_string).collect();
    eprintln!(
        "live {} seeds {} (rerun with {seeds_var}={})",
        args.join(" "),
        list.join(" "),
        list.join(",")
    );
    out
}
