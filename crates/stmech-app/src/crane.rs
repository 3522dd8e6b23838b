//! Crane (`problem = "crane"`, issue 17): the inverse dynamics of a rope with a payload, the
//! closed-loop replay in the forward rope model, and the files `suspension.csv`,
//! `payload.csv`, `rope.pvd` (+ `rope_NNNN.vtu`), `suspension.png`, `payload.png`, `rope.png`
//! (3D snapshots) and `summary.json`.

use crate::AppError;
use crate::plots::{Series, space_curves_chart, xy_chart};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use stmech::inverse::crane::{self, CraneError, CraneSolution, CraneTracking};
use stmech::io::inverse_scenario::crane::CraneScenario;
use stmech::io::output::{OutputDir, write_file, write_json};

/// `summary.json` status of a run that solved but failed its verification.
pub const GOAL_NOT_REACHED: &str = "goal-not-reached";

/// `summary.json` status of a run that solved but whose closed-loop replay could not be done
/// (exit 6; the beam inverse's [`crate::inverse::NOT_VERIFIED`]).
pub use crate::inverse::NOT_VERIFIED;

/// Whether a failed replay leaves the result neither confirmed nor refuted: the replay's own
/// Newton did not converge while the payload was within `tol` of its path (a collapsed
/// element, or a payload already off its path, means the goal is not reached).
pub fn replay_unverified(e: &CraneError, tol: f64) -> bool {
    matches!(
        e,
        CraneError::Replay {
            source: stmech::string::dynamics::StringStepError::Newton { .. },
            deviation,
            ..
        } if *deviation <= tol
    )
}

/// The `summary.json` status and the message of a failed replay ([`replay_unverified`]: not
/// verified; otherwise the goal is not reached).
pub fn replay_failure(e: &CraneError, tol: f64) -> (&'static str, String) {
    if replay_unverified(e, tol) {
        (
            NOT_VERIFIED,
            format!(
                "the result is not verified: its closed-loop replay failed ({e}); the \
                 suspension motion is neither confirmed nor refuted. Remedy: a finer replay \
                 (verify.refine) or a finer mesh often makes the replay solvable; or switch \
                 the check off with verify.closed_loop = false"
            ),
        )
    } else {
        (
            GOAL_NOT_REACHED,
            format!("the forward replay of the suspension motion failed: {e}"),
        )
    }
}

/// Largest number of VTK snapshots (`rope_NNNN.vtu`) a run writes, besides the last.
const VTK_FRAMES: usize = 200;

/// Solves the scenario's crane problem with its `method`.
pub fn solve(s: &CraneScenario) -> Result<CraneSolution, CraneError> {
    crane::solve_crane_with(s.method, &s.rope, &s.mesh, s.trajectory.as_ref(), &s.newton)
}

/// Whether a solver error is the input's fault (exit code 2 in the CLI) rather than the
/// solver's (3).
pub fn is_input_error(e: &CraneError) -> bool {
    use stmech::inverse::InverseError;
    matches!(
        e,
        CraneError::Solve(InverseError::Input(_))
            | CraneError::Solve(InverseError::MeshRatio(_))
            | CraneError::Solve(InverseError::Trajectory(_))
            | CraneError::Input(_)
            | CraneError::Slack { .. }
            | CraneError::TimeDomain { .. }
            | CraneError::NotAtRest { .. }
            | CraneError::NotFinite { .. }
            | CraneError::Unresolved { .. }
            | CraneError::MeshRatio(_)
    )
}

/// The closed-loop replay: the figures with the payload at the time nodes, and its seconds;
/// `None` when `verify.closed_loop = false`.
pub type Replay = Option<Result<((CraneTracking, Vec<[f64; 3]>), f64), CraneError>>;

/// Replays the suspension motion in the forward rope model unless switched off.
pub fn replay(s: &CraneScenario, sol: &CraneSolution) -> Replay {
    s.verify.closed_loop.then(|| {
        let t = Instant::now();
        crane::closed_loop(sol, s.trajectory.as_ref(), s.verify.refine)
            .map(|r| (r, t.elapsed().as_secs_f64()))
    })
}

/// What [`write_results`] wrote.
pub struct Written {
    /// The run summary (also in `summary.json`).
    pub summary: serde_json::Value,
    /// The files written, for messages.
    pub files: Vec<&'static str>,
    /// The closed-loop replay.
    pub replay: Replay,
    /// Why the result fails its verification (`None`: it passes or was not checked).
    pub failure: Option<String>,
}

/// Writes every result file of a solved crane problem into `dir`, `summary.json` last.
/// `replay` gives the closed-loop replay ([`replay`], or one already computed); `secs` is the
/// solve time written into the summary.
pub fn write_results(
    s: &CraneScenario,
    sol: &CraneSolution,
    secs: f64,
    dir: &OutputDir,
    plots: bool,
    replay: impl FnOnce() -> Replay,
) -> Result<Written, AppError> {
    let output_start = Instant::now();
    let replay = replay();
    let replayed = match &replay {
        Some(Ok(((_, samples), _))) => Some(samples.as_slice()),
        _ => None,
    };
    write_csvs(dir.path(), s, sol, replayed).map_err(|e| AppError::write(&e))?;
    let mut files = vec!["suspension.csv", "payload.csv", "rope.pvd"];
    let n = sol.solution.t.len();
    let stride = n.div_ceil(VTK_FRAMES).max(1);
    let snaps: Vec<_> = (0..n)
        .filter(|j| j % stride == 0 || *j == n - 1)
        .map(|j| sol.snapshot(j))
        .collect();
    stmech::io::vtk::write_scene_series(dir.path(), "rope", &snaps)?;
    if plots {
        write_plots(dir.path(), s, sol, replayed).map_err(|e| AppError::write(&e))?;
        files.extend(["suspension.png", "payload.png", "rope.png"]);
    }
    let (mut summary, failure) = summary(s, sol, secs, &replay);
    summary["output_wall_time_seconds"] = output_start.elapsed().as_secs_f64().into();
    write_json(&dir.file("summary.json"), &summary)?;
    files.push("summary.json");
    Ok(Written {
        summary,
        files,
        replay,
        failure,
    })
}

/// The run summary of a solved crane problem with its closed-loop replay, and why the result
/// fails its verification (`None`: it passes or was not checked). `status` is `"ok"`,
/// [`GOAL_NOT_REACHED`] or, where the replay's own Newton failed with the payload on its
/// path, [`NOT_VERIFIED`].
pub fn summary(
    s: &CraneScenario,
    sol: &CraneSolution,
    secs: f64,
    replay: &Replay,
) -> (serde_json::Value, Option<String>) {
    let tol = s.position_tolerance();
    let mut summary = summary_ok(s, sol, secs);
    let mut failure = None;
    match replay {
        None => {
            summary["payload_tracking"] =
                json!({ "status": "not verified (verify.closed_loop = false)" })
        }
        Some(Ok(((r, _), seconds))) => {
            summary["payload_tracking"] = tracking_json(r, tol, *seconds);
            if r.max_deviation > tol {
                failure = Some(format!(
                    "the result does not reach its goal: driven by the computed suspension \
                     motion, the forward rope ({} elements, Δt = {:.3e} s) moves the payload up \
                     to {:.3e} m from the path (at t = {:.3} s; tolerance {tol:.3e} m). Remedy: \
                     refine the mesh (mesh.resolution), slow the manoeuvre down, or raise \
                     verify.position_tolerance",
                    r.elements_s, r.dt, r.max_deviation, r.at
                ));
            }
        }
        Some(Err(e)) => {
            let (status, msg) = replay_failure(e, tol);
            summary["payload_tracking"] = json!({
                "status": if status == NOT_VERIFIED { "not verified (the replay failed)" } else { "failed" },
                "error": e.to_string(),
            });
            summary["status"] = json!(status);
            failure = Some(msg);
        }
    }
    if let Some(msg) = &failure {
        if summary["status"] == "ok" {
            summary["status"] = json!(GOAL_NOT_REACHED);
        }
        summary["error"] = json!(msg);
    }
    (summary, failure)
}

/// The `summary.json` of a failed run.
pub fn failed_summary(s: &CraneScenario, e: &CraneError, secs: f64) -> serde_json::Value {
    let history = match e {
        CraneError::Solve(e) => e
            .newton_history()
            .map_or(serde_json::Value::Null, |h| json!(h)),
        _ => serde_json::Value::Null,
    };
    json!({
        "stmech_version": crate::VERSION,
        "status": "failed",
        "problem": "crane",
        "method": s.method.name(),
        "error": e.to_string(),
        "newton_residuals": history,
        "scenario": { "origin": s.origin, "input": s.echo },
        "wall_time_seconds": secs,
    })
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// Largest distance of the suspension point from the rigid-rope flat output, and when.
pub fn rigid_difference(s: &CraneScenario, sol: &CraneSolution) -> (f64, f64) {
    let rope = sol.solution.beam;
    (0..sol.solution.t.len()).fold((0.0, 0.0), |(m, at), j| {
        let t = sol.solution.t[j];
        let (x, r) = (
            sol.suspension(j),
            crane::rigid_suspension(&rope, s.trajectory.as_ref(), t),
        );
        let d = norm([x[0] - r[0], x[1] - r[1], x[2] - r[2]]);
        if d > m { (d, t) } else { (m, at) }
    })
}

/// `payload_tracking` of `summary.json` (also `stmech compare`'s per method).
pub fn tracking_json(r: &CraneTracking, tol: f64, seconds: f64) -> serde_json::Value {
    json!({
        "status": if r.max_deviation <= tol { "ok" } else { "above tolerance" },
        "max_deviation_m": r.max_deviation,
        "at_time_s": r.at,
        "tolerance_m": tol,
        "payload_travel_m": r.travel,
        "forward_elements": r.elements_s,
        "forward_dt_s": r.dt,
        "forward_model": "linear elements, tension-only law, midpoint discrete gradient",
        "seconds": seconds,
    })
}

fn summary_ok(s: &CraneScenario, sol: &CraneSolution, secs: f64) -> serde_json::Value {
    let st = &sol.solution;
    let n = st.t.len();
    let peak = |f: &dyn Fn(usize) -> f64| (0..n).map(f).fold(0.0f64, f64::max);
    let (dx, dx_at) = rigid_difference(s, sol);
    let rope = st.beam;
    json!({
        "stmech_version": crate::VERSION,
        "status": "ok",
        "problem": "crane",
        "method": sol.method.name(),
        "rope": rope,
        "mesh": st.mesh,
        "mesh_ratio": {
            "courant": sol.courant,
            "limited": sol.method == stmech::inverse::InverseMethod::SpaceTime,
            "slowest_transverse_speed_m_per_s": crane::slowest_element_speed(
                &rope,
                &sol.path,
                rope.length / st.mesh.elements_s as f64,
            ),
            "axial_speed_m_per_s": rope.axial_speed(),
            "limit": stmech::inverse::mesh_ratio::LIMIT,
        },
        "travel_time_s": rope.travel_time(),
        "path": sol.path,
        "min_stretch": sol.min_stretch,
        "newton": sol.march.is_none().then_some(&st.newton),
        "newton_continuation": sol.continuation,
        "march": sol.march,
        "suspension": {
            "sign_convention": "force = the force the suspension point applies to the rope (N)",
            "peak_speed": peak(&|j| norm(sol.suspension_velocity(j))),
            "peak_acceleration": peak(&|j| norm(sol.suspension_acceleration(j))),
            "peak_force": peak(&|j| norm(st.actuation[j])),
            "max_distance_from_rigid_rope_m": dx,
            "max_distance_from_rigid_rope_at_s": dx_at,
        },
        "scenario": { "origin": s.origin, "input": s.echo },
        "wall_time_seconds": secs,
    })
}

fn write_csvs(
    dir: &Path,
    s: &CraneScenario,
    sol: &CraneSolution,
    replayed: Option<&[[f64; 3]]>,
) -> anyhow::Result<()> {
    let st = &sol.solution;
    write_file(&dir.join("suspension.csv"), |w| {
        writeln!(w, "t,x,y,z,v_x,v_y,v_z,a_x,a_y,a_z,f_x,f_y,f_z")?;
        for j in 0..st.t.len() {
            let (x, v, a, f) = (
                sol.suspension(j),
                sol.suspension_velocity(j),
                sol.suspension_acceleration(j),
                st.actuation[j],
            );
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                st.t[j], x[0], x[1], x[2], v[0], v[1], v[2], a[0], a[1], a[2], f[0], f[1], f[2]
            )?;
        }
        Ok(())
    })?;
    write_file(&dir.join("payload.csv"), |w| {
        writeln!(
            w,
            "t,prescribed_x,prescribed_y,prescribed_z,achieved_x,achieved_y,achieved_z,deviation"
        )?;
        for j in 0..st.t.len() {
            let y = s.trajectory.pose(st.t[j]);
            // achieved: the forward replay if it ran, else the inverse solution itself
            let p = replayed
                .and_then(|r| r.get(j).copied())
                .unwrap_or_else(|| st.x_at(st.mesh.elements_s, j));
            let d = norm([p[0] - y[0], p[1] - y[1], p[2] - y[2]]);
            writeln!(
                w,
                "{},{},{},{},{},{},{},{d}",
                st.t[j], y[0], y[1], y[2], p[0], p[1], p[2]
            )?;
        }
        Ok(())
    })?;
    Ok(())
}

fn write_plots(
    dir: &Path,
    s: &CraneScenario,
    sol: &CraneSolution,
    replayed: Option<&[[f64; 3]]>,
) -> anyhow::Result<()> {
    let st = &sol.solution;
    let rope = st.beam;
    let names = ["x", "y", "z"];
    let mut series = Vec::new();
    for (c, name) in names.iter().enumerate() {
        series.push(Series {
            label: format!("suspension {name}"),
            points: (0..st.t.len())
                .map(|j| (st.t[j], sol.suspension(j)[c]))
                .collect(),
        });
        series.push(Series {
            label: format!("rigid rope {name}"),
            points: (0..st.t.len())
                .map(|j| {
                    let t = st.t[j];
                    (
                        t,
                        crane::rigid_suspension(&rope, s.trajectory.as_ref(), t)[c],
                    )
                })
                .collect(),
        });
    }
    xy_chart(
        &dir.join("suspension.png"),
        "Suspension point: computed (flexible rope) and rigid-rope flat output",
        "t (s)",
        "position (m)",
        &series,
    )?;
    let mut series = Vec::new();
    for (c, name) in names.iter().enumerate() {
        series.push(Series {
            label: format!("prescribed {name}"),
            points: (0..st.t.len())
                .map(|j| (st.t[j], s.trajectory.pose(st.t[j])[c]))
                .collect(),
        });
        if let Some(r) = replayed {
            series.push(Series {
                label: format!("achieved (forward replay) {name}"),
                points: (0..st.t.len().min(r.len()))
                    .map(|j| (st.t[j], r[j][c]))
                    .collect(),
            });
        }
    }
    // 3D snapshots of the rope (12 between the first and the last time node) with the paths
    // of its ends
    let n = st.t.len();
    let ns = st.mesh.elements_s;
    let snaps: Vec<Vec<[f64; 3]>> = (0..=12)
        .map(|k| {
            let j = (k * (n - 1)) / 12;
            (0..=ns).map(|i| st.x_at(i, j)).collect()
        })
        .collect();
    let up = {
        let g = rope.gravity;
        (0..3)
            .max_by(|&a, &b| g[a].abs().total_cmp(&g[b].abs()))
            .unwrap_or(2)
    };
    space_curves_chart(
        &dir.join("rope.png"),
        "Rope snapshots (light: early, dark: late), equal axes",
        &snaps,
        &[
            (
                "suspension point",
                (0..n).map(|j| sol.suspension(j)).collect(),
            ),
            (
                "payload (prescribed)",
                (0..n).map(|j| s.trajectory.pose(st.t[j])).collect(),
            ),
        ],
        up,
    )?;
    xy_chart(
        &dir.join("payload.png"),
        "Payload: prescribed path and the forward replay",
        "t (s)",
        "position (m)",
        &series,
    )?;
    Ok(())
}
