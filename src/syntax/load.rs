//! The loader: from a game path to one [`Program`].
//!
//! Reads `game.fr` (or a single `.fr` file), expands `#include`s in place, reads the
//! advice files named by `#law`/`#sideeffect` and resolves board files. Every path is
//! relative to the file that names it and must stay inside the game's directory. File
//! access goes through [`FileSystem`] so tests and fuzzers can load games from memory.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceMap, Span};

use super::ast::{AdviceBody, BoardShape, Expr, Item, Name, Program};
use super::lower::Lowerer;
use super::reader::{ReadError, read};
use super::token::lex;

/// Largest file a game may hold (its sources, advice and board files are far smaller).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Where game files come from.
pub trait FileSystem {
    /// The text of the file at `path`.
    fn read(&self, path: &Path) -> std::io::Result<String>;
    /// The text of the file at `path`, only if its real location (symbolic links
    /// resolved) lies under the real location of `root`.
    fn read_inside(&self, root: &Path, path: &Path) -> std::io::Result<String> {
        let _ = root;
        self.read(path)
    }
    /// Whether `path` is a directory.
    fn is_dir(&self, path: &Path) -> bool;
    /// Whether `path` exists.
    fn exists(&self, path: &Path) -> bool;
}

/// The real file system.
pub struct DiskFs;

impl FileSystem for DiskFs {
    /// Reads only a regular file of at most [`MAX_FILE_BYTES`]: a device such as
    /// `/dev/zero`, a FIFO or a directory is refused before it is read (a FIFO is opened
    /// without blocking).
    fn read(&self, path: &Path) -> std::io::Result<String> {
        read_regular_file(path)
    }
    fn read_inside(&self, root: &Path, path: &Path) -> std::io::Result<String> {
        let root = if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root
        };
        let real_root = std::fs::canonicalize(root)?;
        let real = std::fs::canonicalize(path)?;
        if !real.starts_with(&real_root) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "a symbolic link takes it outside the game's directory (to {})",
                    real.display()
                ),
            ));
        }
        read_regular_file(&real)
    }
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
}

/// The text of the regular file at `path`, refusing anything else and anything larger
/// than [`MAX_FILE_BYTES`].
pub fn read_regular_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let refuse = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refuse(if meta.is_dir() {
            "it is a directory".into()
        } else {
            "it is not a regular file (a device, FIFO or socket)".into()
        }));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(refuse(format!(
            "it is larger than {} MB",
            MAX_FILE_BYTES >> 20
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(refuse(format!(
            "it is larger than {} MB",
            MAX_FILE_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// Files held in memory, for tests and fuzzing.
#[derive(Default, Debug, Clone)]
pub struct MemoryFs {
    files: HashMap<PathBuf, String>,
}

impl MemoryFs {
    /// An empty file system.
    pub fn new() -> MemoryFs {
        MemoryFs::default()
    }

    /// Add (or replace) a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) {
        self.files.insert(path.into(), text.into());
    }
}

impl FileSystem for MemoryFs {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
    }
    fn is_dir(&self, path: &Path) -> bool {
        self.files.keys().any(|p| p.starts_with(path) && p != path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.files.contains_key(path) || self.is_dir(path)
    }
}

/// A loaded (not yet checked) game.
#[derive(Debug)]
pub struct Loaded {
    /// Every file read.
    pub sources: SourceMap,
    /// The items, includes expanded.
    pub program: Program,
    /// Problems found while reading, lexing, parsing and lowering.
    pub diagnostics: Vec<Diagnostic>,
    /// The game's directory: no file outside it is read.
    pub root: PathBuf,
    /// The main file.
    pub main: FileId,
}

/// Why a game could not be opened at all (before any source exists to point into).
#[derive(Debug)]
pub struct OpenError {
    /// The path asked for.
    pub path: PathBuf,
    /// What went wrong.
    pub reason: String,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot open game {}: {}",
            self.path.display(),
            self.reason
        )
    }
}

/// The file a game path names: `game.fr` in a directory, or the file itself.
pub fn main_file(fs: &dyn FileSystem, path: &Path) -> PathBuf {
    if fs.is_dir(path) {
        path.join("game.fr")
    } else {
        path.to_path_buf()
    }
}

/// Load the game at `path` (a directory holding `game.fr`, or a `.fr` file).
pub fn load(fs: &dyn FileSystem, path: &Path) -> Result<Loaded, OpenError> {
    load_into(fs, path, SourceMap::new())
}

/// Load the file or game at `path` adding its files to `sources` (a rules file loaded
/// beside a game shares the game's source map, so diagnostics can point into both).
pub fn load_into(
    fs: &dyn FileSystem,
    path: &Path,
    sources: SourceMap,
) -> Result<Loaded, OpenError> {
    let main_path = main_file(fs, path);
    // A file named directly is the user's choice; `game.fr` of a directory must really be
    // in that directory.
    let read = if fs.is_dir(path) {
        fs.read_inside(path, &main_path)
    } else {
        fs.read(&main_path)
    };
    let text = read.map_err(|e| OpenError {
        path: main_path.clone(),
        reason: if fs.is_dir(path) {
            format!("the directory has no game.fr ({e})")
        } else {
            e.to_string()
        },
    })?;
    let root = main_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut loader = Loader {
        fs,
        root: root.clone(),
        sources,
        diagnostics: Vec::new(),
        stack: Vec::new(),
        included: HashMap::new(),
        advice_files: HashMap::new(),
    };
    let main = loader.sources.add(main_path.clone(), text);
    let items = loader.game_file(main, main_path);
    Ok(Loaded {
        sources: loader.sources,
        program: Program { items },
        diagnostics: loader.diagnostics,
        root,
        main,
    })
}

/// Load an advice file on its own (statements only), as `--rules` and the REPL do.
pub fn load_advice_file(
    fs: &dyn FileSystem,
    path: &Path,
    sources: &mut SourceMap,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(FileId, Vec<Expr>), OpenError> {
    let text = fs.read(path).map_err(|e| OpenError {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let file = sources.add(path.to_path_buf(), text);
    let body = parse_advice(sources, diagnostics, file);
    Ok((file, body))
}

struct Loader<'f> {
    fs: &'f dyn FileSystem,
    root: PathBuf,
    sources: SourceMap,
    diagnostics: Vec<Diagnostic>,
    /// Files being included, outermost first, with the directive that included each.
    stack: Vec<(PathBuf, Option<Span>)>,
    /// Files already included, to include each once.
    included: HashMap<PathBuf, FileId>,
    /// Advice files already read.
    advice_files: HashMap<PathBuf, (FileId, Vec<Expr>)>,
}

fn read_errors(file: FileId, errors: Vec<ReadError>, diagnostics: &mut Vec<Diagnostic>) {
    for e in errors {
        diagnostics.push(match e {
            ReadError::TooDeep(range) => Diagnostic::error(
                "nesting-too-deep",
                Span::new(file, range),
                format!(
                    "parentheses nested deeper than {} levels",
                    super::reader::MAX_NESTING
                ),
            )
            .with_hint("split the expression with (var ...) or a #define function"),
            ReadError::Unexpected(range, message) => {
                Diagnostic::error("syntax-error", Span::new(file, range), message)
            }
        });
    }
}

fn parse_game(sources: &SourceMap, diagnostics: &mut Vec<Diagnostic>, file: FileId) -> Vec<Item> {
    let text = sources.file(file).text.clone();
    let (tokens, lex_errors) = lex(file, &text);
    diagnostics.extend(lex_errors);
    let (cst, errors) = read(&tokens, text.len());
    read_errors(file, errors, diagnostics);
    Lowerer::new(file, diagnostics).game_file(&cst)
}

fn parse_advice(sources: &SourceMap, diagnostics: &mut Vec<Diagnostic>, file: FileId) -> Vec<Expr> {
    let text = sources.file(file).text.clone();
    let (tokens, lex_errors) = lex(file, &text);
    diagnostics.extend(lex_errors);
    let (cst, errors) = read(&tokens, text.len());
    read_errors(file, errors, diagnostics);
    Lowerer::new(file, diagnostics).advice_file(&cst)
}

/// Lexically normalise `path` (no `.`; `..` pops), or `None` if it climbs above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

impl Loader<'_> {
    fn game_file(&mut self, file: FileId, path: PathBuf) -> Vec<Item> {
        self.included.insert(path.clone(), file);
        self.stack.push((path.clone(), None));
        let items = parse_game(&self.sources, &mut self.diagnostics, file);
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            self.expand(item, &path, &mut out);
        }
        self.stack.pop();
        out
    }

    /// Resolve `name` (a path written in `from`) inside the game's directory.
    fn resolve(&mut self, name: Name, from: &Path, what: &str) -> Option<PathBuf> {
        let written = name.sym.as_str().to_string();
        let rel = Path::new(&written);
        if rel.is_absolute() || written.starts_with('/') || written.starts_with('\\') {
            self.diagnostics.push(
                Diagnostic::error(
                    "path-outside-game",
                    name.span,
                    format!("absolute {what} path `{written}`"),
                )
                .with_hint(
                    "write paths relative to the file that names them, inside the game's directory",
                ),
            );
            return None;
        }
        // Every path read is the root joined with a normalised relative path, so the part
        // of `from` below the root is known; resolve against that and refuse climbing out.
        let from_rel = from.strip_prefix(&self.root).unwrap_or(from);
        let dir = from_rel.parent().unwrap_or(Path::new(""));
        let inside = normalize(&dir.join(rel)).map(|p| self.root.join(p));
        match inside {
            Some(p) => Some(p),
            None => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "path-outside-game",
                        name.span,
                        format!("{what} path `{written}` leaves the game's directory"),
                    )
                    .with_hint(format!(
                        "every file of a game lives under {}",
                        display_dir(&self.root)
                    )),
                );
                None
            }
        }
    }

    fn missing_file(&mut self, name: Name, path: &Path, what: &str, error: std::io::Error) {
        let written = name.sym.as_str().to_string();
        self.diagnostics.push(
            Diagnostic::error(
                "missing-file",
                name.span,
                format!("cannot read {what} `{written}`: {}", io_reason(&error)),
            )
            .with_label(format!("looked for {}", path.display()))
            .with_hint("paths are relative to the file that names them"),
        );
    }

    fn expand(&mut self, item: Item, from: &Path, out: &mut Vec<Item>) {
        match item {
            Item::Include(name) => self.include(name, from, out),
            Item::Advice(mut advice) => {
                if let AdviceBody::File { path, file, body } = &mut advice.body {
                    let Some(resolved) = self.resolve(*path, from, "advice file") else {
                        return;
                    };
                    if let Some((id, stmts)) = self.advice_files.get(&resolved) {
                        *file = Some(*id);
                        *body = stmts.clone();
                    } else {
                        match self.fs.read_inside(&self.root, &resolved) {
                            Ok(text) => {
                                let id = self.sources.add(resolved.clone(), text);
                                let stmts = parse_advice(&self.sources, &mut self.diagnostics, id);
                                self.advice_files.insert(resolved, (id, stmts.clone()));
                                *file = Some(id);
                                *body = stmts;
                            }
                            Err(e) => {
                                let p = *path;
                                self.missing_file(p, &resolved, "advice file", e);
                                return;
                            }
                        }
                    }
                }
                out.push(Item::Advice(advice));
            }
            Item::Board(mut board) => {
                if let BoardShape::File {
                    path,
                    resolved,
                    file,
                } = &mut board.shape
                {
                    let p = *path;
                    if let Some(full) = self.resolve(p, from, "board file") {
                        match self.fs.read_inside(&self.root, &full) {
                            Ok(text) => {
                                *file = Some(self.sources.add(full.clone(), text));
                                *resolved = Some(full);
                            }
                            Err(e) => self.missing_file(p, &full, "board file", e),
                        }
                    }
                }
                out.push(Item::Board(board));
            }
            other => out.push(other),
        }
    }

    fn include(&mut self, name: Name, from: &Path, out: &mut Vec<Item>) {
        let Some(path) = self.resolve(name, from, "include") else {
            return;
        };
        if let Some(pos) = self.stack.iter().position(|(p, _)| *p == path) {
            let chain = self.stack[pos..]
                .iter()
                .map(|(p, _)| p.display().to_string())
                .chain(std::iter::once(path.display().to_string()))
                .collect::<Vec<_>>()
                .join(" -> ");
            self.diagnostics.push(
                Diagnostic::error("include-cycle", name.span, "this #include makes a cycle")
                    .with_label(format!("cycle: {chain}"))
                    .with_hint("a file cannot include itself, directly or through other files"),
            );
            return;
        }
        if self.included.contains_key(&path) {
            // Included already by another file: its definitions are there once.
            return;
        }
        let text = match self.fs.read_inside(&self.root, &path) {
            Ok(text) => text,
            Err(e) => {
                self.missing_file(name, &path, "included file", e);
                return;
            }
        };
        let file = self.sources.add(path.clone(), text);
        self.included.insert(path.clone(), file);
        self.stack.push((path.clone(), Some(name.span)));
        let items = parse_game(&self.sources, &mut self.diagnostics, file);
        for item in items {
            self.expand(item, &path, out);
        }
        self.stack.pop();
    }
}

fn display_dir(root: &Path) -> String {
    if root.as_os_str().is_empty() {
        ".".to_string()
    } else {
        root.display().to_string()
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::InvalidData => "not UTF-8 text".to_string(),
        // The refusals of `read_regular_file` and `read_inside` say why in full.
        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::PermissionDenied => e
            .get_ref()
            .map_or_else(|| e.to_string(), |inner| inner.to_string()),
        _ => e.to_string(),
    }
}

/// Read statements typed while a game runs (a REPL expression) as a new source `name`.
pub fn parse_text_statements(
    sources: &mut SourceMap,
    name: &str,
    text: &str,
) -> (FileId, Vec<Expr>, Vec<Diagnostic>) {
    let file = sources.add(name, text);
    let mut diagnostics = Vec::new();
    let body = parse_advice(sources, &mut diagnostics, file);
    (file, body, diagnostics)
}

/// Read directives typed while a game runs (a house rule) as a new source `name`.
pub fn parse_text_items(
    sources: &mut SourceMap,
    name: &str,
    text: &str,
) -> (FileId, Vec<Item>, Vec<Diagnostic>) {
    let file = sources.add(name, text);
    let mut diagnostics = Vec::new();
    let items = parse_game(sources, &mut diagnostics, file);
    (file, items, diagnostics)
}
