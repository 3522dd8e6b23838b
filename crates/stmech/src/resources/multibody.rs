//! Rigid bodies and joints: space-time blocks and one-step schemes.
//!
//! What `stmech run` holds at its peak:
//! * the trajectory: `times`, `q`, `p`, `λ` at every time node (`1 + 2 n_q + n_λ` values);
//! * per node the diagnostics (energies, momentum, `|Φ|`), per element the element
//!   diagnostics, and the plotted series;
//! * per block its Newton report (residual history), in memory and in `summary.json`;
//! * one block's Newton system: `n_el · p` nodes of `2 n_q + n_λ` unknowns, a pattern of
//!   `(p + 1)²` node-pair templates per element, its values and the LU factors (banded, dense
//!   or sparse with fill).

use super::{BASE_BYTES, Direction, Driver, Estimate, sat};
use crate::discretize::CondensedElement;
use crate::io::scenario::Scenario;
use crate::model::ConstrainedSystem;
use crate::solve::scheme::Method;
use crate::solve::scheme::space_time::Formulation;

/// Bytes per time node of the post-processing (node and element diagnostics, plot series)
/// (calibrated: 175 B for one body and for the double pendulum).
const POST_NODE_BYTES: f64 = 175.0;
/// Growth of the trajectory vectors of the one-step schemes (they grow by doubling; the
/// space-time blocks reserve them exactly).
const PUSH_GROWTH: f64 = 1.3;
/// Bytes per time block: its Newton report and its share of `summary.json` (calibrated).
const BLOCK_BYTES: f64 = 2100.0;
/// Bytes per node-pair template entry of one element of a block: pattern, values, positions
/// and LU factors (calibrated).
const MATRIX_BYTES_PER_ENTRY: f64 = 20.0;
/// Output characters per CSV cell.
const CELL_BYTES: f64 = 24.0;
/// PNG plots of a multibody run (about 45 kB each).
const PLOT_BYTES: f64 = 10.0 * 45e3;

/// Bytes of one VTK snapshot per frame (a beam node's point, or a body's 8 corners, with
/// the three directors, in ASCII).
const SNAPSHOT_BYTES_PER_FRAME: f64 = 8.0 * 220.0;

/// Static analysis: one saddle-point system `[[K, Gᵀ], [G, 0]]` with sparse LU fill, and the
/// configuration after every load step (`load_steps × n_q`).
fn estimate_static(s: &Scenario, params: &crate::solve::statics::StaticParams) -> Estimate {
    let sys = &s.system;
    let (nq, nl) = (sys.n_q() as f64, sys.n_lambda() as f64);
    let steps = params.load_steps as f64;
    let nonzeros = sys.k_pattern().len() as f64 + 2.0 * sys.g_pattern().len() as f64;
    // sparse LU of a beam-like (banded) system: fill a few times the pattern
    let matrix_bytes = nonzeros * 4.0 * MATRIX_BYTES_PER_ENTRY;
    let history_bytes = steps * nq * 8.0;
    let frames = sys.n_frames() as f64;
    let snapshots = steps.min(crate::io::output::scene::MAX_SNAPSHOTS as f64) + 1.0;
    let peak = BASE_BYTES + matrix_bytes + history_bytes + snapshots * frames * 400.0;
    let output =
        snapshots * frames * SNAPSHOT_BYTES_PER_FRAME + steps * 200.0 + frames * 300.0 + 60e3;
    let driver = Driver {
        field: "statics.load_steps",
        value: steps,
        direction: Direction::Reduce,
        exponent: 1.0,
        fixed_bytes: BASE_BYTES + matrix_bytes,
    };
    let _ = nl;
    Estimate {
        unknowns: sat(nq + nl),
        nonzeros: sat(nonzeros),
        time_nodes: sat(steps + 1.0),
        peak_bytes: sat(peak),
        output_bytes: sat(output),
        driver,
    }
}

pub(super) fn estimate(s: &Scenario) -> Estimate {
    if let Some(params) = &s.statics {
        return estimate_static(s, params);
    }
    let sys = &s.system;
    let (nq, nl) = (sys.n_q() as f64, sys.n_lambda() as f64);
    let n_bodies = sys.bodies().len() as f64;
    let per_node = 2.0 * nq + nl;
    // the length of `node_pair_template(sys)`, without building it (2.7 M entries, 43 MB for a
    // beam of 2000 elements)
    let template = (2 * sys.n_q() + sys.mass().len() + sys.k_pattern().len()) as f64
        + 2.0 * sys.g_pattern().len() as f64;
    let span = s.t_end - s.t_start;
    // (time nodes, blocks, elements per block, order)
    let (nodes, blocks, n_el, order, growth) = match &s.method {
        Method::SpaceTime(p) => {
            let (o, e, b) = (p.order as f64, p.elements_per_block as f64, p.blocks as f64);
            (b * e * o + 1.0, b, e, o, 1.0)
        }
        Method::TimeStepping { step, .. } => {
            let steps = (span / step).ceil().max(1.0);
            (steps + 1.0, 1.0, 1.0, 1.0, PUSH_GROWTH)
        }
    };
    // The Petrov–Galerkin form is solved element by element with the velocities eliminated
    // (`discretize::condensed`): one element's system of `p` nodes of `n_q + n_λ` unknowns is
    // in memory, whatever the block length. (A block whose element-wise solution misses the
    // block tolerance falls back to the full form of the whole block: not modelled.)
    let condensed = match &s.method {
        Method::SpaceTime(p) => {
            p.formulation == Formulation::PetrovGalerkin
                && CondensedElement::<dyn ConstrainedSystem>::applies(p.order, p.quadrature())
        }
        Method::TimeStepping { .. } => false,
    };
    let (system_elements, system_per_node, template) = if condensed {
        let shrink = (nq + nl) / per_node;
        (1.0, nq + nl, template * shrink * shrink)
    } else {
        (n_el, per_node, template)
    };
    let unknowns = system_elements * order * system_per_node;
    let nonzeros = system_elements * (order + 1.0) * (order + 1.0) * template;
    let matrix_bytes = nonzeros * MATRIX_BYTES_PER_ENTRY;
    let traj_bytes = nodes * 8.0 * (1.0 + per_node) * growth;
    let block_bytes = blocks * BLOCK_BYTES;
    // the block system is dropped before the post-processing starts
    let post_bytes = nodes * POST_NODE_BYTES;
    let peak = BASE_BYTES + traj_bytes + block_bytes + matrix_bytes.max(post_bytes);
    let columns = 1.0 + 2.0 * nq + 7.0 + nl;
    let snapshots = nodes.min(crate::io::output::scene::MAX_SNAPSHOTS as f64);
    let output = nodes * columns * CELL_BYTES
        + nodes / order * 10.0 * CELL_BYTES
        + PLOT_BYTES
        + snapshots * (sys.n_frames() as f64) * SNAPSHOT_BYTES_PER_FRAME
        + 4e3;
    let driver = if n_bodies >= 100.0 && n_bodies * 12.0 > nodes {
        Driver {
            field: "bodies",
            value: n_bodies,
            direction: Direction::Reduce,
            exponent: 1.0,
            fixed_bytes: BASE_BYTES + block_bytes,
        }
    } else {
        match &s.method {
            Method::SpaceTime(p) => {
                if blocks * BLOCK_BYTES + traj_bytes >= matrix_bytes && blocks >= n_el {
                    Driver {
                        field: "method.blocks",
                        value: p.blocks as f64,
                        direction: Direction::Reduce,
                        exponent: 1.0,
                        fixed_bytes: BASE_BYTES + matrix_bytes,
                    }
                } else {
                    Driver {
                        field: "method.elements_per_block",
                        value: p.elements_per_block as f64,
                        direction: Direction::Reduce,
                        exponent: 1.0,
                        fixed_bytes: BASE_BYTES + block_bytes,
                    }
                }
            }
            Method::TimeStepping { step, .. } => Driver {
                field: "method.step",
                value: *step,
                direction: Direction::Raise,
                exponent: 1.0,
                fixed_bytes: BASE_BYTES + block_bytes + matrix_bytes,
            },
        }
    };
    Estimate {
        unknowns: sat(unknowns),
        nonzeros: sat(nonzeros),
        time_nodes: sat(nodes),
        peak_bytes: sat(peak),
        output_bytes: sat(output),
        driver,
    }
}
