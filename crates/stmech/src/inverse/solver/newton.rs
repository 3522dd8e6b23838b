//! The Newton iteration of the space-time systems, through the one Newton driver of stmech
//! ([`crate::solve::newton::drive`]): the stop relative to the magnitudes of the terms of every
//! equation group ([`GROUPS`]: kinematics, momentum balance, servo rows, each split into
//! translations and rotations) with a round-off floor from the absolute coordinates, the line
//! search (halving where a step inverts an element), and failures with the body's
//! [`Stage`](crate::solve::newton::Stage).
//!
//! Two linearisations: the stored Jacobian with faer's sparse LU ([`Stored`]; forward mode and
//! held components) and the streamed sideways elimination ([`Streamed`], the default of
//! inverse mode), whose pass evaluates the residual and solves for the update in one march:
//! where the driver predicts convergence it asks for the residual alone
//! ([`NewtonProblem::jacobian_with_residual`]).

use super::assembly::{Assembly, Layout};
use super::linear::{JacobianSink, LinearStage};
use super::{InverseError, LinearSolverKind, NewtonHistory, NewtonSettings};
use crate::discretize::pattern::SKIP;
use crate::error::SolveError;
use crate::inverse::body::InverseBody;
use crate::inverse::element::{
    ElementError, GROUPS, KINEMATIC, MOMENTUM, SERVO, SpaceTimeElement, group,
};
use crate::inverse::sideways::{PassError, Sideways};
use crate::solve::newton::assembled::ROUND_OFF_CORRECTION;
use crate::solve::newton::{
    DriverBuffers, Measures, NewtonContext, NewtonError, NewtonProblem, NewtonReport,
    Refactorization, Stage, drive,
};
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
    let groups = unknown_groups::<B, N>(&inner.layout(), inner.ns1(), inner.mesh.elements_t);
    newton_generic(
        &shim,
        stage,
        settings,
        inner.initial_guess(),
        groups,
        B::STAGE,
    )
}

/// An assembler as seen by Newton: residual, magnitudes of its terms (`m_i = Σ_t |t_i|`) and
/// optionally the Jacobian.
pub(super) trait Assemble {
    fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        m: &mut [f64],
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
        m: &mut [f64],
        jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError> {
        self.a.assemble(u, r, m, jac)?;
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
                    let t = re[row] - re_ref[row];
                    r[d[row]] += t;
                    m[d[row]] += t.abs();
                }
            }
        }
        if let Some(mt) = self.a.beam.tip_mass() {
            // + ∫ N_1 M ∂t v(L) over the first time element: the v(L, 0) part is −½ M v0.
            let ns = self.a.mesh.elements_s;
            for c in 0..N {
                let row = super::numbering::dof::<N>(ns1, ns, 1, N + c);
                let t = 0.5 * mt[c] * self.v0[ns][c];
                r[row] -= t;
                m[row] += t.abs();
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
        m: &mut [f64],
        jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError> {
        Assembly::assemble(self, u, r, m, jac)
    }
}

/// The group ([`GROUPS`]) of every unknown in the numbering `layout` (rows are numbered like
/// the unknowns in the global numbering: `R1` at `x`, `R2` at `v`, `R3` at `F`).
pub(super) fn unknown_groups<B: InverseBody<N>, const N: usize>(
    layout: &impl Layout,
    ns1: usize,
    nt: usize,
) -> Vec<u8> {
    let mut g = vec![0u8; layout.len()];
    for j in 1..=nt {
        for i in 0..ns1 {
            let k = layout.node(i, j);
            for c in 0..N {
                g[k + c] = group::<B::Law, N>(KINEMATIC, c) as u8;
                g[k + N + c] = group::<B::Law, N>(MOMENTUM, c) as u8;
            }
        }
        if layout.len() > layout.force(j) {
            let k = layout.force(j);
            for c in 0..N {
                g[k + c] = group::<B::Law, N>(SERVO, c) as u8;
            }
        }
    }
    g
}

/// Whether the correction `dx` of the configuration unknowns `x` (positions and rotations:
/// the kinematic groups; not velocities or forces) is at their round-off level,
/// `max |dx| ≤ 16 ε max |x|` per group (the driver's safety net,
/// [`NewtonProblem::correction_at_round_off`]).
fn configuration_at_round_off(groups: &[u8], x: &[f64], dx: &[f64]) -> bool {
    let (mut xm, mut dm) = ([0.0f64; 2], [0.0f64; 2]);
    for ((&g, &a), &d) in groups.iter().zip(x).zip(dx) {
        let g = g as usize;
        if g < KINEMATIC + 2 {
            xm[g] = xm[g].max(a.abs());
            dm[g] = dm[g].max(d.abs());
        }
    }
    let tol = ROUND_OFF_CORRECTION * f64::EPSILON;
    (0..2).all(|g| dm[g] <= tol * xm[g])
}

/// The context of the one space-time solve of a body of stage `stage`.
fn context(stage: Stage) -> NewtonContext {
    NewtonContext {
        stage,
        ..NewtonContext::default()
    }
}

/// The library's error for a failed Newton solve.
fn newton_error<E>(
    e: NewtonError<E>,
    stage: Stage,
    element: impl FnOnce(usize, E) -> InverseError,
) -> InverseError {
    match e {
        NewtonError::Eval { iteration, source } => element(iteration, source),
        e => InverseError::Newton(e.into_solve_error(context(stage), |_, _| unreachable_eval())),
    }
}

/// (The evaluation failures are mapped before [`NewtonError::into_solve_error`].)
fn unreachable_eval() -> SolveError {
    SolveError::Factorization("internal: an evaluation failure was not mapped".into())
}

/// The history of a solve from the driver's report.
fn history(
    rep: &NewtonReport,
    unknowns: usize,
    nonzeros: usize,
    kind: LinearSolverKind,
    linear_residual: f64,
) -> NewtonHistory {
    NewtonHistory {
        iterations: rep.iterations,
        residuals: rep.residuals.clone(),
        unknowns,
        nonzeros,
        assembly_seconds: rep.assembly_seconds,
        linear_seconds: rep.factorization_seconds + rep.solve_seconds,
        linear_solver: kind,
        linear_residual,
        residual_checks: rep.residual_checks,
        at_floor: rep.at_floor,
        residual_floor: rep.residual_floor,
        final_relative: rep.final_relative,
        halvings: rep.halvings,
        ..Default::default()
    }
}

/// A stored Jacobian and its linear stage (sparse LU) as the driver sees them.
struct Stored<'s, A: Assemble> {
    asm: &'s A,
    stage: &'s mut dyn LinearStage,
    groups: Vec<u8>,
    r: Vec<f64>,
    m: Vec<f64>,
    phi: Vec<f64>,
    scratch: Vec<f64>,
}

impl<A: Assemble> NewtonProblem for Stored<'_, A> {
    type Error = ElementError;

    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        rep: &mut NewtonReport,
    ) -> Result<(), ElementError> {
        let t = Instant::now();
        let jac = if jacobian {
            Some(&mut *self.stage as &mut dyn JacobianSink)
        } else {
            None
        };
        let res = self.asm.assemble(x, &mut self.r, &mut self.m, jac);
        if res.is_ok() && jacobian {
            self.stage
                .floor_basis(x, &self.groups, GROUPS, &mut self.scratch, &mut self.phi);
        }
        rep.assembly_seconds += t.elapsed().as_secs_f64();
        res?;
        out.from_rows(GROUPS, &self.groups, &self.r, &self.m, Some(&self.phi));
        Ok(())
    }

    fn correction(&mut self, dx: &mut [f64], rep: &mut NewtonReport) -> Result<(), SolveError> {
        let t = Instant::now();
        self.stage.solve(&self.r, dx)?;
        rep.factorizations += 1;
        rep.factorization_seconds += t.elapsed().as_secs_f64();
        Ok(())
    }

    fn unknown_groups(&self) -> &[u8] {
        &self.groups
    }

    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        configuration_at_round_off(&self.groups, x, dx)
    }
}

/// Newton with the stored Jacobian and the linear stage `stage` (sparse LU), from `u`;
/// `groups`: [`unknown_groups`] of the global numbering (rows and unknowns alike).
pub(super) fn newton_generic<A: Assemble>(
    asm: &A,
    stage: &mut dyn LinearStage,
    settings: &NewtonSettings,
    mut u: Vec<f64>,
    groups: Vec<u8>,
    body_stage: Stage,
) -> Result<(Vec<f64>, NewtonHistory), InverseError> {
    let n = u.len();
    let (nonzeros, kind) = (stage.stored(), stage.kind());
    let mut prob = Stored {
        asm,
        stage,
        groups,
        r: vec![0.0; n],
        m: vec![0.0; n],
        phi: vec![0.0; n],
        scratch: Vec::new(),
    };
    let mut buf = DriverBuffers::default();
    let rep = drive(
        &mut prob,
        &mut u,
        &settings.newton,
        Refactorization::EveryIteration,
        &mut buf,
    )
    .map_err(|e| {
        newton_error(e, body_stage, |iteration, source| InverseError::Element {
            iteration,
            source,
        })
    })?;
    Ok((u, history(&rep, n, nonzeros, kind, 0.0)))
}

/// The streamed sideways elimination as the driver sees it: a full pass is the linearisation
/// (it solves for the update, kept in `du` until [`NewtonProblem::correction`] asks for it).
struct Streamed<'s, 'a, B: InverseBody<N>, const N: usize> {
    sw: &'s mut Sideways<'a, B, N>,
    du: Vec<f64>,
    groups: Vec<u8>,
    /// `max |J du − r|` and the largest residual entry of the last full pass.
    mismatch: (f64, f64),
    /// Largest `max |J du − r| / max |r|` of the corrections used.
    linear_residual: f64,
}

impl<B: InverseBody<N>, const N: usize> NewtonProblem for Streamed<'_, '_, B, N> {
    type Error = PassError;

    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        rep: &mut NewtonReport,
    ) -> Result<(), PassError> {
        let pass = self.sw.pass(x, &mut self.du, jacobian, out)?;
        rep.assembly_seconds += pass.kernel_seconds;
        if jacobian {
            // the columns: residual, band, factorisation and substitution in one march
            rep.factorizations += 1;
            rep.factorization_seconds += pass.column_seconds;
            self.mismatch = (pass.mismatch, out.largest_entry());
        } else {
            rep.assembly_seconds += pass.column_seconds;
        }
        Ok(())
    }

    fn correction(&mut self, dx: &mut [f64], _rep: &mut NewtonReport) -> Result<(), SolveError> {
        dx.copy_from_slice(&self.du);
        let (mismatch, norm) = self.mismatch;
        if norm > 0.0 {
            self.linear_residual = self.linear_residual.max(mismatch / norm);
        }
        Ok(())
    }

    fn unknown_groups(&self) -> &[u8] {
        &self.groups
    }

    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        configuration_at_round_off(&self.groups, x, dx)
    }

    fn jacobian_with_residual(&self, predicted: bool) -> bool {
        // a full pass costs the band factorisations: check a predicted convergence first
        !predicted
    }
}

/// Newton with the streamed sideways elimination ([`crate::inverse::sideways`]) from `u`.
/// Vectors: the iterate, the update of the last pass and the driver's three (step start,
/// step, next correction).
pub(super) fn newton_sideways<B: InverseBody<N>, const N: usize>(
    sw: &mut Sideways<'_, B, N>,
    settings: &NewtonSettings,
    mut u: Vec<f64>,
    ns1: usize,
    nt: usize,
) -> Result<(Vec<f64>, NewtonHistory), InverseError> {
    let n = sw.unknowns();
    let nonzeros = sw.stored();
    let groups = unknown_groups::<B, N>(&*sw, ns1, nt);
    let mut prob = Streamed {
        sw,
        du: vec![0.0; n],
        groups,
        mismatch: (0.0, 0.0),
        linear_residual: 0.0,
    };
    let mut buf = DriverBuffers::default();
    let rep = drive(
        &mut prob,
        &mut u,
        &settings.newton,
        Refactorization::EveryIteration,
        &mut buf,
    )
    .map_err(|e| {
        newton_error(e, B::STAGE, |iteration, source| match source {
            PassError::Element(source) => InverseError::Element { iteration, source },
            PassError::Linear(e) => InverseError::Linear(e),
        })
    })?;
    let lr = prob.linear_residual;
    Ok((
        u,
        history(&rep, n, nonzeros, LinearSolverKind::Sideways, lr),
    ))
}
