//! The supernodal sparse LU of faer with the column ordering chosen here and the pattern of
//! `Aᵀ` built once (issue 29: the set-up of a 2000-element beam spent ≈ 0.35 s CPU in COLAMD
//! on a matrix whose numbering is already a band ordering, and every numeric factorisation
//! transposed the whole matrix, pattern and values, ≈ 8 % of its Newton time).
//!
//! The steps are those of `faer::sparse::linalg::lu::factorize_symbolic_lu` after its
//! ordering: the column elimination tree of `A` (the elimination tree of `AᵀA`) in the
//! ordering, its postorder, the column counts of the Cholesky factor of `AᵀA` (which bound
//! the factors of `PA = LU` for every row pivoting `P`, George & Ng 1987), and the supernodal
//! structure; the numeric factorisation and the solves are faer's supernodal ones. Given
//! COLAMD's ordering this is faer's own path, to the bit (test
//! `ordered_lu_with_colamds_ordering_is_faers_lu`).
//!
//! **The ordering.** The natural one (the caller's numbering) is taken when its bound on the
//! factors, `Σ_j c_j` with `c_j` the column counts above, is at most [`NATURAL_FILL_LIMIT`]
//! times `nnz(A)`: no ordering gives factors smaller than the matrix (the bound contains the
//! pattern of `A` for a zero-free diagonal), so the natural ordering's fill is then within
//! that factor of the least possible, and COLAMD's cost is saved. The space-time elements
//! number their frames in reverse Cuthill–McKee order, a band ordering; for chains (beams,
//! rods, pendulum chains) the bound holds. Otherwise COLAMD's ordering. The choice depends on
//! the pattern only, so results stay deterministic.

use crate::discretize::pattern::CscPattern;
use crate::error::SolveError;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::perm::PermRef;
use faer::sparse::linalg::lu::supernodal::{
    SupernodalLu, SymbolicSupernodalLu, factorize_supernodal_numeric_lu,
    factorize_supernodal_numeric_lu_scratch, factorize_supernodal_symbolic_lu,
    factorize_supernodal_symbolic_lu_scratch, solve_in_place_scratch,
};
use faer::sparse::linalg::{SymbolicSupernodalParams, colamd, qr};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

/// Supernodal LU of matrices of one pattern, columns eliminated in a given order.
pub(super) struct OrderedLu {
    n: usize,
    /// Column ordering: `col_fwd[k]` is the `k`-th column eliminated; `col_inv` its inverse.
    col_fwd: Vec<u32>,
    col_inv: Vec<u32>,
    symbolic: SymbolicSupernodalLu<u32>,
    numeric: SupernodalLu<u32, f64>,
    row_fwd: Vec<u32>,
    row_inv: Vec<u32>,
    /// The pattern of `Aᵀ` (rows sorted in each column) and, per entry, its position in `A`.
    at: SymbolicSparseColMat<u32>,
    at_src: Vec<u32>,
    at_values: Vec<f64>,
    factor_buf: MemBuffer,
    solve_buf: MemBuffer,
}

/// The natural ordering is taken when its bound on the factors is at most this many times
/// `nnz(A)` (see the module docs). Measured (bound / nnz, natural against COLAMD's): the
/// director-rod chains of the flexible and spatial-inverse examples 1.49–1.59 against
/// 1.30–1.38 (their `Σ c_j²`, a proxy for the flops, 1.2–1.5× COLAMD's; whole runs of a
/// 1000-element rod took the same CPU time in either ordering, COLAMD's cost saved in the
/// set-up); a planar frame of director beams (`01_bend_45`) 2.5 against 1.4 (`Σ c_j²` 3.5×)
/// and the helix roll-up (`04_helix_rollup`) 3.8 against 1.3 (10×), which take COLAMD's.
pub const NATURAL_FILL_LIMIT: f64 = 2.0;

/// The supernodal symbolic factorisation of `a` in the ordering `perm` (faer's steps, see
/// the module docs), or `None` if `accept` refuses the column counts (the bound on the
/// factors) of that ordering.
fn analyse(
    a: SymbolicSparseColMatRef<'_, u32>,
    at: SymbolicSparseColMatRef<'_, u32>,
    perm: PermRef<'_, u32>,
    stack: &mut MemStack,
    accept: impl FnOnce(&[u32]) -> bool,
) -> Result<Option<SymbolicSupernodalLu<u32>>, SolveError> {
    let n = a.ncols();
    let (mut etree, mut post) = (vec![0u32; n], vec![0u32; n]);
    let (mut col_counts, mut min_col) = (vec![0u32; n], vec![0u32; n]);
    let tree = qr::col_etree(a, Some(perm), &mut etree, stack);
    qr::postorder(&mut post, tree, stack);
    qr::column_counts_ata(
        &mut col_counts,
        &mut min_col,
        at,
        Some(perm),
        tree,
        &post,
        stack,
    );
    if !accept(&col_counts) {
        return Ok(None);
    }
    factorize_supernodal_symbolic_lu(
        a,
        Some(perm),
        &min_col,
        tree,
        &col_counts,
        stack,
        SymbolicSupernodalParams::default(),
    )
    .map(Some)
    .map_err(|e| SolveError::Factorization(format!("{e:?}")))
}

impl OrderedLu {
    /// Symbolic analysis of `a` (square, rows sorted and unique in each column) with the
    /// columns eliminated in the order `order` (a permutation of `0..n`: `order[k]` is
    /// eliminated `k`-th), or, for `None`, in the natural order or COLAMD's (see the module
    /// docs).
    ///
    /// # Errors
    /// `order` is not a permutation of the columns, or faer's analysis fails (out of memory,
    /// index overflow).
    pub(super) fn new(
        a: SymbolicSparseColMatRef<'_, u32>,
        order: Option<&[u32]>,
    ) -> Result<Self, SolveError> {
        let n = a.ncols();
        let nnz = a.row_idx().len();
        let bad = |what: &str| SolveError::Factorization(format!("sparse LU ordering: {what}"));
        let oom = || SolveError::Factorization("out of memory in the sparse LU".into());
        let (at, at_src) = transpose(a);
        let req = StackReq::any_of(&[
            qr::col_etree_scratch::<u32>(n, n),
            qr::postorder_scratch::<u32>(n),
            qr::column_counts_aat_scratch::<u32>(n, n),
            factorize_supernodal_symbolic_lu_scratch::<u32>(n, n),
            colamd::order_scratch::<u32>(n, n, nnz),
        ]);
        let mut mem = MemBuffer::try_new(req).map_err(|_| oom())?;
        let stack = MemStack::new(&mut mem);
        let perm_of = |order: &[u32]| -> Result<Vec<u32>, SolveError> {
            if order.len() != n {
                return Err(bad("length differs from the dimension"));
            }
            let mut inv = vec![u32::MAX; n];
            for (k, &c) in order.iter().enumerate() {
                let slot = inv
                    .get_mut(c as usize)
                    .ok_or_else(|| bad("column out of range"))?;
                if *slot != u32::MAX {
                    return Err(bad("column repeated"));
                }
                *slot = k as u32;
            }
            Ok(inv)
        };
        let mut natural = None;
        if order.is_none() {
            let id: Vec<u32> = (0..n as u32).collect();
            let perm = PermRef::new_checked(&id, &id, n);
            let small = |counts: &[u32]| {
                let bound: f64 = counts.iter().map(|&k| k as f64).sum();
                bound <= NATURAL_FILL_LIMIT * nnz as f64
            };
            if let Some(sym) = analyse(a, at.as_ref(), perm, stack, small)? {
                natural = Some((id.clone(), id, sym));
            }
        }
        let (col_fwd, col_inv, symbolic) = match natural {
            Some(found) => found,
            None => {
                let fwd = match order {
                    Some(order) => order.to_vec(),
                    None => {
                        let (mut fwd, mut inv) = (vec![0u32; n], vec![0u32; n]);
                        colamd::order(&mut fwd, &mut inv, a, Default::default(), stack)
                            .map_err(|e| SolveError::Factorization(format!("{e:?}")))?;
                        fwd
                    }
                };
                let inv = perm_of(&fwd)?;
                let perm = PermRef::new_checked(&fwd, &inv, n);
                let sym = analyse(a, at.as_ref(), perm, stack, |_| true)?
                    .ok_or_else(|| bad("refused"))?;
                (fwd, inv, sym)
            }
        };
        let par = Par::Seq;
        let factor_buf = MemBuffer::new(factorize_supernodal_numeric_lu_scratch::<u32, f64>(
            &symbolic,
            Default::default(),
        ));
        let solve_buf = MemBuffer::new(solve_in_place_scratch::<u32, f64>(n, 1, par));
        Ok(Self {
            n,
            col_fwd,
            col_inv,
            symbolic,
            numeric: SupernodalLu::new(),
            row_fwd: vec![0; n],
            row_inv: vec![0; n],
            at_values: vec![0.0; at_src.len()],
            at,
            at_src,
            factor_buf,
            solve_buf,
        })
    }

    /// The column ordering: `order()[k]` is the column eliminated `k`-th.
    #[cfg(test)]
    pub(super) fn order(&self) -> &[u32] {
        &self.col_fwd
    }

    /// Numeric factorisation of the matrix with pattern `a` (that of [`new`](Self::new)) and
    /// `values`.
    pub(super) fn factorize(
        &mut self,
        a: SymbolicSparseColMatRef<'_, u32>,
        values: &[f64],
    ) -> Result<(), SolveError> {
        for (v, &s) in self.at_values.iter_mut().zip(&self.at_src) {
            *v = values[s as usize];
        }
        let perm = PermRef::new_checked(&self.col_fwd, &self.col_inv, self.n);
        factorize_supernodal_numeric_lu(
            &mut self.row_fwd,
            &mut self.row_inv,
            &mut self.numeric,
            SparseColMatRef::new(a, values),
            SparseColMatRef::new(self.at.as_ref(), &self.at_values),
            perm,
            &self.symbolic,
            Par::Seq,
            MemStack::new(&mut self.factor_buf),
            Default::default(),
        )
        .map_err(|e| SolveError::Factorization(format!("{e:?}; the Jacobian is singular")))
    }

    /// Solves `A x = rhs` in place with the last factorisation.
    pub(super) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        let n = self.n;
        self.numeric.solve_in_place_with_conj(
            PermRef::new_checked(&self.row_fwd, &self.row_inv, n),
            PermRef::new_checked(&self.col_fwd, &self.col_inv, n),
            Conj::No,
            MatMut::from_column_major_slice_mut(rhs, n, 1),
            Par::Seq,
            MemStack::new(&mut self.solve_buf),
        );
    }
}

/// The pattern of `Aᵀ` (rows sorted in each column, as faer's transpose leaves them) and the
/// position in `A` of each of its entries.
fn transpose(a: SymbolicSparseColMatRef<'_, u32>) -> (SymbolicSparseColMat<u32>, Vec<u32>) {
    let n = a.ncols();
    let m = a.nrows();
    let mut ptr = vec![0u32; m + 1];
    for &r in a.row_idx() {
        ptr[r as usize + 1] += 1;
    }
    for i in 0..m {
        ptr[i + 1] += ptr[i];
    }
    let nnz = a.row_idx().len();
    let mut fill = ptr.clone();
    let (mut idx, mut src) = (vec![0u32; nnz], vec![0u32; nnz]);
    let cp = a.col_ptr();
    for c in 0..n {
        for k in cp[c] as usize..cp[c + 1] as usize {
            let r = a.row_idx()[k] as usize;
            let at = fill[r] as usize;
            idx[at] = c as u32;
            src[at] = k as u32;
            fill[r] += 1;
        }
    }
    (SymbolicSparseColMat::new_checked(n, m, ptr, None, idx), src)
}

/// A CSC pattern as faer's 32-bit symbolic matrix.
pub(super) fn narrow(pattern: &CscPattern) -> Result<SymbolicSparseColMat<u32>, SolveError> {
    let n = pattern.n;
    let narrow = |v: &[usize]| -> Result<Vec<u32>, SolveError> {
        v.iter()
            .map(|&i| u32::try_from(i))
            .collect::<Result<_, _>>()
            .map_err(|_| {
                SolveError::Factorization(format!(
                    "{} nonzeros exceed the 32-bit indices of the sparse LU",
                    pattern.nnz()
                ))
            })
    };
    Ok(SymbolicSparseColMat::new_checked(
        n,
        n,
        narrow(&pattern.col_ptr)?,
        None,
        narrow(&pattern.row_idx)?,
    ))
}
