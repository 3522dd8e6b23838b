//! Sideways block elimination: the Newton systems of the space-time inverse problem solved
//! in `O(n_s n_t)` operations by marching from the tip `s = L` to the base `s = 0`.
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
//! `D_t x_i − M_t v_i = 0` at every space node: the same discrete solution, other rows. With
//! these rows and the unknowns ordered from the tip,
//!
//! ```text
//! rows  [R3; R1_ns]  [R2_ns; R1_(ns−1)]  …  [R2_1; R1_0]  R2_0
//! cols  (x,v)_ns     (x,v)_(ns−1)        …  (x,v)_0       F
//! ```
//!
//! the Jacobian is block *lower triangular*: `R2_i` involves the columns `i + 1`, `i`, `i − 1`
//! only, so once the columns `i + 1` and `i` are known, `R2_i` and `R1_(i−1)` determine column
//! `i − 1`. Each diagonal block couples the time levels `j − 1, j, j + 1` only: a banded
//! matrix of half-bandwidth 11 for the `6 n_t` unknowns of a space column, solved by
//! [`BandedLu`] with partial pivoting. The whole Newton step costs `O(n_s n_t)` instead of
//! the `O((n_s n_t)^{3/2})` and more of a general sparse LU on the two-dimensional grid.
//!
//! # Stability
//! The elimination is the sideways marching itself, so it amplifies errors like the
//! sideways problem does. Under the mesh-ratio condition `μ ≤ 2` every sideways mode of the
//! lumped system is neutral (`|z| = 1`, [`super::mesh_ratio`]; the `p(z) = 0` modes of the
//! analysis, the growing ones, are those of `M_s` in `R1`, which the lumped rows remove), so
//! the march does not amplify round-off. `tests/inverse_verification.rs` compares it with
//! faer's sparse LU on the same Newton systems.

use super::element::N_DOF;
use crate::error::SolveError;
use crate::solve::banded::BandedLu;

/// Stored entries per (space node, time level) for the rows of `R2`: 3 time offsets × 3 space
/// offsets × 3 rows × 6 columns.
const NODE: usize = 162;
/// Per time level for `∂R2_0/∂F` and `∂R3/∂x_L`: 3 time offsets × 3 × 3.
const LEVEL: usize = 27;

/// The Jacobian of the inverse problem in sideways storage, and the elimination.
#[derive(Clone, Debug)]
pub(super) struct SidewaysSolver {
    ns: usize,
    nt: usize,
    hs: f64,
    ht: f64,
    n_field: usize,
    /// `∂R2(i, j)/∂(x, v)(i + di − 1, j + dj − 1)` at `[(j − 1)(n_s + 1) + i][dj][di][r][d]`.
    r2: Vec<f64>,
    /// `∂R2(0, j)/∂F(j + dj − 1)` at `[j − 1][dj][r][c]`.
    r2_f: Vec<f64>,
    /// `∂R3(j)/∂x(L, j + dj − 1)` at `[j − 1][dj][r][c]`.
    r3_x: Vec<f64>,
    column: BandedLu,
    level: BandedLu,
    /// `M_s⁻¹ r1` in the field layout (components `x` only).
    y: Vec<f64>,
    rhs: Vec<f64>,
    thomas: Vec<f64>,
}

impl SidewaysSolver {
    /// Storage for `ns × nt` elements of size `hs × ht`.
    pub(super) fn new(ns: usize, nt: usize, hs: f64, ht: f64) -> Self {
        let ns1 = ns + 1;
        let n_field = 6 * ns1 * nt;
        Self {
            ns,
            nt,
            hs,
            ht,
            n_field,
            r2: vec![0.0; NODE * ns1 * nt],
            r2_f: vec![0.0; LEVEL * nt],
            r3_x: vec![0.0; LEVEL * nt],
            column: BandedLu::new(6 * nt, 11, 11),
            level: BandedLu::new(3 * nt, 5, 5),
            y: vec![0.0; n_field],
            rhs: vec![0.0; 6 * nt],
            thomas: vec![0.0; ns1.max(nt)],
        }
    }

    /// Stored entries.
    pub(super) fn stored(&self) -> usize {
        self.r2.len() + self.r2_f.len() + self.r3_x.len()
    }

    fn dof(&self, i: usize, j: usize, c: usize) -> usize {
        ((j - 1) * (self.ns + 1) + i) * 6 + c
    }

    fn f_dof(&self, j: usize, c: usize) -> usize {
        self.n_field + (j - 1) * 3 + c
    }

    fn node(&self, i: usize, j: usize) -> usize {
        ((j - 1) * (self.ns + 1) + i) * NODE
    }

    /// Zeroes the stored Jacobian.
    pub(super) fn clear(&mut self) {
        self.r2.fill(0.0);
        self.r2_f.fill(0.0);
        self.r3_x.fill(0.0);
    }

    /// Adds the `R2` rows of an element matrix (node order of [`super::element`]); its `R1`
    /// rows are the exact `M_s ⊗ (D_t, −M_t)` that the elimination uses in lumped form.
    pub(super) fn add_element(&mut self, es: usize, et: usize, ke: &[[f64; N_DOF]; N_DOF]) {
        for a in 0..4 {
            let (is, it) = (a % 2, a / 2);
            let j = et + it;
            if j == 0 {
                continue;
            }
            let base = self.node(es + is, j);
            for b in 0..4 {
                let (js, jt) = (b % 2, b / 2);
                if et + jt == 0 {
                    continue;
                }
                let off = base + (jt + 1 - it) * 54 + (js + 1 - is) * 18;
                for r in 0..3 {
                    let src = &ke[6 * a + 3 + r][6 * b..6 * b + 6];
                    let dst = &mut self.r2[off + 6 * r..off + 6 * r + 6];
                    for (d, s) in dst.iter_mut().zip(src) {
                        *d += s;
                    }
                }
            }
        }
    }

    /// Adds a boundary entry `(row, col)` in the global numbering of the solver (`R2` rows
    /// with field or actuation columns, `R3` rows with tip columns).
    pub(super) fn add(&mut self, row: usize, col: usize, v: f64) {
        let ns1 = self.ns + 1;
        let field = |k: usize| {
            let node = k / 6;
            (node % ns1, node / ns1 + 1, k % 6)
        };
        if row < self.n_field {
            let (i, j, r) = field(row);
            debug_assert!(r >= 3, "R1 rows are not stored");
            if col < self.n_field {
                let (ic, jc, d) = field(col);
                let (di, dj) = (ic + 1 - i, jc + 1 - j);
                let at = self.node(i, j) + dj * 54 + di * 18 + (r - 3) * 6 + d;
                self.r2[at] += v;
            } else {
                let (jc, c) = ((col - self.n_field) / 3 + 1, (col - self.n_field) % 3);
                debug_assert_eq!(i, 0);
                self.r2_f[(j - 1) * LEVEL + (jc + 1 - j) * 9 + (r - 3) * 3 + c] += v;
            }
        } else {
            let (j, r) = ((row - self.n_field) / 3 + 1, (row - self.n_field) % 3);
            let (i, jc, c) = field(col);
            debug_assert_eq!(i, self.ns);
            self.r3_x[(j - 1) * LEVEL + (jc + 1 - j) * 9 + r * 3 + c] += v;
        }
    }

    /// `(M_t)_{jk}` for test level `j ≥ 1`, trial level `k ≥ 1`.
    fn m_t(&self, j: usize, k: usize) -> f64 {
        let h6 = self.ht / 6.0;
        if k == j {
            if j == self.nt { 2.0 * h6 } else { 4.0 * h6 }
        } else {
            h6
        }
    }

    /// `(D_t)_{jk}` for `|j − k| ≤ 1`.
    fn d_t(&self, j: usize, k: usize) -> f64 {
        if k + 1 == j {
            -0.5
        } else if k == j + 1 || (k == j && j == self.nt) {
            0.5
        } else {
            0.0
        }
    }

    /// Levels `k ∈ [1, n_t]` with `|k − j| ≤ 1`.
    fn near(&self, j: usize) -> std::ops::RangeInclusive<usize> {
        j.saturating_sub(1).max(1)..=(j + 1).min(self.nt)
    }

    /// Solves `J du = r` (full residual `r` in the solver's global numbering) and returns the
    /// largest residual of the eliminated rows, `max |J du − r|` in the lumped form.
    pub(super) fn solve(&mut self, r: &[f64], du: &mut [f64]) -> Result<f64, SolveError> {
        let (ns, nt) = (self.ns, self.nt);
        self.lump_r1(r);
        // 1. Servo rows → x at the tip.
        self.level.clear();
        for j in 1..=nt {
            for k in self.near(j) {
                for rr in 0..3 {
                    for c in 0..3 {
                        let v = self.r3_x[(j - 1) * LEVEL + (k + 1 - j) * 9 + rr * 3 + c];
                        if v != 0.0 {
                            self.level.add(3 * (j - 1) + rr, 3 * (k - 1) + c, v);
                        }
                    }
                }
            }
            for rr in 0..3 {
                self.rhs[3 * (j - 1) + rr] = r[self.f_dof(j, rr)];
            }
        }
        self.level
            .factorize()
            .map_err(|e| blocked("servo rows", e))?;
        self.level.solve_in_place(&mut self.rhs[..3 * nt]);
        for j in 1..=nt {
            for c in 0..3 {
                du[self.dof(ns, j, c)] = self.rhs[3 * (j - 1) + c];
            }
        }
        // 2. Lumped kinematics at the tip → v at the tip: M_t v = D_t x − y.
        let mut b = std::mem::take(&mut self.rhs);
        for c in 0..3 {
            for j in 1..=nt {
                let mut s = -self.y[self.dof(ns, j, c)];
                for k in self.near(j) {
                    s += self.d_t(j, k) * du[self.dof(ns, k, c)];
                }
                b[j - 1] = s;
            }
            self.solve_m_t(&mut b[..nt]);
            for j in 1..=nt {
                du[self.dof(ns, j, 3 + c)] = b[j - 1];
            }
        }
        self.rhs = b;
        // 3. March: R2_i and lumped R1_(i−1) → column i − 1.
        for i in (1..=ns).rev() {
            self.fill_column(i, r, du);
            self.column
                .factorize()
                .map_err(|e| blocked(&format!("space column {}", i - 1), e))?;
            self.column.solve_in_place(&mut self.rhs);
            for j in 1..=nt {
                for d in 0..6 {
                    du[self.dof(i - 1, j, d)] = self.rhs[6 * (j - 1) + d];
                }
            }
        }
        // 4. R2_0 → actuation.
        self.level.clear();
        for j in 1..=nt {
            for k in self.near(j) {
                for rr in 0..3 {
                    for c in 0..3 {
                        let v = self.r2_f[(j - 1) * LEVEL + (k + 1 - j) * 9 + rr * 3 + c];
                        if v != 0.0 {
                            self.level.add(3 * (j - 1) + rr, 3 * (k - 1) + c, v);
                        }
                    }
                }
            }
            for rr in 0..3 {
                self.rhs[3 * (j - 1) + rr] =
                    r[self.dof(0, j, 3 + rr)] - self.known_r2(0, j, rr, 1, du);
            }
        }
        self.level
            .factorize()
            .map_err(|e| blocked("actuation rows at s = 0", e))?;
        self.level.solve_in_place(&mut self.rhs[..3 * nt]);
        for j in 1..=nt {
            for c in 0..3 {
                du[self.f_dof(j, c)] = self.rhs[3 * (j - 1) + c];
            }
        }
        Ok(self.mismatch(r, du))
    }

    /// `Σ ∂R2(i, j, rr)/∂u · du` over the space columns `i + di − 1` with `di ≥ di_min`.
    fn known_r2(&self, i: usize, j: usize, rr: usize, di_min: usize, du: &[f64]) -> f64 {
        let base = self.node(i, j);
        let mut s = 0.0;
        for k in self.near(j) {
            for di in di_min..3 {
                let Some(ic) = (i + di).checked_sub(1).filter(|&ic| ic <= self.ns) else {
                    continue;
                };
                let off = base + (k + 1 - j) * 54 + di * 18 + rr * 6;
                let at = self.dof(ic, k, 0);
                for d in 0..6 {
                    s += self.r2[off + d] * du[at + d];
                }
            }
        }
        s
    }

    /// The banded system of column `i − 1`: rows `R2_i` (3 per level) and lumped `R1_(i−1)`
    /// (3 per level), unknowns `(x, v)` at `i − 1`, 6 per level.
    fn fill_column(&mut self, i: usize, r: &[f64], du: &[f64]) {
        let nt = self.nt;
        self.column.clear();
        for j in 1..=nt {
            let base = self.node(i, j);
            let row = 6 * (j - 1);
            for k in self.near(j) {
                let off = base + (k + 1 - j) * 54;
                for rr in 0..3 {
                    for d in 0..6 {
                        let v = self.r2[off + rr * 6 + d];
                        if v != 0.0 {
                            self.column.add(row + rr, 6 * (k - 1) + d, v);
                        }
                    }
                }
                for c in 0..3 {
                    let dt = self.d_t(j, k);
                    if dt != 0.0 {
                        self.column.add(row + 3 + c, 6 * (k - 1) + c, dt);
                    }
                    self.column
                        .add(row + 3 + c, 6 * (k - 1) + 3 + c, -self.m_t(j, k));
                }
            }
            for rr in 0..3 {
                self.rhs[row + rr] = r[self.dof(i, j, 3 + rr)] - self.known_r2(i, j, rr, 1, du);
                self.rhs[row + 3 + rr] = self.y[self.dof(i - 1, j, rr)];
            }
        }
    }

    /// `y = (M_s⁻¹ ⊗ I) r1` per time level and component (Thomas; `M_s` is SPD).
    fn lump_r1(&mut self, r: &[f64]) {
        let (ns1, hs) = (self.ns + 1, self.hs);
        let off = hs / 6.0;
        let diag = |i: usize| {
            if i == 0 || i == ns1 - 1 {
                hs / 3.0
            } else {
                2.0 * hs / 3.0
            }
        };
        for j in 1..=self.nt {
            for c in 0..3 {
                // forward sweep: thomas[i] = modified super-diagonal ratio
                let mut prev_c = 0.0;
                let mut prev_y = 0.0;
                for i in 0..ns1 {
                    let denom = diag(i) - off * prev_c;
                    let ci = off / denom;
                    let yi = (r[self.dof(i, j, c)] - off * prev_y) / denom;
                    self.thomas[i] = ci;
                    let k = self.dof(i, j, c);
                    self.y[k] = yi;
                    prev_c = ci;
                    prev_y = yi;
                }
                for i in (0..ns1 - 1).rev() {
                    let next = self.y[self.dof(i + 1, j, c)];
                    let k = self.dof(i, j, c);
                    self.y[k] -= self.thomas[i] * next;
                }
            }
        }
    }

    /// `b ← M_t⁻¹ b` (Thomas; `M_t` is SPD tridiagonal).
    fn solve_m_t(&mut self, b: &mut [f64]) {
        let nt = self.nt;
        let mut prev_c = 0.0;
        let mut prev_y = 0.0;
        for j in 1..=nt {
            let sub = if j > 1 { self.m_t(j, j - 1) } else { 0.0 };
            let denom = self.m_t(j, j) - sub * prev_c;
            let sup = if j < nt { self.m_t(j, j + 1) } else { 0.0 };
            let cj = sup / denom;
            let yj = (b[j - 1] - sub * prev_y) / denom;
            self.thomas[j - 1] = cj;
            b[j - 1] = yj;
            prev_c = cj;
            prev_y = yj;
        }
        for j in (1..nt).rev() {
            b[j - 1] -= self.thomas[j - 1] * b[j];
        }
    }

    /// `max |J du − r|` over all rows, with `R1` in lumped form.
    fn mismatch(&self, r: &[f64], du: &[f64]) -> f64 {
        let (ns, nt) = (self.ns, self.nt);
        let mut worst: f64 = 0.0;
        for j in 1..=nt {
            for i in 0..=ns {
                for c in 0..3 {
                    // lumped R1
                    let mut s = -self.y[self.dof(i, j, c)];
                    for k in self.near(j) {
                        s += self.d_t(j, k) * du[self.dof(i, k, c)]
                            - self.m_t(j, k) * du[self.dof(i, k, 3 + c)];
                    }
                    worst = worst.max(s.abs());
                    // R2
                    let mut s = self.known_r2(i, j, c, 0, du) - r[self.dof(i, j, 3 + c)];
                    if i == 0 {
                        for k in self.near(j) {
                            for f in 0..3 {
                                s += self.r2_f[(j - 1) * LEVEL + (k + 1 - j) * 9 + c * 3 + f]
                                    * du[self.f_dof(k, f)];
                            }
                        }
                    }
                    worst = worst.max(s.abs());
                }
            }
            for c in 0..3 {
                let mut s = -r[self.f_dof(j, c)];
                for k in self.near(j) {
                    for d in 0..3 {
                        s += self.r3_x[(j - 1) * LEVEL + (k + 1 - j) * 9 + c * 3 + d]
                            * du[self.dof(ns, k, d)];
                    }
                }
                worst = worst.max(s.abs());
            }
        }
        worst
    }
}

fn blocked(what: &str, e: SolveError) -> SolveError {
    SolveError::Factorization(format!(
        "sideways elimination: the block of the {what} is singular ({e}). Remedy: check the \
         mesh-ratio condition and the trajectory; or set newton.linear_solver = \"sparse-lu\""
    ))
}
