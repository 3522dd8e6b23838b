//! What the space-time inverse solver needs of the body between the actuator (`s = 0`) and
//! the tracked point (`s = L`): the seam that lets the planar beam ([`BeamModel`]) and the
//! geometrically exact string of issue 17 ([`crate::string::StringModel`]) share the assembly,
//! the streamed sideways elimination, Newton and the solution type.
//!
//! Both have three unknowns per point (beam: `(r1, r2, θ)`; string: `(r1, r2, r3)`), the
//! bilinear space-time element of [`super::element`] with their own [`PointLaw`], an optional
//! tip mass, and an initial state at rest in equilibrium with the actuation `F(t_start)`. The
//! string adds constant loads: gravity `q = ρA g` per unit length and the payload weight
//! `m g` at the tip, `R2 ⊃ − ∫∫ w2 · q ds dt − ∫ w2(L, t) · m g dt`.

use super::element::{BilinearElement, PointLaw};
use super::solver::{BeamModel, TipLaw};
use crate::beam::section::{ReferenceStrains, strains};

/// A body for the space-time inverse solver (see the module docs).
pub trait InverseBody: Copy + std::fmt::Debug + Send + Sync {
    /// The element's point law.
    type Law: PointLaw;
    /// Reference length `L` (m).
    fn length(&self) -> f64;
    /// The bilinear space-time element of size `hs × ht`.
    fn element(&self, hs: f64, ht: f64) -> BilinearElement<Self::Law>;
    /// Tip mass per component (`None`: free end).
    fn tip_mass(&self) -> Option<[f64; 3]>;
    /// Nodal configuration at `t_start` on `elements_s` equal elements (at rest, in
    /// equilibrium with [`Self::initial_actuation`] and the loads).
    fn initial_nodes(&self, elements_s: usize) -> Vec<[f64; 3]>;
    /// `F(t_start)`: the actuation that holds the initial state in equilibrium (the static
    /// residual of node 0 with the element's one-point rule).
    fn initial_actuation(
        &self,
        element: &BilinearElement<Self::Law>,
        x0: &[[f64; 3]],
        hs: f64,
    ) -> [f64; 3];
    /// Constant distributed load per unit length (N/m).
    fn load(&self) -> [f64; 3] {
        [0.0; 3]
    }
    /// Constant force at the tip (N).
    fn tip_load(&self) -> [f64; 3] {
        [0.0; 3]
    }
}

impl InverseBody for BeamModel {
    type Law = super::element::BeamPointLaw;

    fn length(&self) -> f64 {
        self.length
    }

    fn element(&self, hs: f64, ht: f64) -> BilinearElement<Self::Law> {
        super::element::BeamSpaceTimeElement::new(self.section, self.law, hs, ht)
    }

    fn tip_mass(&self) -> Option<[f64; 3]> {
        match self.tip {
            TipLaw::Free => None,
            TipLaw::Mass { mass, inertia } => Some([mass, mass, inertia]),
        }
    }

    fn initial_nodes(&self, elements_s: usize) -> Vec<[f64; 3]> {
        let hs = self.length / elements_s as f64;
        (0..=elements_s)
            .map(|i| self.initial_pose(i as f64 * hs))
            .collect()
    }

    /// `F(t_start) = −(n, M)(s = 0)` from the initial state (first element, one-point rule).
    fn initial_actuation(
        &self,
        _element: &BilinearElement<Self::Law>,
        x0: &[[f64; 3]],
        hs: f64,
    ) -> [f64; 3] {
        let (a, b) = (x0[0], x0[1]);
        let th = 0.5 * (a[2] + b[2]);
        let e = strains(
            [(b[0] - a[0]) / hs, (b[1] - a[1]) / hs],
            th,
            (b[2] - a[2]) / hs,
        );
        let r = self
            .law
            .resultants(&self.section, e, ReferenceStrains::STRAIGHT);
        let (sn, cs) = th.sin_cos();
        [
            -(r.axial * cs - r.shear * sn),
            -(r.axial * sn + r.shear * cs),
            -r.moment,
        ]
    }
}
