//! `run`/`demo`/`check` for beam inverse scenarios (`problem = "beam-inverse"`). The solve,
//! the closed-loop verification and the files (`actuation.csv`, `tip.csv`, `actuation.png`,
//! `snapshots.png`, `summary.json`) are `stmech_app::inverse`'s; here: the output directory,
//! messages and exit codes.

use crate::Failure;
use std::path::{Path, PathBuf};
use std::time::Instant;
use stmech::io::inverse_scenario::InverseScenario;
use stmech::io::output::OutputDir;
pub(crate) use stmech_app::inverse::{GOAL_NOT_REACHED, Verification, servo_residual, verify};
use stmech_app::inverse::{failed_summary, is_input_error, unstable_warning};

/// Built-in demo: `[I]` Example 3.2.
pub const DEMO_SCENARIO: &str = include_str!("../../../examples/beam_inverse/example_3_2.toml");
/// Where the demo comes from.
pub const DEMO_ORIGIN: &str = "examples/beam_inverse/example_3_2.toml (built in)";

use crate::run::{app_failure, output_failure};

/// One line for `stmech check`.
pub fn describe(s: &InverseScenario) -> String {
    format!(
        "ok: {}: beam-inverse ({}), L = {} m, {:?} law, t = [{}, {}] s, mesh {} × {} (hs = {:.4} m, ht = {:.4} s{})",
        s.origin,
        s.method.name(),
        s.beam.length,
        s.beam.law,
        s.mesh.t_start,
        s.mesh.t_end,
        s.mesh.elements_s,
        s.mesh.elements_t,
        s.beam.length / s.mesh.elements_s as f64,
        s.mesh.ht(),
        if s.mesh_auto {
            ", time step chosen from the wave speeds"
        } else {
            ""
        }
    )
}

/// The built-in demo scenario.
pub fn load_demo() -> Result<InverseScenario, Failure> {
    InverseScenario::from_toml_str(DEMO_SCENARIO, DEMO_ORIGIN, Path::new("."))
        .map_err(crate::scenario_failure)
}

/// Runs the built-in demo.
pub fn run_demo(
    out: PathBuf,
    force: bool,
    limit: stmech::resources::MemoryLimit,
) -> Result<(), Failure> {
    let s = load_demo()?;
    let est = stmech::resources::estimate_inverse(&s);
    crate::limits::gate(DEMO_ORIGIN, &est, limit)?;
    let plots = s.plots;
    run(&s, out, force, plots)
}

/// Solves and writes all outputs.
pub fn run(s: &InverseScenario, out: PathBuf, force: bool, plots: bool) -> Result<(), Failure> {
    let started = Instant::now();
    let dir = OutputDir::prepare(&out, force).map_err(output_failure)?;
    errln!("stmech: {}", describe(s).trim_start_matches("ok: "));
    if let Some(warning) = unstable_warning(s) {
        errln!("stmech: warning: {warning}");
    }
    let t = Instant::now();
    let result = stmech_app::inverse::solve(s);
    let secs = t.elapsed().as_secs_f64();
    let run = match result {
        Ok(run) => run,
        Err(e) => {
            let code = if is_input_error(&e) {
                Failure::INPUT
            } else {
                Failure::SOLVER
            };
            let summary = failed_summary(s, &e, secs);
            return Err(crate::run::solve_failure(dir, &summary, e, code));
        }
    };
    let samples = run.solution.actuation_samples();
    let written =
        stmech_app::inverse::write_results(s, &run, secs, &dir, plots, || verify(s, &samples))
            .map_err(app_failure)?;
    let out = dir.commit().map_err(output_failure)?;
    let (sol, march, summary, verification) = (
        &run.solution,
        &run.march,
        &written.summary,
        &written.verification,
    );
    let failed = verification.failure();
    let p = &summary["actuation"];
    match &march {
        None => outln!(
            "Newton (started from {}): {} iterations, residuals {}",
            sol.newton.start.name(),
            sol.newton.iterations,
            sol.newton
                .residuals
                .iter()
                .map(|r| format!("{r:.1e}"))
                .collect::<Vec<_>>()
                .join(" → ")
        ),
        Some(m) => outln!(
            "characteristics: {} nodes marched, fixed-point iterations max {} (mean {:.2}), \
             characteristic speeds {:.4}..{:.4} m/s",
            m.nodes,
            m.iterations_max,
            m.iterations_total as f64 / m.nodes.max(1) as f64,
            m.speed_range[0],
            m.speed_range[1]
        ),
    }
    outln!(
        "actuation (applied to the beam at s = 0): peak |f_x| = {:.4} N, |f_y| = {:.4} N, |m| = {:.4} N·m; active from t = {:.3} s to {:.3} s",
        p["peak_abs"][0].as_f64().unwrap_or(f64::NAN),
        p["peak_abs"][1].as_f64().unwrap_or(f64::NAN),
        p["peak_abs"][2].as_f64().unwrap_or(f64::NAN),
        p["start_time"].as_f64().unwrap_or(f64::NAN),
        p["end_time"].as_f64().unwrap_or(f64::NAN),
    );
    outln!("{}", verification.line());
    let servo = servo_residual(s, sol);
    outln!(
        "servo residual at the inverse mesh's nodes (|x(L, t_j) − γ(t_j)|, not the tracking \
         error): {:.1e} m, {:.1e} rad",
        servo[0],
        servo[1]
    );
    outln!(
        "wall time: {secs:.3} s solve, {:.3} s total",
        started.elapsed().as_secs_f64()
    );
    outln!("output: {} ({})", out.display(), written.files.join(", "));
    match failed {
        None => Ok(()),
        Some(msg) => Err(Failure::new(
            if verification.unverified() {
                Failure::NOT_VERIFIED
            } else {
                Failure::GOAL_NOT_REACHED
            },
            anyhow::anyhow!(
                "{msg}\nThe results are written to {} for inspection; summary.json says \
                 status = \"{}\".",
                out.display(),
                verification.status()
            ),
        )),
    }
}
