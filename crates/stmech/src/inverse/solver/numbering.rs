//! Global numbering of the space-time unknowns and equations: `(x, v)` at every node with
//! `t > 0` (`2N` per node, time level by time level), then `F` at every time node `t > 0` (`N`
//! per node, inverse mode). The equations `R1`, `R2` of a node and `R3` of a time node have the
//! numbers of the unknowns `x`, `v` and `F` of the same node.

use super::assembly::{Assembly, Layout, Mode};
use crate::discretize::pattern::SKIP;
use crate::inverse::body::InverseBody;

/// The global numbering of [`Assembly`] (time level by time level).
pub(super) struct GlobalLayout<const N: usize> {
    ns1: usize,
    n_field: usize,
    n: usize,
}

impl<const N: usize> Layout for GlobalLayout<N> {
    fn node(&self, i: usize, j: usize) -> usize {
        dof::<N>(self.ns1, i, j, 0)
    }
    fn force(&self, j: usize) -> usize {
        self.n_field + N * (j - 1)
    }
    fn len(&self) -> usize {
        self.n
    }
}

impl<B: InverseBody<N>, const N: usize> Assembly<'_, B, N> {
    /// The global numbering as a [`Layout`].
    pub(super) fn layout(&self) -> GlobalLayout<N> {
        GlobalLayout {
            ns1: self.ns1(),
            n_field: self.n_field,
            n: self.n,
        }
    }

    pub(super) fn ns1(&self) -> usize {
        self.mesh.elements_s + 1
    }

    /// Global unknown of node `(i, j)`, component `c` (`0..2N`), or `SKIP` at `j = 0`.
    pub(super) fn dof(ns1: usize, i: usize, j: usize, c: usize) -> usize {
        dof::<N>(ns1, i, j, c)
    }

    pub(super) fn f_dof(&self, j: usize, c: usize) -> usize {
        if j == 0 {
            SKIP as usize
        } else {
            self.n_field + (j - 1) * N + c
        }
    }

    /// Boundary entries `(row, col)`: actuation, tip law, servo.
    pub(super) fn boundary_entries(&self, out: &mut Vec<(usize, usize)>) {
        let ns1 = self.ns1();
        let ns = self.mesh.elements_s;
        for et in 0..self.mesh.elements_t {
            for ja in [et, et + 1] {
                for jb in [et, et + 1] {
                    for c in 0..N {
                        let tip_row = Self::dof(ns1, ns, ja, N + c);
                        if self.beam.tip_mass().is_some() {
                            out.push((tip_row, Self::dof(ns1, ns, jb, N + c)));
                        }
                        if B::NONLINEAR_TIP {
                            for d in 0..2 * N {
                                out.push((tip_row, Self::dof(ns1, ns, jb, d)));
                            }
                        }
                        if let Mode::Inverse(_) = self.mode {
                            out.push((Self::dof(ns1, 0, ja, N + c), self.f_dof(jb, c)));
                            let at = if self.hold[c] { 0 } else { ns };
                            out.push((self.f_dof(ja, c), Self::dof(ns1, at, jb, c)));
                        }
                    }
                }
            }
        }
        out.retain(|&(r, c)| r != SKIP as usize && c != SKIP as usize);
    }
}

/// Global unknown of node `(i, j)`, component `c` (`0..2N`), or `SKIP` at `j = 0`.
pub(super) fn dof<const N: usize>(ns1: usize, i: usize, j: usize, c: usize) -> usize {
    if j == 0 {
        SKIP as usize
    } else {
        ((j - 1) * ns1 + i) * 2 * N + c
    }
}

/// Global unknowns of the `8N` local dofs of element `(es, et)` into `d`.
pub(super) fn element_dofs<const N: usize>(ns1: usize, es: usize, et: usize, d: &mut [usize]) {
    for a in 0..4 {
        let (i, j) = (es + a % 2, et + a / 2);
        for c in 0..2 * N {
            d[2 * N * a + c] = dof::<N>(ns1, i, j, c);
        }
    }
}
