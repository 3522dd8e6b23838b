//! The checks before solving of the crane's inverse problem (module docs of
//! [`super`]): the payload path, the time domain, the resolution of the motion, and the mesh
//! ratio with the element-wise transverse speed.

use super::CraneError;
use crate::inverse::mesh_ratio::{self, MeshRatioError};
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
    /// Smallest `|ÿ − g|` on the time domain (m/s²): the quasi-static tension is at least
    /// `|ÿ − g|_min (m + ρA (L − s))` ([`element_speed`]).
    pub min_relative_acceleration: f64,
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

pub(super) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
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
        min_relative_acceleration: f64::INFINITY,
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
        let a_rel = dot(rel, rel).sqrt();
        if a_rel < report.min_relative_acceleration {
            report = PathReport {
                min_payload_tension: model.payload_mass * a_rel,
                min_relative_acceleration: a_rel,
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

/// Slowest transverse wave speed over the manoeuvre at the payload, under its smallest
/// tension (m/s): the limit `hs → 0` of [`element_speed`]; zero without a payload.
pub fn slowest_speed(model: &StringModel, report: &PathReport) -> f64 {
    model.transverse_speed(report.min_payload_tension)
}

/// Transverse speed of the element of length `hs` whose midpoint is `s_e`, under the
/// quasi-static lower bound of its tension `N_e = a_min (m + ρA (L − s_e))`,
/// `a_min = min_t |ÿ − g|` (m/s). In statics the discrete tension of a linear element is
/// exactly this midpoint value (theory.md, "Statics").
pub fn element_speed(model: &StringModel, report: &PathReport, s_e: f64) -> f64 {
    quasi_static_speed(model, report.min_relative_acceleration, s_e)
}

/// The transverse speed at `s` under the quasi-static tension `a (m + ρA (L − s))` (m/s).
pub fn quasi_static_speed(model: &StringModel, a: f64, s: f64) -> f64 {
    let below = (model.length - s).max(0.0);
    model.transverse_speed(a * (model.payload_mass + model.rho_a * below))
}

/// The slowest element speed on a mesh with `hs = L/n_s`: the last element's,
/// [`element_speed`] at `s_e = L − hs/2` (m/s). Positive for `hs > 0` even without a payload.
pub fn slowest_element_speed(model: &StringModel, report: &PathReport, hs: f64) -> f64 {
    element_speed(model, report, model.length - 0.5 * hs)
}

/// What the slowest element speed is, for messages.
pub const SLOWEST_WAVE: &str = "transverse wave speed sqrt(N/(ν ρA)) in the last element, \
     under the quasi-static tension min|ÿ − g| (m + ρA hs/2) at its midpoint";

/// The mesh-ratio condition with the element-wise speed (module docs): `μ = hs/(c ht) ≤ 2`
/// with `c` the slowest element speed, [`slowest_element_speed`]. Returns `μ`.
pub fn check_mesh_ratio(
    model: &StringModel,
    report: &PathReport,
    duration: f64,
    elements_s: usize,
    elements_t: usize,
) -> Result<f64, MeshRatioError> {
    mesh_ratio::check_speed_of(
        &|hs| slowest_element_speed(model, report, hs),
        SLOWEST_WAVE,
        model.length,
        duration,
        elements_s,
        elements_t,
    )
}

/// The number of time elements of sideways Courant number 1 at the slowest element speed
/// ([`mesh_ratio::auto_elements_t_for_speed`]).
pub fn auto_elements_t(
    model: &StringModel,
    report: &PathReport,
    duration: f64,
    elements_s: usize,
) -> usize {
    let hs = model.length / elements_s as f64;
    mesh_ratio::auto_elements_t_for_speed(
        slowest_element_speed(model, report, hs),
        model.length,
        duration,
        elements_s,
    )
}

/// A mesh on `[t_start, t_end]` with `elements_s` elements along the rope and the time step of
/// sideways Courant number 1 for the slowest element speed ([`auto_elements_t`]).
pub fn auto_mesh(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t_start: f64,
    t_end: f64,
    elements_s: usize,
) -> Result<SpaceTimeMesh, CraneError> {
    let report = check_payload_path(model, path, t_start, t_end, 1)?;
    Ok(SpaceTimeMesh {
        t_start,
        t_end,
        elements_s,
        elements_t: auto_elements_t(model, &report, t_end - t_start, elements_s),
    })
}
