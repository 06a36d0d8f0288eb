//! Reading board files as XML: the parser within its limits, and errors with line and
//! column.
//!
//! Helpers here read attributes and report what is wrong at the element or attribute at
//! fault; the format readers ([`super::boardgame`], [`super::jochess`]) use them.

use std::ops::Range;

use roxmltree::{Document, Node, ParsingOptions};

use super::error::{BoardError, ErrorPlace};
use super::ids::SourcePos;
use crate::diagnostic::closest;

/// The most XML nodes a board file may have.
const NODES_LIMIT: u32 = 4_000_000;

/// Most attributes one element may have (a board element has a handful; the parser's
/// duplicate check takes time quadratic in this number).
const MAX_ATTRIBUTES: usize = 1_000;

/// Most bytes entity references may expand to, in all (the file itself is at most 16 MB).
const MAX_EXPANSION: u64 = 16 << 20;

/// The document in a board file's text, parsed within this reader's limits (nodes,
/// attributes, entity expansion), and the file to report errors against.
pub(crate) fn parse<'a, 'input>(
    text: &'input str,
) -> Result<(Document<'input>, XmlFile<'a, 'input>), BoardError> {
    let options = ParsingOptions {
        allow_dtd: true,
        nodes_limit: NODES_LIMIT,
        ..ParsingOptions::default()
    };
    prescan(text)?;
    let doc = Document::parse_with_options(text, options).map_err(|e| parse_error(text, &e))?;
    let file = XmlFile {
        doc: std::marker::PhantomData,
        lines: Lines::new(text),
    };
    Ok((doc, file))
}

fn parse_error(text: &str, e: &roxmltree::Error) -> BoardError {
    let pos = e.pos();
    let offset = crate::source::offset_at(text, pos.row, pos.col);
    let len = text[offset..].chars().next().map_or(0, char::len_utf8);
    BoardError::new(
        "board-xml",
        ErrorPlace::File {
            line: pos.row,
            column: pos.col,
            range: offset..offset + len,
        },
        format!("malformed XML: {}", crate::diagnostic::xml_message(e)),
    )
}

/// A parsed board file, for reporting positions.
pub(crate) struct XmlFile<'a, 'input> {
    /// The nodes handed to the methods borrow the document.
    doc: std::marker::PhantomData<&'a Document<'input>>,
    lines: Lines<'input>,
}

impl<'a, 'input> XmlFile<'a, 'input> {
    /// Where `range` starts, with the range.
    fn place(&self, range: Range<usize>) -> ErrorPlace {
        let (line, column) = self.lines.at(range.start);
        ErrorPlace::File {
            line,
            column,
            range,
        }
    }

    /// The start tag's `<name` of `node`.
    fn tag_range(node: Node) -> Range<usize> {
        let start = node.range().start;
        start..start + 1 + node.tag_name().name().len()
    }

    /// The position of `node`, for problems.
    pub fn position(&self, node: Node) -> SourcePos {
        let range = Self::tag_range(node);
        let (line, column) = self.lines.at(range.start);
        SourcePos {
            line,
            column,
            range,
        }
    }

    /// An error at the start tag of `node`.
    pub fn error(&self, node: Node, message: impl Into<String>) -> BoardError {
        BoardError::new("board-xml", self.place(Self::tag_range(node)), message)
    }

    /// An error at the value of attribute `attr` of `node` (at the tag if it is absent).
    pub fn attr_error(&self, node: Node, attr: &str, message: impl Into<String>) -> BoardError {
        let range = node
            .attributes()
            .find(|a| a.name() == attr)
            .map_or_else(|| Self::tag_range(node), |a| a.range_value());
        BoardError::new("board-xml", self.place(range), message)
    }

    /// An error at the text of `node` (`Name` in `<Rule>Name</Rule>`, without the space
    /// around it; at the tag if it has none).
    pub fn text_error(&self, node: Node, message: impl Into<String>) -> BoardError {
        let range = node
            .children()
            .find(|c| c.is_text() && c.text().is_some_and(|t| !t.trim().is_empty()))
            .and_then(|c| {
                let range = c.range();
                let raw = c.text()?;
                // The parser's text equals the source only without entity references.
                (raw.len() == range.len()).then(|| {
                    let lead = raw.len() - raw.trim_start().len();
                    range.start + lead..range.start + lead + raw.trim().len()
                })
            })
            .unwrap_or_else(|| Self::tag_range(node));
        BoardError::new("board-xml", self.place(range), message)
    }

    /// The value of attribute `attr`, which the format requires.
    pub fn required(&self, node: Node<'a, 'input>, attr: &str) -> Result<&'a str, BoardError> {
        node.attribute(attr).ok_or_else(|| {
            self.error(
                node,
                format!(
                    "`<{}>` lacks its `{attr}` attribute",
                    node.tag_name().name()
                ),
            )
        })
    }

    /// The value of attribute `attr` as a number.
    pub fn number(&self, node: Node<'a, 'input>, attr: &str) -> Result<f64, BoardError> {
        let text = self.required(node, attr)?;
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                self.attr_error(node, attr, format!("`{attr}=\"{text}\"` is not a number"))
            })
    }

    /// An error for a reference `attr` of `node` that names nothing among `known`.
    pub fn unknown<'k>(
        &self,
        node: Node,
        attr: &str,
        what: &str,
        value: &str,
        known: impl IntoIterator<Item = &'k str>,
    ) -> BoardError {
        let e = self.attr_error(node, attr, format!("`{attr}=\"{value}\"` names no {what}"));
        match closest(value, known) {
            Some(c) => e.with_hint(format!("did you mean `{c}`?")),
            None => e,
        }
    }
}

/// The element children of `node`.
pub(crate) fn elements<'a, 'input>(
    node: Node<'a, 'input>,
) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children().filter(Node::is_element)
}

/// The element children of `node` named `name`.
pub(crate) fn children_named<'a, 'input>(
    node: Node<'a, 'input>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'input>> {
    elements(node).filter(move |n| n.tag_name().name() == name)
}

/// All attributes of `node` as name and value.
pub(crate) fn attributes(node: Node) -> Vec<(String, String)> {
    node.attributes()
        .map(|a| (a.name().to_string(), a.value().to_string()))
        .collect()
}

/// Line and column (1-based, columns in characters) of byte offsets, in time that does not
/// grow with the offset: the line starts are found once, and the column is counted from
/// the line start, or from the previous answer when it was earlier on the same line (the
/// readers ask in file order, so a file on one long line is not counted again and again).
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
    last: std::cell::Cell<(usize, usize, u32)>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Lines<'t> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines {
            text,
            starts,
            last: std::cell::Cell::new((usize::MAX, 0, 1)),
        }
    }

    fn at(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts[line];
        let (last_line, last_offset, last_column) = self.last.get();
        let (from, column) = if last_line == line && last_offset <= offset {
            (last_offset, last_column)
        } else {
            (start, 1)
        };
        let counted = self
            .text
            .get(from..offset)
            .map_or(0, |t| t.chars().count() as u32);
        let column = column + counted;
        self.last.set((line, offset, column));
        (line as u32 + 1, column)
    }
}

/// Checks made in one pass before the XML parser runs: no element with more than
/// [`MAX_ATTRIBUTES`] attributes, and entity references that expand to at most
/// [`MAX_EXPANSION`] bytes in all.
fn prescan(text: &str) -> Result<(), BoardError> {
    let lines = Lines::new(text);
    let refuse = |at: usize, message: String, hint: &str| {
        let (line, column) = lines.at(at);
        let len = text[at..].chars().next().map_or(0, char::len_utf8);
        BoardError::new(
            "board-xml",
            ErrorPlace::File {
                line,
                column,
                range: at..at + len,
            },
            message,
        )
        .with_hint(hint.to_string())
    };
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &text[i..];
        let skip_to = |end: &str| rest.find(end).map_or(bytes.len(), |k| i + k + end.len());
        if rest.starts_with("<!--") {
            i = skip_to("-->");
        } else if rest.starts_with("<![CDATA[") {
            i = skip_to("]]>");
        } else if rest.starts_with("<?") {
            i = skip_to("?>");
        } else if rest.starts_with("<!") {
            // A DOCTYPE with its internal subset: entities are checked below.
            i += 2;
        } else {
            // An element tag: count the attributes outside quoted values.
            let tag = i;
            let mut count = 0;
            let mut quote = None;
            i += 1;
            while i < bytes.len() {
                match (quote, bytes[i]) {
                    (None, b'>') => break,
                    (None, q @ (b'"' | b'\'')) => quote = Some(q),
                    (None, b'=') => count += 1,
                    (Some(q), c) if c == q => quote = None,
                    _ => {}
                }
                i += 1;
            }
            if count > MAX_ATTRIBUTES {
                return Err(refuse(
                    tag,
                    format!(
                        "this element has {count} attributes, more than the {MAX_ATTRIBUTES} a board file may give one element"
                    ),
                    "a board element needs only a few attributes",
                ));
            }
        }
    }
    entity_expansion(text, &refuse)
}

/// The total size entity references in `text` may expand to, refused past
/// [`MAX_EXPANSION`]. Each declared entity's expanded size is worked out once (references
/// inside its value included); every reference in the file then adds that size.
fn entity_expansion(
    text: &str,
    refuse: &dyn Fn(usize, String, &str) -> BoardError,
) -> Result<(), BoardError> {
    use std::collections::HashMap;
    if !text.contains("<!ENTITY") {
        return Ok(());
    }
    // name -> (value, where declared)
    let mut declared: HashMap<&str, (&str, usize)> = HashMap::new();
    for (at, _) in text.match_indices("<!ENTITY") {
        let rest = text[at + 8..].trim_start();
        let rest = rest.strip_prefix('%').map_or(rest, str::trim_start);
        let name_end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_end);
        let after = after.trim_start();
        let Some(q) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue; // external (SYSTEM or PUBLIC): never expanded here
        };
        let value = &after[1..];
        let value = &value[..value.find(q).unwrap_or(value.len())];
        declared.entry(name).or_insert((value, at));
    }
    let mut sizes: HashMap<&str, u64> = HashMap::new();
    let names: Vec<&str> = declared.keys().copied().collect();
    for name in names {
        expanded_size(name, &declared, &mut sizes, 0);
    }
    let mut total: u64 = 0;
    for (at, _) in text.match_indices('&') {
        let rest = &text[at + 1..];
        let Some(end) = rest.find(';').filter(|&e| e <= 64) else {
            continue;
        };
        if let Some(size) = sizes.get(&rest[..end]) {
            total = total.saturating_add(*size);
            if total > MAX_EXPANSION {
                return Err(refuse(
                    at,
                    format!(
                        "entity references would expand to more than {} MB",
                        MAX_EXPANSION >> 20
                    ),
                    "use entities for short values only",
                ));
            }
        }
    }
    Ok(())
}

/// The expanded size of entity `name` (saturating; an entity that refers to itself counts
/// as unbounded, and the parser reports the loop).
fn expanded_size<'t>(
    name: &'t str,
    declared: &std::collections::HashMap<&'t str, (&'t str, usize)>,
    sizes: &mut std::collections::HashMap<&'t str, u64>,
    depth: usize,
) -> u64 {
    if let Some(&s) = sizes.get(name) {
        return s;
    }
    let Some(&(value, _)) = declared.get(name) else {
        return 0;
    };
    if depth > 16 {
        return u64::MAX;
    }
    sizes.insert(name, u64::MAX);
    let mut size = value.len() as u64;
    for (at, _) in value.match_indices('&') {
        let rest = &value[at + 1..];
        if let Some(end) = rest.find(';') {
            let inner = &rest[..end];
            if declared.contains_key(inner) {
                size = size.saturating_add(expanded_size(inner, declared, sizes, depth + 1));
            }
        }
    }
    sizes.insert(name, size);
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions agree with the parser's own (which scans from the start each time), in
    /// any order of asking, on lines with multi-byte characters.
    #[test]
    fn positions_agree_with_the_parser() {
        let text = "<a>\n  <b x=\"é\"/>\n<c>ééé<d/></c>\n\n  <e/>\n</a>";
        let doc = Document::parse(text).unwrap();
        let lines = Lines::new(text);
        let offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for &at in offsets.iter().chain(offsets.iter().rev()) {
            let pos = doc.text_pos_at(at);
            assert_eq!(lines.at(at), (pos.row, pos.col), "at {at}");
        }
    }
}
