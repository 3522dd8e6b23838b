//! Global space-time assembly, Newton iteration and sparse LU for the planar beam, in inverse
//! mode (`[I]` Eq. 33-34: unknown actuation at `s = 0`, servo constraint at `s = L`) and in
//! forward mode (given actuation, no servo constraint).
//!
//! # Weak form assembled here
//! Element terms ([`super::element`]) plus the boundary terms of `[I]` Eq. 32-34:
//!
//! ```text
//! R2 ⊃ − ∫_T w2(0, t) · F(t) dt                 actuation F applied to the beam at s = 0
//! R2 ⊃ + ∫_T w2(L, t) · M_tip ∂t v(L, t) dt     tip law h = −M_tip ∂t² x (free end: M_tip = 0)
//! R3 =   ∫_T w3(t) · (x(L, t) − γ(t)) dt         servo constraint, Eq. 34 (inverse mode)
//! ```
//!
//! `F = (f_x, f_y, m)` is the force and moment the actuator applies *to the beam* at `s = 0`,
//! in the global frame. In the notation of `[I]` Eq. 3, where `f = B ∂s x(0, t)` is the stress
//! resultant at `s = 0`, `F = −f`.
//!
//! # Discretisation
//! One bilinear element per space-time rectangle of a uniform `n_s × n_t` grid; `x`, `v` and `F`
//! are continuous and piecewise (bi)linear; the test functions are those of the trial spaces
//! that vanish at `t = 0` (`[I]` Eq. 34's `W1`, `W2`). Unknowns: `(x, v)` at every node with
//! `t > 0` (`2N` per node), and in inverse mode `F` at every time node `t > 0` (`N` per node);
//! equations: `R1`, `R2` per node with `t > 0`, and `R3` per time node `t > 0`: the system is
//! square. `F(t_0)` follows from the initial state.
//!
//! The whole space-time domain is one sparse system (block banded: each node couples with its
//! 8 neighbours), solved by Newton with the exact tangent. The sparsity pattern and the
//! symbolic LU are built once; each Newton iteration refills values through precomputed
//! positions (no search, no allocation) and refactorises numerically.
//!
//! # Files
//! * `mod.rs`: the public types and entry points ([`solve_inverse`], [`solve_forward`], …);
//! * `numbering`: global numbering of the unknowns and equations;
//! * `assembly`: residual and Jacobian of the whole space-time domain (parallel element terms,
//!   boundary terms), Newton starts;
//! * `linear`: the linear stages of a Newton step (sparse LU, sideways elimination);
//! * `newton`: the Newton iteration;
//! * `solution`: the discrete solution on the grid and what is derived from it.

mod assembly;
mod linear;
mod newton;
mod numbering;
mod solution;

pub use assembly::ActuationFn;
pub use solution::{SpaceTimeSolution, interpolate};

use super::element::ElementError;
use super::mesh_ratio::{self, MeshRatioError};
use super::trajectory::{Planar, ServoPath, TipTrajectory};
use crate::beam::section::{ConstitutiveLaw, SectionProperties};
use crate::error::{InputError, SolveError};
use crate::inverse::body::InverseBody;
use crate::inverse::sideways::Sideways;
use crate::solve::newton::NewtonParams;
use assembly::{Assembly, Mode};
use linear::{CscStage, inverse_stage};
use newton::{WithVelocity, newton_generic, newton_sideways, newton_v};

/// What the tip at `s = L` obeys besides the servo constraint: `B ∂s x = h`, `[I]` Eq. 4.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize)]
pub enum TipLaw {
    /// `h = 0`.
    #[default]
    Free,
    /// An end mass: `h = −diag(m, m, J) ∂t² x(L, t)`.
    Mass {
        /// Mass (kg).
        mass: f64,
        /// Rotary inertia about the tip (kg·m²).
        inertia: f64,
    },
}

/// The beam: straight stress-free reference of length `L`, section and law, tip law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BeamModel {
    /// Section data.
    pub section: SectionProperties,
    /// Stored energy.
    pub law: ConstitutiveLaw,
    /// Reference length `L` (m).
    pub length: f64,
    /// Tip law at `s = L`.
    pub tip: TipLaw,
    /// Initial (stress-free, at rest) placement: base point `(x, y)` and angle `θ0`.
    pub base: [f64; 3],
}

impl BeamModel {
    /// `[I]` Example 3.2: `EA = GA = EI = ρA = ρI = 1`, `L = 1`, along `e1` from the origin.
    pub fn example_3_2(law: ConstitutiveLaw) -> Self {
        Self {
            section: SectionProperties {
                rho_a: 1.0,
                rho_i: 1.0,
                ea: 1.0,
                ga: 1.0,
                ei: 1.0,
            },
            law,
            length: 1.0,
            tip: TipLaw::Free,
            base: [0.0; 3],
        }
    }

    /// The same beam as a forward model (`crate::beam`): `elements` elements of `order`,
    /// straight reference from the base, free at both ends (loads are added by the caller).
    pub fn forward_spec(&self, elements: usize, order: usize) -> crate::beam::model::BeamSpec {
        use crate::beam::model::{BeamSpec, EndCondition, ReferenceGeometry};
        let mut spec = BeamSpec::cantilever(self.length, self.section, elements, order);
        spec.law = self.law;
        spec.reference = ReferenceGeometry::Straight {
            start: [self.base[0], self.base[1]],
            angle: self.base[2],
        };
        spec.start = EndCondition::Free;
        spec.end = EndCondition::Free;
        spec
    }

    /// Pose `(x, y, θ)` of the reference point `s` at `t = 0`.
    pub fn initial_pose(&self, s: f64) -> [f64; 3] {
        let (sn, cs) = self.base[2].sin_cos();
        [self.base[0] + s * cs, self.base[1] + s * sn, self.base[2]]
    }

    /// Validates the data; `prefix` is the field path for messages.
    pub fn validate(&self, prefix: &str) -> Result<(), InputError> {
        self.section.validate(&format!("{prefix}.section"))?;
        if !(self.length.is_finite() && self.length > 0.0) {
            return Err(InputError::Invalid {
                field: format!("{prefix}.length"),
                message: format!("must be finite and > 0, got {}", self.length),
            });
        }
        if let TipLaw::Mass { mass, inertia } = self.tip
            && !(mass.is_finite() && mass >= 0.0 && inertia.is_finite() && inertia >= 0.0)
        {
            return Err(InputError::Invalid {
                field: format!("{prefix}.tip"),
                message: format!(
                    "tip mass and inertia must be finite and ≥ 0, got {mass} and {inertia}"
                ),
            });
        }
        Ok(())
    }
}

/// Uniform space-time grid on `[0, L] × [t_start, t_end]`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SpaceTimeMesh {
    /// Start time (s); the initial state holds here.
    pub t_start: f64,
    /// End time (s).
    pub t_end: f64,
    /// Elements along the beam.
    pub elements_s: usize,
    /// Elements in time.
    pub elements_t: usize,
}

impl SpaceTimeMesh {
    /// Mesh with `elements_s` space elements and the time step chosen by
    /// [`mesh_ratio::auto_elements_t`] (sideways Courant number 1, or just below).
    pub fn auto(beam: &BeamModel, t_start: f64, t_end: f64, elements_s: usize) -> Self {
        let elements_t = mesh_ratio::auto_elements_t(
            &beam.section,
            beam.law,
            beam.length,
            t_end - t_start,
            elements_s,
        );
        Self {
            t_start,
            t_end,
            elements_s,
            elements_t,
        }
    }

    /// Time step (s).
    pub fn ht(&self) -> f64 {
        (self.t_end - self.t_start) / self.elements_t as f64
    }
}

/// Linear solver of the inverse problem's Newton systems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinearSolverKind {
    /// Block elimination from the tip to the base, `O(n_s n_t)` ([`super::sideways`]).
    #[default]
    Sideways,
    /// faer's general sparse LU (COLAMD ordering): the reference, much slower on large meshes.
    SparseLu,
}

/// Settings of the space-time solves: the one Newton parameter type of stmech
/// ([`NewtonParams`]: relative `tolerance`, default `10⁻¹⁰`, and `max_iterations`, default
/// 30; `solve::newton`) and, separately, the linear solver of the Newton systems.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct NewtonSettings {
    /// Tolerance and iteration limit (`[newton]` of the scenario).
    pub newton: NewtonParams,
    /// Linear solver (inverse mode; forward mode always uses sparse LU).
    pub linear_solver: LinearSolverKind,
}

impl NewtonSettings {
    /// The default settings with the linear solver `linear_solver`.
    pub fn with_linear_solver(linear_solver: LinearSolverKind) -> Self {
        Self {
            linear_solver,
            ..Self::default()
        }
    }

    /// The default linear solver with the Newton parameters `newton`.
    pub fn with_newton(newton: NewtonParams) -> Self {
        Self {
            newton,
            ..Self::default()
        }
    }
}

/// Failures of the space-time inverse solvers (planar beam, rope).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InverseError {
    /// Invalid model or mesh data.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The mesh violates the sideways CFL condition.
    #[error(transparent)]
    MeshRatio(#[from] MeshRatioError),
    /// Unusable trajectory.
    #[error(transparent)]
    Trajectory(#[from] super::trajectory::TrajectoryError),
    /// The space-time Newton solve did not converge ([`SolveError::NewtonDiverged`] with the
    /// body's stage: its remedy, or the round-off floor and a `newton.tolerance` that passes).
    #[error(transparent)]
    Newton(SolveError),
    /// A fixed-point iteration of the method of characteristics did not converge.
    #[error(
        "the method of characteristics did not converge in {iterations} iterations: change \
         {residual:.3e} > tolerance {tolerance:.1e} ({history_text}). Remedy: check that the \
         trajectory is reachable (a beam cannot stretch or bend arbitrarily, a rope can only \
         pull), slow the manoeuvre down, or refine the mesh"
    )]
    NewtonFailed {
        /// Iterations done.
        iterations: usize,
        /// Last residual (largest entry).
        residual: f64,
        /// Tolerance.
        tolerance: f64,
        /// Residual history.
        history: Vec<f64>,
        /// The history as text.
        history_text: String,
    },
    /// A Newton step compressed an element to zero length even after step halving.
    #[error(
        "Newton failed at iteration {iteration}: {source}; even a step shortened 256× \
         inverts an element of the beam or rope. Remedy: slow the manoeuvre down or refine \
         the mesh"
    )]
    Element {
        /// Iteration.
        iteration: usize,
        /// The element failure.
        source: ElementError,
    },
    /// The sparse factorisation failed.
    #[error(transparent)]
    Linear(#[from] SolveError),
}

impl InverseError {
    /// The residual history of a Newton (or fixed-point) iteration that did not converge.
    pub fn newton_history(&self) -> Option<&[f64]> {
        match self {
            Self::NewtonFailed { history, .. } => Some(history),
            Self::Newton(SolveError::NewtonDiverged { history, .. }) => Some(history),
            _ => None,
        }
    }
}

/// Newton history of a solve.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct NewtonHistory {
    /// Iterations (linear solves).
    pub iterations: usize,
    /// Relative residual above the round-off floor (`solve::newton::measure`) before each
    /// iteration and after the last.
    pub residuals: Vec<f64>,
    /// Whether Newton stopped at the round-off floor above the tolerance.
    pub at_floor: bool,
    /// Relative round-off floor at the last iterate.
    pub residual_floor: f64,
    /// Relative residual at the last iterate (above the tolerance only at the floor).
    pub final_relative: f64,
    /// Step halvings of the line search.
    pub halvings: usize,
    /// Unknowns.
    pub unknowns: usize,
    /// Stored Jacobian entries.
    pub nonzeros: usize,
    /// Seconds in assembly.
    pub assembly_seconds: f64,
    /// Seconds in the linear solves (factorisations and substitutions).
    pub linear_seconds: f64,
    /// The linear solver used.
    pub linear_solver: LinearSolverKind,
    /// Largest `max |J du − r| / max |r|` of the linear solves (sideways elimination; 0 for
    /// sparse LU, which does not report it).
    pub linear_residual: f64,
    /// Residual-only passes of the streamed sideways solve: convergence checks made where the
    /// residual was predicted to be below the tolerance (no update solved for).
    pub residual_checks: usize,
    /// Where Newton started.
    pub start: NewtonStart,
    /// Seconds spent computing the start (e.g. the characteristics' march), not in the
    /// times above.
    pub start_seconds: f64,
}

/// The first Newton iterate of the space-time FEM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum NewtonStart {
    /// The initial state at every time node, `F = F(t_start)`.
    #[default]
    #[serde(rename = "rest")]
    Rest,
    /// The method of characteristics on the mesh coarsened in `s` and `t`
    /// ([`solve_space_time`](super::methods::solve_space_time)).
    #[serde(rename = "characteristics")]
    Characteristics,
    /// A solution given to [`solve_inverse_from`].
    #[serde(rename = "given solution")]
    Given,
    /// The rigid-rope solution of the crane ([`crate::inverse::crane`]).
    #[serde(rename = "rigid rope")]
    Rigid,
    /// The crane's solution on the coarsened mesh, itself started from the rigid rope.
    #[serde(rename = "coarse mesh")]
    Nested,
    /// The planar beam moved rigidly with the tip
    /// ([`rigid_start`](super::methods::rigid_start)): the limit of a stiff beam.
    #[serde(rename = "rigid beam")]
    RigidBeam,
}

impl NewtonStart {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rest => "rest",
            Self::Characteristics => "characteristics",
            Self::Given => "given solution",
            Self::Rigid => "rigid rope",
            Self::Nested => "coarse mesh (from the rigid rope)",
            Self::RigidBeam => "rigid beam (moved with the tip)",
        }
    }
}

pub(crate) fn validate_mesh(mesh: &SpaceTimeMesh) -> Result<(), InverseError> {
    let bad = |field: &str, message: String| {
        Err(InverseError::Input(InputError::Invalid {
            field: field.into(),
            message,
        }))
    };
    if !(mesh.t_start.is_finite() && mesh.t_end.is_finite() && mesh.t_end > mesh.t_start) {
        return bad(
            "time",
            format!(
                "needs finite start < end, got [{}, {}]",
                mesh.t_start, mesh.t_end
            ),
        );
    }
    if mesh.elements_s == 0 || mesh.elements_t == 0 {
        return bad(
            "mesh",
            "needs at least one element in space and in time".into(),
        );
    }
    Ok(())
}

/// Solves the inverse problem `[I]` Eq. 1-5 by the space-time FEM of Eq. 31-34 for the planar
/// beam: the actuation at `s = 0` and the motion such that `x(L, t) = γ(t)`.
///
/// Checks, before any solve: the beam data, the mesh-ratio condition
/// ([`mesh_ratio::check`]), and that `γ` starts at the tip's initial pose.
pub fn solve_inverse(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution, InverseError> {
    check_inverse(beam, mesh, trajectory)?;
    solve_inverse_unchecked(beam, mesh, trajectory, settings)
}

/// [`solve_inverse`] with Newton started from `start` instead of the rest state (consumed: it
/// is dropped once the first iterate is built, before the Newton system is): a solution
/// of the same problem on this mesh or on another mesh of the same domain (the method of
/// characteristics on the same mesh, or the space-time FEM on a coarser one, nested
/// iteration). `x` and `v` are interpolated to the nodes by tensor-product cubics
/// ([`SpaceTimeSolution::field_at_cubic`]; bilinear interpolation leaves kinks whose second
/// differences the residual sees: 60× larger first residual on Example 3.2 from the half
/// mesh), `F` by cubics in time. The converged solution is that of [`solve_inverse`] to the
/// Newton tolerance; only the iterations differ.
pub fn solve_inverse_from(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    settings: &NewtonSettings,
    start: SpaceTimeSolution,
) -> Result<SpaceTimeSolution, InverseError> {
    check_inverse(beam, mesh, trajectory)?;
    solve_inverse_started(beam, mesh, &Planar(trajectory), settings, Some(start))
}

/// The checks of [`solve_inverse`].
fn check_inverse(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
) -> Result<(), InverseError> {
    beam.validate("beam")?;
    validate_mesh(mesh)?;
    mesh_ratio::check(
        &beam.section,
        beam.law,
        beam.length,
        mesh.t_end - mesh.t_start,
        mesh.elements_s,
        mesh.elements_t,
    )?;
    let tip0 = beam.initial_pose(beam.length);
    let g0 = trajectory.pose(mesh.t_start);
    let dev = (0..3).fold(0.0f64, |m, c| m.max((g0[c] - tip0[c]).abs()));
    if dev > 1e-9 * (1.0 + beam.length) {
        return Err(super::trajectory::TrajectoryError::Data {
            path: format!("{trajectory:?}").chars().take(60).collect(),
            message: format!(
                "γ(t_start) = {g0:?} is not the tip's initial pose {tip0:?}; the servo \
                 constraint would demand a jump"
            ),
        }
        .into());
    }
    Ok(())
}

/// [`solve_inverse`] without the mesh-ratio and start-pose checks (for studies of the
/// condition itself; a mesh violating it gives a wrong actuation, not an error).
pub fn solve_inverse_unchecked(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution, InverseError> {
    solve_inverse_started(beam, mesh, &Planar(trajectory), settings, None)
}

/// The space-time FEM for any [`InverseBody`] (the beam's and the string's solvers call it
/// after their own checks), Newton started from the rest state or from `start`.
pub(crate) fn solve_inverse_started<B: InverseBody<N>, const N: usize>(
    beam: &B,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn ServoPath<N>,
    settings: &NewtonSettings,
    start: Option<SpaceTimeSolution<B, N>>,
) -> Result<SpaceTimeSolution<B, N>, InverseError> {
    solve_inverse_held(beam, mesh, trajectory, settings, start, [false; N])
}

/// [`solve_inverse_started`] with the components `hold` of `x` held at their rest values at
/// the base instead of prescribed at the tip (the servo rows become `∫ N_j (x_c(0, t) − x0_c)`;
/// the actuation's component `c` is then the reaction). The tip no longer carries complete
/// Cauchy data, so the sideways elimination cannot march: such problems are solved by the
/// sparse LU, whatever `settings.linear_solver` says.
pub(crate) fn solve_inverse_held<B: InverseBody<N>, const N: usize>(
    beam: &B,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn ServoPath<N>,
    settings: &NewtonSettings,
    start: Option<SpaceTimeSolution<B, N>>,
    hold: [bool; N],
) -> Result<SpaceTimeSolution<B, N>, InverseError> {
    validate_mesh(mesh)?;
    let mut asm = Assembly::new(*beam, *mesh, Mode::Inverse(trajectory))?;
    asm.hold = hold;
    let settings = &NewtonSettings {
        linear_solver: if hold.iter().any(|&h| h) {
            LinearSolverKind::SparseLu
        } else {
            settings.linear_solver
        },
        ..*settings
    };
    let given = start.is_some();
    let mut sol = match settings.linear_solver {
        LinearSolverKind::Sideways => {
            let mut sw = Sideways::new(asm.sideways_problem());
            // the start is dropped here, before the Newton vectors are allocated
            let guess = match start {
                Some(start) => asm.guess_from_in(&start, &sw),
                None => asm.initial_guess_in(&sw),
            };
            let (u, hist) = newton_sideways(&mut sw, settings, guess, asm.ns1(), mesh.elements_t)?;
            asm.solution_in(&u, &sw, hist)
        }
        LinearSolverKind::SparseLu => {
            // the start is dropped here, before the linear solver's storage is allocated
            let guess = match start {
                Some(start) => asm.guess_from(&start),
                None => asm.initial_guess(),
            };
            let mut stage = inverse_stage(&asm)?;
            let groups = newton::unknown_groups::<B, N>(&asm.layout(), asm.ns1(), mesh.elements_t);
            let (u, hist) = newton_generic(&asm, &mut stage, settings, guess, groups, B::STAGE)?;
            asm.solution(&u, hist)
        }
    };
    if given {
        sol.newton.start = NewtonStart::Given;
    }
    Ok(sol)
}

/// Forward mode for any [`InverseBody`] (the string of [`crate::string`] too): the same
/// space-time system as the inverse solver, on the whole domain at once, with the actuation
/// `F(t)` at `s = 0` given (4-point Gauss per time element) instead of the servo constraint;
/// Newton (sparse LU) from the body's initial state at every time node, or from `start`
/// (interpolated like [`solve_inverse_from`]). With `F` the piecewise-linear interpolant of an
/// inverse solution's nodal actuation, the inverse solution satisfies every equation of this
/// system: the forward solve on the same mesh gives it back to the Newton tolerance.
pub fn solve_forward_body<B: InverseBody<N>, const N: usize>(
    body: &B,
    mesh: &SpaceTimeMesh,
    actuation: ActuationFn<'_, N>,
    settings: &NewtonSettings,
    start: Option<&SpaceTimeSolution<B, N>>,
) -> Result<SpaceTimeSolution<B, N>, InverseError> {
    validate_mesh(mesh)?;
    let asm = Assembly::new(*body, *mesh, Mode::Forward(actuation))?;
    // Forward mode has no servo rows to start a sideways march: general sparse LU.
    let mut stage = CscStage::new(&asm)?;
    let guess = match start {
        Some(s) => asm.guess_from(s),
        None => asm.initial_guess(),
    };
    let groups = newton::unknown_groups::<B, N>(&asm.layout(), asm.ns1(), mesh.elements_t);
    let (u, hist) = newton_generic(&asm, &mut stage, settings, guess, groups, B::STAGE)?;
    let mut sol = asm.solution(&u, hist);
    if start.is_some() {
        sol.newton.start = NewtonStart::Given;
    }
    Ok(sol)
}

/// Forward mode of the same element: given actuation `F(t)` at `s = 0` (applied to the beam,
/// global frame; `|_| [0.0; 3]` for a free end), tip law at `s = L`, initial state of `beam`
/// (stress-free, at rest) or, if `initial` is given, nodal `(x, v)` at `t_start`.
pub fn solve_forward(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    actuation: ActuationFn<'_>,
    initial: Option<&[[f64; 6]]>,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution, InverseError> {
    beam.validate("beam")?;
    let Some(init) = initial else {
        return solve_forward_body(beam, mesh, actuation, settings, None);
    };
    validate_mesh(mesh)?;
    if init.len() != mesh.elements_s + 1 {
        return Err(InputError::Invalid {
            field: "initial".into(),
            message: format!(
                "needs {} nodal states, got {}",
                mesh.elements_s + 1,
                init.len()
            ),
        }
        .into());
    }
    let mut asm = Assembly::new(*beam, *mesh, Mode::Forward(actuation))?;
    // Forward mode has no servo rows to start a sideways march: general sparse LU.
    let mut stage = CscStage::new(&asm)?;
    asm.x0 = init.iter().map(|s| [s[0], s[1], s[2]]).collect();
    let v0 = init.iter().map(|s| [s[3], s[4], s[5]]).collect::<Vec<_>>();
    let asm = WithVelocity { inner: asm, v0 };
    let (u, hist) = newton_v(&asm, &mut stage, settings)?;
    let mut sol = asm.inner.solution(&u, hist);
    sol.v[..mesh.elements_s + 1].copy_from_slice(&asm.v0);
    Ok(sol)
}
