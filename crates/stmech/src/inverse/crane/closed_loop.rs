//! The closed loop of the crane: the computed suspension motion replayed in a forward string
//! model (the discrete gradient by default, or the space-time slab march).

use super::{CraneError, CraneSolution, dot};
use crate::inverse::trajectory::TipTrajectory;
use crate::solve::newton::Stage;
use crate::string::Compression;
use crate::string::dynamics::{Actuation, StringStepError, StringStepper};
use crate::string::space_time::SpaceTimeString;

/// What [`closed_loop`] measured.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CraneTracking {
    /// Largest `|r(L, t) − y(t)|` of the forward replay (m).
    pub max_deviation: f64,
    /// When (s).
    pub at: f64,
    /// Forward elements along the rope.
    pub elements_s: usize,
    /// Forward time step (s).
    pub dt: f64,
    /// Largest payload travel from its start, for scale (m).
    pub travel: f64,
}

/// The forward discretisation that replays a crane solution ([`closed_loop_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replay {
    /// Linear elements, midpoint discrete gradient ([`StringStepper`]): independent of the
    /// inverse's element in time and in its stress quadrature.
    #[default]
    DiscreteGradient,
    /// The space-time slab march ([`SpaceTimeString`]): the inverse's element and point law,
    /// tested with functions constant on a slab (the inverse tests with hats in time, so the
    /// two differ by the discretisation error, [`crate::string::space_time`]).
    SpaceTime,
}

/// [`closed_loop_with`] the discrete-gradient replay.
pub fn closed_loop(
    sol: &CraneSolution,
    path: &dyn TipTrajectory,
    refine: usize,
) -> Result<(CraneTracking, Vec<[f64; 3]>), CraneError> {
    closed_loop_with(sol, path, refine, Replay::DiscreteGradient)
}

/// Replays the suspension motion of `sol` ([`CraneSolution::suspension_at`]) in a forward
/// string model (`replay`, tension-only law) on `refine × n_s` elements with the step
/// `ht / refine`, and measures the payload's deviation from the path at every step. Also
/// returns the replayed payload at the inverse mesh's time nodes. A failed step is
/// [`CraneError::Replay`], with the largest deviation up to it. The replay's Newton has the
/// default [`crate::solve::newton::NewtonParams`] (relative tolerance `1e-10`) and names its
/// failures [`Stage::Replay`] (a check of the result, not the result).
pub fn closed_loop_with(
    sol: &CraneSolution,
    path: &dyn TipTrajectory,
    refine: usize,
    replay: Replay,
) -> Result<(CraneTracking, Vec<[f64; 3]>), CraneError> {
    let mesh = sol.solution.mesh;
    let model = sol.solution.beam;
    let refine = refine.max(1);
    let ns = mesh.elements_s * refine;
    let steps = mesh.elements_t * refine;
    let dt = mesh.ht() / refine as f64;
    let susp = |t: f64| sol.suspension_at(t);
    // one step to the time t, returning the payload there
    let mut advance: Box<dyn FnMut(f64) -> Result<[f64; 3], StringStepError> + '_> = match replay {
        Replay::DiscreteGradient => {
            let mut st =
                StringStepper::hanging(model, ns, mesh.t_start, &susp).with_stage(Stage::Replay);
            Box::new(move |t| {
                st.step(dt)?;
                st.t = t;
                Ok(st.payload())
            })
        }
        Replay::SpaceTime => {
            let mut st = SpaceTimeString::hanging(
                model,
                ns,
                dt,
                mesh.t_start,
                Actuation::Suspension(&susp),
                Compression::Slack,
            )?
            .with_stage(Stage::Replay);
            Box::new(move |t| {
                st.step()?;
                st.t = t;
                Ok(st.payload())
            })
        }
    };
    let y0 = path.pose(mesh.t_start);
    let mut samples = Vec::with_capacity(mesh.elements_t + 1);
    samples.push(model.hanging_nodes(ns)[ns]);
    let mut out = CraneTracking {
        max_deviation: 0.0,
        at: mesh.t_start,
        elements_s: ns,
        dt,
        travel: 0.0,
    };
    for k in 1..=steps {
        let t = mesh.t_start + k as f64 * dt;
        let p = advance(t).map_err(|source| CraneError::Replay {
            source,
            t: t - dt,
            deviation: out.max_deviation,
        })?;
        let y = path.pose(t);
        if k % refine == 0 {
            samples.push(p);
        }
        let d = [0, 1, 2].map(|c| p[c] - y[c]);
        let dev = dot(d, d).sqrt();
        if dev > out.max_deviation {
            out.max_deviation = dev;
            out.at = t;
        }
        let tr = [0, 1, 2].map(|c| y[c] - y0[c]);
        out.travel = out.travel.max(dot(tr, tr).sqrt());
    }
    Ok((out, samples))
}
