//! `playout --record`: each game of a run as one line (its number, the run's seed, the
//! game's own seed, how it ended, its moves by name), the same whatever the number of
//! threads, and a record that plays again: the moves replayed by name from the start of
//! the game's own seed end the way the line says. A game whose start depends on its seed
//! (bridge's deal) starts each game from its own.

use flexrules::api::{Game, Match};
use flexrules::play::agent::{Agent, Agents};
use flexrules::play::games::play;
use flexrules::runtime::value::Value;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn records(m: &Match, games: u64, jobs: usize, agents: Option<&Agents>) -> Vec<String> {
    let (tally, _) = play(m, games, jobs, 7, 400, agents, true, || {}).expect("threads");
    let mut lines = tally.records;
    lines.sort_unstable_by_key(|(i, _)| *i);
    assert_eq!(lines.len() as u64, games, "one record a game");
    lines.into_iter().map(|(_, l)| l).collect()
}

/// Replay a record line's moves from the start and compare how the game ended.
fn replays(game: &Game, line: &str) {
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 5, "{line}");
    assert_eq!(fields[1], "7", "the run's seed: {line}");
    let own: u64 = fields[2].parse().expect("the game's seed");
    let mut m = game.start_headless(own).expect("starts");
    let moves: Vec<&str> = fields[4].split(' ').filter(|s| !s.is_empty()).collect();
    for (i, mv) in moves.iter().enumerate() {
        if let Err(e) = m.play(mv) {
            panic!("move {i} `{mv}` of `{line}` does not play again: {e:?}");
        }
    }
    let winner = m.outcome().and_then(|o| {
        o.into_iter()
            .find(|(k, _)| k == "winner")
            .map(|(_, v)| v)
            .filter(|v| *v != Value::Nil)
    });
    let ended = match (fields[3], winner) {
        ("draw", None) => true,
        ("too-long", _) => m.outcome().is_none(),
        (w, Some(v)) => w == format!("winner {}", v.to_text()),
        _ => false,
    };
    assert!(
        ended,
        "`{line}` ends otherwise when played again: {:?}",
        m.outcome()
    );
}

#[test]
fn records_name_every_move_and_play_again() {
    for dir in ["games/awele", "games/chess", "games/bridge"] {
        let game = Game::load(root().join(dir)).expect("loads");
        let m = game.start_headless(0).expect("starts");
        let one = records(&m, 6, 1, None);
        assert_eq!(
            one,
            records(&m, 6, 3, None),
            "{dir}: the same on any number of threads"
        );
        for line in &one {
            replays(&game, line);
        }
    }
}

#[test]
fn a_searching_agent_records_the_moves_it_plays_not_those_it_tries() {
    let game = Game::load(root().join("games/awele")).expect("loads");
    let mut m = game.start_headless(0).expect("starts");
    let agents = Agents::new(
        &mut m,
        vec![("0".into(), Agent::parse("mcts:30").expect("agent"))],
        Agent::Random,
    )
    .expect("agents");
    for line in records(&m, 3, 1, Some(&agents)) {
        replays(&game, &line);
    }
}

/// Bridge deals at `#setup` from the seed: every game of a run is another deal (not the
/// deal of the run's start again), the same deal for any number of threads, and the
/// game's own seed deals it again.
#[test]
fn a_start_that_depends_on_the_seed_is_made_anew_for_each_game() {
    let game = Game::load(root().join("games/bridge")).expect("loads");
    let m = game.start_headless(0).expect("starts");
    assert!(m.start_drew_random());
    assert!(flexrules::play::games::start_varies(&m));
    // A thread's copy knows it too (each thread of a run asks its own copy).
    assert!(flexrules::play::games::start_varies(
        &m.thread_copy().into_inner()
    ));
    let lines = records(&m, 8, 2, None);
    let mut deals = std::collections::BTreeSet::new();
    for line in &lines {
        let own: u64 = line.split('\t').nth(2).unwrap().parse().unwrap();
        let dealt = game.start_headless(own).expect("starts");
        deals.insert(format!("{:?}", dealt.property("game", "hands")));
    }
    assert_eq!(deals.len(), 8, "eight games, eight deals");
    let awele = Game::load(root().join("games/awele")).expect("loads");
    let start = awele.start_headless(0).expect("starts");
    assert!(!start.start_drew_random());
    assert!(!flexrules::play::games::start_varies(&start));
}

/// A start that draws a number it does not use is the same from every seed: each game of
/// a run starts from the run's position (found by starting it twice more).
#[test]
fn a_start_that_draws_but_does_not_depend_on_the_seed_is_made_once() {
    let dir = std::env::temp_dir().join(format!("flexrules-draws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("draws.fr");
    std::fs::write(
        &file,
        "#entity e\n  #property n 0\n#instance a of e\n#setup\n  (random 6)\n",
    )
    .expect("writes");
    let game = Game::load(&file).expect("loads");
    let m = game.start_headless(0).expect("starts");
    assert!(m.start_drew_random());
    assert!(!flexrules::play::games::start_varies(&m));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bidding system's calls are recorded as the moves they are: the record of deals bid
/// by the example system at every seat plays again by name.
#[test]
fn a_bidding_systems_calls_are_recorded() {
    let game = Game::load(root().join("games/bridge")).expect("loads");
    let mut m = game.start_headless(0).expect("starts");
    let system = root().join("games/bridge/systems/natural.xml");
    let agent = Agent::parse(&format!("system:{}", system.display())).expect("agent");
    let agents = Agents::new(&mut m, Vec::new(), agent).expect("agents");
    let lines = records(&m, 4, 1, Some(&agents));
    for line in &lines {
        assert!(
            line.split('\t')
                .nth(4)
                .is_some_and(|m| m.starts_with("Pass") || m.as_bytes()[0].is_ascii_digit()),
            "the record starts with the auction: {line}"
        );
        replays(&game, line);
    }
}
