//! The constant coefficients of the velocity elimination (see [`super`]): `C`, `D` integrated
//! exactly, `α = Ĉ⁻¹ D`, `β = −Ĉ⁻¹ C_·0`, `E = D_{·,1..p} α`, `F = D_{·0} + D_{·,1..p} β`.

use crate::basis::{GaussLegendre, LagrangeBasis};

/// `v_B = (1/h) Σ_{A≥1} alpha[(B−1)(p+1) + A] Δq_A + beta[B−1] v_0` and the `𝕄 v̇` rows
/// `𝕄 ((1/h) Σ_B e_coef[k (p+1) + B] Δq_B + f_coef[k] v_0)` (the `A, B = 0` entries are not
/// used: the increments of node 0 vanish).
pub(super) struct Elimination {
    pub alpha: Vec<f64>,
    pub beta: Vec<f64>,
    pub e_coef: Vec<f64>,
    pub f_coef: Vec<f64>,
}

/// The coefficients for order `p` with the trial (`p + 1` nodes) and test (`p` Gauss points)
/// bases.
pub(super) fn elimination(p: usize, trial: &LagrangeBasis, test: &LagrangeBasis) -> Elimination {
    let np = p + 1;
    // C, D exactly (degree ≤ 2p − 1 with p + 1 points)
    let exact = GaussLegendre::new(p + 1);
    let (mut c, mut d) = (vec![0.0; p * np], vec![0.0; p * np]);
    let (mut n, mut dn, mut psi, mut dpsi) =
        (vec![0.0; np], vec![0.0; np], vec![0.0; p], vec![0.0; p]);
    for (&t, &w) in exact.points.iter().zip(&exact.weights) {
        trial.eval_into(t, &mut n, &mut dn);
        test.eval_into(t, &mut psi, &mut dpsi);
        for k in 0..p {
            for a in 0..np {
                c[k * np + a] += w * psi[k] * n[a];
                d[k * np + a] += w * psi[k] * dn[a];
            }
        }
    }
    // α = Ĉ⁻¹ D, β = −Ĉ⁻¹ C_·0
    let mut chat: Vec<f64> = (0..p * p).map(|kb| c[(kb / p) * np + 1 + kb % p]).collect();
    let mut rhs = vec![0.0; p * (np + 1)];
    for k in 0..p {
        for a in 0..np {
            rhs[k * (np + 1) + a] = d[k * np + a];
        }
        rhs[k * (np + 1) + np] = -c[k * np];
    }
    solve_small(p, &mut chat, &mut rhs, np + 1);
    let alpha: Vec<f64> = (0..p * np)
        .map(|ba| rhs[(ba / np) * (np + 1) + ba % np])
        .collect();
    let beta: Vec<f64> = (0..p).map(|b| rhs[b * (np + 1) + np]).collect();
    let mut e_coef = vec![0.0; p * np];
    let mut f_coef = vec![0.0; p];
    for k in 0..p {
        f_coef[k] = d[k * np];
        for a in 1..np {
            f_coef[k] += d[k * np + a] * beta[a - 1];
            for b in 0..np {
                e_coef[k * np + b] += d[k * np + a] * alpha[(a - 1) * np + b];
            }
        }
    }
    Elimination {
        alpha,
        beta,
        e_coef,
        f_coef,
    }
}

/// Solves the small dense system `a x = b` (row-major `n × n`, partial pivoting) in place.
fn solve_small(n: usize, a: &mut [f64], b: &mut [f64], nrhs: usize) {
    for k in 0..n {
        let piv = (k..n)
            .max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))
            .expect("non-empty");
        if piv != k {
            for c in 0..n {
                a.swap(k * n + c, piv * n + c);
            }
            for c in 0..nrhs {
                b.swap(k * nrhs + c, piv * nrhs + c);
            }
        }
        let d = a[k * n + k];
        assert!(d != 0.0, "the velocity rows of a time element are singular");
        for i in k + 1..n {
            let l = a[i * n + k] / d;
            for c in k..n {
                a[i * n + c] -= l * a[k * n + c];
            }
            for c in 0..nrhs {
                b[i * nrhs + c] -= l * b[k * nrhs + c];
            }
        }
    }
    for k in (0..n).rev() {
        for c in 0..nrhs {
            let mut s = b[k * nrhs + c];
            for j in k + 1..n {
                s -= a[k * n + j] * b[j * nrhs + c];
            }
            b[k * nrhs + c] = s / a[k * n + k];
        }
    }
}
