//! One BDF step of the sequential baseline on the Newton driver, and the step loop.

use super::semi::SemiDiscrete;
use super::{SequentialFailure, SequentialSettings};
use crate::error::SolveError;
use crate::inverse::element::ElementError;
use crate::inverse::solver::InverseError;
use crate::solve::newton::assembled::ROUND_OFF_CORRECTION;
use crate::solve::newton::{
    DriverBuffers, Measures, NewtonError, NewtonProblem, NewtonReport, Refactorization, drive,
};
use std::time::Instant;

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
