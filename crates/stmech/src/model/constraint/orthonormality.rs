//! Rigidity of the director triad, [P, Eq. (4)]:
//! `Φ_ij = ½ (d_i·d_j − D_ij) = 0` for `i ≤ j`, with `D_ij = d_i(0)·d_j(0)`.
//!
//! Equation order: `(1,1), (2,2), (3,3), (1,2), (1,3), (2,3)`.
//! `∂Φ_ij/∂d_k = ½(δ_ik d_j + δ_jk d_i)`, `∂²Φ_ij/∂d_k∂d_l = ½(δ_ik δ_jl + δ_jk δ_il) I₃`.

use super::Constraint;

/// Index pairs of the six equations.
const PAIRS: [(usize, usize); 6] = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];

/// Orthonormality (more precisely: constant metric) of one body's directors.
#[derive(Clone, Debug)]
pub struct Orthonormality {
    indices: [usize; 9],
    metric: [[f64; 3]; 3],
}

impl Orthonormality {
    /// Constraint on the directors stored at `q[first_director_index..+9]`, keeping the
    /// initial metric `D_ij = d_i(0)·d_j(0)`.
    pub fn new(first_director_index: usize, metric: [[f64; 3]; 3]) -> Self {
        let mut indices = [0; 9];
        for (k, idx) in indices.iter_mut().enumerate() {
            *idx = first_director_index + k;
        }
        Self { indices, metric }
    }
}

impl Constraint for Orthonormality {
    fn name(&self) -> &str {
        "orthonormality"
    }

    fn n_eq(&self) -> usize {
        6
    }

    fn length_power(&self, _e: usize) -> u8 {
        0
    }

    fn indices(&self) -> &[usize] {
        &self.indices
    }

    fn eval(
        &self,
        q: &[f64],
        lambda: &[f64],
        phi: &mut [f64],
        g: &mut [f64],
        h: Option<&mut [f64]>,
    ) {
        let d = |i: usize, k: usize| q[3 * i + k];
        for (e, &(i, j)) in PAIRS.iter().enumerate() {
            let dij: f64 = (0..3).map(|k| d(i, k) * d(j, k)).sum();
            phi[e] = 0.5 * (dij - self.metric[i][j]);
            for k in 0..3 {
                // ∂Φ_ij/∂d_i = ½ d_j, ∂Φ_ij/∂d_j = ½ d_i (sums to d_i when i = j)
                g[e * 9 + 3 * i + k] += 0.5 * d(j, k);
                g[e * 9 + 3 * j + k] += 0.5 * d(i, k);
            }
        }
        if let Some(h) = h {
            for (e, &(i, j)) in PAIRS.iter().enumerate() {
                let l = 0.5 * lambda[e];
                for k in 0..3 {
                    h[(3 * i + k) * 9 + 3 * j + k] += l;
                    h[(3 * j + k) * 9 + 3 * i + k] += l;
                }
            }
        }
    }

    fn velocity_jacobian(&self, _q: &[f64], v: &[f64], out: &mut [f64]) {
        // G_e v = ½ (d_j·v_i + d_i·v_j): the derivative has G's form with d replaced by v.
        for (e, &(i, j)) in PAIRS.iter().enumerate() {
            for k in 0..3 {
                out[e * 9 + 3 * i + k] += 0.5 * v[3 * j + k];
                out[e * 9 + 3 * j + k] += 0.5 * v[3 * i + k];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobian_and_hessian_match_finite_differences() {
        let q = [1.0, 0.1, -0.2, 0.05, 0.9, 0.3, -0.1, 0.2, 1.1];
        let lam = [0.3, -1.0, 0.5, 2.0, -0.7, 0.1];
        let c = Orthonormality::new(0, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
        let (mut phi, mut g, mut h) = ([0.0; 6], [0.0; 54], [0.0; 81]);
        c.eval(&q, &lam, &mut phi, &mut g, Some(&mut h));
        let eps = 1e-6;
        for col in 0..9 {
            let (mut qp, mut qm) = (q, q);
            qp[col] += eps;
            qm[col] -= eps;
            let (mut pp, mut pm, mut gp, mut gm) = ([0.0; 6], [0.0; 6], [0.0; 54], [0.0; 54]);
            c.eval(&qp, &lam, &mut pp, &mut gp, None);
            c.eval(&qm, &lam, &mut pm, &mut gm, None);
            for e in 0..6 {
                assert!(((pp[e] - pm[e]) / (2.0 * eps) - g[e * 9 + col]).abs() < 1e-9);
            }
            // ∂(G v)/∂q
            let v = [0.4, -0.3, 0.2, 1.0, 0.5, -0.6, 0.7, 0.1, -0.9];
            let mut gv = [0.0; 54];
            c.velocity_jacobian(&q, &v, &mut gv);
            for e in 0..6 {
                let fd: f64 = (0..9)
                    .map(|j| v[j] * (gp[e * 9 + j] - gm[e * 9 + j]))
                    .sum::<f64>()
                    / (2.0 * eps);
                assert!((fd - gv[e * 9 + col]).abs() < 1e-9);
            }
            // H = ∂(Gᵀλ)/∂q
            for row in 0..9 {
                let fd: f64 = (0..6)
                    .map(|e| lam[e] * (gp[e * 9 + row] - gm[e * 9 + row]))
                    .sum::<f64>()
                    / (2.0 * eps);
                assert!((fd - h[row * 9 + col]).abs() < 1e-9);
            }
        }
    }
}
