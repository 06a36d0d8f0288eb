//! The game-model forms: properties, states, messages, entities, checkpoints, outcome.

use std::rc::Rc;

use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::budget::{ELEMENT_BYTES, ENTITY_BYTES, ENTRY_BYTES};
use super::super::trace::{RuntimeError, Status, TraceEvent};
use super::super::value::attrs::{INLINE, ORDER_UP_TO, key_order};
use super::super::value::{Attrs, Dict, Key, List, Message, Value};
use super::super::world::{Entity, World};
use super::{Context, Flow, Machine};

/// Layout property `name` of game entity `id`, to write in place, and its slot: the
/// entity is copied first if a snapshot shares it (if it then has no such slot, the copy
/// equals the original and nothing changed that anyone can see).
#[inline(always)]
fn layout_place<'w>(
    world: &'w mut crate::runtime::world::World,
    game: &crate::compile::program::Game,
    id: super::EntityId,
    name: Symbol,
) -> Option<(u16, &'w mut Value)> {
    let e = world.game_entity_mut(id)?;
    let slot = game.slot(e.ty, name)?;
    Some((slot, e.props.get_mut(slot as usize)?))
}

/// Whether the list operand `list` of a change to a property of game entity `id` may
/// be changed where it lies, as far as can be told before the entity is looked up:
/// nobody watches (no drawing canvas, trace or step), the entity is the game's, the
/// list is held by two (the property and the operand, when it was read from there) and
/// `fits` says the change fits it.
#[inline(always)]
fn lone_list(
    m: &Machine,
    cx: &Context<'_>,
    id: super::EntityId,
    list: &Value,
    fits: impl FnOnce(&List) -> bool,
) -> bool {
    if m.world.canvas.active || id.is_representation() || cx.trace || cx.stepping {
        return false;
    }
    match list {
        Value::List(l) => Rc::strong_count(l) == 2 && Rc::weak_count(l) == 0 && fits(l),
        _ => false,
    }
}

/// The property whose list is changed where it lies: layout property `name` of game
/// entity `id`, found at the place `kept` where the generated code keeps one
/// (`place_of`, as its reads and writes keep it).
#[derive(Clone, Copy)]
pub(super) struct ListPlace {
    pub(super) id: super::EntityId,
    pub(super) name: Symbol,
    pub(super) kept: Option<u64>,
}

/// Property `at` and its slot, when it holds the list `list` (the same one) and nobody
/// else but `list` holds it: with a place kept, where `owned` says the entity lies and
/// may be written (`Machine::owned_place`), else by the entity's lookup. As the form
/// would, that lookup copies an entity a snapshot shares first, which shares the list
/// once more, so that it is not taken then.
#[inline(always)]
fn list_where_it_lies<'w>(
    world: &'w mut World,
    cx: &Context<'_>,
    at: ListPlace,
    owned: Option<*mut Value>,
    list: &Value,
) -> Option<(u16, &'w mut Rc<List>)> {
    let Value::List(l) = list else {
        return None;
    };
    let (slot, place) = match at.kept {
        // SAFETY: the entity is the entities' alone and lies where it was written last
        // (`Addresses::owned_property`); nothing else borrows it meanwhile.
        Some(kept) => (kept as u16, unsafe { &mut *owned? }),
        None => layout_place(world, cx.game, at.id, at.name)?,
    };
    let Value::List(held) = place else {
        return None;
    };
    (Rc::ptr_eq(held, l) && Rc::strong_count(held) == 2).then_some((slot, held))
}

/// How deep `v` nests, where that is known without a walk and within `max_nesting`
/// (a scalar, a list whose bound is low enough): what `append` and `put` would find,
/// charging nothing. A dictionary or message, which they may walk, is not.
#[inline(always)]
fn depth_without_walk(v: &Value, max_nesting: usize) -> Option<u32> {
    match v {
        Value::List(l) if (l.depth() as usize) < max_nesting => Some(l.depth()),
        Value::List(_) | Value::Dict(_) | Value::Message(_) => None,
        _ => Some(0),
    }
}

/// A message made by a form, and the recipient operand when the form sends it.
type MadeMessage = (Rc<Message>, Option<Value>);

/// The name a string value is written as in the game (a symbol's text), if it is one: a
/// string made at run time, or any other value, is not.
#[inline(always)]
fn written_name(v: &Value) -> Option<crate::symbol::Symbol> {
    match v {
        Value::Str(s) => s.as_symbol(),
        _ => None,
    }
}

impl Machine {
    /// Run form `op` with its operands (and `nattrs` attribute pairs) on the stack. Out of
    /// line: the commonest write is tried by the instruction loop first
    /// ([`Machine::update_own_property_here`]), and `(state of e)` read there.
    #[inline(never)]
    pub(super) fn form(
        &mut self,
        cx: &mut Context<'_>,
        op: FormOp,
        nattrs: u8,
        span: Span,
    ) -> Result<Flow, RuntimeError> {
        use FormOp::*;
        if matches!(op, NewMessage | SendNew) {
            if let Some(made) = self.new_message_here(op == SendNew, nattrs, span) {
                let (msg, to) = made?;
                return match to {
                    None => Ok(Flow::Value(Value::Message(msg))),
                    Some(to) => {
                        let flow = self.send(cx, &to, msg, span);
                        Value::release(to);
                        flow
                    }
                };
            }
            // The general way: a message's attributes go straight into its inline record,
            // in the allocation it is shared by.
            let mut msg = Rc::new(Message {
                label: Symbol::from_id(0),
                attrs: Attrs::new(),
            });
            let Some(m) = Rc::get_mut(&mut msg) else {
                return Err(self.error(span, "internal: a new message is shared"));
            };
            self.pop_message_attrs(nattrs, span, &mut m.attrs)?;
            let to = (op == SendNew).then(|| self.stack.pop().unwrap_or_default());
            let label = self.pop_one();
            m.label = self.take_symbol(label, "a message label", span)?;
            return match to {
                None => Ok(Flow::Value(Value::Message(msg))),
                Some(to) => self.send(cx, &to, msg, span),
            };
        }
        // Made only for the forms given attributes (most take none).
        let attrs = if nattrs > 0 {
            Some(self.pop_attrs(nattrs, span)?)
        } else {
            None
        };
        match op {
            Property => {
                let name = self.pop_one();
                let name = self.take_symbol(name, "a property name", span)?;
                let Some((id, _)) = self.me() else {
                    return Err(self.no_entity(span, "(property <name> of <entity>)"));
                };
                self.read_property(cx, id, name, span).map(Flow::Value)
            }
            // A name computed at run time (a literal one has an instruction of its own):
            // read as that instruction reads, an entity the game started with first.
            PropertyOf => {
                let (name, entity) = self.pop_two();
                let name = self.take_symbol(name, "a property name", span)?;
                let v = self.property_of(cx, &entity, name, span);
                Value::release(entity);
                v.map(Flow::Value)
            }
            UpdateProperty | NewProperty => {
                let (name, value) = self.pop_two();
                let name = self.take_symbol(name, "a property name", span)?;
                let Some((id, _)) = self.me() else {
                    return Err(
                        self.no_entity(span, "(update property <name> of <entity> to <value>)")
                    );
                };
                self.write_property(cx, id, name, value, op == NewProperty, span)
            }
            UpdatePropertyOf => {
                let [name, entity, value] = self.pop_args();
                let name = self.symbol(&name, "a property name", span)?;
                let id = self.entity_named(&entity, span)?;
                if let Some((me, my_name)) = self.me()
                    && me != id
                {
                    let target = self.world.entity(id).map(|e| e.name);
                    let mut e = self.error(
                        span,
                        format!(
                            "{my_name} cannot update property \"{name}\" of {}: properties are private",
                            target.map_or("?", |t| t.as_str())
                        ),
                    );
                    e.hint = Some(
                        "send that entity a message and let its own behaviour change the property"
                            .into(),
                    );
                    return Err(e);
                }
                self.write_property(cx, id, name, value, false, span)
            }
            ChangeState => {
                let state = self.pop_one();
                let state = self.take_symbol(state, "a state", span)?;
                let Some((id, name)) = self.me() else {
                    return Err(self.no_entity(span, "a message to the entity"));
                };
                if id.is_representation() {
                    // A representation lives in the canvas, which the undo log does not
                    // cover.
                    self.keep_start();
                }
                let Some(e) = self.world.entity_mut(id) else {
                    return Err(self.deleted(span));
                };
                let from = std::mem::replace(&mut e.state, state);
                if self.logging() {
                    self.log_state(id, from);
                }
                if from != state {
                    self.event(
                        cx,
                        TraceEvent::StateChange {
                            depth: self.jps.len(),
                            entity: name,
                            from,
                            to: state,
                        },
                    );
                }
                Ok(Flow::Value(Value::Nil))
            }
            State => {
                let Some((id, _)) = self.me() else {
                    return Err(self.no_entity(span, "(state of <entity>)"));
                };
                Ok(Flow::Value(
                    self.world
                        .entity(id)
                        .map_or(Value::Nil, |e| Value::sym(e.state)),
                ))
            }
            StateOf => {
                let entity = self.pop_one();
                let (_, e) = self.named_entity(&entity, span)?;
                Ok(Flow::Value(Value::sym(e.state)))
            }
            TypeOf => {
                let entity = self.pop_one();
                let (_, e) = self.named_entity(&entity, span)?;
                Ok(Flow::Value(Value::sym(cx.game.ty(e.ty).name)))
            }
            EntitiesOf => {
                let ty = self.pop_one();
                let name = self.symbol(&ty, "a type name", span)?;
                let Some(&t) = cx.game.type_ids.get(&name) else {
                    return Err(self.error(span, format!("no entity type \"{name}\"")));
                };
                let names = self
                    .world
                    .iter()
                    .filter(|(_, e)| cx.game.is_a(e.ty, t))
                    .map(|(_, e)| Value::sym(e.name))
                    .collect();
                Ok(Flow::Value(Value::list(names)))
            }
            Label => match self.current_jp() {
                Some(jp) => Ok(Flow::Value(Value::sym(jp.msg.label))),
                None => Err(self.no_message(span)),
            },
            LabelOf => {
                let m = self.pop_one();
                match m {
                    Value::Message(m) => Ok(Flow::Value(Value::sym(m.label))),
                    other => Err(self.not_message(&other, span)),
                }
            }
            Attribute => {
                let key = self.pop_one();
                let key = self.take_key(key, span)?;
                match self.current_jp() {
                    Some(jp) => Ok(Flow::Value(
                        jp.msg.attrs.get(&key).cloned().unwrap_or_default(),
                    )),
                    None => Err(self.no_message(span)),
                }
            }
            AttributeOf => {
                let (key, m) = self.pop_two();
                let key = self.key(&key, span)?;
                match m {
                    Value::Message(m) => {
                        Ok(Flow::Value(m.attrs.get(&key).cloned().unwrap_or_default()))
                    }
                    other => Err(self.not_message(&other, span)),
                }
            }
            UpdateAttribute => {
                let (key, value) = self.pop_two();
                let key = self.take_key(key, span)?;
                if let Err(e) = self.meter.nest(&value) {
                    return Err(self.builtin_error(span, e));
                }
                match self.message_to_write() {
                    Some(msg) => {
                        msg.attrs.insert(key, value);
                        Ok(Flow::Value(Value::Nil))
                    }
                    None => Err(self.no_message(span)),
                }
            }
            NewMessage | SendNew => Err(self.error(span, "internal: message form out of place")),
            Send => {
                let (m, to) = self.pop_two();
                match m {
                    Value::Message(m) => self.send(cx, &to, m, span),
                    other => Err(self.not_message(&other, span)),
                }
            }
            Forward => {
                let to = self.pop_one();
                let Some(msg) = self.current_jp().map(|jp| jp.msg.clone()) else {
                    return Err(self.no_message(span));
                };
                self.send(cx, &to, msg, span)
            }
            Match => {
                let (key, dict) = self.pop_two();
                match (&dict, &key) {
                    (Value::Dict(d), k) => {
                        let k = self.key(k, span)?;
                        Ok(Flow::Value(d.get(&k).cloned().unwrap_or_default()))
                    }
                    (Value::List(l), Value::Int(i)) => Ok(Flow::Value(
                        usize::try_from(*i)
                            .ok()
                            .and_then(|i| l.get(i))
                            .cloned()
                            .unwrap_or_default(),
                    )),
                    _ => Err(self.error(
                        span,
                        format!(
                            "match looks up a key in a dictionary, got {} {dict}",
                            dict.type_name()
                        ),
                    )),
                }
            }
            OpenCheckpoint => {
                self.open_checkpoint();
                let open = self.checkpoints.len();
                let depth = self.jps.len();
                self.event(cx, TraceEvent::Checkpoint { depth, open });
                Ok(Flow::Value(Value::Nil))
            }
            Rollback => {
                let reason = self.pop_one();
                let reason = reason.to_text();
                match self.roll_back() {
                    true => {
                        let depth = self.jps.len();
                        self.event(
                            cx,
                            TraceEvent::Rollback {
                                depth,
                                reason: reason.clone(),
                            },
                        );
                        Ok(Flow::End(Status::RolledBack { reason }))
                    }
                    false => {
                        let mut e = self
                            .error(span, format!("rollback ({reason}) with no checkpoint open"));
                        e.hint = Some(
                            "open one first with (open checkpoint), for example in a law".into(),
                        );
                        Err(e)
                    }
                }
            }
            NewEntity => {
                let (name, ty) = self.pop_two();
                let name = self.symbol(&name, "an entity name", span)?;
                let ty_name = self.symbol(&ty, "a type name", span)?;
                let Some(&t) = cx.game.type_ids.get(&ty_name) else {
                    return Err(self.error(span, format!("no entity type \"{ty_name}\"")));
                };
                if self.world.lookup(name).is_some() {
                    return Err(
                        self.error(span, format!("an entity named \"{name}\" already exists"))
                    );
                }
                let mut entity = Entity {
                    name,
                    ty: t,
                    state: crate::symbol::Symbol::intern("default"),
                    props: self.defaults_for(cx, t).into(),
                    extra: Default::default(),
                };
                for (k, v) in attrs.unwrap_or_default() {
                    let Key::Str(p) = k else {
                        return Err(self.error(span, "property names are strings"));
                    };
                    let p = self.text_name(&p, "a property name", span)?;
                    match entity.property_mut(cx.game, p) {
                        Some(slot) => *slot = v,
                        None => {
                            entity.extra.insert(Key::sym(p), v);
                        }
                    }
                }
                self.meter
                    .alloc(entity_bytes(&entity))
                    .map_err(|e| self.builtin_error(span, e))?;
                self.keep_start();
                let id = self.world.add(entity);
                self.event(
                    cx,
                    TraceEvent::Created {
                        depth: self.jps.len(),
                        entity: name,
                        ty: ty_name,
                    },
                );
                self.represent(cx, id, span)
                    .map(|f| f.unwrap_or(Flow::Value(Value::sym(name))))
            }
            DeleteEntity => {
                let name = self.pop_one();
                let id = self.entity_named(&name, span)?;
                let entity = self.world.entity(id).map(|e| e.name);
                self.keep_start();
                self.world.remove(id);
                if let Some(entity) = entity {
                    let depth = self.jps.len();
                    self.event(cx, TraceEvent::Deleted { depth, entity });
                }
                Ok(Flow::Value(Value::Nil))
            }
            Finish => {
                self.keep_start();
                self.world.outcome = Some(attrs.unwrap_or_default());
                Ok(Flow::Value(Value::Nil))
            }
            WaitSignal => {
                let signal = self.pop_one();
                let signal = self.symbol(&signal, "a signal name", span)?;
                self.wait_for(signal, attrs, span)
            }
            NewGraphic | UpdateGraphic | DeleteGraphic | Observe | OnClickNotify | OnClickEmit => {
                self.drawing(cx, op, attrs.unwrap_or_default(), span)
            }
        }
    }

    /// `(wait signal <signal> from <player> among <list>)`, its clauses (when given) in
    /// `clauses`: what it waits for. `among` must give a non-empty list.
    #[cold]
    fn wait_for(
        &mut self,
        signal: Symbol,
        clauses: Option<Dict>,
        span: Span,
    ) -> Result<Flow, RuntimeError> {
        let clause = |word: &str| {
            let clauses = clauses.as_ref()?;
            clauses.get(&Key::sym(Symbol::get(word)?)).cloned()
        };
        let player = clause("from");
        let answers = match clause("among") {
            None => None,
            Some(Value::List(l)) if !l.is_empty() => Some(l.iter().cloned().collect()),
            Some(other) => {
                let gave = match &other {
                    Value::List(_) => "an empty list".to_string(),
                    v => format!("{} {v}", v.type_name()),
                };
                let mut e = self.error(
                    span,
                    format!(
                        "the answers to signal \"{signal}\" (`among`) must be a non-empty list, not {gave}"
                    ),
                );
                e.hint = Some(format!(
                    "give the possible answers as a list: (wait signal \"{signal}\" among (list \"yes\" \"no\"))"
                ));
                return Err(e);
            }
        };
        Ok(Flow::Wait(Rc::new(super::Wait {
            signal,
            player,
            answers,
        })))
    }

    /// Pop the top operand (a form's only one).
    #[inline]
    fn pop_one(&mut self) -> Value {
        self.stack.pop().unwrap_or_default()
    }

    /// Pop the two top operands, the deeper one first.
    #[inline(always)]
    fn pop_two(&mut self) -> (Value, Value) {
        let b = self.stack.pop().unwrap_or_default();
        let a = self.stack.pop().unwrap_or_default();
        (a, b)
    }

    /// `(new message ...)` (or, when `send`, `(send new message ... to ...)`) with `n`
    /// attribute pairs, in its commonest case, in one pass: a label and at most
    /// [`INLINE`] attribute names that are names of the game (symbols), no name given
    /// twice, and values whose nesting is known without a walk (scalars, lists whose
    /// bound is within the limit). Then the names are put in key order by their positions
    /// ([`key_order`]), the values moved from the stack straight into the message's
    /// inline record in that order, and the operands dropped at once (nothing they still
    /// hold needs freeing). The message and, for a send, the recipient operand; `None`
    /// when the general way must run ([`Machine::pop_message_attrs`]), nothing changed.
    /// The same steps are counted, the same memory charged and the same message made.
    #[inline(always)]
    fn new_message_here(
        &mut self,
        send: bool,
        n: u8,
        span: Span,
    ) -> Option<Result<MadeMessage, RuntimeError>> {
        let n = usize::from(n);
        if n > ORDER_UP_TO {
            return None;
        }
        let at = self
            .stack
            .len()
            .checked_sub(2 * n + 1 + usize::from(send))?;
        let operands = &self.stack[at..];
        let Value::Str(label) = &operands[0] else {
            return None;
        };
        let label = label.as_symbol()?;
        let pairs = &operands[1 + usize::from(send)..];
        let max_nesting = self.meter.limits.max_nesting;
        let mut names = [Symbol::from_id(0); ORDER_UP_TO];
        for (i, name) in names.iter_mut().enumerate().take(n) {
            let Value::Str(key) = &pairs[2 * i] else {
                return None;
            };
            *name = key.as_symbol()?;
            // What `Meter::nest_depth` answers with no walk and no step counted.
            match &pairs[2 * i + 1] {
                Value::List(l) if (l.depth() as usize) < max_nesting => {}
                Value::List(_) | Value::Dict(_) | Value::Message(_) => return None,
                _ => {}
            }
        }
        let order = key_order(&names[..n])?;
        let first = at + 1 + usize::from(send);
        let msg = match self.message_taking(label, &names[..n], &order, |i| first + 2 * i + 1, span)
        {
            Ok(msg) => msg,
            Err(e) => return Some(Err(e)),
        };
        let to = send.then(|| std::mem::take(&mut self.stack[at + 1]));
        // SAFETY: what is left from `at` holds nothing: the label and the names are
        // symbols' texts, the values and the recipient were taken (nil in their places).
        debug_assert!(self.stack[at..].iter().all(Value::holds_nothing));
        unsafe { self.stack.set_len(at) };
        Some(Ok((msg, to)))
    }

    /// A message labelled `label` with attributes named `names` (symbols, none twice,
    /// put in key order by `order`: see [`key_order`]), each value moved from the stack at
    /// `place(i)`, nil left there. Its memory is charged; its allocation is one a join
    /// point let go when there is one.
    #[inline(always)]
    pub(super) fn message_taking(
        &mut self,
        label: Symbol,
        names: &[Symbol],
        order: &[u8],
        place: impl Fn(usize) -> usize,
        span: Span,
    ) -> Result<Rc<Message>, RuntimeError> {
        let n = names.len();
        if n > 0
            && let Err(e) = self.meter.alloc(ENTRY_BYTES * n as u64)
        {
            return Err(self.builtin_error(span, e));
        }
        // The allocation of a message whose join point went, or a new one.
        let new = || {
            Rc::new(Message {
                label,
                attrs: Attrs::new(),
            })
        };
        let mut msg = self.spares.take().unwrap_or_else(new);
        if Rc::get_mut(&mut msg).is_none() {
            msg = new();
        }
        let Some(m) = Rc::get_mut(&mut msg) else {
            return Err(self.error(span, "internal: a new message is shared"));
        };
        debug_assert!(m.attrs.is_empty());
        m.label = label;
        let attrs = &mut m.attrs;
        if n > INLINE {
            attrs.reserve(n);
        }
        for &i in &order[..n] {
            let i = usize::from(i);
            attrs.push_ordered(
                Key::sym(names[i]),
                std::mem::take(&mut self.stack[place(i)]),
            );
        }
        Ok(msg)
    }

    /// Pop `n` attribute key/value pairs into `attrs`, a message's attributes (later
    /// keys win over earlier ones), counting their memory and checking their nesting.
    pub(super) fn pop_message_attrs(
        &mut self,
        n: u8,
        span: Span,
        attrs: &mut Attrs,
    ) -> Result<(), RuntimeError> {
        if n == 0 {
            return Ok(());
        }
        let at = self.stack.len() - 2 * n as usize;
        self.meter
            .alloc(ENTRY_BYTES * u64::from(n))
            .map_err(|e| self.builtin_error(span, e))?;
        attrs.fill(n as usize, |i| {
            let (k, v) = (at + 2 * i, at + 2 * i + 1);
            if let Err(e) = self.meter.nest_depth(&self.stack[v]) {
                return Err(self.builtin_error(span, e));
            }
            let Some(key) = self.stack[k].as_key() else {
                let key = &self.stack[k];
                return Err(self.error(
                    span,
                    format!(
                        "attribute keys are strings or integers, got {} {key}",
                        key.type_name(),
                    ),
                ));
            };
            Ok((key, std::mem::take(&mut self.stack[v])))
        })?;
        // The keys were copied and the values taken (nil in their places): most let go
        // without the general drop.
        while self.stack.len() > at {
            if let Some(v) = self.stack.pop() {
                Value::release(v);
            }
        }
        Ok(())
    }

    /// The symbol of a name operand taken off the stack (see [`Machine::symbol`]), the
    /// operand let go.
    #[inline(always)]
    fn take_symbol(
        &self,
        v: Value,
        what: &str,
        span: Span,
    ) -> Result<crate::symbol::Symbol, RuntimeError> {
        let r = self.symbol(&v, what, span);
        Value::release(v);
        r
    }

    /// The key of a key operand taken off the stack, the operand let go.
    #[inline(always)]
    fn take_key(&self, v: Value, span: Span) -> Result<Key, RuntimeError> {
        let r = self.key(&v, span);
        Value::release(v);
        r
    }

    fn key(&self, v: &Value, span: Span) -> Result<Key, RuntimeError> {
        v.as_key().ok_or_else(|| {
            self.error(
                span,
                format!("keys are strings or integers, got {} {v}", v.type_name()),
            )
        })
    }

    pub(super) fn no_entity(&self, span: Span, instead: &str) -> RuntimeError {
        let mut e = self.error(span, "no entity here: this code runs as the user");
        e.hint = Some(format!("name the entity explicitly: {instead}"));
        e
    }

    /// The running entity was deleted by its own code (or code it called).
    fn deleted(&self, span: Span) -> RuntimeError {
        let name = self
            .me()
            .map_or("this entity".to_string(), |(_, n)| format!("\"{n}\""));
        let mut e = self.error(
            span,
            format!("{name} was deleted while its code was running"),
        );
        e.hint = Some(
            "after (delete entity ...) of itself, an entity cannot use its properties or state"
                .into(),
        );
        e
    }

    pub(super) fn no_message(&self, span: Span) -> RuntimeError {
        let mut e = self.error(span, "no message here: this code is not handling one");
        e.hint = Some("attributes and labels of a message value are read with `of`".into());
        e
    }

    fn not_message(&self, v: &Value, span: Span) -> RuntimeError {
        self.error(
            span,
            format!("expected a message, got {} {v}", v.type_name()),
        )
    }

    /// `(property name of entity)`: the entity's property, found by the name's fixed id
    /// when it has one (one array read, one look at the world), else the general way.
    #[inline]
    pub(super) fn property_of(
        &mut self,
        cx: &Context<'_>,
        entity: &Value,
        name: crate::symbol::Symbol,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        if let Some((_, e)) = self.fixed_entity(entity)
            && let Some(v) = e.property(cx.game, name)
        {
            return Ok(v.clone());
        }
        self.property_of_slowly(cx, entity, name, span)
    }

    /// [`Machine::property_of`] of the value at `at` on the stack (a local).
    #[inline(never)]
    pub(super) fn local_property_of(
        &mut self,
        cx: &Context<'_>,
        at: usize,
        name: crate::symbol::Symbol,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let entity = self.stack[at].clone();
        self.property_of(cx, &entity, name, span)
    }

    /// `(property name of entity)` in its commonest case, with no call out of line: an
    /// entity the game started with and a property of its layout. `None` when
    /// [`Machine::property_of`] must be asked.
    #[inline(always)]
    pub(super) fn fixed_property(
        &self,
        game: &crate::compile::program::Game,
        entity: &Value,
        name: crate::symbol::Symbol,
    ) -> Option<&Value> {
        self.fixed_entity(entity)?.1.layout_property(game, name)
    }

    /// `(state of v)` when `v` names an entity the game started with: read in line, as a
    /// property is. `None` for any other name, which the form looks up (counting the
    /// lookup, reporting what is wrong).
    #[inline(always)]
    pub(super) fn fixed_state(&self, v: &Value) -> Option<crate::symbol::Symbol> {
        self.fixed_entity(v).map(|(_, e)| e.state)
    }

    /// Whether the entity the game started with that stack slot `at` names is in state
    /// `s` ([`Op::LocalStateJump`]); `None` for any other value. Out of line: the
    /// instruction loop keeps its registers.
    ///
    /// [`Op::LocalStateJump`]: crate::compile::bytecode::Op::LocalStateJump
    #[inline(never)]
    pub(super) fn state_is(&self, at: usize, s: crate::symbol::Symbol) -> Option<bool> {
        Some(self.fixed_state(self.stack.get(at)?)? == s)
    }

    /// [`Machine::property_of`] for an entity made at run time, or an error.
    #[cold]
    #[inline(never)]
    fn property_of_slowly(
        &mut self,
        cx: &Context<'_>,
        entity: &Value,
        name: crate::symbol::Symbol,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let id = self.entity_named(entity, span)?;
        self.read_property(cx, id, name, span)
    }

    /// The entity the game started with that a name value designates, if it still exists.
    #[inline(always)]
    pub(super) fn fixed_entity(&self, v: &Value) -> Option<(super::EntityId, &Entity)> {
        // A string made at run time takes the general path (a lookup of its text).
        self.fixed_entity_of(written_name(v)?)
    }

    /// The entity the game started with that is named `name`, if it still exists: one
    /// array read in the session's fixed table, checked against the world.
    #[inline(always)]
    pub(super) fn fixed_entity_of(
        &self,
        name: crate::symbol::Symbol,
    ) -> Option<(super::EntityId, &Entity)> {
        let id = self.fixed.get(name)?;
        // The fixed table holds the ids the world gave its entities, never a
        // representation's.
        let e = self.world.game_entity(id)?;
        (e.name == name).then_some((id, e))
    }

    /// The entity a name value designates, and its id: [`Machine::entity_named`] that
    /// looks at the world once for an entity the game started with.
    #[inline(always)]
    pub(super) fn named_entity(
        &mut self,
        v: &Value,
        span: Span,
    ) -> Result<(super::EntityId, &Entity), RuntimeError> {
        self.count_entity_name(v, span)?;
        match self.fixed_entity(v) {
            Some(found) => Ok(found),
            None => self.named_entity_slowly(v, span),
        }
    }

    #[cold]
    #[inline(never)]
    fn named_entity_slowly(
        &self,
        v: &Value,
        span: Span,
    ) -> Result<(super::EntityId, &Entity), RuntimeError> {
        let id = self.find_entity(v, span)?;
        match self.world.entity(id) {
            Some(e) => Ok((id, e)),
            None => Err(self.error(span, "internal: entity vanished")),
        }
    }

    /// `(property name)` of the running entity `id`: read from its layout or its run-time
    /// properties when it has the property, else the general way (a representation
    /// reading its entity's property, errors).
    #[inline]
    pub(super) fn own_property(
        &self,
        cx: &Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        if let Some(v) = self
            .world
            .entity(id)
            .and_then(|e| e.property(cx.game, name))
        {
            return Ok(v.clone());
        }
        self.read_property(cx, id, name, span)
    }

    /// Property `name` of entity `id`, the general way: a deleted entity, a representation
    /// reading its entity's property, a missing property (kept out of line: the fast paths
    /// above answer the common cases).
    #[inline(never)]
    pub(super) fn read_property(
        &self,
        cx: &Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let Some(e) = self.world.entity(id) else {
            return Err(self.deleted(span));
        };
        match e.property(cx.game, name) {
            Some(v) => Ok(v.clone()),
            // A representation reads its entity's properties where it has none of its own.
            None if id.is_representation() => match self.world.entity(id.represented()) {
                Some(entity) => match entity.property(cx.game, name) {
                    Some(v) => Ok(v.clone()),
                    None => Err(self.missing_property(cx, entity, name, span)),
                },
                None => Err(self.deleted(span)),
            },
            None => Err(self.missing_property(cx, e, name, span)),
        }
    }

    fn missing_property(
        &self,
        cx: &Context<'_>,
        e: &Entity,
        name: crate::symbol::Symbol,
        span: Span,
    ) -> RuntimeError {
        let mut err = self.error(span, format!("{} has no property \"{name}\"", e.name));
        let names: Vec<&str> = e.properties(cx.game).map(|(n, _)| n.as_str()).collect();
        err.hint = Some(
            match crate::diagnostic::closest(name.as_str(), names.iter().copied()) {
                Some(c) => format!("did you mean \"{c}\"?"),
                None => format!(
                    "declare it with `#property {name} <default>` in its #entity, or make it with (new property \"{name}\" as <value>)"
                ),
            },
        );
        err
    }

    /// `(update property name to value)` in its commonest case, done in one pass: a
    /// property of the layout of the running entity (not a representation), written as a
    /// name in the game, with nobody watching, no event to record and no step to pause
    /// at. Whether it applied: when it did, the operands were replaced on the stack by the
    /// form's value, nil; when it did not, the operands are still on the stack and
    /// nothing changed that anyone can see, for the general path to take over.
    /// Out of line: the instruction loop, which tries it before the form, keeps its
    /// registers.
    #[inline(never)]
    pub(super) fn update_own_property_here(&mut self, cx: &Context<'_>) -> bool {
        if self.world.canvas.active || cx.trace || cx.stepping {
            return false;
        }
        let n = self.stack.len();
        let Some(name) = self.stack.get(n.wrapping_sub(2)).and_then(written_name) else {
            return false;
        };
        let Some(id) = self.own_game_entity() else {
            return false;
        };
        let logging = self.logging();
        let Some((slot, place)) = layout_place(&mut self.world, cx.game, id, name) else {
            return false;
        };
        // The operands: the name under the value. The form's value, nil, takes the name's
        // place on the stack (no pop and push).
        let Some(value) = self.stack.pop() else {
            return false;
        };
        let name = std::mem::take(&mut self.stack[n - 2]);
        let old = std::mem::replace(place, value);
        Value::release(name);
        if logging {
            self.log_slot(id, slot, old);
        } else {
            Value::release(old);
        }
        true
    }

    /// `(update property "p" to (append (property "p") x))` of the running entity, at its
    /// `append` (the form next), on the instruction loop's three operands: see
    /// [`Machine::append_to_property`]. Whether it applied (the form's value, nil,
    /// then in place of the operands); when not, the operands are as they were.
    #[inline(never)]
    pub(super) fn append_own_here(&mut self, cx: &Context<'_>) -> bool {
        let n = self.stack.len();
        let [named, Value::List(_), _] = &self.stack[n.saturating_sub(3)..] else {
            return false;
        };
        let (Some(name), Some(id)) = (written_name(named), self.own_game_entity()) else {
            return false;
        };
        let element = self.stack.pop().unwrap_or_default();
        let list = self.stack.pop().unwrap_or_default();
        let at = ListPlace {
            id,
            name,
            kept: None,
        };
        match self.append_to_property(cx, at, list, element) {
            Ok(()) => {
                // The name's place takes the form's value (a symbol's text: nothing to
                // free).
                self.stack[n - 3] = Value::Nil;
                true
            }
            Err((list, element)) => {
                self.stack.push(list);
                self.stack.push(element);
                false
            }
        }
    }

    /// `(update property "name" to (append list element))` of the property `at`, where
    /// `list` was read from that property: the element pushed onto the list where it
    /// lies in the property, when nobody else holds that list (the property and `list`
    /// are its only holders), instead of a copy with it that replaces the list. The
    /// copy, and the old list the undo log would keep and drop, cost as much as the
    /// list is long; this costs as much as one element, and the log keeps what takes it
    /// off again ([`Undo::Pushed`](super::undo::Undo)). Taken only where `append` would
    /// charge nothing but its element and could not fail (a flat list with room, an
    /// element whose nesting is known without a walk, memory and length within their
    /// limits) and the form would write in one pass
    /// ([`Machine::update_own_property_here`]): the same memory charged and the same
    /// list. When it does not apply, the two values come back and nothing changed that
    /// anyone can see.
    pub(super) fn append_to_property(
        &mut self,
        cx: &Context<'_>,
        at: ListPlace,
        list: Value,
        element: Value,
    ) -> Result<(), (Value, Value)> {
        let limits = &self.meter.limits;
        let fits = |l: &List| {
            l.has_flat_room()
                && l.len() < limits.max_length
                && depth_without_walk(&element, limits.max_nesting).is_some()
        };
        let id = at.id;
        if !lone_list(self, cx, id, &list, fits) || !self.meter.fits(ELEMENT_BYTES) {
            return Err((list, element));
        }
        let depth = depth_without_walk(&element, self.meter.limits.max_nesting).unwrap_or(0);
        let (logging, owned) = (self.logging(), self.owned_place(at));
        let Some((slot, held)) = list_where_it_lies(&mut self.world, cx, at, owned, &list) else {
            return Err((list, element));
        };
        // What `append` charges, which cannot fail here.
        if self.meter.alloc(ELEMENT_BYTES).is_err() {
            return Err((list, element));
        }
        // The operand's hold let go, the property's is the only one.
        Value::release(list);
        // Nobody else holds it now: in place.
        let held = List::make_mut(held, 1);
        let marks = held.marks();
        held.push_back(element, depth);
        if logging {
            self.log_pushed(id, slot, marks);
        }
        Ok(())
    }

    /// Where property `at` lies, when its place was kept and the entity lies there and
    /// may be written there (`Addresses::owned_property`).
    #[cfg(feature = "jit")]
    #[inline(always)]
    fn owned_place(&self, at: ListPlace) -> Option<*mut Value> {
        let entities = &self.world.entities;
        self.addresses.owned_property(entities, at.id.0, at.kept?)
    }

    /// Without machine code, no place is kept.
    #[cfg(not(feature = "jit"))]
    fn owned_place(&self, _: ListPlace) -> Option<*mut Value> {
        None
    }

    /// `(update property "p" to (put (property "p") i v))` of the running entity, at its
    /// `put` (the form next), on the instruction loop's four operands: see
    /// [`Machine::put_into_property`]. Whether it applied (the form's value, nil, then in
    /// place of the operands); when not, the operands are as they were.
    #[inline(never)]
    pub(super) fn put_own_here(&mut self, cx: &Context<'_>) -> bool {
        let n = self.stack.len();
        let [named, Value::List(_), Value::Int(_), _] = &self.stack[n.saturating_sub(4)..] else {
            return false;
        };
        let (Some(name), Some(id)) = (written_name(named), self.own_game_entity()) else {
            return false;
        };
        let value = self.stack.pop().unwrap_or_default();
        let index = self.stack.pop().unwrap_or_default();
        let list = self.stack.pop().unwrap_or_default();
        let at = ListPlace {
            id,
            name,
            kept: None,
        };
        match self.put_into_property(cx, at, list, index, value) {
            Ok(()) => {
                // The name's place takes the form's value (a symbol's text: nothing to
                // free).
                self.stack[n - 4] = Value::Nil;
                true
            }
            Err((list, index, value)) => {
                self.stack.push(list);
                self.stack.push(index);
                self.stack.push(value);
                false
            }
        }
    }

    /// `(update property "name" to (put list index value))` of the property `at`, where
    /// `list` was read from that property: the element at `index` replaced where the list
    /// lies in the property, when nobody else holds that list, instead of a copy with it
    /// that replaces the list (as [`Machine::append_to_property`] pushes, and for the
    /// same reasons: the copy and the old list the undo log would keep cost as much as
    /// the list is long). The log keeps the element replaced
    /// ([`Undo::Slot`](super::undo::Undo)). Taken only where `put` could not fail and
    /// would charge nothing (an integer index within the list, a value whose nesting is
    /// known without a walk), and the form would write in one pass: the same list. When
    /// it does not apply, the three values come back and nothing changed that anyone
    /// can see.
    pub(super) fn put_into_property(
        &mut self,
        cx: &Context<'_>,
        at: ListPlace,
        list: Value,
        index: Value,
        value: Value,
    ) -> Result<(), (Value, Value, Value)> {
        let max_nesting = self.meter.limits.max_nesting;
        let Some(depth) = depth_without_walk(&value, max_nesting) else {
            return Err((list, index, value));
        };
        let element = match index {
            // An index the undo log can keep (see `Undo::Slot`).
            Value::Int(i) => u16::try_from(i).ok().filter(|&i| i != super::undo::WHOLE),
            _ => None,
        };
        let id = at.id;
        let fits = |i: u16, l: &List| usize::from(i) < l.len() && l.keeps_bounds(&value, depth);
        let Some(element) = element.filter(|&i| lone_list(self, cx, id, &list, |l| fits(i, l)))
        else {
            return Err((list, index, value));
        };
        let (logging, owned) = (self.logging(), self.owned_place(at));
        let Some((slot, held)) = list_where_it_lies(&mut self.world, cx, at, owned, &list) else {
            return Err((list, index, value));
        };
        Value::release(list);
        let held = List::make_mut(held, 0);
        let old = held
            .replace(usize::from(element), value, depth)
            .unwrap_or_default();
        if logging {
            self.log_put(id, slot, element, old);
        } else {
            Value::release(old);
        }
        Ok(())
    }

    /// `(changeState "s")` of the running entity (not a representation), its state written
    /// as a name in the game, with no event to record: the form's work done in one pass.
    /// Whether it applied: when it did, the state operand was replaced on the stack by the
    /// form's value, nil; when it did not, nothing changed, for the form to take over.
    /// Out of line, as [`Machine::update_own_property_here`].
    #[inline(never)]
    pub(super) fn change_own_state_here(&mut self, cx: &Context<'_>) -> bool {
        if cx.trace || cx.stepping {
            return false;
        }
        let Some(state) = self.stack.last().and_then(written_name) else {
            return false;
        };
        let Some(id) = self.own_game_entity() else {
            return false;
        };
        let logging = self.logging();
        let Some(e) = self.world.game_entity_mut(id) else {
            return false;
        };
        let from = std::mem::replace(&mut e.state, state);
        if logging {
            self.log_state(id, from);
        }
        if let Some(top) = self.stack.last_mut() {
            // A symbol's text: nothing to let go.
            *top = Value::Nil;
        }
        true
    }

    /// Change (or make) property `name` of entity `id`, after telling the representation
    /// that observes it, if someone watches.
    fn write_property(
        &mut self,
        cx: &mut Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        mut value: Value,
        new: bool,
        span: Span,
    ) -> Result<Flow, RuntimeError> {
        let game = cx.game;
        if !new && !self.world.canvas.active {
            if !id.is_representation() && !cx.trace && !cx.stepping {
                if let Err(v) = self.write_layout_slot(cx, id, name, value) {
                    value = v;
                } else {
                    return Ok(Flow::Value(Value::Nil));
                }
            } else if let Some(slot) = self.world.entity(id).and_then(|e| {
                game.slot(e.ty, name)
                    .filter(|&s| (s as usize) < e.props.len())
            }) {
                // A property of the layout, and nobody watching.
                self.store_slot(cx, id, name, slot, value);
                return Ok(Flow::Value(Value::Nil));
            }
        }
        let exists = self
            .world
            .entity(id)
            .is_some_and(|e| e.property(game, name).is_some());
        if new && exists {
            let mut e = self.error(span, format!("property \"{name}\" already exists"));
            e.hint = Some(format!(
                "change it with (update property \"{name}\" to <value>)"
            ));
            return Err(e);
        }
        if !new && !exists {
            let Some(e) = self.world.entity(id) else {
                return Err(self.deleted(span));
            };
            return Err(self.missing_property(cx, e, name, span));
        }
        if self.world.canvas.active
            && let Some(flow) = self.observed(cx, id, name, &value, new, span)?
        {
            return Ok(flow);
        }
        self.store_property(cx, id, name, value, new)?;
        Ok(Flow::Value(Value::Nil))
    }

    /// The commonest write: property `name` of the layout of entity `id` of the game (not
    /// a representation), nobody watching, no event, found and written with one look at
    /// the world. The value back when the write is not that.
    #[inline(always)]
    pub(super) fn write_layout_slot(
        &mut self,
        cx: &Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        value: Value,
    ) -> Result<(), Value> {
        if self.world.canvas.active || id.is_representation() || cx.trace || cx.stepping {
            return Err(value);
        }
        let logging = self.logging();
        let Some(e) = self.world.entity_mut(id) else {
            return Err(value);
        };
        let Some(place) = cx
            .game
            .slot(e.ty, name)
            .and_then(|slot| Some((slot, e.props.get_mut(slot as usize)?)))
        else {
            return Err(value);
        };
        let (slot, place) = place;
        let old = std::mem::replace(place, value);
        if logging {
            self.log_slot(id, slot, old);
        } else {
            Value::release(old);
        }
        Ok(())
    }

    /// Write `value` to the slot `slot` of entity `id` (which has it), as property `name`.
    fn store_slot(
        &mut self,
        cx: &Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        slot: u16,
        value: Value,
    ) {
        let tracing = cx.trace || cx.stepping;
        if id.is_representation() {
            // A representation lives in the canvas, which the undo log does not cover.
            self.keep_start();
        }
        let logging = self.logging();
        let Some(e) = self.world.entity_mut(id) else {
            return;
        };
        let Some(place) = e.props.get_mut(slot as usize) else {
            return;
        };
        if !tracing {
            let old = std::mem::replace(place, value);
            if logging {
                self.log_slot(id, slot, old);
            }
            return;
        }
        let old = std::mem::replace(place, value.clone());
        let entity = e.name;
        if logging {
            self.log_slot(id, slot, old.clone());
        }
        self.property_event(cx, entity, name, old, value);
    }

    /// The trace event of a property write.
    fn property_event(
        &mut self,
        cx: &Context<'_>,
        entity: crate::symbol::Symbol,
        name: crate::symbol::Symbol,
        old: Value,
        new: Value,
    ) {
        let depth = self.jps.len();
        self.event(
            cx,
            TraceEvent::Property {
                depth,
                entity,
                name,
                old,
                new,
            },
        );
    }

    /// Write property `name` of `id`, checked already.
    pub(super) fn store_property(
        &mut self,
        cx: &mut Context<'_>,
        id: super::EntityId,
        name: crate::symbol::Symbol,
        value: Value,
        new: bool,
    ) -> Result<(), RuntimeError> {
        let game = cx.game;
        let tracing = cx.trace || cx.stepping;
        // Run-time properties and observed writes are not in the undo log.
        self.keep_start();
        let Some(e) = self.world.entity_mut(id) else {
            return Err(self.error(
                super::OUTSIDE,
                "an entity was deleted before its observed property changed",
            ));
        };
        let entity = e.name;
        let old = if new {
            e.extra.insert(Key::sym(name), value.clone());
            Value::Nil
        } else {
            match e.property_mut(game, name) {
                Some(slot) => std::mem::replace(slot, value.clone()),
                None => Value::Nil,
            }
        };
        if tracing {
            self.property_event(cx, entity, name, old, value);
        }
        Ok(())
    }
}

/// What creating `entity` is counted: [`ENTITY_BYTES`], the bytes of its name, and an
/// element for each property kept outside the entity (past the inline ones) or added
/// by name (whose values were counted as they were made).
fn entity_bytes(entity: &Entity) -> u64 {
    let outside = if entity.props.spilled() {
        entity.props.len()
    } else {
        0
    };
    let added = entity.extra.iter().count();
    ENTITY_BYTES
        + entity.name.as_str().len() as u64
        + ELEMENT_BYTES * outside as u64
        + ENTRY_BYTES * added as u64
}
