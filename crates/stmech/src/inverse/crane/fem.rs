//! The crane by the space-time FEM: Newton from the rigid-rope start, nested through a coarse
//! mesh, continued in the axial stiffness where Newton fails (module docs of [`super`]).

use super::{CraneError, CraneSolution, check_mesh_ratio, dot, finish, prepare};
use crate::error::SolveError;
use crate::inverse::methods::InverseMethod;
use crate::inverse::solver::InverseError;
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

/// Solves the crane's inverse problem by the space-time FEM (module docs). `model.payload_start`
/// is taken from the path at `mesh.t_start`. The Newton tolerance is relative
/// (`settings.newton`, [`crate::solve::newton`]).
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
    let (solution, work) = solve_nested(&model, mesh, path, settings)?;
    let mut sol = finish(solution, report, courant, InverseMethod::SpaceTime, None)?;
    sol.continuation = Some(work);
    Ok(sol)
}

/// Factor by which the stiffness continuation (module docs of [`super`]) first softens the
/// rope and then stiffens it per step (halved in the exponent where a step fails).
pub const CONTINUATION_FACTOR: f64 = 10.0;

/// Largest strain `|g| (m + ρA L) / EA` of the softest rope of the continuation: a rope
/// stretched by more than this is no longer the crane's.
pub const CONTINUATION_MAX_STRAIN: f64 = 1e-2;

/// Smallest factor of a continuation step: below it the continuation gives up.
const CONTINUATION_MIN_FACTOR: f64 = 1.05;

/// The Newton solves of the FEM on the coarse and the fine mesh, with the stiffness
/// continuation where it was needed (module docs of [`super`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Continuation {
    /// The axial stiffness of every solve made, first to last, converged or not (N): the
    /// rope's own alone where Newton converged directly on both meshes.
    pub stiffnesses: Vec<f64>,
    /// Newton iterations of all these solves (the last one's included).
    pub iterations: usize,
}

/// The secant predictor of the continuation in `λ = 1/EA`: the solutions `a` (earlier) and
/// `b` (last) extrapolated linearly in `λ` to the rope `to` (nodal `x`, `v` and actuation).
fn extrapolated(
    a: &SpaceTimeSolution<StringModel>,
    b: &SpaceTimeSolution<StringModel>,
    to: &StringModel,
) -> SpaceTimeSolution<StringModel> {
    let (la, lb, lt) = (1.0 / a.beam.ea, 1.0 / b.beam.ea, 1.0 / to.ea);
    let w = (lt - lb) / (lb - la);
    let mut s = b.clone();
    let ext = |p: &mut [f64; 3], q: &[f64; 3]| {
        for c in 0..3 {
            p[c] += w * (p[c] - q[c]);
        }
    };
    for (p, q) in s.x.iter_mut().zip(&a.x) {
        ext(p, q);
    }
    for (p, q) in s.v.iter_mut().zip(&a.v) {
        ext(p, q);
    }
    for (p, q) in s.actuation.iter_mut().zip(&a.actuation) {
        ext(p, q);
    }
    s.beam = *to;
    s
}

/// Whether a failed space-time solve may succeed from a better start (Newton did not converge,
/// or its steps inverted an element), rather than being refused for its input.
fn retryable(e: &InverseError) -> bool {
    matches!(
        e,
        InverseError::Newton(SolveError::NewtonDiverged { .. }) | InverseError::Element { .. }
    )
}

/// A converged solve of the continuation: the solution and the softest rope solved on the way
/// (`None`: the rope was solved directly).
pub(super) struct Continued {
    pub(super) solution: SpaceTimeSolution<StringModel>,
    pub(super) softest: Option<SpaceTimeSolution<StringModel>>,
}

/// Newton on `mesh` for `model` from `start` (a solution of the same problem, on any mesh of
/// the domain, for the rope `start.beam`, whose stiffness may be lower than `model.ea`) or
/// from the rigid rope; where it fails, a continuation in the axial stiffness (docs/theory.md,
/// "Stiffness continuation of the crane"): the rope softened by [`CONTINUATION_FACTOR`] until
/// Newton converges from the rigid rope (at most to the strain [`CONTINUATION_MAX_STRAIN`]
/// under the weight of the payload and the rope), then stiffened by that factor per step, each
/// solve started from the secant predictor in `1/EA` of the last two solutions (the last one
/// alone at the first step); a failed step is retried with the square root of its factor.
/// Every solve runs through the one Newton driver with `settings`; the returned solution is
/// that of `model`, converged to the tolerance from its own start.
pub(super) fn solve_continued(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    settings: &NewtonSettings,
    start: Option<SpaceTimeSolution<StringModel>>,
    climb: bool,
    work: &mut Continuation,
) -> Result<Continued, InverseError> {
    let solve = |m: &StringModel, s: SpaceTimeSolution<StringModel>, w: &mut Continuation| {
        let r = solve_inverse_started(m, mesh, &Planar(path), settings, Some(s));
        w.stiffnesses.push(m.ea);
        w.iterations += match &r {
            Ok(sol) => sol.newton.iterations,
            Err(e) => e.newton_history().map_or(0, |h| h.len().saturating_sub(1)),
        };
        r
    };
    // the rope of the start (a softer one from the coarse mesh's continuation, or `model`)
    let mut first = *model;
    if let Some(s) = &start {
        first.ea = s.beam.ea.min(model.ea);
    }
    let s = start.unwrap_or_else(|| rigid_start(&first, mesh, path));
    let mut softest = None;
    let mut sol = match solve(&first, s, work) {
        Ok(sol) => {
            if first.ea < model.ea {
                softest = Some(sol.clone());
            }
            sol
        }
        Err(e) if retryable(&e) => {
            // soften from the rigid rope: strained at most CONTINUATION_MAX_STRAIN by the
            // whole weight
            let weight = model.g() * (model.payload_mass + model.rho_a * model.length);
            let ea_min = weight / CONTINUATION_MAX_STRAIN;
            let mut soft = first;
            let mut solved = None;
            while solved.is_none() && soft.ea / CONTINUATION_FACTOR >= ea_min {
                soft.ea /= CONTINUATION_FACTOR;
                match solve(&soft, rigid_start(&soft, mesh, path), work) {
                    Ok(sol) => solved = Some(sol),
                    Err(e) if retryable(&e) => {}
                    Err(e) => return Err(e),
                }
            }
            let Some(sol) = solved else {
                return Err(e);
            };
            softest = Some(sol.clone());
            sol
        }
        Err(e) => return Err(e),
    };
    let mut prev: Option<SpaceTimeSolution<StringModel>> = None;
    let mut factor = CONTINUATION_FACTOR;
    while climb && sol.beam.ea < model.ea {
        let mut next = *model;
        next.ea = (sol.beam.ea * factor).min(model.ea);
        let s = match &prev {
            Some(p) => extrapolated(p, &sol, &next),
            None => sol.clone(),
        };
        match solve(&next, s, work) {
            Ok(s) => prev = Some(std::mem::replace(&mut sol, s)),
            Err(e) if retryable(&e) => {
                factor = factor.sqrt();
                if factor < CONTINUATION_MIN_FACTOR {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Continued {
        solution: sol,
        softest,
    })
}

/// Coarsening of the nested start: Newton on the mesh coarsened this many times in `s` and
/// `t` (the same sideways Courant number) from the rigid rope, then on `mesh` from that
/// solution (cubic interpolation, [`SpaceTimeSolution::field_at_cubic`]); where the coarse
/// mesh needed the stiffness continuation, the fine one starts from the coarse solution of the
/// softest rope and repeats the continuation from there (the nodal stretch of a stiff rope's
/// space-time solution holds `O(ht²)` of the elements' rotation over a time step, more than
/// its strain: a start from another time step is far off in tension).
pub const START_COARSENING: usize = 4;

/// Newton from the rigid-rope start, nested through the coarse mesh where it has at least 4
/// elements each way ([`START_COARSENING`]), each solve continued in the axial stiffness where
/// Newton fails ([`solve_continued`]). Returns the work of the continuation on both meshes.
fn solve_nested(
    model: &StringModel,
    mesh: &SpaceTimeMesh,
    path: &dyn TipTrajectory,
    settings: &NewtonSettings,
) -> Result<(SpaceTimeSolution<StringModel>, Continuation), CraneError> {
    let k = START_COARSENING;
    // ⌈n_s/k⌉ and ⌊n_t/k⌋: the coarse sideways Courant number is at most the fine one
    let coarse = (mesh.elements_s >= 4 * k && mesh.elements_t >= 4 * k).then(|| SpaceTimeMesh {
        elements_s: mesh.elements_s.div_ceil(k),
        elements_t: mesh.elements_t / k,
        ..*mesh
    });
    let started = std::time::Instant::now();
    let mut work = Continuation::default();
    let (start, how) = match coarse {
        Some(c) => match solve_continued(model, &c, path, settings, None, false, &mut work) {
            Ok(run) => (
                Some(run.softest.unwrap_or(run.solution)),
                NewtonStart::Nested,
            ),
            // the coarse mesh may fail where the fine one does not: start from the rope
            Err(_) => (None, NewtonStart::Rigid),
        },
        None => (None, NewtonStart::Rigid),
    };
    let start_seconds = started.elapsed().as_secs_f64();
    let mut solution =
        solve_continued(model, mesh, path, settings, start, true, &mut work)?.solution;
    solution.newton.start = how;
    solution.newton.start_seconds = start_seconds;
    Ok((solution, work))
}
