//! The threads the play layer spreads its work over: numbered tasks, each thread with its
//! own state (a fork of a session), taking the next task not yet taken until none is left.
//!
//! Perft's subtrees and a run's games both go through [`spread`]. What a task gives comes
//! back to the calling thread in whatever order the tasks end, so what is made of it must
//! not depend on that order (counts add up; the first error is the one with the smallest
//! number): the results are then the same with any number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Do tasks `0..tasks` on up to `jobs` threads. For each thread, `hire` gives here, on
/// this thread, what makes on that thread what it holds while it works (from a copy of a
/// match: values stay on the thread that made them, see [`crate::api::Isolated`]); the
/// thread takes the next task not yet taken and does it with `work`, until none is left.
/// What `work` gives for a task is handed to `take` here, as tasks end.
///
/// The threads that did start do every task between them. The error is the one met
/// starting the first thread, when none could be started: then no task was done.
pub fn spread<T, R: Send, H: FnOnce() -> T + Send>(
    jobs: usize,
    tasks: usize,
    mut hire: impl FnMut() -> H,
    work: impl Fn(&mut T, usize) -> R + Sync,
    mut take: impl FnMut(R),
) -> std::io::Result<()> {
    let next = AtomicUsize::new(0);
    let (next, work) = (&next, &work);
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut started = 0;
        for _ in 0..jobs.min(tasks) {
            let tx = tx.clone();
            let hired = hire();
            let thread = std::thread::Builder::new().spawn_scoped(scope, move || {
                let mut held = hired();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= tasks || tx.send(work(&mut held, k)).is_err() {
                        break;
                    }
                }
            });
            match thread {
                Ok(_) => started += 1,
                Err(e) if started == 0 => return Err(e),
                Err(_) => break,
            }
        }
        drop(tx);
        for result in rx {
            take(result);
        }
        Ok(())
    })
}
