//! Revolute joint (hinge): a spherical joint at body-fixed points plus a hinge axis fixed in
//! both bodies. Five equations:
//!
//! ```text
//! Φ_{1..3} = x_A − x_B,          Φ_4 = a_A · e1_B,      Φ_5 = a_A · e2_B,
//! ```
//!
//! with `a_A = a^i d_i^A` the axis in A and `e1_B`, `e2_B` two body-fixed vectors of B
//! orthogonal to B's axis (chosen once from the axis components). Φ_4, Φ_5 are bilinear in
//! the directors of A and B (linear if B is the ground), so quadratic in `q`:
//! `G_4 = e1ᵀ ∂a/∂q + aᵀ ∂e1/∂q`, `H_4 = λ_4 (∂a/∂qᵀ ∂e1/∂q + ∂e1/∂qᵀ ∂a/∂q)`,
//! `∂(G_4 v)/∂q = (∂e1/∂q v)ᵀ ∂a/∂q + (∂a/∂q v)ᵀ ∂e1/∂q`.
//!
//! The axes must be parallel in the initial configuration (checked by the scenario
//! validation through `Φ(q_0) = 0`).

use super::Constraint;
use super::body_map::{Affine, JointBody, two_body_indices};
use crate::math::{Vec3, cross, dot, norm};

/// Hinge about axis `axis_a` (components in A's directors) = `axis_b` (in B's), through the
/// coincident points `θ_A`, `θ_B`.
#[derive(Clone, Debug)]
pub struct Revolute {
    indices: Vec<usize>,
    gap: Affine,
    axis: Affine,
    normals: [Affine; 2],
}

/// Two unit vectors orthogonal to `a` and to each other.
pub(crate) fn orthogonal_pair(a: &Vec3) -> [Vec3; 2] {
    let n = norm(a);
    let u = [a[0] / n, a[1] / n, a[2] / n];
    // the coordinate axis least aligned with u
    let k = (0..3)
        .min_by(|&i, &j| u[i].abs().total_cmp(&u[j].abs()))
        .unwrap_or(0);
    let mut e = [0.0; 3];
    e[k] = 1.0;
    let mut e1 = cross(&u, &e);
    let n1 = norm(&e1);
    e1.iter_mut().for_each(|x| *x /= n1);
    let e2 = cross(&u, &e1);
    [e1, e2]
}

impl Revolute {
    /// Hinge through `theta_a` (A) / `theta_b` (B, global if ground) about `axis_a` / `axis_b`.
    ///
    /// # Panics
    /// If both bodies are the ground or an axis has zero length (callers validate).
    pub fn new(
        a: JointBody,
        theta_a: Vec3,
        axis_a: Vec3,
        b: JointBody,
        theta_b: Vec3,
        axis_b: Vec3,
    ) -> Self {
        assert!(
            a != JointBody::Ground || b != JointBody::Ground,
            "joint between ground and ground"
        );
        assert!(
            norm(&axis_a) > 0.0 && norm(&axis_b) > 0.0,
            "revolute axis of zero length"
        );
        let (indices, sa, sb) = two_body_indices(a, b);
        let gap = Affine::point(sa, &theta_a).minus(&Affine::point(sb, &theta_b));
        let na = norm(&axis_a);
        let axis = Affine::vector(sa, &[axis_a[0] / na, axis_a[1] / na, axis_a[2] / na]);
        let [e1, e2] = orthogonal_pair(&axis_b);
        let normals = [Affine::vector(sb, &e1), Affine::vector(sb, &e2)];
        Self {
            indices,
            gap,
            axis,
            normals,
        }
    }
}

impl Constraint for Revolute {
    fn name(&self) -> &str {
        "revolute"
    }

    fn n_eq(&self) -> usize {
        5
    }

    fn length_power(&self, e: usize) -> u8 {
        if e < 3 { 1 } else { 0 }
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
        self.gap.write_rows(q, phi, g, n);
        let a = self.axis.value(q);
        for (m, nrm) in self.normals.iter().enumerate() {
            let e = nrm.value(q);
            let row = &mut g[(3 + m) * n..(4 + m) * n];
            phi[3 + m] = dot(&a, &e);
            self.axis.add_gradient(&e, 1.0, row);
            nrm.add_gradient(&a, 1.0, row);
        }
        if let Some(h) = h {
            for (m, nrm) in self.normals.iter().enumerate() {
                Affine::add_product_hessian(&self.axis, nrm, lambda[3 + m], h, n);
                Affine::add_product_hessian(nrm, &self.axis, lambda[3 + m], h, n);
            }
        }
    }

    fn velocity_jacobian(&self, _q: &[f64], v: &[f64], out: &mut [f64]) {
        let n = self.indices.len();
        let mut av = [0.0; 3];
        self.axis.add_linear(v, &mut av);
        for (m, nrm) in self.normals.iter().enumerate() {
            let mut ev = [0.0; 3];
            nrm.add_linear(v, &mut ev);
            let row = &mut out[(3 + m) * n..(4 + m) * n];
            self.axis.add_gradient(&ev, 1.0, row);
            nrm.add_gradient(&av, 1.0, row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::body_map::fd;
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let c = Revolute::new(
            JointBody::Body(0),
            [0.1, -0.4, 0.3],
            [0.0, 1.0, 0.2],
            JointBody::Body(1),
            [-0.5, 0.0, 0.2],
            [1.0, 0.0, 0.0],
        );
        fd::check(&c, &fd::config(24), 0.0);
        let c = Revolute::new(
            JointBody::Body(0),
            [0.0; 3],
            [0.0, 0.0, 1.0],
            JointBody::Ground,
            [1.0, 0.0, 0.0],
            [0.3, 0.0, 1.0],
        );
        fd::check(&c, &fd::config(12), 0.0);
    }

    #[test]
    fn orthogonal_pair_is_orthonormal() {
        for a in [[0.0, 0.0, 2.0], [1.0, 1.0, 0.0], [0.3, -0.2, 0.9]] {
            let [e1, e2] = orthogonal_pair(&a);
            assert!(dot(&e1, &a).abs() < 1e-14 && dot(&e2, &a).abs() < 1e-14);
            assert!((norm(&e1) - 1.0).abs() < 1e-14 && (norm(&e2) - 1.0).abs() < 1e-14);
            assert!(dot(&e1, &e2).abs() < 1e-14);
        }
    }
}
