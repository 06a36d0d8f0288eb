//! BoardGame link files: `<board>` with fields, directions and permutations.
//!
//! The format is the seed's DTD: `<board name image>` holds `<dir id>`, `<perm id>` (with
//! `<map s t>` children sending direction `s` to `t`; directions not mapped stay put) and
//! `<field id l t w h>` (with `<link t d p>` children: target field, direction,
//! permutation), in any order. Every attribute of the DTD is required; ids share one
//! namespace, as XML ids do.
//!
//! Each field becomes a cell named by its id, with coordinates `[l, t]` rounded to integers
//! and its rectangle as geometry. A link's permutation is applied to the walker's
//! directions when it is crossed, and a ray goes on in the permuted direction. Condition 2
//! is read as the seed writes it: after `(a, k) → b` with permutation `r`, the link back
//! from `b` is in direction `r(k)` and carries the inverse of `r`. A second link of a field
//! in one direction (condition 1) is ignored and reported as a problem.

use rustc_hash::FxHashMap;

use roxmltree::Node;

use super::builder::{BoardBuilder, BuildError};
use super::error::BoardError;
use super::problem::{Problem, ProblemKind};
use super::topology::{
    Board, CellId, DirId, DirKind, Geometry, InverseRule, Origin, PermId, Permutation,
};
use super::xml::{XmlFile, elements};
use crate::symbol::Symbol;

fn too_large(file: &XmlFile, node: Node) -> BoardError {
    file.error(
        node,
        "the board is too large (too many fields or directions)",
    )
}

/// Read the board of a BoardGame file whose root element is `root`.
pub(crate) fn read(file: &XmlFile, root: Node) -> Result<Board, BoardError> {
    let name = file.required(root, "name")?;
    let image = file.required(root, "image")?;
    let mut dirs = Vec::new();
    let mut perms = Vec::new();
    let mut fields = Vec::new();
    for child in elements(root) {
        match child.tag_name().name() {
            "dir" => dirs.push(child),
            "perm" => perms.push(child),
            "field" => fields.push(child),
            other => {
                return Err(file
                    .error(child, format!("`<{other}>` has no place in a `<board>`"))
                    .with_hint("a board holds `<field>`, `<dir>` and `<perm>` elements"));
            }
        }
    }
    if fields.is_empty() {
        return Err(file.error(root, "the board has no `<field>`"));
    }
    // XML ids are one namespace: fields, directions and permutations.
    let mut ids: FxHashMap<&str, Node> = FxHashMap::default();
    for node in dirs.iter().chain(&perms).chain(&fields) {
        let id = file.required(*node, "id")?;
        if let Some(first) = ids.insert(id, *node) {
            let line = file.position(first).line;
            return Err(file.attr_error(
                *node,
                "id",
                format!("the id `{id}` is used twice (first on line {line})"),
            ));
        }
    }
    let mut builder = BoardBuilder::new(name, 2, InverseRule::Permuted);
    let mut dir_ids: FxHashMap<&str, DirId> = FxHashMap::default();
    for node in &dirs {
        let id = file.required(*node, "id")?;
        let d = builder
            .add_direction(Symbol::intern(id), DirKind::Plain)
            .map_err(|_| too_large(file, *node))?;
        dir_ids.insert(id, d);
        if let Some(extra) = elements(*node).next() {
            return Err(file.error(extra, "`<dir>` is empty in this format"));
        }
    }
    let mut field_ids: FxHashMap<&str, CellId> = FxHashMap::default();
    for node in &fields {
        let id = file.required(*node, "id")?;
        let (l, t) = (file.number(*node, "l")?, file.number(*node, "t")?);
        let (w, h) = (file.number(*node, "w")?, file.number(*node, "h")?);
        let geometry = Geometry::Rect {
            left: l,
            top: t,
            width: w,
            height: h,
        };
        let coords = [l.round() as i32, t.round() as i32];
        let c = builder
            .add_cell(Symbol::intern(id), &coords, Some(geometry))
            .map_err(|_| too_large(file, *node))?;
        field_ids.insert(id, c);
    }
    let mut perm_ids: FxHashMap<&str, PermId> = FxHashMap::default();
    for node in &perms {
        let id = file.required(*node, "id")?;
        let p = permutation(file, *node, id, &dir_ids, builder.direction_count())?;
        let p = builder
            .add_permutation(p)
            .map_err(|_| too_large(file, *node))?;
        perm_ids.insert(id, p);
    }
    for (i, field) in fields.iter().enumerate() {
        // Cells were added in field order.
        let from = CellId(i as u32);
        for link in elements(*field) {
            if link.tag_name().name() != "link" {
                return Err(file
                    .error(
                        link,
                        format!("`<{}>` has no place in a `<field>`", link.tag_name().name()),
                    )
                    .with_hint("a field holds `<link t d p>` elements"));
            }
            let target = reference(file, link, "t", "field", &field_ids)?;
            let dir = reference(file, link, "d", "direction", &dir_ids)?;
            let perm = reference(file, link, "p", "permutation", &perm_ids)?;
            let ahead = builder.permutation(perm).apply(dir);
            match builder.link(from, dir, target, Some(perm), Some(ahead)) {
                Ok(()) => builder.set_link_position(from, dir, file.position(link)),
                Err(BuildError::LinkExists(kept)) => {
                    let names = |c: CellId| Symbol::intern(file_name(&field_ids, c));
                    builder.add_problem(Problem {
                        kind: ProblemKind::SecondLink {
                            cell: names(from),
                            dir: Symbol::intern(file.required(link, "d")?),
                            kept: names(kept),
                            dropped: names(target),
                        },
                        cell: from,
                        dir,
                        at: Some(file.position(link)),
                    });
                }
                Err(_) => return Err(too_large(file, link)),
            }
        }
    }
    builder
        .finish(Origin::BoardGame {
            image: image.to_string(),
        })
        .map_err(|_| too_large(file, root))
}

fn file_name<'a>(ids: &FxHashMap<&'a str, CellId>, c: CellId) -> &'a str {
    ids.iter().find(|(_, v)| **v == c).map_or("?", |(k, _)| *k)
}

/// The id that attribute `attr` of `node` refers to, looked up in `known`.
fn reference<T: Copy>(
    file: &XmlFile,
    node: Node,
    attr: &str,
    what: &str,
    known: &FxHashMap<&str, T>,
) -> Result<T, BoardError> {
    let value = file.required(node, attr)?;
    known.get(value).copied().ok_or_else(|| {
        let mut names: Vec<&str> = known.keys().copied().collect();
        names.sort_unstable();
        file.unknown(node, attr, what, value, names)
    })
}

/// The permutation of a `<perm>` element.
fn permutation(
    file: &XmlFile,
    node: Node,
    id: &str,
    dirs: &FxHashMap<&str, DirId>,
    count: usize,
) -> Result<Permutation, BoardError> {
    let mut images: Vec<Option<DirId>> = vec![None; count];
    for map in elements(node) {
        if map.tag_name().name() != "map" {
            return Err(file.error(
                map,
                format!("`<{}>` has no place in a `<perm>`", map.tag_name().name()),
            ));
        }
        let s = reference(file, map, "s", "direction", dirs)?;
        let t = reference(file, map, "t", "direction", dirs)?;
        if images[s.0 as usize].replace(t).is_some() {
            return Err(file.attr_error(
                map,
                "s",
                format!("`{id}` maps `{}` twice", file.required(map, "s")?),
            ));
        }
    }
    let full: Vec<DirId> = images
        .iter()
        .enumerate()
        .map(|(i, d)| d.unwrap_or(DirId(i as u16)))
        .collect();
    Permutation::new(Some(Symbol::intern(id)), full).ok_or_else(|| {
        file.error(
            node,
            format!("the maps of `{id}` do not form a permutation: two directions have the same image"),
        )
        .with_hint("a permutation sends different directions to different directions; directions it does not map stay as they are")
    })
}
