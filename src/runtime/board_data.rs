//! `(board-data <cell>)`: what a joChess board file says beyond its topology (its
//! attributes, colour scheme, move rules, pieces and players), as one value, for a game to
//! interpret the file's chess the way it chooses. The board reader is the only reader of
//! the file; the game never sees the XML.

use crate::board::origin::{Piece, Player, Rule};
use crate::board::topology::{DirKind, Geometry};
use crate::board::{Board, ChessData};
use crate::symbol::Symbol;

use super::budget::ELEMENT_BYTES;
use super::value::{Key, Value};

/// The value of `data`, and the number of values in it (what its memory is counted by).
///
/// - `attributes`: the `<Board>` element's attributes (`Name`, `RuleEngine`,
///   `RuleProcessor`, ...), name to text;
/// - `families`: the colour scheme, a list of `{"name" "color"}`;
/// - `rules`: the top-level `<Rule>`s in file order, each its attributes as written (`Name`,
///   `Type`, `Direction`, ...; numbers stay text) and `rules`, its nested rules;
/// - `pieces`: the piece types, each `{"name" "family" "image" "allowed"}` (`allowed`: the
///   names of its rules);
/// - `players`: in file order, each `{"name" "pieces" "mapping"}`: `pieces` a list of
///   `{"name" "type" "square"}`, `mapping` a dictionary from file or rank text to text;
/// - `directions`: each direction's kind, `EDGE` or `VERTEX`;
/// - `straight`: per cell, per position linked to it, the positions straight on through
///   it from there ([`ChessData::straight`]);
/// - `shapes`: per cell drawn by the file, the corners of its polygon as one list
///   `x1 y1 x2 y2 ...` (numbers, in the file's picture coordinates).
pub fn value(board: &Board, data: &ChessData) -> (Value, u64) {
    let mut count = 0u64;
    let shapes = Value::dict(
        board
            .cells()
            .filter_map(|c| match &board.cell(c).geometry {
                Some(Geometry::Polygon(points)) => {
                    count += points.len() as u64;
                    let corners = points
                        .iter()
                        .flat_map(|&(x, y)| [number(x), number(y)])
                        .collect();
                    Some((Key::sym(board.cell_name(c)), Value::list(corners)))
                }
                _ => None,
            })
            .collect(),
    );
    let mut text = |s: &str| {
        count += 1;
        Value::str(s)
    };
    let attributes = dict_of(data.attributes.iter().map(|(k, v)| (k.as_str(), text(v))));
    let families = Value::list(
        (data.families.iter())
            .map(|(n, c)| dict_of([("name", text(n)), ("color", text(c))]))
            .collect(),
    );
    let rules = rules_value(&data.rules, &mut text);
    let pieces = Value::list(data.pieces.iter().map(|p| piece(p, &mut text)).collect());
    let players = Value::list(data.players.iter().map(|p| player(p, &mut text)).collect());
    let directions = dict_of(board.all_directions().map(|d| {
        let dir = board.direction(d);
        let kind = match dir.kind {
            DirKind::Edge => "EDGE",
            DirKind::Vertex => "VERTEX",
            DirKind::Plain => "PLAIN",
        };
        (dir.name.as_str(), text(kind))
    }));
    let straight = Value::dict(
        board
            .cells()
            .zip(&data.straight)
            .map(|(c, through)| {
                let per = Value::dict(
                    through
                        .iter()
                        .map(|(from, next)| {
                            let next = Value::list(next.iter().map(|n| text(n)).collect());
                            (Key::sym(Symbol::intern(from)), next)
                        })
                        .collect(),
                );
                (Key::sym(board.cell_name(c)), per)
            })
            .collect(),
    );
    let v = dict_of([
        ("shapes", shapes),
        ("directions", directions),
        ("straight", straight),
        ("attributes", attributes),
        ("families", families),
        ("rules", rules),
        ("pieces", pieces),
        ("players", players),
    ]);
    (v, count * 2 * ELEMENT_BYTES)
}

/// A coordinate: an integer when it is one.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::Int(x as i64)
    } else {
        Value::float(x)
    }
}

fn dict_of<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    Value::dict(
        pairs
            .into_iter()
            .map(|(k, v)| (Key::sym(Symbol::intern(k)), v))
            .collect(),
    )
}

fn rules_value(rules: &[Rule], text: &mut impl FnMut(&str) -> Value) -> Value {
    Value::list(
        rules
            .iter()
            .map(|r| {
                let mut pairs: Vec<(&str, Value)> = r
                    .attributes
                    .iter()
                    .map(|(k, v)| (k.as_str(), text(v)))
                    .collect();
                pairs.push(("rules", rules_value(&r.rules, text)));
                dict_of(pairs)
            })
            .collect(),
    )
}

fn piece(p: &Piece, text: &mut impl FnMut(&str) -> Value) -> Value {
    let or_nil = |v: &Option<String>, text: &mut dyn FnMut(&str) -> Value| {
        v.as_deref().map_or(Value::Nil, text)
    };
    dict_of([
        ("name", text(&p.name)),
        ("family", or_nil(&p.family, text)),
        ("image", or_nil(&p.image, text)),
        (
            "allowed",
            Value::list(p.allowed_moves.iter().map(|r| text(r)).collect()),
        ),
    ])
}

fn player(p: &Player, text: &mut impl FnMut(&str) -> Value) -> Value {
    let pieces = Value::list(
        p.pieces
            .iter()
            .zip(&p.piece_names)
            .map(|((ty, square), name)| {
                dict_of([
                    ("name", text(name)),
                    ("type", text(ty)),
                    ("square", text(square)),
                ])
            })
            .collect(),
    );
    let mapping = Value::dict(
        p.mapping
            .iter()
            .map(|(from, to)| (Key::sym(Symbol::intern(from)), text(to)))
            .collect(),
    );
    dict_of([
        ("name", text(&p.name)),
        ("pieces", pieces),
        ("mapping", mapping),
    ])
}
