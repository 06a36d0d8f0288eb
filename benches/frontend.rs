//! Front-end throughput on a large generated game (about 100,000 lines, 3–4 MB).
//!
//! Four stages, each including the ones before it, so the differences say where the time
//! goes:
//! - `lex`: the logos lexer only;
//! - `lex+read`: plus the chumsky reader (tokens to S-expressions);
//! - `load`: plus lowering to the AST and the loader (`syntax::load::load`);
//! - `check_game`: plus the static checks: the whole front end as `flexrules check` runs it.
//!
//! Run with `cargo bench --bench frontend`. The game is generated deterministically and
//! checked once up front: it must be clean, so the numbers measure the normal path, not
//! error recovery.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flexrules::compile::{CheckOptions, check_game};
use flexrules::diagnostic::render_plain;
use flexrules::source::FileId;
use flexrules::syntax::load::{MemoryFs, load};
use flexrules::syntax::reader::read;
use flexrules::syntax::token::lex;

/// How many lines the generated game has, at least.
const TARGET_LINES: usize = 100_000;

/// A small deterministic generator (xorshift), so the game is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const FUNCTIONS: usize = 300;
const LABELS: &[&str] = &[
    "move", "tick", "ping", "capture", "promote", "reset", "score", "pass", "sow", "flip",
];
const STATES: &[&str] = &["default", "active", "blocked"];

/// `#define helper<i> (a b) ...`: small two-argument functions the behaviours call.
fn functions(out: &mut String) {
    for i in 0..FUNCTIONS {
        let _ = write!(
            out,
            "#define helper{i} (a b)\n  (do\n    (var s (+ a b {i}))\n    \
             (if (> s {lim}) (- s {lim}) else (* s 2))\n  end)\n",
            lim = 10 + i % 17
        );
    }
}

/// One behaviour body of 12–30 lines, varying with `rng`.
fn behaviour(out: &mut String, rng: &mut Rng, ty: usize) {
    let f = rng.below(FUNCTIONS);
    let g = rng.below(FUNCTIONS);
    let label = LABELS[rng.below(LABELS.len())];
    out.push_str("      (do\n");
    out.push_str("        (var n (property \"count\"))\n");
    out.push_str("        (var target (attribute \"target\"))\n");
    let _ = writeln!(
        out,
        "        (var bonus (helper{f} n (length (property \"cells\"))))"
    );
    match rng.below(4) {
        0 => {
            let _ = write!(
                out,
                "        (if (> n 0)\n            (do\n              \
                 (update property \"count\" to (- n 1))\n              \
                 (send new message \"{label}\" to target with \"from\" (self) \"n\" n)\n            \
                 end)\n            else (notify (str \"empty \" (self))))\n"
            );
        }
        1 => {
            let _ = write!(
                out,
                "        (switch (% n 3)\n          \
                 (case 0 (update property \"count\" to (+ n bonus)))\n          \
                 (case 1 (changeState \"active\"))\n          \
                 (default (changeState \"default\")))\n"
            );
        }
        2 => {
            let _ = write!(
                out,
                "        (var i 0)\n        (while (< i 3)\n          (do\n            \
                 (var i (+ i 1))\n            \
                 (update property \"history\" to (append (property \"history\") i))\n          \
                 end))\n"
            );
        }
        _ => {
            let _ = write!(
                out,
                "        (if (and (!= (property \"owner\") (attribute \"player\"))\n                 \
                 (contains (list 2 3) (property \"count\")))\n            \
                 (send new message \"score\" to \"game\" with \"stones\" (property \"count\"))\n            \
                 else (update message attribute \"left\" to (- n 1)))\n"
            );
        }
    }
    let _ = write!(
        out,
        "        (foreach c in (property \"cells\")\n          \
         (if (contains (list 1 2 3) c)\n              \
         (var n (+ n (helper{g} c 2)))))\n"
    );
    if rng.below(2) == 0 {
        let _ = write!(
            out,
            "        (var m (new message \"ping\" with \"n\" n \"bonus\" bonus))\n        \
             (send m to (property \"next\"))\n"
        );
    }
    if rng.below(3) == 0 {
        let _ = write!(
            out,
            "        (var d (put (property \"scores\") (str \"t{ty}\") (+ n 1)))\n        \
             (update property \"scores\" to d)\n        \
             (foreach k in (keys d) (print k (get d k 0)))\n"
        );
    }
    if rng.below(4) == 0 {
        out.push_str("        (if (> (random 10) 8) (forward message to (property \"next\")))\n");
    }
    out.push_str("        (update property \"history\" to (append (property \"history\") n))\n");
    out.push_str("        (return n)\n      end)\n");
}

/// One entity type with properties, states, behaviours, inline advice and instances.
fn entity(out: &mut String, rng: &mut Rng, ty: usize) {
    let _ = writeln!(out, "\n; entity type {ty}\n#entity piece{ty}");
    if ty > 0 && rng.below(3) == 0 {
        let _ = writeln!(out, "  #extends piece{}", rng.below(ty));
    }
    out.push_str(
        "  #property count 4\n  #property owner 0\n  #property next \"game\"\n  \
         #property cells (list 1 2 3 4)\n  #property history (list)\n  \
         #property scores (dict \"a\" 1 \"b\" 2)\n",
    );
    for state in STATES {
        let _ = writeln!(out, "  #state {state}");
        let mut labels: Vec<&str> = LABELS.to_vec();
        for _ in 0..3 + rng.below(3) {
            let label = labels.remove(rng.below(labels.len()));
            let _ = writeln!(out, "    #onMessage {label}");
            behaviour(out, rng, ty);
        }
    }
    let label = LABELS[rng.below(LABELS.len())];
    let _ = write!(
        out,
        "#law \"Only Owner {ty}\" on {label} to piece{ty} in * is\n  \
         (var p (attribute \"player\"))\n  \
         (if (!= p (property \"owner\")) (return))\n\
         #sideeffect on * to piece{ty} in active is\n  \
         (do\n    (if (> (property \"count\") 10)\n        \
         (send new message \"score\" to \"game\" with \"stones\" 1))\n  end)\n"
    );
    for i in 0..3 {
        let _ = writeln!(
            out,
            "#instance \"p{ty}x{i}\" of piece{ty} with \"owner\" {} \"next\" \"p{ty}x{}\"",
            i % 2,
            (i + 1) % 3
        );
    }
}

/// The whole game: about `TARGET_LINES` lines.
fn generate() -> String {
    let mut out = String::with_capacity(TARGET_LINES * 40);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    out.push_str("; generated by benches/frontend.rs\n#param seeds 4\n#param size 12\n\n");
    functions(&mut out);
    out.push_str(
        "#entity game\n  #property stones 0\n  #state default\n    #onMessage score\n      \
         (update property \"stones\" to (+ (property \"stones\") (attribute \"stones\")))\n",
    );
    let mut ty = 0;
    while out.lines().count() < TARGET_LINES {
        for _ in 0..50 {
            entity(&mut out, &mut rng, ty);
            ty += 1;
        }
    }
    out.push_str(
        "\n#setup\n  (foreach i in (range 12)\n    \
         (send new message \"reset\" to (str \"p0x\" (% i 3)) with \"n\" i))\n\
         #actions\n  (do\n    (var moves (list))\n    \
         (foreach e in (entities of \"piece0\")\n      \
         (var moves (append moves (list e (new message \"move\" with \"name\" e)))))\n    \
         moves\n  end)\n",
    );
    out
}

fn frontend(c: &mut Criterion) {
    let text = generate();
    let mut fs = MemoryFs::new();
    fs.insert("g.fr", text.clone());
    let path = Path::new("g.fr");
    let checked = check_game(&fs, path, &CheckOptions::default()).expect("opens");
    assert!(
        checked.is_clean(),
        "the generated game must check clean:\n{}",
        render_plain(
            &checked.loaded.sources,
            &checked.diagnostics[..checked.diagnostics.len().min(5)]
        )
    );
    eprintln!(
        "generated game: {} lines, {} bytes, {} tokens",
        text.lines().count(),
        text.len(),
        lex(FileId(0), &text).0.len()
    );

    let mut group = c.benchmark_group("frontend");
    group
        .throughput(Throughput::Bytes(text.len() as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("lex", |b| {
        b.iter(|| {
            let (tokens, errors) = lex(FileId(0), black_box(&text));
            black_box((tokens.len(), errors.len()))
        });
    });
    group.bench_function("lex+read", |b| {
        b.iter(|| {
            let (tokens, _) = lex(FileId(0), black_box(&text));
            let (file, errors) = read(&tokens, text.len());
            black_box((file.directives.len(), errors.len()))
        });
    });
    group.bench_function("load", |b| {
        b.iter(|| {
            let loaded = load(&fs, black_box(path)).expect("opens");
            black_box(loaded.program.items.len())
        });
    });
    group.bench_function("check_game", |b| {
        b.iter(|| {
            let checked =
                check_game(&fs, black_box(path), &CheckOptions::default()).expect("opens");
            black_box(checked.diagnostics.len())
        });
    });
    group.finish();
}

criterion_group!(benches, frontend);
criterion_main!(benches);
