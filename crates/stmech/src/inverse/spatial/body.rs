//! The arm as a body of the space-time inverse solver ([`InverseBody<6>`]): the spatial point
//! law, the rest state, and the tip body's inertia as the nonlinear tip law.
//!
//! # Tip body
//! A rigid body welded to the tip point `r(L)` with the tip frame `R(L) = Q(ψ(L)) R0`: mass `m`,
//! first moment `s = Q s̃` (`s̃ = R0 S`, `S` the director components of
//! [`crate::model::MassProperties::first_moment`]) and inertia about the tip point `J = Q J̃ Qᵀ`
//! (`J̃ = R0 (tr E I − E) R0ᵀ`). Its inertial force and moment about the tip point (what the
//! beam must exert on it) are the Newton–Euler expressions
//!
//! ```text
//! F = m r̈ + α × s + ω × (ω × s)                = m r̈ + Q (Ω̇ × s̃ + Ω × (Ω × s̃))
//! M = s × r̈ + J α + ω × J ω                    = Q (s̃ × Qᵀ r̈ + J̃ Ω̇ + Ω × J̃ Ω)
//! ```
//!
//! (`Ω = Tᵀ ψ̇`, `Ω̇ = Tᵀ ψ̈ + [∂(Tᵀψ̇)/∂ψ] ψ̇` as for the section), and the tip law of the weak
//! form is their generalised force `f_tip = (F, Tᵀ M) = (F, T (s̃ × Qᵀ r̈ + J̃ Ω̇ + Ω × J̃ Ω))`,
//! `[I]` Eq. 4 with `h = −f_tip`. Its Jacobians come from dual numbers.

use super::SpatialBeam;
use super::law::{SpatialPointLaw, to_global};
use crate::inverse::body::InverseBody;
use crate::inverse::element::{BilinearElement, InertiaPoint, PointLaw};
use crate::math::dual::{Dual, Real};
use crate::math::so3::{Rotation, V3, add, cross, lift, mat_vec};
use crate::model::MassProperties;

/// The tip body in the reference-rotated global frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TipInertia {
    /// `m` (kg).
    pub mass: f64,
    /// `s̃ = R0 S` (kg·m).
    pub first_moment: [f64; 3],
    /// `J̃` about the tip point (kg·m²).
    pub inertia: [[f64; 3]; 3],
}

impl TipInertia {
    /// The body `m` (relative to the tip point and the tip directors) with the reference
    /// directors `frame`.
    pub(crate) fn new(m: &MassProperties, frame: &[[f64; 3]; 3]) -> Self {
        let s = m.first_moment;
        Self {
            mass: m.mass,
            first_moment: std::array::from_fn(|a| {
                s[0] * frame[0][a] + s[1] * frame[1][a] + s[2] * frame[2][a]
            }),
            inertia: to_global(frame, &m.inertia_tensor()),
        }
    }

    /// `(F, Tᵀ M)` at `ψ`, `ψ̇`, `r̈`, `ψ̈` (module docs).
    pub(crate) fn force<S: Real>(&self, psi: V3<S>, w: V3<S>, ar: V3<S>, aw: V3<S>) -> [S; 6] {
        let rot = Rotation::new(psi);
        let om = rot.tangent_t(&w);
        let om_t = add(&rot.tangent_t(&aw), &rot.tangent_t_rate(&w, &w));
        let st = lift::<S>(&self.first_moment);
        let f_rel = add(&cross(&om_t, &st), &cross(&om, &cross(&om, &st)));
        let fq = rot.rotate(&f_rel);
        let f: V3<S> = std::array::from_fn(|k| ar[k] * self.mass + fq[k]);
        let jo = mat_vec(&self.inertia, &om);
        let m_rel = add(
            &add(
                &cross(&st, &rot.rotate_t(&ar)),
                &mat_vec(&self.inertia, &om_t),
            ),
            &cross(&om, &jo),
        );
        let g = rot.tangent(&m_rel);
        [f[0], f[1], f[2], g[0], g[1], g[2]]
    }

    /// Kinetic energy at `ψ`, `ṙ`, `ψ̇` (J).
    pub(crate) fn kinetic(&self, psi: [f64; 3], vr: [f64; 3], w: [f64; 3]) -> f64 {
        let rot = Rotation::new(psi);
        let om = rot.tangent_t(&w);
        let vt = rot.rotate_t(&vr);
        let jo = mat_vec(&self.inertia, &om);
        let cross_term = crate::math::so3::dot(&vt, &cross(&om, &self.first_moment));
        0.5 * self.mass * crate::math::so3::dot(&vr, &vr)
            + cross_term
            + 0.5 * crate::math::so3::dot(&om, &jo)
    }
}

fn v3(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

impl InverseBody<6> for SpatialBeam {
    const STAGE: crate::solve::newton::Stage = crate::solve::newton::Stage::SpatialInverseDomain;
    type Law = SpatialPointLaw;
    const NONLINEAR_TIP: bool = true;

    fn length(&self) -> f64 {
        self.length
    }

    fn element(&self, hs: f64, ht: f64) -> BilinearElement<SpatialPointLaw, 6> {
        BilinearElement::with_law(SpatialPointLaw::new(&self.section, self.frame), hs, ht)
    }

    fn tip_mass(&self) -> Option<[f64; 6]> {
        None
    }

    fn tip_point(
        &self,
        x: &[f64; 6],
        v: &[f64; 6],
        a: &[f64; 6],
        tangent: bool,
    ) -> InertiaPoint<6> {
        let mut ip = InertiaPoint::ZERO;
        let Some(m) = &self.tip else {
            return ip;
        };
        let tip = TipInertia::new(m, &self.frame);
        if !tangent {
            ip.f = tip.force(v3(&x[3..6]), v3(&v[3..6]), v3(&a[0..3]), v3(&a[3..6]));
            return ip;
        }
        // variables: ψ (0..3), ψ̇ (3..6), r̈ (6..9), ψ̈ (9..12)
        let var = |u: &[f64], o: usize| -> V3<Dual<12>> {
            std::array::from_fn(|k| Dual::var(u[k], o + k))
        };
        let f = tip.force(
            var(&x[3..6], 0),
            var(&v[3..6], 3),
            var(&a[0..3], 6),
            var(&a[3..6], 9),
        );
        for c in 0..6 {
            ip.f[c] = f[c].v;
            for d in 0..3 {
                ip.jx[c][3 + d] = f[c].d[d];
                ip.jv[c][3 + d] = f[c].d[3 + d];
                ip.ja[c][d] = f[c].d[6 + d];
                ip.ja[c][3 + d] = f[c].d[9 + d];
            }
        }
        ip
    }

    fn initial_nodes(&self, elements_s: usize) -> Vec<[f64; 6]> {
        let hs = self.length / elements_s as f64;
        (0..=elements_s)
            .map(|i| {
                let r = self.rest_position(i as f64 * hs);
                [r[0], r[1], r[2], 0.0, 0.0, 0.0]
            })
            .collect()
    }

    /// The static residual of node 0 with the element's one-point rule:
    /// `F = −g_p + ½ h_s g_x` of the first element (zero for the stress-free rest state).
    fn initial_actuation(
        &self,
        element: &BilinearElement<SpatialPointLaw, 6>,
        x0: &[[f64; 6]],
        hs: f64,
    ) -> [f64; 6] {
        let x: [f64; 6] = std::array::from_fn(|c| 0.5 * (x0[0][c] + x0[1][c]));
        let p: [f64; 6] = std::array::from_fn(|c| (x0[1][c] - x0[0][c]) / hs);
        match element.law().stress_point(&x, &p, false) {
            Ok(sp) => std::array::from_fn(|c| -sp.gp[c] + 0.5 * hs * sp.gx[c]),
            Err(_) => [0.0; 6],
        }
    }
}

impl SpatialBeam {
    /// The physical actuation `(force, moment)` (N, N·m, global frame) of the generalised force
    /// `F = (f, Tᵀ m)` conjugate to `(r, ψ)` at the base rotation vector `psi`.
    pub fn physical_actuation(psi: &[f64; 3], f: &[f64; 6]) -> ([f64; 3], [f64; 3]) {
        // m = T⁻ᵀ (Tᵀ m): T⁻ᵀ u = T(−ψ)⁻¹ u
        let neg = psi.map(|c| -c);
        let m = crate::math::so3::tangent_inverse(&neg, &v3(&f[3..6]));
        (v3(&f[0..3]), m)
    }

    /// The tip body's kinetic energy at the tip state `(x, v)` (J; zero without a body).
    pub(crate) fn tip_kinetic(&self, x: &[f64; 6], v: &[f64; 6]) -> f64 {
        self.tip.as_ref().map_or(0.0, |m| {
            TipInertia::new(m, &self.frame).kinetic(v3(&x[3..6]), v3(&v[0..3]), v3(&v[3..6]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rotation::rotate;

    fn body() -> TipInertia {
        let frame = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
            .map(|e| rotate(&[0.0, 0.6, 0.8], 0.5, &e));
        let m = MassProperties {
            mass: 2.0,
            first_moment: [0.1, -0.2, 0.3],
            euler_tensor: [[0.3, 0.02, 0.01], [0.02, 0.2, -0.03], [0.01, -0.03, 0.25]],
        };
        TipInertia::new(&m, &frame)
    }

    /// The tip force is Lagrange's `d/dt ∂T/∂q̇ − ∂T/∂q` of the body's kinetic energy in
    /// `q = (r, ψ)` (central differences along a quadratic path).
    #[test]
    fn tip_force_is_lagranges() {
        let b = body();
        let (psi0, w0, aw) = ([0.3, -0.8, 0.6], [0.5, 0.2, -0.7], [-0.3, 0.6, 0.4]);
        let (v0, ar) = ([0.2, -0.1, 0.4], [1.1, -0.5, 0.3]);
        let state = |t: f64| -> ([f64; 3], [f64; 3], [f64; 3]) {
            (
                std::array::from_fn(|k| psi0[k] + w0[k] * t + 0.5 * aw[k] * t * t),
                std::array::from_fn(|k| v0[k] + ar[k] * t),
                std::array::from_fn(|k| w0[k] + aw[k] * t),
            )
        };
        let h = 1e-5;
        let f = b.force(psi0, w0, ar, aw);
        for k in 0..6 {
            // ∂T/∂q̇_k at t
            let dtdv = |t: f64| {
                let (psi, vr, w) = state(t);
                let (mut vp, mut vm, mut wp, mut wm) = (vr, vr, w, w);
                if k < 3 {
                    vp[k] += h;
                    vm[k] -= h;
                } else {
                    wp[k - 3] += h;
                    wm[k - 3] -= h;
                }
                (b.kinetic(psi, vp, wp) - b.kinetic(psi, vm, wm)) / (2.0 * h)
            };
            let ddt = (dtdv(h) - dtdv(-h)) / (2.0 * h);
            let dtdq = if k < 3 {
                0.0
            } else {
                let (mut pp, mut pm) = (psi0, psi0);
                pp[k - 3] += h;
                pm[k - 3] -= h;
                (b.kinetic(pp, v0, w0) - b.kinetic(pm, v0, w0)) / (2.0 * h)
            };
            assert!(
                (ddt - dtdq - f[k]).abs() < 1e-6,
                "{k}: {} vs {}",
                ddt - dtdq,
                f[k]
            );
        }
    }
}
