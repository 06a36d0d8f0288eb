//! The page's rule editor in `flexrules serve`: the `check` request says what adding a law
//! or side-effect would be told (as data: severity, code, message, hint, line and column
//! in the text sent) and changes nothing; the variants are listed with their descriptions
//! and switched on and off; the rule texts the seats send are bounded; a refused move
//! names the law behind it, even inside the move.

use serde_json::{Value, json};

#[path = "common/client.rs"]
mod client;
#[path = "common/serving.rs"]
mod serving;
use client::{Client, agreed};
use serving::{serve, serve_with};

/// A law with a misspelt function (`retrun`) on its third line.
const TYPO: &str = "\n\"Not A\" on startSeeding to A in default is\n  (do (retrun) end)";

fn diagnostics(reply: &Value) -> &Vec<Value> {
    reply["diagnostics"]
        .as_array()
        .expect("a list of diagnostics")
}

/// At a table of one person (the other seat played by the server), a law with a typo is
/// checked: an error at its line and column, with a hint, and nothing changes; fixed, it
/// checks clean; a name already in force and a file are refused as `rule` would refuse
/// them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_tells_what_adding_a_rule_would_and_changes_nothing() {
    let server = serve_with("games/awele", &["0", "1"], &["1=random"])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let before = p0.latest_state().await;

    let reply = p0
        .ask(json!({"op": "check", "kind": "law", "text": TYPO}))
        .await;
    assert_eq!(reply["type"], "check", "{reply}");
    assert_eq!(reply["ok"], false, "{reply}");
    let first = &diagnostics(&reply)[0];
    assert_eq!(first["severity"], "error", "{reply}");
    assert!(
        first["message"].as_str().unwrap().contains("retrun"),
        "{reply}"
    );
    assert_eq!(first["line"], 3, "{reply}");
    assert_eq!(first["column"], 8, "{reply}");
    assert!(
        first["hint"].as_str().unwrap().contains("return"),
        "{reply}"
    );
    // Nothing changed, nothing was proposed, no state was pushed.
    assert_eq!(server.version(), 0);
    let after = p0.latest_state().await;
    assert_eq!(after["rules"], before["rules"]);
    assert_eq!(after["version"], before["version"]);
    assert_eq!(after["proposals"], json!([]));
    assert!(
        !p0.seen.iter().any(|m| m.contains("\"type\":\"reply\"")),
        "a check is answered only by a check: {:?}",
        p0.seen
    );

    let fixed = TYPO.replace("retrun", "return");
    let reply = p0
        .ask(json!({"op": "check", "kind": "law", "text": fixed}))
        .await;
    assert_eq!(reply["ok"], true, "{reply}");
    assert!(
        diagnostics(&reply).iter().all(|d| d["severity"] != "error"),
        "{reply}"
    );

    // A name in force: refused as `:law` refuses it, at the name.
    let reply = p0
        .ask(json!({"op": "check", "kind": "law",
            "text": "\"Allow Only Current Player\" on startSeeding to A in default is (return)"}))
        .await;
    assert_eq!(reply["ok"], false, "{reply}");
    let d = &diagnostics(&reply)[0];
    assert_eq!(d["code"], "rule-in-force", "{reply}");
    assert_eq!(
        (d["line"].clone(), d["column"].clone()),
        (json!(1), json!(1))
    );
    assert!(d["hint"].as_str().unwrap().contains("replaces"), "{reply}");

    // A file is never read for the page: refused without a place.
    let reply = p0
        .ask(json!({"op": "check", "kind": "sideeffect",
            "text": "\"F\" on startSeeding to A in default is \"/etc/passwd\""}))
        .await;
    assert_eq!(reply["ok"], false, "{reply}");
    let d = &diagnostics(&reply)[0];
    assert_eq!(d["line"], Value::Null, "{reply}");
    assert!(
        d["message"].as_str().unwrap().contains("written inline"),
        "{reply}"
    );
    assert_eq!(server.version(), 0);

    // What the check said is what `rule` does: the fixed law is added.
    let reply = p0
        .ask(json!({"op": "rule", "kind": "law", "text": fixed}))
        .await;
    assert_eq!(reply["changed"], true, "{reply}");
    server.stop();
}

/// At a table of two people a check proposes nothing; a watcher may not check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_is_no_proposal_and_not_for_watchers() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut watcher = Client::open(&server, None).await;
    let fixed = TYPO.replace("retrun", "return");
    let reply = p0
        .ask(json!({"op": "check", "kind": "law", "text": fixed}))
        .await;
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(p0.latest_state().await["proposals"], json!([]));
    let reply = watcher
        .ask(json!({"op": "check", "kind": "law", "text": fixed}))
        .await;
    assert_eq!(reply["type"], "error", "{reply}");
    server.stop();
}

fn variant<'a>(state: &'a Value, name: &str) -> &'a Value {
    state["variantDetails"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variant {name}: {state}"))
}

/// Variants are listed with their descriptions; one is switched on, refused a second
/// time, switched off (its change taken back: the rules as before), and refused off once
/// a move follows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_is_switched_on_and_off() {
    let server = serve_with("games/awele", &["0", "1"], &["1=random"])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let state = p0.latest_state().await;
    let fill = variant(&state, "fill-origin");
    assert_eq!(
        fill["description"],
        "Sowing 12 seeds or more also fills the house the move started from."
    );
    assert_eq!(fill["inForce"], false);
    let rules = state["rules"].clone();

    let off = p0
        .ask(json!({"op": "variant", "name": "fill-origin", "on": false}))
        .await;
    assert_eq!(off["type"], "error", "{off}");
    assert!(
        off["message"].as_str().unwrap().contains("is not in force"),
        "{off}"
    );

    let on = p0
        .ask(json!({"op": "variant", "name": "fill-origin"}))
        .await;
    assert_eq!(on["changed"], true, "{on}");
    let state = p0.state_at(1).await;
    assert_eq!(variant(&state, "fill-origin")["inForce"], true);
    assert_ne!(state["rules"], rules);

    let twice = p0
        .ask(json!({"op": "variant", "name": "fill-origin", "on": true}))
        .await;
    assert_eq!(twice["type"], "error", "{twice}");
    assert_eq!(
        twice["message"],
        "the variant \"fill-origin\" is in force already (change 1); nothing was done"
    );

    let off = p0
        .ask(json!({"op": "variant", "name": "fill-origin", "on": false}))
        .await;
    assert_eq!(off["changed"], true, "{off}");
    let state = p0.state_at(2).await;
    assert_eq!(variant(&state, "fill-origin")["inForce"], false);
    assert_eq!(state["rules"], rules, "the rules are as before the variant");

    // On again, then a move (and the server's answer): off is refused, saying why.
    p0.ask(json!({"op": "variant", "name": "fill-origin"}))
        .await;
    let moved = p0.ask(json!({"op": "play", "name": "A"})).await;
    assert_eq!(moved["changed"], true, "{moved}");
    let off = p0
        .ask(json!({"op": "variant", "name": "fill-origin", "on": false}))
        .await;
    assert_eq!(off["type"], "error", "{off}");
    assert!(
        off["message"]
            .as_str()
            .unwrap()
            .contains("cannot be switched off now: switching it off takes back its change (change 1), and 2 changes came after it"),
        "{off}"
    );
    server.stop();
}

/// At a table of two people, switching off a variant the table agreed to is proposed, and
/// carried out when the other seat accepts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_a_variant_off_needs_the_table() {
    let server = serve("games/awele").await;
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let on = agreed(
        &mut p0,
        &mut p1,
        json!({"op": "variant", "name": "fill-origin"}),
    )
    .await;
    assert_eq!(on["changed"], true, "{on}");
    let proposed = p0
        .ask(json!({"op": "variant", "name": "fill-origin", "on": false}))
        .await;
    let pid = proposed["proposal"].as_u64().expect("a proposal");
    assert_eq!(server.version(), 1);
    let done = p1.ask(json!({"op": "accept", "proposal": pid})).await;
    assert_eq!(done["changed"], true, "{done}");
    let state = p0.state_at(2).await;
    assert_eq!(variant(&state, "fill-origin")["inForce"], false);
    server.stop();
}

/// The rule texts the seats send (each within a request's 16 KiB) may add only so many new
/// names to the process (a name read is kept for its life): past that, rule texts are
/// refused, and the game goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rule_texts_sent_add_boundedly_many_names() {
    let server = serve_with("games/awele", &["0", "1"], &["1=random"])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut refused = None;
    for round in 0..400 {
        let names: String = (0..1_100).map(|i| format!("q{round}x{i} ")).collect();
        let text = format!("\"Names\" on startSeeding to A in default is (list {names})");
        let reply = p0
            .ask(json!({"op": "check", "kind": "law", "text": text}))
            .await;
        if reply["type"] != "check" {
            refused = Some((round, reply));
            break;
        }
    }
    let (round, refused) = refused.expect("the seats' rule texts stop adding names");
    assert!(
        round >= 50,
        "refused only after many new names, at round {round}"
    );
    assert!(
        refused["message"].as_str().unwrap().contains("new names"),
        "{refused}"
    );
    // The game goes on.
    let reply = p0.ask(json!({"op": "play", "name": "A"})).await;
    assert_eq!(reply["ok"], true, "{reply}");
}

/// A move refused because a law vetoed a message inside it (and the move then rolled
/// back) is explained with that law and the messages that led to it, as `:why` says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_names_the_law_that_vetoed_a_message_inside_the_move() {
    let server = serve_with("tests/inputs/repl/games/hops", &["W", "B"], &["B=random"])
        .await
        .expect("the server starts");
    let mut w = Client::open(&server, Some(0)).await;
    let reply = w
        .ask(json!({"op": "rule", "kind": "law",
            "text": "\"Closed Cell\" on arrive to b1 in * is (return)"}))
        .await;
    assert_eq!(reply["changed"], true, "{reply}");
    let reply = w.ask(json!({"op": "play", "name": "step-b1"})).await;
    let text = reply.to_string();
    assert!(
        text.contains("rolled back: the token could not arrive")
            && text.contains("after law \\\"Closed Cell\\\" (inline) vetoed a message inside it")
            && text.contains("b1 handled arrive from a1 <- a1 handled move from user"),
        "{reply}"
    );
    server.stop();
}
