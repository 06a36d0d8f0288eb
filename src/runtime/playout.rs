//! Random playouts and perft, for any game with `#actions`.
//!
//! Both work on copies of the world: trying a move is one O(1) snapshot and one
//! transaction, and the world a legal move leaves is kept and reused, so a playout never
//! runs a move twice. A playout does not build the legal-move list: it draws candidates at
//! random until one commits, which is uniform over the legal moves.

use super::session::{Action, Session};
use super::trace::{RuntimeError, Status};
use super::value::{Key, Value};
use super::world::World;
use crate::symbol::Symbol;

/// How a playout ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// `(finish with "winner" w ...)` with a winner.
    Winner(Value),
    /// `(finish ...)` with no winner (or `"winner" nil`): a draw.
    Draw,
    /// No legal move, and the game did not finish.
    Stuck,
    /// The ply limit was reached.
    TooLong,
}

/// One random game.
#[derive(Clone, Debug, PartialEq)]
pub struct Playout {
    /// How it ended.
    pub ending: Ending,
    /// Moves played.
    pub plies: usize,
}

/// A small deterministic generator for choosing moves (splitmix64).
#[derive(Clone, Debug)]
pub struct Chooser(u64);

impl Chooser {
    /// A generator for playout number `index` of a run seeded with `seed`.
    pub fn new(seed: u64, index: u64) -> Chooser {
        Chooser(
            seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03),
        )
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

impl Session {
    /// The legal moves now, each with the world it leaves.
    pub fn legal_moves(&mut self) -> Result<Vec<(Action, World)>, RuntimeError> {
        let candidates = self.candidates()?;
        let mut out = Vec::with_capacity(candidates.len());
        for a in candidates {
            let (tx, world) = self.try_deliver(a.recipient, (*a.message).clone());
            if Self::trial_is_legal(&tx.status) {
                out.push((a, world));
            }
        }
        Ok(out)
    }

    /// How the game stands: finished (with or without a winner) or not.
    pub fn ending(&self) -> Option<Ending> {
        let outcome = self.outcome()?;
        match outcome.get(&Key::Str(Symbol::intern("winner"))) {
            None | Some(Value::Nil) => Some(Ending::Draw),
            Some(w) => Some(Ending::Winner(w.clone())),
        }
    }

    /// Play random legal moves from the current world until the game ends, no move is
    /// legal, or `max_plies` moves were played. Moves are chosen by `chooser`.
    pub fn playout(
        &mut self,
        chooser: &mut Chooser,
        max_plies: usize,
    ) -> Result<Playout, RuntimeError> {
        let mut plies = 0;
        loop {
            if let Some(ending) = self.ending() {
                return Ok(Playout { ending, plies });
            }
            if plies >= max_plies {
                return Ok(Playout {
                    ending: Ending::TooLong,
                    plies,
                });
            }
            let mut candidates = self.candidates()?;
            let Some(world) = self.first_legal(&mut candidates, chooser) else {
                return Ok(Playout {
                    ending: Ending::Stuck,
                    plies,
                });
            };
            self.world = world;
            plies += 1;
        }
    }

    /// Draw candidates at random without replacement, trying each, and give the world the
    /// first one that commits leaves. Every legal move is equally likely to be the first
    /// drawn among the legal ones, so this chooses uniformly over the legal moves, and a
    /// playout only tries the candidates it draws instead of all of them.
    ///
    /// Each trial's status is judged by [`Session::trial_is_legal`], the one place that
    /// decides what a candidate's outcome means.
    fn first_legal(
        &mut self,
        candidates: &mut Vec<Action>,
        chooser: &mut Chooser,
    ) -> Option<World> {
        while !candidates.is_empty() {
            let a = candidates.swap_remove(chooser.below(candidates.len()));
            let (tx, world) = self.try_deliver(a.recipient, (*a.message).clone());
            if Self::trial_is_legal(&tx.status) {
                return Some(world);
            }
        }
        None
    }

    /// Whether a tried candidate is a legal move: it committed. A veto or a rollback makes
    /// it illegal; so does a runtime error, which the legal-move list also leaves out.
    fn trial_is_legal(status: &Status) -> bool {
        status.committed()
    }

    /// Leaf counts of the game tree from the current world: entry `d - 1` is the number of
    /// move sequences of length `d`, for `d` in `1..=depth`. The world is left unchanged.
    pub fn perft(&mut self, depth: usize) -> Result<Vec<u64>, RuntimeError> {
        let mut counts = vec![0; depth];
        let start = self.world.clone();
        let result = self.perft_from(0, &mut counts);
        self.world = start;
        result.map(|()| counts)
    }

    fn perft_from(&mut self, ply: usize, counts: &mut [u64]) -> Result<(), RuntimeError> {
        if ply == counts.len() || self.ending().is_some() {
            return Ok(());
        }
        if ply + 1 == counts.len() {
            // The last ply: only the number of legal moves counts, not the worlds they leave.
            let candidates = self.candidates()?;
            for a in candidates {
                let (tx, _) = self.try_deliver(a.recipient, (*a.message).clone());
                if Self::trial_is_legal(&tx.status) {
                    counts[ply] += 1;
                }
            }
            return Ok(());
        }
        let moves = self.legal_moves()?;
        counts[ply] += moves.len() as u64;
        for (_, world) in moves {
            self.world = world;
            self.perft_from(ply + 1, counts)?;
        }
        Ok(())
    }
}
