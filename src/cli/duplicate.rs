//! `flexrules playout --duplicate`: two agents compared on the same boards, swapping
//! places between two groups of players ([`crate::play::duplicate`]), reported as the
//! mean score per board of each table and the first agent's gain, with 95% intervals.

use std::process::ExitCode;
use std::time::Instant;

use crate::api::Match;
use crate::play::agent::{Agent, Agents};
use crate::play::duplicate::{Boards, Tables, play};
use crate::runtime::outside::parse_literal;

use super::play::{PlayoutArgs, jobs_or_cores};

/// One `--duplicate <players>=<agent>`: the group's players (by their text) and agent.
struct Group {
    players: Vec<String>,
    agent: Agent,
    text: String,
}

/// Read the two `--duplicate` groups; the error is for the user.
fn groups(given: &[String]) -> Result<[Group; 2], String> {
    let mut out = Vec::new();
    for text in given {
        let Some((players, agent)) = text.split_once('=') else {
            return Err(format!(
                "--duplicate {text}: write <players>=<agent>, the players separated by commas (--duplicate N,S=system:a.xml)"
            ));
        };
        let players: Vec<String> = players
            .split(',')
            .map(|p| parse_literal(p.trim()).to_text())
            .collect();
        if players.iter().any(String::is_empty) {
            return Err(format!("--duplicate {text}: a player before `=` is empty"));
        }
        let agent = Agent::parse(agent.trim()).map_err(|e| format!("--duplicate {text}: {e}"))?;
        out.push(Group {
            players,
            agent,
            text: text.clone(),
        });
    }
    let [a, b]: [Group; 2] = out.try_into().map_err(|v: Vec<Group>| {
        format!(
            "--duplicate is given {} time(s): give it twice, one group of players and its agent each (--duplicate N,S=system:a.xml --duplicate E,W=system:b.xml)",
            v.len()
        )
    })?;
    if let Some(p) = a.players.iter().find(|p| b.players.contains(p)) {
        return Err(format!(
            "--duplicate: player `{p}` is in both groups ({} and {})",
            a.text, b.text
        ));
    }
    Ok([a, b])
}

/// The agents of every player at a table: each group's players play the agent given
/// with it, any other player at random.
fn table(m: &mut Match, seats: [(&Group, &Agent); 2]) -> Result<Agents, String> {
    let players = seats
        .iter()
        .flat_map(|(g, agent)| g.players.iter().map(|p| (p.clone(), (*agent).clone())))
        .collect();
    Agents::new(m, players, Agent::Random)
}

/// Run `flexrules playout --duplicate`.
pub fn run(args: &PlayoutArgs) -> ExitCode {
    let [a, b] = match groups(&args.duplicate) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let score = args.score.clone().unwrap_or_default();
    let opened = match super::game::open(&args.options, false) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut m = opened.game.adopt(opened.session);
    // Table 1: each group its own agent; table 2: swapped.
    let made = table(&mut m, [(&a, &a.agent), (&b, &b.agent)])
        .and_then(|one| table(&mut m, [(&a, &b.agent), (&b, &a.agent)]).map(|two| (one, two)));
    let (one, two) = match made {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let bar = indicatif::ProgressBar::new(args.games);
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    let began = Instant::now();
    let jobs = jobs_or_cores(args.jobs);
    let tables = Tables {
        agents: [&one, &two],
        score: &score,
    };
    let seed = args.options.start.seed;
    let boards = match play(&m, args.games, jobs, seed, args.max_plies, &tables, || {
        bar.inc(1)
    }) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot start {jobs} threads: {e}");
            return ExitCode::from(1);
        }
    };
    bar.finish_and_clear();
    let seconds = began.elapsed().as_secs_f64();
    for group in [&a, &b] {
        for p in &group.players {
            if !boards.movers.contains(p) {
                let had: Vec<&str> = boards.movers.iter().map(String::as_str).collect();
                eprintln!(
                    "warning: --duplicate {}: player `{p}` never had the move (the players who did: {})",
                    group.text,
                    had.join(", ")
                );
            }
        }
    }
    if boards.scored.is_empty()
        && let Some((i, why)) = boards.unscored.first()
    {
        eprintln!(
            "error: no board was scored ({} not scored); the first, board {i}: {why}",
            boards.unscored.len()
        );
        return ExitCode::from(1);
    }
    report(args, &[&a, &b], &score, &boards, seconds);
    match &boards.first_error {
        Some((index, t, stopped)) => {
            eprintln!(
                "error: {} board(s) stopped by an error; the first (board {index}, table {}, after {} move(s)):",
                boards.failed,
                t + 1,
                stopped.plies
            );
            eprint!(
                "{}",
                stopped.error.render(&opened.sources, super::stderr_color())
            );
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}

/// Print what the boards add up to, as text or JSON.
fn report(args: &PlayoutArgs, groups: &[&Group; 2], score: &str, boards: &Boards, seconds: f64) {
    let [a, b] = groups;
    let names = |g: &Group| g.players.join(",");
    let (gain, lo, hi) = boards.gain();
    if args.json {
        let tables: Vec<serde_json::Value> = (0..2)
            .map(|t| {
                let (m, l, h) = boards.table(t);
                let (x, y) = if t == 0 { (a, b) } else { (b, a) };
                serde_json::json!({
                    "agents": {names(a): x.agent.to_string(), names(b): y.agent.to_string()},
                    "mean": m, "ci95": [l, h],
                })
            })
            .collect();
        let unscored: Vec<serde_json::Value> = (boards.unscored.iter())
            .map(|(i, why)| serde_json::json!({"board": i, "why": why}))
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "boards": boards.scored.len() as u64 + boards.unscored.len() as u64 + boards.failed,
                "scored": boards.scored.len(),
                "score": score,
                "side": names(a),
                "tables": tables,
                "gain": {"agent": a.agent.to_string(), "over": b.agent.to_string(), "mean": gain, "ci95": [lo, hi]},
                "unscored": unscored,
                "failed": boards.failed,
                "seconds": seconds,
            })
        );
        return;
    }
    let n = boards.scored.len();
    println!(
        "{n} board(s) scored, each played at two tables ({} and {} swap agents), `{score}` from {}'s side ({:.2} s)",
        names(a),
        names(b),
        names(a),
        seconds
    );
    for t in 0..2 {
        let (m, l, h) = boards.table(t);
        let (x, y) = if t == 0 { (a, b) } else { (b, a) };
        println!(
            "  table {}: {} {}, {} {}: mean {m:+.1}  (95% CI {l:+.1} to {h:+.1})",
            t + 1,
            names(a),
            x.agent,
            names(b),
            y.agent
        );
    }
    let marked = if lo > 0.0 || hi < 0.0 { " *" } else { "" };
    println!(
        "  {} against {}: {gain:+.1} per board  (95% CI {lo:+.1} to {hi:+.1}){marked}",
        a.agent, b.agent
    );
    if let Some((i, why)) = boards.unscored.first() {
        println!(
            "  {} board(s) not scored; the first, board {i}: {why}",
            boards.unscored.len()
        );
    }
}
