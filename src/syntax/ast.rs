//! The typed syntax tree of a game.
//!
//! Produced by lowering the reader's S-expressions ([`super::lower`]) and assembled across
//! files by the loader ([`super::load`]). Every node has a [`Span`]. Names are interned
//! [`Symbol`]s. Nothing here is resolved: a [`ExprKind::Var`] is just a name until the
//! checker looks it up.

use crate::source::{FileId, Span};

pub use crate::symbol::Symbol;

/// A name written in the source: an identifier or, in directive positions, a string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Name {
    /// The interned text.
    pub sym: Symbol,
    /// Where it was written.
    pub span: Span,
}

/// An expression. Every form of the language is an expression with a value.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// The whole expression.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// `nil`
    Nil,
    /// `true` / `false`
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal (escapes decoded).
    Str(Symbol),
    /// A variable: a local, a `foreach` variable or a function parameter.
    Var(Symbol),
    /// `message`: the message being handled.
    Message,
    /// `(f a b ...)`: a builtin or a `#define`d function.
    Call {
        /// The function's name.
        func: Name,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `(var x v)`: declare or reassign a local.
    VarDef {
        /// The variable.
        name: Name,
        /// Its new value.
        value: Box<Expr>,
    },
    /// `(if c a else b)`
    If {
        /// The condition.
        cond: Box<Expr>,
        /// Run when the condition is true.
        then: Box<Expr>,
        /// Run otherwise, if present.
        otherwise: Option<Box<Expr>>,
    },
    /// `(switch v (case x body) ... (default body))`
    Switch {
        /// The value compared.
        value: Box<Expr>,
        /// Each `(case x body)`.
        cases: Vec<(Expr, Expr)>,
        /// The `(default body)`.
        default: Option<Box<Expr>>,
    },
    /// `(foreach x in list body)`
    Foreach {
        /// The loop variable.
        var: Name,
        /// The list (or dictionary: its keys).
        iter: Box<Expr>,
        /// The body.
        body: Box<Expr>,
    },
    /// `(while c body)`
    While {
        /// The condition.
        cond: Box<Expr>,
        /// The body.
        body: Box<Expr>,
    },
    /// `(do s1 s2 ... end)`
    Do(Vec<Expr>),
    /// `(and a b ...)`, short-circuiting.
    And(Vec<Expr>),
    /// `(or a b ...)`, short-circuiting.
    Or(Vec<Expr>),
    /// `(return)` / `(return v)`.
    Return(Option<Box<Expr>>),
    /// One of the game-model forms with keywords (`new property`, `send`, ...).
    Form {
        /// Which form.
        op: FormOp,
        /// Its positional operands, in the order [`FormOp::operands`] names them.
        args: Vec<Expr>,
        /// `with k v ...` pairs, for the forms that take them.
        attrs: Vec<(Expr, Expr)>,
    },
    /// A form that could not be understood; a diagnostic was already reported.
    Error,
}

/// The game-model forms. Each is evaluated by evaluating its operands left to right and
/// then performing the operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormOp {
    /// `(changeState s)`
    ChangeState,
    /// `(new property p as v)`
    NewProperty,
    /// `(property p)`
    Property,
    /// `(property p of e)`
    PropertyOf,
    /// `(update property p to v)`
    UpdateProperty,
    /// `(update property p of e to v)`: only an entity's own code or the user may.
    UpdatePropertyOf,
    /// `(send new message l to r with ...)`
    SendNew,
    /// `(send m to r)`
    Send,
    /// `(new message l with ...)`
    NewMessage,
    /// `(update message attribute k to v)`
    UpdateAttribute,
    /// `(forward message to r)`
    Forward,
    /// `(attribute k)`
    Attribute,
    /// `(attribute k of m)`
    AttributeOf,
    /// `(label)`
    Label,
    /// `(label of m)`
    LabelOf,
    /// `(state)`
    State,
    /// `(state of e)`
    StateOf,
    /// `(type of e)`
    TypeOf,
    /// `(entities of t)`
    EntitiesOf,
    /// `(open checkpoint)`
    OpenCheckpoint,
    /// `(rollback reason)`
    Rollback,
    /// `(new graphic id with ...)`
    NewGraphic,
    /// `(update graphic id attribute a to v)`
    UpdateGraphic,
    /// `(delete graphic id)`
    DeleteGraphic,
    /// `(observe p notify l)`
    Observe,
    /// `(on id clicked notify m)`
    OnClickNotify,
    /// `(on id clicked emit s with t)`
    OnClickEmit,
    /// `(wait signal s from p among l)`: the clauses, when given, are its attribute
    /// pairs, keyed by the strings `"from"` and `"among"`.
    WaitSignal,
    /// `(match k in d)`
    Match,
    /// `(new entity n of t with ...)`
    NewEntity,
    /// `(delete entity n)`
    DeleteEntity,
    /// `(finish with k v ...)`
    Finish,
}

impl FormOp {
    /// The names of the positional operands (used in messages and dumps).
    pub fn operands(self) -> &'static [&'static str] {
        use FormOp::*;
        match self {
            ChangeState => &["state"],
            NewProperty | UpdateProperty => &["property", "value"],
            UpdatePropertyOf => &["property", "entity", "value"],
            Property => &["property"],
            PropertyOf => &["property", "entity"],
            SendNew => &["label", "recipient"],
            Send => &["message", "recipient"],
            NewMessage => &["label"],
            UpdateAttribute => &["key", "value"],
            Forward => &["recipient"],
            Attribute => &["key"],
            AttributeOf => &["key", "message"],
            Label | State | OpenCheckpoint | Finish => &[],
            LabelOf => &["message"],
            StateOf | TypeOf => &["entity"],
            EntitiesOf => &["type"],
            Rollback => &["reason"],
            NewGraphic | DeleteGraphic => &["graphic"],
            UpdateGraphic => &["graphic", "attribute", "value"],
            Observe => &["property", "label"],
            OnClickNotify => &["graphic", "message"],
            OnClickEmit => &["graphic", "signal", "tag"],
            WaitSignal => &["signal"],
            Match => &["key", "dictionary"],
            NewEntity => &["name", "type"],
            DeleteEntity => &["name"],
        }
    }

    /// How the form is written, for hints.
    pub fn usage(self) -> &'static str {
        use FormOp::*;
        match self {
            ChangeState => "(changeState <state>)",
            NewProperty => "(new property <name> as <value>)",
            Property | PropertyOf => "(property <name>) or (property <name> of <entity>)",
            UpdateProperty | UpdatePropertyOf => {
                "(update property <name> to <value>) or (update property <name> of <entity> to <value>)"
            }
            SendNew => "(send new message <label> to <recipient> with <key> <value> ...)",
            Send => "(send <message> to <recipient>)",
            NewMessage => "(new message <label> with <key> <value> ...)",
            UpdateAttribute => "(update message attribute <key> to <value>)",
            Forward => "(forward message to <recipient>)",
            Attribute | AttributeOf => "(attribute <key>) or (attribute <key> of <message>)",
            Label | LabelOf => "(label) or (label of <message>)",
            State | StateOf => "(state) or (state of <entity>)",
            TypeOf => "(type of <entity>)",
            EntitiesOf => "(entities of <type>)",
            OpenCheckpoint => "(open checkpoint)",
            Rollback => "(rollback <reason>)",
            NewGraphic => "(new graphic <id>) or (new graphic <id> with <attribute> <value> ...)",
            UpdateGraphic => "(update graphic <id> attribute <attribute> to <value>)",
            DeleteGraphic => "(delete graphic <id>)",
            Observe => "(observe <property> notify <label>)",
            OnClickNotify => "(on <id> clicked notify <message>)",
            OnClickEmit => "(on <id> clicked emit <signal> with <tag>)",
            WaitSignal => {
                "(wait signal <signal> from <player> among <list>), with `from` and `among` optional, in that order"
            }
            Match => "(match <key> in <dictionary>)",
            NewEntity => "(new entity <name> of <type> with <key> <value> ...)",
            DeleteEntity => "(delete entity <name>)",
            Finish => "(finish with <key> <value> ...)",
        }
    }
}

/// A `#entity` (or `#representation`) with its properties, states and behaviours.
#[derive(Clone, Debug, PartialEq)]
pub struct EntityDef {
    /// The type's name (for a representation: the entity type it represents).
    pub name: Name,
    /// `#extends`.
    pub extends: Option<Name>,
    /// `#property` defaults, in order.
    pub properties: Vec<PropertyDef>,
    /// `#state` blocks, in order.
    pub states: Vec<StateDef>,
    /// The `#entity` directive.
    pub span: Span,
}

/// `#property name value`.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyDef {
    /// The property.
    pub name: Name,
    /// Its default value.
    pub value: Expr,
}

/// `#state name` and its behaviours.
#[derive(Clone, Debug, PartialEq)]
pub struct StateDef {
    /// The state.
    pub name: Name,
    /// Its `#onMessage` behaviours.
    pub behaviours: Vec<Behaviour>,
}

/// `#onMessage label body`.
#[derive(Clone, Debug, PartialEq)]
pub struct Behaviour {
    /// The message label.
    pub label: Name,
    /// The statements run, in order.
    pub body: Vec<Expr>,
    /// The `#onMessage` directive and its body.
    pub span: Span,
}

/// `#instance name of type with k v ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceDef {
    /// The instance's name.
    pub name: Name,
    /// Its type.
    pub ty: Name,
    /// Initial property values.
    pub properties: Vec<(Name, Expr)>,
    /// The directive.
    pub span: Span,
}

/// The most cells `#board ring` makes.
pub const MAX_RING: i64 = 100_000;

/// What a `#board` builds.
#[derive(Clone, Debug, PartialEq)]
pub enum BoardShape {
    /// `ring <n> ... named <prefix>`.
    Ring {
        /// Number of cells.
        size: i64,
        /// Cell name prefix.
        prefix: Name,
    },
    /// An identification string such as `"8x8"`.
    Identification(Name),
    /// A board XML file, resolved by the loader.
    File {
        /// The path as written.
        path: Name,
        /// The resolved file, when it exists.
        resolved: Option<std::path::PathBuf>,
        /// Its text, read into the source map, when it could be read.
        file: Option<FileId>,
    },
    /// A description computed when the game starts (after the parameters are known, before
    /// `#setup`): `#board (<expression>) of ...` (an identification string) or `#board ring
    /// (<expression>) of ... named <prefix>` (the number of cells).
    Computed {
        /// The expression giving the description or the size.
        value: Expr,
        /// For a ring, the cell name prefix.
        ring: Option<Name>,
    },
}

/// `#board ... of type`.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardDef {
    /// The topology.
    pub shape: BoardShape,
    /// The type of the cells.
    pub ty: Name,
    /// How a grid names its cells (`named go`); `None` for the usual names.
    pub naming: Option<Name>,
    /// The directive.
    pub span: Span,
}

/// Law or side-effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdviceKind {
    /// Runs before the behaviour; `(return)` vetoes.
    Law,
    /// Runs after the behaviour.
    SideEffect,
}

/// A label or state in an advice binding: a name or `*`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    /// `*`: any.
    Any(Span),
    /// Exactly this name.
    Name(Name),
}

/// The code of an advice.
#[derive(Clone, Debug, PartialEq)]
pub enum AdviceBody {
    /// `is "file.law"`: the statements of that file.
    File {
        /// The path as written.
        path: Name,
        /// The file's id once loaded.
        file: Option<FileId>,
        /// Its statements.
        body: Vec<Expr>,
    },
    /// `is (code)`.
    Inline(Vec<Expr>),
}

impl AdviceBody {
    /// The statements.
    pub fn statements(&self) -> &[Expr] {
        match self {
            AdviceBody::File { body, .. } | AdviceBody::Inline(body) => body,
        }
    }
}

/// `#law ...` or `#sideeffect ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct AdviceDef {
    /// Law or side-effect.
    pub kind: AdviceKind,
    /// The explicit name, if given.
    pub name: Option<Name>,
    /// The message label matched.
    pub label: Pattern,
    /// The entity type or instance it binds to.
    pub target: Name,
    /// The state matched.
    pub state: Pattern,
    /// `replaces <name>`: the advice this one takes the place of (house rules, variants).
    pub replaces: Option<Name>,
    /// The code.
    pub body: AdviceBody,
    /// The directive.
    pub span: Span,
}

/// `#define name (params) body`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    /// The function's name.
    pub name: Name,
    /// Its parameters.
    pub params: Vec<Name>,
    /// Its statements.
    pub body: Vec<Expr>,
    /// The directive.
    pub span: Span,
}

/// `#param name value`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDef {
    /// The parameter.
    pub name: Name,
    /// Its default.
    pub value: Expr,
    /// The directive.
    pub span: Span,
}

/// A code block run with no receiving entity: `#setup` or `#actions`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Its statements.
    pub body: Vec<Expr>,
    /// The directive.
    pub span: Span,
}

/// `#disable "<name>"` or `#enable "<name>"`: switch a law or side-effect off or on
/// (in a rules file).
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchDef {
    /// True for `#enable`, false for `#disable`.
    pub enable: bool,
    /// The name of the law or side-effect.
    pub name: Name,
    /// The directive.
    pub span: Span,
}

/// One top-level definition, in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `#include "path"` (replaced by the included items when loading).
    Include(Name),
    /// `#entity`.
    Entity(EntityDef),
    /// `#representation`.
    Representation(EntityDef),
    /// `#instance`.
    Instance(InstanceDef),
    /// `#board`.
    Board(BoardDef),
    /// `#law` / `#sideeffect`.
    Advice(AdviceDef),
    /// `#define`.
    Function(FunctionDef),
    /// `#param`.
    Param(ParamDef),
    /// `#setup`.
    Setup(Block),
    /// `#actions`.
    Actions(Block),
    /// `#disable` / `#enable`.
    Switch(SwitchDef),
}

impl Item {
    /// The directive that made the item (which also says which file it came from).
    pub fn span(&self) -> Span {
        match self {
            Item::Include(name) => name.span,
            Item::Entity(e) | Item::Representation(e) => e.span,
            Item::Instance(i) => i.span,
            Item::Board(b) => b.span,
            Item::Advice(a) => a.span,
            Item::Function(f) => f.span,
            Item::Param(p) => p.span,
            Item::Setup(b) | Item::Actions(b) => b.span,
            Item::Switch(s) => s.span,
        }
    }
}

/// A whole game: every item of every file, includes expanded in place.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// The items in definition order.
    pub items: Vec<Item>,
}
