//! Reading SGF text without recursion: the main line of the first game of a collection,
//! as the properties of each of its nodes, within explicit bounds.
//!
//! The grammar and the property values are those of the `sgf-parse` crate (its
//! [`SgfProp::new`] reads each value), but
//! the crate builds a tree as deep as the main line is long, and dropping or walking such
//! a tree recurses once per node: a record of 150,000 moves or a million nested
//! variations overflows the stack. This reader walks the text once, keeps for each node
//! only whether it lies on the main line, and refuses more than [`MAX_NESTING`] open
//! variations, [`MAX_NODES`] nodes in the file or [`MAX_MOVES`] moves on the main line,
//! naming the line and column where the bound is passed. Malformed text is refused the same
//! way: the line and column of the token that does not fit (the end of the text for a
//! file cut short), what was expected there and what was found.

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

/// What reading stopped on: the byte offset of the token that does not fit (or where a
/// bound is passed), and what is wrong there with a hint.
struct Stop(usize, String);

/// The text with line and column (both from 1, columns in characters) of `offset`.
pub(super) fn place(text: &str, offset: usize) -> String {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}")
}

/// The properties of each node of the main line of the first game in `text`, from its
/// root, each with the byte offset where it starts. Every game of the collection must be
/// a Go game (`GM[1]`, or no `GM`).
pub fn main_line(text: &str) -> Result<Vec<Vec<(usize, Prop)>>, String> {
    let start = text.len() - text.trim_start().len();
    let end = text.trim_end().len().max(start);
    let mut reader = Reader {
        text: &text[..end],
        at: start,
        ..Reader::default()
    };
    match reader.read() {
        Ok(()) => Ok(reader.main),
        Err(Stop(offset, what)) => Err(format!("{}: {what}", place(text, offset))),
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
    /// The nodes that open variations follow, with the offset of their `(` (one per `(`
    /// not yet closed).
    open: Vec<(usize, usize)>,
    /// Root nodes of the game being read (there must be one).
    roots: usize,
    /// An error met outside any game: it counts only if a game follows.
    pending: Option<Stop>,
    /// The main line of the first game.
    main: Vec<Vec<(usize, Prop)>>,
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

    /// What is at the next character, in words: `` `)` `` or `the end of the file`.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some('\n' | '\r') => "the end of the line".into(),
            Some(c) => format!("`{c}`"),
        }
    }

    /// The line and column of `offset`.
    fn place(&self, offset: usize) -> String {
        place(self.text, offset)
    }

    fn read(&mut self) -> Result<(), Stop> {
        self.new_game();
        while let Some(c) = self.peek() {
            let token_at = self.at;
            match c {
                '(' => {
                    if self.open.is_empty()
                        && let Some(e) = self.pending.take()
                    {
                        return Err(e);
                    }
                    if let Some(&(top, opened)) = self.open.last()
                        && !self.states[top].has_child
                    {
                        return Err(Stop(
                            token_at,
                            format!(
                                "a node (`;`) was expected after the `(` at {}; found `(` \
                                 (a game tree or variation starts with its first node)",
                                self.place(opened)
                            ),
                        ));
                    }
                    self.at += 1;
                    if self.open.len() >= MAX_NESTING {
                        return Err(Stop(
                            token_at,
                            format!(
                                "more than {MAX_NESTING} variations are open at once (the most a record may nest); \
                                 a record nests one level per variation, so this file is not a game record"
                            ),
                        ));
                    }
                    self.open.push((self.current, token_at));
                }
                ')' => {
                    let Some((back, opened)) = self.open.pop() else {
                        return Err(Stop(
                            token_at,
                            "`)` closes no game tree: no `(` is open here".into(),
                        ));
                    };
                    self.at += 1;
                    self.current = back;
                    if self.open.is_empty() {
                        if self.roots != 1 {
                            return Err(Stop(
                                token_at,
                                format!(
                                    "a node (`;`) was expected after the `(` at {}; found `)` \
                                     (a game tree holds at least one node)",
                                    self.place(opened)
                                ),
                            ));
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
                    let (id, _) = self.property()?;
                    let id = id.trim_end();
                    if self.open.is_empty() {
                        self.pending.get_or_insert_with(|| {
                            Stop(
                                token_at,
                                format!(
                                    "the property `{id}` is outside any game tree \
                                     (a game tree starts with `(;`)"
                                ),
                            )
                        });
                    } else {
                        return Err(Stop(
                            token_at,
                            format!(
                                "a node (`;`) was expected before the property `{id}` \
                                 (properties belong to a node, which starts with `;`)"
                            ),
                        ));
                    }
                }
            }
            self.skip_space();
        }
        if let Some(&(_, opened)) = self.open.last() {
            return Err(Stop(
                self.at,
                format!(
                    "`)` was expected to close the `(` at {}; found the end of the file \
                     (the file is cut short)",
                    self.place(opened)
                ),
            ));
        }
        if self.games == 0 {
            // The first thing in the file, or its start when it holds nothing.
            let at = self.text.len() - self.text.trim_start().len();
            let at = if at == self.text.len() { 0 } else { at };
            return Err(Stop(
                at,
                "the file holds no game tree; a record starts with `(;`, such as `(;GM[1]SZ[19];B[pd])`".into(),
            ));
        }
        Ok(())
    }

    /// A node (its `;` read, at `node_at`) and its properties.
    fn node(&mut self, node_at: usize) -> Result<(), Stop> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(Stop(
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
                game_types.push((prop_at, values.clone()));
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
                    return Err(Stop(
                        prop_at,
                        format!(
                            "the main line has more than {MAX_MOVES} moves (the most a record may have); \
                             cut the record short"
                        ),
                    ));
                }
            }
            props.push((prop_at, Prop::new(id, values)));
        }
        if first_root {
            match game_types.as_slice() {
                [] => {}
                [(at, v)] if matches!(v.as_slice(), [x] if x.parse::<i32>().is_ok()) => {
                    if v[0] != "1" {
                        return Err(Stop(
                            *at,
                            format!(
                                "GM[{}] is not a Go record: this reader reads Go records (GM[1]) only",
                                v[0]
                            ),
                        ));
                    }
                }
                [(at, v)] => {
                    return Err(Stop(
                        *at,
                        format!(
                            "GM[{}] is not a game number: Go records have GM[1]",
                            v.join("][")
                        ),
                    ));
                }
                [(first, _), (at, _), ..] => {
                    return Err(Stop(
                        *at,
                        format!(
                            "a second GM in the root node (the first is at {}); a node has each property once",
                            self.place(*first)
                        ),
                    ));
                }
            }
        }
        if main {
            self.main.push(props);
        }
        Ok(())
    }

    /// A property: its identifier as written (without the spaces before its first value),
    /// and its values.
    fn property(&mut self) -> Result<(String, Vec<String>), Stop> {
        if !self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            return Err(Stop(
                self.at,
                format!(
                    "a property (an identifier such as `B` or `SZ`, then its values in `[..]`) \
                     was expected; found {}",
                    self.found()
                ),
            ));
        }
        let mut id = String::new();
        while let Some(c) = self.peek()
            && c.is_ascii()
            && !matches!(c, '[' | ']' | '(' | ')' | ';')
        {
            self.at += 1;
            id.push(c);
        }
        let id = id.trim_end().to_string();
        if self.peek() != Some('[') {
            return Err(Stop(
                self.at,
                format!(
                    "a property value `[..]` was expected after `{id}`; found {}",
                    self.found()
                ),
            ));
        }
        let mut values = Vec::new();
        loop {
            self.skip_space();
            if self.peek() != Some('[') {
                break;
            }
            let opened = self.at;
            self.at += 1;
            let mut value = String::new();
            let mut escaped = false;
            loop {
                let Some(c) = self.peek() else {
                    return Err(Stop(
                        self.at,
                        format!(
                            "`]` was expected to close the value of `{id}` opened at {}; \
                             found the end of the file (the file is cut short, or a `]` in \
                             the value is not written `\\]`)",
                            self.place(opened)
                        ),
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
