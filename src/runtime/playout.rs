//! Random playouts and perft, for any game with `#actions`.
//!
//! Both work on copies of the world: trying a move is one O(1) snapshot and one
//! transaction, and the world a legal move leaves is kept and reused, so a playout never
//! runs a move twice. A playout does not build the legal-move list: it draws candidates at
//! random until one commits, which is uniform over the legal moves.

use super::moves::same_error;
use super::session::{Candidate, CandidateItems, Session};
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

/// A playout stopped by a runtime error: a mistake in the rules, not an ending.
#[derive(Clone, Debug, PartialEq)]
pub struct Stopped {
    /// Moves played before the error.
    pub plies: usize,
    /// The candidate being tried when it failed (`None`: `#actions` itself failed).
    pub action: Option<String>,
    /// The error.
    pub error: RuntimeError,
}

/// What perft counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Perft {
    /// Entry `d - 1`: the move sequences of length `d`.
    pub counts: Vec<u64>,
    /// Entry `d - 1`: how many of those ended the game (with its last move).
    pub finished: Vec<u64>,
    /// The distinct errors met while trying candidates (a failing candidate is not
    /// counted as a move).
    pub failures: Vec<PerftFailure>,
}

/// One distinct error met by perft.
#[derive(Clone, Debug, PartialEq)]
pub struct PerftFailure {
    /// The error, as first met.
    pub error: RuntimeError,
    /// The moves played before it was first met.
    pub played: Vec<String>,
    /// The candidate that failed (`None`: `#actions` itself failed).
    pub action: Option<String>,
    /// How many times it was met.
    pub count: u64,
}

/// How far perft has got: the first moves done out of all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftProgress {
    /// First moves whose subtree is counted.
    pub done: usize,
    /// First moves in all.
    pub total: usize,
}

/// What drawing candidates found.
enum Drawn {
    /// A legal move, with the world it leaves.
    Legal(World),
    /// A candidate that failed with a runtime error.
    Failed(Candidate, RuntimeError),
    /// No candidate commits.
    None,
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
    /// How the game stands: finished (with or without a winner) or not.
    pub fn ending(&self) -> Option<Ending> {
        let outcome = self.outcome()?;
        match outcome.get(&Key::sym(Symbol::intern("winner"))) {
            None | Some(Value::Nil) => Some(Ending::Draw),
            Some(w) => Some(Ending::Winner(w.clone())),
        }
    }

    /// Play random legal moves from the current world until the game ends, no move is
    /// legal, or `max_plies` moves were played. Moves are chosen by `chooser`: candidates
    /// are drawn at random and the first that commits is played (uniform over the legal
    /// moves). A candidate drawn that fails with a runtime error stops the game: the error
    /// is returned. Candidates not drawn are not tried.
    pub fn playout(&mut self, chooser: &mut Chooser, max_plies: usize) -> Result<Playout, Stopped> {
        let mut plies = 0;
        // The places of the candidates not drawn yet, kept from ply to ply.
        let mut undrawn = Vec::new();
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
            let candidates = self.candidate_items().map_err(|error| Stopped {
                plies,
                action: None,
                error,
            })?;
            match self.draw_legal(&candidates, &mut undrawn, chooser) {
                Drawn::Legal(world) => {
                    self.world = world;
                    plies += 1;
                }
                Drawn::Failed(a, error) => {
                    return Err(Stopped {
                        plies,
                        action: Some(a.name()),
                        error,
                    });
                }
                Drawn::None => {
                    return Ok(Playout {
                        ending: Ending::Stuck,
                        plies,
                    });
                }
            }
        }
    }

    /// Draw candidates at random without replacement and try each until one commits (its
    /// world is given) or one fails with an error (it is given, with its error). Every legal
    /// move is equally likely to be the first legal one drawn, so the choice is uniform over
    /// the legal moves, and only the candidates drawn are tried (and read from the list).
    ///
    /// `undrawn` (a buffer reused from ply to ply) holds the places of the candidates not
    /// drawn yet; it is shuffled exactly as the list of candidates itself would be, so the
    /// moves drawn are those that drawing from that list would give.
    fn draw_legal(
        &mut self,
        candidates: &CandidateItems,
        undrawn: &mut Vec<usize>,
        chooser: &mut Chooser,
    ) -> Drawn {
        undrawn.clear();
        undrawn.extend(0..candidates.len());
        while !undrawn.is_empty() {
            let drawn = undrawn.swap_remove(chooser.below(undrawn.len()));
            let Some(a) = candidates.get(drawn) else {
                continue;
            };
            let (status, world) = self.trial(&a);
            match status {
                Status::Committed(_) => return Drawn::Legal(world),
                Status::Failed(e) => return Drawn::Failed(a, e),
                Status::Vetoed { .. } | Status::RolledBack { .. } => {}
            }
        }
        Drawn::None
    }

    /// Count the move sequences of each length up to `depth` from the current world, and
    /// how many of them ended the game. The world is left unchanged. Candidates that fail
    /// are not counted; their errors are collected, once per distinct error.
    pub fn perft(&mut self, depth: usize) -> Perft {
        self.perft_with_progress(depth, &mut |_| {})
    }

    /// [`Session::perft`], calling `progress` each time the subtree of a first move is
    /// counted.
    pub fn perft_with_progress(
        &mut self,
        depth: usize,
        progress: &mut dyn FnMut(PerftProgress),
    ) -> Perft {
        let mut walk = PerftWalk {
            result: Perft {
                counts: vec![0; depth],
                finished: vec![0; depth],
                failures: Vec::new(),
            },
            path: Vec::with_capacity(depth),
            progress,
        };
        let start = self.world.clone();
        self.perft_from(0, &mut walk);
        self.world = start;
        walk.result
    }

    fn perft_from(&mut self, ply: usize, walk: &mut PerftWalk<'_>) {
        let depth = walk.result.counts.len();
        if ply == depth || self.ending().is_some() {
            return;
        }
        let candidates = match self.candidate_list() {
            Ok(c) => c,
            Err(e) => {
                walk.failed(e, None);
                return;
            }
        };
        // At the last ply a legal move is counted (and whether it ended the game) and its
        // world dropped at once; above it, the worlds of the legal moves are kept to go on
        // from, as every candidate of a position is tried before going deeper.
        let last = ply + 1 == depth;
        let mut legal = 0;
        let mut next = Vec::new();
        for c in candidates {
            let (status, world) = self.trial(&c);
            match status {
                Status::Committed(_) => {
                    legal += 1;
                    if world.outcome.is_some() {
                        walk.result.finished[ply] += 1;
                    }
                    if !last {
                        next.push((c, world));
                    }
                }
                Status::Failed(e) => walk.failed(e, Some(&c)),
                Status::Vetoed { .. } | Status::RolledBack { .. } => {}
            }
        }
        walk.result.counts[ply] += legal as u64;
        if ply == 0 && last {
            for done in 1..=legal {
                (walk.progress)(PerftProgress { done, total: legal });
            }
        }
        let total = next.len();
        for (i, (c, world)) in next.into_iter().enumerate() {
            self.world = world;
            walk.path.push(c);
            self.perft_from(ply + 1, walk);
            walk.path.pop();
            if ply == 0 {
                (walk.progress)(PerftProgress { done: i + 1, total });
            }
        }
    }
}

/// The state of one perft walk.
struct PerftWalk<'a> {
    result: Perft,
    /// The moves leading to the position being counted.
    path: Vec<Candidate>,
    progress: &'a mut dyn FnMut(PerftProgress),
}

impl PerftWalk<'_> {
    fn failed(&mut self, error: RuntimeError, action: Option<&Candidate>) {
        if let Some(f) = self
            .result
            .failures
            .iter_mut()
            .find(|f| same_error(&f.error, &error))
        {
            f.count += 1;
            return;
        }
        self.result.failures.push(PerftFailure {
            error,
            played: self.path.iter().map(Candidate::name).collect(),
            action: action.map(Candidate::name),
            count: 1,
        });
    }
}
