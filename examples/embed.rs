//! Embedding flexrules: load a game as a library, send messages, read properties, play
//! moves by name and by index, undo.
//!
//! Run with `cargo run --example embed`.

use flexrules::api::{Game, Match};
use flexrules::runtime::value::Value;

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
    let game = Game::from_source("counter.fr", GAME).unwrap_or_else(|e| {
        eprint!("{}", e.render(false));
        std::process::exit(1);
    });
    let mut counter = game.start(0).expect("the game starts");
    for by in [3, 50, 4] {
        match counter.send("c", "add", &[("by", Value::Int(by))]) {
            Ok(played) => println!("add {by}: {}", played.transaction.status.summary()),
            Err(refused) => println!("add {by}: {refused}"),
        }
    }
    println!("count = {}", shown(&counter, "c", "count"));
    counter.undo();
    println!("after undo, count = {}", shown(&counter, "c", "count"));

    // A game with moves: Awele, bundled with flexrules.
    let awele =
        Game::load(concat!(env!("CARGO_MANIFEST_DIR"), "/games/awele")).expect("Awele loads");
    let mut m = awele.start(1).expect("Awele starts");
    let moves = m.legal_moves().expect("Awele lists its moves");
    let names: Vec<&str> = moves.iter().map(|mv| mv.name.as_str()).collect();
    println!(
        "to move: {:?}; legal: {}",
        m.players_to_move(),
        names.join(" ")
    );
    // An index is the same in every process: record it, send it, play it elsewhere.
    let index = moves[2].index;
    let played = m.play_index(index).expect("a legal move plays");
    println!("played {} (index {index})", played.name);
    let mut explore = m.fork();
    let reply = explore.legal_moves().expect("moves")[0].name.clone();
    explore.play(&reply).expect("a legal move plays");
    println!(
        "the fork played {} move(s), the match {}",
        explore.moves_played(),
        m.moves_played()
    );
}

/// The property `name` of the entity `entity`, for showing.
fn shown(m: &Match, entity: &str, name: &str) -> String {
    m.property(entity, name)
        .map_or("none".to_string(), |v| v.to_string())
}
