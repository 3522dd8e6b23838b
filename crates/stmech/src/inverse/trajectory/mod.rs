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

mod csv;
pub mod pose;
pub mod pose_csv;
mod rows;
pub mod smoothness;
mod spline;
#[cfg(test)]
mod tests;

pub use csv::{Columns, CsvTrajectory};

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

/// The target of the servo constraint `x(L, t) = γ(t)` of a body with `N` unknowns per point
/// (the space-time solver's view of a trajectory).
pub trait ServoPath<const N: usize>: std::fmt::Debug + Send + Sync {
    /// `γ(t)`.
    fn target(&self, t: f64) -> [f64; N];
}

/// A tip trajectory of the planar beam or a payload path of the string as a servo path.
#[derive(Debug, Clone, Copy)]
pub struct Planar<'a>(pub &'a dyn TipTrajectory);

impl ServoPath<3> for Planar<'_> {
    fn target(&self, t: f64) -> [f64; 3] {
        self.0.pose(t)
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
    /// The payload path of `examples/crane/01_swing_free_transfer.toml`: from the origin by
    /// (8, 4, 2) m in 8 s from t = 2 s.
    pub fn crane_example() -> Self {
        Self {
            start: [0.0; 3],
            delta: [8.0, 4.0, 2.0],
            profile: RestToRestProfile {
                t0: 2.0,
                duration: 8.0,
            },
        }
    }

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

/// Largest deviation of `γ(time.start)` from the tip's initial pose, relative to `1 + L`.
pub const START_POSE_TOLERANCE: f64 = 1e-9;

/// Checks that `γ(t_start)` is the tip's initial pose `tip0` (within
/// [`START_POSE_TOLERANCE`]` (1 + length)`): the beam starts at rest, so the servo constraint
/// would otherwise demand a jump of the tip. Used by the scenario validation and the solvers.
pub fn check_start_pose(
    trajectory: &dyn TipTrajectory,
    t_start: f64,
    tip0: [f64; 3],
    length: f64,
) -> Result<(), TrajectoryError> {
    let g0 = trajectory.pose(t_start);
    let dev = (0..3).fold(0.0f64, |m, c| m.max((g0[c] - tip0[c]).abs()));
    if dev <= START_POSE_TOLERANCE * (1.0 + length.abs()) {
        return Ok(());
    }
    Err(TrajectoryError::Data {
        path: "of the tip".into(),
        message: format!(
            "γ(time.start) = ({:.6e}, {:.6e}, {:.6e}) is not the tip's initial pose (x, y, θ) = \
             ({}, {}, {}) (deviation {dev:.3e}); the beam starts at rest, so the servo \
             constraint would demand a jump of the tip: start the path at the tip's pose",
            g0[0], g0[1], g0[2], tip0[0], tip0[1], tip0[2]
        ),
    })
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
