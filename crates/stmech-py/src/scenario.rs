//! `stmech.Scenario`: a validated scenario and the text it was loaded from.

use crate::errors::{Problem, problems_of, scenario_error};
use crate::input::{
    Source, add_actuation, check_actuation, dict_to_table, set_trajectory, time_series,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;
use std::sync::Arc;
use stmech::io::load::{AnyScenario, load_text};

/// A validated scenario (any problem type), loaded from a TOML file or a dict.
///
/// Create with `stmech.load(path_or_dict)`; pass to `stmech.run`.
#[pyclass(frozen, module = "stmech")]
pub struct Scenario {
    pub(crate) source: Source,
    pub(crate) inner: Arc<AnyScenario>,
}

/// The problem type as the `problem` key names it (`"multibody"` without the key,
/// `"static"` for a multibody scenario with `analysis = "static"` and `"spatial-inverse"`
/// with `analysis = "inverse"`).
pub fn problem_name(s: &AnyScenario) -> &'static str {
    match s {
        AnyScenario::Multibody(m) if m.statics.is_some() => "static",
        AnyScenario::Multibody(_) => "multibody",
        AnyScenario::Beam(_) => "beam",
        AnyScenario::BeamInverse(_) => "beam-inverse",
        AnyScenario::Crane(_) => "crane",
        AnyScenario::SpatialInverse(_) => "spatial-inverse",
    }
}

#[pymethods]
impl Scenario {
    /// Loads scenario text (TOML); `origin` names it in messages; relative paths in it (a
    /// trajectory CSV) are resolved against `base_dir`. Raises ScenarioError.
    #[staticmethod]
    #[pyo3(signature = (text, origin = "<string>", base_dir = None))]
    fn from_toml(
        py: Python<'_>,
        text: String,
        origin: &str,
        base_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        let source = Source {
            text,
            origin: origin.to_owned(),
            base_dir: base_dir.unwrap_or_else(|| ".".into()),
            file: None,
            lines: true,
        };
        load_source(py, source)
    }

    /// "multibody", "static", "beam", "beam-inverse", "crane" or "spatial-inverse" (a
    /// multibody scenario with `analysis = "inverse"`).
    #[getter]
    fn problem(&self) -> &'static str {
        problem_name(&self.inner)
    }

    /// Where the scenario came from (file path, "<dict>", ...).
    #[getter]
    fn origin(&self) -> &str {
        &self.source.origin
    }

    /// The scenario as TOML text (a dict's generated text, or the file's content).
    #[getter]
    fn toml(&self) -> &str {
        &self.source.text
    }

    fn __repr__(&self) -> String {
        format!(
            "Scenario(problem={:?}, origin={:?})",
            problem_name(&self.inner),
            self.source.origin
        )
    }
}

/// Parses and validates `source` (without the GIL); `ScenarioError` with every problem.
pub fn load_source(py: Python<'_>, source: Source) -> PyResult<Scenario> {
    let result = py.detach(|| load_text(&source.text, &source.origin, &source.base_dir));
    match result {
        Ok(s) => Ok(Scenario {
            source,
            inner: Arc::new(s),
        }),
        Err(e) => Err(scenario_error(
            &source.origin,
            problems_of(&e, source.lines),
        )),
    }
}

/// The scenario text an argument stands for, with trajectory and actuation arrays put in.
pub fn source_of(
    scenario: &Bound<'_, PyAny>,
    trajectory: Option<&Bound<'_, PyAny>>,
    actuation: Option<&Bound<'_, PyAny>>,
) -> PyResult<Source> {
    let mut source = if let Ok(s) = scenario.cast::<Scenario>() {
        s.get().source.clone()
    } else if let Ok(dict) = scenario.cast::<PyDict>() {
        let mut problems = Vec::new();
        let table = dict_to_table(dict, "", &mut problems);
        match table {
            Some(t) if problems.is_empty() => {
                Source::from_table(&t, "<dict>".to_owned(), ".".into())?
            }
            _ => return Err(scenario_error("<dict>", problems)),
        }
    } else if scenario.is_instance_of::<PyString>() || scenario.hasattr("__fspath__")? {
        let path: PathBuf = scenario.extract()?;
        Source::from_path(&path)?
    } else {
        let type_name = scenario.get_type().name()?.to_string();
        return Err(PyTypeError::new_err(format!(
            "scenario must be a path to a TOML file, a dict or a stmech.Scenario, got {type_name}"
        )));
    };
    if trajectory.is_none() && actuation.is_none() {
        return Ok(source);
    }
    // the arrays replace part of the table: parse, change, write again (the loader reports a
    // syntax error of the original text)
    let Some(mut table) = source.table() else {
        return Ok(source);
    };
    let kind = table
        .get("problem")
        .and_then(|p| p.as_str())
        .unwrap_or("")
        .to_owned();
    let mut problems: Vec<Problem> = Vec::new();
    if let Some(tr) = trajectory {
        match kind.as_str() {
            "beam-inverse" => {
                match time_series(tr, "trajectory", "x, y in m and θ in rad of the tip") {
                    Ok((t, pose)) => set_trajectory(&mut table, &t, "pose", &pose),
                    Err(p) => problems.extend(p),
                }
            }
            "crane" => match time_series(tr, "trajectory", "x, y, z in m of the payload") {
                Ok((t, pos)) => set_trajectory(&mut table, &t, "position", &pos),
                Err(p) => problems.extend(p),
            },
            _ => problems.push(Problem::new(
                "trajectory",
                None,
                "a trajectory is given to an inverse problem only (problem = \"beam-inverse\" \
                 or \"crane\"); leave it out"
                    .into(),
            )),
        }
    }
    if let Some(act) = actuation {
        if kind != "beam" {
            problems.push(Problem::new(
                "actuation",
                None,
                "an actuation is given to a forward planar-beam problem only (problem = \
                 \"beam\"); leave it out"
                    .into(),
            ));
        } else {
            match time_series(act, "actuation", "f_x, f_y in N and m in N·m at s = 0") {
                Ok((t, f)) => {
                    let p = check_actuation(&t, &f);
                    if p.is_empty() {
                        add_actuation(&mut table, &t, &f);
                    }
                    problems.extend(p);
                }
                Err(p) => problems.extend(p),
            }
        }
    }
    if !problems.is_empty() {
        return Err(scenario_error(&source.origin, problems));
    }
    let file = source.file.take();
    let mut changed = Source::from_table(&table, source.origin.clone(), source.base_dir.clone())?;
    changed.file = file;
    Ok(changed)
}

/// The validated scenario an argument stands for (a loaded `Scenario` is reused).
pub fn resolve(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    trajectory: Option<&Bound<'_, PyAny>>,
    actuation: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Source, Arc<AnyScenario>)> {
    if trajectory.is_none()
        && actuation.is_none()
        && let Ok(s) = scenario.cast::<Scenario>()
    {
        let s = s.get();
        return Ok((s.source.clone(), s.inner.clone()));
    }
    let source = source_of(scenario, trajectory, actuation)?;
    let loaded = load_source(py, source)?;
    Ok((loaded.source, loaded.inner))
}
