//! The inverse problem by the method of characteristics, `[I]` Sect. 3 (Eq. 22-30): a
//! sideways marching scheme in `s`, from the tip `s = L`, where both Cauchy data are known,
//! to the base `s = 0`, where the stress resultant is the actuation.
//!
//! # Scheme
//! Grid `s_i = i hs`, `t_j = t_start + j ht` (the grid of [`SpaceTimeMesh`]). Per node the state
//! `(x, v, p)` with `v = ∂t x`, `p = ∂s x`.
//!
//! * **Tip line** `s = L`: `x = γ(t)`, `v = γ'(t)`, and `p` from the tip law `σ(θ, p) = h`
//!   ([`super::characteristics::deformation_gradient`]; free end `h = 0`, end mass
//!   `h = −diag(m, m, J) γ''`).
//! * **Step** `s_i → s_{i−1} = s_i − hs`: through the new node `Q = (s_{i−1}, t_j)` pass six
//!   characteristics `ds/dt = ±c_k`; they meet the known line `s_i` at the feet
//!   `P_k± = (s_i, t_j ± hs/c_k)`. The state at each foot is interpolated in `t` by a cubic
//!   Lagrange polynomial through the four nearest nodes. The six compatibility conditions
//!   (`[I]` Eq. 28₂), integrated by the midpoint rule along each characteristic,
//!
//!   ```text
//!   e_kᵀ A (v_Q − v_P) ∓ c_k e_kᵀ A (p_Q − p_P) = ∓ (hs/c_k) e_kᵀ F₁      (k, ±)
//!   ```
//!
//!   with `e_k`, `c_k`, `F₁` evaluated at the midpoint `½(P_k± + Q)` (also the foot position
//!   uses that `c_k`), are six linear equations for `(v_Q, p_Q)`; `x_Q` follows from
//!   `∂s x = p` by the trapezoidal rule at fixed `t_j`. The coefficients depend on the unknown
//!   state, so each node is a small fixed-point iteration (predictor: the state at `(s_i, t_j)`
//!   plus the increment `Q(t_{j−1}) − (s_i, t_{j−1})` of the previous time node).
//! * **Actuation**: `F(t_j) = −σ(θ, p)` at `s = 0` (applied to the beam, global frame, as in
//!   [`super::solver`]).
//!
//! * **Intermediate lines** ([`CharacteristicBody::intermediate_lines`]): a body may split an
//!   element into several steps, each a full line at the time nodes, of which only the
//!   element's lines are kept. The string grades its steps uniformly in the travel time near
//!   a free end, where the transverse speed `√(g z)` vanishes and one step per element would
//!   cross the last element in a single step of `√(hs)` in travel time (order 1.4–1.8 instead
//!   of 2, docs/verification.md C11). There the first line below the tip comes in closed form
//!   from the body ([`TipData::free_end_state`]), the segment state is the body's
//!   ([`CharacteristicBody::segment_state`]) and so are a node's first speeds
//!   ([`CharacteristicBody::first_speeds_on_segment`]). The beam and the rope with a payload
//!   use none of this (one step per element, `½(P + Q)`): their results keep their bits.
//!
//! # Order, stability, domain
//! Midpoint rule along the characteristics and trapezoidal rule in `s`: local error `O(hs³)`;
//! cubic interpolation: `O(ht⁴)` per step, `O(ht⁴/hs)` globally. At a fixed ratio the scheme is
//! of second order (for the linear wave with constant coefficients the characteristic step is
//! exact and only the interpolation error is left). It is a semi-Lagrangian scheme on each
//! family: the feet are interpolated from the four nodes around them wherever they fall, so
//! there is no Courant-type restriction on `hs/(c ht)` (the sideways CFL condition of the
//! space-time FEM, [`super::mesh_ratio`], does not apply); accuracy needs both `hs` and `ht`
//! small. With `hs = c ht` for every family (Example 3.2 with the quadratic law at `μ = 1`)
//! the feet fall on nodes and the interpolation is exact.
//!
//! The state at `(s, t)` depends on `γ` on `[t − (L−s)/c_min, t + (L−s)/c_min]`. Below
//! `t_start` the beam is at rest (its initial state), which is consistent only if the tip rests
//! on `[t_start, t_start + L/c_min]`: the pre-actuation must fit into the time domain; this is
//! checked before marching. Above `t_end` the march uses `γ` beyond `t_end` (the built-in
//! rest-to-rest motions are at rest there, CSV data is held constant): the tip line is
//! extended so far that the shrinking domain of determinacy still covers `[t_start, t_end]` at
//! `s = 0`.

use super::characteristics_body::{CharacteristicBody, PlanarTip, State, TipData};
use super::solver::{BeamModel, InverseError, NewtonHistory, SpaceTimeMesh, SpaceTimeSolution};
use super::trajectory::{TipTrajectory, TrajectoryError};
use crate::error::InputError;
use node::LineView;
use std::time::Instant;

mod line;
mod node;
mod plan;

/// Largest extension of the tip line beyond `t_end`, in units of the time domain (the march
/// stores every line: this bounds its memory by the mesh).
pub const MAX_EXTENSION_FACTOR: f64 = 16.0;

/// Iterations of a node's plain fixed point before it is under-relaxed: a node that has not
/// converged by then (a state where the speeds are very sensitive to the unknowns: a string
/// near its free end or barely stretched, `c_t ∝ √(ν − 1)`) takes the step
/// `q ← q + RELAXATION (F(q) − q)`. The plain iteration cycles there (measured: a change of
/// 1e-7 after 5000 iterations on the heavy chain of docs/verification.md C11); the relaxed one
/// converges. Nodes that converge within `RELAX_AFTER` iterations are unchanged (the beam's
/// results keep their bits).
pub const RELAX_AFTER: usize = 20;
/// Under-relaxation factor after [`RELAX_AFTER`] iterations.
pub const RELAXATION: f64 = 0.3;

/// Settings of the per-node fixed-point iteration.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CharacteristicsSettings {
    /// Stop when a node's change, family by family and relative to its tangent, is below
    /// `tolerance` (dimensionless; `node::relative_change`, docs/theory.md §8, "The nodal
    /// stop": each family's velocity change over its speed and its tangent change, against
    /// `|p|_M = √(pᵀ M p)`; the same in any units and at any origin).
    pub tolerance: f64,
    /// Iteration limit per node.
    pub max_iterations: usize,
    /// Also accept a node once its relative change (as for `tolerance`) is below `stall` and
    /// no longer decreasing. `0` (the default): never; the round-off floor of the
    /// compatibility system is accepted without it (`MarchReport::nodes_at_floor`).
    pub stall: f64,
}

impl Default for CharacteristicsSettings {
    fn default() -> Self {
        Self {
            tolerance: 1e-13,
            max_iterations: 200,
            stall: 0.0,
        }
    }
}

/// Statistics of one march.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MarchReport {
    /// Nodes computed (including those above `t_end` needed by the domain of determinacy and
    /// those of intermediate lines).
    pub nodes: usize,
    /// Fixed-point iterations over all nodes.
    pub iterations_total: usize,
    /// Largest number of iterations at one node.
    pub iterations_max: usize,
    /// Nodes accepted at their round-off floor (`tolerance` plus `8 ε c_max/c_min`, the
    /// velocity round-off of the fastest family seen by the slowest; docs/theory.md §8,
    /// "The nodal stop") or at the `stall` level, not below `tolerance`.
    pub nodes_at_floor: usize,
    /// Slowest and fastest characteristic speed met (m/s).
    pub speed_range: [f64; 2],
    /// How far beyond `t_end` the tip data were used (s).
    pub extension: f64,
    /// Wall time of the march (s).
    pub seconds: f64,
}

/// Result of [`solve_characteristics`] (and of [`march`] for any body): the grid solution in
/// the layout of the space-time solver (so that its output code,
/// [`SpaceTimeSolution::actuation_at`], `tip`, `energy` apply), plus the march statistics.
/// `solution.newton` holds no Newton data: `iterations` is the total number of fixed-point
/// iterations and `unknowns` the number of nodal unknowns.
#[derive(Clone, Debug)]
pub struct CharacteristicsSolution<B = BeamModel, const N: usize = 3> {
    /// `x`, `v` on the grid of the mesh, actuation at its time nodes.
    pub solution: SpaceTimeSolution<B, N>,
    /// March statistics.
    pub report: MarchReport,
}

fn bad(field: &str, message: String) -> InverseError {
    InverseError::Input(InputError::Invalid {
        field: field.into(),
        message,
    })
}

/// Fewest time elements the method of characteristics works with (its cubic interpolation
/// in time needs four nodes).
pub const MIN_TIME_ELEMENTS: usize = 3;

/// Checks the mesh counts for the method of characteristics: at least one space and
/// [`MIN_TIME_ELEMENTS`] time elements. Exposed for scenario validation (the same message).
pub fn check_mesh(mesh: &SpaceTimeMesh) -> Result<(), InverseError> {
    if mesh.elements_s == 0 || mesh.elements_t < MIN_TIME_ELEMENTS {
        return Err(bad(
            "mesh",
            format!(
                "the method of characteristics needs at least 1 space and {MIN_TIME_ELEMENTS} \
                 time elements, got {} × {}; use more time elements (mesh.elements_t, or \
                 mesh.resolution)",
                mesh.elements_s, mesh.elements_t
            ),
        ));
    }
    Ok(())
}

/// How far a tip "at rest" may move (m) and turn (rad): `10⁻⁹ L` and `10⁻⁹` rad, plus the
/// round-off of its absolute coordinates `F ε |x|` (`F` = [`FLOOR_FACTOR`]). Invariant under
/// units and origin: before issue 29 this was `10⁻⁹ (1 + |x|)`, which 10⁶ m from the origin
/// let a motion of 10⁻³ m pass as rest.
///
/// [`FLOOR_FACTOR`]: crate::solve::newton::FLOOR_FACTOR
pub(crate) fn rest_tolerance(length: f64, position: &[f64], angle: f64) -> (f64, f64) {
    use crate::solve::newton::FLOOR_FACTOR;
    let x = position.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    (
        1e-9 * length + FLOOR_FACTOR * f64::EPSILON * x,
        1e-9 + FLOOR_FACTOR * f64::EPSILON * angle.abs(),
    )
}

/// Checks that the tip rests on `[t_start, t_start + L/c_min]` (pre-actuation inside the time
/// domain), to [`rest_tolerance`]. Exposed for scenario validation.
pub fn check_pre_actuation(
    beam: &BeamModel,
    t_start: f64,
    trajectory: &dyn TipTrajectory,
) -> Result<(), TrajectoryError> {
    let c_min = beam
        .law
        .wave_speeds(&beam.section, 1.0)
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    let delay = beam.length / c_min;
    let g0 = trajectory.pose(t_start);
    let (tol_x, tol_angle) = rest_tolerance(beam.length, &g0[..2], g0[2]);
    let n = 2000;
    for k in 1..=n {
        let t = t_start + delay * k as f64 / n as f64;
        let g = trajectory.pose(t);
        let dx = (0..2).fold(0.0f64, |m, c| m.max((g[c] - g0[c]).abs()));
        let dev = dx.max((g[2] - g0[2]).abs());
        if dx > tol_x || (g[2] - g0[2]).abs() > tol_angle {
            return Err(TrajectoryError::Data {
                path: "of the tip".into(),
                message: format!(
                    "the tip moves at t = {t:.4} s (by {dev:.2e}), less than L/c_min = {delay:.4} s \
                     after time.start = {t_start} s. The actuation must start L/c_min before \
                     the tip moves (pre-actuation, [I] Sect. 3) and the beam is at rest at \
                     time.start, so the method of characteristics needs the tip at rest on \
                     [{t_start}, {:.4}] s: start the time domain at or before {:.4} s, or \
                     delay the motion",
                    t_start + delay,
                    t - delay
                ),
            });
        }
    }
    Ok(())
}

/// Solves the inverse problem `[I]` Eq. 1-5 by the method of characteristics (see the module
/// docs): the actuation at `s = 0` and the motion on the grid of `mesh`.
///
/// Checks before marching: the beam data, the mesh, that `γ` starts at the tip's initial pose,
/// and that the tip rests on `[t_start, t_start + L/c_min]` ([`check_pre_actuation`]).
pub fn solve_characteristics(
    beam: &BeamModel,
    mesh: &SpaceTimeMesh,
    trajectory: &dyn TipTrajectory,
    settings: &CharacteristicsSettings,
) -> Result<CharacteristicsSolution, InverseError> {
    let started = Instant::now();
    beam.validate("beam")?;
    check_input(mesh, settings)?;
    let tip0 = beam.initial_pose(beam.length);
    super::trajectory::check_start_pose(trajectory, mesh.t_start, tip0, beam.length)?;
    check_pre_actuation(beam, mesh.t_start, trajectory)?;
    let tip = PlanarTip {
        body: beam,
        path: trajectory,
    };
    march_from(beam, mesh, &tip, settings, started)
}

/// The time domain, the mesh counts ([`check_mesh`]) and the settings: the checks of every
/// march, whatever the body.
pub fn check_input(
    mesh: &SpaceTimeMesh,
    settings: &CharacteristicsSettings,
) -> Result<(), InverseError> {
    if !(mesh.t_start.is_finite() && mesh.t_end.is_finite() && mesh.t_end > mesh.t_start) {
        return Err(bad(
            "time",
            format!(
                "needs finite start < end, got [{}, {}]",
                mesh.t_start, mesh.t_end
            ),
        ));
    }
    check_mesh(mesh)?;
    if !(settings.tolerance.is_finite()
        && settings.tolerance > 0.0
        && settings.max_iterations > 0
        && settings.stall.is_finite()
        && settings.stall >= 0.0)
    {
        return Err(bad(
            "characteristics",
            format!("tolerance must be > 0 and max_iterations ≥ 1, got {settings:?}"),
        ));
    }
    Ok(())
}

/// The march of the module docs for any [`CharacteristicBody`] with its path's [`TipData`],
/// after [`check_input`]. The body's own checks (data, start pose, pre-actuation room: the
/// state below `t_start` is the rest state) are the caller's: [`solve_characteristics`] for
/// the beam, [`super::crane::solve_crane_characteristics`] for the string,
/// [`crate::inverse::spatial`] for the spatial beam.
pub fn march<B: CharacteristicBody<N>, const N: usize>(
    body: &B,
    mesh: &SpaceTimeMesh,
    tip: &dyn TipData<N>,
    settings: &CharacteristicsSettings,
) -> Result<CharacteristicsSolution<B, N>, InverseError> {
    let started = Instant::now();
    check_input(mesh, settings)?;
    march_from(body, mesh, tip, settings, started)
}

fn march_from<B: CharacteristicBody<N>, const N: usize>(
    body: &B,
    mesh: &SpaceTimeMesh,
    tip: &dyn TipData<N>,
    settings: &CharacteristicsSettings,
    started: Instant,
) -> Result<CharacteristicsSolution<B, N>, InverseError> {
    let ns = mesh.elements_s;
    let nt = mesh.elements_t;
    let length = body.length();
    let hs = length / ns as f64;
    let ht = mesh.ht();
    let plan::Plan { targets, lost } = plan::plan(body, mesh, tip)?;
    let n_ext = nt.saturating_add(lost).saturating_add(4);
    let t_of = |j: usize| mesh.t_start + j as f64 * ht;

    // tip line
    let mut tip_line = Vec::with_capacity(crate::math::reserve(n_ext, 1));
    for j in 0..=n_ext {
        let q = tip
            .tip_state(t_of(j))
            .map_err(|source| InverseError::Element {
                iteration: 0,
                source,
            })?;
        tip_line.push(q);
    }
    let mut lines: Vec<Vec<State<N>>> = vec![Vec::new(); ns + 1];
    let mut tops = vec![0usize; ns + 1];
    lines[ns] = tip_line;
    tops[ns] = n_ext;
    let mut report = MarchReport {
        speed_range: [f64::INFINITY, 0.0],
        ..Default::default()
    };
    for i in (1..=ns).rev() {
        let t = &targets[i - 1];
        let (done, rest) = lines.split_at_mut(i);
        // the line the step starts from: the element's upper line, then intermediate ones
        let mut inner: Option<Vec<State<N>>> = None;
        let (mut from_s, mut from_top) = (i as f64 * hs, tops[i]);
        for (m, &s_new) in t.iter().enumerate() {
            let h = if t.len() == 1 { hs } else { from_s - s_new };
            // the first line below the tip: in closed form at a free end, if the path's body
            // gives it
            let start = if i == ns && m == 0 {
                line::free_end_line(tip, s_new, from_top, &t_of)?
            } else {
                None
            };
            let new_line = match start {
                Some(line) => line,
                None => {
                    let view = LineView {
                        states: inner.as_deref().unwrap_or(&rest[0]),
                        top: from_top,
                        rest: body.rest_state(from_s),
                        t_start: mesh.t_start,
                        ht,
                    };
                    line::march_line(body, &view, s_new, h, &t_of, settings, &mut report)?
                }
            };
            if new_line.len() < nt + 1 {
                return Err(bad(
                    "mesh",
                    format!(
                        "the domain of determinacy at s = {s_new:.4} m ends at t = {:.4} s, \
                         before time.end = {} s (internal extension of the tip data too short)",
                        t_of(new_line.len().saturating_sub(1)),
                        mesh.t_end
                    ),
                ));
            }
            report.nodes += new_line.len();
            from_top = new_line.len() - 1;
            from_s = s_new;
            if m + 1 == t.len() {
                tops[i - 1] = from_top;
                done[i - 1] = new_line;
            } else {
                inner = Some(new_line);
            }
        }
    }
    report.extension = t_of(n_ext) - mesh.t_end;

    // grid solution on [t_start, t_end]
    let ns1 = ns + 1;
    let mut x = Vec::with_capacity(crate::math::reserve(ns1, nt.saturating_add(1)));
    let mut v = Vec::with_capacity(crate::math::reserve(ns1, nt.saturating_add(1)));
    for j in 0..=nt {
        for line in &lines {
            let q = &line[j];
            x.push(q.x);
            v.push(q.v);
        }
    }
    let actuation = (0..=nt).map(|j| body.actuation(&lines[0][j])).collect();
    report.seconds = started.elapsed().as_secs_f64();
    let solution = SpaceTimeSolution {
        beam: *body,
        mesh: *mesh,
        s: (0..ns1).map(|i| i as f64 * hs).collect(),
        t: (0..=nt).map(t_of).collect(),
        x,
        v,
        actuation,
        newton: NewtonHistory {
            iterations: report.iterations_total,
            residuals: Vec::new(),
            unknowns: 3 * N * (report.nodes + n_ext + 1),
            nonzeros: 0,
            assembly_seconds: 0.0,
            linear_seconds: report.seconds,
            ..NewtonHistory::default()
        },
    };
    Ok(CharacteristicsSolution { solution, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beam::section::ConstitutiveLaw;
    use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};

    #[test]
    fn rejects_motion_without_room_for_pre_actuation() {
        let beam = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
        let tr = RestToRestLine {
            start: [1.0, 0.0, 0.0],
            delta: [0.1, 0.0, 0.0],
            profile: RestToRestProfile {
                t0: 0.5,
                duration: 2.0,
            },
        };
        let mesh = SpaceTimeMesh {
            t_start: 0.0,
            t_end: 4.0,
            elements_s: 10,
            elements_t: 40,
        };
        let e = solve_characteristics(&beam, &mesh, &tr, &Default::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("pre-actuation") && e.contains("L/c_min = 1.0000"),
            "{e}"
        );
    }

    /// Issue 29: the rest test of the pre-actuation check does not depend on the origin. A
    /// motion of 10⁻⁵ m (10⁻⁵ of the beam) before `L/c_min` is refused at the origin and
    /// 10⁶ m away alike (the old `10⁻⁹ (1 + |x|)` let up to 10⁻³ m pass there), while the
    /// same tip at rest passes in both places.
    #[test]
    fn pre_actuation_rest_test_is_the_same_far_from_the_origin() {
        let beam = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
        for x0 in [1.0, 1e6] {
            let line = |dx: f64| RestToRestLine {
                start: [x0, -3.0 * x0, 0.0],
                delta: [dx, 0.0, 0.0],
                profile: RestToRestProfile {
                    t0: 0.5,
                    duration: 2.0,
                },
            };
            let e = check_pre_actuation(&beam, 0.0, &line(1e-5))
                .expect_err("a motion of 1e-5 m before L/c_min is refused")
                .to_string();
            assert!(e.contains("pre-actuation"), "{x0}: {e}");
            assert!(check_pre_actuation(&beam, 0.0, &line(0.0)).is_ok(), "{x0}");
        }
    }
}
