//! Profiles (`--profile`): every step of every transaction is charged to the body that
//! executed it, entries are counted once per run of a body, and profiling changes no
//! result, step count or count of perft. A profile also counts the transactions by how
//! they ended, the same on any number of threads.

#[path = "common/jochess.rs"]
mod jochess;

use flexrules::api::Match;
use flexrules::play::perft::perft_on_threads;
use std::path::Path;
use std::sync::Arc;

use flexrules::compile::build_game;
use flexrules::compile::program::Game;
use flexrules::runtime::outside::parse_send;
use flexrules::runtime::profile::{Profile, ProfileRow, Transactions};
use flexrules::runtime::session::{Session, SessionOptions};
use flexrules::runtime::trace::{Status, Transaction};
use flexrules::runtime::value::Value;
use flexrules::runtime::vm::Limits;
use flexrules::syntax::load::{DiskFs, MemoryFs};

/// Laws (one that vetoes), a behaviour calling a function in a loop and sending a nested
/// message, a behaviour that is one loop from its first instruction, side-effects (one
/// with a builtin that charges a step per element), a failure.
const GAME: &str = r#"
#define twice (x) (* x 2)
#entity node
  #property n 1
  #property count 0
  #state default
    #onMessage go
      (var i 0)
      (while (< i (attribute "k"))
        (do
          (update property "n" to (twice (property "n")))
          (var i (+ i 1))
        end))
      (if (= (attribute "k") 13) (+ 1 "thirteen"))
      (send new message "count" to "e1" with "to" 3)
      (property "n")
    #onMessage count
      (while (< (property "count") (attribute "to"))
        (update property "count" to (+ (property "count") 1)))
      (update property "count" to 0)

#instance e0 of node
#instance e1 of node

#law "Straight" on go to node in * is
  (var k (attribute "k"))
  (var m (+ k 1))
#law "Veto" on go to node in * is
  (if (< (attribute "k") 0) (return))
#sideeffect "Sum" on go to node in * is
  (var s (sum (range 40)))
"#;

const SENDS: [&str; 6] = [
    "go to e0 with k 3",
    "go to e0 with k 0",
    "go to e0 with k -1",
    "go to e0 with k 13",
    "go to e0 with k 5",
    "count to e1 with to 2",
];

fn game() -> Arc<Game> {
    let mut fs = MemoryFs::new();
    fs.insert("game.fr", GAME);
    build_game(&fs, Path::new("game.fr"))
        .expect("the game builds")
        .game
}

/// The transactions of `SENDS`, with the profile of them when `profiling`.
fn run(profiling: bool) -> (Vec<Transaction>, Option<Profile>, Arc<Game>) {
    run_within(profiling, Limits::default())
}

/// [`run`] with each transaction within `limits`.
fn run_within(profiling: bool, limits: Limits) -> (Vec<Transaction>, Option<Profile>, Arc<Game>) {
    let game = game();
    let (mut s, _) = Session::start(game.clone(), &SessionOptions::default()).expect("starts");
    s.limits = limits;
    s.set_profiling(profiling);
    let txs = SENDS
        .iter()
        .map(|send| {
            let (to, msg) = parse_send(send).expect("a send");
            s.deliver(to, msg)
        })
        .collect();
    (txs, s.take_profile(), game)
}

fn row<'a>(rows: &'a [ProfileRow], body: &str) -> &'a ProfileRow {
    rows.iter()
        .find(|r| r.body == body)
        .unwrap_or_else(|| panic!("no row for {body}: {rows:#?}"))
}

#[test]
fn every_step_is_charged_to_a_body() {
    let (txs, profile, _) = run(true);
    let profile = profile.expect("profiling");
    let steps: u64 = txs.iter().map(|t| t.steps).sum();
    assert_eq!(profile.total(), steps);
    // The sends end every way a transaction ends.
    assert!(txs.iter().any(|t| matches!(t.status, Status::Committed(_))));
    assert!(
        txs.iter()
            .any(|t| matches!(t.status, Status::Vetoed { .. }))
    );
    assert!(txs.iter().any(|t| matches!(t.status, Status::Failed(_))));
}

#[test]
fn profiling_changes_no_result() {
    let (profiled, _, _) = run(true);
    let (plain, none, _) = run(false);
    assert!(none.is_none());
    assert_eq!(profiled.len(), plain.len());
    for (a, b) in profiled.iter().zip(&plain) {
        assert_eq!(a.steps, b.steps);
        assert_eq!(a.output, b.output);
        assert_eq!(format!("{:?}", a.status), format!("{:?}", b.status));
    }
}

/// Under every step budget up to the longest transaction's steps, a transaction ends at
/// the same step, the same way, profiled or not, and the profile has every step.
#[test]
fn profiling_changes_no_step_budget() {
    let (txs, _, _) = run(false);
    let longest = txs.iter().map(|t| t.steps).max().unwrap_or(0);
    assert!(longest > 100, "{longest} steps");
    for max_steps in 1..=longest + 1 {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (profiled, profile, _) = run_within(true, limits);
        let (plain, _, _) = run_within(false, limits);
        for (a, b) in profiled.iter().zip(&plain) {
            assert_eq!(a.steps, b.steps, "within {max_steps} steps");
            assert_eq!(
                format!("{:?}", a.status),
                format!("{:?}", b.status),
                "within {max_steps} steps"
            );
        }
        let steps: u64 = profiled.iter().map(|t| t.steps).sum();
        assert_eq!(
            profile.map(|p| p.total()),
            Some(steps),
            "within {max_steps} steps"
        );
    }
}

#[test]
fn each_run_of_a_body_is_one_entry() {
    let (_, profile, game) = run(true);
    let rows = profile.expect("profiling").rows(&game);
    // Both laws see every `go`; the veto stops the third before the behaviour.
    assert_eq!(row(&rows, "law Straight").entries, 5);
    assert_eq!(row(&rows, "law Veto").entries, 5);
    assert_eq!(row(&rows, "behaviour node/default/go").entries, 4);
    // Called once per turn of the loop: 3 + 0 + 13 + 5.
    assert_eq!(row(&rows, "function twice").entries, 21);
    // The 13th fails before its side-effect and its nested send.
    assert_eq!(row(&rows, "side-effect Sum").entries, 3);
    // A body that is one loop from its first instruction: a turn back to its start is
    // not an entry (three nested sends and one from outside).
    assert_eq!(row(&rows, "behaviour node/default/count").entries, 4);
}

#[test]
fn a_body_without_jumps_counts_each_instruction_at_each_entry() {
    let (_, profile, game) = run(true);
    let rows = profile.expect("profiling").rows(&game);
    let code = game
        .codes
        .iter()
        .find(|c| &*c.name == "law Straight")
        .expect("the law's code");
    // Profiling runs every instruction plain: a fused one runs the first of its plain
    // sequence, which follows it in the code.
    let r = row(&rows, "law Straight");
    assert_eq!(r.steps, code.ops().len() as u64 * r.entries);
    // A builtin's steps beyond its instruction are its caller's: `sum` of 40 numbers.
    let sum = row(&rows, "side-effect Sum");
    assert!(sum.steps / sum.entries > 40, "{sum:?}");
}

#[test]
fn each_instruction_counts_its_runs() {
    let (_, profile, game) = run(true);
    let profile = profile.expect("profiling");
    let rows = profile.rows(&game);
    let id = |name: &str| {
        let i = game
            .codes
            .iter()
            .position(|c| &*c.name == name)
            .unwrap_or_else(|| panic!("no body {name}"));
        flexrules::compile::bytecode::CodeId(i as u32)
    };
    // A body without jumps: every instruction runs at every entry.
    let straight = profile.runs(id("law Straight"));
    let r = row(&rows, "law Straight");
    assert_eq!(straight.len(), game.code(id("law Straight")).ops().len());
    assert!(straight.iter().all(|&n| n == r.entries), "{straight:?}");
    // A body whose builtins count no more than their own step: its runs are its steps.
    let go = row(&rows, "behaviour node/default/go");
    let go_runs: u64 = profile.runs(id("behaviour node/default/go")).iter().sum();
    assert_eq!(go_runs, go.steps);
    // A builtin's work is the body's steps, not an instruction's runs.
    let sum = row(&rows, "side-effect Sum");
    let sum_runs: u64 = profile.runs(id("side-effect Sum")).iter().sum();
    assert!(sum_runs < sum.steps, "{sum_runs} runs, {sum:?}");
    // A loop's test runs once more than its body: the function is called 21 times and
    // the loop's first instruction in `go` at least as often.
    let twice: u64 = profile.runs(id("function twice"))[0];
    assert_eq!(twice, 21);
}

fn chess() -> Session {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/chess");
    let built = build_game(&DiskFs, &dir.join("game.fr")).expect("chess builds");
    Session::start(built.game, &SessionOptions::default())
        .expect("chess starts")
        .0
}

#[test]
fn a_perft_profile_is_the_same_on_any_number_of_threads() {
    let mut plain = chess();
    let counts = Match::around(&mut plain, |m| perft_on_threads(m, 3, 1, &mut |_| {}));
    let mut rows = Vec::new();
    let mut runs = Vec::new();
    for jobs in [1, 2, 3] {
        let mut s = chess();
        s.set_profiling(true);
        let perft = Match::around(&mut s, |m| perft_on_threads(m, 3, jobs, &mut |_| {}));
        assert_eq!(perft, counts, "{jobs} threads");
        let profile = s.take_profile().expect("profiling");
        rows.push(profile.rows(&s.game));
        runs.push(
            (0..s.game.codes.len())
                .map(|i| {
                    profile
                        .runs(flexrules::compile::bytecode::CodeId(i as u32))
                        .to_vec()
                })
                .collect::<Vec<_>>(),
        );
    }
    assert!(rows[0].len() > 20);
    assert_eq!(rows[0], rows[1]);
    assert_eq!(rows[0], rows[2]);
    // And so are the runs of each instruction.
    assert!(runs[0].iter().any(|r| !r.is_empty()));
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
    // The move behaviour runs for the 9,322 legal moves and for the 20 that a
    // side-effect rolls back (they leave the king in check).
    assert_eq!(
        row(&rows[0], "behaviour square/default/move").entries,
        20 + 400 + 8902 + 20
    );
}

/// The standard output of `flexrules playout` on Awele with `args`.
fn playout_profile(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args([
            "playout",
            "games/awele",
            "-n",
            "12",
            "--seed",
            "9",
            "--profile",
        ])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("flexrules runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("text")
}

/// The lines after the first (which has the time taken).
fn untimed(text: &str) -> String {
    text.lines().skip(1).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_playout_profile_is_the_same_on_any_number_of_threads() {
    let one = untimed(&playout_profile(&["--jobs", "1"]));
    assert!(one.contains("steps by body"), "{one}");
    assert!(one.contains("behaviour hole/default/seed"), "{one}");
    assert_eq!(one, untimed(&playout_profile(&["--jobs", "3"])));
    // The JSON summary has the same bodies; without --profile it has no profile.
    let json = playout_profile(&["--json"]);
    assert!(
        json.contains("\"body\":\"behaviour hole/default/seed\""),
        "{json}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(["playout", "games/awele", "-n", "2", "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("flexrules runs");
    let plain = String::from_utf8(out.stdout).expect("text");
    assert!(
        plain.contains("\"games\":2") && !plain.contains("profile"),
        "{plain}"
    );
}

/// What `playout <game> -n 6 --seed 3 --profile` prints on `jobs` threads, but its first
/// line (the time it took).
fn game_profile(game: &[&str], jobs: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .arg("playout")
        .args(game)
        .args(["-n", "6", "--seed", "3", "--profile", "--jobs", jobs])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("flexrules runs");
    assert!(out.status.success(), "{game:?}: {out:?}");
    untimed(&String::from_utf8(out.stdout).expect("text"))
}

/// Every bundled game counts the same steps in each body on one thread as on three: a
/// thread's copy of a session is the same session in everything the machine counts by
/// (a list's depth bound among them: a copy that lost it walked the list at its first
/// `append`, and chess's candidates, made once and appended at every move, showed it).
#[test]
fn every_bundled_games_playout_profile_is_the_same_on_any_number_of_threads() {
    let games = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("games"))
        .expect("games/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("game.fr").exists())
        .map(|e| format!("games/{}", e.file_name().to_string_lossy()))
        .collect::<Vec<_>>();
    assert!(games.len() >= 8, "{games:?}");
    // joChess on its three-player board (from ../shared/jochess).
    let board = format!("board={}", jochess::board_file("3PlayerBoard").display());
    for game in &games {
        // Go on its smallest board: the same code, a tenth of the moves.
        let args: Vec<&str> = if game.ends_with("/go") {
            vec![game, "--param", "size=9"]
        } else if game.ends_with("/jochess") {
            vec![game, "--param", &board]
        } else {
            vec![game]
        };
        let one = game_profile(&args, "1");
        assert!(one.contains("steps by body"), "{game}: {one}");
        assert_eq!(one, game_profile(&args, "3"), "{game}");
    }
}

/// A session of `tests/inputs/profile/endings`, whose candidates end every way a
/// transaction ends.
fn endings() -> Session {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/profile/endings");
    let built = build_game(&DiskFs, &dir.join("game.fr")).expect("the game builds");
    Session::start(built.game, &SessionOptions::default())
        .expect("the game starts")
        .0
}

#[test]
fn transactions_are_counted_by_how_they_end_on_any_number_of_threads() {
    // Four positions (the start and the three moves that commit), each with nine
    // transactions: #actions, then "ok", "say", "ask" (committed), "no", "long" (vetoed),
    // "back" (rolled back), "bad" (failed) and "hold" (waiting). The three legal first
    // moves are made again to follow them: three more committed. Each "ask" (four tried,
    // one made again) asks which "ok" moves are legal: #actions and "ok" tried, committed.
    let expected = Transactions {
        committed: 4 * 4 + 3 + 5 * 2,
        vetoed: 4 * 2,
        rolled_back: 4,
        failed: 4,
        waiting: 4,
        // "long"'s law: 20,000 turns of nine steps, and ten more.
        longest: 180_010,
        // "say" sends "tally", whose behaviour calls `inc`.
        deepest_sends: 2,
        deepest_frames: 3,
        // "long", once in each position.
        checked: 4,
        // "say", four times tried and once made again.
        printing: 5,
        asked: 10,
    };
    for jobs in [1, 2] {
        let mut s = endings();
        s.set_profiling(true);
        let perft = Match::around(&mut s, |m| perft_on_threads(m, 2, jobs, &mut |_| {}));
        assert_eq!(perft.counts, vec![3, 9], "{jobs} threads");
        let profile = s.take_profile().expect("profiling");
        assert_eq!(*profile.transactions(), expected, "{jobs} threads");
        assert_eq!(profile.transactions().total(), 49);
    }
}

#[test]
fn a_transaction_that_waits_is_counted_once_as_waiting() {
    let mut s = endings();
    s.set_profiling(true);
    let (to, msg) = parse_send("hold to g").expect("a send");
    // Answered, it goes on and commits; still one transaction, which waited.
    let (tx, wait) = s.deliver_answering(to, std::rc::Rc::new(msg), &[Value::str("go")]);
    assert!(tx.status.committed(), "{:?}", tx.status);
    assert!(wait.is_none());
    let (to, msg) = parse_send("say to g").expect("a send");
    assert!(s.deliver(to, msg).status.committed());
    let t = *s.take_profile().expect("profiling").transactions();
    assert_eq!((t.waiting, t.committed, t.total()), (1, 1, 2), "{t:?}");
    assert_eq!((t.printing, t.checked, t.asked), (1, 0, 0), "{t:?}");
}

#[test]
fn the_transactions_are_printed_after_the_profile() {
    let text = untimed(&playout_profile(&["--jobs", "1"]));
    let last = text.lines().last().unwrap_or_default();
    assert!(last.starts_with("transactions: "), "{text}");
    assert!(
        last.contains("; reaching a step check: 0; printing or notifying: "),
        "{last}"
    );
    let json = playout_profile(&["--json"]);
    assert!(json.contains("\"transactions\":{"), "{json}");
    assert!(json.contains("\"reaching_step_check\":0"), "{json}");
}
