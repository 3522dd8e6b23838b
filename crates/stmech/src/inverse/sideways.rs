//! Sideways block elimination, streamed: the Newton iteration of the space-time inverse problem
//! in `O(n_s n_t)` operations and `O(n_t)` storage besides the solution vectors, by assembling
//! and eliminating one space column at a time from the tip `s = L` to the base `s = 0`.
//!
//! # Why the Jacobian is block triangular
//! The inverse problem carries its data from the tip to the base ([`super::mesh_ratio`]): both
//! Cauchy data are known at `s = L`, and the actuation is the output at `s = 0`. The discrete
//! equations inherit this. Write `D_t`, `M_t` for the time operators of the test functions
//! `N_j(t)`, `j = 1..n_t` (`∫ N_j ∂t N_k`, `∫ N_j N_k`; the `t = 0` values are known), `M_s` for
//! the consistent space mass matrix. Then (element docs, [`super::element`]):
//!
//! ```text
//! R1 = (M_s ⊗ I)(D_t x − M_t v)                          kinematics, exact quadrature
//! R2_i = A (M_s D_t v)_i + K_i(x_{i−1}, x_i, x_{i+1})      space node i; + boundary terms
//! R3 = M_t x_{n_s} − ∫ N γ                                 servo constraint
//! ```
//!
//! `M_s` is invertible, so `R1 = 0` is equivalent to the *lumped* form
//! `y_i = D_t x_i − M_t v_i = 0` at every space node: the same discrete solution, other rows.
//! With these rows and the unknowns ordered from the tip,
//!
//! ```text
//! rows  [R3; R1_ns]  [R2_ns; R1_(ns−1)]  …  [R2_1; R1_0]  R2_0
//! cols  (x,v)_ns     (x,v)_(ns−1)        …  (x,v)_0       F
//! ```
//!
//! the Jacobian is block *lower triangular*: `R2_i` involves the columns `i + 1`, `i`, `i − 1`
//! only, so once the columns `i + 1` and `i` are known, `R2_i` and `R1_(i−1)` determine column
//! `i − 1`. Each diagonal block couples the time levels `j − 1, j, j + 1` only: a banded
//! matrix of half-bandwidth 9 for the `6 n_t` unknowns of a space column, solved by
//! [`FixedBandLu`] with partial pivoting. The whole Newton step costs `O(n_s n_t)` instead of
//! the `O((n_s n_t)^{3/2})` and more of a general sparse LU on the two-dimensional grid.
//!
//! # Streaming: nothing of the Jacobian is stored
//! Only the stiffness part of `R2` is nonlinear. At each of the two stiffness points of an
//! element (`s` at the element middle, `τ_g = ½ ∓ 1/(2√3)` in time, weight `w = ½ h_s h_t`) the
//! element needs the generalised stresses `g = (n1, n2, −r'×n, M)` and their Hessian `H = ∂g/∂e`
//! in the strain variables `e = (r1', r2', θ, θ')` ([`BilinearElement::stress_point`]):
//! 14 numbers (for the string of issue 17, `e = (r1', r2', r3, r3')` and `H` couples `r3'` with
//! `r1'`, `r2'`: the entries `h03, h13` of [`HESSIAN_LEN`]; the elimination is the same). With `T_0 = 1 − τ`, `T_1 = τ`, `σ = ∓1` for the left and right node of the
//! element and `δe(σ) du = (σ du_1 / h_s, σ du_2 / h_s, ½ du_3, σ du_3 / h_s)`:
//!
//! ```text
//! R2(node a) ⊃ Σ_g w T_a(τ_g) δe(σ_a)ᵀ g                         residual
//! ∂R2(a)/∂x(b) = Σ_g w T_a(τ_g) T_b(τ_g) δe(σ_a)ᵀ H δe(σ_b)       3 × 3 block
//! ```
//!
//! The rest is linear with constant coefficients and needs no storage: the inertia
//! `A M_s ⊗ D_t` (and the tip law `M_tip D_t`), the lumped kinematics `D_t`, `M_t`, the actuation
//! `−M_t` and the servo rows `M_t`. A Newton pass therefore marches from the tip: for the
//! column `i` it evaluates the stress points of the element column `i − 1`, assembles the
//! residual `R2_i`, the lumped residual `y_{i−1}` and the banded block of column `i − 1`,
//! factorises it, and solves for the update of column `i − 1` with the right-hand side
//! `R2_i − (∂R2_i/∂u_i) du_i − (∂R2_i/∂u_{i+1}) du_{i+1}`, the known couplings applied
//! matrix-free (strain increments `δe` of the known updates, `δg = H δe`, scattered like `g`).
//! Storage: the stress points of the element columns and the factorised band, residual and
//! lumped residual of the node columns in flight (`≈ 250 n_t` values per column, `2 BATCH`
//! columns), whatever `n_s`.
//!
//! # Parallel, deterministic
//! Everything but the substitution depends on the current iterate only: the stress points, the
//! residual, the banded block and its factorisation. Columns are processed in batches of
//! [`BATCH`]; while one batch is substituted (column after column, one thread), the next one
//! is prepared: the stress points of its element columns, then the residual, band and
//! factorisation of its node columns, each column by one thread (rayon `join` and parallel
//! iterators). No sum is split between threads and every column is computed in a fixed order,
//! so the result is the same to the bit for any number of threads (`tests/parallel_assembly.rs`).
//!
//! # Newton
//! A pass evaluates the residual (its largest entry is the convergence test) and, in the same
//! march, solves for the Newton update. Where the residual is expected to be below the
//! tolerance already (quadratic convergence predicted from the last two residuals, with a
//! margin of 10), a residual-only pass
//! (stress points without Hessian, no band) checks it first: the last Newton step is not
//! solved for nothing. A step that inverts an element is halved, up to 5 times, as by the
//! general Newton of [`super::solver`].
//!
//! # Stability
//! The elimination is the sideways marching itself, so it amplifies errors like the
//! sideways problem does. Under the mesh-ratio condition `μ ≤ 2` every sideways mode of the
//! lumped system is neutral (`|z| = 1`, [`super::mesh_ratio`]; the `p(z) = 0` modes of the
//! analysis, the growing ones, are those of `M_s` in `R1`, which the lumped rows remove), so
//! the march does not amplify round-off. `tests/inverse_verification.rs` compares it with
//! faer's sparse LU on the same Newton systems; every pass reports the largest residual of the
//! eliminated rows, `max |J du − r|` (lumped `R1`).

use super::element::{BilinearElement, ElementError, HESSIAN_LEN, PointLaw};
use crate::basis::GaussLegendre;
use crate::error::SolveError;
use crate::solve::banded::FixedBandLu;
use rayon::prelude::*;
use std::time::Instant;

/// Node columns per batch: their stress points, residuals and banded factorisations are
/// computed in parallel while the batch before is substituted. Fixed (not the thread count), so
/// that the storage does not depend on the machine; results do not depend on it at all. Two
/// batches are in flight; 2 (rather than 4) keeps their factors in cache and costs 5 % less
/// time on one thread.
pub(super) const BATCH: usize = 2;

/// Half-bandwidth of a column's banded block: 6 unknowns `(x, v)` per level, rows `(R2, R1)`
/// per level coupling the levels `j − 1, j, j + 1`; the widest reach is `R1(j, c)` to
/// `x(j − 1, c)` (9 below) and `R2(j, c)` to `v(j + 1, c)` (9 above).
const KL: usize = 9;

/// The banded block of one column.
type Band = FixedBandLu<KL, KL>;

/// Stresses and Hessian at one stiffness point, premultiplied by its weight `w`.
#[derive(Clone, Copy, Debug, Default)]
struct Point {
    /// `w g`.
    g: [f64; 4],
    /// `w (h00, h01, h11, h02, h12, h22, h33, h03, h13, h23)`.
    h: [f64; HESSIAN_LEN],
}

/// Values of the Jacobian a Newton pass holds at a time on a mesh with `nt` time elements,
/// whatever the number of space elements: the factorised bands (`U` with `2 KL` entries
/// right of the diagonal, `KL` multipliers, reciprocal pivot, pivot index) and the residual,
/// lumped residual and known couplings of the `2 BATCH` node columns in flight, and the
/// stress points (14 values each, 2 per element) of their `2 (BATCH + 1)` element columns.
pub(crate) fn stored_values(nt: usize) -> usize {
    let band = 6 * nt * (Band::ROW + KL + 2);
    let column = band + 9 * nt;
    let element_column = 2 * nt * (4 + HESSIAN_LEN);
    2 * (BATCH * column + (BATCH + 1) * element_column)
}

/// The inverse problem on one mesh, as the streamed elimination needs it.
pub(super) struct Problem<'a, L> {
    /// The element (its point law).
    pub element: &'a BilinearElement<L>,
    /// Space elements.
    pub ns: usize,
    /// Time elements.
    pub nt: usize,
    /// Space step.
    pub hs: f64,
    /// Time step.
    pub ht: f64,
    /// `A = (ρA, ρA, ρI)` (beam), `(ρA, ρA, ρA)` (string).
    pub inertia: [f64; 3],
    /// Constant distributed load `q` per unit length (gravity `ρA g` of the string; N/m).
    pub load: [f64; 3],
    /// Constant force on the tip (the payload's weight `m g`; N).
    pub tip_load: [f64; 3],
    /// Tip law `M_tip = (m, m, J)` (zero for a free end).
    pub tip_mass: [f64; 3],
    /// `x` at `t_start` per space node (`v = 0` there).
    pub x0: &'a [[f64; 3]],
    /// `F(t_start)`.
    pub f0: [f64; 3],
    /// `∫ N_j γ dt` for `j = 1..=n_t` (the known part of `R3`).
    pub gamma: Vec<[f64; 3]>,
}

/// What a pass computes besides the update.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pass {
    /// Largest residual entry (consistent `R1`, `R2`, `R3`).
    pub norm: f64,
    /// Largest `|J du − r|` of the eliminated rows (lumped `R1`), full passes only.
    pub mismatch: f64,
    /// Seconds in the stress points (element kernels).
    pub kernel_seconds: f64,
    /// Seconds in the columns (residual, band, factorisation, substitution).
    pub column_seconds: f64,
}

/// Why a pass stopped.
#[derive(Debug)]
pub(super) enum PassError {
    /// An element is inverted at the iterate.
    Element(ElementError),
    /// A banded block is singular.
    Linear(SolveError),
}

/// The streamed sideways elimination for one mesh: the problem, the time rule and the
/// per-column work storage (`O(n_t)`).
pub(super) struct Sideways<'a, L> {
    p: Problem<'a, L>,
    /// `T_it(τ_g)` at `[g][it]`.
    tg: [[f64; 2]; 2],
    /// Weight of a stiffness point, `w = ½ h_s h_t` (`1 × ½` on the unit square).
    w: [f64; 2],
    /// Thomas factors of `M_t`: `(1 / pivot, super-diagonal ratio)` per level.
    mt_lu: Vec<(f64, f64)>,
    /// Two batches in flight: one being substituted while the next one is prepared.
    batches: [Batch; 2],
}

/// Storage of one batch of node columns `i_hi, i_hi − 1, …, i_hi − n + 1`.
struct Batch {
    /// Stress points of element columns: `[0]` a copy of element column `i_hi` (the right
    /// neighbour, from the batch before), `[k]` element column `i_hi − k`, `k = 1..=n`.
    elements: Vec<Vec<Point>>,
    /// The node columns.
    columns: Vec<Column>,
    /// The first node column `i_hi` and the number of columns `n`.
    range: (usize, usize),
}

impl Batch {
    /// No storage (a placeholder while the batches are in use).
    fn empty() -> Self {
        Self {
            elements: Vec::new(),
            columns: Vec::new(),
            range: (0, 0),
        }
    }
}

/// Work storage of one node column `i` of a batch.
struct Column {
    /// Stiffness + inertia + boundary part of `R2_i` per level.
    r2: Vec<[f64; 3]>,
    /// Lumped residual `y_{i−1}` per level.
    y: Vec<[f64; 3]>,
    /// The banded block of the unknowns of column `i − 1` (factorised).
    band: Band,
    /// Largest residual entry of the rows `R2_i`.
    norm: f64,
    /// Scratch: the known couplings of `R2_i`.
    known: Vec<[f64; 3]>,
}

impl<'a, L: PointLaw> Sideways<'a, L> {
    /// Storage for `p`'s mesh.
    pub(super) fn new(p: Problem<'a, L>) -> Self {
        let nt = p.nt;
        let gl = GaussLegendre::new(2);
        let tg = [0, 1].map(|g| [1.0 - gl.points[g], gl.points[g]]);
        // weight of the point: 1 (one point in s) × w_g (in t) × hs ht, as the element's rule
        let w = [0, 1].map(|g| gl.weights[g] * p.hs * p.ht);
        let h6 = p.ht / 6.0;
        let mut mt_lu = Vec::with_capacity(crate::resources::reserve(nt, 1));
        let mut prev = 0.0;
        for j in 1..=nt {
            let diag = if j == nt { 2.0 * h6 } else { 4.0 * h6 };
            let sub = if j > 1 { h6 } else { 0.0 };
            let inv = 1.0 / (diag - sub * prev);
            let ratio = if j < nt { h6 * inv } else { 0.0 };
            mt_lu.push((inv, ratio));
            prev = ratio;
        }
        Self {
            tg,
            w,
            mt_lu,
            batches: [0, 1].map(|_| Batch {
                elements: (0..=BATCH)
                    .map(|_| vec![Point::default(); 2 * nt])
                    .collect(),
                columns: (0..BATCH)
                    .map(|_| Column {
                        r2: vec![[0.0; 3]; nt],
                        y: vec![[0.0; 3]; nt],
                        band: Band::new(6 * nt),
                        norm: 0.0,
                        known: vec![[0.0; 3]; nt],
                    })
                    .collect(),
                range: (0, 0),
            }),
            p,
        }
    }

    /// Unknowns: `(x, v)` per node with `t > 0`, then `F` per time node `t > 0`.
    pub(super) fn unknowns(&self) -> usize {
        6 * (self.p.ns + 1) * self.p.nt + 3 * self.p.nt
    }

    /// Values of the Jacobian held at a time ([`stored_values`]).
    pub(super) fn stored(&self) -> usize {
        stored_values(self.p.nt)
    }

    /// Index of `(x, v)` of node `(i, j)`, `j ≥ 1`, in the solver's vectors (column-major:
    /// the `6 n_t` unknowns of a space column are contiguous).
    pub(super) fn dof(&self, i: usize, j: usize) -> usize {
        (i * self.p.nt + j - 1) * 6
    }

    /// Index of `F` at time node `j ≥ 1`.
    pub(super) fn f_dof(&self, j: usize) -> usize {
        6 * (self.p.ns + 1) * self.p.nt + 3 * (j - 1)
    }

    /// The unknowns of space column `i`.
    fn col<'u>(&self, u: &'u [f64], i: usize) -> &'u [f64] {
        let n = 6 * self.p.nt;
        &u[i * n..(i + 1) * n]
    }

    /// `(x, v)` of node `(i, j)` including the known `t = 0` level.
    #[inline]
    fn node(&self, col: &[f64], i: usize, j: usize) -> [f64; 6] {
        if j == 0 {
            let x = self.p.x0[i];
            [x[0], x[1], x[2], 0.0, 0.0, 0.0]
        } else {
            let k = 6 * (j - 1);
            [
                col[k],
                col[k + 1],
                col[k + 2],
                col[k + 3],
                col[k + 4],
                col[k + 5],
            ]
        }
    }

    /// Stress points of element column `es` at `u` (with the Hessian if `tangent`).
    fn element_column(
        &self,
        u: &[f64],
        es: usize,
        tangent: bool,
        out: &mut [Point],
    ) -> Result<(), ElementError> {
        let (left, right) = (self.col(u, es), self.col(u, es + 1));
        let inv_hs = 1.0 / self.p.hs;
        let mut prev: Option<([f64; 3], f64)> = None;
        for et in 0..self.p.nt {
            // per time node of the element: (x_r − x_l)/hs (three components) and θ at the middle
            let level = |j: usize| -> ([f64; 3], f64) {
                let (a, b) = (self.node(left, es, j), self.node(right, es + 1, j));
                (
                    [
                        (b[0] - a[0]) * inv_hs,
                        (b[1] - a[1]) * inv_hs,
                        (b[2] - a[2]) * inv_hs,
                    ],
                    0.5 * (a[2] + b[2]),
                )
            };
            let (d0, th0) = match prev {
                Some(p) => p,
                None => level(et),
            };
            let (d1, th1) = level(et + 1);
            prev = Some((d1, th1));
            for g in 0..2 {
                let [a, b] = self.tg[g];
                let e = [
                    a * d0[0] + b * d1[0],
                    a * d0[1] + b * d1[1],
                    a * th0 + b * th1,
                    a * d0[2] + b * d1[2],
                ];
                let (sg, sh) = self.p.element.stress_point(e, tangent)?;
                let w = self.w[g];
                let pt = &mut out[2 * et + g];
                pt.g = sg.map(|v| w * v);
                if tangent {
                    pt.h = sh.map(|v| w * v);
                }
            }
        }
        Ok(())
    }

    /// Adds `Σ_g T_it(τ_g) δe(σ)ᵀ z_g` per time node `j = et + it ≥ 1` of the nodes on side `σ`
    /// (`+1`: the element's right node, `−1`: its left node) into `out[j − 1]`; `z(et, g)` are
    /// generalised stresses (or stress increments) per stiffness point.
    #[inline]
    fn scatter(&self, sigma: f64, out: &mut [[f64; 3]], z: impl Fn(usize, usize) -> [f64; 4]) {
        let s = sigma / self.p.hs;
        for et in 0..self.p.nt {
            let (z0, z1) = (z(et, 0), z(et, 1));
            for it in 0..2 {
                let j = et + it;
                if j == 0 {
                    continue;
                }
                let (t0, t1) = (self.tg[0][it], self.tg[1][it]);
                let o = &mut out[j - 1];
                o[0] += s * (t0 * z0[0] + t1 * z1[0]);
                o[1] += s * (t0 * z0[1] + t1 * z1[1]);
                o[2] += 0.5 * (t0 * z0[2] + t1 * z1[2]) + s * (t0 * z0[3] + t1 * z1[3]);
            }
        }
    }

    /// `δg = H δe` at every stiffness point of an element column for the updates `du` of its
    /// left (`left`) and/or right (`right`) node column, scattered onto side `to`.
    fn apply(
        &self,
        points: &[Point],
        left: Option<&[f64]>,
        right: Option<&[f64]>,
        to: f64,
        out: &mut [[f64; 3]],
    ) {
        let s = 1.0 / self.p.hs;
        // Σ over the given sides of δe(σ) du at time node j (zero at j = 0)
        let level = |j: usize| -> [f64; 4] {
            let mut e = [0.0; 4];
            if j == 0 {
                return e;
            }
            let k = 6 * (j - 1);
            if let Some(c) = left {
                e = [-s * c[k], -s * c[k + 1], 0.5 * c[k + 2], -s * c[k + 2]];
            }
            if let Some(c) = right {
                e[0] += s * c[k];
                e[1] += s * c[k + 1];
                e[2] += 0.5 * c[k + 2];
                e[3] += s * c[k + 2];
            }
            e
        };
        let st = to * s;
        let mut lo = [0.0; 4];
        for et in 0..self.p.nt {
            let hi = level(et + 1);
            let mut z = [[0.0; 4]; 2];
            for (g, zg) in z.iter_mut().enumerate() {
                let [a, b] = self.tg[g];
                let e = [0, 1, 2, 3].map(|c| a * lo[c] + b * hi[c]);
                let h = &points[2 * et + g].h;
                *zg = [
                    h[0] * e[0] + h[1] * e[1] + h[3] * e[2] + h[7] * e[3],
                    h[1] * e[0] + h[2] * e[1] + h[4] * e[2] + h[8] * e[3],
                    h[3] * e[0] + h[4] * e[1] + h[5] * e[2] + h[9] * e[3],
                    h[7] * e[0] + h[8] * e[1] + h[9] * e[2] + h[6] * e[3],
                ];
            }
            for it in 0..2 {
                let j = et + it;
                if j == 0 {
                    continue;
                }
                let (t0, t1) = (self.tg[0][it], self.tg[1][it]);
                let (z0, z1) = (&z[0], &z[1]);
                let o = &mut out[j - 1];
                o[0] += st * (t0 * z0[0] + t1 * z1[0]);
                o[1] += st * (t0 * z0[1] + t1 * z1[1]);
                o[2] += 0.5 * (t0 * z0[2] + t1 * z1[2]) + st * (t0 * z0[3] + t1 * z1[3]);
            }
            lo = hi;
        }
    }

    /// `Σ_k D_t(j, k) z_k` for `j = 1..=n_t` with `z_0 = 0`, component `c` of `col` (`c < 6`).
    #[inline]
    fn dt_col(&self, col: &[f64], c: usize, j: usize, z0: f64) -> f64 {
        let nt = self.p.nt;
        let at = |k: usize| if k == 0 { z0 } else { col[6 * (k - 1) + c] };
        if j == nt {
            0.5 * (at(nt) - at(nt - 1))
        } else {
            0.5 * (at(j + 1) - at(j - 1))
        }
    }

    /// `Σ_k M_t(j, k) z_k` with `z_0` given.
    #[inline]
    fn mt_apply(&self, at: impl Fn(usize) -> f64, j: usize) -> f64 {
        let h6 = self.p.ht / 6.0;
        if j == self.p.nt {
            h6 * (at(j - 1) + 2.0 * at(j))
        } else {
            h6 * (at(j - 1) + 4.0 * at(j) + at(j + 1))
        }
    }

    /// `b ← M_t⁻¹ b` for one component of a vector of stride `stride` (Thomas).
    fn mt_solve(&self, b: &mut [f64], stride: usize, c: usize) {
        let nt = self.p.nt;
        let h6 = self.p.ht / 6.0;
        let mut prev = 0.0;
        for j in 1..=nt {
            let (inv, _) = self.mt_lu[j - 1];
            let sub = if j > 1 { h6 } else { 0.0 };
            let k = stride * (j - 1) + c;
            prev = (b[k] - sub * prev) * inv;
            b[k] = prev;
        }
        for j in (1..nt).rev() {
            let ratio = self.mt_lu[j - 1].1;
            let k = stride * (j - 1) + c;
            b[k] -= ratio * b[k + stride];
        }
    }

    /// Lumped residual `y_i = D_t x_i − M_t v_i` per level (`x_i(0) = x0`, `v_i(0) = 0`).
    fn lumped(&self, u: &[f64], i: usize, out: &mut [[f64; 3]]) {
        let col = self.col(u, i);
        for j in 1..=self.p.nt {
            for c in 0..3 {
                let dx = self.dt_col(col, c, j, self.p.x0[i][c]);
                let mv = self.mt_apply(
                    |k| {
                        if k == 0 {
                            0.0
                        } else {
                            col[6 * (k - 1) + 3 + c]
                        }
                    },
                    j,
                );
                out[j - 1][c] = dx - mv;
            }
        }
    }

    /// `M_s(i, i')` for `|i − i'| ≤ 1`.
    fn ms(&self, i: usize, ip: usize) -> f64 {
        let hs = self.p.hs;
        if i != ip {
            hs / 6.0
        } else if i == 0 || i == self.p.ns {
            hs / 3.0
        } else {
            2.0 * hs / 3.0
        }
    }

    /// Adds the linear part of `R2_i` (inertia `A M_s D_t v`, tip law, actuation) and the
    /// constant loads (`− q ∫S_i ds ∫T_j dt`, at the tip `− f_tip ∫T_j dt`) into `out`.
    fn linear_r2(&self, u: &[f64], i: usize, out: &mut [[f64; 3]]) {
        let ns = self.p.ns;
        let (q, ft) = (self.p.load, self.p.tip_load);
        if q != [0.0; 3] || (i == ns && ft != [0.0; 3]) {
            let si = if i == 0 || i == ns {
                0.5 * self.p.hs
            } else {
                self.p.hs
            };
            for j in 1..=self.p.nt {
                let tj = if j == self.p.nt {
                    0.5 * self.p.ht
                } else {
                    self.p.ht
                };
                for c in 0..3 {
                    let mut f = q[c] * si;
                    if i == ns {
                        f += ft[c];
                    }
                    out[j - 1][c] -= f * tj;
                }
            }
        }
        let lo = i.saturating_sub(1);
        let hi = (i + 1).min(ns);
        for ip in lo..=hi {
            let col = self.col(u, ip);
            let m = self.ms(i, ip);
            for c in 0..3 {
                let mut coef = self.p.inertia[c] * m;
                if i == ns && ip == ns {
                    coef += self.p.tip_mass[c];
                }
                for j in 1..=self.p.nt {
                    out[j - 1][c] += coef * self.dt_col(col, 3 + c, j, 0.0);
                }
            }
        }
        if i == 0 {
            let fo = 6 * (ns + 1) * self.p.nt;
            for c in 0..3 {
                for j in 1..=self.p.nt {
                    let at = |k: usize| {
                        if k == 0 {
                            self.p.f0[c]
                        } else {
                            u[fo + 3 * (k - 1) + c]
                        }
                    };
                    out[j - 1][c] -= self.mt_apply(at, j);
                }
            }
        }
    }

    /// The linear part of `J du` at `R2_i` for the updates of the columns `i' ∈ cols`
    /// (inertia and tip law; the actuation is handled by the caller).
    fn linear_jdu(&self, du: &[f64], i: usize, cols: &[usize], out: &mut [[f64; 3]]) {
        let ns = self.p.ns;
        for &ip in cols {
            let col = self.col(du, ip);
            let m = self.ms(i, ip);
            for c in 0..3 {
                let mut coef = self.p.inertia[c] * m;
                if i == ns && ip == ns {
                    coef += self.p.tip_mass[c];
                }
                for j in 1..=self.p.nt {
                    out[j - 1][c] += coef * self.dt_col(col, 3 + c, j, 0.0);
                }
            }
        }
    }

    /// Largest entry of the consistent `R1_i = Σ M_s(i, i') y_{i'}` from the lumped residuals
    /// `y_{i−1}` (`below`, absent at the base), `y_i` and `y_{i+1}` (`above`, absent at the tip).
    fn r1_norm(
        &self,
        i: usize,
        below: Option<&[[f64; 3]]>,
        own: &[[f64; 3]],
        above: Option<&[[f64; 3]]>,
    ) -> f64 {
        let (m_own, m_off) = (self.ms(i, i), self.p.hs / 6.0);
        let mut worst: f64 = 0.0;
        for j in 0..self.p.nt {
            for c in 0..3 {
                let mut s = m_own * own[j][c];
                if let Some(y) = below {
                    s += m_off * y[j][c];
                }
                if let Some(y) = above {
                    s += m_off * y[j][c];
                }
                worst = worst.max(s.abs());
            }
        }
        worst
    }

    /// Fills the banded block of column `i − 1` (rows `R2_i`, lumped `R1_{i−1}`) from the
    /// stress points of element column `i − 1`, and factorises it, one time level (6 rows)
    /// at a time just ahead of the elimination.
    fn fill_band(&self, left: &[Point], i: usize, band: &mut Band) -> Result<(), SolveError> {
        let nt = self.p.nt;
        const W: usize = Band::ROW;
        // stiffness of the rows of node i (σa = +1) against x of node i − 1 (σb = −1), per
        // element: K[ia][ib] = Σ_g T_ia T_ib δe(+)ᵀ H_g δe(−) (3 × 3, row-major)
        let s = -1.0 / (self.p.hs * self.p.hs);
        let pr = 0.5 / self.p.hs; // σa / (2 hs)
        let pc = -0.5 / self.p.hs; // σb / (2 hs)
        let element = |et: usize| -> [[[f64; 9]; 2]; 2] {
            let mut k = [[[0.0; 9]; 2]; 2];
            for g in 0..2 {
                let h = &left[2 * et + g].h;
                // δe(+)ᵀ H δe(−) per component pair (the h23 terms cancel in (2, 2))
                let kh = [
                    s * h[0],
                    s * h[1],
                    pr * h[3] + s * h[7],
                    s * h[1],
                    s * h[2],
                    pr * h[4] + s * h[8],
                    pc * h[3] + s * h[7],
                    pc * h[4] + s * h[8],
                    0.25 * h[5] + s * h[6],
                ];
                for ia in 0..2 {
                    for ib in 0..2 {
                        let t = self.tg[g][ia] * self.tg[g][ib];
                        for (kk, v) in k[ia][ib].iter_mut().zip(&kh) {
                            *kk += t * v;
                        }
                    }
                }
            }
            k
        };
        let h6 = self.p.ht / 6.0;
        let alpha = self.p.inertia.map(|a| a * self.ms(i, i - 1));
        // the element below the level (et = j − 1), carried from the previous level
        let mut below = element(0);
        band.factorize_streamed(6, |b, rows| {
            let j = b + 1;
            let above = if j < nt { Some(element(j)) } else { None };
            // x(k, d) of level k at offset 6 (k − j) + d − r + KL in row r
            let mut put = |r: usize, k: usize, d: usize, v: f64| {
                rows[r * W + 6 * k + d + KL - 6 * j - r] += v;
            };
            for c in 0..3 {
                for d in 0..3 {
                    let e = 3 * c + d;
                    // B(j, j − 1), B(j, j), B(j, j + 1)
                    if j > 1 {
                        put(c, j - 1, d, below[1][0][e]);
                    }
                    let mut diag = below[1][1][e];
                    if let Some(a) = &above {
                        diag += a[0][0][e];
                        put(c, j + 1, d, a[0][1][e]);
                    }
                    put(c, j, d, diag);
                }
            }
            // inertia of R2_i against v_{i−1} (α D_t), lumped R1_{i−1} (D_t x − M_t v)
            for k in j.saturating_sub(1).max(1)..=(j + 1).min(nt) {
                let dt = if k + 1 == j {
                    -0.5
                } else if k == j + 1 || (k == j && j == nt) {
                    0.5
                } else {
                    0.0
                };
                let mt = if k == j {
                    if j == nt { 2.0 * h6 } else { 4.0 * h6 }
                } else {
                    h6
                };
                for c in 0..3 {
                    if dt != 0.0 {
                        put(c, k, 3 + c, alpha[c] * dt);
                        put(3 + c, k, c, dt);
                    }
                    put(3 + c, k, 3 + c, -mt);
                }
            }
            if let Some(a) = above {
                below = a;
            }
        })
        .map_err(|e| blocked(&format!("space column {}", i - 1), e))
    }

    /// Everything of node column `i ≥ 1` that depends on the iterate only: `R2_i` and its
    /// largest entry, the lumped residual `y_{i−1}` and (full passes) the factorised band of
    /// column `i − 1`.
    fn prepare_column(
        &self,
        u: &[f64],
        i: usize,
        left: &[Point],
        right: Option<&[Point]>,
        full: bool,
        col: &mut Column,
    ) -> Result<(), SolveError> {
        col.r2.fill([0.0; 3]);
        self.scatter(1.0, &mut col.r2, |et, g| left[2 * et + g].g);
        if let Some(right) = right {
            self.scatter(-1.0, &mut col.r2, |et, g| right[2 * et + g].g);
        }
        self.linear_r2(u, i, &mut col.r2);
        col.norm = col.r2.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        self.lumped(u, i - 1, &mut col.y);
        if full {
            self.fill_band(left, i, &mut col.band)?;
        }
        Ok(())
    }

    /// One pass at `u`: the residual's largest entry and, if `full`, the Newton update `du`
    /// (`J du = r`).
    pub(super) fn pass(
        &mut self,
        u: &[f64],
        du: &mut [f64],
        full: bool,
    ) -> Result<Pass, PassError> {
        let mut out = Pass::default();
        let mut batches = std::mem::replace(&mut self.batches, [Batch::empty(), Batch::empty()]);
        let result = self.march(u, du, full, &mut batches, &mut out);
        self.batches = batches;
        result?;
        Ok(out)
    }

    /// Stress points, residual, lumped residual and (full passes) factorised bands of the node
    /// columns `i_hi, …, i_hi − n + 1` into `batch`; `right`: element column `i_hi` (none at the
    /// tip). Returns the seconds spent in the stress points and in the columns.
    fn prepare(
        &self,
        u: &[f64],
        full: bool,
        (i_hi, n): (usize, usize),
        right: Option<&[Point]>,
        batch: &mut Batch,
    ) -> Result<(f64, f64), PassError> {
        batch.range = (i_hi, n);
        let t = Instant::now();
        if let Some(right) = right {
            batch.elements[0].copy_from_slice(right);
        }
        batch.elements[1..=n]
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(k, pts)| self.element_column(u, i_hi - 1 - k, full, pts))
            .map_err(PassError::Element)?;
        let kernel = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let elements = &batch.elements;
        let has_right = right.is_some();
        batch.columns[..n]
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(k, col)| {
                let right = (k > 0 || has_right).then(|| elements[k].as_slice());
                self.prepare_column(u, i_hi - k, &elements[k + 1], right, full, col)
            })
            .map_err(PassError::Linear)?;
        Ok((kernel, t.elapsed().as_secs_f64()))
    }

    /// The sequential part of a prepared batch: the consistent `R1` norms, and (full passes)
    /// the substitutions column after column. `y_own`, `y_above`: the lumped residuals of the
    /// column above the batch and of the one above that, updated to those of the batch's last
    /// two columns.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        du: &mut [f64],
        full: bool,
        has_right: bool,
        elements: &[Vec<Point>],
        columns: &mut [Column],
        (i_hi, n): (usize, usize),
        y_own: &mut Vec<[f64; 3]>,
        y_above: &mut Vec<[f64; 3]>,
        out: &mut Pass,
    ) {
        let t = Instant::now();
        let ns = self.p.ns;
        for (k, col) in columns[..n].iter_mut().enumerate() {
            let i = i_hi - k;
            let above = (i < ns).then_some(y_above.as_slice());
            out.norm = out
                .norm
                .max(col.norm)
                .max(self.r1_norm(i, Some(&col.y), y_own, above));
            if full {
                let right = (k > 0 || has_right).then(|| elements[k].as_slice());
                self.substitute(du, i, &elements[k + 1], right, col, out);
            }
            // y_{i−1} becomes the column's own, y_i the one above
            std::mem::swap(y_above, y_own);
            y_own.copy_from_slice(&col.y);
        }
        out.column_seconds += t.elapsed().as_secs_f64();
    }

    fn march(
        &self,
        u: &[f64],
        du: &mut [f64],
        full: bool,
        batches: &mut [Batch; 2],
        out: &mut Pass,
    ) -> Result<(), PassError> {
        let (ns, nt) = (self.p.ns, self.p.nt);
        let started = Instant::now();
        // lumped residuals y_{i+1}, y_i of the columns above the one being processed
        let mut y_above = vec![[0.0; 3]; nt];
        let mut y_own = vec![[0.0; 3]; nt];
        self.lumped(u, ns, &mut y_own);
        // 1. Servo rows R3 → x at the tip; lumped R1_ns → v at the tip.
        let tip = self.col(u, ns);
        let x0 = self.p.x0[ns];
        let mut r3 = vec![0.0; 3 * nt];
        for j in 1..=nt {
            for c in 0..3 {
                let at = |k: usize| if k == 0 { x0[c] } else { tip[6 * (k - 1) + c] };
                r3[3 * (j - 1) + c] = self.mt_apply(at, j) - self.p.gamma[j - 1][c];
            }
        }
        out.norm = r3.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if full {
            let mut b = r3.clone();
            for c in 0..3 {
                self.mt_solve(&mut b, 3, c);
            }
            let o = self.dof(ns, 1);
            let dcol = &mut du[o..o + 6 * nt];
            for j in 0..nt {
                dcol[6 * j..6 * j + 3].copy_from_slice(&b[3 * j..3 * j + 3]);
            }
            for j in 1..=nt {
                for c in 0..3 {
                    b[3 * (j - 1) + c] = self.dt_col(dcol, c, j, 0.0) - y_own[j - 1][c];
                }
            }
            for c in 0..3 {
                self.mt_solve(&mut b, 3, c);
            }
            for j in 0..nt {
                dcol[6 * j + 3..6 * j + 6].copy_from_slice(&b[3 * j..3 * j + 3]);
            }
            // mismatch of the servo rows and the lumped tip kinematics
            let dcol = &du[o..o + 6 * nt];
            for j in 1..=nt {
                for c in 0..3 {
                    let x = |k: usize| if k == 0 { 0.0 } else { dcol[6 * (k - 1) + c] };
                    let v = |k: usize| {
                        if k == 0 {
                            0.0
                        } else {
                            dcol[6 * (k - 1) + 3 + c]
                        }
                    };
                    let mx = self.mt_apply(x, j) - r3[3 * (j - 1) + c];
                    let mv = self.dt_col(dcol, c, j, 0.0) - self.mt_apply(v, j) - y_own[j - 1][c];
                    out.mismatch = out.mismatch.max(mx.abs()).max(mv.abs());
                }
            }
        }
        out.column_seconds += started.elapsed().as_secs_f64();
        // 2. March over the node columns i = ns … 1 in batches of BATCH; batch b + 1 is
        // prepared (its columns in parallel) while batch b is substituted.
        let ranges: Vec<(usize, usize)> = {
            let mut v = Vec::new();
            let mut i_hi = ns;
            while i_hi >= 1 {
                let n = BATCH.min(i_hi);
                v.push((i_hi, n));
                i_hi -= n;
            }
            v
        };
        let (first, second) = batches.split_at_mut(1);
        let (mut cur, mut next) = (&mut first[0], &mut second[0]);
        let (kernel, columns) = self.prepare(u, full, ranges[0], None, cur)?;
        out.kernel_seconds += kernel;
        out.column_seconds += columns;
        for (b, &range) in ranges.iter().enumerate() {
            let Batch {
                elements,
                columns: cols,
                ..
            } = &mut *cur;
            let elements: &[Vec<Point>] = elements;
            let lowest = elements[range.1].as_slice();
            let mut seq = Pass::default();
            let (y_own, y_above) = (&mut y_own, &mut y_above);
            let du = &mut *du;
            let (prepared, ()) = rayon::join(
                || match ranges.get(b + 1) {
                    Some(&r) => self.prepare(u, full, r, Some(lowest), next).map(Some),
                    None => Ok(None),
                },
                || {
                    self.finish(
                        du,
                        full,
                        b > 0,
                        elements,
                        cols,
                        range,
                        y_own,
                        y_above,
                        &mut seq,
                    )
                },
            );
            out.norm = out.norm.max(seq.norm);
            out.mismatch = out.mismatch.max(seq.mismatch);
            out.column_seconds += seq.column_seconds;
            if let Some((kernel, columns)) = prepared? {
                out.kernel_seconds += kernel;
                out.column_seconds += columns;
            }
            std::mem::swap(&mut cur, &mut next);
        }
        // the last batch is in `next` now; its lowest element column is column 0
        let last = &*next;
        let element0 = last.elements[last.range.1].as_slice();
        // 3. R2_0 → actuation; consistent R1_0.
        let t = Instant::now();
        let above = (ns > 0).then_some(y_above.as_slice());
        out.norm = out.norm.max(self.r1_norm(0, None, &y_own, above));
        let mut r2 = vec![[0.0; 3]; nt];
        self.scatter(-1.0, &mut r2, |et, g| element0[2 * et + g].g);
        self.linear_r2(u, 0, &mut r2);
        out.norm = out
            .norm
            .max(r2.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs())));
        if full {
            // known(0) − M_t dF = r2(0)
            let mut known = vec![[0.0; 3]; nt];
            self.apply(
                element0,
                Some(self.col(du, 0)),
                Some(self.col(du, 1)),
                -1.0,
                &mut known,
            );
            self.linear_jdu(du, 0, &[0, 1], &mut known);
            let fo = self.f_dof(1);
            let mut b = vec![0.0; 3 * nt];
            for j in 0..nt {
                for c in 0..3 {
                    b[3 * j + c] = known[j][c] - r2[j][c];
                }
            }
            for c in 0..3 {
                self.mt_solve(&mut b, 3, c);
            }
            du[fo..fo + 3 * nt].copy_from_slice(&b);
            for j in 1..=nt {
                for c in 0..3 {
                    let f = |k: usize| if k == 0 { 0.0 } else { b[3 * (k - 1) + c] };
                    let m = known[j - 1][c] - self.mt_apply(f, j) - r2[j - 1][c];
                    out.mismatch = out.mismatch.max(m.abs());
                }
            }
        }
        out.column_seconds += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Solves the prepared column `i` for the update of column `i − 1` and records the
    /// mismatch of its rows.
    fn substitute(
        &self,
        du: &mut [f64],
        i: usize,
        left: &[Point],
        right: Option<&[Point]>,
        col: &mut Column,
        out: &mut Pass,
    ) {
        let nt = self.p.nt;
        // known couplings: element column i (du_i, du_{i+1}), element column i − 1 (du_i)
        let known = &mut col.known;
        known.fill([0.0; 3]);
        if let Some(right) = right {
            self.apply(
                right,
                Some(self.col(du, i)),
                Some(self.col(du, i + 1)),
                -1.0,
                known,
            );
            self.linear_jdu(du, i, &[i, i + 1], known);
        } else {
            self.linear_jdu(du, i, &[i], known);
        }
        self.apply(left, None, Some(self.col(du, i)), 1.0, known);
        let o = self.dof(i - 1, 1);
        let target = &mut du[o..o + 6 * nt];
        for j in 0..nt {
            for c in 0..3 {
                target[6 * j + c] = col.r2[j][c] - known[j][c];
                target[6 * j + 3 + c] = col.y[j][c];
            }
        }
        col.band.solve_in_place(target);
        // mismatch: R2_i with the new column, lumped R1_{i−1}
        self.apply(left, Some(self.col(du, i - 1)), None, 1.0, known);
        self.linear_jdu(du, i, &[i - 1], known);
        let dcol = self.col(du, i - 1);
        for j in 1..=nt {
            for c in 0..3 {
                let v = |k: usize| {
                    if k == 0 {
                        0.0
                    } else {
                        dcol[6 * (k - 1) + 3 + c]
                    }
                };
                let m2 = known[j - 1][c] - col.r2[j - 1][c];
                let mv = self.dt_col(dcol, c, j, 0.0) - self.mt_apply(v, j) - col.y[j - 1][c];
                out.mismatch = out.mismatch.max(m2.abs()).max(mv.abs());
            }
        }
    }
}

fn blocked(what: &str, e: SolveError) -> SolveError {
    SolveError::Factorization(format!(
        "sideways elimination: the block of the {what} is singular ({e}). Remedy: check the \
         mesh-ratio condition and the trajectory; or set newton.linear_solver = \"sparse-lu\""
    ))
}
