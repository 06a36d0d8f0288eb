//! What many games add up to ([`Tally`]), and the statistics read from it: each
//! outcome's rate with its 95% interval ([`wilson`]), and how a rate moved from one set
//! of games to another, with its interval ([`difference`], Newcombe's).

use std::collections::{BTreeMap, BTreeSet};

use super::playout::{Ending, Playout, Stopped};

/// What many playouts add up to.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// Wins per winner, by the winner's text.
    pub wins: BTreeMap<String, u64>,
    /// Games finished without a winner.
    pub draws: u64,
    /// Games where no move was legal but the game did not finish.
    pub stuck: u64,
    /// Games stopped at the ply limit.
    pub too_long: u64,
    /// Moves played in all games.
    pub plies: u64,
    /// Games stopped by a runtime error (a candidate move, or `#actions`, failed).
    pub failed: u64,
    /// The error that stopped the game with the smallest number, with that number (the
    /// same whatever the number of threads).
    pub first_error: Option<(u64, Stopped)>,
    /// With agents: the players who had the move in some game, by their text.
    pub movers: BTreeSet<String>,
    /// When the run records its games: each game's number and its record line
    /// ([`super::games::record_line`]), in no particular order.
    pub records: Vec<(u64, String)>,
}

/// How the rate of an outcome moved from one set of games to another ([`changes`]): the
/// outcome (a winner, by its text; `None`: a draw), the difference of the rates, and its
/// 95% interval, as fractions.
pub type Change = (Option<String>, f64, f64, f64);

impl Tally {
    /// Count the result of game number `index`.
    pub fn add(&mut self, index: u64, result: Result<Playout, Stopped>) {
        self.games += 1;
        match result {
            Ok(p) => {
                self.plies += p.plies as u64;
                match p.ending {
                    Ending::Winner(w) => *self.wins.entry(w.to_text()).or_default() += 1,
                    Ending::Draw => self.draws += 1,
                    Ending::Stuck => self.stuck += 1,
                    Ending::TooLong => self.too_long += 1,
                }
            }
            Err(e) => {
                self.failed += 1;
                self.plies += e.plies as u64;
                if self.first_error.as_ref().is_none_or(|(i, _)| index < *i) {
                    self.first_error = Some((index, e));
                }
            }
        }
    }

    /// Games played, games a second, mean moves a game.
    pub fn figures(&self, seconds: f64) -> (u64, f64, f64) {
        let n = self.games;
        let rate = if seconds > 0.0 {
            n as f64 / seconds
        } else {
            0.0
        };
        let mean = if n > 0 {
            self.plies as f64 / n as f64
        } else {
            0.0
        };
        (n, rate, mean)
    }

    /// `k` of the games: `k`, its share, and the share's 95% Wilson interval.
    pub fn row(&self, k: u64) -> (u64, f64, f64, f64) {
        let (lo, hi) = wilson(k, self.games);
        (k, k as f64 / self.games.max(1) as f64, lo, hi)
    }

    /// The games of an outcome (a winner, by its text; `None`: a draw), and all games.
    pub fn rate(&self, outcome: Option<&str>) -> (u64, u64) {
        let k = match outcome {
            Some(w) => self.wins.get(w).copied().unwrap_or(0),
            None => self.draws,
        };
        (k, self.games)
    }

    /// Both tallies added up (the first error is the one of the smaller game number).
    pub fn merge(mut self, other: Tally) -> Tally {
        self.games += other.games;
        for (k, v) in other.wins {
            *self.wins.entry(k).or_default() += v;
        }
        self.draws += other.draws;
        self.stuck += other.stuck;
        self.too_long += other.too_long;
        self.plies += other.plies;
        self.failed += other.failed;
        self.movers.extend(other.movers);
        self.records.extend(other.records);
        self.first_error = match (self.first_error, other.first_error) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
        self
    }
}

/// How the rate of each outcome seen in either tally (each winner, then a draw) moved
/// from `base` to `t`, with its 95% interval ([`difference`]).
pub fn changes(base: &Tally, t: &Tally) -> Vec<Change> {
    let winners: BTreeSet<&String> = base.wins.keys().chain(t.wins.keys()).collect();
    winners
        .into_iter()
        .map(|w| Some(w.clone()))
        .chain(std::iter::once(None))
        .map(|o| {
            let (k1, n1) = t.rate(o.as_deref());
            let (k0, n0) = base.rate(o.as_deref());
            let (d, lo, hi) = difference(k1, n1, k0, n0);
            (o, d, lo, hi)
        })
        .collect()
}

/// The Wilson score interval (95%) of `k` successes in `n` trials, as fractions.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The difference of two rates, `k1/n1 − k0/n0`, with its 95% interval by Newcombe's
/// method 10 (each rate's Wilson interval, combined): fractions.
pub fn difference(k1: u64, n1: u64, k0: u64, n0: u64) -> (f64, f64, f64) {
    let p1 = k1 as f64 / n1.max(1) as f64;
    let p0 = k0 as f64 / n0.max(1) as f64;
    let (l1, u1) = wilson(k1, n1);
    let (l0, u0) = wilson(k0, n0);
    let d = p1 - p0;
    let lo = d - ((p1 - l1).powi(2) + (u0 - p0).powi(2)).sqrt();
    let hi = d + ((u1 - p1).powi(2) + (p0 - l0).powi(2)).sqrt();
    (d, lo.max(-1.0), hi.min(1.0))
}

#[cfg(test)]
mod tests {
    use super::wilson;

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(50, 100);
        assert!(lo < 0.5 && hi > 0.5);
        assert!((lo - 0.404).abs() < 0.01 && (hi - 0.596).abs() < 0.01);
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }
}
