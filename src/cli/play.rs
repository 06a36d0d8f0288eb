//! `flexrules playout` and `flexrules perft`.

use std::process::ExitCode;
use std::time::Instant;

use crate::api::Match;
use crate::play::agent::{Agents, TO_MOVE};
use crate::play::perft::{PerftProgress, perft_on_threads};
use crate::play::stats::{Tally, changes};
use crate::play::summary::{Configuration, comparison};

use super::game::{RunOptions, open};

/// Arguments of `flexrules playout`.
#[derive(clap::Args, Debug)]
pub struct PlayoutArgs {
    /// The game and how to start it (`--seed` seeds the whole run).
    #[command(flatten)]
    pub options: RunOptions,
    /// How many games to play (at least 1).
    #[arg(short = 'n', long = "games", default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Threads to spread the games over, at least 1 (the results do not depend on it).
    /// [default: the number of cores]
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
    /// Stop a game after this many moves (counted as unfinished).
    #[arg(long, default_value_t = 10_000)]
    pub max_plies: usize,
    /// Print the summary as JSON on standard output.
    #[arg(long)]
    pub json: bool,
    /// Who chooses the moves: `random` (uniform among the legal moves, the default) or
    /// `mcts[:<iterations>[:<depth>]]` (Monte Carlo tree search, 200 iterations unless
    /// given; where the game defines `evaluate`, random playouts stop after <depth> moves,
    /// 20 unless given, and are scored by it) or `ismcts[:<iterations>]` (information-set
    /// search from what the player has seen, for games that hide things: those that
    /// define `resample`, where `mcts` is refused), for every player, or as <player>=<agent>
    /// for one player as the game's `to-move` names it (repeatable: --agent
    /// white=mcts:400 --agent black=random). Any agent but random needs the game to
    /// define `to-move`.
    #[arg(long = "agent", value_name = "[PLAYER=]AGENT")]
    pub agents: Vec<String>,
    /// Play the games again with this rules file (a variant, house rules) put in force
    /// too, and say how each outcome's rate changed from the game as given, with a 95%
    /// interval (repeatable: each file is compared with the game as given).
    #[arg(long = "compare", value_name = "FILE", conflicts_with = "profile")]
    pub compare: Vec<std::path::PathBuf>,
    /// Count where the steps go and print the bodies (laws, side-effects, behaviours,
    /// functions, #actions) that execute most of them. Steps, not time: the same on any
    /// machine and with any --jobs; the run takes several times longer.
    #[arg(long)]
    pub profile: bool,
    /// Write each game to this file, one line a game in game order: its number, the run's
    /// seed, the game's own seed (`run --seed <it> --play ...` replays it), how it ended and
    /// its moves by name, tab-separated (with --compare, the games of the game as given).
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    /// With --profile: after it, the instructions of the bodies whose name contains this
    /// (as the profile names them; repeatable), each with how many times it ran.
    #[arg(
        long = "disasm",
        value_name = "NAME",
        requires = "profile",
        conflicts_with = "json"
    )]
    pub disasm: Vec<String>,
    /// Duplicate play: each game (a board: the same deal) is played twice, two agents
    /// swapping places between two groups of players; give it twice, a group and its
    /// agent each: --duplicate N,S=system:a.xml --duplicate E,W=system:b.xml. Reports the
    /// mean of --score per board at each table and the first agent's gain per board,
    /// with 95% intervals.
    #[arg(
        long = "duplicate",
        value_name = "PLAYERS=AGENT",
        requires = "score",
        conflicts_with_all = ["compare", "profile", "record", "agents"]
    )]
    pub duplicate: Vec<String>,
    /// With --duplicate: the outcome's field each table scores, a number from the first
    /// group's side (bridge: score_ns).
    #[arg(long, value_name = "FIELD", requires = "duplicate")]
    pub score: Option<String>,
    /// Draw the results as an SVG figure in this file (its name ends in .svg): each
    /// outcome's rate with its 95% interval and, with --compare, each file's change from
    /// the game as given.
    #[arg(long, value_name = "FILE.svg", conflicts_with_all = ["duplicate", "profile"])]
    pub plot: Option<std::path::PathBuf>,
}

/// Arguments of `flexrules perft`.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// The game and how to start it.
    #[command(flatten)]
    pub options: RunOptions,
    /// How many moves deep to count.
    pub depth: usize,
    /// Actions to play first, by name: --play C,c.
    #[arg(long, value_delimiter = ',')]
    pub play: Vec<String>,
    /// Threads to spread the subtrees of the first moves (from depth 4, of the replies to
    /// them) over, at least 1 (the counts do not depend on it). [default: the number of
    /// cores]
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
    /// Count where the steps go and print the bodies (laws, side-effects, behaviours,
    /// functions, #actions) that execute most of them. Steps, not time: the same on any
    /// machine and with any --jobs; the run takes several times longer.
    #[arg(long)]
    pub profile: bool,
    /// With --profile: after it, the instructions of the bodies whose name contains this
    /// (as the profile names them; repeatable), each with how many times it ran.
    #[arg(long = "disasm", value_name = "NAME", requires = "profile")]
    pub disasm: Vec<String>,
}

/// How many bodies a profile prints.
const PROFILE_ROWS: usize = 30;

/// Run `flexrules playout`.
pub fn playout(args: &PlayoutArgs) -> ExitCode {
    if !args.duplicate.is_empty() {
        return super::duplicate::run(args);
    }
    if let Some(path) = &args.plot
        && let Err(e) = plot_path(path)
    {
        eprintln!("{e}");
        return ExitCode::from(2);
    }
    let mut configs: Vec<Option<&std::path::PathBuf>> = vec![None];
    configs.extend(args.compare.iter().map(Some));
    // Every configuration is opened (and refused, if it must be) before any plays.
    let mut opened = Vec::with_capacity(configs.len());
    for rules in configs {
        let mut options = args.options.clone();
        options.start.rules.extend(rules.cloned());
        match open_config(args, &options) {
            Ok(o) => opened.push((rules, o)),
            Err(code) => return code,
        }
    }
    let mut played = Vec::with_capacity(opened.len());
    for (rules, o) in opened {
        match play_config(args, o) {
            Ok(p) => played.push((rules, p)),
            Err(code) => return code,
        }
    }
    if let Some(path) = &args.record {
        let mut records = played[0].1.tally.records.clone();
        records.sort_unstable_by_key(|(index, _)| *index);
        let text: String = records
            .iter()
            .map(|(_, line)| format!("{line}\n"))
            .collect();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("error: cannot write the record {}: {e}", path.display());
            return ExitCode::from(1);
        }
    }
    let mut code = ExitCode::SUCCESS;
    if played.len() == 1 {
        let p = &played[0].1;
        print_tally(
            &p.tally,
            p.seconds,
            args.json,
            "",
            p.agents.as_ref(),
            &p.sources,
            p.profile.as_ref().map(|pr| (pr, &*p.m.session().game)),
        );
        if let Some(pr) = &p.profile {
            print!(
                "{}",
                super::disasm::counted(&p.m.session().game, &p.sources, &args.disasm, pr)
            );
        }
    } else {
        print_comparison(&played, args.json);
    }
    if let Some(path) = &args.plot
        && let Err(e) = std::fs::write(path, figure(args, &played))
    {
        eprintln!("error: --plot {}: {e}", path.display());
        code = ExitCode::from(1);
    }
    for (rules, p) in &played {
        if let Some((index, stopped)) = &p.tally.first_error {
            let what = match &stopped.action {
                Some(a) => format!("trying move `{a}`"),
                // With agents, `(to-move)` is asked too.
                None if p.agents.is_some() => "choosing a move".to_string(),
                None => "running #actions".to_string(),
            };
            let with = match rules {
                Some(r) if played.len() > 1 => format!(" with {}", r.display()),
                None if played.len() > 1 => " of the game as given".to_string(),
                _ => String::new(),
            };
            eprintln!(
                "error: {} game(s){with} stopped by an error; the first (game {index}, after {} move(s), {what}):",
                p.tally.failed, stopped.plies
            );
            eprint!(
                "{}",
                stopped.error.render(&p.sources, super::stderr_color())
            );
            code = ExitCode::from(1);
        }
    }
    code
}

/// `playout --compare`: each configuration's tally (the game as given first), and for
/// each rules file compared, how the rate of each outcome (each winner, a draw) moved from
/// the game as given, in points, with a 95% interval (Newcombe's, from the two Wilson
/// intervals); a change whose interval leaves out 0 is marked.
fn print_comparison(played: &[(Option<&std::path::PathBuf>, Played)], json: bool) {
    let Some((_, base)) = played.first() else {
        return;
    };
    if json {
        let configurations: Vec<Configuration<'_>> = played
            .iter()
            .map(|(rules, p)| Configuration {
                rules: rules.map(|r| r.display().to_string()),
                tally: &p.tally,
                seconds: p.seconds,
                agents: p.agents.as_ref(),
                sources: &p.sources,
            })
            .collect();
        println!("{}", comparison(&configurations));
        return;
    }
    for (i, (rules, p)) in played.iter().enumerate() {
        let heading = match rules {
            Some(r) => format!("with {}: ", r.display()),
            None => "the game as given: ".to_string(),
        };
        if i > 0 {
            println!();
        }
        print_tally(
            &p.tally,
            p.seconds,
            false,
            &heading,
            p.agents.as_ref(),
            &p.sources,
            None,
        );
        if i == 0 {
            continue;
        }
        println!("  change from the game as given (points; * where the interval leaves out 0):");
        for (o, d, lo, hi) in changes(&base.tally, &p.tally) {
            let what = match o {
                Some(w) => format!("winner {w}"),
                None => "draw".to_string(),
            };
            let marked = if lo > 0.0 || hi < 0.0 { " *" } else { "" };
            println!(
                "    {what:<15} {:>+6.1}  (95% CI {:+.1} to {:+.1}){marked}",
                d * 100.0,
                lo * 100.0,
                hi * 100.0
            );
        }
    }
}

/// A `--plot` path is refused unless the figure can be written to it as SVG.
fn plot_path(path: &std::path::Path) -> Result<(), String> {
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if svg {
        return Ok(());
    }
    let svg = path.with_extension("svg");
    let png = path.with_extension("png");
    Err(format!(
        "error: --plot {}: the figure is drawn as SVG, so the file name must end in .svg\n\
         hint: for a PNG, write --plot {svg} and convert it (rsvg-convert -o {png} {svg}), or \
         draw the figure with the Python package: flexrules.plot(result, \"{png}\")",
        path.display(),
        svg = svg.display(),
        png = png.display(),
    ))
}

/// The `--plot` figure of a run's configurations (the game as given first).
fn figure(args: &PlayoutArgs, played: &[(Option<&std::path::PathBuf>, Played)]) -> String {
    let start = &args.options.start;
    let caption = crate::play::plot::Caption {
        game: args.options.game.display().to_string(),
        games: args.games,
        seed: start.seed,
        agents: played
            .first()
            .and_then(|(_, p)| p.agents.as_ref())
            .map_or_else(|| "every player random".to_string(), who),
        rules: start
            .rules
            .iter()
            .map(|r| r.display().to_string())
            .collect(),
        params: start.params.clone(),
    };
    let runs: Vec<(String, &Tally)> = played
        .iter()
        .map(|(rules, p)| {
            let name = match rules {
                Some(r) => format!("with {}", r.display()),
                None => "the game as given".to_string(),
            };
            (name, &p.tally)
        })
        .collect();
    crate::play::plot::svg(&caption, &runs)
}

/// Who chose the moves, as the summary says it (`0 mcts:200, every other player random`).
fn who(agents: &Agents) -> String {
    let mut who: Vec<String> = agents
        .players
        .iter()
        .map(|(p, a)| format!("{p} {a}"))
        .collect();
    who.push(if agents.players.is_empty() {
        format!("every player {}", agents.others)
    } else {
        format!("every other player {}", agents.others)
    });
    who.join(", ")
}

/// The games of one configuration of a run (the game with its rules files), as played.
struct Played {
    tally: Tally,
    seconds: f64,
    agents: Option<Agents>,
    profile: Option<crate::runtime::profile::Profile>,
    m: Match,
    sources: crate::source::SourceMap,
}

/// Open the game as `options` say, with the agents `args` give; on a problem, the problem
/// is printed and the exit code given.
fn open_config(
    args: &PlayoutArgs,
    options: &super::game::RunOptions,
) -> Result<(Match, crate::source::SourceMap, Option<Agents>), ExitCode> {
    let opened = open(options, false)?;
    let mut m = opened.game.adopt(opened.session);
    let agents = match Agents::from_texts(&mut m, &args.agents) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(ExitCode::from(2));
        }
    };
    super::disasm::check_names(&m.session().game, &args.disasm)?;
    m.set_profiling(args.profile);
    Ok((m, opened.sources, agents))
}

/// Play `args.games` games of an opened configuration, on `args.jobs` threads.
fn play_config(
    args: &PlayoutArgs,
    (m, sources, agents): (Match, crate::source::SourceMap, Option<Agents>),
) -> Result<Played, ExitCode> {
    let seed = args.options.start.seed;
    let bar = indicatif::ProgressBar::new(args.games);
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    // A few random games end at once; games whose moves are searched take a while.
    if args.games < 200 && agents.is_none() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let began = Instant::now();
    let jobs = jobs_or_cores(args.jobs);
    let run = crate::play::games::play(
        &m,
        args.games,
        jobs,
        seed,
        args.max_plies,
        agents.as_ref(),
        args.record.is_some(),
        || bar.inc(1),
    );
    let (tally, profile) = match run {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start {jobs} threads: {e}");
            return Err(ExitCode::from(1));
        }
    };
    bar.finish_and_clear();
    let seconds = began.elapsed().as_secs_f64();
    if let Some(agents) = &agents {
        for (p, _) in &agents.players {
            if !tally.movers.contains(p) {
                let had: Vec<&str> = tally.movers.iter().map(String::as_str).collect();
                eprintln!(
                    "warning: --agent names player `{p}`, who never had the move (by `{TO_MOVE}`, the players to move were: {})",
                    if had.is_empty() {
                        "none".to_string()
                    } else {
                        had.join(", ")
                    }
                );
            }
        }
    }
    Ok(Played {
        tally,
        seconds,
        agents,
        profile,
        m,
        sources,
    })
}

/// A profile and the game it counted.
type Profiled<'a> = Option<(
    &'a crate::runtime::profile::Profile,
    &'a crate::compile::program::Game,
)>;

/// The summary of a tally as JSON (`playout --json`): the play layer's summary, and with
/// --profile where the steps went.
fn summary_json(
    t: &Tally,
    seconds: f64,
    agents: Option<&Agents>,
    sources: &crate::source::SourceMap,
    profile: Profiled<'_>,
) -> serde_json::Value {
    let mut summary = crate::play::summary::summary(t, seconds, agents, sources);
    // Only with --profile: the summary is otherwise as it always was.
    if let (Some((p, game)), Some(fields)) = (profile, summary.as_object_mut()) {
        let bodies: Vec<serde_json::Value> = p
            .rows(game)
            .iter()
            .map(|r| serde_json::json!({"body": r.body, "steps": r.steps, "entries": r.entries}))
            .collect();
        fields.insert(
            "profile".into(),
            serde_json::json!({"steps": p.total(), "bodies": bodies}),
        );
        fields.insert("transactions".into(), p.transactions().json());
    }
    summary
}

/// Print a tally: as JSON, or as text whose first line starts with `heading`.
fn print_tally(
    t: &Tally,
    seconds: f64,
    json: bool,
    heading: &str,
    agents: Option<&Agents>,
    sources: &crate::source::SourceMap,
    profile: Profiled<'_>,
) {
    if json {
        println!("{}", summary_json(t, seconds, agents, sources, profile));
        return;
    }
    let (n, rate, mean) = t.figures(seconds);
    let row = |k: u64| t.row(k);
    // Slow games (a few playouts a second) keep two significant digits.
    let decimals = if rate < 10.0 { 2 } else { 0 };
    println!(
        "{heading}{n} games, mean length {mean:.1} moves, {rate:.decimals$} playouts/s ({seconds:.2} s)"
    );
    if let Some(agents) = agents {
        println!("  agents: {}", who(agents));
    }
    for (w, &k) in &t.wins {
        let (k, p, lo, hi) = row(k);
        println!(
            "  winner {w:<8} {k:>7}  {:5.1}%  (95% CI {:.1}%-{:.1}%)",
            p * 100.0,
            lo * 100.0,
            hi * 100.0
        );
    }
    let (k, p, lo, hi) = row(t.draws);
    println!(
        "  draw            {k:>7}  {:5.1}%  (95% CI {:.1}%-{:.1}%)",
        p * 100.0,
        lo * 100.0,
        hi * 100.0
    );
    if t.stuck > 0 {
        println!("  no legal move but not finished: {}", t.stuck);
    }
    if t.too_long > 0 {
        println!("  stopped at the move limit: {}", t.too_long);
    }
    if t.failed > 0 {
        println!("  stopped by an error: {}", t.failed);
    }
    if let Some((p, game)) = profile {
        print!("{}", p.table(game, PROFILE_ROWS));
        print!("{}", p.transactions().line());
    }
}

/// Run `flexrules perft`.
pub fn perft(args: &PerftArgs) -> ExitCode {
    let opened = match super::game::open_and_play(&args.options, &args.play) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let m = &mut opened.game.adopt(opened.session);
    if let Err(code) = super::disasm::check_names(&m.session().game, &args.disasm) {
        return code;
    }
    m.set_profiling(args.profile);
    let began = Instant::now();
    // Progress over the first moves, drawn only on a terminal and only once the run has
    // lasted a moment.
    let bar = indicatif::ProgressBar::hidden();
    let mut shown = false;
    let mut progress = |p: PerftProgress| {
        if !shown && began.elapsed().as_secs_f64() > 0.5 {
            shown = true;
            bar.set_length(p.total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "perft {pos}/{len} first moves {wide_bar} {elapsed}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        bar.set_position(p.done as u64);
    };
    let result = perft_on_threads(m, args.depth, jobs_or_cores(args.jobs), &mut progress);
    bar.finish_and_clear();
    println!("depth  sequences  finished");
    for (d, (c, f)) in result.counts.iter().zip(&result.finished).enumerate() {
        println!("{:>5}  {c:>9}  {f:>8}", d + 1);
    }
    let total: u64 = result.finished.iter().sum();
    println!("finished games up to depth {}: {total}", args.depth);
    if let Some(p) = m.take_profile() {
        print!("{}", p.table(&m.session().game, PROFILE_ROWS));
        print!("{}", p.transactions().line());
        print!(
            "{}",
            super::disasm::counted(&m.session().game, &opened.sources, &args.disasm, &p)
        );
    }
    eprintln!("({:.2} s)", began.elapsed().as_secs_f64());
    if result.failures.is_empty() {
        return ExitCode::SUCCESS;
    }
    let color = super::stderr_color();
    for f in &result.failures {
        let at = if f.played.is_empty() {
            "at the start".to_string()
        } else {
            format!("after {}", f.played.join(","))
        };
        let what = match &f.action {
            Some(m) => format!("trying move `{m}` {at}"),
            None => format!("running #actions {at}"),
        };
        eprintln!(
            "error: {} candidate move(s) failed with this error (not counted; a mistake in the rules, not an illegal move); first {what}:",
            f.count
        );
        eprint!("{}", f.error.render(&opened.sources, color));
    }
    ExitCode::from(1)
}

/// The threads a `--jobs` option asks for, or one per core the machine lets this process
/// use (one when it cannot tell).
pub(super) fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
