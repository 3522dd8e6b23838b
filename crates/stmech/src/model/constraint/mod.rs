//! Holonomic constraints `Φ(q) = 0`, enforced weakly in time with Lagrange multipliers
//! interpolated like the other fields [P, Eq. (22)]. One constraint type per file.

mod orthonormality;

pub use orthonormality::Orthonormality;

/// A holonomic constraint on a subset of the configuration coordinates.
///
/// The constraint sees only its local coordinates `q_loc = q[indices]`. It returns the values
/// `Φ` (length [`n_eq`](Self::n_eq)), the Jacobian `G = ∂Φ/∂q_loc` (row-major `n_eq × n_loc`)
/// and, when asked, the multiplier-weighted Hessian `H = Σ_k λ_k ∂²Φ_k/∂q_loc²`
/// (row-major `n_loc × n_loc`). Buffers are zeroed by the caller.
pub trait Constraint: Send + Sync + std::fmt::Debug {
    /// Short name for diagnostics ("orthonormality", "spherical", ...).
    fn name(&self) -> &str;
    /// Number of scalar equations.
    fn n_eq(&self) -> usize;
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
}
