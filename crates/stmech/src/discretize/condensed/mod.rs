//! One Petrov–Galerkin time element, cG(p), with the velocities eliminated: the Newton unknowns
//! are the configurations `q_1 … q_p` of the element's new time nodes, as increments
//! `Δq_B = q_B − q_0` (see below), and the multipliers `λ_0 … λ_{p−1}`, 18 instead of 30 values
//! per 12-coordinate frame and time node.
//!
//! The velocity rows of [`super::petrov_galerkin`] are linear with constant coefficients:
//!
//! ```text
//! R_v^k = ∫ ψ_k (q̇_h − v_h) dt = Σ_A D_kA q_A − h Σ_A C_kA v_A,
//!         C_kA = ∫₀¹ ψ_k N_A dτ,   D_kA = ∫₀¹ ψ_k N_A′ dτ,    k = 0..p−1, A = 0..p,
//! ```
//!
//! so `R_v = 0` gives the new nodal velocities exactly, `v_B = (1/h) Σ_A α_BA q_A + β_B v_0`
//! (`α = Ĉ⁻¹ D`, `β = −Ĉ⁻¹ C_{·0}`, `Ĉ = C_{·,1..p}`, invertible), and they enter the other
//! rows only through `∫ ψ_k 𝕄 v̇_h dt = 𝕄 Σ_A D_kA v_A = 𝕄 ((1/h) Σ_B E_kB q_B + F_k v_0)`,
//! `E = D_{·,1..p} α`, `F = D_{·0} + D_{·,1..p} β`. Substituting is exact: the discrete solution
//! is the one of the full form whenever the full form's quadrature integrates its velocity
//! rows exactly (`n ≥ p` Gauss points, the default; [`CondensedElement::applies`]). Every other
//! term (`Gᵀλ − f`, `G q̇ + ∂Φ/∂t`, the enhanced strains of [`super::strain_time`]) is the full
//! form's, evaluated with the same quadrature.
//!
//! In floating point the form matters. The rows of `α` and `E` sum to zero (`Σ_A N_A′ = 0`), but
//! their computed values only to round-off (~1e-15 for p ≥ 2), and the unknowns `q_B`
//! themselves are only resolved to `ε |q|`. Written with the absolute positions, the velocities
//! carry errors `~ε |q| / h` and the inertia rows a spurious force `~ε 𝕄 q / h²`, systematic
//! for the coefficient sums: the solution drifts away from the full form's (whose velocities
//! are unknowns) by far more than the Newton tolerance, and its residual cannot be lowered
//! below `~ε |𝕄 E q| / h`. Hence everything is written with the increments,
//! `v_B = (1/h) Σ_{A≥1} α_BA Δq_A + β_B v_0`, `𝕄 ((1/h) Σ_B E_kB Δq_B + F_k v_0)`,
//! `q_h = q_0 + Σ_{B≥1} N_B Δq_B`, `q̇_h = (1/h) Σ_{B≥1} N_B′ Δq_B`, accurate to `ε |Δq|`,
//! and the increments are the unknowns (the strain elements get the positions `q_0 + Δq_B`).
//!
//! Unknowns are numbered frame by frame (the 12 coordinates of a frame at every new node and the
//! multipliers of the constraints whose last frame it is, together), with the frames in reverse
//! Cuthill–McKee order of their coupling graph: a beam's Jacobian is then banded, with a band of
//! a few frames whatever the numbering of bodies and beams in the system.
//!
//! The strain elements of a large model are evaluated in parallel (rayon) in batches, each into
//! its own buffer, and added in element order, so every sum is the serial one: results are
//! identical to the bit for any number of threads.
//!
//! Stages: `coefficients` (the constant coefficients of the elimination), `build` (numbering
//! and sparsity pattern, [`CondensedElement::new`]), `assembly` (residual, Jacobian and the
//! stop criterion).

use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::discretize::pattern::CscPattern;
use crate::discretize::strain_time::{SlotTerms, StrainTime, StrainTimeScratch};
use crate::model::{ConstrainedSystem, PointEval};

mod assembly;
mod build;
pub use build::PARALLEL_SETUP_MIN;
mod coefficients;
mod layout;
#[cfg(test)]
mod tests;

/// Strain elements per parallel batch (bounds the buffers: a batch of quadratic beam elements
/// with p = 1 holds about 1.4 MB of local tangents).
const STRAIN_BATCH: usize = 128;

/// Fewest strain elements for which their evaluation is spread over threads (below, the
/// thread hand-over costs more than it saves).
pub const PARALLEL_MIN_STRAIN_ELEMENTS: usize = 24;

/// The strain elements' part of the element: constants, positions and scratch.
struct StrainPart {
    st: StrainTime,
    /// Per slot: offset into `pos` (blocks `(k, B)`, `B = 1..=p`, of `n_loc²` each).
    pos_offset: Vec<usize>,
    pos: Vec<u32>,
    sc: StrainTimeScratch,
    terms: SlotTerms,
    local: Vec<f64>,
    /// Batch buffers of the parallel path: per slot its local nodes and terms.
    batch: Vec<(Vec<f64>, SlotTerms)>,
    dissipated: f64,
}

/// One condensed Petrov–Galerkin time element (see the module docs).
pub struct CondensedElement<'s, S: ConstrainedSystem + ?Sized> {
    sys: &'s S,
    p: usize,
    h: f64,
    nq: usize,
    nl: usize,
    trial: LagrangeBasis,
    test: LagrangeBasis,
    quad: GaussLegendre,
    /// `v_B = (1/h) Σ_{A≥1} alpha[(B−1)(p+1) + A] Δq_A + beta[B−1] v_0` (`A = 0` unused).
    alpha: Vec<f64>,
    beta: Vec<f64>,
    /// `𝕄 v̇` rows: `e_coef[k (p+1) + B]` (`B = 0` unused), `f_coef[k]`.
    e_coef: Vec<f64>,
    f_coef: Vec<f64>,
    /// Unknown of coordinate `i` of node `a + 1` (its increment `Δq`): `q_col[a nq + i]`.
    q_col: Vec<u32>,
    /// Unknown of multiplier row `e` of `λ_m`: `l_col[m nl + e]`.
    l_col: Vec<u32>,
    /// Test function (residual slot) of each unknown's row.
    slot_of: Vec<u32>,
    pattern: CscPattern,
    /// Jacobian values that do not change (`(E_kB/h) 𝕄`), pattern order.
    base_values: Vec<f64>,
    /// Positions of the point `K` in blocks `(k, B−1)`.
    pos_k: Vec<u32>,
    /// Positions of `R_λ/q` (`G` pattern) in blocks `(k, B−1)`.
    pos_g: Vec<u32>,
    /// Positions of `R_q/λ` (`Gᵀ`) in blocks `(k, m)`.
    pos_gt: Vec<u32>,
    /// `𝕄` by rows: `mass_ptr[i]..mass_ptr[i + 1]` into `mass_col`, `mass_val`.
    mass_ptr: Vec<usize>,
    mass_col: Vec<u32>,
    mass_val: Vec<f64>,
    /// `G` by rows: `g_ptr[e]..g_ptr[e + 1]` into `g_idx` (position in the `G` pattern) and
    /// `g_col` (its column).
    g_ptr: Vec<usize>,
    g_idx: Vec<u32>,
    g_col: Vec<u32>,
    breakpoints: Vec<f64>,
    use_point_k: bool,
    ev: PointEval,
    // scratch
    /// `q_A`, `A = 0..=p`, node by node.
    qn: Vec<f64>,
    /// `Δq_B = q_B − q_0`, `B = 1..=p`, node by node.
    dq: Vec<f64>,
    lam: Vec<f64>,
    rq: Vec<f64>,
    rl: Vec<f64>,
    /// Magnitudes of the terms of `rq`, `rl` (the Newton stop, `solve::newton::measure`).
    mq: Vec<f64>,
    ml: Vec<f64>,
    /// Floor basis of `rq`, `rl`: `Σ |∂r/∂q_h| |q_h|` with the absolute positions `q_h` at
    /// the quadrature points (the increments themselves carry no round-off of the origin).
    phq: Vec<f64>,
    phl: Vec<f64>,
    /// Whether an assembly with a Jacobian forms the floor basis ([`Self::set_floor`]).
    floor: bool,
    /// Magnitudes and floor basis of the last residual, unknowns order.
    mag: Vec<f64>,
    phi: Vec<f64>,
    /// Equation group of every row (`discretize::petrov_galerkin::slot_groups`' numbers).
    groups: Vec<u8>,
    gq_mag: Vec<f64>,
    /// Per point: `Σ_j |K_ij| |q_h,j|` and `Σ_j |∂(G q̇)/∂q_ej| |q_h,j|`.
    kq: Vec<f64>,
    gvq: Vec<f64>,
    /// Per point: the largest `|q_h|` of the kind (position or director) of every coordinate.
    xcol: Vec<f64>,
    fields: Vec<f64>,
    rgen: Vec<f64>,
    gq: Vec<f64>,
    n_buf: Vec<f64>,
    dn_buf: Vec<f64>,
    psi: Vec<f64>,
    dpsi: Vec<f64>,
    subs: Vec<(f64, f64)>,
    strain: Option<StrainPart>,
    parallel_min: usize,
}

impl<'s, S: ConstrainedSystem + ?Sized> CondensedElement<'s, S> {
    /// Whether the condensed element reproduces the full Petrov–Galerkin element with
    /// `quad_points` Gauss points: the velocity rows (degree `2p − 1`) must be integrated
    /// exactly, `quad_points ≥ p`.
    pub fn applies(order: usize, quad_points: usize) -> bool {
        order >= 1 && quad_points >= order
    }

    /// Evaluates the strain elements on the calling thread only (`n = usize::MAX`) or in
    /// parallel from `n` elements on (default [`PARALLEL_MIN_STRAIN_ELEMENTS`]). The results
    /// are the same to the bit either way.
    pub fn set_parallel_min(&mut self, n: usize) {
        self.parallel_min = n;
    }

    /// Sparsity pattern of the Jacobian (frame-wise numbering).
    pub fn pattern(&self) -> &CscPattern {
        &self.pattern
    }

    /// Number of unknowns `p (n_q + n_λ)`.
    pub fn n_unknowns(&self) -> usize {
        self.pattern.n
    }

    /// Order `p`.
    pub fn order(&self) -> usize {
        self.p
    }

    /// Element length `h`.
    pub fn h(&self) -> f64 {
        self.h
    }

    /// Sets `q` of node `a = 1..=p` in the unknowns (which hold `q − q0`) of the element
    /// starting at `q0`.
    pub fn set_node(&self, x: &mut [f64], a: usize, q0: &[f64], q: &[f64]) {
        for ((&c, &v), &v0) in self.q_col[(a - 1) * self.nq..a * self.nq]
            .iter()
            .zip(q)
            .zip(q0)
        {
            x[c as usize] = v - v0;
        }
    }

    /// `q` of node `a = 1..=p` from the unknowns of the element starting at `q0`.
    pub fn node_into(&self, x: &[f64], a: usize, q0: &[f64], q: &mut [f64]) {
        for ((o, &c), &v0) in q
            .iter_mut()
            .zip(&self.q_col[(a - 1) * self.nq..a * self.nq])
            .zip(q0)
        {
            *o = v0 + x[c as usize];
        }
    }

    /// Sets every multiplier `λ_m` to `lambda`.
    pub fn set_multipliers(&self, x: &mut [f64], lambda: &[f64]) {
        for m in 0..self.p {
            for (&c, &v) in self.l_col[m * self.nl..(m + 1) * self.nl]
                .iter()
                .zip(lambda)
            {
                x[c as usize] = v;
            }
        }
    }

    /// `λ_h` at the reference coordinate `τ ∈ [0, 1]`.
    pub fn multiplier(&mut self, x: &[f64], tau: f64, out: &mut [f64]) {
        self.test.eval_into(tau, &mut self.psi, &mut self.dpsi);
        out.fill(0.0);
        for m in 0..self.p {
            let w = self.psi[m];
            for (o, &c) in out
                .iter_mut()
                .zip(&self.l_col[m * self.nl..(m + 1) * self.nl])
            {
                *o += w * x[c as usize];
            }
        }
    }

    /// Velocity `v_a` of node `a = 1..=p` (exact solution of the velocity rows) from the
    /// element's start velocity `v0` and the unknowns.
    pub fn velocity_into(&self, v0: &[f64], x: &[f64], a: usize, v: &mut [f64]) {
        let np = self.p + 1;
        let al = &self.alpha[(a - 1) * np + 1..a * np];
        let inv_h = 1.0 / self.h;
        let b = self.beta[a - 1];
        for (i, o) in v.iter_mut().enumerate() {
            let mut s = 0.0;
            for (cb, bn) in al.iter().enumerate() {
                s += bn * x[self.q_col[cb * self.nq + i] as usize];
            }
            *o = inv_h * s + b * v0[i];
        }
    }

    /// Whether the correction `dx` of the unknowns `x` (increments from `q0`, multipliers) is
    /// at the round-off level of the absolute coordinates `q0 + Δq`, positions and directors
    /// separately (multipliers left out).
    pub fn increments_at_round_off(&self, q0: &[f64], x: &[f64], dx: &[f64]) -> bool {
        let (mut dp, mut xp, mut dd, mut xd) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (k, &c) in self.q_col.iter().enumerate() {
            let i = k % self.nq;
            let (xa, d) = ((q0[i] + x[c as usize]).abs(), dx[c as usize].abs());
            if i % 12 < 3 {
                xp = xp.max(xa);
                dp = dp.max(d);
            } else {
                xd = xd.max(xa);
                dd = dd.max(d);
            }
        }
        let tol = crate::solve::newton::assembled::ROUND_OFF_CORRECTION * f64::EPSILON;
        dp <= tol * xp && dd <= tol * xd
    }

    /// Magnitudes of the terms of the last residual of [`assemble`](Self::assemble)
    /// (`solve::newton::measure`; [`assemble_measured`](Self::assemble_measured) writes them to
    /// its caller instead).
    pub fn magnitudes(&self) -> &[f64] {
        &self.mag
    }

    /// Floor basis of the last residual assembled with its Jacobian: the sensitivity of every
    /// row to the absolute positions it is computed from, `Σ |∂r_i/∂q_h| |q_h|`
    /// (`solve::newton::measure`; the increments, the unknowns, carry no round-off of the
    /// origin, so `|J| |x|` would miss it and `|J| |q|` overstate the rows of `q̇`).
    pub fn floor_basis(&self) -> &[f64] {
        &self.phi
    }

    /// Whether the next assemblies with a Jacobian form the floor basis (default: yes); when
    /// not, [`floor_basis`](Self::floor_basis) keeps the last one formed.
    pub fn set_floor(&mut self, on: bool) {
        self.floor = on;
    }

    /// The equation group of every row (the numbers of
    /// [`crate::discretize::petrov_galerkin::slot_groups`]; no velocity rows).
    pub fn row_groups(&self) -> &[u8] {
        &self.groups
    }

    /// Energy dissipated by the viscous stresses of the strain elements at the last
    /// [`assemble`](Self::assemble) (J; zero without viscosity).
    pub fn dissipated(&self) -> f64 {
        self.strain.as_ref().map_or(0.0, |s| s.dissipated)
    }
}
