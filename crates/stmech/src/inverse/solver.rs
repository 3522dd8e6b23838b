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
//! `t > 0` (6 per node), and in inverse mode `F` at every time node `t > 0` (3 per node);
//! equations: `R1`, `R2` per node with `t > 0`, and `R3` per time node `t > 0`: the system is
//! square. `F(t_0)` follows from the initial state.
//!
//! The whole space-time domain is one sparse system (block banded: each node couples with its
//! 8 neighbours), solved by Newton with the exact tangent. The sparsity pattern and the
//! symbolic LU are built once; each Newton iteration refills values through precomputed
//! positions (no search, no allocation) and refactorises numerically.

use super::element::{BeamSpaceTimeElement, ElementError, N_DOF, SpaceTimeElement};
use super::mesh_ratio::{self, MeshRatio, MeshRatioError};
use super::sideways::SidewaysSolver;
use super::trajectory::TipTrajectory;
use crate::basis::GaussLegendre;
use crate::beam::section::{ConstitutiveLaw, ReferenceStrains, SectionProperties, strains};
use crate::discretize::pattern::{CscPattern, SKIP};
use crate::error::{InputError, SolveError};
use crate::solve::linear::SparseLu;
use rayon::prelude::*;
use std::time::Instant;

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

/// Newton settings.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct NewtonSettings {
    /// Tolerance on the largest residual entry.
    pub tolerance: f64,
    /// Iteration limit.
    pub max_iterations: usize,
    /// Linear solver (inverse mode; forward mode always uses sparse LU).
    pub linear_solver: LinearSolverKind,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 30,
            linear_solver: LinearSolverKind::default(),
        }
    }
}

/// Failures of the space-time beam solvers.
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
    /// Newton did not reach the tolerance.
    #[error(
        "Newton did not converge in {iterations} iterations: residual {residual:.3e} > tolerance \
         {tolerance:.1e} (history: {history_text}). Remedy: check that the trajectory is \
         reachable (a beam cannot stretch or bend arbitrarily), slow the manoeuvre down, refine \
         the mesh at the same ratio (mesh.resolution), or raise newton.max_iterations"
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
        "Newton failed at iteration {iteration}: {source}; even a step shortened 32× \
         inverts the beam. Remedy: slow the manoeuvre down or refine the mesh"
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

/// Newton history of a solve.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct NewtonHistory {
    /// Iterations (linear solves).
    pub iterations: usize,
    /// Largest residual entry before each iteration and after the last.
    pub residuals: Vec<f64>,
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
    /// The method of characteristics on the mesh halved in `s` and `t`
    /// ([`solve_space_time`](super::methods::solve_space_time)).
    #[serde(rename = "characteristics")]
    Characteristics,
    /// A solution given to [`solve_inverse_from`].
    #[serde(rename = "given solution")]
    Given,
}

impl NewtonStart {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rest => "rest",
            Self::Characteristics => "characteristics",
            Self::Given => "given solution",
        }
    }
}

/// The discrete space-time solution on the grid.
#[derive(Clone, Debug)]
pub struct SpaceTimeSolution {
    /// The model solved.
    pub beam: BeamModel,
    /// The mesh.
    pub mesh: SpaceTimeMesh,
    /// Space nodes `s_i` (m).
    pub s: Vec<f64>,
    /// Time nodes `t_j` (s).
    pub t: Vec<f64>,
    /// `x = (r1, r2, θ)` at node `(i, j)`, index `j (n_s + 1) + i`.
    pub x: Vec<[f64; 3]>,
    /// `v = ∂t x` at node `(i, j)` (the Galerkin velocity field).
    pub v: Vec<[f64; 3]>,
    /// Actuation `F = (f_x, f_y, m)` applied to the beam at `s = 0` per time node (N, N, N·m),
    /// global frame (`F = −f` of `[I]` Eq. 3).
    pub actuation: Vec<[f64; 3]>,
    /// Newton history.
    pub newton: NewtonHistory,
}

impl SpaceTimeSolution {
    /// `x` at space node `i`, time node `j`.
    pub fn x_at(&self, i: usize, j: usize) -> [f64; 3] {
        self.x[j * (self.mesh.elements_s + 1) + i]
    }

    /// `v` at space node `i`, time node `j`.
    pub fn v_at(&self, i: usize, j: usize) -> [f64; 3] {
        self.v[j * (self.mesh.elements_s + 1) + i]
    }

    /// `(x, v)` at `(s, t)`, bilinear in the element that contains it (the nearest one
    /// outside the domain).
    pub fn field_at(&self, s: f64, t: f64) -> ([f64; 3], [f64; 3]) {
        let cell = |z: f64, z0: f64, h: f64, n: usize| {
            let k = (((z - z0) / h).floor().max(0.0) as usize).min(n - 1);
            (k, ((z - z0 - k as f64 * h) / h).clamp(0.0, 1.0))
        };
        let (i, a) = cell(s, 0.0, self.hs(), self.mesh.elements_s);
        let (j, b) = cell(t, self.mesh.t_start, self.mesh.ht(), self.mesh.elements_t);
        let w = [(1.0 - a) * (1.0 - b), a * (1.0 - b), (1.0 - a) * b, a * b];
        let nodes = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)];
        let (mut x, mut v) = ([0.0; 3], [0.0; 3]);
        for (&(ii, jj), &wk) in nodes.iter().zip(&w) {
            let (xn, vn) = (self.x_at(ii, jj), self.v_at(ii, jj));
            for c in 0..3 {
                x[c] += wk * xn[c];
                v[c] += wk * vn[c];
            }
        }
        (x, v)
    }

    /// Tip pose `x(L, t_j)`.
    pub fn tip(&self, j: usize) -> [f64; 3] {
        self.x_at(self.mesh.elements_s, j)
    }

    /// The actuation as a function of time: the piecewise linear finite element interpolant
    /// (constant outside the time domain). This is what a forward solver should apply.
    pub fn actuation_at(&self, t: f64) -> [f64; 3] {
        interpolate(&self.t, &self.actuation, t)
    }

    /// `(t_j, F_j)` samples of the actuation.
    pub fn actuation_samples(&self) -> Vec<(f64, [f64; 3])> {
        self.t
            .iter()
            .copied()
            .zip(self.actuation.iter().copied())
            .collect()
    }

    /// Total energy (kinetic + strain, plus tip kinetic energy) at time node `j` (J):
    /// `½ ∫ v·A v ds` exactly for the linear `v`, strain energy with the element's one-point
    /// rule.
    pub fn energy(&self, j: usize) -> f64 {
        let el =
            BeamSpaceTimeElement::new(self.beam.section, self.beam.law, self.hs(), self.mesh.ht());
        let a = [
            self.beam.section.rho_a,
            self.beam.section.rho_a,
            self.beam.section.rho_i,
        ];
        let hs = self.hs();
        let mut e = 0.0;
        for i in 0..self.mesh.elements_s {
            let (va, vb) = (self.v_at(i, j), self.v_at(i + 1, j));
            for c in 0..3 {
                e += 0.5 * a[c] * hs / 3.0 * (va[c] * va[c] + va[c] * vb[c] + vb[c] * vb[c]);
            }
            e += el.strain_energy(hs, self.x_at(i, j), self.x_at(i + 1, j));
        }
        if let TipLaw::Mass { mass, inertia } = self.beam.tip {
            let v = self.v_at(self.mesh.elements_s, j);
            e += 0.5 * (mass * (v[0] * v[0] + v[1] * v[1]) + inertia * v[2] * v[2]);
        }
        e
    }

    /// The beam at time node `j` for VTK output: node poses and the section forces
    /// `[N, Q, M]` of each element at its midpoint (the stiffness quadrature point).
    pub fn snapshot(&self, j: usize) -> crate::io::vtk::BeamSnapshot {
        let ns1 = self.mesh.elements_s + 1;
        let hs = self.hs();
        let resultants = (0..self.mesh.elements_s)
            .map(|i| {
                let (a, b) = (self.x_at(i, j), self.x_at(i + 1, j));
                let e = strains(
                    [(b[0] - a[0]) / hs, (b[1] - a[1]) / hs],
                    0.5 * (a[2] + b[2]),
                    (b[2] - a[2]) / hs,
                );
                let r = self
                    .beam
                    .law
                    .resultants(&self.beam.section, e, ReferenceStrains::STRAIGHT);
                [r.axial, r.shear, r.moment]
            })
            .collect();
        crate::io::vtk::BeamSnapshot {
            t: self.t[j],
            positions: (0..ns1)
                .map(|i| [self.x_at(i, j)[0], self.x_at(i, j)[1]])
                .collect(),
            theta: (0..ns1).map(|i| self.x_at(i, j)[2]).collect(),
            s: self.s.clone(),
            resultants,
        }
    }

    /// Space step (m).
    pub fn hs(&self) -> f64 {
        self.beam.length / self.mesh.elements_s as f64
    }

    /// Largest stretch `ν` over all elements and time nodes.
    pub fn max_stretch(&self) -> f64 {
        let hs = self.hs();
        let mut m = f64::NEG_INFINITY;
        for j in 0..self.t.len() {
            for i in 0..self.mesh.elements_s {
                let (a, b) = (self.x_at(i, j), self.x_at(i + 1, j));
                let e = strains(
                    [(b[0] - a[0]) / hs, (b[1] - a[1]) / hs],
                    0.5 * (a[2] + b[2]),
                    (b[2] - a[2]) / hs,
                );
                m = m.max(e.nu);
            }
        }
        m
    }

    /// The mesh-ratio condition re-evaluated at the largest stretch of the solution (the log
    /// law's axial wave slows down under tension).
    pub fn mesh_ratio_at_solution(&self) -> MeshRatio {
        MeshRatio::evaluate(
            &self.beam.section,
            self.beam.law,
            self.max_stretch().max(1.0),
            self.hs(),
            self.mesh.ht(),
        )
    }
}

/// Piecewise linear interpolation of `y` over increasing `t`, constant outside.
pub fn interpolate(t: &[f64], y: &[[f64; 3]], at: f64) -> [f64; 3] {
    let n = t.len();
    if at <= t[0] {
        return y[0];
    }
    if at >= t[n - 1] {
        return y[n - 1];
    }
    let k = t.partition_point(|&x| x <= at) - 1;
    let w = (at - t[k]) / (t[k + 1] - t[k]);
    [0, 1, 2].map(|c| (1.0 - w) * y[k][c] + w * y[k + 1][c])
}

/// Given Neumann data at `s = 0` in forward mode.
pub type ActuationFn<'a> = &'a (dyn Fn(f64) -> [f64; 3] + Sync);

enum Mode<'a> {
    Inverse(&'a dyn TipTrajectory),
    Forward(ActuationFn<'a>),
}

/// Elements per parallel batch of the assembly (≈ 4.8 kB of buffer each).
const ELEMENT_CHUNK: usize = 1024;

/// Residual, tangent and status of one element, computed by a worker thread.
#[derive(Clone)]
struct ElementOutput {
    re: [f64; N_DOF],
    ke: [[f64; N_DOF]; N_DOF],
    result: Result<(), ElementError>,
}

impl Default for ElementOutput {
    fn default() -> Self {
        Self {
            re: [0.0; N_DOF],
            ke: [[0.0; N_DOF]; N_DOF],
            result: Ok(()),
        }
    }
}

/// Assembler for one mesh: element, dof maps, CSC positions.
struct Assembly<'a> {
    beam: BeamModel,
    mesh: SpaceTimeMesh,
    mode: Mode<'a>,
    element: BeamSpaceTimeElement,
    hs: f64,
    ht: f64,
    /// Unknowns of the field part.
    n_field: usize,
    n: usize,
    /// x0 at the space nodes (rest state, v0 = 0).
    x0: Vec<[f64; 3]>,
    /// F at t_start (from the initial state; zero for the stress-free start).
    f0: [f64; 3],
    /// Time Gauss rule for boundary integrals (4 points).
    gauss: GaussLegendre,
}

impl<'a> Assembly<'a> {
    fn ns1(&self) -> usize {
        self.mesh.elements_s + 1
    }

    /// Global unknown of node `(i, j)`, component `c` (0..6), or `SKIP` at `j = 0`.
    fn dof(ns1: usize, i: usize, j: usize, c: usize) -> usize {
        if j == 0 {
            SKIP as usize
        } else {
            ((j - 1) * ns1 + i) * 6 + c
        }
    }

    fn f_dof(&self, j: usize, c: usize) -> usize {
        if j == 0 {
            SKIP as usize
        } else {
            self.n_field + (j - 1) * 3 + c
        }
    }

    fn element_dofs(ns1: usize, es: usize, et: usize) -> [usize; N_DOF] {
        let mut d = [0; N_DOF];
        for a in 0..4 {
            let (i, j) = (es + a % 2, et + a / 2);
            for c in 0..6 {
                d[6 * a + c] = Self::dof(ns1, i, j, c);
            }
        }
        d
    }

    /// Boundary entries `(row, col)`: actuation, tip mass, servo.
    fn boundary_entries(&self, out: &mut Vec<(usize, usize)>) {
        let ns1 = self.ns1();
        let ns = self.mesh.elements_s;
        for et in 0..self.mesh.elements_t {
            for ja in [et, et + 1] {
                for jb in [et, et + 1] {
                    for c in 0..3 {
                        let tip_row = Self::dof(ns1, ns, ja, 3 + c);
                        if matches!(self.beam.tip, TipLaw::Mass { .. }) {
                            out.push((tip_row, Self::dof(ns1, ns, jb, 3 + c)));
                        }
                        if let Mode::Inverse(_) = self.mode {
                            out.push((Self::dof(ns1, 0, ja, 3 + c), self.f_dof(jb, c)));
                            out.push((self.f_dof(ja, c), Self::dof(ns1, ns, jb, c)));
                        }
                    }
                }
            }
        }
        out.retain(|&(r, c)| r != SKIP as usize && c != SKIP as usize);
    }

    fn new(beam: BeamModel, mesh: SpaceTimeMesh, mode: Mode<'a>) -> Result<Self, InverseError> {
        let hs = beam.length / mesh.elements_s as f64;
        let ht = mesh.ht();
        let ns1 = mesh.elements_s + 1;
        let n_field = 6 * ns1 * mesh.elements_t;
        let n = n_field
            + match mode {
                Mode::Inverse(_) => 3 * mesh.elements_t,
                Mode::Forward(_) => 0,
            };
        if n >= SKIP as usize {
            return Err(InputError::Invalid {
                field: "mesh".into(),
                message: format!("{n} unknowns is too many for one space-time system"),
            }
            .into());
        }
        let x0: Vec<[f64; 3]> = (0..ns1).map(|i| beam.initial_pose(i as f64 * hs)).collect();
        let mut asm = Self {
            beam,
            mesh,
            mode,
            element: BeamSpaceTimeElement::new(beam.section, beam.law, hs, ht),
            hs,
            ht,
            n_field,
            n,
            x0,
            f0: [0.0; 3],
            gauss: GaussLegendre::new(4),
        };
        asm.f0 = asm.initial_actuation();
        Ok(asm)
    }

    /// `F(t_start) = −(n, M)(s = 0)` from the initial state (first element, one-point rule):
    /// the initial state is in equilibrium with the actuation it starts with.
    fn initial_actuation(&self) -> [f64; 3] {
        let (a, b) = (self.x0[0], self.x0[1]);
        let th = 0.5 * (a[2] + b[2]);
        let e = strains(
            [(b[0] - a[0]) / self.hs, (b[1] - a[1]) / self.hs],
            th,
            (b[2] - a[2]) / self.hs,
        );
        let r = self
            .beam
            .law
            .resultants(&self.beam.section, e, ReferenceStrains::STRAIGHT);
        let (sn, cs) = th.sin_cos();
        [
            -(r.axial * cs - r.shear * sn),
            -(r.axial * sn + r.shear * cs),
            -r.moment,
        ]
    }

    /// Full nodal value `(x, v)` component `c` at node `(i, j)`.
    fn node_value(&self, u: &[f64], i: usize, j: usize, c: usize) -> f64 {
        if j == 0 {
            if c < 3 { self.x0[i][c] } else { 0.0 }
        } else {
            u[Self::dof(self.ns1(), i, j, c)]
        }
    }

    fn f_value(&self, u: &[f64], j: usize, c: usize) -> f64 {
        if j == 0 {
            self.f0[c]
        } else {
            u[self.f_dof(j, c)]
        }
    }

    fn t_node(&self, j: usize) -> f64 {
        self.mesh.t_start + j as f64 * self.ht
    }

    /// Residual into `r` and, if given, the Jacobian into `jac`.
    fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        mut jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError> {
        r.fill(0.0);
        if let Some(j) = jac.as_deref_mut() {
            j.clear();
        }
        let ns1 = self.ns1();
        let (nes, net) = (self.mesh.elements_s, self.mesh.elements_t);
        // Element residuals and tangents are computed in parallel (rayon, chunks of
        // ELEMENT_CHUNK elements in mesh order) and added serially in mesh order: the sums
        // are those of the serial loop, bit for bit, for any number of threads.
        let want = jac.is_some();
        let n_el = nes * net;
        let chunk = ELEMENT_CHUNK.min(n_el.max(1));
        let mut buf: Vec<ElementOutput> = vec![ElementOutput::default(); chunk];
        let (element, x0) = (&self.element, &self.x0);
        let node_value = |i: usize, j: usize, c: usize| -> f64 {
            if j == 0 {
                if c < 3 { x0[i][c] } else { 0.0 }
            } else {
                u[Self::dof(ns1, i, j, c)]
            }
        };
        for first in (0..n_el).step_by(chunk) {
            let len = chunk.min(n_el - first);
            buf[..len].par_iter_mut().enumerate().for_each(|(k, out)| {
                let (et, es) = ((first + k) / nes, (first + k) % nes);
                let mut q = [0.0; N_DOF];
                for a in 0..4 {
                    for c in 0..6 {
                        q[6 * a + c] = node_value(es + a % 2, et + a / 2, c);
                    }
                }
                out.result = element.residual_into(&q, &mut out.re, want.then_some(&mut out.ke));
            });
            for (k, out) in buf[..len].iter().enumerate() {
                let (et, es) = ((first + k) / nes, (first + k) % nes);
                out.result?;
                let d = Self::element_dofs(ns1, es, et);
                for row in 0..N_DOF {
                    if d[row] != SKIP as usize {
                        r[d[row]] += out.re[row];
                    }
                }
                if let Some(jv) = jac.as_deref_mut() {
                    jv.add_element(es, et, &out.ke);
                }
            }
        }
        // Boundary terms per time element: ∫ N_a N_b dt = ht/6 (1 + δ_ab),
        // ∫ N_a ∂t N_b dt = ±½.
        let ns = nes;
        let tip = match self.beam.tip {
            TipLaw::Free => None,
            TipLaw::Mass { mass, inertia } => Some([mass, mass, inertia]),
        };
        for et in 0..net {
            let js = [et, et + 1];
            for (la, &ja) in js.iter().enumerate() {
                for (lb, &jb) in js.iter().enumerate() {
                    let mab = self.ht / 6.0 * if la == lb { 2.0 } else { 1.0 };
                    let dab = if lb == 1 { 0.5 } else { -0.5 };
                    for c in 0..3 {
                        // + ∫ N_a M_tip ∂t v(L)
                        if let Some(mt) = tip {
                            let row = Self::dof(ns1, ns, ja, 3 + c);
                            if row != SKIP as usize {
                                r[row] += mt[c] * dab * self.node_value(u, ns, jb, 3 + c);
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, Self::dof(ns1, ns, jb, 3 + c), mt[c] * dab);
                                }
                            }
                        }
                        if let Mode::Inverse(_) = self.mode {
                            // − ∫ N_a F  (R2 at s = 0)
                            let row = Self::dof(ns1, 0, ja, 3 + c);
                            if row != SKIP as usize {
                                r[row] -= mab * self.f_value(u, jb, c);
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, self.f_dof(jb, c), -mab);
                                }
                            }
                            // + ∫ N_a x(L)  (R3)
                            let row = self.f_dof(ja, c);
                            if row != SKIP as usize {
                                r[row] += mab * self.node_value(u, ns, jb, c);
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, Self::dof(ns1, ns, jb, c), mab);
                                }
                            }
                        }
                    }
                }
            }
            // Known functions of time, by 4-point Gauss: − ∫ N_a γ (R3), − ∫ N_a F (forward).
            for (&tau, &w) in self.gauss.points.iter().zip(&self.gauss.weights) {
                let t = self.t_node(et) + tau * self.ht;
                let na = [1.0 - tau, tau];
                let (vals, rows): ([f64; 3], [[usize; 3]; 2]) = match self.mode {
                    Mode::Inverse(tr) => (
                        tr.pose(t),
                        [0, 1].map(|l| [0, 1, 2].map(|c| self.f_dof(js[l], c))),
                    ),
                    // R2 ⊃ − ∫ N_a F, the same sign as the unknown actuation of inverse mode
                    // (a sign flip here was caught by `tests/beam_cross_check.rs`)
                    Mode::Forward(f) => {
                        let g = f(t);
                        (
                            g,
                            [0, 1].map(|l| [0, 1, 2].map(|c| Self::dof(ns1, 0, js[l], 3 + c))),
                        )
                    }
                };
                for l in 0..2 {
                    for c in 0..3 {
                        if rows[l][c] != SKIP as usize {
                            r[rows[l][c]] -= w * self.ht * na[l] * vals[c];
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn initial_guess(&self) -> Vec<f64> {
        let mut u = vec![0.0; self.n];
        let ns1 = self.ns1();
        for j in 1..=self.mesh.elements_t {
            for i in 0..ns1 {
                for c in 0..3 {
                    u[Self::dof(ns1, i, j, c)] = self.x0[i][c];
                }
            }
            if let Mode::Inverse(_) = self.mode {
                for c in 0..3 {
                    u[self.f_dof(j, c)] = self.f0[c];
                }
            }
        }
        u
    }

    /// Newton start from another solution of the same domain (see [`solve_inverse_from`]).
    fn guess_from(&self, start: &SpaceTimeSolution) -> Vec<f64> {
        let mut u = vec![0.0; self.n];
        let ns1 = self.ns1();
        for j in 1..=self.mesh.elements_t {
            let t = self.mesh.t_start + j as f64 * self.ht;
            for i in 0..ns1 {
                let (x, v) = start.field_at(i as f64 * self.hs, t);
                for c in 0..3 {
                    u[Self::dof(ns1, i, j, c)] = x[c];
                    u[Self::dof(ns1, i, j, 3 + c)] = v[c];
                }
            }
            let f = interpolate(&start.t, &start.actuation, t);
            for (c, fc) in f.into_iter().enumerate() {
                u[self.f_dof(j, c)] = fc;
            }
        }
        u
    }

    fn solution(&self, u: &[f64], newton: NewtonHistory) -> SpaceTimeSolution {
        let ns1 = self.ns1();
        let nt1 = self.mesh.elements_t + 1;
        let mut x = Vec::with_capacity(crate::resources::reserve(ns1, nt1));
        let mut v = Vec::with_capacity(crate::resources::reserve(ns1, nt1));
        for j in 0..nt1 {
            for i in 0..ns1 {
                x.push([0, 1, 2].map(|c| self.node_value(u, i, j, c)));
                v.push([3, 4, 5].map(|c| self.node_value(u, i, j, c)));
            }
        }
        let t: Vec<f64> = (0..nt1).map(|j| self.t_node(j)).collect();
        let actuation = match self.mode {
            Mode::Inverse(_) => (0..nt1)
                .map(|j| [0, 1, 2].map(|c| self.f_value(u, j, c)))
                .collect(),
            Mode::Forward(f) => t.iter().map(|&tj| f(tj)).collect(),
        };
        SpaceTimeSolution {
            beam: self.beam,
            mesh: self.mesh,
            s: (0..ns1).map(|i| i as f64 * self.hs).collect(),
            t,
            x,
            v,
            actuation,
            newton,
        }
    }
}

fn max_abs(r: &[f64]) -> f64 {
    r.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// Where the assembler puts Jacobian entries (global numbering of [`Assembly`]).
pub(super) trait JacobianSink {
    /// Zeroes the stored entries.
    fn clear(&mut self);
    /// Adds element `(es, et)`'s matrix.
    fn add_element(&mut self, es: usize, et: usize, ke: &[[f64; N_DOF]; N_DOF]);
    /// Adds `v` to entry `(row, col)` (neither is `SKIP`).
    fn add(&mut self, row: usize, col: usize, v: f64);
}

/// A Jacobian store that can also solve the Newton system.
trait LinearStage: JacobianSink {
    /// Solves `J du = r`; returns `max |J du − r|` where the method knows it (else 0).
    fn solve(&mut self, r: &[f64], du: &mut [f64]) -> Result<f64, SolveError>;
    /// Stored Jacobian entries.
    fn stored(&self) -> usize;
    /// Which solver this is.
    fn kind(&self) -> LinearSolverKind;
}

/// General sparse storage and faer's sparse LU (symbolic analysis once per mesh).
struct CscStage {
    pattern: CscPattern,
    /// Element entry positions, `N_DOF²` per element.
    el_pos: Vec<u32>,
    elements_s: usize,
    values: Vec<f64>,
    lu: SparseLu,
}

impl CscStage {
    fn new(asm: &Assembly<'_>) -> Result<Self, InverseError> {
        let mut bnd = Vec::new();
        asm.boundary_entries(&mut bnd);
        let ns1 = asm.ns1();
        let (nes, net) = (asm.mesh.elements_s, asm.mesh.elements_t);
        let el_entries = || {
            (0..net).flat_map(move |et| {
                (0..nes).flat_map(move |es| {
                    let d = Assembly::element_dofs(ns1, es, et);
                    (0..N_DOF).flat_map(move |r| {
                        (0..N_DOF).filter_map(move |c| {
                            (d[r] != SKIP as usize && d[c] != SKIP as usize).then_some((d[r], d[c]))
                        })
                    })
                })
            })
        };
        let pattern = CscPattern::from_entries(asm.n, || el_entries().chain(bnd.iter().copied()));
        let mut el_pos = Vec::with_capacity(crate::resources::reserve(
            nes.saturating_mul(net),
            N_DOF * N_DOF,
        ));
        for et in 0..net {
            for es in 0..nes {
                let d = Assembly::element_dofs(ns1, es, et);
                for r in 0..N_DOF {
                    for c in 0..N_DOF {
                        el_pos.push(if d[r] == SKIP as usize || d[c] == SKIP as usize {
                            SKIP
                        } else {
                            pattern.position(d[r], d[c]) as u32
                        });
                    }
                }
            }
        }
        let lu = SparseLu::new(pattern.clone())?;
        Ok(Self {
            values: vec![0.0; pattern.nnz()],
            pattern,
            el_pos,
            elements_s: nes,
            lu,
        })
    }
}

impl JacobianSink for CscStage {
    fn clear(&mut self) {
        self.values.fill(0.0);
    }

    fn add_element(&mut self, es: usize, et: usize, ke: &[[f64; N_DOF]; N_DOF]) {
        let base = (et * self.elements_s + es) * N_DOF * N_DOF;
        for (row, ke_row) in ke.iter().enumerate() {
            let pos = &self.el_pos[base + row * N_DOF..base + (row + 1) * N_DOF];
            for (p, v) in pos.iter().zip(ke_row) {
                if *p != SKIP {
                    self.values[*p as usize] += v;
                }
            }
        }
    }

    fn add(&mut self, row: usize, col: usize, v: f64) {
        self.values[self.pattern.position(row, col)] += v;
    }
}

impl LinearStage for CscStage {
    fn solve(&mut self, r: &[f64], du: &mut [f64]) -> Result<f64, SolveError> {
        self.lu.factorize(&self.values)?;
        du.copy_from_slice(r);
        self.lu.solve_in_place(du);
        Ok(0.0)
    }

    fn stored(&self) -> usize {
        self.pattern.nnz()
    }

    fn kind(&self) -> LinearSolverKind {
        LinearSolverKind::SparseLu
    }
}

impl JacobianSink for SidewaysSolver {
    fn clear(&mut self) {
        SidewaysSolver::clear(self);
    }

    fn add_element(&mut self, es: usize, et: usize, ke: &[[f64; N_DOF]; N_DOF]) {
        SidewaysSolver::add_element(self, es, et, ke);
    }

    fn add(&mut self, row: usize, col: usize, v: f64) {
        SidewaysSolver::add(self, row, col, v);
    }
}

impl LinearStage for SidewaysSolver {
    fn solve(&mut self, r: &[f64], du: &mut [f64]) -> Result<f64, SolveError> {
        SidewaysSolver::solve(self, r, du)
    }

    fn stored(&self) -> usize {
        SidewaysSolver::stored(self)
    }

    fn kind(&self) -> LinearSolverKind {
        LinearSolverKind::Sideways
    }
}

/// The linear stage of an inverse solve.
fn inverse_stage(
    asm: &Assembly<'_>,
    kind: LinearSolverKind,
) -> Result<Box<dyn LinearStage>, InverseError> {
    Ok(match kind {
        LinearSolverKind::Sideways => Box::new(SidewaysSolver::new(
            asm.mesh.elements_s,
            asm.mesh.elements_t,
            asm.hs,
            asm.ht,
        )),
        LinearSolverKind::SparseLu => Box::new(CscStage::new(asm)?),
    })
}

fn validate_mesh(mesh: &SpaceTimeMesh) -> Result<(), InverseError> {
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

/// Solves the inverse problem `[I]` Eq. 1-5 by the space-time FEM of Eq. 31-34: the actuation
/// at `s = 0` and the motion such that `x(L, t) = γ(t)`.
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
/// iteration). `x` and `v` are interpolated bilinearly to the nodes
/// ([`SpaceTimeSolution::field_at`]), `F` linearly in time. The converged solution is that of
/// [`solve_inverse`] to the Newton tolerance; only the iterations differ.
pub fn solve_inverse_from(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    settings: &NewtonSettings,
    start: SpaceTimeSolution,
) -> Result<SpaceTimeSolution, InverseError> {
    check_inverse(beam, mesh, trajectory)?;
    solve_inverse_started(beam, mesh, trajectory, settings, Some(start))
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
    solve_inverse_started(beam, mesh, trajectory, settings, None)
}

fn solve_inverse_started(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    settings: &NewtonSettings,
    start: Option<SpaceTimeSolution>,
) -> Result<SpaceTimeSolution, InverseError> {
    validate_mesh(mesh)?;
    let asm = Assembly::new(*beam, *mesh, Mode::Inverse(trajectory))?;
    let given = start.is_some();
    // the start is dropped here, before the linear solver's storage is allocated
    let guess = match start {
        Some(start) => asm.guess_from(&start),
        None => asm.initial_guess(),
    };
    let mut stage = inverse_stage(&asm, settings.linear_solver)?;
    let (u, mut hist) = newton_generic(&asm, stage.as_mut(), settings, guess, asm.n)?;
    if given {
        hist.start = NewtonStart::Given;
    }
    Ok(asm.solution(&u, hist))
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
    validate_mesh(mesh)?;
    let mut asm = Assembly::new(*beam, *mesh, Mode::Forward(actuation))?;
    // Forward mode has no servo rows to start a sideways march: general sparse LU.
    let mut stage = CscStage::new(&asm)?;
    let mut v0 = None;
    if let Some(init) = initial {
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
        asm.x0 = init.iter().map(|s| [s[0], s[1], s[2]]).collect();
        v0 = Some(init.iter().map(|s| [s[3], s[4], s[5]]).collect::<Vec<_>>());
    }
    match v0 {
        None => {
            let (u, hist) = newton_generic(&asm, &mut stage, settings, asm.initial_guess(), asm.n)?;
            Ok(asm.solution(&u, hist))
        }
        Some(v0) => {
            let asm = WithVelocity { inner: asm, v0 };
            let (u, hist) = newton_v(&asm, &mut stage, settings)?;
            let mut sol = asm.inner.solution(&u, hist);
            sol.v[..mesh.elements_s + 1].copy_from_slice(&asm.v0);
            Ok(sol)
        }
    }
}

/// Forward mode with a non-zero initial velocity: the prescribed `v(·, t_start)` enters the
/// element residuals through the `t = 0` nodes. Implemented by shifting the unknowns: the
/// assembler treats `v(·, 0) = 0`, so the known initial velocity is added as a correction.
struct WithVelocity<'a> {
    inner: Assembly<'a>,
    v0: Vec<[f64; 3]>,
}

fn newton_v(
    asm: &WithVelocity<'_>,
    stage: &mut dyn LinearStage,
    settings: &NewtonSettings,
) -> Result<(Vec<f64>, NewtonHistory), InverseError> {
    // Same as `newton`, with the element inputs of the t = 0 nodes taking v0: realised by a
    // temporary copy of the assembler whose node values read v0.
    let inner = &asm.inner;
    let shim = AssemblyV {
        a: inner,
        v0: &asm.v0,
    };
    newton_generic(&shim, stage, settings, inner.initial_guess(), inner.n)
}

/// An assembler as seen by Newton.
trait Assemble {
    fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError>;
}

struct AssemblyV<'b, 'a> {
    a: &'b Assembly<'a>,
    v0: &'b [[f64; 3]],
}

impl Assemble for AssemblyV<'_, '_> {
    fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError> {
        self.a.assemble(u, r, jac)?;
        // Add the terms of the t = 0 nodes' velocities: the residual is linear in them, so the
        // correction is the element residual of a state with only v(·, 0) = v0 non-zero,
        // minus its stiffness part (which does not depend on v).
        let ns1 = self.a.ns1();
        let mut q = [0.0; N_DOF];
        let mut q_ref = [0.0; N_DOF];
        let (mut re, mut re_ref) = ([0.0; N_DOF], [0.0; N_DOF]);
        for es in 0..self.a.mesh.elements_s {
            for a in 0..4 {
                for c in 0..6 {
                    q[6 * a + c] = self.a.node_value(u, es + a % 2, a / 2, c);
                }
            }
            q_ref.copy_from_slice(&q);
            for a in 0..2 {
                for c in 0..3 {
                    q[6 * a + 3 + c] = self.v0[es + a][c];
                }
            }
            self.a.element.residual_into(&q, &mut re, None)?;
            self.a.element.residual_into(&q_ref, &mut re_ref, None)?;
            let d = Assembly::element_dofs(ns1, es, 0);
            for row in 0..N_DOF {
                if d[row] != SKIP as usize {
                    r[d[row]] += re[row] - re_ref[row];
                }
            }
        }
        if let TipLaw::Mass { mass, inertia } = self.a.beam.tip {
            // + ∫ N_1 M ∂t v(L) over the first time element: the v(L, 0) part is −½ M v0.
            let mt = [mass, mass, inertia];
            let ns = self.a.mesh.elements_s;
            for c in 0..3 {
                let row = Assembly::dof(ns1, ns, 1, 3 + c);
                r[row] -= 0.5 * mt[c] * self.v0[ns][c];
            }
        }
        Ok(())
    }
}

impl Assemble for Assembly<'_> {
    fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError> {
        Assembly::assemble(self, u, r, jac)
    }
}

/// Newton with the exact tangent; a step that inverts an element is halved (up to 5 times).
fn newton_generic<A: Assemble>(
    asm: &A,
    stage: &mut dyn LinearStage,
    settings: &NewtonSettings,
    mut u: Vec<f64>,
    n: usize,
) -> Result<(Vec<f64>, NewtonHistory), InverseError> {
    let mut hist = NewtonHistory {
        unknowns: n,
        nonzeros: stage.stored(),
        linear_solver: stage.kind(),
        ..Default::default()
    };
    let mut r = vec![0.0; n];
    let mut du = vec![0.0; n];
    let mut u_old = vec![0.0; n];
    let t = Instant::now();
    asm.assemble(&u, &mut r, Some(&mut *stage))
        .map_err(|source| InverseError::Element {
            iteration: 0,
            source,
        })?;
    hist.assembly_seconds += t.elapsed().as_secs_f64();
    loop {
        let norm = max_abs(&r);
        hist.residuals.push(norm);
        if norm < settings.tolerance {
            return Ok((u, hist));
        }
        if hist.iterations >= settings.max_iterations || !norm.is_finite() {
            let history_text = hist
                .residuals
                .iter()
                .map(|x| format!("{x:.2e}"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(InverseError::NewtonFailed {
                iterations: hist.iterations,
                residual: norm,
                tolerance: settings.tolerance,
                history: hist.residuals,
                history_text,
            });
        }
        let t = Instant::now();
        let mismatch = stage.solve(&r, &mut du)?;
        hist.linear_residual = hist.linear_residual.max(mismatch / norm);
        hist.linear_seconds += t.elapsed().as_secs_f64();
        hist.iterations += 1;
        let mut step = 1.0;
        u_old.copy_from_slice(&u);
        loop {
            for k in 0..u.len() {
                u[k] = u_old[k] - step * du[k];
            }
            let t = Instant::now();
            let res = asm.assemble(&u, &mut r, Some(&mut *stage));
            hist.assembly_seconds += t.elapsed().as_secs_f64();
            match res {
                Ok(()) => break,
                Err(source) if step < 1.0 / 16.0 => {
                    return Err(InverseError::Element {
                        iteration: hist.iterations,
                        source,
                    });
                }
                Err(_) => step *= 0.5,
            }
        }
    }
}
