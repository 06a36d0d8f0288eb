//! Building the boards that `#board` directives describe, with their diagnostics.
//!
//! The checker builds each board to know its cells' names (advice may bind to a cell); the
//! compiler builds it again to make the cells and keep the topology for navigation.

use std::path::Path;

use crate::board::{self, Board, BoardError};
use crate::diagnostic::Diagnostic;
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{BoardDef, BoardShape};

/// Build the board of `def`: the board and its warnings (link conditions broken), or the
/// error that stops it being built.
pub fn build(
    def: &BoardDef,
    sources: &SourceMap,
) -> Result<(Board, Vec<Diagnostic>), Box<Diagnostic>> {
    let at = |span: Span| move |e: BoardError| Box::new(e.to_diagnostic(span));
    let board = match &def.shape {
        BoardShape::Ring { size, prefix } => {
            board::ring(*size as usize, prefix.sym.as_str()).map_err(at(def.span))?
        }
        BoardShape::Identification(text) => {
            // Offsets in the error count from the first character inside the quotes.
            let inside = Span {
                file: text.span.file,
                start: text.span.start + 1,
                end: text.span.end.saturating_sub(1).max(text.span.start + 1),
            };
            board::from_identification(text.sym.as_str()).map_err(at(inside))?
        }
        BoardShape::File { path, file, .. } => {
            let Some(file) = file else {
                // The loader could not read it and said so.
                return Err(Box::new(Diagnostic::error(
                    "missing-file",
                    path.span,
                    format!("board file `{}` could not be read", path.sym),
                )));
            };
            let source = sources.file(*file);
            let stem = Path::new(path.sym.as_str())
                .file_stem()
                .map_or("board".into(), |s| s.to_string_lossy().into_owned());
            board::from_xml(&source.text, &stem).map_err(at(Span::new(*file, 0..0)))?
        }
    };
    let file = match &def.shape {
        BoardShape::File { file, .. } => *file,
        _ => None,
    };
    let warnings = board
        .problems()
        .iter()
        .map(|p| p.to_diagnostic(file, def.span))
        .collect();
    Ok((board, warnings))
}
