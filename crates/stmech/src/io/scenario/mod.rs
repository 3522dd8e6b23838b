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

mod beams;
mod bodies;
mod inverse;
mod joints;
mod raw;
mod redundancy;
#[cfg(test)]
mod tests;
mod validate;

pub use beams::{MAX_BEAM3D_ELEMENTS, MAX_KINK};
pub use inverse::{
    BaseActuation, DEFAULT_ANGLE_RAD, DEFAULT_MAX_ITERATIONS, DEFAULT_POSITION_FRACTION,
    MAX_ELEMENTS_T, MAX_SPATIAL_UNKNOWNS, ServoTarget, SpatialInverseScenario, SpatialVerify,
    TipBody, TipPath,
};
pub use joints::JOINT_CONSISTENCY_TOLERANCE;
pub use validate::BeamInfo;
pub(crate) use validate::{Issues, check_finite, time_interval, time_resolution};
pub use validate::{MIN_RELATIVE_STEP, MIN_STEP};

use crate::error::InputError;
use crate::model::MultibodySystem;
use crate::solve::NewtonParams;
use crate::solve::scheme::{Formulation, Method};
use raw::RawScenario;
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
/// Largest number of static load steps.
pub const MAX_LOAD_STEPS: i64 = 1_000_000;
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
    /// Reads a scenario file with [`read_text`](crate::io::text::read_text) (a regular file of
    /// at most `limit` bytes, UTF-8), as a [`Read`](Self::Read) error if that fails.
    pub fn read(path: &Path, limit: crate::io::text::InputLimit) -> Result<String, Self> {
        crate::io::text::read_text(path, limit).map_err(|source| Self::Read {
            path: path.to_owned(),
            source,
        })
    }

    /// Whether the file could not be read because of what it is or holds (not a regular
    /// file, too large, not UTF-8): an input error, not an I/O failure.
    pub fn is_input(&self) -> bool {
        match self {
            Self::Read { source, .. } => matches!(
                source.kind(),
                std::io::ErrorKind::InvalidData
                    | std::io::ErrorKind::InvalidInput
                    | std::io::ErrorKind::FileTooLarge
            ),
            _ => true,
        }
    }

    /// The individual problems of an [`Invalid`](Self::Invalid) or
    /// [`Located`](Self::Located) scenario (empty otherwise).
    pub fn problems(&self) -> &[InputError] {
        match self {
            Self::Invalid { problems, .. } | Self::Located { problems, .. } => problems,
            _ => &[],
        }
    }
}

/// Most problems a report lists; the rest are counted (a file that is not TOML at all, such
/// as a CSV given as the scenario, would otherwise list every line).
pub const MAX_LISTED_PROBLEMS: usize = 50;

fn located_list(problems: &[InputError], lines: &[Option<usize>]) -> String {
    let mut s = String::new();
    for (k, p) in problems.iter().enumerate().take(MAX_LISTED_PROBLEMS) {
        match lines.get(k).copied().flatten() {
            Some(line) => {
                let _ = write!(s, "\n  - line {line}: {p}");
            }
            None => {
                let _ = write!(s, "\n  - {p}");
            }
        }
    }
    s.push_str(&unlisted(problems.len()));
    s
}

fn bullet_list(problems: &[InputError]) -> String {
    let mut s = String::new();
    for p in problems.iter().take(MAX_LISTED_PROBLEMS) {
        let _ = write!(s, "\n  - {p}");
    }
    s.push_str(&unlisted(problems.len()));
    s
}

/// The line that counts the problems beyond [`MAX_LISTED_PROBLEMS`].
fn unlisted(n: usize) -> String {
    if n > MAX_LISTED_PROBLEMS {
        format!(
            "\n  - … and {} more problems (fix the ones above first; is this a scenario file?)",
            n - MAX_LISTED_PROBLEMS
        )
    } else {
        String::new()
    }
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
    /// Time discretisation (dynamic analysis; unused when [`statics`](Self::statics) is set).
    pub method: Method,
    /// Static analysis (`analysis = "static"`): load stepping parameters. `None` for dynamics.
    pub statics: Option<crate::solve::statics::StaticParams>,
    /// The spatial beams: their names and where their nodes are among the frames.
    pub beams: Vec<BeamInfo>,
    /// Newton tolerances.
    pub newton: NewtonParams,
    /// Whether PNG plots are wanted (`[output] plots`).
    pub plots: bool,
    /// The parsed input as JSON, echoed into `summary.json` so results carry their input.
    pub echo: serde_json::Value,
}

impl Scenario {
    /// Parses and validates scenario text; `origin` names it in messages (e.g. the file path).
    /// A spatial inverse analysis (`analysis = "inverse"`) is refused here: it is not a
    /// simulation of the system; load it with [`load_any`] (or
    /// [`crate::io::load::load_text`]), which returns either kind.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ScenarioError> {
        match load_any(
            text,
            origin,
            Path::new("."),
            crate::io::text::InputLimit::default(),
        )? {
            crate::io::load::AnyScenario::Multibody(s) => Ok(*s),
            _ => Err(ScenarioError::Invalid {
                origin: origin.to_owned(),
                problems: vec![InputError::Invalid {
                    field: "analysis".into(),
                    message: "analysis = \"inverse\" is a spatial inverse problem, not a \
                              simulation: load it with stmech::io::load (stmech run / check)"
                        .into(),
                }],
            }),
        }
    }

    /// Parses and validates a multibody scenario text of any analysis: a [`Scenario`]
    /// (dynamic, static) or a [`SpatialInverseScenario`] (`analysis = "inverse"`, whose pose
    /// CSV is read relative to `base_dir` with at most `limit` bytes).
    fn parse_any(
        text: &str,
        origin: &str,
        base_dir: &Path,
        limit: crate::io::text::InputLimit,
    ) -> Result<crate::io::load::AnyScenario, ScenarioError> {
        use crate::io::load::AnyScenario;
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
        if raw.analysis == Some(raw::RawAnalysis::Inverse) {
            let parts = inverse::validate(raw, &mut issues, base_dir, limit);
            return match parts {
                Some(p) if issues.0.is_empty() => {
                    let echo = serde_json::to_value(&table).unwrap_or(serde_json::Value::Null);
                    Ok(AnyScenario::SpatialInverse(Box::new(
                        p.into_scenario(origin, echo),
                    )))
                }
                _ => Err(ScenarioError::Invalid {
                    origin: origin.to_owned(),
                    problems: issues.0,
                }),
            };
        }
        let built = validate::validate(raw, &mut issues);
        match built {
            Some(b) if issues.0.is_empty() => {
                let echo = serde_json::to_value(&table).unwrap_or(serde_json::Value::Null);
                Ok(AnyScenario::Multibody(Box::new(Self {
                    origin: origin.to_owned(),
                    system: b.system,
                    n_loads: b.n_loads,
                    constraint_labels: b.constraint_labels,
                    t_start: b.t_start,
                    t_end: b.t_end,
                    method: b.method,
                    statics: b.statics,
                    beams: b.beams,
                    newton: b.newton,
                    plots: b.plots,
                    echo,
                })))
            }
            _ => Err(ScenarioError::Invalid {
                origin: origin.to_owned(),
                problems: issues.0,
            }),
        }
    }

    /// Reads and validates a scenario file.
    pub fn from_path(path: &Path) -> Result<Self, ScenarioError> {
        let text = ScenarioError::read(path, crate::io::text::InputLimit::default())?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// One-line description of the method and its parameters, e.g. for failure summaries
    /// (successful runs use [`Trajectory::method`](crate::solve::Trajectory::method)).
    pub fn method_description(&self) -> String {
        match &self.statics {
            Some(s) => format!(
                "statics, {} load steps (loads at t = {} s)",
                s.load_steps, s.time
            ),
            None => describe_method(&self.method, self.t_start, self.t_end),
        }
    }
}

/// Parses and validates a multibody scenario (no `problem` key) of any analysis: dynamic and
/// static analyses give [`AnyScenario::Multibody`](crate::io::load::AnyScenario::Multibody),
/// `analysis = "inverse"` gives
/// [`AnyScenario::SpatialInverse`](crate::io::load::AnyScenario::SpatialInverse) (its pose CSV
/// read relative to `base_dir`, with at most `limit` bytes).
pub fn load_any(
    text: &str,
    origin: &str,
    base_dir: &Path,
    limit: crate::io::text::InputLimit,
) -> Result<crate::io::load::AnyScenario, ScenarioError> {
    Scenario::parse_any(text, origin, base_dir, limit)
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
