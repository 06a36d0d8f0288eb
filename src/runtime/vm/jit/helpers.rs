//! The machine's functions the generated code calls, with the C calling convention:
//! each takes the running body's [`Jx`] and what its instruction names (a [`Site`] kept
//! by the compiled module, or values as two words), and gives a value as two words, or
//! [`EXIT`] having said in the `Jx` how the body leaves.

use std::sync::atomic::Ordering;

use crate::compile::bytecode::{CodeId, IntOp};
use crate::symbol::Symbol;

use super::super::super::budget::ENTRY_BYTES;
use super::super::super::entity::EntityId;
use super::super::super::value::Value;
use super::super::fast::{Done, Exit, FAST_DEPTH, Fx};
use super::super::stack::truncate_releasing;
use super::raw::{DONE, EXIT, LIST, Raw, from_raw, into_raw};
use super::{Entry, Jx, Site};

/// The fast tier the body runs on.
///
/// # Safety
/// `jx` is the live `Jx` the body was entered with.
#[inline(always)]
unsafe fn fx<'a>(jx: *mut Jx) -> &'a mut Fx<'static, 'static> {
    // SAFETY: `Jx::fx` is the `Fx` running the body, borrowed for its call.
    unsafe { &mut *(*jx).fx }
}

/// What a helper gives back for `r`.
#[inline(always)]
unsafe fn give(jx: *mut Jx, r: Done) -> Raw {
    match r {
        Ok(v) => into_raw(v),
        Err(exit) => {
            // SAFETY: `jx` is live.
            unsafe { (*jx).exit = exit };
            Raw::EXIT
        }
    }
}

/// A value handed over by the generated code.
#[inline(always)]
unsafe fn value(tag: u64, word: u64) -> Value {
    // SAFETY: the generated code hands over a live value whose count it gives up.
    unsafe { from_raw(Raw { tag, word }) }
}

pub(super) unsafe extern "C" fn property(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let r = fx.property(site.name, site.span);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn property_of(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let entity = unsafe { value(tag, word) };
    let r = fx.property_of(&entity, site.name, site.span);
    Value::release(entity);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn attribute(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let r = fx.attribute(site.name);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn state_of(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let entity = unsafe { value(tag, word) };
    let r = fx.state_of(entity, site.span);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn update_property(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let v = unsafe { value(tag, word) };
    let r = fx.update_property(site.name, v, site.span);
    unsafe { give(jx, r) }
}

pub(super) unsafe extern "C" fn message(jx: *mut Jx) -> Raw {
    into_raw(unsafe { fx(jx) }.message())
}

/// Push a value on the machine's stack, an operand of the form or call that follows.
pub(super) unsafe extern "C" fn push(jx: *mut Jx, tag: u64, word: u64) {
    let v = unsafe { value(tag, word) };
    unsafe { fx(jx) }.push(v);
}

/// Parameter `slot`, taken from the frame (nil left there).
pub(super) unsafe extern "C" fn take_local(jx: *mut Jx, slot: u64) -> Raw {
    into_raw(unsafe { fx(jx) }.take_local(slot as usize))
}

/// A form on the operands pushed (a message of known label and keys goes to [`send`]).
pub(super) unsafe extern "C" fn form(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let r = fx.form(site.form, site.argc, site.span);
    unsafe { give(jx, r) }
}

/// A builtin on the `argc` arguments pushed.
pub(super) unsafe extern "C" fn builtin(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let at = fx.top() - usize::from(site.argc);
    let r = match site.pure {
        Some(f) => fx.pure(f, at),
        None => fx.game_builtin(site.index, at, site.span),
    };
    unsafe { give(jx, r) }
}

/// A pure builtin on two arguments given in registers (none pushed).
pub(super) unsafe extern "C" fn pure2(
    jx: *mut Jx,
    site: *const Site,
    a_tag: u64,
    a_word: u64,
    b_tag: u64,
    b_word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let mut args = unsafe { [value(a_tag, a_word), value(b_tag, b_word)] };
    unsafe { pure_on(jx, fx, site, &mut args) }
}

/// A pure builtin on one argument given in registers.
pub(super) unsafe extern "C" fn pure1(jx: *mut Jx, site: *const Site, tag: u64, word: u64) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let mut args = unsafe { [value(tag, word)] };
    unsafe { pure_on(jx, fx, site, &mut args) }
}

/// Pure builtin `site.pure` on `args`, which go.
#[inline(always)]
unsafe fn pure_on(
    jx: *mut Jx,
    fx: &mut Fx<'static, 'static>,
    site: &Site,
    args: &mut [Value],
) -> Raw {
    let Some(f) = site.pure else {
        return unsafe { give_up(jx) };
    };
    let r = f(args, &mut fx.m.meter).map_err(|_| Exit::GiveUp);
    for v in args {
        Value::release(std::mem::take(v));
    }
    unsafe { give(jx, r) }
}

/// Function `site.code` on the `argc` arguments pushed.
pub(super) unsafe extern "C" fn call(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let at = fx.top() - usize::from(site.argc);
    let r = fx.call(CodeId(site.index as u32), at);
    unsafe { give(jx, r) }
}

/// An integer operator the generated code does not do itself (`%`, an overflow): its
/// value, or a give-up where the builtin would fail.
pub(super) unsafe extern "C" fn int_op(jx: *mut Jx, op: u64, a: u64, b: u64) -> Raw {
    let r = IntOp::ALL[op as usize]
        .apply(a as i64, b as i64)
        .map(super::super::fused::int_value)
        .ok_or(Exit::GiveUp);
    unsafe { give(jx, r) }
}

/// Whether two values are equal as a `switch` compares them (neither let go); 2 to
/// leave.
pub(super) unsafe extern "C" fn equal(
    jx: *mut Jx,
    a_tag: u64,
    a_word: u64,
    b_tag: u64,
    b_word: u64,
) -> u64 {
    let a = std::mem::ManuallyDrop::new(unsafe { value(a_tag, a_word) });
    let b = std::mem::ManuallyDrop::new(unsafe { value(b_tag, b_word) });
    match unsafe { fx(jx) }.equal(&a, &b) {
        Ok(same) => u64::from(same),
        Err(exit) => {
            unsafe { (*jx).exit = exit };
            2
        }
    }
}

/// What a `foreach` iterates over a value other than a list.
pub(super) unsafe extern "C" fn iteration(jx: *mut Jx, tag: u64, word: u64) -> Raw {
    let v = unsafe { value(tag, word) };
    let r = unsafe { fx(jx) }.iteration(v).map(Value::List);
    unsafe { give(jx, r) }
}

/// Element `i` of the list `word` stands for, a copy; [`DONE`] past its end.
pub(super) unsafe extern "C" fn item(word: u64, i: u64) -> Raw {
    let list = std::mem::ManuallyDrop::new(unsafe { value(LIST, word) });
    let Value::List(list) = &*list else {
        return Raw { tag: DONE, word: 0 };
    };
    match list.get(i as usize) {
        Some(v) => into_raw(v.clone()),
        None => Raw { tag: DONE, word: 0 },
    }
}

/// Let go of the `n` values (two words each) at `at`: those a body held when it left.
pub(super) unsafe extern "C" fn let_go_all(at: *const u64, n: u64) {
    for i in 0..n as usize {
        // SAFETY: the generated code put `n` live values there, whose counts it gives up.
        unsafe {
            let (tag, word) = (*at.add(2 * i), *at.add(2 * i + 1));
            Value::release(value(tag, word));
        }
    }
}

/// The check where a loop goes round: 1 to leave.
pub(super) unsafe extern "C" fn check(jx: *mut Jx) -> u64 {
    match unsafe { fx(jx) }.check() {
        Ok(()) => 0,
        Err(exit) => {
            unsafe { (*jx).exit = exit };
            1
        }
    }
}

/// Leave the body, giving up. A body running without its join point that gives up has
/// its direct form taken away, so that sends to it go the general way from then on and
/// the transactions it is in are not run again each time.
unsafe fn give_up(jx: *mut Jx) -> Raw {
    unsafe {
        (*jx).exit = Exit::GiveUp;
        if (*jx).direct != 0
            && let Some(entry) = (&*(*jx).entries).get((*jx).code as usize)
        {
            entry.store(0, Ordering::Relaxed);
        }
    }
    Raw::EXIT
}

/// A message of known label and keys made or sent, its recipient and values pushed. A
/// message sent to an entity the game started with, whose chain for it is a behaviour
/// alone with machine code run without a join point ([`super::lower`]'s direct form), is
/// run as a call of that code: the entity, the values where they were pushed, no
/// message, join point or frame, everything else observable as the send would make it
/// (the memory of the message's attributes, the behaviour's steps and its end's, the
/// check after it, the depth a join point and a frame would take). Any other goes the
/// general way; from a body that is itself running without a join point, which has none
/// for the send to name as its sender, the fast tier gives up instead.
pub(super) unsafe extern "C" fn send(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let Some(shape) = &site.shape else {
        return unsafe { give_up(jx) };
    };
    let n = shape.names.len();
    let at = fx.top() - usize::from(shape.send) - n;
    let direct = unsafe { (*jx).direct } != 0;
    let target = if shape.send {
        unsafe { direct_target(jx, fx, site, at) }
    } else {
        None
    };
    match target {
        Some((id, code, entry)) => unsafe { run_direct(jx, fx, id, code, entry, at, n, site) },
        // Too deep for a direct call: the interpreter goes deeper (or stops at the
        // limit), and the direct form is kept for the sends that are not.
        None if direct && unsafe { too_deep(jx, fx) } => {
            unsafe { (*jx).exit = Exit::GiveUp };
            Raw::EXIT
        }
        None if direct => unsafe { give_up(jx) },
        None => {
            let r = fx.new_message(shape, at);
            unsafe { give(jx, r) }
        }
    }
}

/// The entity and the code a send from `at` would run directly, if it would.
unsafe fn direct_target(
    jx: *mut Jx,
    fx: &mut Fx<'static, 'static>,
    site: &Site,
    at: usize,
) -> Option<(EntityId, CodeId, Entry)> {
    let shape = site.shape.as_ref()?;
    if unsafe { too_deep(jx, fx) } {
        return None;
    }
    let nest = unsafe { (*jx).nest } as usize;
    let m = &*fx.m;
    let cx = &mut *fx.cx;
    if nest == 0 && m.me().is_some_and(|(me, _)| me.is_representation()) {
        return None;
    }
    let max = m.meter.limits.max_nesting;
    let values = &m.stack[at + 1..];
    if !values.iter().all(|v| match v {
        Value::List(l) => (l.depth() as usize) < max,
        Value::Dict(_) | Value::Message(_) => false,
        _ => true,
    }) {
        return None;
    }
    let (id, e) = m.fixed_entity(&m.stack[at])?;
    let (ty, name, state) = (e.ty, e.name, e.state);
    let (chain, behaviour) = cx
        .cache
        .get(cx.game, &m.world, ty, name, state, shape.label);
    if !chain.laws.is_empty() || !chain.side_effects.is_empty() || chain.laws_may_change_world {
        return None;
    }
    let code = behaviour?;
    // SAFETY: the table lives as long as the code that names it.
    let entries = unsafe { &*site.entries };
    let entry = entries.get(code.0 as usize)?.load(Ordering::Relaxed);
    if entry == 0 {
        return None;
    }
    // SAFETY: a nonzero entry is the address of a function of this signature.
    Some((id, code, unsafe {
        std::mem::transmute::<usize, Entry>(entry)
    }))
}

/// Whether a direct call from the body `jx` runs would be too deep: past the fast tier's
/// nesting of Rust calls, or where the join point and frame it stands for would reach
/// the depth limit.
unsafe fn too_deep(jx: *mut Jx, fx: &Fx<'static, 'static>) -> bool {
    let nest = unsafe { (*jx).nest } as usize;
    let m = &*fx.m;
    m.fast_nest >= FAST_DEPTH || m.frames.len() + m.jps.len() + 2 * nest >= fx.cx.limits.max_depth
}

/// Run `entry` for entity `id`, the message's `n` values pushed after its recipient at
/// `at`.
#[allow(clippy::too_many_arguments)]
unsafe fn run_direct(
    jx: *mut Jx,
    fx: &mut Fx<'static, 'static>,
    id: EntityId,
    code: CodeId,
    entry: Entry,
    at: usize,
    n: usize,
    site: &Site,
) -> Raw {
    // The memory the message's attributes would take.
    if n > 0 && fx.m.meter.alloc(ENTRY_BYTES * n as u64).is_err() {
        return unsafe { give_up(jx) };
    }
    let mut inner = Jx {
        fx: unsafe { (*jx).fx },
        how: 0,
        steps: unsafe { (*jx).steps },
        check_at: unsafe { (*jx).check_at },
        exit: Exit::GiveUp,
        me: u64::from(id.0),
        attrs_at: (at + 1) as u64,
        shape: site
            .shape
            .as_ref()
            .map_or(std::ptr::null(), |s| s as *const _),
        nest: unsafe { (*jx).nest } + 1,
        direct: 1,
        code: u64::from(code.0),
        entries: site.entries,
    };
    fx.m.fast_nest += 1;
    // SAFETY: `entry` is a body's direct form, `inner` lives through the call.
    let r = unsafe { entry(&mut inner) };
    let fx = unsafe { self::fx(jx) };
    fx.m.fast_nest -= 1;
    let v = match inner.how {
        0 => {
            // The behaviour's `End`.
            fx.step(1);
            unsafe { from_raw(r) }
        }
        1 => unsafe { from_raw(r) },
        _ => {
            unsafe { (*jx).exit = inner.exit };
            return Raw::EXIT;
        }
    };
    if let Err(exit) = fx.check() {
        Value::release(v);
        unsafe { (*jx).exit = exit };
        return Raw::EXIT;
    }
    truncate_releasing(&mut fx.m.stack, at);
    into_raw(v)
}

/// `(attribute "key")` in a body running without a join point: the value sent.
pub(super) unsafe extern "C" fn attribute_direct(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let (shape, at) = unsafe { (&*(*jx).shape, (*jx).attrs_at as usize) };
    match shape.names.iter().position(|&k| k == site.name) {
        Some(i) => into_raw(fx.m.stack[at + i].clone()),
        None => into_raw(Value::Nil),
    }
}

/// `(property "name")` in a body running without a join point.
pub(super) unsafe extern "C" fn property_direct(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let id = EntityId(unsafe { (*jx).me } as u32);
    let game = fx.cx.game;
    if let Some(v) =
        fx.m.world
            .game_entity(id)
            .and_then(|e| e.layout_property(game, site.name))
    {
        return into_raw(v.clone());
    }
    match fx.m.own_property(fx.cx, id, site.name, site.span) {
        Ok(v) => into_raw(v),
        Err(_) => unsafe { give_up(jx) },
    }
}

/// `(property "name" of e)` in a body running without a join point: an entity the game
/// started with and a property of its layout; anything else gives up.
pub(super) unsafe extern "C" fn property_of_direct(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let entity = unsafe { value(tag, word) };
    let found = fx.m.fixed_property(fx.cx.game, &entity, site.name).cloned();
    Value::release(entity);
    match found {
        Some(v) => into_raw(v),
        None => unsafe { give_up(jx) },
    }
}

/// `(state of e)` in a body running without a join point: an entity the game started
/// with; anything else gives up.
pub(super) unsafe extern "C" fn state_of_direct(jx: *mut Jx, tag: u64, word: u64) -> Raw {
    let fx = unsafe { fx(jx) };
    let entity = unsafe { value(tag, word) };
    let state = fx.m.fixed_state(&entity);
    Value::release(entity);
    match state {
        Some(s) => into_raw(Value::sym(s)),
        None => unsafe { give_up(jx) },
    }
}

/// `(changeState s)` in a body running without a join point.
pub(super) unsafe extern "C" fn change_state_direct(jx: *mut Jx, tag: u64, word: u64) -> Raw {
    let fx = unsafe { fx(jx) };
    let v = unsafe { value(tag, word) };
    let state: Option<Symbol> = match &v {
        Value::Str(t) => t.as_symbol(),
        _ => None,
    };
    Value::release(v);
    let Some(state) = state else {
        return unsafe { give_up(jx) };
    };
    let id = EntityId(unsafe { (*jx).me } as u32);
    let logging = fx.m.logging();
    let Some(e) = fx.m.world.game_entity_mut(id) else {
        return unsafe { give_up(jx) };
    };
    let from = std::mem::replace(&mut e.state, state);
    if logging {
        fx.m.log_state(id, from);
    }
    into_raw(Value::Nil)
}

const _: () = assert!(EXIT == Raw::EXIT.tag);
