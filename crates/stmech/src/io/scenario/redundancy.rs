//! Redundant joints: constraint equations that are linearly dependent at the initial state,
//! such as a joint given twice or a spherical joint beside a revolute joint at the same
//! point. The Lagrange multipliers are then not unique and the matrix of every time
//! discretisation is singular, so `run` would fail with a non-finite value after the first
//! iteration; the validation refuses such joints instead, with the joint that adds nothing.
//!
//! Two checks, in this order:
//!
//! 1. a joint with the same kind, bodies, points and parameters as an earlier one (any size);
//! 2. the rank of `G = ∂Φ/∂q` at the initial state, per group of coordinates connected by
//!    constraints with at most [`MAX_RANK_CHECK_COORDINATES`] coordinates (32 rigid bodies):
//!    the rows (the system's own constraints such as each body's rigidity first, then the
//!    joints in file order) are normalised and orthogonalised in turn (modified Gram–Schmidt,
//!    twice); a row whose remainder is below [`DEPENDENT`] depends on the rows before it, and
//!    its joint is reported.

use super::raw::{RawJoint, RawJointKind};
use super::validate::Issues;
use crate::model::{Constraint, MultibodySystem};
use std::collections::HashMap;

/// Largest group of coordinates connected by constraints whose rank is checked: 32 rigid
/// bodies (the dense check costs about `2 rows² × coordinates` operations: some 10⁸, or
/// 50 ms, at this size).
pub const MAX_RANK_CHECK_COORDINATES: usize = 32 * 12;

/// A normalised constraint row whose part orthogonal to the rows before it is shorter than
/// this depends on them.
pub const DEPENDENT: f64 = 1e-8;

/// The identity of a joint: kind, and per body (in a canonical order) its name, point and
/// axis, plus length and path, all as exact bit patterns.
type JointKey = (RawJointKind, Vec<(String, [u64; 6])>, Vec<u64>);

fn joint_key(j: &RawJoint) -> JointKey {
    let bits = |v: &[f64; 3]| v.map(f64::to_bits);
    let side = |name: &str, point: &[f64; 3], axis: Option<[f64; 3]>| {
        let p = bits(point);
        let a = axis.map_or([0; 3], |a| bits(&a));
        (name.to_owned(), [p[0], p[1], p[2], a[0], a[1], a[2]])
    };
    let mut sides = vec![side(&j.body_a, &j.point_a, j.axis_a)];
    if let Some(b) = &j.body_b {
        sides.push(side(b, &j.point_b, j.axis_b));
    }
    sides.sort();
    let mut rest: Vec<u64> = j.length.map(f64::to_bits).into_iter().collect();
    for c in j.path.iter().flatten() {
        rest.extend(bits(c));
    }
    (j.kind, sides, rest)
}

/// Refuses joints that repeat an earlier joint or whose equations depend on the rigidity of
/// the bodies and the joints before them (see the module docs).
pub(super) fn check(system: &MultibodySystem, joints: &[RawJoint], issues: &mut Issues) {
    let mut reported = vec![false; joints.len()];
    let mut seen: HashMap<_, usize> = HashMap::new();
    for (i, j) in joints.iter().enumerate() {
        if let Some(&first) = seen.get(&joint_key(j)) {
            issues.push(
                format!("joints[{i}]"),
                format!(
                    "the same joint as joints[{first}] (kind, bodies, points and parameters): a \
                     joint given twice makes the constraint equations linearly dependent and the \
                     solver's matrix singular; remove one of the two"
                ),
            );
            reported[i] = true;
        } else {
            seen.insert(joint_key(j), i);
        }
    }
    for (i, dependent) in dependent_joints(system, joints.len())
        .into_iter()
        .enumerate()
    {
        if dependent && !reported.get(i).copied().unwrap_or(true) {
            issues.push(
                format!("joints[{i}]"),
                "its constraint equations depend, at the initial state, on those of the joints \
                 before it and the rigidity of the bodies: it removes no freedom that is not \
                 removed already, the Lagrange multipliers are not unique and the solver's matrix \
                 is singular; remove the joint, or choose a kind that constrains less (e.g. a \
                 spherical instead of a revolute joint)",
            );
        }
    }
}

/// Per joint (in file order): whether one of its rows depends on the rows before it. The
/// joints are the last constraints of the system (it puts its own, such as the rigidity of
/// each body, first); groups are the sets of coordinates that constraints connect, so the
/// check needs no knowledge of how coordinates belong to bodies.
fn dependent_joints(system: &MultibodySystem, n_joints: usize) -> Vec<bool> {
    let constraints: Vec<(&dyn Constraint, usize)> = system.constraints().collect();
    let first_joint = constraints.len().saturating_sub(n_joints);
    let mut dependent = vec![false; n_joints];
    // coordinates connected by constraints (union-find over coordinate indices)
    let n_q = constraints
        .iter()
        .flat_map(|(c, _)| c.indices().iter().copied())
        .max()
        .map_or(0, |m| m + 1);
    let mut parent: Vec<usize> = (0..n_q).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (c, _) in &constraints {
        for w in c.indices().windows(2) {
            let (r0, r1) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
            parent[r0] = r1;
        }
    }
    let group_of: Vec<Option<usize>> = constraints
        .iter()
        .map(|(c, _)| c.indices().first().map(|&i| root(&mut parent, i)))
        .collect();
    let (q0, _) = system.initial_state();
    let mut groups: Vec<usize> = group_of[first_joint..].iter().flatten().copied().collect();
    groups.sort_unstable();
    groups.dedup();
    for group in groups {
        let columns: Vec<usize> = (0..n_q)
            .filter(|&i| root(&mut parent, i) == group)
            .collect();
        if columns.len() > MAX_RANK_CHECK_COORDINATES {
            continue;
        }
        let column: HashMap<usize, usize> =
            columns.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let mut basis: Vec<Vec<f64>> = Vec::new();
        for (ci, (c, _)) in constraints.iter().enumerate() {
            if group_of[ci] != Some(group) {
                continue;
            }
            for row in rows_of(*c, &q0, &column, columns.len()) {
                if !add_independent(&mut basis, row) && ci >= first_joint {
                    dependent[ci - first_joint] = true;
                }
            }
        }
    }
    dependent
}

/// The rows of `G` of constraint `c` at `q`, over the group's columns.
fn rows_of(
    c: &dyn Constraint,
    q: &[f64],
    column: &HashMap<usize, usize>,
    n_cols: usize,
) -> Vec<Vec<f64>> {
    let idx = c.indices();
    let (n, ne) = (idx.len(), c.n_eq());
    let q_loc: Vec<f64> = idx
        .iter()
        .map(|&i| q.get(i).copied().unwrap_or(0.0))
        .collect();
    let (mut phi, mut g) = (vec![0.0; ne], vec![0.0; ne * n]);
    c.eval(&q_loc, &vec![0.0; ne], &mut phi, &mut g, None);
    (0..ne)
        .map(|e| {
            let mut row = vec![0.0; n_cols];
            for (l, &i) in idx.iter().enumerate() {
                if let Some(&col) = column.get(&i) {
                    row[col] += g[e * n + l];
                }
            }
            row
        })
        .collect()
}

/// Adds `row` to the orthonormal `basis` if it is independent of it; whether it was.
fn add_independent(basis: &mut Vec<Vec<f64>>, mut row: Vec<f64>) -> bool {
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let n0 = norm(&row);
    if !n0.is_finite() {
        return true; // not a question of rank (the consistency checks catch such joints)
    }
    if n0 == 0.0 {
        return false; // a row of zeros constrains nothing
    }
    row.iter_mut().for_each(|x| *x /= n0);
    for _ in 0..2 {
        for b in basis.iter() {
            let d: f64 = b.iter().zip(&row).map(|(x, y)| x * y).sum();
            row.iter_mut().zip(b).for_each(|(x, y)| *x -= d * y);
        }
    }
    let rest = norm(&row);
    if rest < DEPENDENT {
        return false;
    }
    row.iter_mut().for_each(|x| *x /= rest);
    basis.push(row);
    true
}
