//! Property tests of transactions on random worlds.
//!
//! Each case generates a game: counters `c0..cN` of three types (`t1` extends `t0`; `t2`
//! stands alone and is also the type of entities made at run time), with the numeric
//! properties `x`, `y` and `n`, and behaviours for the labels `m0..m2` built from random
//! steps: update a property, send to a counter (and add the answer to `y`), open a
//! checkpoint, roll back when a property passes a threshold, fail (`fail`)
//! when one does, make a new entity. Every behaviour first counts its runs in `n` and
//! gives `x` as its value. Random laws (which may change a property, then veto above a
//! threshold) and side-effects are bound to types or instances, and optionally a law on
//! every counter opens a checkpoint at the start of each transaction.
//!
//! A small model of those semantics, written here, predicts the outcome of every
//! transaction. The properties, checked after each of a random sequence of transactions:
//!
//! - the status (committed with its value, vetoed, rolled back, failed) is the model's;
//! - the world `same_as` the model's world (every entity and property);
//! - after a failed or vetoed transaction the world `same_as` the world before it;
//! - after a rollback the world `same_as` the world at the checkpoint restored: the world
//!   before the transaction when the checkpoint was the one opened at its start, otherwise
//!   that world plus the changes made before the checkpoint;
//! - a committed transaction changes the world.
//!
//! Every other transaction runs on a world that nothing else shares (the copies the test
//! keeps are made entity by entity), so the session changes it in place and undoes from
//! its log; the others run while the test's copy shares it, so writes copy first.
//!
//! Each transaction is also made as a trial in place (`Session::make`, what playouts and
//! perft do) on a copy of the session: it ends as the transaction does; a committed one
//! leaves the transaction's world and unmaking it gives back the world before; any other
//! (a rollback included: a move that rolls back is not played) leaves the world before.

use std::rc::Rc;
use std::sync::Arc;

use flexrules::compile::build_game;
use flexrules::compile::program::Game;
use flexrules::runtime::session::{Candidate, Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::{Attrs, Key, Message, Value};
use flexrules::runtime::vm::MoveLog;
use flexrules::runtime::world::{Entity, EntityId, World};
use flexrules::symbol::Symbol;
use flexrules::syntax::load::MemoryFs;
use proptest::prelude::*;

/// Labels every behaviour table handles.
const LABELS: usize = 3;
/// Sends stop at this message depth.
const MAX_DEPTH: i64 = 3;
/// Entity types: `t0`, `t1` (extends `t0`), `t2`.
const TYPES: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prop {
    X,
    Y,
}

impl Prop {
    fn name(self) -> &'static str {
        match self {
            Prop::X => "x",
            Prop::Y => "y",
        }
    }
}

/// One step of a behaviour or side-effect.
#[derive(Clone, Debug)]
enum Op {
    /// `p += k`.
    Inc(Prop, i64),
    /// `y += (send m<label> to c<to>)` (0 when the send yields nil or the depth is reached).
    Send { to: usize, label: usize },
    /// `(open checkpoint)`.
    Checkpoint,
    /// `(rollback ...)` when `p > above`.
    RollbackIf(Prop, i64),
    /// `(fail "too big")` when `p > above`.
    FailIf(Prop, i64),
    /// `(new entity "<self>-<n>" of "t2")`.
    Spawn,
}

/// What an advice is bound to.
#[derive(Clone, Copy, Debug)]
enum Target {
    Type(usize),
    /// An instance index, taken modulo the number of counters.
    Instance(usize),
}

#[derive(Clone, Debug)]
enum AdviceBody {
    /// A law: optionally change a property, then veto when `x > veto_above`.
    Law {
        inc: Option<(Prop, i64)>,
        veto_above: i64,
    },
    /// A side-effect: steps.
    SideEffect(Vec<Op>),
}

#[derive(Clone, Debug)]
struct Advice {
    target: Target,
    label: Option<usize>,
    body: AdviceBody,
}

/// A random game and the transactions to run on it.
#[derive(Clone, Debug)]
struct Spec {
    /// A law on `*` to every counter type opens a checkpoint when the user sent the message.
    checkpoint_law: bool,
    /// Behaviours of `t0` and `t2` per label; `t1`'s overrides (others are inherited).
    t0: Vec<Vec<Op>>,
    t1: Vec<Option<Vec<Op>>>,
    t2: Vec<Vec<Op>>,
    /// Counters: type, initial x and y.
    counters: Vec<(usize, i64, i64)>,
    advice: Vec<Advice>,
    /// Transactions: counter index (modulo the count) and label.
    transactions: Vec<(usize, usize)>,
}

fn prop_strategy() -> impl Strategy<Value = Prop> {
    prop_oneof![Just(Prop::X), Just(Prop::Y)]
}

fn op_strategy(sends: bool) -> impl Strategy<Value = Op> {
    let send_weight = if sends { 3 } else { 0 };
    prop_oneof![
        4 => (prop_strategy(), -3i64..=3).prop_map(|(p, k)| Op::Inc(p, k)),
        send_weight => (0usize..6, 0..LABELS).prop_map(|(to, label)| Op::Send { to, label }),
        1 => Just(Op::Checkpoint),
        1 => (prop_strategy(), 0i64..12).prop_map(|(p, t)| Op::RollbackIf(p, t)),
        1 => (prop_strategy(), 3i64..20).prop_map(|(p, t)| Op::FailIf(p, t)),
        1 => Just(Op::Spawn),
    ]
}

fn body_strategy() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(op_strategy(true), 0..5)
}

fn advice_strategy() -> impl Strategy<Value = Advice> {
    let target = prop_oneof![
        (0..TYPES).prop_map(Target::Type),
        (0usize..6).prop_map(Target::Instance),
    ];
    let body = prop_oneof![
        (proptest::option::of((prop_strategy(), -2i64..=3)), 0i64..12)
            .prop_map(|(inc, veto_above)| AdviceBody::Law { inc, veto_above }),
        proptest::collection::vec(op_strategy(false), 1..3).prop_map(AdviceBody::SideEffect),
    ];
    (target, proptest::option::of(0..LABELS), body).prop_map(|(target, label, body)| Advice {
        target,
        label,
        body,
    })
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    (
        any::<bool>(),
        proptest::collection::vec(body_strategy(), LABELS),
        proptest::collection::vec(proptest::option::of(body_strategy()), LABELS),
        proptest::collection::vec(body_strategy(), LABELS),
        proptest::collection::vec((0..TYPES, 0i64..5, 0i64..5), 2..6),
        proptest::collection::vec(advice_strategy(), 0..5),
        proptest::collection::vec((0usize..6, 0..LABELS), 1..12),
    )
        .prop_map(
            |(checkpoint_law, t0, t1, t2, counters, advice, transactions)| Spec {
                checkpoint_law,
                t0,
                t1,
                t2,
                counters,
                advice,
                transactions,
            },
        )
}

// ---------------------------------------------------------------------------------------
// The game text.

/// The text of `op` in a game with `counters` counters.
fn op_text(op: &Op, counters: usize) -> String {
    match op {
        Op::Inc(p, k) => format!(
            "(update property \"{0}\" to (+ (property \"{0}\") {k}))",
            p.name()
        ),
        Op::Send { to, label } => format!(
            "(update property \"y\" to (+ (property \"y\") (or (if (< (attribute \"d\") {MAX_DEPTH}) \
             (send new message \"m{label}\" to \"c{}\" with \"d\" (+ (attribute \"d\") 1))) 0)))",
            to % counters
        ),
        Op::Checkpoint => "(open checkpoint)".to_string(),
        Op::RollbackIf(p, t) => format!(
            "(if (> (property \"{}\") {t}) (rollback \"too big\"))",
            p.name()
        ),
        Op::FailIf(p, t) => format!(
            "(if (> (property \"{}\") {t}) (fail \"too big\"))",
            p.name()
        ),
        Op::Spawn => "(new entity (str (self) \"-\" (property \"n\")) of \"t2\")".to_string(),
    }
}

fn behaviour_text(label: usize, ops: &[Op], counters: usize) -> String {
    let mut s = format!(
        "    #onMessage m{label}\n      (update property \"n\" to (+ (property \"n\") 1))\n"
    );
    for op in ops {
        s.push_str(&format!("      {}\n", op_text(op, counters)));
    }
    s.push_str("      (property \"x\")\n");
    s
}

impl Spec {
    fn counter(&self, i: usize) -> usize {
        i % self.counters.len()
    }

    fn text(&self) -> String {
        let n = self.counters.len();
        let props = "  #property x 0\n  #property y 0\n  #property n 0\n";
        let mut s = format!("#entity t0\n{props}  #state default\n");
        for (l, ops) in self.t0.iter().enumerate() {
            s.push_str(&behaviour_text(l, ops, n));
        }
        s.push_str("#entity t1\n  #extends t0\n  #state default\n");
        for (l, ops) in self.t1.iter().enumerate() {
            if let Some(ops) = ops {
                s.push_str(&behaviour_text(l, ops, n));
            }
        }
        s.push_str(&format!("#entity t2\n{props}  #state default\n"));
        for (l, ops) in self.t2.iter().enumerate() {
            s.push_str(&behaviour_text(l, ops, n));
        }
        for (i, (ty, x, y)) in self.counters.iter().enumerate() {
            s.push_str(&format!("#instance c{i} of t{ty} with x {x} y {y}\n"));
        }
        if self.checkpoint_law {
            for ty in ["t0", "t2"] {
                s.push_str(&format!(
                    "#law \"checkpoint {ty}\" on * to {ty} in * is (if (= (sender) nil) (open checkpoint))\n"
                ));
            }
        }
        for (i, a) in self.advice.iter().enumerate() {
            let kind = match a.body {
                AdviceBody::Law { .. } => "#law",
                AdviceBody::SideEffect(_) => "#sideeffect",
            };
            let target = match a.target {
                Target::Type(t) => format!("t{t}"),
                Target::Instance(c) => format!("c{}", self.counter(c)),
            };
            let label = a.label.map_or("*".to_string(), |l| format!("m{l}"));
            let body = match &a.body {
                AdviceBody::Law { inc, veto_above } => {
                    let mut b = String::new();
                    if let Some((p, k)) = inc {
                        b.push_str(&op_text(&Op::Inc(*p, *k), n));
                        b.push(' ');
                    }
                    b.push_str(&format!("(if (> (property \"x\") {veto_above}) (return))"));
                    b
                }
                AdviceBody::SideEffect(ops) => ops
                    .iter()
                    .map(|op| op_text(op, n))
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            s.push_str(&format!(
                "{kind} \"a{i}\" on {label} to {target} in * is {body}\n"
            ));
        }
        s
    }
}

// ---------------------------------------------------------------------------------------
// The model.

#[derive(Clone, Debug)]
struct MEntity {
    name: String,
    ty: usize,
    x: i64,
    y: i64,
    n: i64,
}

impl MEntity {
    fn get(&self, p: Prop) -> i64 {
        match p {
            Prop::X => self.x,
            Prop::Y => self.y,
        }
    }
    fn set(&mut self, p: Prop, v: i64) {
        match p {
            Prop::X => self.x = v,
            Prop::Y => self.y = v,
        }
    }
}

/// Why a transaction stopped early.
enum Stop {
    /// Rolled back; the world is the checkpoint; `first` when it was the first opened.
    Rollback {
        first: bool,
    },
    Fail,
}

/// The outcome of a join point that did not stop the transaction.
enum Jp {
    Vetoed,
    Value(i64),
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Committed(i64),
    Vetoed,
    RolledBack { first: bool },
    Failed,
}

struct Model<'a> {
    spec: &'a Spec,
    world: Vec<MEntity>,
    checkpoints: Vec<Vec<MEntity>>,
}

fn is_a(ty: usize, ancestor: usize) -> bool {
    ty == ancestor || (ty == 1 && ancestor == 0)
}

impl Model<'_> {
    fn matches(&self, target: Target, label: Option<usize>, e: usize, l: usize) -> bool {
        let hit = match target {
            Target::Type(t) => is_a(self.world[e].ty, t),
            Target::Instance(c) => self.spec.counter(c) == e,
        };
        hit && label.is_none_or(|x| x == l)
    }

    fn transaction(&mut self, e: usize, l: usize) -> Outcome {
        let start = self.world.clone();
        self.checkpoints.clear();
        let outcome = match self.join_point(e, l, 0, true) {
            Ok(Jp::Value(v)) => Outcome::Committed(v),
            Ok(Jp::Vetoed) => Outcome::Vetoed,
            Err(Stop::Rollback { first }) => Outcome::RolledBack { first },
            Err(Stop::Fail) => Outcome::Failed,
        };
        if matches!(outcome, Outcome::Vetoed | Outcome::Failed) {
            self.world = start;
        }
        outcome
    }

    fn join_point(&mut self, e: usize, l: usize, d: i64, from_user: bool) -> Result<Jp, Stop> {
        // Laws, in definition order: the checkpoint laws come first.
        // A veto discards what this join point did: the world and checkpoints go back to
        // what they were when the message arrived.
        let arrived = (self.world.clone(), self.checkpoints.len());
        if self.spec.checkpoint_law && from_user {
            self.checkpoints.push(self.world.clone());
        }
        let spec = self.spec;
        for a in &spec.advice {
            if let AdviceBody::Law { inc, veto_above } = &a.body
                && self.matches(a.target, a.label, e, l)
            {
                if let Some((p, k)) = inc {
                    let v = self.world[e].get(*p) + k;
                    self.world[e].set(*p, v);
                }
                if self.world[e].x > *veto_above {
                    let (world, open) = arrived;
                    self.world = world;
                    self.checkpoints.truncate(open);
                    return Ok(Jp::Vetoed);
                }
            }
        }
        // The behaviour.
        let ops = match self.world[e].ty {
            0 => &spec.t0[l],
            1 => spec.t1[l].as_ref().unwrap_or(&spec.t0[l]),
            _ => &spec.t2[l],
        };
        self.world[e].n += 1;
        self.steps(e, ops, d)?;
        let value = self.world[e].x;
        // Side-effects, in definition order.
        for a in &spec.advice {
            if let AdviceBody::SideEffect(ops) = &a.body
                && self.matches(a.target, a.label, e, l)
            {
                self.steps(e, ops, d)?;
            }
        }
        Ok(Jp::Value(value))
    }

    fn steps(&mut self, e: usize, ops: &[Op], d: i64) -> Result<(), Stop> {
        for op in ops {
            match op {
                Op::Inc(p, k) => {
                    let v = self.world[e].get(*p) + k;
                    self.world[e].set(*p, v);
                }
                Op::Send { to, label } => {
                    let before = self.world[e].y;
                    let answer = if d < MAX_DEPTH {
                        match self.join_point(self.spec.counter(*to), *label, d + 1, false)? {
                            Jp::Vetoed => 0,
                            Jp::Value(v) => v,
                        }
                    } else {
                        0
                    };
                    self.world[e].y = before + answer;
                }
                Op::Checkpoint => self.checkpoints.push(self.world.clone()),
                Op::RollbackIf(p, t) => {
                    if self.world[e].get(*p) > *t {
                        return match self.checkpoints.pop() {
                            Some(w) => {
                                self.world = w;
                                Err(Stop::Rollback {
                                    first: self.checkpoints.is_empty(),
                                })
                            }
                            None => Err(Stop::Fail),
                        };
                    }
                }
                Op::FailIf(p, t) => {
                    if self.world[e].get(*p) > *t {
                        return Err(Stop::Fail);
                    }
                }
                Op::Spawn => {
                    let name = format!("{}-{}", self.world[e].name, self.world[e].n);
                    if self.world.iter().any(|x| x.name == name) {
                        return Err(Stop::Fail);
                    }
                    self.world.push(MEntity {
                        name,
                        ty: 2,
                        x: 0,
                        y: 0,
                        n: 0,
                    });
                }
            }
        }
        Ok(())
    }
}

/// `base` with every entity's properties set as the model says, and the entities the
/// model made since added.
fn expected_world(game: &Game, base: &World, model: &[MEntity]) -> World {
    let mut w = base.clone();
    let set = |e: &mut Entity, m: &MEntity| {
        for (name, v) in [("x", m.x), ("y", m.y), ("n", m.n)] {
            if let Some(slot) = e.property_mut(game, Symbol::intern(name)) {
                *slot = Value::Int(v);
            }
        }
    };
    for (i, m) in model.iter().enumerate() {
        let id = EntityId(i as u32);
        if let Some(e) = w.entity_mut(id) {
            set(e, m);
        } else {
            let ty = game.type_ids[&Symbol::intern(&format!("t{}", m.ty))];
            let mut e = Entity {
                name: Symbol::intern(&m.name),
                ty,
                state: Symbol::intern("default"),
                props: vec![Value::Int(0); game.ty(ty).properties.len()].into(),
                extra: Default::default(),
            };
            set(&mut e, m);
            w.add(e);
        }
    }
    w
}

/// A copy of `world` sharing none of its entities (or the nodes that hold them), so a
/// transaction on `world` finds them unshared.
fn separate_copy(world: &World) -> World {
    let mut copy = world.clone();
    let ids: Vec<EntityId> = world.iter().map(|(id, _)| id).collect();
    for id in ids {
        copy.entity_mut(id);
    }
    copy
}

fn describe(world: &World, game: &Game) -> String {
    world
        .iter()
        .map(|(_, e)| {
            let props: Vec<String> = e
                .properties(game)
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            format!("{} {}", e.name, props.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn check(spec: &Spec) -> Result<(), TestCaseError> {
    let text = spec.text();
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text.clone());
    let built = match build_game(&fs, std::path::Path::new("game.fr")) {
        Ok(b) => b,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "the generated game does not build:\n{}\n{text}",
                e.render_plain()
            )));
        }
    };
    let game: Arc<Game> = built.game.clone();
    let (mut session, _) = Session::start(game.clone(), &SessionOptions::default())
        .map_err(|e| TestCaseError::fail(format!("start failed: {e}\n{text}")))?;
    let mut model = Model {
        spec,
        world: spec
            .counters
            .iter()
            .enumerate()
            .map(|(i, (ty, x, y))| MEntity {
                name: format!("c{i}"),
                ty: *ty,
                x: *x,
                y: *y,
                n: 0,
            })
            .collect(),
        checkpoints: Vec::new(),
    };
    prop_assert!(
        session
            .world()
            .same_as(&expected_world(&game, session.world(), &model.world)),
        "initial world differs from the model\n{text}"
    );
    for (step, &(c, l)) in spec.transactions.iter().enumerate() {
        let e = spec.counter(c);
        let unshared = step % 2 == 0;
        let before = if unshared {
            separate_copy(session.world())
        } else {
            session.world().clone()
        };
        let mut attrs = Attrs::new();
        attrs.insert(Key::sym(Symbol::intern("d")), Value::Int(0));
        let msg = Message {
            label: Symbol::intern(&format!("m{l}")),
            attrs,
        };
        // The same transaction traced, on a copy: tracing records the steps and changes
        // nothing else (an untraced transaction skips the trace's work).
        let mut traced = session.fork().into_inner();
        traced.trace = true;
        if unshared {
            *traced.world_mut() = separate_copy(session.world());
        }
        let ttx = traced.deliver(Symbol::intern(&format!("c{e}")), msg.clone());
        // The same transaction as a trial in place, on another copy.
        let mut tried = session.fork().into_inner();
        if unshared {
            *tried.world_mut() = separate_copy(session.world());
        }
        let mut log = MoveLog::default();
        let candidate = Candidate {
            recipient: Symbol::intern(&format!("c{e}")),
            message: Rc::new(msg.clone()),
        };
        let trial = tried.make(&candidate, &mut log);
        let tx = session.deliver(Symbol::intern(&format!("c{e}")), msg);
        prop_assert!(
            tx.trace.is_empty()
                && (!ttx.trace.is_empty() || matches!(ttx.status, Status::Failed(_))),
            "only the traced run records steps\n{text}"
        );
        prop_assert_eq!(
            tx.status.summary(),
            ttx.status.summary(),
            "traced and untraced status differ\n{}",
            text
        );
        prop_assert_eq!(
            &tx.output,
            &ttx.output,
            "traced and untraced output differ\n{}",
            text
        );
        prop_assert!(
            traced.world().same_as(session.world()),
            "traced and untraced runs leave different worlds\n{text}"
        );
        prop_assert_eq!(
            trial.summary(),
            tx.status.summary(),
            "the trial and the transaction end differently\n{}",
            text
        );
        if trial.committed() {
            prop_assert!(
                log.len() == 1 && tried.world().same_as(session.world()),
                "a committed trial leaves another world than the transaction\n{text}"
            );
            prop_assert!(
                tried.unmake(&mut log) && log.is_empty(),
                "nothing to unmake\n{text}"
            );
        }
        prop_assert!(
            tried.world().same_as(&before) && log.is_empty(),
            "a trial undone or not played left changes\n{text}"
        );
        let expected = model.transaction(e, l);
        let context = || {
            format!(
                "transaction {step}: m{l} to c{e}: {} (model: {expected:?})\nworld: {}\n{text}",
                tx.status.summary(),
                describe(session.world(), &game)
            )
        };
        let status_ok = match (&tx.status, &expected) {
            (Status::Committed(Value::Int(v)), Outcome::Committed(m)) => v == m,
            (Status::Vetoed { .. }, Outcome::Vetoed) => true,
            (Status::RolledBack { .. }, Outcome::RolledBack { .. }) => true,
            (Status::Failed(_), Outcome::Failed) => true,
            _ => false,
        };
        prop_assert!(status_ok, "status differs from the model\n{}", context());
        match expected {
            Outcome::Failed | Outcome::Vetoed => prop_assert!(
                session.world().same_as(&before),
                "a failed or vetoed transaction changed the world\n{}",
                context()
            ),
            Outcome::RolledBack { first } => {
                if first && spec.checkpoint_law {
                    prop_assert!(
                        session.world().same_as(&before),
                        "a rollback to the checkpoint opened at the start did not restore the world before the transaction\n{}",
                        context()
                    );
                }
            }
            Outcome::Committed(_) => prop_assert!(
                !session.world().same_as(&before),
                "a committed transaction left the world unchanged\n{}",
                context()
            ),
        }
        // After a rollback the model's world is the checkpoint it restored.
        prop_assert!(
            session
                .world()
                .same_as(&expected_world(&game, &before, &model.world)),
            "the world differs from the model's\n{}",
            context()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        max_shrink_iters: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn transactions_match_the_model(spec in spec_strategy()) {
        check(&spec)?;
    }
}

/// The generator and the model agree on a hand-written case that exercises every kind
/// of ending (so a change to the generated text that the model misses is caught even if
/// the random cases happened not to).
#[test]
fn every_ending_is_reached() {
    let spec = Spec {
        checkpoint_law: true,
        t0: vec![
            vec![Op::Inc(Prop::X, 1), Op::Send { to: 1, label: 1 }],
            vec![Op::Inc(Prop::Y, 2), Op::Spawn],
            vec![
                Op::Checkpoint,
                Op::Inc(Prop::X, 3),
                Op::RollbackIf(Prop::X, 2),
            ],
        ],
        t1: vec![None, None, Some(vec![Op::FailIf(Prop::Y, 0)])],
        t2: vec![vec![], vec![], vec![]],
        counters: vec![(0, 0, 0), (1, 0, 1), (2, 0, 0)],
        advice: vec![Advice {
            target: Target::Instance(2),
            label: None,
            body: AdviceBody::Law {
                inc: None,
                veto_above: -1,
            },
        }],
        transactions: vec![(0, 0), (0, 1), (1, 2), (0, 2), (2, 0)],
    };
    let mut model = Model {
        spec: &spec,
        world: spec
            .counters
            .iter()
            .enumerate()
            .map(|(i, (ty, x, y))| MEntity {
                name: format!("c{i}"),
                ty: *ty,
                x: *x,
                y: *y,
                n: 0,
            })
            .collect(),
        checkpoints: Vec::new(),
    };
    let outcomes: Vec<Outcome> = spec
        .transactions
        .iter()
        .map(|&(c, l)| model.transaction(c, l))
        .collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Committed(1),
            Outcome::Committed(1),
            Outcome::Failed,
            Outcome::RolledBack { first: false },
            Outcome::Vetoed,
        ]
    );
    if let Err(e) = check(&spec) {
        panic!("{e}");
    }
}

/// A join point without laws starts at its behaviour at once, and one without
/// side-effects ends with its behaviour, when nothing traces or steps (shortcuts past
/// `advance`): it ends exactly as the traced run, which takes the long way, does, at the
/// outermost and inner depths, with and without side-effects, next to a join point whose
/// law vetoes and one that is not handled.
#[test]
fn join_points_without_laws_run_as_traced_ones_do() {
    let text = r#"
#entity t
  #property n 0
  #state default
    #onMessage go
      (update property "n" to (+ (property "n") (send new message "bump" to "b")))
      (update property "n" to (+ (property "n") (or (send new message "guarded" to "b") 0)))
      (update property "n" to (+ (property "n") (or (send new message "nobody" to "b") 0)))
      (update property "n" to (+ (property "n") (send new message "plain" to "b")))
      (property "n")
    #onMessage bump
      (update property "n" to (+ (property "n") 1))
      (property "n")
    #onMessage plain
      (update property "n" to (+ (property "n") 1000))
      (* (property "n") 2)
    #onMessage guarded
      (update property "n" to (+ (property "n") 100))
      7
#instance a of t
#instance b of t
#law "veto" on guarded to b in * is (if (> (property "n") 30) (return))
#sideeffect "count" on bump to b in * is (update property "n" to (+ (property "n") 10))
"#;
    let (mut quiet, mut traced) = quiet_and_traced(text);
    let go = || Message {
        label: Symbol::intern("go"),
        attrs: Attrs::new(),
    };
    for (to, round) in ["a", "b", "a", "a", "b", "a"].iter().zip(0..) {
        let q = quiet.deliver(Symbol::intern(to), go());
        let t = traced.deliver(Symbol::intern(to), go());
        assert_eq!(
            format!("{:?}", q.status),
            format!("{:?}", t.status),
            "round {round}"
        );
        assert!(
            matches!(q.status, Status::Committed(_)),
            "round {round}: {:?}",
            q.status
        );
        assert_eq!(q.steps, t.steps, "round {round}");
        assert!(q.trace.is_empty() && !t.trace.is_empty(), "round {round}");
        assert!(quiet.world().same_as(traced.world()), "round {round}");
    }
    // Both ways were taken: the veto fired and behaviours ran in inner join points.
    let events = format!("{:?}", traced.deliver(Symbol::intern("a"), go()).trace);
    assert!(events.contains("Vetoed"), "{events}");
    assert!(events.contains("NoBehaviour"), "{events}");
    assert!(events.contains("Behaviour { depth: 2"), "{events}");
}

/// The session reuses the last delivered message's allocation: a message without
/// attributes after one without replaces only the label, one with attributes after one
/// without (and the other way round) replaces them, and a message the game kept is left
/// alone. A wait nobody answers fails and leaves the world as it was; the next delivery
/// runs as usual.
#[test]
fn delivered_messages_do_not_mix_and_an_abandoned_wait_leaves_nothing() {
    let text = r#"
#entity t
  #property seen ""
  #property kept 0
  #property count 0
  #state default
    #onMessage tick
      (update property "count" to (+ (property "count") 1))
      (update property "seen" to (str message))
    #onMessage tock
      (update property "count" to (+ (property "count") 100))
      (update property "seen" to (str message))
    #onMessage keep
      (update property "kept" to message)
    #onMessage hang
      (update property "count" to 0)
      (wait signal "never")
#instance a of t
"#;
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, std::path::Path::new("game.fr"))
        .unwrap_or_else(|e| panic!("{}", e.render_plain()));
    let game = built.game.clone();
    let (mut session, _) = Session::start(built.game, &SessionOptions::default()).unwrap();
    let a = Symbol::intern("a");
    let message = |label: &str, k: Option<i64>| {
        let mut attrs = Attrs::new();
        if let Some(k) = k {
            attrs.insert(Key::sym(Symbol::intern("k")), Value::Int(k));
        }
        Message {
            label: Symbol::intern(label),
            attrs,
        }
    };
    let read = |session: &Session, name: &str| {
        let id = session.world().lookup(a).unwrap();
        let e = session.world().entity(id).unwrap();
        e.property(&game, Symbol::intern(name)).unwrap().clone()
    };
    let rounds = [
        ("tick", None),
        ("tock", None),
        ("tick", Some(5)),
        ("tick", Some(6)),
        ("tock", None),
        ("keep", Some(7)),
        ("tick", None),
        ("tick", Some(8)),
    ];
    let mut count = 0;
    for (round, (label, k)) in rounds.into_iter().enumerate() {
        let m = message(label, k);
        let shown = Value::Message(Rc::new(m.clone())).to_string();
        let tx = session.deliver(a, m);
        assert!(tx.status.committed(), "round {round}: {:?}", tx.status);
        count += match label {
            "tick" => 1,
            "tock" => 100,
            _ => 0,
        };
        assert_eq!(read(&session, "count"), Value::Int(count), "round {round}");
        if label != "keep" {
            assert_eq!(read(&session, "seen"), Value::str(&shown), "round {round}");
        }
    }
    // The kept message is the one delivered then, not the ones delivered after it.
    let kept = read(&session, "kept");
    assert_eq!(
        kept.to_string(),
        Value::Message(Rc::new(message("keep", Some(7)))).to_string()
    );

    let before = session.world().clone();
    let tx = session.deliver(a, message("hang", None));
    assert!(matches!(tx.status, Status::Failed(_)), "{:?}", tx.status);
    assert!(session.world().same_as(&before));
    let tx = session.deliver(a, message("tick", None));
    assert!(tx.status.committed(), "{:?}", tx.status);
    assert_eq!(read(&session, "count"), Value::Int(count + 1));
}

/// Property reads and writes take shortcuts when nothing traces, steps or watches: a read
/// of a layout property of an entity the game started with, named by a local or by a
/// name written in the game, answers in the instruction loop, and `update property` of a
/// layout property of the running entity writes in one pass. Each ends exactly as the
/// traced run, which takes the general way, does (status, error and span, steps, world),
/// next to the cases the shortcuts must hand on: a name made at run time, a property
/// added at run time, a missing property, an entity deleted and made again under the same
/// name (a new id), a failed transaction after a shortcut write. Writes copy what a
/// snapshot or a forked session shares, and leave those as they were.
#[test]
fn property_shortcuts_end_as_the_general_way_does() {
    let text = r#"
#entity cell
  #property v 1
  #property w 2
  #state default
    #onMessage grow
      (update property "v" to (+ (property "v") 1))
      (property "v")
    #onMessage extra
      (new property "added" as 5)
      (update property "added" to (+ (property "added") 1))
      (property "added")
#entity reader
  #property total 0
  #state default
    #onMessage look
      (var e "c1")
      (var sum (+ (property "v" of e) (property "v" of "c2")))
      (var sum (+ sum (property "w" of (if (> (property "total") -1) "c1" else "c2"))))
      (var sum (+ sum (property "v" of (str "c" 2))))
      (update property "total" to (+ (property "total") sum))
      (property "total")
    #onMessage added
      (var e "c1")
      (+ (property "added" of e) (property "added" of "c1"))
    #onMessage missing
      (var e "c1")
      (property (str "nope") of e)
    #onMessage missinglit
      (property (str "nope") of "c2")
    #onMessage renew
      (delete entity "c2")
      (new entity "c2" of "cell" with "v" 40)
      (property "v" of "c2")
    #onMessage fail
      (update property "total" to 1000)
      (property (str "nope"))
#instance c1 of cell
#instance c2 of cell
#instance r of reader
"#;
    let (mut quiet, mut traced) = quiet_and_traced(text);
    let start = quiet.world().clone();
    let forked = quiet.fork().into_inner();
    let rounds: [(&str, &str, Option<i64>); 11] = [
        ("c1", "grow", Some(2)),
        ("r", "look", Some(6)),
        ("c1", "extra", Some(6)),
        ("r", "added", Some(12)),
        ("r", "missing", None),
        ("r", "missinglit", None),
        ("r", "renew", Some(40)),
        ("r", "look", Some(90)),
        ("c2", "grow", Some(41)),
        ("r", "look", Some(176)),
        ("r", "fail", None),
    ];
    for (round, (to, label, expected)) in rounds.into_iter().enumerate() {
        let before = quiet.world().clone();
        let m = || Message {
            label: Symbol::intern(label),
            attrs: Attrs::new(),
        };
        let q = quiet.deliver(Symbol::intern(to), m());
        let t = traced.deliver(Symbol::intern(to), m());
        assert_eq!(
            format!("{:?}", q.status),
            format!("{:?}", t.status),
            "round {round}"
        );
        assert_eq!(q.steps, t.steps, "round {round}");
        assert!(q.trace.is_empty() && !t.trace.is_empty(), "round {round}");
        assert!(quiet.world().same_as(traced.world()), "round {round}");
        match expected {
            Some(n) => assert!(
                matches!(&q.status, Status::Committed(Value::Int(v)) if *v == n),
                "round {round}: {:?}",
                q.status
            ),
            None => {
                assert!(
                    matches!(q.status, Status::Failed(_)),
                    "round {round}: {:?}",
                    q.status
                );
                assert!(quiet.world().same_as(&before), "round {round}");
            }
        }
    }
    // The snapshot and the fork taken at the start saw none of it.
    assert!(forked.world().same_as(&start));
    let c1 = start.lookup(Symbol::intern("c1")).unwrap();
    let game = quiet.game.clone();
    let v = |w: &World| {
        w.entity(c1)
            .unwrap()
            .property(&game, Symbol::intern("v"))
            .cloned()
    };
    assert_eq!(v(&start), Some(Value::Int(1)));
    assert_eq!(v(quiet.world()), Some(Value::Int(2)));
}

/// Two sessions of the game `text` at its start: one untraced, one traced.
fn quiet_and_traced(text: &str) -> (Session, Session) {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, std::path::Path::new("game.fr"))
        .unwrap_or_else(|e| panic!("{}", e.render_plain()));
    let (quiet, _) = Session::start(built.game, &SessionOptions::default()).unwrap();
    let mut traced = quiet.fork().into_inner();
    traced.trace = true;
    (quiet, traced)
}

/// The keys and values the message test draws from: names of the game (a few whose
/// symbol numbers do not follow their text order), integers, and values of each kind.
const MESSAGE_KEYS: [&str; 11] = [
    "to", "name", "piece", "b", "a", "zz", "captured", "from", "x2", "3", "-1",
];

/// The value of kind `kind` made from `i`: its text in the game and the value itself.
fn message_value(kind: usize, i: i64) -> (String, Value) {
    match kind {
        0 => (i.to_string(), Value::Int(i)),
        1 => (
            format!("\"s{i}\""),
            Value::sym(Symbol::intern(&format!("s{i}"))),
        ),
        2 => ("nil".into(), Value::Nil),
        3 => (
            format!("(list {i})"),
            Value::list([Value::Int(i)].into_iter().collect()),
        ),
        4 => (
            format!("(dict \"k\" {i})"),
            Value::dict(
                [(Key::sym(Symbol::intern("k")), Value::Int(i))]
                    .into_iter()
                    .collect(),
            ),
        ),
        _ => (
            format!("(new message \"inner\" with \"v\" {i})"),
            Value::Message(Rc::new(Message {
                label: Symbol::intern("inner"),
                attrs: [(Key::sym(Symbol::intern("v")), Value::Int(i))]
                    .into_iter()
                    .collect(),
            })),
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `new message` and `send new message` make their attributes the short way (at most
    /// eight names of the game, none given twice, values whose nesting needs no walk:
    /// scalars and lists) or the general way (a name given twice, an integer key, a
    /// dictionary or a message as a value, more than eight pairs); either way the message
    /// is the one inserting the pairs one by one into a dictionary gives (keys in order,
    /// the last value of a key given twice winning), sent or not, and the steps taken do
    /// not depend on the way (the same pairs after a name given twice, which sends them
    /// the general way, count the steps of the two pairs more and no other).
    #[test]
    fn messages_are_made_as_dictionaries_are(
        pairs in proptest::collection::vec((0usize..11, 0usize..6, -3i64..4), 0..11),
    ) {
        let mut text = String::new();
        let mut attrs = Attrs::new();
        for &(k, kind, i) in &pairs {
            let key = MESSAGE_KEYS[k];
            let (code, value) = message_value(kind, i);
            match key.parse::<i64>() {
                Ok(n) => {
                    text.push_str(&format!(" {n} {code}"));
                    attrs.insert(Key::Int(n), value);
                }
                Err(_) => {
                    text.push_str(&format!(" \"{key}\" {code}"));
                    attrs.insert(Key::sym(Symbol::intern(key)), value);
                }
            }
        }
        let game = format!(
            r#"
#entity t
  #state default
    #onMessage make
      (new message "m" with{text})
    #onMessage twice
      (new message "m" with "zz" 0 "zz" 0{text})
    #onMessage sent
      (send new message "echo" to "b" with{text})
    #onMessage echo
      message
#instance a of t
#instance b of t
"#
        );
        let (mut session, _) = quiet_and_traced(&game);
        let a = Symbol::intern("a");
        let deliver = |session: &mut Session, label: &str| {
            session.deliver(a, Message { label: Symbol::intern(label), attrs: Attrs::new() })
        };
        let made = deliver(&mut session, "make");
        let expected = Value::Message(Rc::new(Message { label: Symbol::intern("m"), attrs: attrs.clone() }));
        prop_assert!(matches!(&made.status, Status::Committed(v) if *v == expected), "{:?}", made.status);
        let sent = deliver(&mut session, "sent");
        let echoed = Value::Message(Rc::new(Message { label: Symbol::intern("echo"), attrs: attrs.clone() }));
        prop_assert!(matches!(&sent.status, Status::Committed(v) if *v == echoed), "{:?}", sent.status);
        // A name given twice sends the same pairs the general way: two pairs more to
        // push, the same steps otherwise.
        let twice = deliver(&mut session, "twice");
        let mut with_zz = Attrs::new();
        with_zz.insert(Key::sym(Symbol::intern("zz")), Value::Int(0));
        for (k, v) in attrs.iter() {
            with_zz.insert(k.clone(), v.clone());
        }
        let expected = Value::Message(Rc::new(Message { label: Symbol::intern("m"), attrs: with_zz }));
        prop_assert!(matches!(&twice.status, Status::Committed(v) if *v == expected), "{:?}", twice.status);
        prop_assert_eq!(twice.steps, made.steps + 4);
    }
}

/// A message's allocation is kept for the next message when its join point ends holding
/// the only reference to it; a message the game still holds then (kept in a property,
/// given back as the value of the send, inside another message) is left alone, and the
/// messages made after it do not change it.
#[test]
fn messages_kept_by_the_game_are_not_reused() {
    let text = r#"
#entity t
  #property kept nil
  #state default
    #onMessage go
      (send new message "keep" to "b" with "v" 1 "w" (list 1))
      (var echoed (send new message "echo" to "b" with "v" 2))
      (var inner (new message "inner" with "v" 3))
      (var outer (send new message "echo" to "b" with "m" inner))
      (send new message "plain" to "b" with "v" 4 "w" 5)
      (send new message "plain" to "b" with "a" 6 "b" 7 "c" 8 "d" 9 "e" 10)
      (send new message "plain" to "b" with "v" 11)
      (str (property "kept" of "b") " " echoed " " outer " " inner)
    #onMessage keep
      (update property "kept" to message)
    #onMessage echo
      message
    #onMessage plain
      (attribute "v")
#instance a of t
#instance b of t
"#;
    let (mut quiet, _) = quiet_and_traced(text);
    let go = || Message {
        label: Symbol::intern("go"),
        attrs: Attrs::new(),
    };
    for round in 0..3 {
        let tx = quiet.deliver(Symbol::intern("a"), go());
        let expected =
            r#"<keep "v" 1, "w" (1)> <echo "v" 2> <echo "m" <inner "v" 3>> <inner "v" 3>"#;
        assert!(
            matches!(&tx.status, Status::Committed(v) if *v == Value::str(expected)),
            "round {round}: {:?}",
            tx.status
        );
    }
}
