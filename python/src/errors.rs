//! Why a request failed, for Python: `LoadError` carries every diagnostic of a game that
//! does not load (file, line, column, message, hint) and its text as the compiler prints
//! it; `MoveError` says why a match refused a request, which changed nothing.

use flexrules::api::{Error, Game, LoadError as EngineLoadError};
use flexrules::diagnostic::{Diagnostic, Severity};
use flexrules::source::SourceMap;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;

create_exception!(
    flexrules,
    LoadError,
    PyException,
    "A game that does not load: `diagnostics` lists each problem (a `Diagnostic`), and the \
     message is every diagnostic as the compiler prints it, source lines underlined."
);
create_exception!(
    flexrules,
    MoveError,
    PyException,
    "A request a match refused (an unknown or illegal move, a message vetoed, the game's \
     code failing): the match is exactly as it was."
);

/// One problem found in a game's files.
#[pyclass(name = "Diagnostic", module = "flexrules", frozen, get_all)]
pub struct PyDiagnostic {
    /// `"error"` or `"warning"`.
    severity: String,
    /// The kind of problem, a stable short name such as `unbound-name`.
    code: String,
    /// What is wrong, in one line.
    message: String,
    /// The file, as the game names it.
    file: String,
    /// The line, from 1.
    line: usize,
    /// The column, in characters, from 1.
    column: usize,
    /// How to fix it, where a hint helps.
    hint: Option<String>,
}

#[pymethods]
impl PyDiagnostic {
    fn __repr__(&self) -> String {
        format!(
            "<Diagnostic {} {}:{}:{} [{}] {}>",
            self.severity, self.file, self.line, self.column, self.code, self.message
        )
    }

    fn __str__(&self) -> String {
        format!(
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.column, self.severity, self.message
        )
    }
}

impl PyDiagnostic {
    fn of(sources: &SourceMap, d: &Diagnostic) -> PyDiagnostic {
        let file = sources.files().find(|(id, _)| *id == d.span.file);
        let (file, line, column) = match file {
            Some((_, f)) => {
                let (line, column) = f.line_col(d.span.start as usize);
                (f.path.display().to_string(), line, column)
            }
            None => (String::new(), 0, 0),
        };
        PyDiagnostic {
            severity: match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            }
            .to_string(),
            code: d.code.to_string(),
            message: d.message.clone(),
            file,
            line,
            column,
            hint: d.hint.clone(),
        }
    }
}

/// The Python exception for a game that did not load.
pub fn load_error(py: Python<'_>, e: &EngineLoadError) -> PyErr {
    let text = e.render(false);
    let err = LoadError::new_err(text.trim_end().to_string());
    let diagnostics = match e {
        EngineLoadError::Invalid {
            sources,
            diagnostics,
        } => diagnostics
            .iter()
            .map(|d| PyDiagnostic::of(sources, d))
            .collect(),
        EngineLoadError::Open(_) => Vec::new(),
    };
    let set =
        PyList::new(py, diagnostics).and_then(|list| err.value(py).setattr("diagnostics", list));
    match set {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The Python exception for a request a match refused.
pub fn move_error(game: &Game, e: &Error) -> PyErr {
    MoveError::new_err(e.render(game.sources(), false).trim_end().to_string())
}
