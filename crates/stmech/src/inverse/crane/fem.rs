//! The crane by the space-time FEM: Newton from the rigid-rope start, nested through a coarse
//! mesh (module docs of [`super`]).

use super::{CraneError, CraneSolution, dot, finish, prepare, sample_times, slowest_speed};
use crate::inverse::mesh_ratio;
use crate::inverse::methods::InverseMethod;
use crate::inverse::solver::{
    NewtonSettings, NewtonStart, SpaceTimeMesh, SpaceTimeSolution, solve_inverse_started,
    validate_mesh,
};
use crate::inverse::trajectory::TipTrajectory;
use crate::string::StringModel;

/// The rigid-rope start on `mesh` (module docs).
fn rigid_start(
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
    let c = slowest_speed(&model, &report);
    let courant = mesh_ratio::check_speed(
        c,
        "transverse wave speed sqrt(N/(ν ρA)) at the payload under its smallest tension",
        model.length,
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
            let mut s = *settings;
            s.tolerance = newton_tolerance(model, &c, path, settings.tolerance);
            let rigid = rigid_start(model, &c, path);
            match solve_inverse_started(model, &c, path, &s, Some(rigid)) {
                Ok(sol) => (sol, NewtonStart::Nested),
                // the coarse mesh may fail where the fine one does not: start from the rope
                Err(_) => (rigid_start(model, mesh, path), NewtonStart::Rigid),
            }
        }
        None => (rigid_start(model, mesh, path), NewtonStart::Rigid),
    };
    let start_seconds = started.elapsed().as_secs_f64();
    let mut s = *settings;
    s.tolerance = newton_tolerance(model, mesh, path, settings.tolerance);
    let mut solution = solve_inverse_started(model, mesh, path, &s, Some(start))?;
    solution.newton.start = how;
    solution.newton.start_seconds = start_seconds;
    Ok(solution)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::crane::check_payload_path;
    use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};

    /// Which transverse speed binds the sideways condition on a rope whose tension varies
    /// along it (heavy rope: 9.80 m/s at the payload, 14.0 m/s at the top)? A mesh with
    /// `μ = 2.5` at the payload (`1.75` at the top: the lower 56 % of the rope violates the
    /// local condition) amplifies the spurious three-step wave by `|z| ≈ 2` per violating
    /// element: invisible on 32 elements (18 violating, ~10⁵ × round-off), ruinous on 128 (72
    /// violating). Only the slowest speed bounds the growth on every mesh.
    #[test]
    fn the_slowest_transverse_wave_binds_the_mesh_ratio() {
        let model = StringModel {
            length: 10.0,
            rho_a: 2.0,
            ea: 1.0e6,
            payload_mass: 20.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0; 3],
        };
        let path = RestToRestLine {
            start: [0.0; 3],
            delta: [8.0, 4.0, 2.0],
            profile: RestToRestProfile {
                t0: 2.0,
                duration: 8.0,
            },
        };
        let rep = check_payload_path(&model, &path, 0.0, 12.0, 1).unwrap();
        let c_min = slowest_speed(&model, &rep);
        let c_top = model.transverse_speed(model.static_tension(0.0));
        let solve = |ns: usize, mu: f64| {
            let hs = model.length / ns as f64;
            let nt = (12.0 * c_min * mu / hs).round() as usize;
            let mesh = SpaceTimeMesh {
                t_start: 0.0,
                t_end: 12.0,
                elements_s: ns,
                elements_t: nt,
            };
            let s = NewtonSettings {
                tolerance: newton_tolerance(&model, &mesh, &path, 1e-10),
                max_iterations: 12,
                ..Default::default()
            };
            let mut m = model;
            m.payload_start = path.pose(0.0);
            let start = rigid_start(&m, &mesh, &path);
            (
                mesh,
                solve_inverse_started(&m, &mesh, &path, &s, Some(start)),
            )
        };
        let reference = solve(32, 1.0).1.unwrap();
        let mut out = Vec::new();
        for (ns, mu_payload) in [(32, 1.9), (32, 2.5), (128, 1.9), (128, 2.5)] {
            let (mesh, r) = solve(ns, mu_payload);
            let hs = model.length / ns as f64;
            let mu_top = hs / (c_top * mesh.ht());
            let err = match r {
                Ok(sol) => (0..sol.t.len())
                    .map(|j| {
                        let x = sol.x_at(0, j);
                        let (xr, _) = reference.field_at_cubic(0.0, sol.t[j]);
                        (0..3).map(|c| (x[c] - xr[c]).powi(2)).sum::<f64>().sqrt()
                    })
                    .fold(0.0f64, f64::max),
                Err(_) => f64::INFINITY,
            };
            println!(
                "{ns} elements, μ at the payload {:.2}, at the top {mu_top:.2}: max |x − x_ref| \
                 = {err:.3e} m",
                hs / (c_min * mesh.ht())
            );
            out.push((mu_top, err));
        }
        assert!(out[1].0 < 2.0 && out[3].0 < 2.0);
        // within the condition: the discretisation error of the 32-element reference
        assert!(out[0].1 < 1e-3 && out[2].1 < 1e-3, "{out:?}");
        // beyond it at the payload only: fine on 32 elements, not on 128
        assert!(out[3].1 > 100.0 * out[2].1, "{out:?}");
    }
}
