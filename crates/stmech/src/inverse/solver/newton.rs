//! Newton's method with the exact tangent for the space-time systems, with step halving when a
//! step inverts an element.

use super::assembly::Assembly;
use super::linear::{JacobianSink, LinearStage};
use super::{InverseError, LinearSolverKind, NewtonHistory, NewtonSettings};
use crate::discretize::pattern::SKIP;
use crate::inverse::body::InverseBody;
use crate::inverse::element::{ElementError, SpaceTimeElement};
use crate::inverse::sideways::{PassError, Sideways};
use std::time::Instant;

/// Forward mode with a non-zero initial velocity: the prescribed `v(·, t_start)` enters the
/// element residuals through the `t = 0` nodes. Implemented by shifting the unknowns: the
/// assembler treats `v(·, 0) = 0`, so the known initial velocity is added as a correction.
pub(super) struct WithVelocity<'a, B: InverseBody<N>, const N: usize> {
    pub(super) inner: Assembly<'a, B, N>,
    pub(super) v0: Vec<[f64; N]>,
}

pub(super) fn newton_v<B: InverseBody<N>, const N: usize>(
    asm: &WithVelocity<'_, B, N>,
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
pub(super) trait Assemble {
    fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError>;
}

struct AssemblyV<'b, 'a, B: InverseBody<N>, const N: usize> {
    a: &'b Assembly<'a, B, N>,
    v0: &'b [[f64; N]],
}

impl<B: InverseBody<N>, const N: usize> Assemble for AssemblyV<'_, '_, B, N> {
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
        let nd = 8 * N;
        let mut q = vec![0.0; nd];
        let mut q_ref = vec![0.0; nd];
        let (mut re, mut re_ref) = (vec![0.0; nd], vec![0.0; nd]);
        let mut d = vec![0usize; nd];
        for es in 0..self.a.mesh.elements_s {
            for a in 0..4 {
                for c in 0..2 * N {
                    q[2 * N * a + c] = self.a.node_value(u, es + a % 2, a / 2, c);
                }
            }
            q_ref.copy_from_slice(&q);
            for a in 0..2 {
                for c in 0..N {
                    q[2 * N * a + N + c] = self.v0[es + a][c];
                }
            }
            self.a.element.residual_into(&q, &mut re, None)?;
            self.a.element.residual_into(&q_ref, &mut re_ref, None)?;
            super::numbering::element_dofs::<N>(ns1, es, 0, &mut d);
            for row in 0..nd {
                if d[row] != SKIP as usize {
                    r[d[row]] += re[row] - re_ref[row];
                }
            }
        }
        if let Some(mt) = self.a.beam.tip_mass() {
            // + ∫ N_1 M ∂t v(L) over the first time element: the v(L, 0) part is −½ M v0.
            let ns = self.a.mesh.elements_s;
            for c in 0..N {
                let row = super::numbering::dof::<N>(ns1, ns, 1, N + c);
                r[row] -= 0.5 * mt[c] * self.v0[ns][c];
            }
        }
        Ok(())
    }
}

impl<B: InverseBody<N>, const N: usize> Assemble for Assembly<'_, B, N> {
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
pub(super) fn newton_generic<A: Assemble>(
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
            return Err(newton_failed(hist, norm, settings));
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

fn max_abs(r: &[f64]) -> f64 {
    r.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// Newton with the streamed sideways elimination ([`crate::inverse::sideways`]): each pass
/// evaluates the residual and solves for the update in one march from the tip; a
/// residual-only pass checks convergence first where it is expected (`10 r_k³ / r_{k−1}²`,
/// the quadratic prediction with a margin, below the tolerance after a full step). Same stopping rule, step halving and failures as
/// [`newton_generic`]. Vectors: the iterate and two updates (the last one, kept for step
/// halving, and the one being computed).
pub(super) fn newton_sideways<B: InverseBody<N>, const N: usize>(
    sw: &mut Sideways<'_, B, N>,
    settings: &NewtonSettings,
    mut u: Vec<f64>,
) -> Result<(Vec<f64>, NewtonHistory), InverseError> {
    let n = sw.unknowns();
    let mut hist = NewtonHistory {
        unknowns: n,
        nonzeros: sw.stored(),
        linear_solver: LinearSolverKind::Sideways,
        ..Default::default()
    };
    let mut du = vec![0.0; n];
    let mut du_new = vec![0.0; n];
    // step length of the current iterate from the last one (1 until a step is halved)
    let mut step = 1.0;
    let mut force_full = false;
    loop {
        // quadratic convergence, r_{k+1} ≈ C r_k² with C from the last two residuals, with a
        // margin of 10
        let expect_converged = !force_full
            && step == 1.0
            && match hist.residuals[..] {
                [.., a, b] => 10.0 * b * (b / a) * (b / a) < settings.tolerance,
                _ => false,
            };
        let full = !expect_converged;
        let pass = match sw.pass(&u, &mut du_new, full) {
            Ok(p) => p,
            Err(PassError::Linear(e)) => return Err(e.into()),
            Err(PassError::Element(source)) => {
                if hist.iterations == 0 || step < 1.0 / 16.0 {
                    return Err(InverseError::Element {
                        iteration: hist.iterations,
                        source,
                    });
                }
                // u = u_old − step du → u_old − (step / 2) du
                for (uk, dk) in u.iter_mut().zip(&du) {
                    *uk += 0.5 * step * dk;
                }
                step *= 0.5;
                continue;
            }
        };
        hist.assembly_seconds += pass.kernel_seconds;
        hist.linear_seconds += pass.column_seconds;
        let norm = pass.norm;
        if !full {
            hist.residual_checks += 1;
            if norm < settings.tolerance {
                hist.residuals.push(norm);
                return Ok((u, hist));
            }
            // not yet: the same iterate again, with the update
            force_full = true;
            continue;
        }
        force_full = false;
        hist.residuals.push(norm);
        if norm < settings.tolerance {
            return Ok((u, hist));
        }
        if hist.iterations >= settings.max_iterations || !norm.is_finite() {
            return Err(newton_failed(hist, norm, settings));
        }
        hist.linear_residual = hist.linear_residual.max(pass.mismatch / norm);
        hist.iterations += 1;
        std::mem::swap(&mut du, &mut du_new);
        for (uk, dk) in u.iter_mut().zip(&du) {
            *uk -= dk;
        }
        step = 1.0;
    }
}

/// The Newton failure for the history `hist` ending at `norm`.
fn newton_failed(hist: NewtonHistory, norm: f64, settings: &NewtonSettings) -> InverseError {
    let history_text = hist
        .residuals
        .iter()
        .map(|x| format!("{x:.2e}"))
        .collect::<Vec<_>>()
        .join(", ");
    InverseError::NewtonFailed {
        iterations: hist.iterations,
        residual: norm,
        tolerance: settings.tolerance,
        history: hist.residuals,
        history_text,
    }
}
