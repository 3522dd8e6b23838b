//! Continuous space-time Galerkin discretisation of one time block, [P, Eq. (23)].
//!
//! On a block `[t₀, t₀ + n_el h]` with Lagrange shape functions `M^A(t)` of order `p`, the
//! fields `q_h = M^B q_B`, `v_h = M^B v_B`, `λ_h = M^B λ_B` give the residuals (written with
//! the velocity `v = 𝕄⁻¹p`, which has the same discrete solutions, see [`crate::model::system`])
//!
//! ```text
//! R_v^A = ∫ M^A (q̇_h − v_h) dt                       (tested with δπ_A)
//! R_q^A = ∫ M^A (𝕄 v̇_h + G(q_h)ᵀ λ_h − f(q_h, t)) dt  (tested with δq_A)
//! R_λ^A = ∫ M^A Φ(q_h) dt                             (tested with δλ_A)
//! ```
//!
//! The initial values `q_0, v_0` are essential conditions: their test functions vanish
//! [P, Eq. (13), (15)]. The initial multiplier `λ_0` is prescribed as well, by the
//! acceleration-level constraint `Φ̈(0) = 0` (see [`consistent_multiplier`]), and its test
//! function is dropped. Keeping `λ_0` unknown with its test function `M^0` would impose the
//! `n + 1` equations `∫M^A Φ(q_h) = 0, A = 0..n` on only `n` nodal configurations: at rest
//! (`λ = 0`) the linearised rows are dependent and the Jacobian is singular (observed, and shown
//! in `docs/theory.md`). The momentum flux terms at `t₀` and `T` of Eq. (10) drop out of the
//! integrated-by-parts form (11).
//!
//! Tangent blocks between element nodes `A`, `B` (`c = ∫M^A M^B`, `d = ∫M^A Ṁ^B`):
//!
//! ```text
//!            q_B          v_B          λ_B
//! R_v^A   [ d I          −c I           0    ]
//! R_q^A   [ ∫M^A M^B K   d 𝕄       ∫M^A M^B Gᵀ]
//! R_λ^A   [ ∫M^A M^B G    0            0    ]
//! ```
//!
//! Unknowns are numbered node by node (`q, v, λ` per node), so the matrix is block banded with
//! bandwidth `p` nodes; rows are paired with unknowns (`R_v` ↔ `v`, `R_q` ↔ `q`, `R_λ` ↔ `λ`).

use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::discretize::pattern::{CscPattern, SKIP};
use crate::model::{ConstrainedSystem, PointEval};

/// Number of Gauss points per (sub-)interval for order `p`: exact for the polynomial terms
/// `M^A λ_h ∂Φ/∂q(q_h)` and `M^A Φ(q_h)` of degree `3p` (director constraints are quadratic).
pub fn default_quadrature_points(order: usize) -> usize {
    (3 * order + 2).div_ceil(2)
}

/// Sparse system of one time block: pattern, element maps, and assembly.
pub struct SpaceTimeBlock<'s, S: ConstrainedSystem + ?Sized> {
    sys: &'s S,
    basis: LagrangeBasis,
    quad: GaussLegendre,
    n_el: usize,
    h: f64,
    nq: usize,
    nl: usize,
    nd: usize,
    /// Entries per node pair `(A, B)` in the element template.
    nt: usize,
    pattern: CscPattern,
    /// `positions[e * (p+1)² nt + (A (p+1) + B) nt + k]`: matrix position or [`SKIP`].
    positions: Vec<u32>,
    mass: Vec<(usize, usize, f64)>,
    breakpoints: Vec<f64>,
    // scratch
    ev: PointEval,
    elem_vals: Vec<f64>,
    elem_res: Vec<f64>,
    elem_mag: Vec<f64>,
    phi_mag: Vec<f64>,
    /// Magnitudes of the terms of the last residual and the row groups (the Newton stop).
    mag: Vec<f64>,
    groups: Vec<u8>,
    fields: Vec<f64>,
    n_buf: Vec<f64>,
    dn_buf: Vec<f64>,
}

/// Statistics of the assembled system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSize {
    /// Number of unknowns.
    pub unknowns: usize,
    /// Stored non-zeros of the Jacobian.
    pub nnz: usize,
}

impl<'s, S: ConstrainedSystem + ?Sized> SpaceTimeBlock<'s, S> {
    /// Builds pattern and element maps for `n_el` elements of length `h` and order `order`,
    /// with `quad_points` Gauss points per interval.
    ///
    /// # Panics
    /// If `order == 0`, `n_el == 0` or the system exceeds `u32` positions (callers validate).
    pub fn new(sys: &'s S, order: usize, n_el: usize, h: f64, quad_points: usize) -> Self {
        assert!(n_el > 0 && order > 0 && quad_points > 0);
        let nq = sys.n_q();
        let nl = sys.n_lambda();
        let nd = 2 * nq + nl;
        let mass = sys.mass().to_vec();
        let nt = 2 * nq + mass.len() + sys.k_pattern().len() + 2 * sys.g_pattern().len();
        let np = order + 1;
        let n_unknowns = n_el * order * nd;
        // node 0 is fully prescribed (q₀, v₀, λ₀)
        let unknown =
            |node: usize, c: usize| -> Option<usize> { (node > 0).then(|| (node - 1) * nd + c) };
        let template = crate::discretize::pattern::node_pair_template(sys);
        debug_assert_eq!(template.len(), nt);

        let template_ref = &template;
        let entries = || {
            (0..n_el).flat_map(move |el| {
                let template = template_ref;
                (0..np * np).flat_map(move |ab| {
                    let (a, b) = (el * order + ab / np, el * order + ab % np);
                    template
                        .iter()
                        .filter_map(move |&(r, c)| Some((unknown(a, r)?, unknown(b, c)?)))
                })
            })
        };
        let pattern = CscPattern::from_entries(n_unknowns, entries);
        assert!(
            pattern.nnz() < SKIP as usize,
            "system too large for 32-bit positions"
        );
        let mut positions = Vec::with_capacity(n_el * np * np * nt);
        for el in 0..n_el {
            for ab in 0..np * np {
                let (a, b) = (el * order + ab / np, el * order + ab % np);
                for &(r, c) in &template {
                    positions.push(match (unknown(a, r), unknown(b, c)) {
                        (Some(row), Some(col)) => pattern.position(row, col) as u32,
                        _ => SKIP,
                    });
                }
            }
        }
        Self {
            sys,
            basis: LagrangeBasis::new(order),
            quad: GaussLegendre::new(quad_points),
            n_el,
            h,
            nq,
            nl,
            nd,
            nt,
            pattern,
            positions,
            mass,
            breakpoints: sys.breakpoints(),
            ev: sys.new_point_eval(),
            elem_vals: vec![0.0; np * np * nt],
            elem_res: vec![0.0; np * nd],
            elem_mag: vec![0.0; np * nd],
            phi_mag: vec![0.0; nl],
            mag: vec![0.0; n_el * order * nd],
            groups: crate::discretize::petrov_galerkin::slot_groups(sys, nq, nl, n_el * order),
            fields: vec![0.0; 2 * nd],
            n_buf: vec![0.0; np],
            dn_buf: vec![0.0; np],
        }
    }

    /// Sparsity pattern of the Jacobian.
    pub fn pattern(&self) -> &CscPattern {
        &self.pattern
    }

    /// Unknowns and non-zeros.
    pub fn size(&self) -> BlockSize {
        BlockSize {
            unknowns: self.pattern.n,
            nnz: self.pattern.nnz(),
        }
    }

    /// Number of time nodes `n_el p + 1`.
    pub fn n_nodes(&self) -> usize {
        self.n_el * self.basis.order() + 1
    }

    /// Lagrange order `p`.
    pub fn order(&self) -> usize {
        self.basis.order()
    }

    /// Values per node `2 n_q + n_λ`.
    pub fn node_dofs(&self) -> usize {
        self.nd
    }

    /// Writes the nodal state (`n_nodes × node_dofs`, node-major) from the initial values
    /// `(q0, v0, λ0)` and the unknown vector `x` (all later nodes).
    pub fn nodal_from_unknowns(
        &self,
        q0: &[f64],
        v0: &[f64],
        l0: &[f64],
        x: &[f64],
        nodal: &mut [f64],
    ) {
        let (nq, nd) = (self.nq, self.nd);
        nodal[..nq].copy_from_slice(q0);
        nodal[nq..2 * nq].copy_from_slice(v0);
        nodal[2 * nq..nd].copy_from_slice(l0);
        nodal[nd..].copy_from_slice(x);
    }

    /// Inverse of [`nodal_from_unknowns`](Self::nodal_from_unknowns).
    pub fn unknowns_from_nodal(&self, nodal: &[f64], x: &mut [f64]) {
        x.copy_from_slice(&nodal[self.nd..]);
    }

    /// Quadrature sub-intervals of element `[ta, tb]`, split at load breakpoints.
    fn sub_intervals(&self, ta: f64, tb: f64, out: &mut Vec<(f64, f64)>) {
        crate::basis::quadrature::split_at_breakpoints(&self.breakpoints, ta, tb, out);
    }

    /// Assembles the residual `r` (length = unknowns) at the nodal state `nodal` on the block
    /// starting at `t0`, and, if `values` is given, the Jacobian values in pattern order.
    pub fn assemble(
        &mut self,
        t0: f64,
        nodal: &[f64],
        r: &mut [f64],
        mut values: Option<&mut [f64]>,
    ) {
        let (nq, nl, nd, nt) = (self.nq, self.nl, self.nd, self.nt);
        let p = self.basis.order();
        let np = p + 1;
        let h = self.h;
        r.fill(0.0);
        self.mag.fill(0.0);
        if let Some(v) = values.as_deref_mut() {
            v.fill(0.0);
        }
        let tangent = values.is_some();
        let nk = self.sys.k_pattern().len();
        let ng = self.sys.g_pattern().len();
        let nm = self.mass.len();
        let mut subs = Vec::with_capacity(4);
        let q_start = &nodal[..nq];
        for el in 0..self.n_el {
            let ta = t0 + el as f64 * h;
            self.sub_intervals(ta, ta + h, &mut subs);
            self.elem_res.fill(0.0);
            self.elem_mag.fill(0.0);
            if tangent {
                self.elem_vals.fill(0.0);
            }
            let node0 = el * p;
            let loc = &nodal[node0 * nd..(node0 + np) * nd];
            for &(s0, s1) in &subs {
                for (&xg, &wg) in self.quad.points.iter().zip(&self.quad.weights) {
                    let tau = s0 + (s1 - s0) * xg;
                    let w = wg * (s1 - s0) * h;
                    let t = ta + tau * h;
                    self.basis.eval_into(tau, &mut self.n_buf, &mut self.dn_buf);
                    for d in &mut self.dn_buf {
                        *d /= h;
                    }
                    // fields = [q_h, v_h, λ_h | q̇_h, v̇_h, λ̇_h]
                    let (val, der) = self.fields.split_at_mut(nd);
                    val.fill(0.0);
                    der.fill(0.0);
                    for a in 0..np {
                        let (na, da) = (self.n_buf[a], self.dn_buf[a]);
                        for (c, &x) in loc[a * nd..(a + 1) * nd].iter().enumerate() {
                            val[c] += na * x;
                            der[c] += da * x;
                        }
                    }
                    let (qh, rest) = val.split_at(nq);
                    let (vh, lh) = rest.split_at(nq);
                    let (qdot, rest) = der.split_at(nq);
                    let vdot = &rest[..nq];
                    self.sys.eval(t, qh, lh, &mut self.ev, tangent);
                    // magnitude of a position-level constraint: |Φ| and the change of its
                    // terms over the block, Σ_j |G_ej (q_j − q_j(t₀))| (the constraint's
                    // absolute terms would grow with the distance from the origin)
                    for (m, p) in self.phi_mag.iter_mut().zip(&self.ev.phi) {
                        *m = p.abs();
                    }
                    for (&(e, j), &g) in self.sys.g_pattern().iter().zip(&self.ev.g) {
                        self.phi_mag[e] += (g * (qh[j] - q_start[j])).abs();
                    }
                    // pointwise residuals: rv = q̇ − v, rq = 𝕄v̇ + Gᵀλ − f, rl = Φ
                    // (accumulated directly, weighted by w M^A)
                    for a in 0..np {
                        let wa = w * self.n_buf[a];
                        let aw = wa.abs();
                        let ra = &mut self.elem_res[a * nd..(a + 1) * nd];
                        let ma = &mut self.elem_mag[a * nd..(a + 1) * nd];
                        for i in 0..nq {
                            ra[nq + i] += wa * (qdot[i] - vh[i]); // R_v
                            ma[nq + i] += aw * (qdot[i].abs() + vh[i].abs());
                            ra[i] -= wa * self.ev.force[i]; // R_q
                            ma[i] += aw * self.ev.force_mag[i];
                        }
                        for &(i, j, m) in &self.mass {
                            ra[i] += wa * m * vdot[j];
                            ma[i] += (wa * m * vdot[j]).abs();
                        }
                        for (&(e, j), &g) in self.sys.g_pattern().iter().zip(&self.ev.g) {
                            ra[j] += wa * g * lh[e];
                            ma[j] += (wa * g * lh[e]).abs();
                        }
                        for e in 0..nl {
                            ra[2 * nq + e] += wa * self.ev.phi[e];
                            ma[2 * nq + e] += aw * self.phi_mag[e];
                        }
                    }
                    if tangent {
                        for a in 0..np {
                            for b in 0..np {
                                let c = w * self.n_buf[a] * self.n_buf[b];
                                let d = w * self.n_buf[a] * self.dn_buf[b];
                                let blk =
                                    &mut self.elem_vals[(a * np + b) * nt..(a * np + b + 1) * nt];
                                let (b1, rest) = blk.split_at_mut(nq);
                                let (b2, rest) = rest.split_at_mut(nq);
                                let (b3, rest) = rest.split_at_mut(nm);
                                let (b4, rest) = rest.split_at_mut(nk);
                                let (b5, b6) = rest.split_at_mut(ng);
                                b1.iter_mut().for_each(|x| *x += d);
                                b2.iter_mut().for_each(|x| *x -= c);
                                for (x, &(_, _, m)) in b3.iter_mut().zip(&self.mass) {
                                    *x += d * m;
                                }
                                for (x, &k) in b4.iter_mut().zip(&self.ev.k) {
                                    *x += c * k;
                                }
                                for ((x5, x6), &g) in
                                    b5.iter_mut().zip(b6.iter_mut()).zip(&self.ev.g)
                                {
                                    *x5 += c * g;
                                    *x6 += c * g;
                                }
                            }
                        }
                    }
                }
            }
            // scatter residual (node 0 has no test functions)
            for a in 0..np {
                let node = node0 + a;
                if node > 0 {
                    let ra = &self.elem_res[a * nd..(a + 1) * nd];
                    let off = (node - 1) * nd;
                    for (x, y) in r[off..off + nd].iter_mut().zip(ra) {
                        *x += y;
                    }
                    let ma = &self.elem_mag[a * nd..(a + 1) * nd];
                    for (x, y) in self.mag[off..off + nd].iter_mut().zip(ma) {
                        *x += y;
                    }
                }
            }
            if let Some(v) = values.as_deref_mut() {
                let len = np * np * nt;
                let pos = &self.positions[el * len..(el + 1) * len];
                for (&ps, &x) in pos.iter().zip(&self.elem_vals) {
                    if ps != SKIP {
                        v[ps as usize] += x;
                    }
                }
            }
        }
    }

    /// Magnitudes of the terms of the last residual (`solve::newton::measure`).
    pub fn magnitudes(&self) -> &[f64] {
        &self.mag
    }

    /// The equation group of every row (the numbers of
    /// [`crate::discretize::petrov_galerkin::slot_groups`]; `R_λ` is position-level here).
    pub fn row_groups(&self) -> &[u8] {
        &self.groups
    }

    /// The paper's stop criterion, `Σ_A ‖R_A‖₂` over nodes [P, after Eq. (25)].
    pub fn residual_norm(&self, r: &[f64]) -> f64 {
        r.chunks(self.nd)
            .map(|c| c.iter().map(|x| x * x).sum::<f64>().sqrt())
            .sum::<f64>()
    }
}

pub use crate::basis::quadrature::split_at_breakpoints;
