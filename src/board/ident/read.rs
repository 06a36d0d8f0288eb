//! Reading identification strings: dimensions, steps, counts and markers, then the shape
//! the path encloses. Every error points at the byte of the string at fault.

use super::notation::{
    Ident, MAX_CELLS, letter, map, mirrored_left_right_14, mirrored_left_right_23,
    mirrored_top_bottom, point_symmetric, rev, step_of,
};
use crate::board::error::BoardError;
use crate::board::outline::{self, Lattice, Move, PathError};
use crate::board::shape::Shape;

/// One step of a written path and the bytes it came from.
#[derive(Clone, Copy)]
struct Written {
    step: Move,
    start: usize,
    end: usize,
}

enum Item {
    Steps {
        step: Move,
        count: usize,
        counted: bool,
        start: usize,
        end: usize,
    },
    Marker {
        c: char,
        at: usize,
    },
}

fn skip_spaces(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
        pos += 1;
    }
    pos
}

/// The character at `pos` and its length.
fn char_at(text: &str, pos: usize) -> Option<(char, usize)> {
    text.get(pos..)?.chars().next().map(|c| (c, c.len_utf8()))
}

fn digits_end(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = pos;
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    end
}

/// The decimal number in `text[start..end]`, or `None` past `limit`.
fn value(text: &str, start: usize, end: usize, limit: u64) -> Option<u64> {
    let mut v: u64 = 0;
    for b in text.as_bytes()[start..end].iter() {
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        if v > limit {
            return None;
        }
    }
    Some(v)
}

fn unexpected(text: &str, pos: usize, what: &str) -> BoardError {
    let e = match char_at(text, pos) {
        Some((c, len)) => BoardError::in_text(pos, len, format!("unexpected `{c}`: {what}")),
        None => BoardError::in_text(pos, 0, format!("the string ends here: {what}")),
    };
    e.with_hint(
        "an identification string is `<files>x<ranks>` (such as `8x8`), optionally followed \
         by the path of an irregular board (such as `6x6dc2s=`)",
    )
}

/// Read an identification string.
pub fn parse(text: &str) -> Result<Ident, BoardError> {
    let (numbers, pos) = dimensions(text)?;
    let (w, h) = (numbers[numbers.len() - 2].0, numbers[numbers.len() - 1].0);
    let extra: Vec<u32> = numbers[..numbers.len() - 2].iter().map(|n| n.0).collect();
    let pos = skip_spaces(text, pos);
    if pos >= text.len() {
        return Ok(Ident {
            extra,
            shape: Shape::rectangle(w, h),
        });
    }
    let lat = Lattice::of(w, h);
    let limit = 4 * lat.span_x() as usize * lat.span_y() as usize + 8;
    let items = path_items(text, pos, limit)?;
    let steps = expand(text, &items, (w, h))?;
    let moves: Vec<Move> = steps.iter().map(|s| s.step).collect();
    let path = pos..text.len();
    let whole = |message: String| BoardError::in_text(path.start, path.len(), message);
    let shape = match outline::decode(w, h, &moves) {
        Ok(shape) => shape,
        Err(PathError::LeavesSide { index, side }) => {
            let s = steps[index];
            let side = if side < 0 { "left" } else { "right" };
            return Err(BoardError::in_text(
                s.start,
                s.end - s.start,
                format!("this step leaves the {w}x{h} rectangle on the {side}"),
            )
            .with_hint(start_hint(w)));
        }
        Err(PathError::TooTall { index }) => {
            let s = steps[index];
            return Err(BoardError::in_text(
                s.start,
                s.end - s.start,
                format!("with this step the path is taller than the {h} ranks of the rectangle"),
            )
            .with_hint(
                "the path starts at the topmost point of the vertical bisector and goes \
                 clockwise, so its first steps go right or down",
            ));
        }
        Err(PathError::NotClosed { dx, dy }) => {
            return Err(BoardError::in_text(
                text.len(),
                0,
                format!(
                    "the path does not come back to its start: it ends {} of it",
                    offset_words(dx, dy)
                ),
            )
            .with_hint(
                "the path goes once round the board, clockwise, back to the topmost point \
                 of the vertical bisector",
            ));
        }
        Err(PathError::TooSmall) => {
            return Err(whole(format!(
                "the path does not reach every side of the {w}x{h} rectangle"
            ))
            .with_hint("the rectangle is the smallest one that encloses the board"));
        }
        Err(PathError::Shape(e)) => {
            return Err(
                whole(format!("the path does not describe a board: {e}")).with_hint(
                    "identification strings describe boards whose cells are connected \
                 through shared edges and that enclose no empty cell",
                ),
            );
        }
    };
    if shape.is_rectangle() {
        return Err(
            whole(format!("this path draws the whole {w}x{h} rectangle"))
                .with_hint(format!("a rectangle is written without a path: `{w}x{h}`")),
        );
    }
    Ok(Ident { extra, shape })
}

fn start_hint(w: u32) -> String {
    let lat = Lattice::of(w, 1);
    if w % 2 == 1 {
        format!(
            "the path starts on the middle file ({}), at its topmost cell",
            crate::board::naming::file_label(lat.mid_x() as u32)
        )
    } else {
        format!(
            "the path starts at the top-right corner of the topmost cell of file {}, on the \
             vertical bisector",
            crate::board::naming::file_label(lat.mid_x() as u32 - 1)
        )
    }
}

fn offset_words(dx: i32, dy: i32) -> String {
    let mut parts = Vec::new();
    if dx != 0 {
        let side = if dx > 0 { "right" } else { "left" };
        parts.push(format!("{} step{} {side}", dx.abs(), plural(dx.abs())));
    }
    if dy != 0 {
        let side = if dy > 0 { "up" } else { "down" };
        parts.push(format!("{} step{} {side}", dy.abs(), plural(dy.abs())));
    }
    parts.join(" and ")
}

fn plural(n: i32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The numbers before the path, each with where it starts, and where they end.
fn dimensions(text: &str) -> Result<(Vec<(u32, usize)>, usize), BoardError> {
    let mut numbers: Vec<(u32, usize)> = Vec::new();
    let mut pos = skip_spaces(text, 0);
    loop {
        let end = digits_end(text, pos);
        if end == pos {
            let what = if numbers.is_empty() {
                "an identification string starts with the number of files, such as `8x8`"
            } else {
                "expected a number after `x`"
            };
            return Err(unexpected(text, pos, what));
        }
        let n = value(text, pos, end, MAX_CELLS).ok_or_else(|| {
            BoardError::in_text(pos, end - pos, "this number is too large for a board")
                .with_hint(format!("a board has at most {MAX_CELLS} cells"))
        })?;
        if n == 0 {
            return Err(BoardError::in_text(
                pos,
                end - pos,
                "a board has at least one cell in every direction",
            )
            .with_hint("every number of an identification string is 1 or more"));
        }
        if numbers.len() == 4 {
            return Err(BoardError::in_text(
                pos,
                end - pos,
                "too many dimensions: at most four numbers (4D boards)",
            )
            .with_hint("write `<files>x<ranks>`, with `<levels>x` before it for 3D or `<columns>x<rows>x` for 4D"));
        }
        numbers.push((n as u32, pos));
        pos = skip_spaces(text, end);
        match char_at(text, pos) {
            Some(('x', _)) => {
                let after = skip_spaces(text, pos + 1);
                if digits_end(text, after) == after {
                    return Err(unexpected(text, after, "expected a number after `x`"));
                }
                pos = after;
            }
            Some(('X', _)) => {
                return Err(
                    BoardError::in_text(pos, 1, "dimensions are separated by `x`")
                        .with_hint("write `x` in lower case, such as `8x8`"),
                );
            }
            _ => break,
        }
    }
    if numbers.len() < 2 {
        return Err(unexpected(
            text,
            pos,
            "expected `x` and the number of ranks, such as `8x8`",
        ));
    }
    let cells = numbers
        .iter()
        .try_fold(1u64, |acc, n| acc.checked_mul(u64::from(n.0)))
        .filter(|&c| c <= MAX_CELLS);
    if cells.is_none() {
        let start = numbers[0].1;
        return Err(BoardError::in_text(
            start,
            pos - start,
            format!("this board would have more than {MAX_CELLS} cells"),
        )
        .with_hint("the numbers multiply: files times ranks, times levels or boards"));
    }
    Ok((numbers, pos))
}

/// The steps and markers of a written path.
fn path_items(text: &str, mut pos: usize, limit: usize) -> Result<Vec<Item>, BoardError> {
    let mut items: Vec<Item> = Vec::new();
    let mut total = 0usize;
    loop {
        pos = skip_spaces(text, pos);
        let Some((c, len)) = char_at(text, pos) else {
            break;
        };
        if let Some(step) = step_of(c) {
            items.push(Item::Steps {
                step,
                count: 1,
                counted: false,
                start: pos,
                end: pos + len,
            });
            total += 1;
            pos += len;
        } else if c == '(' {
            let (step, end) = parenthesized(text, pos)?;
            items.push(Item::Steps {
                step,
                count: 1,
                counted: false,
                start: pos,
                end,
            });
            total += 1;
            pos = end;
        } else if c.is_ascii_digit() {
            let end = digits_end(text, pos);
            let Some(Item::Steps {
                count,
                counted,
                end: item_end,
                ..
            }) = items.last_mut()
            else {
                return Err(BoardError::in_text(
                    pos,
                    end - pos,
                    "a repetition count stands after a step",
                )
                .with_hint("write the step first, then how many times it repeats, such as `d3`"));
            };
            if *counted {
                return Err(BoardError::in_text(
                    pos,
                    end - pos,
                    "this step already has a repetition count",
                )
                .with_hint("write the total once, such as `d5`"));
            }
            let n = value(text, pos, end, limit as u64).ok_or_else(|| {
                BoardError::in_text(pos, end - pos, "this repetition count is too large")
                    .with_hint("no path round a board of this size is that long")
            })? as usize;
            if n < 2 {
                return Err(BoardError::in_text(
                    pos,
                    end - pos,
                    format!("a repetition count is at least 2, not {n}"),
                )
                .with_hint("write a single step without a count"));
            }
            *count = n;
            *counted = true;
            *item_end = end;
            total += n - 1;
            pos = end;
        } else if matches!(c, '#' | '*' | '=' | ':') {
            items.push(Item::Marker { c, at: pos });
            pos += len;
        } else if let Some(step) = step_of(c.to_ascii_lowercase()) {
            return Err(
                BoardError::in_text(pos, len, "steps are written in lower case")
                    .with_hint(format!("write `{}`", letter(step))),
            );
        } else {
            return Err(
                BoardError::in_text(pos, len, format!("unexpected `{c}` in the path")).with_hint(
                    "a path is made of the steps q w e a d z s c (or (+1,0) and the like), \
                     repetition counts and the markers # * = :",
                ),
            );
        }
        if total > limit {
            return Err(BoardError::in_text(
                pos.min(text.len()),
                0,
                "the path is longer than any path round a board of this size",
            )
            .with_hint("check the repetition counts"));
        }
    }
    Ok(items)
}

/// A step in parentheses: `(d)` or `(+1,0)`. Returns the step and the end of the text.
fn parenthesized(text: &str, start: usize) -> Result<(Move, usize), BoardError> {
    let mut pos = skip_spaces(text, start + 1);
    let step = match char_at(text, pos) {
        Some((c, len)) if step_of(c).is_some() => {
            pos += len;
            step_of(c).unwrap_or(Move::new(0, 0))
        }
        _ => {
            let (dx, after) = component(text, pos)?;
            pos = skip_spaces(text, after);
            match char_at(text, pos) {
                Some((',', _)) => pos += 1,
                _ => {
                    return Err(unexpected(
                        text,
                        pos,
                        "expected `,` between the two numbers",
                    ));
                }
            }
            pos = skip_spaces(text, pos);
            let (dy, after) = component(text, pos)?;
            pos = after;
            Move::new(dx, dy)
        }
    };
    pos = skip_spaces(text, pos);
    match char_at(text, pos) {
        Some((')', _)) => pos += 1,
        _ => return Err(unexpected(text, pos, "expected `)`")),
    }
    if step == Move::new(0, 0) {
        return Err(
            BoardError::in_text(start, pos - start, "the step (0,0) goes nowhere")
                .with_hint("a step moves one cell: at least one of its numbers is +1 or -1"),
        );
    }
    Ok((step, pos))
}

/// `+1`, `-1` or `0`.
fn component(text: &str, pos: usize) -> Result<(i8, usize), BoardError> {
    let (sign, digits) = match char_at(text, pos) {
        Some(('+', _)) => (1, pos + 1),
        Some(('-', _)) => (-1, pos + 1),
        _ => (0, pos),
    };
    let end = digits_end(text, digits);
    if end == digits {
        return Err(unexpected(text, digits, "expected +1, -1 or 0"));
    }
    match (&text[digits..end], sign) {
        ("0", _) => Ok((0, end)),
        ("1", 0) => Err(
            BoardError::in_text(pos, end - pos, "the sign cannot be left out")
                .with_hint("write +1 or -1"),
        ),
        ("1", s) => Ok((s, end)),
        _ => Err(
            BoardError::in_text(pos, end - pos, "a step goes one cell at most")
                .with_hint("write +1, -1 or 0"),
        ),
    }
}

/// The full path of written items: the written steps, and the parts that the symmetry
/// markers stand for.
fn expand(text: &str, items: &[Item], (w, h): (u32, u32)) -> Result<Vec<Written>, BoardError> {
    let mut parts: Vec<Vec<Written>> = vec![Vec::new()];
    let mut marks: Vec<(char, usize)> = Vec::new();
    for item in items {
        match *item {
            Item::Steps {
                step,
                count,
                start,
                end,
                ..
            } => {
                if let Some(part) = parts.last_mut() {
                    part.extend((0..count).map(|_| Written { step, start, end }));
                }
            }
            Item::Marker { c, at } => {
                marks.push((c, at));
                parts.push(Vec::new());
            }
        }
    }
    let marker_error = |(c, at): (char, usize), message: String| {
        BoardError::in_text(at, c.len_utf8(), message).with_hint(
            "a reduced path ends with `=` (one part, `A=`), `*` or `:` (two parts, `AB*`, `AB:`), \
             or is `A=C=`; a full path has four parts, each followed by # * = or :",
        )
    };
    if let Some(&(c, at)) = marks.last()
        && !parts.last().is_some_and(Vec::is_empty)
    {
        return Err(marker_error(
            (c, at),
            "the path goes on after its last marker".into(),
        ));
    }
    let derived = |at: usize, steps: Vec<Move>| -> Vec<Written> {
        steps
            .into_iter()
            .map(|step| Written {
                step,
                start: at,
                end: at + 1,
            })
            .collect()
    };
    let moves = |part: &[Written]| -> Vec<Move> { part.iter().map(|s| s.step).collect() };
    let full = match marks.as_slice() {
        [] => parts.swap_remove(0),
        [(c, at)] => {
            let mut full = parts.swap_remove(0);
            let a = moves(&full);
            let rest = match c {
                '=' => {
                    let b = map(&rev(&a), Move::xflip);
                    let mut rest = b.clone();
                    rest.extend(map(&a, Move::turned));
                    rest.extend(map(&b, Move::turned));
                    rest
                }
                '*' => map(&a, Move::turned),
                ':' => map(&rev(&a), Move::yflip),
                _ => {
                    return Err(marker_error(
                        (*c, *at),
                        "a lone `#` does not reduce a path".into(),
                    ));
                }
            };
            full.extend(derived(*at, rest));
            full
        }
        [(c1, at1), (c2, at2)] => {
            if *c1 != '=' || *c2 != '=' {
                let bad = if *c1 != '=' { (*c1, *at1) } else { (*c2, *at2) };
                return Err(marker_error(
                    bad,
                    "a path with two markers is `A=C=`".into(),
                ));
            }
            let (a, c) = (moves(&parts[0]), moves(&parts[1]));
            let mut full = parts[0].clone();
            full.extend(derived(*at1, map(&rev(&a), Move::xflip)));
            full.extend(parts[1].iter().copied());
            full.extend(derived(*at2, map(&rev(&c), Move::xflip)));
            full
        }
        [m1, m2, m3, m4] => {
            let p = [
                moves(&parts[0]),
                moves(&parts[1]),
                moves(&parts[2]),
                moves(&parts[3]),
            ];
            check_claims(&p, [*m1, *m2, *m3, *m4], marker_error)?;
            parts.into_iter().take(4).flatten().collect()
        }
        _ => {
            let extra = marks.get(4).or(marks.get(2)).copied().unwrap_or(('#', 0));
            return Err(marker_error(
                extra,
                format!(
                    "a path has four parts; this one has {} markers",
                    marks.len()
                ),
            ));
        }
    };
    if full.is_empty() {
        return Err(BoardError::in_text(0, text.len(), "the path has no step")
            .with_hint(format!("a rectangle is written without a path: `{w}x{h}`")));
    }
    Ok(full)
}

/// Check the symmetries claimed by the four markers of a full path.
fn check_claims(
    p: &[Vec<Move>; 4],
    marks: [(char, usize); 4],
    error: impl Fn((char, usize), String) -> BoardError,
) -> Result<(), BoardError> {
    let allowed = [
        ['#', '*', ':'],
        ['#', '=', '='],
        ['#', ':', ':'],
        ['#', '=', '='],
    ];
    for (i, m) in marks.iter().enumerate() {
        if !allowed[i].contains(&m.0) {
            return Err(error(
                *m,
                format!("`{}` cannot stand after part {}", m.0, i + 1),
            ));
        }
    }
    let claims: [(usize, char, bool, &str); 5] = [
        (
            0,
            '*',
            point_symmetric(p),
            "parts 3 and 4 are not parts 1 and 2 turned by half a turn",
        ),
        (
            0,
            ':',
            mirrored_left_right_14(p),
            "part 4 does not mirror part 1 from left to right",
        ),
        (
            1,
            '=',
            mirrored_top_bottom(&p[0], &p[1]),
            "part 2 does not mirror part 1 from top to bottom",
        ),
        (
            2,
            ':',
            mirrored_left_right_23(p),
            "part 3 does not mirror part 2 from left to right",
        ),
        (
            3,
            '=',
            mirrored_top_bottom(&p[2], &p[3]),
            "part 4 does not mirror part 3 from top to bottom",
        ),
    ];
    for (i, c, holds, why) in claims {
        if marks[i].0 == c && !holds {
            return Err(error(
                marks[i],
                format!("`{c}` claims a symmetry that the path lacks: {why}"),
            ));
        }
    }
    Ok(())
}
