//! The crane by the space-time FEM: Newton from the rigid-rope start, nested through a coarse
//! mesh (module docs of [`super`]).

use super::{CraneError, CraneSolution, check_mesh_ratio, dot, finish, prepare, sample_times};
use crate::inverse::methods::InverseMethod;
use crate::inverse::solver::{
    NewtonSettings, NewtonStart, SpaceTimeMesh, SpaceTimeSolution, solve_inverse_started,
    validate_mesh,
};
use crate::inverse::trajectory::{Planar, TipTrajectory};
use crate::string::StringModel;

/// The rigid-rope start on `mesh` (module docs).
pub(super) fn rigid_start(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
) -> SpaceTimeSolution<StringModel> {
    let (ns, nt) = (mesh.elements_s, mesh.elements_t);
    let hs = model.length / ns as f64;
    let ht = mesh.ht();
    let weight_line = |t: f64, s: f64| -> [f64; 3] {
        let (y, a) = (path.pose(t), path.acceleration(t));
        let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
        let n = dot(rel, rel).sqrt();
        let l = model.length - s;
        // ∫_s^L ν ds' with N = |ÿ − g| (m + ρA (L − s'))
        let len = l + n * (model.payload_mass * l + 0.5 * model.rho_a * l * l) / model.ea;
        [0, 1, 2].map(|c| y[c] + len * rel[c] / n)
    };
    let mut x = Vec::with_capacity((ns + 1) * (nt + 1));
    let mut v = Vec::with_capacity((ns + 1) * (nt + 1));
    let mut actuation = Vec::with_capacity(nt + 1);
    let x0 = model.hanging_nodes(ns);
    let dt = 1e-6 * (1.0 + mesh.t_end.abs());
    for j in 0..=nt {
        let t = mesh.t_start + j as f64 * ht;
        for i in 0..=ns {
            if j == 0 {
                x.push(x0[i]);
                v.push([0.0; 3]);
                continue;
            }
            let s = i as f64 * hs;
            x.push(weight_line(t, s));
            let (p, m) = (weight_line(t + dt, s), weight_line(t - dt, s));
            v.push([0, 1, 2].map(|c| (p[c] - m[c]) / (2.0 * dt)));
        }
        let a = path.acceleration(t);
        let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
        let total = model.payload_mass + model.rho_a * model.length;
        actuation.push(rel.map(|c| total * c));
    }
    SpaceTimeSolution {
        beam: *model,
        mesh: *mesh,
        s: (0..=ns).map(|i| i as f64 * hs).collect(),
        t: (0..=nt).map(|j| mesh.t_start + j as f64 * ht).collect(),
        x,
        v,
        actuation,
        newton: Default::default(),
    }
}

/// The Newton tolerance of [`solve_crane`] (largest residual entry, N·s or m·s): `relative`
/// times the weight impulse of one time step, `(m + ρA L)|g| ht`, but not below the
/// floating-point floor of the residual, `64 ε ‖|J||x|‖ ≈ 64 ε EA ht X / hs` (`X` the largest
/// coordinate: the axial stiffness rows of a stiff rope cannot be evaluated more accurately).
pub fn newton_tolerance(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    relative: f64,
) -> f64 {
    let ht = mesh.ht();
    let hs = model.length / mesh.elements_s as f64;
    let x_max = sample_times(mesh.t_start, mesh.t_end, 1)
        .step_by(40)
        .map(|t| path.pose(t).iter().fold(0.0f64, |m, c| m.max(c.abs())))
        .fold(0.0f64, f64::max)
        + model.length;
    let weight = model.g() * (model.payload_mass + model.rho_a * model.length) * ht;
    (relative * weight).max(64.0 * f64::EPSILON * model.ea * ht * x_max / hs)
}

/// Solves the crane's inverse problem by the space-time FEM (module docs). `model.payload_start`
/// is taken from the path at `mesh.t_start`. The Newton tolerance is relative
/// ([`newton_tolerance`] with `settings.tolerance`).
pub fn solve_crane(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    settings: &NewtonSettings,
) -> Result<CraneSolution, CraneError> {
    let (model, report) = prepare(model, mesh, path, || validate_mesh(mesh))?;
    let courant = check_mesh_ratio(
        &model,
        &report,
        mesh.t_end - mesh.t_start,
        mesh.elements_s,
        mesh.elements_t,
    )?;
    let solution = solve_nested(&model, mesh, path, settings)?;
    finish(solution, report, courant, InverseMethod::SpaceTime, None)
}

/// Coarsening of the nested start: Newton on the mesh coarsened this many times in `s` and
/// `t` (the same sideways Courant number) from the rigid rope, then on `mesh` from that
/// solution (cubic interpolation, [`SpaceTimeSolution::field_at_cubic`]).
pub const START_COARSENING: usize = 4;

/// Newton from the rigid-rope start, nested through the coarse mesh where it has at least 4
/// elements each way. `settings.tolerance` is relative ([`newton_tolerance`]).
fn solve_nested(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution<StringModel>, CraneError> {
    let k = START_COARSENING;
    // ⌈n_s/k⌉ and ⌊n_t/k⌋: the coarse sideways Courant number is at most the fine one
    let coarse = (mesh.elements_s >= 4 * k && mesh.elements_t >= 4 * k).then(|| SpaceTimeMesh {
        elements_s: mesh.elements_s.div_ceil(k),
        elements_t: mesh.elements_t / k,
        ..*mesh
    });
    let started = std::time::Instant::now();
    let (start, how) = match coarse {
        Some(c) => {
            // (the Newton tolerance is relative: solve::newton)
            let s = *settings;
            let rigid = rigid_start(model, &c, path);
            match solve_inverse_started(model, &c, &Planar(path), &s, Some(rigid)) {
                Ok(sol) => (sol, NewtonStart::Nested),
                // the coarse mesh may fail where the fine one does not: start from the rope
                Err(_) => (rigid_start(model, mesh, path), NewtonStart::Rigid),
            }
        }
        None => (rigid_start(model, mesh, path), NewtonStart::Rigid),
    };
    let start_seconds = started.elapsed().as_secs_f64();
    let s = *settings;
    let mut solution = solve_inverse_started(model, mesh, &Planar(path), &s, Some(start))?;
    solution.newton.start = how;
    solution.newton.start_seconds = start_seconds;
    Ok(solution)
}
