//! `flexrules serve`: web play. A loopback HTTP server (axum on tokio) serves one page
//! (`page.html`, embedded in the binary) and a WebSocket per browser; the page draws the
//! board as SVG and sends clicks, moves, undo/redo and rule changes, which become commands
//! of the REPL backend ([`crate::repl::Repl`]), so the web plays by the REPL's rules.
//!
//! Protocol (JSON text frames, described in lang/REFERENCE.md): the server sends `state`
//! (the board in the connection's view, legal moves, history, rules, outcome) on connect
//! and after every change, `reply` to each request that ran, `error` to each request
//! refused (nothing changed), `peek` for a position of the history.
//!
//! Seats: each player's link holds a secret token; a connection with no token watches the
//! public view. The server renders each connection's view itself, so a player's private
//! graphics never leave the server towards another connection.
//!
//! The edge (`edge.rs`): the `Host` of every request and the `Origin` of every WebSocket
//! must be the server's own (or a `--public-origin`); connections are capped in total and
//! per client address; headers must come within a timeout, and a WebSocket that sends
//! nothing (not even a pong) for the idle timeout is closed.
//!
//! Boundary: a front end beside `crate::repl`; nothing below imports it.

mod edge;
mod store;
mod table;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::extract::ws::{CloseFrame, close_code};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::watch;

use crate::api::{PLAYERS, PlayersError};
use crate::repl::{OpenError, ReplOptions};
use crate::runtime::outside::parse_literal;

use edge::Edge;
pub use edge::EdgeOptions;
pub use table::{MAX_MESSAGE, MAX_REQUEST, Seat, TO_MOVE, Table, TableError, Who};

/// The page: one static HTML file with its script, no build step.
pub const PAGE: &str = include_str!("page.html");

/// The largest WebSocket message the transport accepts; anything longer closes the
/// connection. Requests longer than [`MAX_REQUEST`] but within this get an error.
const MAX_FRAME: usize = 1024 * 1024;

/// How to serve a game.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The game and how to start it.
    pub repl: ReplOptions,
    /// The port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// The players' ids, one seat each (`0`, `1`, or names).
    pub seats: Vec<String>,
    /// Seats played by the server, as `<player>=<agent>` (`1=mcts:500`): see
    /// [`crate::play::agent::Agent`].
    pub agents: Vec<String>,
    /// What the server accepts from the network: origins, timeouts, connection caps.
    pub edge: EdgeOptions,
    /// The directory the table is kept in (`--store`): resumed from it when it holds one.
    pub store: Option<std::path::PathBuf>,
}

/// A running server.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

struct Shared {
    table: Mutex<Table>,
    /// One more each time what the connections are shown changes (the game, or its
    /// proposals): each connection then draws its state anew.
    changed: watch::Sender<u64>,
    edge: Arc<Edge>,
    /// Set to interrupt the transaction running on the table (its deadline passed).
    interrupt: Arc<AtomicBool>,
    /// When the transaction running on the table must end, while one runs. The
    /// interrupt flag is set and cleared only under this lock, so a deadline that passes
    /// as its request ends cannot interrupt the next one.
    deadline: Mutex<Deadline>,
}

/// The deadline of the transaction running on the table, if one runs, and whether it has
/// passed (the machine clears the interrupt flag when it stops for it).
#[derive(Default)]
struct Deadline {
    at: Option<std::time::Instant>,
    passed: bool,
}

impl Shared {
    fn table(&self) -> MutexGuard<'_, Table> {
        // A panic while holding the lock would be a bug; the table itself stays usable
        // because every change to the game is all or nothing.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The table, waiting at most `within` for another request's transaction to end.
    fn table_within(&self, within: std::time::Duration) -> Option<MutexGuard<'_, Table>> {
        let until = std::time::Instant::now() + within;
        loop {
            match self.table.try_lock() {
                Ok(t) => return Some(t),
                Err(std::sync::TryLockError::Poisoned(e)) => return Some(e.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < until => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Err(std::sync::TryLockError::WouldBlock) => return None,
            }
        }
    }

    fn deadline(&self) -> MutexGuard<'_, Deadline> {
        self.deadline.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Handle `who`'s request `text` on this thread (one that may block: not an async
    /// worker), under the deadline; a request that cannot have the table within
    /// [`EdgeOptions::busy_wait`] is answered that the table is busy.
    fn handle(&self, who: Who, text: &str) -> table::Handled {
        let refuse = |message: String| {
            let id = serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.get("id").and_then(serde_json::Value::as_u64));
            serde_json::json!({"type": "error", "id": id, "message": message})
        };
        let Some(mut table) = self.table_within(self.edge.options.busy_wait) else {
            return table::Handled::reply(refuse(format!(
                "the table is busy with another request (a transaction runs at most {:?}); nothing was done: send it again",
                self.edge.options.deadline
            )));
        };
        let (mut handled, late) = self.under_deadline(&mut table, |t| t.handle(who, text));
        if late {
            let message = format!(
                "the transaction ran past the server's deadline of {:?} and was interrupted: what it was doing was undone",
                self.edge.options.deadline
            );
            handled.replies.push(refuse(message).to_string());
        }
        drop(table);
        handled
    }

    /// Run `f` on the table under the deadline (every transaction it runs, a request's
    /// or those that draw a seat's state, is interrupted once the deadline passes): what
    /// it gives, and whether the deadline passed.
    fn under_deadline<R>(&self, table: &mut Table, f: impl FnOnce(&mut Table) -> R) -> (R, bool) {
        {
            let mut deadline = self.deadline();
            deadline.at = Some(std::time::Instant::now() + self.edge.options.deadline);
            deadline.passed = false;
            self.interrupt.store(false, Ordering::Relaxed);
        }
        let r = f(table);
        let mut deadline = self.deadline();
        deadline.at = None;
        self.interrupt.store(false, Ordering::Relaxed);
        (r, std::mem::take(&mut deadline.passed))
    }

    /// What `who` is shown now, drawn under the deadline (drawing a state asks the game
    /// for the legal moves, which runs its rules).
    fn state(&self, who: Who) -> Arc<str> {
        let mut table = self.table();
        self.under_deadline(&mut table, |t| t.state(who)).0
    }

    /// Interrupt the running transaction if its deadline has passed.
    fn enforce_deadline(&self) {
        let mut deadline = self.deadline();
        if deadline.at.is_some_and(|d| std::time::Instant::now() >= d) {
            deadline.passed = true;
            self.interrupt.store(true, Ordering::Relaxed);
        }
    }
}

impl Server {
    /// Open the game and listen on 127.0.0.1:`port`; must be called inside a tokio
    /// runtime. The error says whether the options were wrong (`usage`: no such game, an
    /// unknown parameter, bad seats).
    pub async fn start(options: ServeOptions) -> Result<Server, OpenError> {
        let usage = |text: String| OpenError {
            text: format!("error: {text}"),
            usage: true,
        };
        let failed = |text: String| OpenError {
            text: format!("error: {text}"),
            usage: false,
        };
        // The public origins are checked before the game is opened or a port taken.
        Edge::new(options.edge.clone(), options.port).map_err(usage)?;
        // No seats given: one for each of the game's players.
        let players = if options.seats.is_empty() {
            default_seats(&options.repl)?
        } else {
            options.seats.clone()
        };
        let mut seats: Vec<Seat> = Vec::new();
        for s in &players {
            let player = s.trim();
            if seats
                .iter()
                .any(|x| parse_literal(&x.player) == parse_literal(player))
            {
                return Err(usage(format!("seat {s} is given twice")));
            }
            seats.push(Seat {
                player: player.to_string(),
                token: token().map_err(failed)?,
                agent: None,
            });
        }
        for a in &options.agents {
            let Some((player, agent)) = a.split_once('=') else {
                return Err(usage(format!(
                    "--agent {a}: name the seat the server plays, as <player>=<agent> (1=mcts:500)"
                )));
            };
            let agent = crate::play::agent::Agent::parse(agent.trim())
                .map_err(|e| usage(format!("--agent {a}: {e}")))?;
            let Some(seat) = seats
                .iter_mut()
                .find(|x| parse_literal(&x.player) == parse_literal(player.trim()))
            else {
                return Err(usage(format!(
                    "--agent {a}: no seat is player `{}` (the seats: {})",
                    player.trim(),
                    players.join(", ")
                )));
            };
            if seat.agent.is_some() {
                return Err(usage(format!(
                    "--agent {a}: that seat has an agent already"
                )));
            }
            seat.agent = Some(agent);
        }
        // Kept in a store: its seats keep their tokens, and its changes are replayed.
        let store = match &options.store {
            Some(dir) => Some(store::open(dir, &options.repl, &mut seats).map_err(failed)?),
            None => None,
        };
        let created = store.as_ref().is_some_and(|s| s.created);
        let table = match Table::open(options.repl.clone(), seats, store) {
            Ok(t) => t,
            Err(e) => {
                if let (true, Some(dir)) = (created, &options.store) {
                    store::remove_new(dir);
                }
                return Err(match e {
                    TableError::Open(e) => e,
                    TableError::Game(e) => failed(e),
                });
            }
        };
        let (changed, _) = watch::channel(table.version());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", options.port))
            .await
            .map_err(|e| failed(format!("cannot listen on 127.0.0.1:{}: {e}", options.port)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| failed(format!("cannot read the address listened on: {e}")))?;
        let edge = Arc::new(Edge::new(options.edge.clone(), addr.port()).map_err(usage)?);
        let interrupt = Arc::new(AtomicBool::new(false));
        let mut table = table;
        table.set_interrupt(interrupt.clone());
        let shared = Arc::new(Shared {
            table: Mutex::new(table),
            changed,
            edge: edge.clone(),
            interrupt,
            deadline: Mutex::new(Deadline::default()),
        });
        // The watchdog: a transaction past its deadline is interrupted (the machine checks
        // the flag as it runs, and fails the transaction, the world as it was). A thread of
        // its own, not a task: it goes on while the server's runtime shuts down, so a
        // transaction running then still ends; it ends when the server is gone.
        let watched = Arc::downgrade(&shared);
        let tick = (options.edge.deadline / 20).clamp(
            std::time::Duration::from_millis(1),
            std::time::Duration::from_millis(100),
        );
        std::thread::Builder::new()
            .name("serve-deadline".into())
            .spawn(move || {
                while let Some(shared) = watched.upgrade() {
                    shared.enforce_deadline();
                    drop(shared);
                    std::thread::sleep(tick);
                }
            })
            .map_err(|e| failed(format!("cannot start the deadline watchdog: {e}")))?;
        let app = Router::new()
            .route("/", get(page))
            .route("/ws", get(connect))
            .with_state(shared.clone());
        // Serving ends only with the process (or when the task is aborted).
        let task = tokio::spawn(edge::serve(listener, app, edge));
        Ok(Server { addr, shared, task })
    }

    /// The link of the page for seat `n`'s player.
    pub fn seat_link(&self, n: usize) -> Option<String> {
        let table = self.shared.table();
        let seat = table.seats().get(n)?;
        Some(format!("http://{}/?seat={}", self.addr, seat.token))
    }

    /// The agent that plays seat `n`, when the server plays it.
    pub fn seat_agent(&self, n: usize) -> Option<String> {
        let table = self.shared.table();
        table.seats().get(n)?.agent.as_ref().map(|a| a.to_string())
    }

    /// The players, in seat order.
    pub fn players(&self) -> Vec<String> {
        let table = self.shared.table();
        (0..table.seats().len())
            .filter_map(|n| table.player_text(n))
            .collect()
    }

    /// The secret token of seat `n`.
    pub fn token(&self, n: usize) -> Option<String> {
        self.shared.table().seats().get(n).map(|s| s.token.clone())
    }

    /// The link of the public view.
    pub fn watcher_link(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The game's version: one more after each change.
    pub fn version(&self) -> u64 {
        self.shared.table().version()
    }

    /// Stop listening.
    pub fn stop(self) {
        self.task.abort();
    }

    /// Serve until the process ends.
    pub async fn run(self) {
        let _ = self.task.await;
    }
}

/// The seats when none are given: one per element of the list the game's no-parameter
/// function `players` gives at the start (a headless start with the same parameters and
/// rules), else `0` and `1`. A game that does not open is left for the table to report.
fn default_seats(options: &ReplOptions) -> Result<Vec<String>, OpenError> {
    let refuse = |text: String| OpenError {
        text: format!("error: {text}"),
        usage: false,
    };
    let two = || vec!["0".to_string(), "1".to_string()];
    let game = crate::api::Game::loader(&options.game)
        .rules_files(&options.rules)
        .params_text(&options.params)
        .limits(options.limits)
        .load();
    let started = game.ok().and_then(|g| g.start_headless(options.seed).ok());
    let Some(mut game) = started else {
        // The table opens the game again and says what is wrong with it.
        return crate::repl::Repl::new(options.clone()).map(|_| two());
    };
    let hint = "give the seats with --seats";
    let why = match game.players("flexrules serve") {
        Ok(Some(players)) => return Ok(players),
        Ok(None) => return Ok(two()),
        Err(PlayersError::Function(e)) => format!("{e}: {hint}"),
        Err(PlayersError::Failed(status)) => format!(
            "the game's ({PLAYERS}) failed at the start, so the seats cannot be drawn from it: {status}; {hint}"
        ),
        Err(PlayersError::NotAList(v)) => format!(
            "the game's ({PLAYERS}) gave {v}, not a list of players, so the seats cannot be drawn from it: {hint}"
        ),
        Err(PlayersError::Empty) => format!(
            "the game's ({PLAYERS}) gave an empty list: a game needs at least one seat; {hint}"
        ),
        Err(PlayersError::NotAPlayer(p)) => format!(
            "the game's ({PLAYERS}) gave {p}, which is not a player a seat can name (a number, or a word); {hint}"
        ),
    };
    Err(refuse(why))
}

/// 128 random bits as hex.
fn token() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| format!("cannot draw a random seat token from the system: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

async fn page(headers: HeaderMap, State(shared): State<Arc<Shared>>) -> Response {
    match shared.edge.check_host(&headers) {
        Ok(()) => Html(PAGE).into_response(),
        Err(refused) => refused.into_response(),
    }
}

async fn connect(
    headers: HeaderMap,
    ws: WebSocketUpgrade,
    Query(query): Query<HashMap<String, String>>,
    State(shared): State<Arc<Shared>>,
) -> Response {
    if let Err(refused) = shared
        .edge
        .check_host(&headers)
        .and_then(|()| shared.edge.check_origin(&headers))
    {
        return refused.into_response();
    }
    let who = match query.get("seat") {
        None => Who::Watcher,
        Some(token) => match shared.table().seat_of(token) {
            Some(n) => Who::Seat(n),
            None => {
                return (
                    StatusCode::FORBIDDEN,
                    "unknown seat token: use the seat link printed by flexrules serve, or no token to watch",
                )
                    .into_response();
            }
        },
    };
    ws.max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| connection(socket, shared, who))
}

/// One browser: the state now and after every change, a reply to every request. The
/// server pings it every third of the idle timeout; when it sends nothing at all (not even
/// the pong) for the whole timeout, or does not take what is sent to it for as long, the
/// socket is closed.
async fn connection(socket: WebSocket, shared: Arc<Shared>, who: Who) {
    let idle = shared.edge.options.idle_timeout;
    let (mut sink, mut stream) = socket.split();
    // Subscribed before the first state is drawn: a change made meanwhile is pushed after
    // it (the same version twice at worst, never one missed).
    let mut changed = shared.changed.subscribe();
    if !push_state(&shared, who, &mut sink, idle).await {
        return;
    }
    let mut ping = tokio::time::interval((idle / 3).max(std::time::Duration::from_millis(1)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ping.tick().await;
    let mut deadline = tokio::time::Instant::now() + idle;
    loop {
        tokio::select! {
            // A change already made is pushed before the next request is answered, so a
            // reply never comes ahead of a state another connection's reply has made
            // (the branches are tried in order, not at random).
            biased;
            update = changed.changed() => {
                if update.is_err() || !push_state(&shared, who, &mut sink, idle).await {
                    break;
                }
            }
            incoming = stream.next() => {
                deadline = tokio::time::Instant::now() + idle;
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t.to_string(),
                    Some(Ok(Message::Binary(_))) => {
                        let refusal = serde_json::json!({"type": "error", "id": null,
                            "message": "binary messages are not understood: send JSON text"});
                        if !send(&mut sink, Message::Text(refusal.to_string().into()), idle).await {
                            return;
                        }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                // The transaction runs off the async workers, so other requests and other
                // seats are answered while it runs.
                let handling = shared.clone();
                let Ok(handled) =
                    tokio::task::spawn_blocking(move || handling.handle(who, &text)).await
                else {
                    break;
                };
                // Every connection is shown the game anew (this one after its reply).
                let refresh = handled.changed || handled.shown;
                if refresh {
                    shared.changed.send_modify(|n| *n = n.wrapping_add(1));
                }
                for reply in handled.replies {
                    if !send(&mut sink, Message::Text(reply.into()), idle).await {
                        return;
                    }
                }
                // The sender reads its reply, then the state it made, before anything it
                // asks next is answered (every other connection is pushed the new state
                // as it comes).
                if refresh {
                    changed.mark_unchanged();
                    if !push_state(&shared, who, &mut sink, idle).await {
                        break;
                    }
                }
            }
            _ = ping.tick() => {
                if !send(&mut sink, Message::Ping(Vec::new().into()), idle).await {
                    break;
                }
            }
            () = tokio::time::sleep_until(deadline) => {
                let reason = format!("idle: nothing received for {idle:?}, not even a pong");
                let close = Message::Close(Some(CloseFrame {
                    code: close_code::AWAY,
                    reason: reason.into(),
                }));
                let _ = send(&mut sink, close, idle).await;
                break;
            }
        }
    }
}

/// Draw what `who` is shown now (off the async workers: listing the legal moves runs the
/// game's rules) and send it; whether it was sent.
async fn push_state(
    shared: &Arc<Shared>,
    who: Who,
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    within: std::time::Duration,
) -> bool {
    let reading = shared.clone();
    match tokio::task::spawn_blocking(move || reading.state(who)).await {
        Ok(state) => send(sink, Message::Text(state.to_string().into()), within).await,
        Err(_) => false,
    }
}

/// Send `message`, waiting at most `within` (a client that reads nothing is let go);
/// whether it was sent.
async fn send(
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    message: Message,
    within: std::time::Duration,
) -> bool {
    matches!(
        tokio::time::timeout(within, sink.send(message)).await,
        Ok(Ok(()))
    )
}
