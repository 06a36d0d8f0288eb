//! Random playouts: a game played from the current world to its end, every move drawn
//! at random among the legal ones, with the generator that draws them ([`Chooser`]).
//!
//! A playout tries moves in place, on the session's world, with the session's kept
//! machine: a trial writes properties, states and the random generator in place with an
//! undo log, so trying a move copies no entity the world does not share and tears down
//! no world (see `vm/undo.rs`). A move that does not commit (vetoed, failed, rolled back)
//! leaves the world exactly as it was.
//!
//! A playout plays the first drawn candidate that commits where it stands: it does not
//! build the legal-move list, but draws candidates at random until one commits, which is
//! uniform over the legal moves, and never runs a move twice.
//!
//! A move that waits for a signal (`(wait signal ...)`) is answered at random, uniformly
//! among the answers its `among` gives, drawn from the same generator; a wait without
//! `among` fails, as a wait with no one to answer. A recorded playout records each answer
//! after its move, as a move named `<signal>=<tag>`.

use crate::api::{
    Candidate, CandidateItems, MAX_NO_MOVE_RUNS, Match, RuntimeError, Status, Value, Wait,
    answer_name,
};

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
    /// The error (boxed: a playout's result stays small).
    pub error: Box<RuntimeError>,
}

/// What drawing candidates found.
pub(super) enum Drawn {
    /// A legal move, played.
    Legal,
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

/// How the game stands: finished (with or without a winner) or not.
pub fn ending(m: &Match) -> Option<Ending> {
    Some(match m.winner()? {
        None => Ending::Draw,
        Some(w) => Ending::Winner(w),
    })
}

/// Play random legal moves from the current world until the game ends, no move is
/// legal, or `max_plies` moves were played. Moves are chosen by `chooser`: candidates
/// are drawn at random and the first that commits is played (uniform over the legal
/// moves). A candidate drawn that fails with a runtime error stops the game: the error
/// is returned. Candidates not drawn are not tried.
pub fn playout(m: &mut Match, chooser: &mut Chooser, max_plies: usize) -> Result<Playout, Stopped> {
    unwatched_game(m, |m| play_unwatched(m, chooser, max_plies))
}

/// Play a game with `play` on the world without its canvas (moves are tried and
/// played in place, and trying moves does not draw); a game that played no move
/// keeps the canvas.
pub(super) fn unwatched_game(
    m: &mut Match,
    play: impl FnOnce(&mut Match) -> Result<Playout, Stopped>,
) -> Result<Playout, Stopped> {
    let drawing = m.stop_drawing();
    let played = play(m);
    if let Some(drawing) = drawing
        && matches!(
            &played,
            Ok(Playout { plies: 0, .. }) | Err(Stopped { plies: 0, .. })
        )
    {
        m.resume_drawing(drawing);
    }
    played
}

/// How a game `plies` moves long stands before its next move: over (with the game's
/// ending, or at the ply limit) or not (`None`).
pub(super) fn stands(m: &Match, plies: usize, max_plies: usize) -> Option<Playout> {
    if let Some(ending) = ending(m) {
        return Some(Playout { ending, plies });
    }
    (plies >= max_plies).then_some(Playout {
        ending: Ending::TooLong,
        plies,
    })
}

/// [`playout`] on a world without an active canvas.
pub(super) fn play_unwatched(
    m: &mut Match,
    chooser: &mut Chooser,
    max_plies: usize,
) -> Result<Playout, Stopped> {
    let mut plies = 0;
    // The places of the candidates not drawn yet, kept from ply to ply.
    let mut undrawn = Vec::new();
    let mut settled = 0;
    loop {
        if let Some(over) = stands(m, plies, max_plies) {
            return Ok(over);
        }
        let candidates = m.candidates().map_err(|error| Stopped {
            plies,
            action: None,
            error: Box::new(error),
        })?;
        match draw_legal(m, &candidates, &mut undrawn, chooser) {
            Drawn::Legal => {
                plies += 1;
                settled = 0;
            }
            Drawn::Failed(a, error) => {
                return Err(Stopped {
                    plies,
                    action: Some(a.name()),
                    error: Box::new(error),
                });
            }
            Drawn::None => {
                if !settle(m, &mut settled).map_err(|error| Stopped {
                    plies,
                    action: None,
                    error: Box::new(error),
                })? {
                    return Ok(Playout {
                        ending: Ending::Stuck,
                        plies,
                    });
                }
            }
        }
    }
}

/// No move is legal: what the game's `no-legal-move` makes of it, run in place. `true`
/// when it ran and the game goes on from where it left it (finished, or the turn
/// passed); `false` when the game has none (it is stuck). `runs` counts the runs in a
/// row, without a move between them: past [`MAX_NO_MOVE_RUNS`], or when it fails, the
/// error.
pub(super) fn settle(m: &mut Match, runs: &mut usize) -> Result<bool, RuntimeError> {
    if *runs >= MAX_NO_MOVE_RUNS {
        return Err(m.unsettled(None));
    }
    match m.no_legal_move() {
        None => Ok(false),
        Some(Status::Committed(_)) => {
            *runs += 1;
            Ok(true)
        }
        Some(other) => Err(m.unsettled(Some(other))),
    }
}

/// Draw candidates at random without replacement and try each in place until one
/// commits (it is played) or one fails with an error (it is given, with its error; the
/// world is as it was, as after a candidate that does not commit). Every legal
/// move is equally likely to be the first legal one drawn, so the choice is uniform over
/// the legal moves, and only the candidates drawn are tried (and read from the list).
///
/// `undrawn` (a buffer reused from ply to ply) holds the places of the candidates not
/// drawn yet; it is shuffled exactly as the list of candidates itself would be, so the
/// moves drawn are those that drawing from that list would give.
pub(super) fn draw_legal(
    m: &mut Match,
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
        let name = m.is_recording().then(|| a.name());
        let mut answered = Vec::new();
        match try_answering(m, a, chooser, &mut answered) {
            Status::Committed(_) => {
                if let Some(name) = name {
                    m.note_played(name);
                    answered.into_iter().for_each(|a| m.note_played(a));
                }
                return Drawn::Legal;
            }
            Status::Failed(e) => {
                if let Some(a) = candidates.get(drawn) {
                    return Drawn::Failed(a, e);
                }
            }
            Status::Vetoed { .. } | Status::RolledBack { .. } => {}
        }
    }
    Drawn::None
}

/// Try `candidate` in place ([`Match::try_move`]), answering the signals it waits for at
/// random among their answers, drawn from `chooser`; the names of the answers given
/// (`<signal>=<tag>`) are added to `answered`.
pub(super) fn try_answering(
    m: &mut Match,
    candidate: Candidate,
    chooser: &mut Chooser,
    answered: &mut Vec<String>,
) -> Status {
    m.try_move_answering(candidate, &mut |wait: &Wait| {
        let answers = wait.answers.as_ref().filter(|a| !a.is_empty())?;
        let tag = answers[chooser.below(answers.len())].clone();
        answered.push(answer_name(wait.signal, &tag));
        Some(tag)
    })
}
