//! String builtins: characters, splitting and joining, case, parsing integers, and `fail`.
//!
//! A result string is the interned symbol of its text when that text is already a name or
//! literal (so comparing it with one is a word compare), and otherwise a reference-counted
//! string freed when no value holds it any more ([`Text`]).

use super::args::{describe, type_error};
use crate::runtime::budget::Meter;
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::builtins::collections::text_of;
use crate::runtime::value::{List, Text, Value};
use crate::symbol::Symbol;

/// Borrow argument `i` as a string's text.
fn text_arg<'a>(args: &'a [Value], i: usize, name: &str) -> Result<&'a str, BuiltinError> {
    match &args[i] {
        Value::Str(s) => Ok(s.as_str()),
        other => Err(type_error(name, "a string", other)),
    }
}

/// `(chars s)`: the characters of `s`, each a one-character string.
pub(super) fn chars(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let text = text_arg(args, 0, "chars")?;
    m.work(text.len())?;
    m.alloc(16 * text.len() as u64)?;
    let mut buf = [0u8; 4];
    let list: List = text
        .chars()
        .map(|c| Value::Str(Text::new(c.encode_utf8(&mut buf))))
        .collect();
    Ok(Value::list(list))
}

/// `(split s sep)`: the pieces of `s` between occurrences of the non-empty `sep`.
pub(super) fn split(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let text = text_arg(args, 0, "split")?;
    let sep = text_arg(args, 1, "split")?;
    if sep.is_empty() {
        return Err(BuiltinError::new("`split` needs a non-empty separator")
            .with_hint("to take a string apart character by character, use (chars <string>)"));
    }
    m.work(text.len())?;
    m.alloc(text.len() as u64)?;
    let list: List = text.split(sep).map(Value::str).collect();
    Ok(Value::list(list))
}

/// `(join list sep)`: the elements' text (as `str` writes them) with `sep` between them.
pub(super) fn join(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let sep = text_arg(args, 1, "join")?;
    let Value::List(items) = &args[0] else {
        return Err(type_error("join", "a list", &args[0]));
    };
    m.work(items.len())?;
    let items: Vec<Value> = items.iter().cloned().collect();
    let text = text_of(&items, sep, m, "`join`: the string")?;
    Ok(Value::Str(Text::from_string(text)))
}

/// `(upper s)`: `s` in upper case.
pub(super) fn upper(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let (test, map) = (u8::is_ascii_lowercase, u8::to_ascii_uppercase);
    change_case(args, m, "upper", test, map, str::to_uppercase)
}

/// `(lower s)`: `s` in lower case.
pub(super) fn lower(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let (test, map) = (u8::is_ascii_uppercase, u8::to_ascii_lowercase);
    change_case(args, m, "lower", test, map, str::to_lowercase)
}

/// `upper` and `lower`: ASCII text with no byte to change is the argument itself, and
/// short ASCII text is mapped on the stack, so a piece letter's case costs no allocation
/// when the result is an interned name; other text takes Unicode's mapping.
#[inline(always)]
fn change_case(
    args: &mut [Value],
    m: &mut Meter,
    name: &str,
    changes: fn(&u8) -> bool,
    map: fn(&u8) -> u8,
    unicode: fn(&str) -> String,
) -> Result<Value, BuiltinError> {
    // A one-character ASCII string (a piece letter) is the symbol numbered by its byte:
    // its case is changed without reading its text, counted as the general way counts it.
    if let Some(b) = ascii_name(&args[0]) {
        m.work(1)?;
        if !changes(&b) {
            return Ok(std::mem::take(&mut args[0]));
        }
        m.alloc(1)?;
        return Ok(Value::sym(Symbol::from_id(u32::from(map(&b)))));
    }
    change_case_of_text(args, m, name, changes, map, unicode)
}

/// The byte of a one-character ASCII string, which is the symbol numbered by that byte:
/// `upper` and `lower` change its case without reading its text (one step of work, and a
/// byte of memory when the case changes, as for any text), here and in the instruction
/// loop, which answers `lower` of such a string itself.
#[inline(always)]
pub fn ascii_name(v: &Value) -> Option<u8> {
    if let Value::Str(t) = v
        && let Some(sym) = t.as_symbol()
        && let Ok(b) = u8::try_from(sym.id())
        && b.is_ascii()
    {
        Some(b)
    } else {
        None
    }
}

/// [`change_case`] of any string, by its text.
fn change_case_of_text(
    args: &mut [Value],
    m: &mut Meter,
    name: &str,
    changes: fn(&u8) -> bool,
    map: fn(&u8) -> u8,
    unicode: fn(&str) -> String,
) -> Result<Value, BuiltinError> {
    let text = text_arg(args, 0, name)?;
    m.work(text.len())?;
    if text.is_ascii() {
        if !text.bytes().any(|b| changes(&b)) {
            return Ok(std::mem::take(&mut args[0]));
        }
        const SHORT: usize = 32;
        if text.len() <= SHORT {
            let mut buf = [0u8; SHORT];
            for (to, from) in buf.iter_mut().zip(text.as_bytes()) {
                *to = map(from);
            }
            // ASCII in, ASCII out: always valid UTF-8.
            if let Ok(mapped) = std::str::from_utf8(&buf[..text.len()]) {
                m.alloc(text.len() as u64)?;
                return Ok(Value::str(mapped));
            }
        }
    }
    m.alloc(text.len() as u64)?;
    Ok(Value::Str(Text::from_string(unicode(text))))
}

/// `(parse-int s)`: the integer `s` writes in decimal (an optional sign, then digits), or
/// `nil` when it is not one.
pub(super) fn parse_int(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    let text = text_arg(args, 0, "parse-int")?;
    m.work(text.len())?;
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(Value::Nil);
    }
    Ok(text.parse::<i64>().map_or(Value::Nil, Value::Int))
}

/// `(fail message)`: stop with a runtime error whose message is the text given (copied:
/// one step per byte, as `str` counts the bytes it writes).
pub(super) fn fail(args: &mut [Value], m: &mut Meter) -> Result<Value, BuiltinError> {
    Err(match &args[0] {
        Value::Str(s) => {
            m.work(s.as_str().len())?;
            BuiltinError::new(s.as_str())
        }
        other => BuiltinError::new(describe(other)),
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use crate::runtime::budget::Meter;
    use crate::runtime::value::Value;

    #[test]
    fn the_case_of_one_ascii_character_is_changed_as_any_text_is() {
        for b in 0..=127u8 {
            let c = s(&char::from(b).to_string());
            for (changes, map, unicode) in [
                (
                    u8::is_ascii_uppercase as fn(&u8) -> bool,
                    u8::to_ascii_lowercase as fn(&u8) -> u8,
                    str::to_lowercase as fn(&str) -> String,
                ),
                (
                    u8::is_ascii_lowercase,
                    u8::to_ascii_uppercase,
                    str::to_uppercase,
                ),
            ] {
                let (mut fast, mut general) = (
                    Meter::new(Default::default()),
                    Meter::new(Default::default()),
                );
                let a =
                    super::change_case(&mut [c.clone()], &mut fast, "lower", changes, map, unicode);
                let b = super::change_case_of_text(
                    &mut [c.clone()],
                    &mut general,
                    "lower",
                    changes,
                    map,
                    unicode,
                );
                assert_eq!(a, b, "{b:?}");
                assert_eq!((fast.steps, fast.memory), (general.steps, general.memory));
            }
        }
        assert_eq!(ok("lower", vec![s("Q")]), s("q"));
        assert_eq!(ok("upper", vec![s("q")]), s("Q"));
    }

    #[test]
    fn chars_split_join() {
        assert_eq!(ok("chars", vec![s("aé1")]), l(vec![s("a"), s("é"), s("1")]));
        assert_eq!(ok("chars", vec![s("")]), l(vec![]));
        assert_eq!(
            ok("split", vec![s("a/b//c"), s("/")]),
            l(vec![s("a"), s("b"), s(""), s("c")])
        );
        assert_eq!(ok("split", vec![s(""), s(" ")]), l(vec![s("")]));
        assert_eq!(
            err("split", vec![s("ab"), s("")]),
            "`split` needs a non-empty separator"
        );
        assert_eq!(
            ok("join", vec![l(vec![s("a"), i(3), Value::Nil]), s("-")]),
            s("a-3-nil")
        );
        assert_eq!(ok("join", vec![l(vec![]), s(",")]), s(""));
        assert_eq!(
            err("join", vec![s("ab"), s(",")]),
            "`join` expects a list, got string \"ab\""
        );
        assert_eq!(
            err("chars", vec![i(1)]),
            "`chars` expects a string, got integer 1"
        );
    }

    #[test]
    fn case_and_integers() {
        assert_eq!(ok("upper", vec![s("kQ1")]), s("KQ1"));
        assert_eq!(ok("lower", vec![s("kQ1")]), s("kq1"));
        assert_eq!(ok("parse-int", vec![s("42")]), i(42));
        assert_eq!(ok("parse-int", vec![s("-7")]), i(-7));
        assert_eq!(ok("parse-int", vec![s("+7")]), i(7));
        for bad in ["", "-", "4x", " 4", "1.5", "99999999999999999999"] {
            assert_eq!(ok("parse-int", vec![s(bad)]), Value::Nil, "{bad}");
        }
    }

    #[test]
    fn fail_stops_with_its_message() {
        assert_eq!(err("fail", vec![s("bad FEN")]), "bad FEN");
        assert_eq!(err("fail", vec![i(3)]), "integer 3");
    }
}
