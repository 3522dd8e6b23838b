//! Statics with load stepping: find `x` with `f_int(x) = f_ext(λ)` for load factors
//! `λ_k = k/n`, `k = 1..=n`, by Newton–Raphson with the exact tangent of
//! [`BeamElement::residual_into`], starting each step from the previous solution. Newton is the
//! one driver ([`crate::solve::newton::drive`], through [`super::newton`]): it stops when every
//! force (moment) row is at most `newton.tolerance` times the largest force (moment) term of
//! the step — element internal forces and the applied load, `docs/theory.md` "The Newton stop"
//! — or at the round-off floor of the absolute coordinates, and halves steps that do not lower
//! the residual (line search).
//!
//! The external load is `λ` times the full loads; their time functions are ignored (they belong
//! to dynamics). `λ = 1` is the full load.

use super::assembly::BeamAssembler;
use super::element::{BeamElement, MAX_DOFS};
use super::model::BeamModel;
use super::newton::{BeamNewton, BeamProblem, BeamResidual, NO_MASS, column_scales, group_max};
use crate::error::SolveError;
use crate::solve::NewtonParams;
use crate::solve::newton::{NewtonContext, NewtonReport, Refactorization, Stage};

/// Result of one load step.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticStep {
    /// Load factor `λ`.
    pub load_factor: f64,
    /// Nodal unknowns `(r1, r2, θ)` per node.
    pub x: Vec<f64>,
    /// What Newton did in this step (relative residuals, iterations, floor).
    pub newton: NewtonReport,
}

/// `R(x) = f_int(x) − λ f_ext` of one load step.
struct LoadStep<'a> {
    model: &'a BeamModel,
    /// `λ f_ext`.
    fext: Vec<f64>,
}

impl BeamProblem for LoadStep<'_> {
    fn assemble(
        &mut self,
        x: &[f64],
        tangent: bool,
        res: &mut BeamResidual,
        asm: &mut BeamAssembler,
    ) -> Result<(), usize> {
        let model = self.model;
        let floor = res.clear(tangent);
        if tangent {
            asm.clear();
        }
        let nd = model.element_dofs();
        let col = column_scales(nd, &group_max(x));
        let (mut fe, mut ke) = ([0.0; MAX_DOFS], [[0.0; MAX_DOFS]; MAX_DOFS]);
        for e in 0..model.spec.elements {
            let o = model.element_offset(e);
            let kk = if tangent { Some(&mut ke) } else { None };
            model
                .element(e)
                .residual_into(&x[o..o + nd], &mut fe, kk)
                .map_err(|_| e)?;
            for i in 0..nd {
                res.r[o + i] += fe[i];
                res.m[o + i] += fe[i].abs();
            }
            if tangent {
                asm.add_element(e, o, nd, &ke);
                if floor {
                    res.add_element_floor(o, nd, &ke, 1.0, 0.0, &NO_MASS, &col, &[0.0; 2]);
                }
            }
        }
        for i in 0..x.len() {
            res.r[i] -= self.fext[i];
            res.m[i] += self.fext[i].abs();
        }
        res.finish(&model.fixed);
        Ok(())
    }

    fn coordinates<'a>(&'a self, x: &'a [f64]) -> &'a [f64] {
        x
    }
}

/// Solves the static problem in `steps` equal load steps from the reference configuration.
///
/// Errors: [`SolveError::NewtonDiverged`] (with `block` = load step, `t_start..t_end` = load
/// factors, the relative residual history; stage [`Stage::BeamLoadStep`], whose remedy is more
/// load steps, `static.steps`) when Newton does not reach `newton.tolerance` within
/// `newton.max_iterations`; [`SolveError::NonFinite`] when no step length keeps every element
/// evaluable (log law: `ν > 0`) or finite.
pub fn solve_static(
    model: &BeamModel,
    steps: usize,
    newton: &NewtonParams,
) -> Result<Vec<StaticStep>, SolveError> {
    let steps = steps.max(1);
    let mut solver = BeamNewton::new(model, Refactorization::EveryIteration)?;
    let n = model.n_dofs();
    let mut x = model.x_ref.clone();
    let mut out = Vec::with_capacity(crate::math::reserve(steps, 1));
    let mut prob = LoadStep {
        model,
        fext: vec![0.0; n],
    };
    for k in 1..=steps {
        let lambda = k as f64 / steps as f64;
        let lambda_prev = (k - 1) as f64 / steps as f64;
        prob.fext.fill(0.0);
        model.add_static_forces(lambda, &mut prob.fext);
        let cx = NewtonContext {
            block: k,
            t_start: lambda_prev,
            t_end: lambda,
            stage: Stage::BeamLoadStep,
        };
        let report = solver.solve(&mut prob, &mut x, newton, cx)?;
        out.push(StaticStep {
            load_factor: lambda,
            x: x.clone(),
            newton: report,
        });
    }
    Ok(out)
}
