//! Bodies (names, mass properties, directors, initial velocities) and loads with their time
//! functions.

use super::RIGIDITY_TOLERANCE;
use super::beams::{Frames, Target};
use super::raw::{RawBody, RawLoad, RawLoadKind, RawTimeFunction, TimeFunctionKind};
use super::validate::{Issues, all_finite};
use crate::math::{Vec3, cross, dot, norm};
use crate::model::{JointBody, Load, LoadKind, MassProperties, RigidBody, TimeFunction};

const IDENTITY: [Vec3; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

pub(super) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

pub(super) fn validate_bodies(raw: &[RawBody], issues: &mut Issues) -> Vec<RigidBody> {
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

/// A distributed load on a whole beam: beam index, vector, whether it is a body force per
/// unit mass (else a force per unit length), time function.
pub(super) type BeamLoad = (usize, Vec3, bool, TimeFunction);

pub(super) fn validate_loads(
    raw: &[RawLoad],
    frames: &Frames,
    issues: &mut Issues,
) -> (Vec<Load>, Vec<BeamLoad>) {
    let mut out = Vec::with_capacity(raw.len());
    let mut on_beams = Vec::new();
    for (i, l) in raw.iter().enumerate() {
        let at = |f: &str| format!("loads[{i}].{f}");
        let whole_beam = matches!(
            l.kind,
            RawLoadKind::BodyForce | RawLoadKind::DistributedForce
        );
        let target = match frames.lookup(&l.body, whole_beam) {
            Ok(Some(Target::Frame(JointBody::Ground))) => {
                issues.push(
                    at("body"),
                    "a load on \"ground\" does nothing; name a body or beam",
                );
                None
            }
            Ok(t) => t,
            Err(m) => {
                issues.push(at("body"), m);
                None
            }
        };
        let time_function = validate_time_function(l.time_function.as_ref(), i, issues);
        let (Some(target), Some(time_function)) = (target, time_function) else {
            continue;
        };
        match (target, l.kind) {
            (Target::Beam(b), RawLoadKind::BodyForce) => {
                on_beams.push((b, l.vector, true, time_function));
            }
            (Target::Beam(b), RawLoadKind::DistributedForce) => {
                on_beams.push((b, l.vector, false, time_function));
            }
            (Target::Beam(_), _) => unreachable!("whole beams only for distributed kinds"),
            (Target::Frame(JointBody::Body(f)), kind) => {
                let kind = match kind {
                    RawLoadKind::Torque => LoadKind::Torque(l.vector),
                    RawLoadKind::Force => LoadKind::Force(l.vector),
                    RawLoadKind::BodyForce if f < frames.bodies.len() => {
                        LoadKind::BodyForce(l.vector)
                    }
                    RawLoadKind::BodyForce => {
                        issues.push(
                            at("kind"),
                            format!(
                                "a body force acts on a whole beam: write body = \"{}\" (the \
                                 beam) instead of a node; on a node use kind = \"force\"",
                                l.body.split(':').next().unwrap_or(&l.body)
                            ),
                        );
                        continue;
                    }
                    RawLoadKind::DistributedForce => {
                        issues.push(
                            at("kind"),
                            "a distributed force (N/m) acts on a whole beam: name the beam in \
                             body; on a node or a rigid body use kind = \"force\" (N)",
                        );
                        continue;
                    }
                };
                out.push(Load {
                    body: f,
                    kind,
                    time_function,
                });
            }
            (Target::Frame(JointBody::Ground), _) => {}
        }
    }
    (out, on_beams)
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
