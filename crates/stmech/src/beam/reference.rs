//! An independent reference for the forward beam integrators: the classical explicit
//! Runge–Kutta method of order 4 on the semi-discrete equations
//!
//! ```text
//! ẋ = v,    M v̇ = f_ext(t) − f_int(x)
//! ```
//!
//! (`M` the constant consistent mass matrix, `f_int = ∂Π/∂x` from
//! [`BeamElement::residual_into`]; prescribed unknowns keep their value with zero velocity). It
//! shares the spatial discretisation with [`super::dynamics`] and [`super::space_time`] — all
//! three converge to the same semi-discrete solution as `Δt → 0` — but none of their time
//! discretisation: no discrete gradient, no Cayley increment, no Newton, no time quadrature.
//! Its error is `O(Δt⁴)`, so a run with a small step gives the semi-discrete solution to many
//! more digits than the second-order integrators reach, and its own convergence is shown by
//! halving the step (the work-precision study of `stmech work-precision`, `docs/verification.md`
//! §B9).
//!
//! It is explicit, hence only stable for `Δt ω_max < 2√2` (`ω_max` the largest frequency of
//! the mesh, e.g. `≈ 2√15 c/h` for quadratic elements with the axial wave speed `c`): a
//! verification tool, not a user method. `M` is factorised once (banded LU).

use super::assembly::BeamAssembler;
use super::element::{BeamElement, MAX_DOFS};
use super::integrator::BeamDiagnostics;
use super::integrator::BeamIntegrator;
use super::model::BeamModel;
use crate::error::SolveError;

/// Classical RK4 on `ẋ = v, M v̇ = f_ext(t) − f_int(x)`.
#[derive(Debug)]
pub struct Rk4Reference<'a> {
    model: &'a BeamModel,
    mass: BeamAssembler,
    /// Time step `Δt` (s).
    pub dt: f64,
    t: f64,
    step: usize,
    x: Vec<f64>,
    v: Vec<f64>,
    /// Stage slopes `(k_x, k_v)` of the four stages.
    kx: [Vec<f64>; 4],
    kv: [Vec<f64>; 4],
    stage_x: Vec<f64>,
    external_work: f64,
    fext: Vec<f64>,
}

impl<'a> Rk4Reference<'a> {
    /// Starts from the reference configuration at rest at `t = 0` with step `dt` (s).
    pub fn at_rest(model: &'a BeamModel, dt: f64) -> Result<Self, SolveError> {
        let n = model.n_dofs();
        let mut mass = BeamAssembler::new(model)?;
        let m = model.element_mass();
        let nd = model.element_dofs();
        let p = model.spec.order;
        let mut me = [[0.0; MAX_DOFS]; MAX_DOFS];
        for a in 0..=p {
            for b in 0..=p {
                for k in 0..3 {
                    me[3 * a + k][3 * b + k] = m[a][b][usize::from(k == 2)];
                }
            }
        }
        for e in 0..model.spec.elements {
            mass.add_element(e, model.element_offset(e), nd, &me);
        }
        for i in 0..n {
            if model.fixed[i] {
                mass.add_diagonal(i, 1.0);
            }
        }
        mass.lu.factorize(&mass.values)?;
        let z = || vec![0.0; n];
        Ok(Self {
            model,
            mass,
            dt,
            t: 0.0,
            step: 0,
            x: model.x_ref.clone(),
            v: z(),
            kx: [z(), z(), z(), z()],
            kv: [z(), z(), z(), z()],
            stage_x: z(),
            external_work: 0.0,
            fext: z(),
        })
    }

    /// `M⁻¹ (f_ext(t) − f_int(x))` into `a` (zero at prescribed unknowns).
    fn acceleration(
        model: &BeamModel,
        mass: &mut BeamAssembler,
        t: f64,
        x: &[f64],
        a: &mut [f64],
    ) -> Result<(), usize> {
        a.fill(0.0);
        let nd = model.element_dofs();
        let mut fe = [0.0; MAX_DOFS];
        for e in 0..model.spec.elements {
            let o = model.element_offset(e);
            model
                .element(e)
                .residual_into(&x[o..o + nd], &mut fe, None)
                .map_err(|_| e)?;
            for i in 0..nd {
                a[o + i] -= fe[i];
            }
        }
        model.add_external_forces(t, a);
        for (ai, &f) in a.iter_mut().zip(&model.fixed) {
            if f {
                *ai = 0.0;
            }
        }
        mass.lu.solve_in_place(a);
        Ok(())
    }

    /// One RK4 step of size [`dt`](Self::dt). On error the state is unchanged.
    pub fn step(&mut self) -> Result<(), SolveError> {
        let (t0, h) = (self.t, self.dt);
        let n = self.x.len();
        let nonfinite = SolveError::NonFinite {
            block: self.step,
            t_start: t0,
            t_end: t0 + h,
            iteration: 0,
        };
        // stage s at t0 + c_s h from x0 + a_s h k_{s−1}, c = a = (0, ½, ½, 1)
        for (s, c) in [0.0, 0.5, 0.5, 1.0].into_iter().enumerate() {
            for i in 0..n {
                let (dx, dv) = if s == 0 {
                    (0.0, 0.0)
                } else {
                    (c * h * self.kx[s - 1][i], c * h * self.kv[s - 1][i])
                };
                self.stage_x[i] = self.x[i] + dx;
                self.kx[s][i] = self.v[i] + dv;
            }
            let (model, mass) = (self.model, &mut self.mass);
            Self::acceleration(model, mass, t0 + c * h, &self.stage_x, &mut self.kv[s])
                .map_err(|_| nonfinite.clone())?;
        }
        let x_old = std::mem::take(&mut self.stage_x);
        let mut x_new = x_old;
        for i in 0..n {
            let sx = self.kx[0][i] + 2.0 * self.kx[1][i] + 2.0 * self.kx[2][i] + self.kx[3][i];
            let sv = self.kv[0][i] + 2.0 * self.kv[1][i] + 2.0 * self.kv[2][i] + self.kv[3][i];
            x_new[i] = self.x[i] + h / 6.0 * sx;
            self.kx[0][i] = self.v[i] + h / 6.0 * sv;
        }
        if x_new
            .iter()
            .chain(&self.kx[0])
            .any(|value| !value.is_finite())
        {
            self.stage_x = x_new;
            return Err(nonfinite);
        }
        // external work: midpoint rule on the load, as the integrators report it
        self.fext.fill(0.0);
        self.model.add_external_forces(t0 + 0.5 * h, &mut self.fext);
        self.external_work += (0..n)
            .map(|i| self.fext[i] * (x_new[i] - self.x[i]))
            .sum::<f64>();
        std::mem::swap(&mut self.x, &mut x_new);
        std::mem::swap(&mut self.v, &mut self.kx[0]);
        self.stage_x = x_new;
        self.t = t0 + h;
        self.step += 1;
        Ok(())
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
}

impl BeamIntegrator for Rk4Reference<'_> {
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
        Rk4Reference::diagnostics(self)
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
        0
    }
}
