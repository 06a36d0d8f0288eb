//! Playouts draw a random candidate and keep the first that commits, instead of building
//! the whole legal-move list: the move chosen must still be uniform over the legal moves,
//! the game statistics must agree with those of the full-list method (recorded below), and
//! trying moves must leave no trace in the session's world.

use flexrules::api::Match;
use flexrules::play::perft::perft;
use flexrules::play::perft::perft_on_threads;
use flexrules::play::perft::perft_with_progress;
use flexrules::play::playout::ending;
use flexrules::play::playout::playout;
use flexrules::play::stats::wilson;
use std::path::PathBuf;
use std::sync::Arc;

use flexrules::compile::build_game_with_rules;
use flexrules::compile::program::Game;
use flexrules::play::perft::{Perft, PerftFailure, PerftProgress};
use flexrules::play::playout::{Chooser, Ending};
use flexrules::runtime::session::{Candidate, Session, SessionOptions};
use flexrules::runtime::trace::{RuntimeError, Status};
use flexrules::runtime::value::Value;
use flexrules::runtime::vm::MoveLog;
use flexrules::runtime::world::{EntityId, World};
use flexrules::syntax::load::{DiskFs, MemoryFs};

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
        *s.world_mut() = legal[pick].1.clone();
    }
    panic!("no position with both legal and illegal candidates in 200 plies");
}

#[test]
fn the_move_drawn_is_uniform_over_legal_moves() {
    let mut s = mixed_position();
    let start = s.world().clone();
    let legal = s.try_candidates().expect("legal moves").legal;
    let games = 600 * legal.len() as u64;
    let mut seen = vec![0u64; legal.len()];
    for i in 0..games {
        *s.world_mut() = start.clone();
        let p =
            Match::around(&mut s, |m| playout(m, &mut Chooser::new(11, i), 1)).expect("playout");
        assert_eq!(p.plies, 1);
        let which = legal
            .iter()
            .position(|(_, w)| w.same_as(s.world()))
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
    let start = s.world().clone();
    let mut now = [0u64; 3];
    for i in 0..games {
        *s.world_mut() = start.clone();
        let mut chooser = Chooser::new(7, i);
        s.world_mut().rng = chooser.next_u64();
        let p = Match::around(&mut s, |m| playout(m, &mut chooser, 10_000)).expect("playout");
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
    let before = s.world().clone();
    let legal = s.legal_actions().expect("legal actions");
    assert!(
        s.world().same_as(&before),
        "legal_actions changed the world"
    );
    let moves = s.try_candidates().expect("legal moves").legal;
    assert_eq!(moves.len(), legal.len());
    assert!(s.world().same_as(&before), "legal_moves changed the world");
    let perft = Match::around(&mut s, |m| perft(m, 3));
    assert!(perft.failures.is_empty());
    assert!(s.world().same_as(&before), "perft changed the world");
    // Every candidate, legal or not, tried on its own: the session's world is untouched.
    for a in s.candidates().expect("candidates") {
        let (tx, after) = s.try_deliver(a.recipient, (*a.message).clone());
        assert!(
            s.world().same_as(&before),
            "trying {} changed the world",
            a.name
        );
        if !tx.status.committed() {
            assert!(after.same_as(&before), "{} failed but left changes", a.name);
        }
    }
    // A one-ply playout changes only the world it is given, by one legal move.
    let p = Match::around(&mut s, |m| playout(m, &mut Chooser::new(5, 0), 1)).expect("playout");
    assert_eq!(p.plies, 1);
    assert!(moves.iter().any(|(_, w)| w.same_as(s.world())));
}

/// Chess from a FEN: one where some candidates are refused (pinned pieces, king moves into
/// check) and Black mates in one (the fool's mate), so perft meets finished games.
fn chess_before_mate() -> Session {
    let options = SessionOptions {
        tier: Default::default(),
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
        let before = s.world().clone();
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
                s.world().same_as(&before),
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

/// What perft counts, by a walk that runs every move as a full transaction and keeps every
/// world, trying all the candidates of a position before going deeper (the order in which
/// perft reports the failures it meets).
fn full_perft(s: &mut Session, depth: usize) -> Perft {
    let mut result = Perft {
        counts: vec![0; depth],
        finished: vec![0; depth],
        failures: Vec::new(),
    };
    let start = s.world().clone();
    full_perft_from(s, 0, &mut Vec::new(), &mut result);
    *s.world_mut() = start;
    result
}

fn full_perft_from(s: &mut Session, ply: usize, played: &mut Vec<String>, r: &mut Perft) {
    if ply == r.counts.len() || Match::around(s, |m| ending(m)).is_some() {
        return;
    }
    let fail =
        |r: &mut Perft, error: RuntimeError, played: &[String], action: Option<String>| match r
            .failures
            .iter_mut()
            .find(|f| f.error.span == error.span && f.error.message == error.message)
        {
            Some(f) => f.count += 1,
            None => r.failures.push(PerftFailure {
                error,
                played: played.to_vec(),
                action,
                count: 1,
            }),
        };
    let candidates = match s.candidates() {
        Ok(c) => c,
        Err(e) => return fail(r, e, played, None),
    };
    let start = s.world().clone();
    let mut next = Vec::new();
    for a in candidates {
        let (tx, world) = s.try_deliver(a.recipient, (*a.message).clone());
        match tx.status {
            Status::Committed(_) => {
                r.counts[ply] += 1;
                if world.outcome.is_some() {
                    r.finished[ply] += 1;
                }
                next.push((a.name, world));
            }
            Status::Failed(e) => fail(r, e, played, Some(a.name)),
            Status::Vetoed { .. } | Status::RolledBack { .. } => {}
        }
    }
    for (name, world) in next {
        *s.world_mut() = world;
        played.push(name);
        full_perft_from(s, ply + 1, played, r);
        played.pop();
    }
    *s.world_mut() = start;
}

fn go9() -> Session {
    let options = SessionOptions {
        tier: Default::default(),
        params: vec![("size".into(), Value::Int(9))],
        ..SessionOptions::default()
    };
    Session::start(game("games/go"), &options)
        .expect("go starts")
        .0
}

fn chess_fen(fen: &str) -> Session {
    let options = SessionOptions {
        tier: Default::default(),
        params: vec![("fen".into(), Value::str(fen))],
        ..SessionOptions::default()
    };
    Session::start(game("games/chess"), &options)
        .expect("chess starts")
        .0
}

/// `s` after `plies` random moves (a playout cut short).
fn after(mut s: Session, seed: u64, plies: usize) -> Session {
    let p =
        Match::around(&mut s, |m| playout(m, &mut Chooser::new(seed, 0), plies)).expect("playout");
    assert_eq!(p.plies, plies, "the game ended early");
    s
}

/// Perft makes and unmakes its moves in place: its counts, finished games and progress
/// are those of full transactions that keep every world, and the session's world is
/// left as it was.
#[test]
fn perft_counts_what_full_transactions_count() {
    for (mut s, depth) in [
        (chess_before_mate(), 2),
        (mixed_position(), 3),
        (go9(), 2),
        (after(go9(), 5, 40), 2),
    ] {
        let before = s.world().clone();
        let full = full_perft(&mut s, depth);
        let perft = Match::around(&mut s, |m| perft(m, depth));
        assert_eq!(perft, full);
        assert!(s.world().same_as(&before), "perft changed the world");
        let mut progress = Vec::new();
        let one = Match::around(&mut s, |m| {
            perft_with_progress(m, 1, &mut |p| progress.push(p))
        });
        let n = one.counts[0] as usize;
        let expected: Vec<PerftProgress> = (1..=n)
            .map(|done| PerftProgress { done, total: n })
            .collect();
        assert_eq!(progress, expected);
        let mut progress = Vec::new();
        Match::around(&mut s, |m| {
            perft_with_progress(m, 2, &mut |p| progress.push(p))
        });
        assert_eq!(progress, expected);
        // Spread over threads: the same counts, the same progress, the world untouched.
        for jobs in [2, 3] {
            let mut progress = Vec::new();
            let spread = Match::around(&mut s, |m| {
                perft_on_threads(m, depth, jobs, &mut |p| progress.push(p))
            });
            assert_eq!(spread, full, "perft on {jobs} threads");
            assert_eq!(progress.len(), n);
            assert_eq!(progress.last(), expected.last());
            assert!(
                s.world().same_as(&before),
                "perft on threads changed the world"
            );
        }
    }
    // The fool's mate is among Black's moves; perft counts the moves, and the endings the
    // moves themselves make: checkmate is what `no-legal-move` makes of the position after
    // it, which only a move played (or a playout) asks.
    let mut s = chess_before_mate();
    let perft = Match::around(&mut s, |m| perft(m, 1));
    assert_eq!(perft.finished, vec![0]);
    let mut m = Match::of_session(s);
    m.play("d8h4").expect("the fool's mate");
    let outcome = m.outcome().expect("checkmate ends the game");
    assert!(
        outcome
            .iter()
            .any(|(k, v)| k == "reason" && v.to_text() == "checkmate"),
        "{outcome:?}"
    );
}

/// Perft goes down from a legal move before it tries the next candidate, yet it reports
/// each distinct error as first met by the walk that tries all the candidates of a
/// position first: with the moves played before it and the candidate that failed.
/// Here O's c3 fails one ply above X's second c1, and is met after it going down.
#[test]
fn perft_reports_failures_in_the_order_of_the_full_walk() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/tic-tac-toe");
    let mut fs = MemoryFs::new();
    let text = std::fs::read_to_string(dir.join("game.fr")).expect("tic-tac-toe");
    fs.insert("game.fr", text);
    fs.insert(
        "late.fr",
        r#"#sideeffect "O Into c3" on place to cell in * is
  (if (and (= (self) "c3") (= (attribute "player") "O"))
      (send new message "placed" to "gmae"))
#sideeffect "X Into c1 Again" on place to cell in * is
  (if (and (= (self) "c1") (and (= (attribute "player") "X") (> (property "filled" of "game") 1)))
      (fail "a failing move"))
"#
        .to_string(),
    );
    let built = build_game_with_rules(
        &fs,
        std::path::Path::new("game.fr"),
        &[PathBuf::from("late.fr")],
    )
    .expect("the game builds");
    let mut s = Session::start(built.game, &SessionOptions::default())
        .expect("starts")
        .0;
    let full = full_perft(&mut s, 4);
    assert_eq!(full.failures.len(), 2);
    assert_eq!(full.failures[0].played, vec!["a1".to_string()]);
    assert_eq!(full.failures[0].action.as_deref(), Some("c3"));
    assert_eq!(full.failures[1].played.len(), 2);
    assert_eq!(Match::around(&mut s, |m| perft(m, 4)), full);
    // On threads, each thread's walk meets the failures below its first moves: they are
    // merged as the one walk would have met them.
    for jobs in [2, 4, 9] {
        assert_eq!(
            Match::around(&mut s, |m| perft_on_threads(m, 4, jobs, &mut |_| {})),
            full,
            "{jobs} threads"
        );
    }
}

/// Tic-tac-toe where X's mark on b2 as the first move wins at once (a first move with
/// nothing below it), built with the rules file `rules`.
fn tic_tac_toe_with(rules: &str) -> Session {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/tic-tac-toe");
    let mut fs = MemoryFs::new();
    let text = std::fs::read_to_string(dir.join("game.fr")).expect("tic-tac-toe");
    fs.insert("game.fr", text);
    fs.insert("rules.fr", rules.to_string());
    let built = build_game_with_rules(
        &fs,
        std::path::Path::new("game.fr"),
        &[PathBuf::from("rules.fr")],
    )
    .expect("the game builds");
    Session::start(built.game, &SessionOptions::default())
        .expect("starts")
        .0
}

/// Deep enough, perft on threads counts below the replies to the first moves (tried on
/// the calling thread first) rather than below the first moves: the same counts, finished
/// games, failures and progress as one thread, a first move that ends the game counted
/// too, the world untouched; and with a profile, the same steps as one thread.
#[test]
fn perft_split_at_the_replies_counts_what_one_thread_counts() {
    let rules = r#"#sideeffect "Centre First Wins" on place to cell in * is
  (if (and (= (self) "b2") (= (property "filled" of "game") 1))
      (finish with "winner" "X"))
#sideeffect "O Into a3 Late" on place to cell in * is
  (if (and (= (self) "a3") (= (attribute "player") "O") (> (property "filled" of "game") 4))
      (fail "a failing move"))
"#;
    let depth = flexrules::play::perft::SPLIT_AT_REPLIES + 2;
    let mut s = tic_tac_toe_with(rules);
    let before = s.world().clone();
    let mut progress = Vec::new();
    let one = Match::around(&mut s, |m| {
        perft_on_threads(m, depth, 1, &mut |p| progress.push(p))
    });
    assert_eq!(one.counts[0], 9);
    assert_eq!(one.finished[0], 1, "b2 ends the game at once");
    assert!(!one.failures.is_empty());
    assert_eq!(progress.len(), 9);
    for jobs in [2, 3, 8] {
        let mut spread_progress = Vec::new();
        let spread = Match::around(&mut s, |m| {
            perft_on_threads(m, depth, jobs, &mut |p| spread_progress.push(p))
        });
        assert_eq!(spread, one, "{jobs} threads");
        assert_eq!(spread_progress, progress, "{jobs} threads");
        assert!(
            s.world().same_as(&before),
            "perft on threads changed the world"
        );
    }
    // A profile counts each trial once, however the walk is spread.
    let profile_of = |jobs: usize| {
        let mut s = tic_tac_toe_with(rules);
        s.set_profiling(true);
        let perft = Match::around(&mut s, |m| perft_on_threads(m, depth, jobs, &mut |_| {}));
        assert_eq!(perft, one, "{jobs} threads, profiling");
        let p = s.take_profile().expect("profiling");
        p.rows(&s.game)
    };
    assert_eq!(profile_of(1), profile_of(3));
}

/// A copy of `world` sharing none of its entities (or the nodes that hold them), so a move
/// made on `world` changes it in place.
fn separate_copy(world: &World) -> World {
    let mut copy = world.clone();
    let ids: Vec<EntityId> = world.iter().map(|(id, _)| id).collect();
    for id in ids {
        copy.entity_mut(id);
    }
    copy
}

/// Every candidate of `s`'s position made in place and unmade: it ends as the full
/// transaction on a copy does, leaves the world that transaction leaves, and unmaking it
/// (or not committing) gives back the world exactly as it was. Counts the statuses met.
fn make_and_unmake_every_candidate(s: &mut Session, seen: &mut [usize; 4]) {
    let before = separate_copy(s.world());
    let mut log = MoveLog::default();
    for c in s.candidate_list().expect("candidates") {
        let mut copy = s.fork().into_inner();
        *copy.world_mut() = separate_copy(s.world());
        let (tx, full) = copy.try_deliver(c.recipient, (*c.message).clone());
        let status = s.make(&c, &mut log);
        assert_eq!(status, tx.status, "{}", c.name());
        match status {
            Status::Committed(_) => {
                seen[0] += 1;
                assert!(s.world().same_as(&full), "{}: another world", c.name());
                assert_eq!(log.len(), 1);
                assert!(s.unmake(&mut log), "{}: nothing to unmake", c.name());
            }
            Status::Vetoed { .. } => seen[1] += 1,
            Status::RolledBack { .. } => seen[2] += 1,
            Status::Failed(_) => seen[3] += 1,
        }
        assert!(log.is_empty());
        assert!(
            s.world().same_as(&before),
            "{} ({}) left a trace",
            c.name(),
            status.summary()
        );
    }
}

/// Moves made in place leave no trace once unmade, and the ones that do not commit none
/// at all, in Awele, chess (mates, castling, en passant, promotion, moves refused for
/// check) and Go (captures, suicides), on a watched world too.
#[test]
fn a_move_made_in_place_is_undone_exactly() {
    let mut seen = [0; 4];
    let mut watched =
        chess_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    watched.watch().expect("chess is watched");
    assert!(watched.world().canvas.active);
    let positions = [
        awele(),
        mixed_position(),
        after(awele(), 2, 60),
        chess_before_mate(),
        chess_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        chess_fen("rnbqkb1r/pp1p1pPp/8/2p1pP2/1P1P4/3P3P/P1P1P3/RNBQKBNR w KQkq e6 0 1"),
        chess_fen("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"),
        watched,
        go9(),
        after(go9(), 7, 60),
        after(go9(), 8, 90),
    ];
    for mut s in positions {
        make_and_unmake_every_candidate(&mut s, &mut seen);
    }
    let [committed, vetoed, rolled_back, _] = seen;
    assert!(
        committed > 0 && vetoed > 0 && rolled_back > 0,
        "{committed} committed, {vetoed} vetoed, {rolled_back} rolled back"
    );
}

/// A playout plays its moves in place: from the same world and seed, the moves are those
/// of full transactions that draw the same candidates, and the world it ends on is theirs.
#[test]
fn a_playout_plays_what_full_transactions_play() {
    for (s, seed) in [(awele(), 4), (go9(), 9), (chess_before_mate(), 3)] {
        let mut played = s;
        let mut full = played.fork().into_inner();
        *full.world_mut() = played.world().clone();
        let p = Match::around(&mut played, |m| playout(m, &mut Chooser::new(seed, 0), 30))
            .expect("playout");
        // The same draws, each candidate delivered as a full transaction on a copy.
        let mut chooser = Chooser::new(seed, 0);
        let mut plies = 0;
        while plies < p.plies {
            let candidates = full.candidate_list().expect("candidates");
            let mut undrawn: Vec<usize> = (0..candidates.len()).collect();
            loop {
                assert!(!undrawn.is_empty(), "no legal move at ply {plies}");
                let c = &candidates[undrawn.swap_remove(chooser.below(undrawn.len()))];
                let (tx, world) = full.try_deliver(c.recipient, (*c.message).clone());
                if tx.status.committed() {
                    *full.world_mut() = world;
                    break;
                }
            }
            plies += 1;
        }
        assert!(played.world().same_as(full.world()));
    }
}

/// The copy of the world that each thread of `perft` and `playout` plays from is the same
/// world, but shares no entity and no reference-counted property value with the one it
/// was copied from (so two threads never count references to the same list), and play
/// from it gives the same counts.
#[test]
fn a_private_copy_of_the_world_is_the_same_world_sharing_nothing() {
    let mut s = Session::start(game("games/chess"), &SessionOptions::default())
        .expect("chess starts")
        .0;
    let original = s.world().clone();
    // A session's fork (what a thread plays on) has such a copy too.
    let forked = s.fork().into_inner().world().clone();
    for copy in [original.private_copy(), forked] {
        assert_eq!(copy.entities.len(), original.entities.len());
        let mut lists = 0;
        for i in 0..original.entities.len() {
            let id = EntityId(i as u32);
            let (a, b) = (original.entity(id), copy.entity(id));
            let (Some(a), Some(b)) = (a, b) else {
                assert!(
                    a.is_none() && b.is_none(),
                    "entity {i} is in one world only"
                );
                continue;
            };
            assert!(!std::ptr::eq(a, b), "entity {i} is shared");
            assert_eq!((a.name, a.ty, a.state), (b.name, b.ty, b.state));
            assert_eq!(a.props.len(), b.props.len());
            for (x, y) in a.props.iter().zip(b.props.iter()) {
                assert!(x == y, "a property of {} differs", a.name.as_str());
                match (x, y) {
                    (Value::List(x), Value::List(y)) => {
                        lists += 1;
                        assert!(
                            !std::rc::Rc::ptr_eq(x, y),
                            "a list of {} is shared",
                            a.name.as_str()
                        );
                    }
                    (Value::Dict(x), Value::Dict(y)) => {
                        assert!(
                            !std::rc::Rc::ptr_eq(x, y),
                            "a dictionary of {} is shared",
                            a.name.as_str()
                        )
                    }
                    _ => {}
                }
            }
        }
        assert!(
            lists > 64,
            "chess's squares keep their lists of squares ({lists} seen)"
        );
    }
    let before = Match::around(&mut s, |m| perft(m, 2)).counts;
    *s.world_mut() = original.private_copy();
    assert_eq!(Match::around(&mut s, |m| perft(m, 2)).counts, before);
}

/// A list `#actions` gives is checked once while it stays the same list, and a list
/// made from it (an item appended that is not a candidate) is checked again: the error
/// comes back, then the candidates when the list is good again.
#[test]
fn the_candidates_list_is_checked_whenever_it_is_a_new_list() {
    let mut fs = MemoryFs::new();
    fs.insert(
        "game.fr",
        r#"#entity g
  #property acts (list)
  #state default
    #onMessage ping (print "ping")
    #onMessage spoil (update property "acts" to (append (property "acts") 5))
    #onMessage mend (update property "acts" to (list (list "g" (new message "ping"))))
#instance g of g
#setup (update property "acts" of "g" to (list (list "g" (new message "ping"))))
#actions (property "acts" of "g")
"#
        .to_string(),
    );
    let built =
        build_game_with_rules(&fs, std::path::Path::new("game.fr"), &[]).expect("the game builds");
    let mut s = Session::start(built.game, &SessionOptions::default())
        .expect("starts")
        .0;
    let send = |s: &mut Session, text: &str| {
        let (to, msg) = flexrules::runtime::outside::parse_send(text).expect("a send");
        assert!(matches!(s.deliver(to, msg).status, Status::Committed(_)));
    };
    for _ in 0..3 {
        assert_eq!(s.candidates().expect("good candidates").len(), 1);
        send(&mut s, "spoil to g");
        let e = s.candidates().expect_err("an item that is not a candidate");
        assert!(
            e.message.contains("an action is integer 5"),
            "{}",
            e.message
        );
        assert_eq!(s.candidates().expect_err("still").message, e.message);
        send(&mut s, "mend to g");
    }
}
