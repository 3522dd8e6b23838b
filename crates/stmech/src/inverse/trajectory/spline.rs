//! The cubic spline of sampled trajectories, shared by [`super::CsvTrajectory`] and
//! [`super::pose_csv`]: `y'(t_first) = 0` (the body starts at rest) and `y'' = 0` at the last
//! sample (natural end); constant with zero derivatives outside the samples.

/// Where `t` falls: segment `k` (between samples `k` and `k + 1`), the weights `a = (t_{k+1} −
/// t)/h`, `b = (t − t_k)/h`, `h`, and whether `t` lies outside the samples.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment {
    k: usize,
    a: f64,
    b: f64,
    h: f64,
    outside: bool,
}

/// The segment of `at` among the sample times `t` (at least 2).
pub(crate) fn segment(t: &[f64], at: f64) -> Segment {
    let n = t.len();
    let tc = at.clamp(t[0], t[n - 1]);
    let k = match t.partition_point(|&x| x <= tc) {
        0 => 0,
        i => (i - 1).min(n - 2),
    };
    let h = t[k + 1] - t[k];
    Segment {
        k,
        a: (t[k + 1] - tc) / h,
        b: (tc - t[k]) / h,
        h,
        outside: at < t[0] || at > t[n - 1],
    }
}

/// `(y, y', y'')` of the spline with values `y` and second derivatives `m` on `seg`.
pub(crate) fn eval(y: &[f64], m: &[f64], seg: Segment) -> [f64; 3] {
    let Segment { k, a, b, h, .. } = seg;
    let (y0, y1, m0, m1) = (y[k], y[k + 1], m[k], m[k + 1]);
    let value = a * y0 + b * y1 + ((a * a * a - a) * m0 + (b * b * b - b) * m1) * h * h / 6.0;
    if seg.outside {
        return [value, 0.0, 0.0];
    }
    let slope =
        (y1 - y0) / h - (3.0 * a * a - 1.0) / 6.0 * h * m0 + (3.0 * b * b - 1.0) / 6.0 * h * m1;
    [value, slope, a * m0 + b * m1]
}

/// Second derivatives of the cubic spline through `(t, y)` with `y'(t_0) = 0` and
/// `y''(t_n) = 0` (Thomas algorithm).
pub(crate) fn second_derivatives(t: &[f64], y: &[f64]) -> Vec<f64> {
    let n = t.len();
    let h: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    let mut lo = vec![0.0; n];
    let mut di = vec![0.0; n];
    let mut up = vec![0.0; n];
    let mut rhs = vec![0.0; n];
    // clamped start, slope 0
    di[0] = 2.0 * h[0];
    up[0] = h[0];
    rhs[0] = 6.0 * ((y[1] - y[0]) / h[0]);
    for k in 1..n - 1 {
        lo[k] = h[k - 1];
        di[k] = 2.0 * (h[k - 1] + h[k]);
        up[k] = h[k];
        rhs[k] = 6.0 * ((y[k + 1] - y[k]) / h[k] - (y[k] - y[k - 1]) / h[k - 1]);
    }
    di[n - 1] = 1.0; // natural end
    for k in 1..n {
        let w = lo[k] / di[k - 1];
        di[k] -= w * up[k - 1];
        rhs[k] -= w * rhs[k - 1];
    }
    let mut m = vec![0.0; n];
    m[n - 1] = rhs[n - 1] / di[n - 1];
    for k in (0..n - 1).rev() {
        m[k] = (rhs[k] - up[k] * m[k + 1]) / di[k];
    }
    m
}
