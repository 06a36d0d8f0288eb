//! Building the boards that `#board` directives describe, with their diagnostics.
//!
//! The checker builds each board to know its cells' names (advice may bind to a cell); the
//! compiler builds it again to make the cells and keep the topology for navigation.
//!
//! A board whose description is an expression (`#board (str (param "size") "x" (param
//! "size")) of cell`) is built when the game starts, once the parameters are known: the
//! compiler records it as a [`LateBoard`] and the session calls [`build_late`] and
//! [`cell_instances`], the same code a literal board goes through at compile time.

use std::path::Path;
use std::sync::Arc;

use crate::board::{self, Board, BoardError, ErrorPlace, Naming};
use crate::diagnostic::Diagnostic;
use crate::source::{SourceMap, Span};
use crate::symbol::Symbol;
use crate::syntax::ast::{BoardDef, BoardShape};

use super::program::{InitValue, Instance, LateBoard, TypeId};

/// How the cells of `def` are named: its `named` clause, or an error pointing at it.
pub fn naming(def: &BoardDef) -> Result<Naming, Box<Diagnostic>> {
    let Some(n) = def.naming else {
        return Ok(Naming::Letters);
    };
    Naming::from_name(n.sym.as_str()).ok_or_else(|| {
        Box::new(
            Diagnostic::error(
                "bad-board",
                n.span,
                format!("`{}` is not a way of naming a grid's cells", n.sym),
            )
            .with_hint(
                "`named go` names columns a to z without i, as Go players do; without `named`, columns are a, b, c, ...",
            ),
        )
    })
}

/// What the expression of a [`LateBoard`] gave when the game started.
#[derive(Clone, Copy, Debug)]
pub enum Described<'a> {
    /// An identification string.
    Text(&'a str),
    /// The number of cells of a ring.
    Size(i64),
}

/// Build the board of `late` from what its expression gave. A board file is read when the
/// game is loaded, and only when a parameter the user gave names it: `files` are those
/// boards, by the parameter's text.
pub fn build_late(
    late: &LateBoard,
    value: Described<'_>,
    files: &[(String, Arc<Board>)],
) -> Result<Arc<Board>, BoardError> {
    if let (None, Described::Text(text)) = (late.ring, value)
        && board::is_file(text)
    {
        return match files.iter().find(|(name, _)| name == text) {
            Some((_, b)) => Ok(b.clone()),
            None => Err(BoardError::new(
                "board-file-at-start",
                ErrorPlace::Nowhere,
                format!("the board file `{text}` was not given as a parameter"),
            )
            .with_hint("a board computed when the game starts reads a file only when the user names it: --param <name>=<file>.xml, with #board (param \"<name>\") of <type>; or name a file of the game with a literal string: #board \"<file>.xml\" of <type>")),
        };
    }
    build_late_shape(late, value).map(Arc::new)
}

fn build_late_shape(late: &LateBoard, value: Described<'_>) -> Result<Board, BoardError> {
    match (late.ring, value) {
        (Some(prefix), Described::Size(n)) => match usize::try_from(n) {
            Ok(size) if size >= 1 => board::ring(size, prefix.as_str()),
            _ => Err(BoardError::new(
                "board-ring-size",
                ErrorPlace::Nowhere,
                format!("a ring has 1 to {} cells, not {n}", board::grid::MAX_RING),
            )),
        },
        (None, Described::Text(text)) => board::from_identification_named(text, late.naming)
            .map_err(|e| {
                let hint = e.hint.clone();
                let mut out = BoardError::new(
                    e.code,
                    ErrorPlace::Nowhere,
                    format!("the board \"{text}\": {}", e.message),
                );
                if let Some(h) = hint {
                    out = out.with_hint(h);
                }
                out
            }),
        _ => Err(BoardError::new(
            "internal",
            ErrorPlace::Nowhere,
            "a board built at start got a description of the wrong kind",
        )),
    }
}

/// An instance of `ty` for every cell of `board` (the `index`-th board of the game), with
/// its coordinates, its links table (direction to cell), the turns of links that permute
/// directions, for rings its index and neighbours, and for joChess boards its `family`
/// (the colour of the square).
pub fn cell_instances(board: &Board, ty: TypeId, ring: bool, span: Span) -> Vec<Instance> {
    let (next, prev) = (Symbol::intern("next"), Symbol::intern("prev"));
    let mut out = Vec::with_capacity(board.cells().len());
    let families = match board.origin() {
        board::origin::Origin::JoChess(data) => Some(&data.position_families),
        _ => None,
    };
    for (i, c) in board.cells().enumerate() {
        let name = board.cell_name(c);
        let mut links = Vec::new();
        let mut turns = Vec::new();
        for (d, link) in board.links(c) {
            let dir = board.dir_name(d);
            links.push((dir, board.cell_name(link.target)));
            if let Some(p) = link.perm {
                let moved = board
                    .permutation(p)
                    .moved()
                    .map(|(a, b)| (board.dir_name(a), board.dir_name(b)))
                    .collect();
                turns.push((dir, moved));
            }
        }
        let coords = board.coords(c).iter().map(|&x| i64::from(x)).collect();
        let mut properties = vec![
            (Symbol::intern("coords"), InitValue::Ints(coords)),
            (Symbol::intern("links"), InitValue::Links(links.clone())),
        ];
        if !turns.is_empty() {
            properties.push((Symbol::intern("turns"), InitValue::Turns(turns)));
        }
        if let Some(family) = families.and_then(|f| f.get(i)).and_then(Option::as_deref) {
            properties.push((
                Symbol::intern("family"),
                InitValue::Str(Symbol::intern(family)),
            ));
        }
        if ring {
            properties.push((Symbol::intern("index"), InitValue::Int(i as i64)));
            for (dir, target) in &links {
                if *dir == next || *dir == prev {
                    properties.push((*dir, InitValue::Str(*target)));
                }
            }
        }
        out.push(Instance {
            name,
            ty,
            properties,
            span,
        });
    }
    out
}

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
            let naming = naming(def)?;
            let err = |e: BoardError| match e.place {
                ErrorPlace::Nowhere if e.code == "board-naming" => {
                    Box::new(e.to_diagnostic(def.naming.map_or(inside, |n| n.span)))
                }
                _ => Box::new(e.to_diagnostic(inside)),
            };
            board::from_identification_named(text.sym.as_str(), naming).map_err(err)?
        }
        BoardShape::Computed { value, .. } => {
            return Err(Box::new(Diagnostic::error(
                "internal",
                value.span,
                "a board computed when the game starts cannot be built before it",
            )));
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
