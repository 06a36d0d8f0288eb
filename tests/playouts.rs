//! Playouts draw a random candidate and keep the first that commits, instead of building
//! the whole legal-move list: the move chosen must still be uniform over the legal moves,
//! the game statistics must agree with those of the full-list method (recorded below), and
//! trying moves must leave no trace in the session's world.

use flexrules::cli::play::wilson;
use std::path::PathBuf;
use std::sync::Arc;

use flexrules::compile::build_game_with_rules;
use flexrules::compile::program::Game;
use flexrules::runtime::playout::PerftProgress;
use flexrules::runtime::playout::{Chooser, Ending};
use flexrules::runtime::session::{Candidate, Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::Value;
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

/// Chess from a FEN: one where some candidates are refused (pinned pieces, king moves into
/// check) and Black mates in one (the fool's mate), so perft meets finished games.
fn chess_before_mate() -> Session {
    let options = SessionOptions {
        params: vec![(
            "fen".into(),
            Value::str("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"),
        )],
        ..SessionOptions::default()
    };
    Session::start(game("games/chess"), &options)
        .expect("chess starts")
        .0
}

/// `Session::trial`, the way playouts, perft and move lists try a candidate, ends as the
/// full transaction does and leaves the same world; a refused trial leaves the world it
/// started from, and no trial touches the session's. Candidates are named only on demand,
/// with the names `candidates` gives.
#[test]
fn a_trial_is_the_transaction_it_stands_for() {
    for mut s in [mixed_position(), chess_before_mate()] {
        let before = s.world.clone();
        let named: Vec<String> = s
            .candidates()
            .expect("candidates")
            .into_iter()
            .map(|a| a.name)
            .collect();
        let list = s.candidate_list().expect("candidates");
        assert_eq!(list.iter().map(Candidate::name).collect::<Vec<_>>(), named);
        let (mut legal, mut refused) = (0, 0);
        for c in &list {
            let (status, world) = s.trial(c);
            let (tx, full) = s.try_deliver(c.recipient, (*c.message).clone());
            assert_eq!(status, tx.status, "{}", c.name());
            assert!(world.same_as(&full), "{}: another world", c.name());
            assert!(
                s.world.same_as(&before),
                "trying {} changed the world",
                c.name()
            );
            match status {
                Status::Committed(_) => legal += 1,
                Status::Vetoed { .. } | Status::Failed(_) => {
                    refused += 1;
                    assert!(world.same_as(&before), "{} left changes", c.name());
                }
                Status::RolledBack { .. } => refused += 1,
            }
        }
        assert!(legal > 0 && refused > 0, "{legal} legal, {refused} refused");
    }
}

/// Counts of a walk that runs every move as a full transaction and keeps every world.
fn full_perft(s: &mut Session, ply: usize, counts: &mut [u64], finished: &mut [u64]) {
    if ply == counts.len() || s.ending().is_some() {
        return;
    }
    let start = s.world.clone();
    for a in s.candidates().expect("candidates") {
        let (tx, world) = s.try_deliver(a.recipient, (*a.message).clone());
        if tx.status.committed() {
            counts[ply] += 1;
            if world.outcome.is_some() {
                finished[ply] += 1;
            }
            s.world = world;
            full_perft(s, ply + 1, counts, finished);
            s.world = start.clone();
        }
    }
}

/// Perft drops the worlds of its last ply as it counts them: its counts, finished games
/// and progress are those of full transactions that keep every world.
#[test]
fn perft_counts_what_full_transactions_count() {
    for (mut s, depth) in [(chess_before_mate(), 2), (mixed_position(), 3)] {
        let before = s.world.clone();
        let (mut counts, mut finished) = (vec![0; depth], vec![0; depth]);
        full_perft(&mut s, 0, &mut counts, &mut finished);
        let perft = s.perft(depth);
        assert_eq!(perft.counts, counts);
        assert_eq!(perft.finished, finished);
        assert!(s.world.same_as(&before), "perft changed the world");
        let mut progress = Vec::new();
        let one = s.perft_with_progress(1, &mut |p| progress.push(p));
        let n = one.counts[0] as usize;
        let expected: Vec<PerftProgress> = (1..=n)
            .map(|done| PerftProgress { done, total: n })
            .collect();
        assert_eq!(progress, expected);
    }
    // The fool's mate is among Black's moves.
    let perft = chess_before_mate().perft(1);
    assert_eq!(perft.finished, vec![1]);
}
