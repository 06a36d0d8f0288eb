//! Tokens and the lexer.
//!
//! The lexer never stops at bad input: every unrecognised character, unterminated string,
//! bad escape or out-of-range number becomes a [`LexError`] with its own span and lexing goes
//! on, so one run reports every problem. Knows nothing about forms or directives beyond the
//! `#` that starts a directive word.

use logos::Logos;

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};

/// What went wrong lexing one token.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum LexError {
    /// A character that starts no token.
    #[default]
    UnexpectedChar,
    /// A string with no closing quote.
    UnterminatedString,
    /// A backslash escape other than `\" \\ \n \t`, at this byte offset within the token.
    BadEscape(usize),
    /// An integer literal outside the range of a 64-bit signed integer.
    IntegerOverflow,
    /// A number immediately followed by letters, such as `3abc`.
    MalformedNumber,
}

/// One token. Identifier, directive and string tokens borrow their text from the source.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r";[^\n]*", allow_greedy = true))]
pub enum Token<'s> {
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `#word`: the word without the `#`.
    #[regex(r"#[A-Za-z][A-Za-z0-9_\-]*", |lex| &lex.slice()[1..])]
    Directive(&'s str),
    /// A string literal: the raw text between the quotes, escapes not yet decoded.
    #[regex(r#""([^"\\\n]|\\[^\r\n])*""#, string_body, allow_greedy = true)]
    Str(&'s str),
    /// A string with no closing quote on its line.
    #[regex(
        r#""([^"\\\n]|\\[^\r\n])*"#,
        unterminated,
        priority = 1,
        allow_greedy = true
    )]
    UnterminatedStr,
    /// An integer literal.
    #[regex(r"-?[0-9]+", int_literal, priority = 6)]
    Int(i64),
    /// A float literal.
    #[regex(r"-?[0-9]+\.[0-9]+([eE][+\-]?[0-9]+)?", |lex| lex.slice().parse::<f64>().ok(), priority = 6)]
    Float(f64),
    /// A number run into letters (`3abc`): always an error.
    #[regex(r"-?[0-9][0-9A-Za-z_?!.\-]*", malformed_number, priority = 2)]
    BadNumber,
    /// Where a bad token was (its diagnostic is already reported). Never produced by
    /// logos itself: [`lex`] puts it in place of each error so the forms around it keep
    /// their shape and report nothing more.
    Error(bool),
    /// An identifier or operator name.
    #[regex(r"[A-Za-z_?!][A-Za-z0-9_?!\-]*")]
    #[regex(r"-[A-Za-z_?!\-][A-Za-z0-9_?!\-]*")]
    #[token("+")]
    #[token("-")]
    #[token("*")]
    #[token("/")]
    #[token("%")]
    #[token("=")]
    #[token("==")]
    #[token("!=")]
    #[token("<")]
    #[token(">")]
    #[token("<=")]
    #[token(">=")]
    Ident(&'s str),
}

fn string_body<'s>(lex: &mut logos::Lexer<'s, Token<'s>>) -> Result<&'s str, LexError> {
    let slice = lex.slice();
    let body = &slice[1..slice.len() - 1];
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            match bytes.get(i + 1) {
                Some(b'"' | b'\\' | b'n' | b't') => i += 2,
                _ => return Err(LexError::BadEscape(i + 1)),
            }
        } else {
            i += 1;
        }
    }
    Ok(body)
}

fn unterminated<'s>(_: &mut logos::Lexer<'s, Token<'s>>) -> Result<(), LexError> {
    Err(LexError::UnterminatedString)
}

fn malformed_number<'s>(_: &mut logos::Lexer<'s, Token<'s>>) -> Result<(), LexError> {
    Err(LexError::MalformedNumber)
}

fn int_literal<'s>(lex: &mut logos::Lexer<'s, Token<'s>>) -> Result<i64, LexError> {
    lex.slice()
        .parse::<i64>()
        .map_err(|_| LexError::IntegerOverflow)
}

/// Decode the escapes of a string token body (already validated by the lexer).
pub fn unescape(body: &str) -> std::borrow::Cow<'_, str> {
    if !body.contains('\\') {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A token with its byte range.
pub type Spanned<'s> = (Token<'s>, std::ops::Range<usize>);

/// Lex `text`, returning the good tokens and a diagnostic for each bad one.
pub fn lex(file: FileId, text: &str) -> (Vec<Spanned<'_>>, Vec<Diagnostic>) {
    let mut tokens = Vec::with_capacity(text.len() / 4);
    let mut errors = Vec::new();
    let mut lexer = Token::lexer(text);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        match result {
            Ok(token) => tokens.push((token, range)),
            Err(e) => {
                let unterminated = e == LexError::UnterminatedString;
                errors.push(lex_diagnostic(file, text, range.clone(), e));
                tokens.push((Token::Error(unterminated), range));
            }
        }
    }
    (tokens, errors)
}

fn lex_diagnostic(
    file: FileId,
    text: &str,
    range: std::ops::Range<usize>,
    error: LexError,
) -> Diagnostic {
    let slice = &text[range.clone()];
    match error {
        LexError::UnexpectedChar => {
            let c = slice.chars().next().unwrap_or(' ');
            let d = Diagnostic::error(
                "unexpected-character",
                Span::new(file, range),
                format!("unexpected character {c:?}"),
            );
            match c {
                '[' | ']' | '{' | '}' => {
                    d.with_hint("lists and dictionaries are built with (list ...) and (dict ...)")
                }
                '\'' => d.with_hint("strings are written in double quotes: \"text\""),
                c if c.is_alphabetic() => {
                    d.with_hint("names use ASCII letters, digits and _ - ? !; put other text in a string")
                }
                _ => d,
            }
        }
        LexError::UnterminatedString => Diagnostic::error(
            "unterminated-string",
            Span::new(file, range.start..range.start + 1),
            "this string is never closed",
        )
        .with_label("the string starting here has no closing quote on this line")
        .with_hint("add the closing `\"`; strings stay on one line (write a line break as \\n, a quote as \\\")"),
        LexError::BadEscape(offset) => {
            let at = range.start + 1 + offset - 1;
            let esc_len = text[at + 1..].chars().next().map_or(1, |c| c.len_utf8() + 1);
            Diagnostic::error(
                "bad-escape",
                Span::new(file, at..at + esc_len),
                format!("unknown escape `{}` in a string", &text[at..at + esc_len]),
            )
            .with_hint("the escapes are \\\" \\\\ \\n and \\t")
        }
        LexError::IntegerOverflow => Diagnostic::error(
            "integer-overflow",
            Span::new(file, range),
            format!("integer literal {slice} does not fit in 64 bits"),
        )
        .with_hint("integers range from -9223372036854775808 to 9223372036854775807; write a float (with a `.`) for larger numbers"),
        LexError::MalformedNumber => Diagnostic::error(
            "malformed-number",
            Span::new(file, range),
            format!("`{slice}` is not a number"),
        )
        .with_hint("names may not start with a digit; numbers are written like 42, -3 or 2.5"),
    }
}
