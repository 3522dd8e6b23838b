//! Prescribed poses in space (issue 16): the position `r(t)` and the frame `R(t) = [d1 d2 d3]`
//! (directors as columns) of the end of a spatial beam, with their first two time derivatives
//! (velocity, acceleration, spatial angular velocity `ω` with `ḋ_k = ω × d_k`, and `α = ω̇`).
//!
//! Built in ([`RestToRestPose`]): the rest-to-rest profile `σ(t)` of `[I]` Eq. 35 drives a path
//! that turns about an axis, rises along it and translates,
//!
//! ```text
//! r(t) = c + Rot(n, ψ σ)(r0 − c) + σ (h n + Δ)          (line: ψ = h = 0; circle: Δ = 0, h = 0;
//! R(t) = Rot(a, φ σ) R0                                     helix: the turn with a rise h)
//! ```
//!
//! with the frame turning smoothly about the fixed axis `a` by `φ`. Derivatives, with
//! `w = Rot(n, ψσ)(r0 − c)`:
//!
//! ```text
//! ṙ = ψ σ̇ n × w + σ̇ (h n + Δ)
//! r̈ = ψ σ̈ n × w + (ψ σ̇)² n × (n × w) + σ̈ (h n + Δ)
//! ω = φ σ̇ a,   α = φ σ̈ a
//! ```
//!
//! User samples of poses: [`super::pose_csv`].

use super::RestToRestProfile;
use crate::math::rotation::{frame_error, rotate};
use crate::math::{Vec3, cross, dot};

/// Position and frame (directors `d_k = R e_k`, global components).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Pose {
    /// Position (m).
    pub position: Vec3,
    /// Directors `d1, d2, d3` (orthonormal, right-handed).
    pub directors: [Vec3; 3],
}

impl Pose {
    /// The pose at `position` with the global axes as frame.
    pub fn at(position: Vec3) -> Self {
        Self {
            position,
            directors: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        }
    }
}

/// A pose with its first two time derivatives.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PoseState {
    /// The pose.
    pub pose: Pose,
    /// `ṙ` (m/s).
    pub velocity: Vec3,
    /// `r̈` (m/s²).
    pub acceleration: Vec3,
    /// Spatial angular velocity `ω`, `ḋ_k = ω × d_k` (rad/s).
    pub angular_velocity: Vec3,
    /// `α = ω̇` (rad/s²).
    pub angular_acceleration: Vec3,
}

/// A prescribed motion of a pose.
pub trait PoseTrajectory: std::fmt::Debug + Send + Sync {
    /// The pose and its derivatives at `t`.
    fn state(&self, t: f64) -> PoseState;
    /// Interval on which the pose moves, if known (for reports and checks).
    fn motion_interval(&self) -> Option<(f64, f64)> {
        None
    }
}

/// A problem with the data of a built-in pose path: the field and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseInputError {
    /// Field name relative to the trajectory (`"axis"`, `"frame_axis"`, `"start_frame"`, …).
    pub field: &'static str,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// Largest accepted deviation of a given frame from orthonormality, `max |d_i·d_j − δ_ij|`.
pub const FRAME_TOLERANCE: f64 = 1e-9;

/// Checks that `d` is a rotation (orthonormal to [`FRAME_TOLERANCE`], right-handed).
pub fn check_frame(d: &[Vec3; 3]) -> Result<(), String> {
    let (e, det) = frame_error(d);
    if !(e.is_finite() && det.is_finite()) {
        return Err("the directors must be finite".into());
    }
    if det < 0.0 {
        return Err(format!(
            "the directors are a reflection, not a rotation (d1 · (d2 × d3) = {det:.6}); \
             reverse one director"
        ));
    }
    if e > FRAME_TOLERANCE {
        return Err(format!(
            "the directors are not orthonormal: max |d_i · d_j − δ_ij| = {e:.3e} > {FRAME_TOLERANCE:e}; \
             give unit vectors at right angles (with 16 significant digits)"
        ));
    }
    Ok(())
}

/// The unit vector of `v`, or an error naming `field`.
fn unit(field: &'static str, v: Vec3) -> Result<Vec3, PoseInputError> {
    let n = dot(&v, &v).sqrt();
    if !(n.is_finite() && n > 0.0) {
        return Err(PoseInputError {
            field,
            message: format!("must be a finite non-zero vector, got {v:?}"),
        });
    }
    Ok(v.map(|c| c / n))
}

/// The built-in rest-to-rest pose path (module docs): turn `ψ` about the axis through
/// `center` along `axis`, rise `h` along it, translate by `Δ`, and turn the frame by `φ` about
/// `frame_axis`, all with the profile `σ`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct RestToRestPose {
    /// Pose at rest before the motion.
    pub start: Pose,
    /// A point on the turning axis `c` (m).
    pub center: Vec3,
    /// Unit turning axis `n`.
    pub axis: Vec3,
    /// Turning angle `ψ` (rad).
    pub turn: f64,
    /// Rise `h` along `n` (m).
    pub rise: f64,
    /// Translation `Δ` (m).
    pub delta: Vec3,
    /// Unit axis `a` of the frame's rotation.
    pub frame_axis: Vec3,
    /// Frame rotation angle `φ` (rad).
    pub frame_angle: f64,
    /// The profile `σ(t)`.
    #[serde(skip)]
    pub profile: RestToRestProfile,
}

impl RestToRestPose {
    /// A straight line `r0 → r0 + Δ` with the frame turning by `φ` about `a`.
    pub fn line(
        start: Pose,
        delta: Vec3,
        frame_axis: Vec3,
        frame_angle: f64,
        profile: RestToRestProfile,
    ) -> Result<Self, PoseInputError> {
        Self::new(
            start,
            start.position,
            [0.0, 0.0, 1.0],
            0.0,
            0.0,
            delta,
            frame_axis,
            frame_angle,
            profile,
        )
    }

    /// An arc of a circle about the axis through `center` along `axis` (any plane), turning
    /// by `turn`; with `rise ≠ 0` a helix.
    #[allow(clippy::too_many_arguments)]
    pub fn helix(
        start: Pose,
        center: Vec3,
        axis: Vec3,
        turn: f64,
        rise: f64,
        frame_axis: Vec3,
        frame_angle: f64,
        profile: RestToRestProfile,
    ) -> Result<Self, PoseInputError> {
        Self::new(
            start,
            center,
            axis,
            turn,
            rise,
            [0.0; 3],
            frame_axis,
            frame_angle,
            profile,
        )
    }

    /// The general path (module docs), checked: finite numbers, non-zero axes (normalised
    /// here), a start frame that is a rotation, a positive finite duration.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        start: Pose,
        center: Vec3,
        axis: Vec3,
        turn: f64,
        rise: f64,
        delta: Vec3,
        frame_axis: Vec3,
        frame_angle: f64,
        profile: RestToRestProfile,
    ) -> Result<Self, PoseInputError> {
        let finite = |field: &'static str, v: &[f64]| {
            if v.iter().all(|c| c.is_finite()) {
                Ok(())
            } else {
                Err(PoseInputError {
                    field,
                    message: format!("must be finite, got {v:?}"),
                })
            }
        };
        finite("start", &start.position)?;
        finite("center", &center)?;
        finite("turn", &[turn])?;
        finite("rise", &[rise])?;
        finite("delta", &delta)?;
        finite("frame_angle", &[frame_angle])?;
        finite("t0", &[profile.t0])?;
        if !(profile.duration.is_finite() && profile.duration > 0.0) {
            return Err(PoseInputError {
                field: "duration",
                message: format!("must be finite and > 0 (s), got {}", profile.duration),
            });
        }
        check_frame(&start.directors).map_err(|message| PoseInputError {
            field: "start_frame",
            message,
        })?;
        let axis = if turn == 0.0 && rise == 0.0 {
            unit("axis", axis).unwrap_or([0.0, 0.0, 1.0])
        } else {
            unit("axis", axis)?
        };
        let frame_axis = if frame_angle == 0.0 {
            unit("frame_axis", frame_axis).unwrap_or([0.0, 0.0, 1.0])
        } else {
            unit("frame_axis", frame_axis)?
        };
        Ok(Self {
            start,
            center,
            axis,
            turn,
            rise,
            delta,
            frame_axis,
            frame_angle,
            profile,
        })
    }
}

impl PoseTrajectory for RestToRestPose {
    fn state(&self, t: f64) -> PoseState {
        let [s, s1, s2] = self.profile.eval(t);
        let n = self.axis;
        let u = [0, 1, 2].map(|k| self.start.position[k] - self.center[k]);
        let w = rotate(&n, self.turn * s, &u);
        let nw = cross(&n, &w);
        let nnw = cross(&n, &nw);
        let shift = [0, 1, 2].map(|k| self.rise * n[k] + self.delta[k]);
        let position = [0, 1, 2].map(|k| self.center[k] + w[k] + s * shift[k]);
        let velocity = [0, 1, 2].map(|k| self.turn * s1 * nw[k] + s1 * shift[k]);
        let acceleration = [0, 1, 2]
            .map(|k| self.turn * s2 * nw[k] + (self.turn * s1).powi(2) * nnw[k] + s2 * shift[k]);
        let a = self.frame_axis;
        let directors = self
            .start
            .directors
            .map(|d| rotate(&a, self.frame_angle * s, &d));
        PoseState {
            pose: Pose {
                position,
                directors,
            },
            velocity,
            acceleration,
            angular_velocity: a.map(|c| self.frame_angle * s1 * c),
            angular_acceleration: a.map(|c| self.frame_angle * s2 * c),
        }
    }

    fn motion_interval(&self) -> Option<(f64, f64)> {
        Some((self.profile.t0, self.profile.t0 + self.profile.duration))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rotation::{quat_conj, quat_from_frame, quat_mul, rotation_vector_of_quat};

    fn profile() -> RestToRestProfile {
        RestToRestProfile {
            t0: 1.0,
            duration: 4.0,
        }
    }

    fn tilted_start() -> Pose {
        let axis = [1.0 / 3f64.sqrt(); 3];
        let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].map(|e| rotate(&axis, 0.4, &e));
        Pose {
            position: [1.0, 0.5, -0.2],
            directors: d,
        }
    }

    /// Central differences of the pose against the analytic derivatives, including the
    /// angular velocity from `log(R(t+h) R(t−h)ᵀ)/(2h)`.
    fn check_derivatives(tr: &dyn PoseTrajectory) {
        let h = 1e-5;
        for t in [1.3, 2.0, 2.9, 3.6, 4.7] {
            let (a, b, c) = (tr.state(t - h), tr.state(t), tr.state(t + h));
            for k in 0..3 {
                let v = (c.pose.position[k] - a.pose.position[k]) / (2.0 * h);
                assert!((v - b.velocity[k]).abs() < 1e-8, "v at {t}");
                let acc = (c.velocity[k] - a.velocity[k]) / (2.0 * h);
                assert!((acc - b.acceleration[k]).abs() < 1e-7, "a at {t}");
                let al = (c.angular_velocity[k] - a.angular_velocity[k]) / (2.0 * h);
                assert!((al - b.angular_acceleration[k]).abs() < 1e-7, "α at {t}");
            }
            let (qa, qc) = (
                quat_from_frame(&a.pose.directors),
                quat_from_frame(&c.pose.directors),
            );
            let w = rotation_vector_of_quat(&quat_mul(&qc, &quat_conj(&qa))).map(|x| x / (2.0 * h));
            for k in 0..3 {
                assert!((w[k] - b.angular_velocity[k]).abs() < 1e-8, "ω at {t}");
            }
            let (e, det) = frame_error(&b.pose.directors);
            assert!(e < 1e-14 && (det - 1.0).abs() < 1e-14);
        }
    }

    #[test]
    fn line_helix_and_circle_have_consistent_derivatives_and_reach_their_ends() {
        let start = tilted_start();
        let line =
            RestToRestPose::line(start, [0.3, -0.4, 1.2], [0.0, 1.0, 1.0], 1.1, profile()).unwrap();
        check_derivatives(&line);
        let end = line.state(6.0);
        assert!((end.pose.position[2] - (-0.2 + 1.2)).abs() < 1e-15);
        assert_eq!(end.velocity, [0.0; 3]);
        assert_eq!(end.angular_velocity, [0.0; 3]);
        // quarter helix with a 90° twist about the tangent's start direction
        let helix = RestToRestPose::helix(
            start,
            [0.0; 3],
            [0.0, 0.0, 2.0],
            std::f64::consts::FRAC_PI_2,
            0.5,
            [1.0, 0.0, 0.0],
            std::f64::consts::FRAC_PI_2,
            profile(),
        )
        .unwrap();
        check_derivatives(&helix);
        let r = |t: f64| helix.state(t).pose.position;
        for t in [0.0, 2.2, 3.1, 6.0] {
            // stays on the cylinder of radius |(r0)_xy| about the z axis
            let p = r(t);
            assert!((p[0].hypot(p[1]) - 1.0f64.hypot(0.5)).abs() < 1e-14, "{t}");
        }
        assert!((r(6.0)[2] - (-0.2 + 0.5)).abs() < 1e-15);
        let e = r(6.0);
        assert!((e[0] + 0.5).abs() < 1e-15 && (e[1] - 1.0).abs() < 1e-15);
        // a circle in a tilted plane: constant distance from the centre, in the plane
        let n = [0.0, 1.0, 1.0];
        let circle = RestToRestPose::helix(
            start,
            [0.2, 0.1, 0.0],
            n,
            2.5,
            0.0,
            [0.0, 0.0, 1.0],
            0.0,
            profile(),
        )
        .unwrap();
        check_derivatives(&circle);
        let c = [0.2, 0.1, 0.0];
        let rad = |p: Vec3| {
            let d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
            (dot(&d, &d).sqrt(), dot(&d, &n))
        };
        let (r0, h0) = rad(start.position);
        for t in [1.5, 2.5, 4.0] {
            let (ri, hi) = rad(circle.state(t).pose.position);
            assert!((ri - r0).abs() < 1e-14 && (hi - h0).abs() < 1e-14);
        }
    }

    #[test]
    fn bad_data_names_the_field() {
        let start = tilted_start();
        let e = RestToRestPose::helix(
            start,
            [0.0; 3],
            [0.0; 3],
            1.0,
            0.0,
            [0.0, 0.0, 1.0],
            0.0,
            profile(),
        )
        .unwrap_err();
        assert_eq!(e.field, "axis");
        let mut skew = start;
        skew.directors[1][0] += 1e-6;
        let e = RestToRestPose::line(skew, [1.0; 3], [0.0, 0.0, 1.0], 0.0, profile()).unwrap_err();
        assert!(
            e.field == "start_frame" && e.message.contains("not orthonormal"),
            "{e:?}"
        );
        let mut mirror = start;
        mirror.directors[2] = mirror.directors[2].map(|c| -c);
        let e =
            RestToRestPose::line(mirror, [1.0; 3], [0.0, 0.0, 1.0], 0.0, profile()).unwrap_err();
        assert!(e.message.contains("reflection"), "{e:?}");
        let e = RestToRestPose::line(
            start,
            [1.0; 3],
            [0.0; 3],
            0.5,
            RestToRestProfile {
                t0: 0.0,
                duration: 1.0,
            },
        )
        .unwrap_err();
        assert_eq!(e.field, "frame_axis");
    }
}
