//! Source files and spans.
//!
//! Owns the table of loaded files and the [`Span`] type every later phase uses to point
//! back into them. Knows nothing about tokens, syntax or the runtime.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range inside one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file the range lies in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span of `range` in `file`.
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span {
            file,
            start: range.start as u32,
            end: range.end as u32,
        }
    }

    /// The byte range as `usize`s.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as given to the loader (used in diagnostics).
    pub path: PathBuf,
    /// Full text.
    pub text: Arc<str>,
    /// Byte offset of the start of each line.
    line_starts: Vec<u32>,
}

impl SourceFile {
    fn new(path: PathBuf, text: Arc<str>) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        SourceFile {
            path,
            text,
            line_starts,
        }
    }

    /// The character offsets of the byte range `range` (clamped to the text, and to
    /// character boundaries).
    pub fn char_range(&self, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let count = |b: usize| {
            let mut b = b.min(self.text.len());
            while !self.text.is_char_boundary(b) {
                b -= 1;
            }
            self.text[..b].chars().count()
        };
        let start = count(range.start);
        start..count(range.end).max(start)
    }

    /// 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&(offset as u32)) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line] as usize;
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// The line holding `offset` (from 0) and the byte where it starts.
    pub fn line_start(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&(offset as u32)) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        (line, self.line_starts[line] as usize)
    }

    /// The length in bytes of the line holding `offset` (without its newline).
    pub fn line_len(&self, offset: usize) -> usize {
        let (line, start) = self.line_start(offset);
        let end = (self.line_starts.get(line + 1).map(|&e| e as usize)).unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r']).len()
    }
}

/// Every file loaded for one game, addressed by [`FileId`].
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Add a file and return its id.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile::new(path.into(), text.into()));
        id
    }

    /// The file with id `id`.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The id of the file at `path`, if it is loaded.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path == path)
            .map(|i| FileId(i as u32))
    }

    /// Text covered by `span`.
    pub fn text(&self, span: Span) -> &str {
        self.file(span.file)
            .text
            .get(span.range())
            .unwrap_or_default()
    }

    /// All files, in load order.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }
}

/// The byte offset of 1-based `line` and `column` (in characters).
pub fn offset_at(text: &str, line: u32, column: u32) -> usize {
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
