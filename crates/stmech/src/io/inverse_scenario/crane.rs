//! Scenario files of the crane (`problem = "crane"`, issue 17): the inverse dynamics of a
//! geometrically exact rope with a payload ([`crate::inverse::crane`]).
//!
//! The same two stages as the beam-inverse parser (serde with `deny_unknown_fields`, then a
//! validation that collects every problem with its field path; `[time]`, `[newton]` and
//! `[output]` are the beam-inverse tables). The solver's own checks run here with their
//! messages: the payload path (no slack rope, at rest at the start), the pre- and
//! post-actuation room, and the method's mesh check: the mesh ratio with the slowest
//! transverse wave (in the last element) for the space-time FEM, at least 3 time elements for
//! the method of characteristics (semi-Lagrangian: no mesh ratio). `method` is the key and
//! spelling of the beam-inverse scenario ([`InverseMethod`]). `rope.payload_mass = 0` is a
//! heavy chain with a free end (the path is then the free end's); its last element's
//! transverse speed is `≈ sqrt(g hs/2)`, so the FEM's time step must be at least
//! `≈ sqrt(hs/(2g))` (`mesh.resolution` chooses it).
//!
//! ```toml
//! problem = "crane"
//! method = "space-time"        # default; or "characteristics" (method of characteristics)
//! [rope]
//! length = 10.0
//! rho_a = 2.0
//! ea = 1.0e6
//! payload_mass = 20.0
//! [trajectory]
//! kind = "rest-to-rest-line"
//! delta = [8.0, 4.0, 2.0]
//! t0 = 2.0
//! duration = 8.0
//! [time]
//! start = 0.0
//! end = 12.0
//! [mesh]
//! resolution = 32
//! ```

use super::raw::{RawNewton, RawOutput, RawTime};
use super::{big, newton_settings, problem};
use crate::error::InputError;
use crate::inverse::crane::{self, CraneError};
use crate::inverse::trajectory::{
    Columns, CsvTrajectory, RestToRestLine, RestToRestProfile, TipTrajectory,
};
use crate::inverse::{InverseMethod, NewtonSettings, SpaceTimeMesh};
use crate::io::scenario::ScenarioError;
use crate::io::text::InputLimit;
use crate::string::StringModel;
use serde::Deserialize;
use std::path::Path;

/// Largest number of unknowns accepted (the sideways elimination of the beam).
pub use super::MAX_UNKNOWNS;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    problem: ProblemKind,
    method: Option<InverseMethod>,
    rope: RawRope,
    trajectory: RawPath,
    time: RawTime,
    mesh: RawMesh,
    newton: Option<RawNewton>,
    output: Option<RawOutput>,
    verify: Option<RawVerify>,
}

#[derive(Deserialize)]
enum ProblemKind {
    #[serde(rename = "crane")]
    Crane,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRope {
    length: f64,
    rho_a: f64,
    ea: f64,
    payload_mass: f64,
    gravity: Option<[f64; 3]>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
enum RawPath {
    #[serde(rename = "rest-to-rest-line")]
    Line {
        start: Option<[f64; 3]>,
        delta: [f64; 3],
        t0: f64,
        duration: f64,
    },
    /// Payload positions `t,x,y,z` from a CSV file (relative to the scenario's folder).
    #[serde(rename = "csv")]
    Csv { path: String },
    /// Payload positions in the scenario itself (or numpy arrays from Python).
    #[serde(rename = "samples")]
    Samples {
        t: Vec<f64>,
        position: Vec<[f64; 3]>,
    },
}

/// Smoothness the crane needs of sampled payload data, and why (the CSV check's message).
pub const PAYLOAD_SMOOTHNESS: usize = 3;
const PAYLOAD_NEED: &str = "continuous jerk (C³): the rope leaves the payload along ÿ − g, so the \
                            suspension point's position follows ÿ and its velocity y‴";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMesh {
    resolution: Option<i64>,
    elements_s: Option<i64>,
    elements_t: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerify {
    closed_loop: Option<bool>,
    refine: Option<i64>,
    position_tolerance: Option<f64>,
}

/// `[verify]` of a crane scenario.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CraneVerify {
    /// Replay the suspension motion in the forward string model (default true).
    pub closed_loop: bool,
    /// Refinement factor of the forward model in space and time (default 2).
    pub refine: usize,
    /// Largest accepted payload deviation (m); `None`: 1 % of the payload's travel.
    pub position_tolerance: Option<f64>,
}

/// Default closed-loop tolerance: this fraction of the payload's travel.
pub const DEFAULT_POSITION_FRACTION: f64 = 0.01;

/// Whether scenario text declares `problem = "crane"`.
pub fn is_crane(text: &str) -> bool {
    text.parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("problem").and_then(|p| p.as_str().map(str::to_owned)))
        .is_some_and(|p| p == "crane")
}

/// A validated crane scenario.
#[derive(Debug)]
pub struct CraneScenario {
    /// File name or description.
    pub origin: String,
    /// How to solve (`method`, default space-time FEM).
    pub method: InverseMethod,
    /// The rope and payload (`payload_start` from the path).
    pub rope: StringModel,
    /// The space-time mesh (checked).
    pub mesh: SpaceTimeMesh,
    /// Whether the time mesh was chosen from `mesh.resolution`.
    pub mesh_auto: bool,
    /// The payload path (checked).
    pub trajectory: Box<dyn TipTrajectory>,
    /// Newton settings (`tolerance` relative, [`crate::solve::newton::NewtonParams`]).
    pub newton: NewtonSettings,
    /// Draw PNG plots.
    pub plots: bool,
    /// `[verify]`.
    pub verify: CraneVerify,
    /// The input as JSON, echoed into `summary.json`.
    pub echo: serde_json::Value,
    /// Files the scenario reads (a payload CSV): outputs must not replace them.
    pub input_files: Vec<std::path::PathBuf>,
}

impl CraneScenario {
    /// The closed-loop tolerance (m).
    pub fn position_tolerance(&self) -> f64 {
        self.verify.position_tolerance.unwrap_or_else(|| {
            let (t0, t1) = (self.mesh.t_start, self.mesh.t_end);
            let p0 = self.trajectory.pose(t0);
            let travel = (0..=2000).fold(0.0f64, |m, k| {
                let p = self.trajectory.pose(t0 + (t1 - t0) * k as f64 / 2000.0);
                m.max(
                    ((p[0] - p0[0]).powi(2) + (p[1] - p0[1]).powi(2) + (p[2] - p0[2]).powi(2))
                        .sqrt(),
                )
            });
            (DEFAULT_POSITION_FRACTION * travel).max(1e-4 * self.rope.length)
        })
    }

    /// Parses and validates scenario text without file references resolved against a folder
    /// (a payload CSV path is taken relative to the working directory).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ScenarioError> {
        Self::from_toml_str_limited(text, origin, Path::new("."), InputLimit::default())
    }

    /// Parses and validates scenario text; `base_dir` resolves a relative CSV path, which is
    /// read with at most `limit` bytes.
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
        let ProblemKind::Crane = raw.problem;
        let method = raw.method.unwrap_or_default();
        let mut issues: Vec<InputError> = Vec::new();
        let mut input_files = Vec::new();
        let (t0, t1) = (raw.time.start, raw.time.end);
        let interval = crate::io::scenario::time_interval(t0, t1, ["time.start", "time.end"]);
        let time_ok = t0.is_finite() && t1.is_finite() && t1 > t0 && interval.is_none();
        // sampled payload data: read first, it gives the start
        let sampled = match &raw.trajectory {
            RawPath::Line { .. } => None,
            RawPath::Csv { path } => {
                let full = base_dir.join(path);
                input_files.push(full.clone());
                match CsvTrajectory::read(&full, limit, Columns::Position) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        issues.push(problem("trajectory.path", e.to_string()));
                        None
                    }
                }
            }
            RawPath::Samples { t, position } => {
                match CsvTrajectory::from_sample_rows(
                    t,
                    position,
                    "trajectory samples",
                    Columns::Position,
                    "position",
                ) {
                    Ok(c) => Some(c),
                    Err((field, e)) => {
                        issues.push(problem(&format!("trajectory.{field}"), e.to_string()));
                        None
                    }
                }
            }
        };
        let data_field = match &raw.trajectory {
            RawPath::Csv { .. } => "trajectory.path",
            _ => "trajectory.position",
        };
        let (start, line) = match &raw.trajectory {
            RawPath::Line {
                start,
                delta,
                t0,
                duration,
            } => (start.unwrap_or([0.0; 3]), Some((*delta, *t0, *duration))),
            _ => (
                match (&sampled, time_ok) {
                    (Some(c), true) => c.pose(t0),
                    _ => [0.0; 3],
                },
                None,
            ),
        };
        // a problem of the path: the built-in line's own field, or the sampled data's
        let path_field = |line_field: &'static str| {
            if line.is_some() {
                line_field
            } else {
                data_field
            }
        };
        // rope
        let r = &raw.rope;
        let rope = StringModel {
            length: r.length,
            rho_a: r.rho_a,
            ea: r.ea,
            payload_mass: r.payload_mass,
            gravity: r.gravity.unwrap_or([0.0, 0.0, -9.81]),
            payload_start: start,
        };
        let mut rope_ok = true;
        // every field of the rope, not only the first bad one
        for (field, v) in [
            ("length", r.length),
            ("rho_a", r.rho_a),
            ("ea", r.ea),
            ("payload_mass", r.payload_mass),
        ] {
            let mut one = StringModel {
                length: 1.0,
                rho_a: 1.0,
                ea: 1.0,
                payload_mass: 1.0,
                gravity: [0.0, 0.0, -1.0],
                payload_start: [0.0; 3],
            };
            match field {
                "length" => one.length = v,
                "rho_a" => one.rho_a = v,
                "ea" => one.ea = v,
                _ => one.payload_mass = v,
            }
            if let Err(e) = one.validate("rope") {
                rope_ok = false;
                issues.push(e);
            }
        }
        if rope_ok && let Err(e) = rope.validate("rope") {
            rope_ok = false;
            issues.push(match e {
                InputError::Invalid { field, message } if field == "rope.payload_start" => {
                    problem("trajectory.start", message)
                }
                other => other,
            });
        }
        // time
        if let Some((field, message)) = interval {
            issues.push(problem(field, message));
        } else if !time_ok {
            issues.push(problem(
                "time.end",
                format!("must be finite and greater than time.start = {t0} s, got {t1} s"),
            ));
        }
        // path
        let path: Box<dyn TipTrajectory> = match (line, sampled) {
            (Some((delta, t_on, duration)), _) => {
                for (k, &v) in delta.iter().enumerate() {
                    if !v.is_finite() {
                        issues.push(problem(
                            &format!("trajectory.delta[{k}]"),
                            format!("must be a finite number, got {v}"),
                        ));
                    }
                }
                if !t_on.is_finite() {
                    issues.push(problem(
                        "trajectory.t0",
                        format!("must be finite, got {t_on}"),
                    ));
                }
                if !(duration.is_finite() && duration > 0.0) {
                    issues.push(problem(
                        "trajectory.duration",
                        format!("must be finite and > 0 (s), got {duration}"),
                    ));
                }
                Box::new(RestToRestLine {
                    start,
                    delta,
                    profile: RestToRestProfile { t0: t_on, duration },
                })
            }
            (None, Some(c)) => {
                if time_ok
                    && let Err(e) = c.check_needing(t0, t1, start, PAYLOAD_SMOOTHNESS, PAYLOAD_NEED)
                {
                    issues.push(problem(data_field, e.to_string()));
                }
                Box::new(c)
            }
            // unreadable data: reported above
            (None, None) => Box::new(RestToRestLine {
                start,
                delta: [0.0; 3],
                profile: RestToRestProfile { t0, duration: 1.0 },
            }),
        };
        let path_box = path;
        let path = path_box.as_ref();
        let path_ok = issues.is_empty() && time_ok;
        let mut min_tension = None;
        if path_ok && rope_ok {
            match crane::check_time_domain(&rope, path, t0, t1) {
                Ok(()) => {}
                Err(CraneError::TimeDomain { which, .. }) => issues.push(problem(
                    if which == "pre" {
                        "time.start"
                    } else {
                        "time.end"
                    },
                    crane::check_time_domain(&rope, path, t0, t1)
                        .err()
                        .map(|e| e.to_string())
                        .unwrap_or_default(),
                )),
                Err(e) => issues.push(problem(path_field("trajectory.t0"), e.to_string())),
            }
            match crane::check_payload_path(&rope, path, t0, t1, 1) {
                Ok(rep) => min_tension = Some(rep),
                Err(e) => issues.push(problem("trajectory", e.to_string())),
            }
        }
        // newton
        let newton = newton_settings(raw.newton.as_ref(), &mut issues);
        // mesh
        let m = &raw.mesh;
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
        let counts = match (m.resolution, m.elements_s, m.elements_t) {
            (Some(res), None, None) => {
                mesh_auto = true;
                positive(&mut issues, "mesh.resolution", res).and_then(|ns| {
                    min_tension
                        .as_ref()
                        .map(|rep| (ns, crane::auto_elements_t(&rope, rep, t1 - t0, ns)))
                })
            }
            (None, Some(a), Some(b)) => {
                let ns = positive(&mut issues, "mesh.elements_s", a);
                let nt = positive(&mut issues, "mesh.elements_t", b);
                ns.zip(nt)
            }
            _ => {
                issues.push(problem(
                    "mesh",
                    "give either `resolution` (elements along the rope; the time step is chosen \
                     from the slowest transverse wave) or both `elements_s` and `elements_t`",
                ));
                None
            }
        };
        let mut mesh = None;
        if let (Some((ns, nt)), Some(rep)) = (counts, min_tension.as_ref()) {
            let unknowns = (6 * ns.saturating_add(1) + 3).saturating_mul(nt);
            if unknowns > MAX_UNKNOWNS {
                issues.push(problem(
                    "mesh",
                    format!(
                        "{ns} × {} elements give {} unknowns, more than {MAX_UNKNOWNS}; use a \
                         coarser mesh",
                        big(nt),
                        big(unknowns)
                    ),
                ));
            } else if method == InverseMethod::SpaceTime
                && let Err(e) = crane::check_mesh_ratio(&rope, rep, t1 - t0, ns, nt)
            {
                issues.push(problem("mesh", e.to_string()));
            } else {
                let sm = SpaceTimeMesh {
                    t_start: t0,
                    t_end: t1,
                    elements_s: ns,
                    elements_t: nt,
                };
                if let Some((field, message)) =
                    crate::io::scenario::time_resolution(t0, t1, sm.ht())
                {
                    issues.push(problem(field, message));
                }
                if let Err(e) = crane::check_resolution(path, &sm) {
                    issues.push(problem(path_field("trajectory.duration"), e.to_string()));
                }
                // the march's own check of its mesh, with its message
                if method == InverseMethod::Characteristics
                    && let Err(e) = crate::inverse::characteristics_solver::check_mesh(&sm)
                {
                    issues.push(match e {
                        crate::inverse::InverseError::Input(p) => p,
                        other => problem("mesh", other.to_string()),
                    });
                }
                mesh = Some(sm);
            }
        }
        let plots = raw.output.and_then(|o| o.plots).unwrap_or(true);
        let mut verify = CraneVerify {
            closed_loop: true,
            refine: 2,
            position_tolerance: None,
        };
        if let Some(v) = &raw.verify {
            verify.closed_loop = v.closed_loop.unwrap_or(true);
            if let Some(k) = v.refine {
                match positive(&mut issues, "verify.refine", k) {
                    Some(k) if k <= 16 => verify.refine = k,
                    Some(k) => issues.push(problem(
                        "verify.refine",
                        format!("must be between 1 and 16, got {k}; the default is 2"),
                    )),
                    None => {}
                }
            }
            match v.position_tolerance {
                Some(x) if !(x.is_finite() && x > 0.0) => issues.push(problem(
                    "verify.position_tolerance",
                    format!("must be finite and > 0, got {x}; leave it out for the default"),
                )),
                other => verify.position_tolerance = other,
            }
        }
        match (issues.is_empty(), mesh) {
            (true, Some(mesh)) => Ok(Self {
                origin: origin.to_owned(),
                method,
                rope,
                mesh,
                mesh_auto,
                trajectory: path_box,
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

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../../../../../examples/crane/01_swing_free_transfer.toml");

    #[test]
    fn example_parses_with_the_auto_mesh() {
        let s = CraneScenario::from_toml_str(EXAMPLE, "example").unwrap();
        assert!(s.mesh_auto);
        assert_eq!(s.mesh.elements_s, 32);
        assert_eq!(s.rope.payload_start, [0.0; 3]);
    }

    /// `method` as in the beam-inverse scenario; the characteristics need no mesh ratio but
    /// 3 time elements.
    #[test]
    fn method_key_and_its_mesh_check() {
        let s = CraneScenario::from_toml_str(EXAMPLE, "example").unwrap();
        assert_eq!(s.method, InverseMethod::SpaceTime);
        let text = EXAMPLE.replace(
            "problem = \"crane\"",
            "problem = \"crane\"\nmethod = \"characteristics\"",
        );
        let s = CraneScenario::from_toml_str(&text, "x").unwrap();
        assert_eq!(s.method, InverseMethod::Characteristics);
        // μ = 10.6: refused for the FEM, accepted for the characteristics
        let coarse = "[mesh]\nelements_s = 8\nelements_t = 1000";
        let fem = EXAMPLE.replace("[mesh]\nresolution = 32", coarse);
        let Err(ScenarioError::Invalid { problems, .. }) = CraneScenario::from_toml_str(&fem, "x")
        else {
            panic!("accepted")
        };
        assert!(problems[0].to_string().starts_with("mesh:"), "{problems:?}");
        let ch = text.replace("[mesh]\nresolution = 32", coarse);
        assert!(CraneScenario::from_toml_str(&ch, "x").is_ok());
        let ch = text.replace(
            "[mesh]\nresolution = 32",
            "[mesh]\nelements_s = 8\nelements_t = 2",
        );
        let Err(ScenarioError::Invalid { problems, .. }) = CraneScenario::from_toml_str(&ch, "x")
        else {
            panic!("accepted")
        };
        assert!(
            problems
                .iter()
                .any(|p| p.to_string().contains("method of characteristics needs")),
            "{problems:?}"
        );
        let bad = EXAMPLE.replace(
            "problem = \"crane\"",
            "problem = \"crane\"\nmethod = \"fem\"",
        );
        assert!(matches!(
            CraneScenario::from_toml_str(&bad, "x"),
            Err(ScenarioError::Syntax { .. })
        ));
    }

    /// `payload_mass = 0` is a heavy chain with a free end: accepted, the auto mesh uses the
    /// last element's speed `≈ sqrt(g hs/2)`; a negative mass is refused with its field.
    #[test]
    fn payload_free_chain_is_accepted_negative_mass_refused() {
        // the chain's travel time 2 sqrt(L/g) = 2.02 s needs a longer domain
        let text = EXAMPLE
            .replace("payload_mass = 20.0", "payload_mass = 0.0")
            .replace("start = 0.0", "start = -1.0")
            .replace("end = 12.0", "end = 13.0");
        let s = CraneScenario::from_toml_str(&text, "chain").unwrap();
        assert_eq!(s.rope.payload_mass, 0.0);
        // 32 elements of 0.3125 m: c ≈ sqrt(g_eff hs/2) ≈ 1.2 m/s, μ = 1: ht ≈ 0.25 s
        let ht = s.mesh.ht();
        assert!(ht > 0.2 && ht < 0.3, "{ht}");
        let Err(ScenarioError::Invalid { problems, .. }) = CraneScenario::from_toml_str(
            &EXAMPLE.replace("payload_mass = 20.0", "payload_mass = -1.0"),
            "x",
        ) else {
            panic!("accepted")
        };
        let msg = problems[0].to_string();
        assert!(
            msg.starts_with("rope.payload_mass:") && msg.contains("≥ 0"),
            "{msg}"
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_field() {
        let text = EXAMPLE
            .replace("rho_a = 2.0", "rho_a = -1.0")
            .replace("ea = 1.0e6", "ea = 0.0")
            .replace("start = 0.0", "start = 1.5");
        let Err(ScenarioError::Invalid { problems, .. }) = CraneScenario::from_toml_str(&text, "x")
        else {
            panic!("accepted")
        };
        let fields: Vec<String> = problems
            .iter()
            .map(|p| match p {
                InputError::Invalid { field, .. } => field.clone(),
                other => other.to_string(),
            })
            .collect();
        assert!(fields.contains(&"rope.rho_a".to_owned()), "{fields:?}");
        assert!(fields.contains(&"rope.ea".to_owned()), "{fields:?}");
        // a slack path is refused with its interval
        let text = EXAMPLE.replace("delta = [8.0, 4.0, 2.0]", "delta = [0.0, 0.0, -200.0]");
        let Err(ScenarioError::Invalid { problems, .. }) = CraneScenario::from_toml_str(&text, "x")
        else {
            panic!("accepted")
        };
        let msg = problems[0].to_string();
        assert!(
            msg.starts_with("trajectory:") && msg.contains("t ∈ ["),
            "{msg}"
        );
        // no pre-actuation room
        let text = EXAMPLE.replace("t0 = 2.0", "t0 = 0.5");
        let Err(ScenarioError::Invalid { problems, .. }) = CraneScenario::from_toml_str(&text, "x")
        else {
            panic!("accepted")
        };
        let msg = problems[0].to_string();
        assert!(
            msg.starts_with("time.start:") && msg.contains("pre-actuation"),
            "{msg}"
        );
    }
}
