//! `stmech run` / `check` for planar-beam scenarios (`problem = "beam"`). The solve and the
//! files (`tip.csv`, `energy.csv`, `beam.pvd` + `beam_NNNN.vtu`, `shapes.png`,
//! `summary.json`) are `stmech_app::beam`'s; here: the output directory, messages and codes.

use crate::Failure;
use crate::run::{app_failure, output_failure as out_fail};
use std::path::Path;
use std::time::Instant;
use stmech::io::beam_scenario::{BeamAnalysis, BeamScenario};
use stmech::io::output::OutputDir;
use stmech_app::beam::method_name;

/// The `check` line of a beam scenario.
pub fn describe(s: &BeamScenario) -> String {
    let m = &s.model;
    let analysis = match s.analysis {
        BeamAnalysis::Static { steps } => format!("static, {steps} load steps"),
        BeamAnalysis::Dynamic { end, step } => format!(
            "dynamic to t = {end} s, Δt = {step} s, {}",
            method_name(s.method)
        ),
    };
    format!(
        "ok: {}: beam L = {} m, {} elements of order {}, {} point load(s), {analysis}",
        s.origin,
        m.spec.length,
        m.spec.elements,
        m.spec.order,
        m.spec.point_loads.len()
    )
}

/// Runs a beam scenario.
pub fn run(sc: &BeamScenario, out: &Path, force: bool, no_plots: bool) -> Result<(), Failure> {
    let started = Instant::now();
    let dir = OutputDir::prepare(out, force).map_err(out_fail)?;
    errln!(
        "stmech: {} (planar beam, {} unknowns)",
        sc.origin,
        sc.model.n_dofs()
    );
    let result = stmech_app::beam::solve(sc);
    let solve_seconds = started.elapsed().as_secs_f64();
    let outcome = match result {
        Ok(v) => v,
        Err(e) => {
            let summary = stmech_app::beam::failed_summary(sc, &e, solve_seconds);
            return Err(crate::run::solve_failure(dir, &summary, e, Failure::SOLVER));
        }
    };
    let written =
        stmech_app::beam::write_results(sc, &outcome, &dir, sc.plots && !no_plots, solve_seconds)
            .map_err(app_failure)?;
    let out = dir.commit().map_err(out_fail)?;
    let results = &outcome.results;
    outln!("tip: {}", results["tip"]);
    if let Some(e) = results.get("energy") {
        outln!("energy: {e}");
    }
    outln!(
        "wall time {:.3} s; output: {} ({})",
        started.elapsed().as_secs_f64(),
        out.display(),
        written.files.join(", ")
    );
    Ok(())
}
