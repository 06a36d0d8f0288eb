//! Values between the engine and Python: the engine's values as Python's (`nil` is `None`,
//! lists are lists, dictionaries are dicts, a message a dict with its `label`), and
//! Python's as the engine's, for message attributes.

use flexrules::api::Value;
use flexrules::runtime::value::{Dict, List};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The engine's value as a Python object.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Nil => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, b.get()).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(x) => PyFloat::new(py, x.get()).into_any(),
        Value::Str(t) => PyString::new(py, t.as_str()).into_any(),
        Value::List(items) => {
            let list = PyList::empty(py);
            for item in items.iter() {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Dict(items) => {
            let dict = PyDict::new(py);
            for (k, v) in items.iter() {
                dict.set_item(to_py(py, &k.to_value())?, to_py(py, v)?)?;
            }
            dict.into_any()
        }
        Value::Message(m) => {
            let dict = PyDict::new(py);
            dict.set_item("label", m.label.as_str())?;
            for (k, v) in m.attrs.iter() {
                dict.set_item(to_py(py, &k.to_value())?, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A Python object as the engine's value: `None`, `bool`, `int` (64 bits), `float`,
/// `str`, lists and tuples of these, and dicts whose keys are strings, numbers or
/// booleans.
pub fn from_py(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    if object.is_none() {
        return Ok(Value::Nil);
    }
    if let Ok(b) = object.cast::<PyBool>() {
        return Ok(Value::bool(b.is_true()));
    }
    if object.is_instance_of::<PyInt>() {
        let i: i64 = object.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{} does not fit a 64-bit integer, the game's integers",
                object
            ))
        })?;
        return Ok(Value::Int(i));
    }
    if let Ok(x) = object.cast::<PyFloat>() {
        return Ok(Value::float(x.value()));
    }
    if let Ok(s) = object.cast::<PyString>() {
        return Ok(Value::str(&s.to_cow()?));
    }
    if let Ok(items) = object.cast::<PyList>() {
        let values: PyResult<Vec<Value>> = items.iter().map(|i| from_py(&i)).collect();
        return Ok(Value::list(List::from_vec(values?)));
    }
    if let Ok(items) = object.cast::<PyTuple>() {
        let values: PyResult<Vec<Value>> = items.iter().map(|i| from_py(&i)).collect();
        return Ok(Value::list(List::from_vec(values?)));
    }
    if let Ok(items) = object.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(items.len());
        for (k, v) in items.iter() {
            let key = from_py(&k)?;
            let Some(key) = key.as_key() else {
                return Err(PyTypeError::new_err(format!(
                    "a dict key must be a string, a number or a boolean, not {}",
                    k.get_type().name()?
                )));
            };
            pairs.push((key, from_py(&v)?));
        }
        return Ok(Value::dict(pairs.into_iter().collect::<Dict>()));
    }
    Err(PyTypeError::new_err(format!(
        "a game value is None, a bool, an int, a float, a str, a list, a tuple or a dict, not {}",
        object.get_type().name()?
    )))
}
