//! Forward dynamics of the semi-discrete beam: `M ẍ + f_int(x) = f_ext(t)` with the constant
//! consistent mass matrix `M` (`ρA` for `r`, `ρI` for `θ`: the planar inertia of `[I]` Eq. 20
//! is constant), integrated by an energy-momentum scheme:
//!
//! ```text
//! inc(x₁, x₀) = Δt v_{1/2},        v_{1/2} = ½ (v₀ + v₁)
//! M (v₁ − v₀) = Δt (f_ext(t₀ + Δt/2) − f̄(x₀, x₁))
//! ```
//!
//! `inc` is `Δr_a` for the positions and, with the default [`RotationIncrement::Cayley`], the
//! Cayley increment `Θ_a = 2 tan(Δθ_a/2)` for the angles (`Δθ_a` with
//! [`RotationIncrement::Additive`]). `f̄` is the discrete gradient conjugate to `inc`:
//! [`super::cayley::discrete_gradient_into`] (`f̄·inc = Π(x₁) − Π(x₀)` and
//! `Σ_a r̄_a × f̄_r,a + f̄_Θ,a = 0`) or [`BeamElement::discrete_gradient_into`] (energy only).
//! Eliminating `v₁ = 2 inc/Δt − v₀` leaves
//! `R(d) = (2/Δt²) M (d − Δt v₀) + f̄(x₀, x₁(d)) − f_ext = 0`, solved by Newton for the
//! increment itself, `d = inc` (`Δr_a`, and `Θ_a` for the Cayley angles, `θ₁ = θ₀ + 2 atan(Θ/2)`).
//! Not for `x₁`: the inertia term then has no cancellation between `x₁` and `x₀`, whose
//! round-off `(2/Δt²) M ε |x|` would put a floor under the residual (~2e-9 N for the flying beam
//! with `Δt = 3 ms`, above the usual tolerance). And not for `Δθ`: in `Θ` the dominant inertia
//! term is linear, so Newton's error after one iteration is that of the internal forces alone
//! (with `Δθ` as the unknown the curvature of `2 tan(Δθ/2)` times `(2/Δt²) M` left ~2e-9 N
//! after the first iteration of the flying beam at `Δt = 6 ms`, and a second iteration in most
//! steps).

//! Conservation, without loads: `T₁ + Π₁ = T₀ + Π₀` to the Newton tolerance (multiply the
//! second equation by `v_{1/2}`); linear momentum exactly (`Σ_a f̄_a,r = 0`); angular momentum
//! exactly with the Cayley increment, to `O(Δt²)` with the additive one (`docs/theory.md` §5
//! proves that the additive update cannot conserve both). The scheme is second-order accurate
//! and energy-stable.
//!
//! **Newton.** The iteration matrix is the exact `∂R/∂d`: the element Jacobian of the Cayley
//! discrete gradient is analytic ([`super::cayley::discrete_gradient_and_tangent_into`], about
//! two kernel evaluations; that of the additive one is built by forward differences, `3(p+1)`
//! more). Newton is the one driver ([`crate::solve::newton::drive`] through
//! [`super::newton`], chord steps while the residual contracts by [`CHORD_CONTRACTION`]): it
//! stops when every force (moment) row is at most `newton.tolerance` times the largest force
//! (moment) term of the step — inertia, element forces, applied load — or at the round-off
//! floor of the absolute coordinates (reported, [`NewtonReport::at_floor`]). Newton starts
//! from the extrapolated mean velocity of the last three steps ([`VelocityHistory`]), so the
//! initial residual is `O(Δt²)` and one iteration usually suffices; should Newton fail from
//! there, the step is retried from `x₀ + Δt v₀`. The iteration matrix is only assembled where
//! it is used (never at the final, converged residual). The element terms are computed in
//! parallel on large meshes ([`super::assembly::ElementPass`]), with results identical to the
//! bit for any number of threads.

use super::assembly::{BeamAssembler, ElementPass};
use super::cayley;
use super::element::{BeamElement, MAX_DOFS};
use super::integrator::{BeamIntegrator, CHORD_CONTRACTION, VelocityHistory};
use super::model::BeamModel;
use super::newton::{BeamNewton, BeamProblem, BeamResidual, add_inertia, column_scales, group_max};
use crate::error::SolveError;
use crate::solve::NewtonParams;
use crate::solve::newton::{NewtonContext, NewtonReport, Refactorization, Stage};

/// How the section angles advance over a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RotationIncrement {
    /// `2 tan(Δθ_a/2) = Δt ω̄_a` with the discrete gradient of [`super::cayley`]: energy, linear
    /// *and angular* momentum are conserved exactly (to the Newton tolerance). The default.
    #[default]
    Cayley,
    /// `Δθ_a = Δt ω̄_a` with [`BeamElement::discrete_gradient_into`]: energy and linear momentum
    /// exact, angular momentum to `O(Δt²)` (kept for comparison).
    Additive,
}

pub use super::integrator::BeamDiagnostics;

/// The energy-momentum time stepper.
#[derive(Debug)]
pub struct EnergyMomentumStepper<'a> {
    model: &'a BeamModel,
    solver: BeamNewton,
    pass: ElementPass,
    newton: NewtonParams,
    stage: Stage,
    /// Time step `Δt` (s).
    pub dt: f64,
    t: f64,
    step: usize,
    x: Vec<f64>,
    v: Vec<f64>,
    /// The unknown of Newton: the increment `inc` (`Δr`; `Θ = 2 tan(Δθ/2)` for the Cayley
    /// angles, `Δθ` for the additive ones).
    d: Vec<f64>,
    /// `x₁(d)`.
    x1: Vec<f64>,
    fext: Vec<f64>,
    external_work: f64,
    mass: [[[f64; 2]; 3]; 3],
    rotation: RotationIncrement,
    predictor: VelocityHistory,
    vbar: Vec<f64>,
    /// `Δt` of the factorisation the solver keeps for its chord steps (NaN: none).
    factorized_dt: f64,
    /// Newton's report of the last step (its accepted solve).
    report: NewtonReport,
    /// Newton iterations (linear solves) of the last step, a retry from the plain predictor
    /// included.
    pub last_iterations: usize,
}

impl<'a> EnergyMomentumStepper<'a> {
    /// Starts at time `t0` from nodal unknowns `x0` and velocities `v0` (both of length
    /// [`BeamModel::n_dofs`]). Prescribed unknowns keep `x0`'s values with zero velocity.
    ///
    /// # Panics
    /// If `x0` or `v0` has the wrong length (programmer error).
    pub fn new(
        model: &'a BeamModel,
        x0: &[f64],
        v0: &[f64],
        t0: f64,
        dt: f64,
        newton: NewtonParams,
    ) -> Result<Self, SolveError> {
        let n = model.n_dofs();
        assert!(
            x0.len() == n && v0.len() == n,
            "state length must be 3 × nodes"
        );
        let mut v = v0.to_vec();
        for (i, &f) in model.fixed.iter().enumerate() {
            if f {
                v[i] = 0.0;
            }
        }
        Ok(Self {
            model,
            solver: BeamNewton::new(
                model,
                Refactorization::Chord {
                    contraction: CHORD_CONTRACTION,
                },
            )?,
            pass: ElementPass::new(model.spec.elements),
            newton,
            stage: Stage::BeamStep,
            dt,
            t: t0,
            step: 0,
            x: x0.to_vec(),
            v,
            d: vec![0.0; n],
            x1: vec![0.0; n],
            fext: vec![0.0; n],
            external_work: 0.0,
            mass: model.element_mass(),
            rotation: RotationIncrement::default(),
            predictor: VelocityHistory::new(n),
            vbar: vec![0.0; n],
            factorized_dt: f64::NAN,
            report: NewtonReport::default(),
            last_iterations: 0,
        })
    }

    /// Chooses the rotation update (default [`RotationIncrement::Cayley`]).
    pub fn with_rotation_increment(mut self, rotation: RotationIncrement) -> Self {
        self.rotation = rotation;
        self
    }

    /// Keeps the factorised iteration matrix across steps ([`BeamNewton::keep_across_solves`]):
    /// a step starts with chord steps on an earlier step's matrix while that takes at most
    /// [`super::newton::KEPT_CHORD_LIMIT`] corrections. Every step still meets the Newton stop;
    /// the chord steps stop just below it, so energy and angular momentum are conserved to the
    /// tolerance rather than far below it. For the closed-loop replays, which compare
    /// trajectories.
    pub fn with_factorization_across_steps(mut self) -> Self {
        self.solver.keep_across_solves(true);
        self
    }

    /// Names the solve in Newton's failures (default [`Stage::BeamStep`]; a closed-loop replay
    /// is [`Stage::Replay`]).
    pub fn with_stage(mut self, stage: Stage) -> Self {
        self.stage = stage;
        self
    }

    /// The rotation update in use.
    pub fn rotation_increment(&self) -> RotationIncrement {
        self.rotation
    }

    /// Starts from the reference configuration at rest at `t = 0`.
    pub fn at_rest(
        model: &'a BeamModel,
        dt: f64,
        newton: NewtonParams,
    ) -> Result<Self, SolveError> {
        let v = vec![0.0; model.n_dofs()];
        Self::new(model, &model.x_ref, &v, 0.0, dt, newton)
    }

    /// Current time (s).
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Current nodal unknowns `(r1, r2, θ)` per node.
    pub fn x(&self) -> &[f64] {
        &self.x
    }

    /// Current nodal velocities.
    pub fn v(&self) -> &[f64] {
        &self.v
    }

    /// `(r1, r2, θ)` of node `a` (m, m, rad).
    pub fn node(&self, a: usize) -> [f64; 3] {
        [self.x[3 * a], self.x[3 * a + 1], self.x[3 * a + 2]]
    }

    /// Relative residuals of the last step's accepted Newton solve, first to last
    /// ([`NewtonReport::residuals`]).
    pub fn residual_history(&self) -> &[f64] {
        &self.report.residuals
    }

    /// Newton's report of the last step.
    pub fn newton_report(&self) -> &NewtonReport {
        &self.report
    }

    /// Energies and momenta of the current state.
    pub fn diagnostics(&self) -> BeamDiagnostics {
        let kinetic = self.model.kinetic_energy(&self.v);
        let strain = self.model.strain_energy(&self.x).unwrap_or(f64::INFINITY);
        let (momentum, angular_momentum) = self.model.momenta(&self.x, &self.v);
        BeamDiagnostics {
            t: self.t,
            kinetic,
            strain,
            total: kinetic + strain,
            external_work: self.external_work,
            momentum,
            angular_momentum,
        }
    }

    /// Sets the increment `d = Δt v̄` for the predicted mean velocity `v̄` (or `v₀`), and
    /// `x₁`.
    fn set_increment_from(&mut self, vbar_from_history: bool) {
        for i in 0..self.x.len() {
            let v = if vbar_from_history {
                self.vbar[i]
            } else {
                self.v[i]
            };
            self.d[i] = self.dt * v;
        }
    }

    /// Newton on `R(d) = 0` from the current `d`; leaves `x₁(d)` in `x1`.
    fn newton(&mut self, t0: f64, t1: f64) -> Result<NewtonReport, SolveError> {
        let cx = NewtonContext {
            block: self.step,
            t_start: t0,
            t_end: t1,
            stage: self.stage,
        };
        if self.dt != self.factorized_dt {
            // the iteration matrix of another step length (its inertia 2/Δt² M) is no chord
            // matrix here
            self.solver.invalidate();
        }
        let mut d = std::mem::take(&mut self.d);
        let mut p = StepProblem {
            model: self.model,
            pass: &mut self.pass,
            x: &self.x,
            v: &self.v,
            x1: &mut self.x1,
            fext: &self.fext,
            mass: &self.mass,
            rotation: self.rotation,
            dt: self.dt,
        };
        let res = self.solver.solve(&mut p, &mut d, &self.newton, cx);
        self.factorized_dt = if res.is_ok() { self.dt } else { f64::NAN };
        self.d = d;
        res
    }

    /// Takes `x₁(d)` as the new state: `v₁ = 2 inc/Δt − v₀` (with `Θ` for the angles
    /// under the Cayley update).
    fn accept(&mut self, t1: f64) {
        self.predictor.push(&self.v, self.dt);
        let mut work = 0.0;
        for i in 0..self.x.len() {
            let inc = self.d[i];
            work += self.fext[i] * inc;
            self.v[i] = 2.0 * inc / self.dt - self.v[i];
        }
        std::mem::swap(&mut self.x, &mut self.x1);
        self.external_work += work;
        self.t = t1;
        self.step += 1;
    }

    /// Advances one step of size [`dt`](Self::dt). On error the state is unchanged.
    pub fn step(&mut self) -> Result<(), SolveError> {
        let (t0, t1) = (self.t, self.t + self.dt);
        self.fext.fill(0.0);
        self.model
            .add_external_forces(t0 + 0.5 * self.dt, &mut self.fext);
        let extrapolated = self.predictor.predict(&self.v, self.dt, &mut self.vbar) > 0;
        self.set_increment_from(extrapolated);
        self.solver.reset_corrections();
        let report = match self.newton(t0, t1) {
            Ok(r) => r,
            Err(_) if extrapolated => {
                // the extrapolation misled Newton: start again from x₀ + Δt v₀
                self.set_increment_from(false);
                self.newton(t0, t1)?
            }
            Err(e) => return Err(e),
        };
        self.report = report;
        self.last_iterations = self.solver.corrections();
        self.accept(t1);
        Ok(())
    }

    /// Steps until `t_end` (the last step is shortened to land on it), calling `observe` after
    /// every step.
    pub fn run_until(
        &mut self,
        t_end: f64,
        mut observe: impl FnMut(&Self),
    ) -> Result<(), SolveError> {
        super::integrator::advance_to(self, t_end, &mut observe)
    }
}

/// One step's problem `R(d) = 0` on the stepper's state (see the module docs).
struct StepProblem<'s> {
    model: &'s BeamModel,
    pass: &'s mut ElementPass,
    x: &'s [f64],
    v: &'s [f64],
    x1: &'s mut Vec<f64>,
    fext: &'s [f64],
    mass: &'s [[[f64; 2]; 3]; 3],
    rotation: RotationIncrement,
    dt: f64,
}

impl BeamProblem for StepProblem<'_> {
    /// `R(d) = (2/Δt²) M (d − Δt v₀) + f̄(x₀, x₁(d)) − f_ext` (prescribed rows zero) and, with
    /// `tangent`, `∂R/∂d`. Magnitudes: every inertia entry, every element's `f̄`, the load.
    /// Floor basis: the internal tangent (with respect to `x₁`, without the inertia and the
    /// Cayley factor) times the largest `|x₁|` of each kind, and the inertia times the largest
    /// increment and `Δt |v₀|` of each kind ([`super::newton`]).
    fn assemble(
        &mut self,
        d: &[f64],
        tangent: bool,
        res: &mut BeamResidual,
        asm: &mut BeamAssembler,
    ) -> Result<(), usize> {
        let model = self.model;
        let nd = model.element_dofs();
        let p = model.spec.order;
        let (dt, rotation) = (self.dt, self.rotation);
        let cayley_angle = |i: usize| i % 3 == 2 && rotation == RotationIncrement::Cayley;
        // x₁ = x₀ + Δx: Δx = inc, or for a Cayley angle Δθ = 2 atan(inc/2)
        let cayley = rotation == RotationIncrement::Cayley;
        for ((x1, x0), di) in self
            .x1
            .chunks_exact_mut(3)
            .zip(self.x.chunks_exact(3))
            .zip(d.chunks_exact(3))
        {
            x1[0] = x0[0] + di[0];
            x1[1] = x0[1] + di[1];
            let dth = if cayley {
                2.0 * (0.5 * di[2]).atan()
            } else {
                di[2]
            };
            x1[2] = x0[2] + dth;
        }
        let floor = res.clear(tangent);
        if tangent {
            asm.clear();
        }
        let c = 2.0 / (dt * dt);
        let mass = self.mass;
        // inertia (2/Δt²) M (inc − Δt v₀)
        add_inertia(model, c, mass, d, self.v, dt, &mut res.r, &mut res.m);
        // the floor basis is only formed with a tangent (when asked for)
        let (xmax, inc) = if floor {
            let (dmax, vmax) = (group_max(d), group_max(self.v));
            let inc = [dmax[0] + dt * vmax[0], dmax[1] + dt * vmax[1]];
            (group_max(self.x1), inc)
        } else {
            ([0.0; 2], [0.0; 2])
        };
        let (x, x1) = (self.x, &*self.x1);
        let kernel =
            |e: usize, f: &mut [f64; MAX_DOFS], k: Option<&mut [[f64; MAX_DOFS]; MAX_DOFS]>| {
                let o = model.element_offset(e);
                let el = model.element(e);
                let (x0, x1) = (&x[o..o + nd], &x1[o..o + nd]);
                let Some(k) = k else {
                    return match rotation {
                        RotationIncrement::Cayley => cayley::discrete_gradient_into(&el, x0, x1, f),
                        RotationIncrement::Additive => el.discrete_gradient_into(x0, x1, f),
                    };
                };
                match rotation {
                    RotationIncrement::Cayley => {
                        cayley::discrete_gradient_and_tangent_into(&el, x0, x1, f, k)?;
                    }
                    RotationIncrement::Additive => {
                        el.discrete_gradient_into(x0, x1, f)?;
                        // forward differences from f̄(x₀, x₁): step √ε (1 + |x|), Jacobian error
                        // ~1e-8 relative, which only affects Newton's rate
                        let mut xp = [0.0; MAX_DOFS];
                        xp[..nd].copy_from_slice(x1);
                        let mut fp = [0.0; MAX_DOFS];
                        for j in 0..nd {
                            let xj = xp[j];
                            xp[j] = xj + 1.5e-8 * (1.0 + xj.abs());
                            let hj = xp[j] - xj;
                            el.discrete_gradient_into(x0, &xp[..nd], &mut fp)?;
                            xp[j] = xj;
                            for i in 0..nd {
                                k[i][j] = (fp[i] - f[i]) / hj;
                            }
                        }
                    }
                }
                // Cayley angles: the unknown is Θ, ∂θ₁/∂Θ = 1/(1 + Θ²/4)
                if rotation == RotationIncrement::Cayley {
                    for b in 0..=p {
                        let theta = d[o + 3 * b + 2];
                        let s = 1.0 / (1.0 + 0.25 * theta * theta);
                        for row in k.iter_mut().take(nd) {
                            row[3 * b + 2] *= s;
                        }
                    }
                }
                // inertia: (2/Δt²) M
                for a in 0..=p {
                    for b in 0..=p {
                        for kk in 0..3 {
                            k[3 * a + kk][3 * b + kk] += c * mass[a][b][usize::from(kk == 2)];
                        }
                    }
                }
                Ok(())
            };
        let add = |e: usize, f: &[f64; MAX_DOFS], k: Option<&[[f64; MAX_DOFS]; MAX_DOFS]>| {
            let o = model.element_offset(e);
            for i in 0..nd {
                res.r[o + i] += f[i];
                res.m[o + i] += f[i].abs();
            }
            if let Some(k) = k {
                asm.add_element(e, o, nd, k);
                if !floor {
                    return;
                }
                // the internal tangent of a Cayley column is scaled by 1/(1 + Θ²/4): undone
                let mut col = column_scales(nd, &xmax);
                for (j, cj) in col.iter_mut().enumerate().take(nd) {
                    if cayley_angle(j) {
                        let theta = d[o + j];
                        *cj *= 1.0 + 0.25 * theta * theta;
                    }
                }
                res.add_element_floor(o, nd, k, 1.0, c, mass, &col, &inc);
            }
        };
        let result = self.pass.run(tangent, kernel, add);
        for i in 0..d.len() {
            res.r[i] -= self.fext[i];
            res.m[i] += self.fext[i].abs();
        }
        res.finish(&model.fixed);
        result.map_err(|(e, _)| e)
    }

    fn coordinates<'a>(&'a self, _d: &'a [f64]) -> &'a [f64] {
        self.x1
    }
}

impl BeamIntegrator for EnergyMomentumStepper<'_> {
    fn time(&self) -> f64 {
        self.t
    }
    fn x(&self) -> &[f64] {
        &self.x
    }
    fn v(&self) -> &[f64] {
        &self.v
    }
    fn diagnostics(&self) -> BeamDiagnostics {
        EnergyMomentumStepper::diagnostics(self)
    }
    fn dt(&self) -> f64 {
        self.dt
    }
    fn set_dt(&mut self, dt: f64) {
        self.dt = dt;
    }
    fn advance(&mut self) -> Result<(), SolveError> {
        self.step()
    }
    fn iterations(&self) -> usize {
        self.last_iterations
    }
    fn newton_report(&self) -> Option<&NewtonReport> {
        Some(&self.report)
    }
}
