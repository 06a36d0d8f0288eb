//! Chains compiled by hand (the `hand-chains` feature): a measuring instrument for the
//! machine-code design (`docs/machine.md`, "Chains compiled by hand"), not a tier. With
//! the feature, the fast tier (`--tier fast` or `both`) runs Go's
//! `cell/withStone/hasLiberty` and `cell/checkingLiberties/release` and Awele's `seed`
//! chain as code generated for the bodies and their sends together would run them: the running entity kept for the body, its
//! own and other entities' properties and states read at their slots, and each send to
//! a chain of the same shape a call of the same code, with no message, join point or
//! frame. Everything the interpreter makes observable (the steps, the memory charged,
//! the world, the undo log, the depth limit) is made the same; anything else gives up,
//! as the fast tier does. `--tier both` checks it against the interpreter.
//!
//! Each body is replaced only when its bytecode is the one written against (its
//! fingerprint below); otherwise a line says so and the closures run. With
//! `FLEXRULES_FAST_ONLY=<text>[,<text>...]` set, only the bodies whose name contains one
//! of the texts run on the fast tier, so that a chain can be measured against the
//! interpreter alone; with
//! `FLEXRULES_HAND_CHAINS=off`, nothing is replaced (the closures, for comparison).

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use crate::compile::bytecode::{Code, CodeId, Op};
use crate::compile::program::Game;
use crate::symbol::Symbol;

use super::super::budget::ENTRY_BYTES;
use super::super::value::Value;
use super::super::value::attrs::key_order;
use super::super::world::EntityId;
use super::fast::{Done, Exit, FAST_DEPTH, FastCode, Fx, MessageShape};

/// The fingerprint of a body's instructions.
fn fingerprint(code: &Code) -> u64 {
    let mut h = FxHasher::default();
    format!("{:?}", code.ops()).hash(&mut h);
    h.finish()
}

/// The fingerprints of the bodies written against, by name.
const GO_HAS_LIBERTY: (&str, u64) = ("behaviour cell/withStone/hasLiberty", 0xa8c0_2b90_2abe_09a8);
const GO_RELEASE: (&str, u64) = (
    "behaviour cell/checkingLiberties/release",
    0xcb4c_4c0b_a2b6_3279,
);
const AWELE_SEED: (&str, u64) = ("behaviour hole/default/seed", 0x681a_502b_44d0_fec8);

/// Put the hand-compiled chains in `codes` (the fast forms of `game`'s bodies, by id),
/// and keep only the bodies `FLEXRULES_FAST_ONLY` names, if set.
pub(super) fn substitute(game: &Game, codes: &mut [Option<FastCode>]) {
    let only = std::env::var("FLEXRULES_FAST_ONLY").ok();
    let replace = std::env::var("FLEXRULES_HAND_CHAINS").map_or(true, |v| v != "off");
    for (i, code) in game.codes.iter().enumerate() {
        let name = &*code.name;
        if let Some(only) = &only
            && !only.split(',').any(|text| name.contains(text))
        {
            codes[i] = None;
            continue;
        }
        let made = if name == GO_HAS_LIBERTY.0 {
            Some((GO_HAS_LIBERTY.1, liberty_code(code, CodeId(i as u32))))
        } else if name == GO_RELEASE.0 {
            Some((GO_RELEASE.1, release_code(code, CodeId(i as u32))))
        } else if name == AWELE_SEED.0 {
            Some((AWELE_SEED.1, seed_code(code, CodeId(i as u32))))
        } else {
            None
        };
        let Some((expected, fast)) = made.filter(|_| replace) else {
            continue;
        };
        let found = fingerprint(code);
        if found == expected {
            codes[i] = Some(fast);
        } else {
            eprintln!(
                "hand-chains: {name} is not the body written against (fingerprint {found:#x}); its closures run"
            );
        }
    }
}

/// A fast form running `run`, for body `code`.
fn fast_code(
    code: &Code,
    run: impl Fn(&mut Fx<'_, '_>) -> Done + Send + Sync + 'static,
) -> FastCode {
    let return_at = code
        .ops()
        .iter()
        .position(|op| *op == Op::Return)
        .map_or(u32::MAX, |i| i as u32);
    FastCode::new(
        Box::new(run),
        Vec::new(),
        return_at,
        true,
        code.locals() as usize,
        true,
    )
}

/// A message shape sent with `names`.
fn shape(label: &str, names: &[&str], code: &Code) -> MessageShape {
    let names: Box<[Symbol]> = names.iter().map(|n| Symbol::intern(n)).collect();
    MessageShape {
        label: Symbol::intern(label),
        order: key_order(&names).unwrap_or_default(),
        names,
        send: true,
        span: code.spans[0],
    }
}

/// Whether `v` is the text of name `s` (as `=` compares two strings).
fn is(v: &Value, s: Symbol) -> bool {
    match v {
        Value::Str(t) => match t.as_symbol() {
            Some(name) => name == s,
            None => t.as_str() == s.as_str(),
        },
        _ => false,
    }
}

/// What Go's searches (`hasLiberty`, `release`) read and send: the body compiled and
/// the label it answers, and the names the two bodies read.
struct Go {
    body: CodeId,
    label: Symbol,
    colour: Symbol,
    stone: Symbol,
    neighbours: Symbol,
    default: Symbol,
    with_stone: Symbol,
    checking: Symbol,
}

fn go(body: CodeId, label: &str) -> Go {
    Go {
        body,
        label: Symbol::intern(label),
        colour: Symbol::intern("colour"),
        stone: Symbol::intern("stone"),
        neighbours: Symbol::intern("neighbours"),
        default: Symbol::intern("default"),
        with_stone: Symbol::intern("withStone"),
        checking: Symbol::intern("checkingLiberties"),
    }
}

fn liberty_code(code: &Code, body: CodeId) -> FastCode {
    let k = go(body, "hasLiberty");
    fast_code(code, move |fx| fx.liberty_entry(&k))
}

fn release_code(code: &Code, body: CodeId) -> FastCode {
    let k = go(body, "release");
    fast_code(code, move |fx| fx.release_entry(&k))
}

/// What Awele's `seed` chain reads and sends.
struct Seed {
    body: CodeId,
    left: Symbol,
    passing: Symbol,
    origin: Symbol,
    seeds: Symbol,
    next: Symbol,
    label: Symbol,
    skip: Symbol,
    last_seed: Symbol,
    shape: MessageShape,
}

fn seed_code(code: &Code, body: CodeId) -> FastCode {
    let k = Seed {
        body,
        left: Symbol::intern("left"),
        passing: Symbol::intern("passing"),
        origin: Symbol::intern("origin"),
        seeds: Symbol::intern("seeds"),
        next: Symbol::intern("next"),
        label: Symbol::intern("seed"),
        skip: Symbol::intern("Skip The Origin House"),
        last_seed: Symbol::intern("Last Seed"),
        shape: shape("seed", &["left", "origin"], code),
    };
    fast_code(code, move |fx| fx.seed_entry(&k))
}

impl Fx<'_, '_> {
    /// Whether a send `nest` compiled sends deep would stay within the depth limit: each
    /// compiled send stands for the join point and the frame the interpreter pushes.
    fn within_depth(&self, nest: usize) -> bool {
        self.m.frames.len() + self.m.jps.len() + 2 * nest < self.cx.limits.max_depth
            && nest < FAST_DEPTH
    }

    /// Go's `hasLiberty` in state `withStone`, entered by the machine for its join point.
    fn liberty_entry(&mut self, k: &Go) -> Done {
        let Some((me, _)) = self.m.me() else {
            return Err(Exit::GiveUp);
        };
        let colour = self.attribute(k.colour)?;
        let Some(colour) = (match &colour {
            Value::Str(t) => t.as_symbol(),
            _ => None,
        }) else {
            return Err(Exit::GiveUp);
        };
        self.set_local(0, Value::sym(colour));
        match self.liberty_body(k, me, colour, 0)? {
            (v, true) => self.return_with(Value::bool(v)),
            (v, false) => Ok(Value::bool(v)),
        }
    }

    /// The body for stone `me` asked about `colour`, `nest` compiled sends deep: its
    /// value, and whether it left by `return` (whose step it counted).
    fn liberty_body(
        &mut self,
        k: &Go,
        me: EntityId,
        colour: Symbol,
        nest: usize,
    ) -> Result<(bool, bool), Exit> {
        let game = self.cx.game;
        // Attribute, SetLocal, Load, Property, OpJump (2).
        self.step(6);
        let (mine, neighbours) = {
            let e = self.m.world.game_entity(me).ok_or(Exit::GiveUp)?;
            let stone = e.layout_property(game, k.stone).ok_or(Exit::GiveUp)?;
            let Some(Value::List(ns)) = e.layout_property(game, k.neighbours) else {
                return Err(Exit::GiveUp);
            };
            (is(stone, colour), ns.clone())
        };
        if !mine {
            // Bool, Return.
            self.step(2);
            return Ok((false, true));
        }
        // NilPop (2), Property, IterStart.
        self.step(4);
        for n in neighbours.iter() {
            // IterNext, LocalStateJump (5).
            self.step(6);
            if self.m.fixed_state(n).ok_or(Exit::GiveUp)? == k.default {
                self.step(2);
                return Ok((true, true));
            }
            // NilPop (2), the loop's jump.
            self.step(3);
            self.check()?;
        }
        // The last IterNext, NilPop (2), Str, Form ChangeState, Pop.
        self.step(6);
        let logging = self.m.logging();
        let e = self.m.world.game_entity_mut(me).ok_or(Exit::GiveUp)?;
        let from = std::mem::replace(&mut e.state, k.checking);
        if logging {
            self.m.log_state(me, from);
        }
        // Property, IterStart.
        self.step(2);
        for n in neighbours.iter() {
            // IterNext, Load, StateOf, StrCmp (2), AndExit.
            self.step(6);
            let (id, with_stone, same) = {
                let (id, e) = self.m.fixed_entity(n).ok_or(Exit::GiveUp)?;
                let with_stone = e.state == k.with_stone;
                let stone = e.layout_property(game, k.stone);
                (
                    id,
                    with_stone,
                    with_stone && stone.is_some_and(|s| is(s, colour)),
                )
            };
            let mut alive = false;
            if !with_stone {
                // AndExit's jump.
                self.step(1);
            } else if !same {
                // LocalPropertyOf (2), Load, Builtin =, AndExit, its jump.
                self.step(6);
            } else {
                // LocalPropertyOf (2), Load, Builtin =, AndExit; Str, Load, Str, Load,
                // Form SendNew, JumpIfFalse.
                self.step(11);
                alive = self.liberty_send(k, id, colour, nest + 1)?;
            }
            if alive {
                self.step(2);
                return Ok((true, true));
            }
            self.step(3);
            self.check()?;
        }
        // The last IterNext, NilPop (2), Bool.
        self.step(4);
        Ok((false, false))
    }

    /// Whether `k`'s message sent to `to`, `nest` compiled sends deep, would run `k`'s
    /// body alone (no law or side-effect) within the depth limit: else the fast tier
    /// gives up.
    fn go_send_alone(&mut self, k: &Go, to: EntityId, nest: usize) -> Result<(), Exit> {
        if !self.within_depth(nest) {
            return Err(Exit::GiveUp);
        }
        let e = self.m.world.game_entity(to).ok_or(Exit::GiveUp)?;
        let (ty, name, state) = (e.ty, e.name, e.state);
        let (chain, behaviour) =
            self.cx
                .cache
                .get(self.cx.game, &self.m.world, ty, name, state, k.label);
        if chain.laws.is_empty() && chain.side_effects.is_empty() && behaviour == Some(k.body) {
            Ok(())
        } else {
            Err(Exit::GiveUp)
        }
    }

    /// `(send new message "hasLiberty" to n with "colour" colour)` to `to`, a stone of
    /// the asker's colour in state `withStone`: the body called, when the message would
    /// run it alone (no law or side-effect).
    fn liberty_send(
        &mut self,
        k: &Go,
        to: EntityId,
        colour: Symbol,
        nest: usize,
    ) -> Result<bool, Exit> {
        self.go_send_alone(k, to, nest)?;
        // The message's one attribute.
        self.m.meter.alloc(ENTRY_BYTES).map_err(|_| Exit::GiveUp)?;
        let (alive, returned) = self.liberty_body(k, to, colour, nest)?;
        if !returned {
            // The body's `End`.
            self.step(1);
        }
        Ok(alive)
    }

    /// Go's `release` in state `checkingLiberties`, entered by the machine for its join
    /// point.
    fn release_entry(&mut self, k: &Go) -> Done {
        let Some((me, _)) = self.m.me() else {
            return Err(Exit::GiveUp);
        };
        self.release_body(k, me, 0)?;
        Ok(Value::Nil)
    }

    /// The body for stone `me`, `nest` compiled sends deep: back to `withStone`, and the
    /// stones next to it still being checked released too.
    fn release_body(&mut self, k: &Go, me: EntityId, nest: usize) -> Result<(), Exit> {
        // Str, Form ChangeState, Pop.
        self.step(3);
        let game = self.cx.game;
        let logging = self.m.logging();
        let e = self.m.world.game_entity_mut(me).ok_or(Exit::GiveUp)?;
        let from = std::mem::replace(&mut e.state, k.with_stone);
        let Some(Value::List(neighbours)) = e.layout_property(game, k.neighbours).cloned() else {
            return Err(Exit::GiveUp);
        };
        if logging {
            self.m.log_state(me, from);
        }
        // Property, IterStart.
        self.step(2);
        for n in neighbours.iter() {
            // IterNext, LocalStateJump (5).
            self.step(6);
            let (id, checking) = {
                let (id, e) = self.m.fixed_entity(n).ok_or(Exit::GiveUp)?;
                (id, e.state == k.checking)
            };
            if checking {
                // Str, Load, Form SendNew; JumpPop (2), the loop's jump.
                self.step(3);
                self.release_send(k, id, nest + 1)?;
                self.step(3);
            } else {
                // NilPop (2), the loop's jump.
                self.step(3);
            }
            self.check()?;
        }
        // The last IterNext, NilEnd's nil.
        self.step(2);
        Ok(())
    }

    /// `(send new message "release" to n)` to `to`, a stone being checked: the body
    /// called, when the message would run it alone.
    fn release_send(&mut self, k: &Go, to: EntityId, nest: usize) -> Result<(), Exit> {
        self.go_send_alone(k, to, nest)?;
        self.release_body(k, to, nest)?;
        // The body's `End`.
        self.step(1);
        Ok(())
    }

    /// Awele's behaviour `seed`, entered by the machine for its join point (its law has
    /// run; its side-effect runs after).
    fn seed_entry(&mut self, k: &Seed) -> Done {
        let Some((me, _)) = self.m.me() else {
            return Err(Exit::GiveUp);
        };
        let left = self.attribute(k.left)?;
        let passing = self.attribute(k.passing)?;
        let origin = self.attribute(k.origin)?;
        let (Value::Int(left), false, Value::Str(origin)) = (left, passing.truthy(), origin) else {
            return Err(Exit::GiveUp);
        };
        let origin = origin.as_symbol().ok_or(Exit::GiveUp)?;
        self.set_local(0, Value::Int(left));
        self.seed_behaviour(k, me, left, origin, 0)
    }

    /// The behaviour for house `me` (a message not passing through), `nest` compiled
    /// sends deep.
    fn seed_behaviour(
        &mut self,
        k: &Seed,
        me: EntityId,
        left: i64,
        origin: Symbol,
        nest: usize,
    ) -> Done {
        if self.m.world.canvas.active {
            return Err(Exit::GiveUp);
        }
        self.check()?;
        // Attribute, SetLocal, Attribute, JumpIfFalse; Str, Property, Const (2), Form
        // UpdateProperty, Pop; LocalConst (3), Store, Pop; LocalConstJump (4).
        self.step(19);
        let game = self.cx.game;
        let logging = self.m.logging();
        let e = self.m.world.game_entity_mut(me).ok_or(Exit::GiveUp)?;
        let slot = game.slot(e.ty, k.seeds).ok_or(Exit::GiveUp)?;
        let next = match e.layout_property(game, k.next) {
            Some(Value::Str(t)) => t.as_symbol().ok_or(Exit::GiveUp)?,
            _ => return Err(Exit::GiveUp),
        };
        let place = e.props.get_mut(usize::from(slot)).ok_or(Exit::GiveUp)?;
        let Value::Int(seeds) = *place else {
            return Err(Exit::GiveUp);
        };
        let seeds = seeds.checked_add(1).ok_or(Exit::GiveUp)?;
        let old = std::mem::replace(place, Value::Int(seeds));
        if logging {
            self.m.log_slot(me, slot, old);
        }
        let left = left - 1;
        if left <= 0 {
            // NilEnd's nil (its `End` is the body's, counted as it leaves).
            self.step(1);
            return Ok(Value::Nil);
        }
        // Str, Property, Str, Load, Str, Attribute, Form SendNew.
        self.step(7);
        let v = self.seed_send(k, next, left, origin, nest + 1)?;
        // JumpEnd's jump.
        self.step(1);
        Ok(v)
    }

    /// `(send new message "seed" to next with "left" left "origin" origin)`: the chain
    /// called when it is this one and its side-effect will not capture (not the last
    /// seed) and its law will not mark it passing (not the origin); the general way
    /// otherwise.
    fn seed_send(&mut self, k: &Seed, to: Symbol, left: i64, origin: Symbol, nest: usize) -> Done {
        if !self.within_depth(nest) {
            return Err(Exit::GiveUp);
        }
        let (id, ty, state) = {
            let (id, e) = self.m.fixed_entity_of(to).ok_or(Exit::GiveUp)?;
            (id, e.ty, e.state)
        };
        let (chain, behaviour) =
            self.cx
                .cache
                .get(self.cx.game, &self.m.world, ty, to, state, k.label);
        let same = left != 1
            && to != origin
            && !chain.laws_may_change_world
            && matches!(&chain.laws[..], [law] if law.name == k.skip)
            && matches!(&chain.side_effects[..], [se] if se.name == k.last_seed)
            && behaviour == Some(k.body);
        if !same {
            let at = self.top();
            self.push(Value::sym(to));
            self.push(Value::Int(left));
            self.push(Value::sym(origin));
            return self.new_message(&k.shape, at);
        }
        // The message's two attributes.
        self.m
            .meter
            .alloc(2 * ENTRY_BYTES)
            .map_err(|_| Exit::GiveUp)?;
        // Skip The Origin House, not the origin: Builtin self, Attribute, OpJump (2),
        // NilEnd (2).
        self.step(6);
        let v = self.seed_behaviour(k, id, left, origin, nest)?;
        // The behaviour's `End`; Last Seed, not the last seed: Attribute, Const (2),
        // AndExit, its end (3).
        self.step(8);
        Ok(v)
    }
}
