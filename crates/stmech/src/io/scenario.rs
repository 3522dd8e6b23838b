//! Scenario files: a TOML description of bodies, loads, time interval and method.
//!
//! Parsing happens in two stages so that a user sees every problem at once:
//!
//! 1. `toml` + serde turn the text into raw structs. Syntax errors, unknown fields and wrong
//!    types stop here (with line and column from the `toml` crate).
//! 2. Validation checks every value and collects *all* problems into one
//!    [`ScenarioError::Invalid`], each naming the field path (`bodies[0].box.density`) with
//!    what is wrong and how to fix it.
//!
//! Only a fully valid scenario becomes a [`Scenario`], whose [`MultibodySystem`] is then
//! guaranteed to satisfy the model's preconditions (positive definite mass matrices, rigid
//! initial velocities, loads on existing bodies).
//!
//! See `examples/rigid_body/*.toml` in the repository for annotated files.

use crate::error::InputError;
use crate::math::{Vec3, cross, dot, norm};
use crate::model::{
    Constraint, Distance, JointBody, Load, LoadKind, MassProperties, MultibodySystem, Prescribed,
    Revolute, RigidBody, Spherical, TimeFunction,
};
use crate::solve::NewtonParams;
use crate::solve::scheme::{Formulation, Method, SpaceTimeParams, ThetaScheme};
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Largest Lagrange order accepted for the space-time method.
pub const MAX_ORDER: i64 = 8;
/// Largest number of Gauss points per element accepted.
pub const MAX_QUADRATURE_POINTS: i64 = 32;
/// Largest number of time elements in one space-time block: a block is one sparse system,
/// and beyond this its LU factorisation no longer fits a workstation comfortably.
pub const MAX_ELEMENTS_PER_BLOCK: i64 = 1_000_000;
/// Largest number of time nodes (or steps) of a whole run: every node is stored and
/// written to `trajectory.csv`, so this bounds memory and disk use.
pub const MAX_NODES: f64 = 1.0e7;
/// Largest Newton iteration limit accepted: Newton converges quadratically or not at all,
/// and a huge limit only makes a diverging run spin for a long time.
pub const MAX_NEWTON_ITERATIONS: i64 = 1000;
/// Tolerance for orthonormal directors and for rigid initial director velocities.
pub const RIGIDITY_TOLERANCE: f64 = 1e-9;

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read scenario file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not valid TOML, or does not have the expected structure (unknown field,
    /// wrong type, missing required field). The message of the `toml` crate names line and
    /// column.
    #[error("{origin}: {source}")]
    Syntax {
        /// File name or other description of the input.
        origin: String,
        /// The parser's error.
        source: Box<toml::de::Error>,
    },
    /// The structure is fine but values are not: every problem found, in file order.
    #[error("{origin}: {} problem{} in the scenario:{}", problems.len(), if problems.len() == 1 { "" } else { "s" }, bullet_list(problems))]
    Invalid {
        /// File name or other description of the input.
        origin: String,
        /// One [`InputError::Invalid`] per problem, naming the field path.
        problems: Vec<InputError>,
    },
    /// Every problem of a scenario file (structural and invalid values), each with the line of
    /// its field in the file when it has one: what [`crate::io::load::load_text`] reports.
    #[error("{origin}: {} problem{} in the scenario:{}", problems.len(), if problems.len() == 1 { "" } else { "s" }, located_list(problems, lines))]
    Located {
        /// File name or other description of the input.
        origin: String,
        /// One [`InputError::Invalid`] per problem, naming the field path.
        problems: Vec<InputError>,
        /// The 1-based line of each problem's field (same order as `problems`).
        lines: Vec<Option<usize>>,
    },
}

impl ScenarioError {
    /// The individual problems of an [`Invalid`](Self::Invalid) or
    /// [`Located`](Self::Located) scenario (empty otherwise).
    pub fn problems(&self) -> &[InputError] {
        match self {
            Self::Invalid { problems, .. } | Self::Located { problems, .. } => problems,
            _ => &[],
        }
    }
}

fn located_list(problems: &[InputError], lines: &[Option<usize>]) -> String {
    let mut s = String::new();
    for (k, p) in problems.iter().enumerate() {
        match lines.get(k).copied().flatten() {
            Some(line) => {
                let _ = write!(s, "\n  - line {line}: {p}");
            }
            None => {
                let _ = write!(s, "\n  - {p}");
            }
        }
    }
    s
}

fn bullet_list(problems: &[InputError]) -> String {
    let mut s = String::new();
    for p in problems {
        let _ = write!(s, "\n  - {p}");
    }
    s
}

/// A validated scenario, ready to simulate.
#[derive(Debug)]
pub struct Scenario {
    /// Where the scenario came from (file path or a description), for messages and summaries.
    pub origin: String,
    /// The bodies with their loads and orthonormality constraints.
    pub system: MultibodySystem,
    /// Number of loads in the scenario.
    pub n_loads: usize,
    /// Label of every constraint of [`system`](Self::system), in its order:
    /// `<body>.orthonormality` for each body, then the joints' names (default `joint<i>`).
    pub constraint_labels: Vec<String>,
    /// Start of the simulated interval (s).
    pub t_start: f64,
    /// End of the simulated interval (s).
    pub t_end: f64,
    /// Time discretisation.
    pub method: Method,
    /// Newton tolerances.
    pub newton: NewtonParams,
    /// Whether PNG plots are wanted (`[output] plots`).
    pub plots: bool,
    /// The parsed input as JSON, echoed into `summary.json` so results carry their input.
    pub echo: serde_json::Value,
}

impl Scenario {
    /// Parses and validates scenario text; `origin` names it in messages (e.g. the file path).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ScenarioError> {
        let syntax = |e: toml::de::Error| ScenarioError::Syntax {
            origin: origin.to_owned(),
            source: Box::new(e),
        };
        // Typed parse first: it carries spans, so structural errors get line and column.
        let raw: RawScenario = toml::from_str(text).map_err(syntax)?;
        // Untyped parse for the echo and for the generic "every number is finite" walk.
        let table: toml::Table = text.parse().map_err(syntax)?;
        let mut issues = Issues::default();
        let mut path = String::new();
        check_finite(&toml::Value::Table(table.clone()), &mut path, &mut issues);
        let built = validate(raw, &mut issues);
        match built {
            Some(b) if issues.0.is_empty() => {
                let echo = serde_json::to_value(&table).unwrap_or(serde_json::Value::Null);
                Ok(Self {
                    origin: origin.to_owned(),
                    system: b.system,
                    n_loads: b.n_loads,
                    constraint_labels: b.constraint_labels,
                    t_start: b.t_start,
                    t_end: b.t_end,
                    method: b.method,
                    newton: b.newton,
                    plots: b.plots,
                    echo,
                })
            }
            _ => Err(ScenarioError::Invalid {
                origin: origin.to_owned(),
                problems: issues.0,
            }),
        }
    }

    /// Reads and validates a scenario file.
    pub fn from_path(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// One-line description of the method and its parameters, e.g. for failure summaries
    /// (successful runs use [`Trajectory::method`](crate::solve::Trajectory::method)).
    pub fn method_description(&self) -> String {
        describe_method(&self.method, self.t_start, self.t_end)
    }
}

/// One-line description of a method on `[t_start, t_end]`.
pub fn describe_method(method: &Method, t_start: f64, t_end: f64) -> String {
    match method {
        Method::SpaceTime(p) => format!(
            "space-time {}, order {}, {} blocks × {} elements, h = {:.3e} s",
            match p.formulation {
                Formulation::PetrovGalerkin => "Petrov-Galerkin",
                Formulation::Bubnov => "Bubnov-Galerkin",
            },
            p.order,
            p.blocks,
            p.elements_per_block,
            p.element_size(t_start, t_end)
        ),
        Method::TimeStepping { scheme, step } => {
            format!("{} time stepping, h = {step:.3e} s", scheme.name())
        }
    }
}

// ---------------------------------------------------------------------------------------
// Raw (as written) structure. Integers are i64 so that negative values reach validation and
// get a message with a remedy instead of serde's "expected usize".

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    time: RawTime,
    method: RawMethod,
    newton: Option<RawNewton>,
    #[serde(default)]
    bodies: Vec<RawBody>,
    #[serde(default)]
    loads: Vec<RawLoad>,
    #[serde(default)]
    joints: Vec<RawJoint>,
    output: Option<RawOutput>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum RawJointKind {
    Spherical,
    Distance,
    Revolute,
    Prescribed,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJoint {
    kind: RawJointKind,
    name: Option<String>,
    body_a: String,
    #[serde(default)]
    point_a: Vec3,
    body_b: Option<String>,
    #[serde(default)]
    point_b: Vec3,
    length: Option<f64>,
    axis_a: Option<Vec3>,
    axis_b: Option<Vec3>,
    path: Option<Vec<Vec3>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTime {
    #[serde(default)]
    start: f64,
    end: f64,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum MethodKind {
    SpaceTime,
    ImplicitEuler,
    Midpoint,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMethod {
    kind: MethodKind,
    order: Option<i64>,
    elements_per_block: Option<i64>,
    blocks: Option<i64>,
    quadrature_points: Option<i64>,
    formulation: Option<Formulation>,
    step: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNewton {
    tolerance: Option<f64>,
    max_iterations: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBox {
    edges: Vec3,
    density: f64,
    #[serde(default)]
    reference_offset: Vec3,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBody {
    name: String,
    #[serde(rename = "box")]
    box_: Option<RawBox>,
    mass: Option<f64>,
    first_moment: Option<Vec3>,
    euler_tensor: Option<[Vec3; 3]>,
    position: Option<Vec3>,
    directors: Option<[Vec3; 3]>,
    velocity: Option<Vec3>,
    angular_velocity: Option<Vec3>,
    director_velocities: Option<[Vec3; 3]>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum RawLoadKind {
    Torque,
    BodyForce,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLoad {
    body: String,
    kind: RawLoadKind,
    vector: Vec3,
    time_function: Option<RawTimeFunction>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum TimeFunctionKind {
    Constant,
    Window,
    Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTimeFunction {
    kind: TimeFunctionKind,
    start: Option<f64>,
    end: Option<f64>,
    times: Option<Vec<f64>>,
    values: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    plots: Option<bool>,
}

// ---------------------------------------------------------------------------------------
// Validation.

#[derive(Default)]
/// Problems found while validating a scenario, in file order (shared by the scenario parsers).
pub(crate) struct Issues(pub(crate) Vec<InputError>);

impl Issues {
    /// Records a problem of `field`.
    pub(crate) fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(InputError::Invalid {
            field: field.into(),
            message: message.into(),
        });
    }
}

/// Reports every non-finite float (TOML allows `nan` and `inf`) with its path. The typed
/// checks below skip non-finite values so that each problem is reported once.
pub(crate) fn check_finite(v: &toml::Value, path: &mut String, issues: &mut Issues) {
    match v {
        toml::Value::Float(x) if !x.is_finite() => {
            issues.push(
                path.clone(),
                format!("must be a finite number, got {x}; TOML's nan and inf are not allowed, write a finite value"),
            );
        }
        toml::Value::Table(t) => {
            for (k, v) in t {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                check_finite(v, path, issues);
                path.truncate(len);
            }
        }
        toml::Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                let len = path.len();
                let _ = write!(path, "[{i}]");
                check_finite(v, path, issues);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn all_finite<'a>(xs: impl IntoIterator<Item = &'a f64>) -> bool {
    xs.into_iter().all(|x| x.is_finite())
}

struct Built {
    system: MultibodySystem,
    n_loads: usize,
    constraint_labels: Vec<String>,
    t_start: f64,
    t_end: f64,
    method: Method,
    newton: NewtonParams,
    plots: bool,
}

/// Checks all values; returns the built model only if nothing is wrong so far (the caller
/// still checks `issues`, which may hold problems found before).
fn validate(raw: RawScenario, issues: &mut Issues) -> Option<Built> {
    let (t_start, t_end) = (raw.time.start, raw.time.end);
    let times_ok = t_start.is_finite() && t_end.is_finite();
    if times_ok && t_end <= t_start {
        issues.push(
            "time.end",
            format!(
                "must be greater than time.start = {t_start} s (got {t_end} s); set end > start"
            ),
        );
    }
    let duration = if times_ok && t_end > t_start {
        Some(t_end - t_start)
    } else {
        None
    };
    let method = validate_method(&raw.method, duration, issues);
    let newton = validate_newton(raw.newton.as_ref(), issues);
    let bodies = validate_bodies(&raw.bodies, issues);
    let names: Vec<&str> = raw.bodies.iter().map(|b| b.name.as_str()).collect();
    let loads = validate_loads(&raw.loads, &names, issues);
    let joints = validate_joints(&raw.joints, &names, &bodies, t_start, issues);
    let plots = raw.output.and_then(|o| o.plots).unwrap_or(true);
    if !issues.0.is_empty() {
        return None;
    }
    let n_loads = loads.len();
    let mut constraint_labels: Vec<String> = bodies
        .iter()
        .map(|b| format!("{}.orthonormality", b.name))
        .collect();
    let mut constraints = Vec::with_capacity(joints.len());
    for (label, c) in joints {
        constraint_labels.push(label);
        constraints.push(c);
    }
    match MultibodySystem::new(bodies, loads, constraints) {
        Ok(system) => Some(Built {
            system,
            n_loads,
            constraint_labels,
            t_start,
            t_end,
            method: method?,
            newton,
            plots,
        }),
        Err(e) => {
            // Unreachable after the checks above; kept so a model-side precondition added
            // later still surfaces as an input problem instead of a panic.
            issues.0.push(InputError::System(e));
            None
        }
    }
}

fn validate_method(m: &RawMethod, duration: Option<f64>, issues: &mut Issues) -> Option<Method> {
    let before = issues.0.len();
    match m.kind {
        MethodKind::SpaceTime => {
            if m.step.is_some() {
                issues.push(
                    "method.step",
                    "only for time stepping (kind = \"implicit-euler\" or \"midpoint\"); \
                     space-time uses elements_per_block and blocks, so remove step",
                );
            }
            let order = m.order.unwrap_or(1);
            if !(1..=MAX_ORDER).contains(&order) {
                issues.push(
                    "method.order",
                    format!("must be between 1 and {MAX_ORDER} (got {order})"),
                );
            }
            let blocks = m.blocks.unwrap_or(1);
            if blocks < 1 {
                issues.push(
                    "method.blocks",
                    format!("must be at least 1 (got {blocks})"),
                );
            }
            let epb = match m.elements_per_block {
                None => {
                    issues.push(
                        "method.elements_per_block",
                        "required for space-time: the number of time elements per block, e.g. 1000",
                    );
                    0
                }
                Some(n) if n < 1 => {
                    issues.push(
                        "method.elements_per_block",
                        format!("must be at least 1 (got {n})"),
                    );
                    0
                }
                Some(n) if n > MAX_ELEMENTS_PER_BLOCK => {
                    issues.push(
                        "method.elements_per_block",
                        format!(
                            "at most {MAX_ELEMENTS_PER_BLOCK} elements fit in one block (got {n}); \
                             split the time interval into more blocks instead"
                        ),
                    );
                    0
                }
                Some(n) => n,
            };
            if let Some(qp) = m.quadrature_points
                && !(1..=MAX_QUADRATURE_POINTS).contains(&qp)
            {
                issues.push(
                    "method.quadrature_points",
                    format!(
                        "must be between 1 and {MAX_QUADRATURE_POINTS} (got {qp}); \
                         omit it to use the exact default"
                    ),
                );
            }
            if epb >= 1 && blocks >= 1 && (1..=MAX_ORDER).contains(&order) {
                let nodes = blocks as f64 * epb as f64 * order as f64 + 1.0;
                if nodes > MAX_NODES {
                    issues.push(
                        "method.blocks",
                        format!(
                            "blocks × elements_per_block × order = {nodes:.0} time nodes exceeds the \
                             limit of {MAX_NODES:.0}; use fewer elements or a higher order"
                        ),
                    );
                }
            }
            if issues.0.len() > before {
                return None;
            }
            Some(Method::SpaceTime(SpaceTimeParams {
                order: order as usize,
                elements_per_block: epb as usize,
                blocks: blocks as usize,
                quadrature_points: m.quadrature_points.map(|q| q as usize),
                formulation: m.formulation.unwrap_or_default(),
            }))
        }
        MethodKind::ImplicitEuler | MethodKind::Midpoint => {
            let kind = if m.kind == MethodKind::Midpoint {
                "midpoint"
            } else {
                "implicit-euler"
            };
            for (given, field) in [
                (m.order.is_some(), "order"),
                (m.elements_per_block.is_some(), "elements_per_block"),
                (m.blocks.is_some(), "blocks"),
                (m.quadrature_points.is_some(), "quadrature_points"),
                (m.formulation.is_some(), "formulation"),
            ] {
                if given {
                    issues.push(
                        format!("method.{field}"),
                        format!(
                            "only for kind = \"space-time\"; {kind} time stepping is set by step alone, \
                             so remove {field}"
                        ),
                    );
                }
            }
            let step = match m.step {
                None => {
                    issues.push(
                        "method.step",
                        format!("required for {kind}: the time step in s, e.g. step = 1e-3"),
                    );
                    None
                }
                Some(h) if !h.is_finite() => None, // reported by the finiteness walk
                Some(h) if h <= 0.0 => {
                    issues.push("method.step", format!("must be positive (got {h} s)"));
                    None
                }
                Some(h) => match duration {
                    Some(d) if h > d => {
                        issues.push(
                            "method.step",
                            format!("must not exceed the duration time.end − time.start = {d} s (got {h} s)"),
                        );
                        None
                    }
                    Some(d) if d / h > MAX_NODES => {
                        issues.push(
                            "method.step",
                            format!(
                                "{:.0} steps exceed the limit of {MAX_NODES:.0}; use a larger step",
                                (d / h).ceil()
                            ),
                        );
                        None
                    }
                    _ => Some(h),
                },
            };
            if issues.0.len() > before {
                return None;
            }
            let scheme = if m.kind == MethodKind::Midpoint {
                ThetaScheme::MIDPOINT
            } else {
                ThetaScheme::IMPLICIT_EULER
            };
            step.map(|step| Method::TimeStepping { scheme, step })
        }
    }
}

fn validate_newton(n: Option<&RawNewton>, issues: &mut Issues) -> NewtonParams {
    let mut params = NewtonParams::default();
    let Some(n) = n else { return params };
    if let Some(tol) = n.tolerance {
        if tol.is_finite() && tol <= 0.0 {
            issues.push(
                "newton.tolerance",
                format!("must be positive (got {tol}); the default is 1e-10"),
            );
        }
        params.tolerance = tol;
    }
    if let Some(it) = n.max_iterations {
        if !(1..=MAX_NEWTON_ITERATIONS).contains(&it) {
            issues.push(
                "newton.max_iterations",
                format!(
                    "must be between 1 and {MAX_NEWTON_ITERATIONS} (got {it}); the default is 25"
                ),
            );
        } else {
            params.max_iterations = it as usize;
        }
    }
    params
}

const IDENTITY: [Vec3; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn validate_bodies(raw: &[RawBody], issues: &mut Issues) -> Vec<RigidBody> {
    if raw.is_empty() {
        issues.push(
            "bodies",
            "at least one [[bodies]] entry is required; add one with a name and a box or mass properties",
        );
    }
    let mut out = Vec::with_capacity(raw.len());
    for (i, b) in raw.iter().enumerate() {
        let at = |f: &str| format!("bodies[{i}].{f}");
        if !valid_name(&b.name) {
            issues.push(
                at("name"),
                format!(
                    "{:?} is not a valid name: use letters, digits, '_', '-' or '.' (it becomes a CSV column prefix)",
                    b.name
                ),
            );
        } else if b.name == "ground" {
            issues.push(
                at("name"),
                "\"ground\" is reserved for the fixed frame in [[joints]]; choose another name",
            );
        } else if let Some(j) = raw[..i].iter().position(|o| o.name == b.name) {
            issues.push(
                at("name"),
                format!(
                    "duplicate body name {:?} (also bodies[{j}]); names must be unique",
                    b.name
                ),
            );
        }
        let directors = b.directors.unwrap_or(IDENTITY);
        let directors_finite = all_finite(directors.iter().flatten());
        let mass = validate_mass(b, i, &directors, directors_finite, issues);
        if b.angular_velocity.is_some() && b.director_velocities.is_some() {
            issues.push(
                at("director_velocities"),
                "give either angular_velocity or director_velocities, not both",
            );
        }
        let director_velocities = match (b.angular_velocity, b.director_velocities) {
            (Some(w), _) => RigidBody::director_velocities_from_angular_velocity(&directors, &w),
            (None, Some(v)) => v,
            (None, None) => [[0.0; 3]; 3],
        };
        let body = RigidBody {
            name: b.name.clone(),
            mass: mass.unwrap_or(MassProperties {
                mass: 1.0,
                first_moment: [0.0; 3],
                euler_tensor: IDENTITY,
            }),
            position: b.position.unwrap_or([0.0; 3]),
            directors,
            velocity: b.velocity.unwrap_or([0.0; 3]),
            director_velocities,
        };
        if b.angular_velocity.is_none()
            && b.director_velocities.is_some()
            && directors_finite
            && all_finite(director_velocities.iter().flatten())
        {
            let v = body.initial_velocity_constraint_violation();
            if v > RIGIDITY_TOLERANCE {
                issues.push(
                    at("director_velocities"),
                    format!(
                        "not a rigid motion: ½(ḋ_i·d_j + d_i·ḋ_j) reaches {v:.3e} > {RIGIDITY_TOLERANCE:e}; \
                         use angular_velocity = [ωx, ωy, ωz] (rad/s, global frame) instead"
                    ),
                );
            }
        }
        out.push(body);
    }
    out
}

/// Mass properties of body `i`, and the director checks that depend on how they are given.
fn validate_mass(
    b: &RawBody,
    i: usize,
    directors: &[Vec3; 3],
    directors_finite: bool,
    issues: &mut Issues,
) -> Option<MassProperties> {
    let at = |f: &str| format!("bodies[{i}].{f}");
    let explicit = b.mass.is_some() || b.first_moment.is_some() || b.euler_tensor.is_some();
    let props = match &b.box_ {
        Some(_) if explicit => {
            issues.push(
                at("box"),
                "give either box = {...} or mass/first_moment/euler_tensor, not both",
            );
            None
        }
        Some(bx) => {
            let mut ok = true;
            if bx.density.is_finite() && bx.density <= 0.0 {
                issues.push(
                    at("box.density"),
                    format!("must be positive (got {} kg/m³)", bx.density),
                );
                ok = false;
            }
            for (k, e) in bx.edges.iter().enumerate() {
                if e.is_finite() && *e <= 0.0 {
                    issues.push(
                        at(&format!("box.edges[{k}]")),
                        format!("edge lengths must be positive (got {e} m)"),
                    );
                    ok = false;
                }
            }
            ok &=
                bx.density.is_finite() && all_finite(&bx.edges) && all_finite(&bx.reference_offset);
            let worst = orthonormality_defect(directors);
            if directors_finite && worst > RIGIDITY_TOLERANCE {
                issues.push(
                    at("directors"),
                    format!(
                        "must be orthonormal when box is used (|d_i·d_j − δ_ij| reaches {worst:.3e} > \
                         {RIGIDITY_TOLERANCE:e}); normalise them, or give mass/first_moment/euler_tensor \
                         for skewed directors"
                    ),
                );
            }
            ok.then(|| MassProperties::from_box(bx.edges, bx.density, bx.reference_offset))
        }
        None if !explicit => {
            issues.push(
                at("box"),
                "no mass properties: add box = { edges = [..], density = .. } or mass and euler_tensor",
            );
            None
        }
        None => {
            let mut ok = true;
            match b.mass {
                None => {
                    issues.push(
                        at("mass"),
                        "required with first_moment/euler_tensor: total mass in kg",
                    );
                    ok = false;
                }
                Some(m) if m.is_finite() && m <= 0.0 => {
                    issues.push(at("mass"), format!("must be positive (got {m} kg)"));
                    ok = false;
                }
                Some(m) => ok &= m.is_finite(),
            }
            if b.euler_tensor.is_none() {
                issues.push(
                    at("euler_tensor"),
                    "required with mass: E^ij = ∫ρ θ^i θ^j dV in kg·m², e.g. diag(1, 0.25, 0.25) for the paper's box",
                );
                ok = false;
            }
            let first_moment = b.first_moment.unwrap_or([0.0; 3]);
            let euler_tensor = b.euler_tensor.unwrap_or(IDENTITY);
            ok &= all_finite(&first_moment) && all_finite(euler_tensor.iter().flatten());
            if directors_finite && !linearly_independent(directors) {
                issues.push(
                    at("directors"),
                    "must be linearly independent (they span the body's convective frame); give three \
                     vectors that are not coplanar, e.g. the identity",
                );
            }
            let mp = MassProperties {
                mass: b.mass.unwrap_or(1.0),
                first_moment,
                euler_tensor,
            };
            if ok && !mp.is_positive_definite() {
                issues.push(
                    at("euler_tensor"),
                    "the mass matrix [[M, Sᵀ], [S, E]] is not symmetric positive definite: \
                     euler_tensor must be symmetric and E − S Sᵀ/M positive definite",
                );
                ok = false;
            }
            ok.then_some(mp)
        }
    };
    if let Some(mp) = &props
        && b.box_.is_some()
        && !mp.is_positive_definite()
    {
        // Only for extreme magnitudes (round-off in the Cholesky test).
        issues.push(
            at("box"),
            "the resulting mass matrix is not positive definite; check the magnitudes",
        );
        return None;
    }
    props
}

/// `max |d_i·d_j − δ_ij|`.
fn orthonormality_defect(d: &[Vec3; 3]) -> f64 {
    let mut worst: f64 = 0.0;
    for i in 0..3 {
        for j in i..3 {
            let target = if i == j { 1.0 } else { 0.0 };
            worst = worst.max((dot(&d[i], &d[j]) - target).abs());
        }
    }
    worst
}

fn linearly_independent(d: &[Vec3; 3]) -> bool {
    let scale = norm(&d[0]) * norm(&d[1]) * norm(&d[2]);
    let det = dot(&d[0], &cross(&d[1], &d[2]));
    scale > 0.0 && det.abs() > 1e-9 * scale
}

fn validate_loads(raw: &[RawLoad], names: &[&str], issues: &mut Issues) -> Vec<Load> {
    let mut out = Vec::with_capacity(raw.len());
    for (i, l) in raw.iter().enumerate() {
        let at = |f: &str| format!("loads[{i}].{f}");
        let body = names.iter().position(|n| *n == l.body);
        if body.is_none() {
            let known = if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            };
            issues.push(
                at("body"),
                format!("no body named {:?}; known bodies: {known}", l.body),
            );
        }
        let time_function = validate_time_function(l.time_function.as_ref(), i, issues);
        let kind = match l.kind {
            RawLoadKind::Torque => LoadKind::Torque(l.vector),
            RawLoadKind::BodyForce => LoadKind::BodyForce(l.vector),
        };
        if let (Some(body), Some(time_function)) = (body, time_function) {
            out.push(Load {
                body,
                kind,
                time_function,
            });
        }
    }
    out
}

/// Largest `|Φ(q_0, t_0)|` accepted for a joint (m or m², as the constraint).
pub const JOINT_CONSISTENCY_TOLERANCE: f64 = 1e-10;

/// Joints: named bodies, kind-specific fields, and consistency with the initial state
/// (`|Φ(q_0, t_0)| < 1e-10`, `|G v_0 + ∂Φ/∂t| < 1e-8 (1 + |v_0|)`).
fn validate_joints(
    raw: &[RawJoint],
    names: &[&str],
    bodies: &[RigidBody],
    t_start: f64,
    issues: &mut Issues,
) -> Vec<(String, Box<dyn Constraint>)> {
    let mut out: Vec<(String, Box<dyn Constraint>)> = Vec::with_capacity(raw.len());
    let mut labels: Vec<String> = Vec::new();
    for (i, j) in raw.iter().enumerate() {
        let at = |f: &str| format!("joints[{i}].{f}");
        let before = issues.0.len();
        let known = || {
            let mut k = vec!["ground"];
            k.extend_from_slice(names);
            k.join(", ")
        };
        let lookup = |name: &str, field: &str, issues: &mut Issues| -> Option<JointBody> {
            if name == "ground" {
                return Some(JointBody::Ground);
            }
            match names.iter().position(|n| *n == name) {
                Some(b) => Some(JointBody::Body(b)),
                None => {
                    issues.push(
                        at(field),
                        format!("no body named {name:?}; known bodies: {}", known()),
                    );
                    None
                }
            }
        };
        let label = j.name.clone().unwrap_or_else(|| format!("joint{i}"));
        if !valid_name(&label) {
            issues.push(
                at("name"),
                format!("{label:?} is not a valid name: use letters, digits, '_', '-' or '.'"),
            );
        } else if labels.contains(&label) || names.contains(&label.as_str()) {
            issues.push(
                at("name"),
                format!("{label:?} is already used by another joint or body; names must be unique"),
            );
        }
        labels.push(label.clone());
        let a = lookup(&j.body_a, "body_a", issues);
        let kind = j.kind;
        let kind_name = match kind {
            RawJointKind::Spherical => "spherical",
            RawJointKind::Distance => "distance",
            RawJointKind::Revolute => "revolute",
            RawJointKind::Prescribed => "prescribed",
        };
        let not_for = |field: &str, issues: &mut Issues| {
            issues.push(
                at(field),
                format!("not used by a {kind_name} joint; remove it"),
            );
        };
        let b = match (kind, &j.body_b) {
            (RawJointKind::Prescribed, Some(_)) => {
                not_for("body_b", issues);
                None
            }
            (RawJointKind::Prescribed, None) => Some(JointBody::Ground),
            (_, None) => {
                issues.push(
                    at("body_b"),
                    format!(
                        "required for a {kind_name} joint: the second body's name, or \"ground\""
                    ),
                );
                None
            }
            (_, Some(name)) => lookup(name, "body_b", issues),
        };
        if kind == RawJointKind::Prescribed && a == Some(JointBody::Ground) {
            issues.push(
                at("body_a"),
                "a prescribed motion needs a moving body, not \"ground\"",
            );
        }
        if let (Some(a), Some(b)) = (a, b)
            && kind != RawJointKind::Prescribed
            && a == b
        {
            {
                let what = if a == JointBody::Ground {
                    "both bodies are \"ground\""
                } else {
                    "a joint needs two different bodies"
                };
                issues.push(
                    at("body_b"),
                    format!("{what}; name another body or \"ground\""),
                );
            }
        }
        if kind != RawJointKind::Distance && j.length.is_some() {
            not_for("length", issues);
        }
        if kind != RawJointKind::Revolute {
            if j.axis_a.is_some() {
                not_for("axis_a", issues);
            }
            if j.axis_b.is_some() {
                not_for("axis_b", issues);
            }
        }
        if kind != RawJointKind::Prescribed {
            if j.path.is_some() {
                not_for("path", issues);
            }
        } else if j.point_b != [0.0; 3] {
            not_for("point_b", issues);
        }
        if let Some(l) = j.length
            && l.is_finite()
            && l <= 0.0
        {
            {
                issues.push(
                    at("length"),
                    format!("must be positive (m), got {l}; omit it to use the initial distance"),
                );
            }
        }
        let mut axes = [[0.0; 3]; 2];
        if kind == RawJointKind::Revolute {
            for (k, (field, axis)) in [("axis_a", j.axis_a), ("axis_b", j.axis_b)]
                .into_iter()
                .enumerate()
            {
                match axis {
                    None => issues.push(
                        at(field),
                        "required for a revolute joint: the hinge axis in the body's director \
                         components (global components for \"ground\")",
                    ),
                    // `!(… >= …)` also catches NaN/∞ components, which must not reach the
                    // constraint (its constructor requires a finite, non-zero axis)
                    Some(v) if !(all_finite(&v) && norm(&v) >= 1e-12) => issues.push(
                        at(field),
                        format!(
                            "the hinge axis must be finite and must not have zero length (got \
                             {v:?}); give e.g. [0.0, 0.0, 1.0]"
                        ),
                    ),
                    Some(v) => axes[k] = v,
                }
            }
        }
        if let Some(path) = &j.path
            && path.is_empty()
        {
            {
                issues.push(
                    at("path"),
                    "needs at least one coefficient: path = [[x0, y0, z0], [vx, vy, vz], ...] \
                     for γ(t) = Σ c_k (t − time.start)^k",
                );
            }
        }
        if issues.0.len() > before {
            continue;
        }
        let (Some(a), Some(b)) = (a, b) else { continue };
        let state = |body: JointBody| -> Option<([f64; 12], [f64; 12])> {
            match body {
                JointBody::Ground => None,
                JointBody::Body(k) => {
                    let bd = &bodies.get(k)?;
                    let q = bd.initial_q();
                    let mut v = [0.0; 12];
                    v[..3].copy_from_slice(&bd.velocity);
                    for d in 0..3 {
                        v[3 + 3 * d..6 + 3 * d].copy_from_slice(&bd.director_velocities[d]);
                    }
                    Some((q, v))
                }
            }
        };
        // bodies that failed validation are missing: skip the consistency check
        if bodies.len() != names.len()
            || [a, b]
                .iter()
                .any(|&x| x != JointBody::Ground && state(x).is_none())
        {
            continue;
        }
        let point = |body: JointBody, theta: &Vec3| -> Vec3 {
            match state(body) {
                None => *theta,
                Some((q, _)) => {
                    let mut x = [q[0], q[1], q[2]];
                    for d in 0..3 {
                        for k in 0..3 {
                            x[k] += theta[d] * q[3 + 3 * d + k];
                        }
                    }
                    x
                }
            }
        };
        let c: Box<dyn Constraint> = match kind {
            RawJointKind::Spherical => Box::new(Spherical::new(a, j.point_a, b, j.point_b)),
            RawJointKind::Distance => {
                let gap = crate::math::sub(&point(a, &j.point_a), &point(b, &j.point_b));
                let length = j.length.unwrap_or_else(|| norm(&gap));
                if length <= 0.0 {
                    issues.push(
                        at("point_b"),
                        "the two points coincide initially, so the rod would have zero length; \
                         use kind = \"spherical\" for coincident points",
                    );
                    continue;
                }
                Box::new(Distance::new(a, j.point_a, b, j.point_b, length))
            }
            RawJointKind::Revolute => {
                Box::new(Revolute::new(a, j.point_a, axes[0], b, j.point_b, axes[1]))
            }
            RawJointKind::Prescribed => {
                let JointBody::Body(k) = a else { continue };
                let path = j.path.clone().unwrap_or_else(|| vec![point(a, &j.point_a)]);
                Box::new(Prescribed::new(k, j.point_a, t_start, path))
            }
        };
        // consistency with the initial state
        let idx = c.indices();
        let (n, ne) = (idx.len(), c.n_eq());
        let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
        for (l, &gi) in idx.iter().enumerate() {
            let (qb, vb) = state(JointBody::Body(gi / 12)).unwrap_or(([0.0; 12], [0.0; 12]));
            q[l] = qb[gi % 12];
            v[l] = vb[gi % 12];
        }
        let (mut phi, mut g) = (vec![0.0; ne], vec![0.0; ne * n]);
        let (mut phi_t, mut phi_tt) = (vec![0.0; ne], vec![0.0; ne]);
        c.eval(&q, &vec![0.0; ne], &mut phi, &mut g, None);
        c.add_time_terms(t_start, &mut phi, &mut phi_t, &mut phi_tt);
        let worst = phi.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let field = match kind {
            RawJointKind::Prescribed => "path",
            _ => "point_b",
        };
        if worst > JOINT_CONSISTENCY_TOLERANCE || !worst.is_finite() {
            let detail = match kind {
                RawJointKind::Spherical | RawJointKind::Revolute => {
                    let (xa, xb) = (point(a, &j.point_a), point(b, &j.point_b));
                    format!(
                        "at t = {t_start} the joint points are at {xa:?} (body_a) and {xb:?} \
                         (body_b), {:.3e} m apart",
                        norm(&crate::math::sub(&xa, &xb))
                    )
                }
                RawJointKind::Distance => format!(
                    "at t = {t_start} the points are {:.6} m apart, length is {}",
                    norm(&crate::math::sub(
                        &point(a, &j.point_a),
                        &point(b, &j.point_b)
                    )),
                    j.length.unwrap_or(0.0)
                ),
                RawJointKind::Prescribed => format!(
                    "at t = {t_start} the point is at {:?}, the path starts at {:?}",
                    point(a, &j.point_a),
                    j.path.as_ref().map(|p| p[0]).unwrap_or_default()
                ),
            };
            let hint = if kind == RawJointKind::Revolute
                && phi[..3]
                    .iter()
                    .all(|x| x.abs() <= JOINT_CONSISTENCY_TOLERANCE)
            {
                "the hinge axes axis_a and axis_b are not parallel in the initial configuration; \
                 fix the axes or the bodies' directors"
                    .to_owned()
            } else {
                format!("{detail}; move the bodies or the points so that the joint holds")
            };
            let field = if kind == RawJointKind::Revolute && hint.starts_with("the hinge") {
                "axis_b"
            } else {
                field
            };
            issues.push(
                at(field),
                format!(
                    "the {kind_name} joint is violated in the initial configuration: \
                     |Φ| = {worst:.3e} > {JOINT_CONSISTENCY_TOLERANCE:e}; {hint}"
                ),
            );
            continue;
        }
        let vscale = 1.0 + v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let mut worst_v: f64 = 0.0;
        for e in 0..ne {
            let gv: f64 = (0..n).map(|l| g[e * n + l] * v[l]).sum::<f64>() + phi_t[e];
            worst_v = worst_v.max(gv.abs());
        }
        if worst_v > 1e-8 * vscale || !worst_v.is_finite() {
            issues.push(
                at(if kind == RawJointKind::Prescribed { "path" } else { "body_b" }),
                format!(
                    "the initial velocities violate the {kind_name} joint: |G v₀ + ∂Φ/∂t| = \
                     {worst_v:.3e}; give the connected bodies velocities compatible with the \
                     joint (for a prescribed motion: path[1] must equal the point's initial velocity)"
                ),
            );
            continue;
        }
        out.push((label, c));
    }
    out
}

fn validate_time_function(
    tf: Option<&RawTimeFunction>,
    i: usize,
    issues: &mut Issues,
) -> Option<TimeFunction> {
    let at = |f: &str| format!("loads[{i}].time_function.{f}");
    let Some(tf) = tf else {
        return Some(TimeFunction::Constant);
    };
    let before = issues.0.len();
    let kind = match tf.kind {
        TimeFunctionKind::Constant => "constant",
        TimeFunctionKind::Window => "window",
        TimeFunctionKind::Table => "table",
    };
    let allowed: &[&str] = match tf.kind {
        TimeFunctionKind::Constant => &[],
        TimeFunctionKind::Window => &["start", "end"],
        TimeFunctionKind::Table => &["times", "values"],
    };
    for (given, field) in [
        (tf.start.is_some(), "start"),
        (tf.end.is_some(), "end"),
        (tf.times.is_some(), "times"),
        (tf.values.is_some(), "values"),
    ] {
        if given && !allowed.contains(&field) {
            issues.push(
                at(field),
                format!("not used by kind = \"{kind}\"; remove it"),
            );
        }
    }
    let tf = match tf.kind {
        TimeFunctionKind::Constant => TimeFunction::Constant,
        TimeFunctionKind::Window => {
            let (Some(start), Some(end)) = (tf.start, tf.end) else {
                let missing = if tf.start.is_none() { "start" } else { "end" };
                issues.push(at(missing), "required for kind = \"window\" (s)");
                return None;
            };
            if start.is_finite() && end.is_finite() && end <= start {
                issues.push(
                    at("end"),
                    format!("must be greater than start = {start} s (got {end} s)"),
                );
            }
            TimeFunction::Window { start, end }
        }
        TimeFunctionKind::Table => {
            let (Some(times), Some(values)) = (tf.times.clone(), tf.values.clone()) else {
                let missing = if tf.times.is_none() {
                    "times"
                } else {
                    "values"
                };
                issues.push(at(missing), "required for kind = \"table\"");
                return None;
            };
            if times.is_empty() {
                issues.push(
                    at("times"),
                    "needs at least one entry; give the sample times, e.g. times = [0.0, 1.0]",
                );
            }
            if times.len() != values.len() {
                issues.push(
                    at("values"),
                    format!(
                        "has {} entries but times has {}; give one value per time",
                        values.len(),
                        times.len()
                    ),
                );
            }
            if all_finite(&times)
                && let Some(k) = times.windows(2).position(|w| w[1] <= w[0])
            {
                issues.push(
                    at(&format!("times[{}]", k + 1)),
                    format!(
                        "times must be strictly increasing ({} ≤ {}); sort them and remove repeated times",
                        times[k + 1],
                        times[k]
                    ),
                );
            }
            TimeFunction::Table { times, values }
        }
    };
    (issues.0.len() == before).then_some(tf)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
[time]
start = 0.0
end = 4.0
[method]
kind = "space-time"
order = 1
elements_per_block = 40
blocks = 1
[[bodies]]
name = "box"
box = { edges = [2.0, 1.0, 1.0], density = 1.5 }
velocity = [5.0, 5.0, 5.0]
[[loads]]
body = "box"
kind = "torque"
vector = [1.0, 1.0, 1.0]
time_function = { kind = "window", start = 0.5, end = 1.5 }
"#;

    fn problems(text: &str) -> Vec<String> {
        match Scenario::from_toml_str(text, "test.toml") {
            Err(ScenarioError::Invalid { problems, .. }) => {
                problems.iter().map(|p| p.to_string()).collect()
            }
            Err(e) => panic!("expected validation problems, got {e}"),
            Ok(_) => panic!("expected validation problems, got a valid scenario"),
        }
    }

    fn has(problems: &[String], field: &str) -> bool {
        problems.iter().any(|p| p.starts_with(&format!("{field}:")))
    }

    #[test]
    fn base_scenario_is_valid() {
        let s = Scenario::from_toml_str(BASE, "test.toml").unwrap();
        assert_eq!((s.t_start, s.t_end), (0.0, 4.0));
        assert!(s.plots);
        assert_eq!(s.n_loads, 1);
        assert_eq!(s.newton, NewtonParams::default());
        let Method::SpaceTime(p) = &s.method else {
            panic!("space-time expected")
        };
        assert_eq!(
            (p.order, p.elements_per_block, p.blocks, p.quadrature_points),
            (1, 40, 1, None)
        );
        let b = &s.system.bodies()[0];
        assert_eq!(b.name, "box");
        assert!((b.mass.mass - 3.0).abs() < 1e-15);
        assert_eq!(b.velocity, [5.0; 3]);
        assert_eq!(s.echo["bodies"][0]["name"], "box");
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let err =
            Scenario::from_toml_str("[time]\nstart = 0.0\nend = = 4\n", "bad.toml").unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ScenarioError::Syntax { .. }));
        assert!(msg.contains("line 3") && msg.contains("column"), "{msg}");
        assert!(msg.starts_with("bad.toml: "), "{msg}");
    }

    #[test]
    fn unknown_field_is_named() {
        let text = BASE.replace("density = 1.5", "densty = 1.5");
        let msg = Scenario::from_toml_str(&text, "t").unwrap_err().to_string();
        assert!(msg.contains("densty") && msg.contains("line"), "{msg}");
    }

    #[test]
    fn collects_all_problems() {
        let text = BASE
            .replace("end = 4.0", "end = -1.0")
            .replace("density = 1.5", "density = -1.5")
            .replace("elements_per_block = 40", "elements_per_block = 0")
            .replace("body = \"box\"", "body = \"cube\"")
            .replace("end = 1.5", "end = 0.2");
        let p = problems(&text);
        for field in [
            "time.end",
            "bodies[0].box.density",
            "method.elements_per_block",
            "loads[0].body",
            "loads[0].time_function.end",
        ] {
            assert!(has(&p, field), "{field} missing in {p:#?}");
        }
        assert_eq!(p.len(), 5, "{p:#?}");
    }

    #[test]
    fn non_finite_numbers_are_rejected_once() {
        let p = problems(&BASE.replace("density = 1.5", "density = nan"));
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(has(&p, "bodies[0].box.density"));
        let p = problems(&BASE.replace("velocity = [5.0, 5.0, 5.0]", "velocity = [5.0, inf, 5.0]"));
        assert!(has(&p, "bodies[0].velocity[1]"), "{p:#?}");
    }

    #[test]
    fn time_stepping_fields_are_not_mixed() {
        let p = problems(&BASE.replace("blocks = 1", "blocks = 1\nstep = 1e-3"));
        assert!(has(&p, "method.step"), "{p:#?}");
        let text = BASE.replace("kind = \"space-time\"", "kind = \"midpoint\"");
        let p = problems(&text);
        for field in [
            "method.order",
            "method.elements_per_block",
            "method.blocks",
            "method.step",
        ] {
            assert!(has(&p, field), "{field} missing in {p:#?}");
        }
        let ok = "[time]\nend = 1.0\n[method]\nkind = \"midpoint\"\nstep = 0.01\n[[bodies]]\nname = \"b\"\n\
                  box = { edges = [1, 1, 1], density = 1 }\n";
        let s = Scenario::from_toml_str(ok, "t").unwrap();
        assert_eq!(
            s.method,
            Method::TimeStepping {
                scheme: ThetaScheme::MIDPOINT,
                step: 0.01
            }
        );
        let p = problems(&ok.replace("step = 0.01", "step = 2.0"));
        assert!(has(&p, "method.step"), "{p:#?}");
    }

    #[test]
    fn method_ranges() {
        let p = problems(
            &BASE
                .replace("order = 1", "order = 9")
                .replace("blocks = 1", "blocks = -2"),
        );
        assert!(
            has(&p, "method.order") && has(&p, "method.blocks"),
            "{p:#?}"
        );
        let p = problems(&BASE.replace("blocks = 1", "blocks = 1\nquadrature_points = 0"));
        assert!(has(&p, "method.quadrature_points"), "{p:#?}");
        let p = problems(
            &BASE
                .replace("blocks = 1", "blocks = 100000\n")
                .replace("elements_per_block = 40", "elements_per_block = 1000"),
        );
        assert!(has(&p, "method.blocks"), "{p:#?}");
    }

    #[test]
    fn newton_table() {
        let s = Scenario::from_toml_str(&format!("{BASE}\n[newton]\nmax_iterations = 3\n"), "t")
            .unwrap();
        assert_eq!(
            s.newton,
            NewtonParams {
                tolerance: 1e-10,
                max_iterations: 3
            }
        );
        let p = problems(&format!(
            "{BASE}\n[newton]\ntolerance = 0.0\nmax_iterations = 0\n"
        ));
        assert!(
            has(&p, "newton.tolerance") && has(&p, "newton.max_iterations"),
            "{p:#?}"
        );
        let p = problems(&format!("{BASE}\n[newton]\nmax_iterations = 1000000\n"));
        assert!(has(&p, "newton.max_iterations"), "{p:#?}");
    }

    #[test]
    fn explicit_mass_and_directors() {
        let explicit = BASE.replace(
            "box = { edges = [2.0, 1.0, 1.0], density = 1.5 }",
            "mass = 3.0\neuler_tensor = [[1, 0, 0], [0, 0.25, 0], [0, 0, 0.25]]",
        );
        let s = Scenario::from_toml_str(&explicit, "t").unwrap();
        assert_eq!(
            s.system.bodies()[0].mass,
            MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.0; 3])
        );
        // skewed but independent directors are fine with explicit mass properties
        let skew = explicit.replace(
            "velocity =",
            "directors = [[1, 0, 0], [1, 1, 0], [0, 0, 1]]\nvelocity =",
        );
        assert!(Scenario::from_toml_str(&skew, "t").is_ok());
        let p = problems(&skew.replace("[1, 1, 0]", "[2, 0, 0]"));
        assert!(has(&p, "bodies[0].directors"), "{p:#?}");
        // ... but not with a box
        let p = problems(&BASE.replace(
            "velocity =",
            "directors = [[1, 0, 0], [1, 1, 0], [0, 0, 1]]\nvelocity =",
        ));
        assert!(has(&p, "bodies[0].directors"), "{p:#?}");
        let p = problems(&explicit.replace("0.25, 0]", "-0.25, 0]"));
        assert!(has(&p, "bodies[0].euler_tensor"), "{p:#?}");
        let p = problems(&explicit.replace(
            "mass = 3.0",
            "mass = 3.0\nbox = { edges = [1, 1, 1], density = 1 }",
        ));
        assert!(has(&p, "bodies[0].box"), "{p:#?}");
        let p = problems(&BASE.replace("box = { edges = [2.0, 1.0, 1.0], density = 1.5 }", ""));
        assert!(has(&p, "bodies[0].box"), "{p:#?}");
        let p = problems(&explicit.replace("mass = 3.0\n", ""));
        assert!(has(&p, "bodies[0].mass"), "{p:#?}");
    }

    #[test]
    fn initial_velocities() {
        let spin = BASE.replace(
            "velocity =",
            "angular_velocity = [0.3, 1.0, 0.2]\nvelocity =",
        );
        let s = Scenario::from_toml_str(&spin, "t").unwrap();
        assert!(s.system.bodies()[0].initial_velocity_constraint_violation() < 1e-15);
        let bad = BASE.replace(
            "velocity =",
            "director_velocities = [[0, 1, 0], [0, 0, 0], [0, 0, 0]]\nvelocity =",
        );
        let p = problems(&bad);
        assert!(has(&p, "bodies[0].director_velocities"), "{p:#?}");
        assert!(p[0].contains("angular_velocity"), "{p:#?}");
        let good = BASE.replace(
            "velocity =",
            "director_velocities = [[0, 1, 0], [-1, 0, 0], [0, 0, 0]]\nvelocity =",
        );
        assert!(Scenario::from_toml_str(&good, "t").is_ok());
        let both = spin.replace(
            "\nvelocity =",
            "\ndirector_velocities = [[0, 1, 0], [-1, 0, 0], [0, 0, 0]]\nvelocity =",
        );
        assert!(has(&problems(&both), "bodies[0].director_velocities"));
    }

    #[test]
    fn body_names() {
        let two = format!(
            "{BASE}\n[[bodies]]\nname = \"box\"\nmass = 1.0\neuler_tensor = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n"
        );
        assert!(has(&problems(&two), "bodies[1].name"));
        assert!(has(
            &problems(&BASE.replacen("name = \"box\"", "name = \"a,b\"", 1)),
            "bodies[0].name"
        ));
        let none = "[time]\nend = 1.0\n[method]\nkind = \"space-time\"\nelements_per_block = 4\n";
        assert!(has(&problems(none), "bodies"));
    }

    #[test]
    fn time_functions() {
        let table = BASE.replace(
            "{ kind = \"window\", start = 0.5, end = 1.5 }",
            "{ kind = \"table\", times = [0.0, 1.0, 1.0], values = [0.0, 1.0] }",
        );
        let p = problems(&table);
        assert!(
            has(&p, "loads[0].time_function.times[2]") && has(&p, "loads[0].time_function.values"),
            "{p:#?}"
        );
        let p = problems(&table.replace(
            "times = [0.0, 1.0, 1.0], values = [0.0, 1.0]",
            "times = [], values = []",
        ));
        assert!(has(&p, "loads[0].time_function.times"), "{p:#?}");
        let ok = table.replace("[0.0, 1.0, 1.0]", "[0.0, 1.0]");
        assert!(Scenario::from_toml_str(&ok, "t").is_ok());
        let p = problems(&BASE.replace(
            "kind = \"window\", start = 0.5,",
            "kind = \"constant\", start = 0.5,",
        ));
        assert!(
            has(&p, "loads[0].time_function.start") && has(&p, "loads[0].time_function.end"),
            "{p:#?}"
        );
        let p = problems(&BASE.replace(", end = 1.5", ""));
        assert!(has(&p, "loads[0].time_function.end"), "{p:#?}");
        let gravity = BASE.replace("kind = \"torque\"", "kind = \"body-force\"");
        let s = Scenario::from_toml_str(&gravity, "t").unwrap();
        assert_eq!(s.n_loads, 1);
    }

    #[test]
    fn wrong_kind_is_a_syntax_error_with_choices() {
        let msg = Scenario::from_toml_str(&BASE.replace("\"space-time\"", "\"spacetime\""), "t")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("spacetime") && msg.contains("space-time") && msg.contains("line"),
            "{msg}"
        );
    }

    #[test]
    fn output_table() {
        let s =
            Scenario::from_toml_str(&format!("{BASE}\n[output]\nplots = false\n"), "t").unwrap();
        assert!(!s.plots);
    }

    /// `method.formulation`: both names parse, a misspelling lists the choices with its line,
    /// and it is refused for time stepping.
    #[test]
    fn formulation_field_is_validated() {
        for (name, expected) in [
            ("petrov-galerkin", Formulation::PetrovGalerkin),
            ("bubnov", Formulation::Bubnov),
        ] {
            let text = BASE.replace("order = 1", &format!("order = 1\nformulation = \"{name}\""));
            match Scenario::from_toml_str(&text, "t").unwrap().method {
                Method::SpaceTime(p) => assert_eq!(p.formulation, expected),
                m => panic!("unexpected method {m:?}"),
            }
        }
        let text = BASE.replace("order = 1", "order = 1\nformulation = \"galerkin\"");
        let msg = Scenario::from_toml_str(&text, "t").unwrap_err().to_string();
        assert!(
            msg.contains("galerkin") && msg.contains("petrov-galerkin") && msg.contains("line"),
            "{msg}"
        );
        let text = BASE
            .replace(
                "kind = \"space-time\"",
                "kind = \"midpoint\"\nstep = 0.01\nformulation = \"bubnov\"",
            )
            .replace("order = 1\n", "");
        let msg = Scenario::from_toml_str(&text, "t").unwrap_err().to_string();
        assert!(msg.contains("method.formulation"), "{msg}");
    }
}
