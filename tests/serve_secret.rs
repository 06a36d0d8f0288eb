//! `flexrules serve` on a game of secret orders (games/archipelago, four players): until
//! the programs are revealed, no connection receives another player's orders, in any
//! message (the board, the moves offered, the history, error replies, proposals, peeks at
//! earlier positions, the rules); after the reveal, every connection sees them all.

use serde_json::{Value, json};

#[path = "common/client.rs"]
mod client;
use client::Client;

use flexrules::serve::{EdgeOptions, ServeOptions, Server};

const PLAYERS: usize = 4;
const ORDERS: usize = 4;

async fn serve_archipelago() -> Server {
    Server::start(ServeOptions {
        repl: flexrules::repl::ReplOptions {
            tier: Default::default(),
            game: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("games/archipelago"),
            seed: 7,
            params: vec!["players=4".into()],
            limits: flexrules::runtime::vm::Limits::default(),
            rules: Vec::new(),
            color: false,
        },
        port: 0,
        // No seats given: one per player the game lists.
        seats: Vec::new(),
        agents: Vec::new(),
        edge: EdgeOptions::default(),
        store: None,
    })
    .await
    .expect("the server starts")
}

/// The private graphic of player `p`'s program: the `orders` text of its courier, drawn
/// with `"view" <p>` by the representation. Its opening tag in the SVG.
fn orders_graphic(p: usize) -> String {
    format!("<g data-owner=\"courier{p}\" data-id=\"orders\"")
}

/// Every place a private thing of a player other than `me` (None: a watcher) shows in
/// `message`, given each player's orders so far.
fn leaks(message: &str, me: Option<usize>, programs: &[Vec<String>]) -> Vec<String> {
    let mut found = Vec::new();
    for (p, program) in programs.iter().enumerate() {
        if Some(p) == me {
            continue;
        }
        if message.contains(&orders_graphic(p)) {
            found.push(format!("player {p}'s orders graphic"));
        }
        for order in program {
            let name = format!("{p}:{order}");
            // A name appears in JSON and in SVG text alike, quoted or not.
            if message.contains(&name) {
                found.push(format!("player {p}'s order {name}"));
            }
        }
    }
    // The text of a program is only ever its own player's.
    let mut rest = message;
    while let Some(at) = rest.find("your orders: ") {
        let shown = &rest[at + "your orders: ".len()..];
        let end = shown.find('<').unwrap_or(shown.len());
        let shown = &shown[..end];
        match me {
            Some(me) if programs[me].join(" ").starts_with(shown) => {}
            _ => found.push(format!("a program shown: `your orders: {shown}`")),
        }
        rest = &rest[at + 1..];
    }
    found
}

/// Every message `client` (seat `me`) received, checked for leaks.
fn check_seen(client: &Client, me: Option<usize>, programs: &[Vec<String>]) -> usize {
    for message in &client.seen {
        let found = leaks(message, me, programs);
        assert!(
            found.is_empty(),
            "{} received {found:?} before the reveal in: {message}",
            match me {
                Some(p) => format!("player {p}"),
                None => "the watcher".into(),
            }
        );
    }
    client.seen.len()
}

fn moves_of(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .expect("a list of moves")
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_connection_sees_another_players_program_before_the_reveal() {
    let server = serve_archipelago().await;
    assert_eq!(server.players(), ["0", "1", "2", "3"]);
    let mut seats = Vec::new();
    for p in 0..PLAYERS {
        seats.push(Client::open(&server, Some(p)).await);
    }
    let mut watcher = Client::open(&server, None).await;
    let mut programs: Vec<Vec<String>> = vec![Vec::new(); PLAYERS];

    // Round 1, step by step: each player's next order in seat order, all but the very
    // last order (which reveals).
    for step in 0..ORDERS {
        for p in 0..PLAYERS {
            if step == ORDERS - 1 && p == PLAYERS - 1 {
                break;
            }
            if step == 1 && p == 0 {
                // A seat tries another's order: refused, naming only what it sent.
                let reply = seats[0].ask(json!({"op": "play", "name": "3:rest"})).await;
                assert_eq!(
                    reply["message"], "`3:rest` is player 3's move, not yours; nothing was done",
                    "{reply}"
                );
                let reply = seats[1]
                    .ask(json!({"op": "play", "name": "3:no-such-order"}))
                    .await;
                assert_ne!(reply["changed"], true, "{reply}");
            }
            let state = seats[p].latest_state().await;
            let moves = moves_of(&state);
            // Each seat is offered only its own orders; the watcher none.
            assert!(!moves.is_empty(), "player {p} has no orders: {state}");
            for m in &moves {
                assert!(m.starts_with(&format!("{p}:")), "player {p} is offered {m}");
            }
            // A program of its own for each player (no `salvage`: nothing waits, and no
            // `rest`: another seat tries that order below).
            let usable: Vec<&String> = moves
                .iter()
                .filter(|m| !m.ends_with(":salvage") && !m.ends_with(":rest"))
                .collect();
            let name = usable[(p * 3 + step) % usable.len()].clone();
            let reply = seats[p].ask(json!({"op": "play", "name": name})).await;
            assert_eq!(reply["changed"], true, "{reply}");
            programs[p].push(name.split_once(':').unwrap().1.to_string());
        }
    }
    // Player 3 has one order left: the round is not revealed.
    let state = seats[0].latest_state().await;
    assert_eq!(state["toMove"], json!(["3"]), "{state}");

    let reply = seats[0].ask(json!({"op": "play", "name": "0:rest"})).await;
    assert!(
        reply["type"] == "error" || reply["changed"] == false,
        "player 0 played after its program was full: {reply}"
    );
    // A seat asks to undo another's order: a proposal to the others, which names no order.
    let reply = seats[0].ask(json!({"op": "undo"})).await;
    assert_eq!(reply["changed"], false, "{reply}");
    let pid = reply["proposal"].as_u64().expect("a proposal");
    // Every seat is shown the proposal; then it is withdrawn.
    for seat in seats.iter_mut().skip(1) {
        seat.state_where(|s| !s["proposals"].as_array().unwrap().is_empty())
            .await;
    }
    seats[0]
        .ask(json!({"op": "decline", "proposal": pid}))
        .await;
    // Peeks at every earlier position, from every connection.
    let changes = seats[0].latest_state().await["history"]
        .as_array()
        .unwrap()
        .len();
    for n in 0..=changes {
        for client in seats.iter_mut().chain(std::iter::once(&mut watcher)) {
            let peek = client.ask(json!({"op": "peek", "n": n})).await;
            assert_eq!(peek["type"], "peek", "{peek}");
        }
    }
    // Every connection's latest state, then every message it received, checked.
    for (p, seat) in seats.iter_mut().enumerate() {
        let state = seat.latest_state().await;
        assert!(!state["rules"].as_array().unwrap().is_empty());
        // Its own orders are in its view.
        assert!(
            state["svg"].as_str().unwrap().contains(&orders_graphic(p)),
            "player {p} does not see its own orders"
        );
        let history = state["history"].as_array().unwrap();
        for entry in history {
            let text = entry["text"].as_str().unwrap();
            if !text.contains(&format!(":play {p}:")) {
                assert!(
                    text.contains("(an order of player "),
                    "player {p} reads {text}"
                );
            }
        }
        let n = check_seen(seat, Some(p), &programs);
        assert!(n > 10, "player {p} received only {n} messages");
    }
    let state = watcher.latest_state().await;
    assert_eq!(moves_of(&state), Vec::<String>::new(), "{state}");
    check_seen(&watcher, None, &programs);

    // The last order reveals every program, to every connection.
    let state = seats[3].latest_state().await;
    let name = moves_of(&state)
        .into_iter()
        .find(|m| m.ends_with(":deliver") || m.ends_with(":load") || m.ends_with(":trade"))
        .expect("an order in place");
    seats[3].ask(json!({"op": "play", "name": name})).await;
    programs[3].push(name.split_once(':').unwrap().1.to_string());
    for client in seats.iter_mut().chain(std::iter::once(&mut watcher)) {
        let state = client.latest_state().await;
        assert_eq!(state["waiting"], json!(null), "{state}");
        let svg = state["svg"].as_str().unwrap();
        let history = state["history"].as_array().unwrap();
        for (p, program) in programs.iter().enumerate() {
            // The revealed programs are public.
            assert!(
                svg.contains(&format!("{p}: {}", program.join(" "))),
                "player {p}'s program is not shown: {svg}"
            );
            // The round is closed: the history names every order to everyone.
            assert_eq!(history.len(), PLAYERS * ORDERS, "{history:?}");
            for entry in history {
                let text = entry["text"].as_str().unwrap();
                assert!(
                    !text.contains("(an order of player"),
                    "an order still hidden after the reveal: {text}"
                );
            }
        }
    }
    server.stop();
}
