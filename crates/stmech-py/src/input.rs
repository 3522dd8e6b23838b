//! Scenario input from Python: a TOML file, a `dict` with the file's field names, or a
//! loaded [`Scenario`](crate::Scenario); plus the trajectory and actuation arrays that replace
//! a table of the scenario. Everything ends as TOML text for `stmech::io::load::load_text`, so
//! a dict is validated by the same code, with the same messages, as a file.

use crate::errors::{Problem, scenario_error};
use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};
use stmech::io::scenario::ScenarioError as RustScenarioError;
use stmech::io::text::InputLimit;

/// Scenario text with where it came from.
#[derive(Clone, Debug)]
pub struct Source {
    /// TOML text.
    pub text: String,
    /// For messages and summaries (`origin` of the CLI: the file path).
    pub origin: String,
    /// Folder that relative paths in the scenario are resolved against.
    pub base_dir: PathBuf,
    /// The scenario file it was read from, if any (the output directory must not contain it).
    pub file: Option<PathBuf>,
    /// Whether the text is the user's own (problems then carry its lines); false for text
    /// generated from a dict or with arrays put in.
    pub lines: bool,
}

impl Source {
    /// The text of a scenario file, read as the CLI reads it (regular file, default size
    /// limit). A file that cannot be read raises `OSError`; one that is not a scenario file
    /// (a directory, too large, not UTF-8) a `ScenarioError`.
    pub fn from_path(path: &Path) -> PyResult<Self> {
        match RustScenarioError::read(path, InputLimit::default()) {
            Ok(text) => Ok(Self {
                text,
                origin: path.display().to_string(),
                base_dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
                file: Some(path.to_path_buf()),
                lines: true,
            }),
            Err(e) => Err(read_error(e)),
        }
    }

    /// The text of a table built from Python (no lines: the text is generated).
    pub fn from_table(table: &toml::Table, origin: String, base_dir: PathBuf) -> PyResult<Self> {
        let text = toml::to_string(table).map_err(|e| {
            scenario_error(
                &origin,
                vec![Problem::new(
                    "toml",
                    None,
                    format!("cannot be written as TOML: {e}"),
                )],
            )
        })?;
        Ok(Self {
            text,
            origin,
            base_dir,
            file: None,
            lines: false,
        })
    }

    /// The text as a table (for replacing parts of it); `None` if it is not valid TOML (the
    /// loader then reports every syntax error).
    pub fn table(&self) -> Option<toml::Table> {
        self.text.parse().ok()
    }
}

/// `OSError` (cannot read) or `ScenarioError` (not a scenario file) for a read failure.
pub fn read_error(e: RustScenarioError) -> PyErr {
    if e.is_input() {
        let origin = match &e {
            RustScenarioError::Read { path, .. } => path.display().to_string(),
            _ => "scenario".to_owned(),
        };
        return scenario_error(&origin, vec![Problem::new("file", None, e.to_string())]);
    }
    match &e {
        RustScenarioError::Read { source, .. } => {
            let errno = source.raw_os_error();
            match errno {
                Some(code) => PyOSError::new_err((code, e.to_string())),
                None => PyOSError::new_err(e.to_string()),
            }
        }
        other => PyOSError::new_err(other.to_string()),
    }
}

/// Converts a Python value into a TOML value, collecting a problem for each part that has no
/// TOML form (with its field path).
pub fn to_toml(
    obj: &Bound<'_, PyAny>,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<toml::Value> {
    let fail = |problems: &mut Vec<Problem>, message: String| {
        problems.push(Problem::new(path_or_root(path), None, message));
        None
    };
    if obj.is_none() {
        return fail(
            problems,
            "None is not a value; leave the key out to use the default".to_owned(),
        );
    }
    if obj.is_instance_of::<PyBool>() {
        return obj.extract::<bool>().ok().map(toml::Value::Boolean);
    }
    if obj.is_instance_of::<PyInt>() {
        return match obj.extract::<i64>() {
            Ok(v) => Some(toml::Value::Integer(v)),
            Err(_) => fail(
                problems,
                "integer out of range (a 64-bit signed integer); use a smaller value".to_owned(),
            ),
        };
    }
    if obj.is_instance_of::<PyFloat>() {
        return obj.extract::<f64>().ok().map(toml::Value::Float);
    }
    if obj.is_instance_of::<PyString>() {
        return obj.extract::<String>().ok().map(toml::Value::String);
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        return dict_to_table(dict, path, problems).map(toml::Value::Table);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        let mut ok = true;
        for (k, item) in obj.try_iter().ok()?.enumerate() {
            let Ok(item) = item else {
                ok = false;
                continue;
            };
            match to_toml(&item, &format!("{path}[{k}]"), problems) {
                Some(v) => out.push(v),
                None => ok = false,
            }
        }
        return ok.then_some(toml::Value::Array(out));
    }
    // numpy arrays and numpy scalars: their Python equivalents
    if obj.hasattr("tolist").unwrap_or(false)
        && let Ok(plain) = obj.call_method0("tolist")
        && !plain.is(obj)
    {
        return to_toml(&plain, path, problems);
    }
    let type_name = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    fail(
        problems,
        format!(
            "a value of type {type_name} has no scenario form; use a number, string, bool, \
             list, numpy array or dict"
        ),
    )
}

fn path_or_root(path: &str) -> &str {
    if path.is_empty() { "scenario" } else { path }
}

/// A dict as a TOML table (keys must be strings).
pub fn dict_to_table(
    dict: &Bound<'_, PyDict>,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<toml::Table> {
    let mut table = toml::Table::new();
    let mut ok = true;
    for (key, value) in dict.iter() {
        let Ok(key) = key.extract::<String>() else {
            problems.push(Problem::new(
                path_or_root(path),
                None,
                format!(
                    "keys must be strings (field names), got {}",
                    key.repr().map(|r| r.to_string()).unwrap_or_default()
                ),
            ));
            ok = false;
            continue;
        };
        let sub = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        match to_toml(&value, &sub, problems) {
            Some(v) => {
                table.insert(key, v);
            }
            None => ok = false,
        }
    }
    ok.then_some(table)
}

/// A float64 array from any array-like, with its shape; a problem naming `field` otherwise.
pub fn float_array(obj: &Bound<'_, PyAny>, field: &str) -> Result<(Vec<f64>, Vec<usize>), Problem> {
    let py = obj.py();
    let converted = py
        .import("numpy")
        .and_then(|np| {
            let kwargs = PyDict::new(py);
            kwargs.set_item("dtype", "float64")?;
            np.call_method("ascontiguousarray", (obj,), Some(&kwargs))
        })
        .map_err(|e| {
            Problem::new(
                field,
                None,
                format!("must be an array of numbers: {}", e.value(py)),
            )
        })?;
    let array: PyReadonlyArrayDyn<'_, f64> = converted
        .extract()
        .map_err(|_| Problem::new(field, None, "must be an array of numbers".to_owned()))?;
    let shape = array.shape().to_vec();
    let values = array
        .as_slice()
        .map(|s| s.to_vec())
        .unwrap_or_else(|_| array.as_array().iter().copied().collect());
    Ok((values, shape))
}

/// Times (s) and rows of three values.
pub type TimeSeries = (Vec<f64>, Vec<[f64; 3]>);

/// `(t, values)` from a pair of arrays: `t` of shape `(n,)`, `values` of shape `(n, 3)`.
pub fn time_series(
    obj: &Bound<'_, PyAny>,
    field: &str,
    columns: &str,
) -> Result<TimeSeries, Vec<Problem>> {
    let pair: Vec<Bound<'_, PyAny>> = match obj.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>() {
        Ok((a, b)) => vec![a, b],
        Err(_) => {
            return Err(vec![Problem::new(
                field,
                None,
                format!(
                    "must be a pair (t, values): t of shape (n,) in s, values of shape (n, 3) ({columns})"
                ),
            )]);
        }
    };
    let mut problems = Vec::new();
    let t = float_array(&pair[0], &format!("{field}.t"))
        .map_err(|p| problems.push(p))
        .ok();
    let v = float_array(&pair[1], &format!("{field}.values"))
        .map_err(|p| problems.push(p))
        .ok();
    let (Some((t, t_shape)), Some((v, v_shape))) = (t, v) else {
        return Err(problems);
    };
    if t_shape.len() != 1 {
        problems.push(Problem::new(
            &format!("{field}.t"),
            None,
            format!("must be one-dimensional, shape (n,), got shape {t_shape:?}"),
        ));
    }
    let n = t.len();
    if v_shape.len() != 2 || v_shape[1] != 3 || v_shape[0] != n {
        problems.push(Problem::new(
            &format!("{field}.values"),
            None,
            format!("must have shape (n, 3) = ({n}, 3) ({columns}), one row per time, got shape {v_shape:?}"),
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let rows = v.chunks_exact(3).map(|r| [r[0], r[1], r[2]]).collect();
    Ok((t, rows))
}

/// Replaces the `[trajectory]` table by the samples `(t, rows)` (`kind = "samples"`, the rows
/// under `key`: `"pose"` of the beam's tip, `"position"` of the crane's payload): the inverse
/// problem then checks them as it checks a CSV file.
pub fn set_trajectory(table: &mut toml::Table, t: &[f64], key: &str, pose: &[[f64; 3]]) {
    let mut tr = toml::Table::new();
    tr.insert("kind".into(), toml::Value::String("samples".into()));
    tr.insert("t".into(), floats(t));
    tr.insert(
        key.into(),
        toml::Value::Array(pose.iter().map(|r| floats(r)).collect()),
    );
    table.insert("trajectory".into(), toml::Value::Table(tr));
}

/// Checks of an actuation table that the scenario's own time-table checks would report under
/// the three generated loads: reported once, under `actuation`.
pub fn check_actuation(t: &[f64], f: &[[f64; 3]]) -> Vec<Problem> {
    let mut problems = Vec::new();
    if t.is_empty() {
        problems.push(Problem::new(
            "actuation.t",
            None,
            "needs at least one sample".into(),
        ));
    }
    if let Some(k) = t.iter().position(|v| !v.is_finite()) {
        problems.push(Problem::new(
            "actuation.t",
            None,
            format!("must be finite, got {} at index {k}", t[k]),
        ));
    } else if let Some(k) = t.windows(2).position(|w| w[1] <= w[0]) {
        problems.push(Problem::new(
            "actuation.t",
            None,
            format!(
                "times must increase strictly (t[{}] = {} after t[{k}] = {}); sort the samples and remove repeated times",
                k + 1,
                t[k + 1],
                t[k]
            ),
        ));
    }
    if let Some(k) = f.iter().position(|r| !r.iter().all(|v| v.is_finite())) {
        problems.push(Problem::new(
            "actuation.values",
            None,
            format!("must be finite, got {:?} at row {k}", f[k]),
        ));
    }
    problems
}

/// Appends the actuation `(t, [f_x, f_y, m])` (force in N and moment in N·m applied to the
/// beam at `s = 0`, global frame, piecewise linear in time) to a planar-beam scenario as three
/// point loads at the start node, as the closed loop of the inverse problem applies it.
pub fn add_actuation(table: &mut toml::Table, t: &[f64], f: &[[f64; 3]]) {
    let loads = table
        .entry("loads")
        .or_insert_with(|| toml::Value::Array(Vec::new()));
    let Some(loads) = loads.as_array_mut() else {
        return;
    };
    for (c, (force, moment)) in [([1.0, 0.0], 0.0), ([0.0, 1.0], 0.0), ([0.0, 0.0], 1.0)]
        .into_iter()
        .enumerate()
    {
        let values: Vec<f64> = f.iter().map(|r| r[c]).collect();
        let mut tf = toml::Table::new();
        tf.insert("kind".into(), toml::Value::String("table".into()));
        tf.insert("times".into(), floats(t));
        tf.insert("values".into(), floats(&values));
        let mut load = toml::Table::new();
        load.insert("at".into(), toml::Value::String("start".into()));
        load.insert("force".into(), floats(&force));
        load.insert("moment".into(), toml::Value::Float(moment));
        load.insert("time_function".into(), toml::Value::Table(tf));
        loads.push(toml::Value::Table(load));
    }
}

fn floats(v: &[f64]) -> toml::Value {
    toml::Value::Array(v.iter().map(|&x| toml::Value::Float(x)).collect())
}
