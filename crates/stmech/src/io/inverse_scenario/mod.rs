//! Scenario files of the beam inverse problem (`problem = "beam-inverse"`, issue 5).
//!
//! Same two stages as [`super::scenario`]: serde with `deny_unknown_fields` (syntax, unknown
//! fields, wrong types, with line and column), then validation that collects *every* problem
//! with its field path. The mesh-ratio condition ([`crate::inverse::mesh_ratio`]) and the
//! trajectory checks (start pose, smoothness) are part of the validation, so `stmech check`
//! reports them without solving.
//!
//! ```toml
//! problem = "beam-inverse"
//! method = "space-time"        # default; or "characteristics" (method of characteristics)
//! [beam]                       # straight, stress free, at rest at t = time.start
//! length = 1.0
//! law = "log"                  # or "quadratic"
//! base = [0.0, 0.0, 0.0]       # optional: base point x, y and angle θ0
//! section = { rho_a = 1.0, rho_i = 1.0, ea = 1.0, ga = 1.0, ei = 1.0 }
//! tip = { mass = 0.0, inertia = 0.0 }   # optional end mass (default: free end)
//! [trajectory]
//! kind = "rest-to-rest"        # arc about `center`; or "rest-to-rest-line" with `delta`;
//! angle = 1.5707963267948966   # or kind = "csv", path = "tip.csv" (t,x,y,theta), or
//!                              # kind = "samples", t = [..], pose = [[x, y, theta], ..]
//! t0 = 2.0
//! duration = 2.0
//! [time]
//! start = 0.0
//! end = 6.0
//! [mesh]
//! resolution = 20              # or elements_s = .., elements_t = ..
//! ```

mod checks;
pub mod crane;
mod raw;
#[cfg(test)]
mod tests;

use super::scenario::ScenarioError;
use super::text::InputLimit;
use crate::beam::section::{ConstitutiveLaw, SectionProperties};
use crate::error::InputError;
use crate::inverse::mesh_ratio;
use crate::inverse::trajectory::{
    CsvTrajectory, RestToRestArc, RestToRestLine, RestToRestProfile, TipTrajectory,
    TrajectoryError, check_start_pose,
};
use crate::inverse::{
    BeamModel, InverseMethod, LinearSolverKind, NewtonSettings, SpaceTimeMesh, TipLaw,
};
use checks::actuation_room;
use raw::{ProblemKind, Raw, RawLaw, RawTrajectory};
use std::path::Path;

/// Largest number of unknowns accepted with the sideways elimination (about 220 bytes each:
/// 10⁷ unknowns need some 2.2 GB).
pub const MAX_UNKNOWNS: usize = 10_000_000;
/// Largest number of unknowns accepted with `newton.linear_solver = "sparse-lu"` (the general
/// sparse LU of the two-dimensional grid needs about 40 s for 1.5 × 10⁵ unknowns).
pub const MAX_UNKNOWNS_SPARSE_LU: usize = 300_000;

/// Whether scenario text declares `problem = "beam-inverse"` (rigid-body scenarios have no
/// `problem` key). Unparsable text is not inverse (the rigid-body parser reports it).
pub fn is_inverse(text: &str) -> bool {
    text.parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("problem").and_then(|p| p.as_str().map(str::to_owned)))
        .is_some_and(|p| p == "beam-inverse")
}

/// A validated inverse scenario.
#[derive(Debug)]
pub struct InverseScenario {
    /// File name or description.
    pub origin: String,
    /// The beam.
    pub beam: BeamModel,
    /// How to solve (`method`, default space-time FEM).
    pub method: InverseMethod,
    /// The space-time mesh (mesh-ratio condition checked for the space-time FEM).
    pub mesh: SpaceTimeMesh,
    /// Whether the time mesh was chosen automatically from `mesh.resolution`.
    pub mesh_auto: bool,
    /// `mesh.allow_unstable`: solve even if the mesh violates the sideways CFL condition
    /// (for studies of the condition; the actuation is then unreliable).
    pub allow_unstable: bool,
    /// The prescribed tip motion (checked).
    pub trajectory: Box<dyn TipTrajectory>,
    /// Newton settings.
    pub newton: NewtonSettings,
    /// Draw PNG plots.
    pub plots: bool,
    /// `[verify]`: closed-loop verification of the result.
    pub verify: VerifySettings,
    /// The input as JSON, echoed into `summary.json`.
    pub echo: serde_json::Value,
    /// Files read besides the scenario (the trajectory CSV): an output directory must not
    /// contain them.
    pub input_files: Vec<std::path::PathBuf>,
}

/// A count as text; saturated or astronomically large counts in scientific notation.
fn big(n: usize) -> String {
    if n >= 1_000_000_000_000 {
        format!("{:.1e}", n as f64)
    } else {
        n.to_string()
    }
}

/// `[verify]`: replay the actuation in the forward beam model
/// ([`crate::inverse::closed_loop`]) and compare the tip with the path.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct VerifySettings {
    /// `verify.closed_loop` (default true).
    pub closed_loop: bool,
    /// `verify.position_tolerance` (m); `None`: 5 % of the tip's travel.
    pub position_tolerance: Option<f64>,
    /// `verify.angle_tolerance` (rad); `None`: [`DEFAULT_ANGLE_RAD`](crate::inverse::closed_loop::DEFAULT_ANGLE_RAD).
    pub angle_tolerance: Option<f64>,
}

impl Default for VerifySettings {
    fn default() -> Self {
        Self {
            closed_loop: true,
            position_tolerance: None,
            angle_tolerance: None,
        }
    }
}

impl InverseScenario {
    /// The tolerances of the closed-loop check (defaults filled in from the path).
    pub fn tracking_tolerance(&self) -> crate::inverse::closed_loop::TrackingTolerance {
        use crate::inverse::closed_loop::{
            DEFAULT_ANGLE_RAD, DEFAULT_POSITION_FRACTION, TrackingTolerance,
        };
        let rel = TrackingTolerance::relative(
            &self.beam,
            self.trajectory.as_ref(),
            self.mesh.t_start,
            self.mesh.t_end,
            DEFAULT_POSITION_FRACTION,
            DEFAULT_ANGLE_RAD,
        );
        TrackingTolerance {
            position_m: self.verify.position_tolerance.unwrap_or(rel.position_m),
            angle_rad: self.verify.angle_tolerance.unwrap_or(rel.angle_rad),
        }
    }
}

/// `[newton]` of the inverse scenarios (beam and crane), with the problems of its fields: the
/// relative `tolerance` (`solve::newton`, in `[MIN_TOLERANCE, MAX_TOLERANCE]`, default 1e-10),
/// `max_iterations` (default 30) and the `linear_solver`.
fn newton_settings(raw: Option<&raw::RawNewton>, issues: &mut Vec<InputError>) -> NewtonSettings {
    use crate::solve::newton::{MAX_TOLERANCE, MIN_TOLERANCE};
    let mut newton = NewtonSettings::default();
    if let Some(n) = raw {
        if let Some(tol) = n.tolerance {
            if (MIN_TOLERANCE..=MAX_TOLERANCE).contains(&tol) {
                newton.newton.tolerance = tol;
            } else {
                issues.push(problem(
                    "newton.tolerance",
                    format!(
                        "must be between {MIN_TOLERANCE:e} and {MAX_TOLERANCE:e} (relative to the \
                         terms of each equation), got {tol}; the default is 1e-10"
                    ),
                ));
            }
        }
        if let Some(it) = n.max_iterations {
            if (1..=1000).contains(&it) {
                newton.newton.max_iterations = it as usize;
            } else {
                issues.push(problem(
                    "newton.max_iterations",
                    format!("must be between 1 and 1000, got {it}; the default is 30"),
                ));
            }
        }
        if let Some(kind) = n.linear_solver {
            newton.linear_solver = kind;
        }
    }
    newton
}

fn problem(field: &str, message: impl Into<String>) -> InputError {
    InputError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

impl InverseScenario {
    /// The mesh-ratio condition of this scenario's mesh at the reference state.
    pub fn mesh_ratio(&self) -> mesh_ratio::MeshRatio {
        mesh_ratio::MeshRatio::evaluate(
            &self.beam.section,
            self.beam.law,
            1.0,
            self.beam.length / self.mesh.elements_s as f64,
            self.mesh.ht(),
        )
    }

    /// Reads and validates a file; a CSV trajectory path is relative to the file's folder.
    pub fn from_path(path: &Path) -> Result<Self, ScenarioError> {
        let text = ScenarioError::read(path, crate::io::text::InputLimit::default())?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Self::from_toml_str(&text, &path.display().to_string(), dir)
    }

    /// Parses and validates text; `base_dir` resolves a relative CSV path, which is read with
    /// the default size limit.
    pub fn from_toml_str(text: &str, origin: &str, base_dir: &Path) -> Result<Self, ScenarioError> {
        Self::from_toml_str_limited(text, origin, base_dir, InputLimit::default())
    }

    /// [`from_toml_str`](Self::from_toml_str) reading a CSV trajectory with at most `limit`.
    pub fn from_toml_str_limited(
        text: &str,
        origin: &str,
        base_dir: &Path,
        limit: InputLimit,
    ) -> Result<Self, ScenarioError> {
        let syntax = |e: toml::de::Error| ScenarioError::Syntax {
            origin: origin.to_owned(),
            source: Box::new(e),
        };
        let raw: Raw = toml::from_str(text).map_err(syntax)?;
        let table: toml::Table = text.parse().map_err(syntax)?;
        let ProblemKind::BeamInverse = raw.problem;
        let method = raw.method.unwrap_or_default();
        let mut issues: Vec<InputError> = Vec::new();
        let mut input_files = Vec::new();
        let bad_nonfinite = |issues: &mut Vec<InputError>, field: &str, v: f64| {
            if !v.is_finite() {
                issues.push(problem(field, format!("must be a finite number, got {v}")));
                true
            } else {
                false
            }
        };
        // beam
        let s = &raw.beam.section;
        let section = SectionProperties {
            rho_a: s.rho_a,
            rho_i: s.rho_i,
            ea: s.ea,
            ga: s.ga,
            ei: s.ei,
        };
        let mut section_ok = true;
        for (name, v, what) in [
            ("rho_a", s.rho_a, "mass per unit length ρA (kg/m)"),
            ("rho_i", s.rho_i, "rotary inertia per unit length ρI (kg·m)"),
            ("ea", s.ea, "axial stiffness EA (N)"),
            ("ga", s.ga, "shear stiffness GA (N)"),
            ("ei", s.ei, "bending stiffness EI (N·m²)"),
        ] {
            if !(v.is_finite() && v > 0.0) {
                section_ok = false;
                issues.push(problem(
                    &format!("beam.section.{name}"),
                    format!("the {what} must be finite and > 0, got {v}"),
                ));
            }
        }
        let length = raw.beam.length;
        let length_ok = length.is_finite() && length > 0.0;
        if !length_ok {
            issues.push(problem(
                "beam.length",
                format!("must be finite and > 0 (m), got {length}"),
            ));
        }
        let base = raw.beam.base.unwrap_or([0.0; 3]);
        for (k, &v) in base.iter().enumerate() {
            bad_nonfinite(&mut issues, &format!("beam.base[{k}]"), v);
        }
        let tip = match &raw.beam.tip {
            None => TipLaw::Free,
            Some(t) => {
                let inertia = t.inertia.unwrap_or(0.0);
                if !(t.mass.is_finite() && t.mass >= 0.0) {
                    issues.push(problem(
                        "beam.tip.mass",
                        format!("must be finite and ≥ 0 (kg), got {}", t.mass),
                    ));
                }
                if !(inertia.is_finite() && inertia >= 0.0) {
                    issues.push(problem(
                        "beam.tip.inertia",
                        format!("must be finite and ≥ 0 (kg·m²), got {inertia}"),
                    ));
                }
                if t.mass == 0.0 && inertia == 0.0 {
                    TipLaw::Free
                } else {
                    TipLaw::Mass {
                        mass: t.mass,
                        inertia,
                    }
                }
            }
        };
        let law = match raw.beam.law {
            RawLaw::Quadratic => ConstitutiveLaw::Quadratic,
            RawLaw::Log => ConstitutiveLaw::Log,
        };
        let beam = BeamModel {
            section,
            law,
            length,
            tip,
            base,
        };
        // time
        let (t0, t1) = (raw.time.start, raw.time.end);
        let mut time_ok = t0.is_finite() && t1.is_finite() && t1 > t0;
        if !time_ok {
            issues.push(problem(
                "time.end",
                format!("must be finite and greater than time.start = {t0} s, got {t1} s"),
            ));
        } else if let Some((field, message)) =
            crate::io::scenario::time_interval(t0, t1, ["time.start", "time.end"])
        {
            time_ok = false;
            issues.push(problem(field, message));
        }
        // newton
        let newton = newton_settings(raw.newton.as_ref(), &mut issues);
        // mesh
        let m = &raw.mesh;
        let allow_unstable = m.allow_unstable.unwrap_or(false);
        let positive = |issues: &mut Vec<InputError>, field: &str, v: i64| -> Option<usize> {
            if (1..=1_000_000).contains(&v) {
                Some(v as usize)
            } else {
                issues.push(problem(
                    field,
                    format!("must be between 1 and 1000000, got {v}"),
                ));
                None
            }
        };
        let mut mesh_auto = false;
        let mesh_counts: Option<(usize, usize)> = match (m.resolution, m.elements_s, m.elements_t) {
            (Some(r), None, None) => {
                mesh_auto = true;
                let ns = positive(&mut issues, "mesh.resolution", r);
                match (ns, section_ok && length_ok && time_ok) {
                    (Some(ns), true) => Some((
                        ns,
                        mesh_ratio::auto_elements_t(&section, law, length, t1 - t0, ns),
                    )),
                    _ => None,
                }
            }
            (None, Some(a), Some(b)) => {
                let ns = positive(&mut issues, "mesh.elements_s", a);
                let nt = positive(&mut issues, "mesh.elements_t", b);
                ns.zip(nt)
            }
            _ => {
                issues.push(problem(
                    "mesh",
                    "give either `resolution` (space elements; the time step is chosen from the \
                     wave speeds) or both `elements_s` and `elements_t`",
                ));
                None
            }
        };
        let mut mesh = None;
        if let (Some((ns, nt)), true) = (mesh_counts, section_ok && length_ok && time_ok) {
            // saturating: an automatic time mesh of a huge time span can be `usize::MAX`
            let unknowns = (6 * ns.saturating_add(1) + 3).saturating_mul(nt);
            let limit = match newton.linear_solver {
                LinearSolverKind::Sideways => MAX_UNKNOWNS,
                LinearSolverKind::SparseLu => MAX_UNKNOWNS_SPARSE_LU,
            };
            if unknowns > limit {
                issues.push(problem(
                    "mesh",
                    format!(
                        "{ns} × {} elements give {} unknowns, more than {limit} for the {:?} linear solver; use a coarser mesh{}",
                        big(nt),
                        big(unknowns),
                        newton.linear_solver,
                        if mesh_auto {
                            " (the time mesh follows mesh.resolution and the time span: shorten [time] or reduce mesh.resolution)"
                        } else {
                            ""
                        }
                    ),
                ));
            } else if let (Err(e), false, InverseMethod::SpaceTime) = (
                mesh_ratio::check(&section, law, length, t1 - t0, ns, nt),
                allow_unstable,
                method,
            ) {
                issues.push(problem(
                    "mesh",
                    format!(
                        "{e}. (To solve anyway, for a study of the condition, set \
                         mesh.allow_unstable = true.)"
                    ),
                ));
            } else {
                let m = SpaceTimeMesh {
                    t_start: t0,
                    t_end: t1,
                    elements_s: ns,
                    elements_t: nt,
                };
                if let Some((field, message)) = crate::io::scenario::time_resolution(t0, t1, m.ht())
                {
                    issues.push(problem(field, message));
                }
                // the solver's own check of its mesh, with its message
                if method == InverseMethod::Characteristics
                    && let Err(e) = crate::inverse::characteristics_solver::check_mesh(&m)
                {
                    issues.push(match e {
                        crate::inverse::InverseError::Input(p) => p,
                        other => problem("mesh", other.to_string()),
                    });
                }
                mesh = Some(m);
            }
        }
        // trajectory
        let tip0 = beam.initial_pose(if length_ok { length } else { 0.0 });
        let order = if matches!(tip, TipLaw::Mass { .. }) {
            2
        } else {
            1
        };
        let profile = |issues: &mut Vec<InputError>, t_on: f64, dur: f64| {
            if !t_on.is_finite() {
                issues.push(problem(
                    "trajectory.t0",
                    format!("must be finite, got {t_on}"),
                ));
            }
            if !(dur.is_finite() && dur > 0.0) {
                issues.push(problem(
                    "trajectory.duration",
                    format!("must be finite and > 0 (s), got {dur}"),
                ));
            }
            if time_ok && t_on < t0 {
                issues.push(problem("trajectory.t0", format!("the motion starts at {t_on} s, before time.start = {t0} s; the beam starts at rest, so the time domain must begin before the motion")));
            }
            RestToRestProfile {
                t0: t_on,
                duration: dur,
            }
        };
        let trajectory: Option<Box<dyn TipTrajectory>> = match &raw.trajectory {
            RawTrajectory::Arc {
                angle,
                t0: t_on,
                duration,
                center,
            } => {
                bad_nonfinite(&mut issues, "trajectory.angle", *angle);
                let p = profile(&mut issues, *t_on, *duration);
                Some(Box::new(RestToRestArc {
                    start: tip0,
                    center: center.unwrap_or([base[0], base[1]]),
                    angle: *angle,
                    profile: p,
                }))
            }
            RawTrajectory::Line {
                delta,
                t0: t_on,
                duration,
            } => {
                for (k, &v) in delta.iter().enumerate() {
                    bad_nonfinite(&mut issues, &format!("trajectory.delta[{k}]"), v);
                }
                let p = profile(&mut issues, *t_on, *duration);
                Some(Box::new(RestToRestLine {
                    start: tip0,
                    delta: *delta,
                    profile: p,
                }))
            }
            RawTrajectory::Csv { path } => {
                let full = base_dir.join(path);
                input_files.push(full.clone());
                match CsvTrajectory::from_path_limited(&full, limit) {
                    Err(e) => {
                        issues.push(problem("trajectory.path", e.to_string()));
                        None
                    }
                    Ok(csv) => {
                        if time_ok
                            && length_ok
                            && let Err(e) = csv.check(t0, t1, tip0, order)
                        {
                            issues.push(problem("trajectory.path", e.to_string()));
                        }
                        Some(Box::new(csv))
                    }
                }
            }
            RawTrajectory::Samples { t, pose } => {
                match CsvTrajectory::from_samples(t, pose, "trajectory samples") {
                    Err((field, e)) => {
                        issues.push(problem(&format!("trajectory.{field}"), e.to_string()));
                        None
                    }
                    Ok(samples) => {
                        if time_ok
                            && length_ok
                            && let Err(e) = samples.check(t0, t1, tip0, order)
                        {
                            issues.push(problem("trajectory.pose", e.to_string()));
                        }
                        Some(Box::new(samples))
                    }
                }
            }
        };
        if let Some(tr) = &trajectory
            && section_ok
            && length_ok
            && time_ok
        {
            // the built-in paths start at the tip only if round-off lets them (a centre
            // 10³⁰⁰ m away does not); a CSV path has its own check above
            if !matches!(
                raw.trajectory,
                RawTrajectory::Csv { .. } | RawTrajectory::Samples { .. }
            ) && let Err(TrajectoryError::Data { message, .. }) =
                check_start_pose(tr.as_ref(), t0, tip0, length)
            {
                let (field, hint) = match &raw.trajectory {
                    RawTrajectory::Arc {
                        center: Some(c), ..
                    } => (
                        "trajectory.center",
                        format!(
                            " (the centre ({:e}, {:e}) is {:.3e} m from the tip: round-off moves \
                             the start of the arc; put the centre nearer the tip)",
                            c[0],
                            c[1],
                            (c[0] - tip0[0]).hypot(c[1] - tip0[1])
                        ),
                    ),
                    _ => ("trajectory", String::new()),
                };
                issues.push(problem(field, format!("{message}{hint}")));
            }
            let room = actuation_room(&section, law, length, (t0, t1), tr.motion_interval());
            let room_ok = room.is_empty();
            issues.extend(room);
            // the characteristics start from rest below time.start: the pre-actuation must fit
            // (the same room, checked by the solver's own criterion)
            if room_ok
                && method == InverseMethod::Characteristics
                && let Err(e) = crate::inverse::characteristics_solver::check_pre_actuation(
                    &beam,
                    t0,
                    tr.as_ref(),
                )
            {
                issues.push(problem("time.start", e.to_string()));
            }
        }
        let plots = raw.output.and_then(|o| o.plots).unwrap_or(true);
        let mut verify = VerifySettings::default();
        if let Some(v) = &raw.verify {
            verify.closed_loop = v.closed_loop.unwrap_or(true);
            for (field, value, slot) in [
                (
                    "verify.position_tolerance",
                    v.position_tolerance,
                    &mut verify.position_tolerance,
                ),
                (
                    "verify.angle_tolerance",
                    v.angle_tolerance,
                    &mut verify.angle_tolerance,
                ),
            ] {
                match value {
                    Some(x) if !(x.is_finite() && x > 0.0) => issues.push(problem(
                        field,
                        format!("must be finite and > 0, got {x}; leave it out for the default"),
                    )),
                    _ => *slot = value,
                }
            }
        }
        match (issues.is_empty(), mesh, trajectory) {
            (true, Some(mesh), Some(trajectory)) => Ok(Self {
                origin: origin.to_owned(),
                beam,
                method,
                mesh,
                mesh_auto,
                allow_unstable,
                trajectory,
                newton,
                plots,
                verify,
                echo: serde_json::to_value(&table).unwrap_or(serde_json::Value::Null),
                input_files,
            }),
            _ => Err(ScenarioError::Invalid {
                origin: origin.to_owned(),
                problems: issues,
            }),
        }
    }
}
