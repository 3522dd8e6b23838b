//! Energy- *and* angular-momentum-conserving discrete gradient of the planar beam, with the
//! Cayley rotation increment (`docs/theory.md` §5, "Exact angular momentum").
//!
//! The energy-momentum stepper advances the section angles with the Cayley increment
//! `Θ_a = 2 tan(Δθ_a/2) = Δt ω̄_a` instead of `Δθ_a = Δt ω̄_a` (positions keep
//! `Δr_a = Δt v̄_a`). Its internal force `f̄ = (f̄_r, f̄_Θ)` is work-conjugate to `(Δr_a, Θ_a)` and
//! must satisfy
//!
//! ```text
//! (E)  Σ_a f̄_r,a·Δr_a + f̄_Θ,a Θ_a = Π(x₁) − Π(x₀)                 (energy)
//! (L)  Σ_a r̄_a × f̄_r,a + f̄_Θ,a = 0,   r̄_a = ½(r₀,a + r₁,a)        (angular momentum)
//! ```
//!
//! At a reduced Gauss point (`Δθ_g = θ₁ − θ₀` there, `θ_m`, `r̄'`, `ν̄ = d3(θ_m)·r̄'`,
//! `γ̄ = d1(θ_m)·r̄'`, `C = cos(Δθ_g/2)`) the exact strain increments are
//!
//! ```text
//! Δν = C d3(θ_m)·Δr' + γ̄ C Θ_g*,   Δγ1 = C d1(θ_m)·Δr' − ν̄ C Θ_g*,   Θ_g* = 2 tan(Δθ_g/2),
//! Δκ = Σ_a N_a' Δθ_a .
//! ```
//!
//! `Θ_g*` and `Δκ` are written exactly in the nodal `Θ_a` with weights built from the divided
//! differences `ψ[x, y] = (ψ(x) − ψ(y))/(x − y) = sinc((x − y)/2)/(cos(x/2) cos(y/2))` of
//! `ψ(x) = 2 tan(x/2)`:
//!
//! ```text
//! α_a = N_a / ψ[Δθ_a, Δθ_g],  ĉ_a = α_a / Σ_b α_b:    Σ ĉ_a = 1,  Σ ĉ_a Θ_a = Θ_g*
//! β_a = N_a' / ψ[Δθ_a, Δθ_g], k_a = β_a − (Σ_b β_b) ĉ_a:  Σ k_a = 0,  Σ k_a Θ_a = Δκ
//! ```
//!
//! (from `Σ_a N_a (Δθ_a − Δθ_g) = 0` and `Δθ_a − Δθ_g = (Θ_a − Θ_g*)/ψ[Δθ_a, Δθ_g]`). With the
//! algorithmic stresses `N̄, Q̄, M̄` of [`super::element`],
//!
//! ```text
//! f̄_r,a = Σ_g w C N_a' (N̄ d3(θ_m) + Q̄ d1(θ_m))
//! f̄_Θ,a = Σ_g w [C (N̄ γ̄ − Q̄ ν̄) ĉ_a + M̄ k_a]
//! ```
//!
//! satisfies (E) because its rows reproduce the exact strain increments, and (L) because each
//! row annihilates the infinitesimal rotation about the origin at the mid positions,
//! `(δr_a, δΘ_a) = (J r̄_a, 1)`: `d3(θ_m)·J r̄' = −γ̄`, `d1(θ_m)·J r̄' = ν̄`, `Σ ĉ_a = 1`,
//! `Σ k_a = 0`. `Σ_a N_a' = 0` gives linear momentum as before. All weights are bounded and
//! tend to `N_a`, `N_a'` as `x₁ → x₀` (then `f̄` is the internal force).

use super::element::{ElementCtx, ElementError, MAX_NODES, check, sinc};
use super::section::{SectionProperties, strains};

/// Largest `|Δθ|` of one step accepted by the Cayley update (rad): `2 tan(Δθ/2)` is 100 there.
pub const MAX_ROTATION_INCREMENT: f64 = 3.1215;

/// The Cayley rotation increment `Θ = 2 tan(Δθ/2)`.
#[inline]
pub fn cayley(dtheta: f64) -> f64 {
    2.0 * (0.5 * dtheta).tan()
}

/// `dΘ/dΔθ = 1/cos²(Δθ/2) = 1 + Θ²/4`.
#[inline]
pub fn cayley_derivative(dtheta: f64) -> f64 {
    let c = (0.5 * dtheta).cos();
    1.0 / (c * c)
}

/// Divided difference `(ψ(x) − ψ(y))/(x − y)` of `ψ(x) = 2 tan(x/2)`, stable for `x → y`
/// (`tan a − tan b = sin(a − b)/(cos a cos b)`).
#[cfg(test)]
fn psi_dd(x: f64, y: f64) -> f64 {
    sinc(0.5 * (x - y)) / ((0.5 * x).cos() * (0.5 * y).cos())
}

fn check_increment(dtheta: f64) -> Result<(), ElementError> {
    if dtheta.abs() < MAX_ROTATION_INCREMENT {
        Ok(())
    } else {
        Err(ElementError::RotationIncrement { dtheta })
    }
}

/// `f̄(x₀, x₁)` conjugate to `(Δr_a, Θ_a)` into `f` (`3(p+1)` entries: `f̄_r,a` at `3a, 3a+1`,
/// `f̄_Θ,a` at `3a+2`).
pub fn discrete_gradient_into(
    el: &ElementCtx<'_>,
    x0: &[f64],
    x1: &[f64],
    f: &mut [f64],
) -> Result<(), ElementError> {
    let shapes = el.shapes;
    let nn = shapes.nodes();
    f[..3 * nn].fill(0.0);
    let sec: &SectionProperties = el.section;
    // nodal increments and cos(Δθ_a/2)
    let (mut dth_node, mut cos_node) = ([0.0; MAX_NODES], [0.0; MAX_NODES]);
    for a in 0..nn {
        dth_node[a] = x1[3 * a + 2] - x0[3 * a + 2];
        check_increment(dth_node[a])?;
        cos_node[a] = (0.5 * dth_node[a]).cos();
    }
    for g in 0..shapes.w.len() {
        let (n, dn, w) = (&shapes.n[g], &shapes.dn[g], shapes.w[g]);
        let (dr0, th0, dth0) = shapes.interpolate(g, x0);
        let (dr1, th1, dth1) = shapes.interpolate(g, x1);
        let (e0, e1) = (strains(dr0, th0, dth0), strains(dr1, th1, dth1));
        check(el.law, &e0)?;
        check(el.law, &e1)?;
        let eref = el.reference[g];
        let dth = th1 - th0;
        check_increment(dth)?;
        let (sm, cm) = (0.5 * (th0 + th1)).sin_cos();
        let ch = (0.5 * dth).cos();
        let rbar = [0.5 * (dr0[0] + dr1[0]), 0.5 * (dr0[1] + dr1[1])];
        let nu_bar = cm * rbar[0] + sm * rbar[1];
        let ga_bar = -sm * rbar[0] + cm * rbar[1];
        let n_bar = super::element::axial_discrete_derivative(el.law, sec, e0.nu, e1.nu, eref.nu);
        let q_bar = sec.ga * (0.5 * (e0.gamma + e1.gamma) - eref.gamma);
        let m_bar = sec.ei * (0.5 * (e0.kappa + e1.kappa) - eref.kappa);
        // weights ĉ_a (Σ = 1) and k_a (Σ = 0)
        let (mut alpha, mut beta) = ([0.0; MAX_NODES], [0.0; MAX_NODES]);
        let (mut sa, mut sb) = (0.0, 0.0);
        for a in 0..nn {
            // 1/ψ[Δθ_a, Δθ_g]
            let d = cos_node[a] * ch / sinc(0.5 * (dth_node[a] - dth));
            alpha[a] = n[a] * d;
            beta[a] = dn[a] * d;
            sa += alpha[a];
            sb += beta[a];
        }
        let fr = [
            ch * (n_bar * cm - q_bar * sm),
            ch * (n_bar * sm + q_bar * cm),
        ];
        let ft = ch * (n_bar * ga_bar - q_bar * nu_bar);
        for a in 0..nn {
            let c_hat = alpha[a] / sa;
            let k = beta[a] - sb * c_hat;
            f[3 * a] += w * fr[0] * dn[a];
            f[3 * a + 1] += w * fr[1] * dn[a];
            f[3 * a + 2] += w * (ft * c_hat + m_bar * k);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beam::element::{BeamElement, MAX_DOFS, ShapeTable};
    use crate::beam::section::{ConstitutiveLaw, ReferenceStrains};

    const SEC: SectionProperties = SectionProperties {
        rho_a: 2.0,
        rho_i: 0.5,
        ea: 30.0,
        ga: 12.0,
        ei: 3.0,
    };

    fn sample(order: usize) -> Vec<f64> {
        (0..=order)
            .flat_map(|a| {
                let t = a as f64 / order as f64;
                [
                    0.4 + 0.9 * t + 0.1 * t * t,
                    -0.7 + 0.3 * t - 0.2 * t * t,
                    0.2 + 0.7 * t - 0.3 * t * t,
                ]
            })
            .collect()
    }

    /// (E): `f̄_r·Δr + f̄_Θ·Θ = ΔΠ` and (L): `Σ r̄ × f̄_r + f̄_Θ = 0` to round-off for large
    /// increments with different nodal rotations, both laws and orders; `f̄ → f` as `x₁ → x₀`.
    #[test]
    fn energy_and_angular_momentum_identities() {
        let eref = [ReferenceStrains {
            nu: 1.0,
            gamma: 0.0,
            kappa: 0.3,
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
                let x0 = sample(order);
                let mut x1 = x0.clone();
                for (i, v) in x1.iter_mut().enumerate() {
                    // node rotations 0.9, 1.3, 1.7 rad (log: 0.5, 0.7, 0.9) plus stretching
                    let a = (i / 3) as f64;
                    *v += match (i % 3, law) {
                        (2, ConstitutiveLaw::Quadratic) => 0.9 + 0.4 * a,
                        (2, ConstitutiveLaw::Log) => 0.5 + 0.2 * a,
                        _ => 0.05 * i as f64,
                    };
                }
                let nd = x0.len();
                let mut f = [0.0; MAX_DOFS];
                discrete_gradient_into(&el, &x0, &x1, &mut f).unwrap();
                let mut work = 0.0;
                let mut torque = 0.0;
                for a in 0..=order {
                    let (i, j, k) = (3 * a, 3 * a + 1, 3 * a + 2);
                    work += f[i] * (x1[i] - x0[i]) + f[j] * (x1[j] - x0[j]);
                    work += f[k] * cayley(x1[k] - x0[k]);
                    let rb = [0.5 * (x0[i] + x1[i]), 0.5 * (x0[j] + x1[j])];
                    torque += rb[0] * f[j] - rb[1] * f[i] + f[k];
                }
                let de = el.energy(&x1).unwrap() - el.energy(&x0).unwrap();
                assert!(
                    (work - de).abs() < 1e-13 * de.abs().max(1.0),
                    "p={order} {law:?}: {work} vs {de}"
                );
                assert!(torque.abs() < 1e-13, "p={order} {law:?}: torque {torque}");
                let sum_r: [f64; 2] =
                    [0, 1].map(|c| (0..=order).map(|a| f[3 * a + c]).sum::<f64>());
                assert!(sum_r[0].abs() < 1e-13 && sum_r[1].abs() < 1e-13);
                let mut g = [0.0; MAX_DOFS];
                discrete_gradient_into(&el, &x0, &x0, &mut f).unwrap();
                el.residual_into(&x0, &mut g, None).unwrap();
                for i in 0..nd {
                    assert!((f[i] - g[i]).abs() < 1e-12 * (1.0 + g[i].abs()));
                }
            }
        }
    }

    #[test]
    fn divided_difference_is_stable() {
        // far apart: the plain quotient; close: the derivative at the mean (error O((x − y)²))
        for (x, y) in [(-1.0, 2.0), (0.5, -0.7)] {
            let q = (cayley(x) - cayley(y)) / (x - y);
            assert!((psi_dd(x, y) - q).abs() < 1e-14 * q, "{x} {y}");
        }
        for (x, y) in [
            (0.3, 0.3),
            (0.3, 0.3 + 1e-12),
            (0.0, 1e-9),
            (2.0, 2.0 - 1e-7),
        ] {
            let d = cayley_derivative(0.5 * (x + y));
            assert!((psi_dd(x, y) - d).abs() < 1e-13 * d, "{x} {y}");
        }
        assert!(check_increment(3.2).is_err());
    }
}
