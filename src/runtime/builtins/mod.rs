//! Builtin functions that need nothing but their arguments ("pure" builtins): arithmetic,
//! comparison, lists, dictionaries and strings.
//!
//! Owns their semantics and their error messages. The builtins that touch the game or the
//! session (`self`, `sender`, `param`, `random`, `shuffle`, `notify`, `print`) are run by
//! the VM, not here. The compiler resolves a call once with [`pure_fn`] and the VM calls
//! the function pointer on the argument slice of its stack; values are moved out of that
//! slice, so a collection the caller held uniquely is updated in place (`Rc::make_mut`).

mod collections;
pub(crate) use collections::text_of;
pub use collections::{contains_letter, read_fast};
pub use strings::ascii_name;
mod numbers;
mod strings;

use std::fmt::{self, Write as _};
use std::rc::Rc;

pub(crate) use crate::compile::builtins::same_text;
use crate::compile::builtins::{BUILTINS, lookup};
use crate::runtime::budget::Meter;
use crate::runtime::value::{Dict, Key, List, Value};

/// Why a builtin refused its arguments (the VM turns it into a diagnostic with the call's
/// span).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltinError {
    /// One line saying what went wrong.
    pub message: String,
    /// What to do about it, when something helps.
    pub hint: Option<String>,
}

impl BuiltinError {
    /// An error without a hint.
    pub fn new(message: impl Into<String>) -> BuiltinError {
        BuiltinError {
            message: message.into(),
            hint: None,
        }
    }

    /// The same error with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> BuiltinError {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for BuiltinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A pure builtin: takes its arguments (it may move them out of the slice) and the meter
/// of the transaction (it counts the work it does and the values it makes), and returns
/// the result.
pub type PureFn = fn(&mut [Value], &mut Meter) -> Result<Value, BuiltinError>;

/// The function for the builtin at `index` of [`BUILTINS`], or `None` when that builtin is
/// not pure (the VM runs it) or there is no such index.
///
/// The function expects an argument count its arity accepts (the checker guarantees it for
/// direct calls); [`call_pure`] checks it. The table is worked out at compile time: a call
/// costs one array read.
#[inline]
pub fn pure_fn(index: usize) -> Option<PureFn> {
    PURE.get(index).copied().flatten()
}

/// The pure function of every builtin, by index of [`BUILTINS`].
static PURE: [Option<PureFn>; BUILTINS.len()] = {
    let mut table = [None; BUILTINS.len()];
    let mut i = 0;
    while i < BUILTINS.len() {
        table[i] = resolve(BUILTINS[i].name);
        i += 1;
    }
    table
};

/// The function for the pure builtin called `name`.
const fn resolve(name: &str) -> Option<PureFn> {
    use collections as c;
    use numbers as n;
    use strings as s;
    const NAMED: &[(&str, PureFn)] = &[
        ("+", n::add),
        ("-", n::sub),
        ("*", n::mul),
        ("/", n::div),
        ("%", n::rem),
        ("=", n::eq),
        ("==", n::eq),
        ("!=", n::ne),
        ("<", n::lt),
        (">", n::gt),
        ("<=", n::le),
        (">=", n::ge),
        ("not", n::not),
        ("abs", n::abs),
        ("sum", n::sum),
        ("min", n::min),
        ("max", n::max),
        ("list", c::list),
        ("first", c::first),
        ("rest", c::rest),
        ("last", c::last),
        ("nth", c::nth),
        ("length", c::length),
        ("append", c::append),
        ("prepend", c::prepend),
        ("concat", c::concat),
        ("contains", c::contains),
        ("index-of", c::index_of),
        ("remove", c::remove),
        ("reverse", c::reverse),
        ("range", c::range),
        ("sort", c::sort),
        ("take", c::take),
        ("drop", c::drop),
        ("dict", c::dict),
        ("get", c::get),
        ("put", c::put),
        ("has", c::has),
        ("keys", c::keys),
        ("values", c::values),
        ("remove-key", c::remove_key),
        ("str", c::str),
        ("chars", s::chars),
        ("split", s::split),
        ("join", s::join),
        ("upper", s::upper),
        ("lower", s::lower),
        ("parse-int", s::parse_int),
        ("fail", s::fail),
    ];
    let mut i = 0;
    while i < NAMED.len() {
        if same_text(NAMED[i].0, name) {
            return Some(NAMED[i].1);
        }
        i += 1;
    }
    None
}

/// Run the pure builtin at index `index` of [`BUILTINS`] on `args` (values may be moved out
/// of the slice). `None` when the builtin is not pure (`self`, `sender`, `param`,
/// `random`, `shuffle`, `notify`, `print`: the VM runs those).
pub fn call_pure(
    index: usize,
    args: &mut [Value],
    meter: &mut Meter,
) -> Option<Result<Value, BuiltinError>> {
    let f = pure_fn(index)?;
    let b = &BUILTINS[index];
    if !b.arity.accepts(args.len()) {
        return Some(Err(BuiltinError::new(format!(
            "`{}` takes {}, but {} given",
            b.name,
            b.arity.describe(),
            args.len()
        ))
        .with_hint(format!("usage: {}", b.usage))));
    }
    Some(f(args, meter))
}

// ---------------------------------------------------------------------------------------
// Helpers shared by the builtins.

/// Longest value text quoted in an error message.
const SHOWN: usize = 48;

/// A value for an error message: its type and, for all but nil, its (shortened) display
/// form, e.g. `integer 3`, `string "a"`, `list (1 2 …`.
pub(crate) fn describe(v: &Value) -> String {
    struct Bounded(String);
    impl fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for ch in s.chars() {
                if self.0.chars().count() >= SHOWN {
                    self.0.push('…');
                    return Err(fmt::Error);
                }
                self.0.push(ch);
            }
            Ok(())
        }
    }
    if let Value::Nil = v {
        return "nil".to_string();
    }
    let mut out = Bounded(String::new());
    let _ = write!(out, "{v}");
    format!("{} {}", v.type_name(), out.0)
}

/// "`name` expects <expected>, got <value>", with the builtin's usage as the hint.
pub(crate) fn type_error(name: &str, expected: &str, got: &Value) -> BuiltinError {
    let e = BuiltinError::new(format!(
        "`{name}` expects {expected}, got {}",
        describe(got)
    ));
    match lookup(name) {
        Some(b) => e.with_hint(format!("usage: {}", b.usage)),
        None => e,
    }
}

/// Move argument `i` out as a list.
fn take_list(args: &mut [Value], i: usize, name: &str) -> Result<Rc<List>, BuiltinError> {
    match std::mem::take(&mut args[i]) {
        Value::List(l) => Ok(l),
        other => Err(type_error(name, "a list", &other)),
    }
}

/// Borrow argument `i` as a list.
fn list_ref<'a>(args: &'a [Value], i: usize, name: &str) -> Result<&'a List, BuiltinError> {
    match &args[i] {
        Value::List(l) => Ok(l),
        other => Err(type_error(name, "a list", other)),
    }
}

/// Move argument `i` out as a dictionary.
fn take_dict(args: &mut [Value], i: usize, name: &str) -> Result<Rc<Dict>, BuiltinError> {
    match std::mem::take(&mut args[i]) {
        Value::Dict(d) => Ok(d),
        other => Err(type_error(name, "a dictionary", &other)),
    }
}

/// Borrow argument `i` as a dictionary.
fn dict_ref<'a>(args: &'a [Value], i: usize, name: &str) -> Result<&'a Dict, BuiltinError> {
    match &args[i] {
        Value::Dict(d) => Ok(d),
        other => Err(type_error(name, "a dictionary", other)),
    }
}

/// An integer argument (`what` says which, e.g. "an integer index").
fn int_arg(v: &Value, name: &str, what: &str) -> Result<i64, BuiltinError> {
    match v {
        Value::Int(i) => Ok(*i),
        other => Err(type_error(name, what, other)),
    }
}

/// A dictionary key: an integer, a string, or a float with an integral value.
#[inline]
fn key_arg(v: &Value, name: &str) -> Result<Key, BuiltinError> {
    match v {
        Value::Int(i) => Ok(Key::Int(*i)),
        _ => key_arg_other(v, name),
    }
}

/// [`key_arg`] of anything but an integer.
#[inline(never)]
fn key_arg_other(v: &Value, name: &str) -> Result<Key, BuiltinError> {
    v.as_key().ok_or_else(|| {
        BuiltinError::new(format!(
            "`{name}`: dictionary keys are integers or strings, got {}",
            describe(v)
        ))
    })
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// Call the builtin called `name` on `args`.
    pub fn run(name: &str, mut args: Vec<Value>) -> Result<Value, BuiltinError> {
        let index = BUILTINS.iter().position(|b| b.name == name).unwrap();
        let mut meter = Meter::new(crate::runtime::budget::Limits::default());
        call_pure(index, &mut args, &mut meter).expect("pure builtin")
    }

    /// The result of a call that must succeed.
    pub fn ok(name: &str, args: Vec<Value>) -> Value {
        run(name, args).unwrap_or_else(|e| panic!("{name}: {}", e.message))
    }

    /// The message of a call that must fail.
    pub fn err(name: &str, args: Vec<Value>) -> String {
        match run(name, args) {
            Ok(v) => panic!("{name} gave {v} instead of failing"),
            Err(e) => e.message,
        }
    }

    pub fn i(n: i64) -> Value {
        Value::Int(n)
    }
    pub fn f(x: f64) -> Value {
        Value::float(x)
    }
    pub fn s(t: &str) -> Value {
        Value::str(t)
    }
    pub fn l(items: Vec<Value>) -> Value {
        Value::list(items.into_iter().collect())
    }
    pub fn ints(items: &[i64]) -> Value {
        Value::list(items.iter().map(|&n| Value::Int(n)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;

    #[test]
    fn exactly_the_game_builtins_are_impure() {
        let impure: Vec<&str> = (0..BUILTINS.len())
            .filter(|&k| pure_fn(k).is_none())
            .map(|k| BUILTINS[k].name)
            .collect();
        assert_eq!(
            impure,
            [
                "self",
                "sender",
                "param",
                "random",
                "shuffle",
                "notify",
                "print",
                "neighbor",
                "walk",
                "ray",
                "directions"
            ]
        );
        assert!(pure_fn(BUILTINS.len()).is_none());
        let print = BUILTINS.iter().position(|b| b.name == "print").unwrap();
        assert!(call_pure(print, &mut [], &mut Meter::new(Default::default())).is_none());
    }

    #[test]
    fn call_pure_checks_the_argument_count() {
        let e = run("first", vec![]).unwrap_err();
        assert_eq!(e.message, "`first` takes 1 argument, but 0 given");
        assert_eq!(e.hint.as_deref(), Some("usage: (first <list>)"));
    }

    #[test]
    fn type_errors_name_the_expected_and_given_types() {
        let e = run("first", vec![i(3)]).unwrap_err();
        assert_eq!(e.message, "`first` expects a list, got integer 3");
        assert_eq!(e.hint.as_deref(), Some("usage: (first <list>)"));
        assert_eq!(
            err("first", vec![Value::Nil]),
            "`first` expects a list, got nil"
        );
        assert_eq!(
            err("first", vec![s("ab")]),
            "`first` expects a list, got string \"ab\""
        );
    }

    #[test]
    fn long_values_are_shortened_in_messages() {
        let big = Value::list((0..1000).map(Value::Int).collect());
        let m = err("keys", vec![big]);
        assert!(m.starts_with("`keys` expects a dictionary, got list (0 1 2"));
        assert!(m.ends_with('…') && m.len() < 100, "{m}");
    }
}
