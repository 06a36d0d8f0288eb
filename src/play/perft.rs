//! Perft: the move sequences of each length from a position counted, and how many of
//! them ended the game, with the distinct errors met on the way.
//!
//! Perft makes and unmakes moves in place on a copy of the session's world (which shares
//! it), with the session's kept machine (see `vm/undo.rs`): a legal move's log (or the
//! world before it, when the move made a change the log does not cover) is kept while
//! the walk counts below it, then undone. The walk goes down from each legal move before
//! trying the next candidate; the failures it meets are put back in the order of a walk
//! that tries all the candidates of a position first (that order is what perft reports),
//! and the first ply, whose progress needs the number of legal first moves, is tried
//! whole first and its legal moves made again to go down from them. The subtrees of the
//! first moves (or, from [`SPLIT_AT_REPLIES`] plies, of the replies to them) can be
//! counted on several threads ([`super::pool`]), each on its own copy of the session, and
//! added up.

use super::playout::ending;
use super::pool;
use crate::api::{
    Candidate, CandidateItems, Isolated, Match, MoveLog, Profile, RuntimeError, Status, same_error,
};

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

/// Count the move sequences of each length up to `depth` from the current world, and
/// how many of them ended the game. The world is left unchanged. Candidates that fail
/// are not counted; their errors are collected, once per distinct error.
pub fn perft(m: &mut Match, depth: usize) -> Perft {
    perft_with_progress(m, depth, &mut |_| {})
}

/// [`perft`], calling `progress` each time the subtree of a first move is
/// counted.
pub fn perft_with_progress(
    m: &mut Match,
    depth: usize,
    progress: &mut dyn FnMut(PerftProgress),
) -> Perft {
    perft_on_threads(m, depth, 1, progress)
}

/// [`perft_with_progress`], the subtrees of the legal first moves counted on
/// `jobs` threads, each with its own copy of the session (`jobs` of 1 or less: on
/// this thread). The result does not depend on `jobs`: counts add up, and each
/// distinct failure is reported as the walk on one thread would first meet it.
/// `progress` is called on this thread, once per first move, as subtrees are done.
/// The copies do not watch an interruption.
pub fn perft_on_threads(
    m: &mut Match,
    depth: usize,
    jobs: usize,
    progress: &mut dyn FnMut(PerftProgress),
) -> Perft {
    let mut walk = PerftWalk::new(depth);
    // The walk makes and unmakes moves in place on a copy of the world without its
    // canvas: a write copies only what the world shares, once.
    let start = m.position().clone();
    m.stop_drawing();
    if let Some((candidates, first_moves)) = perft_first_ply(m, &mut walk) {
        let total = first_moves.len();
        let spread = jobs > 1
            && depth > 1
            && total > 1
            && perft_spread(m, jobs, &candidates, &first_moves, &mut walk, progress);
        if !spread {
            for (done, &i) in first_moves.iter().enumerate() {
                if depth > 1
                    && let Some(c) = candidates.get(i)
                {
                    perft_down(m, 0, i, c, &mut walk, None);
                }
                progress(PerftProgress {
                    done: done + 1,
                    total,
                });
            }
        }
    }
    m.set_position(start);
    if let Some(p) = walk.profile.take() {
        m.merge_profile(&p);
    }
    walk.into_result()
}

/// Try every candidate of the first ply (its progress needs the number of legal
/// first moves): the candidates, and the numbers of the legal ones.
fn perft_first_ply(m: &mut Match, walk: &mut PerftWalk) -> Option<(CandidateItems, Vec<usize>)> {
    if walk.result.counts.is_empty() || ending(m).is_some() {
        return None;
    }
    let candidates = match m.candidates() {
        Ok(c) => c,
        Err(e) => {
            walk.failed(e, None, 0);
            return None;
        }
    };
    let mut first_moves = Vec::new();
    for i in 0..candidates.len() {
        let Some(c) = candidates.get(i) else {
            continue;
        };
        match m.make(&c, &mut walk.log) {
            Status::Committed(_) => {
                if m.finished() {
                    walk.result.finished[0] += 1;
                }
                first_moves.push(i);
                m.unmake(&mut walk.log);
            }
            Status::Failed(e) => walk.failed(e, Some(&c), i as u64 + 1),
            Status::Vetoed { .. } | Status::RolledBack { .. } => {}
        }
    }
    walk.result.counts[0] += first_moves.len() as u64;
    Some((candidates, first_moves))
}

/// Make the legal move `c` (candidate number `i` of its position, at `ply`) again
/// and count below it; or, with `collect`, try the replies to it (counting them as
/// the walk does) and put the legal ones there, by number, to count below later.
fn perft_down(
    m: &mut Match,
    ply: usize,
    i: usize,
    c: Candidate,
    walk: &mut PerftWalk,
    collect: Option<&mut Vec<(usize, Candidate)>>,
) {
    // The same move on the same world commits again (transactions are
    // deterministic); an interruption may still stop it.
    match m.make(&c, &mut walk.log) {
        Status::Committed(_) => {
            walk.enter(i, c);
            perft_from(m, ply + 1, walk, collect);
            walk.leave();
            m.unmake(&mut walk.log);
        }
        Status::Failed(e) => walk.failed(e, Some(&c), i as u64 + 1),
        Status::Vetoed { .. } | Status::RolledBack { .. } => {}
    }
}

/// Count the subtree of `task` (see [`Task`]) into `walk`. A first move stays made in
/// `held`, with what undoes it, while the next tasks are replies to it.
fn perft_task(
    m: &mut Match,
    task: &Task,
    held: &mut Option<(usize, MoveLog)>,
    walk: &mut PerftWalk,
) {
    let (i, c) = &task.first;
    let Some((j, reply)) = &task.reply else {
        release(m, held);
        perft_down(m, 0, *i, c.clone(), walk, None);
        return;
    };
    if held.as_ref().is_some_and(|(h, _)| h != i) {
        release(m, held);
    }
    if held.is_none() {
        let mut log = MoveLog::default();
        match m.make(c, &mut log) {
            Status::Committed(_) => *held = Some((*i, log)),
            Status::Failed(e) => return walk.failed(e, Some(c), *i as u64 + 1),
            Status::Vetoed { .. } | Status::RolledBack { .. } => return,
        }
    }
    walk.enter(*i, c.clone());
    perft_down(m, 1, *j, reply.clone(), walk, None);
    walk.leave();
}

/// Unmake the first move `held` keeps made, if any.
fn release(m: &mut Match, held: &mut Option<(usize, MoveLog)>) {
    if let Some((_, mut log)) = held.take() {
        m.unmake(&mut log);
    }
}

/// Count below the legal first moves on `jobs` threads ([`pool::spread`]): each
/// thread takes the next subtree not yet taken (see [`Task`]), counts it on its own
/// copy of the session and hands the count back here, where the counts are added up
/// in whatever order they come (the sum, and the failures' order, do not depend on
/// it). At least
/// [`SPLIT_AT_REPLIES`] plies deep, the replies to the first moves are tried here
/// first, as the walk tries them, and their subtrees are the threads' tasks. False,
/// with nothing counted, when no thread could be started and nothing is counted yet.
fn perft_spread(
    m: &mut Match,
    jobs: usize,
    candidates: &CandidateItems,
    first_moves: &[usize],
    walk: &mut PerftWalk,
    progress: &mut dyn FnMut(PerftProgress),
) -> bool {
    let total = first_moves.len();
    let depth = walk.result.counts.len();
    // (A profile counts the steps one thread would: the first moves made again for
    // each reply would count more.)
    let replies = depth >= SPLIT_AT_REPLIES && !m.profiling();
    let mut tasks = Vec::new();
    // The tasks below each first move not yet counted (by its place in `first_moves`).
    let mut left = vec![0usize; total];
    for (n, &i) in first_moves.iter().enumerate() {
        let Some(c) = candidates.get(i) else {
            continue;
        };
        if replies {
            let mut found = Vec::new();
            perft_down(m, 0, i, c.clone(), walk, Some(&mut found));
            left[n] = found.len();
            tasks.extend(found.into_iter().map(|r| Task {
                of: n,
                first: (i, c.clone()),
                reply: Some(r),
            }));
        } else {
            left[n] = 1;
            tasks.push(Task {
                of: n,
                first: (i, c),
                reply: None,
            });
        }
    }
    let mut done = 0;
    let mut one_more = |progress: &mut dyn FnMut(PerftProgress)| {
        done += 1;
        progress(PerftProgress { done, total });
    };
    // First moves with nothing below them to count (no reply, or the game over) are
    // done.
    if replies {
        for _ in left.iter().filter(|&&l| l == 0) {
            one_more(progress);
        }
    }
    let spread = pool::spread(
        jobs,
        tasks.len(),
        || {
            // The thread's match and tasks are copies of its own: values stay on
            // the thread that made them (see `value`).
            let copy = m.thread_copy();
            let own: Vec<Task> = tasks.iter().map(Task::private_copy).collect();
            // SAFETY: every candidate of `own` was copied all the way down just now.
            let own = unsafe { Isolated::new(own) };
            move || PerftThread {
                m: copy.into_inner(),
                tasks: own.into_inner(),
                held: None,
            }
        },
        |thread, k| {
            let task = &thread.tasks[k];
            let mut sub = PerftWalk::new(depth);
            perft_task(&mut thread.m, task, &mut thread.held, &mut sub);
            sub.profile = thread.m.take_profile();
            (task.of, sub.into_counted())
        },
        |(of, sub)| {
            walk.absorb(sub);
            left[of] -= 1;
            if left[of] == 0 {
                one_more(progress);
            }
        },
    );
    if spread.is_ok() {
        return true;
    }
    if !replies {
        return false;
    }
    // No thread: the replies, tried already, are counted below here.
    let mut held = None;
    for task in &tasks {
        perft_task(m, task, &mut held, walk);
        left[task.of] -= 1;
        if left[task.of] == 0 {
            one_more(progress);
        }
    }
    release(m, &mut held);
    true
}

/// Count the moves from the current world (at `ply`, below the first), and below
/// them. The moves are made in place, each unmade once its subtree is counted.
fn perft_from(
    m: &mut Match,
    ply: usize,
    walk: &mut PerftWalk,
    mut collect: Option<&mut Vec<(usize, Candidate)>>,
) {
    let depth = walk.result.counts.len();
    if ply == depth || ending(m).is_some() {
        return;
    }
    let candidates = match m.candidates() {
        Ok(c) => c,
        Err(e) => {
            walk.failed(e, None, 0);
            return;
        }
    };
    let deeper = ply + 1 < depth;
    let mut legal = 0;
    for i in 0..candidates.len() {
        let Some(c) = candidates.get(i) else {
            continue;
        };
        match m.make(&c, &mut walk.log) {
            Status::Committed(_) => {
                legal += 1;
                if m.finished() {
                    walk.result.finished[ply] += 1;
                }
                if let Some(found) = collect.as_deref_mut() {
                    found.push((i, c));
                } else if deeper {
                    walk.enter(i, c);
                    perft_from(m, ply + 1, walk, None);
                    walk.leave();
                }
                m.unmake(&mut walk.log);
            }
            Status::Failed(e) => walk.failed(e, Some(&c), i as u64 + 1),
            Status::Vetoed { .. } | Status::RolledBack { .. } => {}
        }
    }
    walk.result.counts[ply] += legal;
}

/// Perft at least this many plies deep is spread over threads by the replies to the first
/// moves (400 subtrees from chess's start instead of 20), so the threads run out of work
/// together and more cores than first moves have some. Shallower, a reply's subtree is
/// too small for making its first move again to be worth it.
pub const SPLIT_AT_REPLIES: usize = 4;

/// A subtree perft counts on a thread: below a legal first move (its number among the
/// first candidates, and the candidate), or below a legal reply to it (the same).
struct Task {
    /// The first move's place among the legal first moves.
    of: usize,
    /// The first move: its number among the first candidates, and the candidate.
    first: (usize, Candidate),
    /// The reply, the same way (`None`: the task is the first move's whole subtree).
    reply: Option<(usize, Candidate)>,
}

/// What a thread counting perft's subtrees holds: its copy of the session, its copies of
/// the tasks, and the first move it keeps made while it counts the replies to it.
struct PerftThread {
    m: Match,
    tasks: Vec<Task>,
    held: Option<(usize, MoveLog)>,
}

/// What a walk counted ([`PerftWalk::into_counted`]).
struct Counted {
    result: Perft,
    first_met: Vec<Place>,
    profile: Option<Profile>,
}

impl Task {
    /// A copy sharing no reference count with this one (see
    /// [`crate::api::Value::private_copy`]).
    fn private_copy(&self) -> Task {
        let (i, c) = &self.first;
        Task {
            of: self.of,
            first: (*i, c.private_copy()),
            reply: self.reply.as_ref().map(|(j, r)| (*j, r.private_copy())),
        }
    }
}

/// A place in perft's walk, as the walk that tries every candidate of a position before
/// going deeper would meet it: a move's number among the candidates of its position on
/// the way there, each with [`GONE_DOWN`] set, then the number of the trial at the
/// position (0: `#actions`, `i + 1`: candidate `i`). Two places compare as that walk
/// meets them: the trials of a position come before everything below it.
type Place = Vec<u64>;

/// Set in a [`Place`]'s numbers of the moves it goes down by.
const GONE_DOWN: u64 = 1 << 32;

/// The state of one perft walk.
struct PerftWalk {
    result: Perft,
    /// The moves leading to the position being counted.
    path: Vec<Candidate>,
    /// Their numbers among the candidates of their positions, with [`GONE_DOWN`] set.
    at: Vec<u64>,
    /// Where each failure of `result` was first met ([`Place`]): the walk goes down from
    /// a legal move before trying the next candidate, so the failures are put in the
    /// order of the walk that tries a position's candidates first.
    first_met: Vec<Place>,
    /// What undoes the moves made on the way to the position.
    log: MoveLog,
    /// The steps a thread that counted a subtree counted by body, when profiling.
    profile: Option<Profile>,
}

impl PerftWalk {
    /// A walk counting `depth` plies.
    fn new(depth: usize) -> PerftWalk {
        PerftWalk {
            result: Perft {
                counts: vec![0; depth],
                finished: vec![0; depth],
                failures: Vec::new(),
            },
            path: Vec::with_capacity(depth),
            at: Vec::with_capacity(depth),
            first_met: Vec::new(),
            log: MoveLog::default(),
            profile: None,
        }
    }

    /// Go down by candidate number `i`, `c`.
    fn enter(&mut self, i: usize, c: Candidate) {
        self.path.push(c);
        self.at.push(GONE_DOWN | i as u64);
    }

    /// Come back up.
    fn leave(&mut self) {
        self.path.pop();
        self.at.pop();
    }

    /// Record `error`, met at trial number `trial` of the position (0: `#actions`, else
    /// the candidate `action`, number `trial - 1`).
    fn failed(&mut self, error: RuntimeError, action: Option<&Candidate>, trial: u64) {
        let here = || self.at.iter().copied().chain(std::iter::once(trial));
        if let Some(k) = self
            .result
            .failures
            .iter()
            .position(|f| same_error(&f.error, &error))
            && !here().lt(self.first_met[k].iter().copied())
        {
            // Met again, not earlier: only counted (nothing is built).
            self.result.failures[k].count += 1;
            return;
        }
        let place = here().collect();
        let failure = PerftFailure {
            error,
            played: self.path.iter().map(Candidate::name).collect(),
            action: action.map(Candidate::name),
            count: 1,
        };
        self.note(place, failure);
    }

    /// Add `failure` (met `failure.count` times, first at `place`): to the same error met
    /// before, which keeps the earlier place in the order of the walk it stands for, or
    /// as a new one.
    fn note(&mut self, place: Place, failure: PerftFailure) {
        let Some(k) = self
            .result
            .failures
            .iter()
            .position(|f| same_error(&f.error, &failure.error))
        else {
            self.first_met.push(place);
            self.result.failures.push(failure);
            return;
        };
        let f = &mut self.result.failures[k];
        let count = f.count + failure.count;
        if place < self.first_met[k] {
            *f = failure;
            self.first_met[k] = place;
        }
        f.count = count;
    }

    /// What the walk counted, to add to another walk ([`PerftWalk::absorb`]) on another
    /// thread: the moves it went down by are all unmade.
    fn into_counted(self) -> Counted {
        Counted {
            result: self.result,
            first_met: self.first_met,
            profile: self.profile,
        }
    }

    /// Add up what another walk, from the same position, counted.
    fn absorb(&mut self, other: Counted) {
        let sum = |a: &mut Vec<u64>, b: Vec<u64>| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        if let Some(p) = other.profile {
            self.profile.get_or_insert_default().merge(&p);
        }
        sum(&mut self.result.counts, other.result.counts);
        sum(&mut self.result.finished, other.result.finished);
        for (place, failure) in other.first_met.into_iter().zip(other.result.failures) {
            self.note(place, failure);
        }
    }

    /// What the walk counted, the failures in the order they were first met.
    fn into_result(self) -> Perft {
        let mut result = self.result;
        let mut failures: Vec<(Place, PerftFailure)> =
            self.first_met.into_iter().zip(result.failures).collect();
        failures.sort_by(|a, b| a.0.cmp(&b.0));
        result.failures = failures.into_iter().map(|(_, f)| f).collect();
        result
    }
}
