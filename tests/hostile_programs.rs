//! Generated programs over the whole statement and expression grammar, with sends, laws
//! and side-effects, run under small limits. Properties checked on every program:
//!
//! - nothing panics, aborts or overflows the stack (a panic fails the property);
//! - a transaction ends within its step budget: one that ran past it failed;
//! - the output a transaction buffers stays within its memory budget;
//! - a failed or vetoed transaction leaves the world exactly as it was;
//! - the compiled code with its fused instructions does exactly what the plain code does:
//!   same results, output, trace, errors (with their spans) and step counts, down to the
//!   instruction where the step limit stops a program; and so does a run without a trace,
//!   where the machine takes shortcuts a traced run cannot and runs what it can on the
//!   fast tier (`docs/machine.md`), and a run under `--tier both`, which compares the
//!   fast tier with the interpreter on every transaction, the world and memory included.
//!
//! The limits are small (20,000 steps, 256 KB, 1,000 elements, nesting 12, depth 200) so
//! each case is quick and every limit is reached by some programs. Each property runs
//! 10,000 cases by default; set `PROPTEST_CASES` for a longer run.

use std::path::Path;
use std::sync::Arc;

use flexrules::compile::build_game;
use flexrules::compile::builtins::BUILTINS;
use flexrules::compile::bytecode::{IntOp, Op, builtin_of};
use flexrules::compile::program::Game;
use flexrules::runtime::budget::Meter;
use flexrules::runtime::builtins::call_pure;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::{Output, Status, Transaction};
use flexrules::runtime::value::{List, Value};
use flexrules::runtime::vm::{Limits, Tier};
use flexrules::symbol::Symbol;
use flexrules::syntax::load::MemoryFs;
use proptest::prelude::*;
use proptest::test_runner::Config;

const LIMITS: Limits = Limits {
    max_steps: 20_000,
    max_depth: 200,
    max_nesting: 12,
    max_length: 1_000,
    max_memory: 256 * 1024,
};

/// The options of a session with `seed`, `limits` and traces on or off, and no
/// parameters.
fn options(seed: u64, limits: Limits, trace: bool) -> SessionOptions {
    // Each body compiled to machine code when it first runs (these runs are short),
    // unless `FLEXRULES_JIT_AFTER` says otherwise (as `tools/jit-test` does).
    #[cfg(feature = "jit")]
    flexrules::runtime::vm::compile_after(0);
    SessionOptions {
        tier: Default::default(),
        seed,
        params: vec![],
        limits,
        trace,
    }
}

/// The messages every generated program is sent, in order.
const SENDS: [&str; 3] = [
    "go to e0 with n 2",
    "ping to e1 with n 1",
    "go to e1 with n 0",
];

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(10_000);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Builtins with the argument counts generated for them.
const CALLS: &[(&str, usize)] = &[
    ("+", 2),
    ("-", 2),
    ("*", 2),
    ("/", 2),
    ("%", 2),
    ("=", 2),
    ("!=", 2),
    ("<", 2),
    (">", 2),
    ("<=", 2),
    (">=", 2),
    ("not", 1),
    ("abs", 1),
    ("sum", 1),
    ("min", 1),
    ("max", 2),
    ("list", 0),
    ("list", 1),
    ("list", 3),
    ("first", 1),
    ("rest", 1),
    ("last", 1),
    ("nth", 2),
    ("length", 1),
    ("append", 2),
    ("prepend", 2),
    ("concat", 2),
    ("concat", 3),
    ("contains", 2),
    ("index-of", 2),
    ("remove", 2),
    ("reverse", 1),
    ("range", 1),
    ("range", 3),
    ("sort", 1),
    ("take", 2),
    ("drop", 2),
    ("dict", 0),
    ("dict", 2),
    ("get", 2),
    ("get", 3),
    ("put", 3),
    ("has", 2),
    ("keys", 1),
    ("values", 1),
    ("remove-key", 2),
    ("str", 2),
    ("random", 1),
    ("shuffle", 1),
    ("print", 2),
    ("notify", 1),
    ("self", 0),
    ("sender", 0),
    ("param", 1),
];

fn leaf() -> BoxedStrategy<String> {
    prop_oneof![
        (-3i64..40).prop_map(|n| n.to_string()),
        Just("9223372036854775807".to_string()),
        Just("2.5".to_string()),
        Just("nil".to_string()),
        Just("true".to_string()),
        Just("\"ab\"".to_string()),
        Just("\"e1\"".to_string()),
        Just("a".to_string()),
        Just("b".to_string()),
        Just("(property \"p\")".to_string()),
        Just("(property \"q\")".to_string()),
        Just("(property \"p\" of \"e1\")".to_string()),
        Just("(attribute \"n\")".to_string()),
        Just("message".to_string()),
        Just("(label of message)".to_string()),
        Just("(state)".to_string()),
        Just("(entities of \"node\")".to_string()),
    ]
    .boxed()
}

/// An expression or statement (the grammar does not tell them apart).
fn expr() -> BoxedStrategy<String> {
    leaf()
        .prop_recursive(5, 48, 4, |inner| {
            let each = inner.clone();
            let args = move |n: usize| prop::collection::vec(each.clone(), n);
            let call_args = args.clone();
            prop_oneof![
                // Builtin calls.
                (0..CALLS.len()).prop_flat_map(move |k| {
                    let (name, n) = CALLS[k];
                    call_args(n).prop_map(move |a| {
                        if a.is_empty() {
                            format!("({name})")
                        } else {
                            format!("({name} {})", a.join(" "))
                        }
                    })
                }),
                // Control flow.
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(c, t, e)| format!("(if {c} {t} else {e})")),
                (inner.clone(), inner.clone()).prop_map(|(c, t)| format!("(if {c} {t})")),
                (args(2), prop::bool::ANY).prop_map(|(a, and)| format!(
                    "({} {})",
                    if and { "and" } else { "or" },
                    a.join(" ")
                )),
                args(3).prop_map(|s| format!("(do {} end)", s.join(" "))),
                inner.clone().prop_map(|e| format!("(var a {e})")),
                inner.clone().prop_map(|e| format!("(var b (append b {e}))")),
                (inner.clone(), inner.clone())
                    .prop_map(|(c, s)| format!("(while {c} {s})")),
                inner
                    .clone()
                    .prop_map(|s| format!("(while true (do {s} (var b (concat b b)) end))")),
                (inner.clone(), inner.clone())
                    .prop_map(|(l, s)| format!("(foreach a in {l} {s})")),
                (inner.clone(), inner.clone()).prop_map(|(k, s)| format!(
                    "(switch {k} (case 1 {s}) (case \"ab\" (return {s})) (default nil))"
                )),
                inner.clone().prop_map(|e| format!("(return {e})")),
                Just("(return)".to_string()),
                // The game model.
                inner
                    .clone()
                    .prop_map(|e| format!("(update property \"p\" to {e})")),
                inner
                    .clone()
                    .prop_map(|e| format!("(update property \"q\" to (list (property \"q\") {e}))")),
                // Appended where the list lies when nobody else holds it (and undone by
                // taking the element off), else copied as `append` does.
                inner
                    .clone()
                    .prop_map(|e| format!("(update property \"q\" to (append (property \"q\") {e}))")),
                Just("(update property \"q\" to (append (property \"q\") (property \"q\")))".to_string()),
                inner.clone().prop_map(|e| format!(
                    "(send new message \"go\" to (if (= (self) \"e0\") \"e1\" else \"e0\") with \"n\" {e})"
                )),
                inner
                    .clone()
                    .prop_map(|e| format!("(send new message \"ping\" to \"e1\" with \"n\" {e} \"m\" message)")),
                inner
                    .clone()
                    .prop_map(|e| format!("(send (new message \"ping\" with \"n\" {e}) to {e})")),
                Just("(forward message to \"e1\")".to_string()),
                inner
                    .clone()
                    .prop_map(|e| format!("(update message attribute \"n\" to {e})")),
                inner
                    .clone()
                    .prop_map(|e| format!("(attribute \"n\" of (new message \"x\" with \"n\" {e}))")),
                inner
                    .clone()
                    .prop_map(|e| format!("(match \"k\" in (dict \"k\" {e}))")),
                Just("(open checkpoint)".to_string()),
                inner.clone().prop_map(|e| format!("(rollback {e})")),
                Just("(changeState \"other\")".to_string()),
                Just("(changeState \"default\")".to_string()),
                inner
                    .clone()
                    .prop_map(|e| format!("(new entity (str \"n\" {e}) of \"node\" with \"p\" {e})")),
                Just("(delete entity \"e1\")".to_string()),
                inner
                    .clone()
                    .prop_map(|e| format!("(finish with \"winner\" {e})")),
                Just("(type of \"e0\")".to_string()),
                Just("(state of \"e1\")".to_string()),
                // A state compared in an `if`, of an entity named by a local: a literal
                // name (read in line), a name made at run time (the form) or one deleted.
                inner.clone().prop_map(|e| format!(
                    "(do (var c (if {e} \"e1\" else (str \"e\" 0))) (if (!= (state of c) \"default\") c else {e}) end)"
                )),
                inner.clone().prop_map(|e| format!("(twice {e})")),
                // Small functions (run in the machine's small loop, which hands over to
                // the main loop at a value that is not an integer, an overflow, the depth
                // limit or a step check), against the plain code's general calls.
                inner.clone().prop_map(|e| format!("(tri {e})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(mix {a} {b})")),
                inner.clone().prop_map(|e| format!("(count-to {e})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(either {a} {b})")),
            ]
        })
        .boxed()
}

/// A game whose behaviours, law and side-effect are generated.
fn game(go: &str, ping: &str, law: &str, effect: &str) -> String {
    format!(
        r#"#param k 3
#define twice (x) (list x x)
#define tri (n) (if (<= n 0) 0 else (+ n (tri (- n 1))))
#define mix (x y) (if (and (> x y) (not (= y 0))) (- (* x 2) y) else (+ x (% y 7)))
#define count-to (n)
  (do (var i 0) (var s 0) (while (< i n) (do (var s (+ s i)) (var i (+ i 1)) end)) s end)
#define either (x y) (or (< x 0) (> y 3) (= x y) (mix y x))

#entity node
  #property p 0
  #property q (list)
  #property r (dict "ab" 1 0 (list 2) 1 "x")
  #state default
    #onMessage go
      (var a 0)
      (var b (list))
      {go}
    #onMessage ping
      (var a 1)
      (var b (list 1))
      {ping}
  #state other
    #onMessage go
      (changeState "default")

#instance e0 of node
#instance e1 of node

#law "First Law" on go to node in * is
  (if (and (attribute "n") (= (attribute "n") -1)) (return))
#law "Generated Law" on go to node in * is
  (do (var a 2) (var b (list)) {law} end)
#sideeffect "Generated Effect" on ping to node in * is
  (do (var a 3) (var b (list)) {effect} end)
#sideeffect "Second Effect" on * to node in * is
  (if (= (property "p") -1) (print "never"))
"#
    )
}

/// Run the generated game: every transaction within its limits, and a failed or vetoed
/// one leaves the world as it was.
fn run(text: &str, seed: u64) -> Result<(), TestCaseError> {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    // A program the checker refuses is a fine input too: the front end reported it.
    let Ok(built) = build_game(&fs, Path::new("game.fr")) else {
        return Ok(());
    };
    let options = options(seed, LIMITS, false);
    let Ok((mut session, _)) = Session::start(built.game, &options) else {
        return Ok(());
    };
    for send in SENDS {
        let (to, msg) = parse_send(send).map_err(TestCaseError::fail)?;
        let before = session.world().clone();
        let tx = session.deliver(to, msg);
        if tx.steps > LIMITS.max_steps {
            prop_assert!(
                matches!(tx.status, Status::Failed(_)),
                "ran {} steps and ended {:?}",
                tx.steps,
                tx.status.summary()
            );
        }
        let printed: usize = tx
            .output
            .iter()
            .map(|o| match o {
                Output::Notify(t) | Output::Print(t) => t.len(),
            })
            .sum();
        prop_assert!(
            printed as u64 <= LIMITS.max_memory,
            "{printed} bytes printed"
        );
        if matches!(tx.status, Status::Failed(_) | Status::Vetoed { .. }) {
            prop_assert!(
                session.world().same_as(&before),
                "{} changed the world",
                tx.status.summary()
            );
        }
    }
    Ok(())
}

/// Counting loops of the shapes the compiler fuses (a local against a constant or a local,
/// `(var a (op a k))`, a dictionary count), around a generated expression that may assign
/// the loop variable, starting near the integer limit or not; then counts and updates in
/// place (`(var d (put d j (+ (get d j 0) 1)))`, `(var d (put d j (get d 0)))`) of a
/// dictionary, a list or another value, by a key of any kind, with sums that overflow or
/// values that are not numbers.
fn loop_expr() -> BoxedStrategy<String> {
    let cmp = prop_oneof![Just("<"), Just("<="), Just("!="), Just(">"), Just("=")];
    let op = prop_oneof![Just("+"), Just("-"), Just("*"), Just("%")];
    let counted = prop_oneof![
        Just("(dict)"),
        Just("(dict)"),
        Just("(dict \"ab\" 9223372036854775800 0 nil 1 2.5 2 (list 1))"),
        Just("(list 0 1 2)"),
        Just("nil"),
    ];
    let key = prop_oneof![
        Just("(% a 3)"),
        Just("(% a 3)"),
        Just("a"),
        Just("\"ab\""),
        Just("2.0"),
        Just("(list 1)"),
        Just("nil"),
    ];
    let add = prop_oneof![Just("1"), Just("-2"), Just("7"), Just("2147483647")];
    let default = prop_oneof![Just("0"), Just("-1"), Just("nil"), Just("4294967296")];
    (
        (
            expr(),
            cmp,
            op,
            -3i64..5,
            0i64..30,
            any::<bool>(),
            any::<bool>(),
        ),
        (counted, key, add, default, 0u8..3),
    )
        .prop_map(
            |((e, cmp, op, k, n, big, locals), (counted, key, add, default, update))| {
                let start = if big { "9223372036854775800" } else { "1" };
                let bound = if locals {
                    "c".to_string()
                } else {
                    n.to_string()
                };
                let update = match update {
                    0 => format!("(var g (put g j (+ (get g j {default}) {add})))"),
                    1 => "(var g (put g j (get g 0)))".to_string(),
                    _ => "(var g (put g j (list (get g j))))".to_string(),
                };
                format!(
                    "(do (var a {start}) (var c {n}) (var d (dict)) (var g {counted}) \
                     (while ({cmp} a {bound}) (do (var a ({op} a {k})) {e} \
                     (var d (put d (% a 3) (+ (get d (% a 3) 0) 1))) \
                     (var j {key}) {update} end)) (print a d g) (list a d g) end)"
                )
            },
        )
        .boxed()
}

/// Collection reads of the shapes the compiler fuses (`get` and `nth` of a local by a
/// local or a constant, `get` with a constant default), and tests of their results against
/// a string and for truth, on a collection of any kind; property reads of an entity named
/// by a literal or by a local, which may name no entity.
fn read_expr() -> BoxedStrategy<String> {
    let coll = prop_oneof![
        Just("(list 1 \"ab\" nil (list 2))"),
        Just("(list)"),
        Just("(dict 0 \"ab\" 1 2 \"ab\" 3 -1 nil)"),
        Just("(dict)"),
        Just("\"ab\""),
        Just("nil"),
        Just("2.5"),
        Just("(range 5)"),
    ];
    let key = prop_oneof![
        Just("k"),
        Just("0"),
        Just("1"),
        Just("3"),
        Just("-1"),
        Just("\"ab\""),
        Just("1.0"),
        Just("nil"),
    ];
    let read = prop_oneof![Just("get"), Just("nth")];
    let cmp = prop_oneof![Just("="), Just("!=")];
    (coll, key.clone(), key, read, cmp, -2i64..3)
        .prop_map(|(coll, key, kv, read, cmp, default)| {
            format!(
                "(do (var l {coll}) (var k {kv}) (var r ({read} l {key})) \
                 (var s (get l k {default})) (var t ({read} l k)) \
                 (if ({cmp} r \"ab\") (var s 7)) (if t (var r 1)) \
                 (var u (list r s t ({cmp} s \"ab\") (property \"p\" of \"e1\"))) \
                 (var e (if (= (property \"p\" of (self)) 0) \"e0\" else k)) \
                 (var v (property \"p\" of e)) (if v (var s v)) \
                 (var w (property \"q\" of e)) (if w (var t w)) \
                 (var g (get (property \"q\" of e) k)) (var h (get (property \"q\" of \"e1\") k)) \
                 (list (property \"p\" of e) s t g h (get (property \"r\" of e) k) (get (property \"r\" of \"e0\") k)) \
                 (get (property \"p\" of e) k) u end)"
            )
        })
        .boxed()
}

/// `game` without its fused instructions: each one put back to the first plain
/// instruction of its sequence (the others were left in place).
fn unfused(game: &Game) -> Game {
    let mut plain = game.clone();
    for code in &mut plain.codes {
        code.rewrite_ops(|op| *op = op.plain(builtin_of))
            .expect("the plain sequences verify");
    }
    plain
}

/// Whether two worlds of two sessions of one game hold the same entities, in the same
/// states with the same properties, and the same random generator (`World::same_as`
/// compares the rules in force by identity, which differs between sessions).
fn same_entities(
    a: &flexrules::runtime::world::World,
    b: &flexrules::runtime::world::World,
) -> bool {
    a.rng == b.rng
        && a.iter().count() == b.iter().count()
        && a.iter().zip(b.iter()).all(|((i, x), (j, y))| {
            i == j
                && x.name == y.name
                && x.state == y.state
                && x.props == y.props
                && x.extra == y.extra
        })
}

/// Run the generated game as compiled and unfused: every transaction ends the same way.
fn run_fused_and_plain(text: &str, seed: u64) -> Result<(), TestCaseError> {
    run_fused_and_plain_within(text, seed, LIMITS, &SENDS)
}

/// [`run_fused_and_plain`] under `limits`, sending `sends`.
fn run_fused_and_plain_within(
    text: &str,
    seed: u64,
    limits: Limits,
    sends: &[&str],
) -> Result<(), TestCaseError> {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let Ok(built) = build_game(&fs, Path::new("game.fr")) else {
        return Ok(());
    };
    let plain = Arc::new(unfused(&built.game));
    let traced = options(seed, limits, true);
    // Untraced, the fast tier runs what it can; under `both`, every transaction it ran is
    // run again on the interpreter and compared (a difference panics).
    let both = SessionOptions {
        tier: Tier::Both,
        ..options(seed, limits, false)
    };
    let (Ok((mut fused, _)), Ok((mut plain, _)), Ok((mut quiet, _)), Ok((mut both, _))) = (
        Session::start(built.game.clone(), &traced),
        Session::start(plain, &traced),
        Session::start(built.game.clone(), &options(seed, limits, false)),
        Session::start(built.game, &both),
    ) else {
        return Ok(());
    };
    for send in sends {
        let (to, msg) = parse_send(send).map_err(TestCaseError::fail)?;
        let a = fused.deliver(to, msg.clone());
        let b = plain.deliver(to, msg.clone());
        prop_assert_eq!(&a.status, &b.status);
        prop_assert_eq!(a.steps, b.steps);
        prop_assert_eq!(&a.output, &b.output);
        prop_assert_eq!(&a.trace, &b.trace);
        // Untraced, the machine takes its shortcuts (a law or side-effect hands over to
        // the next in line without the general path): the same ending all the same.
        let c = quiet.deliver(to, msg.clone());
        prop_assert_eq!(&a.status, &both.deliver(to, msg).status);
        prop_assert_eq!(&a.status, &c.status);
        prop_assert_eq!(a.steps, c.steps);
        prop_assert_eq!(&a.output, &c.output);
        // And the world it leaves (its own undo log undoes what it did in place).
        prop_assert!(
            same_entities(quiet.world(), fused.world()),
            "the world left differs untraced"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_programs_stay_within_their_limits(
        go in expr(),
        ping in expr(),
        law in expr(),
        effect in expr(),
        seed in 0u64..4,
    ) {
        run(&game(&go, &ping, &law, &effect), seed)?;
    }

    #[test]
    fn fused_instructions_do_what_the_plain_ones_do(
        go in loop_expr(),
        ping in expr(),
        law in expr(),
        effect in loop_expr(),
        seed in 0u64..4,
    ) {
        run_fused_and_plain(&game(&go, &ping, &law, &effect), seed)?;
    }

    #[test]
    fn fused_reads_do_what_the_plain_ones_do(
        go in read_expr(),
        ping in read_expr(),
        law in expr(),
        effect in loop_expr(),
        seed in 0u64..4,
    ) {
        run_fused_and_plain(&game(&go, &ping, &law, &effect), seed)?;
    }
}

/// `=` and `!=` tested by `if` and `while` (a fused comparison and jump) on values of
/// every kind, names first (the fused instruction answers those itself), run under every
/// step budget up to the end of the transaction: the fused code ends each run as the
/// plain code does, down to the instruction where the budget stops it.
#[test]
fn equality_tests_jump_as_the_plain_code_does() {
    let text = r#"
#entity node
  #property p 0
  #state default
    #onMessage go
      (var n 0)
      (var k 0)
      (foreach x in (list "a" "b" 1 1.0 2.5 nil true (list 1) (dict "k" 1) message "e1" (str "a"))
        (do
          (if (= x "a") (var n (+ n 1)) else (var n (+ n 10)))
          (if (!= x 1) (var n (+ n 100)) else nil)
          (if (= x 1.0) (print x) else nil)
          (if (= (list 1) x) (print "list") else nil)
          (if (= x nil) (var n (+ n 1000)))
          (if (!= x nil) (var n (+ n 10000)) else (print "nil"))
          (if (!= "e1" x) nil else (print "e1"))
          (while (!= k 3) (var k (+ k 1)))
          (var k 0)
        end))
      (print n)
#instance e0 of node
"#;
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
    for op in [IntOp::Eq, IntOp::Ne] {
        assert!(
            has_op(
                &built.game,
                |o| matches!(o, Op::OpJump { op: f, .. } if *f == op)
            ),
            "no fused test of {op:?}"
        );
    }
    assert!(
        has_op(&built.game, |o| matches!(o, Op::LocalNilJump { .. })),
        "no fused test of nil"
    );
    fused_and_plain_under_every_budget(text, built.game, |s| matches!(s, Status::Committed(_)));
}

/// Send `go` to `e0` once to learn how many steps the transaction takes (its status must
/// pass `expected`), then run `text` fused and plain under every step budget up to one
/// past that: both must end each run alike.
fn fused_and_plain_under_every_budget(
    text: &str,
    game: Arc<Game>,
    expected: impl Fn(&Status) -> bool,
) {
    let steps = {
        let (mut s, _) = Session::start(game, &SessionOptions::default()).expect("starts");
        let (to, msg) = parse_send("go to e0").expect("a send");
        let tx = s.deliver(to, msg);
        assert!(expected(&tx.status), "{:?}", tx.status);
        tx.steps
    };
    for max_steps in 1..=steps + 1 {
        let limits = Limits {
            max_steps,
            ..LIMITS
        };
        if let Err(e) = run_fused_and_plain_within(text, 0, limits, &["go to e0"]) {
            panic!("with {max_steps} steps: {e}");
        }
    }
}

/// Counts kept in a dictionary and updates of a collection in its local (fused into one
/// instruction each), on dictionaries held once and shared, lists, integer and string keys,
/// values that are not integers and a sum that overflows, run under every step budget up to
/// the end of the transaction: the fused code ends each run as the plain code does.
#[test]
fn dictionary_counts_update_as_the_plain_code_does() {
    let text = r#"
#entity node
  #property p 0
  #state default
    #onMessage go
      (var d (dict))
      (var l (list 0 0 0))
      (var s (dict "x" 9223372036854775806 "y" nil))
      (var h nil)
      (var m (dict 0 (list 1) 1 (list 2 (str "z")) 2 "a" 3 (dict 1 2)))
      (var q (list (list 1) "x" (dict)))
      (var i 0)
      (while (< i 12)
        (do
          (var k (% i 4))
          (var d (put d k (+ (get d k 0) 1)))
          (var d (put d k (+ 1 (get d k 0))))
          (var m (put m k (str "v" i)))
          (var w (str "w" (% i 3)))
          (var d (put d w (+ (get d w 5) -2)))
          (var j (% i 3))
          (var l (put l j (+ (get l j 0) i)))
          (var q (put q j (str "q" i)))
          (if (= k 2) (var h d))
          (var d (put d k (+ (get d k 0) 1)))
          (var d (put d j (get d k)))
          (var i (+ i 1))
        end))
      (print d l h m q)
      (var x "y")
      (foreach x in (list "x" "x" "x")
        (do (var s (put s x (+ (get s x 0) 1))) (print s) end))
#instance e0 of node
"#;
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
    let ops = || built.game.codes.iter().flat_map(|c| c.ops().iter());
    assert!(
        ops().any(|o| matches!(o, Op::PutAdd { .. })),
        "no fused count"
    );
    assert!(
        ops().any(|o| matches!(o, Op::PutLocal { .. })),
        "no fused put"
    );
    fused_and_plain_under_every_budget(text, built.game.clone(), |s| {
        matches!(s, Status::Failed(_))
    });
}

/// `(update property "h" to (append (property "h") x))` pushes onto the list where it lies
/// when nobody else holds it (the list keeps its allocation from move to move), and every
/// way a transaction ends puts it back as the plain `append` and write would leave it: under
/// every step budget, a rollback to a checkpoint, a veto of an inner join point whose law replaced and
/// pushed, a failure, the length limit, a copy held in a local, the list appended to itself.
#[test]
fn a_list_property_is_appended_to_where_it_lies() {
    let text = r#"
#entity node
  #property h (list)
  #property n 0
  #state default
    #onMessage go
      (update property "h" to (append (property "h") (property "n")))
      (update property "n" to (+ (property "n") 1))
      (var kept (property "h"))
      (update property "h" to (append (property "h") (list "x" kept)))
      (send new message "try" to "e1")
      (var i 0)
      (while (< i 3)
        (do (update property "h" to (append (property "h") i)) (var i (+ i 1)) end))
      (if (= (length (property "h")) 10) (update property "h" to (append (property "h") (property "h"))))
      (if (> (property "n") 2) (+ 1 "fails"))
      (print (length (property "h")) (last (property "h")))
    #onMessage try
      nil
    #onMessage grow
      (update property "h" to (append (property "h") 1))
    #onMessage grow-and-fail
      (update property "h" to (append (property "h") 2))
      (+ 1 "fails")
    #onMessage grow-and-roll-back
      (open checkpoint)
      (update property "h" to (append (property "h") 3))
      (rollback "undone")
    #onMessage grow-make-and-fail
      ; Making an entity stops the undo log: the start is rebuilt from it (the push
      ; taken off a copy), and the pushes after it copy the list.
      (update property "h" to (append (property "h") 4))
      (new entity "made" of "node")
      (update property "h" to (append (property "h") 5))
      (+ 1 "fails")
    #onMessage try-then-fail
      ; The veto put back the copy taken before the law's writes; the failure then undoes
      ; the law's pushes on what the copy holds, then the writes before them.
      (update property "h" to (append (property "h") 8))
      (send new message "try" to "e0")
      (+ 1 "fails")
    #onMessage grow-and-make
      (update property "h" to (append (property "h") 6))
      (new entity (str "made" (length (property "h"))) of "node")
      (update property "h" to (append (property "h") 7))
#instance e0 of node
#instance e1 of node
#law "Replace, Push, Veto" on try to node in default is
  (do
    (update property "h" to (list "new"))
    (update property "h" to (append (property "h") "pushed"))
    ; A number made a list and pushed onto: put back as the number.
    (update property "n" to (list "was" (property "n")))
    (update property "n" to (append (property "n") "pushed"))
    (return)
  end)
"#;
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
    fused_and_plain_under_every_budget(text, built.game.clone(), |s| {
        matches!(s, Status::Committed(_))
    });
    let limits = Limits {
        max_length: 60,
        ..LIMITS
    };
    run_fused_and_plain_within(text, 0, limits, &["go to e0"; 5]).expect("alike");
    // The list keeps its allocation: pushed where it lies, and on a failure taken off
    // where it lies.
    let (mut s, _) =
        Session::start(built.game.clone(), &options(0, LIMITS, false)).expect("starts");
    let h = |s: &Session| {
        let e = s.world().lookup(Symbol::intern("e0")).expect("e0");
        let name = Symbol::intern("h");
        match s
            .world()
            .entity(e)
            .and_then(|e| e.property(&built.game, name))
        {
            Some(Value::List(l)) => (std::rc::Rc::as_ptr(l) as usize, l.len()),
            other => panic!("h is {other:?}"),
        }
    };
    // Deliver `send` and check how it ended.
    let ends = |s: &mut Session, send: &str, how: fn(&Status) -> bool| {
        let (to, msg) = parse_send(send).expect("a send");
        let status = s.deliver(to, msg).status;
        assert!(how(&status), "{send}: {status:?}");
    };
    let committed: fn(&Status) -> bool = |s| matches!(s, Status::Committed(_));
    let failed: fn(&Status) -> bool = |s| matches!(s, Status::Failed(_));
    // The first push copies the list the layout's default shares.
    ends(&mut s, "grow to e0", committed);
    let (first, len) = h(&s);
    assert_eq!(len, 1);
    ends(&mut s, "grow to e0", committed);
    assert_eq!(h(&s), (first, 2));
    ends(&mut s, "grow-and-fail to e0", failed);
    assert_eq!(h(&s), (first, 2));
    ends(&mut s, "grow-and-roll-back to e0", |s| {
        matches!(s, Status::RolledBack { .. })
    });
    assert_eq!(h(&s), (first, 2));
    let before = s.world().clone();
    ends(&mut s, "grow-make-and-fail to e0", failed);
    assert!(
        s.world().same_as(&before),
        "a failure after a push and a new entity"
    );
    // (A copy held elsewhere is copied on write: let it go.)
    drop(before);
    // (The start was rebuilt from a copy: the list is another allocation now.)
    let (rebuilt, len) = h(&s);
    assert_eq!(len, 2);
    ends(&mut s, "grow to e0", committed);
    assert_eq!(h(&s), (rebuilt, 3));
    ends(&mut s, "grow-and-make to e0", committed);
    assert_eq!(h(&s).1, 5);
    let before = s.world().clone();
    ends(&mut s, "try-then-fail to e0", failed);
    assert!(s.world().same_as(&before), "a failure after a veto");
    drop(before);
    let sends = [
        "try-then-fail to e0",
        "grow-make-and-fail to e0",
        "grow-and-make to e0",
        "go to e0",
        "grow-and-make to e0",
    ];
    run_fused_and_plain_within(text, 0, limits, &sends).expect("alike");
}

/// The text of the game whose entity `e0` runs `lines` (each indented as a behaviour's
/// statement) on `go`.
fn go_text(lines: &str) -> String {
    format!("#entity node\n  #state default\n    #onMessage go\n{lines}\n#instance e0 of node\n")
}

/// The game of [`go_text`], built.
fn go_game(lines: &str) -> flexrules::compile::Built {
    let text = go_text(lines);
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", &text);
    build_game(&fs, Path::new("game.fr")).expect("the game builds")
}

/// The game `text`, built.
fn built(text: &str) -> flexrules::compile::Built {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    build_game(&fs, Path::new("game.fr")).expect("the game builds")
}

/// Whether some body of `game` has an instruction `pred` picks.
fn has_op(game: &Game, pred: impl Fn(&Op) -> bool) -> bool {
    game.codes.iter().any(|c| c.ops().iter().any(&pred))
}

/// What `go` sent to `e0` of `built` does.
fn run_go(built: flexrules::compile::Built) -> Transaction {
    let (mut s, _) = Session::start(built.game, &SessionOptions::default()).expect("starts");
    let (to, msg) = parse_send("go to e0").expect("a send");
    s.deliver(to, msg)
}

/// The index of the builtin `name`.
fn builtin_index(name: &str) -> usize {
    BUILTINS.iter().position(|b| b.name == name).expect(name)
}

/// A game that prints `(list (<name> <args>))` for each case (its arguments as source
/// text, and as values) prints what the builtin function gives on the values: what the
/// instruction loop answers itself is what the builtin answers.
fn each_prints_what_the_builtin_gives(name: &str, cases: Vec<(String, Vec<Value>)>) {
    let lines: Vec<String> = cases
        .iter()
        .map(|(args, _)| format!("      (print (list ({name} {args})))"))
        .collect();
    let tx = run_go(go_game(&lines.join("\n")));
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    let f = builtin_index(name);
    let mut meter = Meter::new(Limits::default());
    assert_eq!(tx.output.len(), cases.len());
    for (line, (args, mut values)) in tx.output.iter().zip(cases) {
        let builtin = call_pure(f, &mut values, &mut meter)
            .expect("pure")
            .expect("no error");
        let shown = Value::list([builtin].into_iter().collect()).to_string();
        assert_eq!(line, &Output::Print(shown), "({name} {args})");
    }
}

/// `not`, which the instruction loop answers itself, gives what the builtin function
/// gives, on values of every kind.
#[test]
fn the_loops_not_is_the_builtins() {
    let values: Vec<(&str, Value)> = vec![
        ("nil", Value::Nil),
        ("false", Value::bool(false)),
        ("true", Value::bool(true)),
        ("0", Value::Int(0)),
        ("3", Value::Int(3)),
        ("0.0", Value::float(0.0)),
        ("2.5", Value::float(2.5)),
        ("\"\"", Value::sym(Symbol::intern(""))),
        ("\"a\"", Value::sym(Symbol::intern("a"))),
        ("(list)", Value::list(List::new())),
        (
            "(list nil)",
            Value::list([Value::Nil].into_iter().collect()),
        ),
    ];
    each_prints_what_the_builtin_gives(
        "not",
        values
            .into_iter()
            .map(|(text, value)| (text.to_string(), vec![value]))
            .collect(),
    );
}

/// `lower` of a one-character name, which the instruction loop answers itself, gives what
/// the builtin function gives, on every printable ASCII character and on other strings.
#[test]
fn the_loops_lower_is_the_builtins() {
    let mut texts: Vec<String> = (32u8..127)
        .filter(|b| *b != b'"' && *b != b'\\')
        .map(|b| char::from(b).to_string())
        .collect();
    texts.extend(["", "Ab", "\u{c9}", "\u{e9}"].map(String::from));
    let built = go_game("      (print (lower \"A\"))");
    assert!(
        built
            .game
            .codes
            .iter()
            .any(|c| c.ops().iter().any(
                |op| matches!(op, Op::Builtin(i, 1) if BUILTINS[*i as usize].name == "lower")
            )),
        "the game calls lower"
    );
    each_prints_what_the_builtin_gives(
        "lower",
        texts
            .into_iter()
            .map(|t| (format!("\"{t}\""), vec![Value::str(&t)]))
            .collect(),
    );
}

/// `lower` of one-character names (answered in the loop) counts its steps and memory as
/// `upper` (the builtin function, called) counts them on the mirrored letters: under every
/// step budget and every memory budget, the two transactions end alike.
#[test]
fn the_loops_lower_counts_as_the_builtin_does() {
    let body = |f: &str, letters: [&str; 4]| {
        format!(
            "#entity node\n  #state default\n    #onMessage go\n      (var a ({f} \"{}\"))\n      \
             (var b ({f} \"{}\"))\n      (var c ({f} \"{}\"))\n      (var d ({f} \"{}\"))\n      \
             (if (= (length (list a b c d)) 4) nil else 0)\n#instance e0 of node\n",
            letters[0], letters[1], letters[2], letters[3]
        )
    };
    let lower = body("lower", ["A", "b", "C", "7"]);
    let upper = body("upper", ["a", "B", "c", "7"]);
    // Budgets from none to more than the transaction needs: some fail, on a letter's byte.
    let committed = end_alike_under_every_budget(&lower, &upper, 256);
    assert!(
        committed > 0 && committed < 257,
        "some memory budgets fail, some do not ({committed} of 257 commit)"
    );
}

/// `contains` of a one-character name in a string, which the instruction loop answers
/// itself, gives what the builtin function gives.
#[test]
fn the_loops_contains_is_the_builtins() {
    let hays = ["", "KQRBNP", "kqrbnp", "a", "\u{e9}t\u{e9}", "x y", "QQ"];
    let needles = ["K", "k", "P", "Q", "a", " ", "t", "y", "\u{e9}", "QQ", ""];
    let mut cases = Vec::new();
    for h in hays {
        for n in needles {
            let args = format!("\"{h}\" \"{n}\"");
            cases.push((args, vec![Value::str(h), Value::str(n)]));
        }
    }
    each_prints_what_the_builtin_gives("contains", cases);
}

/// Whether two games, each sending `go` to `e0`, end alike (status, steps, trace; an
/// error's place aside, as their texts may differ in length) under every step budget up
/// to one past what the first takes, and every memory budget up to `memory`; how many of
/// those memory budgets let them commit.
fn end_alike_under_every_budget(a: &str, b: &str, memory: u64) -> usize {
    let run = |text: &str, limits: Limits| {
        let mut fs = MemoryFs::new();
        fs.insert("game.fr", text);
        let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
        let options = options(0, limits, true);
        let (mut s, _) = Session::start(built.game, &options).expect("starts");
        let (to, msg) = parse_send("go to e0").expect("a send");
        let mut tx = s.deliver(to, msg);
        if let Status::Failed(e) = &mut tx.status {
            e.span = None;
        }
        (tx.status, tx.steps, tx.trace)
    };
    let (status, steps, _) = run(a, LIMITS);
    assert!(
        matches!(status, Status::Committed(Value::Nil)),
        "{status:?}"
    );
    for max_steps in 1..=steps + 1 {
        let limits = Limits {
            max_steps,
            ..LIMITS
        };
        assert_eq!(run(a, limits), run(b, limits), "{max_steps} steps");
    }
    let mut committed = 0;
    for max_memory in 0..=memory {
        let limits = Limits {
            max_memory,
            ..LIMITS
        };
        let ends = run(a, limits);
        committed += usize::from(matches!(ends.0, Status::Committed(_)));
        assert_eq!(ends, run(b, limits), "{max_memory} bytes");
    }
    committed
}

/// `contains` of one-character names (answered in the loop) counts its work as the
/// builtin function (called for two characters) counts it on the same strings, with the
/// same answers: under every step budget, the two transactions end alike.
#[test]
fn the_loops_contains_counts_as_the_builtin_does() {
    let body = |needles: [&str; 3]| {
        format!(
            "#entity node\n  #state default\n    #onMessage go\n      \
             (var a (contains \"KRBNPKRBNPKRBNP\" \"{}\"))\n      \
             (var b (contains \"KQQRB\" \"{}\"))\n      \
             (var c (contains \"\" \"{}\"))\n      \
             (if (= (list a b c) (list false true false)) nil else 0)\n#instance e0 of node\n",
            needles[0], needles[1], needles[2]
        )
    };
    end_alike_under_every_budget(&body(["Q", "Q", "Q"]), &body(["QQ", "QQ", "QQ"]), 0);
}

/// `first` and `last` of a list, which the instruction loop answers itself, give what the
/// builtin functions give; on anything else the builtin reports its error.
#[test]
fn the_loops_first_and_last_are_the_builtins() {
    let values: Vec<(&str, Value)> = vec![
        ("(list)", Value::list(List::new())),
        (
            "(list 1)",
            Value::list([Value::Int(1)].into_iter().collect()),
        ),
        (
            "(list \"a\" nil (list 2) 3.5)",
            Value::list(
                [
                    Value::sym(Symbol::intern("a")),
                    Value::Nil,
                    Value::list([Value::Int(2)].into_iter().collect()),
                    Value::float(3.5),
                ]
                .into_iter()
                .collect(),
            ),
        ),
        (
            "(range 0 40)",
            Value::list((0..40).map(Value::Int).collect()),
        ),
    ];
    let lines: Vec<String> = values
        .iter()
        .map(|(v, _)| format!("      (print (list (first {v}) (last {v})))"))
        .collect();
    let run = |body: &str| run_go(go_game(body));
    let tx = run(&lines.join("\n"));
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    let mut meter = Meter::new(Limits::default());
    assert_eq!(tx.output.len(), values.len());
    for (line, (text, value)) in tx.output.iter().zip(values) {
        let ends: Vec<Value> = ["first", "last"]
            .map(|f| {
                call_pure(builtin_index(f), &mut [value.clone()], &mut meter)
                    .expect("pure")
                    .expect("no error")
            })
            .into_iter()
            .collect();
        let shown = Value::list(ends.into_iter().collect()).to_string();
        assert_eq!(line, &Output::Print(shown), "{text}");
    }
    for f in ["first", "last"] {
        for (text, value) in [
            ("3", Value::Int(3)),
            ("nil", Value::Nil),
            ("\"ab\"", Value::str("ab")),
        ] {
            let tx = run(&format!("      ({f} {text})"));
            let expected = call_pure(builtin_index(f), &mut [value], &mut meter)
                .expect("pure")
                .expect_err("an error");
            let Status::Failed(e) = &tx.status else {
                panic!("({f} {text}): {:?}", tx.status);
            };
            assert_eq!(e.message, expected.message, "({f} {text})");
        }
    }
}

/// `self`, which `call_builtin` answers before any other builtin, names the entity whose
/// code runs: in a behaviour, a law, a side-effect and a function called from them.
#[test]
fn self_names_the_running_entity() {
    let text = r#"#define who () (self)
#entity node
  #state default
    #onMessage go
      (print "behaviour" (self) (who))
      (send new message "ping" to "e1")
    #onMessage ping
      (print "ping" (self))
#instance e0 of node
#instance e1 of node
#law "L" on ping to node in * is
  (do (print "law" (self) (who)) true end)
#sideeffect "S" on go to node in * is
  (print "effect" (self) (who))
"#;
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, Path::new("game.fr")).expect("the game builds");
    let (mut s, _) = Session::start(built.game, &SessionOptions::default()).expect("starts");
    let (to, msg) = parse_send("go to e0").expect("a send");
    let tx = s.deliver(to, msg);
    assert!(matches!(tx.status, Status::Committed(_)), "{:?}", tx.status);
    let printed: Vec<String> = tx
        .output
        .iter()
        .map(|o| match o {
            Output::Print(t) | Output::Notify(t) => t.clone(),
        })
        .collect();
    assert_eq!(
        printed,
        ["behaviour e0 e0", "law e1 e1", "ping e1", "effect e0 e0"]
    );
}

/// The generator mostly makes programs the checker accepts, so the properties are about
/// running code, not about the front end refusing it.
#[test]
fn most_generated_programs_build() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let programs = (expr(), expr(), expr(), expr());
    let total = 400;
    let mut built = 0;
    for _ in 0..total {
        let (go, ping, law, effect) = programs.new_tree(&mut runner).expect("a program").current();
        let mut fs = MemoryFs::new();
        fs.insert("game.fr", game(&go, &ping, &law, &effect));
        if build_game(&fs, Path::new("game.fr")).is_ok() {
            built += 1;
        }
    }
    eprintln!("{built} of {total} generated programs build");
    assert!(
        built * 2 >= total,
        "only {built} of {total} generated programs build"
    );
}

/// The doubling programs of the issue that found these limits, once each.
#[test]
fn known_blowups_stay_within_their_limits() {
    for body in [
        "(var l (list)) (foreach i in (range 100000) (var l (list l)))",
        "(var l (list 1 2 3 4)) (foreach i in (range 64) (var l (concat l l)))",
        "(var s \"ab\") (foreach i in (range 60) (var s (str s s)))",
        "(while true (print \"x\"))",
        "(var d (dict)) (var i 0) (while true (do (var d (put d i i)) (var i (+ i 1)) end))",
    ] {
        let text = game(body, "nil", "nil", "nil");
        assert!(run(&text, 0).is_ok(), "{body}");
    }
}

/// A transaction long enough to pass several of the machine's interrupt checks (one
/// every 65,536 steps), with builtins that count hundreds of steps at once and so pass
/// a check in the middle of an instruction: it commits with exactly the steps it reports
/// and fails one short of them, the fused code as the plain code, also with budgets just
/// around the checks.
#[test]
fn step_counts_stay_exact_across_the_interrupt_checks() {
    let lines = "      (var l (range 900))
      (var t 0)
      (var i 0)
      (while (< i 300)
        (do (var t (+ t (sum l))) (var i (+ i 1)) end))
      t";
    let built = go_game(lines);
    let limits = |max_steps| Limits {
        max_steps,
        ..LIMITS
    };
    let run = |max_steps| {
        let options = options(0, limits(max_steps), false);
        let (mut s, _) = Session::start(built.game.clone(), &options).expect("starts");
        let (to, msg) = parse_send("go to e0").expect("a send");
        s.deliver(to, msg)
    };
    let steps = run(10_000_000).steps;
    assert!(steps > 4 * 65_536, "{steps} steps");
    let full = run(steps);
    assert_eq!(
        (&full.status, full.steps),
        (&Status::Committed(Value::Int(300 * 899 * 900 / 2)), steps)
    );
    let short = run(steps - 1);
    assert!(
        matches!(&short.status, Status::Failed(e) if e.message.contains("step limit")),
        "{:?}",
        short.status
    );
    let text = go_text(lines);
    for budget in [
        65_535,
        65_536,
        65_537,
        131_072,
        131_073,
        steps - 1,
        steps,
        steps + 1,
    ] {
        if let Err(e) = run_fused_and_plain_within(&text, 0, limits(budget), &["go to e0"]) {
            panic!("with {budget} steps: {e}");
        }
    }
}

/// Ctrl-C in the REPL sets the session's interrupt flag: an endless loop stops with
/// "interrupted" at the machine's first check (step 65,536), the flag is cleared, and the
/// next transaction runs on to its step budget.
#[test]
fn an_interrupt_stops_an_endless_loop_at_the_first_check() {
    let built = go_game("      (var i 0)\n      (while true (var i (+ i 1)))");
    let options = options(
        0,
        Limits {
            max_steps: 200_000,
            ..LIMITS
        },
        false,
    );
    let (mut s, _) = Session::start(built.game, &options).expect("starts");
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(true));
    s.interrupt = Some(flag.clone());
    let (to, msg) = parse_send("go to e0").expect("a send");
    let tx = s.deliver(to, msg.clone());
    assert!(
        matches!(&tx.status, Status::Failed(e) if e.message == "interrupted"),
        "{:?}",
        tx.status
    );
    assert_eq!(tx.steps, 65_536, "stopped at the first check");
    assert!(
        !flag.load(std::sync::atomic::Ordering::Relaxed),
        "the flag is cleared"
    );
    let tx = s.deliver(to, msg);
    assert!(
        matches!(&tx.status, Status::Failed(e) if e.message.contains("step limit")),
        "{:?}",
        tx.status
    );
    assert_eq!(tx.steps, 200_001);
}

/// A loop whose body ends with its counter's increment runs the loop's test right after
/// the increment (both fused): under every step budget, with a constant bound and with a
/// bound in a local, and when the counter stops being an integer, it ends each run as the
/// plain code does.
#[test]
fn a_loop_test_after_its_counter_ends_runs_as_the_plain_code_does() {
    let lines = "      (var i 0)
      (var n 7)
      (var t 0)
      (while (< i 9) (do (var t (+ t i)) (var i (+ i 1)) end))
      (var j 0)
      (while (< j n) (do (var t (+ t j)) (var j (+ j 2)) end))
      (var i 0)
      (while (< i 5) (do (if (= i 3) (var i 3.5)) (var i (+ i 1)) end))
      (print t i j)";
    let built = go_game(lines);
    let ops: Vec<Op> = built
        .game
        .codes
        .iter()
        .flat_map(|c| c.ops().to_vec())
        .collect();
    for (p, op) in ops.iter().enumerate() {
        if matches!(op, Op::SetLocalConst { .. }) {
            assert!(
                matches!(
                    ops.get(p + 4),
                    Some(Op::LoopLocalConst { .. } | Op::LoopLocals { .. })
                ),
                "every increment here is followed by its loop's test: {ops:?}"
            );
        }
    }
    assert!(ops.iter().any(|o| matches!(o, Op::LoopLocals { .. })));
    let text = go_text(lines);
    fused_and_plain_under_every_budget(&text, built.game, |s| matches!(s, Status::Committed(_)));
}

/// A chain of laws and side-effects on one join point, most of them bodies that end with
/// an `if` without `else` (the shape the machine hands over from one to the next without
/// its general path), with nested sends that have chains of their own, a law that vetoes
/// a nested message and one that vetoes the move, run under every step budget up to the
/// end of the transaction: fused and plain, traced and not, each run ends alike.
#[test]
fn chains_of_laws_and_side_effects_run_as_the_traced_code_does() {
    let text = r#"
#entity node
  #property p 0
  #property log (list)
  #state default
    #onMessage go
      (update property "p" to (+ (property "p") (attribute "n")))
      (send new message "note" to "e1" with "n" (attribute "n"))
      (property "p")
    #onMessage note
      (update property "log" to (append (property "log") (attribute "n")))

#instance e0 of node
#instance e1 of node

#law "First" on go to node in * is
  (if (< (attribute "n") 0) (do (notify "no negatives") (return) end))
#law "Second" on go to node in * is
  (var k (attribute "n"))
  (if (= k 7) (print "seven"))
#law "Middle" on go to node in * is
  (if (and (> (attribute "n") 2) (< (attribute "n") 100)) (print "middling"))
#law "Third" on go to node in * is
  (if (> (attribute "n") 100) (return))
#law "Notes" on note to node in * is
  (if (= (attribute "n") 3) (return))
#law "Notes Too" on note to node in * is
  (var x (+ (attribute "n") 1))
  (if (> x 50) (print "big"))
#sideeffect "After" on go to node in * is
  (if (> (property "p") 5) (send new message "note" to "e1" with "n" 9))
#sideeffect "Count" on * to node in * is
  (var s (length (property "log" of "e1")))
  (if (> s 0) (print s))
#sideeffect "Last" on go to node in * is
  (if (= (property "p") 7) (print "p is seven"))
"#;
    let built = built(text);
    assert!(
        has_op(&built.game, |o| *o == Op::NilEnd),
        "no body ends with a fused nil and end"
    );
    let sends = [
        "go to e0 with n 7",
        "go to e0 with n 1",
        "go to e0 with n 3",
        "go to e0 with n -1",
        "go to e0 with n 200",
        "go to e1 with n 9",
    ];
    let steps: u64 = {
        let (mut s, _) =
            Session::start(built.game.clone(), &SessionOptions::default()).expect("starts");
        sends
            .iter()
            .map(|send| {
                let (to, msg) = parse_send(send).expect("a send");
                s.deliver(to, msg).steps
            })
            .max()
            .unwrap_or(0)
    };
    assert!(steps > 40, "{steps} steps");
    for max_steps in 1..=steps + 1 {
        let limits = Limits {
            max_steps,
            ..LIMITS
        };
        if let Err(e) = run_fused_and_plain_within(text, 0, limits, &sends) {
            panic!("with {max_steps} steps: {e}");
        }
    }
}

/// `contains` of a local in a literal string of distinct letters (fused into one bit test
/// when the local holds a one-character name) on needles of every kind: letters in and
/// out of the string, characters below `@`, longer and empty strings, strings made at run
/// time, and a number (an error), held in a local or in a property of the running
/// entity, run under every step budget up to the
/// end of the transaction: the fused code ends each run as the plain code does.
#[test]
fn letters_looked_for_in_a_string_answer_as_the_plain_code_does() {
    let text = r#"
#entity node
  #property q nil
  #state default
    #onMessage go
      (var n 0)
      (foreach p in (list "K" "q" "P" "x" "@" "~" "1" " " "" "KQ" (str "B") (lower "N") (upper "r"))
        (do
          (if (contains "KQRBNP" p) (var n (+ n 1)))
          (update property "q" to p)
          (if (contains "kqrbnp" (property "q")) (var n (+ n 1000)))
          (if (contains "kqrbnp" p) (var n (+ n 10)))
          (if (contains "@~" p) (var n (+ n 100)))
          (print p (contains "Pp" p))
        end))
      (print n)
      (update property "q" to 7)
      (print (contains "Kk" (property "q")))
#instance e0 of node
"#;
    let built = built(text);
    assert!(
        has_op(&built.game, |o| matches!(o, Op::LetterIn { .. })),
        "no fused letter test"
    );
    assert!(
        has_op(&built.game, |o| matches!(o, Op::LetterInProperty { .. })),
        "no fused letter test of a property"
    );
    fused_and_plain_under_every_budget(
        text,
        built.game,
        |s| matches!(s, Status::Failed(e) if e.message.contains("contains")),
    );
}

/// `and` tested by `if` and `while` (a false value goes straight on to the test's exit)
/// on values of every truth, the first or a later one false, run under every step budget
/// up to the end of the transaction: the fused code ends each run as the plain code does.
#[test]
fn and_tests_jump_as_the_plain_code_does() {
    let text = r#"
#entity node
  #state default
    #onMessage go
      (var n 0)
      (var k 0)
      (foreach x in (list nil false true 0 "" (list) 2)
        (do
          (if (and x (!= x 2)) (var n (+ n 1)))
          (if (and true x) (var n (+ n 10)) else (var n (+ n 100)))
          (if (and x x (= x 0)) (print "zero"))
          (while (and (< k 3) x) (var k (+ k 1)))
          (var k 0)
          (print (and x 5))
        end))
      n
#instance e0 of node
"#;
    let built = built(text);
    assert!(
        has_op(&built.game, |o| matches!(o, Op::AndExit { .. })),
        "no fused and"
    );
    fused_and_plain_under_every_budget(text, built.game, |s| matches!(s, Status::Committed(_)));
}

/// More kinds of join point in a row than the advice cache keeps at hand (messages of six
/// labels, to instances of two types, one instance with a law of its own): each finds its
/// own laws and side-effects every time, however the kinds follow each other.
#[test]
fn many_kinds_of_join_points_each_find_their_own_chain() {
    let mut text = String::from(
        "#entity a\n  #state default\n    #onMessage m0\n      0\n\
         #entity b\n  #state default\n    #onMessage m0\n      0\n\
         #instance a1 of a\n#instance a2 of a\n#instance b1 of b\n\
         #law \"Only a2\" on * to a2 in * is (print \"a2\")\n",
    );
    for i in 0..6 {
        text.push_str(&format!(
            "#law \"Law {i}\" on m{i} to a in * is (print \"law {i}\")\n\
             #sideeffect \"Effect {i}\" on m{i} to b in * is (print \"effect {i}\")\n"
        ));
    }
    let (mut s, _) = Session::start(built(&text).game, &SessionOptions::default()).expect("starts");
    for round in 0..3 {
        for i in [0, 3, 1, 4, 2, 5, 0, 5] {
            let i = (i + round) % 6;
            for to in ["a1", "a2", "b1"] {
                let (target, msg) = parse_send(&format!("m{i} to {to}")).expect("a send");
                let tx = s.deliver(target, msg);
                let mut printed: Vec<String> = tx
                    .output
                    .iter()
                    .map(|o| match o {
                        Output::Print(t) => t.clone(),
                        other => format!("{other:?}"),
                    })
                    .collect();
                printed.sort();
                let mut expected = match to {
                    "a1" => vec![format!("law {i}")],
                    "a2" => vec![format!("law {i}"), "a2".to_string()],
                    _ => vec![format!("effect {i}")],
                };
                expected.sort();
                assert_eq!(printed, expected, "m{i} to {to}");
            }
        }
    }
}

/// A call of more than 255 arguments, or a message of more than 255 attributes, is
/// refused with an error at the call: the instruction holds a count up to 255, and such a
/// call once ran with its list cut to 255 elements and the rest left on the stack.
#[test]
fn a_call_or_message_past_255_operands_is_refused_not_cut() {
    let codes = |text: String| {
        let mut fs = MemoryFs::new();
        fs.insert("game.fr", &text);
        match build_game(&fs, Path::new("game.fr")) {
            Ok(_) => Vec::new(),
            Err(flexrules::compile::BuildError::Errors(_, diagnostics)) => {
                diagnostics.iter().map(|d| d.code).collect()
            }
            Err(e) => panic!("{}", e.render_plain()),
        }
    };
    let game = |body: &str| {
        format!(
            "#entity box\n  #state default\n    #onMessage go\n      {body}\n#instance b of box\n"
        )
    };
    let ones = |n: usize| vec!["1"; n].join(" ");
    assert!(codes(game(&format!("(print (list {}))", ones(255)))).is_empty());
    assert_eq!(
        codes(game(&format!("(print (list {}))", ones(256)))),
        ["too-many-arguments"]
    );
    let pairs = |n: usize| {
        (0..n)
            .map(|i| format!("\"k{i}\" {i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(codes(game(&format!("(new message \"m\" with {})", pairs(255)))).is_empty());
    assert_eq!(
        codes(game(&format!("(new message \"m\" with {})", pairs(256)))),
        ["too-many-attributes"]
    );
}
