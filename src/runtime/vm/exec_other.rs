//! The instructions the loop leaves out of line ([`Machine::exec_other`]): calls of small
//! functions, `switch` cases, the message, starting a `foreach`, forms, leaving a body that is not a
//! function, a fused update whose fast case does not apply; and calls of pure builtins.

use std::rc::Rc;

use crate::compile::bytecode::{Op, put_builtin};

use super::super::budget::ELEMENT_BYTES;
use super::super::builtins::{BuiltinError, PureFn, pure_fn};
use super::super::trace::{RuntimeError, Status};
use super::super::value::{List, Value};
use super::{Context, Flow, Machine};

/// What [`Machine::exec`] does after an instruction run out of its loop.
pub(super) enum Next {
    /// Go on with the next instruction.
    Go,
    /// The top frame changed: pick it up.
    Frames,
    /// Return from `exec` (boxed, as is the error below: `Next` stays two words, returned
    /// in registers).
    Done(Box<Flow>),
    /// Fail with this error.
    Fail(Box<RuntimeError>),
}

impl Machine {
    /// Call pure builtin `f` on the `argc` values on top of the stack, where they lie,
    /// leaving its result there instead: [`Machine::call_builtin`] for a builtin the
    /// instruction loop found pure, with less to set up.
    #[inline(never)]
    pub(super) fn call_pure(&mut self, f: PureFn, argc: u8) -> Result<(), BuiltinError> {
        let at = self.stack.len() - argc as usize;
        let result = f(&mut self.stack[at..], &mut self.meter)?;
        self.place_result(at, argc, result);
        Ok(())
    }

    /// Put `result` of a builtin called on the `argc` values from `at` to the top of the
    /// stack in their place: over the first argument (no capacity check), or pushed when
    /// there were none.
    #[inline(always)]
    pub(super) fn place_result(&mut self, at: usize, argc: u8, result: Value) {
        if argc == 0 {
            self.stack.push(result);
        } else {
            while self.stack.len() > at + 1 {
                if let Some(v) = self.stack.pop() {
                    Value::release(v);
                }
            }
            Value::release(std::mem::replace(&mut self.stack[at], result));
        }
    }

    /// The less common instructions [`Machine::exec`] does not run in its own loop
    /// (`switch` cases, the message, starting a `foreach`, forms, leaving a body that is
    /// not a function, in-place updates). Kept out of the loop so its registers hold what
    /// the common instructions use.
    #[inline(never)]
    pub(super) fn exec_other(
        &mut self,
        cx: &mut Context<'_>,
        op: Op,
        code: &crate::compile::bytecode::Code,
        base: usize,
        ip: usize,
    ) -> Next {
        match self.exec_other_inner(cx, op, code, base, ip) {
            Ok(next) => next,
            Err(e) => Next::Fail(Box::new(e)),
        }
    }

    #[inline(always)]
    pub(super) fn exec_other_inner(
        &mut self,
        cx: &mut Context<'_>,
        op: Op,
        code: &crate::compile::bytecode::Code,
        base: usize,
        ip: usize,
    ) -> Result<Next, RuntimeError> {
        match op {
            // A call of a small function, run in the small loop (`small.rs`).
            Op::CallSmall(callee, argc) => {
                if self.frames.len() + self.jps.len() >= cx.limits.max_depth {
                    return Err(self.depth_error(code.spans[ip - 1], cx.limits));
                }
                if !self.call_small(cx, callee, argc, ip) {
                    return Ok(Next::Frames);
                }
            }
            Op::Message => {
                let v = match self.current_jp() {
                    Some(jp) => Value::Message(jp.msg.clone()),
                    None => Value::Nil,
                };
                self.stack.push(v);
            }
            Op::CaseEq => {
                let v = self.stack.pop().unwrap_or_default();
                let eq = match self.stack.last() {
                    Some(x) => self
                        .meter
                        .equal(x, &v)
                        .map_err(|e| self.builtin_error(code.spans[ip - 1], e))?,
                    None => false,
                };
                self.stack.push(Value::bool(eq));
            }
            Op::IterStart => {
                let v = self.stack.pop().unwrap_or_default();
                let list = match v {
                    Value::List(l) => l,
                    Value::Dict(d) => {
                        self.meter
                            .work(d.len())
                            .and_then(|()| self.meter.alloc(ELEMENT_BYTES * d.len() as u64))
                            .map_err(|e| self.builtin_error(code.spans[ip - 1], e))?;
                        Rc::new(d.keys().map(|k| k.to_value()).collect())
                    }
                    Value::Nil => Rc::new(List::new()),
                    other => {
                        return Err(self.error(
                            code.spans[ip - 1],
                            format!(
                                "foreach needs a list or dictionary, got {} {other}",
                                other.type_name()
                            ),
                        ));
                    }
                };
                self.stack.push(Value::List(list));
                self.stack.push(Value::Int(0));
            }
            Op::Form(form, nattrs) => {
                if let Some(f) = self.frames.last_mut() {
                    f.ip = ip as u32;
                }
                match self.form(cx, form, nattrs, code.spans[ip - 1])? {
                    Flow::Value(v) => self.stack.push(v),
                    Flow::Enter => return Ok(Next::Frames),
                    other => return Ok(Next::Done(Box::new(other))),
                }
            }
            Op::Return | Op::End => {
                let value = self.stack.pop().unwrap_or_default();
                match self.leave(cx, value, matches!(op, Op::Return)) {
                    // The commonest end: with no frame left and no step pending, the
                    // outer loop ends the transaction with the value on the stack, so
                    // nothing is boxed.
                    Some(Status::Committed(value)) if !self.paused && !self.pause_later => {
                        self.stack.push(value);
                        return Ok(Next::Frames);
                    }
                    Some(status) => return Ok(Next::Done(Box::new(Flow::End(status)))),
                    None => {}
                }
                return Ok(Next::Frames);
            }
            // A fused update whose fast case did not apply runs its first plain instruction:
            // `UpdateLocal`, or the `Hole` of an `Op::PutAdd`.
            Op::UpdateLocal { .. } | Op::PutLocal { .. } | Op::PutAdd { .. } => {
                let plain = match op {
                    Op::PutLocal { slot } => Some((slot, put_builtin(), 3)),
                    Op::UpdateLocal { slot, func, argc } => Some((slot, func, argc)),
                    _ => None,
                };
                let result = match plain {
                    Some((slot, func, argc)) => {
                        let span = code.spans[ip - 1];
                        let v = std::mem::take(&mut self.stack[base + slot as usize]);
                        let at = self.stack.len() - argc as usize;
                        // The hole pushed where the collection was read: it holds nil.
                        self.stack[at] = v;
                        let result = match pure_fn(func as usize) {
                            Some(f) => f(&mut self.stack[at..], &mut self.meter)
                                .map_err(|e| self.builtin_error(span, e)),
                            None => self.context_builtin(cx, func as usize, at, span),
                        }?;
                        self.stack.truncate(at);
                        result
                    }
                    None => Value::Nil,
                };
                self.stack.push(result);
            }
            _ => {}
        }
        Ok(Next::Go)
    }
}
