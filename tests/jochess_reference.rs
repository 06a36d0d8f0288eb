//! games/jochess agrees with joChess: every expectation of joChess's own JUnit tests of its
//! rule engine (`tests/inputs/jochess-reference/junit.txt`, the format in docs/jochess.md
//! section 5) is replayed on the game, on joChess's own board files in `../shared/jochess`.
//!
//! Each case starts the game on its board, sets the position up with the game's own data
//! (the pieces on the positions, the game's tables), and asks the game's functions what
//! joChess's methods answer: a piece's candidates, one step or the whole walk of a rule, a
//! processor's castling, promotion, first move and en passant, whether a king is attacked,
//! stalemate; an `execute` plays the move through the game's laws and behaviours.

#[path = "common/jochess.rs"]
mod jochess;
#[path = "common/reference.rs"]
mod reference;

use std::collections::BTreeSet;

use flexrules::api::{Game, Match};
use flexrules::runtime::value::Value;
use jochess::{Case, board_file, cases, eval, names};
use reference::root;

fn quoted(s: &str) -> String {
    format!("{s:?}")
}

/// The rules the case defines (`rule` lines), as the game's `make-rule` expressions, nested
/// under their parents.
struct Rules(Vec<(String, Vec<String>, Option<String>)>);

impl Rules {
    fn expr(&self, name: &str) -> String {
        let (_, w, _) = (self.0.iter())
            .find(|(n, _, _)| n == name)
            .unwrap_or_else(|| panic!("no rule {name} in this case"));
        // rule <name> <type> <direction> <manoeuvre> <max> <file> <rank> <family> [<custom>]
        let custom = w.get(9).map_or("nil".to_string(), |c| quoted(c));
        let children: Vec<String> = (self.0.iter())
            .filter(|(_, _, parent)| parent.as_deref() == Some(name))
            .map(|(n, _, _)| self.expr(n))
            .collect();
        format!(
            "(make-rule {} {} {} {} {} {} {} {} {} (list {}))",
            quoted(&w[1]),
            quoted(&w[2]),
            quoted(&w[3]),
            quoted(&w[4]),
            w[5],
            quoted(&w[6]),
            quoted(&w[7]),
            quoted(&w[8]),
            custom,
            children.join(" ")
        )
    }
}

/// Run one case; the first disagreement, if any.
fn run(case: &Case) -> Result<usize, String> {
    let board = (case.lines.iter())
        .find(|(_, w)| w[0] == "board")
        .map(|(_, w)| w[1].clone())
        .ok_or("no board line")?;
    let game = Game::loader(root().join("games/jochess"))
        .param("board", &board_file(&board).to_string_lossy())
        .load()
        .map_err(|e| format!("the game does not load on {board}: {e:?}"))?;
    let mut m = game
        .start_headless(1)
        .map_err(|e| format!("the game does not start on {board}: {e:?}"))?;
    let mut rules = Rules(Vec::new());
    let mut checked = 0;
    let mut pending: Option<(usize, Value)> = None;
    for (line, w) in &case.lines {
        let at = |e: String| format!("line {line}: {e}");
        let args = &w[1..];
        let ev = |m: &mut Match, text: &str| eval(m, text).map_err(at);
        match w[0].as_str() {
            "board" | "start" => {}
            "processor" => {
                ev(
                    &mut m,
                    &format!(
                        "(update property \"processor\" of \"game\" to {})",
                        quoted(&args[0])
                    ),
                )?;
            }
            "empty" => {
                let keep: Vec<String> = args.iter().skip(1).map(|s| quoted(s)).collect();
                ev(
                    &mut m,
                    &format!(
                        "(foreach c in (property \"squares\" of \"game\") (if (not (contains (list {}) c)) (update property \"piece\" of c to nil)))",
                        keep.join(" ")
                    ),
                )?;
            }
            // joChess's cleared square keeps its piece in its player's list, standing
            // nowhere on the board: here it leaves the board (no case depends on the rest).
            "clear" | "lift" => {
                for sq in args {
                    ev(
                        &mut m,
                        &format!("(update property \"piece\" of {} to nil)", quoted(sq)),
                    )?;
                }
            }
            "rule" => {
                let parent = w.iter().position(|x| x == "in").map(|i| w[i + 1].clone());
                let end = w.iter().position(|x| x == "in").unwrap_or(w.len());
                rules.0.push((w[1].clone(), w[..end].to_vec(), parent));
            }
            "put" => {
                // put <sq> <player> <type> [from <sq>] [rules <rule>...]
                let (sq, player, ty) = (&args[0], &args[1], &args[2]);
                let from = args
                    .iter()
                    .position(|x| x == "from")
                    .map(|i| args[i + 1].clone());
                let own: Vec<String> = match args.iter().position(|x| x == "rules") {
                    Some(i) => args[i + 1..].iter().map(|r| rules.expr(r)).collect(),
                    None => Vec::new(),
                };
                if !own.is_empty() {
                    ev(
                        &mut m,
                        &format!(
                            "(update property \"types\" of \"game\" to (put (property \"types\" of \"game\") {} (dict \"family\" nil \"kind\" nil \"rules\" (list {}))))",
                            quoted(ty),
                            own.join(" ")
                        ),
                    )?;
                }
                let piece = match from {
                    Some(f) => format!("(property \"piece\" of {})", quoted(&f)),
                    None => format!(
                        "(dict \"type\" {} \"player\" {} \"name\" {} \"id\" (+ 1000 (length (property \"squares\" of \"game\"))) \"moved\" 0 \"shots\" 0 \"listed\" true)",
                        quoted(ty),
                        quoted(player),
                        quoted(ty)
                    ),
                };
                ev(
                    &mut m,
                    &format!("(update property \"piece\" of {} to {piece})", quoted(sq)),
                )?;
            }
            "teleport" => {
                let (a, b) = (quoted(&args[0]), quoted(&args[1]));
                ev(
                    &mut m,
                    &format!(
                        "(if (= (property \"piece\" of {b}) nil) (do (var p (property \"piece\" of {a})) (update property \"piece\" of {a} to nil) (update property \"piece\" of {b} to (put p \"moved\" (+ 1 (get p \"moved\")))) end))"
                    ),
                )?;
            }
            "history" => {
                let (player, a, b) = (quoted(&args[0]), quoted(&args[1]), quoted(&args[2]));
                ev(
                    &mut m,
                    &format!(
                        "(do (var p (property \"piece\" of {a})) (update property \"piece\" of {a} to nil) (update property \"piece\" of {b} to p) \
                     (update property \"last\" of \"game\" to (put (property \"last\" of \"game\") {player} (dict \"id\" (get p \"id\") \"from\" {a} \"to\" {b} \
                     \"ranks\" (abs (- (nth (property \"coords\" of {b}) 1) (nth (property \"coords\" of {a}) 1)))))) end)"
                    ),
                )?;
            }
            "execute" => {
                // The engine executes the candidate: the piece's owner is to move and the
                // move goes through the laws. A rule the case made is one the piece may use.
                let (a, b, rule) = (quoted(&args[0]), quoted(&args[1]), &args[2]);
                if rules
                    .0
                    .iter()
                    .any(|(n, w, _)| n == rule && w[2] != "CUSTOM")
                {
                    ev(
                        &mut m,
                        &format!(
                            "(do (var p (property \"piece\" of {a})) (var types (property \"types\" of \"game\")) (var t (get types (get p \"type\"))) \
                         (update property \"types\" of \"game\" to (put types (get p \"type\") (put t \"rules\" (append (get t \"rules\") {})))) end)",
                            rules.expr(rule)
                        ),
                    )?;
                }
                ev(
                    &mut m,
                    &format!(
                        "(update property \"turn\" of \"game\" to (get (property \"piece\" of {a}) \"player\"))"
                    ),
                )?;
                let label = ev(&mut m, &format!("(get (candidates {a}) {b})"))?;
                let message = if label.to_string().contains("BOMB[CANNON]") {
                    "fire"
                } else {
                    "move"
                };
                let v = ev(
                    &mut m,
                    &format!(
                        "(send new message {} to {a} with \"to\" {b})",
                        quoted(message)
                    ),
                )?;
                let _ = v;
            }
            "ask" => {
                let sq = args.get(1).map(|s| quoted(s)).unwrap_or_default();
                let text = match args[0].as_str() {
                    "candidates" => format!("(keys (candidates {sq}))"),
                    "step" | "walk" => {
                        // ask step|walk <sq> <came-from|-> <rule> [for <player> [<type>]]
                        let last = if args[2] == "-" {
                            "nil".to_string()
                        } else {
                            quoted(&args[2])
                        };
                        let mut rule = rules.expr(&args[3]);
                        if args[0] == "step" {
                            rule = format!("(put (put {rule} \"max\" 1) \"rules\" (list))");
                        }
                        let player = match args.iter().position(|x| x == "for") {
                            Some(i) => quoted(&args[i + 1]),
                            None => format!("(get (property \"piece\" of {sq}) \"player\")"),
                        };
                        format!("(keys (walk-rules {sq} {last} {player} (list {rule}) (dict)))")
                    }
                    "castling" => {
                        let dirs: Vec<String> = args[2..]
                            .iter()
                            .map(|d| quoted(&d.to_uppercase()))
                            .collect();
                        format!(
                            "(do (var out (list)) (foreach d in (list {}) (do (var s (castling-scan {sq} (property \"piece\" of {sq}) d)) (if s (var out (append out (first s)))) end)) out end)",
                            dirs.join(" ")
                        )
                    }
                    "promotion" => format!(
                        "(keys (promotion-candidates {sq} (get (property \"piece\" of {sq}) \"player\") (dict)))"
                    ),
                    "first-move" => format!(
                        "(keys (walk-rules {sq} nil (get (property \"piece\" of {sq}) \"player\") (list (first-move-rule)) (dict)))"
                    ),
                    "en-passant" => format!(
                        "(keys (en-passant-candidates {sq} (get (property \"piece\" of {sq}) \"player\") (dict)))"
                    ),
                    "endangered" => format!("(king-attacker {sq})"),
                    "stalemate" => format!("(stalemated {sq})"),
                    other => return Err(at(format!("unknown question `{other}`"))),
                };
                let got = ev(&mut m, &text)?;
                if args[0] == "candidates" {
                    // The piece's moves as a player sees them: with its owner to move, the
                    // legal moves from its square reach exactly its candidates.
                    ev(
                        &mut m,
                        &format!(
                            "(update property \"turn\" of \"game\" to (get (property \"piece\" of {sq}) \"player\"))"
                        ),
                    )?;
                    let legal = ev(&mut m, &format!("(legal-moves \"entity\" {sq})"))?;
                    let targets: BTreeSet<String> = names(&legal)
                        .iter()
                        .map(|n| {
                            let to = n.split_once('-').map_or(n.as_str(), |(_, t)| t);
                            to.split('=').next().unwrap_or(to).to_string()
                        })
                        .collect();
                    if targets != names(&got) {
                        return Err(at(format!(
                            "the legal moves from {sq} reach {targets:?}, its candidates are {got}"
                        )));
                    }
                }
                pending = Some((*line, got));
            }
            "expect" | "expect-count" => {
                let (asked, got) = pending
                    .take()
                    .ok_or_else(|| at("expect without ask".into()))?;
                let ok = if w[0] == "expect-count" {
                    names(&got).len().to_string() == args[0]
                } else {
                    match args[0].as_str() {
                        "none" => names(&got).is_empty() || got == Value::Nil,
                        "yes" => got.truthy(),
                        "no" => !got.truthy(),
                        _ => names(&got) == args.iter().cloned().collect::<BTreeSet<_>>(),
                    }
                };
                if !ok {
                    return Err(format!(
                        "line {line}: the question of line {asked} gave {got}, joChess expects {}",
                        args.join(" ")
                    ));
                }
                checked += 1;
            }
            "expect-piece" => {
                let got = ev(
                    &mut m,
                    &format!(
                        "(do (var p (property \"piece\" of {})) (if p (get p \"type\") else nil) end)",
                        quoted(&args[0])
                    ),
                )?;
                let ok = if args[1] == "empty" {
                    got == Value::Nil
                } else {
                    names(&got) == BTreeSet::from([args[1].clone()])
                };
                if !ok {
                    return Err(format!(
                        "line {line}: {} holds {got}, joChess expects {}",
                        args[0], args[1]
                    ));
                }
                checked += 1;
            }
            other => return Err(at(format!("unknown directive `{other}`"))),
        }
    }
    Ok(checked)
}

#[test]
fn jochess_unit_test_expectations_hold() {
    let path = root().join("tests/inputs/jochess-reference/junit.txt");
    let text = std::fs::read_to_string(&path).expect("junit.txt");
    let all = cases(&text);
    assert_eq!(all.len(), 70, "one case per asserting JUnit method");
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in &all {
        match run(case) {
            Ok(n) => checked += n,
            Err(e) => failures.push(format!("{} (line {}): {e}", case.name, case.line)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree with joChess ({checked} expectations held):\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
    assert!(checked >= 300, "only {checked} expectations checked");
}
