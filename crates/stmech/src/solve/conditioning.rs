//! Condition number of the Newton iteration matrix against the step size (cf. [P, Fig. 3]):
//! for index-3 time stepping (midpoint rule with the constraint at position level) the
//! condition number grows like `O(h⁻³)` (Betsch, cited in [P]); the space-time forms are
//! measured here the same way.
//!
//! Each sample is the 2-norm condition number `σ_max/σ_min` (dense SVD, faer) of the Jacobian
//! of one step / one element / one block, evaluated at the predictor state (uniform motion
//! from the initial state, multipliers from `Φ̈ = 0`), i.e. the matrix of the first Newton
//! iteration. Rows are not rescaled: this is the matrix the solver factorises.

use crate::discretize::{PetrovGalerkinBlock, SpaceTimeBlock};
use crate::model::ConstrainedSystem;
use crate::solve::consistent::consistent_multiplier;
use crate::solve::scheme::theta::{ThetaScheme, step_jacobian_dense};

/// Which iteration matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ConditionCase {
    /// One θ = ½ step.
    Midpoint,
    /// One Petrov–Galerkin block of `elements` elements of order `order`.
    PetrovGalerkin {
        /// Lagrange order.
        order: usize,
        /// Elements in the block.
        elements: usize,
    },
    /// One Bubnov block [P, Eq. (23)].
    Bubnov {
        /// Lagrange order.
        order: usize,
        /// Elements in the block.
        elements: usize,
    },
}

impl ConditionCase {
    /// Label for tables and plots.
    pub fn label(&self) -> String {
        match self {
            Self::Midpoint => "midpoint (one step)".into(),
            Self::PetrovGalerkin { order, elements } => {
                format!("Petrov-Galerkin p={order} ({elements} element block)")
            }
            Self::Bubnov { order, elements } => {
                format!("Bubnov p={order} ({elements} element block)")
            }
        }
    }
}

/// `σ_max/σ_min` of the dense column-major `n × n` matrix `a` (∞ if singular).
pub fn condition_number(n: usize, a: &[f64]) -> f64 {
    let m = faer::MatRef::from_column_major_slice(a, n, n);
    match m.singular_values() {
        Ok(s) => {
            let max = s.iter().copied().fold(0.0, f64::max);
            let min = s.iter().copied().fold(f64::INFINITY, f64::min);
            if min > 0.0 { max / min } else { f64::INFINITY }
        }
        Err(_) => f64::NAN,
    }
}

/// Condition number of the iteration matrix of `case` with step / element size `h`, starting
/// from `(q0, v0)` at `t0`.
pub fn iteration_matrix_condition<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    case: ConditionCase,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    h: f64,
) -> f64 {
    let nq = sys.n_q();
    let lam = consistent_multiplier(sys, t0, q0, v0).unwrap_or_else(|| vec![0.0; sys.n_lambda()]);
    let moved = |s: f64| -> Vec<f64> { (0..nq).map(|i| q0[i] + s * v0[i]).collect() };
    let (n, dense) = match case {
        ConditionCase::Midpoint => {
            step_jacobian_dense(sys, ThetaScheme::MIDPOINT, t0, q0, v0, h, &lam)
        }
        ConditionCase::PetrovGalerkin { order, elements } => {
            let mut blk = PetrovGalerkinBlock::new(sys, order, elements, h, order);
            let n = blk.n_unknowns();
            let mut x = vec![0.0; n];
            blk.set_multipliers(&mut x, &lam);
            for a in 1..blk.n_nodes() {
                blk.set_node(&mut x, a, &moved(a as f64 * h / order as f64), v0);
            }
            let mut r = vec![0.0; n];
            let mut vals = vec![0.0; blk.pattern().nnz()];
            blk.assemble(t0, q0, v0, &x, &mut r, Some(&mut vals));
            (n, blk.pattern().to_dense(&vals))
        }
        ConditionCase::Bubnov { order, elements } => {
            let quad = crate::discretize::space_time::default_quadrature_points(order);
            let mut blk = SpaceTimeBlock::new(sys, order, elements, h, quad);
            let nd = blk.node_dofs();
            let mut nodal = vec![0.0; blk.n_nodes() * nd];
            for a in 0..blk.n_nodes() {
                let node = &mut nodal[a * nd..(a + 1) * nd];
                node[..nq].copy_from_slice(&moved(a as f64 * h / order as f64));
                node[nq..2 * nq].copy_from_slice(v0);
                node[2 * nq..].copy_from_slice(&lam);
            }
            let n = blk.size().unknowns;
            let mut r = vec![0.0; n];
            let mut vals = vec![0.0; blk.pattern().nnz()];
            blk.assemble(t0, &nodal, &mut r, Some(&mut vals));
            (n, blk.pattern().to_dense(&vals))
        }
    };
    condition_number(n, &dense)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condition_number_of_a_diagonal_matrix() {
        let a = [2.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, -4.0];
        assert!((condition_number(3, &a) - 8.0).abs() < 1e-12);
    }
}
