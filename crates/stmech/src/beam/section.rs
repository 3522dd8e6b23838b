//! Cross-section data and constitutive laws of the planar Simo–Reissner beam.
//!
//! Kinematics (`[I]` Example 1.2): the beam axis `r(s) = (r1, r2)` and the section rotation `θ(s)`.
//! With the section directors `d3 = (cos θ, sin θ)` (tangent of the straight reference beam) and
//! `d1 = (−sin θ, cos θ)`, the material strains are
//!
//! ```text
//! ν  = d3 · r'   (stretch, 1 in the reference state)
//! γ1 = d1 · r'   (shear,   0 in the reference state)
//! κ  = θ'        (curvature)
//! ```
//!
//! and the material stress resultants are the derivatives of the stored energy `Ψ(ν, γ1, κ)`:
//! axial force `N = ∂Ψ/∂ν`, shear force `Q = ∂Ψ/∂γ1`, bending moment `M = ∂Ψ/∂κ`.
//!
//! Two laws are provided:
//! * [`ConstitutiveLaw::Quadratic`], the standard Simo–Reissner energy
//!   `Ψ = ½ (EA (ν − ν0)² + GA (γ1 − γ0)² + EI (κ − κ0)²)`;
//! * [`ConstitutiveLaw::Log`], Eq. 19 of `[I]`,
//!   `Ψ = ½ (EI (κ − κ0)² + GA (γ1 − γ0)² + (EA/2)(ν² − 2 ln ν − 1))`, so `N = (EA/2)(ν − 1/ν)` and
//!   `∂N/∂ν = (EA/2)(1 + ν⁻²)`. (The matrix `B` printed in `[I]` Eq. 20 shows `1 − ν⁻²`; that is
//!   the secant `N/ν`, the tangent `H` of Eq. 29 has `1 + ν⁻²`. Both follow from Eq. 19.)
//!   The log law needs `ν > 0`; it is written for a stress-free reference with `ν0 = 1`.
//!
//! `(ν0, γ0, κ0)` are the strains of the stress-free reference configuration (a curved beam has
//! `κ0 ≠ 0`), see [`ReferenceStrains`].
//!
//! `[I]`: *Inverse dynamics of geometrically exact beams* (space-time finite elements and the
//! method of characteristics).

use crate::error::InputError;

/// Cross-section stiffness and inertia of a planar beam (all per unit reference length).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SectionProperties {
    /// Mass per unit length `ρA` (kg/m).
    pub rho_a: f64,
    /// Rotary inertia per unit length `ρI` (kg·m).
    pub rho_i: f64,
    /// Axial stiffness `EA` (N).
    pub ea: f64,
    /// Shear stiffness `GA` (N), shear correction included.
    pub ga: f64,
    /// Bending stiffness `EI` (N·m²).
    pub ei: f64,
}

impl SectionProperties {
    /// Checks that every property is finite and strictly positive.
    ///
    /// `prefix` is the field path used in the error, e.g. `beam.section`.
    pub fn validate(&self, prefix: &str) -> Result<(), InputError> {
        let fields = [
            ("rho_a", self.rho_a, "mass per unit length (kg/m)"),
            ("rho_i", self.rho_i, "rotary inertia per unit length (kg·m)"),
            ("ea", self.ea, "axial stiffness (N)"),
            ("ga", self.ga, "shear stiffness (N)"),
            ("ei", self.ei, "bending stiffness (N·m²)"),
        ];
        for (name, value, what) in fields {
            if !(value.is_finite() && value > 0.0) {
                return Err(InputError::Invalid {
                    field: format!("{prefix}.{name}"),
                    message: format!(
                        "the {what} must be finite and > 0, got {value}; a rigid or massless \
                         beam is not a beam: use a rigid body, or a small positive value"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Stored-energy function of the section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConstitutiveLaw {
    /// Standard quadratic Simo–Reissner energy (what Exudyn, MBDyn, Chrono use).
    #[default]
    Quadratic,
    /// Log-type axial energy of `[I]` Eq. 19 (stiffens under compression, `ν → 0` costs infinite
    /// energy).
    Log,
}

/// Strains of the planar beam at one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Strains {
    /// Stretch `ν = d3 · r'` (1 when unstretched).
    pub nu: f64,
    /// Shear `γ1 = d1 · r'`.
    pub gamma: f64,
    /// Curvature `κ = θ'` (1/m).
    pub kappa: f64,
}

/// Strains of the stress-free reference configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReferenceStrains {
    /// Reference stretch `ν0` (1 for an arc-length parametrised reference).
    pub nu: f64,
    /// Reference shear `γ0` (0 normally).
    pub gamma: f64,
    /// Reference curvature `κ0` (1/m, 0 for a straight beam).
    pub kappa: f64,
}

impl Default for ReferenceStrains {
    fn default() -> Self {
        Self::STRAIGHT
    }
}

impl ReferenceStrains {
    /// The straight, arc-length parametrised, stress-free beam.
    pub const STRAIGHT: Self = Self {
        nu: 1.0,
        gamma: 0.0,
        kappa: 0.0,
    };
}

/// Material stress resultants and their tangent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resultants {
    /// Axial force `N = ∂Ψ/∂ν` (N).
    pub axial: f64,
    /// Shear force `Q = ∂Ψ/∂γ1` (N).
    pub shear: f64,
    /// Bending moment `M = ∂Ψ/∂κ` (N·m).
    pub moment: f64,
    /// `∂N/∂ν` (N). The law is uncoupled, so the tangent is diagonal.
    pub d_axial: f64,
    /// `∂Q/∂γ1` (N).
    pub d_shear: f64,
    /// `∂M/∂κ` (N·m²).
    pub d_moment: f64,
}

/// Strains from the axis derivative `r' = (r1', r2')`, the rotation `θ` and its derivative `θ'`.
#[inline]
pub fn strains(dr: [f64; 2], theta: f64, dtheta: f64) -> Strains {
    let (s, c) = theta.sin_cos();
    Strains {
        nu: c * dr[0] + s * dr[1],
        gamma: -s * dr[0] + c * dr[1],
        kappa: dtheta,
    }
}

impl ConstitutiveLaw {
    /// Stored energy per unit reference length `Ψ` (J/m). `+∞` for the log law at `ν ≤ 0`.
    pub fn energy(self, sec: &SectionProperties, e: Strains, e0: ReferenceStrains) -> f64 {
        let bend_shear =
            0.5 * (sec.ga * (e.gamma - e0.gamma).powi(2) + sec.ei * (e.kappa - e0.kappa).powi(2));
        match self {
            Self::Quadratic => bend_shear + 0.5 * sec.ea * (e.nu - e0.nu).powi(2),
            Self::Log => {
                if e.nu <= 0.0 {
                    f64::INFINITY
                } else {
                    // ν² − 2 ln ν − 1 = u² + 2 (u − ln(1 + u)), u = ν − 1: no cancellation of
                    // O(1) terms near ν = 1 (the plain form loses ~1e-16 EA per point, which
                    // is the floor of every energy balance).
                    let u = e.nu - 1.0;
                    bend_shear + 0.25 * sec.ea * (u * u + 2.0 * (u - u.ln_1p()))
                }
            }
        }
    }

    /// Stress resultants and tangent (Eq. 19–20 of `[I]` for [`Self::Log`]).
    ///
    /// For the log law at `ν ≤ 0` the values are not finite; callers that iterate must check
    /// [`Strains::nu`] (a Newton step that inverts an element is rejected, not evaluated).
    pub fn resultants(
        self,
        sec: &SectionProperties,
        e: Strains,
        e0: ReferenceStrains,
    ) -> Resultants {
        let (axial, d_axial) = match self {
            Self::Quadratic => (sec.ea * (e.nu - e0.nu), sec.ea),
            Self::Log => (
                0.5 * sec.ea * (e.nu - 1.0 / e.nu),
                0.5 * sec.ea * (1.0 + 1.0 / (e.nu * e.nu)),
            ),
        };
        Resultants {
            axial,
            shear: sec.ga * (e.gamma - e0.gamma),
            moment: sec.ei * (e.kappa - e0.kappa),
            d_axial,
            d_shear: sec.ga,
            d_moment: sec.ei,
        }
    }

    /// Wave speeds of `[I]` Eq. 30 at stretch `ν` (m/s): `[bending, shear, axial]`,
    /// `sqrt(EI/ρI)`, `sqrt(GA/ρA)` and `sqrt((∂N/∂ν)/ρA)`.
    ///
    /// For the log law the axial speed is `sqrt(EA/(2ρA) (1 + ν⁻²))`; for the quadratic law it is
    /// `sqrt(EA/ρA)` at any stretch.
    pub fn wave_speeds(self, sec: &SectionProperties, nu: f64) -> [f64; 3] {
        let e = Strains {
            nu,
            gamma: 0.0,
            kappa: 0.0,
        };
        let r = self.resultants(sec, e, ReferenceStrains::STRAIGHT);
        [
            (sec.ei / sec.rho_i).sqrt(),
            (sec.ga / sec.rho_a).sqrt(),
            (r.d_axial / sec.rho_a).sqrt(),
        ]
    }

    /// The largest wave speed at stretch `ν` (m/s): what a mesh-ratio condition must use.
    pub fn max_wave_speed(self, sec: &SectionProperties, nu: f64) -> f64 {
        self.wave_speeds(sec, nu).into_iter().fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: SectionProperties = SectionProperties {
        rho_a: 2.0,
        rho_i: 0.5,
        ea: 30.0,
        ga: 12.0,
        ei: 3.0,
    };

    /// The resultants are the derivatives of the energy, the tangent the derivative of the
    /// resultants (central differences, both laws, off the reference state).
    #[test]
    fn resultants_and_tangent_match_finite_differences() {
        let e0 = ReferenceStrains {
            nu: 1.0,
            gamma: 0.0,
            kappa: 0.3,
        };
        let e = Strains {
            nu: 0.8,
            gamma: 0.1,
            kappa: -0.7,
        };
        let h = 1e-6;
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            let r = law.resultants(&SEC, e, e0);
            let shift = |dn: f64, dg: f64, dk: f64| Strains {
                nu: e.nu + dn,
                gamma: e.gamma + dg,
                kappa: e.kappa + dk,
            };
            let d = |a: Strains, b: Strains| {
                (law.energy(&SEC, a, e0) - law.energy(&SEC, b, e0)) / (2.0 * h)
            };
            assert!((d(shift(h, 0., 0.), shift(-h, 0., 0.)) - r.axial).abs() < 1e-7);
            assert!((d(shift(0., h, 0.), shift(0., -h, 0.)) - r.shear).abs() < 1e-7);
            assert!((d(shift(0., 0., h), shift(0., 0., -h)) - r.moment).abs() < 1e-7);
            let rp = law.resultants(&SEC, shift(h, 0., 0.), e0);
            let rm = law.resultants(&SEC, shift(-h, 0., 0.), e0);
            assert!(((rp.axial - rm.axial) / (2.0 * h) - r.d_axial).abs() < 1e-6);
        }
    }

    /// Stress free at the reference state; Eq. 30 speeds; the two laws agree at `ν = 1`.
    #[test]
    fn reference_state_and_wave_speeds() {
        let e = strains([1.0, 0.0], 0.0, 0.0);
        assert_eq!((e.nu, e.gamma, e.kappa), (1.0, 0.0, 0.0));
        // A rigid rotation leaves the strains unchanged.
        let t: f64 = 0.9;
        let e = strains([t.cos(), t.sin()], t, 0.0);
        assert!((e.nu - 1.0).abs() < 1e-15 && e.gamma.abs() < 1e-15);
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            let r = law.resultants(&SEC, e, ReferenceStrains::STRAIGHT);
            assert!(r.axial.abs() < 1e-14 && r.shear.abs() < 1e-14 && r.moment == 0.0);
            let c = law.wave_speeds(&SEC, 1.0);
            assert!((c[0] - (3.0f64 / 0.5).sqrt()).abs() < 1e-14);
            assert!((c[1] - (12.0f64 / 2.0).sqrt()).abs() < 1e-14);
            assert!((c[2] - (30.0f64 / 2.0).sqrt()).abs() < 1e-14);
        }
        // Log law under compression: axial speed sqrt(EA/(2ρA)(1 + ν⁻²)).
        let c = ConstitutiveLaw::Log.wave_speeds(&SEC, 0.5);
        assert!((c[2] - (30.0 / 4.0 * (1.0 + 4.0f64)).sqrt()).abs() < 1e-14);
        assert_eq!(
            ConstitutiveLaw::Log.energy(
                &SEC,
                Strains {
                    nu: 0.0,
                    gamma: 0.0,
                    kappa: 0.0
                },
                ReferenceStrains::STRAIGHT
            ),
            f64::INFINITY
        );
    }

    #[test]
    fn validation_names_the_field() {
        let mut s = SEC;
        s.ga = -1.0;
        let err = s.validate("beam.section").unwrap_err().to_string();
        assert!(err.contains("beam.section.ga"), "{err}");
        assert!(SEC.validate("x").is_ok());
    }
}
