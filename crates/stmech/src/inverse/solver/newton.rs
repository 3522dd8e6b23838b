//! Newton's method with the exact tangent for the space-time systems, with step halving when a
//! step inverts an element.

use super::assembly::Assembly;
use super::linear::{JacobianSink, LinearStage};
use super::{InverseError, NewtonHistory, NewtonSettings, TipLaw};
use crate::discretize::pattern::SKIP;
use crate::inverse::element::{ElementError, N_DOF, SpaceTimeElement};
use std::time::Instant;

/// Forward mode with a non-zero initial velocity: the prescribed `v(·, t_start)` enters the
/// element residuals through the `t = 0` nodes. Implemented by shifting the unknowns: the
/// assembler treats `v(·, 0) = 0`, so the known initial velocity is added as a correction.
pub(super) struct WithVelocity<'a> {
    pub(super) inner: Assembly<'a>,
    pub(super) v0: Vec<[f64; 3]>,
}

pub(super) fn newton_v(
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
pub(super) trait Assemble {
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

fn max_abs(r: &[f64]) -> f64 {
    r.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}
