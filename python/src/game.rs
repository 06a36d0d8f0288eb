//! `flexrules.Game`: a game loaded, checked and compiled with its rules files and
//! parameters, from disk or from its files' text (plain data that crosses processes and
//! machines). Pickled as that plain data.

use std::path::PathBuf;

use flexrules::api::{Game, Match};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};

use crate::errors::{load_error, move_error};
use crate::matches::PyMatch;

/// A game: its files read, checked and compiled with its rules files (variants, house
/// rules) and parameters. Start matches from it with `start(seed)`.
///
/// `Game(path, rules=(), params=None)` loads the game at `path` (a directory holding
/// `game.fr`, or one `.fr` file); `params` maps a `#param` name to its value (a str is
/// read as the command line reads `--param name=value`: a number, `true`, `false`, `nil`,
/// else a string). A game that does not load raises `LoadError` with its diagnostics.
#[pyclass(name = "Game", module = "flexrules", frozen)]
pub struct PyGame {
    pub(crate) game: Game,
}

/// A parameter's value as the command line writes it.
fn param_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_none() {
        return Ok("nil".into());
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.into());
    }
    if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
        return Ok(value.str()?.to_cow()?.into_owned());
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    Err(PyValueError::new_err(format!(
        "a parameter's value is a str, an int, a float, a bool or None, not {}",
        value.get_type().name()?
    )))
}

fn params_of(params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let mut out = Vec::new();
    if let Some(params) = params {
        for (k, v) in params.iter() {
            let name: String = k.extract().map_err(|_| {
                PyValueError::new_err("a parameter's name is a str (the game's #param name)")
            })?;
            out.push((name, param_text(&v)?));
        }
    }
    Ok(out)
}

impl PyGame {
    fn loaded(py: Python<'_>, loader: flexrules::api::Loader) -> PyResult<PyGame> {
        let game = py.detach(|| loader.load());
        match game {
            Ok(game) => Ok(PyGame { game }),
            Err(e) => Err(load_error(py, &e)),
        }
    }

    /// A match of this game from `seed`, started headless (representations draw when a
    /// view is first asked for).
    pub(crate) fn new_match(&self, seed: u64) -> PyResult<Match> {
        self.game
            .start_headless(seed)
            .map_err(|e| move_error(&self.game, &e))
    }
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (path, rules = Vec::new(), params = None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        rules: Vec<PathBuf>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyGame> {
        let mut loader = Game::loader(path).rules_files(&rules);
        for (name, value) in params_of(params)? {
            loader = loader.param(&name, &value);
        }
        PyGame::loaded(py, loader)
    }

    /// Load a game from its files' text held in memory (`files` maps each path, as the
    /// game names it, to its text; `game.files()` gives them), with the rules files
    /// (paths among `files`) and parameters: plain data, for other processes and machines.
    #[staticmethod]
    #[pyo3(signature = (files, path, rules = Vec::new(), params = None))]
    fn from_files(
        py: Python<'_>,
        files: Vec<(PathBuf, String)>,
        path: PathBuf,
        rules: Vec<PathBuf>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyGame> {
        let mut loader = Game::loader(path).rules_files(&rules).files(files);
        for (name, value) in params_of(params)? {
            loader = loader.param(&name, &value);
        }
        PyGame::loaded(py, loader)
    }

    /// Every file the game was read from, path to text: with `Game.from_files` and the
    /// same rules files and parameters, they load the same game elsewhere.
    fn files(&self) -> Vec<(String, String)> {
        (self.game.files().into_iter())
            .map(|(p, t)| (p.display().to_string(), t))
            .collect()
    }

    /// The path the game was loaded from.
    #[getter]
    fn path(&self) -> String {
        self.game.path().display().to_string()
    }

    /// The rules files in force, in order.
    #[getter]
    fn rules(&self) -> Vec<String> {
        (self.game.rules_files().iter())
            .map(|p| p.display().to_string())
            .collect()
    }

    /// The parameters set, name to the value's text.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (k, v) in self.game.params() {
            dict.set_item(k, v)?;
        }
        Ok(dict)
    }

    /// The warnings found while loading (the game runs with them), as `Diagnostic`s'
    /// text.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        (self.game.warnings().iter())
            .map(|d| d.message.clone())
            .collect()
    }

    /// Start a match: the parameters, the instances, then `#setup`, the random generator
    /// seeded with `seed`. Raises `MoveError` when the game cannot start (an unknown
    /// parameter, a failing `#setup`).
    #[pyo3(signature = (seed = 0))]
    fn start(slf: Bound<'_, Self>, seed: u64) -> PyResult<PyMatch> {
        let m = slf.get().new_match(seed)?;
        Ok(PyMatch::new(slf.unbind(), seed, m))
    }

    /// The players, by their text: the game's `players` function at the start of a match
    /// seeded 0, else `["0", "1"]`.
    fn players(&self) -> PyResult<Vec<String>> {
        use flexrules::api::{PLAYERS, PlayersError};
        let mut m = self.new_match(0)?;
        let why = match m.players("Python") {
            Ok(Some(players)) => return Ok(players),
            Ok(None) => return Ok(vec!["0".into(), "1".into()]),
            Err(PlayersError::Function(e)) => e,
            Err(PlayersError::Failed(status)) => {
                format!("the game's ({PLAYERS}) failed at the start: {status}")
            }
            Err(PlayersError::NotAList(v)) => {
                format!("the game's ({PLAYERS}) gave {v}, not a list")
            }
            Err(PlayersError::Empty) => format!("the game's ({PLAYERS}) gave an empty list"),
            Err(PlayersError::NotAPlayer(p)) => format!(
                "the game's ({PLAYERS}) gave {p}, which is not a player (a number, or a word)"
            ),
        };
        Err(PyValueError::new_err(why))
    }

    fn __repr__(&self) -> String {
        let mut out = format!("flexrules.Game({:?}", self.path());
        let rules = self.rules();
        if !rules.is_empty() {
            out.push_str(&format!(", rules={rules:?}"));
        }
        if !self.game.params().is_empty() {
            let params: Vec<String> = (self.game.params().iter())
                .map(|(k, v)| format!("{k:?}: {v:?}"))
                .collect();
            out.push_str(&format!(", params={{{}}}", params.join(", ")));
        }
        out.push(')');
        out
    }

    /// Pickled as plain data (its files' text, rules files and parameters), so it loads
    /// on a machine without the game's directory.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let this = slf.get();
        let restore = py.import("flexrules")?.getattr("_restore_game")?;
        let args = (this.files(), this.path(), this.rules(), this.params(py)?).into_pyobject(py)?;
        Ok((restore, args))
    }
}
