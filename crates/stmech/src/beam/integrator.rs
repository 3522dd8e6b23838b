//! The common interface of the forward time integrators of the planar beam: the
//! energy-momentum stepper ([`super::dynamics::EnergyMomentumStepper`]) and the Petrov–Galerkin
//! space-time slabs ([`super::space_time::SpaceTimeSolver`]). Callers that only observe the
//! state (the CLI, studies, tests) take a `&mut dyn BeamIntegrator`.

use super::dynamics::BeamDiagnostics;
use crate::error::SolveError;

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
