//! Beam inverse dynamics: space-time FEM (sideways elimination or sparse LU) and the method
//! of characteristics.
//!
//! What `stmech run` holds at its peak, per node of the `(n_s + 1) × (n_t + 1)` mesh:
//! * sideways elimination (streamed, [`crate::inverse::sideways`]): the three Newton vectors
//!   (iterate, last update, update being computed; 6 unknowns per node each), and per time
//!   level the columns in flight ([`crate::inverse::sideways::stored_values`]: factorised
//!   bands, residuals, stress points), whatever `n_s`; the solution fields (`x`, `v`) replace
//!   two of the Newton vectors after the solve;
//! * sparse LU: the solution fields and the Newton vectors, the CSC pattern (24 × 24 entries
//!   per element), its values, the element positions and the LU factors whose fill grows like
//!   `n log n` for the COLAMD ordering of a 2-D mesh;
//! * characteristics: every line's states (9 values per node) on the extended time domain
//!   `n_t + n_s ⌈h_s / (c h_t)⌉ + 4` nodes long.

use super::{BASE_BYTES, Direction, Driver, Estimate, sat};
use crate::beam::section::ConstitutiveLaw;
use crate::inverse::methods::InverseMethod;
use crate::inverse::solver::{BeamModel, LinearSolverKind, SpaceTimeMesh};
use crate::io::inverse_scenario::InverseScenario;
use crate::io::inverse_scenario::crane::CraneScenario;

/// Bytes per mesh node of the sideways space-time solve: three Newton vectors of 6 `f64`
/// (measured: 143 B per node between 128 × 768 and 512 × 3072).
const SIDEWAYS_NODE_BYTES: f64 = 144.0;
/// Bytes of a space-time FEM run beyond [`BASE_BYTES`]: the plot bitmaps and the closed-loop
/// forward model, alive while the solution is written (calibrated on 20 × 120).
const FEM_RUN_BYTES: f64 = 2.5e6;
/// Bytes per time level of the sideways solve beyond its stored Jacobian values (`f64`): the
/// servo, lumped-residual and actuation vectors of the march (measured: 9.2 kB per level in
/// all, of which 8.9 kB are the stored values).
const SIDEWAYS_LEVEL_EXTRA_BYTES: f64 = 300.0;
/// Sparse LU (faer, COLAMD): bytes ≈ `SPARSE_COEFF · nodes^SPARSE_EXPONENT`, the fill of the
/// factors growing faster than the mesh (calibrated: 0.27 GB at 21 × 121 nodes, 1.55 GB at
/// 41 × 241).
const SPARSE_COEFF: f64 = 9.2e3;
/// See [`SPARSE_COEFF`].
const SPARSE_EXPONENT: f64 = 1.31;
/// Bytes per node state of the characteristics march (calibrated).
const CHAR_STATE_BYTES: f64 = 40.0;
/// Bytes per mesh node of the characteristics' grid solution (calibrated).
const CHAR_NODE_BYTES: f64 = 60.0;
/// Bytes of the characteristics beyond [`BASE_BYTES`] (calibrated).
const CHAR_BASE_BYTES: f64 = 2.5e6;
/// Bytes per mesh node of the solution and post-processing (calibrated).
const FIELD_NODE_BYTES: f64 = 150.0;
/// Output bytes per time node (actuation CSV, energies) and per snapshot node (VTK).
const TIME_ROW_BYTES: f64 = 300.0;

/// Time nodes per characteristic line on the extended domain.
fn extended_time_nodes(beam: &BeamModel, mesh: &SpaceTimeMesh) -> f64 {
    let ns = mesh.elements_s as f64;
    let nt = mesh.elements_t as f64;
    let hs = beam.length / ns;
    let ht = (mesh.t_end - mesh.t_start) / nt;
    let c = beam.law.wave_speeds(&beam.section, 1.0);
    let axial = match beam.law {
        ConstitutiveLaw::Quadratic => c[2],
        ConstitutiveLaw::Log => c[2] / std::f64::consts::SQRT_2,
    };
    let speed = c[0].min(c[1]).min(axial);
    let per_line = (hs / (speed * ht)).ceil().max(1.0);
    nt + ns * per_line + 5.0
}

/// (peak bytes, unknowns, nonzeros) of one method on one mesh.
fn method_cost(
    method: InverseMethod,
    solver: LinearSolverKind,
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
) -> (f64, f64, f64) {
    let ns1 = mesh.elements_s as f64 + 1.0;
    let nt1 = mesh.elements_t as f64 + 1.0;
    let nodes = ns1 * nt1;
    match method {
        InverseMethod::SpaceTime => fem_cost(solver, mesh),
        InverseMethod::Characteristics => {
            let states = ns1 * extended_time_nodes(beam, mesh);
            // the marching system of one node is 6 × 6
            let bytes = states * CHAR_STATE_BYTES + nodes * CHAR_NODE_BYTES + CHAR_BASE_BYTES;
            (bytes, 6.0, 36.0)
        }
    }
}

/// (peak bytes, unknowns, nonzeros) of the space-time FEM on one mesh (beam or string: the
/// same unknowns per node and the same elimination).
fn fem_cost(solver: LinearSolverKind, mesh: &SpaceTimeMesh) -> (f64, f64, f64) {
    let ns1 = mesh.elements_s as f64 + 1.0;
    let nt1 = mesh.elements_t as f64 + 1.0;
    let nodes = ns1 * nt1;
    let unknowns = 6.0 * nodes;
    let field = nodes * FIELD_NODE_BYTES;
    match solver {
        LinearSolverKind::Sideways => {
            // the columns in flight of the streamed elimination: O(n_t), not O(nodes)
            let nonzeros =
                crate::inverse::sideways::stored_values(mesh.elements_t, 3, 9, 9, false) as f64;
            let levels = nonzeros * 8.0 + nt1 * SIDEWAYS_LEVEL_EXTRA_BYTES;
            let bytes = nodes * SIDEWAYS_NODE_BYTES + levels + FEM_RUN_BYTES;
            (bytes, unknowns, nonzeros)
        }
        LinearSolverKind::SparseLu => {
            let bytes = SPARSE_COEFF * nodes.powf(SPARSE_EXPONENT);
            // values and row indices of the factors
            let nonzeros = bytes / 16.0;
            (bytes + field, unknowns, nonzeros)
        }
    }
}

/// `stmech run` of a crane scenario: the space-time FEM (the rope has the beam's unknowns per
/// node) plus the solution fields; the forward replay holds one rope state.
pub(super) fn estimate_crane(s: &CraneScenario) -> Estimate {
    let (bytes, unknowns, nonzeros) = fem_cost(s.newton.linear_solver, &s.mesh);
    let nt1 = s.mesh.elements_t as f64 + 1.0;
    let driver = if s.mesh_auto {
        Driver {
            field: "mesh.resolution",
            value: s.mesh.elements_s as f64,
            direction: Direction::Reduce,
            exponent: 2.0,
            fixed_bytes: BASE_BYTES,
        }
    } else {
        Driver {
            field: "mesh.elements_t",
            value: s.mesh.elements_t as f64,
            direction: Direction::Reduce,
            exponent: 1.0,
            fixed_bytes: BASE_BYTES,
        }
    };
    Estimate {
        unknowns: sat(unknowns),
        nonzeros: sat(nonzeros),
        time_nodes: sat(nt1),
        peak_bytes: sat(BASE_BYTES + bytes),
        output_bytes: sat(output_bytes(&s.mesh)),
        driver,
    }
}

fn driver(s: &InverseScenario, fixed: f64) -> Driver {
    let sparse = s.method == InverseMethod::SpaceTime
        && s.newton.linear_solver == LinearSolverKind::SparseLu;
    let power = if sparse { SPARSE_EXPONENT } else { 1.0 };
    if s.mesh_auto {
        Driver {
            field: "mesh.resolution",
            value: s.mesh.elements_s as f64,
            direction: Direction::Reduce,
            exponent: 2.0 * power,
            fixed_bytes: fixed,
        }
    } else if s.mesh.elements_t >= s.mesh.elements_s {
        Driver {
            field: "mesh.elements_t",
            value: s.mesh.elements_t as f64,
            direction: Direction::Reduce,
            exponent: power,
            fixed_bytes: fixed,
        }
    } else {
        Driver {
            field: "mesh.elements_s",
            value: s.mesh.elements_s as f64,
            direction: Direction::Reduce,
            exponent: power,
            fixed_bytes: fixed,
        }
    }
}

fn output_bytes(mesh: &SpaceTimeMesh) -> f64 {
    let nt1 = mesh.elements_t as f64 + 1.0;
    let ns1 = mesh.elements_s as f64 + 1.0;
    nt1 * TIME_ROW_BYTES + 40.0 * ns1 * 60.0 + 6.0 * 45e3 + 4e3
}

pub(super) fn estimate(s: &InverseScenario, method: InverseMethod) -> Estimate {
    let cost = method_cost(method, s.newton.linear_solver, &s.beam, &s.mesh);
    estimate_from(s, cost)
}

/// The estimate of a run of `s` whose largest solve costs `(bytes, unknowns, nonzeros)`.
fn estimate_from(s: &InverseScenario, (bytes, unknowns, nonzeros): (f64, f64, f64)) -> Estimate {
    let nt1 = s.mesh.elements_t as f64 + 1.0;
    Estimate {
        unknowns: sat(unknowns),
        nonzeros: sat(nonzeros),
        time_nodes: sat(nt1),
        peak_bytes: sat(BASE_BYTES + bytes),
        output_bytes: sat(output_bytes(&s.mesh)),
        driver: driver(s, BASE_BYTES),
    }
}

/// `stmech compare`: the space-time FEM, the characteristics, the sequential baseline and a
/// characteristics reference on the mesh refined 4× in `s` and `t`, one after the other.
pub(super) fn estimate_compare(s: &InverseScenario) -> Estimate {
    let fine = SpaceTimeMesh {
        elements_s: s.mesh.elements_s.saturating_mul(4),
        elements_t: s.mesh.elements_t.saturating_mul(4),
        ..s.mesh
    };
    let solver = s.newton.linear_solver;
    let costs = [
        method_cost(InverseMethod::SpaceTime, solver, &s.beam, &s.mesh),
        method_cost(InverseMethod::Characteristics, solver, &s.beam, &s.mesh),
        method_cost(InverseMethod::Characteristics, solver, &s.beam, &fine),
    ];
    let largest = costs.iter().fold((0.0f64, 0.0f64, 0.0f64), |a, c| {
        (a.0.max(c.0), a.1.max(c.1), a.2.max(c.2))
    });
    estimate_from(s, largest)
}
