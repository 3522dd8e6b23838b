//! Joints: named bodies, kind-specific fields, and consistency with the initial state.

use super::beams::{Frames, Target};
use super::bodies::valid_name;
use super::raw::{RawJoint, RawJointKind};
use super::validate::{Issues, all_finite};
use crate::math::{Vec3, norm};
use crate::model::{Constraint, Distance, JointBody, Prescribed, Revolute, Rigid, Spherical};

/// Largest `|Φ(q_0, t_0)|` accepted for a joint, relative to the size of the terms that make
/// up each of its equations ([`joint_scales`]): `|Φ_e| ≤ 10⁻¹⁰ Σ_l |G_el| q̂_l`. Relative, so
/// that the check does not depend on the units (a model in millimetres holds its joints to the
/// same digits as one in metres) and a joint far from the origin or of a large model is not
/// refused for the round-off of its own coordinates.
pub const JOINT_CONSISTENCY_TOLERANCE: f64 = 1e-10;

/// The size of the terms of each equation of a joint at `q` (in the units of its `Φ_e`):
/// `s_e = Σ_l |G_el| q̂_l`, with `q̂_l = max(|q_l|, ℓ)` for a position coordinate and
/// `max(|q_l|, 1)` for a director one, `ℓ` the model's characteristic length. The round-off
/// of evaluating `Φ_e` is a small multiple of `ε s_e`; a joint that holds to `10⁻¹⁰ s_e`
/// holds to ten significant digits of its own geometry.
fn joint_scales(g: &[f64], q: &[f64], indices: &[usize], length: f64) -> Vec<f64> {
    let n = indices.len();
    let q_hat: Vec<f64> = indices
        .iter()
        .zip(q)
        .map(|(&gi, x)| x.abs().max(if gi % 12 < 3 { length } else { 1.0 }))
        .collect();
    g.chunks(n.max(1))
        .map(|row| row.iter().zip(&q_hat).map(|(a, b)| a.abs() * b).sum())
        .collect()
}

/// Joints: named bodies, kind-specific fields, and consistency with the initial state
/// (`|Φ_e(q_0, t_0)| ≤ 10⁻¹⁰ s_e` relative to the size of its terms ([`joint_scales`]),
/// `|G v_0 + ∂Φ/∂t| < 1e-8 (1 + |v_0|)`).
pub(super) fn validate_joints(
    raw: &[RawJoint],
    frames: &Frames,
    t_start: f64,
    issues: &mut Issues,
) -> Vec<(String, Box<dyn Constraint>)> {
    let names: Vec<&str> = frames
        .bodies
        .iter()
        .map(String::as_str)
        .chain(frames.beams.iter().map(|(n, _, _)| n.as_str()))
        .collect();
    // the model's characteristic length: its frames' positions and the joints' points and
    // rod lengths (1 where all are 0: a model of points at the origin, whose Φ is exact)
    let model_length = frames
        .states
        .iter()
        .map(|(q, _)| norm(&[q[0], q[1], q[2]]))
        .chain(
            raw.iter()
                .flat_map(|j| [norm(&j.point_a), norm(&j.point_b), j.length.unwrap_or(0.0)]),
        )
        .filter(|x| x.is_finite())
        .fold(0.0f64, f64::max);
    let model_length = if model_length > 0.0 {
        model_length
    } else {
        1.0
    };
    let mut out: Vec<(String, Box<dyn Constraint>)> = Vec::with_capacity(raw.len());
    let mut labels: Vec<String> = Vec::new();
    for (i, j) in raw.iter().enumerate() {
        let at = |f: &str| format!("joints[{i}].{f}");
        let before = issues.0.len();
        let lookup = |name: &str, field: &str, issues: &mut Issues| -> Option<JointBody> {
            match frames.lookup(name, false) {
                Ok(Some(Target::Frame(f))) => Some(f),
                Ok(Some(Target::Beam(_)) | None) => None,
                Err(m) => {
                    issues.push(at(field), m);
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
            RawJointKind::Rigid => "rigid",
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
        if matches!(kind, RawJointKind::Prescribed | RawJointKind::Rigid)
            && a == Some(JointBody::Ground)
        {
            issues.push(
                at("body_a"),
                format!(
                    "a {kind_name} joint needs a moving body or beam node in body_a, not \"ground\""
                ),
            );
        }
        if kind == RawJointKind::Rigid {
            for (given, field) in [
                (j.point_a != [0.0; 3], "point_a"),
                (j.point_b != [0.0; 3], "point_b"),
            ] {
                if given {
                    issues.push(
                        at(field),
                        "not used by a rigid joint: it keeps the initial relative placement of \
                         body_a and body_b; remove it",
                    );
                }
            }
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
                JointBody::Body(k) => frames.state(k),
            }
        };
        // bodies or beams that failed validation are missing: skip the consistency check
        if [a, b]
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
        let mut rod_length = None;
        let c: Box<dyn Constraint> = match kind {
            RawJointKind::Spherical => Box::new(Spherical::new(a, j.point_a, b, j.point_b)),
            RawJointKind::Distance => {
                let gap = crate::math::sub(&point(a, &j.point_a), &point(b, &j.point_b));
                let length = j.length.unwrap_or_else(|| norm(&gap));
                rod_length = Some(length);
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
            RawJointKind::Rigid => {
                let JointBody::Body(fa) = a else { continue };
                let (qa, _) = state(a).unwrap_or(([0.0; 12], [0.0; 12]));
                let qb = state(b).map(|s| s.0).unwrap_or([0.0; 12]);
                if let JointBody::Body(_) = b {
                    let d = |k: usize| [qb[3 + 3 * k], qb[4 + 3 * k], qb[5 + 3 * k]];
                    let off = (0..3)
                        .flat_map(|i| (0..3).map(move |k| (i, k)))
                        .map(|(i, k)| {
                            (crate::math::dot(&d(i), &d(k)) - if i == k { 1.0 } else { 0.0 }).abs()
                        })
                        .fold(0.0f64, f64::max);
                    if off > 1e-9 {
                        issues.push(
                            at("body_b"),
                            "a rigid joint needs orthonormal directors of body_b; give that body \
                             orthonormal directors (or a box)",
                        );
                        continue;
                    }
                }
                if out.iter().any(|(_, c)| c.tied_frame() == Some(fa)) {
                    issues.push(
                        at("body_a"),
                        format!(
                            "{:?} is already tied by another rigid joint; a frame can be tied \
                             once (tie the other part to it instead)",
                            j.body_a
                        ),
                    );
                    continue;
                }
                Box::new(Rigid::new(fa, b, &qa, &qb))
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
        let scales = joint_scales(&g, &q, idx, model_length);
        // the equation furthest from holding, relative to the size of its terms
        let (worst, scale) = phi.iter().zip(&scales).map(|(p, s)| (p.abs(), *s)).fold(
            (0.0f64, 1.0f64),
            |(w, ws), (p, s)| {
                // a NaN violation counts as the worst
                let worse = matches!(
                    (p * ws).partial_cmp(&(w * s)),
                    Some(std::cmp::Ordering::Greater) | None
                );
                if worse { (p, s) } else { (w, ws) }
            },
        );
        let holds = |p: f64, s: f64| p <= JOINT_CONSISTENCY_TOLERANCE * s;
        let field = match kind {
            RawJointKind::Prescribed => "path",
            _ => "point_b",
        };
        if !holds(worst, scale) || !worst.is_finite() {
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
                    "at t = {t_start} the points are {} m apart, but the rod's length is {} m",
                    norm(&crate::math::sub(
                        &point(a, &j.point_a),
                        &point(b, &j.point_b)
                    )),
                    rod_length.unwrap_or_default()
                ),
                RawJointKind::Rigid => "the rigid joint is built from the initial placement".into(),
                RawJointKind::Prescribed => format!(
                    "at t = {t_start} the point is at {:?}, the path starts at {:?}",
                    point(a, &j.point_a),
                    j.path.as_ref().map(|p| p[0]).unwrap_or_default()
                ),
            };
            let hint = if kind == RawJointKind::Revolute
                && phi[..3]
                    .iter()
                    .zip(&scales)
                    .all(|(p, s)| holds(p.abs(), *s))
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
                     |Φ| = {worst:.3e}, {:.1e} of the size {scale:.3e} of its terms (at most \
                     {JOINT_CONSISTENCY_TOLERANCE:e} of it is round-off); {hint}",
                    worst / scale
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
                     joint{}",
                    match kind {
                        RawJointKind::Prescribed => {
                            " (for a prescribed motion: path[1] must equal the point's initial velocity)"
                        }
                        RawJointKind::Rigid => {
                            " (a weld or clamp: both parts must move as one rigid body at the start)"
                        }
                        _ => "",
                    }
                ),
            );
            continue;
        }
        out.push((label, c));
    }
    out
}
