//! The fast tier against the interpreter (`docs/machine.md`, "How it is checked"): every
//! bundled game, its variants and chess perft give the same results on either tier, and
//! under `--tier both` (each transaction the fast tier took part in run again on the
//! interpreter, the two compared on status, world, steps, memory and output); a body the
//! fast tier runs counts the same steps; and when it gives up (an error, a limit), the
//! transaction is run again on the interpreter, which reports the error at its place.
//!
//! The generated programs of `tests/hostile_programs.rs` run on both tiers too: its
//! untraced sessions use the fast tier, its traced ones the interpreter.

#[path = "common/jochess.rs"]
mod jochess;

use std::path::Path;
use std::process::Command;

use flexrules::compile::build_game;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::{Status, Transaction};
use flexrules::runtime::vm::{Limits, Tier, tier_counts};
use flexrules::syntax::load::MemoryFs;

fn flexrules(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run flexrules")
}

/// The run's standard output, which must have succeeded.
fn ok(args: &[&str]) -> String {
    let out = flexrules(args);
    assert!(
        out.status.success(),
        "flexrules {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A playout summary without its times.
fn summary(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("a JSON summary");
    if let Some(o) = v.as_object_mut() {
        o.remove("seconds");
        o.remove("playouts_per_second");
    }
    v
}

/// `games` fixed-seed playouts of `game` (with `extra` options) on each tier: the same
/// summary and the same games, move by move, and no difference under `both`.
fn same_playouts(game: &str, games: &str, extra: &[&str]) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("flexrules-tiers-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut results = Vec::new();
    for tier in ["interpreter", "fast", "both"] {
        let record = dir.join(format!("{tier}.txt"));
        let record = record.to_str().unwrap();
        let mut args = vec![
            "playout", game, "--games", games, "--jobs", "1", "--seed", "11", "--json", "--tier",
            tier, "--record", record,
        ];
        args.extend_from_slice(extra);
        let json = ok(&args);
        results.push((summary(&json), std::fs::read_to_string(record).unwrap()));
    }
    let _ = std::fs::remove_dir_all(&dir);
    for (tier, r) in ["fast", "both"].iter().zip(&results[1..]) {
        assert_eq!(r.0, results[0].0, "{game} {extra:?}: {tier} summary");
        assert!(r.1 == results[0].1, "{game} {extra:?}: {tier} games differ");
    }
}

#[test]
fn every_bundled_game_plays_the_same_on_every_tier() {
    for (game, games, extra) in [
        ("games/awele", "20", &[][..]),
        ("games/mini-awele", "20", &[]),
        ("games/chess", "3", &[]),
        ("games/go", "2", &["--param", "size=9"]),
        ("games/goofspiel", "20", &[]),
        ("games/bridge", "3", &[]),
        ("games/archipelago", "2", &[]),
    ] {
        same_playouts(game, games, extra);
    }
    for stem in ["2PlayerBoard", "3PlayerBoard", "3PlayerBoard_II"] {
        let board = format!("board={}", jochess::board_file(stem).display());
        same_playouts("games/jochess", "2", &["--param", &board]);
    }
}

#[test]
fn chess_variants_and_house_rules_play_the_same_on_every_tier() {
    for rules in std::fs::read_dir("games/chess/variants").unwrap() {
        let path = rules.unwrap().path();
        same_playouts("games/chess", "2", &["--rules", path.to_str().unwrap()]);
    }
    for dir in [
        "games/awele/laws",
        "games/awele/side-effects",
        "games/awele/variants",
    ] {
        for rules in std::fs::read_dir(dir).unwrap() {
            let path = rules.unwrap().path();
            if path.extension().is_some_and(|e| e == "fr") {
                same_playouts("games/awele", "5", &["--rules", path.to_str().unwrap()]);
            }
        }
    }
}

#[test]
fn chess_perft_counts_the_same_on_every_tier() {
    let counts: Vec<String> = ["interpreter", "fast", "both"]
        .iter()
        .map(|tier| ok(&["perft", "games/chess", "3", "--jobs", "1", "--tier", tier]))
        .map(|out| {
            out.lines()
                .filter(|l| !l.contains("second") && !l.contains("/s"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    assert!(counts[0].contains("8902"), "{}", counts[0]);
    assert_eq!(counts[1], counts[0]);
    assert_eq!(counts[2], counts[0]);
}

#[test]
fn an_unknown_tier_is_refused() {
    let out = flexrules(&["run", "benches/machine/empty.fr", "--tier", "quick"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown tier `quick`: the tiers are interpreter, fast and both"),
        "{err}"
    );
}

/// `body` (with the definitions `defs`) run as a behaviour on `tier` with `limits`: the
/// transaction, and what the fast tier did meanwhile on this thread (bodies run,
/// transactions run again).
fn behaviour(defs: &str, body: &str, tier: Tier, limits: Limits) -> (Transaction, u64, u64) {
    let text = format!(
        "{defs}\n#entity box\n  #state default\n    #onMessage go\n{body}\n#instance b of box\n"
    );
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, Path::new("game.fr")).unwrap_or_else(|e| panic!("{e:?}"));
    let options = SessionOptions {
        seed: 1,
        params: vec![],
        limits,
        trace: false,
        tier,
    };
    let (mut session, _) = Session::start(built.game, &options)
        .map_err(|e| e.to_string())
        .unwrap();
    let (to, msg) = parse_send("go to b").unwrap();
    let before = tier_counts();
    let tx = session.deliver(to, msg);
    let after = tier_counts();
    (
        tx,
        after.bodies - before.bodies,
        after.replays - before.replays,
    )
}

/// [`behaviour`] on the interpreter and on the fast tier: the same transaction.
fn same(defs: &str, body: &str, limits: Limits) -> (Transaction, u64, u64) {
    let (slow, bodies, _) = behaviour(defs, body, Tier::Interpreter, limits);
    assert_eq!(bodies, 0, "the interpreter ran a body fast");
    let (fast, bodies, replays) = behaviour(defs, body, Tier::Fast, limits);
    assert_eq!(fast.status, slow.status, "{body}");
    assert_eq!(fast.steps, slow.steps, "{body}");
    assert_eq!(fast.output, slow.output, "{body}");
    // Under `both` a difference would panic.
    behaviour(defs, body, Tier::Both, limits);
    (fast, bodies, replays)
}

const FIB: &str = "#define fib (n) (if (< n 2) n else (+ (fib (- n 1)) (fib (- n 2))))\n";

#[test]
fn a_function_runs_on_the_fast_tier_with_the_same_steps() {
    let (tx, bodies, replays) = same(FIB, "(print (fib 15))", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)));
    assert_eq!(format!("{:?}", tx.output), "[Print(\"610\")]");
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
}

#[test]
fn loops_switches_and_collections_count_the_same_steps() {
    let defs = r#"
#define classify (x) (switch (% x 3) (case 0 "fizz") (case 1 (do (var y (* x 2)) y end)) (default nil))
#define total (l) (do (var s 0) (foreach v in l (if (and v (!= v 4)) (var s (+ s v)))) s end)
"#;
    let body = r#"
  (var d (dict))
  (var i 0)
  (var l (list))
  (while (< i 30)
    (do
      (var d (put d (% i 7) (+ (get d (% i 7) 0) 1)))
      (var k (% i 5))
      (var d (put d k (+ (get d k 0) 1)))
      (var l (append l (classify i)))
      (var i (+ i 1))
    end))
  (foreach k in d (print k (get d k)))
  (print (total (list 1 2 3 4 nil 5)) (or nil false 7) (and 1 nil) l)
  (return (length l))
"#;
    let (tx, bodies, replays) = same(defs, body, Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert!(bodies >= 1);
    assert_eq!(replays, 0);
}

#[test]
fn an_error_in_fast_code_is_reported_by_the_interpreter_at_its_place() {
    let defs = format!("{FIB}#define bad (n) (if (< n 1) (first n) else (bad (- n 1)))");
    let (tx, bodies, replays) = same(&defs, "(print (fib 10)) (bad 5)", Limits::default());
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(
        e.message.contains("`first` expects a list"),
        "{}",
        e.message
    );
    assert!(e.span.is_some());
    assert!(bodies >= 1);
    assert_eq!(replays, 1, "the transaction ran again on the interpreter");
    // The output of the run given up on is not kept twice.
    assert_eq!(tx.output.len(), 1);
}

#[test]
fn a_step_limit_reached_in_fast_code_stops_where_the_interpreter_stops() {
    let limits = Limits {
        max_steps: 100_000,
        ..Limits::default()
    };
    let (tx, _, replays) = same("", "(var i 0) (while true (var i (+ i 1)))", limits);
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(e.message.contains("step limit"), "{}", e.message);
    assert_eq!(tx.steps, 100_001);
    assert_eq!(replays, 1);
}

#[test]
fn recursion_deeper_than_the_fast_tier_nests_runs_on_the_interpreter() {
    let defs = "#define down (n) (if (= n 0) 0 else (+ 1 (down (- n 1))))";
    let (tx, _, replays) = same(defs, "(print (down 5000))", Limits::default());
    assert_eq!(format!("{:?}", tx.output), "[Print(\"5000\")]");
    assert_eq!(replays, 1);
    // And the depth limit is the interpreter's.
    let limits = Limits {
        max_depth: 50,
        ..Limits::default()
    };
    let (tx, _, _) = same(defs, "(print (down 5000))", limits);
    assert!(matches!(tx.status, Status::Failed(_)));
}
