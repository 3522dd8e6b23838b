//! The Python module `stmech` (native part `stmech._stmech`): load and check scenarios from
//! TOML files or dicts, run them with the GIL released, get numpy arrays and the summary, and
//! save the files the CLI writes. See `docs/python.md`.

mod crane_result;
mod errors;
mod input;
mod results;
mod scenario;
mod spatial_result;

use crane_result::CraneResult;
use errors::{Problem, ScenarioError, SolveError, problems_of, scenario_error};
use input::{check_actuation, time_series};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use results::{BeamResult, InverseResult, MultibodyResult, StaticResult, report_dict};
use scenario::{Scenario, load_source, resolve, source_of};
use spatial_result::SpatialResult;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use stmech::error::InputError;
use stmech::inverse::closed_loop::{
    ClosedLoopError, ForwardDiscretisation, closed_loop as run_closed_loop,
};
use stmech::io::load::AnyScenario;

/// The built-in demo scenario ([I] Example 3.2), as `stmech demo` runs it.
const DEMO_SCENARIO: &str = include_str!("../../../examples/beam_inverse/example_3_2.toml");

/// Loads and validates a scenario: a path to a TOML file, a dict with the file's field names
/// (numpy arrays allowed where the file has lists), or a Scenario. `trajectory=(t, pose)`
/// replaces the `[trajectory]` of an inverse problem by samples (t in s, shape (n,); pose x, y
/// in m and θ in rad, shape (n, 3)), checked like a trajectory CSV; `actuation=(t, values)`
/// adds a force f_x, f_y (N) and moment m (N·m) at s = 0 to a planar-beam problem (piecewise
/// linear in t). Raises ScenarioError listing every problem.
#[pyfunction]
#[pyo3(signature = (scenario, *, trajectory = None, actuation = None))]
fn load(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    trajectory: Option<&Bound<'_, PyAny>>,
    actuation: Option<&Bound<'_, PyAny>>,
) -> PyResult<Scenario> {
    let source = source_of(scenario, trajectory, actuation)?;
    load_source(py, source)
}

/// The problems of a scenario (same arguments as `load`), without solving: an empty list if
/// it is valid. Each Problem has `field`, `line` (None for a dict), `message` and `fix`.
/// A file that cannot be read raises OSError.
#[pyfunction]
#[pyo3(signature = (scenario, *, trajectory = None, actuation = None))]
fn check(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    trajectory: Option<&Bound<'_, PyAny>>,
    actuation: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Problem>> {
    let source = match source_of(scenario, trajectory, actuation) {
        Ok(s) => s,
        Err(e) if e.is_instance_of::<ScenarioError>(py) => return problems_attr(py, &e),
        Err(e) => return Err(e),
    };
    let result = py.detach(|| {
        stmech::io::load::load_text(&source.text, &source.origin, &source.base_dir).map(|_| ())
    });
    Ok(match result {
        Ok(()) => Vec::new(),
        Err(e) => problems_of(&e, source.lines),
    })
}

fn problems_attr(py: Python<'_>, e: &PyErr) -> PyResult<Vec<Problem>> {
    let list = e.value(py).getattr("problems")?;
    let mut out = Vec::new();
    for item in list.try_iter()? {
        out.push(item?.cast::<Problem>()?.get().clone());
    }
    Ok(out)
}

/// What a solve produced (built into a result object with the GIL held).
enum Solved {
    Multibody(Box<MultibodyResult>),
    Static(Box<StaticResult>),
    Beam(Box<BeamResult>),
    Inverse(Box<InverseResult>),
    Crane(Box<CraneResult>),
    Spatial(Box<SpatialResult>),
}

/// Why a solve failed.
enum Failed {
    Solver(String),
    Input(Vec<Problem>),
}

/// Solves a scenario and returns its result object: MultibodyResult (rigid bodies, joints,
/// spatial beams in time), StaticResult (`analysis = "static"`), BeamResult (`problem =
/// "beam"`), InverseResult (`problem = "beam-inverse"`, with the closed-loop check) or
/// CraneResult (`problem = "crane"`, with the closed-loop check) or SpatialResult
/// (`analysis = "inverse"`: the spatial inverse problem, with its closed-loop check). The
/// GIL is released while it solves, so threads run solves in parallel. Arguments as for
/// `load`. Raises ScenarioError (invalid input) or SolveError (no convergence).
#[pyfunction]
#[pyo3(signature = (scenario, *, trajectory = None, actuation = None))]
fn run(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    trajectory: Option<&Bound<'_, PyAny>>,
    actuation: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (source, inner) = resolve(py, scenario, trajectory, actuation)?;
    let origin = source.origin.clone();
    let solved = py.detach(move || with_threads(move || solve(source, inner)));
    match solved {
        Ok(Solved::Multibody(r)) => Ok(Bound::new(py, *r)?.into_any().unbind()),
        Ok(Solved::Static(r)) => Ok(Bound::new(py, *r)?.into_any().unbind()),
        Ok(Solved::Beam(r)) => Ok(Bound::new(py, *r)?.into_any().unbind()),
        Ok(Solved::Inverse(r)) => Ok(Bound::new(py, *r)?.into_any().unbind()),
        Ok(Solved::Crane(r)) => Ok(Bound::new(py, *r)?.into_any().unbind()),
        Ok(Solved::Spatial(r)) => Ok(Bound::new(py, *r)?.into_any().unbind()),
        Err(Failed::Solver(msg)) => Err(SolveError::new_err(msg)),
        Err(Failed::Input(problems)) => Err(scenario_error(&origin, problems)),
    }
}

fn solve(source: input::Source, inner: std::sync::Arc<AnyScenario>) -> Result<Solved, Failed> {
    let started = std::time::Instant::now();
    match inner.as_ref() {
        AnyScenario::Multibody(s) if s.statics.is_some() => {
            let sol = match stmech_app::statics::solve(s) {
                Some(Ok(sol)) => sol,
                Some(Err(e)) => return Err(Failed::Solver(e.to_string())),
                None => return Err(Failed::Solver("not a static scenario".into())),
            };
            let secs = started.elapsed().as_secs_f64();
            let summary = stmech_app::statics::summary(s, &sol, secs);
            Ok(Solved::Static(Box::new(StaticResult {
                source,
                scenario: inner.clone(),
                sol,
                summary,
                solve_seconds: secs,
            })))
        }
        AnyScenario::Multibody(s) => {
            let traj = stmech_app::multibody::solve(s, &mut |_| {})
                .map_err(|e| Failed::Solver(e.to_string()))?;
            let secs = started.elapsed().as_secs_f64();
            let diagnostics = stmech::io::output::node_diagnostics(&s.system, &traj);
            let elements = stmech::solve::diagnostics::element_diagnostics(&s.system, &traj);
            let summary = stmech::io::output::summary_ok(s, &traj, &diagnostics, &elements, secs);
            Ok(Solved::Multibody(Box::new(MultibodyResult {
                source,
                scenario: inner.clone(),
                traj,
                diagnostics,
                summary,
                solve_seconds: secs,
            })))
        }
        AnyScenario::Beam(s) => {
            let outcome = stmech_app::beam::solve(s).map_err(|e| Failed::Solver(e.to_string()))?;
            let secs = started.elapsed().as_secs_f64();
            let summary = stmech_app::beam::summary(s, &outcome, secs);
            Ok(Solved::Beam(Box::new(BeamResult {
                source,
                scenario: inner.clone(),
                outcome,
                summary,
                solve_seconds: secs,
            })))
        }
        AnyScenario::Crane(s) => {
            let sol = stmech_app::crane::solve(s).map_err(|e| {
                if stmech_app::crane::is_input_error(&e) {
                    Failed::Input(vec![Problem::new("scenario", None, e.to_string())])
                } else {
                    Failed::Solver(e.to_string())
                }
            })?;
            let secs = started.elapsed().as_secs_f64();
            let replay = stmech_app::crane::replay(s, &sol);
            let (summary, _) = stmech_app::crane::summary(s, &sol, secs, &replay);
            Ok(Solved::Crane(Box::new(CraneResult {
                source,
                scenario: inner.clone(),
                sol,
                replay,
                summary,
                solve_seconds: secs,
            })))
        }
        AnyScenario::SpatialInverse(s) => {
            let run = stmech_app::spatial_inverse::solve(s).map_err(|e| {
                if stmech_app::spatial_inverse::is_input_error(&e) {
                    let (field, message) = match &e {
                        stmech::inverse::InverseError::Input(InputError::Invalid {
                            field,
                            message,
                        }) => (field.clone(), message.clone()),
                        other => ("scenario".to_owned(), other.to_string()),
                    };
                    Failed::Input(vec![Problem::new(&field, None, message)])
                } else {
                    Failed::Solver(e.to_string())
                }
            })?;
            let secs = started.elapsed().as_secs_f64();
            let closed_loop = stmech_app::spatial_inverse::closed_loop(s, &run);
            let rows = stmech_app::spatial_inverse::rows(s, &run);
            let (summary, _) =
                stmech_app::spatial_inverse::summary(s, &run, &rows, secs, &closed_loop);
            Ok(Solved::Spatial(Box::new(SpatialResult {
                source,
                scenario: inner.clone(),
                run,
                rows,
                closed_loop,
                summary,
                solve_seconds: secs,
            })))
        }
        AnyScenario::BeamInverse(s) => {
            let run = stmech_app::inverse::solve(s).map_err(|e| {
                if stmech_app::inverse::is_input_error(&e) {
                    let (field, message) = match &e {
                        stmech::inverse::InverseError::Input(InputError::Invalid {
                            field,
                            message,
                        }) => (field.clone(), message.clone()),
                        other => ("scenario".to_owned(), other.to_string()),
                    };
                    Failed::Input(vec![Problem::new(&field, None, message)])
                } else {
                    Failed::Solver(e.to_string())
                }
            })?;
            let secs = started.elapsed().as_secs_f64();
            let verification = stmech_app::inverse::verify(s, &run.solution.actuation_samples());
            let summary = stmech_app::inverse::summary(s, &run, secs, &verification);
            Ok(Solved::Inverse(Box::new(InverseResult {
                source,
                scenario: inner.clone(),
                run,
                verification,
                summary,
                solve_seconds: secs,
            })))
        }
    }
}

/// Replays an actuation in the forward planar-beam model (semi-discrete finite elements,
/// energy-momentum stepper, from rest in the inverse problem's beam placement) and returns
/// the largest deviation of its tip from the inverse problem's prescribed path: a dict with
/// max_position_error_m, max_position_error_time_s, max_angle_error_rad,
/// max_angle_error_time_s, elements, order, dt_s, steps, wall_time_seconds.
///
/// `scenario`: the inverse problem (path, dict, Scenario or InverseResult); `t` (s) and
/// `actuation` (f_x, f_y in N, m in N·m at s = 0, shape (n, 3)), piecewise linear. The
/// forward discretisation defaults to the one `run` verifies with (`elements` quadratic
/// elements = the inverse mesh's, Δt from the fastest wave); `elements`, `order` and `dt` (s)
/// override it.
#[pyfunction]
#[pyo3(signature = (scenario, t, actuation, *, elements = None, order = 2, dt = None))]
fn closed_loop<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
    t: &Bound<'py, PyAny>,
    actuation: &Bound<'py, PyAny>,
    elements: Option<usize>,
    order: usize,
    dt: Option<f64>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let scenario_obj = match scenario.cast::<InverseResult>() {
        Ok(r) => Bound::new(py, r.get().scenario_object())?.into_any(),
        Err(_) => scenario.clone(),
    };
    let (source, inner) = resolve(py, &scenario_obj, None, None)?;
    let AnyScenario::BeamInverse(s) = inner.as_ref() else {
        return Err(scenario_error(
            &source.origin,
            vec![Problem::new(
                "problem",
                None,
                "closed_loop needs an inverse problem (problem = \"beam-inverse\")".into(),
            )],
        ));
    };
    let pair = pyo3::types::PyTuple::new(py, [t, actuation])?;
    let (t, f) = time_series(
        pair.as_any(),
        "actuation",
        "f_x, f_y in N and m in N·m at s = 0",
    )
    .map_err(|p| scenario_error(&source.origin, p))?;
    let problems = check_actuation(&t, &f);
    if !problems.is_empty() {
        return Err(scenario_error(&source.origin, problems));
    }
    let mut disc = ForwardDiscretisation::auto(&s.beam, &s.mesh);
    if let Some(n) = elements {
        if !(1..=100_000).contains(&n) {
            return Err(PyValueError::new_err(format!(
                "elements: must be between 1 and 100000, got {n}"
            )));
        }
        disc.elements = n;
    }
    if !(1..=2).contains(&order) {
        return Err(PyValueError::new_err(format!(
            "order: must be 1 or 2, got {order}"
        )));
    }
    disc.order = order;
    if let Some(dt) = dt {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(PyValueError::new_err(format!(
                "dt: must be finite and > 0 (s), got {dt}"
            )));
        }
        if disc.steps(s.mesh.t_start, s.mesh.t_end) > 0
            && (s.mesh.t_end - s.mesh.t_start) / dt > 1e8
        {
            return Err(PyValueError::new_err(format!(
                "dt: {dt} s gives more than 1e8 steps; use a larger step"
            )));
        }
        disc.dt = dt;
    }
    let samples: Vec<(f64, [f64; 3])> = t.into_iter().zip(f).collect();
    let result = py.detach(|| {
        with_threads(|| {
            run_closed_loop(
                &s.beam,
                s.trajectory.as_ref(),
                s.mesh.t_start,
                s.mesh.t_end,
                &samples,
                &disc,
            )
        })
    });
    match result {
        Ok(r) => report_dict(py, &r),
        Err(e @ ClosedLoopError::Forward { .. }) => Err(SolveError::new_err(e.to_string())),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

/// The crane demo scenario (`stmech demo crane`).
const CRANE_DEMO_SCENARIO: &str =
    include_str!("../../../examples/crane/01_swing_free_transfer.toml");

/// A built-in demo scenario: `demo()` is [I] Example 3.2, the inverse problem `stmech demo`
/// solves; `demo("crane")` the swing-free crane transfer of `stmech demo crane`.
#[pyfunction]
#[pyo3(signature = (name = None))]
fn demo(py: Python<'_>, name: Option<&str>) -> PyResult<Scenario> {
    let (text, origin) = match name {
        None | Some("beam-inverse") => (
            DEMO_SCENARIO,
            "examples/beam_inverse/example_3_2.toml (built in)",
        ),
        Some("crane") => (
            CRANE_DEMO_SCENARIO,
            "examples/crane/01_swing_free_transfer.toml (built in)",
        ),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "no demo named {other:?}; the demos are \"beam-inverse\" (the default) and \
                 \"crane\""
            )));
        }
    };
    load_source(
        py,
        input::Source {
            text: text.to_owned(),
            origin: origin.to_owned(),
            base_dir: ".".into(),
            file: None,
            lines: true,
        },
    )
}

/// Threads per solve set by `set_threads` (0: rayon's global pool, all cores).
static THREADS_PER_SOLVE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This OS thread's own pool for its solves (when `set_threads` is in force), so that
    /// solves on different Python threads never wait for each other's workers.
    static POOL: RefCell<Option<(usize, rayon::ThreadPool)>> = const { RefCell::new(None) };
}

/// Runs `f` with the parallel assembly on this thread's pool of `set_threads(n)` threads, or
/// on rayon's global pool if `set_threads` was not called.
fn with_threads<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let n = THREADS_PER_SOLVE.load(Ordering::Relaxed);
    if n == 0 {
        return f();
    }
    POOL.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(k, _)| *k != n) {
            *slot = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .ok()
                .map(|p| (n, p));
        }
        match slot.as_ref() {
            Some((_, pool)) => pool.install(f),
            None => f(),
        }
    })
}

/// Sets the threads of the parallel element assembly of each solve (the CLI's --threads;
/// results are the same to the bit for any number). Each Python thread then solves on a pool
/// of its own with `n` threads, so a sweep over k Python threads uses k × n cores: for sweeps,
/// `set_threads(1)` and one sweep thread per core. `set_threads(0)` returns to the default
/// (one pool of all cores shared by every solve).
#[pyfunction]
fn set_threads(n: usize) -> PyResult<()> {
    if n > 1024 {
        return Err(PyValueError::new_err(format!(
            "n: must be between 0 and 1024, got {n}"
        )));
    }
    THREADS_PER_SOLVE.store(n, Ordering::Relaxed);
    Ok(())
}

/// stmech: space-time Galerkin dynamics of rigid bodies and beams, and inverse dynamics of
/// beams, from Python. `run(scenario)` solves a TOML file or a dict and returns numpy arrays;
/// `check(scenario)` lists the problems of a scenario; `save(dir)` on a result writes the
/// files the `stmech` command writes. SI units throughout (m, s, kg, N, rad).
#[pymodule]
fn _stmech(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(closed_loop, m)?)?;
    m.add_function(wrap_pyfunction!(demo, m)?)?;
    m.add_function(wrap_pyfunction!(set_threads, m)?)?;
    m.add_class::<Scenario>()?;
    m.add_class::<Problem>()?;
    m.add_class::<MultibodyResult>()?;
    m.add_class::<StaticResult>()?;
    m.add_class::<CraneResult>()?;
    m.add_class::<SpatialResult>()?;
    m.add_class::<BeamResult>()?;
    m.add_class::<InverseResult>()?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SolveError", py.get_type::<SolveError>())?;
    m.add("__version__", stmech_app::VERSION)?;
    Ok(())
}
