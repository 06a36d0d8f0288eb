//! Archipelago (`games/archipelago`): random games for 3, 4 and 6 players always finish
//! (no game stuck, too long or stopped by an error), with a winner or a draw, and each
//! variant loads and plays too.

use flexrules::api::Game;
use flexrules::play::games::play;
use std::path::PathBuf;

fn game(players: u32, rules: Option<&str>) -> Game {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut loader =
        Game::loader(root.join("games/archipelago")).param("players", &players.to_string());
    if let Some(r) = rules {
        loader = loader.rules(root.join("games/archipelago/variants").join(r));
    }
    loader.load().expect("archipelago loads")
}

/// Play `games` random games; every one must finish within the plies a game can take.
fn all_finish(players: u32, rules: Option<&str>, games: u64) {
    let m = game(players, rules).start_headless(0).expect("starts");
    let (tally, _) = play(&m, games, 2, 11, 2_000, None, false, || {}).expect("threads");
    let what = format!("{players} players, rules {rules:?}");
    assert_eq!(tally.failed, 0, "{what}: {:?}", tally.first_error);
    assert_eq!(tally.stuck, 0, "{what}: a game was stuck");
    assert_eq!(tally.too_long, 0, "{what}: a game was too long");
    let finished: u64 = tally.wins.values().sum::<u64>() + tally.draws;
    assert_eq!(finished, games, "{what}: every game finishes");
    // Eight rounds of four orders per player at most.
    assert!(tally.plies <= games * 32 * u64::from(players), "{what}");
    for w in tally.wins.keys() {
        let seat: u32 = w.parse().expect("a winner is a player");
        assert!(seat < players, "{what}: winner {w}");
    }
}

#[test]
fn three_players_always_finish() {
    all_finish(3, None, 48);
}

#[test]
fn four_players_always_finish() {
    all_finish(4, None, 36);
}

#[test]
fn six_players_always_finish() {
    all_finish(6, None, 24);
}

#[test]
fn the_variants_play() {
    for v in ["calm-seas.fr", "open-reefs.fr", "explorers.fr"] {
        all_finish(3, Some(v), 12);
    }
}

#[test]
fn players_outside_three_to_six_are_refused() {
    for n in [2, 7] {
        let err = match game(n, None).start_headless(0) {
            Ok(_) => panic!("{n} players started"),
            Err(e) => format!("{e:?}"),
        };
        assert!(err.contains("archipelago is for 3 to 6 players"), "{err}");
    }
}
