//! The integral path of a shape, and the shape of an integral path.
//!
//! This is the geometric half of identification strings (the textual half is
//! [`super::ident`]). The path runs clockwise around the board, one unit step at a time in
//! one of eight directions, on a grid of *path points* chosen per axis so that the axis's
//! bisector lies on a line of points:
//!
//! - along an axis with an odd number of cells, the points are the cells themselves (the
//!   middle file or rank lies on the bisector);
//! - along an axis with an even number of cells, the points are the lines between cells
//!   (the bisector is the line between the two middle files or ranks: the outer edge of the
//!   cell next to it), numbered 0 to n.
//!
//! Either way an axis has an odd number of point positions and its bisector is the middle
//! one. A point is named by the cell whose top-right corner it is, as the seed does.
//!
//! The path is derived from the board's outline (the boundary of the union of its cells,
//! traversed clockwise): every unit edge of the outline is projected onto the path grid
//! (an odd axis replaces a coordinate by the cell inside the edge, an even axis keeps the
//! line), repeated points are merged, and then every concave corner that stands alone is
//! cut by a diagonal step, as the seed's definition of edge cells does on even axes. Two
//! concave corners in a row (the two inner corners of a notch one cell wide) are both kept:
//! cutting them would lose the notch, and the string would no longer tell the boards apart.
//! On a board odd in both directions the projection already steps diagonally round concave
//! corners; no corner is cut there.
//!
//! The path starts at the topmost point on the vertical bisector and the four bisector
//! markers fall after the steps that reach the rightmost point of the horizontal bisector,
//! the bottommost point of the vertical bisector and the leftmost point of the horizontal
//! bisector, and at the end.
//!
//! Decoding undoes this: diagonals are expanded back into the corner they cut (on boards
//! with an even side), and a cell belongs to the board when the centre of its footprint on
//! the path grid lies on the path or inside it.

use super::shape::{Shape, ShapeError};

/// One step of an integral path: one cell (or line) right or left, up or down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// −1, 0 or +1: left, none, right.
    pub dx: i8,
    /// −1, 0 or +1: down, none, up.
    pub dy: i8,
}

impl Move {
    /// The step `(dx, dy)`.
    pub const fn new(dx: i8, dy: i8) -> Move {
        Move { dx, dy }
    }

    /// The step reflected at both axes.
    pub fn turned(self) -> Move {
        Move::new(-self.dx, -self.dy)
    }

    /// The step reflected at the vertical bisector (x flipped).
    pub fn xflip(self) -> Move {
        Move::new(-self.dx, self.dy)
    }

    /// The step reflected at the horizontal bisector (y flipped).
    pub fn yflip(self) -> Move {
        Move::new(self.dx, -self.dy)
    }

    fn is_orthogonal(self) -> bool {
        (self.dx == 0) != (self.dy == 0)
    }

    fn is_diagonal(self) -> bool {
        self.dx != 0 && self.dy != 0
    }

    fn cross(self, other: Move) -> i32 {
        i32::from(self.dx) * i32::from(other.dy) - i32::from(self.dy) * i32::from(other.dx)
    }

    /// The seed's long form, such as `(+1,-1)`.
    pub fn integral(self) -> String {
        let part = |v: i8| match v {
            1 => "+1",
            -1 => "-1",
            _ => "0",
        };
        format!("({},{})", part(self.dx), part(self.dy))
    }
}

/// The path grid of a `width` × `height` rectangle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lattice {
    odd_x: bool,
    odd_y: bool,
    /// Number of point positions across (odd).
    span_x: i32,
    /// Number of point positions up (odd).
    span_y: i32,
    width: i32,
    height: i32,
}

impl Lattice {
    pub(crate) fn of(width: u32, height: u32) -> Lattice {
        let (width, height) = (width as i32, height as i32);
        let odd_x = width % 2 == 1;
        let odd_y = height % 2 == 1;
        Lattice {
            odd_x,
            odd_y,
            span_x: if odd_x { width } else { width + 1 },
            span_y: if odd_y { height } else { height + 1 },
            width,
            height,
        }
    }

    pub(crate) fn mid_x(&self) -> i32 {
        (self.span_x - 1) / 2
    }

    pub(crate) fn mid_y(&self) -> i32 {
        (self.span_y - 1) / 2
    }

    pub(crate) fn span_x(&self) -> i32 {
        self.span_x
    }

    pub(crate) fn span_y(&self) -> i32 {
        self.span_y
    }

    fn both_odd(&self) -> bool {
        self.odd_x && self.odd_y
    }
}

/// A path: where it starts on the path grid, and its steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Traced {
    pub start: (i32, i32),
    pub moves: Vec<Move>,
}

/// The unit directions of outline edges.
const RIGHT: (i32, i32) = (1, 0);
const DOWN: (i32, i32) = (0, -1);
const LEFT: (i32, i32) = (-1, 0);
const UP: (i32, i32) = (0, 1);

#[derive(Clone, Copy)]
struct Edge {
    dir: (i32, i32),
    cell: (i32, i32),
}

/// The integral path of `shape` (rectangles included), clockwise from the topmost point on
/// the vertical bisector.
pub(crate) fn trace(shape: &Shape) -> Result<Traced, ShapeError> {
    shape.check()?;
    let lat = Lattice::of(shape.width(), shape.height());
    let (w, h) = (lat.width, lat.height);
    let vw = (w + 1) as usize;
    let vertex = |x: i32, y: i32| y as usize * vw + x as usize;
    let mut out: Vec<Option<Edge>> = vec![None; vw * (h + 1) as usize];
    let mut total = 0usize;
    let inside = |x: i32, y: i32| shape.contains(i64::from(x), i64::from(y));
    for (x, y) in shape.cells() {
        let (x, y) = (x as i32, y as i32);
        let sides = [
            (inside(x, y + 1), (x, y + 1), RIGHT),
            (inside(x + 1, y), (x + 1, y + 1), DOWN),
            (inside(x, y - 1), (x + 1, y), LEFT),
            (inside(x - 1, y), (x, y), UP),
        ];
        for (covered, from, dir) in sides {
            if covered {
                continue;
            }
            let slot = &mut out[vertex(from.0, from.1)];
            if slot.is_some() {
                // Two outline edges leave one corner: cells touching only at a corner,
                // which `check` has ruled out.
                return Err(ShapeError::NotConnected);
            }
            *slot = Some(Edge { dir, cell: (x, y) });
            total += 1;
        }
    }
    let start = if lat.odd_x {
        let xm = lat.mid_x();
        let top = (0..h).rev().find(|&y| inside(xm, y));
        (xm, top.ok_or(ShapeError::NotConnected)? + 1)
    } else {
        let xm = lat.mid_x();
        let top = (0..h).rev().find(|&y| inside(xm - 1, y) || inside(xm, y));
        (xm, top.ok_or(ShapeError::NotConnected)? + 1)
    };
    // Follow the outline from the start corner, projecting each edge on the path grid.
    let project = |corner: (i32, i32), cell: (i32, i32)| {
        (
            if lat.odd_x { cell.0 } else { corner.0 },
            if lat.odd_y { cell.1 } else { corner.1 },
        )
    };
    let mut points: Vec<(i32, i32)> = Vec::new();
    let mut push = |p: (i32, i32)| {
        if points.last() != Some(&p) {
            points.push(p);
        }
    };
    let mut corner = start;
    let mut followed = 0usize;
    loop {
        let Some(edge) = out[vertex(corner.0, corner.1)] else {
            return Err(ShapeError::NotConnected);
        };
        let next = (corner.0 + edge.dir.0, corner.1 + edge.dir.1);
        push(project(corner, edge.cell));
        push(project(next, edge.cell));
        corner = next;
        followed += 1;
        if corner == start || followed > total {
            break;
        }
    }
    if followed != total {
        return Err(ShapeError::HasHoles);
    }
    if points.len() > 1 && points.last() == points.first() {
        points.pop();
    }
    let n = points.len();
    let mut moves = Vec::with_capacity(n);
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        if dx.abs() > 1 || dy.abs() > 1 || (dx == 0 && dy == 0) {
            panic!("outline projection made a step of ({dx},{dy})");
        }
        moves.push(Move::new(dx as i8, dy as i8));
    }
    if !lat.both_odd() {
        moves = cut_corners(&moves);
    }
    Ok(Traced {
        start: points.first().copied().unwrap_or(start),
        moves,
    })
}

/// Replace every lone concave corner (two orthogonal steps turning left, with no such turn
/// just before or after) by one diagonal step. The corner at the start point is never cut.
fn cut_corners(moves: &[Move]) -> Vec<Move> {
    let n = moves.len();
    let turn: Vec<bool> = (0..n)
        .map(|i| {
            let (a, b) = (moves[i], moves[(i + 1) % n]);
            a.is_orthogonal() && b.is_orthogonal() && a.cross(b) > 0
        })
        .collect();
    let mut cut = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        let lone = i + 1 < n && turn[i] && !turn[(i + n - 1) % n] && !turn[(i + 1) % n];
        if lone {
            let (a, b) = (moves[i], moves[i + 1]);
            cut.push(Move::new(a.dx + b.dx, a.dy + b.dy));
            i += 2;
        } else {
            cut.push(moves[i]);
            i += 1;
        }
    }
    cut
}

/// Where the path of `traced` on `lat` is split into its four parts: the indices of the
/// steps after which the second, third and fourth parts begin.
pub(crate) fn split(lat: Lattice, traced: &Traced) -> (usize, usize, usize) {
    let mut points = Vec::with_capacity(traced.moves.len() + 1);
    let mut p = traced.start;
    points.push(p);
    for m in &traced.moves {
        p = (p.0 + i32::from(m.dx), p.1 + i32::from(m.dy));
        points.push(p);
    }
    let n = traced.moves.len();
    let on_row = points.iter().filter(|q| q.1 == lat.mid_y());
    let on_col = points.iter().filter(|q| q.0 == lat.mid_x());
    let right = on_row.clone().max_by_key(|q| q.0).copied();
    let left = on_row.min_by_key(|q| q.0).copied();
    let bottom = on_col.min_by_key(|q| q.1).copied();
    let find = |from: usize, target: Option<(i32, i32)>| {
        (from..=n).find(|&i| Some(points[i]) == target).unwrap_or(n)
    };
    let r = find(1.min(n), right);
    let b = find(r, bottom);
    let l = find(b, left);
    (r, b, l)
}

/// Why a path does not describe a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathError {
    /// Step `index` leaves the rectangle on the left (`-1`) or right (`+1`).
    LeavesSide { index: usize, side: i8 },
    /// Step `index` makes the path taller than the rectangle.
    TooTall { index: usize },
    /// The path ends `(dx, dy)` away from its start.
    NotClosed { dx: i32, dy: i32 },
    /// The path does not reach the left, right, top or bottom of the rectangle.
    TooSmall,
    /// The cells it encloses do not form a board with an identification string.
    Shape(ShapeError),
}

/// The shape of a `width` × `height` rectangle whose integral path is `moves`.
pub(crate) fn decode(width: u32, height: u32, moves: &[Move]) -> Result<Shape, PathError> {
    let lat = Lattice::of(width, height);
    let (mut x, mut y) = (lat.mid_x(), 0i32);
    let (mut min_x, mut max_x, mut min_y, mut max_y) = (x, x, 0, 0);
    for (index, m) in moves.iter().enumerate() {
        x += i32::from(m.dx);
        y += i32::from(m.dy);
        if x < 0 || x >= lat.span_x {
            return Err(PathError::LeavesSide {
                index,
                side: if x < 0 { -1 } else { 1 },
            });
        }
        min_x = min_x.min(x);
        max_x = max_x.max(x);
        min_y = min_y.min(y);
        max_y = max_y.max(y);
        if max_y - min_y + 1 > lat.span_y {
            return Err(PathError::TooTall { index });
        }
    }
    if (x, y) != (lat.mid_x(), 0) {
        return Err(PathError::NotClosed {
            dx: x - lat.mid_x(),
            dy: y,
        });
    }
    if min_x != 0 || max_x != lat.span_x - 1 || max_y - min_y + 1 != lat.span_y {
        return Err(PathError::TooSmall);
    }
    // Absolute points, with diagonals expanded back into the corners they cut.
    let mut points = Vec::with_capacity(moves.len() * 2 + 1);
    let mut p = (lat.mid_x(), -min_y);
    points.push(p);
    for m in moves {
        if m.is_diagonal() && !lat.both_odd() {
            let (dx, dy) = (i32::from(m.dx), i32::from(m.dy));
            // The left turn: horizontal first when dx·dy > 0, vertical first otherwise.
            let corner = if dx * dy > 0 {
                (p.0 + dx, p.1)
            } else {
                (p.0, p.1 + dy)
            };
            points.push(corner);
        }
        p = (p.0 + i32::from(m.dx), p.1 + i32::from(m.dy));
        points.push(p);
    }
    let shape = fill(lat, &points);
    if !shape.is_tight() {
        return Err(PathError::TooSmall);
    }
    shape.check().map_err(PathError::Shape)?;
    Ok(shape)
}

/// The cells whose footprint centre lies on the closed path `points` or inside it (non-zero
/// winding), working in doubled coordinates so that every centre and point is integral.
fn fill(lat: Lattice, points: &[(i32, i32)]) -> Shape {
    let (w, h) = (lat.width as usize, lat.height as usize);
    let off_x = if lat.odd_x { 0 } else { 1 };
    let off_y = if lat.odd_y { 0 } else { 1 };
    let doubled: Vec<(i32, i32)> = points.iter().map(|p| (2 * p.0, 2 * p.1)).collect();
    let mut bits = vec![false; w * h];
    let cell_at = |x2: i32, y2: i32| {
        let (cx, cy) = (x2 - off_x, y2 - off_y);
        if cx < 0 || cy < 0 || cx % 2 != 0 || cy % 2 != 0 {
            return None;
        }
        let (cx, cy) = ((cx / 2) as usize, (cy / 2) as usize);
        (cx < w && cy < h).then_some(cy * w + cx)
    };
    for pair in doubled.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        for q in [a, ((a.0 + b.0) / 2, (a.1 + b.1) / 2), b] {
            if let Some(i) = cell_at(q.0, q.1) {
                bits[i] = true;
            }
        }
    }
    // Each step crosses at most two rows of centres: bucket the crossings by row.
    let mut rows: Vec<Vec<(i32, i32)>> = vec![Vec::new(); h];
    for pair in doubled.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.1 == b.1 {
            continue;
        }
        let dir = if b.1 > a.1 { 1 } else { -1 };
        let (lo, hi) = (a.1.min(b.1), a.1.max(b.1));
        // Rows whose centre line y2 satisfies lo <= y2 < hi (half-open, so that a path
        // passing through a vertex counts once).
        for y2 in lo..hi {
            let cy = y2 - off_y;
            if cy < 0 || cy % 2 != 0 || (cy / 2) as usize >= h {
                continue;
            }
            let x = a.0 + (y2 - a.1) * (b.0 - a.0) / (b.1 - a.1);
            rows[(cy / 2) as usize].push((x, dir));
        }
    }
    for (cy, crossings) in rows.iter_mut().enumerate() {
        crossings.sort_unstable();
        let mut winding: i32 = crossings.iter().map(|c| c.1).sum();
        let mut next = 0;
        for cx in 0..w {
            let x2 = 2 * cx as i32 + off_x;
            while next < crossings.len() && crossings[next].0 <= x2 {
                winding -= crossings[next].1;
                next += 1;
            }
            if winding != 0 {
                bits[cy * w + cx] = true;
            }
        }
    }
    Shape::from_bits(lat.width as u32, lat.height as u32, bits)
}
