//! Lists, dictionaries and `str`.
//!
//! Every builtin that returns an updated collection moves its argument out of the slice
//! and updates it with `Rc::make_mut`: in place when nobody else holds it, on a cheap
//! structural copy otherwise, so other holders never see the change.
//!
//! The builtins themselves are grouped by concept: [`super::lists`], [`super::search`],
//! [`super::dicts`] and [`super::text`]; this module gathers them under one name.

pub use super::dicts::read_fast;
pub(super) use super::dicts::{dict, get, has, keys, put, remove_key, values};
pub(super) use super::lists::{
    append, concat, drop, first, last, length, list, nth, prepend, range, rest, reverse, sort, take,
};
pub use super::search::contains_letter;
pub(super) use super::search::{contains, index_of, remove};
pub(super) use super::text::str;
pub(crate) use super::text::text_of;

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::super::test_support::*;
    use crate::runtime::value::Value;

    #[test]
    fn updates_leave_shared_collections_unchanged() {
        let original = ints(&[1, 2, 3]);
        let shared = original.clone();
        assert_eq!(
            ok("append", vec![shared.clone(), i(4)]),
            ints(&[1, 2, 3, 4])
        );
        assert_eq!(
            ok("prepend", vec![shared.clone(), i(0)]),
            ints(&[0, 1, 2, 3])
        );
        assert_eq!(ok("rest", vec![shared.clone()]), ints(&[2, 3]));
        assert_eq!(ok("remove", vec![shared.clone(), i(2)]), ints(&[1, 3]));
        assert_eq!(ok("take", vec![shared.clone(), i(1)]), ints(&[1]));
        assert_eq!(ok("drop", vec![shared.clone(), i(1)]), ints(&[2, 3]));
        assert_eq!(
            ok("put", vec![shared.clone(), i(0), i(9)]),
            ints(&[9, 2, 3])
        );
        assert_eq!(
            ok("concat", vec![shared.clone(), ints(&[4])]),
            ints(&[1, 2, 3, 4])
        );
        assert_eq!(ok("reverse", vec![shared.clone()]), ints(&[3, 2, 1]));
        assert_eq!(shared, ints(&[1, 2, 3]));
        assert_eq!(original, ints(&[1, 2, 3]));

        let dict = d(vec![(s("a"), i(1))]);
        let held = dict.clone();
        ok("put", vec![held.clone(), s("b"), i(2)]);
        ok("remove-key", vec![held.clone(), s("a")]);
        assert_eq!(held, d(vec![(s("a"), i(1))]));
    }

    #[test]
    fn unique_collections_are_updated_in_place() {
        let list = ints(&[1, 2]);
        let before = match &list {
            Value::List(a) => Rc::as_ptr(a),
            _ => unreachable!(),
        };
        match ok("append", vec![list, i(3)]) {
            Value::List(a) => assert_eq!(Rc::as_ptr(&a), before),
            v => panic!("{v}"),
        }
        let dict = d(vec![]);
        let before = match &dict {
            Value::Dict(a) => Rc::as_ptr(a),
            _ => unreachable!(),
        };
        match ok("put", vec![dict, s("k"), i(1)]) {
            Value::Dict(a) => assert_eq!(Rc::as_ptr(&a), before),
            v => panic!("{v}"),
        }
    }
}
