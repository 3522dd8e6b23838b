//! The sequential baseline of `[I]` Sect. 2 (Eq. 21): finite elements in space first, then the
//! semi-discrete equations of motion with the servo constraint integrated in time,
//!
//! ```text
//! M q̈ + f_int(q) = E₀ F(t),        g(q, t) = q_tip − γ(t) = 0
//! ```
//!
//! (`q`: nodal `(r1, r2, θ)` of linear beam elements, [`crate::beam`]; `E₀` puts the
//! actuation `F`, applied to the beam at `s = 0`, on node 0; the tip node carries the servo
//! constraint and, with [`TipLaw::Mass`], the end mass). `F` plays the role of the Lagrange
//! multiplier, but it acts on node 0 while the constraint holds node `n`: the constraint
//! realisation is non-orthogonal (`[I]`: `rank(H M⁻¹ Gᵀ) ≠ d`).
//!
//! # What is integrated
//! No index reduction and no stabilisation: the position-level DAE (the index-3 *form*) is
//! discretised directly by BDF (implicit Euler or BDF2), unknowns `q_{n+1}` and `F_{n+1}`:
//!
//! ```text
//! v_{n+1} = (α₀ q_{n+1} + Σ α_k q_{n+1−k})/h,   a_{n+1} = (α₀ v_{n+1} + Σ α_k v_{n+1−k})/h
//! h² (M a_{n+1} + f_int(q_{n+1}) − E₀ F_{n+1}) = 0,     q_tip,{n+1} = γ(t_{n+1})
//! ```
//!
//! (`α = (1, −1)` implicit Euler, `(3/2, −2, 1/2)` BDF2), solved by Newton with the iteration
//! matrix `[[α₀² M + h² K, −h² E₀], [S_tip, 0]]`. The beam is at rest before `t_start`, so the
//! BDF2 history is exact from the first step. The step loop (`integrate`) is generic over the
//! semi-discrete model (`SemiDiscrete`) and the number `N` of unknowns per node: the spatial
//! arm's baseline ([`crate::inverse::spatial::sequential`]) runs on it too.
//!
//! # Why it fails (measured in `docs/verification.md`)
//! * **Lumped mass**: `M⁻¹` is diagonal, so `F` reaches the tip acceleration only through `n`
//!   elastic links: `g` must be differentiated `2n + 2` times before `F` appears, the DAE has
//!   index `2n + 3`, and its solution contains `γ^{(2n+2)}`: the rest-to-rest profile of
//!   Example 3.2 (`C³`) is smooth enough for no `n ≥ 1`. Discretely the BDF step solves the
//!   chain node by node from the tip (a sideways march with one-sided time differences) and
//!   amplifies errors by a factor growing like `(hs/(c h))^{2}` per element.
//! * **Consistent mass**: `H M⁻¹ E₀` is not zero but decays like `(2 − √3)ⁿ`: formally
//!   index 3, practically the same trouble: the iteration matrix is near singular and the
//!   zero dynamics of the non-collocated output are unstable.

use super::element::ElementError;
use super::solver::{BeamModel, InverseError, TipLaw};
use super::trajectory::TipTrajectory;
use crate::beam::element::{BeamElement, ElementMatrix};
use crate::beam::model::BeamModel as ForwardModel;
use crate::error::{InputError, SolveError};
use crate::solve::newton::assembled::ROUND_OFF_CORRECTION;
use crate::solve::newton::{
    DriverBuffers, MAX_TOLERANCE, MIN_TOLERANCE, Measures, NewtonError, NewtonParams,
    NewtonProblem, NewtonReport, Refactorization, drive,
};
use std::time::Instant;

/// Mass matrix of the semi-discrete model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MassMatrix {
    /// Consistent (what [`crate::beam`] uses for forward dynamics).
    Consistent,
    /// Row-sum lumped (diagonal).
    Lumped,
}

/// BDF scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Bdf {
    /// BDF1: `α = (1, −1)`.
    ImplicitEuler,
    /// BDF2: `α = (3/2, −2, 1/2)`.
    Bdf2,
}

impl Bdf {
    pub(crate) fn alpha(self) -> &'static [f64] {
        match self {
            Self::ImplicitEuler => &[1.0, -1.0],
            Self::Bdf2 => &[1.5, -2.0, 0.5],
        }
    }
}

/// Settings of the sequential baseline.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SequentialSettings {
    /// Linear beam elements in space.
    pub elements: usize,
    /// Time step `h` (s).
    pub step: f64,
    /// Mass matrix.
    pub mass: MassMatrix,
    /// Time scheme.
    pub scheme: Bdf,
    /// Newton's tolerance (relative to the magnitudes of the terms of every equation group)
    /// and iteration limit per step: the one driver of stmech ([`crate::solve::newton`]).
    pub newton: NewtonParams,
}

impl SequentialSettings {
    /// Consistent mass, BDF2, the default Newton parameters (relative tolerance 1e-10,
    /// 30 iterations).
    pub fn new(elements: usize, step: f64) -> Self {
        Self {
            elements,
            step,
            mass: MassMatrix::Consistent,
            scheme: Bdf::Bdf2,
            newton: NewtonParams::default(),
        }
    }
}

/// How a sequential run broke down.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SequentialFailure {
    /// Step that failed (1-based).
    pub step: usize,
    /// Its time (s).
    pub time: f64,
    /// What happened.
    pub reason: String,
}

/// A sequential run: the results up to the end or up to the breakdown.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SequentialRun {
    /// Settings used.
    pub settings: SequentialSettings,
    /// Time points (s), from `t_start`.
    pub t: Vec<f64>,
    /// Actuation applied to the beam at `s = 0` (global frame), per time point.
    pub actuation: Vec<[f64; 3]>,
    /// Newton iterations per step.
    pub iterations: Vec<usize>,
    /// `None` if the run reached `t_end`.
    pub failure: Option<SequentialFailure>,
    /// 2-norm condition number of the iteration matrix at the rest state.
    pub condition_number: f64,
    /// Wall time (s).
    pub seconds: f64,
}

impl SequentialRun {
    /// Whether the run reached the end time.
    pub fn completed(&self) -> bool {
        self.failure.is_none()
    }

    /// Largest `|F|` component over the run.
    pub fn peak_actuation(&self) -> f64 {
        self.actuation
            .iter()
            .flat_map(|f| f.iter())
            .fold(0.0f64, |m, v| m.max(v.abs()))
    }

    /// Piecewise linear actuation (constant outside the computed range).
    pub fn actuation_at(&self, t: f64) -> [f64; 3] {
        super::solver::interpolate(&self.t, &self.actuation, t)
    }
}

/// The semi-discrete equations of one body as the sequential integrator ([`integrate`])
/// needs them, with `N` actuation components on node 0 and `N` servo rows on the tip node:
/// the planar beam's forward elements here ([`Semi`]), the linear elements of an
/// [`crate::inverse::body::InverseBody`] (the spatial arm) in
/// [`crate::inverse::spatial::sequential`].
pub(crate) trait SemiDiscrete<const N: usize> {
    /// Nodal unknowns `n` (node `i` holds `q[N i .. N i + N]`).
    fn dofs(&self) -> usize;
    /// First unknown of the tip node (the servo rows hold `q[tip .. tip + N]`).
    fn tip(&self) -> usize;
    /// `q` at `t_start` (at rest).
    fn rest(&self) -> Vec<f64>;
    /// The known part of the step from the histories (`qh[k − 1]`, `vh[k − 1]`: `q`, `v` at
    /// `t_{n+1−k}`), for the scheme `alpha` and the step `h`.
    fn begin_step(&mut self, alpha: &[f64], h: f64, qh: &[Vec<f64>], vh: &[Vec<f64>]);
    /// At `q`: `rhs[..n] = −h² (inertia + f_int)` (without the actuation), the magnitudes of
    /// its terms into `mag[..n]` (`Σ_t |t_i|` over the inertia entries `M_ij h² a_j` or the
    /// inertia of each quadrature point, every element's internal force and the loads,
    /// each times `h²`; `mag` is zero on entry) and the block `∂(h² (inertia + f_int))/∂q` of
    /// the iteration matrix into `jac[i m + j]`, `i, j < n` (`jac` is zero on entry, row
    /// length `m`).
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &mut self,
        alpha0: f64,
        h: f64,
        q: &[f64],
        rhs: &mut [f64],
        mag: &mut [f64],
        jac: &mut [f64],
        m: usize,
    ) -> Result<(), ElementError>;
    /// Whether component `c` of a node is a rotation (its rows and unknowns form their own
    /// equation groups: other units).
    fn rotation(&self, c: usize) -> bool;
    /// How an element failure of [`Self::evaluate`] reads in [`SequentialFailure::reason`].
    fn describe(&self, e: &ElementError) -> String {
        e.to_string()
    }
}

/// The semi-discrete model: dense mass, element kernels.
struct Semi {
    model: ForwardModel,
    n: usize,
    mass: Vec<f64>,
    tip: usize,
    /// Scratch: internal force, the magnitudes of its element terms, tangent and the history
    /// term of the step.
    fi: Vec<f64>,
    fi_mag: Vec<f64>,
    k: Vec<f64>,
    hist_term: Vec<f64>,
    /// `q_n`, the positions at the start of the step.
    q_before: Vec<f64>,
}

impl Semi {
    fn new(beam: &BeamModel, settings: &SequentialSettings) -> Result<Self, InverseError> {
        let spec = beam.forward_spec(settings.elements, 1);
        let model = ForwardModel::try_new_with_prefix(spec, "sequential")?;
        let n = model.n_dofs();
        let mut mass = vec![0.0; n * n];
        let me = model.element_mass();
        for e in 0..settings.elements {
            for a in 0..2 {
                for b in 0..2 {
                    for c in 0..3 {
                        let (i, j) = (3 * (e + a) + c, 3 * (e + b) + c);
                        let m = me[a][b][if c < 2 { 0 } else { 1 }];
                        match settings.mass {
                            MassMatrix::Consistent => mass[i * n + j] += m,
                            MassMatrix::Lumped => mass[i * n + i] += m,
                        }
                    }
                }
            }
        }
        let tip = model.tip_node();
        if let TipLaw::Mass { mass: m, inertia } = beam.tip {
            for (c, v) in [m, m, inertia].into_iter().enumerate() {
                let i = 3 * tip + c;
                mass[i * n + i] += v;
            }
        }
        Ok(Self {
            model,
            n,
            mass,
            tip,
            fi: vec![0.0; n],
            fi_mag: vec![0.0; n],
            k: vec![0.0; n * n],
            hist_term: vec![0.0; n],
            q_before: vec![0.0; n],
        })
    }

    /// Internal force and tangent (dense, row-major) into the scratch buffers.
    fn internal(&mut self, q: &[f64]) -> Result<(), ElementError> {
        let n = self.n;
        let (f, fm, k) = (&mut self.fi, &mut self.fi_mag, &mut self.k);
        f.fill(0.0);
        fm.fill(0.0);
        k.fill(0.0);
        let mut fe = [0.0; 9];
        let mut ke: ElementMatrix = [[0.0; 9]; 9];
        for e in 0..self.model.spec.elements {
            let off = self.model.element_offset(e);
            self.model
                .element(e)
                .residual_into(&q[off..off + 6], &mut fe, Some(&mut ke))
                .map_err(|err| match err {
                    crate::beam::element::ElementError::InvertedElement { nu } => {
                        ElementError::Inverted { nu }
                    }
                    // only the stepper's Cayley discrete gradient reports this, not the
                    // residual; map it to the nearest failure rather than panic
                    crate::beam::element::ElementError::RotationIncrement { .. } => {
                        ElementError::Inverted { nu: f64::NAN }
                    }
                })?;
            for a in 0..6 {
                f[off + a] += fe[a];
                fm[off + a] += fe[a].abs();
                for b in 0..6 {
                    k[(off + a) * n + off + b] += ke[a][b];
                }
            }
        }
        Ok(())
    }
}

impl SemiDiscrete<3> for Semi {
    fn dofs(&self) -> usize {
        self.n
    }

    fn rotation(&self, c: usize) -> bool {
        c == 2
    }

    fn tip(&self) -> usize {
        3 * self.tip
    }

    fn rest(&self) -> Vec<f64> {
        self.model.x_ref.clone()
    }

    /// `Σ α_k (α₀ (q_{n+1−k} − q_n) + h v_{n+1−k})`: the known part of `h² a`, with `q_n`
    /// subtracted (`Σ α_k = 0`): `h² a = α₀² (q − q_n) + hist`, a sum of differences of
    /// nearby positions, exactly 0 at rest and independent of the origin.
    fn begin_step(&mut self, alpha: &[f64], h: f64, qh: &[Vec<f64>], vh: &[Vec<f64>]) {
        self.q_before.copy_from_slice(&qh[0]);
        for i in 0..self.n {
            let mut s = 0.0;
            for kk in 1..alpha.len() {
                let dq = qh[kk - 1][i] - qh[0][i];
                s += alpha[kk] * (alpha[0] * dq + h * vh[kk - 1][i]);
            }
            self.hist_term[i] = s;
        }
    }

    /// `−(M (α₀² (q − q_n) + hist) + h² f_int)` and `α₀² M + h² K`; the terms are the inertia
    /// entries `M_ij h² a_j` and the elements' internal forces.
    fn evaluate(
        &mut self,
        alpha0: f64,
        h: f64,
        q: &[f64],
        rhs: &mut [f64],
        mag: &mut [f64],
        jac: &mut [f64],
        m: usize,
    ) -> Result<(), ElementError> {
        self.internal(q)?;
        let n = self.n;
        for i in 0..n {
            let (mut ma, mut mm) = (0.0, 0.0);
            for j in 0..n {
                let dq = q[j] - self.q_before[j];
                let t = self.mass[i * n + j] * (alpha0 * alpha0 * dq + self.hist_term[j]);
                ma += t;
                mm += t.abs();
            }
            rhs[i] = -(ma + h * h * self.fi[i]);
            mag[i] = mm + h * h * self.fi_mag[i];
        }
        for i in 0..n {
            for j in 0..n {
                jac[i * m + j] = alpha0 * alpha0 * self.mass[i * n + j] + h * h * self.k[i * n + j];
            }
        }
        Ok(())
    }
}

/// Dense Gaussian elimination with partial pivoting (row-major `a`, size `m`); `b` becomes
/// the solution. `false` if a pivot is zero or not finite.
fn dense_solve(a: &mut [f64], m: usize, b: &mut [f64]) -> bool {
    for c in 0..m {
        let mut piv = c;
        for r in c + 1..m {
            if a[r * m + c].abs() > a[piv * m + c].abs() {
                piv = r;
            }
        }
        let p = a[piv * m + c];
        if p == 0.0 || !p.is_finite() {
            return false;
        }
        if piv != c {
            for k in 0..m {
                a.swap(piv * m + k, c * m + k);
            }
            b.swap(piv, c);
        }
        for r in c + 1..m {
            let f = a[r * m + c] / p;
            if f != 0.0 {
                for k in c..m {
                    a[r * m + k] -= f * a[c * m + k];
                }
                b[r] -= f * b[c];
            }
        }
    }
    for r in (0..m).rev() {
        let mut s = b[r];
        for k in r + 1..m {
            s -= a[r * m + k] * b[k];
        }
        b[r] = s / a[r * m + r];
    }
    b.iter().all(|v| v.is_finite())
}

/// Checks the settings (elements, step, Newton tolerance and iterations).
pub(crate) fn check_settings(s: &SequentialSettings) -> Result<(), InverseError> {
    let bad = |field: &str, message: String| {
        Err(InverseError::Input(InputError::Invalid {
            field: field.into(),
            message,
        }))
    };
    if s.elements == 0 || s.elements > 2000 {
        return bad(
            "sequential.elements",
            format!("must be between 1 and 2000, got {}", s.elements),
        );
    }
    if !(s.step.is_finite() && s.step > 0.0) {
        return bad(
            "sequential.step",
            format!("must be finite and > 0, got {}", s.step),
        );
    }
    let tol = s.newton.tolerance;
    if !(MIN_TOLERANCE..=MAX_TOLERANCE).contains(&tol) || s.newton.max_iterations == 0 {
        return bad(
            "sequential.newton",
            format!(
                "the relative tolerance must be between {MIN_TOLERANCE:e} and \
                 {MAX_TOLERANCE:e} and max_iterations ≥ 1, got {tol:e} and {}",
                s.newton.max_iterations
            ),
        );
    }
    Ok(())
}

/// Writes the actuation column `−h² E₀` and the servo rows `S_tip` of the iteration matrix.
fn couple<const N: usize>(n: usize, tip: usize, h: f64, jac: &mut [f64]) {
    let m = n + N;
    for c in 0..N {
        jac[c * m + n + c] = -h * h;
        jac[(n + c) * m + tip + c] = 1.0;
    }
}

/// 2-norm condition number of the iteration matrix at the rest state (first step) of `semi`.
pub(crate) fn rest_condition<const N: usize, S: SemiDiscrete<N>>(
    semi: &mut S,
    settings: &SequentialSettings,
) -> Result<f64, InverseError> {
    let (n, alpha, h) = (semi.dofs(), settings.scheme.alpha(), settings.step);
    let m = n + N;
    let q0 = semi.rest();
    let hist = alpha.len() - 1;
    semi.begin_step(alpha, h, &vec![q0.clone(); hist], &vec![vec![0.0; n]; hist]);
    let (mut rhs, mut mag, mut j) = (vec![0.0; m], vec![0.0; m], vec![0.0; m * m]);
    semi.evaluate(alpha[0], h, &q0, &mut rhs, &mut mag, &mut j, m)
        .map_err(|source| InverseError::Element {
            iteration: 0,
            source,
        })?;
    couple::<N>(n, semi.tip(), h, &mut j);
    // condition_number reads column-major: transpose (the 2-norm condition is the same)
    Ok(crate::solve::conditioning::condition_number(m, &j))
}

/// 2-norm condition number of the iteration matrix at the rest state (first step).
pub fn iteration_matrix_condition(
    beam: &BeamModel,
    settings: &SequentialSettings,
) -> Result<f64, InverseError> {
    beam.validate("beam")?;
    check_settings(settings)?;
    rest_condition::<3, _>(&mut Semi::new(beam, settings)?, settings)
}

/// What [`integrate`] computed: the time points, the actuation (generalised, on node 0) and
/// the nodal unknowns of node 0 at each, Newton's iterations per step and the breakdown.
pub(crate) struct Integration<const N: usize> {
    pub t: Vec<f64>,
    pub actuation: Vec<[f64; N]>,
    pub base: Vec<[f64; N]>,
    pub iterations: Vec<usize>,
    pub failure: Option<SequentialFailure>,
}

/// Equation groups of a step ([`crate::solve::newton::measure`]): the momentum rows of the
/// translations and of the rotations (`h²` times a force or a moment), the servo rows of the
/// tip's position and of its rotation; the unknowns `q` and `F` are grouped alike (by kind).
const STEP_GROUPS: usize = 4;

/// One step of the sequential integration as the Newton driver sees it: unknowns
/// `x = (q_{n+1}, F_{n+1})`, residual `r = (h² (inertia + f_int − E₀ F), q_tip − γ(t_{n+1}))`
/// with the magnitudes of its terms (the servo rows': the change of `q_tip` and of `γ` over
/// the step, `|q_tip − q_tip,n| + |γ(t_{n+1}) − q_tip,n|`, independent of the origin), the
/// iteration matrix `[[α₀² M + h² K, −h² E₀], [S_tip, 0]]` solved densely.
struct Step<'s, const N: usize, S: SemiDiscrete<N>> {
    semi: &'s mut S,
    n: usize,
    tip: usize,
    alpha0: f64,
    h: f64,
    /// `γ(t_{n+1})` and the tip at `t_n`.
    target: [f64; N],
    tip_before: [f64; N],
    /// The group of every row and unknown.
    groups: &'s [u8],
    /// `−r`, the magnitudes, the floor basis, the iteration matrix and its factorised copy.
    rhs: Vec<f64>,
    r: Vec<f64>,
    mag: Vec<f64>,
    phi: Vec<f64>,
    jac: Vec<f64>,
    lu: Vec<f64>,
    /// Corrections solved for, and the largest change of a nodal unknown in the last one.
    solves: usize,
    last_dq: f64,
}

impl<const N: usize, S: SemiDiscrete<N>> NewtonProblem for Step<'_, N, S> {
    type Error = ElementError;

    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        rep: &mut NewtonReport,
    ) -> Result<(), ElementError> {
        let t = Instant::now();
        let (n, m, h2) = (self.n, self.n + N, self.h * self.h);
        let (q, f) = x.split_at(n);
        self.jac.fill(0.0);
        self.mag.fill(0.0);
        let res = self.semi.evaluate(
            self.alpha0,
            self.h,
            q,
            &mut self.rhs,
            &mut self.mag,
            &mut self.jac,
            m,
        );
        if res.is_ok() {
            for c in 0..N {
                self.rhs[c] += h2 * f[c];
                self.mag[c] += (h2 * f[c]).abs();
                let (qt, before) = (q[self.tip + c], self.tip_before[c]);
                self.rhs[n + c] = -(qt - self.target[c]);
                self.mag[n + c] = (qt - before).abs() + (self.target[c] - before).abs();
            }
            for (r, &v) in self.r.iter_mut().zip(&self.rhs) {
                *r = -v;
            }
            if jacobian {
                couple::<N>(n, self.tip, self.h, &mut self.jac);
                self.floor_basis(x);
            }
        }
        rep.assembly_seconds += t.elapsed().as_secs_f64();
        res?;
        out.from_rows(
            STEP_GROUPS,
            self.groups,
            &self.r,
            &self.mag,
            Some(&self.phi),
        );
        Ok(())
    }

    fn correction(&mut self, dx: &mut [f64], rep: &mut NewtonReport) -> Result<(), SolveError> {
        let t = Instant::now();
        self.lu.copy_from_slice(&self.jac);
        dx.copy_from_slice(&self.r);
        self.solves += 1;
        let ok = dense_solve(&mut self.lu, self.n + N, dx);
        rep.factorizations += 1;
        rep.factorization_seconds += t.elapsed().as_secs_f64();
        if !ok {
            return Err(SolveError::Factorization(format!(
                "Newton iteration {}: the iteration matrix is singular or the correction is \
                 not finite",
                self.solves
            )));
        }
        self.last_dq = dx[..self.n].iter().fold(0.0f64, |a, v| a.max(v.abs()));
        Ok(())
    }

    fn unknown_groups(&self) -> &[u8] {
        self.groups
    }

    /// The correction of the positions and of the rotations (not of `F`) at `16 ε` of their
    /// largest value.
    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        let (mut xm, mut dm) = ([0.0f64; 2], [0.0f64; 2]);
        for ((&g, &a), &d) in self.groups.iter().zip(x).zip(dx).take(self.n) {
            let g = g as usize;
            xm[g] = xm[g].max(a.abs());
            dm[g] = dm[g].max(d.abs());
        }
        let tol = ROUND_OFF_CORRECTION * f64::EPSILON;
        (0..2).all(|g| dm[g] <= tol * xm[g])
    }
}

impl<const N: usize, S: SemiDiscrete<N>> Step<'_, N, S> {
    /// The floor basis `φ_i = Σ_j |J_ij| X_g(j)`, `X_g` the largest `|x_j|` of the unknowns of
    /// group `g` (as [`crate::solve::newton::assembled::group_floor`] for a dense matrix).
    fn floor_basis(&mut self, x: &[f64]) {
        let m = self.n + N;
        let mut xg = [0.0f64; STEP_GROUPS];
        for (&g, &v) in self.groups.iter().zip(x) {
            xg[g as usize] = xg[g as usize].max(v.abs());
        }
        for (i, p) in self.phi.iter_mut().enumerate() {
            let row = &self.jac[i * m..(i + 1) * m];
            *p = row
                .iter()
                .zip(self.groups)
                .map(|(a, &g)| a.abs() * xg[g as usize])
                .sum();
        }
    }
}

/// The sequential integration of `semi` on `[t_start, t_end]` (module docs) from rest with the
/// actuation `f0`, the tip node held at `target(t)`: steps of `settings.step`, the last one
/// shortened to land on `t_end`, each solved by the Newton driver of stmech
/// ([`crate::solve::newton::drive`], `settings.newton`); a breakdown (Newton failure,
/// non-finite values, singular matrix) ends it with the results up to that step.
pub(crate) fn integrate<const N: usize, S: SemiDiscrete<N>>(
    semi: &mut S,
    t_start: f64,
    t_end: f64,
    f0: [f64; N],
    target: &dyn Fn(f64) -> [f64; N],
    settings: &SequentialSettings,
) -> Integration<N> {
    let (n, tip) = (semi.dofs(), semi.tip());
    let m = n + N;
    let alpha = settings.scheme.alpha();
    let hist = alpha.len() - 1;
    // q, v histories: index 0 = newest known
    let q0 = semi.rest();
    let mut qh: Vec<Vec<f64>> = vec![q0.clone(); hist];
    let mut vh: Vec<Vec<f64>> = vec![vec![0.0; n]; hist];
    let mut run = Integration {
        t: vec![t_start],
        actuation: vec![f0],
        base: vec![std::array::from_fn(|c| q0[c])],
        iterations: Vec::new(),
        failure: None,
    };
    let steps = ((t_end - t_start) / settings.step * (1.0 - 1e-12)).ceil() as usize;
    // rows and unknowns: (q, F), grouped by kind and unit
    let groups: Vec<u8> = (0..m)
        .map(|i| {
            let (servo, c) = if i < n { (0, i % N) } else { (2, i - n) };
            servo + u8::from(semi.rotation(c))
        })
        .collect();
    let mut x: Vec<f64> = q0.iter().copied().chain(f0).collect();
    let mut buf = DriverBuffers::default();
    let (mut rhs, mut r, mut mag, mut phi) =
        (vec![0.0; m], vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    let (mut jac, mut lu) = (vec![0.0; m * m], vec![0.0; m * m]);
    let mut t = t_start;
    for step in 1..=steps {
        let t1 = (t_start + step as f64 * settings.step).min(t_end);
        let h = t1 - t;
        semi.begin_step(alpha, h, &qh, &vh);
        let mut prob = Step {
            semi: &mut *semi,
            n,
            tip,
            alpha0: alpha[0],
            h,
            target: target(t1),
            tip_before: std::array::from_fn(|c| x[tip + c]),
            groups: &groups,
            rhs: std::mem::take(&mut rhs),
            r: std::mem::take(&mut r),
            mag: std::mem::take(&mut mag),
            phi: std::mem::take(&mut phi),
            jac: std::mem::take(&mut jac),
            lu: std::mem::take(&mut lu),
            solves: 0,
            last_dq: 0.0,
        };
        let res = drive(
            &mut prob,
            &mut x,
            &settings.newton,
            Refactorization::EveryIteration,
            &mut buf,
        );
        let failure = match res {
            Ok(rep) => {
                run.iterations.push(rep.iterations);
                None
            }
            Err(NewtonError::Eval { iteration, source }) => Some(format!(
                "Newton iteration {iteration}: {} (last correction of the nodal unknowns \
                 {:.1e})",
                prob.semi.describe(&source),
                prob.last_dq
            )),
            Err(NewtonError::NonFinite { iteration }) => {
                Some(format!("Newton iteration {iteration}: non-finite values"))
            }
            Err(NewtonError::Linear(e)) => Some(match e {
                SolveError::Factorization(msg) => msg,
                e => e.to_string(),
            }),
            Err(NewtonError::Diverged(f)) => Some(format!(
                "Newton did not converge in {} iterations (relative residual {:.3e} > \
                 tolerance {:.1e}; round-off floor {:.1e})",
                f.iterations, f.residual, f.tolerance, f.floor
            )),
        };
        (rhs, r, mag, phi, jac, lu) = (prob.rhs, prob.r, prob.mag, prob.phi, prob.jac, prob.lu);
        if let Some(reason) = failure {
            run.failure = Some(SequentialFailure {
                step,
                time: t1,
                reason,
            });
            break;
        }
        let q = &x[..n];
        // new velocity (from differences to q_n: exactly 0 at rest), shift histories
        let v1: Vec<f64> = (0..n)
            .map(|i| {
                let mut s = alpha[0] * (q[i] - qh[0][i]);
                for kk in 1..=hist {
                    s += alpha[kk] * (qh[kk - 1][i] - qh[0][i]);
                }
                s / h
            })
            .collect();
        qh.rotate_right(1);
        vh.rotate_right(1);
        qh[0].copy_from_slice(q);
        vh[0] = v1;
        t = t1;
        run.t.push(t1);
        run.actuation.push(std::array::from_fn(|c| x[n + c]));
        run.base.push(std::array::from_fn(|c| q[c]));
    }
    run
}

/// Checks the time domain `[t_start, t_end]`.
pub(crate) fn check_time(t_start: f64, t_end: f64) -> Result<(), InverseError> {
    if !(t_start.is_finite() && t_end.is_finite() && t_end > t_start) {
        return Err(InverseError::Input(InputError::Invalid {
            field: "time".into(),
            message: format!("needs finite start < end, got [{t_start}, {t_end}]"),
        }));
    }
    Ok(())
}

/// Runs the sequential baseline on `[t_start, t_end]` with steps of `settings.step` (the last
/// one shortened to land on `t_end`). Input errors are `Err`; a breakdown of the integration
/// (Newton failure, non-finite values, singular matrix) is reported in
/// [`SequentialRun::failure`] with the results up to that step.
pub fn solve_sequential(
    beam: &BeamModel,
    t_start: f64,
    t_end: f64,
    trajectory: &dyn TipTrajectory,
    settings: &SequentialSettings,
) -> Result<SequentialRun, InverseError> {
    let started = Instant::now();
    beam.validate("beam")?;
    check_settings(settings)?;
    check_time(t_start, t_end)?;
    let condition_number = iteration_matrix_condition(beam, settings)?;
    let mut semi = Semi::new(beam, settings)?;
    let run = integrate::<3, _>(
        &mut semi,
        t_start,
        t_end,
        [0.0; 3],
        &|t| trajectory.pose(t),
        settings,
    );
    Ok(SequentialRun {
        settings: *settings,
        t: run.t,
        actuation: run.actuation,
        iterations: run.iterations,
        failure: run.failure,
        condition_number,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beam::section::ConstitutiveLaw;
    use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};

    /// One element, lumped mass, axial motion of the linear (quadratic-law) beam: the exact
    /// semi-discrete actuation is `F = (m₀ + m₁) γ'' + m₀ m₁/k γ''''` (two masses `m = ρA hs/2`
    /// and a spring `k = EA/hs`); BDF2 reproduces it at second order in `h` (the easy case
    /// where the sequential approach works).
    #[test]
    fn one_element_matches_the_two_mass_chain() {
        let beam = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
        let prof = RestToRestProfile {
            t0: 1.0,
            duration: 2.0,
        };
        let tr = RestToRestLine {
            start: [1.0, 0.0, 0.0],
            delta: [0.01, 0.0, 0.0],
            profile: prof,
        };
        // σ'''' of the profile by central differences of σ''
        let s4 = |t: f64| {
            let e = 1e-3;
            (prof.eval(t + e)[2] - 2.0 * prof.eval(t)[2] + prof.eval(t - e)[2]) / (e * e)
        };
        let exact = |t: f64| 0.01 * (1.0 * prof.eval(t)[2] + 0.25 * s4(t));
        let mut errs = Vec::new();
        for h in [0.02, 0.01] {
            let mut st = SequentialSettings::new(1, h);
            st.mass = MassMatrix::Lumped;
            let run = solve_sequential(&beam, 0.0, 4.0, &tr, &st).unwrap();
            assert!(run.completed(), "{:?}", run.failure);
            let err = run
                .t
                .iter()
                .zip(&run.actuation)
                // away from the jumps of σ'''' (and of F) at 1 s and 3 s, which BDF2 smears
                .filter(|(t, _)| (**t - 1.0).abs() > 0.25 && (**t - 3.0).abs() > 0.25)
                .fold(0.0f64, |m, (&t, f)| m.max((f[0] - exact(t)).abs()));

            errs.push(err);
        }
        eprintln!("two-mass chain, BDF2, h = 0.02, 0.01: max error {errs:?}");
        // measured: 1.5e-3, 3.8e-4 (peak |F| 0.08)
        assert!(errs[1] < 0.3 * errs[0] && errs[1] < 1e-3, "{errs:?}");
    }
}
