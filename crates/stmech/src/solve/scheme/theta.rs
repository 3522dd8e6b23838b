//! One-step θ-schemes on the director DAE with the constraint enforced at the step end:
//!
//! ```text
//! q₁ − q₀ = h v_θ,
//! 𝕄 (v₁ − v₀) = h ( f(q_θ, t_θ) − G(q_θ)ᵀ λ₁ ),
//! Φ(q₁)   = 0,                     x_θ = (1−θ) x₀ + θ x₁,  t_θ = t₀ + θ h.
//! ```
//!
//! `θ = 1` is the implicit Euler (endpoint) rule, first order; `θ = ½` the midpoint rule,
//! second order. For the quadratic director constraints `G(q_½)` is the discrete gradient of
//! `Φ`, so the midpoint rule conserves energy and angular momentum of free bodies.
//! The iteration matrix of this index-3 formulation has condition number `O(h⁻³)` [P, §4.1].

use crate::discretize::pattern::CscPattern;
use crate::error::SolveError;
use crate::model::{ConstrainedSystem, PointEval};
use crate::solve::linear::LinearSolver;
use crate::solve::newton::assembled::frames_at_round_off;
use crate::solve::newton::{NewtonContext, NewtonReport, NewtonSolver, NewtonSystem, Stage};
use crate::solve::{BlockReport, NewtonParams, Trajectory};

/// A θ-scheme, see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ThetaScheme {
    /// Evaluation point `θ ∈ (0, 1]` of forces and constraint gradients.
    pub theta: f64,
}

impl ThetaScheme {
    /// Implicit Euler / endpoint rule (`θ = 1`).
    pub const IMPLICIT_EULER: Self = Self { theta: 1.0 };
    /// Midpoint rule (`θ = ½`).
    pub const MIDPOINT: Self = Self { theta: 0.5 };

    /// Name for reports.
    pub fn name(&self) -> String {
        if self.theta == 1.0 {
            "implicit Euler".into()
        } else if self.theta == 0.5 {
            "midpoint".into()
        } else {
            format!("theta = {}", self.theta)
        }
    }
}

struct Step<'a, S: ConstrainedSystem + ?Sized> {
    sys: &'a S,
    theta: f64,
    h: f64,
    t0: f64,
    q0: &'a [f64],
    v0: &'a [f64],
    ev: &'a mut PointEval,
    ev1: &'a mut PointEval,
    qt: &'a mut [f64],
    /// positions of the template entries (same order as in `assemble`)
    pos: &'a [usize],
    /// equation group of every row
    groups: &'a [u8],
}

impl<S: ConstrainedSystem + ?Sized> NewtonSystem for Step<'_, S> {
    fn n_groups(&self) -> usize {
        crate::discretize::petrov_galerkin::SLOT_GROUPS
    }

    fn row_groups(&self) -> &[u8] {
        self.groups
    }

    fn assemble(&mut self, x: &[f64], r: &mut [f64], m: &mut [f64], jac: Option<&mut [f64]>) {
        let sys = self.sys;
        let (nq, nl) = (sys.n_q(), sys.n_lambda());
        let (th, h) = (self.theta, self.h);
        let (q1, rest) = x.split_at(nq);
        let (v1, l1) = rest.split_at(nq);
        for i in 0..nq {
            self.qt[i] = (1.0 - th) * self.q0[i] + th * q1[i];
        }
        let tangent = jac.is_some();
        sys.eval(self.t0 + th * h, self.qt, l1, self.ev, tangent);
        sys.eval(self.t0 + h, q1, l1, self.ev1, false);
        r.fill(0.0);
        for i in 0..nq {
            // R_v
            let dq = q1[i] - self.q0[i];
            let (a, b) = (h * (1.0 - th) * self.v0[i], h * th * v1[i]);
            r[nq + i] = dq - (a + b);
            m[nq + i] = dq.abs() + a.abs() + b.abs();
            r[i] = -h * self.ev.force[i]; // R_q
            m[i] = h * self.ev.force_mag[i];
        }
        for &(i, j, mv) in sys.mass() {
            let t = mv * (v1[j] - self.v0[j]);
            r[i] += t;
            m[i] += t.abs();
        }
        for (&(e, j), &g) in sys.g_pattern().iter().zip(&self.ev.g) {
            r[j] += h * g * l1[e];
            m[j] += (h * g * l1[e]).abs();
        }
        r[2 * nq..2 * nq + nl].copy_from_slice(&self.ev1.phi);
        // a position-level constraint: |Φ| and the change of its terms over the step
        for (mi, p) in m[2 * nq..2 * nq + nl].iter_mut().zip(&self.ev1.phi) {
            *mi = p.abs();
        }
        for (&(e, j), &g) in sys.g_pattern().iter().zip(&self.ev1.g) {
            m[2 * nq + e] += (g * (q1[j] - self.q0[j])).abs();
        }
        if let Some(v) = jac {
            v.fill(0.0);
            let mut k = 0;
            let mut put = |val: f64| {
                v[self.pos[k]] += val;
                k += 1;
            };
            (0..nq).for_each(|_| put(1.0));
            (0..nq).for_each(|_| put(-h * th));
            for &(_, _, m) in sys.mass() {
                put(m);
            }
            for &kv in &self.ev.k {
                put(h * th * kv);
            }
            for &g in &self.ev.g {
                put(h * g);
            }
            // G(q₁) for the endpoint constraint: re-evaluate with the tangent pattern
            for &g in &self.ev1.g {
                put(g);
            }
        }
    }

    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        frames_at_round_off(&x[..self.sys.n_q()], &dx[..self.sys.n_q()])
    }
}

/// Dense (column-major) iteration matrix of one θ-step of size `h` from `(q0, v0)` at the
/// predictor `q₁ = q₀ + h v₀`, `v₁ = v₀`, `λ₁ = lam` (for conditioning studies).
pub fn step_jacobian_dense<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    scheme: ThetaScheme,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    h: f64,
    lam: &[f64],
) -> (usize, Vec<f64>) {
    let (nq, nl) = (sys.n_q(), sys.n_lambda());
    let n = 2 * nq + nl;
    let template = crate::discretize::pattern::node_pair_template(sys);
    let pattern = CscPattern::from_entries(n, || template.iter().copied());
    let pos: Vec<usize> = template
        .iter()
        .map(|&(r, c)| pattern.position(r, c))
        .collect();
    let (mut ev, mut ev1) = (sys.new_point_eval(), sys.new_point_eval());
    let mut qt = vec![0.0; nq];
    let mut x = vec![0.0; n];
    for i in 0..nq {
        x[i] = q0[i] + h * v0[i];
        x[nq + i] = v0[i];
    }
    x[2 * nq..].copy_from_slice(lam);
    let mut values = vec![0.0; pattern.nnz()];
    let mut r = vec![0.0; n];
    let mut m = vec![0.0; n];
    let groups = crate::discretize::petrov_galerkin::slot_groups(sys, nq, sys.n_lambda(), 1);
    let mut st = Step {
        sys,
        theta: scheme.theta,
        h,
        t0,
        q0,
        v0,
        ev: &mut ev,
        ev1: &mut ev1,
        qt: &mut qt,
        pos: &pos,
        groups: &groups,
    };
    st.assemble(&x, &mut r, &mut m, Some(&mut values));
    (n, pattern.to_dense(&values))
}

/// Runs the θ-scheme with fixed step `step` (the last step is shortened to hit `t_end`).
#[allow(clippy::too_many_arguments)]
pub fn solve<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    v0: &[f64],
    t_start: f64,
    t_end: f64,
    scheme: ThetaScheme,
    step: f64,
    newton: &NewtonParams,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, SolveError> {
    let (nq, nl) = (sys.n_q(), sys.n_lambda());
    let n = 2 * nq + nl;
    let n_steps = ((t_end - t_start) / step - 1e-9).ceil().max(1.0) as usize;
    // same entry order as `Step::assemble` writes the Jacobian
    let template = crate::discretize::pattern::node_pair_template(sys);
    let pattern = CscPattern::from_entries(n, || template.iter().copied());
    let pos: Vec<usize> = template
        .iter()
        .map(|&(r, c)| pattern.position(r, c))
        .collect();
    let mut solver = NewtonSolver::new(LinearSolver::for_pattern(pattern)?);
    let groups = crate::discretize::petrov_galerkin::slot_groups(sys, nq, nl, 1);
    let (mut ev, mut ev1) = (sys.new_point_eval(), sys.new_point_eval());
    let mut qt = vec![0.0; nq];
    let mut traj = Trajectory {
        n_q: nq,
        n_lambda: nl,
        order: 1,
        times: vec![t_start],
        q: q0.to_vec(),
        v: v0.to_vec(),
        lambda: vec![0.0; nl],
        blocks: Vec::new(),
        method: format!("{} time stepping, h = {step:.3e} s", scheme.name()),
        setup_seconds: None,
    };
    let mut total = NewtonReport::default();
    let mut worst_final = -1.0;
    let mut x = vec![0.0; n];
    let (mut qs, mut vs) = (q0.to_vec(), v0.to_vec());
    let mut lam = vec![0.0; nl];
    let report_every = (n_steps / 200).max(1);
    for k in 0..n_steps {
        let t0 = t_start + k as f64 * step;
        let t1 = if k + 1 == n_steps {
            t_end
        } else {
            t_start + (k + 1) as f64 * step
        };
        let h = t1 - t0;
        for i in 0..nq {
            x[i] = qs[i] + h * vs[i];
            x[nq + i] = vs[i];
        }
        x[2 * nq..].copy_from_slice(&lam);
        let rep = {
            let mut st = Step {
                sys,
                theta: scheme.theta,
                h,
                t0,
                q0: &qs,
                v0: &vs,
                ev: &mut ev,
                ev1: &mut ev1,
                qt: &mut qt,
                pos: &pos,
                groups: &groups,
            };
            solver.solve(
                &mut st,
                &mut x,
                newton,
                NewtonContext {
                    block: k,
                    t_start: t0,
                    t_end: t1,
                    stage: Stage::ThetaStep,
                },
            )?
        };
        total.add_work(&rep);
        let fin = *rep.residuals.last().unwrap_or(&0.0);
        if fin > worst_final {
            worst_final = fin;
            total.residuals = rep.residuals;
        }
        qs.copy_from_slice(&x[..nq]);
        vs.copy_from_slice(&x[nq..2 * nq]);
        lam.copy_from_slice(&x[2 * nq..]);
        traj.times.push(t1);
        traj.q.extend_from_slice(&qs);
        traj.v.extend_from_slice(&vs);
        traj.lambda.extend_from_slice(&lam);
        if (k + 1) % report_every == 0 {
            progress((k + 1) as f64 / n_steps as f64);
        }
    }
    traj.blocks.push(BlockReport {
        t_start,
        t_end,
        newton: total,
    });
    Ok(traj)
}
