//! The crane by the method of characteristics (issue 17, `[I]` Sect. 3): the sideways march of
//! [`crate::inverse::characteristics_solver`] from the payload (`s = L`, Cauchy data from the
//! path and the payload's balance) up to the suspension point (`s = 0`), with the string as
//! its [`CharacteristicBody`](crate::inverse::characteristics_body::CharacteristicBody).
//!
//! Checks before marching: those of every crane method ([`super::check_time_domain`],
//! [`super::check_resolution`], [`super::check_payload_path`]), the march's mesh counts and
//! settings ([`check_input`]). No sideways mesh ratio: the scheme is semi-Lagrangian on each
//! family (the feet of the characteristics are interpolated wherever they fall), so any
//! `hs/(c ht)` is stable; accuracy needs both `hs` and `ht` small. The pre-actuation room
//! checked by [`super::check_time_domain`] (the payload at rest for the transverse travel time
//! `∫ds/c_t` after `t_start`) is what the march needs: below `t_start` it uses the hanging
//! rope at rest, and the transverse waves are the slowest.
//!
//! The result is checked to be taut like the FEM's; a slack state met during the march is
//! [`crate::inverse::element::ElementError::Slack`].
//!
//! Without a payload the tip is a free end, where the transverse speed vanishes: the string
//! then steps uniformly in the travel time near it and starts from its expansion about the
//! free end ([`crate::inverse::characteristics_body`], "The chain's free end"; order 2 against
//! the Petit–Rouchon chain, docs/verification.md C11).

use super::{CraneError, CraneSolution, finish, prepare, slowest_element_speed};
use crate::inverse::characteristics_solver::{CharacteristicsSettings, check_input, march};
use crate::inverse::methods::InverseMethod;
use crate::inverse::solver::SpaceTimeMesh;
use crate::inverse::trajectory::TipTrajectory;
use crate::string::StringModel;

/// `hs/(c_min ht)` of `mesh` with the slowest transverse speed `c_min` (the sideways Courant
/// number; reported, not limited, for the method of characteristics).
pub fn speed_ratio(model: &StringModel, mesh: &SpaceTimeMesh, c_min: f64) -> f64 {
    model.length / mesh.elements_s as f64 / (c_min * mesh.ht())
}

/// Solves the crane's inverse problem by the method of characteristics (module docs).
/// `model.payload_start` is taken from the path at `mesh.t_start`. The axial family is fast
/// (`c_a = sqrt(EA/ρA)`, up to 7·10⁵ m/s for the stiff light ropes of the rigid-rope limit), so
/// the velocity from the Riemann invariants carries a round-off of about `ε c_a |p|`: the
/// march's nodal stop accepts that floor, `8 ε c_a/c_t` relative, by itself
/// ([`crate::inverse::characteristics_solver::MarchReport::nodes_at_floor`]; until issue 29 the crane set a stall level
/// of `1e-9 (1 + |state|)` for it).
pub fn solve_crane_characteristics(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    settings: &CharacteristicsSettings,
) -> Result<CraneSolution, CraneError> {
    let (model, report) = prepare(model, mesh, path, || check_input(mesh, settings))?;
    let hs = model.length / mesh.elements_s as f64;
    let courant = speed_ratio(&model, mesh, slowest_element_speed(&model, &report, hs));
    let tip = crate::inverse::characteristics_body::PlanarTip { body: &model, path };
    let run = march(&model, mesh, &tip, settings)?;
    finish(
        run.solution,
        report,
        courant,
        InverseMethod::Characteristics,
        Some(run.report),
    )
}
