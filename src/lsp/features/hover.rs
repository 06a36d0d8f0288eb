//! Hover: the usage of a builtin, the signature and comment of a `#define`, the properties
//! and states of an entity type, what runs when a message arrives, or which entity types
//! declare a property.

use super::{Analysis, FilePosition, entities, functions, word_at};
use crate::compile::builtins::BUILTINS;
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{AdviceKind, Item, Pattern};

/// What hovering a name shows: Markdown text, and the span of the name it is about.
#[derive(Clone, Debug)]
pub struct HoverResult {
    pub markdown: String,
    pub range: Span,
}

/// What hovering at `at` shows (`None` when the name there is nothing known).
pub fn hover(analysis: &Analysis, at: FilePosition) -> Option<HoverResult> {
    let file = analysis.sources.file(at.file);
    let (word, range) = word_at(&file.text, at.offset)?;
    let text = if let Some(b) = BUILTINS.iter().find(|b| b.name == word) {
        format!("```\n{}\n```\nbuiltin function", b.usage)
    } else if let Some(f) = functions(analysis).find(|f| f.name.sym.as_str() == word) {
        let params: Vec<&str> = f.params.iter().map(|p| p.sym.as_str()).collect();
        let signature = if params.is_empty() {
            format!("({word})")
        } else {
            format!("({word} {})", params.join(" "))
        };
        let doc = comment_above(analysis.sources.file(f.span.file), f.span.start as usize);
        format!("```\n{signature}\n```\n{doc}")
    } else if let Some(e) = entities(analysis).find(|e| e.name.sym.as_str() == word) {
        let props: Vec<&str> = e.properties.iter().map(|p| p.name.sym.as_str()).collect();
        let states: Vec<&str> = e.states.iter().map(|s| s.name.sym.as_str()).collect();
        format!(
            "entity type `{word}`\n\nproperties: {}\n\nstates: {}",
            if props.is_empty() {
                "none".into()
            } else {
                props.join(", ")
            },
            if states.is_empty() {
                "none".into()
            } else {
                states.join(", ")
            }
        )
    } else if let Some(text) = label_hover(analysis, word) {
        text
    } else {
        property_hover(analysis, word)?
    };
    Some(HoverResult {
        markdown: text,
        range: Span::new(at.file, range),
    })
}

/// What runs when a message labelled `label` arrives: the behaviours that handle it and
/// the laws and side-effects bound to it, in the order they are in force (`None` when
/// nothing names the label).
fn label_hover(a: &Analysis, label: &str) -> Option<String> {
    let program = a.program.as_ref()?;
    let mut behaviours = Vec::new();
    let mut advice = Vec::new();
    for (i, item) in program.items.iter().enumerate() {
        match item {
            Item::Entity(e) | Item::Representation(e) => {
                for st in &e.states {
                    if st.behaviours.iter().any(|b| b.label.sym.as_str() == label) {
                        behaviours.push(format!(
                            "- `{}` in state `{}`",
                            e.name.sym.as_str(),
                            st.name.sym.as_str()
                        ));
                    }
                }
            }
            Item::Advice(d) => {
                let matches = match d.label {
                    Pattern::Any(_) => true,
                    Pattern::Name(n) => n.sym.as_str() == label,
                };
                if matches {
                    let kind = match d.kind {
                        AdviceKind::Law => "law",
                        AdviceKind::SideEffect => "side-effect",
                    };
                    let name = crate::compile::check::advice_name(d, i);
                    advice.push(format!(
                        "- {kind} \"{name}\" on `{}`",
                        d.target.sym.as_str()
                    ));
                }
            }
            _ => {}
        }
    }
    if behaviours.is_empty() && advice.is_empty() {
        return None;
    }
    // Laws run before the behaviour, side-effects after it.
    advice.sort_by_key(|line| !line.starts_with("- law"));
    let mut text = format!("message `{label}`");
    if !behaviours.is_empty() {
        text.push_str(&format!("\n\nhandled by:\n{}", behaviours.join("\n")));
    }
    if !advice.is_empty() {
        text.push_str(&format!(
            "\n\nlaws and side-effects, in order:\n{}",
            advice.join("\n")
        ));
    }
    Some(text)
}

/// The entity types that declare a property `name`, each with its default as written.
fn property_hover(a: &Analysis, name: &str) -> Option<String> {
    let found: Vec<String> = entities(a)
        .flat_map(|e| {
            e.properties
                .iter()
                .filter(|p| p.name.sym.as_str() == name)
                .map(move |p| {
                    let default = a.sources.text(p.value.span);
                    format!("- `{}`: default `{default}`", e.name.sym.as_str())
                })
        })
        .collect();
    (!found.is_empty()).then(|| format!("property `{name}` of:\n{}", found.join("\n")))
}

/// The comment lines (`;`) just above byte `offset` of `file`, without their `;`.
fn comment_above(file: &SourceFile, offset: usize) -> String {
    let before = &file.text[..offset.min(file.text.len())];
    let mut lines: Vec<&str> = before.lines().collect();
    // The directive's own line, up to where it starts.
    if !before.ends_with('\n') {
        lines.pop();
    }
    let mut doc = Vec::new();
    for line in lines.iter().rev() {
        match line.trim_start().strip_prefix(';') {
            Some(rest) => doc.push(rest.trim_start_matches(';').trim()),
            None => break,
        }
    }
    doc.reverse();
    doc.join("\n")
}
