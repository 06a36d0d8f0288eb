//! The machine bench: the interpreter's speed goals as one table, every figure timed on
//! whole processes of the `flexrules` binary (one thread), each peer run in the same
//! invocation where it is installed.
//!
//! ```sh
//! cargo bench --bench machine                         # 5 runs of each row
//! cargo bench --bench machine -- --runs 3 --quick     # fewer runs, fewer games per run
//! cargo bench --bench machine -- --only chess         # only rows whose name contains it
//! cargo bench --bench machine -- --callgrind          # callgrind instruction counts
//! cargo bench --bench machine -- --callgrind --base /tmp/old-flexrules
//! cargo bench --bench machine -- --base /tmp/old-flexrules   # timed, runs interleaved
//! cargo bench --bench machine -- --tier fast          # flexrules run with --tier fast
//! cargo bench --bench machine -- --callgrind --tier fast --base target/release/flexrules \
//!     --base-tier interpreter                         # one binary, its two tiers
//! ```
//!
//! Rows (the commands run in the crate's directory; `k` is the games per run):
//!
//! - Awele random playouts: `flexrules playout games/awele -n k --seed 0 --jobs 1`, rate
//!   = k / wall seconds of the process. Peer: RG on its Oware (below).
//! - chess perft(4): `flexrules perft games/chess 4 --jobs 1`, seconds. Peer: RG's `perf`.
//! - chess random playouts: `flexrules playout games/chess -n k --seed 0 --jobs 1`. Peer:
//!   compiled RBG, a recorded constant.
//! - Go 19×19 random playouts: `flexrules playout games/go --param size=19 -n k --seed 0
//!   --jobs 1`. Peer: compiled RBG, a recorded constant.
//! - count, fib, dict: `flexrules run benches/machine/<p>.fr --param n=<arg>` against
//!   `lua5.4 benches/lua/<p>.lua <arg>`, seconds; both must print the same result.
//!
//! Nothing is subtracted: each side's start-up (an empty program) is printed on a line of
//! its own. Runs alternate between flexrules and the measured peer.
//!
//! Peers. Lua is `lua5.4` on the `PATH` or the program `FLEXRULES_LUA` names. RG (Regular
//! Games, a Rust interpreter; its command-line program is `cli`, built in the repository's
//! `interpreter_rust`) is measured when `FLEXRULES_RG` names its binary: `<rg> run
//! [flags] <games>/hrg/oware.hrg <plays>` and `<rg> perf [flags] <games>/hrg/chess.hrg 4`,
//! where `<games>` is `FLEXRULES_RG_GAMES` (default: the `games` directory of the first
//! ancestor of the binary that has `games/hrg/oware.hrg`) and the flags are
//! `FLEXRULES_RG_FLAGS` (default `--enable-all-optimizations`). `FLEXRULES_RG_AWELE` and
//! `FLEXRULES_RG_PERFT` replace either command whole (words split on spaces, `{n}` replaced
//! by the plays). Without `FLEXRULES_RG` the RG rows show the figures recorded when the
//! goals were set, marked "recorded".
//!
//! `--callgrind` counts instructions (callgrind's total `Ir`) of Awele 200 playouts, chess
//! perft(3) and one Go 19×19 playout, the instructions of one rule (a law or side-effect
//! of one `if`, from `benches/machine/rules.fr`, its send's share included), of one send
//! (to a behaviour that does nothing, `benches/machine/send.fr`), of one ply
//! of a playout around a move that costs next to nothing (`benches/machine/ply.fr`), and the
//! micro-programs' instructions a unit (a turn, a call, a count) against Lua's; with
//! `--base <binary>` the same on that binary in the same invocation, with the change,
//! after checking that both printed the same output (timings masked).
//!
//! `--base <binary>` without `--callgrind` times the two binaries instead of flexrules and
//! its peers: each row's flexrules command run by the base binary and by this one in
//! turn, `--runs` times each (a shared host's load drifts; runs taken in turn see the
//! same drift), both outputs checked as the table checks them, and the change of the
//! medians printed (`--base-tier` gives the base binary's commands a tier).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// RG's figures when the goals were set (Awele playouts/s, chess perft(4) seconds).
const RG_AWELE_RECORDED: f64 = 90.0;
const RG_PERFT4_RECORDED: f64 = 5.83;
/// Compiled RBG's figures when the goals were set (playouts/s).
const RBG_CHESS_RECORDED: f64 = 957.0;
const RBG_GO19_RECORDED: f64 = 357.0;
/// Chess perft(4) from the start.
const PERFT4_LEAVES: &str = "197281";

fn main() {
    let opts = Options::parse();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let flexrules = PathBuf::from(env!("CARGO_BIN_EXE_flexrules"));
    if opts.callgrind {
        callgrind::run(root, &flexrules, &opts, Lua::find().as_ref());
        return;
    }
    if let Some(base) = &opts.base {
        let rows: Vec<Compared> = workloads(&opts, root, None, None)
            .into_iter()
            .filter(|w| w.name.contains(&opts.only))
            .map(|w| compare(&w, base, &opts, root))
            .collect();
        print_comparison(&opts, base, &flexrules, &rows);
        return;
    }
    let lua = Lua::find();
    let rg = Rg::find();
    let mut rows = Vec::new();
    for mut w in workloads(&opts, root, lua.as_ref(), rg.as_ref()) {
        if !w.name.contains(&opts.only) {
            continue;
        }
        add_tier(&mut w.ours.argv, &opts.tier);
        rows.push(measure(&w, opts.runs, root));
    }
    print_table(&opts, &flexrules, &rows);
    print_startup(&opts, root, &flexrules, lua.as_ref(), rg.as_ref());
}

/// Stop the bench with a message.
fn fail(msg: &str) -> ! {
    eprintln!("machine bench: {msg}");
    std::process::exit(1);
}

struct Options {
    runs: usize,
    quick: bool,
    callgrind: bool,
    base: Option<PathBuf>,
    only: String,
    /// `--tier` given to every flexrules command (to the current binary's only, with
    /// `--base`).
    tier: Option<String>,
    /// With `--base`: `--tier` given to the base binary's commands.
    base_tier: Option<String>,
}

impl Options {
    fn parse() -> Options {
        let mut o = Options {
            runs: 5,
            quick: false,
            callgrind: false,
            base: None,
            only: String::new(),
            tier: None,
            base_tier: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                // Cargo passes `--bench` to every bench binary.
                "--bench" => {}
                "--quick" => o.quick = true,
                "--callgrind" => o.callgrind = true,
                "--runs" => {
                    o.runs = args
                        .next()
                        .and_then(|n| n.parse().ok())
                        .filter(|&n| n > 0)
                        .unwrap_or_else(|| fail("--runs takes a number of runs, at least 1"))
                }
                "--base" => {
                    let p = args
                        .next()
                        .unwrap_or_else(|| fail("--base takes the path of a flexrules binary"));
                    o.base = Some(PathBuf::from(p));
                }
                "--tier" => {
                    o.tier = Some(
                        args.next()
                            .unwrap_or_else(|| fail("--tier takes interpreter, fast or both")),
                    )
                }
                "--base-tier" => {
                    o.base_tier = Some(
                        args.next()
                            .unwrap_or_else(|| fail("--base-tier takes interpreter, fast or both")),
                    )
                }
                "--only" => {
                    o.only = args
                        .next()
                        .unwrap_or_else(|| fail("--only takes part of a workload's name"))
                }
                other => fail(&format!(
                    "unknown option `{other}` (options: --runs N, --quick, --callgrind, \
                     --base <binary>, --only <text>, --tier <tier>, --base-tier <tier>)"
                )),
            }
        }
        o
    }
}

/// What a row's figure is: a rate of games per second, or the seconds of one process.
#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Rate,
    Seconds,
}

/// A command timed as a whole process; `games` is what a rate counts.
#[derive(Clone)]
struct Job {
    argv: Vec<String>,
    games: f64,
    /// What its standard output must contain, or what it must print as its result.
    expect: Expect,
}

#[derive(Clone)]
enum Expect {
    Contains(String),
    /// `flexrules run`'s one `print:` line, or Lua's output.
    Result(String),
    Anything,
}

enum Peer {
    Measured { label: String, job: Job },
    Recorded { label: &'static str, value: f64 },
    Missing(String),
}

/// How a row's goal is written.
enum Goal {
    /// flexrules at least this many times as fast as the peer.
    TimesPeer(f64),
    /// flexrules at least this rate.
    Rate(f64),
    /// flexrules' time at most this many times the peer's.
    TimeOfPeer(f64),
}

struct Workload {
    name: String,
    unit: Unit,
    ours: Job,
    peer: Peer,
    goal: Goal,
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn workloads(opts: &Options, root: &Path, lua: Option<&Lua>, rg: Option<&Rg>) -> Vec<Workload> {
    let fr = env!("CARGO_BIN_EXE_flexrules").to_string();
    let (awele, chess, go, rg_awele) = if opts.quick {
        (500, 10, 10, 20)
    } else {
        (2000, 40, 40, 100)
    };
    let playout = |game: &str, k: u32| Job {
        argv: [
            vec![fr.clone()],
            words(&format!("playout {game} -n {k} --seed 0 --jobs 1")),
        ]
        .concat(),
        games: k as f64,
        expect: Expect::Contains(format!("{k} games")),
    };
    let rg_or = |job: Option<Job>, value: f64| match job {
        Some(job) => Peer::Measured {
            label: "RG".into(),
            job,
        },
        None => Peer::Recorded { label: "RG", value },
    };
    let mut v = vec![
        Workload {
            name: "Awele random playouts".into(),
            unit: Unit::Rate,
            ours: playout("games/awele", awele),
            peer: rg_or(rg.map(|r| r.awele(rg_awele)), RG_AWELE_RECORDED),
            goal: Goal::TimesPeer(50.0),
        },
        Workload {
            name: "chess perft(4)".into(),
            unit: Unit::Seconds,
            ours: Job {
                argv: [vec![fr.clone()], words("perft games/chess 4 --jobs 1")].concat(),
                games: 1.0,
                expect: Expect::Contains(PERFT4_LEAVES.into()),
            },
            peer: rg_or(rg.map(Rg::perft), RG_PERFT4_RECORDED),
            goal: Goal::TimesPeer(10.0),
        },
        Workload {
            name: "chess random playouts".into(),
            unit: Unit::Rate,
            ours: playout("games/chess", chess),
            peer: Peer::Recorded {
                label: "compiled RBG",
                value: RBG_CHESS_RECORDED,
            },
            goal: Goal::Rate(100.0),
        },
        Workload {
            name: "Go 19x19 random playouts".into(),
            unit: Unit::Rate,
            ours: playout("games/go --param size=19", go),
            peer: Peer::Recorded {
                label: "compiled RBG",
                value: RBG_GO19_RECORDED,
            },
            goal: Goal::Rate(180.0),
        },
    ];
    for (p, arg, result) in PROGRAMS {
        let ours = Job {
            argv: vec![
                fr.clone(),
                "run".into(),
                format!("benches/machine/{p}.fr"),
                "--param".into(),
                format!("n={arg}"),
            ],
            games: 1.0,
            expect: Expect::Result(result.into()),
        };
        let peer = match lua {
            Some(l) => Peer::Measured {
                label: l.exe.clone(),
                job: Job {
                    argv: vec![
                        l.exe.clone(),
                        root.join(format!("benches/lua/{p}.lua"))
                            .display()
                            .to_string(),
                        arg.to_string(),
                    ],
                    games: 1.0,
                    expect: Expect::Result(result.into()),
                },
            },
            None => Peer::Missing(format!("{} not installed", Lua::name())),
        };
        v.push(Workload {
            name: format!("{p}({arg})"),
            unit: Unit::Seconds,
            ours,
            peer,
            goal: Goal::TimeOfPeer(1.5),
        });
    }
    v
}

/// The micro-programs: name, argument, and the result both sides print.
const PROGRAMS: [(&str, u32, &str); 3] = [
    ("count", 10_000_000, "10000000"),
    ("fib", 27, "196418"),
    ("dict", 1_000_000, "1000000"),
];

/// Run a command to its end; its standard output and wall time. Fails the bench if it
/// cannot start, fails, or does not print what it must.
fn run_job(job: &Job, root: &Path) -> (String, Duration) {
    let t = Instant::now();
    let out = Command::new(&job.argv[0])
        .args(&job.argv[1..])
        .current_dir(root)
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run `{}`: {e}", job.argv.join(" "))));
    let wall = t.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        fail(&format!(
            "`{}` failed ({}):\n{stdout}{}",
            job.argv.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let ok = match &job.expect {
        Expect::Contains(s) => stdout.contains(s.as_str()),
        Expect::Result(r) => result_of(&stdout) == *r,
        Expect::Anything => true,
    };
    if !ok {
        let want = match &job.expect {
            Expect::Contains(s) => format!("output containing `{s}`"),
            Expect::Result(r) => format!("the result {r}"),
            Expect::Anything => unreachable!(),
        };
        fail(&format!(
            "`{}` did not print {want}; it printed:\n{stdout}",
            job.argv.join(" ")
        ));
    }
    (stdout, wall)
}

/// The printed result: the value of `flexrules run`'s `print:` line, or the whole output
/// (Lua's).
fn result_of(stdout: &str) -> String {
    let printed: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("print: "))
        .collect();
    match printed.as_slice() {
        [one] => one.trim().to_string(),
        _ => stdout.trim().to_string(),
    }
}

/// A row's figures, in its unit, one per run.
struct Measured {
    name: String,
    unit: Unit,
    ours: Vec<f64>,
    peer: PeerFigure,
    goal: String,
    /// The ratio of the medians, as the goal is written, and whether the goal is met.
    ratio: Option<f64>,
    met: Option<bool>,
}

enum PeerFigure {
    Measured(String, Vec<f64>),
    Recorded(&'static str, f64),
    Missing(String),
}

fn figure(unit: Unit, job: &Job, wall: Duration) -> f64 {
    match unit {
        Unit::Rate => job.games / wall.as_secs_f64(),
        Unit::Seconds => wall.as_secs_f64(),
    }
}

fn measure(w: &Workload, runs: usize, root: &Path) -> Measured {
    eprintln!("machine bench: {} ...", w.name);
    // One untimed run of each side first: it checks the output (so Lua and flexrules
    // agree before anything is timed) and warms the file cache.
    let (ours_out, _) = run_job(&w.ours, root);
    if let Peer::Measured { job, label } = &w.peer {
        let (theirs, _) = run_job(job, root);
        if let (Expect::Result(_), Expect::Result(_)) = (&w.ours.expect, &job.expect)
            && result_of(&ours_out) != result_of(&theirs)
        {
            fail(&format!(
                "{}: flexrules printed {} and {label} printed {}",
                w.name,
                result_of(&ours_out),
                result_of(&theirs)
            ));
        }
        if w.name.starts_with("chess perft") && !theirs.contains(PERFT4_LEAVES) {
            eprintln!(
                "note: {label}'s perft(4) did not print {PERFT4_LEAVES} leaves:\n{}",
                theirs.trim()
            );
        }
    }
    let mut ours = Vec::new();
    let mut peer = Vec::new();
    for _ in 0..runs {
        let (_, d) = run_job(&w.ours, root);
        ours.push(figure(w.unit, &w.ours, d));
        if let Peer::Measured { job, .. } = &w.peer {
            let (_, d) = run_job(job, root);
            peer.push(figure(w.unit, job, d));
        }
    }
    let peer = match &w.peer {
        Peer::Measured { label, .. } => PeerFigure::Measured(label.clone(), peer),
        Peer::Recorded { label, value } => PeerFigure::Recorded(label, *value),
        Peer::Missing(why) => PeerFigure::Missing(why.clone()),
    };
    let m = median(&ours);
    let peer_median = match &peer {
        PeerFigure::Measured(_, v) => Some(median(v)),
        PeerFigure::Recorded(_, x) => Some(*x),
        PeerFigure::Missing(_) => None,
    };
    // Speed ratios are flexrules over the peer whatever the unit; the programs' goal is
    // written as flexrules' time over Lua's.
    let speed = peer_median.map(|p| match w.unit {
        Unit::Rate => m / p,
        Unit::Seconds => p / m,
    });
    let (goal, ratio, met) = match w.goal {
        Goal::TimesPeer(x) => (format!(">= {x}x peer"), speed, speed.map(|s| s >= x)),
        Goal::Rate(x) => (format!(">= {}/s", fmt_num(x)), speed, Some(m >= x)),
        Goal::TimeOfPeer(x) => {
            let r = speed.map(|s| 1.0 / s);
            (format!("<= {x}x peer time"), r, r.map(|r| r <= x))
        }
    };
    Measured {
        name: w.name.clone(),
        unit: w.unit,
        ours,
        peer,
        goal,
        ratio,
        met,
    }
}

/// A row timed on two binaries in turn: its figures on the base binary and on this one.
struct Compared {
    name: String,
    unit: Unit,
    base: Vec<f64>,
    ours: Vec<f64>,
}

/// Time workload `w`'s flexrules command on `base` and on this binary in turn.
fn compare(w: &Workload, base: &Path, opts: &Options, root: &Path) -> Compared {
    eprintln!("machine bench: {} ...", w.name);
    let mut ours = w.ours.clone();
    add_tier(&mut ours.argv, &opts.tier);
    let mut theirs = w.ours.clone();
    add_tier(&mut theirs.argv, &opts.base_tier);
    theirs.argv[0] = base.display().to_string();
    // An untimed run of each first: both outputs checked, the file cache warm.
    run_job(&theirs, root);
    run_job(&ours, root);
    let (mut b, mut o) = (Vec::new(), Vec::new());
    for _ in 0..opts.runs {
        let (_, d) = run_job(&theirs, root);
        b.push(figure(w.unit, &theirs, d));
        let (_, d) = run_job(&ours, root);
        o.push(figure(w.unit, &ours, d));
    }
    Compared {
        name: w.name.clone(),
        unit: w.unit,
        base: b,
        ours: o,
    }
}

/// `--tier <tier>` added to a flexrules command, when a tier is given.
fn add_tier(argv: &mut Vec<String>, tier: &Option<String>) {
    if let Some(t) = tier {
        argv.extend(["--tier".to_string(), t.clone()]);
    }
}

fn print_comparison(opts: &Options, base: &Path, flexrules: &Path, rows: &[Compared]) {
    println!();
    println!(
        "== machine bench: two binaries, whole processes, one thread, {} run{} each, in turn ==",
        opts.runs,
        if opts.runs == 1 { "" } else { "s" }
    );
    println!(
        "after:  {} (tier: {})",
        flexrules.display(),
        tier_name(&opts.tier)
    );
    println!(
        "before: {} (tier: {})",
        base.display(),
        tier_name(&opts.base_tier)
    );
    println!();
    println!(
        "{:<28} {:<30} {:<30} {:>8}",
        "workload", "before min / median / max", "after min / median / max", "faster"
    );
    for r in rows {
        // Faster as a speed: rates compared as they are, times inverted.
        let (b, a) = (median(&r.base), median(&r.ours));
        let speedup = match r.unit {
            Unit::Rate => a / b,
            Unit::Seconds => b / a,
        };
        println!(
            "{:<28} {:<30} {:<30} {:>+7.1}%",
            r.name,
            min_med_max(&r.base, r.unit),
            min_med_max(&r.ours, r.unit),
            (speedup - 1.0) * 100.0
        );
    }
    println!();
    println!(
        "faster: the after binary's speed over the before one's, of the medians, less one \
         (rates as they are, times inverted)."
    );
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn min_med_max(v: &[f64], unit: Unit) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "{} / {} / {}",
        show(lo, unit),
        show(median(v), unit),
        show(hi, unit)
    )
}

/// A figure in its unit: rates as whole numbers with thousands separated, seconds to the
/// millisecond.
fn show(x: f64, unit: Unit) -> String {
    match unit {
        Unit::Rate => format!("{}/s", fmt_num(x)),
        Unit::Seconds => format!("{x:.3} s"),
    }
}

fn fmt_num(x: f64) -> String {
    if x < 100.0 {
        return format!("{x:.1}");
    }
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The tier a `--tier` option names, as the tables print it (the binary's default when
/// none is given).
fn tier_name(tier: &Option<String>) -> &str {
    tier.as_deref()
        .unwrap_or("the binary's default: fast with machine code, else interpreter")
}

fn print_table(opts: &Options, flexrules: &Path, rows: &[Measured]) {
    println!();
    println!(
        "== machine bench: whole processes, one thread, {} run{} each{} ==",
        opts.runs,
        if opts.runs == 1 { "" } else { "s" },
        if opts.quick { ", quick" } else { "" }
    );
    println!(
        "flexrules: {} (tier: {})",
        flexrules.display(),
        tier_name(&opts.tier)
    );
    println!();
    println!(
        "{:<28} {:<30} {:<42} {:>7}  {:<20} met",
        "workload", "flexrules min / median / max", "peer", "ratio", "goal"
    );
    for r in rows {
        let peer = match &r.peer {
            PeerFigure::Measured(label, v) => format!("{label} {}", min_med_max(v, r.unit)),
            PeerFigure::Recorded(label, x) => format!("{label} {} (recorded)", show(*x, r.unit)),
            PeerFigure::Missing(why) => why.clone(),
        };
        let ratio = r.ratio.map_or("-".to_string(), |x| format!("{x:.2}x"));
        let met = match r.met {
            Some(true) => "yes",
            Some(false) => "no",
            None => "-",
        };
        println!(
            "{:<28} {:<30} {:<42} {:>7}  {:<20} {met}",
            r.name,
            min_med_max(&r.ours, r.unit),
            peer,
            ratio,
            r.goal
        );
    }
    println!();
    println!(
        "ratio: of the medians; for the games flexrules' speed over the peer's (higher is \
         faster), for the programs flexrules' time over the peer's (lower is faster)."
    );
}

/// Start-up of each side: the median wall time of an empty program.
fn print_startup(
    opts: &Options,
    root: &Path,
    flexrules: &Path,
    lua: Option<&Lua>,
    rg: Option<&Rg>,
) {
    let time = |argv: Vec<String>| {
        let job = Job {
            argv,
            games: 1.0,
            expect: Expect::Anything,
        };
        let v: Vec<f64> = (0..opts.runs.max(3))
            .map(|_| run_job(&job, root).1.as_secs_f64())
            .collect();
        min_med_max(&v, Unit::Seconds)
    };
    println!(
        "start-up, flexrules run benches/machine/empty.fr: {}",
        time(vec![
            flexrules.display().to_string(),
            "run".into(),
            "benches/machine/empty.fr".into()
        ])
    );
    match lua {
        Some(l) => println!(
            "start-up, {} -e \"\": {}",
            l.exe,
            time(vec![l.exe.clone(), "-e".into(), String::new()])
        ),
        None => println!("start-up, {}: not installed", Lua::name()),
    }
    if let Some(rg) = rg {
        println!(
            "start-up, RG --version: {}",
            time(vec![rg.exe.clone(), "--version".into()])
        );
    }
}

/// The Lua interpreter, if there is one.
struct Lua {
    exe: String,
}

impl Lua {
    fn name() -> String {
        std::env::var("FLEXRULES_LUA").unwrap_or_else(|_| "lua5.4".to_string())
    }

    fn find() -> Option<Lua> {
        let exe = Lua::name();
        let found = Command::new(&exe)
            .arg("-v")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            eprintln!(
                "note: `{exe}` is not installed: the programs' rows have no peer (install it \
                 with `apt-get install lua5.4`, or set FLEXRULES_LUA)"
            );
        }
        found.then_some(Lua { exe })
    }
}

/// RG, when `FLEXRULES_RG` names its binary.
struct Rg {
    exe: String,
    games: Option<PathBuf>,
    flags: Vec<String>,
}

impl Rg {
    fn find() -> Option<Rg> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let exe = var("FLEXRULES_RG")?;
        if !Path::new(&exe).is_file() {
            fail(&format!("FLEXRULES_RG names `{exe}`, which is not a file"));
        }
        let games = var("FLEXRULES_RG_GAMES").map(PathBuf::from).or_else(|| {
            Path::new(&exe)
                .ancestors()
                .map(|a| a.join("games"))
                .find(|g| g.join("hrg/oware.hrg").is_file())
        });
        let flags = std::env::var("FLEXRULES_RG_FLAGS")
            .map(|f| words(&f))
            .unwrap_or_else(|_| vec!["--enable-all-optimizations".into()]);
        Some(Rg { exe, games, flags })
    }

    /// The command of a row: the template in `var` if set, else `<rg> <verb> <flags> <game>
    /// <arg>`.
    fn command(&self, var: &str, verb: &str, game: &str, arg: &str) -> Vec<String> {
        if let Ok(t) = std::env::var(var) {
            return words(&t.replace("{n}", arg));
        }
        let Some(games) = &self.games else {
            fail(&format!(
                "FLEXRULES_RG is set but RG's games were not found: set FLEXRULES_RG_GAMES to \
                 the `games` directory of its repository (with hrg/oware.hrg and \
                 hrg/chess.hrg), or the whole command in {var}"
            ));
        };
        let file = games.join(game);
        if !file.is_file() {
            fail(&format!("RG's game `{}` is not a file", file.display()));
        }
        [
            vec![self.exe.clone(), verb.into()],
            self.flags.clone(),
            vec![file.display().to_string(), arg.into()],
        ]
        .concat()
    }

    fn awele(&self, plays: u32) -> Job {
        Job {
            argv: self.command(
                "FLEXRULES_RG_AWELE",
                "run",
                "hrg/oware.hrg",
                &plays.to_string(),
            ),
            games: plays as f64,
            expect: Expect::Anything,
        }
    }

    fn perft(&self) -> Job {
        Job {
            argv: self.command("FLEXRULES_RG_PERFT", "perf", "hrg/chess.hrg", "4"),
            games: 1.0,
            expect: Expect::Anything,
        }
    }
}

mod callgrind {
    //! Instruction counts of three workloads, one rule, one send, one ply and the
    //! micro-programs, before and after.

    use super::{Expect, Job, Lua, fail, run_job};
    use std::path::Path;
    use std::process::Command;

    const WORKLOADS: [(&str, &str); 3] = [
        (
            "Awele, 200 playouts",
            "playout games/awele -n 200 --seed 1 --jobs 1",
        ),
        ("chess perft(3)", "perft games/chess 3 --jobs 1"),
        (
            "Go 19x19, 1 playout",
            "playout games/go --param size=19 -n 1 --seed 1 --jobs 1",
        ),
    ];

    pub fn run(root: &Path, current: &Path, opts: &super::Options, lua: Option<&Lua>) {
        let (base, only) = (opts.base.as_deref(), opts.only.as_str());
        let with = |args: &str, tier: &Option<String>| match tier {
            Some(t) => format!("{args} --tier {t}"),
            None => args.to_string(),
        };
        let found = Command::new("valgrind")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            fail("--callgrind needs valgrind (apt-get install valgrind)");
        }
        if let Some(b) = base
            && !b.is_file()
        {
            fail(&format!("--base `{}` is not a file", b.display()));
        }
        println!();
        println!("== callgrind: total instructions (Ir), one thread ==");
        println!(
            "after:  {} (tier: {})",
            current.display(),
            super::tier_name(&opts.tier)
        );
        if let Some(b) = base {
            println!(
                "before: {} (tier: {})",
                b.display(),
                super::tier_name(&opts.base_tier)
            );
        }
        println!();
        match base {
            Some(_) => println!(
                "{:<22} {:>16} {:>16} {:>9}",
                "workload", "before", "after", "change"
            ),
            None => println!("{:<22} {:>16}", "workload", "Ir"),
        }
        for (name, args) in WORKLOADS {
            if !name.contains(only) {
                continue;
            }
            eprintln!("callgrind: {name} ...");
            let (after_out, after) = count(root, current, &with(args, &opts.tier));
            match base {
                None => println!("{name:<22} {:>16}", group(after)),
                Some(b) => {
                    let (before_out, before) = count(root, b, &with(args, &opts.base_tier));
                    if mask(&before_out) != mask(&after_out) {
                        fail(&format!(
                            "{name}: the two binaries printed different output\n\
                             before:\n{before_out}\nafter:\n{after_out}"
                        ));
                    }
                    let change = (after as f64 - before as f64) / before as f64 * 100.0;
                    println!(
                        "{name:<22} {:>16} {:>16} {:>+8.2}%",
                        group(before),
                        group(after),
                        change
                    );
                }
            }
        }
        for probe in PROBES.iter().filter(|p| p.name.contains(only)) {
            eprintln!("callgrind: {} ...", probe.name);
            let after = probe_count(root, current, probe, &|a| with(a, &opts.tier));
            match base {
                None => println!("{:<22} {:>16.1}", probe.name, after),
                Some(b) => {
                    let before = probe_count(root, b, probe, &|a| with(a, &opts.base_tier));
                    println!(
                        "{:<22} {:>16.1} {:>16.1} {:>+8.2}%",
                        probe.name,
                        before,
                        after,
                        (after - before) / before * 100.0
                    );
                }
            }
        }
        programs(root, current, opts, lua, &with);
        println!();
        println!("commands: flexrules <args> under valgrind --tool=callgrind:");
        for (name, args) in WORKLOADS {
            println!("  {name}: {args}");
        }
        for probe in &PROBES {
            println!(
                "  {}: ({} minus {}) / {}",
                probe.name, probe.many, probe.none, probe.units
            );
        }
        println!(
            "  programs: (run benches/machine/<p>.fr --param n=<n> minus n=0) / units, and \
             (<lua> benches/lua/<p>.lua <n> minus 0) / units"
        );
    }

    /// The micro-programs at smaller arguments than the table's (callgrind runs about
    /// fifty times slower): the program, its argument, and what a unit of it is.
    const PROGRAMS: [(&str, u32, &str); 3] = [
        ("count", 1_000_000, "turn"),
        ("fib", 20, "call"),
        ("dict", 300_000, "count"),
    ];

    /// The units program `p` runs at argument `n`: the loop's turns, `fib`'s calls, the
    /// dictionary's counts.
    fn units(p: &str, n: u32) -> u64 {
        fn calls(n: u32) -> u64 {
            if n < 2 {
                1
            } else {
                1 + calls(n - 1) + calls(n - 2)
            }
        }
        match p {
            "fib" => calls(n),
            _ => u64::from(n),
        }
    }

    /// What program `p` prints at argument `n`: `fib`'s number, the others' count.
    fn result(p: &str, n: u32) -> u64 {
        match p {
            "fib" => (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0,
            _ => u64::from(n),
        }
    }

    /// The programs' rows: instructions a unit, on each binary and on Lua (each its run
    /// at `n` less its run at 0, so that start-up and loading are counted out), and the
    /// current binary's over Lua's.
    fn programs(
        root: &Path,
        current: &Path,
        opts: &super::Options,
        lua: Option<&Lua>,
        with: &dyn Fn(&str, &Option<String>) -> String,
    ) {
        let rows: Vec<_> = PROGRAMS
            .iter()
            .filter(|(p, n, _)| format!("{p}({n})").contains(opts.only.as_str()))
            .collect();
        if rows.is_empty() {
            return;
        }
        let peer = lua.map_or_else(|| "Lua (none)".to_string(), |l| l.exe.clone());
        println!();
        match opts.base {
            Some(_) => println!(
                "{:<22} {:>10} {:>10} {:>9} {:>10} {:>9}",
                "program, a unit", "before", "after", "change", peer, "over it"
            ),
            None => println!(
                "{:<22} {:>10} {:>10} {:>9}",
                "program, a unit", "flexrules", peer, "over it"
            ),
        }
        for &&(p, n, unit) in &rows {
            let name = format!("{p}({n})");
            eprintln!("callgrind: {name} ...");
            let fr = |binary: &Path, tier: &Option<String>| {
                let run = |arg: u32| {
                    let args = with(&format!("run benches/machine/{p}.fr --param n={arg}"), tier);
                    count(root, binary, &args)
                };
                let ((out, many), (_, none)) = (run(n), run(0));
                let want = format!("print: {}", result(p, n));
                if !out.contains(&want) {
                    fail(&format!("{name}: expected `{want}`, got:\n{out}"));
                }
                (out, per_unit(many, none, units(p, n)))
            };
            let (after_out, after) = fr(current, &opts.tier);
            let on_lua = lua.map(|l| {
                let script = root.join(format!("benches/lua/{p}.lua"));
                let run = |arg: u32| {
                    count(
                        root,
                        Path::new(&l.exe),
                        &format!("{} {arg}", script.display()),
                    )
                    .1
                };
                per_unit(run(n), run(0), units(p, n))
            });
            let (lua_cell, ratio) = match on_lua {
                Some(x) => (format!("{x:.1}"), format!("{:.2}x", after / x)),
                None => ("-".to_string(), "-".to_string()),
            };
            let label = format!("{name}, a {unit}");
            match opts.base.as_deref() {
                None => println!("{label:<22} {after:>10.1} {lua_cell:>10} {ratio:>9}"),
                Some(b) => {
                    let (before_out, before) = fr(b, &opts.base_tier);
                    if mask(&before_out) != mask(&after_out) {
                        fail(&format!(
                            "{name}: the two binaries printed different output\n\
                             before:\n{before_out}\nafter:\n{after_out}"
                        ));
                    }
                    println!(
                        "{label:<22} {before:>10.1} {after:>10.1} {:>+8.2}% {lua_cell:>10} {ratio:>9}",
                        (after - before) / before * 100.0
                    );
                }
            }
        }
    }

    /// Instructions a unit: the run of `units` less the run of none, over `units`.
    fn per_unit(many: u64, none: u64, units: u64) -> f64 {
        (many as f64 - none as f64) / units as f64
    }

    /// A row of instructions a unit: a run that does `units` of something and a run that
    /// does none, the difference over `units` (start-up, loading and what both runs share
    /// counted out by the difference).
    struct Probe {
        name: &'static str,
        /// The command that does `units` of it, and what its output must contain.
        many: &'static str,
        expect: &'static str,
        /// The same command doing none.
        none: &'static str,
        units: u64,
    }

    /// One rule: 2,000 sends, each passing sixteen bodies (benches/machine/rules.fr: ten
    /// laws, the behaviour, five side-effects), the sending loop's own turn being a few
    /// instructions of the hundreds a send costs.
    const RULE: Probe = Probe {
        name: "one rule",
        many: "run benches/machine/rules.fr --param n=2000",
        expect: "print: 2000",
        none: "run benches/machine/rules.fr --param n=0",
        units: 2000 * 16,
    };

    /// One ply of a playout around a move that costs next to nothing
    /// (benches/machine/ply.fr): 20 playouts of 1,001 moves less 20 of one.
    const PLY: Probe = Probe {
        name: "one ply",
        many: "playout benches/machine/ply.fr --param plies=1001 -n 20 --seed 0 --jobs 1",
        expect: "20 games, mean length 1001.0 moves",
        none: "playout benches/machine/ply.fr --param plies=1 -n 20 --seed 0 --jobs 1",
        units: 20 * 1000,
    };

    /// One send from a running body to an entity whose behaviour does nothing, with no
    /// law or side-effect (benches/machine/send.fr): 2,000 sends less none, the sending
    /// loop's own turn (a few instructions) included.
    const SEND: Probe = Probe {
        name: "one send",
        many: "run benches/machine/send.fr --param n=2000",
        expect: "print: 2000",
        none: "run benches/machine/send.fr --param n=0",
        units: 2000,
    };

    /// The probes' rows, after the workloads'.
    const PROBES: [Probe; 3] = [RULE, SEND, PLY];

    /// Instructions a unit of `probe` on `binary`.
    fn probe_count(
        root: &Path,
        binary: &Path,
        probe: &Probe,
        with: &dyn Fn(&str) -> String,
    ) -> f64 {
        let (out, many) = count(root, binary, &with(probe.many));
        if !out.contains(probe.expect) {
            fail(&format!(
                "{}: expected `{}`, got:\n{out}",
                probe.name, probe.expect
            ));
        }
        let (_, none) = count(root, binary, &with(probe.none));
        per_unit(many, none, probe.units)
    }

    /// Run `binary args` under callgrind; its standard output and the total `Ir`.
    fn count(root: &Path, binary: &Path, args: &str) -> (String, u64) {
        let out_file = std::env::temp_dir().join(format!(
            "flexrules-machine-{}.callgrind",
            std::process::id()
        ));
        let mut argv = vec![
            "valgrind".to_string(),
            "--tool=callgrind".into(),
            format!("--callgrind-out-file={}", out_file.display()),
            binary.display().to_string(),
        ];
        argv.extend(super::words(args));
        let job = Job {
            argv,
            games: 1.0,
            expect: Expect::Anything,
        };
        // The total is the `summary:` line of callgrind's output file.
        let (stdout, _) = run_job(&job, root);
        let data = std::fs::read_to_string(&out_file).unwrap_or_else(|e| {
            fail(&format!("reading {}: {e}", out_file.display()));
        });
        let _ = std::fs::remove_file(&out_file);
        let total = data
            .lines()
            .find_map(|l| {
                l.strip_prefix("summary:")
                    .or_else(|| l.strip_prefix("totals:"))
            })
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| fail("callgrind's output has no `summary:` line"));
        (stdout, total)
    }

    /// The output with its timings masked: the number before `playouts/s` and a
    /// parenthesised `(<seconds> s)`.
    pub fn mask(out: &str) -> String {
        out.lines()
            .map(|line| {
                let w: Vec<&str> = line.split(' ').collect();
                let mut kept = Vec::new();
                let mut i = 0;
                while i < w.len() {
                    let next = w.get(i + 1).copied();
                    if next == Some("playouts/s") {
                        kept.push("N");
                    } else if w[i].starts_with('(') && next.is_some_and(|n| n.starts_with("s)")) {
                        kept.push("(T");
                    } else {
                        kept.push(w[i]);
                    }
                    i += 1;
                }
                kept.join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A count with its thousands separated.
    fn group(n: u64) -> String {
        super::fmt_num(n as f64)
    }
}
