//! Front-end tests: lexer, reader, lowering, loader and static checks, driven by files.
//!
//! Every layer has one `check_*` helper and a directory of inputs under `tests/inputs/`,
//! so adding a test is adding a file (a `.fr` file, or a directory holding `game.fr` and
//! the files it names):
//!
//! - `parse/`: clean games, one per form and directive. The snapshot is the dump of the
//!   program followed by its diagnostics, which must be empty.
//! - `errors/`: games with one mistake each. The snapshot is the rendered diagnostics; at
//!   least one must be an error.
//! - `warnings/`: games that load but deserve a warning, and no error.
//! - `recovery/`: games with several mistakes, whose `; expect:` lines list the codes that
//!   must all be reported, in order: the front end does not stop at the first.
//! - `paper/`: a game bound to the paper's Figure 5 law and Figure 6 side-effect.
//! - `games/*/game.fr` at the crate root: every bundled game checks clean.
//!
//! Games are loaded through paths relative to the crate root (the working directory cargo
//! gives tests), so the file names in rendered diagnostics are the same on every machine.
//! Snapshots live in `tests/snapshots/`; after a change, run
//! `INSTA_UPDATE=always cargo test --test frontend` (or `cargo insta review`) and read them.

use std::path::{Path, PathBuf};

use flexrules::compile::{CheckOptions, Checked, check_game};
use flexrules::diagnostic::{Diagnostic, render_plain};
use flexrules::syntax::ast::{AdviceBody, AdviceKind, Item, Pattern};
use flexrules::syntax::dump;
use flexrules::syntax::load::{DiskFs, MemoryFs};

/// The options `flexrules check` uses, so tests see what users see.
fn options() -> CheckOptions {
    CheckOptions {
        lint_unused_patterns: true,
    }
}

/// `path` relative to the crate root (insta's glob hands out absolute paths).
fn crate_relative(path: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    path.strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Load and check the game at `path` (a `.fr` file or a game directory).
fn load_and_check(path: &Path) -> Checked {
    let relative = crate_relative(path);
    match check_game(&DiskFs, &relative, &options()) {
        Ok(checked) => checked,
        Err(e) => panic!("{e}"),
    }
}

fn render(checked: &Checked) -> String {
    render_plain(&checked.loaded.sources, &checked.diagnostics)
}

fn errors(checked: &Checked) -> usize {
    checked.diagnostics.iter().filter(|d| d.is_error()).count()
}

/// The parse layer: the dump of a clean game, and its (empty) diagnostics.
fn check_parse(path: &Path) -> String {
    let checked = load_and_check(path);
    let rendered = render(&checked);
    assert_eq!(
        errors(&checked),
        0,
        "{} should load without errors:\n{rendered}",
        path.display()
    );
    let diagnostics = if rendered.is_empty() {
        "(none)\n".to_string()
    } else {
        rendered
    };
    format!(
        "{}\n--- diagnostics ---\n{diagnostics}",
        dump::loaded(&checked.loaded)
    )
}

/// The error layer: the rendered diagnostics of a broken game.
fn check_errors(path: &Path) -> String {
    let checked = load_and_check(path);
    let rendered = render(&checked);
    assert!(
        errors(&checked) > 0,
        "{} should report at least one error:\n{rendered}",
        path.display()
    );
    rendered
}

/// The warning layer: warnings and no error.
fn check_warnings(path: &Path) -> String {
    let checked = load_and_check(path);
    let rendered = render(&checked);
    assert_eq!(
        errors(&checked),
        0,
        "{} should have no errors:\n{rendered}",
        path.display()
    );
    assert!(
        !checked.diagnostics.is_empty(),
        "{} should report a warning",
        path.display()
    );
    rendered
}

/// The codes listed on the `; expect:` lines of a game file.
fn expected_codes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("; expect:"))
        .flat_map(|codes| codes.split_whitespace().map(str::to_string))
        .collect()
}

/// The code of `d` with the line it points at.
fn code_and_line(checked: &Checked, d: &Diagnostic) -> String {
    let file = checked.loaded.sources.file(d.span.file);
    let (line, _) = file.line_col(d.span.start as usize);
    format!("{}@{line}", d.code)
}

/// The recovery layer: every expected diagnostic is reported, in order, and nothing else.
fn check_recovery(path: &Path) -> String {
    let checked = load_and_check(path);
    let rendered = render(&checked);
    let main = checked.loaded.sources.file(checked.loaded.main);
    let expected = expected_codes(&main.text);
    assert!(
        !expected.is_empty(),
        "{} has no `; expect:` line",
        path.display()
    );
    let reported: Vec<&str> = checked.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(reported, expected, "{rendered}");
    let located: Vec<String> = checked
        .diagnostics
        .iter()
        .map(|d| code_and_line(&checked, d))
        .collect();
    format!("{}\n\n{rendered}", located.join("\n"))
}

#[test]
fn parse() {
    insta::glob!("inputs/parse/*", |path| {
        insta::assert_snapshot!(check_parse(path));
    });
}

#[test]
fn errors_are_reported() {
    insta::glob!("inputs/errors/*", |path| {
        insta::assert_snapshot!(check_errors(path));
    });
}

#[test]
fn warnings_are_reported() {
    insta::glob!("inputs/warnings/*", |path| {
        insta::assert_snapshot!(check_warnings(path));
    });
}

#[test]
fn every_error_is_reported_in_one_pass() {
    insta::glob!("inputs/recovery/*", |path| {
        insta::assert_snapshot!(check_recovery(path));
    });
}

/// The paper's Figure 5 law and Figure 6 side-effect, stored verbatim as a `.law` and a
/// `.se` file and bound with the directives as the paper prints them, check clean; the
/// law is two statements and the side-effect three.
#[test]
fn paper_figures_check_clean() {
    let checked = load_and_check(Path::new("tests/inputs/paper"));
    let rendered = render(&checked);
    assert!(checked.diagnostics.is_empty(), "{rendered}");
    let advice: Vec<_> = checked
        .loaded
        .program
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Advice(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(advice.len(), 2);
    let shape: Vec<_> = advice
        .iter()
        .map(|a| {
            let pattern = |p: Pattern| match p {
                Pattern::Any(_) => "*".to_string(),
                Pattern::Name(n) => n.sym.as_str().to_string(),
            };
            let (path, loaded) = match &a.body {
                AdviceBody::File { path, file, .. } => {
                    (path.sym.as_str().to_string(), file.is_some())
                }
                AdviceBody::Inline(_) => (String::new(), false),
            };
            (
                a.kind,
                a.name.is_none(),
                pattern(a.label),
                a.target.sym.as_str().to_string(),
                pattern(a.state),
                path,
                loaded,
                a.body.statements().len(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            (
                AdviceKind::Law,
                true,
                "startSeeding".to_string(),
                "hole".to_string(),
                "default".to_string(),
                "laws/allow-only-current-player.law".to_string(),
                true,
                2,
            ),
            (
                AdviceKind::SideEffect,
                true,
                "giveStonesToCurrentPlayer".to_string(),
                "game".to_string(),
                "default".to_string(),
                "side-effects/check-winning-condition.se".to_string(),
                true,
                3,
            ),
        ]
    );
    insta::assert_snapshot!(dump::loaded(&checked.loaded));
}

/// Every game under `games/` loads and checks without errors.
#[test]
fn bundled_games_check_clean() {
    insta::glob!("../games", "*/game.fr", |path| {
        let dir = path.parent().unwrap_or(path);
        let checked = load_and_check(dir);
        assert_eq!(
            errors(&checked),
            0,
            "{} has errors:\n{}",
            dir.display(),
            render(&checked)
        );
    });
}

/// The expression dump names every node after the AST, resolves names and needs no disk.
#[test]
fn expressions_dump_with_resolved_names() {
    let mut fs = MemoryFs::new();
    fs.insert(
        "g.fr",
        "#define check (x) (if (> x 1) (rollback \"no\") else nil)\n",
    );
    let checked = match check_game(&fs, Path::new("g.fr"), &options()) {
        Ok(checked) => checked,
        Err(e) => panic!("{e}"),
    };
    assert!(checked.diagnostics.is_empty(), "{}", render(&checked));
    let Some(Item::Function(f)) = checked.loaded.program.items.first() else {
        panic!("expected one #define");
    };
    let text = dump::expr(&f.body[0]);
    insta::assert_snapshot!(text, @r#"(if (call > (var x) 1) (form Rollback "no") else nil)"#);
}

/// A form lowering rejected dumps as an error node with its byte range, so a dump shows
/// which text failed, and `dump::program` works without the sources.
#[test]
fn malformed_forms_dump_as_error_nodes() {
    let mut fs = MemoryFs::new();
    fs.insert("g.fr", "#setup (print 1) (new thing)\n");
    let checked = match check_game(&fs, Path::new("g.fr"), &options()) {
        Ok(checked) => checked,
        Err(e) => panic!("{e}"),
    };
    let codes: Vec<&str> = checked.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["unknown-form"]);
    let text = dump::program(&checked.loaded.program);
    insta::assert_snapshot!(text, @"(setup (call print 1) (error 17..28))");
}
