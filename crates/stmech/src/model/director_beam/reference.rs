//! Stress-free reference curves of constant material curvature: straight beams, circular arcs
//! and helices, with their exact director frames.
//!
//! A frame `Λ(s) = [d1 d2 d3](s)` with constant *material* curvature `κ = (κ1, κ2, κ3)`
//! (components in the director frame) satisfies `Λ′ = Λ κ̂` (`κ̂ = skew(κ)`), so
//!
//! ```text
//! Λ(s) = Λ0 exp(s κ̂),   exp(s κ̂) = I + (sin x / k) κ̂ + ((1 − cos x)/k²) κ̂²,   k = |κ|, x = k s,
//! ```
//!
//! and `d_i′ = k × d_i` with the spatial curvature `k = κ_i d_i`. The centreline of an
//! unsheared, unstretched reference is tangent to `d3`, `φ′ = d3`, so
//!
//! ```text
//! φ(s) = φ0 + Λ0 [ s I + ((1 − cos x)/k²) κ̂ + ((x − sin x)/k³) κ̂² ] e3 .
//! ```
//!
//! `κ = 0` is a straight beam along `d3`; `κ = (κ1, 0, 0)` a circular arc of radius `1/κ1` in
//! the `(d2, d3)` plane; a general `κ` a helix with axis along `k` (constant), radius
//! `|k × d3|/k²`, and rise `2π (k·d3)/k²` per turn. The strains of this curve are
//! `Γ = (0, 0, 1)`, `K = κ` exactly (the continuous values; the element subtracts its own
//! discrete values of the reference so the discrete reference is exactly stress-free).

use crate::math::{Vec3, norm};

/// A curve of constant material curvature, parametrised by arc length `s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConstantCurvature {
    /// `φ(0)` (m).
    pub origin: Vec3,
    /// Orthonormal right-handed frame `(d1, d2, d3)` at `s = 0`; `d3` is the tangent.
    pub frame: [Vec3; 3],
    /// Material curvature `(κ1, κ2, κ3)` (1/m).
    pub curvature: Vec3,
}

impl ConstantCurvature {
    /// Straight beam from `origin` along `frame[2]`.
    pub fn straight(origin: Vec3, frame: [Vec3; 3]) -> Self {
        Self {
            origin,
            frame,
            curvature: [0.0; 3],
        }
    }

    /// Coordinates `(φ, d1, d2, d3)` at arc length `s` (the 12 nodal coordinates).
    pub fn at(&self, s: f64) -> [f64; 12] {
        let (expm, int) = exp_and_integral(&self.curvature, s);
        let mut q = [0.0; 12];
        for i in 0..3 {
            // d_i = Λ0 exp(sκ̂) e_i = Σ_j Λ0 e_j exp[j][i]
            for j in 0..3 {
                for c in 0..3 {
                    q[3 + 3 * i + c] += self.frame[j][c] * expm[j][i];
                    if i == 2 {
                        q[c] += self.frame[j][c] * int[j][2];
                    }
                }
            }
        }
        for c in 0..3 {
            q[c] += self.origin[c];
        }
        q
    }

    /// Nodes of `elements` elements of order `order` with equal arc length `length/elements`
    /// (nodes equidistant in `s`), `elements·order + 1` entries.
    pub fn nodes(&self, length: f64, elements: usize, order: usize) -> Vec<[f64; 12]> {
        let n = elements * order;
        (0..=n)
            .map(|k| self.at(length * k as f64 / n as f64))
            .collect()
    }
}

/// `exp(s κ̂)` and `∫0^s exp(σ κ̂) dσ`, with series near `k s = 0`.
fn exp_and_integral(kappa: &Vec3, s: f64) -> ([[f64; 3]; 3], [[f64; 3]; 3]) {
    let k = norm(kappa);
    let x = k * s;
    // a = sin x / k, b = (1 − cos x)/k², c = (x − sin x)/k³ (all as functions of s).
    let (a, b, c) = if x.abs() < 0.1 {
        let x2 = x * x;
        (
            s * (1.0 - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0)))),
            s * s * (0.5 - x2 / 24.0 * (1.0 - x2 / 30.0 * (1.0 - x2 / 56.0 * (1.0 - x2 / 90.0)))),
            s * s
                * s
                * (1.0 / 6.0
                    - x2 / 120.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0 * (1.0 - x2 / 110.0)))),
        )
    } else {
        (
            (x.sin()) / k,
            (1.0 - x.cos()) / (k * k),
            (x - x.sin()) / (k * k * k),
        )
    };
    let kh = skew(kappa);
    let kh2 = mat_mul(&kh, &kh);
    let mut e = [[0.0; 3]; 3];
    let mut int = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            let id = if i == j { 1.0 } else { 0.0 };
            e[i][j] = id + a * kh[i][j] + b * kh2[i][j];
            int[i][j] = s * id + b * kh[i][j] + c * kh2[i][j];
        }
    }
    (e, int)
}

/// `skew(v)`, so that `skew(v) w = v × w`.
pub fn skew(v: &Vec3) -> [[f64; 3]; 3] {
    [[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]]
}

fn mat_mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

pub use crate::math::rotation::rotate;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{cross, dot};

    fn frame() -> [Vec3; 3] {
        let ax = [0.3, -0.5, 0.8];
        let n = norm(&ax);
        let ax = [ax[0] / n, ax[1] / n, ax[2] / n];
        [
            rotate(&ax, 0.7, &[1.0, 0.0, 0.0]),
            rotate(&ax, 0.7, &[0.0, 1.0, 0.0]),
            rotate(&ax, 0.7, &[0.0, 0.0, 1.0]),
        ]
    }

    /// The curve satisfies `φ′ = d3`, `d_i′ = k × d_i` with `k = κ_j d_j` (central differences),
    /// and stays orthonormal, for straight, small-curvature (series branch) and helical cases.
    #[test]
    fn curve_satisfies_its_differential_equations() {
        for kappa in [
            [0.0; 3],
            [1e-4, 0.0, 2e-4],
            [0.0, 0.8, 0.0],
            [0.5, -0.3, 1.1],
        ] {
            let c = ConstantCurvature {
                origin: [1.0, 2.0, 3.0],
                frame: frame(),
                curvature: kappa,
            };
            for s in [0.0, 0.37, 2.9] {
                let h = 1e-5;
                let (qp, qm, q) = (c.at(s + h), c.at(s - h), c.at(s));
                let d = |q: &[f64; 12], i: usize| [q[3 + 3 * i], q[4 + 3 * i], q[5 + 3 * i]];
                let k = [0, 1, 2].iter().fold([0.0; 3], |acc, &j| {
                    let dj = d(&q, j);
                    [
                        acc[0] + kappa[j] * dj[0],
                        acc[1] + kappa[j] * dj[1],
                        acc[2] + kappa[j] * dj[2],
                    ]
                });
                for comp in 0..3 {
                    let dphi = (qp[comp] - qm[comp]) / (2.0 * h);
                    assert!((dphi - q[9 + comp]).abs() < 1e-9, "φ′ = d3 at s = {s}");
                }
                for i in 0..3 {
                    let want = cross(&k, &d(&q, i));
                    for comp in 0..3 {
                        let dd = (qp[3 + 3 * i + comp] - qm[3 + 3 * i + comp]) / (2.0 * h);
                        assert!((dd - want[comp]).abs() < 1e-9, "d{}′ at s = {s}", i + 1);
                    }
                    for j in 0..3 {
                        let g = dot(&d(&q, i), &d(&q, j));
                        assert!((g - if i == j { 1.0 } else { 0.0 }).abs() < 1e-14);
                    }
                }
            }
        }
    }
}
