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

pub use super::problem::{Problem, ProblemKind};
use super::topology::{Board, CellId, DirId, InverseRule, Link, PermId, SourcePos};

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
