//! A WebSocket client of `flexrules serve` for the protocol tests: it keeps every text
//! message it receives, so a test can check what reached each connection, byte for byte.

#![allow(dead_code)] // not every test binary uses every helper

use std::time::Duration;

use flexrules::serve::Server;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A guard against hanging, not a measure: a message that does not come in this long
/// fails the test.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A connection and everything it has received.
pub struct Client {
    pub socket: Socket,
    pub seen: Vec<String>,
    pub next_id: u64,
}

impl Client {
    pub async fn open(server: &Server, seat: Option<usize>) -> Client {
        let url = match seat {
            Some(n) => format!(
                "ws://{}/ws?seat={}",
                server.addr,
                server.token(n).expect("the seat exists")
            ),
            None => format!("ws://{}/ws", server.addr),
        };
        let (socket, _) = connect_async(url).await.expect("the connection opens");
        let mut c = Client {
            socket,
            seen: Vec::new(),
            next_id: 0,
        };
        let first = c.next().await;
        assert_eq!(first["type"], "state", "the first message is the state");
        c
    }

    pub async fn next(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(PATIENCE, self.socket.next())
                .await
                .expect("a message comes")
                .expect("the connection is open")
                .expect("the message reads");
            if let Message::Text(t) = msg {
                self.seen.push(t.to_string());
                return serde_json::from_str(&t).expect("the server sends JSON");
            }
        }
    }

    /// Send `request` (an id is added) and wait for its reply, error or peek.
    pub async fn ask(&mut self, mut request: Value) -> Value {
        self.next_id += 1;
        request["id"] = json!(self.next_id);
        self.send_text(request.to_string()).await;
        loop {
            let m = self.next().await;
            if m["type"] != "state" {
                assert_eq!(m["id"], json!(self.next_id), "the answer names the request");
                return m;
            }
        }
    }

    pub async fn send_text(&mut self, text: String) {
        self.socket
            .send(Message::Text(text.into()))
            .await
            .expect("the request is sent");
    }

    /// Wait for the state at `version`.
    pub async fn state_at(&mut self, version: u64) -> Value {
        loop {
            let m = self.next().await;
            if m["type"] == "state" && m["version"] == json!(version) {
                return m;
            }
        }
    }

    /// The first state (among those received, then those to come) for which `wanted`
    /// holds: for a change another connection made, whose state is pushed when it comes.
    pub async fn state_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let seen = self.seen.iter().rev().find_map(|t| {
            let m: Value = serde_json::from_str(t).ok()?;
            (m["type"] == "state" && wanted(&m)).then_some(m)
        });
        if let Some(m) = seen {
            return m;
        }
        loop {
            let m = self.next().await;
            if m["type"] == "state" && wanted(&m) {
                return m;
            }
        }
    }

    /// The current state: asks for nothing, so peek at change 0 to get a round trip, and
    /// return the last state seen before it.
    pub async fn latest_state(&mut self) -> Value {
        self.ask(json!({"op": "peek", "n": 0})).await;
        self.seen
            .iter()
            .rev()
            .map(|t| serde_json::from_str::<Value>(t).expect("JSON"))
            .find(|m| m["type"] == "state")
            .expect("a state was received")
    }
}

/// Have `proposer` ask for `request` (a change that needs the table's agreement), and
/// `other` accept it: the reply to the acceptance (the change carried out).
pub async fn agreed(proposer: &mut Client, other: &mut Client, request: Value) -> Value {
    let proposed = proposer.ask(request).await;
    let Some(pid) = proposed["proposal"].as_u64() else {
        return proposed;
    };
    other.ask(json!({"op": "accept", "proposal": pid})).await
}
