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
            piv: vec![0; n],
        }
    }

    /// Dimension.
    pub fn n(&self) -> usize {
        self.n
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
            if p != k {
                for j in k..=last_col {
                    let (ik, ip) = (k * w + j + kl - k, p * w + j + kl - p);
                    self.a.swap(ik, ip);
                }
            }
            let pivot = self.at(k, k);
            for i in k + 1..=last_row {
                let ik = i * w + k + kl - i;
                let l = self.a[ik] / pivot;
                self.a[ik] = l;
                if l != 0.0 {
                    // Row k, columns k+1..=last_col, against row i: both are contiguous.
                    let (rk, ri) = (k * w + kl + 1, i * w + k + 1 + kl - i);
                    let len = last_col - k;
                    for t in 0..len {
                        self.a[ri + t] -= l * self.a[rk + t];
                    }
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place with the factors of the last [`BandedLu::factorize`].
    pub fn solve_in_place(&self, b: &mut [f64]) {
        let (n, kl, w) = (self.n, self.kl, self.w);
        let reach = kl + self.ku;
        for k in 0..n {
            let p = self.piv[k];
            if p != k {
                b.swap(k, p);
            }
            let bk = b[k];
            if bk != 0.0 {
                for i in k + 1..=(k + kl).min(n - 1) {
                    b[i] -= self.a[i * w + k + kl - i] * bk;
                }
            }
        }
        for i in (0..n).rev() {
            let mut s = b[i];
            for j in i + 1..=(i + reach).min(n - 1) {
                s -= self.a[i * w + j + kl - i] * b[j];
            }
            b[i] = s / self.a[i * w + kl];
        }
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

    #[test]
    fn reports_a_singular_matrix() {
        let mut band = BandedLu::new(3, 1, 1);
        band.add(0, 0, 1.0);
        band.add(2, 2, 1.0);
        assert!(band.factorize().is_err());
    }
}
