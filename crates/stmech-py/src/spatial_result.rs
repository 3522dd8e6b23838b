//! The result of a spatial inverse scenario (`analysis = "inverse"`, issue 16): the force and
//! moment at the base of a spatial beam (or the motion of a clamp there) that move the tracked
//! frame along its prescribed pose path, the base pose, and the arm on the space-time mesh.

use crate::input::Source;
use crate::results::{array, plots_wanted, save_with, to_dict};
use numpy::PyArrayDyn;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use stmech::inverse::spatial::SpatialRun;
use stmech::io::load::AnyScenario;
use stmech::io::scenario::SpatialInverseScenario;
use stmech::math::rotation::quat_from_frame;
use stmech_app::spatial_inverse::{ClosedLoop, Rows};

/// Result of a spatial inverse problem (`analysis = "inverse"`): the force and moment the
/// actuator applies to the beam at s = 0 (global frame, the moment about the base point), the
/// rigid-arm reference, the base pose (the motion of a clamp for `actuation = "motion"`) and
/// the tracked frame, prescribed and computed.
///
/// Arrays over the time nodes `t` (s) and the arm's nodes `s` (m, from the base s = 0 to the
/// tip s = L). Frames as unit quaternions (w, x, y, z), sign continuous in time. Units SI.
#[pyclass(frozen, module = "stmech")]
pub struct SpatialResult {
    pub(crate) source: Source,
    pub(crate) scenario: Arc<AnyScenario>,
    pub(crate) run: SpatialRun,
    pub(crate) rows: Rows,
    pub(crate) closed_loop: ClosedLoop,
    pub(crate) summary: serde_json::Value,
    pub(crate) solve_seconds: f64,
}

impl SpatialResult {
    fn sc(&self) -> &SpatialInverseScenario {
        match self.scenario.as_ref() {
            AnyScenario::SpatialInverse(s) => s,
            _ => unreachable!("a SpatialResult holds a spatial inverse scenario"),
        }
    }

    /// `v` (one row of `W` values per time node) as an array of shape (nt, W).
    fn table<'py, const W: usize>(
        &self,
        py: Python<'py>,
        v: impl Iterator<Item = [f64; W]>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.rows.t.len();
        array(py, v.flatten().collect(), &[n, W])
    }
}

#[pymethods]
impl SpatialResult {
    /// Time nodes (s), shape (nt,).
    #[getter]
    fn t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let t = self.rows.t.clone();
        let n = t.len();
        array(py, t, &[n])
    }

    /// Arm nodes in the arc length (m), shape (ns,): 0 at the base, L at the tip.
    #[getter]
    fn s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let s = self.run.solution.s.clone();
        let n = s.len();
        array(py, s, &[n])
    }

    /// Force the actuator applies to the beam at s = 0 (N, global frame), shape (nt, 3) (the
    /// columns f_x, f_y, f_z of actuation.csv).
    #[getter]
    fn force<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.force.iter().copied())
    }

    /// Moment the actuator applies to the beam at s = 0, about the base point (N·m, global
    /// frame), shape (nt, 3).
    #[getter]
    fn moment<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.moment.iter().copied())
    }

    /// The rigid-arm reference force (N), shape (nt, 3).
    #[getter]
    fn force_rigid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.rigid_force.iter().copied())
    }

    /// The rigid-arm reference moment (N·m), shape (nt, 3).
    #[getter]
    fn moment_rigid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.rigid_moment.iter().copied())
    }

    /// Base point (m), shape (nt, 3).
    #[getter]
    fn base_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.base_position.iter().copied())
    }

    /// Base frame as a unit quaternion (w, x, y, z), shape (nt, 4).
    #[getter]
    fn base_quaternion<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.base_quaternion.iter().copied())
    }

    /// Rotation vector of the base frame from its rest frame (rad), shape (nt, 3).
    #[getter]
    fn base_rotation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.base_rotation.iter().copied())
    }

    /// Base velocity (m/s), shape (nt, 3).
    #[getter]
    fn base_velocity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.base_velocity.iter().copied())
    }

    /// Base angular velocity (rad/s, global frame), shape (nt, 3).
    #[getter]
    fn base_angular_velocity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, self.rows.base_angular_velocity.iter().copied())
    }

    /// The tracked frame's position and quaternion in the inverse solution, shape (nt, 7):
    /// x, y, z, qw, qx, qy, qz.
    #[getter]
    fn tracked<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, pose_rows(&self.rows.achieved).into_iter())
    }

    /// The tracked frame's prescribed position and quaternion, shape (nt, 7).
    #[getter]
    fn tracked_prescribed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.table(py, pose_rows(&self.rows.prescribed).into_iter())
    }

    /// Arm positions x, y, z (m) at every space-time node, shape (nt, ns, 3).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let sol = &self.run.solution;
        let (nt, ns) = (sol.t.len(), sol.s.len());
        let mut data = Vec::with_capacity(nt * ns * 3);
        for j in 0..nt {
            for i in 0..ns {
                data.extend(sol.position(i, j));
            }
        }
        array(py, data, &[nt, ns, 3])
    }

    /// The closed-loop check (summary.json's tip_tracking) as a dict.
    #[getter]
    fn tip_tracking<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.summary["tip_tracking"])
    }

    /// "ok", or "goal-not-reached" when the closed-loop check fails.
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

    /// Writes the files `stmech run` writes (actuation.csv, base.csv, tip.csv, scene.pvd +
    /// scene_NNNN.vtu, actuation.png, tip.png, arm.png, summary.json) into a new directory
    /// `dir`. Returns the directory.
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
                stmech_app::spatial_inverse::write_results(
                    sc,
                    &self.run,
                    self.solve_seconds,
                    staged,
                    plots,
                    || self.closed_loop.clone(),
                )
                .map(|_| ())
            },
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "SpatialResult({} × {} nodes, method={:?}, status={:?}, origin={:?})",
            self.run.solution.s.len(),
            self.run.solution.t.len(),
            self.run.method.name(),
            self.status(),
            self.source.origin
        )
    }
}

/// x, y, z, qw, qx, qy, qz of each pose, the quaternions sign continuous in time.
fn pose_rows(poses: &[stmech::inverse::trajectory::pose::Pose]) -> Vec<[f64; 7]> {
    let mut prev: Option<[f64; 4]> = None;
    poses
        .iter()
        .map(|p| {
            let mut q = quat_from_frame(&p.directors);
            if let Some(r) = prev
                && (0..4).map(|i| r[i] * q[i]).sum::<f64>() < 0.0
            {
                q = q.map(|c| -c);
            }
            prev = Some(q);
            let x = p.position;
            [x[0], x[1], x[2], q[0], q[1], q[2], q[3]]
        })
        .collect()
}
