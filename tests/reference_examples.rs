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

/// Every `.rs` file under `src/`, concatenated.
fn sources_text() -> String {
    let mut out = String::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push_str(&std::fs::read_to_string(&path).expect("a source file"));
            }
        }
    }
    out
}

fn reference_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("lang/REFERENCE.md"))
        .expect("lang/REFERENCE.md is readable")
}

/// Whether `w` looks like a diagnostic code: lowercase words joined by hyphens.
fn code_like(w: &str) -> bool {
    w.contains('-')
        && !w.starts_with('-')
        && !w.ends_with('-')
        && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// Every diagnostic code the reference names, in its tables (`| `code` | ...`) or in
/// parentheses after a statement (`... are refused (`code`)`), is one the implementation
/// gives: a statement about a check that no longer exists is caught here.
#[test]
fn documented_diagnostic_codes_exist() {
    let reference = reference_text();
    let sources = sources_text();
    let mut named = BTreeSet::new();
    for line in reference.lines() {
        if let Some(rest) = line.strip_prefix("| `")
            && let Some((code, _)) = rest.split_once("` |")
            && code_like(code)
        {
            named.insert(code.to_string());
        }
        for part in line.split("(`").skip(1) {
            if let Some((code, _)) = part.split_once("`)")
                && code_like(code)
            {
                named.insert(code.to_string());
            }
        }
    }
    assert!(named.len() > 40, "only {} codes found", named.len());
    let missing: Vec<&String> = named
        .iter()
        .filter(|c| !sources.contains(&format!("\"{c}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "lang/REFERENCE.md names codes the implementation never gives: {missing:?}"
    );
}

/// The REPL's `:help` and the reference agree: every command is described, and every
/// `:command` the reference names exists.
#[test]
fn documented_repl_commands_exist() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("the crate root");
    let mut repl = flexrules::repl::Repl::new(flexrules::repl::ReplOptions {
        tier: Default::default(),
        game: "games/mini-awele".into(),
        seed: 0,
        params: vec![],
        limits: Default::default(),
        rules: vec![],
        color: false,
    })
    .expect("mini-awele opens");
    let help = repl.handle(":help").text;
    let commands: BTreeSet<String> = help
        .lines()
        .filter_map(|l| l.strip_prefix(':'))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(commands.contains("why") && commands.contains("step"));
    let reference = reference_text();
    let mut named = BTreeSet::new();
    for part in reference.split("`:").skip(1) {
        let word: String = part
            .chars()
            .take_while(|c| c.is_ascii_lowercase())
            .collect();
        if !word.is_empty() {
            named.insert(word);
        }
    }
    // Words of a transaction being stepped, and the placeholder `:command`.
    let stepping = ["next", "continue", "abort", "command"];
    let unknown: Vec<&String> = named
        .iter()
        .filter(|w| !commands.contains(*w) && !stepping.contains(&w.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "lang/REFERENCE.md names REPL commands that do not exist: {unknown:?}"
    );
    let undocumented: Vec<&String> = commands.iter().filter(|c| !named.contains(*c)).collect();
    assert!(
        undocumented.is_empty(),
        "REPL commands lang/REFERENCE.md does not describe: {undocumented:?}"
    );
}
