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

use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::discretize::pattern::{CscPattern, SKIP, reverse_cuthill_mckee};
use crate::discretize::strain_time::{SlotTerms, StrainTime, StrainTimeScratch};
use crate::model::{ConstrainedSystem, PointEval};
use rayon::prelude::*;

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

/// Solves the small dense system `a x = b` (row-major `n × n`, partial pivoting) in place.
fn solve_small(n: usize, a: &mut [f64], b: &mut [f64], nrhs: usize) {
    for k in 0..n {
        let piv = (k..n)
            .max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))
            .expect("non-empty");
        if piv != k {
            for c in 0..n {
                a.swap(k * n + c, piv * n + c);
            }
            for c in 0..nrhs {
                b.swap(k * nrhs + c, piv * nrhs + c);
            }
        }
        let d = a[k * n + k];
        assert!(d != 0.0, "the velocity rows of a time element are singular");
        for i in k + 1..n {
            let l = a[i * n + k] / d;
            for c in k..n {
                a[i * n + c] -= l * a[k * n + c];
            }
            for c in 0..nrhs {
                b[i * nrhs + c] -= l * b[k * nrhs + c];
            }
        }
    }
    for k in (0..n).rev() {
        for c in 0..nrhs {
            let mut s = b[k * nrhs + c];
            for j in k + 1..n {
                s -= a[k * n + j] * b[j * nrhs + c];
            }
            b[k * nrhs + c] = s / a[k * n + k];
        }
    }
}

impl<'s, S: ConstrainedSystem + ?Sized> CondensedElement<'s, S> {
    /// Whether the condensed element reproduces the full Petrov–Galerkin element with
    /// `quad_points` Gauss points: the velocity rows (degree `2p − 1`) must be integrated
    /// exactly, `quad_points ≥ p`.
    pub fn applies(order: usize, quad_points: usize) -> bool {
        order >= 1 && quad_points >= order
    }

    /// Builds the element of order `order` and length `h` with `quad_points` Gauss points per
    /// (sub-)interval.
    ///
    /// # Panics
    /// If `!applies(order, quad_points)` or the system exceeds `u32` positions (callers check).
    pub fn new(sys: &'s S, order: usize, h: f64, quad_points: usize) -> Self {
        assert!(Self::applies(order, quad_points));
        let p = order;
        let np = p + 1;
        let (nq, nl) = (sys.n_q(), sys.n_lambda());
        let trial = LagrangeBasis::new(p);
        let gauss_p = GaussLegendre::new(p);
        let test = LagrangeBasis::with_nodes(gauss_p.points.clone());
        // C, D exactly (degree ≤ 2p − 1 with p + 1 points)
        let exact = GaussLegendre::new(p + 1);
        let (mut c, mut d) = (vec![0.0; p * np], vec![0.0; p * np]);
        let (mut n, mut dn, mut psi, mut dpsi) =
            (vec![0.0; np], vec![0.0; np], vec![0.0; p], vec![0.0; p]);
        for (&t, &w) in exact.points.iter().zip(&exact.weights) {
            trial.eval_into(t, &mut n, &mut dn);
            test.eval_into(t, &mut psi, &mut dpsi);
            for k in 0..p {
                for a in 0..np {
                    c[k * np + a] += w * psi[k] * n[a];
                    d[k * np + a] += w * psi[k] * dn[a];
                }
            }
        }
        // α = Ĉ⁻¹ D, β = −Ĉ⁻¹ C_·0
        let mut chat: Vec<f64> = (0..p * p).map(|kb| c[(kb / p) * np + 1 + kb % p]).collect();
        let mut rhs = vec![0.0; p * (np + 1)];
        for k in 0..p {
            for a in 0..np {
                rhs[k * (np + 1) + a] = d[k * np + a];
            }
            rhs[k * (np + 1) + np] = -c[k * np];
        }
        solve_small(p, &mut chat, &mut rhs, np + 1);
        let alpha: Vec<f64> = (0..p * np)
            .map(|ba| rhs[(ba / np) * (np + 1) + ba % np])
            .collect();
        let beta: Vec<f64> = (0..p).map(|b| rhs[b * (np + 1) + np]).collect();
        let mut e_coef = vec![0.0; p * np];
        let mut f_coef = vec![0.0; p];
        for k in 0..p {
            f_coef[k] = d[k * np];
            for a in 1..np {
                f_coef[k] += d[k * np + a] * beta[a - 1];
                for b in 0..np {
                    e_coef[k * np + b] += d[k * np + a] * alpha[(a - 1) * np + b];
                }
            }
        }

        // ---- numbering: frames in reverse Cuthill–McKee order -------------------------------
        let has_strain = !sys.strain_slots().is_empty();
        let kp: &[(usize, usize)] = if has_strain {
            sys.point_k_pattern()
        } else {
            sys.k_pattern()
        };
        let gp = sys.g_pattern();
        let mass = sys.mass().to_vec();
        let n_groups = nq.div_ceil(12).max(1);
        let group = |i: usize| i / 12;
        let mut adj = vec![Vec::new(); n_groups];
        let mut link = |a: usize, b: usize| {
            if a != b {
                adj[a].push(b);
                adj[b].push(a);
            }
        };
        for &(i, j) in sys.k_pattern() {
            link(group(i), group(j));
        }
        for &(i, j, _) in &mass {
            link(group(i), group(j));
        }
        // a constraint row couples all of its columns (G is sorted by row)
        let mut row_first = vec![usize::MAX; nl];
        for &(e, j) in gp {
            if row_first[e] == usize::MAX {
                row_first[e] = group(j);
            } else {
                link(row_first[e], group(j));
            }
        }
        for a in &mut adj {
            a.sort_unstable();
            a.dedup();
        }
        let frames = reverse_cuthill_mckee(&adj);
        let mut rank = vec![0usize; n_groups];
        for (k, &g) in frames.iter().enumerate() {
            rank[g] = k;
        }
        // multiplier row e belongs to the group of largest rank among its columns
        let mut row_group = vec![usize::MAX; nl];
        for &(e, j) in gp {
            let g = group(j);
            if row_group[e] == usize::MAX || rank[g] > rank[row_group[e]] {
                row_group[e] = g;
            }
        }
        // rows without columns (none in practice) go last
        let mut coords_of = vec![Vec::new(); n_groups];
        for i in 0..nq {
            coords_of[group(i)].push(i);
        }
        let mut rows_of = vec![Vec::new(); n_groups];
        let mut orphans = Vec::new();
        for (e, &g) in row_group.iter().enumerate() {
            if g == usize::MAX {
                orphans.push(e);
            } else {
                rows_of[g].push(e);
            }
        }
        let n_unknowns = p * (nq + nl);
        let mut q_col = vec![0u32; p * nq];
        let mut l_col = vec![0u32; p * nl];
        let mut slot_of = vec![0u32; n_unknowns];
        let mut next = 0usize;
        for &g in &frames {
            for a in 0..p {
                for &i in &coords_of[g] {
                    q_col[a * nq + i] = next as u32;
                    slot_of[next] = a as u32;
                    next += 1;
                }
                for &e in &rows_of[g] {
                    l_col[a * nl + e] = next as u32;
                    slot_of[next] = a as u32;
                    next += 1;
                }
            }
        }
        for a in 0..p {
            for &e in &orphans {
                l_col[a * nl + e] = next as u32;
                slot_of[next] = a as u32;
                next += 1;
            }
        }
        debug_assert_eq!(next, n_unknowns);

        // ---- pattern ------------------------------------------------------------------------
        // rows: R_q^k ↔ q of node k+1, R_λ^k ↔ λ_k
        let (qc, lc) = (&q_col, &l_col);
        let rq_row = move |k: usize, i: usize| qc[k * nq + i] as usize;
        let rl_row = move |k: usize, e: usize| lc[k * nl + e] as usize;
        let q_of = move |b: usize, j: usize| qc[(b - 1) * nq + j] as usize;
        let l_of = move |m: usize, e: usize| lc[m * nl + e] as usize;
        let slots = sys.strain_slots();
        let mass_ref = &mass;
        let entries = || {
            let blocks = (0..p).flat_map(move |k| {
                (1..np).flat_map(move |b| {
                    kp.iter()
                        .map(move |&(i, j)| (rq_row(k, i), q_of(b, j)))
                        .chain(
                            mass_ref
                                .iter()
                                .map(move |&(i, j, _)| (rq_row(k, i), q_of(b, j))),
                        )
                        .chain(gp.iter().map(move |&(e, j)| (rl_row(k, e), q_of(b, j))))
                        .chain(slots.iter().flat_map(move |s| {
                            s.indices.iter().flat_map(move |&i| {
                                s.indices.iter().map(move |&j| (rq_row(k, i), q_of(b, j)))
                            })
                        }))
                })
            });
            let lam = (0..p).flat_map(move |k| {
                (0..p).flat_map(move |m| gp.iter().map(move |&(e, j)| (rq_row(k, j), l_of(m, e))))
            });
            blocks.chain(lam)
        };
        let pattern = CscPattern::from_entries(n_unknowns, entries);
        assert!(
            pattern.nnz() < SKIP as usize,
            "system too large for 32-bit positions"
        );
        let pos = |r: usize, c: usize| pattern.position(r, c) as u32;
        let mut pos_k = Vec::with_capacity(p * p * kp.len());
        let mut pos_g = Vec::with_capacity(p * p * gp.len());
        let mut base_values = vec![0.0; pattern.nnz()];
        for k in 0..p {
            for b in 1..np {
                pos_k.extend(kp.iter().map(|&(i, j)| pos(rq_row(k, i), q_of(b, j))));
                pos_g.extend(gp.iter().map(|&(e, j)| pos(rl_row(k, e), q_of(b, j))));
                let f = e_coef[k * np + b] / h;
                for &(i, j, m) in &mass {
                    base_values[pos(rq_row(k, i), q_of(b, j)) as usize] += f * m;
                }
            }
        }
        let mut pos_gt = Vec::with_capacity(p * p * gp.len());
        for k in 0..p {
            for m in 0..p {
                pos_gt.extend(gp.iter().map(|&(e, j)| pos(rq_row(k, j), l_of(m, e))));
            }
        }
        let strain = has_strain.then(|| {
            let n_loc = slots.iter().map(|s| s.element.n_loc()).max().unwrap_or(0);
            let st = StrainTime::new(p, n_loc);
            let mut pos_offset = Vec::with_capacity(slots.len());
            let mut spos = Vec::new();
            for s in slots {
                pos_offset.push(spos.len());
                for k in 0..p {
                    for b in 1..np {
                        for &i in &s.indices {
                            for &j in &s.indices {
                                spos.push(pos(rq_row(k, i), q_of(b, j)));
                            }
                        }
                    }
                }
            }
            StrainPart {
                sc: st.scratch(),
                terms: st.terms(1),
                st,
                pos_offset,
                pos: spos,
                local: vec![0.0; np * n_loc],
                batch: Vec::new(),
                dissipated: 0.0,
            }
        });
        // row-wise 𝕄 and G (sums per row in a register, not through memory)
        let mut mass_rows = sys.mass().to_vec();
        mass_rows.sort_by_key(|&(i, j, _)| (i, j));
        let mut mass_ptr = vec![0usize; nq + 1];
        for &(i, _, _) in &mass_rows {
            mass_ptr[i + 1] += 1;
        }
        for i in 0..nq {
            mass_ptr[i + 1] += mass_ptr[i];
        }
        let mut g_sorted: Vec<usize> = (0..gp.len()).collect();
        g_sorted.sort_by_key(|&k| gp[k]);
        let mut g_ptr = vec![0usize; nl + 1];
        for &(e, _) in gp {
            g_ptr[e + 1] += 1;
        }
        for e in 0..nl {
            g_ptr[e + 1] += g_ptr[e];
        }
        Self {
            sys,
            p,
            h,
            nq,
            nl,
            mass_ptr,
            mass_col: mass_rows.iter().map(|&(_, j, _)| j as u32).collect(),
            mass_val: mass_rows.iter().map(|&(_, _, m)| m).collect(),
            g_ptr,
            g_idx: g_sorted.iter().map(|&k| k as u32).collect(),
            g_col: g_sorted.iter().map(|&k| gp[k].1 as u32).collect(),
            trial,
            test,
            quad: GaussLegendre::new(quad_points),
            alpha,
            beta,
            e_coef,
            f_coef,
            q_col,
            l_col,
            slot_of,
            base_values,
            pos_k,
            pos_g,
            pos_gt,
            breakpoints: sys.breakpoints(),
            use_point_k: has_strain,
            ev: sys.new_point_eval(),
            qn: vec![0.0; np * nq],
            dq: vec![0.0; p * nq],
            lam: vec![0.0; p * nl],
            rq: vec![0.0; p * nq],
            rl: vec![0.0; p * nl],
            fields: vec![0.0; 2 * nq + nl],
            rgen: vec![0.0; nq],
            gq: vec![0.0; nl],
            n_buf: vec![0.0; np],
            dn_buf: vec![0.0; np],
            psi: vec![0.0; p],
            dpsi: vec![0.0; p],
            subs: Vec::with_capacity(4),
            strain,
            parallel_min: PARALLEL_MIN_STRAIN_ELEMENTS,
            pattern,
        }
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

    /// Energy dissipated by the viscous stresses of the strain elements at the last
    /// [`assemble`](Self::assemble) (J; zero without viscosity).
    pub fn dissipated(&self) -> f64 {
        self.strain.as_ref().map_or(0.0, |s| s.dissipated)
    }

    /// Residual `r` at the unknowns `x` of the element starting at `t0` from `(q0, v0)` and, if
    /// `values` is given, the Jacobian values in pattern order.
    pub fn assemble(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        r: &mut [f64],
        mut values: Option<&mut [f64]>,
    ) {
        let (p, nq, nl, h) = (self.p, self.nq, self.nl, self.h);
        let np = p + 1;
        let tangent = values.is_some();
        if let Some(v) = values.as_deref_mut() {
            v.copy_from_slice(&self.base_values);
        }
        // nodal increments Δq_B = q_B − q_0 (the unknowns) and values, in natural order
        self.qn[..nq].copy_from_slice(q0);
        for (k, &c) in self.q_col.iter().enumerate() {
            let d = x[c as usize];
            self.dq[k] = d;
            self.qn[nq + k] = q0[k % nq] + d;
        }
        for (o, &c) in self.lam.iter_mut().zip(&self.l_col) {
            *o = x[c as usize];
        }
        self.rl.fill(0.0);
        // 𝕄 v̇ rows: R_q^k = 𝕄 ((1/h) Σ_B E_kB Δq_B + F_k v_0) + …
        self.rq.fill(0.0);
        for k in 0..p {
            let w = &mut self.rgen;
            for i in 0..nq {
                let mut s = 0.0;
                for b in 1..np {
                    s += self.e_coef[k * np + b] * self.dq[(b - 1) * nq + i];
                }
                w[i] = s / h + self.f_coef[k] * v0[i];
            }
            let rk = &mut self.rq[k * nq..(k + 1) * nq];
            for (i, r) in rk.iter_mut().enumerate() {
                let mut s = 0.0;
                for t in self.mass_ptr[i]..self.mass_ptr[i + 1] {
                    s += self.mass_val[t] * w[self.mass_col[t] as usize];
                }
                *r += s;
            }
        }
        let nkp = if self.use_point_k {
            self.sys.point_k_pattern().len()
        } else {
            self.sys.k_pattern().len()
        };
        let ng = self.sys.g_pattern().len();
        super::space_time::split_at_breakpoints(&self.breakpoints, t0, t0 + h, &mut self.subs);
        for si in 0..self.subs.len() {
            let (s0, s1) = self.subs[si];
            for g in 0..self.quad.len() {
                let tau = s0 + (s1 - s0) * self.quad.points[g];
                let w = self.quad.weights[g] * (s1 - s0) * h;
                let t = t0 + tau * h;
                self.trial.eval_into(tau, &mut self.n_buf, &mut self.dn_buf);
                self.test.eval_into(tau, &mut self.psi, &mut self.dpsi);
                // fields = [q_h, q̇_h, λ_h], q_h = q_0 + Σ_B N_B Δq_B
                self.fields.fill(0.0);
                self.fields[..nq].copy_from_slice(q0);
                for b in 1..np {
                    let (nb, db) = (self.n_buf[b], self.dn_buf[b] / h);
                    let dqb = &self.dq[(b - 1) * nq..b * nq];
                    let (fq, rest) = self.fields.split_at_mut(nq);
                    for ((x, y), &v) in fq.iter_mut().zip(rest[..nq].iter_mut()).zip(dqb) {
                        *x += nb * v;
                        *y += db * v;
                    }
                }
                for m in 0..p {
                    let pm = self.psi[m];
                    for (o, &l) in self.fields[2 * nq..]
                        .iter_mut()
                        .zip(&self.lam[m * nl..(m + 1) * nl])
                    {
                        *o += pm * l;
                    }
                }
                let (qh, rest) = self.fields.split_at(nq);
                let (qdot, lh) = rest.split_at(nq);
                if self.use_point_k {
                    self.sys
                        .eval_without_strain(t, qh, lh, &mut self.ev, tangent);
                } else {
                    self.sys.eval(t, qh, lh, &mut self.ev, tangent);
                }
                if tangent {
                    self.sys.eval_velocity_jacobian(qh, qdot, &mut self.ev);
                }
                // Gᵀλ_h − f and G q̇_h + ∂Φ/∂t
                for (o, &f) in self.rgen.iter_mut().zip(&self.ev.force) {
                    *o = -f;
                }
                for e in 0..nl {
                    let (mut s, le) = (self.ev.phi_t[e], lh[e]);
                    for t in self.g_ptr[e]..self.g_ptr[e + 1] {
                        let (gv, j) = (self.ev.g[self.g_idx[t] as usize], self.g_col[t] as usize);
                        self.rgen[j] += gv * le;
                        s += gv * qdot[j];
                    }
                    self.gq[e] = s;
                }
                for k in 0..p {
                    let wk = w * self.psi[k];
                    for (o, &v) in self.rq[k * nq..(k + 1) * nq].iter_mut().zip(&self.rgen) {
                        *o += wk * v;
                    }
                    for (o, &v) in self.rl[k * nl..(k + 1) * nl].iter_mut().zip(&self.gq) {
                        *o += wk * v;
                    }
                }
                let Some(vals) = values.as_deref_mut() else {
                    continue;
                };
                let kv = &self.ev.k[..nkp];
                for k in 0..p {
                    for b in 1..np {
                        let blk = k * p + b - 1;
                        let c = w * self.psi[k] * self.n_buf[b];
                        let d = w * self.psi[k] * self.dn_buf[b] / h;
                        for (&ps, &v) in self.pos_k[blk * nkp..(blk + 1) * nkp].iter().zip(kv) {
                            vals[ps as usize] += c * v;
                        }
                        for ((&ps, &gv), &g) in self.pos_g[blk * ng..(blk + 1) * ng]
                            .iter()
                            .zip(&self.ev.gv)
                            .zip(&self.ev.g)
                        {
                            vals[ps as usize] += c * gv + d * g;
                        }
                    }
                    for m in 0..p {
                        let blk = k * p + m;
                        let c = w * self.psi[k] * self.psi[m];
                        for (&ps, &g) in
                            self.pos_gt[blk * ng..(blk + 1) * ng].iter().zip(&self.ev.g)
                        {
                            vals[ps as usize] += c * g;
                        }
                    }
                }
            }
        }
        if self.strain.is_some() {
            self.strain_terms(values);
        }
        // natural → frame-wise numbering
        for (&c, &v) in self.q_col.iter().zip(&self.rq) {
            r[c as usize] = v;
        }
        for (&c, &v) in self.l_col.iter().zip(&self.rl) {
            r[c as usize] = v;
        }
    }

    /// Adds the strain elements' residual (to `rq`) and tangent (to `values`).
    fn strain_terms(&mut self, mut values: Option<&mut [f64]>) {
        let (p, nq, h) = (self.p, self.nq, self.h);
        let np = p + 1;
        let sys: &'s S = self.sys;
        let slots = sys.strain_slots();
        let parallel_min = self.parallel_min;
        let sp = self.strain.as_mut().expect("strain part");
        let tangent = values.is_some();
        let qn = &self.qn;
        let rq = &mut self.rq;
        sp.dissipated = 0.0;
        let gather = |slot: &crate::model::StrainSlot, local: &mut [f64]| {
            let nl = slot.indices.len();
            for a in 0..np {
                let qa = &qn[a * nq..(a + 1) * nq];
                for (o, &i) in local[a * nl..(a + 1) * nl].iter_mut().zip(&slot.indices) {
                    *o = qa[i];
                }
            }
        };
        // adds one slot's terms (in slot order: the same sums for any thread count)
        let scatter = |si: usize,
                       terms: &SlotTerms,
                       rq: &mut [f64],
                       values: &mut Option<&mut [f64]>,
                       pos_offset: &[usize],
                       pos: &[u32]| {
            let slot = &slots[si];
            let nl = slot.indices.len();
            for k in 0..p {
                let rk = &mut rq[k * nq..(k + 1) * nq];
                for (&i, &v) in slot.indices.iter().zip(&terms.res[k * nl..(k + 1) * nl]) {
                    rk[i] += v;
                }
            }
            if let Some(vals) = values.as_deref_mut() {
                let len = p * p * nl * nl;
                let ps = &pos[pos_offset[si]..pos_offset[si] + len];
                for (&ps, &v) in ps.iter().zip(&terms.tangent[..len]) {
                    vals[ps as usize] += v;
                }
            }
        };
        let threads = rayon::current_num_threads();
        if threads <= 1 || slots.len() < parallel_min {
            for (si, slot) in slots.iter().enumerate() {
                let el = slot.element.as_ref();
                let nl = el.n_loc();
                gather(slot, &mut sp.local[..np * nl]);
                sp.st.slot_terms(
                    el,
                    h,
                    &sp.local[..np * nl],
                    1,
                    tangent,
                    &mut sp.sc,
                    &mut sp.terms,
                );
                sp.dissipated += sp.terms.dissipated;
                scatter(si, &sp.terms, rq, &mut values, &sp.pos_offset, &sp.pos);
            }
            return;
        }
        let n_loc = slots.iter().map(|s| s.element.n_loc()).max().unwrap_or(0);
        let batch_len = STRAIN_BATCH.min(slots.len());
        let StrainPart {
            st,
            batch,
            pos_offset,
            pos,
            dissipated,
            ..
        } = sp;
        if batch.len() < batch_len {
            batch.resize_with(batch_len, || (vec![0.0; np * n_loc], st.terms(1)));
        }
        let st = &*st;
        for first in (0..slots.len()).step_by(STRAIN_BATCH) {
            let chunk = &slots[first..(first + STRAIN_BATCH).min(slots.len())];
            batch[..chunk.len()]
                .par_iter_mut()
                .zip(chunk.par_iter())
                .for_each_init(
                    || st.scratch(),
                    |sc, ((local, terms), slot)| {
                        let el = slot.element.as_ref();
                        let nl = el.n_loc();
                        gather(slot, &mut local[..np * nl]);
                        st.slot_terms(el, h, &local[..np * nl], 1, tangent, sc, terms);
                    },
                );
            for (k, (_, terms)) in batch[..chunk.len()].iter().enumerate() {
                *dissipated += terms.dissipated;
                scatter(first + k, terms, rq, &mut values, pos_offset, pos);
            }
        }
    }

    /// Stop criterion: `Σ_k ‖(R_q^k, R_λ^k)‖₂` over the test functions, the norm of the full
    /// form ([`super::PetrovGalerkinBlock::residual_norm`]) with its velocity rows at zero.
    pub fn residual_norm(&self, r: &[f64]) -> f64 {
        let mut sq = [0.0f64; 8];
        let mut big = Vec::new();
        let acc: &mut [f64] = if self.p <= sq.len() {
            &mut sq[..self.p]
        } else {
            big.resize(self.p, 0.0);
            &mut big
        };
        for (&k, &v) in self.slot_of.iter().zip(r) {
            acc[k as usize] += v * v;
        }
        acc.iter().map(|s| s.sqrt()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discretize::PetrovGalerkinBlock;
    use crate::discretize::petrov_galerkin::tests::spring_pair;

    /// The condensed residual and Jacobian are those of the full form with the velocities
    /// substituted: at a state whose velocities solve the velocity rows, the full form's `R_q`
    /// and `R_λ` equal the condensed residual, and the condensed Jacobian is the derivative of
    /// the condensed residual (central differences), for p = 1, 2, 3, with and without strain
    /// elements.
    #[test]
    fn condensed_element_matches_the_full_form_and_its_derivative() {
        for (sys, label) in [
            (spring_pair(Some(0.7)), "spring"),
            (spring_pair(None), "elastic"),
        ] {
            let (q0, v0) = sys.initial_state();
            let (nq, nl) = (sys.n_q(), sys.n_lambda());
            for order in 1..=3 {
                let h = 0.1;
                let mut el = CondensedElement::new(&sys, order, h, order);
                let mut full = PetrovGalerkinBlock::new(&sys, order, 1, h, order);
                let n = el.n_unknowns();
                let mut x = vec![0.0; n];
                let lam: Vec<f64> = (0..nl).map(|e| 0.1 * e as f64 - 0.2).collect();
                el.set_multipliers(&mut x, &lam);
                for a in 1..=order {
                    let q: Vec<f64> = q0
                        .iter()
                        .enumerate()
                        .map(|(i, v)| v + 0.01 * (a + i % 7) as f64)
                        .collect();
                    el.set_node(&mut x, a, &q0, &q);
                }
                // full-form unknowns with the condensed velocities
                let mut xf = vec![0.0; full.n_unknowns()];
                full.set_multipliers(&mut xf, &lam);
                let (mut q, mut v) = (vec![0.0; nq], vec![0.0; nq]);
                for a in 1..=order {
                    el.node_into(&x, a, &q0, &mut q);
                    el.velocity_into(&v0, &x, a, &mut v);
                    full.set_node(&mut xf, a, &q, &v);
                }
                let mut rf = vec![0.0; xf.len()];
                full.assemble(0.3, &q0, &v0, &xf, &mut rf, None);
                let mut r = vec![0.0; n];
                let mut vals = vec![0.0; el.pattern().nnz()];
                el.assemble(0.3, &q0, &v0, &x, &mut r, Some(&mut vals));
                let nd = full.slot_dofs();
                let scale = rf.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                for k in 0..order {
                    let slot = &rf[k * nd..(k + 1) * nd];
                    for i in 0..nq {
                        assert!(
                            slot[nq + i].abs() < 1e-12 * scale,
                            "{label} p = {order}: R_v"
                        );
                        let got = r[el.q_col[k * nq + i] as usize];
                        assert!(
                            (got - slot[i]).abs() < 1e-12 * scale,
                            "{label} p = {order}: R_q^{k}[{i}] {got} vs {}",
                            slot[i]
                        );
                    }
                    for e in 0..nl {
                        let got = r[el.l_col[k * nl + e] as usize];
                        assert!((got - slot[2 * nq + e]).abs() < 1e-12 * scale);
                    }
                }
                assert!(
                    (el.residual_norm(&r) - full.residual_norm(&rf)).abs()
                        < 1e-12 * full.residual_norm(&rf)
                );
                let pat = el.pattern().clone();
                let eps = 1e-6;
                let (mut rp, mut rm) = (vec![0.0; n], vec![0.0; n]);
                for col in 0..n {
                    let mut xp = x.clone();
                    xp[col] += eps;
                    el.assemble(0.3, &q0, &v0, &xp, &mut rp, None);
                    xp[col] -= 2.0 * eps;
                    el.assemble(0.3, &q0, &v0, &xp, &mut rm, None);
                    let mut dense = vec![0.0; n];
                    for k in pat.col_ptr[col]..pat.col_ptr[col + 1] {
                        dense[pat.row_idx[k]] = vals[k];
                    }
                    for row in 0..n {
                        let fd = (rp[row] - rm[row]) / (2.0 * eps);
                        assert!(
                            (fd - dense[row]).abs() < 1e-6 * (1.0 + fd.abs()),
                            "{label} p = {order}: J[{row},{col}] = {} vs fd {fd}",
                            dense[row]
                        );
                    }
                }
            }
        }
    }
}
