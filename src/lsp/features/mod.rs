//! The editor features (hover, go to definition, completion, outline), written over a
//! checked unit in the project's own terms: byte offsets, [`Span`]s, [`FileId`]s and plain
//! result structs. They know nothing of the protocol; `super::convert` turns their results
//! into what the client is sent.

pub mod completion;
pub mod definition;
pub mod hover;
pub mod outline;

use crate::source::{FileId, SourceMap};
use crate::syntax::ast::{EntityDef, FunctionDef, Item, Program};

/// A checked unit: its files and its items.
pub struct Analysis {
    pub sources: SourceMap,
    pub program: Option<Program>,
}

/// A place in a file of an analysis: the file and a byte offset in its text.
#[derive(Clone, Copy, Debug)]
pub struct FilePosition {
    pub file: FileId,
    pub offset: usize,
}

/// The `#define`s of an analysis.
fn functions(a: &Analysis) -> impl Iterator<Item = &FunctionDef> {
    a.program
        .iter()
        .flat_map(|p| &p.items)
        .filter_map(|i| match i {
            Item::Function(f) => Some(f),
            _ => None,
        })
}

/// The `#entity` types of an analysis.
fn entities(a: &Analysis) -> impl Iterator<Item = &EntityDef> {
    a.program
        .iter()
        .flat_map(|p| &p.items)
        .filter_map(|i| match i {
            Item::Entity(e) => Some(e),
            _ => None,
        })
}

/// Whether `c` may be part of a name (a function, an entity type, a builtin such as `<=`).
fn name_char(c: char) -> bool {
    !(c.is_whitespace() || matches!(c, '(' | ')' | '"' | ';'))
}

/// The name around byte `offset` of `text`, with its byte range.
fn word_at(text: &str, offset: usize) -> Option<(&str, std::ops::Range<usize>)> {
    let offset = offset.min(text.len());
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| name_char(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !name_char(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    (start < end).then(|| (&text[start..end], start..end))
}
