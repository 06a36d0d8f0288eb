//! Embedding flexrules: load a game as a library, send messages, read properties.
//!
//! Run with `cargo run --example embed`.

use flexrules::compile::build_game;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::value::{Attrs, Message};
use flexrules::symbol::Symbol;
use flexrules::syntax::load::MemoryFs;

const GAME: &str = r#"
#entity counter
  #property count 0
  #state default
    #onMessage add
      (update property "count" to (+ (property "count") (attribute "by")))
#instance c of counter
#law "Small Steps" on add to counter in default is
  (if (> (attribute "by") 10) (return))
"#;

fn main() {
    let mut fs = MemoryFs::new();
    fs.insert("counter.fr", GAME);
    let built = match build_game(&fs, "counter.fr".as_ref()) {
        Ok(b) => b,
        Err(e) => {
            eprint!("{}", e.render_plain());
            std::process::exit(1);
        }
    };
    let (mut session, _setup) =
        Session::start(built.game, &SessionOptions::default()).expect("the game starts");

    for by in [3, 50, 4] {
        let mut attrs = Attrs::new();
        attrs.insert(
            flexrules::runtime::value::Key::sym(Symbol::intern("by")),
            flexrules::runtime::value::Value::Int(by),
        );
        let tx = session.deliver(
            Symbol::intern("c"),
            Message {
                label: Symbol::intern("add"),
                attrs,
            },
        );
        println!("add {by}: {}", tx.status.summary());
    }

    let game = session.game.clone();
    let id = session
        .world()
        .lookup(Symbol::intern("c"))
        .expect("c exists");
    let counter = session.world().entity(id).expect("c is alive");
    let count = counter.property(&game, Symbol::intern("count"));
    println!(
        "count = {}",
        count.map_or("none".to_string(), |v| v.to_string())
    );
}
