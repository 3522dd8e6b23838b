//! Inverse dynamics of the planar geometrically exact beam by space-time finite elements,
//! `[I]` Sect. 3 (Eq. 31-34), and the forward mode of the same element.
//!
//! Find the actuation `F(t)` at `s = 0` and the motion `x(s, t)` such that the tip follows
//! `γ(t)` (servo constraint, `[I]` Eq. 5):
//!
//! * [`element`]: the bilinear space-time element (residual + exact tangent, allocation free);
//! * [`solver`]: global assembly, Newton, faer sparse LU with a reused symbolic factorisation;
//!   [`solve_inverse`] and [`solve_forward`];
//! * [`trajectory`]: prescribed tip motions (built-in profiles, CSV with checks);
//! * [`mesh_ratio`]: the sideways CFL condition `hs ≤ c_min ht` and its derivation;
//! * [`characteristics`]: characteristic speeds and compatibility relations at any state
//!   (`[I]` Eq. 22-30); [`characteristics_solver`]: the inverse problem by sideways marching
//!   along characteristics ([`solve_characteristics`]);
//! * [`closed_loop`]: the computed actuation replayed in the forward beam model on a finer
//!   discretisation: the tip's deviation from the path (the tracking figure of the CLI);
//! * [`methods`]: [`InverseMethod`] and [`solve_with`], one entry point for both;
//! * [`sequential`]: the sequential baseline of `[I]` Sect. 2 (finite elements in space, then
//!   the DAE with the servo constraint, Eq. 21, by implicit Euler/BDF2).
//!
//! Sign convention: [`SpaceTimeSolution::actuation`] is the force and moment the actuator
//! applies *to the beam* at `s = 0` (global frame), `F = −f` with `f = B ∂s x(0, t)` of
//! `[I]` Eq. 3.

pub mod body;
pub mod characteristics;
pub mod characteristics_body;
pub mod characteristics_solver;
pub mod closed_loop;
pub mod crane;
pub mod element;
pub mod mesh_ratio;
pub mod methods;
pub mod sequential;
pub mod sideways;
pub mod solver;
pub mod spatial;
pub mod trajectory;

pub use characteristics_solver::{
    CharacteristicsSettings, CharacteristicsSolution, solve_characteristics,
};
pub use methods::{InverseMethod, MethodRun, rigid_start, solve_space_time, solve_with};
pub use solver::{
    BeamModel, InverseError, LinearSolverKind, NewtonSettings, NewtonStart, SpaceTimeMesh,
    SpaceTimeSolution, TipLaw, solve_forward, solve_forward_body, solve_inverse,
    solve_inverse_from,
};
pub use trajectory::{
    CsvTrajectory, RestToRestArc, RestToRestLine, RestToRestProfile, TipTrajectory,
};
