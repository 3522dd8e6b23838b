//! What the method of characteristics ([`super::characteristics_solver`]) needs of a body: the
//! seam that lets the planar beam ([`BeamModel`]) and the geometrically exact string of the
//! crane ([`StringModel`], issue 17) share one sideways march.
//!
//! Both bodies are written in the first-order form of `[I]` Eq. 22-26,
//!
//! ```text
//! A ∂t v − H ∂s p = F₁,    ∂t p − ∂s v = 0,    H = ∂σ/∂p,    x, v = ∂t x, p = ∂s x ∈ R³
//! ```
//!
//! with six characteristics `ds/dt = ±c_k`, `H e_k = c_k² A e_k`, `e_kᵀ A e_k = 1`, and the
//! compatibility conditions `e_kᵀ A (dv ∓ c_k dp) = e_kᵀ F₁ dt` (`[I]` Eq. 28₂). A body gives
//! the march ([`CharacteristicBody`]): its state at rest (below `t_start`), `A`, `c_k`, `e_k`
//! and `F₁` at a state, the Cauchy data on the tip line from the prescribed path and the tip
//! law, and the actuation from a state at `s = 0`.
//!
//! # Planar beam
//! `x = (r1, r2, θ)`; [`CharacteristicAnalysis`] (bending, shear, axial families); tip law
//! `σ(θ, p) = h` with `h = 0` (free end) or `h = −diag(m, m, J) γ''` (end mass); actuation
//! `F = −σ(θ, p)` at `s = 0`.
//!
//! # String (docs/theory.md, "Geometrically exact string and crane inverse dynamics")
//! `x = r ∈ R³`, `σ(p) = n = N(ν) t`, `ν = |p|`, `t = p/ν`, `N = EA (ν − 1)`; `A = ρA I`;
//!
//! ```text
//! H = N_ν t⊗t + (N/ν)(I − t⊗t),      F₁ = ρA g   (σ does not depend on x)
//! ```
//!
//! so the families are two transverse ones, `c_t² = N/(ν ρA)` with `e ⊥ t` (a double
//! eigenvalue: any orthonormal pair of the plane, `/√ρA`, gives the same two conditions), and
//! the axial one, `c_a² = EA/ρA`, `e = t/√ρA`. They exist only while the rope is taut
//! (`ν > 1`); a slack state is an error ([`ElementError::Slack`]). Tip law: the payload's
//! balance `m ÿ = m g − n(L)` gives `n(L) = m (g − ÿ)`, hence
//! `t(L) = (g − ÿ)/|g − ÿ|` and `N(ν(L)) = m |g − ÿ|`, `p(L) = ν t`. Actuation: the force the
//! suspension exerts on the rope, `F = −n(0) = −N(ν) t` (the convention of the FEM crane).
//! Rest: hanging straight below the suspension point, `N(s) = |g| (m + ρA (L − s))`,
//! `p = −ν(s) up`, `x(s) = y₀ + up ∫_s^L ν ds'`.
//!
//! # The chain's free end (docs/theory.md, "The free end of the chain")
//! Without a payload the tension vanishes at the tip, `N ≈ ρA |ÿ − g| z` (`z = L − s`), and
//! with it the transverse speed `c ≈ √(a z)`: in the travel time `ζ = ∫dz/c = 2√(z/a)` the
//! last element is `2√(hs/a)` long, not `O(hs)`, and one midpoint step across it costs the
//! scheme its order. The string therefore gives the march
//!
//! * intermediate lines uniform in `ζ` (of the quasi-static profile), no step longer in `ζ`
//!   than the element at the suspension point ([`CharacteristicBody::intermediate_lines`];
//!   also with a light payload, wherever an element's speed varies by more than ~1.5);
//! * the first line below the tip from the expansion of the chain about its free end to
//!   second order in `z` ([`TipData::free_end_state`], for the string [`PlanarCharacteristicBody::free_end_state`]): the first midpoint step
//!   from the tip is degenerate (its foot time `√(2z/a)` instead of `2√(z/a)`; in the fixed
//!   point, the gravity term of the transverse conditions feeds back with gain −1);
//! * the segment state with the mean stretch `½(ν_P + ν_Q)` ([`CharacteristicBody::segment_state`])
//!   and a node's first speeds at the segment, not at the predictor
//!   ([`CharacteristicBody::first_speeds_on_segment`]): near the free end the stretch `N/EA`
//!   is far below the square of the angles between neighbouring states, so `|½(p_P + p_Q)|`
//!   would be slack and a first speed off by `√(z_Q/z_mid)` starts the fixed point far from
//!   its (narrow) basin.
//!
//! With a payload the tip is regular and the string keeps the plain scheme. The string's side
//! of this is in [`free_end`].
//!
//! # Components
//! The planar beam and the string have three components per point, the spatial beam six
//! ([`crate::inverse::spatial`]): the state is [`State<N>`] `= (x, v, p)` and the compatibility
//! system `2N × 2N`, with the inertia a full symmetric matrix `M` (constant and diagonal for the
//! planar beam and the string, `diag(ρA I, T J̃0 Tᵀ)` for the spatial beam), the conditions
//! `(M e_k)ᵀ (dv ∓ c_k dp) = e_kᵀ F₁ dt`. The path-dependent part, the Cauchy data on the tip line
//! and the speed bounds, comes with the path ([`TipData`]; [`PlanarTip`] for the bodies with a
//! [`TipTrajectory`]).

use super::body::InverseBody;
use super::characteristics::{CharacteristicAnalysis, deformation_gradient, stress};
use super::element::ElementError;
use super::solver::{BeamModel, TipLaw};
use super::trajectory::TipTrajectory;
use crate::beam::section::ConstitutiveLaw;
use crate::string::{StringModel, stretch_minus_one};

pub mod free_end;

/// Per-node state `(x, v = ∂t x, p = ∂s x)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State<const N: usize> {
    /// `x`.
    pub x: [f64; N],
    /// `v = ∂t x`.
    pub v: [f64; N],
    /// `p = ∂s x`.
    pub p: [f64; N],
}

impl<const N: usize> State<N> {
    /// All zero.
    pub const ZERO: Self = Self {
        x: [0.0; N],
        v: [0.0; N],
        p: [0.0; N],
    };

    /// The `3N` values `(x, v, p)` in order, as a function of the index.
    #[inline]
    pub fn get(&self, k: usize) -> f64 {
        match k / N {
            0 => self.x[k % N],
            1 => self.v[k % N],
            _ => self.p[k % N],
        }
    }

    /// `f` applied to each of the `3N` values, with its index.
    #[inline]
    pub fn from_fn(mut f: impl FnMut(usize) -> f64) -> Self {
        Self {
            x: std::array::from_fn(&mut f),
            v: std::array::from_fn(|c| f(N + c)),
            p: std::array::from_fn(|c| f(2 * N + c)),
        }
    }

    /// The planar layout `[x, v, p]` of three components.
    pub fn flat(&self) -> Vec<f64> {
        (0..3 * N).map(|k| self.get(k)).collect()
    }
}

/// A state of three components from the flat layout `[x, v, p]`.
pub fn state3(q: [f64; 9]) -> State<3> {
    State::from_fn(|k| q[k])
}

/// The characteristic data of a body at one state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Characteristics<const N: usize> {
    /// Inertia `M` (symmetric positive definite; diagonal for the planar beam and the string).
    pub inertia: [[f64; N]; N],
    /// Speeds `c_k > 0` (m/s per unit reference length).
    pub speeds: [f64; N],
    /// Modes `e_k` (`H e_k = c_k² M e_k`, `e_kᵀ M e_k = 1`), same order as `speeds`.
    pub modes: [[f64; N]; N],
    /// `F₁`, the right-hand side of `M ∂t v − H ∂s p = F₁`.
    pub source: [f64; N],
}

/// A diagonal inertia as a matrix.
fn diagonal<const N: usize>(a: [f64; N]) -> [[f64; N]; N] {
    std::array::from_fn(|i| std::array::from_fn(|j| if i == j { a[i] } else { 0.0 }))
}

/// A body the method of characteristics can march (module docs).
pub trait CharacteristicBody<const N: usize>: InverseBody<N> {
    /// Names of the families, in the order of [`Characteristics::speeds`].
    const FAMILIES: [&'static str; N];
    /// The state at rest at `s` (the body's initial state, valid below `t_start`).
    fn rest_state(&self, s: f64) -> State<N>;
    /// `M`, `c_k`, `e_k`, `F₁` at a state. Fails where the law has no real speeds (beam: zero
    /// length; string: slack; spatial beam: the singular rotation).
    fn characteristics(&self, q: &State<N>) -> Result<Characteristics<N>, ElementError>;
    /// The actuation at `s = 0` from the state there (the force the actuator applies to the
    /// body, global frame; the generalised force of the space-time solver).
    fn actuation(&self, q: &State<N>) -> [f64; N];
    /// Positions strictly inside the element `(s_lo, s_hi)` (of length `hs`) at which the march
    /// inserts intermediate lines, in decreasing order: it steps from `s_hi` through them to
    /// `s_lo`, at the same time nodes, and keeps only the element's lines. Default: none (one
    /// step per element). The string grades its steps near a free end (the module docs).
    fn intermediate_lines(&self, _s_lo: f64, _s_hi: f64, _hs: f64) -> Vec<f64> {
        Vec::new()
    }
    /// The state at which the characteristic data of the segment from a foot `P` to the node
    /// `Q` are evaluated (the midpoint rule). Default: `½(P + Q)`.
    fn segment_state(&self, foot: &State<N>, node: &State<N>) -> State<N> {
        State::from_fn(|c| 0.5 * (foot.get(c) + node.get(c)))
    }
    /// What [`Self::segment_state`] needs of the node `Q` alone (the string: its strain),
    /// computed once per iterate of a node for the `2N` feet of its segments
    /// ([`Self::segment_state_at`]). Default: nothing (0).
    fn segment_node(&self, _node: &State<N>) -> f64 {
        0.0
    }
    /// [`Self::segment_state`] with `node_data = `[`Self::segment_node`]`(node)`: the same
    /// state, to the bit.
    fn segment_state_at(&self, foot: &State<N>, node: &State<N>, _node_data: f64) -> State<N> {
        self.segment_state(foot, node)
    }
    /// The predictor of a node from the previous line: `prev + (new_below − prev_below)`, the
    /// state at `(s_i, t_j)` plus the increment along the rope at the time node below.
    /// Default: componentwise.
    fn extrapolate(
        &self,
        prev: &State<N>,
        new_below: &State<N>,
        prev_below: &State<N>,
    ) -> State<N> {
        State::from_fn(|c| prev.get(c) + new_below.get(c) - prev_below.get(c))
    }
    /// Whether a node's first feet use the speeds of [`Self::segment_state`] between the state
    /// at `(s_i, t_j)` and the predictor (`true`) or the speeds at the predictor (default).
    fn first_speeds_on_segment(&self) -> bool {
        false
    }
}

/// What the march needs of the prescribed path: the Cauchy data on the tip line and lower
/// bounds of the speeds.
pub trait TipData<const N: usize> {
    /// Cauchy data on the tip line `s = L` at time `t`: `x = γ(t)`, `v = γ'(t)` and `p` from
    /// the tip law.
    fn tip_state(&self, t: f64) -> Result<State<N>, ElementError>;
    /// Lower bounds of the characteristic speeds met at each arc length of `s` on
    /// `[t_start, t_end]` and at rest after it: size the extension of the tip line beyond
    /// `t_end` element by element (so that a speed vanishing at the tip, a chain's free end,
    /// still gives a finite travel time). One call for all positions: the path is analysed once.
    fn speed_lower_bounds(&self, t_start: f64, t_end: f64, s: &[f64]) -> Vec<f64>;
    /// The state at `s` and time `t` on the first line the march computes below the tip line
    /// (the last element's first intermediate line, or `L − hs`), in closed form from the path,
    /// for a body whose characteristics degenerate at the tip (a chain's free end, where the
    /// transverse speed vanishes). Default: `None`, the line is marched.
    fn free_end_state(&self, _t: f64, _s: f64) -> Option<Result<State<N>, ElementError>> {
        None
    }
}

/// The path-dependent part of the planar beam and the string (a [`TipTrajectory`]).
pub trait PlanarCharacteristicBody: CharacteristicBody<3> {
    /// [`TipData::tip_state`] for `path`.
    fn tip_state(&self, path: &dyn TipTrajectory, t: f64) -> Result<State<3>, ElementError>;
    /// [`TipData::speed_lower_bounds`] for `path`.
    fn speed_lower_bounds(
        &self,
        path: &dyn TipTrajectory,
        t_start: f64,
        t_end: f64,
        s: &[f64],
    ) -> Vec<f64>;
    /// [`TipData::free_end_state`] for `path`. Default: `None`.
    fn free_end_state(
        &self,
        _path: &dyn TipTrajectory,
        _t: f64,
        _s: f64,
    ) -> Option<Result<State<3>, ElementError>> {
        None
    }
}

/// A planar body with its tip trajectory, as the march sees it.
#[derive(Clone, Copy, Debug)]
pub struct PlanarTip<'a, B> {
    /// The body.
    pub body: &'a B,
    /// The tip trajectory.
    pub path: &'a dyn TipTrajectory,
}

impl<B: PlanarCharacteristicBody> TipData<3> for PlanarTip<'_, B> {
    fn tip_state(&self, t: f64) -> Result<State<3>, ElementError> {
        PlanarCharacteristicBody::tip_state(self.body, self.path, t)
    }
    fn speed_lower_bounds(&self, t_start: f64, t_end: f64, s: &[f64]) -> Vec<f64> {
        PlanarCharacteristicBody::speed_lower_bounds(self.body, self.path, t_start, t_end, s)
    }
    fn free_end_state(&self, t: f64, s: f64) -> Option<Result<State<3>, ElementError>> {
        PlanarCharacteristicBody::free_end_state(self.body, self.path, t, s)
    }
}

impl CharacteristicBody<3> for BeamModel {
    const FAMILIES: [&'static str; 3] = super::characteristics::FAMILIES;

    fn rest_state(&self, s: f64) -> State<3> {
        let x = self.initial_pose(s);
        let (sn, cs) = self.base[2].sin_cos();
        state3([x[0], x[1], x[2], 0.0, 0.0, 0.0, cs, sn, 0.0])
    }

    fn characteristics(&self, q: &State<3>) -> Result<Characteristics<3>, ElementError> {
        let an = CharacteristicAnalysis::at(&self.section, self.law, q.x[2], q.p)?;
        Ok(Characteristics {
            inertia: diagonal(an.inertia),
            speeds: an.speeds,
            modes: an.modes,
            source: an.source,
        })
    }

    fn actuation(&self, q: &State<3>) -> [f64; 3] {
        let sg = stress(&self.section, self.law, q.x[2], q.p);
        [-sg[0], -sg[1], -sg[2]]
    }
}

impl PlanarCharacteristicBody for BeamModel {
    fn tip_state(&self, path: &dyn TipTrajectory, t: f64) -> Result<State<3>, ElementError> {
        let (g, gv) = (path.pose(t), path.velocity(t));
        let h = match self.tip {
            TipLaw::Free => [0.0; 3],
            TipLaw::Mass { mass, inertia } => {
                let a = path.acceleration(t);
                [-mass * a[0], -mass * a[1], -inertia * a[2]]
            }
        };
        let p = deformation_gradient(&self.section, self.law, g[2], h)?;
        Ok(state3([
            g[0], g[1], g[2], gv[0], gv[1], gv[2], p[0], p[1], p[2],
        ]))
    }

    /// The slowest speed any state can have, everywhere (log law: the axial speed tends to
    /// `sqrt(EA/(2ρA))` under tension).
    fn speed_lower_bounds(
        &self,
        _path: &dyn TipTrajectory,
        _t0: f64,
        _t1: f64,
        s: &[f64],
    ) -> Vec<f64> {
        let c = self.law.wave_speeds(&self.section, 1.0);
        let axial = match self.law {
            ConstitutiveLaw::Quadratic => c[2],
            ConstitutiveLaw::Log => c[2] / std::f64::consts::SQRT_2,
        };
        vec![c[0].min(c[1]).min(axial); s.len()]
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// An orthonormal pair spanning the plane normal to the unit vector `t`: Gram-Schmidt on the
/// coordinate axis least aligned with `t` (deterministic, well conditioned).
fn normal_pair(t: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let k = (0..3)
        .min_by(|&a, &b| t[a].abs().total_cmp(&t[b].abs()))
        .unwrap_or(0);
    let mut a = [0.0; 3];
    a[k] = 1.0;
    let at = dot(a, t);
    let u = [0, 1, 2].map(|c| a[c] - at * t[c]);
    let nu = dot(u, u).sqrt();
    let n1 = u.map(|c| c / nu);
    let n2 = [
        t[1] * n1[2] - t[2] * n1[1],
        t[2] * n1[0] - t[0] * n1[2],
        t[0] * n1[1] - t[1] * n1[0],
    ];
    (n1, n2)
}

impl CharacteristicBody<3> for StringModel {
    const FAMILIES: [&'static str; 3] = ["transverse", "transverse", "axial"];

    fn rest_state(&self, s: f64) -> State<3> {
        let (g, up, l) = (self.g(), self.up(), self.length - s);
        let nu = 1.0 + self.static_tension(s) / self.ea;
        // ∫_s^L ν ds' with N linear in s
        let len = l + g * (self.payload_mass * l + 0.5 * self.rho_a * l * l) / self.ea;
        let y = self.payload_start;
        state3([
            y[0] + len * up[0],
            y[1] + len * up[1],
            y[2] + len * up[2],
            0.0,
            0.0,
            0.0,
            -nu * up[0],
            -nu * up[1],
            -nu * up[2],
        ])
    }

    fn characteristics(&self, q: &State<3>) -> Result<Characteristics<3>, ElementError> {
        let p = q.p;
        let nu = dot(p, p).sqrt();
        // the strain without cancellation: a nearly inextensible rope is taut by 1e-7
        let strain = stretch_minus_one(p);
        if !(nu.is_finite() && strain > 0.0) {
            return Err(ElementError::Slack { nu: 1.0 + strain });
        }
        let t = p.map(|c| c / nu);
        let n = self.ea * strain;
        let (n1, n2) = normal_pair(t);
        let ra = self.rho_a.sqrt();
        Ok(Characteristics {
            inertia: diagonal([self.rho_a; 3]),
            speeds: [
                (n / (nu * self.rho_a)).sqrt(),
                (n / (nu * self.rho_a)).sqrt(),
                (self.ea / self.rho_a).sqrt(),
            ],
            modes: [n1.map(|c| c / ra), n2.map(|c| c / ra), t.map(|c| c / ra)],
            source: self.gravity.map(|c| self.rho_a * c),
        })
    }

    fn actuation(&self, q: &State<3>) -> [f64; 3] {
        let p = q.p;
        let nu = dot(p, p).sqrt();
        let n = self.ea * stretch_minus_one(p);
        p.map(|c| -n * c / nu)
    }

    /// [`free_end::graded_lines`]: uniform in the travel time near a free end (or a light
    /// payload), none for the crane example.
    fn intermediate_lines(&self, s_lo: f64, s_hi: f64, hs: f64) -> Vec<f64> {
        free_end::graded_lines(self, s_lo, s_hi, hs)
    }

    /// [`free_end::segment_state`]: `½(P + Q)` with the mean stretch.
    fn segment_state(&self, foot: &State<3>, node: &State<3>) -> State<3> {
        free_end::segment_state(self, foot, node)
    }

    /// The node's strain ([`stretch_minus_one`] of its tangent).
    fn segment_node(&self, node: &State<3>) -> f64 {
        stretch_minus_one(node.p)
    }

    /// [`free_end::segment_state_with`] the node's strain.
    fn segment_state_at(&self, foot: &State<3>, node: &State<3>, node_strain: f64) -> State<3> {
        free_end::segment_state_with(foot, node, node_strain)
    }

    /// The componentwise predictor with the strain extrapolated from the states' own strains
    /// ([`stretch_minus_one`]): the componentwise sum of three near-unit tangents turning
    /// along and across the rope loses their angles' products from its length, more than the
    /// whole strain of a nearly inextensible rope.
    fn extrapolate(
        &self,
        prev: &State<3>,
        new_below: &State<3>,
        prev_below: &State<3>,
    ) -> State<3> {
        let mut q = State::from_fn(|c| prev.get(c) + new_below.get(c) - prev_below.get(c));
        let m = dot(q.p, q.p).sqrt();
        if m > 0.0 {
            let strain = stretch_minus_one(prev.p) + stretch_minus_one(new_below.p)
                - stretch_minus_one(prev_below.p);
            let f = (1.0 + strain) / m;
            for c in 0..3 {
                q.p[c] *= f;
            }
        }
        q
    }

    /// Without a payload (near the free end the predictor's own speed can be far from the
    /// segment's, `√2` at the first step, and the first iterate then swings the tiny stretch).
    fn first_speeds_on_segment(&self) -> bool {
        self.payload_mass == 0.0
    }
}

impl PlanarCharacteristicBody for StringModel {
    fn tip_state(&self, path: &dyn TipTrajectory, t: f64) -> Result<State<3>, ElementError> {
        let (y, v, a) = (path.pose(t), path.velocity(t), path.acceleration(t));
        let rel = [0, 1, 2].map(|c| self.gravity[c] - a[c]);
        let w = dot(rel, rel).sqrt();
        let nu = 1.0 + self.payload_mass * w / self.ea;
        if !(w.is_finite() && w > 0.0 && nu.is_finite()) {
            return Err(ElementError::Slack { nu: 1.0 });
        }
        let p = rel.map(|c| nu * c / w);
        Ok(state3([
            y[0], y[1], y[2], v[0], v[1], v[2], p[0], p[1], p[2],
        ]))
    }

    /// The transverse speed under the quasi-static tension `a_min (m + ρA (L − s))`, `a_min`
    /// the smallest `|ÿ − g|` over `[t_start, t_end]` and at rest (`|g|`)
    /// ([`super::crane::element_speed`]): the tension grows up the rope, and after the
    /// post-actuation the rope hangs at rest. Without a payload it vanishes at the free end
    /// only.
    fn speed_lower_bounds(
        &self,
        path: &dyn TipTrajectory,
        t0: f64,
        t1: f64,
        s: &[f64],
    ) -> Vec<f64> {
        let a_min = super::crane::check_payload_path(self, path, t0, t1, 1)
            .map_or(self.g(), |r| r.min_relative_acceleration.min(self.g()));
        s.iter()
            .map(|&s| super::crane::quasi_static_speed(self, a_min, s))
            .collect()
    }

    /// [`free_end::expansion`]: without a payload the expansion of the chain about its free
    /// end, with a payload `None` (the tip is not singular).
    fn free_end_state(
        &self,
        path: &dyn TipTrajectory,
        t: f64,
        s: f64,
    ) -> Option<Result<State<3>, ElementError>> {
        free_end::expansion(self, path, t, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rope() -> StringModel {
        StringModel {
            length: 10.0,
            rho_a: 1.5,
            ea: 2.0e4,
            payload_mass: 20.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [1.0, 2.0, 0.0],
        }
    }

    /// `H e_k = c_k² A e_k` and `e_kᵀ A e_l = δ_kl` with `H` assembled from the string's point
    /// law ([`crate::string::StringPointLaw::force`], an independent code path).
    #[test]
    fn string_modes_are_the_generalised_eigenvectors_of_the_point_law() {
        let r = rope();
        let law = r.point_law(crate::string::Compression::Slack);
        for p in [
            [0.3, -0.2, -1.1],
            [1.2, 0.0, 0.0],
            [0.0, 0.0, -1.01],
            [0.7, 0.7, 0.2],
        ] {
            let (_, h) = law.force(p, true).unwrap();
            let ch = r.characteristics(&State { p, ..State::ZERO }).unwrap();
            for k in 0..3 {
                let e = ch.modes[k];
                let he = [0, 1, 2].map(|i| (0..3).map(|j| h[i][j] * e[j]).sum::<f64>());
                let c2 = ch.speeds[k] * ch.speeds[k];
                for i in 0..3 {
                    assert!(
                        (he[i] - c2 * r.rho_a * e[i]).abs() < 1e-12 * r.ea,
                        "{p:?} {k}"
                    );
                }
                for l in 0..3 {
                    let m = r.rho_a * dot(e, ch.modes[l]);
                    assert!((m - if k == l { 1.0 } else { 0.0 }).abs() < 1e-14);
                }
            }
            // the actuation is −n
            let (n, _) = law.force(p, false).unwrap();
            let f = r.actuation(&State { p, ..State::ZERO });
            assert!((0..3).all(|c| (f[c] + n[c]).abs() < 1e-12 * r.ea));
        }
        assert!(matches!(
            r.characteristics(&State {
                p: [0.0, 0.0, -0.9],
                ..State::ZERO
            }),
            Err(ElementError::Slack { .. })
        ));
    }

    /// The march's slack test is relative (issue 29): a tangent stretched by 1e-6 or 1e-9 in an
    /// oblique direction is taut, with the transverse speed `c_t² = EA (ν − 1)/(ν ρA)` of its
    /// own strain (to the representation of `p = (1 + strain) t`: `ε/strain` relative, 2e-7
    /// at 1e-9), not lost to the cancellation in `|p| − 1`; compressed by 1e-9 it is slack.
    #[test]
    fn string_slack_test_keeps_small_strains() {
        let r = StringModel {
            ea: 4.2e8,
            rho_a: 16.0,
            ..rope()
        };
        let dir = [0.3, -0.4, -0.866f64];
        let n = dot(dir, dir).sqrt();
        for strain in [1e-6, 1e-9] {
            let p = dir.map(|c| (1.0 + strain) * c / n);
            let ch = r.characteristics(&State { p, ..State::ZERO }).unwrap();
            let want = (r.ea * strain / ((1.0 + strain) * r.rho_a)).sqrt();
            for k in 0..2 {
                let rel = (ch.speeds[k] - want).abs() / want;
                assert!(
                    rel < 1e-6,
                    "strain {strain:e}: c_t {} against {want}",
                    ch.speeds[k]
                );
            }
            let f = r.actuation(&State { p, ..State::ZERO });
            let tension = dot(f, f).sqrt();
            assert!(
                (tension - r.ea * strain).abs() < 1e-6 * r.ea * strain,
                "{tension}"
            );
        }
        let p = dir.map(|c| (1.0 - 1e-9) * c / n);
        assert!(matches!(
            r.characteristics(&State { p, ..State::ZERO }),
            Err(ElementError::Slack { .. })
        ));
    }

    /// The rest state is the hanging rope: top = the discrete hanging nodes' top, tension
    /// `N(ν(s))` = the weight below, and the tip state at rest continues it at `s = L`.
    #[test]
    fn string_rest_state_is_the_hanging_rope() {
        let r = rope();
        let top = r.hanging_nodes(7)[0];
        let q = r.rest_state(0.0);
        assert!((0..3).all(|c| (q.x[c] - top[c]).abs() < 1e-12));
        for s in [0.0, 3.0, 10.0] {
            let q = r.rest_state(s);
            let nu = dot(q.p, q.p).sqrt();
            assert!((r.ea * (nu - 1.0) - r.static_tension(s)).abs() < 1e-9);
        }
        let still = crate::inverse::trajectory::RestToRestLine {
            start: r.payload_start,
            delta: [0.0; 3],
            profile: crate::inverse::trajectory::RestToRestProfile {
                t0: 1.0,
                duration: 1.0,
            },
        };
        let tip = PlanarCharacteristicBody::tip_state(&r, &still, 0.0).unwrap();
        let rest = r.rest_state(r.length);
        assert!(
            (0..9).all(|c| (tip.get(c) - rest.get(c)).abs() < 1e-14),
            "{tip:?} {rest:?}"
        );
    }
}
