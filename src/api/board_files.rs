//! Board files named by parameters: `--param board=<file>.xml` for a game whose `#board`
//! is computed when it starts (`#board (param "board") of position`).
//!
//! Such a file is the user's choice, as a `--rules` file is: it may lie anywhere, relative
//! to the current directory, and it is read and built once, when the game is loaded, so
//! its mistakes are diagnostics with the file's line and column and every match of the
//! game shares the board. A game's own files are named by literal `#board`s instead.

use std::path::Path;
use std::sync::Arc;

use crate::board::{self, Board};
use crate::compile::program;
use crate::runtime::outside::parse_literal;
use crate::runtime::value::Value;
use crate::source::{SourceMap, Span};
use crate::syntax::load::FileSystem;

use super::error::LoadError;

/// The boards of the parameters in `params` that name a board file (`.xml`), for a game
/// with a board computed at start and a `#param` of that name; their files are added to
/// `sources`. A file with errors is refused with them; the warnings of the link format's
/// conditions (which joChess's files, for one, do not claim to keep) are left to
/// `flexrules board <file>`.
pub(super) fn read(
    game: &program::Game,
    params: &[(String, String)],
    sources: &mut SourceMap,
    fs: &dyn FileSystem,
) -> Result<Vec<(String, Arc<Board>)>, LoadError> {
    let mut out: Vec<(String, Arc<Board>)> = Vec::new();
    if game.late_boards.is_empty() {
        return Ok(out);
    }
    for (name, text) in params {
        if !game.params.iter().any(|p| p.name.as_str() == name) {
            continue;
        }
        let Value::Str(value) = parse_literal(text) else {
            continue;
        };
        let path = value.as_str();
        if !board::is_file(path) || out.iter().any(|(p, _)| p == path) {
            continue;
        }
        let contents = (fs.read(Path::new(path)))
            .map_err(|e| LoadError::Open(format!("--param {name}={path}: {e}")))?;
        let file = sources.add(path, contents.as_str());
        let whole = Span::new(file, 0..0);
        let stem = Path::new(path)
            .file_stem()
            .map_or("board".into(), |s| s.to_string_lossy().into_owned());
        let built = board::from_xml(&contents, &stem).map_err(|e| LoadError::Invalid {
            sources: sources.clone(),
            diagnostics: vec![e.to_diagnostic(whole)],
        })?;
        out.push((path.to_string(), Arc::new(built)));
    }
    Ok(out)
}
