//! One node of the march (the module docs of [`super`]): the cubic interpolation of a line in
//! `t` ([`LineView`]) and the per-node fixed point on the `2N × 2N` compatibility system
//! ([`march_node`]).

use super::{CharacteristicsSettings, RELAX_AFTER, RELAXATION};
use crate::inverse::characteristics_body::{CharacteristicBody, State};
use crate::inverse::element::ElementError;
use crate::solve::newton::FLOOR_FACTOR;

/// Cubic Lagrange interpolation in `t` on one line; nodes below index 0 are the rest state.
pub(super) struct LineView<'a, const N: usize> {
    pub(super) states: &'a [State<N>],
    pub(super) top: usize,
    pub(super) rest: State<N>,
    pub(super) t_start: f64,
    pub(super) ht: f64,
}

impl<const N: usize> LineView<'_, N> {
    fn node(&self, m: isize) -> &State<N> {
        if m < 0 {
            &self.rest
        } else {
            &self.states[m as usize]
        }
    }

    /// State at time `tau`, or `None` above the valid range of the line.
    pub(super) fn at(&self, tau: f64) -> Option<State<N>> {
        let u = (tau - self.t_start) / self.ht;
        let top = self.top as f64;
        if u > top + 1e-9 {
            return None;
        }
        let k = u.floor() as isize;
        let base = (k - 1).min(self.top as isize - 3);
        let xi = u - base as f64; // position in the stencil base..base+3
        // Lagrange weights on the nodes 0, 1, 2, 3 of the stencil
        let w = [
            -(xi - 1.0) * (xi - 2.0) * (xi - 3.0) / 6.0,
            xi * (xi - 2.0) * (xi - 3.0) / 2.0,
            -xi * (xi - 1.0) * (xi - 3.0) / 2.0,
            xi * (xi - 1.0) * (xi - 2.0) / 6.0,
        ];
        let mut out = State::ZERO;
        for (m, wm) in w.iter().enumerate() {
            let s = self.node(base + m as isize);
            for c in 0..N {
                out.x[c] += wm * s.x[c];
                out.v[c] += wm * s.v[c];
                out.p[c] += wm * s.p[c];
            }
        }
        Some(out)
    }
}

/// Largest compatibility system: `2N` rows for `N ≤ 6`.
const MAX_ROWS: usize = 12;

/// Gaussian elimination with partial pivoting for the `n × n` compatibility system (`n ≤ 12`).
fn solve_small(
    mut a: [[f64; MAX_ROWS]; MAX_ROWS],
    mut b: [f64; MAX_ROWS],
    n: usize,
) -> Option<[f64; MAX_ROWS]> {
    for c in 0..n {
        let piv = (c..n).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[piv][c] == 0.0 || !a[piv][c].is_finite() {
            return None;
        }
        a.swap(piv, c);
        b.swap(piv, c);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            for k in c..n {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = [0.0; MAX_ROWS];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

/// Outcome of one node.
pub(super) enum NodeResult<const N: usize> {
    /// The state, the iterations, the speed range met, and whether it was accepted at its
    /// round-off floor ([`round_off_floor`]) or stall level only.
    Done(State<N>, usize, [f64; 2], bool),
    /// A foot lies above the valid range of the previous line.
    OutsideDomain,
}

/// Failure at one node.
pub(super) enum NodeError {
    /// The law is undefined at a midpoint state (log law, `ν ≤ 0`).
    Law(ElementError, usize),
    /// The fixed-point iteration did not settle (or produced non-finite values).
    NotConverged { iterations: usize, change: f64 },
}

/// One node `Q = (s_{i−1}, t_j)` from the line `s_i` (`prev`: the state at `(s_i, t_j)`;
/// `guess`: the predictor for `Q`; `hs`: the step, an element or one of its intermediate steps).
pub(super) fn march_node<B: CharacteristicBody<N>, const N: usize>(
    body: &B,
    line: &LineView<'_, N>,
    prev: &State<N>,
    guess: State<N>,
    tj: f64,
    hs: f64,
    settings: &CharacteristicsSettings,
) -> Result<NodeResult<N>, NodeError> {
    let mut q = guess;
    // `x` is not an unknown of the fixed point: it follows from `p` by the trapezoidal rule,
    // also at the predictor, so that every iterate's change is that of `(v, p)`
    // ([`relative_change`])
    for a in 0..N {
        q.x[a] = prev.x[a] - 0.5 * hs * (q.p[a] + prev.p[a]);
    }
    // the first feet: the speeds at the predictor, or at the segment from (s_i, t_j) to it
    let first = if body.first_speeds_on_segment() {
        body.segment_state(prev, &q)
    } else {
        q
    };
    let a0 = body
        .characteristics(&first)
        .map_err(|e| NodeError::Law(e, 0))?;
    let rows = 2 * N;
    let mut c_row = [0.0; MAX_ROWS];
    for r in 0..rows {
        c_row[r] = a0.speeds[r / 2];
    }
    let mut change = f64::INFINITY;
    for it in 1..=settings.max_iterations {
        let mut m = [[0.0; MAX_ROWS]; MAX_ROWS];
        let mut rhs = [0.0; MAX_ROWS];
        let mut range = [f64::INFINITY, 0.0f64];
        let mut inertia = [[0.0; N]; N];
        let node_data = body.segment_node(&q);
        for r in 0..rows {
            let (k, sign) = (r / 2, if r % 2 == 0 { 1.0 } else { -1.0 });
            let Some(p) = line.at(tj + sign * hs / c_row[r]) else {
                return Ok(NodeResult::OutsideDomain);
            };
            let mid = body.segment_state_at(&p, &q, node_data);
            let an = body
                .characteristics(&mid)
                .map_err(|e| NodeError::Law(e, it))?;
            let (c, e) = (an.speeds[k], an.modes[k]);
            c_row[r] = c;
            inertia = an.inertia;
            range = [range[0].min(c), range[1].max(c)];
            let mut b = -sign * hs / c * (0..N).map(|a| e[a] * an.source[a]).sum::<f64>();
            for a in 0..N {
                // (M e)_a: the inertia is symmetric
                let ea = (0..N).map(|d| an.inertia[a][d] * e[d]).sum::<f64>();
                m[r][a] = ea;
                m[r][N + a] = -sign * c * ea;
                b += ea * p.v[a] - sign * c * ea * p.p[a];
            }
            rhs[r] = b;
        }
        let Some(sol) = solve_small(m, rhs, rows) else {
            return Err(NodeError::NotConverged {
                iterations: it,
                change,
            });
        };
        let mut next = q;
        for a in 0..N {
            next.v[a] = sol[a];
            next.p[a] = sol[N + a];
            next.x[a] = prev.x[a] - 0.5 * hs * (sol[N + a] + prev.p[a]);
        }
        // a fixed point that has not converged in RELAX_AFTER iterations is under-relaxed
        if it > RELAX_AFTER {
            next = State::from_fn(|c| q.get(c) + RELAXATION * (next.get(c) - q.get(c)));
        }
        let last = change;
        change = relative_change(&m, &c_row, rows, &inertia, &q, &next);
        q = next;
        if !(change.is_finite() && (0..3 * N).all(|c| q.get(c).is_finite())) {
            return Err(NodeError::NotConverged {
                iterations: it,
                change,
            });
        }
        if change <= settings.tolerance {
            return Ok(NodeResult::Done(q, it, range, false));
        }
        if change <= settings.tolerance + round_off_floor(range)
            || (change <= settings.stall && change >= last)
        {
            return Ok(NodeResult::Done(q, it, range, true));
        }
    }
    Err(NodeError::NotConverged {
        iterations: settings.max_iterations,
        change,
    })
}

/// The round-off floor of [`relative_change`] at a node whose speeds span `[c_min, c_max]`:
/// `F ε c_max / c_min` (`F` = [`FLOOR_FACTOR`], as for Newton). The compatibility system is
/// solved for Cartesian `(v, p)`; its rows of the fastest family carry terms `c_max |p|`, so
/// the computed velocity is uncertain by about `ε c_max |p|` in every direction, and the
/// slowest family measures that velocity over `c_min` (docs/theory.md §8, "The nodal stop").
/// Measured stalls: up to 4.4e-14 on the steel wire rope (`c_max/c_min ≈ 1800`, floor
/// 3.2e-12); 1.8e-15 for a beam with equal speeds.
pub(super) fn round_off_floor(range: [f64; 2]) -> f64 {
    FLOOR_FACTOR * f64::EPSILON * (range[1] / range[0])
}

/// The change of a node's state from `q` to `next`, relative to its tangent, family by
/// family (docs/theory.md §8, "The nodal stop"): with the rows' `(M e)_r` and speeds `c_r` of
/// the last evaluation (the first `N` columns of `rows`),
///
/// ```text
/// δ = max_r max(|(M e)_r · δv| / c_r, |(M e)_r · δp|) / √(pᵀ M p)
/// ```
///
/// Each family's change of velocity is measured by the change of tangent it carries along its
/// characteristic (`v ∓ c p` is its Riemann invariant: a velocity is known to `c` times a
/// tangent), so the fast axial family is not held to the slow family's velocity, and the
/// scale `|p|_M = √(pᵀ M p)` is the tangent itself (`≈ √ρA ν`, never 0 for a beam or a taut
/// rope). Every term carries the unit of `√(ρA)` (a rotation's `√ρI θ′` too), so `δ` does not
/// change with the units; positions do not enter (`x` follows from `p`, [`march_node`]), so
/// it does not change with the origin; nor does it with a rotation of the frame (`M e` turns
/// with `δv`, `δp`).
fn relative_change<const N: usize>(
    rows: &[[f64; MAX_ROWS]; MAX_ROWS],
    speeds: &[f64; MAX_ROWS],
    n_rows: usize,
    inertia: &[[f64; N]; N],
    q: &State<N>,
    next: &State<N>,
) -> f64 {
    let mut d = 0.0f64;
    for r in 0..n_rows {
        let me = &rows[r][..N];
        let dv: f64 = (0..N).map(|a| me[a] * (next.v[a] - q.v[a])).sum();
        let dp: f64 = (0..N).map(|a| me[a] * (next.p[a] - q.p[a])).sum();
        let (dv, dp) = ((dv / speeds[r]).abs(), dp.abs());
        if dv.is_nan() || dp.is_nan() {
            // (`max` would drop it)
            return f64::NAN;
        }
        d = d.max(dv).max(dp);
    }
    let pmp: f64 = (0..N)
        .map(|a| next.p[a] * (0..N).map(|b| inertia[a][b] * next.p[b]).sum::<f64>())
        .sum();
    if d == 0.0 { 0.0 } else { d / pmp.sqrt() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_is_exact_for_cubics_and_uses_rest_below_start() {
        let states: Vec<State<3>> = (0..10)
            .map(|j| {
                let t = 0.5 * j as f64;
                crate::inverse::characteristics_body::state3([
                    t * t * t - t,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                ])
            })
            .collect();
        let v = LineView {
            states: &states,
            top: 9,
            rest: State::ZERO,
            t_start: 0.0,
            ht: 0.5,
        };
        for tau in [0.6, 1.3, 3.9, 4.3, 4.5] {
            let got = v.at(tau).unwrap().x[0];
            assert!(
                (got - (tau * tau * tau - tau)).abs() < 1e-12,
                "{tau}: {got}"
            );
        }
        assert!(v.at(4.6).is_none());
        // below t_start the rest state (0) is used: f(t) = t³ − t vanishes only at 0, so the
        // interpolant at −0.25 mixes rest and data
        assert!(v.at(-0.25).unwrap().x[0].is_finite());
    }
}
