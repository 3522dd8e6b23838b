//! Characteristic analysis of the planar geometrically exact beam, `[I]` Sect. 3, Eq. 22-30.
//!
//! # First-order form (Eq. 22-26)
//! With `x = (r1, r2, θ)`, the velocity `v = ∂t x` and the deformation gradient `p = ∂s x =
//! (r1', r2', θ')`, the beam equations `A ∂t v − ∂s σ = C` (`σ = B ∂s x = (n1, n2, M)`: the
//! global force `n = N d3 + Q d1` and the moment; `C = (0, 0, r' × n)`) become
//!
//! ```text
//! A ∂t v − H ∂s p = F₁,      H = ∂σ/∂p (at fixed θ),   F₁ = C + (∂σ/∂θ) θ'      (22, 25)
//!   ∂t p −   ∂s v = 0                                                          (23, 24)
//! ```
//!
//! i.e. `D ∂t z + E ∂s z = F` (Eq. 26) for `z = (v, p)`, with `D = diag(A, I)`,
//! `E = [[0, −H], [−I, 0]]`, `F = (F₁, 0)`. (`[I]` writes the second unknown as `B p`; since
//! `∂t(Bp) = H ∂t p + (∂σ/∂θ) v₃` the two forms have the same characteristics.) For the
//! planar beam
//!
//! ```text
//! H = N_ν d3⊗d3 + GA d1⊗d1  ⊕  EI,      ∂σ/∂θ = ((N_ν γ − Q) d3 + (N − GA ν) d1, 0)
//! ```
//!
//! (`[I]` Eq. 29 prints `cos²Θ` for the `(2, 2)` entry of `(∂p ⊗ B) p` and `−GA cosΘ sin 2Θ`
//! for the off-diagonal shear entries of `H`; both must be `sin²Θ` and `−GA cosΘ sinΘ`.)
//!
//! # Characteristics (Eq. 27-30)
//! `det(E − λ D) = 0` ⇔ `det(H − λ² A) = 0`: six characteristic directions `ds/dt = ±c_k` with
//! the generalised eigenpairs `H e_k = c_k² A e_k`:
//!
//! | family | `e_k` | `c_k²` |
//! |---|---|---|
//! | bending | `(0, 0, 1)/√ρI` | `EI/ρI` |
//! | shear | `d1/√ρA` | `GA/ρA` |
//! | axial | `d3/√ρA` | `N_ν/ρA` (log law: `EA/(2ρA)(1 + ν⁻²)`) |
//!
//! `[I]` Eq. 30. The left null vector of `E − λD` at `λ = ±c_k` is `l = (e_k, ∓c_k A e_k)`; the
//! compatibility condition (Eq. 28₂) is `lᵀ D dz/dt = lᵀ F` along the characteristic, i.e.
//!
//! ```text
//! e_kᵀ A (dv ∓ c_k dp) = e_kᵀ F₁ dt      along  ds = ±c_k dt .
//! ```
//!
//! For the linear wave (`F₁ = 0`, constant `c`) these are d'Alembert's Riemann invariants
//! `v ∓ c p = const`. [`CharacteristicAnalysis`] evaluates all of this at any state; the
//! wave speeds agree with [`ConstitutiveLaw::wave_speeds`] (same ordering: bending, shear,
//! axial).

use super::element::ElementError;
use crate::beam::section::{
    ConstitutiveLaw, ReferenceStrains, SectionProperties, Strains, strains,
};

/// Names of the three wave families, in the order of [`CharacteristicAnalysis::speeds`].
pub const FAMILIES: [&str; 3] = ["bending", "shear", "axial"];

/// Characteristic data of the planar beam at one state `(θ, p = ∂s x)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacteristicAnalysis {
    /// Strains `(ν, γ1, κ)` of the state.
    pub strains: Strains,
    /// Stress resultant `σ = B ∂s x = (n1, n2, M)` in the global frame (N, N, N·m).
    pub stress: [f64; 3],
    /// Inertia `A = diag(ρA, ρA, ρI)`.
    pub inertia: [f64; 3],
    /// `H = ∂σ/∂p` at fixed `θ` (`[I]` Eq. 25), symmetric.
    pub tangent: [[f64; 3]; 3],
    /// `∂σ/∂θ` at fixed `p`.
    pub stress_theta: [f64; 3],
    /// Characteristic speeds `c_k > 0` (m/s): `[bending, shear, axial]`, `[I]` Eq. 30.
    pub speeds: [f64; 3],
    /// Modes `e_k` (`H e_k = c_k² A e_k`, `e_kᵀ A e_k = 1`), same order as `speeds`.
    pub modes: [[f64; 3]; 3],
    /// `F₁ = C + (∂σ/∂θ) θ'`, the right-hand side of `A ∂t v − H ∂s p = F₁`.
    pub source: [f64; 3],
}

/// Stress resultant `σ = (n1, n2, M)` (global frame) at rotation `θ` and `p = ∂s x`, for the
/// straight stress-free reference.
pub fn stress(sec: &SectionProperties, law: ConstitutiveLaw, theta: f64, p: [f64; 3]) -> [f64; 3] {
    let e = strains([p[0], p[1]], theta, p[2]);
    let r = law.resultants(sec, e, ReferenceStrains::STRAIGHT);
    let (sn, cs) = theta.sin_cos();
    [
        r.axial * cs - r.shear * sn,
        r.axial * sn + r.shear * cs,
        r.moment,
    ]
}

/// Inverse of [`stress`] at fixed `θ`: the `p = ∂s x` whose stress resultant is `σ`. Needed to
/// turn the tip law `σ(L, t) = h` into Cauchy data. Fails for the log law when no stretch
/// `ν > 0` gives the axial force (never: `N(ν)` maps `(0, ∞)` onto `ℝ`) or for non-finite input.
pub fn deformation_gradient(
    sec: &SectionProperties,
    law: ConstitutiveLaw,
    theta: f64,
    sigma: [f64; 3],
) -> Result<[f64; 3], ElementError> {
    let (sn, cs) = theta.sin_cos();
    let n_axial = cs * sigma[0] + sn * sigma[1];
    let q = -sn * sigma[0] + cs * sigma[1];
    let nu = match law {
        ConstitutiveLaw::Quadratic => 1.0 + n_axial / sec.ea,
        // (EA/2)(ν − 1/ν) = N  ⇔  ν² − 2aν − 1 = 0, a = N/EA; the positive root, written
        // without cancellation for N < 0.
        ConstitutiveLaw::Log => {
            let a = n_axial / sec.ea;
            let r = (a * a + 1.0).sqrt();
            if a >= 0.0 { a + r } else { 1.0 / (r - a) }
        }
    };
    if !nu.is_finite() || (law == ConstitutiveLaw::Log && nu <= 0.0) {
        return Err(ElementError::Inverted { nu });
    }
    let gamma = q / sec.ga;
    Ok([
        nu * cs - gamma * sn,
        nu * sn + gamma * cs,
        sigma[2] / sec.ei,
    ])
}

impl CharacteristicAnalysis {
    /// Evaluates the analysis at rotation `theta` and `p = ∂s x` (straight stress-free
    /// reference, no distributed loads). Fails where the law is undefined (log law, `ν ≤ 0`).
    pub fn at(
        sec: &SectionProperties,
        law: ConstitutiveLaw,
        theta: f64,
        p: [f64; 3],
    ) -> Result<Self, ElementError> {
        let e = strains([p[0], p[1]], theta, p[2]);
        if !e.nu.is_finite() || (law == ConstitutiveLaw::Log && e.nu <= 0.0) {
            return Err(ElementError::Inverted { nu: e.nu });
        }
        let r = law.resultants(sec, e, ReferenceStrains::STRAIGHT);
        let (sn, cs) = theta.sin_cos();
        let d3 = [cs, sn];
        let d1 = [-sn, cs];
        let stress = [
            r.axial * d3[0] + r.shear * d1[0],
            r.axial * d3[1] + r.shear * d1[1],
            r.moment,
        ];
        let mut tangent = [[0.0; 3]; 3];
        for a in 0..2 {
            for b in 0..2 {
                tangent[a][b] = r.d_axial * d3[a] * d3[b] + r.d_shear * d1[a] * d1[b];
            }
        }
        tangent[2][2] = r.d_moment;
        // ∂n/∂θ: ∂ν/∂θ = γ, ∂γ/∂θ = −ν, ∂d3/∂θ = d1, ∂d1/∂θ = −d3
        let dn_a = r.d_axial * e.gamma - r.shear;
        let dn_s = r.axial - r.d_shear * e.nu;
        let stress_theta = [
            dn_a * d3[0] + dn_s * d1[0],
            dn_a * d3[1] + dn_s * d1[1],
            0.0,
        ];
        let cross = e.nu * r.shear - e.gamma * r.axial; // r' × n
        let source = [
            stress_theta[0] * p[2],
            stress_theta[1] * p[2],
            cross + stress_theta[2] * p[2],
        ];
        let inertia = [sec.rho_a, sec.rho_a, sec.rho_i];
        let (ra, ri) = (sec.rho_a.sqrt(), sec.rho_i.sqrt());
        Ok(Self {
            strains: e,
            stress,
            inertia,
            tangent,
            stress_theta,
            speeds: [
                (r.d_moment / sec.rho_i).sqrt(),
                (r.d_shear / sec.rho_a).sqrt(),
                (r.d_axial / sec.rho_a).sqrt(),
            ],
            modes: [
                [0.0, 0.0, 1.0 / ri],
                [d1[0] / ra, d1[1] / ra, 0.0],
                [d3[0] / ra, d3[1] / ra, 0.0],
            ],
            source,
        })
    }

    /// The six characteristic speeds `λ = ds/dt` (`[I]` Eq. 28₁): `[+c_b, −c_b, +c_s, −c_s,
    /// +c_a, −c_a]`.
    pub fn signed_speeds(&self) -> [f64; 6] {
        let c = self.speeds;
        [c[0], -c[0], c[1], -c[1], c[2], -c[2]]
    }

    /// `D`, `E` and `F` of `[I]` Eq. 26 for `z = (v, p)` (row-major 6 × 6).
    pub fn system(&self) -> ([[f64; 6]; 6], [[f64; 6]; 6], [f64; 6]) {
        let mut d = [[0.0; 6]; 6];
        let mut e = [[0.0; 6]; 6];
        let mut f = [0.0; 6];
        for a in 0..3 {
            d[a][a] = self.inertia[a];
            d[3 + a][3 + a] = 1.0;
            e[3 + a][a] = -1.0;
            for b in 0..3 {
                e[a][3 + b] = -self.tangent[a][b];
            }
            f[a] = self.source[a];
        }
        (d, e, f)
    }

    /// Left null vector `l` of `E − λD` for family `k` (0 bending, 1 shear, 2 axial) and
    /// `λ = sign · c_k`: `l = (e_k, −λ A e_k)`.
    pub fn left_vector(&self, k: usize, sign: f64) -> [f64; 6] {
        let lambda = sign * self.speeds[k];
        let e = self.modes[k];
        let mut l = [0.0; 6];
        for a in 0..3 {
            l[a] = e[a];
            l[3 + a] = -lambda * self.inertia[a] * e[a];
        }
        l
    }

    /// Residual of the compatibility condition (`[I]` Eq. 28₂) of family `k` along
    /// `ds = sign · c_k dt` for increments `dv`, `dp` over `dt`:
    /// `e_kᵀ A (dv − sign c_k dp) − e_kᵀ F₁ dt`. Zero (to `O(dt²)`) for a solution.
    pub fn compatibility_residual(
        &self,
        k: usize,
        sign: f64,
        dv: [f64; 3],
        dp: [f64; 3],
        dt: f64,
    ) -> f64 {
        let e = self.modes[k];
        let c = sign * self.speeds[k];
        (0..3)
            .map(|a| e[a] * (self.inertia[a] * (dv[a] - c * dp[a]) - self.source[a] * dt))
            .sum()
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

    /// Determinant of a 6 × 6 matrix by Gaussian elimination with partial pivoting.
    fn det6(mut m: [[f64; 6]; 6]) -> f64 {
        let mut det = 1.0;
        for c in 0..6 {
            let piv = (c..6)
                .max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))
                .unwrap();
            if m[piv][c] == 0.0 {
                return 0.0;
            }
            if piv != c {
                m.swap(piv, c);
                det = -det;
            }
            det *= m[c][c];
            for r in c + 1..6 {
                let f = m[r][c] / m[c][c];
                for k in c..6 {
                    m[r][k] -= f * m[c][k];
                }
            }
        }
        det
    }

    /// A generic state: rotated, stretched, sheared, curved.
    fn state() -> (f64, [f64; 3]) {
        let theta: f64 = 0.7;
        let (nu, gamma) = (1.3, 0.2);
        let (sn, cs) = theta.sin_cos();
        (theta, [nu * cs - gamma * sn, nu * sn + gamma * cs, 0.5])
    }

    /// Eq. 28₁: `det(E − λD)` vanishes at the six speeds, which are those of Eq. 30 (and of
    /// `wave_speeds`); `l` is a left null vector; `H` is `∂σ/∂p` and `∂σ/∂θ` is right.
    #[test]
    fn speeds_are_roots_of_the_characteristic_determinant() {
        let (theta, p) = state();
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            let a = CharacteristicAnalysis::at(&SEC, law, theta, p).unwrap();
            assert!((a.strains.nu - 1.3).abs() < 1e-14 && (a.strains.gamma - 0.2).abs() < 1e-14);
            let c_ref = law.wave_speeds(&SEC, 1.3);
            for k in 0..3 {
                assert!((a.speeds[k] - c_ref[k]).abs() < 1e-14, "{law:?} {k}");
            }
            let (d, e, _) = a.system();
            let scale = det6(e);
            for (r, &lambda) in a.signed_speeds().iter().enumerate() {
                let mut q = e;
                for i in 0..6 {
                    for j in 0..6 {
                        q[i][j] -= lambda * d[i][j];
                    }
                }
                assert!(det6(q).abs() < 1e-12 * scale.abs(), "{law:?} λ = {lambda}");
                let l = a.left_vector(r / 2, if r % 2 == 0 { 1.0 } else { -1.0 });
                for j in 0..6 {
                    let lq: f64 = (0..6).map(|i| l[i] * q[i][j]).sum();
                    assert!(lq.abs() < 1e-12, "{law:?} l·Q column {j}: {lq}");
                }
                // not a root: slightly off
                let mut q2 = e;
                for i in 0..6 {
                    for j in 0..6 {
                        q2[i][j] -= 1.05 * lambda * d[i][j];
                    }
                }
                assert!(det6(q2).abs() > 1e-6 * scale.abs());
            }
            // H = ∂σ/∂p and ∂σ/∂θ by central differences
            let h = 1e-6;
            for b in 0..3 {
                let (mut pp, mut pm) = (p, p);
                pp[b] += h;
                pm[b] -= h;
                let (sp, sm) = (stress(&SEC, law, theta, pp), stress(&SEC, law, theta, pm));
                for c in 0..3 {
                    let fd = (sp[c] - sm[c]) / (2.0 * h);
                    assert!((fd - a.tangent[c][b]).abs() < 1e-7, "{law:?} H[{c}][{b}]");
                }
            }
            let (sp, sm) = (
                stress(&SEC, law, theta + h, p),
                stress(&SEC, law, theta - h, p),
            );
            for c in 0..3 {
                let fd = (sp[c] - sm[c]) / (2.0 * h);
                assert!((fd - a.stress_theta[c]).abs() < 1e-7, "{law:?} σ_θ[{c}]");
            }
            // modes: H e = c² A e, eᵀ A e = 1
            for k in 0..3 {
                let m = a.modes[k];
                let norm: f64 = (0..3).map(|i| m[i] * a.inertia[i] * m[i]).sum();
                assert!((norm - 1.0).abs() < 1e-14);
                for i in 0..3 {
                    let he: f64 = (0..3).map(|j| a.tangent[i][j] * m[j]).sum();
                    let rhs = a.speeds[k] * a.speeds[k] * a.inertia[i] * m[i];
                    assert!((he - rhs).abs() < 1e-12);
                }
            }
        }
    }

    /// `deformation_gradient` inverts `stress` (both laws, tension and compression).
    #[test]
    fn stress_inversion_round_trip() {
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            for theta in [0.0, 0.7, -2.0] {
                for sigma in [[0.0, 0.0, 0.0], [3.0, -1.0, 0.4], [-40.0, 5.0, -2.0]] {
                    let p = deformation_gradient(&SEC, law, theta, sigma).unwrap();
                    let s = stress(&SEC, law, theta, p);
                    for c in 0..3 {
                        assert!((s[c] - sigma[c]).abs() < 1e-12 * (1.0 + sigma[c].abs()));
                    }
                }
            }
        }
        // the quadratic law inverts at N ≤ −EA (ν ≤ 0), which the log law never reaches
        let p = deformation_gradient(&SEC, ConstitutiveLaw::Log, 0.0, [-1e6, 0.0, 0.0]).unwrap();
        assert!(p[0] > 0.0);
    }

    /// Along the d'Alembert solution of the linear wave the compatibility residual vanishes:
    /// `v ∓ c p` is constant along `ds = ±c dt` (axial motion, quadratic law).
    #[test]
    fn compatibility_holds_for_dalembert() {
        let c: f64 = (SEC.ea / SEC.rho_a).sqrt();
        let g = |t: f64| 0.01 * (1.3 * t).sin();
        let gp = |t: f64| 0.013 * (1.3 * t).cos();
        let _ = g;
        // u(s, t) = ½[g(t + (L−s)/c) + g(t − (L−s)/c)], L = 1
        let vp = |s: f64, t: f64| {
            let (a, b) = (t + (1.0 - s) / c, t - (1.0 - s) / c);
            (0.5 * (gp(a) + gp(b)), 0.5 * (-gp(a) + gp(b)) / c)
        };
        for sign in [1.0, -1.0] {
            let (s0, t0, dt) = (0.3, 0.4, 0.05);
            let (s1, t1) = (s0 + sign * c * dt, t0 + dt);
            let (v0, p0) = vp(s0, t0);
            let (v1, p1) = vp(s1, t1);
            let a = CharacteristicAnalysis::at(
                &SEC,
                ConstitutiveLaw::Quadratic,
                0.0,
                [1.0 + p0, 0.0, 0.0],
            )
            .unwrap();
            let r = a.compatibility_residual(2, sign, [v1 - v0, 0.0, 0.0], [p1 - p0, 0.0, 0.0], dt);
            assert!(r.abs() < 1e-15, "sign {sign}: {r}");
            // the other direction does not satisfy it
            let r2 =
                a.compatibility_residual(2, -sign, [v1 - v0, 0.0, 0.0], [p1 - p0, 0.0, 0.0], dt);
            assert!(r2.abs() > 1e-6, "{r2}");
        }
    }
}
