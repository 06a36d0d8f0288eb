//! A match: one play of a game from a seed, moved by names or indices, with its own undo
//! history, forked cheaply, and seen as each seat may see it.

use std::rc::Rc;

use crate::compile::bytecode::CodeId;
use crate::compile::codegen::compile_function_call;
use crate::repr;
use crate::runtime::canvas::{Canvas, View};
use crate::runtime::moves::NotPlayable;
use crate::runtime::session::{Action, Session, action_name};
use crate::runtime::trace::Transaction;
use crate::runtime::value::{Attrs, Key, Message, Value, mover_of};
use crate::runtime::world::World;
use crate::symbol::Symbol;

use super::error::Error;
use super::game::Game;
use super::moves::{Move, MoveIndex};
use super::waiting::{Pending, Waiting};

/// The function a game defines to say whose turn it is: no parameters, giving the player
/// to move, a list of players (orders given at once) or `nil` (nobody in particular).
pub const TO_MOVE: &str = "to-move";

/// The function a game defines to list its players: no parameters, giving a list of the
/// players as `to-move` names them (the seats of `flexrules serve`, OpenSpiel's players).
pub const PLAYERS: &str = "players";

/// Why the game's `players` gave no list of players ([`Match::players`]).
#[derive(Debug, Clone, PartialEq)]
pub enum PlayersError {
    /// The function cannot be called without arguments (the text says why).
    Function(String),
    /// It did not commit (the status in one line).
    Failed(String),
    /// It gave this value (as text), not a list.
    NotAList(String),
    /// It gave an empty list.
    Empty,
    /// An element (as text) is not a player a command line can name: a number or a word.
    NotAPlayer(String),
}

/// A game being played.
///
/// Every request either does what it says or returns an [`Error`] and leaves the match
/// exactly as it was. Not `Send`: a match lives on one thread; [`Game`] is shared, and
/// each thread starts or rebuilds its own matches.
pub struct Match {
    pub(super) game: Game,
    pub(super) session: Session,
    /// The world before each move or message that committed, the last one last.
    pub(super) history: Vec<World>,
    /// The move begun and waiting for a signal, if one is (see `waiting.rs`): the world
    /// is the one before it.
    pub(super) pending: Option<Pending>,
    /// The game's `(to-move)`, compiled the first time it is asked for (`Some(None)`: the
    /// game has none).
    to_move: Option<Option<CodeId>>,
    /// The names of the moves a playout played, while one is being recorded
    /// ([`Match::record_moves`]).
    recorded: Option<Vec<String>>,
}

/// A move or message that committed.
#[derive(Debug)]
pub struct Played {
    /// Its name: the move's, or `<label>@<recipient>{<attributes>}` for a message (`add@c{by=3}`).
    pub name: String,
    /// The transaction: its value, what it notified and printed, its steps. While the
    /// move waits for a signal, its status is the failure of a wait with no one to
    /// answer, and nothing changed yet.
    pub transaction: Transaction,
    /// What the move waits for when it stopped at a `(wait signal ...)` instead of
    /// committing (as [`Match::waiting`] then says): it commits once answered.
    pub waiting: Option<Waiting>,
}

/// What one seat (or everyone) may see of the board: the public graphics and that seat's
/// private ones.
pub struct SeatView {
    canvas: Rc<Canvas>,
    view: View,
}

impl SeatView {
    /// Drawn as text, for terminals.
    pub fn text(&self) -> String {
        repr::text::render(&self.canvas, &self.view)
    }

    /// Drawn as SVG, for browsers.
    pub fn svg(&self) -> String {
        repr::svg::render(&self.canvas, &self.view)
    }
}

impl Match {
    pub(super) fn new(game: Game, session: Session) -> Match {
        Match {
            game,
            session,
            history: Vec::new(),
            pending: None,
            to_move: None,
            recorded: None,
        }
    }

    /// Keep the names of the moves the play layer plays from now on (random playouts and
    /// agents' games, not the moves a search tries), for [`Match::take_recorded`].
    pub fn record_moves(&mut self) {
        self.recorded = Some(Vec::new());
    }

    /// The names recorded since [`Match::record_moves`], which stops recording.
    pub fn take_recorded(&mut self) -> Option<Vec<String>> {
        self.recorded.take()
    }

    /// Whether moves are being recorded.
    #[inline]
    pub fn is_recording(&self) -> bool {
        self.recorded.is_some()
    }

    /// Note a move the play layer played, when recording.
    pub fn note_played(&mut self, name: String) {
        if let Some(r) = &mut self.recorded {
            r.push(name);
        }
    }

    /// Go on recording after `names` (what [`Match::take_recorded`] gave), as a search
    /// does once its own trials are over.
    pub fn resume_recording(&mut self, names: Vec<String>) {
        self.recorded = Some(names);
    }

    /// The players, by their text, as the game's `players` lists them now; `None` when
    /// the game defines no `players`. Each is a player a command line can name (a number
    /// or a word, read back as the same value). `caller`, who asks (`flexrules serve`),
    /// is named in the error of a `players` that takes parameters.
    pub fn players(&mut self, caller: &str) -> Result<Option<Vec<String>>, PlayersError> {
        let function = match self.function(PLAYERS, caller) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(None),
            Err(e) => return Err(PlayersError::Function(e)),
        };
        let list = match self.call(function) {
            crate::runtime::trace::Status::Committed(Value::List(l)) => l,
            crate::runtime::trace::Status::Committed(v) => {
                return Err(PlayersError::NotAList(v.to_text()));
            }
            other => return Err(PlayersError::Failed(other.summary())),
        };
        if list.is_empty() {
            return Err(PlayersError::Empty);
        }
        let mut players = Vec::with_capacity(list.len());
        for p in list.iter() {
            let text = p.to_text();
            if crate::runtime::outside::parse_literal(&text) != *p {
                return Err(PlayersError::NotAPlayer(text));
            }
            players.push(text);
        }
        Ok(Some(players))
    }

    /// The game played.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The players to move now, as `to-move` names them (by their values' text): one, or
    /// several when orders are given at once, or none when the game says nobody in
    /// particular. While a move waits for a signal, the player who must answer it.
    pub fn players_to_move(&mut self) -> Result<Vec<String>, Error> {
        if let Some(players) = self.answering_players() {
            return Ok(players);
        }
        let code = self.turn_function()?;
        self.session.players_to_move(code).map_err(Error::Failed)
    }

    fn turn_function(&mut self) -> Result<CodeId, Error> {
        if self.to_move.is_none() {
            // The call the engine compiled with the game (its sessions share the game and
            // its machine code); compiled here only to say why there is none.
            let code = match self.session.game.to_move_call {
                Some(code) => Some(code),
                None => compile_function_call(self.session.game_mut(), TO_MOVE, "the API")
                    .map_err(Error::NoToMove)?,
            };
            self.to_move = Some(code);
        }
        self.to_move.flatten().ok_or_else(|| {
            Error::NoToMove(format!(
                "the game defines no function `{TO_MOVE}`, so it cannot say whose turn it is"
            ))
        })
    }

    /// The legal moves now, in the order the game's `#actions` proposes them. While a
    /// move waits for a signal, its answers, named `<signal>=<tag>` (an error when the
    /// wait gives no `among`).
    pub fn legal_moves(&mut self) -> Result<Vec<Move>, Error> {
        if let Some(answers) = self.answer_moves() {
            return answers;
        }
        Ok(self
            .legal_actions()?
            .into_iter()
            .map(|a| Move {
                index: MoveIndex::of(&a.name),
                player: mover_of(&a.message),
                name: a.name,
            })
            .collect())
    }

    fn legal_actions(&mut self) -> Result<Vec<Action>, Error> {
        if self.session.game.actions.is_none() {
            return Err(Error::NoMoves);
        }
        self.session.legal_actions().map_err(Error::Failed)
    }

    /// Play the legal move called `name`. A move that waits for a signal is begun: the
    /// result is `Ok`, with [`Played::waiting`] (and [`Match::waiting`]) saying what it
    /// waits for; it commits when its answers are played, and until then the position is
    /// the one before it.
    pub fn play(&mut self, name: &str) -> Result<Played, Error> {
        if self.pending.is_some() {
            return self.answer(Some(name), MoveIndex::of(name));
        }
        let action = self.session.playable(name).map_err(|e| match e {
            NotPlayable::NoActions => Error::NoMoves,
            NotPlayable::Actions(e) => Error::Failed(e),
            NotPlayable::Unknown { name, legal } => Error::UnknownMove { name, legal },
            NotPlayable::Illegal { name, verdict, .. } => Error::IllegalMove {
                name,
                reason: verdict.summary(),
            },
        })?;
        self.run_move(action.name, action.recipient, action.message, Vec::new())
    }

    /// Play the legal move whose name has the index `index` ([`MoveIndex::of`]).
    pub fn play_index(&mut self, index: MoveIndex) -> Result<Played, Error> {
        if self.pending.is_some() {
            return self.answer(None, index);
        }
        let mut found = self
            .legal_actions()?
            .into_iter()
            .filter(|a| MoveIndex::of(&a.name) == index);
        let (Some(action), None) = (found.next(), found.next()) else {
            return Err(Error::UnknownIndex(index));
        };
        self.run_move(action.name, action.recipient, action.message, Vec::new())
    }

    /// Send the message `label` with `attrs` to the entity called `to`, as one
    /// transaction: what a click or a script does besides playing moves.
    pub fn send(
        &mut self,
        to: &str,
        label: &str,
        attrs: &[(&str, Value)],
    ) -> Result<Played, Error> {
        if let Some(w) = self.waiting() {
            let answers = self.answer_moves().and_then(Result::ok).unwrap_or_default();
            let names: Vec<String> = answers.into_iter().map(|m| m.name).collect();
            return Err(Error::IllegalMove {
                name: format!("{to}.{label}"),
                reason: format!(
                    "a move is waiting for signal \"{}\": answer it first ({}), or undo it",
                    w.signal,
                    if names.is_empty() {
                        "its answers are unknown".into()
                    } else {
                        names.join(" ")
                    }
                ),
            });
        }
        // A name never interned names no entity, and looking it up adds nothing to the
        // process-wide table of names.
        let known = Symbol::get(to).filter(|&s| self.session.world().lookup(s).is_some());
        let Some(recipient) = known else {
            return Err(Error::NoSuchEntity(to.to_string()));
        };
        let mut message = Message {
            label: Symbol::intern(label),
            attrs: Attrs::new(),
        };
        for (key, value) in attrs {
            message
                .attrs
                .insert(Key::sym(Symbol::intern(key)), value.clone());
        }
        let name = action_name(recipient, &message);
        self.run_move(name, recipient, Rc::new(message), Vec::new())
    }

    /// Take back the last move or message that committed, or the move waiting for a
    /// signal (all of it); `false` when there is none.
    pub fn undo(&mut self) -> bool {
        if self.pending.take().is_some() {
            return true;
        }
        match self.history.pop() {
            Some(world) => {
                self.session.replace_world(world);
                true
            }
            None => false,
        }
    }

    /// How many moves and messages committed (and were not taken back) since the start.
    pub fn moves_played(&self) -> usize {
        self.history.len()
    }

    /// The outcome `(finish with ...)` recorded, as (key, value) pairs in key order;
    /// `None` while the game goes on.
    pub fn outcome(&self) -> Option<Vec<(String, Value)>> {
        let outcome = self.session.outcome()?;
        Some(
            outcome
                .iter()
                .map(|(k, v)| (k.to_value().to_text(), v.clone()))
                .collect(),
        )
    }

    /// The property `name` of the entity called `entity`; `None` when there is no such
    /// entity or property.
    pub fn property(&self, entity: &str, name: &str) -> Option<Value> {
        let world = self.session.world();
        let id = world.lookup(Symbol::get(entity)?)?;
        let e = world.entity(id)?;
        e.property(&self.session.game, Symbol::get(name)?).cloned()
    }

    /// A digest of the position: equal positions (entities, properties, states, the
    /// outcome, the advice in force, the random generator) have equal digests.
    pub fn digest(&self) -> u64 {
        crate::runtime::digest::digest(&self.session.game, self.session.world())
    }

    /// What `player` may see (`None`: what everyone may see): the public graphics and the
    /// player's own. In a match started headless the representations start drawing the
    /// first time a view is asked for.
    pub fn view(&mut self, player: Option<&str>) -> Result<SeatView, Error> {
        self.session.watch().map_err(Error::Failed)?;
        Ok(SeatView {
            canvas: self.session.world().canvas.clone(),
            view: player.map_or(View::Public, View::parse),
        })
    }

    /// A copy of the match to explore from: the same position and history, sharing what
    /// neither changes (the world is persistent, so this is cheap), each going on alone.
    pub fn fork(&self) -> Match {
        Match {
            game: self.game.clone(),
            session: self.session.branch(),
            history: self.history.clone(),
            pending: self.pending.clone(),
            to_move: self.to_move,
            recorded: None,
        }
    }

    /// The engine's session beneath, for front ends that read the world or step through
    /// transactions.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The engine's session beneath, to run what the API does not name (a traced or
    /// stepped transaction). What it changes is not in the match's undo history.
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}
