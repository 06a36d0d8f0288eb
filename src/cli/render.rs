//! `flexrules render`: draw a game's canvas, after some moves, as SVG or text.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use crate::runtime::canvas::View;
use crate::runtime::session::Session;

use super::game::{RunOptions, open, play_names, report};

/// What to draw the board as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum BoardFormat {
    /// An SVG document.
    #[default]
    Svg,
    /// Text for a terminal.
    Text,
}

/// Arguments of `flexrules render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The game and how to start it.
    #[command(flatten)]
    pub options: RunOptions,
    /// Actions to play first, by name: --play C,c,D.
    #[arg(long, value_delimiter = ',')]
    pub play: Vec<String>,
    /// Whose view: public (only public graphics) or a player id (public and that
    /// player's own).
    #[arg(long, default_value = "public")]
    pub view: String,
    /// SVG or text.
    #[arg(long, value_enum, default_value_t = BoardFormat::Svg)]
    pub format: BoardFormat,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Start watching `session` (its representations draw from now on); print a failure.
pub fn watch(session: &mut Session, sources: &crate::source::SourceMap) -> Result<(), ExitCode> {
    if !session.has_representations() {
        eprintln!("error: the game has no #representation, so there is nothing to draw");
        return Err(ExitCode::from(1));
    }
    match session.watch() {
        Ok(_) => Ok(()),
        Err(e) => {
            match e.to_diagnostic() {
                Some(d) => report(sources, &[d]),
                None => eprintln!("error: drawing the game failed: {}", e.message),
            }
            Err(ExitCode::from(1))
        }
    }
}

/// The canvas of `session` in `view` as `format`.
pub fn draw(session: &Session, view: &View, format: BoardFormat) -> String {
    match format {
        BoardFormat::Svg => crate::repr::svg::render(&session.world().canvas, view),
        BoardFormat::Text => crate::repr::text::render(&session.world().canvas, view),
    }
}

/// Run `flexrules render`.
pub fn run(args: &RenderArgs) -> ExitCode {
    let mut opened = match open(&args.options, false) {
        Ok(o) => o,
        Err(code) => return code,
    };
    if let Err(code) = watch(&mut opened.session, &opened.sources) {
        return code;
    }
    if let Err(e) = play_names(&mut opened.session, &opened.sources, &args.play) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    let mut text = draw(&opened.session, &View::parse(&args.view), args.format);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match &args.output {
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                ExitCode::from(2)
            }
        },
        None => {
            print!("{text}");
            ExitCode::SUCCESS
        }
    }
}
