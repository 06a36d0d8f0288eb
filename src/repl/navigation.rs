//! Moving through the history: `:undo`, `:redo`, `:goto` and the `:history` listing.

use std::fmt::Write as _;

use super::Repl;
use super::history::Refused;

impl Repl {
    /// `:undo`: take back the last change.
    pub(super) fn undo(&mut self) -> String {
        match self.history.undo() {
            Ok(()) => {
                *self.play.session_mut().world_mut() = self.history.current().clone();
                format!("undone; at change {}", self.history.cursor())
            }
            Err(Refused::NoSuchChange) => "nothing to undo".into(),
            Err(Refused::LetGo { oldest }) => self.let_go(oldest, "undo"),
        }
    }

    /// `:redo`: put back the last change taken back.
    pub(super) fn redo(&mut self) -> String {
        match self.history.redo() {
            Ok(()) => {
                *self.play.session_mut().world_mut() = self.history.current().clone();
                format!("redone; at change {}", self.history.cursor())
            }
            Err(Refused::NoSuchChange) => "nothing to redo".into(),
            Err(Refused::LetGo { oldest }) => self.let_go(oldest, "redo"),
        }
    }

    /// `:goto <n>`: the world after change `n`.
    pub(super) fn goto(&mut self, n: usize) -> String {
        match self.history.goto(n) {
            Ok(()) => {
                *self.play.session_mut().world_mut() = self.history.current().clone();
                format!("at change {n}")
            }
            Err(Refused::NoSuchChange) => format!(
                "error: there are {} changes; no change {n}",
                self.history.entries().len()
            ),
            Err(Refused::LetGo { oldest }) => self.let_go(oldest, &format!("go to change {n}")),
        }
    }

    /// The answer to going back past the oldest position kept.
    fn let_go(&self, oldest: usize, what: &str) -> String {
        format!(
            "error: cannot {what}: undo stops at change {oldest}; the positions before it \
             were let go to keep the history within its memory budget of {} bytes \
             (--max-history-memory)",
            self.history.budget()
        )
    }

    /// `:history`: the numbered changes, `*` where the session is.
    pub(super) fn history_text(&self) -> String {
        let entries = self.history.entries();
        if entries.is_empty() {
            return "no changes yet".into();
        }
        let cursor = self.history.cursor();
        let oldest = self.history.oldest_kept();
        let gone = |n: usize| if n < oldest { "  (let go)" } else { "" };
        let mut out = format!(
            "{}  0. start{}\n",
            if cursor == 0 { "*" } else { " " },
            gone(0)
        );
        for (i, e) in entries.iter().enumerate() {
            let mark = if i + 1 == cursor { "*" } else { " " };
            let undone = if i + 1 > cursor { "  (undone)" } else { "" };
            let _ = writeln!(
                out,
                "{mark}{:>3}. {}{undone}{}",
                i + 1,
                e.description,
                gone(i + 1)
            );
        }
        out.trim_end().to_string()
    }
}
