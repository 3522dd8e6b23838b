//! Discretisation in time of a [`ConstrainedSystem`](crate::model::ConstrainedSystem).
//!
//! * [`petrov_galerkin`]: continuous Petrov–Galerkin in time, cG(p): continuous Lagrange trial
//!   functions of order `p`, discontinuous test functions and multipliers of degree `p − 1`,
//!   velocity-level constraints. Energy-conserving, order `p + 1` or better. The default.
//! * [`space_time`]: the paper's Bubnov–Galerkin form of [P, Eq. (23)] (all fields and test
//!   functions continuous of order `p`), kept to reproduce and compare with [P].
//! * [`condensed`]: one Petrov–Galerkin time element with the velocities eliminated exactly
//!   (unknowns `q` and `λ` only, numbered frame by frame): what the block loop solves.
//! * [`strain_time`]: the energy–momentum (enhanced strain) time integration of the strain
//!   elements of deformable parts inside a Petrov–Galerkin time element.
//! * [`pattern`]: compressed-column sparsity patterns built once per mesh, with the map from
//!   element entries to matrix positions.
//!
//! Both space-time forms assemble a whole time block into one sparse system.

pub mod condensed;
pub mod pattern;
pub mod petrov_galerkin;
pub mod space_time;
pub mod strain_time;

pub use condensed::CondensedElement;
pub use petrov_galerkin::PetrovGalerkinBlock;
pub use space_time::SpaceTimeBlock;
