//! Tests of dictionaries: both representations against a reference map.

use std::collections::BTreeMap;

use super::*;
use crate::symbol::Symbol;

/// A string key is found the same way whether the key or the entry is a symbol or a
/// string made at run time, among integer keys or not, in a short dictionary (one word
/// compare per key) or a long one.
#[test]
fn string_keys_are_found_as_symbols_or_texts() {
    let sym = |t: &str| Text::sym(Symbol::intern(t));
    let made = |t: &str| Text::new(t);
    for size in [0, 1, 5, SCAN_UP_TO, SCAN_UP_TO + 1, 100] {
        for with_ints in [false, true] {
            for made_every in [0, 1, 3] {
                let mut d = Dict::new();
                if with_ints {
                    d.insert(Key::Int(-4), Value::Int(0));
                    d.insert(Key::Int(7), Value::Int(1));
                }
                for i in 0..size {
                    let name = format!("dict-scan-key-{i}");
                    let text = if made_every > 0 && i % made_every == 0 {
                        made(&name)
                    } else {
                        sym(&name)
                    };
                    d.insert(Key::Str(text), Value::Int(i as i64));
                }
                for i in 0..size + 2 {
                    let name = format!("dict-scan-key-{i}");
                    let want = (i < size).then_some(Value::Int(i as i64));
                    for key in [sym(&name), made(&name)] {
                        assert_eq!(d.get_text(&key).cloned(), want, "{size} {name}");
                        assert_eq!(d.get(&Key::Str(key.clone())).cloned(), want);
                    }
                }
                for absent in ["", "dict-scan-key", "z"] {
                    assert_eq!(d.get_text(&sym(absent)), None);
                    assert_eq!(d.get_text(&made(absent)), None);
                }
            }
        }
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Key number `n`: integers (negative too), then strings, some interned and some made
/// at run time, named so that their order is not the order of their numbers.
fn key(n: u64) -> Key {
    match n % 4 {
        0 | 1 => Key::Int(n as i64 / 2 - 300),
        2 => Key::sym(Symbol::intern(&format!("k{}", n * 7919 % 1000))),
        _ => Key::Str(super::super::Text::new(&format!(
            "dict-test-{}",
            n * 31 % 997
        ))),
    }
}

fn same(d: &Dict, model: &BTreeMap<Key, Value>) {
    d.check();
    assert_eq!(d.len(), model.len());
    assert!(d.iter().eq(model.iter()), "same entries in the same order");
    assert!(d.iter().rev().eq(model.iter().rev()), "and backwards");
    assert!(d.keys().eq(model.keys()));
    assert!(d.values().eq(model.values()));
    assert_eq!(d.chunks().map(<[Entry]>::len).sum::<usize>(), d.len());
    assert_eq!(d.clone().into_iter().collect::<BTreeMap<_, _>>(), *model);
}

/// Random puts, removals and lookups on a dictionary and a `BTreeMap`, some on copies
/// that someone else holds: the two always agree, and a copy held never changes.
/// Gives whether the dictionary was seen as chunks.
fn against_the_model(seed: u64, keys: u64, steps: usize) -> bool {
    let mut chunked = false;
    let mut rng = Rng(seed);
    let mut d = Rc::new(Dict::new());
    let mut model = BTreeMap::new();
    let mut held: Vec<(Rc<Dict>, BTreeMap<Key, Value>)> = Vec::new();
    for step in 0..steps {
        let k = key(rng.below(keys));
        match rng.below(10) {
            0..=4 => {
                let v = Value::Int(step as i64);
                let place = d.search(&k);
                assert_eq!(place.is_new(), !model.contains_key(&k));
                let old = Dict::insert_in(&mut d, place, k.clone(), v.clone());
                assert_eq!(old, model.insert(k.clone(), v));
            }
            5..=6 => {
                let place = d.search(&k);
                assert_eq!(Dict::remove_in(&mut d, place, &k), model.remove(&k));
            }
            7 => {
                if let Some(v) = Dict::make_mut(&mut d, 0).get_mut(&k) {
                    *v = Value::Int(-1);
                    model.insert(k.clone(), Value::Int(-1));
                }
            }
            8 => {
                if held.len() > 3 {
                    held.remove(rng.below(4) as usize);
                }
                held.push((d.clone(), model.clone()));
            }
            _ => {
                assert_eq!(Dict::make_mut(&mut d, 0).remove(&k), model.remove(&k));
            }
        }
        assert_eq!(d.get(&k), model.get(&k));
        assert_eq!(d.contains_key(&k), model.contains_key(&k));
        chunked |= !d.is_flat();
        if step % 64 == 0 {
            same(&d, &model);
            for (h, m) in &held {
                same(h, m);
            }
        }
    }
    same(&d, &model);
    for (h, m) in &held {
        same(h, m);
    }
    let rebuilt: Dict = model.clone().into_iter().collect();
    assert!(rebuilt == *d);
    same(&rebuilt, &model);
    chunked
}

#[test]
fn small_dictionaries_behave_as_ordered_maps() {
    for seed in 1..20 {
        assert!(!against_the_model(seed, 40, 400));
    }
}

#[test]
fn dictionaries_across_the_chunk_boundaries_behave_as_ordered_maps() {
    // Around the size where one vector becomes chunks, then well past it.
    // Shared copies of more than a chunk, and growth past the largest vector.
    for (seed, keys) in [(7, 150), (8, 160), (9, 700), (10, 3000), (11, 5000)] {
        assert!(against_the_model(seed, keys, 6000));
    }
}

#[test]
fn growing_in_order_and_backwards_then_emptying() {
    for keys in [
        (0..1500).collect::<Vec<i64>>(),
        (0..1500).rev().collect(),
        (0..1500).map(|i| i * 7 % 1500).collect(),
    ] {
        let mut d = Dict::new();
        let mut model = BTreeMap::new();
        for &k in &keys {
            d.insert(Key::Int(k), Value::Int(k));
            model.insert(Key::Int(k), Value::Int(k));
        }
        assert!(!d.is_flat());
        same(&d, &model);
        for &k in keys.iter().rev() {
            assert_eq!(d.remove(&Key::Int(k)), model.remove(&Key::Int(k)));
            if k % 97 == 0 {
                same(&d, &model);
            }
        }
        assert!(d.is_flat() && d.is_empty());
    }
}

#[test]
fn a_write_to_a_copy_never_shows_in_the_original() {
    for n in [3, CHUNK_MAX, CHUNK_MAX + 1, 500, FLAT_MAX, FLAT_MAX + 1] {
        let original: Dict = (0..n as i64)
            .map(|i| (Key::Int(i), Value::Int(i)))
            .collect();
        let model: BTreeMap<Key, Value> = original
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let held = Rc::new(original);
        let mut copy = held.clone();
        let place = copy.search(&Key::Int(1));
        Dict::insert_in(&mut copy, place, Key::Int(1), Value::Nil);
        let place = copy.search(&Key::Int(-5));
        Dict::insert_in(&mut copy, place, Key::Int(-5), Value::Nil);
        let place = copy.search(&Key::Int(2));
        Dict::remove_in(&mut copy, place, &Key::Int(2));
        same(&held, &model);
        assert_eq!(held.is_flat(), n <= FLAT_MAX);
        // A large vector is copied into chunks; a small one stays a vector.
        assert_eq!(copy.is_flat(), n <= CHUNK_MAX);
        assert_eq!(copy.get(&Key::Int(1)), Some(&Value::Nil));
        assert_eq!(copy.len(), n + 1 - 1);
    }
}

#[test]
fn copied_chunks_count_the_values_they_share() {
    let inner = Rc::new(super::super::List::from_vec(vec![
        Value::Int(1),
        Value::Int(2),
    ]));
    let text = Value::str("dict-test-shared-text");
    for n in [3, CHUNK_MAX + 1, 300] {
        let original: Dict = (0..n as i64)
            .map(|i| {
                let v = match i % 3 {
                    0 => Value::List(inner.clone()),
                    1 => text.clone(),
                    _ => Value::Int(i),
                };
                (Key::Int(i), v)
            })
            .collect();
        let model: BTreeMap<Key, Value> = original
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let first = Rc::new(original);
        // A large one is chunked from here on: each update below copies one chunk.
        let mut held = first.clone();
        Dict::make_mut(&mut held, 0);
        drop(first);
        assert_eq!(held.is_flat(), n <= CHUNK_MAX);
        for step in 0..3i64 {
            let mut copy = held.clone();
            let place = copy.search(&Key::Int(0));
            Dict::insert_in(&mut copy, place, Key::Int(0), Value::Int(-1));
            let place = copy.search(&Key::Int(n as i64 + step));
            Dict::insert_in(&mut copy, place, Key::Int(n as i64 + step), text.clone());
            let place = copy.search(&Key::Int(1));
            Dict::remove_in(&mut copy, place, &Key::Int(1));
            assert_eq!(copy.get(&Key::Int(0)), Some(&Value::Int(-1)));
            if let Some(v) = Dict::make_mut(&mut copy, 0).get_mut(&Key::Int(n as i64 - 1)) {
                *v = Value::List(inner.clone());
            }
            same(&held, &model);
            assert_eq!(
                copy.get(&Key::Int(n as i64 - 1)),
                Some(&Value::List(inner.clone()))
            );
            assert_eq!(copy.get(&Key::Int(1)), None);
            assert_eq!(copy.len(), n + 1 - 1);
        }
        drop(held);
    }
    // Every copy of the counted values was given back.
    assert_eq!(Rc::strong_count(&inner), 1);
    assert_eq!(text.to_string(), "\"dict-test-shared-text\"");
}

proptest::proptest! {
    /// Any sequence of puts, removals, bulk insertions (past the largest vector) and
    /// copies kept (so that the next update copies) leaves the same entries, in the same
    /// order, as an ordered map given the same sequence, and never changes a copy kept.
    #[test]
    fn behaves_as_an_ordered_map(ops in proptest::collection::vec((0u8..10, 0u64..400), 0..300)) {
        let mut d = Rc::new(Dict::new());
        let mut model = BTreeMap::new();
        let mut held = Vec::new();
        for (i, (op, k)) in ops.into_iter().enumerate() {
            let key = key(k);
            match op {
                0..=4 => {
                    let place = d.search(&key);
                    let old = Dict::insert_in(&mut d, place, key.clone(), Value::Int(i as i64));
                    proptest::prop_assert_eq!(old, model.insert(key.clone(), Value::Int(i as i64)));
                }
                5..=7 => {
                    let place = d.search(&key);
                    proptest::prop_assert_eq!(Dict::remove_in(&mut d, place, &key), model.remove(&key));
                }
                8 => held.push((d.clone(), model.clone())),
                _ => {
                    for n in 0..FLAT_MAX as i64 + 100 {
                        let key = Key::Int(n * 3 - 1000 + k as i64);
                        Dict::make_mut(&mut d, 1).insert(key.clone(), Value::Int(n));
                        model.insert(key, Value::Int(n));
                    }
                }
            }
            proptest::prop_assert_eq!(d.get(&key), model.get(&key));
        }
        same(&d, &model);
        for (h, m) in &held {
            same(h, m);
        }
    }
}

#[test]
fn later_pairs_win_and_any_order_is_sorted() {
    let d: Dict = [(3, 1), (1, 2), (3, 3), (2, 4), (1, 5)]
        .into_iter()
        .map(|(k, v)| (Key::Int(k), Value::Int(v)))
        .collect();
    let shown: Vec<(i64, i64)> = d
        .iter()
        .map(|(k, v)| match (k, v) {
            (Key::Int(k), Value::Int(v)) => (*k, *v),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(shown, [(1, 5), (2, 4), (3, 3)]);
}

/// A dictionary of names looked up often answers by its table of names (`names.rs`) as a
/// map does, through keys added and taken out (the table dropped and made again), values
/// changed in place and copies held, for names there and not and for texts made at run
/// time with a name's letters; and the table is made where it can be, and only there.
#[test]
fn the_table_of_names_answers_as_a_map() {
    let name = |i: u64| Text::sym(Symbol::intern(&format!("dict-name-{i}")));
    // (Interned above: the same name, as a string made at run time.)
    let made = |i: u64| Text::new(&format!("dict-name-{i}"));
    let mut rng = Rng(0x5EED_1234);
    for universe in [4, 12, 40, 300] {
        let mut d = Rc::new(Dict::new());
        let mut model = BTreeMap::new();
        let mut held = Vec::new();
        let mut seen_made = false;
        for step in 0..4000 {
            let i = rng.below(universe);
            match rng.below(12) {
                0..=3 => {
                    let v = Value::Int(step);
                    let key = match rng.below(8) {
                        0 => Key::Int(i as i64),
                        _ => Key::Str(name(i)),
                    };
                    let place = d.search(&key);
                    let old = Dict::insert_in(&mut d, place, key.clone(), v.clone());
                    assert_eq!(old, model.insert(key, v));
                }
                4 => {
                    let key = Key::Str(name(i));
                    let place = d.search(&key);
                    assert_eq!(Dict::remove_in(&mut d, place, &key), model.remove(&key));
                }
                5 => {
                    let key = Key::Str(name(i));
                    if let Some(v) = Dict::make_mut(&mut d, 0).get_mut(&key) {
                        *v = Value::Int(-step);
                        model.insert(key, Value::Int(-step));
                    }
                }
                6 => held.push((d.clone(), model.clone())),
                _ => {}
            }
            for _ in 0..6 {
                let j = rng.below(universe + 3);
                let want = model.get(&Key::Str(name(j)));
                assert_eq!(d.get(&Key::Str(name(j))), want, "{universe} {step} {j}");
                assert_eq!(d.get_text(&name(j)), want);
                assert_eq!(d.get_text(&made(j)), want);
                assert_eq!(d.get(&Key::Str(made(j))), want);
            }
            seen_made |= d.names.is_made();
            if d.names.is_made() {
                assert!(d.len() >= names::FEWEST);
            }
        }
        assert_eq!(seen_made, universe >= 12, "{universe}");
        for (h, m) in &held {
            for j in 0..universe + 3 {
                assert_eq!(h.get(&Key::Str(name(j))), m.get(&Key::Str(name(j))));
            }
        }
    }
    // A key made at run time before its letters were interned: no table, and the name
    // of its letters, interned after, finds it by them.
    let mut d = Dict::new();
    d.insert(Key::Str(Text::new("dict-made-early")), Value::Int(-1));
    for i in 0..20 {
        d.insert(Key::Str(name(i)), Value::Int(i as i64));
    }
    let late = Text::sym(Symbol::intern("dict-made-early"));
    for _ in 0..10 {
        assert_eq!(d.get_text(&late), Some(&Value::Int(-1)));
        assert_eq!(d.get(&Key::Str(late.clone())), Some(&Value::Int(-1)));
        assert_eq!(d.get_text(&name(8)), Some(&Value::Int(8)));
        assert_eq!(d.get_text(&name(20)), None);
    }
    assert!(!d.names.is_made());
}
