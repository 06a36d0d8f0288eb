//! What a search asks of a match (the play layer's playouts, perft and Monte Carlo tree
//! search): the game's candidate moves, tried in place and kept or taken back without a
//! transaction record, positions kept and returned to, the game's own functions called,
//! and copies for other threads.
//!
//! Nothing here is in the match's undo history ([`Match::undo`]): a search returns the
//! match to the position it started from ([`Match::set_position`]) before it hands it back.
//! A trial that does not commit (vetoed, failed, rolled back) leaves the position exactly
//! as it was. Trials run on a position that does not draw: a search takes the drawing off
//! first ([`Match::stop_drawing`]) and may put it back ([`Match::resume_drawing`]).

use std::rc::Rc;

use crate::runtime::canvas::Canvas;
use crate::runtime::profile::Profile;
use crate::runtime::session::{Candidate, CandidateItems, Isolated, Session};
use crate::runtime::trace::{RuntimeError, Status};
use crate::runtime::value::{Key, Value};
use crate::runtime::vm::{MoveLog, Wait};
use crate::runtime::world::World;
use crate::source::Span;
use crate::symbol::Symbol;

use super::game::Game;
use super::play::Match;

/// A position: the whole state of a match (entities, properties, states, the outcome, the
/// advice in force, the random generator). A persistent value: keeping one costs a few
/// reference counts, and positions share what they have in common.
pub type Position = World;

/// One of the game's functions, called with no arguments ([`Match::function`]).
pub use crate::compile::bytecode::CodeId as Function;

/// The drawing of a match taken off while it is searched ([`Match::stop_drawing`]).
pub struct Drawing(Rc<Canvas>);

impl Game {
    /// A match around a session this game started ([`Game::start_session`]): for front
    /// ends that step some transactions themselves (the REPL) and search or play through
    /// the API from the same place.
    pub fn adopt(&self, session: Session) -> Match {
        Match::new(self.clone(), session)
    }
}

impl Match {
    /// A match around a session started on the engine directly ([`Session::start`], on a
    /// game compiled from files in memory): its [`Match::game`] has the compiled game
    /// only (no sources, parameters or checked program). Give the session back with
    /// [`Match::into_session`].
    pub fn of_session(session: Session) -> Match {
        Match::new(Game::of_compiled(session.game.clone()), session)
    }

    /// Run `f` on a match around `session` ([`Match::of_session`]), then give the session
    /// back to it: how code that holds a session (tests, benchmarks) calls the play layer.
    pub fn around<R>(session: &mut Session, f: impl FnOnce(&mut Match) -> R) -> R {
        let taken = std::mem::replace(session, session.branch());
        let mut m = Match::of_session(taken);
        let r = f(&mut m);
        *session = m.into_session();
        r
    }

    /// The session beneath, the match ended.
    pub fn into_session(self) -> Session {
        self.session
    }

    /// The moves the game's `#actions` proposes now, untried (a candidate may be vetoed):
    /// each read only when asked for ([`CandidateItems::get`]), so a search that tries one
    /// or two of them reads no more.
    pub fn candidates(&mut self) -> Result<CandidateItems, RuntimeError> {
        self.session.candidate_items()
    }

    /// Play `candidate` in place, untraced and unrecorded: how its transaction ended. A move
    /// that commits is kept; one that does not leaves the position as it was.
    #[inline]
    pub fn try_move(&mut self, candidate: Candidate) -> Status {
        self.session.play_in_place(candidate)
    }

    /// Whether `candidate` would commit now, tried and undone; a move that waits for a
    /// signal counts as legal. The match is unchanged.
    pub fn test_move(&mut self, candidate: &Candidate) -> Status {
        self.session.test_in_place(candidate)
    }

    /// [`Match::try_move`], each signal the move waits for answered by `answer` (`None`:
    /// not answered, and the move fails as a wait with no one to answer does).
    pub fn try_move_answering(
        &mut self,
        candidate: Candidate,
        answer: &mut dyn FnMut(&Wait) -> Option<Value>,
    ) -> Status {
        self.session.play_in_place_answering(candidate, answer)
    }

    /// Make `candidate` in place as [`Match::try_move`] does, keeping in `log` what undoes
    /// it ([`Match::unmake`]): how a walk goes down a move and back up again.
    #[inline]
    pub fn make(&mut self, candidate: &Candidate, log: &mut MoveLog) -> Status {
        self.session.make_unwatched(candidate, log)
    }

    /// Undo the last move [`Match::make`] made with `log`; false when `log` holds none.
    #[inline]
    pub fn unmake(&mut self, log: &mut MoveLog) -> bool {
        self.session.unmake(log)
    }

    /// Call `function` in place and undo whatever it changed: how it ended, with its
    /// value when it committed.
    #[inline]
    pub fn call(&mut self, function: Function) -> Status {
        self.session.eval_in_place(function)
    }

    /// The game's function `name`, made callable with no arguments ([`Match::call`]);
    /// `None` when the game defines none. The error, for people, says it takes parameters
    /// (`caller` names who calls it: "a search").
    pub fn function(&mut self, name: &str, caller: &str) -> Result<Option<Function>, String> {
        crate::compile::codegen::compile_function_call(self.session.game_mut(), name, caller)
    }

    /// How many parameters the game's function `name` takes; `None` when the game defines
    /// none.
    pub fn function_params(&self, name: &str) -> Option<usize> {
        let game = &self.session.game;
        let sym = Symbol::get(name)?;
        let f = game.functions.iter().find(|f| f.name == sym)?;
        Some(usize::from(game.code(f.code).params))
    }

    /// The game's function `name` of one parameter called with `argument` (a player as
    /// `to-move` gives its text, read as a command line reads a literal: an integer, or a
    /// word as a string), compiled into the game the first time it is asked for and then
    /// found again; run it with [`Match::run`]. `None` when the game defines no `name`.
    /// The error, for people, says it does not take one parameter (`caller` calls it).
    pub fn function_with(
        &mut self,
        name: &str,
        argument: &str,
        caller: &str,
    ) -> Result<Option<Function>, String> {
        use crate::syntax::ast::{Expr, ExprKind, Name};
        match self.function_params(name) {
            None => return Ok(None),
            Some(1) => {}
            Some(n) => {
                return Err(format!(
                    "the game's function `{name}` takes {n} parameter(s); {caller} calls it with one"
                ));
            }
        }
        let title = format!("({name} {argument})");
        let game = &self.session.game;
        if let Some(i) = game.codes.iter().rposition(|c| *c.name == *title) {
            return Ok(u32::try_from(i).ok().map(Function));
        }
        let sym = Symbol::intern(name);
        let Some(f) = game.functions.iter().find(|f| f.name == sym) else {
            return Ok(None);
        };
        let span = game.code(f.code).span;
        let kind = match crate::runtime::outside::parse_literal(argument) {
            Value::Int(i) => ExprKind::Int(i),
            Value::Float(x) => ExprKind::Float(x.get()),
            Value::Bool(b) => ExprKind::Bool(b.get()),
            Value::Str(t) => ExprKind::Str(Symbol::intern(t.as_str())),
            _ => ExprKind::Nil,
        };
        let call = Expr {
            kind: ExprKind::Call {
                func: Name { sym, span },
                args: vec![Expr { kind, span }],
            },
            span,
        };
        crate::compile::codegen::compile_body(self.session.game_mut(), &[call], title, span)
            .map(Some)
            .map_err(|_| format!("`({name} {argument})` does not compile"))
    }

    /// Run `function` ([`Match::function`], [`Match::function_with`]) in place as the user
    /// (as `#setup` and `#actions` run: it may update any entity's properties), untraced,
    /// and keep what it changed when it commits; one that does not commit leaves the
    /// position as it was. How a search remakes what its player cannot see.
    #[inline]
    pub fn run(&mut self, function: Function) -> Status {
        self.session.eval_kept_in_place(function)
    }

    /// The names of the game's functions that start with `prefix`, in definition order.
    pub fn function_names(&self, prefix: &str) -> Vec<String> {
        self.session
            .game
            .functions
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| n.starts_with(prefix))
            .map(str::to_string)
            .collect()
    }

    /// Where `function` is written, for errors about what it gave.
    pub fn function_span(&self, function: Function) -> Span {
        self.session.game.code(function).span
    }

    /// The players `to_move` (the game's `to-move`, [`Match::function`]) names now, by
    /// their text: one, several at once, or none.
    pub fn players_by(&mut self, to_move: Function) -> Result<Vec<String>, RuntimeError> {
        self.session.players_to_move(to_move)
    }

    /// The one player `to_move` names now (`None`: nobody in particular).
    pub fn player_by(&mut self, to_move: Function) -> Result<Option<String>, RuntimeError> {
        self.session.player_to_move(to_move)
    }

    /// No move is legal now: run the game's `no-legal-move` in place, keeping what it
    /// does (it finishes the game, or passes the turn). `None` when the game defines none
    /// or has finished (it is stuck, or over), else how it ended.
    pub fn no_legal_move(&mut self) -> Option<Status> {
        self.session.no_legal_move_in_place()
    }

    /// The error of a `no-legal-move` that ended as `status` without committing, or (for
    /// `None`) that ran [`crate::runtime::moves::MAX_NO_MOVE_RUNS`] times in a row without
    /// settling the game.
    pub fn unsettled(&self, status: Option<Status>) -> RuntimeError {
        match status {
            Some(status) => self.session.unsettled(status),
            None => self.session.never_settled(),
        }
    }

    /// The position now.
    #[inline]
    pub fn position(&self) -> &Position {
        self.session.world()
    }

    /// Return to `position` (one this match or a copy of it was in).
    #[inline]
    pub fn set_position(&mut self, position: Position) {
        *self.session.world_mut() = position;
    }

    /// The position's random generator, to seed a search from where the match stands.
    pub fn random_state(&self) -> u64 {
        self.session.world().rng
    }

    /// Whether the match's start drew a number from its random generator (parameters,
    /// defaults, instances, `#setup`: a deal, a shuffle). When it did not, starting from
    /// any other seed gives the same position.
    pub fn start_drew_random(&self) -> bool {
        self.session.start_drew()
    }

    /// Seed the position's random generator (game code that draws numbers draws from it).
    pub fn set_random_state(&mut self, state: u64) {
        self.session.world_mut().rng = state;
    }

    /// Whether the game is over (`(finish with ...)` ran).
    #[inline]
    pub fn finished(&self) -> bool {
        self.session.world().outcome.is_some()
    }

    /// The winner the outcome names, once the game is over: `Some(None)` for a finish
    /// with no winner (or `"winner" nil`), `None` while the game goes on.
    pub fn winner(&self) -> Option<Option<Value>> {
        let outcome = self.session.outcome()?;
        let winner = Symbol::get("winner").and_then(|w| outcome.get(&Key::sym(w)));
        Some(winner.filter(|w| !matches!(w, Value::Nil)).cloned())
    }

    /// Take the drawing off the position, if it draws: trials do not draw. Put it back
    /// with [`Match::resume_drawing`].
    pub fn stop_drawing(&mut self) -> Option<Drawing> {
        self.session.unwatch().map(Drawing)
    }

    /// Put back a drawing taken off by [`Match::stop_drawing`].
    pub fn resume_drawing(&mut self, drawing: Drawing) {
        self.session.world_mut().canvas = drawing.0;
    }

    /// A copy of the match for another thread: the same position, copied all the way
    /// down, with machine and caches of its own. Undo history is not copied, nor a move
    /// waiting for a signal ([`Match::waiting`]).
    pub fn thread_copy(&self) -> Isolated<Match> {
        let session = self.session.fork().into_inner();
        // SAFETY: the session was copied all the way down by `fork` just now, and the
        // game is shared between threads by design (`Game: Send + Sync`).
        unsafe { Isolated::new(Match::new(self.game.clone(), session)) }
    }

    /// Count from now on the steps of the match's transactions by body (`--profile`);
    /// `false` stops counting and forgets the counts.
    pub fn set_profiling(&mut self, on: bool) {
        self.session.set_profiling(on);
    }

    /// Whether the match counts steps by body.
    pub fn profiling(&self) -> bool {
        self.session.profiling()
    }

    /// The steps counted by body since the last take, when profiling.
    pub fn take_profile(&mut self) -> Option<Profile> {
        self.session.take_profile()
    }

    /// Add steps counted on a copy ([`Match::thread_copy`]) to this match's profile.
    pub fn merge_profile(&mut self, other: &Profile) {
        self.session.merge_profile(other);
    }
}

/// The player a candidate move belongs to, as seats see it: its message's `by` attribute
/// when it has one, else its `player` (as [`crate::api::Move::player`]); `None` when it
/// names none.
pub fn player_of(candidate: &Candidate) -> Option<String> {
    crate::runtime::value::mover_of(&candidate.message)
}
