//! The web page played in a real Chromium: runs tests/browser/play.test.mjs,
//! tests/browser/editor.test.mjs, tests/browser/jochess.test.mjs and
//! tests/browser/secret.test.mjs (Node with
//! playwright-core driving Debian's /usr/bin/chromium) against this build's binary.
//! Skips, saying why, when Chromium, Node or the test's node_modules are missing (.ci/run
//! installs them); in CI it fails instead. Screenshots are kept in
//! target/browser-artifacts/.

#[path = "common/tools.rs"]
mod tools;
use std::path::Path;
use std::process::Command;

#[test]
fn the_page_plays_in_chromium() {
    let Some(text) = run("play.test.mjs") else {
        return;
    };
    assert!(text.contains("awele: click, seeds moved"), "{text}");
    assert!(
        text.contains("cards: each seat sees its own private graphics only"),
        "{text}"
    );
    assert!(
        text.contains("goofspiel: the server bids in secret"),
        "{text}"
    );
}

/// The rule editor: a typo diagnosed before anything is added, the fixed law added, in
/// force and undone; a variant switched on and off.
#[test]
fn the_rule_editor_checks_adds_and_undoes_in_chromium() {
    let Some(text) = run("editor.test.mjs") else {
        return;
    };
    assert!(
        text.contains("editor: typo diagnosed at its line and column with nothing changed, fixed, added, in force, undone: ok"),
        "{text}"
    );
    assert!(
        text.contains("variants: listed with descriptions, switched on and off: ok"),
        "{text}"
    );
}

/// joChess's hexagon with three seats: a move each by clicks, seen on every page, and
/// clicks out of turn refused.
#[test]
fn three_seats_play_jochess_in_chromium() {
    let Some(text) = run("jochess.test.mjs") else {
        return;
    };
    assert!(
        text.contains("jochess: three seats, a move each by clicks seen on every page, out-of-turn clicks refused: ok"),
        "{text}"
    );
}

/// Archipelago with three seats: secret orders programmed by clicks, each page told whom
/// it waits for, a salvage chosen with a button by the player it asks while the others
/// wait for that player, and the reveal seen on every page.
#[test]
fn three_seats_program_secret_orders_and_answer_a_forced_choice_in_chromium() {
    let Some(text) = run("secret.test.mjs") else {
        return;
    };
    assert!(
        text.contains("secret: three seats program their orders, player 1 answers the salvage with a button while the others wait for it, the reveal is seen on every page: ok"),
        "{text}"
    );
}

/// Run the browser test `script` of tests/browser/ and give what it printed, asserting it
/// succeeded; `None` (skipped, or failed in CI) when a tool it needs is missing.
fn run(script: &str) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let missing = if !Path::new(&chromium).exists() {
        Some(format!("{chromium} is missing (apt-get install chromium)"))
    } else if !root
        .join("tests/browser/node_modules/playwright-core")
        .exists()
    {
        Some("tests/browser/node_modules is missing (npm ci in tests/browser)".into())
    } else if Command::new("node").arg("--version").output().is_err() {
        Some("node is missing".into())
    } else {
        None
    };
    if let Some(why) = missing {
        tools::missing_tool(&format!("the browser test: {why}"));
        return None;
    }
    let out = Command::new("node")
        .arg(root.join("tests/browser").join(script))
        .env("FLEXRULES_BIN", env!("CARGO_BIN_EXE_flexrules"))
        .current_dir(root)
        .output()
        .expect("node runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(
        out.status.success(),
        "the browser test {script} failed:\n{text}"
    );
    Some(text)
}
