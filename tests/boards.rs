//! Board tests: identification strings, grids, rings, board files and navigation.
//!
//! Every file under `tests/inputs/boards/` is one board, and its snapshot is the board's
//! report: the text picture or listing, counts, the identification string of grids, the
//! problems found, and the answers to the queries of a `<name>.nav` file beside it (one
//! per line: `ray <cell> <dir>`, `walk <cell> <dir> <dir> ...`, `neighbor <cell> <dir>`,
//! `directions <cell>`). The kinds of file:
//!
//! - `*.id`: an identification string (the first line), built as a grid; a second line
//!   `named go` names its columns as Go players do;
//! - `*.ring`: `<size> <prefix>`, built as a ring;
//! - `*.xml`: a BoardGame or joChess board file;
//! - files under `malformed/`: descriptions that must fail; the snapshot is the error,
//!   rendered as a diagnostic pointing into the description.
//!
//! Property tests check that the identification string of any connected board without
//! holes reads back as the same board, and does not depend on where the board lies.
//! Snapshots live in `tests/snapshots/`; after a change, run
//! `INSTA_UPDATE=always cargo test --test boards` (or `cargo insta review`) and read them.

use std::fmt::Write;
use std::path::Path;

use flexrules::board::{self, Board, BoardError, Shape, ident, render};
use flexrules::diagnostic::render_plain;
use flexrules::source::{SourceMap, Span};
use proptest::prelude::*;

/// Build the board described by the fixture at `path`.
fn build(path: &Path, text: &str) -> Result<Board, BoardError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("id") => {
            let mut lines = text.lines();
            let description = lines.next().unwrap_or_default();
            let naming = match lines.next().map(str::trim) {
                Some("named go") => board::Naming::Go,
                _ => board::Naming::Letters,
            };
            board::from_identification_named(description, naming)
        }
        Some("ring") => {
            let mut words = text.split_whitespace();
            let size = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
            board::ring(size, words.next().unwrap_or("c"))
        }
        _ => {
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("board");
            board::from_xml(text, name)
        }
    }
}

/// The report of a board: what `flexrules board` shows, the integral path of planar
/// grids, the chess data of joChess files, and the answers to `queries`.
fn report(board: &Board, queries: &str) -> String {
    let mut out = render::report(board);
    if let board::Origin::Grid(info) = board.origin()
        && info.extra.is_empty()
        && !info.shape.is_rectangle()
    {
        let _ = writeln!(
            out,
            "integral path: {}",
            ident::integral_path(&info.shape).unwrap_or_default()
        );
        let _ = writeln!(
            out,
            "with symmetries: {}",
            ident::marked_path(&info.shape).unwrap_or_default()
        );
    }
    if let board::Origin::JoChess(data) = board.origin() {
        for player in &data.players {
            let _ = writeln!(
                out,
                "player {}: pieces {:?}, mapping {:?}",
                player.name, player.pieces, player.mapping
            );
        }
        for rule in &data.rules {
            let _ = writeln!(
                out,
                "rule {}: {} attributes, {} nested",
                rule.attr("Name").unwrap_or("?"),
                rule.attributes.len(),
                rule.rules.len()
            );
        }
    }
    for query in queries.lines().filter(|l| !l.trim().is_empty()) {
        let _ = writeln!(out, "\n> {query}\n{}", answer(board, query));
    }
    out
}

/// The answer to one navigation query.
fn answer(board: &Board, query: &str) -> String {
    let words: Vec<&str> = query.split_whitespace().collect();
    let cell = |name: &str| board.cell_named(name).ok_or(format!("no cell {name}"));
    let dir = |name: &str| {
        board
            .direction_named(name)
            .ok_or(format!("no direction {name}"))
    };
    let names = |cells: &[board::CellId]| {
        cells
            .iter()
            .map(|c| board.cell_name(*c).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let result = (|| -> Result<String, String> {
        match words.as_slice() {
            ["ray", c, d] => Ok(names(&board.ray(cell(c)?, dir(d)?))),
            ["neighbor", c, d] => Ok(board
                .neighbor(cell(c)?, dir(d)?)
                .map_or("(none)".into(), |n| board.cell_name(n).to_string())),
            ["directions", c] => Ok(board
                .directions(cell(c)?)
                .map(|d| board.dir_name(d).to_string())
                .collect::<Vec<_>>()
                .join(" ")),
            ["walk", c, dirs @ ..] => {
                let start = cell(c)?;
                let dirs = dirs.iter().map(|d| dir(d)).collect::<Result<Vec<_>, _>>()?;
                let mut text = board.cell_name(start).to_string();
                for step in board.walk_steps(start, &dirs) {
                    let asked = board.dir_name(step.asked);
                    let taken = board.dir_name(step.taken);
                    let label = if asked == taken {
                        asked.to_string()
                    } else {
                        format!("{asked} as {taken}")
                    };
                    match step.link {
                        Some(link) => {
                            let perm = link
                                .perm
                                .map(|p| format!(" [{}]", board.perm_label(p)))
                                .unwrap_or_default();
                            let _ =
                                write!(text, " -{label}-> {}{perm}", board.cell_name(link.target));
                        }
                        None => {
                            let _ = write!(text, " -{label}-> (off the board)");
                        }
                    }
                }
                let end = board
                    .walk(start, &dirs)
                    .map_or("(none)".into(), |c| board.cell_name(c).to_string());
                Ok(format!("{text}\nends at {end}"))
            }
            _ => Err(format!("unknown query {query:?}")),
        }
    })();
    result.unwrap_or_else(|e| format!("error: {e}"))
}

/// The error of a malformed description, rendered against its text.
fn render_error(path: &Path, text: &str, error: &BoardError) -> String {
    let mut map = SourceMap::new();
    let is_id = path.extension().and_then(|e| e.to_str()) == Some("id");
    let content = if is_id {
        text.lines().next().unwrap_or_default()
    } else {
        text
    };
    let file = map.add(path.file_name().unwrap_or_default(), content);
    let span = Span::new(file, 0..0);
    format!(
        "{error}\n\n{}",
        render_plain(&map, &[error.to_diagnostic(span)])
    )
}

fn check_board(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let queries = std::fs::read_to_string(path.with_extension("nav")).unwrap_or_default();
    match build(path, &text) {
        Ok(board) => report(&board, &queries),
        Err(e) => panic!("{} should build: {e}", path.display()),
    }
}

fn check_malformed(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match build(path, &text) {
        Ok(board) => panic!(
            "{} should be refused, but built {}",
            path.display(),
            board.name()
        ),
        Err(e) => render_error(path, &text, &e),
    }
}

#[test]
fn boards() {
    insta::glob!("inputs/boards/*.{id,ring,xml}", |path| {
        insta::assert_snapshot!(check_board(path));
    });
}

#[test]
fn malformed_boards() {
    insta::glob!("inputs/boards/malformed/*.{id,ring,xml}", |path| {
        insta::assert_snapshot!(check_malformed(path));
    });
}

// ---------------------------------------------------------------------------------------
// Properties of identification strings.

/// A small random generator (xorshift), so that one seed gives one shape.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random board connected through shared edges, without holes: cells grown from one,
/// within `spread` of it, then every enclosed empty cell filled.
fn random_cells(seed: u64, size: usize, spread: i64) -> Vec<(i64, i64)> {
    let mut rng = Rng(seed | 1);
    let mut cells = vec![(0i64, 0i64)];
    let mut tries = 0;
    while cells.len() < size && tries < size * 20 {
        tries += 1;
        let (x, y) = cells[rng.below(cells.len() as u64) as usize];
        let (dx, dy) = [(1, 0), (-1, 0), (0, 1), (0, -1)][rng.below(4) as usize];
        let next = (x + dx, y + dy);
        if next.0.abs() <= spread && next.1.abs() <= spread && !cells.contains(&next) {
            cells.push(next);
        }
    }
    fill_holes(cells)
}

/// `cells` with every empty cell that the outside cannot reach through shared edges added.
fn fill_holes(cells: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    let min_x = cells.iter().map(|c| c.0).min().unwrap_or(0) - 1;
    let max_x = cells.iter().map(|c| c.0).max().unwrap_or(0) + 1;
    let min_y = cells.iter().map(|c| c.1).min().unwrap_or(0) - 1;
    let max_y = cells.iter().map(|c| c.1).max().unwrap_or(0) + 1;
    let w = (max_x - min_x + 1) as usize;
    let h = (max_y - min_y + 1) as usize;
    let index = |x: i64, y: i64| (y - min_y) as usize * w + (x - min_x) as usize;
    let mut full = vec![false; w * h];
    for &(x, y) in &cells {
        full[index(x, y)] = true;
    }
    let mut outside = vec![false; w * h];
    let mut stack = vec![(min_x, min_y)];
    outside[0] = true;
    while let Some((x, y)) = stack.pop() {
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (x + dx, y + dy);
            if nx < min_x || nx > max_x || ny < min_y || ny > max_y {
                continue;
            }
            let i = index(nx, ny);
            if !outside[i] && !full[i] {
                outside[i] = true;
                stack.push((nx, ny));
            }
        }
    }
    let mut filled = Vec::new();
    for y in min_y..=max_y {
        for x in min_x..=max_x {
            if !outside[index(x, y)] {
                filled.push((x, y));
            }
        }
    }
    filled
}

/// `cells` made symmetric: mirrored left to right, top to bottom, both, or turned by half
/// a turn, about an axis or centre on or next to their edge (so that they stay connected).
fn symmetric_cells(cells: &[(i64, i64)], kind: u8, gap: i64) -> Vec<(i64, i64)> {
    let max_x = cells.iter().map(|c| c.0).max().unwrap_or(0);
    let max_y = cells.iter().map(|c| c.1).max().unwrap_or(0);
    let mirror_x = |c: (i64, i64)| (2 * max_x + gap - c.0, c.1);
    let mirror_y = |c: (i64, i64)| (c.0, 2 * max_y + gap - c.1);
    let mut out: Vec<(i64, i64)> = cells.to_vec();
    match kind % 4 {
        0 => out.extend(cells.iter().map(|c| mirror_x(*c))),
        1 => out.extend(cells.iter().map(|c| mirror_y(*c))),
        2 => {
            out.extend(cells.iter().map(|c| mirror_x(*c)));
            let half = out.clone();
            out.extend(half.iter().map(|c| mirror_y(*c)));
        }
        _ => out.extend(cells.iter().map(|c| mirror_y(mirror_x(*c)))),
    }
    out.sort_unstable();
    out.dedup();
    fill_holes(out)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Decoding the string of a board gives the board back, and moving the board does not
    /// change its string.
    #[test]
    fn identification_strings_round_trip(
        seed in any::<u64>(),
        size in 1usize..48,
        spread in 1i64..7,
        dx in -40i64..40,
        dy in -40i64..40,
    ) {
        let cells = random_cells(seed, size, spread);
        let shape = Shape::from_cells(cells.iter().copied()).unwrap();
        let text = ident::encode(&shape).unwrap();
        let parsed = ident::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}\n{shape:?}")))?;
        prop_assert_eq!(&parsed.shape, &shape, "{}", text);
        let moved = Shape::from_cells(cells.iter().map(|&(x, y)| (x + dx, y + dy))).unwrap();
        prop_assert_eq!(ident::encode(&moved).unwrap(), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Symmetric boards round-trip too, and a board symmetric about both bisectors is
    /// written as one quarter of its path and `=`.
    #[test]
    fn symmetric_boards_round_trip(
        seed in any::<u64>(),
        size in 1usize..24,
        spread in 1i64..5,
        kind in 0u8..4,
        gap in 0i64..2,
    ) {
        let cells = symmetric_cells(&random_cells(seed, size, spread), kind, gap);
        let shape = Shape::from_cells(cells.iter().copied()).unwrap();
        prop_assume!(shape.check().is_ok());
        let text = ident::encode(&shape).unwrap();
        let parsed = ident::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}\n{shape:?}")))?;
        prop_assert_eq!(&parsed.shape, &shape, "{}", text);
        if kind % 4 == 2 && !shape.is_rectangle() {
            let markers: Vec<char> = text.chars().filter(|c| "#*=:".contains(*c)).collect();
            prop_assert_eq!(markers, vec!['='], "{}\n{:?}", text, shape);
        }
    }
}

// ---------------------------------------------------------------------------------------
// joChess's own board files.

/// The directory of joChess's board files, `shared/jochess` beside the checkout or one of
/// its parents, if it is there.
fn jochess_boards() -> Option<std::path::PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("shared/jochess"))
        .find(|dir| dir.join("2PlayerBoard.xml").is_file())
}

/// joChess's three board files load without an error and keep their chess data: every
/// player has its pieces (types and positions) and a king.
#[test]
fn jochess_files_load() {
    let dir = jochess_boards()
        .expect("joChess's board files are read from ../shared/jochess beside the checkout");
    for (name, players) in [
        ("2PlayerBoard", 2),
        ("3PlayerBoard", 3),
        ("3PlayerBoard_II", 3),
    ] {
        let path = dir.join(format!("{name}.xml"));
        let text = std::fs::read_to_string(&path).expect("readable");
        let board = match board::from_xml(&text, name) {
            Ok(board) => board,
            Err(e) => panic!("{}: {e}", path.display()),
        };
        let board::Origin::JoChess(data) = board.origin() else {
            panic!("{name} is a joChess board");
        };
        assert_eq!(data.players.len(), players, "{name}");
        for player in &data.players {
            assert_eq!(player.pieces.len(), 16, "{name} {}", player.name);
            assert_eq!(player.piece_names.len(), 16, "{name} {}", player.name);
            for (kind, at) in &player.pieces {
                assert!(data.pieces.iter().any(|p| &p.name == kind), "{kind}");
                assert!(board.cell_named(at).is_some(), "{at}");
            }
            assert!(player.pieces.iter().any(|(k, _)| k.starts_with("King")));
        }
    }
}
