//! Static checks run before anything executes.
//!
//! Duplicate definitions, inheritance, the targets of advice, instances, boards and
//! representations, unbound variables, unknown functions and argument counts. Every
//! problem is reported; checking never stops at the first.

use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diagnostic::{Diagnostic, closest};
use crate::source::Span;
use crate::syntax::ast::{
    AdviceDef, AdviceKind, BoardShape, EntityDef, Expr, ExprKind, FormOp, Item, Name, Pattern,
    Symbol,
};
use crate::syntax::load::Loaded;

use super::builtins::{self, FORM_NAMES};

/// What the checker may assume about the world the game runs in.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Warn about advice bound to labels or states nothing uses.
    pub lint_unused_patterns: bool,
}

/// Where a piece of code runs, which decides the forms it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    /// A behaviour of an entity, or advice.
    Entity,
    /// A behaviour of a representation.
    Representation,
    /// A `#define`d function (called from either).
    Function,
    /// `#setup`, `#actions`.
    Game,
    /// A `#property`, `#param` or `#instance` value.
    Value,
}

struct TypeInfo {
    def_span: Span,
    extends: Option<Name>,
    states: FxHashSet<Symbol>,
}

/// Check a loaded game. Returns the diagnostics (errors and warnings) found.
pub fn check(loaded: &Loaded, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut c = Checker::new();
    let items = &loaded.program.items;
    c.collect(items, Some(&loaded.sources));
    c.lint = options.lint_unused_patterns;
    c.check_items(items);
    if options.lint_unused_patterns {
        c.lint_patterns(items);
        c.lint_keys();
    }
    c.diags
}

/// Code added to a game while it runs.
#[derive(Clone, Copy, Debug)]
pub enum Snippet<'a> {
    /// Statements run as the user (a REPL expression).
    User(&'a [Expr]),
    /// A law or side-effect added as a house rule.
    Advice(&'a AdviceDef),
}

/// Check code added to a running game against the game's definitions: unbound names,
/// unknown functions, argument counts, and for advice its target, with the warnings
/// `flexrules check` gives (a label no behaviour handles, a state the target lacks).
pub fn check_snippet(
    program: &crate::syntax::ast::Program,
    advice_in_force: &[String],
    snippet: Snippet<'_>,
) -> Vec<Diagnostic> {
    let mut c = Checker::new();
    c.collect(&program.items, None);
    c.lint = true;
    if let Snippet::Advice(_) = snippet {
        // The game's code is walked for what the lints of advice need to know of it (the
        // labels it sends); what it finds in the game itself was reported when the game
        // was checked.
        c.check_items(&program.items);
    }
    c.diags.clear();
    c.base_advice = advice_in_force.iter().cloned().collect();
    match snippet {
        Snippet::User(body) => c.check_code(body, Context::Game, &[]),
        Snippet::Advice(a) => {
            let mut names = FxHashMap::default();
            c.check_advice(a, 0, &mut names);
            // The lints `flexrules check` runs on the game's own advice.
            c.lint_advice(a);
        }
    }
    c.diags
}

struct Checker {
    diags: Vec<Diagnostic>,
    types: FxHashMap<Symbol, TypeInfo>,
    /// Function name -> (parameter count, definition).
    functions: FxHashMap<Symbol, (usize, Span)>,
    /// Instance name -> (type, where it was made).
    instances: FxHashMap<Symbol, (Symbol, Span)>,
    /// A board whose cell names are only known when it is built.
    open_boards: bool,
    /// Boards built when the game starts: the prefix of a ring's cells, or `None` for a
    /// grid. Their cells' names are known only then, but their form is known now.
    late_boards: Vec<Option<Symbol>>,
    /// Every label some behaviour handles.
    labels: FxHashSet<Symbol>,
    /// Names of advice already in force (when checking a rules file against a game).
    base_advice: FxHashSet<String>,
    /// Board cells configured by an #instance.
    configured: FxHashSet<Symbol>,
    /// Advice files already checked.
    checked_files: FxHashSet<crate::source::FileId>,
    /// The entity types and instances every directive binding an advice file names.
    file_targets: FxHashMap<crate::source::FileId, Vec<Symbol>>,
    /// The entity types and instances the code being checked can run as (a behaviour's
    /// type, an advice's targets); empty where any entity or the user can run it.
    running: Vec<Symbol>,
    /// Every label code sends as a constant (`send new message "l"`, `new message "l"`),
    /// noted while linting.
    sent_labels: FxHashSet<Symbol>,
    /// Every label some advice is bound to, and whether some advice takes any label.
    advice_labels: FxHashSet<Symbol>,
    any_label_advice: bool,
    /// Whether to warn about code as `flexrules check` does (lints).
    lint: bool,
    /// The attribute keys code gives messages (`with`, `update message attribute`), and
    /// whether some key is not a constant (then any key may be given).
    given_keys: FxHashSet<Symbol>,
    any_key_given: bool,
    /// The attribute keys code reads, as constants, and where.
    read_keys: Vec<(Symbol, Span)>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            diags: Vec::new(),
            types: FxHashMap::default(),
            functions: FxHashMap::default(),
            instances: FxHashMap::default(),
            open_boards: false,
            late_boards: Vec::new(),
            labels: FxHashSet::default(),
            checked_files: FxHashSet::default(),
            configured: FxHashSet::default(),
            base_advice: FxHashSet::default(),
            file_targets: FxHashMap::default(),
            running: Vec::new(),
            sent_labels: FxHashSet::default(),
            advice_labels: FxHashSet::default(),
            any_label_advice: false,
            lint: false,
            given_keys: FxHashSet::default(),
            any_key_given: false,
            read_keys: Vec::new(),
        }
    }

    fn text(&self, sym: Symbol) -> &'static str {
        sym.as_str()
    }

    fn duplicate(&mut self, code: &'static str, what: &str, name: Name, first: Span) {
        let text = self.text(name.sym).to_string();
        self.diags.push(
            Diagnostic::error(code, name.span, format!("{what} `{text}` is defined twice"))
                .with_note(first, "first defined here")
                .with_hint(format!(
                    "rename or remove one of the two definitions of `{text}`"
                )),
        );
    }

    /// First pass: every global name.
    fn collect(&mut self, items: &[Item], sources: Option<&crate::source::SourceMap>) {
        for item in items {
            match item {
                Item::Entity(e) => self.collect_entity(e),
                Item::Function(f) => {
                    let text = self.text(f.name.sym);
                    let what = if FORM_NAMES.contains(&text) {
                        Some("starts a built-in form")
                    } else if builtins::lookup(text).is_some() {
                        Some("is a builtin function")
                    } else {
                        None
                    };
                    if let Some(what) = what {
                        self.diags.push(
                            Diagnostic::error(
                                "reserved-name",
                                f.name.span,
                                format!("`{text}` {what} and cannot be redefined"),
                            )
                            .with_hint("choose another name for the function"),
                        );
                        continue;
                    }
                    match self.functions.entry(f.name.sym) {
                        Entry::Occupied(o) => {
                            let first = o.get().1;
                            self.duplicate("duplicate-function", "function", f.name, first);
                        }
                        Entry::Vacant(v) => {
                            v.insert((f.params.len(), f.name.span));
                        }
                    }
                }
                Item::Representation(r) => {
                    for state in &r.states {
                        self.labels
                            .extend(state.behaviours.iter().map(|b| b.label.sym));
                    }
                }
                Item::Advice(a) => {
                    if let crate::syntax::ast::AdviceBody::File { file: Some(id), .. } = &a.body {
                        self.file_targets.entry(*id).or_default().push(a.target.sym);
                    }
                    match a.label {
                        Pattern::Name(label) => {
                            self.advice_labels.insert(label.sym);
                        }
                        Pattern::Any(_) => self.any_label_advice = true,
                    }
                }
                _ => {}
            }
        }
        // Board cells first: an #instance naming a cell of its own type sets that cell's
        // initial properties instead of making a second entity.
        for item in items {
            if let Item::Board(b) = item {
                self.collect_board(b, sources);
            }
        }
        let cells: FxHashMap<Symbol, (Symbol, Span)> = self.instances.clone();
        for item in items {
            if let Item::Instance(i) = item {
                match cells.get(&i.name.sym) {
                    Some(&(ty, _)) if ty == i.ty.sym && !self.configured.contains(&i.name.sym) => {
                        self.configured.insert(i.name.sym);
                    }
                    Some(&(ty, board)) if ty != i.ty.sym => {
                        let (name, cell_ty) = (self.text(i.name.sym), self.text(ty));
                        self.diags.push(
                            Diagnostic::error(
                                "duplicate-instance",
                                i.name.span,
                                format!("`{name}` is already a cell of type `{cell_ty}` made by a #board"),
                            )
                            .with_note(board, "the board that makes it")
                            .with_hint(format!("an #instance can set a board cell's properties only with the cell's own type: #instance {name} of {cell_ty} with ...")),
                        );
                    }
                    _ => self.add_instance(i.name, i.ty.sym),
                }
            }
        }
    }

    fn collect_entity(&mut self, e: &EntityDef) {
        match self.types.entry(e.name.sym) {
            Entry::Occupied(o) => {
                let first = o.get().def_span;
                self.duplicate("duplicate-entity", "entity type", e.name, first);
            }
            Entry::Vacant(v) => {
                v.insert(TypeInfo {
                    def_span: e.name.span,
                    extends: e.extends,
                    states: e.states.iter().map(|s| s.name.sym).collect(),
                });
            }
        }
        for state in &e.states {
            self.labels
                .extend(state.behaviours.iter().map(|b| b.label.sym));
        }
    }

    fn add_instance(&mut self, name: Name, ty: Symbol) {
        match self.instances.entry(name.sym) {
            Entry::Occupied(o) => {
                let first = o.get().1;
                self.duplicate("duplicate-instance", "instance", name, first);
            }
            Entry::Vacant(v) => {
                v.insert((ty, name.span));
            }
        }
    }

    fn collect_board(
        &mut self,
        b: &crate::syntax::ast::BoardDef,
        sources: Option<&crate::source::SourceMap>,
    ) {
        let empty = crate::source::SourceMap::new();
        if let BoardShape::Computed { ring, .. } = &b.shape {
            self.late_boards.push(ring.map(|p| p.sym));
            if let Err(d) = super::boards::naming(b) {
                self.diags.push(*d);
            }
            return;
        }
        if let BoardShape::File { file: None, .. } = b.shape {
            // The loader could not read it and said so; its cells are unknown.
            self.open_boards = true;
            return;
        }
        if sources.is_none() && matches!(b.shape, BoardShape::File { .. }) {
            // Checking a snippet: the board file is not at hand, its cells are known at
            // run time only.
            self.open_boards = true;
            return;
        }
        match super::boards::build(b, sources.unwrap_or(&empty)) {
            Ok((board, warnings)) => {
                if sources.is_some() {
                    self.diags.extend(warnings);
                }
                for c in board.cells() {
                    let sym = board.cell_name(c);
                    self.add_instance(Name { sym, span: b.span }, b.ty.sym);
                }
            }
            Err(d) => {
                if sources.is_some() {
                    self.diags.push(*d);
                }
            }
        }
    }

    /// Second pass: each definition and all code.
    fn check_items(&mut self, items: &[Item]) {
        let mut params: FxHashMap<Symbol, Span> = FxHashMap::default();
        let mut advice_names: FxHashMap<String, Span> = FxHashMap::default();
        let mut representations: FxHashMap<Symbol, Span> = FxHashMap::default();
        let mut actions: Option<Span> = None;
        let mut advice_count = 0usize;
        for item in items {
            match item {
                Item::Include(_) => {}
                Item::Entity(e) => {
                    self.check_extends(e);
                    self.check_entity_body(e, Context::Entity);
                }
                Item::Representation(r) => {
                    self.require_type(r.name, "#representation");
                    match representations.entry(r.name.sym) {
                        Entry::Occupied(o) => {
                            let first = *o.get();
                            self.duplicate(
                                "duplicate-representation",
                                "representation of",
                                r.name,
                                first,
                            );
                        }
                        Entry::Vacant(v) => {
                            v.insert(r.name.span);
                        }
                    }
                    self.check_entity_body(r, Context::Representation);
                }
                Item::Instance(i) => {
                    self.require_type(i.ty, "#instance");
                    let mut seen: FxHashMap<Symbol, Span> = FxHashMap::default();
                    for (key, value) in &i.properties {
                        if let Some(first) = seen.insert(key.sym, key.span) {
                            self.duplicate("duplicate-property", "property", *key, first);
                        }
                        self.check_code(std::slice::from_ref(value), Context::Value, &[]);
                    }
                }
                Item::Board(b) => {
                    self.require_type(b.ty, "#board");
                    if let BoardShape::Computed { value, .. } = &b.shape {
                        self.check_code(std::slice::from_ref(value), Context::Value, &[]);
                    }
                }
                Item::Advice(a) => {
                    advice_count += 1;
                    self.check_advice(a, advice_count, &mut advice_names);
                }
                Item::Function(f) => {
                    let mut seen: FxHashMap<Symbol, Span> = FxHashMap::default();
                    for p in &f.params {
                        if let Some(first) = seen.insert(p.sym, p.span) {
                            self.duplicate("duplicate-parameter", "parameter", *p, first);
                        }
                    }
                    let params: Vec<Symbol> = f.params.iter().map(|p| p.sym).collect();
                    self.check_code(&f.body, Context::Function, &params);
                }
                Item::Param(p) => {
                    match params.entry(p.name.sym) {
                        Entry::Occupied(o) => {
                            let first = *o.get();
                            self.duplicate("duplicate-param", "parameter", p.name, first);
                        }
                        Entry::Vacant(v) => {
                            v.insert(p.name.span);
                        }
                    }
                    self.check_code(std::slice::from_ref(&p.value), Context::Value, &[]);
                }
                Item::Setup(b) => self.check_code(&b.body, Context::Game, &[]),
                Item::Actions(b) => {
                    if let Some(first) = actions {
                        self.diags.push(
                            Diagnostic::error("duplicate-actions", b.span, "a second #actions")
                                .with_note(first, "the first #actions")
                                .with_hint("a game has one #actions expression; combine them with (concat ...)"),
                        );
                    }
                    actions = Some(b.span);
                    self.check_code(&b.body, Context::Game, &[]);
                }
            }
        }
    }

    fn require_type(&mut self, name: Name, directive: &str) {
        if self.types.contains_key(&name.sym) {
            return;
        }
        let text = self.text(name.sym).to_string();
        let mut d = Diagnostic::error(
            "unknown-entity-type",
            name.span,
            format!("{directive} names unknown entity type `{text}`"),
        );
        let names: Vec<&str> = self.types.keys().map(|s| self.text(*s)).collect();
        d = match closest(&text, names.iter().copied()) {
            Some(c) => d.with_hint(format!("did you mean `{c}`?")),
            None => d.with_hint(format!("define it with `#entity {text}`")),
        };
        self.diags.push(d);
    }

    fn check_extends(&mut self, e: &EntityDef) {
        let Some(parent) = e.extends else { return };
        if !self.types.contains_key(&parent.sym) {
            self.require_type(parent, "#extends");
            return;
        }
        // Walk up from the parent; meeting `e` again is a cycle. Each cycle is reported
        // once, at the member whose #extends is written first.
        let mut seen = vec![e.name.sym];
        let mut cur = Some(parent.sym);
        while let Some(t) = cur {
            if t == e.name.sym {
                let first_in_cycle = seen
                    .iter()
                    .filter_map(|s| self.types.get(s).map(|i| i.def_span))
                    .min_by_key(|s| (s.file, s.start));
                if first_in_cycle == Some(e.name.span) {
                    let chain = seen
                        .iter()
                        .chain(std::iter::once(&e.name.sym))
                        .map(|s| self.text(*s))
                        .collect::<Vec<_>>()
                        .join(" -> ");
                    self.diags.push(
                        Diagnostic::error(
                            "inheritance-cycle",
                            parent.span,
                            format!("entity types inherit from each other: {chain}"),
                        )
                        .with_hint("remove one #extends to break the cycle"),
                    );
                }
                return;
            }
            if seen.contains(&t) {
                return; // a cycle further up, reported there
            }
            seen.push(t);
            cur = self.types.get(&t).and_then(|i| i.extends.map(|n| n.sym));
        }
    }

    fn check_entity_body(&mut self, e: &EntityDef, ctx: Context) {
        let mut props: FxHashMap<Symbol, Span> = FxHashMap::default();
        for p in &e.properties {
            if let Some(first) = props.insert(p.name.sym, p.name.span) {
                self.duplicate("duplicate-property", "property", p.name, first);
            }
            self.check_code(std::slice::from_ref(&p.value), Context::Value, &[]);
        }
        let mut states: FxHashMap<Symbol, Span> = FxHashMap::default();
        let mut behaviours: FxHashMap<(Symbol, Symbol), Span> = FxHashMap::default();
        for state in &e.states {
            if let Some(first) = states.insert(state.name.sym, state.name.span) {
                self.duplicate("duplicate-state", "state", state.name, first);
            }
            for b in &state.behaviours {
                if let Some(first) = behaviours.insert((state.name.sym, b.label.sym), b.label.span)
                {
                    let (ty, st, label) = (
                        self.text(e.name.sym).to_string(),
                        self.text(state.name.sym).to_string(),
                        self.text(b.label.sym).to_string(),
                    );
                    self.diags.push(
                        Diagnostic::error(
                            "duplicate-behaviour",
                            b.label.span,
                            format!("`{ty}` already handles `{label}` in state `{st}`"),
                        )
                        .with_note(first, "first behaviour here")
                        .with_hint("one behaviour per type, state and label; put extra rules in a #law or #sideeffect"),
                    );
                }
                if ctx == Context::Entity {
                    self.running = vec![e.name.sym];
                }
                self.check_code(&b.body, ctx, &[]);
                self.running.clear();
            }
        }
    }

    fn check_advice(&mut self, a: &AdviceDef, index: usize, names: &mut FxHashMap<String, Span>) {
        let target_known =
            self.types.contains_key(&a.target.sym) || self.instances.contains_key(&a.target.sym);
        let late_cell = self
            .late_boards
            .iter()
            .any(|ring| could_be_cell(*ring, self.text(a.target.sym)));
        if !target_known && !self.open_boards && !late_cell {
            let text = self.text(a.target.sym).to_string();
            let directive = match a.kind {
                AdviceKind::Law => "#law",
                AdviceKind::SideEffect => "#sideeffect",
            };
            let candidates: Vec<&str> = self
                .types
                .keys()
                .chain(self.instances.keys())
                .map(|s| self.text(*s))
                .collect();
            let mut d = Diagnostic::error(
                "unknown-advice-target",
                a.target.span,
                format!(
                    "{directive} binds to `{text}`, which is neither an entity type nor an instance"
                ),
            );
            d = match closest(&text, candidates.iter().copied()) {
                Some(c) => d.with_hint(format!("did you mean `{c}`?")),
                // The label and the state take a wildcard; the entity does not.
                None if text == "*" => {
                    let mut types: Vec<&str> = self.types.keys().map(|s| self.text(*s)).collect();
                    types.sort_unstable();
                    d.with_hint(format!(
                        "the entity cannot be a wildcard: name an #entity type to reach all its \
                         instances (this game's types: {})",
                        types.join(", ")
                    ))
                }
                None => d.with_hint(
                    "advice binds to an #entity type (all its instances) or one instance",
                ),
            };
            self.diags.push(d);
        }
        let name = advice_name(a, index);
        let span = a.name.map_or(a.span, |n| n.span);
        let replaced = a.replaces.map(|r| r.sym.as_str().to_string());
        if let Some(r) = a.replaces
            && !names.contains_key(r.sym.as_str())
            && !self.base_advice.contains(r.sym.as_str())
        {
            let known: Vec<&str> = names
                .keys()
                .map(String::as_str)
                .chain(self.base_advice.iter().map(String::as_str))
                .collect();
            let mut d = Diagnostic::error(
                "unknown-advice",
                r.span,
                format!("no law or side-effect named `{}` to replace", r.sym),
            );
            d = match closest(r.sym.as_str(), known.iter().copied()) {
                Some(c) => d.with_hint(format!("did you mean `{c}`?")),
                None => d.with_hint("`replaces` names a law or side-effect defined before it"),
            };
            self.diags.push(d);
        }
        match names.entry(name.clone()) {
            Entry::Occupied(_) if replaced.as_deref() == Some(name.as_str()) => {}
            Entry::Occupied(o) => {
                self.diags.push(
                    Diagnostic::error(
                        "duplicate-advice",
                        span,
                        format!("two pieces of advice are named `{name}`"),
                    )
                    .with_note(*o.get(), "the first one")
                    .with_hint("give one an explicit name: #law \"<name>\" on ..."),
                );
            }
            Entry::Vacant(v) => {
                v.insert(span);
            }
        }
        // A file bound by several directives is checked once, as the code of every
        // entity they bind it to.
        self.running = vec![a.target.sym];
        if let crate::syntax::ast::AdviceBody::File { file: Some(id), .. } = &a.body {
            if !self.checked_files.insert(*id) {
                self.running.clear();
                return;
            }
            if let Some(targets) = self.file_targets.get(id) {
                self.running.extend(targets.iter().copied());
            }
        }
        self.check_code(a.body.statements(), Context::Entity, &[]);
        self.running.clear();
    }

    fn lint_patterns(&mut self, items: &[Item]) {
        for item in items {
            if let Item::Advice(a) = item {
                self.lint_advice(a);
            }
        }
    }

    /// Warn about a law or side-effect bound to a label no behaviour handles and no code
    /// sends (it would never run), or to a state its target's type (or the type of its
    /// target instance) does not declare.
    fn lint_advice(&mut self, a: &AdviceDef) {
        if let Pattern::Name(label) = a.label
            && !self.labels.contains(&label.sym)
            && !self.sent_labels.contains(&label.sym)
        {
            let text = self.text(label.sym).to_string();
            let labels: Vec<&str> = self
                .labels
                .iter()
                .chain(&self.sent_labels)
                .map(|s| self.text(*s))
                .collect();
            let mut d = Diagnostic::warning(
                "unknown-label",
                label.span,
                format!("no behaviour handles label `{text}`, and no code sends it"),
            );
            if let Some(c) = closest(&text, labels.iter().copied()) {
                d = d.with_hint(format!("did you mean `{c}`?"));
            }
            self.diags.push(d);
        }
        let ty = if self.types.contains_key(&a.target.sym) {
            Some(a.target.sym)
        } else {
            self.instances.get(&a.target.sym).map(|(t, _)| *t)
        };
        if let (Pattern::Name(state), Some(ty)) = (a.state, ty)
            && let Some(info) = self.types.get(&ty)
            && !info.states.contains(&state.sym)
            && !self.ancestor_has_state(ty, state.sym)
        {
            let text = self.text(state.sym).to_string();
            let ty = self.text(ty).to_string();
            let states: Vec<&str> = info.states.iter().map(|s| self.text(*s)).collect();
            let mut d = Diagnostic::warning(
                "unknown-state",
                state.span,
                format!("entity type `{ty}` declares no state `{text}`"),
            );
            if let Some(c) = closest(&text, states.iter().copied()) {
                d = d.with_hint(format!("did you mean `{c}`?"));
            }
            self.diags.push(d);
        }
    }

    fn ancestor_has_state(&self, ty: Symbol, state: Symbol) -> bool {
        self.ancestors(ty)
            .any(|(_, info)| info.states.contains(&state))
    }

    /// The types `ty` extends, nearest first, as far as they are defined (at most as many
    /// as there are types, so a loop of `#extends`, reported elsewhere, ends).
    fn ancestors(&self, ty: Symbol) -> impl Iterator<Item = (Symbol, &TypeInfo)> {
        let parent = |t: Symbol| self.types.get(&t).and_then(|i| i.extends.map(|n| n.sym));
        std::iter::successors(parent(ty), move |&t| parent(t))
            .take(self.types.len())
            .map_while(|t| self.types.get(&t).map(|info| (t, info)))
    }

    fn check_code(&mut self, body: &[Expr], ctx: Context, params: &[Symbol]) {
        let mut scope = Scope {
            locals: params.to_vec(),
        };
        for e in body {
            self.expr(e, ctx, &mut scope);
        }
    }

    fn expr(&mut self, e: &Expr, ctx: Context, scope: &mut Scope) {
        match &e.kind {
            ExprKind::Nil
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Message
            | ExprKind::Error => {}
            ExprKind::Var(sym) => {
                if !scope.locals.contains(sym) {
                    self.unbound(*sym, e.span, scope);
                }
            }
            ExprKind::Call { func, args } => {
                for a in args {
                    self.expr(a, ctx, scope);
                }
                self.call(*func, args.len(), e.span);
            }
            ExprKind::VarDef { name, value } => {
                self.expr(value, ctx, scope);
                scope.declare(name.sym);
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond, ctx, scope);
                self.expr(then, ctx, scope);
                if let Some(o) = otherwise {
                    self.expr(o, ctx, scope);
                }
            }
            ExprKind::Switch {
                value,
                cases,
                default,
            } => {
                self.expr(value, ctx, scope);
                for (v, body) in cases {
                    self.expr(v, ctx, scope);
                    self.expr(body, ctx, scope);
                }
                if let Some(d) = default {
                    self.expr(d, ctx, scope);
                }
            }
            ExprKind::Foreach { var, iter, body } => {
                self.expr(iter, ctx, scope);
                scope.declare(var.sym);
                self.expr(body, ctx, scope);
            }
            ExprKind::While { cond, body } => {
                self.expr(cond, ctx, scope);
                self.expr(body, ctx, scope);
            }
            ExprKind::Do(items) | ExprKind::And(items) | ExprKind::Or(items) => {
                for i in items {
                    self.expr(i, ctx, scope);
                }
            }
            ExprKind::Return(value) => {
                if let Some(v) = value {
                    self.expr(v, ctx, scope);
                }
            }
            ExprKind::Form { op, args, attrs } => {
                for (i, a) in args.iter().enumerate() {
                    // A bare word where a property name goes is a property written
                    // without its quotes, not a variable someone forgot to declare.
                    let names_property = i == 0
                        && matches!(
                            op,
                            FormOp::Property
                                | FormOp::PropertyOf
                                | FormOp::UpdateProperty
                                | FormOp::UpdatePropertyOf
                                | FormOp::NewProperty
                        );
                    if let (true, ExprKind::Var(sym)) = (names_property, &a.kind)
                        && !scope.locals.contains(sym)
                    {
                        let name = self.text(*sym);
                        self.diags.push(
                            Diagnostic::error(
                                "unbound-name",
                                a.span,
                                format!("`{name}` is not a variable here"),
                            )
                            .with_hint(format!(
                                "property names are strings in code: write \"{name}\""
                            )),
                        );
                        continue;
                    }
                    self.expr(a, ctx, scope);
                }
                for (k, v) in attrs {
                    self.expr(k, ctx, scope);
                    self.expr(v, ctx, scope);
                }
                self.form_context(*op, ctx, e.span);
                if *op == FormOp::UpdatePropertyOf
                    && let Some(Expr {
                        kind: ExprKind::Str(target),
                        ..
                    }) = args.get(1)
                {
                    self.private_update(*target, args.first(), e.span);
                }
                if self.lint {
                    self.note_keys(*op, args, attrs);
                }
                if self.lint
                    && matches!(op, FormOp::SendNew | FormOp::NewMessage)
                    && let Some(Expr {
                        kind: ExprKind::Str(label),
                        span,
                    }) = args.first()
                {
                    self.sent_labels.insert(*label);
                    self.unhandled_label(*label, *span);
                }
            }
        }
    }

    /// Warn about `(update property p of "e" to v)` in code that can never run as `e`:
    /// properties are private, so it would fail whenever it ran.
    fn private_update(&mut self, target: Symbol, name: Option<&Expr>, span: Span) {
        let Some(&(ty, _)) = self.instances.get(&target) else {
            return;
        };
        if self.running.is_empty()
            || self
                .running
                .iter()
                .any(|&r| r == target || r == ty || self.descends_from(ty, r))
        {
            return;
        }
        let mut runners: Vec<&str> = self.running.iter().map(|r| self.text(*r)).collect();
        runners.sort_unstable();
        runners.dedup();
        let property = match name.map(|n| &n.kind) {
            Some(ExprKind::Str(p)) => format!("property \"{}\"", self.text(*p)),
            _ => "a property".to_string(),
        };
        let (target, runners) = (self.text(target), runners.join(", "));
        self.diags.push(
            Diagnostic::warning(
                "private-update",
                span,
                format!(
                    "this code runs as {runners}, which cannot update {property} of {target}: \
                     properties are private"
                ),
            )
            .with_hint(format!(
                "send {target} a message and let its own behaviour change the property"
            )),
        );
    }

    /// Warn about a message made with a label that no behaviour handles and no advice is
    /// bound to, when the label is a near miss of one that is: sent, it would do nothing,
    /// and it is most likely a typo. (A label unlike any other may be a hook left for
    /// rules files, or a game still being written.)
    fn unhandled_label(&mut self, label: Symbol, span: Span) {
        if self.any_label_advice
            || self.labels.contains(&label)
            || self.advice_labels.contains(&label)
        {
            return;
        }
        let text = self.text(label);
        let known: Vec<&str> = self
            .labels
            .iter()
            .chain(&self.advice_labels)
            .map(|s| self.text(*s))
            .collect();
        if let Some(c) = closest(text, known.iter().copied()) {
            self.diags.push(
                Diagnostic::warning(
                    "unhandled-message",
                    span,
                    format!("no behaviour handles label `{text}`, and no advice is bound to it"),
                )
                .with_hint(format!("did you mean `{c}`?")),
            );
        }
    }

    /// Note the attribute keys a form gives messages or reads, for [`Checker::lint_keys`].
    fn note_keys(&mut self, op: FormOp, args: &[Expr], attrs: &[(Expr, Expr)]) {
        let given: Vec<&Expr> = match op {
            FormOp::SendNew | FormOp::NewMessage => attrs.iter().map(|(k, _)| k).collect(),
            FormOp::UpdateAttribute => args.first().into_iter().collect(),
            FormOp::Attribute | FormOp::AttributeOf => {
                if let Some(Expr {
                    kind: ExprKind::Str(k),
                    span,
                }) = args.first()
                {
                    self.read_keys.push((*k, *span));
                }
                return;
            }
            _ => return,
        };
        for k in given {
            match k.kind {
                ExprKind::Str(k) => {
                    self.given_keys.insert(k);
                }
                _ => self.any_key_given = true,
            }
        }
    }

    /// Warn about an attribute read with a key no code gives a message, when the key is a
    /// near miss of one some code does give: it would always read nil, most likely a typo.
    /// (A key unlike any given may come with messages from outside: the REPL, the board.)
    fn lint_keys(&mut self) {
        if self.any_key_given {
            return;
        }
        let given: Vec<&str> = self.given_keys.iter().map(|k| self.text(*k)).collect();
        for &(key, span) in &self.read_keys {
            if self.given_keys.contains(&key) {
                continue;
            }
            let text = self.text(key);
            if let Some(c) = closest(text, given.iter().copied()) {
                self.diags.push(
                    Diagnostic::warning(
                        "unknown-attribute",
                        span,
                        format!("no message is given attribute `{text}` (reading it gives nil)"),
                    )
                    .with_hint(format!("did you mean `{c}`?")),
                );
            }
        }
    }

    /// Whether type `ty` extends `ancestor`, directly or through others.
    fn descends_from(&self, ty: Symbol, ancestor: Symbol) -> bool {
        self.ancestors(ty).any(|(t, _)| t == ancestor)
    }

    fn form_context(&mut self, op: FormOp, ctx: Context, span: Span) {
        use FormOp::*;
        let drawing = matches!(
            op,
            NewGraphic | UpdateGraphic | DeleteGraphic | Observe | OnClickNotify | OnClickEmit
        );
        if drawing && matches!(ctx, Context::Entity | Context::Game | Context::Value) {
            self.diags.push(
                Diagnostic::error(
                    "drawing-outside-representation",
                    span,
                    "only a #representation draws and observes",
                )
                .with_hint("move this into a #representation of the entity type; entities change properties and representations observe them"),
            );
        }
    }

    fn call(&mut self, func: Name, argc: usize, span: Span) {
        let text = self.text(func.sym);
        if let Some(b) = builtins::lookup(text) {
            if b.name == "dict" && argc % 2 == 1 {
                self.diags.push(
                    Diagnostic::error(
                        "wrong-arity",
                        span,
                        format!(
                            "`dict` takes keys and values in pairs, but {argc} arguments given"
                        ),
                    )
                    .with_hint(format!("usage: {}", b.usage)),
                );
            }
            if !b.arity.accepts(argc) {
                let name = b.name;
                self.diags.push(
                    Diagnostic::error(
                        "wrong-arity",
                        span,
                        format!("`{name}` takes {}, but {argc} given", b.arity.describe()),
                    )
                    .with_hint(format!("usage: {}", b.usage)),
                );
            }
            return;
        }
        if let Some(&(params, def)) = self.functions.get(&func.sym) {
            if params != argc {
                let name = text.to_string();
                let plural = if params == 1 { "" } else { "s" };
                self.diags.push(
                    Diagnostic::error(
                        "wrong-arity",
                        span,
                        format!("`{name}` takes {params} argument{plural}, but {argc} given"),
                    )
                    .with_note(def, "defined here"),
                );
            }
            return;
        }
        let name = text.to_string();
        let candidates = builtins::BUILTINS
            .iter()
            .map(|b| b.name)
            .chain(FORM_NAMES.iter().copied())
            .chain(self.functions.keys().map(|s| s.as_str()));
        let mut d = Diagnostic::error(
            "unknown-function",
            func.span,
            format!("unknown function `{name}`"),
        );
        d = match closest(&name, candidates) {
            Some(c) => d.with_hint(format!("did you mean `{c}`?")),
            None => d.with_hint(format!(
                "define it with `#define {name} (<parameters>) <body>`"
            )),
        };
        self.diags.push(d);
    }

    fn unbound(&mut self, sym: Symbol, span: Span, scope: &Scope) {
        let name = self.text(sym).to_string();
        let mut d = Diagnostic::error(
            "unbound-name",
            span,
            format!("`{name}` is not a variable here"),
        );
        let global = self.types.contains_key(&sym)
            || self.instances.contains_key(&sym)
            || self.labels.contains(&sym)
            || self.types.values().any(|t| t.states.contains(&sym));
        d = if global {
            d.with_hint(format!(
                "names of entities, states, labels and properties are strings in code: write \"{name}\""
            ))
        } else if let Some(c) = closest(&name, scope.locals.iter().map(|s| s.as_str())) {
            d.with_hint(format!("did you mean `{c}`?"))
        } else if builtins::lookup(&name).is_some() || self.functions.contains_key(&sym) {
            d.with_hint(format!("`{name}` is a function: call it as ({name} ...)"))
        } else {
            d.with_hint(format!(
                "declare it first with (var {name} <value>); locals live for one behaviour or advice"
            ))
        };
        self.diags.push(d);
    }
}

/// The locals visible at a point of a body: declared by `var`, `foreach` or as parameters,
/// textually before the point.
struct Scope {
    locals: Vec<Symbol>,
}

impl Scope {
    fn declare(&mut self, sym: Symbol) {
        if !self.locals.contains(&sym) {
            self.locals.push(sym);
        }
    }
}

/// The name of an advice: its explicit name, else its file's stem, else
/// `<entity>/<label>/<state>#<n>` where `n` counts the advice directives from 1.
pub fn advice_name(a: &AdviceDef, index: usize) -> String {
    if let Some(n) = a.name {
        return n.sym.as_str().to_string();
    }
    if let crate::syntax::ast::AdviceBody::File { path, .. } = &a.body {
        let p = std::path::Path::new(path.sym.as_str());
        if let Some(stem) = p.file_stem() {
            return stem.to_string_lossy().into_owned();
        }
    }
    let pat = |p: Pattern| match p {
        Pattern::Any(_) => "*".to_string(),
        Pattern::Name(n) => n.sym.as_str().to_string(),
    };
    format!(
        "{}/{}/{}#{index}",
        a.target.sym.as_str(),
        pat(a.label),
        pat(a.state)
    )
}

/// Whether `name` has the form of a cell of a board built at start: `<prefix><number>` for
/// a ring with that prefix, and for a grid file letters then a rank number (`d4`, `aa10`),
/// after a level (`B`, 3D) or a board column and row (`B3`, 4D).
fn could_be_cell(ring: Option<Symbol>, name: &str) -> bool {
    // A number as a cell name writes it: digits, no leading zero.
    fn number(s: &str) -> bool {
        s == "0" || !s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit())
    }
    match ring {
        Some(prefix) => name.strip_prefix(prefix.as_str()).is_some_and(number),
        None => {
            let rest = name.trim_start_matches(|c: char| c.is_ascii_uppercase());
            let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            let rank = rest.trim_start_matches(|c: char| c.is_ascii_lowercase());
            rank.len() < rest.len() && rank != "0" && number(rank)
        }
    }
}
