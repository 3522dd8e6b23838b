//! The sequential baseline of `[I]` Sect. 2 for the spatial arm: finite elements in space
//! first, then the semi-discrete equations with the servo constraint integrated in time,
//!
//! ```text
//! M(q) q̈ + f_gyr(q, q̇) + f_int(q) = E₀ F(t),        q_tip = (r, ψ)_tip = γ(t)
//! ```
//!
//! the spatial counterpart of [`crate::inverse::sequential`] (read its module docs: the same
//! BDF1/BDF2 discretisation of the position-level DAE, the same Newton iteration on
//! `(q_{n+1}, F_{n+1})`, the same breakdowns, and the same generic integrator,
//! `integrate` of [`crate::inverse::sequential`]).
//!
//! # Semi-discrete model
//! Linear elements in `s` with six unknowns per node, `x = (r, ψ)`, and the point law of the
//! space-time FEM ([`super::law::SpatialPointLaw`], through the generic
//! [`InverseBody`]/[`PointLaw`] seam): per element of length `h_s`
//!
//! * stiffness: the stresses at the midpoint (the FEM's one-point rule in `s`),
//!   `f_a = ±g_p + ½ h_s g_x` on the nodes `a = 0, 1`, tangent from the Hessian;
//! * inertia: `∫ N_a (A ẍ + f(x, ẋ, ẍ)) ds` with the constant part `A = (ρA, ρA, ρA, 0, 0, 0)`
//!   and the nonlinear rotary inertia `f` of the law ([`PointLaw::inertia_point`]), by the
//!   2-point Gauss rule ([`MassMatrix::Consistent`]: exact for `A`, the consistent mass) or
//!   by the nodal rule ([`MassMatrix::Lumped`]: the row-sum lumped `A`, node-wise rotary
//!   inertia);
//! * tip: the tip body's Newton–Euler inertia ([`InverseBody::tip_point`], [`super::body`]).
//!
//! `ẋ`, `ẍ` are the BDF differences of the nodal unknowns, so the iteration matrix block is
//! `h² ∂f/∂x + h α₀ ∂f/∂ẋ + α₀² ∂f/∂ẍ` at the quadrature points. For a planar motion
//! (rotation about a fixed principal axis) `f` is linear and the equations are those of the
//! planar baseline with the quadratic law ([`super::law`], "Planar motion").
//!
//! # Actuation
//! `F` is the generalised force on node 0, conjugate to `(r, ψ)`; the physical force and
//! moment applied to the beam at `s = 0` are `(f, T⁻ᵀ F_ψ)` at the base's rotation vector
//! ([`SpatialBeam::physical_actuation`], as for the FEM's
//! [`crate::inverse::SpaceTimeSolution::base_actuation`]).

use super::SpatialBeam;
use super::servo::PoseServo;
use super::solve::check_start_pose;
use crate::inverse::body::InverseBody;
use crate::inverse::element::{BilinearElement, ElementError, InertiaPoint, PointLaw};
use crate::inverse::sequential::{
    MassMatrix, SemiDiscrete, SequentialFailure, SequentialSettings, check_settings, check_time,
    integrate, rest_condition,
};
use crate::inverse::solver::InverseError;
use crate::inverse::trajectory::ServoPath;
use crate::inverse::trajectory::pose::PoseTrajectory;
use std::time::Instant;

/// The semi-discrete model of an [`InverseBody`] on linear elements (module docs).
pub(crate) struct BodySemi<B: InverseBody<N>, const N: usize> {
    body: B,
    /// The element (for its point law).
    element: BilinearElement<B::Law, N>,
    elements: usize,
    hs: f64,
    /// Quadrature in `s` of the inertia: `(ξ, weight / h_s)`.
    inertia_rule: [(f64, f64); 2],
    /// `Σ_{k≥1} α_k (q_{n+1−k} − q_n)` and `Σ_{k≥1} α_k v_{n+1−k}` of the step, and `q_n`
    /// (`Σ α_k = 0`: `h v = α₀ (q − q_n) + hist_q`, differences of nearby values, exactly 0
    /// at rest and independent of the origin).
    hist_q: Vec<f64>,
    hist_v: Vec<f64>,
    q_before: Vec<f64>,
}

impl<B: InverseBody<N>, const N: usize> BodySemi<B, N> {
    /// `elements` linear elements of `body` with the inertia rule of `mass`.
    pub(crate) fn new(body: B, elements: usize, mass: MassMatrix) -> Self {
        let hs = body.length() / elements as f64;
        let g = 0.5 / 3f64.sqrt();
        let inertia_rule = match mass {
            MassMatrix::Consistent => [(0.5 - g, 0.5), (0.5 + g, 0.5)],
            MassMatrix::Lumped => [(0.0, 0.5), (1.0, 0.5)],
        };
        let n = N * (elements + 1);
        Self {
            body,
            element: body.element(hs, 1.0),
            elements,
            hs,
            inertia_rule,
            hist_q: vec![0.0; n],
            hist_v: vec![0.0; n],
            q_before: vec![0.0; n],
        }
    }

    /// `(x, v, a)` of the unknowns `i .. i + N` at `q` (`v`, `a` the BDF differences).
    fn node(&self, alpha0: f64, h: f64, q: &[f64], i: usize) -> [[f64; N]; 3] {
        let x: [f64; N] = std::array::from_fn(|c| q[i + c]);
        let v: [f64; N] = std::array::from_fn(|c| {
            (alpha0 * (x[c] - self.q_before[i + c]) + self.hist_q[i + c]) / h
        });
        let a: [f64; N] = std::array::from_fn(|c| (alpha0 * v[c] + self.hist_v[i + c]) / h);
        [x, v, a]
    }

    /// Adds the inertia `h² w (A_diag a + ip.f)` to `rhs` (negated) and its magnitude to
    /// `mag` on the rows `rows` weighted by `wr`, and its derivative to `jac` on the columns
    /// `cols` weighted by `wc`.
    #[allow(clippy::too_many_arguments)]
    fn add_inertia(
        &self,
        (alpha0, h): (f64, f64),
        a_diag: &[f64; N],
        acc: &[f64; N],
        ip: &InertiaPoint<N>,
        rows: &[(usize, f64)],
        cols: &[(usize, f64)],
        (rhs, mag, jac, m): (&mut [f64], &mut [f64], &mut [f64], usize),
    ) {
        let h2 = h * h;
        for &(ra, wa) in rows {
            for c in 0..N {
                let t = wa * h2 * (a_diag[c] * acc[c] + ip.f[c]);
                rhs[ra + c] -= t;
                mag[ra + c] += t.abs();
            }
            for &(cb, wb) in cols {
                let w = wa * wb;
                for c in 0..N {
                    let row = (ra + c) * m + cb;
                    jac[row + c] += w * alpha0 * alpha0 * a_diag[c];
                    for d in 0..N {
                        jac[row + d] += w
                            * (h2 * ip.jx[c][d]
                                + h * alpha0 * ip.jv[c][d]
                                + alpha0 * alpha0 * ip.ja[c][d]);
                    }
                }
            }
        }
    }
}

impl<B: InverseBody<N>, const N: usize> SemiDiscrete<N> for BodySemi<B, N> {
    fn dofs(&self) -> usize {
        N * (self.elements + 1)
    }

    fn tip(&self) -> usize {
        N * self.elements
    }

    fn rest(&self) -> Vec<f64> {
        self.body
            .initial_nodes(self.elements)
            .into_iter()
            .flatten()
            .collect()
    }

    fn begin_step(&mut self, alpha: &[f64], _h: f64, qh: &[Vec<f64>], vh: &[Vec<f64>]) {
        self.q_before.copy_from_slice(&qh[0]);
        for i in 0..self.hist_q.len() {
            let (mut sq, mut sv) = (0.0, 0.0);
            for k in 1..alpha.len() {
                sq += alpha[k] * (qh[k - 1][i] - qh[0][i]);
                sv += alpha[k] * vh[k - 1][i];
            }
            self.hist_q[i] = sq;
            self.hist_v[i] = sv;
        }
    }

    fn rotation(&self, c: usize) -> bool {
        <B::Law as PointLaw<N>>::X_ENTERS[c]
    }

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
        let (n, hs, h2) = (self.dofs(), self.hs, h * h);
        rhs[..n].fill(0.0);
        let law = self.element.law();
        let a_in = law.inertia();
        let load = self.body.load();
        for e in 0..self.elements {
            let o = [N * e, N * (e + 1)];
            let nodes = [self.node(alpha0, h, q, o[0]), self.node(alpha0, h, q, o[1])];
            // inertia: ∫ N_a (A a + f(x, v, a)) ds
            for &(xi, w) in &self.inertia_rule {
                let sh = [1.0 - xi, xi];
                let mix = |k: usize| -> [f64; N] {
                    std::array::from_fn(|c| sh[0] * nodes[0][k][c] + sh[1] * nodes[1][k][c])
                };
                let (x, v, a) = (mix(0), mix(1), mix(2));
                let ip = if <B::Law as PointLaw<N>>::NONLINEAR_INERTIA {
                    law.inertia_point(&x, &v, &a, true)
                } else {
                    InertiaPoint::ZERO
                };
                let rows = [(o[0], w * hs * sh[0]), (o[1], w * hs * sh[1])];
                let cols = [(o[0], sh[0]), (o[1], sh[1])];
                self.add_inertia(
                    (alpha0, h),
                    &a_in,
                    &a,
                    &ip,
                    &rows,
                    &cols,
                    (rhs, mag, jac, m),
                );
            }
            // stiffness: one point, f_a = ±g_p + ½ h_s g_x
            let x: [f64; N] = std::array::from_fn(|c| 0.5 * (q[o[0] + c] + q[o[1] + c]));
            let p: [f64; N] = std::array::from_fn(|c| (q[o[1] + c] - q[o[0] + c]) / hs);
            let sp = law.stress_point(&x, &p, true)?;
            let sgn = [-1.0, 1.0];
            for a in 0..2 {
                let (sa, na) = (sgn[a] / hs, 0.5);
                for c in 0..N {
                    let (fi, fl) = (sgn[a] * sp.gp[c] + 0.5 * hs * sp.gx[c], 0.5 * hs * load[c]);
                    rhs[o[a] + c] -= h2 * (fi - fl);
                    mag[o[a] + c] += h2 * (fi.abs() + fl.abs());
                    let row = (o[a] + c) * m;
                    for b in 0..2 {
                        let (sb, nb) = (sgn[b] / hs, 0.5);
                        for d in 0..N {
                            let k = sa * (sp.hpp[c][d] * sb + sp.hpx[c][d] * nb)
                                + na * (sp.hpx[d][c] * sb + sp.hxx[c][d] * nb);
                            jac[row + o[b] + d] += h2 * hs * k;
                        }
                    }
                }
            }
        }
        // the tip: constant mass, nonlinear tip law, tip load
        let tip = self.tip();
        let [x, v, a] = self.node(alpha0, h, q, tip);
        let one = [(tip, 1.0)];
        if let Some(mt) = self.body.tip_mass() {
            let ip = InertiaPoint::ZERO;
            self.add_inertia((alpha0, h), &mt, &a, &ip, &one, &one, (rhs, mag, jac, m));
        }
        if B::NONLINEAR_TIP {
            let ip = self.body.tip_point(&x, &v, &a, true);
            self.add_inertia(
                (alpha0, h),
                &[0.0; N],
                &a,
                &ip,
                &one,
                &one,
                (rhs, mag, jac, m),
            );
        }
        let tl = self.body.tip_load();
        for c in 0..N {
            rhs[tip + c] += h2 * tl[c];
            mag[tip + c] += (h2 * tl[c]).abs();
        }
        Ok(())
    }

    /// A rotation out of the chart is the Newton iterate's, not the path's.
    fn describe(&self, e: &ElementError) -> String {
        match e {
            ElementError::RotationLimit { angle, limit } => format!(
                "the iterate turns a cross-section by {angle:.4e} rad from its start frame, \
                 past the rotation-vector chart (accepted: {limit:.3} rad)"
            ),
            _ => e.to_string(),
        }
    }
}

/// A sequential run of the spatial arm: the results up to the end or up to the breakdown (the
/// same meaning as [`crate::inverse::sequential::SequentialRun`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct SpatialSequentialRun {
    /// Settings used.
    pub settings: SequentialSettings,
    /// Time points (s), from `t_start`.
    pub t: Vec<f64>,
    /// The generalised actuation on node 0, conjugate to `(r, ψ)`, per time point.
    pub actuation: Vec<[f64; 6]>,
    /// The force applied to the beam at `s = 0` (N, global frame), per time point.
    pub force: Vec<[f64; 3]>,
    /// The moment applied to the beam at `s = 0` (N·m, global frame), per time point.
    pub moment: Vec<[f64; 3]>,
    /// Newton iterations per step.
    pub iterations: Vec<usize>,
    /// `None` if the run reached `t_end`.
    pub failure: Option<SequentialFailure>,
    /// 2-norm condition number of the iteration matrix at the rest state.
    pub condition_number: f64,
    /// Wall time (s).
    pub seconds: f64,
}

fn norm(a: &[f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

impl SpatialSequentialRun {
    /// Whether the run reached the end time.
    pub fn completed(&self) -> bool {
        self.failure.is_none()
    }

    /// Largest `|f|` over the run (N).
    pub fn peak_force(&self) -> f64 {
        self.force.iter().map(norm).fold(0.0, f64::max)
    }

    /// Largest `|m|` over the run (N·m).
    pub fn peak_moment(&self) -> f64 {
        self.moment.iter().map(norm).fold(0.0, f64::max)
    }

    /// The force and moment at `t`, piecewise linear (constant outside the computed range).
    pub fn force_moment_at(&self, t: f64) -> ([f64; 3], [f64; 3]) {
        let fm: Vec<[f64; 6]> = self
            .force
            .iter()
            .zip(&self.moment)
            .map(|(f, m)| [f[0], f[1], f[2], m[0], m[1], m[2]])
            .collect();
        let v = crate::inverse::solver::interpolate(&self.t, &fm, t);
        ([v[0], v[1], v[2]], [v[3], v[4], v[5]])
    }
}

/// 2-norm condition number of the iteration matrix at the rest state (first step).
pub fn iteration_matrix_condition(
    beam: &SpatialBeam,
    settings: &SequentialSettings,
) -> Result<f64, InverseError> {
    beam.validate("beam")?;
    check_settings(settings)?;
    rest_condition::<6, _>(
        &mut BodySemi::new(*beam, settings.elements, settings.mass),
        settings,
    )
}

/// Runs the sequential baseline of the spatial arm on `[t_start, t_end]` (module docs): the tip
/// pose follows `path` (from the tip's rest pose), steps of `settings.step` (the last one
/// shortened to land on `t_end`). Input errors are `Err`; a breakdown of the integration
/// (Newton failure, an element or rotation out of range, non-finite values, singular matrix)
/// is reported in [`SpatialSequentialRun::failure`] with the results up to that step.
pub fn solve_sequential(
    beam: &SpatialBeam,
    t_start: f64,
    t_end: f64,
    path: &dyn PoseTrajectory,
    settings: &SequentialSettings,
) -> Result<SpatialSequentialRun, InverseError> {
    let started = Instant::now();
    beam.validate("beam")?;
    check_settings(settings)?;
    check_time(t_start, t_end)?;
    check_start_pose(beam, path, t_start)?;
    let servo = PoseServo::new(path, &beam.frame, t_start, t_end)?;
    let condition_number = iteration_matrix_condition(beam, settings)?;
    let mut semi = BodySemi::new(*beam, settings.elements, settings.mass);
    let f0 = beam.initial_actuation(
        &semi.element,
        &beam.initial_nodes(settings.elements),
        semi.hs,
    );
    let run = integrate::<6, _>(
        &mut semi,
        t_start,
        t_end,
        f0,
        &|t| servo.target(t),
        settings,
    );
    let (force, moment) = run
        .base
        .iter()
        .zip(&run.actuation)
        .map(|(x, f)| SpatialBeam::physical_actuation(&[x[3], x[4], x[5]], f))
        .unzip();
    Ok(SpatialSequentialRun {
        settings: *settings,
        t: run.t,
        actuation: run.actuation,
        force,
        moment,
        iterations: run.iterations,
        failure: run.failure,
        condition_number,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The assembled iteration-matrix block is the derivative of the assembled residual
    /// (central differences at a moving, deformed state with the tip body).
    #[test]
    fn iteration_matrix_is_the_derivative_of_the_residual() {
        let beam = SpatialBeam::helix_example(1.0);
        for mass in [MassMatrix::Consistent, MassMatrix::Lumped] {
            let mut semi = BodySemi::new(beam, 3, mass);
            let n = semi.dofs();
            let m = n + 6;
            let q0 = semi.rest();
            let wobble =
                |i: usize, s: f64| q0[i] + s * (0.05 * ((i as f64) * 1.3).sin() + 0.01 * s);
            let qh: Vec<Vec<f64>> = (1..=2)
                .map(|k| (0..n).map(|i| wobble(i, -(k as f64))).collect())
                .collect();
            let vh: Vec<Vec<f64>> = (1..=2)
                .map(|k| (0..n).map(|i| 0.3 * ((i + k) as f64).cos()).collect())
                .collect();
            let (alpha, h) = ([1.5, -2.0, 0.5], 0.1);
            semi.begin_step(&alpha, h, &qh, &vh);
            let q: Vec<f64> = (0..n)
                .map(|i| wobble(i, 0.0) + 0.02 * (i as f64).sin())
                .collect();
            let (mut r, mut j) = (vec![0.0; m], vec![0.0; m * m]);
            let mut mag = vec![0.0; m];
            semi.evaluate(alpha[0], h, &q, &mut r, &mut mag, &mut j, m)
                .unwrap();
            let eps = 1e-6;
            let (mut worst, mut scale) = (0.0f64, 0.0f64);
            for col in 0..n {
                let (mut qp, mut qm) = (q.clone(), q.clone());
                qp[col] += eps;
                qm[col] -= eps;
                let (mut rp, mut rm, mut jj) = (vec![0.0; m], vec![0.0; m], vec![0.0; m * m]);
                semi.evaluate(alpha[0], h, &qp, &mut rp, &mut mag, &mut jj, m)
                    .unwrap();
                jj.fill(0.0);
                semi.evaluate(alpha[0], h, &qm, &mut rm, &mut mag, &mut jj, m)
                    .unwrap();
                for row in 0..n {
                    // rhs = −residual
                    let fd = -(rp[row] - rm[row]) / (2.0 * eps);
                    worst = worst.max((fd - j[row * m + col]).abs());
                    scale = scale.max(j[row * m + col].abs());
                }
            }
            assert!(worst < 1e-6 * scale, "{mass:?}: {worst:e} vs {scale:e}");
        }
    }
}
