//! What a Newton solve reports (iterations, relative residuals, the round-off floor) and, when
//! it fails, where ([`Stage`], [`NewtonContext`]) and why ([`NewtonFailure`]). Free of the
//! error types that carry it ([`crate::error::SolveError`]).

use super::params::MAX_TOLERANCE;

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
    /// Whether the solve stopped at the round-off floor above the tolerance (written to
    /// `summary.json` only when true: a run writes one report per block).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_floor: bool,
    /// Step halvings of the line search (written only when not 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub halvings: usize,
    /// Residual-only evaluations made where convergence was predicted (written only when
    /// not 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub residual_checks: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl NewtonReport {
    /// The last relative residual.
    pub fn final_residual(&self) -> f64 {
        self.residuals.last().copied().unwrap_or(f64::NAN)
    }

    /// Adds the work of `other` (iterations, factorisations, times, flags) to this report; its
    /// final relative residual and floor are the largest of the two (a block's measures are
    /// the maxima of its elements').
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
        self.final_relative = self.final_relative.max(other.final_relative);
    }

    /// Runs the numeric factorisation `factorize`, counting it and its time (a helper for
    /// [`super::NewtonProblem::correction`]).
    pub fn timed_factorization<E>(
        &mut self,
        factorize: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        let t = std::time::Instant::now();
        factorize()?;
        self.factorizations += 1;
        self.factorization_seconds += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// The correction `dx = J⁻¹ r`: `r` copied into `dx` and solved in place by `solve` (the
    /// factorised `J`), adding its time (a helper for [`super::NewtonProblem::correction`]).
    pub fn timed_solve(&mut self, r: &[f64], dx: &mut [f64], solve: impl FnOnce(&mut [f64])) {
        let t = std::time::Instant::now();
        dx.copy_from_slice(r);
        solve(dx);
        self.solve_seconds += t.elapsed().as_secs_f64();
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
    /// A step of a string's forward model ([`crate::string::dynamics`],
    /// [`crate::string::space_time`]) used on its own (the crane's closed loop is a
    /// [`Replay`](Self::Replay)).
    StringStep,
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
            Self::StringStep => {
                "use a smaller time step (or slab); or raise the iteration limit of the \
                 stepper's NewtonParams"
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
            Self::StringStep => "string step",
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
    pub(super) fn new(rep: &NewtonReport, tolerance: f64) -> Self {
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

#[cfg(test)]
mod tests {
    use super::NewtonReport;

    /// A block's report adds its elements' work and keeps the largest final residual and
    /// floor (a condensed run's block reports wrote `final_relative: 0` before).
    #[test]
    fn add_work_sums_the_work_and_keeps_the_largest_measures() {
        let element = |iterations, final_relative, residual_floor| NewtonReport {
            iterations,
            factorizations: 1,
            residuals: vec![1.0, final_relative],
            final_relative,
            residual_floor,
            ..NewtonReport::default()
        };
        let mut block = NewtonReport::default();
        for r in [element(2, 3e-12, 1e-15), element(1, 7e-11, 4e-16)] {
            block.add_work(&r);
        }
        assert_eq!((block.iterations, block.factorizations), (3, 2));
        assert_eq!(block.final_relative, 7e-11);
        assert_eq!(block.residual_floor, 1e-15);
    }
}
