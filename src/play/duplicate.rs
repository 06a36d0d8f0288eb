//! Duplicate play: every board (game `i` of a run: bridge's deal) played at two tables
//! from the same start, two agents swapping places between two groups of players, so that
//! the luck of the cards cancels out and what is left is how the two agents differ
//! (bidding systems compared on the same deals).
//!
//! At table 1 the first agent plays the first group and the second agent the second; at
//! table 2 they swap. Both tables of a board start from the board's own start and draw
//! from the board's own generator ([`super::games::one`]), as a run's game `i` does. A
//! board scores the outcome's field `score` (a number, from the first group's side) at
//! each table; the first agent's gain on the board is table 1's score less table 2's.

use std::collections::BTreeSet;

use super::agent::Agents;
use super::games::{hire, one};
use super::playout::{Ending, Stopped};
use super::pool;
use crate::api::{Match, Value};

/// The two tables of a duplicate run: the agents of every player at each.
pub struct Tables<'a> {
    /// Table 1 (the first agent with the first group), then table 2 (swapped).
    pub agents: [&'a Agents; 2],
    /// The outcome's field each table scores: a number, from the first group's side.
    pub score: &'a str,
}

/// What the boards of a run add up to.
#[derive(Default, Debug)]
pub struct Boards {
    /// Each scored board's number and its score at table 1 and table 2, by number.
    pub scored: Vec<(u64, [f64; 2])>,
    /// Boards where a table did not finish (stuck, too long) or gave no number as its
    /// score, by number, with why.
    pub unscored: Vec<(u64, String)>,
    /// Boards where a table stopped with an error: the first, by number, and how many.
    pub failed: u64,
    /// The error of the lowest-numbered board that stopped, with its number and table.
    pub first_error: Option<(u64, usize, Stopped)>,
    /// Moves played at both tables of all boards.
    pub plies: u64,
    /// The players who had the move at some table, by their text.
    pub movers: BTreeSet<String>,
}

impl Boards {
    fn merge(&mut self, other: Boards) {
        self.scored.extend(other.scored);
        self.unscored.extend(other.unscored);
        self.failed += other.failed;
        self.plies += other.plies;
        self.movers.extend(other.movers);
        if let Some((i, t, e)) = other.first_error
            && self.first_error.as_ref().is_none_or(|(j, _, _)| i < *j)
        {
            self.first_error = Some((i, t, e));
        }
    }

    /// The first agent's gain per board (table 1's score less table 2's): its mean and
    /// 95% interval ([`mean_interval`]).
    pub fn gain(&self) -> (f64, f64, f64) {
        mean_interval(self.scored.iter().map(|(_, [a, b])| a - b))
    }

    /// The mean score at table `t` (0 or 1) with its 95% interval.
    pub fn table(&self, t: usize) -> (f64, f64, f64) {
        mean_interval(self.scored.iter().map(|(_, s)| s[t]))
    }
}

/// Play boards `0..boards` of a run seeded with `seed` from `m`'s start, each at both
/// tables, on `jobs` threads; `done` is called as each board ends. The error: no thread
/// could be started.
pub fn play(
    m: &Match,
    boards: u64,
    jobs: usize,
    seed: u64,
    max_plies: usize,
    tables: &Tables,
    mut done: impl FnMut(),
) -> std::io::Result<Boards> {
    let mut all = Boards::default();
    pool::spread(
        jobs,
        usize::try_from(boards).unwrap_or(usize::MAX),
        || hire(m),
        |(m, start), k| {
            let index = k as u64;
            let mut board = Boards::default();
            let mut scores = [0.0; 2];
            for (t, agents) in tables.agents.iter().enumerate() {
                let played = one(
                    m,
                    start.as_ref(),
                    seed,
                    index,
                    max_plies,
                    Some(agents),
                    &mut board.movers,
                );
                let played = match played {
                    Ok(p) => p,
                    Err(e) => {
                        board.plies += e.plies as u64;
                        board.failed = 1;
                        board.first_error = Some((index, t, e));
                        return board;
                    }
                };
                board.plies += played.plies as u64;
                let score = match played.ending {
                    Ending::Winner(_) | Ending::Draw => score_of(m, tables.score),
                    Ending::Stuck => Err("no move was legal".into()),
                    Ending::TooLong => Err("the move limit was reached".into()),
                };
                match score {
                    Ok(s) => scores[t] = s,
                    Err(why) => {
                        board
                            .unscored
                            .push((index, format!("table {}: {why}", t + 1)));
                        return board;
                    }
                }
            }
            board.scored.push((index, scores));
            board
        },
        |board| {
            all.merge(board);
            done();
        },
    )?;
    all.scored.sort_unstable_by_key(|(i, _)| *i);
    all.unscored.sort_unstable_by_key(|(i, _)| *i);
    Ok(all)
}

/// The outcome's field `name` as a number, or why not.
fn score_of(m: &Match, name: &str) -> Result<f64, String> {
    let outcome = m.outcome().unwrap_or_default();
    match outcome.iter().find(|(k, _)| k == name).map(|(_, v)| v) {
        Some(Value::Int(i)) => Ok(*i as f64),
        Some(Value::Float(f)) => Ok(f.get()),
        Some(other) => Err(format!(
            "the outcome's `{name}` is {}, not a number",
            other.to_text()
        )),
        None => {
            let fields: Vec<&str> = outcome.iter().map(|(k, _)| k.as_str()).collect();
            Err(format!(
                "the outcome has no `{name}` (it has {})",
                fields.join(", ")
            ))
        }
    }
}

/// The mean of `xs` with its 95% interval (Student's t on the sample's standard deviation;
/// a single value's interval is the value itself).
pub fn mean_interval(xs: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let xs: Vec<f64> = xs.collect();
    let n = xs.len();
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, mean, mean);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t975(n - 1) * (var / n as f64).sqrt();
    (mean, mean - half, mean + half)
}

/// Student's t, two-sided 95%, for `df` degrees of freedom (at least 1).
fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        31..=60 => 2.042 - (df - 30) as f64 * (2.042 - 2.000) / 30.0,
        61..=120 => 2.000 - (df - 60) as f64 * (2.000 - 1.980) / 60.0,
        _ => 1.960,
    }
}

#[cfg(test)]
mod tests {
    use super::mean_interval;

    #[test]
    fn the_interval_brackets_the_mean_and_narrows_with_more_boards() {
        let (m, lo, hi) = mean_interval([1.0, 2.0, 3.0, 4.0].into_iter());
        assert_eq!(m, 2.5);
        // sd 1.291, t(3) 3.182: half-width 2.054.
        assert!((hi - lo - 2.0 * 2.054).abs() < 0.01, "{lo} {hi}");
        let many = mean_interval((0..400).map(|i| f64::from(i % 4) + 1.0));
        assert!(many.2 - many.1 < 0.3);
        assert_eq!(mean_interval([7.0].into_iter()), (7.0, 7.0, 7.0));
    }
}
