//! A readable, deterministic text form of the syntax tree, for tests and debugging.
//!
//! The dump is an S-expression named after the AST rather than after the source: a
//! variable read is `(var x)`, a call is `(call f a b)`, a keyword form is
//! `(form SendNew "seed" (var to) (with ("left" 3)))` with its operands in the order of
//! [`FormOp::operands`](super::ast::FormOp::operands), and each directive becomes one
//! node such as `(entity hole (extends pit) (property seeds 4) (state default (on sow)))`.
//! Names are shown by their text; spans are left out except for
//! [`ExprKind::Error`], whose byte range says which text failed. The same tree always
//! gives the same text, so dumps can be compared and stored as snapshots.
//!
//! Boundary: this module only reads the tree. It knows nothing about what names mean.

use std::fmt::Write as _;
use std::path::Path;

use crate::source::{FileId, SourceMap};

use super::ast::Symbol;
use super::ast::{
    AdviceBody, AdviceDef, AdviceKind, Behaviour, Block, BoardDef, BoardShape, EntityDef, Expr,
    ExprKind, FormOp, FunctionDef, InstanceDef, Item, Name, ParamDef, Pattern, Program,
};
use super::load::Loaded;

/// Lines longer than this are broken over several lines.
pub const DEFAULT_WIDTH: usize = 88;

/// Dump a whole program, one top-level node per directive.
pub fn program(program: &Program) -> String {
    Dumper::new().program(program)
}

/// Dump one expression.
pub fn expr(expr: &Expr) -> String {
    Dumper::new().expr(expr)
}

/// Dump a loaded game: its program, with a `; file: <path>` line each time the items
/// start coming from another file, and paths shown relative to the game's directory.
pub fn loaded(loaded: &Loaded) -> String {
    Dumper::new()
        .with_sources(&loaded.sources, &loaded.root)
        .program(&loaded.program)
}

/// Writes dumps. Build it with [`Dumper::new`], optionally give it the sources, then call
/// [`Dumper::program`], [`Dumper::item`] or [`Dumper::expr`].
#[derive(Clone, Copy)]
pub struct Dumper<'a> {
    sources: Option<(&'a SourceMap, &'a Path)>,
    width: usize,
}

/// The tree being laid out: the dump is built as nodes first, then printed.
enum Node {
    /// A word, number or quoted string.
    Atom(String),
    /// A parenthesised list.
    List(Vec<Node>),
    /// A keyword kept on the same line as the node after it (`else <body>`).
    Glue(&'static str, Box<Node>),
}

fn atom(text: impl Into<String>) -> Node {
    Node::Atom(text.into())
}

fn list(head: &str, rest: impl IntoIterator<Item = Node>) -> Node {
    let mut items = vec![atom(head)];
    items.extend(rest);
    Node::List(items)
}

impl Default for Dumper<'_> {
    fn default() -> Self {
        Dumper::new()
    }
}

impl<'a> Dumper<'a> {
    /// A dumper with no source files.
    pub fn new() -> Dumper<'a> {
        Dumper {
            sources: None,
            width: DEFAULT_WIDTH,
        }
    }

    /// Mark where each file's items start, and show resolved paths relative to `root`.
    pub fn with_sources(mut self, sources: &'a SourceMap, root: &'a Path) -> Dumper<'a> {
        self.sources = Some((sources, root));
        self
    }

    /// Break lines longer than `width` characters.
    pub fn with_width(mut self, width: usize) -> Dumper<'a> {
        self.width = width;
        self
    }

    /// Dump every item of `program`, each starting on a new line.
    pub fn program(&self, program: &Program) -> String {
        let mut out = String::new();
        let mut file: Option<FileId> = None;
        for item in &program.items {
            if let Some((sources, _)) = self.sources {
                let here = item.span().file;
                if file != Some(here) {
                    file = Some(here);
                    let _ = writeln!(out, "; file: {}", self.path(&sources.file(here).path));
                }
            }
            out.push_str(&self.item(item));
            out.push('\n');
        }
        out
    }

    /// Dump one item.
    pub fn item(&self, item: &Item) -> String {
        self.layout(&self.item_node(item))
    }

    /// Dump one expression.
    pub fn expr(&self, expr: &Expr) -> String {
        self.layout(&self.expr_node(expr))
    }

    fn layout(&self, node: &Node) -> String {
        let mut out = String::new();
        write_node(node, 0, self.width, &mut out);
        out
    }

    fn text(&self, sym: Symbol) -> &'static str {
        sym.as_str()
    }

    /// A path relative to the game's directory when it lies inside it.
    fn path(&self, path: &Path) -> String {
        let shown = match self.sources {
            Some((_, root)) if !root.as_os_str().is_empty() => {
                path.strip_prefix(root).unwrap_or(path)
            }
            _ => path,
        };
        shown.display().to_string()
    }

    /// A name in a directive position: bare when it reads as an identifier, else quoted.
    fn name(&self, name: Name) -> Node {
        let text = self.text(name.sym);
        if is_plain_name(text) {
            atom(text)
        } else {
            atom(quote(text))
        }
    }

    fn pattern(&self, pattern: Pattern) -> Node {
        match pattern {
            Pattern::Any(_) => atom("*"),
            Pattern::Name(n) => self.name(n),
        }
    }

    fn body<'e>(&'e self, body: &'e [Expr]) -> impl Iterator<Item = Node> + 'e {
        body.iter().map(|e| self.expr_node(e))
    }

    fn item_node(&self, item: &Item) -> Node {
        match item {
            Item::Include(path) => list("include", [atom(quote(self.text(path.sym)))]),
            Item::Entity(e) => self.entity(e, "entity"),
            Item::Representation(r) => self.entity(r, "representation"),
            Item::Instance(i) => self.instance(i),
            Item::Board(b) => self.board(b),
            Item::Advice(a) => self.advice(a),
            Item::Function(f) => self.function(f),
            Item::Param(p) => self.param(p),
            Item::Setup(b) => self.block("setup", b),
            Item::Actions(b) => self.block("actions", b),
            Item::Switch(sw) => list(
                if sw.enable { "enable" } else { "disable" },
                [atom(quote(self.text(sw.name.sym)))],
            ),
        }
    }

    fn entity(&self, e: &EntityDef, head: &str) -> Node {
        let mut items = vec![self.name(e.name)];
        if let Some(parent) = e.extends {
            items.push(list("extends", [self.name(parent)]));
        }
        for p in &e.properties {
            items.push(list(
                "property",
                [self.name(p.name), self.expr_node(&p.value)],
            ));
        }
        for s in &e.states {
            let behaviours = s.behaviours.iter().map(|b| self.behaviour(b));
            items.push(list(
                "state",
                std::iter::once(self.name(s.name)).chain(behaviours),
            ));
        }
        list(head, items)
    }

    fn behaviour(&self, b: &Behaviour) -> Node {
        list(
            "on",
            std::iter::once(self.name(b.label)).chain(self.body(&b.body)),
        )
    }

    fn instance(&self, i: &InstanceDef) -> Node {
        let mut items = vec![self.name(i.name), list("of", [self.name(i.ty)])];
        if !i.properties.is_empty() {
            let pairs = i
                .properties
                .iter()
                .map(|(k, v)| Node::List(vec![self.name(*k), self.expr_node(v)]));
            items.push(list("with", pairs));
        }
        list("instance", items)
    }

    fn board(&self, b: &BoardDef) -> Node {
        let shape = match &b.shape {
            BoardShape::Ring { size, prefix } => list(
                "ring",
                [atom(size.to_string()), list("named", [self.name(*prefix)])],
            ),
            BoardShape::Identification(id) => {
                list("identification", [atom(quote(self.text(id.sym)))])
            }
            BoardShape::File { path, resolved, .. } => {
                let mut items = vec![atom(quote(self.text(path.sym)))];
                match resolved {
                    Some(p) => items.push(list("resolved", [atom(quote(&self.path(p)))])),
                    None => items.push(atom("unresolved")),
                }
                list("file", items)
            }
            BoardShape::Computed { value, ring } => match ring {
                Some(prefix) => list(
                    "ring",
                    [self.expr_node(value), list("named", [self.name(*prefix)])],
                ),
                None => list("computed", [self.expr_node(value)]),
            },
        };
        let mut items = vec![shape, list("of", [self.name(b.ty)])];
        if let Some(n) = b.naming {
            items.push(list("named", [self.name(n)]));
        }
        list("board", items)
    }

    fn advice(&self, a: &AdviceDef) -> Node {
        let kind = match a.kind {
            AdviceKind::Law => "law",
            AdviceKind::SideEffect => "sideeffect",
        };
        let mut items = vec![atom(kind)];
        if let Some(n) = a.name {
            items.push(list("name", [atom(quote(self.text(n.sym)))]));
        }
        items.push(list("label", [self.pattern(a.label)]));
        items.push(list("target", [self.name(a.target)]));
        items.push(list("state", [self.pattern(a.state)]));
        items.push(match &a.body {
            AdviceBody::File { path, file, body } => {
                let mut file_items = vec![atom(quote(self.text(path.sym)))];
                if file.is_none() {
                    file_items.push(atom("unread"));
                }
                file_items.extend(self.body(body));
                list("file", file_items)
            }
            AdviceBody::Inline(body) => list("inline", self.body(body)),
        });
        list("advice", items)
    }

    fn function(&self, f: &FunctionDef) -> Node {
        let params = list("params", f.params.iter().map(|p| self.name(*p)));
        list(
            "define",
            [self.name(f.name), params]
                .into_iter()
                .chain(self.body(&f.body)),
        )
    }

    fn param(&self, p: &ParamDef) -> Node {
        list("param", [self.name(p.name), self.expr_node(&p.value)])
    }

    fn block(&self, head: &str, b: &Block) -> Node {
        list(head, self.body(&b.body))
    }

    fn expr_node(&self, e: &Expr) -> Node {
        match &e.kind {
            ExprKind::Nil => atom("nil"),
            ExprKind::Bool(b) => atom(b.to_string()),
            ExprKind::Int(i) => atom(i.to_string()),
            ExprKind::Float(x) => atom(format!("{x:?}")),
            ExprKind::Str(s) => atom(quote(self.text(*s))),
            ExprKind::Var(s) => list("var", [atom(self.text(*s))]),
            ExprKind::Message => atom("message"),
            ExprKind::Call { func, args } => list(
                "call",
                std::iter::once(atom(self.text(func.sym))).chain(self.body(args)),
            ),
            ExprKind::VarDef { name, value } => {
                list("vardef", [atom(self.text(name.sym)), self.expr_node(value)])
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                let mut items = vec![self.expr_node(cond), self.expr_node(then)];
                if let Some(o) = otherwise {
                    items.push(Node::Glue("else", Box::new(self.expr_node(o))));
                }
                list("if", items)
            }
            ExprKind::Switch {
                value,
                cases,
                default,
            } => {
                let mut items = vec![self.expr_node(value)];
                for (v, body) in cases {
                    items.push(list("case", [self.expr_node(v), self.expr_node(body)]));
                }
                if let Some(d) = default {
                    items.push(list("default", [self.expr_node(d)]));
                }
                list("switch", items)
            }
            ExprKind::Foreach { var, iter, body } => list(
                "foreach",
                [
                    atom(self.text(var.sym)),
                    atom("in"),
                    self.expr_node(iter),
                    self.expr_node(body),
                ],
            ),
            ExprKind::While { cond, body } => {
                list("while", [self.expr_node(cond), self.expr_node(body)])
            }
            ExprKind::Do(items) => list("do", self.body(items)),
            ExprKind::And(items) => list("and", self.body(items)),
            ExprKind::Or(items) => list("or", self.body(items)),
            ExprKind::Return(value) => list("return", value.iter().map(|v| self.expr_node(v))),
            ExprKind::Form { op, args, attrs } => {
                let mut items = vec![atom(format!("{op:?}"))];
                items.extend(self.body(args));
                if *op == FormOp::WaitSignal {
                    // Its clauses, each as written: `(from <player>)`, `(among <list>)`.
                    for (k, v) in attrs {
                        let word = match &k.kind {
                            ExprKind::Str(w) => w.as_str().to_string(),
                            _ => "clause".into(),
                        };
                        items.push(list(&word, [self.expr_node(v)]));
                    }
                } else if !attrs.is_empty() {
                    let pairs = attrs
                        .iter()
                        .map(|(k, v)| Node::List(vec![self.expr_node(k), self.expr_node(v)]));
                    items.push(list("with", pairs));
                }
                list("form", items)
            }
            ExprKind::Error => list("error", [atom(format!("{}..{}", e.span.start, e.span.end))]),
        }
    }
}

/// True when `text` would read back as one identifier (so it needs no quotes).
fn is_plain_name(text: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let start = first.is_ascii_alphabetic() || matches!(first, '_' | '?' | '!');
    start && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '?' | '!' | '-'))
}

/// `text` as a string literal of the language.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `node` on one line.
fn flat(node: &Node, out: &mut String) {
    match node {
        Node::Atom(text) => out.push_str(text),
        Node::Glue(word, next) => {
            out.push_str(word);
            out.push(' ');
            flat(next, out);
        }
        Node::List(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                flat(item, out);
            }
            out.push(')');
        }
    }
}

/// Write `node` starting at column `indent`: on one line when it fits in `width`,
/// otherwise with its leading atoms on the first line and every other child on its own
/// line, indented two more columns.
fn write_node(node: &Node, indent: usize, width: usize, out: &mut String) {
    let mut one_line = String::new();
    flat(node, &mut one_line);
    if indent + one_line.chars().count() <= width {
        out.push_str(&one_line);
        return;
    }
    match node {
        Node::Atom(text) => out.push_str(text),
        Node::Glue(word, next) => {
            out.push_str(word);
            out.push(' ');
            write_node(next, indent + word.len() + 1, width, out);
        }
        Node::List(items) => {
            out.push('(');
            // Leading atoms stay on the first line; a list always has at least one item
            // there, so that the line never ends right after `(`.
            let leading = items
                .iter()
                .take_while(|n| matches!(n, Node::Atom(_)))
                .count()
                .max(1)
                .min(items.len());
            let mut column = indent + 1;
            for (i, item) in items[..leading].iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                    column += 1;
                }
                let start = out.len();
                write_node(item, column, width, out);
                let written = &out[start..];
                column = match written.rfind('\n') {
                    Some(nl) => written[nl + 1..].chars().count(),
                    None => column + written.chars().count(),
                };
            }
            for item in &items[leading..] {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', indent + 2));
                write_node(item, indent + 2, width, out);
            }
            out.push(')');
        }
    }
}
