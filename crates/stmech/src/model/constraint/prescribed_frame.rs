//! Prescribed motion of a whole frame (rheonomic): a clamp that moves. The frame's placement
//! and directors follow a given pose path `(r(t), d_i(t) = R(t) e_i)`,
//!
//! ```text
//! Φ = (φ − r(t), d_1 − d_1(t), d_2 − d_2(t), d_3 − d_3(t)) = 0         (twelve equations)
//! ```
//!
//! Like [`super::Rigid`] to the ground, the twelve equations determine the frame completely,
//! including the orthonormality of its directors (the path's directors are orthonormal), so the
//! system drops the frame's own orthonormality constraint ([`Constraint::tied_frame`]).
//!
//! `G` is the identity on the frame's coordinates, `H = 0`, `∂(Gv)/∂q = 0`; the explicit time
//! dependence enters through [`Constraint::add_time_terms`], with `ḋ_i = ω × d_i` and
//! `d̈_i = α × d_i + ω × (ω × d_i)` (`ω` the spatial angular velocity of the path, `α = ω̇`):
//!
//! ```text
//! ∂Φ/∂t   = −(ṙ, ω × d_i(t))
//! ∂²Φ/∂t² = −(r̈, α × d_i(t) + ω × (ω × d_i(t)))
//! ```
//!
//! **Exactness.** As for [`super::Prescribed`]: the Petrov–Galerkin form integrates the
//! velocity-level constraint `G q̇_h + ∂Φ/∂t` with the `p` Gauss points of each time element,
//! so `Φ` holds at the nodes up to the quadrature error of `∫ ċ(t) dt`, `O(h^{2p+1})` per
//! element for a smooth path (exact for polynomial paths of degree `≤ 2p`). The constraint does
//! work: energy is not conserved.
//!
//! The path is anything that implements [`FrameMotion`]; `model` knows nothing of the pose
//! trajectories of `inverse` (the closed loop of `inverse::spatial` adapts them).

use super::Constraint;
use crate::math::{Vec3, cross};
use std::sync::Arc;

/// A frame's pose and its first two time derivatives at one instant (global components).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameMotionState {
    /// Position `r` (m).
    pub position: Vec3,
    /// Directors `d_1, d_2, d_3` (orthonormal, right-handed).
    pub directors: [Vec3; 3],
    /// `ṙ` (m/s).
    pub velocity: Vec3,
    /// `r̈` (m/s²).
    pub acceleration: Vec3,
    /// Spatial angular velocity `ω`, `ḋ_i = ω × d_i` (rad/s).
    pub angular_velocity: Vec3,
    /// `α = ω̇` (rad/s²).
    pub angular_acceleration: Vec3,
}

/// A prescribed motion of a frame, `t ↦` [`FrameMotionState`].
pub trait FrameMotion: Send + Sync + std::fmt::Debug {
    /// The pose and its derivatives at `t`.
    fn frame_state(&self, t: f64) -> FrameMotionState;
}

/// Frame `k` (coordinates `q[12k..12k+12]`) follows a [`FrameMotion`] (module docs).
#[derive(Clone, Debug)]
pub struct PrescribedFrame {
    frame: usize,
    indices: Vec<usize>,
    motion: Arc<dyn FrameMotion>,
}

impl PrescribedFrame {
    /// Frame `frame` follows `motion`.
    pub fn new(frame: usize, motion: Arc<dyn FrameMotion>) -> Self {
        Self {
            frame,
            indices: (12 * frame..12 * frame + 12).collect(),
            motion,
        }
    }

    /// The prescribed motion.
    pub fn motion(&self) -> &Arc<dyn FrameMotion> {
        &self.motion
    }
}

impl Constraint for PrescribedFrame {
    fn name(&self) -> &str {
        "prescribed-frame"
    }

    fn n_eq(&self) -> usize {
        12
    }

    fn length_power(&self, e: usize) -> u8 {
        if e < 3 { 1 } else { 0 }
    }

    fn indices(&self) -> &[usize] {
        &self.indices
    }

    fn eval(
        &self,
        q: &[f64],
        _lambda: &[f64],
        phi: &mut [f64],
        g: &mut [f64],
        _h: Option<&mut [f64]>,
    ) {
        // time-independent part q; −c(t) is added by add_time_terms
        phi[..12].copy_from_slice(&q[..12]);
        for e in 0..12 {
            g[e * 12 + e] += 1.0;
        }
    }

    fn velocity_jacobian(&self, _q: &[f64], _v: &[f64], _out: &mut [f64]) {
        // G is constant.
    }

    fn add_time_terms(&self, t: f64, phi: &mut [f64], phi_t: &mut [f64], phi_tt: &mut [f64]) {
        let s = self.motion.frame_state(t);
        let (w, a) = (s.angular_velocity, s.angular_acceleration);
        for k in 0..3 {
            phi[k] -= s.position[k];
            phi_t[k] -= s.velocity[k];
            phi_tt[k] -= s.acceleration[k];
        }
        for (i, d) in s.directors.iter().enumerate() {
            let wd = cross(&w, d);
            let ad = cross(&a, d);
            let wwd = cross(&w, &wd);
            for k in 0..3 {
                let e = 3 + 3 * i + k;
                phi[e] -= d[k];
                phi_t[e] -= wd[k];
                phi_tt[e] -= ad[k] + wwd[k];
            }
        }
    }

    fn tied_frame(&self) -> Option<usize> {
        Some(self.frame)
    }
}

#[cfg(test)]
mod tests {
    use super::super::body_map::fd;
    use super::*;
    use crate::math::rotation::rotate;

    /// `r(t) = (sin t, t², cos 2t)`, `R(t) = Rot(e_z, t) Rot(e_x, 2t) R0`: the angular velocity
    /// `ω = e_z + 2 Rot(e_z, t) e_x` turns, so `α = e_z × ω ≠ 0` is not parallel to `ω`.
    #[derive(Debug)]
    struct Tumbling;

    impl FrameMotion for Tumbling {
        fn frame_state(&self, t: f64) -> FrameMotionState {
            let (ez, ex) = ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
            let r0 = [
                [0.0, 1.0, 0.0],
                [0.6, 0.0, 0.8],
                [0.8, 0.0, -0.6], // (d1, d2, d3) right-handed
            ];
            let directors = r0.map(|d| rotate(&ez, t, &rotate(&ex, 2.0 * t, &d)));
            let ex_t = rotate(&ez, t, &ex);
            let angular_velocity = [0, 1, 2].map(|k| ez[k] + 2.0 * ex_t[k]);
            let angular_acceleration = cross(&ez, &angular_velocity);
            FrameMotionState {
                position: [t.sin(), t * t, (2.0 * t).cos()],
                directors,
                velocity: [t.cos(), 2.0 * t, -2.0 * (2.0 * t).sin()],
                acceleration: [-t.sin(), 2.0, -4.0 * (2.0 * t).cos()],
                angular_velocity,
                angular_acceleration,
            }
        }
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let c = PrescribedFrame::new(0, Arc::new(Tumbling));
        for t in [0.0, 0.7, 2.3] {
            fd::check(&c, &fd::config(12), t);
        }
        assert_eq!(c.tied_frame(), Some(0));
        assert_eq!(PrescribedFrame::new(3, Arc::new(Tumbling)).indices()[0], 36);
    }

    #[test]
    fn holds_on_the_path_and_measures_the_offset_off_it() {
        let c = PrescribedFrame::new(0, Arc::new(Tumbling));
        let t = 1.1;
        let s = Tumbling.frame_state(t);
        let mut q: Vec<f64> = s.position.to_vec();
        for d in s.directors {
            q.extend(d);
        }
        let (mut phi, mut g, mut pt, mut ptt) =
            (vec![0.0; 12], vec![0.0; 144], vec![0.0; 12], vec![0.0; 12]);
        c.eval(&q, &[0.0; 12], &mut phi, &mut g, None);
        c.add_time_terms(t, &mut phi, &mut pt, &mut ptt);
        assert!(phi.iter().all(|x| x.abs() < 1e-15), "{phi:?}");
        // a point moved by δ gives Φ = δ
        q[1] += 0.25;
        c.eval(&q, &[0.0; 12], &mut phi, &mut g, None);
        c.add_time_terms(t, &mut phi, &mut pt, &mut ptt);
        assert!((phi[1] - 0.25).abs() < 1e-15);
    }
}
