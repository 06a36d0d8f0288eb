//! Reading a bidding system's XML file into a [`System`], checked against the structure
//! `lang/bidding-system.dtd` writes down: every problem a [`Diagnostic`] at its line and
//! column, with a hint. Elements only (no attributes are read); XML comments, processing
//! instructions and a document type declaration are allowed and skipped.

use std::path::Path;

use roxmltree::{Document, Node, ParsingOptions};

use super::{Comparison, Group, Item, QUALITY_PREFIX, Rule, System, Text};
use crate::diagnostic::{Diagnostic, closest, render_plain, xml_message};
use crate::source::{FileId, SourceMap, Span, offset_at};

/// The largest file read (a system of thousands of rules is far smaller).
const MAX_BYTES: u64 = 8 << 20;

/// The most XML nodes a file may have.
const NODES_LIMIT: u32 = 2_000_000;

/// The data elements of `rules`, each at most once.
const RULES_DATA: [&str; 5] = ["type", "name", "level", "owner", "contact"];

/// Read the system in the file at `path`: the error, for people, is every problem found,
/// rendered as diagnostics.
pub fn load(path: &Path) -> Result<System, String> {
    let shown = path.display().to_string();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read the bidding system {shown}: {e}"))?
        .len();
    if size > MAX_BYTES {
        return Err(format!(
            "the bidding system {shown} is {size} bytes; the most read is {MAX_BYTES}"
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the bidding system {shown}: {e}"))?;
    let mut map = SourceMap::new();
    let file = map.add(path, text.as_str());
    parse(file, &text, &shown).map_err(|d| render_plain(&map, &d).trim_end().to_string())
}

impl System {
    /// The diagnostics of the qualities this system names that neither the game
    /// (`defined`, without the `quality-` prefix) nor a `set` of the file defines;
    /// `file` is where the system's text is in the source map the caller renders with.
    pub fn quality_diagnostics(&self, file: FileId, defined: &[String]) -> Vec<Diagnostic> {
        let set = self.set_names();
        let mut known: Vec<&str> = defined.iter().map(String::as_str).collect();
        known.extend(set.iter().map(String::as_str));
        let mut out = Vec::new();
        for name in self.named_qualities() {
            if known.contains(&name.text.as_str()) {
                continue;
            }
            let span = Span::new(file, name.span.range());
            let mut d = Diagnostic::error(
                "system-quality",
                span,
                format!("no quality is named `{}`", name.text),
            )
            .with_label("the game defines no such quality, and no `set` gives it");
            d = match closest(&name.text, known.iter().copied()) {
                Some(c) => d.with_hint(format!("did you mean `{c}`?")),
                None => d.with_hint(format!(
                    "the game's qualities are its functions `{QUALITY_PREFIX}<name>` with no parameters: {}",
                    if defined.is_empty() {
                        "it defines none".to_string()
                    } else {
                        defined.join(", ")
                    }
                )),
            };
            out.push(d);
        }
        out
    }

    /// [`System::quality_diagnostics`] rendered for people; `Ok` when there are none.
    pub fn check_qualities(&self, defined: &[String]) -> Result<(), String> {
        let mut map = SourceMap::new();
        let file = map.add(self.path.as_str(), self.text.clone());
        let found = self.quality_diagnostics(file, defined);
        if found.is_empty() {
            return Ok(());
        }
        Err(render_plain(&map, &found).trim_end().to_string())
    }
}

/// Read a system from `text`, the content of `file` (named `path`): every problem found,
/// or the system. The qualities are checked later, against a game
/// ([`System::quality_diagnostics`]).
pub fn parse(file: FileId, text: &str, path: &str) -> Result<System, Vec<Diagnostic>> {
    let options = ParsingOptions {
        allow_dtd: true,
        nodes_limit: NODES_LIMIT,
        ..ParsingOptions::default()
    };
    let doc = match Document::parse_with_options(text, options) {
        Ok(d) => d,
        Err(e) => {
            let pos = e.pos();
            let at = offset_at(text, pos.row, pos.col);
            let len = text[at..].chars().next().map_or(0, char::len_utf8);
            return Err(vec![
                Diagnostic::error(
                    "system-xml",
                    Span::new(file, at..at + len),
                    format!("malformed XML: {}", xml_message(&e)),
                )
                .with_hint(
                    "a bidding system is well-formed XML: each element closed by its own end tag, in order, under one root `rules`",
                ),
            ]);
        }
    };
    let mut r = Reader {
        file,
        errors: Vec::new(),
    };
    let root = doc.root_element();
    let mut system = System {
        path: path.to_string(),
        text: text.into(),
        name: None,
        groups: Vec::new(),
    };
    if root.tag_name().name() != "rules" {
        r.unknown(root, &["rules"], "the root of a bidding system");
        return Err(r.errors);
    }
    let mut seen: Vec<&str> = Vec::new();
    for child in r.elements(root) {
        let tag = child.tag_name().name();
        if RULES_DATA.contains(&tag) {
            if seen.contains(&tag) {
                r.error(
                    child,
                    "system-duplicate",
                    format!("`rules` has a second `{tag}`"),
                    "a `rules` has at most one of each of type, name, level, owner, contact",
                );
            }
            seen.push(tag);
            let value = r.data(child);
            if tag == "type" && value.as_ref().is_some_and(|v| v.text != "bid") {
                r.error(
                    child,
                    "system-type",
                    "this reader reads bidding rules only".to_string(),
                    "write <type>bid</type> (rules of `play` are not read)",
                );
            }
            if tag == "name" {
                system.name = value.map(|v| v.text);
            }
        } else if tag == "group" {
            if let Some(g) = r.group(child) {
                system.groups.push(g);
            }
        } else {
            let mut allowed = RULES_DATA.to_vec();
            allowed.push("group");
            r.unknown(child, &allowed, "`rules`");
        }
    }
    if r.errors.is_empty() {
        Ok(system)
    } else {
        Err(r.errors)
    }
}

struct Reader {
    file: FileId,
    errors: Vec<Diagnostic>,
}

impl Reader {
    /// Where `node`'s start tag begins: `<` and the name.
    fn start_tag(&self, node: Node) -> Span {
        let start = node.range().start;
        let len = 1 + node.tag_name().name().len();
        Span::new(self.file, start..(start + len).min(node.range().end))
    }

    fn error(&mut self, node: Node, code: &'static str, message: String, hint: &str) {
        let span = self.start_tag(node);
        self.errors
            .push(Diagnostic::error(code, span, message).with_hint(hint));
    }

    fn unknown(&mut self, node: Node, allowed: &[&str], within: &str) {
        let tag = node.tag_name().name();
        let hint = match closest(tag, allowed.iter().copied()) {
            Some(c) => format!("did you mean `{c}`? {within} holds {}", allowed.join(", ")),
            None => format!("{within} holds {}", allowed.join(", ")),
        };
        self.error(
            node,
            "system-element",
            format!("unknown element `{tag}` in {within}"),
            &hint,
        );
    }

    /// The element children of a container; text other than blanks in it is an error.
    fn elements<'a, 'i>(&mut self, node: Node<'a, 'i>) -> Vec<Node<'a, 'i>> {
        let mut out = Vec::new();
        for child in node.children() {
            if child.is_element() {
                out.push(child);
            } else if child.is_text() && child.text().is_some_and(|t| !t.trim().is_empty()) {
                let range = child.range();
                let text = child.text().unwrap_or_default();
                let lead = text.len() - text.trim_start().len();
                let at = range.start + lead;
                let end = (at + text.trim().len()).min(range.end);
                self.errors.push(
                    Diagnostic::error(
                        "system-text",
                        Span::new(self.file, at..end),
                        format!(
                            "text in `{}`, which holds elements only",
                            node.tag_name().name()
                        ),
                    )
                    .with_hint("put text in a data element (name, value, comment, bid, ...)"),
                );
            }
        }
        out
    }

    /// The text of a data element (trimmed; its place is the text's own); an element in
    /// it is an error.
    fn data(&mut self, node: Node) -> Option<Text> {
        let mut text = String::new();
        let mut range: Option<std::ops::Range<usize>> = None;
        let mut ok = true;
        for child in node.children() {
            if child.is_element() {
                let name = node.tag_name().name();
                self.error(
                    child,
                    "system-element",
                    format!("an element in `{name}`, which holds text only"),
                    "a data element holds text, not elements",
                );
                ok = false;
            } else if let Some(t) = child.text() {
                text.push_str(t);
                let r = child.range();
                range = Some(match range {
                    None => r,
                    Some(old) => old.start..r.end,
                });
            }
        }
        if !ok {
            return None;
        }
        let span = match range {
            Some(r) => {
                let whole = &text;
                let lead = whole.len() - whole.trim_start().len();
                let start = (r.start + lead).min(r.end);
                Span::new(self.file, start..(start + whole.trim().len()).min(r.end))
            }
            None => self.start_tag(node),
        };
        Some(Text {
            text: text.trim().to_string(),
            span,
        })
    }

    fn group(&mut self, node: Node) -> Option<Group> {
        let children = self.elements(node);
        let mut purpose = None;
        let mut rules = Vec::new();
        for (i, child) in children.iter().enumerate() {
            match child.tag_name().name() {
                "purpose" => {
                    if i != 0 {
                        self.error(
                            *child,
                            "system-order",
                            "a `purpose` that is not the first element of its `group`".into(),
                            "a `group` starts with its one `purpose`, then its `if`s",
                        );
                    }
                    purpose = self.data(*child).map(|t| t.text);
                }
                "if" => {
                    if let Some(r) = self.rule(*child) {
                        rules.push(r);
                    }
                }
                _ => self.unknown(*child, &["purpose", "if"], "`group`"),
            }
        }
        if children.first().map(|c| c.tag_name().name()) != Some("purpose") {
            self.error(
                node,
                "system-missing",
                "a `group` without a `purpose` first".into(),
                "write <purpose>what these rules are for</purpose> first in the group",
            );
        }
        Some(Group {
            purpose: purpose.unwrap_or_default(),
            rules,
        })
    }

    fn rule(&mut self, node: Node) -> Option<Rule> {
        let mut name = None;
        let mut comparison = None;
        let mut value = None;
        let mut items = Vec::new();
        let mut bids = 0;
        let mut ok = true;
        for child in self.elements(node) {
            let tag = child.tag_name().name();
            let once = |slot: &Option<Text>, r: &mut Reader| {
                if slot.is_some() {
                    r.error(
                        child,
                        "system-duplicate",
                        format!("an `if` with a second `{tag}`"),
                        "an `if` tests one quality: one name, one comparison, one value",
                    );
                }
            };
            match tag {
                "name" => {
                    once(&name, self);
                    name = self.data(child);
                }
                "comparison" => {
                    once(&comparison, self);
                    comparison = self.data(child);
                }
                "value" => {
                    once(&value, self);
                    value = self.data(child);
                }
                "if" => match self.rule(child) {
                    Some(r) => items.push(Item::If(r)),
                    None => ok = false,
                },
                "set" => match self.set(child) {
                    Some(s) => items.push(s),
                    None => ok = false,
                },
                "comment" => {
                    if let Some(t) = self.data(child) {
                        items.push(Item::Comment(t.text));
                    }
                }
                "bid" => {
                    bids += 1;
                    if bids == 2 {
                        self.error(
                            child,
                            "system-duplicate",
                            "an `if` with a second `bid`".into(),
                            "an `if` makes at most one bid: put the other in an `if` of its own",
                        );
                    }
                    if let Some(t) = self.data(child) {
                        match call_name(&t.text) {
                            Some(call) => items.push(Item::Bid(Text { text: call, ..t })),
                            None => {
                                self.errors.push(
                                    Diagnostic::error(
                                        "system-bid",
                                        t.span,
                                        format!("`{}` is not a call", t.text),
                                    )
                                    .with_hint(call_hint(&t.text)),
                                );
                            }
                        }
                    }
                }
                _ => self.unknown(
                    child,
                    &["name", "comparison", "value", "if", "set", "comment", "bid"],
                    "`if`",
                ),
            }
        }
        let missing = |what: &str, hint: &str, r: &mut Reader| {
            r.error(
                node,
                "system-missing",
                format!("an `if` without a `{what}`"),
                hint,
            );
        };
        if name.is_none() {
            missing(
                "name",
                "write the quality it tests: <name>points</name>",
                self,
            );
        }
        if value.is_none() {
            missing(
                "value",
                "write what the quality is compared with: <value>12</value> (a number, a text, or another quality's name)",
                self,
            );
        }
        let comparison = match comparison {
            None => {
                missing(
                    "comparison",
                    "write how it compares: <comparison>greater-or-equal</comparison>",
                    self,
                );
                None
            }
            Some(c) => match Comparison::NAMES.iter().find(|(n, _)| *n == c.text) {
                Some((_, k)) => Some(*k),
                None => {
                    let names: Vec<&str> = Comparison::NAMES.iter().map(|(n, _)| *n).collect();
                    let hint = match closest(&c.text, names.iter().copied()) {
                        Some(n) => format!(
                            "did you mean `{n}`? the comparisons are {}",
                            names.join(", ")
                        ),
                        None => format!("the comparisons are {}", names.join(", ")),
                    };
                    self.errors.push(
                        Diagnostic::error(
                            "system-comparison",
                            c.span,
                            format!("`{}` is not a comparison", c.text),
                        )
                        .with_hint(hint),
                    );
                    None
                }
            },
        };
        if !ok {
            return None;
        }
        Some(Rule {
            name: name?,
            comparison: comparison?,
            value: value?,
            items,
            span: self.start_tag(node),
        })
    }

    fn set(&mut self, node: Node) -> Option<Item> {
        let mut name = None;
        let mut value = None;
        for child in self.elements(node) {
            match child.tag_name().name() {
                "name" if name.is_none() => name = self.data(child),
                "value" if value.is_none() => value = self.data(child),
                "name" | "value" => self.error(
                    child,
                    "system-duplicate",
                    format!("a `set` with a second `{}`", child.tag_name().name()),
                    "a `set` gives one quality one value",
                ),
                _ => self.unknown(child, &["name", "value"], "`set`"),
            }
        }
        if name.is_none() || value.is_none() {
            let what = if name.is_none() { "name" } else { "value" };
            self.error(
                node,
                "system-missing",
                format!("a `set` without a `{what}`"),
                "write <set><name>quality</name><value>its value</value></set>",
            );
        }
        Some(Item::Set {
            name: name?,
            value: value?,
        })
    }
}

/// The ASCII name of a call written `text` (`1♠` is `1S`), or `None`.
pub(super) fn call_name(text: &str) -> Option<String> {
    if matches!(text, "Pass" | "Dbl" | "RDbl") {
        return Some(text.to_string());
    }
    let ascii: String = text
        .chars()
        .map(|c| match c {
            '♣' => 'C',
            '♦' => 'D',
            '♥' => 'H',
            '♠' => 'S',
            other => other,
        })
        .collect();
    let mut chars = ascii.chars();
    let level = chars.next()?;
    let strain = chars.as_str();
    (('1'..='7').contains(&level) && ["C", "D", "H", "S", "NT"].contains(&strain)).then_some(ascii)
}

fn call_hint(text: &str) -> String {
    let lower = text.to_lowercase();
    let fixed = match lower.as_str() {
        "pass" | "p" => Some("Pass".to_string()),
        "x" | "dbl" | "double" => Some("Dbl".to_string()),
        "xx" | "rdbl" | "redouble" => Some("RDbl".to_string()),
        _ => call_name(&text.to_uppercase()),
    };
    let calls =
        "the calls are Pass, Dbl, RDbl and the bids 1C 1D 1H 1S 1NT ... 7NT (1♣ 1♦ 1♥ 1♠ accepted)";
    match fixed {
        Some(f) => format!("did you mean `{f}`? {calls}"),
        None => calls.to_string(),
    }
}
