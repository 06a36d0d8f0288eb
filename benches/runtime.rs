//! Runtime benchmarks: message sends, checkpoint + rollback, and three micro-programs
//! timed against Lua 5.4 in the same run.
//!
//! Run:
//!
//! ```sh
//! cargo bench --bench runtime                           # criterion sampling, then a summary
//! cargo bench --bench runtime -- checkpoint             # only the benches whose id matches
//! FLEXRULES_BENCH_QUICK=1 cargo bench --bench runtime   # quick: a few timed runs, no criterion
//! cargo bench --bench runtime -- --quick                # the same quick report
//! cargo bench --bench runtime -- --quick micro/fib      # quick, only ids containing micro/fib
//! ```
//!
//! The quick report (under a minute) times each scenario a few times and prints the same
//! summary as the full run; `--quick` here means this report, not criterion's own flag.
//!
//! What is measured:
//!
//! - `sends/chain`: entity `a` sends `ping` to `b`, which sends it back to `a`, and so on
//!   10,000 times in one transaction, counting down the message attribute `n` (so the chain
//!   is 10,000 join points deep). Throughput is sends per second.
//! - `sends/transaction`: one transaction per send: the user delivers `tick` to `a`, whose
//!   behaviour decrements a property. Throughput is transactions (= sends) per second.
//! - `checkpoint_rollback/<n>`: in a world of `n` entities (`#board ring <n>`), one
//!   transaction that opens a checkpoint, updates a property and rolls back. It should stay
//!   flat as `n` grows: a checkpoint is an O(1) snapshot, and the write after it copies only
//!   the path to one entity. The summary prints the growth from one size to the next.
//! - `micro/<program>/{flexrules,lua}`: a 10^7-step `while` loop, recursive `fib 27`
//!   through `#define`, and 10^6 counts into a dictionary of 1000 keys written the natural
//!   way, `(var d (put d k (+ (get d k 0) 1)))` with `k` = `(% i 1000)`. The flexrules side
//!   evaluates the program as user code (a `#setup` body run once per iteration with
//!   `Session::eval`); the Lua side runs `lua5.4 benches/lua/<program>.lua` as a process
//!   (start-up included; the summary also shows the start-up of an empty script). Both must
//!   print the same result. Without `lua5.4` on the `PATH` (or in `FLEXRULES_LUA`) the Lua
//!   side is skipped with a message.
//!
//! - `games/...`: the bundled games through the library, as `flexrules playout` and
//!   `flexrules perft` run them: `games/awele/playouts` (random playouts from the start,
//!   seeded per game as the command seeds them, counted per second), `games/chess/perft3`
//!   and `games/chess/perft4` (seconds per perft from the start, on one thread), then
//!   `games/chess/perft4-cores` (the same on one thread per core, as the command runs it by
//!   default; only on a machine of several cores), `games/go9/playouts` and
//!   `games/go19/playouts` (games/go with `size` 9 and 19). Quick mode only (criterion
//!   would take far too long); the summary prints min/median/max of the timed runs.
//!
//! `cargo bench --bench runtime -- --quick` is the command that prints the whole table of
//! the interpreter's speed goals: games, sends, checkpoints and the micro-programs beside
//! Lua, every ratio measured in the same run.
//!
//! At the end the bench prints a summary: the median of each measurement (from criterion's
//! samples, or from the quick runs) and the flexrules/Lua ratios. Under `cargo test
//! --benches` (criterion's `--test` mode) every scenario runs once at a small size, as a
//! smoke test.

use flexrules::api::Match;
use flexrules::play::perft::perft_on_threads;
use flexrules::play::playout::playout;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flexrules::compile::bytecode::CodeId;
use flexrules::compile::program::Game;
use flexrules::compile::{build_game, build_game_with_rules};
use flexrules::play::playout::Chooser;
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::{Attrs, Key, Message, Value};
use flexrules::runtime::vm::Limits;
use flexrules::symbol::Symbol;
use flexrules::syntax::load::{DiskFs, MemoryFs};

// ---------------------------------------------------------------------------------------
// Sizes.

/// How big each scenario is.
#[derive(Clone, Copy)]
struct Sizes {
    /// Sends in the one-transaction chain.
    chain: i64,
    /// Entity counts for checkpoint + rollback.
    worlds: [usize; 3],
    /// Steps of the counting loop.
    count: i64,
    /// Argument of `fib`.
    fib: i64,
    /// Dictionary updates.
    puts: i64,
    /// Playouts per timed run: Awele, Go 9x9, Go 19x19.
    playouts: [u64; 3],
    /// Deepest chess perft timed.
    perft: usize,
}

const FULL: Sizes = Sizes {
    chain: 10_000,
    worlds: [100, 10_000, 100_000],
    count: 10_000_000,
    fib: 27,
    puts: 1_000_000,
    playouts: [200, 20, 2],
    perft: 4,
};

/// `--test` (a smoke test under `cargo test --benches`): tiny, so a debug build is quick.
const SMOKE: Sizes = Sizes {
    chain: 100,
    worlds: [10, 100, 1000],
    count: 1000,
    fib: 10,
    puts: 2000,
    playouts: [2, 1, 0],
    perft: 2,
};

// ---------------------------------------------------------------------------------------
// Games.

fn build(source: &str) -> Arc<Game> {
    let mut fs = MemoryFs::new();
    fs.insert("bench.fr", source);
    match build_game(&fs, Path::new("bench.fr")) {
        Ok(built) => built.game,
        Err(e) => panic!("benchmark game does not build:\n{}", e.render_plain()),
    }
}

fn options() -> SessionOptions {
    SessionOptions {
        limits: Limits {
            max_steps: u64::MAX,
            ..Limits::default()
        },
        ..SessionOptions::default()
    }
}

fn start(game: Arc<Game>) -> Session {
    match Session::start(game, &options()) {
        Ok((session, _)) => session,
        Err(e) => panic!("benchmark game does not start: {e}"),
    }
}

const PING_PONG: &str = r#"
#entity player
  #property peer ""
  #property left 0
  #state default
    #onMessage ping
      (if (> (attribute "n") 0)
          (send new message "ping" to (property "peer") with "n" (- (attribute "n") 1)))
    #onMessage tick
      (update property "left" to (- (property "left") 1))
#instance a of player with peer "b"
#instance b of player with peer "a"
"#;

/// The ping-pong game, and a function delivering one message to `a`.
struct PingPong {
    session: Session,
    a: Symbol,
    ping: Symbol,
    tick: Symbol,
    n: Key,
}

impl PingPong {
    fn new() -> PingPong {
        PingPong {
            session: start(build(PING_PONG)),
            a: Symbol::intern("a"),
            ping: Symbol::intern("ping"),
            tick: Symbol::intern("tick"),
            n: Key::sym(Symbol::intern("n")),
        }
    }

    /// One transaction: a chain of `n` sends between `a` and `b`.
    fn chain(&mut self, n: i64) {
        let mut attrs = Attrs::new();
        attrs.insert(self.n.clone(), Value::Int(n));
        let tx = self.session.deliver(
            self.a,
            Message {
                label: self.ping,
                attrs,
            },
        );
        expect_committed(&tx.status, "ping-pong chain");
    }

    /// One transaction of one send.
    fn tick(&mut self) {
        let tx = self.session.deliver(
            self.a,
            Message {
                label: self.tick,
                attrs: Attrs::new(),
            },
        );
        expect_committed(&tx.status, "tick");
    }
}

/// A world of `n` cells and a transaction that checkpoints, writes and rolls back.
struct Ring {
    session: Session,
    target: Symbol,
    probe: Symbol,
    v: Symbol,
}

impl Ring {
    fn new(n: usize) -> Ring {
        let source = format!(
            r#"
#entity cell
  #property v 0
  #state default
    #onMessage probe
      (open checkpoint)
      (update property "v" to 1)
      (rollback "probe")
#board ring {n} of cell named "c"
"#
        );
        let session = start(build(&source));
        assert_eq!(session.world().iter().count(), n, "ring of {n} cells");
        Ring {
            session,
            target: Symbol::intern(&format!("c{}", n / 2)),
            probe: Symbol::intern("probe"),
            v: Symbol::intern("v"),
        }
    }

    fn probe(&mut self) {
        let tx = self.session.deliver(
            self.target,
            Message {
                label: self.probe,
                attrs: Attrs::new(),
            },
        );
        if !matches!(tx.status, Status::RolledBack { .. }) {
            panic!("probe: expected a rollback, got {}", tx.status.summary());
        }
    }

    /// The probed property is back to 0 after a rollback.
    fn check(&self) {
        let world = self.session.world();
        let id = world.lookup(self.target).expect("target cell");
        let e = world.entity(id).expect("target cell is alive");
        let v = e.property(&self.session.game, self.v).cloned();
        assert_eq!(v, Some(Value::Int(0)), "rollback restored the property");
    }
}

/// The three micro-programs, as user code of one game.
struct Micro {
    session: Session,
    /// Counting loop, fib, dictionary updates.
    codes: [CodeId; 3],
}

impl Micro {
    fn new(s: &Sizes) -> Micro {
        let source = format!(
            r#"
#define fib (n) (if (< n 2) n else (+ (fib (- n 1)) (fib (- n 2))))
#setup
  (var i 0)
  (while (< i {count}) (var i (+ i 1)))
  i
#setup (fib {fib})
#setup
  (var d (dict))
  (var i 0)
  (while (< i {puts})
    (do
      (var k (% i 1000))
      (var d (put d k (+ (get d k 0) 1)))
      (var i (+ i 1))
    end))
  (sum (values d))
"#,
            count = s.count,
            fib = s.fib,
            puts = s.puts,
        );
        // The programs run only when measured: keep their bodies and start the game
        // without them.
        let mut game = (*build(&source)).clone();
        let codes: [CodeId; 3] = game.setup.clone().try_into().expect("three #setup bodies");
        game.setup.clear();
        Micro {
            session: start(Arc::new(game)),
            codes,
        }
    }

    /// Run program `k`; its value.
    fn run(&mut self, k: usize) -> Value {
        let tx = self.session.eval(self.codes[k]);
        match tx.status {
            Status::Committed(v) => v,
            other => panic!("micro-program {k}: {}", other.summary()),
        }
    }
}

fn expect_committed(status: &Status, what: &str) {
    if !status.committed() {
        panic!("{what}: {}", status.summary());
    }
}

// ---------------------------------------------------------------------------------------
// Lua.

const PROGRAMS: [&str; 3] = ["count", "fib", "dict"];

/// The Lua interpreter, if there is one.
struct Lua {
    exe: String,
    dir: PathBuf,
}

impl Lua {
    fn find() -> Option<Lua> {
        let exe = std::env::var("FLEXRULES_LUA").unwrap_or_else(|_| "lua5.4".to_string());
        let found = Command::new(&exe)
            .arg("-v")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            println!(
                "note: `{exe}` is not installed: skipping the Lua side of the micro-programs \
                 (install it with `apt-get install lua5.4`, or set FLEXRULES_LUA)"
            );
            return None;
        }
        Some(Lua {
            exe,
            dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lua"),
        })
    }

    /// Run `benches/lua/<program>.lua <arg>`; its output line and the wall time.
    fn run(&self, program: &str, arg: i64) -> (String, Duration) {
        let script = self.dir.join(format!("{program}.lua"));
        let t = Instant::now();
        let out = Command::new(&self.exe)
            .arg(&script)
            .arg(arg.to_string())
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
        let elapsed = t.elapsed();
        if !out.status.success() {
            panic!(
                "{} failed: {}",
                script.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        (
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
            elapsed,
        )
    }

    /// Wall time of starting and stopping the interpreter on an empty script.
    fn startup(&self) -> Duration {
        let t = Instant::now();
        let ok = Command::new(&self.exe)
            .args(["-e", ""])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "{} -e \"\" failed", self.exe);
        t.elapsed()
    }
}

/// The argument each Lua script takes.
fn lua_arg(s: &Sizes, k: usize) -> i64 {
    [s.count, s.fib, s.puts][k]
}

/// Run micro-program `k` once on both sides (untimed) and check they agree.
fn cross_check(micro: &mut Micro, lua: Option<&Lua>, s: &Sizes, k: usize) {
    let name = PROGRAMS[k];
    let ours = micro.run(k).to_string();
    if let Some(lua) = lua {
        let (theirs, _) = lua.run(name, lua_arg(s, k));
        assert_eq!(ours, theirs, "{name}: flexrules and Lua disagree");
    }
}

// ---------------------------------------------------------------------------------------
// Recording times for the summary.

/// Per-iteration times of every measurement, by id.
static SAMPLES: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

fn record(id: &str, iters: u64, total: Duration) {
    if iters == 0 {
        return;
    }
    let mut samples = SAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    samples
        .entry(id.to_string())
        .or_default()
        .push(total.as_secs_f64() / iters as f64);
}

/// Median seconds per iteration of `id`, if it was measured.
fn median(id: &str) -> Option<f64> {
    let samples = SAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    let mut v = samples.get(id)?.clone();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// Time `batch` runs of `f`, `reps` times, recording each batch.
fn quick(id: &str, reps: usize, batch: u64, mut f: impl FnMut()) {
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        record(id, batch, t.elapsed());
    }
}

// ---------------------------------------------------------------------------------------
// Criterion benches.

fn bench_sends(c: &mut Criterion, s: &Sizes) {
    let mut pp = PingPong::new();
    let mut g = c.benchmark_group("sends");
    g.throughput(Throughput::Elements(s.chain as u64));
    g.bench_function("chain", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                pp.chain(s.chain);
            }
            let d = t.elapsed();
            record("sends/chain", iters, d);
            d
        })
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("transaction", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                pp.tick();
            }
            let d = t.elapsed();
            record("sends/transaction", iters, d);
            d
        })
    });
    g.finish();
}

fn bench_checkpoints(c: &mut Criterion, s: &Sizes) {
    let mut g = c.benchmark_group("checkpoint_rollback");
    for n in s.worlds {
        let id = format!("checkpoint_rollback/{n}");
        // Building a 100,000-cell world takes a moment: only when selected.
        let mut ring: Option<Ring> = None;
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let ring = ring.get_or_insert_with(|| Ring::new(n));
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    ring.probe();
                }
                let d = t.elapsed();
                record(&id, iters, d);
                d
            })
        });
        if let Some(ring) = &ring {
            ring.check();
        }
    }
    g.finish();
}

fn bench_micro(c: &mut Criterion, s: &Sizes, micro: &mut Micro, lua: Option<&Lua>) {
    let mut g = c.benchmark_group("micro");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(5));
    for (k, name) in PROGRAMS.iter().enumerate() {
        let id = format!("micro/{name}/flexrules");
        let mut checked = false;
        g.bench_function(format!("{name}/flexrules"), |b| {
            if !std::mem::replace(&mut checked, true) {
                cross_check(micro, lua, s, k);
            }
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(micro.run(k));
                }
                let d = t.elapsed();
                record(&id, iters, d);
                d
            })
        });
        if let Some(lua) = lua {
            let id = format!("micro/{name}/lua");
            let arg = lua_arg(s, k);
            g.bench_function(format!("{name}/lua"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += lua.run(name, arg).1;
                    }
                    record(&id, iters, total);
                    total
                })
            });
        }
    }
    g.finish();
}

// ---------------------------------------------------------------------------------------
// Bundled games.

/// A bundled game (a directory under games/) with `params`, started as the CLI starts it.
fn bundled(dir: &str, params: &[(&str, i64)]) -> Session {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("games")
        .join(dir);
    let game = match build_game_with_rules(&DiskFs, &dir, &[]) {
        Ok(b) => b.game,
        Err(e) => panic!("{} does not build: {e:?}", dir.display()),
    };
    let options = SessionOptions {
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), Value::Int(*v)))
            .collect(),
        ..options()
    };
    match Session::start(game, &options) {
        Ok((session, _)) => session,
        Err(e) => panic!("{} does not start: {e}", dir.display()),
    }
}

/// `n` random playouts from the session's world, seeded as `flexrules playout --seed 0`
/// seeds them (games `first..first + n`); the plies played.
fn playouts(session: &mut Session, first: u64, n: u64) -> usize {
    Match::around(session, |m| {
        let start = m.position().clone();
        let mut plies = 0;
        for i in first..first + n {
            m.set_position(start.clone());
            let mut chooser = Chooser::new(0, i);
            m.set_random_state(chooser.next_u64());
            match playout(m, &mut chooser, 100_000) {
                Ok(p) => plies += p.plies,
                Err(e) => panic!("playout {i} failed: {}", e.error.message),
            }
        }
        m.set_position(start);
        plies
    })
}

/// A timed playout workload: its id, its game directory, its parameters, its playouts.
type PlayoutRun<'a> = (&'a str, &'a str, &'a [(&'a str, i64)], u64);

fn quick_games(s: &Sizes, wanted: &dyn Fn(&str) -> bool) {
    let runs: [PlayoutRun; 3] = [
        ("games/awele/playouts", "awele", &[], s.playouts[0]),
        ("games/go9/playouts", "go", &[("size", 9)], s.playouts[1]),
        ("games/go19/playouts", "go", &[("size", 19)], s.playouts[2]),
    ];
    for (id, dir, params, n) in runs {
        if n == 0 || !wanted(id) {
            continue;
        }
        let mut session = bundled(dir, params);
        let reps = if n >= 10 { 5 } else { 3 };
        for r in 0..reps {
            let t = Instant::now();
            std::hint::black_box(playouts(&mut session, r * n, n));
            record(id, n, t.elapsed());
        }
    }
    for depth in 3..=s.perft.max(3) {
        let id = format!("games/chess/perft{depth}");
        if depth > s.perft || !wanted(&id) {
            continue;
        }
        time_perft(&id, depth, 1, if depth >= 4 { 3 } else { 5 });
    }
    // The deepest perft again as `flexrules perft` runs it by default: one thread per core.
    let id = format!("games/chess/perft{}-cores", s.perft);
    if s.perft >= 3 && cores() > 1 && wanted(&id) {
        time_perft(&id, s.perft, cores(), 3);
    }
}

/// Time chess perft(`depth`) from the start on `jobs` threads, `reps` times, under `id`.
fn time_perft(id: &str, depth: usize, jobs: usize, reps: usize) {
    let mut session = bundled("chess", &[]);
    for _ in 0..reps {
        let t = Instant::now();
        let perft = Match::around(&mut session, |m| {
            perft_on_threads(m, depth, jobs, &mut |_| {})
        });
        if let Some(f) = perft.failures.first() {
            panic!("chess perft({depth}) failed: {}", f.error.message);
        }
        std::hint::black_box(perft.counts);
        record(id, 1, t.elapsed());
    }
}

/// Min, median and max of the per-iteration times recorded under `id`.
fn spread(id: &str) -> Option<(f64, f64, f64)> {
    let samples = SAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    let mut v = samples.get(id)?.clone();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some((v[0], v[v.len() / 2], v[v.len() - 1]))
}

/// The threads `flexrules perft` runs on by default: one per core.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn games_summary() {
    let mut header = false;
    let mut head = || {
        if !std::mem::replace(&mut header, true) {
            println!();
            println!(
                "{:<30} {:>12} {:>12} {:>12}",
                "game", "min", "median", "max"
            );
        }
    };
    for (id, what) in [
        ("games/awele/playouts", "Awele playouts/s"),
        ("games/go9/playouts", "Go 9x9 playouts/s"),
        ("games/go19/playouts", "Go 19x19 playouts/s"),
    ] {
        if let Some((fast, mid, slow)) = spread(id) {
            head();
            // Rates: the slowest run gives the minimum.
            println!(
                "{:<30} {:>12.2} {:>12.2} {:>12.2}",
                what,
                1.0 / slow,
                1.0 / mid,
                1.0 / fast
            );
        }
    }
    for depth in 3..=9 {
        if let Some((fast, mid, slow)) = spread(&format!("games/chess/perft{depth}")) {
            head();
            println!(
                "{:<30} {:>12} {:>12} {:>12}",
                format!("chess perft({depth}) from the start"),
                show(fast),
                show(mid),
                show(slow)
            );
        }
        if let Some((fast, mid, slow)) = spread(&format!("games/chess/perft{depth}-cores")) {
            head();
            println!(
                "{:<30} {:>12} {:>12} {:>12}",
                format!("  the same on {} cores", cores()),
                show(fast),
                show(mid),
                show(slow)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Quick mode.

/// Every scenario timed a few times, without criterion; only the ids containing `filter`.
fn quick_all(s: &Sizes, micro: &mut Micro, lua: Option<&Lua>, filter: &str) {
    let wanted = |id: &str| id.contains(filter);
    quick_games(s, &wanted);
    if wanted("sends/") {
        let mut pp = PingPong::new();
        if wanted("sends/chain") {
            quick("sends/chain", 11, 1, || pp.chain(s.chain));
        }
        if wanted("sends/transaction") {
            quick("sends/transaction", 11, 20_000, || pp.tick());
        }
    }
    for n in s.worlds {
        let id = format!("checkpoint_rollback/{n}");
        if wanted(&id) {
            let mut ring = Ring::new(n);
            quick(&id, 11, 2_000, || ring.probe());
            ring.check();
        }
    }
    for (k, name) in PROGRAMS.iter().enumerate() {
        let ours = format!("micro/{name}/flexrules");
        let theirs = format!("micro/{name}/lua");
        if wanted(&ours) || wanted(&theirs) {
            cross_check(micro, lua, s, k);
        }
        // fib is short: more runs for a steadier median.
        let reps = if *name == "fib" { 7 } else { 3 };
        if wanted(&ours) {
            quick(&ours, reps, 1, || {
                std::hint::black_box(micro.run(k));
            });
        }
        if let Some(lua) = lua.filter(|_| wanted(&theirs)) {
            let arg = lua_arg(s, k);
            for _ in 0..5 {
                let (_, d) = lua.run(name, arg);
                record(&theirs, 1, d);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Summary.

fn show(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.3} s")
    } else if secs >= 1e-3 {
        format!("{:.3} ms", secs * 1e3)
    } else {
        format!("{:.3} µs", secs * 1e6)
    }
}

fn summary(s: &Sizes, lua: Option<&Lua>) {
    if SAMPLES.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
        return;
    }
    println!();
    println!("== flexrules runtime summary (median per iteration) ==");
    games_summary();
    if let Some(t) = median("sends/chain") {
        println!(
            "sends, chain of {} in one transaction: {} per chain, {:.2} M sends/s",
            s.chain,
            show(t),
            s.chain as f64 / t / 1e6
        );
    }
    if let Some((fast, t, slow)) = spread("sends/transaction") {
        println!(
            "sends, one per transaction:           {} per transaction, {:.3} M sends/s (min {}, max {})",
            show(t),
            1.0 / t / 1e6,
            show(fast),
            show(slow)
        );
    }
    let mut worlds = Vec::new();
    for n in s.worlds {
        if let Some((fast, t, slow)) = spread(&format!("checkpoint_rollback/{n}")) {
            println!(
                "checkpoint + update + rollback, {n:>6} entities: {} (min {}, max {})",
                show(t),
                show(fast),
                show(slow)
            );
            worlds.push((n, t));
        }
    }
    let steps: Vec<String> = worlds
        .windows(2)
        .map(|w| format!("x{:.2} from {} to {}", w[1].1 / w[0].1, w[0].0, w[1].0))
        .collect();
    if !steps.is_empty() {
        println!("  growth: {}", steps.join(", "));
    }
    let measured_lua = PROGRAMS
        .iter()
        .any(|p| median(&format!("micro/{p}/lua")).is_some());
    let startup = lua.filter(|_| measured_lua).map(|l| {
        let mut v: Vec<Duration> = (0..5).map(|_| l.startup()).collect();
        v.sort();
        v[2].as_secs_f64()
    });
    let mut header = false;
    for name in PROGRAMS {
        let Some(ours) = median(&format!("micro/{name}/flexrules")) else {
            continue;
        };
        if !header {
            header = true;
            println!();
            println!(
                "{:<7} {:>12} {:>12} {:>9} {:>22}",
                "program", "flexrules", "lua5.4", "ratio", "ratio (lua start-up out)"
            );
        }
        match (median(&format!("micro/{name}/lua")), startup) {
            (Some(theirs), Some(up)) => {
                let net = (theirs - up).max(1e-9);
                println!(
                    "{:<7} {:>12} {:>12} {:>8.1}x {:>21.1}x",
                    name,
                    show(ours),
                    show(theirs),
                    ours / theirs,
                    ours / net
                );
                // The spread of the ratio: our fastest against their slowest run, and
                // our slowest against their fastest.
                if let (Some((ofast, _, oslow)), Some((tfast, _, tslow))) = (
                    spread(&format!("micro/{name}/flexrules")),
                    spread(&format!("micro/{name}/lua")),
                ) {
                    println!(
                        "        min/median/max: flexrules {} / {} / {}, lua5.4 {} / {} / {}, ratio {:.1}x-{:.1}x",
                        show(ofast),
                        show(ours),
                        show(oslow),
                        show(tfast),
                        show(theirs),
                        show(tslow),
                        ofast / tslow,
                        oslow / tfast
                    );
                }
            }
            _ => println!("{:<7} {:>12} {:>12}", name, show(ours), "(skipped)"),
        }
    }
    if let Some(up) = startup {
        println!("(lua5.4 start-up on an empty script: {})", show(up));
    }
}

// ---------------------------------------------------------------------------------------

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    // As criterion decides: without `--bench` (`cargo test --benches`) or with `--test`,
    // only check that every scenario runs.
    let test = has("--test") || !has("--bench");
    let quick_mode = !test
        && (has("--quick")
            || std::env::var("FLEXRULES_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0"));
    let s = if test { SMOKE } else { FULL };
    let lua = Lua::find();
    let mut micro = Micro::new(&s);

    if quick_mode {
        let filter = args.iter().find(|a| !a.starts_with('-'));
        quick_all(
            &s,
            &mut micro,
            lua.as_ref(),
            filter.map_or("", String::as_str),
        );
    } else {
        let mut c = Criterion::default().configure_from_args();
        bench_sends(&mut c, &s);
        bench_checkpoints(&mut c, &s);
        bench_micro(&mut c, &s, &mut micro, lua.as_ref());
        c.final_summary();
    }
    if !test {
        summary(&s, lua.as_ref());
    }
}
