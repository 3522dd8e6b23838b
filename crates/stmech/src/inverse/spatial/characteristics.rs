//! The spatial beam in the first-order form of the method of characteristics (`[I]` Eq. 22-28):
//! inertia, stiffness, speeds, modes and source at a state; the Cauchy data on the tip line
//! from the prescribed pose and the tip body; the actuation from the state at the base.
//!
//! # First-order form
//! With `x = (r, ψ)`, `v = ∂t x`, `p = ∂s x` and the point law of [`super::law`]
//! (`g_p(x, p)`, `g_x(x, p)`, the inertia force `M(x) ∂t v + h(x, v)`), the equations of motion
//! `M ∂t v + h + g_x − ∂s g_p = 0` and `∂t p = ∂s v` read
//!
//! ```text
//! M ∂t v − H ∂s p = F₁,     H = ∂g_p/∂p,     F₁ = −h(x, v) − g_x + (∂g_p/∂x) p
//! ```
//!
//! with `M = diag(ρA I, T J̃0 Tᵀ)`. Both `H` and `M` are congruent, by `blockdiag(Q R0, T R0)`,
//! to the constant pair `(C, diag(ρA I, J0))` of the section: the six speeds `c_k²`, the
//! generalised eigenvalues `H e = c² M e`, do not depend on the state (they are those of
//! [`super::wave_speeds`]); the modes `e_k` (`M`-orthonormal) and `F₁` do.
//!
//! # Tip line (Cauchy data at `s = L`)
//! `x`, `v` from the servo target ([`super::servo::PoseServo::state`]); `p` from the tip law
//! `g_p(x, p) = −f_tip(x, v, ẍ)` (the stress resultant at the tip carries the tip body's
//! inertia; zero at a free end), solved in closed form: with `g_p = (n, T m̃)`,
//! `ñ = Qᵀ n`, the director components `(N, M) = (R0ᵀ ñ, R0ᵀ m̃)`, `π = C⁻¹ (N, M)`, and then
//! `r′ = Q R0 (Γ + e3)`, `ψ′ = T⁻ᵀ R0 K`.
//!
//! # Actuation
//! `F = −g_p(x, p)` at `s = 0`, the generalised force of the space-time solver (its moment part
//! `Tᵀ m`; [`SpatialBeam::physical_actuation`] converts it).

use super::SpatialBeam;
use super::body::TipInertia;
use super::law::SpatialPointLaw;
use super::servo::ServoState;
use crate::inverse::element::{ElementError, PointLaw};
use crate::math::so3::{Rotation, tangent_inverse};

/// The characteristic data of the spatial beam at one state (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpatialCharacteristics {
    /// `M` (symmetric positive definite).
    pub inertia: [[f64; 6]; 6],
    /// Speeds `c_k > 0`, ascending (m/s).
    pub speeds: [f64; 6],
    /// Modes `e_k` (`H e_k = c_k² M e_k`, `e_kᵀ M e_l = δ_kl`), in the order of `speeds`.
    pub modes: [[f64; 6]; 6],
    /// `F₁`.
    pub source: [f64; 6],
}

/// The characteristic data at `(x, v, p)` (module docs).
pub fn characteristics(
    law: &SpatialPointLaw,
    x: &[f64; 6],
    v: &[f64; 6],
    p: &[f64; 6],
) -> Result<SpatialCharacteristics, ElementError> {
    let sp = law.stress_point(x, p, true)?;
    let ip = law.inertia_point(x, v, &[0.0; 6], true);
    let a = law.inertia();
    let mut m = ip.ja;
    for c in 0..6 {
        m[c][c] += a[c];
    }
    let (lam, modes) =
        crate::math::eigen::generalized(&sp.hpp, &m).ok_or(ElementError::RotationLimit {
            angle: f64::NAN,
            limit: super::law::MAX_ROTATION,
        })?;
    let source: [f64; 6] = std::array::from_fn(|c| {
        let hp: f64 = (0..6).map(|d| sp.hpx[c][d] * p[d]).sum();
        -ip.f[c] - sp.gx[c] + hp
    });
    Ok(SpatialCharacteristics {
        inertia: m,
        speeds: lam.map(|l| l.max(0.0).sqrt()),
        modes,
        source,
    })
}

/// `p` at the tip from the tip law `g_p(x, p) = −f_tip` (module docs) for the servo state `st`.
pub fn tip_gradient(beam: &SpatialBeam, st: &ServoState) -> Result<[f64; 6], ElementError> {
    let psi = [st.x[3], st.x[4], st.x[5]];
    // the target g_p = −f_tip
    let f = match &beam.tip {
        Some(m) => TipInertia::new(m, &beam.frame).force(
            psi,
            [st.v[3], st.v[4], st.v[5]],
            [st.a[0], st.a[1], st.a[2]],
            [st.a[3], st.a[4], st.a[5]],
        ),
        None => [0.0; 6],
    };
    let g = f.map(|c| -c);
    let rot = Rotation::new(psi);
    let n_t = rot.rotate_t(&[g[0], g[1], g[2]]);
    let m_t = tangent_inverse(&psi, &[g[3], g[4], g[5]]);
    let d = &beam.frame;
    let dot = |a: &[f64; 3], b: &[f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let s_mat = [
        dot(&d[0], &n_t),
        dot(&d[1], &n_t),
        dot(&d[2], &n_t),
        dot(&d[0], &m_t),
        dot(&d[1], &m_t),
        dot(&d[2], &m_t),
    ];
    let pi =
        solve6(beam.section.stiffness(), &s_mat).ok_or(ElementError::Inverted { nu: f64::NAN })?;
    // r′ = Q R0 (Γ + e3), ψ′ = T⁻ᵀ R0 K
    let comb = |u: [f64; 3]| -> [f64; 3] {
        std::array::from_fn(|a| u[0] * d[0][a] + u[1] * d[1][a] + u[2] * d[2][a])
    };
    let rp = rot.rotate(&comb([pi[0], pi[1], pi[2] + 1.0]));
    let neg = psi.map(|c| -c);
    let psip = tangent_inverse(&neg, &comb([pi[3], pi[4], pi[5]]));
    Ok([rp[0], rp[1], rp[2], psip[0], psip[1], psip[2]])
}

/// The generalised actuation `F = −g_p(x, p)` at the base (module docs).
pub fn actuation(
    law: &SpatialPointLaw,
    x: &[f64; 6],
    p: &[f64; 6],
) -> Result<[f64; 6], ElementError> {
    Ok(law.stress_point(x, p, false)?.gp.map(|c| -c))
}

/// Gaussian elimination with partial pivoting, 6 × 6.
fn solve6(a: &[[f64; 6]; 6], b: &[f64; 6]) -> Option<[f64; 6]> {
    let (mut a, mut b) = (*a, *b);
    for c in 0..6 {
        let piv = (c..6).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[piv][c] == 0.0 || !a[piv][c].is_finite() {
            return None;
        }
        a.swap(piv, c);
        b.swap(piv, c);
        for r in c + 1..6 {
            let f = a[r][c] / a[c][c];
            for k in c..6 {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = [0.0; 6];
    for r in (0..6).rev() {
        let s: f64 = (r + 1..6).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::trajectory::RestToRestProfile;
    use crate::inverse::trajectory::pose::{Pose, RestToRestPose};
    use crate::model::MassProperties;
    use crate::model::director_beam::section::{DiagonalStiffness, Section, SectionInertia};

    fn beam() -> SpatialBeam {
        SpatialBeam {
            length: 1.0,
            section: Section::from_diagonal(
                DiagonalStiffness {
                    ea: 4.0,
                    ga1: 2.0,
                    ga2: 3.0,
                    ei1: 1.0,
                    ei2: 1.5,
                    gj: 2.0,
                },
                SectionInertia {
                    rho_a: 1.0,
                    euler_tensor: [[1.0, 0.1], [0.1, 0.8]],
                },
            )
            .unwrap(),
            base: [0.0; 3],
            frame: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
            tip: Some(MassProperties::from_box(
                [0.2, 0.3, 0.2],
                100.0,
                [0.05, 0.0, -0.1],
            )),
        }
    }

    /// The speeds at any state are the section's (state-independent), the modes are
    /// generalised eigenvectors, and the tip law inverts: `g_p(x, p) = −f_tip`.
    #[test]
    fn speeds_are_constant_and_the_tip_law_inverts() {
        let b = beam();
        let law = SpatialPointLaw::new(&b.section, b.frame);
        let rest = super::super::wave_speeds(&b.section);
        let x = [0.1, 0.2, -0.1, 0.7, -0.4, 0.9];
        let v = [0.3, 0.1, 0.2, -0.5, 0.6, 0.2];
        let p = [0.9, 0.3, -0.2, 0.2, 0.4, -0.3];
        let ch = characteristics(&law, &x, &v, &p).unwrap();
        let sp = law.stress_point(&x, &p, true).unwrap();
        for k in 0..6 {
            assert!((ch.speeds[k] - rest.speeds[k]).abs() < 1e-12, "{k}");
            for i in 0..6 {
                let he: f64 = (0..6).map(|j| sp.hpp[i][j] * ch.modes[k][j]).sum();
                let me: f64 = (0..6).map(|j| ch.inertia[i][j] * ch.modes[k][j]).sum();
                assert!((he - ch.speeds[k].powi(2) * me).abs() < 1e-12);
            }
        }
        let start = Pose {
            position: [1.0, 0.0, 0.0],
            directors: b.frame,
        };
        let path = RestToRestPose::helix(
            start,
            [0.0; 3],
            [0.0, 0.0, 1.0],
            1.0,
            0.3,
            [1.0, 0.5, 0.0],
            1.2,
            RestToRestProfile {
                t0: 0.0,
                duration: 2.0,
            },
        )
        .unwrap();
        let servo = super::super::PoseServo::new(&path, &b.frame, 0.0, 2.0).unwrap();
        let st = servo.state(0.7);
        let pt = tip_gradient(&b, &st).unwrap();
        let g = law.stress_point(&st.x, &pt, false).unwrap().gp;
        let m = b.tip.unwrap();
        let f = TipInertia::new(&m, &b.frame).force(
            [st.x[3], st.x[4], st.x[5]],
            [st.v[3], st.v[4], st.v[5]],
            [st.a[0], st.a[1], st.a[2]],
            [st.a[3], st.a[4], st.a[5]],
        );
        for c in 0..6 {
            assert!((g[c] + f[c]).abs() < 1e-12, "{c}: {} {}", g[c], f[c]);
        }
    }
}
