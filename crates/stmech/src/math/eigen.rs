//! Small dense symmetric eigenproblems: the cyclic Jacobi method for `A e = λ e` and, through
//! the Cholesky factor of `M`, the generalised problem `H e = λ M e` (`M` symmetric positive
//! definite): wave speeds `c² = λ` and modes of a continuum with stiffness `H` and inertia `M`.
//!
//! `N ≤ 12`: a handful of sweeps of `N²/2` rotations each, no allocation.

/// Eigenvalues (ascending) and eigenvectors (`vectors[k]` belongs to `values[k]`) of the
/// symmetric `a`, by cyclic Jacobi rotations to machine precision.
pub fn symmetric<const N: usize>(a: &[[f64; N]; N]) -> ([f64; N], [[f64; N]; N]) {
    let mut a = *a;
    let mut v = [[0.0; N]; N];
    for i in 0..N {
        v[i][i] = 1.0;
    }
    let scale = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    for _sweep in 0..64 {
        let off: f64 = (0..N)
            .flat_map(|i| (0..N).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        if off <= (1e-32 * scale * scale).max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..N {
            for q in p + 1..N {
                if a[p][q] == 0.0 {
                    continue;
                }
                // rotation that zeroes a[p][q]
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..N {
                    let (akp, akq) = (a[k][p], a[k][q]);
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for k in 0..N {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for k in 0..N {
                    let (vkp, vkq) = (v[k][p], v[k][q]);
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: [usize; N] = std::array::from_fn(|k| k);
    order.sort_by(|&x, &y| a[x][x].total_cmp(&a[y][y]));
    let values = order.map(|k| a[k][k]);
    let vectors = order.map(|k| std::array::from_fn(|i| v[i][k]));
    (values, vectors)
}

/// The lower Cholesky factor of the symmetric positive definite `m`, or `None`.
pub fn cholesky<const N: usize>(m: &[[f64; N]; N]) -> Option<[[f64; N]; N]> {
    let mut l = [[0.0; N]; N];
    for i in 0..N {
        for j in 0..=i {
            let mut s = m[i][j];
            for k in 0..j {
                s -= l[i][k] * l[j][k];
            }
            if i == j {
                if !(s > 0.0 && s.is_finite()) {
                    return None;
                }
                l[i][i] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    Some(l)
}

/// The generalised problem `h e = λ m e` (`h` symmetric, `m` symmetric positive definite):
/// eigenvalues ascending and `m`-orthonormal eigenvectors (`e_kᵀ m e_l = δ_kl`), or `None` if
/// `m` is not positive definite.
pub fn generalized<const N: usize>(
    h: &[[f64; N]; N],
    m: &[[f64; N]; N],
) -> Option<([f64; N], [[f64; N]; N])> {
    let l = cholesky(m)?;
    // A = L⁻¹ H L⁻ᵀ: forward substitution on the columns, then on the rows
    let solve_l = |b: &[f64; N]| -> [f64; N] {
        let mut x = [0.0; N];
        for i in 0..N {
            let mut s = b[i];
            for k in 0..i {
                s -= l[i][k] * x[k];
            }
            x[i] = s / l[i][i];
        }
        x
    };
    let mut y = [[0.0; N]; N]; // y = L⁻¹ H (columns of H solved)
    for j in 0..N {
        let col: [f64; N] = std::array::from_fn(|i| h[i][j]);
        let x = solve_l(&col);
        for i in 0..N {
            y[i][j] = x[i];
        }
    }
    let mut a = [[0.0; N]; N]; // a = y L⁻ᵀ = (L⁻¹ yᵀ)ᵀ
    for i in 0..N {
        let x = solve_l(&y[i]);
        a[i] = x;
    }
    // symmetrise the round-off
    for i in 0..N {
        for j in 0..i {
            let s = 0.5 * (a[i][j] + a[j][i]);
            a[i][j] = s;
            a[j][i] = s;
        }
    }
    let (values, w) = symmetric(&a);
    // e = L⁻ᵀ w (back substitution)
    let vectors = w.map(|wk| {
        let mut x = [0.0; N];
        for i in (0..N).rev() {
            let mut s = wk[i];
            for k in i + 1..N {
                s -= l[k][i] * x[k];
            }
            x[i] = s / l[i][i];
        }
        x
    });
    Some((values, vectors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generalized_eigenpairs_satisfy_the_equations() {
        let h = [
            [4.0, 1.0, 0.5, 0.0],
            [1.0, 3.0, 0.2, 0.1],
            [0.5, 0.2, 2.0, 0.3],
            [0.0, 0.1, 0.3, 1.0],
        ];
        let m = [
            [2.0, 0.3, 0.0, 0.0],
            [0.3, 1.0, 0.1, 0.0],
            [0.0, 0.1, 1.5, 0.2],
            [0.0, 0.0, 0.2, 0.5],
        ];
        let (lam, e) = generalized(&h, &m).unwrap();
        for k in 0..4 {
            if k > 0 {
                assert!(lam[k] >= lam[k - 1]);
            }
            for i in 0..4 {
                let he: f64 = (0..4).map(|j| h[i][j] * e[k][j]).sum();
                let me: f64 = (0..4).map(|j| m[i][j] * e[k][j]).sum();
                assert!((he - lam[k] * me).abs() < 1e-13, "{k} {i}");
            }
            for l in 0..4 {
                let em: f64 = (0..4)
                    .map(|i| e[k][i] * (0..4).map(|j| m[i][j] * e[l][j]).sum::<f64>())
                    .sum();
                assert!((em - if k == l { 1.0 } else { 0.0 }).abs() < 1e-13);
            }
        }
        assert!(generalized(&h, &[[1.0, 0.0, 0.0, 0.0]; 4]).is_none());
    }
}
