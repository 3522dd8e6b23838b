//! User samples from a CSV file, interpolated by a cubic spline: the planar tip's pose
//! `(t, x, y, θ)` ([`Columns::PlanarPose`]) or a point's position `(t, x, y, z)`
//! ([`Columns::Position`], the crane's payload).

use super::smoothness::{self, ColumnPrecision, Smoothness};
use super::{TipTrajectory, TrajectoryError};
use super::{rows, spline};
use crate::io::text::{InputLimit, read_text};
use std::path::Path;

/// What the three value columns of a trajectory file are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// `t,x,y,theta`: the planar tip's position (m) and frame angle (rad).
    PlanarPose,
    /// `t,x,y,z`: a point's position in space (m), e.g. the crane's payload.
    Position,
}

impl Columns {
    /// Names of the value columns.
    pub fn names(self) -> [&'static str; 3] {
        match self {
            Self::PlanarPose => ["x", "y", "θ"],
            Self::Position => ["x", "y", "z"],
        }
    }

    /// The header to write (`t,x,y,theta` or `t,x,y,z`).
    pub fn header(self) -> &'static str {
        match self {
            Self::PlanarPose => "t,x,y,theta",
            Self::Position => "t,x,y,z",
        }
    }

    /// Whether value column `c` is an angle (scaled on its own by the smoothness test).
    fn is_angle(self, c: usize) -> bool {
        self == Self::PlanarPose && c == 2
    }

    /// What a sample is called in messages.
    fn what(self) -> &'static str {
        match self {
            Self::PlanarPose => "pose (x, y, θ)",
            Self::Position => "position (x, y, z)",
        }
    }
}

/// Interpolated user samples `(t, x, y, θ)` or `(t, x, y, z)` ([`Columns`]): a cubic spline
/// per component with `γ'(t_first) = 0` (rest start) and `γ'' = 0` at the last sample.
#[derive(Clone, Debug)]
pub struct CsvTrajectory {
    /// Where the data came from.
    pub origin: String,
    /// What the columns are.
    pub columns: Columns,
    t: Vec<f64>,
    y: [Vec<f64>; 3],
    m: [Vec<f64>; 3],
    /// How precisely each column (t, x, y, θ) is written: the round-off floor of the
    /// smoothness test.
    precision: [ColumnPrecision; 4],
}

/// What a discontinuity in derivative `k` means for the user.
pub(super) fn derivative_name(k: usize) -> &'static str {
    match k {
        0 => "the pose itself (position or angle) jumps",
        1 => "the velocity γ' jumps (a kink in the path)",
        2 => "the acceleration γ'' jumps",
        _ => "the jerk γ''' jumps",
    }
}

impl CsvTrajectory {
    /// Reads `t,x,y,theta` rows (a header line and `#` comments allowed) from a regular file
    /// of at most the default input size ([`InputLimit::default`]).
    pub fn from_path(path: &Path) -> Result<Self, TrajectoryError> {
        Self::from_path_limited(path, InputLimit::default())
    }

    /// [`from_path`](Self::from_path) with an explicit size limit.
    pub fn from_path_limited(path: &Path, limit: InputLimit) -> Result<Self, TrajectoryError> {
        Self::read(path, limit, Columns::PlanarPose)
    }

    /// Reads rows of the given [`Columns`] from a regular file of at most `limit` bytes.
    pub fn read(path: &Path, limit: InputLimit, columns: Columns) -> Result<Self, TrajectoryError> {
        let text = read_text(path, limit).map_err(|e| TrajectoryError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&text, &path.display().to_string(), columns)
    }

    /// Parses `t,x,y,theta` CSV text; `origin` names it in messages. A UTF-8 byte-order mark
    /// is skipped and the header may use any letter case.
    pub fn from_csv_str(text: &str, origin: &str) -> Result<Self, TrajectoryError> {
        Self::parse(text, origin, Columns::PlanarPose)
    }

    /// Parses CSV text of the given [`Columns`] (see [`from_csv_str`](Self::from_csv_str)).
    pub fn parse(text: &str, origin: &str, columns: Columns) -> Result<Self, TrajectoryError> {
        let layout = format!("`{}`", columns.header());
        let rows = rows::parse(text, origin, &[3], &layout)?;
        let mut y: [Vec<f64>; 3] = Default::default();
        for r in &rows.values {
            for c in 0..3 {
                y[c].push(r[c]);
            }
        }
        let p = &rows.precision;
        let precision = match p.as_slice() {
            [a, b, c] => [rows.t_precision, *a, *b, *c],
            _ => [rows.t_precision; 4], // no rows: refused by from_columns
        };
        Self::from_columns(origin, columns, rows.t, y, precision)
    }

    /// Samples given as numbers (`trajectory.kind = "samples"` of an inverse scenario, numpy
    /// arrays from Python): `t` (s) and `pose` rows `(x, y, θ)` (m, rad). The checks are the
    /// CSV rows' (finite, strictly increasing times, at least 4 samples), and each value
    /// counts as written with the digits of its shortest round-trip decimal form, so the
    /// smoothness test ([`check`](Self::check)) treats it as a CSV file written that way. The
    /// error names the field (`"t"` or `"pose"`) and the sample.
    pub fn from_samples(
        t: &[f64],
        pose: &[[f64; 3]],
        origin: &str,
    ) -> Result<Self, (&'static str, TrajectoryError)> {
        Self::from_sample_rows(t, pose, origin, Columns::PlanarPose, "pose")
    }

    /// [`from_samples`](Self::from_samples) for any [`Columns`]; `field` names the rows (the
    /// crane's `"position"`) in the error, which names `"t"` or `field`.
    pub fn from_sample_rows(
        t: &[f64],
        pose: &[[f64; 3]],
        origin: &str,
        columns: Columns,
        field: &'static str,
    ) -> Result<Self, (&'static str, TrajectoryError)> {
        let what = columns.what();
        let data = |message: String| TrajectoryError::Data {
            path: origin.to_owned(),
            message,
        };
        if t.len() != pose.len() {
            return Err((
                field,
                data(format!(
                    "has {} rows but t has {} samples; give one {what} per time",
                    pose.len(),
                    t.len()
                )),
            ));
        }
        let mut precision = [ColumnPrecision::default(); 4];
        let mut y: [Vec<f64>; 3] = Default::default();
        for (k, (&tk, p)) in t.iter().zip(pose).enumerate() {
            if !tk.is_finite() {
                return Err(("t", data(format!("t[{k}] must be finite, got {tk}"))));
            }
            if let Some(c) = p.iter().position(|v| !v.is_finite()) {
                return Err((
                    field,
                    data(format!("{field}[{k}][{c}] must be finite, got {}", p[c])),
                ));
            }
            if k > 0 && tk <= t[k - 1] {
                return Err((
                    "t",
                    data(format!(
                        "times must increase strictly (t[{k}] = {tk} after t[{}] = {})",
                        k - 1,
                        t[k - 1]
                    )),
                ));
            }
            precision[0].observe(&format!("{tk:e}"));
            for c in 0..3 {
                precision[c + 1].observe(&format!("{:e}", p[c]));
                y[c].push(p[c]);
            }
        }
        Self::from_columns(origin, columns, t.to_vec(), y, precision).map_err(|e| ("t", e))
    }

    /// The spline through checked columns (at least 4 samples, a finite spline).
    fn from_columns(
        origin: &str,
        columns: Columns,
        t: Vec<f64>,
        y: [Vec<f64>; 3],
        precision: [ColumnPrecision; 4],
    ) -> Result<Self, TrajectoryError> {
        let data = |message: String| TrajectoryError::Data {
            path: origin.to_owned(),
            message,
        };
        if t.len() < 4 {
            return Err(data(format!(
                "needs at least 4 samples, found {}; sample the motion densely (several \
                 samples per time element)",
                t.len()
            )));
        }
        let m = [0, 1, 2].map(|c| spline::second_derivatives(&t, &y[c]));
        if let Some(k) = (0..t.len()).find(|&k| m.iter().any(|mc| !mc[k].is_finite())) {
            return Err(data(format!(
                "the cubic spline through the samples is not finite near t = {} s: the samples \
                 are too close in time for their values; remove repeated or nearly repeated \
                 times",
                t[k]
            )));
        }
        Ok(Self {
            origin: origin.to_owned(),
            columns,
            t,
            y,
            m,
            precision,
        })
    }

    /// First and last sample time (s).
    pub fn time_range(&self) -> (f64, f64) {
        (self.t[0], self.t[self.t.len() - 1])
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.t.len()
    }

    /// Always false: a trajectory has at least 4 samples.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// The scale-aware smoothness test of each component (x, y, θ or z) for derivatives up
    /// to `order` (see [`smoothness`]): the largest score of each derivative and where.
    pub fn smoothness(&self, order: usize) -> [Smoothness; 3] {
        let cols = self.columns;
        let pos_scale = (0..3)
            .filter(|&c| !cols.is_angle(c))
            .flat_map(|c| &self.y[c])
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let angle_scale = self.y[2].iter().fold(1.0f64, |m, v| m.max(v.abs()));
        [0, 1, 2].map(|c| {
            let scale = if cols.is_angle(c) {
                angle_scale
            } else {
                pos_scale
            };
            let noise = smoothness::noise_bounds(
                &self.t,
                &self.y[c],
                &self.precision[0],
                &self.precision[c + 1],
                scale,
            );
            smoothness::analyse(&self.t, &self.y[c], &noise, order)
        })
    }

    /// Checks that the data can drive the discretisation: it covers `[t_start, t_end]`, starts
    /// at `tip_pose` at rest, and its derivatives up to `order` (1: continuous velocity, needed
    /// for a free end; 2: continuous acceleration, needed with a tip mass) have no jumps
    /// ([`smoothness`]: a jump must stand out of its neighbourhood, of the round-off of the
    /// data and be relevant at the scale of the motion).
    pub fn check(
        &self,
        t_start: f64,
        t_end: f64,
        tip_pose: [f64; 3],
        order: usize,
    ) -> Result<(), TrajectoryError> {
        let need = if order >= 2 {
            "continuous acceleration (C²; the tip mass turns γ'' into a force)"
        } else {
            "continuous velocity (C¹; the actuation follows γ' along the characteristics)"
        };
        self.check_needing(t_start, t_end, tip_pose, order, need)
    }

    /// [`check`](Self::check) with the caller's reason for the smoothness `order` (`need`,
    /// e.g. "continuous jerk (C³; …)") in the message.
    pub fn check_needing(
        &self,
        t_start: f64,
        t_end: f64,
        tip_pose: [f64; 3],
        order: usize,
        need: &str,
    ) -> Result<(), TrajectoryError> {
        let what = self.columns.what();
        let (body, model) = match self.columns {
            Columns::PlanarPose => ("tip", "beam"),
            Columns::Position => ("payload", "rope"),
        };
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
                "must start at the {body}'s initial {what} = ({}, {}, {}) at t = {t_start} s, \
                 but starts at ({}, {}, {}) (deviation {dev:.3e}); the servo constraint would \
                 demand a jump of the {body}. Shift the data or change the {model}'s initial \
                 state",
                tip_pose[0], tip_pose[1], tip_pose[2], p[0], p[1], p[2]
            )));
        }
        for (c, s) in self.smoothness(order).iter().enumerate() {
            if let Some(jump) = s.first_jump {
                let comp = self.columns.names()[c];
                return Err(data(format!(
                    "not smooth enough: in component {comp}, {} at t = {} s (by about {:.3e}, \
                     {:.0}× what the round-off of the data and the scale of the motion allow). \
                     The inverse problem needs a {need}, and the {model} starts at rest, so the \
                     data must also leave the initial {what} smoothly. Smooth the data (e.g. with \
                     the rest-to-rest profile) or sample it more densely",
                    derivative_name(jump.derivative),
                    jump.time,
                    jump.size,
                    jump.score
                )));
            }
        }
        Ok(())
    }

    fn eval(&self, t: f64) -> [[f64; 3]; 3] {
        let seg = spline::segment(&self.t, t);
        let mut out = [[0.0; 3]; 3];
        for c in 0..3 {
            let v = spline::eval(&self.y[c], &self.m[c], seg);
            for d in 0..3 {
                out[d][c] = v[d];
            }
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
