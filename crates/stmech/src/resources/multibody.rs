//! Rigid bodies, beams and joints: space-time blocks and one-step schemes, statics.
//!
//! What `stmech run` holds at its peak:
//! * the system ([`crate::model::MultibodySystem`]): the patterns of `K`, `G` and `𝕄`, the
//!   maps of every frame, constraint and strain element into them; for a beam all of it grows
//!   with the `K` pattern (≈ 1150 entries per quadratic element);
//! * the trajectory: `times`, `q`, `v`, `λ` at every time node (`1 + 2 n_q + n_λ` values);
//! * per node the diagnostics (energies, momentum, `|Φ|`), per element the element
//!   diagnostics, and the plotted series;
//! * per block its Newton report (residual history), in memory and in `summary.json`;
//! * the Newton system: for the Petrov–Galerkin form one condensed time element
//!   ([`CondensedElement`]: `p` nodes of `n_q + n_λ` unknowns, `p² (|K| + 2 |G|)` entries with
//!   their pattern, the linear solver's copy, values, positions and the sparse LU factors);
//!   otherwise one block of `n_el · p` nodes of `2 n_q + n_λ` unknowns, a pattern of
//!   `(p + 1)²` node-pair templates per element, its values and the LU factors.
//!
//! [`forward_bytes`] is also the model of the spatial inverse's closed-loop replay (a forward
//! run of the director beam, `resources::spatial`).

use super::{BASE_BYTES, Direction, Driver, Estimate, sat};
use crate::discretize::CondensedElement;
use crate::io::scenario::Scenario;
use crate::model::{ConstrainedSystem, MultibodySystem};
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
/// Bytes of the system per entry of its `K` pattern: the pattern itself (16 B), the strain
/// elements' positions in it (8 B per entry of their blocks), the frames' and constraints'
/// maps, `G` and `𝕄`, and what their construction leaves allocated (calibrated on a clamped
/// beam of 250 … 2000 quadratic elements, cG(1) and cG(2): 74 B).
const SYSTEM_BYTES_PER_K_ENTRY: f64 = 74.0;
/// Bytes per entry of a condensed time element's Jacobian (`p² (|K| + 2 |G|)` entries): its
/// pattern and the linear solver's copy, the values of the element and of the Newton solver,
/// the positions of the strain elements, the sparse LU factors and faer's work space
/// (calibrated with [`SYSTEM_BYTES_PER_K_ENTRY`]: 71 B).
const CONDENSED_BYTES_PER_ENTRY: f64 = 71.0;
/// Rendering the PNG plots of a run (bitmap, font, encoder) (measured: a run of one body with
/// and without `--no-plots`).
const PLOT_RENDER_BYTES: f64 = 3.5e6;
/// Output characters per CSV cell.
const CELL_BYTES: f64 = 24.0;
/// PNG plots of a multibody run (about 45 kB each).
const PLOT_BYTES: f64 = 10.0 * 45e3;

/// Bytes of one VTK snapshot per frame (a beam node's point, or a body's 8 corners, with
/// the three directors, in ASCII).
const SNAPSHOT_BYTES_PER_FRAME: f64 = 8.0 * 220.0;

/// Field paths of the first beams' element counts (a [`Driver`] names a static field).
const BEAM_ELEMENTS: [&str; 8] = [
    "beams[0].elements",
    "beams[1].elements",
    "beams[2].elements",
    "beams[3].elements",
    "beams[4].elements",
    "beams[5].elements",
    "beams[6].elements",
    "beams[7].elements",
];

/// The sizes of a constrained system that set the memory of a forward run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SystemSize {
    /// Coordinates.
    pub n_q: f64,
    /// Constraint equations.
    pub n_lambda: f64,
    /// Entries of the `K` pattern.
    pub n_k: f64,
    /// Entries of the `G` pattern.
    pub n_g: f64,
}

impl SystemSize {
    /// The sizes of a built system.
    pub fn of(sys: &MultibodySystem) -> Self {
        Self {
            n_q: sys.n_q() as f64,
            n_lambda: sys.n_lambda() as f64,
            n_k: sys.k_pattern().len() as f64,
            n_g: sys.g_pattern().len() as f64,
        }
    }

    /// The sizes of a director beam of `elements` quadratic elements (`2 elements + 1` nodes),
    /// with a rigid body welded to its end if `body`, its first node clamped (to a moving
    /// frame) if `clamped`: the forward model of the spatial inverse's replay, without
    /// building it. Exact for that model (a test compares with the built system).
    pub fn quadratic_beam(elements: usize, body: bool, clamped: bool) -> Self {
        let e = elements as f64;
        let frames = 2.0 * e + 1.0 + f64::from(u8::from(body));
        // every frame has its orthonormality but the tied ones (the welded end, the clamp)
        let untied = frames - f64::from(u8::from(body)) - f64::from(u8::from(clamped));
        let joints = f64::from(u8::from(body)) + f64::from(u8::from(clamped));
        Self {
            n_q: 12.0 * frames,
            n_lambda: 6.0 * untied + 12.0 * joints,
            // the frames' own blocks, the 6 blocks between the 3 nodes of each element, the
            // 2 blocks of the weld between the end node and the body
            n_k: 144.0 * (frames + 6.0 * e) + if body { 288.0 } else { 0.0 },
            // orthonormality 6 × 9, weld 12 × 24, clamp 12 × 12
            n_g: 54.0 * untied + if body { 288.0 } else { 0.0 } + if clamped { 144.0 } else { 0.0 },
        }
    }

    /// Values stored per time node of the trajectory (`t`, `q`, `v`, `λ`).
    fn node_values(&self) -> f64 {
        1.0 + 2.0 * self.n_q + self.n_lambda
    }
}

/// Bytes of the system's patterns and maps.
pub(super) fn system_bytes(size: &SystemSize) -> f64 {
    size.n_k * SYSTEM_BYTES_PER_K_ENTRY
}

/// Entries of the Jacobian of one condensed time element of order `p`.
fn condensed_entries(size: &SystemSize, p: f64) -> f64 {
    p * p * (size.n_k + 2.0 * size.n_g)
}

/// Peak bytes of a forward run of the Petrov–Galerkin form, solved element by element, of
/// order `p` with `time_nodes` nodes kept: the system, one condensed element with its
/// factorisation, the trajectory (reserved whole).
pub(super) fn forward_bytes(size: &SystemSize, p: f64, time_nodes: f64) -> f64 {
    system_bytes(size)
        + condensed_entries(size, p) * CONDENSED_BYTES_PER_ENTRY
        + time_nodes * 8.0 * size.node_values()
}

/// Static analysis: the system ([`system_bytes`]), one saddle-point system
/// `[[K, Gᵀ], [G, 0]]` with sparse LU fill, and the configuration after every load step
/// (`load_steps × n_q`).
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
    // the system's patterns and maps stay alive beside the saddle-point system (as in
    // dynamics: without them a 1024-element bend was estimated at 0.75 of its peak)
    let peak = BASE_BYTES
        + PLOT_RENDER_BYTES
        + system_bytes(&SystemSize::of(sys))
        + matrix_bytes
        + history_bytes
        + snapshots * frames * 400.0;
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
    let size = SystemSize::of(sys);
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
    let (unknowns, nonzeros, matrix_bytes) = if condensed {
        let nonzeros = condensed_entries(&size, order);
        (
            order * (nq + nl),
            nonzeros,
            nonzeros * CONDENSED_BYTES_PER_ENTRY,
        )
    } else {
        let nonzeros = n_el * (order + 1.0) * (order + 1.0) * template;
        (
            n_el * order * per_node,
            nonzeros,
            nonzeros * MATRIX_BYTES_PER_ENTRY,
        )
    };
    let traj_bytes = nodes * 8.0 * size.node_values() * growth;
    let block_bytes = blocks * BLOCK_BYTES;
    // the block system is dropped before the post-processing starts; the system stays
    let post_bytes = nodes * POST_NODE_BYTES;
    let fixed = BASE_BYTES + PLOT_RENDER_BYTES + system_bytes(&size);
    let peak = fixed + traj_bytes + block_bytes + matrix_bytes.max(post_bytes);
    let columns = 1.0 + 2.0 * nq + 7.0 + nl;
    let snapshots = nodes.min(crate::io::output::scene::MAX_SNAPSHOTS as f64);
    let output = nodes * columns * CELL_BYTES
        + nodes / order * 10.0 * CELL_BYTES
        + PLOT_BYTES
        + snapshots * (sys.n_frames() as f64) * SNAPSHOT_BYTES_PER_FRAME
        + 4e3;
    // the largest beam, when the system and one element outweigh the trajectory
    let beam = s
        .beams
        .iter()
        .enumerate()
        .max_by_key(|(_, b)| b.nodes)
        .filter(|_| condensed && system_bytes(&size) + matrix_bytes >= traj_bytes + block_bytes);
    let driver = if let Some((i, b)) = beam {
        Driver {
            field: BEAM_ELEMENTS.get(i).copied().unwrap_or("beams[i].elements"),
            value: ((b.nodes - 1) / b.order.max(1)) as f64,
            direction: Direction::Reduce,
            exponent: 1.0,
            fixed_bytes: BASE_BYTES + PLOT_RENDER_BYTES + block_bytes,
        }
    } else if n_bodies >= 100.0 && n_bodies * 12.0 > nodes {
        Driver {
            field: "bodies",
            value: n_bodies,
            direction: Direction::Reduce,
            exponent: 1.0,
            // the system grows with the bodies too
            fixed_bytes: BASE_BYTES + PLOT_RENDER_BYTES + block_bytes,
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
                        fixed_bytes: fixed + matrix_bytes,
                    }
                } else {
                    Driver {
                        field: "method.elements_per_block",
                        value: p.elements_per_block as f64,
                        direction: Direction::Reduce,
                        exponent: 1.0,
                        fixed_bytes: fixed + block_bytes,
                    }
                }
            }
            Method::TimeStepping { step, .. } => Driver {
                field: "method.step",
                value: *step,
                direction: Direction::Raise,
                exponent: 1.0,
                fixed_bytes: fixed + block_bytes + matrix_bytes,
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

/// The sizes of the closed-loop replay's forward model, built (for the tests of
/// [`SystemSize::quadratic_beam`] in `inverse::spatial::closed_loop`).
#[cfg(test)]
pub(crate) fn built_and_modelled_sizes(
    sys: &MultibodySystem,
    elements: usize,
    body: bool,
    clamped: bool,
) -> ([f64; 4], [f64; 4]) {
    let a = SystemSize::of(sys);
    let b = SystemSize::quadratic_beam(elements, body, clamped);
    (
        [a.n_q, a.n_lambda, a.n_k, a.n_g],
        [b.n_q, b.n_lambda, b.n_k, b.n_g],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discretize::CondensedElement;

    /// A clamped director beam of `n` quadratic elements, cG(`p`) Petrov–Galerkin.
    fn clamped_beam(n: usize, p: usize) -> Scenario {
        let text = format!(
            r#"
[time]
end = 0.004
[method]
kind = "space-time"
order = {p}
elements_per_block = 1
blocks = 2
[[beams]]
name = "rod"
elements = {n}
order = 2
section = {{ ea = 1e5, ga1 = 1e5, ga2 = 1e5, ei1 = 50.0, ei2 = 50.0, gj = 1.0, rho_a = 1.0, rho_i1 = 1e-4, rho_i2 = 1e-4 }}
reference = {{ kind = "straight", start = [0.0, 0.0, 0.0], directors = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], length = 1.0 }}
[[joints]]
name = "clamp"
kind = "rigid"
body_a = "rod:start"
body_b = "ground"
"#
        );
        Scenario::from_toml_str(&text, "clamped beam").unwrap()
    }

    /// The condensed element's Jacobian has exactly the `p² (|K| + 2 |G|)` entries the
    /// estimate counts (its pattern, built), so the bytes per entry — not the count — are
    /// the only calibrated part of the dominant term of flexible dynamics.
    #[test]
    fn condensed_entries_are_those_of_the_built_element() {
        for (n, p) in [(16, 1), (16, 2), (40, 2)] {
            let s = clamped_beam(n, p);
            let size = SystemSize::of(&s.system);
            let Method::SpaceTime(m) = &s.method else {
                panic!("a space-time method")
            };
            let el = CondensedElement::new(&s.system, p, 2e-3, m.quadrature());
            let built = el.pattern().nnz() as f64;
            let counted = condensed_entries(&size, p as f64);
            assert!(
                (counted / built - 1.0).abs() < 0.02,
                "{n} elements, p = {p}: counted {counted}, built {built}"
            );
        }
    }

    /// The estimate of a clamped beam is dominated by the counted structures (system and one
    /// condensed element) and stays within 2× of the peak measured at 1000 elements, cG(2):
    /// 480 MiB (`benches/memory.sh`, table in `docs/verification.md`). The count of entries
    /// is exact (test above); this pins the bytes per entry.
    #[test]
    fn flexible_dynamics_estimate_is_within_two_of_the_measured_peak() {
        let s = clamped_beam(1000, 2);
        let e = estimate(&s);
        let measured = 480.0 * 1024.0 * 1024.0;
        let ratio = e.peak_bytes as f64 / measured;
        assert!((0.5..=2.0).contains(&ratio), "estimate/measured = {ratio}");
    }
}
