//! The REPL backend: commands, stepping, house rules, history, journals.
//!
//! Boundary: this module knows nothing about terminals. [`Repl::handle`] takes one input
//! (a line, or several lines of one expression), reads it as a [`Command`] and runs it
//! ([`Repl::execute`]), and returns the text to show; the rustyline front end
//! ([`terminal`]) and the plain one ([`plain`]) only move text.

mod board;
pub mod command;
mod execute;
mod files;
pub mod front;
mod help;
pub mod history;
mod inspect;
pub mod journal;
mod journal_paths;
mod moves;
mod navigation;
pub mod plain;
mod rules;
pub mod terminal;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::api;
use crate::compile::program::Game;
use crate::diagnostic::{Diagnostic, RenderConfig, render};
use crate::runtime::profile::Profile;
use crate::runtime::session::Session;
use crate::runtime::trace::{Output, Status, TraceEvent, Transaction};
use crate::runtime::vm::{Limits, Machine, Run};
use crate::source::SourceMap;
use crate::syntax::ast::Program;

pub use command::Command;
use command::ParseError;
use history::{Entry, History};

/// How to open a REPL.
#[derive(Clone, Debug)]
pub struct ReplOptions {
    /// The game (a directory with game.fr, or a .fr file).
    pub game: PathBuf,
    /// Seed of the random generator.
    pub seed: u64,
    /// `--param` overrides as `name=value`.
    pub params: Vec<String>,
    /// Transaction limits.
    pub limits: Limits,
    /// Which tier runs the transactions.
    pub tier: crate::runtime::vm::Tier,
    /// Rules files put in force after the game's own advice.
    pub rules: Vec<PathBuf>,
    /// Colour diagnostics.
    pub color: bool,
}

/// What the front end should do after showing a reply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// Text to show (may be empty).
    pub text: String,
    /// The user asked to quit.
    pub quit: bool,
}

/// A transaction started with `:step`, or waiting for a signal.
struct Pending {
    machine: Machine,
    /// The input that started it (and the signals answered since), for the journal.
    commands: Vec<Command>,
    /// How many trace events were shown already.
    shown: usize,
    /// Stopping after every step.
    stepping: bool,
}

/// Whether a finished transaction's trace is to be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TraceShown {
    /// Show it (`:trace on`).
    Show,
    /// It was shown step by step already.
    Already,
    /// It is not shown: only what needs saying (a message nothing handles).
    No,
}

/// Whether `line` is one a journal may hold: a send, an expression, or one of the commands
/// that change the world or the rules ([`command::Kind::journaled`]; `parsed` is the line
/// read), written exactly as the REPL records them (no surrounding blanks; only an
/// expression spans several lines). `:load`, `:save` and every other command are refused,
/// so replaying a journal cannot write files or load another journal.
fn journal_line_kind(line: &str, parsed: &Result<Command, ParseError>) -> Result<(), &'static str> {
    if line.trim() != line || line.is_empty() {
        return Err("a journal line has no surrounding blanks");
    }
    let kind = match parsed {
        Ok(command) => Some(command.kind()),
        Err(e) => e.kind,
    };
    if kind == Some(command::Kind::Expression) {
        return Ok(());
    }
    if line.contains('\n') {
        return Err("only an expression spans several lines");
    }
    match kind {
        Some(kind) if kind.journaled() => Ok(()),
        _ => Err("only sends, expressions and rule, play, click and signal commands are replayed"),
    }
}

/// The refusal of a change that alone would take more than the history's budget.
fn history_refusal(bytes: u64, budget: u64) -> String {
    format!(
        "refused: keeping this position for undo would take about {bytes} bytes, more than \
         the history's memory budget of {budget} bytes; the game is as it was before it \
         (raise the budget with --max-history-memory)"
    )
}

/// A REPL session.
pub struct Repl {
    /// The match played: the REPL steps its transactions on the session beneath.
    play: api::Match,
    sources: SourceMap,
    program: Arc<Program>,
    root: PathBuf,
    options: ReplOptions,
    history: History,
    pending: Option<Pending>,
    trace: bool,
    snippets: usize,
    random_state: u64,
    /// Draw the board after every committed move.
    show_board: bool,
    /// Warnings found when the game opened, shown with the banner.
    warnings: String,
    /// Whether `:law ... is "file"` may read files.
    rule_files: bool,
    /// Replaying a journal: files named by its lines must lie in the game's directory.
    replaying: bool,
    /// The steps of the user's transactions by body, while `:profile` is on.
    profile: Option<Profile>,
    /// The game's `(to-move)` and `(evaluate)` compiled for searches (`:hint`), once.
    agents: Option<crate::play::agent::Agents>,
    /// The players the REPL plays itself (`:agent`), by their text, with their agents.
    seats: Vec<(String, crate::play::agent::Agent)>,
}

/// Why a REPL could not open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenError {
    /// The text to show.
    pub text: String,
    /// The options are wrong (no such game file, an unknown or malformed parameter), as
    /// opposed to a game that does not check or start.
    pub usage: bool,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Open the game and start it; the error is the text to show.
fn open(options: &ReplOptions) -> Result<Opened, OpenError> {
    let loader = api::Game::loader(&options.game)
        .rules_files(&options.rules)
        .params_text(&options.params)
        .limits(options.limits)
        .tier(options.tier);
    let game = loader.load().map_err(|e| OpenError {
        usage: e.is_usage(),
        text: match e {
            api::LoadError::Invalid { .. } => e.render(options.color),
            _ => format!("error: {e}"),
        },
    })?;
    let (mut session, _) = game
        .start_session(options.seed, false)
        .map_err(|e| OpenError {
            usage: e.is_usage(),
            text: match &e {
                api::Error::Start(s) if s.diagnostic().is_some() => {
                    e.render(game.sources(), options.color)
                }
                _ => format!("error: {e}"),
            },
        })?;
    // The REPL watches the game: its representations draw from the start.
    session.watch().map_err(|e| OpenError {
        usage: false,
        text: match e.to_diagnostic() {
            Some(d) => render_diags(game.sources(), &[d], options.color),
            None => format!("error: drawing the game failed: {}", e.message),
        },
    })?;
    let warnings = if game.warnings().is_empty() {
        String::new()
    } else {
        render_diags(game.sources(), game.warnings(), options.color)
    };
    Ok(Opened {
        play: game.adopt(session),
        sources: game.sources().clone(),
        program: game.program().clone(),
        root: game.root().to_path_buf(),
        warnings,
    })
}

/// A game opened for the REPL.
struct Opened {
    play: api::Match,
    sources: SourceMap,
    program: Arc<Program>,
    root: PathBuf,
    /// The warnings of the game and its rules files, rendered (empty when none).
    warnings: String,
}

fn render_diags(sources: &SourceMap, diags: &[Diagnostic], color: bool) -> String {
    let mut out = Vec::new();
    let _ = render(sources, diags, RenderConfig { color }, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

impl Repl {
    /// Open `options.game` and run its `#setup`.
    pub fn new(options: ReplOptions) -> Result<Repl, OpenError> {
        let Opened {
            play,
            sources,
            program,
            root,
            warnings,
        } = open(&options)?;
        Ok(Repl {
            warnings,
            history: History::new(play.session().world().clone()),
            random_state: options.seed ^ 0x5DEE_CE66_D1CE_4E5B,
            play,
            sources,
            program,
            root,
            options,
            pending: None,
            trace: false,
            snippets: 0,
            show_board: false,
            rule_files: true,
            replaying: false,
            profile: None,
            agents: None,
            seats: Vec::new(),
        })
    }

    /// A line to show when the REPL opens.
    pub fn banner(&self) -> String {
        let entities = self.play.session().world().iter().count();
        let actions = if self.play.session().game.actions.is_some() {
            ", :moves lists the legal moves"
        } else {
            ""
        };
        format!(
            "{}flexrules: {} ({entities} entities). :help lists the commands{actions}.",
            self.warnings,
            self.options.game.display()
        )
    }

    /// The prompt: `>` normally, `step>` while stepping, `signal>` while waiting.
    pub fn prompt(&self) -> &'static str {
        match &self.pending {
            Some(p) if p.machine.waiting_for().is_some() => "signal> ",
            Some(_) => "step> ",
            None => "> ",
        }
    }

    /// Draw the board after every committed move (the terminal front end turns this on;
    /// `:board on|off` switches it).
    pub fn set_show_board(&mut self, on: bool) {
        self.show_board = on;
    }

    /// Bound the memory of the positions kept for undo to `bytes` (see [`History`]); a
    /// REPL starts with [`history::default_budget`].
    pub fn set_history_budget(&mut self, bytes: u64) {
        self.history.set_budget(bytes);
    }

    /// The session being played.
    pub fn session(&self) -> &Session {
        self.play.session()
    }

    /// Set the flag that interrupts a running transaction.
    pub fn set_interrupt(&mut self, flag: Arc<std::sync::atomic::AtomicBool>) {
        self.play.session_mut().interrupt = Some(flag);
    }

    /// Names to complete: commands, entities, labels, advice names.
    pub fn completions(&self) -> Vec<String> {
        let mut out: Vec<String> = help::COMMANDS
            .iter()
            .map(|c| format!(":{}", c.name))
            .collect();
        out.push("send".into());
        out.extend(
            self.play
                .session()
                .world()
                .iter()
                .map(|(_, e)| e.name.as_str().to_string()),
        );
        let game = &self.play.session().game;
        for ty in &game.types {
            out.extend(ty.behaviours.keys().map(|(_, l)| l.as_str().to_string()));
        }
        out.extend(
            self.play
                .session()
                .world()
                .advice
                .entries
                .iter()
                .map(|a| a.advice.name.as_str().to_string()),
        );
        out.sort();
        out.dedup();
        out
    }

    /// Run the pending machine one step (or to the end); show what happened.
    fn advance(&mut self, stepping: bool) -> String {
        let Some(mut p) = self.pending.take() else {
            return "nothing to step".into();
        };
        p.stepping = stepping;
        let run = self.play.session_mut().resume(&mut p.machine, stepping);
        let mut out = String::new();
        if stepping || self.trace {
            let mut events = &p.machine.trace[p.shown..];
            // The outermost veto ends the transaction: the status line says it once.
            if let (
                Run::Finished(Status::Vetoed { .. }),
                [rest @ .., TraceEvent::Vetoed { depth: 1, .. }],
            ) = (&run, events)
            {
                events = rest;
            }
            for e in events {
                out.push_str(&crate::runtime::trace_text::describe(e));
                out.push('\n');
            }
        }
        p.shown = p.machine.trace.len();
        match run {
            Run::Stepped => {
                self.pending = Some(p);
            }
            Run::Waiting(wait) => {
                out.push_str(&execute::waiting_text(&wait));
                out.push('\n');
                self.pending = Some(p);
            }
            Run::Finished(status) => {
                let lines = std::mem::take(&mut p.commands);
                self.keep_profile(&mut p.machine);
                let memory = p.machine.memory();
                let tx = self.play.session_mut().conclude_move(p.machine, status);
                let shown = if stepping || self.trace {
                    TraceShown::Already
                } else {
                    TraceShown::No
                };
                out.push_str(&self.finish(lines, tx, shown, memory));
            }
        }
        out.trim_end().to_string()
    }

    /// Add what the user's transaction that ran on `m` counted to the profile, while
    /// `:profile` is on.
    fn keep_profile(&mut self, m: &mut Machine) {
        if let (Some(mine), Some(counted)) = (self.profile.as_mut(), m.profile_mut()) {
            mine.merge(counted);
        }
    }

    /// Record a finished transaction (its machine counted `memory` bytes) and describe it.
    fn finish(
        &mut self,
        lines: Vec<Command>,
        tx: Transaction,
        trace: TraceShown,
        memory: u64,
    ) -> String {
        let mut out = String::new();
        match trace {
            TraceShown::Show => {
                for e in &tx.trace {
                    out.push_str(&crate::runtime::trace_text::describe(e));
                    out.push('\n');
                }
            }
            TraceShown::Already => {}
            TraceShown::No => {
                // A message typed here that nothing handles is worth saying without :trace.
                for e in &tx.trace {
                    if let TraceEvent::NoBehaviour {
                        depth: 1,
                        entity,
                        label,
                        state,
                    } = e
                    {
                        out.push_str(&format!(
                            "note: no behaviour of {entity} handles {label} in state {state}: the message was ignored\n"
                        ));
                    }
                }
            }
        }
        for line in &tx.output {
            match line {
                Output::Notify(t) => out.push_str(&format!("notify: {t}\n")),
                Output::Print(t) => out.push_str(&format!("print: {t}\n")),
            }
        }
        let changed = !self.play.session().world().same_as(self.history.current());
        let kept = matches!(tx.status, Status::Committed(_) | Status::RolledBack { .. });
        let mut held = 0;
        if changed && kept {
            // What keeping this position for undo costs the history's budget.
            let bytes = memory.saturating_add(
                self.play
                    .session()
                    .world()
                    .new_bytes_since(self.history.current()),
            );
            if !self.history.fits(bytes) {
                *self.play.session_mut().world_mut() = self.history.current().clone();
                out.push_str(&history_refusal(bytes, self.history.budget()));
                return out;
            }
            held = bytes;
        }
        let expression = matches!(lines.first(), Some(Command::Expression { .. }));
        match &tx.status {
            // An expression that changed nothing only looked: its value is the answer.
            Status::Committed(v) if expression && !changed => out.push_str(&v.to_string()),
            status => out.push_str(&status.summary()),
        }
        if let Status::Failed(e) = &tx.status {
            out.push('\n');
            out.push_str(e.render(&self.sources, self.options.color).trim_end());
        }
        if changed && kept {
            let typed: Vec<String> = lines.iter().map(Command::to_string).collect();
            self.history.push(Entry {
                description: format!(
                    "{} -> {}",
                    typed.join(" / ").replace('\n', " "),
                    tx.status.summary()
                ),
                commands: lines,
                world: Some(self.play.session().world().clone()),
                bytes: held,
            });
            if let Some(outcome) = self.play.session().outcome() {
                let parts: Vec<String> = outcome
                    .iter()
                    .map(|(k, v)| format!("{} {v}", k.to_value().to_text()))
                    .collect();
                out.push_str(&format!("\nthe game is finished: {}", parts.join(", ")));
            }
            if let Some(board) = self.board_after_move() {
                out.push('\n');
                out.push_str(&board);
            }
        }
        out
    }

    /// Run a machine to the end (or to a wait), as a transaction from `command`.
    fn run_machine(&mut self, mut machine: Machine, command: Command, stepping: bool) -> String {
        if self.profile.is_some() {
            machine.set_profile(Some(Box::default()));
        }
        self.pending = Some(Pending {
            machine,
            commands: vec![command],
            shown: 0,
            stepping,
        });
        if stepping {
            let mut out = String::from(
                "stepping: Enter or :next for each step, :continue to finish, :abort to abandon\n",
            );
            out.push_str(&self.advance(true));
            return out;
        }
        let Some(mut p) = self.pending.take() else {
            return String::new();
        };
        let run = self.play.session_mut().resume(&mut p.machine, false);
        match run {
            Run::Finished(status) => {
                let lines = std::mem::take(&mut p.commands);
                self.keep_profile(&mut p.machine);
                let memory = p.machine.memory();
                let tx = self.play.session_mut().conclude_move(p.machine, status);
                let shown = if self.trace {
                    TraceShown::Show
                } else {
                    TraceShown::No
                };
                self.finish(lines, tx, shown, memory)
            }
            Run::Waiting(wait) => {
                let mut out = String::new();
                if self.trace {
                    for e in &p.machine.trace {
                        out.push_str(&crate::runtime::trace_text::describe(e));
                        out.push('\n');
                    }
                }
                p.shown = p.machine.trace.len();
                self.pending = Some(p);
                out.push_str(&execute::waiting_text(&wait));
                out
            }
            Run::Stepped => {
                self.pending = Some(p);
                self.advance(false)
            }
        }
    }

    fn send(&mut self, text: &str, stepping: bool) -> String {
        match crate::runtime::outside::parse_send(text) {
            Ok((to, msg)) => {
                if self.play.session().world().lookup(to).is_none() {
                    return format!("error: no entity named \"{to}\" (:entities lists them)");
                }
                let m = self.play.session_mut().begin_deliver(to, msg, stepping);
                let command = Command::Send {
                    text: text.to_string(),
                };
                self.run_machine(m, command, stepping)
            }
            Err(e) => format!("error: {e}"),
        }
    }

    fn expression(&mut self, text: &str, stepping: bool) -> String {
        self.snippets += 1;
        let name = format!("<input {}>", self.snippets);
        let code = match self.compile_user_code(name, text) {
            Ok(c) => c,
            Err(d) => {
                return render_diags(&self.sources, &d, self.options.color)
                    .trim_end()
                    .to_string();
            }
        };
        let m = self.play.session_mut().begin_eval(code);
        let command = Command::Expression {
            text: text.to_string(),
        };
        self.run_machine(m, command, stepping)
    }

    /// Read, check and compile `text`, code typed by a user (statements run as the user),
    /// into the session's game under the source name `name`.
    fn compile_user_code(
        &mut self,
        name: String,
        text: &str,
    ) -> Result<crate::compile::bytecode::CodeId, Vec<Diagnostic>> {
        let (_, body, mut diags) =
            crate::syntax::load::parse_text_statements(&mut self.sources, &name, text);
        if diags.iter().all(|d| !d.is_error()) {
            diags.extend(crate::compile::check::check_snippet(
                &self.program,
                &[],
                crate::compile::check::Snippet::User(&body),
            ));
        }
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        let span = body.first().map(|e| e.span).unwrap_or_default();
        crate::compile::codegen::compile_body(self.play.session_mut().game_mut(), &body, name, span)
    }

    /// A new REPL on `options` with `lines` (journal lines) replayed; the error names the
    /// line that does not replay and why.
    pub fn replay(options: ReplOptions, lines: &[String]) -> Result<Repl, String> {
        // Every line is read and checked before the game opens and any line runs: a
        // journal with a line it may not hold is refused without doing any of its work.
        let mut commands = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            let parsed = Command::parse(line);
            if let Err(why) = journal_line_kind(line, &parsed) {
                return Err(format!(
                    "change {} (`{}`) is not a change a journal can hold: {why}",
                    i + 1,
                    line.lines().next().unwrap_or("")
                ));
            }
            commands.push(parsed);
        }
        let mut repl = Repl::new(options).map_err(|e| format!("the game does not open:\n{e}"))?;
        repl.replaying = true;
        for (i, (line, parsed)) in lines.iter().zip(commands).enumerate() {
            // Checked by what the line did, not by its reply: a change moves the history
            // on, or starts a transaction that waits for a signal.
            let before = repl.history.cursor();
            let out = match parsed {
                Ok(command) => repl.execute(command),
                Err(e) => repl.refuse(e),
            }
            .text;
            if repl.history.cursor() != before + 1 && repl.pending.is_none() {
                return Err(format!(
                    "change {} (`{line}`) did not go through:\n{out}",
                    i + 1
                ));
            }
        }
        if repl.pending.is_some() {
            return Err("it ends inside a transaction".into());
        }
        repl.replaying = false;
        Ok(repl)
    }

    /// The game as compiled.
    fn game(&self) -> &Game {
        &self.play.session().game
    }

    fn journal_game(&self) -> &Path {
        &self.options.game
    }
}

/// Whether `text` is a complete input: every `(` outside strings and comments is closed.
/// (More `)` than `(` counts as complete: the error is reported when it is handled.)
pub fn input_complete(text: &str) -> bool {
    let mut depth = 0i64;
    let mut in_string = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            ';' => {
                // A comment runs to the end of its line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
    }
    depth <= 0 && !in_string
}
