//! The rotation-vector parametrisation of SO(3), written over [`Real`] so that the kernels
//! built on it get exact tangents from dual numbers.
//!
//! # Formulas
//! With `ψ` the rotation vector, `θ = |ψ|`, `ψ̂` the skew matrix of `ψ` (`ψ̂ u = ψ × u`):
//!
//! ```text
//! Q(ψ) = exp(ψ̂) = I + a ψ̂ + b ψ̂²            a = sin θ/θ,  b = (1 − cos θ)/θ²
//! T(ψ)         = I + b ψ̂ + c ψ̂²             c = (θ − sin θ)/θ³
//! ```
//!
//! `T` is the tangent map: a path `ψ(t)` has the spatial angular velocity `ω = T(ψ) ψ̇`
//! (`Q̇ Qᵀ = ω̂`), and a variation `δψ` the spatial virtual rotation `δθ = T δψ`. Identities
//! used throughout: `T = Q Tᵀ`, so `Qᵀ T = Tᵀ` and `T Qᵀ = Tᵀ`; `Tᵀ(ψ) = T(−ψ)`. The one
//! derivative every kernel needs is the gradient of the scalar `w · T(ψ) u` for fixed `u, w`,
//!
//! ```text
//! G(u, w) = ∇ψ [w · T(ψ) u]
//!         = b₁ ψ (ψ·(u×w)) + b u×w + c₁ ψ [(ψ·u)(ψ·w) − θ² u·w] + c [u (ψ·w) + w (ψ·u) − 2 ψ (u·w)]
//! ```
//!
//! with `b₁ = b′(θ)/θ`, `c₁ = c′(θ)/θ`, from `w·Tu = w·u + b ψ·(u×w) + c [(ψ·u)(ψ·w) − θ² u·w]`;
//! and the directional derivative `B(u, w) = [∂(T u)/∂ψ] w` (the rate of `T u` along `ψ̇ = w`),
//!
//! ```text
//! B(u, w) = b₁ (ψ·w) ψ×u + b w×u + c₁ (ψ·w) ψ×(ψ×u) + c [ψ (w·u) + w (ψ·u) − 2 u (ψ·w)].
//! ```
//!
//! The coefficient functions are even in `θ`: they are evaluated as functions of `θ² = ψ·ψ`,
//! by their Taylor series below `θ² = 0.04` (no `sqrt` of zero, no cancellation) and in closed
//! form above. `T` is singular at `θ = 2π` (`b = c = 1/(2π²)`, `det T = 2(1 − cos θ)/θ²`).

use super::dual::Real;

/// A 3-vector of scalars.
pub type V3<S> = [S; 3];

/// `a · b`.
#[inline]
pub fn dot<S: Real>(a: &V3<S>, b: &V3<S>) -> S {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
#[inline]
pub fn cross<S: Real>(a: &V3<S>, b: &V3<S>) -> V3<S> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a + b`.
#[inline]
pub fn add<S: Real>(a: &V3<S>, b: &V3<S>) -> V3<S> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `s a`.
#[inline]
pub fn scale<S: Real>(s: S, a: &V3<S>) -> V3<S> {
    [s * a[0], s * a[1], s * a[2]]
}

/// `A u` for a constant matrix `A`.
#[inline]
pub fn mat_vec<S: Real>(a: &[[f64; 3]; 3], u: &V3<S>) -> V3<S> {
    std::array::from_fn(|i| u[0] * a[i][0] + u[1] * a[i][1] + u[2] * a[i][2])
}

/// `Aᵀ u` for a constant matrix `A`.
#[inline]
pub fn mat_t_vec<S: Real>(a: &[[f64; 3]; 3], u: &V3<S>) -> V3<S> {
    std::array::from_fn(|i| u[0] * a[0][i] + u[1] * a[1][i] + u[2] * a[2][i])
}

/// A constant vector as scalars.
#[inline]
pub fn lift<S: Real>(u: &[f64; 3]) -> V3<S> {
    u.map(S::cst)
}

/// The coefficient functions of `Q` and `T` at one rotation vector (module docs).
#[derive(Clone, Copy, Debug)]
pub struct Rotation<S> {
    /// The rotation vector `ψ`.
    pub psi: V3<S>,
    /// `θ² = ψ·ψ`.
    pub theta2: S,
    /// `sin θ/θ`.
    pub a: S,
    /// `(1 − cos θ)/θ²`.
    pub b: S,
    /// `(θ − sin θ)/θ³`.
    pub c: S,
    /// `b′(θ)/θ = (θ sin θ − 2(1 − cos θ))/θ⁴`.
    pub b1: S,
    /// `c′(θ)/θ = (θ(1 − cos θ) − 3(θ − sin θ))/θ⁵`.
    pub c1: S,
}

/// Below this `θ²` the coefficients are evaluated by their Taylor series.
const SERIES_BELOW: f64 = 0.04;

/// `Σ_k coef[k] t^k` (Horner).
#[inline]
fn poly<S: Real>(t: S, coef: &[f64]) -> S {
    let mut acc = S::cst(coef[coef.len() - 1]);
    for &k in coef[..coef.len() - 1].iter().rev() {
        acc = acc * t + k;
    }
    acc
}

impl<S: Real> Rotation<S> {
    /// The coefficients at `ψ`.
    pub fn new(psi: V3<S>) -> Self {
        let t = dot(&psi, &psi);
        let (a, b, c, b1, c1) = if t.value() < SERIES_BELOW {
            // Taylor series in t = θ² (terms through t⁵; the first omitted term is below
            // 1e-17 of the leading one at t = 0.04)
            (
                poly(
                    t,
                    &[
                        1.0,
                        -1.0 / 6.0,
                        1.0 / 120.0,
                        -1.0 / 5040.0,
                        1.0 / 362_880.0,
                        -1.0 / 39_916_800.0,
                    ],
                ),
                poly(
                    t,
                    &[
                        0.5,
                        -1.0 / 24.0,
                        1.0 / 720.0,
                        -1.0 / 40_320.0,
                        1.0 / 3_628_800.0,
                        -1.0 / 479_001_600.0,
                    ],
                ),
                poly(
                    t,
                    &[
                        1.0 / 6.0,
                        -1.0 / 120.0,
                        1.0 / 5040.0,
                        -1.0 / 362_880.0,
                        1.0 / 39_916_800.0,
                        -1.0 / 6_227_020_800.0,
                    ],
                ),
                // b1 = 2 db/dt, c1 = 2 dc/dt
                poly(
                    t,
                    &[
                        -1.0 / 12.0,
                        2.0 * 2.0 / 720.0,
                        -2.0 * 3.0 / 40_320.0,
                        2.0 * 4.0 / 3_628_800.0,
                        -2.0 * 5.0 / 479_001_600.0,
                    ],
                ),
                poly(
                    t,
                    &[
                        -1.0 / 60.0,
                        2.0 * 2.0 / 5040.0,
                        -2.0 * 3.0 / 362_880.0,
                        2.0 * 4.0 / 39_916_800.0,
                        -2.0 * 5.0 / 6_227_020_800.0,
                    ],
                ),
            )
        } else {
            let th = t.sqrt();
            let (s, co) = (th.sin(), th.cos());
            let one_c = -(co - 1.0);
            let th_s = th - s;
            let t2 = t * t;
            (
                s / th,
                one_c / t,
                th_s / (t * th),
                (th * s - one_c * 2.0) / t2,
                (th * one_c - th_s * 3.0) / (t2 * th),
            )
        };
        Self {
            psi,
            theta2: t,
            a,
            b,
            c,
            b1,
            c1,
        }
    }

    /// `Q u = u + a ψ×u + b ψ×(ψ×u)`.
    #[inline]
    pub fn rotate(&self, u: &V3<S>) -> V3<S> {
        let pu = cross(&self.psi, u);
        let ppu = cross(&self.psi, &pu);
        std::array::from_fn(|k| u[k] + self.a * pu[k] + self.b * ppu[k])
    }

    /// `Qᵀ u = u − a ψ×u + b ψ×(ψ×u)`.
    #[inline]
    pub fn rotate_t(&self, u: &V3<S>) -> V3<S> {
        let pu = cross(&self.psi, u);
        let ppu = cross(&self.psi, &pu);
        std::array::from_fn(|k| u[k] - self.a * pu[k] + self.b * ppu[k])
    }

    /// `T u = u + b ψ×u + c ψ×(ψ×u)`.
    #[inline]
    pub fn tangent(&self, u: &V3<S>) -> V3<S> {
        let pu = cross(&self.psi, u);
        let ppu = cross(&self.psi, &pu);
        std::array::from_fn(|k| u[k] + self.b * pu[k] + self.c * ppu[k])
    }

    /// `Tᵀ u = u − b ψ×u + c ψ×(ψ×u)`.
    #[inline]
    pub fn tangent_t(&self, u: &V3<S>) -> V3<S> {
        let pu = cross(&self.psi, u);
        let ppu = cross(&self.psi, &pu);
        std::array::from_fn(|k| u[k] - self.b * pu[k] + self.c * ppu[k])
    }

    /// `G(u, w) = ∇ψ [w · T(ψ) u]` (module docs); `∇ψ [w · Tᵀ(ψ) u] = G(w, u)`.
    pub fn grad_w_t_u(&self, u: &V3<S>, w: &V3<S>) -> V3<S> {
        let psi = &self.psi;
        let uw = cross(u, w);
        let (pu, pw, uw_dot) = (dot(psi, u), dot(psi, w), dot(u, w));
        let f1 = self.b1 * dot(psi, &uw) + self.c1 * (pu * pw - self.theta2 * uw_dot)
            - self.c * uw_dot * 2.0;
        std::array::from_fn(|k| psi[k] * f1 + self.b * uw[k] + self.c * (u[k] * pw + w[k] * pu))
    }

    /// `B(u, w) = [∂(T u)/∂ψ] w` (module docs).
    pub fn tangent_rate(&self, u: &V3<S>, w: &V3<S>) -> V3<S> {
        self.rate(u, w, S::cst(1.0))
    }

    /// `[∂(Tᵀ u)/∂ψ] w` (`B` with `b, b₁` negated: `Tᵀ(ψ) = T(−ψ)`).
    pub fn tangent_t_rate(&self, u: &V3<S>, w: &V3<S>) -> V3<S> {
        self.rate(u, w, S::cst(-1.0))
    }

    fn rate(&self, u: &V3<S>, w: &V3<S>, sign: S) -> V3<S> {
        let psi = &self.psi;
        let pw = dot(psi, w);
        let pu_x = cross(psi, u);
        let ppu = cross(psi, &pu_x);
        let wu = cross(w, u);
        let (wu_dot, pu) = (dot(w, u), dot(psi, u));
        std::array::from_fn(|k| {
            sign * (self.b1 * pw * pu_x[k] + self.b * wu[k])
                + self.c1 * pw * ppu[k]
                + self.c * (psi[k] * wu_dot + w[k] * pu - u[k] * pw * 2.0)
        })
    }
}

/// `T(ψ)⁻¹ u` (`f64`): `T⁻¹ = I − ½ ψ̂ + d ψ̂²`, `d = (1 − (θ/2) cot(θ/2))/θ²`. Singular at
/// `θ = 2π`.
pub fn tangent_inverse(psi: &[f64; 3], u: &[f64; 3]) -> [f64; 3] {
    let t = dot(psi, psi);
    let d = if t < SERIES_BELOW {
        // 1/12 + t/720 + t²/30240 + t³/1209600
        poly(
            t,
            &[1.0 / 12.0, 1.0 / 720.0, 1.0 / 30_240.0, 1.0 / 1_209_600.0],
        )
    } else {
        let th = t.sqrt();
        (1.0 - 0.5 * th / (0.5 * th).tan()) / t
    };
    let pu = cross(psi, u);
    let ppu = cross(psi, &pu);
    std::array::from_fn(|k| u[k] - 0.5 * pu[k] + d * ppu[k])
}

/// The rotation vector of the unit quaternion `q = (w, x, y, z)` on the branch of `q`'s sign:
/// the angle `2 atan2(|v|, w) ∈ [0, 2π]` about `v/|v|`. A sign-continuous quaternion path
/// gives a continuous rotation vector (up to the singular angle `2π`).
pub fn rotation_vector_on_branch(q: &[f64; 4]) -> [f64; 3] {
    let s = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if s < 1e-12 {
        // near the identity (w ≈ ±1): ψ ≈ 2 v / w
        let w = q[0];
        return [2.0 * q[1] / w, 2.0 * q[2] / w, 2.0 * q[3] / w];
    }
    let phi = 2.0 * s.atan2(q[0]);
    [q[1] * phi / s, q[2] * phi / s, q[3] * phi / s]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::dual::Dual;
    use crate::math::rotation::{quat_from_rotation_vector, quat_rotate};

    const PSIS: [[f64; 3]; 5] = [
        [0.3, -1.1, 0.7],
        [1e-3, 2e-3, -1e-3],
        [0.12, 0.1, -0.05],
        [2.0, 1.5, -2.5],
        [0.0, 0.0, 0.0],
    ];

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    /// `Q` is Rodrigues' rotation and `ω = T ψ̇` (the angular velocity of `Q(ψ(t))` by central
    /// differences of the quaternion), on both sides of the series threshold.
    #[test]
    fn rotation_and_tangent_match_rodrigues_and_angular_velocity() {
        let v = [0.2, 0.5, -1.3];
        for psi in PSIS {
            let r = Rotation::new(psi);
            let q = quat_from_rotation_vector(&psi);
            assert!(close(&r.rotate(&v), &quat_rotate(&q, &v), 1e-14), "{psi:?}");
            let back = r.rotate_t(&r.rotate(&v));
            assert!(close(&back, &v, 1e-14));
            // ω of ψ(t) = ψ + t u at t = 0: Q(ψ + h u) Q(ψ − h u)ᵀ ≈ exp(2h ω̂)
            let u = [0.4, -0.3, 0.9];
            let h = 1e-6;
            let (qp, qm) = (
                quat_from_rotation_vector(&[0, 1, 2].map(|k| psi[k] + h * u[k])),
                quat_from_rotation_vector(&[0, 1, 2].map(|k| psi[k] - h * u[k])),
            );
            let rel = crate::math::rotation::quat_mul(&qp, &crate::math::rotation::quat_conj(&qm));
            let w = crate::math::rotation::rotation_vector_of_quat(&rel).map(|x| x / (2.0 * h));
            assert!(close(&r.tangent(&u), &w, 1e-8), "{psi:?}");
            // Q Tᵀ = T
            assert!(close(&r.rotate(&r.tangent_t(&u)), &r.tangent(&u), 1e-14));
            // T⁻¹
            assert!(close(&tangent_inverse(&psi, &r.tangent(&u)), &u, 1e-13));
        }
    }

    /// `G(u, w)` is the gradient of `w·T(ψ)u` and `B(u, w)` the derivative of `T u` along `w`
    /// (dual numbers through the coefficient functions, both branches), and the dual numbers
    /// agree with central differences.
    #[test]
    fn gradient_and_rate_are_the_derivatives_of_t() {
        let (u, w) = ([0.3, -0.8, 0.5], [-0.2, 0.4, 1.1]);
        for psi in PSIS {
            let d: [Dual<3>; 3] = std::array::from_fn(|k| Dual::var(psi[k], k));
            let rd = Rotation::new(d);
            let wtu = dot(&lift(&w), &rd.tangent(&lift(&u)));
            let g = Rotation::new(psi).grad_w_t_u(&u, &w);
            assert!(close(&wtu.d, &g, 1e-14), "{psi:?}: {:?} {g:?}", wtu.d);
            let wttu = dot(&lift(&w), &rd.tangent_t(&lift(&u)));
            let gt = Rotation::new(psi).grad_w_t_u(&w, &u);
            assert!(close(&wttu.d, &gt, 1e-14), "{psi:?}");
            let tu = rd.tangent(&lift(&u));
            let rate: [f64; 3] = std::array::from_fn(|i| (0..3).map(|k| tu[i].d[k] * w[k]).sum());
            assert!(close(
                &rate,
                &Rotation::new(psi).tangent_rate(&u, &w),
                1e-14
            ));
            let ttu = rd.tangent_t(&lift(&u));
            let rate_t: [f64; 3] =
                std::array::from_fn(|i| (0..3).map(|k| ttu[i].d[k] * w[k]).sum());
            assert!(close(
                &rate_t,
                &Rotation::new(psi).tangent_t_rate(&u, &w),
                1e-14
            ));
            // dual vs central differences (checks the coefficient derivatives themselves)
            let h = 1e-6;
            for k in 0..3 {
                let f = |x: f64| {
                    let mut p = psi;
                    p[k] += x;
                    dot(&w, &Rotation::new(p).tangent(&u))
                };
                let fd = (f(h) - f(-h)) / (2.0 * h);
                assert!((fd - g[k]).abs() < 1e-8, "{psi:?} {k}: {fd} {}", g[k]);
            }
        }
        // the two branches meet continuously at the threshold (values and first derivatives)
        let s = SERIES_BELOW.sqrt();
        let below = Rotation::new([s * (1.0 - 1e-12), 0.0, 0.0]);
        let above = Rotation::new([s * (1.0 + 1e-12), 0.0, 0.0]);
        for (x, y) in [
            (below.a, above.a),
            (below.b, above.b),
            (below.c, above.c),
            (below.b1, above.b1),
            (below.c1, above.c1),
        ] {
            assert!((x - y).abs() < 1e-12, "{x} {y}");
        }
    }

    #[test]
    fn branch_rotation_vector_is_continuous_past_pi() {
        let axis = [0.0, 0.6, 0.8];
        let mut prev: Option<[f64; 3]> = None;
        for k in 0..=40 {
            let ang = 0.15 * k as f64; // up to 6 rad > π
            let (s, c) = (0.5 * ang).sin_cos();
            let q = [c, s * axis[0], s * axis[1], s * axis[2]];
            let psi = rotation_vector_on_branch(&q);
            assert!(close(&psi, &axis.map(|a| a * ang), 1e-12), "{ang}: {psi:?}");
            if let Some(p) = prev {
                assert!(close(&psi, &p, 0.16));
            }
            prev = Some(psi);
        }
    }
}
