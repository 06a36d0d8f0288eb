//! The session's history: every change to the world (a committed or rolled-back
//! transaction, a rule change), with the world after it, for undo, redo and goto.

use super::command::Command;
use crate::runtime::world::World;

/// One change.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The commands that made it (a transaction, and the signals that answered it; or a
    /// rule change); a journal holds them as text.
    pub commands: Vec<Command>,
    /// What happened, for `:history`.
    pub description: String,
    /// The world after it.
    pub world: World,
}

/// The changes made so far, and how many of them are in effect.
#[derive(Clone, Debug)]
pub struct History {
    initial: World,
    entries: Vec<Entry>,
    cursor: usize,
}

impl History {
    /// A history starting from `initial`.
    pub fn new(initial: World) -> History {
        History {
            initial,
            entries: Vec::new(),
            cursor: 0,
        }
    }

    /// Record a change; changes undone before it are forgotten.
    pub fn push(&mut self, entry: Entry) {
        self.entries.truncate(self.cursor);
        self.entries.push(entry);
        self.cursor = self.entries.len();
    }

    /// The world after the changes in effect.
    pub fn current(&self) -> &World {
        match self.cursor {
            0 => &self.initial,
            n => &self.entries[n - 1].world,
        }
    }

    /// Step back one change; false when there is none.
    pub fn undo(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        self.cursor -= 1;
        true
    }

    /// Step forward one undone change; false when there is none.
    pub fn redo(&mut self) -> bool {
        if self.cursor == self.entries.len() {
            return false;
        }
        self.cursor += 1;
        true
    }

    /// Put the first `n` changes in effect; false when there are fewer.
    pub fn goto(&mut self, n: usize) -> bool {
        if n > self.entries.len() {
            return false;
        }
        self.cursor = n;
        true
    }

    /// The world after the first `n` changes (0: the start), in effect or undone.
    pub fn world_after(&self, n: usize) -> Option<&World> {
        match n {
            0 => Some(&self.initial),
            n => self.entries.get(n - 1).map(|e| &e.world),
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
