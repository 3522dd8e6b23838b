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
pub mod params;
pub mod report;

pub use assembled::{NewtonSolver, NewtonSystem};
pub use measure::{FLOOR_FACTOR, GroupMeasure, Measures};
pub use params::*;
pub use report::{NewtonContext, NewtonFailure, NewtonReport, Stage};

use crate::error::SolveError;
use std::cmp::Ordering;

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
    /// The iterate was reached by the correction `buf.dx` (whether that correction is at
    /// the round-off level is asked only when the safety net needs it).
    corrected: bool,
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
/// `at_round_off` says whether the correction that led here is at the round-off level of the
/// coordinates ([`NewtonProblem::correction_at_round_off`]; asked only for the safety net).
fn accept(
    rep: &mut NewtonReport,
    m: &Measures,
    tol: f64,
    at_round_off: impl FnOnce() -> bool,
) -> bool {
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
    if stagnating && e.is_finite() && at_round_off() {
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
    let mut last = Step { corrected: false };
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
        let at_round_off = || last.corrected && prob.correction_at_round_off(x, &buf.dx);
        if accept(&mut rep, &buf.meas, tol, at_round_off) {
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
                    last.corrected = false;
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
                last.corrected = false;
                continue;
            }
        }
        std::mem::swap(&mut buf.dx, &mut buf.dxbar);
        buf.from.copy_from_slice(x);
        buf.at_from.clone_from(&buf.meas);
        // (the scales only serve to judge the step: under the watchdog's guard)
        let judge = guarded && rep.final_residual() > tol;
        if judge {
            unknown_scales(prob.unknown_groups(), &buf.from, &buf.dx, &mut buf.xscale);
        }
        jac = prob.jacobian_with_residual(predicted(&rep, tol));
        let a = take_step(prob, x, 1.0, jac, &mut rep, buf)?;
        judged = judge.then_some(a);
        last.corrected = true;
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
    let mut last = Step { corrected: false };
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
        let at_round_off = || last.corrected && prob.correction_at_round_off(x, &buf.dx);
        if accept(&mut rep, &buf.meas, tol, at_round_off) {
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
        last.corrected = true;
    }
}

#[cfg(test)]
mod tests;
