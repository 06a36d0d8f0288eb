//! `flexrules lsp`: a language server (the Language Server Protocol, over standard input
//! and output) for editors: the checker's diagnostics as the designer types, the usage
//! of a builtin or the comment and parameters of a `#define` on hover, go to the
//! definition of a function, an entity type or an advice file, completion of names, and
//! the outline of a document.
//!
//! A document belongs to a *unit*, checked whole whenever one of its documents changes:
//! the game whose directory (or a parent of it, up to [`GAME_LEVELS`] up) holds a
//! `game.fr` that loads the document; a rules file (a `.fr` beside such a game that the
//! game does not load, or a `.law` or `.se` named by one), checked against the game as
//! `--rules` would put it in force; a `.fr` with no game above it, checked as a game of
//! one file; any other file, only read (syntax). The unit is read through an overlay of
//! the open documents' texts on the disk, so what is checked is what the editor shows.
//! Diagnostics are published for every file of the unit, empty ones included, so a
//! problem fixed in one file disappears from the others.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionResponse, Diagnostic as LspDiagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, NumberOrString, Position, PublishDiagnosticsParams, Range,
    ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};

use crate::compile::builtins::BUILTINS;
use crate::compile::{BuildError, CheckOptions, build_game_with_rules, check_game};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{SourceFile, SourceMap, Span};
use crate::syntax::ast::{AdviceBody, Item, Program};
use crate::syntax::load::{DiskFs, FileSystem, parse_text_statements};

/// How many directories above a document a `game.fr` is looked for.
pub const GAME_LEVELS: usize = 3;

/// An error that ends the server (the connection broke, or the client broke the protocol).
pub type ServerError = Box<dyn std::error::Error + Send + Sync>;

/// Serve on standard input and output until the client says `exit`.
pub fn run_stdio() -> Result<(), ServerError> {
    let (connection, io) = Connection::stdio();
    serve(connection)?;
    io.join()?;
    Ok(())
}

/// Serve on `connection` until the client says `exit` (after `shutdown`).
pub fn serve(connection: Connection) -> Result<(), ServerError> {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp_types::OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions::default()),
        document_symbol_provider: Some(lsp_types::OneOf::Left(true)),
        ..ServerCapabilities::default()
    };
    connection.initialize(serde_json::to_value(capabilities)?)?;
    let mut server = Server::default();
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                let response = server.request(request);
                connection.sender.send(Message::Response(response))?;
            }
            Message::Notification(n) => {
                for published in server.notification(n) {
                    connection.sender.send(Message::Notification(published))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// What the server knows: the open documents and what their units last gave.
#[derive(Default)]
struct Server {
    /// The open documents' texts, by path (made absolute and normal).
    docs: HashMap<PathBuf, String>,
    /// Each unit's files with diagnostics published last time (to clear them).
    published: HashMap<PathBuf, BTreeSet<PathBuf>>,
    /// The last analysis of each open document's unit.
    analyses: HashMap<PathBuf, Analysis>,
}

/// A checked unit: its files and its items.
struct Analysis {
    sources: SourceMap,
    program: Option<Program>,
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
fn normal(path: &Path) -> PathBuf {
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

impl Server {
    /// A document opened, changed, saved or closed: the diagnostics to publish.
    fn notification(&mut self, n: Notification) -> Vec<Notification> {
        use lsp_types::notification::{
            DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
        };
        use lsp_types::{
            DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
            DidSaveTextDocumentParams,
        };
        let changed = match n.method.as_str() {
            DidOpenTextDocument::METHOD => params::<DidOpenTextDocumentParams>(n).and_then(|p| {
                let path = path_of(&p.text_document.uri)?;
                self.docs.insert(path.clone(), p.text_document.text);
                Some(path)
            }),
            DidChangeTextDocument::METHOD => {
                params::<DidChangeTextDocumentParams>(n).and_then(|p| {
                    let path = path_of(&p.text_document.uri)?;
                    // Whole texts only (the sync kind the server asked for): the last one.
                    if let Some(change) = p.content_changes.into_iter().last() {
                        self.docs.insert(path.clone(), change.text);
                    }
                    Some(path)
                })
            }
            DidSaveTextDocument::METHOD => {
                params::<DidSaveTextDocumentParams>(n).and_then(|p| path_of(&p.text_document.uri))
            }
            DidCloseTextDocument::METHOD => {
                if let Some(path) = params::<DidCloseTextDocumentParams>(n)
                    .and_then(|p| path_of(&p.text_document.uri))
                {
                    self.docs.remove(&path);
                    self.analyses.remove(&path);
                }
                None
            }
            _ => None,
        };
        changed.map(|path| self.check(&path)).unwrap_or_default()
    }

    /// Check the unit of the document at `path`; the diagnostics to publish.
    fn check(&mut self, path: &Path) -> Vec<Notification> {
        let unit = self.unit_of(path);
        let (sources, program, diagnostics) = self.diagnose(&unit);
        let mut by_file: BTreeMap<PathBuf, Vec<LspDiagnostic>> = BTreeMap::new();
        for (_, f) in sources.files() {
            by_file.entry(normal(&f.path)).or_default();
        }
        for d in &diagnostics {
            let file = sources.file(d.span.file);
            by_file
                .entry(normal(&file.path))
                .or_default()
                .push(to_lsp(&sources, d));
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
        by_file
            .into_iter()
            .filter_map(|(p, diagnostics)| {
                let uri = Url::from_file_path(&p).ok()?;
                let params = PublishDiagnosticsParams {
                    uri,
                    diagnostics,
                    version: None,
                };
                Some(Notification::new(
                    lsp_types::notification::PublishDiagnostics::METHOD.to_string(),
                    params,
                ))
            })
            .collect()
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

    fn request(&mut self, request: Request) -> Response {
        use lsp_types::request::{Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest};
        let id = request.id.clone();
        let result = match request.method.as_str() {
            HoverRequest::METHOD => {
                serde_json::from_value::<lsp_types::HoverParams>(request.params)
                    .ok()
                    .map(|p| serde_json::to_value(self.hover(&p.text_document_position_params)))
            }
            GotoDefinition::METHOD => {
                serde_json::from_value::<lsp_types::GotoDefinitionParams>(request.params)
                    .ok()
                    .map(|p| {
                        serde_json::to_value(self.definition(&p.text_document_position_params))
                    })
            }
            DocumentSymbolRequest::METHOD => {
                serde_json::from_value::<lsp_types::DocumentSymbolParams>(request.params)
                    .ok()
                    .map(|p| serde_json::to_value(self.outline(&p.text_document.uri)))
            }
            Completion::METHOD => {
                serde_json::from_value::<lsp_types::CompletionParams>(request.params)
                    .ok()
                    .map(|p| serde_json::to_value(self.completion(&p.text_document_position)))
            }
            _ => {
                return Response::new_err(
                    id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("flexrules lsp does not answer {}", request.method),
                );
            }
        };
        match result {
            Some(Ok(value)) => Response::new_ok(id, value),
            _ => Response::new_err(
                id,
                lsp_server::ErrorCode::InvalidParams as i32,
                "the parameters do not fit the request".into(),
            ),
        }
    }

    /// The document at `at`, its analysis and the byte offset of `at` in the file the
    /// analysis loaded for it.
    fn place(
        &self,
        at: &lsp_types::TextDocumentPositionParams,
    ) -> Option<(&Analysis, &SourceFile, crate::source::FileId, usize)> {
        let path = path_of(&at.text_document.uri)?;
        let analysis = self.analyses.get(&path)?;
        let (id, file) = analysis
            .sources
            .files()
            .find(|(_, f)| normal(&f.path) == path)?;
        let offset = offset_of(&file.text, at.position);
        Some((analysis, file, id, offset))
    }

    fn hover(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<Hover> {
        let (analysis, file, _, offset) = self.place(at)?;
        let (word, range) = word_at(&file.text, offset)?;
        let text = if let Some(b) = BUILTINS.iter().find(|b| b.name == word) {
            format!("```\n{}\n```\nbuiltin function", b.usage)
        } else if let Some(f) = functions(analysis).find(|f| f.name.sym.as_str() == word) {
            let params: Vec<&str> = f.params.iter().map(|p| p.sym.as_str()).collect();
            let signature = if params.is_empty() {
                format!("({word})")
            } else {
                format!("({word} {})", params.join(" "))
            };
            let doc = comment_above(analysis.sources.file(f.span.file), f.span.start as usize);
            format!("```\n{signature}\n```\n{doc}")
        } else if let Some(e) = entities(analysis).find(|e| e.name.sym.as_str() == word) {
            let props: Vec<&str> = e.properties.iter().map(|p| p.name.sym.as_str()).collect();
            let states: Vec<&str> = e.states.iter().map(|s| s.name.sym.as_str()).collect();
            format!(
                "entity type `{word}`\n\nproperties: {}\n\nstates: {}",
                if props.is_empty() {
                    "none".into()
                } else {
                    props.join(", ")
                },
                if states.is_empty() {
                    "none".into()
                } else {
                    states.join(", ")
                }
            )
        } else if let Some(text) = label_hover(analysis, word) {
            text
        } else {
            property_hover(analysis, word)?
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(lsp_range(file, range)),
        })
    }

    fn definition(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<Location> {
        let (analysis, file, id, offset) = self.place(at)?;
        let program = analysis.program.as_ref()?;
        // An advice file's path (`is "laws/x.law"`): that file.
        for item in &program.items {
            if let Item::Advice(a) = item
                && let AdviceBody::File {
                    path,
                    file: Some(target),
                    ..
                } = &a.body
                && path.span.file == id
                && (path.span.start as usize..=path.span.end as usize).contains(&offset)
            {
                return location(&analysis.sources, Span::new(*target, 0..0));
            }
        }
        let (word, _) = word_at(&file.text, offset)?;
        if let Some(f) = functions(analysis).find(|f| f.name.sym.as_str() == word) {
            return location(&analysis.sources, f.name.span);
        }
        if let Some(e) = entities(analysis).find(|e| e.name.sym.as_str() == word) {
            return location(&analysis.sources, e.name.span);
        }
        None
    }

    /// The outline of a document: its directives (entity types with their states and
    /// behaviours, functions, laws and side-effects, instances, parameters, boards,
    /// `#setup`, `#actions`), in file order.
    fn outline(&self, uri: &Url) -> Option<lsp_types::DocumentSymbolResponse> {
        use lsp_types::SymbolKind;
        let path = path_of(uri)?;
        let analysis = self.analyses.get(&path)?;
        let (id, file) = analysis
            .sources
            .files()
            .find(|(_, f)| normal(&f.path) == path)?;
        let symbol =
            |name: String, detail: Option<String>, kind, span: Span, at: Span, children| {
                // The range covers the name, which the client selects.
                let whole = span.start.min(at.start) as usize..span.end.max(at.end) as usize;
                #[allow(deprecated)]
                lsp_types::DocumentSymbol {
                    name,
                    detail,
                    kind,
                    tags: None,
                    deprecated: None,
                    range: lsp_range(file, whole),
                    selection_range: lsp_range(file, at.start as usize..at.end as usize),
                    children,
                }
            };
        let mut out = Vec::new();
        for item in analysis.program.iter().flat_map(|p| &p.items) {
            if item.span().file != id {
                continue;
            }
            let found = match item {
                Item::Entity(e) | Item::Representation(e) => {
                    let states = e
                        .states
                        .iter()
                        .map(|st| {
                            let behaviours = st
                                .behaviours
                                .iter()
                                .map(|b| {
                                    let label = b.label.sym.as_str().to_string();
                                    symbol(
                                        label,
                                        Some("#onMessage".into()),
                                        SymbolKind::METHOD,
                                        b.span,
                                        b.label.span,
                                        None,
                                    )
                                })
                                .collect();
                            let span = st.behaviours.iter().fold(st.name.span, |a, b| a.to(b.span));
                            symbol(
                                st.name.sym.as_str().to_string(),
                                Some("#state".into()),
                                SymbolKind::ENUM_MEMBER,
                                span,
                                st.name.span,
                                Some(behaviours),
                            )
                        })
                        .collect();
                    let directive = if matches!(item, Item::Entity(_)) {
                        "#entity"
                    } else {
                        "#representation"
                    };
                    symbol(
                        e.name.sym.as_str().to_string(),
                        Some(directive.into()),
                        SymbolKind::CLASS,
                        e.span,
                        e.name.span,
                        Some(states),
                    )
                }
                Item::Function(f) => {
                    let params: Vec<&str> = f.params.iter().map(|p| p.sym.as_str()).collect();
                    symbol(
                        f.name.sym.as_str().to_string(),
                        Some(format!("({})", params.join(" "))),
                        SymbolKind::FUNCTION,
                        f.span,
                        f.name.span,
                        None,
                    )
                }
                Item::Advice(a) => {
                    let kind = match a.kind {
                        crate::syntax::ast::AdviceKind::Law => "#law",
                        crate::syntax::ast::AdviceKind::SideEffect => "#sideeffect",
                    };
                    let label = match a.label {
                        crate::syntax::ast::Pattern::Any(_) => "*",
                        crate::syntax::ast::Pattern::Name(n) => n.sym.as_str(),
                    };
                    let name = a.name.map_or_else(
                        || format!("on {label} to {}", a.target.sym.as_str()),
                        |n| n.sym.as_str().to_string(),
                    );
                    let at = a.name.map_or(a.target.span, |n| n.span);
                    symbol(name, Some(kind.into()), SymbolKind::EVENT, a.span, at, None)
                }
                Item::Instance(i) => symbol(
                    i.name.sym.as_str().to_string(),
                    Some(format!("#instance of {}", i.ty.sym.as_str())),
                    SymbolKind::OBJECT,
                    i.span,
                    i.name.span,
                    None,
                ),
                Item::Param(p) => symbol(
                    p.name.sym.as_str().to_string(),
                    Some("#param".into()),
                    SymbolKind::CONSTANT,
                    p.span,
                    p.name.span,
                    None,
                ),
                Item::Board(b) => symbol(
                    format!("board of {}", b.ty.sym.as_str()),
                    Some("#board".into()),
                    SymbolKind::NAMESPACE,
                    b.span,
                    b.ty.span,
                    None,
                ),
                Item::Setup(b) => symbol(
                    "#setup".into(),
                    None,
                    SymbolKind::CONSTRUCTOR,
                    b.span,
                    b.span,
                    None,
                ),
                Item::Actions(b) => symbol(
                    "#actions".into(),
                    None,
                    SymbolKind::FUNCTION,
                    b.span,
                    b.span,
                    None,
                ),
                Item::Include(_) => continue,
            };
            out.push(found);
        }
        Some(lsp_types::DocumentSymbolResponse::Nested(out))
    }

    fn completion(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<CompletionResponse> {
        let mut items: Vec<CompletionItem> = BUILTINS
            .iter()
            .map(|b| CompletionItem {
                label: b.name.to_string(),
                kind: Some(CompletionItemKind::FUNCTION),
                detail: Some(b.usage.to_string()),
                ..CompletionItem::default()
            })
            .collect();
        if let Some((analysis, ..)) = self.place(at) {
            for f in functions(analysis) {
                let params: Vec<&str> = f.params.iter().map(|p| p.sym.as_str()).collect();
                items.push(CompletionItem {
                    label: f.name.sym.as_str().to_string(),
                    kind: Some(CompletionItemKind::FUNCTION),
                    detail: Some(format!("({} {})", f.name.sym.as_str(), params.join(" "))),
                    ..CompletionItem::default()
                });
            }
            for e in entities(analysis) {
                items.push(CompletionItem {
                    label: e.name.sym.as_str().to_string(),
                    kind: Some(CompletionItemKind::CLASS),
                    detail: Some("entity type".into()),
                    ..CompletionItem::default()
                });
            }
        }
        Some(CompletionResponse::Array(items))
    }
}

/// What runs when a message labelled `label` arrives: the behaviours that handle it and
/// the laws and side-effects bound to it, in the order they are in force (`None` when
/// nothing names the label).
fn label_hover(a: &Analysis, label: &str) -> Option<String> {
    let program = a.program.as_ref()?;
    let mut behaviours = Vec::new();
    let mut advice = Vec::new();
    for (i, item) in program.items.iter().enumerate() {
        match item {
            Item::Entity(e) | Item::Representation(e) => {
                for st in &e.states {
                    if st.behaviours.iter().any(|b| b.label.sym.as_str() == label) {
                        behaviours.push(format!(
                            "- `{}` in state `{}`",
                            e.name.sym.as_str(),
                            st.name.sym.as_str()
                        ));
                    }
                }
            }
            Item::Advice(d) => {
                let matches = match d.label {
                    crate::syntax::ast::Pattern::Any(_) => true,
                    crate::syntax::ast::Pattern::Name(n) => n.sym.as_str() == label,
                };
                if matches {
                    let kind = match d.kind {
                        crate::syntax::ast::AdviceKind::Law => "law",
                        crate::syntax::ast::AdviceKind::SideEffect => "side-effect",
                    };
                    let name = crate::compile::check::advice_name(d, i);
                    advice.push(format!(
                        "- {kind} \"{name}\" on `{}`",
                        d.target.sym.as_str()
                    ));
                }
            }
            _ => {}
        }
    }
    if behaviours.is_empty() && advice.is_empty() {
        return None;
    }
    // Laws run before the behaviour, side-effects after it.
    advice.sort_by_key(|line| !line.starts_with("- law"));
    let mut text = format!("message `{label}`");
    if !behaviours.is_empty() {
        text.push_str(&format!("\n\nhandled by:\n{}", behaviours.join("\n")));
    }
    if !advice.is_empty() {
        text.push_str(&format!(
            "\n\nlaws and side-effects, in order:\n{}",
            advice.join("\n")
        ));
    }
    Some(text)
}

/// The entity types that declare a property `name`, each with its default as written.
fn property_hover(a: &Analysis, name: &str) -> Option<String> {
    let found: Vec<String> = entities(a)
        .flat_map(|e| {
            e.properties
                .iter()
                .filter(|p| p.name.sym.as_str() == name)
                .map(move |p| {
                    let default = a.sources.text(p.value.span);
                    format!("- `{}`: default `{default}`", e.name.sym.as_str())
                })
        })
        .collect();
    (!found.is_empty()).then(|| format!("property `{name}` of:\n{}", found.join("\n")))
}

/// The `#define`s of an analysis.
fn functions(a: &Analysis) -> impl Iterator<Item = &crate::syntax::ast::FunctionDef> {
    a.program
        .iter()
        .flat_map(|p| &p.items)
        .filter_map(|i| match i {
            Item::Function(f) => Some(f),
            _ => None,
        })
}

/// The `#entity` types of an analysis.
fn entities(a: &Analysis) -> impl Iterator<Item = &crate::syntax::ast::EntityDef> {
    a.program
        .iter()
        .flat_map(|p| &p.items)
        .filter_map(|i| match i {
            Item::Entity(e) => Some(e),
            _ => None,
        })
}

/// The diagnostics of files `base` and after (a rules file's, not its game's).
fn keep_from(diagnostics: Vec<Diagnostic>, base: usize) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter(|d| d.span.file.0 as usize >= base)
        .collect()
}

/// The parameters of a notification, when they are what its method says.
fn params<P: serde::de::DeserializeOwned>(n: Notification) -> Option<P> {
    serde_json::from_value(n.params).ok()
}

/// The path of a `file:` URI, made normal.
fn path_of(uri: &Url) -> Option<PathBuf> {
    uri.to_file_path().ok().map(|p| normal(&p))
}

/// Where `span` is, for the client.
fn location(sources: &SourceMap, span: Span) -> Option<Location> {
    let file = sources.file(span.file);
    let uri = Url::from_file_path(normal(&file.path)).ok()?;
    Some(Location {
        uri,
        range: lsp_range(file, span.start as usize..span.end as usize),
    })
}

/// A diagnostic for the client: its range, severity, code and message (with the hint and
/// the context lines), and its notes as related places.
fn to_lsp(sources: &SourceMap, d: &Diagnostic) -> LspDiagnostic {
    let file = sources.file(d.span.file);
    let mut message = d.message.clone();
    if let Some(label) = &d.label
        && label != &d.message
    {
        message.push_str(&format!("\n{label}"));
    }
    if let Some(hint) = &d.hint {
        message.push_str(&format!("\nhint: {hint}"));
    }
    for line in &d.context {
        message.push_str(&format!("\n{line}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .notes
        .iter()
        .filter_map(|n| {
            Some(DiagnosticRelatedInformation {
                location: location(sources, n.span)?,
                message: n.message.clone(),
            })
        })
        .collect();
    LspDiagnostic {
        range: lsp_range(file, d.span.start as usize..d.span.end as usize),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("flexrules".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..LspDiagnostic::default()
    }
}

/// The client's range (lines from 0, columns in UTF-16 units) of a byte range of `file`.
fn lsp_range(file: &SourceFile, range: std::ops::Range<usize>) -> Range {
    Range {
        start: position_of(&file.text, range.start),
        end: position_of(&file.text, range.end.max(range.start)),
    }
}

/// The client's position of byte `offset` of `text`.
fn position_of(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let column: usize = text[start..offset].chars().map(char::len_utf16).sum();
    Position::new(line as u32, column as u32)
}

/// The byte offset in `text` of the client's `position` (clamped to its line and text).
fn offset_of(text: &str, position: Position) -> usize {
    let mut start = 0;
    for _ in 0..position.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if c == '\n' || units >= position.character as usize {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// Whether `c` may be part of a name (a function, an entity type, a builtin such as `<=`).
fn name_char(c: char) -> bool {
    !(c.is_whitespace() || matches!(c, '(' | ')' | '"' | ';'))
}

/// The name around byte `offset` of `text`, with its byte range.
fn word_at(text: &str, offset: usize) -> Option<(&str, std::ops::Range<usize>)> {
    let offset = offset.min(text.len());
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| name_char(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !name_char(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    (start < end).then(|| (&text[start..end], start..end))
}

/// The comment lines (`;`) just above byte `offset` of `file`, without their `;`.
fn comment_above(file: &SourceFile, offset: usize) -> String {
    let before = &file.text[..offset.min(file.text.len())];
    let mut lines: Vec<&str> = before.lines().collect();
    // The directive's own line, up to where it starts.
    if !before.ends_with('\n') {
        lines.pop();
    }
    let mut doc = Vec::new();
    for line in lines.iter().rev() {
        match line.trim_start().strip_prefix(';') {
            Some(rest) => doc.push(rest.trim_start_matches(';').trim()),
            None => break,
        }
    }
    doc.reverse();
    doc.join("\n")
}
