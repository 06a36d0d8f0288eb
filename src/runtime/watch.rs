//! Watching a game: the representations attached to every entity, and clicks on what
//! they drew.
//!
//! A session draws nothing until [`Session::watch`] is called (the REPL, `flexrules
//! render`, `run --board` call it; playouts and perft do not), so games that are only
//! played by programs never run representation code.

use std::rc::Rc;

use crate::symbol::Symbol;

use super::canvas::Click;
use super::session::Session;
use super::trace::{Output, RuntimeError, Status};
use super::value::{Attrs, Message, Value};
use super::vm::{Machine, Run};
use super::world::Entity;

/// What a click on a graphic asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Clicked {
    /// Deliver this message to the representation of `owner` (a transaction).
    Notify {
        /// The entity whose representation drew the graphic.
        owner: Symbol,
        /// The message.
        message: Rc<Message>,
    },
    /// Emit a signal: it answers a transaction waiting for it.
    Emit {
        /// The signal.
        signal: Symbol,
        /// The tag `(wait signal ...)` returns.
        tag: Value,
    },
}

impl Session {
    /// Whether the game defines any representation.
    pub fn has_representations(&self) -> bool {
        self.game.representations.iter().any(Option::is_some)
    }

    /// Start drawing: attach a representation to every entity whose type has one and
    /// deliver `init` to each, in creation order. From then on, observers are told of
    /// property changes and new entities get their representation. Does nothing when the
    /// game has no representation or is watched already. On failure the world is as it
    /// was.
    pub fn watch(&mut self) -> Result<Vec<Output>, RuntimeError> {
        if self.world().canvas.active || !self.has_representations() {
            return Ok(Vec::new());
        }
        let before = self.world().clone();
        let game = self.game.clone();
        let mut canvas = (*self.world().canvas).clone();
        canvas.active = true;
        let mut represented = Vec::new();
        for (id, e) in before.iter() {
            if let Some(ty) = game.representation(e.ty) {
                canvas.attach(
                    id,
                    Entity {
                        name: e.name,
                        ty,
                        state: Symbol::intern("default"),
                        props: self.defaults(ty).into(),
                        extra: Default::default(),
                    },
                );
                represented.push(id);
            }
        }
        self.world_mut().canvas = Rc::new(canvas);
        let mut output = Vec::new();
        for id in represented {
            let msg = Message {
                label: Symbol::intern("init"),
                attrs: Attrs::new(),
            };
            let m = self.begin_to(id.representation(), msg);
            match self.run_to_end(m) {
                Ok(mut out) => output.append(&mut out),
                Err(e) => {
                    *self.world_mut() = before;
                    return Err(e);
                }
            }
        }
        Ok(output)
    }

    /// What clicking graphic `id` of the entity named `owner` does.
    pub fn clicked(&self, owner: &str, id: &str) -> Result<Clicked, String> {
        let (owner, id) = (Symbol::intern(owner), Symbol::intern(id));
        let Some(g) = self.world().canvas.find(owner, id) else {
            return Err(format!("{owner} has no graphic \"{id}\""));
        };
        match &g.click {
            Some(Click::Notify(m)) => Ok(Clicked::Notify {
                owner,
                message: m.clone(),
            }),
            Some(Click::Emit { signal, tag }) => Ok(Clicked::Emit {
                signal: *signal,
                tag: tag.clone(),
            }),
            None => Err(format!("clicking {owner}/{id} does nothing")),
        }
    }

    /// Start the transaction a click notifies: `message` delivered to the representation
    /// of `owner`. Drive it with [`Session::resume`].
    pub fn begin_click(&mut self, owner: Symbol, message: &Message) -> Result<Machine, String> {
        let Some(id) = self.world().lookup(owner) else {
            return Err(format!("no entity named \"{owner}\""));
        };
        if self.world().canvas.representation(id).is_none() {
            return Err(format!("{owner} has no representation"));
        }
        Ok(self.begin_to(id.representation(), message.clone()))
    }

    fn run_to_end(&mut self, mut m: Machine) -> Result<Vec<Output>, RuntimeError> {
        let status = loop {
            match self.resume(&mut m, false) {
                Run::Finished(status) => break status,
                Run::Stepped => continue,
                Run::Waiting(wait) => {
                    let signal = wait.signal;
                    return Err(RuntimeError {
                        message: format!(
                            "a representation's init waits for signal \"{signal}\"; init cannot wait"
                        ),
                        hint: Some("wait for signals in the entities' behaviours".into()),
                        span: None,
                        chain: Vec::new(),
                        calls: None,
                    });
                }
            }
        };
        let tx = self.conclude(m, status);
        match tx.status {
            Status::Failed(e) => Err(e),
            _ => Ok(tx.output),
        }
    }
}
