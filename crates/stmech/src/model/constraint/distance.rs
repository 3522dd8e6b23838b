//! Distance constraint (rigid massless rod) between a point of body A and a point of body B
//! or the ground, [P, Eq. (27)]: `Φ = ½ (‖x_A − x_B‖² − L²) = 0`, one equation.
//!
//! With `r = x_A − x_B = C q` affine in `q`: `G = rᵀ C`, `H = λ CᵀC`, `∂(Gv)/∂q = (C v)ᵀ C`.
//! Eq. (27) is the special case of points at the reference points `θ = 0`.

use super::Constraint;
use super::body_map::{Affine, JointBody, two_body_indices};
use crate::math::Vec3;

/// `½(‖x_A − x_B‖² − L²) = 0`.
#[derive(Clone, Debug)]
pub struct Distance {
    indices: Vec<usize>,
    gap: Affine,
    length: f64,
}

impl Distance {
    /// Rod of length `length` (m) between `theta_a` in A and `theta_b` in B (global if ground).
    ///
    /// # Panics
    /// If both bodies are the ground.
    pub fn new(a: JointBody, theta_a: Vec3, b: JointBody, theta_b: Vec3, length: f64) -> Self {
        assert!(
            a != JointBody::Ground || b != JointBody::Ground,
            "joint between ground and ground"
        );
        let (indices, sa, sb) = two_body_indices(a, b);
        let gap = Affine::point(sa, &theta_a).minus(&Affine::point(sb, &theta_b));
        Self {
            indices,
            gap,
            length,
        }
    }
}

impl Constraint for Distance {
    fn name(&self) -> &str {
        "distance"
    }

    fn n_eq(&self) -> usize {
        1
    }

    fn length_power(&self, _e: usize) -> u8 {
        2
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
        let n = self.indices.len();
        let r = self.gap.value(q);
        phi[0] = 0.5 * (crate::math::dot(&r, &r) - self.length * self.length);
        self.gap.add_gradient(&r, 1.0, &mut g[..n]); // G = rᵀ C
        if let Some(h) = h {
            Affine::add_product_hessian(&self.gap, &self.gap, lambda[0], h, n); // λ CᵀC
        }
    }

    fn velocity_jacobian(&self, _q: &[f64], v: &[f64], out: &mut [f64]) {
        let mut cv = [0.0; 3];
        self.gap.add_linear(v, &mut cv);
        self.gap
            .add_gradient(&cv, 1.0, &mut out[..self.indices.len()]); // (C v)ᵀ C
    }
}

#[cfg(test)]
mod tests {
    use super::super::body_map::fd;
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let c = Distance::new(
            JointBody::Body(0),
            [0.1, -0.4, 0.3],
            JointBody::Body(1),
            [-0.5, 0.0, 0.2],
            4.0,
        );
        fd::check(&c, &fd::config(24), 0.0);
        let c = Distance::new(
            JointBody::Ground,
            [0.0; 3],
            JointBody::Body(0),
            [0.0; 3],
            4.0,
        );
        fd::check(&c, &fd::config(12), 0.0);
    }

    #[test]
    fn equation_27_at_reference_points() {
        // Φ₁ = ½(‖φ̄₁‖² − L₁²)
        let c = Distance::new(
            JointBody::Body(0),
            [0.0; 3],
            JointBody::Ground,
            [0.0; 3],
            4.0,
        );
        let mut q = vec![0.0; 12];
        q[..3].copy_from_slice(&[3.0, 0.0, 4.0]);
        let (mut phi, mut g) = ([0.0], [0.0; 12]);
        c.eval(&q, &[0.0], &mut phi, &mut g, None);
        assert!((phi[0] - 0.5 * (25.0 - 16.0)).abs() < 1e-15);
        assert_eq!(&g[..3], &[3.0, 0.0, 4.0]);
    }
}
