//! joChess board files: `<Board>` with positions, their directions and connections, and
//! the rules, pieces and players of a chess game.
//!
//! Each `<Position File Rank Family>` becomes a cell named file and rank (`c2`) with
//! coordinates `[file, rank]` from 0 (files read as `a`, `b`, ... `aa`; −1 when the file is
//! not letters or the rank not a number) and, when it has a `<Shape>`, the polygon of its
//! `<Coordinates x1 y1 x2 y2 ...>`. Its `<Direction Name Type>` elements (`EDGE` or
//! `VERTEX`) become the board's directions (names are shared by all positions that use
//! them) and their `<LinkedPosition>`s its links. A direction with several linked positions
//! (the centre of a three-player board) keeps the first under its own name and the others
//! under `<name>.2`, `<name>.3`, ...
//!
//! # Straight on
//!
//! A position's `<Connection Point1 Point2>` elements join its directions into a cycle
//! (edges and vertices alternating round the cell). Direction names are local to each
//! position, so "the same direction" on the next cell is found the way the seed's blinker
//! strategy finds it: entering cell `b` from `a`, take the direction of `b` that leads back
//! to `a` and go round `b`'s cycle both ways at once; where the two searches meet, half way
//! round, is straight on. A cycle of odd length, or connections that are no cycle, give no
//! straight continuation, and a ray stops there.
//!
//! Each link carries the permutation that maps its cell's cycle onto the target's cycle,
//! turning the direction taken into the straight continuation (and the rest of the cycle
//! with it, in the orientation the cells' drawings give, else the order of the file). So
//! [`Board::ray`](super::Board::ray) goes straight across seams where the names turn, and
//! walks keep their sense of direction. Condition 2 asks for any direction of the target
//! that leads back, with the inverse permutation.
//!
//! # Chess data
//!
//! `<Rules>`, `<Pieces>`, `<Players>` (with their `<BoardMapping>`), `<ColourScheme>`, the
//! attributes of `<Board>` and each position's `Family` are kept as [`ChessData`], plain
//! text, for a chess game to interpret. What a chess game would trip over is refused here,
//! at the element or attribute at fault: a rule attribute with a value joChess does not
//! know ([`RULE_VALUES`], [`RULE_NUMBERS`]), a rule without `Name`, a `CUSTOM` rule without
//! `CustomRuleName`, two top-level rules of one name; a piece allowed a rule no top-level
//! rule defines; a player's piece of an unknown type (`PieceRef`) or on an unknown position
//! (`PositionRef`), two pieces on one position, a player without a king (a piece whose
//! type's name starts with `King`); a `<Map>` whose `From` or `To` is neither a file
//! (letters) nor a rank (a number). An empty `<Map From="" To=""/>` is left out.

use std::collections::{HashMap, HashSet};

use roxmltree::Node;

use super::builder::{BoardBuilder, BuildError};
use super::error::BoardError;
use super::naming::file_index;
pub use super::origin::{ChessData, Piece, Player, Rule};
use super::problem::{Problem, ProblemKind};
use super::topology::{Board, CellId, DirId, DirKind, Geometry, InverseRule, Origin, Permutation};
use super::xml::{XmlFile, attributes, children_named, elements};
use crate::symbol::Symbol;

struct PosDir<'a, 'i> {
    name: &'a str,
    kind: DirKind,
    linked: Vec<(&'a str, Node<'a, 'i>)>,
}

struct Position<'a, 'i> {
    node: Node<'a, 'i>,
    name: String,
    family: Option<String>,
    coords: [i32; 2],
    geometry: Option<Geometry>,
    dirs: Vec<PosDir<'a, 'i>>,
    connections: Vec<(&'a str, &'a str, Node<'a, 'i>)>,
}

/// The cycle of a position's directions.
struct Cycle {
    order: Vec<DirId>,
    /// +1 or −1 when the drawings tell which way round the order goes.
    orientation: Option<i8>,
}

impl Cycle {
    fn index(&self, d: DirId) -> Option<usize> {
        self.order.iter().position(|x| *x == d)
    }

    /// The direction half way round from `d`.
    fn opposite(&self, d: DirId) -> Option<DirId> {
        let n = self.order.len();
        if n % 2 == 1 {
            return None;
        }
        self.index(d).map(|i| self.order[(i + n / 2) % n])
    }
}

fn too_large(file: &XmlFile, node: Node) -> BoardError {
    file.error(
        node,
        "the board is too large (too many positions or directions)",
    )
}

/// Read the board of a joChess file whose root element is `root`.
pub(crate) fn read(file: &XmlFile, root: Node, fallback_name: &str) -> Result<Board, BoardError> {
    let name = root.attribute("Name").unwrap_or(fallback_name);
    let holder = children_named(root, "Positions")
        .next()
        .ok_or_else(|| file.error(root, "the board has no `<Positions>`"))?;
    let mut positions = Vec::new();
    for node in children_named(holder, "Position") {
        positions.push(read_position(file, node)?);
    }
    if positions.is_empty() {
        return Err(file.error(holder, "`<Positions>` holds no `<Position>`"));
    }
    let mut builder = BoardBuilder::new(name, 2, InverseRule::AnyBack);
    for pos in &positions {
        for d in &pos.dirs {
            let sym = Symbol::intern(d.name);
            if builder.direction_named(sym).is_none() {
                builder
                    .add_direction(sym, d.kind)
                    .map_err(|_| too_large(file, pos.node))?;
            }
        }
    }
    for pos in &positions {
        for d in &pos.dirs {
            for k in 1..d.linked.len() {
                let sym = Symbol::intern(&format!("{}.{}", d.name, k + 1));
                if builder.direction_named(sym).is_none() {
                    builder
                        .add_direction(sym, d.kind)
                        .map_err(|_| too_large(file, pos.node))?;
                }
            }
        }
    }
    for pos in &positions {
        match builder.add_cell(Symbol::intern(&pos.name), &pos.coords, pos.geometry.clone()) {
            Ok(_) => {}
            Err(BuildError::DuplicateCell(first)) => {
                let line = file.position(positions[first.0 as usize].node).line;
                return Err(file.error(
                    pos.node,
                    format!(
                        "two positions are named `{}` (the first on line {line})",
                        pos.name
                    ),
                ));
            }
            Err(_) => return Err(too_large(file, pos.node)),
        }
    }
    let names: Vec<&str> = positions.iter().map(|p| p.name.as_str()).collect();
    for (i, pos) in positions.iter().enumerate() {
        let from = CellId(i as u32);
        for d in &pos.dirs {
            for (k, (target, node)) in d.linked.iter().enumerate() {
                let dir_name = if k == 0 {
                    d.name.to_string()
                } else {
                    format!("{}.{}", d.name, k + 1)
                };
                let dir = builder
                    .direction_named(Symbol::intern(&dir_name))
                    .ok_or_else(|| too_large(file, *node))?;
                let Some(to) = builder.cell_named(Symbol::intern(target)) else {
                    let e =
                        file.error(*node, format!("`{target}` names no position of this board"));
                    return Err(
                        match crate::diagnostic::closest(target, names.iter().copied()) {
                            Some(c) => e.with_hint(format!("did you mean `{c}`?")),
                            None => e,
                        },
                    );
                };
                match builder.link(from, dir, to, None, Some(dir)) {
                    Ok(()) => builder.set_link_position(from, dir, file.position(*node)),
                    Err(BuildError::LinkExists(kept)) => builder.add_problem(Problem {
                        kind: ProblemKind::SecondLink {
                            cell: Symbol::intern(&pos.name),
                            dir: Symbol::intern(&dir_name),
                            kept: Symbol::intern(names[kept.0 as usize]),
                            dropped: Symbol::intern(target),
                        },
                        cell: from,
                        dir,
                        at: Some(file.position(*node)),
                    }),
                    Err(_) => return Err(too_large(file, *node)),
                }
            }
        }
    }
    let mut cycles = Vec::with_capacity(positions.len());
    for (i, pos) in positions.iter().enumerate() {
        cycles.push(cycle(file, pos, CellId(i as u32), &builder)?);
    }
    straighten(&mut builder, &cycles).map_err(|_| too_large(file, root))?;
    let straight = positions
        .iter()
        .zip(&cycles)
        .map(|(pos, cycle)| straight_through(pos, cycle.as_ref(), &builder))
        .collect();
    let data = ChessData {
        straight,
        attributes: attributes(root),
        families: children_named(root, "ColourScheme")
            .flat_map(|s| children_named(s, "Family"))
            .map(|f| (attr(f, "Name"), attr(f, "Color")))
            .collect(),
        position_families: positions.iter().map(|p| p.family.clone()).collect(),
        ..chess_data(file, root, &names)?
    };
    builder
        .finish(Origin::JoChess(Box::new(data)))
        .map_err(|_| too_large(file, root))
}

/// For each position linked to `pos`, the positions straight on through `pos` from it
/// ([`ChessData::straight`]).
fn straight_through(
    pos: &Position,
    cycle: Option<&Cycle>,
    builder: &BoardBuilder,
) -> Vec<(String, Vec<String>)> {
    let id = |name: &str| builder.direction_named(Symbol::intern(name));
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for d in &pos.dirs {
        let opposite = (cycle.zip(id(d.name)))
            .and_then(|(c, d)| c.opposite(d))
            .and_then(|o| pos.dirs.iter().find(|x| id(x.name) == Some(o)));
        let next: Vec<String> = opposite.map_or_else(Vec::new, |o| {
            o.linked.iter().map(|(n, _)| n.to_string()).collect()
        });
        for (from, _) in &d.linked {
            if !out.iter().any(|(x, _)| x == from) {
                out.push((from.to_string(), next.clone()));
            }
        }
    }
    out
}

fn attr(node: Node, name: &str) -> String {
    node.attribute(name).unwrap_or_default().to_string()
}

/// The values joChess knows for each enumerated attribute of a `<Rule>`, with what the
/// attribute says (for messages).
pub const RULE_VALUES: [(&str, &str, &[&str]); 6] = [
    (
        "Type",
        "rule type",
        &[
            "MOVE",
            "MOVE_AND_CAPTURE",
            "MOVE_IFF_CAPTURE_POSSIBLE",
            "MOVE_TRANSIENT",
            "CUSTOM",
        ],
    ),
    (
        "Manoeuvre",
        "manoeuvre",
        &["FILE_AND_RANK", "BLINKER", "BLINKER_WITH_FILE_AND_RANK"],
    ),
    ("Direction", "kind of direction", &["EDGE", "VERTEX"]),
    (
        "File",
        "file condition",
        &["SAME", "FORWARD", "BACKWARD", "IGNORE"],
    ),
    (
        "Rank",
        "rank condition",
        &["SAME", "FORWARD", "BACKWARD", "IGNORE"],
    ),
    (
        "Family",
        "family condition",
        &["SAME", "DIFFERENT", "IGNORE", "PROVIDED"],
    ),
];

/// The attributes of a `<Rule>` that are integers.
pub const RULE_NUMBERS: [&str; 2] = ["MaxRecurrenceAllowed", "Lifespan"];

/// `<Rules>`, `<Pieces>` and `<Players>` of the board `root`, checked against each other
/// and against the names of the board's positions.
fn chess_data(file: &XmlFile, root: Node, positions: &[&str]) -> Result<ChessData, BoardError> {
    let positions: HashSet<&str> = positions.iter().copied().collect();
    let mut rules = Vec::new();
    let mut first_named: HashMap<&str, Node> = HashMap::new();
    for node in children_named(root, "Rules").flat_map(|s| children_named(s, "Rule")) {
        let rule = read_rule(file, node)?;
        let name = node.attribute("Name").unwrap_or_default();
        if let Some(first) = first_named.get(name) {
            let line = file.position(*first).line;
            return Err(file
                .attr_error(
                    node,
                    "Name",
                    format!("two rules are named `{name}` (the first on line {line})"),
                )
                .with_hint("pieces name the rules they may use, so each name must be unique"));
        }
        first_named.insert(name, node);
        rules.push(rule);
    }
    let rule_names: HashSet<&str> = first_named.keys().copied().collect();
    let mut pieces = Vec::new();
    for node in children_named(root, "Pieces").flat_map(|s| children_named(s, "Piece")) {
        pieces.push(read_piece(file, node, &rule_names)?);
    }
    let kinds: HashSet<&str> = pieces.iter().map(|p| p.name.as_str()).collect();
    let mut taken = HashMap::new();
    let mut players = Vec::new();
    for node in children_named(root, "Players").flat_map(|s| children_named(s, "Player")) {
        players.push(read_player(file, node, &kinds, &positions, &mut taken)?);
    }
    Ok(ChessData {
        rules,
        pieces,
        players,
        ..ChessData::default()
    })
}

/// A `<Rule>` and its nested rules, their attributes checked.
fn read_rule(file: &XmlFile, node: Node) -> Result<Rule, BoardError> {
    file.required(node, "Name").map_err(|e| {
        e.with_hint("every rule has a `Name`, by which pieces' `<AllowedMoves>` name it")
    })?;
    for (attribute, what, values) in RULE_VALUES {
        let Some(value) = node.attribute(attribute) else {
            continue;
        };
        if !values.contains(&value) {
            let listed = values.join(", ");
            let hint = match crate::diagnostic::closest(value, values.iter().copied()) {
                Some(c) => format!("did you mean `{c}`? `{attribute}` is one of {listed}"),
                None => format!("`{attribute}` is one of {listed}"),
            };
            return Err(file
                .attr_error(
                    node,
                    attribute,
                    format!("`{attribute}=\"{value}\"` is no {what} of joChess"),
                )
                .with_hint(hint));
        }
    }
    for attribute in RULE_NUMBERS {
        let Some(value) = node.attribute(attribute) else {
            continue;
        };
        if value.trim().parse::<i32>().is_err() {
            return Err(file
                .attr_error(
                    node,
                    attribute,
                    format!("`{attribute}=\"{value}\"` is not an integer"),
                )
                .with_hint(format!(
                    "`{attribute}` is a whole number, such as `1` or `99`"
                )));
        }
    }
    if node.attribute("Type") == Some("CUSTOM") && node.attribute("CustomRuleName").is_none() {
        return Err(file
            .attr_error(
                node,
                "Type",
                "a `CUSTOM` rule has no `CustomRuleName`",
            )
            .with_hint(
                "add `CustomRuleName=\"...\"`: the name of the custom rule the rule engine carries out",
            ));
    }
    let mut rules = Vec::new();
    for nested in children_named(node, "Rules").flat_map(|s| children_named(s, "Rule")) {
        rules.push(read_rule(file, nested)?);
    }
    Ok(Rule {
        attributes: attributes(node),
        rules,
    })
}

/// A `<Piece>` of `<Pieces>`; the rules of its `<AllowedMoves>` must be among `rules`.
fn read_piece(file: &XmlFile, node: Node, rules: &HashSet<&str>) -> Result<Piece, BoardError> {
    let name = file.required(node, "Name")?;
    let mut allowed_moves = Vec::new();
    for r in children_named(node, "AllowedMoves").flat_map(|m| children_named(m, "Rule")) {
        let rule = r.text().unwrap_or_default().trim();
        if !rules.contains(&rule) {
            let e = file.text_error(
                r,
                format!(
                    "piece `{name}` is allowed rule `{rule}`, which no rule of `<Rules>` defines"
                ),
            );
            return Err(
                match crate::diagnostic::closest(rule, rules.iter().copied()) {
                    Some(c) => e.with_hint(format!("did you mean `{c}`?")),
                    None => {
                        e.with_hint("a piece names the top-level rules of `<Rules>` it may move by")
                    }
                },
            );
        }
        allowed_moves.push(rule.to_string());
    }
    Ok(Piece {
        name: name.to_string(),
        image: node.attribute("Image").map(str::to_string),
        family: node.attribute("Family").map(str::to_string),
        allowed_moves,
    })
}

/// A `<Player>`, its pieces of the types `kinds` on the board's `positions`, none on a
/// position in `taken` (where earlier players' pieces stand, which it adds its own to).
fn read_player<'a, 'i>(
    file: &XmlFile<'a, 'i>,
    node: Node<'a, 'i>,
    kinds: &HashSet<&str>,
    positions: &HashSet<&str>,
    taken: &mut HashMap<&'a str, (Node<'a, 'i>, String)>,
) -> Result<Player, BoardError> {
    const FORM: &str = "a player's piece is written `<Piece Name=\"King1\" PieceRef=\"KingWhite\" PositionRef=\"e1\"/>`: a name of its own, a piece of `<Pieces>` and a position";
    let name = attr(node, "Name");
    let mut pieces = Vec::new();
    let mut piece_names = Vec::new();
    for p in children_named(node, "Pieces").flat_map(|s| children_named(s, "Piece")) {
        let kind = file
            .required(p, "PieceRef")
            .map_err(|e| e.with_hint(FORM))?;
        let at = file
            .required(p, "PositionRef")
            .map_err(|e| e.with_hint(FORM))?;
        if !kinds.contains(&kind) {
            return Err(file.unknown(
                p,
                "PieceRef",
                "piece of `<Pieces>`",
                kind,
                kinds.iter().copied(),
            ));
        }
        if !positions.contains(&at) {
            return Err(file.unknown(
                p,
                "PositionRef",
                "position of this board",
                at,
                positions.iter().copied(),
            ));
        }
        if let Some((first, owner)) = taken.get(at) {
            let line = file.position(*first).line;
            let first_name = attr(*first, "Name");
            return Err(file
                .attr_error(
                    p,
                    "PositionRef",
                    format!(
                        "two pieces stand on `{at}`: `{}` of player `{name}` and `{first_name}` of player `{owner}` (line {line})",
                        attr(p, "Name")
                    ),
                )
                .with_hint("each position holds at most one piece when the game starts"));
        }
        taken.insert(at, (p, name.clone()));
        pieces.push((kind.to_string(), at.to_string()));
        piece_names.push(attr(p, "Name"));
    }
    if !pieces.iter().any(|(kind, _)| kind.starts_with("King")) {
        return Err(file
            .error(node, format!("player `{name}` has no king"))
            .with_hint(
                "every player has a piece whose type's name starts with `King` (`PieceRef=\"King...\"`)",
            ));
    }
    let mut mapping = Vec::new();
    for m in children_named(node, "BoardMapping").flat_map(|s| children_named(s, "Map")) {
        let (from, to) = (m.attribute("From"), m.attribute("To"));
        if from.unwrap_or_default().is_empty() && to.unwrap_or_default().is_empty() {
            continue;
        }
        for (attribute, value) in [("From", from), ("To", to)] {
            let value = match value {
                Some(v) => v,
                None => file.required(m, attribute)?,
            };
            let letters = value.chars().all(|c| c.is_ascii_alphabetic());
            let number = value.chars().all(|c| c.is_ascii_digit());
            if value.is_empty() || !(letters || number) {
                return Err(file
                    .attr_error(
                        m,
                        attribute,
                        format!("`{attribute}=\"{value}\"` is neither a file (letters) nor a rank (a number)"),
                    )
                    .with_hint(
                        "a `<Map>` turns a file into a file (`From=\"h\" To=\"a\"`) or a rank into a rank (`From=\"8\" To=\"1\"`)",
                    ));
            }
        }
        mapping.push((attr(m, "From"), attr(m, "To")));
    }
    Ok(Player {
        name,
        pieces,
        piece_names,
        mapping,
    })
}

fn read_position<'a, 'i>(
    file: &XmlFile<'a, 'i>,
    node: Node<'a, 'i>,
) -> Result<Position<'a, 'i>, BoardError> {
    let file_name = file.required(node, "File")?;
    let rank = file.required(node, "Rank")?;
    let coords = [
        file_index(file_name).map_or(-1, |i| i as i32),
        rank.trim().parse::<i32>().map_or(-1, |r| r - 1),
    ];
    let mut dirs = Vec::new();
    for d in children_named(node, "Directions").flat_map(|s| children_named(s, "Direction")) {
        let name = file.required(d, "Name")?;
        let kind = match d.attribute("Type") {
            None => DirKind::Plain,
            Some("EDGE") => DirKind::Edge,
            Some("VERTEX") => DirKind::Vertex,
            Some(other) => {
                return Err(file
                    .attr_error(
                        d,
                        "Type",
                        format!("`Type=\"{other}\"` is neither EDGE nor VERTEX"),
                    )
                    .with_hint(
                        "a direction crosses an edge (EDGE) or a corner (VERTEX) of its cell",
                    ));
            }
        };
        let linked = children_named(d, "LinkedPosition")
            .filter_map(|l| {
                let text = l.text().unwrap_or_default().trim();
                (!text.is_empty()).then_some((text, l))
            })
            .collect();
        dirs.push(PosDir { name, kind, linked });
    }
    let mut connections = Vec::new();
    for c in children_named(node, "Connections").flat_map(|s| children_named(s, "Connection")) {
        let (a, b) = (file.required(c, "Point1")?, file.required(c, "Point2")?);
        for (point, value) in [("Point1", a), ("Point2", b)] {
            if !dirs.iter().any(|d: &PosDir| d.name == value) {
                let known: Vec<&str> = dirs.iter().map(|d| d.name).collect();
                return Err(file.unknown(c, point, "direction of this position", value, known));
            }
        }
        connections.push((a, b, c));
    }
    let mut geometry = None;
    for shape in children_named(node, "Shape") {
        for coords in elements(shape).filter(|e| e.tag_name().name() == "Coordinates") {
            let mut points = Vec::new();
            for i in 1.. {
                let (xa, ya) = (format!("x{i}"), format!("y{i}"));
                if coords.attribute(xa.as_str()).is_none()
                    || coords.attribute(ya.as_str()).is_none()
                {
                    break;
                }
                points.push((file.number(coords, &xa)?, file.number(coords, &ya)?));
            }
            if points.len() >= 3 {
                geometry = Some(Geometry::Polygon(points));
            }
        }
    }
    Ok(Position {
        node,
        name: format!("{file_name}{rank}"),
        family: node.attribute("Family").map(str::to_string),
        coords,
        geometry,
        dirs,
        connections,
    })
}

/// The cycle of `pos`'s directions, if its connections form exactly one.
fn cycle(
    file: &XmlFile,
    pos: &Position,
    cell: CellId,
    builder: &BoardBuilder,
) -> Result<Option<Cycle>, BoardError> {
    let id = |name: &str| builder.direction_named(Symbol::intern(name));
    // Directions in the order the position lists them.
    let listed: Vec<DirId> = pos.dirs.iter().filter_map(|d| id(d.name)).collect();
    let mut edges: Vec<(DirId, DirId)> = Vec::new();
    for (a, b, node) in &pos.connections {
        let (Some(a), Some(b)) = (id(a), id(b)) else {
            return Err(file.error(*node, "a connection names an unknown direction"));
        };
        let edge = if a <= b { (a, b) } else { (b, a) };
        if a != b && !edges.contains(&edge) {
            edges.push(edge);
        }
    }
    if edges.len() < 3 {
        return Ok(None);
    }
    let neighbours = |d: DirId| -> Vec<DirId> {
        edges
            .iter()
            .filter_map(|&(a, b)| {
                if a == d {
                    Some(b)
                } else if b == d {
                    Some(a)
                } else {
                    None
                }
            })
            .collect()
    };
    let mut nodes: Vec<DirId> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    if nodes.iter().any(|&d| neighbours(d).len() != 2) {
        return Ok(None);
    }
    let rank = |d: DirId| listed.iter().position(|x| *x == d).unwrap_or(usize::MAX);
    let Some(&start) = nodes.iter().min_by_key(|&&d| rank(d)) else {
        return Ok(None);
    };
    let mut order = vec![start];
    let first = neighbours(start);
    let mut next = if rank(first[0]) <= rank(first[1]) {
        first[0]
    } else {
        first[1]
    };
    let mut previous = start;
    while next != start && order.len() <= nodes.len() {
        order.push(next);
        let around = neighbours(next);
        let following = if around[0] == previous {
            around[1]
        } else {
            around[0]
        };
        previous = next;
        next = following;
    }
    if order.len() != nodes.len() {
        // More than one cycle.
        return Ok(None);
    }
    let orientation = orientation(builder, cell, &order);
    Ok(Some(Cycle { order, orientation }))
}

/// Which way round `order` goes, from the drawings of the cell and its neighbours.
fn orientation(builder: &BoardBuilder, cell: CellId, order: &[DirId]) -> Option<i8> {
    let centres: Vec<(f64, f64)> = order
        .iter()
        .filter_map(|&d| builder.get_link(cell, d))
        .filter_map(|l| builder.geometry(l.target).map(Geometry::center))
        .collect();
    if centres.len() < 3 {
        return None;
    }
    let middle = match builder.geometry(cell) {
        Some(g) => g.center(),
        None => {
            let n = centres.len() as f64;
            let (sx, sy) = centres
                .iter()
                .fold((0.0, 0.0), |a, c| (a.0 + c.0, a.1 + c.1));
            (sx / n, sy / n)
        }
    };
    let angles: Vec<f64> = centres
        .iter()
        .map(|c| (c.1 - middle.1).atan2(c.0 - middle.0))
        .collect();
    let mut total = 0.0;
    for i in 0..angles.len() {
        let mut step = angles[(i + 1) % angles.len()] - angles[i];
        while step > std::f64::consts::PI {
            step -= std::f64::consts::TAU;
        }
        while step <= -std::f64::consts::PI {
            step += std::f64::consts::TAU;
        }
        total += step;
    }
    if total > std::f64::consts::PI {
        Some(1)
    } else if total < -std::f64::consts::PI {
        Some(-1)
    } else {
        None
    }
}

/// Give every link its straight continuation and the permutation that carries the
/// walker's directions across.
fn straighten(builder: &mut BoardBuilder, cycles: &[Option<Cycle>]) -> Result<(), BuildError> {
    let n = builder.direction_count();
    for a in 0..builder.cell_count() {
        let a = CellId(a as u32);
        for k in 0..n {
            let k = DirId(k as u16);
            let Some(link) = builder.get_link(a, k) else {
                continue;
            };
            let b = link.target;
            let cycle_b = cycles[b.0 as usize].as_ref();
            // The direction of b that leads back to a, preferring one on b's cycle.
            let backs: Vec<DirId> = (0..n as u16)
                .map(DirId)
                .filter(|&d| builder.get_link(b, d).is_some_and(|l| l.target == a))
                .collect();
            let back = backs
                .iter()
                .copied()
                .find(|&d| cycle_b.is_some_and(|c| c.index(d).is_some()))
                .or(backs.first().copied());
            let ahead = match (cycle_b, back) {
                (Some(c), Some(j)) => c.opposite(j),
                _ => None,
            };
            let images = ahead.and_then(|s| {
                cycle_map(cycles[a.0 as usize].as_ref(), cycle_b, k, s, n).or_else(|| {
                    let mut images: Vec<DirId> = (0..n as u16).map(DirId).collect();
                    images.swap(k.0 as usize, s.0 as usize);
                    Some(images)
                })
            });
            let perm = match images.and_then(|m| Permutation::new(None, m)) {
                Some(p) if !p.is_identity() => Some(builder.add_permutation(p)?),
                _ => None,
            };
            builder.set_turn(a, k, perm, ahead);
        }
    }
    Ok(())
}

/// The permutation taking `a`'s cycle onto `b`'s with `k` going to `s`, in the same sense
/// round both cells; other directions stay. `None` when the cycles do not correspond.
fn cycle_map(
    a: Option<&Cycle>,
    b: Option<&Cycle>,
    k: DirId,
    s: DirId,
    n: usize,
) -> Option<Vec<DirId>> {
    let (a, b) = (a?, b?);
    let len = a.order.len();
    if b.order.len() != len {
        return None;
    }
    let (ia, ib) = (a.index(k)?, b.index(s)?);
    let sense: i64 = match (a.orientation, b.orientation) {
        (Some(x), Some(y)) if x != y => -1,
        _ => 1,
    };
    let mut images: Vec<DirId> = (0..n as u16).map(DirId).collect();
    let mut used = vec![false; n];
    for t in 0..len {
        let from = a.order[(ia + t) % len];
        let to = b.order[(ib as i64 + sense * t as i64).rem_euclid(len as i64) as usize];
        images[from.0 as usize] = to;
        used[to.0 as usize] = true;
    }
    // The two cycles must use the same directions, or the map is no permutation.
    a.order.iter().all(|d| used[d.0 as usize]).then_some(images)
}
