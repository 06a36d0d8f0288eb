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
//! text, for a chess game to interpret.

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
        rules: children_named(root, "Rules").flat_map(rules).collect(),
        pieces: children_named(root, "Pieces")
            .flat_map(|s| children_named(s, "Piece"))
            .map(piece)
            .collect(),
        players: children_named(root, "Players")
            .flat_map(|s| children_named(s, "Player"))
            .map(player)
            .collect(),
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

fn rules(holder: Node) -> Vec<Rule> {
    children_named(holder, "Rule")
        .map(|r| Rule {
            attributes: attributes(r),
            rules: children_named(r, "Rules").flat_map(rules).collect(),
        })
        .collect()
}

fn piece(node: Node) -> Piece {
    Piece {
        name: attr(node, "Name"),
        image: node.attribute("Image").map(str::to_string),
        family: node.attribute("Family").map(str::to_string),
        allowed_moves: children_named(node, "AllowedMoves")
            .flat_map(|m| children_named(m, "Rule"))
            .map(|r| r.text().unwrap_or_default().trim().to_string())
            .collect(),
    }
}

fn player(node: Node) -> Player {
    Player {
        name: attr(node, "Name"),
        pieces: children_named(node, "Pieces")
            .flat_map(|s| children_named(s, "Piece"))
            .map(|p| (attr(p, "Name"), attr(p, "PieceRef"), attr(p, "PositionRef")))
            .collect(),
        mapping: children_named(node, "BoardMapping")
            .flat_map(|m| children_named(m, "Map"))
            .map(|m| (attr(m, "From"), attr(m, "To")))
            .collect(),
    }
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
