//! Agreement of games/bridge with an independent implementation: OpenSpiel's "bridge"
//! (google-deepmind/open_spiel, `pip install open_spiel`, played out with
//! `use_double_dummy_result=false`), which no one on this project wrote.
//!
//! `tools/bridge-reference.py` deals at random with OpenSpiel (random dealer and
//! vulnerability too), plays a random legal auction and, for the `full` deals, a random
//! legal play of the 52 cards, and writes for every step the seat asked to act, every
//! legal call or card and the one played; after the auction the contract and declarer;
//! at the end the contract, declarer, tricks and North-South score. The files in
//! `tests/inputs/bridge-reference/` were made with it (see the README there). Here each
//! deal is loaded in games/bridge through the public API with the parameters `deal` (the
//! PBN deal), `dealer` and `vulnerable`, and replayed by move name: before every step the
//! seat to move and the set of legal moves must be the same, a card must come from the
//! same hand (the move's `player`), once the auction is over the game's `contract` and
//! `declarer` must agree, and at the end the outcome's `contract`, `declarer`, `tricks`
//! and `score_ns`; the game must not end sooner or later than OpenSpiel's.
//!
//! A live run of the script with fresh seeds is added when `python3 -c "import pyspiel"`
//! works (skipped with a note outside CI, a failure in CI); `BRIDGE_REFERENCE_SEEDS=1,2`
//! chooses its seeds and `BRIDGE_REFERENCE_GAMES` how many deals each plays (5 played out
//! and 5 auctions).

#[path = "common/reference.rs"]
mod reference;
#[path = "common/tools.rs"]
mod tools;
use reference::*;

use flexrules::api::{Game, Match, Value};
use flexrules::play::agent::{Agent, Agents};
use flexrules::play::games::play;
use flexrules::runtime::value::Key;
use flexrules::symbol::Symbol;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One call or card as OpenSpiel saw it.
#[derive(Debug)]
struct Step {
    by: String,
    legal: Vec<String>,
    play: String,
    /// The seat a card comes from (none for a call).
    hand: Option<String>,
}

/// The contract once the auction is over (`-` and `Passed Out` when nobody bid).
#[derive(Debug, Default, Clone, PartialEq)]
struct Contract {
    declarer: String,
    contract: String,
}

/// How a played-out deal ended.
#[derive(Debug, Default, Clone, PartialEq)]
struct End {
    contract: Contract,
    tricks: i64,
    score_ns: i64,
}

/// One deal: its settings, its steps, the contract after the auction, and (for the deals
/// played out) the end.
#[derive(Debug, Default)]
struct Played {
    full: bool,
    dealer: String,
    vulnerable: String,
    deal: String,
    steps: Vec<Step>,
    /// How many steps the auction took.
    calls: usize,
    auction: Option<Contract>,
    end: Option<End>,
    /// The bidding system (a file of games/bridge/systems) whose agent, at every seat,
    /// made the calls; none for a random auction.
    system: Option<String>,
}

/// `declarer <seat|-> ... contract <text>`: the declarer and the contract (the rest of
/// the line, as it holds a space).
fn contract_of(rest: &str) -> Contract {
    let declarer = rest
        .strip_prefix("declarer ")
        .and_then(|r| r.split_whitespace().next())
        .expect("declarer");
    let (_, contract) = rest.split_once(" contract ").expect("contract");
    Contract {
        declarer: declarer.to_string(),
        contract: contract.to_string(),
    }
}

fn parse(text: &str) -> Vec<Played> {
    let mut games: Vec<Played> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (kind, rest) = line.split_once(' ').expect("a line kind");
        match kind {
            "game" => games.push(Played {
                full: words[3] == "full",
                dealer: words[5].to_string(),
                vulnerable: words[7].to_string(),
                system: (words.get(8) == Some(&"system")).then(|| words[9].to_string()),
                ..Played::default()
            }),
            "deal" => games.last_mut().expect("a game").deal = rest.to_string(),
            "step" => {
                let game = games.last_mut().expect("a game");
                assert_eq!(words[1].parse::<usize>().ok(), Some(game.steps.len()));
                let play_at = words.iter().position(|w| *w == "play").expect("play");
                game.steps.push(Step {
                    by: words[3].to_string(),
                    legal: words[5..play_at].iter().map(|w| w.to_string()).collect(),
                    play: words[play_at + 1].to_string(),
                    hand: (words.get(play_at + 2) == Some(&"hand"))
                        .then(|| words[play_at + 3].to_string()),
                });
            }
            "auction" => {
                let game = games.last_mut().expect("a game");
                game.calls = game.steps.len();
                game.auction = Some(contract_of(rest));
            }
            "end" => {
                let number = |key: &str| -> i64 {
                    let at = words.iter().position(|w| *w == key).expect(key);
                    words[at + 1].parse().expect("a number")
                };
                games.last_mut().expect("a game").end = Some(End {
                    contract: contract_of(rest),
                    tricks: number("tricks"),
                    score_ns: number("score_ns"),
                });
            }
            other => panic!("unknown line kind {other}"),
        }
    }
    games
}

/// games/bridge, which this test is about; a clear failure when it is not there.
fn bridge_dir() -> PathBuf {
    let dir = root().join("games/bridge");
    assert!(
        dir.join("game.fr").is_file(),
        "{} is missing (no game.fr): this test replays OpenSpiel's bridge deals on games/bridge, \
         which must take the parameters deal, dealer and vulnerable",
        dir.display()
    );
    dir
}

/// A seat or nil, as the script writes it (`-` for nobody).
fn seat_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Nil) => "-".to_string(),
        Some(v) => v.to_text(),
    }
}

/// The outcome as the script writes its `end` line; `None` while the deal goes on.
fn ending(m: &Match) -> Option<End> {
    let outcome = m.outcome()?;
    let get = |key: &str| outcome.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    // Absent or not an integer: a number no recorded deal has, so it shows as a
    // disagreement.
    let number = |key: &str| match get(key) {
        Some(Value::Int(i)) => *i,
        _ => i64::MIN,
    };
    Some(End {
        contract: Contract {
            declarer: seat_text(get("declarer")),
            contract: get("contract").map_or("(none)".into(), Value::to_text),
        },
        tricks: number("tricks"),
        score_ns: number("score_ns"),
    })
}

/// The contract and declarer the game shows once the auction is over.
fn contract_now(m: &Match) -> Contract {
    Contract {
        declarer: seat_text(m.property("game", "declarer").as_ref()),
        contract: m
            .property("game", "contract")
            .map_or("(no property contract)".into(), |v| v.to_text()),
    }
}

/// The calls the agent following `system` at every seat makes on `game`'s deal.
fn system_calls(game: &Game, dir: &Path, system: &str) -> Result<Vec<String>, String> {
    let file = dir.join("systems").join(system);
    let agent = Agent::parse(&format!("system:{}", file.display()))?;
    let mut m = game.start_headless(0).map_err(|e| e.to_string())?;
    let agents = Agents::new(&mut m, Vec::new(), agent)?;
    let (tally, _) = play(&m, 1, 1, 0, 1_000, Some(&agents), true, || {}).expect("a thread");
    let line = &tally.records.first().ok_or("no record")?.1;
    let moves = line.split('\t').nth(4).ok_or("no moves")?;
    // The calls: the moves before the first card (a card is a suit letter and a rank).
    let card = |m: &&str| m.len() == 2 && m.starts_with(['S', 'H', 'D', 'C']);
    Ok(moves
        .split(' ')
        .take_while(|m| !card(m))
        .map(String::from)
        .collect())
}

/// Replay `played` in games/bridge; the first disagreement, if any.
fn replay(dir: &Path, played: &Played) -> Result<(), String> {
    let game = Game::loader(dir)
        .param("deal", &played.deal)
        .param("dealer", &played.dealer)
        .param("vulnerable", &played.vulnerable)
        .load()
        .map_err(|e| format!("does not load: {e}"))?;
    if let Some(system) = &played.system {
        let made = system_calls(&game, dir, system)?;
        let recorded: Vec<&String> = played
            .steps
            .iter()
            .take(played.calls)
            .map(|s| &s.play)
            .collect();
        if made.iter().collect::<Vec<_>>() != recorded {
            return Err(format!(
                "{system} now calls {made:?} on this deal, the recorded auction was {recorded:?}"
            ));
        }
    }
    let mut m = game
        .start_headless(0)
        .map_err(|e| format!("does not start: {e}"))?;
    for (k, step) in played.steps.iter().enumerate() {
        if let Some(end) = ending(&m) {
            return Err(format!(
                "step {k}: flexrules ended the deal ({end:?}), OpenSpiel goes on"
            ));
        }
        let movers = m.players_to_move().map_err(|e| format!("step {k}: {e}"))?;
        if movers != [step.by.clone()] {
            return Err(format!(
                "step {k}: {movers:?} to move, OpenSpiel {}",
                step.by
            ));
        }
        let moves = m.legal_moves().map_err(|e| format!("step {k}: {e}"))?;
        let legal: BTreeSet<&str> = moves.iter().map(|mv| mv.name.as_str()).collect();
        let expected: BTreeSet<&str> = step.legal.iter().map(String::as_str).collect();
        if legal != expected || legal.len() != moves.len() {
            return Err(format!(
                "step {k}: legal {:?}, OpenSpiel {:?} (only flexrules: {:?}; only OpenSpiel: {:?})",
                moves.iter().map(|mv| &mv.name).collect::<Vec<_>>(),
                step.legal,
                legal.difference(&expected).collect::<Vec<_>>(),
                expected.difference(&legal).collect::<Vec<_>>()
            ));
        }
        if let Some(hand) = &step.hand {
            // The card comes from `hand` (dummy's, when declarer plays it), and the move
            // is the seat's that OpenSpiel asks for it (its `by`).
            let mv = moves.iter().find(|mv| mv.name == step.play).expect("legal");
            if mv.player.as_ref() != Some(&step.by) {
                return Err(format!(
                    "step {k}: {} is given by {:?}, OpenSpiel by {}",
                    step.play, mv.player, step.by
                ));
            }
            let held = match m.property("game", "hands") {
                Some(Value::Dict(d)) => d
                    .get(&Key::sym(Symbol::intern(hand)))
                    .is_some_and(|h| h.to_string().contains(&format!("\"{}\"", step.play))),
                _ => false,
            };
            if !held {
                return Err(format!(
                    "step {k}: {} is not in the hand of {hand} in flexrules",
                    step.play
                ));
            }
        }
        m.play(&step.play)
            .map_err(|e| format!("step {k}: {} refused: {e}", step.play))?;
        if k + 1 == played.calls {
            let expected = played.auction.clone().expect("the auction's contract");
            let contract = match ending(&m) {
                Some(end) => end.contract,
                None => contract_now(&m),
            };
            if contract != expected {
                return Err(format!(
                    "after the auction: {contract:?}, OpenSpiel {expected:?}"
                ));
            }
        }
    }
    let end = ending(&m);
    let passed_out = played.auction.as_ref().is_some_and(|a| a.declarer == "-");
    match &played.end {
        Some(expected) if end.as_ref() == Some(expected) => Ok(()),
        // An auction alone: the deal goes on, unless it was passed out.
        None if end.is_some() == passed_out => Ok(()),
        None if passed_out => Err("passed out, but flexrules goes on".into()),
        expected => Err(format!(
            "after step {}: {end:?}, OpenSpiel {expected:?}",
            played.steps.len()
        )),
    }
}

/// Replay all of `games`, adding each disagreement to `failures`; the number of steps
/// compared.
fn check_all(what: &str, games: &[Played], failures: &mut Vec<String>) -> usize {
    assert!(!games.is_empty(), "{what}: no deals");
    let dir = bridge_dir();
    for (i, g) in games.iter().enumerate() {
        if let Err(e) = replay(&dir, g) {
            failures.push(format!("{what} deal {i} ({}): {e}", g.deal));
        }
    }
    games.iter().map(|g| g.steps.len()).sum()
}

fn fixtures() -> Vec<(String, Vec<Played>)> {
    let dir = root().join("tests/inputs/bridge-reference");
    fixture_files(&dir, "")
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("readable");
            (f.display().to_string(), parse(&text))
        })
        .collect()
}

/// The recorded files are whole: every deal dealt (13 cards a hand, each card once), an
/// auction, and the end of the deals played out; the counts the README gives.
#[test]
fn fixtures_are_whole() {
    let mut deals = (0, 0);
    let mut steps = 0;
    for (file, games) in fixtures() {
        for (i, g) in games.iter().enumerate() {
            let hands: Vec<&str> = g.deal[2..].split(' ').collect();
            assert_eq!(hands.len(), 4, "{file} deal {i}");
            let mut cards = BTreeSet::new();
            for hand in hands {
                let suits: Vec<&str> = hand.split('.').collect();
                assert_eq!(suits.len(), 4, "{file} deal {i}");
                assert_eq!(suits.concat().len(), 13, "{file} deal {i}");
                for (suit, ranks) in "SHDC".chars().zip(suits) {
                    for r in ranks.chars() {
                        assert!(cards.insert((suit, r)), "{file} deal {i}: {suit}{r} twice");
                    }
                }
            }
            assert!(
                g.deal.starts_with(&format!("{}:", g.dealer)),
                "{file} deal {i}"
            );
            assert!(g.auction.is_some(), "{file} deal {i}: no auction line");
            assert_eq!(g.full, g.end.is_some(), "{file} deal {i}");
            if g.full && g.auction.as_ref().is_some_and(|a| a.declarer != "-") {
                assert_eq!(g.steps.len(), g.calls + 52, "{file} deal {i}");
            } else {
                assert_eq!(g.steps.len(), g.calls, "{file} deal {i}");
            }
            if g.full {
                deals.0 += 1;
            } else {
                deals.1 += 1;
            }
            steps += g.steps.len();
        }
    }
    assert_eq!(deals, (40, 80), "deals played out, auctions");
    assert_eq!(steps, 2_953, "steps");
}

#[test]
fn fixture_deals_agree_with_openspiel() {
    let (mut steps, mut failures) = (0, Vec::new());
    for (file, games) in fixtures() {
        steps += check_all(&file, &games, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(steps >= 2_000, "only {steps} steps compared");
}

#[test]
fn live_deals_agree_with_openspiel() {
    bridge_dir();
    if !python_has("pyspiel") {
        tools::missing_tool(
            "the live bridge comparison: pyspiel is not importable (pip install open_spiel)",
        );
        return;
    }
    let seeds = live_seeds("BRIDGE_REFERENCE_SEEDS", 2);
    let count = env_count("BRIDGE_REFERENCE_GAMES", 5);
    let mut failures = Vec::new();
    for args in [&[][..], &["--auction-only"][..]] {
        for (seed, text) in run_reference(
            "bridge-reference.py",
            args,
            &seeds,
            count,
            "BRIDGE_REFERENCE_SEEDS",
        ) {
            let what = format!("live seed {seed} {}", args.join(" "));
            check_all(&what, &parse(&text), &mut failures);
        }
    }
    // Auctions of the example system, made by flexrules, checked in OpenSpiel.
    let system = [
        "--system",
        "games/bridge/systems/natural.xml",
        "--flexrules",
        env!("CARGO_BIN_EXE_flexrules"),
    ];
    for (seed, text) in run_reference(
        "bridge-reference.py",
        &system,
        &seeds,
        count,
        "BRIDGE_REFERENCE_SEEDS",
    ) {
        check_all(
            &format!("live seed {seed} system"),
            &parse(&text),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
