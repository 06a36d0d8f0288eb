//! The two conditions of a link table, and the problems that break them.
//!
//! Condition 1: a cell has at most one link per direction. Builders refuse a second link
//! and record a [`Problem`] ([`ProblemKind::SecondLink`]). Condition 2: every link
//! `(a, k) → b` crossed with permutation `r` has its inverse, a link from `b` back to `a`
//! carrying the inverse of `r`. Which direction of `b` that inverse must use depends on the
//! board ([`InverseRule`]): `r(k)` on BoardGame boards, as their seed states it; the
//! opposite of `k` on grids and rings; any direction on joChess boards, whose direction
//! names are local to each position.
//!
//! Problems name cells, directions and permutations by their names, so they read without
//! the board; they become warnings through [`Problem::to_diagnostic`].

use std::fmt;

use super::topology::{Board, CellId, DirId, InverseRule, Link, PermId, SourcePos};
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

/// A permutation as problems show it: its name (or `π<n>`) with the directions it moves;
/// empty for no permutation.
pub fn describe_perm(board: &Board, p: Option<PermId>) -> String {
    let Some(p) = p else {
        return String::new();
    };
    let moved: Vec<String> = board
        .permutation(p)
        .moved()
        .map(|(a, b)| format!("{}→{}", board.dir_name(a), board.dir_name(b)))
        .collect();
    if moved.is_empty() {
        format!("{}: identity", board.perm_label(p))
    } else {
        format!("{}: {}", board.perm_label(p), moved.join(" "))
    }
}

/// The images of `p` as a table (the identity when `p` is `None`).
fn images(board: &Board, p: Option<PermId>) -> Vec<DirId> {
    match p {
        Some(p) => board.permutation(p).images().to_vec(),
        None => board.all_directions().collect(),
    }
}

/// The inverse of `p` as a table.
fn inverse_images(board: &Board, p: Option<PermId>) -> Vec<DirId> {
    match p {
        Some(p) => board.permutation(p).inverse_images(),
        None => board.all_directions().collect(),
    }
}

/// Every link of `board` without its inverse, in cell and direction order. `position`
/// gives the source element of a link, when there is one.
pub fn inverse_problems(
    board: &Board,
    position: impl Fn(CellId, DirId) -> Option<SourcePos>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for a in board.cells() {
        for (k, link) in board.links(a) {
            if let Some(kind) = check_inverse(board, a, k, link) {
                problems.push(Problem {
                    kind,
                    cell: a,
                    dir: k,
                    at: position(a, k),
                });
            }
        }
    }
    problems
}

fn check_inverse(board: &Board, a: CellId, k: DirId, link: Link) -> Option<ProblemKind> {
    let b = link.target;
    let from = board.cell_name(a);
    let dir = board.dir_name(k);
    let to = board.cell_name(b);
    let back = match board.inverse_rule() {
        InverseRule::Permuted => Some(match link.perm {
            Some(p) => board.permutation(p).apply(k),
            None => k,
        }),
        InverseRule::Opposite => match board.direction(k).opposite {
            Some(o) => Some(o),
            // A direction without an opposite promises nothing.
            None => return None,
        },
        InverseRule::AnyBack => board.links(b).find(|(_, l)| l.target == a).map(|(d, _)| d),
    };
    let perm = || describe_perm(board, link.perm);
    let Some(back) = back else {
        return Some(ProblemKind::NoLinkBack {
            from,
            dir,
            to,
            perm: perm(),
            back: None,
        });
    };
    let Some(inverse) = board.link(b, back) else {
        return Some(ProblemKind::NoLinkBack {
            from,
            dir,
            to,
            perm: perm(),
            back: Some(board.dir_name(back)),
        });
    };
    if inverse.target != a {
        return Some(ProblemKind::BackElsewhere {
            from,
            dir,
            to,
            perm: perm(),
            back: board.dir_name(back),
            actual: board.cell_name(inverse.target),
        });
    }
    if images(board, inverse.perm) != inverse_images(board, link.perm) {
        return Some(ProblemKind::BackPermutation {
            from,
            dir,
            to,
            perm: perm(),
            back: board.dir_name(back),
            found: describe_perm(board, inverse.perm),
        });
    }
    None
}

/// Put problems in board order: by cell, then direction (stable otherwise).
pub fn sort(_board: &Board, problems: &mut [Problem]) {
    problems.sort_by_key(|p| (p.cell, p.dir));
}
