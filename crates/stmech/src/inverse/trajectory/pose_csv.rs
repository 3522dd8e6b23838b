//! User samples of poses in space (issue 16): rows `t, x, y, z` followed by the frame as a
//! rotation vector (`rx, ry, rz`), a unit quaternion (`qw, qx, qy, qz`) or a rotation matrix
//! (`R11 … R33` by rows; its columns are the directors `d_k`), interpolated by the shared cubic
//! spline ([`super::spline`]): the position componentwise, the frame as a quaternion `p(t)`
//! (signs made continuous, then the spline of its four components) normalised, `q = p/|p|`.
//!
//! Derivatives of the normalised spline, `n = |p|`:
//!
//! ```text
//! q̇ = ṗ/n − p (p·ṗ)/n³
//! q̈ = p̈/n − 2 ṗ (p·ṗ)/n³ − p ((ṗ·ṗ + p·p̈)/n³ − 3 (p·ṗ)²/n⁵)
//! ω = 2 vec(q̇ ⊗ q*),   α = 2 vec(q̈ ⊗ q*)        (crate::math::rotation)
//! ```
//!
//! Checks: every row's frame must be a rotation (a quaternion of norm 1 ± 10⁻⁶; a matrix
//! orthonormal to 10⁻⁶ with determinant +1; the line is named otherwise), the data must cover
//! the time domain and start at the body's pose, and the seven interpolated components must be
//! smooth to the order the problem needs ([`super::smoothness`], the first missing derivative
//! named).

use super::csv::derivative_name;
use super::pose::{Pose, PoseState, PoseTrajectory};
use super::smoothness::{self, ColumnPrecision};
use super::{TrajectoryError, rows, spline};
use crate::io::text::{InputLimit, read_text};
use crate::math::Vec3;
use crate::math::rotation::{
    Quat, frame_error, frame_of_quat, quat_conj, quat_from_frame, quat_from_rotation_vector,
    quat_mul,
};
use std::path::Path;

/// How the frame is written in a pose file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum RotationColumns {
    /// `rx, ry, rz`: the rotation vector (angle × unit axis, rad).
    RotationVector,
    /// `qw, qx, qy, qz`: a unit quaternion.
    Quaternion,
    /// `R11, R12, R13, R21, …, R33`: the rotation matrix by rows (columns: the directors).
    Matrix,
}

/// Largest accepted `| |q| − 1 |` of a quaternion and `max |RᵀR − I|` of a matrix in a file.
pub const ROTATION_TOLERANCE: f64 = 1e-6;

const LAYOUTS: &str = "`t,x,y,z,rx,ry,rz` (rotation vector), `t,x,y,z,qw,qx,qy,qz` (unit \
                       quaternion) or `t,x,y,z,R11,R12,R13,R21,R22,R23,R31,R32,R33` (rotation \
                       matrix by rows)";

const NAMES: [&str; 7] = ["x", "y", "z", "qw", "qx", "qy", "qz"];

/// Interpolated user poses (module docs).
#[derive(Clone, Debug)]
pub struct PoseCsvTrajectory {
    /// Where the data came from.
    pub origin: String,
    /// How the file wrote the frame.
    pub rotation: RotationColumns,
    t: Vec<f64>,
    /// `x, y, z, qw, qx, qy, qz` per sample.
    y: [Vec<f64>; 7],
    m: [Vec<f64>; 7],
    t_precision: ColumnPrecision,
    precision: [ColumnPrecision; 7],
}

impl PoseCsvTrajectory {
    /// Reads a pose file of at most `limit` bytes.
    pub fn read(path: &Path, limit: InputLimit) -> Result<Self, TrajectoryError> {
        let text = read_text(path, limit).map_err(|e| TrajectoryError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses pose rows (module docs); `origin` names the data in messages.
    pub fn parse(text: &str, origin: &str) -> Result<Self, TrajectoryError> {
        let rows = rows::parse(text, origin, &[6, 7, 12], LAYOUTS)?;
        let row_err = |line: usize, message: String| TrajectoryError::Row {
            path: origin.to_owned(),
            line,
            message,
        };
        let width = rows.values.first().map_or(6, Vec::len);
        let rotation = match width {
            6 => RotationColumns::RotationVector,
            7 => RotationColumns::Quaternion,
            _ => RotationColumns::Matrix,
        };
        let mut y: [Vec<f64>; 7] = Default::default();
        let mut last: Option<Quat> = None;
        for (r, line) in rows.values.iter().zip(&rows.lines) {
            let mut q = match rotation {
                RotationColumns::RotationVector => quat_from_rotation_vector(&[r[3], r[4], r[5]]),
                RotationColumns::Quaternion => {
                    let q = [r[3], r[4], r[5], r[6]];
                    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
                    if (n - 1.0).abs() > ROTATION_TOLERANCE {
                        return Err(row_err(
                            *line,
                            format!(
                                "the quaternion ({}, {}, {}, {}) has norm {n:.9}, not 1: it is \
                                 not a rotation. Normalise it (divide by its norm) or write the \
                                 frame with more digits",
                                q[0], q[1], q[2], q[3]
                            ),
                        ));
                    }
                    q.map(|c| c / n)
                }
                RotationColumns::Matrix => {
                    let d = [0, 1, 2].map(|j| [r[3 + j], r[6 + j], r[9 + j]]);
                    let (e, det) = frame_error(&d);
                    if det < 0.0 {
                        return Err(row_err(
                            *line,
                            format!(
                                "the matrix is a reflection, not a rotation (determinant \
                                 {det:.6}); reverse one column (director)"
                            ),
                        ));
                    }
                    if e > ROTATION_TOLERANCE {
                        return Err(row_err(
                            *line,
                            format!(
                                "the matrix is not a rotation: max |RᵀR − I| = {e:.3e} > \
                                 {ROTATION_TOLERANCE:e}; give orthonormal columns (with more \
                                 digits)"
                            ),
                        ));
                    }
                    quat_from_frame(&d)
                }
            };
            // q and −q are the same frame: keep the samples on one side for the spline
            if let Some(p) = last
                && p.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>() < 0.0
            {
                q = q.map(|c| -c);
            }
            last = Some(q);
            for c in 0..3 {
                y[c].push(r[c]);
            }
            for c in 0..4 {
                y[3 + c].push(q[c]);
            }
        }
        Self::build(
            origin,
            rotation,
            rows.t,
            y,
            rows.t_precision,
            precision_of(&rows.precision, rotation),
        )
    }

    /// Poses sampled by a program, `(t_k, positions[k], directors[k])` (e.g. the nodal base
    /// motion of an inverse solution), interpolated like a file's rows (module docs): times
    /// finite and strictly increasing, positions finite, every frame a rotation (orthonormal to
    /// [`ROTATION_TOLERANCE`], right-handed), at least 4 samples. `origin` names the data in
    /// messages. The values count as exact binary numbers (17 significant digits) in
    /// [`check`](Self::check)'s smoothness test.
    pub fn from_samples(
        origin: &str,
        t: &[f64],
        positions: &[Vec3],
        directors: &[[Vec3; 3]],
    ) -> Result<Self, TrajectoryError> {
        let data = |message: String| TrajectoryError::Data {
            path: origin.to_owned(),
            message,
        };
        if positions.len() != t.len() || directors.len() != t.len() {
            return Err(data(format!(
                "{} times, {} positions and {} frames: give one position and one frame per time",
                t.len(),
                positions.len(),
                directors.len()
            )));
        }
        if let Some(k) = (0..t.len()).find(|&k| !t[k].is_finite()) {
            return Err(data(format!("sample {k}: the time {} is not finite", t[k])));
        }
        if let Some(k) = (1..t.len()).find(|&k| t[k] <= t[k - 1]) {
            return Err(data(format!(
                "sample {k}: the times must increase strictly, but t = {} s follows {} s",
                t[k],
                t[k - 1]
            )));
        }
        let mut y: [Vec<f64>; 7] = Default::default();
        let mut last: Option<Quat> = None;
        for (k, (x, d)) in positions.iter().zip(directors).enumerate() {
            if !x.iter().all(|c| c.is_finite()) {
                return Err(data(format!(
                    "sample {k} (t = {} s): the position {x:?} is not finite",
                    t[k]
                )));
            }
            let (e, det) = frame_error(d);
            if !(e <= ROTATION_TOLERANCE && det > 0.0) {
                return Err(data(format!(
                    "sample {k} (t = {} s): the directors are not a rotation (max |d_i · d_j − \
                     δ_ij| = {e:.3e}, d1 · (d2 × d3) = {det:.6}); give orthonormal, \
                     right-handed directors",
                    t[k]
                )));
            }
            let mut q = quat_from_frame(d);
            if let Some(p) = last
                && dot4(&p, &q) < 0.0
            {
                q = q.map(|c| -c);
            }
            last = Some(q);
            for c in 0..3 {
                y[c].push(x[c]);
            }
            for c in 0..4 {
                y[3 + c].push(q[c]);
            }
        }
        let exact = ColumnPrecision {
            max_significant: 17,
            finest_exponent: None,
        };
        Self::build(
            origin,
            RotationColumns::Matrix,
            t.to_vec(),
            y,
            exact,
            [exact; 7],
        )
    }

    /// The spline through parsed or given samples, after the checks common to both.
    fn build(
        origin: &str,
        rotation: RotationColumns,
        t: Vec<f64>,
        y: [Vec<f64>; 7],
        t_precision: ColumnPrecision,
        precision: [ColumnPrecision; 7],
    ) -> Result<Self, TrajectoryError> {
        if t.len() < 4 {
            return Err(TrajectoryError::Data {
                path: origin.to_owned(),
                message: format!(
                    "needs at least 4 samples, found {}; sample the motion densely (several \
                     samples per time element)",
                    t.len()
                ),
            });
        }
        let m: [Vec<f64>; 7] = std::array::from_fn(|c| spline::second_derivatives(&t, &y[c]));
        if let Some(k) = (0..t.len()).find(|&k| m.iter().any(|mc| !mc[k].is_finite())) {
            return Err(TrajectoryError::Data {
                path: origin.to_owned(),
                message: format!(
                    "the cubic spline through the samples is not finite near t = {} s: remove \
                     repeated or nearly repeated times",
                    t[k]
                ),
            });
        }
        Ok(Self {
            origin: origin.to_owned(),
            rotation,
            t,
            y,
            m,
            t_precision,
            precision,
        })
    }

    /// First and last sample time (s).
    pub fn time_range(&self) -> (f64, f64) {
        (self.t[0], self.t[self.t.len() - 1])
    }

    /// Checks that the data can drive a spatial inverse problem: it covers
    /// `[t_start, t_end]`, starts at `start` (position and frame), and the components
    /// `x, y, z, qw, qx, qy, qz` have no jump in derivatives up to `order` (1: continuous
    /// velocity and angular velocity; 2: continuous accelerations, needed with a tip body).
    pub fn check(
        &self,
        t_start: f64,
        t_end: f64,
        start: &Pose,
        order: usize,
    ) -> Result<(), TrajectoryError> {
        let data = |message: String| TrajectoryError::Data {
            path: self.origin.clone(),
            message,
        };
        let (a, b) = self.time_range();
        if a > t_start + 1e-12 || b < t_end - 1e-12 {
            return Err(data(format!(
                "covers t = [{a}, {b}] s but the time domain is [{t_start}, {t_end}] s; extend \
                 the data or shorten `time`"
            )));
        }
        let s = self.state(t_start).pose;
        let scale = 1.0 + start.position.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let dx = (0..3).fold(0.0f64, |m, c| {
            m.max((s.position[c] - start.position[c]).abs())
        });
        let dd = (0..3).fold(0.0f64, |m, k| {
            (0..3).fold(m, |m, c| {
                m.max((s.directors[k][c] - start.directors[k][c]).abs())
            })
        });
        if dx > 1e-9 * scale || dd > 1e-9 {
            return Err(data(format!(
                "must start at the tip's initial pose at t = {t_start} s: the position differs \
                 by {dx:.3e} m and the directors by {dd:.3e}; the servo constraint would demand \
                 a jump. Shift the data or change the initial state"
            )));
        }
        let pos_scale = self.y[..3]
            .iter()
            .flatten()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        for c in 0..7 {
            let scale = if c < 3 { pos_scale } else { 1.0 };
            let noise = smoothness::noise_bounds(
                &self.t,
                &self.y[c],
                &self.t_precision,
                &self.precision[c],
                scale,
            );
            if let Some(jump) = smoothness::analyse(&self.t, &self.y[c], &noise, order).first_jump {
                let what = if c < 3 {
                    format!("component {} of the position", NAMES[c])
                } else {
                    format!(
                        "component {} of the frame (as a unit quaternion; the angular velocity \
                         follows its first derivative, the angular acceleration its second)",
                        NAMES[c]
                    )
                };
                return Err(data(format!(
                    "not smooth enough: in {what}, {} at t = {} s (by about {:.3e}, {:.0}× what \
                     the round-off of the data and the scale of the motion allow). The inverse \
                     problem needs derivatives up to order {order} without jumps, and the body \
                     starts at rest. Smooth the data or sample it more densely",
                    derivative_name(jump.derivative),
                    jump.time,
                    jump.size,
                    jump.score
                )));
            }
        }
        Ok(())
    }
}

/// Precision of the seven interpolated components (`x, y, z, qw, qx, qy, qz`) from that of the
/// file's columns: the quaternion as written, or that of the rotation columns it came from.
fn precision_of(p: &[ColumnPrecision], rotation: RotationColumns) -> [ColumnPrecision; 7] {
    let rot = p[3..]
        .iter()
        .fold(ColumnPrecision::default(), |acc, c| ColumnPrecision {
            max_significant: acc.max_significant.max(c.max_significant),
            finest_exponent: match (acc.finest_exponent, c.finest_exponent) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        });
    std::array::from_fn(|c| match (c, rotation) {
        (0..=2, _) => p[c],
        (_, RotationColumns::Quaternion) => p[c],
        _ => rot,
    })
}

fn dot4(a: &Quat, b: &Quat) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl PoseTrajectory for PoseCsvTrajectory {
    fn state(&self, t: f64) -> PoseState {
        let seg = spline::segment(&self.t, t);
        let v: [[f64; 3]; 7] = std::array::from_fn(|c| spline::eval(&self.y[c], &self.m[c], seg));
        let p: Quat = [v[3][0], v[4][0], v[5][0], v[6][0]];
        let p1: Quat = [v[3][1], v[4][1], v[5][1], v[6][1]];
        let p2: Quat = [v[3][2], v[4][2], v[5][2], v[6][2]];
        let n = dot4(&p, &p).sqrt();
        let (pp1, p1p1, pp2) = (dot4(&p, &p1), dot4(&p1, &p1), dot4(&p, &p2));
        let n3 = n * n * n;
        let n5 = n3 * n * n;
        let q = p.map(|c| c / n);
        let q1: Quat = std::array::from_fn(|c| p1[c] / n - p[c] * pp1 / n3);
        let q2: Quat = std::array::from_fn(|c| {
            p2[c] / n - 2.0 * p1[c] * pp1 / n3 - p[c] * ((p1p1 + pp2) / n3 - 3.0 * pp1 * pp1 / n5)
        });
        let (w, a) = (quat_mul(&q1, &quat_conj(&q)), quat_mul(&q2, &quat_conj(&q)));
        PoseState {
            pose: Pose {
                position: [v[0][0], v[1][0], v[2][0]],
                directors: frame_of_quat(&q),
            },
            velocity: [v[0][1], v[1][1], v[2][1]],
            acceleration: [v[0][2], v[1][2], v[2][2]],
            angular_velocity: [2.0 * w[1], 2.0 * w[2], 2.0 * w[3]],
            angular_acceleration: [2.0 * a[1], 2.0 * a[2], 2.0 * a[3]],
        }
    }

    /// From the last sample at the first pose to the first sample at the last pose (position
    /// and quaternion components, each to `10⁻⁹ (1 + |value|)`), as for the planar
    /// [`super::CsvTrajectory`]; `None` if the pose never changes.
    fn motion_interval(&self) -> Option<(f64, f64)> {
        let n = self.t.len();
        let moved = |k: usize, r: usize| {
            (0..7).any(|c| (self.y[c][k] - self.y[c][r]).abs() > 1e-9 * (1.0 + self.y[c][r].abs()))
        };
        let first = (0..n).find(|&k| moved(k, 0))?;
        let last = (0..n).rev().find(|&k| moved(k, n - 1))?;
        Some((
            self.t[first.saturating_sub(1)],
            self.t[(last + 1).min(n - 1)],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::RestToRestProfile;
    use super::super::pose::RestToRestPose;
    use super::*;
    use crate::math::rotation::rotation_vector_of_quat;

    /// A quarter helix with a 90° twist (issue 16's manoeuvre), from rest at t = 1 s for 4 s.
    fn helix() -> RestToRestPose {
        RestToRestPose::helix(
            Pose::at([1.0, 0.0, 0.0]),
            [0.0; 3],
            [0.0, 0.0, 1.0],
            std::f64::consts::FRAC_PI_2,
            0.5,
            [1.0, 0.0, 0.0],
            std::f64::consts::FRAC_PI_2,
            RestToRestProfile {
                t0: 1.0,
                duration: 4.0,
            },
        )
        .unwrap()
    }

    fn rows(n: usize, format: RotationColumns, f: impl Fn(f64) -> PoseState) -> String {
        let mut s = String::from("# a pose file\nt,x,y,z,...\n");
        for k in 0..=n {
            let t = 6.0 * k as f64 / n as f64;
            let p = f(t).pose;
            let x = p.position;
            let q = quat_from_frame(&p.directors);
            let rot: Vec<f64> = match format {
                RotationColumns::RotationVector => rotation_vector_of_quat(&q).to_vec(),
                RotationColumns::Quaternion => q.to_vec(),
                RotationColumns::Matrix => (0..3)
                    .flat_map(|i| (0..3).map(move |j| (i, j)))
                    .map(|(i, j)| p.directors[j][i])
                    .collect(),
            };
            let cells: Vec<String> = [t, x[0], x[1], x[2]]
                .iter()
                .chain(&rot)
                .map(|v| v.to_string())
                .collect();
            s.push_str(&cells.join(","));
            s.push('\n');
        }
        s
    }

    #[test]
    fn sampled_helix_is_reproduced_in_every_rotation_format() {
        let h = helix();
        for format in [
            RotationColumns::RotationVector,
            RotationColumns::Quaternion,
            RotationColumns::Matrix,
        ] {
            let tr =
                PoseCsvTrajectory::parse(&rows(3000, format, |t| h.state(t)), "h.csv").unwrap();
            assert_eq!(tr.rotation, format);
            tr.check(0.0, 6.0, &h.state(0.0).pose, 2).unwrap();
            for t in [1.4, 2.2, 3.0, 3.9, 4.6] {
                let (a, b) = (tr.state(t), h.state(t));
                let err = |x: &[f64], y: &[f64]| {
                    x.iter()
                        .zip(y)
                        .fold(0.0f64, |m, (p, q)| m.max((p - q).abs()))
                };
                assert!(
                    err(&a.pose.position, &b.pose.position) < 1e-8,
                    "{format:?} r"
                );
                for k in 0..3 {
                    assert!(
                        err(&a.pose.directors[k], &b.pose.directors[k]) < 1e-8,
                        "{format:?} d"
                    );
                }
                assert!(err(&a.velocity, &b.velocity) < 1e-6, "{format:?} v");
                assert!(
                    err(&a.angular_velocity, &b.angular_velocity) < 1e-6,
                    "{format:?} ω"
                );
                assert!(err(&a.acceleration, &b.acceleration) < 1e-3, "{format:?} a");
                assert!(
                    err(&a.angular_acceleration, &b.angular_acceleration) < 1e-3,
                    "{format:?} α"
                );
                let (e, det) = frame_error(&a.pose.directors);
                assert!(e < 1e-14 && (det - 1.0).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn samples_given_by_a_program_reproduce_the_helix_with_twist() {
        // the issue's quarter helix with a 90° twist, sampled at n + 1 times over [0, 6] s:
        // position, frame and ω converge to the path (cubic spline: O(h⁴) values, O(h³) slopes)
        let h = helix();
        let sampled = |n: usize| {
            let t: Vec<f64> = (0..=n).map(|k| 6.0 * k as f64 / n as f64).collect();
            let poses: Vec<Pose> = t.iter().map(|&t| h.state(t).pose).collect();
            let x: Vec<_> = poses.iter().map(|p| p.position).collect();
            let d: Vec<_> = poses.iter().map(|p| p.directors).collect();
            PoseCsvTrajectory::from_samples("base motion", &t, &x, &d).unwrap()
        };
        let max_err = |tr: &PoseCsvTrajectory| {
            let mut e = [0.0f64; 3];
            // between the samples of both sets
            for k in 0..600 {
                let t = 6.0 * (k as f64 + 0.37) / 600.0;
                let (a, b) = (tr.state(t), h.state(t));
                let diff = |x: &[f64], y: &[f64]| {
                    x.iter()
                        .zip(y)
                        .fold(0.0f64, |m, (p, q)| m.max((p - q).abs()))
                };
                e[0] = e[0].max(diff(&a.pose.position, &b.pose.position));
                for i in 0..3 {
                    e[1] = e[1].max(diff(&a.pose.directors[i], &b.pose.directors[i]));
                }
                e[2] = e[2].max(diff(&a.angular_velocity, &b.angular_velocity));
            }
            e
        };
        let (coarse, fine) = (max_err(&sampled(300)), max_err(&sampled(1200)));
        eprintln!(
            "max error (position, directors, ω), 300 vs 1200 samples: {coarse:?} vs {fine:?}"
        );
        assert!(
            fine[0] < 1e-10 && fine[1] < 1e-10 && fine[2] < 1e-7,
            "{fine:?}"
        );
        // refinement by 4: values ~4⁴ better (measured 4^4.2), ω ~4³ (measured 4^3.0)
        assert!(
            coarse[0] / fine[0] > 150.0 && coarse[1] / fine[1] > 150.0,
            "{coarse:?} {fine:?}"
        );
        assert!(coarse[2] / fine[2] > 40.0, "{coarse:?} {fine:?}");
        let tr = sampled(1200);
        assert_eq!(tr.rotation, RotationColumns::Matrix);
        assert_eq!(tr.time_range(), (0.0, 6.0));
        tr.check(0.0, 6.0, &h.state(0.0).pose, 2).unwrap();
    }

    #[test]
    fn bad_samples_are_refused_with_the_sample_named() {
        let h = helix();
        let t: Vec<f64> = (0..10).map(|k| k as f64).collect();
        let x: Vec<_> = t.iter().map(|&t| h.state(t).pose.position).collect();
        let d: Vec<_> = t.iter().map(|&t| h.state(t).pose.directors).collect();
        let err = |t: &[f64], x: &[Vec3], d: &[[Vec3; 3]]| {
            PoseCsvTrajectory::from_samples("base", t, x, d)
                .unwrap_err()
                .to_string()
        };
        let e = err(&t, &x[..9], &d);
        assert!(e.contains("10 times, 9 positions"), "{e}");
        let mut t2 = t.clone();
        t2[4] = t2[3];
        let e = err(&t2, &x, &d);
        assert!(
            e.contains("sample 4") && e.contains("increase strictly"),
            "{e}"
        );
        let mut x2 = x.clone();
        x2[6][1] = f64::NAN;
        let e = err(&t, &x2, &d);
        assert!(e.contains("sample 6") && e.contains("not finite"), "{e}");
        let mut d2 = d.clone();
        d2[2][0] = d2[2][0].map(|c| 1.01 * c);
        let e = err(&t, &x, &d2);
        assert!(
            e.contains("sample 2") && e.contains("not a rotation"),
            "{e}"
        );
        let mut d3 = d.clone();
        d3[5][2] = d3[5][2].map(|c| -c);
        let e = err(&t, &x, &d3);
        assert!(
            e.contains("sample 5") && e.contains("not a rotation"),
            "{e}"
        );
        let e = err(&t[..3], &x[..3], &d[..3]);
        assert!(e.contains("at least 4 samples"), "{e}");
    }

    #[test]
    fn frames_that_are_not_rotations_are_refused_with_their_line() {
        let h = helix();
        let text = rows(100, RotationColumns::Quaternion, |t| h.state(t));
        // scale the quaternion of the 11th data row (line 13: comment, header, 10 rows)
        let bad: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 12 {
                    let mut c: Vec<String> = l.split(',').map(str::to_owned).collect();
                    for v in &mut c[4..] {
                        *v = (v.parse::<f64>().unwrap() * 1.01).to_string();
                    }
                    c.join(",")
                } else {
                    l.to_owned()
                }
            })
            .collect();
        let e = PoseCsvTrajectory::parse(&bad.join("\n"), "q.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 13") && e.contains("not a rotation"), "{e}");
        // a reflection
        let text = rows(100, RotationColumns::Matrix, |t| h.state(t));
        let bad: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 5 {
                    let mut c: Vec<String> = l.split(',').map(str::to_owned).collect();
                    for k in [6, 9, 12] {
                        c[k] = (-c[k].parse::<f64>().unwrap()).to_string();
                    }
                    c.join(",")
                } else {
                    l.to_owned()
                }
            })
            .collect();
        let e = PoseCsvTrajectory::parse(&bad.join("\n"), "m.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 6") && e.contains("reflection"), "{e}");
        // wrong width names the layouts
        let e = PoseCsvTrajectory::parse("t,x,y,z,a,b\n0,0,0,0,1,2\n", "w.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("rotation vector"), "{e}");
    }

    #[test]
    fn a_kink_in_the_frame_names_the_angular_velocity() {
        // the frame starts turning about z at a constant rate at t = 2 s: ω jumps
        let state = |t: f64| {
            let q = quat_from_rotation_vector(&[0.0, 0.0, 0.3 * (t - 2.0).max(0.0)]);
            PoseState {
                pose: Pose {
                    position: [1.0, 0.0, 0.0],
                    directors: frame_of_quat(&q),
                },
                velocity: [0.0; 3],
                acceleration: [0.0; 3],
                angular_velocity: [0.0; 3],
                angular_acceleration: [0.0; 3],
            }
        };
        let tr =
            PoseCsvTrajectory::parse(&rows(600, RotationColumns::RotationVector, state), "k.csv")
                .unwrap();
        let e = tr
            .check(0.0, 6.0, &state(0.0).pose, 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("of the frame") && e.contains("velocity γ' jumps") && e.contains("t = 2"),
            "{e}"
        );
        // the start pose is checked too
        let e = tr
            .check(0.0, 6.0, &Pose::at([1.0, 0.1, 0.0]), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("initial pose"), "{e}");
    }
}
