//! The `:` commands.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::compile::program::AdviceTarget;
use crate::diagnostic::Diagnostic;
use crate::play::agent::{Agent, TO_MOVE};
use crate::play::playout::Chooser;
use crate::runtime::moves::Verdict;
use crate::runtime::world::{AdviceEntry, next_version};
use crate::symbol::Symbol;
use crate::syntax::ast::{AdviceBody, AdviceKind, Item};
use crate::syntax::load::{DiskFs, load_advice_file};

use super::history::Entry;
use super::journal::{Journal, digest, write_atomically};
use super::journal_paths;
use super::{Repl, ReplOptions, Reply, render_diags};

/// One command: its name, arguments and help.
pub struct Command {
    /// The name after `:`.
    pub name: &'static str,
    /// Its arguments.
    pub args: &'static str,
    /// What it does.
    pub help: &'static str,
}

/// The most moves the players the REPL plays make in a row.
pub(super) const MAX_AGENT_MOVES: usize = 10_000;

/// The iterations of a plain `:hint`.
const HINT_ITERATIONS: u32 = 1000;
/// The moves a random playout of `:hint` plays at most before it counts as a draw.
pub(super) const HINT_MAX_PLIES: usize = 10_000;

const fn c(name: &'static str, args: &'static str, help: &'static str) -> Command {
    Command { name, args, help }
}

/// Every command, in the order `:help` lists them.
pub const COMMANDS: &[Command] = &[
    c("help", "[<command>]", "list the commands, or explain one"),
    c(
        "step",
        "<send ... | (expression) | [:play] <move>>",
        "run a transaction (a send, an expression or a move) one join-point step at a time: Enter or :next for the next step, :continue to finish, :abort to abandon it and leave the world untouched",
    ),
    c(
        "trace",
        "on|off",
        "show every join-point step of each transaction",
    ),
    c(
        "profile",
        "[on|off]",
        "count the steps of your transactions (sends, expressions, moves) by law, side-effect, behaviour and function: :profile on starts from zero, :profile shows every body, most steps first, :profile off stops; moves only tried (:moves, :why, :random's choice) are not counted",
    ),
    c(
        "disasm",
        "<name>",
        "the instructions of the bodies whose name contains <name>, with the steps each counts and its source line; names as :profile shows them (law Knight Moves, function add-targets), rules added here included; a fused instruction's plain sequence is indented under it; with :profile on, how many times each instruction ran",
    ),
    c(
        "entities",
        "",
        "list the entities with their type and state",
    ),
    c(
        "show",
        "<entity>",
        "an entity's type, state, properties and the advice that can reach it",
    ),
    c(
        "advice",
        "<entity> <label> <state>",
        "the laws and side-effects that run when <label> reaches <entity> in <state>, in order, with the behaviour between them",
    ),
    c(
        "laws",
        "",
        "every law and side-effect in force, with its binding and source",
    ),
    c(
        "law",
        "[<name>] on <label> to <entity> in <state> is <\"file\" | (code)>",
        "add a law from the next transaction on (undoable)",
    ),
    c(
        "sideeffect",
        "[<name>] on <label> to <entity> in <state> is <\"file\" | (code)>",
        "add a side-effect from the next transaction on (undoable)",
    ),
    c(
        "rules",
        "<file>",
        "put in force every law and side-effect of a rules file (a variant): all or none (undoable)",
    ),
    c(
        "disable",
        "<name>",
        "switch a law or side-effect off (undoable)",
    ),
    c("enable", "<name>", "switch it back on (undoable)"),
    c("remove", "<name>", "remove a law or side-effect (undoable)"),
    c(
        "undo",
        "",
        "take back the last change (a transaction or a rule change)",
    ),
    c("redo", "", "put back the last change taken back"),
    c("history", "", "the numbered changes; * marks where you are"),
    c(
        "goto",
        "<n>",
        "go to the world after change <n> (0 is the start)",
    ),
    c(
        "checkpoints",
        "",
        "the checkpoints open in the transaction being stepped",
    ),
    c("moves", "", "the legal moves (games with #actions)"),
    c(
        "play",
        "<name>",
        "play a legal move by name; an illegal one is refused with the reason",
    ),
    c(
        "why",
        "<name> | send ...",
        "why a move (or any message) is not legal: the law that vetoes it (and what it notifies), the rollback reason, or the error",
    ),
    c("random", "[<n>]", "play <n> random legal moves (default 1)"),
    c(
        "agent",
        "[<player>=<agent> | <player>=off | off]",
        "let the REPL play a player itself (mcts[:<iterations>[:<depth>]] or random), answering each move; without arguments, those it plays",
    ),
    c(
        "hint",
        "[<iterations>]",
        "what Monte Carlo tree search would play: each legal move with its visits and score (needs the game's to-move)",
    ),
    c(
        "save",
        "<file>",
        "write the session (game, seed, parameters, every change) to a journal",
    ),
    c(
        "load",
        "<file>",
        "replay a journal; the current session is kept if it does not replay",
    ),
    c(
        "sgf",
        "load|save <file>",
        "replay a Go game record (SGF) in a fresh game, or write the game played so far as SGF: load takes the record's size, komi and handicap, makes each move a change of the history, and leaves the session unchanged if the record is broken or a move is illegal",
    ),
    c(
        "signal",
        "<name> [<tag>]",
        "answer a transaction waiting on (wait signal <name>)",
    ),
    c(
        "board",
        "[<view>|on|off]",
        "draw the board in the public view or one player's (board 0 for player 0); on or off draws it after every committed move, or stops",
    ),
    c(
        "click",
        "<entity> <graphic>",
        "click a graphic of the board, which runs what its representation hooked to the click or answers a (wait signal ...)",
    ),
    c(
        "reload",
        "",
        "re-read the game's files and replay the session's changes with them; nothing changes if they do not replay",
    ),
    c("quit", "", "leave (Ctrl-D too)"),
];

impl Repl {
    /// Run the command `text` (without its `:`).
    pub(super) fn command(&mut self, text: &str, reply: &mut Reply) -> String {
        let (name, rest) = match text.split_once(char::is_whitespace) {
            Some((n, r)) => (n, r.trim()),
            None => (text, ""),
        };
        match name {
            "help" | "h" | "?" => help(rest),
            "quit" | "q" | "exit" => {
                reply.quit = true;
                String::new()
            }
            "step" => {
                if let Some(send) = rest.strip_prefix("send ") {
                    self.send(send, true)
                } else if rest.starts_with('(') {
                    self.expression(rest, true)
                } else if let Some(name) = rest.strip_prefix(":play") {
                    self.play(name.trim(), true)
                } else if !rest.is_empty() && self.session.game.actions.is_some() {
                    // A bare name is a move.
                    self.play(rest, true)
                } else {
                    "usage: :step send <label> to <entity> [with ...]  or  :step (expression)  or  :step [:play] <move>"
                        .into()
                }
            }
            "profile" => self.profile_command(rest),
            "disasm" => self.disasm_command(rest),
            "trace" => match rest {
                "on" => {
                    self.trace = true;
                    "trace on".into()
                }
                "off" => {
                    self.trace = false;
                    "trace off".into()
                }
                _ => format!(
                    "trace is {}; usage: :trace on|off",
                    if self.trace { "on" } else { "off" }
                ),
            },
            "entities" => self.entities(),
            "show" => self.show(rest),
            "advice" => self.advice(rest),
            "laws" => self.laws(),
            "law" | "sideeffect" => self.add_advice(name, rest, text),
            "rules" => self.rules(rest, text),
            "disable" | "enable" | "remove" if rest.is_empty() => {
                format!("usage: :{name} <name> (:laws lists them)")
            }
            "disable" | "enable" | "remove" => self.switch(name, rest, text),
            "next" | "n" | "continue" | "c" | "abort" => {
                "nothing is being stepped: start a transaction with :step".into()
            }
            "undo" => {
                if self.history.undo() {
                    *self.session.world_mut() = self.history.current().clone();
                    format!("undone; at change {}", self.history.cursor())
                } else {
                    "nothing to undo".into()
                }
            }
            "redo" => {
                if self.history.redo() {
                    *self.session.world_mut() = self.history.current().clone();
                    format!("redone; at change {}", self.history.cursor())
                } else {
                    "nothing to redo".into()
                }
            }
            "history" => self.history_text(),
            "goto" => match rest.parse::<usize>() {
                Ok(n) if self.history.goto(n) => {
                    *self.session.world_mut() = self.history.current().clone();
                    format!("at change {n}")
                }
                Ok(n) => format!(
                    "error: there are {} changes; no change {n}",
                    self.history.entries().len()
                ),
                Err(_) => "usage: :goto <n> (:history numbers the changes)".into(),
            },
            "checkpoints" => match &self.pending {
                Some(p) => format!(
                    "{} checkpoint(s) open in the transaction being stepped",
                    p.machine.open_checkpoints()
                ),
                None => {
                    "no transaction in progress: checkpoints belong to a transaction (use :step)"
                        .into()
                }
            },
            "moves" => self.moves(),
            "play" => self.play(rest, false),
            "why" => self.why(rest),
            "agent" => self.agent(rest),
            "hint" => {
                let n = if rest.is_empty() {
                    Ok(HINT_ITERATIONS)
                } else {
                    rest.parse::<u32>()
                };
                match n {
                    Ok(n) if (1..=Agent::MAX_ITERATIONS).contains(&n) => self.hint(n),
                    _ => format!(
                        "usage: :hint [<iterations>] (1 to {})",
                        Agent::MAX_ITERATIONS
                    ),
                }
            }
            "random" => {
                let n = if rest.is_empty() {
                    Ok(1)
                } else {
                    rest.parse::<usize>()
                };
                match n {
                    Ok(n) => self.random(n),
                    Err(_) => "usage: :random [<n>]".into(),
                }
            }
            "save" => self.save(rest),
            "load" => self.load(rest),
            "sgf" => self.sgf(rest),
            "signal" => self.signal(rest),
            "board" => self.board_command(rest),
            "click" => self.click(rest),
            "reload" => self.reload(),
            other => {
                let names = COMMANDS.iter().map(|c| c.name);
                match crate::diagnostic::closest(other, names) {
                    Some(c) => format!("error: unknown command :{other}; did you mean :{c}?"),
                    None => format!("error: unknown command :{other}; :help lists the commands"),
                }
            }
        }
    }

    fn entities(&self) -> String {
        let game = self.game();
        let world = self.world();
        let mut out = String::new();
        for (_, e) in world.iter() {
            let _ = writeln!(out, "{}  {}  ({})", e.name, game.ty(e.ty).name, e.state);
        }
        out.trim_end().to_string()
    }

    /// The world being looked at: the pending transaction's, else the session's.
    pub(super) fn world(&self) -> &crate::runtime::world::World {
        match &self.pending {
            Some(p) => &p.machine.world,
            None => self.session.world(),
        }
    }

    fn show(&self, name: &str) -> String {
        let game = self.game();
        let world = self.world();
        let Some(id) = world.lookup(Symbol::intern(name.trim_matches('"'))) else {
            return format!("error: no entity named \"{name}\" (:entities lists them)");
        };
        let Some(e) = world.entity(id) else {
            return format!("error: no entity named \"{name}\"");
        };
        let mut out = format!("{}: {}, state {}\n", e.name, game.ty(e.ty).name, e.state);
        for (p, v) in e.properties(game) {
            let _ = writeln!(out, "  {p} = {v}");
        }
        let reaching: Vec<&AdviceEntry> = world
            .advice
            .entries
            .iter()
            .filter(|a| match a.advice.target {
                AdviceTarget::Type(t) => game.is_a(e.ty, t),
                AdviceTarget::Instance(n) => n == e.name,
            })
            .collect();
        if !reaching.is_empty() {
            out.push_str("advice that can reach it:\n");
            for a in reaching {
                out.push_str(&format!("  {}\n", self.advice_line(a)));
            }
        }
        out.trim_end().to_string()
    }

    pub(super) fn advice_line(&self, a: &AdviceEntry) -> String {
        let game = self.game();
        let adv = &a.advice;
        let kind = match adv.kind {
            AdviceKind::Law => "law",
            AdviceKind::SideEffect => "side-effect",
        };
        let target = match adv.target {
            AdviceTarget::Type(t) => game.ty(t).name,
            AdviceTarget::Instance(n) => n,
        };
        let pat = |p: Option<Symbol>| p.map_or("*".to_string(), |s| s.as_str().to_string());
        format!(
            "{kind} \"{}\" on {} to {target} in {} is {}{}",
            adv.name,
            pat(adv.label),
            pat(adv.state),
            adv.source,
            if a.enabled { "" } else { "  (disabled)" }
        )
    }

    fn advice(&self, args: &str) -> String {
        let parts: Vec<&str> = args.split_whitespace().collect();
        let [entity, label, state] = parts.as_slice() else {
            return "usage: :advice <entity> <label> <state>".into();
        };
        let game = self.game();
        let world = self.world();
        let Some(e) = world
            .lookup(Symbol::intern(entity))
            .and_then(|id| world.entity(id))
        else {
            return format!("error: no entity named \"{entity}\"");
        };
        let (label, state) = (Symbol::intern(label), Symbol::intern(state));
        let chain = world.advice.chain(game, e.ty, e.name, state, label);
        let mut out = format!("{label} to {} in {state}:\n", e.name);
        for (i, law) in chain.laws.iter().enumerate() {
            let _ = writeln!(out, "  {}. law {} ({})", i + 1, law.name, law.source);
        }
        match game.ty(e.ty).behaviours.get(&(state, label)) {
            Some(code) => {
                let _ = writeln!(out, "  -> {}", game.code(*code).name);
            }
            None => {
                let _ = writeln!(out, "  -> no behaviour: the message is ignored");
            }
        }
        for (i, se) in chain.side_effects.iter().enumerate() {
            let _ = writeln!(out, "  {}. side-effect {} ({})", i + 1, se.name, se.source);
        }
        out.trim_end().to_string()
    }

    fn laws(&self) -> String {
        let entries = &self.world().advice.entries;
        if entries.is_empty() {
            return "no laws or side-effects".into();
        }
        entries
            .iter()
            .enumerate()
            .map(|(i, a)| format!("{:>3}. {}", i + 1, self.advice_line(a)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn add_advice(&mut self, kind: &str, rest: &str, line: &str) -> String {
        self.snippets += 1;
        let name = format!("<rule {}>", self.snippets);
        let text = format!("#{kind} {rest}");
        let (_, items, mut diags) =
            crate::syntax::load::parse_text_items(&mut self.sources, &name, &text);
        let mut def = match items.as_slice() {
            [Item::Advice(a)] => a.clone(),
            _ if diags.iter().any(Diagnostic::is_error) => {
                return render_diags(&self.sources, &diags, self.options.color)
                    .trim_end()
                    .to_string();
            }
            _ => {
                return format!(
                    "usage: :{kind} [<name>] on <label> to <entity> in <state> [replaces <name>] is <\"file\" | (code)>"
                );
            }
        };
        if let AdviceBody::File { path, file, body } = &mut def.body {
            if !self.rule_files {
                return format!(
                    "error: here a rule is written inline, `is (code)`: reading a file (\"{}\") is not allowed",
                    path.sym
                );
            }
            let written = PathBuf::from(path.sym.as_str());
            let candidates = [written.clone(), self.root.join(&written)];
            let Some(found) = candidates.iter().find(|p| p.is_file()) else {
                return format!(
                    "error: cannot read `{}`: no such file here or in the game's directory {}",
                    written.display(),
                    self.root.display()
                );
            };
            if let Err(e) = self.journal_may_read(found) {
                return e;
            }
            match load_advice_file(&DiskFs, found, &mut self.sources, &mut diags) {
                Ok((id, stmts)) => {
                    *file = Some(id);
                    *body = stmts;
                }
                Err(e) => return format!("error: {e}"),
            }
        }
        if diags.iter().any(Diagnostic::is_error) {
            return render_diags(&self.sources, &diags, self.options.color)
                .trim_end()
                .to_string();
        }
        match self.apply_advice(&def) {
            Ok((description, warnings)) => {
                let done = self.record(line, description);
                if warnings.is_empty() {
                    done
                } else {
                    format!("{warnings}\n{done}")
                }
            }
            Err(e) => e,
        }
    }

    /// Check, compile and put in force one law or side-effect, with the checks and lints
    /// `flexrules check` runs. Gives what was done and the warnings rendered (empty when
    /// none); an error refuses the rule and leaves the session as it was.
    fn apply_advice(
        &mut self,
        def: &crate::syntax::ast::AdviceDef,
    ) -> Result<(String, String), String> {
        let in_force: Vec<String> = self
            .session
            .world()
            .advice
            .entries
            .iter()
            .map(|e| e.advice.name.as_str().to_string())
            .collect();
        let diags = crate::compile::check::check_snippet(
            &self.program,
            &in_force,
            crate::compile::check::Snippet::Advice(def),
        );
        if diags.iter().any(Diagnostic::is_error) {
            return Err(render_diags(&self.sources, &diags, self.options.color)
                .trim_end()
                .to_string());
        }
        let warnings = render_diags(&self.sources, &diags, self.options.color)
            .trim_end()
            .to_string();
        // A generated name takes the first free number.
        let mut count = self.session.world().advice.entries.len() + 1;
        let advice_name = loop {
            let name = Symbol::intern(&crate::compile::check::advice_name(def, count));
            if def.name.is_some()
                || self.session.world().advice.find(name).is_none()
                || def.replaces.map(|r| r.sym) == Some(name)
            {
                break name;
            }
            count += 1;
        };
        let replaces = def
            .replaces
            .and_then(|r| self.session.world().advice.find(r.sym));
        if self.session.world().advice.find(advice_name).is_some()
            && def.replaces.map(|r| r.sym) != Some(advice_name)
        {
            return Err(format!(
                "error: a law or side-effect named \"{advice_name}\" is already in force; choose another name, or take its place with `replaces \"{advice_name}\"`"
            ));
        }
        let advice =
            crate::compile::codegen::compile_advice(self.session.game_mut(), def, advice_name)
                .map_err(|d| render_diags(&self.sources, &d, self.options.color))?;
        let what = match advice.kind {
            AdviceKind::Law => "law",
            AdviceKind::SideEffect => "side-effect",
        };
        let table = Arc::make_mut(&mut self.session.world_mut().advice);
        let entry = AdviceEntry {
            advice: Arc::new(advice),
            enabled: true,
        };
        let description = match replaces {
            Some(i) => {
                let old = table.entries[i].advice.name;
                table.entries[i] = entry;
                format!("{what} \"{advice_name}\" replaces \"{old}\"")
            }
            None => {
                table.entries.push(entry);
                format!("{what} \"{advice_name}\" added")
            }
        };
        table.version = next_version();
        Ok((description, warnings))
    }

    /// `:rules <file>`: put in force every law and side-effect of a rules file.
    fn rules(&mut self, path: &str, line: &str) -> String {
        if path.is_empty() {
            return "usage: :rules <file>".into();
        }
        if let Err(e) = self.journal_may_read(path.as_ref()) {
            return e;
        }
        // A copy: a file that cannot be read leaves the session's sources as they were.
        let sources = self.sources.clone();
        let loaded = match crate::syntax::load::load_into(&DiskFs, path.as_ref(), sources) {
            Ok(l) => l,
            Err(e) => return format!("error: {e}; no rule was put in force"),
        };
        self.sources = loaded.sources;
        if loaded.diagnostics.iter().any(Diagnostic::is_error) {
            return render_diags(&self.sources, &loaded.diagnostics, self.options.color)
                .trim_end()
                .to_string();
        }
        // All or nothing: apply on a copy of the world, keep it only if every rule fits.
        let before = self.session.world().clone();
        let mut done = Vec::new();
        let mut warnings = render_diags(&self.sources, &loaded.diagnostics, self.options.color)
            .trim_end()
            .to_string();
        for item in &loaded.program.items {
            let Item::Advice(def) = item else {
                *self.session.world_mut() = before;
                return "error: a rules file holds only #law and #sideeffect directives".into();
            };
            match self.apply_advice(def) {
                Ok((d, w)) => {
                    done.push(d);
                    if !w.is_empty() {
                        if !warnings.is_empty() {
                            warnings.push('\n');
                        }
                        warnings.push_str(&w);
                    }
                }
                Err(e) => {
                    *self.session.world_mut() = before;
                    return format!("{e}\nno rule of {path} was put in force");
                }
            }
        }
        if done.is_empty() {
            *self.session.world_mut() = before;
            return format!("{path} holds no rule");
        }
        let done = self.record(line, done.join("; "));
        if warnings.is_empty() {
            done
        } else {
            format!("{warnings}\n{done}")
        }
    }

    /// `:profile [on|off]`: start counting the steps of the user's transactions by body
    /// (from zero), stop, or show the counts.
    fn profile_command(&mut self, rest: &str) -> String {
        match (rest, &self.profile) {
            ("on", _) => {
                self.profile = Some(Default::default());
                "profile on: the steps of each transaction from now on are counted by body; :profile shows them".into()
            }
            ("off", _) => {
                self.profile = None;
                "profile off".into()
            }
            ("", None) => {
                "profile is off; usage: :profile on|off, and :profile to show the counts".into()
            }
            ("", Some(p)) if p.total() == 0 => {
                "no step counted yet: the counts start with the next transaction".into()
            }
            ("", Some(p)) => p
                .table(&self.session.game, usize::MAX)
                .trim_end()
                .to_string(),
            _ => "usage: :profile on|off, and :profile to show the counts".into(),
        }
    }

    /// `:disasm <name>`: the listing of the bodies whose name contains `name`.
    fn disasm_command(&self, rest: &str) -> String {
        let name = rest.trim().trim_matches('"');
        if name.is_empty() {
            return "usage: :disasm <name> (any part of a body's name, as :profile shows it)"
                .into();
        }
        let runs = |code| self.profile.as_ref().map_or(&[][..], |p| p.runs(code));
        let counted = self.profile.is_some();
        let listed = crate::compile::listing::listing(
            &self.session.game,
            &self.sources,
            &[name.into()],
            counted.then_some(&runs as &dyn Fn(_) -> _),
        );
        match listed {
            Some(text) if counted => format!(
                "(after the steps: how many times each instruction ran since :profile on)\n{}",
                text.trim_end()
            ),
            Some(text) => text.trim_end().to_string(),
            None => format!(
                "no body's name contains \"{name}\" (bodies are named as :profile shows them: law Knight Moves, function add-targets, behaviour game/default/endOfTurn)"
            ),
        }
    }

    fn switch(&mut self, verb: &str, name: &str, line: &str) -> String {
        let name = name.trim().trim_matches('"');
        let sym = Symbol::intern(name);
        let Some(i) = self.session.world().advice.find(sym) else {
            let names: Vec<&str> = self
                .session
                .world()
                .advice
                .entries
                .iter()
                .map(|e| e.advice.name.as_str())
                .collect();
            return match crate::diagnostic::closest(name, names.iter().copied()) {
                Some(c) => {
                    format!("error: no law or side-effect named \"{name}\"; did you mean \"{c}\"?")
                }
                None => format!("error: no law or side-effect named \"{name}\" (:laws lists them)"),
            };
        };
        let enabled = self.session.world().advice.entries[i].enabled;
        match (verb, enabled) {
            ("disable", false) => {
                return format!("error: \"{name}\" is already disabled; nothing changed");
            }
            ("enable", true) => {
                return format!("error: \"{name}\" is already enabled; nothing changed");
            }
            _ => {}
        }
        let table = Arc::make_mut(&mut self.session.world_mut().advice);
        match verb {
            "disable" => table.entries[i].enabled = false,
            "enable" => table.entries[i].enabled = true,
            _ => {
                table.entries.remove(i);
            }
        }
        table.version = next_version();
        self.record(line, format!("\"{name}\" {verb}d"))
    }

    /// Record a rule change in the history.
    fn record(&mut self, line: &str, description: String) -> String {
        self.history.push(Entry {
            lines: vec![format!(":{line}")],
            description: description.clone(),
            world: self.session.world().clone(),
        });
        format!("{description}; takes effect from the next transaction")
    }

    fn history_text(&self) -> String {
        let entries = self.history.entries();
        if entries.is_empty() {
            return "no changes yet".into();
        }
        let cursor = self.history.cursor();
        let mut out = format!("{}  0. start\n", if cursor == 0 { "*" } else { " " });
        for (i, e) in entries.iter().enumerate() {
            let mark = if i + 1 == cursor { "*" } else { " " };
            let undone = if i + 1 > cursor { "  (undone)" } else { "" };
            let _ = writeln!(out, "{mark}{:>3}. {}{undone}", i + 1, e.description);
        }
        out.trim_end().to_string()
    }

    fn moves(&mut self) -> String {
        if self.session.game.actions.is_none() {
            return "this game has no #actions".into();
        }
        let tried = match self.session.try_moves() {
            Ok(t) => t,
            Err(e) => {
                return format!(
                    "error: #actions failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        let mut out = if tried.legal.is_empty() {
            "no legal move".to_string()
        } else {
            tried
                .legal
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        if !tried.failed.is_empty() {
            out.push('\n');
            out.push_str(
                tried
                    .render_failures(&self.sources, self.options.color)
                    .trim_end(),
            );
        }
        out
    }

    /// Moves played up to the current change (rule changes and sends are not moves).
    fn moves_played(&self) -> usize {
        self.history.entries()[..self.history.cursor()]
            .iter()
            .filter(|e| e.lines.first().is_some_and(|l| l.starts_with(":play ")))
            .count()
    }

    pub(super) fn play(&mut self, name: &str, stepping: bool) -> String {
        if self.session.game.actions.is_none() {
            return "this game has no #actions: send messages instead".into();
        }
        if name.is_empty() {
            return "usage: :play <name> (:moves lists them)".into();
        }
        let ply = self.moves_played() + 1;
        match self.session.playable(name) {
            Ok(a) => {
                let m = self
                    .session
                    .begin_deliver(a.recipient, (*a.message).clone(), stepping);
                self.run_machine(m, format!(":play {name}"), stepping)
            }
            Err(e) => format!(
                "error: {}",
                e.render(&self.sources, self.options.color, ply)
            ),
        }
    }

    /// `:why <move>`: why a move is legal or not, without playing it.
    fn why(&mut self, name: &str) -> String {
        if let Some(send) = name.strip_prefix("send ") {
            return self.why_send(send);
        }
        if self.session.game.actions.is_none() {
            return "this game has no #actions (`:why send <label> to <entity> ...` tries any message)".into();
        }
        if name.is_empty() {
            return "usage: :why <move> (:moves lists the legal ones)".into();
        }
        let explained = match self.session.explain_candidates() {
            Ok(e) => e,
            Err(e) => {
                return format!(
                    "error: #actions failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        match explained.iter().find(|(a, _)| a.name == name) {
            Some((_, Verdict::Legal)) => format!("`{name}` is legal"),
            Some((_, v @ Verdict::Failed(_))) => {
                format!("`{name}` {}", v.render(&self.sources, self.options.color))
            }
            Some((_, v)) => format!("`{name}` is not legal: {}", v.summary()),
            None => {
                let names: Vec<&str> = explained.iter().map(|(a, _)| a.name.as_str()).collect();
                match crate::diagnostic::closest(name, names.iter().copied()) {
                    Some(c) => format!("`{name}` is not an action here; did you mean `{c}`?"),
                    None if names.is_empty() => {
                        format!("`{name}` is not an action here: #actions gives none")
                    }
                    None => format!(
                        "`{name}` is not an action here; the candidates: {}\n(#actions does not propose it; `:why send <label> to <entity> with ...` tries any message and names the law that refuses it)",
                        names.join(" ")
                    ),
                }
            }
        }
    }

    /// `:why send <label> to <entity> [with ...]`: what delivering that message would do
    /// now (a message `#actions` need not propose), without doing it.
    fn why_send(&mut self, text: &str) -> String {
        let (to, message) = match crate::runtime::outside::parse_send(text) {
            Ok(m) => m,
            Err(e) => return format!("error: {e}"),
        };
        if self.session.world().lookup(to).is_none() {
            return format!("error: no entity named \"{to}\" (:entities lists them)");
        }
        let action = crate::runtime::session::Action {
            name: format!("send {text}"),
            recipient: to,
            message: std::rc::Rc::new(message),
        };
        match self.session.verdict(&action) {
            Verdict::Legal => format!("`send {text}` would commit"),
            v @ Verdict::Failed(_) => {
                format!(
                    "`send {text}` {}",
                    v.render(&self.sources, self.options.color)
                )
            }
            v => format!("`send {text}` would not commit: {}", v.summary()),
        }
    }

    /// `:agent [<player>=<agent> | <player>=off | off]`: the players the REPL plays.
    fn agent(&mut self, rest: &str) -> String {
        let list = |seats: &[(String, Agent)]| {
            if seats.is_empty() {
                "the REPL plays no player (:agent <player>=mcts lets it play one)".to_string()
            } else {
                let who: Vec<String> = seats.iter().map(|(p, a)| format!("{p} ({a})")).collect();
                format!("the REPL plays: {}", who.join(", "))
            }
        };
        if rest.is_empty() {
            return list(&self.seats);
        }
        if rest == "off" {
            self.seats.clear();
            return list(&self.seats);
        }
        let Some((player, agent)) = rest.split_once('=') else {
            return "usage: :agent [<player>=<agent> | <player>=off | off]".into();
        };
        let player = crate::runtime::outside::parse_literal(player.trim()).to_text();
        self.seats.retain(|(p, _)| *p != player);
        if agent.trim() != "off" {
            let agent = match Agent::parse(agent.trim()) {
                Ok(a) => a,
                Err(e) => return format!("error: {e}"),
            };
            if let Err(e) = self.agents() {
                return format!("error: {e}");
            }
            self.seats.push((player, agent));
        }
        // The player may be to move already.
        let answers = self.play_seats();
        if answers.is_empty() {
            list(&self.seats)
        } else {
            format!("{}\n{answers}", list(&self.seats))
        }
    }

    /// `:hint [<iterations>]`: the legal moves as Monte Carlo tree search sees them for
    /// the player to move, most visited (its choice) first. The search's random choices
    /// are seeded by the world's generator, so the same position gives the same answer.
    fn hint(&mut self, iterations: u32) -> String {
        if self.session.game.actions.is_none() {
            return "this game has no #actions".into();
        }
        if self.session.ending().is_some() {
            return "the game is over".into();
        }
        let agents = match self.agents() {
            Ok(a) => a,
            Err(e) => return format!("error: {e}"),
        };
        let player = match self.session.players_to_move(agents.to_move) {
            Ok(several) if several.len() > 1 => {
                return format!(
                    "players {} are to move at once: :hint searches for one player to move",
                    several.join(", ")
                );
            }
            Ok(p) => p.into_iter().next(),
            Err(e) => {
                return format!(
                    "error: ({TO_MOVE}) failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        let mut chooser = Chooser::new(self.session.world().rng, 0);
        let scores =
            match self
                .session
                .analyse(&agents, &mut chooser, (iterations, None), HINT_MAX_PLIES)
            {
                Ok(s) => s,
                Err((action, e)) => {
                    let what = action.map_or("#actions".to_string(), |a| format!("`{a}`"));
                    return format!(
                        "error: searching, {what} failed:\n{}",
                        e.render(&self.sources, self.options.color).trim_end()
                    );
                }
            };
        if scores.is_empty() {
            return "no legal move".into();
        }
        let who = player.map_or("nobody in particular".to_string(), |p| format!("`{p}`"));
        let width = scores.iter().map(|s| s.name.len()).max().unwrap_or(0);
        let mut out = vec![format!(
            "{who} to move; {iterations} iterations of Monte Carlo tree search (score: 1 a win, 0.5 a draw, 0 a loss):"
        )];
        for s in &scores {
            out.push(format!(
                "  {:<width$}  visits {:>6}  score {:.2}",
                s.name, s.visits, s.score
            ));
        }
        out.join("\n")
    }

    fn random(&mut self, n: usize) -> String {
        if self.session.game.actions.is_none() {
            return "this game has no #actions: send messages instead".into();
        }
        let mut out = Vec::new();
        for _ in 0..n {
            let tried = match self.session.try_moves() {
                Ok(t) => t,
                Err(e) => {
                    out.push(format!(
                        "error: #actions failed:\n{}",
                        e.render(&self.sources, self.options.color).trim_end()
                    ));
                    break;
                }
            };
            if !tried.failed.is_empty() {
                out.push(
                    tried
                        .render_failures(&self.sources, self.options.color)
                        .trim_end()
                        .to_string(),
                );
                break;
            }
            let actions = tried.legal;
            if actions.is_empty() {
                out.push("no legal move".into());
                break;
            }
            self.random_state = self.random_state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.random_state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let pick = ((z ^ (z >> 31)) % actions.len() as u64) as usize;
            let name = actions[pick].name.clone();
            let result = self.play(&name, false);
            out.push(format!("{name}: {result}"));
            if self.session.outcome().is_some() {
                break;
            }
        }
        out.join("\n")
    }

    /// While a journal is replayed, a file it names must really lie in the game's
    /// directory (symbolic links resolved); typed by the user, any file may be named.
    fn journal_may_read(&self, path: &Path) -> Result<(), String> {
        if !self.replaying || really_inside(&self.root, path) {
            return Ok(());
        }
        Err(format!(
            "error: a journal may only name files in the game's directory {}, not `{}`",
            self.root.display(),
            path.display()
        ))
    }

    fn save(&self, path: &str) -> String {
        let path = unquote(path);
        if path.is_empty() {
            return "usage: :save <file>".into();
        }
        if self.pending.is_some() {
            return "error: finish or :abort the transaction in progress first".into();
        }
        let journal = Journal {
            // Absolute paths: the journal loads from any directory.
            game: journal_paths::absolute(self.journal_game()),
            seed: self.options.seed,
            params: self.options.params.clone(),
            rules: self
                .options
                .rules
                .iter()
                .map(|r| journal_paths::absolute(r))
                .collect(),
            lines: self.history.lines().map(str::to_string).collect(),
            digest: digest(self.game(), self.session.world()),
        };
        match write_atomically(path.as_ref(), &journal.to_text()) {
            Ok(()) => format!("saved {} change(s) to {path}", self.history.cursor()),
            Err(e) => format!("error: cannot write {path}: {e}"),
        }
    }

    fn load(&mut self, path: &str) -> String {
        let path = unquote(path);
        if path.is_empty() {
            return "usage: :load <file>".into();
        }
        if self.pending.is_some() {
            return "error: finish or :abort the transaction in progress first".into();
        }
        let text = match crate::syntax::load::read_regular_file(path.as_ref()) {
            Ok(t) => t,
            Err(e) => return format!("error: cannot read {path}: {e}; the session is unchanged"),
        };
        let journal = match Journal::parse(&text) {
            Ok(j) => j,
            Err(e) => {
                return format!(
                    "error: {path} is not a valid journal: {e}; the session is unchanged"
                );
            }
        };
        let at = Path::new(path);
        let game = journal_paths::resolve(at, &journal.game);
        // A journal replays into a session of its own game only: the game a session runs is
        // the one the user opened, never one a file passed around names.
        if !journal_paths::same_game(&game, &self.options.game) {
            return format!(
                "error: {path} is a journal of the game {}, but this session plays {}; the session is unchanged\n\
                 hint: a journal loads only into a session of its own game: open that game (flexrules repl {}) and :load the journal there",
                game.display(),
                self.options.game.display(),
                game.display()
            );
        }
        let rules: Vec<_> = journal
            .rules
            .iter()
            .map(|r| journal_paths::resolve(at, r))
            .collect();
        let game_dir = if game.is_dir() {
            game.as_path()
        } else {
            game.parent().unwrap_or(Path::new(""))
        };
        if let Some(r) = rules.iter().find(|r| !really_inside(game_dir, r)) {
            return format!(
                "error: {path} names the rules file {} outside its game's directory {}; the session is unchanged",
                r.display(),
                game_dir.display()
            );
        }
        let options = ReplOptions {
            game: game.clone(),
            seed: journal.seed,
            params: journal.params.clone(),
            rules,
            ..self.options.clone()
        };
        let fresh = match Repl::replay(options, &journal.lines) {
            Ok(r) => r,
            Err(e) => {
                return format!("error: {path} does not replay: {e}\nthe session is unchanged");
            }
        };
        let reached = digest(fresh.game(), fresh.session.world());
        if reached != journal.digest {
            return format!(
                "error: {path} replays to a different world than the one saved (the game's files may have changed); the session is unchanged"
            );
        }
        let n = fresh.history.cursor();
        let interrupt = self.session.interrupt.clone();
        *self = fresh;
        self.session.interrupt = interrupt;
        format!("loaded {path}: {n} change(s) replayed, same world as saved")
    }

    fn sgf(&mut self, rest: &str) -> String {
        let (verb, path) = match rest.split_once(char::is_whitespace) {
            Some((v, p)) => (v, p.trim()),
            None => (rest, ""),
        };
        if path.is_empty() || !matches!(verb, "load" | "save") {
            return "usage: :sgf load <file>  or  :sgf save <file>".into();
        }
        if self.pending.is_some() {
            return "error: finish or :abort the transaction in progress first".into();
        }
        if verb == "save" {
            return match crate::sgf::write(&self.session) {
                Ok(text) => match write_atomically(path.as_ref(), &text) {
                    Ok(()) => format!("saved the game to {path}"),
                    Err(e) => format!("error: cannot write {path}: {e}"),
                },
                Err(e) => format!("error: this game cannot be written as SGF: {e}"),
            };
        }
        let unchanged = "the session is unchanged";
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return format!("error: cannot read {path}: {e}; {unchanged}"),
        };
        let record = match crate::sgf::parse(&text) {
            Ok(r) => r,
            Err(e) => return format!("error: {path}: {e}; {unchanged}"),
        };
        // The record's size, komi and handicap replace those the session started with.
        let mut params: Vec<String> = self
            .options
            .params
            .iter()
            .filter(|p| {
                let name = p.split_once('=').map_or(p.as_str(), |(n, _)| n.trim());
                !matches!(name, "size" | "komi" | "handicap")
            })
            .cloned()
            .collect();
        for (name, value) in record.params() {
            params.push(format!("{name}={value}"));
        }
        let options = ReplOptions {
            params,
            ..self.options.clone()
        };
        // First on a scratch game, for an error that names the move and the rule.
        let mut scratch = match Repl::new(options.clone()) {
            Ok(r) => r,
            Err(e) => return format!("error: {path}: the game does not start: {e}; {unchanged}"),
        };
        let lines = record.repl_lines(&scratch.session);
        if let Err(e) = crate::sgf::replay(&mut scratch.session, &record) {
            return format!("error: {path}: {e}; {unchanged}");
        }
        let fresh = match Repl::replay(options, &lines) {
            Ok(r) => r,
            Err(e) => return format!("error: {path} does not replay: {e}\n{unchanged}"),
        };
        let interrupt = self.session.interrupt.clone();
        let trace = self.trace;
        *self = fresh;
        self.session.interrupt = interrupt;
        self.trace = trace;
        let over = match (crate::sgf::result(&self.session), &record.result) {
            (Some(ours), Some(theirs)) if &ours != theirs => {
                format!("; the game is over: {ours} (the record says RE[{theirs}])")
            }
            (Some(ours), _) => format!("; the game is over: {ours}"),
            (None, _) => String::new(),
        };
        format!(
            "loaded {path}: {}x{} board, {} move(s){over}",
            record.size,
            record.size,
            record.moves.len()
        )
    }

    fn signal(&mut self, rest: &str) -> String {
        let mut words = rest.splitn(2, char::is_whitespace);
        let name = words.next().unwrap_or("").trim();
        let tag = words.next().map(str::trim).unwrap_or("");
        if name.is_empty() {
            return "usage: :signal <name> [<tag>]".into();
        }
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
        let value = if tag.is_empty() {
            crate::runtime::value::Value::Nil
        } else {
            crate::runtime::outside::parse_literal(tag)
        };
        p.machine.signal(value);
        p.lines.push(format!(":signal {rest}"));
        let stepping = p.stepping;
        self.advance(stepping)
    }

    fn reload(&mut self) -> String {
        if self.pending.is_some() {
            return "error: finish or :abort the transaction in progress first".into();
        }
        let lines: Vec<String> = self.history.lines().map(str::to_string).collect();
        let fresh = match Repl::replay(self.options.clone(), &lines) {
            Ok(r) => r,
            Err(e) => {
                return format!(
                    "the game was not reloaded, the session is unchanged: with the files as they are now, {e}"
                );
            }
        };
        let same = digest(fresh.game(), fresh.session.world())
            == digest(self.game(), self.session.world());
        let n = fresh.history.cursor();
        let interrupt = self.session.interrupt.clone();
        let trace = self.trace;
        *self = fresh;
        self.session.interrupt = interrupt;
        self.trace = trace;
        if same {
            format!("reloaded: {n} change(s) replayed with the new files; the world is the same")
        } else {
            format!(
                "reloaded: {n} change(s) replayed with the new files; the new rules give a different world (:entities, :show)"
            )
        }
    }
}

fn help(topic: &str) -> String {
    let topic = topic.trim_start_matches(':');
    if !topic.is_empty() {
        return match COMMANDS.iter().find(|c| c.name == topic) {
            Some(c) => format!(":{} {}\n  {}", c.name, c.args, c.help),
            None => format!("no command :{topic}; :help lists them"),
        };
    }
    let mut out = String::from(
        "send <label> to <entity> [with <key> <value> ...]   deliver a message as one transaction\n(expression)                                         evaluate code as the user\n",
    );
    for c in COMMANDS {
        let head = format!(":{} {}", c.name, c.args);
        // The listing shows the help up to its first ": " (the details follow it).
        let short = c.help.split(": ").next().unwrap_or(c.help);
        let _ = writeln!(out, "{head:<52} {short}");
    }
    out.trim_end().to_string()
}

/// A file name as typed: a double-quoted one loses its quotes (so `:save ""` names no
/// file rather than a file called `""`).
fn unquote(path: &str) -> &str {
    let path = path.trim();
    path.strip_prefix('"')
        .and_then(|p| p.strip_suffix('"'))
        .unwrap_or(path)
}

/// Whether the real location of `path` (symbolic links resolved) lies under that of `root`.
fn really_inside(root: &Path, path: &Path) -> bool {
    let root = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    match (std::fs::canonicalize(root), std::fs::canonicalize(path)) {
        (Ok(root), Ok(real)) => real.starts_with(root),
        _ => false,
    }
}
