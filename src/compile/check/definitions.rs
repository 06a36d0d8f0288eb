//! The second pass of the checker over each definition: entity types and their
//! inheritance, representations, instances, boards, functions, parameters, `#setup` and
//! `#actions`.

use super::*;

impl Checker {
    /// Second pass: each definition and all code.
    pub(super) fn check_items(&mut self, items: &[Item]) {
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
                Item::Switch(sw) => self.diags.push(
                    Diagnostic::error(
                        "switch-in-game",
                        sw.span,
                        format!(
                            "#{} belongs in a rules file, not in the game's own files",
                            if sw.enable { "enable" } else { "disable" }
                        ),
                    )
                    .with_hint("remove the rule from the game, or put the directive in a variant or house-rules file"),
                ),
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
                } else {
                    self.repr_running = Some(e.name.sym);
                }
                self.check_code(&b.body, ctx, &[]);
                self.running.clear();
                self.repr_running = None;
            }
        }
    }
}
