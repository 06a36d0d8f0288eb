//! The session's history: every change to the world (a committed or rolled-back
//! transaction, a rule change), with the world after it, for undo, redo and goto.
//!
//! The worlds kept are bounded by a memory budget ([`History::budget`], `--max-history-
//! memory`). Each change is counted what it added ([`Entry::bytes`]: the memory its
//! transaction was counted, plus the entities it copied or created and the trie nodes it
//! copied, see [`World::new_bytes_since`]). When the changes whose worlds are kept add up
//! to more than the budget, the oldest worlds are let go: their changes stay listed (and
//! saved by `:save`), but undo and goto stop at the oldest world kept. A change that alone
//! adds more than the budget is refused by the REPL before it is recorded.

use std::sync::atomic::{AtomicU64, Ordering};

use super::command::Command;
use crate::runtime::world::World;

/// The history budget of a REPL that is given none (`--max-history-memory`'s default):
/// 512 MiB, so a REPL (or a served table) stays well under 2 GB with the transaction's
/// own budget on top.
pub const DEFAULT_BUDGET: u64 = 1 << 29;

/// The budget new REPLs of this process start with.
static PROCESS_BUDGET: AtomicU64 = AtomicU64::new(DEFAULT_BUDGET);

/// Set the budget every REPL made from now on in this process starts with (what
/// `--max-history-memory` does for `repl` and for each table of `serve`).
pub fn set_default_budget(bytes: u64) {
    PROCESS_BUDGET.store(bytes, Ordering::Relaxed);
}

/// The budget new REPLs start with.
pub fn default_budget() -> u64 {
    PROCESS_BUDGET.load(Ordering::Relaxed)
}

/// One change.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The commands that made it (a transaction, and the signals that answered it; or a
    /// rule change); a journal holds them as text.
    pub commands: Vec<Command>,
    /// What happened, for `:history`.
    pub description: String,
    /// The world after it; `None` once let go to keep within the budget.
    pub world: Option<World>,
    /// The bytes it is counted against the budget.
    pub bytes: u64,
}

/// The changes made so far, and how many of them are in effect.
#[derive(Clone, Debug)]
pub struct History {
    /// The world at the start; `None` once let go.
    initial: Option<World>,
    entries: Vec<Entry>,
    cursor: usize,
    /// The world after the changes in effect (one of those kept).
    here: World,
    /// The first position (0: the start) whose world is kept; every later one is kept.
    oldest: usize,
    /// The bytes of the changes whose worlds are kept.
    held: u64,
    /// The budget.
    budget: u64,
}

/// Why the history cannot move where it was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// There is no such change.
    NoSuchChange,
    /// The world there was let go to keep the history within its budget; `oldest` is
    /// the first position still kept.
    LetGo {
        /// The oldest position kept.
        oldest: usize,
    },
}

impl History {
    /// A history starting from `initial`, within the process's budget.
    pub fn new(initial: World) -> History {
        History {
            here: initial.clone(),
            initial: Some(initial),
            entries: Vec::new(),
            cursor: 0,
            oldest: 0,
            held: 0,
            budget: default_budget(),
        }
    }

    /// The memory budget, in bytes.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// Change the budget (the oldest worlds are let go at the next change if needed).
    pub fn set_budget(&mut self, bytes: u64) {
        self.budget = bytes;
    }

    /// The bytes the kept changes are counted.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// The first position (0: the start) whose world is kept.
    pub fn oldest_kept(&self) -> usize {
        self.oldest
    }

    /// Whether a change of `bytes` fits the budget on its own.
    pub fn fits(&self, bytes: u64) -> bool {
        bytes <= self.budget
    }

    /// Record a change; changes undone before it are forgotten, and the oldest worlds
    /// let go while the kept ones add up to more than the budget (never the new one: the
    /// caller checks with [`History::fits`] first).
    pub fn push(&mut self, entry: Entry) {
        for gone in self.entries.drain(self.cursor..) {
            if gone.world.is_some() {
                self.held = self.held.saturating_sub(gone.bytes);
            }
        }
        self.held = self.held.saturating_add(entry.bytes);
        if let Some(w) = &entry.world {
            self.here = w.clone();
        }
        self.entries.push(entry);
        self.cursor = self.entries.len();
        while self.held > self.budget && self.oldest < self.cursor {
            self.let_go_oldest();
        }
    }

    /// Let the oldest kept world go.
    fn let_go_oldest(&mut self) {
        match self.oldest {
            0 => self.initial = None,
            n => {
                if let Some(e) = self.entries.get_mut(n - 1)
                    && e.world.take().is_some()
                {
                    self.held = self.held.saturating_sub(e.bytes);
                }
            }
        }
        self.oldest += 1;
    }

    /// The world after the changes in effect.
    pub fn current(&self) -> &World {
        &self.here
    }

    /// Put the first `n` changes in effect.
    fn move_to(&mut self, n: usize) -> Result<(), Refused> {
        if n > self.entries.len() {
            return Err(Refused::NoSuchChange);
        }
        let Some(w) = self.world_after(n) else {
            return Err(Refused::LetGo {
                oldest: self.oldest,
            });
        };
        self.here = w.clone();
        self.cursor = n;
        Ok(())
    }

    /// Step back one change.
    pub fn undo(&mut self) -> Result<(), Refused> {
        match self.cursor {
            0 => Err(Refused::NoSuchChange),
            n => self.move_to(n - 1),
        }
    }

    /// Step forward one undone change.
    pub fn redo(&mut self) -> Result<(), Refused> {
        if self.cursor == self.entries.len() {
            return Err(Refused::NoSuchChange);
        }
        self.move_to(self.cursor + 1)
    }

    /// Put the first `n` changes in effect.
    pub fn goto(&mut self, n: usize) -> Result<(), Refused> {
        self.move_to(n)
    }

    /// The world after the first `n` changes (0: the start), in effect or undone; `None`
    /// when there is no such change or its world was let go.
    pub fn world_after(&self, n: usize) -> Option<&World> {
        match n {
            0 => self.initial.as_ref(),
            n => self.entries.get(n - 1).and_then(|e| e.world.as_ref()),
        }
    }

    /// How many changes are in effect.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Every change, in effect or undone.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The input lines of the changes in effect, in order (as a journal holds them).
    pub fn lines(&self) -> impl Iterator<Item = String> {
        self.entries[..self.cursor]
            .iter()
            .flat_map(|e| e.commands.iter().map(Command::to_string))
    }
}
