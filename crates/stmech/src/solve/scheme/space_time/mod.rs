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
//! extrapolation of the motion. The residual of a block of several elements is its elements'
//! residuals, and its measures (`solve::newton::measure`) are their maxima: the block has
//! converged when every element has. If an element fails, the block is solved again in the
//! full form, as a whole. [`solve_full_form`] always takes the full form (the reference of the tests).

use crate::discretize::petrov_galerkin::default_quadrature_points as pg_quadrature_points;
use crate::discretize::space_time::default_quadrature_points;
use crate::discretize::{CondensedElement, PetrovGalerkinBlock, SpaceTimeBlock};
use crate::error::SolveError;
use crate::model::ConstrainedSystem;
use crate::solve::linear::LinearSolver;
use crate::solve::newton::NewtonSolver;
use crate::solve::{NewtonParams, Trajectory};

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

mod blocks;
mod condensed;

use blocks::{Bubnov, Petrov, Predictor, run_blocks};
use condensed::run_condensed;

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
                // the block's measures are the maxima of its elements': the block Newton
                // accepts the predicted solution without iterating
                let newton = *newton;
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
