//! The public game API: what every front end (the command line, the REPL, the web server,
//! the playing agents, an embedding program) uses to load a game and play a match.
//!
//! - [`Game`]: a game loaded, checked and compiled, with its rules files and parameters
//!   ([`Game::load`], [`Game::loader`], [`Game::from_source`]); a failure is a
//!   [`LoadError`] carrying every diagnostic.
//! - [`Match`]: one play of it from a seed ([`Game::start`]): the players to move, the
//!   legal moves by name and by [`MoveIndex`], playing a move, sending any message, the
//!   outcome, what a seat may see ([`Match::view`]), a cheap [`Match::fork`] and
//!   [`Match::undo`].
//! - [`Error`]: why a request was refused. A refused request leaves the match exactly as
//!   it was.
//!
//! ```
//! use flexrules::api::Game;
//!
//! let game = Game::load("games/awele").expect("Awele loads");
//! let mut m = game.start(7).expect("Awele starts");
//! let moves = m.legal_moves().expect("Awele lists its moves");
//! // A move travels between processes as its index: the same name, the same index.
//! let first = moves[0].clone();
//! m.play_index(first.index).expect("a legal move plays");
//! assert!(m.undo());
//! m.play(&first.name).expect("and by name");
//! assert_eq!(m.moves_played(), 1);
//! ```
//!
//! Boundary: this layer sits on `compile` and `runtime` (and `repr` for the views); the
//! play layer and the front ends sit on it. It prints nothing.

mod board_files;
mod error;
mod game;
mod moves;
mod play;
mod search;
mod waiting;

pub use error::{Error, LoadError};
pub use game::{Game, Loader};
pub use moves::{Move, MoveIndex};
pub use play::{Match, PLAYERS, Played, PlayersError, SeatView, TO_MOVE};
pub use search::{Drawing, Function, Position, player_of};
pub use waiting::{Waiting, answer_name};

// What searches and front ends read of what the engine gives back.
pub use crate::runtime::moves::{MAX_NO_MOVE_RUNS, same_error};
pub use crate::runtime::outside::parse_literal;
pub use crate::runtime::profile::Profile;
pub use crate::runtime::session::{Candidate, CandidateItems, Isolated};
pub use crate::runtime::trace::{CallSite, Calls, RuntimeError, Status};
pub use crate::runtime::value::Value;
pub use crate::runtime::vm::{MoveLog, Wait};
