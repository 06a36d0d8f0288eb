//! REPL transcripts: each `tests/inputs/repl/*.txt` is typed into the plain front end
//! (what `flexrules repl` uses when standard input is not a terminal) and everything it
//! prints — banner, echoed prompts and input lines, replies — is snapshotted.
//!
//! Adding a test is adding a file. The file's first lines may be header comments:
//!
//! ```text
//! # game: tests/inputs/repl/games/relay   the game, relative to the crate root
//! #                                       (default: games/mini-awele)
//! # seed: 7                               seed of the random generator (default 0)
//! # rules: games/awele/variants/x.fr      a rules file put in force at start (repeatable)
//! # param: size=5                         a parameter, as --param gives it (repeatable)
//! # any other comment line                prose: what the transcript shows
//! ```
//!
//! The header ends at the first line not starting with `#`; the rest is typed as is, one
//! line at a time (an empty line is Enter, which advances a `:step`).
//!
//! `$TMP` in the input stands for a fresh directory made for this transcript (for
//! `:save` and `:load`); the directory's real path is written back as `$TMP` in the
//! output, and the crate root's absolute path (which journals record) as `$ROOT`, so
//! snapshots are the same on every machine. Every file left in that directory
//! at the end is added to the snapshot after a `--- file $TMP/<name>` line, so a saved
//! journal can be read there. Games are opened by paths relative to the crate root, so
//! the banner names them the same way everywhere.
//!
//! Files the transcripts use live beside them: games in `tests/inputs/repl/games/`, law
//! and side-effect files in `tests/inputs/repl/rules/`, journals (corrupt ones) in
//! `tests/inputs/repl/journals/`. A transcript that shows a REPL bug is named
//! `*.txt.pending` so the glob leaves it out until the bug is fixed.
//!
//! After a change, run `INSTA_UPDATE=always cargo test --test repl` (or `cargo insta
//! review`) and read every changed snapshot.

use std::path::{Path, PathBuf};

use flexrules::repl::{Repl, ReplOptions, plain};

/// The game opened when the header names none.
const DEFAULT_GAME: &str = "games/mini-awele";

/// What a transcript's header asks for, and the lines to type.
struct Transcript {
    game: PathBuf,
    seed: u64,
    rules: Vec<PathBuf>,
    params: Vec<String>,
    input: String,
}

/// Split `text` into its header and the input to type.
fn transcript(text: &str, path: &Path) -> Transcript {
    let mut t = Transcript {
        game: PathBuf::from(DEFAULT_GAME),
        seed: 0,
        rules: Vec::new(),
        params: Vec::new(),
        input: String::new(),
    };
    let mut lines = text.lines().peekable();
    while let Some(comment) = lines.peek().and_then(|l| l.strip_prefix('#')) {
        if let Some((key, value)) = comment.split_once(':') {
            let value = value.trim();
            match key.trim() {
                "game" => t.game = PathBuf::from(value),
                "rules" => t.rules.push(PathBuf::from(value)),
                "param" => t.params.push(value.to_string()),
                "seed" => {
                    t.seed = value.parse().unwrap_or_else(|_| {
                        panic!("{}: `# seed: {value}` is not a number", path.display())
                    });
                }
                _ => {}
            }
        }
        lines.next();
    }
    for line in lines {
        t.input.push_str(line);
        t.input.push('\n');
    }
    t
}

/// A directory of its own for one transcript's files, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("flexrules-repl-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Type the transcript at `path` into a fresh REPL; what the REPL printed.
fn run_transcript(path: &Path) -> String {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let t = transcript(&text, path);
    let name = path.file_stem().map_or_else(
        || "transcript".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let tmp = TempDir::new(&name);
    let tmp_text = tmp.0.to_string_lossy().into_owned();
    let input = t.input.replace("$TMP", &tmp_text);
    let mut repl = Repl::new(ReplOptions {
        tier: Default::default(),
        game: t.game.clone(),
        seed: t.seed,
        params: t.params.clone(),
        limits: Default::default(),
        rules: t.rules.clone(),
        color: false,
    })
    .unwrap_or_else(|e| {
        panic!(
            "{}: {} does not open:\n{e}",
            path.display(),
            t.game.display()
        )
    });
    let mut output = Vec::new();
    plain::run(&mut repl, input.as_bytes(), &mut output)
        .unwrap_or_else(|e| panic!("{}: the plain front end failed: {e}", path.display()));
    let mut text = String::from_utf8(output)
        .unwrap_or_else(|e| panic!("{}: the output is not UTF-8: {e}", path.display()));
    text.push_str(&files_in(&tmp.0));
    // Journals name their game by its absolute path: the crate root is written `$ROOT`.
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or_else(|e| panic!("cannot find the crate root: {e}"));
    text.replace(&tmp_text, "$TMP")
        .replace(&*root.to_string_lossy(), "$ROOT")
}

/// Every file left in `dir` (journals written by `:save`), with its text.
fn files_in(dir: &Path) -> String {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("cannot list the temporary directory").path())
        .collect();
    names.sort();
    let mut out = String::new();
    for name in names {
        let text = std::fs::read_to_string(&name)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", name.display()));
        out.push_str(&format!("--- file {}\n{text}", name.display()));
    }
    out
}

/// Every transcript under `tests/inputs/repl/` prints what its snapshot holds.
#[test]
fn transcripts() {
    // Games, rule files and journals are named relative to the crate root.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("cannot enter the crate root");
    insta::glob!("inputs/repl/*.txt", |path| {
        insta::assert_snapshot!(run_transcript(path));
    });
}

/// A journal's lines are all checked before the game opens and any of them runs: one a
/// journal may not hold refuses the whole journal, without running the lines before it
/// (here a loop that would otherwise run to the step limit first).
#[test]
fn a_journal_is_checked_whole_before_any_line_runs() {
    let options = ReplOptions {
        tier: Default::default(),
        game: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("games/awele"),
        seed: 0,
        params: Vec::new(),
        limits: flexrules::runtime::vm::Limits {
            max_steps: 50_000_000,
            ..Default::default()
        },
        rules: Vec::new(),
        color: false,
    };
    let lines = vec![
        "(while true 0)".to_string(),
        ":save stolen.journal".to_string(),
    ];
    let err = match Repl::replay(options, &lines) {
        Ok(_) => panic!("a journal holding :save replayed"),
        Err(e) => e,
    };
    assert!(
        err.starts_with("change 2 (`:save stolen.journal`) is not a change a journal can hold"),
        "{err}"
    );
}

/// Names typed for a click or a rule switch that name nothing are refused without being
/// added to the process-wide table of names, which never shrinks (a served seat may send
/// any text).
#[test]
fn names_that_name_nothing_are_not_kept() {
    let mut repl = Repl::new(ReplOptions {
        tier: Default::default(),
        game: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("games/awele"),
        seed: 0,
        params: Vec::new(),
        limits: Default::default(),
        rules: Vec::new(),
        color: false,
    })
    .expect("awele opens");
    let owner = "qx-owner-typed-once-7c1";
    let graphic = "qx-graphic-typed-once-7c1";
    let rule = "qx-rule-typed-once-7c1";
    let clicked = repl.handle(&format!(":click {owner} {graphic}")).text;
    assert!(clicked.contains("has no graphic"), "{clicked}");
    let switched = repl.handle(&format!(":disable {rule}")).text;
    assert!(
        switched.contains("no law or side-effect named"),
        "{switched}"
    );
    for name in [owner, graphic, rule] {
        assert!(
            flexrules::symbol::Symbol::get(name).is_none(),
            "{name} was kept"
        );
    }
}
