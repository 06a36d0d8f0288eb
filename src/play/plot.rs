//! A run's balance results drawn as an SVG figure (`playout --plot`): each outcome's rate
//! with its 95% Wilson interval, every configuration of the run side by side and, when
//! rules files are compared, a forest plot of each outcome's change from the game as given
//! with its 95% Newcombe interval ([`super::stats`]). Pure: from the tallies to the SVG
//! text, the same bytes for the same tallies (no clock, no floating layout from fonts: text
//! widths are estimated from the number of characters).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::stats::{Tally, difference};

/// What the figure's title says about the run.
#[derive(Debug, Clone, Default)]
pub struct Caption {
    /// The game, as the command line gave it.
    pub game: String,
    /// Games played by each configuration.
    pub games: u64,
    /// The run's seed.
    pub seed: u64,
    /// Who chose the moves (`every player random`, ...).
    pub agents: String,
    /// Rules files in force in every configuration (`--rules`).
    pub rules: Vec<String>,
    /// Parameters given (`name=value`).
    pub params: Vec<String>,
}

/// One outcome the figure shows, in the order it shows them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Winner(String),
    Draw,
    Unfinished,
    Stuck,
    Failed,
}

impl Outcome {
    /// How the figure names it (a winner as the tally names it, as the text summary does).
    fn label(&self) -> String {
        match self {
            Outcome::Winner(w) => format!("winner {}", clip(w, 28, false)),
            Outcome::Draw => "draw".into(),
            Outcome::Unfinished => "unfinished (move limit)".into(),
            Outcome::Stuck => "stuck (no legal move)".into(),
            Outcome::Failed => "failed (error)".into(),
        }
    }

    /// The games of `t` that ended so.
    fn count(&self, t: &Tally) -> u64 {
        match self {
            Outcome::Winner(w) => t.wins.get(w).copied().unwrap_or(0),
            Outcome::Draw => t.draws,
            Outcome::Unfinished => t.too_long,
            Outcome::Stuck => t.stuck,
            Outcome::Failed => t.failed,
        }
    }
}

/// The outcomes of any of the tallies: each winner, a draw, then the games unfinished,
/// stuck or failed when some tally has any.
fn outcomes(tallies: &[&Tally]) -> Vec<Outcome> {
    let winners: BTreeSet<&String> = tallies.iter().flat_map(|t| t.wins.keys()).collect();
    let mut all: Vec<Outcome> = winners
        .into_iter()
        .map(|w| Outcome::Winner(w.clone()))
        .collect();
    all.push(Outcome::Draw);
    for o in [Outcome::Unfinished, Outcome::Stuck, Outcome::Failed] {
        if tallies.iter().any(|t| o.count(t) > 0) {
            all.push(o);
        }
    }
    all
}

/// Colours of the configurations (Okabe and Ito's, told apart with colour blindness).
const COLOURS: [&str; 7] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
];
/// The font of every text.
const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
/// Margin around the figure.
const MARGIN: f64 = 24.0;
/// Width of a panel's data area.
const PLOT_W: f64 = 440.0;
/// Height of one interval's row.
const ROW: f64 = 20.0;
/// Space around the rows of one outcome.
const GAP: f64 = 10.0;
/// Size of a marker (its half-width).
const MARK: f64 = 4.5;

/// The estimated width of `text` at `size` pixels (a sans-serif font's mean advance,
/// a little generous so that nothing overflows).
fn width(text: &str, size: f64, bold: bool) -> f64 {
    let per = if bold { 0.66 } else { 0.6 };
    text.chars().count() as f64 * size * per
}

/// `text` shortened to `max` characters with an ellipsis, keeping its end (a path) or its
/// start.
fn clip(text: &str, max: usize, keep_end: bool) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    if keep_end {
        let tail: String = text.chars().skip(n - (max - 1)).collect();
        format!("…{tail}")
    } else {
        let head: String = text.chars().take(max - 1).collect();
        format!("{head}…")
    }
}

/// `text` escaped for XML text and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A number of percent or points with one decimal, a true minus sign, and no `-0.0`.
fn num(x: f64) -> String {
    if x.abs() < 0.05 {
        return "0.0".into();
    }
    format!("{x:.1}").replace('-', "−")
}

/// A signed number of points with one decimal (`+4.0`, `−2.5`, `0.0`).
fn signed(x: f64) -> String {
    if x.abs() < 0.05 {
        return "0.0".into();
    }
    format!("{x:+.1}").replace('-', "−")
}

/// A tick step for an axis of `extent` units: 1, 2, 2.5 or 5 times a power of ten, at
/// most 5 steps.
fn step(extent: f64) -> f64 {
    let mut unit = 1.0;
    while extent / (unit * 10.0) > 5.0 {
        unit *= 10.0;
    }
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if extent / (m * unit) <= 5.0 {
            return m * unit;
        }
    }
    unit * 10.0
}

/// One horizontal axis: from `lo` to `hi` units drawn from `x0` to `x1` pixels.
struct Axis {
    lo: f64,
    hi: f64,
    step: f64,
    x0: f64,
    x1: f64,
}

impl Axis {
    fn x(&self, v: f64) -> f64 {
        self.x0 + (v - self.lo) / (self.hi - self.lo) * (self.x1 - self.x0)
    }

    fn ticks(&self) -> Vec<f64> {
        let n = ((self.hi - self.lo) / self.step).round() as i64;
        (0..=n).map(|i| self.lo + i as f64 * self.step).collect()
    }
}

/// One interval's row: the configuration (its colour and marker), the value and its
/// interval (in the axis's units), whether it is marked, and the text beside it.
struct Interval {
    run: usize,
    value: f64,
    lo: f64,
    hi: f64,
    hollow: bool,
    text: String,
    bold: bool,
}

/// The SVG text being written.
struct Svg {
    out: String,
}

impl Svg {
    fn text(&mut self, x: f64, y: f64, size: f64, anchor: &str, extra: &str, text: &str) {
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}"{extra}>{}</text>"#,
            esc(text)
        );
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, w: f64) {
        let _ = writeln!(
            self.out,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{w}"/>"#
        );
    }

    /// The marker of configuration `run` centred on (`x`, `y`): filled, or white inside.
    fn marker(&mut self, run: usize, x: f64, y: f64, hollow: bool) {
        let colour = COLOURS[run % COLOURS.len()];
        let fill = if hollow { "#ffffff" } else { colour };
        let paint = format!(r#"fill="{fill}" stroke="{colour}" stroke-width="1.5""#);
        let r = MARK;
        let points = |p: &[(f64, f64)]| -> String {
            p.iter()
                .map(|(dx, dy)| format!("{:.1},{:.1}", x + dx, y + dy))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = match run % 5 {
            0 => writeln!(
                self.out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" {paint}/>"#
            ),
            1 => writeln!(
                self.out,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {paint}/>"#,
                x - r * 0.85,
                y - r * 0.85,
                r * 1.7,
                r * 1.7
            ),
            2 => writeln!(
                self.out,
                r#"<polygon points="{}" {paint}/>"#,
                points(&[
                    (0.0, -r * 1.2),
                    (r * 1.2, 0.0),
                    (0.0, r * 1.2),
                    (-r * 1.2, 0.0)
                ])
            ),
            3 => writeln!(
                self.out,
                r#"<polygon points="{}" {paint}/>"#,
                points(&[(0.0, -r * 1.15), (r * 1.1, r * 0.85), (-r * 1.1, r * 0.85)])
            ),
            _ => writeln!(
                self.out,
                r#"<polygon points="{}" {paint}/>"#,
                points(&[(0.0, r * 1.15), (r * 1.1, -r * 0.85), (-r * 1.1, -r * 0.85)])
            ),
        };
    }
}

/// Where a panel's columns start: the outcome labels, the data, the text beside it.
struct Columns {
    label_x: f64,
    plot_x0: f64,
    plot_x1: f64,
    text_x: f64,
    right: f64,
}

/// One panel: a heading, outcome groups of interval rows on an axis, the axis's title.
struct Panel<'a> {
    id: &'a str,
    heading: &'a str,
    column_heading: &'a str,
    groups: Vec<(String, Vec<Interval>)>,
    axis: Axis,
    axis_title: &'a str,
    /// Where the axis draws a darker line (0 for differences).
    zero: Option<f64>,
    unit: &'a str,
    note: Option<&'a str>,
}

impl Panel<'_> {
    /// Draw the panel from `y` down; gives the `y` below it.
    fn draw(&self, s: &mut Svg, c: &Columns, mut y: f64) -> f64 {
        let _ = writeln!(s.out, r#"<g id="{}">"#, self.id);
        y += 18.0;
        s.text(
            c.label_x,
            y,
            14.0,
            "start",
            r#" font-weight="bold""#,
            self.heading,
        );
        y += 10.0;
        s.text(
            c.text_x,
            y + 6.0,
            11.0,
            "start",
            r##" fill="#555555""##,
            self.column_heading,
        );
        y += 10.0;
        let top = y;
        let bottom = top
            + self
                .groups
                .iter()
                .map(|(_, rows)| rows.len() as f64 * ROW + GAP)
                .sum::<f64>();
        // Bands behind every other outcome, then the grid, then the data.
        let mut g = top;
        for (i, (_, rows)) in self.groups.iter().enumerate() {
            let h = rows.len() as f64 * ROW + GAP;
            if i % 2 == 0 {
                let _ = writeln!(
                    s.out,
                    r##"<rect x="{:.1}" y="{g:.1}" width="{:.1}" height="{h:.1}" fill="#f2f4f7"/>"##,
                    c.label_x - 6.0,
                    c.right - c.label_x + 6.0
                );
            }
            g += h;
        }
        for t in self.axis.ticks() {
            let x = self.axis.x(t);
            if self.zero != Some(t) {
                s.line(x, top, x, bottom, "#d9d9d9", 0.8);
            }
        }
        if let Some(z) = self.zero {
            let x = self.axis.x(z);
            s.line(x, top - 4.0, x, bottom, "#333333", 1.2);
        }
        let mut g = top;
        for (label, rows) in &self.groups {
            let h = rows.len() as f64 * ROW + GAP;
            let _ = writeln!(
                s.out,
                r#"<g class="outcome" data-outcome="{}">"#,
                esc(label)
            );
            s.text(c.label_x, g + h / 2.0 + 4.5, 13.0, "start", "", label);
            for (r, iv) in rows.iter().enumerate() {
                let cy = g + GAP / 2.0 + ROW / 2.0 + r as f64 * ROW;
                let colour = COLOURS[iv.run % COLOURS.len()];
                let (x0, x1) = (self.axis.x(iv.lo), self.axis.x(iv.hi));
                let _ = writeln!(
                    s.out,
                    r#"<g class="interval" data-run="{}" data-value="{:.2}" data-low="{:.2}" data-high="{:.2}">"#,
                    iv.run, iv.value, iv.lo, iv.hi
                );
                s.line(x0, cy, x1, cy, colour, 1.6);
                s.line(x0, cy - 4.0, x0, cy + 4.0, colour, 1.6);
                s.line(x1, cy - 4.0, x1, cy + 4.0, colour, 1.6);
                s.marker(iv.run, self.axis.x(iv.value), cy, iv.hollow);
                let weight = if iv.bold {
                    r##" font-weight="bold" fill="#111111""##
                } else {
                    r##" fill="#222222""##
                };
                s.text(c.text_x, cy + 4.0, 12.0, "start", weight, &iv.text);
                s.out.push_str("</g>\n");
            }
            s.out.push_str("</g>\n");
            g += h;
        }
        // The axis: its line, ticks and their values, and its title.
        s.line(c.plot_x0, bottom, c.plot_x1, bottom, "#333333", 1.0);
        for t in self.axis.ticks() {
            let x = self.axis.x(t);
            s.line(x, bottom, x, bottom + 4.0, "#333333", 1.0);
            let value = if self.zero.is_some() && t > 0.0 {
                format!("+{}", fmt_tick(t))
            } else {
                fmt_tick(t)
            };
            s.text(
                x,
                bottom + 17.0,
                11.0,
                "middle",
                r##" fill="#333333""##,
                &format!("{value}{}", self.unit),
            );
        }
        s.text(
            (c.plot_x0 + c.plot_x1) / 2.0,
            bottom + 35.0,
            12.0,
            "middle",
            "",
            self.axis_title,
        );
        let mut y = bottom + 35.0;
        if let Some(note) = self.note {
            y += 18.0;
            s.text(c.label_x, y, 11.0, "start", r##" fill="#555555""##, note);
        }
        s.out.push_str("</g>\n");
        y + 8.0
    }
}

/// A tick's value: an integer when it is one.
fn fmt_tick(t: f64) -> String {
    if (t - t.round()).abs() < 1e-9 {
        format!("{}", t.round() as i64).replace('-', "−")
    } else {
        num(t)
    }
}

/// The figure of a run: `runs` are its configurations, each with its name in the legend,
/// the game as given first. One panel gives every outcome's rate with its 95% Wilson
/// interval in each configuration; with more than one configuration, a second gives each
/// outcome's change from the first in every other, with its 95% Newcombe interval, marked
/// (filled marker, `*`) when the interval leaves out 0.
pub fn svg(caption: &Caption, runs: &[(String, &Tally)]) -> String {
    let tallies: Vec<&Tally> = runs.iter().map(|(_, t)| *t).collect();
    let all = outcomes(&tallies);
    let compared = runs.len() > 1;

    // Panel 1: rates.
    let mut rate_groups = Vec::new();
    let mut top_rate: f64 = 0.0;
    for o in &all {
        let rows: Vec<Interval> = tallies
            .iter()
            .enumerate()
            .map(|(run, t)| {
                let (_, p, lo, hi) = t.row(o.count(t));
                top_rate = top_rate.max(hi * 100.0);
                Interval {
                    run,
                    value: p * 100.0,
                    lo: lo * 100.0,
                    hi: hi * 100.0,
                    hollow: false,
                    text: format!(
                        "{}% ({}–{})",
                        num(p * 100.0),
                        num(lo * 100.0),
                        num(hi * 100.0)
                    ),
                    bold: false,
                }
            })
            .collect();
        rate_groups.push((o.label(), rows));
    }
    let rate_step = step(top_rate.clamp(10.0, 100.0));
    let rate_hi = ((top_rate / rate_step).ceil() * rate_step).clamp(rate_step, 100.0);

    // Panel 2: changes from the game as given.
    let mut change_groups = Vec::new();
    let mut reach: f64 = 1.0;
    if let Some((base, others)) = tallies.split_first() {
        for o in &all {
            let rows: Vec<Interval> = others
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let (d, lo, hi) = difference(o.count(t), t.games, o.count(base), base.games);
                    let (d, lo, hi) = (d * 100.0, lo * 100.0, hi * 100.0);
                    reach = reach.max(lo.abs()).max(hi.abs());
                    let marked = lo > 0.0 || hi < 0.0;
                    Interval {
                        run: i + 1,
                        value: d,
                        lo,
                        hi,
                        hollow: !marked,
                        text: format!(
                            "{} ({} to {}){}",
                            signed(d),
                            signed(lo),
                            signed(hi),
                            if marked { " *" } else { "" }
                        ),
                        bold: marked,
                    }
                })
                .collect();
            change_groups.push((o.label(), rows));
        }
    }
    let change_step = step(reach);
    let change_hi = (reach / change_step).ceil() * change_step;

    // Widths: the outcome labels, the data, the texts beside it.
    let label_w = all
        .iter()
        .map(|o| width(&o.label(), 13.0, false))
        .fold(70.0, f64::max)
        + 18.0;
    let text_w = rate_groups
        .iter()
        .chain(&change_groups)
        .flat_map(|(_, rows)| rows.iter().map(|r| width(&r.text, 12.0, r.bold)))
        .fold(width("points (95% CI)", 11.0, false), f64::max);
    let label_x = MARGIN;
    let plot_x0 = label_x + label_w;
    let plot_x1 = plot_x0 + PLOT_W;
    let text_x = plot_x1 + 22.0;
    let right = text_x + text_w;

    let title = clip(&caption.game, 70, true);
    let mut about = format!(
        "{} game{}{}, seed {}; agents: {}",
        caption.games,
        if caption.games == 1 { "" } else { "s" },
        if compared { " per configuration" } else { "" },
        caption.seed,
        caption.agents
    );
    if !caption.rules.is_empty() {
        let _ = write!(about, "; rules: {}", caption.rules.join(", "));
    }
    if !caption.params.is_empty() {
        let _ = write!(about, "; {}", caption.params.join(", "));
    }
    let about = clip(&about, 140, false);
    let legend: Vec<String> = runs.iter().map(|(name, _)| clip(name, 80, true)).collect();
    let figure_w = [
        right,
        MARGIN + width(&title, 18.0, true),
        MARGIN + width(&about, 12.5, false),
        MARGIN
            + 22.0
            + legend
                .iter()
                .map(|l| width(l, 12.5, false))
                .fold(0.0, f64::max),
    ]
    .into_iter()
    .fold(0.0, f64::max)
        + MARGIN;

    let columns = Columns {
        label_x,
        plot_x0,
        plot_x1,
        text_x,
        right,
    };
    let mut s = Svg { out: String::new() };
    let mut y = MARGIN + 16.0;
    s.text(label_x, y, 18.0, "start", r#" font-weight="bold""#, &title);
    y += 20.0;
    s.text(label_x, y, 12.5, "start", r##" fill="#444444""##, &about);
    if compared {
        y += 8.0;
        s.out.push_str("<g id=\"legend\">\n");
        for (run, name) in legend.iter().enumerate() {
            y += 18.0;
            s.marker(run, label_x + 8.0, y - 4.5, false);
            s.text(label_x + 22.0, y, 12.5, "start", "", name);
        }
        s.out.push_str("</g>\n");
    }
    y += 8.0;
    let rates = Panel {
        id: "rates",
        heading: "Share of games ending in each outcome",
        column_heading: "rate (95% CI)",
        groups: rate_groups,
        axis: Axis {
            lo: 0.0,
            hi: rate_hi,
            step: rate_step,
            x0: plot_x0,
            x1: plot_x1,
        },
        axis_title: "Share of games (percent; bars: 95% Wilson interval)",
        zero: None,
        unit: "%",
        note: None,
    };
    y = rates.draw(&mut s, &columns, y);
    if compared {
        let changes = Panel {
            id: "changes",
            heading: "Change from the game as given",
            column_heading: "points (95% CI)",
            groups: change_groups,
            axis: Axis {
                lo: -change_hi,
                hi: change_hi,
                step: change_step,
                x0: plot_x0,
                x1: plot_x1,
            },
            axis_title: "Difference in share (percentage points; bars: 95% Newcombe interval)",
            zero: Some(0.0),
            unit: "",
            note: Some("Filled marker and *: the 95% interval leaves out 0."),
        };
        y = changes.draw(&mut s, &columns, y + 14.0);
    }
    let height = y + MARGIN - 8.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{figure_w:.0}" height="{height:.0}" viewBox="0 0 {figure_w:.0} {height:.0}" font-family="{FONT}">"#
    );
    let _ = writeln!(out, "<title>{}</title>", esc(&format!("{title}: {about}")));
    out.push_str(r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    out.push('\n');
    out.push_str(&s.out);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::stats::changes;

    fn tally(games: u64, wins: &[(&str, u64)], draws: u64) -> Tally {
        Tally {
            games,
            wins: wins.iter().map(|(w, k)| (w.to_string(), *k)).collect(),
            draws,
            ..Tally::default()
        }
    }

    fn caption() -> Caption {
        Caption {
            game: "games/awele".into(),
            games: 200,
            seed: 3,
            agents: "every player random".into(),
            ..Caption::default()
        }
    }

    /// The intervals of the panel `id`: (outcome, run, value, low, high).
    fn intervals(svg: &str, id: &str) -> Vec<(String, usize, f64, f64, f64)> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
        let Some(panel) = doc.descendants().find(|n| n.attribute("id") == Some(id)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for g in panel
            .descendants()
            .filter(|n| n.attribute("class") == Some("outcome"))
        {
            for iv in g
                .children()
                .filter(|n| n.attribute("class") == Some("interval"))
            {
                let f = |a: &str| iv.attribute(a).and_then(|v| v.parse::<f64>().ok()).unwrap();
                out.push((
                    g.attribute("data-outcome").unwrap().to_string(),
                    iv.attribute("data-run").unwrap().parse().unwrap(),
                    f("data-value"),
                    f("data-low"),
                    f("data-high"),
                ));
            }
        }
        out
    }

    #[test]
    fn one_interval_per_outcome_and_no_change_panel_alone() {
        let t = tally(200, &[("0", 81), ("1", 106)], 13);
        let svg = svg(&caption(), &[("the game as given".into(), &t)]);
        let rates = intervals(&svg, "rates");
        let names: Vec<&str> = rates.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, ["winner 0", "winner 1", "draw"]);
        assert!((rates[0].2 - 40.5).abs() < 1e-9);
        assert!(intervals(&svg, "changes").is_empty());
        assert!(!svg.contains("id=\"legend\""));
        assert!(svg.contains("40.5%"), "{svg}");
        assert!(svg.contains("games/awele") && svg.contains("seed 3"));
    }

    #[test]
    fn unfinished_stuck_and_failed_games_are_shown_when_there_are_some() {
        let mut t = tally(10, &[("0", 5)], 1);
        t.too_long = 2;
        t.failed = 2;
        let svg = svg(&caption(), &[("the game as given".into(), &t)]);
        let names: Vec<String> = intervals(&svg, "rates").into_iter().map(|r| r.0).collect();
        assert_eq!(
            names,
            [
                "winner 0",
                "draw",
                "unfinished (move limit)",
                "failed (error)"
            ]
        );
    }

    #[test]
    fn changes_are_the_text_summarys_and_marked_when_they_leave_out_zero() {
        let base = tally(200, &[("0", 81), ("1", 106)], 13);
        let a = tally(200, &[("0", 88), ("1", 112)], 0);
        let b = tally(200, &[("0", 89), ("1", 103)], 8);
        let runs = [
            ("the game as given".to_string(), &base),
            ("with a.fr".to_string(), &a),
            ("with b.fr".to_string(), &b),
        ];
        let svg = svg(&caption(), &runs);
        assert_eq!(intervals(&svg, "rates").len(), 9);
        let shown = intervals(&svg, "changes");
        assert_eq!(shown.len(), 6);
        for (run, t) in [(1, &a), (2, &b)] {
            for (o, d, lo, hi) in changes(&base, t) {
                let name = o.map_or("draw".to_string(), |w| format!("winner {w}"));
                let row = shown
                    .iter()
                    .find(|r| r.0 == name && r.1 == run)
                    .expect("shown");
                assert!((row.2 - d * 100.0).abs() < 0.01);
                assert!((row.3 - lo * 100.0).abs() < 0.01 && (row.4 - hi * 100.0).abs() < 0.01);
            }
        }
        // Only the draws of a.fr moved for sure: −6.5 points.
        assert_eq!(svg.matches(" *</text>").count(), 1, "{svg}");
        assert!(svg.contains("−6.5 (−10.8 to −3.2) *"), "{svg}");
        assert!(svg.contains("id=\"legend\"") && svg.contains("with b.fr"));
    }

    #[test]
    fn labels_are_escaped_and_long_ones_shortened() {
        let long = "a<b>&\"c\"".repeat(10);
        let t = tally(4, &[(long.as_str(), 4)], 0);
        let name = format!("with {}", "dir/".repeat(40));
        let svg = svg(&caption(), &[("given".into(), &t), (name, &t)]);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let outcome = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("outcome"))
            .unwrap();
        let label = outcome.attribute("data-outcome").unwrap();
        assert!(label.starts_with("winner a<b>&\"c\"") && label.ends_with('…'));
        let legend = doc
            .descendants()
            .find(|n| n.attribute("id") == Some("legend"))
            .unwrap();
        let shortened = legend
            .descendants()
            .filter_map(|n| n.text())
            .find(|t| t.starts_with('…'))
            .expect("the long name is shortened");
        assert!(shortened.ends_with("/dir/dir/") && shortened.chars().count() == 80);
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(step(100.0), 20.0);
        assert_eq!(step(60.0), 20.0);
        assert_eq!(step(12.0), 2.5);
        assert_eq!(step(1.0), 1.0);
        assert_eq!(step(3.0), 1.0);
        assert_eq!(step(40.0), 10.0);
    }
}
