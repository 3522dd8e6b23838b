//! The string's side of the chain's free end (the parent module's docs, docs/theory.md "The
//! free end of the chain"): the graded steps ([`graded_lines`]), the expansion about the free
//! end ([`expansion`]) and the segment state with the mean stretch ([`segment_state`]), behind
//! the hooks [`CharacteristicBody::intermediate_lines`],
//! [`PlanarCharacteristicBody::free_end_state`] and [`CharacteristicBody::segment_state`].
//! With a payload the tip is regular: no graded step for a payload heavier than 0.8 × the rope
//! (the crane example), no expansion, the plain `½(P + Q)`.

#[cfg(doc)]
use super::{CharacteristicBody, PlanarCharacteristicBody};
use super::{State, dot};
use crate::inverse::element::ElementError;
use crate::inverse::trajectory::TipTrajectory;
use crate::string::{StringModel, stretch_minus_one};

/// Steps uniform in the travel-time coordinate of the quasi-static tension profile,
/// `ζ(z) = ∫₀ᶻ dz'/√(w + z') = 2(√(w + z) − √w)`, `z = L − s`, `w = m/ρA` (the transverse
/// speed is `√(a (w + z))`): an element gets `round(Δζ √(w + L)/hs)` steps, so that no step
/// takes longer to cross than the element at the suspension point. Elements whose speed
/// varies little get one step (no intermediate line: the rope with a payload heavier than
/// 0.8 × the rope, the crane example). Without a payload the last element gets
/// `round(2 √(L/hs))` steps; its first line is not at the first step but at the second,
/// given in closed form ([`expansion`]).
pub fn graded_lines(rope: &StringModel, s_lo: f64, s_hi: f64, hs: f64) -> Vec<f64> {
    let (l, w) = (rope.length, rope.payload_mass / rope.rho_a);
    let zeta = |z: f64| 2.0 * ((w + z.max(0.0)).sqrt() - w.sqrt());
    let (near, far) = (l - s_hi, l - s_lo);
    let (za, zb) = (zeta(near), zeta(far));
    let steps = ((zb - za) * (w + l).sqrt() / hs).round();
    if !(2.0..=1e6).contains(&steps) {
        return Vec::new();
    }
    let steps = steps as usize;
    let first = if rope.payload_mass == 0.0 && near < 0.5 * hs && steps > 2 {
        2
    } else {
        1
    };
    (first..steps)
        .map(|k| {
            let r = 0.5 * (za + (zb - za) * k as f64 / steps as f64) + w.sqrt();
            l - (r * r - w)
        })
        .collect()
}

/// Without a payload: the expansion of the chain about its free end to second order in
/// `z = L − s` (docs/theory.md, "The free end of the chain"),
///
/// ```text
/// r = y + z r₁ + z² r₂,   v = ẏ + z ṙ₁,   p = −ν (r₁ + 2z r₂)/|r₁ + 2z r₂|,
/// r₁ = (ÿ − g)/a,  a = |ÿ − g|,  r₂ = (I − r₁⊗r₁) r₁''/(4a) + (ρA a/2EA) r₁,
/// ν = 1 + (N₁ z + N₂ z²)/EA,  N₁ = ρA a,  N₂ = −ρA |ṙ₁|²/2,
/// ```
///
/// with `ṙ₁`, `r₁''` by central differences of `r₁(t)` over the local travel time
/// `√(z/a)`. With a payload: `None` (the tip is not singular).
pub fn expansion(
    rope: &StringModel,
    path: &dyn TipTrajectory,
    t: f64,
    s: f64,
) -> Option<Result<State<3>, ElementError>> {
    if rope.payload_mass > 0.0 {
        return None;
    }
    let up_chain = |t: f64| {
        let acc = path.acceleration(t);
        let u = [0, 1, 2].map(|c| acc[c] - rope.gravity[c]);
        let a = dot(u, u).sqrt();
        (u.map(|c| c / a), a)
    };
    let (r1, a) = up_chain(t);
    if !(a.is_finite() && a > 0.0) {
        return Some(Err(ElementError::Slack { nu: 1.0 }));
    }
    let z = (rope.length - s).max(0.0);
    let dt = (z / a).sqrt();
    let (r1d, r1dd) = if dt > 0.0 {
        let ((rp, _), (rm, _)) = (up_chain(t + dt), up_chain(t - dt));
        (
            [0, 1, 2].map(|c| (rp[c] - rm[c]) / (2.0 * dt)),
            [0, 1, 2].map(|c| (rp[c] - 2.0 * r1[c] + rm[c]) / (dt * dt)),
        )
    } else {
        ([0.0; 3], [0.0; 3])
    };
    let axial = dot(r1, r1dd);
    let r2 = [0, 1, 2]
        .map(|c| (r1dd[c] - axial * r1[c]) / (4.0 * a) + 0.5 * rope.rho_a * a / rope.ea * r1[c]);
    let n = rope.rho_a * (a * z - 0.5 * dot(r1d, r1d) * z * z);
    let nu = 1.0 + n / rope.ea;
    let d = [0, 1, 2].map(|c| r1[c] + 2.0 * z * r2[c]);
    let dn = dot(d, d).sqrt();
    let (y, v) = (path.pose(t), path.velocity(t));
    Some(Ok(State {
        x: [0, 1, 2].map(|c| y[c] + z * r1[c] + z * z * r2[c]),
        v: [0, 1, 2].map(|c| v[c] + z * r1d[c]),
        p: d.map(|c| -nu * c / dn),
    }))
}

/// `½(P + Q)` with the strain `½((ν_P − 1) + (ν_Q − 1))` (the mean tension, from the two
/// states' own strains, [`stretch_minus_one`]) instead of `|½(p_P + p_Q)| − 1`, which is
/// smaller by `~β²/8` (`β` the angle between `p_P` and `p_Q`): near a free end the stretch
/// `N/EA` is far below `β²`, and so is the stretch of a nearly inextensible rope
/// (`m g/EA ~ 10⁻⁶`) turning by a few milliradians in a step; the plain mean would be slack.
pub fn segment_state(_rope: &StringModel, foot: &State<3>, node: &State<3>) -> State<3> {
    segment_state_with(foot, node, stretch_minus_one(node.p))
}

/// [`segment_state`] with the node's strain `node_strain = `[`stretch_minus_one`]`(node.p)`
/// given (the march computes it once per iterate for all the node's feet).
pub fn segment_state_with(foot: &State<3>, node: &State<3>, node_strain: f64) -> State<3> {
    let mut mid = State::from_fn(|c| 0.5 * (foot.get(c) + node.get(c)));
    let m = dot(mid.p, mid.p).sqrt();
    if m > 0.0 {
        let strain = 0.5 * (stretch_minus_one(foot.p) + node_strain);
        let f = (1.0 + strain) / m;
        for c in 0..3 {
            mid.p[c] *= f;
        }
    }
    mid
}

#[cfg(test)]
mod tests {
    use super::super::{CharacteristicBody, PlanarCharacteristicBody};
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

    fn chain() -> StringModel {
        StringModel {
            length: 1.0,
            rho_a: 1.0,
            ea: 1e6,
            payload_mass: 0.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0; 3],
        }
    }

    /// The crane example's rope (payload = rope mass) keeps one step per element; the chain
    /// steps uniformly in `ζ = 2√z` with no step longer than the top element's, and its last
    /// element starts at the second step.
    #[test]
    fn string_intermediate_lines_are_uniform_in_travel_time() {
        let example = StringModel::crane_example();
        let hs = example.length / 16.0;
        for i in 1..=16 {
            let (lo, hi) = ((i - 1) as f64 * hs, i as f64 * hs);
            assert!(example.intermediate_lines(lo, hi, hs).is_empty(), "{i}");
        }
        let c = chain();
        let hs = 1.0 / 16.0;
        // the last element: round(2 √(L/hs)) = 8 steps, lines at the ζ-nodes 2..7
        let last = c.intermediate_lines(1.0 - hs, 1.0, hs);
        assert_eq!(last.len(), 6);
        let zeta_1 = 2.0 * hs.sqrt();
        for (k, &s) in last.iter().enumerate() {
            let zeta = 2.0 * (1.0 - s).sqrt();
            assert!(
                (zeta - zeta_1 * (k + 2) as f64 / 8.0).abs() < 1e-12,
                "{k} {s}"
            );
        }
        assert!(last.windows(2).all(|w| w[0] > w[1] && w[1] > 1.0 - hs));
        // every step of every element at most ~1.5 times the top element's ζ-step
        let top = 2.0 * (1.0f64.sqrt() - (1.0 - hs).sqrt());
        for i in 1..=16 {
            let (lo, hi) = ((i - 1) as f64 * hs, i as f64 * hs);
            let mut lines = vec![hi];
            lines.extend(c.intermediate_lines(lo, hi, hs));
            lines.push(lo);
            let first = if i == 16 { 1 } else { 0 };
            for w in lines[first..].windows(2) {
                let step = 2.0 * ((1.0 - w[1]).sqrt() - (1.0 - w[0]).sqrt());
                assert!(step < 1.5 * top, "{i}: {step} {top}");
            }
        }
        assert!(c.intermediate_lines(0.0, hs, hs).is_empty());
    }

    /// The free-end expansion against the linearised heavy chain (Petit–Rouchon, an
    /// independent formula: the mean of the free end's path over the window `±2√(z/g)`): the
    /// position's error falls as `z³`, the velocity's as `z²`; at rest it is the rest state.
    #[test]
    fn free_end_state_is_the_expansion_of_the_heavy_chain() {
        use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};
        use crate::string::heavy_chain::HeavyChain;
        let c = chain();
        let path = RestToRestLine {
            start: [0.0; 3],
            delta: [1e-3, 0.0, 0.0],
            profile: RestToRestProfile {
                t0: 1.0,
                duration: 2.0,
            },
        };
        let hc = HeavyChain::of(&c);
        let (y, ydot) = (|t: f64| path.pose(t)[0], |t: f64| path.velocity(t)[0]);
        let mut errs = Vec::new();
        for z in [0.02, 0.01, 0.005] {
            let (mut ex, mut ev) = (0.0f64, 0.0f64);
            for k in 0..=20 {
                let t = 1.5 + 0.05 * k as f64;
                let q = c.free_end_state(&path, t, 1.0 - z).unwrap().unwrap();
                ex = ex.max((q.x[0] - hc.displacement(z, &y, t, 4096)).abs());
                ev = ev.max((q.v[0] - hc.displacement(z, &ydot, t, 4096)).abs());
            }
            errs.push((ex, ev));
        }
        for w in errs.windows(2) {
            let (ox, ov) = ((w[0].0 / w[1].0).log2(), (w[0].1 / w[1].1).log2());
            assert!(ox > 2.7 && ov > 1.8, "{errs:?}");
        }
        // measured 7.0e-11 m and 8.1e-8 m/s at z = 0.02 m (free end moved by 1 mm)
        assert!(errs[0].0 < 1e-10 && errs[0].1 < 1.2e-7, "{errs:?}");
        // at rest
        for s in [0.999, 0.9] {
            let q = c.free_end_state(&path, 0.5, s).unwrap().unwrap();
            let r = c.rest_state(s);
            assert!(
                (0..9).all(|k| (q.get(k) - r.get(k)).abs() < 1e-15),
                "{q:?} {r:?}"
            );
        }
        assert!(rope().free_end_state(&path, 0.5, 9.9).is_none());
    }

    /// The segment state has the mean stretch (never slack between taut states), with or
    /// without a payload; everything else is the plain mean.
    #[test]
    fn string_segment_state_keeps_the_mean_stretch_of_a_chain() {
        let a = State {
            x: [0.0, 0.0, 0.0],
            v: [1.0, 0.0, 0.0],
            p: [0.01, 0.0, -1.0],
        };
        let b = State {
            x: [1.0, 0.0, 0.0],
            v: [0.0, 1.0, 0.0],
            p: [-0.01, 0.0, -1.0],
        };
        let norm = |q: &State<3>| dot(q.p, q.p).sqrt();
        let m = chain().segment_state(&a, &b);
        assert!((norm(&m) - 0.5 * (norm(&a) + norm(&b))).abs() < 1e-15);
        assert!(m.p[0].abs() < 1e-15 && m.p[2] < 0.0 && (m.x[0] - 0.5).abs() < 1e-15);
        let m = rope().segment_state(&a, &b);
        assert!((norm(&m) - 0.5 * (norm(&a) + norm(&b))).abs() < 1e-15);
        assert!((0..6).all(|c| m.get(c) == 0.5 * (a.get(c) + b.get(c))));
        assert!(chain().first_speeds_on_segment() && !rope().first_speeds_on_segment());
    }
}
