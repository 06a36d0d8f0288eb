//! The session and files: `:save` and `:load` write and replay journals, `:sgf` reads and
//! writes Go game records, `:reload` replays the session on the game's files as they are now.

use std::path::Path;

use super::journal::{Journal, digest, write_atomically};
use super::journal_paths;
use super::{Repl, ReplOptions};

impl Repl {
    /// While a journal is replayed, a file it names must really lie in the game's
    /// directory (symbolic links resolved); typed by the user, any file may be named.
    pub(super) fn journal_may_read(&self, path: &Path) -> Result<(), String> {
        if !self.replaying || really_inside(&self.root, path) {
            return Ok(());
        }
        Err(format!(
            "error: a journal may only name files in the game's directory {}, not `{}`",
            self.root.display(),
            path.display()
        ))
    }

    /// `:save <file>`: write the session to a journal.
    pub(super) fn save(&self, path: &str) -> String {
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
            lines: self.history.lines().collect(),
            digest: digest(self.game(), self.play.session().world()),
        };
        match write_atomically(path.as_ref(), &journal.to_text()) {
            Ok(()) => format!("saved {} change(s) to {path}", self.history.cursor()),
            Err(e) => format!("error: cannot write {path}: {e}"),
        }
    }

    /// `:load <file>`: replay a journal in place of the session, if it replays to the
    /// world it saved.
    pub(super) fn load(&mut self, path: &str) -> String {
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
            tier: Default::default(),
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
        let reached = digest(fresh.game(), fresh.play.session().world());
        if reached != journal.digest {
            return format!(
                "error: {path} replays to a different world than the one saved (the game's files may have changed); the session is unchanged"
            );
        }
        let n = fresh.history.cursor();
        let interrupt = self.play.session().interrupt.clone();
        *self = fresh;
        self.play.session_mut().interrupt = interrupt;
        format!("loaded {path}: {n} change(s) replayed, same world as saved")
    }

    /// `:sgf load|save <file>`: replay a Go game record in a fresh game, or write the
    /// game played so far as one.
    pub(super) fn sgf(&mut self, save: bool, path: &str) -> String {
        if self.pending.is_some() {
            return "error: finish or :abort the transaction in progress first".into();
        }
        if save {
            return match crate::sgf::write(self.play.session()) {
                Ok(text) => match write_atomically(path.as_ref(), &text) {
                    Ok(()) => format!("saved the game to {path}"),
                    Err(e) => format!("error: cannot write {path}: {e}"),
                },
                Err(e) => format!("error: this game cannot be written as SGF: {e}"),
            };
        }
        let unchanged = "the session is unchanged";
        let text = match crate::syntax::load::read_regular_file(path.as_ref()) {
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
            tier: Default::default(),
            params,
            ..self.options.clone()
        };
        // First on a scratch game, for an error that names the move and the rule.
        let mut scratch = match Repl::new(options.clone()) {
            Ok(r) => r,
            Err(e) => return format!("error: {path}: the game does not start: {e}; {unchanged}"),
        };
        let lines = record.repl_lines(scratch.play.session());
        if let Err(e) = crate::sgf::replay(scratch.play.session_mut(), &record) {
            return format!("error: {path}: {e}; {unchanged}");
        }
        let fresh = match Repl::replay(options, &lines) {
            Ok(r) => r,
            Err(e) => return format!("error: {path} does not replay: {e}\n{unchanged}"),
        };
        let interrupt = self.play.session().interrupt.clone();
        let trace = self.trace;
        *self = fresh;
        self.play.session_mut().interrupt = interrupt;
        self.trace = trace;
        let over = match (crate::sgf::result(self.play.session()), &record.result) {
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

    /// `:reload`: replay the session's changes on the game's files as they are now.
    pub(super) fn reload(&mut self) -> String {
        if self.pending.is_some() {
            return "error: finish or :abort the transaction in progress first".into();
        }
        let lines: Vec<String> = self.history.lines().collect();
        let fresh = match Repl::replay(self.options.clone(), &lines) {
            Ok(r) => r,
            Err(e) => {
                return format!(
                    "the game was not reloaded, the session is unchanged: with the files as they are now, {e}"
                );
            }
        };
        let same = digest(fresh.game(), fresh.play.session().world())
            == digest(self.game(), self.play.session().world());
        let n = fresh.history.cursor();
        let interrupt = self.play.session().interrupt.clone();
        let trace = self.trace;
        *self = fresh;
        self.play.session_mut().interrupt = interrupt;
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
