//! Spatial inverse dynamics (`analysis = "inverse"`, issue 16): the space-time FEM of the
//! spatial beam with the streamed sideways elimination.
//!
//! What `stmech run` holds at its peak, per node of the `(n_s + 1) × (n_t + 1)` mesh: the three
//! Newton vectors of the sideways solve (iterate, last update, update being computed; 12
//! unknowns `x = (r, ψ)`, `v` per node each) and, per time level, the columns in flight
//! ([`crate::inverse::sideways::stored_values`] with 6 unknowns per point, the band of the
//! spatial element (18 below, 23 above the diagonal) and the nonlinear rotary inertia), whatever
//! `n_s`; after the solve the solution fields (`x`, `v`) and the outputs' per-time-node rows
//! (actuation, base pose, the rigid reference).
//!
//! Then, unless `inverse.verify.closed_loop = false`, the closed-loop replay
//! (`inverse::spatial::closed_loop`): a forward run of the director beam on `n_s` quadratic
//! elements, cG(2) in time with a quarter of the inverse's step, whose trajectory (every
//! frame's `q`, `v` and `λ` at `8 n_t + 1` time nodes) grows with `n_s n_t` like the mesh but
//! with ≈ 100 values per mesh node instead of 36: it sets the peak of every default run
//! ([`super::multibody::forward_bytes`]). The inverse solution stays alive during the replay.
//! `stmech compare` runs both methods one after the other, each with its replay: the same
//! peak.

use super::multibody::{SystemSize, forward_bytes};
use super::{BASE_BYTES, Direction, Driver, Estimate, sat};
use crate::inverse::spatial::closed_loop::ForwardResolution;
use crate::io::scenario::{BaseActuation, SpatialInverseScenario};

/// Bytes per mesh node of the sideways solve: three Newton vectors of 12 `f64`.
const NODE_BYTES: f64 = 288.0;
/// Bytes per time level beyond the stored Jacobian values: the servo, lumped-residual and
/// actuation vectors of the march, and the outputs' rows.
const LEVEL_EXTRA_BYTES: f64 = 600.0;
/// Bytes of a run beyond [`BASE_BYTES`]: the plot bitmaps and the servo's rotation grid.
const RUN_BYTES: f64 = 4.0e6;
/// Output bytes per time node: `actuation.csv` (13 columns), `base.csv` (17), `tip.csv` (up to
/// 26).
const TIME_ROW_BYTES: f64 = 56.0 * 22.0;
/// Output bytes per node of a VTK snapshot (position, three directors, `s`).
const SNAPSHOT_NODE_BYTES: f64 = 190.0;
/// VTK snapshots written at most.
const SNAPSHOTS: f64 = 201.0;
/// Output bytes of the plots and the summary.
const FIXED_OUTPUT_BYTES: f64 = 4.0 * 60e3 + 8e3;
/// Bytes per mesh node of the inverse solution kept during the replay (`x`, `v`, the
/// actuation rows).
const SOLUTION_NODE_BYTES: f64 = 200.0;
/// Bytes per replay time node beyond its trajectory: the tracked samples (time, pose, errors)
/// twice (the replay's and the tracked frame's).
const REPLAY_SAMPLE_BYTES: f64 = 200.0;

/// Peak bytes of the closed-loop replay (0 if it is off), with the inverse solution it replays.
fn replay_bytes(s: &SpatialInverseScenario) -> f64 {
    if !s.verify.closed_loop {
        return 0.0;
    }
    let res = ForwardResolution::finer_than(s.mesh.elements_s, s.mesh.ht());
    let n_t = res.time_elements(s.mesh.t_start, s.mesh.t_end) as f64;
    let nodes = res.time_order as f64 * n_t + 1.0;
    let body = s.beam.tip.is_some_and(|m| m.is_positive_definite());
    let clamped = s.actuation == BaseActuation::Motion;
    let size = SystemSize::quadratic_beam(res.elements, body, clamped);
    let mesh_nodes = (s.mesh.elements_s as f64 + 1.0) * (s.mesh.elements_t as f64 + 1.0);
    forward_bytes(&size, res.time_order as f64, nodes)
        + nodes * REPLAY_SAMPLE_BYTES
        + mesh_nodes * SOLUTION_NODE_BYTES
}

/// (peak bytes, unknowns, stored values) of the space-time FEM on the scenario's mesh.
fn fem_cost(s: &SpatialInverseScenario) -> (f64, f64, f64) {
    let ns1 = s.mesh.elements_s as f64 + 1.0;
    let nt1 = s.mesh.elements_t as f64 + 1.0;
    let nodes = ns1 * nt1;
    // 12 per node with t > t_start, 6 actuation components per time node
    let unknowns = (12.0 * ns1 + 6.0) * (nt1 - 1.0);
    let stored = crate::inverse::sideways::stored_values(s.mesh.elements_t, 6, 18, 23, true) as f64;
    let bytes = nodes * NODE_BYTES + stored * 8.0 + nt1 * LEVEL_EXTRA_BYTES + RUN_BYTES;
    (bytes, unknowns, stored)
}

fn output_bytes(s: &SpatialInverseScenario) -> f64 {
    let nt1 = s.mesh.elements_t as f64 + 1.0;
    let ns1 = s.mesh.elements_s as f64 + 1.0;
    let body = if s.body.is_some() { 8.0 } else { 0.0 };
    nt1 * TIME_ROW_BYTES
        + SNAPSHOTS.min(nt1) * (ns1 + body) * SNAPSHOT_NODE_BYTES
        + FIXED_OUTPUT_BYTES
}

/// `stmech run` of a spatial inverse scenario.
pub(super) fn estimate(s: &SpatialInverseScenario) -> Estimate {
    let (solve, unknowns, stored) = fem_cost(s);
    let bytes = solve.max(replay_bytes(s) + RUN_BYTES);
    let driver = if s.mesh_auto {
        // the time mesh follows the space mesh: the size grows with its square
        Driver {
            field: "beams[0].elements",
            value: s.mesh.elements_s as f64,
            direction: Direction::Reduce,
            exponent: 2.0,
            fixed_bytes: BASE_BYTES + RUN_BYTES,
        }
    } else if s.mesh.elements_t >= s.mesh.elements_s {
        Driver {
            field: "inverse.elements_t",
            value: s.mesh.elements_t as f64,
            direction: Direction::Reduce,
            exponent: 1.0,
            fixed_bytes: BASE_BYTES + RUN_BYTES,
        }
    } else {
        Driver {
            field: "beams[0].elements",
            value: s.mesh.elements_s as f64,
            direction: Direction::Reduce,
            exponent: 1.0,
            fixed_bytes: BASE_BYTES + RUN_BYTES,
        }
    };
    Estimate {
        unknowns: sat(unknowns),
        nonzeros: sat(stored),
        time_nodes: sat(s.mesh.elements_t as f64 + 1.0),
        peak_bytes: sat(BASE_BYTES + bytes),
        output_bytes: sat(output_bytes(s)),
        driver,
    }
}
