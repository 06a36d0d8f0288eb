//! `str` and the text forms of values joined within the length limit ([`text_of`], which
//! `join` uses too).

use std::fmt::Write as _;

use crate::runtime::budget::{ELEMENT_BYTES, Meter};
use crate::runtime::builtin_error::BuiltinError;
use crate::runtime::value::{Text, Value};

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
    use super::super::test_support::*;
    use crate::runtime::value::Value;
    use crate::symbol::Symbol;

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
