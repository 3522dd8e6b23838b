//! The crane's inverse solve: the rigid-rope start, the nested Newton iteration, the solution.

use super::checks::{
    check_payload_path, check_resolution, check_time_domain, sample_times, slowest_speed,
};
use super::{CraneError, PathReport, dot};
use crate::inverse::mesh_ratio;
use crate::inverse::solver::{
    NewtonSettings, NewtonStart, SpaceTimeMesh, SpaceTimeSolution, solve_inverse_started,
    validate_mesh,
};
use crate::inverse::trajectory::TipTrajectory;
use crate::string::StringModel;

/// The suspension point of a massless rigid rope of length `L`:
/// `x₀ = y + L (ÿ − g)/|ÿ − g|` (the flat output of the rigid pendulum crane).
pub fn rigid_suspension(model: &StringModel, path: &dyn TipTrajectory, t: f64) -> [f64; 3] {
    let (y, a) = (path.pose(t), path.acceleration(t));
    let rel = [0, 1, 2].map(|c| a[c] - model.gravity[c]);
    let n = dot(rel, rel).sqrt();
    [0, 1, 2].map(|c| y[c] + model.length * rel[c] / n)
}

/// The crane's inverse solution.
#[derive(Clone, Debug)]
pub struct CraneSolution {
    /// The space-time solution (`x` are the rope's positions, `actuation` the force the
    /// suspension point applies to the rope, N).
    pub solution: SpaceTimeSolution<StringModel>,
    /// The path check.
    pub path: PathReport,
    /// The sideways Courant number of the mesh with the slowest transverse wave.
    pub courant: f64,
    /// Smallest stretch of the solution.
    pub min_stretch: f64,
}

impl CraneSolution {
    /// Suspension point `x(0, t_j)`.
    pub fn suspension(&self, j: usize) -> [f64; 3] {
        self.solution.x_at(0, j)
    }

    /// Suspension-point velocity `v(0, t_j)` (the Galerkin velocity field).
    pub fn suspension_velocity(&self, j: usize) -> [f64; 3] {
        self.solution.v_at(0, j)
    }

    /// Suspension-point acceleration at `t_j`: central differences of `v(0, ·)` (one-sided
    /// at the ends).
    pub fn suspension_acceleration(&self, j: usize) -> [f64; 3] {
        let n = self.solution.t.len() - 1;
        let (a, b) = if j == 0 {
            (0, 1)
        } else if j == n {
            (n - 1, n)
        } else {
            (j - 1, j + 1)
        };
        let dt = self.solution.t[b] - self.solution.t[a];
        let (va, vb) = (self.suspension_velocity(a), self.suspension_velocity(b));
        [0, 1, 2].map(|c| (vb[c] - va[c]) / dt)
    }

    /// The rope at time node `j` for ParaView ([`crate::io::vtk::write_scene_series`]): one
    /// poly-line per element through the nodes, `d3` the unit tangent of the element after the
    /// node (`d1 = d2 = 0`: a rope has no frame), `s` the reference arc length.
    pub fn snapshot(&self, j: usize) -> crate::io::vtk::SceneSnapshot {
        let st = &self.solution;
        let ns = st.mesh.elements_s;
        let points: Vec<[f64; 3]> = (0..=ns).map(|i| st.x_at(i, j)).collect();
        let directors = (0..=ns)
            .map(|i| {
                let (a, b) = if i < ns { (i, i + 1) } else { (i - 1, i) };
                let d = [0, 1, 2].map(|c| points[b][c] - points[a][c]);
                let n = dot(d, d).sqrt().max(f64::MIN_POSITIVE);
                [[0.0; 3], [0.0; 3], d.map(|c| c / n)]
            })
            .collect();
        crate::io::vtk::SceneSnapshot {
            t: st.t[j],
            points,
            directors,
            s: st.s.clone(),
            cells: (0..ns).map(|i| (4u8, vec![i, i + 1])).collect(),
            part: vec![0; ns],
        }
    }

    /// Suspension position and velocity at any `t` by cubic Hermite interpolation of the nodal
    /// `x(0, t_j)`, `v(0, t_j)` (`C¹`; constant outside the domain): what a forward model
    /// replays.
    pub fn suspension_at(&self, t: f64) -> ([f64; 3], [f64; 3]) {
        let ts = &self.solution.t;
        let n = ts.len() - 1;
        if t <= ts[0] {
            return (self.suspension(0), [0.0; 3]);
        }
        if t >= ts[n] {
            return (self.suspension(n), self.suspension_velocity(n));
        }
        let h = self.solution.mesh.ht();
        let k = (((t - ts[0]) / h).floor() as usize).min(n - 1);
        let u = (t - ts[k]) / h;
        let (x0, x1) = (self.suspension(k), self.suspension(k + 1));
        let (v0, v1) = (self.suspension_velocity(k), self.suspension_velocity(k + 1));
        let (h00, h10, h01, h11) = (
            2.0 * u * u * u - 3.0 * u * u + 1.0,
            u * u * u - 2.0 * u * u + u,
            -2.0 * u * u * u + 3.0 * u * u,
            u * u * u - u * u,
        );
        let (d00, d10, d01, d11) = (
            (6.0 * u * u - 6.0 * u) / h,
            3.0 * u * u - 4.0 * u + 1.0,
            (-6.0 * u * u + 6.0 * u) / h,
            3.0 * u * u - 2.0 * u,
        );
        (
            [0, 1, 2].map(|c| h00 * x0[c] + h10 * h * v0[c] + h01 * x1[c] + h11 * h * v1[c]),
            [0, 1, 2].map(|c| d00 * x0[c] + d10 * v0[c] + d01 * x1[c] + d11 * v1[c]),
        )
    }
}

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
    let mut model = *model;
    model.payload_start = path.pose(mesh.t_start);
    model.validate("rope")?;
    validate_mesh(mesh)?;
    check_time_domain(&model, path, mesh.t_start, mesh.t_end)?;
    check_resolution(path, mesh)?;
    let report = check_payload_path(&model, path, mesh.t_start, mesh.t_end, mesh.elements_t)?;
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
    // taut everywhere?
    let hs = model.length / mesh.elements_s as f64;
    let mut min = (f64::INFINITY, 0, 0.0);
    for j in 0..solution.t.len() {
        for e in 0..mesh.elements_s {
            let (a, b) = (solution.x_at(e, j), solution.x_at(e + 1, j));
            let d = [0, 1, 2].map(|c| (b[c] - a[c]) / hs);
            let nu = dot(d, d).sqrt();
            if nu < min.0 {
                min = (nu, e, solution.t[j]);
            }
        }
    }
    if min.0 <= 1.0 {
        return Err(CraneError::SlackSolution {
            nu: min.0,
            element: min.1,
            t: min.2,
        });
    }
    Ok(CraneSolution {
        solution,
        path: report,
        courant,
        min_stretch: min.0,
    })
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
