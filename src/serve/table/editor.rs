//! The page's rule editor: a law or side-effect checked as it is typed (the `check`
//! request, which changes nothing and proposes nothing), and the game's variants listed
//! with their descriptions and switched on and off.
//!
//! Switching a variant off takes its change back through the history, so it is exact (the
//! rules it added, replaced, disabled or enabled are as they were before it): it may be
//! done while the variant's change is the newest change in force, as an `undo`, with the
//! agreement an undo needs. Once other changes follow it, it is refused, saying why.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::repl::command::Command;

use super::{Handled, RuleKind, Table};

/// One of the game's variants (a rules file of its `variants/` directory).
pub(super) struct Variant {
    /// Its name: the file name without `.fr`.
    pub(super) name: String,
    /// What its first comment lines say.
    pub(super) description: String,
    /// Its file, as `:rules` is given it.
    path: String,
    /// Put in force when the server started (`--rules`): not switched off from the page.
    at_start: bool,
}

/// Whether a variant is in force now, and how.
enum InForce {
    No,
    /// Since the server started (`--rules`).
    AtStart,
    /// By change `n` of the history.
    Change(usize),
}

/// The variants of the game `repl` serves, with their descriptions; `at_start` are the
/// rules files given when the server started.
pub(super) fn variants(repl: &crate::repl::Repl, at_start: &[PathBuf]) -> Vec<Variant> {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let started: Vec<PathBuf> = at_start.iter().filter_map(|p| canonical(p)).collect();
    repl.variants()
        .into_iter()
        .filter_map(|name| {
            let path = repl.variant_path(&name).ok()?;
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let at_start = canonical(&path).is_some_and(|c| started.contains(&c));
            Some(Variant {
                description: description(&text),
                path: path.to_string_lossy().into_owned(),
                name,
                at_start,
            })
        })
        .collect()
}

/// The first comment lines of a rules file, without their `;`, as one line.
fn description(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .map_while(|l| l.strip_prefix(';'))
        .map(|l| l.trim_start_matches(';').trim())
        .filter(|l| !l.is_empty())
        .collect();
    lines.join(" ")
}

impl Table {
    /// Whether variant `v` is in force now.
    fn in_force(&self, v: &Variant) -> InForce {
        if v.at_start {
            return InForce::AtStart;
        }
        let history = self.repl.history();
        let entries = &history.entries()[..history.cursor()];
        let found = entries.iter().rposition(|e| {
            e.commands
                .iter()
                .any(|c| matches!(c, Command::Rules { path, .. } if *path == v.path))
        });
        match found {
            Some(i) => InForce::Change(i + 1),
            None => InForce::No,
        }
    }

    /// The variants as the states list them: name, description, whether in force.
    pub(super) fn variant_details(&self) -> Json {
        let list: Vec<Json> = self
            .variants
            .iter()
            .map(|v| {
                let on = !matches!(self.in_force(v), InForce::No);
                json!({"name": v.name, "description": v.description, "inForce": on})
            })
            .collect();
        json!(list)
    }

    /// The command that switches variant `name` on (`on`) or off: `:rules <its file>`, or
    /// the `:undo` that takes its change back; why not, when it cannot be.
    pub(super) fn variant_command(&self, name: &str, on: bool) -> Result<Command, String> {
        let path = self.repl.variant_path(name)?;
        let path = path.to_string_lossy();
        let Some(v) = self.variants.iter().find(|v| v.path == path) else {
            return Err(format!("the game has no variant \"{name}\""));
        };
        let cursor = self.repl.history().cursor();
        match (self.in_force(v), on) {
            (InForce::No, true) => Ok(Command::Rules {
                gap: crate::repl::command::Gap::ONE,
                path: v.path.clone(),
            }),
            (InForce::No, false) => Err(format!(
                "the variant \"{name}\" is not in force; nothing was done"
            )),
            (InForce::AtStart, true) => Err(format!(
                "the variant \"{name}\" is in force already (since the server started); nothing was done"
            )),
            (InForce::Change(n), true) => Err(format!(
                "the variant \"{name}\" is in force already (change {n}); nothing was done"
            )),
            (InForce::AtStart, false) => Err(format!(
                "the variant \"{name}\" was put in force when the server started (--rules): it is part of this table and is not switched off; nothing was done"
            )),
            (InForce::Change(n), false) if n == cursor => Ok(Command::Undo),
            (InForce::Change(n), false) => Err(format!(
                "the variant \"{name}\" cannot be switched off now: switching it off takes back its change (change {n}), and {} change{} came after it; switch its rules off one by one in the rules list, or go back to change {} in the history; nothing was done",
                cursor - n,
                if cursor - n == 1 { "" } else { "s" },
                n - 1
            )),
        }
    }

    /// The `check` request: what adding `text` as a law or side-effect (`kind`) would be
    /// told, as data (each diagnostic's severity, code, message, hint, and line and column
    /// in `text`), changing nothing.
    pub(super) fn check(&mut self, id: Option<u64>, kind: RuleKind, text: &str) -> Handled {
        // Checked as the `rule` request adds it: without the blanks around it.
        let definition = text.trim();
        let lead = text.len() - text.trim_start().len();
        let law = matches!(kind, RuleKind::Law);
        let found = self.repl.check_rule_data(law, definition);
        let ok = !found.iter().any(|d| d.error);
        let diagnostics: Vec<Json> = found
            .into_iter()
            .map(|d| {
                let (line, column, end_line, end_column) = match &d.at {
                    Some(at) => {
                        let (l, c) = line_column(text, lead + at.start);
                        let (el, ec) = line_column(text, lead + at.end);
                        (json!(l), json!(c), json!(el), json!(ec))
                    }
                    None => (Json::Null, Json::Null, Json::Null, Json::Null),
                };
                json!({
                    "severity": if d.error { "error" } else { "warning" },
                    "code": d.code,
                    "message": d.message,
                    "hint": d.hint,
                    "line": line,
                    "column": column,
                    "endLine": end_line,
                    "endColumn": end_column,
                })
            })
            .collect();
        Handled::reply(json!({"type": "check", "id": id, "ok": ok, "diagnostics": diagnostics}))
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::{description, line_column};

    #[test]
    fn a_description_is_the_first_comment_lines() {
        let text =
            "\n; Grand slam forbidden: a move\n;; that would take all.\n#law \"x\"\n; not this";
        assert_eq!(
            description(text),
            "Grand slam forbidden: a move that would take all."
        );
        assert_eq!(description("#law \"x\""), "");
    }

    #[test]
    fn lines_and_columns_count_characters() {
        assert_eq!(line_column("ab\ncé d", 7), (2, 4));
        assert_eq!(line_column("abc", 0), (1, 1));
        assert_eq!(line_column("abc", 99), (1, 4));
    }
}
