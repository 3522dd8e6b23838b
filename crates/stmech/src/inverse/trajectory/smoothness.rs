//! Is sampled data smooth enough? A scale-aware test for jumps in a sampled function and its
//! first two derivatives (`docs/theory.md`, "Smoothness of sampled trajectories").
//!
//! Three virtual rest samples are put before the data (the beam starts at rest, so the data
//! must leave its first value smoothly). A jump of size `J` in derivative `k` at `t*` makes
//! the divided differences `D_i = y[t_i, …, t_{i+m}]` of order `m = k + 1` whose stencil
//! straddles `t*` spike like `J/(m! h)`; smooth data gives `D ≈ y⁽ᵐ⁾/m!` everywhere. Round-off
//! in the data (`|e_i| ≤ ε_i`) adds at most `N_i`, the divided difference of the `ε` with all
//! signs positive, which grows like `2ᵐ ε/(m! hᵐ)`: at 10⁵ rows it swamps a plain spike test.
//! So an entry `D_i` counts as a jump only if all three hold:
//!
//! 1. **local spike**: `|D_i| > 8 b_i`, with `b_i` the largest `|D_j|` of the entries `m` and
//!    `m + 1` places away on either side (their stencils do not straddle `t*`);
//! 2. **above the noise**: `|D_i| − b_i > 2 (N_i + N_b)`, with `N_b` the largest noise bound of
//!    those neighbours: round-off alone cannot make the excess;
//! 3. **relevant at the scale of the motion**: the jump the excess implies,
//!    `Ĵ = (|D_i| − b_i)(t_{i+m} − t_i)(m − 1)!`, exceeds `10⁻³ R/Wᵏ`, with `R` the range of
//!    the component and `W` the duration of its motion.
//!
//! The *score* of an entry is the smallest of the three ratios (`|D_i|/(8 b_i)`, excess over
//! `2(N_i + N_b)`, `Ĵ` over `10⁻³ R/Wᵏ`); a score above 1 is a jump.
//!
//! The noise bound `ε_i` of a sample comes from the data: the precision the column is
//! written with ([`ColumnPrecision`], half a unit of the last digit, so data printed with
//! 9 digits gets a floor 10⁸ times higher than full precision) as far as the samples really
//! scatter by it ([`noise_bounds`]), at least 8 ulp of the
//! magnitude of the column (the round-off of whatever computed it), plus the slope times the
//! error of the time, which is at least 8 ulp, at most the precision of the time column, and
//! no more than the scatter of the times (a uniform grid written with few digits is exact).

/// Factor by which a jump must stand out of its neighbourhood (criterion 1).
pub const SPIKE_FACTOR: f64 = 8.0;
/// Factor on the round-off bound (criterion 2).
pub const NOISE_FACTOR: f64 = 2.0;
/// Smallest relevant jump of derivative `k`, relative to `R/Wᵏ` (criterion 3).
pub const RELEVANT_JUMP: f64 = 1e-3;
/// Round-off floor of a sample in units of `ε_mach ×` the magnitude of its column.
pub const ROUND_OFF_ULPS: f64 = 8.0;

/// How precisely a CSV column is written: the most significant digits and the finest last
/// digit seen in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColumnPrecision {
    /// Most significant digits of any cell (`1.2500` has 5).
    pub max_significant: u32,
    /// Smallest decimal exponent of a last written digit (`1.25e-3` → −5); `None` before the
    /// first cell.
    pub finest_exponent: Option<i32>,
}

impl ColumnPrecision {
    /// Records one cell (a number as written).
    pub fn observe(&mut self, cell: &str) {
        let Some((significant, last)) = written_precision(cell) else {
            return;
        };
        self.max_significant = self.max_significant.max(significant);
        self.finest_exponent = Some(self.finest_exponent.map_or(last, |f| f.min(last)));
    }

    /// Half a unit of the last digit a value of this column can carry: the finest absolute
    /// digit seen (fixed-point writers) or the most significant digits relative to `|v|`
    /// (`%g`-style writers), whichever is coarser.
    pub fn quantum(&self, v: f64) -> f64 {
        let absolute = self
            .finest_exponent
            .map_or(0.0, |e| 0.5 * 10f64.powi(e.clamp(-400, 400)));
        let digits = self.max_significant.clamp(1, 400) as i32;
        let relative = 0.5 * v.abs() * 10f64.powi(1 - digits);
        absolute.max(relative)
    }
}

/// Significant digits and the decimal exponent of the last digit of a number as written
/// (`-0.00120` → 3 and −5; `1.5e3` → 2 and 2); `None` if it is not a plain decimal number.
fn written_precision(cell: &str) -> Option<(u32, i32)> {
    let s = cell.trim().trim_start_matches(['+', '-']);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(k) => (&s[..k], s[k + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !(int.bytes().all(|b| b.is_ascii_digit()) && frac.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let digits = int.len() + frac.len();
    let leading_zeros = int
        .bytes()
        .chain(frac.bytes())
        .take_while(|&b| b == b'0')
        .count();
    let significant = u32::try_from((digits - leading_zeros).max(1)).ok()?;
    let last = exponent.checked_sub(i32::try_from(frac.len()).ok()?)?;
    Some((significant, last))
}

/// The round-off bound `ε_i` of every sample of one component (see the module docs):
/// `max(min(1, 4ρ) quantum(y_i), 8 ulp · scale) + |slope_i| · δt_i`.
///
/// The digits a column is written with only bound its error: `0.5`, `1.0006` may be exact
/// values of a shortest-representation writer or rounded ones of a fixed-precision writer.
/// So the quantum counts only as far as the data really scatter by it: `ρ` is the median of
/// `|Δ⁴y|/(√70 quantum)` over the stencils that are not at rest ([`quantisation_evidence`];
/// `√70` is the norm of the weights of `Δ⁴`, so `ρ` is the noise in units of the quantum,
/// about 0.4 for rounded data; a jump moves only five stencils and the median ignores them,
/// and fewer than [`MIN_STENCILS_FOR_NOISE`] moving stencils give `ρ = 0`). Likewise the time error `δt_i` is at least 8 ulp of
/// `max|t|` and at most the quantum of the time column, but no more than the scatter
/// `|t_{j+1} − 2 t_j + t_{j−1}|` of the times next to `i`: a uniform grid written as
/// `0.06, 0.12, …` is exact, whatever its few digits suggest.
pub fn noise_bounds(
    t: &[f64],
    y: &[f64],
    t_precision: &ColumnPrecision,
    y_precision: &ColumnPrecision,
    scale: f64,
) -> Vec<f64> {
    let ulps = ROUND_OFF_ULPS * f64::EPSILON;
    let evidence = (4.0 * quantisation_evidence(y, y_precision)).min(1.0);
    let t_scale = t.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let slope = |i: usize, j: usize| ((y[j] - y[i]) / (t[j] - t[i])).abs();
    let n = t.len();
    let scatter = |j: usize| {
        if j == 0 || j + 1 >= n {
            0.0
        } else {
            (t[j + 1] - 2.0 * t[j] + t[j - 1]).abs()
        }
    };
    (0..n)
        .map(|i| {
            let s = match (i.checked_sub(1), (i + 1 < n).then_some(i + 1)) {
                (Some(a), Some(b)) => slope(a, i).max(slope(i, b)),
                (Some(a), None) => slope(a, i),
                (None, Some(b)) => slope(i, b),
                (None, None) => 0.0,
            };
            let ey = (evidence * y_precision.quantum(y[i])).max(ulps * scale);
            let irregular = scatter(i.saturating_sub(1))
                .max(scatter(i))
                .max(scatter(i + 1));
            let et = t_precision.quantum(t[i]).min(irregular).max(ulps * t_scale);
            let e = ey + s * et;
            if e.is_finite() { e } else { f64::MAX }
        })
        .collect()
}

/// Fewest moving stencils from which [`quantisation_evidence`] estimates a noise level: fewer
/// are no evidence of noise (a jump alone moves five).
pub const MIN_STENCILS_FOR_NOISE: usize = 32;

/// How much of its written precision a column really scatters by: the median over the
/// stencils whose five values are not all equal of `|Δ⁴y|/(√70 q)`, with `q` the quantum of
/// the stencil's middle value (0 if there are fewer than [`MIN_STENCILS_FOR_NOISE`]).
/// Rounding to the written digits gives about 0.4; exact values, far less.
fn quantisation_evidence(y: &[f64], precision: &ColumnPrecision) -> f64 {
    let mut d: Vec<f64> = y
        .windows(5)
        .filter(|w| w.iter().any(|&v| v != w[0]))
        .map(|w| {
            let delta4 = (w[4] - 4.0 * w[3] + 6.0 * w[2] - 4.0 * w[1] + w[0]).abs();
            delta4 / (70f64.sqrt() * precision.quantum(w[2]))
        })
        .filter(|v| v.is_finite())
        .collect();
    if d.len() < MIN_STENCILS_FOR_NOISE {
        return 0.0;
    }
    let mid = d.len() / 2;
    *d.select_nth_unstable_by(mid, f64::total_cmp).1
}

/// A jump found in sampled data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jump {
    /// The derivative that jumps (0: the value, 1: the slope, 2: the curvature).
    pub derivative: usize,
    /// Where (s): the middle of the stencil.
    pub time: f64,
    /// The size the spike implies, `Ĵ` (units of the derivative).
    pub size: f64,
    /// Its score (> 1).
    pub score: f64,
}

/// The result of [`analyse`] for one component.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Smoothness {
    /// The first jump (lowest derivative first, then in time), if any.
    pub first_jump: Option<Jump>,
    /// Per derivative `k = 0..=order`: the largest score and where (s). A smooth component
    /// has every score below 1; the ratio is the margin.
    pub max_scores: Vec<(f64, f64)>,
}

/// Looks for jumps in derivatives `0..=order` of samples `(t, y)` with round-off bounds
/// `noise` (see the module docs).
pub fn analyse(t: &[f64], y: &[f64], noise: &[f64], order: usize) -> Smoothness {
    let mut out = Smoothness::default();
    let n = t.len();
    if n < 2 || y.len() != n || noise.len() != n {
        return out;
    }
    // the motion: samples that differ from the first / last beyond the round-off
    let moved = |i: usize, r: usize| (y[i] - y[r]).abs() > NOISE_FACTOR * (noise[i] + noise[r]);
    let (Some(first), Some(last)) = (
        (0..n).find(|&i| moved(i, 0)),
        (0..n).rev().find(|&i| moved(i, n - 1)),
    ) else {
        out.max_scores = vec![(0.0, t[0]); order + 1];
        return out; // constant within its round-off: nothing can jump
    };
    let width = t[(last + 1).min(n - 1)] - t[first.saturating_sub(1)];
    let range = y.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v))
        - y.iter().fold(f64::INFINITY, |m, &v| m.min(v));
    // three virtual rest samples before the data
    let h0 = t[1] - t[0];
    let mut tt = vec![t[0] - 3.0 * h0, t[0] - 2.0 * h0, t[0] - h0];
    tt.extend_from_slice(t);
    let mut dd = vec![y[0]; 3];
    dd.extend_from_slice(y);
    let mut nn = vec![noise[0]; 3];
    nn.extend_from_slice(noise);
    let mut factorial = 1.0; // (m − 1)!
    for k in 0..=order {
        let m = k + 1;
        if k > 0 {
            factorial *= k as f64;
        }
        let len = dd.len() - 1;
        let next: Vec<f64> = (0..len)
            .map(|i| (dd[i + 1] - dd[i]) / (tt[i + m] - tt[i]))
            .collect();
        let next_noise: Vec<f64> = (0..len)
            .map(|i| (nn[i + 1] + nn[i]) / (tt[i + m] - tt[i]))
            .collect();
        let relevant = RELEVANT_JUMP * range / width.powi(k as i32);
        let mut best = (0.0f64, tt[0]);
        for i in 0..len {
            let v = next[i].abs();
            let far = [
                i.checked_sub(m),
                i.checked_sub(m + 1),
                Some(i + m),
                Some(i + m + 1),
            ];
            let mut b = f64::NEG_INFINITY;
            let mut nb = 0.0f64;
            for j in far.into_iter().flatten().filter(|&j| j < len) {
                b = b.max(next[j].abs());
                nb = nb.max(next_noise[j]);
            }
            if b == f64::NEG_INFINITY || v.partial_cmp(&b) != Some(std::cmp::Ordering::Greater) {
                continue; // no neighbours, or not above them
            }
            let excess = v - b;
            let spike = if b > 0.0 {
                v / (SPIKE_FACTOR * b)
            } else {
                f64::INFINITY
            };
            let floor = NOISE_FACTOR * (next_noise[i] + nb);
            let above_noise = if floor > 0.0 {
                excess / floor
            } else {
                f64::INFINITY
            };
            let size = excess * (tt[i + m] - tt[i]) * factorial;
            let rel = if relevant > 0.0 {
                size / relevant
            } else {
                f64::INFINITY
            };
            let score = spike.min(above_noise).min(rel);
            if score.is_nan() {
                continue;
            }
            // the jump lies inside the stencil tt[i..=i+m]; report its middle sample
            let when = tt[(i + m / 2 + m % 2).min(tt.len() - 1)].max(t[0]);
            if score > best.0 {
                best = (score, when);
            }
            if score > 1.0 && out.first_jump.is_none() {
                out.first_jump = Some(Jump {
                    derivative: k,
                    time: when,
                    size,
                    score,
                });
            }
        }
        out.max_scores.push(best);
        dd = next;
        nn = next_noise;
    }
    out
}
