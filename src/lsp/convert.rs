//! Conversion between the project's terms and the protocol's: byte offsets and the
//! client's positions (lines from 0, columns in UTF-16 units), `file:` URIs and paths, and
//! the features' results and diagnostics and what the client is sent.

use std::path::{Path, PathBuf};

use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic as LspDiagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DocumentSymbol, HoverContents, Location, MarkupContent, MarkupKind,
    NumberOrString, Position, PublishDiagnosticsParams, Range, SymbolKind, Url,
};

use super::documents::normal;
use super::features::completion::{Completion, CompletionKind};
use super::features::hover::HoverResult;
use super::features::outline::{OutlineItem, OutlineKind};
use crate::diagnostic::{Diagnostic, MAX_SHOWN, Severity};
use crate::source::{SourceFile, SourceMap, Span};

/// The path of a `file:` URI, made normal.
pub(super) fn path_of(uri: &Url) -> Option<PathBuf> {
    uri.to_file_path().ok().map(|p| normal(&p))
}

/// The byte offset in `text` of the client's `position` (clamped to its line and text).
pub(super) fn offset_of(text: &str, position: Position) -> usize {
    let mut start = 0;
    for _ in 0..position.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if c == '\n' || units >= position.character as usize {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The client's range of a byte range of `file`.
pub(super) fn range(file: &SourceFile, range: std::ops::Range<usize>) -> Range {
    // Found by the file's line index, not by scanning the text from its start: placing
    // many diagnostics in a large file stays linear.
    let at = |offset: usize| {
        let (line, start) = file.line_start(offset);
        let mut offset = offset.min(file.text.len());
        while !file.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let column: usize = file.text[start..offset.max(start)]
            .chars()
            .map(char::len_utf16)
            .sum();
        Position::new(line as u32, column as u32)
    };
    Range {
        start: at(range.start),
        end: at(range.end.max(range.start)),
    }
}

/// Where `span` is, for the client.
pub(super) fn location(sources: &SourceMap, span: Span) -> Option<Location> {
    let file = sources.file(span.file);
    let uri = Url::from_file_path(normal(&file.path)).ok()?;
    Some(Location {
        uri,
        range: range(file, span.range()),
    })
}

/// A diagnostic for the client: its range, severity, code and message (with the hint and
/// the context lines), and its notes as related places.
pub(super) fn diagnostic(sources: &SourceMap, d: &Diagnostic) -> LspDiagnostic {
    let file = sources.file(d.span.file);
    let mut message = d.message.clone();
    if let Some(label) = &d.label
        && label != &d.message
    {
        message.push_str(&format!("\n{label}"));
    }
    if let Some(hint) = &d.hint {
        message.push_str(&format!("\nhint: {hint}"));
    }
    for line in &d.context {
        message.push_str(&format!("\n{line}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .notes
        .iter()
        .filter_map(|n| {
            Some(DiagnosticRelatedInformation {
                location: location(sources, n.span)?,
                message: n.message.clone(),
            })
        })
        .collect();
    LspDiagnostic {
        range: range(file, d.span.range()),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("flexrules".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..LspDiagnostic::default()
    }
}

/// The diagnostics of the file at `path` (normal) to publish (`None` when the path makes
/// no `file:` URI).
pub(super) fn publish_diagnostics(
    sources: &SourceMap,
    path: &Path,
    diagnostics: &[Diagnostic],
) -> Option<PublishDiagnosticsParams> {
    let uri = Url::from_file_path(path).ok()?;
    Some(PublishDiagnosticsParams {
        uri,
        // The first ones only (each is placed by scanning its line): see `MAX_SHOWN`.
        diagnostics: (diagnostics.iter().take(MAX_SHOWN))
            .map(|d| diagnostic(sources, d))
            .collect(),
        version: None,
    })
}

/// A hover for the client: its Markdown text and the range of the name it is about.
pub(super) fn hover(sources: &SourceMap, found: HoverResult) -> lsp_types::Hover {
    lsp_types::Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: found.markdown,
        }),
        range: Some(range(sources.file(found.range.file), found.range.range())),
    }
}

/// A completion item for the client.
pub(super) fn completion_item(c: Completion) -> CompletionItem {
    CompletionItem {
        label: c.label,
        kind: Some(match c.kind {
            CompletionKind::Function => CompletionItemKind::FUNCTION,
            CompletionKind::EntityType => CompletionItemKind::CLASS,
        }),
        detail: Some(c.detail),
        ..CompletionItem::default()
    }
}

/// An entry of the outline of `file`, for the client.
pub(super) fn document_symbol(file: &SourceFile, item: OutlineItem) -> DocumentSymbol {
    let kind = match item.kind {
        OutlineKind::Type => SymbolKind::CLASS,
        OutlineKind::State => SymbolKind::ENUM_MEMBER,
        OutlineKind::Behaviour => SymbolKind::METHOD,
        OutlineKind::Function | OutlineKind::Actions => SymbolKind::FUNCTION,
        OutlineKind::Advice => SymbolKind::EVENT,
        OutlineKind::Instance => SymbolKind::OBJECT,
        OutlineKind::Param => SymbolKind::CONSTANT,
        OutlineKind::Board => SymbolKind::NAMESPACE,
        OutlineKind::Setup => SymbolKind::CONSTRUCTOR,
    };
    #[allow(deprecated)]
    DocumentSymbol {
        name: item.name,
        detail: item.detail,
        kind,
        tags: None,
        deprecated: None,
        range: range(file, item.range.range()),
        selection_range: range(file, item.selection.range()),
        children: item.children.map(|children| {
            children
                .into_iter()
                .map(|child| document_symbol(file, child))
                .collect()
        }),
    }
}
