//! Validation of a parsed scenario: every value is checked and *all* problems are collected,
//! each with its field path; only a fully valid file builds a [`MultibodySystem`].

use super::beams::{Frames, validate_beams};
use super::bodies::{validate_bodies, validate_loads};
use super::joints::validate_joints;
use super::raw::{MethodKind, RawAnalysis, RawMethod, RawNewton, RawScenario, RawStatics};
use super::{MAX_ELEMENTS_PER_BLOCK, MAX_LOAD_STEPS, MAX_NODES, MAX_ORDER, MAX_QUADRATURE_POINTS};
use crate::error::InputError;
use crate::model::MultibodySystem;
use crate::solve::NewtonParams;
use crate::solve::scheme::{Method, SpaceTimeParams, ThetaScheme};
use crate::solve::statics::StaticParams;
use std::fmt::Write as _;

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

pub(super) fn all_finite<'a>(xs: impl IntoIterator<Item = &'a f64>) -> bool {
    xs.into_iter().all(|x| x.is_finite())
}

pub(super) struct Built {
    pub(super) system: MultibodySystem,
    pub(super) n_loads: usize,
    pub(super) constraint_labels: Vec<String>,
    pub(super) t_start: f64,
    pub(super) t_end: f64,
    pub(super) method: Method,
    pub(super) statics: Option<StaticParams>,
    pub(super) newton: NewtonParams,
    pub(super) plots: bool,
    pub(super) beams: Vec<BeamInfo>,
}

/// Checks all values; returns the built model only if nothing is wrong so far (the caller
/// still checks `issues`, which may hold problems found before).
pub(super) fn validate(raw: RawScenario, issues: &mut Issues) -> Option<Built> {
    let is_static = raw.analysis == Some(RawAnalysis::Static);
    if raw.inverse.is_some() {
        issues.push(
            "inverse",
            "only for analysis = \"inverse\" (the spatial inverse problem); remove it or set \
             analysis = \"inverse\"",
        );
    }
    let (mut t_start, mut t_end) = (0.0, 0.0);
    let mut method = None;
    let mut statics = None;
    let mut newton = validate_newton(raw.newton.as_ref(), issues);
    if is_static {
        for (given, field) in [
            (raw.time.is_some(), "time"),
            (raw.method.is_some(), "method"),
        ] {
            if given {
                issues.push(
                    field,
                    "not used by analysis = \"static\" (loads are applied in load steps at \
                     statics.time); remove the table or set analysis = \"dynamic\"",
                );
            }
        }
        let st = validate_statics(raw.statics.as_ref(), issues);
        if raw.newton.as_ref().and_then(|n| n.tolerance).is_none() {
            // statics measures the residual relative to the applied load
            newton.tolerance = 1e-10;
        }
        t_start = st.time;
        t_end = st.time;
        statics = Some(StaticParams { newton, ..st });
    } else {
        if raw.statics.is_some() {
            issues.push(
                "statics",
                "only for analysis = \"static\"; remove it or set analysis = \"static\"",
            );
        }
        match &raw.time {
            None => issues.push(
                "time",
                "required for a dynamic analysis: [time] with end (and start, default 0) in s",
            ),
            Some(time) => {
                (t_start, t_end) = (time.start, time.end);
                if t_start.is_finite() && t_end.is_finite() && t_end <= t_start {
                    issues.push(
                        "time.end",
                        format!(
                            "must be greater than time.start = {t_start} s (got {t_end} s); set end > start"
                        ),
                    );
                }
            }
        }
        let interval = time_interval(t_start, t_end, ["time.start", "time.end"]);
        let duration = (t_start.is_finite() && t_end.is_finite() && t_end > t_start)
            .then_some(t_end - t_start)
            .filter(|_| interval.is_none());
        if let Some((field, message)) = interval {
            issues.push(field, message);
        }
        match &raw.method {
            None => issues.push(
                "method",
                "required for a dynamic analysis: [method] with kind = \"space-time\", \
                 \"midpoint\" or \"implicit-euler\"",
            ),
            Some(m) => method = validate_method(m, duration, issues),
        }
        if let Some(m) = &method
            && duration.is_some()
        {
            let node_spacing = match m {
                Method::SpaceTime(p) => p.element_size(t_start, t_end) / p.order as f64,
                Method::TimeStepping { step, .. } => *step,
            };
            if let Some((field, message)) = time_resolution(t_start, t_end, node_spacing) {
                issues.push(field, message);
            }
        }
    }
    let bodies = validate_bodies(&raw.bodies, issues);
    if raw.bodies.is_empty() && raw.beams.is_empty() {
        issues.push(
            "bodies",
            "at least one [[bodies]] or [[beams]] entry is required; add a body with a name and \
             a box or mass properties, or a beam",
        );
    }
    let names: Vec<&str> = raw.bodies.iter().map(|b| b.name.as_str()).collect();
    let mut beams = validate_beams(&raw.beams, &names, issues);
    let beam_names: Vec<&str> = raw.beams.iter().map(|b| b.name.as_str()).collect();
    let frames = Frames::new(&bodies, &names, &beams, &beam_names);
    let (loads, beam_loads) = validate_loads(&raw.loads, &frames, issues);
    let joints = validate_joints(&raw.joints, &frames, t_start, issues);
    let plots = raw.output.and_then(|o| o.plots).unwrap_or(true);
    if !issues.0.is_empty() {
        return None;
    }
    let n_loads = loads.len() + beam_loads.len();
    for (b, vector, per_mass, tf) in beam_loads {
        if let Some(Some(spec)) = beams.get_mut(b) {
            let f = if per_mass {
                let ra = spec.section.rho_a();
                [ra * vector[0], ra * vector[1], ra * vector[2]]
            } else {
                vector
            };
            spec.distributed.push((f, tf));
        }
    }
    let mut constraint_labels = Vec::new();
    let mut deformables = Vec::with_capacity(beams.len());
    let mut infos = Vec::with_capacity(beams.len());
    let mut first = bodies.len();
    for spec in beams.into_iter().flatten() {
        match spec.build() {
            Ok(d) => {
                infos.push(BeamInfo {
                    name: spec.name.clone(),
                    first_frame: first,
                    nodes: d.n_frames,
                    order: spec.order,
                    length: spec
                        .build_elements()
                        .map(|els| els.iter().map(|e| e.length()).sum())
                        .unwrap_or(0.0),
                });
                first += d.n_frames;
                deformables.push(d);
            }
            Err(e) => {
                issues.push("beams", e.to_string());
                return None;
            }
        }
    }
    let tied: Vec<usize> = joints.iter().filter_map(|(_, c)| c.tied_frame()).collect();
    for (b, body) in bodies.iter().enumerate() {
        if !tied.contains(&b) {
            constraint_labels.push(format!("{}.orthonormality", body.name));
        }
    }
    for info in &infos {
        for k in 0..info.nodes {
            if !tied.contains(&(info.first_frame + k)) {
                constraint_labels.push(format!("{}:{k}.orthonormality", info.name));
            }
        }
    }
    let mut constraints = Vec::with_capacity(joints.len());
    for (label, c) in joints {
        constraint_labels.push(label);
        constraints.push(c);
    }
    match MultibodySystem::with_deformables(bodies, deformables, loads, constraints) {
        Ok(system) => {
            super::redundancy::check(&system, &raw.joints, issues);
            issues.0.is_empty().then_some(())?;
            Some(Built {
                system,
                n_loads,
                constraint_labels,
                t_start,
                t_end,
                method: method.or(if is_static {
                    Some(Method::TimeStepping {
                        scheme: ThetaScheme::MIDPOINT,
                        step: 1.0,
                    })
                } else {
                    None
                })?,
                statics,
                newton,
                plots,
                beams: infos,
            })
        }
        Err(e) => {
            issues.0.push(InputError::System(e));
            None
        }
    }
}

/// A beam of a built scenario: where its nodes are among the system's frames.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BeamInfo {
    /// Name.
    pub name: String,
    /// Frame of node 0.
    pub first_frame: usize,
    /// Number of nodes.
    pub nodes: usize,
    /// Element order.
    pub order: usize,
    /// Reference length (m).
    pub length: f64,
}

fn validate_statics(s: Option<&RawStatics>, issues: &mut Issues) -> StaticParams {
    let mut p = StaticParams::default();
    let Some(s) = s else { return p };
    if let Some(n) = s.load_steps {
        if !(1..=MAX_LOAD_STEPS).contains(&n) {
            issues.push(
                "statics.load_steps",
                format!("must be between 1 and {MAX_LOAD_STEPS} (got {n}); the default is 10"),
            );
        } else {
            p.load_steps = n as usize;
        }
    }
    if let Some(n) = s.max_bisections {
        if !(0..=30).contains(&n) {
            issues.push(
                "statics.max_bisections",
                format!("must be between 0 and 30 (got {n}); the default is 6"),
            );
        } else {
            p.max_bisections = n as usize;
        }
    }
    if let Some(t) = s.time {
        p.time = t;
    }
    p
}

/// Smallest time step accepted relative to the magnitude of the times (`2⁻⁴⁰ ≈ 10⁻¹²`: the
/// time of a node then carries the step to better than `10⁻⁴`).
pub const MIN_RELATIVE_STEP: f64 = 1e-12;

/// Smallest time step accepted at all (s): below it powers and inverses of the step leave the
/// range of `f64`.
pub const MIN_STEP: f64 = 1e-150;

/// A time interval `[t_start, t_end]` (finite, `t_end > t_start`) that no time grid can
/// resolve, whatever its steps: shorter than [`MIN_STEP`] (a subnormal `time.end`), or lost in
/// the round-off of the times themselves (below [`MIN_RELATIVE_STEP`] of their magnitude:
/// `start = 1e20, end = 1e20 + 16384`). The field to blame (`end`: the end, `start`: the
/// start, named as the caller's table has them) and the message, with the fix. Checked before
/// everything that depends on the interval (meshes, the room for the actuation), which would
/// otherwise fail in its place with numbers that say nothing. Shared by the scenario parsers.
pub(crate) fn time_interval(
    t_start: f64,
    t_end: f64,
    [start, end]: [&'static str; 2],
) -> Option<(&'static str, String)> {
    let scale = t_start.abs().max(t_end.abs());
    if !(t_start.is_finite() && t_end.is_finite() && t_end > t_start) {
        return None; // reported elsewhere
    }
    let duration = t_end - t_start;
    if duration < MIN_STEP {
        return Some((
            end,
            format!(
                "the time interval {end} − {start} = {duration:e} s is too small to compute \
                 with (the least is {MIN_STEP:e} s, and no time step can be shorter than the \
                 interval); the times are in seconds: set {end} to the end of the simulated \
                 time, e.g. {end} = {}",
                t_start + 1.0
            ),
        ));
    }
    if duration < MIN_RELATIVE_STEP * scale {
        return Some((
            start,
            format!(
                "the time interval [{t_start:e}, {t_end:e}] s ({duration:e} s long) is lost in \
                 the round-off of the times themselves (t ≈ {scale:.3e} s is only resolved to \
                 {:.1e} s; a time step must be at least {MIN_RELATIVE_STEP:e} of the times): \
                 shift the interval towards 0, e.g. {start} = 0 and {end} = {duration:e}",
                scale * f64::EPSILON,
            ),
        ));
    }
    None
}

/// A time grid on `[t_start, t_end]` with nodes `spacing` apart that round-off cannot carry:
/// the field to blame and the message. Shared by the scenario parsers.
pub(crate) fn time_resolution(
    t_start: f64,
    t_end: f64,
    spacing: f64,
) -> Option<(&'static str, String)> {
    let scale = t_start.abs().max(t_end.abs());
    if !(spacing.is_finite() && scale.is_finite() && spacing > 0.0 && t_end > t_start) {
        return None; // reported elsewhere
    }
    if spacing < MIN_STEP {
        return Some((
            "time.end",
            format!(
                "the time step {spacing:e} s (time.end − time.start = {:e} s over the time \
                 nodes) is too small to compute with (the least is {MIN_STEP:e} s); use a \
                 longer time interval or fewer time elements or steps",
                t_end - t_start
            ),
        ));
    }
    if spacing < MIN_RELATIVE_STEP * scale {
        return Some((
            "time.start",
            format!(
                "the time step {spacing:.3e} s is lost in the round-off of the times themselves \
                 (t ≈ {scale:.3e} s is only resolved to {:.1e} s): the time nodes would not \
                 advance. Shift the time interval towards 0 (e.g. start = 0, end = {:e}), or \
                 use fewer time elements or steps",
                scale * f64::EPSILON,
                t_end - t_start
            ),
        ));
    }
    None
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
    let Some(n) = n else {
        return NewtonParams::default();
    };
    let (params, problems) = NewtonParams::from_fields(n.tolerance, n.max_iterations);
    for (field, message) in problems {
        issues.push(field, message);
    }
    params
}
