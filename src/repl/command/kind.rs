//! The kinds of command, whatever their arguments: the words that name them, and what a
//! kind may do (run while a transaction is in progress, be held by a journal).

/// The kind of a command, whatever its arguments (and of a line that did not parse, when it
/// names a command).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A send.
    Send,
    /// An expression.
    Expression,
    /// `:help`.
    Help,
    /// `:quit`.
    Quit,
    /// `:step`.
    Step,
    /// `:next`.
    Next,
    /// `:continue`.
    Continue,
    /// `:abort`.
    Abort,
    /// `:trace`.
    Trace,
    /// `:profile`.
    Profile,
    /// `:disasm`.
    Disasm,
    /// `:entities`.
    Entities,
    /// `:show`.
    Show,
    /// `:advice`.
    Advice,
    /// `:laws`.
    Laws,
    /// `:law`.
    Law,
    /// `:sideeffect`.
    SideEffect,
    /// `:rules`.
    Rules,
    /// `:disable`.
    Disable,
    /// `:enable`.
    Enable,
    /// `:remove`.
    Remove,
    /// `:undo`.
    Undo,
    /// `:redo`.
    Redo,
    /// `:history`.
    History,
    /// `:goto`.
    Goto,
    /// `:checkpoints`.
    Checkpoints,
    /// `:moves`.
    Moves,
    /// `:play`.
    Play,
    /// `:why`.
    Why,
    /// `:random`.
    Random,
    /// `:agent`.
    Agent,
    /// `:hint`.
    Hint,
    /// `:save`.
    Save,
    /// `:load`.
    Load,
    /// `:sgf`.
    Sgf,
    /// `:signal`.
    Signal,
    /// `:board`.
    Board,
    /// `:click`.
    Click,
    /// `:reload`.
    Reload,
}

/// The words after `:`, each with its command: the name first, then any short forms.
pub(super) const WORDS: &[(&str, Kind)] = &[
    ("help", Kind::Help),
    ("h", Kind::Help),
    ("?", Kind::Help),
    ("quit", Kind::Quit),
    ("q", Kind::Quit),
    ("exit", Kind::Quit),
    ("step", Kind::Step),
    ("next", Kind::Next),
    ("n", Kind::Next),
    ("continue", Kind::Continue),
    ("c", Kind::Continue),
    ("abort", Kind::Abort),
    ("trace", Kind::Trace),
    ("profile", Kind::Profile),
    ("disasm", Kind::Disasm),
    ("entities", Kind::Entities),
    ("show", Kind::Show),
    ("advice", Kind::Advice),
    ("laws", Kind::Laws),
    ("law", Kind::Law),
    ("sideeffect", Kind::SideEffect),
    ("rules", Kind::Rules),
    ("disable", Kind::Disable),
    ("enable", Kind::Enable),
    ("remove", Kind::Remove),
    ("undo", Kind::Undo),
    ("redo", Kind::Redo),
    ("history", Kind::History),
    ("goto", Kind::Goto),
    ("checkpoints", Kind::Checkpoints),
    ("moves", Kind::Moves),
    ("play", Kind::Play),
    ("why", Kind::Why),
    ("random", Kind::Random),
    ("agent", Kind::Agent),
    ("hint", Kind::Hint),
    ("save", Kind::Save),
    ("load", Kind::Load),
    ("sgf", Kind::Sgf),
    ("signal", Kind::Signal),
    ("board", Kind::Board),
    ("click", Kind::Click),
    ("reload", Kind::Reload),
];

impl Kind {
    /// The command a word after `:` names.
    pub(super) fn from_word(word: &str) -> Option<Kind> {
        WORDS.iter().find(|(w, _)| *w == word).map(|(_, k)| *k)
    }

    /// The name written after `:` (`send` and `expression` for the two that have none).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Send => "send",
            Kind::Expression => "expression",
            kind => WORDS
                .iter()
                .find(|(_, k)| *k == kind)
                .map_or("", |(w, _)| w),
        }
    }

    /// Whether it may run while a transaction is being stepped or waits for a signal: it
    /// only looks, or it answers the signal or draws the board.
    pub fn runs_while_pending(self) -> bool {
        matches!(
            self,
            Kind::Entities
                | Kind::Show
                | Kind::Advice
                | Kind::Laws
                | Kind::Checkpoints
                | Kind::Help
                | Kind::Trace
                | Kind::History
                | Kind::Profile
                | Kind::Disasm
                | Kind::Signal
                | Kind::Click
                | Kind::Board
        )
    }

    /// Whether a journal may hold it: a send, an expression, or a command that changes the
    /// world or the rules. Replaying a journal cannot write files or load another journal.
    pub fn journaled(self) -> bool {
        matches!(
            self,
            Kind::Send
                | Kind::Expression
                | Kind::Play
                | Kind::Law
                | Kind::SideEffect
                | Kind::Rules
                | Kind::Disable
                | Kind::Enable
                | Kind::Remove
                | Kind::Signal
                | Kind::Click
        )
    }
}
