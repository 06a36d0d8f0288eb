//! The small loop: calls of small functions (`Op::CallSmall`, see
//! `compile/bytecode/small.rs`) run here, in a loop of a few arms that keeps `ip`, the
//! frame's base and the step count in registers. It works on the machine's own operand
//! stack and frames, laid out as the main loop lays them out, so it can hand over to the
//! main loop at any instruction: it does so at every case it does not take (an
//! instruction not on its list, an operand that is not an integer, an overflow, the depth
//! limit, a step check due soon), with the instruction not yet run and its step not yet
//! counted. Nothing it runs can fail, print, pause or change the world. See
//! `docs/machine.md`, "The small loop".

use crate::compile::bytecode::{Code, CodeId, IntValue, Op, small_targets};
use crate::compile::program::Game;

use super::super::value::Value;
use super::exec::{FAST_OPS, NOT};
use super::fused::{int_value, loop_test};
use super::stack::{discard, overwrite, push_nils_apart};
use super::steps::next_check;
use super::{Context, Frame, Kind, Machine, NO_JP};

/// A bound on the steps a small body counts an instruction while it runs forward. A
/// body runs forward only between its start, the returns to it and its jumps back
/// (`bytecode/small.rs` checks that no other jump goes back), so between them each of its
/// `n` instructions runs at most once, each counting at most 5 steps (`LoopLocalConst`),
/// but for a `SetLocalConst` with the loop test after it, which counts 9 and jumps back:
/// at most `5n + 9` steps, less than `8(n + 1)`, and at least 2 short of the next check
/// when the stretch starts with `room_for`.
const MOST_STEPS: i64 = 8;

/// Whether `left` steps before the next check leave room for running `ops` forward from
/// anywhere: else the small loop hands over, and the main loop makes the check where it
/// falls.
#[inline(always)]
fn room_for(ops: &[Op], left: i64) -> bool {
    left > MOST_STEPS * (ops.len() as i64 + 1)
}

impl Machine {
    /// `Op::CallSmall` of `callee` with `argc` arguments, its step counted (the count in
    /// the meter), `ip` past it, and room for its frame under the depth limit: the call
    /// made as `Op::Call` makes it, and run in the small loop. `true` when it returned
    /// (its value on the stack, the caller's frame on top, where it was), `false` when
    /// the loop handed over part-way (the main loop goes on from the top frame): at once
    /// when a step is pending (the main loop takes it where the frames switch) and when
    /// instructions are being counted (`op-stats`).
    #[inline(never)]
    pub(super) fn call_small(
        &mut self,
        cx: &Context<'_>,
        callee: CodeId,
        argc: u8,
        ip: usize,
    ) -> bool {
        let entry = self.frames.len();
        let code = cx.game.code(callee);
        push_function(&mut self.stack, &mut self.frames, code, callee, argc, ip);
        if cfg!(feature = "op-stats") || self.paused || self.pause_later {
            return false;
        }
        let Some(within) = Within::check(cx.game, callee) else {
            // The main loop runs it.
            return false;
        };
        let room = Room {
            depth: cx.limits.max_depth.saturating_sub(self.jps.len()),
            entry,
        };
        loop {
            let mut left = self.left_to_check();
            let ran = run(&mut self.stack, &mut self.frames, within, room, &mut left);
            self.meter.steps = self.check_at.wrapping_sub(left as u64);
            match ran {
                Ran::Returned => return true,
                Ran::HandedOver => return false,
                Ran::NearCheck => {
                    // A check falls within the stretch about to run. When it is only the
                    // look for an interrupt (not the step budget, nor a profile's) and no
                    // interrupt is asked for, nothing would come of it: the loop goes on
                    // to the one after. Otherwise the main loop makes it where it falls.
                    // (A body too long for the room up to the one after, too.)
                    let max_steps = self.meter.limits.max_steps;
                    let after = next_check(self.check_at, max_steps, self.check_every);
                    let top = self
                        .frames
                        .last()
                        .map_or(&[][..], |f| &cx.game.code(f.code).ops);
                    if self.profile.is_some()
                        || self.check_at > max_steps
                        || !room_for(top, after.wrapping_sub(self.meter.steps) as i64)
                        || cx
                            .interrupt
                            .is_some_and(|i| i.load(std::sync::atomic::Ordering::Relaxed))
                    {
                        return false;
                    }
                    self.check_at = after;
                }
            }
        }
    }
}

/// How a run of the small loop ended.
enum Ran {
    /// The call it was started for returned: its value is on the stack, the caller's
    /// frame on top.
    Returned,
    /// It met what it does not do: the main loop goes on from the top frame.
    HandedOver,
    /// As `HandedOver`, because the next step check may fall within the stretch it was
    /// about to run.
    NearCheck,
}

/// What bounds the small loop's frames: the most it may have (the depth limit less the
/// join points open) and the caller's depth, where it stops.
#[derive(Clone, Copy)]
struct Room {
    depth: usize,
    entry: usize,
}

/// Push the frame of a call of `callee` (compiled as `code`) with its `argc` arguments on
/// `stack`, as `Op::Call` pushes it, the caller to go on at `ip`; the new frame's base.
#[inline(always)]
fn push_function(
    stack: &mut Vec<Value>,
    frames: &mut Vec<Frame>,
    code: &Code,
    callee: CodeId,
    argc: u8,
    ip: usize,
) -> usize {
    let jp = match frames.last_mut() {
        Some(f) => {
            f.ip = ip as u32;
            f.jp
        }
        None => NO_JP,
    };
    let at = stack.len() - argc as usize;
    let extra = (code.locals as usize).saturating_sub(argc as usize);
    if extra > 0 {
        push_nils_apart(stack, extra);
    }
    frames.push(Frame {
        code: callee,
        ip: 0,
        base: at as u32,
        kind: Kind::Function,
        jp,
    });
    at
}

/// Whether every instruction the small loop may go to from one of `ops` is one of them:
/// the last is an end, and from each of the others the next instructions it may go on
/// to (the rest of its fused sequence, at most [`Op::weight`] on) and its jump targets
/// lie within. What makes the loop's fetch without a bounds check sound.
fn within(ops: &[Op]) -> bool {
    let n = ops.len();
    let ends = |op: &Op| matches!(op, Op::End | Op::Return | Op::JumpEnd(_));
    if !ops.last().is_some_and(ends) {
        return false;
    }
    ops.iter().enumerate().all(|(i, &op)| {
        // How far on it may go: nowhere for an end or a jump that always jumps, to its
        // own end for `NilEnd` (which the loop runs as its plain `Nil`), past the rest of
        // its plain sequence for the others.
        let after = match op {
            Op::End | Op::Return | Op::JumpEnd(_) => 0,
            Op::Jump(_) | Op::JumpPop(_) | Op::LoopLocalConst { .. } | Op::LoopLocals { .. } => 0,
            Op::NilEnd => 1,
            op => op.weight() as usize,
        };
        i + after < n && small_targets(op).all(|t| (t as usize) < n)
    })
}

/// A game whose bodies a run of the small loop may go into, from the body it starts in,
/// are all [`within`]: that body and the bodies its `CallSmall`s name, and theirs, up to
/// eight (a run that could reach more is left to the main loop). Only [`Within::check`]
/// makes one, and it borrows the game, so the bodies stay as they were checked.
#[derive(Clone, Copy)]
struct Within<'g>(&'g Game);

impl<'g> Within<'g> {
    fn check(game: &'g Game, entry: CodeId) -> Option<Within<'g>> {
        let mut seen = [entry; 8];
        let (mut found, mut next) = (1, 0);
        while next < found {
            let ops = &game.code(seen[next]).ops;
            next += 1;
            if !within(ops) {
                return None;
            }
            for op in ops {
                if let Op::CallSmall(callee, _) = *op
                    && !seen[..found].contains(&callee)
                {
                    if found == seen.len() {
                        return None;
                    }
                    seen[found] = callee;
                    found += 1;
                }
            }
        }
        Some(Within(game))
    }
}

/// Run the top frame (one of the bodies `within` may go into, called from frame
/// `room.entry - 1`) and the calls it makes, `left` steps before the next check, until
/// it returns to frame `room.entry - 1` or hands over to the main loop (the top frame's
/// `ip` at the instruction to run next). The stack and frames are passed apart from the
/// machine so that the loop keeps their lengths in registers.
fn run(
    stack: &mut Vec<Value>,
    frames: &mut Vec<Frame>,
    within: Within<'_>,
    room: Room,
    left_out: &mut i64,
) -> Ran {
    let Within(game) = within;
    let Some(frame) = frames.last() else {
        return Ran::HandedOver;
    };
    let mut ops: &[Op] = &game.code(frame.code).ops;
    let mut base = frame.base as usize;
    let mut ip = frame.ip as usize;
    let mut left = *left_out;
    // Hand the instruction at `ip - 1`, its step not counted, to the main loop.
    macro_rules! hand_over {
        ($why:expr) => {{
            *left_out = left + 1;
            if let Some(f) = frames.last_mut() {
                f.ip = (ip - 1) as u32;
            }
            return $why;
        }};
        () => {
            hand_over!(Ran::HandedOver)
        };
    }
    // A stretch run forward starts (the body's start, a return to it, a jump back):
    // stop when the next check may fall inside it.
    macro_rules! stretch {
        () => {
            if !room_for(ops, left) {
                // As if the instruction at `ip` had been fetched.
                ip += 1;
                left -= 1;
                hand_over!(Ran::NearCheck)
            }
        };
    }
    stretch!();
    loop {
        // SAFETY: the frames run here are the one `Within::check` started from and those
        // pushed by the `CallSmall`s of the bodies it checked, all of them found `within`
        // on the game it still borrows, so every instruction one of them can go on to is
        // inside it, and `ip` is one: a body's start, the one after a call returning to
        // it (a call is not an end), or one an instruction run here went on to, as
        // `within` checked.
        let op = unsafe { *ops.get_unchecked(ip) };
        ip += 1;
        left -= 1;
        match op {
            Op::Nil => stack.push(Value::Nil),
            Op::Bool(b) => stack.push(Value::bool(b)),
            Op::Int(i) => stack.push(Value::Int(i)),
            Op::Load(slot) => {
                let v = stack[base + slot as usize].clone();
                stack.push(v);
            }
            Op::Store(slot) => {
                let v = stack.last().cloned().unwrap_or_default();
                overwrite(&mut stack[base + slot as usize], v);
            }
            Op::SetLocal(slot) => {
                let v = stack.pop().unwrap_or_default();
                overwrite(&mut stack[base + slot as usize], v);
            }
            Op::Pop => {
                if let Some(v) = stack.pop() {
                    discard(v);
                }
            }
            Op::Jump(t) => {
                let back = t as usize <= ip;
                ip = t as usize;
                if back {
                    stretch!();
                }
            }
            // A function's `TestEnd` is a `JumpIfFalse`: no body follows it.
            Op::JumpIfFalse(t) | Op::TestEnd(t) => {
                let v = stack.pop().unwrap_or_default();
                if !v.truthy() {
                    ip = t as usize;
                }
                discard(v);
            }
            Op::AndJump(t) => {
                if stack.last().is_some_and(|v| !v.truthy()) {
                    ip = t as usize;
                } else if let Some(v) = stack.pop() {
                    discard(v);
                }
            }
            // A function's `AndExit`: no body follows it either.
            Op::AndExit { exit, .. } => {
                if stack.last().is_some_and(|v| !v.truthy()) {
                    left -= 1;
                    // Nil or false: nothing to drop.
                    std::mem::forget(stack.pop());
                    ip = exit as usize;
                } else if let Some(v) = stack.pop() {
                    discard(v);
                }
            }
            Op::OrJump(t) => {
                if stack.last().is_some_and(Value::truthy) {
                    ip = t as usize;
                } else if let Some(v) = stack.pop() {
                    discard(v);
                }
            }
            Op::Builtin(NOT, 1) => {
                if let Some(top) = stack.last_mut() {
                    let r = Value::bool(!top.truthy());
                    overwrite(top, r);
                }
            }
            Op::Builtin(index, 2) => {
                let n = stack.len();
                if let Some(Some(f)) = FAST_OPS.get(index as usize)
                    && let [Value::Int(a), Value::Int(b)] = stack[n - 2..]
                    && let Some(r) = f.apply(a, b)
                {
                    // Both were integers: nothing to drop.
                    std::mem::forget(stack.pop());
                    std::mem::forget(std::mem::replace(&mut stack[n - 2], int_value(r)));
                } else {
                    hand_over!()
                }
            }
            Op::Const { op: f, k } => {
                if let Some(top) = stack.last_mut()
                    && let Value::Int(x) = *top
                    && let Some(r) = f.apply(x, i64::from(k))
                {
                    left -= 1;
                    // An integer is replaced: nothing to drop.
                    std::mem::forget(std::mem::replace(top, int_value(r)));
                    ip += 1;
                } else {
                    hand_over!()
                }
            }
            Op::LocalConst { a, op: f, k } => {
                if let Value::Int(x) = stack[base + a as usize]
                    && let Some(r) = f.apply(x, i64::from(k))
                {
                    left -= 2;
                    stack.push(int_value(r));
                    ip += 2;
                } else {
                    hand_over!()
                }
            }
            Op::Locals { a, b, op: f } => {
                if let (Value::Int(x), Value::Int(y)) =
                    (&stack[base + a as usize], &stack[base + b as usize])
                    && let Some(r) = f.apply(*x, *y)
                {
                    left -= 2;
                    stack.push(int_value(r));
                    ip += 2;
                } else {
                    hand_over!()
                }
            }
            Op::LocalConstJump { a, op: f, k, to } => {
                if let Value::Int(x) = stack[base + a as usize]
                    && let Some(IntValue::Bool(t)) = f.apply(x, i64::from(k))
                {
                    left -= 3;
                    ip = if t { ip + 3 } else { to as usize };
                } else {
                    hand_over!()
                }
            }
            Op::LocalsJump { a, b, op: f, to } => {
                if let (Value::Int(x), Value::Int(y)) =
                    (&stack[base + a as usize], &stack[base + b as usize])
                    && let Some(IntValue::Bool(t)) = f.apply(*x, *y)
                {
                    left -= 3;
                    ip = if t { ip + 3 } else { to as usize };
                } else {
                    hand_over!()
                }
            }
            Op::SetLocalConst { a, dst, op: f, k } => {
                if let Value::Int(x) = stack[base + a as usize]
                    && let Some(r) = f.apply(x, i64::from(k))
                {
                    left -= 3;
                    overwrite(&mut stack[base + dst as usize], int_value(r));
                    ip += 3;
                    // The loop's test after it, as the main loop runs it.
                    if let Some(to) = ops.get(ip).and_then(|&next| loop_test(stack, base, next)) {
                        left -= 5;
                        ip = to as usize;
                        stretch!();
                    }
                } else {
                    hand_over!()
                }
            }
            Op::LoopLocalConst { body, .. } | Op::LoopLocals { body, .. } => {
                if let Some(to) = loop_test(stack, base, op) {
                    left -= 4;
                    ip = to as usize;
                } else {
                    // The plain jump to the test.
                    ip = body as usize - 4;
                }
                stretch!();
            }
            Op::OpJump { op: f, to } => {
                let n = stack.len();
                if let [Value::Int(x), Value::Int(y)] = stack[n - 2..]
                    && let Some(IntValue::Bool(t)) = f.apply(x, y)
                {
                    left -= 1;
                    // Two integers: nothing to drop.
                    std::mem::forget(stack.pop());
                    std::mem::forget(stack.pop());
                    ip = if t { ip + 1 } else { to as usize };
                } else {
                    hand_over!()
                }
            }
            Op::NilPop => {
                left -= 1;
                ip += 1;
            }
            // The `End` after it follows.
            Op::NilEnd => stack.push(Value::Nil),
            Op::JumpPop(to) => {
                left -= 1;
                if let Some(v) = stack.pop() {
                    discard(v);
                }
                ip = to as usize + 1;
            }
            Op::CallSmall(callee, argc) => {
                if frames.len() >= room.depth {
                    // The main loop reports it.
                    hand_over!()
                }
                let callee_code = game.code(callee);
                base = push_function(stack, frames, callee_code, callee, argc, ip);
                ops = &callee_code.ops;
                ip = 0;
                stretch!();
            }
            // Every frame here is a function's: its end, as the main loop ends it.
            Op::Return | Op::End | Op::JumpEnd(_) => {
                if matches!(op, Op::JumpEnd(_)) {
                    left -= 1;
                }
                frames.pop();
                let len = stack.len();
                if len > base + 1 {
                    let first = stack.swap_remove(base);
                    stack.truncate(base + 1);
                    Value::release(first);
                } else if len <= base {
                    stack.truncate(base);
                    stack.push(Value::Nil);
                }
                let Some(caller) = frames.last().filter(|_| frames.len() > room.entry) else {
                    *left_out = left;
                    return Ran::Returned;
                };
                ops = &game.code(caller.code).ops;
                base = caller.base as usize;
                ip = caller.ip as usize;
                stretch!();
            }
            _ => hand_over!(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::within;
    use crate::compile::bytecode::{IntOp, Op};

    #[test]
    fn within_takes_a_body_whose_every_way_stays_inside_it() {
        let fib = [
            Op::LocalConstJump {
                a: 0,
                op: IntOp::Lt,
                k: 2,
                to: 6,
            },
            Op::Const {
                op: IntOp::Lt,
                k: 2,
            },
            Op::OpJump {
                op: IntOp::Lt,
                to: 6,
            },
            Op::JumpIfFalse(6),
            Op::Load(0),
            Op::JumpEnd(7),
            Op::Load(0),
            Op::End,
        ];
        assert!(within(&fib));
        // A body ending with `(if ...)` and no else: its `NilEnd` goes on to its own end.
        assert!(within(&[
            Op::Load(0),
            Op::TestEnd(3),
            Op::JumpEnd(4),
            Op::NilEnd,
            Op::End
        ]));
        // A jump past the end, a body that does not end with an end, a fused instruction
        // whose plain sequence would run past the end, a loop whose plain jump would go
        // before the start, an empty body.
        let mut far = fib;
        far[3] = Op::JumpIfFalse(8);
        assert!(!within(&far));
        assert!(!within(&fib[..7]));
        assert!(!within(&[
            Op::LocalConst {
                a: 0,
                op: IntOp::Sub,
                k: 1
            },
            Op::End
        ]));
        assert!(!within(&[
            Op::LoopLocals {
                a: 0,
                b: 1,
                op: IntOp::Lt,
                exit: 1,
                body: 0
            },
            Op::End
        ]));
        assert!(!within(&[]));
        assert!(!within(&[Op::JumpPop(1), Op::End]));
    }
}
