//! Small fixed-size vector and matrix helpers, free of model types.
//!
//! Conventions used throughout the crate: vectors in the global (inertial) frame are plain
//! `[f64; 3]`; the nine director components of a body are stored as `d_1, d_2, d_3` one after
//! the other; `_t` marks a time derivative.

pub mod dual;
pub mod eigen;
pub mod rotation;
pub mod so3;

/// Capacity to reserve for `a × b` elements: the product if it is modest, else at most
/// [`MAX_RESERVE`] (the vector then grows on demand). Validation bounds every size that
/// reaches a solver; this keeps a `with_capacity` computed from input numbers from ever
/// overflowing (a capacity-overflow panic) when a library caller skips validation.
pub fn reserve(a: usize, b: usize) -> usize {
    a.saturating_mul(b).min(MAX_RESERVE)
}

/// Largest number of elements [`reserve`] hands to `with_capacity` (2²⁸).
pub const MAX_RESERVE: usize = 1 << 28;

/// A 3-vector in the global frame.
pub type Vec3 = [f64; 3];

/// `a · b`.
#[inline]
pub fn dot(a: &Vec3, b: &Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
#[inline]
pub fn cross(a: &Vec3, b: &Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `‖a‖₂`.
#[inline]
pub fn norm(a: &Vec3) -> f64 {
    dot(a, a).sqrt()
}

/// `a + s b`.
#[inline]
pub fn axpy(s: f64, b: &Vec3, a: &Vec3) -> Vec3 {
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

/// `a − b`.
#[inline]
pub fn sub(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Inverse of a symmetric-or-not 3×3 matrix by the adjugate; `None` when `|det| ≤ tol·‖A‖³`.
pub fn inv3(a: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
    let c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
    let c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
    let det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
    let scale = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    if !det.is_finite() || det.abs() <= 1e-14 * scale.powi(3) {
        return None;
    }
    let id = 1.0 / det;
    Some([
        [
            c00 * id,
            (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * id,
            (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * id,
        ],
        [
            c01 * id,
            (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * id,
            (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * id,
        ],
        [
            c02 * id,
            (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * id,
            (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * id,
        ],
    ])
}

/// Inverse of a small dense `n×n` matrix (row-major) by Gauss–Jordan elimination with partial
/// pivoting. Used once per body for the 4×4 mass matrix of Eq. (7); `None` if singular.
pub fn inv_small(a: &[f64], n: usize) -> Option<Vec<f64>> {
    assert_eq!(a.len(), n * n, "inv_small: dimension mismatch");
    let mut m = a.to_vec();
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        inv[i * n + i] = 1.0;
    }
    let scale = a.iter().fold(0.0f64, |s, x| s.max(x.abs()));
    for col in 0..n {
        let piv =
            (col..n).max_by(|&i, &j| m[i * n + col].abs().total_cmp(&m[j * n + col].abs()))?;
        let pivot = m[piv * n + col].abs();
        if pivot.is_nan() || pivot <= 1e-14 * scale {
            return None;
        }
        if piv != col {
            for k in 0..n {
                m.swap(piv * n + k, col * n + k);
                inv.swap(piv * n + k, col * n + k);
            }
        }
        let d = 1.0 / m[col * n + col];
        for k in 0..n {
            m[col * n + k] *= d;
            inv[col * n + k] *= d;
        }
        for r in 0..n {
            if r != col {
                let f = m[r * n + col];
                if f != 0.0 {
                    for k in 0..n {
                        m[r * n + k] -= f * m[col * n + k];
                        inv[r * n + k] -= f * inv[col * n + k];
                    }
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverses_reproduce_identity() {
        let a = [[2.0, 1.0, 0.5], [0.3, 3.0, -1.0], [0.0, 0.7, 1.5]];
        let ai = inv3(&a).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                let s: f64 = (0..3).map(|k| a[i][k] * ai[k][j]).sum();
                assert!((s - f64::from(u8::from(i == j))).abs() < 1e-14);
            }
        }
        let flat: Vec<f64> = a.iter().flatten().copied().collect();
        let fi = inv_small(&flat, 3).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                assert!((fi[i * 3 + j] - ai[i][j]).abs() < 1e-14);
            }
        }
        assert!(inv_small(&[1.0, 2.0, 2.0, 4.0], 2).is_none());
    }

    #[test]
    fn cross_is_orthogonal() {
        let a = [1.0, 2.0, 3.0];
        let b = [-0.5, 0.25, 2.0];
        let c = cross(&a, &b);
        assert!(dot(&a, &c).abs() < 1e-14 && dot(&b, &c).abs() < 1e-14);
    }
}
