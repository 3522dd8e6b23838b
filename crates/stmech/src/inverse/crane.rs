//! Crane inverse dynamics (issue 17): given the payload path `y(t) ∈ R³` at the end `s = L` of a
//! geometrically exact string ([`crate::string`]), find the suspension-point motion `x(0, t)`
//! and the force it exerts, by the space-time finite element method of the planar beam
//! ([`super::solver`]: bilinear space-time elements, servo constraint `r(L, t) = y(t)`,
//! streamed sideways elimination), with the string's [`InverseBody`](super::body::InverseBody).
//!
//! # Checks before solving (one place, shared by the scenario validation)
//! * [`check_payload_path`]: the rope must hang *above* the payload. The payload's equation
//!   `m ÿ = m g − N(L) t(L)` gives the rope direction at the payload,
//!   `(ÿ − g)/|ÿ − g|` (towards the suspension point), and the tension `N(L) = m |ÿ − g|`.
//!   A path with `(ÿ − g)·up ≤ 0` somewhere (the payload accelerating downward at `g` or more)
//!   would need the rope below the payload, pushing or slack: refused, naming the interval.
//! * [`check_time_domain`]: the time domain must hold the pre- and post-actuation, the
//!   transverse travel time `T = ∫ ds/c_t(s)` of the hanging rope
//!   ([`StringModel::travel_time`]), before and after the payload moves.
//! * the mesh ratio ([`super::mesh_ratio::check_speed`]): `μ = hs/(c_min ht) ≤ 2` with the
//!   slowest transverse speed, at the payload, `c_min = sqrt(N_min/(ν ρA))`,
//!   `N_min = m min_t |ÿ − g|` known from the path before solving. The condition is the beam's
//!   von Neumann analysis applied wave by wave; with a tension that grows up the rope, the
//!   payload end, where the waves are slowest, binds (a larger speed only relaxes the bound
//!   `ht ≥ hs/(2c)`).
//!
//! # Start and result
//! Newton starts from the rigid-rope solution ([`rigid_suspension`]): the rope straight from
//! the payload along `(ÿ − g)/|ÿ − g|`, stretched by the quasi-static tension. The converged
//! solution is checked to be taut (`ν > 1` in every element at every time node), where the
//! linear continuation used by the iterates is the physical tension-only law.

use super::mesh_ratio::{self, MeshRatioError};
use super::solver::{
    InverseError, NewtonSettings, NewtonStart, SpaceTimeMesh, SpaceTimeSolution,
    solve_inverse_started, validate_mesh,
};
use super::trajectory::TipTrajectory;
use crate::error::InputError;
use crate::string::dynamics::{Actuation, StringStepError, StringStepper};
use crate::string::space_time::SpaceTimeString;
use crate::string::{Compression, StringModel};

/// Samples per time element (at least) of the path checks.
const PATH_SAMPLES: usize = 8;

/// A crane problem that cannot be solved as given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CraneError {
    /// Invalid model or mesh data.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The path needs a slack or pushing rope.
    #[error(
        "the payload path needs a slack or pushing rope on t ∈ [{from:.4}, {to:.4}] s: there the \
         payload accelerates downward at {worst:.4} m/s² ≥ g = {g:.4} m/s² (the component of \
         ÿ − g along up is ≤ 0), so the rope would have to hang below the payload. Fix: slow \
         the descent (a longer duration of the motion) or lower the payload less steeply"
    )]
    Slack {
        /// Start of the first offending interval (s).
        from: f64,
        /// Its end (s).
        to: f64,
        /// Largest downward acceleration there (m/s²).
        worst: f64,
        /// `|g|` (m/s²).
        g: f64,
    },
    /// The path's acceleration is not finite somewhere (a motion far too short).
    #[error(
        "the payload path's acceleration is not finite at t = {t} s (a rest-to-rest motion of \
         duration {duration:.4e} s?): no rope can produce it. Fix: a longer trajectory.duration"
    )]
    NotFinite {
        /// Where (s).
        t: f64,
        /// Duration of the motion interval, if the path reports one (s).
        duration: f64,
    },
    /// The motion is too short for the time mesh.
    #[error(
        "the payload moves for {duration:.4e} s only, less than 4 time elements (ht = {ht:.4e} s): \
         the time mesh cannot resolve the motion and the servo constraint would see a jump. \
         Fix: a longer trajectory.duration (≥ {min:.4e} s) or more time elements"
    )]
    Unresolved {
        /// Duration of the motion (s).
        duration: f64,
        /// Time step (s).
        ht: f64,
        /// Shortest resolvable duration (s).
        min: f64,
    },
    /// The time domain does not hold the pre- or post-actuation.
    #[error(
        "the time domain [{t_start}, {t_end}] s does not hold the {which}-actuation: the \
         payload moves on [{t0}, {t1}] s and the transverse waves need T = ∫ds/c = \
         {travel:.4} s to travel the rope, so the suspension point starts moving T before the \
         payload and stops T after it. Fix: time.start ≤ {start_max:.4} and time.end ≥ \
         {end_min:.4}"
    )]
    TimeDomain {
        /// "pre" or "post".
        which: &'static str,
        /// Domain start (s).
        t_start: f64,
        /// Domain end (s).
        t_end: f64,
        /// Motion start (s).
        t0: f64,
        /// Motion end (s).
        t1: f64,
        /// Travel time (s).
        travel: f64,
        /// Latest admissible start (s).
        start_max: f64,
        /// Earliest admissible end (s).
        end_min: f64,
    },
    /// The payload is not at rest at the start.
    #[error(
        "the payload path is not at rest at time.start = {t}: |ẏ| = {speed:.3e} m/s, |ÿ| = \
         {acc:.3e} m/s²; the rope starts hanging at rest. Fix: start the motion later"
    )]
    NotAtRest {
        /// Start time (s).
        t: f64,
        /// Speed there.
        speed: f64,
        /// Acceleration there.
        acc: f64,
    },
    /// The mesh violates the sideways condition.
    #[error(transparent)]
    MeshRatio(#[from] MeshRatioError),
    /// The space-time solve failed.
    #[error(transparent)]
    Solve(#[from] InverseError),
    /// The converged solution has a slack element.
    #[error(
        "the computed rope goes slack (stretch ν = {nu:.6} < 1 in element {element} at t = \
         {t:.4} s): the rope cannot follow this path. Fix: a slower manoeuvre"
    )]
    SlackSolution {
        /// Smallest stretch.
        nu: f64,
        /// Element.
        element: usize,
        /// Time (s).
        t: f64,
    },
    /// The forward replay failed.
    #[error(transparent)]
    Forward(#[from] StringStepError),
}

/// What [`check_payload_path`] found.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PathReport {
    /// Smallest payload tension `m |ÿ − g|` on the time domain (N).
    pub min_payload_tension: f64,
    /// When (s).
    pub at: f64,
}

/// The sample times of the path checks: `PATH_SAMPLES` per time element of `mesh`, at least
/// 4000 over the domain.
fn sample_times(t_start: f64, t_end: f64, elements_t: usize) -> impl Iterator<Item = f64> {
    let n = (PATH_SAMPLES * elements_t).max(4000);
    (0..=n).map(move |k| t_start + (t_end - t_start) * k as f64 / n as f64)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Refuses a path that needs the rope below the payload (module docs); returns the smallest
/// payload tension, which sets the slowest transverse wave.
pub fn check_payload_path(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
    elements_t: usize,
) -> Result<PathReport, CraneError> {
    let up = model.up();
    let g = model.g();
    let mut bad: Option<(f64, f64, f64)> = None;
    let mut report = PathReport {
        min_payload_tension: f64::INFINITY,
        at: t_start,
    };
    // the domain, and the motion interval on its own (a motion shorter than the spacing of the
    // domain's samples would slip through)
    let motion: Vec<f64> = match path.motion_interval() {
        Some((on, off)) if on.is_finite() && off.is_finite() && off > on => {
            let (on, off) = (on.max(t_start), off.min(t_end));
            (0..=4000)
                .map(|k| on + (off - on) * k as f64 / 4000.0)
                .collect()
        }
        _ => Vec::new(),
    };
    for &t in &motion {
        let a = path.acceleration(t);
        if !a.iter().all(|c| c.is_finite()) {
            let duration = path.motion_interval().map_or(f64::NAN, |(a, b)| b - a);
            return Err(CraneError::NotFinite { t, duration });
        }
    }
    let mut samples: Vec<f64> = sample_times(t_start, t_end, elements_t).collect();
    samples.extend(motion);
    samples.sort_by(f64::total_cmp);
    for t in samples {
        let a = path.acceleration(t);
        if !a.iter().all(|c| c.is_finite()) {
            let duration = path.motion_interval().map_or(f64::NAN, |(a, b)| b - a);
            return Err(CraneError::NotFinite { t, duration });
        }
        let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
        let along_up = dot(rel, up);
        let tension = model.payload_mass * dot(rel, rel).sqrt();
        if tension < report.min_payload_tension {
            report = PathReport {
                min_payload_tension: tension,
                at: t,
            };
        }
        // downward acceleration −ÿ·up ≥ g  ⇔  (ÿ − g)·up ≤ 0
        if along_up.is_nan() || along_up <= 0.0 {
            let down = -dot(a, up);
            bad = Some(match bad {
                None => (t, t, down),
                Some((from, _, w)) => (from, t, w.max(down)),
            });
        } else if bad.is_some() {
            break;
        }
    }
    if let Some((from, to, worst)) = bad {
        return Err(CraneError::Slack { from, to, worst, g });
    }
    Ok(report)
}

/// Checks that `y` is at rest at `t_start` and that the domain holds the pre- and
/// post-actuation (the travel time before and after the path's motion interval, when the path
/// reports one).
pub fn check_time_domain(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
) -> Result<(), CraneError> {
    let (v, a) = (path.velocity(t_start), path.acceleration(t_start));
    let (speed, acc) = (dot(v, v).sqrt(), dot(a, a).sqrt());
    let scale = model.length.max(1.0);
    if speed > 1e-9 * scale || acc > 1e-9 * model.g() {
        return Err(CraneError::NotAtRest {
            t: t_start,
            speed,
            acc,
        });
    }
    let Some((t0, t1)) = path.motion_interval() else {
        return Ok(());
    };
    let travel = model.travel_time();
    let (start_max, end_min) = (t0 - travel, t1 + travel);
    let slack = 1e-9 * (1.0 + t_end.abs().max(t_start.abs()));
    let which = if t_start > start_max + slack {
        "pre"
    } else if t_end < end_min - slack {
        "post"
    } else {
        return Ok(());
    };
    Err(CraneError::TimeDomain {
        which,
        t_start,
        t_end,
        t0,
        t1,
        travel,
        start_max,
        end_min,
    })
}

/// Refuses a motion interval shorter than 4 time elements of `mesh` (the path reports it).
pub fn check_resolution(path: &dyn TipTrajectory, mesh: &SpaceTimeMesh) -> Result<(), CraneError> {
    let ht = mesh.ht();
    match path.motion_interval() {
        Some((on, off)) if (off - on).is_nan() || off - on < 4.0 * ht => {
            Err(CraneError::Unresolved {
                duration: off - on,
                ht,
                min: 4.0 * ht,
            })
        }
        _ => Ok(()),
    }
}

/// Slowest transverse wave speed over the manoeuvre: at the payload with the smallest tension
/// (m/s).
pub fn slowest_speed(model: &StringModel, report: &PathReport) -> f64 {
    model.transverse_speed(report.min_payload_tension)
}

/// A mesh on `[t_start, t_end]` with `elements_s` elements along the rope and the time step of
/// sideways Courant number 1 for the slowest transverse wave.
pub fn auto_mesh(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
    elements_s: usize,
) -> Result<SpaceTimeMesh, CraneError> {
    let report = check_payload_path(model, path, t_start, t_end, 1)?;
    let c = slowest_speed(model, &report);
    Ok(SpaceTimeMesh {
        t_start,
        t_end,
        elements_s,
        elements_t: mesh_ratio::auto_elements_t_for_speed(
            c,
            model.length,
            t_end - t_start,
            elements_s,
        ),
    })
}

/// The suspension point of a massless rigid rope of length `L`:
/// `x₀ = y + L (ÿ − g)/|ÿ − g|` (the flat output of the rigid pendulum crane).
pub fn rigid_suspension(model: &StringModel, path: &dyn TipTrajectory, t: f64) -> [f64; 3] {
    let (y, a) = (path.pose(t), path.acceleration(t));
    let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
    let n = dot(rel, rel).sqrt();
    [0, 1, 2].map(|c| y[c] + model.length * rel[c] / n)
}

/// The crane's inverse solution.
#[derive(Clone, Debug)]
pub struct CraneSolution {
    /// The space-time solution (`x` are the rope's positions, `actuation` the force the
    /// suspension point applies to the rope, N).
    pub solution: SpaceTimeSolution<StringModel>,
    /// The path check.
    pub path: PathReport,
    /// The sideways Courant number of the mesh with the slowest transverse wave.
    pub courant: f64,
    /// Smallest stretch of the solution.
    pub min_stretch: f64,
}

impl CraneSolution {
    /// Suspension point `x(0, t_j)`.
    pub fn suspension(&self, j: usize) -> [f64; 3] {
        self.solution.x_at(0, j)
    }

    /// Suspension-point velocity `v(0, t_j)` (the Galerkin velocity field).
    pub fn suspension_velocity(&self, j: usize) -> [f64; 3] {
        self.solution.v_at(0, j)
    }

    /// Suspension-point acceleration at `t_j`: central differences of `v(0, ·)` (one-sided
    /// at the ends).
    pub fn suspension_acceleration(&self, j: usize) -> [f64; 3] {
        let n = self.solution.t.len() - 1;
        let (a, b) = if j == 0 {
            (0, 1)
        } else if j == n {
            (n - 1, n)
        } else {
            (j - 1, j + 1)
        };
        let dt = self.solution.t[b] - self.solution.t[a];
        let (va, vb) = (self.suspension_velocity(a), self.suspension_velocity(b));
        [0, 1, 2].map(|c| (vb[c] - va[c]) / dt)
    }

    /// The rope at time node `j` for ParaView ([`crate::io::vtk::write_scene_series`]): one
    /// poly-line per element through the nodes, `d3` the unit tangent of the element after the
    /// node (`d1 = d2 = 0`: a rope has no frame), `s` the reference arc length.
    pub fn snapshot(&self, j: usize) -> crate::io::vtk::SceneSnapshot {
        let st = &self.solution;
        let ns = st.mesh.elements_s;
        let points: Vec<[f64; 3]> = (0..=ns).map(|i| st.x_at(i, j)).collect();
        let directors = (0..=ns)
            .map(|i| {
                let (a, b) = if i < ns { (i, i + 1) } else { (i - 1, i) };
                let d = [0, 1, 2].map(|c| points[b][c] - points[a][c]);
                let n = dot(d, d).sqrt().max(f64::MIN_POSITIVE);
                [[0.0; 3], [0.0; 3], d.map(|c| c / n)]
            })
            .collect();
        crate::io::vtk::SceneSnapshot {
            t: st.t[j],
            points,
            directors,
            s: st.s.clone(),
            cells: (0..ns).map(|i| (4u8, vec![i, i + 1])).collect(),
            part: vec![0; ns],
        }
    }

    /// Suspension position and velocity at any `t` by cubic Hermite interpolation of the nodal
    /// `x(0, t_j)`, `v(0, t_j)` (`C¹`; constant outside the domain): what a forward model
    /// replays.
    pub fn suspension_at(&self, t: f64) -> ([f64; 3], [f64; 3]) {
        let ts = &self.solution.t;
        let n = ts.len() - 1;
        if t <= ts[0] {
            return (self.suspension(0), [0.0; 3]);
        }
        if t >= ts[n] {
            return (self.suspension(n), self.suspension_velocity(n));
        }
        let h = self.solution.mesh.ht();
        let k = (((t - ts[0]) / h).floor() as usize).min(n - 1);
        let u = (t - ts[k]) / h;
        let (x0, x1) = (self.suspension(k), self.suspension(k + 1));
        let (v0, v1) = (self.suspension_velocity(k), self.suspension_velocity(k + 1));
        let (h00, h10, h01, h11) = (
            2.0 * u * u * u - 3.0 * u * u + 1.0,
            u * u * u - 2.0 * u * u + u,
            -2.0 * u * u * u + 3.0 * u * u,
            u * u * u - u * u,
        );
        let (d00, d10, d01, d11) = (
            (6.0 * u * u - 6.0 * u) / h,
            3.0 * u * u - 4.0 * u + 1.0,
            (-6.0 * u * u + 6.0 * u) / h,
            3.0 * u * u - 2.0 * u,
        );
        (
            [0, 1, 2].map(|c| h00 * x0[c] + h10 * h * v0[c] + h01 * x1[c] + h11 * h * v1[c]),
            [0, 1, 2].map(|c| d00 * x0[c] + d10 * v0[c] + d01 * x1[c] + d11 * v1[c]),
        )
    }
}

/// The rigid-rope start on `mesh` (module docs).
fn rigid_start(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
) -> SpaceTimeSolution<StringModel> {
    let (ns, nt) = (mesh.elements_s, mesh.elements_t);
    let hs = model.length / ns as f64;
    let ht = mesh.ht();
    let weight_line = |t: f64, s: f64| -> [f64; 3] {
        let (y, a) = (path.pose(t), path.acceleration(t));
        let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
        let n = dot(rel, rel).sqrt();
        let l = model.length - s;
        // ∫_s^L ν ds' with N = |ÿ − g| (m + ρA (L − s'))
        let len = l + n * (model.payload_mass * l + 0.5 * model.rho_a * l * l) / model.ea;
        [0, 1, 2].map(|c| y[c] + len * rel[c] / n)
    };
    let mut x = Vec::with_capacity((ns + 1) * (nt + 1));
    let mut v = Vec::with_capacity((ns + 1) * (nt + 1));
    let mut actuation = Vec::with_capacity(nt + 1);
    let x0 = model.hanging_nodes(ns);
    let dt = 1e-6 * (1.0 + mesh.t_end.abs());
    for j in 0..=nt {
        let t = mesh.t_start + j as f64 * ht;
        for i in 0..=ns {
            if j == 0 {
                x.push(x0[i]);
                v.push([0.0; 3]);
                continue;
            }
            let s = i as f64 * hs;
            x.push(weight_line(t, s));
            let (p, m) = (weight_line(t + dt, s), weight_line(t - dt, s));
            v.push([0, 1, 2].map(|c| (p[c] - m[c]) / (2.0 * dt)));
        }
        let a = path.acceleration(t);
        let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
        let total = model.payload_mass + model.rho_a * model.length;
        actuation.push(rel.map(|c| total * c));
    }
    SpaceTimeSolution {
        beam: *model,
        mesh: *mesh,
        s: (0..=ns).map(|i| i as f64 * hs).collect(),
        t: (0..=nt).map(|j| mesh.t_start + j as f64 * ht).collect(),
        x,
        v,
        actuation,
        newton: Default::default(),
    }
}

/// The Newton tolerance of [`solve_crane`] (largest residual entry, N·s or m·s): `relative`
/// times the weight impulse of one time step, `(m + ρA L)|g| ht`, but not below the
/// floating-point floor of the residual, `64 ε ‖|J||x|‖ ≈ 64 ε EA ht X / hs` (`X` the largest
/// coordinate: the axial stiffness rows of a stiff rope cannot be evaluated more accurately).
pub fn newton_tolerance(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    relative: f64,
) -> f64 {
    let ht = mesh.ht();
    let hs = model.length / mesh.elements_s as f64;
    let x_max = sample_times(mesh.t_start, mesh.t_end, 1)
        .step_by(40)
        .map(|t| path.pose(t).iter().fold(0.0f64, |m, c| m.max(c.abs())))
        .fold(0.0f64, f64::max)
        + model.length;
    let weight = model.g() * (model.payload_mass + model.rho_a * model.length) * ht;
    (relative * weight).max(64.0 * f64::EPSILON * model.ea * ht * x_max / hs)
}

/// Solves the crane's inverse problem by the space-time FEM (module docs). `model.payload_start`
/// is taken from the path at `mesh.t_start`. The Newton tolerance is relative
/// ([`newton_tolerance`] with `settings.tolerance`).
pub fn solve_crane(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    settings: &NewtonSettings,
) -> Result<CraneSolution, CraneError> {
    let mut model = *model;
    model.payload_start = path.pose(mesh.t_start);
    model.validate("rope")?;
    validate_mesh(mesh)?;
    check_time_domain(&model, path, mesh.t_start, mesh.t_end)?;
    check_resolution(path, mesh)?;
    let report = check_payload_path(&model, path, mesh.t_start, mesh.t_end, mesh.elements_t)?;
    let c = slowest_speed(&model, &report);
    let courant = mesh_ratio::check_speed(
        c,
        "transverse wave speed sqrt(N/(ν ρA)) at the payload under its smallest tension",
        model.length,
        mesh.t_end - mesh.t_start,
        mesh.elements_s,
        mesh.elements_t,
    )?;
    let solution = solve_nested(&model, mesh, path, settings)?;
    // taut everywhere?
    let hs = model.length / mesh.elements_s as f64;
    let mut min = (f64::INFINITY, 0, 0.0);
    for j in 0..solution.t.len() {
        for e in 0..mesh.elements_s {
            let (a, b) = (solution.x_at(e, j), solution.x_at(e + 1, j));
            let d = [0, 1, 2].map(|c| (b[c] - a[c]) / hs);
            let nu = dot(d, d).sqrt();
            if nu < min.0 {
                min = (nu, e, solution.t[j]);
            }
        }
    }
    if min.0 <= 1.0 {
        return Err(CraneError::SlackSolution {
            nu: min.0,
            element: min.1,
            t: min.2,
        });
    }
    Ok(CraneSolution {
        solution,
        path: report,
        courant,
        min_stretch: min.0,
    })
}

/// Coarsening of the nested start: Newton on the mesh coarsened this many times in `s` and
/// `t` (the same sideways Courant number) from the rigid rope, then on `mesh` from that
/// solution (cubic interpolation, [`SpaceTimeSolution::field_at_cubic`]).
pub const START_COARSENING: usize = 4;

/// Newton from the rigid-rope start, nested through the coarse mesh where it has at least 4
/// elements each way. `settings.tolerance` is relative ([`newton_tolerance`]).
fn solve_nested(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution<StringModel>, CraneError> {
    let k = START_COARSENING;
    // ⌈n_s/k⌉ and ⌊n_t/k⌋: the coarse sideways Courant number is at most the fine one
    let coarse = (mesh.elements_s >= 4 * k && mesh.elements_t >= 4 * k).then(|| SpaceTimeMesh {
        elements_s: mesh.elements_s.div_ceil(k),
        elements_t: mesh.elements_t / k,
        ..*mesh
    });
    let started = std::time::Instant::now();
    let (start, how) = match coarse {
        Some(c) => {
            let mut s = *settings;
            s.tolerance = newton_tolerance(model, &c, path, settings.tolerance);
            let rigid = rigid_start(model, &c, path);
            match solve_inverse_started(model, &c, path, &s, Some(rigid)) {
                Ok(sol) => (sol, NewtonStart::Nested),
                // the coarse mesh may fail where the fine one does not: start from the rope
                Err(_) => (rigid_start(model, mesh, path), NewtonStart::Rigid),
            }
        }
        None => (rigid_start(model, mesh, path), NewtonStart::Rigid),
    };
    let start_seconds = started.elapsed().as_secs_f64();
    let mut s = *settings;
    s.tolerance = newton_tolerance(model, mesh, path, settings.tolerance);
    let mut solution = solve_inverse_started(model, mesh, path, &s, Some(start))?;
    solution.newton.start = how;
    solution.newton.start_seconds = start_seconds;
    Ok(solution)
}

/// What [`closed_loop`] measured.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CraneTracking {
    /// Largest `|r(L, t) − y(t)|` of the forward replay (m).
    pub max_deviation: f64,
    /// When (s).
    pub at: f64,
    /// Forward elements along the rope.
    pub elements_s: usize,
    /// Forward time step (s).
    pub dt: f64,
    /// Largest payload travel from its start, for scale (m).
    pub travel: f64,
}

/// The forward discretisation that replays a crane solution ([`closed_loop_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replay {
    /// Linear elements, midpoint discrete gradient ([`StringStepper`]): independent of the
    /// inverse's element in time and in its stress quadrature.
    #[default]
    DiscreteGradient,
    /// The space-time slab march ([`SpaceTimeString`]): the inverse's element and point law,
    /// tested with functions constant on a slab (the inverse tests with hats in time, so the
    /// two differ by the discretisation error, [`crate::string::space_time`]).
    SpaceTime,
}

/// [`closed_loop_with`] the discrete-gradient replay.
pub fn closed_loop(
    sol: &CraneSolution,
    path: &dyn TipTrajectory,
    refine: usize,
) -> Result<(CraneTracking, Vec<[f64; 3]>), CraneError> {
    closed_loop_with(sol, path, refine, Replay::DiscreteGradient)
}

/// Replays the suspension motion of `sol` ([`CraneSolution::suspension_at`]) in a forward
/// string model (`replay`, tension-only law) on `refine × n_s` elements with the step
/// `ht / refine`, and measures the payload's deviation from the path at every step. Also
/// returns the replayed payload at the inverse mesh's time nodes.
pub fn closed_loop_with(
    sol: &CraneSolution,
    path: &dyn TipTrajectory,
    refine: usize,
    replay: Replay,
) -> Result<(CraneTracking, Vec<[f64; 3]>), CraneError> {
    let mesh = sol.solution.mesh;
    let model = sol.solution.beam;
    let refine = refine.max(1);
    let ns = mesh.elements_s * refine;
    let steps = mesh.elements_t * refine;
    let dt = mesh.ht() / refine as f64;
    let susp = |t: f64| sol.suspension_at(t);
    // one step to the time t, returning the payload there
    let mut advance: Box<dyn FnMut(f64) -> Result<[f64; 3], StringStepError> + '_> = match replay {
        Replay::DiscreteGradient => {
            let mut st = StringStepper::hanging(model, ns, mesh.t_start, &susp);
            Box::new(move |t| {
                st.step(dt)?;
                st.t = t;
                Ok(st.payload())
            })
        }
        Replay::SpaceTime => {
            let mut st = SpaceTimeString::hanging(
                model,
                ns,
                dt,
                mesh.t_start,
                Actuation::Suspension(&susp),
                Compression::Slack,
            )?;
            Box::new(move |t| {
                st.step()?;
                st.t = t;
                Ok(st.payload())
            })
        }
    };
    let y0 = path.pose(mesh.t_start);
    let mut samples = Vec::with_capacity(mesh.elements_t + 1);
    samples.push(model.hanging_nodes(ns)[ns]);
    let mut out = CraneTracking {
        max_deviation: 0.0,
        at: mesh.t_start,
        elements_s: ns,
        dt,
        travel: 0.0,
    };
    for k in 1..=steps {
        let t = mesh.t_start + k as f64 * dt;
        let (p, y) = (advance(t)?, path.pose(t));
        if k % refine == 0 {
            samples.push(p);
        }
        let d = [0, 1, 2].map(|c| p[c] - y[c]);
        let dev = dot(d, d).sqrt();
        if dev > out.max_deviation {
            out.max_deviation = dev;
            out.at = t;
        }
        let tr = [0, 1, 2].map(|c| y[c] - y0[c]);
        out.travel = out.travel.max(dot(tr, tr).sqrt());
    }
    Ok((out, samples))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};

    /// Which transverse speed binds the sideways condition on a rope whose tension varies
    /// along it (heavy rope: 9.80 m/s at the payload, 14.0 m/s at the top)? A mesh with
    /// `μ = 2.5` at the payload (`1.75` at the top: the lower 56 % of the rope violates the
    /// local condition) amplifies the spurious three-step wave by `|z| ≈ 2` per violating
    /// element: invisible on 32 elements (18 violating, ~10⁵ × round-off), ruinous on 128 (72
    /// violating). Only the slowest speed bounds the growth on every mesh.
    #[test]
    fn the_slowest_transverse_wave_binds_the_mesh_ratio() {
        let model = StringModel {
            length: 10.0,
            rho_a: 2.0,
            ea: 1.0e6,
            payload_mass: 20.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0; 3],
        };
        let path = RestToRestLine {
            start: [0.0; 3],
            delta: [8.0, 4.0, 2.0],
            profile: RestToRestProfile {
                t0: 2.0,
                duration: 8.0,
            },
        };
        let rep = check_payload_path(&model, &path, 0.0, 12.0, 1).unwrap();
        let c_min = slowest_speed(&model, &rep);
        let c_top = model.transverse_speed(model.static_tension(0.0));
        let solve = |ns: usize, mu: f64| {
            let hs = model.length / ns as f64;
            let nt = (12.0 * c_min * mu / hs).round() as usize;
            let mesh = SpaceTimeMesh {
                t_start: 0.0,
                t_end: 12.0,
                elements_s: ns,
                elements_t: nt,
            };
            let s = NewtonSettings {
                tolerance: newton_tolerance(&model, &mesh, &path, 1e-10),
                max_iterations: 12,
                ..Default::default()
            };
            let mut m = model;
            m.payload_start = path.pose(0.0);
            let start = rigid_start(&m, &mesh, &path);
            (
                mesh,
                solve_inverse_started(&m, &mesh, &path, &s, Some(start)),
            )
        };
        let reference = solve(32, 1.0).1.unwrap();
        let mut out = Vec::new();
        for (ns, mu_payload) in [(32, 1.9), (32, 2.5), (128, 1.9), (128, 2.5)] {
            let (mesh, r) = solve(ns, mu_payload);
            let hs = model.length / ns as f64;
            let mu_top = hs / (c_top * mesh.ht());
            let err = match r {
                Ok(sol) => (0..sol.t.len())
                    .map(|j| {
                        let x = sol.x_at(0, j);
                        let (xr, _) = reference.field_at_cubic(0.0, sol.t[j]);
                        (0..3).map(|c| (x[c] - xr[c]).powi(2)).sum::<f64>().sqrt()
                    })
                    .fold(0.0f64, f64::max),
                Err(_) => f64::INFINITY,
            };
            println!(
                "{ns} elements, μ at the payload {:.2}, at the top {mu_top:.2}: max |x − x_ref| \
                 = {err:.3e} m",
                hs / (c_min * mesh.ht())
            );
            out.push((mu_top, err));
        }
        assert!(out[1].0 < 2.0 && out[3].0 < 2.0);
        // within the condition: the discretisation error of the 32-element reference
        assert!(out[0].1 < 1e-3 && out[2].1 < 1e-3, "{out:?}");
        // beyond it at the payload only: fine on 32 elements, not on 128
        assert!(out[3].1 > 100.0 * out[2].1, "{out:?}");
    }
}
