//! Inverse dynamics of the spatial geometrically exact beam (issue 16): the force and moment
//! (or the base motion) at `s = 0` that move the pose of the tip `s = L` (position and frame)
//! along a prescribed path, before, during and after the motion.
//!
//! * [`model`]: the arm, a straight spatial beam of the one model's section law
//!   ([`crate::model::director_beam::Section`]) with an optional rigid body welded to its tip;
//! * [`closed_loop`]: the computed actuation replayed in the one model's forward director
//!   beam (a different discretisation) and the tip's deviation from the path.

pub mod closed_loop;
pub mod model;

pub use model::SpatialBeam;
