//! Where a run's steps go: the instructions each body (law, side-effect, behaviour,
//! function, `#actions`) executed itself, and how often it was entered.
//!
//! A count of steps, not of time: the same game, seed and moves give the same profile
//! on any machine, with or without other work on it, with any number of threads. The
//! instruction loop counts nothing for it: a machine that profiles checks after every
//! instruction instead of every 65,536 (see [`crate::runtime::vm::Machine`]), and the
//! check, out of line, charges the steps counted since the last one to the body
//! running. Fused instructions never apply while profiling (each needs room for its
//! steps before the next check), so every body runs its plain instructions, which count
//! the same steps.
//!
//! A profile also counts the transactions it saw by how they ended, with how far the
//! furthest went ([`Transactions`]): each is tallied once, when it ends or first stops at
//! a `wait signal`.

use crate::compile::bytecode::CodeId;
use crate::compile::program::Game;

/// Steps and entries by body (see the module documentation).
#[derive(Debug, Default)]
pub struct Profile {
    /// Steps each body executed itself, by [`CodeId`].
    steps: Vec<u64>,
    /// How many times each body was entered (a call, a law, a behaviour run), by
    /// [`CodeId`].
    entries: Vec<u64>,
    /// How many times each instruction ran, by [`CodeId`] and then by its place in its
    /// body (for `disasm` beside a profile).
    runs: Vec<Vec<u64>>,
    /// The body that ran the instruction checked last, and where its frame is (frame
    /// count, base; see [`Profile::charge`]).
    last: Option<(CodeId, usize, u32)>,
    /// The step count at the last check (the transaction's).
    last_steps: u64,
    /// The transactions, by how they ended (see [`Transactions`]).
    transactions: Transactions,
    /// What the running transaction has done that is tallied once (see [`Tally`]).
    running: Tally,
}

/// How a transaction ended, for [`Profile::finish`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// It committed.
    Committed,
    /// A law vetoed it.
    Vetoed,
    /// It rolled back to a checkpoint.
    RolledBack,
    /// It stopped at a runtime error.
    Failed,
}

/// What the running transaction has been tallied for already.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// It stopped at a `wait signal` (and was tallied as waiting then).
    waited: bool,
    /// It printed or notified.
    printed: bool,
    /// Its step count passed [`CHECK_EVERY`].
    checked: bool,
}

/// The step count past which the machine, unprofiled, meets its first check: it checks
/// the budget and looks for an interrupt every 65,536 steps.
pub(crate) const CHECK_EVERY: u64 = 0xFFFF;

/// The transactions a profile saw, by how they ended, and how far the furthest went.
/// Each is tallied once, in one of the five endings: a transaction that stopped at a
/// `wait signal` is `waiting`, whether it was answered and went on, or abandoned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transactions {
    /// Committed.
    pub committed: u64,
    /// Vetoed by a law.
    pub vetoed: u64,
    /// Rolled back to a checkpoint.
    pub rolled_back: u64,
    /// Stopped at a runtime error (a wait with no one to answer is `waiting`).
    pub failed: u64,
    /// Stopped at a `wait signal`.
    pub waiting: u64,
    /// The most steps one transaction counted (a question's trials about the legal moves
    /// count in the asking transaction's too, as they do against its budget).
    pub longest: u64,
    /// The most join points (sends in progress) one transaction had at once, seen at its
    /// instructions.
    pub deepest_sends: u64,
    /// The most frames (bodies in progress: laws, behaviours, side-effects, functions)
    /// one transaction had at once, seen at its instructions.
    pub deepest_frames: u64,
    /// Transactions whose step count passed 65,535: those that would meet the machine's
    /// periodic step check when not profiled.
    pub checked: u64,
    /// Transactions that ran a `print` or a `notify`.
    pub printing: u64,
    /// Of all these, the trials a rule's question about the legal moves ran
    /// (`legal-moves`, `has-legal-move`, `is-legal`: `#actions`, `(to-move)` and each
    /// candidate tried).
    pub asked: u64,
}

impl Transactions {
    /// Every transaction tallied.
    pub fn total(&self) -> u64 {
        self.committed + self.vetoed + self.rolled_back + self.failed + self.waiting
    }

    /// Add `other`'s counts to these; the furthest of either.
    fn add(&mut self, other: &Transactions) {
        self.committed += other.committed;
        self.vetoed += other.vetoed;
        self.rolled_back += other.rolled_back;
        self.failed += other.failed;
        self.waiting += other.waiting;
        self.longest = self.longest.max(other.longest);
        self.deepest_sends = self.deepest_sends.max(other.deepest_sends);
        self.deepest_frames = self.deepest_frames.max(other.deepest_frames);
        self.checked += other.checked;
        self.printing += other.printing;
        self.asked += other.asked;
    }

    /// One line: `transactions: 1,234 (committed 61.2%, ...); longest 2,113 steps; ...`.
    pub fn line(&self) -> String {
        let total = self.total();
        let share = |n: u64| n as f64 * 100.0 / total.max(1) as f64;
        let asked = if self.asked > 0 {
            format!(
                "; tried for rules' questions about the legal moves: {}",
                grouped(self.asked)
            )
        } else {
            String::new()
        };
        format!(
            "transactions: {} (committed {:.1}%, vetoed {:.1}%, rolled back {:.1}%, failed {:.1}%, \
             waiting {:.1}%); longest {} steps; deepest {} sends, {} frames; reaching a step \
             check: {}; printing or notifying: {}{asked}\n",
            grouped(total),
            share(self.committed),
            share(self.vetoed),
            share(self.rolled_back),
            share(self.failed),
            share(self.waiting),
            grouped(self.longest),
            grouped(self.deepest_sends),
            grouped(self.deepest_frames),
            grouped(self.checked),
            grouped(self.printing),
        )
    }

    /// The counts as JSON (`"transactions"` of `playout --json --profile`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "total": self.total(),
            "committed": self.committed,
            "vetoed": self.vetoed,
            "rolled_back": self.rolled_back,
            "failed": self.failed,
            "waiting": self.waiting,
            "longest_steps": self.longest,
            "deepest_sends": self.deepest_sends,
            "deepest_frames": self.deepest_frames,
            "reaching_step_check": self.checked,
            "printing": self.printing,
            "asked": self.asked,
        })
    }
}

/// One line of a profile: a body, the steps it executed itself, how often it was entered.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRow {
    /// What the body is (`law Pawn Moves`, `function add-targets`, `actions`, ...).
    pub body: String,
    /// Steps it executed itself (not those of the functions it called or the join
    /// points of the messages it sent).
    pub steps: u64,
    /// How many times it was entered.
    pub entries: u64,
}

impl Profile {
    /// Charge the step count `steps` of the running transaction: the instruction just
    /// counted is instruction `at` of body `code` (one more run of it), in the frame
    /// `frame` (count of frames, base) of the machine. Steps counted since the last check beyond that instruction (what a
    /// builtin or a form charged) go to the body that ran the instruction before.
    ///
    /// The instruction enters its body when the transaction's first, or when its frame
    /// is deeper than the last one checked (a call, a send), or as deep but of another
    /// body or frame (the next law or side-effect of a join point): not when it is the
    /// body's own next, nor back in a caller's frame.
    pub(crate) fn charge(&mut self, steps: u64, code: CodeId, frame: (usize, u32), at: usize) {
        let runs = grown(&mut self.runs, code.0 as usize);
        *grown(runs, at) += 1;
        let since = steps.saturating_sub(self.last_steps);
        self.last_steps = steps;
        if since > 1 {
            let before = self.last.map_or(code, |(before, ..)| before);
            *slot(&mut self.steps, before) += since - 1;
        }
        *slot(&mut self.steps, code) += 1;
        let here = (code, frame.0, frame.1);
        let entered = match self.last {
            None => true,
            Some(last) => frame.0 > last.1 || (frame.0 == last.1 && here != last),
        };
        if entered {
            *slot(&mut self.entries, code) += 1;
        }
        self.last = Some(here);
    }

    /// A transaction starts: its step count starts from zero.
    pub(crate) fn begin(&mut self) {
        self.last = None;
        self.last_steps = 0;
        self.running = Tally::default();
    }

    /// The transaction ends at step count `steps`, as `ended` says: what was charged
    /// after the last check goes to the body that ran last, and the transaction is
    /// tallied (unless it was when it waited).
    pub(crate) fn finish(&mut self, steps: u64, ended: Ended) {
        if let Some((code, ..)) = self.last
            && steps > self.last_steps
        {
            *slot(&mut self.steps, code) += steps - self.last_steps;
        }
        if !self.running.waited {
            let t = &mut self.transactions;
            *match ended {
                Ended::Committed => &mut t.committed,
                Ended::Vetoed => &mut t.vetoed,
                Ended::RolledBack => &mut t.rolled_back,
                Ended::Failed => &mut t.failed,
            } += 1;
        }
        self.reached(steps);
        self.begin();
    }

    /// The transaction stops at a `wait signal`, at step count `steps`: tallied as
    /// waiting, the first time.
    pub(crate) fn wait(&mut self, steps: u64) {
        if !self.running.waited {
            self.running.waited = true;
            self.transactions.waiting += 1;
        }
        self.reached(steps);
    }

    /// The transaction prints or notifies.
    pub(crate) fn print(&mut self) {
        if !self.running.printed {
            self.running.printed = true;
            self.transactions.printing += 1;
        }
    }

    /// The transaction has `sends` join points and `frames` frames at an instruction.
    #[inline]
    pub(crate) fn depth(&mut self, sends: usize, frames: usize) {
        let t = &mut self.transactions;
        t.deepest_sends = t.deepest_sends.max(sends as u64);
        t.deepest_frames = t.deepest_frames.max(frames as u64);
    }

    /// The transaction has counted `steps` steps.
    fn reached(&mut self, steps: u64) {
        let t = &mut self.transactions;
        t.longest = t.longest.max(steps);
        if steps > CHECK_EVERY && !self.running.checked {
            self.running.checked = true;
            t.checked += 1;
        }
    }

    /// Add the transactions `other` tallied, the trials run to answer a rule's question
    /// about the legal moves, to these (their steps are the asking transaction's).
    pub(crate) fn merge_asked(&mut self, other: &Profile) {
        let mut asked = other.transactions;
        asked.asked = asked.total();
        self.transactions.add(&asked);
    }

    /// The transactions counted, by how they ended.
    pub fn transactions(&self) -> &Transactions {
        &self.transactions
    }

    /// Add `other`'s counts to these (profiles of threads that shared out the work).
    pub fn merge(&mut self, other: &Profile) {
        add(&mut self.steps, &other.steps);
        add(&mut self.entries, &other.entries);
        self.transactions.add(&other.transactions);
        for (i, runs) in other.runs.iter().enumerate() {
            if !runs.is_empty() {
                add(grown(&mut self.runs, i), runs);
            }
        }
    }

    /// How many times each instruction of body `code` ran (none past the last that ran).
    pub fn runs(&self, code: CodeId) -> &[u64] {
        self.runs.get(code.0 as usize).map_or(&[], Vec::as_slice)
    }

    /// Every step counted.
    pub fn total(&self) -> u64 {
        self.steps.iter().sum()
    }

    /// The bodies that executed steps, most steps first (then by name).
    pub fn rows(&self, game: &Game) -> Vec<ProfileRow> {
        let mut rows: Vec<ProfileRow> = self
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > 0)
            .map(|(i, &steps)| ProfileRow {
                // (A profile is read with the game it counted, whose bodies are only ever
                // added to; a name is still given for any other.)
                body: game
                    .codes
                    .get(i)
                    .map_or_else(|| format!("body #{i}"), |c| c.name.to_string()),
                steps,
                entries: self.entries.get(i).copied().unwrap_or(0),
            })
            .collect();
        rows.sort_by(|a, b| b.steps.cmp(&a.steps).then_with(|| a.body.cmp(&b.body)));
        rows
    }

    /// The profile as a table: the `top` bodies with the most steps, and what the others
    /// add up to.
    pub fn table(&self, game: &Game, top: usize) -> String {
        let total = self.total();
        let rows = self.rows(game);
        let share = |s: u64| s as f64 * 100.0 / total.max(1) as f64;
        let mut out = format!(
            "steps by body ({} in all; each body's own, without the functions it calls and the messages it sends):\n",
            grouped(total)
        );
        out.push_str("   share           steps       entries  steps/entry  body\n");
        for r in rows.iter().take(top) {
            let per = if r.entries > 0 {
                format!("{:.1}", r.steps as f64 / r.entries as f64)
            } else {
                "-".to_string()
            };
            out.push_str(&format!(
                "  {:5.1}%  {:>14}  {:>12}  {:>11}  {}\n",
                share(r.steps),
                grouped(r.steps),
                grouped(r.entries),
                per,
                r.body
            ));
        }
        if rows.len() > top {
            let rest: u64 = rows[top..].iter().map(|r| r.steps).sum();
            out.push_str(&format!(
                "  {:5.1}%  {:>14}  ({} more bodies)\n",
                share(rest),
                grouped(rest),
                rows.len() - top
            ));
        }
        out
    }
}

fn slot(v: &mut Vec<u64>, code: CodeId) -> &mut u64 {
    grown(v, code.0 as usize)
}

/// Element `i` of `v`, which grows with default elements to have one.
fn grown<T: Default + Clone>(v: &mut Vec<T>, i: usize) -> &mut T {
    if v.len() <= i {
        v.resize(i + 1, T::default());
    }
    &mut v[i]
}

fn add(to: &mut Vec<u64>, from: &[u64]) {
    if to.len() < from.len() {
        to.resize(from.len(), 0);
    }
    for (t, f) in to.iter_mut().zip(from) {
        *t += f;
    }
}

/// `n` with its thousands apart: 1,234,567.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_set_apart() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn extra_steps_go_to_the_body_that_ran_before() {
        let mut p = Profile::default();
        let (a, b) = (CodeId(0), CodeId(2));
        p.begin();
        p.charge(1, a, (1, 0), 0);
        p.charge(2, a, (1, 0), 1);
        // A builtin in `a` charged 6 more steps; then `b` starts in a new frame.
        p.charge(9, b, (2, 3), 0);
        p.charge(10, b, (2, 3), 1);
        // Back in `a`'s frame: not an entry.
        p.charge(11, a, (1, 0), 2);
        // `a`'s last instruction charged 2 more.
        p.finish(13, Ended::Committed);
        assert_eq!(p.steps, vec![11, 0, 2]);
        assert_eq!(p.entries, vec![1, 0, 1]);
        // A new transaction counts from zero again; `b` runs where `a` ran, and `a`
        // follows it there (the next law of a join point, say).
        p.begin();
        p.charge(1, b, (1, 0), 0);
        p.charge(2, a, (1, 0), 1);
        p.finish(2, Ended::Vetoed);
        assert_eq!(p.steps, vec![12, 0, 3]);
        assert_eq!(p.entries, vec![2, 0, 2]);
        assert_eq!(p.total(), 15);
        // Each instruction's runs, by body and place.
        assert_eq!(p.runs(a), &[1, 2, 1]);
        assert_eq!(p.runs(b), &[2, 1]);
        assert_eq!(p.runs(CodeId(1)), &[] as &[u64]);
        let mut q = Profile::default();
        q.merge(&p);
        q.merge(&p);
        assert_eq!(q.total(), 2 * p.total());
        assert_eq!(q.runs(a), &[2, 4, 2]);
    }
}
