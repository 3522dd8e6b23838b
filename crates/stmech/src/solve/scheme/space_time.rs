//! Block-wise space-time Galerkin solve [P, §4.2]: each block is solved at once by Newton
//! (Eq. 25) with sparse LU; its end values `q, v` are the next block's initial conditions.
//! Pattern and symbolic factorisation are built once and reused for all blocks. Both weak
//! forms ([`Formulation`]) share this block loop through the private `BlockForm` trait.
//!
//! The Petrov–Galerkin form (with at least `p` Gauss points, the default) is solved element by
//! element instead (`run_condensed`): its block Jacobian is block lower bidiagonal, so a block's
//! solution is the sequence of its elements' solutions. Each element is a
//! [`CondensedElement`] (velocities eliminated, unknowns numbered frame by frame, banded or
//! sparse LU); from [`CHORD_MIN_UNKNOWNS`] unknowns on by the chord Newton method of
//! [`Refactorization::Chord`], which keeps one factorisation over many elements and blocks. An element starts from a quadratic
//! extrapolation of the motion. A block of several elements is accepted when the sum of its
//! elements' residual norms (each solved to the block tolerance over the number of elements)
//! is below the tolerance, which is the full form's block criterion; otherwise (as soon as the
//! sum reaches it, or if an element fails) the block is solved again in the full form, as a
//! whole. [`solve_full_form`] always takes the full form (the reference of the tests).

use crate::discretize::pattern::CscPattern;
use crate::discretize::petrov_galerkin::default_quadrature_points as pg_quadrature_points;
use crate::discretize::space_time::default_quadrature_points;
use crate::discretize::{CondensedElement, PetrovGalerkinBlock, SpaceTimeBlock};
use crate::error::SolveError;
use crate::model::ConstrainedSystem;
use crate::solve::consistent::consistent_multiplier;
use crate::solve::linear::LinearSolver;
use crate::solve::newton::{
    NewtonContext, NewtonReport, NewtonSolver, NewtonSystem, Refactorization,
};
use crate::solve::{BlockReport, NewtonParams, Trajectory};

/// Which weak form in time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Formulation {
    /// Continuous Petrov–Galerkin, cG(p) (see [`crate::discretize::petrov_galerkin`]):
    /// energy-conserving, constraints exact at the nodes. The default.
    #[default]
    PetrovGalerkin,
    /// The paper's Bubnov–Galerkin form [P, Eq. (23)] (see [`crate::discretize::space_time`]).
    Bubnov,
}

/// Parameters of the space-time method.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SpaceTimeParams {
    /// Lagrange order `p ≥ 1` of the trial functions in time.
    pub order: usize,
    /// Time elements per block.
    pub elements_per_block: usize,
    /// Number of blocks.
    pub blocks: usize,
    /// Gauss points per element (default depends on the formulation: `p` for Petrov–Galerkin,
    /// `⌈(3p+2)/2⌉` for Bubnov).
    pub quadrature_points: Option<usize>,
    /// Weak form in time.
    pub formulation: Formulation,
}

impl SpaceTimeParams {
    /// Element size for the time domain `[t_start, t_end]`.
    pub fn element_size(&self, t_start: f64, t_end: f64) -> f64 {
        (t_end - t_start) / (self.blocks * self.elements_per_block) as f64
    }

    /// Gauss points per element actually used.
    pub fn quadrature(&self) -> usize {
        self.quadrature_points.unwrap_or(match self.formulation {
            Formulation::PetrovGalerkin => pg_quadrature_points(self.order),
            Formulation::Bubnov => default_quadrature_points(self.order),
        })
    }
}

/// One time block of either weak form, as the block loop sees it.
trait BlockForm {
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
    fn residual_norm(&self, r: &[f64]) -> f64;
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

struct Bubnov<'s, S: ConstrainedSystem + ?Sized> {
    blk: SpaceTimeBlock<'s, S>,
    sys: &'s S,
    lam0: Vec<f64>,
    nodal: Vec<f64>,
    h: f64,
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

    fn residual_norm(&self, r: &[f64]) -> f64 {
        self.blk.residual_norm(r)
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

struct Petrov<'s, S: ConstrainedSystem + ?Sized> {
    blk: PetrovGalerkinBlock<'s, S>,
    sys: &'s S,
    order: usize,
    h: f64,
    lam: Vec<f64>,
    /// Element-by-element predictor for blocks of more than one element.
    predictor: Option<Predictor<'s, S>>,
}

/// Initial guess of a Petrov–Galerkin block by marching element by element: the block
/// Jacobian is block lower bidiagonal, so the block solution is the sequence of one-element
/// solutions (`docs/theory.md` §3a, item 6). Each element starts from a good guess (the
/// previous element's end state), which keeps Newton in its basin for long, fast blocks
/// (e.g. the chaotic double pendulum) where the block-wide linear guess is too far off. The
/// block Newton then only confirms (typically 0–1 iterations).
struct Predictor<'s, S: ConstrainedSystem + ?Sized> {
    blk: PetrovGalerkinBlock<'s, S>,
    solver: NewtonSolver,
    x: Vec<f64>,
    newton: NewtonParams,
    iterations: usize,
}

struct ElementProblem<'a, 's, S: ConstrainedSystem + ?Sized> {
    blk: &'a mut PetrovGalerkinBlock<'s, S>,
    t0: f64,
    q0: &'a [f64],
    v0: &'a [f64],
}

impl<S: ConstrainedSystem + ?Sized> NewtonSystem for ElementProblem<'_, '_, S> {
    fn assemble(&mut self, x: &[f64], r: &mut [f64], jacobian: Option<&mut [f64]>) {
        self.blk.assemble(self.t0, self.q0, self.v0, x, r, jacobian);
    }

    fn residual_norm(&self, r: &[f64]) -> f64 {
        self.blk.residual_norm(r)
    }

    fn converged_by_update(&self, dx: &[f64], x: &[f64]) -> bool {
        crate::solve::newton::update_at_round_off(dx, x)
    }
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

    fn residual_norm(&self, r: &[f64]) -> f64 {
        self.blk.residual_norm(r)
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

struct BlockProblem<'a, B: BlockForm> {
    form: &'a mut B,
    t0: f64,
    q0: &'a [f64],
    v0: &'a [f64],
}

impl<B: BlockForm> NewtonSystem for BlockProblem<'_, B> {
    fn assemble(&mut self, x: &[f64], r: &mut [f64], jacobian: Option<&mut [f64]>) {
        self.form
            .assemble(self.t0, self.q0, self.v0, x, r, jacobian);
    }

    fn residual_norm(&self, r: &[f64]) -> f64 {
        self.form.residual_norm(r)
    }

    fn converged_by_update(&self, dx: &[f64], x: &[f64]) -> bool {
        crate::solve::newton::update_at_round_off(dx, x)
    }
}

/// Runs the block-wise space-time solve.
#[allow(clippy::too_many_arguments)]
pub fn solve<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    v0: &[f64],
    t_start: f64,
    t_end: f64,
    params: &SpaceTimeParams,
    newton: &NewtonParams,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, SolveError> {
    solve_with(sys, q0, v0, t_start, t_end, params, newton, progress, true)
}

/// [`solve`] with the Petrov–Galerkin form always in its full form (blocks of
/// [`PetrovGalerkinBlock`], never [`CondensedElement`]): the reference of the tests that check
/// that both give the same discrete solution. Not part of the stable API.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn solve_full_form<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    v0: &[f64],
    t_start: f64,
    t_end: f64,
    params: &SpaceTimeParams,
    newton: &NewtonParams,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, SolveError> {
    solve_with(sys, q0, v0, t_start, t_end, params, newton, progress, false)
}

#[allow(clippy::too_many_arguments)]
fn solve_with<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    v0: &[f64],
    t_start: f64,
    t_end: f64,
    params: &SpaceTimeParams,
    newton: &NewtonParams,
    progress: &mut dyn FnMut(f64),
    condensed: bool,
) -> Result<Trajectory, SolveError> {
    let p = params.order;
    let n_el = params.elements_per_block;
    let h = params.element_size(t_start, t_end);
    let nquad = params.quadrature();
    let name = match params.formulation {
        Formulation::PetrovGalerkin => "Petrov-Galerkin",
        Formulation::Bubnov => "Bubnov-Galerkin",
    };
    let method = format!(
        "space-time {name}, order {p}, {} blocks × {n_el} elements, h = {h:.3e} s",
        params.blocks
    );
    match params.formulation {
        Formulation::PetrovGalerkin if condensed && CondensedElement::<S>::applies(p, nquad) => {
            run_condensed(
                sys, q0, v0, t_start, t_end, params, newton, method, progress,
            )
        }
        Formulation::PetrovGalerkin => {
            let predictor = if n_el > 1 {
                let blk = PetrovGalerkinBlock::new(sys, p, 1, h, nquad);
                let n = blk.n_unknowns();
                let solver = NewtonSolver::new(LinearSolver::for_pattern(blk.pattern().clone())?);
                // per-element share of the block tolerance, so that the block Newton
                // usually accepts the predicted solution without iterating
                let newton = NewtonParams {
                    tolerance: (newton.tolerance / n_el as f64).max(1e-14),
                    max_iterations: newton.max_iterations,
                };
                Some(Predictor {
                    blk,
                    solver,
                    x: vec![0.0; n],
                    newton,
                    iterations: 0,
                })
            } else {
                None
            };
            let mut form = Petrov {
                blk: PetrovGalerkinBlock::new(sys, p, n_el, h, nquad),
                sys,
                order: p,
                h,
                lam: Vec::new(),
                predictor,
            };
            run_blocks(
                sys, &mut form, q0, v0, t_start, t_end, params, newton, method, progress,
            )
        }
        Formulation::Bubnov => {
            let blk = SpaceTimeBlock::new(sys, p, n_el, h, nquad);
            let nodal = vec![0.0; blk.n_nodes() * blk.node_dofs()];
            let mut form = Bubnov {
                blk,
                sys,
                lam0: Vec::new(),
                nodal,
                h,
            };
            run_blocks(
                sys, &mut form, q0, v0, t_start, t_end, params, newton, method, progress,
            )
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_blocks<S: ConstrainedSystem + ?Sized, B: BlockForm>(
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
    let reserve = crate::resources::reserve;
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
    };
    for b in 0..params.blocks {
        let t0 = t_start + (b * n_el) as f64 * h;
        let t1 = t0 + n_el as f64 * h;
        form.start(t0, &qs, &vs, &mut x)?;
        let cx = NewtonContext {
            block: b,
            t_start: t0,
            t_end: t1,
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

/// Largest ratio of successive residual norms accepted before the chord Newton iteration of the
/// condensed elements refactorises (see [`Refactorization::Chord`]). Measured on the flying
/// spaghetti and the cantilever ladders (`docs/verification.md`, "Flexible multibody: speed").
pub const CHORD_CONTRACTION: f64 = 0.25;

/// Smallest condensed element (unknowns) solved by the chord method; smaller ones (rigid
/// bodies and short chains: a factorisation costs less than an assembly) by Newton–Raphson,
/// whose last step lands far below the tolerance.
pub const CHORD_MIN_UNKNOWNS: usize = 200;

/// Largest block (unknowns of its full Petrov–Galerkin form) that is solved again as a whole
/// when its element-wise solution misses the block tolerance (about 100 MB for rigid bodies);
/// a larger one fails with the Newton error instead (remedy: fewer elements per block or a
/// looser tolerance). Bounds what the resource estimate, which models the element-wise path,
/// leaves out.
pub const FULL_FORM_MAX_UNKNOWNS: usize = 120_000;

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
fn run_condensed<S: ConstrainedSystem + ?Sized>(
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
