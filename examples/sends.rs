//! A profiling driver for the cost of one transaction around one send: the user delivers
//! `tick` to `a` N times (default 100,000), each delivery its own transaction.
//!
//! Run with `cargo run --release --example sends -- 100000`, or under
//! `valgrind --tool=callgrind` to count instructions per transaction.

use flexrules::compile::build_game;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::{Attrs, Message};
use flexrules::symbol::Symbol;
use flexrules::syntax::load::MemoryFs;

const GAME: &str = r#"
#entity player
  #property left 0
  #state default
    #onMessage tick
      (update property "left" to (- (property "left") 1))
#instance a of player
"#;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut fs = MemoryFs::new();
    fs.insert("sends.fr", GAME);
    let built = match build_game(&fs, "sends.fr".as_ref()) {
        Ok(b) => b,
        Err(e) => {
            eprint!("{}", e.render_plain());
            std::process::exit(1);
        }
    };
    let mut session = match Session::start(built.game, &SessionOptions::default()) {
        Ok((s, _)) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let (a, tick) = (Symbol::intern("a"), Symbol::intern("tick"));
    for _ in 0..n {
        let tx = session.deliver(
            a,
            Message {
                label: tick,
                attrs: Attrs::new(),
            },
        );
        if !matches!(tx.status, Status::Committed(_)) {
            eprintln!("tick did not commit");
            std::process::exit(1);
        }
    }
    println!("{} transactions", n);
}
