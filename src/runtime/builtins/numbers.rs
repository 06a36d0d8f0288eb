//! Arithmetic, comparison, `not`, `abs`, `sum`, `min` and `max`.
//!
//! Integers never wrap: an overflow is an error. When any operand of `+ - * /` (or any
//! element given to `sum`) is a float, the whole computation is done in floats.

use std::cmp::Ordering;

use super::args::{describe, list_ref, type_error};
use crate::runtime::budget::{Meter, equal_in_step};
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::Value;

fn overflow(name: &str) -> BuiltinError {
    BuiltinError::new(format!("integer overflow in `{name}`"))
        .with_hint("integers are 64-bit; use a float (such as 1.0) for larger values")
}

fn division_by_zero(name: &str) -> BuiltinError {
    BuiltinError::new(format!("division by zero in `{name}`"))
}

/// Check that every value is a number; whether any is a float.
fn any_float(args: &[Value], name: &str) -> Result<bool, BuiltinError> {
    let mut float = false;
    for v in args {
        match v {
            Value::Int(_) => {}
            Value::Float(_) => float = true,
            other => return Err(not_a_number(name, other)),
        }
    }
    Ok(float)
}

fn not_a_number(name: &str, v: &Value) -> BuiltinError {
    let e = type_error(name, "numbers", v);
    match (name, v) {
        ("+", Value::Str(_)) => e.with_hint("to join strings use `str`: (str \"a\" \"b\")"),
        ("+", Value::List(_)) => {
            e.with_hint("to join lists use `concat`, to add an element `append`")
        }
        _ => e,
    }
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        _ => unreachable!("checked by any_float"),
    }
}

fn float(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(x) => x.get(),
        _ => unreachable!("checked by any_float"),
    }
}

/// Fold `args` left to right, in integers (checked) or, if any is a float, in floats.
#[inline]
fn fold(
    args: &[Value],
    name: &str,
    int_op: fn(i64, i64) -> Option<i64>,
    float_op: fn(f64, f64) -> f64,
) -> Result<Value, BuiltinError> {
    if any_float(args, name)? {
        let acc = args[1..]
            .iter()
            .fold(float(&args[0]), |a, v| float_op(a, float(v)));
        Ok(Value::float(acc))
    } else {
        let mut acc = int(&args[0]);
        for v in &args[1..] {
            acc = int_op(acc, int(v)).ok_or_else(|| overflow(name))?;
        }
        Ok(Value::Int(acc))
    }
}

pub(super) fn add(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    if let [Value::Int(a), Value::Int(b)] = args {
        return a
            .checked_add(*b)
            .map(Value::Int)
            .ok_or_else(|| overflow("+"));
    }
    fold(args, "+", i64::checked_add, |a, b| a + b)
}

pub(super) fn sub(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    match args {
        [Value::Int(a), Value::Int(b)] => a
            .checked_sub(*b)
            .map(Value::Int)
            .ok_or_else(|| overflow("-")),
        [Value::Int(a)] => a.checked_neg().map(Value::Int).ok_or_else(|| overflow("-")),
        [Value::Float(x)] => Ok(Value::float(-x.get())),
        [other] => Err(not_a_number("-", other)),
        _ => fold(args, "-", i64::checked_sub, |a, b| a - b),
    }
}

pub(super) fn mul(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    if let [Value::Int(a), Value::Int(b)] = args {
        return a
            .checked_mul(*b)
            .map(Value::Int)
            .ok_or_else(|| overflow("*"));
    }
    fold(args, "*", i64::checked_mul, |a, b| a * b)
}

/// Integer division rounding toward negative infinity; `None` on overflow or zero.
fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        Some(q - 1)
    } else {
        Some(q)
    }
}

pub(super) fn div(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    if any_float(args, "/")? {
        let mut acc = float(&args[0]);
        for v in &args[1..] {
            let d = float(v);
            if d == 0.0 {
                return Err(division_by_zero("/"));
            }
            acc /= d;
        }
        Ok(Value::float(acc))
    } else {
        let mut acc = int(&args[0]);
        for v in &args[1..] {
            let d = int(v);
            if d == 0 {
                return Err(division_by_zero("/"));
            }
            acc = floor_div(acc, d).ok_or_else(|| overflow("/"))?;
        }
        Ok(Value::Int(acc))
    }
}

/// `%`: the remainder of floor division, so it has the sign of the divisor (never
/// negative for a positive divisor) and `a = (/ a b) * b + (% a b)`.
pub(super) fn rem(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    if any_float(args, "%")? {
        let (a, b) = (float(&args[0]), float(&args[1]));
        if b == 0.0 {
            return Err(division_by_zero("%"));
        }
        let r = a % b;
        Ok(Value::float(if r != 0.0 && (r < 0.0) != (b < 0.0) {
            r + b
        } else {
            r
        }))
    } else {
        let (a, b) = (int(&args[0]), int(&args[1]));
        if b == 0 {
            return Err(division_by_zero("%"));
        }
        // wrapping_rem: i64::MIN % -1 is 0, not an overflow.
        let r = a.wrapping_rem(b);
        Ok(Value::Int(if r != 0 && (r < 0) != (b < 0) {
            r + b
        } else {
            r
        }))
    }
}

pub(super) fn eq(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    if let Some(same) = equal_in_step(&args[0], &args[1]) {
        // Within the step of the instruction.
        return Ok(Value::bool(same));
    }
    collections_equal(args, m).map(Value::bool)
}

pub(super) fn ne(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    if let Some(same) = equal_in_step(&args[0], &args[1]) {
        return Ok(Value::bool(!same));
    }
    collections_equal(args, m).map(|same| Value::bool(!same))
}

/// `=` of two arguments the first of which is a collection, or of two long texts of the
/// same length, counting the walk.
#[inline(never)]
fn collections_equal(args: &[Value], m: &mut Meter) -> Result<bool, BuiltinError> {
    m.equal(&args[0], &args[1])
}

/// Exact comparison of an integer with a float (`None` for NaN).
fn int_float_cmp(i: i64, x: f64) -> Option<Ordering> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if x.is_nan() {
        None
    } else if x >= TWO_63 {
        Some(Ordering::Less)
    } else if x < -TWO_63 {
        Some(Ordering::Greater)
    } else {
        let t = x.trunc();
        match i.cmp(&(t as i64)) {
            Ordering::Equal => 0.0.partial_cmp(&(x - t)),
            o => Some(o),
        }
    }
}

/// How `a` compares with `b` for `< > <= >= min max`: numbers with numbers, strings with
/// strings by text (counting the bytes compared: [`Meter::order_texts`]). `None` when a
/// NaN is involved.
fn order(
    name: &str,
    a: &Value,
    b: &Value,
    m: &mut Meter,
) -> Result<Option<Ordering>, BuiltinError> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Float(y)) => int_float_cmp(*x, y.get()),
        (Value::Float(x), Value::Int(y)) => int_float_cmp(*y, x.get()).map(Ordering::reverse),
        (Value::Str(x), Value::Str(y)) => Some(m.order_texts(x, y)?),
        _ => {
            return Err(BuiltinError::new(format!(
                "`{name}` compares two numbers or two strings, got {} and {}",
                describe(a),
                describe(b)
            )));
        }
    })
}

pub(super) fn lt(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    Ok(Value::bool(
        order("<", &args[0], &args[1], m)? == Some(Ordering::Less),
    ))
}

pub(super) fn gt(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    Ok(Value::bool(
        order(">", &args[0], &args[1], m)? == Some(Ordering::Greater),
    ))
}

pub(super) fn le(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let o = order("<=", &args[0], &args[1], m)?;
    Ok(Value::bool(matches!(
        o,
        Some(Ordering::Less | Ordering::Equal)
    )))
}

pub(super) fn ge(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let o = order(">=", &args[0], &args[1], m)?;
    Ok(Value::bool(matches!(
        o,
        Some(Ordering::Greater | Ordering::Equal)
    )))
}

pub(super) fn not(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    Ok(Value::bool(!args[0].truthy()))
}

pub(super) fn abs(args: &mut [Value], _: &mut Meter) -> Result<Value, BuiltinError> {
    match &args[0] {
        Value::Int(i) => i
            .checked_abs()
            .map(Value::Int)
            .ok_or_else(|| overflow("abs")),
        Value::Float(x) => Ok(Value::float(x.abs())),
        other => Err(type_error("abs", "a number", other)),
    }
}

/// `sum`: 0 for an empty list; integers stay integers.
pub(super) fn sum(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let list = list_ref(args, 0, "sum")?;
    m.work(list.len())?;
    let mut floats = false;
    for (k, v) in list.iter().enumerate() {
        match v {
            Value::Int(_) => {}
            Value::Float(_) => floats = true,
            other => {
                return Err(BuiltinError::new(format!(
                    "`sum` expects a list of numbers, got {} at index {k}",
                    describe(other)
                )));
            }
        }
    }
    if floats {
        Ok(Value::float(list.iter().map(float).sum()))
    } else {
        let mut acc: i64 = 0;
        for v in list {
            acc = acc.checked_add(int(v)).ok_or_else(|| overflow("sum"))?;
        }
        Ok(Value::Int(acc))
    }
}

/// `min` / `max` of one list, or of several values; the first of equal values wins.
fn extreme(
    args: &mut [Value],
    m: &mut Meter,
    name: &str,
    want: Ordering,
) -> Result<Value, BuiltinError> {
    let items: &[Value] = args;
    let pick =
        |values: &mut dyn Iterator<Item = &Value>, m: &mut Meter| -> Result<Value, BuiltinError> {
            let Some(mut best) = values.next() else {
                return Err(BuiltinError::new(format!("`{name}` of an empty list"))
                    .with_hint("check `(length ...)` first, or give a default"));
            };
            for v in values {
                if order(name, v, best, m)? == Some(want) {
                    best = v;
                }
            }
            Ok(best.clone())
        };
    match items {
        [Value::List(list)] => {
            m.work(list.len())?;
            pick(&mut list.iter(), m)
        }
        [v @ (Value::Int(_) | Value::Float(_) | Value::Str(_))] => Ok(v.clone()),
        [other] => Err(type_error(name, "a list or numbers", other)),
        _ => pick(&mut items.iter(), m),
    }
}

pub(super) fn min(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    extreme(args, m, "min", Ordering::Less)
}

pub(super) fn max(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    extreme(args, m, "max", Ordering::Greater)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use crate::runtime::value::Value;

    #[test]
    fn arithmetic_on_integers_and_floats() {
        assert_eq!(ok("+", vec![i(1), i(2), i(3)]), i(6));
        assert_eq!(ok("+", vec![i(4)]), i(4));
        assert!(matches!(ok("+", vec![i(1), f(0.5)]), Value::Float(x) if x.get() == 1.5));
        assert!(matches!(ok("+", vec![i(1), f(1.0)]), Value::Float(_)));
        assert_eq!(ok("-", vec![i(10), i(3), i(2)]), i(5));
        assert_eq!(ok("-", vec![i(3)]), i(-3));
        assert_eq!(ok("-", vec![f(2.5)]), f(-2.5));
        assert_eq!(ok("-", vec![f(1.5), i(1)]), f(0.5));
        assert_eq!(ok("*", vec![i(2), i(3), i(4)]), i(24));
        assert_eq!(ok("*", vec![f(0.5), i(3)]), f(1.5));
        assert_eq!(ok("*", vec![i(-7)]), i(-7));
    }

    #[test]
    fn a_float_anywhere_computes_everything_in_floats() {
        // No integer overflow when a float is present.
        assert_eq!(
            ok("+", vec![i(i64::MAX), i(1), f(0.0)]),
            f(i64::MAX as f64 + 1.0)
        );
        // No flooring before the float appears.
        assert_eq!(ok("/", vec![i(7), i(2), f(1.0)]), f(3.5));
    }

    #[test]
    fn integer_division_floors() {
        assert_eq!(ok("/", vec![i(7), i(2)]), i(3));
        assert_eq!(ok("/", vec![i(-7), i(2)]), i(-4));
        assert_eq!(ok("/", vec![i(7), i(-2)]), i(-4));
        assert_eq!(ok("/", vec![i(-7), i(-2)]), i(3));
        assert_eq!(ok("/", vec![i(-6), i(2)]), i(-3));
        assert_eq!(ok("/", vec![i(100), i(5), i(3)]), i(6));
        assert_eq!(ok("/", vec![i(7), f(2.0)]), f(3.5));
        assert_eq!(ok("/", vec![f(-7.0), i(2)]), f(-3.5));
    }

    #[test]
    fn remainder_has_the_sign_of_the_divisor() {
        assert_eq!(ok("%", vec![i(7), i(3)]), i(1));
        assert_eq!(ok("%", vec![i(-7), i(3)]), i(2));
        assert_eq!(ok("%", vec![i(-6), i(3)]), i(0));
        assert_eq!(ok("%", vec![i(7), i(-3)]), i(-2));
        assert_eq!(ok("%", vec![i(-7), i(-3)]), i(-1));
        assert_eq!(ok("%", vec![i(i64::MIN), i(-1)]), i(0));
        assert_eq!(ok("%", vec![f(-7.5), i(2)]), f(0.5));
        assert_eq!(ok("%", vec![f(7.5), i(2)]), f(1.5));
        // a = (/ a b) * b + (% a b)
        for a in -9..=9 {
            for b in [-4, -3, -1, 1, 2, 5] {
                let q = match ok("/", vec![i(a), i(b)]) {
                    Value::Int(q) => q,
                    v => panic!("{v}"),
                };
                assert_eq!(ok("%", vec![i(a), i(b)]), i(a - q * b), "{a} {b}");
            }
        }
    }

    #[test]
    fn division_by_zero_is_an_error() {
        assert_eq!(err("/", vec![i(1), i(0)]), "division by zero in `/`");
        assert_eq!(err("/", vec![i(1), i(2), i(0)]), "division by zero in `/`");
        assert_eq!(err("/", vec![f(1.0), f(0.0)]), "division by zero in `/`");
        assert_eq!(err("%", vec![i(1), i(0)]), "division by zero in `%`");
        assert_eq!(err("%", vec![f(1.0), i(0)]), "division by zero in `%`");
    }

    #[test]
    fn integer_overflow_is_an_error() {
        let max = i(i64::MAX);
        let min = i(i64::MIN);
        assert_eq!(err("+", vec![max.clone(), i(1)]), "integer overflow in `+`");
        assert_eq!(
            err("+", vec![i(1), i(1), max.clone()]),
            "integer overflow in `+`"
        );
        assert_eq!(err("-", vec![min.clone(), i(1)]), "integer overflow in `-`");
        assert_eq!(
            err("-", vec![i(-2), i(1), max.clone()]),
            "integer overflow in `-`"
        );
        assert_eq!(err("-", vec![min.clone()]), "integer overflow in `-`");
        assert_eq!(err("*", vec![max.clone(), i(2)]), "integer overflow in `*`");
        assert_eq!(
            err("*", vec![i(2), i(2), max.clone()]),
            "integer overflow in `*`"
        );
        assert_eq!(
            err("/", vec![min.clone(), i(-1)]),
            "integer overflow in `/`"
        );
        assert_eq!(err("abs", vec![min]), "integer overflow in `abs`");
        assert_eq!(
            err("sum", vec![l(vec![max, i(1)])]),
            "integer overflow in `sum`"
        );
        let e = run("+", vec![i(i64::MAX), i(1)]).unwrap_err();
        assert!(e.hint.is_some());
    }

    #[test]
    fn arithmetic_on_non_numbers_is_an_error() {
        let e = run("+", vec![s("a"), s("b")]).unwrap_err();
        assert_eq!(e.message, "`+` expects numbers, got string \"a\"");
        assert!(e.hint.unwrap().contains("`str`"));
        let e = run("+", vec![i(1), ints(&[2])]).unwrap_err();
        assert!(e.hint.unwrap().contains("`concat`"));
        assert_eq!(err("-", vec![Value::Nil]), "`-` expects numbers, got nil");
        assert_eq!(
            err("-", vec![i(1), Value::bool(true)]),
            "`-` expects numbers, got boolean true"
        );
        assert_eq!(
            err("*", vec![i(1), s("x")]),
            "`*` expects numbers, got string \"x\""
        );
        assert_eq!(
            err("/", vec![s("x"), i(1)]),
            "`/` expects numbers, got string \"x\""
        );
        assert_eq!(
            err("%", vec![i(1), Value::Nil]),
            "`%` expects numbers, got nil"
        );
        assert_eq!(
            err("abs", vec![s("x")]),
            "`abs` expects a number, got string \"x\""
        );
    }

    #[test]
    fn equality_is_structural() {
        assert_eq!(ok("=", vec![i(1), f(1.0)]), Value::bool(true));
        assert_eq!(
            ok("==", vec![ints(&[1, 2]), l(vec![f(1.0), i(2)])]),
            Value::bool(true)
        );
        assert_eq!(ok("=", vec![i(1), s("1")]), Value::bool(false));
        assert_eq!(ok("=", vec![Value::Nil, Value::Nil]), Value::bool(true));
        assert_eq!(ok("!=", vec![i(1), i(2)]), Value::bool(true));
        assert_eq!(ok("!=", vec![s("a"), s("a")]), Value::bool(false));
    }

    #[test]
    fn ordering_of_numbers_and_strings() {
        let t = Value::bool(true);
        let no = Value::bool(false);
        assert_eq!(ok("<", vec![i(1), i(2)]), t);
        assert_eq!(ok("<", vec![i(2), i(2)]), no);
        assert_eq!(ok(">", vec![f(2.5), i(2)]), t);
        assert_eq!(ok("<=", vec![i(2), f(2.0)]), t);
        assert_eq!(ok(">=", vec![i(1), f(1.5)]), no);
        assert_eq!(ok("<", vec![s("apple"), s("banana")]), t);
        assert_eq!(ok(">=", vec![s("b"), s("b")]), t);
        // Exact even where f64 cannot hold the integer.
        assert_eq!(ok(">", vec![i(i64::MAX), f(9.223372036854775e18)]), t);
        assert_eq!(ok("<", vec![i(i64::MAX), f(2f64.powi(63))]), t);
        assert_eq!(ok("<", vec![i(-3), f(-2.5)]), t);
        assert_eq!(ok("<", vec![f(-3.5), i(-3)]), t);
        let nan = f(f64::NAN);
        for op in ["<", ">", "<=", ">="] {
            assert_eq!(ok(op, vec![nan.clone(), i(1)]), no, "{op}");
        }
    }

    #[test]
    fn ordering_other_kinds_is_an_error() {
        assert_eq!(
            err("<", vec![i(1), s("a")]),
            "`<` compares two numbers or two strings, got integer 1 and string \"a\""
        );
        assert_eq!(
            err(">=", vec![ints(&[1]), Value::Nil]),
            "`>=` compares two numbers or two strings, got list (1) and nil"
        );
        err(">", vec![Value::bool(true), Value::bool(false)]);
        err("<=", vec![s("a"), i(1)]);
    }

    #[test]
    fn not_and_abs() {
        assert_eq!(ok("not", vec![Value::Nil]), Value::bool(true));
        assert_eq!(ok("not", vec![Value::bool(false)]), Value::bool(true));
        assert_eq!(ok("not", vec![i(0)]), Value::bool(false));
        assert_eq!(ok("abs", vec![i(-4)]), i(4));
        assert_eq!(ok("abs", vec![f(-0.5)]), f(0.5));
    }

    #[test]
    fn sum_keeps_integers_integers() {
        assert_eq!(ok("sum", vec![ints(&[1, 2, 3])]), i(6));
        assert!(matches!(ok("sum", vec![ints(&[])]), Value::Int(0)));
        assert!(
            matches!(ok("sum", vec![l(vec![i(1), f(0.5)])]), Value::Float(x) if x.get() == 1.5)
        );
        assert_eq!(
            err("sum", vec![l(vec![i(1), s("a")])]),
            "`sum` expects a list of numbers, got string \"a\" at index 1"
        );
        assert_eq!(
            err("sum", vec![i(1)]),
            "`sum` expects a list, got integer 1"
        );
    }

    #[test]
    fn min_and_max() {
        assert_eq!(ok("min", vec![ints(&[3, 1, 2])]), i(1));
        assert_eq!(ok("max", vec![ints(&[3, 1, 2])]), i(3));
        assert_eq!(ok("min", vec![i(3), f(1.5), i(2)]), f(1.5));
        assert_eq!(ok("max", vec![i(3), f(1.5), i(2)]), i(3));
        assert_eq!(ok("max", vec![l(vec![s("b"), s("c"), s("a")])]), s("c"));
        assert_eq!(ok("min", vec![i(7)]), i(7));
        // The first of equal values wins.
        assert!(matches!(ok("min", vec![i(1), f(1.0)]), Value::Int(1)));
        assert!(matches!(ok("max", vec![f(1.0), i(1)]), Value::Float(_)));
        assert_eq!(err("min", vec![ints(&[])]), "`min` of an empty list");
        assert_eq!(err("max", vec![ints(&[])]), "`max` of an empty list");
        assert_eq!(
            err("max", vec![Value::Nil]),
            "`max` expects a list or numbers, got nil"
        );
        assert_eq!(
            err("min", vec![i(1), s("a")]),
            "`min` compares two numbers or two strings, got string \"a\" and integer 1"
        );
    }
}
