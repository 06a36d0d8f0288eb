//! A transaction's outermost join point run directly. The message from outside (a move
//! tried or played) reaches its entity as the interpreter starts it: a join point and
//! the frame of the chain's first body. When every body of that chain (its laws, its
//! behaviour, its side-effects) has a direct form, they run here as calls, one after
//! the other in that frame's place, as [`helpers::send`] runs a chain sent from a body:
//! no frame per body, no instruction loop between them. The join point and the frame
//! stay where they are while the bodies run, so the depth, the running entity and the
//! sender of what they send are the interpreter's, and what a direct form gives up on
//! elsewhere because it reads the join point (the message's attributes, `update message
//! attribute`, `notify`) the machine does here as for a body at its join point. Each
//! body's `End` step and the check after it are counted as the interpreter counts them.
//! A law may change the world here (open a checkpoint, write a property): a veto of the
//! outermost join point ends the transaction, which its caller undoes whole, so no copy
//! is needed. Anything a direct form cannot do gives up, and the transaction is
//! replayed on the interpreter, as everywhere on the fast tier.

use std::rc::Rc;

use super::super::super::trace::{RuntimeError, Status};
use super::super::fast::Fx;
use super::super::sends::{Phase, Then};
use super::super::stack::truncate_releasing;
use super::super::steps::next_check;
use super::super::{Context, Flow, Kind, Machine};
use super::chain::{self, Chained};
use super::raw::sym_word;
use super::{Jit, Jx};

/// Run the transaction `m` has just started from outside: its outermost join point's
/// chain directly, when every body of the chain has a direct form
/// ([`Jit::chain_direct`]), and how it ended; `None`, with nothing changed,
/// when it is not run so (the instruction loop runs it).
pub(crate) fn outermost(
    jit: &Jit,
    m: &mut Machine,
    cx: &mut Context<'_>,
) -> Option<Result<Flow, RuntimeError>> {
    let ([frame], [jp]) = (m.frames.as_slice(), m.jps.as_slice()) else {
        return None;
    };
    if frame.ip != 0
        || frame.jp != 0
        || jp.before
        || jp.entity.is_representation()
        || !matches!(jp.then, Then::Give)
    {
        return None;
    }
    // The chain's first body, as the send started it (`Machine::send_to_here`).
    let chain = &jp.chain;
    let first = match (jp.phase, frame.kind) {
        (Phase::Laws(1), Kind::Law) => true,
        (Phase::SideEffects(0), Kind::Behaviour) => chain.laws.is_empty(),
        (Phase::SideEffects(1), Kind::SideEffect) => {
            chain.laws.is_empty() && jp.behaviour.is_none()
        }
        _ => false,
    };
    if !first {
        return None;
    }
    let code = jit.chain_direct(chain, jp.behaviour)?;
    let entries = &jit.entries[..];
    let chain = Rc::clone(chain);
    let (me, name) = (jp.entity, jp.name);
    let base = frame.base as usize;
    // As the instruction loop sets it where a body starts.
    m.check_at = next_check(m.meter.steps, m.meter.limits.max_steps, m.check_every);
    let mut fx = Fx::new(m, cx, base);
    let mut outer = Jx::on(&mut fx, entries);
    // The bodies stand in the first body's frame, at the join point: no depth of
    // their own (`nest` 0), and what reads the join point done as at it.
    let mut inner = Jx {
        me: u64::from(me.0),
        me_name: sym_word(name),
        outermost: 1,
        direct: 1,
        ..Jx::on(&mut fx, entries)
    };
    fx.m.fast_nest += 1;
    // SAFETY: `outer` and `inner` live through the call, on the `Fx` they name.
    let ended = unsafe { chain::run(code, &mut outer, &mut inner) };
    fx.m.fast_nest -= 1;
    let status = match ended {
        Chained::Value(v) => Status::Committed(v),
        Chained::Vetoed(i) => Status::Vetoed {
            law: chain.laws[i].name,
        },
        // A body gave up (the transaction is replayed), or what it sent ended the
        // transaction: as the instruction loop stops when a body run fast does.
        Chained::Left => {
            let flow = fx.stop(outer.exit).err().unwrap_or(Flow::GiveUp);
            return Some(Ok(flow));
        }
    };
    // The join point over, as the interpreter ends it.
    truncate_releasing(&mut fx.m.stack, base);
    fx.m.frames.pop();
    if let Some(jp) = fx.m.jps.pop()
        && matches!(status, Status::Committed(_))
    {
        fx.m.spares.keep(jp.msg);
    }
    Some(Ok(Flow::End(status)))
}
