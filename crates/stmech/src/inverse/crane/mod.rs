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
//!   ([`StringModel::travel_time`](crate::string::StringModel::travel_time)), before and
//!   after the payload moves.
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
//!
//! # Files
//! * `mod.rs`: the error type;
//! * `checks`: the checks before solving and the automatic mesh;
//! * `solve`: the rigid-rope start, the nested Newton solve, the solution and its interpolants;
//! * `replay`: the closed loop, the computed suspension motion replayed in a forward model.

mod checks;
mod replay;
mod solve;

pub use checks::{
    PathReport, auto_mesh, check_payload_path, check_resolution, check_time_domain, slowest_speed,
};
pub use replay::{CraneTracking, Replay, closed_loop, closed_loop_with};
pub use solve::{CraneSolution, START_COARSENING, newton_tolerance, rigid_suspension, solve_crane};

use super::mesh_ratio::MeshRatioError;
use super::solver::InverseError;
use crate::error::InputError;
use crate::string::dynamics::StringStepError;

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

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::solve::rigid_start;
    use super::*;
    use crate::inverse::solver::{NewtonSettings, SpaceTimeMesh, solve_inverse_started};
    use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile, TipTrajectory};
    use crate::string::StringModel;

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
