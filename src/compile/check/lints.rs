//! The warnings `flexrules check` adds: advice bound to labels or states nothing uses,
//! messages with a near-miss label, attributes read that no code gives.

use super::*;

impl Checker {
    pub(super) fn lint_patterns(&mut self, items: &[Item]) {
        for item in items {
            if let Item::Advice(a) = item {
                self.lint_advice(a);
            }
        }
    }

    /// Warn about a law or side-effect bound to a label no behaviour handles and no code
    /// sends (it would never run), or to a state its target's type (or the type of its
    /// target instance) does not declare.
    pub(super) fn lint_advice(&mut self, a: &AdviceDef) {
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

    /// Warn about a message made with a label that no behaviour handles and no advice is
    /// bound to, when the label is a near miss of one that is: sent, it would do nothing,
    /// and it is most likely a typo. (A label unlike any other may be a hook left for
    /// rules files, or a game still being written.)
    pub(super) fn unhandled_label(&mut self, label: Symbol, span: Span) {
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
    pub(super) fn note_keys(&mut self, op: FormOp, args: &[Expr], attrs: &[(Expr, Expr)]) {
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
    pub(super) fn lint_keys(&mut self) {
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
}
