//! Cross-section law of the spatial director beam: elastic stiffness `C`, optional
//! Kelvin–Voigt viscosity `V`, and the section inertia `(ρA, E_αβ)`.
//!
//! # Strain vector and stresses
//! The material strain vector is `π = (Γ1, Γ2, Γ3, K1, K2, K3)` (two shears, axial strain,
//! two bending curvatures, torsion; components in the director frame, see [`super`]). The stress
//! resultants in the same frame are
//!
//! ```text
//! s = (N1, N2, N3, M1, M2, M3) = C (π − π0) + V π̇ ,     W = ½ (π − π0)ᵀ C (π − π0)  per unit length,
//! ```
//!
//! with `C` symmetric positive definite (units: `C[0..3][0..3]` N, `C[3..6][3..6]` N·m², the
//! force–moment coupling blocks N·m), `V` symmetric positive semi-definite (the same units × s).
//! The standard quadratic Simo–Reissner law is `C = diag(GA1, GA2, EA, EI1, EI2, GJ)`:
//! `EI1` is the bending stiffness for rotation about `d1` (curvature `K1`), `EI2` about `d2`.
//!
//! # Kelvin–Voigt viscosity (research report 2011/12, Eqs. (1)–(3))
//! `V̂F = ĈF·diag(τS, τS, τE)`, `V̂M = ĈM·diag(τE, τE, τS)` with the retardation times
//! `τS = ηS/G`, `τE = ηE/E` (s): shear and torsion are damped by the shear viscosity, extension
//! and bending by the extensional one. For a diagonal `C` this is `V = diag(GA1 τS, GA2 τS,
//! EA τE, EI1 τE, EI2 τE, GJ τS)`. For a full `C` the product `C·T` (`T = diag(τS, τS, τE, τE,
//! τE, τS)`) is not symmetric, so [`Section::with_kelvin_voigt`] uses `V = T^½ C T^½`, which is
//! symmetric positive semi-definite, equals Eq. (3) for a diagonal `C`, and keeps the couplings.
//!
//! # Inertia
//! With `ξ_α` the section coordinates along `d_α` measured from the centroid (so the first
//! moments vanish), the kinetic energy per unit length is
//! `½ (ρA |φ̇|² + E_αβ ḋ_α·ḋ_β)` with the section Euler tensor `E_αβ = ∫ ρ ξ_α ξ_β dA` (kg·m).
//! The rotary inertia about `d1` is `E22`, about `d2` is `E11`, the polar one `E11 + E22`.

use thiserror::Error;

/// Names of the six strain/stress components, for messages.
pub const COMPONENT_NAMES: [&str; 6] = [
    "Γ1 (shear 1)",
    "Γ2 (shear 2)",
    "Γ3 (axial)",
    "K1 (bending about d1)",
    "K2 (bending about d2)",
    "K3 (torsion)",
];

/// Invalid section data. Every variant names the offending entry.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SectionError {
    /// A scalar property is not finite or not strictly positive.
    #[error(
        "section.{field}: must be finite and > 0, got {value}; a rigid or massless section is not a beam (use a rigid body, or a small positive value)"
    )]
    NotPositive {
        /// Field name, e.g. `ea`.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// A matrix entry is not finite.
    #[error("section.{matrix}[{row}][{col}]: must be finite, got {value}")]
    NonFinite {
        /// `stiffness`, `viscosity` or `euler_tensor`.
        matrix: &'static str,
        /// Row (0-based).
        row: usize,
        /// Column (0-based).
        col: usize,
        /// The value given.
        value: f64,
    },
    /// A matrix that must be symmetric is not.
    #[error(
        "section.{matrix}[{row}][{col}] = {upper} differs from [{col}][{row}] = {lower}: the matrix must be symmetric"
    )]
    NotSymmetric {
        /// `stiffness`, `viscosity` or `euler_tensor`.
        matrix: &'static str,
        /// Row of the upper entry.
        row: usize,
        /// Column of the upper entry.
        col: usize,
        /// `M[row][col]`.
        upper: f64,
        /// `M[col][row]`.
        lower: f64,
    },
    /// Cholesky factorisation failed at a pivot: the matrix is not positive (semi-)definite.
    #[error(
        "section.{matrix}[{index}][{index}]: the pivot {pivot:.3e} of the Cholesky factorisation is not positive, so the matrix is not positive {kind}; check the diagonal entry and its couplings to components 0..{index} ({component})"
    )]
    NotPositiveDefinite {
        /// `stiffness`, `viscosity` or `euler_tensor`.
        matrix: &'static str,
        /// Diagonal entry at which the factorisation failed (0-based).
        index: usize,
        /// The failing pivot (Schur complement of the leading block).
        pivot: f64,
        /// `definite` or `semi-definite`.
        kind: &'static str,
        /// Name of the component at `index`.
        component: &'static str,
    },
    /// A retardation time is negative or not finite.
    #[error("section.{field}: retardation time must be finite and ≥ 0 s, got {value}")]
    BadRetardationTime {
        /// `tau_s` or `tau_e`.
        field: &'static str,
        /// The value given.
        value: f64,
    },
}

/// Diagonal stiffnesses of the standard quadratic law.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiagonalStiffness {
    /// Axial stiffness `EA` (N).
    pub ea: f64,
    /// Shear stiffness along `d1`, `GA1` (N), shear correction included.
    pub ga1: f64,
    /// Shear stiffness along `d2`, `GA2` (N), shear correction included.
    pub ga2: f64,
    /// Bending stiffness about `d1`, `EI1` (N·m²).
    pub ei1: f64,
    /// Bending stiffness about `d2`, `EI2` (N·m²).
    pub ei2: f64,
    /// Torsional stiffness `GJ` (N·m²).
    pub gj: f64,
}

/// Mass per unit length and section Euler tensor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SectionInertia {
    /// `ρA` (kg/m).
    pub rho_a: f64,
    /// `E_αβ = ∫ ρ ξ_α ξ_β dA` (kg·m), symmetric positive definite.
    pub euler_tensor: [[f64; 2]; 2],
}

/// Torsion constant of a rectangular section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TorsionConstant {
    /// Polar second moment `J = I1 + I2` (no warping correction).
    Polar,
    /// Saint-Venant's torsion constant of the rectangle (series solution; `0.1406 a⁴` for a
    /// square of side `a`).
    SaintVenant,
}

/// A homogeneous rectangular section of widths `b1` along `d1` and `b2` along `d2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rectangle {
    /// Young's modulus `E` (Pa).
    pub e: f64,
    /// Shear modulus `G` (Pa).
    pub g: f64,
    /// Density `ρ` (kg/m³).
    pub rho: f64,
    /// Width along `d1` (m).
    pub b1: f64,
    /// Width along `d2` (m).
    pub b2: f64,
    /// Shear correction factor `κ` applied to both shear stiffnesses (1 for none, 5/6 for the
    /// rectangle in Timoshenko's sense).
    pub shear_correction: f64,
    /// Which torsion constant to use.
    pub torsion: TorsionConstant,
}

impl Rectangle {
    /// Saint-Venant torsion constant of the rectangle,
    /// `J = (a b³/3) [1 − (192/π⁵)(b/a) Σ_{n odd} tanh(nπa/(2b))/n⁵]`, `a ≥ b` (m⁴).
    pub fn saint_venant_j(&self) -> f64 {
        let (a, b) = if self.b1 >= self.b2 {
            (self.b1, self.b2)
        } else {
            (self.b2, self.b1)
        };
        let pi = std::f64::consts::PI;
        let mut sum = 0.0;
        let mut n = 1.0f64;
        while n < 200.0 {
            sum += (n * pi * a / (2.0 * b)).tanh() / n.powi(5);
            n += 2.0;
        }
        a * b.powi(3) / 3.0 * (1.0 - 192.0 / pi.powi(5) * (b / a) * sum)
    }

    /// Stiffnesses: `EA = E b1 b2`, `GAα = κ G b1 b2`, `EI1 = E b1 b2³/12` (about `d1`),
    /// `EI2 = E b2 b1³/12`, `GJ = G J`.
    pub fn stiffness(&self) -> DiagonalStiffness {
        let area = self.b1 * self.b2;
        let i1 = self.b1 * self.b2.powi(3) / 12.0;
        let i2 = self.b2 * self.b1.powi(3) / 12.0;
        let j = match self.torsion {
            TorsionConstant::Polar => i1 + i2,
            TorsionConstant::SaintVenant => self.saint_venant_j(),
        };
        DiagonalStiffness {
            ea: self.e * area,
            ga1: self.shear_correction * self.g * area,
            ga2: self.shear_correction * self.g * area,
            ei1: self.e * i1,
            ei2: self.e * i2,
            gj: self.g * j,
        }
    }

    /// Inertia: `ρA = ρ b1 b2`, `E11 = ρ b2 b1³/12`, `E22 = ρ b1 b2³/12`, `E12 = 0`.
    pub fn inertia(&self) -> SectionInertia {
        SectionInertia {
            rho_a: self.rho * self.b1 * self.b2,
            euler_tensor: [
                [self.rho * self.b2 * self.b1.powi(3) / 12.0, 0.0],
                [0.0, self.rho * self.b1 * self.b2.powi(3) / 12.0],
            ],
        }
    }
}

/// Wave speeds of the section (m/s), for time-step and characteristic checks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaveSpeeds {
    /// `sqrt(EA/ρA)`.
    pub axial: f64,
    /// `sqrt(GA1/ρA)`, `sqrt(GA2/ρA)`.
    pub shear: [f64; 2],
    /// Bending-rotation speeds `sqrt(EI1/E22)`, `sqrt(EI2/E11)`.
    pub bending: [f64; 2],
    /// `sqrt(GJ/(E11 + E22))`.
    pub torsion: f64,
}

impl WaveSpeeds {
    /// The largest of the six speeds.
    pub fn max(&self) -> f64 {
        [
            self.axial,
            self.shear[0],
            self.shear[1],
            self.bending[0],
            self.bending[1],
            self.torsion,
        ]
        .into_iter()
        .fold(0.0, f64::max)
    }
}

/// Validated section law: stiffness `C`, viscosity `V` (zero unless set) and inertia.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Section {
    stiffness: [[f64; 6]; 6],
    viscosity: [[f64; 6]; 6],
    viscous: bool,
    inertia: SectionInertia,
}

impl Section {
    /// The standard quadratic law `C = diag(GA1, GA2, EA, EI1, EI2, GJ)`.
    pub fn from_diagonal(
        k: DiagonalStiffness,
        inertia: SectionInertia,
    ) -> Result<Self, SectionError> {
        let fields = [
            ("ga1", k.ga1),
            ("ga2", k.ga2),
            ("ea", k.ea),
            ("ei1", k.ei1),
            ("ei2", k.ei2),
            ("gj", k.gj),
        ];
        let mut c = [[0.0; 6]; 6];
        for (i, (field, value)) in fields.into_iter().enumerate() {
            if !(value.is_finite() && value > 0.0) {
                return Err(SectionError::NotPositive { field, value });
            }
            c[i][i] = value;
        }
        Self::from_matrix(c, inertia)
    }

    /// A full 6×6 stiffness on `π = (Γ1, Γ2, Γ3, K1, K2, K3)`, validated: finite, symmetric
    /// (to `1e-12` of the largest entry) and positive definite.
    pub fn from_matrix(c: [[f64; 6]; 6], inertia: SectionInertia) -> Result<Self, SectionError> {
        check_spd(&c, "stiffness", true)?;
        check_inertia(&inertia)?;
        Ok(Self {
            stiffness: c,
            viscosity: [[0.0; 6]; 6],
            viscous: false,
            inertia,
        })
    }

    /// A homogeneous rectangle, see [`Rectangle`].
    pub fn rectangle(r: &Rectangle) -> Result<Self, SectionError> {
        for (field, value) in [
            ("e", r.e),
            ("g", r.g),
            ("rho", r.rho),
            ("b1", r.b1),
            ("b2", r.b2),
            ("shear_correction", r.shear_correction),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(SectionError::NotPositive { field, value });
            }
        }
        Self::from_diagonal(r.stiffness(), r.inertia())
    }

    /// Adds the Kelvin–Voigt viscosity of the research report's Eq. (3) with retardation times
    /// `tau_s = ηS/G` and `tau_e = ηE/E` (s): `V = T^½ C T^½`, `T = diag(τS, τS, τE, τE, τE, τS)`.
    pub fn with_kelvin_voigt(self, tau_s: f64, tau_e: f64) -> Result<Self, SectionError> {
        for (field, value) in [("tau_s", tau_s), ("tau_e", tau_e)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(SectionError::BadRetardationTime { field, value });
            }
        }
        let t = [tau_s, tau_s, tau_e, tau_e, tau_e, tau_s].map(f64::sqrt);
        let mut v = [[0.0; 6]; 6];
        for i in 0..6 {
            for j in 0..6 {
                v[i][j] = t[i] * self.stiffness[i][j] * t[j];
            }
        }
        Ok(Self {
            viscosity: v,
            viscous: tau_s > 0.0 || tau_e > 0.0,
            ..self
        })
    }

    /// Adds a full viscosity matrix `V` (symmetric positive semi-definite).
    pub fn with_viscosity(self, v: [[f64; 6]; 6]) -> Result<Self, SectionError> {
        check_spd(&v, "viscosity", false)?;
        Ok(Self {
            viscosity: v,
            viscous: v.iter().flatten().any(|&x| x != 0.0),
            ..self
        })
    }

    /// Stiffness `C` (row-major 6×6 on `π`).
    pub fn stiffness(&self) -> &[[f64; 6]; 6] {
        &self.stiffness
    }

    /// Viscosity `V` (zero if none was set).
    pub fn viscosity(&self) -> &[[f64; 6]; 6] {
        &self.viscosity
    }

    /// Whether a non-zero viscosity was set.
    pub fn is_viscous(&self) -> bool {
        self.viscous
    }

    /// Mass per unit length and Euler tensor.
    pub fn inertia(&self) -> &SectionInertia {
        &self.inertia
    }

    /// `ρA` (kg/m).
    pub fn rho_a(&self) -> f64 {
        self.inertia.rho_a
    }

    /// `E_αβ` (kg·m).
    pub fn euler_tensor(&self) -> &[[f64; 2]; 2] {
        &self.inertia.euler_tensor
    }

    /// Elastic stress `C π` (`π` = strain minus reference strain).
    #[inline]
    pub fn elastic_stress(&self, pi: &[f64; 6]) -> [f64; 6] {
        mat6_vec(&self.stiffness, pi)
    }

    /// Stress `C π + V π̇`.
    #[inline]
    pub fn stress(&self, pi: &[f64; 6], pi_rate: &[f64; 6]) -> [f64; 6] {
        let mut s = mat6_vec(&self.stiffness, pi);
        if self.viscous {
            let v = mat6_vec(&self.viscosity, pi_rate);
            for k in 0..6 {
                s[k] += v[k];
            }
        }
        s
    }

    /// Stored energy per unit length `½ πᵀ C π` (J/m).
    #[inline]
    pub fn energy_density(&self, pi: &[f64; 6]) -> f64 {
        let s = self.elastic_stress(pi);
        0.5 * (0..6).map(|k| s[k] * pi[k]).sum::<f64>()
    }

    /// Dissipated power per unit length `π̇ᵀ V π̇` (W/m).
    #[inline]
    pub fn dissipation_density(&self, pi_rate: &[f64; 6]) -> f64 {
        let v = mat6_vec(&self.viscosity, pi_rate);
        (0..6).map(|k| v[k] * pi_rate[k]).sum()
    }

    /// Wave speeds from the diagonal of `C` and the inertia (for a coupled `C` these are the
    /// uncoupled estimates).
    pub fn wave_speeds(&self) -> WaveSpeeds {
        let c = &self.stiffness;
        let e = &self.inertia.euler_tensor;
        let ra = self.inertia.rho_a;
        WaveSpeeds {
            axial: (c[2][2] / ra).sqrt(),
            shear: [(c[0][0] / ra).sqrt(), (c[1][1] / ra).sqrt()],
            bending: [(c[3][3] / e[1][1]).sqrt(), (c[4][4] / e[0][0]).sqrt()],
            torsion: (c[5][5] / (e[0][0] + e[1][1])).sqrt(),
        }
    }
}

#[inline]
fn mat6_vec(m: &[[f64; 6]; 6], x: &[f64; 6]) -> [f64; 6] {
    let mut y = [0.0; 6];
    for i in 0..6 {
        y[i] = (0..6).map(|j| m[i][j] * x[j]).sum();
    }
    y
}

/// Finite, symmetric and positive definite (`strict`) or semi-definite, by Cholesky with a
/// relative pivot threshold.
fn check_spd<const N: usize>(
    m: &[[f64; N]; N],
    matrix: &'static str,
    strict: bool,
) -> Result<(), SectionError> {
    let scale = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    for row in 0..N {
        for col in 0..N {
            let value = m[row][col];
            if !value.is_finite() {
                return Err(SectionError::NonFinite {
                    matrix,
                    row,
                    col,
                    value,
                });
            }
        }
    }
    for row in 0..N {
        for col in row + 1..N {
            let (upper, lower) = (m[row][col], m[col][row]);
            if (upper - lower).abs() > 1e-12 * scale {
                return Err(SectionError::NotSymmetric {
                    matrix,
                    row,
                    col,
                    upper,
                    lower,
                });
            }
        }
    }
    // Cholesky; for the semi-definite case zero pivots (to round-off) skip their column.
    let mut l = [[0.0f64; N]; N];
    for j in 0..N {
        let mut d = m[j][j];
        for k in 0..j {
            d -= l[j][k] * l[j][k];
        }
        let tiny = 1e-13 * m[j][j].abs().max(if strict { 0.0 } else { scale });
        let bad = if strict { d <= tiny } else { d < -tiny };
        if bad {
            return Err(SectionError::NotPositiveDefinite {
                matrix,
                index: j,
                pivot: d,
                kind: if strict { "definite" } else { "semi-definite" },
                component: if N == 6 { COMPONENT_NAMES[j] } else { "ξ" },
            });
        }
        if d <= tiny {
            continue; // semi-definite: null direction
        }
        let ljj = d.sqrt();
        l[j][j] = ljj;
        for i in j + 1..N {
            let mut s = m[i][j];
            for k in 0..j {
                s -= l[i][k] * l[j][k];
            }
            l[i][j] = s / ljj;
        }
    }
    Ok(())
}

fn check_inertia(inertia: &SectionInertia) -> Result<(), SectionError> {
    let ra = inertia.rho_a;
    if !(ra.is_finite() && ra > 0.0) {
        return Err(SectionError::NotPositive {
            field: "rho_a",
            value: ra,
        });
    }
    check_spd(&inertia.euler_tensor, "euler_tensor", true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inertia() -> SectionInertia {
        SectionInertia {
            rho_a: 2.0,
            euler_tensor: [[0.3, 0.0], [0.0, 0.1]],
        }
    }

    fn diag() -> DiagonalStiffness {
        DiagonalStiffness {
            ea: 100.0,
            ga1: 40.0,
            ga2: 30.0,
            ei1: 2.0,
            ei2: 3.0,
            gj: 1.5,
        }
    }

    #[test]
    fn diagonal_law_and_wave_speeds() {
        let s = Section::from_diagonal(diag(), inertia()).unwrap();
        let c = s.stiffness();
        assert_eq!(
            [c[0][0], c[1][1], c[2][2], c[3][3], c[4][4], c[5][5]],
            [40.0, 30.0, 100.0, 2.0, 3.0, 1.5]
        );
        let w = s.wave_speeds();
        assert!((w.axial - 50f64.sqrt()).abs() < 1e-14);
        assert!((w.shear[1] - 15f64.sqrt()).abs() < 1e-14);
        // EI1 (about d1) with ρI about d1 = E22 = 0.1.
        assert!((w.bending[0] - 20f64.sqrt()).abs() < 1e-14);
        assert!((w.bending[1] - 10f64.sqrt()).abs() < 1e-14);
        assert!((w.torsion - (1.5f64 / 0.4).sqrt()).abs() < 1e-14);
        let pi = [0.1, 0.0, 0.01, 0.0, 0.2, 0.0];
        let want = 0.5 * (40.0 * 0.01 + 100.0 * 1e-4 + 3.0 * 0.04);
        assert!((s.energy_density(&pi) - want).abs() < 1e-15);
    }

    #[test]
    fn bad_scalars_are_named() {
        let mut k = diag();
        k.gj = 0.0;
        let err = Section::from_diagonal(k, inertia()).unwrap_err();
        assert_eq!(
            err,
            SectionError::NotPositive {
                field: "gj",
                value: 0.0
            }
        );
        assert!(err.to_string().contains("section.gj"));
        let mut i = inertia();
        i.rho_a = -1.0;
        assert!(matches!(
            Section::from_diagonal(diag(), i),
            Err(SectionError::NotPositive { field: "rho_a", .. })
        ));
        let mut i = inertia();
        i.euler_tensor = [[0.1, 0.2], [0.2, 0.1]];
        assert!(matches!(
            Section::from_diagonal(diag(), i),
            Err(SectionError::NotPositiveDefinite {
                matrix: "euler_tensor",
                index: 1,
                ..
            })
        ));
    }

    #[test]
    fn full_matrix_is_validated() {
        let mut c = [[0.0; 6]; 6];
        for i in 0..6 {
            c[i][i] = 10.0;
        }
        c[2][4] = 3.0;
        let err = Section::from_matrix(c, inertia()).unwrap_err();
        assert!(
            matches!(err, SectionError::NotSymmetric { row: 2, col: 4, .. }),
            "{err}"
        );
        c[4][2] = 3.0;
        assert!(Section::from_matrix(c, inertia()).is_ok());
        // Coupling larger than the geometric mean of the diagonal: not definite at entry 4.
        c[2][4] = 11.0;
        c[4][2] = 11.0;
        let err = Section::from_matrix(c, inertia()).unwrap_err();
        assert!(
            matches!(
                err,
                SectionError::NotPositiveDefinite {
                    matrix: "stiffness",
                    index: 4,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("section.stiffness[4][4]"));
        c[2][4] = f64::NAN;
        assert!(matches!(
            Section::from_matrix(c, inertia()),
            Err(SectionError::NonFinite { row: 2, col: 4, .. })
        ));
    }

    #[test]
    fn kelvin_voigt_is_report_eq3_for_diagonal_law() {
        let (ts, te) = (0.01, 0.002);
        let s = Section::from_diagonal(diag(), inertia())
            .unwrap()
            .with_kelvin_voigt(ts, te)
            .unwrap();
        let v = s.viscosity();
        // V_F = C_F diag(τS, τS, τE), V_M = C_M diag(τE, τE, τS).
        let want = [
            40.0 * ts,
            30.0 * ts,
            100.0 * te,
            2.0 * te,
            3.0 * te,
            1.5 * ts,
        ];
        for i in 0..6 {
            for j in 0..6 {
                let w = if i == j { want[i] } else { 0.0 };
                assert!((v[i][j] - w).abs() < 1e-15, "V[{i}][{j}]");
            }
        }
        assert!(s.is_viscous());
        let rate = [0.0, 0.0, 1.0, 0.0, 0.0, 2.0];
        assert!((s.dissipation_density(&rate) - (100.0 * te + 4.0 * 1.5 * ts)).abs() < 1e-15);
        let st = s.stress(&[0.0; 6], &rate);
        assert!((st[5] - 2.0 * 1.5 * ts).abs() < 1e-15);
        assert!(matches!(
            Section::from_diagonal(diag(), inertia())
                .unwrap()
                .with_kelvin_voigt(-1.0, 0.0),
            Err(SectionError::BadRetardationTime { field: "tau_s", .. })
        ));
    }

    #[test]
    fn rectangle_torsion_constants() {
        let r = Rectangle {
            e: 1e7,
            g: 5e6,
            rho: 1.0,
            b1: 1.0,
            b2: 1.0,
            shear_correction: 1.0,
            torsion: TorsionConstant::SaintVenant,
        };
        // Square: J = 0.1406 a⁴ (Timoshenko & Goodier, β = 0.141).
        assert!(
            (r.saint_venant_j() - 0.1406).abs() < 1e-4,
            "{}",
            r.saint_venant_j()
        );
        // Thin strip: J → a b³/3.
        let strip = Rectangle {
            b1: 100.0,
            b2: 1.0,
            ..r
        };
        assert!((strip.saint_venant_j() / (100.0 / 3.0) - (1.0 - 0.63 / 100.0)).abs() < 1e-3);
        let k = r.stiffness();
        assert!((k.ei1 - 1e7 / 12.0).abs() < 1e-6 && (k.ga1 - 5e6).abs() < 1e-6);
        let polar = Rectangle {
            torsion: TorsionConstant::Polar,
            ..r
        }
        .stiffness();
        assert!((polar.gj - 5e6 / 6.0).abs() < 1e-6);
        // Inertia of a 2 × 1 rectangle: E11 = ρ b2 b1³/12 (spread along d1).
        let i = Rectangle { b1: 2.0, ..r }.inertia();
        assert!((i.euler_tensor[0][0] - 8.0 / 12.0).abs() < 1e-15);
        assert!((i.euler_tensor[1][1] - 2.0 / 12.0).abs() < 1e-15);
        assert!(Section::rectangle(&Rectangle { b2: 0.0, ..r }).is_err());
    }
}
