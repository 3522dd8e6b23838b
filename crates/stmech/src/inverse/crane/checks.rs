//! The checks before solving (module docs of [`super`]) and the automatic mesh.

use super::{CraneError, dot};
use crate::inverse::mesh_ratio;
use crate::inverse::solver::SpaceTimeMesh;
use crate::inverse::trajectory::TipTrajectory;
use crate::string::StringModel;

/// Samples per time element (at least) of the path checks.
const PATH_SAMPLES: usize = 8;

/// What [`check_payload_path`] found.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PathReport {
    /// Smallest payload tension `m |ÿ − g|` on the time domain (N).
    pub min_payload_tension: f64,
    /// When (s).
    pub at: f64,
}

/// The sample times of the path checks: `PATH_SAMPLES` per time element of `mesh`, at least
/// 4000 over the domain.
pub(super) fn sample_times(
    t_start: f64,
    t_end: f64,
    elements_t: usize,
) -> impl Iterator<Item = f64> {
    let n = (PATH_SAMPLES * elements_t).max(4000);
    (0..=n).map(move |k| t_start + (t_end - t_start) * k as f64 / n as f64)
}

/// Refuses a path that needs the rope below the payload (module docs); returns the smallest
/// payload tension, which sets the slowest transverse wave.
pub fn check_payload_path(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
    elements_t: usize,
) -> Result<PathReport, CraneError> {
    let up = model.up();
    let g = model.g();
    let mut bad: Option<(f64, f64, f64)> = None;
    let mut report = PathReport {
        min_payload_tension: f64::INFINITY,
        at: t_start,
    };
    // the domain, and the motion interval on its own (a motion shorter than the spacing of the
    // domain's samples would slip through)
    let motion: Vec<f64> = match path.motion_interval() {
        Some((on, off)) if on.is_finite() && off.is_finite() && off > on => {
            let (on, off) = (on.max(t_start), off.min(t_end));
            (0..=4000)
                .map(|k| on + (off - on) * k as f64 / 4000.0)
                .collect()
        }
        _ => Vec::new(),
    };
    for &t in &motion {
        let a = path.acceleration(t);
        if !a.iter().all(|c| c.is_finite()) {
            let duration = path.motion_interval().map_or(f64::NAN, |(a, b)| b - a);
            return Err(CraneError::NotFinite { t, duration });
        }
    }
    let mut samples: Vec<f64> = sample_times(t_start, t_end, elements_t).collect();
    samples.extend(motion);
    samples.sort_by(f64::total_cmp);
    for t in samples {
        let a = path.acceleration(t);
        if !a.iter().all(|c| c.is_finite()) {
            let duration = path.motion_interval().map_or(f64::NAN, |(a, b)| b - a);
            return Err(CraneError::NotFinite { t, duration });
        }
        let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
        let along_up = dot(rel, up);
        let tension = model.payload_mass * dot(rel, rel).sqrt();
        if tension < report.min_payload_tension {
            report = PathReport {
                min_payload_tension: tension,
                at: t,
            };
        }
        // downward acceleration −ÿ·up ≥ g  ⇔  (ÿ − g)·up ≤ 0
        if along_up.is_nan() || along_up <= 0.0 {
            let down = -dot(a, up);
            bad = Some(match bad {
                None => (t, t, down),
                Some((from, _, w)) => (from, t, w.max(down)),
            });
        } else if bad.is_some() {
            break;
        }
    }
    if let Some((from, to, worst)) = bad {
        return Err(CraneError::Slack { from, to, worst, g });
    }
    Ok(report)
}

/// Checks that `y` is at rest at `t_start` and that the domain holds the pre- and
/// post-actuation (the travel time before and after the path's motion interval, when the path
/// reports one).
pub fn check_time_domain(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
) -> Result<(), CraneError> {
    let (v, a) = (path.velocity(t_start), path.acceleration(t_start));
    let (speed, acc) = (dot(v, v).sqrt(), dot(a, a).sqrt());
    let scale = model.length.max(1.0);
    if speed > 1e-9 * scale || acc > 1e-9 * model.g() {
        return Err(CraneError::NotAtRest {
            t: t_start,
            speed,
            acc,
        });
    }
    let Some((t0, t1)) = path.motion_interval() else {
        return Ok(());
    };
    let travel = model.travel_time();
    let (start_max, end_min) = (t0 - travel, t1 + travel);
    let slack = 1e-9 * (1.0 + t_end.abs().max(t_start.abs()));
    let which = if t_start > start_max + slack {
        "pre"
    } else if t_end < end_min - slack {
        "post"
    } else {
        return Ok(());
    };
    Err(CraneError::TimeDomain {
        which,
        t_start,
        t_end,
        t0,
        t1,
        travel,
        start_max,
        end_min,
    })
}

/// Refuses a motion interval shorter than 4 time elements of `mesh` (the path reports it).
pub fn check_resolution(path: &dyn TipTrajectory, mesh: &SpaceTimeMesh) -> Result<(), CraneError> {
    let ht = mesh.ht();
    match path.motion_interval() {
        Some((on, off)) if (off - on).is_nan() || off - on < 4.0 * ht => {
            Err(CraneError::Unresolved {
                duration: off - on,
                ht,
                min: 4.0 * ht,
            })
        }
        _ => Ok(()),
    }
}

/// Slowest transverse wave speed over the manoeuvre: at the payload with the smallest tension
/// (m/s).
pub fn slowest_speed(model: &StringModel, report: &PathReport) -> f64 {
    model.transverse_speed(report.min_payload_tension)
}

/// A mesh on `[t_start, t_end]` with `elements_s` elements along the rope and the time step of
/// sideways Courant number 1 for the slowest transverse wave.
pub fn auto_mesh(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
    elements_s: usize,
) -> Result<SpaceTimeMesh, CraneError> {
    let report = check_payload_path(model, path, t_start, t_end, 1)?;
    let c = slowest_speed(model, &report);
    Ok(SpaceTimeMesh {
        t_start,
        t_end,
        elements_s,
        elements_t: mesh_ratio::auto_elements_t_for_speed(
            c,
            model.length,
            t_end - t_start,
            elements_s,
        ),
    })
}
