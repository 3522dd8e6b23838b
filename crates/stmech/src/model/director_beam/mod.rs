//! Spatial geometrically exact beam in director form: the frame-indifferent beam elements of
//! Betsch & Steinmann `[BS2002]` (Simo–Reissner kinematics, directors interpolated like
//! positions, orthonormality by Lagrange multipliers).
//!
//! `[BS2002]` P. Betsch, P. Steinmann, *Frame-indifferent beam finite elements based upon the
//! geometrically exact beam theory*, Int. J. Numer. Meth. Engng 54 (2002) 1775–1788. Equation
//! numbers of that paper are not quoted here; each step is written out instead.
//!
//! # Continuum (units SI, vectors in the global frame)
//! A configuration is the centreline `φ(s)` (m) and the directors `d_i(s)` (dimensionless),
//! `s ∈ [0, L]` the arc length of the stress-free reference. With orthonormal directors the
//! spatial curvature `k` is defined by `d_i′ = k × d_i`, and the material strains are
//!
//! ```text
//! Γ_i = d_i · φ′              (Γ1, Γ2 shear, Γ3 axial stretch; Γ = (0, 0, 1) unstrained)
//! K_i = k · d_i               (K1, K2 bending about d1, d2; K3 torsion)
//! ```
//!
//! Because `d3·d2′ = (k × d2)·d3 = k·d1 = K1` and `d2·d3′ = −K1`, the curvatures can be written
//! without `k`, antisymmetrised:
//!
//! ```text
//! K1 = ½ (d3·d2′ − d2·d3′),   K2 = ½ (d1·d3′ − d3·d1′),   K3 = ½ (d2·d1′ − d1·d2′).
//! ```
//!
//! This is the form of `[BS2002]`: every strain is a bilinear expression in the directors and
//! `φ′`, so it stays well defined (and invariant under rotations) when the directors are only
//! approximately orthonormal, as they are between the nodes of an element. The stress resultants
//! in the director frame are `s = (N1, N2, N3, M1, M2, M3) = C (π − π0) + V π̇`
//! ([`section::Section`]); the spatial force and moment are `n = N_i d_i`, `m = M_i d_i`. The
//! stored energy is `W = ∫ ½ (π − π0)ᵀ C (π − π0) ds`, the internal virtual work `∫ δπ · s ds`.
//!
//! The kinetic energy of a flat section with the centreline through the centroid is
//! `T = ½ ∫ (ρA |φ̇|² + E_αβ ḋ_α·ḋ_β) ds`, `E_αβ = ∫ ρ ξ_α ξ_β dA`: per unit length exactly the
//! director-based rigid body of `[P, Eq. (7)]` with `M = ρA`, `S^i = 0` and `E^{3j} = 0`. `d3`
//! carries no inertia; its motion follows from the orthonormality constraints
//! `½ (d_i·d_j − δ_ij) = 0` (per node, [`crate::model::constraint::Orthonormality`]).
//!
//! # Discretisation ([`element`])
//! Each node `a` carries `q_a = (φ_a, d1_a, d2_a, d3_a)` (12 coordinates, like a rigid body). An
//! element of order `p ∈ {1, 2}` interpolates all four vectors with the same Lagrange shape
//! functions `N_a(ξ)`, `ξ ∈ [0, 1]`:
//!
//! ```text
//! φ_h = Σ_a N_a φ_a,   d_i,h = Σ_a N_a d_i,a        (no re-normalisation)
//! (·)′ = J⁻¹ ∂(·)/∂ξ,   J(ξ) = |∂φ0_h/∂ξ|,   ds = J dξ     (φ0_h the interpolated reference)
//! ```
//!
//! and evaluates the strains above with the interpolated fields, minus the same quantities of
//! the interpolated reference (so the discrete reference is exactly stress-free, for straight,
//! curved and helical references alike; [`mod@reference`] builds exact nodal frames of constant
//! curvature).
//!
//! # Matrix form
//! With `q` the element's local coordinates (`n_loc = 12 (p + 1)`), every strain is a quadratic
//! form, `π_k = ½ qᵀ A_k q − π0_k` with constant symmetric `A_k`:
//!
//! ```text
//! Γ_i = Σ_ab N_a N_b′ d_i,a·φ_b                   → A_Γi couples d_i,a and φ_b with N_a N_b′ I₃
//! K_k = ½ Σ_ab (N_a N_b′ − N_a′ N_b) d_j,a·d_i,b  → A_Kk couples d_j,a and d_i,b, (k, i, j) cyclic
//! ```
//!
//! Hence `B = ∂π/∂q = [A_k q]` is linear in `q`, and `Σ_k s_k ∂²π_k/∂q² = Σ_k s_k A_k` does not
//! depend on `q`. The element vectors follow by Gauss quadrature in `ξ` with weights `w_g J(ξ_g)`:
//!
//! ```text
//! f_int = Σ_g w_g J_g B_gᵀ s_g,        K = Σ_g w_g J_g (B_gᵀ C B_g + Σ_k s_g,k A_k),
//! M = ∫ N_a N_b ds ⊗ [ρA, 0; 0, E_αβ; d3: 0] ⊗ I₃,   f_b = ∫ N_a ds · b.
//! ```
//!
//! The per-point kernels ([`element::DirectorBeamElement::strains_into`],
//! [`element::DirectorBeamElement::add_stress_hessian`]) are what an energy-momentum time
//! quadrature needs: it may evaluate `s` at any (e.g. averaged or enhanced) strain and contract
//! it with `B` at any configuration.
//!
//! # Frame indifference and momentum
//! `π` depends on `q` only through dot products of interpolated vectors and of `φ_h′`; a rigid
//! motion `φ_a ↦ R φ_a + c`, `d_i,a ↦ R d_i,a` maps `φ_h′ ↦ R φ_h′` (`Σ_a N_a′ = 0`) and
//! `d_i,h ↦ R d_i,h`, so `π` is invariant for *every* `q`, orthonormal or not. Differentiating
//! the invariance gives, for the internal force at any configuration,
//! `Σ_a f_φa = 0` and `Σ_a (φ_a × f_φa + Σ_i d_i,a × f_di,a) = 0`: the discrete beam conserves
//! linear and angular momentum. Interpolating rotations instead (e.g. by rotation vectors)
//! loses this unless special care is taken; that is the point of `[BS2002]`.
//!
//! # Accuracy and locking
//! The interpolated directors are shorter than 1 between the nodes (`cos(Δθ/2)` at the midpoint
//! of a linear element whose nodal frames differ by `Δθ`). For nodes on a curve of constant
//! curvature `κ` the linear element gives exactly `K_h = κ sin(|κ|h)/(|κ|h)` at its midpoint.
//! In pure bending, the moment a linear element passes from node to node is `M2 cos Δθ` (the
//! director forces act on the shortened midpoint directors), so equilibrium under an end moment
//! `M` is `EI sin Δθ cos Δθ / h = M`: `Δθ = ½ asin(2Mh/EI)`, a relative rotation error
//! `(2/3)(κh)²`, and no equilibrium at all for `M > EI/(2h)` (keep the rotation per linear
//! element well below 45°). Convergence is of order 2 for `p = 1` and 4 (at the nodes) for
//! `p = 2` (`tests/director_beam_statics.rs`, `docs/verification.md`).
//!
//! Locking is avoided by **uniformly reduced Gauss integration**: `p` points for order `p`
//! ([`element::Integration::Reduced`], the default). On the constraint manifold an element has
//! `6 (p + 1)` degrees of freedom (3 translations and 3 rotations per node), 6 of them rigid, so
//! `6p` deformation modes: exactly the number of strain samples `6 × p`. Reduced integration is
//! therefore rank-sufficient (no spurious zero-energy mode; unit test
//! `no_spurious_zero_energy_modes`), while full integration (`p + 1` points) samples the shear
//! strains at more points than there are modes and locks for slender beams.
//!
//! # Loads
//! A dead force acts on `φ_a`. A dead moment `m` at a node acts as director forces
//! `f_di = ½ m × d_i`: for orthonormal directors `δd_i = δθ × d_i` and
//! `Σ_i ½ (m × d_i)·(δθ × d_i) = ½ Σ_i (m·δθ − (m·d_i)(d_i·δθ)) = m·δθ`. Its load stiffness
//! `∂f_di/∂d_i = ½ skew(m)` is skew: a dead moment in 3D is not conservative.

pub mod beam;
pub mod element;
pub mod reference;
pub mod section;

pub use beam::{BeamError, BeamSpec};
pub use element::{DirectorBeamElement, ElementError, Integration};
pub use reference::ConstantCurvature;
pub use section::{
    DiagonalStiffness, Rectangle, Section, SectionError, SectionInertia, TorsionConstant,
    WaveSpeeds,
};
