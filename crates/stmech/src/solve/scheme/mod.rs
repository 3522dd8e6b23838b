//! Time schemes: the space-time Galerkin method in blocks and one-step time stepping.
//! Each scheme lives in its own file; [`simulate`] dispatches on [`Method`].

pub mod space_time;
pub mod theta;

pub use space_time::{Formulation, SpaceTimeParams};
pub use theta::ThetaScheme;

use crate::error::SolveError;
use crate::model::ConstrainedSystem;
use crate::solve::{NewtonParams, Trajectory};

/// How to discretise time.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    /// Continuous space-time Galerkin in time blocks.
    SpaceTime(SpaceTimeParams),
    /// One-step time stepping with a fixed step (s).
    TimeStepping {
        /// The scheme.
        scheme: ThetaScheme,
        /// Step size (s).
        step: f64,
    },
}

/// Simulates `sys` from `(q0, v0)` (coordinates and velocities) at `t_start` to `t_end`. `progress` receives the fraction
/// of the time domain done.
// The arguments are the problem's independent inputs; bundling them would only move the list.
#[allow(clippy::too_many_arguments)]
pub fn simulate<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    v0: &[f64],
    t_start: f64,
    t_end: f64,
    method: &Method,
    newton: &NewtonParams,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, SolveError> {
    match method {
        Method::SpaceTime(params) => {
            space_time::solve(sys, q0, v0, t_start, t_end, params, newton, progress)
        }
        Method::TimeStepping { scheme, step } => theta::solve(
            sys, q0, v0, t_start, t_end, *scheme, *step, newton, progress,
        ),
    }
}
