//! Agreement of games/chess (and its variants) with an independent implementation:
//! python-chess (niklasf/python-chess, `pip install chess`), which no one on this project
//! wrote.
//!
//! `tools/chess-reference.py` plays random games with python-chess and writes, for every
//! ply, the position as FEN (every square, side to move, castling rights, the en passant
//! square when a capture there is legal, both clocks) and the legal moves in UCI; the files
//! in `tests/inputs/chess-reference/` were made with it (see the README there). Here each
//! game is replayed move by move in flexrules, through the library: after every ply the
//! FEN that games/chess's `(fen)` gives and the sorted legal move names must be the same,
//! and the game must end at the same ply with the same winner and reason.
//!
//! Tests: the fixture games of each variant; perft on the standard test positions against
//! the counts python-chess gave (`perft.txt`); a live run of the script with fresh seeds
//! when `python3 -c "import chess"` works (skipped with a note otherwise). Set
//! `CHESS_REFERENCE_SEEDS=1,2,...` to choose the live seeds, `CHESS_REFERENCE_GAMES=n` for
//! the number of live games per seed and variant.

#[path = "common/tools.rs"]
mod tools;
use flexrules::api::Match;
use flexrules::play::perft::perft;
use std::path::PathBuf;
use std::sync::Arc;

use flexrules::compile::bytecode::CodeId;
use flexrules::compile::codegen::compile_body;
use flexrules::compile::program::Game;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::{Key, Value};
use flexrules::source::SourceMap;
use flexrules::syntax::load::parse_text_statements;

#[path = "common/reference.rs"]
mod reference;
use reference::*;

fn fixtures() -> PathBuf {
    root().join("tests/inputs/chess-reference")
}

// ---------------------------------------------------------------------------------------
// The reference format (see tools/chess-reference.py).

#[derive(Clone, Debug, PartialEq)]
struct Ply {
    fen: String,
    /// Sorted UCI names; empty when the game is over.
    legal: Vec<String>,
}

#[derive(Clone, Debug)]
struct RefGame {
    label: String,
    variant: String,
    plies: Vec<Ply>,
    moves: Vec<String>,
    /// `white`, `black`, `draw` or `unfinished`.
    result: String,
    /// The reason of the ending, words separated by spaces; empty when unfinished.
    reason: String,
}

fn parse_games(file: &str, text: &str) -> Vec<RefGame> {
    let mut games: Vec<RefGame> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = || format!("{file}:{}: {line:?}", i + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            None => {}
            Some(w) if w.starts_with('#') => {}
            Some("game") => games.push(RefGame {
                label: format!("{file}:{}", words[1]),
                variant: words[2].to_string(),
                plies: Vec::new(),
                moves: Vec::new(),
                result: "unfinished".into(),
                reason: String::new(),
            }),
            Some("ply") => {
                let g = games
                    .last_mut()
                    .unwrap_or_else(|| panic!("no game: {}", at()));
                assert_eq!(
                    words[1].parse::<usize>().ok(),
                    Some(g.plies.len()),
                    "{}",
                    at()
                );
                assert_eq!(words[2], "fen", "{}", at());
                assert_eq!(words[9], "legal", "{}", at());
                let legal = match &words[10..] {
                    ["-"] => Vec::new(),
                    names => names.iter().map(|s| s.to_string()).collect(),
                };
                g.plies.push(Ply {
                    fen: words[3..9].join(" "),
                    legal,
                });
            }
            Some("play") => {
                let g = games
                    .last_mut()
                    .unwrap_or_else(|| panic!("no game: {}", at()));
                g.moves.push(words[1].to_string());
            }
            Some("end") => {
                let g = games
                    .last_mut()
                    .unwrap_or_else(|| panic!("no game: {}", at()));
                g.result = words[1].to_string();
                assert_eq!(words[2], "reason", "{}", at());
                g.reason = if words[3] == "-" {
                    String::new()
                } else {
                    words[3].replace('-', " ")
                };
                assert_eq!(words[4], "plies", "{}", at());
                assert_eq!(
                    words[5].parse::<usize>().ok(),
                    Some(g.moves.len()),
                    "{}",
                    at()
                );
                assert_eq!(g.plies.len(), g.moves.len() + 1, "{}", at());
            }
            Some(_) => panic!("unknown line: {}", at()),
        }
    }
    games
}

// ---------------------------------------------------------------------------------------
// flexrules' side.

/// games/chess with the rules file of `variant` (none for standard chess).
fn chess(variant: &str) -> Arc<Game> {
    let dir = root().join("games/chess");
    let rules: Vec<PathBuf> = if variant == "standard" {
        Vec::new()
    } else {
        vec![dir.join(format!("variants/{variant}.fr"))]
    };
    game_with("games/chess", &rules)
}

/// games/chess with a rules file given by its path from the crate root.
fn chess_with(rules: &str) -> Arc<Game> {
    game_with("games/chess", &[root().join(rules)])
}

/// A session of `game` from `fen` (the game's own start when `None`), and the compiled
/// expression `(fen)`.
fn start(game: &Arc<Game>, fen: Option<&str>) -> (Session, CodeId) {
    let mut options = SessionOptions::default();
    if let Some(f) = fen {
        options.params.push(("fen".into(), Value::str(f)));
    }
    let (mut session, _) = match Session::start(game.clone(), &options) {
        Ok(s) => s,
        Err(e) => panic!("chess does not start from {fen:?}: {e:?}"),
    };
    let mut sources = SourceMap::default();
    let (_, body, diags) = parse_text_statements(&mut sources, "<fen>", "(fen)");
    assert!(diags.is_empty(), "{diags:?}");
    let span = body[0].span;
    let code = compile_body(session.game_mut(), &body, "<fen>".into(), span).expect("(fen)");
    (session, code)
}

fn our_fen(session: &mut Session, code: CodeId) -> String {
    match session.eval(code).status {
        Status::Committed(Value::Str(s)) => s.as_str().to_string(),
        other => panic!("(fen) gave {other:?}"),
    }
}

/// `(set-position fen)` then `(fen)` in a copy of `session`.
fn round_trip(session: &Session, fen: &str) -> String {
    let mut copy = session.fork().into_inner();
    let mut sources = SourceMap::default();
    let text = format!("(set-position \"{fen}\") (fen)");
    let (_, body, diags) = parse_text_statements(&mut sources, "<round trip>", &text);
    assert!(diags.is_empty(), "{diags:?}");
    let span = body[0].span;
    let code =
        compile_body(copy.game_mut(), &body, "<round trip>".into(), span).expect("round trip");
    match copy.eval(code).status {
        Status::Committed(Value::Str(s)) => s.as_str().to_string(),
        other => format!("{other:?}"),
    }
}

/// The outcome flexrules recorded: (`white`/`black`/`draw`, reason), or `None`.
fn our_outcome(session: &Session) -> Option<(String, String)> {
    let o = session.outcome()?;
    let text = |k: &str| match o.get(&Key::sym(sym(k))) {
        Some(Value::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    };
    Some((
        text("winner").unwrap_or_else(|| "draw".into()),
        text("reason").unwrap_or_default(),
    ))
}

/// Replay `g` in a fresh session of `game`; the first disagreement, described, if any.
fn replay(game: &Arc<Game>, g: &RefGame) -> Result<(), String> {
    // A Chess960 game starts from the position its first line gives; every other game from
    // the variant's own start.
    let from = (g.variant == "chess960").then(|| g.plies[0].fen.as_str());
    let (mut session, fen) = start(game, from);
    // The round trips set positions up in copies of the game as it started (a finished
    // game refuses another position).
    let unplayed = session.fork().into_inner();
    let last = g.moves.len();
    for k in 0..=last {
        let theirs = &g.plies[k];
        let ours_fen = our_fen(&mut session, fen);
        let actions = session
            .legal_actions()
            .map_err(|e| format!("{}: #actions failed: {}", g.label, e.message))?;
        let mut legal: Vec<String> = actions.iter().map(|a| a.name.clone()).collect();
        legal.sort();
        let finished = k == last && g.result != "unfinished";
        let report = |what: String| {
            format!(
                "{}: ply {k} (after {}): {what}\n  flexrules:    {ours_fen}\n  python-chess: {}",
                g.label,
                if k == 0 { "the start" } else { &g.moves[k - 1] },
                theirs.fen
            )
        };
        if ours_fen != theirs.fen {
            return Err(report("the positions differ".into()));
        }
        // FEN round trip, every eighth ply: python-chess's FEN set up in a copy gives the
        // same FEN back.
        if k % 8 == 0 {
            let back = round_trip(&unplayed, &theirs.fen);
            if back != theirs.fen {
                return Err(report(format!("(set-position) then (fen) gives {back}")));
            }
        }
        let outcome = our_outcome(&session);
        if finished {
            let expected = (g.result.clone(), g.reason.clone());
            if outcome.as_ref() != Some(&expected) {
                return Err(report(format!(
                    "python-chess ends the game {expected:?}, flexrules {outcome:?}"
                )));
            }
            if !legal.is_empty() {
                return Err(report(format!(
                    "the game is over, yet flexrules has {legal:?}"
                )));
            }
            return Ok(());
        }
        if let Some(o) = outcome {
            return Err(report(format!(
                "flexrules ended the game {o:?}, python-chess did not"
            )));
        }
        if legal != theirs.legal {
            let only_ours: Vec<&String> =
                legal.iter().filter(|m| !theirs.legal.contains(m)).collect();
            let only_theirs: Vec<&String> =
                theirs.legal.iter().filter(|m| !legal.contains(m)).collect();
            return Err(report(format!(
                "the legal moves differ: only flexrules {only_ours:?}, only python-chess {only_theirs:?}"
            )));
        }
        if k == last {
            return Ok(());
        }
        let name = &g.moves[k];
        let action = actions
            .into_iter()
            .find(|a| &a.name == name)
            .ok_or_else(|| report(format!("flexrules has no move {name}")))?;
        let tx = session.deliver(action.recipient, (*action.message).clone());
        if !tx.status.committed() {
            return Err(report(format!("playing {name}: {}", tx.status.summary())));
        }
    }
    unreachable!()
}

/// Replay every game; panics with every disagreement. Returns (games, plies).
fn compare(games: &[RefGame]) -> (usize, usize) {
    let mut built: Vec<(String, Arc<Game>)> = Vec::new();
    let mut failures = Vec::new();
    let mut plies = 0;
    for g in games {
        let game = match built.iter().find(|(v, _)| *v == g.variant) {
            Some((_, game)) => game.clone(),
            None => {
                let game = chess(&g.variant);
                built.push((g.variant.clone(), game.clone()));
                game
            }
        };
        match replay(&game, g) {
            Ok(()) => plies += g.moves.len(),
            Err(report) => failures.push(report),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} games disagree with python-chess:\n{}",
        failures.len(),
        games.len(),
        failures.join("\n")
    );
    (games.len(), plies)
}

fn fixture_games(variant: &str) -> Vec<RefGame> {
    let files = fixture_files(&fixtures(), &format!("{variant}-"));
    let mut games = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a fixture file");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        games.extend(parse_games(&name, &text));
    }
    games
}

fn fixtures_agree(variant: &str) {
    let games = fixture_games(variant);
    assert!(!games.is_empty(), "no fixture games for {variant}");
    let endings: Vec<String> = games
        .iter()
        .map(|g| format!("{} {}", g.result, g.reason))
        .collect();
    let (n, plies) = compare(&games);
    eprintln!("{variant}: {n} games, {plies} plies agree with python-chess; endings {endings:?}");
}

#[test]
fn standard_games_agree_with_python_chess() {
    fixtures_agree("standard");
}

// ---------------------------------------------------------------------------------------
// Perft.

/// `perft <variant> <depth> <count> <fen>` lines.
fn perft_lines() -> Vec<(String, usize, u64, String)> {
    let text = std::fs::read_to_string(fixtures().join("perft.txt")).expect("perft.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(w[0], "perft", "{line}");
            (
                w[1].to_string(),
                w[2].parse().expect("a depth"),
                w[3].parse().expect("a count"),
                w[4..].join(" "),
            )
        })
        .collect()
}

fn perft_agrees(variant: &str) {
    let lines: Vec<_> = perft_lines()
        .into_iter()
        .filter(|l| l.0 == variant)
        .collect();
    assert!(!lines.is_empty(), "no perft lines for {variant}");
    let game = chess(variant);
    for (_, depth, count, fen) in lines {
        let (mut session, _) = start(&game, Some(&fen));
        let started = std::time::Instant::now();
        let ours = perft_counts(&mut session, depth);
        eprintln!(
            "{variant} perft {depth} of {fen}: flexrules {:?}, python-chess {count} ({:.2?})",
            ours.last(),
            started.elapsed()
        );
        assert_eq!(ours.last().copied(), Some(count), "perft {depth} of {fen}");
    }
}

#[test]
fn standard_perft_agrees_with_python_chess() {
    perft_agrees("standard");
}

/// The comparison has teeth: with a rule changed (castling through check allowed, no en
/// passant, promotion to a queen only), some standard perft count or fixture game
/// disagrees with python-chess.
#[test]
fn a_changed_rule_is_caught() {
    let perfts: Vec<_> = perft_lines()
        .into_iter()
        .filter(|l| l.0 == "standard")
        .collect();
    let games = fixture_games("standard");
    for rules in [
        "tests/inputs/chess-reference/changed/castling-through-check.fr",
        "tests/inputs/chess-reference/changed/no-en-passant.fr",
        "tests/inputs/chess-reference/changed/queen-only.fr",
    ] {
        let game = chess_with(rules);
        let perft = perfts.iter().find_map(|(_, depth, count, fen)| {
            let (mut session, _) = start(&game, Some(fen));
            let ours = perft_counts(&mut session, *depth);
            (ours.last() != Some(count)).then(|| format!("perft {depth} of {fen}: {ours:?}"))
        });
        let found = perft.or_else(|| games.iter().find_map(|g| replay(&game, g).err()));
        match found {
            Some(report) => eprintln!("with {rules}, as expected:\n{report}"),
            None => panic!("with {rules}, every perft and fixture game still agrees"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Live: fresh games from python-chess itself.

fn live(variant: &str) {
    if !python_has("chess") {
        tools::missing_tool(
            "the live comparison with python-chess: `python3 -c \"import chess\"` fails \
             (pip install chess); the fixture tests still run",
        );
        return;
    }
    let count = env_count("CHESS_REFERENCE_GAMES", 1);
    let seeds = live_seeds("CHESS_REFERENCE_SEEDS", 1);
    let mut games = Vec::new();
    for (seed, text) in run_reference(
        "chess-reference.py",
        &["games", "--variant", variant],
        &seeds,
        count,
        "CHESS_REFERENCE_SEEDS",
    ) {
        games.extend(parse_games(&format!("live-{variant}-seed{seed}"), &text));
    }
    let (n, plies) = compare(&games);
    eprintln!("live {variant}: {n} games, {plies} plies agree with python-chess");
}

#[test]
fn live_standard_games_agree_with_python_chess() {
    live("standard");
}

#[test]
fn kingofthehill_games_agree_with_python_chess() {
    fixtures_agree("kingofthehill");
}

#[test]
fn kingofthehill_perft_agrees_with_python_chess() {
    perft_agrees("kingofthehill");
}

#[test]
fn live_kingofthehill_games_agree_with_python_chess() {
    live("kingofthehill");
}

#[test]
fn threecheck_games_agree_with_python_chess() {
    fixtures_agree("threecheck");
}

#[test]
fn threecheck_perft_agrees_with_python_chess() {
    perft_agrees("threecheck");
}

#[test]
fn live_threecheck_games_agree_with_python_chess() {
    live("threecheck");
}

#[test]
fn racingkings_games_agree_with_python_chess() {
    fixtures_agree("racingkings");
}

#[test]
fn racingkings_perft_agrees_with_python_chess() {
    perft_agrees("racingkings");
}

#[test]
fn live_racingkings_games_agree_with_python_chess() {
    live("racingkings");
}

#[test]
fn antichess_games_agree_with_python_chess() {
    fixtures_agree("antichess");
}

#[test]
fn antichess_perft_agrees_with_python_chess() {
    perft_agrees("antichess");
}

#[test]
fn live_antichess_games_agree_with_python_chess() {
    live("antichess");
}

#[test]
fn horde_games_agree_with_python_chess() {
    fixtures_agree("horde");
}

#[test]
fn horde_perft_agrees_with_python_chess() {
    perft_agrees("horde");
}

#[test]
fn live_horde_games_agree_with_python_chess() {
    live("horde");
}

#[test]
fn atomic_games_agree_with_python_chess() {
    fixtures_agree("atomic");
}

#[test]
fn atomic_perft_agrees_with_python_chess() {
    perft_agrees("atomic");
}

#[test]
fn live_atomic_games_agree_with_python_chess() {
    live("atomic");
}

/// Atomic chess writes an en passant square only when taking there is legal with the
/// explosion: the capturing pawn goes too (which may open a line to its own king), a piece
/// that would check may be blown up, and kings that touch do not check. Positions from
/// the live games that found the difference, each with the FEN python-chess writes for it
/// (recorded).
#[test]
fn atomic_en_passant_squares_follow_the_explosion() {
    let game = chess("atomic");
    let (session, _) = start(&game, None);
    for (given, written) in [
        (
            "8/8/R5n1/2kK4/1N2R1pP/6P1/6b1/8 b - h3 0 50",
            "8/8/R5n1/2kK4/1N2R1pP/6P1/6b1/8 b - h3 0 50",
        ),
        (
            "6k1/1p1p4/r7/p4p2/P4PPp/2P5/1P2P2P/R3KBR1 b - g3 0 20",
            "6k1/1p1p4/r7/p4p2/P4PPp/2P5/1P2P2P/R3KBR1 b - - 0 20",
        ),
        (
            "r1b2b1r/3pk3/p3pp2/1p4Pp/q3P2K/P2P2nP/6BR/R5N1 w - h6 0 26",
            "r1b2b1r/3pk3/p3pp2/1p4Pp/q3P2K/P2P2nP/6BR/R5N1 w - - 0 26",
        ),
        (
            "1n5R/2p1kr2/5p2/P2p4/2PPpP2/4R2N/8/4K2b b - f3 0 37",
            "1n5R/2p1kr2/5p2/P2p4/2PPpP2/4R2N/8/4K2b b - f3 0 37",
        ),
        (
            "r1bk1br1/p3p3/n4p1p/R1p2PpQ/1P6/2NpP1KB/2PP3P/1NB1R3 w - g6 0 19",
            "r1bk1br1/p3p3/n4p1p/R1p2PpQ/1P6/2NpP1KB/2PP3P/1NB1R3 w - - 0 19",
        ),
        (
            "8/8/1p6/pP4Pp/P1p5/2Pb1K2/6k1/8 w - h6 0 82",
            "8/8/1p6/pP4Pp/P1p5/2Pb1K2/6k1/8 w - h6 0 82",
        ),
        (
            "1q2kbr1/7p/p6n/1rpppPp1/2PP4/P3P3/1P5Q/RNB2RK1 w - g6 0 17",
            "1q2kbr1/7p/p6n/1rpppPp1/2PP4/P3P3/1P5Q/RNB2RK1 w - - 0 17",
        ),
        (
            "8/6rQ/5k1p/p3p3/3P1PpR/PP2P1P1/3K4/5R1q b - f3 0 37",
            "8/6rQ/5k1p/p3p3/3P1PpR/PP2P1P1/3K4/5R1q b - - 0 37",
        ),
        // The side to move has lost its king: the game is over, nothing may be taken.
        (
            "4K3/8/8/8/3pP3/8/8/8 b - e3 0 1",
            "4K3/8/8/8/3pP3/8/8/8 b - - 0 1",
        ),
    ] {
        assert_eq!(round_trip(&session, given), written, "from {given}");
    }
}

#[test]
fn crazyhouse_games_agree_with_python_chess() {
    fixtures_agree("crazyhouse");
}

#[test]
fn crazyhouse_perft_agrees_with_python_chess() {
    perft_agrees("crazyhouse");
}

#[test]
fn live_crazyhouse_games_agree_with_python_chess() {
    live("crazyhouse");
}

// ---------------------------------------------------------------------------------------
// What a move costs (numbers for the record; the counts are checked).

/// For a few positions: candidates proposed by `#actions`, legal moves, and the VM
/// instructions of the transactions that try them (printed with `--nocapture`).
#[test]
fn cost_of_trying_the_moves() {
    let game = chess("standard");
    for (fen, legal_expected) in [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            20,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            48,
        ),
    ] {
        let (mut session, _) = start(&game, Some(fen));
        let candidates = session.candidates().expect("#actions");
        let (mut legal, mut steps_legal, mut steps_refused) = (0u64, 0u64, 0u64);
        for a in &candidates {
            let (tx, _) = session.try_deliver(a.recipient, (*a.message).clone());
            if tx.status.committed() {
                legal += 1;
                steps_legal += tx.steps;
            } else {
                steps_refused += tx.steps;
            }
        }
        assert_eq!(legal, legal_expected, "{fen}");
        let refused = candidates.len() as u64 - legal;
        eprintln!(
            "{fen}: {} candidates, {legal} legal; VM instructions per legal move {} (refused: \
             {} each); transactions per legal move {:.2}",
            candidates.len(),
            steps_legal / legal,
            steps_refused.checked_div(refused).unwrap_or(0),
            candidates.len() as f64 / legal as f64
        );
    }
}

#[test]
fn chess960_games_agree_with_python_chess() {
    fixtures_agree("chess960");
}

/// Perft from forty of the 960 start positions and four middle-game positions with
/// Shredder-FEN and X-FEN castling rights.
#[test]
fn chess960_perft_agrees_with_python_chess() {
    perft_agrees("chess960");
}

#[test]
fn live_chess960_games_agree_with_python_chess() {
    live("chess960");
}

// ---------------------------------------------------------------------------------------
// Positions set up already finished (or not): `setup.txt`, made by `setup.py` (both in
// tests/inputs/chess-reference/) with python-chess.

/// A line of `setup.txt`: `setup <variant> <result> <reason> moves <n> <fen>`.
#[derive(Clone, Debug, PartialEq)]
struct SetupLine {
    variant: String,
    /// (`white`/`black`/`draw`, reason), or `None` when the game is not over.
    outcome: Option<(String, String)>,
    moves: usize,
    fen: String,
}

fn setup_lines(text: &str) -> Vec<SetupLine> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            assert!(w.len() > 6 && w[0] == "setup" && w[4] == "moves", "{line}");
            SetupLine {
                variant: w[1].to_string(),
                outcome: (w[2] != "unfinished").then(|| (w[2].to_string(), w[3].replace('-', " "))),
                moves: w[5].parse().expect("a count of moves"),
                fen: w[6..].join(" "),
            }
        })
        .collect()
}

/// Whether flexrules, with the position of `line` set up, ends the game as python-chess
/// does (winner and reason) and has as many legal moves (none, and a perft of 0 without
/// an error, when it is over); set up both ways: by the `fen` parameter and by
/// `(set-position ...)` in a game already started.
fn setup_agrees(game: &Arc<Game>, line: &SetupLine) -> Result<(), String> {
    let check = |how: &str, session: &mut Session| -> Result<(), String> {
        let outcome = our_outcome(session);
        let legal = session
            .legal_actions()
            .map_err(|e| format!("#actions failed: {}", e.message))?
            .len();
        let perft = Match::around(session, |m| perft(m, 1));
        let report = |what: String| format!("{} {} ({how}): {what}", line.variant, line.fen);
        if !perft.failures.is_empty() {
            return Err(report(format!("perft 1 met errors: {:?}", perft.failures)));
        }
        if outcome != line.outcome {
            return Err(report(format!(
                "python-chess ends the game {:?}, flexrules {outcome:?}",
                line.outcome
            )));
        }
        if legal != line.moves || perft.counts != [line.moves as u64] {
            return Err(report(format!(
                "python-chess has {} legal moves, flexrules {legal} (perft {:?})",
                line.moves, perft.counts
            )));
        }
        Ok(())
    };
    let (mut session, _) = start(game, Some(&line.fen));
    check("the fen parameter", &mut session)?;
    let (started, _) = start(game, None);
    let mut session = started.fork().into_inner();
    let mut sources = SourceMap::default();
    let text = format!("(set-position \"{}\")", line.fen);
    let (_, body, diags) = parse_text_statements(&mut sources, "<set-position>", &text);
    assert!(diags.is_empty(), "{diags:?}");
    let span = body[0].span;
    let code = compile_body(session.game_mut(), &body, "<set-position>".into(), span)
        .expect("set-position");
    match session.eval(code).status {
        Status::Committed(_) => {}
        other => return Err(format!("{}: (set-position) gave {other:?}", line.fen)),
    }
    check("set-position", &mut session)
}

/// Every position of `setup.txt`, each variant's: finished ones (checkmate, stalemate,
/// insufficient material, fifty moves, and each variant's own ending) are over as soon as
/// they are set up.
#[test]
fn positions_set_up_finished_agree_with_python_chess() {
    let text = std::fs::read_to_string(fixtures().join("setup.txt")).expect("setup.txt");
    let lines = setup_lines(&text);
    let mut built: Vec<(String, Arc<Game>)> = Vec::new();
    let mut failures = Vec::new();
    for line in &lines {
        let game = match built.iter().find(|(v, _)| *v == line.variant) {
            Some((_, game)) => game.clone(),
            None => {
                let game = chess(&line.variant);
                built.push((line.variant.clone(), game.clone()));
                game
            }
        };
        if let Err(report) = setup_agrees(&game, line) {
            failures.push(report);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} positions set up disagree with python-chess:\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n")
    );
    let finished = lines.iter().filter(|l| l.outcome.is_some()).count();
    assert!(
        finished * 2 > lines.len(),
        "most positions are finished ones"
    );
    eprintln!(
        "{} positions set up ({finished} finished) agree with python-chess",
        lines.len()
    );
}

/// The recorded `setup.txt` is what python-chess says now (when it is installed).
#[test]
fn live_positions_set_up_agree_with_python_chess() {
    if !python_has("chess") {
        tools::missing_tool(
            "the live check of setup.txt: python-chess is not installed (pip install chess)",
        );
        return;
    }
    let file = fixtures().join("setup.txt");
    let run = std::process::Command::new("python3")
        .arg(fixtures().join("setup.py"))
        .arg(&file)
        .output()
        .expect("python3 runs");
    assert!(
        run.status.success(),
        "setup.py failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let theirs = setup_lines(&String::from_utf8(run.stdout).expect("UTF-8"));
    let ours = setup_lines(&std::fs::read_to_string(&file).expect("setup.txt"));
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b, "setup.txt differs from python-chess today");
    }
}
