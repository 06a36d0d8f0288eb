//! `flexrules board`: build a board from a description and show it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::board::{self, Board, BoardError, render};
use crate::diagnostic::{RenderConfig, closest, render as render_diagnostics};
use crate::source::{SourceMap, Span};

use super::stderr_color;

/// Arguments of `flexrules board`.
#[derive(clap::Args, Debug)]
pub struct BoardArgs {
    /// The board: an identification string (`8x8`, `10x8`, `6x6dc2s=`, `3x8x8`), a board
    /// file ending in `.xml` (BoardGame links or joChess), or `ring:<n>[:<prefix>]`.
    pub board: String,
    /// Print the cells met going from CELL in DIRECTION to the edge of the board.
    #[arg(long, num_args = 2, value_names = ["CELL", "DIRECTION"])]
    pub ray: Option<Vec<String>>,
    /// Write an SVG picture of the cells to this file.
    #[arg(long, value_name = "OUT")]
    pub svg: Option<PathBuf>,
    /// Name a grid's columns another way: `go` (a to z without i, as Go players do).
    #[arg(long, value_name = "NAMING")]
    pub named: Option<String>,
}

/// Where a board came from, for rendering its errors.
struct Described {
    sources: SourceMap,
    span: Span,
}

/// Run `flexrules board`.
pub fn run(args: &BoardArgs) -> ExitCode {
    let naming = match args.named.as_deref().map(board::Naming::from_name) {
        None => board::Naming::Letters,
        Some(Some(naming)) => naming,
        Some(None) => {
            eprintln!("error: --named takes `go` (the only naming besides the usual letters)");
            return ExitCode::from(2);
        }
    };
    let (built, described) = match build(&args.board, naming) {
        Ok(pair) => pair,
        Err(code) => return code,
    };
    let board = match built {
        Ok(board) => board,
        Err(e) => {
            report_error(&described, &e);
            return ExitCode::from(1);
        }
    };
    let ray = match args
        .ray
        .as_deref()
        .map(|ray| ray_line(&board, ray))
        .transpose()
    {
        Ok(ray) => ray,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    print!("{}", render::report(&board));
    if let Some(line) = ray {
        println!("\n{line}");
    }
    if let Some(out) = &args.svg {
        if let Err(e) = std::fs::write(out, render::svg(&board)) {
            eprintln!("error: cannot write {}: {e}", out.display());
            return ExitCode::from(2);
        }
        println!("\npicture written to {}", out.display());
    }
    ExitCode::SUCCESS
}

/// Build the board `description` names. `Err` is an exit code when the description cannot
/// even be read (a missing file, a bad ring size).
#[allow(clippy::type_complexity)]
fn build(
    description: &str,
    naming: board::Naming,
) -> Result<(Result<Board, BoardError>, Described), ExitCode> {
    let mut sources = SourceMap::new();
    if let Some(rest) = description.strip_prefix("ring:") {
        let (size, prefix) = rest.split_once(':').unwrap_or((rest, "c"));
        let Ok(size) = size.parse::<usize>() else {
            eprintln!("error: `{size}` is not a ring size; write ring:<n> or ring:<n>:<prefix>");
            return Err(ExitCode::from(2));
        };
        let file = sources.add("<ring>", description);
        let described = Described {
            sources,
            span: Span::new(file, 0..description.len()),
        };
        return Ok((board::ring(size, prefix), described));
    }
    if board::is_file(description) {
        let path = Path::new(description);
        let text = match crate::syntax::load::read_regular_file(path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: cannot read {description}: {e}");
                return Err(ExitCode::from(2));
            }
        };
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(description)
            .to_string();
        let built = board::from_xml(&text, &name);
        let file = sources.add(path, text);
        let described = Described {
            sources,
            span: Span::new(file, 0..0),
        };
        return Ok((built, described));
    }
    let file = sources.add("<identification>", description);
    let described = Described {
        sources,
        span: Span::new(file, 0..0),
    };
    Ok((
        board::from_identification_named(description, naming),
        described,
    ))
}

fn report_error(described: &Described, e: &BoardError) {
    let stderr = std::io::stderr();
    let mut out = stderr.lock();
    let _ = render_diagnostics(
        &described.sources,
        &[e.to_diagnostic(described.span)],
        RenderConfig {
            color: stderr_color(),
        },
        &mut out,
    );
}

/// `ray from <cell> <dir>: <cells>`, or why the cell or direction is unknown.
fn ray_line(board: &Board, ray: &[String]) -> Result<String, String> {
    let [cell, dir] = ray else {
        return Err("--ray takes a cell and a direction".into());
    };
    let c = board.cell_named(cell).ok_or_else(|| {
        let names: Vec<&str> = board.cells().map(|c| board.cell_name(c).as_str()).collect();
        unknown("cell", cell, names)
    })?;
    let d = board.direction_named(dir).ok_or_else(|| {
        let names: Vec<&str> = board
            .all_directions()
            .map(|d| board.dir_name(d).as_str())
            .collect();
        unknown("direction", dir, names)
    })?;
    let cells: Vec<&str> = board
        .ray(c, d)
        .into_iter()
        .map(|c| board.cell_name(c).as_str())
        .collect();
    Ok(if cells.is_empty() {
        format!("ray from {cell} {dir}: (no cell: the board ends there)")
    } else {
        format!("ray from {cell} {dir}: {}", cells.join(" "))
    })
}

fn unknown(what: &str, name: &str, known: Vec<&str>) -> String {
    match closest(name, known.iter().copied()) {
        Some(c) => format!("the board has no {what} `{name}`; did you mean `{c}`?"),
        None => {
            let shown: Vec<&str> = known.iter().copied().take(12).collect();
            let more = if known.len() > shown.len() {
                ", ..."
            } else {
                ""
            };
            format!(
                "the board has no {what} `{name}` (its {what}s: {}{more})",
                shown.join(", ")
            )
        }
    }
}
