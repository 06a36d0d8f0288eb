//! The machine's functions the generated code calls, with the C calling convention:
//! each takes the running body's [`Jx`] and what its instruction names (a [`Site`] kept
//! by the compiled module, or values as two words), and gives a value as two words, or
//! [`EXIT`] having said in the `Jx` how the body leaves.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::compile::builtins::index as builtin_index;
use crate::compile::bytecode::{CodeId, IntOp, Read};
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::super::budget::ENTRY_BYTES;
use super::super::super::builtins::{contains_letter, list_of, read_fast};
use super::super::super::entity::EntityId;
use super::super::super::value::{Key, Value};
use super::super::chains::SendMemo;
use super::super::fast::{Done, Exit, FAST_DEPTH, Fx, MessageShape};
use super::super::forms::ListPlace;
use super::super::stack::truncate_releasing;
use super::chain::{self, ChainEntry, Chained};
use super::raw::{
    BOOL, DONE, EXIT, FLOAT, INT, LIST, NIL, Raw, STR, copy_of, from_raw, into_raw, sym_word,
};
use super::{Direct, Entry, Jx, Site};

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

/// `(attribute "key")` at the join point: looked for first where the site found it last.
pub(super) unsafe extern "C" fn attribute(jx: *mut Jx, site: *const Site) -> Raw {
    unsafe { attribute_at_join_point(jx, site) }
}

/// [`attribute`], in line in the helpers that read attributes at a join point.
#[inline(always)]
unsafe fn attribute_at_join_point(jx: *mut Jx, site: *const Site) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    // Where it was found last, or not found (then its absence checked by a scan of the
    // keys' symbols): nothing else in this function, which saves and restores nothing
    // (the search out of line).
    if let Some(jp) = fx.m.current_jp() {
        let guess = site.guess.load(Ordering::Relaxed);
        let attrs = &jp.msg.attrs;
        if let Some(v) = attrs.get_at(guess as usize, site.name) {
            return copy_of(v);
        }
        if guess == ABSENT && attrs.lacks_symbol(site.name) {
            return Raw { tag: NIL, word: 0 };
        }
    }
    unsafe { attribute_slowly(jx, site) }
}

/// The `guess` of an attribute's read that did not find it last: checked first by a
/// scan for the name, which is short.
const ABSENT: u32 = u32::MAX;

/// [`attribute`] when the attribute is not where it was found last.
#[inline(never)]
unsafe fn attribute_slowly(jx: *mut Jx, site: &Site) -> Raw {
    let fx = unsafe { fx(jx) };
    let Some(jp) = fx.m.current_jp() else {
        return unsafe { give_up(jx) };
    };
    let attrs = &jp.msg.attrs;
    match attrs.find(&Key::sym(site.name)) {
        Some(i) => {
            site.guess.store(i as u32, Ordering::Relaxed);
            into_raw(attrs.value_at(i).cloned().unwrap_or_default())
        }
        None => {
            site.guess.store(ABSENT, Ordering::Relaxed);
            into_raw(Value::Nil)
        }
    }
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
    // Where the entity lies when that may be written (as in a direct form), else the form.
    let r = match fx.m.me() {
        Some((id, _)) => match fx.m.write_kept_slot(fx.cx, id, site.name, &site.slot, v) {
            Ok(()) => Ok(Value::Nil),
            Err(v) => fx.update_property(site.name, v, site.span),
        },
        None => fx.update_property(site.name, v, site.span),
    };
    unsafe { give(jx, r) }
}

/// `(update property "name" to (append (property "name") x))` of the list and the
/// element given in registers, which go: the element pushed where the list lies when
/// nobody else holds it (`Machine::append_to_property`), else `append` by the builtin
/// and the form as [`update_property`] does it, or, in a body running without its join
/// point (`DIRECT`), on the entity it knows and as [`update_property_direct`] does it.
pub(super) unsafe extern "C" fn append_property<const DIRECT: bool>(
    jx: *mut Jx,
    site: *const Site,
    l_tag: u64,
    l_word: u64,
    e_tag: u64,
    e_word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let (list, element) = unsafe { (value(l_tag, l_word), value(e_tag, e_word)) };
    let back = match unsafe { list_place::<DIRECT>(jx, site) } {
        Some(at) => fx.m.append_to_property(fx.cx, at, list, element),
        None => Err((list, element)),
    };
    match back {
        Ok(()) => into_raw(Value::Nil),
        Err((list, element)) => unsafe { write_made::<DIRECT, 2>(jx, site, [list, element]) },
    }
}

/// `(update property "name" to (put (property "name") i x))` of the list, the index
/// and the value given in registers, which go: the element replaced where the list
/// lies when nobody else holds it (`Machine::put_into_property`), else as
/// [`append_property`] goes on, with `put`.
pub(super) unsafe extern "C" fn put_property<const DIRECT: bool>(
    jx: *mut Jx,
    site: *const Site,
    l_tag: u64,
    l_word: u64,
    i_tag: u64,
    i_word: u64,
    v_tag: u64,
    v_word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let (list, index) = unsafe { (value(l_tag, l_word), value(i_tag, i_word)) };
    let v = unsafe { value(v_tag, v_word) };
    let back = match unsafe { list_place::<DIRECT>(jx, site) } {
        Some(at) => fx.m.put_into_property(fx.cx, at, list, index, v),
        None => Err((list, index, v)),
    };
    match back {
        Ok(()) => into_raw(Value::Nil),
        Err((list, index, v)) => unsafe { write_made::<DIRECT, 3>(jx, site, [list, index, v]) },
    }
}

/// The property `site.name` whose list is written where it lies: in a body running
/// without its join point (`DIRECT`), of the entity it knows, at the place the site
/// keeps; else of the join point's entity, when that is the game's.
#[inline(always)]
unsafe fn list_place<const DIRECT: bool>(jx: *mut Jx, site: &Site) -> Option<ListPlace> {
    let (id, kept) = match DIRECT {
        true => (EntityId(unsafe { (*jx).me } as u32), Some(slot(site))),
        false => (unsafe { fx(jx) }.m.own_game_entity()?, None),
    };
    let name = site.name;
    Some(ListPlace { id, name, kept })
}

/// The site's builtin (`append`, `put`) of `args`, which go, written to property
/// `site.name` as the form writes it, or, in a body running without its join point
/// (`DIRECT`), as [`update_property_direct`] writes it. A builtin that fails gives up
/// (the interpreter then reports it).
unsafe fn write_made<const DIRECT: bool, const N: usize>(
    jx: *mut Jx,
    site: &Site,
    mut args: [Value; N],
) -> Raw {
    let fx = unsafe { fx(jx) };
    let made = site.pure.map(|f| f(&mut args, &mut fx.m.meter));
    for v in args {
        Value::release(v);
    }
    let Some(Ok(list)) = made else {
        return unsafe { give_up(jx) };
    };
    if !DIRECT {
        let r = fx.update_property(site.name, list, site.span);
        return unsafe { give(jx, r) };
    }
    let id = EntityId(unsafe { (*jx).me } as u32);
    match fx.m.write_kept_slot(fx.cx, id, site.name, &site.slot, list) {
        Ok(()) => into_raw(Value::Nil),
        Err(list) => {
            Value::release(list);
            unsafe { give_up(jx) }
        }
    }
}

pub(super) unsafe extern "C" fn message(jx: *mut Jx) -> Raw {
    into_raw(unsafe { fx(jx) }.message())
}

/// A value the generated code lends: it keeps the count.
#[inline(always)]
unsafe fn lent(tag: u64, word: u64) -> std::mem::ManuallyDrop<Value> {
    std::mem::ManuallyDrop::new(unsafe { from_raw(Raw { tag, word }) })
}

/// `(property "name" of e)` of a name the code lends (a local's, or one written in the
/// code): an entity the game started with and a property of its layout read where it
/// lies; anything else as the form reads it (a body running without a join point gives
/// up instead).
pub(super) unsafe extern "C" fn property_of_lent(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    // The commonest case with nothing to save and restore: the slow one out of line.
    let view = unsafe { &*(*jx).kept };
    if tag == STR
        && word & 1 == 1
        && let Some(v) = view
            .entry(word >> 1)
            .and_then(|e| e.property_at(slot(site)))
    {
        return copy_of(v);
    }
    unsafe { property_of_lent_slowly(jx, site, tag, word) }
}

/// [`property_of_lent`] when the machine's table or the site's kept place do not have
/// the property.
#[inline(never)]
unsafe fn property_of_lent_slowly(jx: *mut Jx, site: *const Site, tag: u64, word: u64) -> Raw {
    let site = unsafe { &*site };
    if let Some(v) = unsafe { kept_property_of_name(jx, site, tag, word) } {
        return into_raw(v.clone());
    }
    let fx = unsafe { fx(jx) };
    let entity = unsafe { lent(tag, word) };
    if unsafe { (*jx).direct } != 0 {
        return unsafe { give_up(jx) };
    }
    let r = fx.property_of(&entity, site.name, site.span);
    unsafe { give(jx, r) }
}

/// The place the read at `site` found its property last (see `Site::slot`).
#[inline(always)]
fn slot(site: *const Site) -> u64 {
    // SAFETY: the code passes the sites it was made with, which live as long as it.
    unsafe { &*site }.slot.load(Ordering::Relaxed)
}

/// Property `site.name` of the entity the game started with whose name is the symbol
/// number `number`, from its layout: read where the machine found the entity last, at the
/// place the site found the property last (a few loads); else found, and both kept.
#[inline(always)]
unsafe fn kept_property<'a>(jx: *mut Jx, site: &Site, number: u64) -> Option<&'a Value> {
    // SAFETY: the table is the running machine's, as the world it reads.
    let view = unsafe { &*(*jx).kept };
    if let Some(v) = view
        .entry(number)
        .and_then(|e| e.property_at(site.slot.load(Ordering::Relaxed)))
    {
        return Some(v);
    }
    unsafe { keep_property(jx, site, None, number) }
}

/// [`kept_property`] of a name the code lends, if it is an interned one.
#[inline(always)]
unsafe fn kept_property_of_name<'a>(
    jx: *mut Jx,
    site: &Site,
    tag: u64,
    word: u64,
) -> Option<&'a Value> {
    match tag == STR && word & 1 == 1 {
        true => unsafe { kept_property(jx, site, word >> 1) },
        false => None,
    }
}

/// Property `site.name` of entity `id` of the game, from its layout: read where the
/// machine found the entity last, at the place the site found the property last; else
/// found, and both kept.
#[inline(always)]
unsafe fn kept_property_of_id<'a>(jx: *mut Jx, site: &Site, id: u32) -> Option<&'a Value> {
    // SAFETY: as for `kept_property`.
    let view = unsafe { &*(*jx).kept };
    if let Some(v) = view
        .entry_of(u64::from(id))
        .and_then(|e| e.property_at(site.slot.load(Ordering::Relaxed)))
    {
        return Some(v);
    }
    unsafe { keep_property(jx, site, Some(id), 0) }
}

/// [`kept_property_of_id`] (of entity `id`) or [`kept_property`] (of the name whose
/// symbol number is `number`) when the table or the site did not have it.
#[inline(never)]
unsafe fn keep_property<'a>(
    jx: *mut Jx,
    site: &Site,
    id: Option<u32>,
    number: u64,
) -> Option<&'a Value> {
    let fx = unsafe { fx(jx) };
    let (id, named) = match id {
        Some(id) => (id, None),
        None => {
            let name = Symbol::from_id(number as u32);
            (fx.m.fixed_id(name)?, Some(name))
        }
    };
    let (v, place) =
        fx.m.kept_layout_property(fx.cx.game, id, named, site.name)?;
    site.slot.store(place, Ordering::Relaxed);
    // SAFETY: the value lies in the world, which the code does not change before it
    // copies it.
    Some(unsafe { &*(v as *const Value) })
}

/// `(get c k)`, `(nth c k)` or `(get c k default)` ([`Site::default`]) of values the
/// code lends: read where they lie when the read is a plain one, by the builtin on
/// copies otherwise.
pub(super) unsafe extern "C" fn read_lent(
    jx: *mut Jx,
    site: *const Site,
    c_tag: u64,
    c_word: u64,
    k_tag: u64,
    k_word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let (c, k) = unsafe { (lent(c_tag, c_word), lent(k_tag, k_word)) };
    let read = match site.index == Read::Nth.builtin() as usize {
        true => Read::Nth,
        false => Read::Get,
    };
    if let Some(v) = read_fast(read, &c, &k, site.default) {
        return into_raw(v);
    }
    let c = (*c).clone();
    let k = (*k).clone();
    match site.default {
        Some(d) => unsafe { pure_on(jx, fx, site, &mut [c, k, Value::Int(d)]) },
        None => unsafe { pure_on(jx, fx, site, &mut [c, k]) },
    }
}

/// `(get (property "name" of e) k)` of values the code lends: the table read where it
/// lies in the world when the entity is one the game started with and the read a plain
/// one; the form and the builtin otherwise (a body running without a join point reads
/// only such entities).
pub(super) unsafe extern "C" fn property_get_lent(
    jx: *mut Jx,
    site: *const Site,
    e_tag: u64,
    e_word: u64,
    k_tag: u64,
    k_word: u64,
) -> Raw {
    let site = unsafe { &*site };
    let kept = unsafe { kept_property_of_name(jx, site, e_tag, e_word) };
    let fx = unsafe { fx(jx) };
    let (entity, k) = unsafe { (lent(e_tag, e_word), lent(k_tag, k_word)) };
    let table = match kept.or_else(|| fx.m.fixed_property(fx.cx.game, &entity, site.name)) {
        Some(table) => {
            if let Some(v) = read_fast(Read::Get, table, &k, None) {
                return into_raw(v);
            }
            table.clone()
        }
        None if unsafe { (*jx).direct } != 0 => return unsafe { give_up(jx) },
        None => match fx.property_of(&entity, site.name, site.span) {
            Ok(table) => table,
            Err(exit) => return unsafe { give(jx, Err(exit)) },
        },
    };
    unsafe { pure_on(jx, fx, site, &mut [table, (*k).clone()]) }
}

/// Whether the entity a name the code lends names is in state `site.name`: 0 or 1, 2 to
/// leave (as the form finds the state of any other name; a body running without a join
/// point reads only the entities the game started with).
pub(super) unsafe extern "C" fn state_is_lent(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> u64 {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    // An interned name: its number, without making the value; its entity found (and
    // kept, for the code's test in line) through the machine's table.
    if tag == STR
        && word & 1 == 1
        && let Some((_, e)) = fx.m.kept_entity_of(Symbol::from_id((word >> 1) as u32))
    {
        return u64::from(e.state == site.name);
    }
    let entity = unsafe { lent(tag, word) };
    if unsafe { (*jx).direct } != 0 {
        unsafe { give_up(jx) };
        return 2;
    }
    match fx.state_of((*entity).clone(), site.span) {
        Ok(v) => {
            let same = matches!(&v, Value::Str(t) if t.is(site.name));
            Value::release(v);
            u64::from(same)
        }
        Err(exit) => {
            unsafe { (*jx).exit = exit };
            2
        }
    }
}

/// Push a value on the machine's stack, an operand of the form or call that follows.
pub(super) unsafe extern "C" fn push(jx: *mut Jx, tag: u64, word: u64) {
    let v = unsafe { value(tag, word) };
    unsafe { fx(jx) }.push(v);
}

/// Push the `n` values (two words each) at `at` on the machine's stack, in order.
pub(super) unsafe extern "C" fn push_all(jx: *mut Jx, at: *const u64, n: u64) {
    let stack = &mut unsafe { fx(jx) }.m.stack;
    let n = n as usize;
    stack.reserve(n);
    let len = stack.len();
    let end = stack.spare_capacity_mut();
    for (i, slot) in end[..n].iter_mut().enumerate() {
        // SAFETY: the generated code put `n` live values there, whose counts it hands
        // over.
        slot.write(unsafe { value(*at.add(2 * i), *at.add(2 * i + 1)) });
    }
    // SAFETY: the `n` places after the stack's values were written just now.
    unsafe { stack.set_len(len + n) };
}

/// `(list ...)` of the `n` values (two words each) at `at`, which go: the list, made
/// as the builtin makes it without the machine's stack; an error gives up (the
/// interpreter reports it).
pub(super) unsafe extern "C" fn list_from(jx: *mut Jx, at: *const u64, n: u64) -> Raw {
    // SAFETY: the generated code put `n` live values there, whose counts it hands over.
    let items = (0..n as usize)
        .map(|i| unsafe { value(*at.add(2 * i), *at.add(2 * i + 1)) })
        .collect();
    let r = list_of(items, &mut unsafe { fx(jx) }.m.meter).map_err(|_| Exit::GiveUp);
    unsafe { give(jx, r) }
}

/// The first `n` locals of the frame (the parameters), taken (nil left there) and put
/// at `at`, two words each.
pub(super) unsafe extern "C" fn take_params(jx: *mut Jx, at: *mut u64, n: u64) {
    let fx = unsafe { fx(jx) };
    for i in 0..n as usize {
        let r = into_raw(fx.take_local(i));
        // SAFETY: the generated code's frame has room for its locals.
        unsafe {
            *at.add(2 * i) = r.tag;
            *at.add(2 * i + 1) = r.word;
        }
    }
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

/// Which pure builtin of two values [`pure2`] is made for: any, or one of the two it
/// answers itself in the cases the games make hot.
pub(super) mod two {
    /// Any pure builtin.
    pub(crate) const ANY: u8 = 0;
    /// `(contains s x)`: a one-letter name in a string (`(contains mine p)`) answered
    /// without the builtin, its work (the string's length) counted as the builtin
    /// counts it.
    pub(crate) const CONTAINS: u8 = 1;
    /// `(= a b)` or `(!= a b)` ([`Site::index`](super::Site)), which the code compares in
    /// line first: two kinds that never equal (`a` no collection, whose comparison the
    /// builtin counts, and not two numbers) answered without the builtin.
    pub(crate) const EQUAL: u8 = 2;
}

/// A pure builtin on two arguments given in registers (none pushed), which go; made for
/// the builtin `WHICH` says ([`two`]), which picks what is answered here.
pub(super) unsafe extern "C" fn pure2<const WHICH: u8>(
    jx: *mut Jx,
    site: *const Site,
    a_tag: u64,
    a_word: u64,
    b_tag: u64,
    b_word: u64,
) -> Raw {
    if WHICH == two::CONTAINS
        && a_tag == STR
        && b_tag == STR
        && a_word & b_word & 1 == 1
        && b_word >> 1 < 128
    {
        // An interned name and a one-letter (ASCII) name: nothing to let go.
        let (len, found) = letter_in_name(a_word >> 1, (b_word >> 1) as u8);
        let meter = &mut unsafe { fx(jx) }.m.meter;
        if meter.work(len).is_err() {
            return unsafe { give_up(jx) };
        }
        return Raw {
            tag: BOOL,
            word: u64::from(found),
        };
    }
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let numbers = |t: u64| t == INT || t == FLOAT;
    let mut answer = None;
    if WHICH == two::EQUAL && a_tag != b_tag && a_tag < LIST && !(numbers(a_tag) && numbers(b_tag))
    {
        const NE: usize = builtin_index("!=") as usize;
        answer = Some(site.index == NE);
    }
    let mut args = unsafe { [value(a_tag, a_word), value(b_tag, b_word)] };
    if WHICH == two::CONTAINS
        && let Some((len, found)) = contains_letter(&args[0], &args[1])
    {
        if fx.m.meter.work(len).is_err() {
            args.into_iter().for_each(Value::release);
            return unsafe { give_up(jx) };
        }
        answer = Some(found);
    }
    match answer {
        Some(answer) => {
            args.into_iter().for_each(Value::release);
            Raw {
                tag: BOOL,
                word: u64::from(answer),
            }
        }
        None => unsafe { pure_on(jx, fx, site, &mut args) },
    }
}

/// How many names' letters are kept ([`LETTERS`]): those numbered below this.
const LETTER_NAMES: usize = 8192;

/// The letters of each interned name asked about, by its number: which of the bytes
/// below 64, and from 64 to 127, it has, and its length plus one (0: not kept yet).
/// A name's text never changes, so threads that fill the same entry write the same
/// words; the length is written last and read first.
static LETTERS: [[AtomicU64; 3]; LETTER_NAMES] =
    [const { [const { AtomicU64::new(0) }; 3] }; LETTER_NAMES];

/// The length of the interned name numbered `name`, and whether it has the ASCII
/// byte `letter` (as `contains` answers and counts it on a string and a one-letter name).
fn letter_in_name(name: u64, letter: u8) -> (usize, bool) {
    let kept = LETTERS.get(name as usize);
    let (low, high, len) = match kept {
        Some([low, high, len]) if len.load(Ordering::Acquire) != 0 => (
            low.load(Ordering::Relaxed),
            high.load(Ordering::Relaxed),
            len.load(Ordering::Relaxed) - 1,
        ),
        _ => {
            let text = Symbol::from_id(name as u32).as_str();
            let (mut low, mut high) = (0u64, 0u64);
            for &b in text.as_bytes() {
                match b {
                    0..64 => low |= 1 << b,
                    64..128 => high |= 1 << (b - 64),
                    _ => {}
                }
            }
            let len = text.len() as u64;
            if let Some([l, h, n]) = kept {
                l.store(low, Ordering::Relaxed);
                h.store(high, Ordering::Relaxed);
                n.store(len + 1, Ordering::Release);
            }
            (low, high, len)
        }
    };
    let found = match letter {
        0..64 => low >> letter & 1 == 1,
        _ => high >> (letter - 64) & 1 == 1,
    };
    (len as usize, found)
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

/// Function `site.code` on the `n` arguments at `at` (two words each, in the calling
/// code's spill area, not on the machine's stack): once the callee has machine code
/// they go to it there ([`Jx::params`]: its code takes them as its first locals);
/// until then they are pushed, and the callee run as the instruction loop's `Call`
/// would run it.
///
/// From a body running without a join point (which calls only functions that need
/// none), the join points and frames its calls stand for count against the depth limit
/// as frames the fast tier does not push.
pub(super) unsafe extern "C" fn call(
    jx: *mut Jx,
    site: *const Site,
    at: *const u64,
    n: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let n = n as usize;
    let hidden = 2 * unsafe { (*jx).nest } as usize;
    fx.m.frameless += hidden;
    let code = CodeId(site.index as u32);
    // SAFETY: the code generator outlives the code it made, and so its sites.
    let entry = unsafe { &*site.jit }.joined[site.index].load(Ordering::Acquire);
    let r = match fx.cx.fast.get(code) {
        // (Its code takes as many as it has parameters, which the checker has every
        // call give.)
        Some(fast)
            if entry > 1 && usize::from(fx.cx.game.code(code).params) == n && fast.locals >= n =>
        {
            // SAFETY: a compiled body's address, of this signature.
            let entry = unsafe { std::mem::transmute::<usize, Entry>(entry) };
            match fx.call_body_apart(code, fast, |fx| super::run_with(entry, fx, at)) {
                Some(r) => r,
                None => {
                    // Not made: the arguments are still here.
                    unsafe { let_go_all(at, n as u64) };
                    Err(Exit::GiveUp)
                }
            }
        }
        _ => {
            unsafe { push_all(jx, at, n as u64) };
            let fx = unsafe { self::fx(jx) };
            let base = fx.top() - n;
            fx.call(code, base)
        }
    };
    let fx = unsafe { self::fx(jx) };
    fx.m.frameless -= hidden;
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

/// Leave the body, giving up. A body running without its join point that gives up more
/// than rarely (more than once in [`RARE`] runs, and more than [`RARE_FLOOR`] times) has
/// its direct form taken away, so that sends to it go the general way from then on and
/// the transactions it is in are not run again and again.
unsafe fn give_up(jx: *mut Jx) -> Raw {
    unsafe {
        (*jx).exit = Exit::GiveUp;
        if (*jx).direct != 0
            && let Some(d) = (&*(*jx).entries).get((*jx).code as usize)
        {
            let rare = d.rare.fetch_add(1, Ordering::Relaxed) + 1;
            if rare > RARE_FLOOR
                && u64::from(rare) * RARE > u64::from(d.runs.load(Ordering::Relaxed))
            {
                d.entry.store(0, Ordering::Relaxed);
                super::TAKEN_AWAY.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    Raw::EXIT
}

/// A direct form giving up in more than one of this many runs is taken away.
const RARE: u64 = 64;
/// ... once it has given up more than this many times.
const RARE_FLOOR: u32 = 16;

/// An instruction a body running without its join point does not do (a form or builtin
/// that reads the join point or the output): it gives up there.
pub(super) unsafe extern "C" fn rare(jx: *mut Jx) -> Raw {
    unsafe { give_up(jx) }
}

/// `(label)`: the label of the message the body handles, the join point's (the
/// outermost one's too), or, in a chain run directly for a send, the send's.
pub(super) unsafe extern "C" fn label(jx: *mut Jx) -> Raw {
    let label = if unsafe { (*jx).direct != 0 && (*jx).outermost == 0 } {
        // SAFETY: a chain run directly has the shape of its send, or none.
        unsafe { (*jx).shape.as_ref() }.map(|shape| shape.label)
    } else {
        unsafe { fx(jx) }.m.current_jp().map(|jp| jp.msg.label)
    };
    match label {
        Some(label) => Raw {
            tag: STR,
            word: sym_word(label),
        },
        None => unsafe { give_up(jx) },
    }
}

/// A form that reads the join point, its operands handed over: done by the machine for a
/// body of the outermost join point (whose join point and frame are the machine's);
/// elsewhere `update message attribute` writes the message of the chain run directly
/// ([`update_attribute_direct`]) and anything else gives up.
pub(super) unsafe extern "C" fn form_outermost(jx: *mut Jx, site: *const Site) -> Raw {
    match unsafe { (*jx).outermost } {
        0 if unsafe { &*site }.form == FormOp::UpdateAttribute => unsafe {
            update_attribute_direct(jx)
        },
        0 => unsafe { give_up(jx) },
        _ => unsafe { form(jx, site) },
    }
}

/// `(update message attribute k to v)` in a body of a chain run directly ([`run_direct`]),
/// its operands handed over: the value sent under that name replaced where it lies on
/// the machine's stack, or, for a name the message was sent without, kept beside it
/// (`Machine::written`) for the bodies after, as the interpreter writes it into the join
/// point's message. A key that is not a name, or a value nested too deep, gives up.
unsafe fn update_attribute_direct(jx: *mut Jx) -> Raw {
    let fx = unsafe { fx(jx) };
    let (value, key) = match (fx.m.stack.pop(), fx.m.stack.pop()) {
        (Some(value), Some(key)) => (value, key),
        _ => return unsafe { give_up(jx) },
    };
    let name = match &key {
        Value::Str(text) => text.symbol(),
        _ => None,
    };
    unsafe { write_attribute_direct(jx, name, value) }
}

/// `(update message attribute "key" to v)` of a key written in the code, the value
/// given in registers: at a join point (the outermost one too), written into its
/// message as the form writes it; in a chain run directly, as
/// [`update_attribute_direct`] writes it. A value nested too deep gives up (the
/// interpreter reports it).
pub(super) unsafe extern "C" fn update_attribute(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let value = unsafe { value(tag, word) };
    if unsafe { (*jx).direct != 0 && (*jx).outermost == 0 } {
        return unsafe { write_attribute_direct(jx, Some(site.name), value) };
    }
    if fx.m.meter.nest(&value).is_err() {
        return unsafe { give_up(jx) };
    }
    match fx.m.message_to_write() {
        Some(msg) => {
            msg.attrs.insert(Key::sym(site.name), value);
            into_raw(Value::Nil)
        }
        None => unsafe { give_up(jx) },
    }
}

/// [`update_attribute_direct`] of the key `name` (`None`: not a name) and `value`.
unsafe fn write_attribute_direct(jx: *mut Jx, name: Option<Symbol>, value: Value) -> Raw {
    let fx = unsafe { fx(jx) };
    let shape = unsafe { (*jx).shape };
    let Some(name) = name.filter(|_| !shape.is_null()) else {
        return unsafe { give_up(jx) };
    };
    if fx.m.meter.nest(&value).is_err() {
        return unsafe { give_up(jx) };
    }
    // SAFETY: a chain run directly has its shape (above).
    let shape = unsafe { &*shape };
    let attrs_at = unsafe { (*jx).attrs_at } as usize;
    match shape.names.iter().position(|&k| k == name) {
        Some(i) => fx.m.stack[attrs_at + i] = value,
        None => match fx
            .m
            .written
            .iter_mut()
            .rev()
            .find(|w| w.0 == attrs_at && w.1 == name)
        {
            Some(w) => w.2 = value,
            None => fx.m.written.push((attrs_at, name, value)),
        },
    }
    into_raw(Value::Nil)
}

/// A builtin that reads the join point or writes output, its arguments pushed: as
/// [`form_outermost`].
pub(super) unsafe extern "C" fn builtin_outermost(jx: *mut Jx, site: *const Site) -> Raw {
    match unsafe { (*jx).outermost } {
        0 => unsafe { give_up(jx) },
        _ => unsafe { builtin(jx, site) },
    }
}

/// A message of known label and keys made or sent, its recipient and values pushed. A
/// message sent to an entity the game started with, whose chain for it (its laws, its
/// behaviour and its side-effects) all have machine code run without a join point
/// ([`super::lower`]'s direct form), is run as calls of that code, one body after the
/// other as the join point would run them: the entity, the values where they were
/// pushed, no message, join point or frame, everything else observable as the send
/// would make it (the memory of the message's attributes, each body's steps and its
/// end's, the check after each, a law's veto, the depth a join point and a frame would
/// take). Any other goes the general way ([`send_from_direct`] from a body itself
/// running without a join point).
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
        Some((id, name, code)) => unsafe { run_direct(jx, fx, (id, name), code, at, n, site) },
        // Too deep for a direct call: the interpreter goes deeper (or stops at the
        // limit), and the direct form is kept for the sends that are not.
        None if direct && unsafe { too_deep(jx, fx) } => {
            unsafe { (*jx).exit = Exit::GiveUp };
            Raw::EXIT
        }
        None if direct => unsafe { send_from_direct(jx, fx, shape, at) },
        None => {
            let r = fx.new_message(shape, at);
            unsafe { give(jx, r) }
        }
    }
}

/// A send the general way from a body running without a join point: the message names
/// that body's entity as its sender, and the join points and frames of the bodies run
/// directly count in the depth.
#[cold]
#[inline(never)]
unsafe fn send_from_direct(
    jx: *mut Jx,
    fx: &mut Fx<'static, 'static>,
    shape: &MessageShape,
    at: usize,
) -> Raw {
    let id = EntityId(unsafe { (*jx).me } as u32);
    let Some(sender) = fx.m.world.game_entity(id).map(|e| e.name) else {
        return unsafe { give_up(jx) };
    };
    let hidden = 2 * unsafe { (*jx).nest } as usize;
    fx.m.direct_sender = Some(sender);
    fx.m.frameless += hidden;
    let r = fx.new_message(shape, at);
    let fx = unsafe { self::fx(jx) };
    fx.m.frameless -= hidden;
    fx.m.direct_sender = None;
    unsafe { give(jx, r) }
}

/// Body `code`'s direct form, if it has one.
#[inline(always)]
pub(super) fn entry_of(entries: &[Direct], code: CodeId) -> Option<Entry> {
    let entry = entries.get(code.0 as usize)?.entry.load(Ordering::Relaxed);
    // SAFETY: a nonzero entry is the address of a function of this signature.
    (entry != 0).then(|| unsafe { std::mem::transmute::<usize, Entry>(entry) })
}

/// The entity, the chain and the behaviour a send from `at` would run directly, if it
/// would: every body of the chain has a direct form, and no law can change the world
/// (a veto would have a copy to restore; the chain's own reckoning counts every call,
/// the table's follows them).
unsafe fn direct_target(
    jx: *mut Jx,
    fx: &mut Fx<'static, 'static>,
    site: &Site,
    at: usize,
) -> Option<(EntityId, Symbol, ChainEntry)> {
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
    // SAFETY: the code generator outlives the code it made.
    let jit = unsafe { &*site.jit };
    // Where this send went last, if nothing it depends on has changed since.
    let version = m.world.advice.version;
    let stamp = jit.stamp();
    if let Some(memo) = cx.cache.sends.get(site.send as usize)
        && memo.version == version
        && memo.ty == Some(ty)
        && memo.state == Some(state)
        && memo.stamp == stamp
        && !cx.cache.instance_targets.contains(&name)
    {
        // SAFETY: a chain's code, kept by this send.
        return Some((id, name, unsafe {
            std::mem::transmute::<usize, ChainEntry>(memo.code)
        }));
    }
    let (chain, behaviour) = cx
        .cache
        .get(cx.game, &m.world, ty, name, state, shape.label);
    let entries = site.entries();
    if chain.laws_may_change_world
        && !chain
            .laws
            .iter()
            .all(|law| entries.get(law.code.0 as usize).is_some_and(|d| d.quiet))
    {
        return None;
    }
    let code = jit.chain_direct(&chain, behaviour)?;
    // Kept at the stamp its chain's note was made at (the same, or the send is not
    // run directly at all).
    let at = site.send as usize;
    if at != u32::MAX as usize && !cx.cache.instance_targets.contains(&name) {
        if cx.cache.sends.len() <= at {
            cx.cache.sends.resize(at + 1, SendMemo::default());
        }
        cx.cache.sends[at] = SendMemo {
            version,
            stamp: chain.direct.get(),
            ty: Some(ty),
            state: Some(state),
            code: code as usize,
        };
    }
    Some((id, name, code))
}

/// Whether a direct call from the body `jx` runs would be too deep: past the fast tier's
/// nesting of Rust calls, or where the join point and frame it stands for would reach
/// the depth limit.
unsafe fn too_deep(jx: *mut Jx, fx: &Fx<'static, 'static>) -> bool {
    let nest = unsafe { (*jx).nest } as usize;
    let m = &*fx.m;
    m.fast_nest >= FAST_DEPTH
        || m.frames.len() + m.frameless + m.jps.len() + 2 * nest >= fx.cx.limits.max_depth
}

/// Run the chain of `code` for entity `id`, the message's `n` values pushed after its
/// recipient at `at`: each law in turn (one that leaves by `return` vetoes, and the send
/// gives nil), the behaviour (whose value the send gives), each side-effect.
unsafe fn run_direct(
    jx: *mut Jx,
    fx: &mut Fx<'static, 'static>,
    (id, name): (EntityId, Symbol),
    code: ChainEntry,
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
        me_name: sym_word(name),
        attrs_at: (at + 1) as u64,
        shape: site
            .shape
            .as_ref()
            .map_or(std::ptr::null(), |s| s as *const _),
        outermost: 0,
        nest: unsafe { (*jx).nest } + 1,
        direct: 1,
        code: 0,
        entries: site.entries(),
        kept: unsafe { (*jx).kept },
        params: std::ptr::null(),
    };
    fx.m.fast_nest += 1;
    let v = unsafe { chain::run(code, jx, &mut inner) };
    let fx = unsafe { self::fx(jx) };
    fx.m.fast_nest -= 1;
    // What the chain's laws wrote that the message was sent without goes with it,
    // however the chain ended (the sends it made took theirs).
    if !fx.m.written.is_empty() {
        let attrs_at = at + 1;
        while fx.m.written.last().is_some_and(|w| w.0 >= attrs_at) {
            fx.m.written.pop();
        }
    }
    let v = match v {
        Chained::Value(v) => v,
        Chained::Vetoed(_) => Value::Nil,
        Chained::Left => return Raw::EXIT,
    };
    truncate_releasing(&mut fx.m.stack, at);
    into_raw(v)
}

/// `(update property "name" to v)` in a body running without a join point: a property
/// of its entity's layout; anything else gives up.
pub(super) unsafe extern "C" fn update_property_direct(
    jx: *mut Jx,
    site: *const Site,
    tag: u64,
    word: u64,
) -> Raw {
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let v = unsafe { value(tag, word) };
    let id = EntityId(unsafe { (*jx).me } as u32);
    match fx.m.write_kept_slot(fx.cx, id, site.name, &site.slot, v) {
        Ok(()) => into_raw(Value::Nil),
        Err(v) => {
            Value::release(v);
            unsafe { give_up(jx) }
        }
    }
}

/// `(attribute "key")` in a body running without a join point: the value sent (at the
/// outermost join point, in the message, as at a join point).
pub(super) unsafe extern "C" fn attribute_direct(jx: *mut Jx, site: *const Site) -> Raw {
    if unsafe { (*jx).outermost } != 0 {
        return unsafe { attribute_at_join_point(jx, site) };
    }
    let (fx, site) = unsafe { (fx(jx), &*site) };
    let (shape, at) = unsafe { (&*(*jx).shape, (*jx).attrs_at as usize) };
    // Looked for first where it was found last (the search out of line).
    let guess = site.guess.load(Ordering::Relaxed) as usize;
    if shape.names.get(guess) == Some(&site.name)
        && let Some(v) = fx.m.stack.get(at + guess)
    {
        return copy_of(v);
    }
    // Not sent last time: not sent, nor written by a law of this chain, this time either?
    if guess == ABSENT as usize
        && fx.m.written.last().is_none_or(|w| w.0 < at)
        && !shape.names.contains(&site.name)
    {
        return Raw { tag: NIL, word: 0 };
    }
    unsafe { attribute_direct_slowly(jx, site) }
}

/// [`attribute_direct`] when the attribute is not where it was found last.
#[inline(never)]
unsafe fn attribute_direct_slowly(jx: *mut Jx, site: &Site) -> Raw {
    let fx = unsafe { fx(jx) };
    let (shape, at) = unsafe { (&*(*jx).shape, (*jx).attrs_at as usize) };
    let found = shape.names.iter().position(|&k| k == site.name);
    if let Some(i) = found {
        site.guess.store(i as u32, Ordering::Relaxed);
    }
    match found {
        Some(i) => into_raw(fx.m.stack[at + i].clone()),
        // One a law of the chain wrote, if any.
        None => {
            let written = fx.m.written.iter().rev();
            let mut written = written.take_while(|w| w.0 >= at);
            match written.find(|w| w.0 == at && w.1 == site.name) {
                Some(w) => into_raw(w.2.clone()),
                None => {
                    site.guess.store(ABSENT, Ordering::Relaxed);
                    into_raw(Value::Nil)
                }
            }
        }
    }
}

/// `(property "name")` in a body running without a join point.
pub(super) unsafe extern "C" fn property_direct(jx: *mut Jx, site: *const Site) -> Raw {
    let me = unsafe { (*jx).me };
    let view = unsafe { &*(*jx).kept };
    if let Some(v) = view.entry_of(me).and_then(|e| e.property_at(slot(site))) {
        return copy_of(v);
    }
    unsafe { property_direct_slowly(jx, site) }
}

/// [`property_direct`] when the machine's table or the site's kept place do not have
/// the property.
#[inline(never)]
unsafe fn property_direct_slowly(jx: *mut Jx, site: *const Site) -> Raw {
    let site = unsafe { &*site };
    let me = unsafe { (*jx).me } as u32;
    if let Some(v) = unsafe { kept_property_of_id(jx, site, me) } {
        return into_raw(v.clone());
    }
    let fx = unsafe { fx(jx) };
    let id = EntityId(me);
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
    let site = unsafe { &*site };
    if let Some(v) = unsafe { kept_property_of_name(jx, site, tag, word) } {
        return into_raw(v.clone());
    }
    let fx = unsafe { fx(jx) };
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
    // An interned name whose entity lies where the machine found it last.
    if tag == STR
        && word & 1 == 1
        && let Some(e) = unsafe { &*(*jx).kept }.entry(word >> 1)
    {
        // SAFETY: the entry is good: the entity lies there.
        return Raw {
            tag: STR,
            word: sym_word(unsafe { &*e.entity }.state),
        };
    }
    unsafe { state_of_direct_slowly(jx, tag, word) }
}

/// [`state_of_direct`] of a name the machine's table does not have (yet).
#[inline(never)]
unsafe fn state_of_direct_slowly(jx: *mut Jx, tag: u64, word: u64) -> Raw {
    let fx = unsafe { fx(jx) };
    if tag == STR
        && word & 1 == 1
        && let Some((_, e)) = fx.m.kept_entity_of(Symbol::from_id((word >> 1) as u32))
    {
        return Raw {
            tag: STR,
            word: sym_word(e.state),
        };
    }
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
