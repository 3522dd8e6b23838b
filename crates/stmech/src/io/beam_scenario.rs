//! Beam scenario files: TOML with the top-level key `problem = "beam"`.
//!
//! ```toml
//! problem = "beam"
//! analysis = "static"            # or "dynamic"
//! [beam]
//! length = 1.0                   # m
//! elements = 10
//! order = 2                      # 1 or 2
//! law = "quadratic"              # or "log" ([I] Eq. 19)
//! section = { rho_a = 1.0, rho_i = 1.0, ea = 1e5, ga = 1e5, ei = 1.0 }
//! reference = { kind = "straight", start = [0.0, 0.0], angle = 0.0 }  # or kind = "arc", curvature
//! start = "clamped"              # clamped | pinned | free, at s = 0
//! end = "free"                   # at s = L
//! [[loads]]                      # dead point load
//! at = "end"                     # "start", "end", or node = <index>
//! force = [0.0, 1.0]             # N, global frame
//! moment = 0.0                   # N·m
//! time_function = { kind = "table", times = [0.0, 1.0], values = [0.0, 1.0] }
//! [[distributed_loads]]
//! force = [0.0, -1.0]            # N/m
//! [static]
//! steps = 10
//! [dynamic]
//! end = 5.0                      # s
//! step = 0.01                    # s
//! method = "energy-momentum"     # or "space-time" (Petrov–Galerkin cG(1) slabs)
//! [newton]                       # optional: these are the defaults
//! tolerance = 1e-10              # relative (docs/theory.md, "The Newton stop")
//! max_iterations = 30
//! [output]
//! snapshots = 20                 # beam shapes written to VTK and plotted
//! plots = true
//! ```
//!
//! In a static analysis every load is ramped linearly by the load factor over `[static] steps`;
//! time functions are for dynamics and are rejected there.
//!
//! As for rigid-body scenarios ([`super::scenario`]), unknown fields and wrong types stop the
//! parse with line and column; all value problems are then collected, each with its field path.

use super::scenario::{Issues, ScenarioError};
use crate::beam::integrator::DynamicMethod;
use crate::beam::model::{
    BeamModel, BeamSpec, DistributedLoad, EndCondition, PointLoad, ReferenceGeometry, validate,
};
use crate::beam::section::{ConstitutiveLaw, SectionProperties};
use crate::error::InputError;
use crate::model::load::TimeFunction;
use crate::solve::NewtonParams;
use crate::solve::newton::{DEFAULT_TOLERANCE, MAX_TOLERANCE, MIN_TOLERANCE};
use serde::Deserialize;
use std::path::Path;

/// Whether `text` is a beam scenario (has top-level `problem = "beam"`). Text that does not
/// parse as TOML is not (the rigid-body parser will report the syntax error).
pub fn is_beam_scenario(text: &str) -> bool {
    text.parse::<toml::Table>()
        .ok()
        .and_then(|t| {
            t.get("problem")
                .and_then(|v| v.as_str().map(|s| s == "beam"))
        })
        .unwrap_or(false)
}

/// What to compute.
#[derive(Debug, Clone, PartialEq)]
pub enum BeamAnalysis {
    /// Load stepping to the full load.
    Static {
        /// Number of equal load steps.
        steps: usize,
    },
    /// Energy-momentum time stepping from rest in the reference configuration.
    Dynamic {
        /// End time (s).
        end: f64,
        /// Time step (s).
        step: f64,
    },
}

/// A validated beam scenario.
#[derive(Debug)]
pub struct BeamScenario {
    /// Origin (file path) for messages.
    pub origin: String,
    /// The discretised beam.
    pub model: BeamModel,
    /// The analysis.
    pub analysis: BeamAnalysis,
    /// Newton parameters.
    pub newton: NewtonParams,
    /// Forward method of a dynamic analysis (`[dynamic] method`).
    pub method: DynamicMethod,
    /// Number of snapshots written (VTK, plot).
    pub snapshots: usize,
    /// Whether PNG plots are wanted.
    pub plots: bool,
    /// The input as JSON (echoed into `summary.json`).
    pub echo: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    problem: String,
    analysis: RawAnalysis,
    beam: RawBeam,
    #[serde(default)]
    loads: Vec<RawLoad>,
    #[serde(default)]
    distributed_loads: Vec<RawDistributed>,
    #[serde(rename = "static")]
    statics: Option<RawStatic>,
    dynamic: Option<RawDynamic>,
    newton: Option<RawNewton>,
    output: Option<RawOutput>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum RawAnalysis {
    Static,
    Dynamic,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBeam {
    length: f64,
    elements: i64,
    #[serde(default = "default_order")]
    order: i64,
    #[serde(default)]
    law: RawLaw,
    section: RawSection,
    reference: Option<RawReference>,
    #[serde(default = "clamped")]
    start: RawEnd,
    #[serde(default)]
    end: RawEnd,
}

fn default_order() -> i64 {
    2
}
fn clamped() -> RawEnd {
    RawEnd::Clamped
}

#[derive(Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "kebab-case")]
enum RawLaw {
    #[default]
    Quadratic,
    Log,
}

#[derive(Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "kebab-case")]
enum RawEnd {
    Clamped,
    Pinned,
    #[default]
    Free,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSection {
    rho_a: f64,
    rho_i: f64,
    ea: f64,
    ga: f64,
    ei: f64,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
enum RefKind {
    Straight,
    Arc,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReference {
    kind: RefKind,
    #[serde(default)]
    start: [f64; 2],
    #[serde(default)]
    angle: f64,
    curvature: Option<f64>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum RawAt {
    Start,
    End,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLoad {
    at: Option<RawAt>,
    node: Option<i64>,
    #[serde(default)]
    force: [f64; 2],
    #[serde(default)]
    moment: f64,
    time_function: Option<RawTimeFunction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDistributed {
    #[serde(default)]
    force: [f64; 2],
    #[serde(default)]
    moment: f64,
    time_function: Option<RawTimeFunction>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum TfKind {
    Constant,
    Window,
    Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTimeFunction {
    kind: TfKind,
    start: Option<f64>,
    end: Option<f64>,
    times: Option<Vec<f64>>,
    values: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStatic {
    steps: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDynamic {
    end: f64,
    step: f64,
    #[serde(default)]
    method: RawMethod,
}

#[derive(Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "kebab-case")]
enum RawMethod {
    #[default]
    EnergyMomentum,
    SpaceTime,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNewton {
    tolerance: Option<f64>,
    max_iterations: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    snapshots: Option<i64>,
    plots: Option<bool>,
}

fn time_function(tf: Option<&RawTimeFunction>, at: &str, issues: &mut Issues) -> TimeFunction {
    let Some(tf) = tf else {
        return TimeFunction::Constant;
    };
    let f = |name: &str| format!("{at}.time_function.{name}");
    match tf.kind {
        TfKind::Constant => TimeFunction::Constant,
        TfKind::Window => match (tf.start, tf.end) {
            (Some(start), Some(end)) if end > start => TimeFunction::Window { start, end },
            (Some(start), Some(end)) => {
                issues.push(
                    f("end"),
                    format!("must be greater than start = {start} s (got {end})"),
                );
                TimeFunction::Constant
            }
            _ => {
                issues.push(f("start"), "kind = \"window\" needs start and end (s)");
                TimeFunction::Constant
            }
        },
        TfKind::Table => {
            let (times, values) = (
                tf.times.clone().unwrap_or_default(),
                tf.values.clone().unwrap_or_default(),
            );
            if times.is_empty() || times.len() != values.len() {
                issues.push(
                    f("values"),
                    format!(
                        "kind = \"table\" needs times and values of equal, non-zero length (got {} and {})",
                        times.len(),
                        values.len()
                    ),
                );
                return TimeFunction::Constant;
            }
            if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
                issues.push(
                    f(&format!("times[{}]", k + 1)),
                    "times must be strictly increasing; sort them and remove repeated times",
                );
                return TimeFunction::Constant;
            }
            TimeFunction::Table { times, values }
        }
    }
}

impl BeamScenario {
    /// Parses and validates scenario text.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ScenarioError> {
        let syntax = |e: toml::de::Error| ScenarioError::Syntax {
            origin: origin.to_owned(),
            source: Box::new(e),
        };
        let raw: Raw = toml::from_str(text).map_err(syntax)?;
        let table: toml::Table = text.parse().map_err(syntax)?;
        let mut issues = Issues(Vec::new());
        super::scenario::check_finite(
            &toml::Value::Table(table.clone()),
            &mut String::new(),
            &mut issues,
        );
        if !issues.0.is_empty() {
            // Every later check would repeat these; stop here with the exact paths.
            return Err(ScenarioError::Invalid {
                origin: origin.to_owned(),
                problems: issues.0,
            });
        }
        if raw.problem != "beam" {
            issues.push(
                "problem",
                format!("must be \"beam\" here (got \"{}\")", raw.problem),
            );
        }
        let b = &raw.beam;
        let elements = if b.elements < 1 {
            issues.push(
                "beam.elements",
                format!(
                    "a beam needs at least one element (got {}); use e.g. 10",
                    b.elements
                ),
            );
            1
        } else if b.elements > crate::beam::MAX_BEAM_ELEMENTS as i64 {
            // the model is built while loading: refuse before allocating per element
            issues.push(
                "beam.elements",
                format!(
                    "at most {} elements (got {}); use e.g. 10 to 1000",
                    crate::beam::MAX_BEAM_ELEMENTS,
                    b.elements
                ),
            );
            1
        } else {
            b.elements as usize
        };
        let order = if b.order == 1 || b.order == 2 {
            b.order as usize
        } else {
            issues.push("beam.order", format!("must be 1 or 2 (got {})", b.order));
            1
        };
        let nodes = elements * order + 1;
        let reference = match &b.reference {
            None => ReferenceGeometry::Straight {
                start: [0.0; 2],
                angle: 0.0,
            },
            Some(r) => match (r.kind, r.curvature) {
                (RefKind::Straight, None) => ReferenceGeometry::Straight {
                    start: r.start,
                    angle: r.angle,
                },
                (RefKind::Straight, Some(_)) => {
                    issues.push(
                        "beam.reference.curvature",
                        "not used by kind = \"straight\"; remove it or use kind = \"arc\"",
                    );
                    ReferenceGeometry::Straight {
                        start: r.start,
                        angle: r.angle,
                    }
                }
                (RefKind::Arc, Some(curvature)) => ReferenceGeometry::Arc {
                    start: r.start,
                    angle: r.angle,
                    curvature,
                },
                (RefKind::Arc, None) => {
                    issues.push(
                        "beam.reference.curvature",
                        "required for kind = \"arc\" (1/m)",
                    );
                    ReferenceGeometry::Straight {
                        start: r.start,
                        angle: r.angle,
                    }
                }
            },
        };
        let law = match b.law {
            RawLaw::Quadratic => ConstitutiveLaw::Quadratic,
            RawLaw::Log => ConstitutiveLaw::Log,
        };
        if law == ConstitutiveLaw::Log && matches!(reference, ReferenceGeometry::Arc { .. }) {
            issues.push(
                "beam.law",
                "the log law is written for a straight reference (ν0 = 1, [I] Eq. 19); use law = \"quadratic\" for a curved beam",
            );
        }
        let end = |e: RawEnd| match e {
            RawEnd::Clamped => EndCondition::Clamped,
            RawEnd::Pinned => EndCondition::Pinned,
            RawEnd::Free => EndCondition::Free,
        };
        let mut point_loads = Vec::new();
        for (i, l) in raw.loads.iter().enumerate() {
            let at = format!("loads[{i}]");
            let node = match (l.at, l.node) {
                (Some(RawAt::Start), None) => 0,
                (Some(RawAt::End), None) => nodes - 1,
                (None, Some(n)) if n >= 0 => n as usize,
                (None, Some(n)) => {
                    issues.push(
                        format!("{at}.node"),
                        format!("node {n} does not exist: nodes are 0..={}", nodes - 1),
                    );
                    continue;
                }
                _ => {
                    issues.push(
                        format!("{at}.at"),
                        "give exactly one of at = \"start\" | \"end\" or node = <index>",
                    );
                    continue;
                }
            };
            point_loads.push((
                i,
                PointLoad {
                    node,
                    force: l.force,
                    moment: l.moment,
                    time_function: time_function(l.time_function.as_ref(), &at, &mut issues),
                },
            ));
        }
        // Point-load indices in the spec differ from file indices when some were dropped: map
        // the model's messages back to file indices.
        let file_index: Vec<usize> = point_loads.iter().map(|(i, _)| *i).collect();
        let distributed_loads = raw
            .distributed_loads
            .iter()
            .enumerate()
            .map(|(i, l)| DistributedLoad {
                force: l.force,
                moment: l.moment,
                time_function: time_function(
                    l.time_function.as_ref(),
                    &format!("distributed_loads[{i}]"),
                    &mut issues,
                ),
            })
            .collect();
        let spec = BeamSpec {
            length: b.length,
            section: SectionProperties {
                rho_a: b.section.rho_a,
                rho_i: b.section.rho_i,
                ea: b.section.ea,
                ga: b.section.ga,
                ei: b.section.ei,
            },
            law,
            elements,
            order,
            reference,
            start: end(b.start),
            end: end(b.end),
            point_loads: point_loads.into_iter().map(|(_, l)| l).collect(),
            distributed_loads,
        };
        for e in validate(&spec, "beam") {
            let InputError::Invalid { field, message } = e else {
                continue;
            };
            // beam.point_loads[k] → loads[i], beam.distributed_loads → distributed_loads
            let field = if let Some(rest) = field.strip_prefix("beam.point_loads[") {
                let (k, tail) = rest.split_once(']').unwrap_or(("0", ""));
                let k: usize = k.parse().unwrap_or(0);
                format!("loads[{}]{tail}", file_index.get(k).copied().unwrap_or(k))
            } else if let Some(rest) = field.strip_prefix("beam.distributed_loads") {
                format!("distributed_loads{rest}")
            } else {
                field
            };
            if !issues
                .0
                .iter()
                .any(|p| matches!(p, InputError::Invalid { field: f, .. } if *f == field))
            {
                issues.push(field, message);
            }
        }
        let analysis = match raw.analysis {
            RawAnalysis::Static => {
                // Loads are ramped by the load factor in statics: a time function would be
                // silently ignored, so say so.
                let timed = raw
                    .loads
                    .iter()
                    .map(|l| (l.time_function.as_ref(), "loads"))
                    .chain(
                        raw.distributed_loads
                            .iter()
                            .map(|l| (l.time_function.as_ref(), "distributed_loads")),
                    );
                let mut counts = [0usize; 2];
                for (tf, what) in timed {
                    let k = usize::from(what == "distributed_loads");
                    if tf.is_some_and(|t| t.kind != TfKind::Constant) {
                        issues.push(
                            format!("{what}[{}].time_function", counts[k]),
                            "not used by analysis = \"static\" (loads are ramped by the load \
                             factor over [static] steps); remove it or use analysis = \"dynamic\"",
                        );
                    }
                    counts[k] += 1;
                }
                if raw.dynamic.is_some() {
                    issues.push("dynamic", "not used by analysis = \"static\"; remove it");
                }
                let steps = raw.statics.as_ref().map_or(10, |s| s.steps);
                if !(1..=1_000_000).contains(&steps) {
                    issues.push(
                        "static.steps",
                        format!("must be between 1 and 1e6 (got {steps})"),
                    );
                }
                BeamAnalysis::Static {
                    steps: steps.max(1) as usize,
                }
            }
            RawAnalysis::Dynamic => {
                if raw.statics.is_some() {
                    issues.push("static", "not used by analysis = \"dynamic\"; remove it");
                }
                match &raw.dynamic {
                    None => {
                        issues.push(
                            "dynamic",
                            "analysis = \"dynamic\" needs a [dynamic] table with end and step (s)",
                        );
                        BeamAnalysis::Dynamic {
                            end: 1.0,
                            step: 1.0,
                        }
                    }
                    Some(d) => {
                        if !(d.end.is_finite() && d.end > 0.0) {
                            issues.push("dynamic.end", format!("must be > 0 s (got {})", d.end));
                        } else if let Some((field, message)) =
                            crate::io::scenario::time_interval(0.0, d.end, ["0", "dynamic.end"])
                        {
                            issues.push(field, message);
                        }
                        if !(d.step.is_finite() && d.step > 0.0) {
                            issues.push("dynamic.step", format!("must be > 0 s (got {})", d.step));
                        } else if d.end / d.step > 1e7 {
                            issues.push("dynamic.step", "more than 1e7 steps; use a larger step");
                        } else if d.step < crate::io::scenario::MIN_STEP {
                            issues.push(
                                "dynamic.step",
                                format!(
                                    "{:e} s is too small to compute with (the least is {:e} s); \
                                     use a longer dynamic.end and a larger step",
                                    d.step,
                                    crate::io::scenario::MIN_STEP
                                ),
                            );
                        }
                        BeamAnalysis::Dynamic {
                            end: d.end,
                            step: d.step,
                        }
                    }
                }
            }
        };
        let mut newton = NewtonParams::default();
        if let Some(n) = &raw.newton {
            if let Some(t) = n.tolerance {
                if !(MIN_TOLERANCE..=MAX_TOLERANCE).contains(&t) {
                    issues.push(
                        "newton.tolerance",
                        format!(
                            "must be between {MIN_TOLERANCE:e} and {MAX_TOLERANCE:e} (relative to \
                             the forces of a step; got {t}); the default is {DEFAULT_TOLERANCE:e}"
                        ),
                    );
                }
                newton.tolerance = t;
            }
            if let Some(m) = n.max_iterations {
                if !(1..=1000).contains(&m) {
                    issues.push(
                        "newton.max_iterations",
                        format!("must be between 1 and 1000 (got {m})"),
                    );
                } else {
                    newton.max_iterations = m as usize;
                }
            }
        }
        let snapshots = raw.output.as_ref().and_then(|o| o.snapshots).unwrap_or(20);
        if !(1..=10_000).contains(&snapshots) {
            issues.push(
                "output.snapshots",
                format!("must be between 1 and 10000 (got {snapshots})"),
            );
        }
        let plots = raw.output.as_ref().and_then(|o| o.plots).unwrap_or(true);
        if !issues.0.is_empty() {
            return Err(ScenarioError::Invalid {
                origin: origin.to_owned(),
                problems: issues.0,
            });
        }
        let model = BeamModel::try_new(spec).map_err(|e| ScenarioError::Invalid {
            origin: origin.to_owned(),
            problems: vec![e],
        })?;
        Ok(Self {
            origin: origin.to_owned(),
            model,
            analysis,
            newton,
            method: match raw.dynamic.as_ref().map(|d| d.method) {
                Some(RawMethod::SpaceTime) => DynamicMethod::SpaceTime,
                _ => DynamicMethod::EnergyMomentum,
            },
            snapshots: snapshots as usize,
            plots,
            echo: serde_json::to_value(&table).unwrap_or(serde_json::Value::Null),
        })
    }

    /// Reads and validates a file.
    pub fn from_path(path: &Path) -> Result<Self, ScenarioError> {
        let text = ScenarioError::read(path, crate::io::text::InputLimit::default())?;
        Self::from_toml_str(&text, &path.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
problem = "beam"
analysis = "static"
[beam]
length = 1.0
elements = 4
section = { rho_a = 1.0, rho_i = 1.0, ea = 1e4, ga = 1e4, ei = 1.0 }
[[loads]]
at = "end"
force = [0.0, 1.0]
"#;

    fn fields(text: &str) -> Vec<String> {
        match BeamScenario::from_toml_str(text, "t") {
            Ok(_) => Vec::new(),
            Err(e) => e
                .problems()
                .iter()
                .map(|p| match p {
                    InputError::Invalid { field, .. } => field.clone(),
                    other => other.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn base_is_valid_and_detected() {
        assert!(is_beam_scenario(BASE));
        assert!(!is_beam_scenario("[time]\nend = 1.0\n"));
        let s = BeamScenario::from_toml_str(BASE, "t").unwrap();
        assert_eq!(s.model.tip_node(), 8);
        assert_eq!(s.model.spec.point_loads[0].node, 8);
    }

    #[test]
    fn all_problems_with_paths() {
        let text = BASE
            .replace("length = 1.0", "length = 0.0")
            .replace("ea = 1e4", "ea = -1.0")
            .replace("elements = 4", "elements = 0")
            + "[[loads]]\nnode = 99\nmoment = 1.0\n";
        let f = fields(&text);
        for want in [
            "beam.length",
            "beam.elements",
            "beam.section.ea",
            "loads[1].node",
        ] {
            assert!(f.iter().any(|x| x == want), "{want} missing in {f:?}");
        }
    }

    #[test]
    fn unknown_field_is_a_syntax_error() {
        let err =
            BeamScenario::from_toml_str(&BASE.replace("elements", "elemnts"), "t").unwrap_err();
        assert!(matches!(err, ScenarioError::Syntax { .. }), "{err}");
    }

    #[test]
    fn non_finite_numbers_are_named() {
        let text = BASE.to_owned()
            + "time_function = { kind = \"table\", times = [0.0, 1.0], values = [0.0, nan] }\n";
        assert_eq!(
            fields(&text),
            vec!["loads[0].time_function.values[1]".to_owned()]
        );
    }

    #[test]
    fn static_rejects_time_functions() {
        let text =
            BASE.to_owned() + "time_function = { kind = \"window\", start = 0.0, end = 1.0 }\n";
        assert_eq!(fields(&text), vec!["loads[0].time_function".to_owned()]);
    }

    #[test]
    fn dynamic_method_is_selectable() {
        let dynamic =
            BASE.replace("\"static\"", "\"dynamic\"") + "[dynamic]\nend = 1.0\nstep = 0.1\n";
        let s = BeamScenario::from_toml_str(&dynamic, "t").unwrap();
        assert_eq!(s.method, DynamicMethod::EnergyMomentum);
        let s = BeamScenario::from_toml_str(&(dynamic.clone() + "method = \"space-time\"\n"), "t")
            .unwrap();
        assert_eq!(s.method, DynamicMethod::SpaceTime);
        let err = BeamScenario::from_toml_str(&(dynamic + "method = \"rk4\"\n"), "t").unwrap_err();
        assert!(matches!(err, ScenarioError::Syntax { .. }), "{err}");
    }

    #[test]
    fn dynamic_needs_its_table() {
        let f = fields(&BASE.replace("\"static\"", "\"dynamic\""));
        assert_eq!(f, vec!["dynamic".to_owned()]);
    }
}
