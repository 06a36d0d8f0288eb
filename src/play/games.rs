//! A run of many games from one position, spread over threads ([`super::pool`]) and
//! added up ([`Tally`]): game number `i` of a run seeded with `seed` is the same game
//! whatever the number of threads, and so is the tally.

use std::collections::BTreeSet;

use super::agent::Agents;
use super::mcts::playout_with;
use super::playout::{Chooser, Ending, Playout, Stopped, playout};
use super::pool;
use super::stats::Tally;
use crate::api::{Match, Position, Profile};

/// Play game `index` of a run seeded with `seed` from `start`, every move chosen at
/// random, or by `agents` (the players who had the move are added to `movers`).
pub fn one(
    m: &mut Match,
    start: &Position,
    seed: u64,
    index: u64,
    max_plies: usize,
    agents: Option<&Agents>,
    movers: &mut BTreeSet<String>,
) -> Result<Playout, Stopped> {
    m.set_position(start.clone());
    let mut chooser = Chooser::new(seed, index);
    // Game code that draws random numbers gets its own stream per playout too.
    m.set_random_state(chooser.next_u64());
    match agents {
        Some(agents) => playout_with(m, agents, &mut chooser, max_plies, movers),
        None => playout(m, &mut chooser, max_plies),
    }
}

/// The record of game `index` of a run seeded with `seed`: one line, tab-separated: the
/// game's number, the run's seed, how it ended (`winner <text>`, `draw`, `stuck`,
/// `too-long`, `error`), and the moves played, by name, separated by spaces.
/// `flexrules playout <game> --seed <seed>` plays game `index` again exactly.
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
    format!("{index}\t{seed}\t{ending}\t{}", moves.join(" "))
}

/// Play games `0..games` of a run seeded with `seed` from the match's current position
/// ([`one`]) on `jobs` threads, each on its own copy of the match: the tally (with each
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
        || {
            // Copies of its own of the match and its start: values stay on the thread
            // that made them (see `Match::thread_copy`).
            let copy = m.thread_copy();
            move || {
                let m = copy.into_inner();
                let start = m.position().clone();
                (m, start)
            }
        },
        |(m, start), k| {
            let mut one_game = Tally::default();
            let index = k as u64;
            if record {
                m.record_moves();
            }
            let played = one(
                m,
                start,
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
