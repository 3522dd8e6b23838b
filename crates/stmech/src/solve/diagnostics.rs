//! Conservation and constraint diagnostics of a [`Trajectory`] [P, §4.2, App. C].
//!
//! * **Per element** ([`element_diagnostics`]): the element means of the total energy and of
//!   the angular momentum, `Ē_e = (1/h) ∫_e H(q_h, p_h) dt` and `L̄_e = (1/h) ∫_e Σ q_a × p_a dt`,
//!   integrated with `p + 2` Gauss points, plus `H` at the element's end nodes. [P, Fig. 9]
//!   plots an "action integral" per element and argues that its constancy means energy
//!   conservation; stmech reports the element mean of `H`, which is that quantity divided
//!   by the element length, together with the exactly conserved one: `H` at element
//!   boundaries (see `docs/theory.md` §3a and §5).
//! * **Per constraint** ([`constraint_violations`]): the largest `|Φ|` of each constraint at
//!   element boundaries, inside elements (interior nodes and element midpoints), and at block
//!   boundaries (the states handed from one block to the next).

use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::model::ConstrainedSystem;
use crate::solve::Trajectory;

/// Work counter of the post-processing loops: every loop over nodes, elements or blocks adds
/// the items it visits. Tests compare the counts of short and long runs to prove that the
/// post-processing grows linearly, which no timing on a fast or busy machine can. Compiles
/// to nothing outside `cfg(test)`.
pub(crate) mod work {
    #[cfg(test)]
    thread_local! {
        static VISITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Records `n` visited items.
    #[inline(always)]
    pub(crate) fn visit(n: usize) {
        #[cfg(test)]
        VISITS.with(|v| v.set(v.get() + n as u64));
        #[cfg(not(test))]
        let _ = n;
    }

    /// Items visited on this thread since the last call.
    #[cfg(test)]
    pub(crate) fn take() -> u64 {
        VISITS.with(|v| v.replace(0))
    }
}

/// Diagnostics of one time element.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ElementDiagnostics {
    /// Element start (s).
    pub t_start: f64,
    /// Element end (s).
    pub t_end: f64,
    /// `H` at the element start node (J).
    pub energy_start: f64,
    /// `H` at the element end node (J).
    pub energy_end: f64,
    /// `(1/h) ∫_e H dt` (J).
    pub energy_mean: f64,
    /// `(1/h) ∫_e L dt` about the origin, global frame (kg·m²/s).
    pub angular_momentum_mean: [f64; 3],
}

/// [`ElementDiagnostics`] of every element of `traj`.
pub fn element_diagnostics<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    traj: &Trajectory,
) -> Vec<ElementDiagnostics> {
    let p = traj.order;
    let np = p + 1;
    let basis = LagrangeBasis::new(p);
    let quad = GaussLegendre::new(p + 2);
    let nq = traj.n_q;
    let (mut n, mut dn) = (vec![0.0; np], vec![0.0; np]);
    let (mut q, mut vm) = (vec![0.0; nq], vec![0.0; nq]);
    let energy = |q: &[f64], vm: &[f64]| sys.kinetic_energy(vm) + sys.potential_energy(q);
    (0..traj.n_elements())
        .map(|el| {
            work::visit(1);
            let (k0, k1) = (el * p, el * p + p);
            let mut e_mean = 0.0;
            let mut l_mean = [0.0; 3];
            for (&x, &w) in quad.points.iter().zip(&quad.weights) {
                basis.eval_into(x, &mut n, &mut dn);
                q.fill(0.0);
                vm.fill(0.0);
                for (a, &na) in n.iter().enumerate() {
                    for i in 0..nq {
                        q[i] += na * traj.q_at(k0 + a)[i];
                        vm[i] += na * traj.v_at(k0 + a)[i];
                    }
                }
                e_mean += w * energy(&q, &vm);
                let l = sys.angular_momentum(&q, &vm);
                for k in 0..3 {
                    l_mean[k] += w * l[k];
                }
            }
            ElementDiagnostics {
                t_start: traj.times[k0],
                t_end: traj.times[k1],
                energy_start: energy(traj.q_at(k0), traj.v_at(k0)),
                energy_end: energy(traj.q_at(k1), traj.v_at(k1)),
                energy_mean: e_mean,
                angular_momentum_mean: l_mean,
            }
        })
        .collect()
}

/// Largest violation of one constraint.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ConstraintViolation {
    /// Constraint index in the system (orthonormality of each body first).
    pub index: usize,
    /// Constraint type ("distance", ...).
    pub kind: String,
    /// `max |Φ|` at element boundaries.
    pub max_at_element_boundaries: f64,
    /// `max |Φ|` inside elements (interior nodes and the midpoint of each element).
    pub max_inside_elements: f64,
    /// `max |Φ|` at block boundaries (the states handed to the next block, and the end).
    pub max_at_block_boundaries: f64,
}

/// Per-constraint `max |Φ_c(q, t)|` at one state, in constraint order.
pub fn violation_per_constraint(
    sys: &crate::model::MultibodySystem,
    t: f64,
    q: &[f64],
    ev: &mut crate::model::PointEval,
) -> Vec<f64> {
    let lam = vec![0.0; sys.n_lambda()];
    let mut out = vec![0.0; sys.constraints().count()];
    violation_per_constraint_into(sys, t, q, ev, &lam, &mut out);
    out
}

/// [`violation_per_constraint`] into `out` (one entry per constraint), with `lam` zeros of
/// length `n_lambda`: no allocation, for loops over all nodes.
pub fn violation_per_constraint_into(
    sys: &crate::model::MultibodySystem,
    t: f64,
    q: &[f64],
    ev: &mut crate::model::PointEval,
    lam: &[f64],
    out: &mut [f64],
) {
    sys.eval(t, q, lam, ev, false);
    for (o, (c, off)) in out.iter_mut().zip(sys.constraints()) {
        *o = ev.phi[off..off + c.n_eq()]
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()));
    }
}

/// [`ConstraintViolation`] of every constraint of `sys` along `traj`.
pub fn constraint_violations(
    sys: &crate::model::MultibodySystem,
    traj: &Trajectory,
) -> Vec<ConstraintViolation> {
    let mut ev = sys.new_point_eval();
    let mut out: Vec<ConstraintViolation> = sys
        .constraints()
        .enumerate()
        .map(|(index, (c, _))| ConstraintViolation {
            index,
            kind: c.name().to_owned(),
            max_at_element_boundaries: 0.0,
            max_inside_elements: 0.0,
            max_at_block_boundaries: 0.0,
        })
        .collect();
    let p = traj.order;
    // Block ends and node times both increase: one cursor walks the ends as the nodes advance
    // (a search over all ends per node made this quadratic in the number of blocks).
    let block_ends: Vec<f64> = traj.blocks.iter().map(|b| b.t_end).collect();
    let close = |te: f64, t: f64| (te - t).abs() <= 1e-9 * (1.0 + te.abs());
    let mut next_end = 0;
    let lam = vec![0.0; sys.n_lambda()];
    let mut v = vec![0.0; out.len()];
    for k in 0..traj.len() {
        work::visit(1);
        violation_per_constraint_into(sys, traj.times[k], traj.q_at(k), &mut ev, &lam, &mut v);
        let t = traj.times[k];
        while next_end < block_ends.len()
            && block_ends[next_end] < t
            && !close(block_ends[next_end], t)
        {
            work::visit(1);
            next_end += 1;
        }
        let at_block = k > 0
            && block_ends[next_end..]
                .iter()
                .take(2)
                .any(|&te| close(te, t));
        for (o, &x) in out.iter_mut().zip(&v) {
            if k % p == 0 {
                o.max_at_element_boundaries = o.max_at_element_boundaries.max(x);
            } else {
                o.max_inside_elements = o.max_inside_elements.max(x);
            }
            if at_block {
                o.max_at_block_boundaries = o.max_at_block_boundaries.max(x);
            }
        }
    }
    let mut q = vec![0.0; traj.n_q];
    // element midpoints: the shape values are the same for every element
    let (mut n, mut dn) = (vec![0.0; p + 1], vec![0.0; p + 1]);
    LagrangeBasis::new(p).eval_into(0.5, &mut n, &mut dn);
    for el in 0..traj.n_elements() {
        work::visit(1);
        traj.q_with_weights(el, &n, &mut q);
        let t = 0.5 * (traj.times[el * p] + traj.times[el * p + p]);
        violation_per_constraint_into(sys, t, &q, &mut ev, &lam, &mut v);
        for (o, &x) in out.iter_mut().zip(&v) {
            o.max_inside_elements = o.max_inside_elements.max(x);
        }
    }
    out
}
