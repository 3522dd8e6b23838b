//! The parameters of the one Newton driver ([`super::drive`]): `newton.tolerance` and
//! `newton.max_iterations`, read the same way for every problem type, and how often the
//! iteration matrix is refactorised.

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
