//! The builtins the machine runs itself, as they read the game, the world or the running
//! join point (`self`, `sender`, `param`, `random`, `notify`, the board's `neighbor`,
//! `walk`, `ray`, `directions` ...), and the reading of names and attributes they share
//! with the forms.

use crate::compile::builtins::BUILTINS;
use crate::compile::builtins::index as builtin_index;
use crate::compile::program::TypeId;
use crate::source::Span;
use crate::symbol::Symbol;

use super::super::budget::{ELEMENT_BYTES, LINE_BYTES, MAX_NAME_BYTES};
use super::super::builtins::{pure_fn, same_text, text_of};
use super::super::trace::{Output, RuntimeError};
use super::super::value::{Attrs, Dict, Text, Value};
use super::super::world::EntityId;
use super::queries::Question;
use super::{Context, Machine};

/// Directions `walk` follows within the step of its call; each one past them counts a
/// step.
pub const WALK_IN_STEP: usize = 8;

/// The index of `self` (`call_builtin` answers it first).
pub(super) const SELF: u16 = builtin_index("self");

/// The builtins the machine runs itself, as they read the game, the world or the running
/// join point (the others are [`pure_fn`]s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GameFn {
    SelfName,
    Sender,
    Param,
    Random,
    Shuffle,
    Notify,
    Print,
    Neighbor,
    Walk,
    Ray,
    Directions,
    BoardData,
    LegalMoves,
    HasLegalMove,
    IsLegal,
}

/// The [`GameFn`] of each builtin, by index of [`BUILTINS`], worked out at compile time: a
/// call picks its code by index, not by comparing names.
pub(super) static GAME_FNS: [Option<GameFn>; BUILTINS.len()] = {
    const NAMED: [(&str, GameFn); 15] = [
        ("self", GameFn::SelfName),
        ("sender", GameFn::Sender),
        ("param", GameFn::Param),
        ("random", GameFn::Random),
        ("shuffle", GameFn::Shuffle),
        ("notify", GameFn::Notify),
        ("print", GameFn::Print),
        ("neighbor", GameFn::Neighbor),
        ("walk", GameFn::Walk),
        ("ray", GameFn::Ray),
        ("directions", GameFn::Directions),
        ("board-data", GameFn::BoardData),
        ("legal-moves", GameFn::LegalMoves),
        ("has-legal-move", GameFn::HasLegalMove),
        ("is-legal", GameFn::IsLegal),
    ];
    let mut table = [None; BUILTINS.len()];
    let mut i = 0;
    while i < BUILTINS.len() {
        let mut k = 0;
        while k < NAMED.len() {
            if same_text(NAMED[k].0, BUILTINS[i].name) {
                table[i] = Some(NAMED[k].1);
            }
            k += 1;
        }
        i += 1;
    }
    table
};

impl Machine {
    /// Call builtin `index` on the `argc` values on top of the stack, leaving its result
    /// there instead. The instruction is the one before `ip` in `code`: its span is looked
    /// up only when it is needed (an error, or a builtin that reads the context).
    #[inline]
    pub(super) fn call_builtin(
        &mut self,
        cx: &mut Context<'_>,
        index: u16,
        argc: u8,
        code: &crate::compile::bytecode::Code,
        ip: usize,
    ) -> Result<(), RuntimeError> {
        if index == SELF {
            // `self` (common in laws and behaviours): the running entity's name, as
            // `context_builtin` gives it, without its dispatch.
            let v = self.me().map_or(Value::Nil, |(_, n)| Value::sym(n));
            self.stack.push(v);
            return Ok(());
        }
        let at = self.stack.len() - argc as usize;
        let result = match pure_fn(index as usize) {
            Some(f) => match f(&mut self.stack[at..], &mut self.meter) {
                Ok(v) => v,
                Err(e) => return Err(self.builtin_error(code.spans[ip - 1], e)),
            },
            None => self.context_builtin(cx, index as usize, at, code.spans[ip - 1])?,
        };
        self.place_result(at, argc, result);
        Ok(())
    }

    /// The entity a name value designates. Looking up a string made at run time hashes
    /// its bytes: counted as [`Meter::name_lookup`] counts it (one step per
    /// [`TEXT_STEP`] bytes, nothing for a name or a short string).
    ///
    /// [`Meter::name_lookup`]: super::super::budget::Meter::name_lookup
    /// [`TEXT_STEP`]: super::super::budget::TEXT_STEP
    #[inline(never)]
    pub(super) fn entity_named(&mut self, v: &Value, span: Span) -> Result<EntityId, RuntimeError> {
        self.count_entity_name(v, span)?;
        self.find_entity(v, span)
    }

    /// Count the lookup of the entity name `v` ([`Machine::entity_named`]): a test of a
    /// bit and a length unless `v` is a long string made at run time.
    #[inline(always)]
    pub(super) fn count_entity_name(&mut self, v: &Value, span: Span) -> Result<(), RuntimeError> {
        match v {
            Value::Str(t) if t.is_long_made() => self.count_name_lookup(t, span),
            _ => Ok(()),
        }
    }

    #[cold]
    #[inline(never)]
    fn count_name_lookup(&mut self, t: &Text, span: Span) -> Result<(), RuntimeError> {
        self.meter
            .name_lookup(t)
            .map_err(|e| self.builtin_error(span, e))
    }

    /// [`Machine::entity_named`] once its lookup is counted.
    #[inline]
    pub(super) fn find_entity(&self, v: &Value, span: Span) -> Result<EntityId, RuntimeError> {
        let Value::Str(name) = v else {
            return Err(self.error(
                span,
                format!("an entity is named by a string, got {} {v}", v.type_name()),
            ));
        };
        // Entities made when the game started keep their ids: look them up in the
        // session's fixed table first (an array by symbol number), then in the world's.
        // A string made at run time names an entity only if its text is interned (every
        // entity name is): look it up without adding it.
        let sym = name.symbol();
        if let Some((id, _)) = sym.and_then(|sym| self.fixed_entity_of(sym)) {
            return Ok(id);
        }
        sym.and_then(|sym| self.world.lookup(sym)).ok_or_else(|| {
            let mut e = self.error(span, format!("no entity named \"{name}\""));
            let names: Vec<&str> = self.world.iter().map(|(_, e)| e.name.as_str()).collect();
            if let Some(c) = crate::diagnostic::closest(name.as_str(), names.iter().copied()) {
                e.hint = Some(format!("did you mean \"{c}\"?"));
            }
            e
        })
    }

    pub(super) fn context_builtin(
        &mut self,
        cx: &mut Context<'_>,
        index: usize,
        at: usize,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let Some(Some(g)) = GAME_FNS.get(index).copied() else {
            let name = BUILTINS.get(index).map_or("?", |b| b.name);
            return Err(self.error(
                span,
                format!("internal: builtin `{name}` has no implementation"),
            ));
        };
        let args = &self.stack[at..];
        match g {
            GameFn::SelfName => Ok(self.me().map_or(Value::Nil, |(_, n)| Value::sym(n))),
            GameFn::Sender => Ok(self
                .current_jp()
                .and_then(|jp| jp.sender)
                .map_or(Value::Nil, Value::sym)),
            GameFn::Param => {
                let key = match &args[0] {
                    Value::Str(s) => s,
                    other => {
                        return Err(self.error(
                            span,
                            format!("a parameter is named by a string, got {other}"),
                        ));
                    }
                };
                self.meter
                    .name_lookup(key)
                    .map_err(|e| self.builtin_error(span, e))?;
                let found = key.symbol().and_then(|k| cx.params.get(&k));
                found.cloned().ok_or_else(|| {
                    let mut e = self.error(span, format!("no parameter \"{key}\""));
                    e.hint = Some(format!("declare it with #param {key} <default>"));
                    e
                })
            }
            GameFn::Random => match args[0] {
                Value::Int(n) if n > 0 => Ok(Value::Int(self.world.random_below(n as u64) as i64)),
                ref other => Err(self.error(
                    span,
                    format!("random needs a positive integer, got {other}"),
                )),
            },
            GameFn::Shuffle => match &args[0] {
                Value::List(l) => {
                    self.meter
                        .work(l.len())
                        .and_then(|()| self.meter.alloc(ELEMENT_BYTES * l.len() as u64))
                        .map_err(|e| self.builtin_error(span, e))?;
                    let mut items: Vec<Value> = l.iter().cloned().collect();
                    for i in (1..items.len()).rev() {
                        let j = self.world.random_below(i as u64 + 1) as usize;
                        items.swap(i, j);
                    }
                    Ok(Value::list(items.into_iter().collect()))
                }
                other => Err(self.error(
                    span,
                    format!("shuffle needs a list, got {} {other}", other.type_name()),
                )),
            },
            GameFn::Notify => {
                let text = text_of(&args[..1], "", &mut self.meter, "`notify`: the line")
                    .and_then(|t| self.meter.alloc(line_bytes(&t)).map(|()| t))
                    .map_err(|e| self.builtin_error(span, e))?;
                self.output.push(Output::Notify(text));
                if let Some(p) = &mut self.profile {
                    p.print();
                }
                Ok(Value::Nil)
            }
            GameFn::Print => {
                let text = text_of(args, " ", &mut self.meter, "`print`: the line")
                    .and_then(|t| self.meter.alloc(line_bytes(&t)).map(|()| t))
                    .map_err(|e| self.builtin_error(span, e))?;
                self.output.push(Output::Print(text));
                if let Some(p) = &mut self.profile {
                    p.print();
                }
                Ok(Value::Nil)
            }
            GameFn::Neighbor | GameFn::Walk | GameFn::Ray | GameFn::Directions => {
                self.count_names(at)
                    .map_err(|e| self.builtin_error(span, e))?;
                self.navigate(cx, g, BUILTINS[index].name, at, span)
            }
            GameFn::BoardData => {
                self.count_names(at)
                    .map_err(|e| self.builtin_error(span, e))?;
                self.board_data(cx, at, span)
            }
            GameFn::LegalMoves => self.legal_question(cx, Question::Names, at, span),
            GameFn::HasLegalMove => self.legal_question(cx, Question::Any, at, span),
            GameFn::IsLegal => self.legal_question(cx, Question::Named, at, span),
        }
    }

    /// Count the names a board builtin looks up (the arguments from `at`): a cell or
    /// direction made at run time is hashed by its bytes ([`Meter::name_lookup`]), and
    /// `walk` counts one step per direction of its list past the first
    /// [`WALK_IN_STEP`] (a knight's or a pawn's walk costs what any call costs).
    ///
    /// [`Meter::name_lookup`]: super::super::budget::Meter::name_lookup
    #[inline]
    fn count_names(
        &mut self,
        at: usize,
    ) -> Result<(), crate::runtime::builtin_error::BuiltinError> {
        let meter = &mut self.meter;
        for v in &self.stack[at..] {
            match v {
                Value::Str(t) => meter.name_lookup(t)?,
                Value::List(l) => {
                    meter.work(l.len().saturating_sub(WALK_IN_STEP))?;
                    for d in l.iter() {
                        if let Value::Str(t) = d {
                            meter.name_lookup(t)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The board builtins: `neighbor`, `walk`, `ray`, `directions`.
    pub(super) fn navigate(
        &self,
        cx: &Context<'_>,
        g: GameFn,
        name: &str,
        at: usize,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let args = &self.stack[at..];
        let game = cx.game;
        let Value::Str(cell) = &args[0] else {
            return Err(self.error(
                span,
                format!(
                    "`{name}` needs a cell name, got {} {}",
                    args[0].type_name(),
                    args[0]
                ),
            ));
        };
        let Some(&(b, c)) = cell.symbol().and_then(|cell| game.cells.get(&cell)) else {
            let mut e = self.error(span, format!("\"{cell}\" is not a cell of any #board"));
            e.hint = Some(
                "cells are the entities a #board makes, such as \"a1\" on an 8x8 board".into(),
            );
            return Err(e);
        };
        let board = &game.boards[b as usize];
        let dir = |v: &Value| -> Result<crate::board::DirId, RuntimeError> {
            let Value::Str(d) = v else {
                return Err(self.error(
                    span,
                    format!("a direction is a string, got {} {v}", v.type_name()),
                ));
            };
            d.symbol()
                .and_then(|d| board.direction_by_symbol(d))
                .ok_or_else(|| {
                    let names: Vec<&str> = board
                        .directions(c)
                        .map(|d| board.dir_name(d).as_str())
                        .collect();
                    let mut e = self.error(span, format!("this board has no direction \"{d}\""));
                    e.hint = Some(
                        match crate::diagnostic::closest(d.as_str(), names.iter().copied()) {
                            Some(n) => format!("did you mean \"{n}\"?"),
                            None => format!("the directions from {cell} are {}", names.join(" ")),
                        },
                    );
                    e
                })
        };
        let cell_value = |c: Option<crate::board::CellId>| {
            c.map_or(Value::Nil, |c| Value::sym(board.cell_name(c)))
        };
        Ok(match g {
            GameFn::Neighbor => cell_value(board.neighbor(c, dir(&args[1])?)),
            GameFn::Walk => {
                let Value::List(steps) = &args[1] else {
                    return Err(self.error(
                        span,
                        format!(
                            "`walk` needs a list of directions, got {} {}",
                            args[1].type_name(),
                            args[1]
                        ),
                    ));
                };
                let dirs = steps.iter().map(&dir).collect::<Result<Vec<_>, _>>()?;
                cell_value(board.walk(c, &dirs))
            }
            // A list of cell names: scalars, one deep (the names kept from the first time).
            GameFn::Ray => {
                let d = dir(&args[1])?;
                game.rays.get_or_make(&game.boards, b as usize, c, d, || {
                    board
                        .ray(c, d)
                        .into_iter()
                        .map(|c| board.cell_name(c))
                        .collect()
                })
            }
            _ => Value::list(
                board
                    .directions(c)
                    .map(|d| Value::sym(board.dir_name(d)))
                    .collect(),
            ),
        })
    }

    /// `(board-data <cell>)`: what the board file of `cell`'s board says beyond its
    /// topology ([`crate::runtime::board_data::value`]), or nil for a board of another kind.
    fn board_data(
        &mut self,
        cx: &Context<'_>,
        at: usize,
        span: Span,
    ) -> Result<Value, RuntimeError> {
        let game = cx.game;
        let found = match &self.stack[at] {
            Value::Str(cell) => cell.symbol().and_then(|c| game.cells.get(&c)),
            _ => None,
        };
        let Some(&(b, _)) = found else {
            let mut e = self.error(
                span,
                format!(
                    "`board-data` needs a cell of a #board, got {}",
                    self.stack[at]
                ),
            );
            e.hint = Some("ask about any cell of the board: (board-data \"a1\")".into());
            return Err(e);
        };
        let board = &game.boards[b as usize];
        let crate::board::origin::Origin::JoChess(data) = board.origin() else {
            return Ok(Value::Nil);
        };
        let (v, bytes) = crate::runtime::board_data::value(board, data);
        self.meter
            .work((bytes / ELEMENT_BYTES) as usize)
            .and_then(|()| self.meter.alloc(bytes))
            .map_err(|e| self.builtin_error(span, e))?;
        Ok(v)
    }

    /// The `n` attribute pairs on the stack as a dictionary (for the forms that keep
    /// them as one: `new entity`, `finish`, the drawing forms).
    pub(super) fn pop_attrs(&mut self, n: u8, span: Span) -> Result<Dict, RuntimeError> {
        let mut attrs = Attrs::new();
        self.pop_message_attrs(n, span, &mut attrs)?;
        Ok(attrs.to_dict())
    }

    /// The name a string value gives (a string built at run time becomes a name here, and is
    /// interned like every name).
    #[inline(always)]
    pub(super) fn symbol(&self, v: &Value, what: &str, span: Span) -> Result<Symbol, RuntimeError> {
        // The common case, a name written in the game: no call.
        if let Value::Str(s) = v
            && let Some(sym) = s.as_symbol()
        {
            return Ok(sym);
        }
        self.symbol_slowly(v, what, span)
    }

    #[inline(never)]
    pub(super) fn symbol_slowly(
        &self,
        v: &Value,
        what: &str,
        span: Span,
    ) -> Result<Symbol, RuntimeError> {
        match v {
            Value::Str(s) if s.as_str().len() > MAX_NAME_BYTES => {
                Err(self.long_name(s, what, span))
            }
            Value::Str(s) => Ok(s.intern()),
            other => Err(self.error(
                span,
                format!("{what} must be a string, got {} {other}", other.type_name()),
            )),
        }
    }

    /// The name a text becomes (interned for the life of the process): a name is itself,
    /// a string made at run time of more than [`MAX_NAME_BYTES`] is refused.
    #[inline]
    pub(super) fn text_name(
        &self,
        s: &Text,
        what: &str,
        span: Span,
    ) -> Result<Symbol, RuntimeError> {
        if let Some(sym) = s.as_symbol() {
            return Ok(sym);
        }
        if s.as_str().len() > MAX_NAME_BYTES {
            return Err(self.long_name(s, what, span));
        }
        Ok(s.intern())
    }

    /// The refusal of a string of more than [`MAX_NAME_BYTES`] made at run time as `what`.
    #[cold]
    #[inline(never)]
    fn long_name(&self, s: &Text, what: &str, span: Span) -> RuntimeError {
        let mut e = self.error(
            span,
            format!(
                "{what} made at run time may have at most {MAX_NAME_BYTES} bytes, got {} bytes",
                s.as_str().len()
            ),
        );
        e.hint = Some(
            "names are kept for the life of the game: use a shorter one, or keep long text as a value (a dictionary key, a property)"
                .into(),
        );
        e
    }

    pub(super) fn defaults_for(&self, cx: &Context<'_>, ty: TypeId) -> Vec<Value> {
        cx.defaults.get(ty.0 as usize).cloned().unwrap_or_default()
    }
}

/// What a buffered line of output is counted beyond the text `text_of` counted as made:
/// [`LINE_BYTES`] and its bytes once more (its copy in the form shown).
#[inline]
fn line_bytes(text: &str) -> u64 {
    LINE_BYTES + text.len() as u64
}
