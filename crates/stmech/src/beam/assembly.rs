//! Global assembly for the planar beam: the CSC pattern of the element connectivity, the map
//! from element entries to value positions (computed once per mesh) and the sparse LU whose
//! symbolic factorisation is reused by every Newton iteration of every load or time step.
//!
//! Prescribed unknowns (clamped or pinned ends) keep their reference value: their rows and
//! columns are replaced by those of the identity and their residual entries are zero.

use super::element::ElementMatrix;
use super::model::BeamModel;
use crate::discretize::pattern::CscPattern;
use crate::error::SolveError;
use crate::solve::linear::LinearSolver;

/// Sparse Jacobian storage with its LU.
#[derive(Debug)]
pub struct BeamAssembler {
    /// Value positions of element `e`'s entry `(i, j)`: `positions[e][i * nd + j]`.
    positions: Vec<Vec<usize>>,
    /// Position of each diagonal entry.
    diag: Vec<usize>,
    /// Matrix values in pattern order.
    pub values: Vec<f64>,
    /// The solver.
    pub lu: LinearSolver,
    fixed: Vec<bool>,
}

impl BeamAssembler {
    /// Pattern and symbolic LU for `model`.
    pub fn new(model: &BeamModel) -> Result<Self, SolveError> {
        let n = model.n_dofs();
        let nd = model.element_dofs();
        let ne = model.spec.elements;
        let offs: Vec<usize> = (0..ne).map(|e| model.element_offset(e)).collect();
        let pattern = CscPattern::from_entries(n, || {
            offs.iter()
                .flat_map(move |&o| (0..nd).flat_map(move |i| (0..nd).map(move |j| (o + i, o + j))))
        });
        let positions = offs
            .iter()
            .map(|&o| {
                (0..nd * nd)
                    .map(|k| pattern.position(o + k / nd, o + k % nd))
                    .collect()
            })
            .collect();
        let diag = (0..n).map(|i| pattern.position(i, i)).collect();
        let values = vec![0.0; pattern.nnz()];
        Ok(Self {
            positions,
            diag,
            values,
            lu: LinearSolver::for_pattern(pattern)?,
            fixed: model.fixed.clone(),
        })
    }

    /// Zeroes the values.
    pub fn clear(&mut self) {
        self.values.fill(0.0);
    }

    /// Adds element `e`'s matrix (skipping prescribed rows and columns).
    pub fn add_element(&mut self, e: usize, offset: usize, nd: usize, k: &ElementMatrix) {
        let pos = &self.positions[e];
        for i in 0..nd {
            if self.fixed[offset + i] {
                continue;
            }
            for j in 0..nd {
                if !self.fixed[offset + j] {
                    self.values[pos[i * nd + j]] += k[i][j];
                }
            }
        }
    }

    /// Adds `v` to the diagonal entry `i`.
    pub fn add_diagonal(&mut self, i: usize, v: f64) {
        self.values[self.diag[i]] += v;
    }

    /// Puts 1 on the diagonal of prescribed unknowns, factorises, and solves `K Δ = −r` into
    /// `r` (prescribed entries of `r` must be zero).
    pub fn factorize_and_solve(&mut self, r: &mut [f64]) -> Result<(), SolveError> {
        for (i, &f) in self.fixed.iter().enumerate() {
            if f {
                self.values[self.diag[i]] = 1.0;
                r[i] = 0.0;
            }
        }
        self.lu.factorize(&self.values)?;
        for v in r.iter_mut() {
            *v = -*v;
        }
        self.lu.solve_in_place(r);
        Ok(())
    }

    /// Whether unknown `i` is prescribed.
    pub fn is_fixed(&self, i: usize) -> bool {
        self.fixed[i]
    }
}
