//! `flexrules run` and `flexrules moves`.

use std::process::ExitCode;

use serde_json::json;

use crate::runtime::outside::parse_send;
use crate::runtime::session::{Action, Session};
use crate::runtime::trace::{Output, Status, TraceEvent, Transaction};
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
    /// Print one JSON object on standard output: every entity, the outcome and each
    /// transaction's result.
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
    let mut options = args.options.clone();
    let record = match &args.sgf {
        None => None,
        Some(path) => {
            let record = std::fs::read_to_string(path)
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
                Err(e) => {
                    eprintln!("error: {}: {e}", path.display());
                    return ExitCode::from(1);
                }
            }
        }
    };
    let mut opened = match open(&options, args.trace) {
        Ok(o) => o,
        Err(code) => return code,
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
            .map(|v| crate::repr::text::render(&session.world.canvas, v))
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
                for (input, tx) in replayed {
                    steps.push(Step {
                        input,
                        tx,
                        board: None,
                    });
                }
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
    }
    for text in &args.sends {
        let tx = match parse_send(text) {
            Ok((to, msg)) => session.deliver(to, msg),
            Err(e) => {
                eprintln!("error: --send \"{text}\": {e}");
                return ExitCode::from(2);
            }
        };
        steps.push(Step {
            input: format!("send {text}"),
            tx,
            board: board(session),
        });
    }
    for (ply, name) in args.play.iter().enumerate() {
        let action = match find_action(session, ply + 1, name) {
            Ok(a) => a,
            Err(message) => {
                eprintln!("error: {message}");
                print_steps(&opened.sources, &steps, args);
                return ExitCode::from(1);
            }
        };
        let tx = session.deliver(action.recipient, (*action.message).clone());
        steps.push(Step {
            input: format!("play {name}"),
            tx,
            board: board(session),
        });
    }
    if args.json {
        println!("{}", to_json(session, &steps));
    } else {
        print_steps(&opened.sources, &steps, args);
        if let Some(outcome) = session.outcome() {
            let parts: Vec<String> = outcome
                .iter()
                .map(|(k, v)| format!("{} {}", k.to_value().to_text(), v))
                .collect();
            println!("finished: {}", parts.join(", "));
        }
    }
    ExitCode::SUCCESS
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

/// One line for a trace event, indented by depth.
pub fn describe(e: &TraceEvent) -> String {
    let pad = |d: usize| "  ".repeat(d.saturating_sub(1));
    match e {
        TraceEvent::Arrive {
            depth,
            entity,
            state,
            message,
            sender,
        } => format!(
            "{}{entity} ({state}) receives {message} from {}",
            pad(*depth),
            sender.map_or("user", |s| s.as_str())
        ),
        TraceEvent::Law { depth, name } => format!("{}  law {name}", pad(*depth)),
        TraceEvent::Vetoed { depth, name } => format!("{}  vetoed by {name}", pad(*depth)),
        TraceEvent::Behaviour { depth, name } => format!("{}  {name}", pad(*depth)),
        TraceEvent::NoBehaviour {
            depth,
            entity,
            label,
            state,
        } => format!(
            "{}  no behaviour for {label} in {entity}'s state {state}: ignored",
            pad(*depth)
        ),
        TraceEvent::SideEffect { depth, name } => format!("{}  side-effect {name}", pad(*depth)),
        TraceEvent::Done { depth, value } => format!("{}  done: {value}", pad(*depth)),
        TraceEvent::StateChange {
            depth,
            entity,
            from,
            to,
        } => format!("{}  {entity}: state {from} -> {to}", pad(*depth)),
        TraceEvent::Property {
            depth,
            entity,
            name,
            old,
            new,
        } => format!("{}  {entity}.{name}: {old} -> {new}", pad(*depth)),
        TraceEvent::Created { depth, entity, ty } => {
            format!("{}  created {entity} of {ty}", pad(*depth))
        }
        TraceEvent::Deleted { depth, entity } => format!("{}  deleted {entity}", pad(*depth)),
        TraceEvent::Checkpoint { depth, open } => {
            format!("{}  checkpoint opened ({open} open)", pad(*depth))
        }
        TraceEvent::Rollback { depth, reason } => format!("{}  rollback: {reason}", pad(*depth)),
    }
}

/// Find the legal action named `name`; the error names the ply and lists the legal names.
pub fn find_action(session: &mut Session, ply: usize, name: &str) -> Result<Action, String> {
    let legal = session
        .legal_actions()
        .map_err(|e| format!("ply {ply}: #actions failed: {}", e.message))?;
    if let Some(a) = legal.iter().find(|a| a.name == name) {
        return Ok(a.clone());
    }
    let names: Vec<&str> = legal.iter().map(|a| a.name.as_str()).collect();
    let known = session
        .candidates()
        .map(|c| c.iter().any(|a| a.name == name))
        .unwrap_or(false);
    let what = if known {
        "is not legal"
    } else {
        "is not an action"
    };
    Err(if names.is_empty() {
        format!("ply {ply}: `{name}` {what}: there is no legal action")
    } else {
        format!(
            "ply {ply}: `{name}` {what} here; legal: {}",
            names.join(", ")
        )
    })
}

fn to_json(session: &Session, steps: &[Step]) -> serde_json::Value {
    let game = &session.game;
    let mut entities = serde_json::Map::new();
    for (_, e) in session.world.iter() {
        let props: serde_json::Map<String, serde_json::Value> = e
            .properties(game)
            .map(|(n, v)| (n.as_str().to_string(), v.to_json()))
            .collect();
        entities.insert(
            e.name.as_str().to_string(),
            json!({
                "type": game.ty(e.ty).name.as_str(),
                "state": e.state.as_str(),
                "properties": props,
            }),
        );
    }
    let transactions: Vec<serde_json::Value> = steps
        .iter()
        .map(|s| {
            let mut o = serde_json::Map::new();
            o.insert("input".into(), json!(s.input));
            match &s.tx.status {
                Status::Committed(v) => {
                    o.insert("result".into(), json!("committed"));
                    o.insert("value".into(), v.to_json());
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
                }
            }
            let output: Vec<serde_json::Value> =
                s.tx.output
                    .iter()
                    .map(|l| match l {
                        Output::Notify(t) => json!({"notify": t}),
                        Output::Print(t) => json!({"print": t}),
                    })
                    .collect();
            o.insert("output".into(), json!(output));
            serde_json::Value::Object(o)
        })
        .collect();
    let outcome = session
        .outcome()
        .map(|d| crate::runtime::value::Value::dict(d.clone()).to_json())
        .unwrap_or(serde_json::Value::Null);
    json!({
        "entities": entities,
        "outcome": outcome,
        "transactions": transactions,
    })
}

/// Run `flexrules moves`.
pub fn moves(args: &MovesArgs) -> ExitCode {
    let mut opened = match super::game::open_and_play(&args.options, &args.play) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let session = &mut opened.session;
    match session.legal_actions() {
        Ok(actions) => {
            for a in actions {
                println!("{}", a.name);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!("{}", e.render(&opened.sources, super::stderr_color()));
            ExitCode::from(1)
        }
    }
}
