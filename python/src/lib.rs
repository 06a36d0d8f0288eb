//! `flexrules._flexrules`: the engine for Python, on the public game API
//! (`flexrules::api`). The pure-Python package `flexrules` (python/flexrules) re-exports
//! it and adds OpenSpiel, Ray and plots.
//!
//! - [`game::PyGame`]: a game loaded with its rules files and parameters, from disk or
//!   from its files' text.
//! - [`matches::PyMatch`]: one play of it from a seed.
//! - [`balance`]: a stretch of a run's games played, tallies as plain data, merged and
//!   summarised as `flexrules playout --json` does (for `flexrules.balance` on Ray).
//! - `LoadError` (with `diagnostics`, each a [`errors::PyDiagnostic`]) and `MoveError`.

mod balance;
mod errors;
mod game;
mod matches;
mod values;

use pyo3::prelude::*;

#[pymodule]
fn _flexrules(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<game::PyGame>()?;
    m.add_class::<matches::PyMatch>()?;
    m.add_class::<matches::PyMove>()?;
    m.add_class::<errors::PyDiagnostic>()?;
    m.add("LoadError", py.get_type::<errors::LoadError>())?;
    m.add("MoveError", py.get_type::<errors::MoveError>())?;
    m.add_function(wrap_pyfunction!(balance::play_games, m)?)?;
    m.add_function(wrap_pyfunction!(balance::check_agents, m)?)?;
    m.add_function(wrap_pyfunction!(balance::merge_tallies, m)?)?;
    m.add_function(wrap_pyfunction!(balance::summary, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
