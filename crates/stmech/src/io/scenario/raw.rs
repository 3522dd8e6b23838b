//! The scenario file as written: serde structs with `deny_unknown_fields`. Integers are
//! `i64` so that negative values reach validation and get a message with a remedy instead of
//! serde's "expected usize".

use crate::math::Vec3;
use crate::solve::scheme::Formulation;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    pub(super) analysis: Option<RawAnalysis>,
    pub(super) time: Option<RawTime>,
    pub(super) method: Option<RawMethod>,
    pub(super) statics: Option<RawStatics>,
    pub(super) newton: Option<RawNewton>,
    #[serde(default)]
    pub(super) bodies: Vec<RawBody>,
    #[serde(default)]
    pub(super) beams: Vec<RawBeam>,
    #[serde(default)]
    pub(super) loads: Vec<RawLoad>,
    #[serde(default)]
    pub(super) joints: Vec<RawJoint>,
    pub(super) output: Option<RawOutput>,
    pub(super) inverse: Option<RawInverse>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawJointKind {
    Spherical,
    Distance,
    Revolute,
    Prescribed,
    Rigid,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawJoint {
    pub(super) kind: RawJointKind,
    pub(super) name: Option<String>,
    pub(super) body_a: String,
    #[serde(default)]
    pub(super) point_a: Vec3,
    pub(super) body_b: Option<String>,
    #[serde(default)]
    pub(super) point_b: Vec3,
    pub(super) length: Option<f64>,
    pub(super) axis_a: Option<Vec3>,
    pub(super) axis_b: Option<Vec3>,
    pub(super) path: Option<Vec<Vec3>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTime {
    #[serde(default)]
    pub(super) start: f64,
    pub(super) end: f64,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum MethodKind {
    SpaceTime,
    ImplicitEuler,
    Midpoint,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMethod {
    pub(super) kind: MethodKind,
    pub(super) order: Option<i64>,
    pub(super) elements_per_block: Option<i64>,
    pub(super) blocks: Option<i64>,
    pub(super) quadrature_points: Option<i64>,
    pub(super) formulation: Option<Formulation>,
    pub(super) step: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNewton {
    pub(super) tolerance: Option<f64>,
    pub(super) max_iterations: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBox {
    pub(super) edges: Vec3,
    pub(super) density: f64,
    #[serde(default)]
    pub(super) reference_offset: Vec3,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBody {
    pub(super) name: String,
    #[serde(rename = "box")]
    pub(super) box_: Option<RawBox>,
    pub(super) mass: Option<f64>,
    pub(super) first_moment: Option<Vec3>,
    pub(super) euler_tensor: Option<[Vec3; 3]>,
    pub(super) position: Option<Vec3>,
    pub(super) directors: Option<[Vec3; 3]>,
    pub(super) velocity: Option<Vec3>,
    pub(super) angular_velocity: Option<Vec3>,
    pub(super) director_velocities: Option<[Vec3; 3]>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawLoadKind {
    Torque,
    BodyForce,
    Force,
    DistributedForce,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLoad {
    pub(super) body: String,
    pub(super) kind: RawLoadKind,
    pub(super) vector: Vec3,
    pub(super) time_function: Option<RawTimeFunction>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum TimeFunctionKind {
    Constant,
    Window,
    Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTimeFunction {
    pub(super) kind: TimeFunctionKind,
    pub(super) start: Option<f64>,
    pub(super) end: Option<f64>,
    pub(super) times: Option<Vec<f64>>,
    pub(super) values: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutput {
    pub(super) plots: Option<bool>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawAnalysis {
    Dynamic,
    Static,
    Inverse,
}

/// `[inverse]` of `analysis = "inverse"`: the spatial inverse problem of the one beam.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInverse {
    pub(super) actuation: Option<super::inverse::BaseActuation>,
    pub(super) servo: Option<super::inverse::ServoTarget>,
    pub(super) track: Option<String>,
    pub(super) method: Option<crate::inverse::InverseMethod>,
    pub(super) elements_t: Option<i64>,
    pub(super) trajectory: RawPosePath,
    pub(super) verify: Option<RawInverseVerify>,
}

/// `[inverse.trajectory]`: the prescribed pose path of the tracked frame.
#[derive(Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub(super) enum RawPosePath {
    /// A straight line `r0 → r0 + delta`.
    #[serde(rename = "line")]
    Line {
        delta: Vec3,
        t0: f64,
        duration: f64,
        frame_axis: Option<Vec3>,
        frame_angle: Option<f64>,
    },
    /// An arc of a circle about the axis through `center` along `axis`.
    #[serde(rename = "circle")]
    Circle {
        center: Vec3,
        axis: Vec3,
        angle: f64,
        t0: f64,
        duration: f64,
        frame_axis: Option<Vec3>,
        frame_angle: Option<f64>,
    },
    /// The arc with a rise along the axis.
    #[serde(rename = "helix")]
    Helix {
        center: Vec3,
        axis: Vec3,
        angle: f64,
        rise: f64,
        t0: f64,
        duration: f64,
        frame_axis: Option<Vec3>,
        frame_angle: Option<f64>,
    },
    /// Sampled poses from a CSV file (relative to the scenario's folder).
    #[serde(rename = "csv")]
    Csv {
        path: String,
        rotation: Option<RawRotationColumns>,
    },
}

/// How a pose CSV writes the frame (checked against the file's columns).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawRotationColumns {
    RotationVector,
    Quaternion,
    Matrix,
}

/// `[inverse.verify]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInverseVerify {
    pub(super) closed_loop: Option<bool>,
    pub(super) position_tolerance: Option<f64>,
    pub(super) angle_tolerance: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStatics {
    pub(super) load_steps: Option<i64>,
    pub(super) max_bisections: Option<i64>,
    pub(super) time: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBeam {
    pub(super) name: String,
    pub(super) elements: i64,
    pub(super) order: Option<i64>,
    pub(super) integration: Option<RawIntegration>,
    pub(super) section: RawBeamSection,
    pub(super) reference: RawBeamReference,
    pub(super) velocity: Option<Vec3>,
    pub(super) angular_velocity: Option<Vec3>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawIntegration {
    Reduced,
    Full,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBeamSection {
    pub(super) ea: Option<f64>,
    pub(super) ga1: Option<f64>,
    pub(super) ga2: Option<f64>,
    pub(super) ei1: Option<f64>,
    pub(super) ei2: Option<f64>,
    pub(super) gj: Option<f64>,
    pub(super) stiffness: Option<[[f64; 6]; 6]>,
    pub(super) rho_a: f64,
    pub(super) rho_i1: Option<f64>,
    pub(super) rho_i2: Option<f64>,
    pub(super) tau_s: Option<f64>,
    pub(super) tau_e: Option<f64>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawReferenceKind {
    Straight,
    Curved,
    Nodes,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBeamReference {
    pub(super) kind: RawReferenceKind,
    pub(super) start: Option<Vec3>,
    pub(super) directors: Option<[Vec3; 3]>,
    pub(super) length: Option<f64>,
    pub(super) curvature: Option<Vec3>,
    pub(super) positions: Option<Vec<Vec3>>,
    pub(super) frames: Option<Vec<[Vec3; 3]>>,
}
