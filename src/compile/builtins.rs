//! The table of builtin functions: names and arities.
//!
//! The checker uses it to resolve calls and count arguments; the compiler (later) maps
//! each entry to its instruction. Forms with keywords (`send`, `new property`, ...) are
//! not here: they are syntax ([`crate::syntax::ast::FormOp`]).

/// How many arguments a builtin takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arity {
    /// At least.
    pub min: usize,
    /// At most (`None`: any number).
    pub max: Option<usize>,
}

impl Arity {
    const fn exactly(n: usize) -> Arity {
        Arity {
            min: n,
            max: Some(n),
        }
    }
    const fn between(min: usize, max: usize) -> Arity {
        Arity {
            min,
            max: Some(max),
        }
    }
    const fn at_least(min: usize) -> Arity {
        Arity { min, max: None }
    }

    /// Whether `n` arguments fit.
    pub fn accepts(self, n: usize) -> bool {
        n >= self.min && self.max.is_none_or(|m| n <= m)
    }

    /// "2 arguments", "1 to 3 arguments", "at least 1 argument".
    pub fn describe(self) -> String {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        match self.max {
            Some(m) if m == self.min => format!("{m} argument{}", plural(m)),
            Some(m) => format!("{} to {m} arguments", self.min),
            None => format!("at least {} argument{}", self.min, plural(self.min)),
        }
    }
}

/// One builtin function.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Its name in the language.
    pub name: &'static str,
    /// How many arguments it takes.
    pub arity: Arity,
    /// How it is called, for hints and the reference.
    pub usage: &'static str,
}

const fn b(name: &'static str, arity: Arity, usage: &'static str) -> Builtin {
    Builtin { name, arity, usage }
}

/// Every builtin function.
pub const BUILTINS: &[Builtin] = &[
    // Arithmetic and comparison.
    b("+", Arity::at_least(1), "(+ <number> ...)"),
    b(
        "-",
        Arity::at_least(1),
        "(- <number>) or (- <number> <number> ...)",
    ),
    b("*", Arity::at_least(1), "(* <number> ...)"),
    b("/", Arity::at_least(2), "(/ <number> <number> ...)"),
    b("%", Arity::exactly(2), "(% <number> <divisor>)"),
    b("=", Arity::exactly(2), "(= <a> <b>)"),
    b("==", Arity::exactly(2), "(== <a> <b>)"),
    b("!=", Arity::exactly(2), "(!= <a> <b>)"),
    b("<", Arity::exactly(2), "(< <a> <b>)"),
    b(">", Arity::exactly(2), "(> <a> <b>)"),
    b("<=", Arity::exactly(2), "(<= <a> <b>)"),
    b(">=", Arity::exactly(2), "(>= <a> <b>)"),
    b("not", Arity::exactly(1), "(not <value>)"),
    b("abs", Arity::exactly(1), "(abs <number>)"),
    // Lists.
    b("list", Arity::at_least(0), "(list <value> ...)"),
    b("first", Arity::exactly(1), "(first <list>)"),
    b("rest", Arity::exactly(1), "(rest <list>)"),
    b("last", Arity::exactly(1), "(last <list>)"),
    b("nth", Arity::exactly(2), "(nth <list> <index>)"),
    b(
        "length",
        Arity::exactly(1),
        "(length <list, dictionary or string>)",
    ),
    b("append", Arity::exactly(2), "(append <list> <value>)"),
    b("prepend", Arity::exactly(2), "(prepend <list> <value>)"),
    b("concat", Arity::at_least(0), "(concat <list> ...)"),
    b(
        "contains",
        Arity::exactly(2),
        "(contains <list, dictionary or string> <value>)",
    ),
    b("index-of", Arity::exactly(2), "(index-of <list> <value>)"),
    b("remove", Arity::exactly(2), "(remove <list> <value>)"),
    b("reverse", Arity::exactly(1), "(reverse <list>)"),
    b(
        "range",
        Arity::between(1, 3),
        "(range <end>), (range <start> <end>) or (range <start> <end> <step>)",
    ),
    b("sort", Arity::exactly(1), "(sort <list>)"),
    b("take", Arity::exactly(2), "(take <list> <count>)"),
    b("drop", Arity::exactly(2), "(drop <list> <count>)"),
    b("sum", Arity::exactly(1), "(sum <list>)"),
    b(
        "min",
        Arity::at_least(1),
        "(min <list>) or (min <number> <number> ...)",
    ),
    b(
        "max",
        Arity::at_least(1),
        "(max <list>) or (max <number> <number> ...)",
    ),
    // Dictionaries.
    b("dict", Arity::at_least(0), "(dict <key> <value> ...)"),
    b(
        "get",
        Arity::between(2, 3),
        "(get <dictionary or list> <key>) or (get <dictionary> <key> <default>)",
    ),
    b(
        "put",
        Arity::exactly(3),
        "(put <dictionary or list> <key> <value>)",
    ),
    b("has", Arity::exactly(2), "(has <dictionary> <key>)"),
    b("keys", Arity::exactly(1), "(keys <dictionary>)"),
    b("values", Arity::exactly(1), "(values <dictionary>)"),
    b(
        "remove-key",
        Arity::exactly(2),
        "(remove-key <dictionary> <key>)",
    ),
    // Strings.
    b("str", Arity::at_least(0), "(str <value> ...)"),
    b("chars", Arity::exactly(1), "(chars <string>)"),
    b("split", Arity::exactly(2), "(split <string> <separator>)"),
    b("join", Arity::exactly(2), "(join <list> <separator>)"),
    b("upper", Arity::exactly(1), "(upper <string>)"),
    b("lower", Arity::exactly(1), "(lower <string>)"),
    b("parse-int", Arity::exactly(1), "(parse-int <string>)"),
    b("fail", Arity::exactly(1), "(fail <message>)"),
    // The game.
    b("self", Arity::exactly(0), "(self)"),
    b("sender", Arity::exactly(0), "(sender)"),
    b("param", Arity::exactly(1), "(param <name>)"),
    b("random", Arity::exactly(1), "(random <n>)"),
    b("shuffle", Arity::exactly(1), "(shuffle <list>)"),
    b("notify", Arity::exactly(1), "(notify <text>)"),
    b("print", Arity::at_least(0), "(print <value> ...)"),
    // Boards.
    b(
        "neighbor",
        Arity::exactly(2),
        "(neighbor <cell> <direction>)",
    ),
    b(
        "walk",
        Arity::exactly(2),
        "(walk <cell> (list <direction> ...))",
    ),
    b("ray", Arity::exactly(2), "(ray <cell> <direction>)"),
    b("directions", Arity::exactly(1), "(directions <cell>)"),
    b("board-data", Arity::exactly(1), "(board-data <cell>)"),
    // Legal moves.
    b(
        "legal-moves",
        Arity::at_least(0),
        "(legal-moves [<key> <value> ...])",
    ),
    b(
        "has-legal-move",
        Arity::at_least(0),
        "(has-legal-move [<key> <value> ...])",
    ),
    b("is-legal", Arity::exactly(1), "(is-legal <move name>)"),
];

/// The builtin called `name`.
pub fn lookup(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// The index of builtin `name` in [`BUILTINS`], worked out at compile time (a name that
/// is not there stops the build).
pub const fn index(name: &str) -> u16 {
    let mut i = 0;
    while !same_text(BUILTINS[i].name, name) {
        i += 1;
    }
    i as u16
}

/// Whether two texts are the same (`==` of `str` is not available at compile time).
pub const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Names that start a special form and so cannot be function names.
pub const FORM_NAMES: &[&str] = &[
    "var",
    "if",
    "switch",
    "foreach",
    "while",
    "do",
    "and",
    "or",
    "return",
    "changeState",
    "new",
    "property",
    "update",
    "send",
    "forward",
    "attribute",
    "label",
    "state",
    "type",
    "entities",
    "open",
    "rollback",
    "delete",
    "observe",
    "on",
    "wait",
    "match",
    "finish",
];
