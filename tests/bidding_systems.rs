//! Bidding systems (`src/play/system/`): malformed files refused with a diagnostic at the
//! place at fault, and the systems of `games/bridge/systems/` making the calls they
//! describe for given hands.
//!
//! Files under `inputs/bidding-systems/malformed/` must be refused; the snapshot is the
//! diagnostics rendered against the file (qualities checked against games/bridge's own).
//! After a change, run `INSTA_UPDATE=always cargo test --test bidding_systems` and read
//! them.

use std::path::Path;

use flexrules::api::{Game, Match};
use flexrules::diagnostic::render_plain;
use flexrules::play::agent::{Agent, Agents};
use flexrules::play::mcts::playout_with;
use flexrules::play::playout::Chooser;
use flexrules::play::system::{self, Memory, Qualities, System};
use flexrules::source::SourceMap;

const BRIDGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/games/bridge");

fn bridge(deal: Option<&str>) -> Match {
    let mut loader = Game::loader(BRIDGE);
    if let Some(d) = deal {
        loader = loader.param("deal", d);
    }
    let game = loader.load().expect("games/bridge loads");
    game.start_headless(1).expect("the deal starts")
}

fn bridge_qualities() -> Vec<String> {
    Qualities::of(&mut bridge(None)).names()
}

fn check_malformed(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut map = SourceMap::new();
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let file = map.add(name.as_ref(), text.as_str());
    let diagnostics = match system::parse(file, &text, &name) {
        Ok(s) => s.quality_diagnostics(file, &bridge_qualities()),
        Err(d) => d,
    };
    assert!(
        !diagnostics.is_empty(),
        "{} should be refused",
        path.display()
    );
    render_plain(&map, &diagnostics)
}

#[test]
fn malformed_systems() {
    insta::glob!("inputs/bidding-systems/malformed/*.xml", |path| {
        insta::assert_snapshot!(check_malformed(path));
    });
}

#[test]
fn bridge_defines_the_qualities() {
    let names = bridge_qualities();
    for q in [
        "points",
        "spades",
        "hearts",
        "diamonds",
        "clubs",
        "balanced",
        "partner-bid",
        "bids-so-far",
    ] {
        assert!(names.iter().any(|n| n == q), "no quality-{q}: {names:?}");
    }
}

fn load(name: &str) -> System {
    let path = format!("{BRIDGE}/systems/{name}");
    let s = system::load(Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
    s.check_qualities(&bridge_qualities())
        .unwrap_or_else(|e| panic!("{e}"));
    s
}

/// The call `system` makes for the seat to move after `calls`, and its comments.
fn call_of(system: &System, deal: &str, calls: &[&str]) -> (String, Vec<String>) {
    let mut m = bridge(Some(deal));
    for c in calls {
        m.play(c).unwrap_or_else(|e| panic!("{c}: {e:?}"));
    }
    let seat = m.players_to_move().expect("to-move")[0].clone();
    let legal: Vec<String> = m
        .legal_moves()
        .expect("moves")
        .into_iter()
        .map(|mv| mv.name)
        .collect();
    let qualities = Qualities::of(&mut m);
    let mut memory = Memory::new();
    let choice = system::choose(
        &mut m,
        system,
        &qualities,
        &seat,
        &mut memory,
        &mut |_, call| legal.iter().any(|l| l == call),
    )
    .expect("the qualities evaluate");
    match choice {
        Some(c) => (c.call, c.comments),
        None => ("Pass".to_string(), Vec::new()),
    }
}

const BALANCED_16: &str = "N:AK7.KJ2.QT94.K82 Q952.T74.K73.Q95 J84.A963.J62.J74 T63.Q85.A85.AT63";
const FIVE_SPADES_13: &str =
    "N:AKJ84.K72.Q3.932 Q73.Q95.AT74.KT6 T62.J84.K962.Q85 95.AT63.J85.AJ74";
const EIGHT_POINTS: &str = "N:KJ842.Q72.93.Q92 A95.K95.AJ74.K85 Q73.J84.KT62.J74 T6.AT63.Q85.AT63";

#[test]
fn natural_opens_and_responds() {
    let natural = load("natural.xml");
    let (call, comments) = call_of(&natural, BALANCED_16, &[]);
    assert_eq!(call, "1NT");
    assert!(
        comments.iter().any(|c| c.contains("15 to 17")),
        "{comments:?}"
    );
    assert_eq!(call_of(&natural, FIVE_SPADES_13, &[]).0, "1S");
    assert_eq!(call_of(&natural, EIGHT_POINTS, &[]).0, "Pass");
    // South: three spades and 6 points raises 1S to 2S.
    assert_eq!(call_of(&natural, FIVE_SPADES_13, &["1S", "Pass"]).0, "2S");
}

#[test]
fn weak_twos_open_a_six_card_major() {
    let weak = load("natural-weak-twos.xml");
    let six_spades = "N:KQT842.72.93.Q92 A95.K95.AJ74.K85 J73.J84.KT62.J74 6.AQT63.Q85.AT63";
    assert_eq!(call_of(&weak, six_spades, &[]).0, "2S");
    assert_eq!(call_of(&load("natural.xml"), six_spades, &[]).0, "Pass");
    assert_eq!(call_of(&weak, BALANCED_16, &[]).0, "1NT");
}

#[test]
fn system_agents_play_whole_deals() {
    let natural = Agent::parse(&format!("system:{BRIDGE}/systems/natural.xml")).expect("reads");
    let weak =
        Agent::parse(&format!("system:{BRIDGE}/systems/natural-weak-twos.xml")).expect("reads");
    for seed in 0..5 {
        let mut m = bridge(None);
        let players = vec![
            ("N".to_string(), natural.clone()),
            ("S".to_string(), natural.clone()),
            ("E".to_string(), weak.clone()),
            ("W".to_string(), weak.clone()),
        ];
        let agents = Agents::new(&mut m, players, Agent::Random).expect("agents");
        let mut movers = Default::default();
        let played = playout_with(
            &mut m,
            &agents,
            &mut Chooser::new(seed, 0),
            10_000,
            &mut movers,
        )
        .expect("the deal is played");
        assert!(played.plies >= 4, "{played:?}");
        assert!(m.finished());
    }
    // North opens 1NT (16, balanced); East (7 points, no opening) passes, South (7
    // points, short of an invitation) passes, and West (whose partner passed) too.
    let mut m = bridge(Some(BALANCED_16));
    let players = vec![
        ("N".to_string(), natural.clone()),
        ("E".to_string(), natural.clone()),
        ("S".to_string(), natural.clone()),
        ("W".to_string(), natural),
    ];
    let agents = Agents::new(&mut m, players, Agent::Random).expect("agents");
    let mut movers = Default::default();
    playout_with(
        &mut m,
        &agents,
        &mut Chooser::new(7, 0),
        10_000,
        &mut movers,
    )
    .expect("the deal is played");
    assert_eq!(
        m.property("game", "auction").map(|v| v.to_text()),
        Some("(\"1NT\" \"Pass\" \"Pass\" \"Pass\")".to_string())
    );
}

#[test]
fn an_unknown_quality_refuses_the_agent() {
    let dir = std::env::temp_dir().join(format!("flexrules-bidsys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("typo.xml");
    std::fs::write(
        &path,
        "<rules><group><purpose>p</purpose><if><name>pionts</name><comparison>equal</comparison><value>1</value><bid>1C</bid></if></group></rules>",
    )
    .expect("written");
    let agent = Agent::parse(&format!("system:{}", path.display())).expect("the file reads");
    let mut m = bridge(None);
    let e = Agents::new(&mut m, vec![("N".into(), agent)], Agent::Random)
        .expect_err("pionts is no quality");
    assert!(e.contains("no quality is named `pionts`"), "{e}");
    assert!(e.contains("did you mean `points`?"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
