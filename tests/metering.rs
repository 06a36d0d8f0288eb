//! Long strings are counted by the bytes compared: every builtin and instruction that
//! compares, orders or looks for strings and keys counts one step per 64 bytes of the
//! start two strings have in common (and a dictionary search with a long key made at run
//! time, one per 64 bytes of it for each key it may be compared with). Each case repeats
//! one operation on two distinct, equal strings of 1 MiB: under a budget the operation
//! would fit in at one step, the transaction fails with the step limit (the world as it
//! was); under the default budget it commits, having counted at least the bytes compared,
//! the fused code exactly as the plain code.

use std::path::Path;

use flexrules::compile::build_game;
use flexrules::compile::bytecode::builtin_of;
use flexrules::compile::program::Game;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::vm::Limits;
use flexrules::syntax::load::MemoryFs;

/// How many times each operation is repeated.
const REPS: u64 = 40;
/// Bytes of the strings compared (16 doubled 16 times).
const LEN: u64 = 1 << 20;
/// Steps per comparison of the two strings, at one per 64 bytes.
const PER_COMPARE: u64 = LEN / 64;

/// The game whose `go` makes `a` and `b` (distinct strings of the same text of
/// [`LEN`] + 1 bytes), a dictionary `d` with the key `a`, then runs `op` `reps` times.
fn game(op: &str, reps: u64) -> String {
    format!(
        "#entity node
  #state default
    #onMessage go
      (var s \"0123456789abcdef\")
      (foreach i in (range 16) (var s (str s s)))
      (var a (str s \"!\"))
      (var b (str s \"!\"))
      (var d (dict a 1))
      (var n 0)
      (foreach i in (range {reps}) (var n {op}))
      nil
#instance e0 of node
"
    )
}

/// `game` without its fused instructions (each put back to the first plain instruction
/// of its sequence).
fn unfused(game: &Game) -> Game {
    let mut plain = game.clone();
    for code in &mut plain.codes {
        for op in &mut code.ops {
            *op = op.plain(builtin_of);
        }
    }
    plain
}

/// How `go` to `e0` of `text` ends under `max_steps`, fused or plain: its status and
/// its steps.
fn run(text: &str, max_steps: u64, plain: bool) -> (Status, u64) {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
    let game = if plain {
        std::sync::Arc::new(unfused(&built.game))
    } else {
        built.game
    };
    let options = SessionOptions {
        seed: 0,
        params: vec![],
        limits: Limits {
            max_steps,
            ..Limits::default()
        },
        trace: false,
    };
    let (mut s, _) = Session::start(game, &options).expect("starts");
    let (to, msg) = parse_send("go to e0").expect("a send");
    let tx = s.deliver(to, msg);
    (tx.status, tx.steps)
}

/// `op` repeated [`REPS`] times counts at least `compares` comparisons of the long
/// strings each time, fused as plain; a budget of 100 steps per repetition on top of the
/// setup is not enough.
fn counted(op: &str, compares: u64) {
    let default = Limits::default().max_steps;
    let (status, setup) = run(&game(op, 0), default, false);
    assert!(matches!(status, Status::Committed(_)), "{op}: {status:?}");
    let (status, steps) = run(&game(op, REPS), default, false);
    assert!(matches!(status, Status::Committed(_)), "{op}: {status:?}");
    assert!(
        steps - setup >= REPS * compares * PER_COMPARE,
        "{op}: {} steps for {REPS} repetitions",
        steps - setup
    );
    assert_eq!(
        run(&game(op, REPS), default, true),
        (status, steps),
        "{op}: plain"
    );
    let small = setup + REPS * 100;
    for plain in [false, true] {
        let (status, _) = run(&game(op, REPS), small, plain);
        match status {
            Status::Failed(e) => assert!(
                e.message.starts_with("step limit reached"),
                "{op}: {}",
                e.message
            ),
            other => panic!("{op} under {small} steps: {other:?}"),
        }
    }
}

#[test]
fn equality_counts_the_bytes_compared() {
    for op in [
        "(= a b)",
        "(!= a b)",
        "(if (= a b) 1 else 0)",
        "(if (!= a b) 1 else 0)",
    ] {
        counted(op, 1);
    }
}

#[test]
fn order_counts_the_bytes_compared() {
    for op in [
        "(< a b)",
        "(> a b)",
        "(<= a b)",
        "(>= a b)",
        "(min a b)",
        "(max (list a b))",
        "(sort (list a b))",
    ] {
        counted(op, 1);
    }
}

#[test]
fn looking_for_a_string_in_a_list_counts_the_bytes_compared() {
    for op in [
        "(contains (list 1 a) b)",
        "(index-of (list a) b)",
        "(remove (list a) b)",
    ] {
        counted(op, 1);
    }
}

#[test]
fn strings_and_keys_inside_collections_count_the_bytes_compared() {
    for op in [
        "(= (list 1 a) (list 1 b))",
        "(= (list (list a)) (list (list b)))",
        // The keys of the dictionaries compared, and the key of each dictionary made.
        "(= (dict a 1) (dict b 1))",
    ] {
        counted(op, 1);
    }
}

#[test]
fn dictionary_reads_and_writes_with_long_keys_count_the_key() {
    for op in [
        "(get d b)",
        "(get d b 0)",
        "(put d b 2)",
        "(has d b)",
        "(contains d b)",
        "(remove-key d b)",
        "(dict b 1)",
    ] {
        counted(op, 1);
    }
}

/// A string compared with a long literal of the same length (`StrCmp` and its jumps in
/// the fused code): the bytes up to the difference are counted, fused as plain, under
/// every budget around the end.
#[test]
fn comparing_with_a_long_literal_counts_the_bytes_compared() {
    let literal = "x".repeat(4096);
    let text = |reps: u64| {
        format!(
            "#entity node
  #state default
    #onMessage go
      (var s \"{}\")
      (var c (str s \"y\"))
      (var n 0)
      (foreach i in (range {reps}) (do (var n (= c \"{literal}\")) (if (= c \"{literal}\") (var n 1)) end))
      nil
#instance e0 of node
",
            &literal[1..]
        )
    };
    let default = Limits::default().max_steps;
    let (_, setup) = run(&text(0), default, false);
    let (status, steps) = run(&text(100), default, false);
    assert!(matches!(status, Status::Committed(_)), "{status:?}");
    assert!(steps - setup >= 100 * 2 * (4095 / 64), "{}", steps - setup);
    for max_steps in steps - 200..=steps + 1 {
        assert_eq!(
            run(&text(100), max_steps, false),
            run(&text(100), max_steps, true),
            "{max_steps} steps"
        );
    }
}

/// Short strings cost what they always cost: the steps of a program comparing strings
/// of 63 bytes do not depend on whether they are equal.
#[test]
fn short_strings_are_compared_within_the_step() {
    let text = |tail: &str| {
        format!(
            "#entity node
  #state default
    #onMessage go
      (var s \"{}\")
      (var a (str s \"a\"))
      (var b (str s \"{tail}\"))
      (var d (dict a 1))
      (var n (list (= a b) (< a b) (sort (list a b)) (contains (list a) b) (get d b) (has d b)))
      nil
#instance e0 of node
",
            "z".repeat(62)
        )
    };
    let default = Limits::default().max_steps;
    let (equal, steps) = run(&text("a"), default, false);
    let (unequal, other) = run(&text("b"), default, false);
    assert!(matches!(equal, Status::Committed(_)) && matches!(unequal, Status::Committed(_)));
    assert_eq!(steps, other);
}

/// A string made at run time becomes a name (here an entity's) only up to 1024 bytes:
/// interning hashes and keeps it for the life of the process. A longer one is refused
/// with a clear error, before it is hashed; one of 1024 bytes is still a name.
#[test]
fn long_names_made_at_run_time_are_refused() {
    let text = |len: usize| {
        format!(
            "#entity node
  #state default
    #onMessage go
      (var s (str \"{}\" \"!\"))
      (new entity s of \"node\")
      nil
#instance e0 of node
",
            "n".repeat(len - 1)
        )
    };
    let default = Limits::default().max_steps;
    let (status, _) = run(&text(1024), default, false);
    assert!(matches!(status, Status::Committed(_)), "{status:?}");
    match run(&text(5000), default, false).0 {
        Status::Failed(e) => {
            assert_eq!(
                e.message,
                "an entity name made at run time may have at most 1024 bytes, got 5000 bytes"
            );
            assert!(e.hint.is_some_and(|h| h.contains("shorter")));
        }
        other => panic!("{other:?}"),
    }
}
