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

use super::{BASE_BYTES, Direction, Driver, Estimate, sat};
use crate::io::scenario::SpatialInverseScenario;

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
    let (bytes, unknowns, stored) = fem_cost(s);
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
