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

/// A rigid body welded to the tip, seen from the tip: its mass properties relative to the tip
/// point and the tip directors, and the placement of its own reference frame in the tip frame
/// (for a path prescribed for the body: [`super::BodyToTip`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeldedBody {
    /// Mass properties relative to the tip point `φ(L)` and the tip directors.
    pub at_tip: MassProperties,
    /// `c`: the body's reference point seen from the tip, tip-frame components (m).
    pub offset: Vec3,
    /// `R_rel[k][i] = d_k · D_i` (tip director `k`, body director `i`).
    pub relative: [[f64; 3]; 3],
}

impl WeldedBody {
    /// A body with mass properties `body` relative to its reference point `position` and its
    /// directors `directors`, welded (at rest) to the tip `tip` of frame `frame`:
    /// `θ_tip = c + R_rel θ`, so `S' = M c + R_rel S`,
    /// `E' = M c cᵀ + c (R_rel S)ᵀ + (R_rel S) cᵀ + R_rel E R_relᵀ`.
    pub fn new(
        body: &MassProperties,
        position: Vec3,
        directors: &[Vec3; 3],
        tip: Vec3,
        frame: &[Vec3; 3],
    ) -> Self {
        let dot = |a: &Vec3, b: &Vec3| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let rel: [[f64; 3]; 3] =
            std::array::from_fn(|k| std::array::from_fn(|i| dot(&frame[k], &directors[i])));
        let dp = [0, 1, 2].map(|a| position[a] - tip[a]);
        let c: Vec3 = std::array::from_fn(|k| dot(&frame[k], &dp));
        let m = body.mass;
        let rs: Vec3 =
            std::array::from_fn(|k| (0..3).map(|i| rel[k][i] * body.first_moment[i]).sum());
        let mut e = [[0.0; 3]; 3];
        for k in 0..3 {
            for l in 0..3 {
                let mut v = m * c[k] * c[l] + c[k] * rs[l] + rs[k] * c[l];
                for i in 0..3 {
                    for j in 0..3 {
                        v += rel[k][i] * body.euler_tensor[i][j] * rel[l][j];
                    }
                }
                e[k][l] = v;
            }
        }
        Self {
            at_tip: MassProperties {
                mass: m,
                first_moment: std::array::from_fn(|k| m * c[k] + rs[k]),
                euler_tensor: e,
            },
            offset: c,
            relative: rel,
        }
    }
}

impl SpatialBeam {
    /// The arm of issue 16's spatial manoeuvre (`examples/spatial_inverse/01_helix_twist.toml`):
    /// `L = 1` m along `e1` from the origin, `d3 = e1`, `d1 = e2`, `d2 = e3`, `ρA = 1` kg/m,
    /// `E11 = E22 = 1` kg·m, `EA = 4`, `GA1 = GA2 = 2`, `EI1 = EI2 = 1`, `GJ = 2` (N, N·m²;
    /// speeds: axial 2, shear 1.41, bending and torsion 1 m/s), all stiffnesses times `stiffness`,
    /// and a tip body as heavy as the beam: a 0.2 m cube of 1 kg centred 0.1 m ahead of the tip.
    pub fn helix_example(stiffness: f64) -> Self {
        use crate::model::director_beam::section::{DiagonalStiffness, SectionInertia};
        let k = stiffness;
        let section = Section::from_diagonal(
            DiagonalStiffness {
                ea: 4.0 * k,
                ga1: 2.0 * k,
                ga2: 2.0 * k,
                ei1: k,
                ei2: k,
                gj: 2.0 * k,
            },
            SectionInertia {
                rho_a: 1.0,
                euler_tensor: [[1.0, 0.0], [0.0, 1.0]],
            },
        )
        .expect("valid example section");
        Self {
            length: 1.0,
            section,
            base: [0.0; 3],
            frame: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
            tip: Some(MassProperties::from_box(
                [0.2, 0.2, 0.2],
                125.0,
                [0.0, 0.0, -0.1],
            )),
        }
    }

    /// The path of issue 16's spatial manoeuvre for this beam's tip: a quarter helix about `e3`
    /// through the base (radius `L`, rise `L/2`) with the tip frame twisting by 90° about the
    /// beam axis `e1`, on `[2, 4]` s (the rest-to-rest profile of `[I]` Eq. 35).
    pub fn helix_example_path(&self) -> crate::inverse::trajectory::pose::RestToRestPose {
        use crate::inverse::trajectory::RestToRestProfile;
        use crate::inverse::trajectory::pose::{Pose, RestToRestPose};
        RestToRestPose::helix(
            Pose {
                position: self.rest_position(self.length),
                directors: self.frame,
            },
            self.base,
            [0.0, 0.0, 1.0],
            std::f64::consts::FRAC_PI_2,
            0.5 * self.length,
            [1.0, 0.0, 0.0],
            std::f64::consts::FRAC_PI_2,
            RestToRestProfile {
                t0: 2.0,
                duration: 2.0,
            },
        )
        .expect("valid example path")
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rotation::rotate;

    /// The welded body's centre of mass and its inertia about the centre, in global
    /// components, are the same seen from the body and from the tip.
    #[test]
    fn welded_body_keeps_its_centre_and_inertia() {
        let body = MassProperties::from_box([0.2, 0.1, 0.3], 800.0, [0.05, -0.02, 0.1]);
        let dirs = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
            .map(|e| rotate(&[0.2, 0.9, -0.3], 0.8, &e));
        let frame = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
        let (pos, tip) = ([1.2, 0.1, -0.05], [1.0, 0.0, 0.0]);
        let w = WeldedBody::new(&body, pos, &dirs, tip, &frame);
        let glob = |origin: &Vec3, d: &[Vec3; 3], u: &Vec3| -> Vec3 {
            std::array::from_fn(|a| origin[a] + (0..3).map(|k| u[k] * d[k][a]).sum::<f64>())
        };
        let m = body.mass;
        let c1 = glob(&pos, &dirs, &body.first_moment.map(|s| s / m));
        let c2 = glob(&tip, &frame, &w.at_tip.first_moment.map(|s| s / m));
        for a in 0..3 {
            assert!((c1[a] - c2[a]).abs() < 1e-14);
        }
        // inertia about the centre: E_c = E − S Sᵀ/M in each frame, rotated to global
        let about_centre = |mp: &MassProperties, d: &[Vec3; 3]| -> [[f64; 3]; 3] {
            let s = mp.first_moment;
            std::array::from_fn(|a| {
                std::array::from_fn(|b| {
                    let mut v = 0.0;
                    for i in 0..3 {
                        for j in 0..3 {
                            v += d[i][a] * (mp.euler_tensor[i][j] - s[i] * s[j] / m) * d[j][b];
                        }
                    }
                    v
                })
            })
        };
        let (e1, e2) = (about_centre(&body, &dirs), about_centre(&w.at_tip, &frame));
        for a in 0..3 {
            for b in 0..3 {
                assert!((e1[a][b] - e2[a][b]).abs() < 1e-15, "{a}{b}");
            }
        }
        // the body's reference point is the tip point plus R_tip c
        let p = glob(&tip, &frame, &w.offset);
        assert!((0..3).all(|a| (p[a] - pos[a]).abs() < 1e-15));
    }
}
