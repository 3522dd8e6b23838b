//! Gauss–Legendre quadrature on the reference interval `[0, 1]`.

/// Gauss–Legendre rule with `n` points, exact for polynomials of degree `2n − 1`,
/// mapped to `[0, 1]` (weights sum to 1).
#[derive(Clone, Debug)]
pub struct GaussLegendre {
    /// Abscissae in `[0, 1]`, increasing.
    pub points: Vec<f64>,
    /// Weights, summing to 1.
    pub weights: Vec<f64>,
}

impl GaussLegendre {
    /// Builds the `n`-point rule by Newton iteration on the Legendre polynomial `P_n`
    /// (Golub–Welsch would do as well; this converges to round-off in a few steps).
    ///
    /// # Panics
    /// If `n == 0` (programmer error).
    pub fn new(n: usize) -> Self {
        assert!(n > 0, "a quadrature rule needs at least one point");
        let mut points = vec![0.0; n];
        let mut weights = vec![0.0; n];
        for i in 0..n {
            // Chebyshev-like initial guess for the i-th root on [-1, 1].
            let mut x = -(std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (p, d) = legendre(n, x);
                dp = d;
                let dx = p / d;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            let (_, d) = legendre(n, x);
            dp = if d != 0.0 { d } else { dp };
            points[i] = 0.5 * (x + 1.0);
            // w = 2 / ((1 − x²) P'_n(x)²) on [-1,1]; halved for [0,1].
            weights[i] = 1.0 / ((1.0 - x * x) * dp * dp);
        }
        Self { points, weights }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always false: a rule has at least one point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// `(P_n(x), P_n'(x))` by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 2..=n {
        let kf = k as f64;
        let p2 = ((2.0 * kf - 1.0) * x * p1 - (kf - 1.0) * p0) / kf;
        p0 = p1;
        p1 = p2;
    }
    let d = n as f64 * (x * p1 - p0) / (x * x - 1.0);
    (p1, d)
}

/// Quadrature sub-intervals of the element `[ta, tb]`, split at the load `breakpoints` (sorted)
/// so that piecewise-smooth loads are integrated exactly, as `(τ_start, τ_end)` in reference
/// coordinates. Breakpoints closer than `1e-12` (relative) to an existing split are ignored.
pub fn split_at_breakpoints(breakpoints: &[f64], ta: f64, tb: f64, out: &mut Vec<(f64, f64)>) {
    out.clear();
    let mut prev = 0.0;
    for &t in breakpoints {
        if t > ta && t < tb {
            let tau = (t - ta) / (tb - ta);
            if tau - prev > 1e-12 && 1.0 - tau > 1e-12 {
                out.push((prev, tau));
                prev = tau;
            }
        }
    }
    out.push((prev, 1.0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_rules_are_exact_to_degree_2n_minus_1() {
        for n in 1..=8 {
            let q = GaussLegendre::new(n);
            for deg in 0..(2 * n) {
                let s: f64 = q
                    .points
                    .iter()
                    .zip(&q.weights)
                    .map(|(x, w)| w * x.powi(deg as i32))
                    .sum();
                let exact = 1.0 / (deg as f64 + 1.0);
                assert!((s - exact).abs() < 1e-14, "n={n} deg={deg}: {s} vs {exact}");
            }
            // and not exact for degree 2n (so the rule is the Gauss rule, not a richer one)
            let s: f64 = q
                .points
                .iter()
                .zip(&q.weights)
                .map(|(x, w)| w * x.powi(2 * n as i32))
                .sum();
            assert!((s - 1.0 / (2.0 * n as f64 + 1.0)).abs() > 1e-12);
        }
    }
}
