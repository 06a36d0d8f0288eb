//! Builtin functions that need nothing but their arguments ("pure" builtins): arithmetic,
//! comparison, lists, dictionaries and strings.
//!
//! Owns their semantics and their error messages. The builtins that touch the game or the
//! session (`self`, `sender`, `param`, `random`, `shuffle`, `notify`, `print`) are run by
//! the VM, not here. The compiler resolves a call once with [`pure_fn`] and the VM calls
//! the function pointer on the argument slice of its stack; values are moved out of that
//! slice, so a collection the caller held uniquely is updated in place (`Rc::make_mut`).

mod args;
mod collections;
mod dicts;
mod lists;
mod search;
mod text;
pub(crate) use collections::text_of;
pub use collections::{contains_letter, read_fast};
pub use lists::list_of;
pub use strings::ascii_name;
mod numbers;
mod strings;

use crate::compile::builtins::BUILTINS;
pub(crate) use crate::compile::builtins::same_text;
use crate::runtime::budget::Meter;
pub use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::Value;

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

    pub const T: Value = Value::bool(true);
    pub const F: Value = Value::bool(false);
    pub const NIL: Value = Value::Nil;

    /// A dictionary of `pairs`.
    pub fn d(pairs: Vec<(Value, Value)>) -> Value {
        let mut m = crate::runtime::value::Dict::new();
        for (k, v) in pairs {
            m.insert(k.as_key().unwrap(), v);
        }
        Value::dict(m)
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
                "directions",
                "board-data",
                "legal-moves",
                "has-legal-move",
                "is-legal"
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
