//! `summary.json` of a spatial inverse run: the solved problem's figures with the closed-loop
//! outcome, and the summary of a failed solve.

use super::{
    ClosedLoop, GOAL_NOT_REACHED, NOT_VERIFIED, Rows, SpatialInverseScenario, diff, norm,
    not_verified,
};
use serde_json::json;
use stmech::inverse::spatial::solve::FAMILY_NAMES;
use stmech::inverse::spatial::{SpatialRun, wave_speeds};
use stmech::inverse::{InverseError, InverseMethod, mesh_ratio};
use stmech::math::Vec3;

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
    let mut unverified = false;
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
            unverified = true;
            failure = Some(format!(
                "the result is not verified: the closed-loop replay of the actuation failed \
                 ({e}); the actuation is neither confirmed nor refuted. Remedy: a finer mesh \
                 often makes the replay solvable; or switch the check off with \
                 inverse.verify.closed_loop = false"
            ));
            json!({
                "description": what,
                "status": "replay failed",
                "verified": false,
                "within_tolerance": null,
                "tolerance": tolerance,
                "closed_loop": null,
                "error": e,
            })
        }
    };
    if let Some(msg) = &failure {
        v["status"] = json!(if unverified {
            NOT_VERIFIED
        } else {
            GOAL_NOT_REACHED
        });
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
    let history = e
        .newton_history()
        .map_or(serde_json::Value::Null, |h| json!(h));
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
        "servo": s.servo.name(),
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
