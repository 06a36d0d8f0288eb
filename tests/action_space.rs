//! The OpenSpiel hooks of the bundled games (lang/REFERENCE.md, "OpenSpiel"): each game's
//! `action-space` lists every move a match can offer, without duplicates, for every
//! variant in its variants/ directory and every parameter that changes the move names
//! (Go's size, Goofspiel's cards and players, Archipelago's players, joChess's board):
//! random games, recorded by the play layer, play no move outside it. Bridge's `returns`
//! gives North-South's score to N and S and its opposite to E and W.

#[path = "common/jochess.rs"]
mod jochess;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use flexrules::api::{Game, Match, Status, Value};
use flexrules::play::games::play;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The rules files of a game's variants/ directory (none when it has no such directory).
fn variants(game: &str) -> Vec<PathBuf> {
    let dir = root().join("games").join(game).join("variants");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fr"))
        .collect();
    out.sort();
    out
}

fn load(game: &str, rules: Option<&Path>, params: &[(&str, String)]) -> Game {
    let mut loader = Game::loader(root().join("games").join(game));
    if let Some(r) = rules {
        loader = loader.rules(r);
    }
    for (name, value) in params {
        loader = loader.param(name, value);
    }
    loader
        .load()
        .unwrap_or_else(|e| panic!("{game} {rules:?} {params:?} loads: {e:?}"))
}

/// The value of the game's function `name` (no parameters) in `m`.
fn call(m: &mut Match, name: &str) -> Value {
    let f = m
        .function(name, "the test")
        .expect("compiles")
        .unwrap_or_else(|| panic!("the game defines `{name}`"));
    match m.call(f) {
        Status::Committed(v) => v,
        other => panic!("`({name})` did not commit: {}", other.summary()),
    }
}

/// The game's `action-space` at the start of a match: its names, checked to be strings
/// without duplicates.
fn action_space(m: &mut Match, what: &str) -> HashSet<String> {
    let Value::List(list) = call(m, "action-space") else {
        panic!("{what}: `(action-space)` is not a list");
    };
    let mut seen = HashSet::new();
    for v in list.iter() {
        let Value::Str(name) = v else {
            panic!(
                "{what}: `(action-space)` holds {}, not a string",
                v.to_text()
            );
        };
        assert!(
            seen.insert(name.as_str().to_string()),
            "{what}: `{}` twice in the action space",
            name.as_str()
        );
    }
    assert!(!seen.is_empty(), "{what}: an empty action space");
    seen
}

/// Random games of `game` with `rules` and `params`: every move recorded is in the action
/// space. Gives the number of moves checked.
fn check(game: &str, rules: Option<&Path>, params: &[(&str, String)], games: u64) -> usize {
    let what = format!("{game} {rules:?} {params:?}");
    let g = load(game, rules, params);
    let mut m = g.start_headless(0).expect("starts");
    let space = action_space(&mut m, &what);
    let (tally, _) = play(&m, games, 1, 11, 300, None, true, || {}).expect("threads");
    assert_eq!(
        tally.records.len() as u64,
        games,
        "{what}: one record a game"
    );
    let mut checked = 0;
    for (_, line) in &tally.records {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_ne!(fields[3], "error", "{what}: a game stopped: {line}");
        for mv in fields[4].split(' ').filter(|s| !s.is_empty()) {
            assert!(
                space.contains(mv),
                "{what}: `{mv}` was played but is not in the action space ({line})"
            );
            checked += 1;
        }
    }
    checked
}

/// `game` as it is and with each of its variants.
fn check_with_variants(game: &str, params: &[(&str, String)], games: u64) {
    let mut moves = check(game, None, params, games);
    for v in variants(game) {
        moves += check(game, Some(&v), params, games);
    }
    assert!(moves > 0, "{game}: no move was played");
}

#[test]
fn awele_and_mini_awele() {
    check_with_variants("awele", &[], 6);
    check_with_variants("mini-awele", &[], 6);
}

#[test]
fn chess_and_its_variants() {
    check_with_variants("chess", &[], 4);
    // The knight's jumps and the lines from each square (336 + 1456), and 22 pawn moves
    // onto the last rank for each side with each of the 4 promotions.
    let size = |rules: Option<&str>| {
        let rules = rules.map(|r| root().join("games/chess/variants").join(r));
        let g = load("chess", rules.as_deref(), &[]);
        let mut m = g.start_headless(0).expect("starts");
        action_space(&mut m, "chess").len()
    };
    assert_eq!(size(None), 336 + 1456 + 2 * 22 * 4);
    // Antichess promotes to a king too; crazyhouse drops 4 pieces on 64 squares, pawns
    // on 48.
    assert_eq!(size(Some("antichess.fr")), 336 + 1456 + 2 * 22 * 5);
    assert_eq!(
        size(Some("crazyhouse.fr")),
        336 + 1456 + 2 * 22 * 4 + 4 * 64 + 48
    );
}

#[test]
fn bridge() {
    check_with_variants("bridge", &[], 6);
    let g = load("bridge", None, &[]);
    let mut m = g.start_headless(0).expect("starts");
    assert_eq!(
        action_space(&mut m, "bridge").len(),
        38 + 52,
        "calls and cards"
    );
}

#[test]
fn go_of_every_size() {
    for size in [2, 5, 9, 13, 19] {
        check("go", None, &[("size", size.to_string())], 2);
    }
    check_with_variants("go", &[("size", "7".into())], 2);
    let g = load("go", None, &[("size", "9".into())]);
    let mut m = g.start_headless(0).expect("starts");
    assert_eq!(
        action_space(&mut m, "go 9x9").len(),
        82,
        "81 points and pass"
    );
}

#[test]
fn goofspiel_of_every_size() {
    for players in [2, 3, 4] {
        for cards in [1, 4, 13] {
            let params = [
                ("players", players.to_string()),
                ("cards", cards.to_string()),
            ];
            check("goofspiel", None, &params, 3);
            let g = load("goofspiel", None, &params);
            let mut m = g.start_headless(0).expect("starts");
            assert_eq!(action_space(&mut m, "goofspiel").len(), players * cards);
        }
    }
    check_with_variants("goofspiel", &[("order", "random".into())], 4);
}

#[test]
fn archipelago_for_three_to_six() {
    for players in 3..=6 {
        check("archipelago", None, &[("players", players.to_string())], 3);
    }
    check_with_variants("archipelago", &[], 3);
}

#[test]
fn jochess_on_every_board() {
    for stem in ["2PlayerBoard", "3PlayerBoard", "3PlayerBoard_II"] {
        let board = jochess::board_file(stem).display().to_string();
        let params = [("board", board)];
        check("jochess", None, &params, 3);
        let g = load("jochess", None, &params);
        let mut m = g.start_headless(0).expect("starts");
        let n = m.property("game", "squares").map(|s| match s {
            Value::List(l) => l.len(),
            _ => 0,
        });
        let n = n.expect("squares");
        let space = action_space(&mut m, stem);
        assert!(space.len() >= n * (n - 1), "{stem}: every pair of squares");
        eprintln!("{stem}: {} squares, {} moves", n, space.len());
    }
    let board = jochess::board_file("3PlayerBoard").display().to_string();
    check_with_variants("jochess", &[("board", board)], 2);
}

/// Bridge's `returns`: North-South's score to N and S, its opposite to E and W, once the
/// deal is over.
#[test]
fn bridge_returns_the_score_of_each_side() {
    let g = load("bridge", None, &[]);
    let m = g.start_headless(0).expect("starts");
    let (tally, _) = play(&m, 4, 1, 3, 1000, None, true, || {}).expect("threads");
    for (_, line) in &tally.records {
        let fields: Vec<&str> = line.split('\t').collect();
        let mut m = g
            .start_headless(fields[2].parse().unwrap())
            .expect("starts");
        for mv in fields[4].split(' ').filter(|s| !s.is_empty()) {
            m.play(mv).expect("plays again");
        }
        assert!(m.finished(), "{line}");
        let score = match m.property("game", "score-ns") {
            Some(Value::Int(s)) => s,
            other => panic!("score-ns {other:?}"),
        };
        let Value::List(returns) = call(&mut m, "returns") else {
            panic!("`(returns)` is not a list");
        };
        let returns: Vec<Value> = returns.iter().cloned().collect();
        let want = [score, -score, score, -score].map(Value::Int);
        assert_eq!(returns, want, "N E S W: {line}");
    }
}
