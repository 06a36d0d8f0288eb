//! Go game records (SGF) with games/go: the 25 OpenSpiel fixture games of
//! `tests/inputs/go-reference/games-9x9-seed1.txt` played through the library, written as SGF, read back and
//! replayed in a fresh game reaches the same position and the same result; `flexrules run
//! --sgf` replays a record and refuses an illegal one with the move's number and the rule.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use flexrules::compile::build_game_with_rules;
use flexrules::compile::program::Game;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::value::Value;
use flexrules::sgf;
use flexrules::syntax::load::DiskFs;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn go() -> Arc<Game> {
    build_game_with_rules(&DiskFs, &root().join("games/go"), &[])
        .unwrap_or_else(|e| panic!("games/go does not build: {e:?}"))
        .game
}

fn start(game: &Arc<Game>, params: Vec<(String, Value)>) -> Session {
    let options = SessionOptions {
        params,
        ..SessionOptions::default()
    };
    Session::start(game.clone(), &options)
        .unwrap_or_else(|e| panic!("go does not start: {e}"))
        .0
}

/// Every point's stone, the player to move and the outcome.
fn state(session: &Session) -> String {
    let mut out = String::new();
    for (_, e) in session.world().iter() {
        let stone = e.property(&session.game, flexrules::symbol::Symbol::intern("stone"));
        if let Some(v) = stone {
            out.push_str(&format!("{}={v} ", e.name));
        }
    }
    out.push_str(&format!("result={:?}", sgf::result(session)));
    out
}

/// The moves of every fixture game, with its size and move limit.
fn fixture_games() -> Vec<(String, i64, i64, Vec<String>)> {
    let dir = root().join("tests/inputs/go-reference");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/inputs/go-reference")
        .map(|e| e.expect("an entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("games-9x9-seed1"))
        })
        .collect();
    files.sort();
    let mut games = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a fixture");
        for line in text.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            match w.first().copied() {
                Some("game") => games.push((
                    format!("{}:{}", f.display(), w[1]),
                    w[3].parse().expect("size"),
                    w[7].parse().expect("max"),
                    Vec::new(),
                )),
                Some("play") => games.last_mut().expect("a game").3.push(w[1].to_string()),
                _ => {}
            }
        }
    }
    games
}

#[test]
fn fixture_games_survive_an_sgf_round_trip() {
    let game = go();
    let games = fixture_games();
    assert!(games.len() >= 25);
    for (label, size, max, moves) in games {
        let params = |size| {
            vec![
                ("size".to_string(), Value::Int(size)),
                ("max-moves".to_string(), Value::Int(max)),
            ]
        };
        let mut played = start(&game, params(size));
        for (ply, name) in moves.iter().enumerate() {
            let a = played
                .playable(name)
                .unwrap_or_else(|_| panic!("{label}: ply {}: `{name}` is not playable", ply + 1));
            let tx = played.deliver(a.recipient, (*a.message).clone());
            assert!(tx.status.committed(), "{label}: ply {}: `{name}`", ply + 1);
        }
        let text = sgf::write(&played).unwrap_or_else(|e| panic!("{label}: {e}"));
        let record = sgf::parse(&text).unwrap_or_else(|e| panic!("{label}: {e}\n{text}"));
        assert_eq!(record.moves.len(), moves.len(), "{label}");
        let mut replayed = start(&game, {
            let mut p = record.params();
            p.push(("max-moves".to_string(), Value::Int(max)));
            p
        });
        sgf::replay(&mut replayed, &record).unwrap_or_else(|e| panic!("{label}: {e}\n{text}"));
        assert_eq!(state(&played), state(&replayed), "{label}");
        assert!(sgf::result(&played).is_some(), "{label}: the game ended");
        assert_eq!(record.result, sgf::result(&played), "{label}");
    }
}

#[test]
fn run_replays_a_record_and_refuses_an_illegal_one() {
    let bin = env!("CARGO_BIN_EXE_flexrules");
    let sgf_dir = root().join("tests/inputs/repl/sgf");
    let ok = Command::new(bin)
        .current_dir(root())
        .args(["run", "games/go", "--sgf"])
        .arg(sgf_dir.join("capture.sgf"))
        .output()
        .expect("flexrules runs");
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(stdout.contains("black b1: committed"), "{stdout}");
    assert!(
        stdout.contains("finished: score 1.5, winner \"black\""),
        "{stdout}"
    );
    let bad = Command::new(bin)
        .current_dir(root())
        .args(["run", "games/go", "--sgf"])
        .arg(sgf_dir.join("suicide.sgf"))
        .output()
        .expect("flexrules runs");
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("move 7 (black a5) is illegal"), "{stderr}");
    assert!(stderr.contains("suicide"), "{stderr}");
}
