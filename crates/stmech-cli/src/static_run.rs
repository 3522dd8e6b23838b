//! `run` of a static multibody scenario (`analysis = "static"`): load stepping on the one
//! model; the files are written by `stmech_app::statics` (`nodes.csv`, `load_steps.csv`, a
//! VTK series of the load path, `load_path.png` and `summary.json`).

use crate::Failure;
use crate::run::{RunOptions, app_failure, output_failure};
use std::time::Instant;
use stmech::io::output::{self, OutputDir};
use stmech::io::scenario::Scenario;

/// Solves the static scenario and writes its results.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<(), Failure> {
    let started = Instant::now();
    let dir = OutputDir::prepare(&opts.out, opts.force).map_err(output_failure)?;
    errln!(
        "stmech: {}: {}",
        scenario.origin,
        scenario.method_description()
    );
    let solve_start = Instant::now();
    let result = stmech_app::statics::solve(scenario)
        .expect("static_run::run is called for static scenarios");
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    let sol = match result {
        Ok(sol) => sol,
        Err(e) => {
            let summary = output::summary_failed(scenario, &e, solve_seconds);
            return Err(crate::run::solve_failure(dir, &summary, e, Failure::SOLVER));
        }
    };
    let written =
        stmech_app::statics::write_results(scenario, &sol, &dir, opts.plots, solve_seconds)
            .map_err(app_failure)?;
    let out = dir.commit().map_err(output_failure)?;
    let summary = &written.summary;
    outln!("{}", scenario.method_description());
    for n in summary["final"].as_array().into_iter().flatten() {
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
        written.constraint_violation
    );
    outln!(
        "wall time: {solve_seconds:.3} s solve, {:.3} s total",
        started.elapsed().as_secs_f64()
    );
    outln!("output: {} ({})", out.display(), written.files.join(", "));
    Ok(())
}
