//! A run of many games from one position, spread over threads ([`super::pool`]) and
//! added up ([`Tally`]): game number `i` of a run seeded with `seed` is the same game
//! whatever the number of threads, and so is the tally.

use std::collections::BTreeSet;

use super::agent::Agents;
use super::mcts::playout_with;
use super::playout::{Chooser, Ending, Playout, Stopped, playout};
use super::pool;
use super::stats::Tally;
use crate::api::{Match, Position, Profile, RuntimeError};

/// The seed a match of game `index` of a run seeded with `seed` starts from: game `i`
/// is `Game::start(game_seed(seed, i))` followed by the moves played, so
/// `flexrules run <game> --seed <it> --play ...` plays it again.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    // `Game::start(s)` seeds the game's generator with `s ^ WORLD_SEED`; the first
    // number of the game's chooser is that state, which every game drew from before the
    // start could vary.
    Chooser::new(seed, index).next_u64() ^ WORLD_SEED
}

/// How the world's generator is seeded from a match's seed (`World::new`).
const WORLD_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Whether `m`'s start depends on its seed: its `#setup` drew random numbers (a deal, a
/// shuffled deck), so each game of a run starts from its own seed rather than from `m`'s
/// position. A start that drew no number cannot depend on the seed (the seed reaches the
/// world only through its generator): `m`'s own start says so without another. One that
/// drew is started twice more and the worlds compared but for their generators (a draw
/// may go unused: the position may still be the same from every seed).
pub fn start_varies(m: &Match) -> bool {
    if m.moves_played() > 0 || !m.start_drew_random() {
        return false;
    }
    let start = |seed: u64| m.game().start_headless(seed);
    let Ok(mut first) = start(1) else {
        return false;
    };
    if first.random_state() == 1 ^ WORLD_SEED {
        return false;
    }
    first.set_random_state(0);
    match start(2) {
        Ok(mut second) => {
            second.set_random_state(0);
            first.digest() != second.digest()
        }
        Err(_) => false,
    }
}

/// What a thread of a run holds, made on that thread: its own copy of `m` (values stay on
/// the thread that made them, see `Match::thread_copy`), and the position every game
/// starts from (`None`: each game starts from its own seed, see [`start_varies`]).
pub(super) fn hire(m: &Match) -> impl FnOnce() -> (Match, Option<Position>) + Send + use<> {
    let copy = m.thread_copy();
    move || {
        let m = copy.into_inner();
        let start = (!start_varies(&m)).then(|| m.position().clone());
        (m, start)
    }
}

/// Play game `index` of a run seeded with `seed` from `start` (from its own start when
/// `start` is `None`: see [`start_varies`]), every move chosen at random, or by `agents`
/// (the players who had the move are added to `movers`).
#[allow(clippy::too_many_arguments)]
pub fn one(
    m: &mut Match,
    start: Option<&Position>,
    seed: u64,
    index: u64,
    max_plies: usize,
    agents: Option<&Agents>,
    movers: &mut BTreeSet<String>,
) -> Result<Playout, Stopped> {
    let mut chooser = Chooser::new(seed, index);
    // Game code that draws random numbers gets its own stream per playout too.
    let state = chooser.next_u64();
    match start {
        Some(start) => {
            m.set_position(start.clone());
            m.set_random_state(state);
        }
        None => {
            let started = m.game().start_headless(state ^ WORLD_SEED);
            let started = started.map_err(|e| Stopped {
                plies: 0,
                action: None,
                error: Box::new(RuntimeError {
                    message: format!("game {index} could not start: {e}"),
                    hint: None,
                    span: None,
                    chain: Vec::new(),
                    calls: None,
                }),
            })?;
            // The generator as the setup left it, as `Game::start` would.
            m.set_position(started.position().clone());
        }
    }
    match agents {
        Some(agents) => playout_with(m, agents, &mut chooser, max_plies, movers),
        None => playout(m, &mut chooser, max_plies),
    }
}

/// The record of game `index` of a run seeded with `seed`: one line, tab-separated: the
/// game's number, the run's seed, the game's own seed ([`game_seed`]), how it ended
/// (`winner <text>`, `draw`, `stuck`, `too-long`, `error`), and the moves played, by
/// name, separated by spaces. `flexrules run <game> --seed <game seed> --play <move> ...`
/// plays it again (from the start the run began at).
pub fn record_line(
    index: u64,
    seed: u64,
    played: &Result<Playout, Stopped>,
    moves: &[String],
) -> String {
    let ending = match played {
        Ok(Playout {
            ending: Ending::Winner(w),
            ..
        }) => format!("winner {}", w.to_text()),
        Ok(Playout {
            ending: Ending::Draw,
            ..
        }) => "draw".into(),
        Ok(Playout {
            ending: Ending::Stuck,
            ..
        }) => "stuck".into(),
        Ok(Playout {
            ending: Ending::TooLong,
            ..
        }) => "too-long".into(),
        Err(_) => "error".into(),
    };
    let own = game_seed(seed, index);
    format!("{index}\t{seed}\t{own}\t{ending}\t{}", moves.join(" "))
}

/// Play games `0..games` of a run seeded with `seed` from the match's current position,
/// or each from its own start when the start depends on the seed ([`start_varies`]:
/// each deal of cards is another), ([`one`]) on `jobs` threads, each on its own copy of the match: the tally (with each
/// game's [`record_line`] when `record` is set), and the steps counted when the match
/// profiles. `done` is called here as each game ends. The error: no thread could be
/// started.
#[allow(clippy::too_many_arguments)]
pub fn play(
    m: &Match,
    games: u64,
    jobs: usize,
    seed: u64,
    max_plies: usize,
    agents: Option<&Agents>,
    record: bool,
    mut done: impl FnMut(),
) -> std::io::Result<(Tally, Option<Profile>)> {
    let mut tally = Tally::default();
    let mut profile: Option<Profile> = None;
    pool::spread(
        jobs,
        usize::try_from(games).unwrap_or(usize::MAX),
        || hire(m),
        |(m, start), k| {
            let mut one_game = Tally::default();
            let index = k as u64;
            if record {
                m.record_moves();
            }
            let played = one(
                m,
                start.as_ref(),
                seed,
                index,
                max_plies,
                agents,
                &mut one_game.movers,
            );
            if let Some(moves) = m.take_recorded() {
                let line = record_line(index, seed, &played, &moves);
                one_game.records.push((index, line));
            }
            one_game.add(index, played);
            (one_game, m.take_profile())
        },
        |(t, p)| {
            tally = std::mem::take(&mut tally).merge(t);
            if let Some(p) = p {
                match &mut profile {
                    Some(all) => all.merge(&p),
                    None => profile = Some(p),
                }
            }
            done();
        },
    )?;
    Ok((tally, profile))
}
