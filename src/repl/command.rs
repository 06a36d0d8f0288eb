//! A REPL input as a value: [`Command::parse`] reads a line once, and `Display` writes the
//! command back as the line a journal records (so a journal replays what was typed).

use std::borrow::Cow;
use std::fmt;

use crate::play::agent::Agent;

mod kind;

pub use kind::Kind;

/// The iterations of a plain `:hint`.
pub const HINT_ITERATIONS: u32 = 1000;

/// What `:step` says when it is not given something to run.
pub(super) const STEP_USAGE: &str = "usage: :step send <label> to <entity> [with ...]  or  :step (expression)  or  :step [:play] <move>";

/// One input the REPL handles: a send, an expression, or a `:` command.
///
/// Arguments are kept as typed where the REPL reads them only when the command runs (a rule
/// definition, an entity's name, a file); the `gap` of the commands a journal holds keeps
/// the blanks typed before their argument, so that the command is written back exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `send <label> to <entity> [with <key> <value> ...]`: deliver a message.
    Send {
        /// What follows `send `, as typed.
        text: String,
    },
    /// `(expression)`: code run as the user.
    Expression {
        /// The code, as typed; it may span several lines.
        text: String,
    },
    /// `:help [<command>]` (`:h`, `:?`).
    Help {
        /// The command to explain (empty: list them all).
        topic: String,
    },
    /// `:quit` (`:q`, `:exit`).
    Quit,
    /// `:step ...`: run a transaction one step at a time.
    Step(Step),
    /// `:next` (`:n`): the next step of the transaction being stepped.
    Next,
    /// `:continue` (`:c`): run the transaction being stepped to its end.
    Continue,
    /// `:abort`: abandon the transaction in progress.
    Abort,
    /// `:trace on|off`; `None` (no argument or another one) says whether it is on.
    Trace(Option<bool>),
    /// `:profile on|off`; `None` shows the counts.
    Profile(Option<bool>),
    /// `:disasm <name>`: the instructions of the bodies whose name contains `name`.
    Disasm {
        /// Part of a body's name, without the quotes around it.
        name: String,
    },
    /// `:entities`.
    Entities,
    /// `:show <entity>`.
    Show {
        /// The entity's name as typed (quotes allowed).
        entity: String,
    },
    /// `:advice <entity> <label> <state>`.
    Advice {
        /// The entity the message reaches.
        entity: String,
        /// The message's label.
        label: String,
        /// The state the entity is in.
        state: String,
    },
    /// `:laws`.
    Laws,
    /// `:law <definition>`: put a law in force.
    Law {
        /// The blanks after `:law`.
        gap: Gap,
        /// The law, written as after `#law`.
        definition: String,
    },
    /// `:sideeffect <definition>`: put a side-effect in force.
    SideEffect {
        /// The blanks after `:sideeffect`.
        gap: Gap,
        /// The side-effect, written as after `#sideeffect`.
        definition: String,
    },
    /// `:rules <file>`: put the laws and side-effects of a rules file in force.
    Rules {
        /// The blanks after `:rules`.
        gap: Gap,
        /// The file as typed.
        path: String,
    },
    /// `:disable <name>`: switch a law or side-effect off.
    Disable {
        /// The blanks after `:disable`.
        gap: Gap,
        /// The rule's name as typed (quotes allowed).
        name: String,
    },
    /// `:enable <name>`: switch a law or side-effect back on.
    Enable {
        /// The blanks after `:enable`.
        gap: Gap,
        /// The rule's name as typed (quotes allowed).
        name: String,
    },
    /// `:remove <name>`: remove a law or side-effect.
    Remove {
        /// The blanks after `:remove`.
        gap: Gap,
        /// The rule's name as typed (quotes allowed).
        name: String,
    },
    /// `:undo`.
    Undo,
    /// `:redo`.
    Redo,
    /// `:history`.
    History,
    /// `:goto <n>`: the world after change `n`.
    Goto(usize),
    /// `:checkpoints`.
    Checkpoints,
    /// `:moves`.
    Moves,
    /// `:play <name>`.
    Play {
        /// The move's name; an empty one is refused when the command runs (after a game
        /// without `#actions` is).
        name: String,
    },
    /// `:why <move>` or `:why send ...`.
    Why(Why),
    /// `:random [<n>]`: play `n` random legal moves.
    Random(usize),
    /// `:agent [<player>=<agent> | <player>=off | off]`.
    Agent(Seats),
    /// `:hint [<iterations>]`.
    Hint(u32),
    /// `:hint ismcts[:<iterations>] [<player>]`: the search that sees only what the
    /// player has seen, for the player to move or the one named.
    HintIsmcts {
        /// Its iterations.
        iterations: u32,
        /// The player named, as typed.
        player: Option<String>,
    },
    /// `:save <file>`.
    Save {
        /// The file, without the quotes around it.
        path: String,
    },
    /// `:load <file>`.
    Load {
        /// The file, without the quotes around it.
        path: String,
    },
    /// `:sgf load|save <file>`.
    Sgf {
        /// Write the game (`save`), rather than replay a record (`load`).
        save: bool,
        /// The file as typed.
        path: String,
    },
    /// `:signal <name> [<tag>]`: answer a transaction waiting for a signal.
    Signal {
        /// The signal.
        name: String,
        /// The blanks between the name and the tag.
        gap: Gap,
        /// The tag as typed (read as a literal), if there is one.
        tag: Option<String>,
    },
    /// `:board [<view>]`: draw the board.
    Board {
        /// The view (empty: the public one).
        view: String,
    },
    /// `:board on|off`: draw the board after every committed move, or stop.
    BoardAfterMoves(bool),
    /// `:click <entity> <graphic>`.
    Click {
        /// The entity whose representation drew the graphic.
        owner: String,
        /// The graphic's id.
        graphic: String,
    },
    /// `:reload`.
    Reload,
}

/// What `:step` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `:step send ...`.
    Send {
        /// What follows `send `.
        text: String,
    },
    /// `:step (expression)`.
    Expression {
        /// The code.
        text: String,
    },
    /// `:step :play <move>`.
    Play {
        /// The move (empty: refused when it runs).
        name: String,
    },
    /// `:step <move>`: a bare name, a move only in a game with `#actions`.
    Move {
        /// The move.
        name: String,
    },
}

/// What `:why` asks about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// `:why <move>`.
    Move {
        /// The move (empty: refused when it runs).
        name: String,
    },
    /// `:why send ...`.
    Send {
        /// What follows `send `.
        text: String,
    },
}

/// What `:agent` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seats {
    /// `:agent`: the players the REPL plays.
    List,
    /// `:agent off`: play none.
    AllOff,
    /// `:agent <player>=<agent>`, or `<player>=off`.
    Set {
        /// The player, as typed (read as a literal).
        player: String,
        /// The agent's text, read when the command runs (`None`: stop playing the player).
        agent: Option<String>,
    },
}

/// The blanks typed between a command and its argument, kept so the command is written
/// back as typed; one space when a program makes the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap(Cow<'static, str>);

impl Gap {
    /// One space.
    pub const ONE: Gap = Gap(Cow::Borrowed(" "));

    /// The blanks as typed.
    pub fn typed(blanks: &str) -> Gap {
        if blanks == " " {
            Gap::ONE
        } else {
            Gap(Cow::Owned(blanks.to_string()))
        }
    }
}

impl Default for Gap {
    fn default() -> Gap {
        Gap::ONE
    }
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a line is not a command: the text the REPL answers, and the command it was meant
/// for when it names one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The command the line names (`None`: an unknown command, or no command at all).
    pub kind: Option<Kind>,
    /// What the REPL answers.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

impl Command {
    /// Read one input (blanks around it do not count): a `:` command, an expression in
    /// parentheses, or a send.
    pub fn parse(line: &str) -> Result<Command, ParseError> {
        let line = line.trim();
        if let Some(text) = line.strip_prefix(':') {
            return parse_command(text);
        }
        if line.starts_with('(') {
            return Ok(Command::Expression {
                text: line.to_string(),
            });
        }
        if let Some(text) = line.strip_prefix("send ") {
            return Ok(Command::Send {
                text: text.to_string(),
            });
        }
        Err(ParseError {
            kind: None,
            message: format!(
                "error: `{}` is neither a command (:help), a send (send <label> to <entity> ...) nor an expression in parentheses",
                line.split_whitespace().next().unwrap_or(line)
            ),
        })
    }

    /// The kind of command this is.
    pub fn kind(&self) -> Kind {
        match self {
            Command::Send { .. } => Kind::Send,
            Command::Expression { .. } => Kind::Expression,
            Command::Help { .. } => Kind::Help,
            Command::Quit => Kind::Quit,
            Command::Step(_) => Kind::Step,
            Command::Next => Kind::Next,
            Command::Continue => Kind::Continue,
            Command::Abort => Kind::Abort,
            Command::Trace(_) => Kind::Trace,
            Command::Profile(_) => Kind::Profile,
            Command::Disasm { .. } => Kind::Disasm,
            Command::Entities => Kind::Entities,
            Command::Show { .. } => Kind::Show,
            Command::Advice { .. } => Kind::Advice,
            Command::Laws => Kind::Laws,
            Command::Law { .. } => Kind::Law,
            Command::SideEffect { .. } => Kind::SideEffect,
            Command::Rules { .. } => Kind::Rules,
            Command::Disable { .. } => Kind::Disable,
            Command::Enable { .. } => Kind::Enable,
            Command::Remove { .. } => Kind::Remove,
            Command::Undo => Kind::Undo,
            Command::Redo => Kind::Redo,
            Command::History => Kind::History,
            Command::Goto(_) => Kind::Goto,
            Command::Checkpoints => Kind::Checkpoints,
            Command::Moves => Kind::Moves,
            Command::Play { .. } => Kind::Play,
            Command::Why(_) => Kind::Why,
            Command::Random(_) => Kind::Random,
            Command::Agent(_) => Kind::Agent,
            Command::Hint(_) | Command::HintIsmcts { .. } => Kind::Hint,
            Command::Save { .. } => Kind::Save,
            Command::Load { .. } => Kind::Load,
            Command::Sgf { .. } => Kind::Sgf,
            Command::Signal { .. } => Kind::Signal,
            Command::Board { .. } | Command::BoardAfterMoves(_) => Kind::Board,
            Command::Click { .. } => Kind::Click,
            Command::Reload => Kind::Reload,
        }
    }
}

/// Read a `:` command, `text` being what follows the `:`.
fn parse_command(text: &str) -> Result<Command, ParseError> {
    let (word, rest) = match text.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (text, ""),
    };
    let gap = if rest.is_empty() {
        Gap::ONE
    } else {
        Gap::typed(&text[word.len()..text.len() - rest.len()])
    };
    let Some(kind) = Kind::from_word(word) else {
        let names = super::help::COMMANDS.iter().map(|c| c.name);
        return Err(ParseError {
            kind: None,
            message: match crate::diagnostic::closest(word, names) {
                Some(c) => format!("error: unknown command :{word}; did you mean :{c}?"),
                None => format!("error: unknown command :{word}; :help lists the commands"),
            },
        });
    };
    let usage = |message: &str| {
        Err(ParseError {
            kind: Some(kind),
            message: message.to_string(),
        })
    };
    let on_off = |rest: &str| match rest {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    };
    let own = |s: &str| s.to_string();
    Ok(match kind {
        Kind::Send | Kind::Expression => unreachable!("no word after `:` names them"),
        Kind::Help => Command::Help { topic: own(rest) },
        Kind::Quit => Command::Quit,
        Kind::Step => {
            let step = if let Some(send) = rest.strip_prefix("send ") {
                Step::Send { text: own(send) }
            } else if rest.starts_with('(') {
                Step::Expression { text: own(rest) }
            } else if let Some(name) = rest.strip_prefix(":play") {
                Step::Play {
                    name: own(name.trim()),
                }
            } else if !rest.is_empty() {
                Step::Move { name: own(rest) }
            } else {
                return usage(STEP_USAGE);
            };
            Command::Step(step)
        }
        Kind::Next => Command::Next,
        Kind::Continue => Command::Continue,
        Kind::Abort => Command::Abort,
        Kind::Trace => Command::Trace(on_off(rest)),
        Kind::Profile => match (rest, on_off(rest)) {
            ("", _) => Command::Profile(None),
            (_, Some(on)) => Command::Profile(Some(on)),
            _ => return usage("usage: :profile on|off, and :profile to show the counts"),
        },
        Kind::Disasm => {
            let name = rest.trim_matches('"');
            if name.is_empty() {
                return usage(
                    "usage: :disasm <name> (any part of a body's name, as :profile shows it)",
                );
            }
            Command::Disasm { name: own(name) }
        }
        Kind::Entities => Command::Entities,
        Kind::Show => Command::Show { entity: own(rest) },
        Kind::Advice => {
            let parts: Vec<&str> = rest.split_whitespace().collect();
            let [entity, label, state] = parts.as_slice() else {
                return usage("usage: :advice <entity> <label> <state>");
            };
            Command::Advice {
                entity: own(entity),
                label: own(label),
                state: own(state),
            }
        }
        Kind::Laws => Command::Laws,
        Kind::Law => Command::Law {
            gap,
            definition: own(rest),
        },
        Kind::SideEffect => Command::SideEffect {
            gap,
            definition: own(rest),
        },
        Kind::Rules if rest.is_empty() => return usage("usage: :rules <file>"),
        Kind::Rules => Command::Rules {
            gap,
            path: own(rest),
        },
        Kind::Disable | Kind::Enable | Kind::Remove if rest.is_empty() => {
            return usage(&format!("usage: :{word} <name> (:laws lists them)"));
        }
        Kind::Disable => Command::Disable {
            gap,
            name: own(rest),
        },
        Kind::Enable => Command::Enable {
            gap,
            name: own(rest),
        },
        Kind::Remove => Command::Remove {
            gap,
            name: own(rest),
        },
        Kind::Undo => Command::Undo,
        Kind::Redo => Command::Redo,
        Kind::History => Command::History,
        Kind::Goto => match rest.parse::<usize>() {
            Ok(n) => Command::Goto(n),
            Err(_) => return usage("usage: :goto <n> (:history numbers the changes)"),
        },
        Kind::Checkpoints => Command::Checkpoints,
        Kind::Moves => Command::Moves,
        Kind::Play => Command::Play { name: own(rest) },
        Kind::Why => Command::Why(match rest.strip_prefix("send ") {
            Some(send) => Why::Send { text: own(send) },
            None => Why::Move { name: own(rest) },
        }),
        Kind::Random => match rest {
            "" => Command::Random(1),
            n => match n.parse::<usize>() {
                Ok(n) => Command::Random(n),
                Err(_) => return usage("usage: :random [<n>]"),
            },
        },
        Kind::Agent => Command::Agent(match rest {
            "" => Seats::List,
            "off" => Seats::AllOff,
            _ => {
                let Some((player, agent)) = rest.split_once('=') else {
                    return usage("usage: :agent [<player>=<agent> | <player>=off | off]");
                };
                let agent = agent.trim();
                Seats::Set {
                    player: own(player.trim()),
                    agent: (agent != "off").then(|| own(agent)),
                }
            }
        }),
        Kind::Hint if rest.starts_with("ismcts") => {
            let mut words = rest.split_whitespace();
            let agent = Agent::parse(words.next().unwrap_or_default());
            match (agent, words.next(), words.next()) {
                (Ok(Agent::Ismcts { iterations }), player, None) => Command::HintIsmcts {
                    iterations,
                    player: player.map(own),
                },
                _ => {
                    return usage(&format!(
                        "usage: :hint ismcts[:<iterations>] [<player>] (1 to {} iterations)",
                        Agent::MAX_ITERATIONS
                    ));
                }
            }
        }
        Kind::Hint => {
            let n = match rest {
                "" => Ok(HINT_ITERATIONS),
                n => n.parse::<u32>(),
            };
            match n {
                Ok(n) if (1..=Agent::MAX_ITERATIONS).contains(&n) => Command::Hint(n),
                _ => {
                    return usage(&format!(
                        "usage: :hint [<iterations>] (1 to {})",
                        Agent::MAX_ITERATIONS
                    ));
                }
            }
        }
        Kind::Save | Kind::Load => {
            let path = own(unquote(rest));
            match kind {
                _ if path.is_empty() => return usage(&format!("usage: :{word} <file>")),
                Kind::Save => Command::Save { path },
                _ => Command::Load { path },
            }
        }
        Kind::Sgf => {
            let (verb, path) = match rest.split_once(char::is_whitespace) {
                Some((v, p)) => (v, p.trim()),
                None => (rest, ""),
            };
            if path.is_empty() || !matches!(verb, "load" | "save") {
                return usage("usage: :sgf load <file>  or  :sgf save <file>");
            }
            Command::Sgf {
                save: verb == "save",
                path: own(path),
            }
        }
        Kind::Signal => {
            let mut words = rest.splitn(2, char::is_whitespace);
            let name = words.next().unwrap_or("").trim();
            let tag = words.next().map(str::trim).unwrap_or("");
            if name.is_empty() {
                return usage("usage: :signal <name> [<tag>]");
            }
            Command::Signal {
                name: own(name),
                gap: if tag.is_empty() {
                    Gap::ONE
                } else {
                    Gap::typed(&rest[name.len()..rest.len() - tag.len()])
                },
                tag: (!tag.is_empty()).then(|| own(tag)),
            }
        }
        Kind::Board => match on_off(rest) {
            Some(on) => Command::BoardAfterMoves(on),
            None => Command::Board { view: own(rest) },
        },
        Kind::Click => {
            let mut words = rest.split_whitespace();
            let (Some(owner), Some(graphic), None) = (words.next(), words.next(), words.next())
            else {
                return usage("usage: :click <entity> <graphic>");
            };
            Command::Click {
                owner: own(owner),
                graphic: own(graphic),
            }
        }
        Kind::Reload => Command::Reload,
    })
}

/// A file name as typed: a double-quoted one loses its quotes (so `:save ""` names no
/// file rather than a file called `""`).
fn unquote(path: &str) -> &str {
    let path = path.trim();
    path.strip_prefix('"')
        .and_then(|p| p.strip_suffix('"'))
        .unwrap_or(path)
}

/// Write `:<name>`, then ` <argument>` when there is one.
fn with_arg(f: &mut fmt::Formatter<'_>, name: &str, gap: &Gap, arg: &str) -> fmt::Result {
    if arg.is_empty() {
        write!(f, ":{name}")
    } else {
        write!(f, ":{name}{gap}{arg}")
    }
}

impl fmt::Display for Command {
    /// The command as the REPL reads it; for a command a journal holds, exactly the line
    /// that was typed (but for the blanks around it, and between `:play` or `:click` and
    /// their arguments).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.kind().name();
        let one = &Gap::ONE;
        let on_off = |on: &bool| if *on { "on" } else { "off" };
        match self {
            Command::Send { text } => write!(f, "send {text}"),
            Command::Expression { text } => f.write_str(text),
            Command::Help { topic: arg }
            | Command::Show { entity: arg }
            | Command::Disasm { name: arg }
            | Command::Play { name: arg }
            | Command::Board { view: arg } => with_arg(f, name, one, arg),
            Command::Quit
            | Command::Next
            | Command::Continue
            | Command::Abort
            | Command::Entities
            | Command::Laws
            | Command::Undo
            | Command::Redo
            | Command::History
            | Command::Checkpoints
            | Command::Moves
            | Command::Reload
            | Command::Trace(None)
            | Command::Profile(None) => write!(f, ":{name}"),
            Command::Trace(Some(on))
            | Command::Profile(Some(on))
            | Command::BoardAfterMoves(on) => write!(f, ":{name} {}", on_off(on)),
            Command::Step(step) => match step {
                Step::Send { text } => write!(f, ":step send {text}"),
                Step::Expression { text: arg } | Step::Move { name: arg } => {
                    write!(f, ":step {arg}")
                }
                Step::Play { name: arg } => with_arg(f, "step :play", one, arg),
            },
            Command::Advice {
                entity,
                label,
                state,
            } => write!(f, ":{name} {entity} {label} {state}"),
            Command::Law {
                gap,
                definition: arg,
            }
            | Command::SideEffect {
                gap,
                definition: arg,
            }
            | Command::Rules { gap, path: arg }
            | Command::Disable { gap, name: arg }
            | Command::Enable { gap, name: arg }
            | Command::Remove { gap, name: arg } => with_arg(f, name, gap, arg),
            Command::Goto(n) => write!(f, ":{name} {n}"),
            Command::Random(n) => write!(f, ":{name} {n}"),
            Command::Hint(n) => write!(f, ":{name} {n}"),
            Command::HintIsmcts { iterations, player } => {
                write!(f, ":{name} ismcts:{iterations}")?;
                player.iter().try_for_each(|p| write!(f, " {p}"))
            }
            Command::Why(Why::Move { name: arg }) => with_arg(f, name, one, arg),
            Command::Why(Why::Send { text }) => write!(f, ":{name} send {text}"),
            Command::Agent(Seats::List) => write!(f, ":{name}"),
            Command::Agent(Seats::AllOff) => write!(f, ":{name} off"),
            Command::Agent(Seats::Set { player, agent }) => {
                write!(f, ":{name} {player}={}", agent.as_deref().unwrap_or("off"))
            }
            Command::Save { path } | Command::Load { path } => {
                // Quoted when its quotes or blanks would be lost otherwise.
                if unquote(path) == path {
                    write!(f, ":{name} {path}")
                } else {
                    write!(f, ":{name} \"{path}\"")
                }
            }
            Command::Sgf { save, path } => {
                let verb = if *save { "save" } else { "load" };
                write!(f, ":{name} {verb} {path}")
            }
            Command::Signal {
                name: signal,
                gap,
                tag,
            } => {
                write!(f, ":{name} {signal}")?;
                match tag {
                    Some(tag) => write!(f, "{gap}{tag}"),
                    None => Ok(()),
                }
            }
            Command::Click { owner, graphic } => write!(f, ":{name} {owner} {graphic}"),
        }
    }
}

#[cfg(test)]
mod tests;
