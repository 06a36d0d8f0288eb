//! `flexrules disasm`'s listing agrees with the engine: a body that runs straight through
//! counts, as steps, the steps the listing gives its instructions (the plain sequences
//! under fused instructions apart: they run only in their place).

use std::path::Path;

use flexrules::compile::build_game;
use flexrules::compile::listing::listing;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::syntax::load::MemoryFs;

/// A behaviour without a branch or a loop: every instruction outside the plain sequences
/// of fused ones runs once, in order.
const GAME: &str = r#"
#define twice (x) (* x 2)
#entity node
  #property n 1
  #property total 0
  #state default
    #onMessage go
      (var a (attribute "k"))
      (var b (+ a 1))
      (var c (twice (+ b (property "n"))))
      (var d (list a b c))
      (update property "total" to (+ (length d) c))
      (property "total")
#instance e of node
"#;

/// The steps of the body named `name` when it runs straight through, as its listing gives
/// them: the sum over the instructions that are not indented under a fused one.
fn straight_steps(text: &str, name: &str) -> u64 {
    let mut steps = 0;
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            inside = line.starts_with(&format!("{name} ("));
            continue;
        }
        let Some(rest) = line.get(8..) else { continue };
        let is_instruction = line[..6].trim().parse::<usize>().is_ok();
        if inside && is_instruction && !rest.starts_with(' ') {
            let weight: u64 = line
                .split_whitespace()
                .rev()
                .nth(1)
                .and_then(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("no step count in {line:?}"));
            steps += weight;
        }
    }
    steps
}

#[test]
fn a_straight_body_counts_the_steps_its_listing_gives() {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", GAME);
    let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
    let text = listing(&built.game, &built.sources, &[], None).expect("a listing");
    let go = straight_steps(&text, "behaviour node/default/go");
    let twice = straight_steps(&text, "function twice");
    assert!(go > 10 && twice > 1, "{text}");
    // Some instruction of the behaviour is fused, so the count is not just the lines.
    assert!(
        text.lines()
            .any(|l| l.len() > 8 && l[8..].starts_with("  ")),
        "{text}"
    );

    let (mut session, _) =
        Session::start(built.game.clone(), &SessionOptions::default()).expect("starts");
    let (to, msg) = parse_send("go to e with k 4").expect("a send");
    let tx = session.deliver(to, msg);
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    assert_eq!(tx.steps, go + twice, "{text}");
}
