//! Nonlinear and linear solvers, and the time schemes that drive them.

pub mod banded;
pub mod conditioning;
pub mod consistent;
pub mod diagnostics;
pub mod linear;
pub mod modal;
pub mod newton;
pub mod scheme;
pub mod statics;
pub mod trajectory;

pub use newton::{NewtonParams, NewtonReport, Refactorization};
pub use trajectory::{BlockReport, Trajectory};
