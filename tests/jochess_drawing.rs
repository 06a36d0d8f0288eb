//! How games/jochess draws joChess's boards (`../shared/jochess` beside the project), through
//! the command line: the SVG of each board has one polygon per position at the file's own
//! coordinates, one disc per piece in its family's colour with its letter, and the status
//! line below the picture; the text view tells the families apart; the last move is
//! tinted; and in the REPL a piece is moved, a cannon fires and a pawn promotes by two
//! clicks, a click out of turn being refused by the laws.

#[path = "common/jochess.rs"]
mod jochess;
#[path = "common/reference.rs"]
mod reference;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use jochess::board_file;
use reference::root;

fn board_param(stem: &str) -> String {
    format!("board={}", board_file(stem).display())
}

/// `flexrules render games/jochess` on board `stem` with `args`: its output.
fn render(stem: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .arg("render")
        .arg(root().join("games/jochess"))
        .args(["--param", &board_param(stem)])
        .args(args)
        .output()
        .expect("flexrules runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// One `<g>` of the SVG: its owner, its id and what it holds.
struct Group {
    owner: String,
    id: String,
    body: String,
}

fn groups(svg: &str) -> Vec<Group> {
    let mut out = Vec::new();
    for part in svg.split("<g data-owner=\"").skip(1) {
        let (owner, rest) = part.split_once('"').unwrap();
        let rest = rest.strip_prefix(" data-id=\"").unwrap();
        let (id, rest) = rest.split_once('"').unwrap();
        let body = rest.split("</g>").next().unwrap().to_string();
        out.push(Group {
            owner: owner.into(),
            id: id.into(),
            body,
        });
    }
    out
}

/// The value of attribute `name` in `body` (the first occurrence).
fn attr<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    let start = body.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&body[start..start + body[start..].find('"')?])
}

/// The text of the `<text>` in `body` ("" for none).
fn text_of(body: &str) -> &str {
    body.split_once("<text")
        .and_then(|(_, t)| t.split_once('>'))
        .and_then(|(_, t)| t.split_once("</text>"))
        .map_or("", |(t, _)| t)
}

fn polygon_points(body: &str) -> Vec<f64> {
    attr(body, "points")
        .unwrap()
        .split([' ', ','])
        .map(|n| n.parse().unwrap())
        .collect()
}

/// What a board's SVG draws: positions (their polygons' corners), discs by fill, letters
/// by colour of disc, and the status line.
struct Drawing {
    cells: BTreeMap<String, Vec<f64>>,
    discs: BTreeMap<String, (String, String)>,
    letters: BTreeMap<String, usize>,
    status: (String, f64),
}

fn drawing(svg: &str) -> Drawing {
    let mut d = Drawing {
        cells: BTreeMap::new(),
        discs: BTreeMap::new(),
        letters: BTreeMap::new(),
        status: (String::new(), 0.0),
    };
    let mut letter_of = BTreeMap::new();
    for g in groups(svg) {
        match g.id.as_str() {
            "cell" => {
                assert!(g.body.contains("<polygon"), "{}", g.body);
                d.cells.insert(g.owner, polygon_points(&g.body));
            }
            "disc" if g.body.contains("<circle") => {
                d.discs.insert(
                    g.owner,
                    (attr(&g.body, "fill").unwrap().into(), String::new()),
                );
            }
            "piece" if !text_of(&g.body).is_empty() => {
                letter_of.insert(
                    g.owner,
                    (
                        text_of(&g.body).to_string(),
                        attr(&g.body, "fill").unwrap().to_string(),
                    ),
                );
            }
            "status" => {
                d.status = (
                    text_of(&g.body).into(),
                    attr(&g.body, "y").unwrap().parse().unwrap(),
                );
            }
            _ => {}
        }
    }
    for (owner, (letter, colour)) in letter_of {
        let disc = d
            .discs
            .get_mut(&owner)
            .unwrap_or_else(|| panic!("{owner} has the letter {letter} and no disc"));
        disc.1 = colour;
        *d.letters.entry(letter).or_default() += 1;
    }
    d
}

fn count_fills(d: &Drawing) -> BTreeMap<&str, usize> {
    let mut out = BTreeMap::new();
    for (fill, _) in d.discs.values() {
        *out.entry(fill.as_str()).or_default() += 1;
    }
    out
}

#[test]
fn the_hexagon_is_drawn_from_its_file() {
    let d = drawing(&render("3PlayerBoard", &[]));
    assert_eq!(d.cells.len(), 96);
    // The file's own coordinates: a1 is the quadrilateral the file gives it.
    assert_eq!(
        d.cells["a1"],
        [217.0, 674.0, 264.0, 674.0, 245.0, 624.0, 193.0, 633.0]
    );
    assert!(d.cells.values().all(|p| p.len() == 8));
    // 16 pieces a family, each in its family's colour (the file's colour scheme names
    // Black twice, the second time Red: Black is still drawn black).
    assert_eq!(d.discs.len(), 48);
    assert_eq!(
        count_fills(&d),
        BTreeMap::from([("black", 16), ("red", 16), ("white", 16)])
    );
    // Readable letters: white on black and red, black on white.
    for (owner, (fill, letter)) in &d.discs {
        let want = if fill == "white" { "black" } else { "white" };
        assert_eq!(letter, want, "the letter on {owner}'s {fill} disc");
    }
    let letters: Vec<(&str, usize)> = d.letters.iter().map(|(l, n)| (l.as_str(), *n)).collect();
    assert_eq!(
        letters,
        [
            ("B", 6),
            ("C", 6),
            ("K", 3),
            ("N", 6),
            ("P", 18),
            ("Q", 3),
            ("R", 6)
        ]
    );
    // White starts at the bottom (e1 is White's king).
    assert_eq!(d.discs["e1"].0, "white");
    // The status line below the picture (the file's Height is 700).
    assert_eq!(d.status.0, "P1 (White) to move");
    let bottom = d
        .cells
        .values()
        .flat_map(|p| p.iter().skip(1).step_by(2))
        .fold(0.0_f64, |a, &b| a.max(b));
    assert!(d.status.1 > bottom && d.status.1 > 700.0, "{:?}", d.status);
}

#[test]
fn the_square_board_and_the_circle_are_drawn() {
    let two = drawing(&render("2PlayerBoard", &[]));
    assert_eq!((two.cells.len(), two.discs.len()), (64, 32));
    assert_eq!(
        count_fills(&two),
        BTreeMap::from([("black", 16), ("white", 16)])
    );
    assert!(two.status.1 > 480.0);
    let circle = drawing(&render("3PlayerBoard_II", &[]));
    assert_eq!((circle.cells.len(), circle.discs.len()), (144, 48));
    assert_eq!(
        count_fills(&circle),
        BTreeMap::from([("black", 16), ("red", 16), ("white", 16)])
    );
    assert!(circle.status.1 > 840.0);
}

#[test]
fn the_last_move_is_tinted_and_the_pieces_follow() {
    let svg = render("3PlayerBoard", &["--play", "e2-e4,d7-d5,h11-h4"]);
    let d = drawing(&svg);
    assert!(!d.discs.contains_key("e2") && d.discs["e4"].0 == "white");
    // The cannon's shot: it stays on h11.
    assert_eq!(d.discs["h11"].0, "red");
    let gs = groups(&svg);
    let tint = |id: &str| gs.iter().find(|g| g.owner == "game" && g.id == id).unwrap();
    assert_eq!(attr(&tint("last-from").body, "opacity"), Some("0.55"));
    assert_eq!(polygon_points(&tint("last-from").body), d.cells["h11"]);
    assert_eq!(polygon_points(&tint("last-to").body), d.cells["h4"]);
    assert_eq!(d.status.0, "P1 (White) to move");
}

#[test]
fn the_text_view_tells_the_families_apart() {
    let text = render("3PlayerBoard", &["--format", "text"]);
    for king in ["(KO)", "(KX)", "(Kr)"] {
        assert_eq!(text.matches(king).count(), 1, "{king} in\n{text}");
    }
    assert_eq!(text.matches("(P").count(), 18, "{text}");
    assert!(text.trim_end().ends_with("P1 (White) to move"), "{text}");
}

/// A REPL session on board `stem` with `params`, fed `input`: what it printed.
fn repl(stem: &str, params: &[&str], input: &str) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flexrules"));
    cmd.arg("repl")
        .arg(root().join("games/jochess"))
        .args(["--param", &board_param(stem)]);
    for p in params {
        cmd.args(["--param", p]);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("flexrules runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn two_clicks_move_fire_and_promote() {
    let out = repl(
        "3PlayerBoard",
        &[],
        ":click e2 piece\n:click e4 cell\n\
         :click e4 piece\n:click e3 cell\n\
         :click d7 disc\n:click d5 cell\n\
         :click h11 piece\n:click h4 cell\n\
         (list (get (property \"piece\" of \"e4\") \"type\") (property \"piece\" of \"e2\") \
               (get (property \"piece\" of \"h11\") \"type\") (property \"turn\" of \"game\"))\n",
    );
    assert_eq!(out.matches("committed").count(), 3, "{out}");
    assert!(
        out.contains("the piece on e4 is P1's, and P2 is to move")
            && out.contains("vetoed by Move Your Own Piece"),
        "{out}"
    );
    assert!(
        out.contains("(\"PawnWhite\" nil \"CannonRedL\" \"P1\")"),
        "{out}"
    );

    // A pawn on the circle board promotes to a queen (the rules offer the bishop first).
    let out = repl(
        "3PlayerBoard_II",
        &["position=e1:KingWhite d5:PawnWhite"],
        ":click d5 piece\n:click e6 cell\n(get (property \"piece\" of \"e6\") \"type\")\n",
    );
    assert!(out.contains("\"QueenWhite\""), "{out}");
}
