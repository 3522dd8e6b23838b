//! The common case of [`NewtonProblem`]: a residual assembled into a vector and a Jacobian
//! into the values of a fixed sparsity pattern, solved by a [`LinearSolver`] (banded, dense
//! or sparse LU) that is kept across calls (time blocks, load steps) with its symbolic
//! analysis.

use super::measure::FLOOR_NEAR;
use super::{
    DriverBuffers, Measures, NewtonContext, NewtonParams, NewtonProblem, NewtonReport,
    Refactorization, drive,
};
use crate::discretize::pattern::CscPattern;
use crate::error::SolveError;
use crate::solve::linear::LinearSolver;
use std::time::Instant;

/// A square nonlinear system `r(x) = 0` whose Jacobian has a fixed sparsity pattern (the
/// linear solver's).
pub trait NewtonSystem {
    /// Number of equation groups (rows of one meaning and unit, see [`super::measure`]).
    fn n_groups(&self) -> usize;
    /// The group of every row.
    fn row_groups(&self) -> &[u8];
    /// Writes `r(x)`, the magnitudes `m` of its terms (`m_i = Σ_t |t_i| ≥ |r_i|`) and, if
    /// `jacobian` is given, the Jacobian values in pattern order.
    fn assemble(&mut self, x: &[f64], r: &mut [f64], m: &mut [f64], jacobian: Option<&mut [f64]>);
    /// Adds to the floor basis `out` (which holds `Σ_j |J_ij| X_g(j)`, see [`group_floor`])
    /// what the unknowns do not show: the sensitivity of each row to absolute coordinates
    /// that enter the residual but are not unknowns (the positions `q₀ + Δq` of a system
    /// solved for increments). Default: nothing (the unknowns are the absolute coordinates).
    fn add_floor(&self, _x: &[f64], _out: &mut [f64]) {}
    /// Whether the next assembly with a Jacobian is followed by [`add_floor`](Self::add_floor)
    /// (a system that forms its part of the floor basis while assembling may skip it).
    fn want_floor(&mut self, _on: bool) {}
    /// `x ← from − α dx` (default: additive).
    fn update(&mut self, x: &mut [f64], from: &[f64], dx: &[f64], alpha: f64) {
        for ((xi, &f), &d) in x.iter_mut().zip(from).zip(dx) {
            *xi = f - alpha * d;
        }
    }
    /// Whether the correction `dx` that led to `x` is at the round-off level of the physical
    /// coordinates (see [`NewtonProblem::correction_at_round_off`]). Default: never.
    fn correction_at_round_off(&self, _x: &[f64], _dx: &[f64]) -> bool {
        false
    }
}

/// The floor basis of the unknowns: `out_i = Σ_j |J_ij| X_g(j)` with `X_g` the largest `|x_j|`
/// of the unknowns of group `g` (the groups of the rows paired with them: a square system
/// pairs each row with an unknown of the same kind). A linear solve determines every unknown
/// only to `ε` times the largest of its kind, so this is the round-off of the residual that
/// the unknowns carry; where they are absolute coordinates it includes the distance from the
/// origin.
pub fn group_floor(
    pattern: &CscPattern,
    values: &[f64],
    x: &[f64],
    groups: &[u8],
    n_groups: usize,
    scratch: &mut Vec<f64>,
    out: &mut [f64],
) {
    scratch.clear();
    scratch.resize(n_groups, 0.0);
    for (&g, &xj) in groups.iter().zip(x) {
        let s = &mut scratch[g as usize];
        *s = s.max(xj.abs());
    }
    out.fill(0.0);
    let n = pattern.n;
    for (j, &g) in groups.iter().enumerate() {
        let xj = scratch[g as usize];
        if xj == 0.0 {
            continue;
        }
        let (a, b) = (pattern.col_ptr[j], pattern.col_ptr[j + 1]);
        let vals = &values[a..b];
        if b - a == n {
            // a full column (rows sorted and distinct: 0..n): the same sums, vectorised
            for (o, &v) in out[..n].iter_mut().zip(vals) {
                *o += v.abs() * xj;
            }
        } else {
            for (&i, &v) in pattern.row_idx[a..b].iter().zip(vals) {
                out[i] += v.abs() * xj;
            }
        }
    }
}

/// Relative size of a correction at the round-off level of the coordinates, in units of `ε`.
pub const ROUND_OFF_CORRECTION: f64 = 16.0;

/// Whether the correction `dq` of frame coordinates `q` (absolute: positions from the origin,
/// directors; frames of 12) is at their round-off level, `max |dq| ≤ 16 ε max |q|`, for the
/// positions and the directors separately (their units differ).
pub fn frames_at_round_off(q: &[f64], dq: &[f64]) -> bool {
    let (mut dp, mut xp, mut dd, mut xd) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (i, (&x, &d)) in q.iter().zip(dq).enumerate() {
        if i % 12 < 3 {
            xp = xp.max(x.abs());
            dp = dp.max(d.abs());
        } else {
            xd = xd.max(x.abs());
            dd = dd.max(d.abs());
        }
    }
    let tol = ROUND_OFF_CORRECTION * f64::EPSILON;
    dp <= tol * xp && dd <= tol * xd
}

/// Reusable buffers, the linear solver and the refactorisation policy of the Newton solves of
/// one [`NewtonSystem`] shape.
#[derive(Debug)]
pub struct NewtonSolver {
    lu: LinearSolver,
    values: Vec<f64>,
    r: Vec<f64>,
    m: Vec<f64>,
    phi: Vec<f64>,
    group_max: Vec<f64>,
    policy: Refactorization,
    /// `lu` holds a factorisation usable for chord steps.
    factorized: bool,
    /// `values` were assembled after the last factorisation.
    stale: bool,
    /// A floor basis has been formed (by any solve).
    has_floor: bool,
    /// Relative residual of the last evaluation of this solve (∞ at its start).
    last_relative: f64,
    /// The last solve converged with one correction: this one is expected to as well, and
    /// checks the residual after its first correction alone (see
    /// [`NewtonProblem::jacobian_with_residual`] below).
    one_step: bool,
    /// Corrections of this solve so far.
    corrections: usize,
    buf: DriverBuffers,
}

impl NewtonSolver {
    /// Buffers for the given linear solver; Newton–Raphson.
    pub fn new(lu: LinearSolver) -> Self {
        Self::with_policy(lu, Refactorization::EveryIteration)
    }

    /// Buffers for the given linear solver and refactorisation policy.
    pub fn with_policy(lu: LinearSolver, policy: Refactorization) -> Self {
        let nnz = lu.pattern().nnz();
        let n = lu.pattern().n;
        Self {
            lu,
            values: vec![0.0; nnz],
            r: vec![0.0; n],
            m: vec![0.0; n],
            phi: vec![0.0; n],
            group_max: Vec::new(),
            policy,
            factorized: false,
            stale: false,
            has_floor: false,
            last_relative: f64::INFINITY,
            one_step: false,
            corrections: 0,
            buf: DriverBuffers::default(),
        }
    }

    /// Forgets the kept factorisation (the next chord solve starts with a fresh one).
    pub fn invalidate(&mut self) {
        self.factorized = false;
    }

    /// The linear solver (its kind and pattern).
    pub fn linear_solver(&self) -> &LinearSolver {
        &self.lu
    }

    /// Runs Newton from the initial guess `x` (updated in place).
    pub fn solve<S: NewtonSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        x: &mut [f64],
        params: &NewtonParams,
        cx: NewtonContext,
    ) -> Result<NewtonReport, SolveError> {
        let policy = self.policy;
        self.last_relative = f64::INFINITY;
        self.corrections = 0;
        let mut buf = std::mem::take(&mut self.buf);
        let mut prob = Assembled { sys, s: self };
        let res = drive(&mut prob, x, params, policy, &mut buf);
        self.buf = buf;
        // (chord steps check every residual alone already)
        self.one_step = matches!(policy, Refactorization::EveryIteration)
            && matches!(&res, Ok(rep) if rep.iterations == 1);
        res.map_err(|e| e.into_solve_error(cx, |_, never| match never {}))
    }
}

/// A [`NewtonSystem`] with its solver's buffers, as the driver sees it.
struct Assembled<'a, S: NewtonSystem + ?Sized> {
    sys: &'a mut S,
    s: &'a mut NewtonSolver,
}

impl<S: NewtonSystem + ?Sized> NewtonProblem for Assembled<'_, S> {
    type Error = std::convert::Infallible;

    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        rep: &mut NewtonReport,
    ) -> Result<(), Self::Error> {
        let s = &mut *self.s;
        let t = Instant::now();
        // the floor basis is formed near convergence (and once at first); kept otherwise. A
        // solve expected to converge with one correction forms it at its start: its last
        // evaluation is then the residual alone (`jacobian_with_residual`)
        let floor = jacobian
            && (!s.has_floor
                || s.last_relative <= FLOOR_NEAR
                || (s.one_step && s.corrections == 0));
        self.sys.want_floor(floor);
        self.sys
            .assemble(x, &mut s.r, &mut s.m, jacobian.then_some(&mut s.values[..]));
        s.stale |= jacobian;
        if floor {
            s.has_floor = true;
            group_floor(
                s.lu.pattern(),
                &s.values,
                x,
                self.sys.row_groups(),
                self.sys.n_groups(),
                &mut s.group_max,
                &mut s.phi,
            );
            self.sys.add_floor(x, &mut s.phi);
        }
        rep.assembly_seconds += t.elapsed().as_secs_f64();
        out.from_rows(
            self.sys.n_groups(),
            self.sys.row_groups(),
            &s.r,
            &s.m,
            Some(&s.phi),
        );
        s.last_relative = out.relative();
        Ok(())
    }

    fn correction(&mut self, dx: &mut [f64], rep: &mut NewtonReport) -> Result<(), SolveError> {
        let s = &mut *self.s;
        if s.stale {
            let t = Instant::now();
            s.factorized = false;
            s.lu.factorize(&s.values)?;
            s.factorized = true;
            s.stale = false;
            rep.factorizations += 1;
            rep.factorization_seconds += t.elapsed().as_secs_f64();
        }
        let t = Instant::now();
        dx.copy_from_slice(&s.r);
        s.lu.solve_in_place(dx);
        rep.solve_seconds += t.elapsed().as_secs_f64();
        s.corrections += 1;
        Ok(())
    }

    fn unknown_groups(&self) -> &[u8] {
        self.sys.row_groups()
    }

    fn has_linearization(&self) -> bool {
        self.s.factorized
    }

    fn invalidate(&mut self) {
        self.s.factorized = false;
    }

    fn update(&mut self, x: &mut [f64], from: &[f64], dx: &[f64], alpha: f64) {
        self.sys.update(x, from, dx, alpha);
    }

    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        self.sys.correction_at_round_off(x, dx)
    }

    /// The residual alone where the quadratic model predicts convergence, or after the first
    /// correction of a solve whose predecessor converged with one (the element-wise time
    /// blocks from an extrapolated start): the Jacobian (its scatter and its floor basis) of a
    /// converged iterate would never be used. A wrong prediction costs one residual
    /// evaluation (`NewtonReport::residual_checks`) and ends the one-step expectation.
    fn jacobian_with_residual(&self, predicted: bool) -> bool {
        !(predicted || (self.s.one_step && self.s.corrections == 1))
    }
}
