//! The semi-discrete constrained mechanical system that every time discretisation consumes:
//!
//! ```text
//! q̇ = v,    𝕄 v̇ + G(q)ᵀ λ = f(q, t),    Φ(q) = 0,        G = ∂Φ/∂q,
//! ```
//!
//! the strong form behind the mixed weak form of [P, Eq. (11)], written with the velocity `v`
//! instead of the momentum `p = 𝕄 v`. For an invertible mass matrix the two forms have the same
//! discrete solutions (the trial space of `v` is that of `p` mapped by the constant `𝕄⁻¹`), and
//! the velocity form needs no inverse: a director beam's mass matrix is singular (the director
//! `d₃` carries no inertia) and is used as it is. A system exposes constant sparsity patterns for
//! `𝕄`, for `G` and for the tangent `K = ∂(Gᵀλ − f)/∂q`, and fills their values at one time
//! point; the space-time assembler maps pattern entries to matrix positions once.

use crate::math::{Vec3, cross};
use crate::model::strain::{StrainElement, StrainScratch, StrainSlot, add_elastic, elastic_energy};
use crate::model::{Constraint, Load, LoadKind, Orthonormality, RigidBody, TimeFunction};

/// Values of the system at one time point, in the patterns of [`ConstrainedSystem`].
#[derive(Clone, Debug)]
pub struct PointEval {
    /// Generalised applied force `f(q, t)`, length `n_q`.
    pub force: Vec<f64>,
    /// Magnitude of the terms of `force`: `Σ |contribution|` over the loads and strain elements
    /// that act on each coordinate (`≥ |force|`), for the Newton stop
    /// (`solve::newton::measure`). Length `n_q`.
    pub force_mag: Vec<f64>,
    /// Constraint values `Φ(q, t)`, length `n_λ`.
    pub phi: Vec<f64>,
    /// Explicit time derivative `∂Φ/∂t` (zero for scleronomic constraints), length `n_λ`.
    pub phi_t: Vec<f64>,
    /// Explicit second time derivative `∂²Φ/∂t²`, length `n_λ`.
    pub phi_tt: Vec<f64>,
    /// Values of `G = ∂Φ/∂q` in [`ConstrainedSystem::g_pattern`] order.
    pub g: Vec<f64>,
    /// Values of `K = ∂(Gᵀλ − f)/∂q` in [`ConstrainedSystem::k_pattern`] order
    /// ([`ConstrainedSystem::eval`]), or in [`ConstrainedSystem::point_k_pattern`] order in its
    /// first entries ([`ConstrainedSystem::eval_without_strain`]).
    pub k: Vec<f64>,
    /// Values of `∂(G(q) v)/∂q` in [`ConstrainedSystem::g_pattern`] order, filled by
    /// [`ConstrainedSystem::eval_velocity_jacobian`].
    pub gv: Vec<f64>,
    scratch: Vec<f64>,
    /// Scratch of the strain elements (see [`crate::model::strain`]).
    pub strain: StrainScratch,
    /// Factor on every applied load (not on internal or constraint forces): the load factor
    /// of static load stepping. 1 in dynamics.
    pub load_scale: f64,
}

impl PointEval {
    /// Buffers of the given sizes, with `scratch` extra workspace for the system's own use.
    pub fn with_sizes(n_q: usize, n_lambda: usize, n_g: usize, n_k: usize, scratch: usize) -> Self {
        Self {
            force: vec![0.0; n_q],
            force_mag: vec![0.0; n_q],
            phi: vec![0.0; n_lambda],
            phi_t: vec![0.0; n_lambda],
            phi_tt: vec![0.0; n_lambda],
            g: vec![0.0; n_g],
            k: vec![0.0; n_k],
            gv: vec![0.0; n_g],
            scratch: vec![0.0; scratch],
            strain: StrainScratch::default(),
            load_scale: 1.0,
        }
    }
}

/// A constrained mechanical system with constant mass matrix, see the module docs.
pub trait ConstrainedSystem: Sync {
    /// Number of configuration coordinates.
    fn n_q(&self) -> usize;
    /// Number of constraint equations (multipliers).
    fn n_lambda(&self) -> usize;
    /// Non-zero entries `(row, col, value)` of the constant, symmetric mass matrix `𝕄`
    /// (positive semi-definite; singular where a coordinate carries no inertia).
    fn mass(&self) -> &[(usize, usize, f64)];
    /// Pattern `(constraint row, q column)` of `G`.
    fn g_pattern(&self) -> &[(usize, usize)];
    /// Pattern `(q row, q column)` of `K`.
    fn k_pattern(&self) -> &[(usize, usize)];
    /// Pattern of the part of `K` without the strain elements, which
    /// [`eval_without_strain`](Self::eval_without_strain) fills (a subset of
    /// [`k_pattern`](Self::k_pattern), sorted; for a beam much smaller: the frames' own blocks
    /// and the joints, not the element couplings). Default: the whole `K` pattern.
    fn point_k_pattern(&self) -> &[(usize, usize)] {
        self.k_pattern()
    }
    /// The unit of every coordinate: 0 for a length (the placement of a frame), 1 for a
    /// dimensionless one (a director component). The Newton stop compares the residual rows
    /// of coordinates of one unit only (`solve::newton::measure`). Default: frames of 12
    /// coordinates `(φ, d₁, d₂, d₃)`.
    fn coordinate_units(&self) -> Vec<u8> {
        (0..self.n_q()).map(|i| u8::from(i % 12 >= 3)).collect()
    }
    /// The power of length (0, 1 or 2) in the unit of every constraint equation, in
    /// multiplier order ([`crate::model::constraint::Constraint::length_power`]).
    fn constraint_units(&self) -> Vec<u8>;
    /// Buffers sized for [`eval`](Self::eval).
    fn new_point_eval(&self) -> PointEval;
    /// Fills `out` at `(t, q, λ)`; `K` only when `tangent` is true. The force includes the
    /// elastic forces of the strain elements ([`strain_slots`](Self::strain_slots)) evaluated at
    /// this instant (no viscous part: that needs velocities).
    fn eval(&self, t: f64, q: &[f64], lambda: &[f64], out: &mut PointEval, tangent: bool);
    /// [`eval`](Self::eval) without the forces of the strain elements, for time discretisations
    /// that integrate those themselves (`discretize::strain_time`). `K` goes to the first
    /// `point_k_pattern().len()` entries of `out.k`, in [`point_k_pattern`](Self::point_k_pattern)
    /// order.
    fn eval_without_strain(
        &self,
        t: f64,
        q: &[f64],
        lambda: &[f64],
        out: &mut PointEval,
        tangent: bool,
    ) {
        assert!(
            self.strain_slots().is_empty(),
            "systems with strain elements override eval_without_strain"
        );
        self.eval(t, q, lambda, out, tangent);
    }
    /// Strain elements of the deformable parts (none for rigid bodies).
    fn strain_slots(&self) -> &[StrainSlot] {
        &[]
    }
    /// Number of director frames `(φ, d_1, d_2, d_3)` stored at `q[0..12 n]` (rigid bodies and
    /// beam nodes), which static Newton iterations may update by rotations. Default: none.
    fn director_frames(&self) -> usize {
        0
    }
    /// Fills `out.gv` with `∂(G(q) v)/∂q` at `(q, v)` (the tangent of the velocity-level
    /// constraint `G(q) q̇ = 0`).
    fn eval_velocity_jacobian(&self, q: &[f64], v: &[f64], out: &mut PointEval);
    /// The curvature terms `c_k = vᵀ (∂²Φ_k/∂q²) v` of every constraint equation `k` at
    /// `(q, v)` into `out` (length `n_λ`): the part of `Φ̈ = G q̈ + c + ∂²Φ/∂t²` that the
    /// consistent initial multiplier needs (`solve::consistent`).
    ///
    /// Default: [`curvatures_from_tangent`], which reads `∂²Φ_k/∂q²` off the tangent as
    /// `K(e_k) − K(0)` and so evaluates the whole tangent once per equation (`O(n_λ n_q)`);
    /// correct for every system whose `K` is affine in `λ`. [`MultibodySystem`] overrides it
    /// with one pass over its constraints (`O(n_q)`).
    fn constraint_curvatures(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        curvatures_from_tangent(self, t, q, v, out);
    }
    /// Times at which applied loads are discontinuous (for exact quadrature).
    fn breakpoints(&self) -> Vec<f64>;
    /// Potential energy of the conservative loads and the stored energy of the strain
    /// elements (J).
    fn potential_energy(&self, q: &[f64]) -> f64;
    /// Kinetic energy `½ vᵀ 𝕄 v` (J).
    fn kinetic_energy(&self, v: &[f64]) -> f64 {
        0.5 * self
            .mass()
            .iter()
            .map(|&(i, j, m)| v[i] * m * v[j])
            .sum::<f64>()
    }

    /// Generalised momentum `p = 𝕄 v` into `p` (length `n_q`).
    fn momentum_into(&self, v: &[f64], p: &mut [f64]) {
        p.fill(0.0);
        for &(i, j, m) in self.mass() {
            p[i] += m * v[j];
        }
    }

    /// Angular momentum about the origin (kg·m²/s), global frame: `L = Σ_k q_k × p_k` over the
    /// coordinate triplets `q_k` (placements and directors are all spatial vectors, so this is
    /// the director form of `∫ x × ρ ẋ dV`), `p = 𝕄 v`.
    fn angular_momentum(&self, q: &[f64], v: &[f64]) -> Vec3 {
        let mut p = vec![0.0; q.len()];
        self.momentum_into(v, &mut p);
        let mut l = [0.0; 3];
        for (qk, pk) in q.chunks_exact(3).zip(p.chunks_exact(3)) {
            let c = cross(&[qk[0], qk[1], qk[2]], &[pk[0], pk[1], pk[2]]);
            for k in 0..3 {
                l[k] += c[k];
            }
        }
        l
    }
}

/// The curvature terms `vᵀ (∂²Φ_k/∂q²) v` of every constraint equation `k` from the tangent:
/// `K = ∂(Gᵀλ − f)/∂q` is affine in `λ`, so `K(e_k) − K(0) = ∂²Φ_k/∂q²` (the applied and elastic
/// forces cancel). Costs `n_λ + 1` evaluations of the whole tangent: the generic default of
/// [`ConstrainedSystem::constraint_curvatures`], and the reference its overrides are tested
/// against (`tests/constraint_curvatures.rs`).
pub fn curvatures_from_tangent<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    out: &mut [f64],
) {
    let nl = sys.n_lambda();
    assert_eq!(out.len(), nl, "one curvature term per constraint equation");
    if nl == 0 {
        return;
    }
    let mut ev = sys.new_point_eval();
    let mut unit = vec![0.0; nl];
    sys.eval(t, q, &unit, &mut ev, true);
    let k0 = ev.k.clone();
    for k in 0..nl {
        unit[k] = 1.0;
        sys.eval(t, q, &unit, &mut ev, true);
        unit[k] = 0.0;
        out[k] = sys
            .k_pattern()
            .iter()
            .zip(ev.k.iter().zip(&k0))
            .map(|(&(i, j), (a, b))| v[i] * (a - b) * v[j])
            .sum::<f64>();
    }
}

/// A deformable contribution (a spatial director beam, say) as the system sees it: a chain of
/// 12-coordinate frames `(φ, d_1, d_2, d_3)` (its nodes) with a constant mass matrix, strain
/// elements and distributed loads, all in local coordinates `0..12 n_frames`. The contribution's
/// own module builds it (`model::director_beam`); nothing in the system asks what kind it is.
#[derive(Debug)]
pub struct Deformable {
    /// Name used in outputs and messages.
    pub name: String,
    /// Number of frames (nodes).
    pub n_frames: usize,
    /// Initial coordinates, `12 n_frames`.
    pub initial_q: Vec<f64>,
    /// Initial velocities, `12 n_frames`.
    pub initial_v: Vec<f64>,
    /// Mass matrix entries `(row, col, value)` in local coordinates (symmetric, may be singular).
    pub mass: Vec<(usize, usize, f64)>,
    /// Strain elements with the local coordinate index of each of their coordinates.
    pub elements: Vec<(Box<dyn StrainElement>, Vec<usize>)>,
    /// Distributed loads as consistent nodal forces.
    pub loads: Vec<NodalForces>,
}

/// Consistent nodal forces of a distributed load on a deformable contribution (dead load).
#[derive(Clone, Debug, PartialEq)]
pub struct NodalForces {
    /// Generalised forces on the local coordinates (`12 n_frames`), N and N·m.
    pub forces: Vec<f64>,
    /// Time function multiplying them.
    pub time_function: TimeFunction,
}

/// Rigid bodies and deformable contributions (beams) with their orthonormality constraints,
/// further constraints (joints) and loads: one flexible multibody system.
///
/// Coordinates: every contribution is a set of 12-coordinate *frames* `(φ, d_1, d_2, d_3)`;
/// frame `k` owns `q[12k..12k+12]`. The rigid bodies are frames `0..n_bodies` (body `b` is frame
/// `b`), followed by the nodes of each deformable contribution in order. Joints and loads name
/// frames, so a joint to a beam node is the same as a joint to a body. Multipliers: the six
/// orthonormality multipliers of each frame that no joint ties rigidly (in frame order), then
/// those of the extra constraints in the order given.
#[derive(Debug)]
pub struct MultibodySystem {
    bodies: Vec<RigidBody>,
    deformables: Vec<Deformable>,
    /// First frame of each deformable contribution.
    deformable_frames: Vec<usize>,
    n_frames: usize,
    loads: Vec<Load>,
    /// Distributed loads: first global coordinate, forces, time function.
    distributed: Vec<(usize, NodalForces)>,
    constraints: Vec<Box<dyn Constraint>>,
    lambda_offsets: Vec<usize>,
    n_lambda: usize,
    mass: Vec<(usize, usize, f64)>,
    g_pattern: Vec<(usize, usize)>,
    k_pattern: Vec<(usize, usize)>,
    /// `K` pattern without the strain-element couplings (see [`ConstrainedSystem::point_k_pattern`]).
    point_k_pattern: Vec<(usize, usize)>,
    /// Per frame: position of each entry of its dense 12×12 block in `k_pattern` (`[0]`) and in
    /// `point_k_pattern` (`[1]`).
    frame_k_map: [Vec<Vec<usize>>; 2],
    /// Per constraint: positions in `g_pattern` (n_eq × n_loc).
    constraint_g_maps: Vec<Vec<usize>>,
    /// Per constraint: positions of its local Hessian (n_loc²) in `k_pattern` (`[0]`) and in
    /// `point_k_pattern` (`[1]`).
    constraint_k_maps: [Vec<Vec<usize>>; 2],
    strain: Vec<StrainSlot>,
    max_local: usize,
    max_strain_local: usize,
}

/// Error building a [`MultibodySystem`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SystemError {
    /// The 4×4 mass matrix of a body is not symmetric positive definite.
    #[error("body '{0}': mass matrix [[M, S], [S, E]] is not symmetric positive definite")]
    MassNotPositiveDefinite(String),
    /// A load names a frame index that does not exist.
    #[error("load {load} acts on frame index {body}, but there are only {n_bodies} frames")]
    LoadBodyOutOfRange {
        /// Load index.
        load: usize,
        /// Frame index it names.
        body: usize,
        /// Number of frames.
        n_bodies: usize,
    },
    /// A body force per unit mass acts on a frame that is not a rigid body.
    #[error(
        "load {load}: a body force per unit mass needs a rigid body, but frame {frame} is a node of '{part}'"
    )]
    BodyForceOnNode {
        /// Load index.
        load: usize,
        /// Frame index.
        frame: usize,
        /// Name of the contribution the frame belongs to.
        part: String,
    },
    /// Two constraints tie the same frame rigidly.
    #[error("frame {frame} is tied rigidly by two joints ({first} and {second}); keep one")]
    FrameTiedTwice {
        /// Frame index.
        frame: usize,
        /// Index of the first constraint (among the extra constraints).
        first: usize,
        /// Index of the second.
        second: usize,
    },
    /// A constraint refers to a coordinate that does not exist.
    #[error("constraint {constraint} refers to coordinate {index}, but the system has {n_q}")]
    ConstraintOutOfRange {
        /// Index among the extra constraints.
        constraint: usize,
        /// Offending coordinate.
        index: usize,
        /// Number of coordinates.
        n_q: usize,
    },
}

/// A sorted, duplicate-free `(row, col)` pattern with the start of each row: built by bucketing
/// the entries by row and sorting each row (linear in the number of entries), looked up by a
/// binary search within one row.
struct RowPattern {
    entries: Vec<(usize, usize)>,
    row_start: Vec<usize>,
}

impl RowPattern {
    /// The pattern of the entries produced by `entries` (called twice: count, then fill), rows
    /// `0..n_rows`.
    fn from_entries<I: Iterator<Item = (usize, usize)>>(
        n_rows: usize,
        entries: impl Fn() -> I,
    ) -> Self {
        // internal iteration (`for_each`): chains of `flat_map`s fold much faster than they
        // step through `next`
        let mut start = vec![0usize; n_rows + 1];
        entries().for_each(|(r, _)| start[r + 1] += 1);
        for r in 0..n_rows {
            start[r + 1] += start[r];
        }
        let mut fill = start.clone();
        let mut cols = vec![0usize; start[n_rows]];
        entries().for_each(|(r, c)| {
            cols[fill[r]] = c;
            fill[r] += 1;
        });
        drop(fill);
        let mut row_start = vec![0usize; n_rows + 1];
        let mut out = Vec::with_capacity(cols.len());
        for r in 0..n_rows {
            let row = &mut cols[start[r]..start[r + 1]];
            row.sort_unstable();
            for (k, &c) in row.iter().enumerate() {
                if k == 0 || c != row[k - 1] {
                    out.push((r, c));
                }
            }
            row_start[r + 1] = out.len();
        }
        out.shrink_to_fit();
        Self {
            entries: out,
            row_start,
        }
    }

    /// This pattern with the dense blocks `idx × idx` of `blocks` added: per row a merge of
    /// sorted column lists (the rows of a block all get the block's sorted indices), no sort
    /// of the ≈ 1300 entries per beam element.
    fn with_blocks<'a>(&self, blocks: impl Iterator<Item = &'a [usize]>) -> Self {
        let n_rows = self.row_start.len() - 1;
        let sorted: Vec<Vec<usize>> = blocks
            .map(|idx| {
                let mut v = idx.to_vec();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        // the blocks that touch each row (bucketed by row)
        let mut start = vec![0usize; n_rows + 1];
        for &i in sorted.iter().flatten() {
            start[i + 1] += 1;
        }
        for r in 0..n_rows {
            start[r + 1] += start[r];
        }
        let mut fill = start.clone();
        let mut touching = vec![0usize; start[n_rows]];
        for (b, idx) in sorted.iter().enumerate() {
            for &i in idx {
                touching[fill[i]] = b;
                fill[i] += 1;
            }
        }
        drop(fill);
        let mut entries = Vec::with_capacity(
            self.entries.len() + sorted.iter().map(|v| v.len() * v.len()).sum::<usize>(),
        );
        let mut row_start = vec![0usize; n_rows + 1];
        let (mut cur, mut merged) = (Vec::new(), Vec::new());
        for r in 0..n_rows {
            cur.clear();
            cur.extend(
                self.entries[self.row_start[r]..self.row_start[r + 1]]
                    .iter()
                    .map(|&(_, c)| c),
            );
            for &b in &touching[start[r]..start[r + 1]] {
                merge_sorted(&cur, &sorted[b], &mut merged);
                std::mem::swap(&mut cur, &mut merged);
            }
            entries.extend(cur.iter().map(|&c| (r, c)));
            row_start[r + 1] = entries.len();
        }
        entries.shrink_to_fit();
        Self { entries, row_start }
    }

    /// Positions in `entries` of the dense block `rows × cols` (row-major): per row one walk
    /// along its sorted columns (linear in the row, instead of a binary search per entry).
    ///
    /// # Panics
    /// If an entry is not in the pattern.
    fn block_positions(&self, rows: &[usize], cols: &[usize]) -> Vec<usize> {
        let n = cols.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&a| cols[a]);
        let mut out = vec![0usize; rows.len() * n];
        for (r, &i) in rows.iter().enumerate() {
            let row = &self.entries[self.row_start[i]..self.row_start[i + 1]];
            let mut k = 0;
            for &a in &order {
                let j = cols[a];
                while row.get(k).is_some_and(|&(_, c)| c < j) {
                    k += 1;
                }
                assert!(
                    row.get(k).is_some_and(|&(_, c)| c == j),
                    "entry ({i}, {j}) is in the pattern"
                );
                out[r * n + a] = self.row_start[i] + k;
            }
        }
        out
    }
}

/// The sorted union of two sorted, duplicate-free lists into `out`.
fn merge_sorted(a: &[usize], b: &[usize], out: &mut Vec<usize>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

fn metric_of(q: &[f64]) -> [[f64; 3]; 3] {
    let mut g = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            g[i][j] = (0..3).map(|k| q[3 + 3 * i + k] * q[3 + 3 * j + k]).sum();
        }
    }
    g
}

impl MultibodySystem {
    /// Builds a system of rigid bodies; each body gets its orthonormality constraint
    /// automatically.
    pub fn new(
        bodies: Vec<RigidBody>,
        loads: Vec<Load>,
        extra_constraints: Vec<Box<dyn Constraint>>,
    ) -> Result<Self, SystemError> {
        Self::with_deformables(bodies, Vec::new(), loads, extra_constraints)
    }

    /// Builds a system of rigid bodies and deformable contributions (frames numbered as in the
    /// type docs). Every frame gets its orthonormality constraint, except the frames that an
    /// extra constraint ties rigidly ([`Constraint::tied_frame`]).
    pub fn with_deformables(
        bodies: Vec<RigidBody>,
        deformables: Vec<Deformable>,
        loads: Vec<Load>,
        extra_constraints: Vec<Box<dyn Constraint>>,
    ) -> Result<Self, SystemError> {
        for b in &bodies {
            if !b.mass.is_positive_definite() {
                return Err(SystemError::MassNotPositiveDefinite(b.name.clone()));
            }
        }
        let mut deformable_frames = Vec::with_capacity(deformables.len());
        let mut n_frames = bodies.len();
        for d in &deformables {
            deformable_frames.push(n_frames);
            n_frames += d.n_frames;
        }
        let n_q = 12 * n_frames;
        let part_of = |frame: usize| -> Option<&str> {
            deformables
                .iter()
                .zip(&deformable_frames)
                .find(|(d, f0)| frame >= **f0 && frame < **f0 + d.n_frames)
                .map(|(d, _)| d.name.as_str())
        };
        for (i, l) in loads.iter().enumerate() {
            if l.body >= n_frames {
                return Err(SystemError::LoadBodyOutOfRange {
                    load: i,
                    body: l.body,
                    n_bodies: n_frames,
                });
            }
            if matches!(l.kind, LoadKind::BodyForce(_)) && l.body >= bodies.len() {
                return Err(SystemError::BodyForceOnNode {
                    load: i,
                    frame: l.body,
                    part: part_of(l.body).unwrap_or("?").to_owned(),
                });
            }
        }
        let mut tied: Vec<Option<usize>> = vec![None; n_frames];
        for (ci, c) in extra_constraints.iter().enumerate() {
            if let Some(&index) = c.indices().iter().find(|&&i| i >= n_q) {
                return Err(SystemError::ConstraintOutOfRange {
                    constraint: ci,
                    index,
                    n_q,
                });
            }
            if let Some(f) = c.tied_frame() {
                if let Some(first) = tied[f] {
                    return Err(SystemError::FrameTiedTwice {
                        frame: f,
                        first,
                        second: ci,
                    });
                }
                tied[f] = Some(ci);
            }
        }
        // initial coordinates of every frame (for the orthonormality metric)
        let mut q0 = vec![0.0; n_q];
        for (b, body) in bodies.iter().enumerate() {
            q0[12 * b..12 * b + 12].copy_from_slice(&body.initial_q());
        }
        for (d, &f0) in deformables.iter().zip(&deformable_frames) {
            q0[12 * f0..12 * (f0 + d.n_frames)].copy_from_slice(&d.initial_q);
        }
        let mut constraints: Vec<Box<dyn Constraint>> = (0..n_frames)
            .filter(|&f| tied[f].is_none())
            .map(|f| {
                Box::new(Orthonormality::new(
                    12 * f + 3,
                    metric_of(&q0[12 * f..12 * f + 12]),
                )) as Box<dyn Constraint>
            })
            .collect();
        constraints.extend(extra_constraints);
        let mut lambda_offsets = Vec::with_capacity(constraints.len());
        let mut n_lambda = 0;
        for c in &constraints {
            lambda_offsets.push(n_lambda);
            n_lambda += c.n_eq();
        }

        let mut mass = Vec::new();
        for (b, body) in bodies.iter().enumerate() {
            let m4 = body.mass.reduced_mass_matrix();
            for a in 0..4 {
                for c in 0..4 {
                    if m4[a * 4 + c] != 0.0 {
                        for k in 0..3 {
                            mass.push((12 * b + 3 * a + k, 12 * b + 3 * c + k, m4[a * 4 + c]));
                        }
                    }
                }
            }
        }
        let mut distributed = Vec::new();
        let mut strain_parts = Vec::new();
        for (d, &f0) in deformables.iter().zip(&deformable_frames) {
            let off = 12 * f0;
            mass.extend(d.mass.iter().map(|&(i, j, m)| (off + i, off + j, m)));
            for l in &d.loads {
                distributed.push((off, l.clone()));
            }
            for (ei, (_, idx)) in d.elements.iter().enumerate() {
                strain_parts.push((f0, ei, idx.iter().map(|&i| off + i).collect::<Vec<_>>()));
            }
        }
        // merge duplicate mass entries (assembled element matrices)
        mass.sort_by_key(|&(i, j, _)| (i, j));
        mass.dedup_by(|b, a| {
            if a.0 == b.0 && a.1 == b.1 {
                a.2 += b.2;
                true
            } else {
                false
            }
        });
        mass.retain(|&(_, _, m)| m != 0.0);

        // patterns: rows bucketed and sorted one by one (linear in the entries; a BTreeSet of
        // the ≈ 1300 entries per beam element cost more than the rest of the setup)
        let point_entries = || {
            (0..n_frames)
                .flat_map(|f| (0..144).map(move |e| (12 * f + e / 12, 12 * f + e % 12)))
                .chain(constraints.iter().flat_map(|c| {
                    let idx = c.indices();
                    idx.iter()
                        .flat_map(move |&i| idx.iter().map(move |&j| (i, j)))
                }))
        };
        let point_k = RowPattern::from_entries(n_q, point_entries);
        let k_full = point_k.with_blocks(strain_parts.iter().map(|(_, _, idx)| idx.as_slice()));
        let g_rows = RowPattern::from_entries(n_lambda, || {
            constraints
                .iter()
                .zip(&lambda_offsets)
                .flat_map(|(c, &off)| {
                    (0..c.n_eq()).flat_map(move |e| c.indices().iter().map(move |&j| (off + e, j)))
                })
        });
        let frame_map = |pat: &RowPattern| -> Vec<Vec<usize>> {
            (0..n_frames)
                .map(|b| {
                    let idx: Vec<usize> = (12 * b..12 * b + 12).collect();
                    pat.block_positions(&idx, &idx)
                })
                .collect()
        };
        let frame_k_map = [frame_map(&k_full), frame_map(&point_k)];
        let constraint_g_maps = constraints
            .iter()
            .zip(&lambda_offsets)
            .map(|(c, &off)| {
                let rows: Vec<usize> = (off..off + c.n_eq()).collect();
                g_rows.block_positions(&rows, c.indices())
            })
            .collect();
        let constraint_map = |pat: &RowPattern| -> Vec<Vec<usize>> {
            constraints
                .iter()
                .map(|c| pat.block_positions(c.indices(), c.indices()))
                .collect()
        };
        let constraint_k_maps = [constraint_map(&k_full), constraint_map(&point_k)];
        let max_local = constraints
            .iter()
            .map(|c| c.indices().len())
            .max()
            .unwrap_or(0)
            .max(12);
        // move the elements out of the deformables into slots with global maps
        let mut deformables = deformables;
        let mut strain = Vec::with_capacity(strain_parts.len());
        let mut taken: Vec<_> = deformables
            .iter_mut()
            .map(|d| std::mem::take(&mut d.elements).into_iter())
            .collect();
        let mut part = 0;
        for (f0, _, indices) in strain_parts {
            while deformable_frames[part] != f0 {
                part += 1;
            }
            let (element, _) = taken[part].next().expect("one element per slot");
            let k_positions = k_full.block_positions(&indices, &indices);
            strain.push(StrainSlot {
                element,
                indices,
                k_positions,
            });
        }
        let max_strain_local = strain.iter().map(|s| s.indices.len()).max().unwrap_or(0);
        let (k_pattern, point_k_pattern, g_pattern) =
            (k_full.entries, point_k.entries, g_rows.entries);
        Ok(Self {
            bodies,
            deformables,
            deformable_frames,
            n_frames,
            loads,
            distributed,
            constraints,
            lambda_offsets,
            n_lambda,
            mass,
            g_pattern,
            k_pattern,
            point_k_pattern,
            frame_k_map,
            constraint_g_maps,
            constraint_k_maps,
            strain,
            max_local,
            max_strain_local,
        })
    }

    /// The rigid bodies (frames `0..bodies().len()`).
    pub fn bodies(&self) -> &[RigidBody] {
        &self.bodies
    }

    /// The deformable contributions with their first frame index (their elements are held by
    /// the system, see [`ConstrainedSystem::strain_slots`]).
    pub fn deformables(&self) -> impl Iterator<Item = (&Deformable, usize)> {
        self.deformables
            .iter()
            .zip(self.deformable_frames.iter().copied())
    }

    /// Number of 12-coordinate frames (bodies and nodes).
    pub fn n_frames(&self) -> usize {
        self.n_frames
    }

    /// The constraints (orthonormality of each untied frame first), with their multiplier
    /// offsets.
    pub fn constraints(&self) -> impl Iterator<Item = (&dyn Constraint, usize)> {
        self.constraints
            .iter()
            .map(|c| c.as_ref())
            .zip(self.lambda_offsets.iter().copied())
    }

    /// Initial coordinates and velocities of all frames.
    pub fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let mut q: Vec<f64> = self.bodies.iter().flat_map(|b| b.initial_q()).collect();
        let mut v: Vec<f64> = self.bodies.iter().flat_map(|b| b.initial_v()).collect();
        for d in &self.deformables {
            q.extend_from_slice(&d.initial_q);
            v.extend_from_slice(&d.initial_v);
        }
        (q, v)
    }

    fn eval_parts(
        &self,
        t: f64,
        q: &[f64],
        lambda: &[f64],
        out: &mut PointEval,
        tangent: bool,
        with_strain: bool,
    ) {
        out.force.fill(0.0);
        out.phi.fill(0.0);
        out.phi_t.fill(0.0);
        out.phi_tt.fill(0.0);
        out.g.fill(0.0);
        // `K` in the whole pattern (with strain) or in the point pattern (without)
        let map = usize::from(!with_strain);
        let nk = if with_strain {
            self.k_pattern.len()
        } else {
            self.point_k_pattern.len()
        };
        if tangent {
            out.k[..nk].fill(0.0);
        }
        let m = self.max_local;
        let (q_loc, rest) = out.scratch.split_at_mut(m);
        let (g_loc, rest) = rest.split_at_mut(m * self.n_lambda.max(6));
        let (h_loc, _) = rest.split_at_mut(m * m.max(12));
        let scale = out.load_scale;
        for load in &self.loads {
            let b = load.body;
            let (s, mass) = match self.bodies.get(b) {
                Some(body) => (body.mass.first_moment, body.mass.mass),
                None => ([0.0; 3], 0.0),
            };
            let qb = &q[12 * b..12 * b + 12];
            let fb = &mut out.force[12 * b..12 * b + 12];
            if tangent {
                let kb = &mut h_loc[..144];
                kb.fill(0.0);
                load.add_to(t, qb, &s, mass, fb, Some(kb));
                for (e, &pos) in self.frame_k_map[map][b].iter().enumerate() {
                    out.k[pos] += kb[e];
                }
            } else {
                load.add_to(t, qb, &s, mass, fb, None);
            }
        }
        if scale != 1.0 {
            // so far `force` and `k` hold the frame loads only
            out.force.iter_mut().for_each(|f| *f *= scale);
            if tangent {
                out.k[..nk].iter_mut().for_each(|k| *k *= scale);
            }
        }
        for (off, l) in &self.distributed {
            let s = scale * l.time_function.value(t);
            if s != 0.0 {
                for (f, x) in out.force[*off..off + l.forces.len()]
                    .iter_mut()
                    .zip(&l.forces)
                {
                    *f += s * x;
                }
            }
        }
        // the applied loads act one or two per frame and do not cancel: their magnitude is
        // the magnitude of their sum
        for (m, f) in out.force_mag.iter_mut().zip(&out.force) {
            *m = f.abs();
        }
        for ((c, &off), (gmap, kmap)) in self.constraints.iter().zip(&self.lambda_offsets).zip(
            self.constraint_g_maps
                .iter()
                .zip(&self.constraint_k_maps[map]),
        ) {
            let idx = c.indices();
            let n = idx.len();
            let ne = c.n_eq();
            for (a, &i) in idx.iter().enumerate() {
                q_loc[a] = q[i];
            }
            let g = &mut g_loc[..ne * n];
            g.fill(0.0);
            let lam = &lambda[off..off + ne];
            let phi = &mut out.phi[off..off + ne];
            if tangent {
                let h = &mut h_loc[..n * n];
                h.fill(0.0);
                c.eval(&q_loc[..n], lam, phi, g, Some(h));
                for (e, &pos) in kmap.iter().enumerate() {
                    out.k[pos] += h[e];
                }
            } else {
                c.eval(&q_loc[..n], lam, phi, g, None);
            }
            for (e, &pos) in gmap.iter().enumerate() {
                out.g[pos] += g[e];
            }
            c.add_time_terms(
                t,
                phi,
                &mut out.phi_t[off..off + ne],
                &mut out.phi_tt[off..off + ne],
            );
        }
        if with_strain && !self.strain.is_empty() {
            let mut scratch = std::mem::take(&mut out.strain);
            for slot in &self.strain {
                add_elastic(
                    slot,
                    q,
                    &mut out.force,
                    &mut out.force_mag,
                    tangent.then_some(&mut out.k[..]),
                    &mut scratch,
                );
            }
            out.strain = scratch;
        }
    }
}

impl ConstrainedSystem for MultibodySystem {
    fn n_q(&self) -> usize {
        12 * self.n_frames
    }

    fn n_lambda(&self) -> usize {
        self.n_lambda
    }

    fn mass(&self) -> &[(usize, usize, f64)] {
        &self.mass
    }

    fn g_pattern(&self) -> &[(usize, usize)] {
        &self.g_pattern
    }

    fn k_pattern(&self) -> &[(usize, usize)] {
        &self.k_pattern
    }

    fn point_k_pattern(&self) -> &[(usize, usize)] {
        &self.point_k_pattern
    }

    fn constraint_units(&self) -> Vec<u8> {
        let mut u = vec![0u8; self.n_lambda];
        for (c, off) in self.constraints() {
            for e in 0..c.n_eq() {
                u[off + e] = c.length_power(e);
            }
        }
        u
    }

    fn new_point_eval(&self) -> PointEval {
        let m = self.max_local;
        let mut ev = PointEval::with_sizes(
            self.n_q(),
            self.n_lambda,
            self.g_pattern.len(),
            self.k_pattern.len(),
            // q_loc | G_loc | H_loc (also reused as the 12×12 load tangent)
            m + m * self.n_lambda.max(6) + m * m.max(12),
        );
        ev.strain = StrainScratch::new(self.max_strain_local);
        ev
    }

    fn eval(&self, t: f64, q: &[f64], lambda: &[f64], out: &mut PointEval, tangent: bool) {
        self.eval_parts(t, q, lambda, out, tangent, true);
    }

    fn eval_without_strain(
        &self,
        t: f64,
        q: &[f64],
        lambda: &[f64],
        out: &mut PointEval,
        tangent: bool,
    ) {
        self.eval_parts(t, q, lambda, out, tangent, false);
    }

    fn strain_slots(&self) -> &[StrainSlot] {
        &self.strain
    }

    fn director_frames(&self) -> usize {
        self.n_frames
    }

    fn eval_velocity_jacobian(&self, q: &[f64], v: &[f64], out: &mut PointEval) {
        out.gv.fill(0.0);
        let m = self.max_local;
        // q_loc | v_loc | local ∂(Gv)/∂q (fits in the G_loc part of the scratch)
        let (q_loc, rest) = out.scratch.split_at_mut(m);
        let (gv_loc, _) = rest.split_at_mut(m * self.n_lambda.max(6));
        let mut v_loc = [0.0; 64];
        for (c, gmap) in self.constraints.iter().zip(&self.constraint_g_maps) {
            let idx = c.indices();
            let n = idx.len();
            assert!(
                n <= v_loc.len(),
                "constraint with more than 64 local coordinates"
            );
            for (a, &i) in idx.iter().enumerate() {
                q_loc[a] = q[i];
                v_loc[a] = v[i];
            }
            let gv = &mut gv_loc[..c.n_eq() * n];
            gv.fill(0.0);
            c.velocity_jacobian(&q_loc[..n], &v_loc[..n], gv);
            for (e, &pos) in gmap.iter().enumerate() {
                out.gv[pos] += gv[e];
            }
        }
    }

    /// One pass over the constraints: row `e` of a constraint's
    /// [`velocity_jacobian`](Constraint::velocity_jacobian) is `vᵀ ∂²Φ_e/∂q²`, so its product
    /// with `v` is the curvature term (no tangent, no strain elements: `O(n_q)`).
    fn constraint_curvatures(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        assert_eq!(out.len(), self.n_lambda, "one curvature term per equation");
        let m = self.max_local;
        let (mut q_loc, mut v_loc) = (vec![0.0; m], vec![0.0; m]);
        let mut gv = Vec::new();
        for (c, &off) in self.constraints.iter().zip(&self.lambda_offsets) {
            let idx = c.indices();
            let (n, ne) = (idx.len(), c.n_eq());
            for (a, &i) in idx.iter().enumerate() {
                q_loc[a] = q[i];
                v_loc[a] = v[i];
            }
            gv.clear();
            gv.resize(ne * n, 0.0);
            c.velocity_jacobian(&q_loc[..n], &v_loc[..n], &mut gv);
            for (e, row) in gv.chunks_exact(n).enumerate() {
                out[off + e] = row.iter().zip(&v_loc[..n]).map(|(g, x)| g * x).sum();
            }
        }
    }

    fn breakpoints(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self
            .loads
            .iter()
            .map(|l| &l.time_function)
            .chain(self.distributed.iter().map(|(_, l)| &l.time_function))
            .flat_map(|f| f.breakpoints())
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    }

    fn potential_energy(&self, q: &[f64]) -> f64 {
        let loads: f64 = self
            .loads
            .iter()
            .filter_map(|l| {
                let (s, mass) = match self.bodies.get(l.body) {
                    Some(body) => (body.mass.first_moment, body.mass.mass),
                    None => ([0.0; 3], 0.0),
                };
                l.potential(&q[12 * l.body..12 * l.body + 12], &s, mass)
            })
            .sum();
        let distributed: f64 = self
            .distributed
            .iter()
            .filter(|(_, l)| l.time_function == TimeFunction::Constant)
            .map(|(off, l)| {
                -l.forces
                    .iter()
                    .zip(&q[*off..off + l.forces.len()])
                    .map(|(f, x)| f * x)
                    .sum::<f64>()
            })
            .sum();
        let mut scratch = StrainScratch::new(self.max_strain_local);
        let strain: f64 = self
            .strain
            .iter()
            .map(|s| elastic_energy(s, q, &mut scratch))
            .sum();
        loads + distributed + strain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LoadKind, MassProperties, TimeFunction};

    fn body() -> RigidBody {
        let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        RigidBody {
            name: "box".into(),
            mass: MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.1, 0.0, -0.2]),
            position: [0.0; 3],
            directors: d,
            velocity: [1.0, 0.0, 0.0],
            director_velocities: RigidBody::director_velocities_from_angular_velocity(
                &d,
                &[0.0, 0.0, 1.0],
            ),
        }
    }

    #[test]
    fn system_tangent_matches_finite_differences() {
        let loads = vec![
            Load {
                body: 0,
                kind: LoadKind::Torque([1.0, 2.0, -1.0]),
                time_function: TimeFunction::Constant,
            },
            Load {
                body: 0,
                kind: LoadKind::BodyForce([0.0, 0.0, -9.81]),
                time_function: TimeFunction::Constant,
            },
        ];
        let sys = MultibodySystem::new(vec![body()], loads, vec![]).unwrap();
        let q: Vec<f64> = vec![
            0.1, 0.2, 0.3, 1.0, 0.1, -0.2, 0.05, 0.9, 0.3, -0.1, 0.2, 1.1,
        ];
        let lam = vec![0.3, -1.0, 0.5, 2.0, -0.7, 0.1];
        let mut ev = sys.new_point_eval();
        sys.eval(0.0, &q, &lam, &mut ev, true);
        let resid = |ev: &PointEval| -> Vec<f64> {
            // Gᵀλ − f
            let mut r: Vec<f64> = ev.force.iter().map(|f| -f).collect();
            for (&(i, j), v) in sys.g_pattern().iter().zip(&ev.g) {
                r[j] += v * lam[i];
            }
            r
        };
        let eps = 1e-7;
        let mut kd = vec![0.0; 144];
        for (&(i, j), v) in sys.k_pattern().iter().zip(&ev.k) {
            kd[i * 12 + j] = *v;
        }
        for col in 0..12 {
            let (mut qp, mut qm) = (q.clone(), q.clone());
            qp[col] += eps;
            qm[col] -= eps;
            let mut e2 = sys.new_point_eval();
            sys.eval(0.0, &qp, &lam, &mut e2, false);
            let rp = resid(&e2);
            sys.eval(0.0, &qm, &lam, &mut e2, false);
            let rm = resid(&e2);
            for row in 0..12 {
                let fd = (rp[row] - rm[row]) / (2.0 * eps);
                assert!((fd - kd[row * 12 + col]).abs() < 1e-6, "K[{row},{col}]");
            }
        }
    }

    /// The row-bucketed patterns are the sorted sets of their entries, with and without added
    /// blocks, and the block positions point at the right entries.
    #[test]
    fn row_patterns_are_the_sorted_sets_of_their_entries() {
        let mut seed = 7u64;
        let mut next = |m: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) as usize % m
        };
        let n = 40;
        let entries: Vec<(usize, usize)> = (0..300).map(|_| (next(n), next(n))).collect();
        let blocks: Vec<Vec<usize>> = (0..12)
            .map(|_| (0..1 + next(9)).map(|_| next(n)).collect())
            .collect();
        let set: std::collections::BTreeSet<_> = entries.iter().copied().collect();
        let p = RowPattern::from_entries(n, || entries.iter().copied());
        assert_eq!(p.entries, set.iter().copied().collect::<Vec<_>>());
        let full = p.with_blocks(blocks.iter().map(|b| b.as_slice()));
        let mut set_full = set.clone();
        for b in &blocks {
            for &i in b {
                for &j in b {
                    set_full.insert((i, j));
                }
            }
        }
        assert_eq!(full.entries, set_full.iter().copied().collect::<Vec<_>>());
        for (pat, b) in [(&full, &blocks[3]), (&full, &blocks[7])] {
            let pos = pat.block_positions(b, b);
            for (r, &i) in b.iter().enumerate() {
                for (c, &j) in b.iter().enumerate() {
                    assert_eq!(pat.entries[pos[r * b.len() + c]], (i, j));
                }
            }
        }
        for &(i, j) in entries.iter().take(20) {
            assert_eq!(p.entries[p.block_positions(&[i], &[j])[0]], (i, j));
        }
    }

    #[test]
    fn momentum_is_mass_times_velocity() {
        let sys = MultibodySystem::new(vec![body()], vec![], vec![]).unwrap();
        let (_, v) = sys.initial_state();
        let mut p = [0.0; 12];
        sys.momentum_into(&v, &mut p);
        let b = body();
        assert_eq!(p, b.initial_p());
        // L = Σ_b φ̄ × π̄ + Σ_i d_i × π_i for one body
        let q = b.initial_q();
        let l = sys.angular_momentum(&q, &v);
        let mut want = [0.0; 3];
        for a in 0..4 {
            let c = cross(
                &[q[3 * a], q[3 * a + 1], q[3 * a + 2]],
                &[p[3 * a], p[3 * a + 1], p[3 * a + 2]],
            );
            for k in 0..3 {
                want[k] += c[k];
            }
        }
        assert_eq!(l, want);
    }
}
