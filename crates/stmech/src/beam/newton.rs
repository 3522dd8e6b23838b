//! The planar beam's Newton solves on the one driver ([`crate::solve::newton::drive`]): the
//! load steps of [`super::statics`] and the steps and slabs of the two forward integrators
//! ([`super::dynamics`], [`super::space_time`]). `docs/theory.md`, "The Newton stop".
//!
//! **Equation groups.** The rows of node `a` are the balance of forces `(r1, r2)` (N) and of
//! moments `θ` (N·m): two groups, [`FORCES`] and [`MOMENTS`]. A row's **magnitude** is the sum
//! of the absolute values of its terms, `m_i = Σ_e |f_e,i| + Σ_b |c M_ib (d_b − Δt v_b)| +
//! |f_ext,i|` (element internal forces, inertia entries, applied load), and the group's scale
//! the largest of them: the stop `|R_i| ≤ tol · max_{j∈g} m_j` does not depend on the units
//! (every term of a group changes by the same factor) nor on the origin (no term does).
//!
//! **Round-off floor.** The internal forces are computed from the absolute coordinates
//! (positions from the origin, angles), so a row is uncertain by `ε Σ_j |K_ij| X_g(j)`
//! (`K` the internal tangent with respect to them, `X_g` the largest absolute coordinate of the
//! kind of unknown `j`); the inertia rows are computed from the increments `d` and the start
//! velocities (`ε Σ_j |c M_ij| (D_g(j) + Δt V_g(j))`). This is the floor basis `φ_i` of
//! [`crate::solve::newton::measure`]: it grows with the stiffness, the element count and the
//! distance from the origin, and Newton stops there ("at the floor") when the tolerance is not
//! reachable in double precision. Prescribed unknowns have zero rows and no measure.

use super::assembly::BeamAssembler;
use super::element::MAX_DOFS;
use crate::error::SolveError;
use crate::solve::NewtonParams;
use crate::solve::newton::assembled::ROUND_OFF_CORRECTION;
use crate::solve::newton::measure::FLOOR_NEAR;
use crate::solve::newton::{
    DriverBuffers, Measures, NewtonContext, NewtonProblem, NewtonReport, Refactorization, drive,
};
use std::time::Instant;

/// Number of equation groups of the beam (forces, moments).
pub const GROUPS: usize = 2;
/// Group of the force rows `(r1, r2)` (N) and of the position unknowns (m).
pub const FORCES: u8 = 0;
/// Group of the moment rows `θ` (N·m) and of the angle unknowns (rad).
pub const MOMENTS: u8 = 1;

/// The group of unknown (and row) `i`: `(r1, r2, θ)` per node.
#[inline]
pub fn group_of(i: usize) -> u8 {
    if i % 3 == 2 { MOMENTS } else { FORCES }
}

/// No inertia (statics) for [`BeamResidual::add_element_floor`].
pub const NO_MASS: [[[f64; 2]; 3]; 3] = [[[0.0; 2]; 3]; 3];

/// The column weights `X_g(j)` of an element's unknowns (`nd` of them) for the floor basis.
pub fn column_scales(nd: usize, xmax: &[f64; 2]) -> [f64; MAX_DOFS] {
    let mut col = [0.0; MAX_DOFS];
    for (j, c) in col.iter_mut().enumerate().take(nd) {
        *c = xmax[group_of(j) as usize];
    }
    col
}

/// Largest `|x_i|` per group (positions, angles).
pub fn group_max(x: &[f64]) -> [f64; 2] {
    let mut m = [0.0f64; 2];
    let nodes = x.chunks_exact(3);
    for &v in nodes.remainder().iter().take(2) {
        m[0] = m[0].max(v.abs());
    }
    for node in nodes {
        m[0] = m[0].max(node[0].abs()).max(node[1].abs());
        m[1] = m[1].max(node[2].abs());
    }
    m
}

/// Adds the inertia rows `c Σ_b M_ab (d_b − h v_b)` of every element (the consistent mass `M`
/// per kind, `ρA` for `r`, `ρI` for `θ`; `c = 2/h²`) to `r` and the magnitudes of their terms,
/// `Σ_b |c M_ab (d_b − h v_b)|`, to `m` (see the module docs): one pass for both, every term
/// and every sum formed exactly as term by term (`(c M_ab) (d_b − h v_b)`, added to a row in the
/// order of `b` and of the elements).
#[allow(clippy::too_many_arguments)]
pub fn add_inertia(
    model: &super::model::BeamModel,
    c: f64,
    mass: &[[[f64; 2]; 3]; 3],
    d: &[f64],
    v: &[f64],
    h: f64,
    r: &mut [f64],
    m: &mut [f64],
) {
    let nd = model.element_dofs();
    let nodes = nd / 3;
    let mut cm = [[[0.0; 2]; 3]; 3];
    for (cma, ma) in cm.iter_mut().zip(mass) {
        for (cmab, mab) in cma.iter_mut().zip(ma) {
            for (x, &y) in cmab.iter_mut().zip(mab) {
                *x = c * y;
            }
        }
    }
    for e in 0..model.spec.elements {
        let o = model.element_offset(e);
        let (de, ve) = (&d[o..o + nd], &v[o..o + nd]);
        let mut w = [0.0; MAX_DOFS];
        for ((wj, &dj), &vj) in w.iter_mut().zip(de).zip(ve) {
            *wj = dj - h * vj;
        }
        let (re, me) = (&mut r[o..o + nd], &mut m[o..o + nd]);
        for (a, cma) in cm.iter().enumerate().take(nodes) {
            for k in 0..3 {
                let q = usize::from(k == 2);
                let (mut s, mut sm) = (re[3 * a + k], me[3 * a + k]);
                for (b, cmab) in cma.iter().enumerate().take(nodes) {
                    let t = cmab[q] * w[3 * b + k];
                    s += t;
                    sm += t.abs();
                }
                re[3 * a + k] = s;
                me[3 * a + k] = sm;
            }
        }
    }
}

/// A residual evaluation: rows `r`, magnitudes `m`, floor basis `phi` (with the tangent).
#[derive(Debug, Clone)]
pub struct BeamResidual {
    /// Residual `R` (prescribed rows zero).
    pub r: Vec<f64>,
    /// Magnitude of the terms of every row.
    pub m: Vec<f64>,
    /// Floor basis `φ_i` (written with a tangent when asked for; kept otherwise).
    pub phi: Vec<f64>,
    groups: Vec<u8>,
    /// Whether the next evaluation with a tangent forms the floor basis.
    want_floor: bool,
}

impl BeamResidual {
    /// Buffers for `n` unknowns.
    pub fn new(n: usize) -> Self {
        Self {
            r: vec![0.0; n],
            m: vec![0.0; n],
            phi: vec![0.0; n],
            groups: (0..n).map(group_of).collect(),
            want_floor: true,
        }
    }

    /// Zeroes the residual and magnitudes; returns whether this evaluation forms the floor
    /// basis (with a tangent, when [`BeamNewton`] asks for it), which it then zeroes too.
    pub fn clear(&mut self, tangent: bool) -> bool {
        self.r.fill(0.0);
        self.m.fill(0.0);
        let floor = tangent && self.want_floor;
        if floor {
            self.phi.fill(0.0);
        }
        floor
    }

    /// Adds the floor basis of one element's iteration matrix `k` (rows and columns from
    /// `offset`, `nd` unknowns, `k = s (K_int + I)` with the inertia `I_ij = c M_ab` between
    /// unknowns `i = 3a + κ`, `j = 3b + κ` of the same kind `κ`):
    ///
    /// `φ_i += Σ_j |w (k_ij − I_ij)| X̂_j + Σ_j |I_ij| Δ_g(i)`,
    ///
    /// the internal part against the absolute coordinates (`col[j] = X_g(j)` times the factor
    /// that undoes a Cayley scaling of column `j`, `w` the weight of the internal part in `k`)
    /// and the inertia against the increments `inc = Δ_g` of each group. `c = 0`: no inertia.
    #[allow(clippy::too_many_arguments)]
    pub fn add_element_floor(
        &mut self,
        offset: usize,
        nd: usize,
        k: &[[f64; MAX_DOFS]; MAX_DOFS],
        w: f64,
        c: f64,
        mass: &[[[f64; 2]; 3]; 3],
        col: &[f64; MAX_DOFS],
        inc: &[f64; 2],
    ) {
        let (nodes, w) = (nd / 3, w.abs());
        for (i, row) in k.iter().enumerate().take(nd) {
            let (a, kind) = (i / 3, i % 3);
            let mi = usize::from(kind == 2);
            let mut kint = *row;
            let mut inertia = 0.0;
            for b in 0..nodes {
                let m = c * mass[a][b][mi];
                kint[3 * b + kind] -= m;
                inertia += m.abs();
            }
            let s: f64 = kint[..nd]
                .iter()
                .zip(&col[..nd])
                .map(|(v, x)| v.abs() * x)
                .sum();
            self.phi[offset + i] += w * s + inertia * inc[mi];
        }
    }

    /// Zeroes the rows of prescribed unknowns.
    pub fn finish(&mut self, fixed: &[bool]) {
        for (i, &f) in fixed.iter().enumerate() {
            if f {
                self.r[i] = 0.0;
                self.m[i] = 0.0;
                self.phi[i] = 0.0;
            }
        }
    }
}

/// A nonlinear problem of the beam as [`BeamNewton`] solves it.
pub(crate) trait BeamProblem {
    /// Evaluates `R(x)` into `res` (rows, magnitudes; with `tangent` also the floor basis and
    /// the iteration matrix `∂R/∂x` into `asm`). `Err(e)`: element `e` cannot be evaluated.
    fn assemble(
        &mut self,
        x: &[f64],
        tangent: bool,
        res: &mut BeamResidual,
        asm: &mut BeamAssembler,
    ) -> Result<(), usize>;

    /// The absolute coordinates at the unknowns `x` of the last evaluation (`x` itself in
    /// statics, `x₀ + Δx` for the increments of a step).
    fn coordinates<'a>(&'a self, x: &'a [f64]) -> &'a [f64];
}

/// Corrections above which a solve that started with a kept factorisation
/// ([`BeamNewton::keep_across_solves`]) drops it, so that the next solve linearises at its
/// start; a solve that has to refactorise drops it too. A step's chord correction (residual
/// pass and back substitution) costs about a third of a linearisation (matrix pass and banded
/// factorisation; callgrind, the beam inverse's replay): measured on that replay (64 quadratic
/// elements, 3000 steps), a limit of 2 takes 1.9 corrections and 0.11 factorisations per step,
/// against 1.5 and 1 linearising every step, 2.5 and 0.01 with a limit of 3, 3.4 and none
/// without a limit.
pub const KEPT_CHORD_LIMIT: usize = 2;

/// The linear algebra and buffers of the beam's Newton solves (kept across steps).
#[derive(Debug)]
pub struct BeamNewton {
    asm: BeamAssembler,
    res: BeamResidual,
    policy: Refactorization,
    /// Unknowns of the last evaluation.
    last_x: Vec<f64>,
    /// The last evaluation assembled the iteration matrix.
    tangent_at_last: bool,
    /// The matrix was assembled after the last factorisation.
    stale: bool,
    /// The LU holds a factorisation (of this solve, or kept from an earlier one).
    factorized: bool,
    /// Linear solves (corrections) since [`reset_corrections`](Self::reset_corrections).
    corrections: usize,
    /// A floor basis has been formed (by any solve).
    has_floor: bool,
    /// Relative residual of the last evaluation of this solve (∞ at its start).
    last_relative: f64,
    /// The factorisation is kept across solves ([`keep_across_solves`](Self::keep_across_solves)).
    across_solves: bool,
    /// Measures of the last evaluation (at `last_x`), for an evaluation at the same point.
    last_measures: Measures,
    buf: DriverBuffers,
}

impl BeamNewton {
    /// Buffers for `model` and the refactorisation policy of its solves.
    pub fn new(
        model: &super::model::BeamModel,
        policy: Refactorization,
    ) -> Result<Self, SolveError> {
        let n = model.n_dofs();
        Ok(Self {
            asm: BeamAssembler::new(model)?,
            res: BeamResidual::new(n),
            policy,
            last_x: vec![f64::NAN; n],
            tangent_at_last: false,
            stale: false,
            factorized: false,
            corrections: 0,
            has_floor: false,
            last_relative: f64::INFINITY,
            across_solves: false,
            last_measures: Measures::default(),
            buf: DriverBuffers::default(),
        })
    }

    /// Corrections (linear solves) since the last reset.
    pub fn corrections(&self) -> usize {
        self.corrections
    }

    /// Restarts the count of corrections.
    pub fn reset_corrections(&mut self) {
        self.corrections = 0;
    }

    /// Keeps the factorisation across solves ([`Refactorization::Chord`] only): a solve then
    /// starts with chord steps on the matrix of an earlier one (another step's, which differs
    /// by the change of the state over a step) instead of linearising at its start, while that
    /// pays ([`KEPT_CHORD_LIMIT`]). Callers [`invalidate`](Self::invalidate) it where the
    /// problem itself changes (another time step). Off by default: the chord steps on an old
    /// matrix converge linearly and stop just below the tolerance, where a step that starts
    /// with Newton usually ends far below it (the flying beam's energy balance, which the
    /// forward runs report, grows from 2e-10 to 7e-9 J; the replays of the inverse problems
    /// only compare trajectories).
    pub fn keep_across_solves(&mut self, on: bool) {
        self.across_solves = on;
        if !on {
            self.factorized = false;
        }
    }

    /// Forgets the kept factorisation: the next solve linearises at its start.
    pub fn invalidate(&mut self) {
        self.factorized = false;
    }

    /// Runs Newton on `p` from `x` (updated in place). On return `p` has been evaluated at
    /// the returned `x` (its derived state, e.g. `x₁`, belongs to it).
    pub(crate) fn solve<P: BeamProblem>(
        &mut self,
        p: &mut P,
        x: &mut [f64],
        params: &NewtonParams,
        cx: NewtonContext,
    ) -> Result<NewtonReport, SolveError> {
        if !self.across_solves {
            self.factorized = false;
        }
        // whether the chord steps start with the factorisation of an earlier solve
        let kept = self.factorized;
        self.tangent_at_last = false;
        self.last_relative = f64::INFINITY;
        let mut buf = std::mem::take(&mut self.buf);
        let policy = self.policy;
        let res = drive(&mut Adapter { p, s: self }, x, params, policy, &mut buf);
        self.buf = buf;
        if res.is_err() {
            // (the matrix of a failed solve is no start for the next one)
            self.factorized = false;
        }
        if let Ok(r) = &res
            && kept
            && (r.factorizations > 0 || r.iterations > KEPT_CHORD_LIMIT)
        {
            // the kept matrix no longer pays: the next solve linearises at its start
            self.factorized = false;
        }
        let nonfinite = |iteration| SolveError::NonFinite {
            block: cx.block,
            t_start: cx.t_start,
            t_end: cx.t_end,
            iteration,
        };
        let rep = res.map_err(|e| e.into_solve_error(cx, |it, _element| nonfinite(it)))?;
        if self.last_x != *x {
            // (the driver ends at an evaluated point; kept for safety)
            p.assemble(x, false, &mut self.res, &mut self.asm)
                .map_err(|_| nonfinite(rep.iterations))?;
            self.last_x.copy_from_slice(x);
        }
        Ok(rep)
    }
}

/// A [`BeamProblem`] with its solver, as the driver sees it.
struct Adapter<'a, P: BeamProblem> {
    p: &'a mut P,
    s: &'a mut BeamNewton,
}

impl<P: BeamProblem> NewtonProblem for Adapter<'_, P> {
    type Error = usize;

    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        rep: &mut NewtonReport,
    ) -> Result<(), usize> {
        let s = &mut *self.s;
        let t = Instant::now();
        // the chord iteration asks for the residual first and then for the matrix at the same
        // point: before the first factorisation both are assembled in one pass
        let reuse = jacobian && s.tangent_at_last && s.last_x == x;
        if !reuse {
            let tangent = jacobian || !s.factorized;
            s.tangent_at_last = false;
            s.last_x.copy_from_slice(x);
            s.res.want_floor = !s.has_floor || s.last_relative <= FLOOR_NEAR;
            let r = self.p.assemble(x, tangent, &mut s.res, &mut s.asm);
            rep.assembly_seconds += t.elapsed().as_secs_f64();
            r?;
            s.has_floor |= tangent && s.res.want_floor;
            s.tangent_at_last = tangent;
            s.stale |= tangent;
            out.from_rows(GROUPS, &s.res.groups, &s.res.r, &s.res.m, Some(&s.res.phi));
            s.last_measures.clone_from(out);
        } else {
            // the rows of the last evaluation, and so its measures
            out.clone_from(&s.last_measures);
        }
        s.last_relative = out.relative();
        Ok(())
    }

    fn correction(&mut self, dx: &mut [f64], rep: &mut NewtonReport) -> Result<(), SolveError> {
        let s = &mut *self.s;
        if s.stale {
            let t = Instant::now();
            s.factorized = false;
            s.asm.factorize()?;
            s.factorized = true;
            s.stale = false;
            rep.factorizations += 1;
            rep.factorization_seconds += t.elapsed().as_secs_f64();
        }
        let t = Instant::now();
        dx.copy_from_slice(&s.res.r);
        s.asm.lu.solve_in_place(dx);
        s.corrections += 1;
        rep.solve_seconds += t.elapsed().as_secs_f64();
        Ok(())
    }

    fn unknown_groups(&self) -> &[u8] {
        &self.s.res.groups
    }

    fn has_linearization(&self) -> bool {
        self.s.factorized
    }

    fn invalidate(&mut self) {
        self.s.factorized = false;
    }

    /// The correction of the positions and of the angles, each against the largest absolute
    /// coordinate of its kind.
    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        let c = self.p.coordinates(x);
        let (xm, dm) = (group_max(c), group_max(dx));
        let tol = ROUND_OFF_CORRECTION * f64::EPSILON;
        dm[0] <= tol * xm[0] && dm[1] <= tol * xm[1]
    }
}
