//! Closed-loop verification of an inverse solution: the computed actuation (force and moment
//! applied to the beam at `s = 0`, as a piecewise linear time table) drives the *independent*
//! forward beam model ([`crate::beam`]: semi-discrete finite elements in space, energy-momentum
//! stepper with the Cayley increment in time) on a finer discretisation, and the tip of that
//! forward run is compared with the prescribed path `γ(t)` at every step.
//!
//! This is the figure a user means by "tracking error": how far the tip is from the path when
//! the actuation is applied. The servo residual at the inverse mesh's nodes (`x(L, t_j) − γ(t_j)`)
//! is something else: it is zero by construction for the method of characteristics and tiny for
//! the space-time FEM, whatever the discretisation error of the actuation.
//!
//! # Forward discretisation ([`ForwardDiscretisation::auto`])
//! `n_s` quadratic elements (node spacing `L/(2 n_s)`, half the inverse mesh's) and the time
//! step `Δt = L / (8 n_s c_max)` (`c_max`: fastest wave of `[I]` Eq. 30 at the reference state;
//! a quarter of a node spacing per step; never coarser than the inverse time step). Both
//! discretisations are second order. The time step dominates the forward model's own error:
//! on `[I]` Example 3.2 it changes the figure by 2 % against the 32 quadratic elements with
//! Δt = 4 ms of the verification tables (8 % with twice this step). Cost `O(n_s²)`, like the
//! inverse solve, but about 20× the streamed space-time solve (1.0 s of CPU at 64 × 384:
//! `docs/verification.md` §11b; the stepper's finite-difference tangent dominates). Newton
//! has the default settings ([`NewtonParams::default`]: relative tolerance `1e-10`, the same
//! stop as every beam step, independent of the units and of the size of the actuation); a
//! step that fails is a failure of the replay ([`Stage::Replay`]), not of the inverse result.

use super::solver::{BeamModel, SpaceTimeMesh, TipLaw};
use super::trajectory::TipTrajectory;
use crate::beam::dynamics::EnergyMomentumStepper;
use crate::beam::model::{BeamModel as ForwardBeam, PointLoad};
use crate::error::{InputError, SolveError};
use crate::model::TimeFunction;
use crate::solve::NewtonParams;
use crate::solve::newton::Stage;
use std::time::Instant;

/// Forward discretisation of the closed loop.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ForwardDiscretisation {
    /// Beam elements.
    pub elements: usize,
    /// Element order (1 or 2).
    pub order: usize,
    /// Time step (s).
    pub dt: f64,
}

impl ForwardDiscretisation {
    /// `n_s` quadratic elements, `Δt = L / (8 n_s c_max)` (see the module documentation).
    pub fn auto(beam: &BeamModel, mesh: &SpaceTimeMesh) -> Self {
        let elements = mesh.elements_s.max(1);
        let c_max = beam
            .law
            .wave_speeds(&beam.section, 1.0)
            .into_iter()
            .fold(0.0f64, f64::max);
        let spacing = beam.length / (8 * elements) as f64;
        let mut dt = spacing / c_max;
        if !(dt.is_finite() && dt > 0.0) {
            dt = mesh.ht() / 4.0;
        }
        // never coarser than the inverse time step
        dt = dt.min(mesh.ht());
        Self {
            elements,
            order: 2,
            dt,
        }
    }

    /// Number of time steps over `[t_start, t_end]`.
    pub fn steps(&self, t_start: f64, t_end: f64) -> usize {
        ((t_end - t_start) / self.dt).ceil() as usize
    }
}

/// How far the forward tip may stray from the path before the result counts as failed.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TrackingTolerance {
    /// Position (m).
    pub position_m: f64,
    /// Angle (rad).
    pub angle_rad: f64,
}

/// Default relative position tolerance: 5 % of the tip's travel.
pub const DEFAULT_POSITION_FRACTION: f64 = 0.05;
/// Default angle tolerance (rad): 0.05 rad ≈ 2.9°.
pub const DEFAULT_ANGLE_RAD: f64 = 0.05;

/// Largest distance of the prescribed tip position from its start over `[t_start, t_end]`
/// (sampled at 2001 points), m.
pub fn tip_travel(trajectory: &dyn TipTrajectory, t_start: f64, t_end: f64) -> f64 {
    let p0 = trajectory.pose(t_start);
    (0..=2000).fold(0.0f64, |m, k| {
        let t = t_start + (t_end - t_start) * k as f64 / 2000.0;
        let p = trajectory.pose(t);
        m.max((p[0] - p0[0]).hypot(p[1] - p0[1]))
    })
}

impl TrackingTolerance {
    /// `fraction` × the tip's travel (at least `fraction` × 1 % of the beam length, for paths
    /// that barely move the tip) and `angle_rad`.
    pub fn relative(
        beam: &BeamModel,
        trajectory: &dyn TipTrajectory,
        t_start: f64,
        t_end: f64,
        fraction: f64,
        angle_rad: f64,
    ) -> Self {
        let travel = tip_travel(trajectory, t_start, t_end).max(0.01 * beam.length);
        Self {
            position_m: fraction * travel,
            angle_rad,
        }
    }
}

/// Result of a closed-loop run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClosedLoopReport {
    /// Largest `|r_tip(t) − γ_r(t)|` over the forward steps (m).
    pub max_position_error_m: f64,
    /// Time of that largest position error (s).
    pub max_position_error_time_s: f64,
    /// Largest `|θ_tip(t) − γ_θ(t)|` (rad).
    pub max_angle_error_rad: f64,
    /// Time of that largest angle error (s).
    pub max_angle_error_time_s: f64,
    /// The forward discretisation used.
    pub forward_mesh: ForwardDiscretisation,
    /// Steps taken.
    pub steps: usize,
    /// Wall time (s).
    pub seconds: f64,
}

impl ClosedLoopReport {
    /// Whether both deviations are within `tol`.
    pub fn within(&self, tol: &TrackingTolerance) -> bool {
        self.max_position_error_m <= tol.position_m && self.max_angle_error_rad <= tol.angle_rad
    }
}

/// Why the closed loop could not be evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClosedLoopError {
    /// The forward beam model has no tip mass.
    #[error(
        "the forward beam model has no tip mass: closed-loop verification is not available for beam.tip"
    )]
    TipMass,
    /// The actuation is not finite.
    #[error("the actuation is not finite at t = {time} s")]
    NonFiniteActuation {
        /// First time with a non-finite component.
        time: f64,
    },
    /// No actuation samples.
    #[error("no actuation samples")]
    Empty,
    /// Bad forward model data.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The forward run failed: the actuation drives the beam somewhere it cannot follow.
    #[error(
        "the forward beam driven by the actuation cannot be followed past t = {time:.4} s \
         ({reason}); largest tip deviation until then {position:.3e} m, {angle:.3e} rad"
    )]
    Forward {
        /// The stepper's message without its remedy (which concerns the forward steps, not
        /// the user's input).
        reason: String,
        /// Time reached.
        time: f64,
        /// Position deviation until then (m).
        position: f64,
        /// Angle deviation until then (rad).
        angle: f64,
        /// The stepper's error.
        source: Box<SolveError>,
    },
}

/// Drives the forward beam (at rest in `beam`'s placement at `t_start`) with the actuation
/// `samples` (`(t_j, F_j)`, piecewise linear between them, constant outside) until `t_end` on
/// `disc`, and returns the largest tip deviation from `trajectory`.
pub fn closed_loop(
    beam: &BeamModel,
    trajectory: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
    samples: &[(f64, [f64; 3])],
    disc: &ForwardDiscretisation,
) -> Result<ClosedLoopReport, ClosedLoopError> {
    let started = Instant::now();
    if let TipLaw::Mass { mass, inertia } = beam.tip
        && (mass > 0.0 || inertia > 0.0)
    {
        return Err(ClosedLoopError::TipMass);
    }
    if samples.is_empty() {
        return Err(ClosedLoopError::Empty);
    }
    if let Some(s) = samples.iter().find(|s| !s.1.iter().all(|v| v.is_finite())) {
        return Err(ClosedLoopError::NonFiniteActuation { time: s.0 });
    }
    let times: Vec<f64> = samples.iter().map(|s| s.0).collect();
    // the actuation is the load applied *to the beam* at s = 0 (global frame), as is a
    // PointLoad of the forward model: one load per component, each scaled by its time table
    let table = |k: usize| TimeFunction::Table {
        times: times.clone(),
        values: samples.iter().map(|s| s.1[k]).collect(),
    };
    let mut spec = beam.forward_spec(disc.elements, disc.order);
    for (k, (force, moment)) in [([1.0, 0.0], 0.0), ([0.0, 1.0], 0.0), ([0.0, 0.0], 1.0)]
        .into_iter()
        .enumerate()
    {
        spec.point_loads.push(PointLoad {
            node: 0,
            force,
            moment,
            time_function: table(k),
        });
    }
    let model = ForwardBeam::try_new_with_prefix(spec, "closed_loop.forward")?;
    let tip = model.tip_node();
    // the one Newton stop, relative to the forces of every step: the default settings
    let newton = NewtonParams::default();
    let v0 = vec![0.0; model.n_dofs()];
    let mut stepper =
        EnergyMomentumStepper::new(&model, &model.x_ref, &v0, t_start, disc.dt, newton)
            .map_err(|source| ClosedLoopError::Forward {
                time: t_start,
                position: 0.0,
                angle: 0.0,
                reason: reason(&source),
                source: Box::new(source),
            })?
            .with_stage(Stage::Replay)
            // (a replay compares trajectories: chord steps on an earlier step's matrix)
            .with_factorization_across_steps();
    let mut worst = [0.0f64; 2];
    let mut when = [t_start; 2];
    let mut steps = 0usize;
    let run = stepper.run_until(t_end, |s| {
        steps += 1;
        let x = s.node(tip);
        let g = trajectory.pose(s.time());
        let d = [(x[0] - g[0]).hypot(x[1] - g[1]), (x[2] - g[2]).abs()];
        for k in 0..2 {
            // a NaN deviation counts as the worst
            let dk = if d[k].is_nan() { f64::INFINITY } else { d[k] };
            if dk > worst[k] {
                worst[k] = dk;
                when[k] = s.time();
            }
        }
    });
    if let Err(source) = run {
        return Err(ClosedLoopError::Forward {
            time: stepper.time(),
            position: worst[0],
            angle: worst[1],
            reason: reason(&source),
            source: Box::new(source),
        });
    }
    Ok(ClosedLoopReport {
        max_position_error_m: worst[0],
        max_position_error_time_s: when[0],
        max_angle_error_rad: worst[1],
        max_angle_error_time_s: when[1],
        forward_mesh: *disc,
        steps,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The stepper's message up to its remedy.
fn reason(e: &SolveError) -> String {
    let text = e.to_string();
    match text.find(" Remedy:") {
        Some(k) => text[..k].trim_end_matches('.').to_owned(),
        None => text,
    }
}
