//! The common interface of the forward time integrators of the planar beam: the
//! energy-momentum stepper ([`super::dynamics::EnergyMomentumStepper`]) and the Petrov–Galerkin
//! space-time slabs ([`super::space_time::SpaceTimeSolver`]). Callers that only observe the
//! state (the CLI, studies, tests) take a `&mut dyn BeamIntegrator`.

use crate::error::SolveError;
use crate::solve::newton::NewtonReport;

/// Energies and momenta of a state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeamDiagnostics {
    /// Time (s).
    pub t: f64,
    /// Kinetic energy `½ vᵀ M v` (J).
    pub kinetic: f64,
    /// Strain energy `Π` (J).
    pub strain: f64,
    /// `kinetic + strain` (J).
    pub total: f64,
    /// Work done by the external loads since the start (J), midpoint rule.
    pub external_work: f64,
    /// Linear momentum (kg·m/s).
    pub momentum: [f64; 2],
    /// Angular momentum about the origin (kg·m²/s).
    pub angular_momentum: f64,
}

/// Newton in both integrators ([`crate::solve::newton::Refactorization::Chord`]) reuses the
/// factorised iteration matrix (a chord step: one residual pass and a back substitution) while
/// the relative residual falls by this factor or more per iteration, and assembles and
/// factorises a fresh one otherwise. After a full Newton step the
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
    /// Newton's report of the last step (its last solve; `at_floor` if any solve of the step
    /// stopped at the round-off floor). `None` for an explicit integrator.
    fn newton_report(&self) -> Option<&NewtonReport> {
        None
    }

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
