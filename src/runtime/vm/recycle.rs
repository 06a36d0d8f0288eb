//! Message recycling: the message a join point handled, kept (emptied) by the machine for
//! the next message a form makes, when the join point ends holding its only reference.

use std::rc::Rc;

use super::super::value::Message;

/// Message allocations kept for the next messages the machine makes: two, as a
/// message's behaviour often sends one that ends before it. Held by the machine itself,
/// so keeping and taking one is a few moves (a thread-local store cost about twenty
/// machine instructions a send more).
#[derive(Default)]
pub(super) struct SpareMessages([Option<Rc<Message>>; 2]);

impl std::fmt::Debug for SpareMessages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} spare messages", self.0.iter().flatten().count())
    }
}

impl SpareMessages {
    /// Let `msg` go, keeping its allocation, emptied, for the next message made when
    /// nothing else holds it (a message made by `send new message`, most often; a
    /// delivered or tried one is held by its caller too, and is only counted down), its
    /// attributes have room for few (a message that had many gives back their memory)
    /// and a place is free.
    #[inline(always)]
    pub(super) fn keep(&mut self, msg: Rc<Message>) {
        if Rc::strong_count(&msg) == 1 {
            self.keep_unshared(msg);
        }
    }

    #[inline(never)]
    fn keep_unshared(&mut self, mut msg: Rc<Message>) {
        if let Some(m) = Rc::get_mut(&mut msg)
            && m.attrs.capacity() <= super::super::value::attrs::ORDER_UP_TO
            && let Some(free) = self.0.iter_mut().find(|p| p.is_none())
        {
            m.attrs.clear();
            *free = Some(msg);
        }
    }

    /// A message allocation nothing else holds, its attributes empty, if one was kept.
    #[inline(always)]
    pub(super) fn take(&mut self) -> Option<Rc<Message>> {
        match self.0[1].take() {
            Some(msg) => Some(msg),
            None => self.0[0].take(),
        }
    }
}
