//! The outline of a document: its directives (entity types with their states and
//! behaviours, functions, laws and side-effects, instances, parameters, boards, `#setup`,
//! `#actions`), in file order.

use super::Analysis;
use crate::source::{FileId, Span};
use crate::syntax::ast::{AdviceKind, Item, Pattern};

/// What an entry of the outline is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutlineKind {
    /// An `#entity` or a `#representation`.
    Type,
    /// A state of a type.
    State,
    /// A behaviour (`#onMessage`) of a state.
    Behaviour,
    /// A `#define`.
    Function,
    /// A `#law` or a `#sideeffect`.
    Advice,
    /// An `#instance`.
    Instance,
    /// A `#param`.
    Param,
    /// A `#board`.
    Board,
    /// `#setup`.
    Setup,
    /// `#actions`.
    Actions,
}

/// One entry of the outline.
#[derive(Clone, Debug)]
pub struct OutlineItem {
    pub name: String,
    pub detail: Option<String>,
    pub kind: OutlineKind,
    /// The whole directive (its name included), in the outlined file.
    pub range: Span,
    /// Its name (what the client selects), in the outlined file.
    pub selection: Span,
    /// The entries inside it (`None` for a directive that cannot hold any).
    pub children: Option<Vec<OutlineItem>>,
}

/// An entry for a directive spanning `span` and named at `at`.
fn item(
    name: String,
    detail: Option<String>,
    kind: OutlineKind,
    span: Span,
    at: Span,
    children: Option<Vec<OutlineItem>>,
) -> OutlineItem {
    OutlineItem {
        name,
        detail,
        kind,
        // The range covers the name, which the client selects.
        range: span.to(at),
        selection: at,
        children,
    }
}

/// The outline of the file `file` of `analysis`.
pub fn outline(analysis: &Analysis, file: FileId) -> Vec<OutlineItem> {
    let mut out = Vec::new();
    for entry in analysis.program.iter().flat_map(|p| &p.items) {
        if entry.span().file != file {
            continue;
        }
        let found = match entry {
            Item::Entity(e) | Item::Representation(e) => {
                let states = e
                    .states
                    .iter()
                    .map(|st| {
                        let behaviours = st
                            .behaviours
                            .iter()
                            .map(|b| {
                                let label = b.label.sym.as_str().to_string();
                                item(
                                    label,
                                    Some("#onMessage".into()),
                                    OutlineKind::Behaviour,
                                    b.span,
                                    b.label.span,
                                    None,
                                )
                            })
                            .collect();
                        let span = st.behaviours.iter().fold(st.name.span, |a, b| a.to(b.span));
                        item(
                            st.name.sym.as_str().to_string(),
                            Some("#state".into()),
                            OutlineKind::State,
                            span,
                            st.name.span,
                            Some(behaviours),
                        )
                    })
                    .collect();
                let directive = if matches!(entry, Item::Entity(_)) {
                    "#entity"
                } else {
                    "#representation"
                };
                item(
                    e.name.sym.as_str().to_string(),
                    Some(directive.into()),
                    OutlineKind::Type,
                    e.span,
                    e.name.span,
                    Some(states),
                )
            }
            Item::Function(f) => {
                let params: Vec<&str> = f.params.iter().map(|p| p.sym.as_str()).collect();
                item(
                    f.name.sym.as_str().to_string(),
                    Some(format!("({})", params.join(" "))),
                    OutlineKind::Function,
                    f.span,
                    f.name.span,
                    None,
                )
            }
            Item::Advice(a) => {
                let kind = match a.kind {
                    AdviceKind::Law => "#law",
                    AdviceKind::SideEffect => "#sideeffect",
                };
                let label = match a.label {
                    Pattern::Any(_) => "*",
                    Pattern::Name(n) => n.sym.as_str(),
                };
                let name = a.name.map_or_else(
                    || format!("on {label} to {}", a.target.sym.as_str()),
                    |n| n.sym.as_str().to_string(),
                );
                let at = a.name.map_or(a.target.span, |n| n.span);
                item(
                    name,
                    Some(kind.into()),
                    OutlineKind::Advice,
                    a.span,
                    at,
                    None,
                )
            }
            Item::Instance(i) => item(
                i.name.sym.as_str().to_string(),
                Some(format!("#instance of {}", i.ty.sym.as_str())),
                OutlineKind::Instance,
                i.span,
                i.name.span,
                None,
            ),
            Item::Param(p) => item(
                p.name.sym.as_str().to_string(),
                Some("#param".into()),
                OutlineKind::Param,
                p.span,
                p.name.span,
                None,
            ),
            Item::Board(b) => item(
                format!("board of {}", b.ty.sym.as_str()),
                Some("#board".into()),
                OutlineKind::Board,
                b.span,
                b.ty.span,
                None,
            ),
            Item::Setup(b) => item(
                "#setup".into(),
                None,
                OutlineKind::Setup,
                b.span,
                b.span,
                None,
            ),
            Item::Actions(b) => item(
                "#actions".into(),
                None,
                OutlineKind::Actions,
                b.span,
                b.span,
                None,
            ),
            Item::Include(_) | Item::Switch(_) => continue,
        };
        out.push(found);
    }
    out
}
