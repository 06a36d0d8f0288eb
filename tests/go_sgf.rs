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
        tier: Default::default(),
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

// ---------------------------------------------------------------------------------------
// Untrusted records: bounded reading, regular files only, komi checked.

/// A record whose main line has `moves` moves.
fn long_record(moves: usize) -> String {
    let mut text = String::from("(;GM[1]SZ[19]");
    for i in 0..moves {
        text.push_str(if i % 2 == 0 { ";B[aa]" } else { ";W[bb]" });
    }
    text.push(')');
    text
}

#[test]
fn a_main_line_of_150000_moves_is_refused_where_it_passes_the_bound() {
    let err = sgf::parse(&long_record(150_000)).expect_err("refused");
    // `(;GM[1]SZ[19]` then six characters a move: move 10001 starts at column 14 + 60000.
    assert_eq!(
        err,
        format!(
            "line 1, column 60015: the main line has more than {} moves (the most a record may have); cut the record short",
            sgf::MAX_MOVES
        )
    );
    let record = sgf::parse(&long_record(sgf::MAX_MOVES)).expect("the bound itself is read");
    assert_eq!(record.moves.len(), sgf::MAX_MOVES);
}

#[test]
fn a_million_nested_variations_are_refused_without_overflowing_the_stack() {
    let n = 1_000_000;
    let text = format!("(;GM[1]{}{})", "(;B[aa]".repeat(n), ")".repeat(n));
    let err = sgf::parse(&text).expect_err("refused");
    assert!(
        err.starts_with("line 1, column ")
            && err.contains(&format!(
                "more than {} variations are open at once",
                sgf::MAX_NESTING
            )),
        "{err}"
    );
    // Variations, nested or not, are read; the main line takes the first at each step.
    let text = "(;GM[1]SZ[9];B[ee](;W[dd](;B[cc])(;B[gg]));W[ff](;W[aa]))";
    let record = sgf::parse(text).expect("variations");
    let moves: Vec<_> = record.moves.iter().map(|m| m.point.clone()).collect();
    assert_eq!(
        moves,
        [Some("e5".into()), Some("d6".into()), Some("c7".into())]
    );
}

#[test]
fn a_file_of_more_than_a_million_nodes_is_refused() {
    let text = format!("(;GM[1]\n{}\n)", ";C[a comment]".repeat(sgf::MAX_NODES + 1));
    let err = sgf::parse(&text).expect_err("refused");
    assert!(
        err.starts_with("line 2, column ") && err.contains("more than 1000000 nodes"),
        "{err}"
    );
}

#[test]
fn komi_that_is_not_a_finite_number_is_refused() {
    for (km, shown) in [
        ("nan", "NaN"),
        ("inf", "inf"),
        ("-infinity", "-inf"),
        ("1e300", "1e300"),
    ] {
        let err = sgf::parse(&format!("(;GM[1]SZ[9]KM[{km}];B[ee])")).expect_err(km);
        assert_eq!(
            err,
            format!(
                "line 1, column 13: the root node: KM (komi) is {shown}: komi must be a finite number from -1000 to 1000, such as 6.5 or 7.5"
            )
        );
    }
    let record = sgf::parse("(;GM[1]SZ[9]KM[-3.5];B[ee])").expect("a negative komi");
    assert_eq!(record.komi, Some(-3.5));
}

#[test]
fn komi_parameter_too_large_for_a_float_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .current_dir(root())
        .args([
            "run",
            "games/go",
            "--param",
            "komi=1.0e999",
            "--play",
            "pass",
        ])
        .output()
        .expect("flexrules runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("--param komi=1.0e999: the number is too large (it is not finite)"),
        "{stderr}"
    );
}

/// `flexrules run games/go --sgf <path>`: its exit status and standard error.
fn run_sgf(path: &std::path::Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .current_dir(root())
        .args(["run", "games/go", "--sgf"])
        .arg(path)
        .output()
        .expect("flexrules runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn a_record_must_be_a_regular_file() {
    let (code, stderr) = run_sgf(std::path::Path::new("/dev/zero"));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("/dev/zero: it is not a regular file (a device, FIFO or socket)"),
        "{stderr}"
    );
    let dir = std::env::temp_dir().join(format!("flexrules-sgf-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let fifo = dir.join("record.sgf");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // Nobody writes to the FIFO: reading it would wait for ever.
    let (code, stderr) = run_sgf(&fifo);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("it is not a regular file"), "{stderr}");
}

#[test]
fn a_record_larger_than_the_cap_is_refused() {
    let dir = std::env::temp_dir().join(format!("flexrules-sgf-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let big = dir.join("big.sgf");
    let cap = flexrules::syntax::load::MAX_FILE_BYTES;
    let file = std::fs::File::create(&big).expect("a file");
    file.set_len(cap + 1).expect("a sparse file");
    let (code, stderr) = run_sgf(&big);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("it is larger than 16 MB"), "{stderr}");
}

// ---------------------------------------------------------------------------------------
// Malformed records: each refusal names the line and column, what was expected there and
// what was found.

/// `text` is refused with exactly `says`.
fn refused(text: &str, says: &str) {
    assert_eq!(sgf::parse(text).expect_err(text), says, "{text}");
}

#[test]
fn a_property_without_a_value_is_refused_where_the_value_was_expected() {
    refused(
        "(;GM[1]SZ[9]\n;B[ee]\n;W[dd];B)",
        "line 3, column 9: a property value `[..]` was expected after `B`; found `)`",
    );
    refused(
        "(;GM[1];Bé[aa])",
        "line 1, column 10: a property value `[..]` was expected after `B`; found `é`",
    );
    refused(
        "(;GM[1];B",
        "line 1, column 10: a property value `[..]` was expected after `B`; found the end of the file",
    );
}

#[test]
fn an_unclosed_value_is_refused_at_the_end_naming_where_it_opened() {
    refused(
        "(;FF[4]GM[1]SZ[9];B[ee];W[dd\n",
        "line 1, column 29: `]` was expected to close the value of `W` opened at line 1, column 26; \
         found the end of the file (the file is cut short, or a `]` in the value is not written `\\]`)",
    );
}

#[test]
fn a_file_cut_short_is_refused_at_its_end_naming_the_open_tree() {
    refused(
        "(;GM[1]SZ[9];B[ee](;W[dd]\n",
        "line 1, column 26: `)` was expected to close the `(` at line 1, column 19; found the end of the file (the file is cut short)",
    );
}

#[test]
fn a_close_without_an_open_is_refused() {
    refused(
        "(;GM[1]SZ[9];B[ee]))",
        "line 1, column 20: `)` closes no game tree: no `(` is open here",
    );
}

#[test]
fn a_game_tree_without_a_node_is_refused() {
    refused(
        "  ()",
        "line 1, column 4: a node (`;`) was expected after the `(` at line 1, column 3; found `)` (a game tree holds at least one node)",
    );
    refused(
        "(;GM[1]\n((;B[aa])))",
        "line 2, column 2: a node (`;`) was expected after the `(` at line 2, column 1; found `(` (a game tree or variation starts with its first node)",
    );
}

#[test]
fn a_property_outside_a_node_or_a_game_is_refused() {
    refused(
        "(;GM[1](;B[aa])W[bb])",
        "line 1, column 16: a node (`;`) was expected before the property `W` (properties belong to a node, which starts with `;`)",
    );
    refused(
        "XX[1]\n(;GM[1];B[aa])",
        "line 1, column 1: the property `XX` is outside any game tree (a game tree starts with `(;`)",
    );
    refused(
        "(;GM[1];]B[aa])",
        "line 1, column 9: a property (an identifier such as `B` or `SZ`, then its values in `[..]`) was expected; found `]`",
    );
}

#[test]
fn a_file_without_a_game_tree_is_refused() {
    let says = "line 1, column 1: the file holds no game tree; a record starts with `(;`, such as `(;GM[1]SZ[19];B[pd])`";
    refused("", says);
    refused("\n\n", says);
}

#[test]
fn a_game_type_other_than_go_is_refused_at_its_property() {
    refused(
        "(;FF[4]GM[3];B[aa])",
        "line 1, column 8: GM[3] is not a Go record: this reader reads Go records (GM[1]) only",
    );
    refused(
        "(;GM[x];B[aa])",
        "line 1, column 3: GM[x] is not a game number: Go records have GM[1]",
    );
    refused(
        "(;GM[1]GM[1];B[aa])",
        "line 1, column 8: a second GM in the root node (the first is at line 1, column 3); a node has each property once",
    );
}

#[test]
fn values_of_known_properties_are_refused_at_their_property() {
    refused(
        "(;GM[1]SZ[19]\n;B[zz])",
        "line 2, column 2: move 1 (B[zz]): the point is off the 19x19 board",
    );
    refused(
        "(;GM[1]SZ[abc];B[aa])",
        "line 1, column 8: the root node: SZ[abc] is not a valid value; expected a board size, such as SZ[19]",
    );
    refused(
        "(;GM[1]SZ[9]KM[x];B[aa])",
        "line 1, column 13: the root node: KM[x] is not a valid value; expected a number, such as KM[6.5]",
    );
    refused(
        "(;GM[1]SZ[9];B[aa];W[x])",
        "line 1, column 20: node 3: W[x] is not a valid value; expected a point, such as W[dd], or W[] for a pass",
    );
    refused(
        "(;GM[1]SZ[30])",
        "line 1, column 8: the root node: SZ[30]: the board size must be from 2 to 25",
    );
    refused(
        "(;GM[1]SZ[9:7])",
        "line 1, column 8: the root node: SZ[9:7]: only square boards are played",
    );
    refused(
        "(;GM[1]SZ[9]HA[12])",
        "line 1, column 13: the root node: HA[12]: a handicap is from 2 to 9 stones",
    );
    refused(
        "(;GM[1]SZ[9]AB[zz])",
        "line 1, column 13: the root node: set-up point zz is off the 9x9 board",
    );
    refused(
        "(;GM[1]SZ[9];B[aa]AB[bb])",
        "line 1, column 19: node 2: stones set up after move 1 are not supported",
    );
    refused(
        "(;GM[1]SZ[9]AB[aa]\nAW[aa])",
        "line 2, column 1: a9 is set up both black (AB) and white (AW)",
    );
    // Spaces between an identifier and its value are read as before.
    let record = sgf::parse("(;GM[1]SZ[9] B [ee])").expect("spaces");
    assert_eq!(record.moves.len(), 1);
}
