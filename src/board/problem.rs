//! The problems that break the two conditions of a link table, named so that they read
//! without the board, and their warnings.
//!
//! Which links have them is found by [`super::validate`]; a board keeps its problems, as
//! they do not stop it from loading.

use std::fmt;

use super::ids::{CellId, DirId, SourcePos};
use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::symbol::Symbol;

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// Condition 1: `cell` has a second link in `dir`; the first (to `kept`) stays and the
    /// one to `dropped` is ignored.
    SecondLink {
        /// The cell.
        cell: Symbol,
        /// The direction used twice.
        dir: Symbol,
        /// Target of the link kept.
        kept: Symbol,
        /// Target of the link ignored.
        dropped: Symbol,
    },
    /// Condition 2: `to` has no link back to `from` (in `back`, when the rule names one).
    NoLinkBack {
        /// The link's cell.
        from: Symbol,
        /// The link's direction.
        dir: Symbol,
        /// The link's target.
        to: Symbol,
        /// The permutation the link carries, described (empty for none).
        perm: String,
        /// The direction the link back should use, when the board's rule names one.
        back: Option<Symbol>,
    },
    /// Condition 2: the link from `to` in direction `back` leads to `actual`, not `from`.
    BackElsewhere {
        /// The link's cell.
        from: Symbol,
        /// The link's direction.
        dir: Symbol,
        /// The link's target.
        to: Symbol,
        /// The permutation the link carries, described (empty for none).
        perm: String,
        /// The direction of the link back.
        back: Symbol,
        /// Where that link leads instead.
        actual: Symbol,
    },
    /// Condition 2: the link back carries `found`, not the inverse of the link's
    /// permutation.
    BackPermutation {
        /// The link's cell.
        from: Symbol,
        /// The link's direction.
        dir: Symbol,
        /// The link's target.
        to: Symbol,
        /// The permutation the link carries, described (empty for none).
        perm: String,
        /// The direction of the link back.
        back: Symbol,
        /// The permutation the link back carries, described (empty for none).
        found: String,
    },
}

/// One broken condition, with where it is written when the board came from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong.
    pub kind: ProblemKind,
    /// The cell whose link is at fault.
    pub cell: CellId,
    /// The direction of that link.
    pub dir: DirId,
    /// The element of the source file, if any.
    pub at: Option<SourcePos>,
}

impl Problem {
    /// The stable code of the kind of problem.
    pub fn code(&self) -> &'static str {
        match self.kind {
            ProblemKind::SecondLink { .. } => "board-second-link",
            ProblemKind::NoLinkBack { .. }
            | ProblemKind::BackElsewhere { .. }
            | ProblemKind::BackPermutation { .. } => "board-no-inverse",
        }
    }

    /// A warning at the problem's element of the board file `file` when it has one, or at
    /// `fallback` (typically the `#board` directive).
    pub fn to_diagnostic(&self, file: Option<crate::source::FileId>, fallback: Span) -> Diagnostic {
        let span = match (&self.at, file) {
            (Some(at), Some(file)) => Span::new(file, at.range.clone()),
            _ => fallback,
        };
        let hint = match self.kind {
            ProblemKind::SecondLink { .. } => {
                "a cell has at most one link per direction; give the second link its own direction"
            }
            _ => "every link needs a link back that undoes it (condition 2 of the link format)",
        };
        Diagnostic::warning(self.code(), span, self.to_string()).with_hint(hint)
    }
}

/// `the link a -k-> b`, with its permutation when it has one.
fn link_text(from: &Symbol, dir: &Symbol, to: &Symbol, perm: &str) -> String {
    if perm.is_empty() {
        format!("the link {from} -{dir}-> {to}")
    } else {
        format!("the link {from} -{dir}-> {to} (through {perm})")
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ProblemKind::SecondLink {
                cell,
                dir,
                kept,
                dropped,
            } => write!(
                f,
                "`{cell}` has a second link in direction `{dir}` (to `{dropped}`); \
                 the first one, to `{kept}`, is kept"
            ),
            ProblemKind::NoLinkBack {
                from,
                dir,
                to,
                perm,
                back: Some(back),
            } => write!(
                f,
                "{} has no inverse: `{to}` has no link in direction `{back}`",
                link_text(from, dir, to, perm)
            ),
            ProblemKind::NoLinkBack {
                from,
                dir,
                to,
                perm,
                back: None,
            } => write!(
                f,
                "{} has no inverse: `{to}` has no link back to `{from}`",
                link_text(from, dir, to, perm)
            ),
            ProblemKind::BackElsewhere {
                from,
                dir,
                to,
                perm,
                back,
                actual,
            } => write!(
                f,
                "{} has no inverse: `{to}` in direction `{back}` leads to `{actual}`, \
                 not `{from}`",
                link_text(from, dir, to, perm)
            ),
            ProblemKind::BackPermutation {
                from,
                dir,
                to,
                perm,
                back,
                found,
            } => write!(
                f,
                "{} has no inverse: the link back {to} -{back}-> {from} goes through {}, \
                 not the inverse permutation",
                link_text(from, dir, to, perm),
                if found.is_empty() {
                    "no permutation"
                } else {
                    found
                }
            ),
        }
    }
}
