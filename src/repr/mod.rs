//! Drawing a canvas: text for terminals ([`text`]) and SVG ([`svg`]).
//!
//! Boundary: this layer reads a [`Canvas`](crate::runtime::canvas::Canvas) and a
//! [`View`](crate::runtime::canvas::View) and knows nothing of the VM, sessions or
//! entities; what a graphic looks like is decided by its attributes alone.

pub mod svg;
pub mod text;

use crate::runtime::canvas::{Graphic, number};
use crate::runtime::value::Value;

/// The shapes graphics may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `x y w h`: the top-left corner and the size.
    Rect,
    /// `x y r`: the centre and the radius.
    Circle,
    /// `x y`: where the text's centre goes.
    Text,
    /// `x y x2 y2`.
    Line,
    /// `points`: a list of numbers `x1 y1 x2 y2 ...`.
    Polygon,
    /// `x y w h href`.
    Image,
}

impl Shape {
    /// The graphic's shape: its `shape` attribute, else `text` when it has text, else
    /// `rect`.
    pub fn of(g: &Graphic) -> Shape {
        match g.attr("shape").map(Value::to_text).as_deref() {
            Some("circle") => Shape::Circle,
            Some("text") => Shape::Text,
            Some("line") => Shape::Line,
            Some("polygon") => Shape::Polygon,
            Some("image") => Shape::Image,
            Some("rect") => Shape::Rect,
            _ if g.attr("text").is_some() => Shape::Text,
            _ => Shape::Rect,
        }
    }
}

/// Numeric attribute `name` of `g` (0 when missing or not a number).
pub fn num(g: &Graphic, name: &str) -> f64 {
    g.attr(name).and_then(number).unwrap_or(0.0)
}

/// The text a graphic shows, if any (its `text` attribute in display form).
pub fn label(g: &Graphic) -> Option<String> {
    match g.attr("text")? {
        Value::Nil => None,
        v => Some(v.to_text()),
    }
}

/// The polygon's points.
pub fn points(g: &Graphic) -> Vec<(f64, f64)> {
    let Some(Value::List(l)) = g.attr("points") else {
        return Vec::new();
    };
    let nums: Vec<f64> = l.iter().filter_map(number).collect();
    nums.chunks_exact(2).map(|p| (p[0], p[1])).collect()
}

/// The box a graphic covers: (left, top, right, bottom).
pub fn bounds(g: &Graphic) -> (f64, f64, f64, f64) {
    let (x, y) = (num(g, "x"), num(g, "y"));
    match Shape::of(g) {
        Shape::Rect | Shape::Image => (x, y, x + num(g, "w"), y + num(g, "h")),
        Shape::Circle => {
            let r = num(g, "r");
            (x - r, y - r, x + r, y + r)
        }
        Shape::Text => {
            let w = label(g).map_or(0, |t| t.chars().count()) as f64 * 4.0;
            (x - w, y - 8.0, x + w, y + 8.0)
        }
        Shape::Line => {
            let (x2, y2) = (num(g, "x2"), num(g, "y2"));
            (x.min(x2), y.min(y2), x.max(x2), y.max(y2))
        }
        Shape::Polygon => points(g).iter().fold(
            (f64::MAX, f64::MAX, f64::MIN, f64::MIN),
            |(l, t, r, b), &(px, py)| (l.min(px), t.min(py), r.max(px), b.max(py)),
        ),
    }
}
