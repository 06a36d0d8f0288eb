//! Messages and values typed by people: `--send "startSeeding to hole3 with player 0"`,
//! `--param seeds=3`, the REPL's `send` command.

use crate::symbol::Symbol;

use super::budget::MAX_NAME_BYTES;
use super::value::{Attrs, Key, Message, Text, Value};

/// Read a literal typed on a command line: an integer, a float, `true`, `false`, `nil`, a
/// double-quoted string, or else the word itself as a string.
pub fn parse_literal(text: &str) -> Value {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Value::Int(i);
    }
    if t.contains('.')
        && let Ok(x) = t.parse::<f64>()
    {
        return Value::float(x);
    }
    match t {
        "true" => Value::bool(true),
        "false" => Value::bool(false),
        "nil" => Value::Nil,
        _ if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') => {
            Value::str(&crate::syntax::token::unescape(&t[1..t.len() - 1]))
        }
        _ => Value::str(t),
    }
}

/// Split on white space, keeping double-quoted strings (with escapes) whole.
fn words(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if c == '"' {
            word.push(chars.next().unwrap_or('"'));
            let mut closed = false;
            while let Some(c) = chars.next() {
                word.push(c);
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        word.push(n);
                    }
                } else if c == '"' {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return Err(format!("unterminated string {word}"));
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                word.push(c);
                chars.next();
            }
        }
        out.push(word);
    }
    Ok(out)
}

/// Parse `<label> to <entity> [with <key> <value> ...]`.
pub fn parse_send(text: &str) -> Result<(Symbol, Message), String> {
    const USAGE: &str = "<label> to <entity> [with <key> <value> ...]";
    let w = words(text)?;
    let name = |s: &str, what: &str| match parse_literal(s) {
        Value::Str(text) => typed_name(&text, what),
        _ => Err(format!("`{s}` is not a name (expected {USAGE})")),
    };
    match w.as_slice() {
        [label, to, entity, rest @ ..] if to == "to" => {
            let label = name(label, "a message label")?;
            let entity = name(entity, "an entity name")?;
            let mut attrs = Attrs::new();
            match rest {
                [] => {}
                [with, pairs @ ..] if with == "with" => {
                    if pairs.len() % 2 == 1 {
                        return Err(format!(
                            "attribute `{}` has no value (expected {USAGE})",
                            pairs[pairs.len() - 1]
                        ));
                    }
                    for pair in pairs.chunks(2) {
                        let key = match parse_literal(&pair[0]) {
                            Value::Int(i) => Key::Int(i),
                            Value::Str(s) => Key::Str(s),
                            other => return Err(format!("`{other}` cannot be an attribute key")),
                        };
                        attrs.insert(key, parse_literal(&pair[1]));
                    }
                }
                [other, ..] => {
                    return Err(format!(
                        "expected `with`, found `{other}` (expected {USAGE})"
                    ));
                }
            }
            Ok((entity, Message { label, attrs }))
        }
        _ => Err(format!("expected {USAGE}")),
    }
}

/// The name a typed word is: one of the game's names whatever its length (a lookup, which
/// adds nothing), else a new name of at most [`MAX_NAME_BYTES`] bytes.
fn typed_name(text: &Text, what: &str) -> Result<Symbol, String> {
    let len = text.as_str().len();
    if len <= MAX_NAME_BYTES {
        return Ok(text.intern());
    }
    text.symbol().ok_or_else(|| {
        format!(
            "{what} typed may have at most {MAX_NAME_BYTES} bytes, got {len} bytes \
             (no name of the game is that long; names are kept for the life of the game)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_parse_with_typed_attributes() {
        let (to, m) = parse_send("startSeeding to hole3 with player 0 note \"a b\"").unwrap();
        assert_eq!(to.as_str(), "hole3");
        assert_eq!(m.label.as_str(), "startSeeding");
        assert_eq!(
            m.attrs.get(&Key::sym(Symbol::intern("player"))),
            Some(&Value::Int(0))
        );
        assert_eq!(
            m.attrs.get(&Key::sym(Symbol::intern("note"))),
            Some(&Value::str("a b"))
        );
    }

    #[test]
    fn malformed_sends_say_what_is_expected() {
        assert!(
            parse_send("startSeeding hole3")
                .unwrap_err()
                .contains("expected")
        );
        assert!(
            parse_send("a to b with k")
                .unwrap_err()
                .contains("no value")
        );
        assert!(parse_send("a to b and k v").unwrap_err().contains("`with`"));
    }

    #[test]
    fn literals() {
        assert_eq!(parse_literal("3"), Value::Int(3));
        assert_eq!(parse_literal("2.5"), Value::float(2.5));
        assert_eq!(parse_literal("x"), Value::str("x"));
        assert_eq!(parse_literal("\"x y\""), Value::str("x y"));
    }
}
