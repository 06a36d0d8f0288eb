//! House rules by agreement in `flexrules serve`: at a table of two people, a rule change
//! or a take-back over the other's move is only proposed until the other accepts, every
//! proposal's full text reaches every seat, and what a transaction says reaches only the
//! seat that asked. Every byte each seat receives is kept and checked.

use serde_json::json;

#[path = "common/client.rs"]
mod client;
#[path = "common/serving.rs"]
mod serving;
use client::{Client, agreed};
use serving::{serve, serve_with};

/// The law a seat would add to read the other's secret bid: it fails its own bid with the
/// text of player 1's bid.
const PEEKING_LAW: &str = "\"Peek\" on bid to player in default is (if (= (property \"id\") 0) (fail (str \"player 1 bid \" (property \"bid\" of \"player1\"))))";

/// Goofspiel: player 0 proposes a law that would tell it player 1's unrevealed bid.
/// Nothing is in force until player 1 accepts; player 1 sees the law's whole text and
/// declines; player 0 never reads player 1's bid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_house_rule_waits_for_the_other_seat_and_a_decline_drops_it() {
    let server = serve("games/goofspiel").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let mut watcher = Client::open(&server, None).await;

    // Player 1 bids 7 first: a secret order.
    let reply = p1.ask(json!({"op": "play", "name": "1:7"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    assert_eq!(server.version(), 1);

    let reply = p0
        .ask(json!({"op": "rule", "kind": "law", "text": PEEKING_LAW}))
        .await;
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(reply["changed"], false, "{reply}");
    let pid = reply["proposal"].as_u64().expect("a proposal number");
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .contains("carried out when player 1 accepts"),
        "{reply}"
    );
    assert_eq!(server.version(), 1, "a proposal changes nothing");
    // Player 1 is shown the proposal in full, with whose it is, and that it is its to
    // answer.
    let state = p1
        .state_where(|s| s["proposals"].as_array().is_some_and(|p| !p.is_empty()))
        .await;
    let proposals = state["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 1, "{state}");
    let shown = &proposals[0];
    assert_eq!(shown["id"], pid);
    assert_eq!(shown["by"], "0");
    assert_eq!(shown["kind"], "law");
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .contains("property \\\"bid\\\" of \\\"player1\\\"")
            || shown["text"]
                .as_str()
                .unwrap()
                .contains("(property \"bid\" of \"player1\")"),
        "{shown}"
    );
    assert_eq!(shown["yours"], true);
    assert_eq!(shown["waiting"], json!(["1"]));
    // Player 0 cannot accept its own proposal, nor a watcher anybody's.
    let reply = p0.ask(json!({"op": "accept", "proposal": pid})).await;
    assert_eq!(reply["type"], "error", "{reply}");
    let reply = watcher.ask(json!({"op": "accept", "proposal": pid})).await;
    assert_eq!(reply["type"], "error", "{reply}");
    // Not in force: player 0's bid goes through as the game's rules say.
    let state = p0.latest_state().await;
    assert!(
        state["rules"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["name"] != "Peek"),
        "{state}"
    );
    // Player 1 declines: the proposal is gone, player 0 is told.
    let reply = p1.ask(json!({"op": "decline", "proposal": pid})).await;
    assert_eq!(reply["ok"], true, "{reply}");
    let state = p0.state_where(|s| s["notice"].is_string()).await;
    assert_eq!(state["proposals"], json!([]), "{state}");
    assert!(
        state["notice"]
            .as_str()
            .unwrap()
            .contains("declined by player 1"),
        "{state}"
    );
    let reply = p1.ask(json!({"op": "accept", "proposal": pid})).await;
    assert_eq!(
        reply["type"], "error",
        "a declined proposal cannot be accepted"
    );
    let reply = p0.ask(json!({"op": "play", "name": "0:3"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    assert_eq!(server.version(), 2);
    p0.latest_state().await;
    assert!(
        !p0.seen.join("\n").contains("player 1 bid 7"),
        "player 0 read player 1's bid"
    );
    server.stop();
}

/// A take-back is free while it takes back only the asker's own changes that revealed
/// nothing; once the other seat has moved, or an order closed the round and revealed the
/// bids, it is a request the other seat answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_take_back_over_the_other_seat_or_a_reveal_is_a_request() {
    let server = serve("games/goofspiel").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;

    // Player 1 bids, then takes its own unrevealed bid back: free.
    p1.ask(json!({"op": "play", "name": "1:7"})).await;
    let reply = p1.ask(json!({"op": "undo"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    assert_eq!(server.version(), 2);
    // Both bid: player 0's bid closes the round and reveals both.
    p1.ask(json!({"op": "play", "name": "1:7"})).await;
    let reply = p0.ask(json!({"op": "play", "name": "0:3"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    let version = server.version();
    // Player 0 cannot take its revealing bid back alone and bid again knowing player 1's.
    let reply = p0.ask(json!({"op": "undo"})).await;
    assert_eq!(reply["changed"], false, "{reply}");
    let pid = reply["proposal"].as_u64().expect("a take-back request");
    assert_eq!(server.version(), version);
    let reply = p1.ask(json!({"op": "decline", "proposal": pid})).await;
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(server.version(), version, "declined: nothing changed");
    // Nor player 1 its bid, which player 0's order followed.
    let reply = p1.ask(json!({"op": "goto", "n": 1})).await;
    assert!(reply["proposal"].is_u64(), "{reply}");
    // A take-back request is void once the game changes.
    let void = reply["proposal"].as_u64().unwrap();
    p0.ask(json!({"op": "play", "name": "0:13"})).await;
    let reply = p0.ask(json!({"op": "accept", "proposal": void})).await;
    assert_eq!(reply["type"], "error", "{reply}");
    let state = p1.state_where(|s| s["notice"].is_string()).await;
    assert!(
        state["notice"].as_str().unwrap().contains("void"),
        "{state}"
    );
    // Accepted, a take-back is carried out.
    let before = server.version();
    let reply = agreed(&mut p0, &mut p1, json!({"op": "undo"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    assert!(server.version() > before);
    server.stop();
}

/// Awele: a seat takes back its own move alone, but not once the other has answered it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_answered_by_the_other_seat_is_taken_back_by_agreement() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    p0.ask(json!({"op": "play", "name": "C"})).await;
    let reply = p0.ask(json!({"op": "undo"})).await;
    assert_eq!(reply["changed"], true, "own move: {reply}");
    let reply = p0.ask(json!({"op": "redo"})).await;
    assert_eq!(reply["changed"], true, "own move: {reply}");
    p1.ask(json!({"op": "play", "name": "a"})).await;
    let reply = p0.ask(json!({"op": "undo"})).await;
    assert!(reply["proposal"].is_u64(), "{reply}");
    let reply = p0.ask(json!({"op": "goto", "n": 0})).await;
    assert!(reply["proposal"].is_u64(), "{reply}");
    // One seat may have only so many proposals waiting.
    let mut refused = None;
    for _ in 0..10 {
        let reply = p0.ask(json!({"op": "goto", "n": 0})).await;
        if reply["type"] == "error" {
            refused = Some(reply);
            break;
        }
    }
    let refused = refused.expect("the proposals are capped");
    assert!(
        refused["message"].as_str().unwrap().contains("waiting"),
        "{refused}"
    );
    server.stop();
}

/// A variant of the game is proposed by name and carried out once accepted; an unknown
/// one is refused at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_is_proposed_by_name() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let state = p0.latest_state().await;
    assert!(
        state["variants"]
            .as_array()
            .unwrap()
            .contains(&json!("grand-slam-captures-all")),
        "{state}"
    );
    let reply = p0
        .ask(json!({"op": "variant", "name": "grand-slam-captures-al"}))
        .await;
    assert_eq!(reply["type"], "error", "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"grand-slam-captures-all\""),
        "{reply}"
    );
    let reply = p0
        .ask(json!({"op": "variant", "name": "../../../etc/passwd"}))
        .await;
    assert_eq!(reply["type"], "error", "{reply}");
    let reply = agreed(
        &mut p0,
        &mut p1,
        json!({"op": "variant", "name": "grand-slam-captures-all"}),
    )
    .await;
    assert_eq!(reply["changed"], true, "{reply}");
    assert_eq!(reply["ok"], true, "{reply}");
    let state = p0.state_where(|s| s["notice"].is_string()).await;
    assert!(
        state["notice"]
            .as_str()
            .unwrap()
            .contains("accepted by all"),
        "{state}"
    );
    assert!(state["rules"].as_array().unwrap().len() > 7, "{state}");
    server.stop();
}

/// What a transaction says (a notify text, a print, a veto reason) reaches only the seat
/// that asked for it: the other seat and the watcher receive the new state, never the
/// text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_transaction_says_reaches_only_the_seat_that_asked() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let mut watcher = Client::open(&server, None).await;
    let reply = agreed(
        &mut p0,
        &mut p1,
        json!({"op": "rule", "kind": "sideeffect",
            "text": "\"Say\" on startSeeding to hole in default is (print (str \"whisper-to\" \"-the-mover\"))"}),
    )
    .await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = agreed(
        &mut p1,
        &mut p0,
        json!({"op": "rule", "kind": "law",
            "text": "\"No B\" on startSeeding to B in default is (fail (str \"veto-reason\" \"-for-the-mover\"))"}),
    )
    .await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = p0.ask(json!({"op": "play", "name": "A"})).await;
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .contains("whisper-to-the-mover"),
        "{reply}"
    );
    let reply = p1.ask(json!({"op": "play", "name": "a"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = p0
        .ask(json!({"op": "click", "owner": "B", "graphic": "house"}))
        .await;
    assert!(
        reply.to_string().contains("veto-reason-for-the-mover"),
        "{reply}"
    );
    p1.latest_state().await;
    watcher.latest_state().await;
    for (who, c) in [("player 1", &p1), ("the watcher", &watcher)] {
        let all = c.seen.join("\n");
        assert!(
            !all.contains("veto-reason-for-the-mover"),
            "{who} read player 0's veto: {}",
            c.seen
                .iter()
                .find(|m| m.contains("veto-reason-for-the-mover"))
                .unwrap()
        );
    }
    // Player 1's own move printed: only player 1 reads that.
    assert_eq!(
        p0.seen
            .iter()
            .filter(|m| m.contains("whisper-to-the-mover") && m.contains("\"reply\""))
            .count(),
        1,
        "player 0 read player 1's output"
    );
    server.stop();
}

/// A seat played by the server agrees to everything: a person playing against it changes
/// the rules and takes moves back at once, as in the REPL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn against_the_server_nobody_is_asked() {
    let server = serve_with("tests/inputs/tic-tac-toe", &["X", "O"], &["O=random"])
        .await
        .expect("the server starts");
    let mut x = Client::open(&server, Some(0)).await;
    let reply = x
        .ask(json!({"op": "rule", "kind": "sideeffect",
            "text": "on place to cell in default is (print \"placed\")"}))
        .await;
    assert_eq!(reply["changed"], true, "{reply}");
    x.ask(json!({"op": "play", "name": "a1"})).await;
    let reply = x.ask(json!({"op": "undo"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    server.stop();
}

/// A private-card game: player 0 proposes a side-effect that would tell it player 1's
/// card on its next pass. Player 1 reads the side-effect's whole text and declines: no
/// message player 0 receives holds player 1's card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_side_effect_that_would_tell_a_secret_is_declined() {
    let server = serve("tests/inputs/serve/cards").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let reply = p0
        .ask(json!({"op": "rule", "kind": "sideeffect",
            "text": "\"Tell\" on pass to table in default is (print (str \"card \" (property \"card\" of \"hand1\")))"}))
        .await;
    let pid = reply["proposal"].as_u64().expect("proposed, not in force");
    let state = p1
        .state_where(|s| s["proposals"].as_array().is_some_and(|p| !p.is_empty()))
        .await;
    let text = state["proposals"][0]["text"].as_str().unwrap();
    assert!(text.contains("(property \"card\" of \"hand1\")"), "{text}");
    p1.ask(json!({"op": "decline", "proposal": pid})).await;
    let reply = p0.ask(json!({"op": "play", "name": "pass"})).await;
    assert_eq!(reply["changed"], true, "{reply}");
    p0.latest_state().await;
    let all = p0.seen.join("\n");
    assert!(!all.contains("card 9"), "player 0 read player 1's card");
    assert_eq!(server.version(), 1, "only the pass changed the game");
    server.stop();
}
