//! Discretisation in time of a [`ConstrainedSystem`](crate::model::ConstrainedSystem).
//!
//! * [`space_time`]: continuous Galerkin in time, Lagrange order `p`, mixed form of
//!   [P, Eq. (23)], assembled over a whole time block into one sparse system.
//! * [`pattern`]: compressed-column sparsity patterns built once per mesh, with the map from
//!   element entries to matrix positions.

pub mod pattern;
pub mod space_time;

pub use space_time::SpaceTimeBlock;
