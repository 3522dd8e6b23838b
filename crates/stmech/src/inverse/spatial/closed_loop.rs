//! Closed-loop verification of a spatial actuation: the force and moment (or the base motion)
//! computed for `s = 0` drive the one model's forward spatial beam — the director beam of
//! [`crate::model::director_beam`] with the tip body welded to its end, solved in time by the
//! space-time Petrov–Galerkin method ([`crate::solve::scheme::simulate`]) — on a finer,
//! *different* discretisation, and the pose of the beam's tip node is compared with the
//! prescribed path at every time node.
//!
//! This is the tracking error an engineer means: how far the tip strays from the path when
//! the actuation is applied to a model that the inverse solver never saw. The servo residual of
//! the inverse solution (its tip at its own nodes) is something else: zero or tiny by
//! construction, whatever the discretisation error of the actuation.
//!
//! # The forward model ([`closed_loop`])
//! * The beam: [`ForwardResolution::elements`] elements of order [`ForwardResolution::order`]
//!   on the straight stress-free reference of [`SpatialBeam`] (`φ(s) = base + s d3`, directors
//!   `frame` at every node), reduced integration, at rest at `t_start`.
//! * The tip body (if any): a [`RigidBody`] whose reference point is the beam's tip `φ(L)` with
//!   the rest directors `frame`, welded to the beam's end node by [`Rigid`] (twelve linear
//!   equations; the end node's orthonormality is dropped). A tip body with a singular mass
//!   matrix (a point mass, or a flat body, which [`SpatialBeam::validate`] allows but a free
//!   [`RigidBody`] may not have) is added to the end node's mass matrix instead: the weld makes
//!   the body's twelve coordinates equal to the node's, so the two models are the same
//!   (the unit tests compare them).
//! * The actuation ([`Replay`]): a force and moment on the first node (global dead loads:
//!   [`LoadKind::Force`] and [`LoadKind::Torque`], three components each, every component a
//!   piecewise-linear [`TimeFunction::Table`] of the samples; the time quadrature splits the
//!   time elements at the sample times, so the loads are integrated exactly), or a moving clamp
//!   of the first node ([`PrescribedFrame`]: its placement and directors follow the path).
//! * Time: cG([`ForwardResolution::time_order`]) with one-element blocks of at most
//!   [`ForwardResolution::step`] (the interval is divided into whole elements), Newton to the
//!   default relative tolerance 10⁻¹⁰ of the one Newton driver (`solve::newton`: relative
//!   to the terms of each equation group, accepted at the round-off floor of a stiff beam or
//!   of a base far from the origin).
//!
//! # Deviation
//! At every time node `t` of the forward run, with the tip node's `φ(L, t)`, `d_i(L, t)` and
//! the path's `r(t)`, `d_i^γ(t)`:
//!
//! ```text
//! e_r = |φ(L, t) − r(t)|,     e_θ = angle of R_tip R_γᵀ = Σ_i d_i ⊗ d_i^γ
//!     = atan2(½ |Σ_i d_i^γ × d_i|, ½ (Σ_i d_i · d_i^γ − 1))
//! ```
//!
//! (the `atan2` form is accurate for small and large angles alike). [`SpatialTracking`] holds
//! the maxima, when they occur and every sample.
//!
//! # Forward resolution ([`ForwardResolution::finer_than`])
//! Quadratic elements, as many as the inverse mesh has (twice its node density for linear
//! inverse elements), cG(2) in time with a step a quarter of the inverse's: both orders higher
//! than the inverse's bilinear element, so that the replay's own error is far below the
//! inverse's discretisation error. Measured (`tests/spatial_closed_loop.rs`, the issue's quarter
//! helix with a 90° twist, 1 m arm with a tip body of its own mass, base moved along the rigid
//! motion): against the converged replay, `finer_than(8, 1/16 s)` is off by 9e-8 and
//! `finer_than(16, 1/32 s)` by 1.1e-7, while a second-order discretisation at the inverse mesh
//! itself (linear elements, cG(1), step `ht`) is off by 5.7e-4 and 2.2e-4 (tip deviation from
//! the path: 6.8e-3 m). The replay converges at order 4 in space (quadratic elements) and
//! in time while the motion's own time scales dominate (then order 2, the stage order, at the
//! 1e-7 level of the unresolved axial and shear modes).
//!
//! # A free base (force replay)
//! Under [`Replay::Force`] nothing holds the arm: its spin about its own axis has the small
//! polar inertia of the section and the tip body and no stiffness against the ground, so any
//! error of the actuation accumulates there and shows after the motion as a slow rotation of
//! the tip frame about the beam's axis. The piecewise-linear interpolation of sampled forces
//! contributes `O(Δt²)` (the moment of the force about the moving centre of mass does not
//! average out), Newton's residual about 1e-6 of the deviation. Expect the orientation
//! deviation of a force replay to be dominated by this spin; the position deviation much less
//! so.

use crate::error::{InputError, SolveError};
use crate::inverse::spatial::SpatialBeam;
use crate::inverse::trajectory::pose::{PoseState, PoseTrajectory};
use crate::math::{Vec3, cross, dot};
use crate::model::director_beam::{BeamSpec, ConstantCurvature, Integration};
use crate::model::{
    Constraint, FrameMotion, FrameMotionState, JointBody, Load, LoadKind, MultibodySystem,
    PrescribedFrame, Rigid, RigidBody, TimeFunction,
};
use crate::solve::NewtonParams;
use crate::solve::scheme::{Formulation, Method, SpaceTimeParams, simulate};
use std::sync::Arc;
use std::time::Instant;

/// What the actuator does at `s = 0` in the replay.
#[derive(Clone, Debug)]
pub enum Replay {
    /// The force and moment the actuator applies *to the beam* at `s = 0` (global frame, N and
    /// N·m): nodal values at the strictly increasing times `t` (s), piecewise linear in between,
    /// constant beyond the last sample. The samples must cover `[t_start, t_end]`.
    Force {
        /// Sample times (s).
        t: Vec<f64>,
        /// Force at each time (N).
        force: Vec<Vec3>,
        /// Moment at each time (N·m).
        moment: Vec<Vec3>,
    },
    /// The base frame (`φ(0, t)` and the directors at `s = 0`) follows this pose path: a
    /// clamp that moves. It must start at the beam's rest base pose, at rest. Sampled base
    /// motions: [`crate::inverse::trajectory::pose_csv::PoseCsvTrajectory::from_samples`].
    Motion(Arc<dyn PoseTrajectory>),
}

/// The forward discretisation of the replay.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ForwardResolution {
    /// Beam elements.
    pub elements: usize,
    /// Element order in `s`: 1 or 2.
    pub order: usize,
    /// Largest time element (s); the interval is divided into `⌈(t_end − t_start)/step⌉`
    /// equal elements.
    pub step: f64,
    /// Order `p` of the cG(p) time elements (1 to [`MAX_TIME_ORDER`]).
    pub time_order: usize,
}

/// Largest accepted [`ForwardResolution::time_order`].
pub const MAX_TIME_ORDER: usize = 8;

/// Time steps of [`ForwardResolution::finer_than`] per inverse time step.
pub const STEP_DIVISOR: usize = 4;

impl ForwardResolution {
    /// A discretisation independent of, and finer than, an inverse mesh of
    /// `inverse_elements_s` elements along the beam and time step `inverse_ht` (s):
    /// `max(1, inverse_elements_s)` quadratic elements, cG(2) in time, step
    /// `inverse_ht / STEP_DIVISOR`. Different element, different time scheme, finer in both,
    /// and sample times of the inverse solution fall on time nodes. See the module docs.
    pub fn finer_than(inverse_elements_s: usize, inverse_ht: f64) -> Self {
        Self {
            elements: inverse_elements_s.max(1),
            order: 2,
            step: inverse_ht / STEP_DIVISOR as f64,
            time_order: 2,
        }
    }

    /// Number of time elements over `[t_start, t_end]`: `⌈(t_end − t_start)/step⌉` (a step
    /// that divides the interval up to round-off counts as dividing it).
    pub fn time_elements(&self, t_start: f64, t_end: f64) -> usize {
        let n = (t_end - t_start) / self.step;
        let r = n.round();
        if (n - r).abs() <= 1e-9 * n.max(1.0) {
            (r as usize).max(1)
        } else {
            (n.ceil() as usize).max(1)
        }
    }

    fn validate(&self) -> Result<(), ClosedLoopError> {
        if self.elements == 0 {
            return Err(invalid(
                "resolution.elements",
                "must be at least 1 beam element".into(),
            ));
        }
        if !(1..=2).contains(&self.order) {
            return Err(invalid(
                "resolution.order",
                format!(
                    "the director beam has elements of order 1 or 2, got {}",
                    self.order
                ),
            ));
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(invalid(
                "resolution.step",
                format!("must be finite and > 0 (s), got {}", self.step),
            ));
        }
        if !(1..=MAX_TIME_ORDER).contains(&self.time_order) {
            return Err(invalid(
                "resolution.time_order",
                format!(
                    "must be between 1 and {MAX_TIME_ORDER}, got {}",
                    self.time_order
                ),
            ));
        }
        Ok(())
    }
}

/// The tip's pose at one time node of the replay.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TipSample {
    /// Time (s).
    pub t: f64,
    /// Tip position `φ(L, t)` (m).
    pub position: Vec3,
    /// Tip directors `d_i(L, t)`.
    pub directors: [Vec3; 3],
    /// `|φ(L, t) − r(t)|` (m).
    pub position_error: f64,
    /// Rotation angle of `R_tip R_γᵀ` (rad).
    pub angle_error: f64,
}

/// What [`closed_loop`] measured.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SpatialTracking {
    /// Largest position deviation of the tip from the path (m).
    pub max_position: f64,
    /// When (s).
    pub position_at: f64,
    /// Largest rotation angle between the tip frame and the path's frame (rad).
    pub max_angle: f64,
    /// When (s).
    pub angle_at: f64,
    /// The tip at every time node.
    pub samples: Vec<TipSample>,
    /// The forward discretisation asked for.
    pub resolution: ForwardResolution,
    /// Time elements of the run.
    pub time_elements: usize,
    /// Their size (s), at most `resolution.step`.
    pub step: f64,
    /// Newton iterations of the whole run.
    pub newton_iterations: usize,
    /// Newton tolerance used (relative, `solve::newton`: the default 10⁻¹⁰).
    pub newton_tolerance: f64,
    /// Configuration coordinates of the forward model.
    pub unknowns: usize,
    /// Wall time of building and solving the forward model (s).
    pub seconds: f64,
}

/// Why the replay could not be run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClosedLoopError {
    /// Invalid input: the field and what is wrong.
    #[error("{field}: {message}")]
    Invalid {
        /// The offending input (`replay.t`, `resolution.step`, `beam.length`, …).
        field: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The forward model could not be built (input the checks above do not catch).
    #[error("the forward model of the replay could not be built: {0}")]
    Model(String),
    /// The forward run failed.
    #[error("the forward run of the replay failed: {0}")]
    Solve(#[from] SolveError),
}

fn invalid(field: &str, message: String) -> ClosedLoopError {
    ClosedLoopError::Invalid {
        field: field.to_owned(),
        message,
    }
}

/// A pose path as the motion of a frame (the model knows nothing of `inverse`).
#[derive(Debug)]
struct PoseMotion(Arc<dyn PoseTrajectory>);

impl FrameMotion for PoseMotion {
    fn frame_state(&self, t: f64) -> FrameMotionState {
        let s = self.0.state(t);
        FrameMotionState {
            position: s.pose.position,
            directors: s.pose.directors,
            velocity: s.velocity,
            acceleration: s.acceleration,
            angular_velocity: s.angular_velocity,
            angular_acceleration: s.angular_acceleration,
        }
    }
}

/// How the tip body enters the forward model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TipModel {
    /// A [`RigidBody`] welded to the end node when its mass matrix is positive definite,
    /// lumped into the end node otherwise.
    Auto,
    /// Always lumped into the end node (for the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    Lumped,
}

/// The forward model and the frame of the beam's tip node.
struct Forward {
    system: MultibodySystem,
    tip: usize,
}

/// Replays `replay` on `beam` (at rest in its stress-free reference at `t_start`) until
/// `t_end` with the forward discretisation `res`, and measures the tip's deviation from
/// `path` at every time node (module docs).
///
/// # Errors
/// [`ClosedLoopError::Invalid`] for bad input (the field is named): the beam data, the
/// resolution, the time interval, replay samples of mismatched lengths, with non-increasing
/// times, non-finite values or not covering `[t_start, t_end]`, a base motion that does not
/// start at the beam's base pose at rest or is not finite, a path that is not finite;
/// [`ClosedLoopError::Solve`] if the forward run fails.
pub fn closed_loop(
    beam: &SpatialBeam,
    replay: &Replay,
    path: &dyn PoseTrajectory,
    t_start: f64,
    t_end: f64,
    res: &ForwardResolution,
) -> Result<SpatialTracking, ClosedLoopError> {
    closed_loop_with(beam, replay, path, t_start, t_end, res, TipModel::Auto)
}

fn closed_loop_with(
    beam: &SpatialBeam,
    replay: &Replay,
    path: &dyn PoseTrajectory,
    t_start: f64,
    t_end: f64,
    res: &ForwardResolution,
    tip_model: TipModel,
) -> Result<SpatialTracking, ClosedLoopError> {
    let started = Instant::now();
    beam.validate("beam").map_err(|e| match e {
        InputError::Invalid { field, message } => ClosedLoopError::Invalid { field, message },
        other => ClosedLoopError::Model(other.to_string()),
    })?;
    if !(t_start.is_finite() && t_end.is_finite() && t_end > t_start) {
        return Err(invalid(
            "t_end",
            format!(
                "the time interval must be finite with t_end > t_start, got [{t_start}, {t_end}] s"
            ),
        ));
    }
    res.validate()?;
    let n_t = res.time_elements(t_start, t_end);
    let h = (t_end - t_start) / n_t as f64;
    let nodes: Vec<f64> = (0..=n_t).map(|k| t_start + h * k as f64).collect();
    check_replay(beam, replay, t_start, t_end, &nodes)?;
    if let Some(&t) = nodes.iter().find(|&&t| !state_is_finite(&path.state(t))) {
        return Err(invalid(
            "path",
            format!("the prescribed tip path is not finite at t = {t} s"),
        ));
    }
    let fwd = build(beam, replay, res, tip_model)?;
    let sys = &fwd.system;
    let (q0, v0) = sys.initial_state();
    let method = Method::SpaceTime(SpaceTimeParams {
        order: res.time_order,
        elements_per_block: 1,
        blocks: n_t,
        quadrature_points: None,
        formulation: Formulation::PetrovGalerkin,
    });
    // the default relative tolerance: the driver's stop is relative to the terms of each
    // equation group and accepts the round-off floor of a stiff beam (`solve::newton`)
    let newton = NewtonParams::default();
    let traj = simulate(sys, &q0, &v0, t_start, t_end, &method, &newton, &mut |_| {})?;
    let mut samples = Vec::with_capacity(traj.len());
    for k in 0..traj.len() {
        let t = traj.times[k];
        let q = &traj.q_at(k)[12 * fwd.tip..12 * fwd.tip + 12];
        let position = [q[0], q[1], q[2]];
        let directors = [0, 1, 2].map(|i| [q[3 + 3 * i], q[4 + 3 * i], q[5 + 3 * i]]);
        let g = path.state(t).pose;
        let d = [0, 1, 2].map(|c| position[c] - g.position[c]);
        samples.push(TipSample {
            t,
            position,
            directors,
            position_error: dot(&d, &d).sqrt(),
            angle_error: rotation_angle(&directors, &g.directors),
        });
    }
    // a NaN deviation counts as the worst
    let worst = |f: fn(&TipSample) -> f64| {
        samples.iter().fold((0.0f64, t_start), |(m, at), s| {
            let e = f(s);
            let e = if e.is_nan() { f64::INFINITY } else { e };
            if e > m { (e, s.t) } else { (m, at) }
        })
    };
    let (max_position, position_at) = worst(|s| s.position_error);
    let (max_angle, angle_at) = worst(|s| s.angle_error);
    Ok(SpatialTracking {
        max_position,
        position_at,
        max_angle,
        angle_at,
        samples,
        resolution: *res,
        time_elements: n_t,
        step: h,
        newton_iterations: traj.total_newton_iterations(),
        newton_tolerance: newton.tolerance,
        unknowns: traj.n_q,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Rotation angle of `R_a R_bᵀ = Σ_i a_i ⊗ b_i` (rad, in `[0, π]`): `sin θ = ½ |Σ b_i × a_i|`,
/// `cos θ = ½ (Σ a_i · b_i − 1)`.
pub fn rotation_angle(a: &[Vec3; 3], b: &[Vec3; 3]) -> f64 {
    let mut v = [0.0; 3];
    let mut tr = 0.0;
    for i in 0..3 {
        let c = cross(&b[i], &a[i]);
        for k in 0..3 {
            v[k] += c[k];
        }
        tr += dot(&a[i], &b[i]);
    }
    (0.5 * dot(&v, &v).sqrt()).atan2(0.5 * (tr - 1.0))
}

fn state_is_finite(s: &PoseState) -> bool {
    s.pose
        .position
        .iter()
        .chain(s.pose.directors.iter().flatten())
        .chain(&s.velocity)
        .chain(&s.acceleration)
        .chain(&s.angular_velocity)
        .chain(&s.angular_acceleration)
        .all(|c| c.is_finite())
}

/// Checks the replay data against the beam and the time nodes of the run.
fn check_replay(
    beam: &SpatialBeam,
    replay: &Replay,
    t_start: f64,
    t_end: f64,
    nodes: &[f64],
) -> Result<(), ClosedLoopError> {
    let duration = t_end - t_start;
    match replay {
        Replay::Force { t, force, moment } => {
            if t.is_empty() {
                return Err(invalid(
                    "replay.t",
                    "no samples: give the actuation at least at t_start and t_end".into(),
                ));
            }
            for (field, n) in [
                ("replay.force", force.len()),
                ("replay.moment", moment.len()),
            ] {
                if n != t.len() {
                    return Err(invalid(
                        field,
                        format!("{n} values for {} sample times: give one per time", t.len()),
                    ));
                }
            }
            if let Some(k) = (0..t.len()).find(|&k| !t[k].is_finite()) {
                return Err(invalid(
                    "replay.t",
                    format!("sample {k}: the time {} is not finite", t[k]),
                ));
            }
            if let Some(k) = (1..t.len()).find(|&k| t[k] <= t[k - 1]) {
                return Err(invalid(
                    "replay.t",
                    format!(
                        "the times must increase strictly, but sample {k} (t = {} s) follows \
                         t = {} s",
                        t[k],
                        t[k - 1]
                    ),
                ));
            }
            for (field, v) in [("replay.force", force), ("replay.moment", moment)] {
                if let Some(k) = (0..v.len()).find(|&k| !v[k].iter().all(|c| c.is_finite())) {
                    return Err(invalid(
                        field,
                        format!(
                            "sample {k} (t = {} s): {:?} is not finite; the inverse solution \
                             failed there",
                            t[k], v[k]
                        ),
                    ));
                }
            }
            let tol = 1e-9 * duration;
            let (first, last) = (t[0], t[t.len() - 1]);
            if first > t_start + tol || last < t_end - tol {
                return Err(invalid(
                    "replay.t",
                    format!(
                        "the samples cover [{first}, {last}] s but the replay runs over \
                         [{t_start}, {t_end}] s; give the actuation over the whole interval or \
                         shorten the replay"
                    ),
                ));
            }
        }
        Replay::Motion(motion) => {
            if let Some(&t) = nodes.iter().find(|&&t| !state_is_finite(&motion.state(t))) {
                return Err(invalid(
                    "replay.motion",
                    format!("the base motion is not finite at t = {t} s"),
                ));
            }
            let s = motion.state(t_start);
            let scale = 1.0 + beam.length + beam.base.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let max_diff = |a: &[f64], b: &[f64]| {
                a.iter()
                    .zip(b)
                    .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
            };
            let dx = max_diff(&s.pose.position, &beam.base);
            let dd = (0..3).fold(0.0f64, |m, i| {
                m.max(max_diff(&s.pose.directors[i], &beam.frame[i]))
            });
            if dx > 1e-9 * scale || dd > 1e-9 {
                return Err(invalid(
                    "replay.motion",
                    format!(
                        "the base motion must start at the beam's rest base pose at \
                         t = {t_start} s (base {:?}, frame {:?}): the position differs by \
                         {dx:.3e} m and the directors by {dd:.3e}",
                        beam.base, beam.frame
                    ),
                ));
            }
            let v = max_diff(&s.velocity, &[0.0; 3]);
            let w = max_diff(&s.angular_velocity, &[0.0; 3]);
            if v > 1e-9 * scale / duration || w > 1e-9 / duration {
                return Err(invalid(
                    "replay.motion",
                    format!(
                        "the beam starts at rest, so the base motion must too: at t = \
                         {t_start} s its velocity is {:?} m/s and its angular velocity {:?} \
                         rad/s",
                        s.velocity, s.angular_velocity
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Builds the forward model (module docs).
fn build(
    beam: &SpatialBeam,
    replay: &Replay,
    res: &ForwardResolution,
    tip_model: TipModel,
) -> Result<Forward, ClosedLoopError> {
    let model = |e: String| ClosedLoopError::Model(e);
    let spec = BeamSpec {
        name: "arm".into(),
        order: res.order,
        nodes: ConstantCurvature::straight(beam.base, beam.frame).nodes(
            beam.length,
            res.elements,
            res.order,
        ),
        section: beam.section,
        integration: Integration::Reduced,
        velocity: [0.0; 3],
        angular_velocity: [0.0; 3],
        distributed: Vec::new(),
        gravity: None,
    };
    let mut arm = spec.build().map_err(|e| model(e.to_string()))?;
    let n_nodes = arm.n_frames;
    let tip_q: Vec<f64> = arm.initial_q[12 * (n_nodes - 1)..].to_vec();
    let mut bodies = Vec::new();
    let mut joints: Vec<Box<dyn Constraint>> = Vec::new();
    if let Some(m) = &beam.tip {
        if tip_model == TipModel::Auto && m.is_positive_definite() {
            let body = RigidBody {
                name: "tip".into(),
                mass: *m,
                position: beam.rest_position(beam.length),
                directors: beam.frame,
                velocity: [0.0; 3],
                director_velocities: [[0.0; 3]; 3],
            };
            // frames: the body 0, then the beam's nodes 1..=n_nodes; the end node is tied
            joints.push(Box::new(Rigid::new(
                n_nodes,
                JointBody::Body(0),
                &tip_q,
                &body.initial_q(),
            )));
            bodies.push(body);
        } else {
            // the body's coordinates are the end node's: add its mass matrix there
            let m4 = m.reduced_mass_matrix();
            let off = 12 * (n_nodes - 1);
            for a in 0..4 {
                for c in 0..4 {
                    if m4[a * 4 + c] != 0.0 {
                        for k in 0..3 {
                            arm.mass
                                .push((off + 3 * a + k, off + 3 * c + k, m4[a * 4 + c]));
                        }
                    }
                }
            }
        }
    }
    let base = bodies.len();
    let tip = base + n_nodes - 1;
    let mut loads = Vec::new();
    match replay {
        Replay::Force { t, force, moment } => {
            for (values, kind) in [
                (force, LoadKind::Force as fn(Vec3) -> LoadKind),
                (moment, LoadKind::Torque),
            ] {
                for c in 0..3 {
                    let mut unit = [0.0; 3];
                    unit[c] = 1.0;
                    loads.push(Load {
                        body: base,
                        kind: kind(unit),
                        time_function: TimeFunction::Table {
                            times: t.clone(),
                            values: values.iter().map(|v| v[c]).collect(),
                        },
                    });
                }
            }
        }
        Replay::Motion(motion) => {
            joints.push(Box::new(PrescribedFrame::new(
                base,
                Arc::new(PoseMotion(motion.clone())),
            )));
        }
    }
    let system = MultibodySystem::with_deformables(bodies, vec![arm], loads, joints)
        .map_err(|e| model(e.to_string()))?;
    Ok(Forward { system, tip })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::trajectory::RestToRestProfile;
    use crate::inverse::trajectory::pose::{Pose, RestToRestPose};
    use crate::model::MassProperties;
    use crate::model::director_beam::{DiagonalStiffness, Section, SectionInertia};

    fn arm(tip: Option<MassProperties>) -> SpatialBeam {
        SpatialBeam {
            length: 1.0,
            section: Section::from_diagonal(
                DiagonalStiffness {
                    ea: 1e5,
                    ga1: 5e4,
                    ga2: 5e4,
                    ei1: 50.0,
                    ei2: 80.0,
                    gj: 40.0,
                },
                SectionInertia {
                    rho_a: 1.0,
                    euler_tensor: [[1e-4, 0.0], [0.0, 2e-4]],
                },
            )
            .unwrap(),
            base: [0.1, -0.2, 0.3],
            frame: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
            tip,
        }
    }

    #[test]
    fn rotation_angle_is_accurate_for_small_and_large_angles() {
        use crate::math::rotation::rotate;
        let b = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
        let axis = [0.6, 0.0, 0.8];
        for angle in [1e-12, 1e-6, 0.3, 2.0, 3.1] {
            let a = b.map(|d| rotate(&axis, angle, &d));
            let e = rotation_angle(&a, &b);
            assert!((e - angle).abs() < 1e-15 + 1e-13 * angle, "{angle}: {e}");
        }
    }

    #[test]
    fn welded_and_lumped_tip_bodies_are_the_same_model() {
        // a moment and a force on the base of a free arm with an eccentric tip body
        let tip = MassProperties::from_box([0.1, 0.08, 0.12], 800.0, [0.02, -0.03, -0.05]);
        assert!(tip.is_positive_definite());
        let beam = arm(Some(tip));
        let t = vec![0.0, 0.2, 0.4, 0.6];
        let replay = Replay::Force {
            t: t.clone(),
            force: vec![[0.0; 3], [1.0, -2.0, 0.5], [0.0, 1.0, 0.0], [0.0; 3]],
            // no moment about the beam's axis (x): the point mass below gives the arm almost
            // no polar inertia
            moment: vec![[0.0; 3], [0.0, 0.1, -0.3], [0.0, -0.1, 0.2], [0.0; 3]],
        };
        let path = RestToRestPose::line(
            Pose {
                position: beam.rest_position(1.0),
                directors: beam.frame,
            },
            [0.0; 3],
            [0.0, 0.0, 1.0],
            0.0,
            RestToRestProfile {
                t0: 0.0,
                duration: 1.0,
            },
        )
        .unwrap();
        let res = ForwardResolution {
            elements: 4,
            order: 2,
            step: 0.02,
            time_order: 2,
        };
        let a = closed_loop(&beam, &replay, &path, 0.0, 0.6, &res).unwrap();
        let b = closed_loop_with(&beam, &replay, &path, 0.0, 0.6, &res, TipModel::Lumped).unwrap();
        assert_eq!(a.unknowns, b.unknowns + 12);
        assert!(a.max_position > 1e-3, "the arm moves: {}", a.max_position);
        let diff = a.samples.iter().zip(&b.samples).fold(0.0f64, |m, (x, y)| {
            let d = (0..3).fold(0.0f64, |m, c| m.max((x.position[c] - y.position[c]).abs()));
            let r = (0..3).fold(0.0f64, |m, i| {
                (0..3).fold(m, |m, c| {
                    m.max((x.directors[i][c] - y.directors[i][c]).abs())
                })
            });
            m.max(d).max(r)
        });
        eprintln!(
            "welded vs lumped tip body: tip poses differ by {diff:.1e} (deviation {:.3e} m)",
            a.max_position
        );
        assert!(diff < 1e-9, "welded vs lumped tip body: {diff:e}");
        // a point mass cannot be a free rigid body: it is lumped
        let point = MassProperties {
            mass: 0.5,
            first_moment: [0.0; 3],
            euler_tensor: [[0.0; 3]; 3],
        };
        let p = closed_loop(&arm(Some(point)), &replay, &path, 0.0, 0.6, &res).unwrap();
        assert_eq!(p.unknowns, b.unknowns);
    }

    /// The memory estimate's sizes of the replay's forward model
    /// (`resources::multibody::SystemSize::quadratic_beam`, counted without building it) are
    /// those of the built model: free or clamped base, with and without a welded tip body.
    #[test]
    fn the_estimated_forward_model_is_the_built_one() {
        let tip = MassProperties::from_box([0.1, 0.08, 0.12], 800.0, [0.02, -0.03, -0.05]);
        let beam0 = arm(None);
        let path: Arc<dyn PoseTrajectory> = Arc::new(
            RestToRestPose::line(
                Pose {
                    position: beam0.base,
                    directors: beam0.frame,
                },
                [0.0; 3],
                [0.0, 0.0, 1.0],
                0.0,
                RestToRestProfile {
                    t0: 0.0,
                    duration: 1.0,
                },
            )
            .unwrap(),
        );
        let force = Replay::Force {
            t: vec![0.0, 1.0],
            force: vec![[0.0; 3]; 2],
            moment: vec![[0.0; 3]; 2],
        };
        for elements in [1, 3, 8] {
            for body in [false, true] {
                for clamped in [false, true] {
                    let beam = arm(body.then_some(tip));
                    let replay = if clamped {
                        Replay::Motion(path.clone())
                    } else {
                        force.clone()
                    };
                    let res = ForwardResolution {
                        elements,
                        order: 2,
                        step: 0.01,
                        time_order: 2,
                    };
                    let f = build(&beam, &replay, &res, TipModel::Auto).unwrap();
                    let (built, modelled) = crate::resources::built_and_modelled_sizes(
                        &f.system, elements, body, clamped,
                    );
                    assert_eq!(
                        built, modelled,
                        "{elements} elements, body {body}, clamped {clamped}"
                    );
                }
            }
        }
    }

    #[test]
    fn finer_than_divides_the_inverse_step() {
        let r = ForwardResolution::finer_than(32, 0.02);
        assert_eq!((r.elements, r.order, r.time_order), (32, 2, 2));
        assert_eq!(r.time_elements(1.0, 9.0), 1600);
        assert_eq!(r.time_elements(0.0, 0.011), 3);
        assert_eq!(ForwardResolution::finer_than(0, 0.1).elements, 1);
    }
}
