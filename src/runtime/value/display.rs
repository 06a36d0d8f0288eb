//! How values are written out: the display form (`{}`, capped at [`DISPLAY_CAP`]), the
//! text `str` and `print` use, and the JSON form (`--json`, bounded by [`JSON_CAP`]).

use std::fmt;

use super::{Dict, Key, Value};

impl Value {
    /// The text `str` and `print` use: strings without quotes, the rest as displayed.
    pub fn to_text(&self) -> String {
        match self {
            Value::Str(s) => s.as_str().to_string(),
            other => other.to_string(),
        }
    }

    /// The JSON form (`--json`): nil is null, dictionaries are objects with string keys,
    /// messages are `{"label": ..., "attributes": {...}}`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Nil => J::Null,
            Value::Bool(b) => J::Bool(b.get()),
            Value::Int(i) => J::from(*i),
            Value::Float(x) => serde_json::Number::from_f64(x.get()).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.as_str().to_string()),
            Value::List(l) => J::Array(l.iter().map(Value::to_json).collect()),
            Value::Dict(d) => dict_json(d),
            Value::Message(m) => {
                let mut o = serde_json::Map::new();
                o.insert("label".into(), J::String(m.label.as_str().to_string()));
                o.insert("attributes".into(), entries_json(m.attrs.iter()));
                J::Object(o)
            }
        }
    }
}

fn dict_json(d: &Dict) -> serde_json::Value {
    entries_json(d.iter())
}

fn entries_json<'a>(entries: impl Iterator<Item = (&'a Key, &'a Value)>) -> serde_json::Value {
    serde_json::Value::Object(entries.map(|(k, v)| (key_text(k), v.to_json())).collect())
}

fn key_text(k: &Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => s.as_str().to_string(),
    }
}

/// The most characters (bytes) the display form of one value takes when shown to people
/// (`{}` of a value: REPL results, property listings, traces, diagnostics). A value that
/// shares its parts (a list doubled by `concat` 60 times) is small in memory but would be
/// enormous written out; past this it is cut with an ellipsis saying how many elements
/// were left out. `str`, `print` and `notify` in a game write the whole text
/// ([`Value::write_text`]), bounded by the transaction's length limit instead.
pub const DISPLAY_CAP: usize = 100_000;

/// The most bytes of JSON one `--json` document may hold ([`Value::to_json_within`]).
pub const JSON_CAP: usize = 64 << 20;

impl Value {
    /// Write the display form (see [`fmt::Display`]) to `out`, all of it: a writer that
    /// refuses more text stops it with an error. When it stops inside collections, the
    /// elements not started are added to `left_out`.
    pub fn write_text(&self, out: &mut dyn fmt::Write, left_out: &mut u64) -> fmt::Result {
        match self {
            Value::Nil => out.write_str("nil"),
            Value::Bool(b) => out.write_str(if b.get() { "true" } else { "false" }),
            Value::Int(i) => write!(out, "{i}"),
            Value::Float(x) => {
                if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
                    write!(out, "{x:.1}")
                } else {
                    write!(out, "{x}")
                }
            }
            Value::Str(s) => write!(out, "{:?}", s.as_str()),
            Value::List(l) => {
                out.write_str("(")?;
                for (i, v) in l.iter().enumerate() {
                    let r = if i > 0 { out.write_str(" ") } else { Ok(()) }
                        .and_then(|()| v.write_text(out, left_out));
                    if r.is_err() {
                        *left_out += (l.len() - i - 1) as u64;
                        return r;
                    }
                }
                out.write_str(")")
            }
            Value::Dict(d) => {
                out.write_str("{")?;
                write_attrs(out, d.iter(), d.len(), left_out)?;
                out.write_str("}")
            }
            Value::Message(m) => {
                write!(out, "<{}", m.label)?;
                if !m.attrs.is_empty() {
                    out.write_str(" ")?;
                    write_attrs(out, m.attrs.iter(), m.attrs.len(), left_out)?;
                }
                out.write_str(">")
            }
        }
    }

    /// The JSON form ([`Value::to_json`]) if it takes at most `budget` bytes (counted
    /// roughly, never less than it takes), which is reduced by what it takes; `None`
    /// (and the budget spent) when it would take more. The walk stops there, so a huge
    /// shared value costs no more than the budget.
    pub fn to_json_within(&self, budget: &mut usize) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        let mut take = |n: usize| -> Option<()> {
            *budget = budget.checked_sub(n)?;
            Some(())
        };
        Some(match self {
            Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Float(_) => {
                take(24)?;
                self.to_json()
            }
            Value::Str(s) => {
                // Escapes can take up to six bytes a byte.
                take(2 + 6 * s.as_str().len())?;
                J::String(s.as_str().to_string())
            }
            Value::List(l) => {
                take(2 + l.len())?;
                let mut items = Vec::new();
                for v in l.iter() {
                    items.push(v.to_json_within(budget)?);
                }
                J::Array(items)
            }
            Value::Dict(d) => dict_json_within(d.iter(), budget)?,
            Value::Message(m) => {
                take(32 + 6 * m.label.as_str().len())?;
                let mut o = serde_json::Map::new();
                o.insert("label".into(), J::String(m.label.as_str().to_string()));
                o.insert(
                    "attributes".into(),
                    dict_json_within(m.attrs.iter(), budget)?,
                );
                J::Object(o)
            }
        })
    }
}

fn dict_json_within<'a>(
    entries: impl ExactSizeIterator<Item = (&'a Key, &'a Value)>,
    budget: &mut usize,
) -> Option<serde_json::Value> {
    *budget = budget.checked_sub(2 + 2 * entries.len())?;
    let mut o = serde_json::Map::new();
    for (k, v) in entries {
        let key = key_text(k);
        *budget = budget.checked_sub(2 + 6 * key.len())?;
        o.insert(key, v.to_json_within(budget)?);
    }
    Some(serde_json::Value::Object(o))
}

/// A writer that takes at most `left` more bytes (cut at a character boundary), then
/// refuses with `cut` set.
struct Capped<'a, 'b> {
    out: &'a mut fmt::Formatter<'b>,
    left: usize,
    cut: bool,
}

impl fmt::Write for Capped<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() <= self.left {
            self.left -= s.len();
            return self.out.write_str(s);
        }
        let mut n = self.left;
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.out.write_str(&s[..n])?;
        self.left = 0;
        self.cut = true;
        Err(fmt::Error)
    }
}

impl fmt::Display for Value {
    /// The display form: lists as `(1 2 3)`, dictionaries as `{"a" 1, 2 3}`, messages as
    /// `<label "k" v>`, strings in quotes; at most [`DISPLAY_CAP`] bytes, then `…` and
    /// how much was left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Capped {
            out: &mut *f,
            left: DISPLAY_CAP,
            cut: false,
        };
        let mut left_out = 0u64;
        match self.write_text(&mut out, &mut left_out) {
            Ok(()) => Ok(()),
            Err(e) if !out.cut => Err(e),
            Err(_) if left_out == 0 => write!(f, "… (cut at {DISPLAY_CAP} characters)"),
            Err(_) => write!(
                f,
                "… (cut at {DISPLAY_CAP} characters; {left_out} more elements not shown)"
            ),
        }
    }
}

fn write_attrs<'a>(
    out: &mut dyn fmt::Write,
    entries: impl Iterator<Item = (&'a Key, &'a Value)>,
    len: usize,
    left_out: &mut u64,
) -> fmt::Result {
    for (i, (k, v)) in entries.enumerate() {
        let r = if i > 0 { out.write_str(", ") } else { Ok(()) }
            .and_then(|()| k.to_value().write_text(out, left_out))
            .and_then(|()| out.write_str(" "))
            .and_then(|()| v.write_text(out, left_out));
        if r.is_err() {
            *left_out += (len - i - 1) as u64;
            return r;
        }
    }
    Ok(())
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::value::List;

    #[test]
    fn display_forms() {
        let l = Value::list(List::from_vec(vec![
            Value::Int(1),
            Value::str("x"),
            Value::float(2.0),
        ]));
        assert_eq!(l.to_string(), "(1 \"x\" 2.0)");
        assert_eq!(Value::str("x").to_text(), "x");
    }
}
