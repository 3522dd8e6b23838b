//! Prescribed tip trajectories `γ(t) = (x, y, θ)` of the servo constraint, `[I]` Eq. 5.
//!
//! A trajectory gives `γ`, `γ'` and `γ''` ([`TipTrajectory`]). Built in:
//! * [`RestToRestArc`]: the tip turns about a centre, `γ = c + R(φσ(t))(p0 − c)`,
//!   `θ = θ0 + φσ(t)`; Example 3.2 of `[I]` with the typo of Eq. 35 corrected
//!   (`γ = (cos φσ, sin φσ, φσ)`, centre at the origin, `p0 = (1, 0)`);
//! * [`RestToRestLine`]: the tip translates and turns, `γ = p0 + σ(t) Δ`;
//! * [`CsvTrajectory`]: user samples `(t, x, y, θ)`, interpolated by a cubic spline with zero
//!   start slope (the beam starts at rest) and natural end, after checks of the data.
//!
//! `σ` is the rest-to-rest profile of `[I]` Eq. 35,
//! `σ(t) = 1 − ½ (cos(π/2 (sin(π (t−t0)/T − π/2) + 1)) + 1)` on `[t0, t0 + T]`, 0 before, 1 after.
//! Written as `u = (1 − cos πτ)/2`, `σ = (1 − cos πu)/2`, `τ = (t − t0)/T`, it is `C³`: `σ'`,
//! `σ''` and `σ'''` vanish at both ends.

use std::path::Path;

/// A prescribed tip motion `γ(t)` with its first two time derivatives.
pub trait TipTrajectory: std::fmt::Debug + Send + Sync {
    /// `γ(t) = (x, y, θ)` (m, m, rad).
    fn pose(&self, t: f64) -> [f64; 3];
    /// `γ'(t)`.
    fn velocity(&self, t: f64) -> [f64; 3];
    /// `γ''(t)`.
    fn acceleration(&self, t: f64) -> [f64; 3];
    /// Interval on which the tip moves, if known (for reports).
    fn motion_interval(&self) -> Option<(f64, f64)> {
        None
    }
}

/// The rest-to-rest profile `σ(t)` of `[I]` Eq. 35 (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestToRestProfile {
    /// Start of the motion `t0` (s).
    pub t0: f64,
    /// Duration `T > 0` (s).
    pub duration: f64,
}

impl RestToRestProfile {
    /// `(σ, σ', σ'')` at `t`.
    pub fn eval(&self, t: f64) -> [f64; 3] {
        use std::f64::consts::PI;
        let tau = (t - self.t0) / self.duration;
        if tau <= 0.0 {
            return [0.0; 3];
        }
        if tau >= 1.0 {
            return [1.0, 0.0, 0.0];
        }
        let big_t = self.duration;
        let u = 0.5 * (1.0 - (PI * tau).cos());
        let u1 = PI / (2.0 * big_t) * (PI * tau).sin();
        let u2 = PI * PI / (2.0 * big_t * big_t) * (PI * tau).cos();
        let (su, cu) = (PI * u).sin_cos();
        [
            0.5 * (1.0 - cu),
            0.5 * PI * su * u1,
            0.5 * PI * (PI * cu * u1 * u1 + su * u2),
        ]
    }
}

/// Rotation of the tip about `center` by `φ σ(t)`: `γ = c + R(φσ)(p0 − c)`, `θ = θ0 + φσ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestToRestArc {
    /// Initial tip pose `(x, y, θ)`.
    pub start: [f64; 3],
    /// Centre of the arc (m).
    pub center: [f64; 2],
    /// Total angle `φ` (rad).
    pub angle: f64,
    /// Time profile.
    pub profile: RestToRestProfile,
}

impl RestToRestArc {
    /// `[I]` Example 3.2 (Eq. 35 corrected): tip from `(1, 0)` to `(0, 1)` about the origin.
    pub fn example_3_2() -> Self {
        Self {
            start: [1.0, 0.0, 0.0],
            center: [0.0, 0.0],
            angle: std::f64::consts::FRAC_PI_2,
            profile: RestToRestProfile {
                t0: 2.0,
                duration: 2.0,
            },
        }
    }

    fn eval(&self, t: f64) -> [[f64; 3]; 3] {
        let [s, s1, s2] = self.profile.eval(t);
        let (a, a1, a2) = (self.angle * s, self.angle * s1, self.angle * s2);
        let d = [
            self.start[0] - self.center[0],
            self.start[1] - self.center[1],
        ];
        let (sn, cs) = a.sin_cos();
        let rd = [cs * d[0] - sn * d[1], sn * d[0] + cs * d[1]];
        let perp = [-rd[1], rd[0]];
        [
            [
                self.center[0] + rd[0],
                self.center[1] + rd[1],
                self.start[2] + a,
            ],
            [a1 * perp[0], a1 * perp[1], a1],
            [
                a2 * perp[0] - a1 * a1 * rd[0],
                a2 * perp[1] - a1 * a1 * rd[1],
                a2,
            ],
        ]
    }
}

impl TipTrajectory for RestToRestArc {
    fn pose(&self, t: f64) -> [f64; 3] {
        self.eval(t)[0]
    }
    fn velocity(&self, t: f64) -> [f64; 3] {
        self.eval(t)[1]
    }
    fn acceleration(&self, t: f64) -> [f64; 3] {
        self.eval(t)[2]
    }
    fn motion_interval(&self) -> Option<(f64, f64)> {
        Some((self.profile.t0, self.profile.t0 + self.profile.duration))
    }
}

/// Straight rest-to-rest motion `γ = p0 + σ(t) Δ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestToRestLine {
    /// Initial tip pose `p0`.
    pub start: [f64; 3],
    /// Total change `Δ = (Δx, Δy, Δθ)`.
    pub delta: [f64; 3],
    /// Time profile.
    pub profile: RestToRestProfile,
}

impl RestToRestLine {
    fn eval(&self, t: f64, k: usize) -> [f64; 3] {
        let s = self.profile.eval(t)[k];
        let base = if k == 0 { self.start } else { [0.0; 3] };
        [
            base[0] + s * self.delta[0],
            base[1] + s * self.delta[1],
            base[2] + s * self.delta[2],
        ]
    }
}

impl TipTrajectory for RestToRestLine {
    fn pose(&self, t: f64) -> [f64; 3] {
        self.eval(t, 0)
    }
    fn velocity(&self, t: f64) -> [f64; 3] {
        self.eval(t, 1)
    }
    fn acceleration(&self, t: f64) -> [f64; 3] {
        self.eval(t, 2)
    }
    fn motion_interval(&self) -> Option<(f64, f64)> {
        Some((self.profile.t0, self.profile.t0 + self.profile.duration))
    }
}

/// A problem with trajectory data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrajectoryError {
    /// The CSV file could not be read.
    #[error("cannot read trajectory file {path}: {message}")]
    Read {
        /// File.
        path: String,
        /// I/O error text.
        message: String,
    },
    /// A row is malformed.
    #[error("trajectory file {path}, line {line}: {message}")]
    Row {
        /// File.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The data as a whole is unusable.
    #[error("trajectory {path}: {message}")]
    Data {
        /// File (or trajectory name).
        path: String,
        /// What is wrong and how to fix it.
        message: String,
    },
}

/// Interpolated user samples `(t, x, y, θ)`: a cubic spline per component with `γ'(t_first) = 0`
/// (rest start) and `γ'' = 0` at the last sample.
#[derive(Clone, Debug)]
pub struct CsvTrajectory {
    /// Where the data came from.
    pub origin: String,
    t: Vec<f64>,
    y: [Vec<f64>; 3],
    m: [Vec<f64>; 3],
}

/// What a discontinuity in derivative `k` means for the user.
fn derivative_name(k: usize) -> &'static str {
    match k {
        0 => "the pose itself (position or angle) jumps",
        1 => "the velocity γ' jumps (a kink in the path)",
        _ => "the acceleration γ'' jumps",
    }
}

impl CsvTrajectory {
    /// Reads `t,x,y,theta` rows (a header line and `#` comments allowed).
    pub fn from_path(path: &Path) -> Result<Self, TrajectoryError> {
        let text = std::fs::read_to_string(path).map_err(|e| TrajectoryError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_csv_str(&text, &path.display().to_string())
    }

    /// Parses CSV text; `origin` names it in messages.
    pub fn from_csv_str(text: &str, origin: &str) -> Result<Self, TrajectoryError> {
        let row_err = |line: usize, message: String| TrajectoryError::Row {
            path: origin.to_owned(),
            line,
            message,
        };
        let mut t = Vec::new();
        let mut y: [Vec<f64>; 3] = Default::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            let parsed: Result<Vec<f64>, _> = cells.iter().map(|c| c.parse::<f64>()).collect();
            let vals = match parsed {
                Ok(v) => v,
                Err(_) if t.is_empty() && cells.first().is_some_and(|c| c.starts_with('t')) => {
                    continue; // header
                }
                Err(_) => {
                    return Err(row_err(
                        i + 1,
                        format!("expected 4 numbers `t,x,y,theta`, got `{line}`"),
                    ));
                }
            };
            if vals.len() != 4 {
                return Err(row_err(
                    i + 1,
                    format!("expected 4 columns `t,x,y,theta`, got {}", vals.len()),
                ));
            }
            if !vals.iter().all(|v| v.is_finite()) {
                return Err(row_err(i + 1, "values must be finite".into()));
            }
            if let Some(&last) = t.last()
                && vals[0] <= last
            {
                return Err(row_err(
                    i + 1,
                    format!(
                        "times must increase strictly (t = {} after {last})",
                        vals[0]
                    ),
                ));
            }
            t.push(vals[0]);
            for c in 0..3 {
                y[c].push(vals[c + 1]);
            }
        }
        if t.len() < 4 {
            return Err(TrajectoryError::Data {
                path: origin.to_owned(),
                message: format!(
                    "needs at least 4 samples, found {}; sample the motion densely \
                     (several samples per time element)",
                    t.len()
                ),
            });
        }
        let m = [0, 1, 2].map(|c| spline_second_derivatives(&t, &y[c]));
        Ok(Self {
            origin: origin.to_owned(),
            t,
            y,
            m,
        })
    }

    /// First and last sample time (s).
    pub fn time_range(&self) -> (f64, f64) {
        (self.t[0], self.t[self.t.len() - 1])
    }

    /// Checks that the data can drive the discretisation: it covers `[t_start, t_end]`, starts
    /// at `tip_pose` at rest, and its derivatives up to `order` (1: continuous velocity, needed
    /// for a free end; 2: continuous acceleration, needed with a tip mass) have no jumps.
    pub fn check(
        &self,
        t_start: f64,
        t_end: f64,
        tip_pose: [f64; 3],
        order: usize,
    ) -> Result<(), TrajectoryError> {
        let data = |message: String| TrajectoryError::Data {
            path: self.origin.clone(),
            message,
        };
        let (a, b) = self.time_range();
        if a > t_start + 1e-12 || b < t_end - 1e-12 {
            return Err(data(format!(
                "covers t = [{a}, {b}] s but the time domain is [{t_start}, {t_end}] s; \
                 extend the data or shorten `time`"
            )));
        }
        let p = self.pose(t_start);
        let scale = 1.0 + tip_pose.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let dev = (0..3).fold(0.0f64, |m, c| m.max((p[c] - tip_pose[c]).abs()));
        if dev > 1e-9 * scale {
            return Err(data(format!(
                "must start at the tip's initial pose (x, y, θ) = ({}, {}, {}) at t = {t_start} s, \
                 but starts at ({}, {}, {}) (deviation {dev:.3e}); the servo constraint would \
                 demand a jump of the tip. Shift the data or change the beam's initial state",
                tip_pose[0], tip_pose[1], tip_pose[2], p[0], p[1], p[2]
            )));
        }
        for c in 0..3 {
            if let Some((k, t_jump)) = first_discontinuity(&self.t, &self.y[c], order) {
                let comp = ["x", "y", "θ"][c];
                let need = if order >= 2 {
                    "continuous acceleration (C²; the tip mass turns γ'' into a force)"
                } else {
                    "continuous velocity (C¹; the actuation follows γ' along the characteristics)"
                };
                return Err(data(format!(
                    "not smooth enough: in component {comp}, {} at t = {t_jump} s. The inverse \
                     problem needs a {need}, and the beam starts at rest, so the data must also \
                     leave the initial pose smoothly. Smooth the data (e.g. with the rest-to-rest \
                     profile) or sample it more densely",
                    derivative_name(k)
                )));
            }
        }
        Ok(())
    }

    fn eval(&self, t: f64) -> [[f64; 3]; 3] {
        let n = self.t.len();
        let tc = t.clamp(self.t[0], self.t[n - 1]);
        let k = match self.t.partition_point(|&x| x <= tc) {
            0 => 0,
            i => (i - 1).min(n - 2),
        };
        let h = self.t[k + 1] - self.t[k];
        let a = (self.t[k + 1] - tc) / h;
        let b = (tc - self.t[k]) / h;
        let mut out = [[0.0; 3]; 3];
        for c in 0..3 {
            let (y0, y1, m0, m1) = (
                self.y[c][k],
                self.y[c][k + 1],
                self.m[c][k],
                self.m[c][k + 1],
            );
            out[0][c] =
                a * y0 + b * y1 + ((a * a * a - a) * m0 + (b * b * b - b) * m1) * h * h / 6.0;
            out[1][c] = (y1 - y0) / h - (3.0 * a * a - 1.0) / 6.0 * h * m0
                + (3.0 * b * b - 1.0) / 6.0 * h * m1;
            out[2][c] = a * m0 + b * m1;
        }
        if t < self.t[0] || t > self.t[n - 1] {
            out[1] = [0.0; 3];
            out[2] = [0.0; 3];
        }
        out
    }
}

impl TipTrajectory for CsvTrajectory {
    fn pose(&self, t: f64) -> [f64; 3] {
        self.eval(t)[0]
    }
    fn velocity(&self, t: f64) -> [f64; 3] {
        self.eval(t)[1]
    }
    fn acceleration(&self, t: f64) -> [f64; 3] {
        self.eval(t)[2]
    }
    /// From the last sample at the first pose to the first sample at the last pose.
    fn motion_interval(&self) -> Option<(f64, f64)> {
        let n = self.t.len();
        let moved = |k: usize, r: usize| {
            (0..3).any(|c| (self.y[c][k] - self.y[c][r]).abs() > 1e-9 * (1.0 + self.y[c][r].abs()))
        };
        let first = (0..n).find(|&k| moved(k, 0))?;
        let last = (0..n).rev().find(|&k| moved(k, n - 1))?;
        Some((
            self.t[first.saturating_sub(1)],
            self.t[(last + 1).min(n - 1)],
        ))
    }
}

/// Second derivatives of the cubic spline through `(t, y)` with `y'(t_0) = 0` and
/// `y''(t_n) = 0` (Thomas algorithm).
fn spline_second_derivatives(t: &[f64], y: &[f64]) -> Vec<f64> {
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

/// Looks for a jump in derivative `k ≤ order` of sampled data that starts at rest (three
/// virtual rest samples are prepended). A jump in derivative `k` makes the divided differences
/// of order `k + 1` spike like `1/h` at the samples whose stencil straddles it; a spike is an
/// entry 8× larger than every entry `k + 1` or `k + 2` places away on either side (which lie
/// outside the straddling stencils) and above round-off. Returns `(k, time)` of the first one.
fn first_discontinuity(t: &[f64], y: &[f64], order: usize) -> Option<(usize, f64)> {
    let h0 = t[1] - t[0];
    let mut tt = vec![t[0] - 3.0 * h0, t[0] - 2.0 * h0, t[0] - h0];
    let mut yy = vec![y[0]; 3];
    tt.extend_from_slice(t);
    yy.extend_from_slice(y);
    let span = tt[tt.len() - 1] - tt[0];
    let range = yy.iter().fold(0.0f64, |m, v| m.max((v - y[0]).abs()));
    if range == 0.0 {
        return None;
    }
    let mut dd = yy.clone();
    for k in 0..=order {
        let m = k + 1; // order of the divided difference
        let next: Vec<f64> = (0..dd.len() - 1)
            .map(|i| (dd[i + 1] - dd[i]) / (tt[i + m] - tt[i]))
            .collect();
        let floor = 1e-6 * range / span.powi(m as i32);
        for i in 0..next.len() {
            let v = next[i].abs();
            if v <= floor {
                continue;
            }
            let far = [
                i.checked_sub(m),
                i.checked_sub(m + 1),
                Some(i + m),
                Some(i + m + 1),
            ];
            let neighbours: Vec<f64> = far
                .iter()
                .flatten()
                .filter(|&&j| j < next.len())
                .map(|&j| next[j].abs())
                .collect();
            if !neighbours.is_empty() && neighbours.iter().all(|&nb| v > 8.0 * nb) {
                // the jump lies inside the stencil tt[i..=i+m]; report its middle sample
                let when = tt[(i + m / 2 + m % 2).min(tt.len() - 1)].max(t[0]);
                return Some((k, when));
            }
        }
        dd = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fd_check(tr: &dyn TipTrajectory, t: f64) {
        let h = 1e-5;
        let (p1, p0) = (tr.pose(t + h), tr.pose(t - h));
        let (v1, v0) = (tr.velocity(t + h), tr.velocity(t - h));
        let (v, a) = (tr.velocity(t), tr.acceleration(t));
        for c in 0..3 {
            assert!(
                ((p1[c] - p0[c]) / (2.0 * h) - v[c]).abs() < 1e-7,
                "v at {t}"
            );
            assert!(
                ((v1[c] - v0[c]) / (2.0 * h) - a[c]).abs() < 1e-6,
                "a at {t}"
            );
        }
    }

    #[test]
    fn example_3_2_endpoints_and_derivatives() {
        let tr = RestToRestArc::example_3_2();
        assert_eq!(tr.pose(0.0), [1.0, 0.0, 0.0]);
        let e = tr.pose(5.0);
        assert!(e[0].abs() < 1e-15 && (e[1] - 1.0).abs() < 1e-15);
        assert!((e[2] - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        for t in [2.1, 2.7, 3.0, 3.5, 3.95] {
            fd_check(&tr, t);
            let p = tr.pose(t);
            assert!((p[0].hypot(p[1]) - 1.0).abs() < 1e-14, "on the unit circle");
        }
    }

    fn sampled(f: impl Fn(f64) -> f64, n: usize) -> String {
        let mut s = String::from("t,x,y,theta\n");
        for k in 0..=n {
            let t = 6.0 * k as f64 / n as f64;
            s.push_str(&format!("{t},{},0,0\n", 1.0 + f(t)));
        }
        s
    }

    #[test]
    fn csv_spline_reproduces_a_smooth_profile() {
        let prof = RestToRestProfile {
            t0: 2.0,
            duration: 2.0,
        };
        let csv =
            CsvTrajectory::from_csv_str(&sampled(|t| 0.1 * prof.eval(t)[0], 600), "m").unwrap();
        csv.check(0.0, 6.0, [1.0, 0.0, 0.0], 2).unwrap();
        for t in [1.0, 2.5, 3.0, 3.7] {
            let (p, v) = (csv.pose(t), csv.velocity(t));
            assert!((p[0] - 1.0 - 0.1 * prof.eval(t)[0]).abs() < 1e-7);
            assert!((v[0] - 0.1 * prof.eval(t)[1]).abs() < 1e-5);
        }
    }

    #[test]
    fn csv_checks_name_the_missing_derivative() {
        // a kink: ramp starting at t = 2
        let kink = sampled(|t| 0.1 * (t - 2.0).max(0.0), 600);
        let e = CsvTrajectory::from_csv_str(&kink, "kink.csv")
            .unwrap()
            .check(0.0, 6.0, [1.0, 0.0, 0.0], 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("velocity γ' jumps") && e.contains("t = 2"),
            "{e}"
        );
        // C¹ but not C²: a parabola starting at t = 2 is fine for a free end, not a tip mass
        let par = sampled(|t| 0.1 * (t - 2.0).max(0.0).powi(2), 600);
        let c = CsvTrajectory::from_csv_str(&par, "par.csv").unwrap();
        c.check(0.0, 6.0, [1.0, 0.0, 0.0], 1).unwrap();
        let e = c
            .check(0.0, 6.0, [1.0, 0.0, 0.0], 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("acceleration γ'' jumps"), "{e}");
        // wrong start
        let e = c
            .check(0.0, 6.0, [0.9, 0.0, 0.0], 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("initial pose"), "{e}");
        // a jump
        let jump = sampled(|t| if t > 3.0 { 0.1 } else { 0.0 }, 600);
        let e = CsvTrajectory::from_csv_str(&jump, "j.csv")
            .unwrap()
            .check(0.0, 6.0, [1.0, 0.0, 0.0], 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("pose itself"), "{e}");
        // a velocity jump at the start (moving right away from rest)
        let lin = sampled(|t| 0.1 * t, 600);
        let e = CsvTrajectory::from_csv_str(&lin, "l.csv")
            .unwrap()
            .check(0.0, 6.0, [1.0, 0.0, 0.0], 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("velocity"), "{e}");
        let bad = "t,x,y,theta\n0,1,0,0\n1,1,0\n";
        let e = CsvTrajectory::from_csv_str(bad, "b.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3"), "{e}");
    }
}
