//! `run`/`check`/`compare` for spatial inverse scenarios (`analysis = "inverse"`, issue 16): a
//! thin wrapper of [`stmech_app::spatial_inverse`] (solve, closed-loop seam, files) with the
//! messages and exit codes (its `stmech compare`: [`crate::compare`]).

use crate::Failure;
use crate::progress::Progress;
use crate::run::{app_failure, output_failure};
use std::path::PathBuf;
use std::time::Instant;
use stmech::inverse::spatial::wave_speeds;
use stmech::io::output::OutputDir;
use stmech::io::scenario::SpatialInverseScenario;
use stmech_app::spatial_inverse::{
    ClosedLoop, GOAL_NOT_REACHED, NOT_VERIFIED, failed_summary, is_input_error,
};

/// One line for `stmech check`.
pub fn describe(s: &SpatialInverseScenario) -> String {
    let speeds = wave_speeds(&s.beam.section);
    let hs = s.beam.length / s.mesh.elements_s as f64;
    let body = match &s.body {
        Some(b) => format!(
            ", {} ({} kg) welded to {}:end",
            b.name, b.mass.mass, s.beam_name
        ),
        None => String::new(),
    };
    format!(
        "ok: {}: spatial inverse ({}, unknown {} at {}:start), arm {} L = {} m{body}, {} path \
         of {}, t = [{}, {}] s, mesh {} × {} (hs = {:.4} m, ht = {:.4} s, μ = {:.3}{}), slowest \
         wave {} {:.4} m/s",
        s.origin,
        s.method.name(),
        s.actuation.name(),
        s.beam_name,
        s.beam_name,
        s.beam.length,
        s.path_kind,
        s.tracked,
        s.mesh.t_start,
        s.mesh.t_end,
        s.mesh.elements_s,
        s.mesh.elements_t,
        hs,
        s.mesh.ht(),
        hs / (speeds.min() * s.mesh.ht()),
        if s.mesh_auto {
            ", time step chosen from the slowest wave"
        } else {
            ""
        },
        speeds.families[0],
        speeds.min()
    )
}

/// Solves and writes all outputs.
pub fn run(
    s: &SpatialInverseScenario,
    out: PathBuf,
    force: bool,
    plots: bool,
) -> Result<(), Failure> {
    let started = Instant::now();
    let dir = OutputDir::prepare(&out, force).map_err(output_failure)?;
    errln!("stmech: {}", describe(s).trim_start_matches("ok: "));
    let progress = Progress::start();
    let t = Instant::now();
    let result = stmech_app::spatial_inverse::solve(s);
    let secs = t.elapsed().as_secs_f64();
    progress.finish();
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
    let written = stmech_app::spatial_inverse::write_results(s, &run, secs, &dir, plots, || {
        stmech_app::spatial_inverse::closed_loop(s, &run)
    })
    .map_err(app_failure)?;
    let out = dir.commit().map_err(output_failure)?;
    let summary = &written.summary;
    let sol = &run.solution;
    match &run.march {
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
            "method of characteristics: {} nodes, fixed-point iterations {:.2} per node (max {})",
            m.nodes,
            m.iterations_total as f64 / m.nodes.max(1) as f64,
            m.iterations_max
        ),
    }
    let a = &summary["actuation"];
    let r = &summary["rigid_arm"];
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    outln!(
        "actuation (applied to the beam at s = 0): peak |F| = {:.4} N, |M| = {:.4} N·m; active \
         from t = {:.3} s to {:.3} s; rigid arm: peak |F| = {:.4} N, |M| = {:.4} N·m",
        f(&a["peak_force_N"]),
        f(&a["peak_moment_Nm"]),
        f(&a["start_time"]),
        f(&a["end_time"]),
        f(&r["peak_force_N"]),
        f(&r["peak_moment_Nm"]),
    );
    let b = &summary["base"];
    outln!(
        "base ({}:start): largest displacement {:.4e} m, rotation {:.4e} rad, peak speed {:.4} \
         m/s",
        s.beam_name,
        f(&b["max_displacement_m"]),
        f(&b["max_rotation_rad"]),
        f(&b["peak_speed_m_per_s"]),
    );
    outln!("{}", tracking_line(s, &written.closed_loop));
    let servo = &summary["servo_residual_at_nodes"];
    outln!(
        "servo residual at the inverse mesh's nodes (not the tracking error): {:.1e} m, {:.1e} \
         rad",
        f(&servo["max_position_m"]),
        f(&servo["max_angle_rad"]),
    );
    outln!(
        "wall time: {secs:.3} s solve, {:.3} s total",
        started.elapsed().as_secs_f64()
    );
    outln!("output: {} ({})", out.display(), written.files.join(", "));
    match written.failure {
        None => Ok(()),
        Some(msg) => {
            // a replay that failed by itself neither confirms nor refutes the result
            let unverified = matches!(written.closed_loop, Some(Err(_)));
            let (code, status) = if unverified {
                (Failure::NOT_VERIFIED, NOT_VERIFIED)
            } else {
                (Failure::GOAL_NOT_REACHED, GOAL_NOT_REACHED)
            };
            Err(Failure::new(
                code,
                anyhow::anyhow!(
                    "{msg}\nThe results are written to {} for inspection; summary.json says \
                     status = \"{status}\".",
                    out.display()
                ),
            ))
        }
    }
}

/// One screen line of the closed loop.
pub(crate) fn tracking_line(s: &SpatialInverseScenario, c: &ClosedLoop) -> String {
    let (tp, ta) = s.tracking_tolerance();
    match c {
        Some(Ok((r, secs))) => format!(
            "tracking (closed loop, {secs:.2} s): {} strays up to {:.3e} m (t = {:.3} s; \
             tolerance {tp:.3e} m) and {:.3e} rad (t = {:.3} s; tolerance {ta:.3e} rad){}",
            s.tracked,
            r.max_position,
            r.position_at,
            r.max_angle,
            r.angle_at,
            if r.max_position <= tp && r.max_angle <= ta {
                ""
            } else {
                ": GOAL NOT REACHED"
            }
        ),
        Some(Err(e)) => format!("tracking (closed loop): FAILED: {e}"),
        None if !s.verify.closed_loop => {
            "tracking (closed loop): not verified (inverse.verify.closed_loop = false)".into()
        }
        None => "tracking (closed loop): not verified (the closed-loop replay of the spatial \
                 actuation is not available yet)"
            .into(),
    }
}
