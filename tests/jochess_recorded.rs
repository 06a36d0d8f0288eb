//! games/jochess agrees with games played by joChess's own code: random games recorded by
//! `tools/jochess-reference/` through joChess's rule engines
//! (`tests/inputs/jochess-reference/recorded.txt`, the format in docs/jochess.md section 5)
//! are replayed on the game, on joChess's board files in `../shared/jochess`.
//!
//! At each ply: the player to move is the recorded one; every piece of that player has the
//! candidate squares joChess found (the game's `(candidates <sq>)`) and the legal moves
//! from its square go to exactly those squares; the move played is a candidate of the same
//! rule and is legal; at the end the game finished as joChess's did (winner or draw), or
//! goes on where joChess's game went on.

#[path = "common/jochess.rs"]
mod jochess;
#[path = "common/reference.rs"]
mod reference;

use std::collections::{BTreeMap, BTreeSet};

use flexrules::api::{Game, Match};
use jochess::{Case, board_file, cases, eval, names};
use reference::root;

fn words(s: &BTreeSet<String>) -> String {
    if s.is_empty() {
        "none".to_string()
    } else {
        s.iter().cloned().collect::<Vec<_>>().join(" ")
    }
}

/// What one game's replay found: expectations checked, comparisons skipped (with why),
/// disagreements.
#[derive(Default)]
struct Report {
    checked: usize,
    plies: usize,
    skipped: Vec<String>,
    failures: Vec<String>,
}

/// The legal moves now, by the square they leave: the squares they reach.
fn legal_targets(m: &mut Match) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for mv in m.legal_moves().map_err(|e| format!("legal moves: {e:?}"))? {
        let (from, rest) = mv
            .name
            .split_once('-')
            .ok_or_else(|| format!("a move named {} (not <from>-<to>)", mv.name))?;
        let to = rest.split('=').next().unwrap_or(rest);
        out.entry(from.to_string())
            .or_default()
            .insert(to.to_string());
    }
    Ok(out)
}

fn replay(game: &Case) -> Result<Report, String> {
    let board = game
        .lines
        .iter()
        .find(|(_, w)| w[0] == "board")
        .map(|(_, w)| w[1].clone())
        .ok_or("no board line")?;
    let loaded = Game::loader(root().join("games/jochess"))
        .param("board", &board_file(&board).to_string_lossy())
        .load()
        .map_err(|e| format!("the game does not load on {board}: {e:?}"))?;
    let mut m = loaded
        .start_headless(1)
        .map_err(|e| format!("the game does not start on {board}: {e:?}"))?;
    let mut r = Report::default();
    let mut legal: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut asked: Option<String> = None;
    for (line, w) in &game.lines {
        let at = |e: String| format!("line {line}: {e}");
        match w[0].as_str() {
            "board" | "start" => {}
            "turn" => {
                if m.outcome().is_some() {
                    // joChess's game goes on to this player's turn (its ending, if any, is
                    // the next line and compared there).
                    continue;
                }
                let to_move = m.players_to_move().map_err(|e| at(format!("{e:?}")))?;
                if to_move != [w[1].clone()] {
                    r.failures.push(at(format!(
                        "{} is to move in joChess, {to_move:?} in the game",
                        w[1]
                    )));
                    return Ok(r);
                }
                legal = legal_targets(&mut m).map_err(at)?;
                r.checked += 1;
            }
            "ask" => {
                if m.outcome().is_some() {
                    r.failures.push(at(format!(
                        "the game ended ({:?}) where joChess's goes on",
                        m.outcome()
                    )));
                    return Ok(r);
                }
                asked = Some(w[2].clone());
            }
            "expect" => {
                let sq = asked
                    .take()
                    .ok_or_else(|| at("expect without ask".into()))?;
                let want: BTreeSet<String> = if w[1] == "none" {
                    BTreeSet::new()
                } else {
                    w[1..].iter().cloned().collect()
                };
                let got = names(&eval(&mut m, &format!("(keys (candidates {sq:?}))")).map_err(at)?);
                if got != want {
                    r.failures.push(at(format!(
                        "candidates of {sq}: joChess {}, the game {}",
                        words(&want),
                        words(&got)
                    )));
                }
                let moves = legal.get(&sq).cloned().unwrap_or_default();
                if moves != want {
                    r.failures.push(at(format!(
                        "legal moves from {sq}: joChess's candidates {}, the game's moves {}",
                        words(&want),
                        words(&moves)
                    )));
                }
                r.checked += 2;
            }
            "play" => {
                // play <from> <to> <rule label> [<promotion type>]
                let (from, to, label) = (&w[1], &w[2], &w[3]);
                let got =
                    eval(&mut m, &format!("(get (candidates {from:?}) {to:?})")).map_err(at)?;
                if got.to_text() != *label {
                    r.failures.push(at(format!(
                        "{from}-{to}: joChess's rule {label}, the game's {}",
                        got.to_text()
                    )));
                }
                let name = match w.get(4) {
                    Some(t) => format!("{from}-{to}={t}"),
                    None => format!("{from}-{to}"),
                };
                if let Err(e) = m.play(&name) {
                    r.failures
                        .push(at(format!("{name}, played by joChess, is refused: {e:?}")));
                    return Ok(r);
                }
                r.checked += 2;
                r.plies += 1;
            }
            "ending" => {
                let outcome = m.outcome();
                let winner = outcome.as_ref().and_then(|o| {
                    o.iter()
                        .find(|(k, _)| k == "winner")
                        .map(|(_, v)| v.to_text())
                });
                match w[1].as_str() {
                    "winner" => {
                        if outcome.is_none() || winner.as_deref() != Some(w[2].as_str()) {
                            r.failures.push(at(format!(
                                "joChess: {} wins ({}); the game: {outcome:?}",
                                w[2], w[3]
                            )));
                        }
                    }
                    "draw" => {
                        if outcome.is_none() || winner.is_some() {
                            r.failures.push(at(format!(
                                "joChess: a draw ({}); the game: {outcome:?}",
                                w[2]
                            )));
                        }
                    }
                    "none" => {
                        if outcome.is_some() {
                            r.failures.push(at(format!(
                                "joChess's game goes on after {} plies; the game: {outcome:?}",
                                w[3]
                            )));
                        }
                    }
                    "cut" => {
                        // joChess's own code failed here (its castling test recursing
                        // through the opponents' castling, ...): the game's departures
                        // (docs/jochess.md section 3) play on, so there is no ending to
                        // compare.
                        r.skipped.push(at(format!(
                            "the ending: joChess's code failed ({}), a documented departure",
                            w[2]
                        )));
                        continue;
                    }
                    other => return Err(at(format!("unknown ending {other}"))),
                }
                r.checked += 1;
            }
            other => return Err(at(format!("unknown directive {other}"))),
        }
    }
    Ok(r)
}

/// Replay the recorded games of `board` (a file of ../shared/jochess, without `.xml`).
fn replay_board(board: &str) {
    let path = root().join("tests/inputs/jochess-reference/recorded.txt");
    let text = std::fs::read_to_string(&path).expect("recorded.txt");
    let all: Vec<Case> = cases(&text)
        .into_iter()
        .filter(|g| {
            g.lines
                .iter()
                .any(|(_, w)| w[0] == "board" && w[1] == board)
        })
        .collect();
    assert!(all.len() >= 6, "6 recorded games on {board}");
    let (mut checked, mut plies) = (0, 0);
    let mut failures = Vec::new();
    for g in &all {
        match replay(g) {
            Ok(r) => {
                checked += r.checked;
                plies += r.plies;
                for s in r.skipped {
                    println!("{} {s}", g.name);
                }
                for f in r.failures {
                    failures.push(format!("{} (line {}): {f}", g.name, g.line));
                }
            }
            Err(e) => failures.push(format!("{} (line {}): {e}", g.name, g.line)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with joChess's games on {board} ({checked} expectations held):\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!(
        "{board}: {} games, {plies} plies, {checked} expectations",
        all.len()
    );
    assert!(plies >= 100, "only {plies} plies replayed on {board}");
}

#[test]
fn jochess_recorded_games_two_players() {
    replay_board("2PlayerBoard");
}

#[test]
fn jochess_recorded_games_hexagon() {
    replay_board("3PlayerBoard");
}

#[test]
fn jochess_recorded_games_circle() {
    replay_board("3PlayerBoard_II");
}
