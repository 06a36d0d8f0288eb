//! The checks of code: unbound variables, unknown functions and argument counts, forms
//! used where they cannot run, and updates of another entity's private properties.

use super::*;

/// The most arguments a call, or key-value pairs a message, may have: the compiled
/// instruction holds the count in a byte.
const MAX_OPERANDS: usize = u8::MAX as usize;

impl Checker {
    pub(super) fn check_code(&mut self, body: &[Expr], ctx: Context, params: &[Symbol]) {
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
                if self.statics {
                    self.check_call_names(func.sym, args);
                    self.check_division(func.sym, args);
                    if func.sym.as_str() == "not"
                        && let [a] = &args[..]
                    {
                        self.truth(a);
                    }
                }
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
                if self.statics {
                    self.truth(cond);
                }
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
                if self.statics {
                    self.truth(cond);
                }
                self.expr(body, ctx, scope);
            }
            ExprKind::Do(items) => {
                for i in items {
                    self.expr(i, ctx, scope);
                }
            }
            ExprKind::And(items) | ExprKind::Or(items) => {
                for (n, i) in items.iter().enumerate() {
                    self.expr(i, ctx, scope);
                    // Every operand but the last is tested for truth; the last only when
                    // the whole is (see `truth`).
                    if self.statics && n + 1 < items.len() {
                        self.truth(i);
                    }
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
                if attrs.len() > MAX_OPERANDS {
                    self.diags.push(
                        Diagnostic::error(
                            "too-many-attributes",
                            e.span,
                            format!(
                                "{} key-value pairs: a message takes at most {MAX_OPERANDS}",
                                attrs.len()
                            ),
                        )
                        .with_hint("put the rest in a dictionary held by one attribute"),
                    );
                }
                self.form_context(*op, ctx, e.span);
                if self.statics {
                    self.check_names(*op, args, ctx);
                }
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
        if argc > MAX_OPERANDS {
            self.diags.push(
                Diagnostic::error(
                    "too-many-arguments",
                    span,
                    format!(
                        "`{text}` is given {argc} arguments: a call takes at most {MAX_OPERANDS}"
                    ),
                )
                .with_hint("build a long list in parts: (append (list ...) (list ...))"),
            );
        }
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
