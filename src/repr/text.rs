//! The canvas as text for a terminal.
//!
//! Each character cell stands for 10 × 20 canvas units. Rectangles are drawn with
//! `+ - |`, circles as `(` and `)` on their middle row, lines and polygon edges with
//! `- | / \`, and text is centred on its position (moved right, not cut, at the left
//! edge); later layers draw over earlier ones. A circle, rectangle or polygon with a
//! `fill` and no text is filled with a character for its colour ([`fill_char`]); a fill
//! never covers text.

use crate::runtime::canvas::{Canvas, View};

use super::{Shape, bounds, label, num, points};

/// Canvas units per character column.
pub const COLUMN: f64 = 10.0;
/// Canvas units per character row.
pub const ROW: f64 = 20.0;

/// The largest grid drawn (columns, rows): graphics beyond are cut off.
const MAX: (usize, usize) = (240, 120);

/// What wrote a cell last.
#[derive(Clone, Copy, PartialEq)]
enum Mark {
    /// An outline, a line, a cleared inside, or nothing.
    Plain,
    /// A text: fills leave it alone.
    Text,
    /// A fill.
    Fill,
}

struct Grid {
    cells: Vec<Vec<char>>,
    marks: Vec<Vec<Mark>>,
}

impl Grid {
    fn put(&mut self, col: i64, row: i64, c: char) {
        self.put_as(col, row, c, Mark::Plain);
    }

    /// Put `c` at (`col`, `row`), written by `mark`; outside the grid, nothing.
    fn put_as(&mut self, col: i64, row: i64, c: char, mark: Mark) {
        if col < 0 || row < 0 {
            return;
        }
        let (col, row) = (col as usize, row as usize);
        if let Some(cell) = self.cells.get_mut(row).and_then(|l| l.get_mut(col)) {
            *cell = c;
            self.marks[row][col] = mark;
        }
    }

    fn mark(&self, col: i64, row: i64) -> Option<Mark> {
        if col < 0 || row < 0 {
            return None;
        }
        self.marks.get(row as usize)?.get(col as usize).copied()
    }

    /// Fill (`col`, `row`) with `c` unless a text is there (a fill covers everything
    /// else, as the inside of a shape without a fill is cleared).
    fn fill(&mut self, col: i64, row: i64, c: char) {
        if self.mark(col, row).is_some_and(|m| m != Mark::Text) {
            self.put_as(col, row, c, Mark::Fill);
        }
    }

    /// Clear (`col`, `row`), inside a shape; an invisible shape (`transparent`) leaves
    /// texts and fills as they are.
    fn clear(&mut self, col: i64, row: i64, transparent: bool) {
        if !transparent || self.mark(col, row) == Some(Mark::Plain) {
            self.put(col, row, ' ');
        }
    }

    fn text(&mut self, x: f64, y: f64, text: &str) {
        let col = text_start(x, text);
        let row = row(y);
        for (i, c) in text.chars().enumerate() {
            self.put_as(col + i as i64, row, c, Mark::Text);
        }
    }

    fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64)) {
        let (c1, r1, c2, r2) = (col(x1), row(y1), col(x2), row(y2));
        let (dc, dr) = (c2 - c1, r2 - r1);
        let c = match (dc.signum(), dr.signum()) {
            (_, 0) => '-',
            (0, _) => '|',
            (a, b) if a == b => '\\',
            _ => '/',
        };
        let steps = dc.abs().max(dr.abs()).max(1);
        for i in 0..=steps {
            self.put(c1 + dc * i / steps, r1 + dr * i / steps, c);
        }
    }
}

/// The column where `text` centred on `x` starts: never left of the first column (a text
/// near the left edge is moved right rather than cut).
fn text_start(x: f64, text: &str) -> i64 {
    (col(x) - text.chars().count() as i64 / 2).max(0)
}

fn col(x: f64) -> i64 {
    (x / COLUMN).round() as i64
}

fn row(y: f64) -> i64 {
    (y / ROW).round() as i64
}

/// The graphics of `canvas` shown in `view`, as lines of text (trailing spaces trimmed,
/// no trailing empty lines).
pub fn render(canvas: &Canvas, view: &View) -> String {
    let graphics = canvas.visible(view);
    let (mut width, mut height) = (0usize, 0usize);
    for g in &graphics {
        let (_, _, r, b) = bounds(g);
        width = width.max(col(r).max(0) as usize + 1);
        height = height.max(row(b).max(0) as usize + 1);
        // A text takes a column a character, centred (`bounds` measures it in the SVG's
        // narrower characters).
        if let (Shape::Text, Some(t)) = (Shape::of(g), label(g)) {
            let right = text_start(num(g, "x"), &t) + t.chars().count() as i64 - 1;
            width = width.max(right.max(0) as usize + 1);
        }
    }
    let (width, height) = (width.min(MAX.0), height.min(MAX.1));
    let mut grid = Grid {
        cells: vec![vec![' '; width]; height],
        marks: vec![vec![Mark::Plain; width]; height],
    };
    for g in graphics {
        let (x, y) = (num(g, "x"), num(g, "y"));
        let fill = fill_of(g);
        let transparent = transparent(g);
        let centre = match Shape::of(g) {
            Shape::Rect | Shape::Image => {
                let (w, h) = (num(g, "w"), num(g, "h"));
                let (l, t, r, b) = (col(x), row(y), col(x + w), row(y + h));
                if r - l >= 2 && b - t >= 1 {
                    for c in l..=r {
                        grid.put(c, t, '-');
                        grid.put(c, b, '-');
                    }
                    for rr in t..=b {
                        grid.put(l, rr, '|');
                        grid.put(r, rr, '|');
                    }
                    for (c, rr) in [(l, t), (r, t), (l, b), (r, b)] {
                        grid.put(c, rr, '+');
                    }
                    for rr in t + 1..b {
                        for c in l + 1..r {
                            match fill {
                                Some(f) => grid.fill(c, rr, f.area),
                                None => grid.clear(c, rr, transparent),
                            }
                        }
                    }
                }
                (x + w / 2.0, y + h / 2.0)
            }
            Shape::Circle => {
                let r = num(g, "r");
                let rr = row(y);
                grid.put(col(x - r), rr, '(');
                grid.put(col(x + r), rr, ')');
                for c in col(x - r) + 1..col(x + r) {
                    match fill {
                        Some(f) => grid.fill(c, rr, f.disc),
                        None => grid.clear(c, rr, transparent),
                    }
                }
                (x, y)
            }
            Shape::Text => (x, y),
            Shape::Line => {
                grid.line((x, y), (num(g, "x2"), num(g, "y2")));
                (x, y)
            }
            Shape::Polygon => {
                let pts = points(g);
                // A light polygon is left as without a fill (its inside is not cleared).
                if let Some(f) = fill.filter(|f| f.area != ' ') {
                    fill_polygon(&mut grid, &pts, f.area);
                }
                for i in 0..pts.len() {
                    grid.line(pts[i], pts[(i + 1) % pts.len()]);
                }
                (x, y)
            }
        };
        if let Some(t) = label(g) {
            grid.text(centre.0, centre.1, &t);
        }
    }
    let mut lines: Vec<String> = grid
        .cells
        .into_iter()
        .map(|l| l.into_iter().collect::<String>().trim_end().to_string())
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    lines.join("\n")
}

/// The characters a fill draws: on a disc (a circle) and on an area (a rectangle, a
/// polygon).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fill {
    /// On a circle: `X` for black, `O` for white, the first letter of any other colour
    /// name (`r` for `red`), and for a colour written `#rgb`, `#rrggbb` or `rgb(r, g, b)`,
    /// `X` when dark and `O` when light.
    pub disc: char,
    /// On a rectangle or polygon: `:` when the colour is dark, a space (as without a fill)
    /// when light or unknown, so a board's dark squares are dotted and its background is
    /// left blank.
    pub area: char,
}

/// Below this luminance (0.2126 R + 0.7152 G + 0.0722 B, each from 0 to 1) a colour is
/// dark: black, red, blue, chess's dark squares (`#b58863`, 0.56); burlywood (0.74),
/// yellow and white are light.
const DARK: f64 = 0.65;

/// Colour names and their red, green and blue: the ones games use most.
const NAMED: &[(&str, (u8, u8, u8))] = &[
    ("black", (0, 0, 0)),
    ("white", (255, 255, 255)),
    ("red", (255, 0, 0)),
    ("green", (0, 128, 0)),
    ("blue", (0, 0, 255)),
    ("yellow", (255, 255, 0)),
    ("orange", (255, 165, 0)),
    ("purple", (128, 0, 128)),
    ("gray", (128, 128, 128)),
    ("grey", (128, 128, 128)),
    ("silver", (192, 192, 192)),
    ("brown", (165, 42, 42)),
    ("navy", (0, 0, 128)),
    ("maroon", (128, 0, 0)),
    ("darkgreen", (0, 100, 0)),
    ("darkred", (139, 0, 0)),
    ("darkblue", (0, 0, 139)),
    ("saddlebrown", (139, 69, 19)),
    ("sienna", (160, 82, 45)),
    ("tan", (210, 180, 140)),
    ("burlywood", (222, 184, 135)),
    ("wheat", (245, 222, 179)),
    ("beige", (245, 245, 220)),
    ("ivory", (255, 255, 240)),
    ("pink", (255, 192, 203)),
    ("gold", (255, 215, 0)),
    ("cyan", (0, 255, 255)),
    ("magenta", (255, 0, 255)),
    ("lightgray", (211, 211, 211)),
    ("lightgrey", (211, 211, 211)),
    ("darkgray", (169, 169, 169)),
    ("darkgrey", (169, 169, 169)),
];

/// The fill characters of `colour` (a `fill` attribute's text); `None` for no fill
/// (`none`, `transparent`, empty).
pub fn fill_char(colour: &str) -> Option<Fill> {
    let name = colour.trim().to_ascii_lowercase();
    if matches!(name.as_str(), "" | "none" | "transparent") {
        return None;
    }
    let named = NAMED.iter().find(|(n, _)| *n == name).map(|&(_, c)| c);
    let rgb = named.or_else(|| parse_rgb(&name));
    let dark = rgb.map(|(r, g, b)| {
        let y = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b);
        y / 255.0 < DARK
    });
    let disc = match name.as_str() {
        "black" => 'X',
        "white" => 'O',
        _ if named.is_some() || rgb.is_none() => {
            name.chars().next().filter(char::is_ascii_alphabetic)?
        }
        _ if dark == Some(true) => 'X',
        _ => 'O',
    };
    let area = if dark == Some(true) { ':' } else { ' ' };
    Some(Fill { disc, area })
}

/// `#rgb`, `#rrggbb` or `rgb(r, g, b)` as red, green and blue.
fn parse_rgb(text: &str) -> Option<(u8, u8, u8)> {
    if let Some(hex) = text.strip_prefix('#') {
        let digits: Vec<u8> = hex
            .chars()
            .map(|c| c.to_digit(16).map(|d| d as u8))
            .collect::<Option<_>>()?;
        return match digits.as_slice() {
            [r, g, b] => Some((r * 17, g * 17, b * 17)),
            [r1, r2, g1, g2, b1, b2] => Some((r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
            _ => None,
        };
    }
    let inner = text.strip_prefix("rgb(")?.strip_suffix(')')?;
    let parts: Vec<u8> = (inner.split(','))
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        &[r, g, b] => Some((r, g, b)),
        _ => None,
    }
}

/// Whether `g` is invisible (`opacity` 0).
fn transparent(g: &crate::runtime::canvas::Graphic) -> bool {
    g.attr("opacity").is_some() && num(g, "opacity") <= 0.0
}

/// The fill of `g` when it is drawn: a `fill` that names a colour, no text (or an empty
/// one) and an opacity above 0.
fn fill_of(g: &crate::runtime::canvas::Graphic) -> Option<Fill> {
    if label(g).is_some_and(|t| !t.is_empty()) || transparent(g) {
        return None;
    }
    fill_char(&g.attr("fill")?.to_text())
}

/// Fill the cells whose centres lie inside the polygon `pts` (even-odd rule).
fn fill_polygon(grid: &mut Grid, pts: &[(f64, f64)], c: char) {
    if pts.len() < 3 {
        return;
    }
    let (mut top, mut bottom) = (f64::MAX, f64::MIN);
    let (mut left, mut right) = (f64::MAX, f64::MIN);
    for &(x, y) in pts {
        (left, right) = (left.min(x), right.max(x));
        (top, bottom) = (top.min(y), bottom.max(y));
    }
    let rows = grid.cells.len() as i64;
    let cols = grid.cells.first().map_or(0, Vec::len) as i64;
    for r in row(top).max(0)..=row(bottom).min(rows - 1) {
        for cl in col(left).max(0)..=col(right).min(cols - 1) {
            let (px, py) = (cl as f64 * COLUMN, r as f64 * ROW);
            let mut inside = false;
            for i in 0..pts.len() {
                let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
                if (a.1 > py) != (b.1 > py) && px < a.0 + (py - a.1) * (b.0 - a.0) / (b.1 - a.1) {
                    inside = !inside;
                }
            }
            if inside {
                grid.fill(cl, r, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Fill, fill_char};

    #[test]
    fn fill_characters() {
        let f = |c| fill_char(c).map(|f: Fill| (f.disc, f.area));
        assert_eq!(f("black"), Some(('X', ':')));
        assert_eq!(f("White"), Some(('O', ' ')));
        assert_eq!(f("red"), Some(('r', ':')));
        assert_eq!(f("#b58863"), Some(('X', ':')));
        assert_eq!(f("#f0d9b5"), Some(('O', ' ')));
        assert_eq!(f("rgb(10, 10, 10)"), Some(('X', ':')));
        assert_eq!(f("burlywood"), Some(('b', ' ')));
        assert_eq!(f("cornflowerblue"), Some(('c', ' ')));
        assert_eq!(f("none"), None);
        assert_eq!(f(""), None);
        assert_eq!(f("#12"), None);
    }
}
