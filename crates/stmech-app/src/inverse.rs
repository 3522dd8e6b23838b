//! Inverse dynamics of a beam (`problem = "beam-inverse"`): the solve, the closed-loop
//! verification, and the files `actuation.csv`, `tip.csv`, `beam.pvd` (+ `beam_NNNN.vtu`),
//! `actuation.png`, `snapshots.png` and `summary.json`.

use crate::AppError;
use crate::plots::OnPlot;
use crate::plots::{padded_range, register_font};
use plotters::prelude::*;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use stmech::inverse::closed_loop::{
    ClosedLoopReport, ForwardDiscretisation, TrackingTolerance, closed_loop,
};
use stmech::inverse::solver::solve_inverse_unchecked;
use stmech::inverse::{InverseError, InverseMethod, MethodRun, SpaceTimeSolution, solve_with};
use stmech::io::inverse_scenario::InverseScenario;
use stmech::io::output::{OutputDir, write_file, write_json};
use stmech::io::vtk::write_series;

/// The warning to show before solving a mesh that violates the sideways CFL condition with
/// `mesh.allow_unstable = true` (`None`: no warning).
pub fn unstable_warning(s: &InverseScenario) -> Option<String> {
    if !(s.allow_unstable && s.method == InverseMethod::SpaceTime) {
        return None;
    }
    let ratio = s.mesh_ratio();
    (!ratio.holds()).then(|| {
        format!(
            "mesh.allow_unstable = true and the mesh violates the sideways CFL condition \
             (μ = {:.3} > 2): the actuation is unreliable",
            ratio.courant
        )
    })
}

/// Solves the inverse problem with the scenario's method (the space-time FEM without its
/// mesh-ratio check when `mesh.allow_unstable = true`).
pub fn solve(s: &InverseScenario) -> Result<MethodRun, InverseError> {
    let t = Instant::now();
    if s.allow_unstable && s.method == InverseMethod::SpaceTime {
        solve_inverse_unchecked(&s.beam, &s.mesh, s.trajectory.as_ref(), &s.newton).map(
            |solution| MethodRun {
                method: s.method,
                solution,
                march: None,
                seconds: t.elapsed().as_secs_f64(),
            },
        )
    } else {
        solve_with(s.method, &s.beam, &s.mesh, s.trajectory.as_ref(), &s.newton)
    }
}

/// Whether a solver error is the input's fault (exit code 2 in the CLI) rather than the
/// solver's (3).
pub fn is_input_error(e: &InverseError) -> bool {
    matches!(
        e,
        InverseError::Input(_) | InverseError::MeshRatio(_) | InverseError::Trajectory(_)
    )
}

/// What [`write_results`] wrote.
pub struct Written {
    /// The run summary (also in `summary.json`).
    pub summary: serde_json::Value,
    /// The files written, for messages.
    pub files: Vec<&'static str>,
    /// The closed-loop verification.
    pub verification: Verification,
}

/// Writes every result file of a solved inverse problem into `dir`, `summary.json` last.
/// `verification` is called on a thread of its own while the files are written (the CLI
/// runs the closed loop there; a caller that has it already returns it). `secs` is the solve
/// time written into the summary.
pub fn write_results(
    s: &InverseScenario,
    run: &MethodRun,
    secs: f64,
    dir: &OutputDir,
    plots: bool,
    verification: impl FnOnce() -> Verification + Send,
) -> Result<Written, AppError> {
    let output_start = Instant::now();
    let sol = &run.solution;
    // Three threads, separate files, the same bytes as one after the other: the closed-loop
    // verification (the longest part: a forward run on a finer discretisation) and the plots
    // beside the CSVs and the VTK series here.
    let (verification, plotted, written) = std::thread::scope(|scope| {
        let check = scope.spawn(verification);
        let plotted = plots.then(|| scope.spawn(|| write_plots(dir.path(), sol)));
        let written = write_csvs(dir.path(), s, sol)
            .map_err(|e| AppError::write(&e))
            .and_then(|()| write_vtk(dir.path(), sol));
        (join(check), plotted.map(join), written)
    });
    written?;
    let mut files = vec!["actuation.csv", "tip.csv", "beam.pvd"];
    if let Some(plotted) = plotted {
        plotted?;
        files.extend(["actuation.png", "snapshots.png"]);
    }
    let mut summary = summary(s, run, secs, &verification);
    summary["output_wall_time_seconds"] = output_start.elapsed().as_secs_f64().into();
    write_json(&dir.file("summary.json"), &summary)?;
    files.push("summary.json");
    Ok(Written {
        summary,
        files,
        verification,
    })
}

/// Start and end of the actuation: first and last time node where `|F|` exceeds
/// `rel` × its peak.
fn activity(sol: &SpaceTimeSolution, rel: f64) -> (f64, f64) {
    let mag = |f: &[f64; 3]| f.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let peak = sol.actuation.iter().map(mag).fold(0.0, f64::max);
    let on: Vec<usize> = (0..sol.t.len())
        .filter(|&j| mag(&sol.actuation[j]) > rel * peak)
        .collect();
    match (on.first(), on.last()) {
        (Some(&a), Some(&b)) => (sol.t[a], sol.t[b]),
        _ => (f64::NAN, f64::NAN),
    }
}

pub fn failed_summary(s: &InverseScenario, e: &InverseError, secs: f64) -> serde_json::Value {
    let history = e
        .newton_history()
        .map_or(serde_json::Value::Null, |h| json!(h));
    json!({
        "stmech_version": crate::VERSION,
        "status": "failed",
        "problem": "beam-inverse",
        "method": s.method.name(),
        "error": e.to_string(),
        "newton_residuals": history,
        "scenario": { "origin": s.origin, "input": s.echo },
        "wall_time_seconds": secs,
    })
}

/// Largest number of VTK snapshots (`beam_NNNN.vtu`) a run writes.
const VTK_FRAMES: usize = 200;

/// `summary.json` of a solved inverse problem with its verification (without
/// `output_wall_time_seconds`); `status` is [`GOAL_NOT_REACHED`] if the verification fails.
pub fn summary(
    s: &InverseScenario,
    run: &MethodRun,
    secs: f64,
    verification: &Verification,
) -> serde_json::Value {
    let sol = &run.solution;
    let mut summary = summary_ok(s, sol, run.march.as_ref(), secs);
    summary["tip_tracking"] = verification.to_json();
    summary["servo_residual_at_nodes"] = servo_residual_json(s, sol);
    if let Some(msg) = verification.failure() {
        summary["status"] = json!(verification.status());
        summary["error"] = json!(msg);
    }
    summary
}

/// `summary.json` status of a run that solved but failed its verification (exit 5).
pub const GOAL_NOT_REACHED: &str = "goal-not-reached";

/// `summary.json` status of a run that solved but whose verification could not be done: the
/// closed-loop replay itself failed (exit 6).
pub const NOT_VERIFIED: &str = "not-verified";

/// Outcome of the closed-loop verification of one actuation.
#[derive(Clone, Debug)]
pub enum Verification {
    /// Measured: the report and the tolerance it was checked against.
    Measured(ClosedLoopReport, TrackingTolerance),
    /// The actuation is not finite, or the replay broke down with the tip beyond the
    /// tolerance or in a state that cannot be evaluated: the goal is not reached.
    Failed(String, TrackingTolerance),
    /// The replay's Newton did not converge while the tip was within the tolerance: the
    /// actuation is neither confirmed nor refuted ([`NOT_VERIFIED`], exit 6).
    Unverified(String, TrackingTolerance),
    /// Not measured (switched off or not available); the actuation is finite.
    Skipped(String),
}

/// Replays the actuation `samples` in the forward beam model on the automatic finer
/// discretisation ([`ForwardDiscretisation::auto`]) unless `verify.closed_loop = false`.
pub fn verify(s: &InverseScenario, samples: &[(f64, [f64; 3])]) -> Verification {
    let tol = s.tracking_tolerance();
    let nonfinite = samples.iter().find(|v| !v.1.iter().all(|x| x.is_finite()));
    if let Some((t, _)) = nonfinite {
        return Verification::Failed(
            format!("the computed actuation is not finite at t = {t} s"),
            tol,
        );
    }
    if !s.verify.closed_loop {
        return Verification::Skipped("verify.closed_loop = false".into());
    }
    let disc = ForwardDiscretisation::auto(&s.beam, &s.mesh);
    match closed_loop(
        &s.beam,
        s.trajectory.as_ref(),
        s.mesh.t_start,
        s.mesh.t_end,
        samples,
        &disc,
    ) {
        Ok(r) => Verification::Measured(r, tol),
        Err(stmech::inverse::closed_loop::ClosedLoopError::TipMass) => Verification::Skipped(
            "not available with beam.tip (the forward beam model has no tip mass)".into(),
        ),
        // the replay's Newton did not converge while the tip was still within the tolerance:
        // the result is neither confirmed nor refuted (not verified); a tip already beyond
        // the tolerance, or a forward beam driven into a state that cannot be evaluated (an
        // inverted element, a non-finite value), means the goal is not reached
        Err(e) if replay_diverged_within(&e, &tol) => Verification::Unverified(e.to_string(), tol),
        Err(e) => Verification::Failed(e.to_string(), tol),
    }
}

/// Whether the replay's Newton did not converge while the tip was within `tol`.
fn replay_diverged_within(
    e: &stmech::inverse::closed_loop::ClosedLoopError,
    tol: &TrackingTolerance,
) -> bool {
    matches!(
        e,
        stmech::inverse::closed_loop::ClosedLoopError::Forward { position, angle, source, .. }
            if matches!(**source, stmech::error::SolveError::NewtonDiverged { .. })
                && *position <= tol.position_m
                && *angle <= tol.angle_rad
    )
}

impl Verification {
    /// Whether the replay itself failed (the result is neither confirmed nor refuted).
    pub fn unverified(&self) -> bool {
        matches!(self, Self::Unverified(..))
    }

    /// The `summary.json` status of a failed verification.
    pub fn status(&self) -> &'static str {
        if self.unverified() {
            NOT_VERIFIED
        } else {
            GOAL_NOT_REACHED
        }
    }

    /// The closed-loop figures, if measured.
    pub fn report(&self) -> Option<&ClosedLoopReport> {
        match self {
            Self::Measured(r, _) => Some(r),
            _ => None,
        }
    }

    /// Why the result fails its verification (`None`: it passes or was not checked).
    pub fn failure(&self) -> Option<String> {
        const REMEDY: &str = "Remedy: refine the mesh (mesh.resolution or elements_s and \
                              elements_t), slow the manoeuvre down (a longer \
                              trajectory.duration), or, if this accuracy is enough, raise \
                              verify.position_tolerance / verify.angle_tolerance";
        match self {
            Self::Measured(r, tol) if !r.within(tol) => Some(format!(
                "the result does not reach its goal: when the computed actuation drives the \
                 forward beam model ({} quadratic elements, Δt = {:.3e} s), the tip strays up \
                 to {:.3e} m from the path (at t = {:.3} s; tolerance {:.3e} m) and {:.3e} rad \
                 (at t = {:.3} s; tolerance {:.3e} rad). {REMEDY}",
                r.forward_mesh.elements,
                r.forward_mesh.dt,
                r.max_position_error_m,
                r.max_position_error_time_s,
                tol.position_m,
                r.max_angle_error_rad,
                r.max_angle_error_time_s,
                tol.angle_rad
            )),
            Self::Failed(e, _) => {
                Some(format!("the result does not reach its goal: {e}. {REMEDY}"))
            }
            Self::Unverified(e, _) => Some(format!(
                "the result is not verified: its closed-loop replay failed ({e}); the \
                 actuation is neither confirmed nor refuted. Remedy: a finer mesh often makes \
                 the replay solvable; or switch the check off with verify.closed_loop = false"
            )),
            _ => None,
        }
    }

    /// One screen line.
    pub fn line(&self) -> String {
        match self {
            Self::Measured(r, tol) => format!(
                "tip tracking (closed loop: the actuation drives the forward beam, {} quadratic \
                 elements, Δt = {:.3e} s, {:.2} s): max position error {:.3e} m at t = {:.3} s \
                 (tolerance {:.3e} m), max angle error {:.3e} rad at t = {:.3} s (tolerance \
                 {:.3e} rad){}",
                r.forward_mesh.elements,
                r.forward_mesh.dt,
                r.seconds,
                r.max_position_error_m,
                r.max_position_error_time_s,
                tol.position_m,
                r.max_angle_error_rad,
                r.max_angle_error_time_s,
                tol.angle_rad,
                if r.within(tol) {
                    ""
                } else {
                    ": GOAL NOT REACHED"
                }
            ),
            Self::Failed(e, _) => format!("tip tracking (closed loop): FAILED: {e}"),
            Self::Unverified(e, _) => {
                format!("tip tracking (closed loop): NOT VERIFIED (the replay failed): {e}")
            }
            Self::Skipped(why) => format!("tip tracking (closed loop): not verified: {why}"),
        }
    }

    /// `summary.json`'s `tip_tracking`.
    pub fn to_json(&self) -> serde_json::Value {
        let tol =
            |t: &TrackingTolerance| json!({ "position_m": t.position_m, "angle_rad": t.angle_rad });
        let what = "largest deviation of the tip from the prescribed path when the computed \
                    actuation drives the forward beam model (energy-momentum stepper) on a \
                    finer discretisation";
        match self {
            Self::Measured(r, t) => json!({
                "description": what,
                "verified": true,
                "within_tolerance": r.within(t),
                "tolerance": tol(t),
                "closed_loop": {
                    "max_position_error_m": r.max_position_error_m,
                    "max_position_error_time_s": r.max_position_error_time_s,
                    "max_angle_error_rad": r.max_angle_error_rad,
                    "max_angle_error_time_s": r.max_angle_error_time_s,
                    "forward_mesh": {
                        "elements": r.forward_mesh.elements,
                        "order": r.forward_mesh.order,
                        "dt_s": r.forward_mesh.dt,
                        "steps": r.steps,
                    },
                    "wall_time_seconds": r.seconds,
                },
            }),
            Self::Failed(e, t) => json!({
                "description": what,
                "verified": true,
                "within_tolerance": false,
                "tolerance": tol(t),
                "closed_loop": null,
                "error": e,
            }),
            Self::Unverified(e, t) => json!({
                "description": what,
                "verified": false,
                "within_tolerance": null,
                "tolerance": tol(t),
                "closed_loop": null,
                "error": e,
            }),
            Self::Skipped(why) => json!({
                "description": what,
                "verified": false,
                "within_tolerance": null,
                "closed_loop": null,
                "note": why,
            }),
        }
    }
}

/// Largest servo mismatch `|x(L, t_j) − γ(t_j)|` at the time nodes: position (m), angle (rad).
/// Not the tracking error: the servo constraint holds there by construction.
pub fn servo_residual(s: &InverseScenario, sol: &SpaceTimeSolution) -> [f64; 2] {
    (0..sol.t.len()).fold([0.0f64; 2], |m, j| {
        let (a, b) = (sol.tip(j), s.trajectory.pose(sol.t[j]));
        [
            m[0].max((a[0] - b[0]).hypot(a[1] - b[1])),
            m[1].max((a[2] - b[2]).abs()),
        ]
    })
}

fn servo_residual_json(s: &InverseScenario, sol: &SpaceTimeSolution) -> serde_json::Value {
    let r = servo_residual(s, sol);
    json!({
        "description": "largest |x(L, t_j) - gamma(t_j)| at the inverse mesh's time nodes: how \
                        well the discrete servo constraint holds (zero by construction for the \
                        characteristics); not the tracking error, see tip_tracking",
        "max_position_m": r[0],
        "max_angle_rad": r[1],
    })
}

pub fn summary_ok(
    s: &InverseScenario,
    sol: &SpaceTimeSolution,
    march: Option<&stmech::inverse::characteristics_solver::MarchReport>,
    secs: f64,
) -> serde_json::Value {
    let mut peak = [0.0f64; 3];
    for f in &sol.actuation {
        for c in 0..3 {
            peak[c] = peak[c].max(f[c].abs());
        }
    }
    let (start, end) = activity(sol, 1e-3);
    let (start6, end6) = activity(sol, 1e-6);
    let at_ref = s.mesh_ratio();
    let at_sol = sol.mesh_ratio_at_solution();
    let mut v = json!({
        "stmech_version": crate::VERSION,
        "status": "ok",
        "problem": "beam-inverse",
        "method": s.method.name(),
        "method_description": s.method.description(),
        "error": serde_json::Value::Null,
        "scenario": { "origin": s.origin, "input": s.echo },
        "mesh": {
            "elements_s": s.mesh.elements_s,
            "elements_t": s.mesh.elements_t,
            "hs": sol.hs(),
            "ht": s.mesh.ht(),
            "time_step_chosen_automatically": s.mesh_auto,
            "allow_unstable": s.allow_unstable,
            "sideways_cfl_condition_holds": at_ref.holds(),
            "unknowns": sol.newton.unknowns,
            "jacobian_nonzeros": sol.newton.nonzeros,
        },
        "wave_speeds": {
            "bending_shear_axial_at_reference": at_ref.wave_speeds,
            "c_min": at_ref.c_min,
            "sideways_courant_number": at_ref.courant,
            "limit": stmech::inverse::mesh_ratio::LIMIT,
            "max_stretch": sol.max_stretch(),
            "sideways_courant_number_at_max_stretch": at_sol.courant,
            "condition_holds_at_max_stretch": at_sol.holds(),
        },
        "newton": {
            "tolerance": s.newton.newton.tolerance,
            "iterations": sol.newton.iterations,
            "at_floor": sol.newton.at_floor,
            "residual_floor": sol.newton.residual_floor,
            "final_relative_residual": sol.newton.final_relative,
            "residuals": sol.newton.residuals,
            "assembly_seconds": sol.newton.assembly_seconds,
            "linear_solve_seconds": sol.newton.linear_seconds,
            "linear_solver": sol.newton.linear_solver,
            "linear_residual_relative": sol.newton.linear_residual,
            "start": sol.newton.start,
            "start_seconds": sol.newton.start_seconds,
        },
        "actuation": {
            "convention": "force and moment applied by the actuator to the beam at s = 0, global frame (F = -f, f = B d_s x(0,t) of [I] Eq. 3)",
            "peak_abs": peak,
            "start_time": start,
            "end_time": end,
            "activity_threshold": "first/last time |F| > 1e-3 of its peak",
            "start_time_1e-6": start6,
            "end_time_1e-6": end6,
        },
        "trajectory_motion_interval": s.trajectory.motion_interval(),
        "wall_time_seconds": secs,
    });
    if let Some(m) = march {
        // the characteristics have no Newton system and no sideways CFL limit
        v["newton"] = serde_json::Value::Null;
        v["characteristics"] = json!(m);
        v["wave_speeds"]["note"] = json!("the sideways CFL limit concerns the space-time FEM only");
    }
    v
}

/// The result of a scoped thread (its panic re-raised here).
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The ParaView series: at most [`VTK_FRAMES`] + 1 snapshots, evenly spaced in time nodes.
fn write_vtk(dir: &Path, sol: &SpaceTimeSolution) -> Result<(), AppError> {
    let stride = sol.t.len().div_ceil(VTK_FRAMES).max(1);
    let snaps: Vec<_> = (0..sol.t.len())
        .filter(|j| j % stride == 0 || *j == sol.t.len() - 1)
        .map(|j| sol.snapshot(j))
        .collect();
    write_series(dir, "beam", &snaps)?;
    Ok(())
}

/// `actuation.png` and `snapshots.png`.
fn write_plots(dir: &Path, sol: &SpaceTimeSolution) -> Result<(), AppError> {
    register_font().map_err(|e| AppError::write(&e))?;
    plot_actuation(&dir.join("actuation.png"), sol).map_err(|e| AppError::write(&e))?;
    plot_snapshots(&dir.join("snapshots.png"), sol).map_err(|e| AppError::write(&e))
}

fn write_csvs(dir: &Path, s: &InverseScenario, sol: &SpaceTimeSolution) -> anyhow::Result<()> {
    write_file(&dir.join("actuation.csv"), |w| {
        writeln!(w, "t,f_x,f_y,m")?;
        for (t, f) in sol.actuation_samples() {
            writeln!(w, "{t},{},{},{}", f[0], f[1], f[2])?;
        }
        Ok(())
    })?;
    write_file(&dir.join("tip.csv"), |w| {
        writeln!(w, "t,x,y,theta,x_prescribed,y_prescribed,theta_prescribed")?;
        for (j, &t) in sol.t.iter().enumerate() {
            let (a, g) = (sol.tip(j), s.trajectory.pose(t));
            writeln!(
                w,
                "{t},{},{},{},{},{},{}",
                a[0], a[1], a[2], g[0], g[1], g[2]
            )?;
        }
        Ok(())
    })?;
    Ok(())
}

/// `[I]` Fig. 1: force components (left) and torque (right) against time.
fn plot_actuation(path: &Path, sol: &SpaceTimeSolution) -> anyhow::Result<()> {
    let root = BitMapBackend::new(path, (1400, 560)).into_drawing_area();
    root.fill(&WHITE).on(path)?;
    let (left, right) = root.split_horizontally(700);
    let (t0, t1) = (sol.t[0], sol.t[sol.t.len() - 1]);
    type Panel<'a, A> = (&'a A, &'a str, &'a str, Vec<(usize, &'a str, RGBColor)>);
    let panels: [Panel<'_, DrawingArea<_, _>>; 2] = [
        (
            &left,
            "Actuating force at s = 0",
            "force [N]",
            vec![(0, "f_x", BLUE), (1, "f_y", RED)],
        ),
        (
            &right,
            "Actuating torque at s = 0",
            "torque [N·m]",
            vec![(2, "m", BLACK)],
        ),
    ];
    for (area, title, ylab, comps) in panels {
        let (y0, y1) = padded_range(
            comps
                .iter()
                .flat_map(|&(c, _, _)| sol.actuation.iter().map(move |f| f[c])),
        );
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(t0..t1, y0..y1)
            .on(path)?;
        chart
            .configure_mesh()
            .x_desc("t [s]")
            .y_desc(ylab)
            .draw()
            .on(path)?;
        for (c, name, color) in comps {
            chart
                .draw_series(LineSeries::new(
                    sol.t.iter().zip(&sol.actuation).map(|(&t, f)| (t, f[c])),
                    color.stroke_width(2),
                ))
                .on(path)?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .on(path)?;
    }
    crate::plots::present(&root, path)
}

/// `[I]` Fig. 2: snapshots of the beam (13 evenly spaced times) and the tip path.
fn plot_snapshots(path: &Path, sol: &SpaceTimeSolution) -> anyhow::Result<()> {
    let (ns1, nt1) = (sol.s.len(), sol.t.len());
    let n_snap = 12;
    let shapes: Vec<Vec<(f64, f64)>> = (0..=n_snap)
        .map(|k| {
            let j = k * (nt1 - 1) / n_snap;
            (0..ns1)
                .map(|i| (sol.x_at(i, j)[0], sol.x_at(i, j)[1]))
                .collect()
        })
        .collect();
    let tip: Vec<(f64, f64)> = (0..nt1).map(|j| (sol.tip(j)[0], sol.tip(j)[1])).collect();
    crate::plots::shapes_chart(
        path,
        "Snapshots of the beam",
        &shapes,
        Some(("tip path", tip)),
    )
}
