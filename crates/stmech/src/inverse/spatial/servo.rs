//! The prescribed pose of the tip as the servo target of the spatial inverse problem,
//! `x(L, t) = (r(t), ψ(t))` with `Q(ψ(t)) = R(t) R0ᵀ` (the tip frame `R(t)` relative to the
//! beam's rest frame `R0`), and the pose of a welded body as a pose of the tip.
//!
//! # The rotation vector of a path
//! `ψ(t)` is the continuous branch: the quaternion of `R(t) R0ᵀ` is made sign-continuous along
//! a grid of [`GRID`] samples of the time domain (starting at the identity, `ψ = 0` at rest),
//! and every evaluation takes the sign of the nearest grid sample; its angle
//! `2 atan2(|v|, w)` then runs continuously past `π`, up to the singular `2π` of `T`
//! ([`super::law::MAX_ROTATION`] is refused before solving, with the time). Rates:
//! `ψ̇ = T⁻¹ ω` and `ψ̈ = T⁻¹ (α − [∂(T ψ̇)/∂ψ] ψ̇)` (from `ω = T ψ̇`).

use super::law::MAX_ROTATION;
use crate::inverse::trajectory::pose::{Pose, PoseState, PoseTrajectory};
use crate::inverse::trajectory::{ServoPath, TrajectoryError};
use crate::math::rotation::{Quat, quat_conj, quat_from_frame, quat_mul};
use crate::math::so3::{Rotation, rotation_vector_on_branch, tangent_inverse};
use crate::math::{Vec3, cross};

/// Grid samples per time domain that fix the branch of the rotation vector.
pub const GRID: usize = 4096;

/// The tip state of the servo constraint: `x = (r, ψ)`, `v = ẋ`, `a = ẍ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServoState {
    /// `(r, ψ)`.
    pub x: [f64; 6],
    /// `(ṙ, ψ̇)`.
    pub v: [f64; 6],
    /// `(r̈, ψ̈)`.
    pub a: [f64; 6],
}

/// A pose path of the tip as the servo target `(r, ψ)` (module docs).
#[derive(Debug)]
pub struct PoseServo<'a> {
    path: &'a dyn PoseTrajectory,
    /// `q(R0)*`.
    q0_conj: Quat,
    t0: f64,
    dt: f64,
    /// Sign-continuous quaternions of `R(t) R0ᵀ` on the grid.
    grid: Vec<Quat>,
}

impl<'a> PoseServo<'a> {
    /// The servo target of `path` for a beam whose tip rests in the frame `frame0` (directors),
    /// on `[t_start, t_end]`. Fails if the tip frame turns by [`MAX_ROTATION`] or more from
    /// `frame0`, or so fast that the grid cannot follow it (more than 0.5 rad per sample).
    pub fn new(
        path: &'a dyn PoseTrajectory,
        frame0: &[Vec3; 3],
        t_start: f64,
        t_end: f64,
    ) -> Result<Self, TrajectoryError> {
        let q0_conj = quat_conj(&quat_from_frame(frame0));
        let dt = (t_end - t_start) / GRID as f64;
        let mut grid: Vec<Quat> = Vec::with_capacity(GRID + 1);
        for k in 0..=GRID {
            let t = t_start + k as f64 * dt;
            let q = quat_mul(&quat_from_frame(&path.state(t).pose.directors), &q0_conj);
            let q = match grid.last() {
                None if q[0] < 0.0 => q.map(|c| -c),
                None => q,
                Some(p) => {
                    let d: f64 = (0..4).map(|i| p[i] * q[i]).sum();
                    if d.abs() < (0.25f64).cos() {
                        return Err(TrajectoryError::Data {
                            path: "of the tip frame".into(),
                            message: format!(
                                "the frame turns by more than 0.5 rad within {dt:.3e} s at \
                                 t = {t:.4} s; a prescribed frame must turn smoothly"
                            ),
                        });
                    }
                    if d < 0.0 { q.map(|c| -c) } else { q }
                }
            };
            let psi = rotation_vector_on_branch(&q);
            let angle = (psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2]).sqrt();
            if angle >= MAX_ROTATION {
                return Err(TrajectoryError::Data {
                    path: "of the tip frame".into(),
                    message: format!(
                        "the tip frame turns by {angle:.4} rad from its start frame at \
                         t = {t:.4} s; the rotation-vector parametrisation of the spatial \
                         beam accepts less than {MAX_ROTATION:.4} rad (90 % of a full turn, \
                         where it is singular): split the manoeuvre or turn less"
                    ),
                });
            }
            grid.push(q);
        }
        Ok(Self {
            path,
            q0_conj,
            t0: t_start,
            dt,
            grid,
        })
    }

    /// The relative rotation vector of the frame `directors` at `t` (branch of the grid).
    fn psi(&self, t: f64, directors: &[Vec3; 3]) -> [f64; 3] {
        let q = quat_mul(&quat_from_frame(directors), &self.q0_conj);
        let k = ((t - self.t0) / self.dt).round().clamp(0.0, GRID as f64) as usize;
        let p = &self.grid[k];
        let d: f64 = (0..4).map(|i| p[i] * q[i]).sum();
        let q = if d < 0.0 { q.map(|c| -c) } else { q };
        rotation_vector_on_branch(&q)
    }

    /// `(r, ψ)` and their first two time derivatives at `t` (module docs).
    pub fn state(&self, t: f64) -> ServoState {
        let st = self.path.state(t);
        let psi = self.psi(t, &st.pose.directors);
        let w = tangent_inverse(&psi, &st.angular_velocity);
        let bw = Rotation::new(psi).tangent_rate(&w, &w);
        let rhs: [f64; 3] = std::array::from_fn(|k| st.angular_acceleration[k] - bw[k]);
        let aw = tangent_inverse(&psi, &rhs);
        let cat = |a: &[f64; 3], b: &[f64; 3]| [a[0], a[1], a[2], b[0], b[1], b[2]];
        ServoState {
            x: cat(&st.pose.position, &psi),
            v: cat(&st.velocity, &w),
            a: cat(&st.acceleration, &aw),
        }
    }
}

impl ServoPath<6> for PoseServo<'_> {
    fn target(&self, t: f64) -> [f64; 6] {
        let st = self.path.state(t);
        let psi = self.psi(t, &st.pose.directors);
        let r = st.pose.position;
        [r[0], r[1], r[2], psi[0], psi[1], psi[2]]
    }
}

/// The pose of the beam's tip from the prescribed pose of a body welded to it: with the body's
/// frame `R_b = R_tip R_rel` and reference point `p_b = r_tip + R_tip c` (both constant in the
/// tip frame), `R_tip = R_b R_relᵀ`, `r_tip = p_b − R_tip c`, and with `ρ = R_tip c`:
/// `ṙ_tip = ṗ_b − ω × ρ`, `r̈_tip = p̈_b − α × ρ − ω × (ω × ρ)`; `ω`, `α` are the body's.
#[derive(Debug)]
pub struct BodyToTip<'a> {
    /// The body's path.
    pub body: &'a dyn PoseTrajectory,
    /// `c`: the body's reference point seen from the tip, tip-frame components.
    pub offset: Vec3,
    /// `R_rel[k][i] = d_k · D_i` (tip director `k`, body director `i`).
    pub relative: [[f64; 3]; 3],
}

impl PoseTrajectory for BodyToTip<'_> {
    fn state(&self, t: f64) -> PoseState {
        let b = self.body.state(t);
        let db = &b.pose.directors;
        // d_k(tip) = Σ_i R_rel[k][i] D_i(body)
        let directors: [Vec3; 3] = std::array::from_fn(|k| {
            std::array::from_fn(|a| (0..3).map(|i| self.relative[k][i] * db[i][a]).sum())
        });
        let rho: Vec3 =
            std::array::from_fn(|a| (0..3).map(|k| self.offset[k] * directors[k][a]).sum());
        let (w, al) = (b.angular_velocity, b.angular_acceleration);
        let wr = cross(&w, &rho);
        let wwr = cross(&w, &wr);
        let ar = cross(&al, &rho);
        PoseState {
            pose: Pose {
                position: std::array::from_fn(|a| b.pose.position[a] - rho[a]),
                directors,
            },
            velocity: std::array::from_fn(|a| b.velocity[a] - wr[a]),
            acceleration: std::array::from_fn(|a| b.acceleration[a] - ar[a] - wwr[a]),
            angular_velocity: w,
            angular_acceleration: al,
        }
    }

    fn motion_interval(&self) -> Option<(f64, f64)> {
        self.body.motion_interval()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::trajectory::RestToRestProfile;
    use crate::inverse::trajectory::pose::RestToRestPose;
    use crate::math::rotation::rotate;

    fn frame() -> [Vec3; 3] {
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
            .map(|e| rotate(&[0.48, 0.6, 0.64], 0.9, &e))
    }

    /// A frame turning by 5 rad (past π) about a fixed axis gives the continuous
    /// `ψ = φ σ(t) a`, and the rates are its derivatives.
    #[test]
    fn rotation_vector_is_continuous_past_pi_with_consistent_rates() {
        let start = Pose {
            position: [0.3, -0.2, 1.0],
            directors: frame(),
        };
        let axis = [0.0, 0.6, 0.8];
        let path = RestToRestPose::helix(
            start,
            [0.0; 3],
            [0.0, 0.0, 1.0],
            1.0,
            0.4,
            axis,
            5.0,
            RestToRestProfile {
                t0: 1.0,
                duration: 2.0,
            },
        )
        .unwrap();
        let servo = PoseServo::new(&path, &frame(), 0.0, 4.0).unwrap();
        let profile = RestToRestProfile {
            t0: 1.0,
            duration: 2.0,
        };
        for t in [0.0, 0.7, 1.3, 1.9, 2.2, 2.9, 3.5] {
            let s = servo.state(t);
            let [sig, sig1, sig2] = profile.eval(t);
            for k in 0..3 {
                assert!((s.x[3 + k] - 5.0 * sig * axis[k]).abs() < 1e-12, "ψ at {t}");
                assert!(
                    (s.v[3 + k] - 5.0 * sig1 * axis[k]).abs() < 1e-11,
                    "ψ̇ at {t}"
                );
                assert!(
                    (s.a[3 + k] - 5.0 * sig2 * axis[k]).abs() < 1e-10,
                    "ψ̈ at {t}"
                );
            }
        }
        // a general rotation (the frame axis tilted from the turn): rates by differences
        let p2 = RestToRestPose::line(
            start,
            [0.1, 0.2, 0.3],
            [1.0, -0.5, 0.2],
            2.0,
            RestToRestProfile {
                t0: 0.5,
                duration: 2.0,
            },
        )
        .unwrap();
        let s2 = PoseServo::new(&p2, &frame(), 0.0, 3.0).unwrap();
        let h = 1e-5;
        for t in [0.9, 1.5, 2.1] {
            let (a, b, c) = (s2.state(t - h), s2.state(t), s2.state(t + h));
            for k in 0..6 {
                let v = (c.x[k] - a.x[k]) / (2.0 * h);
                assert!((v - b.v[k]).abs() < 1e-8, "v[{k}] at {t}");
                let acc = (c.v[k] - a.v[k]) / (2.0 * h);
                assert!((acc - b.a[k]).abs() < 1e-7, "a[{k}] at {t}");
            }
            assert!((s2.target(t)[3] - b.x[3]).abs() < 1e-15);
        }
        // too much rotation is refused with the time
        let far = RestToRestPose::line(
            start,
            [0.0; 3],
            axis,
            6.0,
            RestToRestProfile {
                t0: 1.0,
                duration: 2.0,
            },
        )
        .unwrap();
        let e = PoseServo::new(&far, &frame(), 0.0, 4.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("turns by") && e.contains("t = "), "{e}");
    }

    /// The tip path of a welded body: positions by differences of the converted path, and the
    /// round trip (the tip's own frame with zero offset is the identity).
    #[test]
    fn body_path_converts_to_the_tip_with_consistent_derivatives() {
        let start = Pose {
            position: [0.3, -0.2, 1.0],
            directors: frame(),
        };
        let body = RestToRestPose::helix(
            start,
            [0.0; 3],
            [0.0, 0.0, 1.0],
            1.2,
            0.3,
            [1.0, 1.0, 0.0],
            1.0,
            RestToRestProfile {
                t0: 1.0,
                duration: 2.0,
            },
        )
        .unwrap();
        let rel = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let tip = BodyToTip {
            body: &body,
            offset: [0.1, -0.05, 0.2],
            relative: rel,
        };
        let h = 1e-5;
        for t in [1.2, 2.0, 2.7] {
            let (a, b, c) = (tip.state(t - h), tip.state(t), tip.state(t + h));
            for k in 0..3 {
                let v = (c.pose.position[k] - a.pose.position[k]) / (2.0 * h);
                assert!((v - b.velocity[k]).abs() < 1e-8);
                let acc = (c.velocity[k] - a.velocity[k]) / (2.0 * h);
                assert!((acc - b.acceleration[k]).abs() < 1e-7);
            }
            // the body's point is the tip point plus R_tip c
            let bs = body.state(t);
            for a in 0..3 {
                let p = b.pose.position[a]
                    + (0..3)
                        .map(|k| tip.offset[k] * b.pose.directors[k][a])
                        .sum::<f64>();
                assert!((p - bs.pose.position[a]).abs() < 1e-14);
            }
        }
    }
}
