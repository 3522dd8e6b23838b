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

use super::element::{ElementCtx, ElementError, ElementMatrix, MAX_DOFS, MAX_NODES, check, sinc};
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

/// `d sinc(u)/du = (cos u − sinc u)/u`, with its Taylor series near 0.
#[inline]
fn sinc_derivative(u: f64) -> f64 {
    if u.abs() < 1e-3 {
        u * (-1.0 / 3.0 + u * u / 30.0)
    } else {
        (u.cos() - u.sin() / u) / u
    }
}

/// `∂N̄/∂ν₁` of [`super::element::axial_discrete_derivative`] (N).
fn axial_discrete_derivative_d1(
    law: super::section::ConstitutiveLaw,
    sec: &SectionProperties,
    nu0: f64,
    nu1: f64,
) -> f64 {
    use super::section::ConstitutiveLaw;
    match law {
        ConstitutiveLaw::Quadratic => 0.5 * sec.ea,
        ConstitutiveLaw::Log => {
            // N̄ = EA/4 (ν₀ + ν₁ − 2 L), L = ln(1 + x)/d, d = ν₁ − ν₀, x = d/ν₀:
            // dL/dν₁ = (x/(1 + x) − ln(1 + x))/d² = ν₀⁻² Σ_{k≥2} (−1)^{k+1} (k−1)/k x^{k−2}
            let d = nu1 - nu0;
            let x = d / nu0;
            let dl = if x.abs() < 1e-2 {
                let mut sum = 0.0;
                for k in (2..=9).rev() {
                    let kf = k as f64;
                    let sign = if k % 2 == 0 { -1.0 } else { 1.0 };
                    sum = sum * x + sign * (kf - 1.0) / kf;
                }
                sum / (nu0 * nu0)
            } else {
                (x / (1.0 + x) - x.ln_1p()) / (d * d)
            };
            0.25 * sec.ea * (1.0 - 2.0 * dl)
        }
    }
}

/// Number of local variables of a Gauss point in [`discrete_gradient_and_tangent_into`]:
/// `r₁'` (2), `θ₁`, `θ₁'` and the nodal increments `Δθ_a`.
const NV: usize = 4 + MAX_NODES;

/// `f̄(x₀, x₁)` of [`discrete_gradient_into`] into `f` and its exact Jacobian `∂f̄/∂x₁` (`x₀`
/// fixed) into `k` (`3(p+1)` rows and columns): the element part of the iteration matrix of
/// the energy-momentum stepper.
///
/// At a Gauss point `f̄` depends on `x₁` only through `u = (r₁', θ₁, θ₁', Δθ_0 … Δθ_p)`; the
/// derivatives of every quantity of [`discrete_gradient_into`] with respect to `u` are
/// propagated by the chain rule (`∂ν₁/∂θ₁ = γ₁`, `∂γ₁/∂θ₁ = −ν₁`, `∂ν̄/∂θ₁ = γ̄/2`,
/// `∂γ̄/∂θ₁ = −ν̄/2`, `∂C/∂θ₁ = −sin(Δθ_g/2)/2`, the weights `ĉ_a`, `k_a` through
/// `1/ψ[Δθ_a, Δθ_g] = cos(Δθ_a/2) C / sinc((Δθ_a − Δθ_g)/2)`), and mapped to the nodal unknowns
/// with `∂r₁'/∂r_b = N_b'`, `∂θ₁/∂θ_b = N_b`, `∂θ₁'/∂θ_b = N_b'`, `∂Δθ_a/∂θ_b = δ_ab`.
/// Costs about two evaluations of `f̄` (forward differences cost `3(p+1)` more); checked
/// against central differences in the tests.
pub fn discrete_gradient_and_tangent_into(
    el: &ElementCtx<'_>,
    x0: &[f64],
    x1: &[f64],
    f: &mut [f64],
    k: &mut ElementMatrix,
) -> Result<(), ElementError> {
    let shapes = el.shapes;
    let nn = shapes.nodes();
    let nd = 3 * nn;
    f[..nd].fill(0.0);
    for row in k.iter_mut().take(nd) {
        row[..nd].fill(0.0);
    }
    let sec: &SectionProperties = el.section;
    let (mut dth_node, mut cos_node, mut sin_node) =
        ([0.0; MAX_NODES], [0.0; MAX_NODES], [0.0; MAX_NODES]);
    for a in 0..nn {
        dth_node[a] = x1[3 * a + 2] - x0[3 * a + 2];
        check_increment(dth_node[a])?;
        (sin_node[a], cos_node[a]) = (0.5 * dth_node[a]).sin_cos();
    }
    let zero = [0.0; NV];
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
        let (sh, ch) = (0.5 * dth).sin_cos();
        let (s1, c1) = th1.sin_cos();
        let rbar = [0.5 * (dr0[0] + dr1[0]), 0.5 * (dr0[1] + dr1[1])];
        let nu_bar = cm * rbar[0] + sm * rbar[1];
        let ga_bar = -sm * rbar[0] + cm * rbar[1];
        let n_bar = super::element::axial_discrete_derivative(el.law, sec, e0.nu, e1.nu, eref.nu);
        let q_bar = sec.ga * (0.5 * (e0.gamma + e1.gamma) - eref.gamma);
        let m_bar = sec.ei * (0.5 * (e0.kappa + e1.kappa) - eref.kappa);
        // gradients with respect to u = (r₁'x, r₁'y, θ₁, θ₁', Δθ_0 … Δθ_p)
        let dn1 = axial_discrete_derivative_d1(el.law, sec, e0.nu, e1.nu);
        let mut d_n = zero;
        d_n[..3].copy_from_slice(&[dn1 * c1, dn1 * s1, dn1 * e1.gamma]);
        let mut d_q = zero;
        let hq = 0.5 * sec.ga;
        d_q[..3].copy_from_slice(&[-hq * s1, hq * c1, -hq * e1.nu]);
        let mut d_m = zero;
        d_m[3] = 0.5 * sec.ei;
        let (d_cm, d_sm, d_ch) = (-0.5 * sm, 0.5 * cm, -0.5 * sh); // ∂/∂θ₁ only
        let mut d_nu_bar = zero;
        d_nu_bar[..3].copy_from_slice(&[0.5 * cm, 0.5 * sm, 0.5 * ga_bar]);
        let mut d_ga_bar = zero;
        d_ga_bar[..3].copy_from_slice(&[-0.5 * sm, 0.5 * cm, -0.5 * nu_bar]);
        let fr = [
            ch * (n_bar * cm - q_bar * sm),
            ch * (n_bar * sm + q_bar * cm),
        ];
        let ft = ch * (n_bar * ga_bar - q_bar * nu_bar);
        let (mut d_fr, mut d_ft) = ([zero; 2], zero);
        for v in 0..NV {
            d_fr[0][v] = ch * (d_n[v] * cm - d_q[v] * sm);
            d_fr[1][v] = ch * (d_n[v] * sm + d_q[v] * cm);
            d_ft[v] = ch
                * (d_n[v] * ga_bar + n_bar * d_ga_bar[v] - d_q[v] * nu_bar - q_bar * d_nu_bar[v]);
        }
        d_fr[0][2] += d_ch * (n_bar * cm - q_bar * sm) + ch * (n_bar * d_cm - q_bar * d_sm);
        d_fr[1][2] += d_ch * (n_bar * sm + q_bar * cm) + ch * (n_bar * d_sm + q_bar * d_cm);
        d_ft[2] += d_ch * (n_bar * ga_bar - q_bar * nu_bar);
        // weights d_a = 1/ψ[Δθ_a, Δθ_g] = cos(Δθ_a/2) C / sinc(u_a), u_a = (Δθ_a − Δθ_g)/2
        let (mut dw, mut d_dw) = ([0.0; MAX_NODES], [zero; MAX_NODES]);
        let (mut sa, mut sb, mut d_sa, mut d_sb) = (0.0, 0.0, zero, zero);
        for a in 0..nn {
            let u = 0.5 * (dth_node[a] - dth);
            let sg = sinc(u);
            let sgp = sinc_derivative(u);
            dw[a] = cos_node[a] * ch / sg;
            // ∂/∂θ₁ (through C and u_a) and ∂/∂Δθ_a (through cos(Δθ_a/2) and u_a)
            d_dw[a][2] = cos_node[a] * d_ch / sg + 0.5 * dw[a] * sgp / sg;
            d_dw[a][4 + a] = -0.5 * sin_node[a] * ch / sg - 0.5 * dw[a] * sgp / sg;
            sa += n[a] * dw[a];
            sb += dn[a] * dw[a];
            for v in 0..NV {
                d_sa[v] += n[a] * d_dw[a][v];
                d_sb[v] += dn[a] * d_dw[a][v];
            }
        }
        // local gradients of the element rows: f_r,a,c = w fr_c N_a', f_Θ,a = w (ft ĉ_a + M̄ k_a)
        let mut rows = [[0.0; NV]; MAX_DOFS];
        for a in 0..nn {
            let c_hat = n[a] * dw[a] / sa;
            let ka = dn[a] * dw[a] - sb * c_hat;
            f[3 * a] += w * fr[0] * dn[a];
            f[3 * a + 1] += w * fr[1] * dn[a];
            f[3 * a + 2] += w * (ft * c_hat + m_bar * ka);
            for v in 0..NV {
                rows[3 * a][v] = w * d_fr[0][v] * dn[a];
                rows[3 * a + 1][v] = w * d_fr[1][v] * dn[a];
                let d_c_hat = (n[a] * d_dw[a][v] - c_hat * d_sa[v]) / sa;
                let d_ka = dn[a] * d_dw[a][v] - d_sb[v] * c_hat - sb * d_c_hat;
                rows[3 * a + 2][v] =
                    w * (d_ft[v] * c_hat + ft * d_c_hat + d_m[v] * ka + m_bar * d_ka);
            }
        }
        // chain to the nodal unknowns of x₁
        for (i, row) in rows.iter().enumerate().take(nd) {
            for b in 0..nn {
                k[i][3 * b] += row[0] * dn[b];
                k[i][3 * b + 1] += row[1] * dn[b];
                k[i][3 * b + 2] += row[2] * n[b] + row[3] * dn[b] + row[4 + b];
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beam::element::{BeamElement, ShapeTable};
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

    /// The analytic `∂f̄/∂x₁` (and `f̄` beside it) matches central differences of [`discrete_gradient_into`] for
    /// large increments (rotations up to 1.7 rad), both laws and orders, and at `x₁ = x₀`;
    /// `∂N̄/∂ν₁` of the log law is smooth through its series branch.
    #[test]
    fn tangent_matches_central_differences() {
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
                for scale in [1.0, 1e-3, 0.0] {
                    let mut x1 = x0.clone();
                    for (i, v) in x1.iter_mut().enumerate() {
                        let a = (i / 3) as f64;
                        *v += scale
                            * match (i % 3, law) {
                                (2, ConstitutiveLaw::Quadratic) => 0.9 + 0.4 * a,
                                (2, ConstitutiveLaw::Log) => 0.5 + 0.2 * a,
                                _ => 0.05 * i as f64,
                            };
                    }
                    let nd = x0.len();
                    let (mut f, mut f_ref) = ([0.0; MAX_DOFS], [0.0; MAX_DOFS]);
                    let mut k = [[0.0; MAX_DOFS]; MAX_DOFS];
                    discrete_gradient_and_tangent_into(&el, &x0, &x1, &mut f, &mut k).unwrap();
                    discrete_gradient_into(&el, &x0, &x1, &mut f_ref).unwrap();
                    for i in 0..nd {
                        assert!((f[i] - f_ref[i]).abs() <= 1e-14 * (1.0 + f_ref[i].abs()));
                    }
                    let h = 1e-6;
                    for j in 0..nd {
                        let (mut xp, mut xm) = (x1.clone(), x1.clone());
                        xp[j] += h;
                        xm[j] -= h;
                        let (mut fp, mut fm) = ([0.0; MAX_DOFS], [0.0; MAX_DOFS]);
                        discrete_gradient_into(&el, &x0, &xp, &mut fp).unwrap();
                        discrete_gradient_into(&el, &x0, &xm, &mut fm).unwrap();
                        for i in 0..nd {
                            let fd = (fp[i] - fm[i]) / (2.0 * h);
                            assert!(
                                (fd - k[i][j]).abs() < 1e-7 * (1.0 + k[i][j].abs()),
                                "p={order} {law:?} scale {scale}: K[{i}][{j}] {fd} vs {}",
                                k[i][j]
                            );
                        }
                    }
                }
            }
        }
        let sec = SEC;
        for nu0 in [0.7, 1.0, 1.3] {
            for d in [0.0, 1e-9, -3e-3, 9.9e-3 * nu0, 1.01e-2 * nu0, 0.2] {
                let nu1 = nu0 + d;
                let a = axial_discrete_derivative_d1(ConstitutiveLaw::Log, &sec, nu0, nu1);
                let h = 1e-5;
                let fd = (crate::beam::element::axial_discrete_derivative(
                    ConstitutiveLaw::Log,
                    &sec,
                    nu0,
                    nu1 + h,
                    1.0,
                ) - crate::beam::element::axial_discrete_derivative(
                    ConstitutiveLaw::Log,
                    &sec,
                    nu0,
                    nu1 - h,
                    1.0,
                )) / (2.0 * h);
                assert!(
                    (a - fd).abs() < 1e-8 * sec.ea,
                    "ν₀ {nu0} d {d}: {a} vs {fd}"
                );
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
