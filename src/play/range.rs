//! A stretch of a run played on the calling thread: games `first..first + count` of a run
//! seeded with `seed`, each exactly the game of that number `flexrules playout --seed
//! <seed>` plays ([`super::games::play`]), so the tallies of stretches that do not overlap
//! add up ([`Tally::merge`]) to the tally of the whole run, whatever process or machine
//! played each stretch.

use std::collections::BTreeSet;

use super::agent::Agents;
use super::games::{hire, one};
use super::stats::Tally;
use crate::api::Match;

/// Play games `first..first + count` of a run seeded with `seed`, one after the other on
/// this thread, from `m` as [`super::games::play`] plays from it: `m` is the match started
/// with `seed` (`Game::start_headless(seed)`), on which `agents` were made
/// ([`Agents::from_texts`]); every game starts from its position, or from its own seed
/// when the start depends on it ([`super::games::start_varies`]). `m` is not moved.
pub fn play_range(
    m: &Match,
    seed: u64,
    first: u64,
    count: u64,
    max_plies: usize,
    agents: Option<&Agents>,
) -> Tally {
    let (mut m, start) = hire(m)();
    let mut tally = Tally::default();
    let end = first.saturating_add(count);
    for index in first..end {
        let mut movers = BTreeSet::new();
        let played = one(
            &mut m,
            start.as_ref(),
            seed,
            index,
            max_plies,
            agents,
            &mut movers,
        );
        tally.movers.extend(movers);
        tally.add(index, played);
    }
    tally
}
