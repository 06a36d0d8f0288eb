//! FEN from outside (games/chess's `fen` parameter and `set-position`): what standard chess
//! must not take is refused with an error naming the field, and crazyhouse still reads
//! pieces in hand.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `flexrules run games/chess` from `fen` (with `rules`, a variant's file), then `play`:
/// whether it succeeded, and standard output and error together.
fn run_chess(rules: Option<&str>, fen: &str, play: &str) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_flexrules"));
    command.current_dir(root()).args(["run", "games/chess"]);
    if let Some(r) = rules {
        command.args(["--rules", r]);
    }
    let out = command
        .args(["--param", &format!("fen=\"{fen}\""), "--play", play])
        .output()
        .expect("flexrules runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The FEN is refused with `says`, after `malformed FEN "<fen>": `.
fn refused(fen: &str, says: &str) {
    let (ok, text) = run_chess(None, fen, "e2e4");
    assert!(!ok, "{fen} was taken:\n{text}");
    assert!(
        text.contains(&format!("malformed FEN \"{fen}\": {says}")),
        "{fen}:\n{text}"
    );
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

#[test]
fn standard_chess_refuses_pieces_in_hand() {
    refused(
        &format!("{START}[Pp] w KQkq - 0 1"),
        "the placement has pieces in hand (\"[Pp]\"), which only a variant with drops (crazyhouse) has; remove the brackets",
    );
    refused(
        &format!("{START}[] w KQkq - 0 1"),
        "the placement has pieces in hand (\"[]\")",
    );
    refused(
        &format!("{START}/Pp w KQkq - 0 1"),
        "the placement has 9 ranks separated by '/', expected 8",
    );
}

#[test]
fn crazyhouse_reads_pieces_in_hand() {
    let (ok, text) = run_chess(
        Some("games/chess/variants/crazyhouse.fr"),
        &format!("{START}[Pp] w KQkq - 0 1"),
        "P@e4",
    );
    assert!(ok && text.contains("play P@e4: committed"), "{text}");
}

#[test]
fn a_rank_with_two_counts_in_a_row_is_refused() {
    refused(
        "rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rank 6 (\"44\") has two counts of empty squares in a row ('4' then '4'); write one count for the empty squares between two pieces",
    );
    refused(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB2NR w KQkq - 0 1",
        "rank 1 (\"RNB2NR\") has 7 squares, expected 8",
    );
    refused(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQK6 w KQkq - 0 1",
        "rank 1 (\"RNBQK6\") has more than 8 squares",
    );
}

#[test]
fn a_move_number_or_clock_that_would_overflow_is_refused() {
    refused(
        &format!("{START} w KQkq - 0 9223372036854775807"),
        "the move number is 9223372036854775807, more than 1000000, the most a position may have",
    );
    refused(
        &format!("{START} w KQkq - 9223372036854775807 1"),
        "the halfmove clock is 9223372036854775807, more than 1000000",
    );
    // The bound itself is a position (a halfmove clock that high ends it: fifty moves).
    let (ok, text) = run_chess(None, &format!("{START} w KQkq - 0 1000000"), "e2e4");
    assert!(ok && text.contains("play e2e4: committed"), "{text}");
}
