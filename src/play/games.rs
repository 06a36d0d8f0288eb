//! A run of many games from one position, spread over threads ([`super::pool`]) and
//! added up ([`Tally`]): game number `i` of a run seeded with `seed` is the same game
//! whatever the number of threads, and so is the tally.

use std::collections::BTreeSet;

use super::agent::Agents;
use super::playout::{Chooser, Playout, Stopped};
use super::pool;
use super::stats::Tally;
use crate::runtime::profile::Profile;
use crate::runtime::session::Session;
use crate::runtime::world::World;

/// Play game `index` of a run seeded with `seed` from `start`, every move chosen at
/// random, or by `agents` (the players who had the move are added to `movers`).
pub fn one(
    session: &mut Session,
    start: &World,
    seed: u64,
    index: u64,
    max_plies: usize,
    agents: Option<&Agents>,
    movers: &mut BTreeSet<String>,
) -> Result<Playout, Stopped> {
    *session.world_mut() = start.clone();
    let mut chooser = Chooser::new(seed, index);
    // Game code that draws random numbers gets its own stream per playout too.
    session.world_mut().rng = chooser.next_u64();
    match agents {
        Some(agents) => session.playout_with(agents, &mut chooser, max_plies, movers),
        None => session.playout(&mut chooser, max_plies),
    }
}

/// Play games `0..games` of a run seeded with `seed` from the session's current world
/// ([`one`]) on `jobs` threads, each on its own copy of the session: the tally, and the
/// steps counted when the session profiles. `done` is called here as each game ends. The
/// error: no thread could be started.
pub fn play(
    session: &Session,
    games: u64,
    jobs: usize,
    seed: u64,
    max_plies: usize,
    agents: Option<&Agents>,
    mut done: impl FnMut(),
) -> std::io::Result<(Tally, Option<Profile>)> {
    let mut tally = Tally::default();
    let mut profile: Option<Profile> = None;
    pool::spread(
        jobs,
        usize::try_from(games).unwrap_or(usize::MAX),
        || {
            // Copies of its own of the session and its start: values stay on the thread
            // that made them (see `Session::fork`).
            let forked = session.fork();
            move || {
                let session = forked.into_inner();
                let start = session.world().clone();
                (session, start)
            }
        },
        |(session, start), k| {
            let mut one_game = Tally::default();
            let index = k as u64;
            let played = one(
                session,
                start,
                seed,
                index,
                max_plies,
                agents,
                &mut one_game.movers,
            );
            one_game.add(index, played);
            (one_game, session.take_profile())
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
