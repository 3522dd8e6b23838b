//! Planar beam: static load stepping, energy-momentum stepper, space-time slabs.
//!
//! What `stmech run` holds at its peak:
//! * the model: per element its shape tables and reference strains, per node the state;
//! * the banded Newton matrix of one step (`3 N` unknowns, half bandwidth `≈ 3 (order + 1)`)
//!   and its LU factors; a space-time slab has two time levels;
//! * per step one line of `tip.csv` and one of `energy.csv` (kept in memory until written);
//!   a static analysis keeps every load step's state;
//! * `snapshots` beam shapes (VTK and plot).

use super::{BASE_BYTES, Direction, Driver, Estimate, sat};
use crate::beam::integrator::DynamicMethod;
use crate::io::beam_scenario::{BeamAnalysis, BeamScenario};

/// Bytes per dynamic step: the two CSV lines in memory (with `String` growth) (calibrated).
const STEP_BYTES: f64 = 230.0;
/// Bytes of a beam run beyond [`BASE_BYTES`] (plot bitmaps, VTK writer) (calibrated).
const BEAM_BASE_BYTES: f64 = 2.5e6;
/// Bytes per unknown of one step's Newton system (matrix, factors, work vectors, model)
/// (calibrated).
const UNKNOWN_BYTES: f64 = 300.0;
/// Bytes per stored node value of a static load step (state and residual history).
const STATIC_VALUE_BYTES: f64 = 5.0;
/// Bytes per static load step beyond its state (calibrated).
const STATIC_STEP_BYTES: f64 = 100.0;
/// Bytes per snapshot node (VTK text and plot points).
const SNAPSHOT_NODE_BYTES: f64 = 50.0;
/// Output bytes per CSV row (tip and energy).
const ROW_BYTES: f64 = 220.0;

pub(super) fn estimate(s: &BeamScenario) -> Estimate {
    let spec = &s.model.spec;
    let nodes = spec.elements as f64 * spec.order as f64 + 1.0;
    let dofs = 3.0 * nodes;
    let bandwidth = 6.0 * (spec.order as f64 + 1.0);
    let snapshots = s.snapshots as f64 + 2.0;
    let snap_bytes = snapshots * nodes * SNAPSHOT_NODE_BYTES;
    let (steps, levels, per_step, driver_of) = match s.analysis {
        BeamAnalysis::Static { steps } => (
            (steps as f64).max(1.0),
            1.0,
            dofs * STATIC_VALUE_BYTES + STATIC_STEP_BYTES,
            Driver {
                field: "static.steps",
                value: steps as f64,
                direction: Direction::Reduce,
                exponent: 1.0,
                fixed_bytes: 0.0,
            },
        ),
        BeamAnalysis::Dynamic { end, step } => (
            (end / step).ceil().max(1.0),
            match s.method {
                DynamicMethod::EnergyMomentum => 1.0,
                DynamicMethod::SpaceTime => 2.0,
            },
            STEP_BYTES,
            Driver {
                field: "dynamic.step",
                value: step,
                direction: Direction::Raise,
                exponent: 1.0,
                fixed_bytes: 0.0,
            },
        ),
    };
    let unknowns = levels * dofs;
    let nonzeros = unknowns * (2.0 * bandwidth + 1.0) * levels;
    let system_bytes = unknowns * UNKNOWN_BYTES;
    let history_bytes = steps * per_step;
    let peak = BASE_BYTES + BEAM_BASE_BYTES + system_bytes + history_bytes + snap_bytes;
    let output = steps * ROW_BYTES + snapshots * nodes * 60.0 + 4.0 * 45e3 + 4e3;
    let driver = if history_bytes >= system_bytes + snap_bytes {
        Driver {
            fixed_bytes: BASE_BYTES + BEAM_BASE_BYTES + system_bytes + snap_bytes,
            ..driver_of
        }
    } else {
        Driver {
            field: "beam.elements",
            value: spec.elements as f64,
            direction: Direction::Reduce,
            exponent: 1.0,
            fixed_bytes: BASE_BYTES + BEAM_BASE_BYTES + steps * STEP_BYTES,
        }
    };
    Estimate {
        unknowns: sat(unknowns),
        nonzeros: sat(nonzeros),
        time_nodes: sat(steps + 1.0),
        peak_bytes: sat(peak),
        output_bytes: sat(output),
        driver,
    }
}
