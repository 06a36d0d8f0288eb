//! Information-set Monte Carlo tree search, single observer (Cowling, Powley and
//! Whitehouse, 2012): the `ismcts` agent, which decides from what its own player has seen.
//!
//! Each iteration samples a *determinization*: the search's copy of the world, its random
//! generator reseeded from the search's own stream (future chance is unknown to the
//! player), then remade by the game's `resample` (one parameter, the player deciding; it
//! runs as the user, so it may update any entity's properties) at random wherever the
//! player cannot see, consistent with what it has seen. The iteration then goes down ONE
//! tree whose positions are sequences of move names, choosing at each position only among
//! the moves legal in that determinization (every candidate of `#actions` tried), by the
//! UCT rule in which a move's exploration term counts the iterations in which it was
//! *available* rather than its parent's visits; adds one move not in the tree yet, plays
//! at random to the end (or, where the game defines `evaluate`, for a few moves, then
//! scored), and counts the ending for every move on the way, for the player who made it.
//!
//! Orders given at once (`to-move` a list) are searched like any move: each belongs to its
//! message's player (`by`, else `player`), and at the root only the deciding player's own
//! orders are chosen among, restricted to those legal in the world as it is (the player
//! knows its own moves). A later order of the same round is chosen, in the tree, knowing
//! the earlier ones (the single-observer tree's caution: it counts on the others answering
//! well). Without `resample` the world is searched as it is, hidden things included: a
//! game that hides things defines it.

use std::collections::BTreeMap;

use super::agent::{Agent, Agents, RESAMPLE};
use super::mcts::{EXPLORATION, Failure, MoveScore, Outcome, evaluate, worth};
use super::playout::{
    Chooser, Drawn, Ending, draw_legal, ending, play_unwatched, settle, try_answering,
};
use crate::api::{Candidate, Match, RuntimeError, Status, player_of};

/// What a search spends and whether it samples worlds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    /// Iterations (each a world sampled, a path down the tree, a random playout), at
    /// least 1.
    pub iterations: u32,
    /// Whether each iteration samples a world from what the player has seen (the agent
    /// always does). `false` searches the world as it is, hidden things included: a
    /// search that peeks, to measure what the sampling hides from it.
    pub determinize: bool,
}

/// A position of the tree: the sequence of move names from the root that leads to it.
struct Node {
    /// Who made the move that led here (`None` at the root, or nobody in particular).
    mover: Option<String>,
    /// The positions reached by each move tried from here, by the move's name.
    children: BTreeMap<String, usize>,
    /// Iterations that went through here.
    visits: u32,
    /// Iterations in which the move that leads here was legal at its parent.
    available: u32,
    /// What those visits were worth to `mover` (1 a win, ½ a draw, 0 a loss).
    reward: f64,
}

impl Node {
    fn new(mover: Option<String>) -> Node {
        Node {
            mover,
            children: BTreeMap::new(),
            visits: 0,
            available: 0,
            reward: 0.0,
        }
    }
}

/// A legal move of a position: its name, the player it belongs to, the candidate.
type Legal = (String, Option<String>, Candidate);

/// The move a search chose: its name and its candidate in the world as it is.
type Chosen = (String, Candidate);

/// Choose `player`'s move by the search and play it (the move tried most), as an agent
/// in a game does. With no player in particular to move, or when the player has no legal
/// move of its own, a move is drawn at random among all the candidates. The moves the
/// search tries are not recorded; the world after the move is exactly the one the move
/// leaves.
pub(super) fn play(
    m: &mut Match,
    agents: &Agents,
    player: Option<&str>,
    chooser: &mut Chooser,
    iterations: u32,
    max_plies: usize,
    undrawn: &mut Vec<usize>,
) -> Result<Drawn, Failure> {
    let search = Search {
        iterations,
        determinize: true,
    };
    let chosen = match player {
        Some(p) => analyse_with(m, agents, p, chooser, search, max_plies)?.1,
        None => None,
    };
    let Some((name, candidate)) = chosen else {
        let candidates = m.candidates().map_err(|e| (None, e))?;
        return Ok(draw_legal(m, &candidates, undrawn, chooser));
    };
    let mut answers = Vec::new();
    match try_answering(m, candidate, chooser, &mut answers) {
        Status::Committed(_) => {
            m.note_played(name);
            for answer in answers {
                m.note_played(answer);
            }
            Ok(Drawn::Legal)
        }
        Status::Failed(e) => Err((Some(name), e)),
        Status::Vetoed { .. } | Status::RolledBack { .. } => Ok(Drawn::None),
    }
}

/// What the search thinks of each of `player`'s legal moves now: most visited (its
/// choice) first, each with its visits and mean score for `player` (1 a win, ½ a draw, 0 a
/// loss). Random playouts stop after `max_plies` moves (a draw). The world is left as it
/// was; the error is one met while searching, with the candidate that failed, if it was
/// one. A single legal move is given without searching (0 visits).
pub fn analyse(
    m: &mut Match,
    agents: &Agents,
    player: &str,
    chooser: &mut Chooser,
    search: Search,
    max_plies: usize,
) -> Result<Vec<MoveScore>, Failure> {
    analyse_with(m, agents, player, chooser, search, max_plies).map(|(scores, _)| scores)
}

/// [`analyse`], with the move chosen and its candidate in the world as it is.
fn analyse_with(
    m: &mut Match,
    agents: &Agents,
    player: &str,
    chooser: &mut Chooser,
    search: Search,
    max_plies: usize,
) -> Result<(Vec<MoveScore>, Option<Chosen>), Failure> {
    let drawing = m.stop_drawing();
    // The moves the search tries are not the game's.
    let recorded = m.take_recorded();
    let root = m.position().clone();
    let mut mine = Vec::new();
    let searched = legal_moves(m, agents, Some(player), None, &mut mine).and_then(|()| {
        if mine.len() <= 1 {
            return Ok(Vec::new());
        }
        search_tree(m, agents, player, &mine, chooser, search, max_plies)
    });
    m.set_position(root);
    if let Some(names) = recorded {
        m.resume_recording(names);
    }
    if let Some(drawing) = drawing {
        m.resume_drawing(drawing);
    }
    let mut scores = searched?;
    if scores.is_empty() {
        scores = mine
            .iter()
            .map(|(name, _, _)| MoveScore {
                name: name.clone(),
                visits: 0,
                score: 0.0,
            })
            .collect();
    }
    let chosen = scores.first().and_then(|best| {
        mine.into_iter()
            .find(|(name, _, _)| *name == best.name)
            .map(|(name, _, c)| (name, c))
    });
    Ok((scores, chosen))
}

/// The search proper, from the match's position, for `player`, whose legal moves there
/// are `mine` (two or more): the root's moves, most visited first. The position is left
/// where the last iteration ended.
fn search_tree(
    m: &mut Match,
    agents: &Agents,
    player: &str,
    mine: &[Legal],
    chooser: &mut Chooser,
    search: Search,
    max_plies: usize,
) -> Result<Vec<MoveScore>, Failure> {
    let root = m.position().clone();
    let resample = if search.determinize {
        m.function_with(RESAMPLE, player, "`ismcts`")
            .map_err(|e| (None, plain_error(e)))?
    } else {
        None
    };
    let names: Vec<&str> = mine.iter().map(|(n, _, _)| n.as_str()).collect();
    let depth = Agent::EVALUATE_AFTER as usize;
    let mut tree = vec![Node::new(None)];
    let mut path = Vec::new();
    let mut legal = Vec::new();
    let mut fresh = Vec::new();
    for _ in 0..search.iterations {
        m.set_position(root.clone());
        if search.determinize {
            m.set_random_state(chooser.next_u64());
            if let Some(code) = resample {
                sample(m, code, player)?;
            }
        }
        path.clear();
        path.push(0);
        let mut at = 0;
        let mut plies = 0;
        let mut settled = 0;
        let outcome = loop {
            if let Some(over) = ending(m) {
                break Outcome::Ended(over);
            }
            if plies >= max_plies {
                break Outcome::Ended(Ending::TooLong);
            }
            let only = (at == 0).then_some((player, names.as_slice()));
            legal_moves(m, agents, only.map(|o| o.0), only.map(|o| o.1), &mut legal)?;
            if legal.is_empty() {
                // No legal move here: what the game's `no-legal-move` makes of it.
                if !settle(m, &mut settled).map_err(|e| (None, e))? {
                    break Outcome::Ended(Ending::Stuck);
                }
                continue;
            }
            fresh.clear();
            for (i, (name, _, _)) in legal.iter().enumerate() {
                match tree[at].children.get(name) {
                    Some(&child) => tree[child].available += 1,
                    None => fresh.push(i),
                }
            }
            if !fresh.is_empty() {
                // A move not in the tree yet: added, then a random playout from there.
                let (name, owner, candidate) = legal.swap_remove(fresh[chooser.below(fresh.len())]);
                match try_answering(m, candidate, chooser, &mut Vec::new()) {
                    Status::Committed(_) => {}
                    Status::Failed(e) => return Err((Some(name), e)),
                    Status::Vetoed { .. } | Status::RolledBack { .. } => {
                        break Outcome::Ended(Ending::Stuck);
                    }
                }
                let child = tree.len();
                let mut node = Node::new(owner);
                node.available = 1;
                tree.push(node);
                tree[at].children.insert(name, child);
                path.push(child);
                if let Some(over) = ending(m) {
                    break Outcome::Ended(over);
                }
                let mut left = max_plies - plies - 1;
                if agents.evaluate.is_some() {
                    left = left.min(depth);
                }
                let played = play_unwatched(m, chooser, left).map_err(|s| (s.action, *s.error))?;
                break match (played.ending, agents.evaluate) {
                    (Ending::TooLong, Some(code)) => {
                        Outcome::Scored(evaluate(m, code).map_err(|e| (None, e))?)
                    }
                    (over, _) => Outcome::Ended(over),
                };
            }
            // Every legal move is in the tree: UCT over them, counting availability.
            let mut best = (f64::NEG_INFINITY, 0, 0);
            for (i, (name, _, _)) in legal.iter().enumerate() {
                let child = tree[at].children[name];
                let node = &tree[child];
                let score = if node.visits == 0 {
                    f64::INFINITY
                } else {
                    let v = f64::from(node.visits);
                    let n = f64::from(node.available.max(1));
                    node.reward / v + EXPLORATION * (n.ln() / v).sqrt()
                };
                if score > best.0 {
                    best = (score, i, child);
                }
            }
            let (name, _, candidate) = legal.swap_remove(best.1);
            match try_answering(m, candidate, chooser, &mut Vec::new()) {
                Status::Committed(_) => {}
                Status::Failed(e) => return Err((Some(name), e)),
                Status::Vetoed { .. } | Status::RolledBack { .. } => {
                    break Outcome::Ended(Ending::Stuck);
                }
            }
            at = best.2;
            path.push(at);
            plies += 1;
            settled = 0;
        };
        for &n in &path {
            let node = &mut tree[n];
            node.visits += 1;
            node.reward += worth(&outcome, node.mover.as_deref());
        }
    }
    let mut scores: Vec<MoveScore> = tree[0]
        .children
        .iter()
        .map(|(name, &n)| MoveScore {
            name: name.clone(),
            visits: tree[n].visits,
            score: tree[n].reward / f64::from(tree[n].visits.max(1)),
        })
        .collect();
    // Ties go to the move `#actions` proposes first.
    scores.sort_by_key(|s| {
        let place = names.iter().position(|n| *n == s.name);
        (std::cmp::Reverse(s.visits), place)
    });
    Ok(scores)
}

/// Remake what `player` cannot see: run the game's `(resample <player>)`, keeping what it
/// changes. A failure (or a `resample` that does not commit) is an error naming it.
fn sample(m: &mut Match, code: crate::api::Function, player: &str) -> Result<(), Failure> {
    match m.run(code) {
        Status::Committed(_) => Ok(()),
        Status::Failed(mut e) => {
            e.message = format!(
                "the game's `({RESAMPLE} {player})` failed (ismcts remakes what player {player} cannot see with it): {}",
                e.message
            );
            Err((None, e))
        }
        Status::Vetoed { .. } | Status::RolledBack { .. } => {
            let mut e = plain_error(format!(
                "the game's `({RESAMPLE} {player})` did not commit (it was rolled back): ismcts cannot remake what player {player} cannot see"
            ));
            e.span = Some(m.function_span(code));
            Err((None, e))
        }
    }
}

/// The legal moves of the match's position, each with its player (the one player
/// `to-move` names, or, when it names several or none, the move's own `by` or `player`):
/// every candidate of `#actions` tried in place and taken back. With `only`, just that
/// player's moves (and, with `names`, just those named there). A candidate that fails
/// is an error.
fn legal_moves(
    m: &mut Match,
    agents: &Agents,
    only: Option<&str>,
    names: Option<&[&str]>,
    out: &mut Vec<Legal>,
) -> Result<(), Failure> {
    out.clear();
    let players = m.players_by(agents.to_move).map_err(|e| (None, e))?;
    let candidates = m.candidates().map_err(|e| (None, e))?;
    for i in 0..candidates.len() {
        let Some(candidate) = candidates.get(i) else {
            continue;
        };
        let owner = match players.as_slice() {
            [one] => Some(one.clone()),
            _ => player_of(&candidate),
        };
        if only.is_some_and(|p| owner.as_deref() != Some(p)) {
            continue;
        }
        let name = candidate.name();
        if names.is_some_and(|names| !names.contains(&name.as_str())) {
            continue;
        }
        match m.test_move(&candidate) {
            Status::Committed(_) => out.push((name, owner, candidate)),
            Status::Failed(e) => return Err((Some(name), e)),
            Status::Vetoed { .. } | Status::RolledBack { .. } => {}
        }
    }
    Ok(())
}

/// An error of the search that no code of the game's made.
fn plain_error(message: String) -> RuntimeError {
    RuntimeError {
        message,
        hint: None,
        span: None,
        chain: Vec::new(),
        calls: None,
    }
}
