//! Tests of [`Command`]: every kind of line reads and is written back, and every malformed
//! one is refused with the REPL's answer.

use super::kind::WORDS;
use super::*;

/// Lines written back exactly as typed: every command in its usual form, and the journaled
/// ones with the blanks a journal keeps.
const EXACT: &[&str] = &[
    "send go to top with amount 1",
    "send  go to top",
    "(+ 1 2)",
    "(print \"a\"\n  \"b\")",
    ":help",
    ":help play",
    ":help :play",
    ":quit",
    ":step send go to top",
    ":step (+ 1 2)",
    ":step :play e2e4",
    ":step :play",
    ":step e2e4",
    ":step send",
    ":next",
    ":continue",
    ":abort",
    ":trace",
    ":trace on",
    ":trace off",
    ":profile",
    ":profile on",
    ":profile off",
    ":disasm Knight Moves",
    ":entities",
    ":show",
    ":show top",
    ":show \"top\"",
    ":advice top go open",
    ":laws",
    ":law \"No Sixes\" on go to hole in * is (return)",
    ":law  on go to hole in * is (return)",
    ":law\ton go to hole in * is\n  (return)",
    ":law",
    ":sideeffect on go to hole in * is \"effects/log.fr\"",
    ":rules variants/house.fr",
    ":rules   variants/house.fr",
    ":disable No Sixes",
    ":disable \"No Sixes\"",
    ":enable  No Sixes",
    ":remove\tNo Sixes",
    ":undo",
    ":redo",
    ":history",
    ":goto 0",
    ":goto 12",
    ":checkpoints",
    ":moves",
    ":play e2e4",
    ":play",
    ":why e2e4",
    ":why",
    ":why send go to top with amount 1",
    ":why send",
    ":random 1",
    ":random 0",
    ":random 25",
    ":agent",
    ":agent off",
    ":agent 0=mcts",
    ":agent \"south\"=mcts:200:40",
    ":agent 1=off",
    ":agent 1=",
    ":hint 1000",
    ":hint 1",
    ":save game.journal",
    ":save \"my game.journal \"",
    ":save \"",
    ":load game.journal",
    ":sgf load games/go/records/a.sgf",
    ":sgf save out.sgf",
    ":signal choose",
    ":signal choose 7",
    ":signal choose \"left\"",
    ":signal choose   7",
    ":signal choose\t7 8",
    ":board",
    ":board 0",
    ":board on",
    ":board off",
    ":click e2 square",
    ":reload",
];

#[test]
fn lines_are_written_back_as_typed() {
    for line in EXACT {
        let command = Command::parse(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(command.to_string(), *line, "{command:?}");
        assert_eq!(Command::parse(&command.to_string()), Ok(command));
    }
}

#[test]
fn every_kind_is_covered() {
    let mut kinds: Vec<Kind> = EXACT
        .iter()
        .map(|l| Command::parse(l).unwrap().kind())
        .collect();
    kinds.dedup();
    for (_, kind) in WORDS {
        assert!(kinds.contains(kind), "no line of {kind:?}");
    }
    assert!(kinds.contains(&Kind::Send) && kinds.contains(&Kind::Expression));
}

/// Lines read the same as another: short forms, and blanks a journal does not keep.
#[test]
fn other_forms_read_as_the_usual_one() {
    for (line, usual) in [
        ("  :play e2e4  ", ":play e2e4"),
        (":play   e2e4", ":play e2e4"),
        (":h", ":help"),
        (":? step", ":help step"),
        (":q", ":quit"),
        (":exit", ":quit"),
        (":quit now", ":quit"),
        (":n", ":next"),
        (":c", ":continue"),
        (":undo please", ":undo"),
        (":trace maybe", ":trace"),
        (":disasm \"Knight Moves\"", ":disasm Knight Moves"),
        (":step :playe2e4", ":step :play e2e4"),
        (":step   :play   e2e4", ":step :play e2e4"),
        (":click  e2   square", ":click e2 square"),
        (":advice top  go\topen", ":advice top go open"),
        (":random", ":random 1"),
        (":hint", ":hint 1000"),
        (":goto +3", ":goto 3"),
        (":agent 0 = mcts", ":agent 0=mcts"),
        (":agent 0= off", ":agent 0=off"),
        (":save \"game.journal\"", ":save game.journal"),
        (":sgf save   out.sgf", ":sgf save out.sgf"),
        (":signal   choose 7", ":signal choose 7"),
        (":board  on", ":board on"),
    ] {
        let command = Command::parse(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(command.to_string(), usual, "{line:?}");
        assert_eq!(Command::parse(usual), Ok(command), "{line:?}");
    }
}

#[test]
fn fields_are_typed() {
    let parse = |line| Command::parse(line).unwrap();
    assert_eq!(
        parse(":click e2 square"),
        Command::Click {
            owner: "e2".into(),
            graphic: "square".into()
        }
    );
    assert_eq!(parse(":goto 4"), Command::Goto(4));
    assert_eq!(
        parse(":signal choose  \"left\""),
        Command::Signal {
            name: "choose".into(),
            gap: Gap::typed("  "),
            tag: Some("\"left\"".into()),
        }
    );
    assert_eq!(
        parse(":agent 1=off"),
        Command::Agent(Seats::Set {
            player: "1".into(),
            agent: None
        })
    );
    assert_eq!(
        parse(":sgf save a.sgf"),
        Command::Sgf {
            save: true,
            path: "a.sgf".into()
        }
    );
    assert_eq!(
        parse(":disable \"No Sixes\""),
        Command::Disable {
            gap: Gap::ONE,
            name: "\"No Sixes\"".into()
        }
    );
    // A command a program makes is written with one space.
    let made = Command::Law {
        gap: Gap::default(),
        definition: "on go to top in * is (return)".into(),
    };
    assert_eq!(made.to_string(), ":law on go to top in * is (return)");
}

#[test]
fn malformed_lines_are_refused_with_the_repl_answer() {
    let usage = |line: &str, kind: Option<Kind>, message: &str| {
        assert_eq!(
            Command::parse(line),
            Err(ParseError {
                kind,
                message: message.to_string()
            }),
            "{line:?}"
        );
    };
    usage(
        "hello there",
        None,
        "error: `hello` is neither a command (:help), a send (send <label> to <entity> ...) nor an expression in parentheses",
    );
    usage(
        "send",
        None,
        "error: `send` is neither a command (:help), a send (send <label> to <entity> ...) nor an expression in parentheses",
    );
    usage(
        "; a comment",
        None,
        "error: `;` is neither a command (:help), a send (send <label> to <entity> ...) nor an expression in parentheses",
    );
    usage(
        ":histroy",
        None,
        "error: unknown command :histroy; did you mean :history?",
    );
    usage(
        ":frobnicate",
        None,
        "error: unknown command :frobnicate; :help lists the commands",
    );
    usage(":step", Some(Kind::Step), STEP_USAGE);
    usage(
        ":profile maybe",
        Some(Kind::Profile),
        "usage: :profile on|off, and :profile to show the counts",
    );
    usage(
        ":disasm \"\"",
        Some(Kind::Disasm),
        "usage: :disasm <name> (any part of a body's name, as :profile shows it)",
    );
    usage(
        ":advice top go",
        Some(Kind::Advice),
        "usage: :advice <entity> <label> <state>",
    );
    usage(":rules", Some(Kind::Rules), "usage: :rules <file>");
    for (word, kind) in [
        ("disable", Kind::Disable),
        ("enable", Kind::Enable),
        ("remove", Kind::Remove),
    ] {
        usage(
            &format!(":{word}"),
            Some(kind),
            &format!("usage: :{word} <name> (:laws lists them)"),
        );
    }
    for n in [":goto", ":goto x", ":goto -1"] {
        usage(
            n,
            Some(Kind::Goto),
            "usage: :goto <n> (:history numbers the changes)",
        );
    }
    usage(":random x", Some(Kind::Random), "usage: :random [<n>]");
    usage(
        ":agent mcts",
        Some(Kind::Agent),
        "usage: :agent [<player>=<agent> | <player>=off | off]",
    );
    for n in [":hint 0", ":hint x", ":hint 100001"] {
        usage(
            n,
            Some(Kind::Hint),
            "usage: :hint [<iterations>] (1 to 100000)",
        );
    }
    usage(":save", Some(Kind::Save), "usage: :save <file>");
    usage(":save \"\"", Some(Kind::Save), "usage: :save <file>");
    usage(":load", Some(Kind::Load), "usage: :load <file>");
    for sgf in [":sgf", ":sgf load", ":sgf open a.sgf"] {
        usage(
            sgf,
            Some(Kind::Sgf),
            "usage: :sgf load <file>  or  :sgf save <file>",
        );
    }
    usage(
        ":signal",
        Some(Kind::Signal),
        "usage: :signal <name> [<tag>]",
    );
    for click in [":click", ":click e2", ":click e2 square extra"] {
        usage(click, Some(Kind::Click), "usage: :click <entity> <graphic>");
    }
}

#[test]
fn kinds_say_what_runs_while_pending_and_what_a_journal_holds() {
    let kind = |line| Command::parse(line).unwrap().kind();
    assert!(kind(":show top").runs_while_pending());
    assert!(kind(":signal choose 7").runs_while_pending());
    assert!(!kind(":play e2e4").runs_while_pending());
    assert!(kind(":play e2e4").journaled());
    assert!(kind("(+ 1 2)").journaled());
    assert!(kind(":disable x").journaled());
    assert!(!kind(":save a.journal").journaled());
    assert!(!kind(":load a.journal").journaled());
    assert!(!kind(":step :play e2e4").journaled());
}
