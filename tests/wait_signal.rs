//! `(wait signal <signal> from <player> among <list>)` through every front end: the public
//! API (a pending move, its answers as moves, fork, undo, replay by name), random
//! playouts and agents (answers drawn at random, recorded as moves), and `flexrules serve`
//! (only the named player's seat answers; an answer not among the list is refused).

use std::path::PathBuf;

use flexrules::api::{Error, Game, Match, MoveIndex};
use flexrules::play::agent::{Agent, Agents};
use flexrules::play::games::play;
use flexrules::play::playout::{Chooser, playout};
use flexrules::runtime::value::Value;
use serde_json::json;

#[path = "common/client.rs"]
mod client;
#[path = "common/serving.rs"]
#[allow(dead_code)]
mod serving;
use client::Client;
use serving::serve_with;

const SALVAGE: &str = "tests/inputs/wait/salvage";

fn salvage() -> Game {
    Game::load(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(SALVAGE)).expect("salvage loads")
}

fn names(m: &mut Match) -> Vec<String> {
    m.legal_moves()
        .expect("moves")
        .into_iter()
        .map(|m| m.name)
        .collect()
}

fn text(v: Option<Value>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// A game whose move waits with no `among` (or an empty one, or not a list).
fn waiting_game(wait: &str) -> Match {
    let source = format!(
        "#entity e\n  #state default\n    #onMessage ask\n      {wait}\n#instance e of e\n\
         #define to-move () 0\n#actions (list (list \"e\" (new message \"ask\" with \"name\" \"ask\")))\n"
    );
    Game::from_source("wait.fr", &source)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .start_headless(0)
        .expect("starts")
}

#[test]
fn a_waiting_move_offers_its_answers_to_the_player_named_and_commits_when_answered() {
    let mut m = salvage().start_headless(0).expect("starts");
    assert_eq!(names(&mut m), ["wreck", "fish"]);
    let played = m.play("wreck").expect("a move that waits plays");
    let waiting = played.waiting.expect("the move waits");
    assert_eq!(waiting.signal, "salvage");
    assert_eq!(
        waiting.player.as_deref(),
        Some("1"),
        "from: the next player"
    );
    assert_eq!(m.waiting(), Some(waiting));
    assert_eq!(m.players_to_move().expect("players"), ["1"]);
    let answers = m.legal_moves().expect("answers");
    let answer_names: Vec<&str> = answers.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        answer_names,
        ["salvage=rope", "salvage=sail", "salvage=oar"]
    );
    assert!(answers.iter().all(|a| a.player.as_deref() == Some("1")));
    // Nothing is played until the move commits.
    assert_eq!(m.moves_played(), 0);
    assert_eq!(text(m.property("sea", "turn")), "0");

    // Another name is refused with the answers, and changes nothing.
    let digest = m.digest();
    match m.play("fish") {
        Err(Error::UnknownMove { name, legal }) => {
            assert_eq!(name, "fish");
            assert_eq!(legal, answer_names);
        }
        other => panic!("an answer not among the list is refused: {other:?}"),
    }
    assert_eq!(m.digest(), digest);
    assert!(m.waiting().is_some());

    // A fork goes on alone: answered there, the move commits there only.
    let mut fork = m.fork();
    let played = fork.play("salvage=rope").expect("an answer plays");
    assert_eq!(played.name, "salvage=rope");
    assert!(played.waiting.is_none());
    assert!(fork.waiting().is_none());
    assert_eq!(fork.moves_played(), 1);
    assert_eq!(text(fork.property("sea", "rope")), "(0 1 0)");
    assert_eq!(fork.players_to_move().expect("players"), ["1"]);
    assert_eq!(names(&mut fork), ["wreck", "fish"]);
    assert!(m.waiting().is_some(), "the original still waits");

    // Undo takes back the whole pending move.
    assert!(m.undo());
    assert!(m.waiting().is_none());
    assert_eq!(m.moves_played(), 0);
    assert_eq!(m.digest(), digest);
    assert_eq!(names(&mut m), ["wreck", "fish"]);

    // The same answers by name (or by index) give the same game.
    m.play("wreck").expect("wreck");
    m.play_index(MoveIndex::of("salvage=rope"))
        .expect("an answer by index");
    assert_eq!(m.digest(), fork.digest());
    // And the committed move is taken back as one.
    assert!(m.undo());
    assert_eq!(m.digest(), digest);
}

#[test]
fn a_message_sent_while_a_move_waits_is_refused() {
    let mut m = salvage().start_headless(0).expect("starts");
    m.play("wreck").expect("wreck");
    let e = m.send("sea", "fish", &[]).expect_err("refused");
    assert!(
        e.to_string()
            .contains("a move is waiting for signal \"salvage\": answer it first (salvage=rope salvage=sail salvage=oar)"),
        "{e}"
    );
    assert!(m.waiting().is_some());
}

#[test]
fn a_wait_without_among_has_no_answers_to_offer() {
    let mut m = waiting_game("(wait signal \"pick\")");
    let played = m.play("ask").expect("a move that waits plays");
    assert!(played.waiting.is_some_and(|w| w.answers.is_none()));
    match m.legal_moves() {
        Err(Error::Failed(e)) => {
            assert!(
                e.message.contains("its answers are unknown"),
                "{}",
                e.message
            );
            assert!(
                e.hint.as_deref().is_some_and(|h| h.contains("among")),
                "{e:?}"
            );
        }
        other => panic!("the answers are unknown: {other:?}"),
    }
    // A playout cannot answer it either, and says how to let it.
    let mut m = waiting_game("(wait signal \"pick\")");
    let stopped = playout(&mut m, &mut Chooser::new(0, 0), 10).expect_err("it stops");
    assert!(
        stopped.error.message.contains("with no one to answer"),
        "{:?}",
        stopped.error
    );
    assert!(
        stopped
            .error
            .hint
            .as_deref()
            .is_some_and(|h| h.contains("among")),
        "{:?}",
        stopped.error
    );
}

#[test]
fn among_must_give_a_non_empty_list() {
    for (wait, gave) in [
        ("(wait signal \"pick\" among (list))", "not an empty list"),
        (
            "(wait signal \"pick\" among \"rope\")",
            "not string \"rope\"",
        ),
    ] {
        let mut m = waiting_game(wait);
        let e = m.play("ask").expect_err("refused");
        let shown = e.to_string();
        assert!(
            shown.contains(&format!(
                "the answers to signal \"pick\" (`among`) must be a non-empty list, {gave}"
            )),
            "{shown}"
        );
        assert!(m.waiting().is_none());
    }
}

/// Play `line`'s moves (a `playout --record` line) by name from the start of the game's
/// own seed.
fn replays(game: &Game, line: &str) {
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 5, "{line}");
    let own: u64 = fields[2].parse().expect("the game's seed");
    let mut m = game.start_headless(own).expect("starts");
    for mv in fields[4].split(' ').filter(|s| !s.is_empty()) {
        m.play(mv)
            .unwrap_or_else(|e| panic!("`{mv}` of `{line}` does not play again: {e}"));
    }
    let winner = m
        .outcome()
        .and_then(|o| o.into_iter().find(|(k, _)| k == "winner"))
        .map(|(_, v)| v.to_text());
    assert_eq!(
        Some(fields[3].to_string()),
        winner.map(|w| format!("winner {w}")),
        "{line}"
    );
}

#[test]
fn random_playouts_answer_waits_and_record_the_answers_as_moves() {
    let game = salvage();
    let m = game.start_headless(0).expect("starts");
    let (tally, _) = play(&m, 40, 2, 3, 100, None, true, || {}).expect("threads");
    assert_eq!(tally.failed, 0, "{:?}", tally.first_error);
    assert_eq!(tally.games, 40);
    assert_eq!(tally.wins.values().sum::<u64>(), 40, "every game finishes");
    let (again, _) = play(&m, 40, 1, 3, 100, None, true, || {}).expect("threads");
    let lines = |t: &flexrules::play::stats::Tally| {
        let mut r = t.records.clone();
        r.sort();
        r
    };
    assert_eq!(
        lines(&tally),
        lines(&again),
        "the same on any number of threads"
    );
    let records = lines(&tally);
    assert!(
        records.iter().any(|(_, l)| l.contains("wreck salvage=")),
        "answers are recorded after their moves"
    );
    for (_, line) in &records {
        replays(&game, line);
    }
}

#[test]
fn agents_answer_waits_too() {
    let game = salvage();
    let mut m = game.start_headless(0).expect("starts");
    let agents = Agents::new(
        &mut m,
        vec![("1".into(), Agent::parse("mcts:20").expect("agent"))],
        Agent::Random,
    )
    .expect("agents");
    let (tally, _) = play(&m, 6, 1, 5, 100, Some(&agents), true, || {}).expect("threads");
    assert_eq!(tally.failed, 0, "{:?}", tally.first_error);
    assert_eq!(tally.wins.values().sum::<u64>(), 6);
    for (_, line) in &tally.records {
        replays(&game, line);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_named_players_seat_answers_and_only_among_the_answers() {
    let server = serve_with(SALVAGE, &["0", "1", "2"], &[])
        .await
        .expect("the server starts");
    let mut p0 = Client::open(&server, Some(0)).await;
    let mut p1 = Client::open(&server, Some(1)).await;
    let reply = p0.ask(json!({"op": "play", "name": "wreck"})).await;
    assert!(
        reply["text"].as_str().unwrap().starts_with(
            "waiting for signal \"salvage\" from player 1: answer with :signal salvage <tag> (one of \"rope\", \"sail\", \"oar\")"
        ),
        "{reply}"
    );
    let state = p0.state_at(1).await;
    assert_eq!(state["waiting"]["signal"], "salvage");
    assert_eq!(state["waiting"]["player"], "1");
    assert_eq!(state["waiting"]["answers"], json!(["rope", "sail", "oar"]));
    // The seat that began the move does not answer: player 1 does.
    let reply = p0
        .ask(json!({"op": "signal", "signal": "salvage", "tag": "\"rope\""}))
        .await;
    assert_eq!(
        reply["message"],
        "player 1's move is waiting for signal \"salvage\": only that player answers it"
    );
    // An answer not among the list is refused, with the list.
    let reply = p1
        .ask(json!({"op": "signal", "signal": "salvage", "tag": "\"anchor\""}))
        .await;
    assert_eq!(reply["changed"], false, "{reply}");
    assert_eq!(
        reply["text"],
        "error: \"anchor\" is not an answer to signal \"salvage\": the answers are \"rope\", \"sail\", \"oar\"; nothing changed"
    );
    let reply = p1
        .ask(json!({"op": "signal", "signal": "salvage", "tag": "\"rope\""}))
        .await;
    assert_eq!(reply["changed"], true, "{reply}");
    let state = p1.state_at(2).await;
    assert!(state["waiting"].is_null(), "{state}");
    assert_eq!(state["toMove"], "1");
    server.stop();
}
