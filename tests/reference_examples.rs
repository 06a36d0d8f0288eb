//! Every ```flexrules block of `lang/REFERENCE.md` is checked, so the reference cannot drift
//! from the language.
//!
//! A block whose first code line starts with `#` is a game (`game.fr`); a line
//! `; file: <path>` starts another file of it. Any other block is statements, put in a
//! behaviour of a small game (of a `#representation` when they draw). A line
//! `; error: <code> ...` lists the diagnostic codes the block must give, as a set; without
//! it the block must give none.

use std::collections::BTreeSet;
use std::path::Path;

use flexrules::compile::{CheckOptions, check_game};
use flexrules::syntax::load::MemoryFs;

const ENTITY_PRELUDE: &str = "#entity hole
  #property seeds 4
  #property owner 0
  #property next \"hole1\"
  #state default
    #onMessage example
{body}
#entity game
  #property players (list 0 1)
  #state default
#board ring 12 of hole named \"hole\"
";

const REPRESENTATION_PRELUDE: &str = "#entity hole
  #property seeds 4
  #state default
#representation hole
  #state default
    #onMessage example
{body}
";

/// The code blocks, with the line each starts on.
fn blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None if line == "```flexrules" => current = Some((i + 1, String::new())),
            Some(_) if line.starts_with("```") => out.extend(current.take()),
            Some((_, code)) => {
                code.push_str(line);
                code.push('\n');
            }
            None => {}
        }
    }
    out
}

fn draws(code: &str) -> bool {
    [
        "(new graphic",
        "(update graphic",
        "(delete graphic",
        "(observe",
        "(on ",
    ]
    .iter()
    .any(|w| code.contains(w))
}

/// The diagnostic codes a block gives, and those it should.
fn check_block(code: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let expected: BTreeSet<String> = code
        .lines()
        .filter_map(|l| l.trim().strip_prefix("; error:"))
        .flat_map(|codes| codes.split_whitespace().map(str::to_string))
        .collect();
    let first = code
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim().starts_with(';'))
        .unwrap_or("");
    let mut fs = MemoryFs::new();
    if first.trim_start().starts_with('#') {
        let mut path = "game.fr".to_string();
        let mut text = String::new();
        for line in code.lines() {
            if let Some(p) = line.strip_prefix("; file: ") {
                fs.insert(format!("ex/{path}"), std::mem::take(&mut text));
                path = p.trim().to_string();
                continue;
            }
            text.push_str(line);
            text.push('\n');
        }
        fs.insert(format!("ex/{path}"), text);
    } else {
        let body: String = code.lines().map(|l| format!("      {l}\n")).collect();
        let prelude = if draws(code) {
            REPRESENTATION_PRELUDE
        } else {
            ENTITY_PRELUDE
        };
        fs.insert("ex/game.fr", prelude.replace("{body}\n", &body));
    }
    let checked = check_game(
        &fs,
        Path::new("ex"),
        &CheckOptions {
            lint_unused_patterns: true,
        },
    )
    .unwrap_or_else(|e| panic!("the example does not open: {e}"));
    let got = checked
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    (got, expected)
}

#[test]
fn reference_examples_check_as_documented() {
    let text = std::fs::read_to_string("lang/REFERENCE.md").expect("lang/REFERENCE.md is readable");
    let all = blocks(&text);
    assert!(all.len() > 40, "the reference has its examples");
    let bad: Vec<String> = all
        .iter()
        .filter_map(|(line, code)| {
            let (got, expected) = check_block(code);
            (got != expected)
                .then(|| format!("lang/REFERENCE.md:{line}: expected {expected:?}, got {got:?}"))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
