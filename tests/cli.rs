//! Command-line tests: each `tests/inputs/cli/*.cmd` holds one `flexrules` command line,
//! which is run from the crate root; its exit status, standard output and standard error
//! are snapshotted.
//!
//! Adding a test is adding a file. Lines starting with `#` are prose (what the command
//! shows), except `# cwd: <dir>`, which runs the command from that directory (relative to
//! the crate root); the first other line is the command, starting with `flexrules`, and
//! the lines after it are its standard input (for `flexrules repl`). Arguments are
//! split at spaces; double quotes keep spaces inside one argument (`--send "place to b2"`),
//! and `\"` is a quote inside one.
//!
//! Timings change from run to run: a number followed by ` s)` or ` playouts/s` is written
//! `N` in the snapshot. After a change, run `INSTA_UPDATE=always cargo test --test cli`
//! (or `cargo insta review`) and read every changed snapshot.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// Split a command line at spaces, keeping double-quoted parts together; `\"` is a quote
/// inside an argument.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                word.extend(chars.next());
                any = true;
            }
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            _ => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// Whether `w` is a number (digits, at most one dot).
fn number(w: &str) -> bool {
    !w.is_empty()
        && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        && w.chars().filter(|&c| c == '.').count() <= 1
}

/// `text` with timings replaced by `N`.
fn scrub(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let parts: Vec<&str> = line.split(' ').collect();
        let mut words = Vec::with_capacity(parts.len());
        for (i, w) in parts.iter().enumerate() {
            let next = parts.get(i + 1).copied().unwrap_or("");
            if number(w) && next.starts_with("playouts/s") {
                words.push("N".to_string());
            } else if let Some(n) = w.strip_prefix('(')
                && number(n)
                && next.starts_with("s)")
            {
                words.push("(N".to_string());
            } else {
                words.push((*w).to_string());
            }
        }
        out.push_str(&words.join(" "));
    }
    out
}

/// Run the command of the case at `path`; what it printed and how it exited.
fn run_case(path: &Path) -> String {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cwd = root.to_path_buf();
    let mut lines = text.lines();
    let line = loop {
        let Some(l) = lines.next() else {
            panic!("{}: no command line", path.display());
        };
        if let Some(dir) = l.strip_prefix("# cwd:") {
            cwd = root.join(dir.trim());
        } else if !l.starts_with('#') && !l.trim().is_empty() {
            break l;
        }
    };
    let stdin: String = lines.map(|l| format!("{l}\n")).collect();
    let args = words(line);
    assert_eq!(
        args.first().map(String::as_str),
        Some("flexrules"),
        "{}: the command starts with `flexrules`",
        path.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(&args[1..])
        .current_dir(&cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: flexrules does not run: {e}", path.display()));
    if let Some(mut input) = child.stdin.take() {
        input
            .write_all(stdin.as_bytes())
            .unwrap_or_else(|e| panic!("{}: cannot write standard input: {e}", path.display()));
    }
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{}: flexrules does not finish: {e}", path.display()));
    let stdin = if stdin.is_empty() {
        String::new()
    } else {
        format!("--- stdin\n{stdin}")
    };
    format!(
        "$ {line}\n{stdin}--- exit status: {}\n--- stdout\n{}--- stderr\n{}",
        output
            .status
            .code()
            .map_or("killed".to_string(), |c| c.to_string()),
        scrub(&String::from_utf8_lossy(&output.stdout)),
        scrub(&String::from_utf8_lossy(&output.stderr)),
    )
}

/// Every case under `tests/inputs/cli/` prints and exits as its snapshot holds.
#[test]
fn commands() {
    insta::glob!("inputs/cli/*.cmd", |path| {
        insta::assert_snapshot!(run_case(path));
    });
}

#[test]
fn timings_are_scrubbed() {
    assert_eq!(
        scrub("9 games, 5071 playouts/s (0.01 s)\n(4.43 s)\n"),
        "9 games, N playouts/s (N s)\n(N s)\n"
    );
    assert_eq!(words(r#"run g --send "place to b2" --json"#).len(), 5);
    assert_eq!(words(r#"--send "a with p \"X\"""#)[1], r#"a with p "X""#);
}

/// `run --help` says that a failed transaction makes the exit status 1.
#[test]
fn run_help_gives_the_exit_status() {
    let output = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(["run", "--help"])
        .output()
        .expect("flexrules runs");
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(
        help.contains("1 when a transaction failed with an error"),
        "run --help does not give the exit status:\n{help}"
    );
}

/// Output piped into a reader that stops early (`flexrules perft … | head -1`) ends the
/// command quietly, not with a panic about a broken pipe.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(["perft", "games/awele", "6"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("flexrules runs");
    // The reader goes away before anything is written.
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("flexrules ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.signal(), Some(libc::SIGPIPE), "{stderr}");
}

#[test]
fn playout_json_gives_the_first_error_with_its_place() {
    let output = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args([
            "playout",
            "tests/inputs/tic-tac-toe",
            "--rules",
            "tests/inputs/tic-tac-toe/variants/corner-typo.fr",
            "-n",
            "3",
            "--jobs",
            "1",
            "--json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("flexrules runs");
    assert_eq!(output.status.code(), Some(1));
    let doc: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON document on stdout");
    let first = &doc["first_error"];
    assert_eq!(first["error"], "no entity named \"gmae\"", "{doc}");
    let d = &first["diagnostic"];
    assert_eq!(d["code"], "runtime-error", "{doc}");
    assert_eq!(
        d["file"], "tests/inputs/tic-tac-toe/variants/corner-typo.fr",
        "{doc}"
    );
    assert_eq!(d["line"], 7, "{doc}");
    assert_eq!(d["hint"], "did you mean \"game\"?", "{doc}");
}

/// A file of thousands of errors: `check` shows the first ones and counts the rest, in
/// time and output that grow with the file, not with its square (each excerpt shows its
/// line, and a line of the whole file once took 38 s and 33 MB for 4 KB).
#[test]
fn check_shows_the_first_problems_and_counts_the_rest() {
    let dir = std::env::temp_dir().join(format!("flexrules-many-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let many = dir.join("many.fr");
    std::fs::write(&many, ")".repeat(12_000)).expect("write");
    let output = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(["check", many.to_str().expect("utf-8 path")])
        .output()
        .expect("flexrules runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout.contains("12000 errors") || stdout.contains("12001 errors"),
        "{stdout}"
    );
    assert_eq!(
        stderr.matches("] Error: ").count(),
        flexrules::diagnostic::MAX_SHOWN,
        "only the first problems are shown"
    );
    assert!(
        stderr.contains("more problems not shown (") && stderr.contains("check again"),
        "{}",
        &stderr[stderr.len().saturating_sub(300)..]
    );
    // A line too long to show is not shown, each time: its place is given instead.
    assert!(stderr.contains("too long to show"), "no place given");
    assert!(
        stderr.len() < 64 * 1024,
        "{} bytes of diagnostics for a 12 KB file",
        stderr.len()
    );
    // The JSON form is bounded the same way, the count of the rest on standard error.
    let json = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args([
            "check",
            "--format",
            "json",
            many.to_str().expect("utf-8 path"),
        ])
        .output()
        .expect("flexrules runs");
    let lines = String::from_utf8_lossy(&json.stdout).lines().count();
    assert_eq!(lines, flexrules::diagnostic::MAX_SHOWN);
    assert!(String::from_utf8_lossy(&json.stderr).contains("more problems not shown"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run `flexrules` with `args` from the crate root: its exit status and the one JSON
/// document it printed.
fn json_of(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("flexrules runs");
    let doc = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON document ({e}):\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code(), doc)
}

/// `moves --json` on Awele: the legal moves in order with their indices (as the API gives
/// them) and players, the player to move, no outcome.
#[test]
fn moves_json_lists_moves_with_index_and_player() {
    let (code, doc) = json_of(&["moves", "games/awele", "--json"]);
    assert_eq!(code, Some(0), "{doc}");
    let moves = doc["moves"].as_array().expect("moves is a list");
    let game = flexrules::api::Game::load("games/awele").expect("awele loads");
    let mut m = game.start_headless(0).expect("awele starts");
    let legal = m.legal_moves().expect("awele has moves");
    assert_eq!(moves.len(), legal.len(), "{doc}");
    for (j, a) in moves.iter().zip(&legal) {
        assert_eq!(j["name"], a.name.as_str(), "{doc}");
        assert_eq!(j["index"], a.index.0, "{doc}");
        match &a.player {
            Some(p) => assert_eq!(j["player"], p.as_str(), "{doc}"),
            None => assert!(j.get("player").is_none(), "{doc}"),
        }
    }
    let to_move = m.players_to_move().expect("awele says who moves");
    assert_eq!(doc["to_move"], serde_json::json!(to_move), "{doc}");
    assert_eq!(doc["outcome"], serde_json::Value::Null, "{doc}");
    assert_eq!(doc["failed"], serde_json::json!([]), "{doc}");
    assert!(doc.get("candidates").is_none(), "{doc}");
}

/// `moves --json --explain` on chess: every candidate with its verdict; a vetoed one names
/// the law, where it comes from and what it notified.
#[test]
fn moves_json_explains_each_candidate() {
    let (code, doc) = json_of(&["moves", "games/chess", "--json", "--explain"]);
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["to_move"], serde_json::json!(["white"]), "{doc}");
    let moves = doc["moves"].as_array().expect("moves is a list");
    assert_eq!(moves.len(), 20, "{doc}");
    let candidates = doc["candidates"].as_array().expect("candidates is a list");
    let legal: Vec<&serde_json::Value> = candidates
        .iter()
        .filter(|c| c["verdict"] == "legal")
        .collect();
    assert_eq!(legal.len(), 20, "{doc}");
    for (l, m) in legal.iter().zip(moves) {
        assert_eq!(l["name"], m["name"], "{doc}");
        assert_eq!(l["index"], m["index"], "{doc}");
    }
    let vetoed = candidates
        .iter()
        .find(|c| c["verdict"] == "vetoed")
        .expect("some candidate is vetoed");
    assert!(vetoed["law"].is_string(), "{vetoed}");
    assert!(
        vetoed["source"]
            .as_str()
            .is_some_and(|s| s.ends_with(".law")),
        "{vetoed}"
    );
    assert!(vetoed["notes"].is_array(), "{vetoed}");
}

/// `moves --json` on a finished game gives its outcome and nobody to move.
#[test]
fn moves_json_gives_the_outcome() {
    let (code, doc) = json_of(&[
        "moves",
        "games/chess",
        "--param",
        "fen=7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["moves"], serde_json::json!([]), "{doc}");
    assert_eq!(doc["to_move"], serde_json::json!([]), "{doc}");
    assert_eq!(doc["outcome"]["winner"], "white", "{doc}");
}

/// `moves --json --explain` with candidates that fail: each gives its error and where it
/// is, and the exit status is 1 as without --json.
#[test]
fn moves_json_gives_failures_with_their_place() {
    let (code, doc) = json_of(&[
        "moves",
        "tests/inputs/tic-tac-toe",
        "--rules",
        "tests/inputs/tic-tac-toe/variants/corner-typo.fr",
        "--explain",
        "--json",
    ]);
    assert_eq!(code, Some(1), "{doc}");
    let candidates = doc["candidates"].as_array().expect("candidates is a list");
    let failed = candidates
        .iter()
        .find(|c| c["verdict"] == "failed")
        .expect("some candidate fails");
    assert_eq!(failed["error"], "no entity named \"gmae\"", "{failed}");
    let d = &failed["diagnostic"];
    assert_eq!(
        d["file"], "tests/inputs/tic-tac-toe/variants/corner-typo.fr",
        "{failed}"
    );
    assert_eq!(d["line"], 7, "{failed}");
    assert!(d["column"].is_number(), "{failed}");
    assert!(candidates.iter().any(|c| c["verdict"] == "legal"), "{doc}");
    // Without --explain, the failures are listed apart from the legal moves.
    let (code, doc) = json_of(&[
        "moves",
        "tests/inputs/tic-tac-toe",
        "--rules",
        "tests/inputs/tic-tac-toe/variants/corner-typo.fr",
        "--json",
    ]);
    assert_eq!(code, Some(1), "{doc}");
    assert!(
        !doc["failed"].as_array().expect("a list").is_empty(),
        "{doc}"
    );
    assert_eq!(doc["failed"][0]["diagnostic"]["line"], 7, "{doc}");
}
