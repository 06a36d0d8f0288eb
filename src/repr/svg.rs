//! The canvas as an SVG document.
//!
//! Every graphic becomes a `<g>` with `data-owner` and `data-id` (the entity whose
//! representation drew it and the graphic's id) holding its shape and its text; graphics
//! with a click hook get the class `clickable`, which is how the web page knows what to
//! send. Attributes map to SVG ones: `fill`, `stroke` (default black), `stroke-width`,
//! `font-size`, `opacity`.

use std::fmt::Write as _;

use crate::runtime::canvas::{Canvas, Graphic, View};
use crate::runtime::value::Value;

use super::{Shape, bounds, label, num, points};

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn paint(g: &Graphic, fill_default: &str) -> String {
    let text = |name: &str, default: &str| {
        g.attr(name)
            .filter(|v| !matches!(v, Value::Nil))
            .map_or(default.to_string(), Value::to_text)
    };
    let mut s = format!(
        " fill=\"{}\" stroke=\"{}\"",
        escape(&text("fill", fill_default)),
        escape(&text("stroke", "black"))
    );
    for extra in ["stroke-width", "opacity"] {
        if let Some(v) = g.attr(extra) {
            let _ = write!(s, " {extra}=\"{}\"", escape(&v.to_text()));
        }
    }
    s
}

/// The graphics of `canvas` shown in `view`, as a standalone SVG document.
pub fn render(canvas: &Canvas, view: &View) -> String {
    let graphics = canvas.visible(view);
    let (mut right, mut bottom) = (10.0f64, 10.0f64);
    for g in &graphics {
        let (_, _, r, b) = bounds(g);
        right = right.max(r);
        bottom = bottom.max(b);
    }
    let (w, h) = (right.ceil() + 10.0, bottom.ceil() + 10.0);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\">\n"
    );
    for g in graphics {
        let class = if g.click.is_some() {
            " class=\"clickable\" style=\"cursor:pointer\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<g data-owner=\"{}\" data-id=\"{}\"{class}>",
            escape(g.owner.as_str()),
            escape(g.id.as_str())
        );
        let (x, y) = (num(g, "x"), num(g, "y"));
        let centre = match Shape::of(g) {
            Shape::Rect => {
                let (w, h) = (num(g, "w"), num(g, "h"));
                let _ = writeln!(
                    out,
                    "  <rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"{}/>",
                    paint(g, "none")
                );
                (x + w / 2.0, y + h / 2.0)
            }
            Shape::Image => {
                let (w, h) = (num(g, "w"), num(g, "h"));
                let href = g.attr("href").map(Value::to_text).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  <image x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" href=\"{}\"/>",
                    escape(&href)
                );
                (x + w / 2.0, y + h / 2.0)
            }
            Shape::Circle => {
                let _ = writeln!(
                    out,
                    "  <circle cx=\"{x}\" cy=\"{y}\" r=\"{}\"{}/>",
                    num(g, "r"),
                    paint(g, "none")
                );
                (x, y)
            }
            Shape::Text => (x, y),
            Shape::Line => {
                let _ = writeln!(
                    out,
                    "  <line x1=\"{x}\" y1=\"{y}\" x2=\"{}\" y2=\"{}\"{}/>",
                    num(g, "x2"),
                    num(g, "y2"),
                    paint(g, "none")
                );
                (x, y)
            }
            Shape::Polygon => {
                let pts: Vec<String> = points(g).iter().map(|(a, b)| format!("{a},{b}")).collect();
                let _ = writeln!(
                    out,
                    "  <polygon points=\"{}\"{}/>",
                    pts.join(" "),
                    paint(g, "none")
                );
                (x, y)
            }
        };
        if let Some(t) = label(g) {
            let size = g.attr("font-size").map_or("14".to_string(), Value::to_text);
            let colour = if Shape::of(g) == Shape::Text {
                g.attr("fill").map_or("black".to_string(), Value::to_text)
            } else {
                g.attr("color").map_or("black".to_string(), Value::to_text)
            };
            let _ = writeln!(
                out,
                "  <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-size=\"{}\" fill=\"{}\">{}</text>",
                centre.0,
                centre.1,
                escape(&size),
                escape(&colour),
                escape(&t)
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}
