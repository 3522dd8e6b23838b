//! The common interface of the forward time integrators of the planar beam: the
//! energy-momentum stepper ([`super::dynamics::EnergyMomentumStepper`]) and the Petrov–Galerkin
//! space-time slabs ([`super::space_time::SpaceTimeSolver`]). Callers that only observe the
//! state (the CLI, studies, tests) take a `&mut dyn BeamIntegrator`.

use super::dynamics::BeamDiagnostics;
use crate::error::SolveError;

/// Newton in both integrators reuses the factorised iteration matrix (a chord step: one
/// residual pass and a back substitution) while the residual falls by this factor or more per
/// iteration, and assembles and factorises a fresh one otherwise. After a full Newton step the
/// residual typically fell by 1e-7 or more, and the matrix has changed by the size of that
/// step, so the chord step contracts as fast as a Newton step would — at a fraction of the
/// cost (no matrix pass, no factorisation). It changes how Newton gets to the solution, never
/// the solution (the same residual tolerance ends the iteration).
pub const CHORD_CONTRACTION: f64 = 0.1;

/// Which forward method integrates the beam in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DynamicMethod {
    /// Semi-discrete energy-momentum stepper with the Cayley rotation increment (exact energy,
    /// linear and angular momentum): [`super::dynamics::EnergyMomentumStepper`].
    #[default]
    EnergyMomentum,
    /// Petrov–Galerkin cG(1) space-time slabs (bilinear trial functions in `(s, t)`, test
    /// functions constant in time on each slab; exact energy): [`super::space_time`].
    SpaceTime,
}

/// A forward time integrator of the semi-discrete beam.
pub trait BeamIntegrator {
    /// Current time (s).
    fn time(&self) -> f64;
    /// Current nodal unknowns `(r1, r2, θ)` per node.
    fn x(&self) -> &[f64];
    /// Current nodal velocities.
    fn v(&self) -> &[f64];
    /// Energies and momenta of the current state.
    fn diagnostics(&self) -> BeamDiagnostics;
    /// Time step (slab length) `Δt` (s).
    fn dt(&self) -> f64;
    /// Sets the time step (s).
    fn set_dt(&mut self, dt: f64);
    /// Advances one step. On error the state is unchanged.
    fn advance(&mut self) -> Result<(), SolveError>;
    /// Newton iterations of the last step (all quadrature rounds for the space-time slabs).
    fn iterations(&self) -> usize;

    /// `(r1, r2, θ)` of node `a` (m, m, rad).
    fn node_state(&self, a: usize) -> [f64; 3] {
        let x = self.x();
        [x[3 * a], x[3 * a + 1], x[3 * a + 2]]
    }
}

/// Steps `it` until `t_end` (the last step is shortened to land on it), calling `observe`
/// after every step. Works for a concrete integrator and for `dyn BeamIntegrator`; the
/// integrators' own `run_until` methods call it.
pub fn advance_to<I: BeamIntegrator + ?Sized>(
    it: &mut I,
    t_end: f64,
    observe: &mut dyn FnMut(&I),
) -> Result<(), SolveError> {
    let dt = it.dt();
    while it.time() < t_end - 1e-12 * dt.max(1.0) {
        if it.time() + dt > t_end {
            it.set_dt(t_end - it.time());
        }
        let r = it.advance();
        it.set_dt(dt);
        r?;
        observe(it);
    }
    Ok(())
}

/// The start of Newton's iteration for the next step (slab) of either integrator: both advance
/// the nodal unknowns by `x₁ − x₀ = Δt v̄` with the mean velocity `v̄ = ½ (v₀ + v₁)` of the step
/// (for the Cayley stepper's angles `2 tan(Δθ/2) = Δt v̄`), so a prediction of `v̄` predicts
/// `x₁`.
///
/// With the nodal velocities `v_n, v_{n−1}, v_{n−2}` of the last steps (equal steps `Δt`), `v̄`
/// is the mean over the next step of the polynomial through them, i.e. the Adams–Bashforth
/// weights: `v̄ ≈ (23 v_n − 16 v_{n−1} + 5 v_{n−2})/12` (error `O(Δt³)`), `(3 v_n − v_{n−1})/2`
/// after one step (`O(Δt²)`) and `v_n` at the start or after a change of `Δt` (`O(Δt)`, the
/// plain predictor `x₁ = x₀ + Δt v₀`). The initial residual is `(2/Δt²) M` times the error of
/// `Δt v̄`, so it falls from `O(1)` to `O(Δt²)`, and one Newton iteration usually reaches the
/// tolerance where two or three were needed (`docs/verification.md` §B9). It only changes where
/// Newton starts, never the solution it converges to.
#[derive(Debug, Clone)]
pub struct VelocityHistory {
    /// `v_{n−1}`, `v_{n−2}`.
    past: [Vec<f64>; 2],
    /// Step between the stored velocities.
    dt: f64,
    /// How many of `past` are valid (0…2).
    len: usize,
}

impl VelocityHistory {
    /// An empty history for `n` unknowns.
    pub fn new(n: usize) -> Self {
        Self {
            past: [vec![0.0; n], vec![0.0; n]],
            dt: f64::NAN,
            len: 0,
        }
    }

    /// Records `v0`, the velocity at the start of a step of size `dt` that was just accepted.
    pub fn push(&mut self, v0: &[f64], dt: f64) {
        if dt != self.dt {
            self.len = 0;
            self.dt = dt;
        }
        self.past.swap(0, 1);
        self.past[0].copy_from_slice(v0);
        self.len = (self.len + 1).min(2);
    }

    /// Forgets the history (the next prediction is `v̄ = v₀`).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The predicted mean velocity of a step of size `dt` from `v0` into `vbar`; returns the
    /// number of past velocities used (0, 1 or 2).
    pub fn predict(&self, v0: &[f64], dt: f64, vbar: &mut [f64]) -> usize {
        let used = if dt == self.dt { self.len } else { 0 };
        let [p1, p2] = &self.past;
        match used {
            0 => vbar.copy_from_slice(v0),
            1 => {
                for i in 0..vbar.len() {
                    vbar[i] = 1.5 * v0[i] - 0.5 * p1[i];
                }
            }
            _ => {
                for i in 0..vbar.len() {
                    vbar[i] = (23.0 * v0[i] - 16.0 * p1[i] + 5.0 * p2[i]) / 12.0;
                }
            }
        }
        used
    }
}

/// A forward integrator's nonlinear problem on its increment `d` (the step's or the slab's
/// unknowns), as the shared Newton loop [`newton_on_increment`] sees it.
pub(crate) trait IncrementProblem {
    /// Evaluates the residual at the current increment and returns its norm; with `matrix`,
    /// also assembles the iteration matrix. `None` if an element could not be evaluated.
    fn eval_residual(&mut self, matrix: bool) -> Option<f64>;
    /// Solves for the correction with the kept factorisation (`chord`) or after factorising
    /// the matrix just assembled, adds it to the increment, and reports whether the correction
    /// is at the floating-point floor of the iterate. The increment is updated even when the
    /// factorisation fails (its error is returned afterwards).
    fn apply_correction(&mut self, chord: bool) -> Result<bool, SolveError>;
    /// The residual norms of this solve (cleared at its start).
    fn residual_norms(&mut self) -> &mut Vec<f64>;
}

/// Newton on `R(d) = 0` from the current increment, with chord steps while the residual falls
/// by [`CHORD_CONTRACTION`] or more per iteration. `block`, `t0`, `t1` name the step or slab in
/// errors. Returns the number of corrections.
pub(crate) fn newton_on_increment<P: IncrementProblem>(
    p: &mut P,
    block: usize,
    t0: f64,
    t1: f64,
    newton: crate::solve::NewtonParams,
) -> Result<usize, SolveError> {
    let nonfinite = |iteration| SolveError::NonFinite {
        block,
        t_start: t0,
        t_end: t1,
        iteration,
    };
    p.residual_norms().clear();
    let mut previous = f64::INFINITY;
    for it in 0..=newton.max_iterations {
        // The first residual is far from the tolerance: assemble the matrix with it. Later ones
        // usually meet it: assemble the matrix only if they do not.
        let mut norm = p.eval_residual(it == 0).ok_or_else(|| nonfinite(it))?;
        if !norm.is_finite() {
            return Err(nonfinite(it));
        }
        p.residual_norms().push(norm);
        if norm <= newton.tolerance {
            return Ok(it);
        }
        if it == newton.max_iterations {
            break;
        }
        // Reuse the factorisation while the residual falls fast (a chord step), else assemble
        // and factorise the matrix at the current iterate.
        let chord = it > 0 && norm <= CHORD_CONTRACTION * previous;
        if it > 0 && !chord {
            norm = p.eval_residual(true).ok_or_else(|| nonfinite(it))?;
            *p.residual_norms().last_mut().expect("pushed above") = norm;
        }
        previous = norm;
        if p.apply_correction(chord)? {
            // At the floating-point floor of the residual: evaluate once more (the state's
            // derived quantities at the final iterate) and accept.
            let norm = p.eval_residual(false).ok_or_else(|| nonfinite(it + 1))?;
            p.residual_norms().push(norm);
            return Ok(it + 1);
        }
    }
    let history = p.residual_norms().clone();
    Err(SolveError::NewtonDiverged {
        block,
        t_start: t0,
        t_end: t1,
        iterations: history.len() - 1,
        residual: *history.last().unwrap_or(&f64::NAN),
        tolerance: newton.tolerance,
        history,
        floor: 0.0,
        stalled: false,
        stage: crate::solve::newton::Stage::BeamStep,
    })
}
