//! Newton–Raphson with an exact tangent, [P, Eq. (25)]:
//! `K Δx = −R`, `x ← x + Δx`, until the stop criterion `Σ_A ‖R_A‖ < ε` holds.
//!
//! [`Refactorization::Chord`] turns it into a simplified (chord) Newton method that keeps the
//! last factorisation across iterations and across calls (time blocks) while it contracts the
//! residual well, and refactorises by a deterministic rule otherwise; it stops on the same
//! criterion, so it converges to the same tolerance.

use crate::error::SolveError;
use crate::solve::linear::LinearSolver;
use std::cmp::Ordering;
use std::time::Instant;

/// Tolerances and limits of the Newton iteration.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct NewtonParams {
    /// Absolute tolerance `ε` on the residual norm (the paper uses 1e-10).
    pub tolerance: f64,
    /// Iteration limit per block (or step).
    pub max_iterations: usize,
}

impl Default for NewtonParams {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 25,
        }
    }
}

/// When a [`NewtonSolver`] factorises the Jacobian.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Refactorization {
    /// Every iteration: Newton–Raphson (the Jacobian is assembled with every residual).
    #[default]
    EveryIteration,
    /// Simplified (chord) Newton: residuals are assembled alone and solved with the last
    /// factorisation, kept across iterations and across calls of [`NewtonSolver::solve`], as
    /// long as every iteration reduces the residual norm to at most `contraction` times the
    /// previous one. Rules (deterministic):
    /// * no factorisation yet, or the last iteration contracted by more than `contraction`:
    ///   assemble the Jacobian at the current iterate and factorise before the next solve;
    /// * an iteration with an old factorisation that does not reduce the residual is undone,
    ///   and the solve continues as Newton–Raphson (fresh factorisation every iteration) until
    ///   it returns.
    Chord {
        /// Largest accepted ratio of successive residual norms, in `(0, 1)`.
        contraction: f64,
    },
}

/// What one Newton solve did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct NewtonReport {
    /// Iterations (linear solves) done.
    pub iterations: usize,
    /// Numeric factorisations done (equal to `iterations` for Newton–Raphson; fewer for the
    /// chord method, which reuses them).
    pub factorizations: usize,
    /// Residual norm before each iteration and after the last one.
    pub residuals: Vec<f64>,
    /// Wall time in residual and Jacobian assembly (s).
    pub assembly_seconds: f64,
    /// Wall time in numeric LU factorisation (s).
    pub factorization_seconds: f64,
    /// Wall time in triangular solves (s).
    pub solve_seconds: f64,
    /// Floating-point floor of the residual norm at the last Jacobian, `64 ε ‖ |J| |x| ‖`
    /// (same norm as the residual): Newton stops when the residual is below the tolerance, or
    /// below this floor once it stagnates (stiff beams reach their floor above 1e-10).
    pub residual_floor: f64,
}

/// A square nonlinear system `R(x) = 0` whose Jacobian has a fixed sparsity pattern.
pub trait NewtonSystem {
    /// Writes `R(x)` into `r` and, if `jacobian` is given, the Jacobian values in the pattern
    /// order of the linear solver.
    fn assemble(&mut self, x: &[f64], r: &mut [f64], jacobian: Option<&mut [f64]>);
    /// Norm used in the stop criterion.
    fn residual_norm(&self, r: &[f64]) -> f64;
    /// Whether the Newton correction `dx` just applied to `x` is at the round-off level of `x`,
    /// so that the residual has reached its floating-point floor and the iterate is accepted
    /// even above the tolerance. Default: never (time schemes use an absolute tolerance).
    fn converged_by_update(&self, _dx: &[f64], _x: &[f64]) -> bool {
        false
    }
    /// Applies the Newton correction: `x ← x − dx` by default. Systems whose unknowns live on
    /// a manifold (director frames) may map the step onto it instead.
    fn apply_update(&mut self, x: &mut [f64], dx: &[f64]) {
        for (xi, d) in x.iter_mut().zip(dx) {
            *xi -= d;
        }
    }
}

/// Whether a Newton correction `dx` is at the round-off level of `x`
/// (`max |dx| ≤ 1e-13 (1 + max |x|)`): the residual has then reached its floating-point floor
/// (`‖J‖ ε ‖x‖`, large for stiff beams), and iterating further cannot lower it.
pub fn update_at_round_off(dx: &[f64], x: &[f64]) -> bool {
    let xmax = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let dmax = dx.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    dmax <= 1e-13 * (1.0 + xmax)
}

/// Where a Newton solve is (for error messages).
#[derive(Clone, Copy, Debug)]
pub struct NewtonContext {
    /// Block or step index.
    pub block: usize,
    /// Start time (s).
    pub t_start: f64,
    /// End time (s).
    pub t_end: f64,
}

/// Reusable buffers and the linear solver of a Newton iteration.
#[derive(Debug)]
pub struct NewtonSolver {
    lu: LinearSolver,
    values: Vec<f64>,
    r: Vec<f64>,
    floor: Vec<f64>,
    policy: Refactorization,
    /// Whether `lu` holds a factorisation usable as a chord matrix.
    factorized: bool,
    /// The iterate before the last chord step (to undo it).
    x_prev: Vec<f64>,
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
            floor: vec![0.0; n],
            policy,
            factorized: false,
            x_prev: Vec::new(),
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

    /// `64 ε ‖ |J| |x| ‖` with the Jacobian values of the last assembly, in the system's norm.
    fn residual_floor<S: NewtonSystem + ?Sized>(&mut self, sys: &S, x: &[f64]) -> f64 {
        let p = self.lu.pattern();
        self.floor.fill(0.0);
        for (j, &xj) in x.iter().enumerate() {
            let xj = xj.abs();
            if xj == 0.0 {
                continue;
            }
            for k in p.col_ptr[j]..p.col_ptr[j + 1] {
                self.floor[p.row_idx[k]] += self.values[k].abs() * xj;
            }
        }
        64.0 * f64::EPSILON * sys.residual_norm(&self.floor)
    }

    /// Runs Newton from the initial guess `x` (updated in place).
    pub fn solve<S: NewtonSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        x: &mut [f64],
        params: &NewtonParams,
        cx: NewtonContext,
    ) -> Result<NewtonReport, SolveError> {
        match self.policy {
            Refactorization::EveryIteration => self.solve_newton(sys, x, params, cx),
            Refactorization::Chord { contraction } => {
                self.solve_chord(sys, x, params, cx, contraction)
            }
        }
    }

    fn diverged(cx: NewtonContext, params: &NewtonParams, rep: NewtonReport) -> SolveError {
        SolveError::NewtonDiverged {
            block: cx.block,
            t_start: cx.t_start,
            t_end: cx.t_end,
            iterations: rep.iterations,
            residual: rep.residuals.last().copied().unwrap_or(f64::NAN),
            tolerance: params.tolerance,
            history: rep.residuals,
        }
    }

    fn non_finite(cx: NewtonContext, iteration: usize) -> SolveError {
        SolveError::NonFinite {
            block: cx.block,
            t_start: cx.t_start,
            t_end: cx.t_end,
            iteration,
        }
    }

    fn solve_newton<S: NewtonSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        x: &mut [f64],
        params: &NewtonParams,
        cx: NewtonContext,
    ) -> Result<NewtonReport, SolveError> {
        let mut rep = NewtonReport::default();
        // the factorisation below belongs to this solve only
        self.factorized = false;
        loop {
            let t = Instant::now();
            let want_jac = rep.iterations < params.max_iterations;
            sys.assemble(x, &mut self.r, want_jac.then_some(&mut self.values[..]));
            rep.assembly_seconds += t.elapsed().as_secs_f64();
            let norm = sys.residual_norm(&self.r);
            rep.residuals.push(norm);
            if want_jac && norm.is_finite() {
                rep.residual_floor = self.residual_floor(sys, x);
            }
            if !norm.is_finite() {
                return Err(Self::non_finite(cx, rep.iterations));
            }
            // The floor ends the iteration only once Newton stagnates below it (the last
            // correction reduced the residual by less than 10×): a residual near the floor may
            // still hide a resolvable answer (a tiny load), and quadratic convergence is not
            // cut short while it lasts.
            let stagnating =
                rep.residuals.len() >= 2 && norm > 0.1 * rep.residuals[rep.residuals.len() - 2];
            let floor = if stagnating { rep.residual_floor } else { 0.0 };
            if norm < params.tolerance.max(floor) {
                return Ok(rep);
            }
            if !want_jac {
                return Err(Self::diverged(cx, params, rep));
            }
            let t = Instant::now();
            self.lu.factorize(&self.values)?;
            rep.factorizations += 1;
            rep.factorization_seconds += t.elapsed().as_secs_f64();
            let t = Instant::now();
            self.lu.solve_in_place(&mut self.r);
            rep.solve_seconds += t.elapsed().as_secs_f64();
            sys.apply_update(x, &self.r);
            rep.iterations += 1;
            if sys.converged_by_update(&self.r, x) {
                return Ok(rep);
            }
        }
    }

    fn solve_chord<S: NewtonSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        x: &mut [f64],
        params: &NewtonParams,
        cx: NewtonContext,
        contraction: f64,
    ) -> Result<NewtonReport, SolveError> {
        let mut rep = NewtonReport::default();
        // Newton–Raphson from here on (after an undone chord step)
        let mut newton = false;
        // refactorise before the next solve
        let mut refactor = !self.factorized;
        // the factorisation was computed at the iterate of the last step
        let mut fresh = false;
        let mut prev_norm = f64::INFINITY;
        self.x_prev.resize(x.len(), 0.0);
        loop {
            let t = Instant::now();
            sys.assemble(x, &mut self.r, None);
            rep.assembly_seconds += t.elapsed().as_secs_f64();
            let mut norm = sys.residual_norm(&self.r);
            rep.residuals.push(norm);
            if !norm.is_finite() && (fresh || rep.iterations == 0) {
                return Err(Self::non_finite(cx, rep.iterations));
            }
            if norm < params.tolerance {
                return Ok(rep);
            }
            // (a NaN norm neither decreased nor contracted)
            let decreased = norm.partial_cmp(&prev_norm) == Some(Ordering::Less);
            let contracted = matches!(
                norm.partial_cmp(&(contraction * prev_norm)),
                Some(Ordering::Less | Ordering::Equal)
            );
            if rep.iterations > 0 && !decreased && !fresh {
                // an old factorisation made things worse: undo the step, continue as Newton
                x.copy_from_slice(&self.x_prev);
                norm = prev_norm;
                newton = true;
            } else if !contracted {
                refactor = true;
            }
            if rep.iterations >= params.max_iterations {
                return Err(Self::diverged(cx, params, rep));
            }
            if refactor || newton {
                let t = Instant::now();
                sys.assemble(x, &mut self.r, Some(&mut self.values[..]));
                rep.assembly_seconds += t.elapsed().as_secs_f64();
                let t = Instant::now();
                self.factorized = false;
                self.lu.factorize(&self.values)?;
                self.factorized = true;
                rep.factorizations += 1;
                rep.factorization_seconds += t.elapsed().as_secs_f64();
                refactor = false;
                fresh = true;
            } else {
                fresh = false;
            }
            prev_norm = norm;
            self.x_prev.copy_from_slice(x);
            let t = Instant::now();
            self.lu.solve_in_place(&mut self.r);
            rep.solve_seconds += t.elapsed().as_secs_f64();
            sys.apply_update(x, &self.r);
            rep.iterations += 1;
            if sys.converged_by_update(&self.r, x) {
                return Ok(rep);
            }
        }
    }
}
