//! Values small in memory but enormous written out (a list doubled by `concat`, sharing
//! its parts) are bounded wherever they are shown outside a transaction: the result of a
//! send, traces, entity listings and REPL results are cut at `DISPLAY_CAP` characters
//! with an ellipsis saying how much was left out; `run --json` refuses the document (its
//! snapshot is `tests/inputs/cli/run-json-huge-value.cmd`).

use std::io::Write as _;
use std::process::{Command, Stdio};

use flexrules::runtime::value::DISPLAY_CAP;

const GAME: &str = "tests/inputs/huge/shared-list.fr";

fn flexrules(args: &[&str], stdin: &str) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("flexrules runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("stdin written");
    let out = child.wait_with_output().expect("flexrules ends");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (text, out.status.code().unwrap_or(-1))
}

/// Every line is at most the cap plus a line's own words, and `cuts` of them were cut.
fn assert_cut(out: &str, cuts: usize) {
    for line in out.lines() {
        assert!(
            line.len() < DISPLAY_CAP + 300,
            "a line of {} bytes: {}…",
            line.len(),
            &line[..200]
        );
    }
    let cut = out
        .lines()
        .filter(|l| l.contains(&format!("… (cut at {DISPLAY_CAP} characters;")))
        .count();
    assert_eq!(cut, cuts, "{}", out.len());
    assert!(out.contains("more elements not shown)"));
}

#[test]
fn a_send_result_is_cut() {
    let (out, code) = flexrules(&["run", GAME, "--send", "go to x"], "");
    assert_eq!(code, 0);
    assert!(out.starts_with("[1] send go to x: committed: ((0 1 2 3"));
    assert_cut(&out, 1);
}

#[test]
fn a_trace_is_cut() {
    let (out, code) = flexrules(&["run", GAME, "--send", "go to x", "--trace"], "");
    assert_eq!(code, 0);
    // The property change and `done: <value>` in the trace, and the result.
    assert_cut(&out, 3);
}

#[test]
fn repl_results_and_listings_are_cut() {
    let (out, code) = flexrules(
        &["repl", GAME],
        "send go to x\n:show x\n(property \"big\" of \"x\")\n(length (property \"big\" of \"x\"))\n",
    );
    assert_eq!(code, 0, "{}", &out[..out.len().min(2000)]);
    // The send's result, the property in `:show`, the expression's value.
    assert_cut(&out, 3);
    assert!(out.contains("1048576"), "the length is still right");
}

#[test]
fn json_refuses_the_document() {
    let (out, code) = flexrules(&["run", GAME, "--send", "go to x", "--json"], "");
    assert_eq!(code, 1);
    assert!(out.len() < 1000 && out.contains("\"error\""), "{out}");
}

/// Threads of perft and playout each copy the start world all the way down
/// (`World::private_copy`): a value nested near the deepest `--max-nesting` allows is
/// copied on each thread's own stack without overflowing it, and the counts are those of
/// one thread.
#[test]
fn threads_copy_a_deeply_nested_world() {
    const DEEP: &str = "tests/inputs/huge/deep-world.fr";
    let perft = |jobs: &str| {
        flexrules(
            &["perft", DEEP, "3", "--max-nesting", "1024", "--jobs", jobs],
            "",
        )
    };
    let (two, code) = perft("2");
    assert_eq!(code, 0, "{two}");
    assert!(two.contains("    3          2         1"), "{two}");
    assert_eq!(perft("1"), (two, 0));
    let (out, code) = flexrules(
        &[
            "playout",
            DEEP,
            "-n",
            "40",
            "--max-nesting",
            "1024",
            "--jobs",
            "2",
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("40 games"), "{out}");
}
