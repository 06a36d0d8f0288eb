//! What a test does when a tool it needs (Chromium, a Python package) is missing: outside
//! CI it skips that part, saying so; in CI (`CI` set, as `.ci/run` sets it) it fails, so a
//! comparison that did not run never passes silently.

/// Skip (outside CI) or fail (in CI) the test part that needs a missing tool; `why` says
/// what is missing and how to install it.
pub fn missing_tool(why: &str) {
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    assert!(
        !in_ci,
        "{why}\nin CI every tool a test needs must be there (.ci/run installs it), so this fails instead of skipping"
    );
    eprintln!("SKIPPED: {why}");
}
