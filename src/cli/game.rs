//! Loading, checking and compiling a game for the commands that run one.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use crate::api;
use crate::compile::program::Game;
use crate::diagnostic::{Diagnostic, RenderConfig, render};
use crate::runtime::session::Session;
use crate::runtime::vm::{Limits, Tier};
use crate::source::SourceMap;

use super::stderr_color;

/// Options shared by every command that runs a game.
#[derive(clap::Args, Debug, Clone)]
pub struct RunOptions {
    /// The game: a directory holding game.fr, or a .fr file.
    pub game: std::path::PathBuf,
    /// How to start it.
    #[command(flatten)]
    pub start: StartOptions,
}

/// How to start a game: seed, parameters, limits, rules files.
#[derive(clap::Args, Debug, Clone)]
pub struct StartOptions {
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
    /// How deep values may nest (a list in a list ...); at most 1024, so printing,
    /// comparing and freeing a value always fit the stack.
    #[arg(long, default_value_t = Limits::default().max_nesting as u64,
          value_parser = clap::value_parser!(u64).range(2..=1024))]
    pub max_nesting: u64,
    /// Elements of one list or dictionary, bytes of one string.
    #[arg(long, default_value_t = Limits::default().max_length)]
    pub max_length: usize,
    /// Bytes of values, entities and graphics one transaction may make and of output it
    /// may buffer, each counted at about what it takes.
    #[arg(long, default_value_t = Limits::default().max_memory)]
    pub max_memory: u64,
    /// A rules file (variant, house rules) put in force after the game's own advice
    /// (repeatable, applied in order).
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<std::path::PathBuf>,
    /// Which tier runs the transactions: `interpreter` (the interpreter alone), `fast`
    /// (the bodies that can run on the fast tier do, the interpreter runs the rest), or
    /// `both` (each transaction the fast tier ran is run again on the interpreter and
    /// must give the same results: a check of the engine, which stops at the first
    /// difference). The default is `fast` where bodies are compiled to machine code (the
    /// `jit` feature, on by default), `interpreter` otherwise.
    #[arg(long, default_value = Tier::default().name(), value_parser = Tier::parse)]
    pub tier: Tier,
}

impl StartOptions {
    /// The limits of one transaction these options ask for.
    pub fn limits(&self) -> Limits {
        Limits {
            max_steps: self.max_steps,
            max_depth: self.max_depth,
            // At most 1024 (checked by the parser).
            max_nesting: usize::try_from(self.max_nesting).unwrap_or(1024),
            max_length: self.max_length,
            max_memory: self.max_memory,
        }
    }
}

/// A game ready to play, with its sources for diagnostics.
pub struct Opened {
    /// Every file read.
    pub sources: SourceMap,
    /// The game loaded.
    pub game: api::Game,
    /// The session after #setup.
    pub session: Session,
    /// The #setup transaction, if the game has one.
    pub setup: Option<crate::runtime::trace::Transaction>,
}

/// Print diagnostics on standard error.
pub fn report(sources: &SourceMap, diagnostics: &[Diagnostic]) {
    let _ = render(
        sources,
        diagnostics,
        RenderConfig {
            color: stderr_color(),
        },
        &mut std::io::stderr().lock(),
    );
}

/// Load, check, compile and start the game; on any problem print it and return the exit
/// code to use.
pub fn open(options: &RunOptions, trace: bool) -> Result<Opened, ExitCode> {
    let start = &options.start;
    let loader = api::Game::loader(&options.game)
        .rules_files(&start.rules)
        .params_text(&start.params)
        .limits(start.limits())
        .tier(start.tier);
    let game = load(loader)?;
    match game.start_session(start.seed, trace) {
        Ok((session, setup)) => Ok(Opened {
            sources: game.sources().clone(),
            game,
            session,
            setup,
        }),
        Err(e) => {
            eprint!("{}", e.render(game.sources(), stderr_color()));
            // A malformed or unknown --param is a wrong command line.
            Err(ExitCode::from(if e.is_usage() { 2 } else { 1 }))
        }
    }
}

/// Open the game and play the actions `names`, printing any problem (for `moves`, `perft`).
pub fn open_and_play(options: &RunOptions, names: &[String]) -> Result<Opened, ExitCode> {
    let mut opened = open(options, false)?;
    if let Err(e) = play_names(&mut opened.session, &opened.sources, names) {
        eprintln!("error: {e}");
        return Err(ExitCode::from(1));
    }
    Ok(opened)
}

/// Play the actions `names` in order; the error names the ply that could not be played and
/// says why.
pub fn play_names(
    session: &mut Session,
    sources: &SourceMap,
    names: &[String],
) -> Result<(), String> {
    for (ply, name) in names.iter().enumerate() {
        let a = session
            .playable(name)
            .map_err(|e| e.render(sources, stderr_color(), ply + 1))?;
        let tx = session.deliver(a.recipient, (*a.message).clone());
        if !tx.status.committed() {
            return Err(format!("ply {}: `{name}` {}", ply + 1, tx.status.summary()));
        }
    }
    Ok(())
}

/// Load the game; print its warnings, or the problem and return the exit code to use.
fn load(loader: api::Loader) -> Result<api::Game, ExitCode> {
    match loader.load() {
        Ok(game) => {
            // Warnings (a rules file's label no behaviour handles, ...) are shown, and
            // the game runs.
            if !game.warnings().is_empty() {
                report(game.sources(), game.warnings());
            }
            Ok(game)
        }
        Err(e) => {
            eprint!("{}", e.render(stderr_color()));
            Err(ExitCode::from(if e.is_usage() { 2 } else { 1 }))
        }
    }
}

/// Load, check and compile the game at `path` with the rules files `rules`.
pub fn load_game(
    path: &Path,
    rules: &[std::path::PathBuf],
) -> Result<(SourceMap, Arc<Game>), ExitCode> {
    let game = load(api::Game::loader(path).rules_files(rules))?;
    Ok((game.sources().clone(), game.compiled().clone()))
}
