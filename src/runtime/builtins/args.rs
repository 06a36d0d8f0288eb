//! Reading a builtin's arguments: lists and dictionaries taken or borrowed, integers and
//! keys, and the type errors that name what was expected and what came (values shortened).

use std::fmt::{self, Write as _};
use std::rc::Rc;

use crate::compile::builtins::lookup;
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::{Dict, Key, List, Value};

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
pub(super) fn take_list(
    args: &mut [Value],
    i: usize,
    name: &str,
) -> Result<Rc<List>, BuiltinError> {
    match std::mem::take(&mut args[i]) {
        Value::List(l) => Ok(l),
        other => Err(type_error(name, "a list", &other)),
    }
}

/// Borrow argument `i` as a list.
pub(super) fn list_ref<'a>(
    args: &'a [Value],
    i: usize,
    name: &str,
) -> Result<&'a List, BuiltinError> {
    match &args[i] {
        Value::List(l) => Ok(l),
        other => Err(type_error(name, "a list", other)),
    }
}

/// Move argument `i` out as a dictionary.
pub(super) fn take_dict(
    args: &mut [Value],
    i: usize,
    name: &str,
) -> Result<Rc<Dict>, BuiltinError> {
    match std::mem::take(&mut args[i]) {
        Value::Dict(d) => Ok(d),
        other => Err(type_error(name, "a dictionary", &other)),
    }
}

/// Borrow argument `i` as a dictionary.
pub(super) fn dict_ref<'a>(
    args: &'a [Value],
    i: usize,
    name: &str,
) -> Result<&'a Dict, BuiltinError> {
    match &args[i] {
        Value::Dict(d) => Ok(d),
        other => Err(type_error(name, "a dictionary", other)),
    }
}

/// An integer argument (`what` says which, e.g. "an integer index").
pub(super) fn int_arg(v: &Value, name: &str, what: &str) -> Result<i64, BuiltinError> {
    match v {
        Value::Int(i) => Ok(*i),
        other => Err(type_error(name, what, other)),
    }
}

/// A dictionary key: an integer, a string, or a float with an integral value.
#[inline]
pub(super) fn key_arg(v: &Value, name: &str) -> Result<Key, BuiltinError> {
    match v {
        Value::Int(i) => Ok(Key::Int(*i)),
        _ => key_arg_other(v, name),
    }
}

/// [`key_arg`] of anything but an integer.
#[inline(never)]
pub(super) fn key_arg_other(v: &Value, name: &str) -> Result<Key, BuiltinError> {
    v.as_key().ok_or_else(|| {
        BuiltinError::new(format!(
            "`{name}`: dictionary keys are integers or strings, got {}",
            describe(v)
        ))
    })
}
