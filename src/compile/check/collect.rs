//! The first pass of the checker: every global name (entity types, functions, instances,
//! board cells, handled labels), with duplicate and reserved names.

use super::*;

impl Checker {
    /// First pass: every global name.
    pub(super) fn collect(&mut self, items: &[Item], sources: Option<&crate::source::SourceMap>) {
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
            if let Err(d) = crate::compile::boards::naming(b) {
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
        match crate::compile::boards::build(b, sources.unwrap_or(&empty)) {
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
}
