//! The one Newton driver of stmech: every nonlinear solve (time blocks and condensed elements,
//! θ-steps, statics, the planar beam and string steppers, the inverse FEM with its sideways
//! elimination, the sequential baseline, the closed-loop replays) runs through [`drive`].
//!
//! Newton–Raphson with the exact tangent, [P, Eq. (25)]: `J Δx = r`, `x ← x − α Δx`. What the
//! driver adds to the plain iteration, and where every solver used to differ:
//!
//! * **One stop, invariant under units and origin** ([`measure`]): the residual of every
//!   equation group relative to the magnitude of the terms that make it up, `e ≤ tol`
//!   ([`NewtonParams::tolerance`], default `1e-10`); or, after at least one correction, every
//!   row within `tol S_g` of its round-off floor `F ε Σ_j |J_ij| |x̂_j|` computed from the
//!   absolute coordinates ("converged at the round-off floor", reported in
//!   [`NewtonReport::at_floor`]); or, as a safety net for floors the estimate misses, a
//!   correction of the physical coordinates at their round-off level while the residual no
//!   longer falls ([`NewtonProblem::correction_at_round_off`]; multipliers are left out).
//!   A start is never accepted above the tolerance without a correction.
//! * **Globalisation**: a step that makes an element unevaluable or the residual non-finite is
//!   halved (down to `2⁻⁸`). Beyond that a watchdog (Chamberlain, Powell, Lemaréchal &
//!   Pedersen 1982): plain Newton while it improves on its best iterate at least every
//!   [`WATCHDOG`] iterations (its residual may rise for a while under large rotations and
//!   converge from there); otherwise back to the best iterate, and from there a step that
//!   shows no progress is halved: neither did the residual fall (with the scales of the step's
//!   start), nor is the correction at the new point shorter than the step (Deuflhard's
//!   restricted monotonicity).
//! * **Chord steps** ([`Refactorization::Chord`]): the factorisation is kept across iterations
//!   and calls while every iteration contracts the residual enough; the stop is the same.
//! * **Failures that say what to change** ([`NewtonFailure`]): a residual that stalls near
//!   its floor names `newton.tolerance` and the floor; one that does not fall names the
//!   stage's own remedy ([`Stage`]).

pub mod assembled;
pub mod measure;

pub use assembled::{NewtonSolver, NewtonSystem};
pub use measure::{FLOOR_FACTOR, GroupMeasure, Measures};

use crate::error::SolveError;
use std::cmp::Ordering;

/// Tolerances and limits of the Newton iteration: one type and one meaning for every solver.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct NewtonParams {
    /// Relative tolerance: Newton has converged when every residual row is at most this times
    /// the magnitude of the terms of its equation group ([`measure`]). Dimensionless, so it
    /// means the same in any unit system and for any size of model.
    pub tolerance: f64,
    /// Iteration limit per solve (block, step, load step or space-time domain).
    pub max_iterations: usize,
}

/// Default relative tolerance.
pub const DEFAULT_TOLERANCE: f64 = 1e-10;
/// Default iteration limit.
pub const DEFAULT_MAX_ITERATIONS: usize = 30;
/// Smallest accepted tolerance: below it the stop would always be the round-off floor.
pub const MIN_TOLERANCE: f64 = 1e-15;
/// Largest accepted tolerance (a relative residual of 1 % is not a solution).
pub const MAX_TOLERANCE: f64 = 1e-2;
/// Step halvings of the line search (the smallest step is `2⁻⁸`).
pub const MAX_HALVINGS: usize = 8;

/// Largest accepted iteration limit (a bound on the work of one solve).
pub const MAX_MAX_ITERATIONS: i64 = 1000;

impl NewtonParams {
    /// The parameters of a scenario's `[newton]` table, with the problems of its fields as
    /// `(field, message)`: the one reading of `newton.tolerance` and `newton.max_iterations`
    /// for every problem type. A field with a problem keeps its default.
    pub fn from_fields(
        tolerance: Option<f64>,
        max_iterations: Option<i64>,
    ) -> (Self, Vec<(&'static str, String)>) {
        let mut params = Self::default();
        let mut problems = Vec::new();
        if let Some(tol) = tolerance {
            if (MIN_TOLERANCE..=MAX_TOLERANCE).contains(&tol) {
                params.tolerance = tol;
            } else {
                let why = if tol.is_finite() && tol > 0.0 && tol < MIN_TOLERANCE {
                    "; a relative residual below that is under the round-off of double \
                     precision (Newton already stops at the round-off floor and says so)"
                } else if tol > MAX_TOLERANCE {
                    "; a residual of more than 1 % of the forces is not a solution"
                } else {
                    ""
                };
                problems.push((
                    "newton.tolerance",
                    format!(
                        "must be a relative residual between {MIN_TOLERANCE:e} and \
                         {MAX_TOLERANCE:e} (got {tol:e}){why}; the default is \
                         {DEFAULT_TOLERANCE:e}"
                    ),
                ));
            }
        }
        if let Some(it) = max_iterations {
            if (1..=MAX_MAX_ITERATIONS).contains(&it) {
                params.max_iterations = it as usize;
            } else {
                problems.push((
                    "newton.max_iterations",
                    format!(
                        "must be between 1 and {MAX_MAX_ITERATIONS} (got {it}); the default \
                         is {DEFAULT_MAX_ITERATIONS}"
                    ),
                ));
            }
        }
        (params, problems)
    }
}

impl Default for NewtonParams {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }
}

/// When the driver factorises the Jacobian.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Refactorization {
    /// Every iteration: Newton–Raphson.
    #[default]
    EveryIteration,
    /// Simplified (chord) Newton: residuals are evaluated alone and solved with the last
    /// factorisation, kept across iterations and across calls, as long as every iteration
    /// reduces the relative residual to at most `contraction` times the previous one. Rules
    /// (deterministic):
    /// * no factorisation yet, or the last iteration contracted by less: linearise at the
    ///   current iterate before the next solve;
    /// * an iteration with an old factorisation that does not reduce the residual is undone,
    ///   and the solve continues as Newton–Raphson until it returns.
    Chord {
        /// Largest accepted ratio of successive residuals, in `(0, 1)`.
        contraction: f64,
    },
}

/// What one Newton solve did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct NewtonReport {
    /// Iterations (corrections) done.
    pub iterations: usize,
    /// Numeric factorisations done.
    pub factorizations: usize,
    /// Relative residual above the round-off floor ([`Measures::relative_excess`]) before
    /// each iteration and after the last: at most the tolerance at convergence.
    pub residuals: Vec<f64>,
    /// Relative residual ([`Measures::relative`]) at the last iterate: above the tolerance
    /// only when the solve stopped at the round-off floor ([`at_floor`](Self::at_floor)).
    pub final_relative: f64,
    /// Wall time in residual and Jacobian assembly (s).
    pub assembly_seconds: f64,
    /// Wall time in numeric factorisation (s).
    pub factorization_seconds: f64,
    /// Wall time in triangular solves (s).
    pub solve_seconds: f64,
    /// Relative round-off floor ([`Measures::relative_floor`]) at the last iterate.
    pub residual_floor: f64,
    /// Whether the solve stopped at the round-off floor above the tolerance.
    pub at_floor: bool,
    /// Step halvings of the line search.
    pub halvings: usize,
    /// Residual-only evaluations made where convergence was predicted.
    pub residual_checks: usize,
}

impl NewtonReport {
    /// The last relative residual.
    pub fn final_residual(&self) -> f64 {
        self.residuals.last().copied().unwrap_or(f64::NAN)
    }

    /// Adds the work of `other` (iterations, factorisations, times, flags) to this report.
    pub fn add_work(&mut self, other: &NewtonReport) {
        self.iterations += other.iterations;
        self.factorizations += other.factorizations;
        self.assembly_seconds += other.assembly_seconds;
        self.factorization_seconds += other.factorization_seconds;
        self.solve_seconds += other.solve_seconds;
        self.halvings += other.halvings;
        self.residual_checks += other.residual_checks;
        self.at_floor |= other.at_floor;
        self.residual_floor = self.residual_floor.max(other.residual_floor);
    }
}

/// Which kind of solve a Newton iteration belongs to: it decides the remedy that a failure
/// names (only fields of the scenario type that runs this solver).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// A space-time block of a multibody run.
    #[default]
    TimeBlock,
    /// A θ-step (implicit Euler, midpoint) of a multibody run.
    ThetaStep,
    /// A load step of the multibody statics.
    LoadStep,
    /// A time step of the planar beam.
    BeamStep,
    /// A load step of the planar beam statics.
    BeamLoadStep,
    /// The space-time domain of a planar beam or crane inverse problem.
    InverseDomain,
    /// The space-time domain of the spatial inverse problem.
    SpatialInverseDomain,
    /// A step of a closed-loop replay (a check of a result, not the result).
    Replay,
    /// The static equilibrium of a hanging string ([`crate::string::statics`]).
    StringStatics,
}

impl Stage {
    /// What to change when Newton does not converge (and the residual is not at its floor).
    pub fn remedy(self) -> &'static str {
        match self {
            Self::TimeBlock => {
                "use smaller time elements (more method.blocks or method.elements_per_block); \
                 or raise newton.max_iterations"
            }
            Self::ThetaStep => "use a smaller method.step; or raise newton.max_iterations",
            Self::LoadStep => {
                "use more load steps (statics.load_steps), and check that the loads are not \
                 beyond a limit point and that every part is held"
            }
            Self::BeamStep => "use a smaller dynamic.step; or raise newton.max_iterations",
            Self::BeamLoadStep => {
                "use more load steps (static.steps), and check that the loads are not beyond a \
                 limit point"
            }
            Self::InverseDomain => {
                "check that the trajectory is reachable (a beam cannot stretch or bend \
                 arbitrarily, a rope can only pull), slow the manoeuvre down, or refine the mesh \
                 at the same ratio (mesh.resolution)"
            }
            Self::SpatialInverseDomain => {
                "check that the path is reachable, slow the manoeuvre down, or refine the mesh \
                 (beams[0].elements, with inverse.elements_t following)"
            }
            Self::Replay => {
                "the replay is a check of the result; switch it off with verify.closed_loop = false"
            }
            Self::StringStatics => {
                "check the rope data (a hanging rope with positive length, mass and stiffness \
                 has one equilibrium)"
            }
        }
    }

    /// What a solve of this stage is called in messages.
    pub fn what(self) -> &'static str {
        match self {
            Self::TimeBlock => "block",
            Self::ThetaStep | Self::BeamStep => "step",
            Self::LoadStep | Self::BeamLoadStep => "load step",
            Self::InverseDomain | Self::SpatialInverseDomain => "space-time solve",
            Self::Replay => "replay step",
            Self::StringStatics => "static solve of the hanging rope",
        }
    }
}

/// Where a Newton solve is (for reports and error messages).
#[derive(Clone, Copy, Debug, Default)]
pub struct NewtonContext {
    /// Block, step or load-step index.
    pub block: usize,
    /// Start time (s), or load factor.
    pub t_start: f64,
    /// End time (s), or load factor.
    pub t_end: f64,
    /// What kind of solve.
    pub stage: Stage,
}

/// How a Newton solve failed to converge (within [`NewtonError::Diverged`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NewtonFailure {
    /// Iterations done.
    pub iterations: usize,
    /// Last relative residual.
    pub residual: f64,
    /// Relative round-off floor at the last iterate.
    pub floor: f64,
    /// Requested tolerance.
    pub tolerance: f64,
    /// Relative residuals, first to last.
    pub history: Vec<f64>,
    /// Whether the residual stalled (fell by less than 10× over the last three iterations)
    /// within 10⁴ of its floor: round-off, not divergence.
    pub stalled: bool,
}

impl NewtonFailure {
    fn new(rep: &NewtonReport, tolerance: f64) -> Self {
        let h = &rep.residuals;
        let residual = h.last().copied().unwrap_or(f64::NAN);
        let floor = rep.residual_floor;
        let stalled = h.len() >= 4 && {
            let recent = &h[h.len() - 4..];
            let lo = recent.iter().copied().fold(f64::INFINITY, f64::min);
            lo > 0.1 * recent[0] && residual <= 1e4 * floor.max(f64::MIN_POSITIVE)
        } || (residual.is_finite() && residual <= 10.0 * floor);
        Self {
            iterations: rep.iterations,
            residual,
            floor,
            tolerance,
            history: h.clone(),
            stalled,
        }
    }

    /// A tolerance above the stalled residuals (a power of 10), for the remedy.
    pub fn suggested_tolerance(&self) -> f64 {
        let h = &self.history;
        let recent = &h[h.len().saturating_sub(4)..];
        let top = recent
            .iter()
            .copied()
            .fold(0.0f64, f64::max)
            .max(self.floor);
        10f64.powf(top.log10().ceil()).min(MAX_TOLERANCE)
    }
}

/// Why a Newton solve stopped without a solution.
#[derive(Debug)]
pub enum NewtonError<E> {
    /// The iteration limit was reached.
    Diverged(NewtonFailure),
    /// The residual at the start or after a full set of halvings is not finite.
    NonFinite {
        /// Iteration.
        iteration: usize,
    },
    /// The problem could not be evaluated at the start, or at any step length.
    Eval {
        /// Iteration.
        iteration: usize,
        /// The problem's failure.
        source: E,
    },
    /// The linear solve failed (singular matrix).
    Linear(SolveError),
}

impl<E> NewtonError<E> {
    /// The library's error for a failure in context `cx`, with `eval` mapping an evaluation
    /// failure.
    pub fn into_solve_error(
        self,
        cx: NewtonContext,
        eval: impl FnOnce(usize, E) -> SolveError,
    ) -> SolveError {
        match self {
            Self::Diverged(f) => SolveError::newton_diverged(cx, f),
            Self::NonFinite { iteration } => SolveError::NonFinite {
                block: cx.block,
                t_start: cx.t_start,
                t_end: cx.t_end,
                iteration,
            },
            Self::Eval { iteration, source } => eval(iteration, source),
            Self::Linear(e) => e,
        }
    }
}

/// A nonlinear problem `r(x) = 0` as the driver sees it.
pub trait NewtonProblem {
    /// Why an evaluation failed (an element turned inside out, …).
    type Error;

    /// Evaluates the residual at `x` into `out` ([`Measures`], groups fixed by the problem);
    /// with `jacobian`, also linearises at `x` for the next [`correction`](Self::correction).
    /// Adds its time to `rep.assembly_seconds` (and linear work done here to the linear
    /// fields, e.g. a streamed elimination).
    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        rep: &mut NewtonReport,
    ) -> Result<(), Self::Error>;

    /// The Newton correction `dx = J⁻¹ r` at the last evaluated point, with the last
    /// linearisation (an older one for chord steps). Adds its work to `rep`.
    fn correction(&mut self, dx: &mut [f64], rep: &mut NewtonReport) -> Result<(), SolveError>;

    /// The group of every unknown, for the norm of corrections (the groups of the rows paired
    /// with them). Empty: one group.
    fn unknown_groups(&self) -> &[u8] {
        &[]
    }

    /// Whether a linearisation is kept from an earlier call (chord steps may use it).
    fn has_linearization(&self) -> bool {
        false
    }

    /// Forgets the kept linearisation.
    fn invalidate(&mut self) {}

    /// `x ← from − α dx` (systems on manifolds may map the step onto them).
    fn update(&mut self, x: &mut [f64], from: &[f64], dx: &[f64], alpha: f64) {
        for ((xi, &f), &d) in x.iter_mut().zip(from).zip(dx) {
            *xi = f - alpha * d;
        }
    }

    /// Whether the correction `dx` just applied to reach `x` is at the round-off level of the
    /// physical coordinates (positions from the origin, directors; not multipliers): the
    /// iterate can no longer change. Default: never.
    fn correction_at_round_off(&self, _x: &[f64], _dx: &[f64]) -> bool {
        false
    }

    /// Whether to linearise together with the residual: `predicted` says the quadratic model
    /// expects this residual to meet the tolerance. Default: always (assembling `J` with `r`
    /// costs little more than `r` alone); a problem whose linearisation is expensive (a
    /// streamed elimination) checks predicted convergence first.
    fn jacobian_with_residual(&self, _predicted: bool) -> bool {
        true
    }
}

/// Reusable vectors of [`drive`].
#[derive(Clone, Debug, Default)]
pub struct DriverBuffers {
    best: Vec<f64>,
    dx: Vec<f64>,
    from: Vec<f64>,
    dxbar: Vec<f64>,
    xscale: Vec<f64>,
    meas: Measures,
    at_from: Measures,
}

/// How the last correction ended, for the round-off safety net.
struct Step {
    at_round_off: bool,
}

/// Runs Newton on `prob` from `x` (updated in place).
pub fn drive<P: NewtonProblem + ?Sized>(
    prob: &mut P,
    x: &mut [f64],
    params: &NewtonParams,
    policy: Refactorization,
    buf: &mut DriverBuffers,
) -> Result<NewtonReport, NewtonError<P::Error>> {
    let n = x.len();
    buf.dx.resize(n, 0.0);
    buf.from.resize(n, 0.0);
    match policy {
        Refactorization::EveryIteration => newton_raphson(prob, x, params, buf),
        Refactorization::Chord { contraction } => chord(prob, x, params, contraction, buf),
    }
}

/// Quadratic prediction `r_{k+1} ≈ r_k (r_k / r_{k−1})²` with a margin of 10 below `tol`.
fn predicted(rep: &NewtonReport, tol: f64) -> bool {
    match rep.residuals[..] {
        [.., a, b] if a > 0.0 => 10.0 * b * (b / a) * (b / a) < tol,
        _ => false,
    }
}

/// Records the measures of the current iterate; returns whether to stop (converged).
fn accept(rep: &mut NewtonReport, m: &Measures, tol: f64, last: &Step) -> bool {
    let e = m.relative_excess();
    rep.final_relative = m.relative();
    rep.residuals.push(e);
    rep.residual_floor = m.relative_floor();
    if m.met(tol) {
        return true;
    }
    if rep.iterations == 0 {
        return false;
    }
    if m.met_at_floor(tol) {
        rep.at_floor = true;
        return true;
    }
    // safety net: the coordinates no longer move and the residual no longer falls
    let k = rep.residuals.len();
    // a NaN residual counts as stagnating
    let stagnating = k >= 2 && (e >= 0.5 * rep.residuals[k - 2] || e.is_nan());
    if last.at_round_off && stagnating && e.is_finite() {
        rep.at_floor = true;
        return true;
    }
    false
}

fn finite(m: &Measures) -> bool {
    m.groups.iter().all(|g| g.residual.is_finite())
}

/// Steps from `buf.from` along `buf.dx` by `alpha`, halving while the problem cannot be
/// evaluated there (an element turned inside out) or the residual is not finite. Leaves `x`
/// at the point and `buf.meas` its measures; returns the step length taken.
fn take_step<P: NewtonProblem + ?Sized>(
    prob: &mut P,
    x: &mut [f64],
    mut alpha: f64,
    jac: bool,
    rep: &mut NewtonReport,
    buf: &mut DriverBuffers,
) -> Result<f64, NewtonError<P::Error>> {
    loop {
        prob.update(x, &buf.from, &buf.dx, alpha);
        let res = prob.evaluate(x, jac, &mut buf.meas, rep);
        let ok = matches!(res, Ok(())) && finite(&buf.meas);
        if ok {
            return Ok(alpha);
        }
        if alpha <= MIN_STEP {
            return match res {
                Err(source) => Err(NewtonError::Eval {
                    iteration: rep.iterations,
                    source,
                }),
                Ok(()) => Err(NewtonError::NonFinite {
                    iteration: rep.iterations,
                }),
            };
        }
        alpha *= 0.5;
        rep.halvings += 1;
    }
}

/// Plain Newton iterations without a new best residual before the watchdog returns to the
/// best iterate and judges every step from there (large rotations may raise the residual for
/// several iterations before plain Newton converges: the 45° bend's first load step, 5).
const WATCHDOG: usize = 6;

/// Smallest step length of the globalisation, `2⁻⁸`.
const MIN_STEP: f64 = 1.0 / 256.0;

/// Per group of unknowns the largest `|x_j|` or `|dx_j|` (the scale of the norm of
/// corrections; fixed during a line search).
fn unknown_scales(groups: &[u8], x: &[f64], dx: &[f64], out: &mut Vec<f64>) {
    out.clear();
    let n = groups.iter().copied().max().map_or(0, |g| g as usize + 1);
    out.resize(n.max(1), 0.0);
    if groups.is_empty() {
        out[0] = x.iter().chain(dx).fold(0.0f64, |m, v| m.max(v.abs()));
        return;
    }
    for ((&g, &a), &d) in groups.iter().zip(x).zip(dx) {
        let s = &mut out[g as usize];
        *s = s.max(a.abs()).max(d.abs());
    }
}

/// `max_j |dx_j| / X_g(j)` (unknowns of a group without any size count 0).
fn scaled_norm(groups: &[u8], dx: &[f64], scales: &[f64]) -> f64 {
    let mut m = 0.0f64;
    for (j, &d) in dx.iter().enumerate() {
        let s = scales[groups.get(j).map_or(0, |&g| g as usize)];
        if s > 0.0 {
            m = m.max(d.abs() / s);
        }
    }
    m
}

fn eval_at<P: NewtonProblem + ?Sized>(
    prob: &mut P,
    x: &[f64],
    jac: bool,
    out: &mut Measures,
    rep: &mut NewtonReport,
) -> Result<(), NewtonError<P::Error>> {
    let iteration = rep.iterations;
    prob.evaluate(x, jac, out, rep)
        .map_err(|source| NewtonError::Eval { iteration, source })
}

fn newton_raphson<P: NewtonProblem + ?Sized>(
    prob: &mut P,
    x: &mut [f64],
    params: &NewtonParams,
    buf: &mut DriverBuffers,
) -> Result<NewtonReport, NewtonError<P::Error>> {
    let tol = params.tolerance;
    let mut rep = NewtonReport::default();
    prob.invalidate();
    // whether `buf.meas` came with a linearisation at `x`
    let mut jac = prob.jacobian_with_residual(false);
    eval_at(prob, x, jac, &mut buf.meas, &mut rep)?;
    if !finite(&buf.meas) {
        return Err(NewtonError::NonFinite { iteration: 0 });
    }
    let mut last = Step {
        at_round_off: false,
    };
    // the length of the last step, if it is to be judged (it started above the floor)
    let mut judged: Option<f64> = None;
    // the watchdog: plain Newton while it improves on its best iterate (relative residual with
    // each iterate's own scales) at least every `WATCHDOG` iterations; then back to the best
    // iterate, and every step from there is judged (`guarded`)
    let mut guarded = false;
    let mut best = f64::INFINITY;
    let mut best_any = f64::INFINITY;
    let mut since_best = 0usize;
    buf.dxbar.resize(x.len(), 0.0);
    loop {
        if accept(&mut rep, &buf.meas, tol, &last) {
            return Ok(rep);
        }
        if rep.iterations >= params.max_iterations {
            return Err(NewtonError::Diverged(NewtonFailure::new(&rep, tol)));
        }
        if !guarded {
            let e = rep.final_residual();
            if e < best_any {
                // where to return to (often the start: its residual is the load's increment)
                best_any = e;
                buf.best.clear();
                buf.best.extend_from_slice(x);
            }
            // progress is counted from the first correction on: the iterates of a large
            // rotation may stay above the start's residual for a while and converge
            if rep.iterations == 0 || e < (1.0 - 1e-4) * best {
                if rep.iterations > 0 {
                    best = e;
                }
                since_best = 0;
            } else {
                since_best += 1;
                if since_best >= WATCHDOG {
                    guarded = true;
                    x.copy_from_slice(&buf.best);
                    rep.halvings += 1;
                    eval_at(prob, x, true, &mut buf.meas, &mut rep)?;
                    jac = true;
                    judged = None;
                    last.at_round_off = false;
                    continue;
                }
            }
        }
        if !jac {
            // convergence was predicted and did not happen: linearise here
            rep.residual_checks += 1;
            eval_at(prob, x, true, &mut buf.meas, &mut rep)?;
        }
        prob.correction(&mut buf.dxbar, &mut rep)
            .map_err(NewtonError::Linear)?;
        rep.iterations += 1;
        // A step that shows no progress is halved: neither did the residual fall, nor is the
        // correction at the new point shorter than the step that led there (Deuflhard's
        // restricted monotonicity, in a norm that measures every unknown against the largest
        // of its kind). Either alone would stop Newton where it converges: the residual rises
        // at first with large rotations, the correction of a slow unknown may lag.
        if let Some(alpha) = judged {
            let groups = prob.unknown_groups();
            let ratio = scaled_norm(groups, &buf.dxbar, &buf.xscale)
                / scaled_norm(groups, &buf.dx, &buf.xscale);
            // (with the scales of the step's start: relative residuals with the scales of a
            // diverging iterate would hide its growth)
            let fell = buf.meas.merit(&buf.at_from) < buf.at_from.relative_excess();
            // a NaN ratio counts as no contraction
            let contracted = ratio <= 1.0 - 0.25 * alpha;
            if !fell && !contracted && alpha > MIN_STEP {
                rep.residuals.pop();
                rep.halvings += 1;
                jac = true;
                let a = take_step(prob, x, 0.5 * alpha, jac, &mut rep, buf)?;
                judged = Some(a);
                last.at_round_off = false;
                continue;
            }
        }
        std::mem::swap(&mut buf.dx, &mut buf.dxbar);
        buf.from.copy_from_slice(x);
        buf.at_from.clone_from(&buf.meas);
        let above_floor = rep.final_residual() > tol;
        if above_floor {
            unknown_scales(prob.unknown_groups(), &buf.from, &buf.dx, &mut buf.xscale);
        }
        jac = prob.jacobian_with_residual(predicted(&rep, tol));
        let a = take_step(prob, x, 1.0, jac, &mut rep, buf)?;
        judged = (guarded && above_floor).then_some(a);
        last.at_round_off = prob.correction_at_round_off(x, &buf.dx);
    }
}

fn chord<P: NewtonProblem + ?Sized>(
    prob: &mut P,
    x: &mut [f64],
    params: &NewtonParams,
    contraction: f64,
    buf: &mut DriverBuffers,
) -> Result<NewtonReport, NewtonError<P::Error>> {
    let tol = params.tolerance;
    let mut rep = NewtonReport::default();
    // Newton–Raphson from here on (after an undone chord step)
    let mut newton = false;
    let mut refactor = !prob.has_linearization();
    // the linearisation was made at the iterate of the last step
    let mut fresh = false;
    let mut last = Step {
        at_round_off: false,
    };
    // whether `buf.meas` already holds the residual at `x` (from the line search)
    let mut have = false;
    loop {
        if !have {
            eval_at(prob, x, false, &mut buf.meas, &mut rep)?;
        }
        have = false;
        if !finite(&buf.meas) && (fresh || rep.iterations == 0) {
            return Err(NewtonError::NonFinite {
                iteration: rep.iterations,
            });
        }
        if accept(&mut rep, &buf.meas, tol, &last) {
            return Ok(rep);
        }
        // progress with the scales of the step's start (relative residuals with the scales of
        // a diverging iterate would hide its growth); a NaN neither decreased nor contracted
        let (e, prev) = if rep.iterations > 0 {
            (buf.meas.merit(&buf.at_from), buf.at_from.relative_excess())
        } else {
            (rep.final_residual(), f64::INFINITY)
        };
        let decreased = e.partial_cmp(&prev) == Some(Ordering::Less);
        let contracted = matches!(
            e.partial_cmp(&(contraction * prev)),
            Some(Ordering::Less | Ordering::Equal)
        );
        if rep.iterations > 0 && !decreased && !fresh {
            // an old factorisation made things worse: undo the step, continue as Newton
            x.copy_from_slice(&buf.from);
            rep.residuals.pop();
            newton = true;
        } else if !contracted {
            refactor = true;
        }
        if rep.iterations >= params.max_iterations {
            return Err(NewtonError::Diverged(NewtonFailure::new(&rep, tol)));
        }
        if refactor || newton {
            eval_at(prob, x, true, &mut buf.meas, &mut rep)?;
            refactor = false;
            fresh = true;
        } else {
            fresh = false;
        }
        prob.correction(&mut buf.dx, &mut rep)
            .map_err(NewtonError::Linear)?;
        buf.from.copy_from_slice(x);
        buf.at_from.clone_from(&buf.meas);
        if fresh {
            // a Newton step: halved only where the problem cannot be evaluated (a step that
            // raises the residual is undone by the rule above at the next chord step)
            take_step(prob, x, 1.0, false, &mut rep, buf)?;
            have = true;
        } else {
            prob.update(x, &buf.from, &buf.dx, 1.0);
        }
        rep.iterations += 1;
        last.at_round_off = prob.correction_at_round_off(x, &buf.dx);
    }
}

#[cfg(test)]
mod tests;
