//! Completion: the builtins, then the unit's functions and entity types.

use super::{Analysis, entities, functions};
use crate::compile::builtins::BUILTINS;

/// What a completion offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A builtin or a `#define`.
    Function,
    /// An `#entity` type.
    EntityType,
}

/// One name offered, with what it is and a one-line detail.
#[derive(Clone, Debug)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: String,
}

/// The names offered: every builtin, and the functions and entity types of `analysis`
/// when the document has one.
pub fn completions(analysis: Option<&Analysis>) -> Vec<Completion> {
    let mut items: Vec<Completion> = BUILTINS
        .iter()
        .map(|b| Completion {
            label: b.name.to_string(),
            kind: CompletionKind::Function,
            detail: b.usage.to_string(),
        })
        .collect();
    if let Some(analysis) = analysis {
        for f in functions(analysis) {
            let params: Vec<&str> = f.params.iter().map(|p| p.sym.as_str()).collect();
            items.push(Completion {
                label: f.name.sym.as_str().to_string(),
                kind: CompletionKind::Function,
                detail: format!("({} {})", f.name.sym.as_str(), params.join(" ")),
            });
        }
        for e in entities(analysis) {
            items.push(Completion {
                label: e.name.sym.as_str().to_string(),
                kind: CompletionKind::EntityType,
                detail: "entity type".into(),
            });
        }
    }
    items
}
