//! Planar Simo–Reissner beam element of order 1 or 2 (`[I]` Example 1.2).
//!
//! Unknowns per node: `(r1, r2, θ)` (m, m, rad). Inside an element of reference length `h` the
//! fields are interpolated with the Lagrange shape functions `N_a(s)`; the strains of
//! [`super::section::strains`] are evaluated at the points of a *reduced* Gauss rule (`p` points for
//! order `p`), which removes shear and membrane locking.
//!
//! **Residual** (internal virtual work `δΠ = ∫ (N δν + Q δγ1 + M δκ) ds`) with
//! `δν = d3·δr' + γ1 δθ`, `δγ1 = d1·δr' − ν δθ`, `δκ = δθ'`:
//!
//! ```text
//! f_a,r = Σ_g w_g (N d3 + Q d1) N_a'            (N)
//! f_a,θ = Σ_g w_g [(N γ1 − Q ν) N_a + M N_a']   (N·m)
//! ```
//!
//! **Tangent** `K = Σ_g w_g (Bᵀ D B + G)`, `B` the rows of `(δν, δγ1, δκ)`, `D = diag(∂N/∂ν,
//! GA, EI)`, and the geometric part from the second variations
//! `∂²ν/∂θ∂r' = d1`, `∂²ν/∂θ² = −ν`, `∂²γ1/∂θ∂r' = −d3`, `∂²γ1/∂θ² = −γ1`:
//! `G_θθ = −(N ν + Q γ1) N_a N_b`, `G_{r θ} = (N d1 − Q d3) N_a' N_b`.
//!
//! **Discrete gradient** for the energy-momentum stepper ([`BeamElement::discrete_gradient_into`]):
//! with `Δθ = θ₁ − θ₀`, `θ_m = ½(θ₀ + θ₁)`, `Λ_m = R(θ_m)`, `r̄' = ½(r₀' + r₁')` and
//! `ā = Λ_mᵀ r̄' = (ν̄, γ̄)`, the *exact* strain increments are
//!
//! ```text
//! Δν  = cos(Δθ/2) d3(θ_m)·Δr' + sinc(Δθ/2) γ̄ Δθ
//! Δγ1 = cos(Δθ/2) d1(θ_m)·Δr' − sinc(Δθ/2) ν̄ Δθ
//! Δκ  = Δθ'
//! ```
//!
//! (from `R(−θ₁) = R(−Δθ/2) Λ_mᵀ`, `R(−θ₀) = R(Δθ/2) Λ_mᵀ`). Their coefficients define an
//! algorithmic strain operator `B̄` with `B̄ Δq = Δe` *exactly*; with the algorithmic stresses
//! `S̄ = (Ψ(e₁) − Ψ(e₀))/(e₁ − e₀)` per uncoupled component (`= S(½(e₀+e₁))` for the quadratic
//! law), `f̄ = Σ w B̄ᵀ S̄` satisfies `f̄·Δq = V(q₁) − V(q₀)`: the discrete-gradient property of
//! Gonzalez (1996) applied strain by strain, as in Simo & Tarnow (1992).
//! Σ_a N_a' = 0 makes `Σ_a f̄_a,r = 0`, so linear momentum is conserved exactly; with the
//! additive angle update angular momentum is conserved only up to
//! `(cos(Δθ/2) − sinc(Δθ/2)) = O(Δθ²)` per step. [`super::cayley`] rewrites the same exact
//! increments in the Cayley increments of the angles, which conserves it exactly
//! (`docs/theory.md` §5).

use super::section::{ConstitutiveLaw, ReferenceStrains, SectionProperties, Strains, strains};
use crate::basis::{GaussLegendre, LagrangeBasis};

/// Largest number of nodes of an element (order 2).
pub const MAX_NODES: usize = 3;
/// Largest number of element unknowns.
pub const MAX_DOFS: usize = 3 * MAX_NODES;

/// Element matrix buffer (row-major, `MAX_DOFS × MAX_DOFS`, only the leading `3(p+1)` used).
pub type ElementMatrix = [[f64; MAX_DOFS]; MAX_DOFS];

/// Failure inside an element.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum ElementError {
    /// The log law was evaluated at `ν ≤ 0` (the element is inverted).
    #[error("stretch ν = {nu} ≤ 0 at a quadrature point: the log law is undefined there")]
    InvertedElement {
        /// The offending stretch.
        nu: f64,
    },
    /// A section rotated by nearly `π` or more within one step of the Cayley energy-momentum
    /// scheme (its rotation increment `2 tan(Δθ/2)` is unbounded at `|Δθ| = π`).
    #[error(
        "rotation increment Δθ = {dtheta} rad in one step: the Cayley update needs |Δθ| < π; \
         use a smaller time step"
    )]
    RotationIncrement {
        /// The offending increment (rad).
        dtheta: f64,
    },
}

/// Shape-function values at the points of a Gauss rule, for an element of length `h`.
#[derive(Debug, Clone)]
pub struct ShapeTable {
    /// Element order `p` (1 or 2).
    pub order: usize,
    /// `N_a` at each point.
    pub n: Vec<[f64; MAX_NODES]>,
    /// `dN_a/ds` at each point (1/m).
    pub dn: Vec<[f64; MAX_NODES]>,
    /// Weight times element length `w_g h` (m).
    pub w: Vec<f64>,
}

impl ShapeTable {
    /// Table for order `p`, element length `h` and a Gauss rule of `points` points.
    pub fn new(order: usize, h: f64, points: usize) -> Self {
        let basis = LagrangeBasis::new(order);
        let rule = GaussLegendre::new(points);
        let mut t = Self {
            order,
            n: Vec::new(),
            dn: Vec::new(),
            w: Vec::new(),
        };
        for (&x, &w) in rule.points.iter().zip(&rule.weights) {
            let (mut n, mut dn) = ([0.0; MAX_NODES], [0.0; MAX_NODES]);
            basis.eval_into(x, &mut n[..=order], &mut dn[..=order]);
            for v in &mut dn {
                *v /= h;
            }
            t.n.push(n);
            t.dn.push(dn);
            t.w.push(w * h);
        }
        t
    }

    /// Number of nodes `p + 1`.
    pub fn nodes(&self) -> usize {
        self.order + 1
    }

    /// `(r', θ, θ')` at point `g` from element unknowns `x` (`3(p+1)` values).
    #[inline]
    pub fn interpolate(&self, g: usize, x: &[f64]) -> ([f64; 2], f64, f64) {
        let (mut dr, mut th, mut dth) = ([0.0; 2], 0.0, 0.0);
        for a in 0..self.nodes() {
            let (n, dn) = (self.n[g][a], self.dn[g][a]);
            dr[0] += dn * x[3 * a];
            dr[1] += dn * x[3 * a + 1];
            th += n * x[3 * a + 2];
            dth += dn * x[3 * a + 2];
        }
        (dr, th, dth)
    }
}

/// One element's constitutive data: what the kernel needs besides the unknowns.
#[derive(Debug, Clone, Copy)]
pub struct ElementCtx<'a> {
    /// Reduced-integration shape table.
    pub shapes: &'a ShapeTable,
    /// Reference strains at the points of `shapes` (stress-free state).
    pub reference: &'a [ReferenceStrains],
    /// Section properties.
    pub section: &'a SectionProperties,
    /// Constitutive law.
    pub law: ConstitutiveLaw,
}

/// The element operations used by the assemblers: one small trait, as in the style guide.
pub trait BeamElement {
    /// Stored energy of the element (J).
    fn energy(&self, x: &[f64]) -> Result<f64, ElementError>;
    /// Internal force `f = ∂Π/∂x` into `f` and, if given, the exact tangent into `k`.
    fn residual_into(
        &self,
        x: &[f64],
        f: &mut [f64],
        k: Option<&mut ElementMatrix>,
    ) -> Result<(), ElementError>;
    /// Discrete gradient `f̄(x₀, x₁)` with `f̄·(x₁ − x₀) = Π(x₁) − Π(x₀)`.
    fn discrete_gradient_into(
        &self,
        x0: &[f64],
        x1: &[f64],
        f: &mut [f64],
    ) -> Result<(), ElementError>;
}

pub(crate) fn check(law: ConstitutiveLaw, e: &Strains) -> Result<(), ElementError> {
    if law == ConstitutiveLaw::Log && e.nu <= 0.0 || !e.nu.is_finite() {
        return Err(ElementError::InvertedElement { nu: e.nu });
    }
    Ok(())
}

/// `sin(x)/x`, with its Taylor series near 0.
#[inline]
pub fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-4 {
        1.0 - x * x / 6.0
    } else {
        x.sin() / x
    }
}

impl BeamElement for ElementCtx<'_> {
    fn energy(&self, x: &[f64]) -> Result<f64, ElementError> {
        let mut e_tot = 0.0;
        for g in 0..self.shapes.w.len() {
            let (dr, th, dth) = self.shapes.interpolate(g, x);
            let e = strains(dr, th, dth);
            check(self.law, &e)?;
            e_tot += self.shapes.w[g] * self.law.energy(self.section, e, self.reference[g]);
        }
        Ok(e_tot)
    }

    fn residual_into(
        &self,
        x: &[f64],
        f: &mut [f64],
        mut k: Option<&mut ElementMatrix>,
    ) -> Result<(), ElementError> {
        let nn = self.shapes.nodes();
        let nd = 3 * nn;
        f[..nd].fill(0.0);
        if let Some(k) = k.as_deref_mut() {
            for row in k.iter_mut().take(nd) {
                row[..nd].fill(0.0);
            }
        }
        for g in 0..self.shapes.w.len() {
            let (n, dn, w) = (&self.shapes.n[g], &self.shapes.dn[g], self.shapes.w[g]);
            let (dr, th, dth) = self.shapes.interpolate(g, x);
            let e = strains(dr, th, dth);
            check(self.law, &e)?;
            let s = self.law.resultants(self.section, e, self.reference[g]);
            let (sn, cs) = th.sin_cos();
            let d3 = [cs, sn];
            let d1 = [-sn, cs];
            // B rows: δν = d3·δr' + γ δθ, δγ = d1·δr' − ν δθ, δκ = δθ'.
            let mut b = [[0.0; MAX_DOFS]; 3];
            for a in 0..nn {
                b[0][3 * a] = d3[0] * dn[a];
                b[0][3 * a + 1] = d3[1] * dn[a];
                b[0][3 * a + 2] = e.gamma * n[a];
                b[1][3 * a] = d1[0] * dn[a];
                b[1][3 * a + 1] = d1[1] * dn[a];
                b[1][3 * a + 2] = -e.nu * n[a];
                b[2][3 * a + 2] = dn[a];
            }
            let stress = [s.axial, s.shear, s.moment];
            for i in 0..nd {
                // f = Σ w Bᵀ S
                f[i] += w * (b[0][i] * stress[0] + b[1][i] * stress[1] + b[2][i] * stress[2]);
            }
            if let Some(k) = k.as_deref_mut() {
                let dd = [s.d_axial, s.d_shear, s.d_moment];
                for i in 0..nd {
                    for j in 0..nd {
                        // material part Bᵀ D B
                        k[i][j] += w
                            * (b[0][i] * dd[0] * b[0][j]
                                + b[1][i] * dd[1] * b[1][j]
                                + b[2][i] * dd[2] * b[2][j]);
                    }
                }
                // geometric part: G_θθ = −(N ν + Q γ) N_a N_b, G_rθ = (N d1 − Q d3) N_a' N_b
                let grt = [
                    s.axial * d1[0] - s.shear * d3[0],
                    s.axial * d1[1] - s.shear * d3[1],
                ];
                let gtt = -(s.axial * e.nu + s.shear * e.gamma);
                for a in 0..nn {
                    for bb in 0..nn {
                        k[3 * a + 2][3 * bb + 2] += w * gtt * n[a] * n[bb];
                        for c in 0..2 {
                            let v = w * grt[c] * dn[a] * n[bb];
                            k[3 * a + c][3 * bb + 2] += v;
                            k[3 * bb + 2][3 * a + c] += v;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn discrete_gradient_into(
        &self,
        x0: &[f64],
        x1: &[f64],
        f: &mut [f64],
    ) -> Result<(), ElementError> {
        let nn = self.shapes.nodes();
        f[..3 * nn].fill(0.0);
        let sec = self.section;
        for g in 0..self.shapes.w.len() {
            let (n, dn, w) = (&self.shapes.n[g], &self.shapes.dn[g], self.shapes.w[g]);
            let (dr0, th0, dth0) = self.shapes.interpolate(g, x0);
            let (dr1, th1, dth1) = self.shapes.interpolate(g, x1);
            let (e0, e1) = (strains(dr0, th0, dth0), strains(dr1, th1, dth1));
            check(self.law, &e0)?;
            check(self.law, &e1)?;
            let eref = self.reference[g];
            let dth = th1 - th0;
            let (sm, cm) = (0.5 * (th0 + th1)).sin_cos();
            let ch = (0.5 * dth).cos();
            let sg = sinc(0.5 * dth);
            let rbar = [0.5 * (dr0[0] + dr1[0]), 0.5 * (dr0[1] + dr1[1])];
            let nu_bar = cm * rbar[0] + sm * rbar[1];
            let ga_bar = -sm * rbar[0] + cm * rbar[1];
            // Algorithmic stresses S̄ (discrete derivatives of the uncoupled energy).
            let n_bar = axial_discrete_derivative(self.law, sec, e0.nu, e1.nu, eref.nu);
            let q_bar = sec.ga * (0.5 * (e0.gamma + e1.gamma) - eref.gamma);
            let m_bar = sec.ei * (0.5 * (e0.kappa + e1.kappa) - eref.kappa);
            // n̄ = cos(Δθ/2) (N̄ d3m + Q̄ d1m), θ-coefficient sinc(Δθ/2)(N̄ γ̄ − Q̄ ν̄)
            let fr = [
                ch * (n_bar * cm - q_bar * sm),
                ch * (n_bar * sm + q_bar * cm),
            ];
            let ft = sg * (n_bar * ga_bar - q_bar * nu_bar);
            for a in 0..nn {
                f[3 * a] += w * fr[0] * dn[a];
                f[3 * a + 1] += w * fr[1] * dn[a];
                f[3 * a + 2] += w * (ft * n[a] + m_bar * dn[a]);
            }
        }
        Ok(())
    }
}

/// `(Ψ_ax(ν₁) − Ψ_ax(ν₀))/(ν₁ − ν₀)` (N), with the midpoint derivative as the limit.
pub(crate) fn axial_discrete_derivative(
    law: ConstitutiveLaw,
    sec: &SectionProperties,
    nu0: f64,
    nu1: f64,
    nu_ref: f64,
) -> f64 {
    match law {
        // Quadratic: exact at the mean strain.
        ConstitutiveLaw::Quadratic => sec.ea * (0.5 * (nu0 + nu1) - nu_ref),
        ConstitutiveLaw::Log => {
            // Ψ = EA/4 (ν² − 2 ln ν − 1): ΔΨ/Δν = EA/4 (ν₀ + ν₁ − 2 ln(ν₁/ν₀)/(ν₁ − ν₀)).
            // ln(ν₁/ν₀)/(ν₁ − ν₀) = ln(1 + x)/d with x = d/ν₀, through ln_1p: a smooth function
            // of d (the plain quotient of logarithms has round-off noise ~1e-16/d, which
            // stalled Newton at ~1e-8 N for EA = 1e3).
            let d = nu1 - nu0;
            let log_quot = if d == 0.0 {
                1.0 / nu0
            } else {
                (d / nu0).ln_1p() / d
            };
            0.25 * sec.ea * (nu0 + nu1 - 2.0 * log_quot)
        }
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

    fn sample(order: usize) -> Vec<f64> {
        // A strained, rotated, curved configuration.
        (0..=order)
            .flat_map(|a| {
                let t = a as f64 / order as f64;
                [
                    0.9 * t + 0.1 * t * t,
                    0.3 * t - 0.2 * t * t,
                    0.2 + 0.7 * t - 0.3 * t * t,
                ]
            })
            .collect()
    }

    /// The residual is the gradient of the energy, the tangent the Jacobian of the residual.
    #[test]
    fn residual_and_tangent_match_finite_differences() {
        let eref = [ReferenceStrains {
            nu: 1.0,
            gamma: 0.0,
            kappa: 0.2,
        }; 2];
        for order in [1, 2] {
            for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
                let shapes = ShapeTable::new(order, 1.0, order);
                let el = ElementCtx {
                    shapes: &shapes,
                    reference: &eref,
                    section: &SEC,
                    law,
                };
                let x = sample(order);
                let nd = x.len();
                let mut f = [0.0; MAX_DOFS];
                let mut k = [[0.0; MAX_DOFS]; MAX_DOFS];
                el.residual_into(&x, &mut f, Some(&mut k)).unwrap();
                let h = 1e-6;
                for j in 0..nd {
                    let (mut xp, mut xm) = (x.clone(), x.clone());
                    xp[j] += h;
                    xm[j] -= h;
                    let de = (el.energy(&xp).unwrap() - el.energy(&xm).unwrap()) / (2.0 * h);
                    assert!((de - f[j]).abs() < 1e-7, "p={order} {law:?} f[{j}]");
                    let (mut fp, mut fm) = ([0.0; MAX_DOFS], [0.0; MAX_DOFS]);
                    el.residual_into(&xp, &mut fp, None).unwrap();
                    el.residual_into(&xm, &mut fm, None).unwrap();
                    for i in 0..nd {
                        let fd = (fp[i] - fm[i]) / (2.0 * h);
                        assert!(
                            (fd - k[i][j]).abs() < 1e-6 * (1.0 + k[i][j].abs()),
                            "p={order} {law:?} K[{i}][{j}] {fd} vs {}",
                            k[i][j]
                        );
                        // symmetric (hyperelastic, conservative)
                        assert!((k[i][j] - k[j][i]).abs() < 1e-12 * (1.0 + k[i][j].abs()));
                    }
                }
            }
        }
    }

    /// `f̄·Δx = ΔΠ` to round-off for large increments (rotations of 2 rad), `f̄ → f` as
    /// `x₁ → x₀`, and `Σ_a f̄_a,r = 0` (linear momentum).
    #[test]
    fn discrete_gradient_property() {
        let eref = [ReferenceStrains::STRAIGHT; 2];
        for order in [1, 2] {
            for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
                let shapes = ShapeTable::new(order, 1.0, order);
                let el = ElementCtx {
                    shapes: &shapes,
                    reference: &eref,
                    section: &SEC,
                    law,
                };
                let x0 = sample(order);
                let mut x1 = x0.clone();
                for (i, v) in x1.iter_mut().enumerate() {
                    // large rotations: 2 rad (quadratic), 0.8 rad (log law needs ν > 0)
                    let rot = if law == ConstitutiveLaw::Log {
                        0.8
                    } else {
                        2.0
                    };
                    *v += if i % 3 == 2 { rot } else { 0.05 * i as f64 };
                }
                let mut f = [0.0; MAX_DOFS];
                el.discrete_gradient_into(&x0, &x1, &mut f).unwrap();
                let work: f64 = (0..x0.len()).map(|i| f[i] * (x1[i] - x0[i])).sum();
                let de = el.energy(&x1).unwrap() - el.energy(&x0).unwrap();
                assert!(
                    (work - de).abs() < 1e-12 * de.abs().max(1.0),
                    "{work} vs {de}"
                );
                let sum_r: [f64; 2] =
                    [0, 1].map(|c| (0..=order).map(|a| f[3 * a + c]).sum::<f64>());
                assert!(sum_r[0].abs() < 1e-12 && sum_r[1].abs() < 1e-12);
                // consistency: equal arguments give the gradient
                let mut g = [0.0; MAX_DOFS];
                el.discrete_gradient_into(&x0, &x0, &mut f).unwrap();
                el.residual_into(&x0, &mut g, None).unwrap();
                for i in 0..x0.len() {
                    assert!((f[i] - g[i]).abs() < 1e-12 * (1.0 + g[i].abs()));
                }
            }
        }
    }
}
