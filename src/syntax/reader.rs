//! The reader: tokens to a concrete tree of directives and S-expressions (chumsky).
//!
//! The grammar at this level is small: a file is a run of S-expressions (the statements
//! of an advice file) followed by directives, each a `#word` and the S-expressions after
//! it up to the next directive. The reader never fails: an unclosed `(` ends at the next
//! directive or the end of the file and is marked [`Sexp::List::closed`]` = false`; a `)`
//! with no `(` becomes [`Sexp::Stray`]. What those mean is decided by the lowering pass,
//! which turns the tree into the typed AST. The reader knows no form or directive names.

use std::ops::Range;

use chumsky::input::{Input as _, ValueInput};
use chumsky::prelude::*;

use super::token::{Spanned, Token};

/// Deepest nesting of parentheses the reader accepts.
pub const MAX_NESTING: usize = 200;

/// An atom of the concrete tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Atom<'s> {
    /// A name.
    Ident(&'s str),
    /// A string literal's raw body (escapes not decoded).
    Str(&'s str),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A token the lexer rejected (already reported); `true` for an unterminated string.
    Error(bool),
}

/// An S-expression with its byte range.
#[derive(Clone, Debug, PartialEq)]
pub enum Sexp<'s> {
    /// A single token.
    Atom(Atom<'s>, Range<usize>),
    /// A parenthesised list.
    List {
        /// Its elements.
        items: Vec<Sexp<'s>>,
        /// From the `(` to the `)` (or to the last element when unclosed).
        span: Range<usize>,
        /// False when the closing `)` is missing.
        closed: bool,
    },
    /// A `)` that closes nothing.
    Stray(Range<usize>),
}

impl Sexp<'_> {
    /// True when this expression ends in an unterminated string (which swallowed
    /// whatever followed it on its line, closing parentheses included).
    pub fn ends_in_unterminated_string(&self) -> bool {
        match self {
            Sexp::Atom(Atom::Error(true), _) => true,
            Sexp::List { items, .. } => items.last().is_some_and(Sexp::ends_in_unterminated_string),
            _ => false,
        }
    }

    /// The byte range of this expression.
    pub fn span(&self) -> Range<usize> {
        match self {
            Sexp::Atom(_, s) | Sexp::Stray(s) => s.clone(),
            Sexp::List { span, .. } => span.clone(),
        }
    }
}

/// A directive: `#name` and its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive<'s> {
    /// The word after `#`.
    pub name: &'s str,
    /// The range of `#name`.
    pub name_span: Range<usize>,
    /// Everything up to the next directive.
    pub args: Vec<Sexp<'s>>,
}

/// A whole file as read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File<'s> {
    /// Expressions before the first directive (the statements of an advice file).
    pub leading: Vec<Sexp<'s>>,
    /// The directives, in order.
    pub directives: Vec<Directive<'s>>,
}

impl std::fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::LParen => write!(f, "("),
            Token::RParen => write!(f, ")"),
            Token::Directive(d) => write!(f, "#{d}"),
            Token::Str(s) => write!(f, "\"{s}\""),
            Token::UnterminatedStr | Token::BadNumber | Token::Error(_) => write!(f, "<error>"),
            Token::Int(i) => write!(f, "{i}"),
            Token::Float(x) => write!(f, "{x}"),
            Token::Ident(s) => write!(f, "{s}"),
        }
    }
}

type Extra<'t, 's> = extra::Err<Rich<'t, Token<'s>, SimpleSpan>>;

fn parser<'t, 's: 't, I>() -> impl Parser<'t, I, File<'s>, Extra<'t, 's>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    let sexp = recursive(|sexp| {
        let atom = select! {
            Token::Ident(s) => Atom::Ident(s),
            Token::Str(s) => Atom::Str(s),
            Token::Int(i) => Atom::Int(i),
            Token::Float(x) => Atom::Float(x),
            Token::Error(unterminated) => Atom::Error(unterminated),
        }
        .map_with(|a, e| {
            let span: SimpleSpan = e.span();
            Sexp::Atom(a, span.into_range())
        });
        let list = just(Token::LParen)
            .ignore_then(sexp.repeated().collect::<Vec<_>>())
            .then(just(Token::RParen).or_not())
            .map_with(|(items, close), e| {
                let span: SimpleSpan = e.span();
                Sexp::List {
                    items,
                    span: span.into_range(),
                    closed: close.is_some(),
                }
            });
        atom.or(list)
    });
    let stray = just(Token::RParen).map_with(|_, e| {
        let span: SimpleSpan = e.span();
        Sexp::Stray(span.into_range())
    });
    let args = sexp.or(stray).repeated().collect::<Vec<_>>();
    let directive = select! { Token::Directive(name) => name }
        .map_with(|name, e| {
            let span: SimpleSpan = e.span();
            (name, span.into_range())
        })
        .then(args.clone())
        .map(|((name, name_span), args)| Directive {
            name,
            name_span,
            args,
        });
    args.then(directive.repeated().collect::<Vec<_>>())
        .then_ignore(end())
        .map(|(leading, directives)| File {
            leading,
            directives,
        })
}

/// A problem the reader found.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadError {
    /// This `(` went past [`MAX_NESTING`]; it and everything inside it were dropped.
    TooDeep(Range<usize>),
    /// The grammar rejected a token (the grammar accepts every sequence, so this is a bug
    /// worth reporting rather than hiding).
    Unexpected(Range<usize>, String),
}

/// Read `tokens` (from [`super::token::lex`]) into a [`File`].
///
/// Parentheses nested deeper than [`MAX_NESTING`] are dropped with everything inside them
/// and reported, so that no later pass recurses without bound.
pub fn read<'s>(tokens: &[Spanned<'s>], len: usize) -> (File<'s>, Vec<ReadError>) {
    let mut too_deep = Vec::new();
    let mut depth = 0usize;
    let mut kept: Vec<(Token<'s>, SimpleSpan)> = Vec::with_capacity(tokens.len());
    for (tok, range) in tokens {
        match tok {
            Token::LParen => {
                depth += 1;
                if depth == MAX_NESTING + 1 {
                    too_deep.push(ReadError::TooDeep(range.clone()));
                }
            }
            Token::RParen if depth > 0 => {
                depth -= 1;
                if depth >= MAX_NESTING {
                    continue;
                }
            }
            Token::Directive(_) => depth = 0,
            _ => {}
        }
        if depth <= MAX_NESTING {
            kept.push((*tok, SimpleSpan::from(range.clone())));
        }
    }
    let input = kept
        .as_slice()
        .map(SimpleSpan::from(len..len), |(t, s)| (t, s));
    let (output, errors) = parser().parse(input).into_output_errors();
    too_deep.extend(
        errors
            .into_iter()
            .map(|e| ReadError::Unexpected(e.span().into_range(), e.to_string())),
    );
    (output.unwrap_or_default(), too_deep)
}
