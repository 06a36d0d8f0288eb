//! Rules that ask which moves are legal: `legal-moves`, `has-legal-move` and `is-legal`.
//!
//! A question is answered as `moves` answers it: the game's `#actions` gives the
//! candidates, and each one asked about is tried as a move from the user on a copy of the
//! world as the asking code sees it, by a machine of its own (its trials write in place
//! with an undo log and put the copy back after each one); a candidate is legal when its
//! transaction commits. Nothing the trials do is kept, printed or traced; their steps and
//! memory are counted against the asking transaction, whose remaining budget bounds them.
//!
//! A question asked while a move is being tried may not try that move again in the same
//! position: a law that asks about the very move it judges would try itself without end,
//! and gets an error instead. (The same move in another position is another question: a
//! king's jump tried after the jumps that a question about continuing a multi-jump tried.)
//! Questions may nest [`MAX_NESTED`] deep.

use std::rc::Rc;

use crate::compile::bytecode::CodeId;
use crate::source::Span;
use crate::symbol::Symbol;

use super::super::budget::{ELEMENT_BYTES, Limits};
use super::super::trace::{RuntimeError, Status};
use super::super::value::{Key, Message, Value, action_name, action_of};
use super::buffers::{Buffers, SPARE};
use super::{Context, Machine, TrialEnd};

/// How many questions may be being answered at once, one inside a trial of another's.
pub const MAX_NESTED: usize = 32;

/// What a rule asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Question {
    /// `(legal-moves <key> <value> ...)`: the names of the legal moves that match.
    Names,
    /// `(has-legal-move <key> <value> ...)`: whether one that matches is legal.
    Any,
    /// `(is-legal <name>)`: whether the move of that name is.
    Named,
}

impl Question {
    fn builtin(self) -> &'static str {
        match self {
            Question::Names => "legal-moves",
            Question::Any => "has-legal-move",
            Question::Named => "is-legal",
        }
    }
}

/// Which candidates a question is about.
enum Filter {
    /// The player named (compared by text): the move's `"player"` attribute, or for a
    /// move without one, the players `to-move` gives.
    Player(String),
    /// The entity that receives the move's message.
    Entity(Symbol),
    /// The message's label.
    Label(Symbol),
    /// An attribute of the message, equal (as `=` compares) to the value.
    Attribute(Key, Value),
    /// The move's name.
    Name(String),
    /// A label or key no code ever named: no move matches.
    Nothing,
}

/// One candidate of `#actions`: who receives which message.
struct Candidate {
    to: Symbol,
    message: Rc<Message>,
}

impl Machine {
    /// Answer `question` about the arguments from `at` on the stack.
    pub(super) fn legal_question(
        &mut self,
        cx: &mut Context<'_>,
        question: Question,
        at: usize,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let name = question.builtin();
        if self.trying.len() >= MAX_NESTED {
            let mut e = self.error(
                span,
                format!(
                    "`{name}`: {MAX_NESTED} questions about the legal moves are being answered \
                     one inside another"
                ),
            );
            e.hint = Some(
                "the rules of the moves tried to answer a question ask again, and again: ask \
                 only about moves whose rules do not ask (filter by \"label\", \"entity\" or \
                 an attribute)"
                    .into(),
            );
            return Err(e);
        }
        let filters = self.filters(question, at, span)?;
        let Some(actions) = cx.game.actions else {
            let mut e = self.error(span, format!("`{name}`: the game has no #actions"));
            e.hint = Some("the legal moves are the candidates #actions gives that commit".into());
            return Err(e);
        };
        let mut world = self.world.clone();
        if world.canvas.active {
            world.canvas = Rc::default();
        }
        let buffers = SPARE.with(|s| s.take()).unwrap_or_else(Buffers::fresh);
        let mut trials =
            Machine::assemble(world, None, buffers, self.meter.limits, cx.fixed.clone());
        trials.trying.clone_from(&self.trying);
        // A profile tallies the trials as transactions (their steps are this one's).
        if self.profile.is_some() {
            trials.set_profile(Some(Box::default()));
        }
        let answer = self.ask(cx, &mut trials, actions, question, &filters, span);
        if let (Some(p), Some(asked)) = (&mut self.profile, &trials.profile) {
            p.merge_asked(asked);
        }
        trials.recycle_buffers();
        answer
    }

    /// Read the filters of `question` from the arguments at `at`: pairs of a key and a
    /// value for `legal-moves` and `has-legal-move`, a name for `is-legal`.
    fn filters(
        &mut self,
        question: Question,
        at: usize,
        span: Span,
    ) -> Result<Vec<Filter>, RuntimeError> {
        let name = question.builtin();
        // The names are looked up (a key, an entity, a label) or compared (a move's name):
        // counted by their bytes, as every lookup of a name made at run time is.
        for v in &self.stack[at..] {
            if let Value::Str(t) = v {
                self.meter
                    .name_lookup(t)
                    .map_err(|e| self.builtin_error(span, e))?;
            }
        }
        let args = &self.stack[at..];
        if question == Question::Named {
            return Ok(vec![Filter::Name(args[0].to_text())]);
        }
        if !args.len().is_multiple_of(2) {
            let mut e = self.error(
                span,
                format!(
                    "`{name}` takes pairs of a key and a value, got {} arguments",
                    args.len()
                ),
            );
            e.hint = Some(format!(
                "({name} \"player\" p), ({name} \"entity\" \"c3\"), ({name} \"label\" \"jump\"), \
                 or any attribute of the moves' messages"
            ));
            return Err(e);
        }
        let mut out = Vec::with_capacity(args.len() / 2);
        for pair in args.chunks_exact(2) {
            let Value::Str(key) = &pair[0] else {
                return Err(self.error(
                    span,
                    format!(
                        "`{name}`: a key is a string, got {} {}",
                        pair[0].type_name(),
                        pair[0]
                    ),
                ));
            };
            let value = &pair[1];
            out.push(match key.as_str() {
                "player" => Filter::Player(value.to_text()),
                "entity" => {
                    let Value::Str(e) = value else {
                        return Err(self.error(
                            span,
                            format!(
                                "`{name}`: an entity is named by a string, got {} {value}",
                                value.type_name()
                            ),
                        ));
                    };
                    // A name never interned names no entity, label or key: no move has it
                    // (and asking adds nothing to the process-wide table of names).
                    e.symbol().map_or(Filter::Nothing, Filter::Entity)
                }
                "label" => Symbol::get(&value.to_text()).map_or(Filter::Nothing, Filter::Label),
                _ => key.symbol().map_or(Filter::Nothing, |k| {
                    Filter::Attribute(Key::sym(k), value.clone())
                }),
            });
        }
        Ok(out)
    }

    /// Ask `#actions` (`actions`) on `trials` for the candidates, and try those the
    /// filters keep until `question` is answered.
    fn ask(
        &mut self,
        cx: &mut Context<'_>,
        trials: &mut Machine,
        actions: CodeId,
        question: Question,
        filters: &[Filter],
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let listed = match self.run_trial(cx, trials, Trial::Eval(actions), span) {
            Ok(v) => v,
            Err(Refused::Failed(e)) => return Err(e),
            Err(Refused::Illegal) => return Err(self.error(span, "#actions did not commit")),
        };
        let candidates = self.candidates_of(listed, span)?;
        let needs_players = filters.iter().any(|f| matches!(f, Filter::Player(_)));
        let to_move = if needs_players {
            Some(self.players_to_move(cx, trials, span)?)
        } else {
            None
        };
        let player = Key::sym(Symbol::intern("player"));
        let mut names = Vec::new();
        for c in &candidates {
            let kept = filters.iter().all(|f| match f {
                Filter::Player(p) => match c.message.attrs.get(&player) {
                    Some(v) => v.to_text() == *p,
                    None => to_move.as_ref().is_some_and(|ps| ps.contains(p)),
                },
                Filter::Entity(e) => c.to == *e,
                Filter::Label(l) => c.message.label == *l,
                Filter::Attribute(k, v) => c.message.attrs.get(k).is_some_and(|a| a == v),
                Filter::Name(n) => action_name(c.to, &c.message) == *n,
                Filter::Nothing => false,
            });
            if !kept {
                continue;
            }
            if self
                .trying
                .iter()
                .any(|(to, m, w)| *to == c.to && **m == *c.message && w.same_as(&self.world))
            {
                return Err(self.asks_about_itself(question, c, span));
            }
            trials
                .trying
                .push((c.to, c.message.clone(), self.world.clone()));
            let trial = Trial::Move(c.to, c.message.clone());
            let tried = self.run_trial(cx, trials, trial, span);
            trials.trying.pop();
            let committed = match tried {
                Ok(_) => true,
                Err(Refused::Illegal) => false,
                Err(Refused::Failed(mut e)) => {
                    e.message = format!(
                        "trying `{}` for `{}`: {}",
                        action_name(c.to, &c.message),
                        question.builtin(),
                        e.message
                    );
                    e.chain.extend(self.chain());
                    return Err(e);
                }
            };
            if !committed {
                continue;
            }
            match question {
                Question::Any | Question::Named => return Ok(Value::bool(true)),
                Question::Names => {
                    self.meter
                        .alloc(ELEMENT_BYTES)
                        .map_err(|e| self.builtin_error(span, e))?;
                    names.push(Value::str(&action_name(c.to, &c.message)));
                }
            }
        }
        Ok(match question {
            Question::Names => Value::list(names.into_iter().collect()),
            Question::Any | Question::Named => Value::bool(false),
        })
    }

    /// The error of a question that would try `c`, a move being tried already: asked by
    /// its own rules, or by the rules of a move tried to answer a question they asked.
    fn asks_about_itself(&self, question: Question, c: &Candidate, span: Span) -> RuntimeError {
        let name = action_name(c.to, &c.message);
        let mut e = self.error(
            span,
            format!(
                "`{}` would try `{name}`, the move being tried: a rule of that move asks \
                 whether it is legal",
                question.builtin()
            ),
        );
        e.hint = Some(
            "a law cannot ask which moves are legal among moves that include its own: ask \
             only about others (filter by \"label\", \"entity\" or an attribute, e.g. \
             (has-legal-move \"kind\" \"jump\") in a law on steps), or ask in \
             `no-legal-move` or in code that runs outside the moves tried"
                .into(),
        );
        e
    }

    /// The players `to-move` gives now, by text (none for a game without it: then only
    /// moves that name their player match a player).
    fn players_to_move(
        &mut self,
        cx: &mut Context<'_>,
        trials: &mut Machine,
        span: Span,
    ) -> Result<Vec<String>, RuntimeError> {
        let Some(code) = cx.game.to_move_call else {
            return Ok(Vec::new());
        };
        match self.run_trial(cx, trials, Trial::Eval(code), span) {
            Ok(Value::Nil) => Ok(Vec::new()),
            Ok(Value::List(l)) => Ok(l.iter().map(Value::to_text).collect()),
            Ok(v) => Ok(vec![v.to_text()]),
            Err(Refused::Failed(e)) => Err(e),
            Err(Refused::Illegal) => Err(self.error(span, "(to-move) did not commit")),
        }
    }

    /// The candidates of the list `#actions` gave.
    fn candidates_of(&self, listed: Value, span: Span) -> Result<Vec<Candidate>, RuntimeError> {
        let items = match listed {
            Value::List(l) => l,
            Value::Nil => return Ok(Vec::new()),
            other => {
                return Err(
                    self.bad_actions(format!("#actions gave {} {other}", other.type_name()), span)
                );
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items.iter() {
            let (to, message) = action_of(item).map_err(|e| self.bad_actions(e, span))?;
            out.push(Candidate { to, message });
        }
        Ok(out)
    }

    /// The error of a list `#actions` gave that is not one of actions.
    fn bad_actions(&self, what: String, span: Span) -> RuntimeError {
        let mut e = self.error(span, what);
        e.hint = Some("#actions must give a list of (list <recipient> <message>)".into());
        e
    }

    /// Run `trial` on `trials` within what is left of this transaction's budget, count
    /// its steps and memory here, and undo it: its value when it commits.
    fn run_trial(
        &mut self,
        cx: &mut Context<'_>,
        trials: &mut Machine,
        trial: Trial,
        span: Span,
    ) -> Result<Value, Refused> {
        let limits = self.meter.limits;
        let mut tcx = Context {
            game: cx.game,
            params: cx.params,
            defaults: cx.defaults,
            cache: &mut *cx.cache,
            limits: Limits {
                max_steps: limits.max_steps.saturating_sub(self.meter.steps),
                max_memory: limits.max_memory.saturating_sub(self.meter.memory),
                max_depth: limits
                    .max_depth
                    .saturating_sub(self.frames.len() + self.frameless + self.jps.len()),
                ..limits
            },
            trace: false,
            stepping: false,
            interrupt: cx.interrupt,
            fixed: cx.fixed,
            tier: cx.tier,
            fast: cx.fast,
        };
        match trial {
            Trial::Eval(code) => trials.restart_trial_eval(&mut tcx, code),
            Trial::Move(to, msg) => trials.restart_trial(&mut tcx, to, msg),
        }
        // A trial asked from the fast tier nests on the same Rust stack: it counts what
        // is open here against the fast tier's bound.
        trials.fast_nest = self.fast_nest;
        let status = trials.run_out(&mut tcx);
        trials.fast_nest = 0;
        trials.end_trial(status.committed(), TrialEnd::Undo);
        self.meter.steps = self.meter.steps.saturating_add(trials.steps());
        self.meter.memory = self.meter.memory.saturating_add(trials.memory());
        let over = self.meter.steps > limits.max_steps || self.meter.memory > limits.max_memory;
        match status {
            Status::Committed(v) => Ok(v),
            Status::Failed(e) if over => Err(Refused::Failed(RuntimeError {
                span: Some(span),
                chain: self.chain(),
                ..e
            })),
            Status::Failed(e) => Err(Refused::Failed(e)),
            Status::Vetoed { .. } | Status::RolledBack { .. } => Err(Refused::Illegal),
        }
    }
}

/// What a trial runs.
enum Trial {
    /// Code as the user: `#actions`, `(to-move)`.
    Eval(CodeId),
    /// A move: the message delivered from the user.
    Move(Symbol, Rc<Message>),
}

/// Why a trial did not give a value.
enum Refused {
    /// It was vetoed or rolled back.
    Illegal,
    /// It failed with an error.
    Failed(RuntimeError),
}
