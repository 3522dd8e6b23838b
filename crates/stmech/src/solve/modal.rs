//! Modal analysis of any [`ConstrainedSystem`] linearised at a static configuration
//! (`docs/theory.md`, "Modal analysis on the constraint manifold").
//!
//! # Linearisation
//! At an equilibrium `(q*, λ*)` (`G(q*)ᵀλ* = f(q*)`, `Φ(q*) = 0`) a small motion
//! `q = q* + δq`, `λ = λ* + δλ` obeys, to first order,
//!
//! ```text
//! 𝕄 δq̈ + K δq + Gᵀ δλ = 0,      G δq = 0,      K = ∂(Gᵀλ − f)/∂q at (q*, λ*),
//! ```
//!
//! `K` including the multiplier-weighted constraint Hessians `Σ λ*_k ∂²Φ_k/∂q²` (the geometric
//! stiffness of the orthonormality constraints carries e.g. the pendulum's gravity stiffness)
//! and the load stiffness. With an orthonormal basis `N` (`n_q × m`) of the null space of `G`
//! (the tangent space of the constraint manifold), `δq = N y` removes `δλ`:
//!
//! ```text
//! M_r ÿ + K_r y = 0,      M_r = Nᵀ 𝕄 N,   K_r = Nᵀ K N,
//! ```
//!
//! and harmonic motions `y = x e^{iωt}` solve the symmetric generalised eigenproblem
//! `K_r x = ω² M_r x`.
//!
//! # Symmetry
//! For conservative loads `K_r` is the Hessian of the Lagrangian `V + λ*·Φ` restricted to the
//! tangent space, hence symmetric; `K` itself is assembled symmetric for strain elements,
//! constraints and body forces. Non-conservative loads (a dead torque in 3D, a follower load)
//! make `K_r` unsymmetric and the problem non-self-adjoint (flutter is possible). The relative
//! skew part `‖K_r − K_rᵀ‖_F / ‖K_r‖_F` is measured and returned; above
//! [`ModalParams::symmetry_tolerance`] the analysis is refused, below it `K_r` is replaced by its
//! symmetric part `½ (K_r + K_rᵀ)`.
//!
//! # Massless coordinates
//! `𝕄` may be singular (a director beam's `d₃` carries no inertia). On the tangent space that
//! usually disappears (rotations about `d₁`, `d₂` move the inertial directors), but in general
//! `M_r = U diag(μ) Uᵀ` may have zero eigenvalues. The coordinates `y₀ = U₀ᵀ y` with
//! `μ ≤ mass_tolerance · μ_max` carry no inertia, so they follow the others statically
//! (exact static condensation, `K̃₀₀ y₀ = −K̃₀₁ y₁` with `K̃ = Uᵀ K_r U`, pseudo-inverse: massless
//! coordinates without stiffness are undetermined and set to zero). What remains is
//! `(K̃₁₁ − K̃₁₀ K̃₀₀⁺ K̃₀₁) z = ω² diag(μ₁) z`, solved densely (faer) in two passes: the
//! mass-scaled standard eigenproblem for estimates, then a shift-invert form whose round-off is
//! relative to the low frequencies rather than to the highest one (see `inertial_eigenpairs`).
//!
//! # Mode shapes and damping
//! Shapes are returned as `δq = N y` (length `n_q`), mass-normalised (`δqᵀ 𝕄 δq = 1`).
//! For strain elements with a viscosity `𝕍` (Kelvin–Voigt), the linearised viscous force is
//! `D δq̇` with `D = Σ w_g Bᵀ 𝕍 B` at `q*`; the modal damping ratio of mode `k` is
//! `ζ_k = δq_kᵀ D δq_k / (2 ω_k)` (exact for damping that the modes diagonalise, e.g.
//! `𝕍 = τ C` on the strains a mode excites; otherwise the usual diagonal approximation).
//!
//! # Size
//! Everything is dense: the null space comes from a full SVD of `G` (`O(n_q³)`), so the
//! analysis refuses systems with more than [`ModalParams::max_coordinates`] coordinates
//! (default 2000; a few seconds at that size).

use crate::model::ConstrainedSystem;
use crate::model::strain::{StrainScratch, add_bt_c_b};
use faer::{Mat, Side};

/// Options of [`modal_analysis`].
#[derive(Clone, Debug, PartialEq)]
pub struct ModalParams {
    /// Largest `n_q` accepted (the analysis is dense).
    pub max_coordinates: usize,
    /// Time at which the system is evaluated (time functions of the loads), s.
    pub time: f64,
    /// Singular values of `G` below `rank_tolerance · σ_max` count as zero (redundant
    /// constraints).
    pub rank_tolerance: f64,
    /// Eigenvalues of `M_r` below `mass_tolerance · μ_max` count as massless coordinates.
    pub mass_tolerance: f64,
    /// Largest accepted relative skew part of `K_r` (see the module docs).
    pub symmetry_tolerance: f64,
    /// Number of mode shapes to return (lowest first; all frequencies are always returned).
    pub mode_shapes: usize,
}

impl Default for ModalParams {
    fn default() -> Self {
        Self {
            max_coordinates: 2000,
            time: 0.0,
            rank_tolerance: 1e-10,
            mass_tolerance: 1e-12,
            symmetry_tolerance: 1e-8,
            mode_shapes: usize::MAX,
        }
    }
}

/// Result of [`modal_analysis`]: eigenvalues in ascending order with their shapes.
#[derive(Clone, Debug)]
pub struct Modes {
    /// `ω²` (rad²/s²), ascending. Rigid-body modes give values at round-off level around 0;
    /// a clearly negative value marks an unstable equilibrium.
    pub omega_squared: Vec<f64>,
    /// Mass-normalised mode shapes `δq` (length `n_q` each) of the lowest
    /// [`ModalParams::mode_shapes`] modes.
    pub shapes: Vec<Vec<f64>>,
    /// Modal damping ratios `ζ_k` of the returned shapes (zeros without viscosity; NaN for
    /// `ω ≤ 0`).
    pub damping_ratios: Vec<f64>,
    /// Dimension of the tangent space (`n_q − rank G`).
    pub tangent_dimension: usize,
    /// Number of massless coordinates condensed out of the tangent space.
    pub massless: usize,
    /// Relative skew part `‖K_r − K_rᵀ‖_F / ‖K_r‖_F` before symmetrisation.
    pub asymmetry: f64,
    /// `‖Gᵀλ − f‖₂` at the given state (0 at an equilibrium): the linearisation is only
    /// meaningful when this is small against the forces involved.
    pub equilibrium_residual: f64,
    /// `max |Φ|` at the given state.
    pub constraint_residual: f64,
}

impl Modes {
    /// Circular frequencies `ω` (rad/s), signed: `−sqrt(−ω²)` for a negative `ω²`.
    pub fn omega(&self) -> Vec<f64> {
        self.omega_squared
            .iter()
            .map(|&w2| w2.signum() * w2.abs().sqrt())
            .collect()
    }

    /// Frequencies `ω / 2π` (Hz), signed like [`omega`](Self::omega).
    pub fn hertz(&self) -> Vec<f64> {
        self.omega()
            .into_iter()
            .map(|w| w / (2.0 * std::f64::consts::PI))
            .collect()
    }

    /// Number of modes (the dimension of the inertial part of the tangent space).
    pub fn len(&self) -> usize {
        self.omega_squared.len()
    }

    /// True if there is no mode.
    pub fn is_empty(&self) -> bool {
        self.omega_squared.is_empty()
    }
}

/// Why a modal analysis was refused or failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModalError {
    /// The system is larger than the dense analysis accepts.
    #[error(
        "modal analysis is dense and accepts at most {max} coordinates, the system has {n_q}; \
         use fewer elements (or raise ModalParams::max_coordinates knowing that time and memory \
         grow like n_q³ and n_q²)"
    )]
    TooLarge {
        /// Coordinates of the system.
        n_q: usize,
        /// The limit.
        max: usize,
    },
    /// `K_r` is not symmetric: non-conservative loads.
    #[error(
        "the stiffness on the constraint manifold is not symmetric (relative skew part {asymmetry:.2e} \
         > {tolerance:.1e}): non-conservative loads (a dead torque in 3D, follower loads) make the \
         eigenproblem non-self-adjoint; remove them or linearise about an unloaded state"
    )]
    NotSymmetric {
        /// Measured relative skew part.
        asymmetry: f64,
        /// Accepted value.
        tolerance: f64,
    },
    /// No coordinate of the tangent space carries inertia.
    #[error("no coordinate of the constraint manifold carries inertia: there are no modes")]
    NoInertia,
    /// A dense decomposition failed.
    #[error("dense {0} did not converge")]
    Decomposition(&'static str),
}

/// Eigenfrequencies and mode shapes of `sys` linearised at `(q, λ)`, see the module docs.
pub fn modal_analysis<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q: &[f64],
    lambda: &[f64],
    params: &ModalParams,
) -> Result<Modes, ModalError> {
    let (n, nl) = (sys.n_q(), sys.n_lambda());
    if n > params.max_coordinates {
        return Err(ModalError::TooLarge {
            n_q: n,
            max: params.max_coordinates,
        });
    }
    assert!(
        q.len() == n && lambda.len() == nl,
        "q and λ must have n_q and n_λ entries"
    );
    let mut ev = sys.new_point_eval();
    sys.eval(params.time, q, lambda, &mut ev, true);
    // equilibrium residual Gᵀλ − f
    let mut r: Vec<f64> = ev.force.iter().map(|f| -f).collect();
    for (&(e, j), &g) in sys.g_pattern().iter().zip(&ev.g) {
        r[j] += g * lambda[e];
    }
    let equilibrium_residual = r.iter().map(|x| x * x).sum::<f64>().sqrt();
    let constraint_residual = ev.phi.iter().fold(0.0f64, |m, x| m.max(x.abs()));

    let basis = null_space(sys, &ev.g, params.rank_tolerance)?;
    let m = basis.ncols();
    let reduce = |entries: &mut dyn Iterator<Item = (usize, usize, f64)>| -> Mat<f64> {
        // Nᵀ A N for sparse A given by triplets
        let mut an = Mat::<f64>::zeros(n, m);
        for (i, j, v) in entries {
            for c in 0..m {
                an[(i, c)] += v * basis[(j, c)];
            }
        }
        basis.transpose() * &an
    };
    let kr = reduce(
        &mut sys
            .k_pattern()
            .iter()
            .zip(&ev.k)
            .map(|(&(i, j), &v)| (i, j, v)),
    );
    let mr = reduce(&mut sys.mass().iter().copied());
    let (sym, skew) = frobenius_parts(&kr);
    let asymmetry = if sym + skew > 0.0 {
        skew / (sym * sym + skew * skew).sqrt()
    } else {
        0.0
    };
    if asymmetry > params.symmetry_tolerance {
        return Err(ModalError::NotSymmetric {
            asymmetry,
            tolerance: params.symmetry_tolerance,
        });
    }
    let kr = Mat::from_fn(m, m, |i, j| 0.5 * (kr[(i, j)] + kr[(j, i)]));
    let mr = Mat::from_fn(m, m, |i, j| 0.5 * (mr[(i, j)] + mr[(j, i)]));

    // split the tangent space into inertial and massless coordinates
    let me = mr
        .self_adjoint_eigen(Side::Lower)
        .map_err(|_| ModalError::Decomposition("eigendecomposition of the reduced mass"))?;
    let mu: Vec<f64> = (0..m).map(|i| me.S()[i]).collect();
    let mu_max = mu.iter().fold(0.0f64, |a, &b| a.max(b));
    if mu_max <= 0.0 {
        return Err(ModalError::NoInertia);
    }
    let inertial: Vec<usize> = (0..m)
        .filter(|&i| mu[i] > params.mass_tolerance * mu_max)
        .collect();
    let massless: Vec<usize> = (0..m)
        .filter(|&i| mu[i] <= params.mass_tolerance * mu_max)
        .collect();
    let (m1, m0) = (inertial.len(), massless.len());
    let u = me.U();
    let u1 = Mat::from_fn(m, m1, |i, j| u[(i, inertial[j])]);
    let u0 = Mat::from_fn(m, m0, |i, j| u[(i, massless[j])]);
    // y = T z with T = U₁ + U₀ X, X = −K̃₀₀⁺ K̃₀₁ (static condensation of massless coordinates)
    let t = if m0 == 0 {
        u1.clone()
    } else {
        let k00 = u0.transpose() * &kr * &u0;
        let k01 = u0.transpose() * &kr * &u1;
        let k00 = Mat::from_fn(m0, m0, |i, j| 0.5 * (k00[(i, j)] + k00[(j, i)]));
        let pinv = symmetric_pseudo_inverse(&k00)?;
        let x = -(&pinv * &k01);
        &u1 + &u0 * &x
    };
    let kc = t.transpose() * &kr * &t;
    let kc = Mat::from_fn(m1, m1, |i, j| 0.5 * (kc[(i, j)] + kc[(j, i)]));
    let mc = Mat::from_fn(m1, m1, |i, j| if i == j { mu[inertial[i]] } else { 0.0 });
    let (omega_squared, xs) = inertial_eigenpairs(&kc, &mc, params.mode_shapes.min(m1))?;
    let n_shapes = xs.ncols();
    let shapes_mat = &basis * (&t * &xs);
    let shapes: Vec<Vec<f64>> = (0..n_shapes)
        .map(|k| (0..n).map(|i| shapes_mat[(i, k)]).collect())
        .collect();
    let damping = viscous_tangent(sys, q);
    let damping_ratios = shapes
        .iter()
        .zip(&omega_squared)
        .map(|(s, &w2)| {
            if w2 <= 0.0 {
                return f64::NAN;
            }
            let c: f64 = damping.iter().map(|&(i, j, v)| s[i] * v * s[j]).sum();
            c / (2.0 * w2.sqrt())
        })
        .collect();
    Ok(Modes {
        omega_squared,
        shapes,
        damping_ratios,
        tangent_dimension: m,
        massless: m0,
        asymmetry,
        equilibrium_residual,
        constraint_residual,
    })
}

/// Eigenpairs of `K_c x = ω² M_c x` (`M_c` diagonal positive): all `ω²` ascending and the
/// `n_shapes` lowest `M_c`-normalised vectors as columns.
///
/// Two passes (`docs/theory.md`): the values of the mass-scaled matrix
/// `A = M_c^{-1/2} K_c M_c^{-1/2}` carry absolute errors `~ ε ‖A‖`, and `‖A‖` is set by the
/// stiffest, lightest coordinates (shear against a small rotary inertia): for a slender beam
/// that swamps the low frequencies (relative errors 1e-3 were observed for 64 elements). The
/// second pass is a shift-invert: with `s` at the low end of the spectrum (the smallest value
/// of pass 1 that is clearly above its error level), `K_c + s M_c = L Lᵀ` and
/// `L⁻¹ M_c L⁻ᵀ y = θ y`, `θ = 1/(ω² + s)`, `x = L⁻ᵀ y`. Its errors are `~ ε/s` in `θ`, i.e.
/// relative `~ ε (ω² + s)/s` in `ω²`: round-off for the low modes that matter. Where the
/// Cholesky factorisation fails (an unstable equilibrium, `ω² < −s`), pass 1 is returned.
fn inertial_eigenpairs(
    kc: &Mat<f64>,
    mc: &Mat<f64>,
    n_shapes: usize,
) -> Result<(Vec<f64>, Mat<f64>), ModalError> {
    use faer::linalg::triangular_solve::{
        solve_lower_triangular_in_place, solve_upper_triangular_in_place,
    };
    let m1 = kc.nrows();
    let scale: Vec<f64> = (0..m1).map(|i| 1.0 / mc[(i, i)].sqrt()).collect();
    let a = Mat::from_fn(m1, m1, |i, j| kc[(i, j)] * scale[i] * scale[j]);
    let pass1 = a
        .self_adjoint_eigenvalues(Side::Lower)
        .map_err(|_| ModalError::Decomposition("symmetric eigensolver"))?;
    let norm = pass1.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let level = 1e3 * f64::EPSILON * norm;
    let shift = if norm == 0.0 {
        1.0 // K_c = 0: every ω² is 0, any shift gives it exactly
    } else {
        pass1.iter().copied().find(|&w| w > level).unwrap_or(level)
    };
    let kp = Mat::from_fn(m1, m1, |i, j| kc[(i, j)] + shift * mc[(i, j)]);
    let Ok(llt) = kp.llt(Side::Lower) else {
        // pass 1 with vectors
        let ae = a
            .self_adjoint_eigen(Side::Lower)
            .map_err(|_| ModalError::Decomposition("symmetric eigensolver"))?;
        let w2 = (0..m1).map(|i| ae.S()[i]).collect();
        let xs = Mat::from_fn(m1, n_shapes, |i, k| scale[i] * ae.U()[(i, k)]);
        return Ok((w2, xs));
    };
    let l = llt.L();
    // C = L⁻¹ M_c L⁻ᵀ
    let mut y = mc.clone();
    solve_lower_triangular_in_place(l, y.as_mut(), faer::Par::Seq);
    let mut c = y.transpose().to_owned();
    solve_lower_triangular_in_place(l, c.as_mut(), faer::Par::Seq);
    let c = Mat::from_fn(m1, m1, |i, j| 0.5 * (c[(i, j)] + c[(j, i)]));
    let ce = c
        .self_adjoint_eigen(Side::Lower)
        .map_err(|_| ModalError::Decomposition("symmetric eigensolver (shift-invert)"))?;
    // θ ascending ↔ ω² descending
    let w2: Vec<f64> = (0..m1).rev().map(|i| 1.0 / ce.S()[i] - shift).collect();
    let mut xs = Mat::from_fn(m1, n_shapes, |i, k| ce.U()[(i, m1 - 1 - k)]);
    solve_upper_triangular_in_place(l.transpose(), xs.as_mut(), faer::Par::Seq);
    for k in 0..n_shapes {
        let nrm: f64 = (0..m1).map(|i| xs[(i, k)] * xs[(i, k)] * mc[(i, i)]).sum();
        let f = 1.0 / nrm.sqrt();
        for i in 0..m1 {
            xs[(i, k)] *= f;
        }
    }
    Ok((w2, xs))
}

/// Orthonormal basis of the null space of `G` (dense SVD); the identity without constraints.
fn null_space<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    g_values: &[f64],
    rank_tolerance: f64,
) -> Result<Mat<f64>, ModalError> {
    let (n, nl) = (sys.n_q(), sys.n_lambda());
    if nl == 0 {
        return Ok(Mat::identity(n, n));
    }
    let mut g = Mat::<f64>::zeros(nl, n);
    for (&(e, j), &v) in sys.g_pattern().iter().zip(g_values) {
        g[(e, j)] += v;
    }
    let svd = g
        .svd()
        .map_err(|_| ModalError::Decomposition("SVD of the constraint Jacobian"))?;
    let s = svd.S();
    let k = nl.min(n);
    let s_max = (0..k).map(|i| s[i]).fold(0.0f64, f64::max);
    let rank = (0..k).filter(|&i| s[i] > rank_tolerance * s_max).count();
    let v = svd.V();
    Ok(Mat::from_fn(n, n - rank, |i, j| v[(i, rank + j)]))
}

/// Frobenius norms of the symmetric and the skew part of a square matrix.
fn frobenius_parts(a: &Mat<f64>) -> (f64, f64) {
    let m = a.nrows();
    let (mut s, mut w) = (0.0, 0.0);
    for i in 0..m {
        for j in 0..m {
            let (x, y) = (a[(i, j)], a[(j, i)]);
            s += 0.25 * (x + y) * (x + y);
            w += 0.25 * (x - y) * (x - y);
        }
    }
    (s.sqrt(), w.sqrt())
}

/// Pseudo-inverse of a symmetric matrix (eigenvalues below `1e-12 ·` the largest magnitude
/// count as zero).
fn symmetric_pseudo_inverse(a: &Mat<f64>) -> Result<Mat<f64>, ModalError> {
    let m = a.nrows();
    let e = a
        .self_adjoint_eigen(Side::Lower)
        .map_err(|_| ModalError::Decomposition("eigendecomposition of the massless stiffness"))?;
    let s: Vec<f64> = (0..m).map(|i| e.S()[i]).collect();
    let smax = s.iter().fold(0.0f64, |a, &b| a.max(b.abs()));
    let inv: Vec<f64> = s
        .iter()
        .map(|&x| if x.abs() > 1e-12 * smax { 1.0 / x } else { 0.0 })
        .collect();
    let u = e.U();
    let ud = Mat::from_fn(m, m, |i, j| u[(i, j)] * inv[j]);
    Ok(&ud * u.transpose())
}

/// Triplets of `D = Σ w_g Bᵀ 𝕍 B` over the viscous strain elements at `q`.
fn viscous_tangent<S: ConstrainedSystem + ?Sized>(sys: &S, q: &[f64]) -> Vec<(usize, usize, f64)> {
    let mut out = Vec::new();
    let n_loc = sys
        .strain_slots()
        .iter()
        .map(|s| s.element.n_loc())
        .max()
        .unwrap_or(0);
    let mut scratch = StrainScratch::new(n_loc);
    let mut pi = [0.0; 6];
    for slot in sys.strain_slots() {
        let el = slot.element.as_ref();
        let nl = el.n_loc();
        let q_loc = &mut scratch.q_loc[..nl];
        for (x, &i) in q_loc.iter_mut().zip(&slot.indices) {
            *x = q[i];
        }
        let d = &mut scratch.k[..nl * nl];
        d.fill(0.0);
        let mut any = false;
        for g in 0..el.n_points() {
            if let Some(v) = el.viscosity(g) {
                any = true;
                let b = &mut scratch.b[..6 * nl];
                el.strains_into(g, q_loc, &mut pi, Some(b));
                add_bt_c_b(b, v, b, el.weight(g), &mut scratch.cb[..6 * nl], d);
            }
        }
        if any {
            for (a, &i) in slot.indices.iter().enumerate() {
                for (c, &j) in slot.indices.iter().enumerate() {
                    let v = d[a * nl + c];
                    if v != 0.0 {
                        out.push((i, j, v));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::strain::test_elements::Spring;
    use crate::model::{
        Deformable, JointBody, Load, LoadKind, MassProperties, MultibodySystem, Rigid, RigidBody,
        Spherical, StrainElement, TimeFunction,
    };
    use crate::solve::consistent::consistent_multiplier;

    const I3: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

    /// A box (edges a, b, c along d1, d2, d3) hanging under gravity from a spherical joint at
    /// the centre of its top face: the compound pendulum swings about d1 and d2 with
    /// `ω² = m g l / J_O` (`l = c/2` the distance of the centroid from the pivot, `J_O` the
    /// moment of inertia about the swing axis through the pivot) and spins freely about the
    /// vertical (ω = 0). The gravity stiffness lives entirely in the multiplier-weighted
    /// Hessian of the orthonormality constraints.
    #[test]
    fn compound_pendulum_frequencies() {
        let (a, b, c, rho, g) = (0.3, 0.2, 1.0, 7.0, 9.81);
        let mass = MassProperties::from_box([a, b, c], rho, [0.0, 0.0, c / 2.0]);
        let m = mass.mass;
        let body = RigidBody {
            name: "box".into(),
            mass,
            position: [0.0; 3],
            directors: I3,
            velocity: [0.0; 3],
            director_velocities: [[0.0; 3]; 3],
        };
        let joint = Spherical::new(JointBody::Body(0), [0.0; 3], JointBody::Ground, [0.0; 3]);
        let gravity = Load {
            body: 0,
            kind: LoadKind::BodyForce([0.0, 0.0, -g]),
            time_function: TimeFunction::Constant,
        };
        let sys = MultibodySystem::new(vec![body], vec![gravity], vec![Box::new(joint)]).unwrap();
        // at rest in equilibrium the multipliers of the acceleration-level constraint are the
        // static ones (Newton statics would start from a singular tangent: K = 0 at λ = 0)
        let (q0, v0) = sys.initial_state();
        let lambda = consistent_multiplier(&sys, 0.0, &q0, &v0).unwrap();
        let modes = modal_analysis(&sys, &q0, &lambda, &ModalParams::default()).unwrap();
        assert_eq!(modes.tangent_dimension, 3);
        assert_eq!(modes.len(), 3);
        assert!(modes.equilibrium_residual < 1e-10);
        let l = c / 2.0;
        // about d1 (swing in the d2-d3 plane): J = m (b² + c²)/12 + m l²
        let w1 = (m * g * l / (m * (b * b + c * c) / 12.0 + m * l * l)).sqrt();
        let w2 = (m * g * l / (m * (a * a + c * c) / 12.0 + m * l * l)).sqrt();
        let w = modes.omega();
        assert!(w[0].abs() < 1e-6, "spin mode {}", w[0]);
        let (lo, hi) = (w1.min(w2), w1.max(w2));
        assert!((w[1] - lo).abs() < 1e-10 * lo, "{} vs {lo}", w[1]);
        assert!((w[2] - hi).abs() < 1e-10 * hi, "{} vs {hi}", w[2]);
        // mass-normalised shapes in the tangent space
        let mut mq = vec![0.0; 12];
        for s in &modes.shapes[1..] {
            sys.momentum_into(s, &mut mq);
            let norm: f64 = s.iter().zip(&mq).map(|(a, b)| a * b).sum();
            assert!((norm - 1.0).abs() < 1e-10);
        }
    }

    /// Two springs in series between a clamped frame A, a frame B whose placement carries no
    /// mass (its directors do) and a frame C of mass `m`: the axial mode has
    /// `ω² = k_eff / m`, `1/k_eff = 1/k₁ + 1/k₂` (axial spring stiffness `k L²` for the strain
    /// `½(|d|² − L²)`). Exercises the static condensation of massless coordinates.
    #[test]
    fn springs_in_series_with_a_massless_node() {
        let (l1, l2, c1, c2, m) = (1.0, 2.0, 30.0, 5.0, 1.5);
        let mut q = vec![0.0; 36];
        for (f, x) in [0.0, l1, l1 + l2].iter().enumerate() {
            q[12 * f] = *x;
            for i in 0..3 {
                q[12 * f + 3 + 4 * i] = 1.0;
            }
        }
        let mut mass = Vec::new();
        for f in 0..3 {
            for k in 0..3 {
                if f != 1 {
                    mass.push((12 * f + k, 12 * f + k, m));
                }
                for i in 0..3 {
                    mass.push((12 * f + 3 + 3 * i + k, 12 * f + 3 + 3 * i + k, 0.1));
                }
            }
        }
        let s1: Box<dyn StrainElement> = Box::new(Spring::new(l1, c1, None));
        let s2: Box<dyn StrainElement> = Box::new(Spring::new(l2, c2, Some(0.3)));
        let part = Deformable {
            name: "springs".into(),
            n_frames: 3,
            initial_q: q.clone(),
            initial_v: vec![0.0; 36],
            mass,
            elements: vec![(s1, (0..24).collect()), (s2, (12..36).collect())],
            loads: Vec::new(),
        };
        let clamp = Rigid::new(0, JointBody::Ground, &q[..12], &[]);
        let sys =
            MultibodySystem::with_deformables(vec![], vec![part], vec![], vec![Box::new(clamp)])
                .unwrap();
        let lam = vec![0.0; sys.n_lambda()];
        let modes = modal_analysis(&sys, &q, &lam, &ModalParams::default()).unwrap();
        // tangent space: 2 free frames × 6; B's translation is massless
        assert_eq!(modes.tangent_dimension, 12);
        assert_eq!(modes.massless, 3);
        let (k1, k2) = (c1 * l1 * l1, c2 * l2 * l2);
        let want = (k1 * k2 / (k1 + k2) / m).sqrt();
        let w = modes.omega();
        let nonzero: Vec<f64> = w.iter().copied().filter(|x| x.abs() > 1e-6).collect();
        assert_eq!(nonzero.len(), 1, "{w:?}");
        assert!(
            (nonzero[0] - want).abs() < 1e-12 * want,
            "{nonzero:?} vs {want}"
        );
        // damping of the axial mode: only spring 2 is viscous, η on π = ½(|d|² − L²):
        // D = η L₂² on the stretch of spring 2, which is k₁/(k₁ + k₂) of C's displacement.
        let k = w.iter().position(|x| x.abs() > 1e-6).unwrap();
        let u = modes.shapes[k][24]; // C's axial displacement, u² m = 1
        let stretch2 = u * k1 / (k1 + k2);
        let zeta = 0.3 * l2 * l2 * stretch2 * stretch2 / (2.0 * want);
        assert!((modes.damping_ratios[k] - zeta).abs() < 1e-10 * zeta);
    }

    #[test]
    fn refuses_large_systems_and_unsymmetric_stiffness() {
        let body = |x: f64| RigidBody {
            name: "b".into(),
            mass: MassProperties::from_box([1.0, 1.0, 1.0], 1.0, [0.0; 3]),
            position: [x, 0.0, 0.0],
            directors: I3,
            velocity: [0.0; 3],
            director_velocities: [[0.0; 3]; 3],
        };
        let sys = MultibodySystem::new(vec![body(0.0), body(2.0)], vec![], vec![]).unwrap();
        let (q, _) = sys.initial_state();
        let lam = vec![0.0; sys.n_lambda()];
        let small = ModalParams {
            max_coordinates: 12,
            ..Default::default()
        };
        assert!(matches!(
            modal_analysis(&sys, &q, &lam, &small),
            Err(ModalError::TooLarge { n_q: 24, max: 12 })
        ));
        // free bodies: 12 rigid modes at zero
        let modes = modal_analysis(&sys, &q, &lam, &ModalParams::default()).unwrap();
        assert_eq!(modes.len(), 12);
        assert!(modes.omega_squared.iter().all(|w| w.abs() < 1e-12));
        // a dead torque on a body held by a spherical joint at a point off its centre: the
        // director load stiffness ½ skew(m) is not symmetric on the tangent space
        let joint = Spherical::new(
            JointBody::Body(0),
            [0.5, 0.0, 0.0],
            JointBody::Ground,
            [0.5, 0.0, 0.0],
        );
        let torque = Load {
            body: 0,
            kind: LoadKind::Torque([0.0, 0.0, 1.0]),
            time_function: TimeFunction::Constant,
        };
        let sys =
            MultibodySystem::new(vec![body(0.0)], vec![torque], vec![Box::new(joint)]).unwrap();
        let (q, _) = sys.initial_state();
        let lam = vec![0.0; sys.n_lambda()];
        let err = modal_analysis(&sys, &q, &lam, &ModalParams::default()).unwrap_err();
        assert!(matches!(err, ModalError::NotSymmetric { .. }), "{err}");
    }
}
