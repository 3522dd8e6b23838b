//! # stmech
//!
//! Dynamics of rigid and flexible mechanical systems solved in space and time at once.
//!
//! Data flows one way: scenario ([`io`]) → model ([`model`]) → discretisation
//! ([`discretize`]) → nonlinear solve ([`solve`]) → results.
//!
//! # References
//! * `[P]` C. Hesch, S. Glas, S. Schuß et al., *A space-time Galerkin approach to rigid body
//!   dynamics* (the rigid-body space-time paper; equation numbers refer to it).
//! * `[I]` *Inverse dynamics of geometrically exact beams* (space-time finite elements and the
//!   method of characteristics for the planar beam).
#![warn(missing_docs)]
#![allow(clippy::needless_range_loop)]

pub mod basis;
pub mod beam;
pub mod discretize;
pub mod error;
pub mod inverse;
pub mod io;
pub mod math;
pub mod model;
pub mod resources;
pub mod solve;
pub mod string;

pub use error::Error;
