//! Monte Carlo tree search: the UCT rule, a fixed number of iterations, random
//! playouts to the end of the game (or, where the game defines `evaluate`, for a few
//! moves, then scored by it) as its evaluation, and the move whose subtree was visited
//! most as its choice; and games whose moves agents choose, one of them searching
//! ([`playout_with`]).
//!
//! Every node of the search tree keeps its world (a persistent value: what it shares
//! with its parent is not copied), so an iteration never replays the moves above it. The
//! random choices come from the game's [`Chooser`], so a game's moves depend only on the
//! seed and the game's number. A move that waits for a signal is answered at random
//! among its answers inside the search's trials, as in a random playout (not by the agent
//! of the player who must answer): the move chosen is played with the answers its trial
//! drew.

use std::collections::BTreeSet;

use super::agent::{Agent, Agents, EVALUATE};
use super::playout::{
    Chooser, Drawn, Ending, Playout, Stopped, draw_legal, ending, play_unwatched, settle, stands,
    try_answering, unwatched_game,
};
use crate::api::{
    Candidate, CandidateItems, Function, Match, Position, RuntimeError, Status, Value,
};

/// A legal move as a search saw it ([`analyse`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MoveScore {
    /// Its name.
    pub name: String,
    /// Iterations that went through it.
    pub visits: u32,
    /// Their mean worth to the player who makes it: 1 a win, ½ a draw, 0 a loss.
    pub score: f64,
}

/// What a search may spend: its iterations, and the moves of a playout before the game's
/// `evaluate` scores the position (see [`Agent::Mcts`]).
pub type Budget = (u32, Option<u32>);

/// An error met while searching: the candidate that failed, if it was one, and the error.
pub type Failure = (Option<String>, RuntimeError);

/// The error of a search asked to choose among simultaneous moves.
fn simultaneous(player: &str, to_move: Function, m: &Match) -> RuntimeError {
    RuntimeError {
        message: format!(
            "several players are to move at once (to-move gave a list), and player {player}'s agent searches: Monte Carlo tree search plays one player's moves at a time, seeing the world whole, and would see the orders the others have given"
        ),
        hint: Some(
            "give the players who move at once the agent `random`, or `ismcts`, which decides from what its player has seen"
                .into(),
        ),
        span: Some(m.function_span(to_move)),
        chain: Vec::new(),
        calls: None,
    }
}

/// The exploration constant of UCT (√2, for rewards between 0 and 1).
pub(super) const EXPLORATION: f64 = std::f64::consts::SQRT_2;

/// A position of the search tree.
struct Node {
    /// The world here.
    world: Position,
    /// Who made the move that led here (`None` at the root, or nobody in particular).
    mover: Option<String>,
    /// Who moves here.
    to_move: Option<String>,
    /// How the game stands here: `Some` when it is over (or no move is legal: `Stuck`).
    ending: Option<Ending>,
    /// The candidates of `#actions` here, read when the node is first expanded.
    candidates: Option<CandidateItems>,
    /// The places in `candidates` not drawn yet.
    undrawn: Vec<usize>,
    /// The nodes reached by the legal moves drawn so far, with those moves.
    children: Vec<(usize, Candidate)>,
    /// The answers given to the signals the move that led here waited for, drawn at
    /// random inside the trial (`<signal>=<tag>`).
    answers: Vec<String>,
    /// Iterations that went through here.
    visits: u32,
    /// What those iterations were worth to `mover` (1 a win, ½ a draw, 0 a loss).
    reward: f64,
}

impl Node {
    fn new(
        world: Position,
        mover: Option<String>,
        to_move: Option<String>,
        ending: Option<Ending>,
    ) -> Node {
        Node {
            world,
            mover,
            to_move,
            ending,
            candidates: None,
            undrawn: Vec::new(),
            children: Vec::new(),
            answers: Vec::new(),
            visits: 0,
            reward: 0.0,
        }
    }

    /// Whether every candidate here has been drawn.
    fn expanded(&self) -> bool {
        self.candidates.is_some() && self.undrawn.is_empty()
    }
}

/// How an iteration of a search ended: the game's ending, or a position `evaluate`
/// scored (each player, by text, and its worth to that player, from 0 to 1).
pub(super) enum Outcome {
    Ended(Ending),
    Scored(Vec<(String, f64)>),
}

/// What an outcome is worth to `player`: 1 a win, 0 a loss, ½ anything else (a draw, a
/// game stuck or too long, or nobody in particular); a scored position, its score (½ for
/// a player `evaluate` does not name).
pub(super) fn worth(outcome: &Outcome, player: Option<&str>) -> f64 {
    match (outcome, player) {
        (Outcome::Ended(Ending::Winner(w)), Some(p)) => {
            if w.to_text() == p {
                1.0
            } else {
                0.0
            }
        }
        (Outcome::Scored(scores), Some(p)) => {
            scores.iter().find(|(q, _)| q == p).map_or(0.5, |(_, w)| *w)
        }
        _ => 0.5,
    }
}

/// What the game's `(evaluate)` says the current position is worth to each player.
pub(super) fn evaluate(m: &mut Match, code: Function) -> Result<Vec<(String, f64)>, RuntimeError> {
    let bad = |what: String, m: &Match| RuntimeError {
        message: format!("({EVALUATE}) gave {what}"),
        hint: Some(format!(
            "{EVALUATE} gives a dictionary of each player (as to-move names it) to a number from 0 (lost) to 1 (won)"
        )),
        span: Some(m.function_span(code)),
        chain: Vec::new(),
        calls: None,
    };
    let scores = match m.call(code) {
        Status::Committed(Value::Dict(d)) => d,
        Status::Committed(v) => return Err(bad(format!("{} {v}", v.type_name()), m)),
        Status::Failed(e) => return Err(e),
        other => return Err(bad(format!("no value: {}", other.summary()), m)),
    };
    let mut out = Vec::with_capacity(scores.len());
    for (k, v) in scores.iter() {
        let w = match v {
            Value::Int(i) => *i as f64,
            Value::Float(f) => f.get(),
            other => return Err(bad(format!("{other} for player {}", k.to_value()), m)),
        };
        out.push((k.to_value().to_text(), w.clamp(0.0, 1.0)));
    }
    Ok(out)
}

/// Play a game from the current world to its end, each move chosen by the agent of
/// the player to move (see [`Agents`]): as [`super::playout::playout`], which is this with
/// `random` for every player. The players who had the move are added to `movers`
/// (each once; `nil` is not a player).
pub fn playout_with(
    m: &mut Match,
    agents: &Agents,
    chooser: &mut Chooser,
    max_plies: usize,
    movers: &mut BTreeSet<String>,
) -> Result<Playout, Stopped> {
    unwatched_game(m, |m| play_agents(m, agents, chooser, max_plies, movers))
}

fn play_agents(
    m: &mut Match,
    agents: &Agents,
    chooser: &mut Chooser,
    max_plies: usize,
    movers: &mut BTreeSet<String>,
) -> Result<Playout, Stopped> {
    let mut plies = 0;
    let mut undrawn = Vec::new();
    let mut settled = 0;
    // What bidding systems `set` for each player, for this game.
    let mut memory = super::system::Memory::new();
    loop {
        if let Some(over) = stands(m, plies, max_plies) {
            return Ok(over);
        }
        let stopped = |action: Option<String>, error: RuntimeError| Stopped {
            plies,
            action,
            error: Box::new(error),
        };
        let players = m.players_by(agents.to_move).map_err(|e| stopped(None, e))?;
        for p in &players {
            if !movers.contains(p) {
                movers.insert(p.clone());
            }
        }
        // Several players at once (simultaneous moves): each candidate is some
        // player's, and all of them are drawn from alike when every one plays at
        // random; else the first whose agent does not gives its own order, which only
        // `ismcts` (which does not see the orders given) can.
        let mut decider = None;
        let agent = match players.as_slice() {
            [] => &agents.others,
            [one] => agents.of(Some(one)),
            several => match several
                .iter()
                .find(|p| *agents.of(Some(p)) != Agent::Random)
            {
                None => &Agent::Random,
                Some(p) => match agents.of(Some(p)) {
                    a @ Agent::Ismcts { .. } => {
                        decider = Some(p.clone());
                        a
                    }
                    _ => return Err(stopped(None, simultaneous(p, agents.to_move, m))),
                },
            },
        };
        let player = decider.or_else(|| players.into_iter().next());
        let drawn = match agent {
            Agent::Random => {
                let candidates = m.candidates().map_err(|e| stopped(None, e))?;
                draw_legal(m, &candidates, &mut undrawn, chooser)
            }
            Agent::Mcts { iterations, depth } => search(
                m,
                agents,
                player,
                chooser,
                (*iterations, *depth),
                max_plies - plies,
            )
            .map_err(|(action, e)| stopped(action, e))?,
            Agent::Ismcts { iterations } => super::ismcts::play(
                m,
                agents,
                player.as_deref(),
                chooser,
                *iterations,
                max_plies - plies,
                &mut undrawn,
            )
            .map_err(|(action, e)| stopped(action, e))?,
            Agent::System(s) => {
                let candidates = m.candidates().map_err(|e| stopped(None, e))?;
                super::system::decide(
                    m,
                    &s.system,
                    &agents.qualities,
                    player.as_deref(),
                    &mut memory,
                    &candidates,
                    &mut undrawn,
                    chooser,
                )
                .map_err(|e| stopped(None, e))?
            }
        };
        match drawn {
            Drawn::Legal => {
                plies += 1;
                settled = 0;
            }
            Drawn::Failed(a, error) => return Err(stopped(Some(a.name()), error)),
            Drawn::None => {
                if !settle(m, &mut settled).map_err(|e| stopped(None, e))? {
                    return Ok(Playout {
                        ending: Ending::Stuck,
                        plies,
                    });
                }
            }
        }
    }
}

/// Choose a move by Monte Carlo tree search (see [`search_tree`]) and play
/// it: the move whose subtree was visited most. An error met while searching stops
/// the game (with the candidate that failed, if it was one); the world is then as it
/// was.
fn search(
    m: &mut Match,
    agents: &Agents,
    root_player: Option<String>,
    chooser: &mut Chooser,
    budget: Budget,
    plies_left: usize,
) -> Result<Drawn, Failure> {
    let root_world = m.position().clone();
    // The moves the search tries are not the game's.
    let recorded = m.take_recorded();
    let tree = search_tree(
        m,
        &root_world,
        agents,
        root_player,
        chooser,
        budget,
        plies_left,
    );
    let best = tree.as_ref().ok().and_then(|tree| {
        let (n, candidate) = tree[0]
            .children
            .iter()
            .max_by_key(|(n, _)| tree[*n].visits)?;
        Some((tree[*n].world.clone(), candidate.clone(), *n))
    });
    let played = best.is_some();
    if let Some(mut names) = recorded {
        if let (Some((_, candidate, n)), Ok(tree)) = (&best, &tree) {
            names.push(candidate.name());
            names.extend(tree[*n].answers.iter().cloned());
        }
        m.resume_recording(names);
    }
    m.set_position(best.map_or(root_world, |(world, _, _)| world));
    tree.map(|_| if played { Drawn::Legal } else { Drawn::None })
}

/// What Monte Carlo tree search thinks of each legal move now, for the player to
/// move: the moves it found legal, most visited first, each with its visits and mean
/// score (1 a win for the player, ½ a draw, 0 a loss). Random playouts stop after
/// `max_plies` moves (a draw). The world is left as it was; the error is one met
/// while searching, with the candidate that failed, if it was one.
pub fn analyse(
    m: &mut Match,
    agents: &Agents,
    chooser: &mut Chooser,
    budget: Budget,
    max_plies: usize,
) -> Result<Vec<MoveScore>, Failure> {
    let drawing = m.stop_drawing();
    let root_world = m.position().clone();
    let tree = match m.players_by(agents.to_move) {
        Ok(several) if several.len() > 1 => {
            Err((None, simultaneous(&several[0], agents.to_move, m)))
        }
        Ok(player) => {
            let player = player.into_iter().next();
            search_tree(m, &root_world, agents, player, chooser, budget, max_plies)
        }
        Err(e) => Err((None, e)),
    };
    m.set_position(root_world);
    if let Some(drawing) = drawing {
        m.resume_drawing(drawing);
    }
    let tree = tree?;
    let mut scores: Vec<MoveScore> = tree[0]
        .children
        .iter()
        .map(|(n, c)| MoveScore {
            name: c.name(),
            visits: tree[*n].visits,
            score: tree[*n].reward / f64::from(tree[*n].visits.max(1)),
        })
        .collect();
    scores.sort_by_key(|s| std::cmp::Reverse(s.visits));
    Ok(scores)
}

/// Monte Carlo tree search from `root_world`, where `root_player` moves: `iterations`
/// times, go down the tree by UCT to a node with candidates not drawn yet, draw one
/// that commits (a new node), play randomly from there to the end of the game (at
/// most `plies_left` moves below the root in all), and count the ending for every
/// node on the way, each from the side of the player who moved into it. Stops early
/// when the root has only one legal move. The tree, its root first; the match's
/// position is left where the last iteration ended.
fn search_tree(
    m: &mut Match,
    root_world: &Position,
    agents: &Agents,
    root_player: Option<String>,
    chooser: &mut Chooser,
    (iterations, depth): Budget,
    plies_left: usize,
) -> Result<Vec<Node>, Failure> {
    let depth = depth.unwrap_or(Agent::EVALUATE_AFTER) as usize;
    let mut tree = vec![Node::new(root_world.clone(), None, root_player, None)];
    let mut path = Vec::new();
    for _ in 0..iterations {
        path.clear();
        path.push(0);
        let mut at = 0;
        let mut settled = 0;
        let outcome = loop {
            let below = path.len() - 1;
            if let Some(ending) = &tree[at].ending {
                break Outcome::Ended(ending.clone());
            }
            if !tree[at].expanded() {
                // A new node: the next candidate here that commits.
                m.set_position(tree[at].world.clone());
                if tree[at].candidates.is_none() {
                    let items = m.candidates().map_err(|e| (None, e))?;
                    let node = &mut tree[at];
                    node.undrawn.extend(0..items.len());
                    node.candidates = Some(items);
                }
                if let Some((child, ending)) = expand(m, &mut tree, at, agents, chooser)? {
                    path.push(child);
                    if let Some(ending) = ending {
                        break Outcome::Ended(ending);
                    }
                    // Played out at random from the new node: to the end, or, when
                    // the game scores positions, for `depth` moves and scored.
                    let mut left = plies_left.saturating_sub(below + 1);
                    if agents.evaluate.is_some() {
                        left = left.min(depth);
                    }
                    let played =
                        play_unwatched(m, chooser, left).map_err(|s| (s.action, *s.error))?;
                    match (played.ending, agents.evaluate) {
                        (Ending::TooLong, Some(code)) => {
                            break Outcome::Scored(evaluate(m, code).map_err(|e| (None, e))?);
                        }
                        (ending, _) => break Outcome::Ended(ending),
                    }
                }
                if tree[at].children.is_empty() {
                    // No legal move here: what the game's `no-legal-move` makes of it (an
                    // ending, or a pass to explore from), else the game is stuck.
                    if !settle(m, &mut settled).map_err(|e| (None, e))? {
                        tree[at].ending = Some(Ending::Stuck);
                    } else if let Some(ending) = ending(m) {
                        tree[at].ending = Some(ending);
                    } else {
                        let to_move = m.player_by(agents.to_move).map_err(|e| (None, e))?;
                        let node = &mut tree[at];
                        node.world = m.position().clone();
                        node.to_move = to_move;
                        node.candidates = None;
                    }
                    continue;
                }
            }
            if below >= plies_left {
                break Outcome::Ended(Ending::TooLong);
            }
            at = best_child(&tree, at);
            path.push(at);
        };
        for &n in &path {
            let node = &mut tree[n];
            node.visits += 1;
            node.reward += worth(&outcome, node.mover.as_deref());
        }
        if tree[0].expanded() && tree[0].children.len() <= 1 {
            break;
        }
    }
    Ok(tree)
}

/// Draw the candidates of node `at` not drawn yet, in place on its world, until one
/// commits: the new node it leads to (and the game's ending there, if over), or
/// `None` when none is left. A candidate that fails stops the game.
fn expand(
    m: &mut Match,
    tree: &mut Vec<Node>,
    at: usize,
    agents: &Agents,
    chooser: &mut Chooser,
) -> Result<Option<(usize, Option<Ending>)>, Failure> {
    while !tree[at].undrawn.is_empty() {
        let node = &mut tree[at];
        let drawn = node.undrawn.swap_remove(chooser.below(node.undrawn.len()));
        let Some(candidate) = node.candidates.as_ref().and_then(|c| c.get(drawn)) else {
            continue;
        };
        let mut answers = Vec::new();
        match try_answering(m, candidate.clone(), chooser, &mut answers) {
            Status::Committed(_) => {
                let ending = ending(m);
                let to_move = if ending.is_some() {
                    None
                } else {
                    m.player_by(agents.to_move).map_err(|e| (None, e))?
                };
                let mover = tree[at].to_move.clone();
                let child = tree.len();
                tree.push(Node::new(
                    m.position().clone(),
                    mover,
                    to_move,
                    ending.clone(),
                ));
                tree[child].answers = answers;
                tree[at].children.push((child, candidate));
                return Ok(Some((child, ending)));
            }
            Status::Failed(error) => return Err((Some(candidate.name()), error)),
            Status::Vetoed { .. } | Status::RolledBack { .. } => {}
        }
    }
    Ok(None)
}

/// The child of node `at` (every candidate drawn, at least one legal) that UCT picks:
/// the highest mean reward for the player who moves there plus the exploration term.
fn best_child(tree: &[Node], at: usize) -> usize {
    let parent = &tree[at];
    let log_n = f64::from(parent.visits.max(1)).ln();
    let mut best = (f64::NEG_INFINITY, parent.children[0].0);
    for &(n, _) in &parent.children {
        let child = &tree[n];
        let score = if child.visits == 0 {
            f64::INFINITY
        } else {
            let v = f64::from(child.visits);
            child.reward / v + EXPLORATION * (log_n / v).sqrt()
        };
        if score > best.0 {
            best = (score, n);
        }
    }
    best.1
}
