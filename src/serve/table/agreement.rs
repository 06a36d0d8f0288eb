//! House rules by agreement, as at a real table: when two or more seats are played by
//! people, a change of the rules (a law or side-effect added, a variant, a rule switched
//! off, on or removed) and a take-back that passes over another seat's change, a change
//! the table agreed to, or an order that revealed the others' orders, is only proposed:
//! every other seat played by a person sees its full text and the checker's diagnostics,
//! and it is carried out when all of them have accepted. One decline drops it.
//!
//! Seats the server plays agree to everything (they have nobody to ask), so a person
//! playing against the server, and a table of one seat, change rules and take moves back
//! as in the REPL.

use std::collections::{HashMap, HashSet};

use serde_json::{Value as Json, json};

use crate::repl::command::Command;

use super::{Handled, Table};

/// The most proposals one seat may have waiting at once.
const MAX_WAITING: usize = 4;

/// Who made a change of the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Author {
    /// The player in this seat (or the server, for a seat it plays).
    Seat(usize),
    /// The table: a proposal every seat accepted.
    Table,
}

/// A change waiting for the other seats.
struct Proposal {
    id: u64,
    /// The seat that proposed it.
    by: usize,
    /// What it does, as the REPL command carried out when all accept.
    command: Command,
    /// What the checker said of it (warnings; empty when none).
    diagnostics: String,
    /// The seats that accepted it so far (the proposer among them).
    accepted: Vec<usize>,
    /// For a take-back, the version of the game it was proposed at: it is void once the
    /// game changes.
    at_version: Option<u64>,
}

/// The proposals waiting, and what the table knows of each change's author.
#[derive(Default)]
pub(super) struct Agreement {
    proposals: Vec<Proposal>,
    next_id: u64,
    /// Who made each change (by number) of the history.
    authors: HashMap<usize, Author>,
    /// The changes that were an order closing a round of simultaneous orders: taking one
    /// back would let its player give another order knowing the others'.
    revealing: HashSet<usize>,
    /// For each seat, what became of its last proposal (carried out, declined, void).
    notices: HashMap<usize, String>,
}

impl Agreement {
    /// Note who made change `n` and whether it revealed orders.
    pub(super) fn note(&mut self, n: usize, author: Author, revealing: bool) {
        self.authors.insert(n, author);
        if revealing {
            self.revealing.insert(n);
        } else {
            self.revealing.remove(&n);
        }
    }

    /// The game changed: take-backs proposed before are void.
    pub(super) fn game_changed(&mut self, version: u64) {
        let mut void = Vec::new();
        self.proposals.retain(|p| {
            let keep = p.at_version.is_none_or(|v| v == version);
            if !keep {
                void.push(p.by);
            }
            keep
        });
        for seat in void {
            self.notices.insert(
                seat,
                "your take-back request is void: the game changed before everyone accepted it"
                    .into(),
            );
        }
    }

    /// What seat `seat` is told of the proposals (every seat sees them all, with their
    /// texts) and of its own last one.
    pub(super) fn shown(&self, table: &Table, seat: Option<usize>) -> (Json, Json) {
        let player = |s: usize| table.players[s].to_text();
        let list: Vec<Json> = self
            .proposals
            .iter()
            .map(|p| {
                let waiting: Vec<String> = table
                    .others_to_ask(p.by)
                    .into_iter()
                    .filter(|s| !p.accepted.contains(s))
                    .map(player)
                    .collect();
                json!({
                    "id": p.id,
                    "by": player(p.by),
                    "kind": p.command.kind().name(),
                    "text": p.command.to_string(),
                    "diagnostics": p.diagnostics,
                    "accepted": p.accepted.iter().map(|&s| player(s)).collect::<Vec<_>>(),
                    "waiting": waiting,
                    "mine": seat == Some(p.by),
                    "yours": seat.is_some_and(|s| s != p.by && !p.accepted.contains(&s)
                        && table.others_to_ask(p.by).contains(&s)),
                })
            })
            .collect();
        let notice = seat
            .and_then(|s| self.notices.get(&s))
            .map_or(Json::Null, |n| json!(n));
        (json!(list), notice)
    }
}

impl Table {
    /// The seats played by people other than `seat`: those whose agreement a proposal of
    /// `seat` needs.
    pub(super) fn others_to_ask(&self, seat: usize) -> Vec<usize> {
        (0..self.seats.len())
            .filter(|&s| s != seat && self.seats[s].agent.is_none())
            .collect()
    }

    /// Whether `seat`'s `command` needs the other seats' agreement: a rule change at a
    /// table of several people, or a take-back passing over a change that was not
    /// `seat`'s own (or the server's), or that revealed orders.
    pub(super) fn needs_agreement(&self, seat: usize, command: &Command) -> bool {
        if self.others_to_ask(seat).is_empty() {
            return false;
        }
        let cursor = self.repl.history().cursor();
        let passed: Vec<usize> = match command {
            Command::Law { .. }
            | Command::SideEffect { .. }
            | Command::Rules { .. }
            | Command::Disable { .. }
            | Command::Enable { .. }
            | Command::Remove { .. } => return true,
            Command::Undo if cursor == 0 => return false,
            // The change taken back, and (when the server's seats answered it) back to
            // the change of a seat it does not play, which an undo takes back with them.
            Command::Undo => {
                let mut n = cursor;
                let mut passed = vec![n];
                while n > 1
                    && matches!(self.agreement.authors.get(&n),
                        Some(Author::Seat(s)) if self.seats[*s].agent.is_some())
                {
                    n -= 1;
                    passed.push(n);
                }
                passed
            }
            Command::Redo => vec![cursor + 1],
            Command::Goto(n) if *n < cursor => (*n + 1..=cursor).collect(),
            Command::Goto(n) => (cursor + 1..=*n).collect(),
            _ => return false,
        };
        let entries = self.repl.history().entries().len();
        passed
            .into_iter()
            .filter(|&n| n >= 1 && n <= entries)
            .any(|n| {
                self.agreement.revealing.contains(&n)
                    || match self.agreement.authors.get(&n) {
                        Some(Author::Seat(s)) => *s != seat && self.seats[*s].agent.is_none(),
                        _ => true,
                    }
            })
    }

    /// Propose `seat`'s `command` to the other seats: checked first (a rule that does not
    /// check is refused with its diagnostics, as when there is nobody to ask).
    pub(super) fn propose(
        &mut self,
        seat: usize,
        id: Option<u64>,
        command: Command,
    ) -> Result<Handled, String> {
        let waiting = self
            .agreement
            .proposals
            .iter()
            .filter(|p| p.by == seat)
            .count();
        if waiting >= MAX_WAITING {
            return Err(format!(
                "you have {MAX_WAITING} proposals waiting; withdraw one (decline it) before proposing another; nothing was done"
            ));
        }
        let diagnostics = match &command {
            Command::Law { definition, .. } => self.repl.check_rule(true, definition),
            Command::SideEffect { definition, .. } => self.repl.check_rule(false, definition),
            Command::Disable { name, .. }
            | Command::Enable { name, .. }
            | Command::Remove { name, .. } => {
                if self.repl.rules_in_force().iter().any(|r| r.name == *name) {
                    Ok(String::new())
                } else {
                    Err(format!(
                        "error: no law or side-effect named \"{name}\" is in force; nothing was proposed"
                    ))
                }
            }
            _ => Ok(String::new()),
        };
        let diagnostics = match diagnostics {
            Ok(d) => d,
            Err(refusal) => {
                return Ok(Handled::reply(
                    json!({"type": "reply", "id": id, "ok": false,
                    "changed": false, "text": refusal}),
                ));
            }
        };
        let navigating = matches!(command, Command::Undo | Command::Redo | Command::Goto(_));
        self.agreement.next_id += 1;
        let proposal = Proposal {
            id: self.agreement.next_id,
            by: seat,
            command,
            diagnostics,
            accepted: vec![seat],
            at_version: navigating.then_some(self.version),
        };
        let others: Vec<String> = self
            .others_to_ask(seat)
            .into_iter()
            .map(|s| self.players[s].to_text())
            .collect();
        let what = if navigating {
            "a take-back request"
        } else {
            "a rule change"
        };
        let text = format!(
            "proposed {what} (proposal {}): it is carried out when player{} {} accept{}; nothing changed yet",
            proposal.id,
            if others.len() == 1 { "" } else { "s" },
            others.join(", "),
            if others.len() == 1 { "s" } else { "" },
        );
        let pid = proposal.id;
        self.agreement.proposals.push(proposal);
        self.agreement.notices.remove(&seat);
        self.shown.clear();
        let mut handled = Handled::reply(json!({"type": "reply", "id": id, "ok": true,
            "changed": false, "proposal": pid, "text": text}));
        handled.shown = true;
        Ok(handled)
    }

    /// `seat` accepts (`yes`) or declines proposal `pid`; declining one's own withdraws
    /// it. The last acceptance carries it out, as the proposer's request.
    pub(super) fn answer(
        &mut self,
        seat: usize,
        id: Option<u64>,
        pid: u64,
        yes: bool,
    ) -> Result<Handled, String> {
        let Some(at) = self.agreement.proposals.iter().position(|p| p.id == pid) else {
            return Err(format!(
                "no proposal {pid} is waiting (it was carried out, declined or void); nothing was done"
            ));
        };
        let by = self.agreement.proposals[at].by;
        let asked = self.others_to_ask(by);
        if seat != by && !asked.contains(&seat) {
            return Err(format!("proposal {pid} is not yours to answer"));
        }
        let me = self.players[seat].to_text();
        if !yes {
            let p = self.agreement.proposals.remove(at);
            let text = if seat == p.by {
                format!("proposal {pid} withdrawn")
            } else {
                self.agreement.notices.insert(
                    p.by,
                    format!(
                        "your proposal {pid} ({}) was declined by player {me}",
                        p.command
                    ),
                );
                format!("proposal {pid} declined")
            };
            self.shown.clear();
            let mut handled = Handled::reply(
                json!({"type": "reply", "id": id, "ok": true, "changed": false, "text": text}),
            );
            handled.shown = true;
            return Ok(handled);
        }
        if seat == by || self.agreement.proposals[at].accepted.contains(&seat) {
            return Err(format!("you have accepted proposal {pid} already"));
        }
        self.agreement.proposals[at].accepted.push(seat);
        let all = asked
            .iter()
            .all(|s| self.agreement.proposals[at].accepted.contains(s));
        if !all {
            self.shown.clear();
            let mut handled = Handled::reply(json!({"type": "reply", "id": id, "ok": true,
                "changed": false, "text": format!("proposal {pid} accepted; it waits for the others")}));
            handled.shown = true;
            return Ok(handled);
        }
        let p = self.agreement.proposals.remove(at);
        let (mut handled, text) = self.carry_out(p.by, id, p.command.clone(), true)?;
        self.agreement.notices.insert(
            p.by,
            format!(
                "your proposal {pid} ({}) was accepted by all: {text}",
                p.command
            ),
        );
        self.shown.clear();
        handled.shown = true;
        Ok(handled)
    }
}
