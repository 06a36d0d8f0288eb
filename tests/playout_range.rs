//! A run played in stretches (`play::range::play_range`), each on its own, adds up to the
//! run played whole on threads (`play::games::play`): the same games, the same tally,
//! the first error of the smallest game number; and a tally crosses processes as plain
//! data (`play::summary::{to_data, from_data}`) unchanged, its first error included.

use flexrules::api::Game;
use flexrules::play::agent::Agents;
use flexrules::play::games::play;
use flexrules::play::range::play_range;
use flexrules::play::stats::Tally;
use flexrules::play::summary::{from_data, summary, to_data};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Games `0..games` played in stretches of `chunk`, each on a match of its own, merged
/// out of order.
fn in_stretches(
    game: &Game,
    seed: u64,
    games: u64,
    chunk: u64,
    agents: &[String],
    max_plies: usize,
) -> Tally {
    let mut parts = Vec::new();
    let mut first = 0;
    while first < games {
        let count = chunk.min(games - first);
        let mut m = game.start_headless(seed).expect("starts");
        let agents = Agents::from_texts(&mut m, agents).expect("agents");
        parts.push(play_range(
            &m,
            seed,
            first,
            count,
            max_plies,
            agents.as_ref(),
        ));
        first += count;
    }
    parts.reverse();
    parts.into_iter().fold(Tally::default(), Tally::merge)
}

fn whole(game: &Game, seed: u64, games: u64, jobs: usize, agents: &[String]) -> Tally {
    let mut m = game.start_headless(seed).expect("starts");
    let agents = Agents::from_texts(&mut m, agents).expect("agents");
    let (tally, _) =
        play(&m, games, jobs, seed, 300, agents.as_ref(), false, || {}).expect("threads");
    tally
}

#[test]
fn stretches_add_up_to_the_whole_run_on_any_number_of_threads() {
    // Awele starts the same whatever the seed; bridge deals from each game's own seed.
    for (dir, games) in [("games/awele", 24), ("games/bridge", 6)] {
        let game = Game::load(root().join(dir)).expect("loads");
        for seed in [0, 11] {
            let parts = in_stretches(&game, seed, games, 5, &[], 300);
            assert_eq!(parts.games, games);
            assert_eq!(
                parts,
                whole(&game, seed, games, 1, &[]),
                "{dir} seed {seed}"
            );
            assert_eq!(
                parts,
                whole(&game, seed, games, 2, &[]),
                "{dir} seed {seed}"
            );
        }
    }
}

#[test]
fn stretches_with_agents_add_up_to_the_whole_run() {
    let game = Game::load(root().join("games/awele")).expect("loads");
    let agents = vec!["0=mcts:8".to_string()];
    let parts = in_stretches(&game, 3, 6, 4, &agents, 300);
    assert!(parts.movers.contains("0"), "{:?}", parts.movers);
    assert_eq!(parts, whole(&game, 3, 6, 2, &agents));
}

#[test]
fn the_first_error_is_the_smallest_game_number_and_crosses_as_plain_data() {
    let dir = root().join("tests/inputs/tic-tac-toe");
    let game = Game::loader(&dir)
        .rules_files(&[dir.join("variants/corner-typo.fr")])
        .load()
        .expect("loads");
    let parts = in_stretches(&game, 0, 9, 2, &[], 300);
    let whole = whole(&game, 0, 9, 2, &[]);
    assert!(parts.failed > 0, "the typo stops games");
    assert_eq!(parts, whole);
    let (index, stopped) = parts.first_error.as_ref().expect("a first error");
    assert_eq!(stopped.error.message, "no entity named \"gmae\"");
    assert!(stopped.error.span.is_some(), "the error has its place");
    // Through JSON text, as it travels between processes.
    let text = to_data(&parts).to_string();
    let back = from_data(&serde_json::from_str(&text).expect("JSON")).expect("a tally");
    assert_eq!(back, parts);
    assert_eq!(back.first_error.as_ref().map(|(i, _)| i), Some(index));
    // The summary read from the data is the summary of the tally.
    assert_eq!(
        summary(&back, 1.0, None, game.sources()),
        summary(&parts, 1.0, None, game.sources())
    );
    let d = &summary(&back, 1.0, None, game.sources())["first_error"]["diagnostic"];
    assert_eq!(d["line"], 7, "{d}");
}

#[test]
fn plain_data_with_a_field_missing_is_refused() {
    let mut data = to_data(&Tally::default());
    data.as_object_mut().expect("an object").remove("draws");
    assert_eq!(
        from_data(&data),
        Err("a tally's data has no field `draws`".to_string())
    );
}
