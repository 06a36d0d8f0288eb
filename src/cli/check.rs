//! `flexrules check`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::compile::{BuildError, CheckOptions, Checked, build_game_with_rules, check_game};
use crate::diagnostic::{MAX_SHOWN, RenderConfig, not_shown, render, to_json};
use crate::syntax::load::DiskFs;

use super::{Format, stderr_color};

/// Arguments of `flexrules check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The game: a directory holding game.fr, or a .fr file.
    pub game: PathBuf,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// A rules file (variant, house rules) to check against the game, as `--rules` puts
    /// it in force for the other commands (repeatable, in order).
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<PathBuf>,
}

/// Run `flexrules check`.
pub fn run(args: &CheckArgs) -> ExitCode {
    let options = CheckOptions {
        lint_unused_patterns: true,
    };
    let Checked {
        loaded,
        mut diagnostics,
    } = match check_game(&DiskFs, &args.game, &options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut sources = loaded.sources;
    let mut files = sources.files().count();
    if !args.rules.is_empty() && !diagnostics.iter().any(|d| d.is_error()) {
        // The rules files are checked as --rules applies them: against the game, in order.
        // Only their own diagnostics are added (the game's are above, with the lints on).
        let base = files;
        let (rules_sources, found) = match build_game_with_rules(&DiskFs, &args.game, &args.rules) {
            Ok(built) => (built.sources, built.warnings),
            Err(BuildError::Errors(s, d)) => (s, d),
            Err(BuildError::Open(e)) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        sources = rules_sources;
        files = sources.files().count();
        diagnostics.extend(found.into_iter().filter(|d| d.span.file.0 as usize >= base));
    } else if !args.rules.is_empty() {
        eprintln!("note: the rules files are checked once the game itself has no error");
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    match args.format {
        Format::Human => {
            let _ = render(
                &sources,
                &diagnostics,
                RenderConfig {
                    color: stderr_color(),
                },
                &mut std::io::stderr().lock(),
            );
            // The summary is the command's result: standard output.
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let _ = if errors == 0 {
                writeln!(
                    out,
                    "{}: ok ({files} file{}, {warnings} warning{})",
                    args.game.display(),
                    plural(files),
                    plural(warnings)
                )
            } else {
                writeln!(
                    out,
                    "{}: {errors} error{}, {warnings} warning{}",
                    args.game.display(),
                    plural(errors),
                    plural(warnings)
                )
            };
        }
        Format::Json => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            for d in diagnostics.iter().take(MAX_SHOWN) {
                if let Ok(line) = serde_json::to_string(&to_json(&sources, d)) {
                    let _ = writeln!(out, "{line}");
                }
            }
            if let Some(line) = not_shown(&diagnostics) {
                eprintln!("{line}");
            }
        }
    }
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
