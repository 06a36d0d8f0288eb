//! Laws and side-effects: their targets, their names (explicit, from their file, or
//! generated) and what they replace.

use super::*;

impl Checker {
    pub(super) fn check_advice(
        &mut self,
        a: &AdviceDef,
        index: usize,
        names: &mut FxHashMap<String, Span>,
    ) {
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
pub(super) fn could_be_cell(ring: Option<Symbol>, name: &str) -> bool {
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
