//! Sideways block elimination, streamed: the Newton iteration of the space-time inverse problem
//! in `O(n_s n_t)` operations and `O(n_t)` storage besides the solution vectors, by assembling
//! and eliminating one space column at a time from the tip `s = L` to the base `s = 0`. For any
//! body with `N` unknowns per point ([`InverseBody`]): the planar beam and the string
//! (`N = 3`), the spatial beam (`N = 6`).
//!
//! # Why the Jacobian is block triangular
//! The inverse problem carries its data from the tip to the base ([`super::mesh_ratio`]): both
//! Cauchy data are known at `s = L`, and the actuation is the output at `s = 0`. The discrete
//! equations inherit this. Write `D_t`, `M_t` for the time operators of the test functions
//! `N_j(t)`, `j = 1..n_t` (`∫ N_j ∂t N_k`, `∫ N_j N_k`; the `t = 0` values are known), `M_s` for
//! the consistent space mass matrix. Then (element docs, [`super::element`]):
//!
//! ```text
//! R1 = (M_s ⊗ I)(D_t x − M_t v)                                   kinematics, exact quadrature
//! R2_i = A (M_s D_t v)_i + I_i(u_{i−1}, u_i, u_{i+1}) + K_i(x_{i−1}, x_i, x_{i+1})   + boundary
//! R3 = M_t x_{n_s} − ∫ N γ                                          servo constraint
//! ```
//!
//! (`I` the nonlinear inertia of the spatial beam, `K` the stiffness). `M_s` is invertible, so
//! `R1 = 0` is equivalent to the *lumped* form `y_i = D_t x_i − M_t v_i = 0` at every space
//! node: the same discrete solution, other rows. With these rows and the unknowns ordered from
//! the tip,
//!
//! ```text
//! rows  [R3; R1_ns]  [R2_ns; R1_(ns−1)]  …  [R2_1; R1_0]  R2_0
//! cols  (x,v)_ns     (x,v)_(ns−1)        …  (x,v)_0       F
//! ```
//!
//! the Jacobian is block *lower triangular*: `R2_i` involves the columns `i + 1`, `i`, `i − 1`
//! only, so once the columns `i + 1` and `i` are known, `R2_i` and `R1_(i−1)` determine column
//! `i − 1`. Each diagonal block couples the time levels `j − 1, j, j + 1` only: a banded
//! matrix for the `2N n_t` unknowns of a space column (half-bandwidths `3N` below and `3N`
//! above, `4N − 1` with a nonlinear inertia, [`PointLaw::Band`]), solved by a fixed-width
//! banded LU with partial pivoting. The whole Newton step costs `O(n_s n_t)` instead of the
//! `O((n_s n_t)^{3/2})` and more of a general sparse LU on the two-dimensional grid.
//!
//! # Streaming: nothing of the Jacobian is stored
//! Only the stiffness and the nonlinear inertia are nonlinear. At each of the two stiffness
//! points of an element (`s` at the element middle, `τ_g = ½ ∓ 1/(2√3)` in time, weight
//! `w = ½ h_s h_t`) the element needs the generalised stresses `g = (g_p, g_x)` and their
//! Hessian `H` in the variables `(p, x)` ([`StressPoint`]). With `T_0 = 1 − τ`, `T_1 = τ`,
//! `σ = ∓1` for the left and right node of the element and the strain increment of a nodal
//! update `δe(σ) du = (δp, δx) = (σ du / h_s, ½ du)`:
//!
//! ```text
//! R2(node a) ⊃ Σ_g w T_a(τ_g) δe(σ_a)ᵀ g                         residual
//! ∂R2(a)/∂x(b) = Σ_g w T_a(τ_g) T_b(τ_g) δe(σ_a)ᵀ H δe(σ_b)       N × N block
//! ```
//!
//! A nonlinear inertia ([`PointLaw::NONLINEAR_INERTIA`]) adds its 2 × 2 Gauss points per
//! element (`w = ¼ h_s h_t`, [`InertiaPoint`]: `f` and its Jacobians in `x`, `v`, `∂t v`),
//! scattered with `S_a(ξ_g) T_a(τ_h)`.
//!
//! The rest is linear with constant coefficients and needs no storage: the inertia
//! `A M_s ⊗ D_t` (and the tip law `M_tip D_t`), the lumped kinematics `D_t`, `M_t`, the actuation
//! `−M_t` and the servo rows `M_t`; a nonlinear tip law (the spatial beam's tip body) involves
//! the tip column only and is evaluated with it. A Newton pass therefore marches from the tip:
//! for the column `i` it evaluates the points of the element column `i − 1`, assembles the
//! residual `R2_i`, the lumped residual `y_{i−1}` and the banded block of column `i − 1`,
//! factorises it, and solves for the update of column `i − 1` with the right-hand side
//! `R2_i − (∂R2_i/∂u_i) du_i − (∂R2_i/∂u_{i+1}) du_{i+1}`, the known couplings applied
//! matrix-free (increments of the known updates at the points, scattered like the residual).
//! Storage: the points of the element columns and the factorised band, residual and
//! lumped residual of the node columns in flight, `O(n_t)` per column, `2 BATCH` columns,
//! whatever `n_s`.
//!
//! # Parallel, deterministic
//! Everything but the substitution depends on the current iterate only: the points, the
//! residual, the banded block and its factorisation. Columns are processed in batches of
//! [`BATCH`]; while one batch is substituted (column after column, one thread), the next one
//! is prepared: the points of its element columns, then the residual, band and
//! factorisation of its node columns, each column by one thread (rayon `join` and parallel
//! iterators). No sum is split between threads and every column is computed in a fixed order,
//! so the result is the same to the bit for any number of threads (`tests/parallel_assembly.rs`).
//!
//! # Newton
//! A pass evaluates the residual with the measures of the Newton stop (per equation group,
//! [`super::element::GROUPS`]: every row's residual, the magnitudes of its terms and its
//! round-off floor basis `Σ_j |J_ij| X_g(j)`, bounded from the points' Hessians,
//! `solve::newton::measure`) and, in the same march, solves for the Newton update: the pass
//! is the linearisation of the one Newton driver (`solve::newton::drive`). Where the residual
//! is expected to meet the tolerance already (quadratic convergence predicted by the driver),
//! a residual-only pass (points without Hessian, no band) checks it first: the last Newton
//! step is not solved for nothing.
//!
//! # Stability
//! The elimination is the sideways marching itself, so it amplifies errors like the
//! sideways problem does. Under the mesh-ratio condition `μ ≤ 2` every sideways mode of the
//! lumped system is neutral (`|z| = 1`, [`super::mesh_ratio`]; the `p(z) = 0` modes of the
//! analysis, the growing ones, are those of `M_s` in `R1`, which the lumped rows remove), so
//! the march does not amplify round-off. `tests/inverse_verification.rs` compares it with
//! faer's sparse LU on the same Newton systems; every pass reports the largest residual of the
//! eliminated rows, `max |J du − r|` (lumped `R1`).

use super::body::InverseBody;
use super::element::{
    BilinearElement, ElementError, GROUPS, InertiaPoint, KINEMATIC, MOMENTUM, PointLaw, SERVO,
    StressPoint, group,
};
use crate::basis::GaussLegendre;
use crate::error::SolveError;
use crate::solve::banded::BandSolver;
use crate::solve::newton::Measures;
use rayon::prelude::*;
use std::time::Instant;

/// Node columns per batch: their points, residuals and banded factorisations are computed in
/// parallel while the batch before is substituted. Fixed (not the thread count), so that the
/// storage does not depend on the machine; results do not depend on it at all. Two batches are
/// in flight; 2 (rather than 4) keeps their factors in cache and costs 5 % less time on one
/// thread.
pub(super) const BATCH: usize = 2;

/// The band type of body `B`.
type BandOf<B, const N: usize> = <<B as InverseBody<N>>::Law as PointLaw<N>>::Band;

/// Values of the Jacobian a Newton pass holds at a time on a mesh with `nt` time elements,
/// whatever the number of space elements, for a body with `n` unknowns per point and the
/// band widths `kl`, `ku`: the factorised bands (`U` with `kl + ku` entries right of the
/// diagonal, `kl` multipliers, reciprocal pivot) and the residual, lumped residual, known
/// couplings, magnitudes and floor basis of the `2 BATCH` node columns in flight, and the points of their
/// `2 (BATCH + 1)` element columns (2 stiffness points per element, `2n + 3n²` values and
/// `n` of the floor basis each; with a nonlinear inertia 4 inertia points, `n + 3n²` values
/// and `n` of the floor basis each).
pub(crate) fn stored_values(nt: usize, n: usize, kl: usize, ku: usize, nonlinear: bool) -> usize {
    let band = 2 * n * nt * (2 * kl + ku + 1 + kl + 1);
    // residual, lumped residual, known couplings; magnitudes of R2 and y, floor basis of R2
    let column = band + 6 * n * nt;
    let inertia = if nonlinear {
        4 * (2 * n + 3 * n * n)
    } else {
        0
    };
    let element_column = nt * (2 * (3 * n + 3 * n * n) + inertia);
    2 * (BATCH * column + (BATCH + 1) * element_column)
}

/// The inverse problem on one mesh, as the streamed elimination needs it.
pub(super) struct Problem<'a, B: InverseBody<N>, const N: usize> {
    /// The body (its tip law).
    pub body: &'a B,
    /// The element (its point law).
    pub element: &'a BilinearElement<B::Law, N>,
    /// Space elements.
    pub ns: usize,
    /// Time elements.
    pub nt: usize,
    /// Space step.
    pub hs: f64,
    /// Time step.
    pub ht: f64,
    /// The constant diagonal inertia `A` (beam `(ρA, ρA, ρI)`, string `(ρA, ρA, ρA)`).
    pub inertia: [f64; N],
    /// Constant distributed load `q` per unit length (gravity `ρA g` of the string; N/m).
    pub load: [f64; N],
    /// Constant force on the tip (the payload's weight `m g`; N).
    pub tip_load: [f64; N],
    /// Constant diagonal tip law `M_tip` (zero for a free end).
    pub tip_mass: [f64; N],
    /// `x` at `t_start` per space node (`v = 0` there).
    pub x0: &'a [[f64; N]],
    /// `F(t_start)`.
    pub f0: [f64; N],
    /// `∫ N_j γ dt` for `j = 1..=n_t` (the known part of `R3`).
    pub gamma: Vec<[f64; N]>,
}

/// What a pass computes besides the update and the measures of the residual.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pass {
    /// Largest `|J du − r|` of the eliminated rows (lumped `R1`), full passes only.
    pub mismatch: f64,
    /// Seconds in the points (element kernels).
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

/// The points of one element column: stiffness points `[2 et + g]` and (nonlinear inertia)
/// inertia points `[4 et + 2 g + h]` (`g` in `s`, `h` in `t`), each premultiplied by its weight.
struct ElementColumn<const N: usize> {
    stiffness: Vec<StressPoint<N>>,
    inertia: Vec<InertiaPoint<N>>,
    /// The floor basis of every stiffness point ([`Sideways::point_floor`]) and inertia point
    /// ([`Sideways::inertia_floor`]), computed once per point for the rows of both its nodes.
    stiffness_floor: Vec<[f64; N]>,
    inertia_floor: Vec<[f64; N]>,
    /// Whether the points carry their Hessians (a full pass): without them the floor basis
    /// of the points is zero, and neither it nor the floors are formed.
    tangent: bool,
}

impl<const N: usize> ElementColumn<N> {
    fn new(nt: usize, nonlinear: bool) -> Self {
        let ni = if nonlinear { 4 * nt } else { 0 };
        Self {
            stiffness: vec![StressPoint::ZERO; 2 * nt],
            inertia: vec![InertiaPoint::ZERO; ni],
            stiffness_floor: vec![[0.0; N]; 2 * nt],
            inertia_floor: vec![[0.0; N]; ni],
            tangent: false,
        }
    }

    fn copy_from(&mut self, o: &Self) {
        self.stiffness.copy_from_slice(&o.stiffness);
        self.inertia.copy_from_slice(&o.inertia);
        self.tangent = o.tangent;
        if o.tangent {
            self.stiffness_floor.copy_from_slice(&o.stiffness_floor);
            self.inertia_floor.copy_from_slice(&o.inertia_floor);
        }
    }
}

/// The streamed sideways elimination for one mesh: the problem, the time rule and the
/// per-column work storage (`O(n_t)`).
pub(super) struct Sideways<'a, B: InverseBody<N>, const N: usize> {
    p: Problem<'a, B, N>,
    /// `T_it(τ_g)` at `[g][it]` (the 2-point Gauss rule in time of every point).
    tg: [[f64; 2]; 2],
    /// `S_is(ξ_g)` at `[g][is]` (the 2-point Gauss rule in space of the inertia points).
    sg: [[f64; 2]; 2],
    /// Weight of a stiffness point, `w = ½ h_s h_t` (`1 × ½` on the unit square).
    w: [f64; 2],
    /// Weight of an inertia point, `¼ h_s h_t`.
    wi: f64,
    /// Thomas factors of `M_t`: `(1 / pivot, super-diagonal ratio)` per level.
    mt_lu: Vec<(f64, f64)>,
    /// Two batches in flight: one being substituted while the next one is prepared.
    batches: [Batch<BandOf<B, N>, N>; 2],
}

/// Storage of one batch of node columns `i_hi, i_hi − 1, …, i_hi − n + 1`.
struct Batch<Band, const N: usize> {
    /// Points of element columns: `[0]` a copy of element column `i_hi` (the right neighbour,
    /// from the batch before), `[k]` element column `i_hi − k`, `k = 1..=n`.
    elements: Vec<ElementColumn<N>>,
    /// The node columns.
    columns: Vec<Column<Band, N>>,
    /// The first node column `i_hi` and the number of columns `n`.
    range: (usize, usize),
}

impl<Band, const N: usize> Batch<Band, N> {
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
struct Column<Band, const N: usize> {
    /// Stiffness + inertia + boundary part of `R2_i` per level.
    r2: Vec<[f64; N]>,
    /// Lumped residual `y_{i−1}` per level.
    y: Vec<[f64; N]>,
    /// The banded block of the unknowns of column `i − 1` (factorised).
    band: Band,
    /// Magnitudes of the terms of `R2_i` per level.
    m2: Vec<[f64; N]>,
    /// Floor basis `Σ_j |J_ij| X_g(j)` of `R2_i` per level.
    p2: Vec<[f64; N]>,
    /// Magnitudes of the terms of `y_{i−1}` per level.
    ym: Vec<[f64; N]>,
    /// Measures of the rows `R2_i`.
    meas: Measures,
    /// Scratch: the known couplings of `R2_i`.
    known: Vec<[f64; N]>,
    /// The nonlinear tip law's points `[2 et + h]` (the tip column only; weighted).
    tip: Vec<InertiaPoint<N>>,
}

/// The lumped residuals `y` and the magnitudes of their terms of the two node columns above
/// the one being processed.
struct Lumped<const N: usize> {
    own: Vec<[f64; N]>,
    own_m: Vec<[f64; N]>,
    above: Vec<[f64; N]>,
    above_m: Vec<[f64; N]>,
}

/// The lumped residual of a node column per level and the magnitudes of its terms.
type LumpedRef<'a, const N: usize> = (&'a [[f64; N]], &'a [[f64; N]]);

/// Rows of one node column per level: residual, magnitudes of its terms, floor basis.
type Rows<'a, const N: usize> = (&'a mut [[f64; N]], &'a mut [[f64; N]], &'a mut [[f64; N]]);

/// The left and right nodal `(x, v)` of an element at one time level.
type Level<const N: usize> = (([f64; N], [f64; N]), ([f64; N], [f64; N]));

/// `x` (`d < N`) or `v` (`d ≥ N`) of level `k ≥ 1` in a column vector of `2N` values per level.
#[inline]
fn at<const N: usize>(col: &[f64], k: usize, d: usize) -> f64 {
    col[2 * N * (k - 1) + d]
}

impl<'a, B: InverseBody<N>, const N: usize> Sideways<'a, B, N> {
    const NONLINEAR: bool = <B::Law as PointLaw<N>>::NONLINEAR_INERTIA;
    const KL: usize = <BandOf<B, N> as BandSolver>::KL;
    const W: usize = <BandOf<B, N> as BandSolver>::ROW;

    /// Storage for `p`'s mesh.
    pub(super) fn new(p: Problem<'a, B, N>) -> Self {
        let ku_needed = if Self::NONLINEAR { 4 * N - 1 } else { 3 * N };
        assert!(
            <BandOf<B, N> as BandSolver>::KL >= 3 * N
                && <BandOf<B, N> as BandSolver>::KU >= ku_needed,
            "the point law's band is too narrow for {N} components"
        );
        let nt = p.nt;
        let gl = GaussLegendre::new(2);
        let tg = [0, 1].map(|g| [1.0 - gl.points[g], gl.points[g]]);
        // weight of the point: 1 (one point in s) × w_g (in t) × hs ht, as the element's rule
        let w = [0, 1].map(|g| gl.weights[g] * p.hs * p.ht);
        let wi = gl.weights[0] * gl.weights[1] * p.hs * p.ht;
        let h6 = p.ht / 6.0;
        let mut mt_lu = Vec::with_capacity(crate::math::reserve(nt, 1));
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
            sg: tg,
            w,
            wi,
            mt_lu,
            batches: [0, 1].map(|_| Batch {
                elements: (0..=BATCH)
                    .map(|_| ElementColumn::new(nt, Self::NONLINEAR))
                    .collect(),
                columns: (0..BATCH)
                    .map(|_| Column {
                        r2: vec![[0.0; N]; nt],
                        y: vec![[0.0; N]; nt],
                        band: BandOf::<B, N>::new(2 * N * nt),
                        m2: vec![[0.0; N]; nt],
                        p2: vec![[0.0; N]; nt],
                        ym: vec![[0.0; N]; nt],
                        meas: Measures::default(),
                        known: vec![[0.0; N]; nt],
                        tip: if B::NONLINEAR_TIP {
                            vec![InertiaPoint::ZERO; 2 * nt]
                        } else {
                            Vec::new()
                        },
                    })
                    .collect(),
                range: (0, 0),
            }),
            p,
        }
    }

    /// Unknowns: `(x, v)` per node with `t > 0`, then `F` per time node `t > 0`.
    pub(super) fn unknowns(&self) -> usize {
        2 * N * (self.p.ns + 1) * self.p.nt + N * self.p.nt
    }

    /// Values of the Jacobian held at a time ([`stored_values`]).
    pub(super) fn stored(&self) -> usize {
        stored_values(
            self.p.nt,
            N,
            Self::KL,
            <BandOf<B, N> as BandSolver>::KU,
            Self::NONLINEAR,
        )
    }

    /// Index of `(x, v)` of node `(i, j)`, `j ≥ 1`, in the solver's vectors (column-major:
    /// the `2N n_t` unknowns of a space column are contiguous).
    pub(super) fn dof(&self, i: usize, j: usize) -> usize {
        (i * self.p.nt + j - 1) * 2 * N
    }

    /// Index of `F` at time node `j ≥ 1`.
    pub(super) fn f_dof(&self, j: usize) -> usize {
        2 * N * (self.p.ns + 1) * self.p.nt + N * (j - 1)
    }

    /// The unknowns of space column `i`.
    fn col<'u>(&self, u: &'u [f64], i: usize) -> &'u [f64] {
        let n = 2 * N * self.p.nt;
        &u[i * n..(i + 1) * n]
    }

    /// `(x, v)` of node `(i, j)` including the known `t = 0` level.
    #[inline]
    fn node(&self, col: &[f64], i: usize, j: usize) -> ([f64; N], [f64; N]) {
        if j == 0 {
            (self.p.x0[i], [0.0; N])
        } else {
            let k = 2 * N * (j - 1);
            (
                std::array::from_fn(|c| col[k + c]),
                std::array::from_fn(|c| col[k + N + c]),
            )
        }
    }

    /// Points of element column `es` at `u` (with the Hessian and the Jacobians if `tangent`).
    fn element_column(
        &self,
        u: &[f64],
        es: usize,
        tangent: bool,
        xs: &[f64; GROUPS],
        out: &mut ElementColumn<N>,
    ) -> Result<(), ElementError> {
        out.tangent = tangent;
        let (left, right) = (self.col(u, es), self.col(u, es + 1));
        let inv_hs = 1.0 / self.p.hs;
        let law = self.p.element.law();
        // per time level: the left and right nodal (x, v)
        let level = |j: usize| (self.node(left, es, j), self.node(right, es + 1, j));
        let mut lo = level(0);
        for et in 0..self.p.nt {
            let hi = level(et + 1);
            // stiffness points at the element middle: x = ½(x_l + x_r), p = (x_r − x_l)/hs
            let mid = |lv: &Level<N>| {
                let ((xl, _), (xr, _)) = lv;
                let x: [f64; N] = std::array::from_fn(|c| 0.5 * (xl[c] + xr[c]));
                let p: [f64; N] = std::array::from_fn(|c| (xr[c] - xl[c]) * inv_hs);
                (x, p)
            };
            let ((x0, p0), (x1, p1)) = (mid(&lo), mid(&hi));
            for g in 0..2 {
                let [a, b] = self.tg[g];
                let x: [f64; N] = std::array::from_fn(|c| a * x0[c] + b * x1[c]);
                let p: [f64; N] = std::array::from_fn(|c| a * p0[c] + b * p1[c]);
                let sp = law.stress_point(&x, &p, tangent)?.scaled(self.w[g]);
                if tangent {
                    out.stiffness_floor[2 * et + g] = self.point_floor(&sp, xs);
                }
                out.stiffness[2 * et + g] = sp;
            }
            if Self::NONLINEAR {
                let ((xl0, vl0), (xr0, vr0)) = lo;
                let ((xl1, vl1), (xr1, vr1)) = hi;
                let inv_ht = 1.0 / self.p.ht;
                for g in 0..2 {
                    let [sl, sr] = self.sg[g];
                    let xs0: [f64; N] = std::array::from_fn(|c| sl * xl0[c] + sr * xr0[c]);
                    let xs1: [f64; N] = std::array::from_fn(|c| sl * xl1[c] + sr * xr1[c]);
                    let vs0: [f64; N] = std::array::from_fn(|c| sl * vl0[c] + sr * vr0[c]);
                    let vs1: [f64; N] = std::array::from_fn(|c| sl * vl1[c] + sr * vr1[c]);
                    let a: [f64; N] = std::array::from_fn(|c| (vs1[c] - vs0[c]) * inv_ht);
                    for h in 0..2 {
                        let [t0, t1] = self.tg[h];
                        let x: [f64; N] = std::array::from_fn(|c| t0 * xs0[c] + t1 * xs1[c]);
                        let v: [f64; N] = std::array::from_fn(|c| t0 * vs0[c] + t1 * vs1[c]);
                        let ip = law.inertia_point(&x, &v, &a, tangent);
                        if !ip.f.iter().all(|f| f.is_finite()) {
                            return Err(ElementError::Inverted { nu: f64::NAN });
                        }
                        let ip = ip.scaled(self.wi);
                        if tangent {
                            out.inertia_floor[4 * et + 2 * g + h] = self.inertia_floor(&ip, xs);
                        }
                        out.inertia[4 * et + 2 * g + h] = ip;
                    }
                }
            }
            lo = hi;
        }
        Ok(())
    }

    /// Adds the residual of the points of an element column to the rows of its nodes on side
    /// `σ` (`+1`: the element's right node, `−1`: its left node) into `out.0[j − 1]`, the
    /// magnitudes of its terms into `out.1` and its floor basis into `out.2` (the points'
    /// [`Self::point_floor`] and [`Self::inertia_floor`], formed with them).
    fn scatter(&self, sigma: f64, points: &ElementColumn<N>, out: Rows<'_, N>) {
        let (out, mag, phi) = out;
        let s = sigma / self.p.hs;
        let side = usize::from(sigma > 0.0);
        // (the floor basis of the points is zero without their Hessians: not added)
        let floor = points.tangent;
        for et in 0..self.p.nt {
            for it in 0..2 {
                let j = et + it;
                if j == 0 {
                    continue;
                }
                let (o, om, op) = (&mut out[j - 1], &mut mag[j - 1], &mut phi[j - 1]);
                for g in 0..2 {
                    let t = self.tg[g][it];
                    let sp = &points.stiffness[2 * et + g];
                    for c in 0..N {
                        let (a, b) = (t * s * sp.gp[c], t * 0.5 * sp.gx[c]);
                        o[c] += a + b;
                        om[c] += a.abs() + b.abs();
                    }
                    if floor {
                        let pf = &points.stiffness_floor[2 * et + g];
                        for c in 0..N {
                            op[c] += t * pf[c];
                        }
                    }
                }
                if Self::NONLINEAR {
                    for g in 0..2 {
                        for h in 0..2 {
                            let ip = &points.inertia[4 * et + 2 * g + h];
                            let st = self.sg[g][side] * self.tg[h][it];
                            for c in 0..N {
                                o[c] += st * ip.f[c];
                                om[c] += (st * ip.f[c]).abs();
                            }
                            if floor {
                                let fl = &points.inertia_floor[4 * et + 2 * g + h];
                                for c in 0..N {
                                    op[c] += st * fl[c];
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The floor basis of a (weighted) stiffness point for the rows of one node:
    /// `Σ_d Σ_b |δe(σ_a)ᵀ H δe(σ_b)|_cd X_g(d)` summed over both nodes `b` of the element,
    /// bounded by `2 (|H_pp|/h_s² + (|H_px| + |H_pxᵀ|)/(2 h_s) + |H_xx|/4) X` (the time weights
    /// of the unknowns' levels sum to 1; the row's `T_a` is applied by the caller). Zero
    /// without the Hessian (residual-only passes).
    fn point_floor(&self, sp: &StressPoint<N>, xs: &[f64; GROUPS]) -> [f64; N] {
        let ih = 1.0 / self.p.hs;
        let ent = <B::Law as PointLaw<N>>::X_ENTERS;
        std::array::from_fn(|c| {
            let mut acc = 0.0;
            for d in 0..N {
                let mut v = sp.hpp[c][d].abs() * ih * ih;
                if ent[d] {
                    v += 0.5 * ih * sp.hpx[c][d].abs();
                }
                if ent[c] {
                    v += 0.5 * ih * sp.hpx[d][c].abs();
                    if ent[d] {
                        v += 0.25 * sp.hxx[c][d].abs();
                    }
                }
                acc += 2.0 * v * xs[group::<B::Law, N>(KINEMATIC, d)];
            }
            acc
        })
    }

    /// The floor basis of a (weighted) inertia point: `Σ_d |∂f/∂x| X_x + (|∂f/∂v| +
    /// 2 |∂f/∂(∂t v)| / h_t) X_v` (the interpolation weights of the unknowns sum to 1).
    fn inertia_floor(&self, ip: &InertiaPoint<N>, xs: &[f64; GROUPS]) -> [f64; N] {
        let it2 = 2.0 / self.p.ht;
        std::array::from_fn(|c| {
            (0..N)
                .map(|d| {
                    ip.jx[c][d].abs() * xs[group::<B::Law, N>(KINEMATIC, d)]
                        + (ip.jv[c][d].abs() + it2 * ip.ja[c][d].abs())
                            * xs[group::<B::Law, N>(MOMENTUM, d)]
                })
                .sum()
        })
    }

    /// `Σ_k |M_t(j, k)|`: `h_t`, `h_t / 2` at the last level.
    fn mt_rowsum(&self, j: usize) -> f64 {
        if j == self.p.nt {
            0.5 * self.p.ht
        } else {
            self.p.ht
        }
    }

    /// `Σ_{i'} M_s(i, i')`.
    fn ms_rowsum(&self, i: usize) -> f64 {
        let lo = i.saturating_sub(1);
        let hi = (i + 1).min(self.p.ns);
        (lo..=hi).map(|ip| self.ms(i, ip)).sum()
    }

    /// The largest `|u_j|` of the unknowns of every group ([`GROUPS`]; the known `t = 0`
    /// level and `F(t_start)` included): the `X_g` of the floor.
    fn group_maxima(&self, u: &[f64]) -> [f64; GROUPS] {
        let mut xs = [0.0f64; GROUPS];
        let n_field = 2 * N * (self.p.ns + 1) * self.p.nt;
        for (k, &v) in u[..n_field].iter().enumerate() {
            let c = k % (2 * N);
            let g = if c < N {
                group::<B::Law, N>(KINEMATIC, c)
            } else {
                group::<B::Law, N>(MOMENTUM, c - N)
            };
            xs[g] = xs[g].max(v.abs());
        }
        for (k, &v) in u[n_field..].iter().enumerate() {
            let g = group::<B::Law, N>(SERVO, k % N);
            xs[g] = xs[g].max(v.abs());
        }
        for x in self.p.x0 {
            for c in 0..N {
                let g = group::<B::Law, N>(KINEMATIC, c);
                xs[g] = xs[g].max(x[c].abs());
            }
        }
        for c in 0..N {
            let g = group::<B::Law, N>(SERVO, c);
            xs[g] = xs[g].max(self.p.f0[c].abs());
        }
        xs
    }

    /// `J δu` of the points of an element column for the updates of its left (`left`) and/or
    /// right (`right`) node column, scattered onto the rows of side `to`.
    fn apply(
        &self,
        points: &ElementColumn<N>,
        left: Option<&[f64]>,
        right: Option<&[f64]>,
        to: f64,
        out: &mut [[f64; N]],
    ) {
        let ih = 1.0 / self.p.hs;
        let st = to * ih;
        let side = usize::from(to > 0.0);
        // per level: (δx_l, δx_r, δv_l, δv_r) of the given sides (zero at j = 0)
        let level = |j: usize| -> [[f64; N]; 4] {
            let mut d = [[0.0; N]; 4];
            if j == 0 {
                return d;
            }
            if let Some(c) = left {
                d[0] = std::array::from_fn(|k| at::<N>(c, j, k));
                d[2] = std::array::from_fn(|k| at::<N>(c, j, N + k));
            }
            if let Some(c) = right {
                d[1] = std::array::from_fn(|k| at::<N>(c, j, k));
                d[3] = std::array::from_fn(|k| at::<N>(c, j, N + k));
            }
            d
        };
        let mut lo = level(0);
        for et in 0..self.p.nt {
            let hi = level(et + 1);
            // stiffness: δp = (δx_r − δx_l)/hs, δx = ½(δx_l + δx_r) per level
            let dp0: [f64; N] = std::array::from_fn(|c| (lo[1][c] - lo[0][c]) * ih);
            let dp1: [f64; N] = std::array::from_fn(|c| (hi[1][c] - hi[0][c]) * ih);
            let dx0: [f64; N] = std::array::from_fn(|c| 0.5 * (lo[0][c] + lo[1][c]));
            let dx1: [f64; N] = std::array::from_fn(|c| 0.5 * (hi[0][c] + hi[1][c]));
            let mut z = [[0.0; N]; 2];
            for (g, zg) in z.iter_mut().enumerate() {
                let [a, b] = self.tg[g];
                let dp: [f64; N] = std::array::from_fn(|c| a * dp0[c] + b * dp1[c]);
                let dx: [f64; N] = std::array::from_fn(|c| a * dx0[c] + b * dx1[c]);
                let sp = &points.stiffness[2 * et + g];
                // z = (σ/hs) (H_pp δp + H_px δx) + ½ (H_pxᵀ δp + H_xx δx)
                for c in 0..N {
                    let mut zp = 0.0;
                    let mut zx = 0.0;
                    for d in 0..N {
                        zp += sp.hpp[c][d] * dp[d];
                        if B::Law::X_ENTERS[d] {
                            zp += sp.hpx[c][d] * dx[d];
                        }
                        if B::Law::X_ENTERS[c] {
                            zx += sp.hpx[d][c] * dp[d];
                            if B::Law::X_ENTERS[d] {
                                zx += sp.hxx[c][d] * dx[d];
                            }
                        }
                    }
                    zg[c] = st * zp + 0.5 * zx;
                }
            }
            for it in 0..2 {
                let j = et + it;
                if j == 0 {
                    continue;
                }
                let (t0, t1) = (self.tg[0][it], self.tg[1][it]);
                let o = &mut out[j - 1];
                for c in 0..N {
                    o[c] += t0 * z[0][c] + t1 * z[1][c];
                }
            }
            if Self::NONLINEAR {
                let inv_ht = 1.0 / self.p.ht;
                for g in 0..2 {
                    let [sl, sr] = self.sg[g];
                    let comb = |lv: &[[f64; N]; 4], k: usize| -> [f64; N] {
                        std::array::from_fn(|c| sl * lv[k][c] + sr * lv[k + 1][c])
                    };
                    let (dx0, dx1) = (comb(&lo, 0), comb(&hi, 0));
                    let (dv0, dv1) = (comb(&lo, 2), comb(&hi, 2));
                    let da: [f64; N] = std::array::from_fn(|c| (dv1[c] - dv0[c]) * inv_ht);
                    for h in 0..2 {
                        let [t0, t1] = self.tg[h];
                        let ip = &points.inertia[4 * et + 2 * g + h];
                        let mut df = [0.0; N];
                        for c in 0..N {
                            let mut acc = 0.0;
                            for d in 0..N {
                                acc += ip.jx[c][d] * (t0 * dx0[d] + t1 * dx1[d])
                                    + ip.jv[c][d] * (t0 * dv0[d] + t1 * dv1[d])
                                    + ip.ja[c][d] * da[d];
                            }
                            df[c] = acc;
                        }
                        for it in 0..2 {
                            let j = et + it;
                            if j == 0 {
                                continue;
                            }
                            let wgt = self.sg[g][side] * self.tg[h][it];
                            let o = &mut out[j - 1];
                            for c in 0..N {
                                o[c] += wgt * df[c];
                            }
                        }
                    }
                }
            }
            lo = hi;
        }
    }

    /// `Σ_k D_t(j, k) z_k` for `j = 1..=n_t` with `z_0` given, component `c` of `col` (`c < 2N`).
    #[inline]
    fn dt_col(&self, col: &[f64], c: usize, j: usize, z0: f64) -> f64 {
        let nt = self.p.nt;
        let at = |k: usize| if k == 0 { z0 } else { at::<N>(col, k, c) };
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

    /// Lumped residual `y_i = D_t x_i − M_t v_i` per level (`x_i(0) = x0`, `v_i(0) = 0`), and
    /// the magnitudes of its two terms `|D_t x_i| + |M_t v_i|` into `mag`.
    fn lumped(&self, u: &[f64], i: usize, out: &mut [[f64; N]], mag: &mut [[f64; N]]) {
        let col = self.col(u, i);
        for j in 1..=self.p.nt {
            for c in 0..N {
                let dx = self.dt_col(col, c, j, self.p.x0[i][c]);
                let mv = self.mt_apply(
                    |k| {
                        if k == 0 { 0.0 } else { at::<N>(col, k, N + c) }
                    },
                    j,
                );
                out[j - 1][c] = dx - mv;
                mag[j - 1][c] = dx.abs() + mv.abs();
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

    /// The nonlinear tip law's points of the tip column at `u` (2-point Gauss per time
    /// element, weighted by `w ht`).
    fn tip_points(&self, u: &[f64], tangent: bool, out: &mut [InertiaPoint<N>]) {
        let ns = self.p.ns;
        let col = self.col(u, ns);
        let inv_ht = 1.0 / self.p.ht;
        let gl_w = 0.5 * self.p.ht;
        for et in 0..self.p.nt {
            let ((x0, v0), (x1, v1)) = (self.node(col, ns, et), self.node(col, ns, et + 1));
            let a: [f64; N] = std::array::from_fn(|c| (v1[c] - v0[c]) * inv_ht);
            for h in 0..2 {
                let [t0, t1] = self.tg[h];
                let x: [f64; N] = std::array::from_fn(|c| t0 * x0[c] + t1 * x1[c]);
                let v: [f64; N] = std::array::from_fn(|c| t0 * v0[c] + t1 * v1[c]);
                out[2 * et + h] = self.p.body.tip_point(&x, &v, &a, tangent).scaled(gl_w);
            }
        }
    }

    /// Adds the linear part of `R2_i` (inertia `A M_s D_t v`, tip law, actuation), the constant
    /// loads (`− q ∫S_i ds ∫T_j dt`, at the tip `− f_tip ∫T_j dt`) and the nonlinear tip law
    /// (`tip`, the tip column's points) into `out.0`, the magnitudes of these terms into
    /// `out.1` and their floor basis into `out.2`.
    fn linear_r2(
        &self,
        u: &[f64],
        i: usize,
        tip: &[InertiaPoint<N>],
        xs: &[f64; GROUPS],
        out: Rows<'_, N>,
    ) {
        let (out, mag, phi) = out;
        let ns = self.p.ns;
        let (q, ft) = (self.p.load, self.p.tip_load);
        if q != [0.0; N] || (i == ns && ft != [0.0; N]) {
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
                for c in 0..N {
                    let mut f = q[c] * si;
                    if i == ns {
                        f += ft[c];
                    }
                    out[j - 1][c] -= f * tj;
                    mag[j - 1][c] += (f * tj).abs();
                }
            }
        }
        let lo = i.saturating_sub(1);
        let hi = (i + 1).min(ns);
        for ip in lo..=hi {
            let col = self.col(u, ip);
            let m = self.ms(i, ip);
            for c in 0..N {
                let mut coef = self.p.inertia[c] * m;
                if i == ns && ip == ns {
                    coef += self.p.tip_mass[c];
                }
                if coef == 0.0 {
                    continue;
                }
                let xv = coef.abs() * xs[group::<B::Law, N>(MOMENTUM, c)];
                for j in 1..=self.p.nt {
                    let t = coef * self.dt_col(col, N + c, j, 0.0);
                    out[j - 1][c] += t;
                    mag[j - 1][c] += t.abs();
                    // Σ_k |D_t(j, k)| ≤ 1
                    phi[j - 1][c] += xv;
                }
            }
        }
        if B::NONLINEAR_TIP && i == ns {
            for et in 0..self.p.nt {
                for h in 0..2 {
                    let f = &tip[2 * et + h].f;
                    let fl = self.inertia_floor(&tip[2 * et + h], xs);
                    for it in 0..2 {
                        let j = et + it;
                        if j == 0 {
                            continue;
                        }
                        let t = self.tg[h][it];
                        for c in 0..N {
                            out[j - 1][c] += t * f[c];
                            mag[j - 1][c] += (t * f[c]).abs();
                            phi[j - 1][c] += t * fl[c];
                        }
                    }
                }
            }
        }
        if i == 0 {
            let fo = 2 * N * (ns + 1) * self.p.nt;
            for c in 0..N {
                for j in 1..=self.p.nt {
                    let at = |k: usize| {
                        if k == 0 {
                            self.p.f0[c]
                        } else {
                            u[fo + N * (k - 1) + c]
                        }
                    };
                    let t = self.mt_apply(at, j);
                    out[j - 1][c] -= t;
                    mag[j - 1][c] += t.abs();
                    phi[j - 1][c] += self.mt_rowsum(j) * xs[group::<B::Law, N>(SERVO, c)];
                }
            }
        }
    }

    /// The linear part of `J du` at `R2_i` for the updates of the columns `i' ∈ cols`
    /// (inertia and tip law, with the nonlinear tip law's Jacobian `tip`; the actuation is
    /// handled by the caller).
    fn linear_jdu(
        &self,
        du: &[f64],
        i: usize,
        cols: &[usize],
        tip: &[InertiaPoint<N>],
        out: &mut [[f64; N]],
    ) {
        let ns = self.p.ns;
        for &ip in cols {
            let col = self.col(du, ip);
            let m = self.ms(i, ip);
            for c in 0..N {
                let mut coef = self.p.inertia[c] * m;
                if i == ns && ip == ns {
                    coef += self.p.tip_mass[c];
                }
                if coef == 0.0 {
                    continue;
                }
                for j in 1..=self.p.nt {
                    out[j - 1][c] += coef * self.dt_col(col, N + c, j, 0.0);
                }
            }
            if B::NONLINEAR_TIP && i == ns && ip == ns {
                let inv_ht = 1.0 / self.p.ht;
                let val = |k: usize, d: usize| if k == 0 { 0.0 } else { at::<N>(col, k, d) };
                for et in 0..self.p.nt {
                    let (k0, k1) = (et, et + 1);
                    for h in 0..2 {
                        let [t0, t1] = self.tg[h];
                        let tp = &tip[2 * et + h];
                        let mut df = [0.0; N];
                        for c in 0..N {
                            let mut acc = 0.0;
                            for d in 0..N {
                                let dx = t0 * val(k0, d) + t1 * val(k1, d);
                                let dv = t0 * val(k0, N + d) + t1 * val(k1, N + d);
                                let da = (val(k1, N + d) - val(k0, N + d)) * inv_ht;
                                acc += tp.jx[c][d] * dx + tp.jv[c][d] * dv + tp.ja[c][d] * da;
                            }
                            df[c] = acc;
                        }
                        for it in 0..2 {
                            let j = et + it;
                            if j == 0 {
                                continue;
                            }
                            let t = self.tg[h][it];
                            for c in 0..N {
                                out[j - 1][c] += t * df[c];
                            }
                        }
                    }
                }
            }
        }
    }

    /// Adds the rows of the consistent `R1_i = Σ M_s(i, i') y_{i'}` to `meas`, from the lumped
    /// residuals (and the magnitudes of their terms) `y_{i−1}` (`below`, absent at the base),
    /// `y_i` and `y_{i+1}` (`above`, absent at the tip). Floor basis
    /// `Σ_{i'} M_s(i, i') (X_x + Σ_k |M_t(j, k)| X_v)` (`Σ_k |D_t(j, k)| ≤ 1`).
    fn r1_rows(
        &self,
        i: usize,
        below: Option<LumpedRef<'_, N>>,
        own: LumpedRef<'_, N>,
        above: Option<LumpedRef<'_, N>>,
        xs: &[f64; GROUPS],
        meas: &mut Measures,
    ) {
        let (m_own, m_off) = (self.ms(i, i), self.p.hs / 6.0);
        let msum = self.ms_rowsum(i);
        for c in 0..N {
            let g = group::<B::Law, N>(KINEMATIC, c);
            let rows = (0..self.p.nt).map(|j| {
                let mt = self.mt_rowsum(j + 1);
                let mut s = m_own * own.0[j][c];
                let mut m = m_own * own.1[j][c];
                if let Some((y, ym)) = below {
                    s += m_off * y[j][c];
                    m += m_off * ym[j][c];
                }
                if let Some((y, ym)) = above {
                    s += m_off * y[j][c];
                    m += m_off * ym[j][c];
                }
                let phi = msum * (xs[g] + mt * xs[group::<B::Law, N>(MOMENTUM, c)]);
                (s, m, phi)
            });
            meas.add_rows(g, rows);
        }
    }

    /// The couplings of element `et` of element column `i − 1` between the rows of its right
    /// node column `i` at the time levels `et + ia` and the unknowns of its left node column
    /// `i − 1` at the levels `et + ib`: `[ia][ib][c][d]` for `x(d)` (stiffness and inertia) and
    /// for `v(d)` (nonlinear inertia only).
    #[allow(clippy::type_complexity)]
    fn couplings(
        &self,
        left: &ElementColumn<N>,
        et: usize,
    ) -> ([[[[f64; N]; N]; 2]; 2], [[[[f64; N]; N]; 2]; 2]) {
        let mut kx = [[[[0.0; N]; N]; 2]; 2];
        let mut kv = [[[[0.0; N]; N]; 2]; 2];
        let ih = 1.0 / self.p.hs;
        // δe(+) of the rows: (p, x) = (+1/hs, ½); δe(−) of the unknowns: (−1/hs, ½)
        let (pr, pc) = (ih, -ih);
        for g in 0..2 {
            let sp = &left.stiffness[2 * et + g];
            let mut kh = [[0.0; N]; N];
            for c in 0..N {
                for d in 0..N {
                    let mut v = pr * pc * sp.hpp[c][d];
                    if B::Law::X_ENTERS[d] {
                        v += pr * 0.5 * sp.hpx[c][d];
                    }
                    if B::Law::X_ENTERS[c] {
                        v += 0.5 * pc * sp.hpx[d][c];
                        if B::Law::X_ENTERS[d] {
                            v += 0.25 * sp.hxx[c][d];
                        }
                    }
                    kh[c][d] = v;
                }
            }
            for ia in 0..2 {
                for ib in 0..2 {
                    let t = self.tg[g][ia] * self.tg[g][ib];
                    for c in 0..N {
                        for d in 0..N {
                            kx[ia][ib][c][d] += t * kh[c][d];
                        }
                    }
                }
            }
        }
        if Self::NONLINEAR {
            let inv_ht = 1.0 / self.p.ht;
            for g in 0..2 {
                // row weight S_1(ξ_g) (node i), column weight S_0(ξ_g) (node i − 1)
                let ss = self.sg[g][1] * self.sg[g][0];
                for h in 0..2 {
                    let ip = &left.inertia[4 * et + 2 * g + h];
                    for ia in 0..2 {
                        for ib in 0..2 {
                            let ta = self.tg[h][ia] * ss;
                            let tb = self.tg[h][ib];
                            let tdb = if ib == 1 { inv_ht } else { -inv_ht };
                            for c in 0..N {
                                for d in 0..N {
                                    kx[ia][ib][c][d] += ta * tb * ip.jx[c][d];
                                    kv[ia][ib][c][d] += ta * (tb * ip.jv[c][d] + tdb * ip.ja[c][d]);
                                }
                            }
                        }
                    }
                }
            }
        }
        (kx, kv)
    }

    /// Fills the banded block of column `i − 1` (rows `R2_i`, lumped `R1_{i−1}`) from the
    /// points of element column `i − 1`, and factorises it, one time level (`2N` rows) at a
    /// time just ahead of the elimination.
    fn fill_band(
        &self,
        left: &ElementColumn<N>,
        i: usize,
        band: &mut BandOf<B, N>,
    ) -> Result<(), SolveError> {
        let nt = self.p.nt;
        let (kl, w) = (Self::KL, Self::W);
        let h6 = self.p.ht / 6.0;
        let alpha = self.p.inertia.map(|a| a * self.ms(i, i - 1));
        // the element below the level (et = j − 1), carried from the previous level
        let mut below = self.couplings(left, 0);
        band.factorize_streamed(2 * N, |b, rows| {
            let j = b + 1;
            let above = if j < nt {
                Some(self.couplings(left, j))
            } else {
                None
            };
            // unknown d of level k at offset 2N (k − j) + d − r + KL in row r
            let mut put = |r: usize, k: usize, d: usize, v: f64| {
                rows[r * w + 2 * N * k + d + kl - 2 * N * j - r] += v;
            };
            for c in 0..N {
                for d in 0..N {
                    // rows of level j from the element below (its upper level, ia = 1) and the
                    // element above (its lower level, ia = 0)
                    if j > 1 {
                        put(c, j - 1, d, below.0[1][0][c][d]);
                        if Self::NONLINEAR {
                            put(c, j - 1, N + d, below.1[1][0][c][d]);
                        }
                    }
                    let mut diag_x = below.0[1][1][c][d];
                    let mut diag_v = below.1[1][1][c][d];
                    if let Some(a) = &above {
                        diag_x += a.0[0][0][c][d];
                        diag_v += a.1[0][0][c][d];
                        put(c, j + 1, d, a.0[0][1][c][d]);
                        if Self::NONLINEAR {
                            put(c, j + 1, N + d, a.1[0][1][c][d]);
                        }
                    }
                    put(c, j, d, diag_x);
                    if Self::NONLINEAR {
                        put(c, j, N + d, diag_v);
                    }
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
                for c in 0..N {
                    if dt != 0.0 {
                        if alpha[c] != 0.0 {
                            put(c, k, N + c, alpha[c] * dt);
                        }
                        put(N + c, k, c, dt);
                    }
                    put(N + c, k, N + c, -mt);
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
    #[allow(clippy::too_many_arguments)]
    fn prepare_column(
        &self,
        u: &[f64],
        i: usize,
        left: &ElementColumn<N>,
        right: Option<&ElementColumn<N>>,
        full: bool,
        xs: &[f64; GROUPS],
        col: &mut Column<BandOf<B, N>, N>,
    ) -> Result<(), SolveError> {
        col.r2.fill([0.0; N]);
        col.m2.fill([0.0; N]);
        col.p2.fill([0.0; N]);
        self.scatter(1.0, left, (&mut col.r2, &mut col.m2, &mut col.p2));
        if let Some(right) = right {
            self.scatter(-1.0, right, (&mut col.r2, &mut col.m2, &mut col.p2));
        }
        if B::NONLINEAR_TIP && i == self.p.ns {
            self.tip_points(u, full, &mut col.tip);
        }
        let Column {
            r2, m2, p2, tip, ..
        } = col;
        self.linear_r2(u, i, tip, xs, (r2, m2, p2));
        col.meas.reset(GROUPS);
        for c in 0..N {
            let g = group::<B::Law, N>(MOMENTUM, c);
            let rows = (0..self.p.nt).map(|j| (col.r2[j][c], col.m2[j][c], col.p2[j][c]));
            col.meas.add_rows(g, rows);
        }
        self.lumped(u, i - 1, &mut col.y, &mut col.ym);
        if full {
            self.fill_band(left, i, &mut col.band)?;
        }
        Ok(())
    }

    /// One pass at `u`: the measures of the residual per equation group into `meas`
    /// ([`GROUPS`]: residual, magnitudes of the terms, floor basis of every row) and, if
    /// `full`, the Newton update `du` (`J du = r`). A residual-only pass computes no Hessian:
    /// its floor basis lacks the stiffness part.
    pub(super) fn pass(
        &mut self,
        u: &[f64],
        du: &mut [f64],
        full: bool,
        meas: &mut Measures,
    ) -> Result<Pass, PassError> {
        let mut out = Pass::default();
        let mut batches = std::mem::replace(&mut self.batches, [Batch::empty(), Batch::empty()]);
        meas.reset(GROUPS);
        let result = self.march(u, du, full, &mut batches, &mut out, meas);
        self.batches = batches;
        result?;
        Ok(out)
    }

    /// Points, residual, lumped residual and (full passes) factorised bands of the node
    /// columns `i_hi, …, i_hi − n + 1` into `batch`; `right`: element column `i_hi` (none at
    /// the tip). Returns the seconds spent in the points and in the columns.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &self,
        u: &[f64],
        full: bool,
        xs: &[f64; GROUPS],
        (i_hi, n): (usize, usize),
        right: Option<&ElementColumn<N>>,
        batch: &mut Batch<BandOf<B, N>, N>,
    ) -> Result<(f64, f64), PassError> {
        batch.range = (i_hi, n);
        let t = Instant::now();
        if let Some(right) = right {
            batch.elements[0].copy_from(right);
        }
        batch.elements[1..=n]
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(k, pts)| self.element_column(u, i_hi - 1 - k, full, xs, pts))
            .map_err(PassError::Element)?;
        let kernel = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let elements = &batch.elements;
        let has_right = right.is_some();
        batch.columns[..n]
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(k, col)| {
                let right = (k > 0 || has_right).then(|| &elements[k]);
                self.prepare_column(u, i_hi - k, &elements[k + 1], right, full, xs, col)
            })
            .map_err(PassError::Linear)?;
        Ok((kernel, t.elapsed().as_secs_f64()))
    }

    /// The sequential part of a prepared batch: the measures of its rows (`R2`, consistent
    /// `R1`), and (full passes) the substitutions column after column. `y`: the lumped
    /// residuals and their magnitudes of the column above the batch (`own`) and of the one
    /// above that (`above`), updated to those of the batch's last two columns.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        du: &mut [f64],
        full: bool,
        has_right: bool,
        elements: &[ElementColumn<N>],
        columns: &mut [Column<BandOf<B, N>, N>],
        (i_hi, n): (usize, usize),
        y: &mut Lumped<N>,
        xs: &[f64; GROUPS],
        meas: &mut Measures,
        out: &mut Pass,
    ) {
        let t = Instant::now();
        let ns = self.p.ns;
        for (k, col) in columns[..n].iter_mut().enumerate() {
            let i = i_hi - k;
            meas.merge(&col.meas);
            let above = (i < ns).then_some((y.above.as_slice(), y.above_m.as_slice()));
            self.r1_rows(
                i,
                Some((&col.y, &col.ym)),
                (&y.own, &y.own_m),
                above,
                xs,
                meas,
            );
            if full {
                let right = (k > 0 || has_right).then(|| &elements[k]);
                self.substitute(du, i, &elements[k + 1], right, col, out);
            }
            // y_{i−1} becomes the column's own, y_i the one above
            std::mem::swap(&mut y.above, &mut y.own);
            std::mem::swap(&mut y.above_m, &mut y.own_m);
            y.own.copy_from_slice(&col.y);
            y.own_m.copy_from_slice(&col.ym);
        }
        out.column_seconds += t.elapsed().as_secs_f64();
    }

    fn march(
        &self,
        u: &[f64],
        du: &mut [f64],
        full: bool,
        batches: &mut [Batch<BandOf<B, N>, N>; 2],
        out: &mut Pass,
        meas: &mut Measures,
    ) -> Result<(), PassError> {
        let (ns, nt) = (self.p.ns, self.p.nt);
        let started = Instant::now();
        let xs = self.group_maxima(u);
        // lumped residuals y_{i+1}, y_i of the columns above the one being processed
        let mut y = Lumped {
            own: vec![[0.0; N]; nt],
            own_m: vec![[0.0; N]; nt],
            above: vec![[0.0; N]; nt],
            above_m: vec![[0.0; N]; nt],
        };
        self.lumped(u, ns, &mut y.own, &mut y.own_m);
        // 1. Servo rows R3 → x at the tip; lumped R1_ns → v at the tip. The terms of R3 are
        // measured from the tip's start value: `M_t (x − x0)` and `∫ N (γ − x0)`.
        let tip = self.col(u, ns);
        let x0 = self.p.x0[ns];
        let mut r3 = vec![0.0; N * nt];
        for j in 1..=nt {
            for c in 0..N {
                let at = |k: usize| if k == 0 { x0[c] } else { at::<N>(tip, k, c) };
                let r = self.mt_apply(at, j) - self.p.gamma[j - 1][c];
                r3[N * (j - 1) + c] = r;
                let mt = self.mt_rowsum(j);
                let rel = |k: usize| {
                    if k == 0 {
                        0.0
                    } else {
                        tip[2 * N * (k - 1) + c] - x0[c]
                    }
                };
                let m = self.mt_apply(rel, j).abs() + (self.p.gamma[j - 1][c] - mt * x0[c]).abs();
                let g = group::<B::Law, N>(SERVO, c);
                meas.add_row(g, r, m, mt * xs[group::<B::Law, N>(KINEMATIC, c)]);
            }
        }
        if full {
            let mut b = r3.clone();
            for c in 0..N {
                self.mt_solve(&mut b, N, c);
            }
            let o = self.dof(ns, 1);
            let dcol = &mut du[o..o + 2 * N * nt];
            for j in 0..nt {
                dcol[2 * N * j..2 * N * j + N].copy_from_slice(&b[N * j..N * j + N]);
            }
            for j in 1..=nt {
                for c in 0..N {
                    b[N * (j - 1) + c] = self.dt_col(dcol, c, j, 0.0) - y.own[j - 1][c];
                }
            }
            for c in 0..N {
                self.mt_solve(&mut b, N, c);
            }
            for j in 0..nt {
                dcol[2 * N * j + N..2 * N * j + 2 * N].copy_from_slice(&b[N * j..N * j + N]);
            }
            // mismatch of the servo rows and the lumped tip kinematics
            let dcol = &du[o..o + 2 * N * nt];
            for j in 1..=nt {
                for c in 0..N {
                    let x = |k: usize| if k == 0 { 0.0 } else { at::<N>(dcol, k, c) };
                    let v = |k: usize| {
                        if k == 0 { 0.0 } else { at::<N>(dcol, k, N + c) }
                    };
                    let mx = self.mt_apply(x, j) - r3[N * (j - 1) + c];
                    let mv = self.dt_col(dcol, c, j, 0.0) - self.mt_apply(v, j) - y.own[j - 1][c];
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
        let (kernel, columns) = self.prepare(u, full, &xs, ranges[0], None, cur)?;
        out.kernel_seconds += kernel;
        out.column_seconds += columns;
        for (b, &range) in ranges.iter().enumerate() {
            let Batch {
                elements,
                columns: cols,
                ..
            } = &mut *cur;
            let elements: &[ElementColumn<N>] = elements;
            let lowest = &elements[range.1];
            let mut seq = Pass::default();
            let y = &mut y;
            let du = &mut *du;
            let meas = &mut *meas;
            let xs = &xs;
            let (prepared, ()) = rayon::join(
                || match ranges.get(b + 1) {
                    Some(&r) => self.prepare(u, full, xs, r, Some(lowest), next).map(Some),
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
                        y,
                        xs,
                        meas,
                        &mut seq,
                    )
                },
            );
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
        let element0 = &last.elements[last.range.1];
        // 3. R2_0 → actuation; consistent R1_0.
        let t = Instant::now();
        let above = (ns > 0).then_some((y.above.as_slice(), y.above_m.as_slice()));
        self.r1_rows(0, None, (&y.own, &y.own_m), above, &xs, meas);
        let mut r2 = vec![[0.0; N]; nt];
        let (mut m2, mut p2) = (vec![[0.0; N]; nt], vec![[0.0; N]; nt]);
        self.scatter(-1.0, element0, (&mut r2, &mut m2, &mut p2));
        self.linear_r2(u, 0, &[], &xs, (&mut r2, &mut m2, &mut p2));
        for c in 0..N {
            let g = group::<B::Law, N>(MOMENTUM, c);
            meas.add_rows(g, (0..nt).map(|j| (r2[j][c], m2[j][c], p2[j][c])));
        }
        if full {
            // known(0) − M_t dF = r2(0)
            let mut known = vec![[0.0; N]; nt];
            self.apply(
                element0,
                Some(self.col(du, 0)),
                Some(self.col(du, 1)),
                -1.0,
                &mut known,
            );
            self.linear_jdu(du, 0, &[0, 1], &[], &mut known);
            let fo = self.f_dof(1);
            let mut b = vec![0.0; N * nt];
            for j in 0..nt {
                for c in 0..N {
                    b[N * j + c] = known[j][c] - r2[j][c];
                }
            }
            for c in 0..N {
                self.mt_solve(&mut b, N, c);
            }
            du[fo..fo + N * nt].copy_from_slice(&b);
            for j in 1..=nt {
                for c in 0..N {
                    let f = |k: usize| if k == 0 { 0.0 } else { b[N * (k - 1) + c] };
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
        left: &ElementColumn<N>,
        right: Option<&ElementColumn<N>>,
        col: &mut Column<BandOf<B, N>, N>,
        out: &mut Pass,
    ) {
        let nt = self.p.nt;
        // known couplings: element column i (du_i, du_{i+1}), element column i − 1 (du_i)
        let known = &mut col.known;
        known.fill([0.0; N]);
        if let Some(right) = right {
            self.apply(
                right,
                Some(self.col(du, i)),
                Some(self.col(du, i + 1)),
                -1.0,
                known,
            );
            self.linear_jdu(du, i, &[i, i + 1], &col.tip, known);
        } else {
            self.linear_jdu(du, i, &[i], &col.tip, known);
        }
        self.apply(left, None, Some(self.col(du, i)), 1.0, known);
        let o = self.dof(i - 1, 1);
        let target = &mut du[o..o + 2 * N * nt];
        for j in 0..nt {
            for c in 0..N {
                target[2 * N * j + c] = col.r2[j][c] - known[j][c];
                target[2 * N * j + N + c] = col.y[j][c];
            }
        }
        col.band.solve_in_place(target);
        // mismatch: R2_i with the new column, lumped R1_{i−1}
        self.apply(left, Some(self.col(du, i - 1)), None, 1.0, known);
        self.linear_jdu(du, i, &[i - 1], &col.tip, known);
        let dcol = self.col(du, i - 1);
        for j in 1..=nt {
            for c in 0..N {
                let v = |k: usize| {
                    if k == 0 { 0.0 } else { at::<N>(dcol, k, N + c) }
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
