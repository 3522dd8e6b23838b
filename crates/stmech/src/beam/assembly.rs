//! Global assembly for the planar beam: the CSC pattern of the element connectivity, the map
//! from element entries to value positions (computed once per mesh) and the LU, whose storage
//! is allocated once and reused by every Newton iteration of every load or time step: banded
//! (the nodes are numbered along the beam, so the band is `6(p + 1) − 1` wide on any mesh).
//!
//! Prescribed unknowns (clamped or pinned ends) keep their reference value: their rows and
//! columns are replaced by those of the identity and their residual entries are zero.
//!
//! [`ElementPass`] computes the element terms of one pass over the mesh, in parallel (rayon)
//! for meshes of [`PARALLEL_MIN_ELEMENTS`] or more elements, and hands them to the caller in
//! mesh order, so every global sum is the serial one to the bit for any number of threads.

use super::element::{ElementError, ElementMatrix, MAX_DOFS};
use super::model::BeamModel;
use crate::discretize::pattern::CscPattern;
use crate::error::SolveError;
use crate::solve::linear::{BAND_LIMIT, BandedCsc, LinearSolver};
use rayon::prelude::*;

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
    /// Pattern and LU storage for `model`.
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
        // Nodes are numbered along the beam: the band is 6(p + 1) − 1 wide whatever the mesh,
        // and the banded LU is the cheapest choice even for the smallest meshes (10 quadratic
        // elements, 63 unknowns: ~8k flops against ~170k for the dense LU that
        // `LinearSolver::for_pattern` picks below 4 band widths).
        let (kl, ku) = BandedCsc::half_bandwidths(&pattern);
        let lu = if kl + ku < BAND_LIMIT {
            LinearSolver::Banded(BandedCsc::new(pattern, (kl, ku)))
        } else {
            LinearSolver::for_pattern(pattern)?
        };
        Ok(Self {
            positions,
            diag,
            values,
            lu,
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

    /// Puts 1 on the diagonal of prescribed unknowns and factorises the matrix (solves with
    /// `lu.solve_in_place`; prescribed entries of the right-hand side must be zero).
    pub fn factorize(&mut self) -> Result<(), SolveError> {
        for (i, &f) in self.fixed.iter().enumerate() {
            if f {
                self.values[self.diag[i]] = 1.0;
            }
        }
        self.lu.factorize(&self.values)
    }

    /// Whether unknown `i` is prescribed.
    pub fn is_fixed(&self, i: usize) -> bool {
        self.fixed[i]
    }
}

/// Meshes with at least this many elements have their element terms computed in parallel.
/// The element terms are only part of a step (28 % of the stepper's instructions, 45 % of the
/// slabs', the banded LU and its solves most of the rest: at most 1.16× and 1.29× on two
/// cores), and a pass costs ~0.25–1.4 µs per element against ~10 µs to wake the workers and
/// ~10 % more CPU time in total, so smaller meshes stay serial (`docs/verification.md` §B10).
pub const PARALLEL_MIN_ELEMENTS: usize = 256;

/// Elements per parallel batch: the buffers hold one batch (at most ~0.4 MB), whatever the
/// mesh size.
pub const PARALLEL_BATCH: usize = 512;

/// Elements handed to one rayon task at least.
const PARALLEL_GRAIN: usize = 16;

/// One element's terms: vector, matrix (if requested) and the kernel's verdict.
#[derive(Debug, Clone, Copy)]
struct ElementTerms {
    f: [f64; MAX_DOFS],
    k: ElementMatrix,
    result: Result<(), ElementError>,
}

impl Default for ElementTerms {
    fn default() -> Self {
        Self {
            f: [0.0; MAX_DOFS],
            k: [[0.0; MAX_DOFS]; MAX_DOFS],
            result: Ok(()),
        }
    }
}

/// Element-by-element passes over a mesh: the element terms are computed by a kernel (in
/// parallel batches on meshes of [`PARALLEL_MIN_ELEMENTS`] or more elements when rayon has
/// more than one thread) and added by the caller serially, in mesh order. The buffers are
/// allocated once, so a pass allocates nothing itself.
#[derive(Debug)]
pub struct ElementPass {
    elements: usize,
    buffer: Vec<ElementTerms>,
}

impl ElementPass {
    /// Passes over a mesh of `elements` elements.
    pub fn new(elements: usize) -> Self {
        let batch = if elements >= PARALLEL_MIN_ELEMENTS {
            elements.min(PARALLEL_BATCH)
        } else {
            0
        };
        Self {
            elements,
            buffer: vec![ElementTerms::default(); batch],
        }
    }

    /// Whether the next pass computes the element terms in parallel.
    pub fn is_parallel(&self) -> bool {
        !self.buffer.is_empty() && rayon::current_num_threads() > 1
    }

    /// Calls `kernel(e, f, k)` for every element `e` (`k` is `Some` if `tangent`; the kernel
    /// fills the leading `3(p+1)` entries) and then `add(e, f, k)` in the order
    /// `e = 0, 1, …`. Stops at the first element (in mesh order) whose kernel fails and returns
    /// it with the error; the elements before it have been added. The result does not depend
    /// on the number of threads: each element's terms come from the same kernel call, and the
    /// additions happen in the same order.
    pub fn run<K, A>(
        &mut self,
        tangent: bool,
        kernel: K,
        mut add: A,
    ) -> Result<(), (usize, ElementError)>
    where
        K: Fn(usize, &mut [f64; MAX_DOFS], Option<&mut ElementMatrix>) -> Result<(), ElementError>
            + Sync,
        A: FnMut(usize, &[f64; MAX_DOFS], Option<&ElementMatrix>),
    {
        if !self.is_parallel() {
            let mut f = [0.0; MAX_DOFS];
            let mut k = [[0.0; MAX_DOFS]; MAX_DOFS];
            for e in 0..self.elements {
                let km = if tangent { Some(&mut k) } else { None };
                kernel(e, &mut f, km).map_err(|err| (e, err))?;
                add(e, &f, tangent.then_some(&k));
            }
            return Ok(());
        }
        let batch = self.buffer.len();
        for first in (0..self.elements).step_by(batch) {
            let len = batch.min(self.elements - first);
            self.buffer[..len]
                .par_iter_mut()
                .with_min_len(PARALLEL_GRAIN)
                .enumerate()
                .for_each(|(j, out)| {
                    let km = if tangent { Some(&mut out.k) } else { None };
                    out.result = kernel(first + j, &mut out.f, km);
                });
            for (j, out) in self.buffer[..len].iter().enumerate() {
                out.result.map_err(|err| (first + j, err))?;
                add(first + j, &out.f, tangent.then_some(&out.k));
            }
        }
        Ok(())
    }
}
