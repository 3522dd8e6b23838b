//! Mechanical models: rigid bodies, loads, constraints, and their assembly into one
//! [`ConstrainedSystem`] (the semi-discrete DAE that every time discretisation consumes).

pub mod constraint;
pub mod director_beam;
pub mod load;
pub mod rigid_body;
pub mod strain;
pub mod system;

pub use constraint::{
    Constraint, Distance, FrameMotion, FrameMotionState, JointBody, Orthonormality, Prescribed,
    PrescribedFrame, Revolute, Rigid, Spherical,
};
pub use load::{Load, LoadKind, TimeFunction};
pub use rigid_body::{MassProperties, RigidBody};
pub use strain::{StrainElement, StrainSlot};
pub use system::{
    ConstrainedSystem, Deformable, MultibodySystem, NodalForces, PointEval, curvatures_from_tangent,
};
