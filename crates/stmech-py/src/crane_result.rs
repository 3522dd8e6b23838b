//! The result of a crane scenario (`problem = "crane"`): the suspension-point motion and force
//! that move the payload along its path, the rope on the space-time mesh, and the closed-loop
//! replay in the forward rope model.

use crate::input::Source;
use crate::results::{array, plots_wanted, save_with, to_dict};
use numpy::PyArrayDyn;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use stmech::inverse::crane::CraneSolution;
use stmech::io::inverse_scenario::crane::CraneScenario;
use stmech::io::load::AnyScenario;
use stmech_app::crane::Replay;

/// Result of a crane problem (`problem = "crane"`): how the suspension point (trolley, hook)
/// must move, and the force it applies to the rope, for the payload to follow its path; with
/// the closed-loop check (the computed motion drives the forward rope model).
///
/// Arrays over the time nodes `t` (s) and the rope's nodes `s` (m, from the suspension point
/// s = 0 to the payload s = L). Units SI: m, s, N.
#[pyclass(frozen, module = "stmech")]
pub struct CraneResult {
    pub(crate) source: Source,
    pub(crate) scenario: Arc<AnyScenario>,
    pub(crate) sol: CraneSolution,
    pub(crate) replay: Replay,
    pub(crate) summary: serde_json::Value,
    pub(crate) solve_seconds: f64,
}

impl CraneResult {
    fn sc(&self) -> &CraneScenario {
        match self.scenario.as_ref() {
            AnyScenario::Crane(s) => s,
            _ => unreachable!("a CraneResult holds a crane scenario"),
        }
    }

    /// Rows `f(j)` over the time nodes as an array of shape (nt, 3).
    fn rows<'py>(
        &self,
        py: Python<'py>,
        f: impl Fn(usize) -> [f64; 3],
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.sol.solution.t.len();
        array(py, (0..n).flat_map(f).collect(), &[n, 3])
    }
}

#[pymethods]
impl CraneResult {
    /// Time nodes (s), shape (nt,).
    #[getter]
    fn t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let t = self.sol.solution.t.clone();
        let n = t.len();
        array(py, t, &[n])
    }

    /// Rope nodes in the unstretched arc length (m), shape (ns,): 0 at the suspension point,
    /// L at the payload.
    #[getter]
    fn s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let s = self.sol.solution.s.clone();
        let n = s.len();
        array(py, s, &[n])
    }

    /// Suspension-point position x, y, z (m) at the time nodes, shape (nt, 3) (the columns
    /// x, y, z of suspension.csv).
    #[getter]
    fn suspension<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.rows(py, |j| self.sol.suspension(j))
    }

    /// Suspension-point velocity (m/s), shape (nt, 3).
    #[getter]
    fn suspension_velocity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.rows(py, |j| self.sol.suspension_velocity(j))
    }

    /// Suspension-point acceleration (m/s², central differences of the velocity), shape
    /// (nt, 3).
    #[getter]
    fn suspension_acceleration<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.rows(py, |j| self.sol.suspension_acceleration(j))
    }

    /// Force the suspension point applies to the rope (N), global frame, shape (nt, 3).
    #[getter]
    fn force<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.rows(py, |j| self.sol.solution.actuation[j])
    }

    /// Payload position of the inverse solution (m), shape (nt, 3): the path, to the Newton
    /// tolerance (the servo constraint).
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let ns = self.sol.solution.mesh.elements_s;
        self.rows(py, |j| self.sol.solution.x_at(ns, j))
    }

    /// Prescribed payload path y(t) (m) at the time nodes, shape (nt, 3).
    #[getter]
    fn payload_prescribed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let tr = &self.sc().trajectory;
        self.rows(py, |j| tr.pose(self.sol.solution.t[j]))
    }

    /// Payload position in the closed-loop replay (m), shape (nt, 3), or None when
    /// `verify.closed_loop = false` or the replay failed.
    #[getter]
    fn payload_replayed<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyArrayDyn<f64>>>> {
        match &self.replay {
            Some(Ok(((_, samples), _))) => {
                let n = samples.len();
                Ok(Some(array(
                    py,
                    samples.iter().flatten().copied().collect(),
                    &[n, 3],
                )?))
            }
            _ => Ok(None),
        }
    }

    /// Rope positions x, y, z (m) at every space-time node, shape (nt, ns, 3).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let sol = &self.sol.solution;
        let (nt, ns) = (sol.t.len(), sol.s.len());
        let mut data = Vec::with_capacity(nt * ns * 3);
        for j in 0..nt {
            for i in 0..ns {
                data.extend(sol.x_at(i, j));
            }
        }
        array(py, data, &[nt, ns, 3])
    }

    /// The closed-loop check (summary.json's payload_tracking) as a dict.
    #[getter]
    fn payload_tracking<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.summary["payload_tracking"])
    }

    /// "ok", "goal-not-reached" when the closed-loop check fails, or "not-verified" when the
    /// replay itself failed with the payload on its path.
    #[getter]
    fn status(&self) -> String {
        self.summary["status"].as_str().unwrap_or("ok").to_owned()
    }

    /// The run summary (the CLI's summary.json without output_wall_time_seconds).
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.summary)
    }

    /// The scenario that was solved.
    #[getter]
    fn scenario(&self) -> crate::scenario::Scenario {
        crate::scenario::Scenario {
            source: self.source.clone(),
            inner: self.scenario.clone(),
        }
    }

    /// Writes the files `stmech run` writes (suspension.csv, payload.csv, rope.pvd +
    /// rope_NNNN.vtu, suspension.png, payload.png, summary.json) into a new directory `dir`.
    /// Returns the directory.
    #[pyo3(signature = (dir, *, force = false, plots = None))]
    fn save(
        &self,
        py: Python<'_>,
        dir: PathBuf,
        force: bool,
        plots: Option<bool>,
    ) -> PyResult<PathBuf> {
        let sc = self.sc();
        let plots = plots_wanted(plots, sc.plots);
        save_with(
            py,
            &self.source,
            sc.input_files.clone(),
            dir,
            force,
            |staged| {
                stmech_app::crane::write_results(
                    sc,
                    &self.sol,
                    self.solve_seconds,
                    staged,
                    plots,
                    || self.replay.clone(),
                )
                .map(|_| ())
            },
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "CraneResult({} × {} nodes, status={:?}, origin={:?})",
            self.sol.solution.s.len(),
            self.sol.solution.t.len(),
            self.status(),
            self.source.origin
        )
    }
}
