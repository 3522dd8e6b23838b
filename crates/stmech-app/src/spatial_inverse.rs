//! Spatial inverse dynamics (`analysis = "inverse"`, issue 16): the solve, the closed-loop
//! verification (one seam, [`closed_loop`]), and the files `actuation.csv`, `base.csv`,
//! `tip.csv`, `scene.pvd` (+ `scene_NNNN.vtu`), `actuation.png`, `tip.png`, `arm.png` and
//! `summary.json`.
//!
//! Every output is computed from [`Rows`], the per-time-node quantities evaluated once
//! (actuation, rigid-arm reference, base pose, tracked frame): the whole post-processing is
//! linear in the number of mesh nodes (the VTK series visits at most 201 time nodes, each
//! once per space node).

use crate::AppError;
use crate::plots::{Series, padded_range, register_font, space_curves_chart};
use anyhow::Context;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use stmech::inverse::spatial::rigid::rigid_actuation;
use stmech::inverse::spatial::solve::FAMILY_NAMES;
use stmech::inverse::spatial::{SpatialRun, wave_speeds};
use stmech::inverse::trajectory::pose::Pose;
use stmech::inverse::{InverseError, InverseMethod, mesh_ratio};
use stmech::io::output::scene::equivalent_box;
use stmech::io::output::{OutputDir, write_json};
use stmech::io::scenario::SpatialInverseScenario;
use stmech::io::vtk::SceneSnapshot;
use stmech::math::Vec3;
use stmech::math::rotation::{Quat, quat_conj, quat_from_frame, quat_mul};
use stmech::math::so3::Rotation;
use stmech::model::RigidBody;

/// `summary.json` status of a run that solved but failed its verification (exit 5).
pub const GOAL_NOT_REACHED: &str = "goal-not-reached";

/// Largest number of VTK snapshots (`scene_NNNN.vtu`) a run writes, besides the last.
const VTK_FRAMES: usize = 200;

/// Solves the scenario's spatial inverse problem with its `method` (the servo follows the
/// beam tip's path: the tracked body's converted, [`SpatialInverseScenario::tip_path`]).
pub fn solve(s: &SpatialInverseScenario) -> Result<SpatialRun, InverseError> {
    let path = s.tip_path();
    stmech::inverse::spatial::solve_with(s.method, &s.beam, &s.mesh, &path, &s.newton)
}

/// Whether a solver error is the input's fault (exit code 2 in the CLI) rather than the
/// solver's (3).
pub fn is_input_error(e: &InverseError) -> bool {
    matches!(
        e,
        InverseError::Input(_) | InverseError::MeshRatio(_) | InverseError::Trajectory(_)
    )
}

/// The closed-loop tracking of a spatial actuation: the largest deviation of the tracked
/// frame from its prescribed path when the computed actuation drives the forward model, and
/// the replayed poses (the fields of `inverse::spatial::closed_loop::SpatialTracking`).
#[derive(Clone, Debug, PartialEq)]
pub struct Tracking {
    /// Largest position deviation (m).
    pub max_position: f64,
    /// When it occurs (s).
    pub position_at: f64,
    /// Largest angle deviation (rad).
    pub max_angle: f64,
    /// When it occurs (s).
    pub angle_at: f64,
    /// The replayed poses of the tracked frame, `(t, pose)` in time order.
    pub samples: Vec<(f64, Pose)>,
}

/// The closed-loop verification: the tracking and its seconds, or why the replay failed;
/// `None` when it did not run.
pub type ClosedLoop = Option<Result<(Tracking, f64), String>>;

/// Replays the computed actuation in the forward model and measures how far the tracked frame
/// strays from its path (`None` with `inverse.verify.closed_loop = false`).
pub fn closed_loop(s: &SpatialInverseScenario, run: &SpatialRun) -> ClosedLoop {
    if !s.verify.closed_loop {
        return None;
    }
    let _ = run;
    // closed loop: wired when inverse::spatial::closed_loop lands
    None
}

/// Why there is no closed-loop figure (the summary's `tip_tracking.note`).
fn not_verified(s: &SpatialInverseScenario) -> &'static str {
    if s.verify.closed_loop {
        "the closed-loop replay of the spatial actuation (the forward director beam of the one \
         model) is not available yet"
    } else {
        "inverse.verify.closed_loop = false"
    }
}

/// The quantities of every time node that the outputs use, computed once.
pub struct Rows {
    /// Time nodes (s).
    pub t: Vec<f64>,
    /// Force applied to the beam at `s = 0` (N, global frame).
    pub force: Vec<Vec3>,
    /// Moment applied to the beam at `s = 0`, about the base point (N·m, global frame).
    pub moment: Vec<Vec3>,
    /// The rigid-arm reference force (N).
    pub rigid_force: Vec<Vec3>,
    /// The rigid-arm reference moment (N·m).
    pub rigid_moment: Vec<Vec3>,
    /// Base point `φ(0, t)` (m).
    pub base_position: Vec<Vec3>,
    /// Base frame as a unit quaternion (sign continuous in time).
    pub base_quaternion: Vec<Quat>,
    /// Rotation vector of the base frame from its rest frame (rad, continuous).
    pub base_rotation: Vec<Vec3>,
    /// Base velocity (m/s).
    pub base_velocity: Vec<Vec3>,
    /// Base angular velocity `ω = T(ψ) ψ̇` (rad/s, global frame).
    pub base_angular_velocity: Vec<Vec3>,
    /// Prescribed pose of the tracked frame.
    pub prescribed: Vec<Pose>,
    /// The inverse solution's pose of the tracked frame.
    pub achieved: Vec<Pose>,
}

fn norm(a: &Vec3) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn diff(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The rotation angle between two frames (rad).
fn angle_between(a: &[Vec3; 3], b: &[Vec3; 3]) -> f64 {
    let q = quat_mul(&quat_from_frame(a), &quat_conj(&quat_from_frame(b)));
    let v = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    2.0 * v.atan2(q[0].abs())
}

/// `q` or `−q`, whichever is nearer `previous` (the same frame).
fn continuous(q: Quat, previous: Option<&Quat>) -> Quat {
    match previous {
        Some(p) if (0..4).map(|i| p[i] * q[i]).sum::<f64>() < 0.0 => q.map(|c| -c),
        _ => q,
    }
}

impl Rows {
    /// Evaluates every time node of `run` once.
    pub fn new(s: &SpatialInverseScenario, run: &SpatialRun) -> Self {
        let sol = &run.solution;
        let n = sol.t.len();
        let ns = sol.mesh.elements_s;
        let tip_path = s.tip_path();
        let mut r = Self {
            t: sol.t.clone(),
            force: Vec::with_capacity(n),
            moment: Vec::with_capacity(n),
            rigid_force: Vec::with_capacity(n),
            rigid_moment: Vec::with_capacity(n),
            base_position: Vec::with_capacity(n),
            base_quaternion: Vec::with_capacity(n),
            base_rotation: Vec::with_capacity(n),
            base_velocity: Vec::with_capacity(n),
            base_angular_velocity: Vec::with_capacity(n),
            prescribed: Vec::with_capacity(n),
            achieved: Vec::with_capacity(n),
        };
        for j in 0..n {
            let t = sol.t[j];
            let (f, m) = sol.base_actuation(j);
            r.force.push(f);
            r.moment.push(m);
            let (fr, mr) = rigid_actuation(&s.beam, &tip_path, t);
            r.rigid_force.push(fr);
            r.rigid_moment.push(mr);
            let (x, v) = (sol.x_at(0, j), sol.v_at(0, j));
            r.base_position.push([x[0], x[1], x[2]]);
            let q = continuous(
                quat_from_frame(&sol.directors(0, j)),
                r.base_quaternion.last(),
            );
            r.base_quaternion.push(q);
            let psi = [x[3], x[4], x[5]];
            r.base_rotation.push(psi);
            r.base_velocity.push([v[0], v[1], v[2]]);
            r.base_angular_velocity
                .push(Rotation::new(psi).tangent(&[v[3], v[4], v[5]]));
            r.prescribed.push(s.trajectory.state(t).pose);
            let tip = Pose {
                position: sol.position(ns, j),
                directors: sol.directors(ns, j),
            };
            r.achieved.push(s.tracked_pose(&tip));
        }
        r
    }

    /// Largest position and angle mismatch of the inverse solution's tracked frame at the
    /// time nodes: how well the discrete servo constraint (weak in time, `[I]` Eq. 34) holds
    /// there, of the order of the discretisation error; not the tracking error.
    pub fn servo_residual(&self) -> [f64; 2] {
        self.prescribed
            .iter()
            .zip(&self.achieved)
            .fold([0.0f64; 2], |m, (p, a)| {
                [
                    m[0].max(norm(&diff(&a.position, &p.position))),
                    m[1].max(angle_between(&a.directors, &p.directors)),
                ]
            })
    }
}

/// What [`write_results`] wrote.
pub struct Written {
    /// The run summary (also in `summary.json`).
    pub summary: serde_json::Value,
    /// The files written, for messages.
    pub files: Vec<&'static str>,
    /// The closed-loop verification.
    pub closed_loop: ClosedLoop,
    /// Why the result fails its verification (`None`: it passes or was not checked).
    pub failure: Option<String>,
}

/// Writes every result file of a solved spatial inverse problem into `dir`, `summary.json`
/// last. `closed_loop` runs on a thread of its own while the files are written ([`closed_loop`],
/// or a result computed already); `secs` is the solve time written into the summary.
pub fn write_results(
    s: &SpatialInverseScenario,
    run: &SpatialRun,
    secs: f64,
    dir: &OutputDir,
    plots: bool,
    closed_loop: impl FnOnce() -> ClosedLoop + Send,
) -> Result<Written, AppError> {
    let output_start = Instant::now();
    let rows = Rows::new(s, run);
    // separate files on separate threads, the same bytes as one after the other; the tip
    // files need the closed loop, so they follow it on its thread
    let (replay, plotted, written) = std::thread::scope(|scope| {
        let check = scope.spawn(|| {
            let replay = closed_loop();
            let tip = write_tip_csv(dir.path(), &rows, samples(&replay))
                .and_then(|()| {
                    if plots {
                        plot_tip(&dir.path().join("tip.png"), &rows, samples(&replay))
                    } else {
                        Ok(())
                    }
                })
                .map_err(|e| AppError::write(&e));
            (replay, tip)
        });
        let plotted = plots.then(|| {
            scope.spawn(|| write_plots(dir.path(), run, &rows).map_err(|e| AppError::write(&e)))
        });
        let written = write_csvs(dir.path(), &rows)
            .map_err(|e| AppError::write(&e))
            .and_then(|()| write_vtk(dir, s, run));
        (join(check), plotted.map(join), written)
    });
    let (replay, tip) = replay;
    written?;
    tip?;
    let mut files = vec!["actuation.csv", "base.csv", "tip.csv", "scene.pvd"];
    if let Some(plotted) = plotted {
        plotted?;
        files.extend(["actuation.png", "tip.png", "arm.png"]);
    }
    let (mut summary, failure) = summary(s, run, &rows, secs, &replay);
    summary["output_wall_time_seconds"] = output_start.elapsed().as_secs_f64().into();
    write_json(&dir.file("summary.json"), &summary)?;
    files.push("summary.json");
    Ok(Written {
        summary,
        files,
        closed_loop: replay,
        failure,
    })
}

fn samples(replay: &ClosedLoop) -> Option<&[(f64, Pose)]> {
    match replay {
        Some(Ok((t, _))) => Some(&t.samples),
        _ => None,
    }
}

/// The result of a scoped thread (its panic re-raised here).
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// `summary.json` of a solved problem with its closed loop, and why the result fails its
/// verification (`None`: it passes or was not checked); `status` is [`GOAL_NOT_REACHED`] then.
pub fn summary(
    s: &SpatialInverseScenario,
    run: &SpatialRun,
    rows: &Rows,
    secs: f64,
    replay: &ClosedLoop,
) -> (serde_json::Value, Option<String>) {
    let mut v = summary_ok(s, run, rows, secs);
    let (tol_p, tol_a) = s.tracking_tolerance();
    let tolerance = json!({ "position_m": tol_p, "angle_rad": tol_a });
    let what = "largest deviation of the tracked frame from its prescribed path when the \
                computed actuation drives the forward model on a finer discretisation";
    let mut failure = None;
    v["tip_tracking"] = match replay {
        None => json!({
            "description": what,
            "status": "not verified",
            "verified": false,
            "within_tolerance": null,
            "closed_loop": null,
            "tolerance": tolerance,
            "note": not_verified(s),
        }),
        Some(Ok((r, seconds))) => {
            let within = r.max_position <= tol_p && r.max_angle <= tol_a;
            if !within {
                failure = Some(format!(
                    "the result does not reach its goal: when the computed actuation drives the \
                     forward model, the tracked frame {} strays up to {:.3e} m from its path (at \
                     t = {:.3} s; tolerance {tol_p:.3e} m) and {:.3e} rad (at t = {:.3} s; \
                     tolerance {tol_a:.3e} rad). Remedy: refine the mesh (beams[0].elements), \
                     slow the manoeuvre down (a longer inverse.trajectory.duration), or, if \
                     this accuracy is enough, raise inverse.verify.position_tolerance / \
                     angle_tolerance",
                    s.tracked, r.max_position, r.position_at, r.max_angle, r.angle_at
                ));
            }
            json!({
                "description": what,
                "status": if within { "ok" } else { "above tolerance" },
                "verified": true,
                "within_tolerance": within,
                "tolerance": tolerance,
                "closed_loop": {
                    "max_position_m": r.max_position,
                    "max_position_time_s": r.position_at,
                    "max_angle_rad": r.max_angle,
                    "max_angle_time_s": r.angle_at,
                    "samples": r.samples.len(),
                    "wall_time_seconds": seconds,
                },
            })
        }
        Some(Err(e)) => {
            failure = Some(format!(
                "the result does not reach its goal: the closed-loop replay of the actuation \
                 failed: {e}"
            ));
            json!({
                "description": what,
                "status": "failed",
                "verified": true,
                "within_tolerance": false,
                "tolerance": tolerance,
                "closed_loop": null,
                "error": e,
            })
        }
    };
    if let Some(msg) = &failure {
        v["status"] = json!(GOAL_NOT_REACHED);
        v["error"] = json!(msg);
    }
    (v, failure)
}

/// The `summary.json` of a failed run.
pub fn failed_summary(
    s: &SpatialInverseScenario,
    e: &InverseError,
    secs: f64,
) -> serde_json::Value {
    let history = match e {
        InverseError::NewtonFailed { history, .. } => json!(history),
        _ => serde_json::Value::Null,
    };
    json!({
        "stmech_version": crate::VERSION,
        "status": "failed",
        "problem": "spatial-inverse",
        "analysis": "inverse",
        "method": s.method.name(),
        "error": e.to_string(),
        "newton_residuals": history,
        "scenario": { "origin": s.origin, "input": s.echo },
        "wall_time_seconds": secs,
    })
}

/// Peak of `|v|` over the rows, and the component-wise peaks.
fn peaks(v: &[Vec3]) -> (f64, Vec3) {
    v.iter().fold((0.0f64, [0.0f64; 3]), |(m, c), x| {
        (
            m.max(norm(x)),
            [
                c[0].max(x[0].abs()),
                c[1].max(x[1].abs()),
                c[2].max(x[2].abs()),
            ],
        )
    })
}

/// First and last time node where the force or the moment exceeds `rel` × its peak.
fn activity(rows: &Rows, rel: f64) -> (f64, f64) {
    let (pf, _) = peaks(&rows.force);
    let (pm, _) = peaks(&rows.moment);
    let on = |j: usize| norm(&rows.force[j]) > rel * pf || norm(&rows.moment[j]) > rel * pm;
    let first = (0..rows.t.len()).find(|&j| on(j));
    let last = (0..rows.t.len()).rev().find(|&j| on(j));
    match (first, last) {
        (Some(a), Some(b)) => (rows.t[a], rows.t[b]),
        _ => (f64::NAN, f64::NAN),
    }
}

fn summary_ok(
    s: &SpatialInverseScenario,
    run: &SpatialRun,
    rows: &Rows,
    secs: f64,
) -> serde_json::Value {
    let sol = &run.solution;
    let speeds = wave_speeds(&s.beam.section);
    let hs = s.beam.length / s.mesh.elements_s as f64;
    let courant = hs / (speeds.min() * s.mesh.ht());
    let (pf, pfc) = peaks(&rows.force);
    let (pm, pmc) = peaks(&rows.moment);
    let (prf, _) = peaks(&rows.rigid_force);
    let (prm, _) = peaks(&rows.rigid_moment);
    let dfr = rows
        .force
        .iter()
        .zip(&rows.rigid_force)
        .fold(0.0f64, |m, (a, b)| m.max(norm(&diff(a, b))));
    let dmr = rows
        .moment
        .iter()
        .zip(&rows.rigid_moment)
        .fold(0.0f64, |m, (a, b)| m.max(norm(&diff(a, b))));
    let (start, end) = activity(rows, 1e-3);
    let (start6, end6) = activity(rows, 1e-6);
    let (peak_speed, _) = peaks(&rows.base_velocity);
    let (peak_w, _) = peaks(&rows.base_angular_velocity);
    let p0 = rows.base_position[0];
    let max_disp = rows
        .base_position
        .iter()
        .fold(0.0f64, |m, p| m.max(norm(&diff(p, &p0))));
    let max_rot = rows
        .base_rotation
        .iter()
        .fold(0.0f64, |m, p| m.max(norm(p)));
    let energy: Vec<f64> = (0..sol.t.len()).map(|j| sol.energy(j)).collect();
    let servo = rows.servo_residual();
    let families: Vec<serde_json::Value> = (0..6)
        .map(|k| json!({ "family": speeds.families[k], "speed_m_per_s": speeds.speeds[k] }))
        .collect();
    let body = s.body.as_ref().map(|b| {
        json!({
            "name": b.name,
            "mass_kg": b.mass.mass,
            "welded_to": format!("{}:end", s.beam_name),
            "offset_in_tip_frame_m": b.welded.offset,
        })
    });
    let mut v = json!({
        "stmech_version": crate::VERSION,
        "status": "ok",
        "error": serde_json::Value::Null,
        "problem": "spatial-inverse",
        "analysis": "inverse",
        "method": run.method.name(),
        "method_description": run.method.description(),
        "actuation_kind": s.actuation.name(),
        "actuation_kind_description": s.actuation.description(),
        "tracked_frame": s.tracked,
        "beam": {
            "name": s.beam_name,
            "length_m": s.beam.length,
            "base_m": s.beam.base,
            "directors": s.beam.frame,
            "rho_a_kg_per_m": s.beam.section.rho_a(),
            "stiffness": s.beam.section.stiffness(),
            "tip_body": body,
        },
        "mesh": {
            "elements_s": s.mesh.elements_s,
            "elements_t": s.mesh.elements_t,
            "hs_m": hs,
            "ht_s": s.mesh.ht(),
            "time_step_chosen_automatically": s.mesh_auto,
            "sideways_courant_number": courant,
            "limit": mesh_ratio::LIMIT,
            "limited": run.method == InverseMethod::SpaceTime,
            "unknowns": sol.newton.unknowns,
        },
        "wave_speeds": {
            "families": families,
            "c_min_m_per_s": speeds.min(),
            "c_max_m_per_s": speeds.max(),
            "slowest_family": speeds.families[0],
            "pre_and_post_actuation_s": s.beam.length / speeds.min(),
            "family_names": FAMILY_NAMES,
        },
        "newton": {
            "tolerance": s.newton.tolerance,
            "iterations": sol.newton.iterations,
            "residuals": sol.newton.residuals,
            "assembly_seconds": sol.newton.assembly_seconds,
            "linear_solve_seconds": sol.newton.linear_seconds,
            "linear_solver": sol.newton.linear_solver,
            "linear_residual_relative": sol.newton.linear_residual,
            "start": sol.newton.start,
            "start_seconds": sol.newton.start_seconds,
        },
        "march": run.march,
        "actuation": {
            "convention": "force and moment the actuator applies to the beam at s = 0, global frame; the moment about the base point",
            "peak_force_N": pf,
            "peak_moment_Nm": pm,
            "peak_abs_force_components_N": pfc,
            "peak_abs_moment_components_Nm": pmc,
            "rest_force_N": rows.force[0],
            "rest_moment_Nm": rows.moment[0],
            "start_time": start,
            "end_time": end,
            "activity_threshold": "first/last time |F| or |M| > 1e-3 of its peak",
            "start_time_1e-6": start6,
            "end_time_1e-6": end6,
        },
        "rigid_arm": {
            "description": "Newton–Euler of the arm and the welded body as one rigid body whose tip follows the path (the limit of a very stiff arm)",
            "peak_force_N": prf,
            "peak_moment_Nm": prm,
            "max_force_difference_N": dfr,
            "max_moment_difference_Nm": dmr,
        },
        "base": {
            "description": "pose of the beam's base s = 0: the motion of the clamp when inverse.actuation = \"motion\"",
            "max_displacement_m": max_disp,
            "max_rotation_rad": max_rot,
            "peak_speed_m_per_s": peak_speed,
            "peak_angular_speed_rad_per_s": peak_w,
        },
        "energy": {
            "description": "kinetic and strain energy of the arm and the welded body (J)",
            "max_J": energy.iter().copied().fold(0.0f64, f64::max),
            "at_end_J": energy.last().copied(),
        },
        "servo_residual_at_nodes": {
            "description": "largest |pose(t_j) - prescribed(t_j)| of the tracked frame at the inverse mesh's time nodes: how well the discrete servo constraint (weak in time) holds there; not the tracking error, see tip_tracking",
            "max_position_m": servo[0],
            "max_angle_rad": servo[1],
        },
        "trajectory": {
            "kind": s.path_kind,
            "motion_interval_s": s.trajectory.motion_interval(),
        },
        "scenario": { "origin": s.origin, "input": s.echo },
        "wall_time_seconds": secs,
    });
    if run.march.is_some() {
        v["newton"] = serde_json::Value::Null;
    }
    v
}

/// A number for the CSV files: the shortest text that reads back to the same `f64`, in
/// scientific notation when that is shorter (tiny and huge magnitudes).
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&x.abs()) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

/// Comma-separated [`Num`]s.
fn line(values: &[f64]) -> String {
    let mut s = String::with_capacity(24 * values.len());
    for (k, v) in values.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        let _ = std::fmt::Write::write_fmt(&mut s, format_args!("{}", Num(*v)));
    }
    s
}

fn csv_writer(dir: &Path, name: &str) -> anyhow::Result<std::io::BufWriter<std::fs::File>> {
    let path = dir.join(name);
    Ok(std::io::BufWriter::new(
        std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?,
    ))
}

/// `actuation.csv` and `base.csv`.
fn write_csvs(dir: &Path, rows: &Rows) -> anyhow::Result<()> {
    let mut w = csv_writer(dir, "actuation.csv")?;
    writeln!(
        w,
        "t,f_x,f_y,f_z,m_x,m_y,m_z,f_x_rigid,f_y_rigid,f_z_rigid,m_x_rigid,m_y_rigid,m_z_rigid"
    )?;
    for j in 0..rows.t.len() {
        let (f, m, fr, mr) = (
            rows.force[j],
            rows.moment[j],
            rows.rigid_force[j],
            rows.rigid_moment[j],
        );
        let mut v = vec![rows.t[j]];
        for x in [f, m, fr, mr] {
            v.extend(x);
        }
        writeln!(w, "{}", line(&v))?;
    }
    w.flush()?;
    let mut w = csv_writer(dir, "base.csv")?;
    writeln!(
        w,
        "t,x,y,z,qw,qx,qy,qz,psi_x,psi_y,psi_z,v_x,v_y,v_z,omega_x,omega_y,omega_z"
    )?;
    for j in 0..rows.t.len() {
        let (x, q, p, v, o) = (
            rows.base_position[j],
            rows.base_quaternion[j],
            rows.base_rotation[j],
            rows.base_velocity[j],
            rows.base_angular_velocity[j],
        );
        let mut row = vec![rows.t[j]];
        row.extend(x);
        row.extend(q);
        row.extend(p);
        row.extend(v);
        row.extend(o);
        writeln!(w, "{}", line(&row))?;
    }
    w.flush()?;
    Ok(())
}

/// The replayed pose at `t`: the sample at the same index when the replay has one per time
/// node, else the sample nearest in time (binary search).
fn replay_at<'a>(samples: &'a [(f64, Pose)], j: usize, t: f64, n: usize) -> Option<&'a Pose> {
    if samples.is_empty() {
        return None;
    }
    if samples.len() == n {
        return Some(&samples[j].1);
    }
    let k = samples.partition_point(|s| s.0 < t);
    let best = match (k.checked_sub(1), samples.get(k)) {
        (Some(a), Some(b)) if (t - samples[a].0) <= (b.0 - t) => a,
        (Some(a), None) => a,
        _ => k.min(samples.len() - 1),
    };
    Some(&samples[best].1)
}

/// `tip.csv`: the tracked frame prescribed, in the inverse solution, and in the replay.
fn write_tip_csv(dir: &Path, rows: &Rows, replay: Option<&[(f64, Pose)]>) -> anyhow::Result<()> {
    let mut w = csv_writer(dir, "tip.csv")?;
    write!(
        w,
        "t,x_prescribed,y_prescribed,z_prescribed,qw_prescribed,qx_prescribed,qy_prescribed,\
         qz_prescribed,x,y,z,qw,qx,qy,qz,position_error,angle_error"
    )?;
    // the replay's columns only when there is a replay (every cell a number: np.loadtxt reads
    // the file either way)
    let replay = replay.filter(|r| !r.is_empty());
    if replay.is_some() {
        write!(
            w,
            ",x_replay,y_replay,z_replay,qw_replay,qx_replay,qy_replay,qz_replay"
        )?;
    }
    writeln!(w)?;
    let n = rows.t.len();
    let (mut qp_prev, mut qr_prev) = (None, None);
    for j in 0..n {
        let (p, a) = (&rows.prescribed[j], &rows.achieved[j]);
        let qp = continuous(quat_from_frame(&p.directors), qp_prev.as_ref());
        let qa = continuous(quat_from_frame(&a.directors), Some(&qp));
        qp_prev = Some(qp);
        let (dp, da) = (
            norm(&diff(&a.position, &p.position)),
            angle_between(&a.directors, &p.directors),
        );
        let mut row = vec![rows.t[j]];
        row.extend(p.position);
        row.extend(qp);
        row.extend(a.position);
        row.extend(qa);
        row.extend([dp, da]);
        write!(w, "{}", line(&row))?;
        match replay.and_then(|r| replay_at(r, j, rows.t[j], n)) {
            Some(r) => {
                let qr = continuous(
                    quat_from_frame(&r.directors),
                    qr_prev.as_ref().or(Some(&qp)),
                );
                qr_prev = Some(qr);
                let mut row = r.position.to_vec();
                row.extend(qr);
                writeln!(w, ",{}", line(&row))?;
            }
            None => writeln!(w)?,
        }
    }
    w.flush()?;
    Ok(())
}

/// The scene at time node `j`: the beam's centreline (one poly-line, its director frames as
/// point data) and the welded body as its equivalent inertia box.
pub fn snapshot(s: &SpatialInverseScenario, run: &SpatialRun, j: usize) -> SceneSnapshot {
    let sol = &run.solution;
    let ns = sol.mesh.elements_s;
    let mut snap = SceneSnapshot {
        t: sol.t[j],
        points: (0..=ns).map(|i| sol.position(i, j)).collect(),
        directors: (0..=ns).map(|i| sol.directors(i, j)).collect(),
        s: sol.s.clone(),
        cells: vec![(4, (0..=ns).collect())],
        part: vec![0],
    };
    if let Some(b) = &s.body {
        let tip = Pose {
            position: sol.position(ns, j),
            directors: sol.directors(ns, j),
        };
        let pose = b.pose_at(&tip);
        let rigid = RigidBody {
            name: b.name.clone(),
            mass: b.mass,
            position: pose.position,
            directors: pose.directors,
            velocity: [0.0; 3],
            director_velocities: [[0.0; 3]; 3],
        };
        let (a, c) = equivalent_box(&rigid);
        let first = snap.points.len();
        // VTK hexahedron order: bottom face (z−) counter-clockwise, then top face
        for (sx, sy, sz) in [
            (-1.0, -1.0, -1.0),
            (1.0, -1.0, -1.0),
            (1.0, 1.0, -1.0),
            (-1.0, 1.0, -1.0),
            (-1.0, -1.0, 1.0),
            (1.0, -1.0, 1.0),
            (1.0, 1.0, 1.0),
            (-1.0, 1.0, 1.0),
        ] {
            let theta = [
                c[0] + 0.5 * sx * a[0],
                c[1] + 0.5 * sy * a[1],
                c[2] + 0.5 * sz * a[2],
            ];
            let d = &pose.directors;
            snap.points.push(std::array::from_fn(|k| {
                pose.position[k] + (0..3).map(|i| theta[i] * d[i][k]).sum::<f64>()
            }));
            snap.directors.push(pose.directors);
            snap.s.push(0.0);
        }
        snap.cells.push((12, (first..first + 8).collect()));
        snap.part.push(1);
    }
    snap
}

/// The ParaView series `scene.pvd`: at most [`VTK_FRAMES`] + 1 snapshots, evenly spaced.
fn write_vtk(
    dir: &OutputDir,
    s: &SpatialInverseScenario,
    run: &SpatialRun,
) -> Result<(), AppError> {
    let n = run.solution.t.len();
    let stride = n.div_ceil(VTK_FRAMES).max(1);
    let snaps: Vec<_> = (0..n)
        .filter(|j| j % stride == 0 || *j == n - 1)
        .map(|j| snapshot(s, run, j))
        .collect();
    stmech::io::vtk::write_scene_series(dir.path(), "scene", &snaps)
        .map_err(|e| AppError::io(dir.file("scene.pvd"), e))?;
    Ok(())
}

/// One curve of a panel: solid or dashed.
struct Curve<'a> {
    label: String,
    color: RGBColor,
    dashed: bool,
    points: Box<dyn Iterator<Item = (f64, f64)> + 'a>,
}

/// One panel of [`panels_chart`].
struct Panel<'a> {
    title: &'a str,
    y_label: &'a str,
    curves: Vec<Curve<'a>>,
}

const COLORS: [RGBColor; 3] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
];

/// Panels side by side (700 × 560 each), curves solid or dashed (a reference).
fn panels_chart(path: &Path, panels: Vec<Panel<'_>>) -> anyhow::Result<()> {
    register_font()?;
    let width = 700 * panels.len() as u32;
    let root = BitMapBackend::new(path, (width, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((1, panels.len()));
    for (area, panel) in areas.iter().zip(panels) {
        let curves: Vec<(String, RGBColor, bool, Vec<(f64, f64)>)> = panel
            .curves
            .into_iter()
            .map(|c| {
                let pts: Vec<(f64, f64)> = c
                    .points
                    .filter(|(x, y)| x.is_finite() && y.is_finite())
                    .collect();
                (c.label, c.color, c.dashed, pts)
            })
            .collect();
        let (x0, x1) = padded_range(curves.iter().flat_map(|c| c.3.iter().map(|p| p.0)));
        let (y0, y1) = padded_range(curves.iter().flat_map(|c| c.3.iter().map(|p| p.1)));
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc("t [s]")
            .y_desc(panel.y_label)
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (label, color, dashed, pts) in curves {
            let style = color.stroke_width(2);
            if dashed {
                chart
                    .draw_series(DashedLineSeries::new(pts, 8, 6, style))?
                    .label(label)
                    .legend(move |(x, y)| {
                        DashedPathElement::new(vec![(x, y), (x + 24, y)], 8, 6, style)
                    });
            } else {
                chart
                    .draw_series(LineSeries::new(pts, style))?
                    .label(label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font(("sans-serif", 13))
            .draw()?;
    }
    root.present()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// `actuation.png` and `arm.png` (`tip.png` follows the closed loop, on its thread).
fn write_plots(dir: &Path, run: &SpatialRun, rows: &Rows) -> anyhow::Result<()> {
    plot_actuation(&dir.join("actuation.png"), rows)?;
    plot_arm(&dir.join("arm.png"), run, rows)
}

fn plot_actuation(path: &Path, rows: &Rows) -> anyhow::Result<()> {
    let t = &rows.t;
    let curves = |v: &'_ [Vec3], r: &'_ [Vec3], names: [&str; 3], unit: &str| {
        let mut c: Vec<Curve<'_>> = Vec::new();
        for (k, name) in names.iter().enumerate() {
            let (tt, vv, rr) = (t.clone(), v.to_vec(), r.to_vec());
            c.push(Curve {
                label: format!("{name} [{unit}]"),
                color: COLORS[k],
                dashed: false,
                points: Box::new(tt.into_iter().zip(vv).map(move |(t, x)| (t, x[k]))),
            });
            let tt = t.clone();
            c.push(Curve {
                label: format!("{name}, rigid arm"),
                color: COLORS[k],
                dashed: true,
                points: Box::new(tt.into_iter().zip(rr).map(move |(t, x)| (t, x[k]))),
            });
        }
        c
    };
    panels_chart(
        path,
        vec![
            Panel {
                title: "Force on the beam at s = 0",
                y_label: "force [N]",
                curves: curves(&rows.force, &rows.rigid_force, ["f_x", "f_y", "f_z"], "N"),
            },
            Panel {
                title: "Moment on the beam at s = 0",
                y_label: "moment [N·m]",
                curves: curves(
                    &rows.moment,
                    &rows.rigid_moment,
                    ["m_x", "m_y", "m_z"],
                    "N·m",
                ),
            },
        ],
    )
}

/// Rotation vectors of the frames `poses` relative to the first (continuous in time).
fn rotations(poses: &[Pose]) -> Vec<Vec3> {
    let Some(first) = poses.first() else {
        return Vec::new();
    };
    let q0 = quat_conj(&quat_from_frame(&first.directors));
    let mut prev: Option<Quat> = None;
    poses
        .iter()
        .map(|p| {
            let q = continuous(quat_mul(&quat_from_frame(&p.directors), &q0), prev.as_ref());
            prev = Some(q);
            // on the sign-continuous branch: the angle runs on past π
            stmech::math::so3::rotation_vector_on_branch(&q)
        })
        .collect()
}

/// `tip.png`: the tracked frame's position and rotation, prescribed (solid) against the
/// inverse solution or, when there is one, the closed-loop replay (dashed).
fn plot_tip(path: &Path, rows: &Rows, replay: Option<&[(f64, Pose)]>) -> anyhow::Result<()> {
    let n = rows.t.len();
    let (label, achieved): (&str, Vec<Pose>) = match replay {
        Some(r) if !r.is_empty() => (
            "replay",
            (0..n)
                .filter_map(|j| replay_at(r, j, rows.t[j], n).copied())
                .collect(),
        ),
        _ => ("inverse solution", rows.achieved.clone()),
    };
    let (rp, ra) = (rotations(&rows.prescribed), rotations(&achieved));
    let comp = |name: &str, k: usize, pos: bool| -> [Curve<'_>; 2] {
        let t1 = rows.t.clone();
        let t2 = rows.t.clone();
        let (p, a): (Vec<f64>, Vec<f64>) = if pos {
            (
                rows.prescribed.iter().map(|p| p.position[k]).collect(),
                achieved.iter().map(|p| p.position[k]).collect(),
            )
        } else {
            (
                rp.iter().map(|r| r[k]).collect(),
                ra.iter().map(|r| r[k]).collect(),
            )
        };
        [
            Curve {
                label: format!("{name} prescribed"),
                color: COLORS[k],
                dashed: false,
                points: Box::new(t1.into_iter().zip(p)),
            },
            Curve {
                label: format!("{name} {label}"),
                color: COLORS[k],
                dashed: true,
                points: Box::new(t2.into_iter().zip(a)),
            },
        ]
    };
    let pos: Vec<Curve<'_>> = ["x", "y", "z"]
        .iter()
        .enumerate()
        .flat_map(|(k, n)| comp(n, k, true))
        .collect();
    let rot: Vec<Curve<'_>> = ["ψ_x", "ψ_y", "ψ_z"]
        .iter()
        .enumerate()
        .flat_map(|(k, n)| comp(n, k, false))
        .collect();
    panels_chart(
        path,
        vec![
            Panel {
                title: "Tracked frame: position",
                y_label: "position [m]",
                curves: pos,
            },
            Panel {
                title: "Tracked frame: rotation from rest",
                y_label: "rotation vector [rad]",
                curves: rot,
            },
        ],
    )
}

/// `arm.png`: 13 snapshots of the arm in space with the paths of its base and of the tracked
/// frame.
fn plot_arm(path: &Path, run: &SpatialRun, rows: &Rows) -> anyhow::Result<()> {
    let sol = &run.solution;
    let (n, ns) = (sol.t.len(), sol.mesh.elements_s);
    let shapes: Vec<Vec<[f64; 3]>> = (0..=12)
        .map(|k| {
            let j = (k * (n - 1)) / 12;
            (0..=ns).map(|i| sol.position(i, j)).collect()
        })
        .collect();
    space_curves_chart(
        path,
        "Arm snapshots (light: early, dark: late), equal axes",
        &shapes,
        &[
            (
                "tracked frame (prescribed)",
                rows.prescribed.iter().map(|p| p.position).collect(),
            ),
            ("base", rows.base_position.clone()),
        ],
        2,
    )
}

/// The force (or moment) curves of several runs for `stmech compare`: component `k` of
/// each run's force (`moment = false`) or moment against time.
pub fn actuation_series(label: &str, rows: &Rows, moment: bool) -> Vec<Series> {
    let (v, names) = if moment {
        (&rows.moment, ["m_x", "m_y", "m_z"])
    } else {
        (&rows.force, ["f_x", "f_y", "f_z"])
    };
    (0..3)
        .map(|k| Series {
            label: format!("{label} {}", names[k]),
            points: rows.t.iter().zip(v).map(|(&t, x)| (t, x[k])).collect(),
        })
        .collect()
}

/// Rows of a solve without writing anything (for `stmech compare` and Python).
pub fn rows(s: &SpatialInverseScenario, run: &SpatialRun) -> Rows {
    Rows::new(s, run)
}
