//! Lowering: the reader's S-expressions to the typed AST.
//!
//! This is where form and directive names are recognised, keywords are checked in their
//! positions, `do ... end` and `if ... else ...` are validated, and entity blocks
//! (`#entity` / `#state` / `#onMessage`) are grouped. Lowering never stops at an error: a
//! malformed form becomes [`ExprKind::Error`] with a diagnostic and the rest of the file is
//! still lowered. It does not read files (the loader does) and does not resolve names
//! (the checker does).

mod directives;
mod forms;

use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};

use super::ast::{Expr, ExprKind, Item, Name, Symbol};
use super::reader::{Atom, File, Sexp};
use super::token::unescape;

/// Lowers the S-expressions of one file.
pub struct Lowerer<'a> {
    file: FileId,
    diags: &'a mut Vec<Diagnostic>,
}

impl<'a> Lowerer<'a> {
    /// A lowerer for `file`, reporting into `diags`.
    pub fn new(file: FileId, diags: &'a mut Vec<Diagnostic>) -> Lowerer<'a> {
        Lowerer { file, diags }
    }

    /// Lower a game file: its directives, in order. Statements before the first directive
    /// are reported.
    pub fn game_file(&mut self, file: &File<'_>) -> Vec<Item> {
        if let Some(first) = file.leading.first() {
            let span = self.span(first.span());
            self.error(
                Diagnostic::error(
                    "statement-outside-directive",
                    span,
                    "a statement outside any directive",
                )
                .with_hint(
                    "code belongs after #onMessage, #setup, #define or similar; \
                     a file of bare statements is an advice file, bound with #law or #sideeffect",
                ),
            );
            for s in &file.leading {
                self.expr(s);
            }
        }
        directives::lower(self, &file.directives)
    }

    /// Lower an advice file: its statements, in order. Directives are reported.
    pub fn advice_file(&mut self, file: &File<'_>) -> Vec<Expr> {
        for d in &file.directives {
            let span = self.span(d.name_span.clone());
            self.error(
                Diagnostic::error(
                    "directive-in-advice-file",
                    span,
                    format!("#{} in an advice file", d.name),
                )
                .with_hint(
                    "a .law or .se file holds only statements, run in order; \
                     put directives in the game's .fr files",
                ),
            );
        }
        self.statements(&file.leading)
    }

    /// Lower a sequence of statements.
    pub fn statements(&mut self, items: &[Sexp<'_>]) -> Vec<Expr> {
        items.iter().map(|s| self.expr(s)).collect()
    }

    fn span(&self, range: Range<usize>) -> Span {
        Span::new(self.file, range)
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn error_expr(&self, range: Range<usize>) -> Expr {
        Expr {
            kind: ExprKind::Error,
            span: self.span(range),
        }
    }

    /// A name in a directive position: an identifier or a string.
    fn name(&mut self, s: &Sexp<'_>, what: &str, usage: &str) -> Option<Name> {
        match s {
            Sexp::Atom(Atom::Ident(text), range) => Some(Name {
                sym: Symbol::intern(text),
                span: self.span(range.clone()),
            }),
            Sexp::Atom(Atom::Str(body), range) => Some(Name {
                sym: Symbol::intern(&unescape(body)),
                span: self.span(range.clone()),
            }),
            Sexp::Atom(Atom::Error(_), _) => None,
            other => {
                let span = self.span(other.span());
                self.error(
                    Diagnostic::error("expected-name", span, format!("expected {what}"))
                        .with_label(format!("{what} must be a name or a string"))
                        .with_hint(format!("usage: {usage}")),
                );
                None
            }
        }
    }

    /// An identifier (not a string): variables and parameters.
    fn ident(&mut self, s: &Sexp<'_>, what: &str, usage: &str) -> Option<Name> {
        match s {
            Sexp::Atom(Atom::Ident(text), range) if RESERVED.contains(text) => {
                let span = self.span(range.clone());
                self.error(
                    Diagnostic::error(
                        "reserved-name",
                        span,
                        format!("`{text}` cannot be a variable name"),
                    )
                    .with_label(format!("`{text}` always means the same thing"))
                    .with_hint("choose another name"),
                );
                None
            }
            Sexp::Atom(Atom::Ident(text), range) => Some(Name {
                sym: Symbol::intern(text),
                span: self.span(range.clone()),
            }),
            Sexp::Atom(Atom::Error(_), _) => None,
            other => {
                let span = self.span(other.span());
                self.error(
                    Diagnostic::error("expected-name", span, format!("expected {what}"))
                        .with_label(format!("{what} must be a plain name"))
                        .with_hint(format!("usage: {usage}")),
                );
                None
            }
        }
    }

    /// Report an unclosed list once (not when an unterminated string, already reported,
    /// swallowed its `)`).
    fn check_closed(&mut self, s: &Sexp<'_>) {
        if let Sexp::List {
            closed: false,
            span,
            ..
        } = s
            && !s.ends_in_unterminated_string()
        {
            let open = self.span(span.start..span.start + 1);
            self.error(
                Diagnostic::error("unclosed-paren", open, "this `(` is never closed")
                    .with_label("opened here")
                    .with_hint("add the missing `)`; a form ends before the next directive"),
            );
        }
    }

    fn stray(&mut self, range: Range<usize>) {
        let span = self.span(range);
        self.error(
            Diagnostic::error("unmatched-paren", span, "this `)` closes nothing")
                .with_hint("remove it, or add the `(` it was meant to close"),
        );
    }
}

/// Words that can never name a variable: literals, `message` and the block words.
const RESERVED: &[&str] = &["nil", "true", "false", "message", "else", "end"];

/// True when `s` is the identifier `word`.
fn is_word(s: &Sexp<'_>, word: &str) -> bool {
    matches!(s, Sexp::Atom(Atom::Ident(w), _) if *w == word)
}
