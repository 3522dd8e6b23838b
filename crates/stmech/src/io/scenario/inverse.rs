//! `analysis = "inverse"` (issue 16): the inverse dynamics of the one spatial beam of a
//! multibody scenario, optionally with a rigid body welded to its end: the force and moment at
//! `<beam>:start` (or the motion of a clamp there) that move the pose of the tracked frame (the
//! welded body's, or `<beam>:end`) along a prescribed path ([`crate::inverse::spatial`]).
//!
//! The file is a multibody scenario ([`super`]): `[[beams]]`, `[[bodies]]` and `[[joints]]` are
//! validated by the same code, then restricted to what the inverse problem models (exactly one
//! straight beam of linear elements, at rest, no viscosity; at most one body, welded to the
//! beam's end; no loads, no `[method]`). `[inverse]` holds the problem:
//!
//! ```toml
//! analysis = "inverse"
//! [time]                   # must hold the pre- and post-actuation L/c_min
//! end = 6.0
//! [[beams]]                # the arm: `elements` are the space elements of the inverse mesh
//! name = "arm"
//! elements = 16
//! section = { ea = 4.0, ga1 = 2.0, ga2 = 2.0, ei1 = 1.0, ei2 = 1.0, gj = 2.0, rho_a = 1.0, rho_i1 = 1.0, rho_i2 = 1.0 }
//! reference = { kind = "straight", directors = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], length = 1.0 }
//! [inverse]
//! actuation = "force"      # or "motion"
//! servo = "pose"           # or "position" (the tip frame free; needs actuation = "motion")
//! track = "arm:end"        # default: the welded body, if any
//! method = "space-time"    # or "characteristics"
//! [inverse.trajectory]
//! kind = "line"            # "line", "circle", "helix" or "csv"
//! delta = [0.0, 0.3, 0.0]
//! t0 = 2.0
//! duration = 2.0
//! ```
//!
//! Every check the solver makes before solving ([`crate::inverse::spatial::solve`]: the beam
//! data, the mesh ratio of the slowest wave family, the start pose, the rotation range of the
//! path, the method's own checks) is made here with the solver's message, plus the room for
//! the pre- and post-actuation and the smoothness of sampled poses.

use super::beams::{Frames, Target, validate_beams};
use super::bodies::validate_bodies;
use super::joints::validate_joints;
use super::raw::{
    RawInverse, RawJointKind, RawPosePath, RawReferenceKind, RawRotationColumns, RawScenario,
};
use super::validate::{Issues, all_finite, time_interval, time_resolution};
use crate::error::InputError;
use crate::inverse::InverseMethod;
use crate::inverse::solver::{InverseError, NewtonSettings, SpaceTimeMesh};
use crate::inverse::spatial::solve::{auto_elements_t, check_method, check_start_pose};
use crate::inverse::spatial::{BodyToTip, PoseServo, SpatialBeam, WeldedBody, wave_speeds};
use crate::inverse::trajectory::RestToRestProfile;
use crate::inverse::trajectory::pose::{
    Pose, PoseInputError, PoseState, PoseTrajectory, RestToRestPose, check_frame,
};
use crate::inverse::trajectory::pose_csv::{PoseCsvTrajectory, RotationColumns};
use crate::io::text::InputLimit;
use crate::math::Vec3;
use crate::model::{JointBody, MassProperties};
use std::path::{Path, PathBuf};

/// Largest number of unknowns of the spatial space-time mesh (the sideways elimination's
/// limit of the planar problem; `12 (n_s + 1) + 6` per time element).
pub const MAX_SPATIAL_UNKNOWNS: usize = crate::io::inverse_scenario::MAX_UNKNOWNS;

/// Largest number of time elements (`inverse.elements_t`).
pub const MAX_ELEMENTS_T: i64 = 1_000_000;

/// Default Newton iteration limit of the inverse analysis.
pub const DEFAULT_MAX_ITERATIONS: usize = 30;

/// Default closed-loop position tolerance: this fraction of the tracked frame's travel (at
/// least [`MIN_POSITION_FRACTION_OF_LENGTH`] of the beam length).
pub const DEFAULT_POSITION_FRACTION: f64 = 0.05;
/// Floor of the default position tolerance, relative to the beam length.
pub const MIN_POSITION_FRACTION_OF_LENGTH: f64 = 5e-4;
/// Default closed-loop angle tolerance (rad).
pub const DEFAULT_ANGLE_RAD: f64 = 0.05;

/// What the servo constraint prescribes at the tip (`inverse.servo`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServoTarget {
    /// Position and frame of the tracked frame (six conditions).
    #[default]
    Pose,
    /// The position of the beam's end only, its frame free; well posed with a clamp whose
    /// orientation is held at rest (`actuation = "motion"`, three unknown translations) and
    /// the space-time method ([`crate::inverse::spatial::solve::solve_position_only`]).
    Position,
}

impl ServoTarget {
    /// The scenario spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pose => "pose",
            Self::Position => "position",
        }
    }
}

/// What is unknown at `<beam>:start` (`inverse.actuation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BaseActuation {
    /// The force and moment applied to a free base (Neumann).
    #[default]
    Force,
    /// The motion of a clamp at the base (Dirichlet): the same solve, the base pose is the
    /// primary output.
    Motion,
}

impl BaseActuation {
    /// The scenario spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Force => "force",
            Self::Motion => "motion",
        }
    }

    /// One line for reports.
    pub fn description(self) -> &'static str {
        match self {
            Self::Force => {
                "force and moment applied to the free base (the primary output: actuation.csv)"
            }
            Self::Motion => {
                "motion of a clamp at the base (the primary output: base.csv; the clamp's force and moment in actuation.csv)"
            }
        }
    }
}

/// The rigid body welded to the beam's end.
#[derive(Clone, Debug, PartialEq)]
pub struct TipBody {
    /// Its name.
    pub name: String,
    /// Mass properties relative to its reference point and directors (as in the scenario).
    pub mass: MassProperties,
    /// Reference point at rest (m).
    pub position: Vec3,
    /// Directors at rest (a rotation).
    pub directors: [Vec3; 3],
    /// The body seen from the beam's tip (mass properties and placement).
    pub welded: WeldedBody,
}

impl TipBody {
    /// The body's pose when the beam's tip is at `tip` (it is welded: constant in the tip
    /// frame): `p = r + Σ_k c_k d_k`, `D_i = Σ_k R_rel[k][i] d_k`.
    pub fn pose_at(&self, tip: &Pose) -> Pose {
        let d = &tip.directors;
        let (c, rel) = (self.welded.offset, self.welded.relative);
        Pose {
            position: std::array::from_fn(|a| {
                tip.position[a] + (0..3).map(|k| c[k] * d[k][a]).sum::<f64>()
            }),
            directors: std::array::from_fn(|i| {
                std::array::from_fn(|a| (0..3).map(|k| rel[k][i] * d[k][a]).sum())
            }),
        }
    }
}

/// `[inverse.verify]`: the closed-loop check of the computed actuation.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SpatialVerify {
    /// Replay the actuation in the forward model (default true).
    pub closed_loop: bool,
    /// Largest accepted position deviation of the tracked frame (m); `None`: the default.
    pub position_tolerance: Option<f64>,
    /// Largest accepted angle deviation of the tracked frame (rad); `None`: the default.
    pub angle_tolerance: Option<f64>,
}

/// A validated spatial inverse scenario (`analysis = "inverse"`).
#[derive(Debug)]
pub struct SpatialInverseScenario {
    /// File name or description.
    pub origin: String,
    /// The beam's name (node names `<beam>:start`, `<beam>:end`).
    pub beam_name: String,
    /// The arm (with the welded body's mass properties at the tip).
    pub beam: SpatialBeam,
    /// The welded body, if any.
    pub body: Option<TipBody>,
    /// The frame whose pose is prescribed: the body's name or `<beam>:end`.
    pub tracked: String,
    /// What is unknown at the base.
    pub actuation: BaseActuation,
    /// What the servo prescribes (`inverse.servo`).
    pub servo: ServoTarget,
    /// How to solve.
    pub method: InverseMethod,
    /// The space-time mesh (`beams[0].elements` × `inverse.elements_t`).
    pub mesh: SpaceTimeMesh,
    /// Whether the time mesh was chosen from the slowest wave (no `inverse.elements_t`).
    pub mesh_auto: bool,
    /// `inverse.trajectory.kind`.
    pub path_kind: &'static str,
    /// The prescribed path of the tracked frame.
    pub trajectory: Box<dyn PoseTrajectory>,
    /// Newton settings.
    pub newton: NewtonSettings,
    /// `[inverse.verify]`.
    pub verify: SpatialVerify,
    /// Draw PNG plots.
    pub plots: bool,
    /// The input as JSON, echoed into `summary.json`.
    pub echo: serde_json::Value,
    /// Files read besides the scenario (a pose CSV).
    pub input_files: Vec<PathBuf>,
}

/// The path of the beam's tip: the tracked path itself, or a welded body's converted
/// ([`BodyToTip`]).
#[derive(Debug)]
pub enum TipPath<'a> {
    /// The tracked frame is the tip.
    Tip(&'a dyn PoseTrajectory),
    /// The tracked frame is a body welded to the tip.
    Body(BodyToTip<'a>),
}

impl PoseTrajectory for TipPath<'_> {
    fn state(&self, t: f64) -> PoseState {
        match self {
            Self::Tip(p) => p.state(t),
            Self::Body(b) => b.state(t),
        }
    }

    fn motion_interval(&self) -> Option<(f64, f64)> {
        match self {
            Self::Tip(p) => p.motion_interval(),
            Self::Body(b) => b.motion_interval(),
        }
    }
}

fn tip_path_of<'a>(path: &'a dyn PoseTrajectory, body: Option<&TipBody>) -> TipPath<'a> {
    match body {
        Some(b) => TipPath::Body(BodyToTip {
            body: path,
            offset: b.welded.offset,
            relative: b.welded.relative,
        }),
        None => TipPath::Tip(path),
    }
}

impl SpatialInverseScenario {
    /// Whether the tracked frame is the welded body (else the beam's end).
    pub fn tracks_body(&self) -> bool {
        self.body.as_ref().is_some_and(|b| b.name == self.tracked)
    }

    /// The body whose path is prescribed, if the tracked frame is the welded body.
    fn tracked_body(&self) -> Option<&TipBody> {
        self.body.as_ref().filter(|b| b.name == self.tracked)
    }

    /// The prescribed path of the beam's tip (what the solver's servo constraint follows).
    pub fn tip_path(&self) -> TipPath<'_> {
        tip_path_of(self.trajectory.as_ref(), self.tracked_body())
    }

    /// The tracked frame's pose when the beam's tip is at `tip`.
    pub fn tracked_pose(&self, tip: &Pose) -> Pose {
        match self.tracked_body() {
            Some(b) => b.pose_at(tip),
            None => *tip,
        }
    }

    /// The closed-loop tolerances (position in m, angle in rad), the defaults filled in:
    /// [`DEFAULT_POSITION_FRACTION`] of the tracked frame's largest distance from its start
    /// (at least [`MIN_POSITION_FRACTION_OF_LENGTH`] L) and [`DEFAULT_ANGLE_RAD`].
    pub fn tracking_tolerance(&self) -> (f64, f64) {
        let position = self.verify.position_tolerance.unwrap_or_else(|| {
            let (t0, t1) = (self.mesh.t_start, self.mesh.t_end);
            let p0 = self.trajectory.state(t0).pose.position;
            let travel = (0..=2000).fold(0.0f64, |m, k| {
                let p = self
                    .trajectory
                    .state(t0 + (t1 - t0) * k as f64 / 2000.0)
                    .pose
                    .position;
                m.max(crate::math::norm(&crate::math::sub(&p, &p0)))
            });
            (DEFAULT_POSITION_FRACTION * travel)
                .max(MIN_POSITION_FRACTION_OF_LENGTH * self.beam.length)
        });
        (
            position,
            self.verify.angle_tolerance.unwrap_or(DEFAULT_ANGLE_RAD),
        )
    }
}

/// The parts of a validated scenario (the caller adds origin and echo).
pub(super) struct Parts {
    beam_name: String,
    beam: SpatialBeam,
    body: Option<TipBody>,
    tracked: String,
    actuation: BaseActuation,
    servo: ServoTarget,
    method: InverseMethod,
    mesh: SpaceTimeMesh,
    mesh_auto: bool,
    path_kind: &'static str,
    trajectory: Box<dyn PoseTrajectory>,
    newton: NewtonSettings,
    verify: SpatialVerify,
    plots: bool,
    input_files: Vec<PathBuf>,
}

impl Parts {
    pub(super) fn into_scenario(
        self,
        origin: &str,
        echo: serde_json::Value,
    ) -> SpatialInverseScenario {
        SpatialInverseScenario {
            origin: origin.to_owned(),
            beam_name: self.beam_name,
            beam: self.beam,
            body: self.body,
            tracked: self.tracked,
            actuation: self.actuation,
            servo: self.servo,
            method: self.method,
            mesh: self.mesh,
            mesh_auto: self.mesh_auto,
            path_kind: self.path_kind,
            trajectory: self.trajectory,
            newton: self.newton,
            verify: self.verify,
            plots: self.plots,
            input_files: self.input_files,
            echo,
        }
    }
}

const IDENTITY: [Vec3; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// Validates `analysis = "inverse"`: every problem goes to `issues`; the parts only if none.
pub(super) fn validate(
    mut raw: RawScenario,
    issues: &mut Issues,
    base_dir: &Path,
    limit: InputLimit,
) -> Option<Parts> {
    // tables the inverse analysis does not use
    if raw.method.is_some() {
        issues.push(
            "method",
            "not used by analysis = \"inverse\": the space-time mesh is beams[0].elements × \
             inverse.elements_t and the method is inverse.method; remove the table",
        );
    }
    if raw.statics.is_some() {
        issues.push(
            "statics",
            "only for analysis = \"static\"; remove it (analysis = \"inverse\" solves in time)",
        );
    }
    for i in 0..raw.loads.len() {
        issues.push(
            format!("loads[{i}].kind"),
            "no loads in the inverse analysis (no gravity, point or distributed loads): the \
             actuation at the beam's start is the only force on the arm; remove the [[loads]] \
             entry",
        );
    }
    // time
    let (mut t0, mut t1) = (0.0, 0.0);
    let time_ok = match &raw.time {
        None => {
            issues.push(
                "time",
                "required for the inverse analysis: [time] with end (and start, default 0) in \
                 s; it must hold the pre- and post-actuation",
            );
            false
        }
        Some(t) => {
            (t0, t1) = (t.start, t.end);
            let mut ok = t0.is_finite() && t1.is_finite() && t1 > t0;
            if t0.is_finite() && t1.is_finite() && t1 <= t0 {
                issues.push(
                    "time.end",
                    format!(
                        "must be greater than time.start = {t0} s (got {t1} s); set end > start"
                    ),
                );
            } else if let Some((field, message)) = time_interval(t0, t1, ["time.start", "time.end"])
            {
                ok = false;
                issues.push(field, message);
            }
            ok
        }
    };
    // the inverse mesh is bilinear: linear elements in s unless the file says otherwise
    for b in &mut raw.beams {
        b.order.get_or_insert(1);
    }
    let bodies = validate_bodies(&raw.bodies, issues);
    let names: Vec<&str> = raw.bodies.iter().map(|b| b.name.as_str()).collect();
    let before_beams = issues.0.len();
    let beams = validate_beams(&raw.beams, &names, issues);
    if raw
        .beams
        .first()
        .is_some_and(|b| b.reference.kind != RawReferenceKind::Straight)
    {
        // the arm must be straight (reported below): what a curved or noded reference would
        // need besides is beside the point
        let mut k = 0;
        issues.0.retain(|e| {
            k += 1;
            k <= before_beams
                || !matches!(e, InputError::Invalid { field, .. }
                    if field.starts_with("beams[0].reference."))
        });
    }
    let beam_names: Vec<&str> = raw.beams.iter().map(|b| b.name.as_str()).collect();
    let frames = Frames::new(&bodies, &names, &beams, &beam_names);
    let _ = validate_joints(&raw.joints, &frames, t0, issues);
    let plots = raw.output.as_ref().and_then(|o| o.plots).unwrap_or(true);
    let newton = newton_settings(&raw, issues);

    // the beam
    if raw.beams.is_empty() {
        issues.push(
            "beams",
            "the inverse analysis needs one [[beams]] entry, the arm whose base is actuated \
             (kind = \"straight\" reference, linear elements)",
        );
    }
    for i in 1..raw.beams.len() {
        issues.push(
            format!("beams[{i}].name"),
            "the inverse analysis takes exactly one beam, the arm (a second beam would need a \
             joint the inverse problem does not model); remove it",
        );
    }
    let mut beam_ok = raw.beams.len() == 1 && beams.first().is_some_and(Option::is_some);
    if let Some(b) = raw.beams.first() {
        let at = |f: &str| format!("beams[0].{f}");
        if b.order == Some(2) {
            beam_ok = false;
            issues.push(
                at("order"),
                "the inverse analysis uses bilinear space-time elements (linear in s): set \
                 order = 1 or remove it",
            );
        }
        if b.reference.kind != RawReferenceKind::Straight {
            beam_ok = false;
            issues.push(
                at("reference.kind"),
                "the inverse analysis needs a straight stress-free arm: use kind = \"straight\" \
                 with start, directors and length",
            );
        }
        if b.integration == Some(super::raw::RawIntegration::Full) {
            beam_ok = false;
            issues.push(
                at("integration"),
                "the inverse analysis integrates the strain energy with one point per element \
                 (\"reduced\"): remove integration or set it to \"reduced\"",
            );
        }
        for (field, v) in [
            ("velocity", b.velocity),
            ("angular_velocity", b.angular_velocity),
        ] {
            if let Some(v) = v
                && all_finite(&v)
                && v != [0.0; 3]
            {
                beam_ok = false;
                issues.push(
                    at(field),
                    "the arm starts at rest in the inverse analysis (the path starts at rest \
                     too): remove it",
                );
            }
        }
        if let Some(Some(spec)) = beams.first()
            && spec.section.is_viscous()
        {
            beam_ok = false;
            issues.push(
                at("section.tau_s"),
                "the inverse analysis needs an elastic arm: remove tau_s and tau_e (Kelvin–Voigt \
                 damping is not modelled by the inverse problem)",
            );
        }
    }
    let beam_name = raw
        .beams
        .first()
        .map(|b| b.name.clone())
        .unwrap_or_default();
    let end_name = format!("{beam_name}:end");
    let elements_s = raw.beams.first().map_or(0, |b| b.elements.max(0) as usize);
    let beam = match (beam_ok, raw.beams.first(), beams.first()) {
        (true, Some(b), Some(Some(spec))) => Some(SpatialBeam {
            length: b.reference.length.unwrap_or(1.0),
            section: spec.section,
            base: b.reference.start.unwrap_or([0.0; 3]),
            frame: b.reference.directors.unwrap_or(IDENTITY),
            tip: None,
        }),
        _ => None,
    };

    // the body
    for i in 1..raw.bodies.len() {
        issues.push(
            format!("bodies[{i}].name"),
            format!(
                "the inverse analysis takes at most one body, welded to \"{end_name}\" (a \
                 gripper or payload); remove it"
            ),
        );
    }
    let mut body_ok = raw.bodies.len() <= 1;
    if let (Some(rb), Some(body)) = (raw.bodies.first(), bodies.first()) {
        let at = |f: &str| format!("bodies[0].{f}");
        for (field, given) in [
            (
                "velocity",
                rb.velocity.is_some_and(|v| all_finite(&v) && v != [0.0; 3]),
            ),
            (
                "angular_velocity",
                rb.angular_velocity
                    .is_some_and(|v| all_finite(&v) && v != [0.0; 3]),
            ),
            (
                "director_velocities",
                rb.director_velocities
                    .is_some_and(|v| all_finite(v.iter().flatten()) && v != [[0.0; 3]; 3]),
            ),
        ] {
            if given {
                body_ok = false;
                issues.push(
                    at(field),
                    "the welded body starts at rest with the arm in the inverse analysis: \
                     remove it",
                );
            }
        }
        if all_finite(body.directors.iter().flatten())
            && let Err(m) = check_frame(&body.directors)
        {
            body_ok = false;
            issues.push(
                at("directors"),
                format!("the welded body's frame must be a rotation: {m}"),
            );
        }
    }

    // the joints: only the weld of the body to the beam's end
    let n_bodies = raw.bodies.len();
    let end_frame = frames
        .beams
        .first()
        .map(|(_, first, n)| JointBody::Body(first + n - 1));
    let start_frame = frames
        .beams
        .first()
        .map(|(_, first, _)| JointBody::Body(*first));
    let body_frame = (n_bodies == 1).then_some(JointBody::Body(0));
    let mut welds = 0;
    let mut unresolved_welds = 0;
    for (i, j) in raw.joints.iter().enumerate() {
        let at = |f: &str| format!("joints[{i}].{f}");
        if j.kind != RawJointKind::Rigid {
            issues.push(
                at("kind"),
                format!(
                    "the inverse analysis has no joints but the weld of the tip body to \
                     \"{end_name}\" (kind = \"rigid\"): the actuation at the base is the \
                     unknown; remove the joint"
                ),
            );
            continue;
        }
        let look = |name: &str| match frames.lookup(name, false) {
            Ok(Some(Target::Frame(f))) => Some(f),
            _ => None, // reported by the joint validation
        };
        let a = look(&j.body_a);
        let b = j.body_b.as_deref().and_then(look);
        let (Some(a), Some(b)) = (a, b) else {
            // a weld whose names are wrong (reported by the joint validation) is still a weld
            unresolved_welds += 1;
            continue;
        };
        let is_weld = matches!(
            (end_frame, body_frame),
            (Some(e), Some(f)) if (a, b) == (e, f) || (a, b) == (f, e)
        );
        if b == JointBody::Ground || a == JointBody::Ground {
            let field = if b == JointBody::Ground {
                "body_b"
            } else {
                "body_a"
            };
            let base = Some(a) == start_frame || Some(b) == start_frame;
            issues.push(
                at(field),
                if base {
                    format!(
                        "no clamp in the inverse analysis: the base {beam_name}:start is what \
                         is computed, its force and moment (inverse.actuation = \"force\") or the \
                         motion of a clamp (inverse.actuation = \"motion\"); remove the joint"
                    )
                } else {
                    "nothing is fixed to the ground in the inverse analysis: remove the joint"
                        .to_owned()
                },
            );
        } else if is_weld {
            welds += 1;
            if welds > 1 {
                issues.push(
                    at("body_a"),
                    "the body is welded to the beam's end already; remove this joint",
                );
            }
        } else {
            issues.push(
                at("body_a"),
                format!(
                    "the only joint of the inverse analysis is the weld of the tip body to \
                     \"{end_name}\" (body_a = \"{end_name}\", body_b = the body); got {:?} and \
                     {:?}",
                    j.body_a,
                    j.body_b.as_deref().unwrap_or("")
                ),
            );
        }
    }
    if let Some(rb) = raw.bodies.first()
        && n_bodies == 1
        && welds == 0
        && unresolved_welds == 0
        && beams.first().is_some_and(Option::is_some)
    {
        body_ok = false;
        issues.push(
            "bodies[0].name",
            format!(
                "the body must be welded to the arm's end: add [[joints]] with kind = \"rigid\", \
                 body_a = \"{end_name}\", body_b = \"{}\"",
                rb.name
            ),
        );
    }

    // [inverse]
    let Some(inv) = raw.inverse.as_ref() else {
        issues.push(
            "inverse",
            "required for analysis = \"inverse\": [inverse] with [inverse.trajectory] (the \
             prescribed path of the tracked frame)",
        );
        return None;
    };
    let actuation = inv.actuation.unwrap_or_default();
    let servo = inv.servo.unwrap_or_default();
    let method = inv.method.unwrap_or_default();
    let verify = verify_settings(inv, issues);
    let body = match (beam, bodies.first(), body_ok) {
        (Some(beam), Some(body), true) if n_bodies == 1 => Some(TipBody {
            name: body.name.clone(),
            mass: body.mass,
            position: body.position,
            directors: body.directors,
            welded: WeldedBody::new(
                &body.mass,
                body.position,
                &body.directors,
                beam.rest_position(beam.length),
                &beam.frame,
            ),
        }),
        _ => None,
    };
    let beam = beam.map(|b| SpatialBeam {
        tip: body.as_ref().map(|t| t.welded.at_tip),
        ..b
    });
    // the tracked frame
    let default_track = raw
        .bodies
        .first()
        .filter(|_| n_bodies == 1)
        .map_or_else(|| end_name.clone(), |b| b.name.clone());
    let tracked = inv.track.clone().unwrap_or(default_track);
    let body_name = raw.bodies.first().map(|b| b.name.as_str());
    let tracks_body = Some(tracked.as_str()) == body_name;
    if !(tracks_body || tracked == end_name || frames.misnamed()) {
        issues.push(
            "inverse.track",
            format!(
                "{tracked:?} is not a frame whose pose can be prescribed: use \"{end_name}\" \
                 (the beam's end){}",
                body_name.map_or(String::new(), |n| format!(" or \"{n}\" (the welded body)"))
            ),
        );
    }
    let (rest_pose, frame_field, position_field) = match (tracks_body, &beam, bodies.first()) {
        (true, _, Some(b)) => (
            Some(Pose {
                position: b.position,
                directors: b.directors,
            }),
            "bodies[0].directors",
            "bodies[0].position",
        ),
        (false, Some(beam), _) => (
            Some(Pose {
                position: beam.rest_position(beam.length),
                directors: beam.frame,
            }),
            "beams[0].reference.directors",
            "beams[0].reference.start",
        ),
        _ => (None, "", ""),
    };
    if servo == ServoTarget::Position {
        position_only_is_well_posed(actuation, method, &tracked, &end_name, issues);
    }
    let tip_body = beam.as_ref().and(body.as_ref());
    let order = if tip_body.is_some() { 2 } else { 1 };
    // the path
    let before = issues.0.len();
    let mut input_files = Vec::new();
    let pose_error = |e: PoseInputError, issues: &mut Issues| {
        let field = match e.field {
            "start_frame" => frame_field.to_owned(),
            "start" => position_field.to_owned(),
            f => format!("inverse.trajectory.{f}"),
        };
        issues.push(field, e.message);
    };
    let profile = |t_on: f64, duration: f64, issues: &mut Issues| {
        if time_ok && t_on.is_finite() && t_on < t0 {
            issues.push(
                "inverse.trajectory.t0",
                format!(
                    "the motion starts at {t_on} s, before time.start = {t0} s; the arm starts \
                     at rest, so the time domain must begin before the motion (by L/c_min, the \
                     pre-actuation)"
                ),
            );
        }
        RestToRestProfile { t0: t_on, duration }
    };
    let frame_turn =
        |axis: Option<Vec3>, angle: Option<f64>, issues: &mut Issues| match (axis, angle) {
            (None, Some(a)) if a != 0.0 => {
                issues.push(
                    "inverse.trajectory.frame_axis",
                    "required with frame_angle ≠ 0: the axis [x, y, z] (global) the frame turns \
                 about",
                );
                ([0.0, 0.0, 1.0], 0.0)
            }
            (Some(_), None) => {
                issues.push(
                    "inverse.trajectory.frame_axis",
                    "without frame_angle the frame does not turn: give frame_angle (rad) or remove \
                 frame_axis",
                );
                ([0.0, 0.0, 1.0], 0.0)
            }
            (axis, angle) => (axis.unwrap_or([0.0, 0.0, 1.0]), angle.unwrap_or(0.0)),
        };
    let start = rest_pose.unwrap_or(Pose::at([0.0; 3]));
    let (path_kind, trajectory): (&'static str, Option<Box<dyn PoseTrajectory>>) =
        match &inv.trajectory {
            RawPosePath::Line {
                delta,
                t0: t_on,
                duration,
                frame_axis,
                frame_angle,
            } => {
                let p = profile(*t_on, *duration, issues);
                let (fa, fang) = frame_turn(*frame_axis, *frame_angle, issues);
                let r = RestToRestPose::line(start, *delta, fa, fang, p);
                ("line", built_in(r, &pose_error, issues))
            }
            RawPosePath::Circle {
                center,
                axis,
                angle,
                t0: t_on,
                duration,
                frame_axis,
                frame_angle,
            } => {
                let p = profile(*t_on, *duration, issues);
                let (fa, fang) = frame_turn(*frame_axis, *frame_angle, issues);
                let r = RestToRestPose::helix(start, *center, *axis, *angle, 0.0, fa, fang, p);
                ("circle", built_in(r, &pose_error, issues))
            }
            RawPosePath::Helix {
                center,
                axis,
                angle,
                rise,
                t0: t_on,
                duration,
                frame_axis,
                frame_angle,
            } => {
                let p = profile(*t_on, *duration, issues);
                let (fa, fang) = frame_turn(*frame_axis, *frame_angle, issues);
                let r = RestToRestPose::helix(start, *center, *axis, *angle, *rise, fa, fang, p);
                ("helix", built_in(r, &pose_error, issues))
            }
            RawPosePath::Csv { path, rotation } => {
                let full = base_dir.join(path);
                input_files.push(full.clone());
                let csv = match PoseCsvTrajectory::read(&full, limit) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        issues.push("inverse.trajectory.path", e.to_string());
                        None
                    }
                };
                if let (Some(c), Some(want)) = (&csv, rotation) {
                    let want = match want {
                        RawRotationColumns::RotationVector => RotationColumns::RotationVector,
                        RawRotationColumns::Quaternion => RotationColumns::Quaternion,
                        RawRotationColumns::Matrix => RotationColumns::Matrix,
                    };
                    if c.rotation != want {
                        issues.push(
                            "inverse.trajectory.rotation",
                            format!(
                                "the file writes the frame as {} ({} columns after t,x,y,z), not \
                                 as {}: correct rotation or the file",
                                columns_name(c.rotation),
                                columns_width(c.rotation),
                                columns_name(want)
                            ),
                        );
                    }
                }
                if let (Some(c), Some(rest), true) = (&csv, rest_pose, time_ok)
                    && let Err(e) = c.check(t0, t1, &rest, order)
                {
                    issues.push("inverse.trajectory.path", e.to_string());
                }
                ("csv", csv.map(|c| Box::new(c) as Box<dyn PoseTrajectory>))
            }
        };
    let path_field = match &inv.trajectory {
        RawPosePath::Csv { .. } => "inverse.trajectory.path",
        _ => "inverse.trajectory",
    };
    let path_ok = issues.0.len() == before && rest_pose.is_some();

    // checks on the assembled problem: the solver's own, with its messages
    let (Some(beam), Some(trajectory)) = (beam, trajectory) else {
        return None;
    };
    if !(time_ok && path_ok) {
        return None;
    }
    if let Err(m) = check_wave_speeds(&beam) {
        issues.push("beams[0].section.rho_i1", m);
        return None;
    }
    let tip_path = tip_path_of(trajectory.as_ref(), tip_body.filter(|_| tracks_body));
    if let Err(e) = beam.validate("beams[0]") {
        issues.0.push(match e {
            InputError::Invalid { field, message } => InputError::Invalid {
                field: match field.as_str() {
                    "beams[0].tip" => "bodies[0].name".to_owned(),
                    "beams[0].frame" => "beams[0].reference.directors".to_owned(),
                    "beams[0].base" => "beams[0].reference.start".to_owned(),
                    "beams[0].length" => "beams[0].reference.length".to_owned(),
                    _ => field,
                },
                message,
            },
            other => other,
        });
        return None;
    }
    if let Err(e) = check_start_pose(&beam, &tip_path, t0) {
        let field = match &inv.trajectory {
            RawPosePath::Circle { .. } | RawPosePath::Helix { .. } => "inverse.trajectory.center",
            _ => path_field,
        };
        issues.push(field, e.to_string());
    }
    let frame_field = match &inv.trajectory {
        RawPosePath::Csv { .. } => "inverse.trajectory.path",
        _ => "inverse.trajectory.frame_angle",
    };
    if let Err(e) = PoseServo::new(&tip_path, &beam.frame, t0, t1) {
        issues.push(frame_field, e.to_string());
    }
    // the pre- and post-actuation L/c_min of the slowest wave family
    let speeds = wave_speeds(&beam.section);
    if let Some((on, off)) = tip_path
        .motion_interval()
        .filter(|(a, b)| a.is_finite() && b.is_finite())
    {
        let lead = beam.length / speeds.min();
        let why = format!(
            "the actuation must act L/c_min = {lead:.4} s ahead of the tip (c_min = {:.4} m/s, \
             the slowest wave family: {})",
            speeds.min(),
            speeds.families[0]
        );
        let slack = 1e-9 * (1.0 + lead.abs());
        if on >= t0 && on - t0 < lead - slack {
            issues.push(
                "time.start",
                format!(
                    "no room for the pre-actuation: the tracked frame starts moving at t = {on} s, \
                     only {:.4} s after time.start = {t0} s, but {why} and the arm is at rest at \
                     time.start. Set time.start ≤ {:.4} s, or start the motion at t ≥ {:.4} s",
                    on - t0,
                    on - lead,
                    t0 + lead
                ),
            );
        }
        if t1 - off < lead - slack {
            issues.push(
                "time.end",
                format!(
                    "no room for the post-actuation: the tracked frame stops moving at t = {off} \
                     s, {:.4} s before time.end = {t1} s, but {why} (and as long after it). Set \
                     time.end ≥ {:.4} s, or end the motion by t = {:.4} s",
                    t1 - off,
                    off + lead,
                    t1 - lead
                ),
            );
        }
    }
    // the mesh
    let (elements_t, mesh_auto) = match inv.elements_t {
        Some(n) if !(1..=MAX_ELEMENTS_T).contains(&n) => {
            issues.push(
                "inverse.elements_t",
                format!(
                    "must be between 1 and {MAX_ELEMENTS_T}, got {n}; leave it out for the time \
                     step of the slowest wave"
                ),
            );
            return None;
        }
        Some(n) => (n as usize, false),
        None => (auto_elements_t(&beam, t1 - t0, elements_s), true),
    };
    let unknowns = (12 * elements_s.saturating_add(1) + 6).saturating_mul(elements_t);
    if unknowns > MAX_SPATIAL_UNKNOWNS {
        issues.push(
            if mesh_auto {
                "beams[0].elements"
            } else {
                "inverse.elements_t"
            },
            format!(
                "{elements_s} × {elements_t} space-time elements give {unknowns} unknowns, more \
                 than {MAX_SPATIAL_UNKNOWNS}; use a coarser mesh{}",
                if mesh_auto {
                    " (the time mesh follows beams[0].elements and the time span: shorten [time] \
                     or use fewer elements)"
                } else {
                    ""
                }
            ),
        );
        return None;
    }
    let mesh = SpaceTimeMesh {
        t_start: t0,
        t_end: t1,
        elements_s,
        elements_t,
    };
    if let Some((field, message)) = time_resolution(t0, t1, mesh.ht()) {
        issues.push(field, message);
    }
    if let Err(e) = check_method(method, &beam, &mesh, &tip_path) {
        issues.0.push(match e {
            InverseError::Input(InputError::Invalid { field, message }) => InputError::Invalid {
                field: match field.as_str() {
                    "method" => "inverse.method".to_owned(),
                    "mesh" => "inverse.elements_t".to_owned(),
                    _ => field,
                },
                message,
            },
            InverseError::MeshRatio(e) => InputError::Invalid {
                field: "inverse.elements_t".into(),
                message: format!(
                    "{e} (in this scenario: the space elements are beams[0].elements, the time \
                     elements inverse.elements_t; leave inverse.elements_t out for the time step \
                     of the slowest wave)"
                ),
            },
            InverseError::Trajectory(e) => InputError::Invalid {
                field: path_field.into(),
                message: e.to_string(),
            },
            other => InputError::Invalid {
                field: "inverse.method".into(),
                message: other.to_string(),
            },
        });
    }
    if !issues.0.is_empty() {
        return None;
    }
    Some(Parts {
        beam_name,
        beam,
        body,
        tracked,
        actuation,
        servo,
        method,
        mesh,
        mesh_auto,
        path_kind,
        trajectory,
        newton,
        verify,
        plots,
        input_files,
    })
}

/// `inverse.servo = "position"` prescribes three components at the tip; it is well posed only
/// with three unknowns at the base (a clamp whose translation is unknown and whose orientation
/// is held, `actuation = "motion"`), solved on the whole space-time domain (the tip has no
/// Cauchy data for the characteristics or the sideways march), and with the servo on the
/// beam's end (a welded body's point moves with the free tip frame). docs/theory.md,
/// "Position-only servo".
fn position_only_is_well_posed(
    actuation: BaseActuation,
    method: InverseMethod,
    tracked: &str,
    end_name: &str,
    issues: &mut Issues,
) {
    if actuation != BaseActuation::Motion {
        issues.push(
            "inverse.servo",
            "servo = \"position\" with actuation = \"force\" is not well posed: three \
             conditions at the tip (its position) for six unknown force and moment components \
             at a free base, the arm's spin and the tip frame are left undetermined. Use \
             actuation = \"motion\" (a clamp that translates with its orientation held at \
             rest) or servo = \"pose\"",
        );
    }
    if method != InverseMethod::SpaceTime {
        issues.push(
            "inverse.method",
            "servo = \"position\" needs method = \"space-time\": with the tip frame free the \
             tip line carries no Cauchy data (position, velocity and strain) for the march of \
             the characteristics; the space-time method solves it on the whole domain",
        );
    }
    if tracked != end_name {
        issues.push(
            "inverse.track",
            format!(
                "servo = \"position\" prescribes the position of the beam's end: set track = \
                 \"{end_name}\" (a welded body's point moves with the free tip frame; its \
                 inertia still acts on the tip)"
            ),
        );
    }
}

/// The six wave speeds of the section at rest must be computable: the generalised
/// eigenproblem `C e = λ diag(ρA, ρA, ρA, J0) e` needs `J0 = tr(E) I − E` positive definite in
/// floating point (rotary inertias `ρI1`, `ρI2` some 10¹⁶ apart cancel in `tr(E) − E_αα`), and
/// finite positive speeds.
fn check_wave_speeds(beam: &SpatialBeam) -> Result<(), String> {
    let sec = &beam.section;
    let j0 = crate::inverse::spatial::law::section_rotary_inertia(sec);
    let mut m = [[0.0; 6]; 6];
    for k in 0..3 {
        m[k][k] = sec.rho_a();
        for l in 0..3 {
            m[3 + k][3 + l] = j0[k][l];
        }
    }
    let e = sec.euler_tensor();
    let ok = crate::math::eigen::generalized(sec.stiffness(), &m)
        .is_some_and(|(lam, _)| lam.iter().all(|l| l.is_finite() && *l > 0.0));
    if ok {
        return Ok(());
    }
    Err(format!(
        "the section's wave speeds cannot be computed: with ρA = {} kg/m, ρI1 = {} kg·m, ρI2 = \
         {} kg·m and this stiffness the rotary inertia tr(E) I − E is not positive definite in \
         floating point, or a speed is not finite; give rotary inertias within some 10¹² of each \
         other and stiffnesses within the range of f64",
        sec.rho_a(),
        e[1][1],
        e[0][0]
    ))
}

/// A built-in path, or its problem (reported through `pose_error`).
fn built_in(
    r: Result<RestToRestPose, PoseInputError>,
    pose_error: &dyn Fn(PoseInputError, &mut Issues),
    issues: &mut Issues,
) -> Option<Box<dyn PoseTrajectory>> {
    match r {
        Ok(p) => Some(Box::new(p)),
        Err(e) => {
            pose_error(e, issues);
            None
        }
    }
}

fn columns_name(c: RotationColumns) -> &'static str {
    match c {
        RotationColumns::RotationVector => "\"rotation-vector\"",
        RotationColumns::Quaternion => "\"quaternion\"",
        RotationColumns::Matrix => "\"matrix\"",
    }
}

fn columns_width(c: RotationColumns) -> usize {
    match c {
        RotationColumns::RotationVector => 3,
        RotationColumns::Quaternion => 4,
        RotationColumns::Matrix => 9,
    }
}

/// `[newton]` of the inverse analysis: the relative `tolerance` (`solve::newton`, in
/// `[MIN_TOLERANCE, MAX_TOLERANCE]`, default 1e-10) and `max_iterations` (default
/// [`DEFAULT_MAX_ITERATIONS`]).
fn newton_settings(raw: &RawScenario, issues: &mut Issues) -> NewtonSettings {
    use crate::solve::newton::{MAX_TOLERANCE, MIN_TOLERANCE};
    let mut s = NewtonSettings::default();
    s.newton.max_iterations = DEFAULT_MAX_ITERATIONS;
    let Some(n) = &raw.newton else { return s };
    if let Some(tol) = n.tolerance {
        if (MIN_TOLERANCE..=MAX_TOLERANCE).contains(&tol) {
            s.newton.tolerance = tol;
        } else if tol.is_finite() {
            issues.push(
                "newton.tolerance",
                format!(
                    "must be between {MIN_TOLERANCE:e} and {MAX_TOLERANCE:e} (relative to the \
                     terms of each equation), got {tol}; the default is 1e-10"
                ),
            );
        }
    }
    if let Some(it) = n.max_iterations {
        if (1..=super::MAX_NEWTON_ITERATIONS).contains(&it) {
            s.newton.max_iterations = it as usize;
        } else {
            issues.push(
                "newton.max_iterations",
                format!(
                    "must be between 1 and {} (got {it}); the default is \
                     {DEFAULT_MAX_ITERATIONS}",
                    super::MAX_NEWTON_ITERATIONS
                ),
            );
        }
    }
    s
}

fn verify_settings(inv: &RawInverse, issues: &mut Issues) -> SpatialVerify {
    let mut v = SpatialVerify {
        closed_loop: true,
        position_tolerance: None,
        angle_tolerance: None,
    };
    let Some(raw) = &inv.verify else { return v };
    v.closed_loop = raw.closed_loop.unwrap_or(true);
    for (field, value, slot, unit) in [
        (
            "inverse.verify.position_tolerance",
            raw.position_tolerance,
            &mut v.position_tolerance,
            "m",
        ),
        (
            "inverse.verify.angle_tolerance",
            raw.angle_tolerance,
            &mut v.angle_tolerance,
            "rad",
        ),
    ] {
        match value {
            Some(x) if x.is_finite() && x <= 0.0 => issues.push(
                field,
                format!("must be > 0 ({unit}), got {x}; leave it out for the default"),
            ),
            _ => *slot = value,
        }
    }
    v
}
