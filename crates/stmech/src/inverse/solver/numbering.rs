//! Global numbering of the space-time unknowns and equations: `(x, v)` at every node with
//! `t > 0` (6 per node, time level by time level), then `F` at every time node `t > 0` (3 per
//! node, inverse mode). The equations `R1`, `R2` of a node and `R3` of a time node have the
//! numbers of the unknowns `x`, `v` and `F` of the same node.

use super::assembly::{Assembly, Layout, Mode};
use crate::discretize::pattern::SKIP;
use crate::inverse::body::InverseBody;
use crate::inverse::element::N_DOF;

/// The global numbering of [`Assembly`] (time level by time level).
pub(super) struct GlobalLayout {
    ns1: usize,
    n_field: usize,
    n: usize,
}

impl Layout for GlobalLayout {
    fn node(&self, i: usize, j: usize) -> usize {
        dof(self.ns1, i, j, 0)
    }
    fn force(&self, j: usize) -> usize {
        self.n_field + 3 * (j - 1)
    }
    fn len(&self) -> usize {
        self.n
    }
}

impl<B: InverseBody> Assembly<'_, B> {
    /// The global numbering as a [`Layout`].
    pub(super) fn layout(&self) -> GlobalLayout {
        GlobalLayout {
            ns1: self.ns1(),
            n_field: self.n_field,
            n: self.n,
        }
    }

    pub(super) fn ns1(&self) -> usize {
        self.mesh.elements_s + 1
    }

    /// Global unknown of node `(i, j)`, component `c` (0..6), or `SKIP` at `j = 0`.
    pub(super) fn dof(ns1: usize, i: usize, j: usize, c: usize) -> usize {
        dof(ns1, i, j, c)
    }

    pub(super) fn f_dof(&self, j: usize, c: usize) -> usize {
        if j == 0 {
            SKIP as usize
        } else {
            self.n_field + (j - 1) * 3 + c
        }
    }

    pub(super) fn element_dofs(ns1: usize, es: usize, et: usize) -> [usize; N_DOF] {
        element_dofs(ns1, es, et)
    }

    /// Boundary entries `(row, col)`: actuation, tip mass, servo.
    pub(super) fn boundary_entries(&self, out: &mut Vec<(usize, usize)>) {
        let ns1 = self.ns1();
        let ns = self.mesh.elements_s;
        for et in 0..self.mesh.elements_t {
            for ja in [et, et + 1] {
                for jb in [et, et + 1] {
                    for c in 0..3 {
                        let tip_row = Self::dof(ns1, ns, ja, 3 + c);
                        if self.beam.tip_mass().is_some() {
                            out.push((tip_row, Self::dof(ns1, ns, jb, 3 + c)));
                        }
                        if let Mode::Inverse(_) = self.mode {
                            out.push((Self::dof(ns1, 0, ja, 3 + c), self.f_dof(jb, c)));
                            out.push((self.f_dof(ja, c), Self::dof(ns1, ns, jb, c)));
                        }
                    }
                }
            }
        }
        out.retain(|&(r, c)| r != SKIP as usize && c != SKIP as usize);
    }
}

/// Global unknown of node `(i, j)`, component `c` (0..6), or `SKIP` at `j = 0`.
pub(super) fn dof(ns1: usize, i: usize, j: usize, c: usize) -> usize {
    if j == 0 {
        SKIP as usize
    } else {
        ((j - 1) * ns1 + i) * 6 + c
    }
}

/// Global unknowns of the 24 local dofs of element `(es, et)`.
pub(super) fn element_dofs(ns1: usize, es: usize, et: usize) -> [usize; N_DOF] {
    let mut d = [0; N_DOF];
    for a in 0..4 {
        let (i, j) = (es + a % 2, et + a / 2);
        for c in 0..6 {
            d[6 * a + c] = dof(ns1, i, j, c);
        }
    }
    d
}
