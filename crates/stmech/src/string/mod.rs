//! The geometrically exact string in 3D (issue 17): centreline `r(s, t) ∈ R³` only (no
//! bending, no shear), stretch `ν = |r'|`, tension `N(ν)`, mass per unit length `ρA`, gravity
//! `g`, and a point-mass payload `m` at `s = L`; the suspension point is `s = 0`.
//!
//! # Equations (docs/theory.md, "Geometrically exact string and crane inverse dynamics")
//! ```text
//! ρA ∂t² r = ∂s n + ρA g,         n = N(ν) r'/ν,  ν = |r'|              0 < s < L
//! m ∂t² r(L, t) = −n(L, t) + m g                                          payload
//! r(0, t) = x(t) or n(0, t) = −F(t)  (forward)   or   r(L, t) = y(t)  (servo, inverse)
//! ```
//! The inverse problem ([`crate::inverse::crane`]) solves them on the whole space-time domain
//! with the planar beam's bilinear space-time element and sideways elimination
//! ([`crate::inverse::body::InverseBody`]). The forward problem, with the suspension motion or
//! the force at `s = 0` given, has two discretisations that check each other: the space-time
//! slab march of [`space_time`] (the inverse's element, test functions constant per slab) and
//! the semi-discrete model of [`dynamics`] (linear elements, energy-conserving midpoint
//! discrete gradient). All use the point law of [`point_law`].
//!
//! # Statics
//! Hanging at rest under gravity, the tension is the weight below,
//! `N(s) = |g| (m + ρA (L − s))`, and the elongation `Δ = |g| (m L + ρA L²/2) / EA`. With linear
//! elements, the one-point stiffness rule and consistent loads, the discrete equilibrium
//! carries this tension *exactly* at the element midpoints ([`StringModel::hanging_nodes`]);
//! [`statics::solve_static`] finds it by Newton from the unstretched rope.

pub mod dynamics;
pub mod heavy_chain;
mod newton;
pub mod point_law;
pub mod space_time;
pub mod statics;

pub use point_law::{Compression, StringPointLaw, stretch_minus_one};

use crate::error::InputError;
use crate::inverse::body::InverseBody;
use crate::inverse::element::BilinearElement;

/// The string and its payload.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct StringModel {
    /// Unstretched length `L` (m).
    pub length: f64,
    /// Mass per unit length `ρA` (kg/m).
    pub rho_a: f64,
    /// Axial stiffness `EA` (N).
    pub ea: f64,
    /// Payload mass `m ≥ 0` at `s = L` (kg); `0` is a heavy chain with a free end, whose
    /// tension vanishes there ([`heavy_chain`]).
    pub payload_mass: f64,
    /// Gravity vector `g` (m/s²), pointing down.
    pub gravity: [f64; 3],
    /// Payload position at the start; the rope hangs straight above it at rest (m).
    pub payload_start: [f64; 3],
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

impl StringModel {
    /// The rope and payload of `examples/crane/01_swing_free_transfer.toml` (the crane demo):
    /// L = 10 m, ρA = 2 kg/m, EA = 1 MN, a 20 kg payload starting at the origin, g = 9.81 m/s²
    /// down the z axis.
    pub fn crane_example() -> Self {
        Self {
            length: 10.0,
            rho_a: 2.0,
            ea: 1.0e6,
            payload_mass: 20.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0; 3],
        }
    }

    /// `|g|` (m/s²).
    pub fn g(&self) -> f64 {
        norm(self.gravity)
    }

    /// The unit vector up, `−g/|g|`.
    pub fn up(&self) -> [f64; 3] {
        let g = self.g();
        self.gravity.map(|c| -c / g)
    }

    /// The point law (`compression` for `ν < 1`).
    pub fn point_law(&self, compression: Compression) -> StringPointLaw {
        StringPointLaw {
            rho_a: self.rho_a,
            ea: self.ea,
            compression,
        }
    }

    /// Validates the data; `prefix` is the field path for messages.
    pub fn validate(&self, prefix: &str) -> Result<(), InputError> {
        let bad = |field: &str, message: String| {
            Err(InputError::Invalid {
                field: format!("{prefix}.{field}"),
                message,
            })
        };
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !pos(self.length) {
            return bad(
                "length",
                format!("must be finite and > 0, got {}", self.length),
            );
        }
        if !pos(self.rho_a) {
            return bad(
                "rho_a",
                format!("must be finite and > 0, got {}", self.rho_a),
            );
        }
        if !pos(self.ea) {
            return bad("ea", format!("must be finite and > 0, got {}", self.ea));
        }
        if !(self.payload_mass.is_finite() && self.payload_mass >= 0.0) {
            return bad(
                "payload_mass",
                format!(
                    "must be finite and ≥ 0 (0: a heavy chain with a free end), got {}",
                    self.payload_mass
                ),
            );
        }
        if !(self.gravity.iter().all(|c| c.is_finite()) && self.g() > 0.0) {
            return bad(
                "gravity",
                format!("must be a finite non-zero vector, got {:?}", self.gravity),
            );
        }
        if !self.payload_start.iter().all(|c| c.is_finite()) {
            return bad(
                "payload_start",
                format!("must be finite, got {:?}", self.payload_start),
            );
        }
        Ok(())
    }

    /// Static tension `N(s) = |g| (m + ρA (L − s))` of the hanging rope (N).
    pub fn static_tension(&self, s: f64) -> f64 {
        self.g() * (self.payload_mass + self.rho_a * (self.length - s))
    }

    /// Static elongation `Δ = |g| (m L + ρA L²/2) / EA` of the hanging rope (m).
    pub fn static_elongation(&self) -> f64 {
        let l = self.length;
        self.g() * (self.payload_mass * l + 0.5 * self.rho_a * l * l) / self.ea
    }

    /// Transverse wave speed `c_t = sqrt(N / (ν ρA))` at tension `N` (m/s, per unit reference
    /// length), `ν = 1 + N/EA`.
    pub fn transverse_speed(&self, tension: f64) -> f64 {
        let nu = 1.0 + tension / self.ea;
        (tension.max(0.0) / (nu * self.rho_a)).sqrt()
    }

    /// Axial wave speed `sqrt(EA/ρA)` (m/s).
    pub fn axial_speed(&self) -> f64 {
        (self.ea / self.rho_a).sqrt()
    }

    /// Transverse travel time `∫₀ᴸ ds / c_t(s)` of the hanging rope at rest (s): how long the
    /// payload's motion needs to reach the suspension point, the pre- and post-actuation time
    /// of the inverse problem. With `σ = m/ρA + L − s` and `w = √σ`, `ds/c_t = 2 √(ν/|g|) dw`,
    /// smooth in `w` (8-point Gauss); inextensible: `2 (√(m/ρA + L) − √(m/ρA)) / √|g|`.
    pub fn travel_time(&self) -> f64 {
        let g = self.g();
        let w0 = (self.payload_mass / self.rho_a).sqrt();
        let w1 = (self.payload_mass / self.rho_a + self.length).sqrt();
        let gl = crate::basis::GaussLegendre::new(8);
        gl.points
            .iter()
            .zip(&gl.weights)
            .map(|(&x, &w)| {
                let wv = w0 + x * (w1 - w0);
                let nu = 1.0 + self.rho_a * g * wv * wv / self.ea;
                w * (w1 - w0) * 2.0 * (nu / g).sqrt()
            })
            .sum()
    }

    /// The force on the rope at `s = 0` that holds the nodes `x0` (spacing `hs`) at rest:
    /// `F = −n(first element) − ρA g hs/2`, the static residual of node 0 with the one-point
    /// rule and the consistent load (the actuation the inverse solver starts with, and the
    /// force a Neumann-driven forward model needs at its start).
    pub fn support_force_of(&self, law: &StringPointLaw, x0: &[[f64; 3]], hs: f64) -> [f64; 3] {
        let d = [0, 1, 2].map(|c| (x0[1][c] - x0[0][c]) / hs);
        let n = law.force(d, false).map(|(n, _)| n).unwrap_or([0.0; 3]);
        [0, 1, 2].map(|c| -n[c] - 0.5 * hs * self.rho_a * self.gravity[c])
    }

    /// [`Self::support_force_of`] the hanging rope on `elements_s` elements
    /// ([`Self::hanging_nodes`]): `−(m + ρA L) g`, the whole weight, upwards (to round-off).
    pub fn support_force(&self, elements_s: usize) -> [f64; 3] {
        let hs = self.length / elements_s as f64;
        self.support_force_of(
            &self.point_law(Compression::Slack),
            &self.hanging_nodes(elements_s),
            hs,
        )
    }

    /// The discrete static equilibrium on `elements_s` linear elements, payload at
    /// [`Self::payload_start`]: element `e` carries `N_e = |g|(m + ρA (L − s_e))` at its
    /// midpoint `s_e` and is stretched to `ν_e = 1 + N_e/EA` (tension-only law, `N_e > 0`),
    /// nodes stacked upwards from the payload. Exact for the discrete equations (module docs).
    pub fn hanging_nodes(&self, elements_s: usize) -> Vec<[f64; 3]> {
        let hs = self.length / elements_s as f64;
        let up = self.up();
        let mut x = vec![self.payload_start; elements_s + 1];
        for e in (0..elements_s).rev() {
            let n = self.static_tension((e as f64 + 0.5) * hs);
            let l = hs * (1.0 + n / self.ea);
            x[e] = [0, 1, 2].map(|c| x[e + 1][c] + l * up[c]);
        }
        x
    }
}

impl InverseBody<3> for StringModel {
    type Law = StringPointLaw;

    fn length(&self) -> f64 {
        self.length
    }

    /// The inverse iterates use the linear continuation of the law ([`Compression::Linear`],
    /// [`point_law`] docs).
    fn element(&self, hs: f64, ht: f64) -> BilinearElement<StringPointLaw, 3> {
        BilinearElement::with_law(self.point_law(Compression::Linear), hs, ht)
    }

    fn tip_mass(&self) -> Option<[f64; 3]> {
        Some([self.payload_mass; 3])
    }

    fn initial_nodes(&self, elements_s: usize) -> Vec<[f64; 3]> {
        self.hanging_nodes(elements_s)
    }

    /// [`StringModel::support_force_of`] with the element's law.
    fn initial_actuation(
        &self,
        element: &BilinearElement<StringPointLaw, 3>,
        x0: &[[f64; 3]],
        hs: f64,
    ) -> [f64; 3] {
        self.support_force_of(element.law(), x0, hs)
    }

    fn load(&self) -> [f64; 3] {
        self.gravity.map(|c| self.rho_a * c)
    }

    fn tip_load(&self) -> [f64; 3] {
        self.gravity.map(|c| self.payload_mass * c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rope() -> StringModel {
        StringModel {
            length: 10.0,
            rho_a: 1.5,
            ea: 2.0e4,
            payload_mass: 20.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [1.0, 2.0, 0.0],
        }
    }

    /// The travel time against the closed form of the inextensible rope (EA → ∞) and its
    /// chain limit `2 sqrt(L/g)` (m → 0).
    #[test]
    fn travel_time_closed_forms() {
        let mut r = rope();
        r.ea = 1e15;
        let (a, l, g) = (r.payload_mass / r.rho_a, r.length, 9.81f64);
        let exact = 2.0 * ((a + l).sqrt() - a.sqrt()) / g.sqrt();
        assert!((r.travel_time() - exact).abs() < 1e-12 * exact);
        r.payload_mass = 1e-12;
        assert!((r.travel_time() - 2.0 * (l / g).sqrt()).abs() < 1e-5);
        // stretch makes it longer
        assert!(rope().travel_time() > 2.0 * ((a + l).sqrt() - a.sqrt()) / g.sqrt());
    }

    /// The hanging nodes: payload at its start, total length L + Δ, tension N(s) exact at the
    /// element midpoints (linear N: the midpoint rule is exact for Δ).
    #[test]
    fn hanging_nodes_carry_the_weight_below() {
        let r = rope();
        let x = r.hanging_nodes(8);
        assert_eq!(x[8], r.payload_start);
        let len = x[0][2] - x[8][2];
        assert!((len - r.length - r.static_elongation()).abs() < 1e-12 * r.length);
        assert!(x.iter().all(|p| p[0] == 1.0 && p[1] == 2.0));
    }
}
