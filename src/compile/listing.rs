//! A readable listing of the instructions a game's bodies compile to.
//!
//! Steps, the unit of step budgets and of `--profile`, are instructions: a listing shows
//! what each step of a body is, how many steps each instruction counts (a fused one stands
//! for several plain ones) and the source line it came from.

use std::fmt::Write as _;

use super::builtins::BUILTINS;
use super::bytecode::{Code, CodeId, Op};
use super::program::Game;
use crate::source::SourceMap;

/// How many times each instruction of a body ran, by its place, when a listing shows
/// them beside the instructions (a profile's counts): `None` for no column.
pub type Runs<'a> = Option<&'a dyn Fn(CodeId) -> &'a [u64]>;

/// The listing of every body of `game` whose name contains one of `filters` (every body
/// when there is none), in the order they were compiled, with how many times each
/// instruction ran when `runs` gives it; `None` when no body matches.
pub fn listing(
    game: &Game,
    sources: &SourceMap,
    filters: &[String],
    runs: Runs<'_>,
) -> Option<String> {
    let mut out = String::new();
    let mut listed = 0;
    for (id, code) in game
        .codes
        .iter()
        .enumerate()
        .filter(|(_, c)| filters.is_empty() || filters.iter().any(|f| named(c, f)))
    {
        if listed > 0 {
            out.push('\n');
        }
        let ran = runs.map(|r| r(CodeId(id as u32)));
        list_code(game, sources, code, ran, &mut out);
        listed += 1;
    }
    (listed > 0).then_some(out)
}

/// Whether `name` is part of body `code`'s name (as a profile shows it).
fn named(code: &Code, name: &str) -> bool {
    code.name.contains(name)
}

/// The names of `names` that are part of no body's name.
pub fn unmatched<'a>(game: &Game, names: &'a [String]) -> Vec<&'a str> {
    names
        .iter()
        .map(String::as_str)
        .filter(|n| !game.codes.iter().any(|c| named(c, n)))
        .collect()
}

/// One body: a heading (its name, where it is defined or bound), its local slots with the
/// variable each holds (parameters first), then an instruction a line (number, instruction, steps, source line and column, the file too
/// where it changes), then a count.
///
/// A fused instruction (more than one step) is followed by the rest of the plain sequence
/// it stands for, which runs in its place when its fast case does not apply (or when a
/// jump lands in it): those instructions are indented under it. (A fused jump counts the
/// instruction it lands on, which it does not run.)
fn list_code(game: &Game, sources: &SourceMap, code: &Code, ran: Option<&[u64]>, out: &mut String) {
    let _ = writeln!(
        out,
        "{} ({})",
        code.name,
        place(sources, code.span.file, code.span.range().start, true),
    );
    let slots: Vec<String> = (0..usize::from(code.locals))
        .map(|i| match code.local_names.get(i) {
            Some(name) => format!("{i} {name}"),
            None => i.to_string(),
        })
        .collect();
    let p = usize::from(code.params).min(slots.len());
    let mut parts = Vec::new();
    if p > 0 {
        let s = if p == 1 { "" } else { "s" };
        parts.push(format!("{} (parameter{s})", slots[..p].join(", ")));
    }
    if p < slots.len() {
        parts.push(slots[p..].join(", "));
    }
    if parts.is_empty() {
        parts.push("none".into());
    }
    let _ = writeln!(out, "  locals: {}", parts.join(", "));
    // Where the plain sequence of each enclosing fused instruction ends (exclusive).
    let mut enclosing: Vec<usize> = Vec::new();
    let mut file = code.span.file;
    for (i, (op, span)) in code.ops.iter().zip(&code.spans).enumerate() {
        enclosing.retain(|&end| end > i);
        let weight = op.weight();
        let text = format!(
            "{:width$}{}",
            "",
            describe(game, op),
            width = 2 * enclosing.len()
        );
        let at = place(sources, span.file, span.range().start, span.file != file);
        file = span.file;
        let _ = match ran {
            Some(ran) => {
                let n = ran.get(i).copied().unwrap_or(0);
                writeln!(out, "  {i:>4}  {text:<52} {weight:>2} {n:>12}  {at}")
            }
            None => writeln!(out, "  {i:>4}  {text:<52} {weight:>2}  {at}"),
        };
        if op.rest_after() > 0 {
            enclosing.push(i + 1 + op.rest_after());
        }
    }
    let n = code.ops.len();
    let _ = writeln!(out, "  {n} instruction{}", if n == 1 { "" } else { "s" });
}

/// `line:column` of `offset` in `file`, after the file's path when `with_file` (`?` for a
/// file `sources` does not have: code made where no file was read).
fn place(
    sources: &SourceMap,
    file: crate::source::FileId,
    offset: usize,
    with_file: bool,
) -> String {
    let Some((_, f)) = sources.files().find(|(id, _)| *id == file) else {
        return "?".into();
    };
    let (line, col) = f.line_col(offset);
    if with_file {
        format!("{}:{line}:{col}", f.path.display())
    } else {
        format!("{line}:{col}")
    }
}

/// An instruction as the listing shows it: as its variant is written in the source of the
/// compiler, with the builtins and functions it calls named.
fn describe(game: &Game, op: &Op) -> String {
    let builtin = |i: u16| BUILTINS.get(i as usize).map_or("?", |b| b.name);
    match *op {
        Op::Builtin(i, argc) => format!("Builtin {}/{argc}", builtin(i)),
        Op::Call(id, argc) | Op::CallSmall(id, argc) => {
            let name = game.codes.get(id.0 as usize).map_or("?", |c| &*c.name);
            let name = name.strip_prefix("function ").unwrap_or(name);
            let call = if matches!(op, Op::Call(..)) {
                "Call"
            } else {
                "CallSmall"
            };
            format!("{call} {name}/{argc}")
        }
        Op::UpdateLocal { slot, func, argc } => {
            format!(
                "UpdateLocal {{ slot: {slot}, func: {}/{argc} }}",
                builtin(func)
            )
        }
        // (The letters' bit set is the string's, worked out once.)
        Op::LetterIn { s, a, .. } => format!("LetterIn {{ s: {s:?}, a: {a} }}"),
        ref other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::build_game_with_rules;
    use crate::syntax::load::MemoryFs;

    #[test]
    fn a_listing_names_calls_and_counts_the_steps_of_fused_instructions() {
        let mut fs = MemoryFs::new();
        fs.insert(
            "game.fr",
            "#define twice (x) (* x 2)\n\
             #entity cell\n  #state default\n    #onMessage go\n      (var i 0)\n      (while (< i 3) (var i (+ i 1)))\n      (twice (length (list i)))\n\
             #instance c of cell\n",
        );
        let built = build_game_with_rules(&fs, std::path::Path::new("game.fr"), &[])
            .unwrap_or_else(|_| panic!("the game builds"));
        let all = listing(&built.game, &built.sources, &[], None).unwrap_or_default();
        assert!(
            all.contains("function twice (game.fr:1:1)\n  locals: 0 x (parameter)\n"),
            "{all}"
        );
        assert!(all.contains("\n  locals: 0 i\n"), "{all}");
        let go = listing(
            &built.game,
            &built.sources,
            &["cell/default/go".into()],
            None,
        )
        .unwrap_or_default();
        assert!(
            go.starts_with("behaviour cell/default/go (game.fr:"),
            "{go}"
        );
        assert!(go.contains("Call twice/1"), "{go}");
        assert!(go.contains("Builtin length/1"), "{go}");
        assert!(
            !go.contains("function twice"),
            "only the bodies asked for: {go}"
        );
        // The loop's test is fused: its plain sequence is indented under it.
        assert!(
            go.lines()
                .any(|l| l.get(8..).is_some_and(|t| t.starts_with("  "))),
            "{go}"
        );
        assert!(listing(&built.game, &built.sources, &["no such body".into()], None).is_none());
        // With runs, a column after the steps gives each instruction's (none past the
        // last given).
        let runs = |_| &[7u64, 5][..];
        let counted = listing(
            &built.game,
            &built.sources,
            &["function twice".into()],
            Some(&runs),
        )
        .unwrap_or_default();
        let lines: Vec<&str> = counted.lines().collect();
        assert!(lines[2].contains(" 3            7  1:22"), "{counted}");
        assert!(lines[3].contains(" 2            5  1:24"), "{counted}");
        assert!(lines[4].contains(" 1            0  1:19"), "{counted}");
    }
}
