//! Sparse LU with a reusable symbolic factorisation (faer): the pattern and the fill-reducing
//! ordering (COLAMD) are computed once per mesh; each Newton iteration only refactorises
//! numerically and solves, without allocating.

use crate::discretize::pattern::CscPattern;
use crate::error::SolveError;
use faer::Par;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{LuSymbolicParams, NumericLu, SymbolicLu, factorize_symbolic_lu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

/// Symbolic parameters: COLAMD ordering (faer's only choice) and the supernodal numeric
/// factorisation forced. On the block-banded space-time Jacobians faer's automatic choice picks
/// the simplicial variant, which was measured 2.2× slower (rectangular-load example, 1000
/// elements: 2.08 s vs 0.93 s for 13 Newton iterations).
fn symbolic_params() -> LuSymbolicParams<'static> {
    LuSymbolicParams {
        supernodal_flop_ratio_threshold:
            faer::sparse::linalg::SupernodalThreshold::FORCE_SUPERNODAL,
        ..Default::default()
    }
}

/// Sparse LU solver for a fixed pattern.
pub struct SparseLu {
    pattern: CscPattern,
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    factor_buf: MemBuffer,
    solve_buf: MemBuffer,
    factorized: bool,
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseLu")
            .field("n", &self.pattern.n)
            .field("nnz", &self.pattern.nnz())
            .finish()
    }
}

impl SparseLu {
    /// Symbolic analysis of `pattern`.
    pub fn new(pattern: CscPattern) -> Result<Self, SolveError> {
        let n = pattern.n;
        let symbolic = {
            let sym = SymbolicSparseColMatRef::new_checked(
                n,
                n,
                &pattern.col_ptr,
                None,
                &pattern.row_idx,
            );
            factorize_symbolic_lu(sym, symbolic_params())
                .map_err(|e| SolveError::Factorization(format!("{e:?}")))?
        };
        let par = Par::Seq;
        let factor_buf =
            MemBuffer::new(symbolic.factorize_numeric_lu_scratch::<f64>(par, Default::default()));
        let solve_buf = MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(1, par));
        Ok(Self {
            pattern,
            symbolic,
            numeric: NumericLu::new(),
            factor_buf,
            solve_buf,
            factorized: false,
        })
    }

    /// The pattern.
    pub fn pattern(&self) -> &CscPattern {
        &self.pattern
    }

    /// Numeric factorisation of the matrix with `values` in pattern order.
    pub fn factorize(&mut self, values: &[f64]) -> Result<(), SolveError> {
        let n = self.pattern.n;
        let sym = SymbolicSparseColMatRef::new_checked(
            n,
            n,
            &self.pattern.col_ptr,
            None,
            &self.pattern.row_idx,
        );
        let mat = SparseColMatRef::new(sym, values);
        self.factorized = false;
        self.symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                mat,
                Par::Seq,
                MemStack::new(&mut self.factor_buf),
                Default::default(),
            )
            .map_err(|e| SolveError::Factorization(format!("{e:?}; the Jacobian is singular")))?;
        self.factorized = true;
        Ok(())
    }

    /// Solves `A x = rhs` in place with the last factorisation.
    ///
    /// # Panics
    /// If [`factorize`](Self::factorize) has not succeeded before (programmer error).
    pub fn solve_in_place(&mut self, rhs: &mut [f64]) {
        assert!(self.factorized, "solve before factorize");
        let n = self.pattern.n;
        let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(&self.symbolic, &self.numeric);
        let rhs = faer::MatMut::from_column_major_slice_mut(rhs, n, 1);
        lu.solve_in_place_with_conj(
            faer::Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut self.solve_buf),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_saddle_point_system_with_zero_diagonal() {
        // [[2, 1], [1, 0]] x = [3, 1] → x = [1, 1]
        let entries = [(0, 0), (1, 0), (0, 1)];
        let pat = CscPattern::from_entries(2, || entries.iter().copied());
        let mut vals = vec![0.0; pat.nnz()];
        vals[pat.position(0, 0)] = 2.0;
        vals[pat.position(1, 0)] = 1.0;
        vals[pat.position(0, 1)] = 1.0;
        let mut lu = SparseLu::new(pat).unwrap();
        lu.factorize(&vals).unwrap();
        let mut b = vec![3.0, 1.0];
        lu.solve_in_place(&mut b);
        assert!((b[0] - 1.0).abs() < 1e-14 && (b[1] - 1.0).abs() < 1e-14);
    }
}
