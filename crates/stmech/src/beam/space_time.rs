//! Forward dynamics of the planar beam by Petrov–Galerkin space-time finite elements, cG(1)
//! in time, solved slab by slab (`docs/theory.md` §5, "Space-time slabs").
//!
//! On the slab `I_n = [t_n, t_n + h]` the trial functions `x_h, v_h` are continuous and
//! bilinear in `(s, t)` (the beam elements of [`super::element`] in `s`, linear in `t`); the test
//! functions `w1, w2` are the same finite elements in `s` and *constant* in `t` on each slab
//! (degree `p − 1 = 0`, discontinuous across slab boundaries). `[I]` Eq. 33 with these spaces
//! reads, for every slab,
//!
//! ```text
//! M (x₁ − x₀ − h v̄) = 0,                       v̄ = ½ (v₀ + v₁)
//! M (v₁ − v₀) + h F̄(x₀, x₁) = ∫_{I_n} f_ext dt,  F̄ = ∫₀¹ f_int((1 − τ) x₀ + τ x₁) dτ
//! ```
//!
//! (`M` the consistent mass matrix, which is invertible: the first equation is nodal). Slab `n`
//! only sees the end values of slab `n − 1`: the global system is block lower bidiagonal in
//! time and is solved by forward substitution, one Newton solve per slab over the whole space
//! mesh. `v₁ = 2(x₁ − x₀)/h − v₀` is condensed out, so Newton works on
//! `R(d) = (2/h²) M (d − h v₀) + F̄(x₀, x₀ + d) − (1/h)∫ f_ext dt` for the increment
//! `d = x₁ − x₀` (no round-off floor `(2/h²) M ε |x|` from cancelling `x₁ − x₀`) with the exact
//! tangent `∂F̄/∂d = ∫₀¹ τ K(x₀ + τ d) dτ`. Newton is the one driver
//! ([`crate::solve::newton::drive`] through [`super::newton`], chord steps as in the
//! stepper): every force (moment) row at most `newton.tolerance` times the largest force
//! (moment) term of the slab — inertia, `F̄` of every element, the load integral — or at the
//! round-off floor of the absolute coordinates. The pattern and the LU storage are built once
//! and reused by every iteration of every slab ([`BeamAssembler`]). Newton starts from the
//! extrapolated mean velocity of the last slabs ([`VelocityHistory`]; retried from
//! `x₀ + h v₀` should it fail), assembles the matrix only where it is used, and computes the
//! element terms in parallel on large meshes ([`ElementPass`], identical bits for any number
//! of threads).
//!
//! **Energy.** Testing with `w2 = v̄ = (x₁ − x₀)/h = ẋ_h` (constant on the slab, hence in the test
//! space) gives `T₁ − T₀ + ∫ f_int(x_h)·ẋ_h dt = ∫ f_ext·v̄ dt`, and
//! `∫ f_int(x_h)·ẋ_h dt = Π(x₁) − Π(x₀)` exactly. The time integral of `F̄` is done with an
//! `n`-point Gauss rule; the energy error of a slab is then exactly the quadrature defect
//! `δ_n = Π(x₁) − Π(x₀) − F̄_n·(x₁ − x₀)`, which is computed after every slab. With
//! [`TimeQuadrature::Adaptive`] the slab is re-solved with more points until `|δ_n|` is at
//! round-off (the rule error decays like `(2|Δθ|)^{2n}`, see the theory notes), so energy is
//! conserved to the Newton tolerance.
//!
//! **Angular momentum** is *not* conserved exactly: its change per slab is
//! `−h ∫₀¹ (½ − τ) Σ_a Δr_a × f_r,a(x_h(τ)) dτ = O(h³)`, which vanishes only for the one-point
//! (midpoint) rule. Linear momentum is conserved exactly (`Σ_a f_r,a = 0` at every point).

use super::assembly::{BeamAssembler, ElementPass};
use super::element::{BeamElement, MAX_DOFS};
use super::integrator::BeamDiagnostics;
use super::integrator::{BeamIntegrator, CHORD_CONTRACTION, VelocityHistory};
use super::model::BeamModel;
use super::newton::{BeamNewton, BeamProblem, BeamResidual, add_inertia, column_scales, group_max};
use crate::basis::GaussLegendre;
use crate::error::SolveError;
use crate::solve::NewtonParams;
use crate::solve::newton::{NewtonContext, NewtonReport, Refactorization, Stage};

/// The time quadrature of `∫₀¹ f_int(x_h(τ)) dτ` on a slab.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeQuadrature {
    /// Always this many Gauss points (1 = the midpoint rule: exact angular momentum, energy only
    /// to `O(h²)`).
    Fixed(usize),
    /// Start with `min_points` Gauss points; after each slab compare the energy defect
    /// `|Π(x₁) − Π(x₀) − F̄·Δx|` with `tolerance × (T₀ + Π₀ + Σ_i |F̄_i Δx_i|)` and, while it is
    /// larger, add a point and re-solve the slab (up to `max_points`). The number of points is
    /// kept for the following slabs. If a further point does not halve the defect, the defect
    /// is at its round-off floor: the slab is accepted and the rule is not raised again while
    /// the defect stays within 10× that floor.
    Adaptive {
        /// Initial number of points (≥ 1).
        min_points: usize,
        /// Largest number of points.
        max_points: usize,
        /// Relative tolerance of the energy defect of one slab (dimensionless).
        tolerance: f64,
    },
}

/// Largest number of Gauss points in time.
pub const MAX_TIME_POINTS: usize = 32;

impl Default for TimeQuadrature {
    fn default() -> Self {
        Self::Adaptive {
            min_points: 2,
            max_points: 16,
            tolerance: 1e-14,
        }
    }
}

/// Settings of the space-time slabs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SpaceTimeSettings {
    /// Newton tolerance (relative, [`crate::solve::newton`]) and iteration limit per slab.
    pub newton: NewtonParams,
    /// Time quadrature of the internal force.
    pub quadrature: TimeQuadrature,
}

/// The cG(1) Petrov–Galerkin space-time solver, advanced slab by slab.
#[derive(Debug)]
pub struct SpaceTimeSolver<'a> {
    model: &'a BeamModel,
    solver: BeamNewton,
    pass: ElementPass,
    settings: SpaceTimeSettings,
    /// Slab length `h` (s).
    pub dt: f64,
    t: f64,
    slab: usize,
    x: Vec<f64>,
    v: Vec<f64>,
    /// The unknown of Newton: the increment `d = x₁ − x₀`.
    d: Vec<f64>,
    /// `x₀ + d`.
    x1: Vec<f64>,
    predictor: VelocityHistory,
    vbar: Vec<f64>,
    /// `F̄` of the last residual evaluation.
    fbar: Vec<f64>,
    /// `(1/h) ∫ f_ext dt` of the current slab.
    load: Vec<f64>,
    scratch: Vec<f64>,
    /// Sorted breakpoints of all load time functions.
    breakpoints: Vec<f64>,
    rules: Vec<GaussLegendre>,
    points: usize,
    /// `(points, defect)` where adding a point stopped reducing the defect (round-off).
    floor: Option<(usize, f64)>,
    mass: [[[f64; 2]; 3]; 3],
    strain: f64,
    external_work: f64,
    /// Newton's report of the last slab (its last solve; `at_floor` of any).
    report: NewtonReport,
    last_iterations: usize,
    last_defect: f64,
    max_defect: f64,
}

fn check_quadrature(q: &TimeQuadrature) {
    let ok = match *q {
        TimeQuadrature::Fixed(n) => (1..=MAX_TIME_POINTS).contains(&n),
        TimeQuadrature::Adaptive {
            min_points,
            max_points,
            tolerance,
        } => {
            min_points >= 1
                && max_points >= min_points
                && max_points <= MAX_TIME_POINTS
                && tolerance.is_finite()
                && tolerance > 0.0
        }
    };
    assert!(
        ok,
        "time quadrature {q:?}: needs 1 ≤ points ≤ {MAX_TIME_POINTS} and a tolerance > 0"
    );
}

impl<'a> SpaceTimeSolver<'a> {
    /// Starts at time `t0` from nodal unknowns `x0` and velocities `v0` (length
    /// [`BeamModel::n_dofs`]). Prescribed unknowns keep `x0`'s values with zero velocity.
    ///
    /// # Panics
    /// If `x0` or `v0` has the wrong length or the quadrature settings are out of range
    /// (programmer errors).
    pub fn new(
        model: &'a BeamModel,
        x0: &[f64],
        v0: &[f64],
        t0: f64,
        dt: f64,
        settings: SpaceTimeSettings,
    ) -> Result<Self, SolveError> {
        let n = model.n_dofs();
        assert!(
            x0.len() == n && v0.len() == n,
            "state length must be 3 × nodes"
        );
        check_quadrature(&settings.quadrature);
        let mut v = v0.to_vec();
        for (i, &f) in model.fixed.iter().enumerate() {
            if f {
                v[i] = 0.0;
            }
        }
        let mut breakpoints: Vec<f64> = model
            .spec
            .point_loads
            .iter()
            .map(|l| &l.time_function)
            .chain(
                model
                    .spec
                    .distributed_loads
                    .iter()
                    .map(|l| &l.time_function),
            )
            .flat_map(|tf| tf.breakpoints())
            .collect();
        breakpoints.sort_by(f64::total_cmp);
        breakpoints.dedup();
        let points = match settings.quadrature {
            TimeQuadrature::Fixed(n) => n,
            TimeQuadrature::Adaptive { min_points, .. } => min_points,
        };
        let strain = model.strain_energy(x0).map_err(|_| SolveError::NonFinite {
            block: 0,
            t_start: t0,
            t_end: t0,
            iteration: 0,
        })?;
        Ok(Self {
            model,
            solver: BeamNewton::new(
                model,
                Refactorization::Chord {
                    contraction: CHORD_CONTRACTION,
                },
            )?,
            pass: ElementPass::new(model.spec.elements),
            settings,
            dt,
            t: t0,
            slab: 0,
            x: x0.to_vec(),
            v,
            d: vec![0.0; n],
            x1: vec![0.0; n],
            predictor: VelocityHistory::new(n),
            vbar: vec![0.0; n],
            fbar: vec![0.0; n],
            load: vec![0.0; n],
            scratch: vec![0.0; n],
            breakpoints,
            rules: (1..=MAX_TIME_POINTS).map(GaussLegendre::new).collect(),
            points,
            floor: None,
            mass: model.element_mass(),
            strain,
            external_work: 0.0,
            report: NewtonReport::default(),
            last_iterations: 0,
            last_defect: 0.0,
            max_defect: 0.0,
        })
    }

    /// Starts from the reference configuration at rest at `t = 0`.
    pub fn at_rest(
        model: &'a BeamModel,
        dt: f64,
        settings: SpaceTimeSettings,
    ) -> Result<Self, SolveError> {
        let v = vec![0.0; model.n_dofs()];
        Self::new(model, &model.x_ref, &v, 0.0, dt, settings)
    }

    /// Current time (s).
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Current nodal unknowns.
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

    /// Number of Gauss points in time used by the last slab.
    pub fn time_points(&self) -> usize {
        self.points
    }

    /// Newton iterations of the last slab (summed over its quadrature rounds).
    pub fn last_iterations(&self) -> usize {
        self.last_iterations
    }

    /// Relative residuals of the last Newton solve of the last slab, first to last
    /// ([`NewtonReport::residuals`]).
    pub fn residual_history(&self) -> &[f64] {
        &self.report.residuals
    }

    /// Newton's report of the last slab.
    pub fn newton_report(&self) -> &NewtonReport {
        &self.report
    }

    /// Energy defect `Π(x₁) − Π(x₀) − F̄·Δx` (J) of the last slab: its energy error apart from
    /// the Newton residual.
    pub fn last_defect(&self) -> f64 {
        self.last_defect
    }

    /// Largest `|defect|` (J) of all slabs so far.
    pub fn max_defect(&self) -> f64 {
        self.max_defect
    }

    /// Energies and momenta of the current state.
    pub fn diagnostics(&self) -> BeamDiagnostics {
        let kinetic = self.model.kinetic_energy(&self.v);
        let (momentum, angular_momentum) = self.model.momenta(&self.x, &self.v);
        BeamDiagnostics {
            t: self.t,
            kinetic,
            strain: self.strain,
            total: kinetic + self.strain,
            external_work: self.external_work,
            momentum,
            angular_momentum,
        }
    }

    /// `(1/h) ∫_{t0}^{t0+h} f_ext dt` into `self.load`: two Gauss points on every piece between
    /// the breakpoints of the time functions, exact for constant, window and table functions.
    fn integrate_loads(&mut self, t0: f64, h: f64) {
        self.load.fill(0.0);
        let t1 = t0 + h;
        let first = self.breakpoints.partition_point(|&b| b <= t0);
        let mut a = t0;
        let g = 0.5 / 3f64.sqrt();
        let mut k = first;
        loop {
            let b = match self.breakpoints.get(k) {
                Some(&b) if b < t1 => b,
                _ => t1,
            };
            if b > a {
                for tau in [0.5 - g, 0.5 + g] {
                    self.scratch.fill(0.0);
                    self.model
                        .add_external_forces(a + tau * (b - a), &mut self.scratch);
                    let w = 0.5 * (b - a) / h;
                    for (l, s) in self.load.iter_mut().zip(&self.scratch) {
                        *l += w * s;
                    }
                }
            }
            if b >= t1 {
                break;
            }
            a = b;
            k += 1;
        }
    }

    /// Newton on `R(d) = 0` from the current `d` with the current time rule; leaves
    /// `x₁ = x₀ + d` and `F̄` of the solution in `x1`, `fbar`.
    fn newton(&mut self, t0: f64, t1: f64) -> Result<NewtonReport, SolveError> {
        let cx = NewtonContext {
            block: self.slab,
            t_start: t0,
            t_end: t1,
            stage: Stage::BeamStep,
        };
        let mut d = std::mem::take(&mut self.d);
        let mut p = SlabProblem {
            model: self.model,
            pass: &mut self.pass,
            rule: &self.rules[self.points - 1],
            x: &self.x,
            v: &self.v,
            x1: &mut self.x1,
            fbar: &mut self.fbar,
            load: &self.load,
            mass: &self.mass,
            h: self.dt,
        };
        let res = self.solver.solve(&mut p, &mut d, &self.settings.newton, cx);
        self.d = d;
        res
    }

    /// Sets `d = h v̄` (`v̄` predicted, or `v₀`) and `x₁ = x₀ + d`.
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

    /// Advances one slab of length [`dt`](Self::dt). On error the state is unchanged.
    pub fn step(&mut self) -> Result<(), SolveError> {
        let (t0, t1) = (self.t, self.t + self.dt);
        self.integrate_loads(t0, self.dt);
        let extrapolated = self.predictor.predict(&self.v, self.dt, &mut self.vbar) > 0;
        self.set_increment_from(extrapolated);
        self.solver.reset_corrections();
        let (strain1, defect) = match self.solve_slab(t0, t1) {
            Ok(r) => r,
            Err(_) if extrapolated => {
                // the extrapolation misled Newton: start again from x₀ + h v₀
                self.set_increment_from(false);
                self.solve_slab(t0, t1)?
            }
            Err(e) => return Err(e),
        };
        self.predictor.push(&self.v, self.dt);
        let n = self.x.len();
        let mut work = 0.0;
        for i in 0..n {
            let dx = self.d[i];
            work += self.load[i] * dx;
            self.v[i] = 2.0 * dx / self.dt - self.v[i];
        }
        std::mem::swap(&mut self.x, &mut self.x1);
        self.external_work += work;
        self.strain = strain1;
        self.last_defect = defect;
        self.max_defect = self.max_defect.max(defect.abs());
        self.last_iterations = self.solver.corrections();
        self.t = t1;
        self.slab += 1;
        Ok(())
    }

    /// Newton on the slab from the current `d`, raising the time rule while the energy defect
    /// asks for it ([`TimeQuadrature::Adaptive`]). Returns `(Π(x₁), defect)`.
    fn solve_slab(&mut self, t0: f64, t1: f64) -> Result<(f64, f64), SolveError> {
        let n = self.x.len();
        let mut previous: Option<f64> = None;
        let mut at_floor = false;
        loop {
            self.report = self.newton(t0, t1)?;
            at_floor |= self.report.at_floor;
            self.report.at_floor = at_floor;
            let strain1 =
                self.model
                    .strain_energy(&self.x1)
                    .map_err(|_| SolveError::NonFinite {
                        block: self.slab,
                        t_start: t0,
                        t_end: t1,
                        iteration: self.solver.corrections(),
                    })?;
            let (mut work, mut gross) = (0.0, 0.0);
            for i in 0..n {
                let w = self.fbar[i] * self.d[i];
                work += w;
                gross += w.abs();
            }
            let defect = strain1 - self.strain - work;
            let TimeQuadrature::Adaptive {
                max_points,
                tolerance,
                ..
            } = self.settings.quadrature
            else {
                return Ok((strain1, defect));
            };
            let kinetic = self.model.kinetic_energy(&self.v);
            let scale = kinetic + self.strain.abs() + gross;
            let at_floor = self
                .floor
                .is_some_and(|(k, d)| k == self.points && defect.abs() <= 10.0 * d);
            if defect.abs() <= tolerance * scale || self.points == max_points || at_floor {
                return Ok((strain1, defect));
            }
            if let Some(prev) = previous
                && defect.abs() > 0.5 * prev
            {
                // One more point did not reduce the defect: it is at its round-off floor.
                // Keep this solution, go back to the cheaper rule for the next slabs and
                // remember the floor.
                self.points -= 1;
                self.floor = Some((self.points, defect.abs().max(prev)));
                return Ok((strain1, defect));
            }
            previous = Some(defect.abs());
            self.points += 1;
        }
    }

    /// Steps until `t_end` (the last slab is shortened to land on it), calling `observe` after
    /// every slab.
    pub fn run_until(
        &mut self,
        t_end: f64,
        mut observe: impl FnMut(&Self),
    ) -> Result<(), SolveError> {
        super::integrator::advance_to(self, t_end, &mut observe)
    }
}

/// One slab's problem `R(d) = 0` on the solver's state (see the module docs).
struct SlabProblem<'s> {
    model: &'s BeamModel,
    pass: &'s mut ElementPass,
    rule: &'s GaussLegendre,
    x: &'s [f64],
    v: &'s [f64],
    x1: &'s mut Vec<f64>,
    fbar: &'s mut Vec<f64>,
    load: &'s [f64],
    mass: &'s [[[f64; 2]; 3]; 3],
    h: f64,
}

impl BeamProblem for SlabProblem<'_> {
    /// `R(d) = (2/h²) M (d − h v₀) + F̄(x₀, x₀ + d) − (1/h)∫ f_ext dt` (prescribed rows zero),
    /// `F̄` into `fbar`, and with `tangent` `∂R/∂d`. Magnitudes: every inertia entry, every
    /// element's `F̄`, the load integral. Floor basis: `Σ_q w_q K(x_q)` (about twice the
    /// tangent's `Σ_q w_q τ_q K(x_q)`, without the inertia) times the largest `|x₁|` of each
    /// kind, and the inertia times the largest increment and `h |v₀|` of each kind.
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
        let h = self.h;
        let c = 2.0 / (h * h);
        let rule = self.rule;
        for i in 0..d.len() {
            self.x1[i] = self.x[i] + d[i];
        }
        self.fbar.fill(0.0);
        let floor = res.clear(tangent);
        if tangent {
            asm.clear();
        }
        let mass = self.mass;
        // the floor basis is only formed with a tangent (when asked for)
        let (xmax, inc) = if floor {
            let (dmax, vmax) = (group_max(d), group_max(self.v));
            let inc = [dmax[0] + h * vmax[0], dmax[1] + h * vmax[1]];
            (group_max(self.x1), inc)
        } else {
            ([0.0; 2], [0.0; 2])
        };
        let col = column_scales(nd, &xmax);
        let x = self.x;
        let kernel = |e: usize,
                      fbar: &mut [f64; MAX_DOFS],
                      kbar: Option<&mut [[f64; MAX_DOFS]; MAX_DOFS]>| {
            let o = model.element_offset(e);
            let el = model.element(e);
            let (mut fe, mut ke) = ([0.0; MAX_DOFS], [[0.0; MAX_DOFS]; MAX_DOFS]);
            let mut xe = [0.0; MAX_DOFS];
            fbar[..nd].fill(0.0);
            let mut kbar = kbar;
            if let Some(kb) = kbar.as_deref_mut() {
                for row in kb.iter_mut().take(nd) {
                    row[..nd].fill(0.0);
                }
            }
            for (&tau, &w) in rule.points.iter().zip(&rule.weights) {
                for i in 0..nd {
                    xe[i] = x[o + i] + tau * d[o + i];
                }
                let k = if kbar.is_some() { Some(&mut ke) } else { None };
                el.residual_into(&xe[..nd], &mut fe, k)?;
                for i in 0..nd {
                    fbar[i] += w * fe[i];
                }
                if let Some(kb) = kbar.as_deref_mut() {
                    let wt = w * tau;
                    for i in 0..nd {
                        for j in 0..nd {
                            kb[i][j] += wt * ke[i][j];
                        }
                    }
                }
            }
            if let Some(kb) = kbar {
                for a in 0..=p {
                    for b in 0..=p {
                        for k in 0..3 {
                            kb[3 * a + k][3 * b + k] += c * mass[a][b][usize::from(k == 2)];
                        }
                    }
                }
            }
            Ok(())
        };
        let fbar_global = &mut *self.fbar;
        let add = |e: usize, f: &[f64; MAX_DOFS], k: Option<&[[f64; MAX_DOFS]; MAX_DOFS]>| {
            let o = model.element_offset(e);
            for i in 0..nd {
                fbar_global[o + i] += f[i];
                res.m[o + i] += f[i].abs();
            }
            if let Some(k) = k {
                asm.add_element(e, o, nd, k);
                if floor {
                    res.add_element_floor(o, nd, k, 2.0, c, mass, &col, &inc);
                }
            }
        };
        self.pass.run(tangent, kernel, add).map_err(|(e, _)| e)?;
        // inertia (2/h²) M (d − h v₀)
        res.r.copy_from_slice(self.fbar);
        add_inertia(model, c, mass, d, self.v, h, &mut res.r, &mut res.m);
        for i in 0..d.len() {
            res.r[i] -= self.load[i];
            res.m[i] += self.load[i].abs();
        }
        res.finish(&model.fixed);
        Ok(())
    }

    fn coordinates<'a>(&'a self, _d: &'a [f64]) -> &'a [f64] {
        self.x1
    }
}

impl BeamIntegrator for SpaceTimeSolver<'_> {
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
        SpaceTimeSolver::diagnostics(self)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beam::model::{BeamSpec, EndCondition, PointLoad};
    use crate::beam::section::SectionProperties;
    use crate::model::load::TimeFunction;

    /// The load integral is exact for a hat-shaped table with knots inside the slab.
    #[test]
    fn load_integral_is_exact_across_breakpoints() {
        let sec = SectionProperties {
            rho_a: 1.0,
            rho_i: 1.0,
            ea: 1.0,
            ga: 1.0,
            ei: 1.0,
        };
        let mut spec = BeamSpec::cantilever(1.0, sec, 2, 1);
        spec.start = EndCondition::Free;
        spec.point_loads.push(PointLoad {
            node: 0,
            force: [2.0, 0.0],
            moment: 0.0,
            time_function: TimeFunction::Table {
                times: vec![0.0, 0.3, 0.7],
                values: vec![0.0, 1.0, 0.0],
            },
        });
        spec.point_loads.push(PointLoad {
            node: 2,
            force: [0.0, 1.0],
            moment: 0.0,
            time_function: TimeFunction::Window {
                start: 0.25,
                end: 0.5,
            },
        });
        let model = BeamModel::try_new(spec).unwrap();
        let mut st = SpaceTimeSolver::at_rest(&model, 1.0, SpaceTimeSettings::default()).unwrap();
        st.integrate_loads(0.1, 0.8);
        // ∫_{0.1}^{0.9} hat = 0.35 − ∫_0^{0.1} t/0.3 dt = 0.35 − 0.01/0.6
        let hat = 0.35 - 0.01 / 0.6;
        assert!(
            (st.load[0] - 2.0 * hat / 0.8).abs() < 1e-15,
            "{}",
            st.load[0]
        );
        assert!((st.load[7] - 0.25 / 0.8).abs() < 1e-15, "{}", st.load[7]);
    }
}
