//! What a front end other than a terminal needs from the backend as data rather than
//! text: the canvas being looked at, the history, the rules in force, the legal moves, the
//! outcome, and read-only expressions. The web server (`crate::serve`) reads these.

use crate::compile::bytecode::CodeId;
use crate::play::agent::{Agent, Agents};
use crate::play::mcts::analyse;
use crate::play::playout::Chooser;
use crate::runtime::canvas::Canvas;
use crate::runtime::moves::NotPlayable;
use crate::runtime::trace::Status;
use crate::runtime::value::Value;
use crate::symbol::Symbol;

use super::history::History;
use super::{Repl, render_diags};

/// One law or side-effect in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleLine {
    /// Its name (what `:disable`, `:enable` and `:remove` take).
    pub name: String,
    /// Its description as `:laws` shows it.
    pub text: String,
    /// Whether it is switched on.
    pub enabled: bool,
}

/// Where the session is: changes whenever a change is recorded, undone or redone, or a
/// transaction starts, goes on or stops waiting for a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    cursor: usize,
    entries: usize,
    pending: Option<usize>,
}

/// One thing the checker says of a law or side-effect not yet added
/// ([`Repl::check_rule_data`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleDiagnostic {
    /// Error (the rule would be refused) or warning.
    pub error: bool,
    /// The kind of problem (`unbound-name`, ...); `refused` for a refusal without a place.
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when the checker says.
    pub hint: Option<String>,
    /// Where, as a byte range of the definition checked; `None` when the problem has no
    /// place in it (a usage, a file the rule names).
    pub at: Option<std::ops::Range<usize>>,
}

/// A legal move's name, and the player it belongs to when its message says.
pub type OwnedMove = (String, Option<String>);

impl Repl {
    /// The canvas being looked at: the waiting transaction's, else the session's.
    pub fn canvas(&self) -> &Canvas {
        &self.world().canvas
    }

    /// The signal the pending transaction waits for, if one does.
    pub fn waiting_for(&self) -> Option<Symbol> {
        self.pending.as_ref().and_then(|p| p.machine.waiting_for())
    }

    /// What the pending transaction waits for (the signal, who must answer, the
    /// answers), if it waits.
    pub fn wait(&self) -> Option<&crate::runtime::vm::Wait> {
        self.pending
            .as_ref()
            .and_then(|p| p.machine.wait())
            .map(|w| &**w)
    }

    /// The history of changes.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Where the session is (compare two marks to know whether anything changed).
    pub fn mark(&self) -> Mark {
        Mark {
            cursor: self.history.cursor(),
            entries: self.history.entries().len(),
            pending: self.pending.as_ref().map(|p| p.commands.len()),
        }
    }

    /// The laws and side-effects in force, in the order they run.
    pub fn rules_in_force(&self) -> Vec<RuleLine> {
        self.world()
            .advice
            .entries
            .iter()
            .map(|a| RuleLine {
                name: a.advice.name.as_str().to_string(),
                text: self.advice_line(a),
                enabled: a.enabled,
            })
            .collect()
    }

    /// The names of the legal moves, each with the player it belongs to when its message
    /// says (a `player` attribute, as in a game of simultaneous moves), as text; `None`
    /// when the game has no `#actions`.
    pub fn legal_moves_with_players(&mut self) -> Option<Result<Vec<OwnedMove>, String>> {
        self.play.session().game.actions?;
        Some(
            self.play
                .session_mut()
                .legal_actions()
                .map(|a| {
                    a.into_iter()
                        .map(|a| {
                            let owner = crate::runtime::value::mover_of(&a.message);
                            (a.name, owner)
                        })
                        .collect()
                })
                .map_err(|e| e.render(&self.sources, false)),
        )
    }

    /// The reply `:play <name>` would give now when `name` cannot be played, listing as
    /// legal only the moves `shown` keeps (a front end that shows each player only its own
    /// moves); `None` when the move is playable or the game has no `#actions`.
    pub fn play_refusal(&mut self, name: &str, shown: &dyn Fn(&str) -> bool) -> Option<String> {
        self.play.session().game.actions?;
        let ply = self.moves_played() + 1;
        let mut refusal = self.play.session_mut().playable(name).err()?;
        if let NotPlayable::Unknown { legal, .. } | NotPlayable::Illegal { legal, .. } =
            &mut refusal
        {
            legal.retain(|n| shown(n));
        }
        Some(format!(
            "error: {}",
            refusal.render(&self.sources, self.options.color, ply)
        ))
    }

    /// The agent of the player the REPL plays that is to move now, with that player and
    /// whether several players are to move at once; `None` when no such player is.
    fn seat_to_move(&mut self) -> Option<(String, Agent, bool)> {
        let agents = self.agents().ok()?;
        let players = self
            .play
            .session_mut()
            .players_to_move(agents.to_move)
            .ok()?;
        let several = players.len() > 1;
        players.into_iter().find_map(|p| {
            let agent = self.seats.iter().find(|(q, _)| *q == p)?.1.clone();
            Some((p, agent, several))
        })
    }

    /// The moves of the players the REPL plays, for as long as one of them is to move
    /// (and no move waits for a signal): each a `:play` of the history, with its reply.
    pub(super) fn play_seats(&mut self) -> String {
        let mut out = Vec::new();
        for _ in 0..super::moves::MAX_AGENT_MOVES {
            if self.pending.is_some() || self.play.finished() {
                break;
            }
            let Some((player, agent, several)) = self.seat_to_move() else {
                break;
            };
            let chosen = match (&agent, several) {
                (Agent::Mcts { iterations, depth }, false) => match self.agents() {
                    Ok(a) => self.best_move(&a, (*iterations, *depth)),
                    Err(e) => Err(e),
                },
                (Agent::System(s), false) => self.system_move_of(&s.system.clone(), &player),
                (Agent::Ismcts { iterations }, _) => self.ismcts_move(*iterations, &player),
                _ => self.random_move_of(&player),
            };
            let name = match chosen {
                Ok(Some(name)) => name,
                Ok(None) => break,
                Err(e) => {
                    out.push(format!(
                        "player {player} ({agent}) cannot choose a move: {e}"
                    ));
                    break;
                }
            };
            let before = self.mark();
            let text = self.play(&name, false);
            out.push(format!("player {player} ({agent}) plays {name}: {text}"));
            if self.mark() == before {
                break;
            }
        }
        out.join("\n")
    }

    /// Take back changes while a player the REPL plays is to move (it would only make
    /// the same move again).
    pub(super) fn undo_seats(&mut self) -> String {
        let mut undone = 0;
        for _ in 0..super::moves::MAX_AGENT_MOVES {
            if self.seat_to_move().is_none() {
                break;
            }
            let before = self.mark();
            self.undo();
            if self.mark() == before {
                break;
            }
            undone += 1;
        }
        if undone == 0 {
            String::new()
        } else {
            format!("({undone} more change(s) taken back: a player the REPL plays was to move)")
        }
    }

    /// The game's `(to-move)` and `(evaluate)` for a search, compiled into the game the
    /// first time they are asked for (see [`Agents::new`]).
    pub fn agents(&mut self) -> Result<Agents, String> {
        if let Some(a) = &self.agents {
            return Ok(a.clone());
        }
        let a = Agents::new(&mut self.play, Vec::new(), Agent::Random)?;
        self.agents = Some(a.clone());
        Ok(a)
    }

    /// The move Monte Carlo tree search chooses now (`iterations` of it, seeded by the
    /// world's generator, as `:hint` does): its name, or `None` when no move is legal.
    pub fn best_move(
        &mut self,
        agents: &Agents,
        budget: crate::play::mcts::Budget,
    ) -> Result<Option<String>, String> {
        let mut chooser = Chooser::new(self.play.random_state(), 0);
        analyse(
            &mut self.play,
            agents,
            &mut chooser,
            budget,
            super::moves::HINT_MAX_PLIES,
        )
        .map(|scores| scores.into_iter().next().map(|s| s.name))
        .map_err(|(_, e)| e.render(&self.sources, false))
    }

    /// The move `ismcts` (`iterations` of it, seeded by the world's generator, as `:hint`
    /// does) chooses now for `player`, from what `player` has seen: its name, or `None`
    /// when `player` has no legal move.
    pub fn ismcts_move(&mut self, iterations: u32, player: &str) -> Result<Option<String>, String> {
        let agents = self.agents()?;
        crate::play::agent::check_agent(&self.play, &Agent::Ismcts { iterations })?;
        let mut chooser = Chooser::new(self.play.random_state(), 0);
        let search = crate::play::ismcts::Search {
            iterations,
            determinize: true,
        };
        crate::play::ismcts::analyse(
            &mut self.play,
            &agents,
            player,
            &mut chooser,
            search,
            super::moves::HINT_MAX_PLIES,
        )
        .map(|scores| scores.into_iter().next().map(|s| s.name))
        .map_err(|(_, e)| e.render(&self.sources, false))
    }

    /// Whether the game lets `agent` play (`mcts` is refused where the game hides things:
    /// see [`crate::play::agent::check_agent`]); the error is for the user.
    pub fn check_agent(&self, agent: &Agent) -> Result<(), String> {
        crate::play::agent::check_agent(&self.play, agent)
    }

    /// A legal move of `player` drawn at random (seeded by the world's generator): one
    /// whose message names `player` as its `player`, or names none; `None` when there is
    /// none.
    pub fn random_move_of(&mut self, player: &str) -> Result<Option<String>, String> {
        let mine: Vec<String> = match self.legal_moves_with_players() {
            None => return Ok(None),
            Some(found) => found?
                .into_iter()
                .filter(|(_, owner)| owner.as_deref().is_none_or(|o| o == player))
                .map(|(name, _)| name)
                .collect(),
        };
        if mine.is_empty() {
            return Ok(None);
        }
        let mut chooser = Chooser::new(self.play.session().world().rng, 0);
        Ok(Some(mine[chooser.below(mine.len())].clone()))
    }

    /// The outcome, if the game is finished, as `key value, key value`.
    pub fn outcome_text(&self) -> Option<String> {
        let outcome = self.play.session().outcome()?;
        let parts: Vec<String> = outcome
            .iter()
            .map(|(k, v)| format!("{} {v}", k.to_value().to_text()))
            .collect();
        Some(parts.join(", "))
    }

    /// Whether the game defines a function called `name`.
    pub fn has_function(&self, name: &str) -> bool {
        let name = Symbol::intern(name);
        self.play
            .session()
            .game
            .functions
            .iter()
            .any(|f| f.name == name)
    }

    /// Compile an expression once, to evaluate it many times with [`Repl::evaluate`].
    pub fn compile_expression(&mut self, text: &str) -> Result<CodeId, String> {
        let name = format!("<front end: {text}>");
        self.compile_user_code(name, text)
            .map_err(|d| render_diags(&self.sources, &d, false))
    }

    /// The value of `code` run on the session's world, which is left as it was (nothing is
    /// recorded).
    pub fn evaluate(&mut self, code: CodeId) -> Result<Value, String> {
        let before = self.play.session().world().clone();
        let tx = self.play.session_mut().eval(code);
        *self.play.session_mut().world_mut() = before;
        match tx.status {
            Status::Committed(v) => Ok(v),
            other => Err(other.summary()),
        }
    }

    /// The game's variants: the rules files in its `variants/` directory, by name (the
    /// file name without `.fr`), sorted.
    pub fn variants(&self) -> Vec<String> {
        let Ok(dir) = std::fs::read_dir(self.root.join("variants")) else {
            return Vec::new();
        };
        let mut names: Vec<String> = dir
            .filter_map(|e| {
                let path = e.ok()?.path();
                let name = path.file_name()?.to_str()?.strip_suffix(".fr")?;
                path.is_file().then(|| name.to_string())
            })
            .collect();
        names.sort();
        names
    }

    /// The rules file of the game's variant `name` (one of [`Repl::variants`]).
    pub fn variant_path(&self, name: &str) -> Result<std::path::PathBuf, String> {
        let variants = self.variants();
        if variants.iter().any(|v| v == name) {
            return Ok(self.root.join("variants").join(format!("{name}.fr")));
        }
        Err(
            match crate::diagnostic::closest(name, variants.iter().map(String::as_str)) {
                Some(c) => format!("the game has no variant \"{name}\"; did you mean \"{c}\"?"),
                None if variants.is_empty() => "the game has no variants".to_string(),
                None => format!(
                    "the game has no variant \"{name}\" (its variants: {})",
                    variants.join(", ")
                ),
            },
        )
    }

    /// What `:law <definition>` (`law`) or `:sideeffect <definition>` would be told
    /// before the rule is put in force, as data: the errors that refuse it (reading,
    /// checking, a name already in force) and the warnings. Nothing changes: the session,
    /// its sources and its history are left as they were.
    pub fn check_rule_data(&mut self, law: bool, definition: &str) -> Vec<RuleDiagnostic> {
        use super::command::Kind;
        let kind = if law { Kind::Law } else { Kind::SideEffect };
        let (sources, snippets) = (self.sources.clone(), self.snippets);
        let prefix = super::rules::advice_prefix(kind).len();
        // The definition is read as the next file of the sources.
        let snippet = crate::source::FileId(sources.files().count() as u32);
        let place = (snippet, prefix, definition);
        let diags = match self.parse_advice(kind, definition) {
            Err(super::rules::Unread::Text(text)) => {
                let message = text.strip_prefix("error: ").unwrap_or(&text).to_string();
                vec![RuleDiagnostic {
                    error: true,
                    code: "refused".into(),
                    message,
                    hint: None,
                    at: None,
                }]
            }
            Err(super::rules::Unread::Diagnostics(diags)) => rule_data(&diags, place),
            Ok(def) => {
                let mut diags = self.advice_diagnostics(&def);
                // `:law` refuses a name already in force that the rule does not replace.
                let world = self.play.session().world();
                if let Some(name) = def.name
                    && world.advice.find(name.sym).is_some()
                    && def.replaces.map(|r| r.sym) != Some(name.sym)
                {
                    diags.push(
                        crate::diagnostic::Diagnostic::error(
                            "rule-in-force",
                            name.span,
                            format!(
                                "a law or side-effect named \"{}\" is already in force",
                                name.sym
                            ),
                        )
                        .with_hint(format!(
                            "choose another name, or take its place with `replaces \"{}\"`",
                            name.sym
                        )),
                    );
                }
                crate::diagnostic::sort(&mut diags);
                rule_data(&diags, place)
            }
        };
        self.sources = sources;
        self.snippets = snippets;
        diags
    }

    /// Whether `:law ... is "file"` may read files (on by default; a front end serving
    /// people it does not trust turns it off, so only code written inline is accepted).
    pub fn set_rule_files(&mut self, allowed: bool) {
        self.rule_files = allowed;
    }
}

/// `diags` of a definition read as file `snippet` after `prefix` bytes, placed in the
/// definition.
fn rule_data(
    diags: &[crate::diagnostic::Diagnostic],
    (snippet, prefix, definition): (crate::source::FileId, usize, &str),
) -> Vec<RuleDiagnostic> {
    let place = |b: u32| (b as usize).saturating_sub(prefix).min(definition.len());
    diags
        .iter()
        .map(|d| RuleDiagnostic {
            error: d.is_error(),
            code: d.code.to_string(),
            message: d.message.clone(),
            hint: d.hint.clone(),
            at: (d.span.file == snippet).then(|| place(d.span.start)..place(d.span.end)),
        })
        .collect()
}
