//! Robustness of the whole front end (lexer, reader, lowering, loader, checker and the
//! ariadne renderer) against arbitrary and almost-valid input.
//!
//! Properties checked on every input:
//! - nothing panics (no stack overflow, no out-of-range slicing);
//! - every diagnostic's primary span and note spans name a loaded file and lie inside its
//!   text (`start <= end <= len`), on UTF-8 character boundaries;
//! - rendering all the diagnostics with `render_plain` does not panic.
//!
//! Inputs are bounded in size so that a hang shows up as this test not finishing rather
//! than through a wall-clock assertion. Each property runs 10,000 cases by default; set
//! `PROPTEST_CASES` to run more (or fewer). Failures are not persisted to a regressions
//! file: a failing input found here belongs in a named regression test below.

use std::path::Path;

use flexrules::compile::{CheckOptions, Checked, check_game};
use flexrules::diagnostic::{Diagnostic, render_plain};
use flexrules::syntax::load::MemoryFs;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;

const AWELE_GAME: &str = include_str!("../games/mini-awele/game.fr");
const AWELE_LAW: &str = include_str!("../games/mini-awele/laws/allow-only-current-player.law");
const AWELE_SE: &str = include_str!("../games/mini-awele/side-effects/check-winning-condition.se");
const AWELE_REPR: &str = include_str!("../games/mini-awele/representation.fr");
const AWELE_LAW_PATH: &str = "laws/allow-only-current-player.law";
const AWELE_SE_PATH: &str = "side-effects/check-winning-condition.se";

/// A game exercising the directives and forms mini-awele does not use.
const SNIPPET_FORMS: &str = r#"; every directive and most forms
#param size 3
#param label "go"

#define opponent (p) (- 1 p)
#define clamp (x lo hi) (max lo (min x hi))
#define pick (xs) (do (var n (length xs)) (if (> n 0) (nth xs (random n)) else nil) end)

#entity piece
  #property owner 0
  #property moves (list)
  #state idle
    #onMessage move
      (do
        (var to (attribute "to"))
        (switch (attribute "kind")
          (case "slide" (update property "moves" to (append (property "moves") to)))
          (case "jump" (changeState "jumped"))
          (default (rollback "unknown move kind")))
        (open checkpoint)
        (new property "touched" as true)
        (return (length (property "moves")))
      end)
  #state jumped
    #onMessage move
      (do
        (var i 0)
        (while (< i 3) (var i (+ i 1)))
        (foreach k in (keys (dict "a" 1 "b" 2)) (print k (get (dict "a" 1) k 0)))
        (changeState "idle")
      end)

#entity king
  #extends piece
  #property royal true
  #state idle
    #onMessage check
      (send (new message "move" with "to" 3 "kind" "slide") to (self))

#entity game
  #property turn 0
  #state default
    #onMessage next
      (update property "turn" to (opponent (property "turn")))
    #onMessage over
      (finish with "winner" (attribute "winner") "reason" "resign")

#instance "k1" of king with "owner" 1
#instance "p1" of piece with "owner" 0 "moves" (list 1 2)
#board "8x8" of piece

#law "No Moves While Jumped" on move to piece in jumped is (do (if (= (state) "jumped") (return)) end)
#law on * to king in * is
  (var who (sender))
  (if (= who "nobody") (return))
#sideeffect on next to game in "default" is (do (notify (str "turn " (property "turn"))) end)

#representation piece
  #state idle
    #onMessage init
      (do
        (new graphic "g" with "shape" "circle" "r" 10)
        (update graphic "g" attribute "fill" to "red")
        (observe "owner" notify "redraw")
        (on "g" clicked notify (new message "move" with "to" 1 "kind" "slide"))
        (on "g" clicked emit "picked" with "g")
      end)
    #onMessage redraw
      (delete graphic "g")

#setup
  (do
    (new entity "p2" of "piece" with "owner" 1)
    (send new message "move" to "p2" with "to" (clamp 5 0 3) "kind" "jump")
    (var s (wait signal "picked"))
    (var m (match "a" in (dict "a" 1)))
    (var l (label of (new message "x")))
    (var t (type of "p2"))
    (var st (state of "p2"))
    (var es (entities of "piece"))
    (delete entity "p2")
    (print s m l t st es (param "size") -2.5 (and true (or false nil)) (not true))
  end)

#actions
  (concat (list (list "p1" (new message "move" with "to" 1 "kind" "slide" "name" "p1-1"))))
"#;

/// A game split over `#include`d files (loaded as a directory).
const SNIPPET_INCLUDE_MAIN: &str = r#"#include "entities/cell.fr"
#include "entities/cell.fr"
#board ring 4 of cell named "c"
#law "Stay Put" on poke to cell in * is "rules/stay.law"
#sideeffect on poke to c0 in * is "rules/echo.se"
#setup (send new message "poke" to "c0" with "n" 1)
"#;
const SNIPPET_INCLUDE_CELL: &str = r#"#include "../shared/util.fr"
#entity cell
  #property n 0
  #state default
    #onMessage poke
      (update property "n" to (twice (attribute "n")))
"#;
const SNIPPET_INCLUDE_UTIL: &str = "#define twice (x) (* 2 x)\n";
const SNIPPET_STAY_LAW: &str = "(if (> (attribute \"n\") 10)\n    (return))\n";
const SNIPPET_ECHO_SE: &str = "(print \"poked\" (property \"n\"))\n(notify \"ok\")\n";

/// Bounded sizes: big enough to reach every phase, small enough to keep 10,000 cases fast.
const MAX_RANDOM_BYTES: usize = 256;
const MAX_MUTATED_LEN: usize = 16 * 1024;

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------------------
// Running the front end and checking its output.

/// Load and check the single game file `g.fr` holding `text`.
fn check_single(text: &str) -> Checked {
    let mut fs = MemoryFs::new();
    fs.insert("g.fr", text);
    check_game(&fs, Path::new("g.fr"), &CheckOptions::default())
        .expect("g.fr exists in the MemoryFs, so the game opens")
}

/// Load and check the game directory `game/` made of `files` (paths relative to it).
fn check_dir(files: &[(&str, String)]) -> Checked {
    let mut fs = MemoryFs::new();
    for (path, text) in files {
        fs.insert(Path::new("game").join(path), text.as_str());
    }
    check_game(&fs, Path::new("game"), &CheckOptions::default())
        .expect("game/game.fr exists in the MemoryFs, so the game opens")
}

/// The properties every front-end result must have. Returns the rendering.
fn assert_sound(checked: &Checked) -> String {
    assert_sound_rendering(checked, usize::MAX)
}

/// [`assert_sound`], rendering only the first `render_limit` diagnostics and any
/// `nesting-too-deep` (ariadne prints each diagnostic's whole source line, so a
/// 100,000-character line rendered hundreds of times costs seconds and tests nothing new).
fn assert_sound_rendering(checked: &Checked, render_limit: usize) -> String {
    let sources = &checked.loaded.sources;
    let texts: Vec<(String, &str)> = sources
        .files()
        .map(|(_, f)| (f.path.display().to_string(), &*f.text))
        .collect();
    let check_span = |span: flexrules::source::Span, what: &str, code: &str| {
        let (path, text) = texts.get(span.file.0 as usize).unwrap_or_else(|| {
            panic!(
                "{code}: {what} span names file {} but only {} are loaded",
                span.file.0,
                texts.len()
            )
        });
        let (start, end) = (span.start as usize, span.end as usize);
        assert!(
            start <= end && end <= text.len(),
            "{code}: {what} span {start}..{end} outside {path} (length {})",
            text.len()
        );
        assert!(
            text.is_char_boundary(start) && text.is_char_boundary(end),
            "{code}: {what} span {start}..{end} not on character boundaries in {path}"
        );
    };
    for d in &checked.diagnostics {
        check_span(d.span, "primary", d.code);
        for note in &d.notes {
            check_span(note.span, "note", d.code);
        }
    }
    let renderable: Vec<Diagnostic> = checked
        .diagnostics
        .iter()
        .enumerate()
        .filter(|&(i, d)| i < render_limit || d.code == "nesting-too-deep")
        .map(|(_, d)| d.clone())
        .collect();
    let rendered = render_plain(sources, &renderable);
    if !renderable.is_empty() {
        assert!(!rendered.is_empty(), "diagnostics rendered to nothing");
    }
    rendered
}

fn codes(checked: &Checked) -> Vec<&'static str> {
    checked.diagnostics.iter().map(|d| d.code).collect()
}

// ---------------------------------------------------------------------------------------
// Random input.

/// Pieces the token-heavy generator strings together.
const FRAGMENTS: &[&str] = &[
    "(",
    "(",
    "(",
    ")",
    ")",
    ")",
    "#",
    "\"",
    "\\",
    ";",
    "-",
    "0",
    "1",
    "9",
    " ",
    " ",
    "\n",
    "a",
    "b",
    "c",
    "abc",
    "\t",
    "\r",
    ".",
    "*",
    "_",
    "?",
    "!",
    "é",
    "\u{FFFD}",
    "\0",
    "[",
    "'",
    "#law",
    "#sideeffect",
    "#entity",
    "#state",
    "#onMessage",
    "#property",
    "#include",
    "#define",
    "#param",
    "#setup",
    "#actions",
    "#representation",
    "#board",
    "#instance",
    "#extends",
    "#x",
    "do",
    "end",
    "else",
    "if",
    "var",
    "on",
    "to",
    "in",
    "is",
    "of",
    "with",
    "new",
    "message",
    "send",
    "property",
    "update",
    "switch",
    "case",
    "default",
    "foreach",
    "while",
    "return",
    "ring",
    "named",
    "attribute",
    "forward",
    "\"g.fr\"",
    "\"a.law\"",
    "\"8x8\"",
    "\"b.xml\"",
    "\"\\q\"",
    "\"\\n\"",
    "99999999999999999999",
    "-3",
    "2.5",
    "3abc",
    "-x",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop_oneof![
        // Characters from a small, token-heavy alphabet.
        "[()#\"\\\\;\\-0-9 abc\n.*é]{0,600}",
        // Whole tokens and keywords, so the reader and lowering see structure.
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..300).prop_map(|v| v.concat()),
    ]
}

fn random_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..MAX_RANDOM_BYTES)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        // Arbitrary Unicode, so multi-byte characters land in every position.
        "\\PC{0,200}",
        // Bytes that are mostly ASCII punctuation and letters.
        prop::collection::vec(0x20u8..0x7f, 0..MAX_RANDOM_BYTES)
            .prop_map(|b| String::from_utf8(b).expect("ASCII")),
    ]
}

// ---------------------------------------------------------------------------------------
// Mutation of valid programs.

/// Things a mutation may insert.
const INSERTS: &[&str] = &[
    "(",
    ")",
    "((",
    "))",
    "\"",
    "\\",
    ";",
    "#",
    "\n",
    "\t",
    " ",
    "é",
    "\u{1F980}",
    "\u{FFFD}",
    "\0",
    "#law",
    "#sideeffect",
    "#entity",
    "#state",
    "#onMessage",
    "#property",
    "#include",
    "#define",
    "#param",
    "#setup",
    "#actions",
    "#representation",
    "#board",
    "#instance",
    "#extends",
    "#entiy",
    "do",
    "end",
    "else",
    "if",
    "var",
    "on",
    "to",
    "in",
    "is",
    "of",
    "with",
    "as",
    "new",
    "message",
    "send",
    "property",
    "update",
    "attribute",
    "forward",
    "switch",
    "case",
    "default",
    "foreach",
    "while",
    "return",
    "*",
    "-",
    "-1",
    "0",
    "9223372036854775808",
    "1.5",
    "3abc",
    "nil",
    "x",
    "\"x\"",
    "\"\\q\"",
    "\"unterminated",
    "\"laws/allow-only-current-player.law\"",
    "\"side-effects/check-winning-condition.se\"",
    "\"game.fr\"",
    "\"../outside.law\"",
    "\"/absolute.law\"",
    "\"missing.se\"",
    "\"8x8\"",
    "\"board.xml\"",
    "ring",
    "named",
    "()",
    "(do end)",
    "(do 1 end 2)",
    "(if)",
    "(if 1 else 2 3 else 4)",
    "(var)",
    "(var 1 2)",
    "(foreach 1 in)",
    "(switch 1 (default 2) (case 3 4) 5 (default 6))",
    "(new bogus)",
    "(update bogus)",
    "(delete bogus)",
    "(on 1 clicked emit)",
    "(return 1 2)",
    "(finish)",
    "(+)",
    "(unknown-fn 1)",
    "(opponent 1 2 3)",
    "\n#include \"game.fr\"\n",
    "\n#include \"../x.fr\"\n",
    "\n#include \"/abs.fr\"\n",
    "\n#include \"nope.fr\"\n",
    "\n#entity hole\n",
    "\n#entity e\n  #extends e\n",
    "\n#entity a #extends b #entity b #extends a\n",
    "\n#law on * to hole in * is (return)\n",
    "\n#law on * to nobody in * is \"laws/allow-only-current-player.law\"\n",
    "\n#sideeffect on * to game in * is \"side-effects/check-winning-condition.se\"\n",
    "\n#board ring 3 of hole named \"hole\"\n",
    "\n#board \"8x8\" of hole\n",
    "\n#board \"b.xml\" of hole\n",
    "\n#define opponent (p) (- 1 p)\n",
    "\n#param seeds-per-hole 4\n",
    "\n#actions (list)\n",
    "\n#representation hole\n  #state default\n    #onMessage init (new graphic \"g\")\n",
];

/// One edit of a program's text.
#[derive(Clone, Debug)]
enum Mutation {
    DeleteChar(Index),
    InsertChar(Index, char),
    DeleteToken(Index),
    DuplicateToken(Index),
    SwapTokens(Index, Index),
    /// Replace a token by another token of the same text.
    CopyToken(Index, Index),
    Insert(Index, &'static str),
    /// Delete a run of up to 8 tokens.
    DeleteRun(Index, u8),
    Truncate(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting_char = prop_oneof![
        prop::sample::select(&['(', ')', '"', '\\', ';', '#', '\n', ' ', '-', '*', '0'][..]),
        any::<char>(),
    ];
    prop_oneof![
        3 => any::<Index>().prop_map(Mutation::DeleteChar),
        3 => (any::<Index>(), interesting_char).prop_map(|(i, c)| Mutation::InsertChar(i, c)),
        3 => any::<Index>().prop_map(Mutation::DeleteToken),
        2 => any::<Index>().prop_map(Mutation::DuplicateToken),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Mutation::SwapTokens(i, j)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Mutation::CopyToken(i, j)),
        5 => (any::<Index>(), prop::sample::select(INSERTS)).prop_map(|(i, s)| Mutation::Insert(i, s)),
        1 => (any::<Index>(), 1u8..8).prop_map(|(i, n)| Mutation::DeleteRun(i, n)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
    ]
}

/// Split `text` into rough tokens: whitespace runs, parentheses, strings (to a closing
/// quote or the end of the line), comments and other runs. Concatenating them gives `text`.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = match c {
            '(' | ')' => 1,
            c if c.is_whitespace() => rest
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len()),
            '"' => {
                let mut escaped = false;
                let mut end = rest.len();
                for (i, c) in rest.char_indices().skip(1) {
                    match c {
                        '\n' => {
                            end = i;
                            break;
                        }
                        '"' if !escaped => {
                            end = i + 1;
                            break;
                        }
                        '\\' => escaped = !escaped,
                        _ => escaped = false,
                    }
                }
                end
            }
            ';' => rest.find('\n').unwrap_or(rest.len()),
            _ => rest
                .find(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '"' | ';'))
                .unwrap_or(rest.len()),
        };
        let len = len.max(c.len_utf8());
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    out
}

/// Byte offsets of the character boundaries of `text`, end included.
fn boundaries(text: &str) -> Vec<usize> {
    text.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect()
}

fn apply(text: &str, m: &Mutation) -> String {
    let toks = tokens(text);
    let splice = |at: usize, remove: usize, insert: &[&str]| -> String {
        let at = at.min(toks.len());
        let end = (at + remove).min(toks.len());
        toks[..at]
            .iter()
            .chain(insert)
            .chain(&toks[end..])
            .copied()
            .collect()
    };
    match m {
        Mutation::DeleteChar(i) => {
            let b = boundaries(text);
            if b.len() < 2 {
                return text.to_string();
            }
            let k = i.index(b.len() - 1);
            format!("{}{}", &text[..b[k]], &text[b[k + 1]..])
        }
        Mutation::InsertChar(i, c) => {
            let b = boundaries(text);
            let at = b[i.index(b.len())];
            format!("{}{c}{}", &text[..at], &text[at..])
        }
        Mutation::Truncate(i) => {
            let b = boundaries(text);
            text[..b[i.index(b.len())]].to_string()
        }
        _ if toks.is_empty() => match m {
            Mutation::Insert(_, s) => (*s).to_string(),
            _ => String::new(),
        },
        Mutation::DeleteToken(i) => splice(i.index(toks.len()), 1, &[]),
        Mutation::DeleteRun(i, n) => splice(i.index(toks.len()), *n as usize, &[]),
        Mutation::DuplicateToken(i) => {
            let k = i.index(toks.len());
            splice(k, 0, &[toks[k]])
        }
        Mutation::SwapTokens(i, j) => {
            let (a, b) = (i.index(toks.len()), j.index(toks.len()));
            let mut t = toks.clone();
            t.swap(a, b);
            t.concat()
        }
        Mutation::CopyToken(i, j) => {
            let (a, b) = (i.index(toks.len()), j.index(toks.len()));
            splice(a, 1, &[toks[b]])
        }
        Mutation::Insert(i, s) => {
            let k = i.index(toks.len() + 1);
            // Inserted between two tokens: next to whitespace it stays a token of its own,
            // next to a word it fuses with it (`#lawon`, `seeds"x"`); both are worth testing.
            splice(k, 0, &[s])
        }
    }
}

fn mutate(base: &str, mutations: &[Mutation]) -> String {
    let mut text = base.to_string();
    for m in mutations {
        let next = apply(&text, m);
        if next.len() <= MAX_MUTATED_LEN {
            text = next;
        }
    }
    text
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 1..10)
}

/// The valid single-file programs mutations start from.
const SINGLE_BASES: &[&str] = &[AWELE_GAME, SNIPPET_FORMS];

/// A game directory: the files of a valid game, with paths relative to `game/`.
fn base_dirs() -> Vec<Vec<(&'static str, &'static str)>> {
    vec![
        vec![
            ("game.fr", AWELE_GAME),
            (AWELE_LAW_PATH, AWELE_LAW),
            (AWELE_SE_PATH, AWELE_SE),
            ("representation.fr", AWELE_REPR),
        ],
        vec![
            ("game.fr", SNIPPET_INCLUDE_MAIN),
            ("entities/cell.fr", SNIPPET_INCLUDE_CELL),
            ("shared/util.fr", SNIPPET_INCLUDE_UTIL),
            ("rules/stay.law", SNIPPET_STAY_LAW),
            ("rules/echo.se", SNIPPET_ECHO_SE),
        ],
    ]
}

// ---------------------------------------------------------------------------------------
// The bases are valid: mutations start from programs the front end accepts.

#[test]
fn bases_are_clean() {
    for base in SINGLE_BASES {
        let checked = check_single(base);
        let rendered = assert_sound(&checked);
        // mini-awele names advice files, which a lone g.fr does not have.
        let unexpected: Vec<_> = checked
            .diagnostics
            .iter()
            .filter(|d| d.code != "missing-file")
            .collect();
        assert!(unexpected.is_empty(), "{rendered}");
    }
    for dir in base_dirs() {
        let files: Vec<(&str, String)> = dir.iter().map(|(p, t)| (*p, t.to_string())).collect();
        let checked = check_dir(&files);
        let rendered = assert_sound(&checked);
        assert!(checked.diagnostics.is_empty(), "{rendered}");
    }
}

#[test]
fn tokenizer_round_trips() {
    for base in SINGLE_BASES
        .iter()
        .chain(&[AWELE_LAW, AWELE_SE, "\"a\\\"b\" ;c\n\"d", "é(x)"])
    {
        assert_eq!(tokens(base).concat(), *base);
    }
}

// ---------------------------------------------------------------------------------------
// Deep nesting.

fn assert_too_deep(checked: &Checked) {
    assert_sound_rendering(checked, 8);
    assert!(
        codes(checked).contains(&"nesting-too-deep"),
        "expected nesting-too-deep, got {:?}",
        codes(checked)
    );
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    const N: usize = 100_000;
    let open = "(".repeat(N);
    let close = ")".repeat(N);
    // Unclosed, bare: a statement outside any directive.
    assert_too_deep(&check_single(&open));
    // Balanced, inside a directive that lowers and checks its code.
    assert_too_deep(&check_single(&format!("#setup {open}{close}")));
    // Nested real forms.
    let ifs = "(if true ".repeat(N) + &")".repeat(N);
    assert_too_deep(&check_single(&format!("#setup {ifs}")));
    let lists = "(list 1 ".repeat(N) + &")".repeat(N);
    assert_too_deep(&check_single(&format!(
        "#entity e\n  #state s\n    #onMessage m {lists}"
    )));
    // Deep then shallow again, twice, and again after a directive (which resets depth).
    let text = format!("#setup (do {open}{close} {open}{close} end)\n#actions {open}");
    let checked = check_single(&text);
    assert_too_deep(&checked);
    assert_eq!(
        codes(&checked)
            .iter()
            .filter(|c| **c == "nesting-too-deep")
            .count(),
        3,
        "{:?}",
        codes(&checked)
    );
    // Inside an advice file.
    let files = [
        ("game.fr", AWELE_GAME.to_string()),
        (AWELE_LAW_PATH, format!("{AWELE_LAW}\n{open}")),
        (AWELE_SE_PATH, AWELE_SE.to_string()),
        ("representation.fr", AWELE_REPR.to_string()),
    ];
    assert_too_deep(&check_dir(&files));
}

#[test]
fn nesting_at_the_limit_is_accepted() {
    let depth = flexrules::syntax::reader::MAX_NESTING;
    // `#setup` is at depth 0; `depth` nested lists end in `(list)` at the deepest level.
    let text = format!(
        "#setup {}(list){}",
        "(list ".repeat(depth - 1),
        ")".repeat(depth - 1)
    );
    let checked = check_single(&text);
    let rendered = assert_sound(&checked);
    assert!(checked.diagnostics.is_empty(), "{rendered}");
    let deeper = format!("#setup (list {text}", text = &text["#setup ".len()..]);
    let checked = check_single(&format!("{deeper})"));
    assert_too_deep(&checked);
}

// ---------------------------------------------------------------------------------------
// Regression inputs: small programs that once misbehaved or sit on an edge.

#[test]
fn edge_inputs() {
    for text in [
        "",
        "\"",
        "\"\\",
        "\"\\\n",
        "\"\\é\"",
        "\"\\\u{1F980}\"",
        "#",
        "#é",
        ")",
        "(",
        "(#setup",
        "#setup )",
        "#setup (do",
        "#setup (do end",
        "#law",
        "#law on",
        "#law on * to",
        "#board ring",
        "#board ring -5 of x named \"h\"",
        "#board ring 999999999999 of x named \"h\"",
        "#define",
        "#define f",
        "#define f (1 \"a\" (b)) x",
        "#instance \"a\" of",
        "#instance \"a\" of b with c",
        "#entity",
        "#onMessage",
        "#state s #onMessage m",
        "#entity e #onMessage m (return)",
        "99999999999999999999999",
        "-",
        "-9223372036854775808",
        "1.5e999",
        "\u{FEFF}#setup 1",
        "#setup (if 1 else)",
        "#setup (switch)",
        "#setup (switch 1 2 (case) (default))",
        "#setup (on)",
        "#setup (on 1 2 emit)",
        "#setup (update message)",
        "#setup (send new)",
        "#setup (new message \"x\" with 1)",
        "#include \"\"",
        "#include \".\"",
        "#include \"..\"",
        "#include \"g.fr\"",
        "#law on a to b in c is \"\"",
        "#law on a to b in c is \".\"",
        "#law on a to b in c is \"g.fr\"",
        "#board \".xml\" of x",
    ] {
        let checked = check_single(text);
        assert_sound(&checked);
    }
}

/// A diagnostic in `game.fr` with a note in an included file whose text before the note has
/// multi-byte characters renders (ariadne 0.6.0 mislocated such notes when given byte
/// offsets; the renderer gives it character offsets).
#[test]
fn cross_file_note_in_non_ascii_file_renders() {
    let files = [
        ("game.fr", "#include \"u.fr\"\n#setup (f 1)\n".to_string()),
        ("u.fr", format!("; {}\n#define f () 1\n", "é".repeat(20))),
    ];
    let checked = check_dir(&files);
    assert_eq!(codes(&checked), ["wrong-arity"]);
    let text = render_plain(&checked.loaded.sources, &checked.diagnostics);
    assert!(text.contains("u.fr:2:9"), "{text}");
}

// ---------------------------------------------------------------------------------------
// The properties.

proptest! {
    #![proptest_config(config())]

    /// (a) Random bytes (lossily decoded), arbitrary Unicode and printable ASCII.
    #[test]
    fn random_input_is_handled(text in random_text()) {
        assert_sound(&check_single(&text));
    }

    /// (a) Strings over a token-heavy alphabet, so the reader and lowering see structure.
    #[test]
    fn token_soup_is_handled(text in token_soup()) {
        assert_sound(&check_single(&text));
    }

    /// (b) Mutated valid programs as a single file.
    #[test]
    fn mutated_programs_are_handled(
        base in prop::sample::select(SINGLE_BASES),
        ms in mutations(),
    ) {
        let text = mutate(base, &ms);
        assert_sound(&check_single(&text));
    }

    /// (b) Mutated game directories: the game file, its includes and its advice files.
    #[test]
    fn mutated_game_dirs_are_handled(
        dir in any::<Index>(),
        edits in prop::collection::vec((any::<Index>(), mutations()), 1..4),
    ) {
        let dirs = base_dirs();
        let base = &dirs[dir.index(dirs.len())];
        let mut files: Vec<(&str, String)> =
            base.iter().map(|(p, t)| (*p, t.to_string())).collect();
        for (which, ms) in &edits {
            let k = which.index(files.len());
            files[k].1 = mutate(&files[k].1, ms);
        }
        assert_sound(&check_dir(&files));
    }
}
