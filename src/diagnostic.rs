//! The one diagnostic type of every phase, and its renderers.
//!
//! Lexer, parser, loader, static checks and (later) the runtime all report through
//! [`Diagnostic`]. Rendering happens only here: ariadne for people, JSON for editors.
//! Knows nothing about syntax or values.

use std::fmt;
use std::io;

use serde::Serialize;

use crate::source::{FileId, SourceMap, Span};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The game cannot load or run.
    Error,
    /// Suspicious but harmless.
    Warning,
}

/// A secondary place a diagnostic points at.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// Where.
    pub span: Span,
    /// What is there.
    pub message: String,
}

/// A message about a place in the sources.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable short name of the kind of problem, such as `unbound-name`.
    pub code: &'static str,
    /// One line saying what is wrong.
    pub message: String,
    /// The primary place.
    pub span: Span,
    /// What to write under the primary place, when it says more than `message`.
    pub label: Option<String>,
    /// Other places worth seeing.
    pub notes: Vec<Note>,
    /// How to fix it, where a hint helps.
    pub hint: Option<String>,
    /// Further lines of context, such as the chain of messages that led to a runtime error.
    pub context: Vec<String>,
}

impl Diagnostic {
    /// An error of kind `code` at `span`.
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: None,
            notes: Vec::new(),
            hint: None,
            context: Vec::new(),
        }
    }

    /// A warning of kind `code` at `span`.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Add the text written under the primary span.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    /// Add a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Add a secondary place.
    pub fn with_note(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Note {
            span,
            message: message.into(),
        });
        self
    }

    /// Add a line of context.
    pub fn with_context(mut self, line: impl Into<String>) -> Diagnostic {
        self.context.push(line.into());
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A span in characters, as ariadne is given it.
#[derive(Clone, Debug)]
struct CharSpan(FileId, std::ops::Range<usize>);

impl ariadne::Span for CharSpan {
    type SourceId = FileId;

    fn source(&self) -> &FileId {
        &self.0
    }

    fn start(&self) -> usize {
        self.1.start
    }

    fn end(&self) -> usize {
        self.1.end
    }
}

/// Adapts a [`SourceMap`] to ariadne's cache.
struct Cache<'a> {
    map: &'a SourceMap,
    sources: Vec<Option<ariadne::Source<std::sync::Arc<str>>>>,
}

impl ariadne::Cache<FileId> for Cache<'_> {
    type Storage = std::sync::Arc<str>;

    fn fetch(&mut self, id: &FileId) -> Result<&ariadne::Source<Self::Storage>, impl fmt::Debug> {
        let i = id.0 as usize;
        if i >= self.sources.len() {
            self.sources.resize_with(i + 1, || None);
        }
        let map = self.map;
        let source = self.sources[i]
            .get_or_insert_with(|| ariadne::Source::from(map.file(*id).text.clone()));
        Ok::<_, String>(source)
    }

    fn display<'b>(&self, id: &'b FileId) -> Option<impl fmt::Display + 'b> {
        Some(self.map.file(*id).path.display().to_string())
    }
}

/// How to render diagnostics for people.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderConfig {
    /// Use terminal colours.
    pub color: bool,
}

/// The most diagnostics shown at once ([`render`], `check --format json`, the language
/// server): past it, the rest are counted, not shown. A file with thousands of errors is
/// mended from its first ones, and showing them all would cost time and output that grow
/// with the square of the file (each excerpt shows its line).
pub const MAX_SHOWN: usize = 100;

/// Source lines longer than this (in bytes) are not shown in an excerpt: the diagnostic
/// gives its place and message only.
pub const MAX_EXCERPT_LINE: usize = 10_000;

/// The line that ends a list of diagnostics cut at [`MAX_SHOWN`]: how many more there are,
/// and of what kind; `None` when none was left out.
pub fn not_shown(diagnostics: &[Diagnostic]) -> Option<String> {
    let rest = diagnostics.get(MAX_SHOWN..).filter(|r| !r.is_empty())?;
    let errors = rest.iter().filter(|d| d.is_error()).count();
    let warnings = rest.len() - errors;
    Some(format!(
        "note: {} more problem{} not shown ({errors} error{}, {warnings} warning{}): mend the ones above and check again",
        rest.len(),
        if rest.len() == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
    ))
}

/// Render `diagnostics` with ariadne into `out`: the first [`MAX_SHOWN`], then a count of
/// the rest.
pub fn render(
    map: &SourceMap,
    diagnostics: &[Diagnostic],
    config: RenderConfig,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    use ariadne::{Color, Config, IndexType, Label, Report, ReportKind};
    let mut cache = Cache {
        map,
        sources: Vec::new(),
    };
    for d in diagnostics.iter().take(MAX_SHOWN) {
        let file = map.file(d.span.file);
        if file.line_len(d.span.start as usize) > MAX_EXCERPT_LINE {
            render_without_excerpt(map, d, out)?;
            continue;
        }
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let color = match d.severity {
            Severity::Error => Color::Red,
            Severity::Warning => Color::Yellow,
        };
        // Labels are given in source order so that ariadne shows the places of one file in
        // one excerpt, top to bottom.
        let mut places: Vec<(Span, &str, Color)> = Vec::with_capacity(1 + d.notes.len());
        places.push((d.span, d.label.as_deref().unwrap_or(&d.message), color));
        places.extend(
            d.notes
                .iter()
                .map(|n| (n.span, n.message.as_str(), Color::Blue)),
        );
        places.sort_by_key(|(s, _, _)| (s.file, s.start));
        // ariadne is given character offsets: with byte offsets it mislocates (and can
        // panic on) labels in a file other than the primary one that has multi-byte text.
        let chars = |s: Span| CharSpan(s.file, map.file(s.file).char_range(s.range()));
        let mut report = Report::build(kind, chars(d.span))
            .with_config(
                Config::default()
                    .with_color(config.color)
                    .with_index_type(IndexType::Char),
            )
            .with_code(d.code)
            .with_message(&d.message);
        for (order, (span, message, color)) in places.into_iter().enumerate() {
            report = report.with_label(
                Label::new(chars(span))
                    .with_message(message)
                    .with_color(color)
                    .with_order(order as i32),
            );
        }
        for line in &d.context {
            report = report.with_note(line);
        }
        if let Some(hint) = &d.hint {
            report = report.with_help(hint);
        }
        report.finish().write(&mut cache, &mut *out)?;
    }
    if let Some(line) = not_shown(diagnostics) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// One diagnostic as its kind, place and message, with its hint: for a place on a line too
/// long to show.
fn render_without_excerpt(
    map: &SourceMap,
    d: &Diagnostic,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let file = map.file(d.span.file);
    let (line, col) = file.line_col(d.span.start as usize);
    let kind = match d.severity {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
    };
    writeln!(out, "[{}] {kind}: {}", d.code, d.message)?;
    writeln!(
        out,
        "   at {}:{line}:{col} (a line of {} bytes, too long to show)",
        file.path.display(),
        file.line_len(d.span.start as usize)
    )?;
    for line in &d.context {
        writeln!(out, "   note: {line}")?;
    }
    if let Some(hint) = &d.hint {
        writeln!(out, "   help: {hint}")?;
    }
    Ok(())
}

/// Render `diagnostics` to a string without colour (tests, logs).
pub fn render_plain(map: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = render(map, diagnostics, RenderConfig { color: false }, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The machine-readable form of one diagnostic (`--format json`).
#[derive(Serialize)]
pub struct JsonDiagnostic<'a> {
    /// The primary place, and what is wrong (`message`).
    #[serde(flatten)]
    pub at: JsonPlace<'a>,
    /// `error` or `warning`.
    pub severity: Severity,
    /// Kind of problem.
    pub code: &'a str,
    /// How to fix it.
    pub hint: Option<&'a str>,
    /// Further context lines.
    pub context: &'a [String],
    /// Other places worth seeing (a first definition, the calls a runtime error was in).
    pub notes: Vec<JsonPlace<'a>>,
}

/// A place in the sources, in JSON, with what is said of it.
#[derive(Serialize)]
pub struct JsonPlace<'a> {
    /// Path of the file.
    pub file: String,
    /// Byte range `[start, end)`.
    pub range: [u32; 2],
    /// 1-based line of the start.
    pub line: usize,
    /// 1-based column (characters) of the start.
    pub column: usize,
    /// 1-based line of the end.
    pub end_line: usize,
    /// 1-based column of the end.
    pub end_column: usize,
    /// What is said of the place.
    pub message: &'a str,
}

/// The JSON form of place `span` and what `message` says of it.
fn place<'a>(map: &SourceMap, span: Span, message: &'a str) -> JsonPlace<'a> {
    let file = map.file(span.file);
    let (line, column) = file.line_col(span.start as usize);
    let (end_line, end_column) = file.line_col(span.end as usize);
    JsonPlace {
        file: file.path.display().to_string(),
        range: [span.start, span.end],
        line,
        column,
        end_line,
        end_column,
        message,
    }
}

/// The JSON form of `d`.
pub fn to_json<'a>(map: &SourceMap, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        at: place(map, d.span, &d.message),
        severity: d.severity,
        code: d.code,
        hint: d.hint.as_deref(),
        context: &d.context,
        notes: d
            .notes
            .iter()
            .map(|n| place(map, n.span, &n.message))
            .collect(),
    }
}

/// The candidate closest to `word`, if one is close enough to be a likely typo: at most a
/// third of its characters changed (one for a short word), and never all of them (`f` is
/// not a typo for `%`).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = word.chars().count();
    let limit = (len / 3).max(1).min(len.saturating_sub(1));
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| *c != word && c.chars().count().abs_diff(len) <= limit)
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, c)| (d, c))
        .map(|(_, c)| c)
}

/// Edit distance counting insertions, deletions, substitutions and swaps of two
/// neighbouring characters (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// Order diagnostics by file and position, as a reader meets them.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start, d.span.end));
}

/// An XML parser's message without the position it appends (the diagnostic shows it).
pub fn xml_message(e: &roxmltree::Error) -> String {
    let text = e.to_string();
    let pos = e.pos();
    let suffix = format!(" at {}:{}", pos.row, pos.col);
    text.strip_suffix(&suffix)
        .map_or(text.clone(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn closest_finds_typos_but_not_every_character_changed() {
        assert_eq!(closest("peice", ["piece", "rank"]), Some("piece"));
        assert_eq!(closest("sqaure", ["square", "game"]), Some("square"));
        assert_eq!(closest("fo", ["for", "if"]), Some("for"));
        // A different case is a typo at any length.
        assert_eq!(closest("N", ["n", "e"]), Some("n"));
        // A one-character word is never a typo for another one-character name: every
        // character would have changed.
        assert_eq!(closest("f", ["%", "+"]), None);
        assert_eq!(closest("x", ["n", "e", "s", "w"]), None);
        assert_eq!(closest("ab", ["xy"]), None);
    }
}
