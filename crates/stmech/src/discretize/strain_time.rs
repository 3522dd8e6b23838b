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
use crate::model::strain::{StrainSlot, add_bt_s};

/// Gauss collocation data and scratch for the strain terms of a time element of order `p`.
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
    // scratch, sized for the largest element
    q: Vec<f64>,
    qd: Vec<f64>,
    bmat: Vec<f64>,
    bvel: Vec<f64>,
    bn: Vec<f64>,
    x: Vec<f64>,
    blk: Vec<f64>,
    pis: Vec<[f64; 6]>,
    pidot: Vec<[f64; 6]>,
}

impl StrainTime {
    /// Collocation data for order `p` and scratch for elements of up to `n_loc` coordinates.
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
            q: vec![0.0; p * n_loc],
            qd: vec![0.0; p * n_loc],
            bmat: vec![0.0; p * 6 * n_loc],
            bvel: vec![0.0; p * 6 * n_loc],
            bn: vec![0.0; 6 * n_loc],
            x: vec![0.0; 7 * n_loc],
            blk: vec![0.0; (n_loc * n_loc).max(6 * n_loc)],
            pis: vec![[0.0; 6]; p],
            pidot: vec![[0.0; 6]; p],
        }
    }

    /// The collocation matrix `a_ji` (row-major `p × p`).
    pub fn collocation_matrix(&self) -> &[f64] {
        &self.a
    }

    /// Adds the strain terms of all `slots` on a time element of length `h` with nodal
    /// coordinates `node(A)`, `A = 0..=p`: `R_q` of test function `k` at
    /// `res[k res_stride + i]` (global coordinate `i`), and, if `vals` is given as
    /// `(values, stride)`, the `K` part of block `(k, A)` at `values[(k (p+1) + A) stride + pos]`
    /// (`pos` the position in the system's `K` pattern). Returns the energy dissipated by the
    /// viscous stresses, `h Σ_j b_j π̇_jᵀ 𝕍 π̇_j`, summed over the points (J).
    pub fn add_element<'x>(
        &mut self,
        slots: &[StrainSlot],
        h: f64,
        node: &dyn Fn(usize) -> &'x [f64],
        res: &mut [f64],
        res_stride: usize,
        mut vals: Option<(&mut [f64], usize)>,
    ) -> f64 {
        let p = self.p;
        let np = p + 1;
        let mut dissipated = 0.0;
        for slot in slots {
            let el = slot.element.as_ref();
            let nl = el.n_loc();
            // local coordinates and rates at the Gauss points
            for j in 0..p {
                let qj = &mut self.q[j * nl..(j + 1) * nl];
                let qdj = &mut self.qd[j * nl..(j + 1) * nl];
                qj.fill(0.0);
                qdj.fill(0.0);
                for a in 0..np {
                    let (na, da) = (self.n[j * np + a], self.dn[j * np + a] / h);
                    let qa = node(a);
                    for ((x, y), &i) in qj.iter_mut().zip(qdj.iter_mut()).zip(&slot.indices) {
                        *x += na * qa[i];
                        *y += da * qa[i];
                    }
                }
            }
            let mut q0 = std::mem::take(&mut self.x);
            {
                let qa = node(0);
                for (x, &i) in q0[..nl].iter_mut().zip(&slot.indices) {
                    *x = qa[i];
                }
            }
            for g in 0..el.n_points() {
                let wg = el.weight(g);
                let c = el.stiffness(g);
                let visc = el.viscosity(g);
                let mut pi_n = [0.0; 6];
                el.strains_into(g, &q0[..nl], &mut pi_n, Some(&mut self.bn[..6 * nl]));
                for j in 0..p {
                    let bj = &mut self.bmat[j * 6 * nl..(j + 1) * 6 * nl];
                    el.strains_into(g, &self.q[j * nl..(j + 1) * nl], &mut self.pis[j], Some(bj));
                    let qdj = &self.qd[j * nl..(j + 1) * nl];
                    for k in 0..6 {
                        self.pidot[j][k] = bj[k * nl..(k + 1) * nl]
                            .iter()
                            .zip(qdj)
                            .map(|(a, b)| a * b)
                            .sum();
                    }
                    if vals.is_some() {
                        let mut dummy = [0.0; 6];
                        el.strains_into(
                            g,
                            qdj,
                            &mut dummy,
                            Some(&mut self.bvel[j * 6 * nl..(j + 1) * 6 * nl]),
                        );
                    }
                }
                for j in 0..p {
                    // enhanced strain π̄_j and stress s_j
                    let mut pbar = pi_n;
                    for i in 0..p {
                        let f = h * self.a[j * p + i];
                        for k in 0..6 {
                            pbar[k] += f * self.pidot[i][k];
                        }
                    }
                    let mut s = [0.0; 6];
                    for k in 0..6 {
                        s[k] = (0..6).map(|l| c[k][l] * pbar[l]).sum();
                        if let Some(v) = visc {
                            let vs: f64 = (0..6).map(|l| v[k][l] * self.pidot[j][l]).sum();
                            s[k] += vs;
                            dissipated += h * self.b[j] * wg * self.pidot[j][k] * vs;
                        }
                    }
                    let scale = h * self.b[j] * wg;
                    let bj = &self.bmat[j * 6 * nl..(j + 1) * 6 * nl];
                    // R_q of test function j: + h b_j w_g B_jᵀ s_j (f_int = −Bᵀ s)
                    {
                        let r = &mut res[j * res_stride..];
                        let f = &mut self.blk[..nl];
                        f.fill(0.0);
                        add_bt_s(bj, &s, 1.0, f);
                        for (&i, &fi) in slot.indices.iter().zip(f.iter()) {
                            r[i] += scale * fi;
                        }
                    }
                    let Some((vals, stride)) = vals.as_mut() else {
                        continue;
                    };
                    for a in 0..np {
                        // X = C (δ_A0 B_n + h Σ_i a_ji D_iA) + 𝕍 D_jA,  D_iA = B_i Ṅ_A + B(q̇_i) N_A
                        let x = &mut q0[nl..nl + 6 * nl];
                        let mut d_sum = std::mem::take(&mut self.blk);
                        let dsum = &mut d_sum[..6 * nl];
                        dsum.fill(0.0);
                        if a == 0 {
                            dsum.copy_from_slice(&self.bn[..6 * nl]);
                        }
                        for i in 0..p {
                            let f = h * self.a[j * p + i];
                            let (ni, di) = (self.n[i * np + a], self.dn[i * np + a] / h);
                            let (bi, bvi) = (
                                &self.bmat[i * 6 * nl..(i + 1) * 6 * nl],
                                &self.bvel[i * 6 * nl..(i + 1) * 6 * nl],
                            );
                            for ((d, &b1), &b2) in dsum.iter_mut().zip(bi).zip(bvi) {
                                *d += f * (di * b1 + ni * b2);
                            }
                        }
                        x.fill(0.0);
                        for k in 0..6 {
                            for l in 0..6 {
                                let ckl = c[k][l];
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
                            let (bj2, bvj) = (
                                &self.bmat[j * 6 * nl..(j + 1) * 6 * nl],
                                &self.bvel[j * 6 * nl..(j + 1) * 6 * nl],
                            );
                            for k in 0..6 {
                                for l in 0..6 {
                                    let vkl = v[k][l];
                                    if vkl != 0.0 {
                                        for ((xv, &b1), &b2) in x[k * nl..(k + 1) * nl]
                                            .iter_mut()
                                            .zip(&bj2[l * nl..(l + 1) * nl])
                                            .zip(&bvj[l * nl..(l + 1) * nl])
                                        {
                                            *xv += vkl * (dj * b1 + nj * b2);
                                        }
                                    }
                                }
                            }
                        }
                        // block = N_A(τ_j) H(s_j) + B_jᵀ X
                        let blk = &mut d_sum[..nl * nl];
                        blk.fill(0.0);
                        el.add_stress_hessian(g, &s, self.n[j * np + a], blk);
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
                        let out = &mut vals[(j * np + a) * *stride..];
                        for (&pos, &v) in slot.k_positions.iter().zip(blk.iter()) {
                            out[pos] += scale * v;
                        }
                        self.blk = d_sum;
                    }
                }
            }
            self.x = q0;
        }
        dissipated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
