//! Why a builtin refused its arguments, or a limit of the transaction stopped it: a
//! message and an optional hint, which the VM turns into a diagnostic with the call's span.

use std::fmt;

/// Why a builtin refused its arguments (the VM turns it into a diagnostic with the call's
/// span).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltinError {
    /// One line saying what went wrong.
    pub message: String,
    /// What to do about it, when something helps.
    pub hint: Option<String>,
}

impl BuiltinError {
    /// An error without a hint.
    pub fn new(message: impl Into<String>) -> BuiltinError {
        BuiltinError {
            message: message.into(),
            hint: None,
        }
    }

    /// The same error with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> BuiltinError {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for BuiltinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
