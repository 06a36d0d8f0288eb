//! Lowering of expressions and forms.

use std::ops::Range;

use crate::diagnostic::Diagnostic;

use super::super::ast::{Expr, ExprKind, FormOp, Symbol};
use super::super::reader::{Atom, Sexp};
use super::super::token::unescape;
use super::{Lowerer, is_word};

/// Words that only mean something inside a form; alone they are a mistake.
const STRAY_KEYWORDS: &[(&str, &str)] = &[
    (
        "else",
        "`else` belongs inside (if <condition> <body> else <body>)",
    ),
    ("end", "`end` closes (do <statement> ... end)"),
];

/// A cursor over the operands of one form, reporting what is missing or extra.
pub(super) struct Args<'x, 's> {
    items: &'x [Sexp<'s>],
    pub(super) pos: usize,
    /// Range of the whole form, for "missing" errors.
    form: Range<usize>,
    pub(super) usage: &'static str,
    pub(super) ok: bool,
}

impl<'x, 's> Args<'x, 's> {
    pub(super) fn new(
        items: &'x [Sexp<'s>],
        pos: usize,
        form: Range<usize>,
        usage: &'static str,
    ) -> Self {
        Args {
            items,
            pos,
            form,
            usage,
            ok: true,
        }
    }

    pub(super) fn peek(&self) -> Option<&'x Sexp<'s>> {
        self.items.get(self.pos)
    }

    pub(super) fn peek_word(&self, word: &str) -> bool {
        self.peek().is_some_and(|s| is_word(s, word))
    }

    pub(super) fn missing(&mut self, lw: &mut Lowerer<'_>, what: &str) {
        // Once one part is missing, so is everything after it: say so once.
        if !self.ok && self.pos >= self.items.len() {
            return;
        }
        self.ok = false;
        let end = self.form.end;
        let at = self
            .items
            .last()
            .map_or(self.form.clone(), |s| s.span().end..end);
        let span = lw.span(at);
        lw.error(
            Diagnostic::error("missing-operand", span, format!("missing {what}"))
                .with_label(format!("expected {what} here"))
                .with_hint(format!("usage: {}", self.usage)),
        );
    }

    /// The next operand as an expression.
    pub(super) fn expr(&mut self, lw: &mut Lowerer<'_>, what: &str) -> Expr {
        match self.peek() {
            Some(s) => {
                self.pos += 1;
                lw.expr(s)
            }
            None => {
                self.missing(lw, what);
                lw.error_expr(self.form.clone())
            }
        }
    }

    /// Expect the keyword `word`; report and do not advance if it is not there.
    pub(super) fn keyword(&mut self, lw: &mut Lowerer<'_>, word: &str) -> bool {
        match self.peek() {
            Some(s) if is_word(s, word) => {
                self.pos += 1;
                true
            }
            Some(s) => {
                self.ok = false;
                let span = lw.span(s.span());
                lw.error(
                    Diagnostic::error("expected-keyword", span, format!("expected `{word}`"))
                        .with_label(format!("`{word}` should come here"))
                        .with_hint(format!("usage: {}", self.usage)),
                );
                // A name in a keyword's place is most likely the keyword misspelt: skip
                // it so the operands after it line up. Anything else is an operand and
                // the keyword was left out.
                if matches!(s, Sexp::Atom(Atom::Ident(_), _)) {
                    self.pos += 1;
                }
                false
            }
            None => {
                self.missing(lw, &format!("`{word}`"));
                false
            }
        }
    }

    /// `with k v ...` if present (the keyword optional unless `required`).
    pub(super) fn attrs(&mut self, lw: &mut Lowerer<'_>, required: bool) -> Vec<(Expr, Expr)> {
        if !self.peek_word("with") {
            if required {
                self.keyword(lw, "with");
            }
            return Vec::new();
        }
        self.pos += 1;
        let mut pairs = Vec::new();
        while let Some(key) = self.peek() {
            self.pos += 1;
            let k = lw.expr(key);
            match self.peek() {
                Some(value) => {
                    self.pos += 1;
                    let v = lw.expr(value);
                    pairs.push((k, v));
                }
                None => {
                    self.ok = false;
                    let span = lw.span(key.span());
                    lw.error(
                        Diagnostic::error(
                            "attribute-without-value",
                            span,
                            "this attribute has no value",
                        )
                        .with_hint(
                            "after `with`, write keys and values in pairs: with \"key\" value ...",
                        ),
                    );
                }
            }
        }
        pairs
    }

    /// The next operand as a name (identifier or string).
    pub(super) fn name(
        &mut self,
        lw: &mut Lowerer<'_>,
        what: &str,
    ) -> Option<super::super::ast::Name> {
        match self.peek() {
            Some(s) => {
                self.pos += 1;
                let name = lw.name(s, what, self.usage);
                self.ok &= name.is_some();
                name
            }
            None => {
                self.missing(lw, what);
                None
            }
        }
    }

    /// The operands not yet taken.
    pub(super) fn rest(&mut self) -> &'x [Sexp<'s>] {
        let rest = &self.items[self.pos.min(self.items.len())..];
        self.pos = self.items.len();
        rest
    }

    /// Report operands left over.
    pub(super) fn finish(&mut self, lw: &mut Lowerer<'_>) {
        if let Some(extra) = self.items.get(self.pos) {
            self.ok = false;
            let last = self.items.last().map_or(extra.span(), |s| s.span());
            let span = lw.span(extra.span().start..last.end);
            lw.error(
                Diagnostic::error("extra-operand", span, "too many operands in this form")
                    .with_label("not expected here")
                    .with_hint(format!("usage: {}", self.usage)),
            );
            // Still lower them so errors inside are found.
            for s in &self.items[self.pos..] {
                lw.expr(s);
            }
            self.pos = self.items.len();
        }
    }
}

impl Lowerer<'_> {
    /// Lower one expression.
    pub fn expr(&mut self, s: &Sexp<'_>) -> Expr {
        match s {
            Sexp::Atom(atom, range) => self.atom(*atom, range.clone()),
            Sexp::Stray(range) => {
                self.stray(range.clone());
                self.error_expr(range.clone())
            }
            Sexp::List {
                items,
                span,
                closed,
            } => {
                self.check_closed(s);
                self.list(items, span.clone(), *closed)
            }
        }
    }

    fn atom(&mut self, atom: Atom<'_>, range: Range<usize>) -> Expr {
        let kind = match atom {
            Atom::Int(i) => ExprKind::Int(i),
            Atom::Float(x) => ExprKind::Float(x),
            Atom::Error(_) => ExprKind::Error,
            Atom::Str(body) => ExprKind::Str(Symbol::intern(&unescape(body))),
            Atom::Ident("nil") => ExprKind::Nil,
            Atom::Ident("true") => ExprKind::Bool(true),
            Atom::Ident("false") => ExprKind::Bool(false),
            Atom::Ident("message") => ExprKind::Message,
            Atom::Ident(word) => {
                if let Some((_, hint)) = STRAY_KEYWORDS.iter().find(|(k, _)| *k == word) {
                    let span = self.span(range.clone());
                    self.error(
                        Diagnostic::error(
                            if word == "else" {
                                "misplaced-else"
                            } else {
                                "misplaced-end"
                            },
                            span,
                            format!("misplaced `{word}`"),
                        )
                        .with_hint(*hint),
                    );
                    return self.error_expr(range);
                }
                ExprKind::Var(Symbol::intern(word))
            }
        };
        Expr {
            kind,
            span: self.span(range),
        }
    }

    fn list(&mut self, items: &[Sexp<'_>], range: Range<usize>, closed: bool) -> Expr {
        let Some(head) = items.first() else {
            if !closed {
                return self.error_expr(range); // reported as unclosed
            }
            let span = self.span(range.clone());
            self.error(
                Diagnostic::error("empty-form", span, "empty form `()`")
                    .with_hint("write `nil` for no value"),
            );
            return self.error_expr(range);
        };
        let word = match head {
            Sexp::Atom(Atom::Ident(w), _) => *w,
            Sexp::Atom(Atom::Error(_), _) => {
                for s in &items[1..] {
                    self.expr(s);
                }
                return self.error_expr(range);
            }
            other => {
                let span = self.span(other.span());
                self.error(
                    Diagnostic::error("form-without-name", span, "a form must start with a name")
                        .with_label("this is not a name")
                        .with_hint(
                            "call a function as (name arg ...); build a list with (list a b ...)",
                        ),
                );
                // The head is not lowered: in ((((x)))) one report is enough.
                for s in &items[1..] {
                    self.expr(s);
                }
                return self.error_expr(range);
            }
        };
        let kind = match word {
            "var" => self.var(items, range.clone()),
            "if" => self.if_form(items, range.clone()),
            "switch" => self.switch(items, range.clone()),
            "foreach" => self.foreach(items, range.clone()),
            "while" => {
                let mut a = Args::new(items, 1, range.clone(), "(while <condition> <body>)");
                let cond = a.expr(self, "the condition");
                let body = a.expr(self, "the body");
                a.finish(self);
                ExprKind::While {
                    cond: Box::new(cond),
                    body: Box::new(body),
                }
            }
            "do" => self.do_form(items, closed),
            "and" | "or" => {
                let args = self.statements(&items[1..]);
                if word == "and" {
                    ExprKind::And(args)
                } else {
                    ExprKind::Or(args)
                }
            }
            "return" => {
                let mut a = Args::new(items, 1, range.clone(), "(return) or (return <value>)");
                let value = a.peek().map(|_| Box::new(a.expr(self, "the value")));
                a.finish(self);
                ExprKind::Return(value)
            }
            _ => match self.form(word, items, range.clone()) {
                Some(kind) => kind,
                None => ExprKind::Call {
                    func: super::super::ast::Name {
                        sym: Symbol::intern(word),
                        span: self.span(head.span()),
                    },
                    args: self.statements(&items[1..]),
                },
            },
        };
        Expr {
            kind,
            span: self.span(range),
        }
    }

    fn var(&mut self, items: &[Sexp<'_>], range: Range<usize>) -> ExprKind {
        const USAGE: &str = "(var <name> <value>)";
        let mut a = Args::new(items, 1, range, USAGE);
        let name = match a.peek() {
            Some(s) => {
                a.pos += 1;
                self.ident(s, "a variable name", USAGE)
            }
            None => {
                a.missing(self, "the variable name");
                None
            }
        };
        let value = a.expr(self, "the value");
        a.finish(self);
        match name {
            Some(name) => ExprKind::VarDef {
                name,
                value: Box::new(value),
            },
            None => ExprKind::Error,
        }
    }

    fn if_form(&mut self, items: &[Sexp<'_>], range: Range<usize>) -> ExprKind {
        const USAGE: &str = "(if <condition> <body>) or (if <condition> <body> else <body>)";
        let mut a = Args::new(items, 1, range, USAGE);
        let cond = a.expr(self, "the condition");
        if a.peek_word("else") {
            let span = self.span(a.peek().map(|s| s.span()).unwrap_or_default());
            self.error(
                Diagnostic::error("misplaced-else", span, "`else` before the body of `if`")
                    .with_hint(format!("usage: {USAGE}")),
            );
            a.pos += 1;
        }
        let then = a.expr(self, "the body");
        let otherwise = match a.peek() {
            None => None,
            Some(s) if is_word(s, "else") => {
                a.pos += 1;
                Some(Box::new(a.expr(self, "the body after `else`")))
            }
            Some(s) => {
                let span = self.span(s.span());
                self.error(
                    Diagnostic::error(
                        "if-without-else",
                        span,
                        "a second body in `if` without `else`",
                    )
                    .with_label("`else` is missing before this")
                    .with_hint(
                        "write (if c a else b); to run several statements, wrap them in (do ... end)",
                    ),
                );
                a.pos += 1;
                Some(Box::new(self.expr(s)))
            }
        };
        if a.peek_word("else") {
            let span = self.span(a.peek().map(|s| s.span()).unwrap_or_default());
            self.error(
                Diagnostic::error("misplaced-else", span, "a second `else` in `if`")
                    .with_hint("chain conditions as (if a x else (if b y else z))"),
            );
            a.pos += 1;
        }
        a.finish(self);
        if !a.ok {
            return ExprKind::Error;
        }
        ExprKind::If {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise,
        }
    }

    fn switch(&mut self, items: &[Sexp<'_>], range: Range<usize>) -> ExprKind {
        const USAGE: &str = "(switch <value> (case <value> <body>) ... (default <body>))";
        let mut a = Args::new(items, 1, range, USAGE);
        let value = a.expr(self, "the value to switch on");
        let mut cases = Vec::new();
        let mut default: Option<Box<Expr>> = None;
        for clause in &items[a.pos.min(items.len())..] {
            let (clause_items, clause_range) = match clause {
                Sexp::List { items, span, .. } => {
                    self.check_closed(clause);
                    (items.as_slice(), span.clone())
                }
                other => {
                    let span = self.span(other.span());
                    self.error(
                        Diagnostic::error(
                            "bad-switch-clause",
                            span,
                            "expected (case <value> <body>) or (default <body>)",
                        )
                        .with_hint(format!("usage: {USAGE}")),
                    );
                    continue;
                }
            };
            let first = clause_items.first();
            if first.is_some_and(|s| is_word(s, "case")) {
                let mut c = Args::new(clause_items, 1, clause_range, "(case <value> <body>)");
                let v = c.expr(self, "the value");
                let body = c.expr(self, "the body");
                c.finish(self);
                if default.is_some() {
                    let span = self.span(clause.span());
                    self.error(
                        Diagnostic::error(
                            "case-after-default",
                            span,
                            "`case` after `default` can never run",
                        )
                        .with_hint("put (default ...) last"),
                    );
                }
                cases.push((v, body));
            } else if first.is_some_and(|s| is_word(s, "default")) {
                let mut c = Args::new(clause_items, 1, clause_range, "(default <body>)");
                let body = c.expr(self, "the body");
                c.finish(self);
                if default.is_some() {
                    let span = self.span(clause.span());
                    self.error(Diagnostic::error(
                        "duplicate-default",
                        span,
                        "a second `default` in `switch`",
                    ));
                }
                default = Some(Box::new(body));
            } else {
                let span = self.span(clause.span());
                self.error(
                    Diagnostic::error(
                        "bad-switch-clause",
                        span,
                        "expected (case <value> <body>) or (default <body>)",
                    )
                    .with_hint(format!("usage: {USAGE}")),
                );
            }
        }
        ExprKind::Switch {
            value: Box::new(value),
            cases,
            default,
        }
    }

    fn foreach(&mut self, items: &[Sexp<'_>], range: Range<usize>) -> ExprKind {
        const USAGE: &str = "(foreach <name> in <list> <body>)";
        let mut a = Args::new(items, 1, range, USAGE);
        let var = match a.peek() {
            Some(s) => {
                a.pos += 1;
                self.ident(s, "the loop variable", USAGE)
            }
            None => {
                a.missing(self, "the loop variable");
                None
            }
        };
        a.keyword(self, "in");
        let iter = a.expr(self, "the list");
        let body = a.expr(self, "the body");
        a.finish(self);
        match var {
            Some(var) if a.ok => ExprKind::Foreach {
                var,
                iter: Box::new(iter),
                body: Box::new(body),
            },
            _ => ExprKind::Error,
        }
    }

    fn do_form(&mut self, items: &[Sexp<'_>], closed: bool) -> ExprKind {
        let end = items.iter().position(|s| is_word(s, "end"));
        match end {
            Some(i) if i == items.len() - 1 => ExprKind::Do(self.statements(&items[1..i])),
            Some(i) => {
                let span = self.span(items[i + 1].span().start..items[items.len() - 1].span().end);
                self.error(
                    Diagnostic::error("statement-after-end", span, "statements after `end`")
                        .with_hint("`end` must be the last word of (do <statement> ... end)"),
                );
                let body = self.statements(&items[1..i]);
                self.statements(&items[i + 1..]);
                ExprKind::Do(body)
            }
            None if !closed => ExprKind::Do(self.statements(&items[1..])),
            None => {
                let head = self.span(items[0].span());
                self.error(
                    Diagnostic::error("do-without-end", head, "`do` without `end`")
                        .with_label("this block has no `end`")
                        .with_hint("close the block as (do <statement> ... end)"),
                );
                ExprKind::Do(self.statements(&items[1..]))
            }
        }
    }

    /// The keyword forms. `None` when `word` starts none (it is then a call).
    fn form(&mut self, word: &str, items: &[Sexp<'_>], range: Range<usize>) -> Option<ExprKind> {
        use FormOp::*;
        let second = |w: &str| items.get(1).is_some_and(|s| is_word(s, w));
        let (op, start) = match word {
            "changeState" => (ChangeState, 1),
            "new" if second("property") => (NewProperty, 2),
            "new" if second("message") => (NewMessage, 2),
            "new" if second("graphic") => (NewGraphic, 2),
            "new" if second("entity") => (NewEntity, 2),
            "new" => {
                return Some(self.bad_variant(
                    items,
                    range,
                    "new",
                    &["property", "message", "graphic", "entity"],
                ));
            }
            "property" if items.len() > 2 => (PropertyOf, 1),
            "property" => (Property, 1),
            "update" if second("property") && items.get(3).is_some_and(|s| is_word(s, "of")) => {
                (UpdatePropertyOf, 2)
            }
            "update" if second("property") => (UpdateProperty, 2),
            "update" if second("message") => (UpdateAttribute, 2),
            "update" if second("graphic") => (UpdateGraphic, 2),
            "update" => {
                return Some(self.bad_variant(
                    items,
                    range,
                    "update",
                    &["property", "message", "graphic"],
                ));
            }
            "send" if second("new") => (SendNew, 2),
            "send" => (Send, 1),
            "forward" => (Forward, 1),
            "attribute" if items.len() > 2 => (AttributeOf, 1),
            "attribute" => (Attribute, 1),
            "label" if items.len() > 1 => (LabelOf, 1),
            "label" => (Label, 1),
            "state" if items.len() > 1 => (StateOf, 1),
            "state" => (State, 1),
            "type" => (TypeOf, 1),
            "entities" => (EntitiesOf, 1),
            "open" => (OpenCheckpoint, 1),
            "rollback" => (Rollback, 1),
            "delete" if second("graphic") => (DeleteGraphic, 2),
            "delete" if second("entity") => (DeleteEntity, 2),
            "delete" => {
                return Some(self.bad_variant(items, range, "delete", &["graphic", "entity"]));
            }
            "observe" => (Observe, 1),
            "on" => {
                let emit = items.get(3).is_some_and(|s| is_word(s, "emit"));
                (if emit { OnClickEmit } else { OnClickNotify }, 1)
            }
            "wait" => (WaitSignal, 1),
            "match" => (Match, 1),
            "finish" => (Finish, 1),
            _ => return None,
        };
        let mut a = Args::new(items, start, range, op.usage());
        let mut args = Vec::new();
        let mut attrs = Vec::new();
        match op {
            ChangeState | Property | Attribute | Rollback | DeleteGraphic | DeleteEntity => {
                args.push(a.expr(self, &format!("the {}", op.operands()[0])));
            }
            Label | State | Finish => {}
            NewProperty => {
                args.push(a.expr(self, "the property name"));
                a.keyword(self, "as");
                args.push(a.expr(self, "the value"));
            }
            PropertyOf | AttributeOf => {
                args.push(a.expr(self, &format!("the {}", op.operands()[0])));
                a.keyword(self, "of");
                args.push(a.expr(self, &format!("the {}", op.operands()[1])));
            }
            LabelOf | StateOf | TypeOf | EntitiesOf => {
                a.keyword(self, "of");
                args.push(a.expr(self, &format!("the {}", op.operands()[0])));
            }
            UpdateProperty => {
                args.push(a.expr(self, "the property name"));
                a.keyword(self, "to");
                args.push(a.expr(self, "the value"));
            }
            UpdatePropertyOf => {
                args.push(a.expr(self, "the property name"));
                a.keyword(self, "of");
                args.push(a.expr(self, "the entity"));
                a.keyword(self, "to");
                args.push(a.expr(self, "the value"));
            }
            UpdateAttribute => {
                a.keyword(self, "attribute");
                args.push(a.expr(self, "the attribute key"));
                a.keyword(self, "to");
                args.push(a.expr(self, "the value"));
            }
            UpdateGraphic => {
                args.push(a.expr(self, "the graphic id"));
                a.keyword(self, "attribute");
                args.push(a.expr(self, "the attribute"));
                a.keyword(self, "to");
                args.push(a.expr(self, "the value"));
            }
            SendNew => {
                a.keyword(self, "message");
                args.push(a.expr(self, "the label"));
                a.keyword(self, "to");
                args.push(a.expr(self, "the recipient"));
            }
            Send => {
                args.push(a.expr(self, "the message"));
                a.keyword(self, "to");
                args.push(a.expr(self, "the recipient"));
            }
            NewMessage => args.push(a.expr(self, "the label")),
            NewGraphic => args.push(a.expr(self, "the graphic id")),
            NewEntity => {
                args.push(a.expr(self, "the entity name"));
                a.keyword(self, "of");
                args.push(a.expr(self, "the type"));
            }
            Forward => {
                a.keyword(self, "message");
                a.keyword(self, "to");
                args.push(a.expr(self, "the recipient"));
            }
            OpenCheckpoint => {
                a.keyword(self, "checkpoint");
            }
            Observe => {
                args.push(a.expr(self, "the property name"));
                a.keyword(self, "notify");
                args.push(a.expr(self, "the label"));
            }
            OnClickNotify | OnClickEmit => {
                args.push(a.expr(self, "the graphic id"));
                a.keyword(self, "clicked");
                if op == OnClickEmit {
                    a.pos += 1; // `emit`, checked above
                    args.push(a.expr(self, "the signal"));
                    a.keyword(self, "with");
                    args.push(a.expr(self, "the tag"));
                } else {
                    a.keyword(self, "notify");
                    args.push(a.expr(self, "the message"));
                }
            }
            WaitSignal => {
                a.keyword(self, "signal");
                args.push(a.expr(self, "the signal"));
                if a.ok {
                    attrs = self.wait_clauses(&mut a);
                }
            }
            Match => {
                args.push(a.expr(self, "the key"));
                a.keyword(self, "in");
                args.push(a.expr(self, "the dictionary"));
            }
        }
        if matches!(op, SendNew | NewMessage | NewGraphic | NewEntity) {
            attrs = a.attrs(self, false);
        } else if op == Finish {
            attrs = a.attrs(self, true);
        }
        a.finish(self);
        Some(if a.ok {
            ExprKind::Form { op, args, attrs }
        } else {
            ExprKind::Error
        })
    }

    /// The optional clauses of `(wait signal <signal> from <player> among <list>)`, in
    /// that order, as (keyword, operand) pairs: the keyword a string naming the clause.
    fn wait_clauses(&mut self, a: &mut Args<'_, '_>) -> Vec<(Expr, Expr)> {
        const CLAUSES: [(&str, &str); 2] = [
            ("from", "the player who answers"),
            ("among", "the list of answers"),
        ];
        let mut clauses = Vec::new();
        for (i, (word, what)) in CLAUSES.into_iter().enumerate() {
            let Some(keyword) = a.peek().filter(|s| is_word(s, word)) else {
                continue;
            };
            a.pos += 1;
            let key = Expr {
                kind: ExprKind::Str(Symbol::intern(word)),
                span: self.span(keyword.span()),
            };
            // A clause keyword in the operand's place: the operand is missing.
            if let Some(next) = a
                .peek()
                .filter(|s| CLAUSES.iter().any(|(w, _)| is_word(s, w)))
            {
                a.ok = false;
                let span = self.span(next.span());
                self.error(
                    Diagnostic::error("missing-operand", span, format!("missing {what}"))
                        .with_label(format!("expected {what} after `{word}`, before this"))
                        .with_hint(format!("usage: {}", a.usage)),
                );
                a.rest();
                return clauses;
            }
            clauses.push((key, a.expr(self, what)));
            // A clause that comes back, or comes too late.
            if let Some(s) = a.peek()
                && let Some((earlier, _)) = CLAUSES[..=i].iter().find(|(w, _)| is_word(s, w))
            {
                a.ok = false;
                let span = self.span(s.span());
                let message = if *earlier == word {
                    format!("`{word}` is given twice")
                } else {
                    format!("`{earlier}` comes before `{word}`")
                };
                self.error(
                    Diagnostic::error("misplaced-clause", span, message)
                        .with_label("not expected here")
                        .with_hint(format!("usage: {}", a.usage)),
                );
                a.rest();
                return clauses;
            }
        }
        // A word where a clause belongs: most likely one misspelt.
        if let Some(s @ Sexp::Atom(Atom::Ident(_), _)) = a.peek() {
            a.ok = false;
            let span = self.span(s.span());
            self.error(
                Diagnostic::error("expected-keyword", span, "expected `from` or `among`")
                    .with_label("a clause of `wait signal` should come here")
                    .with_hint(format!("usage: {}", a.usage)),
            );
            a.rest();
        }
        clauses
    }

    fn bad_variant(
        &mut self,
        items: &[Sexp<'_>],
        range: Range<usize>,
        word: &str,
        choices: &[&str],
    ) -> ExprKind {
        let at = items.get(1).map_or(range, |s| s.span());
        let span = self.span(at);
        let list = choices
            .iter()
            .map(|c| format!("`{word} {c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        self.error(
            Diagnostic::error("unknown-form", span, format!("unknown `{word}` form"))
                .with_label(format!("expected one of {}", choices.join(", ")))
                .with_hint(format!("the `{word}` forms are {list}")),
        );
        for s in &items[1..] {
            self.expr(s);
        }
        ExprKind::Error
    }
}
