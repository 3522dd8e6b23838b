//! The beam-inverse scenario file as written: serde structs with `deny_unknown_fields`.

use crate::inverse::{InverseMethod, LinearSolverKind};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Raw {
    pub(super) problem: ProblemKind,
    pub(super) method: Option<InverseMethod>,
    pub(super) beam: RawBeam,
    pub(super) trajectory: RawTrajectory,
    pub(super) time: RawTime,
    pub(super) mesh: RawMesh,
    pub(super) newton: Option<RawNewton>,
    pub(super) output: Option<RawOutput>,
    pub(super) verify: Option<RawVerify>,
}

#[derive(Deserialize)]
pub(super) enum ProblemKind {
    #[serde(rename = "beam-inverse")]
    BeamInverse,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBeam {
    pub(super) length: f64,
    pub(super) law: RawLaw,
    pub(super) base: Option<[f64; 3]>,
    pub(super) section: RawSection,
    pub(super) tip: Option<RawTip>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(super) enum RawLaw {
    Quadratic,
    Log,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSection {
    pub(super) rho_a: f64,
    pub(super) rho_i: f64,
    pub(super) ea: f64,
    pub(super) ga: f64,
    pub(super) ei: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTip {
    pub(super) mass: f64,
    pub(super) inertia: Option<f64>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub(super) enum RawTrajectory {
    #[serde(rename = "rest-to-rest")]
    Arc {
        angle: f64,
        t0: f64,
        duration: f64,
        center: Option<[f64; 2]>,
    },
    #[serde(rename = "rest-to-rest-line")]
    Line {
        delta: [f64; 3],
        t0: f64,
        duration: f64,
    },
    #[serde(rename = "csv")]
    Csv { path: String },
    /// Samples in the scenario itself (or numpy arrays from Python): `t` (s), `pose` rows
    /// `(x, y, θ)`.
    #[serde(rename = "samples")]
    Samples { t: Vec<f64>, pose: Vec<[f64; 3]> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTime {
    pub(super) start: f64,
    pub(super) end: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMesh {
    pub(super) resolution: Option<i64>,
    pub(super) elements_s: Option<i64>,
    pub(super) elements_t: Option<i64>,
    pub(super) allow_unstable: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNewton {
    pub(super) tolerance: Option<f64>,
    pub(super) max_iterations: Option<i64>,
    pub(super) linear_solver: Option<LinearSolverKind>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawVerify {
    pub(super) closed_loop: Option<bool>,
    pub(super) position_tolerance: Option<f64>,
    pub(super) angle_tolerance: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutput {
    pub(super) plots: Option<bool>,
}
