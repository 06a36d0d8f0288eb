//! Following a bidding system in a match: the qualities of the player to move (the
//! game's functions `quality-<name>`, or what a `set` gave that player earlier in the
//! auction), the rules walked in document order, and the first bid whose tests all hold
//! and that is legal now played.

use std::collections::HashMap;

use super::{Comparison, Item, QUALITY_PREFIX, Rule, System};
use crate::api::{CandidateItems, Function, Match, RuntimeError, Status};
use crate::play::playout::{Chooser, Drawn, draw_legal};

/// The game's quality functions, compiled to be called with no arguments: by name,
/// without the `quality-` prefix.
#[derive(Clone, Debug, Default)]
pub struct Qualities(pub Vec<(String, Function)>);

impl Qualities {
    /// The game's functions `quality-<name>` that take no parameters.
    pub fn of(m: &mut Match) -> Qualities {
        let mut out = Vec::new();
        for full in m.function_names(QUALITY_PREFIX) {
            if let Ok(Some(f)) = m.function(&full, "a bidding system") {
                out.push((full[QUALITY_PREFIX.len()..].to_string(), f));
            }
        }
        Qualities(out)
    }

    /// Their names.
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|(n, _)| n.clone()).collect()
    }
}

/// What `set` gave each player (by the text `to-move` gives), kept for one game.
pub type Memory = HashMap<String, HashMap<String, String>>;

/// The call a system made, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The call (its ASCII name); `Pass` when no rule gave a legal bid.
    pub call: String,
    /// The tests that held on the way to it, outermost first (`points greater-or-equal
    /// 12`), each after its group's purpose; empty for the pass no rule gave.
    pub path: Vec<String>,
    /// The comments of the `if`s on that way, in document order.
    pub comments: Vec<String>,
}

/// One walk of the rules for one call.
struct Walk<'a> {
    system: &'a System,
    qualities: &'a Qualities,
    player: String,
    /// Quality values read during this walk.
    cache: HashMap<String, String>,
    /// What `set` gave this player, with the sets of this walk.
    memory: HashMap<String, String>,
}

impl Walk<'_> {
    /// The value of quality `name` now ("nil" for a quality that fails to give one).
    fn quality(&mut self, m: &mut Match, name: &str) -> Result<Option<String>, RuntimeError> {
        if let Some(v) = self.memory.get(name) {
            return Ok(Some(v.clone()));
        }
        if let Some(v) = self.cache.get(name) {
            return Ok(Some(v.clone()));
        }
        let Some((_, f)) = self.qualities.0.iter().find(|(n, _)| n == name) else {
            return Ok(None);
        };
        let v = match m.call(*f) {
            Status::Committed(v) => v.to_text(),
            Status::Failed(e) => return Err(e),
            Status::Vetoed { .. } | Status::RolledBack { .. } => "nil".to_string(),
        };
        self.cache.insert(name.to_string(), v.clone());
        Ok(Some(v))
    }

    /// A `value`: the quality it names, else itself.
    fn value(&mut self, m: &mut Match, text: &str) -> Result<String, RuntimeError> {
        Ok(self.quality(m, text)?.unwrap_or_else(|| text.to_string()))
    }

    fn holds(&mut self, m: &mut Match, rule: &Rule) -> Result<bool, RuntimeError> {
        let left = self
            .quality(m, &rule.name.text)?
            .unwrap_or_else(|| "nil".into());
        let right = self.value(m, &rule.value.text)?;
        Ok(compare(&left, rule.comparison, &right))
    }

    /// Walk `rule` (whose enclosing tests held): the first bid under it that holds and
    /// commits, with the way to it.
    fn rule(
        &mut self,
        m: &mut Match,
        rule: &Rule,
        path: &mut Vec<String>,
        comments: &mut Vec<String>,
        play: &mut dyn FnMut(&mut Match, &str) -> bool,
    ) -> Result<Option<String>, RuntimeError> {
        if !self.holds(m, rule)? {
            return Ok(None);
        }
        path.push(format!(
            "{} {} {}",
            rule.name.text,
            rule.comparison.name(),
            rule.value.text
        ));
        let kept = comments.len();
        for item in &rule.items {
            match item {
                Item::Comment(c) => comments.push(c.clone()),
                Item::Set { name, value } => {
                    let v = self.value(m, &value.text)?;
                    self.memory.insert(name.text.clone(), v);
                }
                Item::Bid(call) => {
                    if play(m, &call.text) {
                        return Ok(Some(call.text.clone()));
                    }
                }
                Item::If(inner) => {
                    if let Some(call) = self.rule(m, inner, path, comments, play)? {
                        return Ok(Some(call));
                    }
                }
            }
        }
        path.pop();
        comments.truncate(kept);
        Ok(None)
    }
}

/// How `left` compares with `right`: as numbers when both are, else as texts.
fn compare(left: &str, how: Comparison, right: &str) -> bool {
    let order = match (left.trim().parse::<f64>(), right.trim().parse::<f64>()) {
        (Ok(a), Ok(b)) => a.partial_cmp(&b),
        _ => Some(left.cmp(right)),
    };
    let Some(order) = order else {
        return how == Comparison::NotEqual;
    };
    use std::cmp::Ordering::*;
    match how {
        Comparison::Equal => order == Equal,
        Comparison::NotEqual => order != Equal,
        Comparison::Less => order == Less,
        Comparison::LessOrEqual => order != Greater,
        Comparison::Greater => order == Greater,
        Comparison::GreaterOrEqual => order != Less,
    }
}

/// The call `system` makes for `player` now: the rules walked in document order, each
/// bid whose `if`s all hold offered to `play` (which plays it and says whether it was
/// legal) until one is; none, and `None` (the caller passes). The `set`s met on the way
/// are kept in `memory` for `player`.
pub fn choose(
    m: &mut Match,
    system: &System,
    qualities: &Qualities,
    player: &str,
    memory: &mut Memory,
    play: &mut dyn FnMut(&mut Match, &str) -> bool,
) -> Result<Option<Choice>, RuntimeError> {
    let mut walk = Walk {
        system,
        qualities,
        player: player.to_string(),
        cache: HashMap::new(),
        memory: memory.get(player).cloned().unwrap_or_default(),
    };
    let mut chosen = None;
    'groups: for group in &walk.system.groups {
        for rule in &group.rules {
            let mut path = vec![group.purpose.clone()];
            let mut comments = Vec::new();
            if let Some(call) = walk.rule(m, rule, &mut path, &mut comments, play)? {
                chosen = Some(Choice {
                    call,
                    path,
                    comments,
                });
                break 'groups;
            }
        }
    }
    memory.insert(walk.player.clone(), walk.memory);
    Ok(chosen)
}

/// Make the move of a player whose agent follows `system`: when `Pass` is among the
/// candidates (an auction is on), the call the system gives, or `Pass` when it gives
/// none; otherwise a legal move at random, as a random agent draws it.
#[allow(clippy::too_many_arguments)]
pub(in crate::play) fn decide(
    m: &mut Match,
    system: &System,
    qualities: &Qualities,
    player: Option<&str>,
    memory: &mut Memory,
    candidates: &CandidateItems,
    undrawn: &mut Vec<usize>,
    chooser: &mut Chooser,
) -> Result<Drawn, RuntimeError> {
    let names: Vec<String> = (0..candidates.len())
        .map(|i| candidates.get(i).map(|c| c.name()).unwrap_or_default())
        .collect();
    let Some(player) = player.filter(|_| names.iter().any(|n| n == "Pass")) else {
        return Ok(draw_legal(m, candidates, undrawn, chooser));
    };
    let mut failed = None;
    let mut play = |m: &mut Match, call: &str| -> bool {
        for (i, n) in names.iter().enumerate() {
            if n != call {
                continue;
            }
            let Some(c) = candidates.get(i) else { continue };
            match m.try_move(c.clone()) {
                Status::Committed(_) => {
                    if m.is_recording() {
                        m.note_played(call.to_string());
                    }
                    return true;
                }
                Status::Failed(e) => {
                    failed.get_or_insert((c, e));
                }
                Status::Vetoed { .. } | Status::RolledBack { .. } => {}
            }
        }
        false
    };
    if choose(m, system, qualities, player, memory, &mut play)?.is_some() || play(m, "Pass") {
        return Ok(Drawn::Legal);
    }
    if let Some((c, e)) = failed {
        return Ok(Drawn::Failed(c, e));
    }
    Ok(draw_legal(m, candidates, undrawn, chooser))
}
