//! Lists, dictionaries and `str`.
//!
//! Every builtin that returns an updated collection moves its argument out of the slice
//! and updates it with `Rc::make_mut`: in place when nobody else holds it, on a cheap
//! structural copy otherwise, so other holders never see the change.

use std::fmt::Write as _;

use super::args::{dict_ref, int_arg, key_arg, list_ref, take_dict, take_list, type_error};
use crate::compile::bytecode::Read;
use crate::runtime::budget::{ELEMENT_BYTES, ENTRY_BYTES, Meter, is_collection, scalar_eq};
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::{Dict, Key, List, Text, Value};

fn out_of_range(name: &str, index: i64, len: usize) -> BuiltinError {
    BuiltinError::new(format!(
        "`{name}`: index {index} is out of range for a list of length {len}"
    ))
    .with_hint("indices start at 0; `get` gives nil (or a default) instead of failing")
}

/// A count for `take` / `drop`, clamped to `len`.
fn count_arg(v: &Value, name: &str, len: usize) -> Result<usize, BuiltinError> {
    let n = int_arg(v, name, "an integer count")?;
    if n < 0 {
        return Err(BuiltinError::new(format!(
            "`{name}`: the count must not be negative, got {n}"
        )));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX).min(len))
}

pub(super) fn list(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let mut deepest = 0;
    for v in args.iter() {
        if is_collection(v) {
            deepest = deepest.max(m.nest_depth(v)?);
        }
    }
    m.alloc(ELEMENT_BYTES * args.len() as u64)?;
    // Moved out in one pass of known length: no capacity check per element.
    let items = args.iter_mut().map(std::mem::take).collect();
    Ok(Value::list(List::with_depth(items, deepest + 1)))
}

pub(super) fn first(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    Ok(list_ref(args, 0, "first")?
        .front()
        .cloned()
        .unwrap_or_default())
}

pub(super) fn last(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    Ok(list_ref(args, 0, "last")?
        .back()
        .cloned()
        .unwrap_or_default())
}

pub(super) fn rest(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    let mut l = take_list(args, 0, "rest")?;
    if !l.is_empty() {
        List::drop_front_of(&mut l, 1);
    }
    Ok(Value::List(l))
}

pub(super) fn nth(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    let l = list_ref(args, 0, "nth")?;
    let k = int_arg(&args[1], "nth", "an integer index")?;
    usize::try_from(k)
        .ok()
        .and_then(|u| l.get(u))
        .cloned()
        .ok_or_else(|| out_of_range("nth", k, l.len()))
}

pub(super) fn length(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let n = match &args[0] {
        Value::List(l) => l.len(),
        Value::Dict(d) => d.len(),
        Value::Str(s) => {
            m.work(s.as_str().len() / 64)?;
            s.as_str().chars().count()
        }
        other => return Err(type_error("length", "a list, dictionary or string", other)),
    };
    Ok(Value::Int(i64::try_from(n).unwrap_or(i64::MAX)))
}

pub(super) fn append(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let mut l = take_list(args, 0, "append")?;
    m.length(l.len() + 1, "`append`: the list")?;
    let d = m.nest_depth(&args[1])?;
    m.alloc(ELEMENT_BYTES)?;
    List::make_mut(&mut l, 1).push_back(std::mem::take(&mut args[1]), d);
    Ok(Value::List(l))
}

pub(super) fn prepend(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let mut l = take_list(args, 0, "prepend")?;
    m.length(l.len() + 1, "`prepend`: the list")?;
    let d = m.nest_depth(&args[1])?;
    m.alloc(ELEMENT_BYTES)?;
    List::make_mut(&mut l, 1).push_front(std::mem::take(&mut args[1]), d);
    Ok(Value::List(l))
}

pub(super) fn concat(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let mut total = 0usize;
    for v in args.iter() {
        match v {
            Value::List(l) => total = total.saturating_add(l.len()),
            _ => return Err(type_error("concat", "lists", v)),
        }
    }
    m.length(total, "`concat`: the list")?;
    let first = match &args[0..] {
        [Value::List(l), ..] => l.len(),
        _ => 0,
    };
    m.alloc(ELEMENT_BYTES * (total - first) as u64)?;
    let Some((head, tail)) = args.split_first_mut() else {
        return Ok(Value::list(List::new()));
    };
    let Value::List(mut acc) = std::mem::take(head) else {
        unreachable!("checked above")
    };
    let more = total - acc.len();
    for v in tail {
        if let Value::List(l) = std::mem::take(v)
            && !l.is_empty()
        {
            List::make_mut(&mut acc, more).append(l);
        }
    }
    Ok(Value::List(acc))
}

/// `contains`: an element of a list, a key of a dictionary, a substring of a string.
pub(super) fn contains(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let found = match &args[0] {
        Value::List(l) => position(l, &args[1], m)?.is_some(),
        Value::Dict(d) => d.contains_key(&key_arg(&args[1], "contains")?),
        Value::Str(s) => match &args[1] {
            Value::Str(needle) => {
                let hay = s.as_str();
                m.work(hay.len())?;
                match needle.ascii_byte() {
                    // One ASCII character (a piece letter in "KQRBNP"): a byte search,
                    // without setting up a substring searcher.
                    Some(b) => hay.as_bytes().contains(&b),
                    None => hay.contains(needle.as_str()),
                }
            }
            other => {
                return Err(type_error(
                    "contains",
                    "a string to look for in a string",
                    other,
                ));
            }
        },
        other => {
            return Err(type_error(
                "contains",
                "a list, dictionary or string",
                other,
            ));
        }
    };
    Ok(Value::bool(found))
}

/// `contains` of a one-character name (a piece letter) in a string, as the builtin answers
/// it: the string's length in bytes (the work it counts) and whether the character is in
/// it; `None` for any other arguments. The instruction loop answers such a call itself.
#[inline(always)]
pub fn contains_letter(hay: &Value, needle: &Value) -> Option<(usize, bool)> {
    let (Value::Str(hay), Value::Str(needle)) = (hay, needle) else {
        return None;
    };
    let b = needle.ascii_byte()?;
    let hay = hay.as_str();
    Some((hay.len(), hay.as_bytes().contains(&b)))
}

/// Where `needle` first is in `l`, counting the comparisons.
fn position(l: &List, needle: &Value, m: &mut Meter) -> Result<Option<usize>, BuiltinError> {
    // One step per element up front; comparing nested collections counts more.
    m.work(l.len())?;
    if is_collection(needle) {
        return m.find_collection(l, needle);
    }
    // A scalar equals no collection: nothing nested to compare or count, one pass.
    if let Some(items) = l.as_slice() {
        if let Value::Str(t) = needle {
            // A string equals only a string of the same text: one word compare per
            // element when both are symbols, the texts otherwise.
            return Ok(items
                .iter()
                .position(|v| matches!(v, Value::Str(u) if u == t)));
        }
        return Ok(items.iter().position(|v| scalar_eq(v, needle)));
    }
    Ok(l.iter().position(|v| scalar_eq(v, needle)))
}

pub(super) fn index_of(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let l = list_ref(args, 0, "index-of")?;
    let k = position(l, &args[1], m)?;
    Ok(Value::Int(
        k.map_or(-1, |k| i64::try_from(k).unwrap_or(i64::MAX)),
    ))
}

/// `remove`: the list without the first element equal to the value.
pub(super) fn remove(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let mut l = take_list(args, 0, "remove")?;
    if let Some(k) = position(&l, &args[1], m)? {
        List::make_mut(&mut l, 0).remove(k);
    }
    Ok(Value::List(l))
}

pub(super) fn reverse(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let l = list_ref(args, 0, "reverse")?;
    m.work(l.len())?;
    m.alloc(ELEMENT_BYTES * l.len() as u64)?;
    Ok(Value::list(List::with_depth(
        l.iter().rev().cloned().collect(),
        l.depth(),
    )))
}

/// `range`: integers from start (default 0) up to, not including, end, by step (default
/// 1; a negative step counts down).
pub(super) fn range(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let mut n = [0i64, 0, 1];
    let what = ["an integer start", "an integer end", "an integer step"];
    let slots: &[usize] = match args.len() {
        1 => &[1],
        2 => &[0, 1],
        _ => &[0, 1, 2],
    };
    for (v, &slot) in args.iter().zip(slots) {
        n[slot] = int_arg(v, "range", what[slot])?;
    }
    let [start, end, step] = n.map(i128::from);
    if step == 0 {
        return Err(BuiltinError::new("`range`: the step must not be 0"));
    }
    let span = if step > 0 { end - start } else { start - end };
    let count = if span <= 0 {
        0
    } else {
        (span + step.abs() - 1) / step.abs()
    };
    m.length(
        usize::try_from(count).unwrap_or(usize::MAX),
        "`range`: the list",
    )?;
    m.work(count as usize)?;
    m.alloc(ELEMENT_BYTES * count as u64)?;
    let items = (0..count)
        .map(|k| Value::Int((start + k * step) as i64))
        .collect();
    Ok(Value::list(List::with_depth(items, 1)))
}

/// `sort`: stable, by [`Value::compare`] (numbers, then strings, then lists, ...).
pub(super) fn sort(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let l = list_ref(args, 0, "sort")?;
    m.work(l.len())?;
    m.alloc(ELEMENT_BYTES * l.len() as u64)?;
    let mut items: Vec<Value> = l.iter().cloned().collect();
    // Once the steps run out every comparison says "equal", so the sort finishes at once
    // and the error is reported.
    items.sort_by(|a, b| {
        if m.exhausted() {
            return std::cmp::Ordering::Equal;
        }
        m.compare(a, b).unwrap_or(std::cmp::Ordering::Equal)
    });
    if m.exhausted() {
        return Err(m.step_error());
    }
    Ok(Value::list(List::with_depth(items, l.depth())))
}

pub(super) fn take(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    let mut l = take_list(args, 0, "take")?;
    let n = count_arg(&args[1], "take", l.len())?;
    if n < l.len() {
        List::make_mut(&mut l, 0).truncate(n);
    }
    Ok(Value::List(l))
}

pub(super) fn drop(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    let mut l = take_list(args, 0, "drop")?;
    let n = count_arg(&args[1], "drop", l.len())?;
    if n > 0 {
        List::drop_front_of(&mut l, n);
    }
    Ok(Value::List(l))
}

/// `dict k v ...`: a later pair with the same key wins.
pub(super) fn dict(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    if !args.len().is_multiple_of(2) {
        return Err(BuiltinError::new(format!(
            "`dict` takes keys and values in pairs, but {} arguments given",
            args.len()
        ))
        .with_hint("usage: (dict <key> <value> ...)"));
    }
    m.alloc(ENTRY_BYTES * (args.len() / 2) as u64)?;
    let mut d = Dict::new();
    for pair in args.chunks_exact_mut(2) {
        m.nest(&pair[1])?;
        d.insert(key_arg(&pair[0], "dict")?, std::mem::take(&mut pair[1]));
    }
    Ok(Value::dict(d))
}

/// `get`: the value at a key of a dictionary, or at an index of a list; the default (or
/// nil) when there is none.
pub(super) fn get(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    let found = match &args[0] {
        // A name as the key (a square, a side): looked for without making a key of it.
        Value::Dict(d) if let Value::Str(t) = &args[1] => d.get_text(t).cloned(),
        Value::Dict(d) => d.get(&key_arg(&args[1], "get")?).cloned(),
        Value::List(l) => {
            let k = int_arg(&args[1], "get", "an integer index into a list")?;
            usize::try_from(k).ok().and_then(|u| l.get(u)).cloned()
        }
        other => return Err(type_error("get", "a dictionary or list", other)),
    };
    Ok(match found {
        Some(v) => v,
        None => args.get_mut(2).map(std::mem::take).unwrap_or_default(),
    })
}

/// What `get` (`default` standing for its third argument, nil when absent) or `nth`
/// answers on `c` and `k` when the answer is a plain read: a list with an integer index,
/// a dictionary with an integer or string key. `None` for anything else (another kind,
/// a float key, `nth` out of range): the builtin decides, and reports any error. The
/// machine's fused reads use it on values borrowed in their slots.
#[inline(always)]
pub fn read_fast(read: Read, c: &Value, k: &Value, default: Option<i64>) -> Option<Value> {
    let or_default = || default.map_or(Value::Nil, Value::Int);
    match (read, c, k) {
        (Read::Get, Value::Dict(d), Value::Int(i)) => {
            Some(d.get(&Key::Int(*i)).cloned().unwrap_or_else(or_default))
        }
        (Read::Get, Value::Dict(d), Value::Str(s)) => Some(
            d.get(&Key::Str(s.clone()))
                .cloned()
                .unwrap_or_else(or_default),
        ),
        (Read::Get, Value::List(l), Value::Int(i)) => Some(
            usize::try_from(*i)
                .ok()
                .and_then(|u| l.get(u))
                .cloned()
                .unwrap_or_else(or_default),
        ),
        (Read::Nth, Value::List(l), Value::Int(i)) => {
            usize::try_from(*i).ok().and_then(|u| l.get(u)).cloned()
        }
        _ => None,
    }
}

/// `put`: a dictionary with the entry set, or a list with the element at an existing
/// index replaced.
pub(super) fn put(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let depth = m.nest_depth(&args[2])?;
    let value = std::mem::take(&mut args[2]);
    match std::mem::take(&mut args[0]) {
        Value::Dict(mut d) => {
            let key = key_arg(&args[1], "put")?;
            // One search: it says whether the key is new (to be counted) and where it goes.
            let place = d.search(&key);
            if place.is_new() {
                m.length(d.len() + 1, "`put`: the dictionary")?;
                m.alloc(ENTRY_BYTES)?;
            }
            Dict::insert_in(&mut d, place, key, value);
            Ok(Value::Dict(d))
        }
        Value::List(mut l) => {
            let k = int_arg(&args[1], "put", "an integer index into a list")?;
            match usize::try_from(k).ok().filter(|&u| u < l.len()) {
                Some(u) => {
                    List::make_mut(&mut l, 0).set(u, value, depth);
                    Ok(Value::List(l))
                }
                None => Err(out_of_range("put", k, l.len())),
            }
        }
        other => Err(type_error("put", "a dictionary or list", &other)),
    }
}

pub(super) fn has(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    let d = dict_ref(args, 0, "has")?;
    Ok(Value::bool(d.contains_key(&key_arg(&args[1], "has")?)))
}

pub(super) fn keys(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let d = dict_ref(args, 0, "keys")?;
    m.work(d.len())?;
    m.alloc(ELEMENT_BYTES * d.len() as u64)?;
    Ok(Value::list(List::with_depth(
        d.keys().map(|k| k.to_value()).collect(),
        1,
    )))
}

pub(super) fn values(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let d = dict_ref(args, 0, "values")?;
    m.work(d.len())?;
    m.alloc(ELEMENT_BYTES * d.len() as u64)?;
    Ok(Value::list(d.values().map(Value::clone_inline).collect()))
}

pub(super) fn remove_key(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    let mut d = take_dict(args, 0, "remove-key")?;
    let key = key_arg(&args[1], "remove-key")?;
    let place = d.search(&key);
    Dict::remove_in(&mut d, place, &key);
    Ok(Value::Dict(d))
}

/// `str`: the text of every argument (strings without quotes), joined.
pub(super) fn str(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    if let [v @ Value::Str(_)] = args {
        return Ok(std::mem::take(v));
    }
    if let Some(text) = join_short_strings(args, m)? {
        return Ok(Value::Str(Text::from_string(text)));
    }
    let text = text_of(args, "", m, "`str`: the string")?;
    Ok(Value::Str(Text::from_string(text)))
}

/// [`text_of`] with no separator for two to four strings within the length limit (a
/// move's name made of its squares), each text read once; `None` for any other
/// arguments, which `text_of` then joins (and refuses when too long).
#[inline]
fn join_short_strings(args: &[Value], m: &mut Meter) -> Result<Option<String>, BuiltinError> {
    let mut parts = [""; 4];
    if args.len() > parts.len() {
        return Ok(None);
    }
    for (part, v) in parts.iter_mut().zip(args) {
        let Value::Str(s) = v else {
            return Ok(None);
        };
        *part = s.as_str();
    }
    let parts = &parts[..args.len()];
    let len = parts.iter().map(|p| p.len()).sum::<usize>();
    if len > m.limits.max_length {
        return Ok(None);
    }
    let mut text = String::with_capacity(len);
    for p in parts {
        text.push_str(p);
    }
    m.work(len)?;
    m.alloc(ELEMENT_BYTES + len as u64)?;
    Ok(Some(text))
}

/// The text forms of `args` (strings without quotes) joined by `sep`, within the length
/// limit; counts one step per byte written and the bytes as memory.
pub(crate) fn text_of(
    args: &[Value],
    sep: &str,
    m: &mut Meter,
    what: &str,
) -> Result<String, BuiltinError> {
    let max = m.limits.max_length;
    // Strings only (a move's name made of its squares): the text's exact size is known,
    // so it is written into one allocation that the string value keeps as it is.
    let room = args
        .iter()
        .try_fold(sep.len() * args.len().saturating_sub(1), |n, v| match v {
            Value::Str(s) => Some(n.saturating_add(s.as_str().len())),
            _ => None,
        })
        .unwrap_or(0)
        .min(max);
    let mut out = BoundedText {
        text: String::with_capacity(room),
        max,
    };
    for (i, v) in args.iter().enumerate() {
        let written = if i > 0 { out.write_str(sep) } else { Ok(()) }.and_then(|()| match v {
            Value::Str(s) => out.write_str(s.as_str()),
            other => other.write_text(&mut out, &mut 0),
        });
        if written.is_err() {
            m.work(max)?;
            return Err(m.too_long(what, &format!("more than {max} bytes")));
        }
    }
    m.work(out.text.len())?;
    m.alloc(ELEMENT_BYTES + out.text.len() as u64)?;
    Ok(out.text)
}

/// A string that refuses to grow past `max` bytes.
struct BoundedText {
    text: String,
    max: usize,
}

impl std::fmt::Write for BoundedText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.text.len() + s.len() > self.max {
            return Err(std::fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::super::test_support::*;
    use crate::runtime::value::{Dict, Value};
    use crate::symbol::Symbol;

    fn d(pairs: Vec<(Value, Value)>) -> Value {
        let mut m = Dict::new();
        for (k, v) in pairs {
            m.insert(k.as_key().unwrap(), v);
        }
        Value::dict(m)
    }

    const T: Value = Value::bool(true);
    const F: Value = Value::bool(false);
    const NIL: Value = Value::Nil;

    #[test]
    fn list_first_rest_last() {
        assert_eq!(ok("list", vec![]), ints(&[]));
        assert_eq!(ok("list", vec![i(1), s("a")]), l(vec![i(1), s("a")]));
        assert_eq!(ok("first", vec![ints(&[4, 5])]), i(4));
        assert_eq!(ok("first", vec![ints(&[])]), NIL);
        assert_eq!(ok("last", vec![ints(&[4, 5])]), i(5));
        assert_eq!(ok("last", vec![ints(&[])]), NIL);
        assert_eq!(ok("rest", vec![ints(&[4, 5, 6])]), ints(&[5, 6]));
        assert_eq!(ok("rest", vec![ints(&[])]), ints(&[]));
        for name in ["first", "last", "rest"] {
            assert_eq!(
                err(name, vec![i(3)]),
                format!("`{name}` expects a list, got integer 3")
            );
        }
    }

    #[test]
    fn nth_is_zero_based_and_checked() {
        assert_eq!(ok("nth", vec![ints(&[4, 5, 6]), i(0)]), i(4));
        assert_eq!(ok("nth", vec![ints(&[4, 5, 6]), i(2)]), i(6));
        assert_eq!(
            err("nth", vec![ints(&[4, 5, 6]), i(3)]),
            "`nth`: index 3 is out of range for a list of length 3"
        );
        assert_eq!(
            err("nth", vec![ints(&[4, 5, 6]), i(-1)]),
            "`nth`: index -1 is out of range for a list of length 3"
        );
        assert_eq!(
            err("nth", vec![ints(&[4]), f(0.0)]),
            "`nth` expects an integer index, got float 0.0"
        );
        err("nth", vec![NIL, i(0)]);
    }

    #[test]
    fn length_of_lists_dicts_and_strings() {
        assert_eq!(ok("length", vec![ints(&[1, 2])]), i(2));
        assert_eq!(ok("length", vec![d(vec![(s("a"), i(1))])]), i(1));
        assert_eq!(ok("length", vec![s("héllo")]), i(5));
        assert_eq!(
            err("length", vec![i(3)]),
            "`length` expects a list, dictionary or string, got integer 3"
        );
    }

    #[test]
    fn append_prepend_concat() {
        assert_eq!(ok("append", vec![ints(&[1, 2]), i(3)]), ints(&[1, 2, 3]));
        assert_eq!(ok("prepend", vec![ints(&[1, 2]), i(0)]), ints(&[0, 1, 2]));
        assert_eq!(ok("concat", vec![]), ints(&[]));
        assert_eq!(
            ok("concat", vec![ints(&[1]), ints(&[]), ints(&[2, 3])]),
            ints(&[1, 2, 3])
        );
        assert_eq!(
            err("append", vec![i(1), i(2)]),
            "`append` expects a list, got integer 1"
        );
        err("prepend", vec![NIL, i(2)]);
        assert_eq!(
            err("concat", vec![ints(&[1]), s("a")]),
            "`concat` expects lists, got string \"a\""
        );
    }

    #[test]
    fn updates_leave_shared_collections_unchanged() {
        let original = ints(&[1, 2, 3]);
        let shared = original.clone();
        assert_eq!(
            ok("append", vec![shared.clone(), i(4)]),
            ints(&[1, 2, 3, 4])
        );
        assert_eq!(
            ok("prepend", vec![shared.clone(), i(0)]),
            ints(&[0, 1, 2, 3])
        );
        assert_eq!(ok("rest", vec![shared.clone()]), ints(&[2, 3]));
        assert_eq!(ok("remove", vec![shared.clone(), i(2)]), ints(&[1, 3]));
        assert_eq!(ok("take", vec![shared.clone(), i(1)]), ints(&[1]));
        assert_eq!(ok("drop", vec![shared.clone(), i(1)]), ints(&[2, 3]));
        assert_eq!(
            ok("put", vec![shared.clone(), i(0), i(9)]),
            ints(&[9, 2, 3])
        );
        assert_eq!(
            ok("concat", vec![shared.clone(), ints(&[4])]),
            ints(&[1, 2, 3, 4])
        );
        assert_eq!(ok("reverse", vec![shared.clone()]), ints(&[3, 2, 1]));
        assert_eq!(shared, ints(&[1, 2, 3]));
        assert_eq!(original, ints(&[1, 2, 3]));

        let dict = d(vec![(s("a"), i(1))]);
        let held = dict.clone();
        ok("put", vec![held.clone(), s("b"), i(2)]);
        ok("remove-key", vec![held.clone(), s("a")]);
        assert_eq!(held, d(vec![(s("a"), i(1))]));
    }

    #[test]
    fn unique_collections_are_updated_in_place() {
        let list = ints(&[1, 2]);
        let before = match &list {
            Value::List(a) => Rc::as_ptr(a),
            _ => unreachable!(),
        };
        match ok("append", vec![list, i(3)]) {
            Value::List(a) => assert_eq!(Rc::as_ptr(&a), before),
            v => panic!("{v}"),
        }
        let dict = d(vec![]);
        let before = match &dict {
            Value::Dict(a) => Rc::as_ptr(a),
            _ => unreachable!(),
        };
        match ok("put", vec![dict, s("k"), i(1)]) {
            Value::Dict(a) => assert_eq!(Rc::as_ptr(&a), before),
            v => panic!("{v}"),
        }
    }

    #[test]
    fn contains_in_lists_dicts_and_strings() {
        assert_eq!(ok("contains", vec![ints(&[1, 2]), f(2.0)]), T);
        assert_eq!(ok("contains", vec![ints(&[1, 2]), i(3)]), F);
        let dict = d(vec![(s("a"), i(1)), (i(2), i(0))]);
        assert_eq!(ok("contains", vec![dict.clone(), s("a")]), T);
        assert_eq!(ok("contains", vec![dict.clone(), f(2.0)]), T);
        assert_eq!(ok("contains", vec![dict.clone(), i(1)]), F);
        assert_eq!(ok("contains", vec![s("hello"), s("ell")]), T);
        assert_eq!(ok("contains", vec![s("hello"), s("x")]), F);
        // One ASCII character (a byte search), in names and in strings made at run time.
        assert_eq!(ok("contains", vec![s("KQRBNP"), s("N")]), T);
        assert_eq!(ok("contains", vec![s("KQRBNP"), s("n")]), F);
        assert_eq!(ok("contains", vec![s("KQRBNP"), s("")]), T);
        let made = Value::str("contains-test-made-at-run-time");
        assert_eq!(ok("contains", vec![made.clone(), s("-")]), T);
        assert_eq!(ok("contains", vec![made.clone(), s("!")]), F);
        assert_eq!(ok("contains", vec![s("é-b"), s("b")]), T);
        assert_eq!(ok("contains", vec![s("aéb"), s("é")]), T);
        // A string in a list: by text, whether held as a symbol or made at run time.
        let names = l(vec![i(1), s("w"), made.clone(), NIL]);
        assert_eq!(ok("contains", vec![names.clone(), s("w")]), T);
        assert_eq!(ok("contains", vec![names.clone(), s("b")]), F);
        assert_eq!(
            ok(
                "contains",
                vec![names.clone(), Value::str("contains-test-made-at-run-time")]
            ),
            T
        );
        assert_eq!(
            ok(
                "contains",
                vec![l(vec![s("contains-test-made-at-run-time")]), made]
            ),
            T
        );
        assert_eq!(ok("contains", vec![names, s("1")]), F);
        assert_eq!(
            err("contains", vec![s("hello"), i(1)]),
            "`contains` expects a string to look for in a string, got integer 1"
        );
        assert_eq!(
            err("contains", vec![dict, ints(&[])]),
            "`contains`: dictionary keys are integers or strings, got list ()"
        );
        assert_eq!(
            err("contains", vec![i(5), i(1)]),
            "`contains` expects a list, dictionary or string, got integer 5"
        );
    }

    #[test]
    fn index_of_remove_reverse() {
        assert_eq!(ok("index-of", vec![ints(&[5, 6, 6]), i(6)]), i(1));
        assert_eq!(ok("index-of", vec![ints(&[5, 6]), i(7)]), i(-1));
        assert_eq!(ok("remove", vec![ints(&[1, 2, 1]), i(1)]), ints(&[2, 1]));
        assert_eq!(ok("remove", vec![ints(&[1, 2]), i(3)]), ints(&[1, 2]));
        assert_eq!(ok("reverse", vec![ints(&[1, 2, 3])]), ints(&[3, 2, 1]));
        assert_eq!(ok("reverse", vec![ints(&[])]), ints(&[]));
        err("index-of", vec![s("abc"), s("b")]);
        err("remove", vec![NIL, i(1)]);
        err("reverse", vec![d(vec![])]);
    }

    #[test]
    fn range_forms() {
        assert_eq!(ok("range", vec![i(4)]), ints(&[0, 1, 2, 3]));
        assert_eq!(ok("range", vec![i(0)]), ints(&[]));
        assert_eq!(ok("range", vec![i(-3)]), ints(&[]));
        assert_eq!(ok("range", vec![i(2), i(5)]), ints(&[2, 3, 4]));
        assert_eq!(ok("range", vec![i(5), i(2)]), ints(&[]));
        assert_eq!(ok("range", vec![i(1), i(10), i(3)]), ints(&[1, 4, 7]));
        assert_eq!(ok("range", vec![i(1), i(10), i(2)]), ints(&[1, 3, 5, 7, 9]));
        assert_eq!(ok("range", vec![i(5), i(0), i(-2)]), ints(&[5, 3, 1]));
        assert_eq!(ok("range", vec![i(0), i(5), i(-1)]), ints(&[]));
        assert_eq!(
            ok("range", vec![i(i64::MAX - 1), i(i64::MAX)]),
            ints(&[i64::MAX - 1])
        );
        assert_eq!(
            ok("range", vec![i(i64::MIN), i(i64::MAX), i(i64::MAX)]),
            ints(&[i64::MIN, -1, i64::MAX - 1])
        );
        assert_eq!(
            err("range", vec![i(0), i(5), i(0)]),
            "`range`: the step must not be 0"
        );
        assert_eq!(
            err("range", vec![i(10_000_001)]),
            "`range`: the list would have 10000001 elements (at most 10000000), past the length limit"
        );
        err("range", vec![i(i64::MIN), i(i64::MAX)]);
        assert_eq!(
            err("range", vec![f(3.0)]),
            "`range` expects an integer end, got float 3.0"
        );
        assert_eq!(
            err("range", vec![s("a"), i(3)]),
            "`range` expects an integer start, got string \"a\""
        );
        err("range", vec![i(0), i(3), NIL]);
    }

    #[test]
    fn sort_is_stable_and_total() {
        assert_eq!(ok("sort", vec![ints(&[3, 1, 2])]), ints(&[1, 2, 3]));
        let sorted = ok("sort", vec![l(vec![f(1.0), i(0), i(1), s("a")])]);
        // 1.0 and 1 compare equal and keep their order.
        match sorted {
            Value::List(v) => {
                assert!(matches!(v[0], Value::Int(0)));
                assert!(matches!(v[1], Value::Float(_)));
                assert!(matches!(v[2], Value::Int(1)));
                assert_eq!(v[3], s("a"));
            }
            v => panic!("{v}"),
        }
        err("sort", vec![s("cba")]);
    }

    #[test]
    fn take_and_drop_clamp() {
        assert_eq!(ok("take", vec![ints(&[1, 2, 3]), i(2)]), ints(&[1, 2]));
        assert_eq!(ok("take", vec![ints(&[1, 2, 3]), i(9)]), ints(&[1, 2, 3]));
        assert_eq!(ok("take", vec![ints(&[1, 2, 3]), i(0)]), ints(&[]));
        assert_eq!(ok("drop", vec![ints(&[1, 2, 3]), i(2)]), ints(&[3]));
        assert_eq!(ok("drop", vec![ints(&[1, 2, 3]), i(9)]), ints(&[]));
        assert_eq!(ok("drop", vec![ints(&[1, 2, 3]), i(0)]), ints(&[1, 2, 3]));
        assert_eq!(
            err("take", vec![ints(&[1]), i(-1)]),
            "`take`: the count must not be negative, got -1"
        );
        assert_eq!(
            err("drop", vec![ints(&[1]), i(-1)]),
            "`drop`: the count must not be negative, got -1"
        );
        assert_eq!(
            err("drop", vec![ints(&[1]), s("1")]),
            "`drop` expects an integer count, got string \"1\""
        );
        err("take", vec![NIL, i(1)]);
    }

    #[test]
    fn dict_builds_from_pairs() {
        assert_eq!(ok("dict", vec![]), d(vec![]));
        let built = ok("dict", vec![s("b"), i(2), i(1), s("x"), f(3.0), NIL]);
        assert_eq!(built, d(vec![(s("b"), i(2)), (i(1), s("x")), (i(3), NIL)]));
        // Later pairs win.
        assert_eq!(
            ok("dict", vec![s("a"), i(1), s("a"), i(2)]),
            d(vec![(s("a"), i(2))])
        );
        assert_eq!(
            err("dict", vec![f(1.5), i(1)]),
            "`dict`: dictionary keys are integers or strings, got float 1.5"
        );
        err("dict", vec![NIL, i(1)]);
        err("dict", vec![ints(&[1]), i(1)]);
        assert_eq!(
            err("dict", vec![s("a")]),
            "`dict` takes keys and values in pairs, but 1 arguments given"
        );
    }

    /// The machine's fused reads answer what `get` and `nth` answer whenever they answer,
    /// on values of every kind, and leave to the builtins exactly the cases they must
    /// decide (another kind, a float key, `nth` out of range, every error).
    #[test]
    fn fast_reads_answer_as_the_builtins() {
        use super::read_fast;
        use crate::compile::bytecode::Read;
        let dict = d(vec![
            (s("a"), i(1)),
            (i(2), s("two")),
            (i(-3), ints(&[7])),
            (s("nested"), d(vec![(i(0), NIL)])),
        ]);
        let collections = [
            NIL,
            Value::bool(true),
            i(3),
            f(1.0),
            s("abc"),
            Value::sym(Symbol::intern("abc")),
            ints(&[]),
            l(vec![i(4), s("five"), NIL, ints(&[6])]),
            d(vec![]),
            dict,
        ];
        let keys = [
            i(0),
            i(1),
            i(2),
            i(3),
            i(4),
            i(-1),
            i(-3),
            i(i64::MAX),
            i(i64::MIN),
            s("a"),
            Value::sym(Symbol::intern("a")),
            s("nested"),
            s("z"),
            f(2.0),
            f(0.5),
            NIL,
            Value::bool(false),
            ints(&[1]),
        ];
        let mut fast = 0;
        for c in &collections {
            for k in &keys {
                for (read, name) in [(Read::Get, "get"), (Read::Nth, "nth")] {
                    let defaults: &[Option<i64>] = match read {
                        Read::Get => &[None, Some(0), Some(-7)],
                        Read::Nth => &[None],
                    };
                    for &default in defaults {
                        let mut args = vec![c.clone(), k.clone()];
                        args.extend(default.map(Value::Int));
                        let builtin = run(name, args);
                        let Some(v) = read_fast(read, c, k, default) else {
                            // Left to the builtin: only where it does more than read.
                            let plain_read = match (read, c, k) {
                                (Read::Get, Value::Dict(_), Value::Int(_) | Value::Str(_))
                                | (Read::Get, Value::List(_), Value::Int(_)) => true,
                                (Read::Nth, Value::List(_), _) => builtin.is_ok(),
                                _ => false,
                            };
                            assert!(!plain_read, "{name} {c} {k} {default:?} not answered");
                            continue;
                        };
                        fast += 1;
                        match builtin {
                            Ok(b) => assert_eq!(v, b, "{name} {c} {k} {default:?}"),
                            Err(e) => {
                                panic!("{name} {c} {k}: {v} where the builtin says {}", e.message)
                            }
                        }
                    }
                }
            }
        }
        assert!(fast > 50, "only {fast} reads answered");
    }

    #[test]
    fn get_from_dicts_and_lists() {
        let dict = d(vec![(s("a"), i(1)), (i(2), s("two"))]);
        assert_eq!(ok("get", vec![dict.clone(), s("a")]), i(1));
        assert_eq!(ok("get", vec![dict.clone(), f(2.0)]), s("two"));
        assert_eq!(ok("get", vec![dict.clone(), s("z")]), NIL);
        assert_eq!(ok("get", vec![dict.clone(), s("z"), i(0)]), i(0));
        assert_eq!(ok("get", vec![dict.clone(), s("a"), i(0)]), i(1));
        assert_eq!(ok("get", vec![ints(&[4, 5]), i(1)]), i(5));
        assert_eq!(ok("get", vec![ints(&[4, 5]), i(2)]), NIL);
        assert_eq!(ok("get", vec![ints(&[4, 5]), i(-1), s("d")]), s("d"));
        assert_eq!(
            err("get", vec![dict, NIL]),
            "`get`: dictionary keys are integers or strings, got nil"
        );
        assert_eq!(
            err("get", vec![ints(&[4]), s("a")]),
            "`get` expects an integer index into a list, got string \"a\""
        );
        assert_eq!(
            err("get", vec![NIL, s("a")]),
            "`get` expects a dictionary or list, got nil"
        );
    }

    #[test]
    fn put_sets_entries_and_elements() {
        let dict = d(vec![(s("a"), i(1))]);
        assert_eq!(
            ok("put", vec![dict.clone(), s("b"), i(2)]),
            d(vec![(s("a"), i(1)), (s("b"), i(2))])
        );
        assert_eq!(
            ok("put", vec![dict.clone(), s("a"), i(5)]),
            d(vec![(s("a"), i(5))])
        );
        assert_eq!(ok("put", vec![ints(&[1, 2]), i(1), i(7)]), ints(&[1, 7]));
        assert_eq!(
            err("put", vec![ints(&[1, 2]), i(2), i(7)]),
            "`put`: index 2 is out of range for a list of length 2"
        );
        err("put", vec![dict, ints(&[]), i(1)]);
        assert_eq!(
            err("put", vec![s("x"), i(0), i(1)]),
            "`put` expects a dictionary or list, got string \"x\""
        );
    }

    #[test]
    fn has_keys_values_remove_key() {
        let dict = d(vec![(s("b"), i(2)), (s("a"), i(1)), (i(9), i(0))]);
        assert_eq!(ok("has", vec![dict.clone(), s("a")]), T);
        assert_eq!(ok("has", vec![dict.clone(), s("z")]), F);
        assert_eq!(ok("has", vec![dict.clone(), f(9.0)]), T);
        assert_eq!(
            ok("keys", vec![dict.clone()]),
            l(vec![i(9), s("a"), s("b")])
        );
        assert_eq!(ok("values", vec![dict.clone()]), ints(&[0, 1, 2]));
        assert_eq!(
            ok("remove-key", vec![dict.clone(), s("a")]),
            d(vec![(s("b"), i(2)), (i(9), i(0))])
        );
        assert_eq!(ok("remove-key", vec![dict.clone(), s("z")]), dict);
        assert_eq!(
            err("has", vec![ints(&[]), i(0)]),
            "`has` expects a dictionary, got list ()"
        );
        err("has", vec![dict.clone(), NIL]);
        err("keys", vec![ints(&[])]);
        err("values", vec![NIL]);
        err("remove-key", vec![ints(&[]), i(0)]);
        err("remove-key", vec![dict, Value::bool(true)]);
    }

    /// `str` of a few strings (joined without `text_of`) answers, counts steps and memory,
    /// and fails exactly as `text_of` does, under every limit.
    #[test]
    fn str_of_short_strings_counts_as_text_of() {
        use crate::runtime::budget::{Limits, Meter};
        let made = Value::str("str-short-made");
        let cases: Vec<Vec<Value>> = vec![
            vec![],
            vec![s("e2"), s("e4")],
            vec![s("e7"), s("e8"), s("q")],
            vec![s("P"), s("@"), made.clone(), s("")],
            vec![s("a"), s("b"), s("c"), s("d"), s("e")],
            vec![made.clone(), made.clone()],
            vec![s("ab"), i(3)],
        ];
        for args in cases {
            for max_length in [0, 3, 4, 14, 28, 100] {
                for max_steps in [0, 3, 4, 100] {
                    for max_memory in [0, 16, 20, 100] {
                        let limits = Limits {
                            max_length,
                            max_steps,
                            max_memory,
                            ..Limits::default()
                        };
                        let mut fast = Meter::new(limits);
                        let got = super::str(&mut args.clone(), &mut fast);
                        let mut slow = Meter::new(limits);
                        let want = super::text_of(&args, "", &mut slow, "`str`: the string")
                            .map(|t| Value::Str(super::Text::from_string(t)));
                        assert_eq!(got, want, "{args:?} {max_length} {max_steps} {max_memory}");
                        assert_eq!((fast.steps, fast.memory), (slow.steps, slow.memory));
                    }
                }
            }
        }
    }

    #[test]
    fn str_joins_text_forms() {
        assert_eq!(ok("str", vec![]), s(""));
        assert_eq!(ok("str", vec![s("a")]), s("a"));
        let joined = ok(
            "str",
            vec![
                s("score: "),
                i(3),
                s(" "),
                f(2.0),
                NIL,
                Value::bool(true),
                l(vec![s("x"), i(1)]),
            ],
        );
        assert_eq!(joined, s("score: 3 2.0niltrue(\"x\" 1)"));
        assert_eq!(
            joined,
            Value::sym(Symbol::intern("score: 3 2.0niltrue(\"x\" 1)"))
        );
        // Strings only: names, strings made at run time, empty ones.
        let made = Value::str("str-test-made-");
        assert_eq!(
            ok("str", vec![s("e2"), made.clone(), s(""), s("e4")]),
            s("e2str-test-made-e4")
        );
        assert_eq!(ok("str", vec![s(""), s("")]), s(""));
        // Strings only, past the length limit: refused as any other text is.
        let max = crate::runtime::budget::Limits::default().max_length;
        let long = Value::str(&"x".repeat(max / 2 + 1));
        assert_eq!(
            err("str", vec![long.clone(), long.clone()]),
            err("str", vec![long.clone(), i(1), long])
        );
    }
}
