//! Runtime tests driven by game files: each game under `tests/inputs/run/` is built,
//! started and driven by the script in its header, and the whole run is snapshotted as a
//! readable transcript.
//!
//! A test input is a `.fr` file in `tests/inputs/run/`, a directory there holding
//! `game.fr` (and the files it names), a `.fr` file in `tests/inputs/run/paper/` (a
//! game sharing the paper's advice files kept in that directory), or a `.fr` file in
//! `tests/inputs/run/hostile/` (a program probing a limit). Adding a test is adding
//! a file. An input that shows a runtime bug is named `*.fr.pending` so the glob leaves it
//! out until the bug is fixed.
//!
//! The script is given by comment lines at the top of the main file, before the first line
//! that is not a comment:
//!
//! ```text
//! ; send: startSeeding to hole3 with player 0   one transaction (as `flexrules run --send`)
//! ; play: A,b                                   actions by name, one transaction each
//! ; seed: 7                                     seed of the random generator
//! ; param: k=v                                  a --param override (repeatable)
//! ; max-steps: 1000                             per-transaction instruction budget
//! ; max-depth: 100                              per-transaction depth limit
//! ; max-nesting: 8                              how deep values may nest
//! ; max-length: 1000                            elements of a collection, bytes of a string
//! ; max-memory: 100000                          bytes of values and output per transaction
//! ; trace: off                                  do not record trace events
//! ```
//!
//! `send` and `play` lines run in the order written. Other comment lines in the header
//! are prose describing what the game shows.
//!
//! The transcript holds, for `#setup` and for each step: the status summary, the trace
//! (one line per event, as `flexrules run --trace` prints it), the output lines and, for a
//! failed transaction, the rendered diagnostic; then every entity (type, state,
//! properties) and the outcome. After a change, run `INSTA_UPDATE=always cargo test --test
//! runtime` (or `cargo insta review`) and read every changed snapshot.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use flexrules::cli::run::describe;
use flexrules::compile::{Built, build_game};
use flexrules::diagnostic::render_plain;
use flexrules::runtime::outside::{parse_literal, parse_send};
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::{Output, Status, Transaction};
use flexrules::runtime::value::Value;
use flexrules::runtime::vm::Limits;
use flexrules::syntax::load::DiskFs;

/// One step of a script.
#[derive(Debug)]
enum Step {
    /// `; send: <label> to <entity> [with k v ...]`.
    Send(String),
    /// One action of a `; play:` line.
    Play(String),
}

/// What a game's header asks for.
#[derive(Debug)]
struct Script {
    steps: Vec<Step>,
    seed: u64,
    params: Vec<(String, Value)>,
    limits: Limits,
    trace: bool,
}

/// Read the script from the comment lines at the top of `text`.
fn script(text: &str, path: &Path) -> Script {
    let mut s = Script {
        steps: Vec::new(),
        seed: 0,
        params: Vec::new(),
        limits: Limits::default(),
        trace: true,
    };
    for line in text.lines() {
        let Some(comment) = line.trim().strip_prefix(';') else {
            break;
        };
        let comment = comment.trim();
        let Some((key, value)) = comment.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let number = |what: &str| -> u64 {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{}: `; {what}:` needs a number", path.display()))
        };
        match key {
            "send" => s.steps.push(Step::Send(value.to_string())),
            "play" => s.steps.extend(
                value
                    .split(',')
                    .map(|a| Step::Play(a.trim().to_string()))
                    .filter(|a| !matches!(a, Step::Play(n) if n.is_empty())),
            ),
            "seed" => s.seed = number("seed"),
            "param" => {
                let (k, v) = value
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{}: `; param:` takes NAME=VALUE", path.display()));
                s.params.push((k.trim().to_string(), parse_literal(v)));
            }
            "max-steps" => s.limits.max_steps = number("max-steps"),
            "max-depth" => s.limits.max_depth = number("max-depth") as usize,
            "max-nesting" => s.limits.max_nesting = number("max-nesting") as usize,
            "max-length" => s.limits.max_length = number("max-length") as usize,
            "max-memory" => s.limits.max_memory = number("max-memory"),
            "trace" => {
                s.trace = match value {
                    "on" => true,
                    "off" => false,
                    other => panic!("{}: `; trace: {other}`: on or off", path.display()),
                }
            }
            _ => {}
        }
    }
    s
}

/// `path` relative to the crate root (insta's glob hands out absolute paths), so file
/// names in rendered diagnostics are the same on every machine.
fn crate_relative(path: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    path.strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Build the game at `path`; a test input that does not build is a broken test.
fn build(path: &Path) -> Built {
    match build_game(&DiskFs, path) {
        Ok(built) => built,
        Err(e) => panic!("{} does not build:\n{}", path.display(), e.render_plain()),
    }
}

/// Append the transcript of one transaction.
fn transaction(out: &mut String, built: &Built, heading: &str, tx: &Transaction) {
    let _ = writeln!(out, "{heading}: {}", tx.status.summary());
    for e in &tx.trace {
        let _ = writeln!(out, "    {}", describe(e));
    }
    for line in &tx.output {
        match line {
            Output::Notify(t) => {
                let _ = writeln!(out, "  notify: {t}");
            }
            Output::Print(t) => {
                let _ = writeln!(out, "  print: {t}");
            }
        }
    }
    if let Status::Failed(e) = &tx.status {
        indented(out, &e.render(&built.sources, false), "  | ");
    }
}

/// Append `text` with every line prefixed.
fn indented(out: &mut String, text: &str, prefix: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{}", format!("{prefix}{line}").trim_end());
    }
}

/// Append every entity and the outcome.
fn world(out: &mut String, session: &Session) {
    let game = &session.game;
    out.push_str("--- world\n");
    for (_, e) in session.world().iter() {
        let props: Vec<String> = e
            .properties(game)
            .map(|(n, v)| format!("{n} {v}"))
            .collect();
        let _ = writeln!(
            out,
            "{} ({}, {}): {}",
            e.name,
            game.ty(e.ty).name,
            e.state,
            if props.is_empty() {
                "no properties".to_string()
            } else {
                props.join(", ")
            }
        );
    }
    match session.outcome() {
        Some(d) => {
            let _ = writeln!(out, "outcome: {}", Value::dict(d.clone()));
        }
        None => out.push_str("outcome: none\n"),
    }
}

/// Build, start and drive the game at `path` by its script; the transcript.
fn run_game(path: &Path) -> String {
    let relative = crate_relative(path);
    let main = if relative.is_dir() {
        relative.join("game.fr")
    } else {
        relative.clone()
    };
    let text = std::fs::read_to_string(&main)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", main.display()));
    let script = script(&text, &main);
    let built = build(&relative);
    let mut out = String::new();
    if !built.warnings.is_empty() {
        out.push_str("--- warnings\n");
        indented(
            &mut out,
            &render_plain(&built.sources, &built.warnings),
            "  | ",
        );
    }
    let options = SessionOptions {
        tier: Default::default(),
        seed: script.seed,
        params: script.params,
        limits: script.limits,
        trace: script.trace,
    };
    let (mut session, setup) = match Session::start(built.game.clone(), &options) {
        Ok(started) => started,
        Err(e) => {
            let _ = writeln!(out, "start failed: {e}");
            if let Some(d) = e.diagnostic() {
                indented(&mut out, &render_plain(&built.sources, &[d]), "  | ");
            }
            return out;
        }
    };
    if let Some(tx) = &setup {
        transaction(&mut out, &built, "--- #setup", tx);
    }
    let mut ply = 0;
    for (i, step) in script.steps.iter().enumerate() {
        let n = i + 1;
        match step {
            Step::Send(text) => {
                let (to, msg) = parse_send(text)
                    .unwrap_or_else(|e| panic!("{}: `; send: {text}`: {e}", main.display()));
                let tx = session.deliver(to, msg);
                transaction(&mut out, &built, &format!("--- [{n}] send {text}"), &tx);
            }
            Step::Play(name) => {
                ply += 1;
                match session.playable(name) {
                    Ok(action) => {
                        let tx = session.deliver(action.recipient, (*action.message).clone());
                        transaction(&mut out, &built, &format!("--- [{n}] play {name}"), &tx);
                    }
                    Err(e) => {
                        let message = e.render(&built.sources, false, ply);
                        let _ = writeln!(out, "--- [{n}] play {name}: not played: {message}");
                    }
                }
            }
        }
    }
    world(&mut out, &session);
    out
}

/// Every game under `tests/inputs/run/` runs as its script says.
#[test]
fn transcripts() {
    insta::glob!(
        "inputs/run/{*.fr,*/game.fr,paper/*.fr,hostile/*.fr}",
        |path| {
            insta::assert_snapshot!(run_game(path));
        }
    );
}

/// Run the `flexrules` binary with `args`; its standard output, which must not be empty.
fn flexrules_stdout(args: &[&str]) -> Vec<u8> {
    let output = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the flexrules binary runs");
    assert!(
        output.status.success(),
        "flexrules {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !output.stdout.is_empty(),
        "flexrules {args:?} printed nothing"
    );
    output.stdout
}

/// The same game, seed and actions give byte-identical JSON on every run.
#[test]
fn runs_are_deterministic() {
    let runs: [&[&str]; 2] = [
        &[
            "run",
            "games/mini-awele",
            "--json",
            "--seed",
            "3",
            "--play",
            "hole0,hole6,hole1,hole7,hole2,hole8",
        ],
        &[
            "run",
            "tests/inputs/run/random-seeded.fr",
            "--json",
            "--seed",
            "3",
            "--play",
            "roll,deal,roll,deal,roll",
        ],
    ];
    for args in runs {
        let first = flexrules_stdout(args);
        let second = flexrules_stdout(args);
        assert!(
            first == second,
            "flexrules {args:?} printed different output on two runs:\n{}\n---\n{}",
            String::from_utf8_lossy(&first),
            String::from_utf8_lossy(&second)
        );
        let json: serde_json::Value =
            serde_json::from_slice(&first).expect("--json prints one JSON value");
        let transactions = json["transactions"].as_array().map_or(0, Vec::len);
        assert!(transactions > 0, "no transaction in {json}");
        assert!(
            json["transactions"]
                .as_array()
                .into_iter()
                .flatten()
                .all(|t| t["result"] == "committed"),
            "every scripted action should commit: {json}"
        );
    }
}

/// A different seed gives a different random game (so the determinism test is not
/// trivially true).
#[test]
fn seeds_matter() {
    let run = |seed: &str| {
        flexrules_stdout(&[
            "run",
            "tests/inputs/run/random-seeded.fr",
            "--json",
            "--seed",
            seed,
            "--play",
            "roll,deal,roll,deal,roll",
        ])
    };
    assert_ne!(run("3"), run("4"));
}
