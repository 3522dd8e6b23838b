//! Crane inverse dynamics (issue 17): given the payload path `y(t) ∈ R³` at the end `s = L` of a
//! geometrically exact string ([`crate::string`]), find the suspension-point motion `x(0, t)`
//! and the force it exerts, by either of the planar beam's two inverse methods
//! ([`solve_crane_with`], [`InverseMethod`]):
//!
//! * [`fem`]: the space-time finite element method ([`super::solver`]: bilinear space-time
//!   elements, servo constraint `r(L, t) = y(t)`, streamed sideways elimination) with the
//!   string's [`InverseBody`](super::body::InverseBody), [`solve_crane`] (the default);
//! * [`characteristics`]: the method of characteristics, the sideways march of
//!   [`super::characteristics_solver`] from the payload to the suspension point with the
//!   string's [`CharacteristicBody`](super::characteristics_body::CharacteristicBody),
//!   [`solve_crane_characteristics`];
//! * [`closed_loop`]: the computed suspension motion replayed in the forward rope model.
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
//! * FEM only, the mesh ratio ([`check_mesh_ratio`]): `μ_e = hs/(c_e ht) ≤ 2` in every element, with the
//!   transverse speed `c_e = sqrt(N_e/(ν ρA))` of a quasi-static lower bound of the element's
//!   tension, `N_e = a_min (m + ρA (L − s_e))` at its midpoint `s_e`, `a_min = min_t |ÿ − g|`
//!   known from the path before solving. The condition is the beam's von Neumann analysis
//!   applied wave by wave; the tension grows up the rope, so the last element, where the
//!   waves are slowest, binds: `c_min = c(a_min (m + ρA hs/2))`. With a payload that is the
//!   payload's speed up to `O(ρA hs/m)`; without one (`m = 0`, a heavy chain with a free end,
//!   where the tension vanishes) `c_min = sqrt(a_min hs/2)` (for `ν ≈ 1`), so
//!   `μ = sqrt(2 hs/a_min)/ht ≤ 2` ⇔ `ht ≥ sqrt(hs/(2 a_min))`: the time step may fall only
//!   with the square root of the space step. A larger speed only relaxes the bound
//!   `ht ≥ hs/(2c)`.
//!
//!   The method of characteristics has no such condition (semi-Lagrangian, see
//!   [`characteristics`]); it needs at least 3 time elements
//!   ([`super::characteristics_solver::check_mesh`]).
//!
//! # Start and result
//! Newton starts from the rigid-rope solution ([`rigid_suspension`]): the rope straight from
//! the payload along `(ÿ − g)/|ÿ − g|`, stretched by the quasi-static tension. A nearly
//! inextensible rope (a steel wire rope: strain `10⁻⁷ … 10⁻⁶` under its weight) tolerates no
//! angle error `δθ` of its elements beyond `δθ² ≈ 2 (ν − 1)`: a transverse correction of
//! Newton lengthens the element by `hs δθ²/2`, and its tension by `EA δθ²/2`, far beyond the
//! tension itself. Where Newton fails from that start, the FEM continues in the axial
//! stiffness ([`fem`], docs/theory.md "Stiffness continuation of the crane"): the rope
//! softened by 10 at a time until Newton converges from the rigid rope, then stiffened back
//! (×10 per step, each solve started from the secant predictor in `1/EA`), every solve through
//! the one Newton driver; the result is the given rope's, converged to the tolerance. The solution of
//! either method is checked to be taut (`ν > 1` in every element at every time node), where
//! the linear continuation used by the FEM's iterates is the physical tension-only law.

pub mod characteristics;
pub mod closed_loop;
pub mod fem;

pub use characteristics::{solve_crane_characteristics, speed_ratio};
pub use closed_loop::{CraneTracking, Replay, closed_loop, closed_loop_with};
pub use fem::{
    CONTINUATION_FACTOR, CONTINUATION_MAX_STRAIN, Continuation, START_COARSENING, solve_crane,
};

mod checks;
#[cfg(test)]
mod tests;

use checks::dot;
pub use checks::{
    PathReport, SLOWEST_WAVE, auto_elements_t, auto_mesh, check_mesh_ratio, check_payload_path,
    check_resolution, check_time_domain, element_speed, quasi_static_speed, slowest_element_speed,
    slowest_speed,
};

use super::characteristics_solver::{CharacteristicsSettings, MarchReport};
use super::mesh_ratio::MeshRatioError;
use super::methods::InverseMethod;
use super::solver::{InverseError, NewtonSettings, SpaceTimeMesh, SpaceTimeSolution};
use super::trajectory::TipTrajectory;
use crate::error::InputError;
use crate::string::dynamics::StringStepError;
use crate::string::{StringModel, stretch_minus_one};

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
    /// The closed-loop replay ([`closed_loop`]) failed: its own step did not converge, or an
    /// element collapsed. With the payload within the tolerance up to there, a check of the
    /// result that could not be done, not a result off its path.
    #[error(
        "{source} (the forward replay of the suspension motion; the payload had stayed within \
         {deviation:.3e} m of its path up to t = {t:.4} s)"
    )]
    Replay {
        /// The failed step.
        source: StringStepError,
        /// End of the last completed step (s).
        t: f64,
        /// Largest payload deviation from the path up to there (m).
        deviation: f64,
    },
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
    /// How it was solved.
    pub method: InverseMethod,
    /// March statistics of the method of characteristics (`None` for the FEM).
    pub march: Option<MarchReport>,
    /// The FEM's Newton solves with the stiffness continuation ([`Continuation`];
    /// `None` for the method of characteristics).
    pub continuation: Option<Continuation>,
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

/// The checks every method makes before solving (module docs): the rope data, the payload at
/// rest at `t_start` with room for the pre- and post-actuation, the motion resolved by the
/// time mesh, no slack rope along the path; `check_mesh` is the method's own check of the
/// time domain and the mesh counts, made right after the rope data. Returns the model with
/// `payload_start` from the path and the path report.
fn prepare(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    check_mesh: impl FnOnce() -> Result<(), InverseError>,
) -> Result<(StringModel, PathReport), CraneError> {
    let mut model = *model;
    model.payload_start = path.pose(mesh.t_start);
    model.validate("rope")?;
    check_mesh()?;
    check_time_domain(&model, path, mesh.t_start, mesh.t_end)?;
    check_resolution(path, mesh)?;
    let report = check_payload_path(&model, path, mesh.t_start, mesh.t_end, mesh.elements_t)?;
    Ok((model, report))
}

/// Smallest element stretch `|x_{e+1} − x_e|/hs` over the grid, its element and time, and its
/// strain `ν − 1` without cancellation ([`stretch_minus_one`]: a nearly inextensible rope is
/// taut by 10⁻⁷).
fn min_stretch(solution: &SpaceTimeSolution<StringModel>) -> (f64, usize, f64, f64) {
    let mesh = solution.mesh;
    let hs = solution.beam.length / mesh.elements_s as f64;
    let mut min = (f64::INFINITY, 0, 0.0, f64::INFINITY);
    for j in 0..solution.t.len() {
        for e in 0..mesh.elements_s {
            let (a, b) = (solution.x_at(e, j), solution.x_at(e + 1, j));
            let d = [0, 1, 2].map(|c| (b[c] - a[c]) / hs);
            let strain = stretch_minus_one(d);
            // (a NaN strain is taken: it fails the check below)
            if !matches!(
                strain.partial_cmp(&min.3),
                Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
            ) {
                min = (dot(d, d).sqrt(), e, solution.t[j], strain);
            }
        }
    }
    min
}

/// The solution, once checked to be taut everywhere (module docs).
fn finish(
    solution: SpaceTimeSolution<StringModel>,
    path: PathReport,
    courant: f64,
    method: InverseMethod,
    march: Option<MarchReport>,
) -> Result<CraneSolution, CraneError> {
    let min = min_stretch(&solution);
    if min.3.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(CraneError::SlackSolution {
            nu: min.0,
            element: min.1,
            t: min.2,
        });
    }
    Ok(CraneSolution {
        solution,
        path,
        courant,
        min_stretch: min.0,
        method,
        march,
        continuation: None,
    })
}

/// Solves the crane's inverse problem with `method`: [`solve_crane`] (space-time FEM, with
/// `newton`) or [`solve_crane_characteristics`] (default settings).
pub fn solve_crane_with(
    method: InverseMethod,
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    newton: &NewtonSettings,
) -> Result<CraneSolution, CraneError> {
    match method {
        InverseMethod::SpaceTime => solve_crane(model, mesh, path, newton),
        InverseMethod::Characteristics => {
            solve_crane_characteristics(model, mesh, path, &CharacteristicsSettings::default())
        }
    }
}
