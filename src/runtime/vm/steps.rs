//! Counting steps: when the instruction loop next stops to check the step budget, an
//! interrupt or (when profiling) where the steps go, and that check.

use super::super::trace::RuntimeError;
use super::{Context, Machine};

/// The step count at which the machine next stops to check: the first multiple of
/// `every + 1` after `steps` (65,536 with [`CHECK_EVERY`], to look for an interrupt; the
/// next step with 0, when profiling), or the first step past the budget.
#[inline]
pub(super) fn next_check(steps: u64, max_steps: u64, every: u64) -> u64 {
    ((steps | every).saturating_add(1)).min(max_steps.saturating_add(1))
}

/// What [`next_check`] rounds the step count up to, less one: checks every 65,536 steps
/// (defined with the profile, which counts the transactions that would meet a check).
pub(super) use super::super::profile::CHECK_EVERY;

impl Machine {
    /// The steps left before the instruction loop's next check, due at step
    /// [`Machine::check_at`]: zero or less when the count has reached it (a builtin may
    /// count past it), so the check is due at the next instruction and `check_at - left`
    /// is still the count.
    #[inline(always)]
    pub(super) fn left_to_check(&self) -> i64 {
        self.check_at.wrapping_sub(self.meter.steps) as i64
    }

    /// The instruction loop's check, due (the count is in the meter) after instruction
    /// `at` of `code`: the step budget, then an interrupt; the steps left before the next
    /// one. Out of line, so the loop keeps none of what it reads in registers.
    #[inline(never)]
    pub(super) fn step_check(
        &mut self,
        cx: &Context<'_>,
        code: &crate::compile::bytecode::Code,
        at: usize,
    ) -> Result<i64, RuntimeError> {
        let steps = self.meter.steps;
        let max_steps = self.meter.limits.max_steps;
        if let Some(p) = &mut self.profile
            && let Some(f) = self.frames.last()
        {
            p.charge(steps, f.code, (self.frames.len(), f.base), at);
            p.depth(self.jps.len(), self.frames.len());
        }
        let span = code.spans[at];
        if steps > max_steps {
            let e = self.meter.step_error();
            return Err(self.builtin_error(span, e));
        }
        if cx
            .interrupt
            .is_some_and(|i| i.swap(false, std::sync::atomic::Ordering::Relaxed))
        {
            return Err(self.error(span, "interrupted"));
        }
        self.check_at = next_check(steps, max_steps, self.check_every);
        Ok(self.left_to_check())
    }
}
