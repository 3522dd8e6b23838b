//! Result files of a run and the directory they go to.
//!
//! * `trajectory.csv`: one row per time node with positions, directors, momenta, energies,
//!   angular momentum and constraint violation ([`write_trajectory_csv`]).
//! * `summary.json`: input echo, method, final state, Newton statistics, drifts and status
//!   ([`summary_ok`], [`summary_failed`]).
//!
//! Results are written into a staging directory `<out>.tmp-<pid>` beside `<out>` and swapped
//! in only when everything succeeded ([`OutputDir`], module `dir`: the output-safety rules),
//! so `<out>` never holds a half-written or failed run. Failed runs leave their summary in
//! `<out>.failed`.
//!
//! Plotting is not done here: it belongs to front ends (the `stmech` CLI draws PNGs into
//! [`OutputDir::path`] before committing).

use crate::error::SolveError;
use crate::io::scenario::Scenario;
use crate::model::{ConstrainedSystem, MultibodySystem};
use crate::solve::Trajectory;
use crate::solve::diagnostics::{
    ElementDiagnostics, constraint_violations, violation_per_constraint_into, work,
};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

mod dir;
pub mod scene;
pub(crate) use dir::io_err;
pub use dir::{
    CommitStep, Fault, INCOMPLETE_MARKER, MANIFEST, OutputDir, OutputError, SIBLING_SUFFIX_MAX,
    TargetState, refuse_inputs, resolve,
};

/// Diagnostics of one time node, shared by the CSV, the summary and plots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeDiagnostics {
    /// Kinetic energy `½ pᵀ𝕄⁻¹p` (J).
    pub kinetic_energy: f64,
    /// Potential energy of conservative loads (J).
    pub potential_energy: f64,
    /// Kinetic plus potential energy (J).
    pub total_energy: f64,
    /// Angular momentum about the origin, global frame (kg·m²/s).
    pub angular_momentum: [f64; 3],
    /// Largest `|Φ|` of all constraints at the node (dimensionless).
    pub constraint_violation: f64,
}

/// [`NodeDiagnostics`] for every node of `traj`.
pub fn node_diagnostics<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    traj: &Trajectory,
) -> Vec<NodeDiagnostics> {
    let mut ev = sys.new_point_eval();
    // Φ does not depend on λ; zeros avoid relying on the stored (block-wise) multipliers.
    let lambda = vec![0.0; sys.n_lambda()];
    (0..traj.len())
        .map(|k| {
            work::visit(1);
            let (q, v) = (traj.q_at(k), traj.v_at(k));
            sys.eval(traj.times[k], q, &lambda, &mut ev, false);
            let kinetic_energy = sys.kinetic_energy(v);
            let potential_energy = sys.potential_energy(q);
            NodeDiagnostics {
                kinetic_energy,
                potential_energy,
                total_energy: kinetic_energy + potential_energy,
                angular_momentum: sys.angular_momentum(q, v),
                constraint_violation: ev.phi.iter().fold(0.0, |m: f64, x| m.max(x.abs())),
            }
        })
        .collect()
}

const COMPONENTS: [&str; 3] = ["x", "y", "z"];

/// Column names of `trajectory.csv`, with units in brackets.
pub fn csv_header(sys: &MultibodySystem) -> Vec<String> {
    let mut cols = vec!["t [s]".to_owned()];
    for b in sys.bodies() {
        let n = &b.name;
        cols.extend(COMPONENTS.iter().map(|c| format!("{n}.{c} [m]")));
        for i in 1..=3 {
            cols.extend(COMPONENTS.iter().map(|c| format!("{n}.d{i}{c} [-]")));
        }
        cols.extend(COMPONENTS.iter().map(|c| format!("{n}.p{c} [kg m/s]")));
        // π_i = ∂T/∂ḋ_i = S^i φ̄_t + E^ij ḋ_j: kg·m² times 1/s.
        for i in 1..=3 {
            cols.extend(
                COMPONENTS
                    .iter()
                    .map(|c| format!("{n}.pd{i}{c} [kg m^2/s]")),
            );
        }
    }
    // the end nodes of every beam: placement and directors
    for (d, _) in sys.deformables() {
        for end in ["start", "end"] {
            let n = format!("{}:{end}", d.name);
            cols.extend(COMPONENTS.iter().map(|c| format!("{n}.{c} [m]")));
            for i in 1..=3 {
                cols.extend(COMPONENTS.iter().map(|c| format!("{n}.d{i}{c} [-]")));
            }
        }
    }
    cols.extend(
        [
            "kinetic_energy [J]",
            "potential_energy [J]",
            "total_energy [J]",
            "Lx [kg m^2/s]",
            "Ly [kg m^2/s]",
            "Lz [kg m^2/s]",
            "constraint_violation [-]",
        ]
        .map(String::from),
    );
    cols
}

/// [`csv_header`] plus one `|Φ| <label> [-]` column per constraint (labels from the scenario).
pub fn csv_header_with_constraints(sys: &MultibodySystem, labels: &[String]) -> Vec<String> {
    let mut cols = csv_header(sys);
    cols.extend(
        sys.constraints()
            .enumerate()
            .map(|(i, (c, _))| constraint_column(labels, i, c.name())),
    );
    cols
}

fn constraint_column(labels: &[String], i: usize, kind: &str) -> String {
    match labels.get(i) {
        Some(l) => format!("|Phi| {l} [-]"),
        None => format!("|Phi| constraint{i}.{kind} [-]"),
    }
}

/// Writes `trajectory.csv`: [`csv_header`], then one row per node. Numbers use Rust's
/// shortest round-trip exponent form (`{:e}`), so the file is exact and deterministic.
pub fn write_trajectory_csv<W: Write>(
    w: W,
    sys: &MultibodySystem,
    traj: &Trajectory,
    diagnostics: &[NodeDiagnostics],
) -> std::io::Result<()> {
    write_trajectory_csv_labelled(w, sys, traj, diagnostics, &[])
}

/// [`write_trajectory_csv`] with one extra column per constraint: its largest `|Φ|` at the
/// node ([`csv_header_with_constraints`]).
pub fn write_trajectory_csv_labelled<W: Write>(
    mut w: W,
    sys: &MultibodySystem,
    traj: &Trajectory,
    diagnostics: &[NodeDiagnostics],
    labels: &[String],
) -> std::io::Result<()> {
    let per_constraint = !labels.is_empty();
    let header = if per_constraint {
        csv_header_with_constraints(sys, labels)
    } else {
        csv_header(sys)
    };
    writeln!(w, "{}", header.join(","))?;
    let mut ev = sys.new_point_eval();
    let lam = vec![0.0; sys.n_lambda()];
    let mut per = vec![0.0; sys.constraints().count()];
    let mut line = String::new();
    let mut p = vec![0.0; sys.n_q()];
    for (k, d) in diagnostics.iter().enumerate().take(traj.len()) {
        use std::fmt::Write as _;
        work::visit(1);
        line.clear();
        let _ = write!(line, "{:e}", traj.times[k]);
        let q = traj.q_at(k);
        // momenta p = 𝕄 v (the trajectory holds velocities)
        sys.momentum_into(traj.v_at(k), &mut p);
        for b in 0..sys.bodies().len() {
            for x in q[12 * b..12 * b + 12].iter().chain(&p[12 * b..12 * b + 12]) {
                let _ = write!(line, ",{x:e}");
            }
        }
        for (d, f0) in sys.deformables() {
            for f in [f0, f0 + d.n_frames - 1] {
                for x in &q[12 * f..12 * f + 12] {
                    let _ = write!(line, ",{x:e}");
                }
            }
        }
        let l = d.angular_momentum;
        for x in [
            d.kinetic_energy,
            d.potential_energy,
            d.total_energy,
            l[0],
            l[1],
            l[2],
            d.constraint_violation,
        ] {
            let _ = write!(line, ",{x:e}");
        }
        if per_constraint {
            violation_per_constraint_into(sys, traj.times[k], q, &mut ev, &lam, &mut per);
            for x in &per {
                let _ = write!(line, ",{x:e}");
            }
        }
        writeln!(w, "{line}")?;
    }
    w.flush()
}

/// Writes `elements.csv`: one row per time element with its block, the total energy at its
/// ends and its mean, and the element mean of the angular momentum ([`ElementDiagnostics`]).
pub fn write_elements_csv<W: Write>(
    mut w: W,
    traj: &Trajectory,
    elements: &[ElementDiagnostics],
) -> std::io::Result<()> {
    writeln!(
        w,
        "element,block,t_start [s],t_end [s],energy_start [J],energy_end [J],energy_mean [J],\
         Lx_mean [kg m^2/s],Ly_mean [kg m^2/s],Lz_mean [kg m^2/s]"
    )?;
    let blocks = element_blocks(traj, elements);
    for (e, (d, block)) in elements.iter().zip(blocks).enumerate() {
        work::visit(1);
        let l = d.angular_momentum_mean;
        writeln!(
            w,
            "{e},{block},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
            d.t_start, d.t_end, d.energy_start, d.energy_end, d.energy_mean, l[0], l[1], l[2]
        )?;
    }
    w.flush()
}

/// Index of the block containing time `t`: the first block with `t_start ≤ t ≤ t_end`, 0 if
/// none (or there are no block reports). Blocks are ordered in time: a binary search.
pub fn block_of(traj: &Trajectory, t: f64) -> usize {
    let blocks = &traj.blocks;
    let i = blocks.partition_point(|b| {
        work::visit(1);
        b.t_end < t
    });
    match blocks.get(i) {
        Some(b) if t >= b.t_start => i,
        _ => 0,
    }
}

/// [`block_of`] the midpoint of every element. Elements and blocks are both ordered in time,
/// so one cursor walks the blocks as the elements advance: linear in elements plus blocks.
pub fn element_blocks(traj: &Trajectory, elements: &[ElementDiagnostics]) -> Vec<usize> {
    let blocks = &traj.blocks;
    let mut b = 0;
    elements
        .iter()
        .map(|d| {
            work::visit(1);
            let t = 0.5 * (d.t_start + d.t_end);
            while b + 1 < blocks.len() && t > blocks[b].t_end {
                work::visit(1);
                b += 1;
            }
            match blocks.get(b) {
                Some(blk) if t >= blk.t_start && t <= blk.t_end => b,
                // out of order or outside every block: search (never for a solver's output)
                _ => block_of(traj, t),
            }
        })
        .collect()
}

/// Conservation measures over the elements: the drift of `H` at element boundaries over the
/// whole run, the largest spread of the element mean energy and angular momentum *within*
/// one block, and the same spreads over the whole run.
pub fn element_summary(traj: &Trajectory, elements: &[ElementDiagnostics]) -> Value {
    let spread = |xs: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        if hi >= lo { hi - lo } else { 0.0 }
    };
    // (min, max) of the five element quantities per block, in one pass over the elements
    let n_blocks = traj.blocks.len().max(1);
    let mut ranges = vec![[(f64::INFINITY, f64::NEG_INFINITY); 5]; n_blocks];
    for (d, b) in elements.iter().zip(element_blocks(traj, elements)) {
        work::visit(1);
        let r = &mut ranges[b];
        let mut add = |i: usize, x: f64| r[i] = (r[i].0.min(x), r[i].1.max(x));
        add(0, d.energy_start);
        add(0, d.energy_end);
        add(1, d.energy_mean);
        for k in 0..3 {
            add(2 + k, d.angular_momentum_mean[k]);
        }
    }
    let mut in_block = [0.0f64; 5];
    for r in &ranges {
        work::visit(1);
        for (m, &(lo, hi)) in in_block.iter_mut().zip(r) {
            *m = m.max(if hi >= lo { hi - lo } else { 0.0 });
        }
    }
    let all = |f: &dyn Fn(&ElementDiagnostics) -> f64| spread(&mut elements.iter().map(f));
    json!({
        "elements": elements.len(),
        "energy_at_element_boundaries_drift": spread(&mut elements.iter().flat_map(|d| [d.energy_start, d.energy_end])),
        "energy_mean_spread": all(&|d| d.energy_mean),
        "angular_momentum_mean_spread": [
            all(&|d| d.angular_momentum_mean[0]),
            all(&|d| d.angular_momentum_mean[1]),
            all(&|d| d.angular_momentum_mean[2]),
        ],
        "max_within_one_block": {
            "energy_at_element_boundaries": in_block[0],
            "energy_mean": in_block[1],
            "angular_momentum_mean": [in_block[2], in_block[3], in_block[4]],
        },
    })
}

/// `max − min` of `f` over the nodes (0 for no nodes).
fn spread(diagnostics: &[NodeDiagnostics], f: impl Fn(&NodeDiagnostics) -> f64) -> f64 {
    let (lo, hi) = diagnostics
        .iter()
        .map(f)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    if hi >= lo { hi - lo } else { 0.0 }
}

/// Largest minus smallest total energy, kinetic energy and angular momentum components.
fn drift_json(diagnostics: &[NodeDiagnostics]) -> Value {
    json!({
        "total_energy": spread(diagnostics, |d| d.total_energy),
        "kinetic_energy": spread(diagnostics, |d| d.kinetic_energy),
        "angular_momentum": [
            spread(diagnostics, |d| d.angular_momentum[0]),
            spread(diagnostics, |d| d.angular_momentum[1]),
            spread(diagnostics, |d| d.angular_momentum[2]),
        ],
    })
}

fn scenario_json(scenario: &Scenario) -> Value {
    json!({ "origin": scenario.origin, "input": scenario.echo })
}

/// `summary.json` of a successful run; `wall_seconds` is the solve's wall time. `diagnostics`
/// and `elements` are [`node_diagnostics`] and
/// [`element_diagnostics`](crate::solve::diagnostics::element_diagnostics) of `traj`, computed
/// once by the caller for all outputs.
pub fn summary_ok(
    scenario: &Scenario,
    traj: &Trajectory,
    diagnostics: &[NodeDiagnostics],
    elements: &[ElementDiagnostics],
    wall_seconds: f64,
) -> Value {
    let sys = &scenario.system;
    let q = traj.q_final();
    let bodies: Vec<Value> = sys
        .bodies()
        .iter()
        .enumerate()
        .map(|(b, body)| {
            let o = 12 * b;
            json!({
                "name": body.name,
                "final_position": &q[o..o + 3],
                "final_directors": [&q[o + 3..o + 6], &q[o + 6..o + 9], &q[o + 9..o + 12]],
            })
        })
        .collect();
    // = traj.constraint_violation(sys), with |Φ| at the nodes taken from `diagnostics`
    let p = traj.order.max(1);
    let (mut at_nodes, mut between_nodes) = (0.0f64, 0.0f64);
    for (k, d) in diagnostics.iter().enumerate() {
        work::visit(1);
        if k % p == 0 {
            at_nodes = at_nodes.max(d.constraint_violation);
        } else {
            between_nodes = between_nodes.max(d.constraint_violation);
        }
    }
    let between_nodes = between_nodes.max(traj.constraint_violation_at_midpoints(sys));
    let element_boundaries: Vec<NodeDiagnostics> = diagnostics
        .iter()
        .step_by(traj.order.max(1))
        .cloned()
        .collect();
    json!({
        "stmech_version": env!("CARGO_PKG_VERSION"),
        "status": "ok",
        "error": Value::Null,
        "scenario": scenario_json(scenario),
        "method": traj.method,
        "time": { "start": scenario.t_start, "end": scenario.t_end, "nodes": traj.len() },
        "bodies": bodies,
        "newton": {
            "tolerance": scenario.newton.tolerance,
            "max_iterations": scenario.newton.max_iterations,
            "total_iterations": traj.total_newton_iterations(),
            "blocks": traj.blocks,
        },
        "wall_time_seconds": wall_seconds,
        "setup_seconds": traj.setup_seconds,
        // The Petrov–Galerkin form conserves energy and angular momentum at element boundaries
        // (theory.md §3a), not at the interior nodes of p ≥ 2 elements: report both.
        "drift": drift_json(&element_boundaries),
        "drift_all_nodes": drift_json(diagnostics),
        "constraint_violation": { "max_at_element_boundaries": at_nodes, "max_inside_elements": between_nodes },
        "constraints": constraint_violations(sys, traj)
            .into_iter()
            .map(|c| {
                let label = scenario
                    .constraint_labels
                    .get(c.index)
                    .cloned()
                    .unwrap_or_else(|| format!("constraint{}", c.index));
                json!({
                    "label": label,
                    "kind": c.kind,
                    "max_at_element_boundaries": c.max_at_element_boundaries,
                    "max_inside_elements": c.max_inside_elements,
                    "max_at_block_boundaries": c.max_at_block_boundaries,
                })
            })
            .collect::<Vec<_>>(),
        "conservation": element_summary(traj, elements),
    })
}

/// `summary.json` of a run whose solver failed: status `"failed"`, the error message, and
/// where Newton stopped with its residual history.
pub fn summary_failed(scenario: &Scenario, error: &SolveError, wall_seconds: f64) -> Value {
    let failure = match error {
        SolveError::NewtonDiverged {
            block,
            t_start,
            t_end,
            iterations,
            residual,
            tolerance,
            history,
            floor,
            stalled,
            stage,
        } => json!({
            "kind": if *stalled { "newton-stalled-at-round-off" } else { "newton-diverged" },
            "stage": stage,
            "block": block,
            "t_start": t_start,
            "t_end": t_end,
            "iterations": iterations,
            "relative_residual": residual,
            "relative_floor": floor,
            "tolerance": tolerance,
            "relative_residual_history": history,
        }),
        SolveError::NonFinite {
            block,
            t_start,
            t_end,
            iteration,
        } => json!({
            "kind": "non-finite",
            "block": block,
            "t_start": t_start,
            "t_end": t_end,
            "iteration": iteration,
        }),
        SolveError::Factorization(msg) => json!({ "kind": "factorization", "message": msg }),
        SolveError::StaticLoadStep {
            reached,
            target,
            iterations,
            residual,
            cause,
        } => json!({
            "kind": "static-load-step",
            "load_factor_reached": reached,
            "load_factor_tried": target,
            "iterations": iterations,
            "residual": residual,
            "cause": cause,
        }),
    };
    json!({
        "stmech_version": env!("CARGO_PKG_VERSION"),
        "status": "failed",
        "error": error.to_string(),
        "failure": failure,
        "scenario": scenario_json(scenario),
        "method": scenario.method_description(),
        "time": { "start": scenario.t_start, "end": scenario.t_end },
        "newton": {
            "tolerance": scenario.newton.tolerance,
            "max_iterations": scenario.newton.max_iterations,
        },
        "wall_time_seconds": wall_seconds,
    })
}

/// Writes `value` as pretty JSON to `path`.
pub fn write_json(path: &Path, value: &Value) -> Result<(), OutputError> {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
    text.push('\n');
    write_text(path, &text)
}

/// Writes `text` to the file `path`; an error names the file ([`OutputError::Io`]: a full
/// disk reads "cannot write <path>: No space left on device (os error 28); the disk is full
/// …").
pub fn write_text(path: &Path, text: &str) -> Result<(), OutputError> {
    std::fs::write(path, text).map_err(io_err("write", path))
}

/// Creates the file `path` and writes it through a buffered writer that `fill` fills; the
/// buffer is flushed at the end. Every I/O error (creating, writing, flushing) is an
/// [`OutputError::Io`] that names the file.
pub fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    let file = std::fs::File::create(path).map_err(io_err("create", path))?;
    let mut w = std::io::BufWriter::new(file);
    fill(&mut w)
        .and_then(|()| w.flush())
        .map_err(io_err("write", path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::NewtonParams;
    use crate::solve::scheme::simulate;

    const SCENARIO: &str = r#"
[time]
end = 0.5
[method]
kind = "space-time"
order = 2
elements_per_block = 5
blocks = 2
[[bodies]]
name = "box"
box = { edges = [2.0, 1.0, 1.0], density = 1.5 }
velocity = [1.0, 0.0, 0.0]
angular_velocity = [0.3, 1.0, 0.2]
[[loads]]
body = "box"
kind = "body-force"
vector = [0.0, 0.0, -9.81]
"#;

    /// The scenario's trajectory (every block).
    fn solve(s: &Scenario) -> Trajectory {
        let (q0, v0) = s.system.initial_state();
        simulate(
            &s.system,
            &q0,
            &v0,
            s.t_start,
            s.t_end,
            &s.method,
            &s.newton,
            &mut |_| {},
        )
        .unwrap()
    }

    fn run() -> (Scenario, Trajectory) {
        let s = Scenario::from_toml_str(SCENARIO, "t").unwrap();
        let traj = solve(&s);
        (s, traj)
    }

    #[test]
    fn csv_has_header_and_one_row_per_node() {
        let (s, traj) = run();
        let diags = node_diagnostics(&s.system, &traj);
        let mut buf = Vec::new();
        write_trajectory_csv(&mut buf, &s.system, &traj, &diags).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), traj.len() + 1);
        let header: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(header.len(), 1 + 24 + 7);
        assert_eq!(header[0], "t [s]");
        assert_eq!(header[1], "box.x [m]");
        assert_eq!(header[4], "box.d1x [-]");
        assert_eq!(header[13], "box.px [kg m/s]");
        assert_eq!(header[31], "constraint_violation [-]");
        let last: Vec<f64> = lines[traj.len()]
            .split(',')
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(last[0], 0.5);
        assert_eq!(last[1], traj.q_final()[0]);
        // energy with gravity: potential energy is tracked and the total is nearly conserved
        assert!(diags[0].potential_energy == 0.0 && diags.last().unwrap().potential_energy != 0.0);
        let elements = crate::solve::diagnostics::element_diagnostics(&s.system, &traj);
        let summary = summary_ok(&s, &traj, &diags, &elements, 0.1);
        assert_eq!(summary["status"], "ok");
        assert_eq!(
            summary["bodies"][0]["final_directors"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        assert_eq!(summary["newton"]["blocks"].as_array().unwrap().len(), 2);
        // p = 2 Petrov–Galerkin: energy (with the linear gravity potential) is conserved at
        // element boundaries to the Newton tolerance, not at the interior nodes
        let (at_ends, all) = (
            summary["drift"]["total_energy"].as_f64().unwrap(),
            summary["drift_all_nodes"]["total_energy"].as_f64().unwrap(),
        );
        println!("energy drift: element boundaries {at_ends:e}, all nodes {all:e}");
        assert!(at_ends < 1e-9, "{at_ends:e}");
        assert!(all > 1e3 * at_ends, "{all:e}");
    }

    /// Items visited by every post-processing step of `stmech run` (node and element
    /// diagnostics, both CSV files, the summary) for `blocks` one-element blocks (p = 1).
    fn post_processing_work(blocks: usize) -> u64 {
        let toml = format!(
            r#"
[time]
end = {end}
[method]
kind = "space-time"
order = 1
elements_per_block = 1
blocks = {blocks}
[[bodies]]
name = "box"
box = {{ edges = [2.0, 1.0, 1.0], density = 1.5 }}
angular_velocity = [0.3, 1.0, 0.2]
[[loads]]
body = "box"
kind = "torque"
vector = [1.0, 1.0, 1.0]
"#,
            end = 1e-3 * blocks as f64
        );
        let s = Scenario::from_toml_str(&toml, "t").unwrap();
        let traj = solve(&s);
        assert_eq!((traj.blocks.len(), traj.n_elements()), (blocks, blocks));
        work::take();
        let diags = node_diagnostics(&s.system, &traj);
        let elements = crate::solve::diagnostics::element_diagnostics(&s.system, &traj);
        let labels = vec!["orthonormality".to_owned()];
        write_trajectory_csv_labelled(std::io::sink(), &s.system, &traj, &diags, &labels).unwrap();
        write_elements_csv(std::io::sink(), &traj, &elements).unwrap();
        let summary = summary_ok(&s, &traj, &diags, &elements, 0.0);
        assert_eq!(summary["conservation"]["elements"], blocks);
        work::take()
    }

    #[test]
    fn post_processing_work_grows_linearly_with_blocks() {
        // 4000 one-element blocks took 21 s after a 52 ms solve: the per-block bookkeeping
        // searched all blocks per element, once per block. Linear growth: 100 times the blocks
        // cost at most 110 times the work (a quadratic step would cost ~10⁴ times).
        let (small, large) = (post_processing_work(10), post_processing_work(1000));
        println!("post-processing items visited: 10 blocks {small}, 1000 blocks {large}");
        assert!(small > 0);
        assert!(large <= 110 * small, "{small} → {large}: super-linear");
        // and the constant is small: a few visits per node and element, not per block pair
        assert!(large <= 20 * 1000, "{large} visits for 1000 elements");
    }

    #[test]
    fn element_blocks_match_a_linear_search() {
        // blocks of 3, 1, 4, 1, 5 elements of h = 0.1 s, p = 2 (nodes every 0.05 s)
        let sizes = [3usize, 1, 4, 1, 5];
        let h = 0.1;
        let mut blocks = Vec::new();
        let mut t = 0.0;
        for &n in &sizes {
            blocks.push(crate::solve::BlockReport {
                t_start: t,
                t_end: t + n as f64 * h,
                newton: Default::default(),
            });
            t += n as f64 * h;
        }
        let n_el: usize = sizes.iter().sum();
        let traj = Trajectory {
            n_q: 0,
            n_lambda: 0,
            order: 2,
            times: (0..=2 * n_el).map(|k| k as f64 * 0.5 * h).collect(),
            q: Vec::new(),
            v: Vec::new(),
            lambda: Vec::new(),
            blocks,
            method: String::new(),
            setup_seconds: None,
        };
        let elements: Vec<ElementDiagnostics> = (0..n_el)
            .map(|e| ElementDiagnostics {
                t_start: e as f64 * h,
                t_end: (e + 1) as f64 * h,
                energy_start: e as f64,
                energy_end: e as f64 + 0.5,
                energy_mean: 0.0,
                angular_momentum_mean: [0.0; 3],
            })
            .collect();
        // the definition: the first block that contains the element's midpoint
        let linear = |t: f64| {
            traj.blocks
                .iter()
                .position(|b| t >= b.t_start && t <= b.t_end)
                .unwrap_or(0)
        };
        let expected: Vec<usize> = elements
            .iter()
            .map(|d| linear(0.5 * (d.t_start + d.t_end)))
            .collect();
        assert_eq!(expected, [0, 0, 0, 1, 2, 2, 2, 2, 3, 4, 4, 4, 4, 4]);
        assert_eq!(element_blocks(&traj, &elements), expected);
        for k in 0..=20 {
            let t = -0.1 + k as f64 * 0.08;
            assert_eq!(block_of(&traj, t), linear(t), "t = {t}");
        }
        // largest spread of H at element ends within one block: block 4 (elements 9..13)
        let summary = element_summary(&traj, &elements);
        assert_eq!(
            summary["max_within_one_block"]["energy_at_element_boundaries"],
            4.5
        );
    }

    #[test]
    fn failed_summary_has_history() {
        let (s, _) = run();
        let s = Scenario {
            newton: NewtonParams {
                tolerance: 1e-10,
                max_iterations: 1,
            },
            ..s
        };
        let (q0, v0) = s.system.initial_state();
        let err = simulate(
            &s.system,
            &q0,
            &v0,
            s.t_start,
            s.t_end,
            &s.method,
            &s.newton,
            &mut |_| {},
        )
        .unwrap_err();
        let v = summary_failed(&s, &err, 0.0);
        assert_eq!(v["status"], "failed");
        assert_eq!(v["failure"]["kind"], "newton-diverged");
        assert_eq!(
            v["failure"]["relative_residual_history"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }
}
