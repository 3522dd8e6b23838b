//! Error types of the library.

use crate::model::system::SystemError;

/// Failures of the nonlinear or linear solvers.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    /// Newton–Raphson did not reach the tolerance.
    #[error(
        "Newton did not converge in block {block} (t = {t_start}..{t_end}) after {iterations} iterations: \
         residual {residual:.3e} > tolerance {tolerance:.1e}. Remedy: use more time elements or blocks \
         (smaller steps), or raise newton.max_iterations"
    )]
    NewtonDiverged {
        /// Block (or step) index.
        block: usize,
        /// Block start time (s).
        t_start: f64,
        /// Block end time (s).
        t_end: f64,
        /// Iterations done.
        iterations: usize,
        /// Last residual norm.
        residual: f64,
        /// Requested tolerance.
        tolerance: f64,
        /// Residual history of the failed block.
        history: Vec<f64>,
    },
    /// The iteration produced a non-finite value.
    #[error(
        "Newton produced a non-finite value in block {block} (t = {t_start}..{t_end}) at iteration {iteration}. Remedy: use smaller time elements or steps"
    )]
    NonFinite {
        /// Block (or step) index.
        block: usize,
        /// Block start time (s).
        t_start: f64,
        /// Block end time (s).
        t_end: f64,
        /// Iteration.
        iteration: usize,
    },
    /// A static load step failed even after halving it.
    #[error(
        "static solve stopped at load factor {reached:.4} (trying {target:.4}): {cause} \
         ({iterations} iterations, relative residual {residual:.3e}). Remedy: more load steps \
         (statics.load_steps), a larger newton.max_iterations, or check that the loads are not beyond \
         a limit point (buckling, snap-through) and that every part is held (a free body or a \
         mechanism has no static equilibrium)"
    )]
    StaticLoadStep {
        /// Load factor of the last converged step.
        reached: f64,
        /// Load factor of the failed step.
        target: f64,
        /// Iterations of the last failed attempt.
        iterations: usize,
        /// Its last residual.
        residual: f64,
        /// The solver's message.
        cause: String,
    },
    /// The sparse LU factorisation failed (structurally or numerically singular matrix).
    #[error("sparse LU factorisation failed: {0}")]
    Factorization(String),
}

/// Errors in the input of a model or method.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InputError {
    /// A value is outside its valid range.
    #[error("{field}: {message}")]
    Invalid {
        /// Path of the offending field, e.g. `bodies[0].density`.
        field: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The model could not be built.
    #[error(transparent)]
    System(#[from] SystemError),
}

/// Any error of the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Solver failure.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// Scenario file could not be read or parsed.
    #[error(transparent)]
    Scenario(#[from] crate::io::scenario::ScenarioError),
}
