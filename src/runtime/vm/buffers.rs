//! The buffers kept from one transaction to the next: the stack, frame and join-point
//! vectors a finished machine empties and gives to the next machine made on its thread,
//! with the message allocations it kept.

use super::super::value::Value;
#[cfg(feature = "jit")]
use super::addresses::Addresses;
use super::recycle::SpareMessages;
use super::sends::JoinPoint;
use super::{Frame, Machine};

/// The emptied stack, frame and join-point vectors of a finished transaction, kept for the
/// next one on the same thread so that trying a move does not allocate them anew.
pub(super) struct Buffers {
    pub(super) stack: Vec<Value>,
    pub(super) frames: Vec<Frame>,
    pub(super) jps: Vec<JoinPoint>,
    pub(super) spares: SpareMessages,
    #[cfg(feature = "jit")]
    pub(super) addresses: Addresses,
}

impl Buffers {
    #[inline]
    pub(super) fn fresh() -> Buffers {
        Buffers {
            stack: Vec::with_capacity(64),
            frames: Vec::with_capacity(16),
            jps: Vec::with_capacity(16),
            spares: SpareMessages::default(),
            #[cfg(feature = "jit")]
            addresses: Addresses::default(),
        }
    }
}

/// Buffers larger than this (in elements) are not kept: a deep transaction does not pin
/// its memory for the rest of the thread's life.
const KEEP_BUFFERS_UP_TO: usize = 4096;

/// Empty `v`, if it holds anything (emptying an empty vector of values that need dropping
/// still walks them: the check is cheaper).
#[inline(always)]
pub(super) fn clear<T>(v: &mut Vec<T>) {
    if !v.is_empty() {
        v.clear();
    }
}

/// Free an emptied buffer grown past what is kept between transactions.
#[inline]
pub(super) fn let_go_if_large<T>(v: &mut Vec<T>) {
    if v.capacity() > KEEP_BUFFERS_UP_TO {
        *v = Vec::new();
    }
}

thread_local! {
    pub(super) static SPARE: std::cell::Cell<Option<Buffers>> = const { std::cell::Cell::new(None) };
}

impl Machine {
    /// Give the machine's stack, frame and join-point buffers, emptied, to the next machine
    /// made on this thread. Called when the transaction is over and the machine is dropped.
    #[inline]
    pub fn recycle_buffers(&mut self) {
        let mut b = Buffers {
            stack: std::mem::take(&mut self.stack),
            frames: std::mem::take(&mut self.frames),
            jps: std::mem::take(&mut self.jps),
            spares: std::mem::take(&mut self.spares),
            #[cfg(feature = "jit")]
            addresses: std::mem::take(&mut self.addresses),
        };
        if b.stack.capacity() > KEEP_BUFFERS_UP_TO
            || b.frames.capacity() > KEEP_BUFFERS_UP_TO
            || b.jps.capacity() > KEEP_BUFFERS_UP_TO
        {
            return;
        }
        b.stack.clear();
        b.frames.clear();
        b.jps.clear();
        SPARE.with(|s| s.set(Some(b)));
    }
}
