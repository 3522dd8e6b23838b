//! The block loop shared by both weak forms: the `BlockForm` trait, its two implementations
//! (Bubnov and full Petrov–Galerkin blocks, the latter with an element-wise predictor) and
//! `run_blocks`.

use super::SpaceTimeParams;
use crate::discretize::pattern::CscPattern;
use crate::discretize::petrov_galerkin::SLOT_GROUPS;
use crate::discretize::{PetrovGalerkinBlock, SpaceTimeBlock};
use crate::error::SolveError;
use crate::model::ConstrainedSystem;
use crate::solve::consistent::consistent_multiplier;
use crate::solve::linear::LinearSolver;
use crate::solve::newton::assembled::frames_at_round_off;
use crate::solve::newton::{NewtonContext, NewtonSolver, NewtonSystem, Stage};
use crate::solve::{BlockReport, NewtonParams, Trajectory};

/// One time block of either weak form, as the block loop sees it.
pub(super) trait BlockForm {
    fn pattern(&self) -> &CscPattern;
    fn n_nodes(&self) -> usize;
    /// Initial guess `x` for the block starting at `t0` from `(q0, v0)`: uniform motion with the
    /// initial velocity, multipliers from `Φ̈ = 0`.
    fn start(&mut self, t0: f64, q0: &[f64], v0: &[f64], x: &mut [f64]) -> Result<(), SolveError>;
    fn assemble(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        r: &mut [f64],
        v: Option<&mut [f64]>,
    );
    /// Magnitudes of the terms of the last assembled residual.
    fn magnitudes(&self) -> &[f64];
    /// Equation group of every row.
    fn row_groups(&self) -> &[u8];
    /// Values per slot (node) of the unknowns `(q, v, λ)`.
    fn slot_dofs(&self) -> usize;
    /// Appends nodes `first..n_nodes` of the solved block (times, q, v, λ) to `traj`.
    fn append(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        first: usize,
        traj: &mut Trajectory,
    );
    /// Newton iterations spent since the last call outside the block Newton (the
    /// element-wise predictor), to be added to the block's report.
    fn take_extra_iterations(&mut self) -> usize {
        0
    }
}

fn block_start_multiplier<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
) -> Result<Vec<f64>, SolveError> {
    consistent_multiplier(sys, t0, q0, v0).ok_or(SolveError::Factorization(
        "[[M, Gᵀ], [G, 0]] is singular at the block start: the constraints are redundant".into(),
    ))
}

pub(super) struct Bubnov<'s, S: ConstrainedSystem + ?Sized> {
    pub(super) blk: SpaceTimeBlock<'s, S>,
    pub(super) sys: &'s S,
    pub(super) lam0: Vec<f64>,
    pub(super) nodal: Vec<f64>,
    pub(super) h: f64,
}

impl<S: ConstrainedSystem + ?Sized> BlockForm for Bubnov<'_, S> {
    fn pattern(&self) -> &CscPattern {
        self.blk.pattern()
    }

    fn n_nodes(&self) -> usize {
        self.blk.n_nodes()
    }

    fn start(&mut self, t0: f64, q0: &[f64], v0: &[f64], x: &mut [f64]) -> Result<(), SolveError> {
        // λ₀ from the acceleration-level constraint at the block start (prescribed, like q₀, p₀).
        self.lam0 = block_start_multiplier(self.sys, t0, q0, v0)?;
        let nq = q0.len();
        let nd = self.blk.node_dofs();
        let dt_node = self.h / self.blk.order() as f64;
        for a in 0..self.blk.n_nodes() {
            let node = &mut self.nodal[a * nd..(a + 1) * nd];
            let s = a as f64 * dt_node;
            for i in 0..nq {
                node[i] = q0[i] + s * v0[i];
                node[nq + i] = v0[i];
            }
            node[2 * nq..].copy_from_slice(&self.lam0);
        }
        self.blk.unknowns_from_nodal(&self.nodal, x);
        Ok(())
    }

    fn assemble(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        r: &mut [f64],
        v: Option<&mut [f64]>,
    ) {
        self.blk
            .nodal_from_unknowns(q0, v0, &self.lam0, x, &mut self.nodal);
        self.blk.assemble(t0, &self.nodal, r, v);
    }

    fn magnitudes(&self) -> &[f64] {
        self.blk.magnitudes()
    }

    fn row_groups(&self) -> &[u8] {
        self.blk.row_groups()
    }

    fn slot_dofs(&self) -> usize {
        self.blk.node_dofs()
    }

    fn append(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        first: usize,
        traj: &mut Trajectory,
    ) {
        self.blk
            .nodal_from_unknowns(q0, v0, &self.lam0, x, &mut self.nodal);
        let (nq, nd) = (q0.len(), self.blk.node_dofs());
        let dt_node = self.h / self.blk.order() as f64;
        for a in first..self.blk.n_nodes() {
            let node = &self.nodal[a * nd..(a + 1) * nd];
            traj.times.push(t0 + a as f64 * dt_node);
            traj.q.extend_from_slice(&node[..nq]);
            traj.v.extend_from_slice(&node[nq..2 * nq]);
            traj.lambda.extend_from_slice(&node[2 * nq..]);
        }
    }
}

pub(super) struct Petrov<'s, S: ConstrainedSystem + ?Sized> {
    pub(super) blk: PetrovGalerkinBlock<'s, S>,
    pub(super) sys: &'s S,
    pub(super) order: usize,
    pub(super) h: f64,
    pub(super) lam: Vec<f64>,
    /// Element-by-element predictor for blocks of more than one element.
    pub(super) predictor: Option<Predictor<'s, S>>,
}

/// Initial guess of a Petrov–Galerkin block by marching element by element: the block
/// Jacobian is block lower bidiagonal, so the block solution is the sequence of one-element
/// solutions (`docs/theory.md` §3a, item 6). Each element starts from a good guess (the
/// previous element's end state), which keeps Newton in its basin for long, fast blocks
/// (e.g. the chaotic double pendulum) where the block-wide linear guess is too far off. The
/// block Newton then only confirms (typically 0–1 iterations).
pub(super) struct Predictor<'s, S: ConstrainedSystem + ?Sized> {
    pub(super) blk: PetrovGalerkinBlock<'s, S>,
    pub(super) solver: NewtonSolver,
    pub(super) x: Vec<f64>,
    pub(super) newton: NewtonParams,
    pub(super) iterations: usize,
}

struct ElementProblem<'a, 's, S: ConstrainedSystem + ?Sized> {
    blk: &'a mut PetrovGalerkinBlock<'s, S>,
    t0: f64,
    q0: &'a [f64],
    v0: &'a [f64],
}

impl<S: ConstrainedSystem + ?Sized> NewtonSystem for ElementProblem<'_, '_, S> {
    fn n_groups(&self) -> usize {
        SLOT_GROUPS
    }

    fn row_groups(&self) -> &[u8] {
        self.blk.row_groups()
    }

    fn assemble(&mut self, x: &[f64], r: &mut [f64], m: &mut [f64], jacobian: Option<&mut [f64]>) {
        self.blk.assemble(self.t0, self.q0, self.v0, x, r, jacobian);
        m.copy_from_slice(self.blk.magnitudes());
    }

    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        slots_at_round_off(x, dx, self.blk.slot_dofs(), self.q0.len())
    }
}

/// Whether the correction `dx` of the positions and directors in every slot `(q, v, λ)` of
/// `nd` values (`q` the first `nq`) is at their round-off level (multipliers and velocities
/// left out).
pub(super) fn slots_at_round_off(x: &[f64], dx: &[f64], nd: usize, nq: usize) -> bool {
    x.chunks(nd)
        .zip(dx.chunks(nd))
        .all(|(xs, ds)| frames_at_round_off(&xs[..nq], &ds[..nq]))
}

impl<S: ConstrainedSystem + ?Sized> Predictor<'_, S> {
    /// Fills `x` (the block unknowns) element by element; stops quietly at the first element
    /// whose Newton fails (the rest keeps the linear guess, and the block Newton reports).
    #[allow(clippy::too_many_arguments)]
    fn march(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        lam: &[f64],
        n_el: usize,
        h: f64,
        x: &mut [f64],
    ) {
        let p = self.blk.n_nodes() - 1;
        let slot = self.x.len();
        let (mut qa, mut va) = (q0.to_vec(), v0.to_vec());
        let mut lam = lam.to_vec();
        for e in 0..n_el {
            let te = t0 + e as f64 * h;
            self.blk.set_multipliers(&mut self.x, &lam);
            let mut q = qa.clone();
            for a in 1..=p {
                let s = a as f64 * h / p as f64;
                for (qi, (q0i, vi)) in q.iter_mut().zip(qa.iter().zip(&va)) {
                    *qi = q0i + s * vi;
                }
                self.blk.set_node(&mut self.x, a, &q, &va);
            }
            let cx = NewtonContext {
                block: e,
                t_start: te,
                t_end: te + h,
                stage: Stage::TimeBlock,
            };
            let mut prob = ElementProblem {
                blk: &mut self.blk,
                t0: te,
                q0: &qa,
                v0: &va,
            };
            match self.solver.solve(&mut prob, &mut self.x, &self.newton, cx) {
                Ok(rep) => self.iterations += rep.iterations,
                Err(_) => return,
            }
            x[e * slot..(e + 1) * slot].copy_from_slice(&self.x);
            let (qe, ve) = self.blk.node(&qa, &va, &self.x, p);
            let (qe, ve) = (qe.to_vec(), ve.to_vec());
            self.blk.multiplier(&self.x, 0, 1.0, &mut lam);
            qa = qe;
            va = ve;
        }
    }
}

impl<S: ConstrainedSystem + ?Sized> BlockForm for Petrov<'_, S> {
    fn pattern(&self) -> &CscPattern {
        self.blk.pattern()
    }

    fn n_nodes(&self) -> usize {
        self.blk.n_nodes()
    }

    fn start(&mut self, t0: f64, q0: &[f64], v0: &[f64], x: &mut [f64]) -> Result<(), SolveError> {
        // The multipliers are unknowns of every element (no λ₀ is prescribed). Initial guess:
        // the previous block's final multiplier, or Φ̈ = 0 at the first block (redundant
        // constraints are not an error here: the guess is then zero).
        if self.lam.is_empty() {
            self.lam = consistent_multiplier(self.sys, t0, q0, v0)
                .unwrap_or_else(|| vec![0.0; self.sys.n_lambda()]);
        }
        self.blk.set_multipliers(x, &self.lam);
        let dt_node = self.h / self.order as f64;
        let mut q = q0.to_vec();
        for a in 1..self.blk.n_nodes() {
            let s = a as f64 * dt_node;
            for (qi, (q0i, vi)) in q.iter_mut().zip(q0.iter().zip(v0)) {
                *qi = q0i + s * vi;
            }
            self.blk.set_node(x, a, &q, v0);
        }
        if let Some(pred) = self.predictor.as_mut() {
            let n_el = (self.blk.n_nodes() - 1) / self.order;
            pred.march(t0, q0, v0, &self.lam, n_el, self.h, x);
        }
        Ok(())
    }

    fn assemble(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        r: &mut [f64],
        v: Option<&mut [f64]>,
    ) {
        self.blk.assemble(t0, q0, v0, x, r, v);
    }

    fn magnitudes(&self) -> &[f64] {
        self.blk.magnitudes()
    }

    fn row_groups(&self) -> &[u8] {
        self.blk.row_groups()
    }

    fn slot_dofs(&self) -> usize {
        self.blk.slot_dofs()
    }

    fn take_extra_iterations(&mut self) -> usize {
        self.predictor
            .as_mut()
            .map_or(0, |p| std::mem::take(&mut p.iterations))
    }

    fn append(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        first: usize,
        traj: &mut Trajectory,
    ) {
        let dt_node = self.h / self.order as f64;
        let p = self.order;
        // after the loop `self.lam` holds λ_h at the block end: the next block's initial guess
        self.lam.resize(self.sys.n_lambda(), 0.0);
        for a in first..self.blk.n_nodes() {
            let (q, vm) = self.blk.node(q0, v0, x, a);
            traj.times.push(t0 + a as f64 * dt_node);
            traj.q.extend_from_slice(q);
            traj.v.extend_from_slice(vm);
            // λ_h is discontinuous: report the value of the element ending at the node (the
            // first element's start value at node 0).
            let (e, tau) = if a == 0 {
                (0, 0.0)
            } else {
                ((a - 1) / p, ((a - 1) % p + 1) as f64 / p as f64)
            };
            let mut lam = std::mem::take(&mut self.lam);
            self.blk.multiplier(x, e, tau, &mut lam);
            traj.lambda.extend_from_slice(&lam);
            self.lam = lam;
        }
    }
}

pub(super) struct BlockProblem<'a, B: BlockForm> {
    pub(super) form: &'a mut B,
    pub(super) t0: f64,
    pub(super) q0: &'a [f64],
    pub(super) v0: &'a [f64],
}

impl<B: BlockForm> NewtonSystem for BlockProblem<'_, B> {
    fn n_groups(&self) -> usize {
        SLOT_GROUPS
    }

    fn row_groups(&self) -> &[u8] {
        self.form.row_groups()
    }

    fn assemble(&mut self, x: &[f64], r: &mut [f64], m: &mut [f64], jacobian: Option<&mut [f64]>) {
        self.form
            .assemble(self.t0, self.q0, self.v0, x, r, jacobian);
        m.copy_from_slice(self.form.magnitudes());
    }

    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        slots_at_round_off(x, dx, self.form.slot_dofs(), self.q0.len())
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run_blocks<S: ConstrainedSystem + ?Sized, B: BlockForm>(
    sys: &S,
    form: &mut B,
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
    let n_el = params.elements_per_block;
    let h = params.element_size(t_start, t_end);
    let n_nodes = form.n_nodes();
    let mut solver = NewtonSolver::new(LinearSolver::for_pattern(form.pattern().clone())?);
    let mut x = vec![0.0; form.pattern().n];
    let (mut qs, mut vs) = (q0.to_vec(), v0.to_vec());
    let total_nodes = params
        .blocks
        .saturating_mul(n_nodes.saturating_sub(1))
        .saturating_add(1);
    let reserve = crate::math::reserve;
    let mut traj = Trajectory {
        n_q: nq,
        n_lambda: nl,
        order: params.order,
        times: Vec::with_capacity(reserve(total_nodes, 1)),
        q: Vec::with_capacity(reserve(total_nodes, nq)),
        v: Vec::with_capacity(reserve(total_nodes, nq)),
        lambda: Vec::with_capacity(reserve(total_nodes, nl)),
        blocks: Vec::with_capacity(reserve(params.blocks, 1)),
        method,
        setup_seconds: None,
    };
    for b in 0..params.blocks {
        let t0 = t_start + (b * n_el) as f64 * h;
        let t1 = t0 + n_el as f64 * h;
        form.start(t0, &qs, &vs, &mut x)?;
        let cx = NewtonContext {
            block: b,
            t_start: t0,
            t_end: t1,
            stage: Stage::TimeBlock,
        };
        let report = {
            let mut prob = BlockProblem {
                form: &mut *form,
                t0,
                q0: &qs,
                v0: &vs,
            };
            solver.solve(&mut prob, &mut x, newton, cx)?
        };
        // element-wise predictor iterations count as this block's work
        let mut report = report;
        report.iterations += form.take_extra_iterations();
        let first = if b == 0 { 0 } else { 1 };
        form.append(t0, &qs, &vs, &x, first, &mut traj);
        let k = traj.len() - 1;
        qs.copy_from_slice(traj.q_at(k));
        vs.copy_from_slice(traj.v_at(k));
        traj.blocks.push(BlockReport {
            t_start: t0,
            t_end: t1,
            newton: report,
        });
        progress((b + 1) as f64 / params.blocks as f64);
    }
    // exact end time despite accumulated round-off in t0 + a·dt
    if let Some(t) = traj.times.last_mut() {
        *t = t_end;
    }
    Ok(traj)
}
