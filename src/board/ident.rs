//! Board identification strings: reading them into shapes and writing the canonical one.
//!
//! A rectangle is written `<files>x<ranks>` (`8x8`, `10x8`). Any other connected board
//! without holes is written as its enclosing rectangle followed by its integral path (see
//! [`super::outline`] for how the path is drawn): the steps, each one letter, with
//! repetition counts, and symmetry markers that let one part of the path stand for others.
//! A 3D board prepends the number of levels (`3x8x8`), a 4D board the numbers of columns
//! and rows of boards (`4x4x8x8`).
//!
//! # Steps
//!
//! The seed lost its table of one-letter substitutions. The letters chosen here are the
//! block of keys around `S` on a QWERTY keyboard, read as arrows from the middle: `w a s d`
//! are up, left, down, right as in games, and the corner keys `q e z c` are the diagonals.
//!
//! | step    | letter | | step    | letter | | step    | letter |
//! |---------|--------|-|---------|--------|-|---------|--------|
//! | (-1,+1) | `q`    | | (0,+1)  | `w`    | | (+1,+1) | `e`    |
//! | (-1,0)  | `a`    | |         |        | | (+1,0)  | `d`    |
//! | (-1,-1) | `z`    | | (0,-1)  | `s`    | | (+1,-1) | `c`    |
//!
//! `x` stays free for the dimensions. The seed's long form `(+1,-1)` and the letter in
//! parentheses `(c)` are read too; signs may not be left out (`(1,0)` is an error).
//!
//! # Canonical form
//!
//! [`encode`] follows the seed's steps: the integral path split by `#` into four parts
//! A, B, C, D; point symmetry (`*` after A), the top–bottom mirror (`=` after B, and after D
//! for C and D), the left–right mirror (`:` after A, and after C for B and C); then the first
//! of the six rewrite rules that matches (`A*B=C:D=` and `A:B=C:D=` become `A=`, `A*B?C?D?`
//! becomes `AB*`, `A:B#C:D#` becomes `AB:`, `A#B=C#D=` becomes `A=C=`, anything else
//! `ABCD`); letters; repetition counts (never 1); no parentheses. Rectangles are written as
//! rectangles and a path that draws a rectangle is refused.
//!
//! # Where the seed is ambiguous, and what is done here
//!
//! - The path grid: its worked examples trace cells on a board odd in both directions (the
//!   `5x1` strip) and cell corners on a board even in both (start at the top-right corner
//!   of `C6`, points such as `F2` and `B6` that are corners of the outline, not board
//!   cells). Both are read as one rule per axis: "the middle" on odd axes, "the outer edge"
//!   on even ones ([`super::outline`]).
//! - Edge cells: taken literally on an even axis, the seed's rule skips the two inner
//!   corners of a notch one cell wide, and a board with such a notch would get the string
//!   of the board without it. Concave corners are cut only when they stand alone.
//! - Where the bisector markers go on boards whose outline meets a bisector several times:
//!   after the first step reaching the rightmost point of the horizontal bisector, then the
//!   bottommost point of the vertical one, then the leftmost point of the horizontal one.
//! - The names: the seed calls `=` vertical symmetry and `:` horizontal symmetry in its
//!   text, and the other way round in its table of rules; here `=` is the top–bottom mirror
//!   and `:` the left–right mirror, which is what its comparisons test.
//! - The step table's words for `(-1,+1)` and `(-1,-1)` say "down" and "up"; the numbers
//!   are taken as right (x grows to the right, y upwards).
//! - Reading is lenient where writing is strict: any path that closes, stays in its
//!   rectangle and encloses a connected board without holes is accepted, canonical or
//!   not, as are the full forms with four markers (whose symmetry claims are checked).
//! - Counts `0` and `1` are refused; cell names and directions of 3D and 4D boards are
//!   this project's own (see [`super::grid`]).

mod notation;
mod read;

use super::outline::{self, Lattice, Move, Traced};
use super::shape::{Shape, ShapeError};

pub use notation::{Ident, MAX_CELLS, letter};
use notation::{
    mirrored_left_right_14, mirrored_left_right_23, mirrored_top_bottom, point_symmetric,
};
pub use read::parse;

impl Ident {
    /// The canonical string of this board.
    pub fn canonical(&self) -> Result<String, ShapeError> {
        identification(&self.extra, &self.shape)
    }
}

/// The canonical identification string of a board of `shape` with the extra dimensions
/// `extra` (see [`Ident::extra`]).
pub fn identification(extra: &[u32], shape: &Shape) -> Result<String, ShapeError> {
    let planar = encode(shape)?;
    let mut text = String::new();
    for e in extra {
        text.push_str(&format!("{e}x"));
    }
    text.push_str(&planar);
    Ok(text)
}

/// The four parts of the integral path of `shape` and its start.
fn parts(shape: &Shape) -> Result<[Vec<Move>; 4], ShapeError> {
    let traced: Traced = outline::trace(shape)?;
    let lat = Lattice::of(shape.width(), shape.height());
    let (r, b, l) = outline::split(lat, &traced);
    let m = &traced.moves;
    Ok([
        m[..r].to_vec(),
        m[r..b].to_vec(),
        m[b..l].to_vec(),
        m[l..].to_vec(),
    ])
}

/// The symmetry markers after each part, as the seed sets them.
fn markers(p: &[Vec<Move>; 4]) -> [char; 4] {
    let mut m = ['#'; 4];
    if point_symmetric(p) {
        m[0] = '*';
    }
    if mirrored_top_bottom(&p[0], &p[1]) {
        m[1] = '=';
    }
    if mirrored_top_bottom(&p[2], &p[3]) {
        m[3] = '=';
    }
    if m[0] == '#' && mirrored_left_right_14(p) {
        m[0] = ':';
    }
    if mirrored_left_right_23(p) {
        m[2] = ':';
    }
    m
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Step(Move),
    Marker(char),
}

/// The first rewrite rule that matches.
fn reduce(p: &[Vec<Move>; 4], m: [char; 4]) -> Vec<Token> {
    let steps = |parts: &[usize]| -> Vec<Token> {
        parts
            .iter()
            .flat_map(|&i| p[i].iter().map(|s| Token::Step(*s)))
            .collect()
    };
    let mut out;
    match m {
        ['*', '=', ':', '='] | [':', '=', ':', '='] => {
            out = steps(&[0]);
            out.push(Token::Marker('='));
        }
        ['*', _, _, _] => {
            out = steps(&[0, 1]);
            out.push(Token::Marker('*'));
        }
        [':', '#', ':', '#'] => {
            out = steps(&[0, 1]);
            out.push(Token::Marker(':'));
        }
        ['#', '=', '#', '='] => {
            out = steps(&[0]);
            out.push(Token::Marker('='));
            out.extend(steps(&[2]));
            out.push(Token::Marker('='));
        }
        _ => out = steps(&[0, 1, 2, 3]),
    }
    out
}

/// Letters with repetition counts.
fn short(tokens: &[Token]) -> String {
    let mut text = String::new();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i] {
            Token::Marker(c) => {
                text.push(c);
                i += 1;
            }
            Token::Step(s) => {
                let run = tokens[i..]
                    .iter()
                    .take_while(|t| **t == Token::Step(s))
                    .count();
                text.push(letter(s));
                if run > 1 {
                    text.push_str(&run.to_string());
                }
                i += run;
            }
        }
    }
    text
}

/// The canonical planar identification string of `shape`: `<files>x<ranks>` for a
/// rectangle, else the rectangle and the reduced path.
pub fn encode(shape: &Shape) -> Result<String, ShapeError> {
    let (w, h) = (shape.width(), shape.height());
    if shape.is_rectangle() {
        return Ok(format!("{w}x{h}"));
    }
    let p = parts(shape)?;
    let tokens = reduce(&p, markers(&p));
    Ok(format!("{w}x{h}{}", short(&tokens)))
}

/// The seed's integral path of `shape` in its long form, such as
/// `(+1,0)(+1,0)#(-1,0)...`, with `#` after every part (rectangles included).
pub fn integral_path(shape: &Shape) -> Result<String, ShapeError> {
    let p = parts(shape)?;
    Ok(long(&p, ['#'; 4]))
}

/// The integral path after the detection of symmetries, in the long form, such as
/// `(+1,0)(+1,-1)*(0,-1)=...`.
pub fn marked_path(shape: &Shape) -> Result<String, ShapeError> {
    let p = parts(shape)?;
    Ok(long(&p, markers(&p)))
}

fn long(p: &[Vec<Move>; 4], m: [char; 4]) -> String {
    let mut text = String::new();
    for (part, marker) in p.iter().zip(m) {
        for s in part {
            text.push_str(&s.integral());
        }
        text.push(marker);
    }
    text
}
