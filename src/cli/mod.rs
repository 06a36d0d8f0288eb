//! The command line: argument parsing and the subcommands.
//!
//! Boundary: the only layer that prints, reads the environment or chooses exit codes.

pub mod board;
mod check;
mod disasm;
mod duplicate;
pub mod game;
pub mod play;
pub mod render;
pub mod repl;
pub mod run;
pub mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// flexrules: board games written as entities, behaviours, laws and side-effects.
#[derive(Parser, Debug)]
#[command(name = "flexrules", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How diagnostics are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source excerpts with the problem underlined (on standard error).
    #[default]
    Human,
    /// One JSON object per diagnostic, one per line (on standard output), for editors.
    Json,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Load a game and report every problem found before it runs.
    ///
    /// Reads the game (a directory holding game.fr, or a single .fr file), every file it
    /// includes and every law and side-effect file it binds, and checks them: syntax,
    /// unknown directives, duplicate definitions, inheritance, the targets of advice,
    /// unbound variables, unknown functions and argument counts. With --rules, each rules
    /// file is checked against the game as --rules would put it in force (the same checks
    /// and warnings as the game's own advice). Problems go to standard error, the summary
    /// line to standard output.
    ///
    /// Exit status: 0 when the game is clean (warnings allowed), 1 when it has errors,
    /// 2 when the command line is wrong or the game cannot be opened.
    Check(check::CheckArgs),
    /// Run a game: #setup, then each --send and each --play action as one transaction.
    ///
    /// Prints each transaction's result (committed, vetoed by <law>, rolled back: <reason>,
    /// or failed with the error and the chain of messages that led to it), and the outcome
    /// if the game finished. A --play name that cannot be played stops the script.
    ///
    /// Exit status: 0 when every transaction ran (committed, vetoed or rolled back); 1 when
    /// a transaction failed with an error, a --play name could not be played, or the game
    /// fails to load, check or start; 2 when the command line is wrong (a malformed --send,
    /// an unknown --param, a game that cannot be found).
    Run(run::RunArgs),
    /// Print the names of the legal actions, after playing the --play ones.
    ///
    /// An action is legal when delivering it commits, illegal when a law vetoes it or it
    /// rolls back. One that fails with a runtime error is a mistake in the rules: it is
    /// reported with its diagnostic (each distinct error once) and the exit status is 1.
    /// --explain gives every candidate's verdict. An unknown, illegal or failing name in
    /// --play is an error that gives the ply, says why and lists the legal names there.
    Moves(run::MovesArgs),
    /// Play interactively: send messages, step through them, change the rules mid-game.
    ///
    /// With no game it opens the bundled one. Type :help inside for the commands. When
    /// standard input is not a terminal, lines are read plainly (sessions can be piped).
    Repl(repl::ReplArgs),
    /// Play many random games and report win and draw rates with 95% confidence intervals.
    ///
    /// Game i of a run is seeded from --seed and i, so the results do not depend on --jobs.
    Playout(play::PlayoutArgs),
    /// Count the move sequences of each length up to a depth (after the --play moves), and
    /// how many of them finished the game.
    ///
    /// Candidates that fail with a runtime error are not counted; each distinct error is
    /// reported once and the exit status is 1.
    Perft(play::PerftArgs),
    /// Build a board and show it: its cells and links, its identification string, and the
    /// problems of its links.
    ///
    /// The board is an identification string (8x8, 6x6dc2s=, 3x8x8), a board file ending in
    /// .xml (BoardGame links or joChess), or ring:<n>[:<prefix>]. Exit status: 0 when the
    /// board builds (problems are warnings), 1 when its description is malformed, 2 when the
    /// command line is wrong or a file cannot be read or written.
    Board(board::BoardArgs),
    /// Draw a game's board (what its #representation draws) after some moves, as SVG or
    /// text, in the public view or one player's.
    Render(render::RenderArgs),
    /// Play in a web browser: serve the game on 127.0.0.1 with a link per seat.
    ///
    /// Prints one secret link per player (--seats, default 0,1) and one for watchers.
    /// Each browser sees the board in its own view (a player's private graphics go to
    /// that player only), plays by clicking or from the list of legal moves, takes moves
    /// back, travels through the history and changes the house rules. A game that defines
    /// the function `to-move` (no parameters, giving the player to move) gets its turns
    /// enforced: a seat out of turn is refused.
    Serve(serve::ServeArgs),
    /// Print the instructions each body of a game compiles to, with the steps each counts.
    ///
    /// Steps (what --max-steps limits and --profile counts) are instructions: each line
    /// gives an instruction's number, the instruction, how many steps it counts (a fused
    /// instruction stands for a sequence of plain ones) and its source line and column.
    /// Name bodies (any part of the name) to list only those. Exit status: 0 when
    /// something was listed, 1 when the game fails to load or check, 2 when the command
    /// line is wrong, the game cannot be found or no body has such a name.
    Disasm(disasm::DisasmArgs),
    /// A language server for editors (the Language Server Protocol on standard input and
    /// output): diagnostics as you type, hover, go to definition, completion, outline.
    ///
    /// Each document is checked with the game it belongs to (the game.fr in its directory
    /// or one above), or as a rules file against that game; see lang/editors/README.md.
    Lsp,
}

/// Run the command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(
        cli.command,
        Command::Repl(_) | Command::Serve(_) | Command::Lsp
    ) {
        quiet_broken_pipe();
    }
    let status = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Moves(args) => run::moves(&args),
        Command::Repl(args) => repl::run(&args),
        Command::Playout(args) => play::playout(&args),
        Command::Perft(args) => play::perft(&args),
        Command::Board(args) => board::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Disasm(args) => disasm::run(&args),
        Command::Lsp => match crate::lsp::run_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: flexrules lsp: {e}");
                ExitCode::from(1)
            }
        },
    };
    #[cfg(feature = "op-stats")]
    eprint!("{}", crate::runtime::opstats::report());
    status
}

/// Let a batch command whose output is piped into a reader that stops early (`| head`)
/// end quietly, as command-line tools do, instead of panicking on the closed pipe. The
/// REPL and the server keep Rust's default (a closed pipe is an error they handle): the
/// server's sockets must never end the process.
fn quiet_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE at start-up, before any thread
    // exists, affects nothing but what happens on a write to a closed pipe.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Whether to colour output written to standard error.
pub fn stderr_color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

/// Runtime error `e` as a JSON diagnostic (as `check --format json` writes one: its place,
/// hint, context and notes), for the `--json` documents; `None` when it has no place.
pub fn error_json(
    sources: &crate::source::SourceMap,
    e: &crate::runtime::trace::RuntimeError,
) -> Option<serde_json::Value> {
    let d = e.to_diagnostic()?;
    serde_json::to_value(crate::diagnostic::to_json(sources, &d)).ok()
}
