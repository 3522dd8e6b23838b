//! Dense banded LU with partial pivoting, for the small banded systems of the sideways
//! elimination of the space-time inverse problem ([`crate::inverse::sideways`]).
//!
//! faer has dense and sparse LU but no banded one; a band of half-width `kl`, `ku` costs
//! `O(n kl (kl + ku))` here instead of the `O(n³)` of dense LU.
//!
//! # Algorithm
//! Gaussian elimination with row interchanges in the LINPACK `dgbfa` order: at step `k` the
//! pivot is the largest entry of column `k` among rows `k ..= k + kl`; rows `k` and `p` are
//! swapped in columns `k ..` only, and the multipliers stay where they were computed. With
//! partial pivoting the upper factor widens to `kl + ku` superdiagonals, so each row stores
//! columns `i − kl ..= i + kl + ku`.

use crate::error::SolveError;

/// A banded matrix and, after [`BandedLu::factorize`], its LU factors.
#[derive(Clone, Debug)]
pub struct BandedLu {
    n: usize,
    kl: usize,
    ku: usize,
    /// Row stride: `2 kl + ku + 1`.
    w: usize,
    /// Row `i`, column `j` at `i w + (j + kl − i)`.
    a: Vec<f64>,
    /// The multipliers of column `k` again, contiguous: `l[k kl + t]` for row `k + 1 + t`
    /// (for the forward substitution).
    l: Vec<f64>,
    piv: Vec<usize>,
}

impl BandedLu {
    /// Zero `n × n` matrix with `kl` sub- and `ku` superdiagonals.
    pub fn new(n: usize, kl: usize, ku: usize) -> Self {
        let w = 2 * kl + ku + 1;
        Self {
            n,
            kl,
            ku,
            w,
            a: vec![0.0; n * w],
            l: vec![0.0; n * kl],
            piv: vec![0; n],
        }
    }

    /// Dimension.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Stored values (band and fill-in room).
    pub fn stored(&self) -> usize {
        self.a.len()
    }

    /// Sets all entries to zero (before refilling).
    pub fn clear(&mut self) {
        self.a.fill(0.0);
    }

    /// Adds `v` to entry `(i, j)`, which must lie in the band (`j + kl ≥ i`, `j ≤ i + ku`).
    #[inline]
    pub fn add(&mut self, i: usize, j: usize, v: f64) {
        debug_assert!(j + self.kl >= i && j <= i + self.ku && i < self.n && j < self.n);
        self.a[i * self.w + j + self.kl - i] += v;
    }

    /// Adds `v[d]` to the entries `(i, j + d)`, `d = 0, 1, 2`, which must lie in the band:
    /// [`Self::add`] three times, with one index computation.
    #[inline]
    pub fn add3(&mut self, i: usize, j: usize, v: [f64; 3]) {
        debug_assert!(j + self.kl >= i && j + 2 <= i + self.ku && i < self.n && j + 2 < self.n);
        let k = i * self.w + j + self.kl - i;
        for (a, v) in self.a[k..k + 3].iter_mut().zip(v) {
            *a += v;
        }
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.a[i * self.w + j + self.kl - i]
    }

    /// In-place LU factorisation with partial pivoting. Fails on a zero or non-finite pivot.
    pub fn factorize(&mut self) -> Result<(), SolveError> {
        let (n, kl, w) = (self.n, self.kl, self.w);
        let reach = kl + self.ku;
        for k in 0..n {
            let last_row = (k + kl).min(n - 1);
            let mut p = k;
            let mut best = self.at(k, k).abs();
            for i in k + 1..=last_row {
                let v = self.at(i, k).abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if !(best > 0.0 && best.is_finite()) {
                return Err(SolveError::Factorization(format!(
                    "banded LU: no usable pivot in column {k} of {n} (largest |entry| {best:e})"
                )));
            }
            self.piv[k] = p;
            let last_col = (k + reach).min(n - 1);
            let len = last_col - k;
            if p != k {
                // columns k..=last_col of rows k < p, contiguous and disjoint (p − k ≥ 1 rows
                // of w − 1 > kl + ku apart)
                let (ik, ip) = (k * w + kl, p * w + k + kl - p);
                let (lo, hi) = self.a.split_at_mut(ip);
                lo[ik..=ik + len].swap_with_slice(&mut hi[..=len]);
            }
            let pivot = self.at(k, k);
            for i in k + 1..=last_row {
                let ik = i * w + k + kl - i;
                let l = self.a[ik] / pivot;
                self.a[ik] = l;
                self.l[k * kl + i - k - 1] = l;
                if l != 0.0 {
                    // Row k, columns k+1..=last_col, against row i: both are contiguous (and
                    // row i starts past the end of row k's part).
                    let (rk, ri) = (k * w + kl + 1, i * w + k + 1 + kl - i);
                    let (lo, hi) = self.a.split_at_mut(ri);
                    for (x, &u) in hi[..len].iter_mut().zip(&lo[rk..rk + len]) {
                        *x -= l * u;
                    }
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place with the factors of the last [`BandedLu::factorize`].
    ///
    /// Forward elimination column by column (the multipliers of column `k` kept contiguous by
    /// the factorisation), then back substitution row by row (row `i`'s superdiagonals are contiguous);
    /// every entry is updated by the same operations in the same order as entry by entry.
    pub fn solve_in_place(&self, b: &mut [f64]) {
        let (n, kl, w) = (self.n, self.kl, self.w);
        let reach = kl + self.ku;
        let b = &mut b[..n];
        for k in 0..n {
            let p = self.piv[k];
            if p != k {
                b.swap(k, p);
            }
            let bk = b[k];
            if bk != 0.0 {
                let end = (k + kl).min(n - 1);
                let lk = &self.l[k * kl..k * kl + (end - k)];
                for (x, &l) in b[k + 1..=end].iter_mut().zip(lk) {
                    *x -= l * bk;
                }
            }
        }
        for i in (0..n).rev() {
            let len = (i + reach).min(n - 1) - i;
            let row = &self.a[i * w + kl..i * w + kl + 1 + len];
            let (head, rest) = b.split_at_mut(i + 1);
            let mut s = head[i];
            for (&u, &x) in row[1..].iter().zip(&rest[..len]) {
                s -= u * x;
            }
            head[i] = s / row[0];
        }
    }
}

/// [`BandedLu`] for band widths known at compile time: the same algorithm (LINPACK `dgbfa`
/// order, partial pivoting), with fixed-length row operations the compiler unrolls and
/// vectorises, the multipliers of each column stored contiguously for the forward
/// substitution, and the reciprocal pivots kept for the back substitution. For the many
/// equal-sized systems of a sideways march (`crate::inverse::sideways`).
#[derive(Clone, Debug)]
pub struct FixedBandLu<const KL: usize, const KU: usize> {
    n: usize,
    /// Row `i`, column `j` at `i W + (j + KL − i)`, `W = 2 KL + KU + 1`.
    a: Vec<f64>,
    /// Multipliers of column `k`: `l[k KL + t]` for row `k + 1 + t`.
    l: Vec<f64>,
    /// `1 / u_kk`.
    inv: Vec<f64>,
    piv: Vec<usize>,
}

impl<const KL: usize, const KU: usize> FixedBandLu<KL, KU> {
    /// Row stride of the storage, `2 KL + KU + 1`.
    pub const ROW: usize = 2 * KL + KU + 1;
    const W: usize = Self::ROW;
    /// Upper bandwidth of the factor `U`.
    const REACH: usize = KL + KU;

    /// Zero `n × n` matrix.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            a: vec![0.0; n * Self::W],
            l: vec![0.0; n * KL],
            inv: vec![0.0; n],
            piv: vec![0; n],
        }
    }

    /// Dimension.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Stored values (band, fill-in room, multipliers, reciprocal pivots).
    pub fn stored(&self) -> usize {
        self.a.len() + self.l.len() + self.inv.len()
    }

    /// Sets all entries to zero (before refilling).
    pub fn clear(&mut self) {
        self.a.fill(0.0);
    }

    /// Adds `v` to entry `(i, j)`, which must lie in the band (`j + KL ≥ i`, `j ≤ i + KU`).
    #[inline]
    pub fn add(&mut self, i: usize, j: usize, v: f64) {
        debug_assert!(j + KL >= i && j <= i + KU && i < self.n && j < self.n);
        self.a[i * Self::W + j + KL - i] += v;
    }

    /// In-place LU factorisation with partial pivoting of the entries added so far. Fails on a
    /// zero or non-finite pivot.
    pub fn factorize(&mut self) -> Result<(), SolveError> {
        let n = self.n;
        self.factorize_blocks(n.max(1), |_, _| {}, false)
    }

    /// Fills and factorises in one sweep, `block` rows at a time: `fill(b, rows)` receives the
    /// zeroed storage of rows `b·block .. (b + 1)·block` (fewer for the last block) and adds
    /// the entries of row `i = b·block + r`, column `j` at `rows[r W + j + KL − i]`,
    /// `W = 2 KL + KU + 1` ([`Self::ROW`]). Each block is filled just before the elimination
    /// reaches it, while the rows around it are in cache; nothing else is cleared.
    pub fn factorize_streamed(
        &mut self,
        block: usize,
        fill: impl FnMut(usize, &mut [f64]),
    ) -> Result<(), SolveError> {
        self.factorize_blocks(block, fill, true)
    }

    fn factorize_blocks(
        &mut self,
        block: usize,
        fill: impl FnMut(usize, &mut [f64]),
        clear: bool,
    ) -> Result<(), SolveError> {
        assert!(block > 0, "blocks of at least one row");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above). The AVX2 build runs the same
            // operations (no fused multiply-add), so the results are identical.
            return unsafe { self.factorize_avx2(block, fill, clear) };
        }
        self.factorize_generic(block, fill, clear)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn factorize_avx2(
        &mut self,
        block: usize,
        fill: impl FnMut(usize, &mut [f64]),
        clear: bool,
    ) -> Result<(), SolveError> {
        self.factorize_generic(block, fill, clear)
    }

    #[inline(always)]
    fn factorize_generic(
        &mut self,
        block: usize,
        mut fill: impl FnMut(usize, &mut [f64]),
        clear: bool,
    ) -> Result<(), SolveError> {
        let n = self.n;
        let w = Self::W;
        let mut filled = if clear { 0 } else { n };
        for k in 0..n {
            let last_row = (k + KL).min(n - 1);
            while filled <= last_row {
                let b = filled / block;
                let end = ((b + 1) * block).min(n);
                let rows = &mut self.a[filled * w..end * w];
                rows.fill(0.0);
                fill(b, rows);
                filled = end;
            }
            // pivot: largest |a(i, k)|, i = k ..= k + KL (first of equals)
            let mut p = k;
            let mut best = self.a[k * w + KL].abs();
            for i in k + 1..=last_row {
                let v = self.a[i * w + k + KL - i].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if !(best > 0.0 && best.is_finite()) {
                return Err(SolveError::Factorization(format!(
                    "banded LU: no usable pivot in column {k} of {n} (largest |entry| {best:e})"
                )));
            }
            self.piv[k] = p;
            // rows k and p, columns k ..= k + REACH (the slots past n are zero in both)
            if p != k {
                let (top, bottom) = self.a.split_at_mut(p * w);
                let rk = &mut top[k * w + KL..k * w + KL + Self::REACH + 1];
                let off = k + KL - p;
                let rp = &mut bottom[off..off + Self::REACH + 1];
                rk.swap_with_slice(rp);
            }
            let inv = 1.0 / self.a[k * w + KL];
            self.inv[k] = inv;
            let (top, bottom) = self.a.split_at_mut((k + 1) * w);
            let rk = &top[k * w + KL + 1..k * w + KL + 1 + Self::REACH];
            let lk = &mut self.l[k * KL..(k + 1) * KL];
            for (t, lt) in lk.iter_mut().enumerate() {
                let i = k + 1 + t;
                if i > last_row {
                    *lt = 0.0;
                    continue;
                }
                // row i, columns k ..= k + REACH start at offset k + KL − i
                let base = (i - k - 1) * w + k + KL - i;
                let ri = &mut bottom[base..base + Self::REACH + 1];
                let m = ri[0] * inv;
                *lt = m;
                ri[0] = m;
                if m != 0.0 {
                    for (x, y) in ri[1..].iter_mut().zip(rk) {
                        *x -= m * y;
                    }
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place with the factors of the last [`Self::factorize`].
    pub fn solve_in_place(&self, b: &mut [f64]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above); same operations, same results.
            return unsafe { self.solve_avx2(b) };
        }
        self.solve_generic(b)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn solve_avx2(&self, b: &mut [f64]) {
        self.solve_generic(b)
    }

    #[inline(always)]
    fn solve_generic(&self, b: &mut [f64]) {
        let n = self.n;
        let w = Self::W;
        assert_eq!(b.len(), n, "right-hand side of the wrong length");
        assert!(
            Self::REACH <= WINDOW,
            "band too wide for the windowed solve"
        );
        for k in 0..n {
            let p = self.piv[k];
            if p != k {
                b.swap(k, p);
            }
            let bk = b[k];
            if bk != 0.0 {
                let lk = &self.l[k * KL..(k + 1) * KL];
                let end = (k + 1 + KL).min(n);
                for (x, l) in b[k + 1..end].iter_mut().zip(lk) {
                    *x -= l * bk;
                }
            }
        }
        // Back substitution with the last REACH unknowns in a local window (registers, not
        // reloaded from `b` right after being stored; zero past n), the older terms of the dot
        // product in four interleaved partial sums and the newest one added last, so that only
        // it waits for the unknown just computed (fixed order: deterministic).
        let mut win = [0.0; WINDOW];
        for i in (0..n).rev() {
            let row = &self.a[i * w + KL + 1..i * w + KL + 1 + Self::REACH];
            let mut acc = [0.0; 4];
            for t in 1..Self::REACH {
                acc[t % 4] += row[t] * win[t];
            }
            let older = (acc[0] + acc[1]) + (acc[2] + acc[3]);
            let x = (b[i] - (older + row[0] * win[0])) * self.inv[i];
            b[i] = x;
            for t in (1..Self::REACH).rev() {
                win[t] = win[t - 1];
            }
            win[0] = x;
        }
    }
}

/// Length of the local window of [`FixedBandLu::solve_in_place`] (`≥ KL + KU`: 18 for the
/// planar beam and the string, 41 for the spatial beam).
const WINDOW: usize = 48;

/// A banded LU with compile-time widths, as the sideways elimination of the inverse solver
/// uses it (the widths depend on the body: [`crate::inverse::element::PointLaw::Band`]).
pub trait BandSolver: Send + Sync + Sized {
    /// Lower bandwidth.
    const KL: usize;
    /// Upper bandwidth.
    const KU: usize;
    /// Row stride of the storage that [`Self::factorize_streamed`] fills.
    const ROW: usize;
    /// Zero `n × n` matrix.
    fn new(n: usize) -> Self;
    /// Stored values.
    fn stored(&self) -> usize;
    /// [`FixedBandLu::factorize_streamed`].
    fn factorize_streamed(
        &mut self,
        block: usize,
        fill: impl FnMut(usize, &mut [f64]),
    ) -> Result<(), SolveError>;
    /// [`FixedBandLu::solve_in_place`].
    fn solve_in_place(&self, b: &mut [f64]);
}

impl<const KL: usize, const KU: usize> BandSolver for FixedBandLu<KL, KU> {
    const KL: usize = KL;
    const KU: usize = KU;
    const ROW: usize = 2 * KL + KU + 1;
    fn new(n: usize) -> Self {
        FixedBandLu::new(n)
    }
    fn stored(&self) -> usize {
        FixedBandLu::stored(self)
    }
    fn factorize_streamed(
        &mut self,
        block: usize,
        fill: impl FnMut(usize, &mut [f64]),
    ) -> Result<(), SolveError> {
        FixedBandLu::factorize_streamed(self, block, fill)
    }
    fn solve_in_place(&self, b: &mut [f64]) {
        FixedBandLu::solve_in_place(self, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against dense Gaussian elimination on a banded matrix whose diagonal is small, so that
    /// pivoting is needed.
    #[test]
    fn solves_a_banded_system_that_needs_pivoting() {
        let (n, kl, ku) = (40, 3, 2);
        let entry = |i: usize, j: usize| -> f64 {
            if j + kl < i || j > i + ku {
                0.0
            } else if i == j {
                1e-3 * (1.0 + (i % 3) as f64)
            } else {
                ((3 * i + 7 * j) as f64 * 0.37).sin() + 0.1
            }
        };
        let mut band = BandedLu::new(n, kl, ku);
        let mut dense = vec![vec![0.0; n]; n];
        for (i, row) in dense.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = entry(i, j);
                if *v != 0.0 {
                    band.add(i, j, *v);
                }
            }
        }
        let x_true: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).cos()).collect();
        let mut b: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| dense[i][j] * x_true[j]).sum())
            .collect();
        band.factorize().unwrap();
        band.solve_in_place(&mut b);
        let err = b
            .iter()
            .zip(&x_true)
            .fold(0.0f64, |m, (a, t)| m.max((a - t).abs()));
        assert!(err < 1e-10, "error {err:e}");
    }

    /// The slice-wise factorisation and solve give bit for bit the entry-by-entry elimination
    /// and substitutions (LINPACK `dgbfa`, `dgbsl` order), with row interchanges and zero
    /// right-hand-side entries.
    #[test]
    fn solve_is_entry_by_entry_to_the_bit() {
        for (n, kl, ku) in [(1, 0, 0), (2, 1, 1), (7, 2, 1), (40, 3, 5), (63, 8, 8)] {
            let mut band = BandedLu::new(n, kl, ku);
            for i in 0..n {
                for j in i.saturating_sub(kl)..(i + ku + 1).min(n) {
                    let v =
                        ((5 * i + 11 * j) as f64 * 0.61).sin() + if i == j { 0.05 } else { 0.0 };
                    band.add(i, j, v);
                }
            }
            let mut reference = band.clone();
            band.factorize().unwrap();
            // the factorisation entry by entry (LINPACK `dgbfa` order)
            let (w, reach) = (band.w, kl + ku);
            for k in 0..n {
                let last_row = (k + kl).min(n - 1);
                let mut p = k;
                let mut best = reference.at(k, k).abs();
                for i in k + 1..=last_row {
                    if reference.at(i, k).abs() > best {
                        best = reference.at(i, k).abs();
                        p = i;
                    }
                }
                reference.piv[k] = p;
                let last_col = (k + reach).min(n - 1);
                for j in k..=last_col {
                    reference.a.swap(k * w + j + kl - k, p * w + j + kl - p);
                }
                let pivot = reference.at(k, k);
                for i in k + 1..=last_row {
                    let ik = i * w + k + kl - i;
                    let l = reference.a[ik] / pivot;
                    reference.a[ik] = l;
                    if l != 0.0 {
                        let (rk, ri) = (k * w + kl + 1, i * w + k + 1 + kl - i);
                        for t in 0..last_col - k {
                            reference.a[ri + t] -= l * reference.a[rk + t];
                        }
                    }
                }
            }
            assert_eq!(band.piv, reference.piv);
            let pivoted = band.piv.iter().enumerate().filter(|(k, p)| k != *p).count();
            assert!(n < 7 || pivoted > 0, "no row interchange tested");
            for (x, y) in band.a.iter().zip(&reference.a) {
                assert_eq!(x.to_bits(), y.to_bits(), "n = {n}, kl = {kl}, ku = {ku}");
            }
            let b: Vec<f64> = (0..n)
                .map(|i| {
                    if i % 4 == 1 {
                        0.0
                    } else {
                        (i as f64 * 0.7).cos()
                    }
                })
                .collect();
            let mut fast = b.clone();
            band.solve_in_place(&mut fast);
            let mut slow = b;
            for k in 0..n {
                let p = band.piv[k];
                slow.swap(k, p);
                let bk = slow[k];
                if bk != 0.0 {
                    for i in k + 1..=(k + kl).min(n - 1) {
                        slow[i] -= band.a[i * w + k + kl - i] * bk;
                    }
                }
            }
            for i in (0..n).rev() {
                let mut s = slow[i];
                for j in i + 1..=(i + reach).min(n - 1) {
                    s -= band.a[i * w + j + kl - i] * slow[j];
                }
                slow[i] = s / band.a[i * w + kl];
            }
            for (x, y) in fast.iter().zip(&slow) {
                assert_eq!(x.to_bits(), y.to_bits(), "n = {n}, kl = {kl}, ku = {ku}");
            }
        }
    }

    #[test]
    fn reports_a_singular_matrix() {
        let mut band = BandedLu::new(3, 1, 1);
        band.add(0, 0, 1.0);
        band.add(2, 2, 1.0);
        assert!(band.factorize().is_err());
    }

    /// The fixed-width LU solves the same systems as the general one (to round-off).
    #[test]
    fn fixed_band_agrees_with_the_general_one() {
        const KL: usize = 3;
        const KU: usize = 2;
        let n = 40;
        let entry = |i: usize, j: usize| -> f64 {
            if j + KL < i || j > i + KU {
                0.0
            } else if i == j {
                1e-3 * (1.0 + (i % 3) as f64)
            } else {
                ((3 * i + 7 * j) as f64 * 0.37).sin() + 0.1
            }
        };
        let mut general = BandedLu::new(n, KL, KU);
        let mut fixed = FixedBandLu::<KL, KU>::new(n);
        for i in 0..n {
            for j in i.saturating_sub(KL)..(i + KU + 1).min(n) {
                general.add(i, j, entry(i, j));
                fixed.add(i, j, entry(i, j));
            }
        }
        general.factorize().unwrap();
        fixed.factorize().unwrap();
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).cos()).collect();
        let (mut x, mut y) = (b.clone(), b.clone());
        general.solve_in_place(&mut x);
        fixed.solve_in_place(&mut y);
        let err = x
            .iter()
            .zip(&y)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(err < 1e-12, "difference {err:e}");
        // and the residual of the fixed solve
        let res = (0..n).fold(0.0f64, |m, i| {
            let ax: f64 = (0..n).map(|j| entry(i, j) * y[j]).sum();
            m.max((ax - b[i]).abs())
        });
        assert!(res < 1e-10, "residual {res:e}");
    }
}
