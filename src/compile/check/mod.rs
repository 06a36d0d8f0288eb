//! Static checks run before anything executes.
//!
//! Duplicate definitions, inheritance, the targets of advice, instances, boards and
//! representations, unbound variables, unknown functions and argument counts. Every
//! problem is reported; checking never stops at the first.
//!
//! The checker is one walk over a game's items: `collect` gathers every global name,
//! `definitions` checks each definition, `advice` the targets and names of laws and
//! side-effects, `code` the code of every body, and `lints` the warnings
//! `flexrules check` adds. `names` checks the names code writes as string literals
//! (entities, types, properties, states) and `truth` conditions that are numbers and
//! literal divisions by zero; both rest on facts gathered in one walk before the code is
//! checked.

use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diagnostic::{Diagnostic, closest};
use crate::source::Span;
use crate::syntax::ast::{
    AdviceDef, AdviceKind, BoardShape, EntityDef, Expr, ExprKind, FormOp, Item, Name, Pattern,
    Symbol,
};
use crate::syntax::load::Loaded;

use super::builtins::{self, FORM_NAMES};

mod advice;
mod code;
mod collect;
mod definitions;
mod lints;
mod names;
mod truth;

pub use advice::advice_name;

/// What the checker may assume about the world the game runs in.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Warn about advice bound to labels or states nothing uses.
    pub lint_unused_patterns: bool,
}

/// Where a piece of code runs, which decides the forms it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    /// A behaviour of an entity, or advice.
    Entity,
    /// A behaviour of a representation.
    Representation,
    /// A `#define`d function (called from either).
    Function,
    /// `#setup`, `#actions`.
    Game,
    /// A `#property`, `#param` or `#instance` value.
    Value,
}

struct TypeInfo {
    def_span: Span,
    extends: Option<Name>,
    states: FxHashSet<Symbol>,
}

/// Check a loaded game. Returns the diagnostics (errors and warnings) found.
pub fn check(loaded: &Loaded, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut c = Checker::new();
    let items = &loaded.program.items;
    c.collect(items, Some(&loaded.sources));
    c.gather(items);
    c.statics = true;
    c.lint = options.lint_unused_patterns;
    c.check_items(items);
    if options.lint_unused_patterns {
        c.lint_patterns(items);
        c.lint_keys();
    }
    c.diags
}

/// Code added to a game while it runs.
#[derive(Clone, Copy, Debug)]
pub enum Snippet<'a> {
    /// Statements run as the user (a REPL expression).
    User(&'a [Expr]),
    /// A law or side-effect added as a house rule.
    Advice(&'a AdviceDef),
}

/// Check code added to a running game against the game's definitions: unbound names,
/// unknown functions, argument counts, and for advice its target, with the warnings
/// `flexrules check` gives (a label no behaviour handles, a state the target lacks).
pub fn check_snippet(
    program: &crate::syntax::ast::Program,
    advice_in_force: &[String],
    snippet: Snippet<'_>,
) -> Vec<Diagnostic> {
    let mut c = Checker::new();
    c.collect(&program.items, None);
    c.lint = true;
    // The names and numbers checks (`names`, `truth`) are not run on code added to a
    // running game: the REPL may name entities made earlier at run time, and rules files
    // are where a game's failures at run time are tried out on purpose.
    if let Snippet::Advice(_) = snippet {
        // The game's code is walked for what the lints of advice need to know of it (the
        // labels it sends); what it finds in the game itself was reported when the game
        // was checked.
        c.check_items(&program.items);
    }
    c.diags.clear();
    c.base_advice = advice_in_force.iter().cloned().collect();
    match snippet {
        Snippet::User(body) => c.check_code(body, Context::Game, &[]),
        Snippet::Advice(a) => {
            let mut names = FxHashMap::default();
            c.check_advice(a, 0, &mut names);
            // The lints `flexrules check` runs on the game's own advice.
            c.lint_advice(a);
        }
    }
    c.diags
}

struct Checker {
    diags: Vec<Diagnostic>,
    types: FxHashMap<Symbol, TypeInfo>,
    /// Function name -> (parameter count, definition).
    functions: FxHashMap<Symbol, (usize, Span)>,
    /// Instance name -> (type, where it was made).
    instances: FxHashMap<Symbol, (Symbol, Span)>,
    /// A board whose cell names are only known when it is built.
    open_boards: bool,
    /// Boards built when the game starts: the prefix of a ring's cells, or `None` for a
    /// grid. Their cells' names are known only then, but their form is known now.
    late_boards: Vec<Option<Symbol>>,
    /// Every label some behaviour handles.
    labels: FxHashSet<Symbol>,
    /// Names of advice already in force (when checking a rules file against a game).
    base_advice: FxHashSet<String>,
    /// Board cells configured by an #instance.
    configured: FxHashSet<Symbol>,
    /// Advice files already checked.
    checked_files: FxHashSet<crate::source::FileId>,
    /// The entity types and instances every directive binding an advice file names.
    file_targets: FxHashMap<crate::source::FileId, Vec<Symbol>>,
    /// The entity types and instances the code being checked can run as (a behaviour's
    /// type, an advice's targets); empty where any entity or the user can run it.
    running: Vec<Symbol>,
    /// Every label code sends as a constant (`send new message "l"`, `new message "l"`),
    /// noted while linting.
    sent_labels: FxHashSet<Symbol>,
    /// Every label some advice is bound to, and whether some advice takes any label.
    advice_labels: FxHashSet<Symbol>,
    any_label_advice: bool,
    /// Whether to warn about code as `flexrules check` does (lints).
    lint: bool,
    /// The attribute keys code gives messages (`with`, `update message attribute`), and
    /// whether some key is not a constant (then any key may be given).
    given_keys: FxHashSet<Symbol>,
    any_key_given: bool,
    /// The attribute keys code reads, as constants, and where.
    read_keys: Vec<(Symbol, Span)>,
    /// Whether to check literal names, number conditions and divisions by zero.
    statics: bool,
    /// What the game's code says about names and numbers.
    names: names::NameFacts,
    numbers: truth::Numbers,
    /// The entity type whose representation's code is being checked.
    repr_running: Option<Symbol>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            diags: Vec::new(),
            types: FxHashMap::default(),
            functions: FxHashMap::default(),
            instances: FxHashMap::default(),
            open_boards: false,
            late_boards: Vec::new(),
            labels: FxHashSet::default(),
            checked_files: FxHashSet::default(),
            configured: FxHashSet::default(),
            base_advice: FxHashSet::default(),
            file_targets: FxHashMap::default(),
            running: Vec::new(),
            sent_labels: FxHashSet::default(),
            advice_labels: FxHashSet::default(),
            any_label_advice: false,
            lint: false,
            given_keys: FxHashSet::default(),
            any_key_given: false,
            read_keys: Vec::new(),
            statics: false,
            names: names::NameFacts::default(),
            numbers: truth::Numbers::default(),
            repr_running: None,
        }
    }

    fn text(&self, sym: Symbol) -> &'static str {
        sym.as_str()
    }

    fn duplicate(&mut self, code: &'static str, what: &str, name: Name, first: Span) {
        let text = self.text(name.sym).to_string();
        self.diags.push(
            Diagnostic::error(code, name.span, format!("{what} `{text}` is defined twice"))
                .with_note(first, "first defined here")
                .with_hint(format!(
                    "rename or remove one of the two definitions of `{text}`"
                )),
        );
    }

    fn ancestor_has_state(&self, ty: Symbol, state: Symbol) -> bool {
        self.ancestors(ty)
            .any(|(_, info)| info.states.contains(&state))
    }

    /// The types `ty` extends, nearest first, as far as they are defined (at most as many
    /// as there are types, so a loop of `#extends`, reported elsewhere, ends).
    fn ancestors(&self, ty: Symbol) -> impl Iterator<Item = (Symbol, &TypeInfo)> {
        let parent = |t: Symbol| self.types.get(&t).and_then(|i| i.extends.map(|n| n.sym));
        std::iter::successors(parent(ty), move |&t| parent(t))
            .take(self.types.len())
            .map_while(|t| self.types.get(&t).map(|info| (t, info)))
    }

    /// Whether type `ty` extends `ancestor`, directly or through others.
    fn descends_from(&self, ty: Symbol, ancestor: Symbol) -> bool {
        self.ancestors(ty).any(|(t, _)| t == ancestor)
    }
}
