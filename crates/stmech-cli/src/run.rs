//! The `run` pipeline: scenario → output directory → solve → files → summary on stdout.

use crate::Failure;
use crate::progress::Progress;
use std::path::{Path, PathBuf};
use std::time::Instant;
use stmech::io::output::{OutputDir, OutputError};
use stmech::io::scenario::Scenario;
use stmech::solve::Trajectory;

/// What `run` and `demo` need besides the scenario.
pub struct RunOptions {
    /// Final output directory.
    pub out: PathBuf,
    /// Replace an existing output directory.
    pub force: bool,
    /// Draw PNG plots.
    pub plots: bool,
}

/// Exit code of a failure to write results: 2 if the target is refused, 4 otherwise.
pub(crate) fn app_failure(e: stmech_app::AppError) -> Failure {
    let code = if e.is_input() {
        Failure::INPUT
    } else {
        Failure::IO
    };
    Failure::new(code, e)
}

/// A solve that failed: writes the failed `summary` into `dir` (marked failed, never a result
/// that looks complete) and returns the failure with exit `code`, pointing at the summary.
pub(crate) fn solve_failure(
    dir: OutputDir,
    summary: &serde_json::Value,
    e: impl std::fmt::Display,
    code: u8,
) -> Failure {
    let error = match dir.fail(summary) {
        Ok(failed) => anyhow::anyhow!(
            "{e}\nNewton history and details: {}",
            failed.join("summary.json").display()
        ),
        Err(w) => anyhow::anyhow!("{e}\n(saving the failure summary failed too: {w})"),
    };
    Failure::new(code, error)
}

pub(crate) fn output_failure(e: OutputError) -> Failure {
    let code = if e.is_input() {
        Failure::INPUT
    } else {
        Failure::IO
    };
    Failure::new(code, e)
}

/// Solves `scenario` and writes its results to `opts.out` (see [`OutputDir`]).
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<(), Failure> {
    if scenario.statics.is_some() {
        return crate::static_run::run(scenario, opts);
    }
    let started = Instant::now();
    // Before solving: a result that cannot be saved should not cost a long solve first.
    let dir = OutputDir::prepare(&opts.out, opts.force).map_err(output_failure)?;
    errln!(
        "stmech: {} on t = [{}, {}] s with {}",
        scenario.origin,
        scenario.t_start,
        scenario.t_end,
        scenario.method_description()
    );
    let progress = Progress::start();
    let solve_start = Instant::now();
    let result = stmech_app::multibody::solve(scenario, &mut |fraction| progress.set(fraction));
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    progress.finish();
    let traj = match result {
        Ok(traj) => traj,
        Err(e) => {
            let summary = stmech_app::multibody::failed_summary(scenario, &e, solve_seconds);
            return Err(crate::run::solve_failure(dir, &summary, e, Failure::SOLVER));
        }
    };
    let written =
        stmech_app::multibody::write_results(scenario, &traj, &dir, opts.plots, solve_seconds)
            .map_err(app_failure)?;
    let out = dir.commit().map_err(output_failure)?;
    print_summary(
        scenario,
        &traj,
        &written.summary,
        &out,
        &written.plot_files,
        started.elapsed().as_secs_f64(),
    );
    Ok(())
}

fn fmt_vec(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.6}")).collect();
    format!("({})", parts.join(", "))
}

fn print_summary(
    scenario: &Scenario,
    traj: &Trajectory,
    summary: &serde_json::Value,
    out: &Path,
    plot_files: &[&str],
    total_seconds: f64,
) {
    let q = traj.q_final();
    outln!("{}", traj.method);
    for b in &scenario.beams {
        let f = b.first_frame + b.nodes - 1;
        outln!(
            "{}:end at t = {} s: position {} m",
            b.name,
            scenario.t_end,
            fmt_vec(&q[12 * f..12 * f + 3])
        );
    }
    for (b, body) in scenario.system.bodies().iter().enumerate() {
        let o = 12 * b;
        outln!("{} at t = {} s:", body.name, scenario.t_end);
        outln!("  reference point {} m", fmt_vec(&q[o..o + 3]));
        for i in 0..3 {
            outln!(
                "  d{} = {}",
                i + 1,
                fmt_vec(&q[o + 3 + 3 * i..o + 6 + 3 * i])
            );
        }
    }
    let f = |path: &[&str]| {
        path.iter()
            .fold(summary, |v, k| &v[*k])
            .as_f64()
            .map_or_else(|| "n/a".to_owned(), |x| format!("{x:.3e}"))
    };
    outln!(
        "Newton iterations: {} in {} block{}",
        traj.total_newton_iterations(),
        traj.blocks.len(),
        if traj.blocks.len() == 1 { "" } else { "s" }
    );
    outln!(
        "max |Φ|: {} at element boundaries, {} inside elements; total energy drift {} J \
         at element boundaries ({} J over all nodes)",
        f(&["constraint_violation", "max_at_element_boundaries"]),
        f(&["constraint_violation", "max_inside_elements"]),
        f(&["conservation", "energy_at_element_boundaries_drift"]),
        f(&["drift", "total_energy"])
    );
    outln!(
        "wall time: {:.3} s solve, {total_seconds:.3} s total",
        summary["wall_time_seconds"].as_f64().unwrap_or(0.0)
    );
    let mut files = vec![
        "trajectory.csv",
        "elements.csv",
        "summary.json",
        "scene.pvd (+ scene_NNNN.vtu)",
    ];
    files.extend_from_slice(plot_files);
    outln!("output: {} ({})", out.display(), files.join(", "));
}
