//! `stmech.Problem`, `stmech.ScenarioError` (a `ValueError` carrying every problem) and
//! `stmech.SolveError` (a `RuntimeError`: the solver did not converge).

use pyo3::create_exception;
use pyo3::exceptions::{PyFileExistsError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use stmech::error::InputError;
use stmech::io::scenario::ScenarioError as RustScenarioError;

create_exception!(
    stmech,
    ScenarioError,
    PyValueError,
    "The scenario is invalid. `problems` lists every problem (field, line, message, fix)."
);
create_exception!(
    stmech,
    SolveError,
    PyRuntimeError,
    "The solver did not converge (Newton diverged, a non-finite value, a singular matrix)."
);

/// One problem of a scenario: the field it concerns, its line in the file (None for a dict
/// or generated text), the message, and the remedy when the message has one.
#[pyclass(frozen, module = "stmech", get_all)]
#[derive(Clone, Debug)]
pub struct Problem {
    /// Field path, e.g. `"time.end"` or `"bodies[0].box.density"` (`"toml"` for syntax).
    pub field: String,
    /// 1-based line in the scenario file, or None.
    pub line: Option<usize>,
    /// What is wrong (the CLI's message, remedy included).
    pub message: String,
    /// The remedy: the part of the message after its last `"; "`, or None.
    pub fix: Option<String>,
}

impl Problem {
    /// A problem; the fix is split off the message.
    pub fn new(field: &str, line: Option<usize>, message: String) -> Self {
        let fix = message
            .rsplit_once("; ")
            .map(|(_, fix)| fix.trim().to_owned())
            .filter(|f| !f.is_empty());
        Self {
            field: field.to_owned(),
            line,
            message,
            fix,
        }
    }
}

#[pymethods]
impl Problem {
    fn __repr__(&self) -> String {
        format!(
            "Problem(field={:?}, line={}, message={:?})",
            self.field,
            self.line.map_or("None".to_owned(), |l| l.to_string()),
            self.message
        )
    }

    fn __str__(&self) -> String {
        match self.line {
            Some(l) => format!("line {l}: {}: {}", self.field, self.message),
            None => format!("{}: {}", self.field, self.message),
        }
    }

    /// The problem as a dict (field, line, message, fix).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("field", &self.field)?;
        d.set_item("line", self.line)?;
        d.set_item("message", &self.message)?;
        d.set_item("fix", &self.fix)?;
        Ok(d)
    }
}

/// The problems of a scenario error; `with_lines`: the text is the user's file.
pub fn problems_of(e: &RustScenarioError, with_lines: bool) -> Vec<Problem> {
    let field_message = |p: &InputError| match p {
        InputError::Invalid { field, message } => (field.clone(), message.clone()),
        other => ("scenario".to_owned(), other.to_string()),
    };
    match e {
        RustScenarioError::Located {
            problems, lines, ..
        } => problems
            .iter()
            .zip(lines)
            .map(|(p, line)| {
                let (f, m) = field_message(p);
                Problem::new(&f, line.filter(|_| with_lines), m)
            })
            .collect(),
        RustScenarioError::Invalid { problems, .. } => problems
            .iter()
            .map(|p| {
                let (f, m) = field_message(p);
                Problem::new(&f, None, m)
            })
            .collect(),
        RustScenarioError::Syntax { source, .. } => {
            vec![Problem::new("toml", None, source.message().to_owned())]
        }
        RustScenarioError::Read { .. } => vec![Problem::new("file", None, e.to_string())],
    }
}

/// A `ScenarioError` with its message (as the CLI prints it) and `problems`.
pub fn scenario_error(origin: &str, problems: Vec<Problem>) -> PyErr {
    let mut text = format!(
        "{origin}: {} problem{} in the scenario:",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    for p in &problems {
        text.push_str("\n  - ");
        text.push_str(&p.__str__());
    }
    Python::attach(|py| {
        let err = ScenarioError::new_err(text);
        let list = PyList::empty(py);
        for p in problems {
            if let Ok(obj) = Bound::new(py, p) {
                let _ = list.append(obj);
            }
        }
        let _ = err.value(py).setattr("problems", list);
        err
    })
}

/// Python's exception for a failure to write results.
pub fn output_error(e: stmech_app::AppError) -> PyErr {
    use stmech::io::output::OutputError;
    match &e {
        stmech_app::AppError::Output(OutputError::Exists(_)) => {
            PyFileExistsError::new_err(format!("{e} (from Python: save(dir, force=True))"))
        }
        _ if e.is_input() => PyValueError::new_err(e.to_string()),
        _ => PyOSError::new_err(e.to_string()),
    }
}
