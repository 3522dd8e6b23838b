//! The discrete space-time solution on the grid, and what is derived from it (energy, VTK
//! snapshots, stretch, mesh ratio at the solution).

use super::{BeamModel, NewtonHistory, SpaceTimeMesh, TipLaw};
use crate::beam::section::{ReferenceStrains, strains};
use crate::inverse::body::InverseBody;
use crate::inverse::element::BeamSpaceTimeElement;
use crate::inverse::mesh_ratio::MeshRatio;

/// The discrete space-time solution on the grid, for the body `B` (the planar beam by
/// default; the string of issue 17 is [`crate::string::StringModel`]).
#[derive(Clone, Debug)]
pub struct SpaceTimeSolution<B = BeamModel, const N: usize = 3> {
    /// The model solved (the beam, or the string: the field keeps its historical name).
    pub beam: B,
    /// The mesh.
    pub mesh: SpaceTimeMesh,
    /// Space nodes `s_i` (m).
    pub s: Vec<f64>,
    /// Time nodes `t_j` (s).
    pub t: Vec<f64>,
    /// `x` at node `(i, j)` (planar beam: `(r1, r2, θ)`), index `j (n_s + 1) + i`.
    pub x: Vec<[f64; N]>,
    /// `v = ∂t x` at node `(i, j)` (the Galerkin velocity field).
    pub v: Vec<[f64; N]>,
    /// Actuation `F` applied to the body at `s = 0` per time node, global frame (`F = −f` of
    /// `[I]` Eq. 3); planar beam: `(f_x, f_y, m)` in N, N, N·m. For the spatial beam the
    /// generalised force conjugate to `x` (its moment part `Tᵀ m`:
    /// [`crate::inverse::spatial`] converts it).
    pub actuation: Vec<[f64; N]>,
    /// Newton history.
    pub newton: NewtonHistory,
}

impl<B: InverseBody<N>, const N: usize> SpaceTimeSolution<B, N> {
    /// `x` at space node `i`, time node `j`.
    pub fn x_at(&self, i: usize, j: usize) -> [f64; N] {
        self.x[j * (self.mesh.elements_s + 1) + i]
    }

    /// `v` at space node `i`, time node `j`.
    pub fn v_at(&self, i: usize, j: usize) -> [f64; N] {
        self.v[j * (self.mesh.elements_s + 1) + i]
    }

    /// `(x, v)` at `(s, t)`, bilinear in the element that contains it (the nearest one
    /// outside the domain).
    pub fn field_at(&self, s: f64, t: f64) -> ([f64; N], [f64; N]) {
        let cell = |z: f64, z0: f64, h: f64, n: usize| {
            let k = (((z - z0) / h).floor().max(0.0) as usize).min(n - 1);
            (k, ((z - z0 - k as f64 * h) / h).clamp(0.0, 1.0))
        };
        let (i, a) = cell(s, 0.0, self.hs(), self.mesh.elements_s);
        let (j, b) = cell(t, self.mesh.t_start, self.mesh.ht(), self.mesh.elements_t);
        let w = [(1.0 - a) * (1.0 - b), a * (1.0 - b), (1.0 - a) * b, a * b];
        let nodes = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)];
        let (mut x, mut v) = ([0.0; N], [0.0; N]);
        for (&(ii, jj), &wk) in nodes.iter().zip(&w) {
            let (xn, vn) = (self.x_at(ii, jj), self.v_at(ii, jj));
            for c in 0..N {
                x[c] += wk * xn[c];
                v[c] += wk * vn[c];
            }
        }
        (x, v)
    }

    /// `(x, v)` at `(s, t)` by tensor-product cubic Lagrange interpolation through the 4 × 4
    /// nodes around the point (stencils shifted inwards at the boundaries; bilinear,
    /// [`Self::field_at`], on meshes with fewer than 3 elements in a direction). Exact for
    /// bicubic fields; smooth fields are interpolated to `O(h⁴)` (bilinear: `O(h²)`), which is
    /// what a Newton start on a finer mesh needs: the residual sees second differences of
    /// the interpolation error.
    pub fn field_at_cubic(&self, s: f64, t: f64) -> ([f64; N], [f64; N]) {
        let (ns, nt) = (self.mesh.elements_s, self.mesh.elements_t);
        if ns < 3 || nt < 3 {
            return self.field_at(s, t);
        }
        let (i0, ws) = cubic_stencil(s / self.hs(), ns);
        let (j0, wt) = cubic_stencil((t - self.mesh.t_start) / self.mesh.ht(), nt);
        let (mut x, mut v) = ([0.0; N], [0.0; N]);
        for (b, wb) in wt.iter().enumerate() {
            for (a, wa) in ws.iter().enumerate() {
                let w = wa * wb;
                let (xn, vn) = (self.x_at(i0 + a, j0 + b), self.v_at(i0 + a, j0 + b));
                for c in 0..N {
                    x[c] += w * xn[c];
                    v[c] += w * vn[c];
                }
            }
        }
        (x, v)
    }

    /// The actuation at `t` by cubic Lagrange interpolation in time (see
    /// [`Self::field_at_cubic`]; linear, [`Self::actuation_at`], with fewer than 3 elements).
    pub fn actuation_at_cubic(&self, t: f64) -> [f64; N] {
        let nt = self.mesh.elements_t;
        if nt < 3 {
            return self.actuation_at(t);
        }
        let (j0, w) = cubic_stencil((t - self.mesh.t_start) / self.mesh.ht(), nt);
        let mut f = [0.0; N];
        for (b, wb) in w.iter().enumerate() {
            for c in 0..N {
                f[c] += wb * self.actuation[j0 + b][c];
            }
        }
        f
    }

    /// Tip pose `x(L, t_j)`.
    pub fn tip(&self, j: usize) -> [f64; N] {
        self.x_at(self.mesh.elements_s, j)
    }

    /// The actuation as a function of time: the piecewise linear finite element interpolant
    /// (constant outside the time domain). This is what a forward solver should apply.
    pub fn actuation_at(&self, t: f64) -> [f64; N] {
        interpolate(&self.t, &self.actuation, t)
    }

    /// `(t_j, F_j)` samples of the actuation.
    pub fn actuation_samples(&self) -> Vec<(f64, [f64; N])> {
        self.t
            .iter()
            .copied()
            .zip(self.actuation.iter().copied())
            .collect()
    }

    /// Space step (m).
    pub fn hs(&self) -> f64 {
        self.beam.length() / self.mesh.elements_s as f64
    }
}

impl SpaceTimeSolution<BeamModel> {
    /// Total energy (kinetic + strain, plus tip kinetic energy) at time node `j` (J):
    /// `½ ∫ v·A v ds` exactly for the linear `v`, strain energy with the element's one-point
    /// rule.
    pub fn energy(&self, j: usize) -> f64 {
        let el =
            BeamSpaceTimeElement::new(self.beam.section, self.beam.law, self.hs(), self.mesh.ht());
        let a = [
            self.beam.section.rho_a,
            self.beam.section.rho_a,
            self.beam.section.rho_i,
        ];
        let hs = self.hs();
        let mut e = 0.0;
        for i in 0..self.mesh.elements_s {
            let (va, vb) = (self.v_at(i, j), self.v_at(i + 1, j));
            for c in 0..3 {
                e += 0.5 * a[c] * hs / 3.0 * (va[c] * va[c] + va[c] * vb[c] + vb[c] * vb[c]);
            }
            e += el.strain_energy(hs, &self.x_at(i, j), &self.x_at(i + 1, j));
        }
        if let TipLaw::Mass { mass, inertia } = self.beam.tip {
            let v = self.v_at(self.mesh.elements_s, j);
            e += 0.5 * (mass * (v[0] * v[0] + v[1] * v[1]) + inertia * v[2] * v[2]);
        }
        e
    }

    /// The beam at time node `j` for VTK output: node poses and the section forces
    /// `[N, Q, M]` of each element at its midpoint (the stiffness quadrature point).
    pub fn snapshot(&self, j: usize) -> crate::io::vtk::BeamSnapshot {
        let ns1 = self.mesh.elements_s + 1;
        let hs = self.hs();
        let resultants = (0..self.mesh.elements_s)
            .map(|i| {
                let (a, b) = (self.x_at(i, j), self.x_at(i + 1, j));
                let e = strains(
                    [(b[0] - a[0]) / hs, (b[1] - a[1]) / hs],
                    0.5 * (a[2] + b[2]),
                    (b[2] - a[2]) / hs,
                );
                let r = self
                    .beam
                    .law
                    .resultants(&self.beam.section, e, ReferenceStrains::STRAIGHT);
                [r.axial, r.shear, r.moment]
            })
            .collect();
        crate::io::vtk::BeamSnapshot {
            t: self.t[j],
            positions: (0..ns1)
                .map(|i| [self.x_at(i, j)[0], self.x_at(i, j)[1]])
                .collect(),
            theta: (0..ns1).map(|i| self.x_at(i, j)[2]).collect(),
            s: self.s.clone(),
            resultants,
        }
    }

    /// Largest stretch `ν` over all elements and time nodes.
    pub fn max_stretch(&self) -> f64 {
        let hs = self.hs();
        let mut m = f64::NEG_INFINITY;
        for j in 0..self.t.len() {
            for i in 0..self.mesh.elements_s {
                let (a, b) = (self.x_at(i, j), self.x_at(i + 1, j));
                let e = strains(
                    [(b[0] - a[0]) / hs, (b[1] - a[1]) / hs],
                    0.5 * (a[2] + b[2]),
                    (b[2] - a[2]) / hs,
                );
                m = m.max(e.nu);
            }
        }
        m
    }

    /// The mesh-ratio condition re-evaluated at the largest stretch of the solution (the log
    /// law's axial wave slows down under tension).
    pub fn mesh_ratio_at_solution(&self) -> MeshRatio {
        MeshRatio::evaluate(
            &self.beam.section,
            self.beam.law,
            self.max_stretch().max(1.0),
            self.hs(),
            self.mesh.ht(),
        )
    }
}

/// Piecewise linear interpolation of `y` over increasing `t`, constant outside.
pub fn interpolate<const N: usize>(t: &[f64], y: &[[f64; N]], at: f64) -> [f64; N] {
    let n = t.len();
    if at <= t[0] {
        return y[0];
    }
    if at >= t[n - 1] {
        return y[n - 1];
    }
    let k = t.partition_point(|&x| x <= at) - 1;
    let w = (at - t[k]) / (t[k + 1] - t[k]);
    std::array::from_fn(|c| (1.0 - w) * y[k][c] + w * y[k + 1][c])
}

/// First node and weights of the 4-point Lagrange stencil at position `u` (in steps) on nodes
/// `0..=n`, `n ≥ 3`: the nodes `⌊u⌋ − 1 ..= ⌊u⌋ + 2`, shifted to stay inside.
fn cubic_stencil(u: f64, n: usize) -> (usize, [f64; 4]) {
    let k = u.floor().max(0.0) as usize;
    let base = k.saturating_sub(1).min(n - 3);
    let xi = u - base as f64;
    let w = [
        -(xi - 1.0) * (xi - 2.0) * (xi - 3.0) / 6.0,
        xi * (xi - 2.0) * (xi - 3.0) / 2.0,
        -xi * (xi - 1.0) * (xi - 3.0) / 2.0,
        xi * (xi - 1.0) * (xi - 2.0) / 6.0,
    ];
    (base, w)
}
