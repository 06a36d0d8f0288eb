//! Agreement of tests/inputs/draughts, English draughts written on the legal-move queries,
//! with an independent implementation: OpenSpiel's "checkers"
//! (google-deepmind/open_spiel, `pip install open_spiel`), which no one on this project
//! wrote.
//!
//! `tools/checkers-reference.py` plays random games with OpenSpiel and writes, for every
//! position, the side to move, the legal actions (sorted) and the action played, then the
//! result and the number of plies. The files in `tests/inputs/draughts-reference/` were
//! made with it (see the README there). Here each game is replayed through the public API
//! (`flexrules::api`): before every ply the side to move and the legal moves (named as
//! OpenSpiel names its actions, `a3b4`) must be the same, and after the last ply the game
//! must be over with the same result, and not before.
//!
//! A live run of the script with fresh seeds is added when `python3 -c "import pyspiel"`
//! works (skipped with a note outside CI, a failure in CI); `DRAUGHTS_REFERENCE_SEEDS=1,2`
//! chooses its seeds and `DRAUGHTS_REFERENCE_GAMES` how many games each plays (10).

#[path = "common/reference.rs"]
mod reference;
#[path = "common/tools.rs"]
mod tools;
use reference::*;

use flexrules::api::{Game, Match, Value};

/// One position as OpenSpiel saw it: the side to move, its legal actions, the one played.
#[derive(Debug)]
struct Ply {
    mover: String,
    legal: Vec<String>,
    play: String,
}

/// One game: its plies, and how it ended (`winner white`, `winner black` or `draw`).
#[derive(Debug, Default)]
struct Played {
    plies: Vec<Ply>,
    end: String,
}

fn parse(text: &str) -> Vec<Played> {
    let mut games: Vec<Played> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "game" => games.push(Played::default()),
            "ply" => {
                let legal_at = words.iter().position(|w| *w == "legal").expect("legal");
                let play_at = words.iter().position(|w| *w == "play").expect("play");
                let game = games.last_mut().expect("a game");
                assert_eq!(words[1].parse::<usize>().ok(), Some(game.plies.len()));
                game.plies.push(Ply {
                    mover: words[3].to_string(),
                    legal: words[legal_at + 1..play_at]
                        .iter()
                        .map(|w| w.to_string())
                        .collect(),
                    play: words[play_at + 1].to_string(),
                });
            }
            "end" => {
                let plies_at = words.iter().position(|w| *w == "plies").expect("plies");
                let game = games.last_mut().expect("a game");
                assert_eq!(
                    words[plies_at + 1].parse::<usize>().ok(),
                    Some(game.plies.len())
                );
                game.end = words[1..plies_at].join(" ");
            }
            other => panic!("unknown line kind {other}"),
        }
    }
    games
}

fn draughts() -> Game {
    Game::load(root().join("tests/inputs/draughts")).expect("tests/inputs/draughts loads")
}

/// How the match ended, written as the script writes it; `None` while it goes on.
fn ending(m: &Match) -> Option<String> {
    let outcome = m.outcome()?;
    let winner = outcome.iter().find(|(k, _)| k == "winner");
    Some(match winner {
        Some((_, w)) if *w != Value::Nil => format!("winner {}", w.to_text()),
        _ => "draw".to_string(),
    })
}

/// Replay `played` in flexrules; the first disagreement, if any.
fn replay(game: &Game, played: &Played) -> Result<(), String> {
    let mut m = game.start(0).map_err(|e| format!("does not start: {e}"))?;
    for (k, ply) in played.plies.iter().enumerate() {
        if let Some(end) = ending(&m) {
            return Err(format!(
                "ply {k}: flexrules ended the game ({end}), OpenSpiel goes on"
            ));
        }
        let movers = m.players_to_move().map_err(|e| format!("ply {k}: {e}"))?;
        if movers != [ply.mover.clone()] {
            return Err(format!(
                "ply {k}: {movers:?} to move, OpenSpiel {}",
                ply.mover
            ));
        }
        let mut legal: Vec<String> = m
            .legal_moves()
            .map_err(|e| format!("ply {k}: {e}"))?
            .into_iter()
            .map(|mv| mv.name)
            .collect();
        legal.sort();
        if legal != ply.legal {
            return Err(format!(
                "ply {k}: legal {legal:?}, OpenSpiel {:?}",
                ply.legal
            ));
        }
        m.play(&ply.play)
            .map_err(|e| format!("ply {k}: {} refused: {e}", ply.play))?;
    }
    match ending(&m) {
        Some(end) if end == played.end => Ok(()),
        other => Err(format!(
            "after ply {}: {other:?}, OpenSpiel {}",
            played.plies.len(),
            played.end
        )),
    }
}

fn check_all(what: &str, games: &[Played]) -> usize {
    assert!(!games.is_empty(), "{what}: no games");
    let game = draughts();
    let failures: Vec<String> = games
        .iter()
        .enumerate()
        .filter_map(|(i, g)| {
            replay(&game, g)
                .err()
                .map(|e| format!("{what} game {i}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    games.iter().map(|g| g.plies.len()).sum()
}

#[test]
fn fixture_games_agree_with_openspiel() {
    let dir = root().join("tests/inputs/draughts-reference");
    let files = fixture_files(&dir, "");
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    let mut plies = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        plies += check_all(&f.display().to_string(), &parse(&text));
    }
    assert!(plies >= 2_000, "only {plies} positions compared");
}

#[test]
fn live_games_agree_with_openspiel() {
    if !python_has("pyspiel") {
        tools::missing_tool(
            "the live draughts comparison: pyspiel is not importable (pip install open_spiel)",
        );
        return;
    }
    let seeds = live_seeds("DRAUGHTS_REFERENCE_SEEDS", 2);
    let count = env_count("DRAUGHTS_REFERENCE_GAMES", 10);
    for (seed, text) in run_reference(
        "checkers-reference.py",
        &[],
        &seeds,
        count,
        "DRAUGHTS_REFERENCE_SEEDS",
    ) {
        check_all(&format!("live seed {seed}"), &parse(&text));
    }
}
