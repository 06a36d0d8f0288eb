//! Every bundled game under `games/`, and each of its variants (the rules files of its
//! `variants/` directory, applied one at a time as `flexrules check --rules` applies
//! them), checks with no error and no warning: the static checks raise no false alarm on
//! real games.

use std::path::{Path, PathBuf};

use flexrules::compile::{BuildError, CheckOptions, build_game_with_rules, check_game};
use flexrules::diagnostic::render_plain;
use flexrules::syntax::load::DiskFs;

fn options() -> CheckOptions {
    CheckOptions {
        lint_unused_patterns: true,
    }
}

/// The games under `games/`, then the held-out ones.
fn games() -> Vec<PathBuf> {
    let mut games = bundled();
    // The games kept as test inputs that are whole games, written as a designer would
    // (their variants are fixtures of mistakes, and are not checked).
    games.extend(HELD_OUT.iter().map(PathBuf::from));
    games
}

/// The games under `games/`.
fn bundled() -> Vec<PathBuf> {
    let mut games: Vec<PathBuf> = std::fs::read_dir("games")
        .expect("games/ is read")
        .map(|e| e.expect("an entry of games/").path())
        .filter(|p| p.join("game.fr").is_file())
        .collect();
    games.sort();
    games
}

/// Whole games kept under `tests/inputs/` (English draughts on the legal-move questions,
/// tic-tac-toe, the small game of the legal-move transcript), held to the same standard.
const HELD_OUT: [&str; 3] = [
    "tests/inputs/draughts",
    "tests/inputs/tic-tac-toe",
    "tests/inputs/repl/games/hops",
];

fn variants(game: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(game.join("variants")) else {
        return Vec::new();
    };
    let mut rules: Vec<PathBuf> = dir
        .map(|e| e.expect("an entry of variants/").path())
        .filter(|p| p.extension().is_some_and(|x| x == "fr"))
        .collect();
    rules.sort();
    rules
}

#[test]
fn bundled_games_check_clean() {
    let games = games();
    assert!(games.len() >= 8, "the bundled games are found: {games:?}");
    for game in &games {
        let checked = match check_game(&DiskFs, game, &options()) {
            Ok(c) => c,
            Err(e) => panic!("{}: {e}", game.display()),
        };
        assert!(
            checked.diagnostics.is_empty(),
            "{} should check with no error and no warning:\n{}",
            game.display(),
            render_plain(&checked.loaded.sources, &checked.diagnostics)
        );
    }
}

#[test]
fn bundled_variants_check_clean() {
    let mut count = 0;
    for game in bundled() {
        let base = match check_game(&DiskFs, &game, &options()) {
            Ok(c) => c.loaded.sources.files().count(),
            Err(e) => panic!("{}: {e}", game.display()),
        };
        for rules in variants(&game) {
            count += 1;
            let what = format!("{} --rules {}", game.display(), rules.display());
            match build_game_with_rules(&DiskFs, &game, std::slice::from_ref(&rules)) {
                Ok(built) => {
                    // Only the rules files' own diagnostics: the game's are checked above.
                    let own: Vec<_> = built
                        .warnings
                        .iter()
                        .filter(|d| d.span.file.0 as usize >= base)
                        .cloned()
                        .collect();
                    assert!(
                        own.is_empty(),
                        "{what} should check with no warning:\n{}",
                        render_plain(&built.sources, &own)
                    );
                }
                Err(BuildError::Errors(sources, diags)) => {
                    panic!("{what} has errors:\n{}", render_plain(&sources, &diags))
                }
                Err(BuildError::Open(e)) => panic!("{what}: {e}"),
            }
        }
    }
    let chess = variants(Path::new("games/chess")).len();
    assert_eq!(chess, 8, "chess has eight variants");
    assert!(count > chess, "variants of several games are checked");
}
