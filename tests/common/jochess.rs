//! What the joChess agreement and drawing tests share: joChess's board files (read from
//! `../shared/jochess` beside the project: a test fails, never passes silently, without
//! them), the line format of the fixtures (docs/jochess.md, section 5), and evaluating the
//! game's own functions in a match.

#![allow(dead_code)] // each test uses its own part of this module

use std::collections::BTreeSet;
use std::path::PathBuf;

use flexrules::api::Match;
use flexrules::compile::codegen::compile_body;
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::Value;
use flexrules::source::SourceMap;
use flexrules::syntax::load::parse_text_statements;

/// The joChess board file `<stem>.xml`.
pub fn board_file(stem: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/jochess")
        .join(format!("{stem}.xml"));
    assert!(
        path.is_file(),
        "{} is missing: the joChess board files are read from ../shared/jochess beside the project",
        path.display()
    );
    path
}

/// A case (or recorded game) of a fixture: its name, its first line and its lines (line
/// number, words).
pub struct Case {
    pub name: String,
    pub line: usize,
    pub lines: Vec<(usize, Vec<String>)>,
}

/// The cases of a fixture file: each starts with `case <name>`; `#` starts a comment.
pub fn cases(text: &str) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if words[0] == "case" {
            out.push(Case {
                name: words.get(1).cloned().unwrap_or_default(),
                line: i + 1,
                lines: Vec::new(),
            });
        } else {
            out.last_mut()
                .unwrap_or_else(|| panic!("line {}: `{line}` before any case", i + 1))
                .lines
                .push((i + 1, words));
        }
    }
    out
}

/// Evaluate `text` as the user in `m`'s session.
pub fn eval(m: &mut Match, text: &str) -> Result<Value, String> {
    let session = m.session_mut();
    let mut sources = SourceMap::default();
    let (_, body, diags) = parse_text_statements(&mut sources, "<case>", text);
    if !diags.is_empty() {
        return Err(format!("{text}: {diags:?}"));
    }
    let span = body[0].span;
    let code = compile_body(session.game_mut(), &body, "<case>".into(), span)
        .map_err(|e| format!("{text}: {e:?}"))?;
    match session.eval(code).status {
        Status::Committed(v) => Ok(v),
        other => Err(format!("{text}: {other:?}")),
    }
}

/// The names a value gives: a list's elements, nothing for nil, else the value itself.
pub fn names(v: &Value) -> BTreeSet<String> {
    match v {
        Value::List(l) => l.iter().map(Value::to_text).collect(),
        Value::Nil => BTreeSet::new(),
        other => BTreeSet::from([other.to_text()]),
    }
}
