//! The commands as `:help` lists them: each one's name, arguments and help, in order.

use std::fmt::Write as _;

/// One command as `:help` lists it: its name, arguments and help.
pub struct Help {
    /// The name after `:`.
    pub name: &'static str,
    /// Its arguments.
    pub args: &'static str,
    /// What it does.
    pub help: &'static str,
}

const fn c(name: &'static str, args: &'static str, help: &'static str) -> Help {
    Help { name, args, help }
}

/// Every command, in the order `:help` lists them.
pub const COMMANDS: &[Help] = &[
    c("help", "[<command>]", "list the commands, or explain one"),
    c(
        "step",
        "<send ... | (expression) | [:play] <move>>",
        "run a transaction (a send, an expression or a move) one join-point step at a time: Enter or :next for the next step, :continue to finish, :abort to abandon it and leave the world untouched",
    ),
    c(
        "trace",
        "on|off",
        "show every join-point step of each transaction",
    ),
    c(
        "profile",
        "[on|off]",
        "count the steps of your transactions (sends, expressions, moves) by law, side-effect, behaviour and function: :profile on starts from zero, :profile shows every body, most steps first, :profile off stops; moves only tried (:moves, :why, :random's choice) are not counted",
    ),
    c(
        "disasm",
        "<name>",
        "the instructions of the bodies whose name contains <name>, with the steps each counts and its source line; names as :profile shows them (law Knight Moves, function add-targets), rules added here included; a fused instruction's plain sequence is indented under it; with :profile on, how many times each instruction ran",
    ),
    c(
        "entities",
        "",
        "list the entities with their type and state",
    ),
    c(
        "show",
        "<entity>",
        "an entity's type, state, properties and the advice that can reach it",
    ),
    c(
        "advice",
        "<entity> <label> <state>",
        "the laws and side-effects that run when <label> reaches <entity> in <state>, in order, with the behaviour between them",
    ),
    c(
        "laws",
        "",
        "every law and side-effect in force, with its binding and source",
    ),
    c(
        "law",
        "[<name>] on <label> to <entity> in <state> [replaces <name>] is <\"file\" | (code)>",
        "add a law from the next transaction on (undoable); `replaces \"<name>\"` takes the place of the rule of that name, in its order",
    ),
    c(
        "sideeffect",
        "[<name>] on <label> to <entity> in <state> [replaces <name>] is <\"file\" | (code)>",
        "add a side-effect from the next transaction on (undoable); `replaces \"<name>\"` takes the place of the rule of that name, in its order",
    ),
    c(
        "rules",
        "<file>",
        "put in force every law and side-effect of a rules file (a variant): all or none (undoable)",
    ),
    c(
        "disable",
        "<name>",
        "switch a law or side-effect off (undoable)",
    ),
    c("enable", "<name>", "switch it back on (undoable)"),
    c("remove", "<name>", "remove a law or side-effect (undoable)"),
    c(
        "undo",
        "",
        "take back the last change (a transaction or a rule change)",
    ),
    c("redo", "", "put back the last change taken back"),
    c("history", "", "the numbered changes; * marks where you are"),
    c(
        "goto",
        "<n>",
        "go to the world after change <n> (0 is the start)",
    ),
    c(
        "checkpoints",
        "",
        "the checkpoints open in the transaction being stepped",
    ),
    c("moves", "", "the legal moves (games with #actions)"),
    c(
        "play",
        "<name>",
        "play a legal move by name; an illegal one is refused with the reason",
    ),
    c(
        "why",
        "<name> | send ...",
        "why a move (or any message) is not legal: the law that vetoes it (and what it notifies), the rollback reason, or the error; of a legal call, when the REPL plays a player with a bidding system (system:<file>), the rule that gives it for the player to move and its comments",
    ),
    c("random", "[<n>]", "play <n> random legal moves (default 1)"),
    c(
        "agent",
        "[<player>=<agent> | <player>=off | off]",
        "let the REPL play a player itself (mcts[:<iterations>[:<depth>]], random, or system:<file>, a bidding system), answering each move; without arguments, those it plays",
    ),
    c(
        "hint",
        "[<iterations>]",
        "what Monte Carlo tree search would play: each legal move with its visits and score (needs the game's to-move); `:hint ismcts[:<iterations>] [<player>]` searches from what the player to move (or the one named, where several are) has seen, for games that hide things (that define `resample`)",
    ),
    c(
        "save",
        "<file>",
        "write the session (game, seed, parameters, every change) to a journal",
    ),
    c(
        "load",
        "<file>",
        "replay a journal; the current session is kept if it does not replay",
    ),
    c(
        "sgf",
        "load|save <file>",
        "replay a Go game record (SGF) in a fresh game, or write the game played so far as SGF: load takes the record's size, komi and handicap, makes each move a change of the history, and leaves the session unchanged if the record is broken or a move is illegal",
    ),
    c(
        "signal",
        "<name> [<tag>]",
        "answer a transaction waiting on (wait signal <name>)",
    ),
    c(
        "board",
        "[<view>|on|off]",
        "draw the board in the public view or one player's (board 0 for player 0); on or off draws it after every committed move, or stops",
    ),
    c(
        "click",
        "<entity> <graphic>",
        "click a graphic of the board, which runs what its representation hooked to the click or answers a (wait signal ...)",
    ),
    c(
        "reload",
        "",
        "re-read the game's files and replay the session's changes with them; nothing changes if they do not replay",
    ),
    c("quit", "", "leave (Ctrl-D too)"),
];

/// `:help [<topic>]`: every command with the first part of its help, or one command in full.
pub(super) fn help(topic: &str) -> String {
    let topic = topic.trim_start_matches(':');
    if !topic.is_empty() {
        return match COMMANDS.iter().find(|c| c.name == topic) {
            Some(c) => format!(":{} {}\n  {}", c.name, c.args, c.help),
            None => format!("no command :{topic}; :help lists them"),
        };
    }
    let mut out = String::from(
        "send <label> to <entity> [with <key> <value> ...]   deliver a message as one transaction\n(expression)                                         evaluate code as the user\n",
    );
    for c in COMMANDS {
        let head = format!(":{} {}", c.name, c.args);
        // The listing shows the help up to its first ": " (the details follow it).
        let short = c.help.split(": ").next().unwrap_or(c.help);
        let _ = writeln!(out, "{head:<52} {short}");
    }
    out.trim_end().to_string()
}
