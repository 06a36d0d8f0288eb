//! Reading board files: the XML parser, format detection, and errors with line and column.
//!
//! The root element tells the format: `<board>` is a BoardGame link file
//! ([`super::boardgame`]), `<Board>` a joChess board ([`super::jochess`]). Helpers here
//! read attributes and report what is wrong at the element or attribute at fault.

use std::ops::Range;

use roxmltree::{Document, Node, ParsingOptions};

use super::error::{BoardError, ErrorPlace};
use super::topology::{Board, SourcePos};
use crate::diagnostic::closest;

/// The most XML nodes a board file may have.
const NODES_LIMIT: u32 = 4_000_000;

/// The board in a board file's text, whichever its format. `name` stands for the file in
/// messages when the board has no name of its own.
pub fn from_xml(text: &str, name: &str) -> Result<Board, BoardError> {
    let options = ParsingOptions {
        allow_dtd: true,
        nodes_limit: NODES_LIMIT,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options).map_err(|e| parse_error(text, &e))?;
    let root = doc.root_element();
    let file = XmlFile { doc: &doc };
    match root.tag_name().name() {
        "board" => super::boardgame::read(&file, root),
        "Board" => super::jochess::read(&file, root, name),
        other => Err(file
            .error(
                root,
                format!("`<{other}>` is not a board format this program reads"),
            )
            .with_hint(
                "a BoardGame link file has the root `<board>`, a joChess board the root `<Board>`",
            )),
    }
}

fn parse_error(text: &str, e: &roxmltree::Error) -> BoardError {
    let pos = e.pos();
    let offset = offset_of(text, pos.row, pos.col);
    let len = text[offset..].chars().next().map_or(0, char::len_utf8);
    BoardError::new(
        "board-xml",
        ErrorPlace::File {
            line: pos.row,
            column: pos.col,
            range: offset..offset + len,
        },
        format!("malformed XML: {}", message(e)),
    )
}

/// The parser's message without the position it appends (the error carries it).
fn message(e: &roxmltree::Error) -> String {
    let text = e.to_string();
    let pos = e.pos();
    let suffix = format!(" at {}:{}", pos.row, pos.col);
    text.strip_suffix(&suffix)
        .map_or(text.clone(), str::to_string)
}

/// The byte offset of 1-based `line` and `column` (in characters).
fn offset_of(text: &str, line: u32, column: u32) -> usize {
    let mut offset = 0;
    for _ in 1..line {
        match text[offset..].find('\n') {
            Some(i) => offset += i + 1,
            None => return text.len(),
        }
    }
    let mut chars = text[offset..].char_indices();
    for _ in 1..column {
        if chars.next().is_none() {
            return text.len();
        }
    }
    chars.next().map_or(text.len(), |(i, _)| offset + i)
}

/// A parsed board file, for reporting positions.
pub(crate) struct XmlFile<'a, 'input> {
    doc: &'a Document<'input>,
}

impl<'a, 'input> XmlFile<'a, 'input> {
    /// Where `range` starts, with the range.
    fn place(&self, range: Range<usize>) -> ErrorPlace {
        let pos = self.doc.text_pos_at(range.start);
        ErrorPlace::File {
            line: pos.row,
            column: pos.col,
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
        let pos = self.doc.text_pos_at(range.start);
        SourcePos {
            line: pos.row,
            column: pos.col,
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
