//! `flexrules run` and `flexrules moves`.

use std::process::ExitCode;

use serde_json::json;

use crate::runtime::moves::{Verdict, group_failures};
use crate::runtime::outside::parse_send;
use crate::runtime::session::Session;
use crate::runtime::trace::{Output, Status, Transaction};
pub use crate::runtime::trace_text::describe;
use crate::runtime::value::{JSON_CAP, Value};
use crate::source::SourceMap;

use super::game::{RunOptions, open};

/// Arguments of `flexrules run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The game and how to start it.
    #[command(flatten)]
    pub options: RunOptions,
    /// Deliver a message as one transaction: "<label> to <entity> [with <key> <value> ...]"
    /// (repeatable; run in order, before the --play actions).
    #[arg(long = "send", value_name = "MESSAGE")]
    pub sends: Vec<String>,
    /// Play actions by name, in order: --play C,c,D (a game with #actions).
    #[arg(long, value_delimiter = ',')]
    pub play: Vec<String>,
    /// Replay a Go game record (SGF) first, in a game started with its size, komi and
    /// handicap (a --param given explicitly wins); games that follow games/go's
    /// conventions.
    #[arg(long, value_name = "FILE")]
    pub sgf: Option<std::path::PathBuf>,
    /// Print every join-point step of each transaction.
    #[arg(long)]
    pub trace: bool,
    /// Print one JSON document on standard output, whatever happens: every entity, the
    /// outcome and each transaction's result, and `error` when a --play name could not be
    /// played or the command could not run.
    #[arg(long)]
    pub json: bool,
    /// Draw the board as text after each transaction, in the public view or a player's
    /// (--board=0).
    #[arg(long, num_args = 0..=1, default_missing_value = "public", value_name = "VIEW")]
    pub board: Option<String>,
}

/// Arguments of `flexrules moves`.
#[derive(clap::Args, Debug)]
pub struct MovesArgs {
    /// The game and how to start it.
    #[command(flatten)]
    pub options: RunOptions,
    /// Actions to play first, by name: --play C,c,D.
    #[arg(long, value_delimiter = ',')]
    pub play: Vec<String>,
    /// List every candidate with why it is legal or not: the law that vetoed it (and what
    /// it notified), the rollback reason, or the error.
    #[arg(long)]
    pub explain: bool,
    /// Print one JSON document on standard output: the legal moves (name, index, player),
    /// the players to move, the outcome and, with --explain, every candidate's verdict.
    #[arg(long)]
    pub json: bool,
}

/// One step of the script: what was asked and what happened.
struct Step {
    input: String,
    tx: Transaction,
    /// The board after it, with --board.
    board: Option<String>,
}

/// Run `flexrules run`.
pub fn run(args: &RunArgs) -> ExitCode {
    // Every --send is read before anything runs: a malformed one is a wrong command line.
    let mut sends = Vec::with_capacity(args.sends.len());
    for text in &args.sends {
        match parse_send(text) {
            Ok(m) => sends.push((text, m)),
            Err(e) => return refuse(args, format!("--send \"{text}\": {e}"), 2),
        }
    }
    let mut options = args.options.clone();
    let record = match &args.sgf {
        None => None,
        Some(path) => {
            let record = crate::syntax::load::read_regular_file(path)
                .map_err(|e| e.to_string())
                .and_then(|text| crate::sgf::parse(&text));
            match record {
                Ok(r) => {
                    for (name, value) in r.params() {
                        let given = options
                            .start
                            .params
                            .iter()
                            .any(|p| p.split_once('=').is_some_and(|(n, _)| n.trim() == name));
                        if !given {
                            options.start.params.push(format!("{name}={value}"));
                        }
                    }
                    Some(r)
                }
                Err(e) => return refuse(args, format!("{}: {e}", path.display()), 1),
            }
        }
    };
    let mut opened = match open(&options, args.trace) {
        Ok(o) => o,
        Err(code) => {
            if args.json {
                println!(
                    "{}",
                    json!({"error": "the game did not load or start (the problem is on standard error)"})
                );
            }
            return code;
        }
    };
    let view = args
        .board
        .as_deref()
        .map(crate::runtime::canvas::View::parse);
    if view.is_some()
        && let Err(code) = super::render::watch(&mut opened.session, &opened.sources)
    {
        return code;
    }
    let session = &mut opened.session;
    let board = |session: &Session| {
        view.as_ref()
            .map(|v| crate::repr::text::render(&session.world().canvas, v))
    };
    let mut steps: Vec<Step> = Vec::new();
    if let Some(tx) = opened.setup.take()
        && !(tx.output.is_empty() && tx.trace.is_empty())
    {
        steps.push(Step {
            input: "#setup".into(),
            tx,
            board: None,
        });
    }
    if let (Some(record), Some(path)) = (&record, &args.sgf) {
        match crate::sgf::replay(session, record) {
            Ok(replayed) => {
                // The record is replayed as a whole: only the position it ends in is drawn.
                let last = replayed.len();
                for (i, (input, tx)) in replayed.into_iter().enumerate() {
                    let board = if i + 1 == last { board(session) } else { None };
                    steps.push(Step { input, tx, board });
                }
            }
            Err(e) => return refuse(args, format!("{}: {e}", path.display()), 1),
        }
    }
    for (text, (to, msg)) in sends {
        let tx = session.deliver(to, msg);
        steps.push(Step {
            input: format!("send {text}"),
            tx,
            board: board(session),
        });
    }
    // A --play name that cannot be played stops the script; what ran is still reported.
    let mut stopped = None;
    for (ply, name) in args.play.iter().enumerate() {
        let action = match session.playable(name) {
            Ok(a) => a,
            Err(e) => {
                stopped = Some(e.render(&opened.sources, false, ply + 1));
                if !args.json {
                    eprintln!(
                        "error: {}",
                        e.render(&opened.sources, super::stderr_color(), ply + 1)
                    );
                }
                break;
            }
        };
        let tx = session.deliver(action.recipient, (*action.message).clone());
        steps.push(Step {
            input: format!("play {name}"),
            tx,
            board: board(session),
        });
    }
    let failed = steps
        .iter()
        .filter(|s| matches!(s.tx.status, Status::Failed(_)))
        .count();
    if args.json {
        let (entities, lines, held) = frame_bytes(session, &steps);
        if held > JSON_CAP {
            return refuse(
                args,
                format!(
                    "the JSON document would be larger than {} MB: {entities} entities and \
                     {lines} lines of output take about {} MB in it; run without --json",
                    JSON_CAP >> 20,
                    held >> 20
                ),
                1,
            );
        }
        let Some(mut doc) = to_json(session, &opened.sources, &steps) else {
            return refuse(
                args,
                format!(
                    "the JSON document would be larger than {} MB: a value shares its parts \
                     (such as a list doubled by concat) and is far larger written out than in \
                     memory",
                    JSON_CAP >> 20
                ),
                1,
            );
        };
        if let Some(e) = &stopped {
            doc["error"] = json!(e);
        }
        println!("{doc}");
    } else {
        print_steps(&opened.sources, &steps, args);
        if let Some(outcome) = session.outcome() {
            let parts: Vec<String> = outcome
                .iter()
                .map(|(k, v)| format!("{} {}", k.to_value().to_text(), v))
                .collect();
            println!("finished: {}", parts.join(", "));
        }
        if failed > 0 {
            eprintln!("error: {failed} transaction(s) failed");
        }
    }
    if stopped.is_some() || failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Refuse the command line: the error on standard error (and as the JSON document with
/// --json), and exit status `code`.
fn refuse(args: &RunArgs, message: String, code: u8) -> ExitCode {
    if args.json {
        println!("{}", json!({ "error": message }));
    }
    eprintln!("error: {message}");
    ExitCode::from(code)
}

fn print_steps(sources: &SourceMap, steps: &[Step], args: &RunArgs) {
    if args.json {
        return;
    }
    for (i, step) in steps.iter().enumerate() {
        println!("[{}] {}: {}", i + 1, step.input, step.tx.status.summary());
        if args.trace {
            for e in &step.tx.trace {
                println!("    {}", describe(e));
            }
        }
        for line in &step.tx.output {
            match line {
                Output::Notify(t) => println!("    notify: {t}"),
                Output::Print(t) => println!("    print: {t}"),
            }
        }
        if let Status::Failed(e) = &step.tx.status {
            eprint!("{}", e.render(sources, super::stderr_color()));
        }
        if let Some(board) = &step.board {
            println!("{board}");
        }
    }
}

/// What the `--json` document's budget counts for one entity beyond its properties (its
/// name, type and state and the two objects that hold them), and for one line of output
/// beyond its text (the object that holds it): about what they take in memory, so the
/// document stays within [`JSON_CAP`] of it however many entities or lines there are.
const JSON_ENTITY_BYTES: usize = 1024;
const JSON_LINE_BYTES: usize = 640;

/// The entities, the lines of output and about how many bytes they take in the `--json`
/// document beyond the values' own (see [`JSON_ENTITY_BYTES`]).
fn frame_bytes(session: &Session, steps: &[Step]) -> (usize, usize, usize) {
    let mut held = 0usize;
    let mut entities = 0;
    for (_, e) in session.world().iter() {
        entities += 1;
        held = held.saturating_add(JSON_ENTITY_BYTES + 6 * e.name.as_str().len());
    }
    let mut lines = 0;
    for l in steps.iter().flat_map(|s| &s.tx.output) {
        let (Output::Notify(t) | Output::Print(t)) = l;
        lines += 1;
        held = held.saturating_add(JSON_LINE_BYTES + 6 * t.len());
    }
    (entities, lines, held)
}

/// The `--json` document; `None` when its values would take more than [`JSON_CAP`] bytes
/// (they are refused rather than cut: a cut document would look complete to a program).
fn to_json(session: &Session, sources: &SourceMap, steps: &[Step]) -> Option<serde_json::Value> {
    let game = &session.game;
    let mut budget = JSON_CAP;
    let mut entities = serde_json::Map::new();
    for (_, e) in session.world().iter() {
        let mut props = serde_json::Map::new();
        for (n, v) in e.properties(game) {
            props.insert(n.as_str().to_string(), v.to_json_within(&mut budget)?);
        }
        entities.insert(
            e.name.as_str().to_string(),
            json!({
                "type": game.ty(e.ty).name.as_str(),
                "state": e.state.as_str(),
                "properties": props,
            }),
        );
    }
    let mut transactions: Vec<serde_json::Value> = Vec::with_capacity(steps.len());
    for s in steps {
        transactions.push({
            let mut o = serde_json::Map::new();
            o.insert("input".into(), json!(s.input));
            match &s.tx.status {
                Status::Committed(v) => {
                    o.insert("result".into(), json!("committed"));
                    o.insert("value".into(), v.to_json_within(&mut budget)?);
                }
                Status::Vetoed { law } => {
                    o.insert("result".into(), json!("vetoed"));
                    o.insert("law".into(), json!(law.as_str()));
                }
                Status::RolledBack { reason } => {
                    o.insert("result".into(), json!("rolled back"));
                    o.insert("reason".into(), json!(reason));
                }
                Status::Failed(e) => {
                    o.insert("result".into(), json!("failed"));
                    o.insert("error".into(), json!(e.message));
                    o.insert("chain".into(), json!(e.chain));
                    if let Some(d) = super::error_json(sources, e) {
                        o.insert("diagnostic".into(), d);
                    }
                }
            }
            let mut output = Vec::with_capacity(s.tx.output.len());
            for l in &s.tx.output {
                let (kind, t) = match l {
                    Output::Notify(t) => ("notify", t),
                    Output::Print(t) => ("print", t),
                };
                output.push(json!({kind: t}));
            }
            o.insert("output".into(), serde_json::Value::Array(output));
            serde_json::Value::Object(o)
        });
    }
    let outcome = match session.outcome() {
        Some(d) => Value::dict(d.clone()).to_json_within(&mut budget)?,
        None => serde_json::Value::Null,
    };
    Some(json!({
        "entities": entities,
        "outcome": outcome,
        "transactions": transactions,
    }))
}

/// Run `flexrules moves`.
pub fn moves(args: &MovesArgs) -> ExitCode {
    let mut opened = match super::game::open_and_play(&args.options, &args.play) {
        Ok(o) => o,
        Err(code) => {
            if args.json {
                println!(
                    "{}",
                    json!({"error": "the game did not load or start, or a --play move could not be played (the problem is on standard error)"})
                );
            }
            return code;
        }
    };
    let color = super::stderr_color();
    let sources = &opened.sources;
    let session = &mut opened.session;
    if args.json {
        return moves_json(session, sources, args.explain);
    }
    if args.explain {
        return explain(session, sources, color);
    }
    let tried = match session.try_moves() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: #actions failed:");
            eprint!("{}", e.render(sources, color));
            return ExitCode::from(1);
        }
    };
    for a in &tried.legal {
        println!("{}", a.name);
    }
    if tried.failed.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprint!("{}", tried.render_failures(sources, color));
    ExitCode::from(1)
}

/// `flexrules moves --explain`: every candidate with its verdict.
fn explain(session: &mut Session, sources: &SourceMap, color: bool) -> ExitCode {
    let explained = match session.explain_candidates() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: #actions failed:");
            eprint!("{}", e.render(sources, color));
            return ExitCode::from(1);
        }
    };
    if explained.is_empty() {
        println!("no candidate move (#actions gives none)");
    }
    for (a, v) in &explained {
        println!("{}: {}", a.name, v.summary());
    }
    // Each distinct error once, with its diagnostic.
    let failures = group_failures(explained.iter().filter_map(|(a, v)| match v {
        Verdict::Failed(e) => Some((a.name.as_str(), e)),
        _ => None,
    }));
    for (e, names) in &failures {
        eprintln!(
            "error: {} {} failed with an error (a mistake in the rules, not an illegal move):",
            if names.len() == 1 { "move" } else { "moves" },
            names.join(", ")
        );
        eprint!("{}", e.render(sources, color));
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// A move's `name`, `index` (as the API gives it, [`crate::api::MoveIndex`]) and `player`
/// (when its message names one), as `moves --json` lists it.
fn move_json(a: &crate::runtime::session::Action) -> serde_json::Map<String, serde_json::Value> {
    let mut o = serde_json::Map::new();
    o.insert("name".into(), json!(a.name));
    o.insert("index".into(), json!(crate::api::MoveIndex::of(&a.name).0));
    let player = crate::runtime::value::Key::sym(crate::symbol::Symbol::intern("player"));
    if let Some(p) = a.message.attrs.get(&player) {
        o.insert("player".into(), json!(p.to_text()));
    }
    o
}

/// `flexrules moves --json`: one document with the legal moves, the players to move, the
/// outcome and, with `explain`, every candidate's verdict. Exits 1 when a candidate (or
/// `#actions`, or `(to-move)`) failed with an error, as without --json.
fn moves_json(session: &mut Session, sources: &SourceMap, explain: bool) -> ExitCode {
    let failure = |e: &crate::runtime::trace::RuntimeError| {
        let mut o = serde_json::Map::new();
        o.insert("error".into(), json!(e.message));
        if let Some(d) = super::error_json(sources, e) {
            o.insert("diagnostic".into(), d);
        }
        o
    };
    let mut doc = serde_json::Map::new();
    let mut failed = false;
    let listed = if explain {
        session.explain_candidates().map(|explained| {
            let mut legal = Vec::new();
            let mut candidates = Vec::new();
            for (a, v) in &explained {
                let mut o = move_json(a);
                match v {
                    Verdict::Legal => {
                        legal.push(serde_json::Value::Object(o.clone()));
                        o.insert("verdict".into(), json!("legal"));
                    }
                    Verdict::Vetoed { law, source, notes } => {
                        o.insert("verdict".into(), json!("vetoed"));
                        o.insert("law".into(), json!(law.as_str()));
                        o.insert("source".into(), json!(source));
                        o.insert("notes".into(), json!(notes));
                    }
                    Verdict::RolledBack { reason, notes } => {
                        o.insert("verdict".into(), json!("rolled_back"));
                        o.insert("reason".into(), json!(reason));
                        o.insert("notes".into(), json!(notes));
                    }
                    Verdict::Failed(e) => {
                        failed = true;
                        o.insert("verdict".into(), json!("failed"));
                        o.extend(failure(e));
                    }
                }
                candidates.push(serde_json::Value::Object(o));
            }
            doc.insert("candidates".into(), json!(candidates));
            legal
        })
    } else {
        session.try_moves().map(|tried| {
            let failures: Vec<serde_json::Value> = (tried.failed.iter())
                .map(|(a, e)| {
                    let mut o = move_json(a);
                    o.extend(failure(e));
                    serde_json::Value::Object(o)
                })
                .collect();
            failed = !failures.is_empty();
            doc.insert("failed".into(), json!(failures));
            (tried.legal.iter())
                .map(|a| serde_json::Value::Object(move_json(a)))
                .collect()
        })
    };
    match listed {
        Ok(legal) => {
            doc.insert("moves".into(), json!(legal));
        }
        Err(e) => {
            let mut o = failure(&e);
            o.insert(
                "error".into(),
                json!(format!("#actions failed: {}", e.message)),
            );
            doc.insert("moves".into(), json!([]));
            doc.extend(o);
            failed = true;
        }
    }
    // `null` when the game defines no `(to-move)`.
    let to_move = crate::compile::codegen::compile_function_call(
        session.game_mut(),
        crate::api::TO_MOVE,
        "moves --json",
    );
    let to_move = match to_move {
        Ok(None) => serde_json::Value::Null,
        Ok(Some(code)) => match session.players_to_move(code) {
            Ok(players) => json!(players),
            Err(e) => {
                failed = true;
                doc.insert(
                    "to_move_error".into(),
                    serde_json::Value::Object(failure(&e)),
                );
                serde_json::Value::Null
            }
        },
        Err(e) => {
            failed = true;
            doc.insert("to_move_error".into(), json!({ "error": e }));
            serde_json::Value::Null
        }
    };
    doc.insert("to_move".into(), to_move);
    let mut budget = JSON_CAP;
    let outcome = match session.outcome() {
        Some(d) => Value::dict(d.clone()).to_json_within(&mut budget),
        None => Some(serde_json::Value::Null),
    };
    let Some(outcome) = outcome else {
        println!(
            "{}",
            json!({"error": "the outcome would take more than 64 MB in the JSON document"})
        );
        return ExitCode::from(1);
    };
    doc.insert("outcome".into(), outcome);
    println!("{}", serde_json::Value::Object(doc));
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
