//! Forward-mode dual numbers for exact tangents of small kernels: `Dual<K>` carries a value
//! and its `K` partial derivatives; a kernel written once over [`Real`] gives its value with
//! `f64` and its Jacobian with `Dual<K>` (seed the inputs with [`Dual::var`]).
//!
//! Only what the kernels use is implemented: the field operations, `sin`, `cos`, `sqrt`.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A scalar a kernel can be written over: `f64`, or a [`Dual`] number.
pub trait Real:
    Copy
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
{
    /// A constant.
    fn cst(v: f64) -> Self;
    /// The value (the `f64` part).
    fn value(self) -> f64;
    /// `sin`.
    fn sin(self) -> Self;
    /// `cos`.
    fn cos(self) -> Self;
    /// `sqrt` (of a positive number: the derivative at 0 is infinite).
    fn sqrt(self) -> Self;
}

impl Real for f64 {
    #[inline]
    fn cst(v: f64) -> Self {
        v
    }
    #[inline]
    fn value(self) -> f64 {
        self
    }
    #[inline]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline]
    fn cos(self) -> Self {
        f64::cos(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
}

/// A dual number `v + Σ_k d_k ε_k` with `ε_k ε_l = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual<const K: usize> {
    /// Value.
    pub v: f64,
    /// Partial derivatives.
    pub d: [f64; K],
}

impl<const K: usize> Dual<K> {
    /// The independent variable `k` at value `v` (derivative 1 in slot `k`).
    #[inline]
    pub fn var(v: f64, k: usize) -> Self {
        let mut d = [0.0; K];
        d[k] = 1.0;
        Self { v, d }
    }

    /// `f(v)` with derivative `f'(v)` (chain rule).
    #[inline]
    fn chain(self, f: f64, df: f64) -> Self {
        Self {
            v: f,
            d: self.d.map(|x| df * x),
        }
    }
}

impl<const K: usize> Real for Dual<K> {
    #[inline]
    fn cst(v: f64) -> Self {
        Self { v, d: [0.0; K] }
    }
    #[inline]
    fn value(self) -> f64 {
        self.v
    }
    #[inline]
    fn sin(self) -> Self {
        let (s, c) = self.v.sin_cos();
        self.chain(s, c)
    }
    #[inline]
    fn cos(self) -> Self {
        let (s, c) = self.v.sin_cos();
        self.chain(c, -s)
    }
    #[inline]
    fn sqrt(self) -> Self {
        let r = self.v.sqrt();
        self.chain(r, 0.5 / r)
    }
}

impl<const K: usize> Add for Dual<K> {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self {
            v: self.v + o.v,
            d: std::array::from_fn(|k| self.d[k] + o.d[k]),
        }
    }
}

impl<const K: usize> Sub for Dual<K> {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self {
            v: self.v - o.v,
            d: std::array::from_fn(|k| self.d[k] - o.d[k]),
        }
    }
}

impl<const K: usize> Mul for Dual<K> {
    type Output = Self;
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)] // the product rule
    fn mul(self, o: Self) -> Self {
        Self {
            v: self.v * o.v,
            d: std::array::from_fn(|k| self.d[k] * o.v + self.v * o.d[k]),
        }
    }
}

impl<const K: usize> Div for Dual<K> {
    type Output = Self;
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)] // the quotient rule
    fn div(self, o: Self) -> Self {
        let inv = 1.0 / o.v;
        let v = self.v * inv;
        Self {
            v,
            d: std::array::from_fn(|k| (self.d[k] - v * o.d[k]) * inv),
        }
    }
}

impl<const K: usize> Neg for Dual<K> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            v: -self.v,
            d: self.d.map(|x| -x),
        }
    }
}

impl<const K: usize> Add<f64> for Dual<K> {
    type Output = Self;
    #[inline]
    fn add(self, o: f64) -> Self {
        Self {
            v: self.v + o,
            d: self.d,
        }
    }
}

impl<const K: usize> Sub<f64> for Dual<K> {
    type Output = Self;
    #[inline]
    fn sub(self, o: f64) -> Self {
        Self {
            v: self.v - o,
            d: self.d,
        }
    }
}

impl<const K: usize> Mul<f64> for Dual<K> {
    type Output = Self;
    #[inline]
    fn mul(self, o: f64) -> Self {
        Self {
            v: self.v * o,
            d: self.d.map(|x| x * o),
        }
    }
}

impl<const K: usize> Div<f64> for Dual<K> {
    type Output = Self;
    #[inline]
    fn div(self, o: f64) -> Self {
        let inv = 1.0 / o;
        self * inv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f<S: Real>(x: S, y: S) -> S {
        (x * y + x.sin() * 2.0) / (y.cos() + 3.0) - (x * x + 1.0).sqrt() + (-y)
    }

    /// The dual derivatives are those of central differences.
    #[test]
    fn derivatives_match_finite_differences() {
        let (x, y) = (0.7, -1.3);
        let d = f(Dual::<2>::var(x, 0), Dual::<2>::var(y, 1));
        assert!((d.v - f(x, y)).abs() < 1e-15);
        let h = 1e-6;
        let dx = (f(x + h, y) - f(x - h, y)) / (2.0 * h);
        let dy = (f(x, y + h) - f(x, y - h)) / (2.0 * h);
        assert!((d.d[0] - dx).abs() < 1e-9, "{} {dx}", d.d[0]);
        assert!((d.d[1] - dy).abs() < 1e-9, "{} {dy}", d.d[1]);
    }
}
