//! The instruction loop: [`Machine::exec`] runs the top frame's instructions, the common
//! ones (and the fast cases of the fused ones) in its own loop, keeping what they use in
//! registers, until the frames change, the transaction ends or it waits.

use crate::compile::bytecode::{IntOp, IntValue, Op, Read, builtin_of};
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::budget::{equal_in_step, is_collection};
use super::super::builtins::{ascii_name, contains_letter, pure_fn, read_fast};
use super::super::trace::{RuntimeError, Status};
use super::super::value::{Key, Value};
use super::exec_other::Next;
use super::fused::{int_value, loop_test};
use super::place::Pc;
use super::sends::NextBody;
use super::stack::{
    discard, local, local_mut, overwrite, pop_verified, push_in_room, push_nils_apart,
    renew_locals, reserve_room, top, top_mut,
};
use super::steps::next_check;
use super::{Context, Flow, Frame, Kind, Machine, NO_JP, fast};

/// The integer operator of each of the first builtins (arithmetic and comparison), by
/// index: the instruction loop's fast path for two integers (`/` has none: its result may
/// be a float). Checked by a test against [`IntOp::of_builtin`].
pub(super) const FAST_OPS: [Option<IntOp>; 12] = [
    Some(IntOp::Add),
    Some(IntOp::Sub),
    Some(IntOp::Mul),
    None,
    Some(IntOp::Rem),
    Some(IntOp::Eq),
    Some(IntOp::Eq),
    Some(IntOp::Ne),
    Some(IntOp::Lt),
    Some(IntOp::Gt),
    Some(IntOp::Le),
    Some(IntOp::Ge),
];

use crate::compile::builtins::index as builtin_index;

/// The index of `not` (the instruction loop answers it itself).
pub(super) const NOT: u16 = builtin_index("not");

/// The index of `lower` (the instruction loop answers it itself for a one-character
/// name).
pub(super) const LOWER: u16 = builtin_index("lower");

/// The index of `contains` (the instruction loop answers it itself for a one-character
/// name in a string).
pub(super) const CONTAINS: u16 = builtin_index("contains");

/// The index of `append` (the instruction loop pushes onto a property's list where it
/// lies when the form that writes the property back follows).
pub(super) const APPEND: u16 = builtin_index("append");
pub(super) const PUT: u16 = builtin_index("put");

/// The indices of `first` and `last` (the instruction loop answers them itself for a
/// list).
pub(super) const FIRST: u16 = builtin_index("first");
pub(super) const LAST: u16 = builtin_index("last");

impl Machine {
    /// The frames above [`Machine::floor`] finished, their value on the stack: the end
    /// of the transaction (no floor), or the value of the join point the fast tier asked
    /// the loop to run.
    #[cold]
    fn ended(&mut self) -> Flow {
        let v = self.stack.pop().unwrap_or_default();
        if self.floor == 0 {
            Flow::End(Status::Committed(v))
        } else {
            Flow::Value(v)
        }
    }

    pub(super) fn exec(&mut self, cx: &mut Context<'_>) -> Result<Flow, RuntimeError> {
        let game = cx.game;
        'frames: loop {
            if self.pause_later {
                self.pause_later = false;
            } else if self.paused {
                self.paused = false;
                return Ok(Flow::Enter);
            }
            if self.frames.len() <= self.floor {
                return Ok(self.ended());
            }
            let frame = &self.frames[self.frames.len() - 1];
            let body = frame.code;
            let mut code = game.code(body);
            let mut base = frame.base as usize;
            let start = frame.ip as usize;
            let mut pc = Pc::at(code, start);
            // The body's verified room, for the loop's unchecked pushes (see `stack.rs`):
            // reserved from here, wherever in the body it resumes, as from each frame's
            // start below (a call, the next body of a chain). The frames under this one
            // reserved theirs when they ran, and the stack never shrinks meanwhile.
            reserve_room(&mut self.stack, code.room);
            // How many steps are left before the next check (`left`), which is due at
            // step `self.check_at`: past the budget, or a multiple of 65,536, to look for
            // an interrupt. While the loop runs the step count is `check_at - left`: each
            // instruction takes one from `left` and compares it with zero, and the check
            // itself is out of line (`step_check`), so the loop keeps only `left` in a
            // register. The count is written back to the meter before anything that reads
            // or charges it (builtins, forms, errors, leaving the loop) and read again
            // after.
            self.check_at = next_check(
                self.meter.steps,
                self.meter.limits.max_steps,
                self.check_every,
            );
            // A body starting, on the fast tier when it has a fast form: it runs to its
            // end (or its `return`), and the loop goes on at that instruction.
            let table = cx.fast;
            if self.fast
                && start == 0
                && let Some(fast) = table.get(body)
                && fast.entered
                && self.fast_on(cx)
                && fast.ready()
            {
                match self.run_fast(cx, fast, base) {
                    // (The fast tier keeps its own stack discipline: its results are
                    // pushed with the capacity checked.)
                    fast::Ended::Value(v) => {
                        self.stack.push(v);
                        pc = Pc::at(code, code.ops.len() - 1);
                        debug_assert_eq!(*pc.op(code), Op::End);
                    }
                    fast::Ended::Return(v) => {
                        self.stack.push(v);
                        // The `return` counted its step: the loop counts it again.
                        self.meter.steps -= 1;
                        pc = Pc::at(code, fast.return_at as usize);
                    }
                    fast::Ended::Stop(flow) => return Ok(flow),
                }
                if let Some(f) = self.frames.last_mut() {
                    f.ip = pc.index(code) as u32;
                }
            }
            let mut left = self.left_to_check();
            // The step count, written back to the meter.
            macro_rules! sync {
                () => {
                    self.meter.steps = self.check_at.wrapping_sub(left as u64)
                };
            }
            // The step count read again from the meter, after something that may have
            // charged it.
            macro_rules! resync {
                () => {
                    left = self.left_to_check()
                };
            }
            macro_rules! out {
                ($e:expr) => {{
                    sync!();
                    let r = $e;
                    resync!();
                    r
                }};
            }
            loop {
                debug_assert!(
                    self.stack.len() >= base + code.locals as usize,
                    "the operand stack below the locals"
                );
                // Every place the loop goes to, from the body's start or one of its
                // instructions, is one of them: `verify` proved it of every edge
                // (compile/bytecode/verify.rs); a frame's saved place is one such.
                let op = pc.op(code);
                #[cfg(feature = "op-stats")]
                super::super::opstats::count(
                    op,
                    self.frames.last().map_or("top", |f| f.kind.label()),
                );
                pc = pc.skip(1);
                left -= 1;
                if left <= 0 {
                    sync!();
                    left = self.step_check(cx, code, pc.index(code) - 1)?;
                }
                // A fused instruction whose fast case does not apply runs the first plain
                // instruction of its sequence instead (its step is already counted), and
                // the rest of the sequence follows.
                macro_rules! load {
                    ($a:expr) => {{
                        let v = local(&self.stack, base, $a).clone();
                        push_in_room(&mut self.stack, v);
                    }};
                }
                // Whether the `extra` steps of a fused instruction beyond its first stay
                // short of the next check (else its plain sequence must run, so the check
                // happens at the very instruction it would have happened at).
                macro_rules! room {
                    ($extra:expr) => {
                        left > ($extra) as i64
                    };
                }
                // The frame of the body `next_body` found takes the place of the one
                // that ended, and the loop goes on in it.
                macro_rules! start_next {
                    ($next:expr) => {{
                        let NextBody {
                            code: next,
                            kind,
                            base: at,
                        } = $next;
                        // The ended body's frame becomes the next one's (same base, same
                        // join point), and its locals start nil where the ended one's were.
                        let callee = game.code(next);
                        renew_locals(&mut self.stack, at as usize, callee.locals as usize);
                        reserve_room(&mut self.stack, callee.room);
                        if let Some(f) = self.frames.last_mut() {
                            f.code = next;
                            f.ip = 0;
                            f.kind = kind;
                        }
                        code = callee;
                        base = at as usize;
                        pc = Pc::at(code, 0);
                    }};
                }
                // A `foreach`'s next element into slot `var` (the list and the position
                // on top of the stack), or the loop left for `exit` when there is none;
                // `pc` is past the `IterNext`, whose span an error has.
                macro_rules! iter_next {
                    ($var:expr, $exit:expr) => {{
                        let n = self.stack.len();
                        let (Value::List(list), Value::Int(i)) =
                            (top(&self.stack, 1), top(&self.stack, 0))
                        else {
                            sync!();
                            return Err(self.error(
                                code.spans[pc.index(code) - 1],
                                "internal: loop state lost",
                            ));
                        };
                        let i = *i as usize;
                        match list.get(i) {
                            Some(item) => {
                                let item = item.clone();
                                // An integer over an integer: nothing to drop.
                                std::mem::forget(std::mem::replace(
                                    top_mut(&mut self.stack, 0),
                                    Value::Int(i as i64 + 1),
                                ));
                                overwrite(local_mut(&mut self.stack, base, $var), item);
                            }
                            None => {
                                self.stack.truncate(n - 2);
                                pc = Pc::at(code, $exit as usize);
                            }
                        }
                    }};
                }
                // A fused collection read of the collection in local `c` with `key` (and
                // `default`), `extra` steps beyond its first: the value read, or the
                // sequence's first plain instruction.
                macro_rules! fused_read {
                    ($c:expr, $read:expr, $key:expr, $default:expr, $extra:expr) => {{
                        if room!($extra)
                            && let Some(v) =
                                read_fast($read, local(&self.stack, base, $c), $key, $default)
                        {
                            left -= ($extra) as i64;
                            push_in_room(&mut self.stack, v);
                            pc = pc.skip($extra);
                        } else {
                            load!($c)
                        }
                    }};
                }
                match *op {
                    Op::Nil => push_in_room(&mut self.stack, Value::Nil),
                    Op::Bool(b) => push_in_room(&mut self.stack, Value::bool(b)),
                    Op::Int(i) => push_in_room(&mut self.stack, Value::Int(i)),
                    Op::Float(x) => push_in_room(&mut self.stack, Value::float(x)),
                    Op::Str(s) => push_in_room(&mut self.stack, Value::sym(s)),
                    Op::Load(slot) => {
                        let v = local(&self.stack, base, slot).clone();
                        push_in_room(&mut self.stack, v);
                    }
                    Op::Store(slot) => {
                        let v = top(&self.stack, 0).clone();
                        overwrite(local_mut(&mut self.stack, base, slot), v);
                    }
                    Op::Take(slot) => {
                        let v = std::mem::take(local_mut(&mut self.stack, base, slot));
                        push_in_room(&mut self.stack, v);
                    }
                    Op::SetLocal(slot) => {
                        let v = pop_verified(&mut self.stack);
                        overwrite(local_mut(&mut self.stack, base, slot), v);
                    }
                    Op::Pop => discard(pop_verified(&mut self.stack)),
                    Op::Jump(t) => pc = Pc::at(code, t as usize),
                    Op::JumpIfFalse(t) => {
                        let v = pop_verified(&mut self.stack);
                        if !v.truthy() {
                            pc = Pc::at(code, t as usize);
                        }
                        discard(v);
                    }
                    Op::AndJump(t) => {
                        if !top(&self.stack, 0).truthy() {
                            pc = Pc::at(code, t as usize);
                        } else {
                            discard(pop_verified(&mut self.stack));
                        }
                    }
                    Op::AndExit { to, exit, ends } => {
                        if !top(&self.stack, 0).truthy() {
                            if ends
                                && room!(3)
                                && let Some(next) = self.next_body(cx, false)
                            {
                                // The `if` that ends a law or side-effect is false: the
                                // next body starts (the value, nil or false, is left to
                                // the frame's end).
                                left -= 3;
                                start_next!(next)
                            } else if room!(1) {
                                left -= 1;
                                // Nil or false: nothing to drop.
                                self.stack.pop();
                                pc = Pc::at(code, exit as usize);
                            } else {
                                pc = Pc::at(code, to as usize);
                            }
                        } else {
                            discard(pop_verified(&mut self.stack));
                        }
                    }
                    Op::OrJump(t) => {
                        if top(&self.stack, 0).truthy() {
                            pc = Pc::at(code, t as usize);
                        } else {
                            discard(pop_verified(&mut self.stack));
                        }
                    }
                    Op::Builtin(index, 2)
                        if (index as usize) < FAST_OPS.len()
                            && matches!(
                                (top(&self.stack, 1), top(&self.stack, 0)),
                                (Value::Int(_), Value::Int(_))
                            ) =>
                    {
                        // Two integers: the commonest case of arithmetic and comparison,
                        // done in place. Overflow and division go the general way.
                        let n = self.stack.len();
                        let (Value::Int(a), Value::Int(b)) =
                            (top(&self.stack, 1), top(&self.stack, 0))
                        else {
                            unreachable!("matched above")
                        };
                        let (a, b) = (*a, *b);
                        let r = FAST_OPS[index as usize]
                            .and_then(|f| f.apply(a, b))
                            .map(int_value);
                        match r {
                            Some(v) => {
                                // Both were integers: nothing to drop.
                                std::mem::forget(pop_verified(&mut self.stack));
                                std::mem::forget(std::mem::replace(top_mut(&mut self.stack, 0), v));
                            }
                            None => {
                                let f = pure_fn(index as usize);
                                let result = match f {
                                    Some(f) => out!(f(&mut self.stack[n - 2..], &mut self.meter))
                                        .map_err(|e| {
                                        self.builtin_error(code.spans[pc.index(code) - 1], e)
                                    })?,
                                    None => Value::Nil,
                                };
                                self.stack.truncate(n - 2);
                                push_in_room(&mut self.stack, result);
                            }
                        }
                    }
                    Op::Builtin(index, 2)
                        if matches!(
                            FAST_OPS.get(index as usize),
                            Some(Some(IntOp::Eq | IntOp::Ne))
                        ) && let Some(same) =
                            equal_in_step(top(&self.stack, 1), top(&self.stack, 0)) =>
                    {
                        // `=` and `!=` whose first value is not a collection (a name,
                        // nil, a boolean, a number, a string not long enough to count):
                        // what the builtin would answer, in one step with nothing to meter.
                        let b = pop_verified(&mut self.stack);
                        let r = same == matches!(FAST_OPS[index as usize], Some(IntOp::Eq));
                        discard(b);
                        overwrite(top_mut(&mut self.stack, 0), Value::bool(r));
                    }
                    Op::Builtin(NOT, 1) => {
                        // `not`: what the builtin answers, in place.
                        let top = top_mut(&mut self.stack, 0);
                        let r = Value::bool(!top.truthy());
                        overwrite(top, r);
                    }
                    Op::Builtin(index @ (FIRST | LAST), 1)
                        if matches!(top(&self.stack, 0), Value::List(_)) =>
                    {
                        // The first or last element of a list (nil when it is empty): what
                        // the builtin answers (it counts nothing), without the call.
                        if let Some(top) = self.stack.last_mut() {
                            let v = match &*top {
                                Value::List(l) if index == FIRST => l.front().cloned(),
                                Value::List(l) => l.back().cloned(),
                                _ => None,
                            };
                            overwrite(top, v.unwrap_or_default());
                        }
                    }
                    Op::Builtin(LOWER, 1)
                        if room!(1)
                            && self.stack.last().and_then(ascii_name).is_some_and(|b| {
                                !b.is_ascii_uppercase()
                                    || self.meter.memory < self.meter.limits.max_memory
                            }) =>
                    {
                        // `lower` of a one-character name (a piece letter): what the
                        // builtin answers, counted as it counts (one step of work, short of
                        // the next check, and a byte of memory when the case changes, which
                        // the guard saw fit), without the call.
                        left -= 1;
                        if let Some(top) = self.stack.last_mut()
                            && let Some(b) = ascii_name(top)
                            && b.is_ascii_uppercase()
                        {
                            self.meter.memory += 1;
                            let lower = Symbol::from_id(u32::from(b.to_ascii_lowercase()));
                            overwrite(top, Value::sym(lower));
                        }
                    }
                    Op::Builtin(CONTAINS, 2) => {
                        // A one-character name in a string (a piece letter in "KQRBNP"):
                        // what the builtin answers, its work (the string's length) counted
                        // when it stays short of the next check, without the call; anything
                        // else calls the builtin.
                        match contains_letter(top(&self.stack, 1), top(&self.stack, 0))
                            .filter(|&(len, _)| room!(len))
                        {
                            Some((len, found)) => {
                                left -= len as i64;
                                discard(pop_verified(&mut self.stack));
                                overwrite(top_mut(&mut self.stack, 0), Value::bool(found));
                            }
                            None => {
                                if let Some(f) = pure_fn(CONTAINS as usize)
                                    && let Err(e) = out!(self.call_pure(f, 2))
                                {
                                    sync!();
                                    return Err(
                                        self.builtin_error(code.spans[pc.index(code) - 1], e)
                                    );
                                }
                            }
                        }
                    }
                    // `(update property "p" to (append (property "p") x))`: pushed
                    // where it lies, the form's step counted (else the two plain ones).
                    Op::Builtin(APPEND, 2)
                        if room!(1)
                            && matches!(
                                code.ops.get(pc.index(code)),
                                Some(Op::Form(FormOp::UpdateProperty, 0))
                            )
                            && out!(self.append_own_here(cx)) =>
                    {
                        left -= 1;
                        pc = pc.skip(1);
                    }
                    // `(update property "p" to (put (property "p") i v))`: the element
                    // replaced where the list lies, the form's step counted.
                    Op::Builtin(PUT, 3)
                        if room!(1)
                            && matches!(
                                code.ops.get(pc.index(code)),
                                Some(Op::Form(FormOp::UpdateProperty, 0))
                            )
                            && out!(self.put_own_here(cx)) =>
                    {
                        left -= 1;
                        pc = pc.skip(1);
                    }
                    Op::Builtin(index, argc) => match pure_fn(index as usize) {
                        Some(f) => {
                            if let Err(e) = out!(self.call_pure(f, argc)) {
                                sync!();
                                return Err(self.builtin_error(code.spans[pc.index(code) - 1], e));
                            }
                        }
                        None => out!(self.call_builtin(cx, index, argc, code, pc.index(code)))?,
                    },
                    // A list to iterate stays where it is, its position after it (a
                    // dictionary, nil or an error goes the general way).
                    Op::IterStart if matches!(top(&self.stack, 0), Value::List(_)) => {
                        push_in_room(&mut self.stack, Value::Int(0))
                    }
                    Op::IterNext { var, exit } => iter_next!(var, exit),
                    // The end of a `foreach` body takes the next element at once.
                    Op::IterLoop { to, var, exit } => {
                        if room!(1) {
                            left -= 1;
                            pc = Pc::at(code, to as usize + 1);
                            iter_next!(var, exit)
                        } else {
                            pc = Pc::at(code, to as usize);
                        }
                    }
                    // A property of the layout of the entity running, read where it lies;
                    // anything else (a representation, a property made at run time, a
                    // missing one) the general way.
                    Op::Property(name) if let Some(v) = self.own_layout_property(game, name) => {
                        let v = v.clone();
                        push_in_room(&mut self.stack, v);
                    }
                    Op::Property(name) => {
                        let span = code.spans[pc.index(code) - 1];
                        let v = match self.me() {
                            Some((id, _)) => out!(self.own_property(cx, id, name, span))?,
                            None => {
                                sync!();
                                return Err(self.no_entity(span, "(property <name> of <entity>)"));
                            }
                        };
                        push_in_room(&mut self.stack, v);
                    }
                    // `(state of e)` of an entity the game started with, read in line
                    // as a property is (any other name takes the form, for its lookup's
                    // count and its errors).
                    Op::Form(FormOp::StateOf, 0)
                        if let Some(state) =
                            self.stack.last().and_then(|v| self.fixed_state(v)) =>
                    {
                        if let Some(top) = self.stack.last_mut() {
                            overwrite(top, Value::sym(state));
                        }
                    }
                    // The commonest write, `(update property "p" to v)` of the running
                    // entity, done where it lies (out of line); the form otherwise.
                    Op::Form(FormOp::UpdateProperty, 0) if self.update_own_property_here(cx) => {}
                    Op::Form(FormOp::ChangeState, 0) if self.change_own_state_here(cx) => {}
                    Op::PutAdd { .. } | Op::PutLocal { .. }
                        if out!(self.fused_update(*op, base)) =>
                    {
                        pc = pc.skip((op.weight() - 1) as usize)
                    }
                    Op::PropertyOf(name) => {
                        let entity = pop_verified(&mut self.stack);
                        let v = out!(self.property_of(
                            cx,
                            &entity,
                            name,
                            code.spans[pc.index(code) - 1]
                        ))?;
                        push_in_room(&mut self.stack, v);
                    }
                    Op::Attribute(key) => {
                        let v = match self.current_jp() {
                            Some(jp) => jp
                                .msg
                                .attrs
                                .get(&Key::sym(key))
                                .cloned()
                                .unwrap_or_default(),
                            None => {
                                sync!();
                                return Err(self.no_message(code.spans[pc.index(code) - 1]));
                            }
                        };
                        push_in_room(&mut self.stack, v);
                    }
                    Op::Hole => push_in_room(&mut self.stack, Value::Nil),
                    // Calling a #define function and returning from one switch frames
                    // here, without going round the outer loop, unless a step is pending:
                    // neither can end the transaction.
                    Op::Call(callee_id, argc) => {
                        // Frames are only ever pushed under a running frame, so there is
                        // always a caller here: it keeps where to come back to.
                        let jp = match self.frames.last_mut() {
                            Some(f) => {
                                f.ip = pc.index(code) as u32;
                                f.jp
                            }
                            None => NO_JP,
                        };
                        if self.frames.len() + self.jps.len() >= cx.limits.max_depth {
                            sync!();
                            return Err(self.depth_error(code.spans[pc.index(code) - 1], cx.limits));
                        }
                        let callee = game.code(callee_id);
                        let at = self.stack.len() - argc as usize;
                        let table = cx.fast;
                        if self.fast
                            && let Some(fast) = table.get(callee_id)
                            && self.fast_on(cx)
                            && fast.ready()
                        {
                            sync!();
                            match self.call_fast(cx, callee_id, fast, at) {
                                Ok(v) => self.stack.push(v),
                                Err(flow) => return Ok(flow),
                            }
                            resync!();
                            continue;
                        }
                        // The parameters are the arguments: only the other locals start nil.
                        let extra = (callee.locals as usize).saturating_sub(argc as usize);
                        if extra > 0 {
                            push_nils_apart(&mut self.stack, extra);
                        }
                        reserve_room(&mut self.stack, callee.room);
                        self.frames.push(Frame {
                            code: callee_id,
                            ip: 0,
                            base: at as u32,
                            kind: Kind::Function,
                            jp,
                        });
                        if self.paused | self.pause_later {
                            // A step is pending (from a form before the call): it is
                            // taken where the frames switch, as for any other frame.
                            sync!();
                            continue 'frames;
                        }
                        code = callee;
                        base = at;
                        pc = Pc::at(code, 0);
                    }
                    // A function's frame always has its caller's below it (only `Op::Call`
                    // pushes one), so leaving it never ends the transaction.
                    // `JumpEnd` counts its jump's step too, and only when that step stays
                    // short of the next check, as a fused instruction does.
                    Op::Return | Op::End | Op::JumpEnd(_)
                        if self.frames.last().is_some_and(|f| f.kind == Kind::Function)
                            && (!matches!(op, Op::JumpEnd(_)) || room!(1)) =>
                    {
                        debug_assert!(self.frames.len() >= 2, "a function frame has a caller");
                        if let Op::JumpEnd(to) = *op {
                            debug_assert!(code.ops.get(to as usize) == Some(&Op::End));
                            left -= 1;
                        }
                        self.frames.pop();
                        // The value on top takes the place of the first local (or
                        // argument), and the rest go: the commonest case, one parameter,
                        // drops just it, inline, where `truncate` calls the general drop.
                        let len = self.stack.len();
                        debug_assert!(len > base, "a body leaves its value above its locals");
                        if len > base + 1 {
                            let first = self.stack.swap_remove(base);
                            self.stack.truncate(base + 1);
                            Value::release(first);
                        } else if len <= base {
                            // The body left nothing above its locals (no body does).
                            self.stack.truncate(base);
                            self.stack.push(Value::Nil);
                        }
                        if self.paused | self.pause_later {
                            sync!();
                            continue 'frames;
                        }
                        let Some(caller) = self.frames.last() else {
                            sync!();
                            continue 'frames;
                        };
                        code = game.code(caller.code);
                        base = caller.base as usize;
                        pc = Pc::at(code, caller.ip as usize);
                    }
                    // The end of a law or side-effect body (not a `return`, which in a
                    // law vetoes) that is not the last of its join point's chain: the
                    // next one starts here (see `Machine::next_body`).
                    Op::End | Op::NilEnd
                        if (matches!(op, Op::End) || room!(1))
                            && let Some(next) = self.next_body(cx, matches!(op, Op::End)) =>
                    {
                        if matches!(op, Op::NilEnd) {
                            left -= 1;
                        }
                        start_next!(next)
                    }
                    // `(if c ...)` ending such a body: a false test ends it at once.
                    Op::TestEnd(to) => {
                        let v = pop_verified(&mut self.stack);
                        let go_on = v.truthy();
                        discard(v);
                        if !go_on {
                            if room!(2)
                                && let Some(next) = self.next_body(cx, false)
                            {
                                left -= 2;
                                start_next!(next)
                            } else {
                                pc = Pc::at(code, to as usize);
                            }
                        }
                    }
                    Op::NilEnd => push_in_room(&mut self.stack, Value::Nil),
                    Op::LocalConst { a, op: f, k } => {
                        if let Value::Int(x) = local(&self.stack, base, a)
                            && let Some(r) = f.apply(*x, i64::from(k))
                            && room!(2)
                        {
                            left -= 2;
                            push_in_room(&mut self.stack, int_value(r));
                            pc = pc.skip(2);
                        } else {
                            load!(a)
                        }
                    }
                    Op::Locals { a, b, op: f } => {
                        if let (Value::Int(x), Value::Int(y)) =
                            (local(&self.stack, base, a), local(&self.stack, base, b))
                            && let Some(r) = f.apply(*x, *y)
                            && room!(2)
                        {
                            left -= 2;
                            push_in_room(&mut self.stack, int_value(r));
                            pc = pc.skip(2);
                        } else {
                            load!(a)
                        }
                    }
                    Op::Const { op: f, k } => {
                        if let Value::Int(x) = *top(&self.stack, 0)
                            && let Some(r) = f.apply(x, i64::from(k))
                            && room!(1)
                        {
                            left -= 1;
                            // An integer is replaced: nothing to drop.
                            let top = top_mut(&mut self.stack, 0);
                            std::mem::forget(std::mem::replace(top, int_value(r)));
                            pc = pc.skip(1);
                        } else {
                            push_in_room(&mut self.stack, Value::Int(i64::from(k)))
                        }
                    }
                    Op::SetLocalConst { a, dst, op: f, k } => {
                        if let Value::Int(x) = local(&self.stack, base, a)
                            && let Some(r) = f.apply(*x, i64::from(k))
                            && room!(3)
                        {
                            left -= 3;
                            let slot = local_mut(&mut self.stack, base, dst);
                            match (slot, r) {
                                // An integer over an integer (`(var i (+ i 1))`): nothing
                                // to drop.
                                (Value::Int(old), IntValue::Int(new)) => *old = new,
                                (slot, r) => overwrite(slot, int_value(r)),
                            }
                            pc = pc.skip(3);
                            // A loop's body ends here (`(var i (+ i 1))` before the jump back
                            // to its fused test): the test runs now, as its instruction would
                            // next, counting its own step and the four it stands for, short
                            // of the next check; else the loop goes on as usual.
                            if let Some(to) = loop_test(&self.stack, base, *pc.op(code))
                                && room!(5)
                            {
                                left -= 5;
                                pc = Pc::at(code, to as usize);
                            }
                        } else {
                            load!(a)
                        }
                    }
                    Op::LocalConstJump { a, op: f, k, to } => {
                        if let Value::Int(x) = local(&self.stack, base, a)
                            && let Some(IntValue::Bool(t)) = f.apply(*x, i64::from(k))
                            && room!(3)
                        {
                            left -= 3;
                            pc = if t {
                                pc.skip(3)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else {
                            load!(a)
                        }
                    }
                    Op::LocalsJump { a, b, op: f, to } => {
                        if let (Value::Int(x), Value::Int(y)) =
                            (local(&self.stack, base, a), local(&self.stack, base, b))
                            && let Some(IntValue::Bool(t)) = f.apply(*x, *y)
                            && room!(3)
                        {
                            left -= 3;
                            pc = if t {
                                pc.skip(3)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else {
                            load!(a)
                        }
                    }
                    Op::LoopLocalConst { body, .. } | Op::LoopLocals { body, .. } => {
                        if let Some(to) = loop_test(&self.stack, base, *op)
                            && room!(4)
                        {
                            left -= 4;
                            pc = Pc::at(code, to as usize);
                        } else {
                            // The plain jump to the test.
                            pc = Pc::at(code, body as usize - 4);
                        }
                    }
                    Op::JumpEnd(to) => pc = Pc::at(code, to as usize),
                    // Collection reads: the collection and the key are borrowed in their
                    // slots, and only the value read is cloned. Anything but a plain read
                    // (another kind, `nth` out of range, an error) runs the plain sequence.
                    Op::ReadLocals { c, k, read } => {
                        fused_read!(c, read, local(&self.stack, base, k), None, 2)
                    }
                    Op::ReadConst { c, read, k } => {
                        fused_read!(c, read, &Value::Int(i64::from(k)), None, 2)
                    }
                    Op::GetOr { c, k, default } => fused_read!(
                        c,
                        Read::Get,
                        local(&self.stack, base, k),
                        Some(i64::from(default)),
                        3
                    ),
                    // `(contains "KQRBNP" p)`: a one-character name looked for in a
                    // string of distinct letters, answered by one bit test, its work (the
                    // string's length) counted as `Op::Builtin`'s fast path counts it.
                    Op::LetterIn { s, letters, a } => {
                        let len = letters.count_ones();
                        let byte = match local(&self.stack, base, a) {
                            Value::Str(t) => t.ascii_byte(),
                            _ => None,
                        };
                        match byte {
                            Some(b) if room!(2 + len) => {
                                left -= 2 + i64::from(len);
                                let found = b >= 64 && (letters >> (b - 64)) & 1 == 1;
                                push_in_room(&mut self.stack, Value::bool(found));
                                pc = pc.skip(2);
                            }
                            _ => push_in_room(&mut self.stack, Value::sym(s)),
                        }
                    }
                    // `(contains "Bb" (property "piece"))`: as `LetterIn`, on the running
                    // entity's property read where it lies; anything else (no such
                    // property here, a value that is not a one-character name, a budget
                    // that ends inside) runs the plain instructions.
                    Op::LetterInProperty { s, name } => {
                        let byte = match self.me() {
                            Some((id, _)) => {
                                match self.world.entity(id).and_then(|e| e.property(game, name)) {
                                    Some(Value::Str(t)) => t.ascii_byte(),
                                    _ => None,
                                }
                            }
                            None => None,
                        };
                        let hay = byte.map(|b| (b, s.as_str().as_bytes()));
                        match hay {
                            Some((b, hay)) if room!(2 + hay.len()) => {
                                left -= 2 + hay.len() as i64;
                                push_in_room(&mut self.stack, Value::bool(hay.contains(&b)));
                                pc = pc.skip(2);
                            }
                            _ => push_in_room(&mut self.stack, Value::sym(s)),
                        }
                    }
                    Op::NilPop => {
                        if room!(1) {
                            left -= 1;
                            pc = pc.skip(1);
                        } else {
                            push_in_room(&mut self.stack, Value::Nil);
                        }
                    }
                    // `=` or `!=` with a literal string, on a value that is not a
                    // collection: what `Op::Builtin`'s fast path answers.
                    Op::StrCmp { s, eq } => {
                        if room!(1)
                            && let Some(same) = equal_in_step(top(&self.stack, 0), &Value::sym(s))
                        {
                            left -= 1;
                            let r = same == eq;
                            overwrite(top_mut(&mut self.stack, 0), Value::bool(r));
                            pc = pc.skip(1);
                        } else {
                            push_in_room(&mut self.stack, Value::sym(s));
                        }
                    }
                    Op::StrCmpJump { s, eq, to } => {
                        if room!(2)
                            && let Some(same) = equal_in_step(top(&self.stack, 0), &Value::sym(s))
                        {
                            left -= 2;
                            let t = same == eq;
                            discard(pop_verified(&mut self.stack));
                            pc = if t {
                                pc.skip(2)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else {
                            push_in_room(&mut self.stack, Value::sym(s));
                        }
                    }
                    // `(if (= p "K") ...)` on a local that is not a collection: what
                    // `StrCmpJump` answers, without copying the local.
                    Op::LocalStrCmpJump { a, s, eq, to } => {
                        let local = local(&self.stack, base, a);
                        if room!(3)
                            && let Some(same) = equal_in_step(local, &Value::sym(s))
                        {
                            left -= 3;
                            let t = same == eq;
                            pc = if t {
                                pc.skip(3)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else {
                            load!(a)
                        }
                    }
                    // `(if (= (state of n) "s") ...)` on a local naming an entity the game
                    // started with: its state compared where it lies.
                    Op::LocalStateJump { a, s, eq, to } => {
                        if room!(4)
                            && let Some(same) = self.state_is(base + a as usize, s)
                        {
                            left -= 4;
                            pc = if same == eq {
                                pc.skip(4)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else {
                            load!(a)
                        }
                    }
                    // `(if (= q nil) ...)` on a local that is not a collection.
                    Op::LocalNilJump { a, eq, to } => {
                        let local = local(&self.stack, base, a);
                        if room!(3) && !is_collection(local) {
                            left -= 3;
                            let t = (*local == Value::Nil) == eq;
                            pc = if t {
                                pc.skip(3)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else {
                            load!(a)
                        }
                    }
                    Op::LocalJump { a, to } => {
                        if room!(1) {
                            left -= 1;
                            pc = if local(&self.stack, base, a).truthy() {
                                pc.skip(1)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else {
                            load!(a)
                        }
                    }
                    // `(property "p" of e)` with `e` a local or a literal name: the name
                    // is read where it lies, and the span is the `PropertyOf`'s.
                    Op::LocalPropertyOf { a, name } => {
                        if room!(1) {
                            left -= 1;
                            let entity = local(&self.stack, base, a);
                            let v = match self.fixed_property(game, entity, name) {
                                Some(v) => v.clone(),
                                None => out!(self.local_property_of(
                                    cx,
                                    base + a as usize,
                                    name,
                                    code.spans[pc.index(code)]
                                ))?,
                            };
                            push_in_room(&mut self.stack, v);
                            pc = pc.skip(1);
                        } else {
                            load!(a)
                        }
                    }
                    // The same, into a local: in one step when the property is one the
                    // loop reads itself, else as `LocalPropertyOf` (its `SetLocal` next).
                    Op::LocalPropertyTo { a, name, dst } => {
                        let fast = if room!(2) {
                            self.fixed_property(game, local(&self.stack, base, a), name)
                                .cloned()
                        } else {
                            None
                        };
                        match fast {
                            Some(v) => {
                                left -= 2;
                                overwrite(local_mut(&mut self.stack, base, dst), v);
                                pc = pc.skip(2);
                            }
                            None => load!(a),
                        }
                    }
                    Op::SetLocalJump { a, to } => {
                        let v = pop_verified(&mut self.stack);
                        let go_on = v.truthy();
                        overwrite(local_mut(&mut self.stack, base, a), v);
                        if room!(2) {
                            left -= 2;
                            pc = if go_on {
                                pc.skip(2)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        }
                    }
                    Op::NamedPropertyOf { entity, name } => {
                        if room!(1) {
                            left -= 1;
                            let fast = self
                                .fixed_entity_of(entity)
                                .and_then(|(_, e)| e.layout_property(game, name));
                            let v = match fast {
                                Some(v) => v.clone(),
                                None => out!(self.property_of(
                                    cx,
                                    &Value::sym(entity),
                                    name,
                                    code.spans[pc.index(code)]
                                ))?,
                            };
                            push_in_room(&mut self.stack, v);
                            pc = pc.skip(1);
                        } else {
                            push_in_room(&mut self.stack, Value::sym(entity));
                        }
                    }
                    // `(get (property "p" of e) k)`: the table read where it lies, only
                    // the value found copied (no count taken on the table); anything the
                    // fused read does not answer runs the plain instructions.
                    Op::PropertyGet { .. } | Op::NamedPropertyGet { .. } => {
                        match if room!(3) {
                            self.property_get(game, base, *op)
                        } else {
                            None
                        } {
                            Some(v) => {
                                left -= 3;
                                push_in_room(&mut self.stack, v);
                                pc = pc.skip(3);
                            }
                            None => match *op {
                                Op::PropertyGet { a, .. } => load!(a),
                                Op::NamedPropertyGet { entity, .. } => {
                                    push_in_room(&mut self.stack, Value::sym(entity))
                                }
                                _ => {}
                            },
                        }
                    }
                    Op::JumpPop(to) => {
                        if room!(1) {
                            left -= 1;
                            discard(pop_verified(&mut self.stack));
                            pc = Pc::at(code, to as usize + 1);
                        } else {
                            pc = Pc::at(code, to as usize);
                        }
                    }
                    Op::OpJump { op: f, to } => {
                        if let (Value::Int(x), Value::Int(y)) =
                            (top(&self.stack, 1), top(&self.stack, 0))
                            && let Some(IntValue::Bool(t)) = f.apply(*x, *y)
                            && room!(1)
                        {
                            left -= 1;
                            // Two integers: nothing to drop.
                            std::mem::forget(pop_verified(&mut self.stack));
                            std::mem::forget(pop_verified(&mut self.stack));
                            pc = if t {
                                pc.skip(1)
                            } else {
                                Pc::at(code, to as usize)
                            };
                        } else if matches!(f, IntOp::Eq | IntOp::Ne)
                            && let Some(same) =
                                equal_in_step(top(&self.stack, 1), top(&self.stack, 0))
                        {
                            // `=` or `!=` whose first value is not a collection (a name
                            // compared with a name, most often): answered here as
                            // `Op::Builtin`'s fast path answers it, then the jump, when
                            // its step stays short of the next check (else the plain
                            // `JumpIfFalse` follows).
                            let b = pop_verified(&mut self.stack);
                            let a = pop_verified(&mut self.stack);
                            let t = same == (f == IntOp::Eq);
                            discard(a);
                            discard(b);
                            if room!(1) {
                                left -= 1;
                                pc = if t {
                                    pc.skip(1)
                                } else {
                                    Pc::at(code, to as usize)
                                };
                            } else {
                                push_in_room(&mut self.stack, Value::bool(t));
                            }
                        } else {
                            out!(self.call_builtin(cx, builtin_of(f), 2, code, pc.index(code)))?;
                        }
                    }
                    _ => match out!(self.exec_other(cx, *op, code, base, pc.index(code))) {
                        Next::Go => {}
                        Next::Frames => continue 'frames,
                        Next::Done(flow) => return Ok(*flow),
                        Next::Fail(e) => return Err(*e),
                    },
                }
            }
        }
    }
}
