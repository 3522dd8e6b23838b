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
use super::law::{SpatialPointLaw, section_rotary_inertia};
use super::servo::{PoseServo, ServoState};
use crate::inverse::body::InverseBody;
use crate::inverse::characteristics_body::{CharacteristicBody, Characteristics, State, TipData};
use crate::inverse::element::{BilinearElement, ElementError, InertiaPoint, PointLaw};
use crate::math::dual::{Dual, Real};
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

/// The arm as the march sees it: the beam with its law and the constant eigenpairs
/// `C u_k = c_k² D u_k`, `D = diag(ρA I, J0)` (`u_kᵀ D u_l = δ_kl`), from which the modes at a
/// state follow by the congruence of the module docs: `e_k = (Q R0 u_r, T⁻ᵀ R0 u_ψ)` and
/// `M e_k = (ρA Q R0 u_r, T R0 J0 u_ψ)`, no eigenproblem per state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MarchArm {
    pub beam: SpatialBeam,
    law: SpatialPointLaw,
    speeds: [f64; 6],
    u: [[f64; 6]; 6],
    j0: [[f64; 3]; 3],
}

impl MarchArm {
    pub(crate) fn new(beam: &SpatialBeam) -> Self {
        let j0 = section_rotary_inertia(&beam.section);
        let mut d = [[0.0; 6]; 6];
        for k in 0..3 {
            d[k][k] = beam.section.rho_a();
            for l in 0..3 {
                d[3 + k][3 + l] = j0[k][l];
            }
        }
        let (lam, u) = crate::math::eigen::generalized(beam.section.stiffness(), &d)
            .expect("a validated section has a positive definite inertia");
        Self {
            beam: *beam,
            law: SpatialPointLaw::new(&beam.section, beam.frame),
            speeds: lam.map(|l| l.max(0.0).sqrt()),
            u,
            j0,
        }
    }
}

impl InverseBody<6> for MarchArm {
    type Law = SpatialPointLaw;
    const NONLINEAR_TIP: bool = true;
    fn length(&self) -> f64 {
        self.beam.length
    }
    fn element(&self, hs: f64, ht: f64) -> BilinearElement<SpatialPointLaw, 6> {
        self.beam.element(hs, ht)
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
        self.beam.tip_point(x, v, a, tangent)
    }
    fn initial_nodes(&self, elements_s: usize) -> Vec<[f64; 6]> {
        self.beam.initial_nodes(elements_s)
    }
    fn initial_actuation(
        &self,
        element: &BilinearElement<SpatialPointLaw, 6>,
        x0: &[[f64; 6]],
        hs: f64,
    ) -> [f64; 6] {
        self.beam.initial_actuation(element, x0, hs)
    }
}

impl CharacteristicBody<6> for MarchArm {
    const FAMILIES: [&'static str; 6] = [
        "mode 1 (slowest)",
        "mode 2",
        "mode 3",
        "mode 4",
        "mode 5",
        "mode 6 (fastest)",
    ];

    fn rest_state(&self, s: f64) -> State<6> {
        let r = self.beam.rest_position(s);
        let d3 = self.beam.frame[2];
        State {
            x: [r[0], r[1], r[2], 0.0, 0.0, 0.0],
            v: [0.0; 6],
            p: [d3[0], d3[1], d3[2], 0.0, 0.0, 0.0],
        }
    }

    /// `M`, the state-independent speeds, the modes by congruence and
    /// `F₁ = −h(x, v) − g_x + (∂g_p/∂ψ) ψ′` (the directional derivative by one dual number).
    fn characteristics(&self, q: &State<6>) -> Result<Characteristics<6>, ElementError> {
        let psi = [q.x[3], q.x[4], q.x[5]];
        let psip = [q.p[3], q.p[4], q.p[5]];
        let angle = (psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2]).sqrt();
        if !(angle.is_finite() && angle < super::law::MAX_ROTATION) {
            return Err(ElementError::RotationLimit {
                angle,
                limit: super::law::MAX_ROTATION,
            });
        }
        let rot = Rotation::new(psi);
        let neg = psi.map(|c| -c);
        let frame = &self.beam.frame;
        let comb = |u: &[f64]| -> [f64; 3] {
            std::array::from_fn(|a| u[0] * frame[0][a] + u[1] * frame[1][a] + u[2] * frame[2][a])
        };
        let rho_a = self.beam.section.rho_a();
        let mut modes = [[0.0; 6]; 6];
        for k in 0..6 {
            let er = rot.rotate(&comb(&self.u[k][0..3]));
            let ew = tangent_inverse(&neg, &comb(&self.u[k][3..6]));
            modes[k] = [er[0], er[1], er[2], ew[0], ew[1], ew[2]];
        }
        // M = diag(ρA I, T J̃0 Tᵀ)
        let mut inertia = [[0.0; 6]; 6];
        for c in 0..3 {
            inertia[c][c] = rho_a;
            let mut e = [0.0; 3];
            e[c] = 1.0;
            let j0t = super::law::to_global(frame, &self.j0);
            let col = rot.tangent(&crate::math::so3::mat_vec(&j0t, &rot.tangent_t(&e)));
            for r in 0..3 {
                inertia[3 + r][3 + c] = col[r];
            }
        }
        // F₁: h(x, v) = f(x, v, a = 0); g_x; the ψ-derivative of g_p along ψ′
        let h = self.law.inertia_point(&q.x, &q.v, &[0.0; 6], false).f;
        let dpsi: [Dual<1>; 3] = std::array::from_fn(|k| Dual {
            v: psi[k],
            d: [psip[k]],
        });
        let lift = |u: &[f64]| -> [Dual<1>; 3] { std::array::from_fn(|k| Dual::cst(u[k])) };
        let (gp, gx) = self.law.stresses(dpsi, lift(&q.p[0..3]), lift(&q.p[3..6]));
        let mut source = [0.0; 6];
        for c in 0..6 {
            let gxc = if c < 3 { 0.0 } else { gx[c - 3].v };
            source[c] = -h[c] - gxc + gp[c].d[0];
        }
        Ok(Characteristics {
            inertia,
            speeds: self.speeds,
            modes,
            source,
        })
    }

    fn actuation(&self, q: &State<6>) -> [f64; 6] {
        actuation(&self.law, &q.x, &q.p).unwrap_or([f64::NAN; 6])
    }
}

/// The tip line of the spatial march: the servo target and the tip law.
pub(crate) struct SpatialTip<'a> {
    pub beam: &'a SpatialBeam,
    pub servo: &'a PoseServo<'a>,
    pub c_min: f64,
}

impl TipData<6> for SpatialTip<'_> {
    fn tip_state(&self, t: f64) -> Result<State<6>, ElementError> {
        let st = self.servo.state(t);
        Ok(State {
            x: st.x,
            v: st.v,
            p: tip_gradient(self.beam, &st)?,
        })
    }
    fn speed_lower_bounds(&self, _t0: f64, _t1: f64, s: &[f64]) -> Vec<f64> {
        vec![self.c_min; s.len()]
    }
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
