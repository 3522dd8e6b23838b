//! The linear stage of a Newton step with a stored Jacobian: where the Jacobian is stored and
//! how `J du = r` is solved (faer's general sparse LU; the default sideways elimination of
//! inverse problems is streamed and stores no Jacobian, [`crate::inverse::sideways`]).

use super::assembly::Assembly;
use super::{InverseError, LinearSolverKind};
use crate::discretize::pattern::{CscPattern, SKIP};
use crate::error::SolveError;
use crate::solve::linear::SparseLu;
use crate::solve::newton::assembled::group_floor;

/// Where the assembler puts Jacobian entries (global numbering of [`Assembly`]).
pub(super) trait JacobianSink {
    /// Zeroes the stored entries.
    fn clear(&mut self);
    /// Adds element `(es, et)`'s matrix (row-major, `8N × 8N`).
    fn add_element(&mut self, es: usize, et: usize, ke: &[f64]);
    /// Adds `v` to entry `(row, col)` (neither is `SKIP`).
    fn add(&mut self, row: usize, col: usize, v: f64);
}

/// A Jacobian store that can also solve the Newton system.
pub(super) trait LinearStage: JacobianSink {
    /// Solves `J du = r`; returns `max |J du − r|` where the method knows it (else 0).
    fn solve(&mut self, r: &[f64], du: &mut [f64]) -> Result<f64, SolveError>;
    /// Stored Jacobian entries.
    fn stored(&self) -> usize;
    /// Which solver this is.
    fn kind(&self) -> LinearSolverKind;
    /// The floor basis `out_i = Σ_j |J_ij| X_g(j)` of the stored Jacobian at `x`
    /// ([`group_floor`], `groups` the group of every unknown).
    fn floor_basis(
        &self,
        x: &[f64],
        groups: &[u8],
        n_groups: usize,
        scratch: &mut Vec<f64>,
        out: &mut [f64],
    );
}

/// General sparse storage and faer's sparse LU (symbolic analysis once per mesh).
pub(super) struct CscStage {
    pattern: CscPattern,
    /// Element entry positions, `(8N)²` per element.
    el_pos: Vec<u32>,
    /// Local dofs of an element, `8N`.
    nd: usize,
    elements_s: usize,
    values: Vec<f64>,
    lu: SparseLu,
}

impl CscStage {
    pub(super) fn new<B: crate::inverse::body::InverseBody<N>, const N: usize>(
        asm: &Assembly<'_, B, N>,
    ) -> Result<Self, InverseError> {
        let mut bnd = Vec::new();
        asm.boundary_entries(&mut bnd);
        let ns1 = asm.ns1();
        let nd = 8 * N;
        let (nes, net) = (asm.mesh.elements_s, asm.mesh.elements_t);
        let dofs = move |es: usize, et: usize| {
            let mut d = vec![0usize; nd];
            super::numbering::element_dofs::<N>(ns1, es, et, &mut d);
            d
        };
        let el_entries = || {
            (0..net).flat_map(move |et| {
                (0..nes).flat_map(move |es| {
                    let d = dofs(es, et);
                    (0..nd).flat_map(move |r| {
                        let d = d.clone();
                        (0..nd).filter_map(move |c| {
                            (d[r] != SKIP as usize && d[c] != SKIP as usize).then_some((d[r], d[c]))
                        })
                    })
                })
            })
        };
        let pattern = CscPattern::from_entries(asm.n, || el_entries().chain(bnd.iter().copied()));
        let mut el_pos = Vec::with_capacity(crate::math::reserve(nes.saturating_mul(net), nd * nd));
        for et in 0..net {
            for es in 0..nes {
                let d = dofs(es, et);
                for r in 0..nd {
                    for c in 0..nd {
                        el_pos.push(if d[r] == SKIP as usize || d[c] == SKIP as usize {
                            SKIP
                        } else {
                            pattern.position(d[r], d[c]) as u32
                        });
                    }
                }
            }
        }
        let lu = SparseLu::new(pattern.clone())?;
        Ok(Self {
            values: vec![0.0; pattern.nnz()],
            pattern,
            el_pos,
            nd,
            elements_s: nes,
            lu,
        })
    }
}

impl JacobianSink for CscStage {
    fn clear(&mut self) {
        self.values.fill(0.0);
    }

    fn add_element(&mut self, es: usize, et: usize, ke: &[f64]) {
        let nd2 = self.nd * self.nd;
        let base = (et * self.elements_s + es) * nd2;
        let pos = &self.el_pos[base..base + nd2];
        for (p, v) in pos.iter().zip(ke) {
            if *p != SKIP {
                self.values[*p as usize] += v;
            }
        }
    }

    fn add(&mut self, row: usize, col: usize, v: f64) {
        self.values[self.pattern.position(row, col)] += v;
    }
}

impl LinearStage for CscStage {
    fn solve(&mut self, r: &[f64], du: &mut [f64]) -> Result<f64, SolveError> {
        self.lu.factorize(&self.values)?;
        du.copy_from_slice(r);
        self.lu.solve_in_place(du);
        Ok(0.0)
    }

    fn stored(&self) -> usize {
        self.pattern.nnz()
    }

    fn kind(&self) -> LinearSolverKind {
        LinearSolverKind::SparseLu
    }

    fn floor_basis(
        &self,
        x: &[f64],
        groups: &[u8],
        n_groups: usize,
        scratch: &mut Vec<f64>,
        out: &mut [f64],
    ) {
        group_floor(
            &self.pattern,
            &self.values,
            x,
            groups,
            n_groups,
            scratch,
            out,
        );
    }
}

/// The linear stage of an inverse solve with a stored Jacobian (sparse LU; the sideways
/// elimination is streamed, [`crate::inverse::sideways`]).
pub(super) fn inverse_stage<B: crate::inverse::body::InverseBody<N>, const N: usize>(
    asm: &Assembly<'_, B, N>,
) -> Result<CscStage, InverseError> {
    CscStage::new(asm)
}
