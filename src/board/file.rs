//! Board files, whichever their format: the root element tells which reader reads it.
//!
//! `<board>` is a BoardGame link file ([`super::boardgame`]), `<Board>` a joChess board
//! ([`super::jochess`]).

use super::error::BoardError;
use super::topology::Board;
use super::{boardgame, jochess, xml};

/// The board in a board file's text, whichever its format. `name` stands for the file in
/// messages when the board has no name of its own.
pub fn from_xml(text: &str, name: &str) -> Result<Board, BoardError> {
    let (doc, file) = xml::parse(text)?;
    let root = doc.root_element();
    match root.tag_name().name() {
        "board" => boardgame::read(&file, root),
        "Board" => jochess::read(&file, root, name),
        other => Err(file
            .error(
                root,
                format!("`<{other}>` is not a board format this program reads"),
            )
            .with_hint(
                "a BoardGame link file has the root `<board>`, a joChess board the root `<Board>`",
            )),
    }
}
