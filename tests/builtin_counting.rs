//! Every builtin counts its work: generated calls of each builtin of
//! [`BUILTINS`] on arguments of random sizes check that the steps it charges grow with
//! the bytes and elements it touches, so no builtin does unbounded work in one step.
//!
//! Each builtin has an explicit description below (a builtin added to the table without
//! one fails [`every_builtin_is_described`]): how to call it with large arguments (long
//! strings made at run time, long names, long lists, big dictionaries with long keys,
//! nested collections ...), and how its work grows with the size `n` of those arguments:
//!
//! - *linear*: the arguments are built so that the call touches at least `n` units of
//!   work (a unit is one element, or [`TEXT_STEP`] bytes of text compared, searched,
//!   hashed or looked up; one byte of text written). The steps it charges (plus one per
//!   argument, the instruction that pushed it) must be at least `n` for size `n` and
//!   `k·n` for size `k·n`, and grow at least half as fast as the size (less a small
//!   constant: a sort of few elements compares relatively more than a long one);
//! - *constant*: the call does a bounded amount of work whatever `n` is (it reads one
//!   element, or returns a value shared, not copied, or does integer arithmetic): the
//!   steps it charges, and the bytes it allocates (counted by this test's allocator, a
//!   deterministic measure of copying), must not grow from `n` to `k·n`.
//!
//! The pure builtins are called directly ([`call_pure`]), holding a copy of every
//! argument (as a program that keeps its variables does, so updates copy when they must);
//! the builtins the machine runs (`self`, `param`, `walk` ...) are called by a small game.
//! A third property runs, for every builtin, a program that calls it in an endless loop
//! on big arguments under a small step budget: the transaction always ends with the step
//! limit (or, for `fail`, its own error).
//!
//! No wall clock: the measures are steps and bytes allocated. Each pure property runs
//! 20,000 cases by default and each game one 500; set `PROPTEST_CASES` for a longer search
//! (e.g. `PROPTEST_CASES=100000 cargo test --release --test builtin_counting`), which
//! sets the pure properties' count and a twentieth of it (at least 20) for the games.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use flexrules::compile::build_game;
use flexrules::compile::builtins::BUILTINS;
use flexrules::runtime::budget::{Meter, TEXT_STEP};
use flexrules::runtime::builtins::{call_pure, pure_fn};
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::{DICT_FLAT_MAX, Dict, FLAT_MAX, Value};
use flexrules::runtime::vm::Limits;
use flexrules::symbol::Symbol;
use flexrules::syntax::load::MemoryFs;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// A counter making texts never made before.
static FRESH: AtomicUsize = AtomicUsize::new(0);

/// Counts the bytes each thread allocates (a deterministic measure of what a call copies).
struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = ALLOCATED.try_with(|c| c.set(c.get().wrapping_add(bytes as u64)));
}

// SAFETY: every call is passed on to the system allocator unchanged; the count is a
// thread-local cell that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocated() -> u64 {
    ALLOCATED.with(Cell::get)
}

fn cases(games: bool) -> u32 {
    let set = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse::<u32>().ok());
    match (set, games) {
        (Some(n), false) => n,
        (Some(n), true) => (n / 20).max(20),
        (None, false) => 20_000,
        (None, true) => 500,
    }
}

fn config(games: bool) -> Config {
    Config {
        cases: cases(games),
        failure_persistence: None,
        ..Config::default()
    }
}

/// How a builtin's work grows with the size of its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cost {
    Linear,
    Constant,
}
use Cost::{Constant, Linear};

/// Arguments of size `n`.
type Args = fn(usize) -> Vec<Value>;

/// How to call a pure builtin with large arguments: shapes of arguments and how the
/// work of each grows.
struct Pure {
    name: &'static str,
    shapes: &'static [(Cost, Args)],
}

// The argument shapes. Strings are made at run time (not names) unless said otherwise,
// from characters no program uses, so they are never interned.

/// A string of `n` × [`TEXT_STEP`] bytes, then `tail`: each call makes a new one.
fn long(n: usize, tail: &str) -> Value {
    Value::str(&format!("{}{tail}", "\u{e9}".repeat(n * TEXT_STEP / 2)))
}

/// A name (a symbol, as a literal of the program is) of `n` × [`TEXT_STEP`] bytes.
fn long_name(n: usize, tail: &str) -> Value {
    let text = format!("{}{tail}", "\u{e8}".repeat(n * TEXT_STEP / 2));
    Value::sym(Symbol::intern(&text))
}

/// A string made at run time with the text of [`long_name`].
fn made_name(n: usize, tail: &str) -> Value {
    Value::str(&format!("{}{tail}", "\u{e8}".repeat(n * TEXT_STEP / 2)))
}

fn ints(n: usize) -> Value {
    Value::list(
        (0..n as i64)
            .collect::<Vec<_>>()
            .into_iter()
            .map(Value::Int)
            .collect(),
    )
}

/// A list longer than [`FLAT_MAX`] (a persistent tree, updated by copying a path and a
/// chunk, not the list).
fn tree(n: usize) -> Value {
    ints(FLAT_MAX + 1 + n)
}

/// `n` integers in a scrambled order.
fn scrambled(n: usize) -> Value {
    Value::list(
        (0..n as i64)
            .map(|i| Value::Int((i * 7919 + 13) % 1009))
            .collect(),
    )
}

/// A list of `n` short strings.
fn words(n: usize) -> Value {
    Value::list((0..n).map(|i| Value::str(&format!("w{i}"))).collect())
}

/// A list of `n` one-element lists.
fn nested(n: usize) -> Value {
    Value::list(
        (0..n as i64)
            .map(|i| Value::list(std::iter::once(Value::Int(i)).collect()))
            .collect(),
    )
}

/// A dictionary of `n` integer keys.
fn int_dict(n: usize) -> Value {
    let mut d = Dict::new();
    for i in 0..n as i64 {
        d.insert(
            Value::Int(i).as_key().unwrap_or_else(|| unreachable!()),
            Value::Int(i),
        );
    }
    Value::dict(d)
}

/// A dictionary of more than [`DICT_FLAT_MAX`] integer keys (in chunks: updated by
/// copying a chunk, not the dictionary).
fn chunked(n: usize) -> Value {
    int_dict(DICT_FLAT_MAX + 1 + n)
}

/// A dictionary of 40 long keys of `n` × [`TEXT_STEP`] bytes, with the start of
/// [`long`] in common: a search for another such key compares its bytes with several.
fn long_keys(n: usize) -> Value {
    let mut d = Dict::new();
    for i in 0..40 {
        let k = long(n, &format!("{i:02}"));
        d.insert(k.as_key().unwrap_or_else(|| unreachable!()), Value::Int(i));
    }
    Value::dict(d)
}

/// A dictionary of `n` keys of 4 × [`TEXT_STEP`] bytes with a long start in common.
fn many_long_keys(n: usize) -> Value {
    let mut d = Dict::new();
    for i in 0..n {
        let k = long(4, &format!("{i:04}"));
        d.insert(k.as_key().unwrap_or_else(|| unreachable!()), Value::Int(1));
    }
    Value::dict(d)
}

/// A dictionary of 40 long keys with the start of [`long_name`] in common.
fn long_name_keys(n: usize) -> Value {
    let mut d = Dict::new();
    for i in 0..40 {
        let text = format!("{}{i:02}", "\u{e8}".repeat(n * TEXT_STEP / 2));
        let k = Value::str(&text);
        d.insert(k.as_key().unwrap_or_else(|| unreachable!()), Value::Int(i));
    }
    Value::dict(d)
}

fn i(n: usize) -> Value {
    Value::Int(n as i64)
}

/// Every pure builtin and its shapes. Why the constant ones are constant:
/// arithmetic, `not` and `abs` work on one or two scalars; `first`, `last`, `nth`, `get`
/// of a list read one element (a value is copied by a reference count); `length` reads a
/// stored length; `rest`, `append`, `prepend`, `take`, `drop` of a list and `put` of a
/// list update a list in chunks, copying a bounded part of it; `str` of one string
/// returns it; `list` of one list shares it (a list knows how deep it nests);
/// `get`/`has`/`put` with an integer key search a dictionary in a logarithmic number of
/// integer compares.
const PURE: &[Pure] = &[
    Pure {
        name: "+",
        shapes: &[(Constant, |n| vec![i(n), i(n)])],
    },
    Pure {
        name: "-",
        shapes: &[(Constant, |n| vec![i(n), i(3)])],
    },
    Pure {
        name: "*",
        shapes: &[(Constant, |n| vec![i(n), i(n)])],
    },
    Pure {
        name: "/",
        shapes: &[(Constant, |n| vec![i(n), i(3)])],
    },
    Pure {
        name: "%",
        shapes: &[(Constant, |n| vec![i(n), i(3)])],
    },
    Pure {
        name: "=",
        shapes: EQUAL,
    },
    Pure {
        name: "==",
        shapes: EQUAL,
    },
    Pure {
        name: "!=",
        shapes: EQUAL,
    },
    Pure {
        name: "<",
        shapes: ORDER,
    },
    Pure {
        name: ">",
        shapes: ORDER,
    },
    Pure {
        name: "<=",
        shapes: ORDER,
    },
    Pure {
        name: ">=",
        shapes: ORDER,
    },
    Pure {
        name: "not",
        shapes: &[(Constant, |n| vec![tree(n)])],
    },
    Pure {
        name: "abs",
        shapes: &[(Constant, |n| vec![Value::Int(-(n as i64))])],
    },
    Pure {
        name: "list",
        shapes: &[
            (Linear, |n| (0..n).map(i).collect()),
            (Constant, |n| vec![tree(n)]),
            (Linear, |n| vec![int_dict(n)]),
        ],
    },
    Pure {
        name: "first",
        shapes: &[(Constant, |n| vec![tree(n)])],
    },
    Pure {
        name: "rest",
        shapes: &[(Constant, |n| vec![tree(n)])],
    },
    Pure {
        name: "last",
        shapes: &[(Constant, |n| vec![tree(n)])],
    },
    Pure {
        name: "nth",
        shapes: &[(Constant, |n| vec![tree(n), i(n / 2)])],
    },
    Pure {
        name: "length",
        shapes: &[
            (Constant, |n| vec![tree(n)]),
            (Linear, |n| vec![long(n, "")]),
            (Constant, |n| vec![int_dict(n)]),
        ],
    },
    Pure {
        name: "append",
        shapes: &[
            (Constant, |n| vec![tree(n), i(1)]),
            (Linear, |n| vec![ints(1), int_dict(n)]),
        ],
    },
    Pure {
        name: "prepend",
        shapes: &[
            (Constant, |n| vec![tree(n), i(1)]),
            (Linear, |n| vec![ints(1), int_dict(n)]),
        ],
    },
    Pure {
        name: "concat",
        shapes: &[(Linear, |n| vec![ints(64 * n), ints(64 * n)])],
    },
    Pure {
        name: "contains",
        shapes: SEARCH,
    },
    Pure {
        name: "index-of",
        shapes: LIST_SEARCH,
    },
    Pure {
        name: "remove",
        shapes: LIST_SEARCH,
    },
    Pure {
        name: "reverse",
        shapes: &[(Linear, |n| vec![ints(n)])],
    },
    Pure {
        name: "range",
        shapes: &[
            (Linear, |n| vec![i(n)]),
            (Linear, |n| vec![i(0), i(2 * n), i(2)]),
        ],
    },
    Pure {
        name: "sort",
        shapes: &[
            (Linear, |n| vec![scrambled(n)]),
            (Linear, |n| {
                vec![Value::list(
                    [long(n, "b"), long(n, "a")].into_iter().collect(),
                )]
            }),
            (Linear, |n| vec![nested(n)]),
        ],
    },
    Pure {
        name: "take",
        shapes: &[(Constant, |n| vec![tree(n), i(3)])],
    },
    Pure {
        name: "drop",
        shapes: &[(Constant, |n| vec![tree(n), i(3)])],
    },
    Pure {
        name: "sum",
        shapes: &[(Linear, |n| vec![ints(n)])],
    },
    Pure {
        name: "min",
        shapes: MIN_MAX,
    },
    Pure {
        name: "max",
        shapes: MIN_MAX,
    },
    Pure {
        name: "dict",
        shapes: &[
            (Linear, |n| (0..n).flat_map(|k| [i(k), i(k)]).collect()),
            (Linear, |n| vec![long(n, ""), i(1)]),
            (Linear, |n| vec![i(1), int_dict(n)]),
        ],
    },
    Pure {
        name: "get",
        shapes: KEYED,
    },
    Pure {
        name: "put",
        shapes: &[
            (Linear, |n| vec![long_keys(n), long(n, "00"), i(1)]),
            (Linear, |n| {
                vec![long_name_keys(n), long_name(n, "00"), i(1)]
            }),
            (Constant, |n| vec![chunked(n), i(n / 2), i(1)]),
            (Constant, |n| vec![tree(n), i(n / 2), i(1)]),
            (Linear, |n| vec![int_dict(3), i(1), int_dict(n)]),
        ],
    },
    Pure {
        name: "has",
        shapes: KEYED,
    },
    Pure {
        name: "keys",
        shapes: &[(Linear, |n| vec![int_dict(n)])],
    },
    Pure {
        name: "values",
        shapes: &[(Linear, |n| vec![int_dict(n)])],
    },
    Pure {
        name: "remove-key",
        shapes: KEYED,
    },
    Pure {
        name: "str",
        shapes: &[
            (Constant, |n| vec![long(n, "")]),
            (Linear, |n| vec![long(n, ""), long(n, "")]),
            (Linear, |n| vec![ints(n)]),
            (Linear, |n| vec![long(n, ""), i(1), long(n, "")]),
        ],
    },
    Pure {
        name: "chars",
        shapes: &[(Linear, |n| vec![long(n, "")])],
    },
    Pure {
        name: "split",
        shapes: &[
            (Linear, |n| vec![long(n, ""), Value::str(",")]),
            (Linear, |n| vec![long(n, "x"), long(n, "")]),
        ],
    },
    Pure {
        name: "join",
        shapes: &[
            (Linear, |n| vec![words(n), Value::str(",")]),
            (Linear, |n| {
                vec![
                    Value::list([long(n, ""), long(n, "")].into_iter().collect()),
                    Value::str(","),
                ]
            }),
        ],
    },
    Pure {
        name: "upper",
        shapes: &[(Linear, |n| vec![long(n, "a")])],
    },
    Pure {
        name: "lower",
        shapes: &[(Linear, |n| vec![long(n, "A")])],
    },
    Pure {
        name: "parse-int",
        shapes: &[(Linear, |n| vec![Value::str(&"7".repeat(n * TEXT_STEP))])],
    },
    Pure {
        name: "fail",
        shapes: &[(Linear, |n| vec![long(n, "")])],
    },
];

/// Two distinct equal values: long strings, lists, nested lists, dictionaries with long
/// keys, long names against strings of the same text.
const EQUAL: &[(Cost, Args)] = &[
    (Linear, |n| vec![long(n, ""), long(n, "")]),
    (Linear, |n| vec![ints(n), ints(n)]),
    (Linear, |n| vec![nested(n), nested(n)]),
    (Linear, |n| vec![int_dict(n), int_dict(n)]),
    (Linear, |n| vec![many_long_keys(n), many_long_keys(n)]),
    (Linear, |n| {
        // Made before the name is interned (a text never made before), so it stays a
        // string made at run time.
        let tail = format!("={}", FRESH.fetch_add(1, Ordering::Relaxed));
        let made = made_name(n, &tail);
        vec![long_name(n, &tail), made]
    }),
    (Linear, |n| {
        vec![
            Value::list([long(n, "")].into_iter().collect()),
            Value::list([long(n, "")].into_iter().collect()),
        ]
    }),
];

/// Two strings ordered by a difference at their end (`<` and the others order numbers
/// and strings only).
const ORDER: &[(Cost, Args)] = &[
    (Linear, |n| vec![long(n, "a"), long(n, "b")]),
    (Linear, |n| vec![long_name(n, "<a"), made_name(n, "<b")]),
];

const MIN_MAX: &[(Cost, Args)] = &[
    (Linear, |n| vec![ints(n)]),
    (Linear, |n| vec![long(n, "a"), long(n, "b")]),
    (Linear, |n| {
        vec![Value::list(
            [long(n, "a"), long(n, "b")].into_iter().collect(),
        )]
    }),
];

/// Looking for something absent (or at the end) of a list.
const LIST_SEARCH: &[(Cost, Args)] = &[
    (Linear, |n| vec![ints(n), i(n + 1)]),
    (Linear, |n| vec![nested(n), nested(1)]),
    (Linear, |n| {
        vec![
            Value::list([long(n, "")].into_iter().collect()),
            long(n, ""),
        ]
    }),
    (Linear, |n| vec![words(n), Value::str("absent")]),
];

/// `contains`: in a list, a dictionary (long keys, long names) and a string.
const SEARCH: &[(Cost, Args)] = &[
    (Linear, |n| vec![ints(n), i(n + 1)]),
    (Linear, |n| {
        vec![
            Value::list([long(n, "")].into_iter().collect()),
            long(n, ""),
        ]
    }),
    (Linear, |n| vec![long_keys(n), long(n, "99")]),
    (Linear, |n| vec![long_name_keys(n), long_name(n, "99")]),
    (Linear, |n| vec![long(n, ""), Value::str("absent")]),
    (Linear, |n| vec![long(n, "x"), long(n, "y")]),
];

/// `get`, `has`, `remove-key`: long keys made at run time and long names among long keys
/// with the same start, and integer keys.
const KEYED: &[(Cost, Args)] = &[
    (Linear, |n| vec![long_keys(n), long(n, "99")]),
    (Linear, |n| vec![long_keys(n), long(n, "07")]),
    (Linear, |n| vec![long_name_keys(n), long_name(n, "99")]),
    (Linear, |n| vec![long_name_keys(n), long_name(n, "07")]),
    (Constant, |n| vec![chunked(n), i(n / 2)]),
];

/// The steps a pure builtin charges on `args` (plus one per argument, the instruction
/// that pushed it), and the bytes it allocates; the caller keeps a copy of the arguments.
fn charge(name: &str, args: &[Value]) -> (u64, u64) {
    let index = BUILTINS
        .iter()
        .position(|b| b.name == name)
        .unwrap_or_else(|| unreachable!());
    let mut meter = Meter::new(Limits::default());
    let mut moved: Vec<Value> = args.to_vec();
    let before = allocated();
    let result = call_pure(index, &mut moved, &mut meter);
    let bytes = allocated() - before;
    assert!(result.is_some(), "{name} is pure");
    drop(result);
    (meter.steps + args.len() as u64, bytes)
}

fn pure_spec(name: &str) -> Option<&'static Pure> {
    PURE.iter().find(|p| p.name == name)
}

/// Allowances: a constant builtin may differ by a few steps, and by a few small
/// allocations (a tree path and a chunk or two), between sizes; a linear one may have a
/// few steps of overhead.
const SLACK_STEPS: u64 = 8;
const SLACK_BYTES: u64 = 8192;

fn check_pure(name: &str, shape: usize, n: usize, k: usize) -> Result<(), TestCaseError> {
    let spec = pure_spec(name).unwrap_or_else(|| unreachable!());
    let (cost, args) = spec.shapes[shape % spec.shapes.len()];
    let (small, big) = (args(n), args(k * n));
    let (s1, b1) = charge(name, &small);
    let (s2, b2) = charge(name, &big);
    match cost {
        Linear => {
            prop_assert!(
                s1 >= n as u64,
                "{name} shape {shape}: {s1} steps for size {n}"
            );
            prop_assert!(
                s2 >= (k * n) as u64 && 2 * s2 + SLACK_STEPS * k as u64 >= k as u64 * s1,
                "{name} shape {shape}: {s1} steps for size {n}, {s2} for {}",
                k * n
            );
        }
        Constant => {
            prop_assert!(
                s2 <= s1 + SLACK_STEPS,
                "{name} shape {shape}: {s1} steps for size {n}, {s2} for {}",
                k * n
            );
            prop_assert!(
                b2 <= b1 + SLACK_BYTES,
                "{name} shape {shape}: {b1} bytes allocated for size {n}, {b2} for {}",
                k * n
            );
        }
    }
    Ok(())
}

/// How to call a builtin the machine runs, in a game with a ring board of cells `c0`
/// ... (directions `next`, `prev`) and a parameter `k`: the expression, with `big` a
/// string made at run time of `n` × [`TEXT_STEP`] bytes, `l` a list of `n` integers and
/// `dirs` a list of `n` + 8 directions (`walk` follows 8 within its step); and how its work grows.
#[derive(Debug)]
struct GameCall {
    name: &'static str,
    call: &'static str,
    cost: Cost,
    /// The same call on small arguments (`small`, `one`, `few`), which ends the same way.
    base: &'static str,
    /// The expression an endless loop repeats on big arguments.
    looped: &'static str,
}

/// Every builtin the machine runs. `self`, `sender` and `random` work on a word; `ray`
/// and `directions` of a cell read the board (its size is the program's, not the
/// arguments'); looking a name up (a parameter, a cell, a direction) hashes it, counted
/// by its bytes.
const GAME: &[GameCall] = &[
    GameCall {
        name: "self",
        call: "(self)",
        base: "(self)",
        cost: Constant,
        looped: "(self)",
    },
    GameCall {
        name: "sender",
        call: "(sender)",
        base: "(sender)",
        cost: Constant,
        looped: "(sender)",
    },
    GameCall {
        name: "param",
        call: "(param big)",
        base: "(param small)",
        cost: Linear,
        looped: "(param \"k\")",
    },
    GameCall {
        name: "random",
        call: "(random 1000000)",
        base: "(random 1000000)",
        cost: Constant,
        looped: "(random 6)",
    },
    GameCall {
        name: "shuffle",
        call: "(shuffle l)",
        base: "(shuffle one)",
        cost: Linear,
        looped: "(shuffle l)",
    },
    GameCall {
        name: "notify",
        call: "(notify big)",
        base: "(notify small)",
        cost: Linear,
        looped: "(notify big)",
    },
    GameCall {
        name: "print",
        call: "(print l big)",
        base: "(print one small)",
        cost: Linear,
        looped: "(print l big)",
    },
    GameCall {
        name: "neighbor",
        call: "(neighbor big \"next\")",
        base: "(neighbor small \"next\")",
        cost: Linear,
        looped: "(neighbor \"c1\" \"next\")",
    },
    GameCall {
        name: "walk",
        call: "(walk \"c0\" dirs)",
        base: "(walk \"c0\" few)",
        cost: Linear,
        looped: "(walk \"c0\" dirs)",
    },
    GameCall {
        name: "ray",
        call: "(ray big \"next\")",
        base: "(ray small \"next\")",
        cost: Linear,
        looped: "(ray \"c2\" \"prev\")",
    },
    GameCall {
        name: "directions",
        call: "(directions big)",
        base: "(directions small)",
        cost: Linear,
        looped: "(directions \"c3\")",
    },
    GameCall {
        name: "board-data",
        call: "(board-data big)",
        base: "(board-data small)",
        cost: Linear,
        looped: "(board-data \"c0\")",
    },
    GameCall {
        name: "legal-moves",
        call: "(legal-moves big 1)",
        base: "(legal-moves small 1)",
        cost: Linear,
        looped: "(legal-moves big 1)",
    },
    GameCall {
        name: "has-legal-move",
        call: "(has-legal-move \"entity\" big)",
        base: "(has-legal-move \"entity\" small)",
        cost: Linear,
        looped: "(has-legal-move \"entity\" big)",
    },
    GameCall {
        name: "is-legal",
        call: "(is-legal big)",
        base: "(is-legal small)",
        cost: Linear,
        looped: "(is-legal big)",
    },
];

/// The game: `go` builds `big`, `l` and `dirs` of size `n` and then runs `body`.
fn game(n: usize, body: &str) -> String {
    format!(
        r#"#param k 3
#entity cell
  #state default
    #onMessage go
      (var big (str "{}" "!"))
      (var l (range {n}))
      (var dirs (list))
      (foreach i in (range {walked}) (var dirs (append dirs "next")))
      (var small (str "s" "!"))
      (var one (list 0))
      (var few (list "next" "next" "next" "next" "next" "next" "next" "next"))
      (var x nil)
      {body}
      nil
#board ring 8 of cell named "c"
#actions (list)
"#,
        "\u{e7}".repeat(n * TEXT_STEP / 2),
        walked = n + 8
    )
}

/// How `go` to `c0` of `text` ends under `max_steps`: its status and steps.
fn deliver(text: &str, max_steps: u64) -> (Status, u64) {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", text);
    let built = build_game(&fs, Path::new("game.fr")).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let options = SessionOptions {
        tier: Default::default(),
        seed: 0,
        params: vec![],
        limits: Limits {
            max_steps,
            ..Limits::default()
        },
        trace: false,
    };
    let (mut s, _) = Session::start(built.game, &options).unwrap_or_else(|_| panic!("starts"));
    let (to, msg) = parse_send("go to c0").unwrap_or_else(|_| unreachable!());
    let tx = s.deliver(to, msg);
    (tx.status, tx.steps)
}

/// The steps the call of `g` charges in a game of size `n` beyond those of its call on
/// small arguments.
fn game_charge(g: &GameCall, n: usize) -> u64 {
    let default = Limits::default().max_steps;
    let (_, with) = deliver(&game(n, &format!("(var x {})", g.call)), default);
    let (_, base) = deliver(&game(n, &format!("(var x {})", g.base)), default);
    with.saturating_sub(base)
}

fn check_game(g: &GameCall, n: usize, k: usize) -> Result<(), TestCaseError> {
    let s1 = game_charge(g, n);
    let s2 = game_charge(g, k * n);
    match g.cost {
        Linear => {
            prop_assert!(s1 + 1 >= n as u64, "{}: {s1} steps for size {n}", g.name);
            prop_assert!(
                s2 + 1 >= (k * n) as u64 && 2 * s2 + SLACK_STEPS * k as u64 >= k as u64 * s1,
                "{}: {s1} steps for size {n}, {s2} for {}",
                g.name,
                k * n
            );
        }
        Constant => prop_assert!(
            s2 <= s1 + SLACK_STEPS,
            "{}: {s1} steps for size {n}, {s2} for {}",
            g.name,
            k * n
        ),
    }
    Ok(())
}

/// A program that calls `name` forever on big arguments (an expression of the game's
/// variables): the shapes of a pure builtin are written as expressions here.
fn looped_call(name: &str) -> String {
    if let Some(g) = GAME.iter().find(|g| g.name == name) {
        return g.looped.to_string();
    }
    let two = "big (str big \"\")";
    match name {
        "+" | "-" | "*" | "/" | "%" => format!("({name} 7 3)"),
        "=" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "min" | "max" => format!("({name} {two})"),
        "not" | "first" | "rest" | "last" | "reverse" | "sort" | "sum" | "shuffle" => {
            format!("({name} l)")
        }
        "abs" => "(abs -3)".into(),
        "list" => "(list l big kd)".into(),
        "nth" => "(nth l 0)".into(),
        "length" => "(length big)".into(),
        "append" | "prepend" => format!("({name} l kd)"),
        "concat" => "(concat l l)".into(),
        "contains" => "(contains kd (str big \"9\"))".into(),
        "index-of" | "remove" => format!("({name} (list big) (str big \"\"))"),
        "range" => "(range (length l))".into(),
        "take" | "drop" => format!("({name} l (length l))"),
        "dict" => "(dict (str big \"x\") 1)".into(),
        "get" | "has" | "remove-key" => format!("({name} kd (str big \"9\"))"),
        "put" => "(put kd (str big \"9\") 1)".into(),
        "keys" | "values" => format!("({name} kd)"),
        "str" => format!("(str {two})"),
        "chars" | "upper" | "lower" | "parse-int" => format!("({name} big)"),
        "split" => "(split big \",\")".into(),
        "join" => "(join (list big big) \",\")".into(),
        "fail" => "(fail big)".into(),
        other => panic!("no looped call for `{other}`"),
    }
}

/// Every builtin of the table is described here: a builtin added without a description
/// fails.
#[test]
fn every_builtin_is_described() {
    for (index, b) in BUILTINS.iter().enumerate() {
        let pure = pure_fn(index).is_some();
        assert_eq!(
            pure_spec(b.name).is_some(),
            pure,
            "`{}`: describe how to call it with large arguments",
            b.name
        );
        assert_eq!(
            GAME.iter().any(|g| g.name == b.name),
            !pure,
            "`{}`: describe its call in the game",
            b.name
        );
        if let Some(p) = pure_spec(b.name) {
            for (_, args) in p.shapes {
                assert!(
                    b.arity.accepts(args(2).len()) || b.name == "list" || b.name == "dict",
                    "`{}`",
                    b.name
                );
            }
        }
        let _ = looped_call(b.name);
    }
    assert_eq!(PURE.len() + GAME.len(), BUILTINS.len());
}

fn pure_names() -> impl Strategy<Value = &'static str> {
    prop::sample::select(PURE.iter().map(|p| p.name).collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(config(false))]

    /// Every pure builtin, every shape: the steps grow with the work.
    #[test]
    fn pure_builtins_charge_by_the_work(name in pure_names(), shape in 0usize..8, n in 1usize..160, k in 2usize..5) {
        check_pure(name, shape, n, k)?;
    }
}

proptest! {
    #![proptest_config(config(true))]

    /// Every builtin the machine runs: the steps grow with the work.
    #[test]
    fn game_builtins_charge_by_the_work(g in prop::sample::select(GAME.iter().collect::<Vec<_>>()), n in 1usize..120, k in 2usize..4) {
        check_game(g, n, k)?;
    }

    /// Every builtin, called forever on big arguments under a small budget: the
    /// transaction ends with the step limit (`fail` with its own error).
    #[test]
    fn endless_calls_end_at_the_step_limit(b in prop::sample::select(BUILTINS.iter().map(|b| b.name).collect::<Vec<_>>()), n in 16usize..400, budget in 1_000u64..20_000) {
        let body = format!(
            "(var kd (dict (str big \"0\") 0 (str big \"1\") 1 (str big \"2\") 2))\n      (while true (var x {}))",
            looped_call(b)
        );
        let text = game(n, &body);
        let (_, setup) = deliver(&game(n, "(var kd (dict (str big \"0\") 0 (str big \"1\") 1 (str big \"2\") 2))"), Limits::default().max_steps);
        let (status, steps) = deliver(&text, setup + budget);
        match status {
            // Its own error, or the step limit when copying its message passes the budget.
            Status::Failed(_) if b == "fail" => {}
            Status::Failed(e) => {
                prop_assert!(e.message.starts_with("step limit reached"), "{b}: {}", e.message);
                // Past the budget by at most the charge of the call that went past it.
                let call = 8 * (n * TEXT_STEP) as u64;
                prop_assert!(steps <= setup + budget + call, "{b}: {steps} steps");
            }
            other => prop_assert!(false, "{b}: {other:?}"),
        }
    }
}
