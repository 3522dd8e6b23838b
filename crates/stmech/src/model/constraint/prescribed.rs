//! Prescribed motion of a body point (rheonomic): `Φ = x_P(q) − γ(t) = 0`, three equations,
//! with `x_P = φ̄ + θ^i d_i` and the polynomial path `γ(t) = Σ_k c_k (t − t_0)^k`.
//!
//! `G` is constant, `H = 0`, `∂(Gv)/∂q = 0`; the explicit time dependence enters through
//! [`Constraint::add_time_terms`]: `∂Φ/∂t = −γ̇`, `∂²Φ/∂t² = −γ̈`.
//!
//! **Exactness.** The "quadratic Φ ⇒ exact at element boundaries" argument of the
//! Petrov–Galerkin form (`docs/theory.md` §3a) needs `d/dt Φ(q_h, t)` to be integrated
//! exactly by the `p` Gauss points. Here `d/dt Φ = G q̇_h − γ̇(t)`: exact when `γ` is a
//! polynomial of degree `≤ 2p`; otherwise `Φ` drifts by the quadrature error of `γ̇`,
//! `O(h^{2p+1})` per element. Energy is not conserved either: the constraint does work.
//! These paths are meant for inverse problems, where `γ` is the servo constraint.

use super::Constraint;
use super::body_map::{Affine, JointBody, two_body_indices};
use crate::math::Vec3;

/// `x_P(q) = γ(t)` for the body point `θ`.
#[derive(Clone, Debug)]
pub struct Prescribed {
    indices: Vec<usize>,
    point: Affine,
    t0: f64,
    coefficients: Vec<Vec3>,
}

impl Prescribed {
    /// Point `theta` of body `body` follows `γ(t) = Σ_k coefficients[k] (t − t0)^k` (m, m/s, ...).
    pub fn new(body: usize, theta: Vec3, t0: f64, coefficients: Vec<Vec3>) -> Self {
        let (indices, sa, _) = two_body_indices(JointBody::Body(body), JointBody::Ground);
        Self {
            indices,
            point: Affine::point(sa, &theta),
            t0,
            coefficients,
        }
    }

    /// `γ^{(d)}(t)`, the `d`-th time derivative of the path.
    pub fn path(&self, t: f64, d: usize) -> Vec3 {
        let s = t - self.t0;
        let mut out = [0.0; 3];
        for (k, c) in self.coefficients.iter().enumerate().skip(d) {
            // d^d/ds^d s^k = k!/(k−d)! s^(k−d)
            let f: f64 =
                ((k - d + 1)..=k).map(|j| j as f64).product::<f64>() * s.powi((k - d) as i32);
            for i in 0..3 {
                out[i] += f * c[i];
            }
        }
        out
    }
}

impl Constraint for Prescribed {
    fn name(&self) -> &str {
        "prescribed"
    }

    fn n_eq(&self) -> usize {
        3
    }

    fn length_power(&self, _e: usize) -> u8 {
        1
    }

    fn indices(&self) -> &[usize] {
        &self.indices
    }

    fn eval(
        &self,
        q: &[f64],
        _lambda: &[f64],
        phi: &mut [f64],
        g: &mut [f64],
        _h: Option<&mut [f64]>,
    ) {
        // time-independent part x_P(q); −γ(t) is added by add_time_terms
        let n = self.indices.len();
        self.point.write_rows(q, phi, g, n);
    }

    fn velocity_jacobian(&self, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}

    fn add_time_terms(&self, t: f64, phi: &mut [f64], phi_t: &mut [f64], phi_tt: &mut [f64]) {
        let (g0, g1, g2) = (self.path(t, 0), self.path(t, 1), self.path(t, 2));
        for k in 0..3 {
            phi[k] -= g0[k];
            phi_t[k] -= g1[k];
            phi_tt[k] -= g2[k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::body_map::fd;
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let c = Prescribed::new(
            1,
            [0.5, 0.0, -0.1],
            0.5,
            vec![
                [1.0, 2.0, 3.0],
                [0.1, 0.0, -1.0],
                [0.0, 2.0, 0.0],
                [1.0, -1.0, 0.5],
            ],
        );
        fd::check(&c, &fd::config(12), 1.3);
    }
}
