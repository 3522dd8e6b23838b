//! What the space-time inverse solver needs of the body between the actuator (`s = 0`) and
//! the tracked point (`s = L`): the seam that lets the planar beam ([`BeamModel`]) and the
//! geometrically exact string of issue 17 ([`crate::string::StringModel`]) share the assembly,
//! the streamed sideways elimination, Newton and the solution type.
//!
//! The planar beam and the string have three unknowns per point (beam: `(r1, r2, θ)`; string:
//! `(r1, r2, r3)`), the spatial beam six (position and rotation vector,
//! [`crate::inverse::spatial`]); each has the bilinear space-time element of
//! [`super::element`] with its own [`PointLaw`], an optional tip law, and an initial state at
//! rest in equilibrium with the actuation `F(t_start)`. The string adds constant loads:
//! gravity `q = ρA g` per unit length and the payload weight `m g` at the tip,
//! `R2 ⊃ − ∫∫ w2 · q ds dt − ∫ w2(L, t) · m g dt`.
//!
//! # Tip law
//! `R2(L) ⊃ ∫ w2(L, t) · (M_tip ∂t v + f_tip(x, v, ∂t v)) dt`: a constant diagonal part
//! ([`InverseBody::tip_mass`]: the planar end mass, the payload) and a nonlinear rest
//! ([`InverseBody::tip_point`]: a rigid body welded to the spatial beam's tip), integrated by
//! the 2-point Gauss rule of each time element.

use super::element::{BilinearElement, InertiaPoint, PointLaw};
use super::solver::{BeamModel, TipLaw};
use crate::beam::section::{ReferenceStrains, strains};

/// A body for the space-time inverse solver with `N` unknowns per point (module docs).
pub trait InverseBody<const N: usize>: Copy + std::fmt::Debug + Send + Sync {
    /// The element's point law.
    type Law: PointLaw<N>;
    /// Whether [`Self::tip_point`] is not zero.
    const NONLINEAR_TIP: bool = false;
    /// The stage of its space-time Newton solve (the remedy a failure names).
    const STAGE: crate::solve::newton::Stage = crate::solve::newton::Stage::InverseDomain;
    /// Reference length `L` (m).
    fn length(&self) -> f64;
    /// The bilinear space-time element of size `hs × ht`.
    fn element(&self, hs: f64, ht: f64) -> BilinearElement<Self::Law, N>;
    /// Constant diagonal tip mass per component (`None`: none).
    fn tip_mass(&self) -> Option<[f64; N]>;
    /// The nonlinear tip inertia force and its Jacobians at the tip's `x`, `v`, `a = ∂t v`
    /// (module docs); zero unless [`Self::NONLINEAR_TIP`].
    fn tip_point(
        &self,
        _x: &[f64; N],
        _v: &[f64; N],
        _a: &[f64; N],
        _tangent: bool,
    ) -> InertiaPoint<N> {
        InertiaPoint::ZERO
    }
    /// Nodal configuration at `t_start` on `elements_s` equal elements (at rest, in
    /// equilibrium with [`Self::initial_actuation`] and the loads).
    fn initial_nodes(&self, elements_s: usize) -> Vec<[f64; N]>;
    /// `F(t_start)`: the actuation that holds the initial state in equilibrium (the static
    /// residual of node 0 with the element's one-point rule).
    fn initial_actuation(
        &self,
        element: &BilinearElement<Self::Law, N>,
        x0: &[[f64; N]],
        hs: f64,
    ) -> [f64; N];
    /// Constant distributed load per unit length (N/m).
    fn load(&self) -> [f64; N] {
        [0.0; N]
    }
    /// Constant force at the tip (N).
    fn tip_load(&self) -> [f64; N] {
        [0.0; N]
    }
}

impl InverseBody<3> for BeamModel {
    type Law = super::element::BeamPointLaw;

    fn length(&self) -> f64 {
        self.length
    }

    fn element(&self, hs: f64, ht: f64) -> BilinearElement<Self::Law, 3> {
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
        _element: &BilinearElement<Self::Law, 3>,
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
