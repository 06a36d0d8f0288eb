//! ARCHITECTURE.md is a map: every path it names exists, and it stays short enough to
//! read in one sitting.

use std::path::Path;

const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "games/",
    "lang/",
    "docs/",
    "benches/",
    "tools/",
    "examples/",
    "fuzz/",
    ".ci/",
    "python/",
];

/// The paths named in backticks: `src/runtime/vm/` or `docs/values.md`, a trailing
/// `/` or not. A name with a wildcard or a placeholder (`*`, `<`) is a pattern, not a
/// path.
fn named_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (i, quoted) in line.split('`').enumerate() {
            let looks_like_path = i % 2 == 1
                && ROOTS.iter().any(|r| quoted.starts_with(r))
                && !quoted.contains(['*', '<', ' ', '{']);
            if looks_like_path {
                found.push((n + 1, quoted.to_string()));
            }
        }
    }
    found
}

#[test]
fn every_path_the_map_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let named = named_paths(&text);
    assert!(named.len() > 30, "the code map names the folders and files");
    let missing: Vec<String> = named
        .iter()
        .filter(|(_, p)| !root.join(p).exists())
        .map(|(n, p)| format!("ARCHITECTURE.md:{n}: `{p}` does not exist"))
        .collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn every_folder_of_src_is_on_the_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut unmapped = Vec::new();
    for entry in std::fs::read_dir(root.join("src")).expect("src") {
        let entry = entry.expect("an entry of src");
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = if entry.path().is_dir() {
            format!("src/{name}/")
        } else {
            format!("src/{name}")
        };
        if !text.contains(&format!("`{path}`")) {
            unmapped.push(path);
        }
    }
    assert!(unmapped.is_empty(), "not on the map: {unmapped:?}");
}

#[test]
fn the_map_stays_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let lines = text.lines().count();
    assert!(
        lines <= 260,
        "ARCHITECTURE.md has {lines} lines: keep it a map, and put design notes in docs/"
    );
}

#[test]
fn a_path_in_backticks_is_found_and_a_pattern_is_not() {
    let named = named_paths("see `src/api/` and `docs/vm.md`, not `tests/inputs/*.cmd` or `x`");
    let paths: Vec<&str> = named.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(paths, ["src/api/", "docs/vm.md"]);
}
