//! `flexrules disasm`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::compile::listing::listing;

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
    match listing(&game, &sources, &args.bodies) {
        Some(text) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "error: no body's name contains {}",
                args.bodies
                    .iter()
                    .map(|b| format!("\"{b}\""))
                    .collect::<Vec<_>>()
                    .join(" or ")
            );
            eprintln!("hint: `flexrules disasm <game>` lists every body with its name");
            ExitCode::from(2)
        }
    }
}
