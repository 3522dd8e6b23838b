//! The Petrov–Galerkin blocks solved element by element on condensed elements
//! (`run_condensed`, see the parent module).

use super::blocks::{BlockForm, BlockProblem, Petrov, Predictor};
use super::{CHORD_CONTRACTION, CHORD_MIN_UNKNOWNS, FULL_FORM_MAX_UNKNOWNS, SpaceTimeParams};
use crate::discretize::condensed::PARALLEL_SETUP_MIN;
use crate::discretize::petrov_galerkin::SLOT_GROUPS;
use crate::discretize::{CondensedElement, PetrovGalerkinBlock};
use crate::error::SolveError;
use crate::model::ConstrainedSystem;
use crate::solve::consistent::consistent_multiplier;
use crate::solve::linear::LinearSolver;
use crate::solve::newton::{
    NewtonContext, NewtonReport, NewtonSolver, NewtonSystem, Refactorization, Stage,
};
use crate::solve::{BlockReport, NewtonParams, Trajectory};

struct ElementProblem2<'a, 's, S: ConstrainedSystem + ?Sized> {
    el: &'a mut CondensedElement<'s, S>,
    t0: f64,
    q0: &'a [f64],
    v0: &'a [f64],
}

impl<S: ConstrainedSystem + ?Sized> NewtonSystem for ElementProblem2<'_, '_, S> {
    fn n_groups(&self) -> usize {
        SLOT_GROUPS
    }

    fn row_groups(&self) -> &[u8] {
        self.el.row_groups()
    }

    fn assemble(&mut self, x: &[f64], r: &mut [f64], m: &mut [f64], jacobian: Option<&mut [f64]>) {
        self.el
            .assemble_measured(self.t0, self.q0, self.v0, x, r, m, jacobian);
    }

    fn want_floor(&mut self, on: bool) {
        self.el.set_floor(on);
    }

    /// The positions `q0 + Δq` behind the increments (see [`CondensedElement::floor_basis`]).
    fn add_floor(&self, _x: &[f64], out: &mut [f64]) {
        for (o, &v) in out.iter_mut().zip(self.el.floor_basis()) {
            *o += v;
        }
    }

    /// The update is at the round-off level of the positions `q0 + Δq` (the absolute
    /// coordinates, not the increments); multipliers left out.
    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        self.el.increments_at_round_off(self.q0, x, dx)
    }
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
    let started = std::time::Instant::now();
    let (nq, nl) = (sys.n_q(), sys.n_lambda());
    let p = params.order;
    let n_el = params.elements_per_block;
    let h = params.element_size(t_start, t_end);
    let dt_node = h / p as f64;
    // the element, the symbolic analysis of its LU (beside the element's positions) and the
    // consistent initial multiplier, at once where rayon has threads for them
    // (small elements in turn: starting the pool's threads would cost more than it saves)
    let element = || {
        CondensedElement::with_analysis(sys, p, h, params.quadrature(), |pattern| {
            LinearSolver::for_pattern(pattern.clone())
        })
    };
    let multiplier = || consistent_multiplier(sys, t_start, q0, v0);
    let ((mut el, lu), lam0) = if p * (nq + nl) >= PARALLEL_SETUP_MIN {
        rayon::join(element, multiplier)
    } else {
        (element(), multiplier())
    };
    let policy = if el.n_unknowns() >= CHORD_MIN_UNKNOWNS {
        Refactorization::Chord {
            contraction: CHORD_CONTRACTION,
        }
    } else {
        Refactorization::EveryIteration
    };
    let mut solver = NewtonSolver::with_policy(lu?, policy);
    // The block's residual is its elements' (the block Jacobian is block lower bidiagonal),
    // and its measures are their maxima: every element at the tolerance is the block at it.
    let element_newton = *newton;
    let mut x = vec![0.0; el.n_unknowns()];
    let total_nodes = params
        .blocks
        .saturating_mul(n_el.saturating_mul(p))
        .saturating_add(1);
    let reserve = crate::math::reserve;
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
        setup_seconds: None,
    };
    // multiplier guess: Φ̈ = 0 at the start (zero for redundant constraints), then the last
    // element's end value
    let mut lam = lam0.unwrap_or_else(|| vec![0.0; nl]);
    traj.setup_seconds = Some(started.elapsed().as_secs_f64());
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
            stage: Stage::TimeBlock,
        };
        let mark = traj.len();
        let mut report = NewtonReport::default();
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
            let ecx = NewtonContext {
                t_start: te,
                t_end: te + h,
                ..cx
            };
            match solver.solve(&mut prob, &mut x, &element_newton, ecx) {
                Ok(mut r) => {
                    report.add_work(&r);
                    // the block's history is its worst element's
                    if e == 0 || r.final_residual() > report.final_residual() {
                        report.residuals = std::mem::take(&mut r.residuals);
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
        if let Some(failure) = failure {
            // an element failed: solve the block again in the full form, as a whole, from
            // the element-wise predictor (bounded: the resource estimate models the
            // element-wise path only)
            let full_unknowns = n_el.saturating_mul(p).saturating_mul(2 * nq + nl);
            if n_el == 1 || full_unknowns > FULL_FORM_MAX_UNKNOWNS {
                return Err(failure);
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
            report.add_work(&r);
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
