//! Statics of any [`ConstrainedSystem`] with load stepping: find `(q, λ)` with
//!
//! ```text
//! G(q)ᵀ λ − s f(q) = 0,        Φ(q) = 0,
//! ```
//!
//! where `f` holds the applied loads scaled by the load factor `s` (their time functions
//! evaluated at a fixed time, `StaticParams::time`) plus the internal elastic forces of the
//! strain elements (unscaled), by Newton–Raphson with the exact tangent
//! `[[K, Gᵀ], [G, 0]]` for `s = 1/n, 2/n, …, 1`, each step starting from the previous
//! solution. A step whose Newton iteration fails is halved (up to
//! [`StaticParams::max_bisections`] times in all) before the solve gives up with the load factor
//! it reached; after a halving the steps grow back without passing the nominal levels `k/n`, so
//! every one of them is an accepted step (in [`StaticSolution::history`]). The stop criterion
//! is relative: `‖R‖ ≤ tol · ‖f(q₀)‖` with the applied loads at `s = 1` (1 when there are
//! none), or a Newton correction at the round-off level of `q`. (No floor of 1 under `‖f‖`:
//! with loads below `tol` in magnitude the unloaded start would pass as converged, silently, in
//! 0 iterations.)

use crate::discretize::pattern::CscPattern;
use crate::error::SolveError;
use crate::model::{ConstrainedSystem, PointEval};
use crate::solve::NewtonParams;
use crate::solve::linear::LinearSolver;
use crate::solve::newton::assembled::frames_at_round_off;
use crate::solve::newton::{NewtonContext, NewtonReport, NewtonSolver, NewtonSystem, Stage};

/// Parameters of a static solve.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StaticParams {
    /// Number of equal load steps.
    pub load_steps: usize,
    /// Halvings of a failed load step before giving up.
    pub max_bisections: usize,
    /// Time at which the loads' time functions are evaluated (s).
    pub time: f64,
    /// Newton tolerance (relative to the reference force) and iteration limit per step.
    pub newton: NewtonParams,
}

impl Default for StaticParams {
    fn default() -> Self {
        Self {
            load_steps: 10,
            max_bisections: 6,
            time: 0.0,
            newton: NewtonParams::default(),
        }
    }
}

/// One accepted load step.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StaticStep {
    /// Load factor reached.
    pub load_factor: f64,
    /// Newton statistics of the step.
    pub newton: NewtonReport,
}

/// Result of a static solve.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticSolution {
    /// Coordinates at the full load.
    pub q: Vec<f64>,
    /// Multipliers (constraint forces) at the full load.
    pub lambda: Vec<f64>,
    /// Accepted load steps.
    pub steps: Vec<StaticStep>,
    /// Configurations after every accepted step (`steps.len() × n_q`, step-major).
    pub history: Vec<f64>,
}

struct StaticProblem<'a, S: ConstrainedSystem + ?Sized> {
    sys: &'a S,
    ev: PointEval,
    time: f64,
    scale: f64,
    positions: &'a [usize],
    /// The configuration the solve starts from (for the magnitude of the constraint rows).
    q_ref: &'a [f64],
    groups: Vec<u8>,
}

impl<S: ConstrainedSystem + ?Sized> NewtonSystem for StaticProblem<'_, S> {
    fn n_groups(&self) -> usize {
        crate::discretize::petrov_galerkin::SLOT_GROUPS
    }

    fn row_groups(&self) -> &[u8] {
        &self.groups
    }

    fn assemble(&mut self, x: &[f64], r: &mut [f64], m: &mut [f64], jacobian: Option<&mut [f64]>) {
        let (nq, nl) = (self.sys.n_q(), self.sys.n_lambda());
        let (q, lam) = x.split_at(nq);
        self.ev.load_scale = self.scale;
        self.sys
            .eval(self.time, q, lam, &mut self.ev, jacobian.is_some());
        r.fill(0.0);
        for i in 0..nq {
            r[i] = -self.ev.force[i];
            m[i] = self.ev.force_mag[i];
        }
        for (&(e, j), &g) in self.sys.g_pattern().iter().zip(&self.ev.g) {
            r[j] += g * lam[e];
            m[j] += (g * lam[e]).abs();
        }
        r[nq..nq + nl].copy_from_slice(&self.ev.phi);
        // a position-level constraint: |Φ| and the change of its terms from the start
        for (mi, p) in m[nq..nq + nl].iter_mut().zip(&self.ev.phi) {
            *mi = p.abs();
        }
        for (&(e, j), &g) in self.sys.g_pattern().iter().zip(&self.ev.g) {
            m[nq + e] += (g * (q[j] - self.q_ref[j])).abs();
        }
        if let Some(v) = jacobian {
            v.fill(0.0);
            let values = self.ev.k.iter().chain(&self.ev.g).chain(&self.ev.g);
            for (&pos, &val) in self.positions.iter().zip(values) {
                v[pos] += val;
            }
        }
    }

    /// `x ← from − α dx`, except the directors of each frame, which are *rotated* by the rotation
    /// vector `w = ½ Σ_i d_i × Δd_i` that best matches the additive step `Δd_i = −dx` (exact
    /// for `Δd_i = w × d_i`): the iterates stay on the orthonormality manifold, which keeps
    /// Newton in its basin for large rotation increments (the plain additive update diverged
    /// on the helix roll-up with 0.1 rad load steps).
    fn update(&mut self, x: &mut [f64], from: &[f64], dx: &[f64], alpha: f64) {
        x.copy_from_slice(from);
        let frames = self.sys.director_frames();
        for (i, (xi, d)) in x.iter_mut().zip(dx).enumerate() {
            if i >= 12 * frames || i % 12 < 3 {
                *xi -= alpha * d;
            }
        }
        for f in 0..frames {
            let q = &mut x[12 * f..12 * f + 12];
            let step = &dx[12 * f..12 * f + 12];
            let mut w = [0.0; 3];
            for i in 0..3 {
                let d = [q[3 + 3 * i], q[4 + 3 * i], q[5 + 3 * i]];
                let dd = [
                    -alpha * step[3 + 3 * i],
                    -alpha * step[4 + 3 * i],
                    -alpha * step[5 + 3 * i],
                ];
                let c = crate::math::cross(&d, &dd);
                for k in 0..3 {
                    w[k] += 0.5 * c[k];
                }
            }
            let angle = crate::math::norm(&w);
            if angle == 0.0 {
                continue;
            }
            let axis = [w[0] / angle, w[1] / angle, w[2] / angle];
            let (s, c) = angle.sin_cos();
            for i in 0..3 {
                let d = [q[3 + 3 * i], q[4 + 3 * i], q[5 + 3 * i]];
                // Rodrigues: d cos + (a × d) sin + a (a·d)(1 − cos)
                let axd = crate::math::cross(&axis, &d);
                let ad = crate::math::dot(&axis, &d);
                for k in 0..3 {
                    q[3 + 3 * i + k] = d[k] * c + axd[k] * s + axis[k] * ad * (1.0 - c);
                }
            }
        }
    }

    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        let nq = self.sys.n_q();
        frames_at_round_off(&x[..nq], &dx[..nq])
    }
}

/// Solves the static problem from the configuration `q0` (usually the stress-free reference).
///
/// Errors: [`SolveError::StaticLoadStep`] when a load step fails even after
/// `max_bisections` halvings (it names the load factor reached and the remedy);
/// [`SolveError::Factorization`] for a singular tangent at the start (an unsupported body, a
/// mechanism).
pub fn solve_static<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    params: &StaticParams,
) -> Result<StaticSolution, SolveError> {
    let (nq, nl) = (sys.n_q(), sys.n_lambda());
    let n = nq + nl;
    let entries = || {
        sys.k_pattern()
            .iter()
            .copied()
            .chain(sys.g_pattern().iter().map(move |&(e, j)| (j, nq + e)))
            .chain(sys.g_pattern().iter().map(move |&(e, j)| (nq + e, j)))
    };
    let pattern = CscPattern::from_entries(n, entries);
    let positions: Vec<usize> = entries().map(|(i, j)| pattern.position(i, j)).collect();
    let mut solver = NewtonSolver::new(LinearSolver::for_pattern(pattern)?);
    let mut groups = crate::discretize::petrov_galerkin::slot_groups(sys, nq, nl, 1);
    // rows: R_q then Φ (no kinematic rows)
    groups.drain(nq..2 * nq);
    let mut prob = StaticProblem {
        sys,
        ev: sys.new_point_eval(),
        time: params.time,
        scale: 0.0,
        positions: &positions,
        q_ref: q0,
        groups,
    };
    let mut x = vec![0.0; n];
    x[..nq].copy_from_slice(q0);
    let mut trial = x.clone();
    let steps = params.load_steps.max(1);
    let base = 1.0 / steps as f64;
    let mut s = 0.0;
    let mut step = base;
    let mut halvings = 0;
    let mut out = StaticSolution {
        q: Vec::new(),
        lambda: Vec::new(),
        steps: Vec::new(),
        history: Vec::new(),
    };
    let mut index = 0;
    let mut level = 0;
    while level < steps {
        // never step past the next nominal level k/n: after a halving the steps grow back
        // to those levels, so the history holds every one of them
        let next = (level + 1) as f64 / steps as f64;
        let at_level = s + step >= next - 1e-9 * base;
        let target = if at_level { next } else { s + step };
        prob.scale = target;
        trial.copy_from_slice(&x);
        let cx = NewtonContext {
            block: index,
            t_start: s,
            t_end: target,
            stage: Stage::LoadStep,
        };
        match solver.solve(&mut prob, &mut trial, &params.newton, cx) {
            Ok(report) => {
                x.copy_from_slice(&trial);
                s = target;
                level += usize::from(at_level);
                index += 1;
                out.steps.push(StaticStep {
                    load_factor: s,
                    newton: report,
                });
                out.history.extend_from_slice(&x[..nq]);
                // grow back towards the nominal step after a success
                step = (2.0 * step).min(base);
            }
            Err(SolveError::Factorization(m)) if index == 0 && halvings == 0 => {
                return Err(SolveError::Factorization(format!(
                    "{m} (at the start of the static solve: is every body and node held by a \
                     support or joint? a free or mechanism-like system has no static solution)"
                )));
            }
            Err(e) => {
                if halvings >= params.max_bisections {
                    let (iterations, residual) = match &e {
                        SolveError::NewtonDiverged {
                            iterations,
                            residual,
                            ..
                        } => (*iterations, *residual),
                        _ => (0, f64::NAN),
                    };
                    return Err(SolveError::StaticLoadStep {
                        reached: s,
                        target,
                        iterations,
                        residual,
                        cause: match &e {
                            SolveError::NewtonDiverged { .. } => "Newton did not converge".into(),
                            SolveError::NonFinite { .. } => {
                                "the iteration produced a non-finite value".into()
                            }
                            other => other.to_string(),
                        },
                    });
                }
                halvings += 1;
                step *= 0.5;
            }
        }
    }
    out.q = x[..nq].to_vec();
    out.lambda = x[nq..].to_vec();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::director_beam::{
        BeamSpec, ConstantCurvature, DiagonalStiffness, Integration, Section, SectionInertia,
    };
    use crate::model::{JointBody, Load, LoadKind, MultibodySystem, Rigid, TimeFunction};

    /// Clamped straight beam of length 1 along `z` (4 quadratic elements, `EI = 1`,
    /// `EA = GA = 1e3`) under a dead tip force `p` along `y`.
    fn cantilever(p: f64) -> MultibodySystem {
        let frame = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let section = Section::from_diagonal(
            DiagonalStiffness {
                ea: 1e3,
                ga1: 1e3,
                ga2: 1e3,
                ei1: 1.0,
                ei2: 1.0,
                gj: 1.0,
            },
            SectionInertia {
                rho_a: 1.0,
                euler_tensor: [[1e-3, 0.0], [0.0, 1e-3]],
            },
        )
        .unwrap();
        let beam = BeamSpec {
            name: "beam".into(),
            order: 2,
            nodes: ConstantCurvature::straight([0.0; 3], frame).nodes(1.0, 4, 2),
            section,
            integration: Integration::Reduced,
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            distributed: vec![],
            gravity: None,
        }
        .build()
        .unwrap();
        let clamp = Rigid::new(0, JointBody::Ground, &beam.initial_q[..12], &[]);
        let tip = Load {
            body: 8,
            kind: LoadKind::Force([0.0, p, 0.0]),
            time_function: TimeFunction::Constant,
        };
        MultibodySystem::with_deformables(vec![], vec![beam], vec![tip], vec![Box::new(clamp)])
            .unwrap()
    }

    #[test]
    fn loads_below_the_tolerance_are_solved_not_accepted_unloaded() {
        // A tip force of 1e-12 N is below the Newton tolerance in absolute terms: the
        // criterion must be relative to it (it once had a floor of 1 N and returned the
        // unloaded beam after 0 iterations).
        let p = 1e-12;
        let sys = cantilever(p);
        let (q0, _) = sys.initial_state();
        let sol = solve_static(
            &sys,
            &q0,
            &StaticParams {
                load_steps: 1,
                ..Default::default()
            },
        )
        .unwrap();
        // quadratic elements with 2-point integration: Timoshenko's tip deflection exactly
        let want = p / 3.0 + p / 1e3;
        let w = sol.q[12 * 8 + 1];
        assert!(sol.steps[0].newton.iterations > 0);
        assert!((w - want).abs() < 1e-9 * want, "{w:e} vs {want:e}");
    }

    #[test]
    fn halved_steps_grow_back_to_the_nominal_load_levels() {
        // Large deflection (α = 8) with 4 load steps and at most 8 Newton iterations: the first
        // step fails and is halved, and so does the one from 1/4; the steps that follow must
        // end at the nominal levels k/4 (they once went on from 3/8 to 5/8, 7/8), so that every
        // level is in the history.
        let sys = cantilever(8.0);
        let (q0, _) = sys.initial_state();
        let sol = solve_static(
            &sys,
            &q0,
            &StaticParams {
                load_steps: 4,
                max_bisections: 3,
                time: 0.0,
                newton: NewtonParams {
                    tolerance: 1e-10,
                    max_iterations: 8,
                },
            },
        )
        .unwrap();
        let factors: Vec<f64> = sol.steps.iter().map(|s| s.load_factor).collect();
        assert!(factors.len() > 4, "a step was halved: {factors:?}");
        assert!(factors.windows(2).all(|w| w[0] < w[1]), "{factors:?}");
        for k in 1..=4 {
            assert!(factors.contains(&(k as f64 / 4.0)), "{k}/4 in {factors:?}");
        }
        let n = sys.n_q();
        assert_eq!(sol.history.len(), factors.len() * n);
        assert_eq!(&sol.history[(factors.len() - 1) * n..], &sol.q[..]);
    }
}
