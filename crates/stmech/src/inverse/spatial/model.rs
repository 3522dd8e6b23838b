//! The arm of the spatial inverse problem: a straight, stress-free spatial beam of length `L`
//! from its base `s = 0` to its tip `s = L`, with the one model's section law and an optional
//! rigid body welded to the tip.
//!
//! # Frames and units
//! At rest (`t_start`) the centreline runs from `base` along the third director
//! `d3 = frame[2]`: `φ(s) = base + s d3`, with the directors `(d1, d2, d3) = frame` at every `s`
//! (orthonormal, right-handed; global components). The section's stiffness `C` acts on the
//! material strains `π = (Γ1, Γ2, Γ3, K1, K2, K3)` in that director frame
//! ([`crate::model::director_beam::section`]); SI units throughout.
//!
//! # Tip body
//! `tip` holds the mass properties of the welded body relative to the beam's tip point
//! `φ(L)` and the tip directors (the convective coordinates of [`MassProperties`]): mass `M`,
//! first moment `S^i = M c^i` (`c` the centre of mass seen from the tip, in the tip frame) and
//! Euler tensor `E^ij` about the tip point.

use crate::error::InputError;
use crate::math::Vec3;
use crate::model::MassProperties;
use crate::model::director_beam::section::Section;

/// The arm: a straight spatial beam with an optional tip body (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpatialBeam {
    /// Reference length `L` (m).
    pub length: f64,
    /// Section law (stiffness `C`; viscosity must be zero) and inertia `ρA`, `E_αβ`.
    pub section: Section,
    /// Centreline point `φ(0)` at rest (m).
    pub base: Vec3,
    /// Directors `(d1, d2, d3)` at rest, `d3` along the beam.
    pub frame: [Vec3; 3],
    /// Rigid body welded to the tip, relative to `φ(L)` and the tip directors.
    pub tip: Option<MassProperties>,
}

impl SpatialBeam {
    /// Centreline point `φ(s)` at rest.
    pub fn rest_position(&self, s: f64) -> Vec3 {
        [0, 1, 2].map(|k| self.base[k] + s * self.frame[2][k])
    }

    /// Checks the data; `prefix` is the field path for messages.
    pub fn validate(&self, prefix: &str) -> Result<(), InputError> {
        let bad = |field: &str, message: String| {
            Err(InputError::Invalid {
                field: format!("{prefix}.{field}"),
                message,
            })
        };
        if !(self.length.is_finite() && self.length > 0.0) {
            return bad(
                "length",
                format!("must be finite and > 0 (m), got {}", self.length),
            );
        }
        if self.base.iter().any(|c| !c.is_finite()) {
            return bad("base", format!("must be finite, got {:?}", self.base));
        }
        if let Err(message) = crate::inverse::trajectory::pose::check_frame(&self.frame) {
            return bad("frame", message);
        }
        if self.section.is_viscous() {
            return bad(
                "section",
                "the inverse problem needs an elastic section: remove the viscosity (tau_s, \
                 tau_e, viscosity)"
                    .into(),
            );
        }
        if let Some(m) = &self.tip
            && let Err(message) = check_tip_mass(m)
        {
            return bad("tip", message);
        }
        Ok(())
    }
}

/// The tip body must have a finite positive mass and a positive semi-definite mass matrix: the
/// Schur complement `E − S Sᵀ/M` (the Euler tensor about the centre of mass) has no negative
/// eigenvalue (a point mass, `E = S Sᵀ/M`, is allowed).
fn check_tip_mass(m: &MassProperties) -> Result<(), String> {
    let finite = m.mass.is_finite()
        && m.first_moment.iter().all(|c| c.is_finite())
        && m.euler_tensor.iter().flatten().all(|c| c.is_finite());
    if !(finite && m.mass > 0.0) {
        return Err(format!(
            "the tip body needs a finite mass > 0 (kg) and finite first moment and Euler \
             tensor, got mass {} kg",
            m.mass
        ));
    }
    let (s, e) = (m.first_moment, m.euler_tensor);
    let ec: [[f64; 3]; 3] =
        std::array::from_fn(|i| std::array::from_fn(|j| e[i][j] - s[i] * s[j] / m.mass));
    let scale = ec
        .iter()
        .flatten()
        .fold(0.0f64, |a, v| a.max(v.abs()))
        .max(1e-300);
    let sym = (0..3).all(|i| (0..3).all(|j| (e[i][j] - e[j][i]).abs() <= 1e-12 * scale));
    // principal minors of the 3 × 3 Schur complement (semi-definite up to round-off)
    let tol = -1e-12 * scale;
    let d = |a: usize, b: usize| ec[a][a] * ec[b][b] - ec[a][b] * ec[b][a];
    let det = ec[0][0] * d(1, 2) - ec[0][1] * (ec[1][0] * ec[2][2] - ec[1][2] * ec[2][0])
        + ec[0][2] * (ec[1][0] * ec[2][1] - ec[1][1] * ec[2][0]);
    let psd = (0..3).all(|i| ec[i][i] >= tol)
        && d(0, 1) >= tol * scale
        && d(0, 2) >= tol * scale
        && d(1, 2) >= tol * scale
        && det >= tol * scale * scale;
    if !(sym && psd) {
        return Err(format!(
            "the tip body's Euler tensor about its centre of mass, E − S Sᵀ/M = {ec:?} kg·m², \
             must be symmetric positive semi-definite"
        ));
    }
    Ok(())
}
