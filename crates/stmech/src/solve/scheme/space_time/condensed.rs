//! The Petrov–Galerkin blocks solved element by element on condensed elements
//! (`run_condensed`, see the parent module).

use super::blocks::{BlockForm, BlockProblem, Petrov, Predictor};
use super::{CHORD_CONTRACTION, CHORD_MIN_UNKNOWNS, FULL_FORM_MAX_UNKNOWNS, SpaceTimeParams};
use crate::discretize::{CondensedElement, PetrovGalerkinBlock};
use crate::error::SolveError;
use crate::model::ConstrainedSystem;
use crate::solve::consistent::consistent_multiplier;
use crate::solve::linear::LinearSolver;
use crate::solve::newton::{
    NewtonContext, NewtonReport, NewtonSolver, NewtonSystem, Refactorization,
};
use crate::solve::{BlockReport, NewtonParams, Trajectory};

struct ElementProblem2<'a, 's, S: ConstrainedSystem + ?Sized> {
    el: &'a mut CondensedElement<'s, S>,
    t0: f64,
    q0: &'a [f64],
    v0: &'a [f64],
}

impl<S: ConstrainedSystem + ?Sized> NewtonSystem for ElementProblem2<'_, '_, S> {
    fn assemble(&mut self, x: &[f64], r: &mut [f64], jacobian: Option<&mut [f64]>) {
        self.el.assemble(self.t0, self.q0, self.v0, x, r, jacobian);
    }

    fn residual_norm(&self, r: &[f64]) -> f64 {
        self.el.residual_norm(r)
    }

    /// The update is at the round-off level of the positions `q0 + Δq` and the multipliers:
    /// the full form's criterion ([`crate::solve::newton::update_at_round_off`] of its unknowns,
    /// the positions themselves). The residual has then reached its floor.
    fn converged_by_update(&self, dx: &[f64], x: &[f64]) -> bool {
        let scale = self.q0.iter().chain(x).fold(0.0f64, |m, v| m.max(v.abs()));
        let dmax = dx.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        dmax <= 1e-13 * (1.0 + scale)
    }
}

fn add_report(total: &mut NewtonReport, r: &NewtonReport) {
    total.iterations += r.iterations;
    total.factorizations += r.factorizations;
    total.assembly_seconds += r.assembly_seconds;
    total.factorization_seconds += r.factorization_seconds;
    total.solve_seconds += r.solve_seconds;
}

/// The Petrov–Galerkin block loop on condensed elements (see the module docs).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_condensed<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    v0: &[f64],
    t_start: f64,
    t_end: f64,
    params: &SpaceTimeParams,
    newton: &NewtonParams,
    method: String,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, SolveError> {
    let (nq, nl) = (sys.n_q(), sys.n_lambda());
    let p = params.order;
    let n_el = params.elements_per_block;
    let h = params.element_size(t_start, t_end);
    let dt_node = h / p as f64;
    let mut el = CondensedElement::new(sys, p, h, params.quadrature());
    let policy = if el.n_unknowns() >= CHORD_MIN_UNKNOWNS {
        Refactorization::Chord {
            contraction: CHORD_CONTRACTION,
        }
    } else {
        Refactorization::EveryIteration
    };
    let mut solver =
        NewtonSolver::with_policy(LinearSolver::for_pattern(el.pattern().clone())?, policy);
    let element_newton = NewtonParams {
        tolerance: if n_el == 1 {
            newton.tolerance
        } else {
            (newton.tolerance / n_el as f64).max(1e-14)
        },
        max_iterations: newton.max_iterations,
    };
    let mut x = vec![0.0; el.n_unknowns()];
    let mut r_el = vec![0.0; el.n_unknowns()];
    let total_nodes = params
        .blocks
        .saturating_mul(n_el.saturating_mul(p))
        .saturating_add(1);
    let reserve = crate::resources::reserve;
    let mut traj = Trajectory {
        n_q: nq,
        n_lambda: nl,
        order: p,
        times: Vec::with_capacity(reserve(total_nodes, 1)),
        q: Vec::with_capacity(reserve(total_nodes, nq)),
        v: Vec::with_capacity(reserve(total_nodes, nq)),
        lambda: Vec::with_capacity(reserve(total_nodes, nl)),
        blocks: Vec::with_capacity(reserve(params.blocks, 1)),
        method,
    };
    // multiplier guess: Φ̈ = 0 at the start (zero for redundant constraints), then the last
    // element's end value
    let mut lam = consistent_multiplier(sys, t_start, q0, v0).unwrap_or_else(|| vec![0.0; nl]);
    let (mut qa, mut va) = (q0.to_vec(), v0.to_vec());
    // velocity at the node before `qa` (for the extrapolation), once there is one
    let mut v_prev: Option<Vec<f64>> = None;
    let (mut qn, mut vn) = (vec![0.0; nq], vec![0.0; nq]);
    // the full form, built on first need
    let mut full: Option<(Petrov<'_, S>, NewtonSolver)> = None;
    for b in 0..params.blocks {
        let t0 = t_start + (b * n_el) as f64 * h;
        let t1 = t0 + n_el as f64 * h;
        let cx = NewtonContext {
            block: b,
            t_start: t0,
            t_end: t1,
        };
        let mark = traj.len();
        let mut report = NewtonReport::default();
        let mut block_norm = 0.0;
        let mut failure = None;
        let (q_start, v_start, lam_start) = (qa.clone(), va.clone(), lam.clone());
        let v_prev_start = v_prev.clone();
        for e in 0..n_el {
            let te = t0 + e as f64 * h;
            // start: q_a = q_0 + s v_0 + ½ s² a_0, a_0 from the last two nodal velocities
            for a in 1..=p {
                let s = a as f64 * dt_node;
                match &v_prev {
                    Some(vp) => {
                        let c = 0.5 * s * s / dt_node;
                        for i in 0..nq {
                            qn[i] = qa[i] + s * va[i] + c * (va[i] - vp[i]);
                        }
                    }
                    None => {
                        for i in 0..nq {
                            qn[i] = qa[i] + s * va[i];
                        }
                    }
                }
                el.set_node(&mut x, a, &qa, &qn);
            }
            el.set_multipliers(&mut x, &lam);
            let mut prob = ElementProblem2 {
                el: &mut el,
                t0: te,
                q0: &qa,
                v0: &va,
            };
            match solver.solve(&mut prob, &mut x, &element_newton, cx) {
                Ok(r) => {
                    add_report(&mut report, &r);
                    let mut norm = r.residuals.last().copied().unwrap_or(0.0);
                    if n_el > 1 && norm >= element_newton.tolerance {
                        // accepted above the tolerance, at round-off: by its update (the last
                        // norm is the one before it) or at the residual floor; the block
                        // criterion needs the norm at the solution
                        el.assemble(te, &qa, &va, &x, &mut r_el, None);
                        norm = el.residual_norm(&r_el);
                    }
                    block_norm += norm;
                    if n_el == 1 {
                        report.residuals = r.residuals;
                    } else if block_norm >= newton.tolerance {
                        // the block cannot be accepted any more: on to the full form
                        break;
                    }
                }
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            }
            if b == 0 && e == 0 {
                traj.times.push(t_start);
                traj.q.extend_from_slice(&qa);
                traj.v.extend_from_slice(&va);
                el.multiplier(&x, 0.0, &mut lam);
                traj.lambda.extend_from_slice(&lam);
            }
            for a in 1..=p {
                el.node_into(&x, a, &qa, &mut qn);
                el.velocity_into(&va, &x, a, &mut vn);
                traj.times.push(t0 + (e * p + a) as f64 * dt_node);
                traj.q.extend_from_slice(&qn);
                traj.v.extend_from_slice(&vn);
                el.multiplier(&x, a as f64 / p as f64, &mut lam);
                traj.lambda.extend_from_slice(&lam);
            }
            let k = traj.len() - 1;
            v_prev = Some(traj.v_at(k - 1).to_vec());
            qa.copy_from_slice(traj.q_at(k));
            va.copy_from_slice(traj.v_at(k));
        }
        let accepted = failure.is_none() && (n_el == 1 || block_norm < newton.tolerance);
        if accepted {
            if n_el > 1 {
                report.residuals = vec![block_norm];
            }
        } else if n_el == 1 {
            return Err(failure.expect("a one-element block fails only by its element"));
        } else {
            // solve the block again in the full form, as a whole (bounded: the resource
            // estimate models the element-wise path only)
            let full_unknowns = n_el.saturating_mul(p).saturating_mul(2 * nq + nl);
            if full_unknowns > FULL_FORM_MAX_UNKNOWNS {
                return Err(failure.unwrap_or_else(|| SolveError::NewtonDiverged {
                    block: b,
                    t_start: t0,
                    t_end: t1,
                    iterations: report.iterations,
                    residual: block_norm,
                    tolerance: newton.tolerance,
                    history: vec![block_norm],
                }));
            }
            traj.times.truncate(mark);
            traj.q.truncate(mark * nq);
            traj.v.truncate(mark * nq);
            traj.lambda.truncate(mark * nl);
            if full.is_none() {
                let nquad = params.quadrature();
                let blk = PetrovGalerkinBlock::new(sys, p, 1, h, nquad);
                let pred_solver =
                    NewtonSolver::new(LinearSolver::for_pattern(blk.pattern().clone())?);
                let n = blk.n_unknowns();
                let form = Petrov {
                    blk: PetrovGalerkinBlock::new(sys, p, n_el, h, nquad),
                    sys,
                    order: p,
                    h,
                    lam: Vec::new(),
                    predictor: Some(Predictor {
                        blk,
                        solver: pred_solver,
                        x: vec![0.0; n],
                        newton: element_newton,
                        iterations: 0,
                    }),
                };
                let block_solver =
                    NewtonSolver::new(LinearSolver::for_pattern(form.blk.pattern().clone())?);
                full = Some((form, block_solver));
            }
            let (form, block_solver) = full.as_mut().expect("built above");
            form.lam = lam_start;
            let mut xf = vec![0.0; form.blk.n_unknowns()];
            form.start(t0, &q_start, &v_start, &mut xf)?;
            let r = {
                let mut prob = BlockProblem {
                    form: &mut *form,
                    t0,
                    q0: &q_start,
                    v0: &v_start,
                };
                block_solver.solve(&mut prob, &mut xf, newton, cx)?
            };
            add_report(&mut report, &r);
            report.iterations += form.take_extra_iterations();
            report.residuals = r.residuals;
            let first = if b == 0 { 0 } else { 1 };
            form.append(t0, &q_start, &v_start, &xf, first, &mut traj);
            lam.copy_from_slice(&form.lam);
            let k = traj.len() - 1;
            v_prev = if k >= 1 {
                Some(traj.v_at(k - 1).to_vec())
            } else {
                v_prev_start
            };
            qa.copy_from_slice(traj.q_at(k));
            va.copy_from_slice(traj.v_at(k));
        }
        traj.blocks.push(BlockReport {
            t_start: t0,
            t_end: t1,
            newton: report,
        });
        progress((b + 1) as f64 / params.blocks as f64);
    }
    if let Some(t) = traj.times.last_mut() {
        *t = t_end;
    }
    Ok(traj)
}
