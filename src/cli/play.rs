//! `flexrules playout` and `flexrules perft`.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::time::Instant;

use crate::runtime::agent::{Agent, Agents, TO_MOVE};
use crate::runtime::playout::{Chooser, Ending, PerftProgress, Playout, Stopped};
use crate::runtime::session::Session;

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
    /// `mcts[:<iterations>]` (Monte Carlo tree search, 200 iterations unless given), for
    /// every player, or as `<player>=<agent>` for one player as the game's `to-move`
    /// names it (repeatable: --agent white=mcts:400 --agent black=random). Any agent but
    /// random needs the game to define `to-move`.
    #[arg(long = "agent", value_name = "[PLAYER=]AGENT")]
    pub agents: Vec<String>,
    /// Count where the steps go and print the bodies (laws, side-effects, behaviours,
    /// functions, #actions) that execute most of them. Steps, not time: the same on any
    /// machine and with any --jobs; the run takes several times longer.
    #[arg(long)]
    pub profile: bool,
    /// With --profile: after it, the instructions of the bodies whose name contains this
    /// (as the profile names them; repeatable), each with how many times it ran.
    #[arg(
        long = "disasm",
        value_name = "NAME",
        requires = "profile",
        conflicts_with = "json"
    )]
    pub disasm: Vec<String>,
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

/// What many playouts add up to.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// Wins per winner, by the winner's text.
    pub wins: BTreeMap<String, u64>,
    /// Games finished without a winner.
    pub draws: u64,
    /// Games where no move was legal but the game did not finish.
    pub stuck: u64,
    /// Games stopped at the ply limit.
    pub too_long: u64,
    /// Moves played in all games.
    pub plies: u64,
    /// Games stopped by a runtime error (a candidate move, or `#actions`, failed).
    pub failed: u64,
    /// The error that stopped the game with the smallest number, with that number (the
    /// same whatever the number of threads).
    pub first_error: Option<(u64, Stopped)>,
    /// With agents: the players who had the move in some game, by their text.
    pub movers: BTreeSet<String>,
}

impl Tally {
    fn add(&mut self, index: u64, result: Result<Playout, Stopped>) {
        self.games += 1;
        match result {
            Ok(p) => {
                self.plies += p.plies as u64;
                match p.ending {
                    Ending::Winner(w) => *self.wins.entry(w.to_text()).or_default() += 1,
                    Ending::Draw => self.draws += 1,
                    Ending::Stuck => self.stuck += 1,
                    Ending::TooLong => self.too_long += 1,
                }
            }
            Err(e) => {
                self.failed += 1;
                self.plies += e.plies as u64;
                if self.first_error.as_ref().is_none_or(|(i, _)| index < *i) {
                    self.first_error = Some((index, e));
                }
            }
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.games += other.games;
        for (k, v) in other.wins {
            *self.wins.entry(k).or_default() += v;
        }
        self.draws += other.draws;
        self.stuck += other.stuck;
        self.too_long += other.too_long;
        self.plies += other.plies;
        self.failed += other.failed;
        self.movers.extend(other.movers);
        self.first_error = match (self.first_error, other.first_error) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
        self
    }
}

/// The Wilson score interval (95%) of `k` successes in `n` trials, as fractions.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Play game `index` of a run from the session's current world, every move chosen at
/// random, or by `agents`.
fn one(
    session: &mut Session,
    start: &crate::runtime::world::World,
    seed: u64,
    index: u64,
    max_plies: usize,
    agents: Option<&Agents>,
    movers: &mut BTreeSet<String>,
) -> Result<Playout, Stopped> {
    *session.world_mut() = start.clone();
    let mut chooser = Chooser::new(seed, index);
    // Game code that draws random numbers gets its own stream per playout too.
    session.world_mut().rng = chooser.next_u64();
    match agents {
        Some(agents) => session.playout_with(agents, &mut chooser, max_plies, movers),
        None => session.playout(&mut chooser, max_plies),
    }
}

/// The agents `--agent` names, with `(to-move)` compiled into the game; `None` when every
/// player plays at random. The error is for the user (a wrong command line).
fn agents(session: &mut Session, given: &[String]) -> Result<Option<Agents>, String> {
    let mut players: Vec<(String, Agent)> = Vec::new();
    let mut others = None;
    for text in given {
        let (player, agent) = match text.split_once('=') {
            Some((p, a)) => (Some(p.trim()), a.trim()),
            None => (None, text.trim()),
        };
        let agent = Agent::parse(agent).map_err(|e| format!("--agent {text}: {e}"))?;
        match player {
            Some("") => return Err(format!("--agent {text}: the player before `=` is empty")),
            Some(p) => {
                // The player as the game writes it (an integer or a string), by its text.
                let p = crate::runtime::outside::parse_literal(p).to_text();
                if players.iter().any(|(q, _)| *q == p) {
                    return Err(format!(
                        "--agent {text}: player `{p}` is given an agent twice"
                    ));
                }
                players.push((p, agent));
            }
            None if others.is_some() => {
                return Err(format!(
                    "--agent {text}: an agent for every player is given twice (name a player: --agent <player>=<agent>)"
                ));
            }
            None => others = Some(agent),
        }
    }
    let others = others.unwrap_or(Agent::Random);
    if others == Agent::Random && players.iter().all(|(_, a)| *a == Agent::Random) {
        return Ok(None);
    }
    Agents::new(session.game_mut(), players, others).map(Some)
}

/// Run `flexrules playout`.
pub fn playout(args: &PlayoutArgs) -> ExitCode {
    let opened = match open(&args.options, false) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut base = opened.session;
    let opened_sources = opened.sources;
    let agents = match agents(&mut base, &args.agents) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(code) = super::disasm::check_names(&base.game, &args.disasm) {
        return code;
    }
    base.set_profiling(args.profile);
    let seed = args.options.start.seed;
    let bar = indicatif::ProgressBar::new(args.games);
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if args.games < 200 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let began = Instant::now();
    let jobs = jobs_or_cores(args.jobs);
    // Each thread takes the next game not yet played, on copies of its own of the
    // session and its start: values stay on the thread that made them (see
    // `Session::fork`). The tallies add up whatever the order.
    let next = std::sync::atomic::AtomicU64::new(0);
    let (next, bar_ref, agents) = (&next, &bar, agents.as_ref());
    let run = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut started = 0;
        for _ in 0..(jobs as u64).min(args.games) {
            let tx = tx.clone();
            let forked = base.fork();
            let thread = std::thread::Builder::new().spawn_scoped(scope, move || {
                let mut session = forked.into_inner();
                let own = session.world().clone();
                let mut tally = Tally::default();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= args.games {
                        break;
                    }
                    let played = one(
                        &mut session,
                        &own,
                        seed,
                        i,
                        args.max_plies,
                        agents,
                        &mut tally.movers,
                    );
                    tally.add(i, played);
                    bar_ref.inc(1);
                }
                let _ = tx.send((tally, session.take_profile()));
            });
            // Threads that did start play every game between them.
            match thread {
                Ok(_) => started += 1,
                Err(e) if started == 0 => return Err(e),
                Err(_) => break,
            }
        }
        drop(tx);
        let mut tally = Tally::default();
        let mut profile: Option<crate::runtime::profile::Profile> = None;
        for (t, p) in rx {
            tally = tally.merge(t);
            if let Some(p) = p {
                match &mut profile {
                    Some(all) => all.merge(&p),
                    None => profile = Some(p),
                }
            }
        }
        Ok((tally, profile))
    });
    let (tally, profile) = match run {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start {jobs} threads: {e}");
            return ExitCode::from(1);
        }
    };
    bar.finish_and_clear();
    let seconds = began.elapsed().as_secs_f64();
    if let Some(agents) = agents {
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
    print_tally(
        &tally,
        seconds,
        args.json,
        agents,
        &opened_sources,
        profile.as_ref().map(|p| (p, &*base.game)),
    );
    if let Some(p) = &profile {
        print!(
            "{}",
            super::disasm::counted(&base.game, &opened_sources, &args.disasm, p)
        );
    }
    if let Some((index, stopped)) = &tally.first_error {
        let what = match &stopped.action {
            Some(a) => format!("trying move `{a}`"),
            None => "running #actions".to_string(),
        };
        eprintln!(
            "error: {} game(s) stopped by an error; the first (game {index}, after {} move(s), {what}):",
            tally.failed, stopped.plies
        );
        eprint!(
            "{}",
            stopped.error.render(&opened_sources, super::stderr_color())
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn print_tally(
    t: &Tally,
    seconds: f64,
    json: bool,
    agents: Option<&Agents>,
    sources: &crate::source::SourceMap,
    profile: Option<(
        &crate::runtime::profile::Profile,
        &crate::compile::program::Game,
    )>,
) {
    let n = t.games;
    let rate = if seconds > 0.0 {
        n as f64 / seconds
    } else {
        0.0
    };
    let mean = if n > 0 {
        t.plies as f64 / n as f64
    } else {
        0.0
    };
    let row = |k: u64| {
        let (lo, hi) = wilson(k, n);
        (k, k as f64 / n.max(1) as f64, lo, hi)
    };
    if json {
        let wins: serde_json::Map<String, serde_json::Value> = t
            .wins
            .iter()
            .map(|(w, &k)| {
                let (k, p, lo, hi) = row(k);
                (
                    w.clone(),
                    serde_json::json!({"games": k, "rate": p, "ci95": [lo, hi]}),
                )
            })
            .collect();
        let (dk, dp, dlo, dhi) = row(t.draws);
        let mut summary = serde_json::json!({
            "games": n,
            "wins": wins,
            "draws": {"games": dk, "rate": dp, "ci95": [dlo, dhi]},
            "stuck": t.stuck,
            "too_long": t.too_long,
            "failed": t.failed,
            "first_error": t.first_error.as_ref().map(|(index, s)| serde_json::json!({
                "game": index,
                "plies": s.plies,
                "move": s.action,
                "error": s.error.message,
                "chain": s.error.chain,
                "diagnostic": super::error_json(sources, &s.error),
            })),
            "mean_plies": mean,
            "seconds": seconds,
            "playouts_per_second": rate,
        });
        // Only with --agent: who chose the moves.
        if let (Some(agents), Some(fields)) = (agents, summary.as_object_mut()) {
            let players: serde_json::Map<String, serde_json::Value> = agents
                .players
                .iter()
                .map(|(p, a)| (p.clone(), a.to_string().into()))
                .collect();
            fields.insert(
                "agents".into(),
                serde_json::json!({"players": players, "others": agents.others.to_string()}),
            );
        }
        // Only with --profile: the summary is otherwise as it always was.
        if let (Some((p, game)), Some(fields)) = (profile, summary.as_object_mut()) {
            let bodies: Vec<serde_json::Value> = p
                .rows(game)
                .iter()
                .map(
                    |r| serde_json::json!({"body": r.body, "steps": r.steps, "entries": r.entries}),
                )
                .collect();
            fields.insert(
                "profile".into(),
                serde_json::json!({"steps": p.total(), "bodies": bodies}),
            );
        }
        println!("{summary}");
        return;
    }
    // Slow games (a few playouts a second) keep two significant digits.
    let decimals = if rate < 10.0 { 2 } else { 0 };
    println!(
        "{n} games, mean length {mean:.1} moves, {rate:.decimals$} playouts/s ({seconds:.2} s)"
    );
    if let Some(agents) = agents {
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
        println!("  agents: {}", who.join(", "));
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
    }
}

/// Run `flexrules perft`.
pub fn perft(args: &PerftArgs) -> ExitCode {
    let mut opened = match super::game::open_and_play(&args.options, &args.play) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let session = &mut opened.session;
    if let Err(code) = super::disasm::check_names(&session.game, &args.disasm) {
        return code;
    }
    session.set_profiling(args.profile);
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
    let result = session.perft_on_threads(args.depth, jobs_or_cores(args.jobs), &mut progress);
    bar.finish_and_clear();
    println!("depth  sequences  finished");
    for (d, (c, f)) in result.counts.iter().zip(&result.finished).enumerate() {
        println!("{:>5}  {c:>9}  {f:>8}", d + 1);
    }
    let total: u64 = result.finished.iter().sum();
    println!("finished games up to depth {}: {total}", args.depth);
    if let Some(p) = session.take_profile() {
        print!("{}", p.table(&session.game, PROFILE_ROWS));
        print!(
            "{}",
            super::disasm::counted(&session.game, &opened.sources, &args.disasm, &p)
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
fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::wilson;

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(50, 100);
        assert!(lo < 0.5 && hi > 0.5);
        assert!((lo - 0.404).abs() < 0.01 && (hi - 0.596).abs() < 0.01);
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }
}
