//! The result objects of `stmech.run`: numpy arrays (one copy out of the Rust results), the
//! summary as a dict, and `save(dir)` writing the files the CLI writes (`stmech_app`).

use crate::errors::output_error;
use crate::input::Source;
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Arc;
use stmech::inverse::MethodRun;
use stmech::io::load::AnyScenario;
use stmech::io::output::{self, NodeDiagnostics, OutputDir};
use stmech::model::ConstrainedSystem;
use stmech::solve::Trajectory;
use stmech::solve::statics::StaticSolution;
use stmech_app::beam::BeamOutcome;
use stmech_app::inverse::Verification;

/// A numpy array of `shape` from row-major `data` (one copy).
pub fn array<'py>(
    py: Python<'py>,
    data: Vec<f64>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    PyArray1::from_vec(py, data).reshape(shape.to_vec())
}

/// `json.loads` of a summary.
pub fn to_dict<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Prepares `dir` as the CLI does (refusing the scenario's own files), writes with `write`
/// and commits; returns the directory written.
pub fn save_with(
    py: Python<'_>,
    source: &Source,
    inputs: Vec<PathBuf>,
    dir: PathBuf,
    force: bool,
    write: impl FnOnce(&OutputDir) -> Result<(), stmech_app::AppError> + Send,
) -> PyResult<PathBuf> {
    py.detach(|| {
        let mut inputs = inputs;
        inputs.extend(source.file.clone());
        output::refuse_inputs(&dir, &inputs)
            .map_err(stmech_app::AppError::from)
            .and_then(|()| Ok(OutputDir::prepare(&dir, force)?))
            .and_then(|staged| {
                write(&staged)?;
                Ok(staged.commit()?)
            })
    })
    .map_err(output_error)
}

/// Whether to draw plots: the argument, else the scenario's `[output] plots`.
pub fn plots_wanted(arg: Option<bool>, scenario_default: bool) -> bool {
    arg.unwrap_or(scenario_default)
}

// ---------------------------------------------------------------------------------------
// multibody (rigid bodies, joints, spatial beams) in time

/// Result of a dynamic multibody scenario (rigid bodies, joints, spatial beams).
///
/// Arrays over the time nodes `t` (s); frames are the bodies (in scenario order) and then the
/// nodes of every beam (`frame_names`). Units SI: m, s, kg, J.
#[pyclass(frozen, module = "stmech")]
pub struct MultibodyResult {
    pub(crate) source: Source,
    pub(crate) scenario: Arc<AnyScenario>,
    pub(crate) traj: Trajectory,
    pub(crate) diagnostics: Vec<NodeDiagnostics>,
    pub(crate) summary: serde_json::Value,
    pub(crate) solve_seconds: f64,
}

impl MultibodyResult {
    fn sc(&self) -> &stmech::io::scenario::Scenario {
        match self.scenario.as_ref() {
            AnyScenario::Multibody(s) => s,
            _ => unreachable!("a MultibodyResult holds a multibody scenario"),
        }
    }

    fn frames(&self) -> usize {
        self.sc().system.n_q() / 12
    }

    /// Coordinates `off..off+len` of every frame at every node: shape (n, frames, len).
    fn frame_part<'py>(
        &self,
        py: Python<'py>,
        off: usize,
        len: usize,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let nf = self.frames();
        let n = self.traj.len();
        let mut data = Vec::with_capacity(n * nf * len);
        for k in 0..n {
            let q = self.traj.q_at(k);
            for f in 0..nf {
                data.extend_from_slice(&q[12 * f + off..12 * f + off + len]);
            }
        }
        array(py, data, &[n, nf, len])
    }

    fn per_node<'py>(
        &self,
        py: Python<'py>,
        f: impl Fn(&NodeDiagnostics) -> f64,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self.diagnostics.iter().map(f).collect();
        let n = data.len();
        array(py, data, &[n])
    }
}

#[pymethods]
impl MultibodyResult {
    /// Time nodes (s), shape (n,).
    #[getter]
    fn t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        array(py, self.traj.times.clone(), &[self.traj.len()])
    }

    /// Names of the frames: bodies, then beam nodes "<beam>:<k>".
    #[getter]
    fn frame_names(&self) -> Vec<String> {
        let sc = self.sc();
        let mut names: Vec<String> = sc.system.bodies().iter().map(|b| b.name.clone()).collect();
        for b in &sc.beams {
            names.extend((0..b.nodes).map(|k| format!("{}:{k}", b.name)));
        }
        names
    }

    /// All coordinates q (12 per frame: position, d1, d2, d3), shape (n, 12 × frames).
    #[getter]
    fn q<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let (n, nq) = (self.traj.len(), self.sc().system.n_q());
        let data = (0..n).flat_map(|k| self.traj.q_at(k).to_vec()).collect();
        array(py, data, &[n, nq])
    }

    /// Velocities v = dq/dt (m/s, 1/s), shape (n, 12 × frames).
    #[getter]
    fn v<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let (n, nq) = (self.traj.len(), self.sc().system.n_q());
        let data = (0..n).flat_map(|k| self.traj.v_at(k).to_vec()).collect();
        array(py, data, &[n, nq])
    }

    /// Positions of the frames' reference points (m), shape (n, frames, 3).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.frame_part(py, 0, 3)
    }

    /// Directors d1, d2, d3 of every frame (rows), shape (n, frames, 3, 3).
    #[getter]
    fn directors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let a = self.frame_part(py, 3, 9)?;
        let (n, nf) = (self.traj.len(), self.frames());
        a.reshape(vec![n, nf, 3, 3])
    }

    /// Generalised momenta p = M v (kg m/s per coordinate), shape (n, 12 × frames).
    #[getter]
    fn momenta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let sys = &self.sc().system;
        let (n, nq) = (self.traj.len(), sys.n_q());
        let mut data = vec![0.0; n * nq];
        for k in 0..n {
            sys.momentum_into(self.traj.v_at(k), &mut data[k * nq..(k + 1) * nq]);
        }
        array(py, data, &[n, nq])
    }

    /// Kinetic energy (J), shape (n,).
    #[getter]
    fn kinetic_energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.per_node(py, |d| d.kinetic_energy)
    }

    /// Potential energy of conservative loads and strain energy (J), shape (n,).
    #[getter]
    fn potential_energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.per_node(py, |d| d.potential_energy)
    }

    /// Kinetic plus potential energy (J), shape (n,).
    #[getter]
    fn total_energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.per_node(py, |d| d.total_energy)
    }

    /// Angular momentum about the origin, global frame (kg m²/s), shape (n, 3).
    #[getter]
    fn angular_momentum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self
            .diagnostics
            .iter()
            .flat_map(|d| d.angular_momentum)
            .collect();
        array(py, data, &[self.diagnostics.len(), 3])
    }

    /// Largest |Φ| of all constraints at each node, shape (n,).
    #[getter]
    fn constraint_violation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.per_node(py, |d| d.constraint_violation)
    }

    /// The run summary (the CLI's summary.json without output_wall_time_seconds).
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.summary)
    }

    /// Writes the files `stmech run` writes (trajectory.csv, elements.csv, scene.pvd +
    /// scene_NNNN.vtu, PNG plots, summary.json) into a new directory `dir`, atomically;
    /// `force` replaces a directory stmech wrote; `plots` defaults to `[output] plots`.
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
        save_with(py, &self.source, Vec::new(), dir, force, |staged| {
            stmech_app::multibody::write_results(sc, &self.traj, staged, plots, self.solve_seconds)
                .map(|_| ())
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "MultibodyResult({} time nodes, {} frames, origin={:?})",
            self.traj.len(),
            self.frames(),
            self.source.origin
        )
    }
}

// ---------------------------------------------------------------------------------------
// statics

/// Result of a static multibody scenario (`analysis = "static"`): the equilibrium at the full
/// load and the load path.
#[pyclass(frozen, module = "stmech")]
pub struct StaticResult {
    pub(crate) source: Source,
    pub(crate) scenario: Arc<AnyScenario>,
    pub(crate) sol: StaticSolution,
    pub(crate) summary: serde_json::Value,
    pub(crate) solve_seconds: f64,
}

impl StaticResult {
    fn sc(&self) -> &stmech::io::scenario::Scenario {
        match self.scenario.as_ref() {
            AnyScenario::Multibody(s) => s,
            _ => unreachable!("a StaticResult holds a multibody scenario"),
        }
    }
}

#[pymethods]
impl StaticResult {
    /// Coordinates at the full load (12 per frame), shape (12 × frames,).
    #[getter]
    fn q<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        array(py, self.sol.q.clone(), &[self.sol.q.len()])
    }

    /// Positions of every frame at the full load (m), shape (frames, 3).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let nf = self.sol.q.len() / 12;
        let data = (0..nf)
            .flat_map(|f| self.sol.q[12 * f..12 * f + 3].to_vec())
            .collect();
        array(py, data, &[nf, 3])
    }

    /// Directors of every frame at the full load (rows d1, d2, d3), shape (frames, 3, 3).
    #[getter]
    fn directors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let nf = self.sol.q.len() / 12;
        let data = (0..nf)
            .flat_map(|f| self.sol.q[12 * f + 3..12 * f + 12].to_vec())
            .collect();
        array(py, data, &[nf, 3, 3])
    }

    /// Load factor of every accepted load step, shape (steps,).
    #[getter]
    fn load_factor<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self.sol.steps.iter().map(|s| s.load_factor).collect();
        let n = data.len();
        array(py, data, &[n])
    }

    /// Coordinates after every load step, shape (steps, 12 × frames).
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let nq = self.sol.q.len();
        array(py, self.sol.history.clone(), &[self.sol.steps.len(), nq])
    }

    /// Largest |Φ| of the constraints at the solution.
    #[getter]
    fn constraint_violation(&self) -> f64 {
        self.summary["constraint_violation"]
            .as_f64()
            .unwrap_or(f64::NAN)
    }

    /// The run summary (the CLI's summary.json without output_wall_time_seconds).
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.summary)
    }

    /// Writes the files `stmech run` writes (nodes.csv, load_steps.csv, scene.pvd,
    /// load_path.png, summary.json) into a new directory `dir`. Returns the directory.
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
        save_with(py, &self.source, Vec::new(), dir, force, |staged| {
            stmech_app::statics::write_results(sc, &self.sol, staged, plots, self.solve_seconds)
                .map(|_| ())
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "StaticResult({} load steps, origin={:?})",
            self.sol.steps.len(),
            self.source.origin
        )
    }
}

// ---------------------------------------------------------------------------------------
// planar beam

/// Result of a planar-beam scenario (`problem = "beam"`).
///
/// Static: rows are load steps (`t` holds the load factor). Dynamic: rows are time steps (s).
#[pyclass(frozen, module = "stmech")]
pub struct BeamResult {
    pub(crate) source: Source,
    pub(crate) scenario: Arc<AnyScenario>,
    pub(crate) outcome: BeamOutcome,
    pub(crate) summary: serde_json::Value,
    pub(crate) solve_seconds: f64,
}

impl BeamResult {
    fn sc(&self) -> &stmech::io::beam_scenario::BeamScenario {
        match self.scenario.as_ref() {
            AnyScenario::Beam(s) => s,
            _ => unreachable!("a BeamResult holds a beam scenario"),
        }
    }

    fn energy_column<'py>(
        &self,
        py: Python<'py>,
        c: usize,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self.outcome.energy.iter().map(|r| r[c]).collect();
        let n = data.len();
        array(py, data, &[n])
    }
}

#[pymethods]
impl BeamResult {
    /// True for a static analysis.
    #[getter]
    fn is_static(&self) -> bool {
        self.outcome.is_static
    }

    /// Time (s) of every step, or the load factor in statics; shape (n,).
    #[getter]
    fn t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self.outcome.tip.iter().map(|r| r[0]).collect();
        let n = data.len();
        array(py, data, &[n])
    }

    /// Tip pose (x, y in m, θ in rad) at every step, shape (n, 3).
    #[getter]
    fn tip<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self
            .outcome
            .tip
            .iter()
            .flat_map(|r| r[1..4].to_vec())
            .collect();
        array(py, data, &[self.outcome.tip.len(), 3])
    }

    /// Kinetic energy (J) per time step (empty in statics).
    #[getter]
    fn kinetic_energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.energy_column(py, 1)
    }

    /// Strain energy (J) per time step.
    #[getter]
    fn strain_energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.energy_column(py, 2)
    }

    /// Total energy (J) per time step.
    #[getter]
    fn total_energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.energy_column(py, 3)
    }

    /// Work of the external loads since the start (J) per time step.
    #[getter]
    fn external_work<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.energy_column(py, 4)
    }

    /// Linear momentum (kg m/s) per time step, shape (n, 2).
    #[getter]
    fn momentum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self
            .outcome
            .energy
            .iter()
            .flat_map(|r| [r[5], r[6]])
            .collect();
        array(py, data, &[self.outcome.energy.len(), 2])
    }

    /// Angular momentum (kg m²/s) per time step.
    #[getter]
    fn angular_momentum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        self.energy_column(py, 7)
    }

    /// Times (s) or load factors of the snapshots, shape (k,).
    #[getter]
    fn snapshot_t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self.outcome.snapshots.iter().map(|s| s.t).collect();
        let n = data.len();
        array(py, data, &[n])
    }

    /// Node positions (x, y in m) and rotations θ (rad) at the snapshots (`[output]
    /// snapshots` of them, the VTK series' frames), shape (k, nodes, 3).
    #[getter]
    fn node_positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let snaps = &self.outcome.snapshots;
        let nodes = snaps.first().map_or(0, |s| s.positions.len());
        let data: Vec<f64> = snaps
            .iter()
            .flat_map(|s| {
                s.positions
                    .iter()
                    .zip(&s.theta)
                    .flat_map(|(p, th)| [p[0], p[1], *th])
                    .collect::<Vec<_>>()
            })
            .collect();
        array(py, data, &[snaps.len(), nodes, 3])
    }

    /// Arc length s (m) of every node, shape (nodes,).
    #[getter]
    fn s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data = self
            .outcome
            .snapshots
            .first()
            .map_or_else(Vec::new, |s| s.s.clone());
        let n = data.len();
        array(py, data, &[n])
    }

    /// The run summary (the CLI's summary.json without output_wall_time_seconds).
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.summary)
    }

    /// Writes the files `stmech run` writes (tip.csv, energy.csv, beam.pvd + beam_NNNN.vtu,
    /// shapes.png, summary.json) into a new directory `dir`. Returns the directory.
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
        save_with(py, &self.source, Vec::new(), dir, force, |staged| {
            stmech_app::beam::write_results(sc, &self.outcome, staged, plots, self.solve_seconds)
                .map(|_| ())
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "BeamResult({} {}, origin={:?})",
            self.outcome.tip.len(),
            if self.outcome.is_static {
                "load steps"
            } else {
                "time steps"
            },
            self.source.origin
        )
    }
}

// ---------------------------------------------------------------------------------------
// beam inverse

/// Result of an inverse problem (`problem = "beam-inverse"`): the actuation at s = 0 that
/// makes the tip follow the prescribed path, and its closed-loop verification.
#[pyclass(frozen, module = "stmech")]
pub struct InverseResult {
    pub(crate) source: Source,
    pub(crate) scenario: Arc<AnyScenario>,
    pub(crate) run: MethodRun,
    pub(crate) verification: Verification,
    pub(crate) summary: serde_json::Value,
    pub(crate) solve_seconds: f64,
}

impl InverseResult {
    /// The scenario that was solved, as a `Scenario`.
    pub fn scenario_object(&self) -> crate::scenario::Scenario {
        crate::scenario::Scenario {
            source: self.source.clone(),
            inner: self.scenario.clone(),
        }
    }

    fn sc(&self) -> &stmech::io::inverse_scenario::InverseScenario {
        match self.scenario.as_ref() {
            AnyScenario::BeamInverse(s) => s,
            _ => unreachable!("an InverseResult holds an inverse scenario"),
        }
    }
}

#[pymethods]
impl InverseResult {
    /// Time nodes (s), shape (nt,).
    #[getter]
    fn t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let t = self.run.solution.t.clone();
        let n = t.len();
        array(py, t, &[n])
    }

    /// Arc-length nodes (m), shape (ns,).
    #[getter]
    fn s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let s = self.run.solution.s.clone();
        let n = s.len();
        array(py, s, &[n])
    }

    /// Actuation applied by the actuator to the beam at s = 0, global frame: f_x, f_y (N) and
    /// m (N·m) at the time nodes, shape (nt, 3) (the rows of actuation.csv).
    #[getter]
    fn actuation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let samples = self.run.solution.actuation_samples();
        let data: Vec<f64> = samples.iter().flat_map(|s| s.1).collect();
        array(py, data, &[samples.len(), 3])
    }

    /// Time of every actuation sample (s), shape (nt,): the first column of actuation.csv.
    #[getter]
    fn actuation_t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let data: Vec<f64> = self
            .run
            .solution
            .actuation_samples()
            .iter()
            .map(|s| s.0)
            .collect();
        let n = data.len();
        array(py, data, &[n])
    }

    /// Tip pose of the solution (x, y in m, θ in rad) at the time nodes, shape (nt, 3).
    #[getter]
    fn tip<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let sol = &self.run.solution;
        let data: Vec<f64> = (0..sol.t.len()).flat_map(|j| sol.tip(j)).collect();
        array(py, data, &[sol.t.len(), 3])
    }

    /// Prescribed tip pose γ(t) (x, y in m, θ in rad) at the time nodes, shape (nt, 3).
    #[getter]
    fn tip_prescribed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let sol = &self.run.solution;
        let tr = &self.sc().trajectory;
        let data: Vec<f64> = sol.t.iter().flat_map(|&t| tr.pose(t)).collect();
        array(py, data, &[sol.t.len(), 3])
    }

    /// Beam configuration (x, y in m, θ in rad) at every space-time node, shape (nt, ns, 3).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let sol = &self.run.solution;
        let (nt, ns) = (sol.t.len(), sol.s.len());
        let mut data = Vec::with_capacity(nt * ns * 3);
        for j in 0..nt {
            for i in 0..ns {
                data.extend(sol.x_at(i, j));
            }
        }
        array(py, data, &[nt, ns, 3])
    }

    /// The closed-loop verification (summary.json's tip_tracking) as a dict.
    #[getter]
    fn tip_tracking<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.verification.to_json())
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
        self.scenario_object()
    }

    /// Writes the files `stmech run` writes (actuation.csv, tip.csv, beam.pvd +
    /// beam_NNNN.vtu, actuation.png, snapshots.png, summary.json) into a new directory `dir`.
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
                stmech_app::inverse::write_results(
                    sc,
                    &self.run,
                    self.solve_seconds,
                    staged,
                    plots,
                    || self.verification.clone(),
                )
                .map(|_| ())
            },
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "InverseResult({} × {} nodes, status={:?}, origin={:?})",
            self.run.solution.s.len(),
            self.run.solution.t.len(),
            self.status(),
            self.source.origin
        )
    }
}

/// A dict of a closed-loop report.
pub fn report_dict<'py>(
    py: Python<'py>,
    r: &stmech::inverse::closed_loop::ClosedLoopReport,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("max_position_error_m", r.max_position_error_m)?;
    d.set_item("max_position_error_time_s", r.max_position_error_time_s)?;
    d.set_item("max_angle_error_rad", r.max_angle_error_rad)?;
    d.set_item("max_angle_error_time_s", r.max_angle_error_time_s)?;
    d.set_item("elements", r.forward_mesh.elements)?;
    d.set_item("order", r.forward_mesh.order)?;
    d.set_item("dt_s", r.forward_mesh.dt)?;
    d.set_item("steps", r.steps)?;
    d.set_item("wall_time_seconds", r.seconds)?;
    Ok(d)
}
