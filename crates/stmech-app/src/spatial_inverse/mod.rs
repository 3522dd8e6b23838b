//! Spatial inverse dynamics (`analysis = "inverse"`, issue 16): the solve, the closed-loop
//! verification (one seam, [`closed_loop`]), and the files `actuation.csv`, `base.csv`,
//! `tip.csv`, `scene.pvd` (+ `scene_NNNN.vtu`), `actuation.png`, `tip.png`, `arm.png` and
//! `summary.json`.
//!
//! Every output is computed from [`Rows`], the per-time-node quantities evaluated once
//! (actuation, rigid-arm reference, base pose, tracked frame): the whole post-processing is
//! linear in the number of mesh nodes (the VTK series visits at most 201 time nodes, each
//! once per space node).

mod charts;
mod files;
mod summary;
#[cfg(test)]
mod tests;

pub use charts::actuation_series;
pub use files::snapshot;
pub use summary::{failed_summary, summary};

use crate::AppError;
use charts::{plot_tip, write_plots};
use files::{write_csvs, write_tip_csv, write_vtk};
use std::sync::Arc;
use std::time::Instant;
use stmech::inverse::InverseError;
use stmech::inverse::spatial::SpatialRun;
use stmech::inverse::spatial::closed_loop::{
    ClosedLoopError, ForwardResolution, Replay, rotation_angle,
};
use stmech::inverse::spatial::rigid::rigid_actuation;
use stmech::inverse::spatial::solve::solve_position_only;
use stmech::inverse::trajectory::pose::Pose;
use stmech::inverse::trajectory::pose_csv::PoseCsvTrajectory;
use stmech::io::output::{OutputDir, write_json};
use stmech::io::scenario::{BaseActuation, ServoTarget, SpatialInverseScenario};
use stmech::math::Vec3;
use stmech::math::rotation::{Quat, quat_conj, quat_from_frame, quat_mul};
use stmech::math::so3::Rotation;

/// `summary.json` status of a run that solved but failed its verification (exit 5).
pub const GOAL_NOT_REACHED: &str = "goal-not-reached";
pub use crate::inverse::NOT_VERIFIED;

/// Largest number of VTK snapshots (`scene_NNNN.vtu`) a run writes, besides the last.
const VTK_FRAMES: usize = 200;

/// Solves the scenario's spatial inverse problem with its `method` (the servo follows the
/// beam tip's path: the tracked body's converted, [`SpatialInverseScenario::tip_path`]).
pub fn solve(s: &SpatialInverseScenario) -> Result<SpatialRun, InverseError> {
    let path = s.tip_path();
    match s.servo {
        ServoTarget::Pose => {
            stmech::inverse::spatial::solve_with(s.method, &s.beam, &s.mesh, &path, &s.newton)
        }
        ServoTarget::Position => {
            let started = Instant::now();
            let solution = solve_position_only(&s.beam, &s.mesh, &path, &s.newton)?;
            Ok(SpatialRun {
                solution,
                method: s.method,
                march: None,
                seconds: started.elapsed().as_secs_f64(),
            })
        }
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
    Some(replay(s, run).map_err(|e| e.to_string()))
}

/// The replay of [`closed_loop`]: `actuation = "force"` applies the computed force and moment
/// to the first node of a free base, `"motion"` moves a clamp along the computed base pose
/// (sampled at the time nodes, interpolated like a pose CSV); the forward model is
/// [`ForwardResolution::finer_than`] the inverse mesh. The beam tip's replayed poses are
/// carried to the tracked frame (a welded body's pose follows from the tip's) and compared
/// with its prescribed path.
fn replay(
    s: &SpatialInverseScenario,
    run: &SpatialRun,
) -> Result<(Tracking, f64), ClosedLoopError> {
    let started = Instant::now();
    let sol = &run.solution;
    let n = sol.t.len();
    let replay = match s.actuation {
        BaseActuation::Force => {
            let (force, moment) = (0..n).map(|j| sol.base_actuation(j)).unzip();
            Replay::Force {
                t: sol.t.clone(),
                force,
                moment,
            }
        }
        BaseActuation::Motion => {
            let positions: Vec<Vec3> = (0..n).map(|j| sol.position(0, j)).collect();
            let directors: Vec<[Vec3; 3]> = (0..n).map(|j| sol.directors(0, j)).collect();
            let base = PoseCsvTrajectory::from_samples(
                "the computed base motion",
                &sol.t,
                &positions,
                &directors,
            )
            .map_err(|e| ClosedLoopError::Model(e.to_string()))?;
            Replay::Motion(Arc::new(base))
        }
    };
    let tip_path = s.tip_path();
    let res = ForwardResolution::finer_than(s.mesh.elements_s, s.mesh.ht());
    let (t0, t1) = (s.mesh.t_start, s.mesh.t_end);
    let tracking = stmech::inverse::spatial::closed_loop::closed_loop(
        &s.beam, &replay, &tip_path, t0, t1, &res,
    )?;
    let mut out = Tracking {
        max_position: 0.0,
        position_at: t0,
        max_angle: 0.0,
        angle_at: t0,
        samples: Vec::with_capacity(tracking.samples.len()),
    };
    for sample in &tracking.samples {
        let pose = s.tracked_pose(&Pose {
            position: sample.position,
            directors: sample.directors,
        });
        let goal = s.trajectory.state(sample.t).pose;
        let e_r = norm(&diff(&pose.position, &goal.position));
        // the position-only servo leaves the frame free: no angle to deviate from
        let e_a = match s.servo {
            ServoTarget::Pose => rotation_angle(&pose.directors, &goal.directors),
            ServoTarget::Position => 0.0,
        };
        if e_r > out.max_position {
            (out.max_position, out.position_at) = (e_r, sample.t);
        }
        if e_a > out.max_angle {
            (out.max_angle, out.angle_at) = (e_a, sample.t);
        }
        out.samples.push((sample.t, pose));
    }
    Ok((out, started.elapsed().as_secs_f64()))
}

/// Why there is no closed-loop figure (the summary's `tip_tracking.note`).
fn not_verified(_s: &SpatialInverseScenario) -> &'static str {
    "inverse.verify.closed_loop = false"
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
            let tip = Pose {
                position: sol.position(ns, j),
                directors: sol.directors(ns, j),
            };
            let mut prescribed = s.trajectory.state(t).pose;
            if s.servo == ServoTarget::Position {
                // the frame is free: the prescribed pose is the position with the computed frame
                prescribed.directors = tip.directors;
            }
            r.prescribed.push(prescribed);
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

/// Rows of a solve without writing anything (for `stmech compare` and Python).
pub fn rows(s: &SpatialInverseScenario, run: &SpatialRun) -> Rows {
    Rows::new(s, run)
}
