//! Message recycling: the message a join point handles, kept (emptied) for the next
//! message made on the same thread when the join point goes holding its only reference.

use std::rc::Rc;

use super::super::value::Message;

/// The message a join point handles, read through it as the `Arc` it is. When the join
/// point goes holding the only reference (a message made by `send new message`, most
/// often), the allocation is kept, emptied, for the next message a form makes on this
/// thread ([`spare_message`]) instead of being freed and allocated again.
pub(super) struct Handled(std::mem::ManuallyDrop<Rc<Message>>);

impl Handled {
    #[inline(always)]
    pub(super) fn new(msg: Rc<Message>) -> Handled {
        Handled(std::mem::ManuallyDrop::new(msg))
    }
}

impl std::ops::Deref for Handled {
    type Target = Rc<Message>;
    #[inline(always)]
    fn deref(&self) -> &Rc<Message> {
        &self.0
    }
}

impl std::ops::DerefMut for Handled {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Rc<Message> {
        &mut self.0
    }
}

impl std::fmt::Debug for Handled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Drop for Handled {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: the message is taken once, here, as the join point goes; nothing reads
        // this field again.
        let msg = unsafe { std::mem::ManuallyDrop::take(&mut self.0) };
        // A message someone else holds (a delivered or tried one, most often) is only
        // counted down, in line.
        if Rc::strong_count(&msg) == 1 {
            keep_message(msg);
        }
    }
}

thread_local! {
    /// Message allocations kept for the next messages made on this thread (see
    /// [`Handled`]): two, as a message's behaviour often sends one that ends before it.
    static SPARE_MESSAGES: std::cell::Cell<[Option<Rc<Message>>; 2]> =
        const { std::cell::Cell::new([None, None]) };
}

/// Let `msg` go, keeping its allocation, emptied, for the next message made on this
/// thread when nothing else holds it, its attributes have room for few (a message that
/// had many gives back their memory) and a spare place is free.
#[inline(never)]
fn keep_message(mut msg: Rc<Message>) {
    if let Some(m) = Rc::get_mut(&mut msg)
        && m.attrs.capacity() <= super::super::value::attrs::ORDER_UP_TO
    {
        m.attrs.clear();
        // At the thread's end the places may be gone: the message is then let go.
        let _ = SPARE_MESSAGES.try_with(|s| {
            let mut spares = s.take();
            if let Some(free) = spares.iter_mut().find(|p| p.is_none()) {
                *free = Some(msg);
            }
            s.set(spares);
        });
    }
}

/// A message allocation nothing else holds, its attributes empty, kept when a join point
/// went (see [`Handled`]), if there is one.
#[inline(always)]
pub(super) fn spare_message() -> Option<Rc<Message>> {
    SPARE_MESSAGES
        .try_with(|s| {
            let mut spares = s.take();
            let msg = match spares[1].take() {
                Some(msg) => Some(msg),
                None => spares[0].take(),
            };
            s.set(spares);
            msg
        })
        .ok()
        .flatten()
}
