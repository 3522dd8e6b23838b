//! How the Newton driver measures a residual: per equation group, relative to the magnitude of
//! the terms that make it up, with a round-off floor computed from the absolute coordinates
//! (`docs/theory.md`, "The Newton stop").
//!
//! For every row `i` of a residual `r(x) = Σ_t t_i(x)` (inertial, internal, external,
//! constraint terms; per element, per quadrature point) the problem supplies
//!
//! * `r_i`, the residual;
//! * `m_i = Σ_t |t_i|`, the **magnitude** of its terms (so `|r_i| ≤ m_i`);
//! * `φ_i = Σ_j |J_ij| |x̂_j|`, the **floor basis**: `J` the Jacobian, `x̂` the absolute values
//!   of the quantities the residual is computed from (positions measured from the origin, not
//!   increments). Evaluating `r` in double precision perturbs it by about `ε φ_i`.
//!
//! Rows are grouped by meaning and unit (momentum balance of the positions, of the directors,
//! kinematic rows, constraint rows of each unit, ...): a group `g` has the **scale**
//! `S_g = max_{i∈g} m_i` (in the unit of its rows), and
//!
//! ```text
//! relative residual  e = max_g max_{i∈g} |r_i| / S_g
//! relative floor     ρ = max_g max_{i∈g} F ε φ_i / S_g,    F = FLOOR_FACTOR.
//! ```
//!
//! Both are invariant under a change of units (every row of a group and its scale change by
//! the same factor) and `e` under a change of origin (the terms do not depend on it); `ρ` grows
//! with the distance from the origin, as the round-off of the coordinates does. Newton has
//! converged when `|r_i| ≤ tol S_g` for every row (`e ≤ tol`), and has reached the round-off
//! floor when `|r_i| ≤ tol S_g + F ε φ_i` for every row: then no iterate can do better, and
//! the driver stops and says so.

/// Relative residual below which an evaluation with a Jacobian forms the floor basis afresh
/// (`docs/theory.md` §10, "When the floor basis is formed"): the floor only decides the stop
/// near convergence, and the basis kept from an earlier evaluation (the round-off of a slowly
/// changing state) serves above it.
pub const FLOOR_NEAR: f64 = 1e-3;

/// Factor `F` of the round-off floor `F ε φ_i` of a row: evaluating a residual row perturbs
/// it by a few `ε φ_i`; the factor covers the sums over elements and quadrature points
/// (measured on the scaling matrix of `docs/verification.md`, "Trust at any scale").
pub const FLOOR_FACTOR: f64 = 8.0;

/// Measures of one group of residual rows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GroupMeasure {
    /// Largest `|r_i|` of the group.
    pub residual: f64,
    /// Scale `S_g`: the largest magnitude `m_i` of the group.
    pub scale: f64,
    /// Largest round-off floor `F ε φ_i` of the group.
    pub floor: f64,
    /// Largest excess of a row over its floor, `max (|r_i| − F ε φ_i, 0)`.
    pub excess: f64,
}

impl GroupMeasure {
    /// Takes row `(r_i, m_i, φ_i)` into the maxima, without NaN branches (`x > acc` keeps
    /// `acc` for a NaN `x`, as `f64::max` does; `acc` is never NaN); `true` if `|r_i|` is NaN
    /// (the caller then adds the rows through [`Measures::add_row`], which propagates it).
    #[inline]
    fn absorb(&mut self, ri: f64, mi: f64, pi: f64) -> bool {
        let a = ri.abs();
        let fl = FLOOR_FACTOR * f64::EPSILON * (pi + mi);
        if a > self.residual {
            self.residual = a;
        }
        if mi > self.scale {
            self.scale = mi;
        }
        if fl > self.floor {
            self.floor = fl;
        }
        let ex = a - fl;
        if ex > self.excess {
            self.excess = ex;
        }
        a.is_nan()
    }
}

/// Measures of a residual, per equation group (see the module docs).
#[derive(Debug, Default, PartialEq)]
pub struct Measures {
    /// One entry per group.
    pub groups: Vec<GroupMeasure>,
}

impl Clone for Measures {
    fn clone(&self) -> Self {
        Self {
            groups: self.groups.clone(),
        }
    }

    /// Copies into the existing storage (the driver keeps the measures of a step's start
    /// every iteration: no allocation).
    fn clone_from(&mut self, source: &Self) {
        self.groups.clone_from(&source.groups);
    }
}

/// `a / s` with `0 / 0 = 0` and `a / 0 = ∞` for `a > 0`.
fn ratio(a: f64, s: f64) -> f64 {
    if a == 0.0 {
        0.0
    } else if s > 0.0 {
        a / s
    } else {
        f64::INFINITY
    }
}

impl Measures {
    /// Zeroed measures of `n` groups.
    pub fn reset(&mut self, n: usize) {
        self.groups.clear();
        self.groups.resize(n, GroupMeasure::default());
    }

    /// Adds row `(r, m, φ)` to group `g` (`φ` the floor basis, without `F ε`).
    #[inline]
    pub fn add_row(&mut self, g: usize, r: f64, m: f64, phi: f64) {
        let gm = &mut self.groups[g];
        if gm.residual.is_nan() {
            return;
        }
        let a = r.abs();
        // the round-off of the coordinates (φ) and of the sum of the terms themselves (m)
        let fl = FLOOR_FACTOR * f64::EPSILON * (phi + m);
        // (a NaN residual propagates: `max` would drop it)
        if a.is_nan() {
            gm.residual = f64::NAN;
            gm.excess = f64::NAN;
            return;
        }
        gm.residual = gm.residual.max(a);
        gm.scale = gm.scale.max(m);
        gm.floor = gm.floor.max(fl);
        gm.excess = gm.excess.max(a - fl);
    }

    /// Adds the rows `(r, m, φ)` of `rows` to group `g`: the measures of
    /// [`add_row`](Self::add_row) row by row (up to the sign of a zero), in one pass without its
    /// per-row NaN branches (a NaN residual, which `add_row` propagates, is detected at the end
    /// and the rows are then added one by one).
    pub fn add_rows<I>(&mut self, g: usize, rows: I)
    where
        I: Iterator<Item = (f64, f64, f64)> + Clone,
    {
        let before = self.groups[g];
        if before.residual.is_nan() {
            return;
        }
        let mut gm = before;
        let mut nan = false;
        for (ri, mi, pi) in rows.clone() {
            nan |= gm.absorb(ri, mi, pi);
        }
        if nan {
            for (ri, mi, pi) in rows {
                self.add_row(g, ri, mi, pi);
            }
        } else {
            self.groups[g] = gm;
        }
    }

    /// Merges another set of measures (same groups) into this one.
    pub fn merge(&mut self, other: &Measures) {
        if self.groups.len() < other.groups.len() {
            self.groups
                .resize(other.groups.len(), GroupMeasure::default());
        }
        for (a, b) in self.groups.iter_mut().zip(&other.groups) {
            if b.residual.is_nan() {
                a.residual = f64::NAN;
                a.excess = f64::NAN;
                continue;
            }
            a.residual = a.residual.max(b.residual);
            a.scale = a.scale.max(b.scale);
            a.floor = a.floor.max(b.floor);
            a.excess = a.excess.max(b.excess);
        }
    }

    /// Measures from whole vectors: residual `r`, magnitudes `m`, floor basis `phi` (or none:
    /// floors zero) and the group of every row.
    ///
    /// The same measures as [`add_row`](Self::add_row) row by row, in one pass without its
    /// per-row NaN branches (a residual row that is NaN, which `add_row` propagates, is
    /// detected at the end and the rows are then added one by one).
    pub fn from_rows(
        &mut self,
        n_groups: usize,
        groups: &[u8],
        r: &[f64],
        m: &[f64],
        phi: Option<&[f64]>,
    ) {
        self.reset(n_groups);
        let gs = &mut self.groups[..];
        let mut nan = false;
        {
            let mut row = |g: u8, ri: f64, mi: f64, pi: f64| {
                nan |= gs[g as usize].absorb(ri, mi, pi);
            };
            match phi {
                Some(phi) => {
                    for (((&g, &ri), &mi), &pi) in groups.iter().zip(r).zip(m).zip(phi) {
                        row(g, ri, mi, pi);
                    }
                }
                None => {
                    for ((&g, &ri), &mi) in groups.iter().zip(r).zip(m) {
                        row(g, ri, mi, 0.0);
                    }
                }
            }
        }
        if nan {
            self.rows_one_by_one(n_groups, groups, r, m, phi);
        }
    }

    /// [`from_rows`](Self::from_rows) row by row with [`add_row`](Self::add_row).
    fn rows_one_by_one(
        &mut self,
        n_groups: usize,
        groups: &[u8],
        r: &[f64],
        m: &[f64],
        phi: Option<&[f64]>,
    ) {
        self.reset(n_groups);
        match phi {
            Some(phi) => {
                for (((&g, &ri), &mi), &pi) in groups.iter().zip(r).zip(m).zip(phi) {
                    self.add_row(g as usize, ri, mi, pi);
                }
            }
            None => {
                for ((&g, &ri), &mi) in groups.iter().zip(r).zip(m) {
                    self.add_row(g as usize, ri, mi, 0.0);
                }
            }
        }
    }

    /// Relative residual `e = max_g residual_g / S_g` (NaN if any residual is NaN).
    pub fn relative(&self) -> f64 {
        let mut e = 0.0f64;
        for g in &self.groups {
            if g.residual.is_nan() {
                return f64::NAN;
            }
            e = e.max(ratio(g.residual, g.scale));
        }
        e
    }

    /// Relative residual above the round-off floor, `ê = max_g max_{i∈g} (|r_i| − F ε φ_i)⁺ / S_g`:
    /// what Newton can still reduce (a group whose rows are all at their floor counts 0). The
    /// driver decides and reports with it.
    pub fn relative_excess(&self) -> f64 {
        let mut e = 0.0f64;
        for g in &self.groups {
            if g.excess.is_nan() {
                return f64::NAN;
            }
            if g.excess > 0.0 {
                e = e.max(ratio(g.excess, g.scale));
            }
        }
        e
    }

    /// Relative round-off floor `ρ = max_g floor_g / S_g` over the groups whose terms are above
    /// their floor (a group whose terms are themselves round-off, e.g. the equations of a
    /// clamp that holds exactly, has no meaningful relative floor; it is at its floor).
    pub fn relative_floor(&self) -> f64 {
        self.groups
            .iter()
            .filter(|g| g.scale > g.floor)
            .map(|g| ratio(g.floor, g.scale))
            .fold(0.0, f64::max)
    }

    /// Largest absolute residual entry (any group, mixed units: for messages only).
    pub fn largest_entry(&self) -> f64 {
        self.groups.iter().map(|g| g.residual).fold(0.0, f64::max)
    }

    /// Whether every row meets the tolerance: `|r_i| ≤ tol S_g`.
    pub fn met(&self, tol: f64) -> bool {
        self.groups
            .iter()
            .all(|g| g.residual <= tol * g.scale || g.residual == 0.0)
    }

    /// Whether every row meets the tolerance up to its round-off floor:
    /// `|r_i| ≤ tol S_g + F ε φ_i`.
    pub fn met_at_floor(&self, tol: f64) -> bool {
        self.groups
            .iter()
            .all(|g| g.excess <= tol * g.scale || g.excess <= 0.0)
    }

    /// Merit of a trial point for the line search: [`relative_excess`](Self::relative_excess)
    /// with the scales of the current iterate `reference` (fixed during the search; a group
    /// without terms there takes the trial's scale).
    pub fn merit(&self, reference: &Measures) -> f64 {
        let mut e = 0.0f64;
        for (g, r) in self.groups.iter().zip(&reference.groups) {
            if g.excess.is_nan() {
                return f64::NAN;
            }
            if g.excess > 0.0 {
                let s = if r.scale > 0.0 { r.scale } else { g.scale };
                e = e.max(ratio(g.excess, s));
            }
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_measures_are_per_group() {
        let mut m = Measures::default();
        // group 0 in N·s, group 1 in m: the same relative residual in other units
        m.from_rows(2, &[0, 0, 1], &[1e-9, 0.0, 2e-12], &[10.0, 1.0, 1.0], None);
        assert_eq!(m.relative(), 2e-12_f64.max(1e-10));
        let mut mm = Measures::default();
        mm.from_rows(2, &[0, 0, 1], &[1e-9, 0.0, 2e-9], &[10.0, 1.0, 1e3], None);
        assert!((mm.relative() - m.relative()).abs() < 1e-25);
        assert!(m.met(1e-10) && !m.met(0.9e-10));
    }

    #[test]
    fn zero_scale_groups() {
        let mut m = Measures::default();
        m.from_rows(2, &[0, 1], &[0.0, 1e-30], &[0.0, 0.0], None);
        assert_eq!(m.relative(), f64::INFINITY);
        assert!(!m.met(1e-10));
        m.from_rows(2, &[0, 1], &[0.0, 0.0], &[0.0, 0.0], None);
        assert_eq!(m.relative(), 0.0);
        assert!(m.met(1e-10));
    }

    #[test]
    fn floor_allows_rows_at_round_off() {
        let mut m = Measures::default();
        // |r| = 1e-12 with scale 1 is above tol 1e-14, but below its floor F ε 1e4
        m.from_rows(1, &[0], &[1e-12], &[1.0], Some(&[1e4]));
        assert!(!m.met(1e-14));
        assert!(m.met_at_floor(1e-14));
        assert!(m.relative_floor() > 1e-12);
    }

    /// The one-pass `from_rows` gives exactly the measures of `add_row` row by row, NaN and
    /// infinite entries in any vector included.
    #[test]
    fn from_rows_is_add_row_by_row() {
        let special = [f64::NAN, f64::INFINITY, -0.0, 0.0, 1e-300, -3.5];
        // a deterministic pseudo-random sequence (no seed to print)
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for case in 0..400 {
            let n = 1 + (next() % 40) as usize;
            let n_groups = 1 + (next() % 4) as usize;
            let groups: Vec<u8> = (0..n).map(|_| (next() % n_groups as u64) as u8).collect();
            let mut draw = |k: u64| -> f64 {
                let u = next();
                if case % 3 == 0 && u % 17 == k {
                    special[(u >> 8) as usize % special.len()]
                } else {
                    ((u >> 11) as f64 / (1u64 << 53) as f64 - 0.3) * 10f64.powi((u % 9) as i32 - 4)
                }
            };
            let r: Vec<f64> = (0..n).map(|_| draw(1)).collect();
            let m: Vec<f64> = (0..n).map(|_| draw(2).abs()).collect();
            let phi: Vec<f64> = (0..n).map(|_| draw(3).abs()).collect();
            for p in [Some(&phi[..]), None] {
                let (mut fast, mut slow) = (Measures::default(), Measures::default());
                fast.from_rows(n_groups, &groups, &r, &m, p);
                slow.reset(n_groups);
                for i in 0..n {
                    slow.add_row(groups[i] as usize, r[i], m[i], p.map_or(0.0, |p| p[i]));
                }
                for (a, b) in fast.groups.iter().zip(&slow.groups) {
                    for (x, y) in [
                        (a.residual, b.residual),
                        (a.scale, b.scale),
                        (a.floor, b.floor),
                        (a.excess, b.excess),
                    ] {
                        assert!(
                            x.to_bits() == y.to_bits() || x == y,
                            "case {case}: {a:?} {b:?}"
                        );
                    }
                }
            }
        }
    }

    /// `add_rows` gives the measures of `add_row` row by row, NaN rows included.
    #[test]
    fn add_rows_is_add_row_by_row() {
        let rows = [
            (1e-9, 10.0, 1e3),
            (-2e-9, 1.0, 0.0),
            (0.0, 0.0, 5.0),
            (f64::NAN, 1.0, 1.0),
            (1.0, 1e9, 1.0),
        ];
        for n in [3, rows.len()] {
            let (mut fast, mut slow) = (Measures::default(), Measures::default());
            fast.reset(2);
            slow.reset(2);
            fast.add_row(1, 0.5, 1.0, 0.0);
            slow.add_row(1, 0.5, 1.0, 0.0);
            fast.add_rows(1, rows[..n].iter().copied());
            for &(r, m, p) in &rows[..n] {
                slow.add_row(1, r, m, p);
            }
            let bits =
                |g: &GroupMeasure| [g.residual, g.scale, g.floor, g.excess].map(|v| v.to_bits());
            for (a, b) in fast.groups.iter().zip(&slow.groups) {
                assert_eq!(bits(a), bits(b), "{n}: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn nan_propagates() {
        let mut m = Measures::default();
        m.from_rows(1, &[0, 0], &[f64::NAN, 1.0], &[1.0, 1.0], None);
        assert!(m.relative().is_nan());
        assert!(!m.met(1.0));
        assert!(!m.met_at_floor(1.0));
    }
}
