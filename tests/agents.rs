//! Playing agents: Monte Carlo tree search chooses legal moves, takes a win it sees and
//! blocks one, beats random play, leaves no trace of the moves it only tried, and plays
//! the same game for the same seed.

use flexrules::api::Match;
use flexrules::play::mcts::playout_with;
use flexrules::play::playout::ending;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flexrules::compile::build_game_with_rules;
use flexrules::compile::program::Game;
use flexrules::play::agent::{Agent, Agents};
use flexrules::play::playout::{Chooser, Ending};
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::value::Value;
use flexrules::syntax::load::DiskFs;

fn game(dir: &str) -> Arc<Game> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    match build_game_with_rules(&DiskFs, &dir, &[]) {
        Ok(b) => b.game,
        Err(e) => panic!("{} does not build: {e:?}", dir.display()),
    }
}

/// A session of `dir` with `players` given their agents and every other player `others`.
fn with_agents(dir: &str, players: &[(&str, Agent)], others: Agent) -> (Session, Agents) {
    let mut s = Session::start(game(dir), &SessionOptions::default())
        .expect("the game starts")
        .0;
    let players = players
        .iter()
        .map(|(p, a)| (p.to_string(), a.clone()))
        .collect();
    let agents =
        Match::around(&mut s, |m| Agents::new(m, players, others)).expect("the game has to-move");
    (s, agents)
}

fn play_names(s: &mut Session, names: &[&str]) {
    for name in names {
        let legal = s.legal_actions().expect("legal moves");
        let a = legal
            .iter()
            .find(|a| a.name == *name)
            .unwrap_or_else(|| panic!("{name} is not legal"));
        let tx = s.deliver(a.recipient, (*a.message).clone());
        assert!(tx.status.committed(), "{name} did not commit");
    }
}

fn mark(s: &Session, cell: &str) -> Value {
    let id = s
        .world()
        .lookup(flexrules::symbol::Symbol::intern(cell))
        .expect("a cell");
    s.world()
        .entity(id)
        .and_then(|e| e.property(&s.game, flexrules::symbol::Symbol::intern("mark")))
        .cloned()
        .expect("a mark")
}

const MCTS: Agent = Agent::Mcts {
    iterations: 200,
    depth: None,
};

/// X has a1 and a2 and the move: a3 wins, whatever the seed.
#[test]
fn mcts_takes_a_win_it_sees() {
    for seed in 0..8 {
        let (mut s, agents) = with_agents("tests/inputs/tic-tac-toe", &[], MCTS);
        play_names(&mut s, &["a1", "b1", "a2", "b2"]);
        let p = Match::around(&mut s, |m| {
            playout_with(
                m,
                &agents,
                &mut Chooser::new(seed, 0),
                1,
                &mut BTreeSet::new(),
            )
        })
        .expect("plays");
        assert_eq!(p.plies, 1);
        assert_eq!(
            Match::around(&mut s, |m| ending(m)),
            Some(Ending::Winner(Value::str("X"))),
            "seed {seed}"
        );
    }
}

/// X has a1 and a2, and O must block a3 or lose.
#[test]
fn mcts_blocks_a_win() {
    for seed in 0..8 {
        let (mut s, agents) = with_agents("tests/inputs/tic-tac-toe", &[], MCTS);
        play_names(&mut s, &["a1", "b1", "a2"]);
        Match::around(&mut s, |m| {
            playout_with(
                m,
                &agents,
                &mut Chooser::new(seed, 0),
                1,
                &mut BTreeSet::new(),
            )
        })
        .expect("plays");
        assert_eq!(mark(&s, "a3"), Value::str("O"), "seed {seed}");
    }
}

/// The move a search plays is one of the legal moves, and the world is exactly the one
/// that move leaves: nothing of the moves tried and played out below it remains.
#[test]
fn a_searched_move_is_legal_and_leaves_no_trace() {
    let (mut s, agents) = with_agents(
        "games/awele",
        &[],
        Agent::Mcts {
            iterations: 50,
            depth: None,
        },
    );
    let mut movers = BTreeSet::new();
    for ply in 0..12 {
        let legal = s.try_candidates().expect("legal moves").legal;
        let p = Match::around(&mut s, |m| {
            playout_with(m, &agents, &mut Chooser::new(5, ply), 1, &mut movers)
        })
        .expect("plays");
        assert_eq!(p.plies, 1);
        assert!(
            legal.iter().any(|(_, w)| w.same_as(s.world())),
            "ply {ply}: the world is not one a legal move leaves"
        );
    }
    let expected: BTreeSet<String> = ["0", "1"].iter().map(|p| p.to_string()).collect();
    assert_eq!(movers, expected);
}

/// The same seed and game number play the same game.
#[test]
fn a_game_depends_only_on_the_seed() {
    let (mut s, agents) = with_agents(
        "games/awele",
        &[(
            "1",
            Agent::Mcts {
                iterations: 20,
                depth: None,
            },
        )],
        Agent::Random,
    );
    let start = s.world().clone();
    let mut play = |seed| {
        *s.world_mut() = start.clone();
        let p = Match::around(&mut s, |m| {
            playout_with(
                m,
                &agents,
                &mut Chooser::new(seed, 3),
                60,
                &mut BTreeSet::new(),
            )
        })
        .expect("plays");
        (p, s.world().clone())
    };
    let (a, wa) = play(1);
    let (b, wb) = play(1);
    let (_, wc) = play(2);
    assert_eq!(a, b);
    assert!(wa.same_as(&wb), "the same seed left different worlds");
    assert!(!wa.same_as(&wc), "another seed played the same game");
}

/// Searching beats random play at Awele, from either side.
#[test]
fn mcts_beats_random_at_awele() {
    for (searcher, index) in [("0", 0), ("1", 100)] {
        let (mut s, agents) = with_agents(
            "games/awele",
            &[(
                searcher,
                Agent::Mcts {
                    iterations: 60,
                    depth: None,
                },
            )],
            Agent::Random,
        );
        let start = s.world().clone();
        let mut wins = 0;
        let games = 6;
        for i in 0..games {
            *s.world_mut() = start.clone();
            let p = Match::around(&mut s, |m| {
                playout_with(
                    m,
                    &agents,
                    &mut Chooser::new(7, index + i),
                    2_000,
                    &mut BTreeSet::new(),
                )
            })
            .expect("plays");
            if p.ending == Ending::Winner(Value::Int(searcher.parse().expect("a number"))) {
                wins += 1;
            }
        }
        assert!(
            wins >= games - 1,
            "player {searcher} searching won {wins} of {games}"
        );
    }
}

/// A game without `to-move` cannot have agents that search; one whose `to-move` takes
/// parameters neither.
#[test]
fn agents_need_to_move() {
    let mut s = Session::start(game("tests/inputs/paper"), &SessionOptions::default())
        .expect("starts")
        .0;
    let e = Match::around(&mut s, |m| Agents::new(m, Vec::new(), MCTS)).expect_err("no to-move");
    assert!(e.contains("defines no function `to-move`"), "{e}");
}

/// The interval of a difference of two rates, by Newcombe's method 10: his worked example
/// (56/70 against 48/80 gives 0.2000, 0.0524 to 0.3339).
#[test]
fn difference_of_rates_has_newcombes_interval() {
    let (d, lo, hi) = flexrules::play::stats::difference(56, 70, 48, 80);
    assert!((d - 0.2).abs() < 1e-9, "{d}");
    assert!((lo - 0.0524).abs() < 5e-5, "{lo}");
    assert!((hi - 0.3339).abs() < 5e-5, "{hi}");
    // No change, no games: an interval around 0 that stays within [-1, 1].
    let (d, lo, hi) = flexrules::play::stats::difference(0, 0, 0, 0);
    assert_eq!(d, 0.0);
    assert!((-1.0..=0.0).contains(&lo) && (0.0..=1.0).contains(&hi));
}

/// A one-player game that never ends by itself: each turn `good` or `bad` is marked, and
/// `evaluate` scores the last mark. Random playouts to the end tell the moves apart not at
/// all; scored after 0 moves, the search picks `good` every time.
const MARKS: &str = r#"
#entity board
  #property last nil
  #state default
    #onMessage mark
      (update property "last" to (attribute "name"))
#instance board of board
#actions
  (list (list "board" (new message "mark" with "name" "good"))
        (list "board" (new message "mark" with "name" "bad")))
#define to-move () "p"
#define evaluate () (dict "p" (if (= (property "last" of "board") "good") 1 else 0))
"#;

fn marks(text: &str) -> Session {
    let mut fs = flexrules::syntax::load::MemoryFs::new();
    fs.insert("game.fr", text.to_string());
    let built = build_game_with_rules(&fs, Path::new("game.fr"), &[]).expect("the game builds");
    Session::start(built.game, &SessionOptions::default())
        .expect("starts")
        .0
}

#[test]
fn evaluate_scores_the_positions_a_search_stops_at() {
    let mut s = marks(MARKS);
    let agents = Match::around(&mut s, |m| {
        Agents::new(
            m,
            Vec::new(),
            Agent::Mcts {
                iterations: 20,
                depth: Some(0),
            },
        )
    })
    .expect("agents");
    assert!(agents.evaluate.is_some());
    for seed in 0..8 {
        Match::around(&mut s, |m| {
            playout_with(
                m,
                &agents,
                &mut Chooser::new(seed, 0),
                1,
                &mut BTreeSet::new(),
            )
        })
        .expect("plays");
        let board = s.world().lookup(flexrules::symbol::Symbol::intern("board"));
        let last = s
            .world()
            .entity(board.expect("board"))
            .and_then(|e| e.property(&s.game, flexrules::symbol::Symbol::intern("last")))
            .cloned();
        assert_eq!(last, Some(Value::str("good")), "seed {seed}");
    }
    // A depth needs `evaluate`; `evaluate` must give a dictionary of numbers.
    let mut s = marks(&MARKS.replace("#define evaluate ()", "#define score ()"));
    let deep = Agent::Mcts {
        iterations: 20,
        depth: Some(3),
    };
    let e = Match::around(&mut s, |m| Agents::new(m, Vec::new(), deep.clone()))
        .expect_err("no evaluate");
    assert!(e.contains("defines no function `evaluate`"), "{e}");
    let mut s = marks(&MARKS.replace("(dict \"p\" (if", "(list \"p\" (if"));
    let agents = Match::around(&mut s, |m| Agents::new(m, Vec::new(), deep)).expect("agents");
    let stopped = Match::around(&mut s, |m| {
        playout_with(m, &agents, &mut Chooser::new(1, 0), 1, &mut BTreeSet::new())
    })
    .expect_err("evaluate gives a list");
    assert!(
        stopped.error.message.contains("(evaluate) gave list"),
        "{}",
        stopped.error.message
    );
}
