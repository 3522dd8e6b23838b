//! `run`/`demo crane`/`check` for crane scenarios (`problem = "crane"`, issue 17): a thin
//! wrapper of [`stmech_app::crane`] (solve, closed-loop replay, files) with the messages and
//! exit codes.

use crate::Failure;
use crate::run::output_failure;
use std::path::PathBuf;
use std::time::Instant;
use stmech::io::inverse_scenario::crane::CraneScenario;
use stmech::io::output::OutputDir;
use stmech_app::crane::{NOT_VERIFIED, failed_summary, is_input_error, rigid_difference};

/// Built-in crane demo.
pub const DEMO_SCENARIO: &str = include_str!("../../../examples/crane/01_swing_free_transfer.toml");
/// Where the demo comes from.
pub const DEMO_ORIGIN: &str = "examples/crane/01_swing_free_transfer.toml (built in)";

/// One line for `stmech check`.
pub fn describe(s: &CraneScenario) -> String {
    format!(
        "ok: {}: crane ({}), rope L = {} m, ρA = {} kg/m, EA = {} N, payload {} kg, \
         t = [{}, {}] s, mesh {} × {} (hs = {:.4} m, ht = {:.4} s{})",
        s.origin,
        match s.method {
            stmech::inverse::InverseMethod::SpaceTime => "space-time FEM",
            stmech::inverse::InverseMethod::Characteristics => "method of characteristics",
        },
        s.rope.length,
        s.rope.rho_a,
        s.rope.ea,
        s.rope.payload_mass,
        s.mesh.t_start,
        s.mesh.t_end,
        s.mesh.elements_s,
        s.mesh.elements_t,
        s.rope.length / s.mesh.elements_s as f64,
        s.mesh.ht(),
        if s.mesh_auto {
            ", time step chosen from the slowest transverse wave"
        } else {
            ""
        }
    )
}

/// Runs the built-in crane demo.
pub fn run_demo(
    out: PathBuf,
    force: bool,
    limit: stmech::resources::MemoryLimit,
) -> Result<(), Failure> {
    let s = CraneScenario::from_toml_str(DEMO_SCENARIO, DEMO_ORIGIN)
        .map_err(crate::scenario_failure)?;
    crate::limits::gate(DEMO_ORIGIN, &stmech::resources::estimate_crane(&s), limit)?;
    let plots = s.plots;
    run(&s, out, force, plots)
}

/// Solves and writes all outputs.
pub fn run(s: &CraneScenario, out: PathBuf, force: bool, plots: bool) -> Result<(), Failure> {
    let started = Instant::now();
    let dir = OutputDir::prepare(&out, force).map_err(output_failure)?;
    errln!("stmech: {}", describe(s).trim_start_matches("ok: "));
    let t = Instant::now();
    let result = stmech_app::crane::solve(s);
    let secs = t.elapsed().as_secs_f64();
    let sol = match result {
        Ok(sol) => sol,
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
    let written = stmech_app::crane::write_results(s, &sol, secs, &dir, plots, || {
        stmech_app::crane::replay(s, &sol)
    })
    .map_err(crate::run::app_failure)?;
    let out = dir.commit().map_err(output_failure)?;
    let summary = &written.summary;
    match &sol.march {
        None => outln!(
            "Newton (started from {}): {} iterations, residuals {}",
            sol.solution.newton.start.name(),
            sol.solution.newton.iterations,
            sol.solution
                .newton
                .residuals
                .iter()
                .map(|r| format!("{r:.1e}"))
                .collect::<Vec<_>>()
                .join(" → ")
        ),
        Some(m) => outln!(
            "method of characteristics: {} nodes, fixed-point iterations {:.2} per node (max \
             {}), speeds {:.4}-{:.4} m/s, hs/(c_min ht) = {:.3} (not limited)",
            m.nodes,
            m.iterations_total as f64 / m.nodes.max(1) as f64,
            m.iterations_max,
            m.speed_range[0],
            m.speed_range[1],
            sol.courant
        ),
    }
    if let Some(c) = &sol.continuation
        && c.stiffnesses.iter().any(|&ea| ea != s.rope.ea)
    {
        outln!(
            "stiffness continuation (Newton failed from the rigid rope): EA = {} N, {} Newton \
             iterations in all",
            c.stiffnesses
                .iter()
                .map(|ea| format!("{ea:.3e}"))
                .collect::<Vec<_>>()
                .join(" → "),
            c.iterations
        );
    }
    let (dx, _) = rigid_difference(s, &sol);
    outln!(
        "suspension point: peak speed {:.4} m/s, peak force {:.4} N; largest distance from \
         the rigid-rope flat output y + L(ÿ − g)/|ÿ − g|: {dx:.4e} m",
        summary["suspension"]["peak_speed"]
            .as_f64()
            .unwrap_or(f64::NAN),
        summary["suspension"]["peak_force"]
            .as_f64()
            .unwrap_or(f64::NAN),
    );
    let tol = s.position_tolerance();
    match &written.replay {
        Some(Ok(((r, _), _))) => outln!(
            "payload tracking (closed loop: the suspension motion drives the forward rope, {} \
             elements, Δt = {:.3e} s): max deviation {:.3e} m at t = {:.3} s (tolerance {tol:.3e} m)",
            r.elements_s,
            r.dt,
            r.max_deviation,
            r.at
        ),
        Some(Err(e)) if stmech_app::crane::replay_unverified(e, tol) => {
            outln!("payload tracking: NOT VERIFIED (the forward replay failed): {e}")
        }
        Some(Err(e)) => outln!("payload tracking: forward replay failed: {e}"),
        None => outln!("payload tracking: not verified (verify.closed_loop = false)"),
    }
    outln!(
        "wall time: {secs:.3} s solve, {:.3} s total",
        started.elapsed().as_secs_f64()
    );
    outln!("output: {} ({})", out.display(), written.files.join(", "));
    match written.failure {
        None => Ok(()),
        Some(msg) => {
            let status = summary["status"].as_str().unwrap_or_default().to_owned();
            Err(Failure::new(
                if status == NOT_VERIFIED {
                    Failure::NOT_VERIFIED
                } else {
                    Failure::GOAL_NOT_REACHED
                },
                anyhow::anyhow!(
                    "{msg}\nThe results are written to {} for inspection; summary.json says \
                     status = \"{status}\".",
                    out.display()
                ),
            ))
        }
    }
}
