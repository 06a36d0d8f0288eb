//! Bodies compiled a second time, for the fast tier (see `vm/fast.rs` and
//! `docs/machine.md`): the checked AST each compiled body keeps becomes a tree of
//! closures, one per expression, each returning its value. The one place the runtime
//! reads the AST.
//!
//! Each closure counts exactly the steps of the instructions `compile/codegen.rs` emits
//! for its expression (the fused instructions count as the plain sequences they stand
//! for), so a body counts the same steps on either tier; the differential tests
//! (`tests/tiers.rs`, `tests/hostile_programs.rs`) check it. A body that sends a message,
//! rolls back, waits or asks which moves are legal is not built: those always leave the
//! fast tier. Nor is a body calling a function that is not built.

use std::sync::Arc;

use crate::compile::builtins::BUILTINS;
use crate::compile::bytecode::{Code, CodeId, IntOp, IntValue, Op, Read};
use crate::compile::codegen::{SelfUpdate, self_update};
use crate::compile::program::Game;
use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::{Expr, ExprKind, FormOp};

use super::super::budget::equal_in_step;
use super::super::builtins::{PureFn, contains_letter, pure_fn, read_fast};
use super::super::value::Value;
use super::super::value::attrs::key_order;
use super::fast::{Done, FastCode, Fx, MessageShape, Node, Outermost};
use super::fused::int_value;

/// The fast form of each body of a game that can run on the fast tier, by [`CodeId`].
#[derive(Clone, Debug, Default)]
pub struct FastTable {
    codes: Vec<Option<FastCode>>,
    /// How a transaction's outermost join point is run when not by the instruction
    /// loop (the code generator's, with the `jit` feature).
    pub(super) outermost: Option<Outermost>,
}

impl FastTable {
    /// The fast table of `game` its sessions share, and with it the machine code compiled
    /// for its bodies and the counts that make a body due: the one kept in the game
    /// ([`Game::fast`]), or one built and kept when there is none or it was built for
    /// less code. A server's tables or a script's matches of one game compile each body
    /// once, not once each.
    pub fn of(game: &Game) -> Arc<FastTable> {
        let mut kept = game.fast.lock();
        let found = kept.clone().and_then(|t| t.downcast::<FastTable>().ok());
        if let Some(table) = found.filter(|t| t.covers(game)) {
            return table;
        }
        let table = Arc::new(FastTable::build(game));
        *kept = Some(table.clone());
        table
    }

    /// Build the fast form of every body of `game` that can have one.
    pub fn build(game: &Game) -> FastTable {
        let mut codes: Vec<Option<FastCode>> =
            game.codes.iter().map(|c| build_code(c, game)).collect();
        // The chains compiled by hand in their bodies' places, and only the bodies the
        // instrument keeps, before the rules below apply to them.
        #[cfg(feature = "hand-chains")]
        super::hand_chains::substitute(game, &mut codes);
        // Machine code in the closures' places, for the bodies the generator takes.
        #[cfg(feature = "jit")]
        let outermost = super::jit::substitute(game, &mut codes).map(|jit| {
            Outermost(std::sync::Arc::new(move |m, cx| {
                super::jit::outermost(&jit, m, cx)
            }))
        });
        #[cfg(not(feature = "jit"))]
        let outermost = None;
        // A body calling a function without a fast form has none (until none does).
        loop {
            let slow: Vec<bool> = codes.iter().map(Option::is_none).collect();
            let mut changed = false;
            for code in &mut codes {
                if code
                    .as_ref()
                    .is_some_and(|f| f.callees.iter().any(|c| slow[c.0 as usize]))
                {
                    *code = None;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // A function that calls one with a frame has one too (until none changes).
        loop {
            let framed: Vec<bool> = codes
                .iter()
                .map(|c| c.as_ref().is_some_and(|f| f.frame))
                .collect();
            let mut changed = false;
            for code in codes.iter_mut().flatten() {
                if !code.frame && code.callees.iter().any(|c| framed[c.0 as usize]) {
                    code.frame = true;
                    changed = true;
                }
            }
            if !changed {
                return FastTable { codes, outermost };
            }
        }
    }

    /// The fast form of body `code`, if it has one.
    #[inline(always)]
    pub(crate) fn get(&self, code: CodeId) -> Option<&FastCode> {
        self.codes.get(code.0 as usize).and_then(Option::as_ref)
    }

    /// Whether the table was built for every body of `game` (a game given more code
    /// since, a house rule or a REPL expression, needs it built again).
    pub fn covers(&self, game: &Game) -> bool {
        self.codes.len() == game.codes.len()
    }
}

/// `code` built for the fast tier, when every expression in it can run there.
fn build_code(code: &Code, game: &Game) -> Option<FastCode> {
    let body = code.ast.as_deref()?;
    let return_at = code
        .ops
        .iter()
        .position(|op| *op == Op::Return)
        .map_or(u32::MAX, |i| i as u32);
    let mut b = Builder {
        locals: &code.local_names,
        game,
        callees: Vec::new(),
        nodes: 0,
        loops: false,
        sends: false,
    };
    let node = b.sequence(body)?;
    // A body's start is handed to the fast tier when it does enough there to pay for the
    // handing over: it loops, calls a function, sends, or is long.
    let entered = b.loops || b.sends || !b.callees.is_empty() || b.nodes >= ENTERED_NODES;
    Some(FastCode::new(
        node,
        b.callees,
        return_at,
        entered,
        code.locals as usize,
        b.sends,
    ))
}

/// How many expressions a body without loops or calls has at least for the instruction
/// loop to hand its start to the fast tier (below this, the handing over costs about what
/// the interpreter's fused instructions take).
const ENTERED_NODES: usize = 24;

struct Builder<'a> {
    locals: &'a [Symbol],
    game: &'a Game,
    callees: Vec<CodeId>,
    /// Expressions compiled.
    nodes: usize,
    /// Whether the body has a loop.
    loops: bool,
    /// Whether the body sends a message.
    sends: bool,
}

/// A closure, boxed as a [`Node`].
fn node(f: impl Fn(&mut Fx<'_, '_>) -> Done + Send + Sync + 'static) -> Node {
    Box::new(f)
}

/// A constant of one step.
fn constant(v: fn() -> Value) -> Node {
    node(move |fx| {
        fx.step(1);
        Ok(v())
    })
}

/// Call pure builtin `f` on `a` and `b` (the general way of a binary operator).
#[cold]
#[inline(never)]
fn binary_slowly(fx: &mut Fx<'_, '_>, f: PureFn, a: Value, b: Value) -> Done {
    let at = fx.top();
    fx.push(a);
    fx.push(b);
    fx.pure(f, at)
}

/// A value tested for its truth: an operator on locals and constants is done in place.
enum Test {
    /// `(op local k)`: 3 steps.
    LocalConst(IntOp, usize, i64, PureFn),
    /// `(op local local)`: 3 steps.
    Locals(IntOp, usize, usize, PureFn),
    /// Any other expression.
    Node(Node),
}

impl Test {
    #[inline(always)]
    fn eval(&self, fx: &mut Fx<'_, '_>) -> Result<bool, super::fast::Exit> {
        let v = match *self {
            Test::LocalConst(op, a, k, f) => {
                fx.step(3);
                if let Value::Int(p) = *fx.local(a)
                    && let Some(r) = op.apply(p, k)
                {
                    return Ok(matches!(r, IntValue::Bool(true)) || matches!(r, IntValue::Int(_)));
                }
                if matches!(op, IntOp::Eq | IntOp::Ne)
                    && let Some(same) = equal_in_step(fx.local(a), &Value::Int(k))
                {
                    return Ok(same == (op == IntOp::Eq));
                }
                let x = fx.local(a).clone();
                binary_slowly(fx, f, x, Value::Int(k))?
            }
            Test::Locals(op, a, b, f) => {
                fx.step(3);
                if let (Value::Int(p), Value::Int(q)) = (fx.local(a), fx.local(b))
                    && let Some(r) = op.apply(*p, *q)
                {
                    return Ok(matches!(r, IntValue::Bool(true)) || matches!(r, IntValue::Int(_)));
                }
                if matches!(op, IntOp::Eq | IntOp::Ne)
                    && let Some(same) = equal_in_step(fx.local(a), fx.local(b))
                {
                    return Ok(same == (op == IntOp::Eq));
                }
                let (x, y) = (fx.local(a).clone(), fx.local(b).clone());
                binary_slowly(fx, f, x, y)?
            }
            Test::Node(ref n) => n(fx)?,
        };
        let t = v.truthy();
        Value::release(v);
        Ok(t)
    }
}

/// An operand of a binary operator: read in place when it is a local or a constant.
enum Operand {
    Local(usize),
    Int(i64),
    Node(Node),
}

impl Builder<'_> {
    fn slot(&self, sym: Symbol) -> Option<usize> {
        self.locals.iter().position(|s| *s == sym)
    }

    /// A body or `do`: each expression but the last for its effect, then the last.
    fn sequence(&mut self, body: &[Expr]) -> Option<Node> {
        let Some((last, init)) = body.split_last() else {
            return Some(constant(|| Value::Nil));
        };
        let init: Vec<Node> = init
            .iter()
            .map(|e| self.discard(e))
            .collect::<Option<_>>()?;
        let last = self.expr(last)?;
        if init.is_empty() {
            return Some(last);
        }
        Some(node(move |fx| {
            for e in &init {
                e(fx)?;
            }
            last(fx)
        }))
    }

    /// `e` for its effect only (its value is nil).
    fn discard(&mut self, e: &Expr) -> Option<Node> {
        match &e.kind {
            ExprKind::VarDef { name, value } => {
                let slot = self.slot(name.sym)?;
                if let Some(Test::LocalConst(op, a, k, f)) = self.test(value) {
                    // `(var i (+ i 1))`: `SetLocalConst`.
                    return Some(node(move |fx| {
                        fx.step(4);
                        if let Value::Int(p) = *fx.local(a)
                            && let Some(r) = op.apply(p, k)
                        {
                            fx.set_local(slot, int_value(r));
                            return Ok(Value::Nil);
                        }
                        let x = fx.local(a).clone();
                        let v = binary_slowly(fx, f, x, Value::Int(k))?;
                        fx.set_local(slot, v);
                        Ok(Value::Nil)
                    }));
                }
                let counted = self.count_in_dict(name.sym, value);
                let value = self.assigned_value(name.sym, value)?;
                if let Some((k, default, n)) = counted {
                    // `(var d (put d k (+ (get d k default) n)))`: `PutAdd`, the dictionary
                    // searched once and updated where it lies.
                    return Some(node(move |fx| {
                        if fx.put_add(slot, k, default, n) {
                            fx.step(10);
                            return Ok(Value::Nil);
                        }
                        let v = value(fx)?;
                        fx.step(1);
                        fx.set_local(slot, v);
                        Ok(Value::Nil)
                    }));
                }
                Some(node(move |fx| {
                    let v = value(fx)?;
                    fx.step(1);
                    fx.set_local(slot, v);
                    Ok(Value::Nil)
                }))
            }
            ExprKind::Do(items) if !items.is_empty() => {
                let items: Vec<Node> = items
                    .iter()
                    .map(|e| self.discard(e))
                    .collect::<Option<_>>()?;
                Some(node(move |fx| {
                    for e in &items {
                        e(fx)?;
                    }
                    Ok(Value::Nil)
                }))
            }
            _ => {
                let e = self.expr(e)?;
                Some(node(move |fx| {
                    Value::release(e(fx)?);
                    fx.step(1);
                    Ok(Value::Nil)
                }))
            }
        }
    }

    /// The value of `(var var value)`, moving `var`'s own value into an update of it as
    /// `codegen` does ([`self_update`]).
    fn assigned_value(&mut self, var: Symbol, value: &Expr) -> Option<Node> {
        let slot = self.slot(var);
        match (self_update(var, value, &self.game.function_ids), slot) {
            (Some(SelfUpdate::Taken { builtin, rest, .. }), Some(slot)) => {
                let f = pure_fn(builtin as usize)?;
                let mut nodes = vec![take(slot)];
                for a in rest {
                    nodes.push(self.expr(a)?);
                }
                Some(pure_call(f, nodes))
            }
            (Some(SelfUpdate::After { builtin, rest, .. }), Some(slot)) => {
                let f = pure_fn(builtin as usize)?;
                let rest: Vec<Node> = rest.iter().map(|a| self.expr(a)).collect::<Option<_>>()?;
                Some(node(move |fx| {
                    // The place held for it (`Hole`), the others, then it (`UpdateLocal`).
                    let at = fx.top();
                    fx.step(1);
                    fx.push(Value::Nil);
                    for a in &rest {
                        let v = a(fx)?;
                        fx.push(v);
                    }
                    fx.step(1);
                    let v = fx.take_local(slot);
                    fx.put_arg(at, v);
                    fx.pure(f, at)
                }))
            }
            (Some(SelfUpdate::Given { func, args, at }), Some(slot)) => {
                let code = self.function(func.sym)?;
                let mut nodes = Vec::with_capacity(args.len());
                for (i, a) in args.iter().enumerate() {
                    nodes.push(if i == at { take(slot) } else { self.expr(a)? });
                }
                Some(function_call(code, nodes))
            }
            _ => self.expr(value),
        }
    }

    /// The body of function `name`, noted as called.
    fn function(&mut self, name: Symbol) -> Option<CodeId> {
        let id = self.game.function_ids.get(&name)?;
        let code = self.game.functions[id.0 as usize].code;
        self.callees.push(code);
        Some(code)
    }

    /// The key's slot, the default and the number added, when `value` is
    /// `(put d k (+ (get d k default) n))` (a count in dictionary `d`).
    fn count_in_dict(&self, d: Symbol, value: &Expr) -> Option<(usize, i32, i32)> {
        let call = |e: &Expr, name: &str| match &e.kind {
            ExprKind::Call { func, args } if func.sym.as_str() == name => Some(args.clone()),
            _ => None,
        };
        let var = |e: &Expr| match e.kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        };
        let int = |e: &Expr| match e.kind {
            ExprKind::Int(i) => i32::try_from(i).ok(),
            _ => None,
        };
        let [d1, k1, sum] = call(value, "put")?.try_into().ok()?;
        let [get, n] = call(&sum, "+")?.try_into().ok()?;
        let [d2, k2, default] = call(&get, "get")?.try_into().ok()?;
        let k = var(&k1)?;
        if var(&d1)? != d || var(&d2)? != d || var(&k2)? != k || k == d {
            return None;
        }
        Some((self.slot(k)?, int(&default)?, int(&n)?))
    }

    /// `e` as a [`Test`] of locals and constants, when it is one.
    fn test(&mut self, e: &Expr) -> Option<Test> {
        let ExprKind::Call { func, args } = &e.kind else {
            return None;
        };
        let index = BUILTINS.iter().position(|b| b.name == func.sym.as_str())?;
        let op = IntOp::of_builtin(index as u16)?;
        let f = pure_fn(index)?;
        let [a, b] = args.as_slice() else {
            return None;
        };
        let ExprKind::Var(a) = a.kind else {
            return None;
        };
        let a = self.slot(a)?;
        match b.kind {
            ExprKind::Int(k) => Some(Test::LocalConst(op, a, k, f)),
            ExprKind::Var(b) => Some(Test::Locals(op, a, self.slot(b)?, f)),
            _ => None,
        }
    }

    fn test_or_node(&mut self, e: &Expr) -> Option<Test> {
        match self.test(e) {
            Some(t) => Some(t),
            None => Some(Test::Node(self.expr(e)?)),
        }
    }

    fn operand(&mut self, e: &Expr) -> Option<Operand> {
        Some(match &e.kind {
            ExprKind::Var(v) => Operand::Local(self.slot(*v)?),
            ExprKind::Int(i) => Operand::Int(*i),
            _ => Operand::Node(self.expr(e)?),
        })
    }

    fn expr(&mut self, e: &Expr) -> Option<Node> {
        let span = e.span;
        self.nodes += 1;
        self.loops |= matches!(e.kind, ExprKind::While { .. } | ExprKind::Foreach { .. });
        Some(match &e.kind {
            ExprKind::Nil | ExprKind::Error => constant(|| Value::Nil),
            &ExprKind::Bool(b) => {
                if b {
                    constant(|| Value::bool(true))
                } else {
                    constant(|| Value::bool(false))
                }
            }
            &ExprKind::Int(i) => operand_node(Operand::Int(i)),
            &ExprKind::Float(x) => node(move |fx| {
                fx.step(1);
                Ok(Value::float(x))
            }),
            &ExprKind::Str(s) => node(move |fx| {
                fx.step(1);
                Ok(Value::sym(s))
            }),
            ExprKind::Message => node(|fx| {
                fx.step(1);
                Ok(fx.message())
            }),
            ExprKind::Var(v) => operand_node(Operand::Local(self.slot(*v)?)),
            ExprKind::Call { func, args } => self.call(func.sym, args, span)?,
            ExprKind::VarDef { name, value } => {
                let slot = self.slot(name.sym)?;
                let value = self.assigned_value(name.sym, value)?;
                node(move |fx| {
                    let v = value(fx)?;
                    fx.step(1);
                    fx.set_local(slot, v.clone());
                    Ok(v)
                })
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.test_or_node(cond)?;
                let then = self.expr(then)?;
                let otherwise = match otherwise {
                    Some(o) => self.expr(o)?,
                    None => constant(|| Value::Nil),
                };
                node(move |fx| {
                    let c = cond.eval(fx)?;
                    fx.step(1);
                    if c {
                        let v = then(fx)?;
                        fx.step(1);
                        Ok(v)
                    } else {
                        otherwise(fx)
                    }
                })
            }
            ExprKind::Switch {
                value,
                cases,
                default,
            } => {
                let value = self.expr(value)?;
                let cases: Vec<(Node, Node)> = cases
                    .iter()
                    .map(|(c, b)| Some((self.expr(c)?, self.expr(b)?)))
                    .collect::<Option<_>>()?;
                let default = match default {
                    Some(d) => self.expr(d)?,
                    None => constant(|| Value::Nil),
                };
                node(move |fx| {
                    let v = value(fx)?;
                    for (case, body) in &cases {
                        let c = case(fx)?;
                        // `CaseEq`, `JumpIfFalse`.
                        fx.step(2);
                        if fx.equal(&v, &c)? {
                            // `Pop`, the body, `Jump`.
                            fx.step(1);
                            drop(v);
                            let r = body(fx)?;
                            fx.step(1);
                            return Ok(r);
                        }
                    }
                    fx.step(1);
                    drop(v);
                    default(fx)
                })
            }
            ExprKind::Foreach { var, iter, body } => {
                let iter = self.expr(iter)?;
                let slot = self.slot(var.sym)?;
                let body = self.discard(body)?;
                node(move |fx| {
                    let v = iter(fx)?;
                    // `IterStart`.
                    fx.step(1);
                    let list = fx.iteration(v)?;
                    let mut i = 0;
                    loop {
                        // `IterNext`.
                        fx.step(1);
                        let Some(item) = list.get(i) else { break };
                        fx.set_local(slot, item.clone());
                        i += 1;
                        body(fx)?;
                        // `Jump`.
                        fx.step(1);
                        fx.check()?;
                    }
                    // `Nil`.
                    fx.step(1);
                    Ok(Value::Nil)
                })
            }
            ExprKind::While { cond, body } => {
                let cond = self.test_or_node(cond)?;
                let body = self.discard(body)?;
                node(move |fx| {
                    loop {
                        let c = cond.eval(fx)?;
                        // `JumpIfFalse`.
                        fx.step(1);
                        if !c {
                            break;
                        }
                        body(fx)?;
                        // `Jump`.
                        fx.step(1);
                        fx.check()?;
                    }
                    // `Nil`.
                    fx.step(1);
                    Ok(Value::Nil)
                })
            }
            ExprKind::Do(items) => self.sequence(items)?,
            ExprKind::And(items) | ExprKind::Or(items) => {
                let and = matches!(e.kind, ExprKind::And(_));
                if items.is_empty() {
                    return Some(if and {
                        constant(|| Value::bool(true))
                    } else {
                        constant(|| Value::Nil)
                    });
                }
                let mut items: Vec<Node> =
                    items.iter().map(|e| self.expr(e)).collect::<Option<_>>()?;
                let last = items.pop()?;
                node(move |fx| {
                    for item in &items {
                        let v = item(fx)?;
                        // `AndJump` or `OrJump`.
                        fx.step(1);
                        if v.truthy() != and {
                            return Ok(v);
                        }
                    }
                    last(fx)
                })
            }
            ExprKind::Return(value) => {
                let value = match value {
                    Some(v) => self.expr(v)?,
                    None => constant(|| Value::Nil),
                };
                node(move |fx| {
                    let v = value(fx)?;
                    fx.step(1);
                    fx.return_with(v)
                })
            }
            ExprKind::Form { op, args, attrs } => self.form(*op, args, attrs, span)?,
        })
    }

    /// A call of builtin or function `func`.
    fn call(&mut self, func: Symbol, args: &[Expr], span: Span) -> Option<Node> {
        let name = func.as_str();
        let Some(index) = BUILTINS.iter().position(|b| b.name == name) else {
            let code = self.function(func)?;
            let args: Vec<Node> = args.iter().map(|a| self.expr(a)).collect::<Option<_>>()?;
            return Some(function_call(code, args));
        };
        if args.len() > u8::MAX as usize {
            return None;
        }
        let Some(f) = pure_fn(index) else {
            let args: Vec<Node> = args.iter().map(|a| self.expr(a)).collect::<Option<_>>()?;
            return Some(call_with(args, move |fx, at| {
                fx.game_builtin(index, at, span)
            }));
        };
        if let (Some(op), [a, b]) = (IntOp::of_builtin(index as u16), args) {
            let a = self.operand(a)?;
            let b = self.operand(b)?;
            return Some(binary(op, f, a, b));
        }
        // What the instruction loop answers itself, answered the same way (as the builtin
        // would, counting the same), the builtin called otherwise.
        match (name, args) {
            ("not", [a]) => {
                return Some(unary(f, self.expr(a)?, |v| Some(Value::bool(!v.truthy()))));
            }
            ("first", [a]) => {
                return Some(unary(f, self.expr(a)?, |v| match v {
                    Value::List(l) => Some(l.front().cloned().unwrap_or_default()),
                    _ => None,
                }));
            }
            ("last", [a]) => {
                return Some(unary(f, self.expr(a)?, |v| match v {
                    Value::List(l) => Some(l.back().cloned().unwrap_or_default()),
                    _ => None,
                }));
            }
            ("contains", [h, n]) => {
                let (h, n) = (self.expr(h)?, self.expr(n)?);
                return Some(node(move |fx| {
                    let (x, y) = (h(fx)?, n(fx)?);
                    fx.step(1);
                    if let Some((len, found)) = contains_letter(&x, &y) {
                        fx.step(len as u64);
                        Value::release(x);
                        Value::release(y);
                        return Ok(Value::bool(found));
                    }
                    binary_slowly(fx, f, x, y)
                }));
            }
            ("get" | "nth", [c, k]) => {
                let read = if name == "get" { Read::Get } else { Read::Nth };
                let (c, k) = (self.operand(c)?, self.expr(k)?);
                return Some(read_node(f, read, c, k, None));
            }
            (
                "get",
                [
                    c,
                    k,
                    Expr {
                        kind: ExprKind::Int(d),
                        ..
                    },
                ],
            ) => {
                let (c, k) = (self.operand(c)?, self.expr(k)?);
                return Some(read_node(f, Read::Get, c, k, Some(*d)));
            }
            _ => {}
        }
        let args: Vec<Node> = args.iter().map(|a| self.expr(a)).collect::<Option<_>>()?;
        Some(pure_call(f, args))
    }

    /// A game-model form.
    fn form(
        &mut self,
        op: FormOp,
        args: &[Expr],
        attrs: &[(Expr, Expr)],
        span: Span,
    ) -> Option<Node> {
        use FormOp::*;
        if op == WaitSignal {
            return None;
        }
        self.sends |= matches!(op, Send | SendNew | Forward);
        if let (
            Property | PropertyOf | Attribute,
            Some(Expr {
                kind: ExprKind::Str(name),
                ..
            }),
        ) = (op, args.first())
        {
            let name = *name;
            return Some(match op {
                Property => node(move |fx| {
                    fx.step(1);
                    fx.property(name, span)
                }),
                PropertyOf => {
                    let entity = self.operand(&args[1])?;
                    match entity {
                        Operand::Local(slot) => node(move |fx| {
                            fx.step(2);
                            fx.local_property_of(slot, name, span)
                        }),
                        Operand::Int(_) => return None,
                        Operand::Node(entity) => node(move |fx| {
                            let e = entity(fx)?;
                            fx.step(1);
                            fx.property_of(&e, name, span)
                        }),
                    }
                }
                _ => node(move |fx| {
                    fx.step(1);
                    fx.attribute(name)
                }),
            });
        }
        if op == UpdateProperty
            && attrs.is_empty()
            && let [
                Expr {
                    kind: ExprKind::Str(name),
                    ..
                },
                value,
            ] = args
        {
            let (name, value) = (*name, self.expr(value)?);
            // Steps in the instruction loop's order, as the value may leave the body.
            return Some(node(move |fx| {
                fx.step(1);
                let v = value(fx)?;
                fx.step(1);
                fx.update_property(name, v, span)
            }));
        }
        if let (StateOf, [entity], []) = (op, args, attrs) {
            let entity = self.expr(entity)?;
            return Some(node(move |fx| {
                let e = entity(fx)?;
                fx.step(1);
                fx.state_of(e, span)
            }));
        }
        if matches!(op, NewMessage | SendNew)
            && let Some(made) = self.message(op == SendNew, args, attrs, span)
        {
            return Some(made);
        }
        let mut nodes: Vec<Node> = args.iter().map(|a| self.expr(a)).collect::<Option<_>>()?;
        for (k, v) in attrs {
            nodes.push(self.expr(k)?);
            nodes.push(self.expr(v)?);
        }
        let nattrs = u8::try_from(attrs.len()).ok()?;
        Some(call_with(nodes, move |fx, _| fx.form(op, nattrs, span)))
    }

    /// `(new message "label" with "key" value ...)`, or `(send new message ...)` when
    /// `send`, with its label and keys written as names: the names and their key order
    /// are worked out here, once, and the message is made from the values as they come.
    fn message(
        &mut self,
        send: bool,
        args: &[Expr],
        attrs: &[(Expr, Expr)],
        span: Span,
    ) -> Option<Node> {
        let ExprKind::Str(label) = args.first()?.kind else {
            return None;
        };
        let names: Vec<Symbol> = attrs
            .iter()
            .map(|(k, _)| match k.kind {
                ExprKind::Str(name) => Some(name),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let order = key_order(&names)?;
        let to = match send {
            true => Some(self.expr(args.get(1)?)?),
            false => None,
        };
        let values: Vec<Node> = attrs
            .iter()
            .map(|(_, v)| self.expr(v))
            .collect::<Option<_>>()?;
        let shape = MessageShape {
            label,
            names: names.into(),
            order,
            send,
            span,
        };
        // Steps in the instruction loop's order (the label, the recipient, each key and
        // its value, the form), as a value may leave the body.
        Some(node(move |fx| {
            let at = fx.top();
            fx.step(1);
            if let Some(to) = &to {
                let v = to(fx)?;
                fx.push(v);
            }
            for value in &values {
                fx.step(1);
                let v = value(fx)?;
                fx.push(v);
            }
            fx.step(1);
            fx.new_message(&shape, at)
        }))
    }
}

/// A pure builtin `f` of one argument, `fast` answering it where it can.
fn unary(f: PureFn, a: Node, fast: fn(&Value) -> Option<Value>) -> Node {
    node(move |fx| {
        let x = a(fx)?;
        fx.step(1);
        if let Some(v) = fast(&x) {
            Value::release(x);
            return Ok(v);
        }
        let at = fx.top();
        fx.push(x);
        fx.pure(f, at)
    })
}

/// `(get c k)`, `(nth c k)` or `(get c k default)` (pure builtin `f`), read in place
/// where [`read_fast`] answers.
fn read_node(f: PureFn, read: Read, c: Operand, k: Node, default: Option<i64>) -> Node {
    let slowly = move |fx: &mut Fx<'_, '_>, c: Value, k: Value| {
        let at = fx.top();
        fx.push(c);
        fx.push(k);
        if let Some(d) = default {
            fx.push(Value::Int(d));
        }
        fx.pure(f, at)
    };
    let extra = u64::from(default.is_some());
    match c {
        Operand::Local(slot) => node(move |fx| {
            fx.step(1);
            let key = k(fx)?;
            fx.step(1 + extra);
            if let Some(v) = read_fast(read, fx.local(slot), &key, default) {
                Value::release(key);
                return Ok(v);
            }
            let c = fx.local(slot).clone();
            slowly(fx, c, key)
        }),
        other => {
            let c = operand_node(other);
            node(move |fx| {
                let coll = c(fx)?;
                let key = k(fx)?;
                fx.step(1 + extra);
                if let Some(v) = read_fast(read, &coll, &key, default) {
                    Value::release(key);
                    return Ok(v);
                }
                slowly(fx, coll, key)
            })
        }
    }
}

/// Local `slot`, taken out (nil left there): one step, as `Take`.
fn take(slot: usize) -> Node {
    node(move |fx| {
        fx.step(1);
        Ok(fx.take_local(slot))
    })
}

/// `args` evaluated onto the machine's stack, the call's step, then `finish` on them
/// (they are from the place it is given on).
fn call_with(
    args: Vec<Node>,
    finish: impl Fn(&mut Fx<'_, '_>, usize) -> Done + Send + Sync + 'static,
) -> Node {
    node(move |fx| {
        let at = fx.top();
        for a in &args {
            let v = a(fx)?;
            fx.push(v);
        }
        fx.step(1);
        finish(fx, at)
    })
}

/// A call of pure builtin `f` on `args`.
fn pure_call(f: PureFn, args: Vec<Node>) -> Node {
    call_with(args, move |fx, at| fx.pure(f, at))
}

/// A call of the function whose body is `code` on `args`.
fn function_call(code: CodeId, args: Vec<Node>) -> Node {
    call_with(args, move |fx, at| fx.call(code, at))
}

/// A binary arithmetic or comparison operator `op` (pure builtin `f`) on `a` and `b`,
/// done in place on two integers, as the instruction loop does.
fn binary(op: IntOp, f: PureFn, a: Operand, b: Operand) -> Node {
    let eq = matches!(op, IntOp::Eq | IntOp::Ne);
    // `=` and `!=` whose first value is not a collection: answered in the step, as the
    // instruction loop answers them.
    let same = move |x: &Value, y: &Value| -> Option<Value> {
        if !eq {
            return None;
        }
        equal_in_step(x, y).map(|same| Value::bool(same == (op == IntOp::Eq)))
    };
    macro_rules! apply {
        ($fx:ident, $x:expr, $y:expr) => {{
            if let (Value::Int(p), Value::Int(q)) = (&$x, &$y)
                && let Some(r) = op.apply(*p, *q)
            {
                return Ok(int_value(r));
            }
            if let Some(v) = same(&$x, &$y) {
                Value::release($x);
                Value::release($y);
                return Ok(v);
            }
            binary_slowly($fx, f, $x, $y)
        }};
    }
    match (a, b) {
        (Operand::Local(a), Operand::Int(k)) => node(move |fx| {
            fx.step(3);
            if let Value::Int(p) = *fx.local(a)
                && let Some(r) = op.apply(p, k)
            {
                return Ok(int_value(r));
            }
            if let Some(v) = same(fx.local(a), &Value::Int(k)) {
                return Ok(v);
            }
            let x = fx.local(a).clone();
            binary_slowly(fx, f, x, Value::Int(k))
        }),
        (Operand::Local(a), Operand::Local(b)) => node(move |fx| {
            fx.step(3);
            if let (Value::Int(p), Value::Int(q)) = (fx.local(a), fx.local(b))
                && let Some(r) = op.apply(*p, *q)
            {
                return Ok(int_value(r));
            }
            if let Some(v) = same(fx.local(a), fx.local(b)) {
                return Ok(v);
            }
            let (x, y) = (fx.local(a).clone(), fx.local(b).clone());
            binary_slowly(fx, f, x, y)
        }),
        (Operand::Node(a), Operand::Int(k)) => node(move |fx| {
            let x = a(fx)?;
            fx.step(2);
            apply!(fx, x, Value::Int(k))
        }),
        (a, b) => {
            let a = operand_node(a);
            let b = operand_node(b);
            node(move |fx| {
                let x = a(fx)?;
                let y = b(fx)?;
                fx.step(1);
                apply!(fx, x, y)
            })
        }
    }
}

/// An operand as a node of its own.
fn operand_node(o: Operand) -> Node {
    match o {
        Operand::Local(slot) => node(move |fx| {
            fx.step(1);
            Ok(fx.local(slot).clone())
        }),
        Operand::Int(i) => node(move |fx| {
            fx.step(1);
            Ok(Value::Int(i))
        }),
        Operand::Node(n) => n,
    }
}
