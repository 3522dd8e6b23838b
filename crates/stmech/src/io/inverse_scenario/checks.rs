//! Checks of a beam-inverse scenario that combine several fields.

use super::problem;
use crate::beam::section::{ConstitutiveLaw, SectionProperties};
use crate::error::InputError;
use crate::inverse::mesh_ratio;

/// The actuation leads the tip's motion by up to `L/c_min` and trails it as long (`[I]` §3: the
/// inverse problem carries the tip data to the base along the characteristics). The beam is at
/// rest at `time.start` and nothing is computed after `time.end`, so the time domain must hold
/// `[on − L/c_min, off + L/c_min]` for the motion on `[on, off]`.
pub(super) fn actuation_room(
    section: &SectionProperties,
    law: ConstitutiveLaw,
    length: f64,
    (t_start, t_end): (f64, f64),
    motion: Option<(f64, f64)>,
) -> Vec<InputError> {
    let Some((on, off)) = motion.filter(|(a, b)| a.is_finite() && b.is_finite()) else {
        return Vec::new();
    };
    let speeds = mesh_ratio::MeshRatio::evaluate(section, law, 1.0, 1.0, 1.0);
    let lead = length / speeds.c_min;
    let why = format!(
        "the actuation must act L/c_min = {lead:.4} s ahead of the tip (c_min = {:.4} m/s, the \
         {} wave speed of [I] Eq. 30)",
        speeds.c_min,
        speeds.slowest_wave()
    );
    let slack = 1e-9 * (1.0 + lead.abs());
    let mut out = Vec::new();
    // a motion starting before time.start is reported as trajectory.t0
    if on >= t_start && on - t_start < lead - slack {
        out.push(problem(
            "time.start",
            format!(
                "no room for the pre-actuation: the tip starts moving at t = {on} s, only {:.4} s \
                 after time.start = {t_start} s, but {why} and the beam is at rest at \
                 time.start. Set time.start ≤ {:.4} s, or start the motion at t ≥ {:.4} s",
                on - t_start,
                on - lead,
                t_start + lead
            ),
        ));
    }
    if t_end - off < lead - slack {
        out.push(problem(
            "time.end",
            format!(
                "no room for the post-actuation: the tip stops moving at t = {off} s, {:.4} s \
                 before time.end = {t_end} s, but {why} (and as long after it). Set \
                 time.end ≥ {:.4} s, or end the motion by t = {:.4} s",
                t_end - off,
                off + lead,
                t_end - lead
            ),
        ));
    }
    out
}
