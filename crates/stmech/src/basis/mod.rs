//! Shape functions and quadrature in one dimension (time here; space for beams later).

pub mod lagrange;
pub mod quadrature;

pub use lagrange::LagrangeBasis;
pub use quadrature::GaussLegendre;
