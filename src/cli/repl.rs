//! `flexrules repl`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::repl::{Repl, ReplOptions, plain, terminal};

use super::stderr_color;

/// Arguments of `flexrules repl`.
#[derive(clap::Args, Debug)]
pub struct ReplArgs {
    /// The game: a directory holding game.fr, or a .fr file (default: the bundled Awele).
    pub game: Option<PathBuf>,
    /// How to start it.
    #[command(flatten)]
    pub start: super::game::StartOptions,
    /// Bytes the positions kept for undo may take; past it the oldest are let go, and a
    /// move that alone takes more is refused.
    #[arg(long, default_value_t = crate::repl::history::DEFAULT_BUDGET)]
    pub max_history_memory: u64,
}

/// The game opened when none is named.
pub fn default_game() -> PathBuf {
    // From the checkout, the short path; from elsewhere, the path of the checkout it was
    // built from.
    let here = PathBuf::from("games").join(DEFAULT_GAME);
    if here.join("game.fr").exists() {
        here
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("games")
            .join(DEFAULT_GAME)
    }
}

/// The bundled game `flexrules repl` opens by default.
pub const DEFAULT_GAME: &str = "awele";

/// Run `flexrules repl`.
pub fn run(args: &ReplArgs) -> ExitCode {
    let interactive = std::io::stdin().is_terminal();
    let color = interactive && stderr_color();
    let options = ReplOptions {
        tier: args.start.tier,
        game: args.game.clone().unwrap_or_else(default_game),
        seed: args.start.seed,
        params: args.start.params.clone(),
        limits: args.start.limits(),
        rules: args.start.rules.clone(),
        color,
    };
    crate::repl::history::set_default_budget(args.max_history_memory);
    let mut repl = match Repl::new(options) {
        Ok(r) => r,
        Err(e) => {
            eprint!("{}", e.text);
            if !e.text.ends_with('\n') {
                eprintln!();
            }
            // A game that cannot be found or a wrong parameter is a wrong command line.
            return ExitCode::from(if e.usage { 2 } else { 1 });
        }
    };
    let result = if interactive {
        terminal::run(&mut repl, color)
    } else {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        plain::run(&mut repl, stdin.lock(), &mut stdout.lock()).map_err(|e| e.to_string())
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
