//! Playouts draw a random candidate and keep the first that commits, instead of building
//! the whole legal-move list: the move chosen must still be uniform over the legal moves,
//! the game statistics must agree with those of the full-list method (recorded below), and
//! trying moves must leave no trace in the session's world.

use flexrules::cli::play::wilson;
use std::path::PathBuf;
use std::sync::Arc;

use flexrules::compile::build_game_with_rules;
use flexrules::compile::program::Game;
use flexrules::runtime::playout::{Chooser, Ending};
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::syntax::load::DiskFs;

fn game(dir: &str) -> Arc<Game> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    match build_game_with_rules(&DiskFs, &dir, &[]) {
        Ok(b) => b.game,
        Err(e) => panic!("{} does not build: {e:?}", dir.display()),
    }
}

fn awele() -> Session {
    Session::start(game("games/awele"), &SessionOptions::default())
        .expect("awele starts")
        .0
}

/// A position of games/awele where some candidates are illegal and at least two are legal,
/// reached by a fixed sequence of random moves.
fn mixed_position() -> Session {
    let mut s = awele();
    let mut chooser = Chooser::new(3, 0);
    for _ in 0..200 {
        let candidates = s.candidates().expect("candidates");
        let legal = s.try_candidates().expect("legal moves").legal;
        if legal.len() >= 2 && candidates.len() > legal.len() {
            return s;
        }
        assert!(!legal.is_empty(), "the game ended before a mixed position");
        let pick = chooser.below(legal.len());
        s.world = legal[pick].1.clone();
    }
    panic!("no position with both legal and illegal candidates in 200 plies");
}

#[test]
fn the_move_drawn_is_uniform_over_legal_moves() {
    let mut s = mixed_position();
    let start = s.world.clone();
    let legal = s.try_candidates().expect("legal moves").legal;
    let games = 600 * legal.len() as u64;
    let mut seen = vec![0u64; legal.len()];
    for i in 0..games {
        s.world = start.clone();
        let p = s.playout(&mut Chooser::new(11, i), 1).expect("playout");
        assert_eq!(p.plies, 1);
        let which = legal
            .iter()
            .position(|(_, w)| w.same_as(&s.world))
            .unwrap_or_else(|| panic!("game {i} left a world no legal move leaves"));
        seen[which] += 1;
    }
    let share = 1.0 / legal.len() as f64;
    for (k, (action, _)) in seen.iter().zip(&legal) {
        let (lo, hi) = wilson(*k, games);
        assert!(
            lo <= share && share <= hi,
            "{} drawn {k} times in {games}: interval {lo:.3}-{hi:.3} misses {share:.3}",
            action.name
        );
    }
}

#[test]
fn playout_statistics_agree_with_the_full_legal_list() {
    // `flexrules playout games/awele -n 400 --seed 7` when each ply built the whole legal
    // list and picked one: winner 0, winner 1, draw.
    let before = [169u64, 205, 26];
    let games = 400u64;
    let mut s = awele();
    let start = s.world.clone();
    let mut now = [0u64; 3];
    for i in 0..games {
        s.world = start.clone();
        let mut chooser = Chooser::new(7, i);
        s.world.rng = chooser.next_u64();
        let p = s.playout(&mut chooser, 10_000).expect("playout");
        match p.ending {
            Ending::Winner(w) if w.to_text() == "0" => now[0] += 1,
            Ending::Winner(w) if w.to_text() == "1" => now[1] += 1,
            Ending::Draw => now[2] += 1,
            other => panic!("game {i} ended {other:?}"),
        }
    }
    for (what, (b, n)) in ["winner 0", "winner 1", "draw"]
        .iter()
        .zip(before.iter().zip(now))
    {
        let (lo, hi) = wilson(n, games);
        let (blo, bhi) = wilson(*b, games);
        let (pb, pn) = (*b as f64 / games as f64, n as f64 / games as f64);
        assert!(
            lo <= pb && pb <= hi && blo <= pn && pn <= bhi,
            "{what}: {n} now against {b} before, intervals {lo:.3}-{hi:.3} and {blo:.3}-{bhi:.3}"
        );
    }
}

#[test]
fn trying_moves_leaves_no_trace() {
    let mut s = mixed_position();
    let before = s.world.clone();
    let legal = s.legal_actions().expect("legal actions");
    assert!(s.world.same_as(&before), "legal_actions changed the world");
    let moves = s.try_candidates().expect("legal moves").legal;
    assert_eq!(moves.len(), legal.len());
    assert!(s.world.same_as(&before), "legal_moves changed the world");
    let perft = s.perft(3);
    assert!(perft.failures.is_empty());
    assert!(s.world.same_as(&before), "perft changed the world");
    // Every candidate, legal or not, tried on its own: the session's world is untouched.
    for a in s.candidates().expect("candidates") {
        let (tx, after) = s.try_deliver(a.recipient, (*a.message).clone());
        assert!(
            s.world.same_as(&before),
            "trying {} changed the world",
            a.name
        );
        if !tx.status.committed() {
            assert!(after.same_as(&before), "{} failed but left changes", a.name);
        }
    }
    // A one-ply playout changes only the world it is given, by one legal move.
    let p = s.playout(&mut Chooser::new(5, 0), 1).expect("playout");
    assert_eq!(p.plies, 1);
    assert!(moves.iter().any(|(_, w)| w.same_as(&s.world)));
}
