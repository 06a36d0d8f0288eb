//! `flexrules check`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::compile::{CheckOptions, Checked, check_game};
use crate::diagnostic::{RenderConfig, render, to_json};
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
}

/// Run `flexrules check`.
pub fn run(args: &CheckArgs) -> ExitCode {
    let options = CheckOptions {
        lint_unused_patterns: true,
    };
    let Checked {
        loaded,
        diagnostics,
    } = match check_game(&DiskFs, &args.game, &options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    match args.format {
        Format::Human => {
            let stderr = std::io::stderr();
            let mut out = stderr.lock();
            let _ = render(
                &loaded.sources,
                &diagnostics,
                RenderConfig {
                    color: stderr_color(),
                },
                &mut out,
            );
            let files = loaded.sources.files().count();
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
            for d in &diagnostics {
                if let Ok(line) = serde_json::to_string(&to_json(&loaded.sources, d)) {
                    let _ = writeln!(out, "{line}");
                }
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
