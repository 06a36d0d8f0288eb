//! Boards as text and as SVG pictures (strings; printing is the caller's business).
//!
//! Grids are drawn as pictures of their cells (one per level or board); every other board
//! is listed cell by cell with its links. The SVG draws every cell from its geometry: the
//! rectangles and polygons of board files, squares for grids, a circle of discs for rings.

use std::fmt::Write;

use super::naming::level_label;
use super::origin::GridInfo;
use super::topology::{Board, CellId, DirKind, Geometry, Origin};
use super::validate::describe_perm;

/// What `flexrules board` prints: a header with the counts, the canonical identification
/// string of a grid, what a joChess file says about its game, the board as [`text`], and
/// the problems of its links.
pub fn report(board: &Board) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "board: {}", board.name());
    let _ = writeln!(
        out,
        "{} cell{}, {} link{}",
        board.cell_count(),
        plural(board.cell_count()),
        board.link_count(),
        plural(board.link_count())
    );
    match board.origin() {
        Origin::Grid(info) => {
            let _ = writeln!(
                out,
                "identification: {}",
                info.identification()
                    .unwrap_or_else(|| "(none: the board is not connected or has holes)".into())
            );
        }
        Origin::JoChess(data) => {
            let _ = writeln!(
                out,
                "chess data: {} rule{}, {} piece{}, {} player{}",
                data.rules.len(),
                plural(data.rules.len()),
                data.pieces.len(),
                plural(data.pieces.len()),
                data.players.len(),
                plural(data.players.len())
            );
        }
        Origin::BoardGame { image } => {
            let _ = writeln!(out, "image: {image}");
        }
        Origin::Ring => {}
    }
    out.push('\n');
    out.push_str(&text(board));
    out.push('\n');
    if board.problems().is_empty() {
        out.push_str("problems: none\n");
    } else {
        let n = board.problems().len();
        let _ = writeln!(out, "{n} problem{}:", plural(n));
        for p in board.problems() {
            let at =
                p.at.as_ref()
                    .map(|a| format!("line {}: ", a.line))
                    .unwrap_or_default();
            let _ = writeln!(out, "  {at}{p}");
        }
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The board as text: a picture for grids, a listing of cells and links otherwise.
pub fn text(board: &Board) -> String {
    match board.origin() {
        Origin::Grid(info) => grid_picture(info),
        _ => listing(board),
    }
}

/// Each level (3D) or board (4D) of a grid, ranks from the top, `#` for a cell and `.` for
/// a square of the rectangle that is not on the board.
fn grid_picture(info: &GridInfo) -> String {
    let shape = &info.shape;
    let (w, h) = (shape.width(), shape.height());
    let file_width = info.naming.file_label(w.saturating_sub(1)).len();
    let rank_width = h.to_string().len();
    let mut out = String::new();
    let header = {
        let mut line = " ".repeat(rank_width + 1);
        for x in 0..w {
            let _ = write!(line, " {:<file_width$}", info.naming.file_label(x));
        }
        line.trim_end().to_string()
    };
    let levels: Vec<String> = match info.extra.as_slice() {
        [] => vec![String::new()],
        [levels] => (0..*levels)
            .map(|l| format!("level {}", level_label(l)))
            .collect(),
        [columns, rows] => (0..*rows)
            .flat_map(|r| (0..*columns).map(move |c| format!("board {}{}", level_label(c), r + 1)))
            .collect(),
        _ => vec![String::new()],
    };
    for (i, title) in levels.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !title.is_empty() {
            let _ = writeln!(out, "{title}:");
        }
        let _ = writeln!(out, "{header}");
        for y in (0..h).rev() {
            let mut line = format!("{:>rank_width$} ", y + 1);
            for x in 0..w {
                let mark = if shape.contains(i64::from(x), i64::from(y)) {
                    '#'
                } else {
                    '.'
                };
                let _ = write!(line, " {mark:<file_width$}");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}

/// Directions, permutations, then every cell with its coordinates and links.
fn listing(board: &Board) -> String {
    let mut out = String::new();
    let dirs: Vec<String> = board
        .all_directions()
        .map(|d| {
            let dir = board.direction(d);
            match dir.kind {
                DirKind::Plain => dir.name.to_string(),
                DirKind::Edge => format!("{} (edge)", dir.name),
                DirKind::Vertex => format!("{} (vertex)", dir.name),
            }
        })
        .collect();
    let _ = writeln!(out, "directions: {}", dirs.join(", "));
    for p in 0..board.permutation_count() {
        let p = super::topology::PermId(p as u16);
        let _ = writeln!(out, "permutation {}", describe_perm(board, Some(p)));
    }
    for c in board.cells() {
        let _ = writeln!(out, "{}", cell_line(board, c));
    }
    out
}

/// `name [coords]  dir -> target (perm, then dir) ...`
pub fn cell_line(board: &Board, c: CellId) -> String {
    let coords: Vec<String> = board.coords(c).iter().map(i32::to_string).collect();
    let mut line = format!("{} [{}]", board.cell_name(c), coords.join(", "));
    for (d, link) in board.links(c) {
        let _ = write!(
            line,
            "  {} -> {}",
            board.dir_name(d),
            board.cell_name(link.target)
        );
        let mut notes = Vec::new();
        if let Some(p) = link.perm {
            notes.push(board.perm_label(p));
        }
        match link.ahead {
            Some(a) if a == d => {}
            Some(a) => notes.push(format!("then {}", board.dir_name(a))),
            None => notes.push("ray stops".to_string()),
        }
        if !notes.is_empty() {
            let _ = write!(line, " ({})", notes.join(", "));
        }
    }
    line
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A drawn cell: its outline and where its name goes.
enum Figure {
    Rect(f64, f64, f64, f64),
    Polygon(Vec<(f64, f64)>),
    Disc(f64, f64, f64),
}

/// The board as an SVG picture of its cells, each labelled with its name.
pub fn svg(board: &Board) -> String {
    let mut figures: Vec<(CellId, Figure)> = Vec::new();
    match board.origin() {
        Origin::Grid(info) => {
            const SIDE: f64 = 40.0;
            let (w, h) = (
                f64::from(info.shape.width()),
                f64::from(info.shape.height()),
            );
            let rows = f64::from(info.extra.get(1).copied().unwrap_or(1));
            for c in board.cells() {
                let k = board.coords(c);
                let (x, y) = (f64::from(k[0]), f64::from(k[1]));
                let third = k.get(2).copied().unwrap_or(0) as f64;
                let fourth = k.get(3).copied().unwrap_or(0) as f64;
                // Levels (or columns of boards) side by side, one cell apart; rows of 4D
                // boards stacked, the first at the bottom.
                let left = (third * (w + 1.0) + x) * SIDE;
                let top = ((rows - 1.0 - fourth) * (h + 1.0) + (h - 1.0 - y)) * SIDE;
                figures.push((c, Figure::Rect(left, top, SIDE, SIDE)));
            }
        }
        Origin::Ring => {
            let n = board.cell_count() as f64;
            let radius = (n * 40.0 / std::f64::consts::TAU).max(60.0);
            for c in board.cells() {
                let angle =
                    std::f64::consts::TAU * f64::from(c.0) / n - std::f64::consts::FRAC_PI_2;
                let (x, y) = (
                    radius + 30.0 + radius * angle.cos(),
                    radius + 30.0 + radius * angle.sin(),
                );
                figures.push((c, Figure::Disc(x, y, 18.0)));
            }
        }
        Origin::BoardGame { .. } | Origin::JoChess(_) => {
            for c in board.cells() {
                match &board.cell(c).geometry {
                    Some(Geometry::Rect {
                        left,
                        top,
                        width,
                        height,
                    }) => figures.push((c, Figure::Rect(*left, *top, *width, *height))),
                    Some(Geometry::Polygon(points)) => {
                        figures.push((c, Figure::Polygon(points.clone())))
                    }
                    None => {}
                }
            }
        }
    }
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    let mut extend = |x: f64, y: f64| {
        min_x = min_x.min(x);
        min_y = min_y.min(y);
        max_x = max_x.max(x);
        max_y = max_y.max(y);
    };
    for (_, f) in &figures {
        match f {
            Figure::Rect(l, t, w, h) => {
                extend(*l, *t);
                extend(l + w, t + h);
            }
            Figure::Polygon(points) => points.iter().for_each(|p| extend(p.0, p.1)),
            Figure::Disc(x, y, r) => {
                extend(x - r, y - r);
                extend(x + r, y + r);
            }
        }
    }
    if figures.is_empty() {
        (min_x, min_y, max_x, max_y) = (0.0, 0.0, 1.0, 1.0);
    }
    let margin = 4.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{} {} {} {}\" font-family=\"sans-serif\">",
        min_x - margin,
        min_y - margin,
        max_x - min_x + 2.0 * margin,
        max_y - min_y + 2.0 * margin
    );
    let _ = writeln!(out, "  <title>{}</title>", escape(board.name()));
    for (c, f) in &figures {
        let name = escape(board.cell_name(*c).as_str());
        let style = "fill=\"#f4ecd8\" stroke=\"#555\" stroke-width=\"1\"";
        let (cx, cy, size) = match f {
            Figure::Rect(l, t, w, h) => {
                let _ = writeln!(
                    out,
                    "  <rect x=\"{l}\" y=\"{t}\" width=\"{w}\" height=\"{h}\" {style}><title>{name}</title></rect>"
                );
                (l + w / 2.0, t + h / 2.0, w.min(*h))
            }
            Figure::Polygon(points) => {
                let list: Vec<String> = points.iter().map(|p| format!("{},{}", p.0, p.1)).collect();
                let _ = writeln!(
                    out,
                    "  <polygon points=\"{}\" {style}><title>{name}</title></polygon>",
                    list.join(" ")
                );
                let centre = Geometry::Polygon(points.clone()).center();
                let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
                    (lo.min(p.0), hi.max(p.0))
                });
                (centre.0, centre.1, hi - lo)
            }
            Figure::Disc(x, y, r) => {
                let _ = writeln!(
                    out,
                    "  <circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" {style}><title>{name}</title></circle>"
                );
                (*x, *y, 2.0 * r)
            }
        };
        let font = (size / 3.0).clamp(4.0, 14.0);
        let _ = writeln!(
            out,
            "  <text x=\"{cx:.1}\" y=\"{cy:.1}\" font-size=\"{font:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\">{name}</text>"
        );
    }
    out.push_str("</svg>\n");
    out
}
