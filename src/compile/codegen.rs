//! Lowering of a checked program to a [`Game`]: types laid out, names interned to ids,
//! locals resolved to slots, every body compiled to [`Op`]s.
//!
//! Runs only on programs the checker passed; a name it cannot resolve is reported as an
//! internal error rather than trusted.

use rustc_hash::FxHashMap;

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::{
    AdviceBody, AdviceDef, AdviceKind, BoardShape, EntityDef, Expr, ExprKind, FormOp, Item, Name,
    Pattern, Program,
};

use super::builtins::BUILTINS;
use super::bytecode::{self, Code, CodeId, FuncId, Op};
use super::check::advice_name;
use super::program::{
    Advice, AdviceTarget, EntityType, Function, Game, InitValue, Instance, LateBoard,
    NO_LEGAL_MOVE, Param, TypeId,
};

/// Compile a checked program (`sources` holds the board files it names).
pub fn compile(
    program: &Program,
    sources: &crate::source::SourceMap,
) -> Result<Game, Vec<Diagnostic>> {
    let mut c = Compiler {
        game: Game::default(),
        errors: Vec::new(),
    };
    c.register_functions(&program.items);
    c.types(&program.items);
    c.functions(&program.items);
    c.rest(&program.items, sources);
    c.engine_calls();
    let functions: Vec<_> = c.game.functions.iter().map(|f| f.code).collect();
    c.game.small_calls = bytecode::mark_small_calls(&mut c.game.codes, &functions);
    if c.errors.is_empty() {
        Ok(c.game)
    } else {
        Err(c.errors)
    }
}

/// The properties (with their defaults' code), property slots and behaviours of a type,
/// as they are laid out from its definitions.
#[derive(Default)]
struct Layout {
    properties: Vec<(Symbol, CodeId)>,
    slots: FxHashMap<Symbol, u16>,
    behaviours: FxHashMap<(Symbol, Symbol), CodeId>,
}

struct Compiler {
    game: Game,
    errors: Vec<Diagnostic>,
}

fn internal(span: Span, message: String) -> Diagnostic {
    Diagnostic::error("internal", span, message)
        .with_hint("the checker should have caught this; please report it")
}

impl Compiler {
    /// Compile the calls of the functions the engine itself calls: `to-move` (when it
    /// takes no parameters; whoever asks for it otherwise says what is wrong) and
    /// `no-legal-move` (which must take none).
    fn engine_calls(&mut self) {
        self.game.to_move_call = compile_function_call(&mut self.game, "to-move", "the engine")
            .ok()
            .flatten();
        match compile_function_call(&mut self.game, NO_LEGAL_MOVE, "the engine") {
            Ok(code) => self.game.no_legal_move_call = code,
            Err(message) => {
                let sym = Symbol::intern(NO_LEGAL_MOVE);
                let f = self.game.functions.iter().find(|f| f.name == sym);
                let span = f.map_or(Span::default(), |f| self.game.code(f.code).span);
                self.errors.push(
                    Diagnostic::error("engine-function-parameters", span, message).with_hint(
                        "the engine calls `no-legal-move` with no arguments when nobody to \
                         move has a legal move; read the position inside it",
                    ),
                );
            }
        }
    }

    fn types(&mut self, items: &[Item]) {
        let defs: Vec<&EntityDef> = items
            .iter()
            .filter_map(|i| match i {
                Item::Entity(e) => Some(e),
                _ => None,
            })
            .collect();
        for (i, e) in defs.iter().enumerate() {
            self.game.type_ids.insert(e.name.sym, TypeId(i as u32));
            self.game.types.push(EntityType {
                name: e.name.sym,
                parent: None,
                ancestors: Vec::new(),
                properties: Vec::new(),
                slots: FxHashMap::default(),
                columns: Vec::new(),
                behaviours: FxHashMap::default(),
            });
        }
        for (i, e) in defs.iter().enumerate() {
            let parent = e
                .extends
                .and_then(|p| self.game.type_ids.get(&p.sym).copied());
            self.game.types[i].parent = parent;
        }
        for i in 0..defs.len() {
            let mut ancestors = vec![TypeId(i as u32)];
            let mut cur = self.game.types[i].parent;
            while let Some(t) = cur {
                if ancestors.contains(&t) {
                    break; // a cycle; the checker reported it
                }
                ancestors.push(t);
                cur = self.game.types[t.0 as usize].parent;
            }
            self.game.types[i].ancestors = ancestors;
        }
        // Lay out each type from its root down, so inherited slots come first.
        for i in 0..defs.len() {
            let chain: Vec<TypeId> = self.game.types[i].ancestors.iter().rev().copied().collect();
            let mut layout = Layout::default();
            for t in chain {
                self.lay_out(&mut layout, defs[t.0 as usize], false);
            }
            let ty = &mut self.game.types[i];
            ty.properties = layout.properties;
            ty.slots = layout.slots;
            ty.behaviours = layout.behaviours;
        }
        self.representation_types(items, defs.len());
        self.game.index_properties();
    }

    /// Add the properties (each with the code of its default; a property defined again
    /// keeps its slot and takes the new default) and the behaviours of `def` to `layout`.
    fn lay_out(&mut self, layout: &mut Layout, def: &EntityDef, representation: bool) {
        let (default_of, behaviour) = if representation {
            ("default of representation", "representation")
        } else {
            ("default of", "behaviour")
        };
        for p in &def.properties {
            let code = self.value_body(
                std::slice::from_ref(&p.value),
                &[],
                format!("{default_of} {}.{}", def.name.sym, p.name.sym),
                p.value.span,
            );
            match layout.slots.get(&p.name.sym) {
                Some(&slot) => layout.properties[slot as usize].1 = code,
                None => {
                    layout
                        .slots
                        .insert(p.name.sym, layout.properties.len() as u16);
                    layout.properties.push((p.name.sym, code));
                }
            }
        }
        for state in &def.states {
            for b in &state.behaviours {
                let code = self.body(
                    &b.body,
                    &[],
                    format!(
                        "{behaviour} {}/{}/{}",
                        def.name.sym, state.name.sym, b.label.sym
                    ),
                    b.span,
                );
                layout
                    .behaviours
                    .insert((state.name.sym, b.label.sym), code);
            }
        }
    }

    /// Lay out each `#representation` as a type of its own after the entity types, and
    /// give every entity type the representation of itself or its nearest ancestor.
    fn representation_types(&mut self, items: &[Item], entity_types: usize) {
        let mut own: Vec<Option<TypeId>> = vec![None; entity_types];
        for item in items {
            let Item::Representation(r) = item else {
                continue;
            };
            let Some(&entity_ty) = self.game.type_ids.get(&r.name.sym) else {
                continue; // the checker reported it
            };
            let id = TypeId(self.game.types.len() as u32);
            let mut layout = Layout::default();
            self.lay_out(&mut layout, r, true);
            self.game.types.push(EntityType {
                name: r.name.sym,
                parent: None,
                ancestors: vec![id],
                properties: layout.properties,
                slots: layout.slots,
                columns: Vec::new(),
                behaviours: layout.behaviours,
            });
            if let Some(slot) = own.get_mut(entity_ty.0 as usize) {
                *slot = Some(id);
            }
        }
        self.game.representations = (0..entity_types)
            .map(|i| {
                self.game.types[i]
                    .ancestors
                    .iter()
                    .find_map(|t| own.get(t.0 as usize).copied().flatten())
            })
            .collect();
    }

    /// Give every function its id and the place of its body first, so any code may call
    /// any function, and a call names the body it runs (`Op::Call`).
    fn register_functions(&mut self, items: &[Item]) {
        for item in items {
            if let Item::Function(f) = item
                && !self.game.function_ids.contains_key(&f.name.sym)
            {
                let id = FuncId(self.game.functions.len() as u32);
                let code = CodeId(self.game.codes.len() as u32);
                // Filled in by `functions`.
                self.game.codes.push(Code::placeholder(f.span));
                self.game.function_ids.insert(f.name.sym, id);
                self.game.functions.push(Function {
                    name: f.name.sym,
                    code,
                });
            }
        }
    }

    fn functions(&mut self, items: &[Item]) {
        for item in items {
            if let Item::Function(f) = item {
                let params: Vec<Symbol> = f.params.iter().map(|p| p.sym).collect();
                let compiled =
                    self.body(&f.body, &params, format!("function {}", f.name.sym), f.span);
                // `body` puts the new code last: it moves to the place kept for it.
                debug_assert_eq!(compiled.0 as usize + 1, self.game.codes.len());
                if let Some(id) = self.game.function_ids.get(&f.name.sym)
                    && let Some(code) = self.game.codes.pop()
                {
                    let place = self.game.functions[id.0 as usize].code;
                    self.game.codes[place.0 as usize] = code;
                }
            }
        }
    }

    fn type_id(&mut self, name: Symbol, span: Span) -> Option<TypeId> {
        let id = self.game.type_ids.get(&name).copied();
        if id.is_none() {
            self.errors
                .push(internal(span, format!("unknown entity type `{name}`")));
        }
        id
    }

    fn rest(&mut self, items: &[Item], sources: &crate::source::SourceMap) {
        let mut advice_index = 0;
        let mut by_name: FxHashMap<Symbol, usize> = FxHashMap::default();
        for item in items {
            let Item::Board(b) = item else { continue };
            let Some(ty) = self.type_id(b.ty.sym, b.ty.span) else {
                continue;
            };
            if let BoardShape::Computed { value, ring } = &b.shape {
                let naming = match super::boards::naming(b) {
                    Ok(n) => n,
                    Err(d) => {
                        self.errors.push(*d);
                        continue;
                    }
                };
                let value = self.value_body(
                    std::slice::from_ref(value),
                    &[],
                    "board description".to_string(),
                    value.span,
                );
                self.game.late_boards.push(LateBoard {
                    value,
                    ring: ring.map(|p| p.sym),
                    naming,
                    ty,
                    span: b.span,
                });
                continue;
            }
            let board = match super::boards::build(b, sources) {
                Ok((board, _)) => board,
                Err(d) => {
                    self.errors.push(*d);
                    continue;
                }
            };
            self.board_cells(&board, ty, b, &mut by_name);
            self.game.boards.push(std::sync::Arc::new(board));
        }
        for item in items {
            match item {
                Item::Instance(i) => {
                    let Some(ty) = self.type_id(i.ty.sym, i.ty.span) else {
                        continue;
                    };
                    let properties: Vec<(Symbol, InitValue)> = i
                        .properties
                        .iter()
                        .map(|(k, v)| {
                            let code = self.value_body(
                                std::slice::from_ref(v),
                                &[],
                                format!("property {} of {}", k.sym, i.name.sym),
                                v.span,
                            );
                            (k.sym, InitValue::Code(code))
                        })
                        .collect();
                    match by_name.get(&i.name.sym) {
                        Some(&cell) => self.game.instances[cell].properties.extend(properties),
                        None => {
                            by_name.insert(i.name.sym, self.game.instances.len());
                            self.game.instances.push(Instance {
                                name: i.name.sym,
                                ty,
                                properties,
                                span: i.span,
                            });
                        }
                    }
                }
                Item::Advice(a) => {
                    advice_index += 1;
                    let name = Symbol::intern(&advice_name(a, advice_index));
                    let advice = self.advice(a, name);
                    self.game.add_advice(advice, a.replaces.map(|r| r.sym));
                }
                Item::Param(p) => {
                    let default = self.value_body(
                        std::slice::from_ref(&p.value),
                        &[],
                        format!("param {}", p.name.sym),
                        p.span,
                    );
                    self.game.params.push(Param {
                        name: p.name.sym,
                        default,
                    });
                }
                Item::Setup(b) => {
                    let code = self.body(&b.body, &[], "setup".to_string(), b.span);
                    self.game.setup.push(code);
                }
                Item::Actions(b) => {
                    let code = self.body(&b.body, &[], "actions".to_string(), b.span);
                    self.game.actions = Some(code);
                }
                _ => {}
            }
        }
    }

    fn advice(&mut self, a: &AdviceDef, name: Symbol) -> Advice {
        let target = match self.game.type_ids.get(&a.target.sym) {
            Some(&t) => AdviceTarget::Type(t),
            None => AdviceTarget::Instance(a.target.sym),
        };
        let source = match &a.body {
            AdviceBody::File { path, .. } => path.sym.as_str().to_string(),
            AdviceBody::Inline(_) => "inline".to_string(),
        };
        let kind = match a.kind {
            AdviceKind::Law => "law",
            AdviceKind::SideEffect => "side-effect",
        };
        let code = self.body(a.body.statements(), &[], format!("{kind} {name}"), a.span);
        let pattern = |p: Pattern| match p {
            Pattern::Any(_) => None,
            Pattern::Name(n) => Some(n.sym),
        };
        Advice {
            name,
            kind: a.kind,
            label: pattern(a.label),
            target,
            state: pattern(a.state),
            code,
            source,
            span: a.span,
        }
    }

    /// Make an instance of `ty` for every cell of `board`.
    fn board_cells(
        &mut self,
        board: &crate::board::Board,
        ty: TypeId,
        def: &crate::syntax::ast::BoardDef,
        by_name: &mut FxHashMap<Symbol, usize>,
    ) {
        let index = self.game.boards.len() as u32;
        let ring = matches!(def.shape, BoardShape::Ring { .. });
        let instances = super::boards::cell_instances(board, ty, ring, def.span);
        for (c, inst) in board.cells().zip(instances) {
            self.game.cells.insert(inst.name, (index, c));
            by_name.insert(inst.name, self.game.instances.len());
            self.game.instances.push(inst);
        }
    }

    /// Compile a body that runs once, when the game starts (a property's default or
    /// value, a board description, a parameter's default): it keeps no AST, as the fast
    /// tier has nothing to gain there.
    fn value_body(&mut self, body: &[Expr], params: &[Symbol], name: String, span: Span) -> CodeId {
        self.body_keeping(body, params, name, span, false)
    }

    /// Compile a sequence of statements with `params` in the first slots.
    pub fn body(&mut self, body: &[Expr], params: &[Symbol], name: String, span: Span) -> CodeId {
        self.body_keeping(body, params, name, span, true)
    }

    /// Compile `body`, keeping its AST for the fast tier when `keep_ast` says so.
    fn body_keeping(
        &mut self,
        body: &[Expr],
        params: &[Symbol],
        name: String,
        span: Span,
        keep_ast: bool,
    ) -> CodeId {
        let mut e = Emitter {
            ops: Vec::new(),
            spans: Vec::new(),
            locals: params.to_vec(),
            game: &self.game,
            errors: &mut self.errors,
        };
        e.sequence(body, span);
        e.emit(Op::End, span);
        super::bytecode::fuse(&mut e.ops);
        let locals = e.locals.len();
        let mut code = Code {
            ops: e.ops,
            spans: e.spans,
            locals: locals.min(u16::MAX as usize) as u16,
            room: 0,
            local_names: e.locals,
            params: params.len() as u16,
            name: name.into(),
            span,
            ast: keep_ast.then(|| body.into()),
        };
        if locals > u16::MAX as usize {
            self.errors.push(
                Diagnostic::error("too-many-locals", span, "more than 65535 local variables")
                    .with_hint("split this code into #define functions"),
            );
        } else if let Err(m) = super::bytecode::verify(&code).map(|room| code.room = room) {
            // A body the verifier refuses is never run: the game does not compile. (One
            // with too many locals already failed, and its slots were cut: not verified.)
            self.errors.push(
                Diagnostic::error(
                    "malformed-code",
                    code.spans.get(m.at).copied().unwrap_or(span),
                    format!(
                        "internal error: the compiled form of {} is malformed at instruction {}: {}",
                        code.name, m.at, m.what
                    ),
                )
                .with_hint("this is a fault of flexrules, not of the program: please report it with the program"),
            );
        }
        let id = CodeId(self.game.codes.len() as u32);
        self.game.codes.push(code);
        id
    }
}

/// Compile a law or side-effect added while the game runs, named `name`.
pub fn compile_advice(
    game: &mut Game,
    a: &AdviceDef,
    name: Symbol,
) -> Result<Advice, Vec<Diagnostic>> {
    let mut c = Compiler {
        game: std::mem::take(game),
        errors: Vec::new(),
    };
    let advice = c.advice(a, name);
    *game = c.game;
    if c.errors.is_empty() {
        Ok(advice)
    } else {
        Err(c.errors)
    }
}

/// Compile a standalone body (a REPL expression, a house rule) against a compiled game.
pub fn compile_body(
    game: &mut Game,
    body: &[Expr],
    name: String,
    span: Span,
) -> Result<CodeId, Vec<Diagnostic>> {
    let mut c = Compiler {
        game: std::mem::take(game),
        errors: Vec::new(),
    };
    let id = c.body(body, &[], name, span);
    *game = c.game;
    if c.errors.is_empty() {
        Ok(id)
    } else {
        Err(c.errors)
    }
}

/// A body that calls the function `name` with no arguments and gives its value, to be run
/// from outside the game (an agent asking `to-move`), with `span` as its place.
pub fn compile_call(game: &mut Game, name: Symbol, span: Span) -> Result<CodeId, Vec<Diagnostic>> {
    let call = Expr {
        kind: ExprKind::Call {
            func: Name { sym: name, span },
            args: Vec::new(),
        },
        span,
    };
    compile_body(game, &[call], format!("({name})"), span)
}

/// A call of the game's function `name` with no arguments, compiled into the game; `None`
/// when the game defines no such function. The error, for people, says it takes parameters
/// (`caller` says who calls it: "a search").
pub fn compile_function_call(
    game: &mut Game,
    name: &str,
    caller: &str,
) -> Result<Option<CodeId>, String> {
    let sym = Symbol::intern(name);
    let Some(f) = game.functions.iter().find(|f| f.name == sym) else {
        return Ok(None);
    };
    let code = game.code(f.code);
    if code.params != 0 {
        return Err(format!(
            "the game's function `{name}` takes {} parameter(s); {caller} calls it with none",
            code.params
        ));
    }
    let span = code.span;
    compile_call(game, sym, span)
        .map(Some)
        .map_err(|_| format!("`({name})` does not compile"))
}

struct Emitter<'a> {
    ops: Vec<Op>,
    spans: Vec<Span>,
    locals: Vec<Symbol>,
    game: &'a Game,
    errors: &'a mut Vec<Diagnostic>,
}

impl Emitter<'_> {
    fn emit(&mut self, op: Op, span: Span) -> usize {
        self.ops.push(op);
        self.spans.push(span);
        self.ops.len() - 1
    }

    fn here(&self) -> u32 {
        self.ops.len() as u32
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.ops[at] {
            Op::Jump(t) | Op::JumpIfFalse(t) | Op::AndJump(t) | Op::OrJump(t) => *t = target,
            Op::IterNext { exit, .. } => *exit = target,
            _ => {}
        }
    }

    fn slot(&mut self, sym: Symbol) -> u16 {
        match self.locals.iter().position(|s| *s == sym) {
            Some(i) => i as u16,
            None => {
                self.locals.push(sym);
                (self.locals.len() - 1) as u16
            }
        }
    }

    fn sequence(&mut self, body: &[Expr], span: Span) {
        let Some((last, init)) = body.split_last() else {
            self.emit(Op::Nil, span);
            return;
        };
        for e in init {
            self.discard(e);
        }
        self.expr(last);
    }

    /// The value of `(var x value)`. When it updates the collection in `x` itself, as in
    /// `(var d (put d k v))`, the old value is moved out of `x` rather than copied, so the
    /// builtin can update it in place instead of copying it.
    ///
    /// When the other arguments do not read `x`, it is moved out where it is read
    /// ([`Op::Take`]). When they read it but cannot assign it, as in
    /// `(var d (put d k (+ (get d k 0) 1)))`, it is moved out after them
    /// ([`Op::UpdateLocal`]): it has the same value then, and whatever they made of it
    /// (the `get`) has let go of it. A [`Op::Hole`] stands where it was read, so the steps
    /// are counted at the same instructions and the value taken goes in its place.
    fn assigned_value(&mut self, var: Symbol, value: &Expr) {
        let slot = self.locals.iter().position(|s| *s == var);
        match (self_update(var, value, &self.game.function_ids), slot) {
            (
                Some(SelfUpdate::Taken {
                    builtin,
                    first,
                    rest,
                }),
                Some(slot),
            ) => {
                self.emit(Op::Take(slot as u16), first.span);
                for a in rest {
                    self.expr(a);
                }
                self.emit(Op::Builtin(builtin, rest.len() as u8 + 1), value.span);
            }
            (
                Some(SelfUpdate::After {
                    builtin,
                    first,
                    rest,
                }),
                Some(slot),
            ) => {
                self.emit(Op::Hole, first.span);
                for a in rest {
                    self.expr(a);
                }
                self.emit(
                    Op::UpdateLocal {
                        slot: slot as u16,
                        func: builtin,
                        argc: rest.len() as u8 + 1,
                    },
                    value.span,
                );
            }
            (Some(SelfUpdate::Given { func, args, at }), Some(slot)) => {
                self.call(func, args, Some((at, slot as u16)), value.span);
            }
            _ => self.expr(value),
        }
    }

    /// A call of `func` with `args` (argument `moved.0` moved out of local `moved.1`, when
    /// given, instead of read), at `span`.
    fn call(&mut self, func: &Name, args: &[Expr], moved: Option<(usize, u16)>, span: Span) {
        for (i, a) in args.iter().enumerate() {
            match moved {
                Some((at, slot)) if at == i => {
                    self.emit(Op::Take(slot), a.span);
                }
                _ => self.expr(a),
            }
        }
        let name = func.sym.as_str();
        // (More than 255 arguments is refused by the checker: `too-many-arguments`.)
        let argc = args.len().min(u8::MAX as usize) as u8;
        if let Some(i) = BUILTINS.iter().position(|b| b.name == name) {
            self.emit(Op::Builtin(i as u16, argc), span);
        } else if let Some(&id) = self.game.function_ids.get(&func.sym) {
            let code = self.game.functions[id.0 as usize].code;
            self.emit(bytecode::call_op(code, &self.game.small_calls, argc), span);
        } else {
            self.errors
                .push(internal(span, format!("unknown function `{name}`")));
            self.emit(Op::Nil, span);
        }
    }

    /// Compile `e` for its effect only: nothing is left on the stack.
    fn discard(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::VarDef { name, value } => {
                self.assigned_value(name.sym, value);
                let slot = self.slot(name.sym);
                self.emit(Op::SetLocal(slot), e.span);
            }
            ExprKind::Do(items) if !items.is_empty() => {
                for item in items {
                    self.discard(item);
                }
            }
            _ => {
                self.expr(e);
                self.emit(Op::Pop, e.span);
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        let span = e.span;
        match &e.kind {
            ExprKind::Nil | ExprKind::Error => {
                self.emit(Op::Nil, span);
            }
            ExprKind::Bool(b) => {
                self.emit(Op::Bool(*b), span);
            }
            ExprKind::Int(i) => {
                self.emit(Op::Int(*i), span);
            }
            ExprKind::Float(x) => {
                self.emit(Op::Float(*x), span);
            }
            ExprKind::Str(s) => {
                self.emit(Op::Str(*s), span);
            }
            ExprKind::Message => {
                self.emit(Op::Message, span);
            }
            ExprKind::Var(sym) => match self.locals.iter().position(|s| s == sym) {
                Some(i) => {
                    self.emit(Op::Load(i as u16), span);
                }
                None => {
                    self.errors
                        .push(internal(span, format!("unbound variable `{sym}`")));
                    self.emit(Op::Nil, span);
                }
            },
            ExprKind::Call { func, args } => self.call(func, args, None, span),
            ExprKind::VarDef { name, value } => {
                self.assigned_value(name.sym, value);
                let slot = self.slot(name.sym);
                self.emit(Op::Store(slot), span);
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                let jf = self.emit(Op::JumpIfFalse(0), span);
                self.expr(then);
                let jend = self.emit(Op::Jump(0), span);
                let else_at = self.here();
                self.patch(jf, else_at);
                match otherwise {
                    Some(o) => self.expr(o),
                    None => {
                        self.emit(Op::Nil, span);
                    }
                }
                let end = self.here();
                self.patch(jend, end);
            }
            ExprKind::Switch {
                value,
                cases,
                default,
            } => {
                self.expr(value);
                let mut ends = Vec::new();
                for (v, body) in cases {
                    self.expr(v);
                    self.emit(Op::CaseEq, v.span);
                    let jf = self.emit(Op::JumpIfFalse(0), v.span);
                    self.emit(Op::Pop, v.span);
                    self.expr(body);
                    ends.push(self.emit(Op::Jump(0), span));
                    let next = self.here();
                    self.patch(jf, next);
                }
                self.emit(Op::Pop, span);
                match default {
                    Some(d) => self.expr(d),
                    None => {
                        self.emit(Op::Nil, span);
                    }
                }
                let end = self.here();
                for j in ends {
                    self.patch(j, end);
                }
            }
            ExprKind::Foreach { var, iter, body } => {
                self.expr(iter);
                self.emit(Op::IterStart, iter.span);
                let var = self.slot(var.sym);
                let top = self.here();
                let next = self.emit(Op::IterNext { var, exit: 0 }, span);
                self.discard(body);
                self.emit(Op::Jump(top), span);
                let exit = self.here();
                self.patch(next, exit);
                self.emit(Op::Nil, span);
            }
            ExprKind::While { cond, body } => {
                let top = self.here();
                self.expr(cond);
                let jf = self.emit(Op::JumpIfFalse(0), span);
                self.discard(body);
                self.emit(Op::Jump(top), span);
                let exit = self.here();
                self.patch(jf, exit);
                self.emit(Op::Nil, span);
            }
            ExprKind::Do(items) => self.sequence(items, span),
            ExprKind::And(items) | ExprKind::Or(items) => {
                let and = matches!(e.kind, ExprKind::And(_));
                if items.is_empty() {
                    self.emit(if and { Op::Bool(true) } else { Op::Nil }, span);
                    return;
                }
                let mut jumps = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    self.expr(item);
                    if i + 1 < items.len() {
                        jumps.push(
                            self.emit(if and { Op::AndJump(0) } else { Op::OrJump(0) }, span),
                        );
                    }
                }
                let end = self.here();
                for j in jumps {
                    self.patch(j, end);
                }
            }
            ExprKind::Return(value) => {
                match value {
                    Some(v) => self.expr(v),
                    None => {
                        self.emit(Op::Nil, span);
                    }
                }
                self.emit(Op::Return, span);
            }
            ExprKind::Form { op, args, attrs } => {
                // The commonest reads with a literal name get an instruction of their own.
                if let (
                    FormOp::Property | FormOp::PropertyOf | FormOp::Attribute,
                    Some(Expr {
                        kind: ExprKind::Str(name),
                        ..
                    }),
                ) = (op, args.first())
                {
                    let name = *name;
                    match op {
                        FormOp::Property => {
                            self.emit(Op::Property(name), span);
                        }
                        FormOp::PropertyOf => {
                            self.expr(&args[1]);
                            self.emit(Op::PropertyOf(name), span);
                        }
                        _ => {
                            self.emit(Op::Attribute(name), span);
                        }
                    }
                    return;
                }
                for a in args {
                    self.expr(a);
                }
                for (k, v) in attrs {
                    self.expr(k);
                    self.expr(v);
                }
                // (More than 255 pairs is refused by the checker: `too-many-attributes`.)
                let n = attrs.len().min(u8::MAX as usize) as u8;
                self.emit(Op::Form(*op, n), span);
            }
        }
    }
}

/// How `(var x value)` moves the value of `x` into an update of it instead of copying it
/// (`codegen` and the fast tier do it alike, so that what is updated in place is the same).
pub enum SelfUpdate<'e> {
    /// `(var d (put d k v))`, a builtin updating its first argument (`put`, `append`,
    /// `prepend`, `remove`, `remove-key`) whose other arguments do not read `x`: `x` is
    /// taken out where it is read.
    Taken {
        /// The builtin's index.
        builtin: u16,
        /// The first argument, `x`.
        first: &'e Expr,
        /// The other arguments.
        rest: &'e [Expr],
    },
    /// `(var d (put d k (+ (get d k 0) 1)))`: the other arguments read `x` but cannot
    /// assign it, so `x` is taken out after them (it has the same value then, and what
    /// they made of it has let go of it).
    After {
        /// The builtin's index.
        builtin: u16,
        /// The first argument, `x`.
        first: &'e Expr,
        /// The other arguments.
        rest: &'e [Expr],
    },
    /// `(var out (slide cells out))`: a function of the game given `x` itself as argument
    /// `at`, which no other argument reads: it is given the value, not a copy (a function
    /// cannot see its caller's locals, and `x` gets its result).
    Given {
        /// The function.
        func: &'e Name,
        /// Its arguments.
        args: &'e [Expr],
        /// Which one is `x`.
        at: usize,
    },
}

/// How `(var var value)` updates `var` in place, if it does (see [`SelfUpdate`]);
/// `functions` are the game's functions.
pub fn self_update<'e>(
    var: Symbol,
    value: &'e Expr,
    functions: &FxHashMap<Symbol, super::bytecode::FuncId>,
) -> Option<SelfUpdate<'e>> {
    const UPDATES: &[&str] = &["put", "append", "prepend", "remove", "remove-key"];
    let ExprKind::Call { func, args } = &value.kind else {
        return None;
    };
    let builtin = BUILTINS.iter().position(|b| b.name == func.sym.as_str());
    if let Some(i) = builtin
        && UPDATES.contains(&func.sym.as_str())
        && let Some((first, rest)) = args.split_first()
        && matches!(first.kind, ExprKind::Var(v) if v == var)
        && args.len() <= u8::MAX as usize
    {
        let builtin = i as u16;
        if !rest.iter().any(|a| mentions(a, var)) {
            return Some(SelfUpdate::Taken {
                builtin,
                first,
                rest,
            });
        }
        if !rest.iter().any(|a| assigns(a, var)) {
            return Some(SelfUpdate::After {
                builtin,
                first,
                rest,
            });
        }
        return None;
    }
    if builtin.is_none()
        && functions.contains_key(&func.sym)
        && let Some(at) = args
            .iter()
            .position(|a| matches!(a.kind, ExprKind::Var(v) if v == var))
        && args
            .iter()
            .enumerate()
            .all(|(i, a)| i == at || !mentions(a, var))
    {
        return Some(SelfUpdate::Given { func, args, at });
    }
    None
}

/// Whether `e` may assign the variable `var` (a `var` or a `foreach` naming it, anywhere
/// in it).
fn assigns(e: &Expr, var: Symbol) -> bool {
    let any = |es: &[Expr]| es.iter().any(|x| assigns(x, var));
    match &e.kind {
        ExprKind::VarDef { name, value } => name.sym == var || assigns(value, var),
        ExprKind::Foreach {
            var: v, iter, body, ..
        } => v.sym == var || assigns(iter, var) || assigns(body, var),
        ExprKind::Call { args, .. } => any(args),
        ExprKind::If {
            cond,
            then,
            otherwise,
        } => {
            assigns(cond, var)
                || assigns(then, var)
                || otherwise.as_deref().is_some_and(|o| assigns(o, var))
        }
        ExprKind::Switch {
            value,
            cases,
            default,
        } => {
            assigns(value, var)
                || cases
                    .iter()
                    .any(|(c, b)| assigns(c, var) || assigns(b, var))
                || default.as_deref().is_some_and(|d| assigns(d, var))
        }
        ExprKind::While { cond, body } => assigns(cond, var) || assigns(body, var),
        ExprKind::Do(items) | ExprKind::And(items) | ExprKind::Or(items) => any(items),
        ExprKind::Return(v) => v.as_deref().is_some_and(|v| assigns(v, var)),
        ExprKind::Form { args, attrs, .. } => {
            any(args)
                || attrs
                    .iter()
                    .any(|(k, v)| assigns(k, var) || assigns(v, var))
        }
        // Listed one by one: a new kind of expression must say whether it assigns.
        ExprKind::Nil
        | ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Var(_)
        | ExprKind::Message
        | ExprKind::Error => false,
    }
}

/// Whether `e` reads the variable `var` anywhere.
fn mentions(e: &Expr, var: Symbol) -> bool {
    let any = |es: &[Expr]| es.iter().any(|x| mentions(x, var));
    match &e.kind {
        ExprKind::Var(v) => *v == var,
        ExprKind::Call { args, .. } => any(args),
        ExprKind::VarDef { value, .. } => mentions(value, var),
        ExprKind::If {
            cond,
            then,
            otherwise,
        } => {
            mentions(cond, var)
                || mentions(then, var)
                || otherwise.as_deref().is_some_and(|o| mentions(o, var))
        }
        ExprKind::Switch {
            value,
            cases,
            default,
        } => {
            mentions(value, var)
                || cases
                    .iter()
                    .any(|(c, b)| mentions(c, var) || mentions(b, var))
                || default.as_deref().is_some_and(|d| mentions(d, var))
        }
        ExprKind::Foreach { iter, body, .. } => mentions(iter, var) || mentions(body, var),
        ExprKind::While { cond, body } => mentions(cond, var) || mentions(body, var),
        ExprKind::Do(items) | ExprKind::And(items) | ExprKind::Or(items) => any(items),
        ExprKind::Return(v) => v.as_deref().is_some_and(|v| mentions(v, var)),
        ExprKind::Form { args, attrs, .. } => {
            any(args)
                || attrs
                    .iter()
                    .any(|(k, v)| mentions(k, var) || mentions(v, var))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::compile::build_game;
    use crate::compile::bytecode::Op;
    use crate::syntax::load::MemoryFs;

    /// The ops of the game's only `#setup` body.
    fn setup_ops(body: &str) -> Vec<Op> {
        let mut fs = MemoryFs::new();
        fs.insert("t.fr", format!("#setup\n{body}\n"));
        let built = match build_game(&fs, Path::new("t.fr")) {
            Ok(b) => b,
            Err(e) => panic!("{}", e.render_plain()),
        };
        let game = built.game;
        let code = game.setup[0];
        game.code(code).ops.clone()
    }

    fn updates_in_place(ops: &[Op]) -> bool {
        ops.iter().any(|op| {
            matches!(
                op,
                Op::UpdateLocal { .. } | Op::PutLocal { .. } | Op::PutAdd { .. }
            )
        })
    }

    #[test]
    fn a_self_update_reading_itself_updates_in_place() {
        let ops = setup_ops("(var d (dict))\n(var k 1)\n(var d (put d k (+ (get d k 0) 1)))\nd");
        assert!(updates_in_place(&ops), "{ops:?}");
        assert!(
            ops.iter()
                .any(|op| matches!(op, Op::Hole | Op::PutAdd { .. })),
            "{ops:?}"
        );
        let ops = setup_ops("(var l (list))\n(var l (append l (length l)))\nl");
        assert!(updates_in_place(&ops), "{ops:?}");
    }

    #[test]
    fn a_self_update_that_may_assign_itself_reads_it_first() {
        for body in [
            "(var d (dict))\n(var d (put d 1 (do (var d (dict)) (get d 1 0) end)))\nd",
            "(var d (dict))\n(var d (put d (foreach d in (list 1) 0) (length d)))\nd",
        ] {
            let ops = setup_ops(body);
            assert!(!updates_in_place(&ops), "{body}: {ops:?}");
            assert!(!ops.contains(&Op::Take(0)), "{body}: {ops:?}");
        }
    }

    #[test]
    fn a_function_given_the_variable_it_is_assigned_to_is_given_the_value_itself() {
        let with_push = |body: &str| {
            let mut fs = MemoryFs::new();
            fs.insert(
                "t.fr",
                format!("#define push (l x) (append l x)\n#setup\n{body}\n"),
            );
            let built = build_game(&fs, Path::new("t.fr"))
                .unwrap_or_else(|e| panic!("{}", e.render_plain()));
            let game = built.game;
            game.code(game.setup[0]).ops.clone()
        };
        let ops = with_push("(var l (list))\n(var l (push l 1))\nl");
        assert!(ops.contains(&Op::Take(0)), "{ops:?}");
        // Another argument reads it: both read it.
        let ops = with_push("(var l (list))\n(var l (push l (length l)))\nl");
        assert!(!ops.contains(&Op::Take(0)), "{ops:?}");
        // Assigned to another variable, or given to a builtin outside the updates: read.
        let ops = with_push("(var l (list))\n(var m (push l 1))\nl");
        assert!(!ops.contains(&Op::Take(0)), "{ops:?}");
        let ops = with_push("(var i 1)\n(var i (+ i 1))\ni");
        assert!(!ops.contains(&Op::Take(0)), "{ops:?}");
    }

    #[test]
    fn a_self_update_not_reading_itself_takes_it_where_it_is_read() {
        let ops = setup_ops("(var d (dict))\n(var d (put d 1 2))\nd");
        assert!(ops.contains(&Op::Take(0)), "{ops:?}");
        assert!(!updates_in_place(&ops), "{ops:?}");
    }
}
