//! A move that waits for a signal (`(wait signal <signal> from <player> among <list>)`):
//! the match keeps it pending, offers its answers as moves named `<signal>=<tag>` to the
//! player who must answer, and plays an answer by replaying the move from the world
//! before it with the answers given so far. The world's random generator is part of the
//! world, so the replay goes the same way up to the new answer. A match stays a world
//! and a pending move: forking copies both, undoing drops the pending move.

use std::rc::Rc;

use crate::runtime::trace::RuntimeError;
use crate::runtime::value::{Message, Value, mover_of};
use crate::runtime::vm::Wait;
use crate::symbol::Symbol;

use super::error::Error;
use super::moves::{Move, MoveIndex};
use super::play::{Match, Played};

/// What a pending move waits for ([`Match::waiting`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// The signal.
    pub signal: String,
    /// The player who must answer: the wait's `from`, else the player whose move it is
    /// (its message's `player`, else the one `to-move` named before it), when known.
    pub player: Option<String>,
    /// The possible answers (`among`), in order; `None` when the wait does not say.
    pub answers: Option<Vec<Value>>,
}

/// A move begun and waiting for a signal.
#[derive(Clone)]
pub(super) struct Pending {
    /// The move's name.
    name: String,
    recipient: Symbol,
    message: Rc<Message>,
    /// The answers given so far, in order.
    answers: Vec<Value>,
    /// What it waits for now.
    wait: Rc<Wait>,
    /// Who must answer now.
    player: Option<String>,
}

impl Pending {
    fn waiting(&self) -> Waiting {
        Waiting {
            signal: self.wait.signal.as_str().to_string(),
            player: self.player.clone(),
            answers: self.wait.answers.clone(),
        }
    }

    /// The answers as moves, or why there are none to offer.
    fn moves(&self) -> Result<Vec<(Move, Value)>, Error> {
        let Some(answers) = &self.wait.answers else {
            return Err(unknown_answers(&self.wait));
        };
        Ok(answers
            .iter()
            .map(|tag| {
                let name = answer_name(self.wait.signal, tag);
                let m = Move {
                    index: MoveIndex::of(&name),
                    player: self.player.clone(),
                    name,
                };
                (m, tag.clone())
            })
            .collect())
    }
}

/// The name of the move answering `signal` with `tag`: `<signal>=<tag>` (`salvage=rope`).
pub fn answer_name(signal: Symbol, tag: &Value) -> String {
    format!("{signal}={}", tag.to_text())
}

/// The error of a wait whose answers the game does not give.
fn unknown_answers(wait: &Wait) -> Error {
    let signal = wait.signal;
    Error::Failed(RuntimeError {
        message: format!(
            "a move is waiting for signal \"{signal}\", and its answers are unknown (the wait gives no `among`)"
        ),
        hint: Some(format!(
            "list the possible answers where the move waits: (wait signal \"{signal}\" among (list ...))"
        )),
        span: None,
        chain: Vec::new(),
        calls: None,
    })
}

impl Match {
    /// What the move in progress waits for, while one waits for a signal: then
    /// [`Match::players_to_move`] is the player who must answer, [`Match::legal_moves`]
    /// are the answers (moves named `<signal>=<tag>`), and playing one resumes the move.
    pub fn waiting(&self) -> Option<Waiting> {
        self.pending.as_ref().map(Pending::waiting)
    }

    /// The answers offered as moves while a move waits.
    pub(super) fn answer_moves(&self) -> Option<Result<Vec<Move>, Error>> {
        let p = self.pending.as_ref()?;
        Some(p.moves().map(|m| m.into_iter().map(|(m, _)| m).collect()))
    }

    /// The player who must answer, while a move waits.
    pub(super) fn answering_players(&self) -> Option<Vec<String>> {
        let p = self.pending.as_ref()?;
        Some(p.player.iter().cloned().collect())
    }

    /// Play the answer called `name` (or with `index`) to the pending move: the move is
    /// replayed from the world before it with the answers given so far and this one.
    pub(super) fn answer(&mut self, name: Option<&str>, index: MoveIndex) -> Result<Played, Error> {
        let Some(p) = &self.pending else {
            return Err(Error::UnknownIndex(index));
        };
        let moves = p.moves()?;
        let found = moves.iter().find(|(m, _)| match name {
            Some(name) => m.name == name,
            None => m.index == index,
        });
        let Some((m, tag)) = found else {
            return Err(match name {
                Some(name) => Error::UnknownMove {
                    name: name.to_string(),
                    legal: moves.into_iter().map(|(m, _)| m.name).collect(),
                },
                None => Error::UnknownIndex(index),
            });
        };
        let (answer, tag) = (m.name.clone(), tag.clone());
        let (name, recipient, message) = (p.name.clone(), p.recipient, p.message.clone());
        let mut answers = p.answers.clone();
        answers.push(tag);
        self.run_move(name, recipient, message, answers)
            .map(|played| Played {
                name: answer,
                ..played
            })
    }

    /// Deliver the move `name` (`message` to `recipient`), its waits answered with
    /// `answers`: committed, it goes into the history and nothing is pending; still
    /// waiting, it is pending (the world unchanged); refused, the match is as it was.
    pub(super) fn run_move(
        &mut self,
        name: String,
        recipient: Symbol,
        message: Rc<Message>,
        answers: Vec<Value>,
    ) -> Result<Played, Error> {
        let before = self.session.world().clone();
        let (transaction, wait) =
            self.session
                .deliver_answering(recipient, message.clone(), &answers);
        if let Some(wait) = wait {
            let player = match &wait.player {
                Some(p) => Some(p.to_text()),
                None => mover_of(&message).or_else(|| {
                    self.players_before()
                        .and_then(|p| <[String; 1]>::try_from(p).ok())
                        .map(|[one]| one)
                }),
            };
            let pending = Pending {
                name: name.clone(),
                recipient,
                message,
                answers,
                wait,
                player: player.clone(),
            };
            let waiting = pending.waiting();
            self.pending = Some(pending);
            return Ok(Played {
                name,
                transaction,
                waiting: Some(waiting),
            });
        }
        if !transaction.status.committed() {
            return Err(Error::Refused(transaction.status));
        }
        self.pending = None;
        self.history.push(before);
        Ok(Played {
            name,
            transaction,
            waiting: None,
        })
    }

    /// The players to move in the world before the pending move (it is unchanged), when
    /// the game says.
    fn players_before(&mut self) -> Option<Vec<String>> {
        let kept = self.pending.take();
        let players = self.players_to_move().ok();
        self.pending = kept;
        players
    }
}
