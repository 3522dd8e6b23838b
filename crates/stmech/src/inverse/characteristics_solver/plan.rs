//! The steps of the march (the module docs of [`super`]) and the extension of the tip line
//! beyond `t_end` that they need.

use super::{MAX_EXTENSION_FACTOR, bad};
use crate::inverse::characteristics_body::{CharacteristicBody, TipData};
use crate::inverse::solver::{InverseError, SpaceTimeMesh};

/// The steps of one march.
pub(super) struct Plan {
    /// Per element `i` (at index `i − 1`): the lines the march steps to from `s_i`, in
    /// decreasing order, the body's intermediate lines
    /// ([`CharacteristicBody::intermediate_lines`]) and then `s_{i−1}` (none: one step of `hs`).
    pub targets: Vec<Vec<f64>>,
    /// Nodes lost at the top of the domain of determinacy over all steps.
    pub lost: usize,
}

/// The steps and their loss of nodes: each step of length `h` loses at most `ceil(h/(c ht))`
/// nodes at the top of its domain of determinacy, `c` a lower bound of the speeds in that step
/// (at its midpoint, [`TipData::speed_lower_bounds`]). Fails if the tip line would have to be
/// extended beyond [`MAX_EXTENSION_FACTOR`] times the time domain.
pub(super) fn plan<B: CharacteristicBody<N>, const N: usize>(
    body: &B,
    mesh: &SpaceTimeMesh,
    tip: &dyn TipData<N>,
) -> Result<Plan, InverseError> {
    let ns = mesh.elements_s;
    let nt = mesh.elements_t;
    let hs = body.length() / ns as f64;
    let ht = mesh.ht();
    let targets: Vec<Vec<f64>> = (1..=ns)
        .map(|i| {
            let (lo, hi) = ((i - 1) as f64 * hs, i as f64 * hs);
            let mut t = body.intermediate_lines(lo, hi, hs);
            t.retain(|&s| s > lo && s < hi);
            t.push(lo);
            t
        })
        .collect();
    // the midpoints of the steps, element by element from the base
    let mut mids = Vec::with_capacity(ns);
    for i in 1..=ns {
        let t = &targets[i - 1];
        if t.len() == 1 {
            mids.push((i as f64 - 0.5) * hs);
        } else {
            let mut from = i as f64 * hs;
            for &to in t {
                mids.push(0.5 * (from + to));
                from = to;
            }
        }
    }
    let bounds = tip.speed_lower_bounds(mesh.t_start, mesh.t_end, &mids);
    let mut lost = 0usize;
    // steps of the elements above the current one
    let mut above = 0usize;
    for i in (1..=ns).rev() {
        let t = &targets[i - 1];
        let first = mids.len() - above - t.len();
        let mut from = i as f64 * hs;
        for (m, &to) in t.iter().enumerate() {
            let h = if t.len() == 1 { hs } else { from - to };
            let c_low = bounds[first + m];
            let per_line = (h / (c_low * ht) * (1.0 + 1e-9)).ceil();
            let limit = MAX_EXTENSION_FACTOR * nt as f64;
            if !(per_line.is_finite() && per_line <= limit) || lost as f64 + per_line > limit {
                return Err(bad(
                    "mesh",
                    format!(
                        "the waves up to s = {:.4} m are too slow (lower bound {c_low:.3e} m/s \
                         there) for the march: the tip data would have to be extended beyond \
                         time.end by more than {MAX_EXTENSION_FACTOR} times the time domain. \
                         Fix: a longer time domain, a heavier payload or a stiffer body",
                        mids[first + m],
                    ),
                ));
            }
            lost = lost.saturating_add(per_line as usize);
            from = to;
        }
        above += t.len();
    }
    Ok(Plan { targets, lost })
}
