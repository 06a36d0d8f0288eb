//! The canvas as text for a terminal.
//!
//! Each character cell stands for 10 × 20 canvas units. Rectangles are drawn with
//! `+ - |`, circles as `(` and `)` on their middle row, lines and polygon edges with
//! `- | / \`, and text is centred on its position (moved right, not cut, at the left
//! edge); later layers draw over earlier ones.

use crate::runtime::canvas::{Canvas, View};

use super::{Shape, bounds, label, num, points};

/// Canvas units per character column.
pub const COLUMN: f64 = 10.0;
/// Canvas units per character row.
pub const ROW: f64 = 20.0;

/// The largest grid drawn (columns, rows): graphics beyond are cut off.
const MAX: (usize, usize) = (240, 120);

struct Grid {
    cells: Vec<Vec<char>>,
}

impl Grid {
    fn put(&mut self, col: i64, row: i64, c: char) {
        if col < 0 || row < 0 {
            return;
        }
        if let Some(line) = self.cells.get_mut(row as usize)
            && let Some(cell) = line.get_mut(col as usize)
        {
            *cell = c;
        }
    }

    fn text(&mut self, x: f64, y: f64, text: &str) {
        let col = text_start(x, text);
        let row = row(y);
        for (i, c) in text.chars().enumerate() {
            self.put(col + i as i64, row, c);
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
    };
    for g in graphics {
        let (x, y) = (num(g, "x"), num(g, "y"));
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
                            grid.put(c, rr, ' ');
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
                    grid.put(c, rr, ' ');
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
