//! The bilinear space-time element of the planar geometrically exact beam, `[I]` Eq. 31-33.
//!
//! # Continuous form
//! Unknown fields per point `(s, t)`: the configuration `x = (r1, r2, θ)` and the velocity
//! `v = ∂t x`. With test functions `w1, w2` the element contributes to `[I]` Eq. 33:
//!
//! ```text
//! R1 = ∫∫ w1 · (∂t x − v)                               ds dt
//! R2 = ∫∫ w2 · A ∂t v  +  δΨ(x; w2)                     ds dt
//! δΨ(x; w) = n · ∂s w_r  +  M ∂s w_θ  −  (r' × n) w_θ
//! ```
//!
//! with `A = diag(ρA, ρA, ρI)`, the global force `n = N d3 + Q d1`, the moment `M`, and
//! `r' × n = ν Q − γ N` (scalar in the plane). `δΨ` is the exact variation of the stored
//! energy `∫ Ψ(ν, γ, κ) ds` ([`crate::beam::section`]), i.e. `∫ ∂s w · B ∂s x − w · C` of
//! `[I]` Eq. 33 for this beam, so the same kernel serves the quadratic and the log law.
//! Boundary terms (actuation at `s = 0`, tip law at `s = L`) and the servo constraint belong to
//! the global assembly ([`super::solver`]), not to the element.
//!
//! # Discrete form
//! Bubnov–Galerkin with bilinear tensor-product shape functions `N_a(s, t) = S_a(s) T_a(t)` for
//! `x`, `v`, `w1` and `w2`. Node order `a = is + 2 it` (`is, it ∈ {0, 1}`), local dof
//! `6a + c` with `c < 3` the components of `x` and `c ≥ 3` those of `v`. The residual row
//! `6a + c` (`c < 3`) is `R1` tested with `N_a e_c`, row `6a + 3 + c` is `R2` tested with
//! `N_a e_c`.
//!
//! Quadrature: 2 × 2 Gauss points for `R1` and the inertia (exact for bilinear fields), 1 × 2
//! for `δΨ` (one point in `s`: the standard uniformly reduced integration of linear
//! Simo–Reissner elements, free of shear locking; exact for the linear wave equation).
//!
//! # Tangent
//! `∂R/∂q` is exact: with the strain variables `e = (r1', r2', θ, θ')` and the generalised
//! stresses `g = (n1, n2, −r'×n, M)`, `δΨ = Σ g · δe` and its linearisation is
//! `δeᵀ (∂g/∂e) Δe`, where `∂g/∂e` is the symmetric Hessian of `Ψ` in these variables:
//!
//! ```text
//! ∂n/∂r'   = N_ν d3⊗d3 + GA d1⊗d1
//! ∂n/∂θ    = (N_ν γ − Q) d3 + (N − GA ν) d1          (= ∂(−r'×n)/∂r')
//! ∂(−r'×n)/∂θ = N_ν γ² − N ν + GA ν² − Q γ
//! ∂M/∂θ'   = EI
//! ```
//!
//! The kernel writes into caller-owned fixed-size arrays and allocates nothing.
//!
//! # Other continua (issue 17)
//! The element is generic over a [`PointLaw`]: what a body gives at one stiffness point,
//! the generalised stresses `g` and their symmetric Hessian `∂g/∂e` in the same four strain
//! variables `e = (x1', x2', x3, x3')` of its three unknowns per point. The planar beam
//! ([`BeamPointLaw`]) reads them as `(r1', r2', θ, θ')`; the geometrically exact string
//! ([`crate::string::StringPointLaw`]) as `(r1', r2', r3, r3')` with `g = (n1, n2, 0, n3)`
//! (its energy does not depend on the value `r3`). The Hessian has the ten entries of
//! [`HESSIAN_LEN`]; the beam's last three are zero, the string's `∂n3/∂r1'`, `∂n3/∂r2'` are
//! not.

use crate::basis::GaussLegendre;
use crate::beam::section::{
    ConstitutiveLaw, ReferenceStrains, SectionProperties, Strains, strains,
};

/// Local unknowns of one element: 4 nodes × (3 positions/rotation + 3 velocities).
pub const N_DOF: usize = 24;

/// Element failure that a Newton iteration must treat as a rejected step.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum ElementError {
    /// The stretch `ν` left the domain of the law (log law: `ν ≤ 0`) or became non-finite.
    #[error("an element is compressed to zero length (stretch ν = {nu:.3e})")]
    Inverted {
        /// The offending stretch.
        nu: f64,
    },
    /// A rope without tension (`ν ≤ 1`): its transverse waves stop, so the method of
    /// characteristics cannot carry the payload's data up through it.
    #[error(
        "the rope is slack (stretch ν = {nu:.6} ≤ 1): without tension it has no transverse \
         waves and the payload's motion cannot be traced up the rope. Fix: a slower manoeuvre"
    )]
    Slack {
        /// The offending stretch.
        nu: f64,
    },
}

/// Entries of the symmetric Hessian `∂g/∂e` at a stiffness point, in the order
/// `(h00, h01, h11, h02, h12, h22, h33, h03, h13, h23)`.
pub const HESSIAN_LEN: usize = 10;

/// What a continuum gives the bilinear space-time element at one stiffness point: its
/// inertia per unit length and its generalised stresses with their Hessian (module docs).
pub trait PointLaw: std::fmt::Debug + Send + Sync {
    /// Inertia per unit length `A` of the three unknowns (`[I]` Eq. 1).
    fn inertia(&self) -> [f64; 3];
    /// Generalised stresses `g` and, if `tangent`, the Hessian entries ([`HESSIAN_LEN`]) at
    /// the strain variables `e`. Fails where the law is undefined (zero length).
    fn stress_point(
        &self,
        e: [f64; 4],
        tangent: bool,
    ) -> Result<([f64; 4], [f64; HESSIAN_LEN]), ElementError>;
    /// Stored energy per unit length at `e` (J/m).
    fn energy_density(&self, e: [f64; 4]) -> f64;
}

/// A space-time element: local residual and tangent of its weak form.
pub trait SpaceTimeElement {
    /// Writes the residual `R^e(q^e)` into `r` and, if `k` is given, the exact tangent
    /// `∂R^e/∂q^e` (row-major, `k[row][col]`). Both are overwritten, not accumulated.
    fn residual_into(
        &self,
        q: &[f64; N_DOF],
        r: &mut [f64; N_DOF],
        k: Option<&mut [[f64; N_DOF]; N_DOF]>,
    ) -> Result<(), ElementError>;
}

/// Shape data at one quadrature point: values, `∂s`, `∂t` of the 4 shape functions and the
/// weight times the element area.
#[derive(Clone, Copy, Debug)]
struct Point {
    n: [f64; 4],
    n_s: [f64; 4],
    n_t: [f64; 4],
    w: f64,
}

fn points(hs: f64, ht: f64, ns: usize, nt: usize) -> Vec<Point> {
    let (gs, gt) = (GaussLegendre::new(ns), GaussLegendre::new(nt));
    let mut out = Vec::with_capacity(crate::resources::reserve(ns, nt));
    for (&xi, &wx) in gs.points.iter().zip(&gs.weights) {
        for (&tau, &wt) in gt.points.iter().zip(&gt.weights) {
            let s = [1.0 - xi, xi];
            let ds = [-1.0 / hs, 1.0 / hs];
            let t = [1.0 - tau, tau];
            let dt = [-1.0 / ht, 1.0 / ht];
            let mut p = Point {
                n: [0.0; 4],
                n_s: [0.0; 4],
                n_t: [0.0; 4],
                w: wx * wt * hs * ht,
            };
            for a in 0..4 {
                let (is, it) = (a % 2, a / 2);
                p.n[a] = s[is] * t[it];
                p.n_s[a] = ds[is] * t[it];
                p.n_t[a] = s[is] * dt[it];
            }
            out.push(p);
        }
    }
    out
}

/// The bilinear space-time element of a continuum with the point law `L` on a rectangle
/// `hs × ht`.
#[derive(Clone, Debug)]
pub struct BilinearElement<L> {
    law: L,
    inertia_points: Vec<Point>,
    stiffness_points: Vec<Point>,
}

/// The bilinear space-time element of the planar beam.
pub type BeamSpaceTimeElement = BilinearElement<BeamPointLaw>;

/// The planar beam's point law: section, stored energy, straight stress-free reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BeamPointLaw {
    section: SectionProperties,
    law: ConstitutiveLaw,
    reference: ReferenceStrains,
}

impl BeamSpaceTimeElement {
    /// Element of size `hs` (m) by `ht` (s) for a straight stress-free reference.
    pub fn new(section: SectionProperties, law: ConstitutiveLaw, hs: f64, ht: f64) -> Self {
        Self::with_law(
            BeamPointLaw {
                section,
                law,
                reference: ReferenceStrains::STRAIGHT,
            },
            hs,
            ht,
        )
    }
}

impl<L: PointLaw> BilinearElement<L> {
    /// Element of size `hs` (m) by `ht` (s) for the point law `law`.
    pub fn with_law(law: L, hs: f64, ht: f64) -> Self {
        Self {
            law,
            inertia_points: points(hs, ht, 2, 2),
            stiffness_points: points(hs, ht, 1, 2),
        }
    }

    /// The point law.
    pub fn law(&self) -> &L {
        &self.law
    }

    /// Stresses and Hessian at one stiffness point ([`PointLaw::stress_point`]).
    #[inline]
    pub fn stress_point(
        &self,
        e: [f64; 4],
        tangent: bool,
    ) -> Result<([f64; 4], [f64; HESSIAN_LEN]), ElementError> {
        self.law.stress_point(e, tangent)
    }

    /// Stored energy `∫ Ψ ds` of one space element with end values `x_a`, `x_b` (J); the
    /// same one-point rule as the stiffness term, so it is the energy the discrete
    /// equations conserve (or not).
    pub fn strain_energy(&self, hs: f64, xa: [f64; 3], xb: [f64; 3]) -> f64 {
        let e = [
            (xb[0] - xa[0]) / hs,
            (xb[1] - xa[1]) / hs,
            0.5 * (xa[2] + xb[2]),
            (xb[2] - xa[2]) / hs,
        ];
        hs * self.law.energy_density(e)
    }
}

impl PointLaw for BeamPointLaw {
    fn inertia(&self) -> [f64; 3] {
        [self.section.rho_a, self.section.rho_a, self.section.rho_i]
    }

    fn energy_density(&self, e: [f64; 4]) -> f64 {
        self.law.energy(
            &self.section,
            strains([e[0], e[1]], e[2], e[3]),
            self.reference,
        )
    }

    /// The generalised stresses `g = (n1, n2, −r'×n, M)` at one stiffness point from the strain
    /// variables `e = (r1', r2', θ, θ')` and, if `tangent`, the entries of their symmetric
    /// Hessian `∂g/∂e` (module docs) in the order of [`HESSIAN_LEN`] (`h03 = h13 = h23 = 0`
    /// for the beam): one `sin_cos` and one evaluation of the law. Fails where the law is
    /// not defined (log law: `ν ≤ 0`) or the stretch is not finite.
    #[inline]
    fn stress_point(
        &self,
        e: [f64; 4],
        tangent: bool,
    ) -> Result<([f64; 4], [f64; HESSIAN_LEN]), ElementError> {
        let th = e[2];
        let (sn, cs) = th.sin_cos();
        // strains (crate::beam::section::strains, with the sine and cosine computed once)
        let st = Strains {
            nu: cs * e[0] + sn * e[1],
            gamma: -sn * e[0] + cs * e[1],
            kappa: e[3],
        };
        if !(st.nu.is_finite() && (self.law != ConstitutiveLaw::Log || st.nu > 0.0)) {
            return Err(ElementError::Inverted { nu: st.nu });
        }
        let res = self.law.resultants(&self.section, st, self.reference);
        let (nn, qq, nu, ga) = (res.axial, res.shear, st.nu, st.gamma);
        // n = N d3 + Q d1 with d3 = (cos θ, sin θ), d1 = (−sin θ, cos θ);  −r'×n = N γ − Q ν
        let g = [
            nn * cs - qq * sn,
            nn * sn + qq * cs,
            nn * ga - qq * nu,
            res.moment,
        ];
        let mut h = [0.0; HESSIAN_LEN];
        if tangent {
            let (dn, dq) = (res.d_axial, res.d_shear);
            // ∂n/∂r' = N_ν d3⊗d3 + GA d1⊗d1
            h[0] = dn * cs * cs + dq * sn * sn;
            h[1] = dn * cs * sn - dq * sn * cs;
            h[2] = dn * sn * sn + dq * cs * cs;
            // ∂n/∂θ = (N_ν γ − Q) d3 + (N − GA ν) d1
            let (a3, a1) = (dn * ga - qq, nn - dq * nu);
            h[3] = a3 * cs - a1 * sn;
            h[4] = a3 * sn + a1 * cs;
            h[5] = dn * ga * ga - nn * nu + dq * nu * nu - qq * ga;
            h[6] = res.d_moment;
        }
        Ok((g, h))
    }
}

impl<L: PointLaw> SpaceTimeElement for BilinearElement<L> {
    fn residual_into(
        &self,
        q: &[f64; N_DOF],
        r: &mut [f64; N_DOF],
        mut k: Option<&mut [[f64; N_DOF]; N_DOF]>,
    ) -> Result<(), ElementError> {
        r.fill(0.0);
        if let Some(k) = k.as_deref_mut() {
            for row in k.iter_mut() {
                row.fill(0.0);
            }
        }
        let a_in = self.law.inertia();
        // R1 = ∫ N_a (∂t x − v), R2 ⊃ ∫ N_a A ∂t v  (2 × 2 Gauss, exact).
        for p in &self.inertia_points {
            let mut x_t = [0.0; 3];
            let mut v = [0.0; 3];
            let mut v_t = [0.0; 3];
            for b in 0..4 {
                for c in 0..3 {
                    x_t[c] += p.n_t[b] * q[6 * b + c];
                    v[c] += p.n[b] * q[6 * b + 3 + c];
                    v_t[c] += p.n_t[b] * q[6 * b + 3 + c];
                }
            }
            for a in 0..4 {
                let wa = p.w * p.n[a];
                for c in 0..3 {
                    r[6 * a + c] += wa * (x_t[c] - v[c]);
                    r[6 * a + 3 + c] += wa * a_in[c] * v_t[c];
                }
            }
            if let Some(k) = k.as_deref_mut() {
                for a in 0..4 {
                    let wa = p.w * p.n[a];
                    for b in 0..4 {
                        let (wt, wn) = (wa * p.n_t[b], wa * p.n[b]);
                        for c in 0..3 {
                            k[6 * a + c][6 * b + c] += wt;
                            k[6 * a + c][6 * b + 3 + c] -= wn;
                            k[6 * a + 3 + c][6 * b + 3 + c] += wt * a_in[c];
                        }
                    }
                }
            }
        }
        // δΨ = g · δe with e = (r1', r2', θ, θ'), g = (n1, n2, −r'×n, M)  (1 × 2 Gauss).
        for p in &self.stiffness_points {
            let mut e = [0.0; 4];
            for b in 0..4 {
                e[0] += p.n_s[b] * q[6 * b];
                e[1] += p.n_s[b] * q[6 * b + 1];
                e[2] += p.n[b] * q[6 * b + 2];
                e[3] += p.n_s[b] * q[6 * b + 2];
            }
            let (g, hp) = self.law.stress_point(e, k.is_some())?;
            // δe of the dof (a, c): c = 0, 1 → N_a,s in slot c; c = 2 → (N_a, N_a,s) in slots 2, 3.
            for a in 0..4 {
                let w = p.w;
                r[6 * a + 3] += w * p.n_s[a] * g[0];
                r[6 * a + 4] += w * p.n_s[a] * g[1];
                r[6 * a + 5] += w * (p.n[a] * g[2] + p.n_s[a] * g[3]);
            }
            if let Some(k) = k.as_deref_mut() {
                let mut h = [[0.0; 4]; 4];
                h[0][0] = hp[0];
                h[0][1] = hp[1];
                h[1][0] = hp[1];
                h[1][1] = hp[2];
                h[0][2] = hp[3];
                h[2][0] = hp[3];
                h[1][2] = hp[4];
                h[2][1] = hp[4];
                h[2][2] = hp[5];
                h[3][3] = hp[6];
                h[0][3] = hp[7];
                h[3][0] = hp[7];
                h[1][3] = hp[8];
                h[3][1] = hp[8];
                h[2][3] = hp[9];
                h[3][2] = hp[9];
                // δe vectors of the four nodes: rows of (N_s, N_s, N, N_s) per component.
                let de = |a: usize, c: usize| -> [f64; 4] {
                    match c {
                        0 => [p.n_s[a], 0.0, 0.0, 0.0],
                        1 => [0.0, p.n_s[a], 0.0, 0.0],
                        _ => [0.0, 0.0, p.n[a], p.n_s[a]],
                    }
                };
                for a in 0..4 {
                    for c in 0..3 {
                        let ea = de(a, c);
                        let mut hea = [0.0; 4];
                        for i in 0..4 {
                            for j in 0..4 {
                                hea[j] += ea[i] * h[i][j];
                            }
                        }
                        for b in 0..4 {
                            for d in 0..3 {
                                let eb = de(b, d);
                                let v: f64 = (0..4).map(|j| hea[j] * eb[j]).sum();
                                k[6 * a + 3 + c][6 * b + d] += p.w * v;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
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

    fn state() -> [f64; N_DOF] {
        let mut q = [0.0; N_DOF];
        for (i, v) in q.iter_mut().enumerate() {
            *v = 0.1 * ((i as f64) * 1.7).sin();
        }
        // positions of a deformed, rotated element: s = 0 at 0, s = hs at about (0.25, 0.1)
        for a in 0..4 {
            let (is, it) = (a % 2, a / 2);
            q[6 * a] += 0.25 * is as f64 + 0.02 * it as f64;
            q[6 * a + 1] += 0.1 * is as f64;
            q[6 * a + 2] += 0.4 + 0.1 * it as f64;
        }
        q
    }

    /// The tangent is the derivative of the residual (central differences, both laws).
    #[test]
    fn tangent_matches_finite_differences() {
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            let el = BeamSpaceTimeElement::new(SEC, law, 0.25, 0.1);
            let q = state();
            let mut r = [0.0; N_DOF];
            let mut k = [[0.0; N_DOF]; N_DOF];
            el.residual_into(&q, &mut r, Some(&mut k)).unwrap();
            let h = 1e-6;
            let mut worst: f64 = 0.0;
            let scale = k.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
            for j in 0..N_DOF {
                let (mut qp, mut qm) = (q, q);
                qp[j] += h;
                qm[j] -= h;
                let (mut rp, mut rm) = ([0.0; N_DOF], [0.0; N_DOF]);
                el.residual_into(&qp, &mut rp, None).unwrap();
                el.residual_into(&qm, &mut rm, None).unwrap();
                for i in 0..N_DOF {
                    let fd = (rp[i] - rm[i]) / (2.0 * h);
                    worst = worst.max((fd - k[i][j]).abs());
                }
            }
            assert!(
                worst < 1e-7 * scale,
                "{law:?}: {worst:e} vs scale {scale:e}"
            );
        }
    }

    /// A rigid motion at constant velocity leaves no residual (frame indifference).
    #[test]
    fn rigid_rotation_at_rest_is_stress_free() {
        let el = BeamSpaceTimeElement::new(SEC, ConstitutiveLaw::Log, 0.5, 0.2);
        let th: f64 = 1.1;
        let mut q = [0.0; N_DOF];
        for a in 0..4 {
            let s = 0.5 * (a % 2) as f64;
            q[6 * a] = 3.0 + s * th.cos();
            q[6 * a + 1] = -1.0 + s * th.sin();
            q[6 * a + 2] = th;
        }
        let mut r = [0.0; N_DOF];
        el.residual_into(&q, &mut r, None).unwrap();
        assert!(r.iter().all(|v| v.abs() < 1e-14), "{r:?}");
    }
}
