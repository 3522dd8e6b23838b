//! Inverse dynamics of the spatial geometrically exact beam (issue 16): the force and moment
//! (or the base motion) at `s = 0` that move the pose of the tip `s = L` (position and frame)
//! along a prescribed path, before, during and after the motion.
//!
//! * [`model`]: the arm, a straight spatial beam of the one model's section law
//!   ([`crate::model::director_beam::Section`]) with an optional rigid body welded to its tip;
//! * [`law`]: the Simo–Reissner point law in the rotation vector (`x = (r, ψ)`), the element's
//!   stresses, Hessian and nonlinear rotary inertia;
//! * [`body`]: the arm as a body of the generic space-time inverse solver (rest state, the tip
//!   body's inertia as its tip law);
//! * [`servo`]: the prescribed tip pose as the servo target `(r, ψ)`, and a welded body's pose
//!   as the tip's;
//! * [`solve`]: checks (wave speeds, mesh ratio, start pose), the space-time FEM solve and the
//!   physical outputs;
//! * [`sequential`]: the sequential baseline of `[I]` Sect. 2 (linear elements, BDF on the
//!   servo-constrained semi-discrete equations), the third row of `stmech compare`;
//! * [`closed_loop`]: the verification of a computed actuation. [`closed_loop::closed_loop`]
//!   replays it — the force and moment at `s = 0` as piecewise-linear loads on the first node
//!   ([`closed_loop::Replay::Force`]), or the base frame moved along a pose path by a moving
//!   clamp ([`closed_loop::Replay::Motion`], [`crate::model::PrescribedFrame`]; sampled base
//!   motions through `PoseCsvTrajectory::from_samples`) — in the one model's forward director
//!   beam with the tip body welded to it, on a finer and different discretisation
//!   ([`closed_loop::ForwardResolution`], by default
//!   [`closed_loop::ForwardResolution::finer_than`] the inverse mesh: quadratic elements,
//!   cG(2) with a quarter of the inverse's step), and reports the tip's largest position and
//!   orientation deviation from the path with every sample ([`closed_loop::SpatialTracking`]).

pub mod body;
pub mod characteristics;
pub mod closed_loop;
pub mod law;
pub mod model;
pub mod rigid;
pub mod sequential;
pub mod servo;
pub mod solve;

pub use model::{SpatialBeam, WeldedBody};
pub use servo::{BodyToTip, PoseServo};
pub use solve::{SpatialRun, WaveSpeeds, solve_space_time, solve_with, wave_speeds};
