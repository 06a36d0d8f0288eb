//! Conditions that are always true because they are numbers (`0` is true: only `nil` and
//! `false` are false), and literal divisions by zero.
//!
//! A value is known to be a number when it is a number literal, a call of a builtin that
//! only gives numbers (`+ - * / % abs length sum random`), or a read of a property or
//! attribute that only ever holds numbers: every value the game gives it (a `#property`
//! default, an `#instance` or `new entity` value, every `update property`, `new property`,
//! `with` or `update message attribute`) is itself such a value, and nothing gives it a
//! value whose name is computed. A property whose default is `nil` is nil-or-number, a
//! fair truth test, and is not warned about.

use super::names::literal;
use super::*;

/// Builtins whose every result is a number.
const NUMBER_BUILTINS: &[&str] = &["+", "-", "*", "/", "%", "abs", "length", "sum", "random"];

/// What the game gives properties and attributes, gathered before code is checked.
#[derive(Default)]
pub(super) struct Numbers {
    /// Property name -> whether every value given it is a number.
    props: FxHashMap<Symbol, bool>,
    /// Some code writes a property whose name is computed.
    any_prop: bool,
    /// Attribute key -> whether every value given it is a number.
    attrs: FxHashMap<Symbol, bool>,
    /// Some code gives an attribute whose key is computed.
    any_attr: bool,
}

fn note(map: &mut FxHashMap<Symbol, bool>, key: Symbol, number: bool) {
    let v = map.entry(key).or_insert(true);
    *v &= number;
}

impl Checker {
    /// Note a value given to property `name`.
    pub(super) fn note_property_value(&mut self, name: Symbol, value: &Expr) {
        let n = self.is_number(value);
        note(&mut self.numbers.props, name, n);
    }

    /// Note the values a form gives properties and attributes.
    pub(super) fn note_numbers(&mut self, op: FormOp, args: &[Expr], attrs: &[(Expr, Expr)]) {
        let (name, value) = match op {
            FormOp::NewProperty | FormOp::UpdateProperty => (args.first(), args.get(1)),
            FormOp::UpdatePropertyOf => (args.first(), args.get(2)),
            FormOp::UpdateAttribute => {
                match (literal(args.first()), args.get(1)) {
                    (Some(k), Some(v)) => {
                        let n = self.is_number(v);
                        note(&mut self.numbers.attrs, k, n);
                    }
                    _ => self.numbers.any_attr = true,
                }
                return;
            }
            FormOp::SendNew | FormOp::NewMessage => {
                for (k, v) in attrs {
                    match literal(Some(k)) {
                        Some(k) => {
                            let n = self.is_number(v);
                            note(&mut self.numbers.attrs, k, n);
                        }
                        None => self.numbers.any_attr = true,
                    }
                }
                return;
            }
            _ => return,
        };
        match (literal(name), value) {
            (Some(p), Some(v)) => self.note_property_value(p, v),
            _ => self.numbers.any_prop = true,
        }
    }

    /// Whether `e` always evaluates to a number.
    fn is_number(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) => true,
            ExprKind::Call { func, .. } => NUMBER_BUILTINS.contains(&func.sym.as_str()),
            _ => false,
        }
    }

    /// What `e` reads that only ever holds numbers, for the warning's words; `None` when
    /// it may be something else.
    fn number_read(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) => Some("this condition is a number".into()),
            ExprKind::Call { func, .. } if self.is_number(e) => {
                Some(format!("`{}` gives a number", func.sym.as_str()))
            }
            ExprKind::Form {
                op: FormOp::Property | FormOp::PropertyOf,
                args,
                ..
            } => {
                let p = literal(args.first())?;
                (!self.numbers.any_prop
                    && !self.names_any_prop()
                    && self.numbers.props.get(&p) == Some(&true))
                .then(|| format!("property `{p}` only ever holds numbers"))
            }
            ExprKind::Form {
                op: FormOp::Attribute | FormOp::AttributeOf,
                args,
                ..
            } => {
                let k = literal(args.first())?;
                (!self.numbers.any_attr && self.numbers.attrs.get(&k) == Some(&true))
                    .then(|| format!("every message gives attribute `{k}` a number"))
            }
            _ => None,
        }
    }

    /// Check an expression whose truth is tested (a condition, an operand of `not`, an
    /// operand of `and`/`or` but its last, which the `and`/`or` itself checks when its
    /// own truth is tested).
    pub(super) fn truth(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::And(items) | ExprKind::Or(items) => {
                if let Some(last) = items.last() {
                    self.truth(last);
                }
            }
            _ => {
                if let Some(what) = self.number_read(e) {
                    let shown = shown(e);
                    self.diags.push(
                        Diagnostic::warning(
                            "number-condition",
                            e.span,
                            format!(
                                "{what}, so this test is always true: every number is true, 0 included (only nil and false are false)"
                            ),
                        )
                        .with_hint(format!("use (!= {shown} 0) to test for zero")),
                    );
                }
            }
        }
    }

    /// A warning for `(/ x 0)`, `(% x 0)`: a literal zero divisor fails whenever it runs,
    /// which is sometimes the point (a branch written to fail when it is reached).
    pub(super) fn check_division(&mut self, func: Symbol, args: &[Expr]) {
        if !matches!(func.as_str(), "/" | "%") {
            return;
        }
        for d in args.iter().skip(1) {
            let zero = match d.kind {
                ExprKind::Int(0) => true,
                ExprKind::Float(x) => x == 0.0,
                _ => false,
            };
            if zero {
                self.diags.push(
                    Diagnostic::error(
                        "division-by-zero",
                        d.span,
                        format!("`{}` by zero fails whenever it runs", func.as_str()),
                    )
                    .with_hint(
                        "divide by a number other than 0, or test the divisor first; to stop \
                         a transaction on purpose, use (fail \"why\")",
                    ),
                );
            }
        }
    }
}

/// How the hint writes the expression tested.
fn shown(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(i) => i.to_string(),
        ExprKind::Float(x) => x.to_string(),
        ExprKind::Call { func, .. } => format!("({} ...)", func.sym.as_str()),
        ExprKind::Form { op, args, .. } => {
            let word = match op {
                FormOp::Property | FormOp::PropertyOf => "property",
                _ => "attribute",
            };
            let name = literal(args.first()).map_or("", |s| s.as_str());
            let of = if args.len() > 1 { " of ..." } else { "" };
            format!("({word} \"{name}\"{of})")
        }
        _ => "x".to_string(),
    }
}
