//! One line of text for each trace event, indented by its depth: what `flexrules run` and
//! the REPL print for a traced transaction.

use super::trace::TraceEvent;

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
