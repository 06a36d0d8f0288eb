//! Balance runs for Python: a stretch of a run's games played here, its tally as plain
//! data (JSON bytes) that crosses processes and machines (Ray tasks), tallies merged, and
//! the summary `flexrules playout --json` prints, from the same code as the command line
//! (`flexrules::play::range`, `flexrules::play::summary`).

use flexrules::api::Game;
use flexrules::play::agent::Agents;
use flexrules::play::range::play_range;
use flexrules::play::stats::Tally;
use flexrules::play::summary::{
    Configuration, comparison, from_data, summary as summary_of, to_data,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::errors::MoveError;
use crate::game::PyGame;

/// The agents as `--agent` options: None (every player at random), a str (one agent for
/// every player), a list of `[player=]agent`, or a dict player -> agent.
fn agent_texts(agents: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(agents) = agents.filter(|a| !a.is_none()) else {
        return Ok(Vec::new());
    };
    if let Ok(text) = agents.cast::<PyString>() {
        return Ok(vec![text.to_cow()?.into_owned()]);
    }
    if let Ok(dict) = agents.cast::<PyDict>() {
        let mut out = Vec::new();
        for (player, agent) in dict.iter() {
            let agent: String = agent.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "the agent of player {player} is a str such as \"mcts:400\" or \"random\""
                ))
            })?;
            out.push(format!("{}={agent}", player.str()?.to_cow()?));
        }
        return Ok(out);
    }
    if agents.is_instance_of::<PyList>() || agents.is_instance_of::<PyTuple>() {
        return agents.extract().map_err(|_| {
            PyTypeError::new_err(
                "agents as a list are strs, each `<agent>` or `<player>=<agent>` as --agent takes them",
            )
        });
    }
    Err(PyTypeError::new_err(format!(
        "agents are None, a str, a list of `[<player>=]<agent>` or a dict player -> agent, not {}",
        agents.get_type().name()?
    )))
}

/// Why a stretch could not be played.
enum Refused {
    /// The match did not start (a parameter, `#setup`).
    Start(String),
    /// The agents are wrong for the game.
    Agents(String),
}

impl Refused {
    fn into_py(self) -> PyErr {
        match self {
            Refused::Start(e) => MoveError::new_err(e),
            Refused::Agents(e) => PyValueError::new_err(e),
        }
    }
}

/// A match of `game` started from `seed` with its agents made on it, then `f` of them.
fn with_agents<R>(
    game: &Game,
    seed: u64,
    texts: &[String],
    f: impl FnOnce(&flexrules::api::Match, Option<&Agents>) -> R,
) -> Result<R, Refused> {
    let mut m = game
        .start_headless(seed)
        .map_err(|e| Refused::Start(e.render(game.sources(), false).trim_end().to_string()))?;
    let agents = Agents::from_texts(&mut m, texts).map_err(Refused::Agents)?;
    Ok(f(&m, agents.as_ref()))
}

/// A tally's plain data: bytes or str of JSON, or a dict.
fn tally_of(data: &Bound<'_, PyAny>) -> PyResult<Tally> {
    let value: serde_json::Value = if let Ok(b) = data.cast::<PyBytes>() {
        serde_json::from_slice(b.as_bytes()).map_err(|e| PyValueError::new_err(e.to_string()))?
    } else if let Ok(s) = data.cast::<PyString>() {
        serde_json::from_str(&s.to_cow()?).map_err(|e| PyValueError::new_err(e.to_string()))?
    } else if data.is_instance_of::<PyDict>() {
        let text: String = (data.py().import("json")?)
            .call_method1("dumps", (data,))?
            .extract()?;
        serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))?
    } else {
        return Err(PyTypeError::new_err(
            "a tally's data is the bytes play_games gives (or their JSON as str or dict)",
        ));
    };
    from_data(&value).map_err(PyValueError::new_err)
}

fn data_bytes<'py>(py: Python<'py>, t: &Tally) -> Bound<'py, PyBytes> {
    PyBytes::new(py, to_data(t).to_string().as_bytes())
}

fn to_dict<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (value.to_string(),))
}

/// Play games `first..first + count` of a run seeded `seed` (each exactly game `i` of
/// `flexrules playout --seed <seed>`) with `agents` (as --agent: None, a str, a list of
/// `[player=]agent`, a dict player -> agent), stopping a game after `max_plies` moves;
/// their tally as plain data (JSON bytes). The games are played on this thread, without
/// the interpreter lock.
#[pyfunction]
#[pyo3(signature = (game, seed, first, count, agents = None, max_plies = 10_000))]
pub fn play_games<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyGame>,
    seed: u64,
    first: u64,
    count: u64,
    agents: Option<&Bound<'py, PyAny>>,
    max_plies: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let texts = agent_texts(agents)?;
    let game = &game.get().game;
    let tally = py.detach(|| {
        with_agents(game, seed, &texts, |m, agents| {
            play_range(m, seed, first, count, max_plies, agents)
        })
    });
    Ok(data_bytes(py, &tally.map_err(Refused::into_py)?))
}

/// Check `agents` against the game (its `to-move`, the agents' names) without playing:
/// raises ValueError as play_games would.
#[pyfunction]
#[pyo3(signature = (game, agents = None))]
pub fn check_agents(game: &Bound<'_, PyGame>, agents: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let texts = agent_texts(agents)?;
    with_agents(&game.get().game, 0, &texts, |_, _| ()).map_err(Refused::into_py)
}

/// The tallies (plain data) added up, as one tally's plain data: the first error is the
/// one of the smallest game number.
#[pyfunction]
pub fn merge_tallies<'py>(
    py: Python<'py>,
    parts: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut all = Tally::default();
    for p in &parts {
        all = all.merge(tally_of(p)?);
    }
    Ok(data_bytes(py, &all))
}

/// A rules file compared: its name, the game loaded with it, its games' tally.
type Compared<'py> = (String, Bound<'py, PyGame>, Bound<'py, PyAny>);

/// The summary `flexrules playout --json` prints for a tally of `game` (plain data), as a
/// dict; with `compare` (a list of `(rules_file, game_with_it, tally)`), the summary of
/// `playout --compare ... --json`: `{"configurations": [...]}`. `seconds` is the caller's
/// wall time (given to every configuration); `agents` as play_games takes them.
#[pyfunction]
#[pyo3(signature = (game, tally, compare = None, seconds = 0.0, agents = None))]
pub fn summary<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyGame>,
    tally: &Bound<'py, PyAny>,
    compare: Option<Vec<Compared<'py>>>,
    seconds: f64,
    agents: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let texts = agent_texts(agents)?;
    let base = tally_of(tally)?;
    let Some(compare) = compare else {
        let g = &game.get().game;
        let value = with_agents(g, 0, &texts, |_, agents| {
            summary_of(&base, seconds, agents, g.sources())
        })
        .map_err(Refused::into_py)?;
        return to_dict(py, &value);
    };
    let mut configs: Vec<(Option<String>, &Game, Tally)> = vec![(None, &game.get().game, base)];
    for (rules, g, t) in &compare {
        configs.push((Some(rules.clone()), &g.get().game, tally_of(t)?));
    }
    // Each configuration's agents are made on its own game.
    let mut made = Vec::with_capacity(configs.len());
    for (_, g, _) in &configs {
        let mut m = g
            .start_headless(0)
            .map_err(|e| MoveError::new_err(e.render(g.sources(), false).trim_end().to_string()))?;
        made.push(Agents::from_texts(&mut m, &texts).map_err(PyValueError::new_err)?);
    }
    let list: Vec<Configuration<'_>> = configs
        .iter()
        .zip(&made)
        .map(|((rules, g, t), agents)| Configuration {
            rules: rules.clone(),
            tally: t,
            seconds,
            agents: agents.as_ref(),
            sources: g.sources(),
        })
        .collect();
    to_dict(py, &comparison(&list))
}
