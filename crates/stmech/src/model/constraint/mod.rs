//! Holonomic constraints `Φ(q, t) = 0`, enforced weakly in time with Lagrange multipliers
//! interpolated like the other fields [P, Eq. (22)]. One constraint type per file:
//!
//! * [`Orthonormality`]: rigidity of a director triad, [P, Eq. (4)];
//! * [`Spherical`]: coincident body points (linear in `q`);
//! * [`Distance`]: rigid massless rod, [P, Eq. (27)] (quadratic);
//! * [`Revolute`]: coincident points and a common hinge axis (quadratic);
//! * [`Prescribed`]: a body point on a given path `γ(t)` (linear, rheonomic);
//! * [`PrescribedFrame`]: a whole frame (placement and directors) on a given pose path, a
//!   moving clamp (linear, rheonomic, twelve equations; replaces the frame's orthonormality);
//! * [`Rigid`]: a frame welded to another frame or clamped to the ground (linear, twelve
//!   equations; replaces the tied frame's orthonormality).

mod body_map;
mod distance;
mod orthonormality;
mod prescribed;
mod prescribed_frame;
mod revolute;
mod rigid;
mod spherical;

pub use body_map::JointBody;
pub use distance::Distance;
pub use orthonormality::Orthonormality;
pub use prescribed::Prescribed;
pub use prescribed_frame::{FrameMotion, FrameMotionState, PrescribedFrame};
pub use revolute::Revolute;
pub use rigid::Rigid;
pub use spherical::Spherical;

/// A holonomic constraint on a subset of the configuration coordinates.
///
/// The constraint sees only its local coordinates `q_loc = q[indices]`. It returns the values
/// `Φ` (length [`n_eq`](Self::n_eq)), the Jacobian `G = ∂Φ/∂q_loc` (row-major `n_eq × n_loc`)
/// and, when asked, the multiplier-weighted Hessian `H = Σ_k λ_k ∂²Φ_k/∂q_loc²`
/// (row-major `n_loc × n_loc`). Buffers are zeroed by the caller.
///
/// Rheonomic constraints `Φ(q, t) = Φ_q(q) + Φ_t(t)` (explicit time dependence additive and
/// independent of `q`, so `G` does not depend on `t`) return `Φ_q` from [`eval`](Self::eval)
/// and add the time part in [`add_time_terms`](Self::add_time_terms).
pub trait Constraint: Send + Sync + std::fmt::Debug {
    /// Short name for diagnostics ("orthonormality", "spherical", ...).
    fn name(&self) -> &str;
    /// Number of scalar equations.
    fn n_eq(&self) -> usize;
    /// The power of length in the unit of equation `e` (0: dimensionless, 1: m, 2: m²): the
    /// Newton stop compares residuals of one unit only (`solve::newton::measure`).
    fn length_power(&self, e: usize) -> u8;
    /// Global configuration indices the constraint depends on.
    fn indices(&self) -> &[usize];
    /// Evaluates `Φ`, `G` and optionally `H`.
    fn eval(
        &self,
        q_loc: &[f64],
        lambda: &[f64],
        phi: &mut [f64],
        g: &mut [f64],
        h: Option<&mut [f64]>,
    );
    /// Adds `∂(G(q) v)/∂q_loc` to `out` (row-major `n_eq × n_loc`, the layout of `G`): row `e`
    /// is `vᵀ ∂²Φ_e/∂q²`. This is the tangent of the velocity-level constraint `G(q) q̇` of the
    /// Petrov–Galerkin scheme. For the quadratic constraints of this crate it is `G` with the
    /// configuration replaced by the velocity in the quadratic terms.
    fn velocity_jacobian(&self, q_loc: &[f64], v_loc: &[f64], out: &mut [f64]);
    /// Explicit time dependence at time `t`: adds the time part of `Φ` to `phi`, `∂Φ/∂t` to
    /// `phi_t` and `∂²Φ/∂t²` to `phi_tt`. Default: none (scleronomic constraint).
    fn add_time_terms(&self, _t: f64, _phi: &mut [f64], _phi_t: &mut [f64], _phi_tt: &mut [f64]) {}
    /// The frame (12-coordinate block `q[12k..12k+12]`) whose placement *and* directors this
    /// constraint fixes completely in terms of other coordinates (a rigid connection or a
    /// clamp). The system then drops that frame's orthonormality constraint, which the tie
    /// implies. Default: none.
    fn tied_frame(&self) -> Option<usize> {
        None
    }
}
