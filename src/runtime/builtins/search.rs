//! Looking for a value in a collection: `contains` (an element, a key or a substring),
//! `index-of`, and `remove` (the list without the first equal element).

use super::args::{key_arg, list_ref, take_list, type_error};
use crate::runtime::budget::{Meter, is_collection, scalar_eq};
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::{List, Value};

/// `contains`: an element of a list, a key of a dictionary, a substring of a string.
pub(super) fn contains(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let found = match &args[0] {
        Value::List(l) => position(l, &args[1], m)?.is_some(),
        Value::Dict(d) => {
            let key = key_arg(&args[1], "contains")?;
            m.key(&key, d.len())?;
            d.contains_key(&key)
        }
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

/// Where `needle` first is in `l`, counting the comparisons (and the bytes compared, for
/// a long string).
fn position(l: &List, needle: &Value, m: &mut Meter) -> Result<Option<usize>, BuiltinError> {
    // One step per element up front; comparing nested collections counts more.
    m.work(l.len())?;
    if is_collection(needle) {
        return m.find_collection(l, needle);
    }
    if let Value::Str(t) = needle
        && t.is_long()
    {
        // Each string of the same length is compared, its bytes counted.
        return m.find_long_text(l, t);
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

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use crate::runtime::value::Value;

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
}
