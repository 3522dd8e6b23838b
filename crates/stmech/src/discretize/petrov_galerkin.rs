//! Continuous Petrov–Galerkin discretisation in time, cG(p), of one time block: the default
//! space-time formulation of stmech (see `docs/theory.md`, "Petrov–Galerkin in time").
//!
//! Trial functions: `q_h`, `v_h` continuous, Lagrange of order `p` (as in [P, Eq. (17)], with
//! the velocity `v = 𝕄⁻¹p` in place of the momentum, see [`crate::model::system`]).
//! Test functions and multipliers: discontinuous polynomials of degree `p − 1` on each element,
//! `ψ_k`, `k = 0..p−1` (Lagrange on the `p` Gauss points of the element), `λ_h = Σ ψ_m λ_m`.
//! On every element the residuals are
//!
//! ```text
//! R_v^k = ∫ ψ_k (q̇_h − v_h) dt
//! R_q^k = ∫ ψ_k (𝕄 v̇_h + G(q_h)ᵀ λ_h − f(q_h, t)) dt
//! R_λ^k = ∫ ψ_k (G(q_h) q̇_h + ∂Φ/∂t) dt          (velocity-level constraint)
//! ```
//!
//! Why not the paper's Bubnov form (same test and trial spaces, [P, Eq. (23)])? Measured in
//! `docs/verification.md`: it converges with order `p + 1` only for odd `p` (order 2 for
//! `p = 2`, where the paper reports 3), and it does not conserve energy. The form above is the
//! time finite element method of Betsch & Steinmann (2000, 2002), for which
//!
//! * testing `R_q` with `q̇_h` and `R_v` with `𝕄 v̇_h` (both of degree `p − 1`, so in the test
//!   space) and `R_λ` with `λ_h` gives `H(t_{n+1}) − H(t_n) = ∫ q̇_h·f dt`, `H = ½ vᵀ𝕄v + V`:
//!   the energy of a conservative system is conserved exactly (to the Newton tolerance)
//!   whenever the quadrature integrates `v̇_h·𝕄 v_h` exactly (`n ≥ p` Gauss points); no inverse
//!   of `𝕄` is needed, so a singular mass matrix is fine;
//! * for quadratic constraints (all constraints of this crate), `G(q_h) q̇_h = d/dt Φ(q_h)` is a
//!   polynomial of degree `2p − 1`, so `R_λ^k = 0` for all `k` gives `Φ(q_{n+1}) = Φ(q_n)`: the
//!   constraints hold exactly at every node, and no initial multiplier is needed;
//! * with `p` Gauss points the scheme is Gauss collocation of the index-2 system; it then also
//!   conserves angular momentum exactly for torque-free systems (see `docs/theory.md`).
//!
//! Each element couples only to the last node of its predecessor: the block Jacobian is block
//! lower bidiagonal. Unknowns are numbered in slots `s = e p + a − 1`, `a = 1..p`, each holding
//! `(q, v)` of node `e p + a` and the multiplier `λ_{a−1}` of element `e`; the rows of slot `s`
//! are the residuals of test function `a − 1` of element `e`, paired `R_q ↔ q`, `R_v ↔ v`,
//! `R_λ ↔ λ`.

use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::discretize::pattern::{CscPattern, SKIP};
use crate::discretize::strain_time::{SlotTerms, StrainTime, StrainTimeScratch};
use crate::model::{ConstrainedSystem, PointEval};

/// Gauss points per element for order `p`: `p`, the collocation rule that conserves energy
/// and angular momentum of torque-free systems (see the module docs).
pub fn default_quadrature_points(order: usize) -> usize {
    order
}

/// Number of equation groups of a slot of `(R_q, R_v, R_λ)` rows ([`slot_groups`]).
pub const SLOT_GROUPS: usize = 7;

/// The equation group of every row of `slots` slots of `(R_q, R_v, R_λ)` rows: `R_q` of a
/// length coordinate 0, of a dimensionless one 1; `R_v` 2 and 3; `R_λ` 4 + the power of length
/// of the constraint's unit (`solve::newton::measure`).
pub fn slot_groups<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    nq: usize,
    nl: usize,
    slots: usize,
) -> Vec<u8> {
    let cu = sys.coordinate_units();
    let lu = sys.constraint_units();
    let mut one = Vec::with_capacity(2 * nq + nl);
    one.extend(cu.iter().map(|&u| u.min(1)));
    one.extend(cu.iter().map(|&u| 2 + u.min(1)));
    one.extend(lu.iter().map(|&u| 4 + u.min(2)));
    debug_assert_eq!(one.len(), 2 * nq + nl);
    let mut g = Vec::with_capacity(slots * one.len());
    for _ in 0..slots {
        g.extend_from_slice(&one);
    }
    g
}

/// Sparse system of one time block in the Petrov–Galerkin form.
pub struct PetrovGalerkinBlock<'s, S: ConstrainedSystem + ?Sized> {
    sys: &'s S,
    trial: LagrangeBasis,
    test: LagrangeBasis,
    quad: GaussLegendre,
    n_el: usize,
    h: f64,
    nq: usize,
    nl: usize,
    nd: usize,
    /// Entries of one (test k, trial node A) template.
    nt_qp: usize,
    pattern: CscPattern,
    /// Per element: `p (p+1) nt_qp` positions of the `(k, A)` blocks, then `p² n_g` of `(k, m)`.
    positions: Vec<u32>,
    mass: Vec<(usize, usize, f64)>,
    breakpoints: Vec<f64>,
    ev: PointEval,
    elem_vals: Vec<f64>,
    elem_res: Vec<f64>,
    /// Magnitudes of the terms of `elem_res` (the Newton stop).
    elem_mag: Vec<f64>,
    /// Magnitudes of the terms of the last assembled residual, unknowns order.
    mag: Vec<f64>,
    /// Equation group of every residual row ([`row_groups`](Self::row_groups)).
    groups: Vec<u8>,
    fields: Vec<f64>,
    n_buf: Vec<f64>,
    dn_buf: Vec<f64>,
    psi: Vec<f64>,
    dpsi: Vec<f64>,
    gq: Vec<f64>,
    gq_mag: Vec<f64>,
    /// Time integration of the strain elements (deformable parts), if there are any, with
    /// its scratch.
    strain: Option<(StrainTime, StrainTimeScratch, SlotTerms, Vec<f64>)>,
    /// With strain elements: position in `k_pattern` of each entry of the point `K`
    /// ([`ConstrainedSystem::point_k_pattern`]).
    point_in_k: Vec<usize>,
    /// Energy dissipated by viscous stresses in each element of the last assembly (J).
    dissipated: Vec<f64>,
}

impl<'s, S: ConstrainedSystem + ?Sized> PetrovGalerkinBlock<'s, S> {
    /// Builds pattern and element maps for `n_el` elements of length `h` and order `order`,
    /// with `quad_points` Gauss points per (sub-)interval.
    ///
    /// # Panics
    /// If `order == 0`, `n_el == 0`, `quad_points == 0` (callers validate) or the system
    /// exceeds `u32` positions.
    pub fn new(sys: &'s S, order: usize, n_el: usize, h: f64, quad_points: usize) -> Self {
        assert!(n_el > 0 && order > 0 && quad_points > 0);
        let (nq, nl) = (sys.n_q(), sys.n_lambda());
        let nd = 2 * nq + nl;
        let p = order;
        let mass = sys.mass().to_vec();
        let kp = sys.k_pattern();
        let gp = sys.g_pattern();
        // (row, col) inside (row slot, column node (q, v)) blocks
        let mut tqp: Vec<(usize, usize)> = Vec::new();
        tqp.extend(kp.iter().copied()); // R_q/q: K
        tqp.extend(mass.iter().map(|&(i, j, _)| (i, nq + j))); // R_q/v: 𝕄 d/dt
        tqp.extend((0..nq).map(|i| (nq + i, i))); // R_v/q: d/dt
        tqp.extend((0..nq).map(|i| (nq + i, nq + i))); // R_v/v: −1
        tqp.extend(gp.iter().map(|&(e, j)| (2 * nq + e, j))); // R_λ/q: ∂(Gq̇)/∂q + G d/dt
        let tl: Vec<(usize, usize)> = gp.iter().map(|&(e, j)| (j, 2 * nq + e)).collect(); // R_q/λ
        let nt_qp = tqp.len();
        let n_unknowns = n_el * p * nd;
        let row = |e: usize, k: usize, r: usize| (e * p + k) * nd + r;
        // column of (q, v) component c of node A of element e; node 0 of the block is given
        let col_node =
            move |e: usize, a: usize, c: usize| (e * p + a).checked_sub(1).map(|s| s * nd + c);
        let col_lambda = |e: usize, m: usize, c: usize| (e * p + m) * nd + c;
        let (tqp_ref, tl_ref) = (&tqp, &tl);
        let entries = || {
            (0..n_el).flat_map(move |e| {
                let qp = (0..p * (p + 1)).flat_map(move |ka| {
                    let (k, a) = (ka / (p + 1), ka % (p + 1));
                    tqp_ref
                        .iter()
                        .filter_map(move |&(r, c)| Some((row(e, k, r), col_node(e, a, c)?)))
                });
                let lam = (0..p * p).flat_map(move |km| {
                    let (k, m) = (km / p, km % p);
                    tl_ref
                        .iter()
                        .map(move |&(r, c)| (row(e, k, r), col_lambda(e, m, c)))
                });
                qp.chain(lam)
            })
        };
        let pattern = CscPattern::from_entries(n_unknowns, entries);
        assert!(
            pattern.nnz() < SKIP as usize,
            "system too large for 32-bit positions"
        );
        let per_el = p * (p + 1) * nt_qp + p * p * tl.len();
        let mut positions = Vec::with_capacity(n_el * per_el);
        for e in 0..n_el {
            for ka in 0..p * (p + 1) {
                let (k, a) = (ka / (p + 1), ka % (p + 1));
                for &(r, c) in &tqp {
                    positions.push(match col_node(e, a, c) {
                        Some(col) => pattern.position(row(e, k, r), col) as u32,
                        None => SKIP,
                    });
                }
            }
            for km in 0..p * p {
                let (k, m) = (km / p, km % p);
                for &(r, c) in &tl {
                    positions.push(pattern.position(row(e, k, r), col_lambda(e, m, c)) as u32);
                }
            }
        }
        let gauss_p = GaussLegendre::new(p);
        Self {
            sys,
            trial: LagrangeBasis::new(p),
            test: LagrangeBasis::with_nodes(gauss_p.points.clone()),
            quad: GaussLegendre::new(quad_points),
            n_el,
            h,
            nq,
            nl,
            nd,
            nt_qp,
            pattern,
            positions,
            mass,
            breakpoints: sys.breakpoints(),
            ev: sys.new_point_eval(),
            elem_vals: vec![0.0; per_el],
            elem_res: vec![0.0; p * nd],
            elem_mag: vec![0.0; p * nd],
            mag: vec![0.0; n_unknowns],
            groups: slot_groups(sys, nq, nl, n_el * p),
            fields: vec![0.0; 4 * nq + nl],
            n_buf: vec![0.0; p + 1],
            dn_buf: vec![0.0; p + 1],
            psi: vec![0.0; p],
            dpsi: vec![0.0; p],
            gq: vec![0.0; nl],
            gq_mag: vec![0.0; nl],
            strain: (!sys.strain_slots().is_empty()).then(|| {
                let n_loc = sys
                    .strain_slots()
                    .iter()
                    .map(|s| s.element.n_loc())
                    .max()
                    .unwrap_or(0);
                let st = StrainTime::new(p, n_loc);
                let (sc, terms) = (st.scratch(), st.terms(0));
                (st, sc, terms, Vec::new())
            }),
            point_in_k: if sys.strain_slots().is_empty() {
                Vec::new()
            } else {
                sys.point_k_pattern()
                    .iter()
                    .map(|e| {
                        kp.binary_search(e)
                            .expect("point K entry is in the K pattern")
                    })
                    .collect()
            },
            dissipated: vec![0.0; n_el],
        }
    }

    /// Energy dissipated by the viscous stresses of the strain elements in each time element
    /// at the last [`assemble`](Self::assemble) (J; zeros without viscosity).
    pub fn dissipated(&self) -> &[f64] {
        &self.dissipated
    }

    /// Magnitudes of the terms of the residual of the last [`assemble`](Self::assemble)
    /// (`solve::newton::measure`).
    pub fn magnitudes(&self) -> &[f64] {
        &self.mag
    }

    /// The equation group of every residual row: [`SLOT_GROUPS`] groups (momentum balance of
    /// lengths and of dimensionless coordinates, kinematics of each, constraints by the power
    /// of length of their unit).
    pub fn row_groups(&self) -> &[u8] {
        &self.groups
    }

    /// Sparsity pattern of the Jacobian.
    pub fn pattern(&self) -> &CscPattern {
        &self.pattern
    }

    /// Number of unknowns `n_el p (2 n_q + n_λ)`.
    pub fn n_unknowns(&self) -> usize {
        self.pattern.n
    }

    /// Number of time nodes `n_el p + 1`.
    pub fn n_nodes(&self) -> usize {
        self.n_el * self.trial.order() + 1
    }

    /// Values per unknown slot `2 n_q + n_λ`.
    pub fn slot_dofs(&self) -> usize {
        self.nd
    }

    /// `(q, v)` of block node `a` (node 0 is the given initial state).
    pub fn node<'a>(
        &self,
        q0: &'a [f64],
        v0: &'a [f64],
        x: &'a [f64],
        a: usize,
    ) -> (&'a [f64], &'a [f64]) {
        if a == 0 {
            (q0, v0)
        } else {
            let s = &x[(a - 1) * self.nd..a * self.nd];
            (&s[..self.nq], &s[self.nq..2 * self.nq])
        }
    }

    /// `λ_h` of element `e` at reference coordinate `τ ∈ [0, 1]`.
    pub fn multiplier(&mut self, x: &[f64], e: usize, tau: f64, out: &mut [f64]) {
        let p = self.trial.order();
        self.test.eval_into(tau, &mut self.psi, &mut self.dpsi);
        out.fill(0.0);
        for m in 0..p {
            let lm = &x[(e * p + m) * self.nd + 2 * self.nq..(e * p + m + 1) * self.nd];
            for (o, l) in out.iter_mut().zip(lm) {
                *o += self.psi[m] * l;
            }
        }
    }

    /// Sets the multipliers of every element to `lambda` (initial guess).
    pub fn set_multipliers(&self, x: &mut [f64], lambda: &[f64]) {
        for s in x.chunks_mut(self.nd) {
            s[2 * self.nq..].copy_from_slice(lambda);
        }
    }

    /// Sets `(q, v)` of block node `a ≥ 1` (initial guess).
    pub fn set_node(&self, x: &mut [f64], a: usize, q: &[f64], v: &[f64]) {
        let s = &mut x[(a - 1) * self.nd..a * self.nd];
        s[..self.nq].copy_from_slice(q);
        s[self.nq..2 * self.nq].copy_from_slice(v);
    }

    /// Quadrature sub-intervals of `[ta, tb]` split at load breakpoints (reference coordinates).
    fn sub_intervals(&self, ta: f64, tb: f64, out: &mut Vec<(f64, f64)>) {
        crate::basis::quadrature::split_at_breakpoints(&self.breakpoints, ta, tb, out);
    }

    /// Assembles the residual `r` at the unknowns `x` of the block starting at `t0` from the
    /// state `(q0, v0)`, and, if `values` is given, the Jacobian values in pattern order.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        r: &mut [f64],
        mut values: Option<&mut [f64]>,
    ) {
        let (nq, nl, nd, nt) = (self.nq, self.nl, self.nd, self.nt_qp);
        let p = self.trial.order();
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
        let lam_block = p * np * nt;
        let mut subs = Vec::with_capacity(4);
        for el in 0..self.n_el {
            let ta = t0 + el as f64 * h;
            self.sub_intervals(ta, ta + h, &mut subs);
            self.elem_res.fill(0.0);
            self.elem_mag.fill(0.0);
            if tangent {
                self.elem_vals.fill(0.0);
            }
            for &(s0, s1) in &subs {
                for g in 0..self.quad.len() {
                    let tau = s0 + (s1 - s0) * self.quad.points[g];
                    let w = self.quad.weights[g] * (s1 - s0) * h;
                    let t = ta + tau * h;
                    self.trial.eval_into(tau, &mut self.n_buf, &mut self.dn_buf);
                    self.test.eval_into(tau, &mut self.psi, &mut self.dpsi);
                    for d in &mut self.dn_buf {
                        *d /= h;
                    }
                    // fields = [q_h, v_h, q̇_h, v̇_h, λ_h]
                    self.fields.fill(0.0);
                    for a in 0..np {
                        let (qa, pa) = self.node(q0, v0, x, el * p + a);
                        let (na, da) = (self.n_buf[a], self.dn_buf[a]);
                        for i in 0..nq {
                            self.fields[i] += na * qa[i];
                            self.fields[nq + i] += na * pa[i];
                            self.fields[2 * nq + i] += da * qa[i];
                            self.fields[3 * nq + i] += da * pa[i];
                        }
                    }
                    for m in 0..p {
                        let lm = &x[(el * p + m) * nd + 2 * nq..(el * p + m + 1) * nd];
                        for (c, l) in lm.iter().enumerate() {
                            self.fields[4 * nq + c] += self.psi[m] * l;
                        }
                    }
                    let (qh, rest) = self.fields.split_at(nq);
                    let (vh, rest) = rest.split_at(nq);
                    let (qdot, rest) = rest.split_at(nq);
                    let (vdot, lh) = rest.split_at(nq);
                    if self.strain.is_some() {
                        self.sys
                            .eval_without_strain(t, qh, lh, &mut self.ev, tangent);
                    } else {
                        self.sys.eval(t, qh, lh, &mut self.ev, tangent);
                    }
                    if tangent {
                        self.sys.eval_velocity_jacobian(qh, qdot, &mut self.ev);
                    }
                    // G q̇ + ∂Φ/∂t (the latter non-zero only for rheonomic constraints)
                    self.gq.copy_from_slice(&self.ev.phi_t);
                    for (m, p) in self.gq_mag.iter_mut().zip(&self.ev.phi_t) {
                        *m = p.abs();
                    }
                    for (&(e, j), &gv) in self.sys.g_pattern().iter().zip(&self.ev.g) {
                        self.gq[e] += gv * qdot[j];
                        self.gq_mag[e] += (gv * qdot[j]).abs();
                    }
                    for k in 0..p {
                        let wk = w * self.psi[k];
                        let aw = wk.abs();
                        let rk = &mut self.elem_res[k * nd..(k + 1) * nd];
                        let mk = &mut self.elem_mag[k * nd..(k + 1) * nd];
                        for i in 0..nq {
                            rk[i] -= wk * self.ev.force[i]; // R_q
                            mk[i] += aw * self.ev.force_mag[i];
                            rk[nq + i] += wk * (qdot[i] - vh[i]); // R_v
                            mk[nq + i] += aw * (qdot[i].abs() + vh[i].abs());
                        }
                        for &(i, j, m) in &self.mass {
                            rk[i] += wk * m * vdot[j]; // R_q: 𝕄 v̇
                            mk[i] += (wk * m * vdot[j]).abs();
                        }
                        for (&(e, j), &gv) in self.sys.g_pattern().iter().zip(&self.ev.g) {
                            rk[j] += wk * gv * lh[e];
                            mk[j] += (wk * gv * lh[e]).abs();
                        }
                        for e in 0..nl {
                            rk[2 * nq + e] += wk * self.gq[e]; // R_λ
                            mk[2 * nq + e] += aw * self.gq_mag[e];
                        }
                    }
                    if !tangent {
                        continue;
                    }
                    for k in 0..p {
                        for a in 0..np {
                            let c = w * self.psi[k] * self.n_buf[a];
                            let d = w * self.psi[k] * self.dn_buf[a];
                            let blk = &mut self.elem_vals[(k * np + a) * nt..(k * np + a + 1) * nt];
                            let (b_k, rest) = blk.split_at_mut(nk);
                            let (b_qv, rest) = rest.split_at_mut(nm);
                            let (b_vq, rest) = rest.split_at_mut(nq);
                            let (b_vv, b_lq) = rest.split_at_mut(nq);
                            if self.strain.is_some() {
                                for (&pos, &kv) in self.point_in_k.iter().zip(&self.ev.k) {
                                    b_k[pos] += c * kv;
                                }
                            } else {
                                for (x, &kv) in b_k.iter_mut().zip(&self.ev.k) {
                                    *x += c * kv;
                                }
                            }
                            for (x, &(_, _, m)) in b_qv.iter_mut().zip(&self.mass) {
                                *x += d * m;
                            }
                            b_vq.iter_mut().for_each(|x| *x += d);
                            b_vv.iter_mut().for_each(|x| *x -= c);
                            for ((x, &gv), &g) in b_lq.iter_mut().zip(&self.ev.gv).zip(&self.ev.g) {
                                *x += c * gv + d * g;
                            }
                        }
                        for m in 0..p {
                            let c = w * self.psi[k] * self.psi[m];
                            let off = lam_block + (k * p + m) * ng;
                            for (x, &g) in self.elem_vals[off..off + ng].iter_mut().zip(&self.ev.g)
                            {
                                *x += c * g;
                            }
                        }
                    }
                }
            }
            if let Some((st, sc, terms, local)) = self.strain.as_mut() {
                let nodes = |a: usize| -> &[f64] {
                    let s = el * p + a;
                    if s == 0 {
                        q0
                    } else {
                        &x[(s - 1) * nd..(s - 1) * nd + nq]
                    }
                };
                self.dissipated[el] = st.add_element(
                    self.sys.strain_slots(),
                    h,
                    &nodes,
                    &mut self.elem_res,
                    &mut self.elem_mag,
                    nd,
                    tangent.then_some((&mut self.elem_vals[..], nt)),
                    sc,
                    terms,
                    local,
                );
            }
            let base = el * p * nd;
            for (x, y) in r[base..base + p * nd].iter_mut().zip(&self.elem_res) {
                *x += y;
            }
            for (x, y) in self.mag[base..base + p * nd].iter_mut().zip(&self.elem_mag) {
                *x += y;
            }
            if let Some(v) = values.as_deref_mut() {
                let len = self.elem_vals.len();
                let pos = &self.positions[el * len..(el + 1) * len];
                for (&ps, &x) in pos.iter().zip(&self.elem_vals) {
                    if ps != SKIP {
                        v[ps as usize] += x;
                    }
                }
            }
        }
    }

    /// Stop criterion: `Σ ‖R_s‖₂` over the residual slots (one per test function and element),
    /// the analogue of the paper's sum over nodes [P, after Eq. (25)].
    pub fn residual_norm(&self, r: &[f64]) -> f64 {
        r.chunks(self.nd)
            .map(|c| c.iter().map(|x| x * x).sum::<f64>().sqrt())
            .sum::<f64>()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Load, LoadKind, MassProperties, MultibodySystem, RigidBody, TimeFunction};

    fn system() -> MultibodySystem {
        let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let body = RigidBody {
            name: "box".into(),
            mass: MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.1, 0.0, -0.2]),
            position: [0.0; 3],
            directors: d,
            velocity: [1.0, 0.5, 0.0],
            director_velocities: RigidBody::director_velocities_from_angular_velocity(
                &d,
                &[0.3, -0.2, 1.0],
            ),
        };
        let loads = vec![
            Load {
                body: 0,
                kind: LoadKind::Torque([1.0, 2.0, -1.0]),
                time_function: TimeFunction::Constant,
            },
            Load {
                body: 0,
                kind: LoadKind::BodyForce([0.0, 0.0, -9.81]),
                time_function: TimeFunction::Constant,
            },
        ];
        MultibodySystem::new(vec![body], loads, vec![]).unwrap()
    }

    /// Two small director frames joined by an axial spring (a strain element with a
    /// quartic energy), spinning and stretched; optionally viscous.
    pub(crate) fn spring_pair(eta: Option<f64>) -> MultibodySystem {
        use crate::model::strain::test_elements::Spring;
        use crate::model::{Deformable, StrainElement};
        let mut q = vec![0.0; 24];
        let mut v = vec![0.0; 24];
        let omega = [0.3, -0.2, 1.1];
        for (f, x) in [[0.0, 0.0, 0.0], [1.3, 0.2, -0.1]].iter().enumerate() {
            q[12 * f..12 * f + 3].copy_from_slice(x);
            for i in 0..3 {
                q[12 * f + 3 + 3 * i + i] = 1.0;
                let d = [
                    q[12 * f + 3 + 3 * i],
                    q[12 * f + 4 + 3 * i],
                    q[12 * f + 5 + 3 * i],
                ];
                let w = crate::math::cross(&omega, &d);
                v[12 * f + 3 + 3 * i..12 * f + 6 + 3 * i].copy_from_slice(&w);
            }
        }
        v[1] = -0.7;
        v[2] = 0.4;
        v[13] = 0.6;
        v[12] = -0.2;
        let mut mass = Vec::new();
        for f in 0..2 {
            for k in 0..3 {
                mass.push((12 * f + k, 12 * f + k, 1.5));
                for i in 0..3 {
                    let e = [0.2, 0.1, 0.05][i];
                    mass.push((12 * f + 3 + 3 * i + k, 12 * f + 3 + 3 * i + k, e));
                }
            }
        }
        let spring: Box<dyn StrainElement> = Box::new(Spring::new(1.0, 40.0, eta));
        let part = Deformable {
            name: "spring".into(),
            n_frames: 2,
            initial_q: q,
            initial_v: v,
            mass,
            elements: vec![(spring, (0..24).collect())],
            loads: Vec::new(),
        };
        MultibodySystem::with_deformables(vec![], vec![part], vec![], vec![]).unwrap()
    }

    /// The assembled Jacobian is the derivative of the assembled residual (central differences
    /// at a perturbed, non-converged state), for p = 1, 2, 3.
    #[test]
    fn jacobian_matches_finite_differences() {
        jacobian_check(&system(), 1..=3);
    }

    /// The same with strain elements (enhanced-strain time integration, viscous stresses).
    #[test]
    fn jacobian_with_strain_elements_matches_finite_differences() {
        jacobian_check(&spring_pair(Some(0.7)), 1..=3);
    }

    fn jacobian_check(sys: &MultibodySystem, orders: std::ops::RangeInclusive<usize>) {
        let (q0, v0) = sys.initial_state();
        for order in orders {
            let mut blk = PetrovGalerkinBlock::new(sys, order, 2, 0.1, order + 1);
            let n = blk.n_unknowns();
            let mut x: Vec<f64> = (0..n)
                .map(|i| 0.3 * ((i * 7919 % 97) as f64 / 97.0 - 0.5))
                .collect();
            for a in 1..blk.n_nodes() {
                let (q, p): (Vec<f64>, Vec<f64>) = (
                    q0.iter()
                        .enumerate()
                        .map(|(i, v)| v + 0.01 * (a + i) as f64)
                        .collect(),
                    v0.iter()
                        .enumerate()
                        .map(|(i, v)| v - 0.02 * (a * i % 5) as f64)
                        .collect(),
                );
                blk.set_node(&mut x, a, &q, &p);
            }
            let mut r = vec![0.0; n];
            let mut vals = vec![0.0; blk.pattern().nnz()];
            blk.assemble(0.2, &q0, &v0, &x, &mut r, Some(&mut vals));
            let pat = blk.pattern().clone();
            let eps = 1e-6;
            let (mut rp, mut rm) = (vec![0.0; n], vec![0.0; n]);
            for col in 0..n {
                let mut xp = x.clone();
                xp[col] += eps;
                blk.assemble(0.2, &q0, &v0, &xp, &mut rp, None);
                xp[col] -= 2.0 * eps;
                blk.assemble(0.2, &q0, &v0, &xp, &mut rm, None);
                let mut dense = vec![0.0; n];
                for k in pat.col_ptr[col]..pat.col_ptr[col + 1] {
                    dense[pat.row_idx[k]] = vals[k];
                }
                for row in 0..n {
                    let fd = (rp[row] - rm[row]) / (2.0 * eps);
                    assert!(
                        (fd - dense[row]).abs() < 1e-6 * (1.0 + fd.abs()),
                        "order {order}: J[{row},{col}] = {} vs fd {fd}",
                        dense[row]
                    );
                }
            }
        }
    }

    /// Enhanced strains in time: a free, spinning spring pair conserves energy and angular
    /// momentum to round-off for p = 1, 2, 3 (collocation alone conserves only the angular
    /// momentum); with viscosity the energy balance E(t) − E(0) = −dissipated holds per element.
    #[test]
    fn strain_elements_conserve_energy_and_angular_momentum() {
        use crate::solve::NewtonParams;
        use crate::solve::scheme::{Method, SpaceTimeParams, simulate};
        for (eta, order) in [(None, 1), (None, 2), (None, 3), (Some(0.05), 2)] {
            let sys = spring_pair(eta);
            let (q0, v0) = sys.initial_state();
            let params = SpaceTimeParams {
                order,
                elements_per_block: 1,
                blocks: 40,
                quadrature_points: None,
                formulation: Default::default(),
            };
            let newton = NewtonParams {
                tolerance: 1e-12,
                max_iterations: 25,
            };
            let traj = simulate(
                &sys,
                &q0,
                &v0,
                0.0,
                4.0,
                &Method::SpaceTime(params),
                &newton,
                &mut |_| {},
            )
            .unwrap();
            let energy =
                |k: usize| sys.kinetic_energy(traj.v_at(k)) + sys.potential_energy(traj.q_at(k));
            let e0 = energy(0);
            let l0 = sys.angular_momentum(traj.q_at(0), traj.v_at(0));
            let mut stretch: f64 = 0.0;
            for k in 0..traj.len() {
                let q = traj.q_at(k);
                let d: f64 = (0..3)
                    .map(|i| (q[12 + i] - q[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                stretch = stretch.max((d - 1.0).abs());
                let l = sys.angular_momentum(q, traj.v_at(k));
                for c in 0..3 {
                    // conserved at the element boundaries (interior nodes are not collocated)
                    if k % order == 0 {
                        assert!(
                            (l[c] - l0[c]).abs() < 1e-11,
                            "p = {order}: L drift {}",
                            l[c] - l0[c]
                        );
                    }
                }
                if eta.is_none() && k % order == 0 {
                    assert!(
                        (energy(k) - e0).abs() < 1e-11 * e0,
                        "p = {order}: energy drift {} at node {k}",
                        energy(k) - e0
                    );
                }
            }
            // the spring really works: it stretches and swings
            assert!(stretch > 0.1, "stretch {stretch}");
            if eta.is_some() {
                // dissipation check per element: E_{n+1} − E_n = −D_n, D_n from the solver's form
                let mut blk = PetrovGalerkinBlock::new(&sys, order, 1, 0.1, order);
                let mut r = vec![0.0; blk.n_unknowns()];
                let mut lost = 0.0;
                for e in 0..traj.n_elements() {
                    let (k0, k1) = (e * order, (e + 1) * order);
                    let mut x = vec![0.0; blk.n_unknowns()];
                    for a in 1..=order {
                        blk.set_node(&mut x, a, traj.q_at(k0 + a), traj.v_at(k0 + a));
                    }
                    blk.assemble(
                        traj.times[k0],
                        traj.q_at(k0),
                        traj.v_at(k0),
                        &x,
                        &mut r,
                        None,
                    );
                    let d = blk.dissipated()[0];
                    assert!(d >= 0.0);
                    lost += d;
                    let de = energy(k1) - energy(k0);
                    assert!(
                        (de + d).abs() < 1e-10 * e0,
                        "element {e}: ΔE = {de}, dissipated {d}"
                    );
                }
                assert!(lost > 1e-3 * e0, "viscosity dissipates: {lost}");
            }
        }
    }
}
