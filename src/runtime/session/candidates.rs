//! The candidate actions of a position: [`Action`] (named), [`Candidate`] (named only
//! when reported), [`CandidateItems`] (the `#actions` list as it was given) and how an
//! action is named.

use std::rc::Rc;

pub use crate::runtime::value::action_name;
use crate::runtime::value::action_of;
use crate::runtime::value::{List, Message, Value};
use crate::symbol::Symbol;

/// One candidate player action.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    /// What the players call it.
    pub name: String,
    /// Who receives the message.
    pub recipient: Symbol,
    /// The message.
    pub message: Rc<Message>,
}

/// A candidate action not yet named: who receives which message. Trying moves (playouts,
/// perft) names a candidate only when it has to report it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Who receives the message.
    pub recipient: Symbol,
    /// The message.
    pub message: Rc<Message>,
}

impl Candidate {
    /// A copy sharing no reference count with this one (see [`Value::private_copy`]).
    pub fn private_copy(&self) -> Candidate {
        let message = match Value::Message(self.message.clone()).private_copy() {
            Value::Message(m) => m,
            _ => unreachable!("a message's copy is a message"),
        };
        Candidate {
            recipient: self.recipient,
            message,
        }
    }

    /// What the players call it (see [`action_name`]).
    pub fn name(&self) -> String {
        action_name(self.recipient, &self.message)
    }

    /// The candidate with its name.
    pub fn into_action(self) -> Action {
        Action {
            name: self.name(),
            recipient: self.recipient,
            message: self.message,
        }
    }
}

/// The candidates `#actions` gave, as it gave them: a list whose items are all
/// `(list <recipient> <message>)` ([`Session::candidate_items`](super::Session::candidate_items)).
#[derive(Clone, Debug, Default)]
pub struct CandidateItems {
    pub(super) items: Option<Rc<List>>,
}

impl CandidateItems {
    /// How many candidates there are.
    pub fn len(&self) -> usize {
        self.items.as_ref().map_or(0, |l| l.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Candidate `i`, in the order `#actions` gave them (`None` past the end).
    pub fn get(&self, i: usize) -> Option<Candidate> {
        candidate_of(self.items.as_ref()?.get(i)?)
    }

    /// Every candidate, in the order `#actions` gave them.
    pub fn to_vec(&self) -> Vec<Candidate> {
        let mut out = Vec::with_capacity(self.len());
        if let Some(items) = &self.items {
            for item in items.chunks().flatten() {
                out.extend(candidate_of(item));
            }
        }
        out
    }
}

/// The candidate an item of a checked `#actions` list stands for.
fn candidate_of(item: &Value) -> Option<Candidate> {
    let (recipient, message) = action_of(item).ok()?;
    Some(Candidate { recipient, message })
}

/// The lists `#actions` gave lately that were found to hold only candidates: a game
/// that hands out the same lists turn after turn (Awele's moves, made once per player)
/// has each checked once. A list kept here is held, so it cannot change in place nor
/// its place be another list's.
#[derive(Clone, Debug, Default)]
pub(super) struct CheckedLists {
    lists: [Option<Rc<List>>; CHECKED_LISTS],
    next: usize,
}

/// How many lists a [`CheckedLists`] keeps (one per player of a two-player game).
const CHECKED_LISTS: usize = 2;

impl CheckedLists {
    /// Whether `list` was checked.
    pub(super) fn has(&self, list: &Rc<List>) -> bool {
        self.lists.iter().flatten().any(|l| Rc::ptr_eq(l, list))
    }

    /// Keep `list` as checked, in place of the oldest.
    pub(super) fn keep(&mut self, list: &Rc<List>) {
        self.lists[self.next] = Some(list.clone());
        self.next = (self.next + 1) % CHECKED_LISTS;
    }
}
