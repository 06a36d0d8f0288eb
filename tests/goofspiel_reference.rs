//! Agreement of games/goofspiel with an independent implementation: OpenSpiel's
//! "goofspiel" (google-deepmind/open_spiel, `pip install open_spiel`), a game of
//! simultaneous moves, which no one on this project wrote.
//!
//! `tools/goofspiel-reference.py` plays random games with OpenSpiel and writes, before
//! every turn, the prize card, each player's hand and the points, then the bids; at the
//! end the points and the winner. The files in `tests/inputs/goofspiel-reference/` were made
//! with it (see the README there), for 2, 3 and 4 players, both prize orders. Here each
//! game is replayed in flexrules, every player's bid played by name (`<player>:<card>`,
//! in player order: the bids are secret, so the order does not matter), and the same
//! things must agree before every turn and at the end. Both play the last turn (one card
//! left each) by themselves.
//!
//! A live run of the script with fresh seeds is added when `python3 -c "import pyspiel"`
//! works (skipped with a note otherwise); `GOOFSPIEL_REFERENCE_SEEDS=1,2,...` chooses the
//! seeds.

#[path = "common/tools.rs"]
mod tools;
use flexrules::api::Match;
use flexrules::play::playout::Ending;
use flexrules::play::playout::ending;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::value::Value;

#[path = "common/reference.rs"]
mod reference;
use reference::*;

/// One turn as OpenSpiel saw it.
#[derive(Debug, Default)]
struct Turn {
    prize: i64,
    hands: Vec<Vec<i64>>,
    points: Vec<i64>,
    bids: Vec<i64>,
}

/// One game: its settings, its turns, and the end.
#[derive(Debug, Default)]
struct Played {
    cards: i64,
    players: i64,
    order: String,
    turns: Vec<Turn>,
    points: Vec<i64>,
    winner: Option<i64>,
}

fn numbers(text: &str) -> Vec<i64> {
    text.split_whitespace()
        .map(|n| n.parse().expect("a number"))
        .collect()
}

fn parse(text: &str) -> Vec<Played> {
    let mut games: Vec<Played> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "game" => games.push(Played {
                cards: words[3].parse().expect("cards"),
                players: words[5].parse().expect("players"),
                order: words[7].to_string(),
                ..Played::default()
            }),
            "turn" => {
                let rest = line.strip_prefix("turn prize ").expect("turn");
                let (prize, rest) = rest.split_once(" hands ").expect("hands");
                let (hands, points) = rest.split_once(" points ").expect("points");
                let game = games.last_mut().expect("a game");
                game.turns.push(Turn {
                    prize: prize.parse().expect("prize"),
                    hands: hands.split('/').map(numbers).collect(),
                    points: numbers(points),
                    bids: Vec::new(),
                });
            }
            "bids" => {
                let game = games.last_mut().expect("a game");
                game.turns.last_mut().expect("a turn").bids = numbers(&line[5..]);
            }
            "end" => {
                let (points, winner) = line[11..].split_once(" winner ").expect("winner");
                let game = games.last_mut().expect("a game");
                game.points = numbers(points);
                game.winner = winner.parse().ok();
            }
            other => panic!("unknown line kind {other}"),
        }
    }
    games
}

fn ints(v: &Value) -> Vec<i64> {
    match v {
        Value::List(l) => l
            .iter()
            .map(|x| match x {
                Value::Int(i) => *i,
                other => panic!("not an integer: {other}"),
            })
            .collect(),
        other => panic!("not a list: {other}"),
    }
}

/// Replay `played` in flexrules; the first disagreement, if any.
fn replay(played: &Played) -> Result<(), String> {
    let options = SessionOptions {
        tier: Default::default(),
        params: vec![
            ("cards".into(), Value::Int(played.cards)),
            ("players".into(), Value::Int(played.players)),
            ("order".into(), Value::str(&played.order)),
        ],
        ..SessionOptions::default()
    };
    let mut s = Session::start(game_with("games/goofspiel", &[]), &options)
        .map_err(|e| format!("does not start: {e}"))?
        .0;
    for (t, turn) in played.turns.iter().enumerate() {
        let prizes = ints(&property(&s, "game", "prizes"));
        if prizes.first() != Some(&turn.prize) {
            return Err(format!(
                "turn {t}: prize {:?}, OpenSpiel {}",
                prizes.first(),
                turn.prize
            ));
        }
        let points = ints(&property(&s, "game", "points"));
        if points != turn.points {
            return Err(format!(
                "turn {t}: points {points:?}, OpenSpiel {:?}",
                turn.points
            ));
        }
        for (p, hand) in turn.hands.iter().enumerate() {
            let mine = ints(&property(&s, &format!("player{p}"), "hand"));
            if &mine != hand {
                return Err(format!(
                    "turn {t}: player {p} holds {mine:?}, OpenSpiel {hand:?}"
                ));
            }
        }
        for (p, bid) in turn.bids.iter().enumerate() {
            let name = format!("{p}:{bid}");
            let legal = s.legal_actions().map_err(|e| e.message)?;
            let Some(a) = legal.iter().find(|a| a.name == name) else {
                return Err(format!("turn {t}: {name} is not legal here"));
            };
            let tx = s.deliver(a.recipient, (*a.message).clone());
            if !tx.status.committed() {
                return Err(format!("turn {t}: {name}: {}", tx.status.summary()));
            }
        }
    }
    let points = ints(&property(&s, "game", "points"));
    if points != played.points {
        return Err(format!(
            "end: points {points:?}, OpenSpiel {:?}",
            played.points
        ));
    }
    let expected = match played.winner {
        Some(w) => Ending::Winner(Value::Int(w)),
        None => Ending::Draw,
    };
    if Match::around(&mut s, |m| ending(m)) != Some(expected.clone()) {
        return Err(format!(
            "end: {:?}, OpenSpiel {expected:?}",
            Match::around(&mut s, |m| ending(m))
        ));
    }
    Ok(())
}

fn check_all(what: &str, games: &[Played]) {
    assert!(!games.is_empty(), "{what}: no games");
    let failures: Vec<String> = games
        .iter()
        .enumerate()
        .filter_map(|(i, g)| replay(g).err().map(|e| format!("{what} game {i}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixture_games_agree_with_openspiel() {
    let dir = root().join("tests/inputs/goofspiel-reference");
    let files = fixture_files(&dir, "");
    assert_eq!(files.len(), 4);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        check_all(&f.display().to_string(), &parse(&text));
    }
}

#[test]
fn live_games_agree_with_openspiel() {
    if !python_has("pyspiel") {
        tools::missing_tool(
            "the live Goofspiel comparison: pyspiel is not importable (pip install open_spiel)",
        );
        return;
    }
    for seed in live_seeds("GOOFSPIEL_REFERENCE_SEEDS", 2) {
        for (cards, players, order) in [(7, 2, "descending"), (5, 3, "ascending")] {
            let out = std::process::Command::new("python3")
                .arg(root().join("tools/goofspiel-reference.py"))
                .args(["--seed", &seed.to_string(), "--count", "10"])
                .args([
                    "--cards",
                    &cards.to_string(),
                    "--players",
                    &players.to_string(),
                ])
                .args(["--order", order])
                .output()
                .expect("python3 runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).expect("text");
            check_all(
                &format!("live seed {seed}, {cards} cards, {players} players"),
                &parse(&text),
            );
        }
    }
}
