//! Duplicate play (`playout --duplicate`): each board played at two tables from the same
//! start with two agents swapped between two groups of players. The same agent at both
//! places gains nothing on any board; swapping which group the first agent starts with
//! turns every board's gain round; the boards do not depend on the number of threads.

use flexrules::api::{Game, Match};
use flexrules::play::agent::{Agent, Agents};
use flexrules::play::duplicate::{Boards, Tables, play};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn system(name: &str) -> Agent {
    let file = root().join("games/bridge/systems").join(name);
    Agent::parse(&format!("system:{}", file.display())).expect("the system reads")
}

/// Agents: N and S play `ns`, E and W play `ew`.
fn seats(m: &mut Match, ns: &Agent, ew: &Agent) -> Agents {
    let players = [("N", ns), ("S", ns), ("E", ew), ("W", ew)]
        .into_iter()
        .map(|(p, a)| (p.to_string(), a.clone()))
        .collect();
    Agents::new(m, players, Agent::Random).expect("agents")
}

/// `boards` boards of `a` (first at N-S) against `b`, on `jobs` threads.
fn duplicate(a: &Agent, b: &Agent, boards: u64, jobs: usize) -> Boards {
    let game = Game::load(root().join("games/bridge")).expect("loads");
    let mut m = game.start_headless(3).expect("starts");
    let one = seats(&mut m, a, b);
    let two = seats(&mut m, b, a);
    let tables = Tables {
        agents: [&one, &two],
        score: "score_ns",
    };
    play(&m, boards, jobs, 3, 1_000, &tables, || {}).expect("threads")
}

#[test]
fn the_same_agent_at_both_places_gains_nothing() {
    let natural = system("natural.xml");
    let boards = duplicate(&natural, &natural, 10, 2);
    assert_eq!(boards.scored.len(), 10);
    for (i, [one, two]) in &boards.scored {
        assert_eq!(one, two, "board {i}: the two tables played the same game");
    }
    assert_eq!(boards.gain(), (0.0, 0.0, 0.0));
}

#[test]
fn swapping_the_agents_turns_each_gain_round_and_threads_change_nothing() {
    let (natural, weak) = (system("natural.xml"), system("natural-weak-twos.xml"));
    let ab = duplicate(&natural, &weak, 24, 1);
    let ba = duplicate(&weak, &natural, 24, 3);
    assert_eq!(ab.scored.len(), 24);
    let mut differ = 0;
    for ((i, [a1, a2]), (j, [b1, b2])) in ab.scored.iter().zip(&ba.scored) {
        assert_eq!(i, j);
        // Table 1 of one run is table 2 of the other.
        assert_eq!((a1, a2), (b2, b1), "board {i}");
        differ += usize::from(a1 != a2);
    }
    assert!(differ > 0, "the two systems bid alike on all 24 boards");
    let (g, lo, hi) = ab.gain();
    assert!(lo <= g && g <= hi);
    assert_eq!(ba.gain().0, -g);
    assert_eq!(
        duplicate(&natural, &weak, 24, 2).scored,
        ab.scored,
        "the same boards on any number of threads"
    );
}
