//! Planar geometrically exact (Simo–Reissner) beams.
//!
//! [`section`] holds the cross-section data, the two constitutive laws and the wave speeds of
//! `[I]` Eq. 30; everything that discretises a beam (statics, forward dynamics, inverse
//! dynamics) evaluates its stresses through it.

pub mod section;
