//! Why the API refused a request: a game that does not load ([`LoadError`]) and a request
//! a match refused ([`Error`]). Both render for people with the game's sources.

use crate::diagnostic::{self, Diagnostic};
use crate::runtime::session::StartError;
use crate::runtime::trace::{RuntimeError, Status};
use crate::source::SourceMap;

use super::moves::MoveIndex;

/// Why a game could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The game or a rules file could not be opened: no such file, not a game.
    Open(String),
    /// The game or a rules file has errors: every diagnostic, warnings included.
    Invalid {
        /// Every file read, for rendering the diagnostics.
        sources: SourceMap,
        /// The diagnostics, in reading order.
        diagnostics: Vec<Diagnostic>,
    },
}

impl LoadError {
    /// The diagnostics, when the game was read (empty for a file that could not be
    /// opened).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            LoadError::Invalid { diagnostics, .. } => diagnostics,
            _ => &[],
        }
    }

    /// Whether the request was wrong (no such file) rather than the game.
    pub fn is_usage(&self) -> bool {
        !matches!(self, LoadError::Invalid { .. })
    }

    /// The problem for people, every diagnostic with its source underlined.
    pub fn render(&self, color: bool) -> String {
        match self {
            LoadError::Open(e) => format!("error: {e}\n"),
            LoadError::Invalid {
                sources,
                diagnostics,
            } => {
                let mut out = Vec::new();
                let config = diagnostic::RenderConfig { color };
                let _ = diagnostic::render(sources, diagnostics, config, &mut out);
                String::from_utf8_lossy(&out).into_owned()
            }
        }
    }
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Open(e) => f.write_str(e),
            LoadError::Invalid { diagnostics, .. } => {
                let errors = diagnostics.iter().filter(|d| d.is_error()).count();
                write!(f, "the game has {errors} error(s)")
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// Why a match refused a request. The match is exactly as it was before the request.
#[derive(Debug)]
pub enum Error {
    /// A parameter is malformed (`name=value` was expected).
    Param(String),
    /// The game could not start: an unknown parameter, a failing default or `#setup`.
    Start(StartError),
    /// The game has no `#actions`, so it has no moves to list or play.
    NoMoves,
    /// The game defines no `to-move` (or one that takes parameters).
    NoToMove(String),
    /// No legal move has this name.
    UnknownMove {
        /// The name asked for.
        name: String,
        /// The legal moves' names.
        legal: Vec<String>,
    },
    /// A move by this name was proposed but its laws refuse it now.
    IllegalMove {
        /// The move.
        name: String,
        /// Why, in one line (the law that vetoed it, the reason of a rollback, an error).
        reason: String,
    },
    /// No legal move has this index.
    UnknownIndex(MoveIndex),
    /// No entity has this name.
    NoSuchEntity(String),
    /// The transaction did not commit (vetoed, rolled back or failed).
    Refused(Status),
    /// The game's code failed while answering (`#actions`, `to-move`, a representation).
    Failed(RuntimeError),
}

impl Error {
    /// The error for people: a runtime error with its source underlined.
    pub fn render(&self, sources: &SourceMap, color: bool) -> String {
        match self {
            Error::Failed(e) | Error::Refused(Status::Failed(e)) => e.render(sources, color),
            Error::Start(e) => match e.diagnostic() {
                Some(d) => {
                    let mut out = Vec::new();
                    let config = diagnostic::RenderConfig { color };
                    let _ = diagnostic::render(sources, &[d], config, &mut out);
                    String::from_utf8_lossy(&out).into_owned()
                }
                None => format!("error: {e}\n"),
            },
            other => format!("error: {other}\n"),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Param(e) => f.write_str(e),
            Error::Start(e) => write!(f, "{e}"),
            Error::NoMoves => f.write_str("the game has no #actions, so it has no moves"),
            Error::NoToMove(why) => f.write_str(why),
            Error::UnknownMove { name, legal } if legal.is_empty() => {
                write!(f, "`{name}` is not a move here, and no move is legal")
            }
            Error::UnknownMove { name, legal } => write!(
                f,
                "`{name}` is not a move here; the legal moves are {}",
                legal.join(" ")
            ),
            Error::IllegalMove { name, reason } => write!(f, "`{name}` is not legal: {reason}"),
            Error::UnknownIndex(i) => write!(f, "no legal move has index {i}"),
            Error::NoSuchEntity(name) => write!(f, "no entity is named `{name}`"),
            Error::Refused(status) => f.write_str(&status.summary()),
            Error::Failed(e) => f.write_str(&e.message),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Whether the request was wrong (a malformed or unknown parameter) rather than the
    /// game.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Param(_) | Error::Start(StartError::UnknownParam(_))
        )
    }
}
