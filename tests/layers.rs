//! The layering of the crate's modules, read from the source: lower layers import nothing
//! from higher ones, and in every folder of `src/runtime` and `src/board` the sibling files
//! and folders import each other without circles.
//!
//! Every `.rs` file under `src/` is read (comments and literals blanked out); each
//! `use crate::…`, `use super::…`, `use self::…`, `use <child module>::…` and each path
//! written `crate::…`, `super::…` or `self::…` in code is resolved against the file's own
//! module path (inline `mod name { … }` blocks included) to the file that defines it,
//! following re-exports (`pub use`) of the module it names. Only the layer table below is
//! written down; files are found by walking the tree.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom to top. A module may import its own layer and those below it; a
/// top-level module not named here is in the top layer (`cli`, which alone prints and
/// picks exit codes).
const LAYERS: &[&[&str]] = &[
    &["source", "diagnostic", "symbol"],
    &["board"],
    &["syntax"],
    &["compile"],
    &["runtime"],
    &["repr"],
    &["api"],
    &["play"],
    &["sgf"],
    &["repl"],
    &["serve", "lsp"],
];

/// The directories (under `src/`) in which an import circle among siblings fails the test.
///
/// The rule, at each folder level (the directory itself, then every folder below it in
/// turn): the *units* of a folder are its direct children, a child file (`x.rs`) or a
/// child folder (`x/`) together with everything below it and with its own file `x.rs`
/// beside it, collapsed into one unit. An import from a file of one unit to a file of
/// another is an edge between the two units, and a circle among the units of a folder
/// fails. The folder's own file (its `mod.rs`, or `x.rs` beside the folder `x/`) is no
/// unit at its level: it may import its children and they may import it, which is how a
/// Rust module and its files are written. An import leaving the folder is no edge at its
/// level (a circle through it is one among the units of a folder higher up). The circles
/// inside a child folder are looked for at that folder's level. Imports in `#[cfg(test)]`
/// modules are not counted.
const ACYCLIC: &[&str] = &["runtime", "board"];

fn layer_of(top: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&top))
        .unwrap_or(LAYERS.len())
}

/// One file of the crate.
struct File {
    /// Relative to `src/`, with `/` separators.
    rel: String,
    /// Its module path (`["runtime", "vm"]`).
    module: Vec<String>,
    /// Its text with comments, strings and characters blanked (newlines kept).
    text: String,
}

/// An import found in a file: the absolute path it names and where.
struct Import {
    line: usize,
    path: Vec<String>,
    written: String,
    /// Inside a `#[cfg(test)]` module (unit tests may use anything of their crate below
    /// their layer, circles included).
    test: bool,
}

// ---------------------------------------------------------------------------------------
// Reading the tree

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn module_path(rel: &str) -> Option<Vec<String>> {
    let stem = rel.strip_suffix(".rs")?;
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    match parts.last().map(String::as_str) {
        Some("lib") if parts.len() == 1 => parts.clear(),
        // The binary is its own crate: `crate::` there is not the library.
        Some("main") if parts.len() == 1 => return None,
        Some("mod") => {
            parts.pop();
        }
        _ => {}
    }
    Some(parts)
}

fn read_crate() -> Vec<File> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let module = module_path(&rel)?;
            let raw = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{rel}: {e}"));
            Some(File {
                rel,
                module,
                text: blank(&raw),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Blanking comments and literals

/// The text with comments, string literals and character literals replaced by spaces
/// (newlines kept, so line numbers stay right).
fn blank(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let keep = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let at = |k: usize| c.get(i + k).copied().unwrap_or('\0');
        if at(0) == '/' && at(1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
                out.push(' ');
            }
        } else if at(0) == '/' && at(1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    keep(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if (at(0) == 'r' || (at(0) == 'b' && at(1) == 'r'))
            && (i == 0 || !ident(c[i - 1]))
            && {
                let s = if at(0) == 'b' { 2 } else { 1 };
                let mut k = s;
                while at(k) == '#' {
                    k += 1;
                }
                at(k) == '"' && (k > s || at(s) == '"')
            }
        {
            // A raw string: r"…", r#"…"#, br"…".
            let s = if at(0) == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while at(s + hashes) == '#' {
                hashes += 1;
            }
            let open = s + hashes + 1;
            for _ in 0..open {
                out.push(' ');
            }
            i += open;
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|h| c.get(i + h) == Some(&'#')) {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                keep(&mut out, c[i]);
                i += 1;
            }
        } else if at(0) == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() {
                if c[i] == '\\' {
                    keep(&mut out, c[i]);
                    i += 1;
                    if i < c.len() {
                        keep(&mut out, c[i]);
                        i += 1;
                    }
                } else if c[i] == '"' {
                    out.push(' ');
                    i += 1;
                    break;
                } else {
                    keep(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if at(0) == '\'' && (at(1) == '\\' || at(2) == '\'') {
            // A character literal ('x', '\n', '\u{…}'); a lifetime has no closing quote.
            out.push(' ');
            i += 1;
            while i < c.len() {
                if c[i] == '\\' {
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '\'' {
                    out.push(' ');
                    i += 1;
                    break;
                } else {
                    keep(&mut out, c[i]);
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let mut word: String = c[start..i].iter().collect();
            if let Some(w) = word.strip_prefix("r#") {
                word = w.to_string();
            }
            out.push((Tok::Ident(word), line));
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

fn is_ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

/// The paths of a use tree starting at `toks[*i]`, up to its `;` (which is consumed).
/// Each path comes with the name it brings into scope (`None` for a glob).
fn use_tree(toks: &[(Tok, usize)], i: &mut usize) -> Vec<(Vec<String>, Option<String>)> {
    fn tree(
        toks: &[(Tok, usize)],
        i: &mut usize,
        prefix: &[String],
        out: &mut Vec<(Vec<String>, Option<String>)>,
    ) {
        let mut path = prefix.to_vec();
        loop {
            match toks.get(*i).map(|t| &t.0) {
                Some(Tok::Path) => *i += 1,
                Some(Tok::Ident(s)) if s == "as" => {
                    *i += 1;
                    let alias = is_ident(toks.get(*i)).map(str::to_string);
                    *i += 1;
                    out.push((path, alias));
                    return;
                }
                Some(Tok::Ident(s)) => {
                    path.push(s.clone());
                    *i += 1;
                }
                Some(Tok::Punct('*')) => {
                    *i += 1;
                    out.push((path, None));
                    return;
                }
                Some(Tok::Punct('{')) => {
                    *i += 1;
                    loop {
                        match toks.get(*i).map(|t| &t.0) {
                            Some(Tok::Punct('}')) => {
                                *i += 1;
                                return;
                            }
                            Some(Tok::Punct(',')) => *i += 1,
                            None => return,
                            _ => tree(toks, i, &path, out),
                        }
                    }
                }
                _ => {
                    // The end of this branch: `,`, `}` or `;`.
                    if path.len() > prefix.len() {
                        let mut p = path;
                        if p.last().is_some_and(|s| s == "self") {
                            p.pop();
                        }
                        let name = p.last().cloned();
                        out.push((p, name));
                    }
                    return;
                }
            }
        }
    }
    let mut out = Vec::new();
    tree(toks, i, &[], &mut out);
    while let Some((t, _)) = toks.get(*i) {
        *i += 1;
        if *t == Tok::Punct(';') {
            break;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Resolution

/// What the whole crate knows: modules by path, and each file's top-level `use`s by the
/// name they bring into scope.
struct Crate {
    files: Vec<File>,
    modules: BTreeMap<Vec<String>, usize>,
    scope: Vec<BTreeMap<String, Vec<String>>>,
}

/// Makes `path` (as written in module `cur`) absolute; `None` for a path outside the crate.
fn absolute(
    modules: &BTreeMap<Vec<String>, usize>,
    cur: &[String],
    path: &[String],
) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut base: Vec<String>;
    let mut rest = path;
    match first.as_str() {
        "crate" => {
            base = Vec::new();
            rest = &path[1..];
        }
        "self" => {
            base = cur.to_vec();
            rest = &path[1..];
        }
        "super" => {
            base = cur.to_vec();
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => {
            // A child module of the current one (2018 paths); anything else is another
            // crate or a name in scope.
            let mut child = cur.to_vec();
            child.push(first.clone());
            if !modules.contains_key(&child) {
                return None;
            }
            base = cur.to_vec();
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

impl Crate {
    fn new(files: Vec<File>) -> Crate {
        let modules: BTreeMap<Vec<String>, usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        let mut scope = Vec::new();
        for f in &files {
            let mut names = BTreeMap::new();
            let toks = tokens(&f.text);
            let mut depth = 0usize;
            let mut i = 0;
            while i < toks.len() {
                match &toks[i].0 {
                    Tok::Punct('{') => depth += 1,
                    Tok::Punct('}') => depth = depth.saturating_sub(1),
                    Tok::Ident(s) if s == "use" && depth == 0 => {
                        i += 1;
                        for (path, name) in use_tree(&toks, &mut i) {
                            if let (Some(name), Some(abs)) =
                                (name, absolute(&modules, &f.module, &path))
                            {
                                names.insert(name, abs);
                            }
                        }
                        continue;
                    }
                    _ => {}
                }
                i += 1;
            }
            scope.push(names);
        }
        Crate {
            files,
            modules,
            scope,
        }
    }

    /// The file that defines what the absolute `path` names, following re-exports.
    fn file_of(&self, path: &[String]) -> Option<usize> {
        let mut path = path.to_vec();
        for _ in 0..16 {
            let (len, &file) = (0..=path.len())
                .rev()
                .find_map(|n| self.modules.get(&path[..n]).map(|f| (n, f)))?;
            let Some(name) = path.get(len) else {
                return Some(file);
            };
            match self.scope[file].get(name) {
                Some(target) if !target.is_empty() && *target != path[..=len] => {
                    let mut next = target.clone();
                    next.extend(path[len + 1..].iter().cloned());
                    path = next;
                }
                _ => return Some(file),
            }
        }
        None
    }

    /// Every import of file `f` into the crate, as absolute paths.
    fn imports(&self, f: usize) -> Vec<Import> {
        let file = &self.files[f];
        let toks = tokens(&file.text);
        let mut out = Vec::new();
        // Inline modules open: (name, brace depth inside them, whether under `cfg(test)`).
        let mut inline: Vec<(String, usize, bool)> = Vec::new();
        let mut depth = 0usize;
        let mut i = 0;
        let cur = |inline: &[(String, usize, bool)]| {
            let mut m = file.module.clone();
            m.extend(inline.iter().map(|(n, _, _)| n.clone()));
            m
        };
        let in_test = |inline: &[(String, usize, bool)]| inline.iter().any(|m| m.2);
        while i < toks.len() {
            let (tok, line) = &toks[i];
            match tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    if inline.last().is_some_and(|&(_, d, _)| d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Tok::Ident(s) if s == "mod" => {
                    if let (Some(name), Some((Tok::Punct('{'), _))) =
                        (is_ident(toks.get(i + 1)), toks.get(i + 2))
                    {
                        let attr = [
                            Tok::Punct('#'),
                            Tok::Punct('['),
                            Tok::Ident("cfg".into()),
                            Tok::Punct('('),
                            Tok::Ident("test".into()),
                            Tok::Punct(')'),
                            Tok::Punct(']'),
                        ];
                        // `#[cfg(test)]` before the `mod` (a `pub` or `pub(crate)` between).
                        let test = (i.saturating_sub(12)..i).any(|k| {
                            toks.len() >= k + attr.len()
                                && toks[k..k + attr.len()].iter().map(|t| &t.0).eq(attr.iter())
                        });
                        inline.push((name.to_string(), depth + 1, test));
                        depth += 1;
                        i += 3;
                        continue;
                    }
                }
                Tok::Ident(s) if s == "use" => {
                    let line = *line;
                    i += 1;
                    let here = cur(&inline);
                    for (path, _) in use_tree(&toks, &mut i) {
                        if let Some(abs) = absolute(&self.modules, &here, &path) {
                            out.push(Import {
                                line,
                                written: format!("use {}", path.join("::")),
                                path: abs,
                                test: in_test(&inline),
                            });
                        }
                    }
                    continue;
                }
                Tok::Ident(s)
                    if matches!(toks.get(i + 1), Some((Tok::Path, _)))
                        && !matches!(
                            i.checked_sub(1).and_then(|k| toks.get(k)),
                            Some((Tok::Path | Tok::Punct('$') | Tok::Punct('.'), _))
                        ) =>
                {
                    let start = s.clone();
                    let line = *line;
                    let mut path = vec![start];
                    let mut k = i + 1;
                    while let (Some((Tok::Path, _)), Some(name)) =
                        (toks.get(k), is_ident(toks.get(k + 1)))
                    {
                        path.push(name.to_string());
                        k += 2;
                    }
                    let here = cur(&inline);
                    let relative = matches!(path[0].as_str(), "crate" | "super" | "self");
                    if (relative || path.len() > 1)
                        && let Some(abs) = absolute(&self.modules, &here, &path)
                    {
                        out.push(Import {
                            line,
                            written: path.join("::"),
                            path: abs,
                            test: in_test(&inline),
                        });
                    }
                    i = k;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// The checks

fn layer_violations(krate: &Crate) -> Vec<String> {
    let mut found = Vec::new();
    for (f, file) in krate.files.iter().enumerate() {
        let Some(top) = file.module.first() else {
            continue;
        };
        let own = layer_of(top);
        if own == LAYERS.len() {
            continue;
        }
        for imp in krate.imports(f) {
            let named = imp.path.first().map(String::as_str).unwrap_or("");
            let reached = krate
                .file_of(&imp.path)
                .and_then(|t| krate.files[t].module.first().cloned())
                .unwrap_or_default();
            for target in [named, reached.as_str()] {
                if !target.is_empty() && target != top && layer_of(target) > own {
                    found.push(format!(
                        "src/{}:{}: `{}` reaches `{}` (layer {}) from `{}` (layer {})",
                        file.rel,
                        imp.line,
                        imp.written,
                        target,
                        layer_of(target),
                        top,
                        own
                    ));
                    break;
                }
            }
        }
    }
    found
}

/// An import graph over numbered nodes: for each node, the nodes it imports, each with
/// what shows the edge.
type Graph<E> = BTreeMap<usize, BTreeMap<usize, E>>;

/// The file-level import graph of the files under the `roots` directories: for each file,
/// the files it imports, with the first import line that does it.
fn graph(krate: &Crate, roots: &[&str]) -> Graph<(usize, String)> {
    let inside = |f: usize| {
        roots
            .iter()
            .any(|d| krate.files[f].module.first().is_some_and(|m| m == d))
    };
    let mut g: Graph<(usize, String)> = BTreeMap::new();
    for f in (0..krate.files.len()).filter(|&f| inside(f)) {
        let edges = g.entry(f).or_default();
        for imp in krate.imports(f).into_iter().filter(|i| !i.test) {
            if let Some(t) = krate.file_of(&imp.path)
                && t != f
                && inside(t)
            {
                edges.entry(t).or_insert((imp.line, imp.written));
            }
        }
    }
    g
}

/// The strongly connected components of more than one node (Tarjan).
fn circles<E>(g: &Graph<E>) -> Vec<Vec<usize>> {
    struct State<'g, E> {
        g: &'g Graph<E>,
        index: BTreeMap<usize, usize>,
        low: BTreeMap<usize, usize>,
        stack: Vec<usize>,
        on: BTreeSet<usize>,
        out: Vec<Vec<usize>>,
    }
    fn visit<E>(s: &mut State<E>, v: usize) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        let next: Vec<usize> =
            s.g.get(&v)
                .map(|e| e.keys().copied().collect())
                .unwrap_or_default();
        for w in next {
            if !s.index.contains_key(&w) {
                visit(s, w);
                let l = s.low[&v].min(s.low[&w]);
                s.low.insert(v, l);
            } else if s.on.contains(&w) {
                let l = s.low[&v].min(s.index[&w]);
                s.low.insert(v, l);
            }
        }
        if s.low[&v] == s.index[&v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(&w);
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in g.keys() {
        if !s.index.contains_key(&v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// One circle through the first node of the component `comp`: the nodes along it, the
/// first and the last the same.
fn one_circle<E>(g: &Graph<E>, comp: &[usize]) -> Vec<usize> {
    let members: BTreeSet<usize> = comp.iter().copied().collect();
    let start = comp[0];
    // Breadth-first from `start` back to `start`, inside the component.
    let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut end = None;
    'search: while let Some(v) = queue.pop_front() {
        for &w in g[&v].keys().filter(|w| members.contains(w)) {
            if w == start {
                end = Some(v);
                break 'search;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    let mut path = vec![start];
    let mut v = end.expect("a component has a circle");
    while v != start {
        path.push(v);
        v = prev[&v];
    }
    path.push(start);
    path.reverse();
    path
}

/// A circle among the units of one folder (see [`ACYCLIC`] for the rule).
struct Circle {
    /// The folder, relative to `src/` (`runtime/vm/`).
    folder: String,
    /// The units on the circle, sorted: `x.rs` for a file, `x/` for a folder (with
    /// everything below it, and its own file `x.rs` if it has one).
    units: Vec<String>,
    /// One way round the circle, each step with the import that makes it.
    steps: Vec<String>,
}

impl Circle {
    fn describe(&self) -> String {
        format!(
            "circle among the units of src/{}: {}:\n{}",
            self.folder,
            self.units.join(", "),
            self.steps.join("\n")
        )
    }
}

/// The unit of folder `level` that holds the file of module path `module`: the child of
/// `level` it is or lies under. `None` for the folder's own file and for files outside it.
fn unit_of<'m>(module: &'m [String], level: &[String]) -> Option<&'m str> {
    (module.len() > level.len() && module.starts_with(level)).then(|| module[level.len()].as_str())
}

/// The circles among sibling units, at every folder level of the files of `g` (a file
/// graph from [`graph`]).
fn sibling_circles(krate: &Crate, g: &Graph<(usize, String)>) -> Vec<Circle> {
    let module = |f: usize| krate.files[f].module.as_slice();
    // The folder levels: every proper prefix of a file's module path (a file directly in
    // `src/` is no level's unit: the roots are the top levels).
    let levels: BTreeSet<&[String]> = g
        .keys()
        .flat_map(|&f| (1..module(f).len()).map(move |k| &module(f)[..k]))
        .collect();
    let mut out = Vec::new();
    for level in levels {
        let names: Vec<&str> = g
            .keys()
            .filter_map(|&f| unit_of(module(f), level))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let number =
            |f: usize| unit_of(module(f), level).map(|u| names.binary_search(&u).expect("a unit"));
        // The units' graph, each edge with the first import between files that makes it.
        let mut units: Graph<(usize, usize)> =
            (0..names.len()).map(|u| (u, BTreeMap::new())).collect();
        for (&f, edges) in g {
            let Some(from) = number(f) else { continue };
            for &t in edges.keys() {
                if let Some(to) = number(t)
                    && to != from
                {
                    units
                        .get_mut(&from)
                        .expect("a unit")
                        .entry(to)
                        .or_insert((f, t));
                }
            }
        }
        let folder = |u: usize| {
            g.keys().any(|&f| {
                module(f).len() > level.len() + 1 && unit_of(module(f), level) == Some(names[u])
            })
        };
        for comp in circles(&units) {
            let steps = one_circle(&units, &comp)
                .windows(2)
                .map(|w| {
                    let (f, t) = units[&w[0]][&w[1]];
                    let (line, written) = &g[&f][&t];
                    format!(
                        "  src/{}:{}: `{}` -> src/{}",
                        krate.files[f].rel, line, written, krate.files[t].rel
                    )
                })
                .collect();
            out.push(Circle {
                folder: format!("{}/", level.join("/")),
                units: comp
                    .iter()
                    .map(|&u| format!("{}{}", names[u], if folder(u) { "/" } else { ".rs" }))
                    .collect(),
                steps,
            });
        }
    }
    out
}

#[test]
fn lower_layers_import_nothing_from_higher_ones() {
    let krate = Crate::new(read_crate());
    assert!(
        krate.files.len() > 20,
        "the source tree was not found ({} files)",
        krate.files.len()
    );
    let found = layer_violations(&krate);
    assert!(
        found.is_empty(),
        "imports that run up the layers ({}):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The layers the play layer reaches only through the public game API (`api`), which
/// publishes what a search needs of them.
const BELOW_THE_API: &[&str] = &["syntax", "compile", "runtime", "repr", "board"];

#[test]
fn the_play_layer_uses_the_game_api_and_nothing_beneath_it() {
    let krate = Crate::new(read_crate());
    let mut found = Vec::new();
    let mut play_files = 0;
    for (f, file) in krate.files.iter().enumerate() {
        if file.module.first().map(String::as_str) != Some("play") {
            continue;
        }
        play_files += 1;
        for imp in krate.imports(f) {
            let named = imp.path.first().map(String::as_str).unwrap_or("");
            if BELOW_THE_API.contains(&named) {
                found.push(format!("src/{}:{}: `{}`", file.rel, imp.line, imp.written));
            }
        }
    }
    assert!(play_files > 3, "src/play/ was not found");
    assert!(
        found.is_empty(),
        "the play layer reaches beneath the game API ({}):\n{}\nhint: publish what it needs in src/api/ (search.rs)",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn runtime_and_board_siblings_import_each_other_without_circles() {
    let krate = Crate::new(read_crate());
    let g = graph(&krate, ACYCLIC);
    assert!(g.len() > 10, "the runtime and board files were not found");
    let found: Vec<String> = sibling_circles(&krate, &g)
        .iter()
        .map(Circle::describe)
        .collect();
    assert!(
        found.is_empty(),
        "import circles among siblings ({}):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The reader itself: `super::` inside an inline module, use trees, literals.
#[test]
fn imports_are_read_as_the_compiler_resolves_them() {
    let text = blank(
        "use super::a::{b, c::{self, D as E}};\n\
         // use crate::x::Y;\n\
         const S: &str = \"crate::z::W\";\n\
         fn f<'a>(_: &'a u8) -> char { 'c' }\n\
         mod tests { use super::*; fn g() { super::super::q::R::new(); } }\n",
    );
    let files = vec![
        File {
            rel: "m/n.rs".into(),
            module: vec!["m".into(), "n".into()],
            text,
        },
        File {
            rel: "m/a.rs".into(),
            module: vec!["m".into(), "a".into()],
            text: String::new(),
        },
        File {
            rel: "m/q.rs".into(),
            module: vec!["m".into(), "q".into()],
            text: String::new(),
        },
    ];
    let krate = Crate::new(files);
    let found: Vec<(usize, String)> = krate
        .imports(0)
        .into_iter()
        .map(|i| (i.line, i.path.join("::")))
        .collect();
    let want: Vec<(usize, String)> = vec![
        (1, "m::a::b".into()),
        (1, "m::a::c".into()),
        (1, "m::a::c::D".into()),
        (5, "m::n".into()),
        (5, "m::q::R::new".into()),
    ];
    assert_eq!(found, want);
    assert_eq!(
        krate.file_of(&found[4].1.split("::").map(String::from).collect::<Vec<_>>()),
        Some(2)
    );
}

/// The circle rule on a made-up tree: a module's own file and its children may import
/// each other, siblings may not, a folder is one unit at its parent's level, and the
/// siblings inside a folder are checked at its own level.
#[test]
fn circles_are_looked_for_among_siblings() {
    let file = |rel: &str, text: &str| File {
        rel: rel.into(),
        module: module_path(rel).expect("a module"),
        text: blank(text),
    };
    let files = vec![
        // The folder's own file and a child importing each other: allowed.
        file(
            "r/mod.rs",
            "mod a; mod b; mod c; mod d; mod f; use a::A; pub struct T;",
        ),
        file("r/a.rs", "use super::T; pub struct A;"),
        // Two sibling files importing each other: a circle.
        file("r/b.rs", "use super::c::C; pub struct B;"),
        file("r/c.rs", "pub struct C; fn f() { super::b::B; }"),
        // The folder `d/` with its own file `d.rs` is one unit: `d/e.rs` imports `f.rs`,
        // which imports `d.rs`, a circle between the units `d/` and `f.rs` though no file
        // is on a circle of files.
        file("r/d.rs", "mod e; mod g; mod h; pub struct D;"),
        file("r/d/e.rs", "use super::D; use crate::r::f::F;"),
        file("r/f.rs", "use crate::r::d::D; pub struct F;"),
        // Inside `d/`, two siblings importing each other: a circle at that level.
        file("r/d/g.rs", "use super::h::H; pub struct G;"),
        file("r/d/h.rs", "use super::g::G; pub struct H;"),
        // Outside the roots: not looked at.
        file("s/mod.rs", "use crate::r::T;"),
        file("s/x.rs", "use super::y::Y;"),
        file("s/y.rs", "use super::x::X;"),
    ];
    let krate = Crate::new(files);
    let g = graph(&krate, &["r"]);
    let rel = |f: &usize| krate.files[*f].rel.as_str();
    assert!(
        !circles(&g).iter().flatten().any(|f| rel(f) == "r/f.rs"),
        "f.rs is on no circle of files"
    );
    let found = sibling_circles(&krate, &g);
    let units: Vec<(&str, Vec<&str>)> = found
        .iter()
        .map(|c| {
            let units = c.units.iter().map(String::as_str).collect();
            (c.folder.as_str(), units)
        })
        .collect();
    let want: Vec<(&str, Vec<&str>)> = vec![
        ("r/", vec!["b.rs", "c.rs"]),
        ("r/", vec!["d/", "f.rs"]),
        ("r/d/", vec!["g.rs", "h.rs"]),
    ];
    assert_eq!(units, want);
    assert_eq!(
        found[0].steps,
        [
            "  src/r/b.rs:1: `use super::c::C` -> src/r/c.rs",
            "  src/r/c.rs:1: `super::b::B` -> src/r/b.rs",
        ]
    );
    assert_eq!(
        found[1].steps,
        [
            "  src/r/d/e.rs:1: `use crate::r::f::F` -> src/r/f.rs",
            "  src/r/f.rs:1: `use crate::r::d::D` -> src/r/d.rs",
        ]
    );
}
