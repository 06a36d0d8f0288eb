//! Strings made at run time are freed: a game that builds millions of distinct strings, in
//! many transactions, neither grows the process-wide symbol table nor keeps their memory.
//!
//! This file holds one test so that the process's resident memory, read from
//! `/proc/self/statm`, measures this game alone.

use std::path::Path;

use flexrules::compile::build_game;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::vm::Limits;
use flexrules::symbol::Symbol;
use flexrules::syntax::load::MemoryFs;

/// Each `go` builds `PER` distinct strings of about 100 bytes (never built before: they
/// hold the transaction's number), uses some as dictionary keys and keeps the last one in a
/// property, through every builtin that makes strings.
const GAME: &str = r#"
#entity x
  #property n 0
  #property last ""
  #state default
    #onMessage go
      (var n (property "n"))
      (var d (dict))
      (foreach i in (range 1000) (do
        (var s (str "made-at-run-time-" n "-" i "-................................................................"))
        (var d (put d (upper (lower s)) i))
        (var parts (split s "-"))
        (var s (join parts "+"))
        (var c (chars (str n i)))
        (update property "last" to s)
        end))
      (if (!= (length d) 1000) (fail "keys were merged"))
      (update property "n" to (+ n 1))

#instance x of x
"#;

const TRANSACTIONS: usize = 1_000;

/// Resident memory of this process, in bytes (Linux); `None` elsewhere.
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn millions_of_strings_made_at_run_time_are_freed() {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", GAME);
    let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
    let options = SessionOptions {
        tier: Default::default(),
        seed: 1,
        params: vec![],
        limits: Limits::default(),
        trace: false,
    };
    let (mut session, _) = Session::start(built.game, &options).expect("the game starts");
    let mut go = || {
        let (to, msg) = parse_send("go to x").expect("a send");
        let tx = session.deliver(to, msg);
        assert!(
            matches!(tx.status, Status::Committed(_)),
            "{}",
            tx.status.summary()
        );
    };
    // A first few transactions intern what running the game interns once (nothing made
    // by `str` and friends should be among it) and warm the allocator.
    for _ in 0..20 {
        go();
    }
    let symbols = Symbol::count();
    let memory = resident();
    for _ in 20..TRANSACTIONS {
        go();
    }
    // Four strings of about 100 bytes, five pieces of `split` and a few characters per
    // iteration, 1,000 iterations, 980 transactions: about 10 million strings and 400 MB
    // of text, had they been kept.
    assert_eq!(
        Symbol::count(),
        symbols,
        "strings made at run time were interned"
    );
    if let (Some(before), Some(after)) = (memory, resident()) {
        let grown = after.saturating_sub(before);
        eprintln!(
            "resident memory: {} MB, then {} MB",
            before >> 20,
            after >> 20
        );
        assert!(
            grown < 64 << 20,
            "resident memory grew by {} MB",
            grown >> 20
        );
    }
}
