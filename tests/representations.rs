//! Representations through the embedding API: the SVG of each view, the canvas a vetoed
//! or failed move leaves, and moves tried for legal-move lists drawing nothing.

use std::path::Path;

use flexrules::compile::build_game;
use flexrules::repr::{svg, text};
use flexrules::runtime::canvas::View;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::value::Message;
use flexrules::symbol::Symbol;
use flexrules::syntax::load::DiskFs;

fn start(game: &str) -> Session {
    let built = match build_game(&DiskFs, Path::new(game)) {
        Ok(b) => b,
        Err(e) => panic!("{game} does not build: {e:?}"),
    };
    let (mut session, _) = match Session::start(built.game, &SessionOptions::default()) {
        Ok(s) => s,
        Err(e) => panic!("{game} does not start: {e}"),
    };
    if let Err(e) = session.watch() {
        panic!("{game} does not draw: {}", e.message);
    }
    session
}

fn message(label: &str) -> Message {
    Message {
        label: Symbol::intern(label),
        attrs: Default::default(),
    }
}

#[test]
fn private_graphics_only_in_their_players_view() {
    let mut s = start("tests/inputs/repl/games/drawing");
    s.deliver(Symbol::intern("one"), message("hide"));
    let canvas = &s.world().canvas;
    let public = svg::render(canvas, &View::Public);
    let zero = svg::render(canvas, &View::parse("0"));
    let one = svg::render(canvas, &View::parse("1"));
    assert!(!public.contains("secret"), "{public}");
    assert!(
        zero.contains(">secret 1<") && !zero.contains(">secret 0<"),
        "{zero}"
    );
    assert!(
        one.contains(">secret 0<") && !one.contains(">secret 1<"),
        "{one}"
    );
    assert!(!text::render(canvas, &View::Public).contains("secret"));
    insta::assert_snapshot!("drawing-view-0.svg", zero);
}

#[test]
fn vetoed_rolled_back_and_failed_moves_leave_the_drawing() {
    let mut s = start("games/awele");
    let before = s.world().clone();
    // Player 1 may not move first: the law vetoes it.
    let tx = s.deliver(Symbol::intern("a"), message("startSeeding"));
    assert!(!tx.status.committed());
    assert!(s.world().same_as(&before));
    assert!(std::rc::Rc::ptr_eq(&s.world().canvas, &before.canvas));
    let mut s = start("tests/inputs/repl/games/drawing");
    let before = s.world().clone();
    for label in ["bumpThenRollback", "fail"] {
        s.deliver(Symbol::intern("one"), message(label));
        assert!(
            s.world().canvas.same_as(&before.canvas),
            "{label} changed the drawing"
        );
    }
}

#[test]
fn trying_moves_draws_nothing() {
    let mut s = start("games/awele");
    let moves = match s.try_candidates() {
        Ok(tried) => {
            assert!(tried.failed.is_empty(), "{:?}", tried.failed);
            tried.legal
        }
        Err(e) => panic!("{}", e.message),
    };
    assert_eq!(moves.len(), 6);
    for (_, world) in moves {
        assert!(!world.canvas.active && world.canvas.is_empty());
    }
    // Playing one for real redraws the board.
    let c = s.world().clone();
    s.deliver(Symbol::intern("C"), message("startSeeding"));
    assert!(!s.world().canvas.same_as(&c.canvas));
    assert!(text::render(&s.world().canvas, &View::Public).contains("( 0 )"));
}

#[test]
fn awele_svg() {
    let mut s = start("games/awele");
    s.deliver(Symbol::intern("C"), message("startSeeding"));
    insta::assert_snapshot!(
        "awele-after-C.svg",
        svg::render(&s.world().canvas, &View::Public)
    );
}

#[test]
fn go_svg() {
    let built = match build_game(&DiskFs, Path::new("games/go")) {
        Ok(b) => b,
        Err(e) => panic!("games/go does not build: {e:?}"),
    };
    let options = SessionOptions {
        tier: Default::default(),
        params: vec![("size".into(), flexrules::runtime::value::Value::Int(5))],
        ..SessionOptions::default()
    };
    let (mut s, _) = match Session::start(built.game, &options) {
        Ok(s) => s,
        Err(e) => panic!("games/go does not start: {e}"),
    };
    if let Err(e) = s.watch() {
        panic!("games/go does not draw: {}", e.message);
    }
    for point in ["c3", "b2", "d2"] {
        s.deliver(Symbol::intern(point), message("placeStone"));
    }
    insta::assert_snapshot!("go-5x5.svg", svg::render(&s.world().canvas, &View::Public));
}

#[test]
fn chess_svg() {
    let mut s = start("games/chess");
    for (from, to) in [("e2", "e4"), ("f7", "f6"), ("d1", "h5")] {
        let mut m = message("move");
        m.attrs.insert(
            flexrules::runtime::value::Key::sym(Symbol::intern("to")),
            flexrules::runtime::value::Value::sym(Symbol::intern(to)),
        );
        s.deliver(Symbol::intern(from), m);
    }
    insta::assert_snapshot!(
        "chess-check.svg",
        svg::render(&s.world().canvas, &View::Public)
    );
}

/// A representation reads its own properties and, where it has none of that name, its
/// entity's: for an instance, for an entity made at run time, and after the entity's
/// property changed.
#[test]
fn representations_read_their_entitys_properties() {
    let mut s = start("tests/inputs/repl/games/drawing");
    let text_of = |s: &Session, owner: &str, id: &str| {
        s.world()
            .canvas
            .find(Symbol::intern(owner), Symbol::intern(id))
            .and_then(|g| g.attr("text"))
            .map(|v| v.to_text())
    };
    assert_eq!(text_of(&s, "one", "box").as_deref(), Some("0"));
    s.deliver(Symbol::intern("one"), message("bump"));
    assert_eq!(text_of(&s, "one", "box").as_deref(), Some("1"));
    let mut spawn = message("spawn");
    spawn.attrs.insert(
        flexrules::runtime::value::Key::sym(Symbol::intern("name")),
        flexrules::runtime::value::Value::str("three"),
    );
    assert!(s.deliver(Symbol::intern("one"), spawn).status.committed());
    // The new counter's representation placed its box by its entity's "owner" (2).
    let x = s
        .world()
        .canvas
        .find(Symbol::intern("three"), Symbol::intern("box"))
        .and_then(|g| g.attr("x"))
        .cloned();
    assert_eq!(x, Some(flexrules::runtime::value::Value::Int(400)));
    assert_eq!(text_of(&s, "three", "secret").as_deref(), Some("secret 0"));
}

/// A text centred near the left edge is moved right on the text board, never cut.
#[test]
fn a_text_at_the_left_edge_is_shown_whole() {
    let s = start("tests/inputs/repr/left-edge.fr");
    let board = text::render(&s.world().canvas, &View::Public);
    assert_eq!(board, "SECRET-9");
}

/// Shapes drawn only by colour show on the text board: discs as `X` (black or dark), `O`
/// (white or light) or the colour's first letter, dark areas dotted with `:`, light ones
/// blank; a fill never covers a text, and an invisible shape (opacity 0) is not filled.
#[test]
fn filled_shapes_show_on_the_text_board() {
    let s = start("tests/inputs/repr/filled-discs.fr");
    let board = text::render(&s.world().canvas, &View::Public);
    assert_eq!(
        board,
        " (XX)(OO)(rr)(XX)(  )\n\n+---+---+ +-------+ \\----//\n|:::|   | |:kept::|  \\::/   (  )\n+---+---+ +-------+   \\\\"
    );
}
