//! `run` of a static multibody scenario (`analysis = "static"`): load stepping on the one
//! model, then `nodes.csv` (final placement and directors of every body and beam node),
//! `load_steps.csv` (load factor, Newton iterations, end-node positions of every beam), a VTK
//! series of the load path, `load_path.png` and `summary.json`.

use crate::Failure;
use crate::plots::{self, Series};
use crate::run::{RunOptions, output_failure};
use serde_json::json;
use std::fmt::Write as _;
use std::time::Instant;
use stmech::io::output::{self, OutputDir, scene};
use stmech::io::scenario::Scenario;
use stmech::io::vtk;
use stmech::model::ConstrainedSystem;
use stmech::solve::statics::solve_static;

/// Solves the static scenario and writes its results.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<(), Failure> {
    let started = Instant::now();
    let params = scenario
        .statics
        .clone()
        .expect("static_run::run is called for static scenarios");
    let dir = OutputDir::prepare(&opts.out, opts.force).map_err(output_failure)?;
    errln!(
        "stmech: {}: {}",
        scenario.origin,
        scenario.method_description()
    );
    let sys = &scenario.system;
    let (q0, _) = sys.initial_state();
    let solve_start = Instant::now();
    let result = solve_static(sys, &q0, &params);
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    let sol = match result {
        Ok(sol) => sol,
        Err(e) => {
            let summary = output::summary_failed(scenario, &e, solve_seconds);
            let error = match dir.fail(&summary) {
                Ok(failed) => anyhow::anyhow!(
                    "{e}\nNewton history and details: {}",
                    failed.join("summary.json").display()
                ),
                Err(w) => anyhow::anyhow!("{e}\n(saving the failure summary failed too: {w})"),
            };
            return Err(Failure::new(Failure::SOLVER, error));
        }
    };
    let output_start = Instant::now();
    let nq = sys.n_q();
    let write = |name: &str, text: &str| -> Result<(), Failure> {
        let path = dir.file(name);
        std::fs::write(&path, text)
            .map_err(|source| output::OutputError::Io {
                action: "write",
                path,
                source,
            })
            .map_err(output_failure)
    };
    write("nodes.csv", &scene::nodes_csv(sys, &sol.q))?;
    // load path: end nodes of every beam (or body reference points without beams)
    let ends: Vec<(String, usize)> = if scenario.beams.is_empty() {
        sys.bodies()
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
    };
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
    vtk::write_scene_series(dir.path(), "scene", &snaps).map_err(|source| {
        output_failure(output::OutputError::Io {
            action: "write",
            path: dir.file("scene.pvd"),
            source,
        })
    })?;
    files.push("scene.pvd (+ scene_NNNN.vtu)");
    if opts.plots {
        plots::xy_chart(
            &dir.file("load_path.png"),
            "Load path: displacement of the beam ends",
            "load factor [-]",
            "displacement [m]",
            &path_series,
        )
        .map_err(|e| Failure::new(Failure::IO, e))?;
        files.push("load_path.png");
    }
    let nodes: Vec<serde_json::Value> = ends
        .iter()
        .map(|(name, f)| {
            json!({
                "name": name,
                "position": &sol.q[12 * f..12 * f + 3],
                "directors": [&sol.q[12 * f + 3..12 * f + 6], &sol.q[12 * f + 6..12 * f + 9], &sol.q[12 * f + 9..12 * f + 12]],
            })
        })
        .collect();
    let mut ev = sys.new_point_eval();
    sys.eval(params.time, &sol.q, &sol.lambda, &mut ev, false);
    let phi = ev.phi.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let summary = json!({
        "stmech_version": env!("CARGO_PKG_VERSION"),
        "status": "ok",
        "analysis": "static",
        "scenario": { "origin": scenario.origin, "input": scenario.echo },
        "method": scenario.method_description(),
        "beams": scenario.beams,
        "final": nodes,
        "strain_energy": scene::strain_energy(sys, &sol.q),
        "constraint_violation": phi,
        "load_steps": sol.steps,
        "total_newton_iterations": sol.steps.iter().map(|s| s.newton.iterations).sum::<usize>(),
        "wall_time_seconds": solve_seconds,
        "output_wall_time_seconds": output_start.elapsed().as_secs_f64(),
    });
    output::write_json(&dir.file("summary.json"), &summary).map_err(output_failure)?;
    let out = dir.commit().map_err(output_failure)?;
    outln!("{}", scenario.method_description());
    for n in &nodes {
        outln!(
            "{}: position {} m",
            n["name"].as_str().unwrap_or(""),
            n["position"]
        );
    }
    outln!(
        "Newton iterations: {} in {} load steps; max |Φ| {:.3e}",
        summary["total_newton_iterations"],
        sol.steps.len(),
        phi
    );
    outln!(
        "wall time: {solve_seconds:.3} s solve, {:.3} s total",
        started.elapsed().as_secs_f64()
    );
    outln!("output: {} ({})", out.display(), files.join(", "));
    Ok(())
}
