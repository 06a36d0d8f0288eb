//! Join points and sends: sending a message pushes a join point, which runs its laws,
//! its behaviour and its side-effects one frame at a time; leaving a body moves it on,
//! a law's `return` vetoes it.

use std::rc::Rc;

use crate::compile::bytecode::CodeId;
use crate::source::Span;
use crate::symbol::Symbol;

use super::super::trace::{RuntimeError, Status, TraceEvent};
use super::super::value::{Message, Value};
use super::super::world::{Chain, EntityId};
use super::stack::{overwrite, truncate_releasing};
use super::{Context, Flow, Frame, Kind, Machine, OUTSIDE};

/// The body [`Machine::next_body`] found to run next: its code, kind, and the base of the
/// frame it replaces (which keeps its join point).
pub(super) struct NextBody {
    pub(super) code: CodeId,
    pub(super) kind: Kind,
    pub(super) base: u32,
}

/// The body of `jp`'s chain that follows the one of kind `kind` that just ended, the
/// join point's phase once it runs, and its kind: the next law, the behaviour after the
/// last law (unless the join point keeps a world for a veto, `before`, which the general
/// path lets go), the first side-effect after the behaviour, the next side-effect. `None`
/// for anything else (no behaviour, the end of the join point: see `Machine::advance`).
#[inline(always)]
pub(super) fn next_advice(jp: &JoinPoint, kind: Kind) -> Option<(CodeId, Phase, Kind)> {
    match (jp.phase, kind) {
        (Phase::Laws(i), Kind::Law) => match jp.chain.laws.get(i) {
            Some(l) => Some((l.code, Phase::Laws(i + 1), Kind::Law)),
            None if !jp.before => jp
                .behaviour
                .map(|b| (b, Phase::SideEffects(0), Kind::Behaviour)),
            None => None,
        },
        (Phase::SideEffects(i), Kind::SideEffect | Kind::Behaviour) => jp
            .chain
            .side_effects
            .get(i)
            .map(|se| (se.code, Phase::SideEffects(i + 1), Kind::SideEffect)),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Laws(usize),
    Behaviour,
    SideEffects(usize),
}

#[derive(Debug)]
pub(super) struct JoinPoint {
    pub(super) entity: EntityId,
    pub(super) name: Symbol,
    pub(super) msg: Rc<Message>,
    pub(super) sender: Option<Symbol>,
    pub(super) state: Symbol,
    pub(super) chain: Rc<Chain>,
    pub(super) behaviour: Option<CodeId>,
    pub(super) phase: Phase,
    pub(super) value: Value,
    pub(super) then: Then,
    /// Whether the join point has its entry on [`Machine::befores`]: the world and the
    /// open checkpoints when it began, kept when it has laws that may change the world
    /// (only a law can veto) and is not the outermost; a veto puts them back, so a
    /// vetoed message did nothing at any depth. Kept apart, as few join points have
    /// one: the join point stays small to push and pop.
    pub(super) before: bool,
}

/// What happens when a join point is over, besides giving its value to the sender.
#[derive(Clone, Debug)]
pub(super) enum Then {
    /// Nothing: the value of the `send` is the behaviour's.
    Give,
    /// A representation was told of a property change: make the change now, and the
    /// form that asked for it yields `nil`.
    Write {
        entity: EntityId,
        name: Symbol,
        value: Value,
        new: bool,
        /// Whether a step was pending when the representation was told: the write and
        /// its observer are one step of the game, so the pause waits for the write.
        held: bool,
    },
    /// A representation received `init` for a new entity: the form yields this.
    Yield(Value),
}

impl Machine {
    /// When the running frame is a law, behaviour or side-effect body that has just
    /// ended normally and the next body of its join point's chain is due (see
    /// `next_advice`), with nothing traced or stepped and no step pending: that next body,
    /// its join point's phase moved on to it (and a behaviour's value, on top of the
    /// stack when `value_on_stack`, else nil, kept as the join point's), for the
    /// instruction loop to start in the ended one's place as `leave` and `advance` would
    /// (their events, unrecorded, are not made). `None`, with nothing changed, otherwise.
    #[inline(always)]
    pub(super) fn next_body(&mut self, cx: &Context<'_>, value_on_stack: bool) -> Option<NextBody> {
        if cx.trace || cx.stepping || self.paused || self.pause_later {
            return None;
        }
        let &Frame {
            kind: ended @ (Kind::Law | Kind::SideEffect | Kind::Behaviour),
            base,
            jp,
            ..
        } = self.frames.last()?
        else {
            return None;
        };
        let (code, phase, kind) = next_advice(self.jps.last()?, ended)?;
        if self.fast && cx.fast.get(code).is_some_and(|f| f.entered && f.ready()) {
            // The fast tier takes it at its start, by the general way.
            return None;
        }
        let point = self.jps.last_mut()?;
        point.phase = phase;
        if ended == Kind::Behaviour {
            let value = if value_on_stack {
                self.stack.pop().unwrap_or_default()
            } else {
                Value::Nil
            };
            overwrite(&mut point.value, value);
        }
        debug_assert_eq!(jp as usize, self.jps.len() - 1);
        Some(NextBody { code, kind, base })
    }

    /// The running frame returned `value`. Returns the final status when the transaction
    /// is over.
    #[inline]
    pub(super) fn leave(
        &mut self,
        cx: &mut Context<'_>,
        value: Value,
        explicit: bool,
    ) -> Option<Status> {
        let frame = self.frames.pop()?;
        truncate_releasing(&mut self.stack, frame.base as usize);
        match frame.kind {
            Kind::Function => {
                self.stack.push(value);
                None
            }
            Kind::Top => {
                if self.frames.is_empty() {
                    Some(Status::Committed(value))
                } else {
                    self.stack.push(value);
                    None
                }
            }
            Kind::Law if explicit => {
                Value::release(value);
                self.veto(cx)
            }
            Kind::Law | Kind::SideEffect => {
                // A law or side-effect's value goes unread (most often nil, from its
                // last `if`).
                Value::release(value);
                self.advance(cx)
            }
            Kind::Behaviour => {
                if let Some(jp) = self.jps.last_mut() {
                    if jp.chain.side_effects.is_empty()
                        && matches!(jp.then, Then::Give)
                        && !(cx.trace || cx.stepping)
                    {
                        // No side-effect to run and nothing to record: the join point
                        // ends with the behaviour's value, as `advance` would end it.
                        if let Some(jp) = self.jps.pop() {
                            self.spares.keep(jp.msg);
                        }
                        if self.jps.is_empty() && self.frames.is_empty() {
                            return Some(Status::Committed(value));
                        }
                        self.stack.push(value);
                        return None;
                    }
                    overwrite(&mut jp.value, value);
                }
                self.advance(cx)
            }
        }
    }

    pub(super) fn veto(&mut self, cx: &mut Context<'_>) -> Option<Status> {
        let jp = self.jps.pop()?;
        let law = match jp.phase {
            Phase::Laws(i) => jp.chain.laws[i - 1].name,
            _ => Symbol::intern("?"),
        };
        let depth = self.jps.len() + 1;
        self.event(cx, TraceEvent::Vetoed { depth, name: law });
        if self.jps.iter().all(|jp| jp.entity.is_representation()) {
            // The outermost join point of the game (a click's representation join points
            // do not count): the move did not happen.
            return Some(Status::Vetoed { law });
        }
        // An inner join point: what it did (its laws' changes and sends) is undone too,
        // and the send that made it gives nil.
        if jp.before
            && let Some((world, open)) = self.befores.pop()
        {
            self.world = world;
            self.checkpoints.truncate(open);
        }
        self.stack.push(Value::Nil);
        None
    }

    /// Run the next step of the top join point: its next law, its behaviour, its next
    /// side-effect, or finish it.
    pub(super) fn advance(&mut self, cx: &mut Context<'_>) -> Option<Status> {
        // The frame to start (a law, the behaviour or a side-effect), pushed in one place
        // below, in line.
        let (code, kind, jp_index) = loop {
            let depth = self.jps.len();
            let jp_index = (depth - 1) as u32;
            let jp = self.jps.last_mut()?;
            match jp.phase {
                Phase::Laws(i) if i < jp.chain.laws.len() => {
                    jp.phase = Phase::Laws(i + 1);
                    let (name, code) = (jp.chain.laws[i].name, jp.chain.laws[i].code);
                    self.event(cx, TraceEvent::Law { depth, name });
                    break (code, Kind::Law, jp_index);
                }
                Phase::Laws(_) => {
                    // Every law let the message through: nothing can veto it now, and
                    // dropping the copy keeps the behaviour's updates in place.
                    if jp.before {
                        jp.before = false;
                        self.befores.pop();
                    }
                    jp.phase = Phase::Behaviour;
                }
                Phase::Behaviour => {
                    jp.phase = Phase::SideEffects(0);
                    match jp.behaviour {
                        Some(code) => {
                            if cx.trace || cx.stepping {
                                let name = cx.game.code(code).name.to_string();
                                self.event(cx, TraceEvent::Behaviour { depth, name });
                            }
                            break (code, Kind::Behaviour, jp_index);
                        }
                        None => {
                            let e = TraceEvent::NoBehaviour {
                                depth,
                                entity: jp.name,
                                label: jp.msg.label,
                                state: jp.state,
                            };
                            self.event(cx, e);
                        }
                    }
                }
                Phase::SideEffects(i) if i < jp.chain.side_effects.len() => {
                    jp.phase = Phase::SideEffects(i + 1);
                    let se = &jp.chain.side_effects[i];
                    let (name, code) = (se.name, se.code);
                    self.event(cx, TraceEvent::SideEffect { depth, name });
                    break (code, Kind::SideEffect, jp_index);
                }
                Phase::SideEffects(_) => {
                    let jp = self.jps.pop()?;
                    let hidden = jp.entity.is_representation();
                    let value = match jp.then {
                        Then::Give => jp.value,
                        Then::Yield(v) => v,
                        Then::Write {
                            entity,
                            name,
                            value,
                            new,
                            held,
                        } => {
                            if let Err(e) = self.store_property(cx, entity, name, value, new) {
                                return Some(Status::Failed(e));
                            }
                            self.paused |= held;
                            self.pause_later = self.paused;
                            Value::Nil
                        }
                    };
                    if (cx.trace || cx.stepping) && !hidden {
                        self.event(
                            cx,
                            TraceEvent::Done {
                                depth,
                                value: value.clone(),
                            },
                        );
                    }
                    self.spares.keep(jp.msg);
                    if self.jps.is_empty() && self.frames.is_empty() {
                        return Some(Status::Committed(value));
                    }
                    self.stack.push(value);
                    return None;
                }
            }
        };
        self.push_frame_here(cx, code, kind, jp_index);
        None
    }

    /// Deliver `msg` from the user to the entity named `to`, as [`Machine::send`] does
    /// with nothing running (so no representation is sending), without making a name
    /// value: an entity made when the game started is found in the fixed table, any
    /// other name (or a missing one, for its error) as `send` finds it.
    #[inline(never)]
    pub(super) fn send_from_outside(
        &mut self,
        cx: &mut Context<'_>,
        to: Symbol,
        msg: Rc<Message>,
    ) -> Result<Flow, RuntimeError> {
        self.send_from_outside_here(cx, to, msg)
    }

    /// [`Machine::send_from_outside`] inlined, for [`Machine::restart_deliver`] (called
    /// once per transaction from outside the machine: one call less).
    #[inline(always)]
    pub(super) fn send_from_outside_here(
        &mut self,
        cx: &mut Context<'_>,
        to: Symbol,
        msg: Rc<Message>,
    ) -> Result<Flow, RuntimeError> {
        debug_assert!(self.frames.is_empty() && self.jps.is_empty());
        let entity = match self.fixed_entity_of(to) {
            Some((id, _)) => id,
            None => self.entity_named(&Value::sym(to), OUTSIDE)?,
        };
        self.send_to_here(cx, entity, msg, OUTSIDE, Then::Give)
    }

    /// Deliver `msg` to the entity named by `to`, as the running code (or the user).
    pub(super) fn send(
        &mut self,
        cx: &mut Context<'_>,
        to: &Value,
        msg: Rc<Message>,
        span: Span,
    ) -> Result<Flow, RuntimeError> {
        // An entity the game started with is found in line (`entity_named`, out of line,
        // looks there first too).
        let entity = match self.fixed_entity(to) {
            Some((id, _)) => id,
            None => self.entity_named(to, span)?,
        };
        if let Some((me, my_name)) = self.me()
            && me.is_representation()
            && me.represented() != entity
        {
            let mut e = self.error(
                span,
                format!(
                    "the representation of {my_name} sent \"{}\" to {to}: a representation sends only to its own entity",
                    msg.label
                ),
            );
            e.hint = Some(format!(
                "send to (self), which is {my_name}, and let it pass the message on"
            ));
            return Err(e);
        }
        self.send_to_here(cx, entity, msg, span, Then::Give)
    }

    /// Deliver `msg` to entity (or representation) `entity`.
    #[inline(never)]
    pub(super) fn send_to(
        &mut self,
        cx: &mut Context<'_>,
        entity: EntityId,
        msg: Rc<Message>,
        span: Span,
        then: Then,
    ) -> Result<Flow, RuntimeError> {
        self.send_to_here(cx, entity, msg, span, then)
    }

    /// [`Machine::send_to`] inlined, for the sends of running code (`send`) and of the
    /// user (`send_from_outside_here`): no call, and the join point's `Then::Give` is
    /// not passed through memory.
    #[inline(always)]
    pub(super) fn send_to_here(
        &mut self,
        cx: &mut Context<'_>,
        entity: EntityId,
        msg: Rc<Message>,
        span: Span,
        then: Then,
    ) -> Result<Flow, RuntimeError> {
        if self.frames.len() + self.frameless + self.jps.len() >= cx.limits.max_depth {
            return Err(self.depth_error(span, cx.limits));
        }
        let sender = match self.direct_sender.take() {
            Some(name) => Some(name),
            None => self.me().map(|(_, n)| n),
        };
        let Some(e) = self.world.entity(entity) else {
            return Err(self.error(span, "internal: entity vanished"));
        };
        let (name, ty, state) = (e.name, e.ty, e.state);
        let hidden = entity.is_representation();
        let (chain, behaviour) = if hidden {
            let behaviour = cx.game.ty(ty).behaviours.get(&(state, msg.label)).copied();
            (cx.cache.empty.clone(), behaviour)
        } else {
            cx.cache
                .get(cx.game, &self.world, ty, name, state, msg.label)
        };
        let depth = self.jps.len() + 1;
        if (cx.trace || cx.stepping) && !hidden {
            self.event(
                cx,
                TraceEvent::Arrive {
                    depth,
                    entity: name,
                    state,
                    message: Value::Message(msg.clone()),
                    sender,
                },
            );
        }
        // The outermost join point needs no copy: a veto there restores the start.
        let before = chain.laws_may_change_world && !self.jps.is_empty();
        if before {
            self.befores
                .push((self.world.clone(), self.checkpoints.len()));
        }
        // No law and a behaviour, untraced and not stepping: the join point starts at its
        // behaviour, as `advance` would start it (nothing to record, no copy to drop).
        if chain.laws.is_empty()
            && !before
            && !(cx.trace || cx.stepping)
            && let Some(code) = behaviour
        {
            self.jps.push(JoinPoint {
                entity,
                name,
                msg,
                sender,
                state,
                chain,
                behaviour,
                phase: Phase::SideEffects(0),
                value: Value::Nil,
                then,
                before,
            });
            self.push_frame_here(cx, code, Kind::Behaviour, (depth - 1) as u32);
            return Ok(Flow::Enter);
        }
        self.jps.push(JoinPoint {
            entity,
            name,
            msg,
            sender,
            state,
            chain,
            behaviour,
            phase: Phase::Laws(0),
            value: Value::Nil,
            then,
            before,
        });
        match self.advance(cx) {
            Some(status) => Ok(Flow::End(status)),
            None => Ok(Flow::Enter),
        }
    }
}
