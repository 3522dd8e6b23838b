//! Energy–momentum time integration of the strain elements in a cG(p) Petrov–Galerkin time
//! element (`docs/theory.md`, "Enhanced strains in time").
//!
//! With `p`-point Gauss collocation (nodes `τ_j`, weights `b_j`, collocation matrix
//! `a_ji = ∫₀^{τ_j} ℓ_i(σ) dσ`, `ℓ_i` the Lagrange polynomials on the Gauss points) the
//! Petrov–Galerkin form conserves angular momentum, because every term holds pointwise at the
//! Gauss points and the internal forces `Bᵀs` carry no moment. Energy needs more: the stored
//! energy `V = ½ πᵀCπ` is quartic in `q`, and its rate is not integrated exactly by `p`
//! points. Following Groß, Betsch & Steinmann (Int. J. Numer. Meth. Eng. 63 (2005) 1849–1897,
//! "higher order energy and momentum conserving schemes"), the stress at Gauss point `j` is
//! evaluated at an *enhanced strain*
//!
//! ```text
//! π̄_j = π(q_n) + h Σ_i a_ji π̇_i,        π̇_i = B(q_h(τ_i)) q̇_h(τ_i),
//! s_j = C π̄_j + 𝕍 π̇_j,
//! ```
//!
//! i.e. the Gauss–Runge–Kutta stage value of the strain, whose end value is
//! `π(q_n) + h Σ_i b_i π̇_i = π(q_{n+1})` exactly (`π(q_h(t))` has degree `2p`). Then
//! `π̃(τ) = π_n + h ∫₀^τ Σ_i ℓ_i π̇_i` is a polynomial of degree `p` with `π̃(τ_j) = π̄_j`, and
//!
//! ```text
//! Σ_j h b_j q̇_jᵀ B_jᵀ C π̄_j = h Σ_j b_j π̇_j · C π̃(τ_j) = ∫ π̃′ · C π̃ dt = V(q_{n+1}) − V(q_n)
//! ```
//!
//! (degree `2p − 1`, exact): the elastic energy is conserved to round-off, the viscous part
//! dissipates exactly `h Σ_j b_j π̇_jᵀ 𝕍 π̇_j`, and the momentum maps are untouched. For `p = 1`
//! this is the stress at the mean strain `½(π_n + π_{n+1})`, the energy–momentum method of Simo
//! & Tarnow.
//!
//! Tangent, with `D_iA = ∂π̇_i/∂q_A = B_i Ṅ_A(τ_i) + B(q̇_i) N_A(τ_i)` (`B` is linear in `q`) and
//! `∂π_n/∂q_A = δ_A0 B(q_n)`:
//!
//! ```text
//! ∂(B_jᵀ s_j)/∂q_A = N_A(τ_j) Σ_k s_jk ∂²π_k/∂q² + B_jᵀ [C (δ_A0 B_n + h Σ_i a_ji D_iA) + 𝕍 D_jA].
//! ```

use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::model::strain::{StrainElement, StrainSlot};

/// Gauss collocation data of a time element of order `p` (constant, shared between threads).
#[derive(Clone, Debug)]
pub struct StrainTime {
    p: usize,
    /// Gauss weights `b_j` on `[0, 1]`.
    b: Vec<f64>,
    /// Collocation matrix `a[j p + i]`.
    a: Vec<f64>,
    /// `N_A(τ_j)`, `[j (p+1) + A]`.
    n: Vec<f64>,
    /// `dN_A/dτ(τ_j)`.
    dn: Vec<f64>,
    /// Largest `n_loc` of the elements (sizes the scratch).
    n_loc: usize,
}

/// Scratch of [`StrainTime::slot_terms`] (one per thread).
#[derive(Clone, Debug, Default)]
pub struct StrainTimeScratch {
    q: Vec<f64>,
    qd: Vec<f64>,
    bmat: Vec<f64>,
    bvel: Vec<f64>,
    bn: Vec<f64>,
    dsum: Vec<f64>,
    x: Vec<f64>,
    pidot: Vec<[f64; 6]>,
}

/// Local terms of one strain element on one time element (see [`StrainTime::slot_terms`]).
#[derive(Clone, Debug, Default)]
pub struct SlotTerms {
    /// `R_q` of test function `k` at `res[k n_loc + c]` (local coordinate `c`).
    pub res: Vec<f64>,
    /// Tangent block `(k, A)` for the time nodes `A = first..=p`, row-major `n_loc × n_loc`, at
    /// `tangent[(k (p + 1 − first) + A − first) n_loc²..]`.
    pub tangent: Vec<f64>,
    /// Energy dissipated by the viscous stresses (J).
    pub dissipated: f64,
}

impl StrainTime {
    /// Collocation data for order `p`, for elements of up to `n_loc` coordinates.
    pub fn new(p: usize, n_loc: usize) -> Self {
        let gauss = GaussLegendre::new(p);
        let np = p + 1;
        let trial = LagrangeBasis::new(p);
        let lag = LagrangeBasis::with_nodes(gauss.points.clone());
        let (mut n, mut dn) = (vec![0.0; p * np], vec![0.0; p * np]);
        for j in 0..p {
            trial.eval_into(
                gauss.points[j],
                &mut n[j * np..(j + 1) * np],
                &mut dn[j * np..(j + 1) * np],
            );
        }
        // a_ji = ∫₀^{τ_j} ℓ_i: Gauss rule with p points on [0, τ_j] (degree p − 1, exact)
        let mut a = vec![0.0; p * p];
        let (mut l, mut dl) = (vec![0.0; p], vec![0.0; p]);
        for j in 0..p {
            let tj = gauss.points[j];
            for (&x, &w) in gauss.points.iter().zip(&gauss.weights) {
                lag.eval_into(x * tj, &mut l, &mut dl);
                for i in 0..p {
                    a[j * p + i] += w * tj * l[i];
                }
            }
        }
        Self {
            p,
            b: gauss.weights.clone(),
            a,
            n,
            dn,
            n_loc,
        }
    }

    /// The collocation matrix `a_ji` (row-major `p × p`).
    pub fn collocation_matrix(&self) -> &[f64] {
        &self.a
    }

    /// Scratch for [`slot_terms`](Self::slot_terms).
    pub fn scratch(&self) -> StrainTimeScratch {
        let (p, nl) = (self.p, self.n_loc);
        StrainTimeScratch {
            q: vec![0.0; p * nl],
            qd: vec![0.0; p * nl],
            bmat: vec![0.0; p * 6 * nl],
            bvel: vec![0.0; p * 6 * nl],
            bn: vec![0.0; 6 * nl],
            dsum: vec![0.0; 6 * nl],
            x: vec![0.0; 6 * nl],
            pidot: vec![[0.0; 6]; p],
        }
    }

    /// Output buffers of [`slot_terms`](Self::slot_terms) for tangent blocks of the time
    /// nodes `first..=p`.
    pub fn terms(&self, first: usize) -> SlotTerms {
        let (p, nl) = (self.p, self.n_loc);
        SlotTerms {
            res: vec![0.0; p * nl],
            tangent: vec![0.0; p * (p + 1 - first) * nl * nl],
            dissipated: 0.0,
        }
    }

    /// Length of [`SlotTerms::tangent`] for an element of `n_loc` coordinates.
    pub fn tangent_len(&self, n_loc: usize, first: usize) -> usize {
        self.p * (self.p + 1 - first) * n_loc * n_loc
    }

    /// The strain terms of one element `el` on a time element of length `h`: its local
    /// coordinates at the time nodes `A = 0..=p` are `nodes[A n_loc..(A + 1) n_loc]`. Writes
    /// (overwrites) `out.res`, and with `tangent` the blocks `(k, A)`, `A ≥ first`, of
    /// `out.tangent` (`first = 1` when node 0 is given), and `out.dissipated`, the energy
    /// dissipated by the viscous stresses, `h Σ_j b_j π̇_jᵀ 𝕍 π̇_j` summed over the points (J).
    #[allow(clippy::too_many_arguments)]
    pub fn slot_terms(
        &self,
        el: &dyn StrainElement,
        h: f64,
        nodes: &[f64],
        first: usize,
        tangent: bool,
        sc: &mut StrainTimeScratch,
        out: &mut SlotTerms,
    ) {
        let p = self.p;
        let np = p + 1;
        let nl = el.n_loc();
        let ncol = np - first;
        let nl2 = nl * nl;
        let res = &mut out.res[..p * nl];
        res.fill(0.0);
        if tangent {
            out.tangent[..p * ncol * nl2].fill(0.0);
        }
        let mut dissipated = 0.0;
        // local coordinates and rates at the Gauss points
        for j in 0..p {
            let qj = &mut sc.q[j * nl..(j + 1) * nl];
            let qdj = &mut sc.qd[j * nl..(j + 1) * nl];
            qj.fill(0.0);
            qdj.fill(0.0);
            for a in 0..np {
                let (na, da) = (self.n[j * np + a], self.dn[j * np + a] / h);
                let qa = &nodes[a * nl..(a + 1) * nl];
                for ((x, y), &v) in qj.iter_mut().zip(qdj.iter_mut()).zip(qa) {
                    *x += na * v;
                    *y += da * v;
                }
            }
        }
        let q0 = &nodes[..nl];
        let need_bn = tangent && first == 0;
        for g in 0..el.n_points() {
            let wg = el.weight(g);
            let c = el.stiffness(g);
            let visc = el.viscosity(g);
            let mut pi_n = [0.0; 6];
            el.strains_into(g, q0, &mut pi_n, need_bn.then_some(&mut sc.bn[..6 * nl]));
            for j in 0..p {
                let qj = &sc.q[j * nl..(j + 1) * nl];
                let qdj = &sc.qd[j * nl..(j + 1) * nl];
                // the same (direct) strain rate with and without the tangent
                sc.pidot[j] = el.strain_rate(g, qj, qdj, &mut sc.dsum[..6 * nl]);
                if tangent {
                    let mut pij = [0.0; 6];
                    let bj = &mut sc.bmat[j * 6 * nl..(j + 1) * 6 * nl];
                    el.strains_into(g, qj, &mut pij, Some(bj));
                    // B(q̇_j) = ∂(B(q) q̇_j)/∂q (B is linear and homogeneous in q)
                    el.strains_into(
                        g,
                        qdj,
                        &mut pij,
                        Some(&mut sc.bvel[j * 6 * nl..(j + 1) * 6 * nl]),
                    );
                }
            }
            for j in 0..p {
                // enhanced strain π̄_j and stress s_j
                let mut pbar = pi_n;
                for i in 0..p {
                    let f = h * self.a[j * p + i];
                    for k in 0..6 {
                        pbar[k] += f * sc.pidot[i][k];
                    }
                }
                let mut s = [0.0; 6];
                for k in 0..6 {
                    s[k] = (0..6).map(|l| c[k][l] * pbar[l]).sum();
                    if let Some(v) = visc {
                        let vs: f64 = (0..6).map(|l| v[k][l] * sc.pidot[j][l]).sum();
                        s[k] += vs;
                        dissipated += h * self.b[j] * wg * sc.pidot[j][k] * vs;
                    }
                }
                let scale = h * self.b[j] * wg;
                // R_q of test function j: + h b_j w_g B_jᵀ s_j (f_int = −Bᵀ s)
                el.add_stress_force(
                    g,
                    &sc.q[j * nl..(j + 1) * nl],
                    &s,
                    scale,
                    &mut res[j * nl..(j + 1) * nl],
                    &mut sc.dsum[..6 * nl],
                );
                if !tangent {
                    continue;
                }
                let bj = &sc.bmat[j * 6 * nl..(j + 1) * 6 * nl];
                for a in first..np {
                    // X = C (δ_A0 B_n + h Σ_i a_ji D_iA) + 𝕍 D_jA,  D_iA = B_i Ṅ_A + B(q̇_i) N_A
                    let dsum = &mut sc.dsum[..6 * nl];
                    if a == 0 {
                        dsum.copy_from_slice(&sc.bn[..6 * nl]);
                    } else {
                        dsum.fill(0.0);
                    }
                    for i in 0..p {
                        let f = h * self.a[j * p + i];
                        let (ni, di) = (f * self.n[i * np + a], f * self.dn[i * np + a] / h);
                        let (bi, bvi) = (
                            &sc.bmat[i * 6 * nl..(i + 1) * 6 * nl],
                            &sc.bvel[i * 6 * nl..(i + 1) * 6 * nl],
                        );
                        for ((d, &b1), &b2) in dsum.iter_mut().zip(bi).zip(bvi) {
                            *d += di * b1 + ni * b2;
                        }
                    }
                    // X, scaled by the quadrature weight
                    let x = &mut sc.x[..6 * nl];
                    x.fill(0.0);
                    for k in 0..6 {
                        for l in 0..6 {
                            let ckl = scale * c[k][l];
                            if ckl != 0.0 {
                                for (xv, &dv) in x[k * nl..(k + 1) * nl]
                                    .iter_mut()
                                    .zip(&dsum[l * nl..(l + 1) * nl])
                                {
                                    *xv += ckl * dv;
                                }
                            }
                        }
                    }
                    if let Some(v) = visc {
                        let (nj, dj) = (self.n[j * np + a], self.dn[j * np + a] / h);
                        let bvj = &sc.bvel[j * 6 * nl..(j + 1) * 6 * nl];
                        for k in 0..6 {
                            for l in 0..6 {
                                let vkl = scale * v[k][l];
                                if vkl != 0.0 {
                                    for ((xv, &b1), &b2) in x[k * nl..(k + 1) * nl]
                                        .iter_mut()
                                        .zip(&bj[l * nl..(l + 1) * nl])
                                        .zip(&bvj[l * nl..(l + 1) * nl])
                                    {
                                        *xv += vkl * (dj * b1 + nj * b2);
                                    }
                                }
                            }
                        }
                    }
                    // block (j, A) += scale (N_A(τ_j) H(s_j) + B_jᵀ X)
                    let off = (j * ncol + a - first) * nl2;
                    let blk = &mut out.tangent[off..off + nl2];
                    el.add_stress_hessian(g, &s, scale * self.n[j * np + a], blk);
                    for k in 0..6 {
                        let xk = &x[k * nl..(k + 1) * nl];
                        for (r, &bv) in bj[k * nl..(k + 1) * nl].iter().enumerate() {
                            if bv != 0.0 {
                                for (o, &xv) in blk[r * nl..(r + 1) * nl].iter_mut().zip(xk) {
                                    *o += bv * xv;
                                }
                            }
                        }
                    }
                }
            }
        }
        out.dissipated = dissipated;
    }

    /// Adds the strain terms of all `slots` on a time element of length `h` with nodal
    /// coordinates `node(A)`, `A = 0..=p`: `R_q` of test function `k` at
    /// `res[k res_stride + i]` (global coordinate `i`), and, if `vals` is given as
    /// `(values, stride)`, the `K` part of block `(k, A)` at `values[(k (p+1) + A) stride + pos]`
    /// (`pos` the position in the system's `K` pattern). Returns the energy dissipated by the
    /// viscous stresses, summed over the elements (J).
    #[allow(clippy::too_many_arguments)]
    pub fn add_element<'x>(
        &self,
        slots: &[StrainSlot],
        h: f64,
        node: &dyn Fn(usize) -> &'x [f64],
        res: &mut [f64],
        mag: &mut [f64],
        res_stride: usize,
        mut vals: Option<(&mut [f64], usize)>,
        sc: &mut StrainTimeScratch,
        terms: &mut SlotTerms,
        local_nodes: &mut Vec<f64>,
    ) -> f64 {
        let p = self.p;
        let np = p + 1;
        let mut dissipated = 0.0;
        for slot in slots {
            let el = slot.element.as_ref();
            let nl = el.n_loc();
            local_nodes.resize(np * nl, 0.0);
            for a in 0..np {
                let qa = node(a);
                for (x, &i) in local_nodes[a * nl..(a + 1) * nl]
                    .iter_mut()
                    .zip(&slot.indices)
                {
                    *x = qa[i];
                }
            }
            self.slot_terms(el, h, local_nodes, 0, vals.is_some(), sc, terms);
            dissipated += terms.dissipated;
            for j in 0..p {
                let r = &mut res[j * res_stride..];
                for (&i, &v) in slot.indices.iter().zip(&terms.res[j * nl..(j + 1) * nl]) {
                    r[i] += v;
                }
                let m = &mut mag[j * res_stride..];
                for (&i, &v) in slot.indices.iter().zip(&terms.res[j * nl..(j + 1) * nl]) {
                    m[i] += v.abs();
                }
            }
            let Some((vals, stride)) = vals.as_mut() else {
                continue;
            };
            let nl2 = nl * nl;
            for j in 0..p {
                for a in 0..np {
                    let blk = &terms.tangent[(j * np + a) * nl2..(j * np + a + 1) * nl2];
                    let out = &mut vals[(j * np + a) * *stride..];
                    for (&pos, &v) in slot.k_positions.iter().zip(blk) {
                        out[pos] += v;
                    }
                }
            }
        }
        dissipated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The director beam's direct `B q̇` and `Bᵀ s` equal the products with its `B` matrix.
    #[test]
    fn direct_strain_rate_and_force_match_b() {
        use crate::model::director_beam::section::{DiagonalStiffness, SectionInertia};
        use crate::model::director_beam::{BeamSpec, ConstantCurvature, Integration, Section};
        let section = Section::from_diagonal(
            DiagonalStiffness {
                ea: 100.0,
                ga1: 40.0,
                ga2: 30.0,
                ei1: 2.0,
                ei2: 3.0,
                gj: 1.5,
            },
            SectionInertia {
                rho_a: 2.0,
                euler_tensor: [[0.3, 0.0], [0.0, 0.1]],
            },
        )
        .unwrap();
        let frame = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let curve = ConstantCurvature {
            origin: [0.1, 0.2, 0.3],
            frame,
            curvature: [0.4, -0.2, 0.7],
        };
        for order in [1, 2] {
            let beam = BeamSpec {
                name: "b".into(),
                order,
                nodes: curve.nodes(1.5, 2, order),
                section,
                integration: Integration::Full,
                velocity: [0.0; 3],
                angular_velocity: [0.0; 3],
                distributed: vec![],
                gravity: None,
            }
            .build()
            .unwrap();
            for (el, _) in &beam.elements {
                let nl = el.n_loc();
                let q: Vec<f64> = (0..nl)
                    .map(|i| ((i * 37 % 17) as f64 * 0.13).sin())
                    .collect();
                let qd: Vec<f64> = (0..nl)
                    .map(|i| ((i * 11 % 13) as f64 * 0.7).cos())
                    .collect();
                let s = [1.0, -2.0, 0.5, 0.3, -0.7, 1.1];
                let mut b = vec![0.0; 6 * nl];
                for g in 0..el.n_points() {
                    let mut pi = [0.0; 6];
                    el.strains_into(g, &q, &mut pi, Some(&mut b));
                    let rate = el.strain_rate(g, &q, &qd, &mut vec![0.0; 6 * nl]);
                    for k in 0..6 {
                        let want: f64 = (0..nl).map(|c| b[k * nl + c] * qd[c]).sum();
                        assert!((rate[k] - want).abs() < 1e-12 * (1.0 + want.abs()));
                    }
                    let mut f = vec![0.0; nl];
                    el.add_stress_force(g, &q, &s, 0.7, &mut f, &mut vec![0.0; 6 * nl]);
                    for c in 0..nl {
                        let want: f64 = 0.7 * (0..6).map(|k| b[k * nl + c] * s[k]).sum::<f64>();
                        assert!((f[c] - want).abs() < 1e-12 * (1.0 + want.abs()), "{c}");
                    }
                }
            }
        }
    }

    /// For p = 1 the collocation matrix is ½; for p = 2 it is the Gauss–Legendre (Butcher)
    /// matrix [[1/4, 1/4 − √3/6], [1/4 + √3/6, 1/4]].
    #[test]
    fn collocation_matrix_is_the_gauss_butcher_matrix() {
        let st = StrainTime::new(1, 6);
        assert!((st.collocation_matrix()[0] - 0.5).abs() < 1e-15);
        let st = StrainTime::new(2, 6);
        let r = 3f64.sqrt() / 6.0;
        let want = [0.25, 0.25 - r, 0.25 + r, 0.25];
        for (a, b) in st.collocation_matrix().iter().zip(want) {
            assert!((a - b).abs() < 1e-14, "{a} vs {b}");
        }
    }
}
