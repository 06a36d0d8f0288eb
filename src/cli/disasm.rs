//! `flexrules disasm`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::compile::listing::{listing, unmatched};
use crate::compile::program::Game;
use crate::runtime::profile::Profile;
use crate::source::SourceMap;

use super::game::load_game;

/// Arguments of `flexrules disasm`.
#[derive(clap::Args, Debug)]
pub struct DisasmArgs {
    /// The game: a directory holding game.fr, or a .fr file.
    pub game: PathBuf,
    /// Only the bodies whose name contains one of these (as `--profile` names them:
    /// `law Knight Moves`, `function add-targets`, `behaviour game/default/endOfTurn`,
    /// `actions`, ...).
    pub bodies: Vec<String>,
    /// A rules file (variant, house rules) to put in force first (repeatable, in order).
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<PathBuf>,
}

/// Run `flexrules disasm`.
pub fn run(args: &DisasmArgs) -> ExitCode {
    let (sources, game) = match load_game(&args.game, &args.rules) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    if let Err(code) = check_names(&game, &args.bodies) {
        return code;
    }
    let text = listing(&game, &sources, &args.bodies, None).unwrap_or_default();
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    ExitCode::SUCCESS
}

/// Whether each of `names` is part of some body's name; if not, the error is printed and
/// the exit status (2) returned.
pub fn check_names(game: &Game, names: &[String]) -> Result<(), ExitCode> {
    let missing: Vec<String> = unmatched(game, names)
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("error: no body's name contains {}", missing.join(" or "));
    eprintln!("hint: `flexrules disasm <game>` lists every body with its name");
    Err(ExitCode::from(2))
}

/// The listing of the bodies named by `names` with how many times each instruction ran in
/// `profile` (nothing when no name is given).
pub fn counted(game: &Game, sources: &SourceMap, names: &[String], profile: &Profile) -> String {
    if names.is_empty() {
        return String::new();
    }
    let runs = |code| profile.runs(code);
    let text = listing(game, sources, names, Some(&runs)).unwrap_or_default();
    format!("\ninstructions (after the steps, how many times each ran):\n{text}")
}
