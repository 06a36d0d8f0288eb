//! Message values ([`Message`]): a label and attributes.

use super::Attrs;
use crate::symbol::Symbol;

/// A message value.
#[derive(Clone, PartialEq, Debug)]
pub struct Message {
    /// The label it is dispatched on.
    pub label: Symbol,
    /// Its attributes, in key order.
    pub attrs: Attrs,
}

impl Message {
    /// A message with label `label` and attributes `attrs`.
    pub fn new(label: Symbol, attrs: impl Into<Attrs>) -> Message {
        Message {
            label,
            attrs: attrs.into(),
        }
    }
}
