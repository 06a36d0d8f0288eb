//! Trying the candidate actions: which are legal, which fail with an error, and why a
//! given one is not legal.
//!
//! A candidate is legal when delivering it commits. One that is vetoed or rolled back is
//! illegal; one whose transaction fails with a runtime error is neither: the error is a
//! mistake in the rules, and it is reported rather than taken for an illegal move.

use super::session::{Action, Candidate, Session, Start};
use super::trace::{Output, RuntimeError, Status, TraceEvent, Transaction};
use super::value::{Key, Message, Value};
use super::vm::{MoveLog, OnWait, TrialEnd};
use super::world::World;
use crate::compile::bytecode::CodeId;
use crate::symbol::Symbol;

/// The candidate actions of a position, tried.
#[derive(Clone, Debug, Default)]
pub struct Tried {
    /// The legal actions, in the order `#actions` gives them, each with the world it leaves.
    pub legal: Vec<(Action, World)>,
    /// The candidates whose transaction failed, with the error.
    pub failed: Vec<(Action, RuntimeError)>,
}

/// The candidate actions of a position, tried, without the worlds they leave
/// ([`Session::try_moves`]).
#[derive(Clone, Debug, Default)]
pub struct Moves {
    /// The legal actions, in the order `#actions` gives them.
    pub legal: Vec<Action>,
    /// The candidates whose transaction failed, with the error.
    pub failed: Vec<(Action, RuntimeError)>,
}

impl Tried {
    /// The failures, one per distinct error (the same message at the same place), each with
    /// the names of the candidates it stopped, in the order they were tried.
    pub fn distinct_failures(&self) -> Vec<(&RuntimeError, Vec<&str>)> {
        distinct_failures(&self.failed)
    }

    /// The candidates that failed, once per distinct error: which moves, then the
    /// diagnostic with its message chain. Empty when none failed.
    pub fn render_failures(&self, sources: &crate::source::SourceMap, color: bool) -> String {
        render_failures(&self.failed, sources, color)
    }
}

impl Moves {
    /// The failures, one per distinct error, as [`Tried::distinct_failures`] gives them.
    pub fn distinct_failures(&self) -> Vec<(&RuntimeError, Vec<&str>)> {
        distinct_failures(&self.failed)
    }

    /// The candidates that failed, as [`Tried::render_failures`] renders them.
    pub fn render_failures(&self, sources: &crate::source::SourceMap, color: bool) -> String {
        render_failures(&self.failed, sources, color)
    }
}

/// The failures of `failed`, one per distinct error, with the names of the candidates.
fn distinct_failures(failed: &[(Action, RuntimeError)]) -> Vec<(&RuntimeError, Vec<&str>)> {
    group_failures(failed.iter().map(|(a, e)| (a.name.as_str(), e)))
}

/// The candidates of `failed`, once per distinct error: which moves, then the diagnostic
/// with its message chain. Empty when none failed.
fn render_failures(
    failed: &[(Action, RuntimeError)],
    sources: &crate::source::SourceMap,
    color: bool,
) -> String {
    let mut out = String::new();
    for (e, names) in distinct_failures(failed) {
        out.push_str(&format!(
            "error: {} {} failed with an error (a mistake in the rules, not an illegal move):\n",
            if names.len() == 1 { "move" } else { "moves" },
            names.join(", ")
        ));
        out.push_str(&e.render(sources, color));
    }
    out
}

/// Group `(move name, error)` pairs by distinct error (message and place), keeping the
/// first error of each group and the order in which the groups first appear.
pub fn group_failures<'a>(
    failures: impl Iterator<Item = (&'a str, &'a RuntimeError)>,
) -> Vec<(&'a RuntimeError, Vec<&'a str>)> {
    let mut out: Vec<(&RuntimeError, Vec<&str>)> = Vec::new();
    for (name, e) in failures {
        match out.iter_mut().find(|(f, _)| same_error(f, e)) {
            Some((_, names)) => names.push(name),
            None => out.push((e, vec![name])),
        }
    }
    out
}

/// Whether two errors are the same mistake: the same message at the same place (the chain
/// of messages that led there may differ from one move to the next).
pub fn same_error(a: &RuntimeError, b: &RuntimeError) -> bool {
    a.span == b.span && a.message == b.message
}

/// What delivering one candidate would do.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// It commits: the move is legal.
    Legal,
    /// A law vetoed it at the outermost join point.
    Vetoed {
        /// The law.
        law: Symbol,
        /// Where the law comes from (its file, or `inline`), when it is in force.
        source: Option<String>,
        /// What the transaction notified before the veto.
        notes: Vec<String>,
    },
    /// `(rollback reason)` abandoned it.
    RolledBack {
        /// The reason.
        reason: String,
        /// What the transaction notified before the rollback.
        notes: Vec<String>,
        /// The last message inside it a law vetoed, if any: often why it rolled back (a
        /// vetoed send gives `nil`, and the code that sent it gives up).
        inner: Option<Box<InnerVeto>>,
    },
    /// It failed with a runtime error: a mistake in the rules, not an illegal move.
    Failed(RuntimeError),
}

impl Verdict {
    /// One line for people (without the error's diagnostic): `legal`, `vetoed by law "x"
    /// (file): note`, `rolled back: reason`, `failed: message`.
    pub fn summary(&self) -> String {
        let notes = |n: &[String]| {
            if n.is_empty() {
                String::new()
            } else {
                format!(": {}", n.join("; "))
            }
        };
        match self {
            Verdict::Legal => "legal".into(),
            Verdict::Vetoed {
                law,
                source,
                notes: n,
            } => {
                let from = source
                    .as_deref()
                    .map_or(String::new(), |s| format!(" ({s})"));
                format!("vetoed by law \"{law}\"{from}{}", notes(n))
            }
            Verdict::RolledBack {
                reason,
                notes: n,
                inner,
            } => {
                let inner = inner
                    .as_ref()
                    .map_or(String::new(), |v| format!(" (after {})", v.summary()));
                format!("rolled back: {reason}{}{inner}", notes(n))
            }
            Verdict::Failed(e) => format!("failed with an error: {}", e.message),
        }
    }

    /// The verdict rendered for people: the summary, and for a failure the diagnostic with
    /// its message chain.
    pub fn render(&self, sources: &crate::source::SourceMap, color: bool) -> String {
        match self {
            Verdict::Failed(e) => format!(
                "failed with an error (a mistake in the rules, not an illegal move):\n{}",
                e.render(sources, color).trim_end()
            ),
            other => other.summary(),
        }
    }
}

/// A message inside a transaction that a law vetoed.
#[derive(Clone, Debug, PartialEq)]
pub struct InnerVeto {
    /// The law.
    pub law: Symbol,
    /// Where the law comes from (its file, or `inline`), when it is in force.
    pub source: Option<String>,
    /// The messages that led there, innermost first: `e4 handled put from e2`, ...
    pub chain: Vec<String>,
}

impl InnerVeto {
    /// The last message a law vetoed in `trace` below the outermost join point, with the
    /// chain of messages that led to it.
    fn last_in(trace: &[TraceEvent], advice: &super::world::AdviceTable) -> Option<InnerVeto> {
        let mut arrived: Vec<String> = Vec::new();
        let mut found = None;
        for e in trace {
            match e {
                TraceEvent::Arrive {
                    depth,
                    entity,
                    message,
                    sender,
                    ..
                } => {
                    arrived.truncate(depth.saturating_sub(1));
                    let label = match message {
                        Value::Message(m) => m.label.to_string(),
                        other => other.to_text(),
                    };
                    let from = sender.map_or("user".to_string(), |s| s.to_string());
                    arrived.push(format!("{entity} handled {label} from {from}"));
                }
                TraceEvent::Vetoed { depth, name } if *depth > 1 => {
                    let mut chain: Vec<String> = arrived.iter().take(*depth).cloned().collect();
                    chain.reverse();
                    found = Some(InnerVeto {
                        law: *name,
                        source: advice
                            .find(*name)
                            .map(|i| advice.entries[i].advice.source.to_string()),
                        chain,
                    });
                }
                _ => {}
            }
        }
        found
    }

    /// For people: `after law "x" (file) vetoed e4 handled put from e2 <- ...`.
    pub fn summary(&self) -> String {
        let from = self
            .source
            .as_deref()
            .map_or(String::new(), |s| format!(" ({s})"));
        format!(
            "law \"{}\"{from} vetoed a message inside it: {}",
            self.law,
            self.chain.join(" <- ")
        )
    }
}

/// Why a name cannot be played now.
#[derive(Clone, Debug)]
pub enum NotPlayable {
    /// The game has no `#actions`.
    NoActions,
    /// `#actions` itself failed.
    Actions(RuntimeError),
    /// The name is not one of the candidates.
    Unknown {
        /// The name asked for.
        name: String,
        /// The legal names now.
        legal: Vec<String>,
    },
    /// The name is a candidate, and delivering it does not commit.
    Illegal {
        /// The name asked for.
        name: String,
        /// What delivering it does.
        verdict: Box<Verdict>,
        /// The legal names now.
        legal: Vec<String>,
    },
}

impl NotPlayable {
    /// The problem for people, at move number `ply`.
    pub fn render(&self, sources: &crate::source::SourceMap, color: bool, ply: usize) -> String {
        let legal = |names: &[String]| {
            if names.is_empty() {
                "there is no legal move".to_string()
            } else {
                format!("legal: {}", names.join(", "))
            }
        };
        match self {
            NotPlayable::NoActions => "the game has no #actions".into(),
            NotPlayable::Actions(e) => {
                format!(
                    "ply {ply}: #actions failed:\n{}",
                    e.render(sources, color).trim_end()
                )
            }
            NotPlayable::Unknown { name, legal: l } => {
                format!("ply {ply}: `{name}` is not an action here; {}", legal(l))
            }
            NotPlayable::Illegal { name, verdict, .. }
                if matches!(**verdict, Verdict::Failed(_)) =>
            {
                format!("ply {ply}: `{name}` {}", verdict.render(sources, color))
            }
            NotPlayable::Illegal {
                name,
                verdict,
                legal: l,
            } => format!(
                "ply {ply}: `{name}` is not legal: {}; {}",
                verdict.summary(),
                legal(l)
            ),
        }
    }
}

impl Session {
    /// Try every candidate action: the legal ones with the worlds they leave, and the
    /// ones that fail with an error. The session's world is unchanged.
    pub fn try_candidates(&mut self) -> Result<Tried, RuntimeError> {
        self.trying_moves(|s, c| {
            // Made in place; the world it leaves is kept and the move unmade.
            let mut log = MoveLog::default();
            let status = s.make_unwatched(c, &mut log);
            let world = status.committed().then(|| {
                let world = s.world().clone();
                s.unmake(&mut log);
                world
            });
            (status, world)
        })
        .map(|(legal, failed)| Tried { legal, failed })
    }

    /// Try every candidate action: the legal ones and the ones that fail with an error,
    /// as [`Session::try_candidates`] without the worlds, each move undone as soon as it
    /// is tried. The session's world is unchanged.
    pub fn try_moves(&mut self) -> Result<Moves, RuntimeError> {
        self.trying_moves(|s, c| {
            let start = Start::Deliver(c.recipient, c.message.clone());
            // A move that waits for a signal is legal: its answers come later.
            (
                s.trial_in_place(start, TrialEnd::Undo, OnWait::Legal),
                Some(()),
            )
        })
        .map(|(legal, failed)| Moves {
            legal: legal.into_iter().map(|(a, ())| a).collect(),
            failed,
        })
    }

    /// Try every candidate with `trial`, in place on a copy of the world without its
    /// canvas (it shares the world: a write copies only what it changes, once), and sort
    /// them into the legal ones, with what `trial` gives for them, and the failed ones.
    #[allow(clippy::type_complexity)]
    fn trying_moves<T>(
        &mut self,
        mut trial: impl FnMut(&mut Session, &Candidate) -> (Status, Option<T>),
    ) -> Result<(Vec<(Action, T)>, Vec<(Action, RuntimeError)>), RuntimeError> {
        let saved = self.world().clone();
        self.unwatch();
        let sorted = (|| {
            let candidates = self.candidate_list()?;
            let mut legal = Vec::with_capacity(candidates.len());
            let mut failed = Vec::new();
            for c in candidates {
                match trial(self, &c) {
                    (Status::Committed(_), Some(t)) => legal.push((c.into_action(), t)),
                    (Status::Failed(e), _) => failed.push((c.into_action(), e)),
                    _ => {}
                }
            }
            Ok((legal, failed))
        })();
        *self.world_mut() = saved;
        sorted
    }

    /// What delivering `action` would do now; the session is unchanged.
    pub fn verdict(&mut self, action: &Action) -> Verdict {
        let (mut tx, _) = self.try_deliver(action.recipient, (*action.message).clone());
        if matches!(tx.status, Status::RolledBack { .. }) {
            // Tried again, traced, to see which message inside it a law vetoed.
            tx = self.try_deliver_traced(action.recipient, (*action.message).clone());
        }
        let notes = || {
            tx.output
                .iter()
                .filter_map(|o| match o {
                    Output::Notify(t) => Some(t.clone()),
                    Output::Print(_) => None,
                })
                .collect::<Vec<_>>()
        };
        match &tx.status {
            Status::Committed(_) => Verdict::Legal,
            Status::Vetoed { law } => Verdict::Vetoed {
                law: *law,
                source: self
                    .world()
                    .advice
                    .find(*law)
                    .map(|i| self.world().advice.entries[i].advice.source.to_string()),
                notes: notes(),
            },
            Status::RolledBack { reason } => Verdict::RolledBack {
                reason: reason.clone(),
                notes: notes(),
                inner: InnerVeto::last_in(&tx.trace, &self.world().advice).map(Box::new),
            },
            Status::Failed(e) => Verdict::Failed(e.clone()),
        }
    }

    /// Every candidate with its verdict, in the order `#actions` gives them.
    pub fn explain_candidates(&mut self) -> Result<Vec<(Action, Verdict)>, RuntimeError> {
        let candidates = self.candidates()?;
        Ok(candidates
            .into_iter()
            .map(|a| {
                let v = self.verdict(&a);
                (a, v)
            })
            .collect())
    }

    /// The candidate named `name` if it is legal now, else why it cannot be played.
    pub fn playable(&mut self, name: &str) -> Result<Action, NotPlayable> {
        if self.game.actions.is_none() {
            return Err(NotPlayable::NoActions);
        }
        let candidates = self.candidates().map_err(NotPlayable::Actions)?;
        // A name no candidate has may be one of a candidate's `aliases` (bridge's `1♠`).
        let aliased = if candidates.iter().any(|a| a.name == name) {
            None
        } else {
            candidates
                .iter()
                .find(|a| has_alias(&a.message, name))
                .map(|a| a.name.clone())
        };
        let name = aliased.as_deref().unwrap_or(name);
        // The move asked for is explained in full; of the others, only whether they are
        // legal is asked (no second, traced trial of the ones that roll back).
        let mut legal = Vec::new();
        let mut named = None;
        for a in candidates {
            if a.name == name && named.is_none() {
                let verdict = self.verdict(&a);
                if verdict == Verdict::Legal {
                    legal.push(a.name.clone());
                }
                named = Some((a, verdict));
            } else if self
                .try_deliver(a.recipient, (*a.message).clone())
                .0
                .status
                .committed()
            {
                legal.push(a.name);
            }
        }
        match named {
            Some((a, Verdict::Legal)) => Ok(a),
            Some((_, verdict)) => Err(NotPlayable::Illegal {
                name: name.to_string(),
                verdict: Box::new(verdict),
                legal,
            }),
            None => Err(NotPlayable::Unknown {
                name: name.to_string(),
                legal,
            }),
        }
    }
}

/// Whether the message's `aliases` attribute (a list of other names a move is played by)
/// holds `name`, by text.
fn has_alias(message: &Message, name: &str) -> bool {
    let Some(key) = Symbol::get("aliases") else {
        return false;
    };
    match message.attrs.get(&Key::sym(key)) {
        Some(Value::List(names)) => names.iter().any(|n| n.to_text() == name),
        _ => false,
    }
}

/// How many times in a row `no-legal-move` may run with the game unfinished and no move
/// legal after it: a pass after a pass after a pass... for as many players as a game
/// has, then the game is taken to be stuck, as an error in its rules.
pub const MAX_NO_MOVE_RUNS: usize = 16;

/// What a position without a legal move means, by the game's `no-legal-move`.
impl Session {
    /// Whether some candidate is legal now, trying them in `#actions`'s order until one
    /// commits. A candidate that fails with an error counts as one (the move lists report
    /// it), and so does a `#actions` that fails. The session's world is unchanged.
    pub fn has_legal_move(&mut self) -> bool {
        let saved = self.world().clone();
        self.unwatch();
        let found = match self.candidate_items() {
            Err(_) => true,
            Ok(items) => (0..items.len()).any(|i| {
                items.get(i).is_some_and(|c| {
                    let start = Start::Deliver(c.recipient, c.message);
                    !matches!(
                        self.trial_in_place(start, TrialEnd::Undo, OnWait::Legal),
                        Status::Vetoed { .. } | Status::RolledBack { .. }
                    )
                })
            }),
        };
        *self.world_mut() = saved;
        found
    }

    /// After `tx`, which began from `before`: when it committed and left the game
    /// unfinished with no legal move, run the game's `no-legal-move` as the user, as part
    /// of it (its output, trace and steps added to `tx`'s), again while that leaves the
    /// game unfinished and no move legal (up to [`MAX_NO_MOVE_RUNS`] times). When
    /// `no-legal-move` fails, does not commit or never settles the game, `tx` fails with
    /// that error and the world is `before` again: a move that leads where the rules
    /// cannot go on is not played.
    pub fn follow_no_legal_move(&mut self, tx: &mut Transaction, before: &World) {
        let Some(code) = self.game.no_legal_move_call else {
            return;
        };
        // (A game without #actions has no moves to be without.)
        if !tx.status.committed() || self.game.actions.is_none() {
            return;
        }
        let mut runs = 0;
        while self.outcome().is_none() && !self.has_legal_move() {
            let failure = if runs == MAX_NO_MOVE_RUNS {
                self.never_settled()
            } else {
                let then = self.run_kept(Start::Eval(code));
                runs += 1;
                tx.output.extend(then.output);
                tx.trace.extend(then.trace);
                tx.steps = tx.steps.saturating_add(then.steps);
                if then.status.committed() {
                    continue;
                }
                self.unsettled(then.status)
            };
            *self.world_mut() = before.clone();
            tx.status = Status::Failed(failure);
            return;
        }
    }

    /// Run `no-legal-move` in place on the session's world, which is not watched (as
    /// searches play), keeping what it does: `None` when the game defines none or has
    /// finished, else how it ended. The caller has found no legal move.
    pub fn no_legal_move_in_place(&mut self) -> Option<Status> {
        let code = self.game.no_legal_move_call?;
        if self.outcome().is_some() || self.game.actions.is_none() {
            return None;
        }
        Some(self.trial_in_place(Start::Eval(code), TrialEnd::Keep, OnWait::Fail))
    }

    /// The error of a game whose `no-legal-move` ran [`MAX_NO_MOVE_RUNS`] times in a row
    /// without finishing it or making a move legal.
    pub fn never_settled(&self) -> RuntimeError {
        let span = self.game.no_legal_move_call.map(|c| self.game.code(c).span);
        RuntimeError {
            message: format!(
                "no legal move was left, and after `no-legal-move` ran {MAX_NO_MOVE_RUNS} times \
                 the game had still not finished and no move was legal"
            ),
            hint: Some(
                "`no-legal-move` should finish the game (finish with ...) or change the \
                 position so that a move is legal (a pass)"
                    .into(),
            ),
            span,
            chain: Vec::new(),
            calls: None,
        }
    }

    /// The error of a `no-legal-move` that ended as `status` without committing.
    pub fn unsettled(&self, status: Status) -> RuntimeError {
        let span = self.game.no_legal_move_call.map(|c| self.game.code(c).span);
        match status {
            Status::Failed(mut e) => {
                e.message = format!(
                    "no legal move was left, and `no-legal-move` failed: {}",
                    e.message
                );
                e
            }
            other => RuntimeError {
                message: format!(
                    "no legal move was left, and `no-legal-move` did not commit: {}",
                    other.summary()
                ),
                hint: Some("`no-legal-move` should finish the game or pass the turn".into()),
                span,
                chain: Vec::new(),
                calls: None,
            },
        }
    }
}

/// Whose turn it is, by the game's `(to-move)`.
impl Session {
    /// The player to move now by `(to-move)` (its value's text; `None` for `nil`, or
    /// for a list of players, when several move at once: see [`Session::players_to_move`]).
    pub fn player_to_move(&mut self, to_move: CodeId) -> Result<Option<String>, RuntimeError> {
        let players = self.players_to_move(to_move)?;
        Ok(match <[String; 1]>::try_from(players) {
            Ok([one]) => Some(one),
            Err(_) => None,
        })
    }

    /// The players to move now by `(to-move)`, by their values' text: none for `nil` (or
    /// an empty list), one for a value, each of a list (a game of simultaneous moves).
    pub fn players_to_move(&mut self, to_move: CodeId) -> Result<Vec<String>, RuntimeError> {
        match self.eval_in_place(to_move) {
            Status::Committed(Value::Nil) => Ok(Vec::new()),
            Status::Committed(Value::List(l)) => Ok(l.iter().map(Value::to_text).collect()),
            Status::Committed(v) => Ok(vec![v.to_text()]),
            Status::Failed(e) => Err(e),
            other => Err(RuntimeError {
                message: format!("(to-move) did not commit: {}", other.summary()),
                hint: Some("to-move should only read the world".into()),
                span: Some(self.game.code(to_move).span),
                chain: Vec::new(),
                calls: None,
            }),
        }
    }
}
