//! Who chooses each move of a game: an [`Agent`] per player ([`Agents`]), as a command
//! line names them, and the player to move, as the game's function `to-move` says.
//!
//! `random` draws uniformly among the legal moves (what [`super::playout::playout`] does);
//! `mcts` searches before each of its moves ([`super::mcts`]). An agent knows nothing of
//! any game: the legal moves are the candidates of `#actions` that commit, the player to
//! move is what the game's function `to-move` gives, and an ending is what
//! `(finish with ...)` recorded. So an agent stronger than random is there for every game
//! written in the language, to measure its balance (win rates of each side) under play
//! that has some sense, not only under random play.
//!
//! `ismcts` searches from what its own player has seen ([`super::ismcts`]): each of its
//! iterations remakes at random what that player cannot see (the game's `resample`), so
//! it is the agent for games of hidden information, where `mcts` (which sees the whole
//! world) is refused.
//!
//! `system:<file>` follows a bidding system ([`super::system`]) when one of its calls is
//! among the candidates (`Pass` is), and plays at random otherwise.

use std::sync::Arc;

use super::system::{Qualities, System};
use crate::api::{Function, Match};

/// How a player chooses its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agent {
    /// Uniformly among the legal moves.
    Random,
    /// Monte Carlo tree search with this many iterations (at least 1) before each move.
    Mcts {
        /// Iterations (random playouts from a new node of the tree) per move.
        iterations: u32,
        /// When the game defines `evaluate`: the moves a random playout makes before the
        /// position is scored by it (`None`: [`Agent::EVALUATE_AFTER`]).
        depth: Option<u32>,
    },
    /// Information-set Monte Carlo tree search with this many iterations (at least 1)
    /// before each move, each on a world remade from what the player has seen.
    Ismcts {
        /// Iterations (a world sampled, a path down the tree, a random playout) per move.
        iterations: u32,
    },
    /// The calls a bidding system gives, read from its file; a random legal move when no
    /// call is to be made.
    System(SystemAgent),
}

/// A bidding system an agent follows, and the file it was read from.
#[derive(Clone, Debug)]
pub struct SystemAgent {
    /// The file, as the command line named it.
    pub path: String,
    /// The system read from it.
    pub system: Arc<System>,
}

impl PartialEq for SystemAgent {
    fn eq(&self, other: &SystemAgent) -> bool {
        self.path == other.path
    }
}

impl Eq for SystemAgent {}

impl Agent {
    /// The agent a command line names: `random`, `mcts` (with [`Agent::MCTS_ITERATIONS`]),
    /// `mcts:<iterations>[:<depth>]`, `ismcts[:<iterations>]` or `system:<file>`.
    pub fn parse(text: &str) -> Result<Agent, String> {
        let mut parts = text.split(':');
        let kind = parts.next().unwrap_or_default();
        let args: Vec<&str> = parts.collect();
        match (kind, args.as_slice()) {
            ("random", []) => Ok(Agent::Random),
            ("random", _) => Err("`random` takes no argument".into()),
            ("mcts", []) => Ok(Agent::Mcts {
                iterations: Agent::MCTS_ITERATIONS,
                depth: None,
            }),
            ("mcts", [n]) | ("mcts", [n, _]) => {
                let iterations = match n.parse::<u32>() {
                    Ok(i) if (1..=Agent::MAX_ITERATIONS).contains(&i) => i,
                    _ => {
                        return Err(format!(
                            "`mcts:{n}`: the iterations are a whole number from 1 to {}",
                            Agent::MAX_ITERATIONS
                        ));
                    }
                };
                let depth = match args.get(1) {
                    None => None,
                    Some(d) => match d.parse::<u32>() {
                        Ok(d) if d <= Agent::MAX_DEPTH => Some(d),
                        _ => {
                            return Err(format!(
                                "`{text}`: the depth (moves played at random before `evaluate` scores the position) is a whole number from 0 to {}",
                                Agent::MAX_DEPTH
                            ));
                        }
                    },
                };
                Ok(Agent::Mcts { iterations, depth })
            }
            ("ismcts", []) => Ok(Agent::Ismcts {
                iterations: Agent::MCTS_ITERATIONS,
            }),
            ("ismcts", [n]) => match n.parse::<u32>() {
                Ok(i) if (1..=Agent::MAX_ITERATIONS).contains(&i) => {
                    Ok(Agent::Ismcts { iterations: i })
                }
                _ => Err(format!(
                    "`ismcts:{n}`: the iterations are a whole number from 1 to {}",
                    Agent::MAX_ITERATIONS
                )),
            },
            ("ismcts", _) => Err(format!(
                "`{text}`: write ismcts or ismcts:<iterations> (it takes no depth)"
            )),
            ("mcts", _) => Err(format!(
                "`{text}`: write mcts, mcts:<iterations> or mcts:<iterations>:<depth>"
            )),
            ("system", _) => {
                let path = text["system:".len().min(text.len())..].trim();
                if path.is_empty() {
                    return Err(
                        "`system` takes the bidding system's file: system:<file.xml>".into(),
                    );
                }
                let system = super::system::load(std::path::Path::new(path))?;
                Ok(Agent::System(SystemAgent {
                    path: path.to_string(),
                    system: Arc::new(system),
                }))
            }
            _ => Err(format!(
                "unknown agent `{kind}`: the agents are `random`, `mcts[:<iterations>[:<depth>]]`, `ismcts[:<iterations>]` and `system:<file>`"
            )),
        }
    }

    /// The iterations of a plain `mcts`.
    pub const MCTS_ITERATIONS: u32 = 200;

    /// The moves a playout makes before `evaluate` scores the position, unless told.
    pub const EVALUATE_AFTER: u32 = 20;

    /// The most moves a playout may make before `evaluate` is asked.
    pub const MAX_DEPTH: u32 = 100_000;

    /// The most iterations a search may run: its tree keeps a node (a world) for each, so
    /// this bounds its memory (a few hundred megabytes for the bundled games).
    pub const MAX_ITERATIONS: u32 = 100_000;
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Agent::Random => write!(f, "random"),
            Agent::Mcts {
                iterations,
                depth: None,
            } => write!(f, "mcts:{iterations}"),
            Agent::Mcts {
                iterations,
                depth: Some(d),
            } => write!(f, "mcts:{iterations}:{d}"),
            Agent::Ismcts { iterations } => write!(f, "ismcts:{iterations}"),
            Agent::System(s) => write!(f, "system:{}", s.path),
        }
    }
}

/// Who plays each side of a game: an agent per player (as `to-move` gives players, by
/// their text), and one for every other player.
#[derive(Clone, Debug)]
pub struct Agents {
    /// The compiled `(to-move)`: the player to move (`nil`: nobody in particular).
    pub to_move: Function,
    /// The compiled `(evaluate)`, when the game defines it: what a position is worth to
    /// each player (see [`EVALUATE`]).
    pub evaluate: Option<Function>,
    /// Agents of named players, by the text of the player's value.
    pub players: Vec<(String, Agent)>,
    /// The agent of every other player (and of a position where `to-move` gives `nil`).
    pub others: Agent,
    /// The game's qualities, when an agent follows a bidding system.
    pub qualities: Qualities,
}

pub use crate::api::TO_MOVE;

/// The function a game may define to score a position for a search: no parameters, a
/// dictionary of each player (as `to-move` gives it) to what the position is worth to
/// that player, from 0 (lost) to 1 (won).
pub const EVALUATE: &str = "evaluate";

/// The function a game of hidden information defines for `ismcts`: one parameter, the
/// player deciding; run as the user on the search's copy of the world (its random
/// generator reseeded from the search's own), it remakes at random everything that player
/// cannot see, consistent with what it has seen.
pub const RESAMPLE: &str = "resample";

/// Whether `m`'s game lets `agent` play: `mcts` is refused where the game defines
/// `resample` (it hides things from its players, and the search would see them), and
/// `resample` must take one parameter. The error is for the user.
pub fn check_agent(m: &Match, agent: &Agent) -> Result<(), String> {
    let params = m.function_params(RESAMPLE);
    match (agent, params) {
        (Agent::Mcts { .. }, Some(_)) => Err(format!(
            "`{agent}` searches the whole world, and this game hides things from its players (it defines `{RESAMPLE}`): the search would see them\n  hint: use `ismcts` (`ismcts:<iterations>`), which decides from what its player has seen"
        )),
        (Agent::Ismcts { .. }, Some(n)) if n != 1 => Err(format!(
            "the game's function `{RESAMPLE}` takes {n} parameter(s); `{agent}` calls it with one, the player deciding"
        )),
        _ => Ok(()),
    }
}

impl Agents {
    /// The agents of a game: `players` (by the text of each player's value) and `others`,
    /// with the game's `(to-move)` made callable in the match. The error, for the user, says why the
    /// game cannot have them: it defines no `to-move` without parameters.
    pub fn new(
        m: &mut Match,
        players: Vec<(String, Agent)>,
        others: Agent,
    ) -> Result<Agents, String> {
        let to_move = match m.function(TO_MOVE, "a search")? {
            Some(code) => code,
            None => {
                return Err(format!(
                    "a playing agent (a search, or a seat the server plays) needs to know whose turn it is, and the game defines no function `{TO_MOVE}`\n  hint: define `{TO_MOVE}` with no parameters, giving the player to move (nil when nobody is); `flexrules serve` asks it too"
                ));
            }
        };
        let evaluate = m.function(EVALUATE, "a search")?;
        for agent in players.iter().map(|(_, a)| a).chain([&others]) {
            check_agent(m, agent)?;
        }
        let deep = players
            .iter()
            .map(|(_, a)| a)
            .chain([&others])
            .find(|a| matches!(a, Agent::Mcts { depth: Some(_), .. }));
        if let (Some(a), None) = (deep, evaluate) {
            return Err(format!(
                "`{a}` gives a depth after which `{EVALUATE}` scores the position, and the game defines no function `{EVALUATE}`\n  hint: define `{EVALUATE}` with no parameters, giving a dictionary of each player to what the position is worth to it (0 to 1)"
            ));
        }
        let mut qualities = Qualities::default();
        let systems: Vec<&SystemAgent> = players
            .iter()
            .map(|(_, a)| a)
            .chain([&others])
            .filter_map(|a| match a {
                Agent::System(s) => Some(s),
                _ => None,
            })
            .collect();
        if !systems.is_empty() {
            qualities = Qualities::of(m);
            let names = qualities.names();
            for s in systems {
                s.system.check_qualities(&names)?;
            }
        }
        Ok(Agents {
            to_move,
            evaluate,
            players,
            others,
            qualities,
        })
    }

    /// The agents a command line's `--agent` options name (`<agent>` for every player,
    /// `<player>=<agent>` for one, the player as the game writes it), with `(to-move)`
    /// compiled into the match; `None` when every player plays at random. The error is
    /// for the user and names the option that is wrong.
    pub fn from_texts(m: &mut Match, given: &[String]) -> Result<Option<Agents>, String> {
        let mut players: Vec<(String, Agent)> = Vec::new();
        let mut others = None;
        for text in given {
            let (player, agent) = match text.split_once('=') {
                Some((p, a)) => (Some(p.trim()), a.trim()),
                None => (None, text.trim()),
            };
            let agent = Agent::parse(agent).map_err(|e| format!("--agent {text}: {e}"))?;
            match player {
                Some("") => {
                    return Err(format!("--agent {text}: the player before `=` is empty"));
                }
                Some(p) => {
                    // The player as the game writes it (an integer or a string), by its text.
                    let p = crate::api::parse_literal(p).to_text();
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
        Agents::new(m, players, others).map(Some)
    }

    /// The agent of `player` (`None`: nobody in particular).
    pub fn of(&self, player: Option<&str>) -> &Agent {
        player
            .and_then(|p| self.players.iter().find(|(name, _)| name == p))
            .map_or(&self.others, |(_, a)| a)
    }
}
