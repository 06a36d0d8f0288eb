//! `flexrules serve --store`: the real binary is killed (`SIGKILL`) at seeded random
//! points of a 200-change game of Go 9x9 and started again on the same store; the seats
//! come back with the same links, and every change whose reply was received is in the
//! history, in order, and nothing else but the one change in flight when the server was
//! killed. Then the refusals: a store of another table, a damaged log, a log that no
//! longer replays; and a log whose last line a crash cut short, which is read without it.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A guard against hanging: waiting for one message is abandoned after this.
const PATIENCE: Duration = Duration::from_secs(60);
/// Changes acknowledged in the kill test.
const CHANGES: usize = 200;
/// Times the server is killed in it.
const KILLS: usize = 6;

const GAME: [&str; 6] = [
    "games/go",
    "--param",
    "size=9",
    "--seats",
    "black,white",
    "--port",
];

/// A small seeded generator (xorshift64*), so the test plays the same game every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// A store directory of its own, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("flexrules-durable-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The server as a process.
struct Running {
    child: Child,
    /// Kept open: the server may print more.
    _stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<String>>,
    addr: String,
    /// The seats' tokens, black then white.
    tokens: Vec<String>,
}

impl Running {
    /// Kill it as `kill -9` does, and reap it.
    fn kill(mut self) -> String {
        self.child.kill().expect("the server is killed");
        self.child.wait().expect("the server is reaped");
        self.stderr.lock().unwrap().clone()
    }
}

/// Start `flexrules serve <GAME> --store <store>` with `extra` arguments: the running
/// server, or (it exited) its standard error.
fn start(store: &Path, extra: &[&str]) -> Result<Running, String> {
    start_with(Some(store), extra)
}

/// [`start`], without a store when `store` is `None`.
fn start_with(store: Option<&Path>, extra: &[&str]) -> Result<Running, String> {
    let store: Vec<&std::ffi::OsStr> = match store {
        Some(dir) => vec!["--store".as_ref(), dir.as_os_str()],
        None => Vec::new(),
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("serve")
        .args(GAME)
        .arg("0")
        .args(extra)
        .args(store)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = Arc::new(Mutex::new(String::new()));
    let mut err = child.stderr.take().expect("stderr");
    let sink = stderr.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let (mut addr, mut tokens) = (None, Vec::new());
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap_or(0) == 0 {
            let status = child.wait().expect("the server is reaped");
            // The thread reading standard error ends with the process.
            std::thread::sleep(Duration::from_millis(50));
            let text = stderr.lock().unwrap().clone();
            return Err(format!("{status}: {text}"));
        }
        if let Some(rest) = line.strip_prefix("serving ") {
            let url = rest.split(" on http://").nth(1).expect("an address");
            addr = Some(url.split_whitespace().next().unwrap().to_string());
        } else if let Some((_, token)) = line.trim().split_once("/?seat=") {
            tokens.push(token.to_string());
        } else if line.starts_with("watchers:") {
            break;
        }
    }
    Ok(Running {
        child,
        _stdout: stdout,
        stderr,
        addr: addr.expect("the server says where it listens"),
        tokens,
    })
}

async fn connect(server: &Running, seat: usize) -> Socket {
    let url = format!("ws://{}/ws?seat={}", server.addr, server.tokens[seat]);
    connect_async(url).await.expect("the seat connects").0
}

/// The next JSON message.
async fn next(socket: &mut Socket) -> Value {
    loop {
        let msg = tokio::time::timeout(PATIENCE, socket.next())
            .await
            .expect("a message comes")
            .expect("the connection is open")
            .expect("the message reads");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).expect("JSON");
        }
    }
}

/// The state at `version` (or later).
async fn state_at(socket: &mut Socket, version: u64) -> Value {
    loop {
        let m = next(socket).await;
        if m["type"] == "state" && m["version"].as_u64().unwrap() >= version {
            return m;
        }
    }
}

/// The reply to the request just sent.
async fn reply(socket: &mut Socket) -> Value {
    loop {
        let m = next(socket).await;
        if m["type"] != "state" {
            return m;
        }
    }
}

/// The history as the players should see it: the moves played ("undo" is not one, it
/// moves the cursor) and the cursor.
#[derive(Clone, Debug, PartialEq)]
struct History {
    moves: Vec<String>,
    cursor: usize,
}

/// A change asked for.
#[derive(Clone, Debug)]
enum Change {
    Play(usize, String),
    Undo,
    Redo,
}

impl History {
    fn apply(&mut self, change: &Change) {
        match change {
            Change::Play(_, name) => {
                self.moves.truncate(self.cursor);
                self.moves.push(name.clone());
                self.cursor += 1;
            }
            Change::Undo => self.cursor -= 1,
            Change::Redo => self.cursor += 1,
        }
    }

    /// The history a state shows.
    fn of(state: &Value) -> History {
        let moves = state["history"]
            .as_array()
            .expect("a history")
            .iter()
            .map(|e| {
                let text = e["text"].as_str().unwrap();
                let play = text.lines().next().unwrap();
                let name = play
                    .strip_prefix(":play ")
                    .unwrap_or_else(|| panic!("a move: {text}"));
                name.split(" -> ").next().unwrap().to_string()
            })
            .collect();
        History {
            moves,
            cursor: state["cursor"].as_u64().unwrap() as usize,
        }
    }
}

/// The next change: now and then an undo or a redo, else a move of the player to move at
/// random (a pass only when nothing else is legal; an undo once the game is over).
fn choose(rng: &mut Rng, state: &Value, history: &History) -> Change {
    let roll = rng.below(100);
    if history.cursor > 0 && roll < 8 {
        return Change::Undo;
    }
    if history.cursor < history.moves.len() && roll < 14 {
        return Change::Redo;
    }
    let seat = match state["toMove"].as_str() {
        Some("black") => 0,
        Some("white") => 1,
        _ => return Change::Undo,
    };
    let moves: Vec<&str> = state["moves"]
        .as_array()
        .expect("legal moves")
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| *m != "pass")
        .collect();
    if moves.is_empty() {
        return Change::Play(seat, "pass".into());
    }
    Change::Play(seat, moves[rng.below(moves.len())].to_string())
}

fn request(change: &Change) -> (usize, String) {
    match change {
        Change::Play(seat, name) => (*seat, json!({"op": "play", "name": name}).to_string()),
        Change::Undo => (0, json!({"op": "undo"}).to_string()),
        Change::Redo => (0, json!({"op": "redo"}).to_string()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_servers_resume_with_every_acknowledged_change() {
    let dir = TempDir::new("kill");
    let store = dir.0.join("store");
    let mut rng = Rng(0x5eed_0034);
    let mut kills: Vec<usize> = (0..KILLS).map(|_| 1 + rng.below(CHANGES - 1)).collect();
    kills.sort_unstable();
    kills.dedup();
    let planned = kills.len();

    let mut server = start(&store, &[]).expect("the server starts");
    let tokens = server.tokens.clone();
    assert_eq!(tokens.len(), 2);
    let mut seats = vec![connect(&server, 0).await, connect(&server, 1).await];
    let mut state = state_at(&mut seats[0], 0).await;
    let mut expected = History {
        moves: Vec::new(),
        cursor: 0,
    };
    let mut version = 0;
    let (mut acknowledged, mut in_flight_kept, mut restarts) = (0, 0, 0);
    while acknowledged < CHANGES {
        let change = choose(&mut rng, &state, &expected);
        let (seat, text) = request(&change);
        let kill_now = kills.first() == Some(&acknowledged);
        seats[seat]
            .send(Message::Text(text.into()))
            .await
            .expect("the request is sent");
        let mut in_flight = None;
        if kill_now && rng.below(3) > 0 {
            // Killed with the request in flight: right away, or a moment later.
            if rng.below(2) == 0 {
                tokio::time::sleep(Duration::from_micros(rng.below(3000) as u64)).await;
            }
            in_flight = Some(change);
        } else {
            let answer = reply(&mut seats[seat]).await;
            assert_eq!(answer["type"], "reply", "{answer}");
            if answer["changed"] == true {
                expected.apply(&change);
                acknowledged += 1;
                version += 1;
                state = state_at(&mut seats[0], version).await;
                state_at(&mut seats[1], version).await;
                assert_eq!(History::of(&state), expected, "as played");
            }
        }
        if !kill_now {
            continue;
        }
        kills.remove(0);
        let stderr = server.kill();
        assert!(!stderr.contains("error"), "{stderr}");
        drop(seats);
        server = start(&store, &[]).expect("the server starts again");
        restarts += 1;
        assert_eq!(server.tokens, tokens, "the seats keep their links");
        seats = vec![connect(&server, 0).await, connect(&server, 1).await];
        state = next(&mut seats[0]).await;
        assert_eq!(state["type"], "state");
        next(&mut seats[1]).await;
        let resumed = History::of(&state);
        if resumed != expected {
            // Only the change in flight may have been kept, and nothing past it.
            let change = in_flight.as_ref().unwrap_or_else(|| {
                panic!("nothing was in flight: {resumed:?} is not {expected:?}")
            });
            expected.apply(change);
            assert_eq!(
                resumed, expected,
                "the change in flight, {change:?}, or nothing"
            );
            acknowledged += 1;
            in_flight_kept += 1;
        }
        version = state["version"].as_u64().unwrap();
    }
    let stderr = server.kill();
    assert!(!stderr.contains("error"), "{stderr}");
    assert_eq!(
        restarts, planned,
        "the server was killed at every planned point"
    );
    eprintln!(
        "{CHANGES} changes, {restarts} kills, {in_flight_kept} changes in flight kept; history at {} of {}",
        expected.cursor,
        expected.moves.len()
    );
}

/// A store holding a few moves, its server killed.
async fn store_with_moves(store: &Path, moves: &[&str]) {
    let server = start(store, &[]).expect("the server starts");
    let mut seats = [connect(&server, 0).await, connect(&server, 1).await];
    for (i, name) in moves.iter().enumerate() {
        let socket = &mut seats[i % 2];
        socket
            .send(Message::Text(
                json!({"op": "play", "name": name}).to_string().into(),
            ))
            .await
            .unwrap();
        assert_eq!(reply(socket).await["changed"], true);
    }
    server.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_are_private_and_a_store_of_another_table_is_refused() {
    let dir = TempDir::new("other");
    let store = dir.0.join("store");
    store_with_moves(&store, &["e5", "c3"]).await;
    for file in ["table.json", "table.log"] {
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(store.join(file)).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{file}");
    }
    let refused = start(&store, &["--seed", "7"]).err().expect("refused");
    assert!(
        refused.contains("holds another table: seed 0 there, 7 here"),
        "{refused}"
    );
    assert!(refused.contains("table.json"), "{refused}");
    // The same table resumes.
    let server = start(&store, &[]).expect("the same table starts");
    let refused = start(&store, &[]).err().expect("one server per store");
    assert!(refused.contains("is in use by another server"), "{refused}");
    let mut seat = connect(&server, 0).await;
    let state = next(&mut seat).await;
    assert_eq!(state["version"], 2);
    assert_eq!(
        History::of(&state).moves,
        ["e5".to_string(), "c3".to_string()]
    );
    server.kill();
    // A log without its setup.
    std::fs::remove_file(store.join("table.json")).unwrap();
    let refused = start(&store, &[]).err().expect("refused");
    assert!(
        refused.contains("has a log (table.log) but no setup (table.json)"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_log_is_refused_naming_its_line_and_a_cut_last_line_dropped() {
    let dir = TempDir::new("damaged");
    let store = dir.0.join("store");
    store_with_moves(&store, &["e5", "c3", "d4"]).await;
    let log = store.join("table.log");
    let good = std::fs::read_to_string(&log).unwrap();
    assert_eq!(good.lines().count(), 3);

    // A crash cut the last line short: dropped, with a warning, and cut from the file.
    std::fs::write(&log, format!("{good}{{\"n\":4,\"by\":{{\"se")).unwrap();
    let server = start(&store, &[]).expect("a cut last line is dropped");
    let mut seat = connect(&server, 0).await;
    assert_eq!(next(&mut seat).await["version"], 3);
    let stderr = server.kill();
    assert!(stderr.contains("cut short"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), good);

    // A whole line that does not read.
    let lines: Vec<&str> = good.lines().collect();
    std::fs::write(&log, format!("{}\nnot json\n{}\n", lines[0], lines[2])).unwrap();
    let refused = start(&store, &[]).err().expect("refused");
    assert!(
        refused.contains("table.log, line 2, does not read"),
        "{refused}"
    );

    // A line the game no longer accepts (as when the game's files changed).
    let moved = lines[1].replace("c3", "z99");
    std::fs::write(&log, format!("{}\n{moved}\n{}\n", lines[0], lines[2])).unwrap();
    let refused = start(&store, &[]).err().expect("refused");
    assert!(
        refused.contains("table.log, line 2 (`:play z99`), does not replay"),
        "{refused}"
    );

    // A command the server never records.
    let saved = lines[1].replace(":play c3", ":save /tmp/x");
    std::fs::write(&log, format!("{}\n{saved}\n", lines[0])).unwrap();
    let refused = start(&store, &[]).err().expect("refused");
    assert!(
        refused.contains("which is not a change the server makes"),
        "{refused}"
    );

    // Put back, it resumes where it was.
    std::fs::write(&log, &good).unwrap();
    let server = start(&store, &[]).expect("resumes");
    let mut seat = connect(&server, 0).await;
    assert_eq!(next(&mut seat).await["version"], 3);
    server.kill();
}

/// The cost of the sync per change: changes a second with and without a store, a seat
/// playing a move and taking it back in a loop. Prints only; run with `--ignored`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn sync_cost() {
    let dir = TempDir::new("cost");
    let store = dir.0.join("store");
    for kept in [None, Some(store.as_path())] {
        let server = start_with(kept, &[]).expect("the server starts");
        let mut seat = connect(&server, 0).await;
        next(&mut seat).await;
        let rounds = 500;
        let began = std::time::Instant::now();
        for _ in 0..rounds {
            for op in [json!({"op": "play", "name": "e5"}), json!({"op": "undo"})] {
                seat.send(Message::Text(op.to_string().into()))
                    .await
                    .unwrap();
                assert_eq!(reply(&mut seat).await["changed"], true);
            }
        }
        let took = began.elapsed();
        eprintln!(
            "{}: {} changes in {took:?}, {:.0} a second",
            if kept.is_some() {
                "--store"
            } else {
                "no store"
            },
            2 * rounds,
            f64::from(2 * rounds) / took.as_secs_f64()
        );
        server.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_moves_the_server_played_are_resumed_not_chosen_again() {
    let dir = TempDir::new("agent");
    let store = dir.0.join("store");
    let agent = ["--agent", "white=random"];
    let server = start(&store, &agent).expect("the server starts");
    assert_eq!(
        server.tokens.len(),
        1,
        "no link for the seat the server plays"
    );
    let mut seat = connect(&server, 0).await;
    next(&mut seat).await;
    for name in ["e5", "c3"] {
        seat.send(Message::Text(
            json!({"op": "play", "name": name}).to_string().into(),
        ))
        .await
        .unwrap();
        assert_eq!(reply(&mut seat).await["changed"], true);
    }
    let before = History::of(&state_at(&mut seat, 4).await);
    assert_eq!(before.moves.len(), 4, "each move answered: {before:?}");
    server.kill();
    let log = std::fs::read_to_string(store.join("table.log")).unwrap();
    assert!(log.contains(r#""by":{"server":1}"#), "{log}");
    // Another seed would choose other answers: the stored moves are replayed as made.
    let server = start(&store, &agent).expect("the server starts again");
    let mut seat = connect(&server, 0).await;
    let state = next(&mut seat).await;
    assert_eq!(state["version"], 4);
    assert_eq!(History::of(&state), before);
    server.kill();
}

/// Send `request` and wait for its reply.
async fn ask(socket: &mut Socket, request: Value) -> Value {
    socket
        .send(Message::Text(request.to_string().into()))
        .await
        .unwrap();
    reply(socket).await
}

/// A variant the table agreed to is kept as the table's change: resumed, it is in force,
/// and taking it back still needs the other seat, while a seat's own move after it is
/// taken back alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_the_table_agreed_to_is_resumed_as_agreed() {
    let dir = TempDir::new("agreed");
    let store = dir.0.join("store");
    let server = start(&store, &[]).expect("the server starts");
    let mut black = connect(&server, 0).await;
    let mut white = connect(&server, 1).await;
    next(&mut black).await;
    next(&mut white).await;
    let proposed = ask(
        &mut black,
        json!({"op": "variant", "name": "positional-superko"}),
    )
    .await;
    let pid = proposed["proposal"].as_u64().expect("proposed");
    let accepted = ask(&mut white, json!({"op": "accept", "proposal": pid})).await;
    assert_eq!(accepted["changed"], true, "{accepted}");
    assert_eq!(
        ask(&mut black, json!({"op": "play", "name": "e5"})).await["changed"],
        true
    );
    let rules = state_at(&mut black, 2).await["rules"].clone();
    server.kill();
    let log = std::fs::read_to_string(store.join("table.log")).unwrap();
    assert!(log.contains(r#""by":{"table":0}"#), "{log}");

    let server = start(&store, &[]).expect("the server starts again");
    let mut black = connect(&server, 0).await;
    let state = next(&mut black).await;
    assert_eq!(state["version"], 2);
    assert_eq!(state["rules"], rules, "the variant is in force again");
    let undone = ask(&mut black, json!({"op": "undo"})).await;
    assert_eq!(undone["changed"], true, "its own move: {undone}");
    let asked = ask(&mut black, json!({"op": "undo"})).await;
    assert!(
        asked["proposal"].is_u64(),
        "the agreed variant is taken back by agreement: {asked}"
    );
    server.kill();
}
