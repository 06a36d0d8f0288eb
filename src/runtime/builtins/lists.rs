//! List builtins: making lists (`list`, `range`), reading them (`first`, `last`, `rest`,
//! `nth`, `length`) and new lists from them (`append`, `prepend`, `concat`, `reverse`,
//! `sort`, `take`, `drop`).

use super::args::{int_arg, list_ref, take_list, type_error};
use crate::runtime::budget::{ELEMENT_BYTES, Meter, is_collection};
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::{List, Value};

pub(super) fn out_of_range(name: &str, index: i64, len: usize) -> BuiltinError {
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
    let depth = charge_list(args, m)?;
    // Moved out in one pass of known length: no capacity check per element.
    let items = args.iter_mut().map(std::mem::take).collect();
    Ok(Value::list(List::with_depth(items, depth)))
}

/// `(list ...)` of `items` given as they are (the machine code's way, without the
/// operand stack): what the builtin charges, then the list; on an error the items go.
pub fn list_of(items: Vec<Value>, m: &mut Meter) -> Result<Value, BuiltinError> {
    let depth = charge_list(&items, m)?;
    Ok(Value::list(List::with_depth(items, depth)))
}

/// What `(list ...)` of `items` charges (their nesting checked, their room counted):
/// the depth the list will have.
fn charge_list(items: &[Value], m: &mut Meter) -> Result<u32, BuiltinError> {
    let mut deepest = 0;
    for v in items {
        if is_collection(v) {
            deepest = deepest.max(m.nest_depth(v)?);
        }
    }
    m.alloc(ELEMENT_BYTES * items.len() as u64)?;
    Ok(deepest + 1)
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
    // Joining copies the short lists and links the chunks of the long ones: one step per
    // 64 elements added (a step's worth of copying).
    m.work((total - first) / 64)?;
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

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use crate::runtime::value::Value;

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
}
