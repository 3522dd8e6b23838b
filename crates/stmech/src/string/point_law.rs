//! The string's stress at one point: tension `N(ν)` along the tangent, `n = N(ν) r'/ν`,
//! `ν = |r'|` (the [`PointLaw`] of the bilinear space-time element and the kernel of the
//! semi-discrete model).
//!
//! # Law
//! Stored energy per unit reference length `Ψ(ν) = ½ EA (ν − 1)²`, so `N = Ψ'(ν) = EA (ν − 1)`
//! and `n = ∂Ψ/∂r' = N t`, `t = r'/ν`. The tangent is
//!
//! ```text
//! ∂n/∂r' = N'(ν) t ⊗ t + (N/ν) (I − t ⊗ t)        N' = EA
//! ```
//!
//! (axial stiffness `EA`, transverse stiffness `N/ν`: a string is stiff across only under
//! tension, hence the transverse wave speed `c_t = sqrt(N/(ν ρA))` in the reference arc
//! length).
//!
//! # Compression
//! A rope cannot push: [`Compression::Slack`] (the physical law, used by the forward model)
//! sets `N = 0`, `Ψ = 0` for `ν < 1`; `Ψ` stays `C¹`. A slack element has no stiffness at all,
//! and the inverse problem, which carries the payload's data up the rope by the transverse
//! waves, cannot be solved through it. The inverse solver therefore (1) refuses payload paths
//! that need a slack rope before solving ([`crate::inverse::crane`]), and (2) uses
//! [`Compression::Linear`] (`N = EA(ν − 1)` for every `ν > 0`) for its Newton iterates, which
//! are not physical states and need a smooth, invertible tangent; the converged solution is
//! checked to be taut everywhere, where the two laws coincide.

use crate::inverse::element::{ElementError, PointLaw, StressPoint};
use crate::solve::banded::FixedBandLu;

/// What the law does for `ν < 1` (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compression {
    /// `N = 0` for `ν < 1` (a rope goes slack).
    #[default]
    Slack,
    /// `N = EA (ν − 1)` for all `ν > 0` (the analytic continuation; inverse iterates).
    Linear,
}

/// The strain `ν − 1 = |d| − 1` of a tangent `d = r'`, without the cancellation of `|d| − 1`:
/// `(|d|² − 1)/(|d| + 1)` with `|d|² − 1` summed by fused multiply-adds from the largest
/// component's `d_k² − 1` (a single rounding there, instead of rounding `|d|² ≈ 1` first).
/// A nearly inextensible rope (`EA` of a steel cable) is stretched by `10⁻⁷ … 10⁻⁶` under
/// its own weight; its tension `EA (ν − 1)` and the test `ν > 1` (taut) rest on these digits.
#[inline]
pub fn stretch_minus_one(d: [f64; 3]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just above). The fused multiply-add is correctly
        // rounded either way: the instruction gives the same results as the library call.
        return unsafe { stretch_minus_one_fma(d) };
    }
    stretch_minus_one_generic(d)
}

/// [`stretch_minus_one`] with the FMA instruction instead of a library call per `mul_add`.
///
/// # Safety
/// The CPU must support FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn stretch_minus_one_fma(d: [f64; 3]) -> f64 {
    stretch_minus_one_generic(d)
}

#[inline(always)]
fn stretch_minus_one_generic(d: [f64; 3]) -> f64 {
    // ascending (as `sort_by(f64::total_cmp)`, by three compare-exchanges)
    let mut a = d.map(f64::abs);
    if a[1].total_cmp(&a[0]).is_lt() {
        a.swap(0, 1);
    }
    if a[2].total_cmp(&a[1]).is_lt() {
        a.swap(1, 2);
        if a[1].total_cmp(&a[0]).is_lt() {
            a.swap(0, 1);
        }
    }
    let sq = a[0].mul_add(a[0], a[1].mul_add(a[1], a[2].mul_add(a[2], -1.0)));
    let norm = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    sq / (norm + 1.0)
}

/// Point law of the string: `ρA`, `EA` and the compression branch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StringPointLaw {
    /// Mass per unit length `ρA` (kg/m).
    pub rho_a: f64,
    /// Axial stiffness `EA` (N).
    pub ea: f64,
    /// Branch for `ν < 1`.
    pub compression: Compression,
}

impl StringPointLaw {
    /// `(N, N')` at stretch `ν`.
    #[inline]
    pub fn tension(&self, nu: f64) -> (f64, f64) {
        self.tension_at_strain(nu - 1.0)
    }

    /// `(N, N')` at the strain `ν − 1` (from [`stretch_minus_one`]).
    #[inline]
    pub fn tension_at_strain(&self, strain: f64) -> (f64, f64) {
        if strain < 0.0 && self.compression == Compression::Slack {
            (0.0, 0.0)
        } else {
            (self.ea * strain, self.ea)
        }
    }

    /// `Ψ(ν)` (J/m).
    pub fn energy(&self, nu: f64) -> f64 {
        if nu < 1.0 && self.compression == Compression::Slack {
            0.0
        } else {
            0.5 * self.ea * (nu - 1.0) * (nu - 1.0)
        }
    }

    /// `n = N t` and, if `tangent`, `∂n/∂r'` (3 × 3, symmetric) at `r'`. Fails for `ν = 0` or a
    /// non-finite `r'` (the tangent direction is undefined).
    #[inline]
    pub fn force(
        &self,
        d: [f64; 3],
        tangent: bool,
    ) -> Result<([f64; 3], [[f64; 3]; 3]), ElementError> {
        let nu = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        if !(nu.is_finite() && nu > 1e-12) {
            return Err(ElementError::Inverted { nu });
        }
        let (n, dn) = self.tension_at_strain(stretch_minus_one(d));
        let t = d.map(|x| x / nu);
        let f = t.map(|x| n * x);
        let mut k = [[0.0; 3]; 3];
        if tangent {
            // ∂n/∂r' = N' t⊗t + (N/ν)(I − t⊗t)
            let a = n / nu;
            for i in 0..3 {
                for j in 0..3 {
                    let tt = t[i] * t[j];
                    k[i][j] = dn * tt + a * (if i == j { 1.0 } else { 0.0 } - tt);
                }
            }
        }
        Ok((f, k))
    }
}

impl PointLaw<3> for StringPointLaw {
    const X_ENTERS: [bool; 3] = [false; 3];
    type Band = FixedBandLu<9, 9>;

    fn inertia(&self) -> [f64; 3] {
        [self.rho_a; 3]
    }

    /// `g_p = n`, `g_x = 0`, `H_pp = ∂n/∂r'`.
    #[inline]
    fn stress_point(
        &self,
        _x: &[f64; 3],
        p: &[f64; 3],
        tangent: bool,
    ) -> Result<StressPoint<3>, ElementError> {
        let (n, k) = self.force(*p, tangent)?;
        let mut sp = StressPoint::ZERO;
        sp.gp = n;
        if tangent {
            sp.hpp = k;
        }
        Ok(sp)
    }

    fn energy_density(&self, _x: &[f64; 3], p: &[f64; 3]) -> f64 {
        self.energy((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::element::{BilinearElement, N_DOF, SpaceTimeElement};

    /// The space-time element with the string law: tangent = derivative of the residual.
    #[test]
    fn element_tangent_matches_finite_differences() {
        for compression in [Compression::Slack, Compression::Linear] {
            let law = StringPointLaw {
                rho_a: 1.3,
                ea: 50.0,
                compression,
            };
            let el = BilinearElement::with_law(law, 0.3, 0.05);
            let mut q = [0.0; N_DOF];
            for (i, v) in q.iter_mut().enumerate() {
                *v = 0.05 * ((i as f64) * 1.3).sin();
            }
            // a stretched, inclined element: node 1 at about (0.1, 0.2, −0.3) from node 0
            for a in 0..4 {
                let is = (a % 2) as f64;
                q[6 * a] += 0.1 * is;
                q[6 * a + 1] += 0.2 * is;
                q[6 * a + 2] -= 0.3 * is;
            }
            let mut r = [0.0; N_DOF];
            let mut k = [[0.0; N_DOF]; N_DOF];
            el.residual_into(&q, &mut r, Some(k.as_flattened_mut()))
                .unwrap();
            let h = 1e-6;
            let scale = k.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
            let mut worst: f64 = 0.0;
            for j in 0..N_DOF {
                let (mut qp, mut qm) = (q, q);
                qp[j] += h;
                qm[j] -= h;
                let (mut rp, mut rm) = ([0.0; N_DOF], [0.0; N_DOF]);
                el.residual_into(&qp, &mut rp, None).unwrap();
                el.residual_into(&qm, &mut rm, None).unwrap();
                for i in 0..N_DOF {
                    worst = worst.max(((rp[i] - rm[i]) / (2.0 * h) - k[i][j]).abs());
                }
            }
            assert!(
                worst < 1e-7 * scale,
                "{compression:?}: {worst:e} vs {scale:e}"
            );
        }
    }

    /// The strain of a nearly inextensible rope (10⁻⁷ … 10⁻⁶) along any direction is
    /// computed to a few units of 10⁻¹⁶ of the stretch: compared with `|d|² − 1` evaluated in
    /// twice the precision (a double-double sum of the products), and the tension follows.
    #[test]
    fn the_strain_of_a_nearly_inextensible_rope_keeps_its_digits() {
        // the exact |d|² − 1 of the floating-point d, in double-double arithmetic
        let exact = |d: [f64; 3]| {
            let (mut hi, mut lo) = (-1.0f64, 0.0f64);
            for x in d {
                let p = x * x;
                let pe = x.mul_add(x, -p); // the product's rounding error
                let s = hi + p;
                let bb = s - hi;
                let se = (hi - (s - bb)) + (p - bb); // the sum's rounding error
                hi = s;
                lo += se + pe;
            }
            let norm = (d.iter().map(|x| x * x).sum::<f64>()).sqrt();
            (hi + lo) / (norm + 1.0)
        };
        let law = StringPointLaw {
            rho_a: 0.2,
            ea: 1e9,
            compression: Compression::Slack,
        };
        for strain in [1e-7, 2e-7, 1e-6] {
            for dir in [
                [0.3, 0.4, -0.866f64],
                [0.0, 0.0, -1.0],
                [0.577, -0.577, 0.577],
            ] {
                let n = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
                let d = dir.map(|c| (1.0 + strain) * c / n);
                let e = stretch_minus_one(d);
                let want = exact(d);
                assert!((e - want).abs() < 4e-16, "{d:?}: {e:e} against {want:e}");
                assert!((e - strain).abs() < 1e-15 && e > 0.0, "{d:?}: {e:e}");
                let (f, _) = law.force(d, false).unwrap();
                let tension = (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt();
                assert!((tension - law.ea * want).abs() < 1e-6 * law.ea * want);
            }
        }
        // a compressed tangent is slack: no tension
        let (f, _) = law.force([0.0, 0.0, -(1.0 - 1e-7)], false).unwrap();
        assert_eq!(f, [0.0; 3]);
    }

    /// A slack element carries nothing; a taut one carries `EA(ν − 1)` along its tangent.
    #[test]
    fn tension_only_and_direction() {
        let law = StringPointLaw {
            rho_a: 1.0,
            ea: 10.0,
            compression: Compression::Slack,
        };
        let (n, _) = law.force([0.0, 0.6, 0.0], true).unwrap();
        assert_eq!(n, [0.0; 3]);
        let (n, _) = law.force([0.0, 0.0, -1.5], false).unwrap();
        assert!((n[2] + 5.0).abs() < 1e-14 && n[0] == 0.0);
        assert!(law.force([0.0; 3], false).is_err());
    }
}
