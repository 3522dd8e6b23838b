//! Block-wise space-time Galerkin solve [P, §4.2]: each block is solved at once by Newton
//! (Eq. 25) with sparse LU; its end values `q, p` are the next block's initial conditions.
//! Pattern and symbolic factorisation are built once and reused for all blocks.

use super::velocity;
use crate::discretize::SpaceTimeBlock;
use crate::discretize::space_time::{consistent_multiplier, default_quadrature_points};
use crate::error::SolveError;
use crate::model::ConstrainedSystem;
use crate::solve::linear::SparseLu;
use crate::solve::newton::{NewtonContext, NewtonSolver, NewtonSystem};
use crate::solve::{BlockReport, NewtonParams, Trajectory};

/// Parameters of the space-time method.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SpaceTimeParams {
    /// Lagrange order `p ≥ 1` of all fields in time.
    pub order: usize,
    /// Time elements per block.
    pub elements_per_block: usize,
    /// Number of blocks.
    pub blocks: usize,
    /// Gauss points per element (default: exact for the `3p`-degree constraint terms).
    pub quadrature_points: Option<usize>,
}

impl SpaceTimeParams {
    /// Element size for the time domain `[t_start, t_end]`.
    pub fn element_size(&self, t_start: f64, t_end: f64) -> f64 {
        (t_end - t_start) / (self.blocks * self.elements_per_block) as f64
    }
}

struct BlockProblem<'a, 's, S: ConstrainedSystem + ?Sized> {
    blk: &'a mut SpaceTimeBlock<'s, S>,
    t0: f64,
    q0: &'a [f64],
    p0: &'a [f64],
    l0: &'a [f64],
    nodal: &'a mut [f64],
}

impl<S: ConstrainedSystem + ?Sized> NewtonSystem for BlockProblem<'_, '_, S> {
    fn assemble(&mut self, x: &[f64], r: &mut [f64], jacobian: Option<&mut [f64]>) {
        self.blk
            .nodal_from_unknowns(self.q0, self.p0, self.l0, x, self.nodal);
        self.blk.assemble(self.t0, self.nodal, r, jacobian);
    }

    fn residual_norm(&self, r: &[f64]) -> f64 {
        self.blk.residual_norm(r)
    }
}

/// Runs the block-wise space-time solve.
#[allow(clippy::too_many_arguments)]
pub fn solve<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    p0: &[f64],
    t_start: f64,
    t_end: f64,
    params: &SpaceTimeParams,
    newton: &NewtonParams,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, SolveError> {
    let (nq, nl) = (sys.n_q(), sys.n_lambda());
    let p = params.order;
    let n_el = params.elements_per_block;
    let h = params.element_size(t_start, t_end);
    let nquad = params
        .quadrature_points
        .unwrap_or_else(|| default_quadrature_points(p));
    let mut blk = SpaceTimeBlock::new(sys, p, n_el, h, nquad);
    let nd = blk.node_dofs();
    let n_nodes = blk.n_nodes();
    let mut solver = NewtonSolver::new(SparseLu::new(blk.pattern().clone())?);
    let mut nodal = vec![0.0; n_nodes * nd];
    let mut x = vec![0.0; blk.size().unknowns];
    let (mut qs, mut ps) = (q0.to_vec(), p0.to_vec());

    let total_nodes = params.blocks * (n_nodes - 1) + 1;
    let mut traj = Trajectory {
        n_q: nq,
        n_lambda: nl,
        order: p,
        times: Vec::with_capacity(total_nodes),
        q: Vec::with_capacity(total_nodes * nq),
        p: Vec::with_capacity(total_nodes * nq),
        lambda: Vec::with_capacity(total_nodes * nl),
        blocks: Vec::with_capacity(params.blocks),
        method: format!(
            "space-time Galerkin, order {p}, {} blocks × {n_el} elements, h = {h:.3e} s",
            params.blocks
        ),
    };
    for b in 0..params.blocks {
        let t0 = t_start + (b * n_el) as f64 * h;
        // λ₀ from the acceleration-level constraint at the block start (prescribed, like q₀, p₀).
        let lam = consistent_multiplier(sys, t0, &qs, &ps).ok_or(SolveError::Factorization(
            "G M⁻¹ Gᵀ is singular at the block start: the constraints are redundant".into(),
        ))?;
        // Initial guess: uniform motion with the block's initial velocity, constant momenta and
        // multipliers.
        let v0 = velocity(sys, &ps);
        let dt_node = h / p as f64;
        for a in 0..n_nodes {
            let node = &mut nodal[a * nd..(a + 1) * nd];
            let s = a as f64 * dt_node;
            for i in 0..nq {
                node[i] = qs[i] + s * v0[i];
                node[nq + i] = ps[i];
            }
            node[2 * nq..].copy_from_slice(&lam);
        }
        blk.unknowns_from_nodal(&nodal, &mut x);
        let t1 = t0 + n_el as f64 * h;
        let cx = NewtonContext {
            block: b,
            t_start: t0,
            t_end: t1,
        };
        let report = {
            let mut prob = BlockProblem {
                blk: &mut blk,
                t0,
                q0: &qs,
                p0: &ps,
                l0: &lam,
                nodal: &mut nodal,
            };
            solver.solve(&mut prob, &mut x, newton, cx)?
        };
        blk.nodal_from_unknowns(&qs, &ps, &lam, &x, &mut nodal);
        let first = if b == 0 { 0 } else { 1 };
        for a in first..n_nodes {
            let node = &nodal[a * nd..(a + 1) * nd];
            traj.times.push(t0 + a as f64 * dt_node);
            traj.q.extend_from_slice(&node[..nq]);
            traj.p.extend_from_slice(&node[nq..2 * nq]);
            traj.lambda.extend_from_slice(&node[2 * nq..]);
        }
        let last = &nodal[(n_nodes - 1) * nd..];
        qs.copy_from_slice(&last[..nq]);
        ps.copy_from_slice(&last[nq..2 * nq]);
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
