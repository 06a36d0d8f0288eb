//! The game being served: the REPL backend it drives, the seats, and what each kind of
//! connection may do and see.
//!
//! Every request becomes one REPL [`Command`] (`:click`, `:play`, `:signal`, `:undo`, ...),
//! so the web page plays by exactly the rules of the REPL; this file only decides who may
//! ask for what, and what each connection is shown. Nothing here knows about HTTP.

mod agreement;
mod editor;

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value as Json, json};

use crate::compile::bytecode::CodeId;
use crate::repl::command::{Command, Gap};
use crate::repl::{OpenError, Repl, ReplOptions, Reply};
use crate::runtime::canvas::View;
use crate::runtime::outside::parse_literal;
use crate::runtime::value::Value;
use crate::symbol::Symbol;

use super::store::{By, Opened, Record, Store};
use agreement::{Agreement, Author};

/// The longest request accepted, in bytes; longer ones get an error and change nothing.
pub const MAX_REQUEST: usize = 16 * 1024;

/// The most bytes of a reply's text or of a board drawn that one message carries; past
/// it, the text is cut (saying so) and the board replaced by a note.
pub const MAX_MESSAGE: usize = 8 * 1024 * 1024;

/// The longest name (entity, graphic, move, signal, rule) a request may carry.
const MAX_NAME: usize = 200;

/// How many names never seen before the texts of rules the seats send (to be checked or
/// added) may add to the process, all told: the names a text is read into are kept for
/// the life of the process, so reading rule texts from the seats stops there.
pub const MAX_NEW_NAMES: usize = 100_000;

pub use crate::play::agent::TO_MOVE;
use crate::play::agent::{Agent, Agents};

/// The most moves the seats the server plays make in a row (a game whose every seat is
/// played by an agent stops there, and goes on with the next request).
const MAX_AGENT_MOVES: usize = 10_000;

/// Who is at the other end of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Who {
    /// Someone watching: the public view, no moves.
    Watcher,
    /// The player in seat `n` (an index into the seats).
    Seat(usize),
}

/// Why a table could not be opened.
#[derive(Debug)]
pub enum TableError {
    /// The game did not open (no such game, an unknown parameter, ...).
    Open(OpenError),
    /// The game's `(to-move)` does not compile.
    Game(String),
}

/// One player's place at the table.
#[derive(Clone, Debug)]
pub struct Seat {
    /// The player's id as given (`--seats`), read as a literal: what the game knows the
    /// player as (what graphics' `view` names).
    pub player: String,
    /// The secret in the seat's link.
    pub token: String,
    /// The agent that plays the seat, when the server plays it (`--agent`).
    pub agent: Option<Agent>,
}

/// A request from a page.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum Request {
    Click {
        #[serde(default)]
        id: Option<u64>,
        owner: String,
        graphic: String,
    },
    Play {
        #[serde(default)]
        id: Option<u64>,
        name: String,
    },
    Signal {
        #[serde(default)]
        id: Option<u64>,
        signal: String,
        #[serde(default)]
        tag: Option<String>,
    },
    Undo {
        #[serde(default)]
        id: Option<u64>,
    },
    Redo {
        #[serde(default)]
        id: Option<u64>,
    },
    Goto {
        #[serde(default)]
        id: Option<u64>,
        n: usize,
    },
    Peek {
        #[serde(default)]
        id: Option<u64>,
        n: usize,
    },
    Rule {
        #[serde(default)]
        id: Option<u64>,
        kind: RuleKind,
        text: String,
    },
    Disable {
        #[serde(default)]
        id: Option<u64>,
        name: String,
    },
    Enable {
        #[serde(default)]
        id: Option<u64>,
        name: String,
    },
    Remove {
        #[serde(default)]
        id: Option<u64>,
        name: String,
    },
    Variant {
        #[serde(default)]
        id: Option<u64>,
        name: String,
        /// `false` switches the variant off.
        #[serde(default)]
        on: Option<bool>,
    },
    Check {
        #[serde(default)]
        id: Option<u64>,
        kind: RuleKind,
        text: String,
    },
    Accept {
        #[serde(default)]
        id: Option<u64>,
        proposal: u64,
    },
    Decline {
        #[serde(default)]
        id: Option<u64>,
        proposal: u64,
    },
}

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum RuleKind {
    Law,
    Sideeffect,
}

/// What handling a request gives: the messages for the connection that sent it, and
/// whether the game changed (then every connection gets the new state).
pub struct Handled {
    /// JSON messages for the sender.
    pub replies: Vec<String>,
    /// The game changed.
    pub changed: bool,
    /// What the connections are shown changed without the game changing (a proposal made
    /// or answered): every connection gets the new state.
    pub shown: bool,
}

impl Handled {
    /// One message for the sender; nothing changed.
    pub fn reply(message: Json) -> Handled {
        Handled {
            replies: vec![message.to_string()],
            changed: false,
            shown: false,
        }
    }
}

/// The served game.
pub struct Table {
    repl: Repl,
    seats: Vec<Seat>,
    /// Each seat's player, read from its text.
    players: Vec<Value>,
    to_move: Option<CodeId>,
    /// The seat that must answer the move waiting for a signal: the seat of the wait's
    /// `from` player, else the seat that began the move.
    waiting_seat: Option<usize>,
    /// The seat that began the move waiting for a signal.
    move_seat: Option<usize>,
    version: u64,
    /// What each kind of connection is shown at this version.
    shown: HashMap<Who, Arc<str>>,
    /// The legal moves and the player to move at this version.
    moves: Option<Turn>,
    /// The game's `(to-move)` for the agents, when a seat is played by one.
    agents: Option<Agents>,
    /// The changes (by number) that are secret orders: moves played while `to-move` gave a
    /// list of players, with the player who gave each. Only that player's connections
    /// read its name in the history.
    secret: HashMap<usize, String>,
    /// The changes that closed a round of orders (revealed them): an order before one of
    /// them in effect is no longer secret.
    reveals: std::collections::BTreeSet<usize>,
    /// The proposals waiting for the seats' agreement, and who made each change.
    agreement: Agreement,
    /// Names never seen before that the texts of rules the seats sent added to the process
    /// (see [`MAX_NEW_NAMES`]).
    names_read: usize,
    /// The game's variants, with their descriptions (read once: every state lists them).
    variants: Vec<editor::Variant>,
    /// Where every change is recorded before it is answered (`--store`).
    store: Option<Store>,
}

// SAFETY: a value's reference counts are not atomic (values stay on the thread that made
// them, see `runtime::value`), and a table moves between the server's threads, behind its
// mutex. That is sound because nothing outside a table holds a count of a value inside
// it: it makes its game itself (`Table::new` takes options, not a game), takes only text
// and returns only text, JSON and numbers, and its fields are private. So every count in
// it is touched by the one thread that holds the table at the time, and the mutex orders
// those threads.
unsafe impl Send for Table {}

impl Table {
    /// Open the game `options` name and serve it to `seats`; `(to-move)` is compiled when
    /// the game defines it.
    pub fn new(options: ReplOptions, seats: Vec<Seat>) -> Result<Table, TableError> {
        Table::open(options, seats, None)
    }

    /// [`Table::new`], kept in a store (`--store`): the changes it recorded are replayed
    /// first (the error names the one that does not replay), then every change is recorded.
    pub fn open(
        options: ReplOptions,
        seats: Vec<Seat>,
        store: Option<Opened>,
    ) -> Result<Table, TableError> {
        let at_start = options.rules.clone();
        let mut repl = Repl::new(options).map_err(TableError::Open)?;
        repl.set_rule_files(false);
        let players = seats.iter().map(|s| parse_literal(&s.player)).collect();
        let to_move = if repl.has_function(TO_MOVE) {
            Some(
                repl.compile_expression(&format!("({TO_MOVE})"))
                    .map_err(TableError::Game)?,
            )
        } else {
            None
        };
        let agents = if seats.iter().any(|s| s.agent.is_some()) {
            for (seat, agent) in seats.iter().filter_map(|s| Some((s, s.agent.as_ref()?))) {
                repl.check_agent(agent).map_err(|e| {
                    TableError::Game(format!("--agent {}={agent}: {e}", seat.player))
                })?;
            }
            Some(repl.agents().map_err(TableError::Game)?)
        } else {
            None
        };
        let mut table = Table {
            repl,
            seats,
            players,
            to_move,
            waiting_seat: None,
            move_seat: None,
            version: 0,
            shown: HashMap::new(),
            moves: None,
            agents,
            secret: HashMap::new(),
            reveals: std::collections::BTreeSet::new(),
            agreement: Agreement::default(),
            names_read: 0,
            variants: Vec::new(),
            store: None,
        };
        table.variants = editor::variants(&table.repl, &at_start);
        if let Some(opened) = store {
            table.replay(opened.records).map_err(TableError::Game)?;
            table.store = Some(opened.store);
        }
        // A seat the server plays may have the first move; if it cannot make it, nobody
        // could play: the game is refused.
        if let Some(problem) = table.play_agents() {
            return Err(TableError::Game(problem));
        }
        Ok(table)
    }

    /// The players to move, and whether `to-move` gave them as a list (several may move at
    /// once, and their moves are secret orders); `None` when nobody in particular is (or
    /// `to-move` fails).
    fn movers(&mut self) -> Option<(Vec<Value>, bool)> {
        match self.turn() {
            Ok(Some(Value::List(l))) => Some((l.iter().cloned().collect(), true)),
            Ok(Some(v)) => Some((vec![v], false)),
            _ => None,
        }
    }

    /// The game changed: a new version, whose states and moves are made anew.
    fn bump(&mut self) {
        self.version += 1;
        self.shown.clear();
        self.moves = None;
        self.agreement.game_changed(self.version);
    }

    /// Whether the player (one of the players) to move is a seat the server plays.
    fn agent_to_move(&mut self) -> bool {
        let Some((to_move, _)) = self.movers() else {
            return false;
        };
        to_move.iter().any(|p| {
            self.players
                .iter()
                .position(|x| x == p)
                .is_some_and(|seat| self.seats[seat].agent.is_some())
        })
    }

    /// Take back changes while a seat the server plays is to move (it would only make
    /// the same move again), down to the start.
    fn undo_agents(&mut self) {
        for _ in 0..MAX_AGENT_MOVES {
            if self.agents.is_none() || !self.agent_to_move() {
                break;
            }
            let before = self.repl.mark();
            self.execute(Command::Undo, By::Server(None));
            if self.repl.mark() == before {
                break;
            }
            self.bump();
        }
    }

    /// Play the moves of the seats the server plays, for as long as one of them is to
    /// move (a move waiting for a signal that seat must answer is answered first, see
    /// [`Table::answer_wait`]): the search's choice (`mcts`) or a legal move
    /// at random (`random`, and in a position where several players move at once, whose
    /// orders a search would see); each is a change of the history, as a seat's `:play`
    /// is. What stopped a seat from moving when it was to move, for the players to read.
    fn play_agents(&mut self) -> Option<String> {
        // Bounded: a game whose agents play each other stops after this many moves.
        for _ in 0..MAX_AGENT_MOVES {
            self.agents.as_ref()?;
            if self.repl.waiting_for().is_some() {
                match self.answer_wait() {
                    Ok(true) => continue,
                    Ok(false) => return None,
                    Err(problem) => return Some(problem),
                }
            }
            let (to_move, orders) = self.movers()?;
            let several = to_move.len() > 1;
            let (seat, player, agent) = to_move.iter().find_map(|p| {
                let seat = self.players.iter().position(|x| x == p)?;
                Some((seat, p.to_text(), self.seats[seat].agent.clone()?))
            })?;
            let chosen = match (&agent, several, &self.agents) {
                (Agent::Mcts { iterations, depth }, false, Some(a)) => {
                    let a = a.clone();
                    self.repl.best_move(&a, (*iterations, *depth))
                }
                (Agent::Ismcts { iterations }, _, Some(_)) => {
                    self.repl.ismcts_move(*iterations, &player)
                }
                (Agent::System(s), false, _) => {
                    let system = s.system.clone();
                    self.repl.system_move_of(&system, &player)
                }
                _ => self.repl.random_move_of(&player),
            };
            let name = match chosen {
                Ok(Some(name)) => name,
                Ok(None) => return None,
                Err(e) => {
                    return Some(format!(
                        "player {player} ({agent}) cannot choose a move: {e}"
                    ));
                }
            };
            let before = self.repl.mark();
            // As a typed `:play`: blanks around the name do not count.
            let play = Command::Play {
                name: name.trim().to_string(),
            };
            let reply = self.execute(play, By::Server(Some(seat)));
            self.note_waiting(false, seat);
            if self.repl.mark() == before {
                // What the game said of the refused move is that seat's output: the
                // server's log has it, the players are told only that it failed.
                eprintln!("player {player} ({agent}) plays {name}: {}", reply.text);
                return Some(format!(
                    "player {player} ({agent}) could not play {name}: the game refused it"
                ));
            }
            let revealing = orders && self.closes_round(&to_move);
            self.note_change(orders.then_some(player), Author::Seat(seat), revealing);
            self.bump();
        }
        None
    }

    /// Answer the move waiting for a signal when the seat that must answer it is one the
    /// server plays: a tag drawn among the wait's answers (`among`) with a generator seeded
    /// by the world's (repeatable), whatever the seat's agent. Whether it answered; what
    /// stopped it (a wait with no `among` list, an answer refused) for the players to read.
    fn answer_wait(&mut self) -> Result<bool, String> {
        let Some(seat) = self.waiting_seat else {
            return Ok(false);
        };
        let Some(agent) = self.seats[seat].agent.clone() else {
            return Ok(false);
        };
        let Some(wait) = self.repl.wait() else {
            return Ok(false);
        };
        let player = self.players[seat].to_text();
        let signal = wait.signal.as_str().to_string();
        let answers: Vec<String> = match &wait.answers {
            // As typed: a string in quotes.
            Some(a) if !a.is_empty() => a.iter().map(Value::to_string).collect(),
            _ => {
                return Err(format!(
                    "player {player} ({agent}) cannot answer signal \"{signal}\": the game's wait lists no answers (`among`) to draw from"
                ));
            }
        };
        let history = self.repl.history();
        let rng = history.world_after(history.cursor()).map_or(0, |w| w.rng);
        let mut chooser = crate::play::playout::Chooser::new(rng, self.version);
        let tag = answers[chooser.below(answers.len())].clone();
        let before = self.repl.mark();
        let command = Command::Signal {
            name: signal.clone(),
            gap: Gap::ONE,
            tag: Some(tag.clone()),
        };
        let reply = self.execute(command, By::Server(Some(seat)));
        if self.repl.mark() == before {
            eprintln!(
                "player {player} ({agent}) answers signal \"{signal}\" with {tag}: {}",
                reply.text
            );
            return Err(format!(
                "player {player} ({agent}) could not answer signal \"{signal}\" with {tag}: the game refused it"
            ));
        }
        self.note_change(None, Author::Seat(seat), false);
        self.note_waiting(true, seat);
        self.bump();
        Ok(true)
    }

    /// Run `command` on the game, `by` a seat or the server; a change it makes is recorded
    /// in the store (`--store`) and synced to disk before this returns, so before anything
    /// is answered.
    fn execute(&mut self, command: Command, by: By) -> Reply {
        let text = self.store.as_ref().map(|_| command.to_string());
        let before = self.repl.mark();
        let reply = self.repl.execute(command);
        if let (Some(store), Some(text)) = (&mut self.store, text)
            && self.repl.mark() != before
        {
            store.record(&text, by, self.repl.history().cursor());
        }
        reply
    }

    /// Replay the changes a store recorded, with what the table notes of each as it was
    /// made (a secret order's player, the seat whose move waits for a signal).
    fn replay(&mut self, records: Vec<Record>) -> Result<(), String> {
        for record in records {
            let movers = match record.command {
                Command::Play { .. } => self
                    .movers()
                    .and_then(|(list, orders)| orders.then_some(list)),
                _ => None,
            };
            let navigating = matches!(
                record.command,
                Command::Undo | Command::Redo | Command::Goto(_)
            );
            // A rules file the server reads only as one of the game's variants.
            if let Command::Rules { path, .. } = &record.command {
                let stem = std::path::Path::new(path)
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default();
                let variant = self.repl.variant_path(stem).ok();
                if variant.as_deref() != Some(std::path::Path::new(path)) {
                    return Err(record.refusal(
                        "it names a file that is not one of the game's variants",
                        None,
                    ));
                }
            }
            let before = self.repl.mark();
            let was_waiting = self.repl.waiting_for().is_some();
            let reply = self.repl.execute(record.command.clone());
            let cursor = self.repl.history().cursor();
            if self.repl.mark() == before {
                return Err(record.refusal(&reply.text, None));
            }
            if cursor != record.cursor {
                return Err(record.refusal(&reply.text, Some(cursor)));
            }
            let (seat, author) = match record.by {
                By::Seat(s) | By::Server(Some(s)) => (Some(s), Author::Seat(s)),
                By::Table(s) => (Some(s), Author::Table),
                By::Server(None) => (None, Author::Table),
            };
            if !navigating && let Some(s) = seat {
                let revealing = movers.as_ref().is_some_and(|m| self.closes_round(m));
                let owner = movers.is_some().then(|| self.players[s].to_text());
                self.note_change(owner, author, revealing);
            }
            if let By::Seat(s) | By::Table(s) | By::Server(Some(s)) = record.by {
                self.note_waiting(was_waiting, s);
            }
            self.bump();
        }
        Ok(())
    }

    /// The seats.
    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// The player in seat `n`, as the game writes it.
    pub fn player_text(&self, n: usize) -> Option<String> {
        self.players.get(n).map(Value::to_text)
    }

    /// The version of the game (one more after each change).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The seat whose link holds `token`.
    pub fn seat_of(&self, token: &str) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| constant_time_eq(s.token.as_bytes(), token.as_bytes()))
    }

    fn view(&self, who: Who) -> View {
        match who {
            Who::Watcher => View::Public,
            Who::Seat(i) => View::Player(self.players[i].clone()),
        }
    }

    /// The state message for `who` at the current version.
    pub fn state(&mut self, who: Who) -> Arc<str> {
        if let Some(s) = self.shown.get(&who) {
            return s.clone();
        }
        let (moves, to_move) = self.moves_for(who);
        let svg = capped_svg(crate::repr::svg::render(
            self.repl.canvas(),
            &self.view(who),
        ));
        let view = self.view(who);
        let history = self.repl.history();
        let entries: Vec<Json> = (1..=history.entries().len())
            .map(|n| json!({"n": n, "text": self.describe(n, &view), "undone": n > history.cursor()}))
            .collect();
        let rules: Vec<Json> = self
            .repl
            .rules_in_force()
            .into_iter()
            .map(|r| json!({"name": r.name, "text": r.text, "enabled": r.enabled}))
            .collect();
        let waiting = self.repl.wait().map(|w| {
            json!({
                "signal": w.signal.as_str(),
                "player": match &w.player {
                    Some(p) => Some(p.to_text()),
                    None => self.waiting_seat.map(|i| self.players[i].to_text()),
                },
                "answers": w.answers.as_ref().map(|a| a.iter().map(Value::to_text).collect::<Vec<_>>()),
            })
        });
        let seat = match who {
            Who::Seat(i) => Some(i),
            Who::Watcher => None,
        };
        let (proposals, notice) = self.agreement.shown(self, seat);
        let message = json!({
            "type": "state",
            "version": self.version,
            "you": match who {
                Who::Watcher => json!({"watcher": true}),
                Who::Seat(i) => json!({"watcher": false, "player": self.players[i].to_text()}),
            },
            "svg": svg,
            "moves": moves,
            "toMove": to_move,
            "waiting": waiting,
            "history": entries,
            "cursor": history.cursor(),
            "rules": rules,
            "variants": self.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
            "variantDetails": self.variant_details(),
            "proposals": proposals,
            "notice": notice,
            "outcome": self.repl.outcome_text(),
        });
        let text: Arc<str> = Arc::from(message.to_string());
        self.shown.insert(who, text.clone());
        text
    }

    /// The legal moves and the player (or players) to move, kept until the game changes.
    fn moves_and_turn(&mut self) -> &Turn {
        if self.moves.is_none() {
            let (moves, owners) = match self.repl.legal_moves_with_players() {
                None => (Json::Null, Vec::new()),
                Some(Ok(found)) => {
                    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
                    let owners = found.iter().map(|(_, p)| p.clone()).collect();
                    (json!(names), owners)
                }
                Some(Err(e)) => (
                    json!({"error": unsaid(&e, "the legal moves cannot be listed")}),
                    Vec::new(),
                ),
            };
            let to_move = match self.turn() {
                Ok(Some(Value::List(l))) => json!(l.iter().map(Value::to_text).collect::<Vec<_>>()),
                Ok(Some(v)) => json!(v.to_text()),
                Ok(None) => Json::Null,
                Err(e) => json!({"error": unsaid(&e, "the player to move cannot be told")}),
            };
            self.moves = Some(Turn {
                moves,
                owners,
                to_move,
            });
        }
        self.moves.as_ref().expect("just made")
    }

    /// The moves `who` may play: a seat does not see the moves of another player (a
    /// move's `by` or `player` attribute: a bid in a game of simultaneous moves, a card
    /// of a hidden hand), and a watcher sees none of a player's moves.
    fn moves_for(&mut self, who: Who) -> (Json, Json) {
        let mine = match who {
            Who::Seat(i) => Some(self.players[i].to_text()),
            Who::Watcher => None,
        };
        let waiting = self.repl.wait().is_some();
        let turn = self.moves_and_turn();
        let moves = match &turn.moves {
            // While a move waits for a signal, no move can be played: only the answer.
            _ if waiting => json!([]),
            Json::Array(names) if !turn.owners.is_empty() => json!(
                names
                    .iter()
                    .zip(&turn.owners)
                    .filter(|(_, owner)| match owner {
                        None => true,
                        Some(o) => mine.as_ref().is_some_and(|me| me == o),
                    })
                    .map(|(n, _)| n.clone())
                    .collect::<Vec<_>>()
            ),
            m => m.clone(),
        };
        (moves, turn.to_move.clone())
    }

    /// The player to move, when the game says (`nil` from `(to-move)` is nobody in
    /// particular).
    fn turn(&mut self) -> Result<Option<Value>, String> {
        let Some(code) = self.to_move else {
            return Ok(None);
        };
        match self.repl.evaluate(code) {
            Ok(Value::Nil) => Ok(None),
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(format!("({TO_MOVE}) {e}")),
        }
    }

    /// Set the flag that interrupts the running transaction (the server's deadline).
    pub fn set_interrupt(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.repl.set_interrupt(flag);
    }

    /// Handle one request from `who`.
    pub fn handle(&mut self, who: Who, text: &str) -> Handled {
        let refuse = |id: Option<u64>, message: String| {
            Handled::reply(json!({"type": "error", "id": id, "message": message}))
        };
        if text.len() > MAX_REQUEST {
            return refuse(
                None,
                format!(
                    "the request is {} bytes long; the limit is {MAX_REQUEST}: nothing was done",
                    text.len()
                ),
            );
        }
        let raw: Json = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => return refuse(None, format!("the request is not JSON: {e}")),
        };
        let id = raw.get("id").and_then(Json::as_u64);
        let request: Request = match serde_json::from_value(raw) {
            Ok(r) => r,
            Err(e) => return refuse(id, format!("bad request: {e}")),
        };
        match self.run(who, request) {
            Ok(h) => h,
            Err(message) => refuse(id, message),
        }
    }

    fn run(&mut self, who: Who, request: Request) -> Result<Handled, String> {
        if let Request::Peek { id, n } = request {
            return self.peek(who, id, n);
        }
        if let Request::Rule { .. } | Request::Check { .. } = &request {
            if self.names_read >= MAX_NEW_NAMES {
                return Err(format!(
                    "this server has read {MAX_NEW_NAMES} new names from the rules sent to it, \
                     which it keeps for as long as it runs: no more rule texts are read (the \
                     game's own rules and variants still can be switched)"
                ));
            }
            let before = Symbol::count();
            let handled = self.run_request(who, request);
            self.names_read += Symbol::count().saturating_sub(before);
            return handled;
        }
        self.run_request(who, request)
    }

    fn run_request(&mut self, who: Who, request: Request) -> Result<Handled, String> {
        let Who::Seat(seat) = who else {
            return Err(
                "you are watching: only players, who join through their seat link, can change the game"
                    .into(),
            );
        };
        let (id, command) = match request {
            Request::Peek { id, n } => return self.peek(who, id, n),
            Request::Click { id, owner, graphic } => {
                name(&owner, "entity")?;
                name(&graphic, "graphic")?;
                let visible = (Symbol::get(&owner).zip(Symbol::get(&graphic)))
                    .and_then(|(o, g)| self.repl.canvas().find(o, g))
                    .is_some_and(|g| g.visible_in(&self.view(who)));
                if !visible {
                    return Err(format!("{owner} has no graphic \"{graphic}\" in your view"));
                }
                if self.repl.waiting_for().is_none() {
                    self.may_move(seat)?;
                } else {
                    self.may_answer(seat)?;
                }
                (id, Command::Click { owner, graphic })
            }
            Request::Play {
                id,
                name: move_name,
            } => {
                name(&move_name, "move")?;
                self.may_move(seat)?;
                self.may_play(seat, &move_name)?;
                if let Some(text) = self.refusal_for(who, &move_name) {
                    return Ok(Handled::reply(
                        json!({"type": "reply", "id": id, "ok": false, "changed": false, "text": text}),
                    ));
                }
                (id, Command::Play { name: move_name })
            }
            Request::Signal { id, signal, tag } => {
                name(&signal, "signal")?;
                let tag = tag.unwrap_or_default();
                if tag.len() > MAX_NAME || tag.contains(['\n', '\r']) {
                    return Err("a signal's tag is one line of at most 200 bytes".into());
                }
                self.may_answer(seat)?;
                // The history shows the tag as given (but for the blanks after it).
                let tag = tag.trim_end();
                let given = tag.trim_start();
                let gap = &tag[..tag.len() - given.len()];
                let command = Command::Signal {
                    name: signal,
                    gap: Gap::typed(&format!(" {gap}")),
                    tag: (!given.is_empty()).then(|| given.to_string()),
                };
                (id, command)
            }
            Request::Undo { id } => (id, Command::Undo),
            Request::Redo { id } => (id, Command::Redo),
            Request::Goto { id, n } => (id, Command::Goto(n)),
            Request::Rule { id, kind, text } => {
                let (gap, definition) = (Gap::ONE, text.trim().to_string());
                let command = match kind {
                    RuleKind::Law => Command::Law { gap, definition },
                    RuleKind::Sideeffect => Command::SideEffect { gap, definition },
                };
                (id, command)
            }
            Request::Disable { id, name } => {
                let (gap, name) = (Gap::ONE, rule_name(&name)?);
                (id, Command::Disable { gap, name })
            }
            Request::Enable { id, name } => {
                let (gap, name) = (Gap::ONE, rule_name(&name)?);
                (id, Command::Enable { gap, name })
            }
            Request::Remove { id, name } => {
                let (gap, name) = (Gap::ONE, rule_name(&name)?);
                (id, Command::Remove { gap, name })
            }
            Request::Variant { id, name, on } => {
                (id, self.variant_command(name.trim(), on.unwrap_or(true))?)
            }
            Request::Check { id, kind, text } => return Ok(self.check(id, kind, &text)),
            Request::Accept { id, proposal } => return self.answer(seat, id, proposal, true),
            Request::Decline { id, proposal } => return self.answer(seat, id, proposal, false),
        };
        if self.needs_agreement(seat, &command) {
            return self.propose(seat, id, command);
        }
        self.carry_out(seat, id, command, false).map(|(h, _)| h)
    }

    /// Carry out `seat`'s `command` (`agreed` by every seat, or needing no agreement):
    /// what the sender is told, and the REPL's reply text.
    fn carry_out(
        &mut self,
        seat: usize,
        id: Option<u64>,
        command: Command,
        agreed: bool,
    ) -> Result<(Handled, String), String> {
        // Adding a law or side-effect is done, or refused (with a diagnostic).
        let adds_rule = matches!(
            command,
            Command::Law { .. } | Command::SideEffect { .. } | Command::Rules { .. }
        );
        // A move given while several may move (`to-move` gives a list) is a secret order.
        let movers = match command {
            Command::Play { .. } => self
                .movers()
                .and_then(|(list, orders)| orders.then_some(list)),
            _ => None,
        };
        let navigating = matches!(command, Command::Undo | Command::Redo | Command::Goto(_));
        let undo = matches!(command, Command::Undo);
        let before = self.repl.mark();
        let was_waiting = self.repl.waiting_for().is_some();
        let by = if agreed {
            By::Table(seat)
        } else {
            By::Seat(seat)
        };
        let mut reply = self.execute(command, by);
        let changed = self.repl.mark() != before;
        if changed && !navigating {
            let revealing = movers.as_ref().is_some_and(|m| self.closes_round(m));
            let author = if agreed {
                Author::Table
            } else {
                Author::Seat(seat)
            };
            let owner = movers.is_some().then(|| self.players[seat].to_text());
            self.note_change(owner, author, revealing);
        }
        self.note_waiting(was_waiting, seat);
        if changed {
            self.bump();
            if undo {
                // Taking back a move made against the server takes back the server's
                // answer too: back to where a seat it does not play is to move.
                self.undo_agents();
            } else {
                // The seats the server plays answer at once; what stops one is told.
                if let Some(problem) = self.play_agents() {
                    reply.text.push('\n');
                    reply.text.push_str(&problem);
                }
            }
        }
        // A rule that does not check is refused with its diagnostic: nothing changed.
        let ok = !(reply.text.starts_with("error") || reply.text.starts_with("usage"))
            && (changed || !adds_rule);
        cap_text(&mut reply.text);
        let mut handled = Handled::reply(
            json!({"type": "reply", "id": id, "ok": ok, "changed": changed, "text": reply.text}),
        );
        handled.changed = changed;
        Ok((handled, reply.text))
    }

    /// Show the position after change `n` of the history to `who` alone.
    fn peek(&self, who: Who, id: Option<u64>, n: usize) -> Result<Handled, String> {
        let history = self.repl.history();
        let Some(world) = history.world_after(n) else {
            return Err(format!(
                "there are {} changes; no change {n}",
                history.entries().len()
            ));
        };
        let svg = capped_svg(crate::repr::svg::render(&world.canvas, &self.view(who)));
        let description = match n {
            0 => "start".to_string(),
            n => self.describe(n, &self.view(who)),
        };
        Ok(Handled::reply(
            json!({"type": "peek", "id": id, "n": n, "text": description, "svg": svg}),
        ))
    }

    /// Note the change just made (the history's newest): a secret order of `owner`, or
    /// not; made by `author`; whether it closed a round of orders (`revealing`).
    fn note_change(&mut self, owner: Option<String>, author: Author, revealing: bool) {
        let n = self.repl.history().cursor();
        match owner {
            Some(o) => self.secret.insert(n, o),
            None => self.secret.remove(&n),
        };
        if revealing {
            self.reveals.insert(n);
        } else {
            self.reveals.remove(&n);
        }
        self.agreement.note(n, author, revealing);
    }

    /// Whether the order just given, when `before` were to give theirs, closed the round
    /// (its orders are carried out and shown): a player is to move now who was not before
    /// (a new round), or no list of players is (the orders are over). A player who gives
    /// several orders a round is still to move after each but the last.
    fn closes_round(&mut self, before: &[Value]) -> bool {
        match self.movers() {
            Some((now, _)) => now.iter().any(|p| !before.contains(p)),
            None => true,
        }
    }

    /// Change `n`'s description as `view` may read it: a click on a graphic that was not
    /// in that view names no graphic (its id could tell what a private graphic is), and a
    /// secret order names no move but for the player who gave it.
    fn describe(&self, n: usize, view: &View) -> String {
        let history = self.repl.history();
        let Some(entry) = history.entries().get(n - 1) else {
            return String::new();
        };
        let before = history.world_after(n - 1);
        let mut text = entry.description.clone();
        // An undone change (past the cursor) is revealed by nothing in effect.
        let revealed =
            n <= history.cursor() && self.reveals.range(n..=history.cursor()).next().is_some();
        if let Some(owner) = self.secret.get(&n)
            && !revealed
            && !matches!(view, View::Player(p) if p.to_text() == *owner)
        {
            for play in &entry.commands {
                if let Command::Play { .. } = play {
                    text = text.replace(
                        &play.to_string(),
                        &format!(":play (an order of player {owner})"),
                    );
                }
            }
        }
        for click in &entry.commands {
            let Command::Click { owner, graphic } = click else {
                continue;
            };
            let visible = before
                .and_then(|w| {
                    let (o, g) = Symbol::get(owner).zip(Symbol::get(graphic))?;
                    w.canvas.find(o, g)
                })
                .is_some_and(|g| g.visible_in(view));
            if !visible {
                text = text.replace(
                    &click.to_string(),
                    &format!(":click {owner} (a private graphic)"),
                );
            }
        }
        text
    }

    fn may_move(&mut self, seat: usize) -> Result<(), String> {
        if let Some(signal) = self.repl.waiting_for() {
            return Err(format!(
                "a move is waiting for signal \"{signal}\": it must be answered first"
            ));
        }
        match self.turn() {
            // Several players to move (simultaneous orders): any of them.
            Ok(Some(Value::List(l))) if !l.iter().any(|p| *p == self.players[seat]) => {
                let names: Vec<String> = l.iter().map(Value::to_text).collect();
                let who = match names.as_slice() {
                    [one] => format!("player {one} is"),
                    _ => format!("players {} are", names.join(", ")),
                };
                Err(format!("not your turn: {who} to move; nothing was done"))
            }
            Ok(Some(Value::List(_))) => Ok(()),
            Ok(Some(p)) if p != self.players[seat] => Err(format!(
                "not your turn: player {} is to move; nothing was done",
                p.to_text()
            )),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("cannot tell whose turn it is: {e}")),
        }
    }

    /// Whether seat `seat` may play the move `name`: not when the move is another
    /// player's (its message's `player` attribute), as in a game of simultaneous moves.
    fn may_play(&mut self, seat: usize, name: &str) -> Result<(), String> {
        let me = self.players[seat].to_text();
        let turn = self.moves_and_turn();
        let owner = match &turn.moves {
            Json::Array(names) => names
                .iter()
                .position(|n| n.as_str() == Some(name))
                .and_then(|i| turn.owners.get(i).cloned().flatten()),
            _ => None,
        };
        match owner {
            Some(owner) if owner != me => Err(format!(
                "`{name}` is player {owner}'s move, not yours; nothing was done"
            )),
            _ => Ok(()),
        }
    }

    /// When `who` is shown only some of the legal moves (its own, in a game of
    /// simultaneous moves) and `name` cannot be played: the REPL's refusal, listing as
    /// legal only the moves `who` is shown (the others' moves are not told).
    fn refusal_for(&mut self, who: Who, name: &str) -> Option<String> {
        let (mine, _) = self.moves_for(who);
        let Json::Array(mine) = mine else {
            return None;
        };
        if Some(&mine) == self.moves_and_turn().moves.as_array() {
            // Shown every legal move: the REPL's own reply tells nothing more.
            return None;
        }
        let shown = |n: &str| mine.iter().any(|m| m.as_str() == Some(n));
        self.repl.play_refusal(name, &shown)
    }

    /// After a change by `seat` (which `was_waiting` for a signal before it or not): who
    /// must answer the move now waiting, if one waits.
    fn note_waiting(&mut self, was_waiting: bool, seat: usize) {
        let Some(wait) = self.repl.wait() else {
            self.waiting_seat = None;
            self.move_seat = None;
            return;
        };
        if !was_waiting {
            self.move_seat = Some(seat);
        }
        self.waiting_seat = match &wait.player {
            // A player with no seat: any seat answers for them.
            Some(p) => self.players.iter().position(|q| q == p),
            None => self.move_seat,
        };
    }

    fn may_answer(&self, seat: usize) -> Result<(), String> {
        match (self.repl.waiting_for(), self.waiting_seat) {
            (None, _) => Err("no move is waiting for a signal".into()),
            (Some(_), Some(s)) if s == seat => Ok(()),
            (Some(signal), Some(s)) => Err(format!(
                "player {}'s move is waiting for signal \"{signal}\": only that player answers it",
                self.players[s].to_text()
            )),
            (Some(_), None) => Ok(()),
        }
    }
}

/// The legal moves and whose turn it is, as the state messages give them.
struct Turn {
    /// The names of the legal moves (or an error, or null for a game without `#actions`).
    moves: Json,
    /// For each legal move, the player it belongs to (its `player` attribute), if it says.
    owners: Vec<Option<String>>,
    /// The player to move, the players (several may move at once), or null.
    to_move: Json,
}

/// `text`, cut to [`MAX_MESSAGE`] bytes (at a character boundary) with a note when longer.
fn cap_text(text: &mut String) {
    if text.len() <= MAX_MESSAGE {
        return;
    }
    let total = text.len();
    let mut end = MAX_MESSAGE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!(
        "\n... (the reply is {total} bytes, more than the {MAX_MESSAGE} a message carries: the rest is not sent)"
    ));
}

/// A board drawn, or in its place a note saying it is larger than a message carries.
fn capped_svg(svg: String) -> String {
    if svg.len() <= MAX_MESSAGE {
        return svg;
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 520 40\"><text x=\"10\" y=\"24\">the board drawn is {} bytes, more than the {MAX_MESSAGE} a message carries: it is not sent</text></svg>",
        svg.len()
    )
}

/// What every connection is told of an error that listing the moves or the player to move
/// met (`what`): which move was being tried, not what the game's code said, which is the
/// output of a transaction nobody asked for (a rule's `fail` text may be computed from a
/// secret). A seat that plays the move reads the error in its reply.
fn unsaid(error: &str, what: &str) -> String {
    let tried = error
        .split_once("trying `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(name, _)| name);
    match tried {
        Some(name) => format!("{what}: the game failed trying `{name}` (play it to read why)"),
        None => format!("{what}: the game failed"),
    }
}

/// Check a name a request carries: one word of printable characters.
fn name(text: &str, what: &str) -> Result<(), String> {
    if text.is_empty() || text.len() > MAX_NAME {
        return Err(format!("a {what} name has 1 to {MAX_NAME} bytes"));
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "a {what} name is one word, without spaces or control characters"
        ));
    }
    Ok(())
}

/// Check the name of a law or side-effect, one line (names may hold spaces), and give it
/// without surrounding blanks.
fn rule_name(text: &str) -> Result<String, String> {
    if text.trim().is_empty() || text.len() > MAX_NAME || text.chars().any(char::is_control) {
        return Err(format!(
            "a rule's name is one line of 1 to {MAX_NAME} bytes (the rules list shows the names)"
        ));
    }
    Ok(text.trim().to_string())
}

/// Compare secrets in time that does not depend on where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
