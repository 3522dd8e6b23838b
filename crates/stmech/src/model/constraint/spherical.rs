//! Spherical joint: a point of body A coincides with a point of body B (or of the ground),
//! `Φ = x_A − x_B = 0` with `x = φ̄ + θ^i d_i` (three equations).
//!
//! `Φ` is linear in `q`: `G` is constant, `H = 0` and `∂(Gv)/∂q = 0`. Linear constraints are a
//! special case of quadratic ones, so the Petrov–Galerkin form holds them exactly at element
//! boundaries (`docs/theory.md` §3a, §5).

use super::Constraint;
use super::body_map::{Affine, JointBody, two_body_indices};
use crate::math::Vec3;

/// Coincident body-fixed points `θ_A` of body A and `θ_B` of body B.
#[derive(Clone, Debug)]
pub struct Spherical {
    indices: Vec<usize>,
    gap: Affine,
}

impl Spherical {
    /// Joint between point `theta_a` (body coordinates of A, m) and `theta_b` (body
    /// coordinates of B, or the global position if B is the ground).
    ///
    /// # Panics
    /// If both bodies are the ground.
    pub fn new(a: JointBody, theta_a: Vec3, b: JointBody, theta_b: Vec3) -> Self {
        assert!(
            a != JointBody::Ground || b != JointBody::Ground,
            "joint between ground and ground"
        );
        let (indices, sa, sb) = two_body_indices(a, b);
        let gap = Affine::point(sa, &theta_a).minus(&Affine::point(sb, &theta_b));
        Self { indices, gap }
    }
}

impl Constraint for Spherical {
    fn name(&self) -> &str {
        "spherical"
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
        let n = self.indices.len();
        self.gap.write_rows(q, phi, g, n);
    }

    fn velocity_jacobian(&self, _q: &[f64], _v: &[f64], _out: &mut [f64]) {
        // G is constant.
    }
}

#[cfg(test)]
mod tests {
    use super::super::body_map::fd;
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let c = Spherical::new(
            JointBody::Body(1),
            [0.1, -0.4, 0.3],
            JointBody::Body(0),
            [-0.5, 0.0, 0.2],
        );
        assert_eq!(c.indices()[..12], (12..24).collect::<Vec<_>>()[..]);
        fd::check(&c, &fd::config(24), 0.3);
        let c = Spherical::new(
            JointBody::Ground,
            [1.0, 2.0, 3.0],
            JointBody::Body(2),
            [0.0, 0.0, 0.5],
        );
        fd::check(&c, &fd::config(12), 0.3);
    }

    #[test]
    fn value_is_the_point_gap() {
        let c = Spherical::new(
            JointBody::Body(0),
            [0.0, 0.0, 1.0],
            JointBody::Ground,
            [0.0, 0.0, 0.0],
        );
        let mut q = vec![0.0; 12];
        q[..3].copy_from_slice(&[1.0, 2.0, 3.0]);
        q[3] = 1.0;
        q[7] = 1.0;
        q[11] = 1.0;
        let (mut phi, mut g) = ([0.0; 3], [0.0; 36]);
        c.eval(&q, &[0.0; 3], &mut phi, &mut g, None);
        assert_eq!(phi, [1.0, 2.0, 4.0]);
    }
}
