//! House rules in the REPL: `:law`, `:sideeffect` and `:rules` put laws and side-effects
//! in force (a rules file may also `#disable` and `#enable` them), `:disable`, `:enable`
//! and `:remove` change them; each is a change of the history.

use std::path::PathBuf;
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::runtime::world::{AdviceEntry, next_version};
use crate::symbol::Symbol;
use crate::syntax::ast::{AdviceBody, AdviceKind, Item};
use crate::syntax::load::{DiskFs, load_advice_file};

use super::command::{Command, Kind};
use super::history::Entry;
use super::{Repl, render_diags};

/// Why a law or side-effect could not be read: diagnostics with their places, or a
/// refusal that has none (a usage, a file that may not be read).
pub(super) enum Unread {
    Diagnostics(Vec<Diagnostic>),
    Text(String),
}

/// What a law's (`kind`) definition is read after: `#law ` or `#sideeffect `.
pub(super) fn advice_prefix(kind: Kind) -> String {
    format!("#{} ", kind.name())
}

impl Repl {
    /// `:law <definition>` or `:sideeffect <definition>` (`command`): put a law or
    /// side-effect written as after `#law` or `#sideeffect` in force.
    pub(super) fn add_advice(&mut self, command: &Command, definition: &str) -> String {
        let def = match self.read_advice(command.kind(), definition) {
            Ok(def) => def,
            Err(e) => return e,
        };
        match self.apply_advice(&def) {
            Ok((description, warnings)) => {
                let done = self.record(command.clone(), description);
                if warnings.is_empty() {
                    done
                } else {
                    format!("{warnings}\n{done}")
                }
            }
            Err(e) => e,
        }
    }

    /// Check a law (`law`) or side-effect written as after `#law` or `#sideeffect`, as
    /// `:law` and `:sideeffect` would, without putting it in force: its warnings rendered
    /// (empty when none), or why it would be refused.
    pub fn check_rule(&mut self, law: bool, definition: &str) -> Result<String, String> {
        let kind = if law { Kind::Law } else { Kind::SideEffect };
        let def = self.read_advice(kind, definition)?;
        self.check_advice(&def)
    }

    /// Read a law or side-effect (`kind`) written as after `#law` or `#sideeffect`, with
    /// the file its body names when files may be read; the rendered errors otherwise.
    fn read_advice(
        &mut self,
        kind: Kind,
        definition: &str,
    ) -> Result<crate::syntax::ast::AdviceDef, String> {
        self.parse_advice(kind, definition).map_err(|e| match e {
            Unread::Diagnostics(diags) => render_diags(&self.sources, &diags, self.options.color)
                .trim_end()
                .to_string(),
            Unread::Text(text) => text,
        })
    }

    /// [`Repl::read_advice`], with the errors as diagnostics where they have a place. The
    /// text parsed is `#<kind> <definition>` (see [`advice_prefix`]).
    pub(super) fn parse_advice(
        &mut self,
        kind: Kind,
        definition: &str,
    ) -> Result<crate::syntax::ast::AdviceDef, Unread> {
        self.snippets += 1;
        let name = format!("<rule {}>", self.snippets);
        let text = format!("{}{definition}", advice_prefix(kind));
        let (_, items, mut diags) =
            crate::syntax::load::parse_text_items(&mut self.sources, &name, &text);
        let mut def = match items.as_slice() {
            [Item::Advice(a)] => a.clone(),
            _ if diags.iter().any(Diagnostic::is_error) => {
                return Err(Unread::Diagnostics(diags));
            }
            _ => {
                return Err(Unread::Text(format!(
                    "usage: :{} [<name>] on <label> to <entity> in <state> [replaces <name>] is <\"file\" | (code)>",
                    kind.name()
                )));
            }
        };
        if let AdviceBody::File { path, file, body } = &mut def.body {
            if !self.rule_files {
                return Err(Unread::Text(format!(
                    "error: here a rule is written inline, `is (code)`: reading a file (\"{}\") is not allowed",
                    path.sym
                )));
            }
            let written = PathBuf::from(path.sym.as_str());
            let candidates = [written.clone(), self.root.join(&written)];
            let Some(found) = candidates.iter().find(|p| p.is_file()) else {
                return Err(Unread::Text(format!(
                    "error: cannot read `{}`: no such file here or in the game's directory {}",
                    written.display(),
                    self.root.display()
                )));
            };
            self.journal_may_read(found).map_err(Unread::Text)?;
            match load_advice_file(&DiskFs, found, &mut self.sources, &mut diags) {
                Ok((id, stmts)) => {
                    *file = Some(id);
                    *body = stmts;
                }
                Err(e) => return Err(Unread::Text(format!("error: {e}"))),
            }
        }
        if diags.iter().any(Diagnostic::is_error) {
            return Err(Unread::Diagnostics(diags));
        }
        Ok(def)
    }

    /// The checks and lints `flexrules check` runs on one law or side-effect, against the
    /// rules in force: the warnings rendered (empty when none), or the errors.
    fn check_advice(&self, def: &crate::syntax::ast::AdviceDef) -> Result<String, String> {
        let diags = self.advice_diagnostics(def);
        let rendered = render_diags(&self.sources, &diags, self.options.color)
            .trim_end()
            .to_string();
        if diags.iter().any(Diagnostic::is_error) {
            Err(rendered)
        } else {
            Ok(rendered)
        }
    }

    /// What the checks and lints of [`Repl::check_advice`] say of `def`.
    pub(super) fn advice_diagnostics(
        &self,
        def: &crate::syntax::ast::AdviceDef,
    ) -> Vec<Diagnostic> {
        let in_force: Vec<String> = self.advice_names().map(str::to_string).collect();
        crate::compile::check::check_snippet(
            &self.program,
            &in_force,
            crate::compile::check::Snippet::Advice(def),
        )
    }

    /// Check, compile and put in force one law or side-effect, with the checks and lints
    /// `flexrules check` runs. Gives what was done and the warnings rendered (empty when
    /// none); an error refuses the rule and leaves the session as it was.
    fn apply_advice(
        &mut self,
        def: &crate::syntax::ast::AdviceDef,
    ) -> Result<(String, String), String> {
        let warnings = self.check_advice(def)?;
        // A generated name takes the first free number.
        let mut count = self.play.session().world().advice.entries.len() + 1;
        let advice_name = loop {
            let name = Symbol::intern(&crate::compile::check::advice_name(def, count));
            if def.name.is_some()
                || self.play.session().world().advice.find(name).is_none()
                || def.replaces.map(|r| r.sym) == Some(name)
            {
                break name;
            }
            count += 1;
        };
        let replaces = def
            .replaces
            .and_then(|r| self.play.session().world().advice.find(r.sym));
        if self
            .play
            .session()
            .world()
            .advice
            .find(advice_name)
            .is_some()
            && def.replaces.map(|r| r.sym) != Some(advice_name)
        {
            return Err(format!(
                "error: a law or side-effect named \"{advice_name}\" is already in force; choose another name, or take its place with `replaces \"{advice_name}\"`"
            ));
        }
        let advice = crate::compile::codegen::compile_advice(
            self.play.session_mut().game_mut(),
            def,
            advice_name,
        )
        .map_err(|d| render_diags(&self.sources, &d, self.options.color))?;
        let what = match advice.kind {
            AdviceKind::Law => "law",
            AdviceKind::SideEffect => "side-effect",
        };
        let table = Arc::make_mut(&mut self.play.session_mut().world_mut().advice);
        let entry = AdviceEntry {
            advice: Arc::new(advice),
            enabled: true,
        };
        let description = match replaces {
            Some(i) => {
                let old = table.entries[i].advice.name;
                table.entries[i] = entry;
                format!("{what} \"{advice_name}\" replaces \"{old}\"")
            }
            None => {
                table.entries.push(entry);
                format!("{what} \"{advice_name}\" added")
            }
        };
        table.version = next_version();
        Ok((description, warnings))
    }

    /// `:rules <file>`: put in force every law and side-effect of a rules file, and switch
    /// off and on those its `#disable` and `#enable` name, in order.
    pub(super) fn rules(&mut self, command: &Command, path: &str) -> String {
        if let Err(e) = self.journal_may_read(path.as_ref()) {
            return e;
        }
        // A copy: a file that cannot be read leaves the session's sources as they were.
        let sources = self.sources.clone();
        let loaded = match crate::syntax::load::load_into(&DiskFs, path.as_ref(), sources) {
            Ok(l) => l,
            Err(e) => return format!("error: {e}; no rule was put in force"),
        };
        self.sources = loaded.sources;
        if loaded.diagnostics.iter().any(Diagnostic::is_error) {
            return render_diags(&self.sources, &loaded.diagnostics, self.options.color)
                .trim_end()
                .to_string();
        }
        // All or nothing: apply on a copy of the world, keep it only if every rule fits.
        let before = self.play.session().world().clone();
        let mut done = Vec::new();
        let mut warnings = render_diags(&self.sources, &loaded.diagnostics, self.options.color)
            .trim_end()
            .to_string();
        for item in &loaded.program.items {
            let def = match item {
                Item::Advice(def) => def,
                Item::Switch(sw) => {
                    if let Some(d) = self.apply_switch(sw) {
                        *self.play.session_mut().world_mut() = before;
                        let e = render_diags(&self.sources, &[d], self.options.color);
                        return format!("{}\nno rule of {path} was put in force", e.trim_end());
                    }
                    let verb = if sw.enable { "enabled" } else { "disabled" };
                    done.push(format!("\"{}\" {verb}", sw.name.sym));
                    continue;
                }
                _ => {
                    *self.play.session_mut().world_mut() = before;
                    return format!("error: {}", crate::compile::NOT_A_RULE);
                }
            };
            match self.apply_advice(def) {
                Ok((d, w)) => {
                    done.push(d);
                    if !w.is_empty() {
                        if !warnings.is_empty() {
                            warnings.push('\n');
                        }
                        warnings.push_str(&w);
                    }
                }
                Err(e) => {
                    *self.play.session_mut().world_mut() = before;
                    return format!("{e}\nno rule of {path} was put in force");
                }
            }
        }
        if done.is_empty() {
            *self.play.session_mut().world_mut() = before;
            return format!("{path} holds no rule");
        }
        let done = self.record(command.clone(), done.join("; "));
        if warnings.is_empty() {
            done
        } else {
            format!("{warnings}\n{done}")
        }
    }

    /// `#disable` or `#enable` (`sw`) of a rules file: switch a rule in force off or on,
    /// with the checks of `:disable` and `:enable`; the error when it cannot.
    fn apply_switch(&mut self, sw: &crate::syntax::ast::SwitchDef) -> Option<Diagnostic> {
        let world = self.play.session().world();
        let found = world.advice.find(sw.name.sym);
        let names: Vec<&str> = self.advice_names().collect();
        let enabled = found.map(|i| world.advice.entries[i].enabled);
        if let Some(refused) = crate::compile::check_switch(sw, &names, enabled) {
            return Some(refused);
        }
        let i = found?;
        let table = Arc::make_mut(&mut self.play.session_mut().world_mut().advice);
        table.entries[i].enabled = sw.enable;
        table.version = next_version();
        None
    }

    /// `:disable`, `:enable` or `:remove <name>` (`command`): switch a law or side-effect
    /// off or on, or remove it.
    pub(super) fn switch(&mut self, command: &Command, name: &str) -> String {
        let verb = command.kind();
        let name = name.trim().trim_matches('"');
        // A name never interned names no rule; looking it up adds nothing to the
        // process-wide table of names (a served seat may send any text).
        let found = Symbol::get(name).and_then(|sym| self.play.session().world().advice.find(sym));
        let Some(i) = found else {
            return match crate::diagnostic::closest(name, self.advice_names()) {
                Some(c) => {
                    format!("error: no law or side-effect named \"{name}\"; did you mean \"{c}\"?")
                }
                None => format!("error: no law or side-effect named \"{name}\" (:laws lists them)"),
            };
        };
        let enabled = self.play.session().world().advice.entries[i].enabled;
        match (verb, enabled) {
            (Kind::Disable, false) => {
                return format!("error: \"{name}\" is already disabled; nothing changed");
            }
            (Kind::Enable, true) => {
                return format!("error: \"{name}\" is already enabled; nothing changed");
            }
            _ => {}
        }
        let table = Arc::make_mut(&mut self.play.session_mut().world_mut().advice);
        match verb {
            Kind::Disable => table.entries[i].enabled = false,
            Kind::Enable => table.entries[i].enabled = true,
            _ => {
                table.entries.remove(i);
            }
        }
        table.version = next_version();
        let done = format!("\"{name}\" {}d", verb.name());
        self.record(command.clone(), done)
    }

    /// The names of the laws and side-effects in force, in the order they apply.
    fn advice_names(&self) -> impl Iterator<Item = &str> {
        (self.play.session().world().advice.entries.iter()).map(|e| e.advice.name.as_str())
    }

    /// Record a rule change in the history.
    fn record(&mut self, command: Command, description: String) -> String {
        self.history.push(Entry {
            commands: vec![command],
            description: description.clone(),
            world: Some(self.play.session().world().clone()),
            // The advice table copied, and the rule's text.
            bytes: 1024 + description.len() as u64,
        });
        format!("{description}; takes effect from the next transaction")
    }
}
