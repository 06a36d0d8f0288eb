//! Reading SGF text without recursion: the main line of the first game of a collection,
//! as the properties of each of its nodes, within explicit bounds.
//!
//! The grammar and the property values are those of the `sgf-parse` crate (its
//! [`SgfProp::new`] reads each value; its error texts are kept for malformed files), but
//! the crate builds a tree as deep as the main line is long, and dropping or walking such
//! a tree recurses once per node: a record of 150,000 moves or a million nested
//! variations overflows the stack. This reader walks the text once, keeps for each node
//! only whether it lies on the main line, and refuses more than [`MAX_NESTING`] open
//! variations, [`MAX_NODES`] nodes in the file or [`MAX_MOVES`] moves on the main line,
//! naming the line and column where the bound is passed.

use sgf_parse::SgfProp;
use sgf_parse::go::Prop;

/// The most variations a record may have open at once (`(` inside `(`).
pub const MAX_NESTING: usize = 10_000;
/// The most nodes (`;`) a file may hold, all games and variations counted.
pub const MAX_NODES: usize = 1_000_000;
/// The most moves (`B`, `W`) the main line of the game read may have.
pub const MAX_MOVES: usize = 10_000;

/// A node seen so far in the game tree being read.
#[derive(Clone, Copy)]
struct NodeState {
    /// Whether the node is on the main line (the first child at every step).
    main: bool,
    /// Whether a child node follows it already.
    has_child: bool,
}

/// What reading stopped on.
enum Stop {
    /// Malformed text: the `sgf-parse` crate's description of it.
    Invalid(&'static str),
    /// A bound passed at this byte offset: what was passed, and a hint.
    Bound(usize, String),
}

/// The text with line and column (both from 1, columns in characters) of `offset`.
fn place(text: &str, offset: usize) -> String {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}")
}

/// The properties of each node of the main line of the first game in `text`, from its
/// root. Every game of the collection must be a Go game (`GM[1]`, or no `GM`).
pub fn main_line(text: &str) -> Result<Vec<Vec<Prop>>, String> {
    let start = text.len() - text.trim_start().len();
    let end = text.trim_end().len().max(start);
    let mut reader = Reader {
        text: &text[..end],
        at: start,
        ..Reader::default()
    };
    match reader.read() {
        Ok(()) => Ok(reader.main),
        Err(Stop::Invalid(what)) => Err(format!("not a valid SGF file: {what}")),
        Err(Stop::Bound(offset, what)) => Err(format!("{}: {what}", place(text, offset))),
    }
}

#[derive(Default)]
struct Reader<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    at: usize,
    /// Game trees read to the end so far.
    games: usize,
    /// Nodes read so far, in all games.
    nodes: usize,
    /// The nodes of the game being read (index 0: the collection its root belongs to).
    states: Vec<NodeState>,
    /// The node the next `;` follows.
    current: usize,
    /// The nodes that open variations follow (one per `(` not yet closed).
    open: Vec<usize>,
    /// Root nodes of the game being read (there must be one).
    roots: usize,
    /// An error met outside any game: it counts only if a game follows.
    pending: Option<&'static str>,
    /// The main line of the first game.
    main: Vec<Vec<Prop>>,
    /// Moves on that main line.
    moves: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_whitespace())
                .len();
    }

    fn new_game(&mut self) {
        self.states.clear();
        self.states.push(NodeState {
            main: self.games == 0,
            has_child: false,
        });
        self.current = 0;
        self.open.clear();
        self.roots = 0;
    }

    fn read(&mut self) -> Result<(), Stop> {
        self.new_game();
        while let Some(c) = self.peek() {
            let token_at = self.at;
            match c {
                '(' => {
                    self.at += 1;
                    if self.open.is_empty()
                        && let Some(e) = self.pending.take()
                    {
                        return Err(Stop::Invalid(e));
                    }
                    if let Some(&top) = self.open.last()
                        && !self.states[top].has_child
                    {
                        return Err(Stop::Invalid("Unexpected start of game tree"));
                    }
                    if self.open.len() >= MAX_NESTING {
                        return Err(Stop::Bound(
                            token_at,
                            format!(
                                "more than {MAX_NESTING} variations are open at once (the most a record may nest); \
                                 a record nests one level per variation, so this file is not a game record"
                            ),
                        ));
                    }
                    self.open.push(self.current);
                }
                ')' => {
                    self.at += 1;
                    let Some(back) = self.open.pop() else {
                        return Err(Stop::Invalid("Unexpected end of game tree"));
                    };
                    self.current = back;
                    if self.open.is_empty() {
                        if self.roots != 1 {
                            return Err(Stop::Invalid("Unexpected end of data"));
                        }
                        self.games += 1;
                        self.new_game();
                    }
                }
                ';' => {
                    self.at += 1;
                    self.skip_space();
                    self.node(token_at)?;
                    continue;
                }
                _ => {
                    // A property that follows no node.
                    self.property()?;
                    if self.open.is_empty() {
                        self.pending.get_or_insert("Unexpected property");
                    } else {
                        return Err(Stop::Invalid("Unexpected property"));
                    }
                }
            }
            self.skip_space();
        }
        if !self.open.is_empty() {
            return Err(Stop::Invalid("Unexpected end of data"));
        }
        if self.games == 0 {
            return Err(Stop::Invalid("No game trees found"));
        }
        Ok(())
    }

    /// A node (its `;` read, at `node_at`) and its properties.
    fn node(&mut self, node_at: usize) -> Result<(), Stop> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(Stop::Bound(
                node_at,
                format!(
                    "the file has more than {MAX_NODES} nodes (the most it may hold); \
                     remove the variations and games it does not need"
                ),
            ));
        }
        let parent = self.current;
        let main = self.states[parent].main && !self.states[parent].has_child;
        self.states[parent].has_child = true;
        let is_root = parent == 0;
        if is_root {
            self.roots += 1;
        }
        self.states.push(NodeState {
            main,
            has_child: false,
        });
        self.current = self.states.len() - 1;
        let first_root = is_root && self.roots == 1;
        let mut props = Vec::new();
        let mut game_types = Vec::new();
        while self.peek().is_some_and(|c| !matches!(c, '(' | ')' | ';')) {
            let prop_at = self.at;
            let (id, values) = self.property()?;
            self.skip_space();
            if first_root && id == "GM" {
                game_types.push(values.clone());
            }
            if !main {
                continue;
            }
            let id = if id.chars().all(|c| c.is_ascii_uppercase()) {
                id
            } else {
                id.chars().filter(char::is_ascii_uppercase).collect()
            };
            if id == "B" || id == "W" {
                self.moves += 1;
                if self.moves > MAX_MOVES {
                    return Err(Stop::Bound(
                        prop_at,
                        format!(
                            "the main line has more than {MAX_MOVES} moves (the most a record may have); \
                             cut the record short"
                        ),
                    ));
                }
            }
            props.push(Prop::new(id, values));
        }
        if first_root {
            match game_types.as_slice() {
                [] => {}
                [v] if matches!(v.as_slice(), [x] if x.parse::<i32>().is_ok()) => {
                    if v[0] != "1" {
                        return Err(Stop::Invalid("Unexpected game type"));
                    }
                }
                [_] => return Err(Stop::Invalid("Invalid game type")),
                _ => return Err(Stop::Invalid("Unexpected property")),
            }
        }
        if main {
            self.main.push(props);
        }
        Ok(())
    }

    /// A property: its identifier as written, and its values.
    fn property(&mut self) -> Result<(String, Vec<String>), Stop> {
        let mut id = String::new();
        loop {
            match self.peek() {
                Some('[') => break,
                Some(c) if c.is_ascii() => {
                    self.at += 1;
                    id.push(c);
                }
                Some(_) => {
                    return Err(Stop::Invalid(
                        "Error tokenizing: Unexpected end of property identifier",
                    ));
                }
                None => {
                    return Err(Stop::Invalid(
                        "Error tokenizing: Missing property identifier",
                    ));
                }
            }
        }
        let mut values = Vec::new();
        loop {
            self.skip_space();
            if self.peek() != Some('[') {
                break;
            }
            self.at += 1;
            let mut value = String::new();
            let mut escaped = false;
            loop {
                let Some(c) = self.peek() else {
                    return Err(Stop::Invalid(
                        "Error tokenizing: Unexpected end of property value",
                    ));
                };
                self.at += c.len_utf8();
                match c {
                    ']' if !escaped => break,
                    '\\' if !escaped => escaped = true,
                    c => {
                        escaped = false;
                        value.push(c);
                    }
                }
            }
            values.push(value);
        }
        Ok((id, values))
    }
}
