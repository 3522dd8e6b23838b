//! Spatial director beams (`[[beams]]`) and the directory of frames that joints and loads
//! name: rigid bodies by name, beam nodes as `<beam>:start`, `<beam>:end` or `<beam>:<k>`.

use super::RIGIDITY_TOLERANCE;
use super::bodies::valid_name;
use super::raw::{RawBeam, RawIntegration, RawReferenceKind};
use super::validate::{Issues, all_finite};
use crate::math::{Vec3, cross, dot, norm, sub};
use crate::model::director_beam::section::{DiagonalStiffness, SectionInertia};
use crate::model::director_beam::{BeamSpec, ConstantCurvature, Integration, Section};
use crate::model::{JointBody, RigidBody};

/// Largest number of elements of one beam: the model is built while loading, before the
/// resource estimate exists.
pub const MAX_BEAM3D_ELEMENTS: i64 = 100_000;

/// Largest turning angle of the centreline between two elements of a `kind = "nodes"`
/// reference (rad): more is a kink, not a smooth curve.
pub const MAX_KINK: f64 = 0.5;

/// Every frame a scenario can name, with its initial state.
pub(super) struct Frames {
    /// Body names (frames `0..n`).
    pub(super) bodies: Vec<String>,
    /// Beams: name, first frame, number of nodes.
    pub(super) beams: Vec<(String, usize, usize)>,
    /// Initial `(q, v)` of every frame (empty if a body or beam failed validation).
    pub(super) states: Vec<([f64; 12], [f64; 12])>,
    /// Names of the `[[beams]]` entries that failed validation: their problems are reported
    /// already, so a joint or load naming them (or their nodes) is not reported again.
    broken: Vec<String>,
    /// Whether a body or beam has an invalid (or, after a wrong type, a placeholder) name: a
    /// name that matches nothing may be meant for it, and is not reported again.
    misnamed: bool,
}

/// What a name in `body`, `body_a` or `body_b` refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// A frame (a rigid body or a beam node) or the ground.
    Frame(JointBody),
    /// A whole beam (index), for distributed loads.
    Beam(usize),
}

impl Frames {
    /// The frames of the validated `bodies` (named `body_names`, every `[[bodies]]` entry)
    /// and `beams` (`None` where an entry failed validation; `beam_names` are the names of
    /// every `[[beams]]` entry).
    pub(super) fn new(
        bodies: &[RigidBody],
        body_names: &[&str],
        beams: &[Option<BeamSpec>],
        beam_names: &[&str],
    ) -> Self {
        let mut states: Vec<([f64; 12], [f64; 12])> = bodies
            .iter()
            .map(|b| (b.initial_q(), b.initial_v()))
            .collect();
        let complete = bodies.len() == body_names.len() && beams.iter().all(Option::is_some);
        let mut first = body_names.len();
        let mut out = Vec::new();
        for spec in beams.iter().flatten() {
            out.push((spec.name.clone(), first, spec.nodes.len()));
            first += spec.nodes.len();
            if let Ok(d) = spec.build() {
                for a in 0..d.n_frames {
                    let mut q = [0.0; 12];
                    let mut v = [0.0; 12];
                    q.copy_from_slice(&d.initial_q[12 * a..12 * a + 12]);
                    v.copy_from_slice(&d.initial_v[12 * a..12 * a + 12]);
                    states.push((q, v));
                }
            }
        }
        if !complete || states.len() != first {
            states.clear();
        }
        let broken = beams
            .iter()
            .zip(beam_names)
            .filter(|(spec, _)| spec.is_none())
            .map(|(_, name)| (*name).to_owned())
            .collect();
        let misnamed = body_names.iter().chain(beam_names).any(|n| !valid_name(n));
        Self {
            bodies: body_names.iter().map(|s| (*s).to_owned()).collect(),
            beams: out,
            states,
            broken,
            misnamed,
        }
    }

    /// Names a user may write, for messages.
    pub(super) fn known(&self, with_ground: bool) -> String {
        let mut k: Vec<String> = Vec::new();
        if with_ground {
            k.push("ground".into());
        }
        k.extend(self.bodies.iter().filter(|n| valid_name(n)).cloned());
        for (name, _, _) in &self.beams {
            k.push(format!("{name}:start"));
            k.push(format!("{name}:end"));
        }
        if k.is_empty() {
            "none".into()
        } else {
            k.join(", ")
        }
    }

    /// Resolves a name; the error says what is wrong and what would be right. `Ok(None)`: the
    /// name is that of a beam that failed validation (or may be that of a body or beam whose
    /// own name is invalid), whose problem is reported already.
    pub(super) fn lookup(&self, name: &str, whole_beam_ok: bool) -> Result<Option<Target>, String> {
        self.resolve(name, whole_beam_ok).map(Some).or_else(|e| {
            let beam = name.split_once(':').map_or(name, |(beam, _)| beam);
            if self.broken.iter().any(|b| b == beam) || self.misnamed {
                Ok(None)
            } else {
                Err(e)
            }
        })
    }

    fn resolve(&self, name: &str, whole_beam_ok: bool) -> Result<Target, String> {
        if name == "ground" {
            return Ok(Target::Frame(JointBody::Ground));
        }
        if let Some(b) = self.bodies.iter().position(|n| n == name) {
            return Ok(Target::Frame(JointBody::Body(b)));
        }
        if let Some((beam, node)) = name.split_once(':') {
            let Some((_, first, n)) = self.beams.iter().find(|(b, _, _)| b == beam) else {
                return Err(format!(
                    "no beam named {beam:?}; known names: {}",
                    self.known(true)
                ));
            };
            let k = match node {
                "start" => Some(0),
                "end" => Some(n - 1),
                other => other.parse::<usize>().ok().filter(|&k| k < *n),
            };
            return match k {
                Some(k) => Ok(Target::Frame(JointBody::Body(first + k))),
                None => Err(format!(
                    "beam {beam:?} has nodes 0..={} (or :start, :end); got {node:?}",
                    n - 1
                )),
            };
        }
        if let Some(i) = self.beams.iter().position(|(b, _, _)| b == name) {
            if whole_beam_ok {
                return Ok(Target::Beam(i));
            }
            return Err(format!(
                "{name:?} is a beam: name one of its nodes, \"{name}:start\", \"{name}:end\" or \"{name}:<node index>\""
            ));
        }
        Err(format!(
            "no body or beam named {name:?}; known names: {}",
            self.known(true)
        ))
    }

    /// Whether a body or beam has an invalid name (reported with it): a name that matches
    /// nothing may be meant for it.
    pub(super) fn misnamed(&self) -> bool {
        self.misnamed
    }

    /// Initial `(q, v)` of a frame, if every part validated.
    pub(super) fn state(&self, frame: usize) -> Option<([f64; 12], [f64; 12])> {
        self.states.get(frame).copied()
    }
}

/// Validates every `[[beams]]` entry (a `None` where one is invalid, so frame numbers of the
/// others stay right for the messages).
pub(super) fn validate_beams(
    raw: &[RawBeam],
    body_names: &[&str],
    issues: &mut Issues,
) -> Vec<Option<BeamSpec>> {
    raw.iter()
        .enumerate()
        .map(|(i, b)| validate_beam(raw, i, b, body_names, issues))
        .collect()
}

fn validate_beam(
    raw: &[RawBeam],
    i: usize,
    b: &RawBeam,
    body_names: &[&str],
    issues: &mut Issues,
) -> Option<BeamSpec> {
    let at = |f: &str| format!("beams[{i}].{f}");
    let before = issues.0.len();
    if !valid_name(&b.name) {
        issues.push(
            at("name"),
            format!(
                "{:?} is not a valid name: use letters, digits, '_', '-' or '.'",
                b.name
            ),
        );
    } else if b.name == "ground" {
        issues.push(at("name"), "\"ground\" is reserved; choose another name");
    } else if body_names.contains(&b.name.as_str()) || raw[..i].iter().any(|o| o.name == b.name) {
        issues.push(
            at("name"),
            format!(
                "{:?} is already the name of a body or beam; names must be unique",
                b.name
            ),
        );
    }
    let order = b.order.unwrap_or(2);
    if !(1..=2).contains(&order) {
        issues.push(
            at("order"),
            format!("must be 1 (linear) or 2 (quadratic) elements (got {order})"),
        );
    }
    if b.elements < 1 {
        issues.push(
            at("elements"),
            format!("must be at least 1 (got {})", b.elements),
        );
    } else if b.elements > MAX_BEAM3D_ELEMENTS {
        issues.push(
            at("elements"),
            format!(
                "at most {MAX_BEAM3D_ELEMENTS} elements per beam (got {}); use order = 2 for \
                 accuracy with fewer elements",
                b.elements
            ),
        );
    }
    let section = validate_section(b, i, issues);
    let nodes = if issues.0.len() == before {
        validate_reference(b, i, b.elements as usize, order as usize, issues)
    } else {
        None
    };
    for (field, v) in [
        ("velocity", b.velocity),
        ("angular_velocity", b.angular_velocity),
    ] {
        if let Some(v) = v
            && !all_finite(&v)
        {
            issues.push(at(field), "must be finite");
        }
    }
    if issues.0.len() > before {
        return None;
    }
    let spec = BeamSpec {
        name: b.name.clone(),
        order: order as usize,
        nodes: nodes?,
        section: section?,
        integration: match b.integration {
            Some(RawIntegration::Full) => Integration::Full,
            _ => Integration::Reduced,
        },
        velocity: b.velocity.unwrap_or([0.0; 3]),
        angular_velocity: b.angular_velocity.unwrap_or([0.0; 3]),
        distributed: Vec::new(),
        gravity: None,
    };
    if let Err(e) = spec.build_elements() {
        issues.push(
            at("reference"),
            format!("{e}; check the nodes and frames of the reference"),
        );
        return None;
    }
    Some(spec)
}

fn validate_section(b: &RawBeam, i: usize, issues: &mut Issues) -> Option<Section> {
    let at = |f: &str| format!("beams[{i}].section.{f}");
    let s = &b.section;
    let before = issues.0.len();
    let positive = |field: &str, v: Option<f64>, unit: &str, issues: &mut Issues| -> f64 {
        match v {
            None => {
                issues.push(at(field), format!("required ({unit})"));
                1.0
            }
            Some(x) if x.is_finite() && x <= 0.0 => {
                issues.push(at(field), format!("must be positive (got {x} {unit})"));
                1.0
            }
            Some(x) => x,
        }
    };
    let rho_a = positive("rho_a", Some(s.rho_a), "kg/m", issues);
    let rho_i1 = positive(
        "rho_i1",
        s.rho_i1,
        "kg m: ρ I1, rotary inertia about d1",
        issues,
    );
    let rho_i2 = positive(
        "rho_i2",
        s.rho_i2,
        "kg m: ρ I2, rotary inertia about d2",
        issues,
    );
    // E_αβ = ∫ρ ξ_α ξ_β dA: E11 = ρ I2 (about d2), E22 = ρ I1 (about d1)
    let inertia = SectionInertia {
        rho_a,
        euler_tensor: [[rho_i2, 0.0], [0.0, rho_i1]],
    };
    let diagonal = [s.ea, s.ga1, s.ga2, s.ei1, s.ei2, s.gj];
    let section = match (s.stiffness, diagonal.iter().any(Option::is_some)) {
        (Some(_), true) => {
            issues.push(
                at("stiffness"),
                "give either the full 6×6 stiffness or ea, ga1, ga2, ei1, ei2, gj, not both",
            );
            None
        }
        (Some(c), false) => {
            if issues.0.len() > before {
                return None;
            }
            match Section::from_matrix(c, inertia) {
                Ok(sec) => Some(sec),
                Err(e) => {
                    issues.push(
                        at("stiffness"),
                        format!("{e}; the matrix on (Γ1, Γ2, Γ3, K1, K2, K3) must be symmetric positive definite"),
                    );
                    None
                }
            }
        }
        (None, _) => {
            let k = DiagonalStiffness {
                ea: positive("ea", s.ea, "N", issues),
                ga1: positive("ga1", s.ga1, "N, shear correction included", issues),
                ga2: positive("ga2", s.ga2, "N, shear correction included", issues),
                ei1: positive("ei1", s.ei1, "N m², bending about d1", issues),
                ei2: positive("ei2", s.ei2, "N m², bending about d2", issues),
                gj: positive("gj", s.gj, "N m², torsion", issues),
            };
            if issues.0.len() > before {
                return None;
            }
            Section::from_diagonal(k, inertia).ok()
        }
    }?;
    match (s.tau_s, s.tau_e) {
        (None, None) => Some(section),
        (Some(ts), Some(te)) => match section.with_kelvin_voigt(ts, te) {
            Ok(sec) => Some(sec),
            Err(e) => {
                issues.push(
                    at(if ts.is_finite() && ts >= 0.0 {
                        "tau_e"
                    } else {
                        "tau_s"
                    }),
                    format!("{e}"),
                );
                None
            }
        },
        (Some(_), None) | (None, Some(_)) => {
            issues.push(
                at(if s.tau_s.is_none() { "tau_s" } else { "tau_e" }),
                "Kelvin–Voigt damping needs both retardation times tau_s (shear, torsion) and \
                 tau_e (extension, bending) in s; give 0 for none",
            );
            None
        }
    }
}

fn orthonormal(d: &[Vec3; 3]) -> Option<String> {
    for i in 0..3 {
        for j in i..3 {
            let want = if i == j { 1.0 } else { 0.0 };
            let got = dot(&d[i], &d[j]);
            if (got - want).abs() > RIGIDITY_TOLERANCE {
                return Some(format!(
                    "d{}·d{} = {got:.12} must be {want} (tolerance {RIGIDITY_TOLERANCE:e})",
                    i + 1,
                    j + 1
                ));
            }
        }
    }
    if dot(&cross(&d[0], &d[1]), &d[2]) < 0.0 {
        return Some("left-handed: use d3 = d1 × d2".into());
    }
    None
}

fn validate_reference(
    b: &RawBeam,
    i: usize,
    elements: usize,
    order: usize,
    issues: &mut Issues,
) -> Option<Vec<[f64; 12]>> {
    let at = |f: &str| format!("beams[{i}].reference.{f}");
    let r = &b.reference;
    let n_nodes = elements * order + 1;
    let kind = match r.kind {
        RawReferenceKind::Straight => "straight",
        RawReferenceKind::Curved => "curved",
        RawReferenceKind::Nodes => "nodes",
    };
    let not_for = |field: &str, given: bool, issues: &mut Issues| {
        if given {
            issues.push(
                at(field),
                format!("not used by kind = \"{kind}\"; remove it"),
            );
        }
    };
    let before = issues.0.len();
    match r.kind {
        RawReferenceKind::Straight | RawReferenceKind::Curved => {
            not_for("positions", r.positions.is_some(), issues);
            not_for("frames", r.frames.is_some(), issues);
            if r.kind == RawReferenceKind::Straight {
                not_for("curvature", r.curvature.is_some(), issues);
            }
            let length = match r.length {
                None => {
                    issues.push(at("length"), "required: the beam's arc length in m");
                    1.0
                }
                Some(l) if l.is_finite() && l <= 0.0 => {
                    issues.push(at("length"), format!("must be positive (got {l} m)"));
                    1.0
                }
                Some(l) => l,
            };
            let frame = r
                .directors
                .unwrap_or([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
            if all_finite(frame.iter().flatten())
                && let Some(m) = orthonormal(&frame)
            {
                issues.push(
                    at("directors"),
                    format!("the start frame must be orthonormal and right-handed: {m}"),
                );
            }
            let curvature = match (r.kind, r.curvature) {
                (RawReferenceKind::Curved, None) => {
                    issues.push(
                        at("curvature"),
                        "required for kind = \"curved\": the material curvature [κ1, κ2, κ3] in \
                         1/m (bending about d1, d2 and twist); [1/R, 0, 0] is an arc of radius R",
                    );
                    [0.0; 3]
                }
                (_, c) => c.unwrap_or([0.0; 3]),
            };
            if issues.0.len() > before || !all_finite(&curvature) || !length.is_finite() {
                return None;
            }
            let curve = ConstantCurvature {
                origin: r.start.unwrap_or([0.0; 3]),
                frame,
                curvature,
            };
            Some(curve.nodes(length, elements, order))
        }
        RawReferenceKind::Nodes => {
            not_for("start", r.start.is_some(), issues);
            not_for("directors", r.directors.is_some(), issues);
            not_for("length", r.length.is_some(), issues);
            not_for("curvature", r.curvature.is_some(), issues);
            let (Some(pos), Some(frames)) = (&r.positions, &r.frames) else {
                issues.push(
                    at(if r.positions.is_none() {
                        "positions"
                    } else {
                        "frames"
                    }),
                    format!(
                        "required for kind = \"nodes\": {n_nodes} node positions [[x, y, z], ...] \
                         and {n_nodes} frames [[d1, d2, d3], ...] (elements · order + 1)"
                    ),
                );
                return None;
            };
            for (field, len) in [("positions", pos.len()), ("frames", frames.len())] {
                if len != n_nodes {
                    issues.push(
                        at(field),
                        format!(
                            "{len} entries for {elements} elements of order {order}: need \
                             elements · order + 1 = {n_nodes}"
                        ),
                    );
                }
            }
            if issues.0.len() > before {
                return None;
            }
            for (k, f) in frames.iter().enumerate() {
                if all_finite(f.iter().flatten())
                    && let Some(m) = orthonormal(f)
                {
                    issues.push(
                        at(&format!("frames[{k}]")),
                        format!("must be orthonormal and right-handed: {m}"),
                    );
                }
            }
            // kinks: the chord between consecutive nodes must turn smoothly
            for k in 1..n_nodes - 1 {
                let (c0, c1) = (sub(&pos[k], &pos[k - 1]), sub(&pos[k + 1], &pos[k]));
                let (n0, n1) = (norm(&c0), norm(&c1));
                if n0 == 0.0 || n1 == 0.0 {
                    issues.push(
                        at(&format!("positions[{}]", if n0 == 0.0 { k } else { k + 1 })),
                        "coincides with the previous node; nodes must be distinct",
                    );
                    continue;
                }
                let angle = (dot(&c0, &c1) / (n0 * n1)).clamp(-1.0, 1.0).acos();
                if angle > MAX_KINK {
                    issues.push(
                        at(&format!("positions[{k}]")),
                        format!(
                            "the centreline turns by {:.1}° at node {k}, a kink (more than \
                             {:.1}°): a smooth reference needs more nodes, or model a joint there",
                            angle.to_degrees(),
                            MAX_KINK.to_degrees()
                        ),
                    );
                }
            }
            if issues.0.len() > before {
                return None;
            }
            Some(
                pos.iter()
                    .zip(frames)
                    .map(|(x, f)| {
                        let mut q = [0.0; 12];
                        q[..3].copy_from_slice(x);
                        for d in 0..3 {
                            q[3 + 3 * d..6 + 3 * d].copy_from_slice(&f[d]);
                        }
                        q
                    })
                    .collect(),
            )
        }
    }
}
