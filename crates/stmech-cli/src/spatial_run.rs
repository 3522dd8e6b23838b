//! `run`/`check`/`compare` for spatial inverse scenarios (`analysis = "inverse"`, issue 16): a
//! thin wrapper of [`stmech_app::spatial_inverse`] (solve, closed-loop seam, files) with the
//! messages and exit codes, and `stmech compare` of both inverse methods on one scenario.

use crate::Failure;
use crate::console::csv_field;
use crate::progress::Progress;
use crate::run::{app_failure, output_failure};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;
use stmech::inverse::InverseMethod;
use stmech::inverse::spatial::{SpatialRun, solve_with, wave_speeds};
use stmech::io::output::OutputDir;
use stmech::io::scenario::SpatialInverseScenario;
use stmech_app::spatial_inverse::{
    ClosedLoop, GOAL_NOT_REACHED, Rows, actuation_series, failed_summary, is_input_error,
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
        Some(msg) => Err(Failure::new(
            Failure::GOAL_NOT_REACHED,
            anyhow::anyhow!(
                "{msg}\nThe results are written to {} for inspection; summary.json says \
                 status = \"{GOAL_NOT_REACHED}\".",
                out.display()
            ),
        )),
    }
}

/// One screen line of the closed loop.
fn tracking_line(s: &SpatialInverseScenario, c: &ClosedLoop) -> String {
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

/// Why there is no sequential row.
const NO_SEQUENTIAL: &str = "the sequential baseline ([I] Sect. 2) of the beam's compare has no \
     spatial counterpart in stmech: rows for the two field methods only";

struct Row {
    method: InverseMethod,
    status: String,
    seconds: f64,
    run: Option<(SpatialRun, Rows)>,
    tracking: ClosedLoop,
    note: String,
}

fn norm(a: &[f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn solve_row(s: &SpatialInverseScenario, method: InverseMethod) -> Row {
    let started = Instant::now();
    let path = s.tip_path();
    let result = solve_with(method, &s.beam, &s.mesh, &path, &s.newton);
    let seconds = started.elapsed().as_secs_f64();
    match result {
        Ok(run) => {
            let note = match &run.march {
                Some(m) => format!(
                    "{} nodes, fixed-point iterations {:.2} per node (max {})",
                    m.nodes,
                    m.iterations_total as f64 / m.nodes.max(1) as f64,
                    m.iterations_max
                ),
                None => format!(
                    "{} Newton iterations, {} unknowns",
                    run.solution.newton.iterations, run.solution.newton.unknowns
                ),
            };
            let tracking = stmech_app::spatial_inverse::closed_loop(s, &run);
            let (tp, ta) = s.tracking_tolerance();
            let status = match &tracking {
                Some(Ok((r, _))) if r.max_position > tp || r.max_angle > ta => GOAL_NOT_REACHED,
                Some(Err(_)) => GOAL_NOT_REACHED,
                _ => "ok",
            };
            let rows = stmech_app::spatial_inverse::rows(s, &run);
            Row {
                method,
                status: status.into(),
                seconds,
                run: Some((run, rows)),
                tracking,
                note,
            }
        }
        Err(e) => Row {
            method,
            status: "failed".into(),
            seconds,
            run: None,
            tracking: None,
            note: e.to_string(),
        },
    }
}

/// Largest difference of the forces and of the moments of two runs on the same mesh.
fn difference(a: &Rows, b: &Rows) -> (f64, f64) {
    let d = |x: &[[f64; 3]], y: &[[f64; 3]]| {
        x.iter().zip(y).fold(0.0f64, |m, (p, q)| {
            m.max(norm(&[p[0] - q[0], p[1] - q[1], p[2] - q[2]]))
        })
    };
    (d(&a.force, &b.force), d(&a.moment, &b.moment))
}

/// `stmech compare` of a spatial inverse scenario: both inverse methods on its mesh, each with
/// its closed loop; `compare.csv`, `compare.png` (force components per method), `summary.json`.
pub fn compare(s: &SpatialInverseScenario, out: PathBuf, force: bool) -> Result<(), Failure> {
    let staging = OutputDir::prepare(&out, force).map_err(output_failure)?;
    errln!("stmech compare: {}", describe(s).trim_start_matches("ok: "));
    let rows: Vec<Row> = InverseMethod::ALL
        .iter()
        .map(|&m| solve_row(s, m))
        .collect();
    let diff = match (&rows[0].run, &rows[1].run) {
        (Some((_, a)), Some((_, b))) => Some(difference(a, b)),
        _ => None,
    };
    let mut csv = String::from(
        "method,status,wall_time_s,grid,peak_force_N,peak_moment_Nm,\
         max_force_difference_to_rigid_arm_N,max_force_difference_between_methods_N,\
         max_moment_difference_between_methods_Nm,closed_loop_position_error_m,\
         closed_loop_angle_error_rad,note\n",
    );
    let grid = format!("{} x {}", s.mesh.elements_s, s.mesh.elements_t);
    let opt = |v: Option<f64>| v.map(|x| format!("{x:e}")).unwrap_or_default();
    let mut methods = Vec::new();
    let mut series = Vec::new();
    for row in &rows {
        let r = row.run.as_ref().map(|x| &x.1);
        let peak = |v: &dyn Fn(&Rows) -> &[[f64; 3]]| {
            r.map(|r| v(r).iter().map(norm).fold(0.0f64, f64::max))
        };
        let pf = peak(&|r| &r.force);
        let pm = peak(&|r| &r.moment);
        let rigid = r.map(|r| {
            r.force
                .iter()
                .zip(&r.rigid_force)
                .fold(0.0f64, |m, (a, b)| {
                    m.max(norm(&[a[0] - b[0], a[1] - b[1], a[2] - b[2]]))
                })
        });
        let cl = match &row.tracking {
            Some(Ok((t, _))) => Some(t),
            _ => None,
        };
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            row.method.name(),
            csv_field(&row.status),
            opt(Some(row.seconds)),
            csv_field(&grid),
            opt(pf),
            opt(pm),
            opt(rigid),
            opt(diff.map(|d| d.0)),
            opt(diff.map(|d| d.1)),
            opt(cl.map(|t| t.max_position)),
            opt(cl.map(|t| t.max_angle)),
            csv_field(&row.note)
        ));
        match r {
            Some(_) => outln!(
                "{:16} {:18} {:>9.4} s  peak |F| {:.4} N, |M| {:.4} N·m; {}; {}",
                row.method.name(),
                row.status,
                row.seconds,
                pf.unwrap_or(f64::NAN),
                pm.unwrap_or(f64::NAN),
                tracking_line(s, &row.tracking),
                row.note
            ),
            None => outln!("{:16} {}: {}", row.method.name(), row.status, row.note),
        }
        let (tp, ta) = s.tracking_tolerance();
        methods.push(json!({
            "method": row.method.name(),
            "description": row.method.description(),
            "status": row.status,
            "wall_time_seconds": row.seconds,
            "grid": grid,
            "peak_force_N": pf,
            "peak_moment_Nm": pm,
            "max_force_difference_to_rigid_arm_N": rigid,
            "tip_tracking": match &row.tracking {
                Some(Ok((t, secs))) => json!({
                    "status": if t.max_position <= tp && t.max_angle <= ta { "ok" } else { "above tolerance" },
                    "max_position_m": t.max_position,
                    "max_position_time_s": t.position_at,
                    "max_angle_rad": t.max_angle,
                    "max_angle_time_s": t.angle_at,
                    "tolerance": { "position_m": tp, "angle_rad": ta },
                    "wall_time_seconds": secs,
                }),
                Some(Err(e)) => json!({ "status": "failed", "error": e }),
                None => serde_json::Value::Null,
            },
            "march": row.run.as_ref().and_then(|x| x.0.march.as_ref()),
            "error": row.run.is_none().then(|| row.note.clone()),
            "note": row.note,
        }));
        if let Some(r) = r {
            series.extend(actuation_series(row.method.name(), r, false));
        }
    }
    if let Some((df, dm)) = diff {
        outln!(
            "difference between the methods: force {df:.3e} N, moment {dm:.3e} N·m (largest over \
             the time nodes)"
        );
    }
    let ratio = match (&rows[0].run, &rows[1].run) {
        (Some(_), Some(_)) => Some(rows[0].seconds / rows[1].seconds),
        _ => None,
    };
    if let Some(r) = ratio {
        outln!("wall time space-time / characteristics: {r:.2} (same mesh)");
    }
    outln!("sequential: {NO_SEQUENTIAL}");
    let n_unsolved = rows.iter().filter(|r| r.run.is_none()).count();
    let n_short = rows.iter().filter(|r| r.status == GOAL_NOT_REACHED).count();
    let outcome = if n_unsolved == rows.len() {
        "failed"
    } else if n_unsolved + n_short > 0 {
        GOAL_NOT_REACHED
    } else {
        "ok"
    };
    crate::study::write(
        staging,
        crate::study::StudyOutput {
            name: "compare",
            csv,
            title: "Force on the beam at s = 0 per method (spatial inverse)",
            x_label: "t [s]",
            y_label: "force [N]",
            series,
            summary: json!({
                "stmech_version": env!("CARGO_PKG_VERSION"),
                "study": "both inverse methods on one spatial inverse scenario",
                "problem": "spatial-inverse",
                "scenario": { "origin": s.origin, "input": s.echo },
                "actuation_convention": "force and moment applied to the beam at s = 0, global frame",
                "methods": methods,
                "max_force_difference_between_methods_N": diff.map(|d| d.0),
                "max_moment_difference_between_methods_Nm": diff.map(|d| d.1),
                "wall_time_ratio_space_time_to_characteristics": ratio,
                "sequential": NO_SEQUENTIAL,
                "status": outcome,
            }),
        },
    )?;
    let names = |pick: &dyn Fn(&Row) -> bool| {
        rows.iter()
            .filter(|r| pick(r))
            .map(|r| r.method.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match outcome {
        "ok" => Ok(()),
        "failed" => Err(Failure::new(
            Failure::SOLVER,
            anyhow::anyhow!(
                "every inverse method failed ({}); no actuation was computed (the rows of \
                 compare.csv give each error)",
                names(&|_| true)
            ),
        )),
        _ => Err(Failure::new(
            Failure::GOAL_NOT_REACHED,
            anyhow::anyhow!(
                "not every inverse method reached its goal: failed: [{}], off its path in the \
                 closed loop: [{}] (the rows of compare.csv and summary.json give the numbers; \
                 results are written)",
                names(&|r| r.run.is_none()),
                names(&|r| r.status == GOAL_NOT_REACHED)
            ),
        )),
    }
}
