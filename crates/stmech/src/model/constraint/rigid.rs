//! Rigid connection of a frame A to a frame B or to the ground (a clamp): A's placement and
//! directors are fixed in B's director basis,
//!
//! ```text
//! φ_A = φ_B + θ^j d_j^B,        d_i^A = R_ij d_j^B,        i = 1, 2, 3   (twelve equations)
//! ```
//!
//! with `θ^j = (φ_A(0) − φ_B(0))·d_j^B(0)` and `R_ij = d_i^A(0)·d_j^B(0)` from the initial
//! configuration (so the connection holds at `t₀` by construction); for the ground
//! `φ_A = φ_A(0)`, `d_i^A = d_i^A(0)`. All twelve equations are linear in `q` (`G` constant,
//! `H = 0`): the Petrov–Galerkin form holds them exactly at every node. They determine frame A
//! completely, including the orthonormality of its directors, so the system drops A's own
//! orthonormality constraint ([`Constraint::tied_frame`]); B's stays.
//!
//! Used for a beam end welded to a rigid body or clamped to the ground, and between two beam
//! nodes.

use super::Constraint;
use super::body_map::JointBody;

/// Frame A tied rigidly to frame B (or to the ground), see the module docs.
#[derive(Clone, Debug)]
pub struct Rigid {
    frame_a: usize,
    indices: Vec<usize>,
    /// `Φ = q_A − T q_B − c`: `t[i][j]` multiplies the triplet `j` of B for triplet `i` of A.
    t: [[f64; 4]; 4],
    c: [f64; 12],
    has_b: bool,
}

impl Rigid {
    /// Ties frame `a` (its 12 coordinates `q[12a..12a+12]`) to `b` in their relative position
    /// at `t₀`, given the initial coordinates `q_a0`, `q_b0` (12 each; `q_b0` ignored for the
    /// ground). The directors of B must be orthonormal at `t₀`.
    ///
    /// # Panics
    /// If `b` is frame `a` itself (callers validate).
    pub fn new(a: usize, b: JointBody, q_a0: &[f64], q_b0: &[f64]) -> Self {
        let mut t = [[0.0; 4]; 4];
        let mut c = [0.0; 12];
        let (indices, has_b) = match b {
            JointBody::Ground => {
                c.copy_from_slice(&q_a0[..12]);
                ((12 * a..12 * a + 12).collect(), false)
            }
            JointBody::Body(fb) => {
                assert_ne!(fb, a, "a frame tied to itself");
                let trip = |q: &[f64], k: usize| [q[3 * k], q[3 * k + 1], q[3 * k + 2]];
                let dot = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
                let dphi = [q_a0[0] - q_b0[0], q_a0[1] - q_b0[1], q_a0[2] - q_b0[2]];
                // φ_A = φ_B + θ^j d_j^B
                t[0][0] = 1.0;
                for j in 0..3 {
                    t[0][1 + j] = dot(dphi, trip(q_b0, 1 + j));
                }
                // d_i^A = R_ij d_j^B
                for i in 0..3 {
                    for j in 0..3 {
                        t[1 + i][1 + j] = dot(trip(q_a0, 1 + i), trip(q_b0, 1 + j));
                    }
                }
                let mut idx: Vec<usize> = (12 * a..12 * a + 12).collect();
                idx.extend(12 * fb..12 * fb + 12);
                (idx, true)
            }
        };
        Self {
            frame_a: a,
            indices,
            t,
            c,
            has_b,
        }
    }
}

impl Constraint for Rigid {
    fn name(&self) -> &str {
        "rigid"
    }

    fn n_eq(&self) -> usize {
        12
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
        _lambda: &[f64],
        phi: &mut [f64],
        g: &mut [f64],
        _h: Option<&mut [f64]>,
    ) {
        let n = self.indices.len();
        for e in 0..12 {
            let (i, k) = (e / 3, e % 3);
            let mut v = q[e] - self.c[e];
            g[e * n + e] += 1.0;
            if self.has_b {
                for j in 0..4 {
                    let tij = self.t[i][j];
                    if tij != 0.0 {
                        v -= tij * q[12 + 3 * j + k];
                        g[e * n + 12 + 3 * j + k] -= tij;
                    }
                }
            }
            phi[e] = v;
        }
    }

    fn velocity_jacobian(&self, _q: &[f64], _v: &[f64], _out: &mut [f64]) {
        // G is constant.
    }

    fn tied_frame(&self) -> Option<usize> {
        Some(self.frame_a)
    }
}

#[cfg(test)]
mod tests {
    use super::super::body_map::fd;
    use super::*;

    fn frame(x: [f64; 3], angle: f64) -> Vec<f64> {
        let (c, s) = (angle.cos(), angle.sin());
        let mut q = x.to_vec();
        q.extend([c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0]);
        q
    }

    #[test]
    fn holds_initially_and_follows_rigid_motions_of_b() {
        let (qa, qb) = (frame([1.0, 2.0, 0.5], 0.4), frame([0.3, -0.2, 0.1], -0.9));
        let c = Rigid::new(3, JointBody::Body(1), &qa, &qb);
        let mut q: Vec<f64> = qa.clone();
        q.extend(&qb);
        let (mut phi, mut g) = (vec![0.0; 12], vec![0.0; 12 * 24]);
        c.eval(&q, &[0.0; 12], &mut phi, &mut g, None);
        assert!(phi.iter().all(|x| x.abs() < 1e-14), "{phi:?}");
        // rotate both frames about z by 0.7 and translate: the tie still holds
        let rot = |q: &[f64]| -> Vec<f64> {
            let (c, s) = (0.7f64.cos(), 0.7f64.sin());
            let mut out = vec![0.0; 12];
            for k in 0..4 {
                let (x, y, z) = (q[3 * k], q[3 * k + 1], q[3 * k + 2]);
                out[3 * k] = c * x - s * y + if k == 0 { 5.0 } else { 0.0 };
                out[3 * k + 1] = s * x + c * y;
                out[3 * k + 2] = z;
            }
            out
        };
        let mut q2 = rot(&qa);
        q2.extend(rot(&qb));
        g.fill(0.0);
        c.eval(&q2, &[0.0; 12], &mut phi, &mut g, None);
        assert!(phi.iter().all(|x| x.abs() < 1e-13), "{phi:?}");
        assert_eq!(c.tied_frame(), Some(3));
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let (qa, qb) = (frame([1.0, 2.0, 0.5], 0.4), frame([0.3, -0.2, 0.1], -0.9));
        fd::check(
            &Rigid::new(0, JointBody::Body(1), &qa, &qb),
            &fd::config(24),
            0.2,
        );
        fd::check(
            &Rigid::new(0, JointBody::Ground, &qa, &[]),
            &fd::config(12),
            0.2,
        );
    }
}
