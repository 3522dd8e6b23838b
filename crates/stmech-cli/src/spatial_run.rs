//! `run`/`check`/`compare` for spatial inverse scenarios (`analysis = "inverse"`, issue 16): a
//! thin wrapper of [`stmech_app::spatial_inverse`] (solve, closed-loop seam, files) with the
//! messages and exit codes, and `stmech compare` of both inverse methods on one scenario, with
//! the sequential baseline of `[I]` Sect. 2 (`stmech::inverse::spatial::sequential`) as a third
//! row (no closed loop; it does not decide the exit code).

use crate::Failure;
use crate::console::csv_field;
use crate::plots::Series;
use crate::progress::Progress;
use crate::run::{app_failure, output_failure};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;
use stmech::inverse::InverseMethod;
use stmech::inverse::sequential::SequentialSettings;
use stmech::inverse::spatial::sequential::{SpatialSequentialRun, solve_sequential};
use stmech::inverse::spatial::{SpatialRun, solve_with, wave_speeds};
use stmech::io::output::OutputDir;
use stmech::io::scenario::SpatialInverseScenario;
use stmech_app::spatial_inverse::{
    ClosedLoop, GOAL_NOT_REACHED, NOT_VERIFIED, Rows, actuation_series, failed_summary,
    is_input_error,
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

/// What the sequential row is.
const SEQUENTIAL: &str = "the sequential baseline of [I] Sect. 2: linear elements in space (the \
     mesh's), the semi-discrete equations with the servo constraint integrated by BDF2 \
     (consistent mass, Newton); shown for comparison, it does not decide the exit code \
     (it breaks down on flexible arms by design)";

/// The sequential baseline ([I] Sect. 2, `stmech::inverse::spatial::sequential`) on the
/// scenario: the mesh's space elements and time step, consistent mass, BDF2; no closed loop
/// (it is shown for comparison and fails on flexible arms by design).
struct SequentialRow {
    status: String,
    seconds: f64,
    grid: String,
    run: Option<SpatialSequentialRun>,
    note: String,
}

impl SequentialRow {
    fn completed(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.completed())
    }
}

fn sequential_row(s: &SpatialInverseScenario) -> SequentialRow {
    let settings = SequentialSettings::new(s.mesh.elements_s, s.mesh.ht());
    let grid = format!(
        "{} linear elements, h = {:.4} s (BDF2, consistent mass)",
        settings.elements, settings.step
    );
    let path = s.tip_path();
    let started = Instant::now();
    match solve_sequential(&s.beam, s.mesh.t_start, s.mesh.t_end, &path, &settings) {
        Ok(run) => {
            let (status, note) = match &run.failure {
                None => (
                    "ok".to_string(),
                    format!(
                        "{} Newton iterations, iteration matrix cond {:.2e}",
                        run.iterations.iter().sum::<usize>(),
                        run.condition_number
                    ),
                ),
                Some(f) => (
                    format!("failed at t = {:.4} s", f.time),
                    format!(
                        "{} (iteration matrix cond {:.2e})",
                        f.reason, run.condition_number
                    ),
                ),
            };
            SequentialRow {
                status,
                seconds: run.seconds,
                grid,
                run: Some(run),
                note,
            }
        }
        Err(e) => SequentialRow {
            status: "failed".into(),
            seconds: started.elapsed().as_secs_f64(),
            grid,
            run: None,
            note: e.to_string(),
        },
    }
}

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
/// its closed loop, and the sequential baseline ([`sequential_row`]); `compare.csv`,
/// `compare.png` (force components per method), `summary.json`.
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
         closed_loop_angle_error_rad,max_force_difference_to_space_time_N,\
         max_moment_difference_to_space_time_Nm,note\n",
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
        // the characteristics' difference to the space-time FEM (as the sequential row's)
        let to_fem = diff.filter(|_| row.method == InverseMethod::Characteristics);
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
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
            opt(to_fem.map(|d| d.0)),
            opt(to_fem.map(|d| d.1)),
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
    // the sequential baseline: its own row, no closed loop, not part of the exit code
    let seq = sequential_row(s);
    let done = seq.run.as_ref().filter(|r| r.completed());
    let (spf, spm) = (done.map(|r| r.peak_force()), done.map(|r| r.peak_moment()));
    let tip_path = s.tip_path();
    let seq_rigid = done.map(|r| {
        r.t.iter().zip(&r.force).fold(0.0f64, |m, (&t, f)| {
            let (fr, _) = stmech::inverse::spatial::rigid::rigid_actuation(&s.beam, &tip_path, t);
            m.max(norm(&[f[0] - fr[0], f[1] - fr[1], f[2] - fr[2]]))
        })
    });
    let seq_fem = match (done, &rows[0].run) {
        (Some(r), Some((_, a))) => {
            Some(a.t.iter().enumerate().fold((0.0f64, 0.0f64), |m, (j, &t)| {
                let (f, mo) = r.force_moment_at(t);
                let (df, dm) = (
                    [0, 1, 2].map(|k| f[k] - a.force[j][k]),
                    [0, 1, 2].map(|k| mo[k] - a.moment[j][k]),
                );
                (m.0.max(norm(&df)), m.1.max(norm(&dm)))
            }))
        }
        _ => None,
    };
    csv.push_str(&format!(
        "sequential,{},{},{},{},{},{},,,,,{},{},{}\n",
        csv_field(&seq.status),
        opt(Some(seq.seconds)),
        csv_field(&seq.grid),
        opt(spf),
        opt(spm),
        opt(seq_rigid),
        opt(seq_fem.map(|d| d.0)),
        opt(seq_fem.map(|d| d.1)),
        csv_field(&seq.note)
    ));
    match (spf, spm) {
        (Some(pf), Some(pm)) => outln!(
            "{:16} {:18} {:>9.4} s  peak |F| {pf:.4} N, |M| {pm:.4} N·m; difference to the \
             space-time FEM {}; no closed loop (baseline, [I] Sect. 2); {}",
            "sequential",
            seq.status,
            seq.seconds,
            seq_fem
                .map(|d| format!("force {:.3e} N, moment {:.3e} N·m", d.0, d.1))
                .unwrap_or_else(|| "-".into()),
            seq.note
        ),
        _ => outln!("{:16} {}: {}", "sequential", seq.status, seq.note),
    }
    let failure = seq.run.as_ref().and_then(|r| r.failure.as_ref());
    methods.push(json!({
        "method": "sequential",
        "description": SEQUENTIAL,
        "status": seq.status,
        "wall_time_seconds": seq.seconds,
        "grid": seq.grid,
        "peak_force_N": spf,
        "peak_moment_Nm": spm,
        "max_force_difference_to_rigid_arm_N": seq_rigid,
        "max_force_difference_to_space_time_N": seq_fem.map(|d| d.0),
        "max_moment_difference_to_space_time_Nm": seq_fem.map(|d| d.1),
        "failure": failure.map(|f| json!({ "step": f.step, "time_s": f.time, "reason": f.reason })),
        "iteration_matrix_condition_number": seq.run.as_ref().map(|r| r.condition_number),
        "tip_tracking": serde_json::Value::Null,
        "error": (!seq.completed()).then(|| seq.note.clone()),
        "note": seq.note,
    }));
    if let Some(r) = &seq.run {
        // up to the breakdown; a diverging run is clipped at 3× the field methods' peak force
        let limit = 3.0
            * rows
                .iter()
                .filter_map(|row| row.run.as_ref())
                .map(|(_, x)| x.force.iter().map(norm).fold(0.0f64, f64::max))
                .fold(f64::NAN, f64::max);
        let limit = if limit.is_finite() {
            limit
        } else {
            f64::INFINITY
        };
        for (k, name) in ["f_x", "f_y", "f_z"].iter().enumerate() {
            let clipped = r.force.iter().any(|f| f[k].abs() > limit);
            series.push(Series {
                label: format!(
                    "sequential {name}{}",
                    if clipped { " (clipped)" } else { "" }
                ),
                points: r
                    .t
                    .iter()
                    .zip(&r.force)
                    .filter(|(_, f)| f[k].abs() <= limit)
                    .map(|(&t, f)| (t, f[k]))
                    .collect(),
            });
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
                "study": "both inverse methods and the sequential baseline on one spatial inverse scenario",
                "problem": "spatial-inverse",
                "scenario": { "origin": s.origin, "input": s.echo },
                "actuation_convention": "force and moment applied to the beam at s = 0, global frame",
                "methods": methods,
                "max_force_difference_between_methods_N": diff.map(|d| d.0),
                "max_moment_difference_between_methods_Nm": diff.map(|d| d.1),
                "wall_time_ratio_space_time_to_characteristics": ratio,
                "sequential": SEQUENTIAL,
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
    Failure::of_compare(
        outcome,
        [
            names(&|_| true),
            names(&|r| r.run.is_none()),
            names(&|r| r.status == GOAL_NOT_REACHED),
        ],
        "actuation",
        "tip",
    )
}
