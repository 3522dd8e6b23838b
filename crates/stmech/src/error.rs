//! Error types of the library.

use crate::model::system::SystemError;
use crate::solve::newton::report::{NewtonContext, NewtonFailure, Stage};

/// The message of [`SolveError::NewtonDiverged`]: a stall at the round-off floor names
/// `newton.tolerance` and the floor; a residual that does not fall names the stage's remedy.
#[allow(clippy::too_many_arguments)]
fn newton_message(
    stage: Stage,
    block: usize,
    t_start: f64,
    t_end: f64,
    iterations: usize,
    residual: f64,
    floor: f64,
    tolerance: f64,
    stalled: bool,
) -> String {
    let what = stage.what();
    let place = match stage {
        Stage::InverseDomain | Stage::SpatialInverseDomain | Stage::StringStatics => {
            format!("the {what}")
        }
        Stage::LoadStep | Stage::BeamLoadStep => {
            format!("{what} {block} (load factor {t_start:.4} to {t_end:.4})")
        }
        _ => format!("{what} {block} (t = {t_start}..{t_end} s)"),
    };
    if stalled {
        let suggest = NewtonFailure {
            iterations,
            residual,
            floor,
            tolerance,
            history: vec![residual],
            stalled,
        }
        .suggested_tolerance();
        // only the stages a scenario's `newton` table governs name it
        let remedy = match stage {
            Stage::Replay => "the replay is a check of the result and has no newton table: \
                              verify on a finer mesh, or switch the check off with \
                              verify.closed_loop = false"
                .to_string(),
            Stage::StringStep => {
                format!("raise the tolerance of the stepper's NewtonParams to {suggest:.0e}")
            }
            _ => format!("raise newton.tolerance to {suggest:.0e}"),
        };
        format!(
            "Newton stalled in {place} after {iterations} iterations: the relative residual \
             {residual:.3e} stays above the tolerance {tolerance:.1e}, at the round-off floor of \
             this problem (estimated {floor:.1e}; it grows with the stiffness, the number of \
             elements and the distance from the origin). Remedy: {remedy}"
        )
    } else {
        format!(
            "Newton did not converge in {place} after {iterations} iterations: relative residual \
             {residual:.3e} > tolerance {tolerance:.1e}. Remedy: {}",
            stage.remedy()
        )
    }
}

/// Failures of the nonlinear or linear solvers.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    /// Newton did not reach the tolerance within its iteration limit.
    #[error("{}", newton_message(*stage, *block, *t_start, *t_end, *iterations, *residual, *floor, *tolerance, *stalled))]
    NewtonDiverged {
        /// Block, step or load-step index.
        block: usize,
        /// Block start time (s), or load factor.
        t_start: f64,
        /// Block end time (s), or load factor.
        t_end: f64,
        /// Iterations done.
        iterations: usize,
        /// Last relative residual (`solve::newton::measure`).
        residual: f64,
        /// Requested (relative) tolerance.
        tolerance: f64,
        /// Relative residuals of the failed solve.
        history: Vec<f64>,
        /// Relative round-off floor at the last iterate.
        floor: f64,
        /// Whether the residual stalled near its round-off floor (not a divergence).
        stalled: bool,
        /// What kind of solve (decides the remedy).
        stage: Stage,
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

impl SolveError {
    /// The failure `f` of a Newton solve in context `cx`.
    pub fn newton_diverged(cx: NewtonContext, f: NewtonFailure) -> Self {
        Self::NewtonDiverged {
            block: cx.block,
            t_start: cx.t_start,
            t_end: cx.t_end,
            iterations: f.iterations,
            residual: f.residual,
            tolerance: f.tolerance,
            history: f.history,
            floor: f.floor,
            stalled: f.stalled,
            stage: cx.stage,
        }
    }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 29, "remedies name only fields that exist": a stall at the floor names
    /// `newton.tolerance` where a scenario's `newton` table governs the solve, and not in a
    /// closed-loop replay (which has none).
    #[test]
    fn a_stall_names_newton_tolerance_only_where_the_scenario_has_it() {
        let msg = |stage| newton_message(stage, 3, 0.0, 0.1, 12, 4e-10, 3e-10, 1e-10, true);
        assert!(msg(Stage::TimeBlock).contains("raise newton.tolerance to"));
        let replay = msg(Stage::Replay);
        assert!(
            !replay.contains("newton.tolerance") && replay.contains("verify.closed_loop"),
            "{replay}"
        );
        assert!(!msg(Stage::StringStep).contains("newton.tolerance"));
    }
}
