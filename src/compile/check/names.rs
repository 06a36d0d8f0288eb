//! Names written as string literals in code, checked against what the game declares:
//! entity names (instances, board cells, entities made by `new entity` with a literal
//! name), entity type names, property names (against the types whose code it is) and the
//! states `changeState` sets.
//!
//! The facts are gathered in one walk over the game's code after `collect`
//! ([`Checker::gather`], which also notes what [`super::truth`] needs); each form is then
//! checked where `code` meets it ([`Checker::check_names`]).

use super::*;

/// What the game's code says about names, gathered before any code is checked.
#[derive(Default)]
pub(super) struct NameFacts {
    /// `#property` names of each entity type, as declared in its own block.
    type_props: FxHashMap<Symbol, FxHashSet<Symbol>>,
    /// `#property` names and `#state` names of each representation.
    repr_props: FxHashMap<Symbol, FxHashSet<Symbol>>,
    repr_states: FxHashSet<Symbol>,
    /// The properties an `#instance ... with` gives each instance.
    instance_props: FxHashMap<Symbol, FxHashSet<Symbol>>,
    /// Properties made by code: `(new property "p" as v)`, `(new entity n of t with "p" v)`.
    made_props: FxHashSet<Symbol>,
    /// Some code makes a property whose name is not a literal: any name may exist.
    any_prop: bool,
    /// Entities made by `(new entity "n" of t)` with a literal name.
    made_entities: FxHashSet<Symbol>,
    /// Some code makes an entity whose name is not a literal.
    computed_entities: bool,
    /// Every property name any type, representation, instance or code declares.
    all_props: FxHashSet<Symbol>,
    /// Every state any entity type or representation declares.
    all_states: FxHashSet<Symbol>,
    /// The types of board cells, which a board gives `coords`, `links`, `turns` and (joChess boards) `family`.
    cell_types: FxHashSet<Symbol>,
    /// Whether the game makes any entity (an #instance, a #board, a `new entity`): a game
    /// that makes none is a fragment, whose entity names are not checked.
    makes_entities: bool,
}

/// The properties a board gives each of its cells.
const CELL_PROPS: &[&str] = &["coords", "links", "turns", "family"];

/// Which operand of a form or builtin names an entity.
fn entity_operand_of_form(op: FormOp) -> Option<usize> {
    use FormOp::*;
    match op {
        PropertyOf | UpdatePropertyOf | SendNew | Send => Some(1),
        Forward | StateOf | TypeOf | DeleteEntity => Some(0),
        _ => None,
    }
}

/// The builtins whose first argument is a cell (an entity) name.
const CELL_BUILTINS: &[&str] = &["neighbor", "walk", "ray", "directions"];

/// Every expression of `e`, `e` first.
pub(super) fn visit(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Call { args, .. } => args.iter().for_each(|a| visit(a, f)),
        ExprKind::VarDef { value, .. } => visit(value, f),
        ExprKind::If {
            cond,
            then,
            otherwise,
        } => {
            visit(cond, f);
            visit(then, f);
            if let Some(o) = otherwise {
                visit(o, f);
            }
        }
        ExprKind::Switch {
            value,
            cases,
            default,
        } => {
            visit(value, f);
            for (v, b) in cases {
                visit(v, f);
                visit(b, f);
            }
            if let Some(d) = default {
                visit(d, f);
            }
        }
        ExprKind::Foreach { iter, body, .. } => {
            visit(iter, f);
            visit(body, f);
        }
        ExprKind::While { cond, body } => {
            visit(cond, f);
            visit(body, f);
        }
        ExprKind::Do(items) | ExprKind::And(items) | ExprKind::Or(items) => {
            items.iter().for_each(|i| visit(i, f))
        }
        ExprKind::Return(Some(v)) => visit(v, f),
        ExprKind::Form { args, attrs, .. } => {
            args.iter().for_each(|a| visit(a, f));
            for (k, v) in attrs {
                visit(k, f);
                visit(v, f);
            }
        }
        _ => {}
    }
}

/// The literal text of `e`, when it is a string literal.
pub(super) fn literal(e: Option<&Expr>) -> Option<Symbol> {
    match e.map(|e| &e.kind) {
        Some(ExprKind::Str(s)) => Some(*s),
        _ => None,
    }
}

impl Checker {
    /// Gather the facts of [`NameFacts`] and [`super::truth::Numbers`] from every item.
    pub(super) fn gather(&mut self, items: &[Item]) {
        let mut seen_files = FxHashSet::default();
        for item in items {
            match item {
                Item::Entity(e) | Item::Representation(e) => {
                    let repr = matches!(item, Item::Representation(_));
                    let props: FxHashSet<Symbol> =
                        e.properties.iter().map(|p| p.name.sym).collect();
                    self.names.all_props.extend(props.iter().copied());
                    self.names
                        .all_states
                        .extend(e.states.iter().map(|s| s.name.sym));
                    if repr {
                        self.names
                            .repr_states
                            .extend(e.states.iter().map(|s| s.name.sym));
                        self.names
                            .repr_props
                            .entry(e.name.sym)
                            .or_default()
                            .extend(props);
                    } else {
                        self.names
                            .type_props
                            .entry(e.name.sym)
                            .or_default()
                            .extend(props);
                    }
                    for p in &e.properties {
                        self.note_property_value(p.name.sym, &p.value);
                        self.gather_code(std::slice::from_ref(&p.value));
                    }
                    for s in &e.states {
                        for b in &s.behaviours {
                            self.gather_code(&b.body);
                        }
                    }
                }
                Item::Instance(i) => {
                    self.names.makes_entities = true;
                    let set = self.names.instance_props.entry(i.name.sym).or_default();
                    set.extend(i.properties.iter().map(|(k, _)| k.sym));
                    for (k, v) in &i.properties {
                        self.names.all_props.insert(k.sym);
                        self.note_property_value(k.sym, v);
                        self.gather_code(std::slice::from_ref(v));
                    }
                }
                Item::Board(b) => {
                    self.names.makes_entities = true;
                    self.names.cell_types.insert(b.ty.sym);
                    self.names
                        .all_props
                        .extend(CELL_PROPS.iter().map(|p| Symbol::intern(p)));
                    if let BoardShape::Computed { value, .. } = &b.shape {
                        self.gather_code(std::slice::from_ref(value));
                    }
                }
                Item::Advice(a) => {
                    let file = match &a.body {
                        crate::syntax::ast::AdviceBody::File { file, .. } => *file,
                        _ => None,
                    };
                    if file.is_none_or(|id| seen_files.insert(id)) {
                        self.gather_code(a.body.statements());
                    }
                }
                Item::Function(f) => self.gather_code(&f.body),
                Item::Param(p) => self.gather_code(std::slice::from_ref(&p.value)),
                Item::Setup(b) | Item::Actions(b) => self.gather_code(&b.body),
                Item::Include(_) | Item::Switch(_) => {}
            }
        }
    }

    /// Gather from code (also the code of an advice added to a running game).
    pub(super) fn gather_code(&mut self, body: &[Expr]) {
        for e in body {
            visit(e, &mut |e| {
                if let ExprKind::Form { op, args, attrs } = &e.kind {
                    self.gather_form(*op, args, attrs);
                }
            });
        }
    }

    fn gather_form(&mut self, op: FormOp, args: &[Expr], attrs: &[(Expr, Expr)]) {
        match op {
            FormOp::NewProperty => match literal(args.first()) {
                Some(p) => {
                    self.names.made_props.insert(p);
                    self.names.all_props.insert(p);
                }
                None => self.names.any_prop = true,
            },
            FormOp::NewEntity => {
                self.names.makes_entities = true;
                match literal(args.first()) {
                    Some(n) => {
                        self.names.made_entities.insert(n);
                    }
                    None => self.names.computed_entities = true,
                }
                for (k, v) in attrs {
                    match literal(Some(k)) {
                        Some(p) => {
                            self.names.made_props.insert(p);
                            self.names.all_props.insert(p);
                            self.note_property_value(p, v);
                        }
                        None => self.names.any_prop = true,
                    }
                }
            }
            _ => {}
        }
        self.note_numbers(op, args, attrs);
    }

    /// Whether some code makes a property whose name is computed.
    pub(super) fn names_any_prop(&self) -> bool {
        self.names.any_prop
    }

    /// Check the names a game-model form gives as literals.
    pub(super) fn check_names(&mut self, op: FormOp, args: &[Expr], ctx: Context) {
        if let Some(i) = entity_operand_of_form(op)
            && let Some(arg) = args.get(i)
        {
            self.check_entity_name(arg);
        }
        match op {
            FormOp::EntitiesOf | FormOp::NewEntity => {
                let i = usize::from(op == FormOp::NewEntity);
                if let Some(arg) = args.get(i)
                    && let Some(ty) = literal(Some(arg))
                    && !self.types.contains_key(&ty)
                {
                    self.unknown_type(ty, arg.span);
                }
            }
            FormOp::Property | FormOp::UpdateProperty => {
                if let Some(p) = args.first()
                    && let Some(name) = literal(Some(p))
                {
                    self.check_own_property(name, p.span, ctx);
                }
            }
            FormOp::PropertyOf | FormOp::UpdatePropertyOf => {
                if let (Some(p), Some(name), Some(entity)) =
                    (args.first(), literal(args.first()), literal(args.get(1)))
                    && let Some(&(ty, _)) = self.instances.get(&entity)
                    && !self.prop_known(&[(ty, Some(entity))], name)
                    && let Some(known) = self.known_props(&[(ty, Some(entity))])
                {
                    self.check_property(name, p.span, known, entity.as_str());
                }
            }
            FormOp::ChangeState => {
                if let Some(s) = args.first()
                    && let Some(state) = literal(Some(s))
                {
                    self.check_state(state, s.span, ctx);
                }
            }
            _ => {}
        }
    }

    /// Check the cell a board builtin is given as a literal.
    pub(super) fn check_call_names(&mut self, func: Symbol, args: &[Expr]) {
        if CELL_BUILTINS.contains(&func.as_str())
            && let Some(arg) = args.first()
        {
            self.check_entity_name(arg);
        }
    }

    fn check_entity_name(&mut self, arg: &Expr) {
        let Some(name) = literal(Some(arg)) else {
            return;
        };
        // A name that is also an entity type's is left alone: games and examples name
        // "the game" by its type, and may make that entity in ways not followed here.
        if !self.names.makes_entities
            || self.types.contains_key(&name)
            || self.open_boards
            || self.instances.contains_key(&name)
            || self.names.made_entities.contains(&name)
            || self.names.repr_props.contains_key(&name)
            || self
                .late_boards
                .iter()
                .any(|ring| super::advice::could_be_cell(*ring, name.as_str()))
        {
            return;
        }
        let text = name.as_str();
        let candidates: Vec<&str> = self
            .instances
            .keys()
            .chain(&self.names.made_entities)
            .map(|s| s.as_str())
            .collect();
        let near = closest(text, candidates.iter().copied());
        if self.names.computed_entities {
            // Some entity gets its name from code: an unknown name may be one of those. A
            // near miss of a known name is still most likely a typo.
            if let Some(c) = near {
                self.diags.push(
                    Diagnostic::warning(
                        "unknown-entity",
                        arg.span,
                        format!(
                            "no #instance, board cell or literal (new entity ...) is named `{text}` \
                             (an entity named by code might be)"
                        ),
                    )
                    .with_hint(format!("did you mean `{c}`?")),
                );
            }
            return;
        }
        let d = Diagnostic::error(
            "unknown-entity",
            arg.span,
            format!("no entity is named `{text}`"),
        );
        self.diags.push(match near {
            Some(c) => d.with_hint(format!("did you mean `{c}`?")),
            None => d.with_hint(format!(
                "entities are made by #instance, #board cells and (new entity \"{text}\" of <type>)"
            )),
        });
    }

    fn unknown_type(&mut self, ty: Symbol, span: Span) {
        let text = ty.as_str();
        let names: Vec<&str> = self.types.keys().map(|s| s.as_str()).collect();
        let d = Diagnostic::error(
            "unknown-entity-type",
            span,
            format!("no entity type `{text}`"),
        );
        self.diags.push(match closest(text, names.iter().copied()) {
            Some(c) => d.with_hint(format!("did you mean `{c}`?")),
            None => d.with_hint(format!("define it with `#entity {text}`")),
        });
    }

    /// The entity types the code being checked runs as, with the instance when it is
    /// bound to one; `None` when that is not known (a target that is no type or instance).
    fn running_types(&self) -> Option<Vec<(Symbol, Option<Symbol>)>> {
        self.running
            .iter()
            .map(|&r| {
                if self.types.contains_key(&r) {
                    Some((r, None))
                } else {
                    self.instances.get(&r).map(|&(ty, _)| (ty, Some(r)))
                }
            })
            .collect()
    }

    /// The types related to `ty` by inheritance either way: its code may run as an
    /// entity of any type that extends it, and reads what its ancestors declare.
    fn family(&self, ty: Symbol) -> Vec<Symbol> {
        let mut f: Vec<Symbol> = vec![ty];
        f.extend(self.ancestors(ty).map(|(t, _)| t));
        f.extend(
            self.types
                .keys()
                .copied()
                .filter(|&t| t != ty && self.descends_from(t, ty)),
        );
        f
    }

    /// The properties an entity of these types (or these instances) may have; `None` when
    /// one of the types, with all it inherits and all that inherit from it, declares no
    /// property at all: its properties are not written down yet (a sketch), and its code
    /// is not checked against them.
    fn known_props(&self, running: &[(Symbol, Option<Symbol>)]) -> Option<FxHashSet<Symbol>> {
        let mut known = self.names.made_props.clone();
        for &(ty, instance) in running {
            let family = self.family(ty);
            let mut declared = false;
            for t in &family {
                if let Some(p) = self.names.type_props.get(t) {
                    declared |= !p.is_empty();
                    known.extend(p.iter().copied());
                }
            }
            if !declared {
                return None;
            }
            if family.iter().any(|t| self.names.cell_types.contains(t)) {
                known.extend(CELL_PROPS.iter().map(|p| Symbol::intern(p)));
            }
            match instance {
                Some(i) => {
                    if let Some(p) = self.names.instance_props.get(&i) {
                        known.extend(p.iter().copied());
                    }
                }
                None => {
                    // An advice or behaviour of a type runs as each of its instances.
                    for (i, (ity, _)) in &self.instances {
                        if family.contains(ity)
                            && let Some(p) = self.names.instance_props.get(i)
                        {
                            known.extend(p.iter().copied());
                        }
                    }
                }
            }
        }
        Some(known)
    }

    /// Whether `name` is among [`Checker::known_props`] (or those are not checked), without
    /// building the set: the common case, a known property, costs a few lookups.
    fn prop_known(&self, running: &[(Symbol, Option<Symbol>)], name: Symbol) -> bool {
        if self.names.any_prop || self.names.made_props.contains(&name) {
            return true;
        }
        running.iter().any(|&(ty, instance)| {
            let family = self.family(ty);
            let (mut declared, mut found) = (false, false);
            for t in &family {
                if let Some(p) = self.names.type_props.get(t) {
                    declared |= !p.is_empty();
                    found |= p.contains(&name);
                }
            }
            let has = |i: &Symbol| {
                self.names
                    .instance_props
                    .get(i)
                    .is_some_and(|p| p.contains(&name))
            };
            !declared
                || found
                || (CELL_PROPS.contains(&name.as_str())
                    && family.iter().any(|t| self.names.cell_types.contains(t)))
                || match instance {
                    Some(i) => has(&i),
                    None => self
                        .instances
                        .iter()
                        .any(|(i, (ity, _))| family.contains(ity) && has(i)),
                }
        })
    }

    fn check_own_property(&mut self, name: Symbol, span: Span, ctx: Context) {
        if self.names.any_prop {
            return;
        }
        let known_here = match ctx {
            Context::Entity => self
                .running_types()
                .is_none_or(|r| self.prop_known(&r, name)),
            Context::Representation => self.repr_running.is_none_or(|ty| {
                self.prop_known(&[(ty, None)], name)
                    || self
                        .names
                        .repr_props
                        .get(&ty)
                        .is_some_and(|p| p.contains(&name))
            }),
            Context::Function => self.names.all_props.contains(&name),
            Context::Game | Context::Value => true,
        };
        if known_here {
            return;
        }
        let (known, owner) = match ctx {
            Context::Entity => {
                let Some(running) = self.running_types() else {
                    return;
                };
                if running.is_empty() {
                    return;
                }
                let mut owners: Vec<&str> = self.running.iter().map(|s| s.as_str()).collect();
                owners.sort_unstable();
                owners.dedup();
                let Some(known) = self.known_props(&running) else {
                    return;
                };
                (known, owners.join(", "))
            }
            Context::Representation => {
                let Some(ty) = self.repr_running else { return };
                let Some(mut known) = self.known_props(&[(ty, None)]) else {
                    return;
                };
                if let Some(p) = self.names.repr_props.get(&ty) {
                    known.extend(p.iter().copied());
                }
                (known, format!("the representation of {ty}"))
            }
            Context::Function => (self.names.all_props.clone(), "any entity".to_string()),
            Context::Game | Context::Value => return,
        };
        self.check_property(name, span, known, &owner);
    }

    fn check_property(&mut self, name: Symbol, span: Span, known: FxHashSet<Symbol>, owner: &str) {
        if self.names.any_prop || known.contains(&name) {
            return;
        }
        let text = name.as_str();
        let d = Diagnostic::error(
            "unknown-property",
            span,
            format!("{owner} has no property `{text}`"),
        );
        self.diags.push(
            match closest(text, known.iter().map(|s| s.as_str())) {
                Some(c) => d.with_hint(format!("did you mean `{c}`?")),
                None => d.with_hint(format!(
                    "declare it with `#property {text} <default>` in the #entity, or make it with (new property \"{text}\" as <value>)"
                )),
            },
        );
    }

    fn check_state(&mut self, state: Symbol, span: Span, ctx: Context) {
        let (known, owner): (FxHashSet<Symbol>, String) = match ctx {
            Context::Entity => {
                let Some(running) = self.running_types() else {
                    return;
                };
                if running.is_empty() {
                    return;
                }
                let mut known = FxHashSet::default();
                for (ty, _) in running {
                    for t in self.family(ty) {
                        if let Some(info) = self.types.get(&t) {
                            known.extend(info.states.iter().copied());
                        }
                    }
                }
                let mut owners: Vec<&str> = self.running.iter().map(|s| s.as_str()).collect();
                owners.sort_unstable();
                owners.dedup();
                (known, owners.join(", "))
            }
            Context::Representation => (self.names.repr_states.clone(), "a representation".into()),
            Context::Function => (self.names.all_states.clone(), "any entity".into()),
            Context::Game | Context::Value => return,
        };
        if known.contains(&state) {
            return;
        }
        // A state no block declares is a state in which the entity handles nothing (a
        // game over, a piece taken): only a near miss of a declared one is a likely typo.
        let text = state.as_str();
        if let Some(c) = closest(text, known.iter().map(|s| s.as_str())) {
            self.diags.push(
                Diagnostic::warning(
                    "unknown-state",
                    span,
                    format!(
                        "{owner} declares no state `{text}`: in it no behaviour would handle a message"
                    ),
                )
                .with_hint(format!("did you mean `{c}`?")),
            );
        }
    }
}
