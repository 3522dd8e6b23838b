//! A static multibody scenario (`analysis = "static"`): load stepping on the one model, then
//! `nodes.csv` (final placement and directors of every body and beam node), `load_steps.csv`
//! (load factor, Newton iterations, end-node positions of every beam), a VTK series of the
//! load path, `load_path.png` and `summary.json`.

use crate::AppError;
use crate::plots::{self, Series};
use serde_json::json;
use std::fmt::Write as _;
use std::time::Instant;
use stmech::error::SolveError;
use stmech::io::output::{self, OutputDir, scene};
use stmech::io::scenario::Scenario;
use stmech::io::vtk;
use stmech::model::ConstrainedSystem;
use stmech::solve::statics::{StaticSolution, solve_static};

/// Solves a static scenario by load stepping from its initial state. Returns `None` for a
/// dynamic scenario.
pub fn solve(scenario: &Scenario) -> Option<Result<StaticSolution, SolveError>> {
    let params = scenario.statics.as_ref()?;
    let (q0, _) = scenario.system.initial_state();
    Some(solve_static(&scenario.system, &q0, params))
}

/// The frames whose load path is recorded: the end nodes of every beam, or the bodies'
/// reference points without beams (name, frame index).
pub fn path_frames(scenario: &Scenario) -> Vec<(String, usize)> {
    if scenario.beams.is_empty() {
        scenario
            .system
            .bodies()
            .iter()
            .enumerate()
            .map(|(b, body)| (body.name.clone(), b))
            .collect()
    } else {
        scenario
            .beams
            .iter()
            .flat_map(|b| {
                [
                    (format!("{}:start", b.name), b.first_frame),
                    (format!("{}:end", b.name), b.first_frame + b.nodes - 1),
                ]
            })
            .collect()
    }
}

/// What [`write_results`] wrote.
pub struct Written {
    /// The run summary (also in `summary.json`).
    pub summary: serde_json::Value,
    /// The files written, for messages.
    pub files: Vec<&'static str>,
    /// Largest constraint violation at the solution.
    pub constraint_violation: f64,
}

/// Writes every result file of a solved static scenario into `dir`, `summary.json` last.
pub fn write_results(
    scenario: &Scenario,
    sol: &StaticSolution,
    dir: &OutputDir,
    plot: bool,
    solve_seconds: f64,
) -> Result<Written, AppError> {
    let output_start = Instant::now();
    let sys = &scenario.system;
    let (q0, _) = sys.initial_state();
    let nq = sys.n_q();
    let write = |name: &str, text: &str| -> Result<(), AppError> {
        let path = dir.file(name);
        std::fs::write(&path, text).map_err(|source| AppError::io(path, source))
    };
    write("nodes.csv", &scene::nodes_csv(sys, &sol.q))?;
    let ends = path_frames(scenario);
    let mut csv = String::from("load_factor [-],newton_iterations [-]");
    for (name, _) in &ends {
        for c in ["x", "y", "z"] {
            let _ = write!(csv, ",{name}.{c} [m]");
        }
    }
    csv.push('\n');
    let mut path_series: Vec<Series> = ends
        .iter()
        .flat_map(|(name, _)| {
            ["x", "y", "z"].map(|c| Series {
                label: format!("{name}.{c}"),
                points: vec![],
            })
        })
        .collect();
    let mut snaps = vec![scene::snapshot(sys, &q0, 0.0)];
    for (k, step) in sol.steps.iter().enumerate() {
        let q = &sol.history[k * nq..(k + 1) * nq];
        let _ = write!(csv, "{:e},{}", step.load_factor, step.newton.iterations);
        for (e, (_, f)) in ends.iter().enumerate() {
            for c in 0..3 {
                let _ = write!(csv, ",{:e}", q[12 * f + c]);
                path_series[3 * e + c]
                    .points
                    .push((step.load_factor, q[12 * f + c] - q0[12 * f + c]));
            }
        }
        csv.push('\n');
        snaps.push(scene::snapshot(sys, q, step.load_factor));
    }
    write("load_steps.csv", &csv)?;
    // at most MAX_SNAPSHOTS frames of the load path (the last always)
    let every = snaps.len().div_ceil(scene::MAX_SNAPSHOTS).max(1);
    let last = snaps.len() - 1;
    let snaps: Vec<_> = snaps
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % every == 0 || *k == last)
        .map(|(_, s)| s)
        .collect();
    let mut files = vec!["nodes.csv", "load_steps.csv", "summary.json"];
    vtk::write_scene_series(dir.path(), "scene", &snaps)?;
    files.push("scene.pvd (+ scene_NNNN.vtu)");
    if plot {
        plots::xy_chart(
            &dir.file("load_path.png"),
            "Load path: displacement of the beam ends",
            "load factor [-]",
            "displacement [m]",
            &path_series,
        )
        .map_err(|e| AppError::write(&e))?;
        files.push("load_path.png");
    }
    let mut summary = summary(scenario, sol, solve_seconds);
    summary["output_wall_time_seconds"] = output_start.elapsed().as_secs_f64().into();
    output::write_json(&dir.file("summary.json"), &summary)?;
    let constraint_violation = summary["constraint_violation"].as_f64().unwrap_or(f64::NAN);
    Ok(Written {
        summary,
        files,
        constraint_violation,
    })
}

/// `summary.json` of a solved static scenario (without `output_wall_time_seconds`).
pub fn summary(scenario: &Scenario, sol: &StaticSolution, solve_seconds: f64) -> serde_json::Value {
    let time = scenario.statics.as_ref().map_or(0.0, |p| p.time);
    let nodes: Vec<serde_json::Value> = path_frames(scenario)
        .iter()
        .map(|(name, f)| {
            json!({
                "name": name,
                "position": &sol.q[12 * f..12 * f + 3],
                "directors": [&sol.q[12 * f + 3..12 * f + 6], &sol.q[12 * f + 6..12 * f + 9], &sol.q[12 * f + 9..12 * f + 12]],
            })
        })
        .collect();
    let phi = constraint_violation(scenario, sol, time);
    json!({
        "stmech_version": crate::VERSION,
        "status": "ok",
        "analysis": "static",
        "scenario": { "origin": scenario.origin, "input": scenario.echo },
        "method": scenario.method_description(),
        "beams": scenario.beams,
        "final": nodes,
        "strain_energy": scene::strain_energy(&scenario.system, &sol.q),
        "constraint_violation": phi,
        "load_steps": sol.steps,
        "total_newton_iterations": sol.steps.iter().map(|s| s.newton.iterations).sum::<usize>(),
        "wall_time_seconds": solve_seconds,
    })
}

/// Largest `|Φ|` of the constraints at the solution.
pub fn constraint_violation(scenario: &Scenario, sol: &StaticSolution, time: f64) -> f64 {
    let sys = &scenario.system;
    let mut ev = sys.new_point_eval();
    sys.eval(time, &sol.q, &sol.lambda, &mut ev, false);
    ev.phi.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}
