//! The rustyline front end, driven in a pseudo-terminal: tab completion, multi-line input
//! until the parentheses balance, and Ctrl-D to quit.
//!
//! `HOME` and `XDG_DATA_HOME` point at a directory of the test's own, so the user's real
//! input history is neither read nor written. Timeouts are generous because CI machines
//! are slow; nothing measures time.

use std::path::PathBuf;
use std::process::Command;

use rexpect::session::PtySession;

/// How long to wait for each expected piece of output.
const TIMEOUT_MS: u64 = 10_000;

/// A directory of the test's own, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Wait for `needle` in the REPL's output; on a timeout, fail saying what was awaited
/// and why.
fn expect(session: &mut PtySession, needle: &str, doing: &str) -> String {
    session
        .exp_string(needle)
        .unwrap_or_else(|e| panic!("{doing}: expected `{needle}` from the REPL: {e}"))
}

/// Send `text` to the REPL.
fn send(session: &mut PtySession, text: &str) {
    session
        .send(text)
        .and_then(|_| session.flush())
        .unwrap_or_else(|e| panic!("cannot write {text:?} to the REPL's terminal: {e}"));
}

#[test]
fn rustyline_completes_takes_multi_line_input_and_quits_on_ctrl_d() {
    let home = TempDir(
        std::env::temp_dir().join(format!("flexrules-repl-terminal-{}", std::process::id())),
    );
    let data = home.0.join("data");
    std::fs::create_dir_all(&data)
        .unwrap_or_else(|e| panic!("cannot make {}: {e}", data.display()));

    let mut command = Command::new(env!("CARGO_BIN_EXE_flexrules"));
    command
        .args(["repl", "games/mini-awele"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOME", &home.0)
        .env("XDG_DATA_HOME", &data)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    let mut session =
        rexpect::session::spawn_command(command, Some(TIMEOUT_MS)).unwrap_or_else(|e| {
            panic!(
                "cannot run `flexrules repl` in a pseudo-terminal ({e}); this test needs a pty \
             (available on Linux) and must not be skipped"
            )
        });

    // The banner, then the prompt.
    expect(
        &mut session,
        "games/mini-awele (13 entities)",
        "starting the REPL",
    );
    expect(&mut session, "> ", "waiting for the first prompt");

    // Tab completion: `:mov` completes to `:moves` (the only command starting so), and
    // running it lists the moves. Run uncompleted, `:mov` would be an unknown command.
    send(&mut session, ":mov");
    send(&mut session, "\t");
    expect(&mut session, "moves", "completing `:mov` with TAB");
    send(&mut session, "\r");
    let before = expect(
        &mut session,
        "hole0 hole1 hole2 hole3 hole4 hole5",
        "running the completed `:moves`",
    );
    assert!(
        !before.contains("unknown command"),
        "`:mov` + TAB was not completed to `:moves`:\n{before}"
    );
    expect(&mut session, "> ", "waiting for the prompt after :moves");

    // Multi-line input: the line stays open until the parentheses balance.
    send(&mut session, "(+ 1\r");
    send(&mut session, "2)\r");
    // An expression that changes nothing shows its value.
    let before = expect(&mut session, "\r\n3\r\n", "evaluating `(+ 1` / `2)`");
    assert!(
        !before.contains("error"),
        "the two lines were not taken as one expression:\n{before}"
    );
    expect(
        &mut session,
        "> ",
        "waiting for the prompt after the expression",
    );

    // Ctrl-D on an empty line quits.
    session
        .send_control('d')
        .unwrap_or_else(|e| panic!("cannot send Ctrl-D: {e}"));
    session
        .exp_eof()
        .unwrap_or_else(|e| panic!("the REPL did not end after Ctrl-D: {e}"));
    let status = session
        .process_mut()
        .wait()
        .unwrap_or_else(|e| panic!("cannot wait for the REPL: {e}"));
    assert!(
        matches!(status, rexpect::process::WaitStatus::Exited(_, 0)),
        "the REPL did not exit cleanly after Ctrl-D: {status:?}"
    );

    // The history went to the test's own data directory.
    assert!(
        data.join("flexrules").join("history").is_file(),
        "the input history was not written under XDG_DATA_HOME"
    );
}
