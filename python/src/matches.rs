//! `flexrules.Match`: one play of a game from a seed, moved by names or stable indices,
//! with its own undo history, forked cheaply, seen as each seat may see it. It keeps what
//! was played (moves by name, messages with their attributes) so that it pickles as game,
//! seed and moves, and is rebuilt by playing them again.

use flexrules::api::{Match, MoveIndex, Played, Status, Value};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::errors::{MoveError, move_error};
use crate::game::PyGame;
use crate::values::{from_py, to_py};

/// A legal move: its `name`, the stable `index` of the name (the same in every process
/// and run), and the `player` whose order it is when the move says (else `None`).
#[pyclass(name = "Move", module = "flexrules", frozen, get_all, eq)]
#[derive(PartialEq)]
pub struct PyMove {
    name: String,
    index: u64,
    player: Option<String>,
}

#[pymethods]
impl PyMove {
    fn __repr__(&self) -> String {
        match &self.player {
            Some(p) => format!("<Move {} #{} by {}>", self.name, self.index, p),
            None => format!("<Move {} #{}>", self.name, self.index),
        }
    }

    fn __str__(&self) -> String {
        self.name.clone()
    }

    fn __hash__(&self) -> u64 {
        self.index
    }
}

/// What was played, to play it again.
#[derive(Clone)]
enum Entry {
    /// A move (or an answer to a wait), by name.
    Move(String),
    /// A message: recipient, label, attributes, and the name it was played as
    /// (`<label>@<recipient>{<attributes>}`).
    Send(String, String, Vec<(String, Value)>, String),
}

/// A match: one play of a game from a seed.
///
/// Every request does what it says or raises `MoveError` and leaves the match exactly as
/// it was. A match belongs to the thread that made it; pickle it (or `fork` it) to carry
/// it elsewhere.
#[pyclass(name = "Match", module = "flexrules", unsendable)]
pub struct PyMatch {
    game: Py<PyGame>,
    seed: u64,
    inner: Match,
    /// What was played, in order; a move waiting for a signal and its answers so far
    /// come after the last committed one.
    entries: Vec<Entry>,
    /// How many entries each committed move or message ends at, in order.
    committed: Vec<usize>,
}

impl PyMatch {
    pub(crate) fn new(game: Py<PyGame>, seed: u64, inner: Match) -> PyMatch {
        PyMatch {
            game,
            seed,
            inner,
            entries: Vec::new(),
            committed: Vec::new(),
        }
    }

    fn error(&self, e: &flexrules::api::Error) -> PyErr {
        move_error(self.inner.game(), e)
    }

    /// Note what `played` did (committed, or begun and waiting); gives its name.
    fn note(&mut self, entry: Entry, played: &Played) -> String {
        self.entries.push(match entry {
            Entry::Move(_) => Entry::Move(played.name.clone()),
            Entry::Send(to, label, attrs, _) => Entry::Send(to, label, attrs, played.name.clone()),
        });
        if played.waiting.is_none() {
            self.committed.push(self.entries.len());
        }
        played.name.clone()
    }

    fn play_entry(&mut self, entry: &Entry) -> PyResult<String> {
        let played = match entry {
            Entry::Move(name) => self.inner.play(name),
            Entry::Send(to, label, attrs, _) => {
                let attrs: Vec<(&str, Value)> =
                    attrs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                self.inner.send(to, label, &attrs)
            }
        };
        match played {
            Ok(played) => Ok(self.note(entry.clone(), &played)),
            Err(e) => Err(self.error(&e)),
        }
    }

    fn view_of(&mut self, player: Option<&str>) -> PyResult<flexrules::api::SeatView> {
        self.inner.view(player).map_err(|e| self.error(&e))
    }

    fn entries_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for e in &self.entries {
            match e {
                Entry::Move(name) => list.append(name)?,
                Entry::Send(to, label, attrs, _) => {
                    let dict = PyDict::new(py);
                    for (k, v) in attrs {
                        dict.set_item(k, to_py(py, v)?)?;
                    }
                    list.append((to, label, dict))?;
                }
            }
        }
        Ok(list)
    }
}

#[pymethods]
impl PyMatch {
    /// The game played.
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<PyGame> {
        self.game.clone_ref(py)
    }

    /// The seed the match started from.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// The names of the moves played since the start, in order (answers to waits
    /// included); a message sent is named as `send` gave it
    /// (`<label>@<recipient>{<attributes>}`).
    #[getter]
    fn moves(&self) -> Vec<String> {
        (self.entries.iter())
            .map(|e| match e {
                Entry::Move(name) => name.clone(),
                Entry::Send(.., name) => name.clone(),
            })
            .collect()
    }

    /// The players to move, by their text: one, several when orders are given at once,
    /// none when the game says nobody in particular; while a move waits for a signal, the
    /// player who must answer.
    fn players_to_move(&mut self) -> PyResult<Vec<String>> {
        self.inner.players_to_move().map_err(|e| self.error(&e))
    }

    /// The legal moves, in the order the game proposes them (while a move waits for a
    /// signal: its answers, named `<signal>=<tag>`).
    fn legal_moves(&mut self) -> PyResult<Vec<PyMove>> {
        let moves = self.inner.legal_moves().map_err(|e| self.error(&e))?;
        Ok(moves
            .into_iter()
            .map(|m| PyMove {
                name: m.name,
                index: m.index.0,
                player: m.player,
            })
            .collect())
    }

    /// Play the legal move called `name` (or one of its aliases); gives the name played.
    /// A move that waits for a signal is begun: `waiting` says what it waits for, and it
    /// commits when its answers are played.
    fn play(&mut self, name: &str) -> PyResult<String> {
        self.play_entry(&Entry::Move(name.to_string()))
    }

    /// Play the legal move whose name has the stable index `index` (`Move.index`); gives
    /// its name.
    fn play_index(&mut self, index: u64) -> PyResult<String> {
        let played = self
            .inner
            .play_index(MoveIndex(index))
            .map_err(|e| self.error(&e))?;
        Ok(self.note(Entry::Move(String::new()), &played))
    }

    /// Send the message `label` with the attributes `attrs` to the entity called `to`, as
    /// one transaction (what a click or a script does besides playing moves); gives its
    /// name.
    #[pyo3(signature = (to, label, **attrs))]
    fn send(
        &mut self,
        to: &str,
        label: &str,
        attrs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<String> {
        let mut values = Vec::new();
        if let Some(attrs) = attrs {
            for (k, v) in attrs.iter() {
                values.push((k.extract::<String>()?, from_py(&v)?));
            }
        }
        self.play_entry(&Entry::Send(
            to.to_string(),
            label.to_string(),
            values,
            String::new(),
        ))
    }

    /// Take back the last move or message that committed, or the move waiting for a
    /// signal (all of it); `False` when there is none.
    fn undo(&mut self) -> bool {
        let waiting = self.inner.waiting().is_some();
        if !self.inner.undo() {
            return false;
        }
        if !waiting {
            self.committed.pop();
        }
        self.entries
            .truncate(self.committed.last().copied().unwrap_or(0));
        true
    }

    /// A copy to explore from: the same position and history, each going on alone
    /// (cheap: the world is persistent).
    fn fork(&self, py: Python<'_>) -> PyMatch {
        PyMatch {
            game: self.game.clone_ref(py),
            seed: self.seed,
            inner: self.inner.fork(),
            entries: self.entries.clone(),
            committed: self.committed.clone(),
        }
    }

    fn __copy__(&self, py: Python<'_>) -> PyMatch {
        self.fork(py)
    }

    #[pyo3(signature = (_memo = None))]
    fn __deepcopy__(&self, py: Python<'_>, _memo: Option<&Bound<'_, PyAny>>) -> PyMatch {
        self.fork(py)
    }

    /// Whether the game finished (`(finish ...)`).
    #[getter]
    fn finished(&self) -> bool {
        self.inner.finished()
    }

    /// The winner the game finished with (`None`: no winner, or not finished).
    #[getter]
    fn winner<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.winner() {
            Some(Some(w)) => to_py(py, &w),
            _ => Ok(py.None().into_bound(py)),
        }
    }

    /// The outcome the game finished with, as a dict (`None` while it goes on).
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(fields) = self.inner.outcome() else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        for (k, v) in fields {
            dict.set_item(k, to_py(py, &v)?)?;
        }
        Ok(Some(dict))
    }

    /// What `player` may see of the board, drawn as text (`None`: what everyone may see).
    #[pyo3(signature = (player = None))]
    fn view(&mut self, player: Option<&str>) -> PyResult<String> {
        Ok(self.view_of(player)?.text())
    }

    /// What `player` may see of the board, drawn as SVG (`None`: what everyone may see).
    #[pyo3(signature = (player = None))]
    fn svg(&mut self, player: Option<&str>) -> PyResult<String> {
        Ok(self.view_of(player)?.svg())
    }

    /// What a move begun waits for, as a dict (`signal`, `player`, `answers`), or `None`.
    #[getter]
    fn waiting<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(w) = self.inner.waiting() else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        dict.set_item("signal", w.signal)?;
        dict.set_item("player", w.player)?;
        match w.answers {
            Some(answers) => {
                let list = PyList::empty(py);
                for a in &answers {
                    list.append(to_py(py, a)?)?;
                }
                dict.set_item("answers", list)?;
            }
            None => dict.set_item("answers", py.None())?,
        }
        Ok(Some(dict))
    }

    /// The game's function `function` called with no argument, or with `arg` (a value of
    /// one parameter, written as the command line writes it: a number or a word). It runs
    /// in place and whatever it changed is undone; gives its value.
    #[pyo3(signature = (function, arg = None))]
    fn call<'py>(
        &mut self,
        py: Python<'py>,
        function: &str,
        arg: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let found = match arg {
            None => self.inner.function(function, "Python"),
            Some(arg) => {
                let text = arg.str()?.to_cow()?.into_owned();
                self.inner.function_with(function, &text, "Python")
            }
        };
        let f = found.map_err(PyValueError::new_err)?.ok_or_else(|| {
            PyValueError::new_err(format!("the game defines no function `{function}`"))
        })?;
        match self.inner.call(f) {
            Status::Committed(v) => to_py(py, &v),
            Status::Failed(e) => Err(MoveError::new_err(
                e.render(self.inner.game().sources(), false)
                    .trim_end()
                    .to_string(),
            )),
            other => Err(MoveError::new_err(format!(
                "`{function}` did not answer: {}",
                other.summary()
            ))),
        }
    }

    /// Whether the game (its rules files included) defines a function called `function`.
    fn defines(&self, function: &str) -> bool {
        self.inner.function_params(function).is_some()
    }

    /// A digest of the position: equal positions have equal digests.
    fn digest(&self) -> u64 {
        self.inner.digest()
    }

    fn __repr__(&mut self) -> String {
        let game = self.inner.game().path().display().to_string();
        let state = if self.inner.finished() {
            match self.inner.winner() {
                Some(Some(w)) => format!("finished, winner {}", w.to_text()),
                _ => "finished, no winner".to_string(),
            }
        } else {
            match self.inner.players_to_move() {
                Ok(p) if p.is_empty() => "to move: anyone".to_string(),
                Ok(p) => format!("to move: {}", p.join(", ")),
                Err(_) => "to move: unknown".to_string(),
            }
        };
        let board = self.inner.view(None).map(|v| v.text()).unwrap_or_default();
        format!(
            "<flexrules.Match {game} seed={} moves={} {state}>\n{}",
            self.seed,
            self.entries.len(),
            board.trim_end()
        )
    }

    /// Pickled as its game, its seed and what was played; rebuilt by playing it again.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let restore = py.import("flexrules")?.getattr("_restore_match")?;
        let args = (self.game.clone_ref(py), self.seed, self.entries_py(py)?).into_pyobject(py)?;
        Ok((restore, args))
    }

    /// Play again what `_restore_match` was given (names, and (to, label, attrs) tuples).
    fn _replay(&mut self, entries: &Bound<'_, PyList>) -> PyResult<()> {
        for item in entries.iter() {
            let entry = if let Ok(name) = item.extract::<String>() {
                Entry::Move(name)
            } else {
                let (to, label, attrs): (String, String, Bound<'_, PyDict>) =
                    item.extract().map_err(|_| {
                        PyRuntimeError::new_err(
                            "a pickled match's moves are names or (to, label, attrs)",
                        )
                    })?;
                let mut values = Vec::new();
                for (k, v) in attrs.iter() {
                    values.push((k.extract::<String>()?, from_py(&v)?));
                }
                Entry::Send(to, label, values, String::new())
            };
            self.play_entry(&entry)?;
        }
        Ok(())
    }
}
