//! Go game records in SGF (FF\[4\]), read and written with the `sgf-parse` crate, for games
//! that follow the conventions of `games/go`.
//!
//! SGF is Go's own format (`GM[1]`), so this module knows those conventions and nothing
//! else of a game; the REPL (`:sgf load`, `:sgf save`) and `flexrules run --sgf` use it:
//!
//! - parameters `size`, `komi` and `handicap` (from `SZ`, `KM` and `HA`); handicap stones
//!   are put on the board by the game itself when it starts;
//! - cells named as Go players name points (`d4`: columns `a`-`z` without `i`, rows from
//!   1 at the bottom), which take a `placeStone` message for a move and a `setStone`
//!   message with attribute `colour` (`"black"`, `"white"`) for a set-up stone (`AB`,
//!   `AW`);
//! - an entity `game` that takes `pass`, and has the properties `toMove` (`"black"` or
//!   `"white"`), `setup` and `record` (lists of `(colour point)`, the point `"pass"` for a
//!   pass) from which a record is written.
//!
//! Boundary: this module reads and writes text and drives a [`Session`]; it prints nothing
//! and reads no file.

mod reader;

use std::collections::HashSet;

use sgf_parse::go::{Move, Point, Prop};
use sgf_parse::{SgfProp as _, SimpleText};

use crate::runtime::session::Session;
use crate::runtime::trace::{Output, Transaction};
use crate::runtime::value::{Key, Message, Value};
use crate::symbol::Symbol;

/// Column letters of Go point names: `a` to `z` without `i`.
const COLUMNS: &[u8] = b"abcdefghjklmnopqrstuvwxyz";

/// The largest board a record may have (the games/go limit).
pub const MAX_SIZE: u8 = 25;

/// The largest komi, either way, a record may give (`KM`).
pub const MAX_KOMI: f64 = 1000.0;

pub use reader::{MAX_MOVES, MAX_NESTING, MAX_NODES};

/// A player's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// Black (`B`).
    Black,
    /// White (`W`).
    White,
}

impl Colour {
    /// The colour as the game names it.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Black => "black",
            Colour::White => "white",
        }
    }

    fn letter(self) -> char {
        match self {
            Colour::Black => 'B',
            Colour::White => 'W',
        }
    }
}

/// One move of a record.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordMove {
    /// Who plays.
    pub colour: Colour,
    /// The point (`d4`), or `None` for a pass.
    pub point: Option<String>,
}

/// A Go game record: what a game needs to replay it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Board size (`SZ`, 19 when absent).
    pub size: u8,
    /// Komi (`KM`), if given.
    pub komi: Option<f64>,
    /// Handicap stones (`HA`), 0 for none.
    pub handicap: u8,
    /// Set-up stones (`AB`, `AW`), as point names, sorted.
    pub black: Vec<String>,
    /// White's set-up stones.
    pub white: Vec<String>,
    /// Who plays first when the record says so (`PL`).
    pub first: Option<Colour>,
    /// The moves of the main line.
    pub moves: Vec<RecordMove>,
    /// The result (`RE`), as written.
    pub result: Option<String>,
}

/// The Go name of column `x` and row `y` (from the bottom, both from 0).
pub fn point_name(x: u8, y: u8) -> String {
    format!("{}{}", COLUMNS[usize::from(x)] as char, u32::from(y) + 1)
}

/// Column and row (from the bottom, from 0) of a Go point name on a board of `size`.
fn point_coords(name: &str, size: u8) -> Option<(u8, u8)> {
    let mut chars = name.chars();
    let col = chars.next()?;
    let x = COLUMNS.iter().position(|&c| char::from(c) == col)?;
    let row: u32 = chars.as_str().parse().ok()?;
    if x >= usize::from(size) || row == 0 || row > u32::from(size) {
        return None;
    }
    Some((x as u8, (row - 1) as u8))
}

/// An SGF point (`x` from the left, `y` from the top) as a Go name; `None` when it is off
/// the board.
fn sgf_point(p: Point, size: u8) -> Option<String> {
    (p.x < size && p.y < size).then(|| point_name(p.x, size - 1 - p.y))
}

fn describe_point(p: Point) -> String {
    let letter = |v: u8| {
        if v < 26 {
            char::from(b'a' + v)
        } else {
            char::from(b'A' + v - 26)
        }
    };
    format!("{}{}", letter(p.x), letter(p.y))
}

/// What a value of property `id` must be, for an error about one that is not.
fn expected_value(id: &str) -> String {
    let what = match id {
        "SZ" => "a board size, such as SZ[19]",
        "KM" => "a number, such as KM[6.5]",
        "HA" => "a number of stones, such as HA[2]",
        "B" | "W" => return format!("a point, such as {id}[dd], or {id}[] for a pass"),
        "AB" | "AW" | "AE" => "points, such as AB[dd][pp]",
        "PL" => "a colour, PL[B] or PL[W]",
        _ => "a value of the form SGF gives this property",
    };
    what.to_string()
}

/// Read a record: the first game of the collection, its main line. Reading is bounded
/// ([`MAX_NESTING`], [`MAX_NODES`], [`MAX_MOVES`]) and does not recurse. Every refusal
/// starts with the line and column it is about.
pub fn parse(text: &str) -> Result<Record, String> {
    let main = reader::main_line(text)?;
    let root = main
        .first()
        .ok_or_else(|| "the file holds no game".to_string())?;
    let mut record = Record {
        size: 19,
        komi: None,
        handicap: 0,
        black: Vec::new(),
        white: Vec::new(),
        first: None,
        moves: Vec::new(),
        result: None,
    };
    let place = |offset: usize| reader::place(text, offset);
    if let Some((offset, Prop::SZ((w, h)))) = root.iter().find(|(_, p)| p.identifier() == "SZ") {
        if w != h {
            return Err(format!(
                "{}: the root node: SZ[{w}:{h}]: only square boards are played",
                place(*offset)
            ));
        }
        if !(2..=MAX_SIZE).contains(w) {
            return Err(format!(
                "{}: the root node: SZ[{w}]: the board size must be from 2 to {MAX_SIZE}",
                place(*offset)
            ));
        }
        record.size = *w;
    }
    let size = record.size;
    // Where each white set-up stone is set up, for a point set up both colours.
    let mut white_at = std::collections::HashMap::new();
    for (n, node) in main.iter().enumerate() {
        for (offset, prop) in node {
            let at = if n == 0 {
                format!("{}: the root node", place(*offset))
            } else {
                format!("{}: node {}", place(*offset), n + 1)
            };
            match prop {
                Prop::KM(k) if !k.is_finite() || k.abs() > MAX_KOMI => {
                    let k = if k.abs() < 1e9 {
                        k.to_string()
                    } else {
                        format!("{k:e}")
                    };
                    return Err(format!(
                        "{at}: KM (komi) is {k}: komi must be a finite number from -{MAX_KOMI} to {MAX_KOMI}, such as 6.5 or 7.5"
                    ));
                }
                Prop::KM(k) => record.komi = Some(*k),
                Prop::HA(h) => {
                    record.handicap =
                        u8::try_from(*h).ok().filter(|h| *h <= 9).ok_or_else(|| {
                            format!("{at}: HA[{h}]: a handicap is from 2 to 9 stones")
                        })?;
                }
                Prop::Invalid(id, values)
                    if id == "HA" && matches!(values.as_slice(), [v] if v == "0" || v == "1") => {}
                Prop::AB(points) | Prop::AW(points) => {
                    if !record.moves.is_empty() {
                        return Err(format!(
                            "{at}: stones set up after move {} are not supported",
                            record.moves.len()
                        ));
                    }
                    let names = points_named(points, size, &at)?;
                    if matches!(prop, Prop::AB(_)) {
                        record.black.extend(names);
                    } else {
                        for p in &names {
                            white_at.entry(p.clone()).or_insert(*offset);
                        }
                        record.white.extend(names);
                    }
                }
                Prop::AE(_) => {
                    return Err(format!("{at}: AE (removing stones) is not supported"));
                }
                Prop::PL(c) if record.moves.is_empty() => {
                    record.first = Some(match c {
                        sgf_parse::Color::Black => Colour::Black,
                        sgf_parse::Color::White => Colour::White,
                    });
                }
                Prop::RE(SimpleText { text }) => record.result = Some(text.clone()),
                Prop::B(m) | Prop::W(m) => {
                    let colour = if matches!(prop, Prop::B(_)) {
                        Colour::Black
                    } else {
                        Colour::White
                    };
                    let number = record.moves.len() + 1;
                    let point = match m {
                        Move::Pass => None,
                        // `tt` is a pass on boards up to 19x19 (FF[3] and many programs).
                        Move::Move(p) if size <= 19 && p.x == 19 && p.y == 19 => None,
                        Move::Move(p) => Some(sgf_point(*p, size).ok_or_else(|| {
                            format!(
                                "{}: move {number} ({}[{}]): the point is off the {size}x{size} board",
                                place(*offset),
                                colour.letter(),
                                describe_point(*p)
                            )
                        })?),
                    };
                    record.moves.push(RecordMove { colour, point });
                }
                Prop::Invalid(id, values) => {
                    return Err(format!(
                        "{at}: {id}[{}] is not a valid value; expected {}",
                        values.join("]["),
                        expected_value(id)
                    ));
                }
                _ => {}
            }
        }
    }
    record.black.sort();
    record.white.sort();
    if let Some(p) = record.black.iter().find(|p| record.white.contains(p)) {
        let at = white_at
            .get(p)
            .map_or(String::new(), |&o| format!("{}: ", place(o)));
        return Err(format!("{at}{p} is set up both black (AB) and white (AW)"));
    }
    Ok(record)
}

fn points_named(points: &HashSet<Point>, size: u8, at: &str) -> Result<Vec<String>, String> {
    points
        .iter()
        .map(|&p| {
            sgf_point(p, size).ok_or_else(|| {
                format!(
                    "{at}: set-up point {} is off the {size}x{size} board",
                    describe_point(p)
                )
            })
        })
        .collect()
}

impl Record {
    /// The parameters to start the game with: `size`, `komi` (when given), `handicap`.
    pub fn params(&self) -> Vec<(String, Value)> {
        let mut params = vec![("size".to_string(), Value::Int(i64::from(self.size)))];
        if let Some(k) = self.komi {
            let value = if k.fract() == 0.0 && k.abs() < 1e15 {
                Value::Int(k as i64)
            } else {
                Value::float(k)
            };
            params.push(("komi".to_string(), value));
        }
        params.push(("handicap".to_string(), Value::Int(i64::from(self.handicap))));
        params
    }

    /// The record as REPL inputs, after the game has started with [`Record::params`]: the
    /// set-up stones (not the handicap stones the game put on the star points), the player
    /// to move when the record names one, then one `:play` per move.
    pub fn repl_lines(&self, session: &Session) -> Vec<String> {
        let mut lines = Vec::new();
        for (colour, points) in [("black", &self.black), ("white", &self.white)] {
            for p in points {
                if stone(session, p).as_deref() != Some(colour) {
                    lines.push(format!(
                        "(send new message \"setStone\" to \"{p}\" with \"colour\" \"{colour}\")"
                    ));
                }
            }
        }
        if let Some(first) = self.first_to_move() {
            lines.push(format!(
                "(update property \"toMove\" of \"game\" to \"{}\")",
                first.name()
            ));
        }
        for m in &self.moves {
            lines.push(format!(":play {}", m.point.as_deref().unwrap_or("pass")));
        }
        lines
    }

    /// Who moves first, when the record says so (`PL`, or the first move's colour) and it
    /// is not what the handicap implies.
    fn first_to_move(&self) -> Option<Colour> {
        let first = self
            .first
            .or_else(|| self.moves.first().map(|m| m.colour))?;
        let default = if self.handicap >= 2 {
            Colour::White
        } else {
            Colour::Black
        };
        (first != default).then_some(first)
    }
}

/// The stone on point `p` ("black", "white"), or `None`.
fn stone(session: &Session, p: &str) -> Option<String> {
    let id = session.world().lookup(Symbol::intern(p))?;
    let e = session.world().entity(id)?;
    match e.property(&session.game, Symbol::intern("stone")) {
        Some(Value::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    }
}

fn game_property(session: &Session, name: &str) -> Result<Value, String> {
    let id = session
        .world()
        .lookup(Symbol::intern("game"))
        .ok_or("the game has no entity named `game`")?;
    let e = session
        .world()
        .entity(id)
        .ok_or("the game has no entity named `game`")?;
    e.property(&session.game, Symbol::intern(name))
        .cloned()
        .ok_or_else(|| format!("the entity `game` has no property `{name}`"))
}

fn to_move(session: &Session) -> Result<Colour, String> {
    match game_property(session, "toMove")? {
        Value::Str(s) if s.as_str() == "black" => Ok(Colour::Black),
        Value::Str(s) if s.as_str() == "white" => Ok(Colour::White),
        other => Err(format!(
            "game's toMove is {other}, not \"black\" or \"white\""
        )),
    }
}

fn message(label: &str, attrs: &[(&str, Value)]) -> Message {
    let mut m = Message {
        label: Symbol::intern(label),
        attrs: Default::default(),
    };
    for (k, v) in attrs {
        m.attrs.insert(Key::sym(Symbol::intern(k)), v.clone());
    }
    m
}

/// Why a transaction did not commit: its notifications and its status.
fn why(tx: &Transaction) -> String {
    let mut parts: Vec<String> = tx
        .output
        .iter()
        .filter_map(|o| match o {
            Output::Notify(t) => Some(t.clone()),
            Output::Print(_) => None,
        })
        .collect();
    parts.push(tx.status.summary());
    parts.join("; ")
}

/// Replay `record` in `session`, which was started with [`Record::params`]: set-up stones,
/// the player to move, then every move. Returns each step's description and transaction;
/// the first step that is refused is an error naming the move, its number and why.
pub fn replay(
    session: &mut Session,
    record: &Record,
) -> Result<Vec<(String, Transaction)>, String> {
    let mut steps = Vec::new();
    if record.handicap >= 2 && !record.black.is_empty() {
        let placed: Vec<String> = record
            .black
            .iter()
            .filter(|p| stone(session, p).as_deref() == Some("black"))
            .cloned()
            .collect();
        let expected = handicap_stones(session, record.size);
        if placed.len() != record.black.len() || expected.len() != record.black.len() {
            return Err(format!(
                "HA[{}] with AB[{}]: this game puts handicap stones on {} (free placement is not supported)",
                record.handicap,
                record.black.join(" "),
                expected.join(" ")
            ));
        }
    }
    for (colour, points) in [
        (Colour::Black, &record.black),
        (Colour::White, &record.white),
    ] {
        for p in points {
            match stone(session, p) {
                Some(s) if s == colour.name() => continue,
                Some(s) => {
                    return Err(format!(
                        "set-up stone {p}: the point already has a {s} stone"
                    ));
                }
                None => {}
            }
            let tx = session.deliver(
                Symbol::intern(p),
                message("setStone", &[("colour", Value::str(colour.name()))]),
            );
            if !tx.status.committed() {
                return Err(format!("set-up stone {p}: {}", why(&tx)));
            }
            steps.push((format!("set up {} {p}", colour.name()), tx));
        }
    }
    if let Some(first) = record.first_to_move() {
        let id = session
            .world()
            .lookup(Symbol::intern("game"))
            .ok_or("the game has no entity named `game`")?;
        let game = session.game.clone();
        if let Some(v) = session
            .world_mut()
            .entity_mut(id)
            .and_then(|e| e.property_mut(&game, Symbol::intern("toMove")))
        {
            *v = Value::str(first.name());
        }
    }
    for (i, m) in record.moves.iter().enumerate() {
        let number = i + 1;
        let name = m.point.as_deref().unwrap_or("pass");
        let what = format!("move {number} ({} {name})", m.colour.name());
        if session.outcome().is_some() {
            return Err(format!("{what}: the game is already over"));
        }
        let mover = to_move(session)?;
        if mover != m.colour {
            return Err(format!(
                "{what}: it is {}'s turn (players alternate)",
                mover.name()
            ));
        }
        let tx = match &m.point {
            None => session.deliver(Symbol::intern("game"), message("pass", &[])),
            Some(p) => session.deliver(
                Symbol::intern(p),
                message("placeStone", &[("name", Value::str(p))]),
            ),
        };
        if !tx.status.committed() {
            return Err(format!("{what} is illegal: {}", why(&tx)));
        }
        steps.push((format!("{} {name}", m.colour.name()), tx));
    }
    Ok(steps)
}

/// The black stones on the board now (the handicap stones right after the start).
fn handicap_stones(session: &Session, size: u8) -> Vec<String> {
    let mut out = Vec::new();
    for x in 0..size {
        for y in 0..size {
            let p = point_name(x, y);
            if stone(session, &p).as_deref() == Some("black") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The game being played in `session` as an SGF record: size, komi, handicap, the set-up
/// stones, every move and, when the game is over, the result.
pub fn write(session: &Session) -> Result<String, String> {
    let int_param = |name: &str| match session.param(Symbol::intern(name)) {
        Some(Value::Int(i)) => Ok(*i),
        Some(other) => Err(format!("parameter `{name}` is {other}, not an integer")),
        None => Err(format!("the game has no parameter `{name}`")),
    };
    let size = u8::try_from(int_param("size")?)
        .ok()
        .filter(|s| (2..=MAX_SIZE).contains(s))
        .ok_or("the board size is not from 2 to 25")?;
    let komi = match session.param(Symbol::intern("komi")) {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => f.get(),
        Some(other) => return Err(format!("parameter `komi` is {other}, not a number")),
        None => return Err("the game has no parameter `komi`".into()),
    };
    let handicap = int_param("handicap")?;
    let to_point = |name: &str| -> Result<Point, String> {
        let (x, y) = point_coords(name, size)
            .ok_or_else(|| format!("`{name}` is not a point of the {size}x{size} board"))?;
        Ok(Point { x, y: size - 1 - y })
    };
    let pairs = |name: &str| -> Result<Vec<(Colour, String)>, String> {
        let Value::List(items) = game_property(session, name)? else {
            return Err(format!("game's {name} is not a list"));
        };
        items
            .iter()
            .map(|item| match item {
                Value::List(pair) => match (pair.get(0), pair.get(1)) {
                    (Some(Value::Str(c)), Some(Value::Str(p))) => {
                        let colour = if c.as_str() == "black" {
                            Colour::Black
                        } else {
                            Colour::White
                        };
                        Ok((colour, p.as_str().to_string()))
                    }
                    _ => Err(format!("game's {name} holds {item}, not (colour point)")),
                },
                other => Err(format!("game's {name} holds {other}, not (colour point)")),
            })
            .collect()
    };
    let mut root = vec![
        Prop::FF(4),
        Prop::GM(1),
        Prop::CA(SimpleText {
            text: "UTF-8".into(),
        }),
        Prop::AP((
            SimpleText {
                text: "flexrules".into(),
            },
            SimpleText {
                text: env!("CARGO_PKG_VERSION").into(),
            },
        )),
        // SZ[19] rather than the crate's SZ[19:19]: the square form every program reads.
        Prop::Unknown("SZ".into(), vec![size.to_string()]),
        Prop::KM(komi),
    ];
    if handicap >= 2 {
        root.push(Prop::HA(handicap));
    }
    // AB and AW in a fixed order (the crate writes a set in hash order).
    let mut black = Vec::new();
    let mut white = Vec::new();
    for (colour, p) in pairs("setup")? {
        let point = describe_point(to_point(&p)?);
        match colour {
            Colour::Black => black.push(point),
            Colour::White => white.push(point),
        }
    }
    for (id, mut points) in [("AB", black), ("AW", white)] {
        if !points.is_empty() {
            points.sort();
            points.dedup();
            root.push(Prop::Unknown(id.into(), points));
        }
    }
    let moves = pairs("record")?;
    let default_first = if handicap >= 2 {
        Colour::White
    } else {
        Colour::Black
    };
    if let Some((first, _)) = moves.first()
        && *first != default_first
    {
        root.push(Prop::PL(match first {
            Colour::Black => sgf_parse::Color::Black,
            Colour::White => sgf_parse::Color::White,
        }));
    }
    if let Some(result) = result(session) {
        root.push(Prop::RE(SimpleText { text: result }));
    }
    let mut nodes: Vec<Vec<Prop>> = vec![root];
    for (colour, p) in moves {
        let m = if p == "pass" {
            Move::Pass
        } else {
            Move::Move(to_point(&p)?)
        };
        nodes.push(vec![match colour {
            Colour::Black => Prop::B(m),
            Colour::White => Prop::W(m),
        }]);
    }
    // Written node by node (the crate writes a tree recursively, one level per move).
    let mut out = String::from("(");
    for props in nodes {
        out.push(';');
        for p in props {
            out.push_str(&p.to_string());
        }
    }
    out.push_str(")\n");
    Ok(out)
}

/// `RE` for a finished game: `B+3.5`, `W+0.5`, `B+` when no score is given, `0` for a draw.
pub fn result(session: &Session) -> Option<String> {
    let outcome = session.outcome()?;
    let winner = outcome.get(&Key::sym(Symbol::intern("winner")));
    let score = outcome.get(&Key::sym(Symbol::intern("score")));
    let margin = |v: Option<&Value>| match v {
        Some(Value::Int(i)) => Some(i.abs().to_string()),
        Some(Value::Float(f)) => Some(format!("{}", f.abs())),
        _ => None,
    };
    Some(match winner {
        Some(Value::Str(w)) => {
            let letter = if w.as_str() == "black" { "B" } else { "W" };
            format!("{letter}+{}", margin(score).unwrap_or_default())
        }
        _ => "0".into(),
    })
}
