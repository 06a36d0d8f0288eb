//! Where a board came from, with what its source says beyond the topology: the shape and
//! naming of a grid, the chess data of a joChess file.

use super::ident;
use super::naming::Naming;
use super::shape::Shape;

/// What a grid board was built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridInfo {
    /// The numbers before the planar board: none, `[levels]` or `[columns, rows]`.
    pub extra: Vec<u32>,
    /// The planar shape of every level.
    pub shape: Shape,
    /// How its files are named.
    pub naming: Naming,
}

impl GridInfo {
    /// The canonical identification string, if the shape has one (it always does when the
    /// grid came from a string).
    pub fn identification(&self) -> Option<String> {
        ident::identification(&self.extra, &self.shape).ok()
    }
}

/// The chess side of a joChess board file, as written (and checked: the values of rule
/// attributes, and every name a piece or player gives, are known to be right).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChessData {
    /// The attributes of `<Board>` (`Name`, `BoardImage`, `RuleEngine`, ...), in order.
    pub attributes: Vec<(String, String)>,
    /// `<ColourScheme>`: each `<Family Name Color>` as (name, colour).
    pub families: Vec<(String, String)>,
    /// The `Family` of each position, indexed by cell.
    pub position_families: Vec<Option<String>>,
    /// Per cell, straight on through it: for each position linked to it (in the order its
    /// directions list them), every position linked in the direction opposite to the one
    /// holding that position, half way round the cell's ring of directions (none when the
    /// ring is broken). This is how a joChess `BLINKER` rule goes on after its first step,
    /// fanning out where the opposite direction links several positions.
    pub straight: Vec<Vec<(String, Vec<String>)>>,
    /// `<Rules>`, in order.
    pub rules: Vec<Rule>,
    /// `<Pieces>`, in order.
    pub pieces: Vec<Piece>,
    /// `<Players>`, in order.
    pub players: Vec<Player>,
}

/// A `<Rule>` with its attributes and nested rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rule {
    /// Its attributes (`Name`, `Type`, `Direction`, `Manoeuvre`, `MaxRecurrenceAllowed`,
    /// `File`, `Rank`, `Family`, ...), in order.
    pub attributes: Vec<(String, String)>,
    /// The rules of its own `<Rules>` element (the steps after a transient move).
    pub rules: Vec<Rule>,
}

impl Rule {
    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A `<Piece>` of `<Pieces>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Piece {
    /// `Name`.
    pub name: String,
    /// `Image`.
    pub image: Option<String>,
    /// `Family` (its colour).
    pub family: Option<String>,
    /// The rule names of `<AllowedMoves>`.
    pub allowed_moves: Vec<String>,
}

/// A `<Player>` of `<Players>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Player {
    /// `Name`.
    pub name: String,
    /// Its `<Pieces>`, each `<Piece Name PieceRef PositionRef>` as (piece type, position):
    /// the `Name` of a [`Piece`] of [`ChessData::pieces`] and the name of a cell.
    pub pieces: Vec<(String, String)>,
    /// The `Name` each of its pieces has in its own list (`BishopWhite1`), in the order of
    /// [`Player::pieces`].
    pub piece_names: Vec<String>,
    /// Its `<BoardMapping>`: (from, to) pairs of files (letters) or ranks (numbers); an
    /// empty `<Map From="" To=""/>` is left out.
    pub mapping: Vec<(String, String)>,
}

/// Where a board came from, with what its source says beyond the topology.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// An identification string: a grid of one, two or four extra dimensions.
    Grid(GridInfo),
    /// `ring <n>`.
    Ring,
    /// A BoardGame link file.
    BoardGame {
        /// The `image` attribute (the background picture).
        image: String,
    },
    /// A joChess board file.
    JoChess(Box<ChessData>),
}
