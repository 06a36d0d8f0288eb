//! The one error type of board building: where the description is wrong and why.
//!
//! A description is an identification string (errors point at a byte of it), a board file
//! (errors point at a line and column), or a number (a ring size). Turning an error into a
//! [`Diagnostic`] only needs the span of the string or the id of the file.

use std::fmt;
use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// Where a [`BoardError`] points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorPlace {
    /// Nowhere in particular (a ring size, an unreadable file).
    Nowhere,
    /// Bytes `offset .. offset + len` of an identification string.
    Text {
        /// Byte offset of the offending character.
        offset: usize,
        /// Its length in bytes (0 at the end of the string).
        len: usize,
    },
    /// A place in a board file.
    File {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// Byte range of the offending text or element.
        range: Range<usize>,
    },
}

/// Why a board could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardError {
    /// Stable short name of the kind of problem (`board-identification`, `board-xml`).
    pub code: &'static str,
    /// What is wrong, in one line.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
    /// Where.
    pub place: ErrorPlace,
}

impl BoardError {
    /// An error of kind `code` at `place`.
    pub fn new(code: &'static str, place: ErrorPlace, message: impl Into<String>) -> BoardError {
        BoardError {
            code,
            message: message.into(),
            hint: None,
            place,
        }
    }

    /// Add a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> BoardError {
        self.hint = Some(hint.into());
        self
    }

    /// An error in an identification string at bytes `offset .. offset + len`.
    pub fn in_text(offset: usize, len: usize, message: impl Into<String>) -> BoardError {
        BoardError::new(
            "board-identification",
            ErrorPlace::Text { offset, len },
            message,
        )
    }

    /// The error as a diagnostic. `span` is where the description is: for an
    /// identification string, the span of its text (without quotes), so that the offset is
    /// added to its start; for a file, any span of that file.
    pub fn to_diagnostic(&self, span: Span) -> Diagnostic {
        let span = match &self.place {
            ErrorPlace::Nowhere => span,
            ErrorPlace::Text { offset, len } => {
                let start = span.start as usize + offset;
                Span::new(span.file, start..start + len)
            }
            ErrorPlace::File { range, .. } => Span::new(span.file, range.clone()),
        };
        let d = Diagnostic::error(self.code, span, self.message.clone());
        match &self.hint {
            Some(hint) => d.with_hint(hint.clone()),
            None => d,
        }
    }
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            ErrorPlace::Nowhere => write!(f, "{}", self.message),
            ErrorPlace::Text { offset, .. } => write!(f, "at byte {offset}: {}", self.message),
            ErrorPlace::File { line, column, .. } => {
                write!(f, "line {line}, column {column}: {}", self.message)
            }
        }
    }
}

impl std::error::Error for BoardError {}
