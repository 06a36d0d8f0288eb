//! The JSON forms of a run's [`Tally`]: its summary as `flexrules playout --json` prints
//! it ([`summary`], and [`comparison`] for `--compare`), shared by the command line and
//! the Python package; and its plain data ([`to_data`], [`from_data`]), which carries a
//! tally exactly (its first error included) from the process that played the games to the
//! one that adds them up.

use serde_json::{Map, Value, json};

use super::agent::Agents;
use super::playout::Stopped;
use super::stats::{Tally, changes};
use crate::api::{CallSite, Calls, RuntimeError};
use crate::source::{FileId, SourceMap, Span};

/// The summary of a tally (`playout --json`): games, each winner's and the draws' games,
/// rate and 95% interval, the unfinished and failed games, the first error with its place
/// in `sources` (the sources of the game the games were played with), the mean length,
/// and `seconds` (the caller's wall time) with the games a second; with agents, who chose
/// the moves.
pub fn summary(t: &Tally, seconds: f64, agents: Option<&Agents>, sources: &SourceMap) -> Value {
    let (n, rate, mean) = t.figures(seconds);
    let row = |k: u64| t.row(k);
    let wins: Map<String, Value> = t
        .wins
        .iter()
        .map(|(w, &k)| {
            let (k, p, lo, hi) = row(k);
            (w.clone(), json!({"games": k, "rate": p, "ci95": [lo, hi]}))
        })
        .collect();
    let (dk, dp, dlo, dhi) = row(t.draws);
    let mut summary = json!({
        "games": n,
        "wins": wins,
        "draws": {"games": dk, "rate": dp, "ci95": [dlo, dhi]},
        "stuck": t.stuck,
        "too_long": t.too_long,
        "failed": t.failed,
        "first_error": t.first_error.as_ref().map(|(index, s)| json!({
            "game": index,
            "plies": s.plies,
            "move": s.action,
            "error": s.error.message,
            "chain": s.error.chain,
            "diagnostic": s.error.to_diagnostic().and_then(|d| {
                serde_json::to_value(crate::diagnostic::to_json(sources, &d)).ok()
            }),
        })),
        "mean_plies": mean,
        "seconds": seconds,
        "playouts_per_second": rate,
    });
    // Only with agents: who chose the moves.
    if let (Some(agents), Some(fields)) = (agents, summary.as_object_mut()) {
        let players: Map<String, Value> = agents
            .players
            .iter()
            .map(|(p, a)| (p.clone(), a.to_string().into()))
            .collect();
        fields.insert(
            "agents".into(),
            json!({"players": players, "others": agents.others.to_string()}),
        );
    }
    summary
}

/// One configuration of a compared run: the rules file put in force (`None`: the game as
/// given), what its games added up to, the wall time they took, their agents, and the
/// sources of the game they were played with.
pub struct Configuration<'a> {
    /// The rules file compared, as the caller named it.
    pub rules: Option<String>,
    /// Its games.
    pub tally: &'a Tally,
    /// The caller's wall time for them.
    pub seconds: f64,
    /// Who chose the moves.
    pub agents: Option<&'a Agents>,
    /// The game's sources, rules file included.
    pub sources: &'a SourceMap,
}

/// The summary of a compared run (`playout --compare ... --json`): `{"configurations":
/// [...]}`, each configuration's [`summary`] with its `rules` (null for the game as given,
/// first), and for each rules file the `change` of each winner's and the draws' rate from
/// the game as given, in points, with its 95% interval (Newcombe's).
pub fn comparison(configs: &[Configuration<'_>]) -> Value {
    let Some(base) = configs.first() else {
        return json!({ "configurations": [] });
    };
    let configurations: Vec<Value> = configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut summary = summary(c.tally, c.seconds, c.agents, c.sources);
            if let Some(fields) = summary.as_object_mut() {
                fields.insert("rules".into(), c.rules.clone().into());
                if i > 0 {
                    let mut wins = Map::new();
                    let mut draws = Value::Null;
                    for (o, d, lo, hi) in changes(base.tally, c.tally) {
                        let change = json!({"points": d * 100.0, "ci95": [lo * 100.0, hi * 100.0]});
                        match o {
                            Some(w) => {
                                wins.insert(w, change);
                            }
                            None => draws = change,
                        }
                    }
                    fields.insert("change".into(), json!({"wins": wins, "draws": draws}));
                }
            }
            summary
        })
        .collect();
    json!({ "configurations": configurations })
}

/// A tally as plain data (JSON), every field of it: [`from_data`] gives it back equal.
pub fn to_data(t: &Tally) -> Value {
    json!({
        "games": t.games,
        "wins": t.wins,
        "draws": t.draws,
        "stuck": t.stuck,
        "too_long": t.too_long,
        "plies": t.plies,
        "failed": t.failed,
        "first_error": t.first_error.as_ref().map(|(index, s)| json!({
            "game": index,
            "plies": s.plies,
            "action": s.action,
            "error": error_data(&s.error),
        })),
        "movers": t.movers,
        "records": t.records,
    })
}

fn span_data(s: &Span) -> Value {
    json!([s.file.0, s.start, s.end])
}

fn error_data(e: &RuntimeError) -> Value {
    json!({
        "message": e.message,
        "hint": e.hint,
        "span": e.span.as_ref().map(span_data),
        "chain": e.chain,
        "calls": e.calls.as_ref().map(|c| json!({
            "sites": c.sites.iter().map(|s| json!({
                "function": s.function,
                "at": span_data(&s.at),
                "times": s.times,
            })).collect::<Vec<_>>(),
            "more": c.more,
        })),
    })
}

/// The tally [`to_data`] wrote. The error says which field is missing or wrong.
pub fn from_data(data: &Value) -> Result<Tally, String> {
    let field = |name: &str| {
        data.get(name)
            .ok_or_else(|| format!("a tally's data has no field `{name}`"))
    };
    let count = |name: &str| {
        field(name)?
            .as_u64()
            .ok_or_else(|| format!("a tally's `{name}` is not a whole number"))
    };
    let wins = match field("wins")?.as_object() {
        Some(wins) => wins
            .iter()
            .map(|(w, k)| match k.as_u64() {
                Some(k) => Ok((w.clone(), k)),
                None => Err(format!("a tally's wins of `{w}` are not a whole number")),
            })
            .collect::<Result<_, _>>()?,
        None => return Err("a tally's `wins` is not an object".into()),
    };
    let movers = serde_json::from_value(field("movers")?.clone())
        .map_err(|e| format!("a tally's `movers`: {e}"))?;
    let records = serde_json::from_value(field("records")?.clone())
        .map_err(|e| format!("a tally's `records`: {e}"))?;
    let first_error = match field("first_error")? {
        Value::Null => None,
        e => Some(stopped_of(e)?),
    };
    Ok(Tally {
        games: count("games")?,
        wins,
        draws: count("draws")?,
        stuck: count("stuck")?,
        too_long: count("too_long")?,
        plies: count("plies")?,
        failed: count("failed")?,
        first_error,
        movers,
        records,
    })
}

fn stopped_of(v: &Value) -> Result<(u64, Stopped), String> {
    let bad = |what: &str| format!("a tally's first error: {what}");
    let index = (v.get("game").and_then(Value::as_u64)).ok_or_else(|| bad("no game number"))?;
    let plies = (v.get("plies").and_then(Value::as_u64))
        .and_then(|p| usize::try_from(p).ok())
        .ok_or_else(|| bad("no plies"))?;
    let action = match v.get("action") {
        Some(Value::String(a)) => Some(a.clone()),
        Some(Value::Null) | None => None,
        Some(_) => return Err(bad("the move is not a string")),
    };
    let error = error_of(v.get("error").ok_or_else(|| bad("no error"))?).map_err(|e| bad(&e))?;
    Ok((
        index,
        Stopped {
            plies,
            action,
            error: Box::new(error),
        },
    ))
}

fn span_of(v: &Value) -> Result<Span, String> {
    let parts: Vec<u64> = (v
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect()))
    .unwrap_or_default();
    let part = |i: usize| u32::try_from(parts[i]).map_err(|_| "a place out of range".to_string());
    if parts.len() != 3 {
        return Err("a place is not [file, start, end]".into());
    }
    Ok(Span {
        file: FileId(part(0)?),
        start: part(1)?,
        end: part(2)?,
    })
}

fn error_of(v: &Value) -> Result<RuntimeError, String> {
    let message = (v.get("message").and_then(Value::as_str)).ok_or("no message")?;
    let hint = v.get("hint").and_then(Value::as_str).map(str::to_string);
    let span = match v.get("span") {
        Some(Value::Null) | None => None,
        Some(s) => Some(span_of(s)?),
    };
    let chain = serde_json::from_value(v.get("chain").cloned().unwrap_or(json!([])))
        .map_err(|e| format!("the message chain: {e}"))?;
    let calls = match v.get("calls") {
        Some(Value::Null) | None => None,
        Some(c) => {
            let sites = (c.get("sites").and_then(Value::as_array))
                .ok_or("calls without sites")?
                .iter()
                .map(|s| {
                    Ok(CallSite {
                        function: (s.get("function").and_then(Value::as_str))
                            .ok_or("a call without its function")?
                            .to_string(),
                        at: span_of(s.get("at").unwrap_or(&Value::Null))?,
                        times: (s.get("times").and_then(Value::as_u64))
                            .and_then(|t| usize::try_from(t).ok())
                            .ok_or("a call without its times")?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            let more = (c.get("more").and_then(Value::as_u64))
                .and_then(|m| usize::try_from(m).ok())
                .ok_or("calls without `more`")?;
            Some(Box::new(Calls { sites, more }))
        }
    };
    Ok(RuntimeError {
        message: message.to_string(),
        hint,
        span,
        chain,
        calls,
    })
}
