//! The closed loop of the crane: the computed suspension motion replayed in the forward rope
//! model.

use super::{CraneError, CraneSolution, dot};
use crate::inverse::trajectory::TipTrajectory;
use crate::string::dynamics::StringStepper;

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

/// Replays the suspension motion of `sol` ([`CraneSolution::suspension_at`]) in the forward
/// string model ([`StringStepper`], tension-only law, midpoint discrete gradient) on
/// `refine × n_s` elements with the step `ht / refine`, and measures the payload's deviation
/// from the path at every step. Also returns the replayed payload at the inverse mesh's time
/// nodes.
pub fn closed_loop(
    sol: &CraneSolution,
    path: &dyn TipTrajectory,
    refine: usize,
) -> Result<(CraneTracking, Vec<[f64; 3]>), CraneError> {
    let mesh = sol.solution.mesh;
    let model = sol.solution.beam;
    let refine = refine.max(1);
    let ns = mesh.elements_s * refine;
    let steps = mesh.elements_t * refine;
    let dt = mesh.ht() / refine as f64;
    let susp = |t: f64| sol.suspension_at(t);
    let mut st = StringStepper::hanging(model, ns, mesh.t_start, &susp);
    let y0 = path.pose(mesh.t_start);
    let mut samples = Vec::with_capacity(mesh.elements_t + 1);
    samples.push(st.payload());
    let mut out = CraneTracking {
        max_deviation: 0.0,
        at: mesh.t_start,
        elements_s: ns,
        dt,
        travel: 0.0,
    };
    for k in 1..=steps {
        st.step(dt)?;
        let t = mesh.t_start + k as f64 * dt;
        st.t = t;
        let (p, y) = (st.payload(), path.pose(t));
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
