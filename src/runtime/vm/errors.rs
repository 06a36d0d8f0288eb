//! Runtime errors as the machine reports them: where they happened, the chain of
//! messages that led there and the function calls the failing code is in.

use crate::compile::program::Game;
use crate::source::Span;

use super::super::builtins::BuiltinError;
use super::super::trace::RuntimeError;
use super::sends::JoinPoint;
use super::{Kind, Limits, Machine, OUTSIDE};

impl Machine {
    /// A builtin's error, at `span`.
    pub(super) fn builtin_error(&self, span: Span, e: BuiltinError) -> RuntimeError {
        RuntimeError {
            message: e.message,
            hint: e.hint,
            span: (span != OUTSIDE).then_some(span),
            chain: self.chain(),
            calls: None,
        }
    }

    pub(super) fn error(&self, span: Span, message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            message: message.into(),
            hint: None,
            span: (span != OUTSIDE).then_some(span),
            chain: self.chain(),
            calls: None,
        }
    }

    /// Point error `e` at the calls of functions the failing code is in (the frames above
    /// the body of the join point), innermost first, where each was called from: each
    /// place once, with how many of the calls were made there.
    #[cold]
    pub(super) fn note_calls(&self, game: &Game, e: &mut RuntimeError) {
        let mut calls = super::super::trace::Calls::default();
        let mut frames = self.frames.iter().rev().peekable();
        while let Some(f) = frames.next() {
            let (Kind::Function, Some(caller)) = (f.kind, frames.peek()) else {
                break;
            };
            // The caller keeps the place after its `Call`.
            let code = game.code(caller.code);
            let Some(&at) = (caller.ip as usize)
                .checked_sub(1)
                .and_then(|i| code.spans.get(i))
            else {
                continue;
            };
            // A place already shown (a recursion) counts the call there.
            let full = calls.sites.len() == super::super::trace::CALLS_SHOWN;
            match calls.sites.iter_mut().find(|c| c.at == at) {
                Some(shown) => shown.times += 1,
                None if full => calls.more += 1,
                None => calls.sites.push(super::super::trace::CallSite {
                    function: game.code(f.code).name.to_string(),
                    at,
                    times: 1,
                }),
            }
        }
        if !calls.sites.is_empty() {
            e.calls = Some(Box::new(calls));
        }
    }

    /// The chain of messages that led here, innermost first.
    ///
    /// A deep chain is shortened to its innermost and outermost links, so an error 100,000
    /// messages deep neither formats every link nor prints them all.
    pub(super) fn chain(&self) -> Vec<String> {
        const INNER: usize = 8;
        let link = |jp: &JoinPoint| {
            format!(
                "{} handled {} from {}",
                jp.name,
                jp.msg.label,
                jp.sender.map_or("user", |s| s.as_str())
            )
        };
        let mut out: Vec<String> = self.jps.iter().rev().take(INNER).map(link).collect();
        if self.jps.len() > INNER + 1 {
            out.push(format!("... {} more", self.jps.len() - INNER - 1));
        }
        if self.jps.len() > INNER {
            out.extend(self.jps.first().map(link));
        }
        out
    }

    pub(super) fn depth_error(&self, span: Span, limits: Limits) -> RuntimeError {
        let mut e = self.error(
            span,
            format!(
                "message depth limit reached: {} nested sends and calls",
                limits.max_depth
            ),
        );
        e.hint = Some(
            "an endless chain of messages or recursion? raise the limit with --max-depth".into(),
        );
        e
    }
}
