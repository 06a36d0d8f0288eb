//! The small loop (`docs/machine.md`, "The small loop") against the main loop: a game whose
//! small functions' calls are `CallSmall` and the same game with every one made a plain
//! `Call` give the same transaction (status, error and its place, steps, output) at every
//! step limit from one step to past the end, and at every depth limit, so that the small
//! loop hands over at each instruction where a check can fall.

use std::path::Path;
use std::sync::Arc;

use flexrules::compile::build_game;
use flexrules::compile::bytecode::Op;
use flexrules::compile::program::Game;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::{Status, Transaction};
use flexrules::runtime::vm::{Limits, Tier};
use flexrules::syntax::load::MemoryFs;

const GAME: &str = r#"
#define fib (n) (if (< n 2) n else (+ (fib (- n 1)) (fib (- n 2))))
#define mix (x y) (if (and (> x y) (not (= y 0))) (- (* x 2) y) else (+ x (% y 7)))
#define either (x y) (or (< x 0) (> y 3) (= x y) (mix y x))
#define count-to (n)
  (do
    (var i 0)
    (var s 0)
    (while (< i n) (do (var s (+ s i)) (var i (+ i 1)) end))
    s
  end)
#define double-up (x n) (if (<= n 0) x else (double-up (* x 2) (- n 1)))
#entity box
  #state default
    #onMessage go
      (print (fib 7) (count-to 12) (either 2 1) (either 1 1) (fib 2.5))
      (print (double-up 3 5) (count-to (fib 4)))
    #onMessage overflow
      (print (double-up 1 70))
    #onMessage long
      (print (count-to 40000) (fib 18))
#instance b of box
"#;

/// The game as compiled, and the same with its `CallSmall`s made plain calls.
fn games() -> (Arc<Game>, Arc<Game>) {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", GAME.to_string());
    let built = build_game(&fs, Path::new("game.fr")).unwrap_or_else(|e| panic!("{e:?}"));
    let small = built.game;
    let calls = |g: &Game| {
        g.codes
            .iter()
            .flat_map(|c| c.ops())
            .filter(|op| matches!(op, Op::CallSmall(..)))
            .count()
    };
    assert!(
        calls(&small) >= 6,
        "the small functions' calls are CallSmall"
    );
    let mut plain = Game::clone(&small);
    for code in &mut plain.codes {
        code.rewrite_ops(|op| {
            if let Op::CallSmall(callee, argc) = *op {
                *op = Op::Call(callee, argc);
            }
        })
        .expect("plain calls verify");
    }
    assert_eq!(calls(&plain), 0);
    (small, Arc::new(plain))
}

fn deliver(game: &Arc<Game>, send: &str, limits: Limits) -> Transaction {
    let options = SessionOptions {
        seed: 1,
        params: vec![],
        limits,
        trace: false,
        tier: Tier::Interpreter,
    };
    let (mut session, _) = Session::start(game.clone(), &options)
        .map_err(|e| e.to_string())
        .unwrap();
    let (to, msg) = parse_send(send).unwrap();
    session.deliver(to, msg)
}

fn same(small: &Arc<Game>, plain: &Arc<Game>, send: &str, limits: Limits) -> Transaction {
    let a = deliver(small, send, limits);
    let b = deliver(plain, send, limits);
    let what = format!(
        "{send}, {} steps, depth {}",
        limits.max_steps, limits.max_depth
    );
    assert_eq!(a.status, b.status, "{what}");
    assert_eq!(a.steps, b.steps, "{what}");
    assert_eq!(a.output, b.output, "{what}");
    a
}

#[test]
fn the_small_loop_stops_where_the_main_loop_stops_at_every_step_limit() {
    let (small, plain) = games();
    let whole = same(&small, &plain, "go to b", Limits::default());
    assert!(
        matches!(whole.status, Status::Committed(_)),
        "{:?}",
        whole.status
    );
    assert_eq!(whole.output.len(), 2);
    let mut stopped = 0;
    for max_steps in 1..=whole.steps + 2 {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let tx = same(&small, &plain, "go to b", limits);
        if let Status::Failed(e) = &tx.status {
            assert!(e.message.contains("step limit"), "{}", e.message);
            stopped += 1;
        }
    }
    assert_eq!(
        stopped,
        whole.steps - 1,
        "every limit short of the end stops the transaction"
    );
}

#[test]
fn the_small_loop_stops_where_the_main_loop_stops_at_every_depth_limit() {
    let (small, plain) = games();
    for max_depth in 1..=12 {
        let limits = Limits {
            max_depth,
            ..Limits::default()
        };
        same(&small, &plain, "go to b", limits);
        same(&small, &plain, "overflow to b", limits);
    }
    let tx = same(&small, &plain, "overflow to b", Limits::default());
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(e.message.contains("overflow"), "{}", e.message);
}

/// A run past the checks made every 65,536 steps (for an interrupt), which the small loop
/// makes ahead of time and goes on, and a step limit beyond them: where the main loop
/// stops, to the step.
#[test]
fn the_small_loop_goes_past_the_checks_for_an_interrupt_and_stops_at_the_limit() {
    let (small, plain) = games();
    let whole = same(&small, &plain, "long to b", Limits::default());
    assert!(
        matches!(whole.status, Status::Committed(_)),
        "{:?}",
        whole.status
    );
    assert!(whole.steps > 5 * 65_536, "{}", whole.steps);
    for max_steps in [
        65_535,
        65_536,
        65_537,
        131_071,
        131_072,
        200_003,
        whole.steps - 1,
        whole.steps,
    ] {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let tx = same(&small, &plain, "long to b", limits);
        assert_eq!(
            matches!(tx.status, Status::Failed(_)),
            max_steps < whole.steps,
            "{max_steps}"
        );
    }
}
