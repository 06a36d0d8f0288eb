//! Dictionary builtins (`dict`, `has`, `keys`, `values`, `remove-key`) and the reads and
//! writes that take a dictionary or a list (`get`, `put`, and the machine's fused reads).

use super::args::{dict_ref, int_arg, key_arg, take_dict, type_error};
use super::lists::out_of_range;
use crate::compile::bytecode::Read;
use crate::runtime::budget::{ELEMENT_BYTES, ENTRY_BYTES, Meter};
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::{Dict, Key, List, Value};

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
        let key = key_arg(&pair[0], "dict")?;
        m.key(&key, d.len())?;
        d.insert(key, std::mem::take(&mut pair[1]));
    }
    Ok(Value::dict(d))
}

/// `get`: the value at a key of a dictionary, or at an index of a list; the default (or
/// nil) when there is none.
pub(super) fn get(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let found = match &args[0] {
        // A name as the key (a square, a side): looked for without making a key of it.
        Value::Dict(d) if let Value::Str(t) = &args[1] => {
            m.text_key(t, d.len())?;
            d.get_text(t).cloned()
        }
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
/// a float key, `nth` out of range, a string key made at
/// run time of [`TEXT_STEP`](crate::runtime::budget::TEXT_STEP) bytes or more, whose
/// search is counted): the builtin decides, and reports any error. The machine's fused
/// reads use it on values borrowed in their slots.
#[inline(always)]
pub fn read_fast(read: Read, c: &Value, k: &Value, default: Option<i64>) -> Option<Value> {
    let or_default = || default.map_or(Value::Nil, Value::Int);
    match (read, c, k) {
        (Read::Get, Value::Dict(d), Value::Int(i)) => {
            Some(d.get(&Key::Int(*i)).cloned().unwrap_or_else(or_default))
        }
        (Read::Get, Value::Dict(d), Value::Str(s)) if !s.is_long_made() => Some(
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
            m.key(&key, d.len())?;
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

pub(super) fn has(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let d = dict_ref(args, 0, "has")?;
    let key = key_arg(&args[1], "has")?;
    m.key(&key, d.len())?;
    Ok(Value::bool(d.contains_key(&key)))
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
    // A chunk at a time (a large dictionary is made of them), into a list made once.
    let mut items = Vec::with_capacity(d.len());
    for chunk in d.chunks() {
        items.extend(chunk.iter().map(|(_, v)| v.clone_inline()));
    }
    Ok(Value::list(List::from_vec(items)))
}

pub(super) fn remove_key(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let mut d = take_dict(args, 0, "remove-key")?;
    let key = key_arg(&args[1], "remove-key")?;
    m.key(&key, d.len())?;
    let place = d.search(&key);
    Dict::remove_in(&mut d, place, &key);
    Ok(Value::Dict(d))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use crate::runtime::value::Value;
    use crate::symbol::Symbol;

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
}
