//! Bidding systems: rules files that say which call a player makes in an auction, read
//! from XML (`read.rs`, the structure of `lang/bidding-system.dtd`) and followed by the
//! agent `system:<file>` (`eval.rs`).
//!
//! A file is a `rules` root (data elements `type`, `name`, `level`, `owner`, `contact`)
//! holding `group`s, each a `purpose` then `if`s. An `if` tests one quality of the player
//! to move (`name`, `comparison`, `value`) and may hold nested `if`s, `set`s, `comment`s
//! and at most one `bid`. The qualities are the game's own functions `quality-<name>`
//! (no parameters, for the player to move), or what a `set` gave earlier in the auction.
//! A bid is made when its `if` and every enclosing `if` hold: the first such bid in
//! document order that is legal now is the call; none, and the player passes.

mod eval;
mod read;

pub(super) use eval::decide;
pub use eval::{Choice, Memory, Qualities, choose};
pub use read::{load, parse};

use crate::source::Span;

/// The prefix of the game's functions that give a quality (`quality-points`).
pub const QUALITY_PREFIX: &str = "quality-";

/// A piece of text of the file and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    /// The text, trimmed.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// How an `if` compares its quality with its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `equal`
    Equal,
    /// `not-equal`
    NotEqual,
    /// `less`
    Less,
    /// `less-or-equal`
    LessOrEqual,
    /// `greater`
    Greater,
    /// `greater-or-equal`
    GreaterOrEqual,
}

impl Comparison {
    /// Every comparison, by its name in a file.
    pub const NAMES: [(&'static str, Comparison); 6] = [
        ("equal", Comparison::Equal),
        ("not-equal", Comparison::NotEqual),
        ("less", Comparison::Less),
        ("less-or-equal", Comparison::LessOrEqual),
        ("greater", Comparison::Greater),
        ("greater-or-equal", Comparison::GreaterOrEqual),
    ];

    /// The name a file writes.
    pub fn name(self) -> &'static str {
        Comparison::NAMES
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("equal", |(n, _)| n)
    }
}

/// What an `if` holds besides its test.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A nested rule.
    If(Rule),
    /// `set`: a quality given a value for the rest of the auction.
    Set {
        /// The quality.
        name: Text,
        /// Its value (a quality's name takes that quality's value).
        value: Text,
    },
    /// A comment, shown with a call it leads to.
    Comment(String),
    /// The call (its ASCII name).
    Bid(Text),
}

/// An `if`: a test of a quality, and what follows when it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// The quality tested.
    pub name: Text,
    /// How.
    pub comparison: Comparison,
    /// Against what (a quality's name compares with that quality).
    pub value: Text,
    /// What it holds, in document order.
    pub items: Vec<Item>,
    /// Where the `if` starts.
    pub span: Span,
}

/// A `group`: its purpose and its rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// What the group is for.
    pub purpose: String,
    /// Its `if`s, in document order.
    pub rules: Vec<Rule>,
}

/// A bidding system as read from its file.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    /// The file, as named.
    pub path: String,
    /// The file's text (for diagnostics found later, against the game's qualities).
    pub text: std::sync::Arc<str>,
    /// The `name` element, if any.
    pub name: Option<String>,
    /// The groups, in document order.
    pub groups: Vec<Group>,
}

impl System {
    /// Call `f` on every quality the file names, in document order: each `if`'s `name`
    /// (`false`) and each `set`'s (`true`).
    fn each_named<'a>(&'a self, mut f: impl FnMut(&'a Text, bool)) {
        fn walk<'a>(rule: &'a Rule, f: &mut impl FnMut(&'a Text, bool)) {
            f(&rule.name, false);
            for item in &rule.items {
                match item {
                    Item::If(r) => walk(r, f),
                    Item::Set { name, .. } => f(name, true),
                    _ => {}
                }
            }
        }
        for g in &self.groups {
            for r in &g.rules {
                walk(r, &mut f);
            }
        }
    }

    /// Every quality the file names in an `if` or a `set`, with where.
    fn named_qualities(&self) -> Vec<&Text> {
        let mut out = Vec::new();
        self.each_named(|name, _| out.push(name));
        out
    }

    /// The names the file gives qualities with `set`.
    pub fn set_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.each_named(|name, set| {
            if set {
                out.push(name.text.clone());
            }
        });
        out
    }
}
