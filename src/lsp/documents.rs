//! The open documents, laid over the disk (the [`Overlay`] file system), the unit each
//! belongs to, and checking a unit: its analysis and its diagnostics, file by file.
//!
//! A document belongs to a *unit*, checked whole whenever one of its documents changes:
//! the game whose directory (or a parent of it, up to [`GAME_LEVELS`] up) holds a
//! `game.fr` that loads the document; a rules file (a `.fr` beside such a game that the
//! game does not load, or a `.law` or `.se` named by one), checked against the game as
//! `--rules` would put it in force; a `.fr` with no game above it, checked as a game of
//! one file; any other file, only read (syntax). The unit is read through an overlay of
//! the open documents' texts on the disk, so what is checked is what the editor shows.
//! Diagnostics are given for every file of the unit, empty ones included, so a problem
//! fixed in one file disappears from the others.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use super::features::Analysis;
use crate::compile::{BuildError, CheckOptions, build_game_with_rules, check_game};
use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceMap};
use crate::syntax::ast::Program;
use crate::syntax::load::{DiskFs, FileSystem, parse_text_statements};

/// How many directories above a document a `game.fr` is looked for.
pub const GAME_LEVELS: usize = 3;

/// The open documents and what their units last gave.
#[derive(Default)]
pub(super) struct Documents {
    /// The open documents' texts, by path (made absolute and normal).
    docs: HashMap<PathBuf, String>,
    /// Each unit's files with diagnostics published last time (to clear them).
    published: HashMap<PathBuf, BTreeSet<PathBuf>>,
    /// The last analysis of each open document's unit.
    analyses: HashMap<PathBuf, Analysis>,
}

/// What a document is checked as.
#[derive(Clone, Debug, PartialEq)]
enum Unit {
    /// A game (a directory holding game.fr, or a single .fr file).
    Game(PathBuf),
    /// A rules file checked against a game.
    Rules { game: PathBuf, rules: PathBuf },
    /// A file only read.
    Alone(PathBuf),
}

impl Unit {
    /// The key its published files are kept under.
    fn key(&self) -> PathBuf {
        match self {
            Unit::Game(p) | Unit::Alone(p) => p.clone(),
            Unit::Rules { rules, .. } => rules.clone(),
        }
    }
}

/// The open documents laid over the disk.
struct Overlay<'a> {
    docs: &'a HashMap<PathBuf, String>,
}

impl FileSystem for Overlay<'_> {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        match self.docs.get(&normal(path)) {
            Some(text) => Ok(text.clone()),
            None => DiskFs.read(path),
        }
    }
    fn read_inside(&self, root: &Path, path: &Path) -> std::io::Result<String> {
        match self.docs.get(&normal(path)) {
            Some(text) if normal(path).starts_with(normal(root)) => Ok(text.clone()),
            _ => DiskFs.read_inside(root, path),
        }
    }
    fn is_dir(&self, path: &Path) -> bool {
        DiskFs.is_dir(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.docs.contains_key(&normal(path)) || DiskFs.exists(path)
    }
}

/// `path` made absolute (from the current directory) with `.` and `..` taken out, without
/// asking the disk (a document need not exist there).
pub(super) fn normal(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl Documents {
    /// The document at `path` (normal) now reads `text` (opened or changed).
    pub(super) fn set_text(&mut self, path: PathBuf, text: String) {
        self.docs.insert(path, text);
    }

    /// The document at `path` (normal) closed: its text and its analysis are dropped.
    pub(super) fn close(&mut self, path: &Path) {
        self.docs.remove(path);
        self.analyses.remove(path);
    }

    /// The last analysis of the document at `path` (normal), and the id of the file it
    /// loaded for the document.
    pub(super) fn find(&self, path: &Path) -> Option<(&Analysis, FileId)> {
        let analysis = self.analyses.get(path)?;
        let (id, _) = analysis
            .sources
            .files()
            .find(|(_, f)| normal(&f.path) == path)?;
        Some((analysis, id))
    }

    /// Check the unit of the document at `path` (normal): the unit's files, and every file
    /// to publish with its diagnostics (every file of the unit, and every file published
    /// last time that no longer has any, so that they are cleared).
    pub(super) fn check(
        &mut self,
        path: &Path,
    ) -> (&SourceMap, BTreeMap<PathBuf, Vec<Diagnostic>>) {
        let unit = self.unit_of(path);
        let (sources, program, diagnostics) = self.diagnose(&unit);
        let mut by_file: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
        for (_, f) in sources.files() {
            by_file.entry(normal(&f.path)).or_default();
        }
        for d in diagnostics {
            let file = sources.file(d.span.file);
            by_file.entry(normal(&file.path)).or_default().push(d);
        }
        // A file published before and no longer in the unit is cleared.
        let key = unit.key();
        let before = self.published.remove(&key).unwrap_or_default();
        for gone in before {
            by_file.entry(gone).or_default();
        }
        let now: BTreeSet<PathBuf> = by_file
            .iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(p, _)| p.clone())
            .collect();
        self.published.insert(key, now);
        self.analyses
            .insert(path.to_path_buf(), Analysis { sources, program });
        (&self.analyses[path].sources, by_file)
    }

    /// What the document at `path` is checked as (see the module's documentation).
    fn unit_of(&self, path: &Path) -> Unit {
        let fs = Overlay { docs: &self.docs };
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let mut dir = path.parent();
        let mut game = None;
        for _ in 0..=GAME_LEVELS {
            let Some(d) = dir else { break };
            if fs.exists(&d.join("game.fr")) {
                game = Some(d.to_path_buf());
                break;
            }
            dir = d.parent();
        }
        let Some(game) = game else {
            return if ext == "fr" {
                Unit::Game(path.to_path_buf())
            } else {
                Unit::Alone(path.to_path_buf())
            };
        };
        if path == game.join("game.fr") {
            return Unit::Game(game);
        }
        let loads = crate::syntax::load::load(&fs, &game)
            .map(|l| l.sources.files().any(|(_, f)| normal(&f.path) == path))
            .unwrap_or(false);
        if loads {
            return Unit::Game(game);
        }
        if ext == "fr" {
            return Unit::Rules {
                game,
                rules: path.to_path_buf(),
            };
        }
        // An advice file the game does not load: a rules file beside it that names it.
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let beside = path
            .parent()
            .and_then(|d| std::fs::read_dir(d).ok())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "fr"))
            .find(|p| fs.read(p).is_ok_and(|t| t.contains(name)));
        match beside {
            Some(rules) => Unit::Rules {
                game,
                rules: normal(&rules),
            },
            None => Unit::Alone(path.to_path_buf()),
        }
    }

    /// Check a unit: its files, its items (when it has any) and its diagnostics.
    fn diagnose(&self, unit: &Unit) -> (SourceMap, Option<Program>, Vec<Diagnostic>) {
        let fs = Overlay { docs: &self.docs };
        let options = CheckOptions {
            lint_unused_patterns: true,
        };
        let alone = |path: &Path| {
            let mut sources = SourceMap::new();
            let text = fs.read(path).unwrap_or_default();
            let (_, _, diagnostics) =
                parse_text_statements(&mut sources, &path.to_string_lossy(), &text);
            (sources, None, diagnostics)
        };
        match unit {
            Unit::Alone(path) => alone(path),
            Unit::Game(game) => match check_game(&fs, game, &options) {
                Ok(checked) => (
                    checked.loaded.sources,
                    Some(checked.loaded.program),
                    checked.diagnostics,
                ),
                Err(_) => alone(game),
            },
            Unit::Rules { game, rules } => {
                let Ok(checked) = check_game(&fs, game, &options) else {
                    return alone(rules);
                };
                if checked.diagnostics.iter().any(Diagnostic::is_error) {
                    // The game's own errors first: the rules file is checked once it has none.
                    return (
                        checked.loaded.sources,
                        Some(checked.loaded.program),
                        checked.diagnostics,
                    );
                }
                let base = checked.loaded.sources.files().count();
                let program = Some(checked.loaded.program);
                match build_game_with_rules(&fs, game, std::slice::from_ref(rules)) {
                    Ok(built) => {
                        let found = keep_from(built.warnings, base);
                        (built.sources, program, found)
                    }
                    Err(BuildError::Errors(sources, found)) => {
                        (sources, program, keep_from(found, base))
                    }
                    Err(BuildError::Open(_)) => alone(rules),
                }
            }
        }
    }
}

/// The diagnostics of files `base` and after (a rules file's, not its game's).
fn keep_from(diagnostics: Vec<Diagnostic>, base: usize) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter(|d| d.span.file.0 as usize >= base)
        .collect()
}
