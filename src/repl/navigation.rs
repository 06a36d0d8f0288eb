//! Moving through the history: `:undo`, `:redo`, `:goto` and the `:history` listing.

use std::fmt::Write as _;

use super::Repl;

impl Repl {
    /// `:undo`: take back the last change.
    pub(super) fn undo(&mut self) -> String {
        if self.history.undo() {
            *self.play.session_mut().world_mut() = self.history.current().clone();
            format!("undone; at change {}", self.history.cursor())
        } else {
            "nothing to undo".into()
        }
    }

    /// `:redo`: put back the last change taken back.
    pub(super) fn redo(&mut self) -> String {
        if self.history.redo() {
            *self.play.session_mut().world_mut() = self.history.current().clone();
            format!("redone; at change {}", self.history.cursor())
        } else {
            "nothing to redo".into()
        }
    }

    /// `:goto <n>`: the world after change `n`.
    pub(super) fn goto(&mut self, n: usize) -> String {
        if self.history.goto(n) {
            *self.play.session_mut().world_mut() = self.history.current().clone();
            format!("at change {n}")
        } else {
            format!(
                "error: there are {} changes; no change {n}",
                self.history.entries().len()
            )
        }
    }

    /// `:history`: the numbered changes, `*` where the session is.
    pub(super) fn history_text(&self) -> String {
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
}
