//! The representation forms: graphics, observers, click hooks; and the join points the
//! machine adds for representations (an entity's `init`, a property about to change).
//!
//! None of this runs unless the world's canvas is active (someone watches the game).

use std::rc::Rc;

use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::budget::{ENTRY_BYTES, GRAPHIC_BYTES};
use super::super::canvas::{Click, Graphic};
use super::super::trace::RuntimeError;
use super::super::value::{Attrs, Dict, Key, Message, Value};
use super::super::world::{Entity, EntityId};
use super::{Context, Flow, Machine, Then};

impl Machine {
    /// `new graphic`, `update graphic`, `delete graphic`, `observe`, `on ... clicked`.
    pub(super) fn drawing(
        &mut self,
        cx: &mut Context<'_>,
        op: FormOp,
        attrs: Dict,
        span: Span,
    ) -> Result<Flow, RuntimeError> {
        use FormOp::*;
        let me = match self.me() {
            Some((id, _)) if id.is_representation() => id,
            _ => {
                let mut e = self.error(span, "only a #representation draws and observes");
                e.hint = Some(
                    "this function was called from an entity's code; draw from the entity type's #representation"
                        .into(),
                );
                return Err(e);
            }
        };
        // The canvas is not in the undo log.
        self.keep_start();
        let owner = me.represented();
        let owner_name = self
            .world
            .entity(me)
            .map_or(Symbol::intern("?"), |e| e.name);
        match op {
            NewGraphic => {
                let [id] = self.pop_args();
                let id = self.graphic_id(&id, span)?;
                if self.world.canvas.graphics.contains_key(&(owner, id)) {
                    let mut e =
                        self.error(span, format!("{owner_name} already has a graphic \"{id}\""));
                    e.hint = Some(format!(
                        "change it with (update graphic \"{id}\" attribute <attribute> to <value>), or delete it first"
                    ));
                    return Err(e);
                }
                let bytes =
                    GRAPHIC_BYTES + ENTRY_BYTES * attrs.len() as u64 + id.as_str().len() as u64;
                self.meter
                    .alloc(bytes)
                    .map_err(|e| self.builtin_error(span, e))?;
                let canvas = Rc::make_mut(&mut self.world.canvas);
                let order = canvas.next_order;
                canvas.next_order += 1;
                canvas.graphics.insert(
                    (owner, id),
                    Rc::new(Graphic {
                        owner: owner_name,
                        id,
                        attrs,
                        order,
                        click: None,
                    }),
                );
                Ok(Flow::Value(Value::sym(id)))
            }
            UpdateGraphic => {
                let [id, attribute, value] = self.pop_args();
                let id = self.graphic_id(&id, span)?;
                let key = match attribute.as_key() {
                    Some(k) => k,
                    None => {
                        return Err(self.error(
                            span,
                            format!(
                                "a graphic's attribute is named by a string, got {} {attribute}",
                                attribute.type_name()
                            ),
                        ));
                    }
                };
                let added = self
                    .graphic_mut(owner, owner_name, id, span)?
                    .attrs
                    .insert(key, value)
                    .is_none();
                // An attribute added is held as those `new graphic` made are (its value
                // was counted as it was made).
                if added {
                    self.meter
                        .alloc(ENTRY_BYTES)
                        .map_err(|e| self.builtin_error(span, e))?;
                }
                Ok(Flow::Value(Value::Nil))
            }
            DeleteGraphic => {
                let [id] = self.pop_args();
                let id = self.graphic_id(&id, span)?;
                self.graphic_mut(owner, owner_name, id, span)?;
                Rc::make_mut(&mut self.world.canvas)
                    .graphics
                    .remove(&(owner, id));
                Ok(Flow::Value(Value::Nil))
            }
            Observe => {
                let [property, label] = self.pop_args();
                let property = self.symbol(&property, "a property name", span)?;
                let label = self.symbol(&label, "a message label", span)?;
                // Observing a property the entity does not have is a mistake to report now,
                // not a notification that never comes.
                self.read_property(cx, owner, property, span)?;
                Rc::make_mut(&mut self.world.canvas)
                    .observers
                    .insert((owner, property), label);
                Ok(Flow::Value(Value::Nil))
            }
            OnClickNotify => {
                let [id, message] = self.pop_args();
                let id = self.graphic_id(&id, span)?;
                let Value::Message(m) = message else {
                    let mut e = self.error(
                        span,
                        format!(
                            "a click notifies a message, got {} {message}",
                            message.type_name()
                        ),
                    );
                    e.hint = Some("build it first: (new message <label> with k v ...)".into());
                    return Err(e);
                };
                self.graphic_mut(owner, owner_name, id, span)?.click = Some(Click::Notify(m));
                Ok(Flow::Value(Value::Nil))
            }
            OnClickEmit => {
                let [id, signal, tag] = self.pop_args();
                let id = self.graphic_id(&id, span)?;
                let signal = self.symbol(&signal, "a signal name", span)?;
                self.graphic_mut(owner, owner_name, id, span)?.click =
                    Some(Click::Emit { signal, tag });
                Ok(Flow::Value(Value::Nil))
            }
            _ => Err(self.error(span, "internal: not a drawing form")),
        }
    }

    /// The name a graphic id value becomes: a string (a string made at run time of at
    /// most [`MAX_NAME_BYTES`](super::super::budget::MAX_NAME_BYTES) bytes) or an integer.
    fn graphic_id(&self, v: &Value, span: Span) -> Result<Symbol, RuntimeError> {
        match v {
            Value::Str(s) => self.text_name(s, "a graphic id", span),
            Value::Int(i) => Ok(Symbol::intern(&i.to_string())),
            other => Err(self.error(
                span,
                format!(
                    "a graphic is named by a string, got {} {other}",
                    other.type_name()
                ),
            )),
        }
    }

    /// The graphic `id` of `owner`, writable.
    fn graphic_mut(
        &mut self,
        owner: EntityId,
        owner_name: Symbol,
        id: Symbol,
        span: Span,
    ) -> Result<&mut Graphic, RuntimeError> {
        if !self.world.canvas.graphics.contains_key(&(owner, id)) {
            let mut e = self.error(span, format!("{owner_name} has no graphic \"{id}\""));
            let names: Vec<&str> = self
                .world
                .canvas
                .graphics
                .keys()
                .filter(|(o, _)| *o == owner)
                .map(|(_, g)| g.as_str())
                .collect();
            e.hint = Some(
                match crate::diagnostic::closest(id.as_str(), names.iter().copied()) {
                    Some(c) => format!("did you mean \"{c}\"?"),
                    None => format!("make it first with (new graphic \"{id}\")"),
                },
            );
            return Err(e);
        }
        let error = self.error(span, "internal: graphic vanished");
        self.keep_start();
        let canvas = Rc::make_mut(&mut self.world.canvas);
        canvas
            .graphics
            .get_mut(&(owner, id))
            .map(Rc::make_mut)
            .ok_or(error)
    }

    /// Property `name` of `id` is about to become `value`: if its representation observes
    /// it, deliver the notification first and make the change when it is handled.
    pub(super) fn observed(
        &mut self,
        cx: &mut Context<'_>,
        id: EntityId,
        name: Symbol,
        value: &Value,
        new: bool,
        span: Span,
    ) -> Result<Option<Flow>, RuntimeError> {
        if id.is_representation() {
            return Ok(None);
        }
        let Some(&label) = self.world.canvas.observers.get(&(id, name)) else {
            return Ok(None);
        };
        let old = self
            .world
            .entity(id)
            .and_then(|e| e.property(cx.game, name))
            .cloned()
            .unwrap_or_default();
        let mut attrs = Attrs::with_capacity(3);
        attrs.insert(Key::sym(Symbol::intern("value")), value.clone());
        attrs.insert(Key::sym(Symbol::intern("old")), old);
        attrs.insert(Key::sym(Symbol::intern("property")), Value::sym(name));
        let then = Then::Write {
            entity: id,
            name,
            value: value.clone(),
            new,
            held: std::mem::take(&mut self.paused),
        };
        let msg = Rc::new(Message { label, attrs });
        self.send_to(cx, id.representation(), msg, span, then)
            .map(Some)
    }

    /// A new entity `id` gets its representation, which receives `init`, when someone
    /// watches. `None` when there is nothing to do.
    pub(super) fn represent(
        &mut self,
        cx: &mut Context<'_>,
        id: EntityId,
        span: Span,
    ) -> Result<Option<Flow>, RuntimeError> {
        if !self.world.canvas.active {
            return Ok(None);
        }
        let Some(entity) = self.world.entity(id) else {
            return Ok(None);
        };
        let name = entity.name;
        let Some(ty) = cx.game.representation(entity.ty) else {
            return Ok(None);
        };
        let repr = Entity {
            name,
            ty,
            state: Symbol::intern("default"),
            props: self.defaults_for(cx, ty).into(),
            extra: Default::default(),
        };
        self.keep_start();
        Rc::make_mut(&mut self.world.canvas).attach(id, repr);
        let msg = Rc::new(Message {
            label: Symbol::intern("init"),
            attrs: Attrs::new(),
        });
        self.send_to(
            cx,
            id.representation(),
            msg,
            span,
            Then::Yield(Value::sym(name)),
        )
        .map(Some)
    }
}
