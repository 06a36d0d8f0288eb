//! Running a command: [`Repl::handle`] parses an input once and [`Repl::execute`] runs the
//! [`Command`], by what the REPL is doing (a transaction being stepped or waiting for a
//! signal lets only some commands through); then the players the REPL plays answer.

use super::command::{Command, Gap, ParseError, Step};
use super::{Repl, Reply, help};

/// What the players the REPL plays (`:agent`) do after a command changed the game.
enum Answer {
    /// Make their moves.
    Play,
    /// Take back their moves too (after `:undo`).
    TakeBack,
    /// Nothing (after `:redo` and `:goto`).
    Nothing,
}

impl Repl {
    /// Handle one input (a line, or several lines of one expression); then, if it changed
    /// the game, the players the REPL plays make their moves. A blank line or a comment
    /// (`;`, transcripts explain themselves with them) does nothing, but for a blank line
    /// while a transaction is stepped: the next step.
    pub fn handle(&mut self, input: &str) -> Reply {
        let line = input.trim();
        if self.pending.is_none() && (line.is_empty() || line.starts_with(';')) {
            return Reply::default();
        }
        let parsed = if line.is_empty() {
            Ok(Command::Next)
        } else {
            Command::parse(line)
        };
        match parsed {
            Ok(command) => self.execute(command),
            Err(e) => self.refuse(e),
        }
    }

    /// Run one command; then, if it changed the game, the players the REPL plays
    /// (`:agent`) make their moves, and an undo goes back to a turn of another player.
    pub fn execute(&mut self, command: Command) -> Reply {
        let before = self.mark();
        let answer = match command {
            Command::Undo => Answer::TakeBack,
            Command::Redo | Command::Goto(_) => Answer::Nothing,
            _ => Answer::Play,
        };
        let mut reply = Reply::default();
        reply.text = self.run(command, &mut reply);
        if !self.seats.is_empty() && !self.replaying && self.mark() != before {
            let answers = match answer {
                Answer::TakeBack => self.undo_seats(),
                Answer::Nothing => String::new(),
                Answer::Play => self.play_seats(),
            };
            if !answers.is_empty() {
                if !reply.text.is_empty() {
                    reply.text.push('\n');
                }
                reply.text.push_str(&answers);
            }
        }
        reply
    }

    /// The reply to an input that is not a command: why, or, while a transaction is in
    /// progress and the command it names could not run then, what the transaction waits for.
    pub(super) fn refuse(&self, e: ParseError) -> Reply {
        let text = match self.pending {
            Some(_) if !e.kind.is_some_and(|k| k.runs_while_pending()) => self.reminder(),
            _ => e.message,
        };
        Reply { text, quit: false }
    }

    /// What the transaction in progress waits for.
    fn reminder(&self) -> String {
        match self.pending.as_ref().and_then(|p| p.machine.wait()) {
            Some(w) => format!("the transaction {}, or :abort", waiting_text(w).replacen("waiting", "waits", 1)),
            None => "a transaction is being stepped: Enter or :next for the next step, :continue to finish, :abort to abandon".into(),
        }
    }

    /// Run `command` as the REPL stands: while a transaction is in progress, only the
    /// commands that step, answer or end it, and those that only look.
    fn run(&mut self, command: Command, reply: &mut Reply) -> String {
        let Some(p) = &self.pending else {
            return self.command(command, reply);
        };
        let waiting = p.machine.waiting_for();
        match command {
            Command::Next if waiting.is_none() => self.advance(true),
            Command::Continue if waiting.is_none() => self.advance(false),
            Command::Abort => {
                if let Some(mut p) = self.pending.take() {
                    self.keep_profile(&mut p.machine);
                }
                "aborted: the world is as it was before the transaction".into()
            }
            Command::Quit => {
                reply.quit = true;
                String::new()
            }
            command if command.kind().runs_while_pending() => self.command(command, reply),
            _ => self.reminder(),
        }
    }

    /// Run `command`.
    fn command(&mut self, command: Command, reply: &mut Reply) -> String {
        match command {
            Command::Send { text } => self.send(&text, false),
            Command::Expression { text } => self.expression(&text, false),
            Command::Help { topic } => help::help(&topic),
            Command::Quit => {
                reply.quit = true;
                String::new()
            }
            Command::Step(step) => match step {
                Step::Send { text } => self.send(&text, true),
                Step::Expression { text } => self.expression(&text, true),
                Step::Play { name } => self.play(&name, true),
                // A bare name is a move.
                Step::Move { name } if self.play.session().game.actions.is_some() => {
                    self.play(&name, true)
                }
                Step::Move { .. } => super::command::STEP_USAGE.into(),
            },
            Command::Next | Command::Continue | Command::Abort => {
                "nothing is being stepped: start a transaction with :step".into()
            }
            Command::Trace(Some(on)) => {
                self.trace = on;
                if on { "trace on" } else { "trace off" }.into()
            }
            Command::Trace(None) => format!(
                "trace is {}; usage: :trace on|off",
                if self.trace { "on" } else { "off" }
            ),
            Command::Profile(on) => self.profile_command(on),
            Command::Disasm { name } => self.disasm(&name),
            Command::Entities => self.entities(),
            Command::Show { entity } => self.show(&entity),
            Command::Advice {
                entity,
                label,
                state,
            } => self.advice(&entity, &label, &state),
            Command::Laws => self.laws(),
            Command::Law { ref definition, .. } | Command::SideEffect { ref definition, .. } => {
                self.add_advice(&command, definition)
            }
            Command::Rules { ref path, .. } => self.rules(&command, path),
            Command::Disable { ref name, .. }
            | Command::Enable { ref name, .. }
            | Command::Remove { ref name, .. } => self.switch(&command, name),
            Command::Undo => self.undo(),
            Command::Redo => self.redo(),
            Command::History => self.history_text(),
            Command::Goto(n) => self.goto(n),
            Command::Checkpoints => match &self.pending {
                Some(p) => format!(
                    "{} checkpoint(s) open in the transaction being stepped",
                    p.machine.open_checkpoints()
                ),
                None => {
                    "no transaction in progress: checkpoints belong to a transaction (use :step)"
                        .into()
                }
            },
            Command::Moves => self.moves(),
            Command::Play { name } => self.play(&name, false),
            Command::Why(why) => self.why(why),
            Command::Random(n) => self.random(n),
            Command::Agent(seats) => self.agent(seats),
            Command::Hint(n) => self.hint(n),
            Command::HintIsmcts { iterations, player } => self.hint_ismcts(iterations, player),
            Command::Save { path } => self.save(&path),
            Command::Load { path } => self.load(&path),
            Command::Sgf { save, path } => self.sgf(save, &path),
            Command::Signal { name, gap, tag } => self.signal(name, gap, tag),
            Command::Board { view } => self.board(&view),
            Command::BoardAfterMoves(on) => self.board_after_moves(on),
            Command::Click { owner, graphic } => self.click(&owner, &graphic),
            Command::Reload => self.reload(),
        }
    }

    /// `:signal <name> [<tag>]`: answer the transaction waiting for signal `name`.
    fn signal(&mut self, name: String, gap: Gap, tag: Option<String>) -> String {
        let Some(p) = self.pending.as_mut() else {
            return "error: no transaction is waiting for a signal".into();
        };
        match p.machine.waiting_for() {
            Some(s) if s.as_str() == name => {}
            Some(s) => {
                return format!("error: the transaction waits for signal \"{s}\", not \"{name}\"");
            }
            None => {
                return "error: the transaction being stepped is not waiting for a signal".into();
            }
        }
        let value = match &tag {
            None => crate::runtime::value::Value::Nil,
            Some(tag) => crate::runtime::outside::parse_literal(tag),
        };
        if let Some(Err(refused)) = p.machine.wait().map(|w| w.check(&value)) {
            return format!("error: {refused}; nothing changed");
        }
        p.machine.signal(value);
        p.commands.push(Command::Signal { name, gap, tag });
        let stepping = p.stepping;
        self.advance(stepping)
    }
}

/// What a transaction waiting for a signal waits for, for people: `waiting for signal
/// "s" from player 1: answer with :signal s <tag> (one of "a", "b")`; the parts after
/// the signal only when the wait names a player (`from`) or its answers (`among`).
pub(super) fn waiting_text(wait: &crate::runtime::vm::Wait) -> String {
    let s = wait.signal;
    let from = wait
        .player
        .as_ref()
        .map_or(String::new(), |p| format!(" from player {}", p.to_text()));
    let among = wait
        .answers_text()
        .map_or(String::new(), |a| format!(" (one of {a})"));
    format!("waiting for signal \"{s}\"{from}: answer with :signal {s} <tag>{among}")
}
