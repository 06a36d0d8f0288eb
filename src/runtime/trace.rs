//! What a transaction did, step by step, and how it ended.

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::symbol::Symbol;

use super::value::Value;

/// One step of a transaction, at a depth of nested join points (1 = the outermost).
#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    /// A message arrived at an entity.
    Arrive {
        /// Nesting depth.
        depth: usize,
        /// The receiving entity.
        entity: Symbol,
        /// Its state on arrival.
        state: Symbol,
        /// The message.
        message: Value,
        /// Who sent it (`None`: the user).
        sender: Option<Symbol>,
    },
    /// A law is about to run.
    Law {
        /// Nesting depth.
        depth: usize,
        /// The law.
        name: Symbol,
    },
    /// A law vetoed the message.
    Vetoed {
        /// Nesting depth.
        depth: usize,
        /// The law.
        name: Symbol,
    },
    /// The behaviour is about to run.
    Behaviour {
        /// Nesting depth.
        depth: usize,
        /// What the behaviour is (`behaviour hole/default/seed`).
        name: String,
    },
    /// No behaviour handles the message in this state: it is ignored.
    NoBehaviour {
        /// Nesting depth.
        depth: usize,
        /// The entity.
        entity: Symbol,
        /// The label.
        label: Symbol,
        /// The state.
        state: Symbol,
    },
    /// A side-effect is about to run.
    SideEffect {
        /// Nesting depth.
        depth: usize,
        /// The side-effect.
        name: Symbol,
    },
    /// The join point finished; its value is the value of the `send`.
    Done {
        /// Nesting depth.
        depth: usize,
        /// The value.
        value: Value,
    },
    /// An entity changed state.
    StateChange {
        /// Nesting depth.
        depth: usize,
        /// The entity.
        entity: Symbol,
        /// Old state.
        from: Symbol,
        /// New state.
        to: Symbol,
    },
    /// A property changed.
    Property {
        /// Nesting depth.
        depth: usize,
        /// The entity.
        entity: Symbol,
        /// The property.
        name: Symbol,
        /// Old value (nil for a new property).
        old: Value,
        /// New value.
        new: Value,
    },
    /// An entity was made.
    Created {
        /// Nesting depth.
        depth: usize,
        /// Its name.
        entity: Symbol,
        /// Its type.
        ty: Symbol,
    },
    /// An entity was deleted.
    Deleted {
        /// Nesting depth.
        depth: usize,
        /// Its name.
        entity: Symbol,
    },
    /// `(open checkpoint)`.
    Checkpoint {
        /// Nesting depth.
        depth: usize,
        /// How many checkpoints are open now.
        open: usize,
    },
    /// `(rollback reason)`.
    Rollback {
        /// Nesting depth.
        depth: usize,
        /// The reason.
        reason: String,
    },
}

/// A runtime error: what went wrong, where, and the chain of messages that led there.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// What went wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
    /// The code that failed; `None` when the problem is in a message from outside (a
    /// `--send` naming no entity), which has no place in the sources.
    pub span: Option<Span>,
    /// Innermost first: `hole4 handled seed from hole3`, ...
    pub chain: Vec<String>,
    /// The calls of `#define`d functions the failing code is in, if any.
    pub calls: Option<Box<Calls>>,
}

/// The calls of functions a runtime error happened inside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Calls {
    /// Where they were made, innermost first (at most [`CALLS_SHOWN`] places).
    pub sites: Vec<CallSite>,
    /// Calls made from other places, further out.
    pub more: usize,
}

/// Where a function the failing code is in was called, and how many of the calls it is
/// in were made there (more than one in a recursion).
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    /// The function (`function worth`).
    pub function: String,
    /// The call.
    pub at: Span,
    /// How many of the calls were made there.
    pub times: usize,
}

/// The most places of calls a runtime error points at (innermost first).
pub const CALLS_SHOWN: usize = 6;

impl RuntimeError {
    /// The diagnostic for this error, when it has a place in the sources.
    pub fn to_diagnostic(&self) -> Option<Diagnostic> {
        let mut d = Diagnostic::error("runtime-error", self.span?, &self.message);
        if let Some(calls) = &self.calls {
            for c in &calls.sites {
                let times = match c.times {
                    1 => String::new(),
                    n => format!(" ({n} of the nested calls)"),
                };
                d = d.with_note(c.at, format!("in {}, called here{times}", c.function));
            }
            if calls.more > 0 {
                d = d.with_context(format!("... in {} more calls", calls.more));
            }
        }
        if !self.chain.is_empty() {
            d = d.with_context(format!("message chain: {}", self.chain.join(" <- ")));
        }
        if let Some(h) = &self.hint {
            d = d.with_hint(h.clone());
        }
        Some(d)
    }

    /// The error for people: the rendered diagnostic, or plain lines when it has no place.
    pub fn render(&self, sources: &crate::source::SourceMap, color: bool) -> String {
        match self.to_diagnostic() {
            Some(d) => {
                let mut out = Vec::new();
                let _ = crate::diagnostic::render(
                    sources,
                    &[d],
                    crate::diagnostic::RenderConfig { color },
                    &mut out,
                );
                String::from_utf8_lossy(&out).into_owned()
            }
            None => {
                let mut s = format!("error: {}\n", self.message);
                if !self.chain.is_empty() {
                    s.push_str(&format!("  message chain: {}\n", self.chain.join(" <- ")));
                }
                if let Some(h) = &self.hint {
                    s.push_str(&format!("  help: {h}\n"));
                }
                s
            }
        }
    }
}

/// How a transaction ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// It ran to the end; the value of the outermost send or expression.
    Committed(Value),
    /// A law at the outermost join point vetoed it: nothing happened.
    Vetoed {
        /// The law.
        law: Symbol,
    },
    /// `(rollback reason)`: the world is the most recent checkpoint.
    RolledBack {
        /// The reason given.
        reason: String,
    },
    /// A runtime error: the world is as it was before the transaction.
    Failed(RuntimeError),
}

impl Status {
    /// True when the transaction committed.
    pub fn committed(&self) -> bool {
        matches!(self, Status::Committed(_))
    }

    /// One line for people: `committed`, `vetoed by <law>`, ...
    pub fn summary(&self) -> String {
        match self {
            Status::Committed(Value::Nil) => "committed".to_string(),
            Status::Committed(v) => format!("committed: {v}"),
            Status::Vetoed { law } => format!("vetoed by {law}"),
            Status::RolledBack { reason } => format!("rolled back: {reason}"),
            Status::Failed(e) => format!("failed: {}", e.message),
        }
    }
}

/// A finished transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct Transaction {
    /// How it ended.
    pub status: Status,
    /// Lines from `notify` and `print`, in order (`notify:` / `print:` prefixed kinds).
    pub output: Vec<Output>,
    /// The steps, when tracing was on.
    pub trace: Vec<TraceEvent>,
    /// Instructions executed.
    pub steps: u64,
}

/// A line of output.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// `(notify text)`: shown to the players.
    Notify(String),
    /// `(print ...)`: written to the trace.
    Print(String),
}
