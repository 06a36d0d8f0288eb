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
        code.rewrite_ops(|op| *op = op.plain(builtin_of))
            .expect("the plain sequences verify");
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
        tier: Default::default(),
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

/// The game whose `go` makes `a`, a string of 8 MiB + 1 bytes made at run time, then
/// runs `op`.
fn long_name_game(op: &str) -> String {
    format!(
        "#entity node
  #property x 0
  #state default
    #onMessage go
      (var s \"0123456789abcdef\")
      (foreach i in (range 19) (var s (str s s)))
      (var a (str s \"!\"))
      {op}
      nil
#instance e0 of node
"
    )
}

#[test]
fn entity_names_made_at_run_time_count_their_lookup() {
    let default = Limits::default().max_steps;
    let (status, setup) = run(&long_name_game("nil"), default, false);
    assert!(matches!(status, Status::Committed(_)), "{status:?}");
    let hashed = ((8 << 20) + 1) / 64;
    for op in [
        "(send new message \"x\" to a)",
        "(send (new message \"x\") to a)",
        "(property \"x\" of a)",
        "(var n (property \"x\" of a))",
        "(update property \"x\" of a to 1)",
        "(state of a)",
        "(type of a)",
        "(delete entity a)",
    ] {
        for plain in [false, true] {
            let (status, steps) = run(&long_name_game(op), default, plain);
            match status {
                Status::Failed(e) => assert!(
                    e.message.starts_with("no entity named \"0123456789abcdef"),
                    "{op}: {}",
                    e.message.get(..80).unwrap_or(&e.message)
                ),
                other => panic!("{op}: {other:?}"),
            }
            // The setup's trailing `nil`s are not run: a few steps less.
            assert!(steps + 4 >= setup + hashed, "{op}: {} steps", steps - setup);
            let (status, _) = run(&long_name_game(op), setup + 100, plain);
            match status {
                Status::Failed(e) => assert!(
                    e.message.starts_with("step limit reached"),
                    "{op}: {}",
                    e.message.get(..80).unwrap_or(&e.message)
                ),
                other => panic!("{op} under {} steps: {other:?}", setup + 100),
            }
        }
    }
}

/// How `go` to `e0` of a game whose `go` runs `op` ends, `s` being a string of `len`
/// bytes made at run time.
fn with_made_string(op: &str, len: usize) -> Status {
    let text = format!(
        "#entity node
  #state default
    #onMessage go
      (var s (str \"{}\" \"!\"))
      {op}
      nil
#instance e0 of node
",
        "n".repeat(len - 1)
    );
    run(&text, Limits::default().max_steps, false).0
}

#[test]
fn property_names_made_at_run_time_for_a_new_entity_are_bounded() {
    let op = "(new entity \"e1\" of \"node\" with s 1)";
    let status = with_made_string(op, 1024);
    assert!(matches!(status, Status::Committed(_)), "{status:?}");
    match with_made_string(op, 5000) {
        Status::Failed(e) => {
            assert_eq!(
                e.message,
                "a property name made at run time may have at most 1024 bytes, got 5000 bytes"
            );
            assert!(
                e.hint
                    .is_some_and(|h| h.contains("kept for the life of the game"))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn graphic_ids_made_at_run_time_are_bounded() {
    use flexrules::repl::{Repl, ReplOptions};
    let game = |len: usize| {
        format!(
            "#entity node
  #property n 0
  #state default
    #onMessage go
      (update property \"n\" to 1)
#instance e0 of node
#representation node
  #state default
    #onMessage init
      (observe \"n\" notify \"changed\")
    #onMessage changed
      (new graphic (str \"{}\" \"!\") with \"shape\" \"circle\")
",
            "g".repeat(len - 1)
        )
    };
    let say = |len: usize| {
        let dir = std::env::temp_dir().join(format!(
            "flexrules-names-{}-graphic-{len}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temporary directory");
        std::fs::write(dir.join("game.fr"), game(len)).expect("game written");
        let mut r = Repl::new(ReplOptions {
            tier: Default::default(),
            game: dir.clone(),
            seed: 0,
            params: Vec::new(),
            limits: Limits::default(),
            rules: Vec::new(),
            color: false,
        })
        .unwrap_or_else(|e| panic!("the game opens: {}", e.text));
        let out = r.handle("send go to e0").text;
        let drawn = r.canvas().graphics.len();
        let _ = std::fs::remove_dir_all(&dir);
        (out, drawn)
    };
    let (out, drawn) = say(1024);
    assert!(out.ends_with("committed"), "{out}");
    assert_eq!(drawn, 1);
    let (out, drawn) = say(5000);
    assert!(
        out.contains("a graphic id made at run time may have at most 1024 bytes, got 5000 bytes"),
        "{out}"
    );
    assert!(
        out.contains("names are kept for the life of the game"),
        "{out}"
    );
    assert_eq!(drawn, 0);
}

#[test]
fn names_typed_are_bounded_unless_they_are_the_game_s() {
    let long = "m".repeat(2000);
    assert_eq!(
        parse_send(&format!("{long} to e0")).unwrap_err(),
        "a message label typed may have at most 1024 bytes, got 2000 bytes (no name of the \
         game is that long; names are kept for the life of the game)"
    );
    assert_eq!(
        parse_send(&format!("go to \"{long}\"")).unwrap_err(),
        "an entity name typed may have at most 1024 bytes, got 2000 bytes (no name of the \
         game is that long; names are kept for the life of the game)"
    );
    let short = "m".repeat(1024);
    let (to, m) = parse_send(&format!("{short} to {short}")).expect("a send");
    assert_eq!((to.as_str(), m.label.as_str()), (&*short, &*short));
    // A name of the game's is found whatever its length.
    let game_name = flexrules::symbol::Symbol::intern(&"q".repeat(3000));
    let (to, _) = parse_send(&format!("go to {game_name}")).expect("a send");
    assert_eq!(to, game_name);
}
