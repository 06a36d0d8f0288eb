//! A digest of a world: one number that two equal worlds share, stable across runs and
//! machines (journals record it to check a replay; tests compare worlds by it).

use std::fmt::Write as _;

use crate::compile::program::Game;

use super::world::World;

/// A digest of everything in the world: entities, their properties and states, the outcome,
/// the advice in force and the random generator. Equal worlds give equal digests.
pub fn digest(game: &Game, world: &World) -> u64 {
    let mut text = String::new();
    for (id, e) in world.iter() {
        let _ = write!(
            text,
            "{}:{}:{}:{}",
            id.0,
            e.name,
            game.ty(e.ty).name,
            e.state
        );
        for (name, value) in e.properties(game) {
            let _ = write!(text, ":{name}={value}");
        }
        text.push('\n');
    }
    if let Some(o) = &world.outcome {
        let _ = writeln!(
            text,
            "outcome {}",
            crate::runtime::value::Value::dict(o.clone())
        );
    }
    for a in &world.advice.entries {
        let _ = writeln!(text, "advice {} {}", a.advice.name, a.enabled);
    }
    let _ = writeln!(text, "rng {}", world.rng);
    fnv1a(text.as_bytes())
}

/// The 64-bit FNV-1a hash of `bytes`: stable across runs, machines and versions.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
