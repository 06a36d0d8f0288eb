//! `flexrules serve` at the protocol level: a server started in-process on a free loopback
//! port, talked to over real WebSockets. What each connection receives is checked as
//! bytes on the wire: a player's private graphics never reach another connection.

use std::time::Duration;

use flexrules::serve::Server;
use futures_util::StreamExt;
use serde_json::json;
use tokio::net::TcpStream;
use tokio_tungstenite::connect_async;

#[path = "common/client.rs"]
mod client;
#[path = "common/serving.rs"]
mod serving;
use client::{Client, PATIENCE, Socket, agreed};
use flexrules::serve::EdgeOptions;
use serving::{serve, serve_edge, serve_limits, serve_with};

/// The text shown by graphic `owner`/`id` in an SVG document.
fn graphic_text(svg: &str, owner: &str, id: &str) -> Option<String> {
    let start = svg.find(&format!("<g data-owner=\"{owner}\" data-id=\"{id}\""))?;
    let group = &svg[start..start + svg[start..].find("</g>")?];
    let text = group.find("<text")?;
    let open = text + group[text..].find('>')? + 1;
    let close = open + group[open..].find("</text>")?;
    Some(group[open..close].to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_commits_and_every_connection_sees_it() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut watcher = Client::open(&server, None).await;
    let reply = p0
        .ask(json!({"op": "click", "owner": "A", "graphic": "house"}))
        .await;
    assert_eq!(reply["type"], "reply");
    assert_eq!(reply["changed"], true, "{reply}");
    assert!(reply["text"].as_str().unwrap().starts_with("committed"));
    for client in [&mut p0, &mut watcher] {
        let state = client.state_at(1).await;
        let svg = state["svg"].as_str().unwrap();
        assert_eq!(graphic_text(svg, "A", "house").as_deref(), Some("0"));
        assert_eq!(graphic_text(svg, "B", "house").as_deref(), Some("5"));
        assert_eq!(state["toMove"], "1");
        assert_eq!(state["history"][0]["n"], 1);
        assert_eq!(state["moves"], json!(["a", "b", "c", "d", "e", "f"]));
    }
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vetoed_click_is_explained_and_undo_takes_a_move_back() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    // Player 0 clicks a house of player 1: the game's law refuses it.
    let reply = p0
        .ask(json!({"op": "click", "owner": "a", "graphic": "house"}))
        .await;
    assert_eq!(reply["changed"], false);
    assert_eq!(reply["text"], "vetoed by Allow Only Current Player");
    assert_eq!(server.version(), 0, "a veto changes nothing");

    let reply = p0.ask(json!({"op": "play", "name": "C"})).await;
    assert_eq!(reply["changed"], true);
    let state = p0.state_at(1).await;
    assert_eq!(
        graphic_text(state["svg"].as_str().unwrap(), "C", "house").as_deref(),
        Some("0")
    );
    let reply = p0.ask(json!({"op": "undo"})).await;
    assert_eq!(reply["text"], "undone; at change 0");
    let state = p0.state_at(2).await;
    assert_eq!(state["cursor"], 0);
    assert_eq!(state["history"][0]["undone"], true);
    assert_eq!(
        graphic_text(state["svg"].as_str().unwrap(), "C", "house").as_deref(),
        Some("4")
    );
    // Time travel: the position after change 1 is shown to the asker alone.
    let peek = p0.ask(json!({"op": "peek", "n": 1})).await;
    assert_eq!(peek["type"], "peek");
    assert_eq!(
        graphic_text(peek["svg"].as_str().unwrap(), "C", "house").as_deref(),
        Some("0")
    );
    assert_eq!(server.version(), 2, "a peek changes nothing");
    let reply = p0.ask(json!({"op": "redo"})).await;
    assert_eq!(reply["text"], "redone; at change 1");
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_turn_and_unauthorised_requests_are_refused_and_change_nothing() {
    let server = serve("games/awele").await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let before = p1.latest_state().await;
    for request in [
        json!({"op": "click", "owner": "a", "graphic": "house"}),
        json!({"op": "play", "name": "a"}),
    ] {
        let reply = p1.ask(request).await;
        assert_eq!(reply["type"], "error");
        assert_eq!(
            reply["message"],
            "not your turn: player 0 is to move; nothing was done"
        );
    }
    let mut watcher = Client::open(&server, None).await;
    let reply = watcher.ask(json!({"op": "play", "name": "A"})).await;
    assert_eq!(reply["type"], "error");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .starts_with("you are watching")
    );
    let reply = watcher.ask(json!({"op": "undo"})).await;
    assert_eq!(reply["type"], "error");

    // A connection with a token that is no seat's is refused before it opens.
    let url = format!("ws://{}/ws?seat=0123456789abcdef", server.addr);
    match connect_async(url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status().as_u16(), 403)
        }
        other => panic!("a bad token must be refused, got {:?}", other.map(|_| ())),
    }
    // Malformed requests.
    for (text, expected) in [
        ("not json".to_string(), "the request is not JSON"),
        (
            r#"{"op":"fly"}"#.to_string(),
            "bad request: unknown variant `fly`",
        ),
        (
            r#"{"op":"click","owner":"A"}"#.to_string(),
            "bad request: missing field `graphic`",
        ),
        (
            r#"{"op":"click","owner":"A\n:undo","graphic":"house"}"#.to_string(),
            "a entity name is one word",
        ),
        (
            r#"{"op":"click","owner":"A","graphic":"nothing"}"#.to_string(),
            "A has no graphic \"nothing\" in your view",
        ),
    ] {
        p1.send_text(text).await;
        let reply = loop {
            let m = p1.next().await;
            if m["type"] != "state" {
                break m;
            }
        };
        assert_eq!(reply["type"], "error");
        assert!(
            reply["message"].as_str().unwrap().starts_with(expected),
            "{reply} should start with {expected}"
        );
    }
    // An oversized request: refused, the connection stays usable.
    let huge = json!({"op": "play", "name": "x".repeat(20_000)}).to_string();
    p1.send_text(huge).await;
    let reply = p1.next().await;
    assert_eq!(reply["type"], "error");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("the limit is 16384")
    );
    let after = p1.latest_state().await;
    assert_eq!(before, after, "nothing changed");
    assert_eq!(server.version(), 0);
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn house_rules_are_added_disabled_and_removed_mid_game() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    // Two people at the table: each rule change is proposed by one and accepted by the
    // other (tests/serve_agreement.rs has the proposals themselves).
    let reply = agreed(
        &mut p0,
        &mut p1,
        json!({"op": "rule", "kind": "law",
            "text": "\"Not A\" on startSeeding to A in default is (return)"}),
    )
    .await;
    assert_eq!(reply["changed"], true, "{reply}");
    let state = p0.state_at(1).await;
    let rules = state["rules"].as_array().unwrap();
    assert!(
        rules
            .iter()
            .any(|r| r["name"] == "Not A" && r["enabled"] == true)
    );
    let reply = p0.ask(json!({"op": "play", "name": "A"})).await;
    assert_eq!(
        reply["text"],
        "error: ply 1: `A` is not legal: vetoed by law \"Not A\" (inline); legal: B, C, D, E, F"
    );
    let reply = p0
        .ask(json!({"op": "click", "owner": "A", "graphic": "house"}))
        .await;
    assert_eq!(reply["text"], "vetoed by Not A");
    agreed(&mut p0, &mut p1, json!({"op": "disable", "name": "Not A"})).await;
    let reply = p0.ask(json!({"op": "play", "name": "A"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = agreed(&mut p1, &mut p0, json!({"op": "remove", "name": "Not A"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    // A side-effect that ends the game: the outcome is in the state.
    let reply = agreed(
        &mut p0,
        &mut p1,
        json!({"op": "rule", "kind": "sideeffect",
            "text": "on startSeeding to hole in default is (finish with \"winner\" 1)"}),
    )
    .await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = p1.ask(json!({"op": "play", "name": "a"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .contains("the game is finished: winner 1")
    );
    let state = p1.latest_state().await;
    assert_eq!(state["outcome"], "winner 1");
    // Rules from the page are written inline: no file of the server's is read.
    let reply = p0
        .ask(json!({"op": "rule", "kind": "law",
            "text": "on startSeeding to hole in default is \"/etc/passwd\""}))
        .await;
    assert_eq!(reply["changed"], false);
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .contains("reading a file (\"/etc/passwd\") is not allowed"),
        "{reply}"
    );
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_graphics_never_reach_another_seat_and_signals_are_answered_by_clicks() {
    let server = serve("tests/inputs/serve/cards").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let mut watcher = Client::open(&server, None).await;

    // Player 0 reveals: the move waits for "confirm", answered by a click on "yes".
    let reply = p0
        .ask(json!({"op": "click", "owner": "hand0", "graphic": "back"}))
        .await;
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .starts_with("waiting for signal \"confirm\""),
        "{reply}"
    );
    let state = p0.state_at(1).await;
    assert_eq!(state["waiting"]["signal"], "confirm");
    assert_eq!(state["waiting"]["player"], "0");
    // While the move waits, no move is offered: only its answer can be given.
    assert_eq!(state["moves"], json!([]), "{state}");
    // Player 1 cannot see player 0's "yes", so cannot click it, nor answer for them.
    let reply = p1
        .ask(json!({"op": "click", "owner": "hand0", "graphic": "yes"}))
        .await;
    assert_eq!(
        reply["message"],
        "hand0 has no graphic \"yes\" in your view"
    );
    let reply = p1
        .ask(json!({"op": "signal", "signal": "confirm", "tag": "yes"}))
        .await;
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .starts_with("player 0's move is waiting"),
        "{reply}"
    );
    let reply = p0
        .ask(json!({"op": "click", "owner": "hand0", "graphic": "yes"}))
        .await;
    assert_eq!(reply["changed"], true, "{reply}");
    assert!(
        reply["text"].as_str().unwrap().starts_with("committed"),
        "{reply}"
    );
    let state = p0.state_at(2).await;
    assert_eq!(
        graphic_text(state["svg"].as_str().unwrap(), "hand0", "back").as_deref(),
        Some("revealed")
    );
    p0.ask(json!({"op": "play", "name": "pass"})).await;
    // Player 1's turn: player 0 is refused.
    let reply = p0.ask(json!({"op": "play", "name": "pass"})).await;
    assert_eq!(reply["type"], "error");
    p1.state_at(3).await;
    p1.ask(json!({"op": "peek", "n": 0})).await;
    p1.ask(json!({"op": "peek", "n": 2})).await;
    watcher.state_at(3).await;
    watcher.ask(json!({"op": "peek", "n": 1})).await;
    p0.latest_state().await;

    let all = |c: &Client| c.seen.join("\n");
    assert!(all(&p0).contains("secret card 7"));
    assert!(!all(&p0).contains("secret card 9"));
    assert!(all(&p1).contains("secret card 9"));
    assert!(
        !all(&p1).contains("secret card 7"),
        "player 1 received player 0's card"
    );
    assert!(
        !all(&watcher).contains("secret card"),
        "a watcher received a private card"
    );
    server.stop();
}

/// Goofspiel's bids are simultaneous and secret: `to-move` gives both players, each seat
/// is offered only its own bids and may play only those, a seat that has bid waits for
/// the other, and the card bid shows only in its own player's view until both have bid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simultaneous_secret_bids_are_played_by_their_own_seats() {
    let server = serve("games/goofspiel").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let mut watcher = Client::open(&server, None).await;

    let state = p0.latest_state().await;
    assert_eq!(state["toMove"], json!(["0", "1"]));
    let mine: Vec<&str> = state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(mine.len(), 13, "{mine:?}");
    assert!(mine.iter().all(|m| m.starts_with("0:")), "{mine:?}");
    // A watcher is shown none of the players' own moves (their cards are theirs).
    let all = watcher.latest_state().await;
    assert_eq!(all["moves"].as_array().unwrap().len(), 0);

    // Player 1 cannot bid for player 0.
    let reply = p1.ask(json!({"op": "play", "name": "0:13"})).await;
    assert_eq!(reply["type"], "error");
    assert_eq!(
        reply["message"],
        "`0:13` is player 0's move, not yours; nothing was done"
    );
    // Player 0 bids 13; then it is player 1's alone to bid.
    let reply = p0.ask(json!({"op": "play", "name": "0:13"})).await;
    assert!(
        reply["text"].as_str().unwrap().starts_with("committed"),
        "{reply}"
    );
    let state = p0.state_at(1).await;
    assert_eq!(state["toMove"], json!(["1"]));
    assert_eq!(state["moves"], json!([]));
    assert!(state["svg"].as_str().unwrap().contains("your bid: 13"));
    let reply = p0.ask(json!({"op": "play", "name": "0:12"})).await;
    assert_eq!(
        reply["message"],
        "not your turn: player 1 is to move; nothing was done"
    );
    // Its bid is a secret order: the history names it for player 0 only.
    assert!(
        state["history"][0]["text"]
            .as_str()
            .unwrap()
            .contains("0:13"),
        "{state}"
    );
    for other in [p1.state_at(1).await, watcher.state_at(1).await] {
        let text = other["history"][0]["text"].as_str().unwrap();
        assert!(!text.contains("0:13"), "{text}");
        assert!(text.contains("an order of player 0"), "{text}");
    }
    // Player 1 bids 5: both are revealed, player 0 takes the 13.
    let reply = p1.ask(json!({"op": "play", "name": "1:5"})).await;
    assert!(
        reply["text"].as_str().unwrap().starts_with("committed"),
        "{reply}"
    );
    let state = watcher.state_at(2).await;
    let svg = state["svg"].as_str().unwrap();
    assert!(svg.contains("points: 13 0"), "{svg}");
    assert!(svg.contains("bids revealed: 13 5"), "{svg}");
    p0.latest_state().await;
    p1.latest_state().await;

    let seen = |c: &Client| c.seen.join("\n");
    assert!(
        !seen(&p1).contains("your bid: 13"),
        "player 1 saw player 0's bid"
    );
    assert!(!seen(&watcher).contains("your bid"), "a watcher saw a bid");
    server.stop();
}

/// A seat the server plays (`--agent O=mcts:300`) answers each move at once, in the same
/// change of version the seat's move made: it blocks X's threat, and the game goes on
/// from the page. An agent for a seat that does not exist, or for a game without
/// `to-move`, is refused at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_plays_a_seat_given_an_agent() {
    let server = serve_with("tests/inputs/tic-tac-toe", &["X", "O"], &["O=mcts:300"])
        .await
        .expect("the server starts");
    assert_eq!(server.seat_agent(1).as_deref(), Some("mcts:300"));
    assert_eq!(server.seat_agent(0), None);
    let mut x = Client::open(&server, Some(0)).await;
    let reply = x.ask(json!({"op": "play", "name": "a1"})).await;
    assert!(
        reply["text"].as_str().unwrap().starts_with("committed"),
        "{reply}"
    );
    // X's move, then O's answer: two changes.
    let state = x.latest_state().await;
    assert_eq!(state["history"].as_array().unwrap().len(), 2, "{state}");
    assert_eq!(state["toMove"], "X");
    // X threatens a1-a2-a3: O blocks at a3.
    x.ask(json!({"op": "play", "name": "a2"})).await;
    let state = x.latest_state().await;
    let history = state["history"].as_array().unwrap();
    assert_eq!(history.len(), 4, "{state}");
    assert!(
        history[3]["text"].as_str().unwrap().contains("a3"),
        "O did not block: {state}"
    );
    // Undo takes back O's answer and X's move with it: X is to move again.
    x.ask(json!({"op": "undo"})).await;
    let state = x.latest_state().await;
    assert_eq!(state["cursor"], 2, "{state}");
    assert_eq!(state["toMove"], "X");
    server.stop();

    // Goofspiel: the server's player bids at once (searching from what it has seen:
    // `mcts` would see the other's bid, and is refused there), in secret; the human's
    // bid reveals both.
    let server = serve_with("games/goofspiel", &["0", "1"], &["1=ismcts:50"])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let state = p0.latest_state().await;
    assert_eq!(state["history"].as_array().unwrap().len(), 1, "{state}");
    assert_eq!(state["toMove"], json!(["0"]));
    let text = state["history"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("an order of player 1"),
        "the server's bid is named: {text}"
    );
    assert!(
        !p0.seen.join("\n").contains("your bid"),
        "player 0 saw the server's bid"
    );
    p0.ask(json!({"op": "play", "name": "0:13"})).await;
    let state = p0.latest_state().await;
    assert_eq!(state["history"].as_array().unwrap().len(), 3, "{state}");
    assert!(
        state["svg"].as_str().unwrap().contains("bids revealed: 13"),
        "{state}"
    );
    server.stop();

    let refused = serve_with("tests/inputs/tic-tac-toe", &["X", "O"], &["P=mcts"]).await;
    let e = refused.err().expect("no seat P");
    assert!(e.text.contains("no seat is player `P`"), "{}", e.text);
    // A seat the server plays that cannot make the first move: nobody could play.
    let refused = serve_with("tests/inputs/serve/failing-move.fr", &["p"], &["p=random"]).await;
    let e = refused.err().expect("the seat cannot move");
    assert!(
        e.text.contains("player p (random) cannot choose a move"),
        "{}",
        e.text
    );
    assert!(
        e.text.contains("trying `mark`: a failing move"),
        "{}",
        e.text
    );
    let refused = serve_with("tests/inputs/paper", &["0", "1"], &["1=mcts"]).await;
    let e = refused.err().expect("no to-move");
    assert!(e.text.contains("to-move"), "{}", e.text);
}

// ---- The edge: origins, hosts, connection caps, timeouts --------------------------------

/// Open a WebSocket to `server` with these extra headers; the refusal's status and body
/// when it is refused.
async fn open_with(server: &Server, headers: &[(&str, &str)]) -> Result<Socket, (u16, String)> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://{}/ws", server.addr)
        .into_client_request()
        .expect("a request");
    for (name, value) in headers {
        request.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes())
                .expect("a header name"),
            value.parse().expect("a header value"),
        );
    }
    match tokio::time::timeout(PATIENCE, connect_async(request))
        .await
        .expect("an answer comes")
    {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => Err((
            response.status().as_u16(),
            String::from_utf8_lossy(response.body().as_deref().unwrap_or_default()).to_string(),
        )),
        Err(e) => panic!("the connection neither opens nor is refused: {e}"),
    }
}

/// Send `request` as raw bytes and read everything until the server closes.
async fn raw_exchange(server: &Server, request: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = TcpStream::connect(server.addr).await.expect("connects");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("the request is sent");
    let mut received = Vec::new();
    let read = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut received)).await;
    assert!(
        read.is_ok(),
        "the server did not close the connection; it sent {:?}",
        String::from_utf8_lossy(&received)
    );
    String::from_utf8_lossy(&received).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websockets_from_other_origins_and_hosts_are_refused() {
    let server = serve("games/awele").await;
    let port = server.addr.port();
    // A page of another site: refused, and told why.
    let (status, body) = open_with(&server, &[("origin", "https://evil.example")])
        .await
        .expect_err("a foreign origin is refused");
    assert_eq!(status, 403);
    assert!(
        body.starts_with("refused: a page from `https://evil.example` may not connect"),
        "{body}"
    );
    for origin in ["null", &format!("http://127.0.0.1:{}", port + 1)] {
        let refused = open_with(&server, &[("origin", origin)]).await;
        assert_eq!(refused.err().map(|r| r.0), Some(403), "{origin}");
    }
    // The server's own page, by any of its loopback names.
    for origin in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ] {
        let mut socket = open_with(&server, &[("origin", &origin)])
            .await
            .unwrap_or_else(|e| panic!("{origin} refused: {e:?}"));
        let first = socket.next().await.expect("a message").expect("reads");
        assert!(first.to_text().unwrap().contains("\"type\":\"state\""));
    }
    // A name of another site made to point at this machine (DNS rebinding): its Host is
    // refused, on the socket and on the page.
    let (status, body) = open_with(&server, &[("host", &format!("evil.example:{port}"))])
        .await
        .expect_err("a foreign host is refused");
    assert_eq!(status, 403);
    assert!(
        body.starts_with(&format!(
            "refused: Host `evil.example:{port}` is not this server's address"
        )),
        "{body}"
    );
    let page = raw_exchange(
        &server,
        &format!("GET / HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n"),
    )
    .await;
    assert!(page.starts_with("HTTP/1.1 403"), "{page}");
    assert!(page.contains("is not this server's address"), "{page}");
    let page = raw_exchange(
        &server,
        &format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_origin_is_accepted_behind_a_proxy() {
    let edge = EdgeOptions {
        public_origins: vec!["https://Games.Example.org/".into()],
        ..EdgeOptions::default()
    };
    let server = serve_edge("games/awele", &["0", "1"], &[], edge)
        .await
        .expect("the server starts");
    let mut socket = open_with(
        &server,
        &[
            ("origin", "https://games.example.org"),
            ("host", "games.example.org"),
        ],
    )
    .await
    .expect("the public origin is accepted");
    let first = socket.next().await.expect("a message").expect("reads");
    assert!(first.to_text().unwrap().contains("\"type\":\"state\""));
    let refused = open_with(&server, &[("origin", "https://other.example.org")]).await;
    assert_eq!(refused.err().map(|r| r.0), Some(403));
    server.stop();

    let edge = EdgeOptions {
        public_origins: vec!["games.example.org/play".into()],
        ..EdgeOptions::default()
    };
    let e = serve_edge("games/awele", &["0", "1"], &[], edge)
        .await
        .err()
        .expect("not an origin");
    assert!(e.usage);
    assert!(
        e.text
            .starts_with("error: --public-origin games.example.org/play: give the origin"),
        "{}",
        e.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped_per_address_and_in_total() {
    let edge = EdgeOptions {
        max_per_client: 2,
        ..EdgeOptions::default()
    };
    let server = serve_edge("games/awele", &["0", "1"], &[], edge)
        .await
        .expect("the server starts");
    let first = Client::open(&server, None).await;
    let _second = Client::open(&server, Some(0)).await;
    let (status, body) = open_with(&server, &[])
        .await
        .expect_err("a third is refused");
    assert_eq!(status, 429);
    assert_eq!(
        body,
        "refused: 2 connections from your address are open, the limit per address; close some pages first"
    );
    // A connection closed gives its place back.
    drop(first);
    let mut reopened = None;
    for _ in 0..200 {
        if let Ok(s) = open_with(&server, &[]).await {
            reopened = Some(s);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        reopened.is_some(),
        "the place of a closed connection is not given back"
    );
    server.stop();

    let edge = EdgeOptions {
        max_connections: 1,
        ..EdgeOptions::default()
    };
    let server = serve_edge("games/awele", &["0", "1"], &[], edge)
        .await
        .expect("the server starts");
    let _only = Client::open(&server, None).await;
    let (status, body) = open_with(&server, &[]).await.expect_err("refused");
    assert_eq!(status, 503);
    assert_eq!(
        body,
        "refused: the server holds 1 connections, its limit; try again later"
    );
    server.stop();
}

/// Slow clients: headers that never end, a socket that never answers a ping. The times
/// are short so that the test is quick; nothing is measured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_and_idle_sockets_are_closed() {
    let edge = EdgeOptions {
        header_timeout: Duration::from_millis(200),
        idle_timeout: Duration::from_millis(600),
        ..EdgeOptions::default()
    };
    let server = serve_edge("games/awele", &["0", "1"], &[], edge)
        .await
        .expect("the server starts");
    let port = server.addr.port();
    // Headers that never end: the connection is closed.
    raw_exchange(
        &server,
        &format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"),
    )
    .await;
    // A WebSocket that reads nothing and so answers no ping: closed, with the reason.
    let received = raw_exchange(
        &server,
        &format!(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        ),
    )
    .await;
    assert!(received.starts_with("HTTP/1.1 101"), "{received}");
    assert!(
        received.contains("idle: nothing received for 600ms, not even a pong"),
        "{received}"
    );
    server.stop();
}

/// In a game of simultaneous moves a seat is shown only its own moves; the reply to a
/// move that is not legal lists only those too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_move_is_told_with_the_seats_own_moves_only() {
    let server = serve("games/goofspiel").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let reply = p0.ask(json!({"op": "play", "name": "zzz"})).await;
    assert_eq!(reply["ok"], false, "{reply}");
    assert_eq!(reply["changed"], false, "{reply}");
    let text = reply["text"].as_str().unwrap();
    assert!(
        text.starts_with("error: ply 1: `zzz` is not an action here; legal: 0:1, 0:2"),
        "{text}"
    );
    let reply = p1.ask(json!({"op": "play", "name": "0:99"})).await;
    assert_eq!(reply["ok"], false, "{reply}");
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .ends_with("is not an action here; legal: 1:1, 1:2, 1:3, 1:4, 1:5, 1:6, 1:7, 1:8, 1:9, 1:10, 1:11, 1:12, 1:13"),
        "{reply}"
    );
    p0.latest_state().await;
    p1.latest_state().await;
    for (client, other) in [(&p0, "1"), (&p1, "0")] {
        let seen = client.seen.join("\n");
        for card in 1..=13 {
            let theirs = format!("{other}:{card}");
            for shown in [
                format!("\"{theirs}\""),
                format!(" {theirs},"),
                format!(" {theirs}\""),
            ] {
                assert!(
                    !seen.contains(&shown),
                    "player {} received player {other}'s move {theirs}",
                    if other == "1" { "0" } else { "1" }
                );
            }
        }
    }
    assert_eq!(server.version(), 0);
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_that_does_not_check_is_not_ok() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let reply = p0
        .ask(json!({"op": "rule", "kind": "law",
            "text": "\"Bad\" on startSeeding to A in default is (no-such-function 1)"}))
        .await;
    assert_eq!(reply["type"], "reply");
    assert_eq!(reply["changed"], false, "{reply}");
    assert_eq!(reply["ok"], false, "{reply}");
    assert!(
        reply["text"].as_str().unwrap().contains("no-such-function"),
        "{reply}"
    );
    let reply = p0
        .ask(json!({"op": "rule", "kind": "sideeffect",
            "text": "on startSeeding to A in default is (+ 1"}))
        .await;
    assert_eq!(reply["ok"], false, "{reply}");
    assert_eq!(server.version(), 0);
    server.stop();
}

/// A transaction that would run for hours (a house rule looping) is interrupted at the
/// server's deadline, the game as it was; while it runs, another seat is answered (told
/// the table is busy) instead of waiting for it, and the server goes on serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runaway_transaction_meets_the_deadline_and_others_are_answered_meanwhile() {
    let edge = EdgeOptions {
        deadline: Duration::from_secs(2),
        busy_wait: Duration::from_millis(100),
        ..EdgeOptions::default()
    };
    // A step budget the loop would take hours to spend: the deadline is what stops it.
    let limits = flexrules::runtime::vm::Limits {
        max_steps: u64::MAX / 2,
        ..Default::default()
    };
    let server = serve_limits("games/awele", &["0", "1"], &[], edge, limits)
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let reply = agreed(
        &mut p0,
        &mut p1,
        json!({"op": "rule", "kind": "law",
            "text": "\"Forever\" on startSeeding to A in default is (while true 0)"}),
    )
    .await;
    assert_eq!(reply["changed"], true, "{reply}");
    // The state after the rule is drawn (listing the legal moves runs the law on `A`
    // until the deadline): read it before the play, so the play is what runs next.
    p0.state_at(1).await;
    p1.state_at(1).await;
    p0.next_id += 1;
    let slow = p0.next_id;
    p0.send_text(json!({"op": "play", "name": "A", "id": slow}).to_string())
        .await;
    // While the play runs, the other seat is answered: told the table is busy. Each ask
    // is answered (within the client's patience); one of them meets the running play.
    let mut busy = None;
    for _ in 0..200 {
        let answer = p1.ask(json!({"op": "peek", "n": 0})).await;
        if answer["type"] == "error" {
            busy = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let busy = busy.expect("the other seat was told the table is busy while the play ran");
    assert!(busy["message"].as_str().unwrap().contains("busy"), "{busy}");
    // The runaway play ends at the deadline, refused, and nothing changed.
    let mut told = Vec::new();
    while !told.join("\n").contains("deadline") {
        let m = p0.next().await;
        if m["id"] == json!(slow) {
            told.push(m.to_string());
        }
    }
    let all = told.join("\n");
    assert!(all.contains("deadline"), "{all}");
    assert_eq!(server.version(), 1, "only the rule was added");
    let reply = agreed(&mut p0, &mut p1, json!({"op": "remove", "name": "Forever"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = p0.ask(json!({"op": "play", "name": "A"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    server.stop();
}

/// A reply longer than a message carries (a rule printing 10 MB) is cut, saying so; the
/// move is made and the server goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_past_the_message_cap_is_cut_and_says_so() {
    let server = serve_with("games/awele", &["0"], &[])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let reply = p0
        .ask(json!({"op": "rule", "kind": "sideeffect",
            "text": "\"Loud\" on startSeeding to A in default is (do (var s \"xxxxxxxx\") (var i 0) (while (< i 7) (do (var s (str s s)) (var i (+ i 1)) end)) (var j 0) (while (< j 10000) (do (print s) (var j (+ j 1)) end)) end)"}))
        .await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = p0.ask(json!({"op": "play", "name": "A"})).await;
    assert_eq!(reply["changed"], true, "{}", &reply.to_string()[..300]);
    let text = reply["text"].as_str().unwrap();
    assert!(
        text.len() <= flexrules::serve::MAX_MESSAGE + 200,
        "{}",
        text.len()
    );
    assert!(
        text.ends_with("a message carries: the rest is not sent)"),
        "{}",
        &text[text.len() - 200..]
    );
    let reply = p0.ask(json!({"op": "peek", "n": 0})).await;
    assert_eq!(reply["type"], "peek");
    server.stop();
}

/// Bridge over the server: each seat's cards reach only that seat (its hand's graphics,
/// its moves), dummy's reach everyone once the opening lead is made, a watcher never
/// receives a hand; and declarer plays dummy's cards from declarer's own page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_seat_receives_another_seats_hand() {
    let seats = ["N", "E", "S", "W"];
    let server = serve_with("games/bridge", &seats, &[])
        .await
        .expect("the server starts");
    let mut clients = Vec::new();
    for i in 0..4 {
        clients.push(Client::open(&server, Some(i)).await);
    }
    let mut watcher = Client::open(&server, None).await;
    // The auction: North opens 1C, the others pass: North declares, South is dummy,
    // East leads.
    for (i, call) in [(0, "1C"), (1, "Pass"), (2, "Pass"), (3, "Pass")] {
        let reply = clients[i].ask(json!({"op": "play", "name": call})).await;
        assert!(
            reply["text"].as_str().unwrap().starts_with("committed"),
            "{reply}"
        );
    }
    let hand_of = |seat: &str| format!("data-id=\"hand-{seat}-");
    for (i, c) in clients.iter_mut().enumerate() {
        let state = c.latest_state().await;
        let svg = state["svg"].as_str().unwrap().to_string();
        for (k, other) in seats.iter().enumerate() {
            assert_eq!(
                svg.contains(&hand_of(other)),
                k == i,
                "seat {} and {other}'s hand",
                seats[i]
            );
        }
        // Only East, on lead, is offered cards; nobody else is told East's.
        let moves = state["moves"].as_array().unwrap().len();
        assert_eq!(moves > 0, i == 1, "seat {}: {state}", seats[i]);
    }
    let w = watcher.latest_state().await;
    assert!(
        !w["svg"].as_str().unwrap().contains("data-id=\"hand-"),
        "a watcher sees a hand"
    );
    assert_eq!(w["moves"], json!([]));
    // East leads its first card; then dummy (South) is face up for everyone, and it is
    // declarer, North, who is offered dummy's cards.
    let lead = clients[1].latest_state().await["moves"][0]
        .as_str()
        .unwrap()
        .to_string();
    let reply = clients[1].ask(json!({"op": "play", "name": lead})).await;
    assert!(
        reply["text"].as_str().unwrap().starts_with("committed"),
        "{reply}"
    );
    let north = clients[0].state_at(5).await;
    assert!(north["svg"].as_str().unwrap().contains(&hand_of("S")));
    let dummy_card = north["moves"][0]
        .as_str()
        .expect("declarer is offered dummy's cards")
        .to_string();
    let south = clients[2].state_at(5).await;
    assert_eq!(south["moves"], json!([]), "dummy plays nothing itself");
    let reply = clients[2]
        .ask(json!({"op": "play", "name": dummy_card}))
        .await;
    assert_eq!(reply["type"], "error", "{reply}");
    let reply = clients[0]
        .ask(json!({"op": "play", "name": dummy_card}))
        .await;
    assert!(
        reply["text"].as_str().unwrap().starts_with("committed"),
        "{reply}"
    );
    let w = watcher.state_at(6).await;
    let svg = w["svg"].as_str().unwrap();
    assert!(svg.contains(&hand_of("S")), "dummy is face up for watchers");
    for other in ["N", "E", "W"] {
        assert!(
            !svg.contains(&hand_of(other)),
            "a watcher sees {other}'s hand"
        );
    }
    // Every position of the history, looked at again by each seat and the watcher (what
    // a seat is shown of the game's journal): its own hand only, dummy's once led to.
    let first = clients[0].ask(json!({"op": "peek", "n": 0})).await;
    assert!(
        first["svg"].as_str().unwrap().contains(&hand_of("N")),
        "North looks back at its own hand: {first}"
    );
    for c in clients.iter_mut().chain([&mut watcher]) {
        for n in 0..=6 {
            let peek = c.ask(json!({"op": "peek", "n": n})).await;
            assert_eq!(peek["type"], "peek", "{peek}");
        }
        c.latest_state().await;
    }
    let watched = watcher.seen.join("\n");
    for other in ["N", "E", "W"] {
        assert!(
            !watched.contains(&hand_of(other)),
            "the watcher received {other}'s hand"
        );
    }
    // Over the whole exchange, nobody received another's hand graphic (dummy's apart).
    for (i, c) in clients.iter().enumerate() {
        let seen = c.seen.join("\n");
        for other in ["N", "E", "W"] {
            if other != seats[i] {
                assert!(
                    !seen.contains(&hand_of(other)),
                    "seat {} received {other}'s hand",
                    seats[i]
                );
            }
        }
    }
    server.stop();
}

/// A server for `game` (a path from the crate root, or absolute) with these parameters,
/// seats (none: the game's `players`) and agents.
async fn serve_params(
    game: &str,
    params: &[&str],
    seats: &[&str],
    agents: &[&str],
) -> Result<Server, flexrules::repl::OpenError> {
    Server::start(flexrules::serve::ServeOptions {
        repl: flexrules::repl::ReplOptions {
            tier: Default::default(),
            game: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(game),
            seed: 0,
            params: params.iter().map(|s| s.to_string()).collect(),
            limits: flexrules::runtime::vm::Limits::default(),
            rules: Vec::new(),
            color: false,
        },
        port: 0,
        seats: seats.iter().map(|s| s.to_string()).collect(),
        agents: agents.iter().map(|s| s.to_string()).collect(),
        edge: EdgeOptions::default(),
        store: None,
    })
    .await
}

/// A one-file game in a directory of its own under the system's temporary directory.
fn temporary_game(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("flexrules-serve-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the directory is made");
    std::fs::write(dir.join("game.fr"), text).expect("the game is written");
    dir.display().to_string()
}

/// Without seats, the server offers one seat per player the game's `players` lists at the
/// start (with the same parameters), `0,1` when it defines none; seats given still win;
/// a `players` that fails or gives no list is refused at the start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_default_to_the_games_players() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("games/archipelago", &["players=4"], &["0", "1", "2", "3"]),
        ("games/archipelago", &[], &["0", "1", "2"]),
        ("games/goofspiel", &[], &["0", "1"]),
        ("games/bridge", &[], &["N", "E", "S", "W"]),
        ("games/chess", &[], &["white", "black"]),
        ("games/go", &[], &["black", "white"]),
        ("tests/inputs/tic-tac-toe", &[], &["0", "1"]),
    ];
    for (game, params, players) in cases {
        let server = serve_params(game, params, &[], &[])
            .await
            .unwrap_or_else(|e| panic!("{game} starts: {}", e.text));
        assert_eq!(server.players(), *players, "{game} {params:?}");
        server.stop();
    }
    // Seats given win.
    let server = serve_params("games/archipelago", &["players=4"], &["0", "2"], &[])
        .await
        .expect("the server starts");
    assert_eq!(server.players(), ["0", "2"]);
    server.stop();
    // Each player's to-move names a seat: chess's white moves first, from its seat.
    let server = serve_params("games/chess", &[], &[], &[]).await.unwrap();
    let mut white = Client::open(&server, Some(0)).await;
    let state = white.latest_state().await;
    assert_eq!(state["you"]["player"], "white");
    assert_eq!(state["toMove"], "white");
    server.stop();

    let game = "#entity e\n  #state s\n#instance e of e\n#define to-move () 0\n";
    let refusals = [
        (
            "players-fail",
            "#define players () (nth (list) 3)\n",
            "error: the game's (players) failed at the start, so the seats cannot be drawn from it: ",
        ),
        (
            "players-number",
            "#define players () 3\n",
            "error: the game's (players) gave 3, not a list of players, so the seats cannot be drawn from it: give the seats with --seats",
        ),
        (
            "players-empty",
            "#define players () (list)\n",
            "error: the game's (players) gave an empty list: a game needs at least one seat; give the seats with --seats",
        ),
        (
            "players-list",
            "#define players () (list (list 1 2))\n",
            "error: the game's (players) gave (1 2), which is not a player a seat can name (a number, or a word); give the seats with --seats",
        ),
        (
            "players-param",
            "#define players (n) (range n)\n",
            "error: ",
        ),
    ];
    for (name, players, wanted) in refusals {
        let path = temporary_game(name, &format!("{game}{players}"));
        let Err(e) = serve_params(&path, &[], &[], &[]).await else {
            panic!("{name}: the server started");
        };
        assert!(e.text.starts_with(wanted), "{name}: {}", e.text);
        assert!(!e.usage, "{name}: {}", e.text);
        // Seats given: `players` is not asked.
        let server = serve_params(&path, &[], &["0"], &[])
            .await
            .expect("it starts");
        server.stop();
        let _ = std::fs::remove_dir_all(std::path::Path::new(&path));
    }
}

/// A seat the server plays answers a wait that names its player (`from`) at once, with a
/// tag drawn among the wait's answers; a wait from a player with no seat is answered by
/// any seat (as before), and a seat the server plays cannot answer a wait without
/// `among`: the players are told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_the_server_plays_answers_a_wait_that_names_it() {
    const SALVAGE: &str = "tests/inputs/wait/salvage";
    let server = serve_params(SALVAGE, &[], &[], &["1=random"])
        .await
        .expect("the server starts");
    assert_eq!(server.players(), ["0", "1", "2"]);
    let mut p0 = Client::open(&server, Some(0)).await;
    let reply = p0.ask(json!({"op": "play", "name": "wreck"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    let state = p0.latest_state().await;
    let history = state["history"].as_array().unwrap();
    // The answer is part of the change the move made: then player 1 moved.
    assert!(history.len() >= 2, "{state}");
    let answer = history[0]["text"].as_str().unwrap();
    assert!(
        ["\"rope\"", "\"sail\"", "\"oar\""]
            .iter()
            .any(|t| answer.contains(&format!(":signal salvage {t}"))),
        "the server's seat did not answer among the answers: {answer}"
    );
    assert_ne!(state["waiting"]["player"], "1", "{state}");
    // Player 1's own move (the server's) went on after the answer: it is its turn no more.
    assert_ne!(state["toMove"], "1", "{state}");
    server.stop();

    // An ismcts seat answers too.
    let server = serve_params(SALVAGE, &[], &[], &["1=ismcts:20", "2=mcts:20"])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    p0.ask(json!({"op": "play", "name": "wreck"})).await;
    let state = p0.latest_state().await;
    // Players 1 and 2 answered and moved: player 0 is to move, or to answer.
    assert!(
        state["waiting"].is_null() || state["waiting"]["player"] == "0",
        "{state}"
    );
    assert_eq!(state["toMove"], "0", "{state}");
    server.stop();

    // A wait from a player with no seat: any seat answers.
    let server = serve_params(SALVAGE, &[], &["0", "1"], &[])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    p0.ask(json!({"op": "play", "name": "fish"})).await;
    let reply = p1.ask(json!({"op": "play", "name": "wreck"})).await;
    assert!(
        reply["text"].as_str().unwrap().contains("from player 2"),
        "{reply}"
    );
    let reply = p0
        .ask(json!({"op": "signal", "signal": "salvage", "tag": "\"oar\""}))
        .await;
    assert_eq!(reply["changed"], true, "{reply}");
    server.stop();

    // A seat the server plays and a wait without `among`: it cannot answer, and says so.
    let game = temporary_game(
        "wait-no-among",
        "#entity e\n  #property turn 0\n  #state default\n    #onMessage go\n      (do (wait signal \"pick\" from 1) (update property \"turn\" to 1) end)\n#instance e of e\n#define to-move () (property \"turn\" of \"e\")\n#actions (list (list \"e\" (new message \"go\" with \"name\" \"go\")))\n",
    );
    let server = serve_params(&game, &[], &[], &["1=random"])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let reply = p0.ask(json!({"op": "play", "name": "go"})).await;
    assert!(
        reply["text"].as_str().unwrap().ends_with(
            "player 1 (random) cannot answer signal \"pick\": the game's wait lists no answers (`among`) to draw from"
        ),
        "{reply}"
    );
    server.stop();
    let _ = std::fs::remove_dir_all(std::path::Path::new(&game));
}
