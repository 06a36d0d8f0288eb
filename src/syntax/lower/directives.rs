//! Lowering of directives and grouping of entity blocks.

use std::ops::Range;

use crate::diagnostic::{Diagnostic, closest};

use super::super::ast::{
    AdviceBody, AdviceDef, AdviceKind, Behaviour, Block, BoardDef, BoardShape, EntityDef,
    FunctionDef, InstanceDef, Item, Name, ParamDef, Pattern, PropertyDef, StateDef, SwitchDef,
};
use super::super::reader::{Atom, Directive, Sexp};
use super::Lowerer;
use super::forms::Args;

/// Every directive the language knows.
pub const DIRECTIVES: &[&str] = &[
    "include",
    "entity",
    "extends",
    "property",
    "state",
    "onMessage",
    "instance",
    "board",
    "law",
    "sideeffect",
    "define",
    "param",
    "setup",
    "actions",
    "representation",
    "disable",
    "enable",
];

/// The entity or representation block being built.
struct Open {
    def: EntityDef,
    representation: bool,
}

fn range_of(d: &Directive<'_>) -> Range<usize> {
    let end = d.args.last().map_or(d.name_span.end, |a| a.span().end);
    d.name_span.start..end
}

/// Lower the directives of one file into items, grouping entity blocks.
pub fn lower(lw: &mut Lowerer<'_>, directives: &[Directive<'_>]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut open: Option<Open> = None;
    // After an unknown directive (often a misspelt #entity), the entity directives that
    // follow are not reported again as being outside an entity.
    let mut after_unknown = false;
    for d in directives {
        let range = range_of(d);
        match d.name {
            "entity" | "representation" => {
                after_unknown = false;
                close(&mut items, open.take());
                let representation = d.name == "representation";
                let usage = if representation {
                    "#representation <entity type>"
                } else {
                    "#entity <name>"
                };
                let mut a = Args::new(&d.args, 0, range.clone(), usage);
                if let Some(name) = a.name(lw, "the type name") {
                    open = Some(Open {
                        def: EntityDef {
                            name,
                            extends: None,
                            properties: Vec::new(),
                            states: Vec::new(),
                            span: lw.span(range),
                        },
                        representation,
                    });
                }
                a.finish(lw);
            }
            "extends" | "property" | "state" | "onMessage" => {
                let Some(block) = open.as_mut() else {
                    if after_unknown {
                        lw.statements(&d.args);
                        continue;
                    }
                    let span = lw.span(d.name_span.clone());
                    lw.error(
                        Diagnostic::error(
                            "directive-outside-entity",
                            span,
                            format!("#{} outside an #entity", d.name),
                        )
                        .with_hint(format!(
                            "#{} belongs to the #entity (or #representation) above it; \
                             other directives in between end the entity",
                            d.name
                        )),
                    );
                    lw.statements(&d.args);
                    continue;
                };
                entity_part(lw, block, d, range);
            }
            _ => {
                close(&mut items, open.take());
                after_unknown = !DIRECTIVES.contains(&d.name);
                if let Some(item) = top_level(lw, d, range) {
                    items.push(item);
                }
            }
        }
    }
    close(&mut items, open.take());
    items
}

fn close(items: &mut Vec<Item>, open: Option<Open>) {
    if let Some(open) = open {
        items.push(if open.representation {
            Item::Representation(open.def)
        } else {
            Item::Entity(open.def)
        });
    }
}

fn entity_part(lw: &mut Lowerer<'_>, block: &mut Open, d: &Directive<'_>, range: Range<usize>) {
    match d.name {
        "extends" => {
            let mut a = Args::new(&d.args, 0, range.clone(), "#extends <entity type>");
            let name = a.name(lw, "the parent type");
            a.finish(lw);
            if block.representation {
                let span = lw.span(range);
                lw.error(
                    Diagnostic::error(
                        "extends-in-representation",
                        span,
                        "a representation cannot #extends",
                    )
                    .with_hint(
                        "representations follow the entity types: extend the entity instead",
                    ),
                );
            } else if let Some(previous) = block.def.extends {
                let span = lw.span(range);
                lw.error(
                    Diagnostic::error("duplicate-extends", span, "a second #extends")
                        .with_note(previous.span, "the first one")
                        .with_hint("an entity type has one parent"),
                );
            } else {
                block.def.extends = name;
            }
        }
        "property" => {
            let mut a = Args::new(&d.args, 0, range, "#property <name> <default value>");
            let name = a.name(lw, "the property name");
            let value = a.expr(lw, "the default value");
            a.finish(lw);
            if let Some(name) = name {
                block.def.properties.push(PropertyDef { name, value });
            }
        }
        "state" => {
            let mut a = Args::new(&d.args, 0, range, "#state <name>");
            let name = a.name(lw, "the state name");
            a.finish(lw);
            if let Some(name) = name {
                block.def.states.push(StateDef {
                    name,
                    behaviours: Vec::new(),
                });
            }
        }
        _ => {
            let mut a = Args::new(&d.args, 0, range.clone(), "#onMessage <label> <statement>");
            let label = a.name(lw, "the message label");
            let body = lw.statements(a.rest());
            let Some(state) = block.def.states.last_mut() else {
                let span = lw.span(d.name_span.clone());
                lw.error(
                    Diagnostic::error(
                        "behaviour-outside-state",
                        span,
                        "#onMessage before any #state",
                    )
                    .with_hint("write `#state default` above the behaviours of that state"),
                );
                return;
            };
            if let Some(label) = label {
                state.behaviours.push(Behaviour {
                    label,
                    body,
                    span: lw.span(range),
                });
            }
        }
    }
}

fn top_level(lw: &mut Lowerer<'_>, d: &Directive<'_>, range: Range<usize>) -> Option<Item> {
    let span = lw.span(range.clone());
    match d.name {
        "include" => {
            let mut a = Args::new(&d.args, 0, range, "#include \"<path>\"");
            let path = string(lw, &mut a, "the path");
            a.finish(lw);
            path.map(Item::Include)
        }
        "instance" => {
            const USAGE: &str = "#instance <name> of <type> with <property> <value> ...";
            let mut a = Args::new(&d.args, 0, range, USAGE);
            let name = a.name(lw, "the instance name");
            a.keyword(lw, "of");
            let ty = a.name(lw, "the type");
            let mut properties = Vec::new();
            if a.peek_word("with") {
                a.pos += 1;
                let rest = a.rest();
                let mut pairs = rest.chunks(2);
                for pair in &mut pairs {
                    let key = lw.name(&pair[0], "a property name", USAGE);
                    match pair.get(1) {
                        Some(v) => {
                            let value = lw.expr(v);
                            if let Some(key) = key {
                                properties.push((key, value));
                            }
                        }
                        None => {
                            let span = lw.span(pair[0].span());
                            lw.error(
                                Diagnostic::error(
                                    "attribute-without-value",
                                    span,
                                    "this property has no value",
                                )
                                .with_hint(
                                    "after `with`, write property names and values in pairs",
                                ),
                            );
                        }
                    }
                }
            }
            a.finish(lw);
            Some(Item::Instance(InstanceDef {
                name: name?,
                ty: ty?,
                properties,
                span,
            }))
        }
        "board" => board(lw, d, range),
        "disable" | "enable" => {
            let usage = if d.name == "disable" {
                "#disable \"<name of a law or side-effect>\""
            } else {
                "#enable \"<name of a law or side-effect>\""
            };
            let mut a = Args::new(&d.args, 0, range, usage);
            let name = a.name(lw, "the name of the law or side-effect");
            a.finish(lw);
            Some(Item::Switch(SwitchDef {
                enable: d.name == "enable",
                name: name?,
                span,
            }))
        }
        "law" | "sideeffect" => advice(lw, d, range),
        "define" => {
            const USAGE: &str = "#define <name> (<parameter> ...) <body>";
            let mut a = Args::new(&d.args, 0, range, USAGE);
            let name = a.name(lw, "the function name");
            let params = match a.peek() {
                Some(Sexp::List { items, .. }) => {
                    a.pos += 1;
                    let list = &d.args[a.pos - 1];
                    lw.check_closed(list);
                    items
                        .iter()
                        .filter_map(|p| lw.ident(p, "a parameter name", USAGE))
                        .collect()
                }
                Some(other) => {
                    // `#define f x body`: take a lone name as the one parameter, so the
                    // body is still checked sensibly.
                    let span = lw.span(other.span());
                    lw.error(
                        Diagnostic::error(
                            "expected-parameters",
                            span,
                            "expected the parameter list in parentheses",
                        )
                        .with_hint(format!("usage: {USAGE}; write () for no parameters")),
                    );
                    a.pos += 1;
                    lw.ident(other, "a parameter name", USAGE)
                        .into_iter()
                        .collect()
                }
                None => {
                    a.missing(lw, "the parameter list (write () for none)");
                    Vec::new()
                }
            };
            let body = lw.statements(a.rest());
            Some(Item::Function(FunctionDef {
                name: name?,
                params,
                body,
                span,
            }))
        }
        "param" => {
            let mut a = Args::new(&d.args, 0, range, "#param <name> <default value>");
            let name = a.name(lw, "the parameter name");
            let value = a.expr(lw, "the default value");
            a.finish(lw);
            Some(Item::Param(ParamDef {
                name: name?,
                value,
                span,
            }))
        }
        "setup" | "actions" => {
            let body = lw.statements(&d.args);
            if body.is_empty() {
                lw.error(
                    Diagnostic::error("missing-operand", span, format!("#{} without code", d.name))
                        .with_hint(format!("usage: #{} <statement>", d.name)),
                );
            }
            let block = Block { body, span };
            Some(if d.name == "setup" {
                Item::Setup(block)
            } else {
                Item::Actions(block)
            })
        }
        unknown => {
            let name_span = lw.span(d.name_span.clone());
            let mut diag = Diagnostic::error(
                "unknown-directive",
                name_span,
                format!("unknown directive #{unknown}"),
            );
            diag = match closest(unknown, DIRECTIVES.iter().copied()) {
                Some(c) => diag.with_hint(format!("did you mean #{c}?")),
                None => diag.with_hint(format!("the directives are #{}", DIRECTIVES.join(" #"))),
            };
            lw.error(diag);
            lw.statements(&d.args);
            None
        }
    }
}

/// A string operand (a path or a board description).
fn string(lw: &mut Lowerer<'_>, a: &mut Args<'_, '_>, what: &str) -> Option<Name> {
    match a.peek() {
        Some(s @ Sexp::Atom(Atom::Str(_), _)) => {
            a.pos += 1;
            lw.name(s, what, a.usage)
        }
        Some(other) => {
            a.pos += 1;
            a.ok = false;
            let span = lw.span(other.span());
            lw.error(
                Diagnostic::error(
                    "expected-string",
                    span,
                    format!("expected {what} as a string"),
                )
                .with_hint(format!("usage: {}", a.usage)),
            );
            None
        }
        None => {
            a.missing(lw, what);
            None
        }
    }
}

fn board(lw: &mut Lowerer<'_>, d: &Directive<'_>, range: Range<usize>) -> Option<Item> {
    const USAGE: &str = "#board \"<identification or file.xml>\" of <type> [named go], #board (<expression>) of <type> [named go], or #board ring <n or (expression)> of <type> named \"<prefix>\"";
    let span = lw.span(range.clone());
    let mut a = Args::new(&d.args, 0, range, USAGE);
    let computed = |a: &Args<'_, '_>| matches!(a.peek(), Some(Sexp::List { .. }));
    let shape = if a.peek_word("ring") {
        a.pos += 1;
        let size = match a.peek() {
            Some(Sexp::List { .. }) => Some(Err(a.expr(lw, "the number of cells"))),
            Some(Sexp::Atom(Atom::Int(n), r)) => {
                a.pos += 1;
                if !(1..=super::super::ast::MAX_RING).contains(n) {
                    a.ok = false;
                    let s = lw.span(r.clone());
                    lw.error(
                        Diagnostic::error(
                            "bad-board",
                            s,
                            format!("a ring has from 1 to {} cells", super::super::ast::MAX_RING),
                        )
                        .with_hint(format!("usage: {USAGE}")),
                    );
                }
                (1..=super::super::ast::MAX_RING)
                    .contains(n)
                    .then_some(Ok(*n))
            }
            Some(other) => {
                a.pos += 1;
                a.ok = false;
                let s = lw.span(other.span());
                lw.error(
                    Diagnostic::error("bad-board", s, "expected the number of cells of the ring")
                        .with_hint(format!("usage: {USAGE}")),
                );
                None
            }
            None => {
                a.missing(lw, "the number of cells");
                None
            }
        };
        a.keyword(lw, "of");
        let ty = a.name(lw, "the cell type");
        a.keyword(lw, "named");
        let prefix = a.name(lw, "the cell name prefix");
        a.finish(lw);
        let prefix = prefix?;
        return Some(Item::Board(BoardDef {
            shape: match size? {
                Ok(size) => BoardShape::Ring { size, prefix },
                Err(value) => BoardShape::Computed {
                    value,
                    ring: Some(prefix),
                },
            },
            ty: ty?,
            naming: None,
            span,
        }));
    } else if computed(&a) {
        Some(BoardShape::Computed {
            value: a.expr(lw, "the board"),
            ring: None,
        })
    } else {
        let desc = string(lw, &mut a, "the board");
        desc.map(|name| {
            if name.sym.as_str().ends_with(".xml") {
                BoardShape::File {
                    path: name,
                    resolved: None,
                    file: None,
                }
            } else {
                BoardShape::Identification(name)
            }
        })
    };
    a.keyword(lw, "of");
    let ty = a.name(lw, "the cell type");
    let mut naming = None;
    if a.peek_word("named") {
        a.pos += 1;
        naming = a.name(lw, "the naming of the cells (go)");
        if matches!(shape, Some(BoardShape::File { .. })) {
            a.ok = false;
            if let Some(n) = naming {
                lw.error(
                    Diagnostic::error("bad-board", n.span, "a board file names its own cells")
                        .with_hint(
                            "`named go` applies to grids described by an identification string",
                        ),
                );
            }
            naming = None;
        }
    }
    a.finish(lw);
    Some(Item::Board(BoardDef {
        shape: shape?,
        ty: ty?,
        naming,
        span,
    }))
}

fn pattern(lw: &mut Lowerer<'_>, a: &mut Args<'_, '_>, what: &str) -> Option<Pattern> {
    let star = matches!(
        a.peek(),
        Some(Sexp::Atom(Atom::Ident("*") | Atom::Str("*"), _))
    );
    if star {
        let s = lw.span(a.peek().map(|s| s.span()).unwrap_or_default());
        a.pos += 1;
        return Some(Pattern::Any(s));
    }
    a.name(lw, what).map(Pattern::Name)
}

fn advice(lw: &mut Lowerer<'_>, d: &Directive<'_>, range: Range<usize>) -> Option<Item> {
    let kind = if d.name == "law" {
        AdviceKind::Law
    } else {
        AdviceKind::SideEffect
    };
    let usage = if kind == AdviceKind::Law {
        "#law [<name>] on <label> to <entity> in <state> [replaces <name>] is <\"file.law\" | (code)>"
    } else {
        "#sideeffect [<name>] on <label> to <entity> in <state> [replaces <name>] is <\"file.se\" | (code)>"
    };
    let span = lw.span(range.clone());
    let mut a = Args::new(&d.args, 0, range, usage);
    let name = match a.peek() {
        Some(s) if !super::is_word(s, "on") => a.name(lw, "the advice name"),
        _ => None,
    };
    a.keyword(lw, "on");
    let label = pattern(lw, &mut a, "the message label (or *)");
    a.keyword(lw, "to");
    let target = a.name(lw, "the entity type or instance");
    a.keyword(lw, "in");
    let state = pattern(lw, &mut a, "the state (or *)");
    let replaces = if a.peek_word("replaces") {
        a.pos += 1;
        a.name(lw, "the name of the advice replaced")
    } else {
        None
    };
    a.keyword(lw, "is");
    let body = match a.peek() {
        Some(s @ Sexp::Atom(Atom::Str(_), _)) => {
            a.pos += 1;
            lw.name(s, "the file", usage).map(|path| AdviceBody::File {
                path,
                file: None,
                body: Vec::new(),
            })
        }
        Some(Sexp::List { .. }) => Some(AdviceBody::Inline(lw.statements(a.rest()))),
        Some(other) => {
            a.pos += 1;
            let s = lw.span(other.span());
            lw.error(
                Diagnostic::error(
                    "bad-advice-body",
                    s,
                    "expected a file name in quotes or (code)",
                )
                .with_hint(format!("usage: {usage}")),
            );
            None
        }
        None => {
            a.missing(lw, "the advice code or file");
            None
        }
    };
    a.finish(lw);
    if !a.ok {
        return None;
    }
    Some(Item::Advice(AdviceDef {
        kind,
        name,
        label: label?,
        target: target?,
        state: state?,
        replaces,
        body: body?,
        span,
    }))
}
