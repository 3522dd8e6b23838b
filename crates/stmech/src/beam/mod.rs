//! Planar geometrically exact (Simo–Reissner) beams.
//!
//! * [`section`]: cross-section data, the two constitutive laws, the wave speeds of `[I]` Eq. 30;
//! * [`element`]: the element kernel (residual, exact tangent, discrete gradient), orders 1 and 2
//!   with reduced integration;
//! * [`model`]: the discretised beam with its reference configuration, end conditions and loads;
//! * [`assembly`]: global assembly with a reusable banded LU, and the element passes (parallel
//!   on large meshes, identical bits for any number of threads);
//! * [`statics`]: load stepping with Newton;
//! * [`newton`]: the beam's Newton solves on the one driver (equation groups, magnitudes, floor);
//! * [`dynamics`]: the energy-momentum time stepper;
//! * [`space_time`]: Petrov–Galerkin cG(1) space-time slabs (bilinear in `(s, t)`);
//! * [`integrator`]: the interface both forward integrators share;
//! * [`reference`]: classical RK4 on the semi-discrete equations, an independent reference for
//!   the two (verification only: explicit, conditionally stable).
//!
//! A forward closed-loop check of an actuated free beam. A [`model::PointLoad`] is the force
//! and moment *applied to* the beam (global frame, dead). In the sign convention of `[I]` Eq. 3
//! the stress resultant at `s = 0` is `f = B ∂s x`, and the actuator applies `−f`: pass `−f(t)`
//! (e.g. as three `PointLoad`s with `TimeFunction::Table`s, one per component) to replay an
//! inverse-dynamics result.
//!
//! ```
//! use stmech::beam::{model::*, section::*, dynamics::EnergyMomentumStepper};
//! use stmech::model::load::TimeFunction;
//! let sec = SectionProperties { rho_a: 1.0, rho_i: 1.0, ea: 1.0, ga: 1.0, ei: 1.0 };
//! let mut spec = BeamSpec::cantilever(1.0, sec, 8, 2);
//! spec.start = EndCondition::Free;
//! // actuator at s = 0: force (f_x(t), 0) and moment m(t) from tables
//! let table = TimeFunction::Table { times: vec![0.0, 1.0], values: vec![0.0, 0.1] };
//! spec.point_loads.push(PointLoad { node: 0, force: [1.0, 0.0], moment: 0.0, time_function: table.clone() });
//! spec.point_loads.push(PointLoad { node: 0, force: [0.0, 0.0], moment: 1.0, time_function: table });
//! let model = BeamModel::try_new(spec).unwrap();
//! let mut stepper = EnergyMomentumStepper::at_rest(&model, 0.01, Default::default()).unwrap();
//! let tip = model.tip_node();
//! let mut tip_path = Vec::new();
//! stepper.run_until(0.5, |s| tip_path.push((s.time(), s.node(tip)))).unwrap();
//! assert_eq!(tip_path.len(), 50);
//! ```

/// Most elements of a forward beam (`beam.elements`): its model is built while the scenario
/// is loaded, before any estimate.
pub const MAX_BEAM_ELEMENTS: usize = 1_000_000;

pub mod assembly;
pub mod cayley;
pub mod dynamics;
pub mod element;
pub mod integrator;
pub mod model;
pub mod newton;
pub mod reference;
pub mod section;
pub mod space_time;
pub mod statics;
