//! The sequential baseline of `[I]` Sect. 2 (Eq. 21): finite elements in space first, then the
//! semi-discrete equations of motion with the servo constraint integrated in time,
//!
//! ```text
//! M q̈ + f_int(q) = E₀ F(t),        g(q, t) = q_tip − γ(t) = 0
//! ```
//!
//! (`q`: nodal `(r1, r2, θ)` of linear beam elements, [`crate::beam`]; `E₀` puts the
//! actuation `F`, applied to the beam at `s = 0`, on node 0; the tip node carries the servo
//! constraint and, with [`TipLaw::Mass`], the end mass). `F` plays the role of the Lagrange
//! multiplier, but it acts on node 0 while the constraint holds node `n`: the constraint
//! realisation is non-orthogonal (`[I]`: `rank(H M⁻¹ Gᵀ) ≠ d`).
//!
//! # What is integrated
//! No index reduction and no stabilisation: the position-level DAE (the index-3 *form*) is
//! discretised directly by BDF (implicit Euler or BDF2), unknowns `q_{n+1}` and `F_{n+1}`:
//!
//! ```text
//! v_{n+1} = (α₀ q_{n+1} + Σ α_k q_{n+1−k})/h,   a_{n+1} = (α₀ v_{n+1} + Σ α_k v_{n+1−k})/h
//! h² (M a_{n+1} + f_int(q_{n+1}) − E₀ F_{n+1}) = 0,     q_tip,{n+1} = γ(t_{n+1})
//! ```
//!
//! (`α = (1, −1)` implicit Euler, `(3/2, −2, 1/2)` BDF2), solved by Newton with the iteration
//! matrix `[[α₀² M + h² K, −h² E₀], [S_tip, 0]]`. The beam is at rest before `t_start`, so the
//! BDF2 history is exact from the first step. The step loop (`integrate`) is generic over the
//! semi-discrete model (`SemiDiscrete`) and the number `N` of unknowns per node: the spatial
//! arm's baseline ([`crate::inverse::spatial::sequential`]) runs on it too.
//!
//! # Why it fails (measured in `docs/verification.md`)
//! * **Lumped mass**: `M⁻¹` is diagonal, so `F` reaches the tip acceleration only through `n`
//!   elastic links: `g` must be differentiated `2n + 2` times before `F` appears, the DAE has
//!   index `2n + 3`, and its solution contains `γ^{(2n+2)}`: the rest-to-rest profile of
//!   Example 3.2 (`C³`) is smooth enough for no `n ≥ 1`. Discretely the BDF step solves the
//!   chain node by node from the tip (a sideways march with one-sided time differences) and
//!   amplifies errors by a factor growing like `(hs/(c h))^{2}` per element.
//! * **Consistent mass**: `H M⁻¹ E₀` is not zero but decays like `(2 − √3)ⁿ`: formally
//!   index 3, practically the same trouble: the iteration matrix is near singular and the
//!   zero dynamics of the non-collocated output are unstable.

//!
//! Files: `semi.rs` (the [`SemiDiscrete`] seam and the planar beam's model), `step.rs` (one
//! BDF step on the Newton driver and the step loop).

mod semi;
mod step;

use semi::Semi;
pub(crate) use semi::SemiDiscrete;
pub(crate) use step::{integrate, rest_condition};

use crate::error::InputError;
use crate::inverse::solver::{BeamModel, InverseError};
use crate::inverse::trajectory::TipTrajectory;
use crate::solve::newton::{MAX_TOLERANCE, MIN_TOLERANCE, NewtonParams};
use std::time::Instant;

/// Mass matrix of the semi-discrete model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MassMatrix {
    /// Consistent (what [`crate::beam`] uses for forward dynamics).
    Consistent,
    /// Row-sum lumped (diagonal).
    Lumped,
}

/// BDF scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Bdf {
    /// BDF1: `α = (1, −1)`.
    ImplicitEuler,
    /// BDF2: `α = (3/2, −2, 1/2)`.
    Bdf2,
}

impl Bdf {
    pub(crate) fn alpha(self) -> &'static [f64] {
        match self {
            Self::ImplicitEuler => &[1.0, -1.0],
            Self::Bdf2 => &[1.5, -2.0, 0.5],
        }
    }
}

/// Settings of the sequential baseline.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SequentialSettings {
    /// Linear beam elements in space.
    pub elements: usize,
    /// Time step `h` (s).
    pub step: f64,
    /// Mass matrix.
    pub mass: MassMatrix,
    /// Time scheme.
    pub scheme: Bdf,
    /// Newton's tolerance (relative to the magnitudes of the terms of every equation group)
    /// and iteration limit per step: the one driver of stmech ([`crate::solve::newton`]).
    pub newton: NewtonParams,
}

impl SequentialSettings {
    /// Consistent mass, BDF2, the default Newton parameters (relative tolerance 1e-10,
    /// 30 iterations).
    pub fn new(elements: usize, step: f64) -> Self {
        Self {
            elements,
            step,
            mass: MassMatrix::Consistent,
            scheme: Bdf::Bdf2,
            newton: NewtonParams::default(),
        }
    }
}

/// How a sequential run broke down.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SequentialFailure {
    /// Step that failed (1-based).
    pub step: usize,
    /// Its time (s).
    pub time: f64,
    /// What happened.
    pub reason: String,
}

/// A sequential run: the results up to the end or up to the breakdown.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SequentialRun {
    /// Settings used.
    pub settings: SequentialSettings,
    /// Time points (s), from `t_start`.
    pub t: Vec<f64>,
    /// Actuation applied to the beam at `s = 0` (global frame), per time point.
    pub actuation: Vec<[f64; 3]>,
    /// Newton iterations per step.
    pub iterations: Vec<usize>,
    /// `None` if the run reached `t_end`.
    pub failure: Option<SequentialFailure>,
    /// 2-norm condition number of the iteration matrix at the rest state.
    pub condition_number: f64,
    /// Wall time (s).
    pub seconds: f64,
}

impl SequentialRun {
    /// Whether the run reached the end time.
    pub fn completed(&self) -> bool {
        self.failure.is_none()
    }

    /// Largest `|F|` component over the run.
    pub fn peak_actuation(&self) -> f64 {
        self.actuation
            .iter()
            .flat_map(|f| f.iter())
            .fold(0.0f64, |m, v| m.max(v.abs()))
    }

    /// Piecewise linear actuation (constant outside the computed range).
    pub fn actuation_at(&self, t: f64) -> [f64; 3] {
        super::solver::interpolate(&self.t, &self.actuation, t)
    }
}

/// Checks the settings (elements, step, Newton tolerance and iterations).
pub(crate) fn check_settings(s: &SequentialSettings) -> Result<(), InverseError> {
    let bad = |field: &str, message: String| {
        Err(InverseError::Input(InputError::Invalid {
            field: field.into(),
            message,
        }))
    };
    if s.elements == 0 || s.elements > 2000 {
        return bad(
            "sequential.elements",
            format!("must be between 1 and 2000, got {}", s.elements),
        );
    }
    if !(s.step.is_finite() && s.step > 0.0) {
        return bad(
            "sequential.step",
            format!("must be finite and > 0, got {}", s.step),
        );
    }
    let tol = s.newton.tolerance;
    if !(MIN_TOLERANCE..=MAX_TOLERANCE).contains(&tol) || s.newton.max_iterations == 0 {
        return bad(
            "sequential.newton",
            format!(
                "the relative tolerance must be between {MIN_TOLERANCE:e} and \
                 {MAX_TOLERANCE:e} and max_iterations ≥ 1, got {tol:e} and {}",
                s.newton.max_iterations
            ),
        );
    }
    Ok(())
}

/// 2-norm condition number of the iteration matrix at the rest state (first step).
pub fn iteration_matrix_condition(
    beam: &BeamModel,
    settings: &SequentialSettings,
) -> Result<f64, InverseError> {
    beam.validate("beam")?;
    check_settings(settings)?;
    rest_condition::<3, _>(&mut Semi::new(beam, settings)?, settings)
}

/// Checks the time domain `[t_start, t_end]`.
pub(crate) fn check_time(t_start: f64, t_end: f64) -> Result<(), InverseError> {
    if !(t_start.is_finite() && t_end.is_finite() && t_end > t_start) {
        return Err(InverseError::Input(InputError::Invalid {
            field: "time".into(),
            message: format!("needs finite start < end, got [{t_start}, {t_end}]"),
        }));
    }
    Ok(())
}

/// Runs the sequential baseline on `[t_start, t_end]` with steps of `settings.step` (the last
/// one shortened to land on `t_end`). Input errors are `Err`; a breakdown of the integration
/// (Newton failure, non-finite values, singular matrix) is reported in
/// [`SequentialRun::failure`] with the results up to that step.
pub fn solve_sequential(
    beam: &BeamModel,
    t_start: f64,
    t_end: f64,
    trajectory: &dyn TipTrajectory,
    settings: &SequentialSettings,
) -> Result<SequentialRun, InverseError> {
    let started = Instant::now();
    beam.validate("beam")?;
    check_settings(settings)?;
    check_time(t_start, t_end)?;
    let condition_number = iteration_matrix_condition(beam, settings)?;
    let mut semi = Semi::new(beam, settings)?;
    let run = integrate::<3, _>(
        &mut semi,
        t_start,
        t_end,
        [0.0; 3],
        &|t| trajectory.pose(t),
        settings,
    );
    Ok(SequentialRun {
        settings: *settings,
        t: run.t,
        actuation: run.actuation,
        iterations: run.iterations,
        failure: run.failure,
        condition_number,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beam::section::ConstitutiveLaw;
    use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};

    /// One element, lumped mass, axial motion of the linear (quadratic-law) beam: the exact
    /// semi-discrete actuation is `F = (m₀ + m₁) γ'' + m₀ m₁/k γ''''` (two masses `m = ρA hs/2`
    /// and a spring `k = EA/hs`); BDF2 reproduces it at second order in `h` (the easy case
    /// where the sequential approach works).
    #[test]
    fn one_element_matches_the_two_mass_chain() {
        let beam = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
        let prof = RestToRestProfile {
            t0: 1.0,
            duration: 2.0,
        };
        let tr = RestToRestLine {
            start: [1.0, 0.0, 0.0],
            delta: [0.01, 0.0, 0.0],
            profile: prof,
        };
        // σ'''' of the profile by central differences of σ''
        let s4 = |t: f64| {
            let e = 1e-3;
            (prof.eval(t + e)[2] - 2.0 * prof.eval(t)[2] + prof.eval(t - e)[2]) / (e * e)
        };
        let exact = |t: f64| 0.01 * (1.0 * prof.eval(t)[2] + 0.25 * s4(t));
        let mut errs = Vec::new();
        for h in [0.02, 0.01] {
            let mut st = SequentialSettings::new(1, h);
            st.mass = MassMatrix::Lumped;
            let run = solve_sequential(&beam, 0.0, 4.0, &tr, &st).unwrap();
            assert!(run.completed(), "{:?}", run.failure);
            let err = run
                .t
                .iter()
                .zip(&run.actuation)
                // away from the jumps of σ'''' (and of F) at 1 s and 3 s, which BDF2 smears
                .filter(|(t, _)| (**t - 1.0).abs() > 0.25 && (**t - 3.0).abs() > 0.25)
                .fold(0.0f64, |m, (&t, f)| m.max((f[0] - exact(t)).abs()));

            errs.push(err);
        }
        eprintln!("two-mass chain, BDF2, h = 0.02, 0.01: max error {errs:?}");
        // measured: 1.5e-3, 3.8e-4 (peak |F| 0.08)
        assert!(errs[1] < 0.3 * errs[0] && errs[1] < 1e-3, "{errs:?}");
    }
}
