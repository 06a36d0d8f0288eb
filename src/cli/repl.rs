//! `flexrules repl`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::repl::{Repl, ReplOptions, plain, terminal};
use crate::runtime::vm::Limits;

use super::stderr_color;

/// Arguments of `flexrules repl`.
#[derive(clap::Args, Debug)]
pub struct ReplArgs {
    /// The game: a directory holding game.fr, or a .fr file (default: the bundled Awele).
    pub game: Option<PathBuf>,
    /// Seed of the random generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Override a #param: --param name=value (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Instructions one transaction may execute before it fails.
    #[arg(long, default_value_t = Limits::default().max_steps)]
    pub max_steps: u64,
    /// Nested sends and calls one transaction may have open before it fails.
    #[arg(long, default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// A rules file (variant, house rules) put in force after the game's own advice
    /// (repeatable).
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<PathBuf>,
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
        game: args.game.clone().unwrap_or_else(default_game),
        seed: args.seed,
        params: args.params.clone(),
        limits: Limits {
            max_steps: args.max_steps,
            max_depth: args.max_depth,
        },
        rules: args.rules.clone(),
        color,
    };
    let mut repl = match Repl::new(options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
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
