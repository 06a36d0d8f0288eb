//! Load on `flexrules serve`, bounded in count and time: 100 WebSocket connections watch
//! one Awele game over loopback while the two seats play 20 moves; every update must reach
//! every watcher. Prints the delivery latency (from sending the move to each watcher
//! receiving the new state): min, median, max. Nothing asserts on time.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

#[path = "common/serving.rs"]
mod serving;
use serving::serve;

const WATCHERS: usize = 100;
const MOVES: u64 = 20;
/// A guard against hanging: the whole run is abandoned (and fails) after this.
const PATIENCE: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_watchers_get_every_update() {
    tokio::time::timeout(PATIENCE, run())
        .await
        .expect("the load test finishes");
}

async fn run() {
    let server = serve("games/awele").await;

    // Each watcher reports (watcher, version, when received) for every state it gets.
    let (report, mut reports) = mpsc::unbounded_channel::<(usize, u64, Instant)>();
    let mut watchers = Vec::new();
    for w in 0..WATCHERS {
        let (mut socket, _) = connect_async(format!("ws://{}/ws", server.addr))
            .await
            .expect("a watcher connects");
        let report = report.clone();
        watchers.push(tokio::spawn(async move {
            while let Some(Ok(msg)) = socket.next().await {
                if let Message::Text(t) = msg {
                    let m: Value = serde_json::from_str(&t).expect("JSON");
                    if m["type"] == "state" {
                        let v = m["version"].as_u64().expect("a version");
                        if report.send((w, v, Instant::now())).is_err() || v == MOVES {
                            break;
                        }
                    }
                }
            }
        }));
    }
    drop(report);
    let mut got = vec![vec![false; MOVES as usize + 1]; WATCHERS];
    // Every watcher first receives the state at version 0.
    let mut count = 0;
    while count < WATCHERS {
        let (w, v, _) = reports.recv().await.expect("a report");
        assert_eq!(v, 0);
        got[w][0] = true;
        count += 1;
    }

    let mut seats = Vec::new();
    for n in 0..2 {
        let url = format!("ws://{}/ws?seat={}", server.addr, server.token(n).unwrap());
        let (socket, _) = connect_async(url).await.expect("a seat connects");
        seats.push(socket);
    }
    let mut latencies = Vec::new();
    let mut moves: Vec<String> = vec!["A".into()];
    for version in 1..=MOVES {
        let mover = (version as usize + 1) % 2;
        let name = moves.first().expect("a legal move").clone();
        let sent = Instant::now();
        seats[mover]
            .send(Message::Text(
                json!({"op": "play", "name": name}).to_string().into(),
            ))
            .await
            .expect("the move is sent");
        let mut arrived = 0;
        while arrived < WATCHERS {
            let (w, v, at) = reports.recv().await.expect("every watcher reports");
            assert_eq!(v, version, "updates arrive in order, none skipped");
            assert!(!got[w][v as usize], "one state per update");
            got[w][v as usize] = true;
            latencies.push(at - sent);
            arrived += 1;
        }
        // The mover's reply and the new state give the next legal moves.
        loop {
            let msg = seats[mover].next().await.expect("open").expect("reads");
            let Message::Text(t) = msg else { continue };
            let m: Value = serde_json::from_str(&t).expect("JSON");
            if m["type"] == "reply" {
                assert_eq!(m["changed"], true, "{m}");
            }
            if m["type"] == "state" && m["version"] == json!(version) {
                moves = serde_json::from_value(m["moves"].clone()).expect("moves");
                break;
            }
        }
    }
    assert!(got.iter().all(|w| w.iter().all(|&g| g)));
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{WATCHERS} watchers x {MOVES} updates = {} deliveries; latency min {:.2} ms, median {:.2} ms, max {:.2} ms",
        latencies.len(),
        ms(latencies[0]),
        ms(latencies[latencies.len() / 2]),
        ms(latencies[latencies.len() - 1])
    );
    for w in watchers {
        w.await.expect("a watcher ends");
    }
    server.stop();
}
