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
use std::sync::Arc;

use flexrules::compile::build_game;
use flexrules::compile::codegen::compile_body;
use flexrules::compile::program::Game;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::{Status, Transaction};
use flexrules::runtime::value::Value;
use flexrules::runtime::vm::{Limits, Tier, tier_counts};
use flexrules::source::SourceMap;
use flexrules::symbol::Symbol;
use flexrules::syntax::load::{MemoryFs, parse_text_statements};

fn flexrules(args: &[&str]) -> std::process::Output {
    flexrules_with(args, &[])
}

/// How often a body runs before it is compiled to machine code in these tests: when it
/// first runs, so that their short runs run machine code, unless `FLEXRULES_JIT_AFTER`
/// says otherwise (`tools/jit-test` warms bodies up on the interpreter too). Set for
/// the sessions made here and given to every process started.
fn jit_after() -> String {
    let after = std::env::var("FLEXRULES_JIT_AFTER").unwrap_or_else(|_| "0".into());
    #[cfg(feature = "jit")]
    flexrules::runtime::vm::compile_after(after.parse().expect("FLEXRULES_JIT_AFTER"));
    after
}

/// [`flexrules`] with variables `env` set in its environment.
fn flexrules_with(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(args)
        .env("FLEXRULES_JIT_AFTER", jit_after())
        .envs(env.iter().copied())
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

/// With the `hand-chains` feature (`src/runtime/vm/hand_chains.rs`), the chains
/// compiled by hand take their bodies' places on the fast tier (their bytecode is the
/// one they were written against) and play as the interpreter does: every variant of
/// Go and Awele, and each chain alone on the fast tier. (Without the feature the tests
/// above check the closures in their places.)
#[cfg(feature = "hand-chains")]
#[test]
fn the_chains_compiled_by_hand_play_as_the_interpreter_does() {
    for (game, body, extra) in [
        (
            "games/go",
            "withStone/hasLiberty,checkingLiberties/release",
            &["--param", "size=9"][..],
        ),
        ("games/awele", "hole/default/seed", &[]),
    ] {
        let mut args = vec![
            "playout", game, "--games", "30", "--jobs", "1", "--tier", "both",
        ];
        args.extend_from_slice(extra);
        let out = flexrules(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{game}: {stderr}");
        assert!(!stderr.contains("hand-chains"), "{game}: {stderr}");
        let alone = flexrules_with(&args, &[("FLEXRULES_FAST_ONLY", body)]);
        assert!(
            alone.status.success(),
            "{game} alone: {}",
            String::from_utf8_lossy(&alone.stderr)
        );
        let variants = Path::new(game).join("variants");
        for rules in std::fs::read_dir(variants).unwrap() {
            let path = rules.unwrap().path();
            if path.extension().is_some_and(|e| e == "fr") {
                same_playouts(
                    game,
                    "3",
                    &[&["--rules", path.to_str().unwrap()], extra].concat(),
                );
            }
        }
    }
}

/// With the `jit` feature (`src/runtime/vm/jit/`), every body of every bundled game is
/// compiled to machine code from its bytecode, and the compiled bodies play as the
/// interpreter does under `both` (every transaction run again on the interpreter and
/// compared): fixed-seed playouts of each game and of each variant of Go and Awele, and
/// chess's perft, whose counts are known. (The other tests of this file, run with the
/// feature, check the compiled bodies too.)
#[cfg(feature = "jit")]
#[test]
fn every_bundled_game_compiles_to_machine_code_and_plays_as_the_interpreter_does() {
    // Each body compiled the first time it runs, and each compile reported.
    let env = [("FLEXRULES_JIT", "report"), ("FLEXRULES_JIT_AFTER", "0")];
    let both = |game: &str, extra: &[&str]| {
        let mut args = vec![
            "playout", game, "--games", "4", "--jobs", "1", "--tier", "both", "--seed", "7",
        ];
        args.extend_from_slice(extra);
        let out = flexrules_with(&args, &env);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{game} {extra:?}: {stderr}");
        assert!(stderr.contains("jit: compiled "), "{game}: {stderr}");
        assert!(!stderr.contains("not compiled"), "{game}: {stderr}");
        assert!(
            !stderr.contains("could not be made ready"),
            "{game}: {stderr}"
        );
        stderr
    };
    let mut direct = 0;
    for (game, extra) in [
        ("games/awele", &[][..]),
        ("games/mini-awele", &[]),
        ("games/go", &["--param", "size=9"]),
        ("games/chess", &["--max-plies", "120"]),
        ("games/goofspiel", &[]),
        ("games/archipelago", &[]),
        ("games/bridge", &[]),
    ] {
        let stderr = both(game, extra);
        direct += stderr.matches(", direct form").count();
        if game == "games/awele" {
            // Sends were run as calls of the direct forms of whole chains (laws,
            // behaviours, side-effects), and so were the moves themselves: the
            // outermost join point's chain, whose last law opens a checkpoint.
            for body in [
                "law Skip The Origin House",
                "behaviour hole/default/seed",
                "side-effect Last Seed",
                "law Open Check-point",
                "behaviour hole/default/startSeeding",
                "side-effect End Of Turn",
            ] {
                assert!(
                    stderr.contains(&format!("jit: compiled {body}, direct form")),
                    "{body}: {stderr}"
                );
            }
        }
    }
    assert!(direct > 10, "{direct} direct forms");
    for game in ["games/go", "games/awele"] {
        let extra: &[&str] = if game == "games/go" {
            &["--param", "size=9"]
        } else {
            &[]
        };
        for rules in std::fs::read_dir(Path::new(game).join("variants")).unwrap() {
            let path = rules.unwrap().path();
            if path.extension().is_some_and(|e| e == "fr") {
                both(
                    game,
                    &[&["--rules", path.to_str().unwrap()], extra].concat(),
                );
            }
        }
    }
    // Machine code off: the closures run, and say nothing.
    let off = flexrules_with(
        &["playout", "games/awele", "--games", "2", "--tier", "both"],
        &[("FLEXRULES_JIT", "off")],
    );
    assert!(off.status.success());
    assert!(!String::from_utf8_lossy(&off.stderr).contains("jit:"));
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

/// With the usual warm-up, a body that runs in a chain run directly is compiled in that
/// form only: its runs at its join point, while its chain could not yet run directly,
/// count towards it, and the bodies of a chain are compiled together once one is due
/// (chess's `endOfTurn`, sent by a side-effect that itself first runs at its join point,
/// and its side-effects, one of which does nothing).
#[cfg(feature = "jit")]
#[test]
fn a_body_run_directly_is_compiled_once() {
    let out = flexrules_with(
        &["perft", "games/chess", "4", "--jobs", "1"],
        &[("FLEXRULES_JIT", "report"), ("FLEXRULES_JIT_AFTER", "1000")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let compiled: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("jit: compiled "))
        .filter_map(|l| l.split(" at 0x").next())
        .collect();
    let direct: Vec<&str> = compiled
        .iter()
        .filter_map(|l| l.strip_suffix(", direct form,"))
        .collect();
    assert!(
        direct.contains(&"behaviour game/default/endOfTurn"),
        "{stderr}"
    );
    assert!(direct.contains(&"side-effect Variant Ending"), "{stderr}");
    for body in &direct {
        assert!(!compiled.contains(body), "{body} compiled twice: {stderr}");
    }
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

/// Game `text` sent `send` on `tier` with `limits`: the transaction, and what the fast
/// tier did meanwhile on this thread (bodies run, transactions run again).
fn transaction(text: &str, send: &str, tier: Tier, limits: Limits) -> (Transaction, u64, u64) {
    deliver(&mut session(text, tier, limits), send)
}

/// A session of the game `text` on `tier`.
fn session(text: &str, tier: Tier, limits: Limits) -> Session {
    jit_after();
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text.to_string());
    let built = build_game(&fs, Path::new("game.fr")).unwrap_or_else(|e| panic!("{e:?}"));
    let options = SessionOptions {
        seed: 1,
        params: vec![],
        limits,
        trace: false,
        tier,
    };
    Session::start(built.game, &options)
        .map_err(|e| e.to_string())
        .unwrap()
        .0
}

/// Deliver `send` in `session`: the transaction, and the bodies the fast tier ran and
/// the transactions it gave up to the interpreter meanwhile.
fn deliver(session: &mut Session, send: &str) -> (Transaction, u64, u64) {
    let (to, msg) = parse_send(send).unwrap();
    let before = tier_counts();
    let tx = session.deliver(to, msg);
    let after = tier_counts();
    (
        tx,
        after.bodies - before.bodies,
        after.replays - before.replays,
    )
}

/// Sessions of one game share the bodies built for the fast tier, and the machine code
/// compiled for them: a second session compiles nothing again, and plays as the first.
/// A copy of the game (changed, as the REPL's code or a game's late boards make one)
/// builds its own.
#[test]
fn sessions_of_one_game_share_the_fast_tier_bodies() {
    jit_after();
    let text = r#"
#entity box
  #property n 0
  #state default
    #onMessage go
      (foreach i in (list 1 2 3) (update property "n" to (+ (property "n") i)))
#instance b of box
"#;
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text.to_string());
    let game = build_game(&fs, Path::new("game.fr")).unwrap().game;
    let options = SessionOptions {
        seed: 1,
        params: vec![],
        limits: Limits::default(),
        trace: false,
        tier: Tier::Fast,
    };
    let start = |game: &Arc<Game>| Session::start(Arc::clone(game), &options).unwrap().0;
    let (mut a, mut b) = (start(&game), start(&game));
    let copy = Arc::new(Game::clone(&game));
    let mut c = start(&copy);
    let ran: Vec<String> = [&mut a, &mut b, &mut c]
        .into_iter()
        .map(|s| {
            let (tx, bodies, _) = deliver(s, "go to b");
            assert!(bodies >= 1, "the fast tier ran no body");
            format!("{:?}", tx.status)
        })
        .collect();
    assert_eq!(ran, vec!["Committed(nil)".to_string(); 3]);
    assert!(Arc::ptr_eq(a.fast_table(), b.fast_table()));
    assert!(!Arc::ptr_eq(a.fast_table(), c.fast_table()));
}

/// Sessions of a game whose board is computed at start share the game made for their
/// board (and so its fast-tier bodies) when their parameters give the same board, and
/// not otherwise.
#[test]
fn sessions_on_the_same_computed_board_share_one_game() {
    jit_after();
    let text = r#"
#param size 3
#entity cell
  #property n 0
  #state default
    #onMessage go
      (foreach i in (list 1 2 3) (update property "n" to (+ (property "n") i)))
#board (str (param "size") "x" (param "size")) of cell named go
"#;
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text.to_string());
    let game = build_game(&fs, Path::new("game.fr")).unwrap().game;
    let start = |size: i64| {
        let options = SessionOptions {
            seed: 1,
            params: vec![("size".into(), flexrules::runtime::value::Value::Int(size))],
            limits: Limits::default(),
            trace: false,
            tier: Tier::Fast,
        };
        let mut s = Session::start(Arc::clone(&game), &options).unwrap().0;
        let (tx, _, _) = deliver(&mut s, "go to a1");
        assert_eq!(format!("{:?}", tx.status), "Committed(nil)");
        s
    };
    let (a, b, c) = (start(3), start(3), start(4));
    assert!(Arc::ptr_eq(&a.game, &b.game));
    assert!(Arc::ptr_eq(a.fast_table(), b.fast_table()));
    assert!(!Arc::ptr_eq(&a.game, &c.game));
    assert_eq!(a.world().iter().count(), 9);
    assert_eq!(c.world().iter().count(), 16);
}

/// [`behaviour`] on the interpreter and on the fast tier: the same transaction.
fn same(defs: &str, body: &str, limits: Limits) -> (Transaction, u64, u64) {
    let text = format!(
        "{defs}\n#entity box\n  #state default\n    #onMessage go\n{body}\n#instance b of box\n"
    );
    same_transaction(&text, "go to b", limits)
}

/// [`transaction`] on the interpreter and on the fast tier: the same transaction.
fn same_transaction(text: &str, send: &str, limits: Limits) -> (Transaction, u64, u64) {
    let (slow, bodies, _) = transaction(text, send, Tier::Interpreter, limits);
    assert_eq!(bodies, 0, "the interpreter ran a body fast");
    let (fast, bodies, replays) = transaction(text, send, Tier::Fast, limits);
    assert_eq!(fast.status, slow.status, "{send}");
    assert_eq!(fast.steps, slow.steps, "{send}");
    assert_eq!(fast.output, slow.output, "{send}");
    // Under `both` a difference would panic.
    transaction(text, send, Tier::Both, limits);
    (fast, bodies, replays)
}

/// `sends` delivered one after another in a session of game `text` on each tier: the
/// same status, steps and output after each (and no difference under `both`). The
/// interpreter's transactions.
fn same_sends(text: &str, sends: &[&str], limits: Limits) -> Vec<Transaction> {
    let mut slow = session(text, Tier::Interpreter, limits);
    let mut fast = session(text, Tier::Fast, limits);
    let mut both = session(text, Tier::Both, limits);
    let mut seen = Vec::new();
    for &send in sends {
        let (s, _, _) = deliver(&mut slow, send);
        let (f, _, _) = deliver(&mut fast, send);
        deliver(&mut both, send);
        assert_eq!(f.status, s.status, "{send}");
        assert_eq!(f.steps, s.steps, "{send}");
        assert_eq!(f.output, s.output, "{send}");
        seen.push(s);
    }
    seen
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

/// `(contains s c)` of names and one-letter names, the letters of each name kept by the
/// fast tier (many names, letters below 64, from 64 to 127 and past ASCII, a name made
/// at run time): the same answers and steps on every tier.
#[test]
fn contains_of_names_answers_as_the_interpreter_does() {
    let body = r#"
  (var names (list "KQRBNP" "kqrbnp" "a-1 ?" "" "Zz~" "x9@" "h8" "abcdefgh12345678"
                   "n1" "n2" "n3" "n4" "n5" "n6" "n7" "n8" "n9" "n10" "n11" "n12" "n13"
                   "n14" "n15" "n16" "n17" "KQRBNP" (str "K" "Q")))
  (foreach s in names
    (foreach c in (list "K" "p" "-" " " "?" "a" "Z" "@" "9" "~" "8" "n" "1" "Q" "ab")
      (if (contains s c) (print s c))))
  (return (length names))
"#;
    let (tx, bodies, replays) = same("", body, Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    let printed = format!("{:?}", tx.output);
    for seen in [
        "\"KQRBNP K\"",
        "\"a-1 ? -\"",
        "\"Zz~ ~\"",
        "\"x9@ @\"",
        "\"KQ Q\"",
    ] {
        assert!(printed.contains(seen), "{seen} not in {printed}");
    }
    assert!(!printed.contains("\"kqrbnp K\""), "{printed}");
    assert!(bodies >= 1);
    assert_eq!(replays, 0);
}

/// `(contains "Rr" v)` of a string written in the code and a value the code computed
/// (a property, an element), as chess's laws ask it: one-letter names in and out of the
/// string, on both sides of 64, longer, made and non-ASCII strings; the same answers
/// and steps on every tier, the same error for a value `contains` cannot look for in a
/// string, and the step limit reached at the same place.
#[test]
fn letters_of_a_string_in_the_code_answer_as_the_interpreter_does() {
    let text = r#"
#entity square
  #property piece nil
  #state default
    #onMessage go
      (do
        (var items (list "R" "r" "Q" "b" "" "Rr" "rR" (str "R" "") "@" "~" "A" "é"))
        (var hits (list))
        (foreach v in items
          (do
            (update property "piece" to v)
            (if (contains "Rr" (property "piece")) (var hits (append hits v)))
            (if (contains "KQRBNP" (first (list v))) (var hits (append hits (list v))))
          end))
        (if (attribute "bad") (contains "Bb" (attribute "bad")))
        (print hits)
      end)
#instance e4 of square
"#;
    let (tx, bodies, replays) = same_transaction(text, "go to e4", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("(\"R\" (\"R\") \"r\" (\"Q\") \"\" (\"\") \"Rr\" \"R\" (\"R\"))")]"#
    );
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
    for bad in ["3", "true", "2.5"] {
        let send = format!("go to e4 with bad {bad}");
        let (tx, _, _) = same_transaction(text, &send, Limits::default());
        let Status::Failed(e) = &tx.status else {
            panic!("{:?}", tx.status)
        };
        assert!(e.message.contains("contains"), "{}", e.message);
    }
    for max_steps in 60..140 {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (tx, _, _) = same_transaction(text, "go to e4", limits);
        assert!(matches!(tx.status, Status::Failed(_)), "{:?}", tx.status);
    }
}

/// Counts added where they lie (a dictionary nobody else holds, flat or in chunks) and
/// counts into a dictionary a copy still holds: the same values, copies and steps on every
/// tier; a count that would overflow fails the same way.
#[test]
fn counts_in_place_and_the_copies_they_leave_are_the_same_on_every_tier() {
    let body = r#"
  (var d (dict))
  (var i 0)
  (while (< i 3000) (do (var k (% i 1500)) (var d (put d k (+ (get d k 0) 1))) (var i (+ i 1)) end))
  (var copy d)
  (var i 0)
  (while (< i 40) (do (var k (* i 37)) (var d (put d k (+ (get d k 0) 5))) (var i (+ i 1)) end))
  (var small (dict "a" 1 "b" 2))
  (var kept small)
  (var small (put small "a" (+ (get small "a" 0) 10)))
  (var small (put small "c" (+ (get small "c" 0) 1)))
  (print (sum (values copy)) (sum (values d)) (get copy 37) (get d 37) kept small)
"#;
    let (tx, bodies, replays) = same("", body, Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("3000 3200 2 7 {\"a\" 1, \"b\" 2} {\"a\" 11, \"b\" 2, \"c\" 1}")]"#
    );
    assert_eq!(replays, 0);
    let overflow = r#"
  (var d (dict "m" 9223372036854775806))
  (var d (put d "m" (+ (get d "m" 0) 1)))
  (var d (put d "m" (+ (get d "m" 0) 1)))
"#;
    let (tx, _, _) = same("", overflow, Limits::default());
    assert!(matches!(tx.status, Status::Failed(_)), "{:?}", tx.status);
}

/// `+`, `-` and `*` of more than two operands, done in the machine code on integers:
/// the same values and steps as the builtin's fold from the left, floats and strings
/// still the builtin's, and an overflow part-way the interpreter's error at its place;
/// `(list ...)` of more than two values made without the operand stack, its nesting and
/// memory charged as the builtin charges them.
#[test]
fn operators_of_many_operands_and_lists_of_many_values_are_the_same_on_every_tier() {
    let defs = r#"
#define sums (a b c) (list (+ a b c 1) (- a b c 1) (* a b c 2) (+ a b c (d-half)))
#define d-half () 2
"#;
    let body = r#"
  (var i 0)
  (var l (list))
  (while (< i 40)
    (do
      (var l (append l (sums i (- 3 i) (* i i))))
      (var i (+ i 1))
    end))
  (print (nth l 39) (length l))
  (print (+ 1 2.5 3) (* 2 1.5 2) (- 10 0.5 1) (list 1 (list 2 (list 3)) "x" nil))
  (var s (str "a" 1))
  (print (length (list s s s s)))
"#;
    let (tx, bodies, replays) = same(defs, body, Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("(1525 -1447 -4270968 1526) 40"), Print("6.5 6.0 8.5 (1 (2 (3)) \"x\" nil)"), Print("4")]"#
    );
    // An overflow part-way: the first sum is past the largest integer, the whole would
    // not be.
    let max = i64::MAX;
    for body in [
        format!("(var i 0) (while (< i 20) (do (print (+ {max} i -1)) (var i (+ i 1)) end))"),
        format!("(var i 1) (while (< i 20) (do (print (- (- 0 {max}) i 3)) (var i (+ i 1)) end))"),
        format!("(var i 1) (while (< i 20) (do (print (* i {max} 0)) (var i (+ i 1)) end))"),
    ] {
        let (tx, _, _) = same("", &body, Limits::default());
        let Status::Failed(e) = &tx.status else {
            panic!("{body}: {:?}", tx.status)
        };
        assert!(e.message.contains("overflow"), "{}", e.message);
    }
    // Lists made past the memory limit, and nested past the nesting limit.
    let memory = Limits {
        max_memory: 20_000,
        ..Limits::default()
    };
    let nesting = Limits {
        max_nesting: 30,
        ..Limits::default()
    };
    for (body, limits) in [
        ("(var l (list)) (while true (var l (list l l l)))", memory),
        ("(var l 1) (while true (var l (list l 2 3)))", nesting),
    ] {
        let (tx, _, _) = same("", body, limits);
        assert!(matches!(tx.status, Status::Failed(_)), "{:?}", tx.status);
    }
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

/// A law the fast tier cannot run (it may wait) sends in a loop; the interpreter starts
/// each side-effect of the sends on the fast tier, which runs a straight stretch and
/// returns. A budget running out within the stretch stops the transaction where the
/// interpreter stops it: the body counted past it before its `return` (its loop never
/// went round, where it would have checked), and the fast tier gives up rather than
/// hand the loop a count it would check too late.
#[test]
fn a_body_returning_past_the_step_budget_stops_where_the_interpreter_stops() {
    let text = r#"
#entity cell
  #state default
    #onMessage go
      0
    #onMessage ping
      1
#instance x of cell
#law "Sends" on go to cell in * is
  (do (if (= (attribute "n") 99) (wait signal "never")) (while true (send new message "ping" to "x")) end)
#sideeffect "Straight" on ping to cell in * is
  (do (var a 1) (while true (do (var b 2) (var c (+ a b)) (var d (* c c)) (return (- d a)) end)) end)
"#;
    for max_steps in 300..340 {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (tx, _, _) = same_transaction(text, "go to x with n 1", limits);
        let Status::Failed(e) = &tx.status else {
            panic!("{:?}", tx.status)
        };
        assert!(e.message.contains("step limit"), "{}", e.message);
        assert_eq!(tx.steps, max_steps + 1);
    }
}

/// Functions calling each other while some are compiled and some not yet (with the
/// feature, `tools/jit-test`'s second pass compiles a body once it has been asked for
/// six times, twice a call on the interpreter): compiled `down` calls `bottom` first at
/// its deepest, which runs on the interpreter and calls itself there. Under every depth
/// limit up to the deepest call, so that the limit falls at each depth once: the calls
/// the fast tier made without frames count on the interpreter too.
#[test]
fn functions_warming_up_call_each_other_as_the_interpreter_calls_them() {
    // (Lists keep them off the interpreter's loop for small functions, which would run
    // them itself.)
    let defs = "#define bottom (n) (if (<= n 0) 0 else (+ (length (list n)) (bottom (- n 1))))\n\
        #define down (n) (if (<= n 0) (bottom 3) else (+ (length (list n)) (down (- n 1))))\n";
    for max_depth in 2..24 {
        let limits = Limits {
            max_depth,
            ..Limits::default()
        };
        let (tx, _, _) = same(defs, "(print (down 10))", limits);
        if max_depth >= 17 {
            assert_eq!(format!("{:?}", tx.output), "[Print(\"13\")]", "{max_depth}");
        } else {
            let Status::Failed(e) = &tx.status else {
                panic!("{max_depth}: {:?}", tx.status)
            };
            assert!(e.message.contains("depth limit"), "{}", e.message);
        }
    }
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

/// How many hold the list in property `property` of entity `entity`.
fn list_count(s: &Session, entity: &str, property: &str) -> usize {
    let e = s.world().lookup(Symbol::intern(entity)).expect(entity);
    let l = s
        .world()
        .entity(e)
        .and_then(|e| e.property(&s.game, Symbol::intern(property)));
    match l {
        Some(Value::List(l)) => std::rc::Rc::strong_count(l),
        other => panic!("{property} is {other:?}"),
    }
}

/// Arguments a compiled function hands to a compiled callee apart from the machine's
/// stack are let go when the call is not made (deeper than the fast tier nests): the
/// list passed down holds no count more after the transaction than before, on the fast
/// tier (which gives up there, the interpreter running the transaction again) as on the
/// interpreter.
#[test]
fn arguments_of_a_call_not_made_are_let_go() {
    let text = r#"
#define down (n l) (if (= n 0) (length l) else (+ 0 (down (- n 1) l)))
#entity box
  #property l (list 1 2 3)
  #state default
    #onMessage go
      (print (down (attribute "n") (property "l")))
#instance x of box
"#;
    let counts = |s: &Session| list_count(s, "x", "l");
    for tier in [Tier::Interpreter, Tier::Fast] {
        let mut s = session(text, tier, Limits::default());
        let before = counts(&s);
        for n in [3, 150, 400, 3] {
            let (tx, _, _) = deliver(&mut s, &format!("go to x with n {n}"));
            assert_eq!(format!("{:?}", tx.output), "[Print(\"3\")]", "{tier:?} {n}");
            assert_eq!(counts(&s), before, "{tier:?} {n}");
        }
    }
}

/// A chain run directly whose side-effect gives up after the behaviour gave a value (a
/// list held by a property) lets that value go: the list holds no count more after the
/// transaction (replayed on the interpreter) than before, on both tiers.
#[test]
fn a_chain_left_after_its_behaviour_lets_its_value_go() {
    let text = r#"
#entity box
  #property l (list 1 2 3)
  #state default
    #onMessage give
      (property "l")
    #onMessage go
      (print (length (send new message "give" to (self) with "n" (attribute "n"))))
#sideeffect on give to box in * is (if (> (attribute "n") 1) (print "late"))
#instance x of box
"#;
    let counts = |s: &Session| list_count(s, "x", "l");
    for tier in [Tier::Interpreter, Tier::Fast] {
        let mut s = session(text, tier, Limits::default());
        let before = counts(&s);
        for n in [1, 2, 1, 2, 2] {
            let (tx, _, _) = deliver(&mut s, &format!("go to x with n {n}"));
            let printed = if n > 1 {
                "[Print(\"late\"), Print(\"3\")]"
            } else {
                "[Print(\"3\")]"
            };
            assert_eq!(format!("{:?}", tx.output), printed, "{tier:?} {n}");
            assert_eq!(counts(&s), before, "{tier:?} {n}");
        }
    }
}

/// One send reaching entities of one type in turn, whose state its behaviour changes,
/// one of them named by a law of its own: each send runs the chain of its recipient's
/// type, state and name, as on the interpreter, whatever the send reached before.
#[test]
fn a_send_reaching_other_states_and_instances_runs_their_chains() {
    let text = r#"
#entity cell
  #state default
    #onMessage poke
      (changeState "on")
      1
  #state on
    #onMessage poke
      (changeState "default")
      2
#entity box
  #state default
    #onMessage go
      (var t 0)
      (foreach c in (list "a" "b" "c" "a" "a" "b" "c" "c")
        (var t (+ (* t 10) (or (send new message "poke" to c) 7))))
      (print t)
#law "c says no when on" on poke to c in on is (return)
#instance a of cell
#instance b of cell
#instance c of cell
#instance x of box
"#;
    let sends = ["go to x"; 4];
    let seen = same_sends(text, &sends, Limits::default());
    let printed: Vec<String> = seen.iter().map(|t| format!("{:?}", t.output)).collect();
    assert_eq!(
        printed,
        [
            "[Print(\"11121277\")]",
            "[Print(\"21712277\")]",
            "[Print(\"11721277\")]",
            "[Print(\"21712277\")]"
        ]
    );
}

/// Cells that pass a message `down` to their neighbour, counting down `n`: a function
/// sends it, a law vetoes it at 7 (the send then gives nil), a side-effect prints every
/// tenth, `sink` rolls the move back, and `slow` has a body the fast tier does not build
/// (a `wait signal` it never reaches), so the interpreter runs it inside a fast send.
const CELLS: &str = r#"
#define poke (e n) (send new message "down" to e with "n" n)
#entity cell
  #property hits 0
  #property next nil
  #state default
    #onMessage down
      (update property "hits" to (+ (property "hits") 1))
      (if (> (attribute "n") 0)
          (+ 1 (or (poke (property "next") (- (attribute "n") 1)) 100))
          else (property "hits"))
    #onMessage sink
      (open checkpoint)
      (update property "hits" to 5)
      (if (= (attribute "n") 0) (rollback "sunk") else (send new message "sink" to (property "next") with "n" (- (attribute "n") 1)))
    #onMessage kept
      (property "hits")
    #onMessage slow
      (if (< (attribute "n") 0) (wait signal "never"))
      (send new message "down" to (property "next") with "n" (attribute "n"))
#entity box
  #state default
    #onMessage go
      (print (send new message "down" to "a" with "n" (attribute "n")))
      (print (property "hits" of "a") (property "hits" of "b"))
    #onMessage guarded
      (print (send new message "kept" to "a" with "n" (attribute "n")) (property "hits" of "a"))
    #onMessage wait
      (print "before")
      (send new message "slow" to "a" with "n" -1)
#law "no sevens" on down to cell in * is (if (= (attribute "n") 7) (return))
#law "counted, then refused" on kept to cell in * is
  (update property "hits" to 99)
  (if (> (attribute "n") 1) (return))
#sideeffect on down to cell in * is (if (= (% (attribute "n") 10) 0) (print (self) (attribute "n")))
#instance a of cell with next "b"
#instance b of cell with next "a"
#instance x of box
"#;

#[test]
fn sends_laws_and_side_effects_run_on_the_fast_tier() {
    let (tx, bodies, replays) = same_transaction(CELLS, "go to x with n 30", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    // 30 down to 8 pass and 7 is vetoed; the side-effects print as each send ends.
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("a 10"), Print("a 20"), Print("a 30"), Print("123"), Print("12 11")]"#
    );
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0, "the fast tier gave up");
}

/// A chain of a law, a behaviour and a side-effect, each of which can run without its
/// join point: with machine code (`--features jit`), the sends between the two cells
/// run the whole chain as calls. A law vetoes (the send gives nil), a side-effect writes
/// its entity's property, a law changes the message (which only the join point can: the
/// fast tier gives up and the interpreter runs the move), and a send from inside the
/// chain to a body that needs its join point names the right sender.
const CHAIN: &str = r#"
#define who () (sender)
#entity hop
  #property count 0
  #property fives 0
  #property next nil
  #state default
    #onMessage step
      (update property "count" to (+ (property "count") 1))
      (if (= (attribute "n") 3) (send new message "ask" to "x"))
      (if (attribute "seen") (update property "fives" to 100))
      (if (> (attribute "n") 0)
          (+ 1 (or (send new message "step" to (property "next")
                     with "n" (- (attribute "n") 1) "mark" (attribute "mark"))
                   100))
          else (property "count"))
#entity box
  #property asked nil
  #state default
    #onMessage run
      (print (send new message "step" to "p" with "n" (attribute "n") "mark" (attribute "mark")))
      (print (property "count" of "p") (property "count" of "q") (property "fives" of "p") (property "fives" of "q") (property "asked"))
    #onMessage ask
      (update property "asked" to (who))
#law "not two" on step to hop in * is (if (= (attribute "n") 2) (return))
#law "marked" on step to hop in * is (if (= (attribute "n") (attribute "mark")) (update message attribute "seen" to true))
#sideeffect "fives" on step to hop in * is (if (= (% (attribute "n") 5) 0) (update property "fives" to (+ (property "fives") 1)))
#instance p of hop with next "q"
#instance q of hop with next "p"
#instance x of box
"#;

#[test]
fn whole_chains_sent_from_bodies_run_as_the_interpreter_runs_them() {
    let (tx, _, replays) = same_transaction(CHAIN, "run to x with n 30", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(replays, 0);
    // 30 down to 3 pass, 2 is vetoed: 101 at 3, one more at each send above; p has the
    // even ones, q the odd; the side-effect counts 30, 20, 10 and 25, 15, 5; the cell
    // that got 3 asked the box.
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("128"), Print("14 14 3 3 q")]"#
    );
    // A message a law marks (12, p's): p's fives set to 100 there, then 10, 20 and 30
    // counted after it. The law writes the message where the chain runs directly: no
    // replay.
    let (tx, _, replays) = same_transaction(CHAIN, "run to x with n 30 mark 12", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(replays, 0);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("128"), Print("14 14 103 3 q")]"#
    );
}

/// Laws and side-effects that start with a test and end when it fails, which the chain
/// makes itself (`jit/chain.rs`, `Guard`): a letter test of the entity's property or of
/// an attribute (`(if (contains "Kk" (property "piece")) ...)`, alone or first in an
/// `and`) and a truth test of the entity's property, another entity's, or an attribute
/// (`(if (property "flag") ...)`), on every kind of value (a one-letter name in the
/// letters or not, a longer name, a string made at run time, nil, which `contains`
/// refuses; a boolean, a number, a list), and a law and a side-effect that do nothing,
/// in a chain sent from a body and at the outermost join point: the same vetoes (by the
/// same law), errors, output and steps on every tier, and at every step limit.
const GUARDED: &str = r#"
#entity cell
  #property piece nil
  #property flag nil
  #property seen 0
  #property notes 0
  #state default
    #onMessage go
      (update property "seen" to (+ (property "seen") 1))
      (attribute "n")
    #onMessage set
      (update property "piece" to (attribute "piece"))
      (update property "flag" to (attribute "flag"))
#entity switch
  #property over false
  #state default
    #onMessage flip
      (update property "over" to (attribute "to"))
#entity box
  #state default
    #onMessage run
      (var out (list))
      (var n 0)
      (foreach p in (list "K" "k" "Q" "x" "KK" (str "k" "K"))
        (foreach f in (list nil false true 0 (list 1) "f")
          (do
            (send new message "set" to "c" with "piece" p "flag" f)
            (send new message "flip" to "s" with "to" (= n 20))
            (var out (append out (send new message "go" to "c" with "n" n "note" f "who" p)))
            (var n (+ n 1))
          end)))
      (print out (property "seen" of "c") (property "notes" of "c"))
#law "idle law" on go to cell in * is (do end)
#law "kings" on go to cell in * is
  (if (contains "Kk" (property "piece")) (if (= (% (attribute "n") 3) 0) (return)))
#law "kings and" on go to cell in * is
  (if (and (contains "Kk" (property "piece")) (= (% (attribute "n") 5) 0)) (return))
#law "flagged" on go to cell in * is
  (if (property "flag") (if (= (% (attribute "n") 7) 0) (return)))
#law "switched off" on go to cell in * is (if (property "over" of "s") (return))
#sideeffect "noted" on go to cell in * is
  (if (attribute "note") (update property "notes" to (+ (property "notes") 1)))
#sideeffect "a king noted" on go to cell in * is
  (if (and (contains "Kk" (attribute "who")) (attribute "note"))
      (update property "notes" to (+ (property "notes") 100)))
#sideeffect "idle" on go to cell in * is (do end)
#instance c of cell
#instance s of switch
#instance x of box
"#;

#[test]
fn laws_whose_first_test_fails_end_as_the_interpreter_ends_them() {
    let (tx, bodies, replays) = same_transaction(GUARDED, "run to x", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
    // Of the 36 messages, those vetoed: a king's at multiples of 3 and 5 (`K` 0 to 5,
    // `k` 6 to 11; "kK" is not in "Kk"), a true flag's at multiples of 7 (of the flags
    // nil, false, true, 0, a list and "f" of each piece in turn: 14, 21, 28 and 35),
    // and 20 (the switch on). Each message passed with a true flag is noted (`note`),
    // a king's a hundred times more: 2, 4, 8 and 11 of the kings', 15, 16, 17, 22, 23,
    // 26, 27, 29, 32, 33 and 34 of the others'.
    let printed = format!("{:?}", tx.output);
    let vetoed = [0, 3, 5, 6, 9, 10, 14, 20, 21, 28, 35];
    let out: Vec<String> = (0..36)
        .map(|n| match vetoed.contains(&n) {
            true => "nil".to_string(),
            false => n.to_string(),
        })
        .collect();
    let seen = 36 - vetoed.len();
    let notes = 4 * 101 + 11;
    assert!(
        printed.contains(&format!("Print(\"({}) {seen} {notes}\")", out.join(" "))),
        "{printed}"
    );
    // At the outermost join point, after each kind of value is set.
    let mut sends = Vec::new();
    let kinds = [
        ("K", "nil"),
        ("Q", "true"),
        ("KK", "0"),
        ("k", "false"),
        ("nil", "1"),
    ];
    for (p, f) in kinds {
        let piece = if p == "nil" {
            p.to_string()
        } else {
            format!("\"{p}\"")
        };
        sends.push(format!("set to c with piece {piece} flag {f}"));
        for n in [0, 1, 7, 15] {
            sends.push(format!("go to c with n {n} note {f} who {piece}"));
        }
    }
    sends.push("flip to s with to true".into());
    sends.push("go to c with n 1".into());
    let sends: Vec<&str> = sends.iter().map(String::as_str).collect();
    same_sends(GUARDED, &sends, Limits::default());
    for max_steps in 1200..1300 {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        same_transaction(GUARDED, "run to x", limits);
    }
}

/// Laws that write the message of a chain run directly: an attribute it was sent
/// without (read by the laws, behaviour and side-effect after them, and not by the next
/// message sent), one it was sent with (replaced, and passed on by the behaviour), and
/// one under a number (given up on: the move runs on the interpreter, as before). The
/// side-effects run after the sends their behaviours make, so each cell's marks come
/// last in its log.
const WRITTEN: &str = r#"
#entity hop
  #property log (list)
  #property next nil
  #state default
    #onMessage step
      (update property "log" to (append (property "log") (list (attribute "n") (attribute "mark") (attribute "seen"))))
      (if (> (attribute "n") 0)
          (send new message "step" to (property "next") with "n" (- (attribute "n") 1) "mark" (attribute "mark")))
#law "seen" on step to hop in * is (if (= (% (attribute "n") 3) 0) (update message attribute "seen" to (attribute "n")))
#law "twice" on step to hop in * is (if (attribute "seen") (update message attribute "seen" to (* 2 (attribute "seen"))))
#law "remark" on step to hop in * is (if (= (attribute "n") 10) (update message attribute "mark" to "ten"))
#law "by number" on step to hop in * is (if (= (attribute "n") 40) (update message attribute 5 to "five"))
#sideeffect on step to hop in * is (if (attribute "seen") (update property "log" to (append (property "log") "seen")))
#instance p of hop with next "q"
#instance q of hop with next "p"
#entity box
  #state default
    #onMessage run
      (send new message "step" to "p" with "n" (attribute "n") "mark" "m")
      (print (property "log" of "p"))
      (print (property "log" of "q"))
    #onMessage two
      (send new message "step" to "p" with "n" 3 "mark" "m")
      (send new message "step" to "q" with "n" 1 "mark" "m")
      (print (property "log" of "p"))
      (print (property "log" of "q"))
#instance x of box
"#;

#[test]
fn laws_write_the_message_of_a_chain_run_directly_as_at_a_join_point() {
    let (tx, _, replays) = same_transaction(WRITTEN, "run to x with n 12", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(replays, 0);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("((12 \"m\" 24) (10 \"ten\" nil) (8 \"ten\" nil) (6 \"ten\" 12) (4 \"ten\" nil) (2 \"ten\" nil) (0 \"ten\" 0) \"seen\" \"seen\" \"seen\")"), Print("((11 \"m\" nil) (9 \"ten\" 18) (7 \"ten\" nil) (5 \"ten\" nil) (3 \"ten\" 6) (1 \"ten\" nil) \"seen\" \"seen\")")]"#
    );
    // Two messages sent one after the other from one body: what a law wrote onto the
    // first is not the second's.
    let (tx, _, replays) = same_transaction(WRITTEN, "two to x", Limits::default());
    assert_eq!(replays, 0);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("((3 \"m\" 6) (1 \"m\" nil) \"seen\" (0 \"m\" 0) \"seen\")"), Print("((2 \"m\" nil) (0 \"m\" 0) \"seen\" (1 \"m\" nil))")]"#
    );
    // Past 40, the law writing under a number: the move is run again on the
    // interpreter, with the same outcome.
    let (tx, _, replays) = same_transaction(WRITTEN, "run to x with n 45", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(replays, 1);
}

/// `(label)` read by a law (which vetoes one label) and a side-effect bound to every
/// label, and by the behaviours, in chains run directly for sends from a body and at the
/// outermost join point: the label of the message each handles, on every tier, with
/// nothing run again on the interpreter.
const LABELS: &str = r#"
#entity cell
  #property log (list)
  #property next nil
  #state default
    #onMessage ping
      (update property "log" to (append (property "log") (list (label))))
      (if (property "next") (send new message "pong" to (property "next") with "n" 1))
    #onMessage pong
      (update property "log" to (append (property "log") (list (label) (attribute "n"))))
    #onMessage never
      (update property "log" to (append (property "log") "not vetoed"))
#law "labels" on * to cell in * is (if (= (label) "never") (return))
#sideeffect on * to cell in * is (update property "log" to (append (property "log") (str "after " (label))))
#instance a of cell with next "b"
#instance b of cell
#entity box
  #state default
    #onMessage run
      (send new message "ping" to "a")
      (send new message "pong" to "b" with "n" 2)
      (send new message "never" to "b")
      (print (property "log" of "a") (property "log" of "b"))
#instance x of box
"#;

#[test]
fn the_label_is_read_as_the_interpreter_reads_it_on_every_path() {
    let (tx, _, replays) = same_transaction(LABELS, "run to x", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("((\"ping\") \"after ping\") ((\"pong\" 1) \"after pong\" (\"pong\" 2) \"after pong\")")]"#
    );
    assert_eq!(replays, 0);
    // Each a move, at the outermost join point.
    let moves = ["ping to a", "pong to b with n 5", "never to a", "ping to b"];
    let txs = same_sends(LABELS, &moves, Limits::default());
    assert!(
        matches!(txs[2].status, Status::Vetoed { .. }),
        "{:?}",
        txs[2].status
    );
}

/// A move's own chain (with machine code, run directly at the outermost join point):
/// laws that open a checkpoint and write the world before another vetoes, a law that
/// changes the message, a behaviour sending on to a whole chain (a value worked out by
/// an `if`, the keys known where its paths meet) and to a cell that vetoes, a
/// side-effect that reads what the behaviour wrote and one that notifies (which a body
/// run directly elsewhere gives up on: here, none is replayed). Each move is compared
/// with the interpreter (status, value, steps, output), and a run of moves in one
/// session agrees with one on the interpreter, the vetoed ones leaving nothing.
const MOVES: &str = r#"
#entity cell
  #property stones 0
  #property paid 0
  #property last nil
  #state default
    #onMessage put
      (update property "stones" to (+ (property "stones") (attribute "n")))
      (var far (send new message "echo" to (attribute "dest")
                 with "n" (if (attribute "big") 50 else (attribute "n")) "from" (self)))
      (list (property "stones") far (send new message "echo" to "z" with "n" 1 "from" (self)))
    #onMessage echo
      (update property "last" to (attribute "from"))
      (* 2 (attribute "n"))
#law "open" on put to cell in * is (open checkpoint)
#law "pay" on put to cell in * is (update property "paid" to (+ (property "paid") (attribute "n")))
#law "not too many" on put to cell in * is (if (> (+ (property "stones") (attribute "n")) 9) (return))
#law "not from z" on echo to cell in * is (if (= (self) "z") (return))
#law "mark big" on put to cell in * is (if (= (attribute "n") 5) (update message attribute "big" to true))
#sideeffect "tally" on put to cell in * is
  (update property "paid" to (+ (property "paid") (property "stones")))
  (if (attribute "big") (notify "a big move"))
#instance a of cell
#instance b of cell
#instance z of cell
"#;

#[test]
fn a_moves_own_chain_runs_as_the_interpreter_runs_it() {
    let moves = [
        "put to a with n 4 dest \"b\"",
        "put to b with dest \"a\" n 3",
        "put to a with n 6 dest \"b\"",
        "put to a with n 5 dest \"a\"",
    ];
    for send in moves {
        same_transaction(MOVES, send, Limits::default());
    }
    let (tx, _, _) = same_transaction(MOVES, moves[0], Limits::default());
    // 4 stones; b doubles 4; z vetoes its echo (nil).
    assert_eq!(format!("{:?}", tx.status), "Committed((4 8 nil))");
    // Moves in a row: the third is vetoed by "not too many" (4 + 6 > 9) after "pay"
    // wrote, and leaves nothing; the fourth passes (4 + 5).
    let run = |tier| {
        let mut session = session(MOVES, tier, Limits::default());
        let mut seen = Vec::new();
        for _ in 0..3 {
            for send in moves {
                let (tx, _, replays) = deliver(&mut session, send);
                assert_eq!(replays, 0, "{send}");
                seen.push(format!("{:?} {} {:?}", tx.status, tx.steps, tx.output));
            }
        }
        let (tx, _, _) = deliver(&mut session, "put to z with n 0 dest \"a\"");
        seen.push(format!("{:?}", tx.status));
        seen
    };
    let fast = run(Tier::Fast);
    assert_eq!(fast, run(Tier::Interpreter));
    // The values worked out by hand: a vetoed move changes nothing (a keeps 9 after the
    // fourth); the steps are the interpreter's, whichever way a move ran.
    let vetoed = "Vetoed { law: \"not too many\" } 16 []";
    let expected = [
        "Committed((4 8 nil)) 79 []",
        "Committed((3 6 nil)) 79 []",
        vetoed,
        "Committed((9 100 nil)) 95 [Notify(\"a big move\")]",
        vetoed,
        "Committed((6 6 nil)) 79 []",
        vetoed,
        vetoed,
        vetoed,
        "Committed((9 6 nil)) 79 []",
        vetoed,
        vetoed,
        "Committed((0 0 nil))",
    ];
    assert_eq!(fast, expected);
}

/// Code typed while a game runs (what the REPL does with every expression) gives the
/// session a new fast table, and with the feature a new code generator, while the
/// session keeps its chains: the moves after it run as before, none replayed (a chain's
/// note that its bodies have direct forms names the generator that found them).
#[test]
fn moves_after_code_typed_mid_game_run_as_before() {
    let mut session = session(MOVES, Tier::Fast, Limits::default());
    let play = |session: &mut Session| {
        for send in [
            "put to b with n 1 dest \"a\"",
            "put to a with n 1 dest \"b\"",
        ] {
            let (tx, _, replays) = deliver(session, send);
            assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
            assert_eq!(replays, 0, "{send}");
        }
    };
    play(&mut session);
    let mut sources = SourceMap::default();
    let (_, body, diags) = parse_text_statements(&mut sources, "<typed>", "(+ 1 2)");
    assert!(diags.is_empty(), "{diags:?}");
    let span = body[0].span;
    compile_body(session.game_mut(), &body, "<typed>".into(), span).expect("(+ 1 2)");
    for _ in 0..3 {
        play(&mut session);
    }
    let (tx, _, _) = deliver(&mut session, "put to z with n 0 dest \"a\"");
    assert_eq!(format!("{:?}", tx.status), "Committed((0 0 nil))");
}

/// A direct form that gives up at every run (here at `notify`, which only the join point
/// does) is taken away once that is more than rare: the first moves are replayed on the
/// interpreter, the later ones run without a replay, the chain the general way.
#[cfg(feature = "jit")]
#[test]
fn a_direct_form_that_keeps_giving_up_is_taken_away() {
    // Each body compiled when it first runs.
    assert_eq!(jit_after(), "0", "run with FLEXRULES_JIT_AFTER unset or 0");
    let text = r#"
#entity cell
  #property hits 0
  #state default
    #onMessage poke
      (update property "hits" to (+ (property "hits") 1))
      (notify "poked")
#entity box
  #state default
    #onMessage go
      (send new message "poke" to "a")
#instance a of cell
#instance x of box
"#;
    let mut session = session(text, Tier::Fast, Limits::default());
    let mut replays = Vec::new();
    for _ in 0..40 {
        let (tx, _, replayed) = deliver(&mut session, "go to x");
        assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
        assert_eq!(format!("{:?}", tx.output), r#"[Notify("poked")]"#);
        replays.push(replayed);
    }
    // Replayed while the form was there (16 give-ups are let pass, the 17th takes it
    // away), never after.
    let replayed: u64 = replays.iter().sum();
    assert!((1..=17).contains(&replayed), "{replays:?}");
    assert!(replays[20..].iter().all(|&r| r == 0), "{replays:?}");
}

#[test]
fn a_rollback_and_an_interpreted_body_inside_a_fast_send_need_no_replay() {
    let (tx, _, replays) = same_transaction(CELLS, "sink to a with n 5", Limits::default());
    assert!(
        matches!(&tx.status, Status::RolledBack { reason } if reason == "sunk"),
        "{:?}",
        tx.status
    );
    assert_eq!(replays, 0);
    let (tx, bodies, replays) = same_transaction(CELLS, "slow to a with n 12", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert!(bodies >= 1);
    assert_eq!(replays, 0);
}

#[test]
fn sends_nested_deeper_than_the_fast_tier_nests_run_on_the_interpreter() {
    // The fast tier nests join points as Rust calls up to its bound, on a test thread's
    // stack; deeper, it gives up and the interpreter runs the move.
    let (tx, _, replays) = same_transaction(CELLS, "go to x with n 3000", Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(replays, 1);
    // And the depth limit is the interpreter's, counting the function between sends.
    let limits = Limits {
        max_depth: 41,
        ..Limits::default()
    };
    let (tx, _, _) = same_transaction(CELLS, "go to x with n 30", limits);
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(e.message.contains("depth limit"), "{}", e.message);
}

#[test]
fn the_fast_tier_at_its_deepest_fits_in_a_small_thread_stack() {
    // A fast body and one the interpreter runs, sending each other the message in turn:
    // each level of the fast tier's nesting then holds an instruction loop, a fast body
    // and a join point on the Rust stack. At the nesting bound (measured: about 300 KiB
    // on x86-64) the fast tier gives up, within a quarter of a test thread's stack.
    let text = CELLS.replace(
        "#entity box",
        r#"    #onMessage hop
      (if (> (attribute "n") 0)
          (send new message "slowhop" to (property "next") with "n" (- (attribute "n") 1)))
    #onMessage slowhop
      (if (< (attribute "n") 0) (wait signal "never"))
      (if (> (attribute "n") 0)
          (send new message "hop" to (property "next") with "n" (- (attribute "n") 1)))
#entity box"#,
    );
    let deepest = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            let (tx, bodies, replays) =
                transaction(&text, "hop to a with n 600", Tier::Fast, Limits::default());
            (format!("{:?}", tx.status), bodies, replays)
        })
        .unwrap()
        .join()
        .unwrap();
    let (status, bodies, replays) = deepest;
    assert!(status.starts_with("Committed"), "{status}");
    assert!(bodies >= flexrules::runtime::vm::FAST_DEPTH as u64 / 2);
    assert_eq!(replays, 1);
}

#[test]
fn a_veto_inside_a_fast_send_undoes_what_its_laws_did() {
    // The law changes the world and then vetoes: the send gives nil and the change is
    // undone (the join point's copy of the world), on either tier.
    let (tx, _, replays) = same_transaction(CELLS, "guarded to x with n 2", Limits::default());
    assert_eq!(format!("{:?}", tx.output), r#"[Print("nil 0")]"#);
    assert_eq!(replays, 0);
    let (tx, _, replays) = same_transaction(CELLS, "guarded to x with n 1", Limits::default());
    assert_eq!(format!("{:?}", tx.output), r#"[Print("99 99")]"#);
    assert_eq!(replays, 0);
}

#[test]
fn a_wait_inside_a_fast_send_is_the_interpreters() {
    let (tx, _, replays) = same_transaction(CELLS, "wait to x", Limits::default());
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(e.message.contains("waiting for signal"), "{}", e.message);
    assert_eq!(replays, 1);
}

/// `(state of e)` is read in line for an entity the game started with, and by the form
/// for any other name: the same states, steps and errors either way, on every tier.
#[test]
fn the_state_of_an_entity_reads_the_same_in_line_and_by_the_form() {
    let defs = r#"
#entity cell
  #state default
    #onMessage flip
      (changeState "lit")
  #state lit
#instance c1 of cell
"#;
    let body = r#"
  (var seen (list))
  (var i 0)
  (while (< i 3)
    (do
      (var seen (concat seen (list (state of "c1") (state of (str "c" 1)) (state of (self)))))
      (send new message "flip" to "c1")
      (var i (+ i 1))
    end))
  (print seen)
  (print (= (state of "c1") "lit"))
  (foreach n in (list "c1" (str "c" 1) "b")
    (if (= (state of n) "lit") (print n "lit") else (print n "not lit")))
  (state of (str "nob" "ody"))
"#;
    let (tx, bodies, _) = same(defs, body, Limits::default());
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(e.message.contains("nobody"), "{}", e.message);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("(\"default\" \"default\" \"default\" \"lit\" \"lit\" \"default\" \"lit\" \"lit\" \"default\")"), Print("true"), Print("c1 lit"), Print("c1 lit"), Print("b not lit")]"#
    );
    assert!(bodies >= 1, "the fast tier ran no body");
}

/// `(contains s x)` of a string kept in a variable (or made at run time) and a name, in
/// a function kept off the interpreter's small loop (so that it runs as machine code
/// with the feature): a one-letter name is looked for in line, its work (the string's length)
/// counted as the builtin counts it; anything else goes to the builtin. The same answers
/// and steps on every tier, an error the same, and a step limit falling inside the work
/// stops where the interpreter stops (the fast tier gives up there).
#[test]
fn a_letter_looked_for_in_a_string_counts_the_same_on_every_tier() {
    // (A list keeps the function off the interpreter's loop for small functions.)
    let defs = r#"
#define hits (s p) (if (contains s p) (length (list p)) else 0)
"#;
    let body = r#"
  (var mine "KQRBNP")
  (var long (str "abcdefghij" "klmnopqrst"))
  (var total 0)
  (var i 0)
  (while (< i 20)
    (do
      (foreach p in (list "K" "x" "q" "P" "KQ" "" (str "N" "") "k" "t")
        (var total (+ total (hits mine p) (* 100 (hits long p)))))
      (var i (+ i 1))
    end))
  (print total)
"#;
    let (tx, bodies, replays) = same(defs, body, Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(format!("{:?}", tx.output), r#"[Print("8100")]"#);
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
    let wrong = format!("{body}  (hits \"KQ\" 3)");
    let (tx, _, _) = same(defs, &wrong, Limits::default());
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(e.message.contains("contains"), "{}", e.message);
    for max_steps in 300..360 {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (tx, _, _) = same(defs, body, limits);
        let Status::Failed(e) = &tx.status else {
            panic!("{:?}", tx.status)
        };
        assert!(e.message.contains("step limit"), "{}", e.message);
    }
}

const KEEPER: &str = r#"
#entity keeper
  #property log nil
  #property seen 0
  #state default
    #onMessage start
      (update property "log" to (list))
    #onMessage add
      (update property "log" to (append (property "log") (attribute "i")))
      (if (= (attribute "i") 3)
          (do
            (var kept (property "log"))
            (update property "log" to (append (property "log") (list 3 3)))
            (print kept)
          end))
    #onMessage grow
      (var i 0)
      (while (< i (attribute "n"))
        (do (send new message "add" to (self) with "i" i) (var i (+ i 1)) end))
      (if (attribute "fail") (first 3))
      (print (property "log"))
    #onMessage undo
      (open checkpoint)
      (send new message "grow" to (self) with "n" 3)
      (rollback "undone")
    #onMessage other
      (update property "log" to (append (property "log" of "k") 9))
    #onMessage show
      (print (property "log") (property "seen"))
#instance k of keeper
#instance j of keeper
#law "Seen" on add to keeper in * is
  (update property "seen" to (+ (property "seen") 1))
"#;

/// `(update property "p" to (append (property "p") x))` of the running entity, in a
/// behaviour sent to from another (whose law may change the world, so that it runs at
/// its join point, as machine code with the feature): the element is pushed where the
/// list lies when nobody else holds it (not at the first append of a transaction, where
/// a snapshot shares the entity, nor while a variable keeps the list), the list copied
/// otherwise; another entity's list is copied; a failed transaction, and a rollback
/// (which takes the pushes off the list), leave the list as it was; a list at its
/// length limit fails. The same lists, steps and output on every tier.
#[test]
fn appending_to_a_property_where_it_lies_is_the_same_on_every_tier() {
    let sends = [
        "start to k",
        "grow to k with n 6",
        "grow to k with n 5 fail true",
        "show to k",
        "undo to k",
        "show to k",
        "grow to k with n 2",
        "start to j",
        "other to j",
        "show to j",
        "grow to k with n 40",
    ];
    let limits = Limits {
        max_length: 40,
        ..Limits::default()
    };
    let seen = same_sends(KEEPER, &sends, limits);
    let printed = |i: usize| format!("{:?}", seen[i].output);
    assert_eq!(
        printed(1),
        r#"[Print("(0 1 2 3)"), Print("(0 1 2 3 (3 3) 4 5)")]"#
    );
    assert!(matches!(seen[2].status, Status::Failed(_)));
    assert_eq!(printed(3), r#"[Print("(0 1 2 3 (3 3) 4 5) 6")]"#);
    assert_eq!(printed(5), r#"[Print("(0 1 2 3 (3 3) 4 5) 6")]"#);
    assert_eq!(printed(9), r#"[Print("(0 1 2 3 (3 3) 4 5 0 1 9) 0")]"#);
    // Past 40 elements: the length limit, on every tier.
    let Status::Failed(e) = &seen[10].status else {
        panic!("{:?}", seen[10].status)
    };
    assert!(e.message.contains("`append`"), "{}", e.message);
}

/// Comparisons the generated code leaves to the builtin (of lists, whose comparison the
/// builtin counts as work, and of a list with a number, which fails), after steps the
/// code has not counted yet (a comparison's own, and a read of a property that a body
/// running without its join point makes): the steps before them are counted as the
/// interpreter counts them, at every step limit, and at the failure.
#[test]
fn comparisons_left_to_the_builtin_count_the_steps_before_them() {
    let text = r#"
#entity box
  #property l (list 1 2 3 4 5 6 7 8)
  #state default
    #onMessage go
      (var n 0)
      (while (< n 12)
        (do
          (if (= (property "l") (list 1 2 3 4 5 6 7 8)) (var n (+ n 1)))
          (var n (+ n 1))
        end))
      (print n)
      (print (< (property "l") (attribute "at")))
#entity driver
  #state default
    #onMessage run
      (send new message "go" to "b" with "at" 3)
#instance b of box
#instance d of driver
"#;
    let (tx, _, _) = same_transaction(text, "run to d", Limits::default());
    let Status::Failed(e) = &tx.status else {
        panic!("{:?}", tx.status)
    };
    assert!(e.message.contains('<'), "{}", e.message);
    for max_steps in 20..220 {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        same_transaction(text, "run to d", limits);
    }
}

const BOARD: &str = r#"
#entity keeper
  #property board nil
  #property seen 0
  #state default
    #onMessage start
      (update property "board" to (list 0 0 0 0 0))
    #onMessage set
      (update property "board" to (put (property "board") (attribute "i") (attribute "v")))
    #onMessage place
      (update property "board" to (put (property "board") (attribute "i") (attribute "v")))
    #onMessage vetoed
    #onMessage fill
      (var i 0)
      (while (< i (attribute "n"))
        (do
          (send new message (attribute "how") to (self) with "i" (% i 5) "v" (+ i (attribute "from")))
          (var i (+ i 1))
        end))
      (if (attribute "veto") (send new message "vetoed" to (self)))
      (if (attribute "fail") (first 3))
      (print (property "board"))
    #onMessage kept
      (update property "board" to (put (property "board") 1 "a"))
      (var kept (property "board"))
      (update property "board" to (put (property "board") 0 "k"))
      (print kept (property "board"))
    #onMessage undo
      (open checkpoint)
      (send new message "fill" to (self) with "n" 3 "from" 50 "how" "place")
      (rollback "undone")
    #onMessage other
      (update property "board" to (put (property "board" of "k") 1 "j"))
    #onMessage deep
      (update property "board" to (put (property "board") 2 (list (list 1))))
      (update property "board" to (put (property "board") 3 (list 2)))
      (update property "board" to (put (property "board") 2 7))
      (print (property "board"))
    #onMessage long
      (var l (list))
      (while (< (length l) 600) (var l (append l (length l))))
      (update property "board" to l)
      (send new message "place" to (self) with "i" 0 "v" "first")
      (send new message "place" to (self) with "i" 599 "v" "last")
      (send new message "set" to (self) with "i" 598 "v" "next")
      (if (attribute "fail") (first 3))
      (print (first (property "board")) (nth (property "board") 598) (last (property "board")) (length (property "board")))
    #onMessage deeper
      (update property "board" to (put (property "board") 0 0))
      (update property "board" to (put (property "board") 4 (list (list 1))))
      (first 3)
    #onMessage nest
      (print (length (list (property "board"))))
    #onMessage show
      (print (property "board") (property "seen"))
#instance k of keeper
#instance j of keeper
#law "Seen" on set to keeper in * is
  (update property "seen" to (+ (property "seen") 1))
#law "Put Then Veto" on vetoed to keeper in * is
  (do
    (update property "board" to (put (property "board") 4 "v"))
    (send new message "place" to (self) with "i" 3 "v" "w")
    (return)
  end)
"#;

/// `(update property "p" to (put (property "p") i v))` of the running entity, at its
/// join point (a law on `set`) and in a direct form (`place`): the element is replaced
/// where the list lies when nobody else holds it and its bounds stay as they are, the
/// list copied otherwise (while a variable keeps it, a list put into it raising its
/// depth, another entity's list); a failed transaction, a rollback and a vetoing law
/// (whose puts a copy of the world taken before them puts back) leave the list as it
/// was, a long list (a tree) too; an index out of range fails. The same lists, steps and
/// output on every tier.
#[test]
fn putting_into_a_property_where_it_lies_is_the_same_on_every_tier() {
    let sends = [
        "start to k",
        "fill to k with n 7 from 10 how set",
        "fill to k with n 3 from 0 how place fail true",
        "show to k",
        "undo to k",
        "show to k",
        "fill to k with n 2 from 20 how place veto true",
        "show to k",
        "kept to k",
        "set to k with i 5 v 1",
        "place to k with i -1 v 1",
        "start to j",
        "other to j",
        "show to j",
        "show to k",
        "deep to k",
        "long to k with fail true",
        "long to k",
    ];
    let seen = same_sends(BOARD, &sends, Limits::default());
    let printed = |i: usize| format!("{:?}", seen[i].output);
    assert_eq!(printed(1), r#"[Print("(15 16 12 13 14)")]"#);
    assert!(matches!(seen[2].status, Status::Failed(_)));
    assert_eq!(printed(3), r#"[Print("(15 16 12 13 14) 7")]"#);
    assert!(matches!(seen[4].status, Status::RolledBack { .. }));
    assert_eq!(printed(5), printed(3));
    assert_eq!(printed(6), r#"[Print("(20 21 12 13 14)")]"#);
    assert_eq!(printed(7), r#"[Print("(20 21 12 13 14) 7")]"#);
    assert_eq!(
        printed(8),
        r#"[Print("(20 \"a\" 12 13 14) (\"k\" \"a\" 12 13 14)")]"#
    );
    for (i, at) in [(9, "5"), (10, "-1")] {
        let Status::Failed(e) = &seen[i].status else {
            panic!("{:?}", seen[i].status)
        };
        assert!(
            e.message.contains(&format!("index {at} is out of range")),
            "{}",
            e.message
        );
    }
    assert_eq!(printed(13), r#"[Print("(\"k\" \"j\" 12 13 14) 0")]"#);
    assert_eq!(printed(14), r#"[Print("(\"k\" \"a\" 12 13 14) 7")]"#);
    assert_eq!(printed(15), r#"[Print("(\"k\" \"a\" 7 (2) 14)")]"#);
    assert!(matches!(seen[16].status, Status::Failed(_)));
    assert_eq!(printed(17), r#"[Print("first next last 600")]"#);
    // A list whose depth bound a failed put raised: the bound is put back with the
    // element, so that nesting the list costs the same steps before and after (with the
    // bound at the limit, the check would walk the list).
    let limits = Limits {
        max_nesting: 3,
        ..Limits::default()
    };
    let sends = ["start to k", "nest to k", "deeper to k", "nest to k"];
    let seen = same_sends(BOARD, &sends, limits);
    assert!(matches!(seen[2].status, Status::Failed(_)));
    assert_eq!(seen[3].steps, seen[1].steps);
}

const KEPT: &str = r#"
#define stones (cells)
  (var out (list))
  (foreach c in cells
    (do
      (var out (append out (property "stone" of c)))
      (if (= (state of c) "lit") (var out (append out "lit")))
      (var out (append out (get (property "marks" of c) "m" 0)))
    end))
  out
#entity cell
  #property stone nil
  #property marks (dict)
  #state default
    #onMessage lay
      (update property "stone" to (attribute "s"))
      (update property "marks" to (put (property "marks") "m" (attribute "s")))
      (changeState "lit")
    #onMessage look
      (list (property "stone") (property "stone" of "c2") (property "stone" of (attribute "at")) (state of (attribute "at")))
  #state lit
    #onMessage lay
      (update property "stone" to nil)
      (changeState "default")
    #onMessage look
      (list (property "stone") (property "stone" of "c2") (property "stone" of (attribute "at")) (state of (attribute "at")))
#entity post
  #property marks (dict "m" 7)
  #property stone "post"
  #state default
#entity player
  #property names (list "c1" "c2" "c3" "p" "c4")
  #state default
    #onMessage read
      (var n 0)
      (var seen nil)
      (while (< n (attribute "times"))
        (do (var seen (stones (property "names"))) (var n (+ n 1)) end))
      (print seen (send new message "look" to "c3" with "at" "c1"))
    #onMessage lay
      (send new message "lay" to (attribute "at") with "s" (attribute "s"))
      (if (attribute "fail") (first 3))
      (if (attribute "undo") (do (open checkpoint) (send new message "lay" to "c4" with "s" 9) (rollback "no") end))
      (print (stones (property "names")))
    #onMessage swap
      (delete entity "c4")
      (new entity "c4" of "post")
      (print (stones (property "names")))
#instance c1 of cell
#instance c2 of cell
#instance c3 of cell
#instance c4 of cell
#instance p of post
#instance me of player
#law "Counted" on lay to cell in * is
  (update property "marks" to (put (property "marks") "n" 1))
"#;

/// Reads of the entities the game started with through the machine's table of where
/// they lie (with the feature, read in line or by a few loads): a property of another
/// entity (two types, the property at different places in their layouts), a state, a
/// table in a property, the running entity's own property; read many times, then after
/// a write that copies an entity a snapshot shares, a failed transaction, a rollback,
/// and an entity deleted and another of the same name made. The same values, steps and
/// output after every send, on every tier.
#[test]
fn reads_of_entities_kept_where_they_lie_are_the_same_on_every_tier() {
    let sends = [
        "read to me with times 30",
        "lay to me with at \"c1\" s 1",
        "read to me with times 3",
        "lay to me with at \"c2\" s 2 fail true",
        "read to me with times 3",
        "lay to me with at \"c3\" s 3 undo true",
        "read to me with times 3",
        "lay to me with at \"c1\" s 4",
        "read to me with times 3",
        "swap to me",
        "read to me with times 30",
        "lay to me with at \"c2\" s 5",
        "read to me with times 3",
    ];
    let seen = same_sends(KEPT, &sends, Limits::default());
    let printed = |i: usize| format!("{:?}", seen[i].output);
    assert_eq!(
        printed(0),
        r#"[Print("(nil 0 nil 0 nil 0 \"post\" 7 nil 0) (nil nil nil \"default\")")]"#
    );
    assert_eq!(
        printed(2),
        r#"[Print("(1 \"lit\" 1 nil 0 nil 0 \"post\" 7 nil 0) (nil nil 1 \"lit\")")]"#
    );
    assert!(matches!(seen[3].status, Status::Failed(_)));
    assert_eq!(printed(4), printed(2));
    assert_eq!(
        printed(6),
        r#"[Print("(1 \"lit\" 1 nil 0 3 \"lit\" 3 \"post\" 7 nil 0) (3 nil 1 \"lit\")")]"#
    );
    assert_eq!(
        printed(8),
        r#"[Print("(nil 1 nil 0 3 \"lit\" 3 \"post\" 7 nil 0) (3 nil nil \"default\")")]"#
    );
    assert_eq!(
        printed(10),
        r#"[Print("(nil 1 nil 0 3 \"lit\" 3 \"post\" 7 \"post\" 7) (3 nil nil \"default\")")]"#
    );
    assert_eq!(
        printed(12),
        r#"[Print("(nil 1 5 \"lit\" 5 3 \"lit\" 3 \"post\" 7 \"post\" 7) (3 5 nil \"default\")")]"#
    );
}

/// Writes of a body's own property where the entity lies (the running entity written
/// again after a write made it the world's alone): undone by a rollback and a failure,
/// and never seen by a copy of the world taken since (a law that sends keeps one to put
/// back when it vetoes, after the message it sent has bumped the count again), nor by
/// one a join point keeps whose behaviour then writes. The same counts, steps and output
/// after every send, on every tier.
#[test]
fn writes_where_the_entity_lies_are_undone_and_unseen_by_copies() {
    let text = r#"
#entity cell
  #property n 0
  #state default
    #onMessage bump
      (update property "n" to (+ (property "n") 1))
    #onMessage guarded
      (update property "n" to (+ (property "n") 1000))
    #onMessage kept
      (update property "n" to (+ (property "n") 10))
#entity driver
  #state default
    #onMessage go
      (do
        (var i 0)
        (while (< i (attribute "times"))
          (do (send new message "bump" to "c") (var i (+ i 1)) end))
        (if (attribute "guard") (send new message "guarded" to "c"))
        (if (attribute "keep") (send new message "kept" to "c"))
        (var i 0)
        (while (< i 3) (do (send new message "bump" to "c") (var i (+ i 1)) end))
        (if (attribute "undo") (do (open checkpoint) (send new message "bump" to "c") (rollback "on purpose") end))
        (if (attribute "fail") (fail "on purpose"))
        (print (property "n" of "c"))
      end)
    #onMessage show
      (print (property "n" of "c"))
#instance c of cell
#instance d of driver
#law "Bump Then Veto" on guarded to cell in * is
  (do (send new message "bump" to (self)) (send new message "bump" to (self)) (return) end)
#law "Bump Then Keep" on kept to cell in * is
  (send new message "bump" to (self))
"#;
    let sends = [
        "go to d with times 5",
        "go to d with times 5 guard true",
        "go to d with times 2 undo true",
        "show to d",
        "go to d with times 4 fail true",
        "show to d",
        "go to d with times 1 guard true undo true",
        "show to d",
        "go to d with times 3",
        "go to d with times 2 keep true guard true",
        "go to d with times 2 keep true fail true",
        "go to d with times 1 keep true",
    ];
    let seen = same_sends(text, &sends, Limits::default());
    let printed: Vec<String> = seen.iter().map(|t| format!("{:?}", t.output)).collect();
    // The vetoed law's bumps are gone; a rollback keeps what came before its checkpoint.
    assert_eq!(printed[0], r#"[Print("8")]"#);
    assert_eq!(printed[1], r#"[Print("16")]"#);
    assert!(
        matches!(seen[2].status, Status::RolledBack { .. }),
        "{:?}",
        seen[2].status
    );
    assert_eq!(printed[3], r#"[Print("21")]"#);
    assert!(
        matches!(seen[4].status, Status::Failed(_)),
        "{:?}",
        seen[4].status
    );
    assert_eq!(printed[5], r#"[Print("21")]"#);
    assert_eq!(printed[7], r#"[Print("25")]"#);
    assert_eq!(printed[8], r#"[Print("31")]"#);
    // A behaviour at its join point (its law may change the world) writes after the law.
    assert_eq!(printed[9], r#"[Print("47")]"#);
    assert!(
        matches!(seen[10].status, Status::Failed(_)),
        "{:?}",
        seen[10].status
    );
    assert_eq!(printed[11], r#"[Print("62")]"#);
}

/// `not`, and `=` and `!=` of values of two kinds, in line on the fast tier (in a
/// function kept off the small loop, so that it runs as machine code with the feature):
/// the answers and steps the builtins give, for every pair of kinds (an integer equals
/// the float of its value; a collection first goes to the builtin, which counts the
/// comparison).
#[test]
fn not_and_comparisons_of_two_kinds_answer_the_same_on_every_tier() {
    let defs = r#"
#define cmp (a b) (list (= a b) (!= a b) (not a) (not (= a b)))
"#;
    let body = r#"
  (var kinds (list nil true false 0 1 1.0 2.5 "a" (str "a" "") "abc" (list 1) (list) (dict "k" 1) (new message "m")))
  (var same 0)
  (var out (list))
  (foreach a in kinds
    (foreach b in kinds
      (do
        (var r (cmp a b))
        (if (first r) (var same (+ same 1)))
        (var out (append out r))
      end)))
  (print same (cmp 1 1.0) (cmp "a" (str "a" "")) (cmp nil false) (cmp 0 nil) (cmp (list 1) 1))
  (length out)
"#;
    let (tx, bodies, replays) = same(defs, body, Limits::default());
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(
        format!("{:?}", tx.output),
        r#"[Print("18 (true false false false) (true false false false) (false true true true) (false true false true) (false true false true)")]"#
    );
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
}

/// Attributes whose keys were made at run time (`str`) are read by their names as the
/// interpreter reads them, where the compiled reads' guesses hit, where they miss, and
/// where the read found no such attribute last time, and keys written with the same
/// letters replace them. (A key made before its text was
/// interned, which the guess misses, is `attrs.rs`'s test.)
#[test]
fn attributes_keyed_by_texts_made_at_run_time_are_read_by_name() {
    let text = r#"
#entity box
  #state default
    #onMessage open
      (do
        (update message attribute (str "k" "ey") to 7)
        (print (attribute "key") (attribute "other"))
        (update message attribute "key" to 8)
        (print (attribute "key"))
        (update message attribute (str "ke" "y") to (+ (attribute "key") 1))
        (print (attribute "key") (attribute "other"))
      end)
    #onMessage late
      (print (attribute "late"))
      (if (attribute "write") (update message attribute (str "la" "te") to 5))
      (print (attribute "late"))
#instance b of box
#sideeffect "Reads It After" on open to box in * is
  (print (attribute "key") (attribute (str "o" "ther")))
"#;
    let sends = [
        "open to b with other 1",
        "open to b",
        "open to b with key 3",
        "late to b",
        "late to b with write true",
    ];
    let seen = same_sends(text, &sends, Limits::default());
    let printed: Vec<String> = seen.iter().map(|t| format!("{:?}", t.output)).collect();
    assert_eq!(
        printed[0],
        r#"[Print("7 1"), Print("8"), Print("9 1"), Print("9 1")]"#
    );
    assert_eq!(
        printed[1],
        r#"[Print("7 nil"), Print("8"), Print("9 nil"), Print("9 nil")]"#
    );
    // Not found by the read before: found after a key with its letters is written.
    assert_eq!(printed[3], r#"[Print("nil"), Print("nil")]"#);
    assert_eq!(printed[4], r#"[Print("nil"), Print("5")]"#);
}

/// Truth tests where the generated code knows the tag (a comparison's or a constant's
/// boolean, also where an `and` or `or` meets its operand) or answers them without a
/// second test (`(if (and a b) ...)`, `(if (or a b) ...)`, whose `and` goes straight to
/// the `if`'s way): the same answers and steps on every tier, for operands of every
/// kind, and the values an `and` or `or` drops or keeps (a property's list among them)
/// let go of: the list holds no count more after the transactions than before.
#[test]
fn truth_tests_answer_as_the_interpreter_does_and_let_their_operands_go() {
    let text = r#"
#define tests (a b)
  (var n 0)
  (if (and a b) (var n (+ n 1)))
  (if (or a b) (var n (+ n 2)))
  (if (and (= a b) (not b)) (var n (+ n 4)))
  (if (or (!= a b) (not a)) (var n (+ n 8)))
  (if (not (and a (< 1 2) b)) (var n (+ n 16)))
  (if (and (or a b) (or b a)) (var n (+ n 32)))
  (if (or (and a b) (and (not a) (not b))) (var n (+ n 64)))
  (if (contains "xy" (if a "x" else "z")) (var n (+ n 128)))
  (while (and (< n 1000) (or a (not b))) (var n (+ n 300)))
  (list n (and a b) (or a b) (not a) (not (not b)) (and (= a a) b) (or (= a b) a))
#entity box
  #property l (list 1 2 3)
  #state default
    #onMessage go
      (var kinds (list nil true false 0 "" "a" (str "a" "b") (list) (property "l") (dict)
                       (new message "m") (property "l")))
      (var out (list))
      (foreach a in kinds
        (foreach b in kinds
          (var out (append out (tests a b)))))
      (foreach a in kinds
        (do
          (if (and a (property "l")) (var out (append out 1)))
          (if (or (property "l") a) (var out (append out 2)))
          (if (not (property "l")) (var out (append out 3)))
        end))
      (print (length out) (first out) (nth out 37) (nth out 77) (nth out 143))
#instance x of box
"#;
    let (tx, bodies, replays) = same_transaction(text, "go to x", Limits::default());
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
    let printed = format!("{:?}", tx.output);
    assert!(
        printed.contains("Print(\"166 (1292 nil nil true false nil true)"),
        "{printed}"
    );
    go_again_and_again(text, &printed);
}

/// `go to x` delivered three times in one session on each tier: the output `printed`
/// each time, and as many counts of `x`'s list `l` after each as before the first.
fn go_again_and_again(text: &str, printed: &str) {
    for tier in [Tier::Interpreter, Tier::Fast] {
        let mut s = session(text, tier, Limits::default());
        let before = list_count(&s, "x", "l");
        for _ in 0..3 {
            let (tx, _, _) = deliver(&mut s, "go to x");
            assert_eq!(format!("{:?}", tx.output), printed, "{tier:?}");
            assert_eq!(list_count(&s, "x", "l"), before, "{tier:?}");
        }
    }
}

/// `(= x nil)`, `(!= nil x)` and the like, with the nil written in the code (which the
/// generated code answers by the tag where `x` is no collection and holds no count):
/// the same answers and steps on every tier for every kind of `x`, a long string made at
/// run time and a property's list among them, and the list let go of as before.
#[test]
fn comparisons_with_a_written_nil_answer_as_the_interpreter_does() {
    let text = r#"
#define nils (a)
  (list (= a nil) (= nil a) (!= a nil) (!= nil a) (if (= a nil) 1 else 2)
        (if (!= nil a) 3 else 4))
#entity box
  #property l (list 1 2 3)
  #state default
    #onMessage go
      (var long (str "a string made at run time, longer " "than the bytes of one step"))
      (var kinds (list nil true false 0 -1 1.5 "" "a" (str "a" "b") long (list) (list nil)
                       (property "l") (dict) (new message "m")))
      (var out (list))
      (foreach a in kinds (var out (append out (nils a))))
      (print out)
#instance x of box
"#;
    let (tx, bodies, replays) = same_transaction(text, "go to x", Limits::default());
    assert!(bodies >= 1, "the fast tier ran no body");
    assert_eq!(replays, 0);
    let printed = format!("{:?}", tx.output);
    let nil = "(true true false false 1 4)";
    let other = "(false false true true 2 3)";
    let expected = std::iter::once(nil)
        .chain(std::iter::repeat_n(other, 14))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        printed.contains(&format!("Print(\"({expected})\")")),
        "{printed}"
    );
    go_again_and_again(text, &printed);
}

/// Where paths meet, a local or an operand that holds a count on one path only (a
/// property's list taken on one branch, nil on the other) is let go of as one that may,
/// and so is a local a loop sets (on the loop's next round, and after it): the list holds
/// no count more after the transactions than before, whichever branches ran, on every
/// tier (and the same steps and output).
#[test]
fn values_held_on_one_path_only_are_let_go_where_paths_meet() {
    let text = r#"
#entity box
  #property l (list 1 2 3)
  #state default
    #onMessage go
      (var x nil)
      (var n 0)
      (if (attribute "take") (var x (property "l")) else (var n 1))
      (var x n)
      (var y (if (attribute "take") (property "l") else nil))
      (var z (if (attribute "take") nil else (property "l")))
      (var y (list y z x))
      (foreach v in (list 1 2)
        (if (= v 2) (var x (property "l")) else (var x v)))
      (foreach v in (list 1 2)
        (do
          (var u (property "l"))
          (if (= v 2) (var w (property "l")) else (var w v))
        end))
      (var w (length u))
      (print (length y) (if (attribute "take") (length (first y)) else (length (nth y 1))) x)
#instance b of box
"#;
    let sends = ["go to b with take true", "go to b with take false"];
    let all: Vec<&str> = sends.iter().cycle().take(6).copied().collect();
    same_sends(text, &all, Limits::default());
    for tier in [Tier::Interpreter, Tier::Fast] {
        let mut s = session(text, tier, Limits::default());
        let before = list_count(&s, "b", "l");
        for send in &all {
            let (tx, _, replays) = deliver(&mut s, send);
            assert_eq!(
                format!("{:?}", tx.output),
                "[Print(\"3 3 (1 2 3)\")]",
                "{tier:?}"
            );
            assert_eq!(replays, 0);
            assert_eq!(list_count(&s, "b", "l"), before, "{tier:?} {send}");
        }
    }
}
