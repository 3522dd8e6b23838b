//! Statics with load stepping: find `x` with `f_int(x) = f_ext(λ)` for load factors
//! `λ_k = k/n`, `k = 1..=n`, by Newton–Raphson with the exact tangent of
//! [`BeamElement::residual_into`], starting each step from the previous solution.
//!
//! The external load is `λ` times the full loads; their time functions are ignored (they belong
//! to dynamics). `λ = 1` is the full load.

use super::assembly::BeamAssembler;
use super::element::{BeamElement, MAX_DOFS};
use super::model::BeamModel;
use crate::error::SolveError;
use crate::solve::NewtonParams;

/// Result of one load step.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticStep {
    /// Load factor `λ`.
    pub load_factor: f64,
    /// Nodal unknowns `(r1, r2, θ)` per node.
    pub x: Vec<f64>,
    /// Newton residual norms (N), first to last.
    pub residuals: Vec<f64>,
}

/// Internal force minus `λ` times the external force, prescribed entries zeroed; returns its
/// Euclidean norm. Assembles the tangent if `asm` is given.
fn residual(
    model: &BeamModel,
    x: &[f64],
    lambda: f64,
    r: &mut [f64],
    mut asm: Option<&mut BeamAssembler>,
) -> Result<f64, usize> {
    r.fill(0.0);
    let nd = model.element_dofs();
    let (mut fe, mut ke) = ([0.0; MAX_DOFS], [[0.0; MAX_DOFS]; MAX_DOFS]);
    if let Some(a) = asm.as_deref_mut() {
        a.clear();
    }
    for e in 0..model.spec.elements {
        let o = model.element_offset(e);
        let kk = if asm.is_some() { Some(&mut ke) } else { None };
        model
            .element(e)
            .residual_into(&x[o..o + nd], &mut fe, kk)
            .map_err(|_| e)?;
        for i in 0..nd {
            r[o + i] += fe[i];
        }
        if let Some(a) = asm.as_deref_mut() {
            a.add_element(e, o, nd, &ke);
        }
    }
    let mut fext = vec![0.0; r.len()];
    model.add_static_forces(lambda, &mut fext);
    let mut norm = 0.0;
    for i in 0..r.len() {
        r[i] -= fext[i];
        if model.fixed[i] {
            r[i] = 0.0;
        }
        norm += r[i] * r[i];
    }
    Ok(norm.sqrt())
}

/// Solves the static problem in `steps` equal load steps from the reference configuration.
///
/// Errors: [`SolveError::NewtonDiverged`] (with `block` = load step, `t_start..t_end` = load
/// factors, the residual history) when Newton does not reach `newton.tolerance` (N) within
/// `newton.max_iterations`; [`SolveError::NonFinite`] when an iterate inverts an element (log
/// law) or is not finite. Remedy in both cases: more load steps.
pub fn solve_static(
    model: &BeamModel,
    steps: usize,
    newton: &NewtonParams,
) -> Result<Vec<StaticStep>, SolveError> {
    let steps = steps.max(1);
    let mut asm = BeamAssembler::new(model)?;
    let n = model.n_dofs();
    let mut x = model.x_ref.clone();
    let mut r = vec![0.0; n];
    let mut out = Vec::with_capacity(crate::resources::reserve(steps, 1));
    for k in 1..=steps {
        let lambda = k as f64 / steps as f64;
        let lambda_prev = (k - 1) as f64 / steps as f64;
        let mut history = Vec::new();
        let mut converged = false;
        for it in 0..=newton.max_iterations {
            let nonfinite = || SolveError::NonFinite {
                block: k,
                t_start: lambda_prev,
                t_end: lambda,
                iteration: it,
            };
            let norm =
                residual(model, &x, lambda, &mut r, Some(&mut asm)).map_err(|_| nonfinite())?;
            if !norm.is_finite() {
                return Err(nonfinite());
            }
            history.push(norm);
            if norm <= newton.tolerance {
                converged = true;
                break;
            }
            if it == newton.max_iterations {
                break;
            }
            asm.factorize_and_solve(&mut r)?;
            for i in 0..n {
                x[i] += r[i];
            }
            if at_round_off(&r, &x) {
                // The residual cannot drop further in floating point (stiff sections).
                converged = true;
                break;
            }
        }
        if !converged {
            return Err(SolveError::NewtonDiverged {
                block: k,
                t_start: lambda_prev,
                t_end: lambda,
                iterations: history.len() - 1,
                residual: *history.last().unwrap_or(&f64::NAN),
                tolerance: newton.tolerance,
                history,
                floor: 0.0,
                stalled: false,
                stage: crate::solve::newton::Stage::BeamLoadStep,
            });
        }
        out.push(StaticStep {
            load_factor: lambda,
            x: x.clone(),
            residuals: history,
        });
    }
    Ok(out)
}

/// Whether a Newton correction `dx` is at the round-off level of `x`: then the residual has
/// reached its floating-point floor (`‖K‖ ε ‖x‖`) and the iterate is accepted even if that
/// floor lies above the requested tolerance.
pub(crate) fn at_round_off(dx: &[f64], x: &[f64]) -> bool {
    let xmax = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let dmax = dx.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    dmax <= 1e-13 * (1.0 + xmax)
}
