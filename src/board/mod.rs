//! Boards: the topologies games are played on, and the formats they are described in.
//!
//! A [`Board`] ([`topology`]) is cells, named directions and links, each link possibly
//! carrying a permutation of the directions; navigation ([`Board::neighbor`],
//! [`Board::walk`], [`Board::ray`], [`Board::directions`]) costs O(1) per step. Boards are
//! built from:
//!
//! - identification strings ([`ident`], [`outline`] for the path geometry), made into grids
//!   of two to four dimensions by [`grid::from_identification`];
//! - a size and a prefix ([`grid::ring`]);
//! - board files ([`from_xml`]): the BoardGame link format ([`boardgame`]) and the joChess
//!   format ([`jochess`]), told apart by their root element.
//!
//! Every board is checked against the two conditions of a link table ([`validate`]); what
//! breaks them is kept as [`Problem`]s, not errors, so that a board with a missing inverse
//! still loads. Malformed descriptions are [`BoardError`]s pointing at a byte of the string
//! or a line and column of the file. [`render`] draws boards as text and SVG.
//!
//! *Boundary:* this layer reads no file and knows nothing of entities, values or the VM; it
//! sits below `compile` and `runtime` and imports neither. Callers read board files and
//! hand their text to [`from_xml`].

pub mod boardgame;
pub mod builder;
pub mod error;
mod file;
pub mod grid;
pub mod ident;
pub mod ids;
pub mod jochess;
pub mod naming;
pub mod origin;
pub mod outline;
pub mod problem;
pub mod render;
pub mod shape;
pub mod topology;
pub mod validate;
mod xml;

pub use error::{BoardError, ErrorPlace};
pub use file::from_xml;
pub use grid::{from_identification, from_identification_named, ring};
pub use ident::Ident;
pub use naming::Naming;
pub use origin::ChessData;
pub use origin::GridInfo;
pub use outline::Move;
pub use problem::{Problem, ProblemKind};
pub use shape::{Shape, ShapeError};
pub use topology::{
    Board, Cell, CellId, DirId, DirKind, Direction, Geometry, InverseRule, Link, Origin, PermId,
    Permutation, SourcePos, Step,
};

/// Whether a `#board` description names a board file rather than giving an identification
/// string: it ends with `.xml`, as the language reference says.
pub fn is_file(description: &str) -> bool {
    description.ends_with(".xml")
}
