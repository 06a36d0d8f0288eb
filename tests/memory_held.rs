//! Memory counted by what is held: entities created, graphics drawn and lines of output
//! buffered count against a transaction's memory budget (`--max-memory`) at about what
//! they take, and the positions a REPL keeps for undo are bounded by its history budget
//! (`--max-history-memory`). Each probe ends in a clear refusal with the game as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

use flexrules::repl::{Repl, ReplOptions};
use flexrules::runtime::vm::Limits;

/// A fresh directory holding `game.fr` with `text`.
fn game(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flexrules-held-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    std::fs::write(dir.join("game.fr"), text).expect("game written");
    dir
}

fn repl(dir: &Path, max_memory: u64) -> Repl {
    Repl::new(ReplOptions {
        tier: Default::default(),
        game: dir.to_path_buf(),
        seed: 0,
        params: Vec::new(),
        limits: Limits {
            max_memory,
            ..Limits::default()
        },
        rules: Vec::new(),
        color: false,
    })
    .unwrap_or_else(|e| panic!("the game opens: {}", e.text))
}

fn say(r: &mut Repl, line: &str) -> String {
    r.handle(line).text
}

/// A move stores a fresh list of a million integers (16 MB counted) in a property.
const BIG: &str = r#"#entity cell
  #property big 0
  #property n 0
  #state default
    #onMessage go
      (update property "n" to (+ (property "n") 1))
#instance c of cell
#sideeffect on go to cell in * is
  (update property "big" of "c" to (range (- 1000000 (property "n" of "c"))))
"#;

#[test]
fn the_history_lets_the_oldest_positions_go_past_its_budget() {
    let dir = game("history", BIG);
    let mut r = repl(&dir, Limits::default().max_memory);
    r.set_history_budget(40_000_000);
    for _ in 0..6 {
        assert!(say(&mut r, "send go to c").ends_with("committed"));
    }
    // About 16 MB a move: the two newest positions fit, the older ones were let go.
    assert_eq!(say(&mut r, ":undo"), "undone; at change 5");
    let refused = say(&mut r, ":undo");
    assert_eq!(
        refused,
        "error: cannot undo: undo stops at change 5; the positions before it were let go to \
         keep the history within its memory budget of 40000000 bytes (--max-history-memory)"
    );
    let goto = say(&mut r, ":goto 1");
    assert!(
        goto.starts_with("error: cannot go to change 1: undo stops at change 5"),
        "{goto}"
    );
    assert_eq!(say(&mut r, "(property \"n\" of \"c\")"), "5");
    assert!(say(&mut r, ":history").contains("   1. send go to c -> committed  (let go)"));
    // Redo still works, and so does a new move from here.
    assert_eq!(say(&mut r, ":redo"), "redone; at change 6");
    assert!(say(&mut r, "send go to c").ends_with("committed"));
    assert_eq!(say(&mut r, "(property \"n\" of \"c\")"), "7");
}

#[test]
fn a_position_larger_than_the_whole_budget_is_refused() {
    let dir = game("too-big", BIG);
    let mut r = repl(&dir, Limits::default().max_memory);
    r.set_history_budget(1_000_000);
    let refused = say(&mut r, "send go to c");
    assert!(
        refused.starts_with("refused: keeping this position for undo would take about 16"),
        "{refused}"
    );
    assert!(
        refused.ends_with(
            "bytes, more than the history's memory budget of 1000000 bytes; the game is as it \
             was before it (raise the budget with --max-history-memory)"
        ),
        "{refused}"
    );
    assert_eq!(say(&mut r, "(property \"n\" of \"c\")"), "0");
    assert_eq!(say(&mut r, ":history"), "no changes yet");
}

/// What a transaction counts for a thing it makes: the smallest `--max-memory` under
/// which the move commits, found by bisection.
fn counted(dir: &Path, line: &str) -> u64 {
    let (mut lo, mut hi) = (0u64, 1u64 << 32);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let mut r = repl(dir, mid);
        if say(&mut r, line).ends_with("committed") {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[test]
fn entities_created_count_against_the_transaction_memory() {
    let make = |n: usize| {
        format!(
            "#entity cell\n  #state default\n    #onMessage go\n      \
             (foreach i in (range {n}) (new entity (str \"e\" i) of \"cell\"))\n#instance c of cell\n"
        )
    };
    let one = counted(&game("one-entity", &make(1)), "send go to c");
    let many = counted(&game("entities", &make(1001)), "send go to c");
    // About 290 bytes of resident memory an entity (measured); counted within a factor 2.
    let each = (many - one) / 1000;
    assert!((200..600).contains(&each), "{each} bytes an entity");
    // Past the budget: a clear refusal, and no entity was made.
    let dir = game("entities-refused", &make(100_000));
    let mut r = repl(&dir, 10_000_000);
    let out = say(&mut r, "send go to c");
    assert!(
        out.contains("memory limit reached: the transaction made more than 10000000 bytes"),
        "{out}"
    );
    assert_eq!(say(&mut r, "(length (entities of \"cell\"))"), "1");
}

#[test]
fn lines_of_output_count_what_they_hold() {
    let dir = game(
        "print",
        "#entity cell\n  #state default\n    #onMessage go\n      \
         (while true (print \"x\"))\n#instance c of cell\n",
    );
    let mut r = repl(&dir, 1_000_000);
    let out = say(&mut r, "send go to c");
    let lines = out.lines().filter(|l| *l == "print: x").count();
    // 66 bytes counted a one-byte line (about 63 held, measured).
    assert_eq!(lines, 1_000_000 / 66);
    assert!(out.contains("memory limit reached"), "{out}");
}

#[test]
fn graphics_drawn_count_against_the_transaction_memory() {
    let dir = game(
        "canvas",
        r#"#entity cell
  #property n 0
  #state default
    #onMessage go
      (update property "n" to (+ (property "n") 1))
#instance c of cell
#representation cell
  #state default
    #onMessage init
      (observe "n" notify "changed")
    #onMessage changed
      (foreach i in (range 1000000) (new graphic (str (attribute "value") "-" i) with "shape" "circle" "r" 18))
"#,
    );
    let mut r = repl(&dir, 10_000_000);
    let out = say(&mut r, "send go to c");
    assert!(out.contains("memory limit reached"), "{out}");
    assert_eq!(r.canvas().graphics.len(), 0);
    assert_eq!(say(&mut r, "(property \"n\" of \"c\")"), "0");
}

/// The largest resident set of the children this process waited for, in bytes.
fn children_peak() -> u64 {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

/// `(while true (print "x"))` under `run --json` with the default limits: the
/// transaction stops at its memory budget, the JSON document is refused, and the process
/// stays far below 2 GB (it reached 14.8 GB when lines were counted by their bytes).
#[test]
fn an_endless_print_under_run_json_stays_small() {
    let dir = game(
        "print-json",
        "#entity cell\n  #state default\n    #onMessage go\n      \
         (while true (print \"x\"))\n#instance c of cell\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(["run", "--json", "--send", "go to c"])
        .arg(&dir)
        .output()
        .expect("flexrules runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("{\"error\":\"the JSON document would be larger than 64 MB:"),
        "{stdout}"
    );
    assert!(stdout.contains("lines of output take about"), "{stdout}");
    let peak = children_peak();
    assert!(peak < 1_500_000_000, "peak {peak} bytes");
}

/// A representation that draws one graphic, then sets 1000 of its attributes: each to a
/// key of its own (`fresh`), or all to the same key (the keys made alike).
fn attributes_game(name: &str, fresh: bool) -> PathBuf {
    let key = if fresh {
        "(+ 1000 i)"
    } else {
        "(+ 1000 (* i 0))"
    };
    game(
        name,
        &format!(
            r#"#entity cell
  #property n 0
  #state default
    #onMessage go
      (update property "n" to (+ (property "n") 1))
#instance c of cell
#representation cell
  #state default
    #onMessage init
      (new graphic "g" with "shape" "circle")
      (observe "n" notify "changed")
    #onMessage changed
      (foreach i in (range 1000) (update graphic "g" attribute (str "a" {key}) to i))
"#
        ),
    )
}

#[test]
fn attributes_added_to_a_graphic_count_against_the_transaction_memory() {
    let fresh = counted(&attributes_game("attrs-fresh", true), "send go to c");
    let same = counted(&attributes_game("attrs-same", false), "send go to c");
    // 32 bytes an attribute added, as `new graphic` counts its attributes; setting one
    // again adds nothing.
    assert_eq!(fresh - same, 999 * 32, "{fresh} against {same}");
}
