//! Tests of the tables the instruction loop and the builtins the machine runs read.

use crate::compile::builtins::BUILTINS;
use crate::compile::bytecode::IntOp;

use super::exec::{CONTAINS, FAST_OPS, FIRST, LAST, LOWER, NOT};
use super::game_fns::{GAME_FNS, GameFn, SELF};

#[test]
fn fast_paths_name_the_right_builtins() {
    for (index, op) in FAST_OPS.iter().enumerate() {
        assert_eq!(*op, IntOp::of_builtin(index as u16), "builtin {index}");
    }
    assert_eq!(BUILTINS[NOT as usize].name, "not");
    assert_eq!(BUILTINS[LOWER as usize].name, "lower");
    assert_eq!(BUILTINS[CONTAINS as usize].name, "contains");
    assert_eq!(BUILTINS[FIRST as usize].name, "first");
    assert_eq!(BUILTINS[LAST as usize].name, "last");
    assert_eq!(BUILTINS[SELF as usize].name, "self");
    assert_eq!(GAME_FNS[SELF as usize], Some(GameFn::SelfName));
}
