//! Body-fixed points and vectors as affine functions of the local coordinates of a constraint.
//!
//! A material point with body coordinates `θ` is at `x = φ̄ + θ^i d_i`, a body-fixed vector
//! with components `u^i` is `u = u^i d_i`: both are linear in the body's `q = (φ̄, d_1, d_2, d_3)`.
//! A point or vector of the ground is a constant. [`Affine`] stores
//! `x(q_loc) = c + Σ_t a_t q_loc[s_t..s_t+3]` over the triplets `s_t` of the constraint's
//! local coordinates, which is all the joint constraints need.

use crate::math::Vec3;

/// A body of a joint: a moving body (index into the system's bodies) or the fixed ground.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointBody {
    /// The fixed global frame.
    Ground,
    /// Body index `b`, owning `q[12b..12b+12]`.
    Body(usize),
}

/// `x(q_loc) = offset + Σ coefficient · q_loc[start..start+3]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Affine {
    pub offset: Vec3,
    pub terms: Vec<(usize, f64)>,
}

impl Affine {
    /// A body-fixed point `θ` of the body whose 12 coordinates start at local index `start`
    /// (`None`: the ground, where `θ` is the global position).
    pub fn point(start: Option<usize>, theta: &Vec3) -> Self {
        match start {
            None => Self {
                offset: *theta,
                terms: Vec::new(),
            },
            Some(s) => Self {
                offset: [0.0; 3],
                terms: [
                    (s, 1.0),
                    (s + 3, theta[0]),
                    (s + 6, theta[1]),
                    (s + 9, theta[2]),
                ]
                .into_iter()
                .filter(|&(_, c)| c != 0.0)
                .collect(),
            },
        }
    }

    /// A body-fixed vector with components `u` in the director basis (ground: global `u`).
    pub fn vector(start: Option<usize>, u: &Vec3) -> Self {
        match start {
            None => Self {
                offset: *u,
                terms: Vec::new(),
            },
            Some(s) => Self {
                offset: [0.0; 3],
                terms: [(s + 3, u[0]), (s + 6, u[1]), (s + 9, u[2])]
                    .into_iter()
                    .filter(|&(_, c)| c != 0.0)
                    .collect(),
            },
        }
    }

    /// `self − other`.
    pub fn minus(&self, other: &Self) -> Self {
        let mut terms = self.terms.clone();
        terms.extend(other.terms.iter().map(|&(s, c)| (s, -c)));
        Self {
            offset: crate::math::sub(&self.offset, &other.offset),
            terms,
        }
    }

    /// `x(q)`.
    pub fn value(&self, q: &[f64]) -> Vec3 {
        let mut x = self.offset;
        self.add_linear(q, &mut x);
        x
    }

    /// Adds the linear part `Σ a_t q[s_t..s_t+3]` (the derivative in direction `q`) to `x`.
    pub fn add_linear(&self, q: &[f64], x: &mut Vec3) {
        for &(s, c) in &self.terms {
            for k in 0..3 {
                x[k] += c * q[s + k];
            }
        }
    }

    /// `∂x/∂q` applied from the left: `row += scale · wᵀ ∂x/∂q_loc`.
    pub fn add_gradient(&self, w: &Vec3, scale: f64, row: &mut [f64]) {
        for &(s, c) in &self.terms {
            for k in 0..3 {
                row[s + k] += scale * c * w[k];
            }
        }
    }

    /// The three constraint rows `Φ_k = x_k(q)` of a vector-valued affine constraint: values into
    /// `phi[..3]`, gradients into the rows `k` of `g` (row-major, `n` columns). Used by every
    /// joint that pins a point (spherical, revolute, prescribed).
    pub fn write_rows(&self, q: &[f64], phi: &mut [f64], g: &mut [f64], n: usize) {
        let x = self.value(q);
        for k in 0..3 {
            phi[k] = x[k];
            let mut e = [0.0; 3];
            e[k] = 1.0;
            self.add_gradient(&e, 1.0, &mut g[k * n..(k + 1) * n]);
        }
    }

    /// `h += scale · (∂a/∂q)ᵀ ∂b/∂q` (row-major `n × n`).
    pub fn add_product_hessian(a: &Self, b: &Self, scale: f64, h: &mut [f64], n: usize) {
        for &(s, c) in &a.terms {
            for &(t, d) in &b.terms {
                for k in 0..3 {
                    h[(s + k) * n + t + k] += scale * c * d;
                }
            }
        }
    }
}

/// Local index layout of a two-body constraint: local coordinates are the 12 of body A (if
/// not ground) followed by the 12 of body B (if not ground). Returns the global indices and
/// the local start of A and B.
pub(crate) fn two_body_indices(
    a: JointBody,
    b: JointBody,
) -> (Vec<usize>, Option<usize>, Option<usize>) {
    let mut idx = Vec::with_capacity(24);
    let start = |body: JointBody, idx: &mut Vec<usize>| match body {
        JointBody::Ground => None,
        JointBody::Body(k) => {
            let s = idx.len();
            idx.extend(12 * k..12 * k + 12);
            Some(s)
        }
    };
    let sa = start(a, &mut idx);
    let sb = start(b, &mut idx);
    (idx, sa, sb)
}

#[cfg(test)]
pub(crate) mod fd {
    //! Finite-difference check shared by the constraint unit tests.
    use super::super::Constraint;

    /// Checks `G`, `H` and `∂(Gv)/∂q` of `c` at `q` against central differences of `eval`.
    pub fn check(c: &dyn Constraint, q: &[f64], t: f64) {
        let (n, ne) = (c.indices().len(), c.n_eq());
        assert_eq!(q.len(), n);
        let lam: Vec<f64> = (0..ne)
            .map(|e| 0.3 + 0.7 * e as f64 - 0.2 * (e * e) as f64)
            .collect();
        let v: Vec<f64> = (0..n).map(|i| ((i * 37 % 11) as f64 - 5.0) * 0.1).collect();
        let eval = |q: &[f64], h: bool| {
            let (mut phi, mut g, mut hh) = (vec![0.0; ne], vec![0.0; ne * n], vec![0.0; n * n]);
            let (mut pt, mut ptt) = (vec![0.0; ne], vec![0.0; ne]);
            c.eval(
                q,
                &lam,
                &mut phi,
                &mut g,
                if h { Some(&mut hh) } else { None },
            );
            c.add_time_terms(t, &mut phi, &mut pt, &mut ptt);
            (phi, g, hh)
        };
        let (_, g, h) = eval(q, true);
        let mut gv = vec![0.0; ne * n];
        c.velocity_jacobian(q, &v, &mut gv);
        let eps = 1e-6;
        for col in 0..n {
            let (mut qp, mut qm) = (q.to_vec(), q.to_vec());
            qp[col] += eps;
            qm[col] -= eps;
            let (pp, gp, _) = eval(&qp, false);
            let (pm, gm, _) = eval(&qm, false);
            for e in 0..ne {
                let fd = (pp[e] - pm[e]) / (2.0 * eps);
                assert!(
                    (fd - g[e * n + col]).abs() < 1e-8,
                    "G[{e},{col}]: {fd} vs {}",
                    g[e * n + col]
                );
                let fd: f64 = (0..n)
                    .map(|j| v[j] * (gp[e * n + j] - gm[e * n + j]))
                    .sum::<f64>()
                    / (2.0 * eps);
                assert!((fd - gv[e * n + col]).abs() < 1e-8, "dGv[{e},{col}]");
            }
            for row in 0..n {
                let fd: f64 = (0..ne)
                    .map(|e| lam[e] * (gp[e * n + row] - gm[e * n + row]))
                    .sum::<f64>()
                    / (2.0 * eps);
                assert!((fd - h[row * n + col]).abs() < 1e-8, "H[{row},{col}]");
            }
        }
        // time derivatives
        let (mut p0, mut pt, mut ptt) = (vec![0.0; ne], vec![0.0; ne], vec![0.0; ne]);
        let (mut a, mut b) = (vec![0.0; ne], vec![0.0; ne]);
        c.add_time_terms(t, &mut p0, &mut pt, &mut ptt);
        let (mut pp, mut pm) = (vec![0.0; ne], vec![0.0; ne]);
        let et = 1e-5;
        c.add_time_terms(t + et, &mut pp, &mut a, &mut b);
        let (mut a2, mut b2) = (vec![0.0; ne], vec![0.0; ne]);
        c.add_time_terms(t - et, &mut pm, &mut a2, &mut b2);
        for e in 0..ne {
            assert!(
                ((pp[e] - pm[e]) / (2.0 * et) - pt[e]).abs() < 1e-7,
                "Φ_t[{e}]"
            );
            assert!(
                ((a[e] - a2[e]) / (2.0 * et) - ptt[e]).abs() < 1e-7,
                "Φ_tt[{e}]"
            );
        }
    }

    /// A generic configuration of `n_bodies` bodies (not orthonormal: the checks are algebraic).
    pub fn config(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| 0.2 + ((i * 7919) % 23) as f64 * 0.07 - 0.8)
            .collect()
    }
}
