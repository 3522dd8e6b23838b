//! One entry point for the inverse methods that produce a space-time solution: the space-time
//! finite element method ([`super::solver`], the default) and the method of characteristics
//! ([`super::characteristics_solver`]). The sequential baseline ([`super::sequential`]) is
//! not among them: it computes no field on a space-time grid and breaks down on the
//! problems of interest (see its docs).

use super::characteristics_solver::{
    CharacteristicsSettings, MarchReport, check_mesh, check_pre_actuation, solve_characteristics,
};
use super::solver::{
    BeamModel, InverseError, NewtonSettings, NewtonStart, SpaceTimeMesh, SpaceTimeSolution,
    solve_inverse, solve_inverse_from,
};
use super::trajectory::{TipTrajectory, TrajectoryError};
use std::time::Instant;

/// How the inverse problem is solved (`method` in a beam-inverse scenario).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum InverseMethod {
    /// Space-time finite elements, `[I]` Eq. 31-34 (all unknowns in one Newton system).
    #[default]
    #[serde(rename = "space-time")]
    SpaceTime,
    /// Method of characteristics, `[I]` Eq. 22-30 (sideways march from the tip).
    #[serde(rename = "characteristics")]
    Characteristics,
}

impl InverseMethod {
    /// All methods, in the order of reports.
    pub const ALL: [Self; 2] = [Self::SpaceTime, Self::Characteristics];

    /// The scenario spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::SpaceTime => "space-time",
            Self::Characteristics => "characteristics",
        }
    }

    /// One line for reports.
    pub fn description(self) -> &'static str {
        match self {
            Self::SpaceTime => "space-time finite elements ([I] Eq. 31-34), one Newton system",
            Self::Characteristics => {
                "method of characteristics ([I] Eq. 22-30), sideways march from the tip"
            }
        }
    }

    /// Checks that only this method makes, before solving: the sideways CFL condition of the
    /// space-time FEM, or the mesh counts and the pre-actuation room of the characteristics.
    pub fn check(
        self,
        beam: &BeamModel,
        mesh: &SpaceTimeMesh,
        trajectory: &dyn TipTrajectory,
    ) -> Result<(), InverseError> {
        match self {
            Self::SpaceTime => {
                super::mesh_ratio::check(
                    &beam.section,
                    beam.law,
                    beam.length,
                    mesh.t_end - mesh.t_start,
                    mesh.elements_s,
                    mesh.elements_t,
                )?;
                Ok(())
            }
            Self::Characteristics => {
                check_mesh(mesh)?;
                check_pre_actuation(beam, mesh.t_start, trajectory)
                    .map_err(|e: TrajectoryError| e.into())
            }
        }
    }
}

/// A solved inverse problem and how it was solved.
#[derive(Clone, Debug)]
pub struct MethodRun {
    /// The method.
    pub method: InverseMethod,
    /// Grid solution (`newton` holds the Newton history of the space-time FEM; for the
    /// characteristics see `march`).
    pub solution: SpaceTimeSolution,
    /// March statistics of the method of characteristics.
    pub march: Option<MarchReport>,
    /// Wall time of the solve (s).
    pub seconds: f64,
}

/// Solves with `method`: [`solve_inverse`] (with `newton`) or [`solve_characteristics`]
/// (default settings).
pub fn solve_with(
    method: InverseMethod,
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    newton: &NewtonSettings,
) -> Result<MethodRun, InverseError> {
    let started = Instant::now();
    let (solution, march) = match method {
        InverseMethod::SpaceTime => (solve_space_time(beam, mesh, trajectory, newton)?, None),
        InverseMethod::Characteristics => {
            let c =
                solve_characteristics(beam, mesh, trajectory, &CharacteristicsSettings::default())?;
            (c.solution, Some(c.report))
        }
    };
    Ok(MethodRun {
        method,
        solution,
        march,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Coarsening of the mesh on which the method of characteristics computes the Newton start of
/// [`solve_space_time`] (in `s` and in `t`).
pub const START_COARSENING: usize = 4;

/// Fixed-point tolerance of the characteristics' march for the Newton start (the method's
/// own default is 1e-13): the start only needs to be close to the FEM solution, whose
/// distance to it is `O(h²)`; 1e-8 changes the first residual in its fifth digit and saves a
/// third of the march (2.7 instead of 4.2 fixed-point iterations per node on Example 3.2).
pub const START_TOLERANCE: f64 = 1e-8;

/// The space-time FEM ([`solve_inverse`]) with Newton started from the method of
/// characteristics on the mesh coarsened [`START_COARSENING`] times in `s` and `t`, cubically
/// interpolated ([`solve_inverse_from`]): on `[I]` Example 3.2 this takes 2 Newton iterations
/// (1 at 256 × 1536, 3 at 20 × 120) instead of 5 from rest, and the march on a sixteenth of
/// the nodes costs a fraction of one iteration (docs/verification.md §11). Where the
/// characteristics cannot march the problem (e.g. the tip moves before `L/c_min`), or Newton
/// fails from their solution, Newton starts from the beam moved rigidly with the tip
/// ([`rigid_start`]), and where that fails too, from rest; the history's `start` says which.
/// The result is the FEM solution either way (to the Newton tolerance).
///
/// Why the rigid start (issue 29, a steel tube `EA = 2.1e9 N` on 16 × 96 elements): from
/// rest, the first correction linearises the rotation of the arm about its base, which
/// stretches the beam by `O(φ²)` (φ the angle turned): with a stiff section the iterates carry
/// axial forces of `10⁷–10¹⁷ N` against inertial forces of `10² N`, and Newton does not
/// recover in 30 iterations (relative residual of the momentum rows 0.7–1.0 throughout); the
/// characteristics' march on the coarse mesh fails for the same beam. The rigid motion has
/// no strain: the residual is the unbalanced inertia, whose correction (strains of
/// `10⁻⁷`) is well inside the range of the linearisation (3 iterations).
pub fn solve_space_time(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    newton: &NewtonSettings,
) -> Result<SpaceTimeSolution, InverseError> {
    // a mesh the FEM rejects is reported as such, before any march
    InverseMethod::SpaceTime.check(beam, mesh, trajectory)?;
    let started = Instant::now();
    let coarse = SpaceTimeMesh {
        elements_s: (mesh.elements_s / START_COARSENING).max(1),
        elements_t: (mesh.elements_t / START_COARSENING).max(3),
        ..*mesh
    };
    let settings = CharacteristicsSettings {
        tolerance: START_TOLERANCE,
        ..CharacteristicsSettings::default()
    };
    if let Ok(chars) = solve_characteristics(beam, &coarse, trajectory, &settings) {
        let march_seconds = chars.report.seconds;
        if let Some(mut sol) = started_from(beam, mesh, trajectory, newton, chars.solution)? {
            sol.newton.start = NewtonStart::Characteristics;
            sol.newton.start_seconds = march_seconds;
            return Ok(sol);
        }
    }
    let rigid = rigid_start(beam, mesh, trajectory);
    if let Some(mut sol) = started_from(beam, mesh, trajectory, newton, rigid)? {
        sol.newton.start = NewtonStart::RigidBeam;
        sol.newton.start_seconds = started.elapsed().as_secs_f64();
        return Ok(sol);
    }
    let attempt = started.elapsed().as_secs_f64();
    let mut sol = solve_inverse(beam, mesh, trajectory, newton)?;
    sol.newton.start_seconds = attempt;
    Ok(sol)
}

/// [`solve_inverse_from`], with a failure of Newton (not of the data) as `None`.
fn started_from(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    newton: &NewtonSettings,
    start: SpaceTimeSolution,
) -> Result<Option<SpaceTimeSolution>, InverseError> {
    match solve_inverse_from(beam, mesh, trajectory, newton, start) {
        Ok(sol) => Ok(Some(sol)),
        Err(
            InverseError::NewtonFailed { .. }
            | InverseError::Newton(_)
            | InverseError::Element { .. },
        ) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A Newton start for the space-time FEM: the beam moved rigidly with the tip, on the grid of
/// `mesh`. With the tip pose `γ(t) = (γ₁, γ₂, γ_θ)` and `e(θ) = (cos θ, sin θ)` the straight
/// beam's axis at angle `θ`,
///
/// ```text
/// x(s, t) = (γ₁₂(t) − (L − s) e(γ_θ(t)),  γ_θ(t)),
/// v(s, t) = ∂t x = (γ̇₁₂ − (L − s) γ̇_θ e⊥(γ_θ),  γ̇_θ),     e⊥(θ) = (−sin θ, cos θ),
/// ```
///
/// and no actuation (the rigid motion carries no stress; `F` enters the equations linearly,
/// and the first Newton correction sets it). This is the limit of an inextensible, rigid beam
/// (`EA, GA, EI → ∞`): for a stiff section the solution differs from it by elastic strains of
/// the order of the inertial forces over the stiffness. At `t_start` it is the beam's initial
/// pose, since `γ(t_start)` is the tip's initial pose ([`solve_inverse`] checks it).
pub fn rigid_start(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
) -> SpaceTimeSolution {
    let (ns, nt) = (mesh.elements_s, mesh.elements_t);
    let hs = beam.length / ns as f64;
    let t: Vec<f64> = (0..=nt)
        .map(|j| mesh.t_start + j as f64 * mesh.ht())
        .collect();
    let nodes = crate::resources::reserve(ns + 1, nt + 1);
    let (mut x, mut v) = (Vec::with_capacity(nodes), Vec::with_capacity(nodes));
    for &tj in &t {
        let g = trajectory.pose(tj);
        let gd = trajectory.velocity(tj);
        let (sn, cs) = g[2].sin_cos();
        for i in 0..=ns {
            let d = beam.length - i as f64 * hs;
            x.push([g[0] - d * cs, g[1] - d * sn, g[2]]);
            v.push([gd[0] + d * gd[2] * sn, gd[1] - d * gd[2] * cs, gd[2]]);
        }
    }
    SpaceTimeSolution {
        beam: *beam,
        mesh: *mesh,
        s: (0..=ns).map(|i| i as f64 * hs).collect(),
        actuation: vec![[0.0; 3]; t.len()],
        t,
        x,
        v,
        newton: Default::default(),
    }
}
