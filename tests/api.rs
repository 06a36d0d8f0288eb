//! The public game API (`flexrules::api`): loading with diagnostics, parameters, moves by
//! name and by index, refusals that change nothing, messages, undo, forks, outcomes and
//! each seat's view.

use flexrules::api::{Error, Game, LoadError, Match, MoveIndex};
use flexrules::runtime::session::StartError;
use flexrules::runtime::trace::Status;
use flexrules::runtime::value::Value;

fn game(dir: &str) -> Game {
    Game::load(format!("{}/games/{dir}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{dir} loads: {e}"))
}

const COUNTER: &str = r#"
#entity counter
  #property count 0
  #state default
    #onMessage add
      (update property "count" to (+ (property "count") (attribute "by")))
#instance c of counter
#law "Small Steps" on add to counter in default is
  (if (> (attribute "by") 10) (return))
"#;

#[test]
fn a_game_with_errors_gives_every_diagnostic() {
    let text = "#entity e\n  #state default\n    #onMessage m\n      (update property \"p\" to (nosuch 1))\n";
    let Err(e) = Game::from_source("broken.fr", text) else {
        panic!("a call of an unknown function is refused");
    };
    assert!(!e.is_usage());
    assert!(matches!(e, LoadError::Invalid { .. }));
    assert!(!e.diagnostics().is_empty());
    let shown = e.render(false);
    assert!(shown.contains("broken.fr:4:"), "{shown}");
    assert!(shown.contains("nosuch"), "{shown}");
}

#[test]
fn a_missing_game_is_a_wrong_request() {
    let e = Game::load("no/such/game").expect_err("nothing is there");
    assert!(e.is_usage(), "{e}");
    assert!(e.diagnostics().is_empty());
}

#[test]
fn parameters_are_read_when_a_match_starts() {
    let path = format!("{}/games/goofspiel", env!("CARGO_MANIFEST_DIR"));
    let three = Game::loader(&path)
        .param("players", "3")
        .load()
        .expect("loads");
    let mut m = three.start(0).expect("starts");
    assert_eq!(m.players_to_move().expect("to-move"), ["0", "1", "2"]);

    let malformed = Game::loader(&path)
        .param_text("players")
        .load()
        .expect("loads");
    let e = malformed
        .start(0)
        .err()
        .expect("a parameter without a value is refused");
    assert!(matches!(e, Error::Param(_)) && e.is_usage(), "{e}");

    let unknown = Game::loader(&path)
        .param("nope", "1")
        .load()
        .expect("loads");
    let e = unknown
        .start(0)
        .err()
        .expect("an unknown parameter is refused");
    assert!(
        matches!(e, Error::Start(StartError::UnknownParam(_))),
        "{e}"
    );
}

#[test]
fn moves_are_played_by_name_and_by_a_stable_index() {
    let mut m = game("awele").start(1).expect("starts");
    let moves = m.legal_moves().expect("moves");
    assert!(moves.len() > 1);
    for mv in &moves {
        assert_eq!(mv.index, MoveIndex::of(&mv.name));
    }
    let played = m.play_index(moves[1].index).expect("a legal index plays");
    assert_eq!(played.name, moves[1].name);
    assert_eq!(m.moves_played(), 1);

    // The same moves by name in another match reach the same position.
    let mut again = game("awele").start(1).expect("starts");
    again.play(&moves[1].name).expect("a legal name plays");
    assert_eq!(again.digest(), m.digest());
}

#[test]
fn a_refused_request_changes_nothing() {
    let mut m = game("awele").start(3).expect("starts");
    let first = m.legal_moves().expect("moves")[0].name.clone();
    m.play(&first).expect("plays");
    let before = m.digest();
    let legal = m.legal_moves().expect("moves");

    match m.play("zz9") {
        Err(Error::UnknownMove {
            name,
            legal: offered,
        }) => {
            assert_eq!(name, "zz9");
            let names: Vec<String> = legal.iter().map(|mv| mv.name.clone()).collect();
            assert_eq!(offered, names);
        }
        other => panic!(
            "an unknown name is refused, got {:?}",
            other.map(|p| p.name)
        ),
    }
    assert!(matches!(
        m.play_index(MoveIndex(12_345)),
        Err(Error::UnknownIndex(MoveIndex(12_345)))
    ));
    // The move just played is no longer legal from the same pit's side.
    assert!(m.play(&first).is_err() || legal.iter().any(|mv| mv.name == first));
    assert!(matches!(
        m.send("nobody", "x", &[]),
        Err(Error::NoSuchEntity(_))
    ));
    assert_eq!(m.digest(), before);
    assert_eq!(m.moves_played(), 1);
}

#[test]
fn messages_are_sent_and_a_veto_changes_nothing() {
    let game = Game::from_source("counter.fr", COUNTER).expect("loads");
    let mut m = game.start(0).expect("starts");
    assert!(matches!(m.legal_moves(), Err(Error::NoMoves)));
    let played = m
        .send("c", "add", &[("by", Value::Int(3))])
        .expect("commits");
    assert!(played.transaction.status.committed());
    assert_eq!(m.property("c", "count"), Some(Value::Int(3)));
    let before = m.digest();
    match m.send("c", "add", &[("by", Value::Int(50))]) {
        Err(Error::Refused(Status::Vetoed { law })) => assert_eq!(law.as_str(), "Small Steps"),
        other => panic!("the law vetoes, got {:?}", other.map(|p| p.name)),
    }
    assert_eq!(m.digest(), before);
    assert_eq!(m.property("c", "count"), Some(Value::Int(3)));
    assert!(m.undo());
    assert_eq!(m.property("c", "count"), Some(Value::Int(0)));
    assert!(!m.undo(), "nothing is left to undo");
}

#[test]
fn a_fork_goes_on_alone() {
    let mut m = game("awele").start(4).expect("starts");
    for _ in 0..2 {
        let name = m.legal_moves().expect("moves")[0].name.clone();
        m.play(&name).expect("plays");
    }
    let here = m.digest();
    let mut fork = m.fork();
    assert_eq!(fork.digest(), here);
    let name = fork.legal_moves().expect("moves")[0].name.clone();
    fork.play(&name).expect("plays");
    assert_ne!(fork.digest(), here);
    assert_eq!(m.digest(), here, "the match is as it was");
    assert!(fork.undo());
    assert_eq!(fork.digest(), here);
    assert_eq!(fork.moves_played(), 2);
}

/// Play until the game ends (at most `plies`), the move chosen by the ply's number.
fn play_out(m: &mut Match, plies: usize) {
    for ply in 0..plies {
        if m.outcome().is_some() {
            return;
        }
        let moves = m.legal_moves().expect("moves");
        if moves.is_empty() {
            return;
        }
        let chosen = &moves[(ply * 7 + 3) % moves.len()];
        m.play_index(chosen.index).expect("a legal move plays");
    }
}

#[test]
fn the_same_seed_gives_the_same_game_and_an_outcome() {
    let g = game("goofspiel");
    let (mut a, mut b) = (
        g.start_headless(9).expect("starts"),
        g.start_headless(9).expect("starts"),
    );
    play_out(&mut a, 2_000);
    play_out(&mut b, 2_000);
    assert_eq!(a.digest(), b.digest());
    let outcome = a
        .outcome()
        .unwrap_or_else(|| panic!("the game ended after {} moves", a.moves_played()));
    assert!(!outcome.is_empty());
}

#[test]
fn a_seat_sees_its_own_secret_and_no_one_else_does() {
    let mut m = game("goofspiel").start(0).expect("starts");
    let mine = m
        .legal_moves()
        .expect("moves")
        .into_iter()
        .find(|mv| mv.player.as_deref() == Some("0"))
        .expect("player 0 may bid");
    m.play(&mine.name).expect("the bid is kept");
    let card = mine.name.split(':').nth(1).expect("a bid names its card");
    let secret = format!("your bid: {card}");
    assert!(m.view(Some("0")).expect("view").svg().contains(&secret));
    assert!(!m.view(Some("1")).expect("view").svg().contains("your bid"));
    assert!(!m.view(None).expect("view").svg().contains("your bid"));
    // Only player 1 owes a bid now, and only its bids are offered.
    assert_eq!(m.players_to_move().expect("to-move"), ["1"]);
}

/// `no-legal-move` runs when the game is unfinished and no move is legal, after the move
/// that led there (here a pass, then a loss), and never in a game without `#actions`.
#[test]
fn no_legal_move_passes_then_ends_the_game() {
    const TOKENS: &str = r#"
#entity pile
  #property left 1
  #property turn 0
  #property passed false
  #state default
    #onMessage take
      (update property "left" to (- (property "left") 1))
      (update property "passed" to false)
    #onMessage pass
      (update property "passed" to true)
      (update property "turn" to (- 1 (property "turn")))
#instance pile of pile
#actions (if (> (property "left" of "pile") 0) (list (list "pile" (new message "take" with "name" "take"))) else (list))
#define to-move () (property "turn" of "pile")
; Nobody can take from an empty pile: the first time, the turn passes; the second, the
; player who passed last wins.
#define no-legal-move ()
  (if (property "passed" of "pile")
      (finish with "winner" (- 1 (property "turn" of "pile")))
      else (send new message "pass" to "pile"))
"#;
    let game = Game::from_source("tokens.fr", TOKENS).expect("loads");
    let mut m = game.start(0).expect("starts");
    assert_eq!(m.legal_moves().expect("moves").len(), 1);
    m.play("take").expect("the last token");
    let outcome = m.outcome().expect("no move is left: the game ends");
    assert!(
        outcome
            .iter()
            .any(|(k, v)| k == "winner" && *v == Value::Int(0)),
        "{outcome:?}"
    );
    assert_eq!(m.property("pile", "passed"), Some(Value::bool(true)));

    // A game without #actions has no moves to be without.
    let no_actions = TOKENS.replace("#actions", "#define unused ()");
    let game = Game::from_source("tokens.fr", &no_actions).expect("loads");
    let mut m = game.start(0).expect("starts");
    m.send("pile", "take", &[]).expect("commits");
    assert!(m.outcome().is_none());
}

#[test]
fn a_game_loads_again_from_its_files_held_in_memory() {
    // The files a game was read from, its rules files and parameters are plain data: they
    // load the same game where the disk does not have it (another process, machine).
    let root = env!("CARGO_MANIFEST_DIR");
    let played = |game: &Game| {
        let mut m = game.start(11).expect("starts");
        for _ in 0..12 {
            let moves = m.legal_moves().expect("moves");
            m.play(&moves[moves.len() / 2].name).expect("plays");
        }
        m.digest()
    };
    let original = Game::loader(format!("{root}/games/chess"))
        .rules(format!("{root}/games/chess/variants/atomic.fr"))
        .param("clock", "1")
        .load();
    // `clock` is not a chess parameter: refused when a match starts, in both.
    assert!(original.as_ref().is_ok_and(|g| g.start(1).is_err()));
    let original = Game::loader(format!("{root}/games/chess"))
        .rules(format!("{root}/games/chess/variants/atomic.fr"))
        .load()
        .expect("atomic chess loads");
    let files = original.files();
    assert!(files.iter().any(|(p, _)| p.ends_with("variants/atomic.fr")));
    let copy = Game::loader(original.path())
        .rules_files(original.rules_files())
        .files(files.clone())
        .load()
        .expect("loads from memory");
    assert_eq!(played(&original), played(&copy));
    assert_eq!(copy.files(), files);

    // A file missing from the set is an error naming it, not a read from the disk.
    let without: Vec<_> = files
        .into_iter()
        .filter(|(p, _)| !p.ends_with("variants/atomic.fr"))
        .collect();
    let Err(e) = Game::loader(original.path())
        .rules_files(original.rules_files())
        .files(without)
        .load()
    else {
        panic!("a missing rules file is refused");
    };
    assert!(e.to_string().contains("atomic.fr"), "{e}");
}

/// The matches of one game share its fast-tier bodies (and the machine code compiled for
/// them), also once they have asked whose turn it is: asking does not give a match a
/// game of its own.
#[test]
fn matches_of_one_game_share_its_fast_tier_bodies() {
    let chess = game("chess");
    let mut a = chess.start(0).expect("starts");
    let mut b = chess.start(1).expect("starts");
    for m in [&mut a, &mut b] {
        assert_eq!(m.players_to_move().expect("to-move"), ["white"]);
        let first = m.legal_moves().expect("moves")[0].name.clone();
        m.play(&first).expect("plays");
    }
    assert!(std::sync::Arc::ptr_eq(&a.session().game, &b.session().game));
    assert!(std::sync::Arc::ptr_eq(
        a.session().fast_table(),
        b.session().fast_table()
    ));
}
