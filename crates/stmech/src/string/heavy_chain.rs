//! The linearised heavy chain without payload and its flat output (Petit & Rouchon, SIAM J.
//! Control Optim. 40 (2001) 475–495): the reference of the payload-free crane inverse problem
//! (issue 17; docs/theory.md, "Linearised heavy chain (Petit & Rouchon)").
//!
//! # Equations
//! `z = L − s` is the distance from the free end, `X(z, t)` one horizontal component of the
//! displacement. Small motions about the vertical rest state of an inextensible chain of
//! length `L`, mass `ρA` per length, obey (tension `ρA g z`, the weight below)
//! ```text
//! ∂t² X = g ∂z (z ∂z X),         X(0, t) = y(t)  (the free end: the flat output)   (HC1)
//! ```
//! whose solution bounded at `z = 0` is the average of the free end's path
//! ```text
//! X(z, t) = (1/2π) ∫_{−π}^{π} y(t + 2 √(z/g) sin θ) dθ                               (HC2)
//! x(t) = X(L, t) = (1/π) ∫_{−T}^{T} y(t + τ) dτ / √(T² − τ²),    T = 2 √(L/g)        (HC3)
//! ```
//! (for `y = e^{iωt}`, (HC2) is `J₀(2ω √(z/g)) e^{iωt}`, Bessel's integral). The horizontal
//! force the suspension point applies to the chain is the tension times the slope,
//! ```text
//! H(t) = ρA g L ∂z X(L, t) = ρA √(gL) (1/2π) ∫_{−π}^{π} ẏ(t + T sin θ) sin θ dθ     (HC4)
//!      = (ρA g / 2π) ∫_{−T}^{T} ÿ(t + τ) √(T² − τ²) dτ                               (HC5)
//! ```
//! ((HC5), by parts, says `H` is the chain's mass times a weighted average of the free end's
//! acceleration: `ρA L ÿ` for a rigid translation.)
//!
//! # Quadrature
//! The θ-integrands of (HC2) and (HC4) are `2π`-periodic, so the trapezoid rule on `n` equally
//! spaced points is spectrally accurate for a smooth `y` (the error of the rule falls faster
//! than any power of `1/n`), where the τ-form (HC3) has end-point singularities. A rest-to-rest
//! path is only piecewise smooth (the profile of `[I]` Eq. 35 is `C³`): then the error falls
//! algebraically, about as `n⁻⁵` ([`DEFAULT_POINTS`] gives ~1e-13 relative; unit tests).

use super::StringModel;
use crate::inverse::trajectory::TipTrajectory;

/// Trapezoid points of [`HeavyChain`]'s θ-integrals used by the path functions.
pub const DEFAULT_POINTS: usize = 4096;

/// An inextensible chain of length `L` and mass `ρA` per length hanging in gravity `g`, free
/// at its lower end (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeavyChain {
    /// Length `L` (m).
    pub length: f64,
    /// Mass per unit length `ρA` (kg/m).
    pub rho_a: f64,
    /// `|g|` (m/s²).
    pub g: f64,
}

impl HeavyChain {
    /// The chain of a string model (its payload, stretch and direction of gravity ignored).
    pub fn of(model: &StringModel) -> Self {
        Self {
            length: model.length,
            rho_a: model.rho_a,
            g: model.g(),
        }
    }

    /// Half-width `T = 2 √(L/g)` of the averaging window (HC3): the transverse travel time of
    /// the chain, `∫₀ᴸ dz/√(g z)` (s).
    pub fn half_window(&self) -> f64 {
        2.0 * (self.length / self.g).sqrt()
    }

    /// `(1/2π) ∫ f(θ) dθ` over a period by the trapezoid rule on `points` points (compensated
    /// summation: thousands of points would otherwise leave ~1e-13 relative round-off).
    fn mean_over_period(points: usize, f: impl Fn(f64) -> f64) -> f64 {
        let n = points.max(1);
        let h = 2.0 * std::f64::consts::PI / n as f64;
        let (mut sum, mut comp) = (0.0f64, 0.0f64);
        for k in 0..n {
            let v = f(-std::f64::consts::PI + k as f64 * h);
            let t = sum + v;
            comp += if sum.abs() >= v.abs() {
                (sum - t) + v
            } else {
                (v - t) + sum
            };
            sum = t;
        }
        (sum + comp) / n as f64
    }

    /// `X(z, t)` of (HC2), `0 ≤ z ≤ L` the distance from the free end, for the free-end path
    /// `y` (one horizontal component), with `points` trapezoid points.
    pub fn displacement(&self, z: f64, y: &dyn Fn(f64) -> f64, t: f64, points: usize) -> f64 {
        let a = 2.0 * (z.max(0.0) / self.g).sqrt();
        Self::mean_over_period(points, |th| y(t + a * th.sin()))
    }

    /// Suspension-point displacement `x(t) = X(L, t)` (HC3).
    pub fn suspension(&self, y: &dyn Fn(f64) -> f64, t: f64, points: usize) -> f64 {
        self.displacement(self.length, y, t, points)
    }

    /// Horizontal force `H(t)` the suspension point applies to the chain (HC4), from the free
    /// end's velocity `ẏ` (N).
    pub fn suspension_force(&self, ydot: &dyn Fn(f64) -> f64, t: f64, points: usize) -> f64 {
        let big_t = self.half_window();
        let mean = Self::mean_over_period(points, |th| {
            let s = th.sin();
            ydot(t + big_t * s) * s
        });
        self.rho_a * (self.g * self.length).sqrt() * mean
    }
}

/// `v − (v·up) up`.
fn horizontal(v: [f64; 3], up: [f64; 3]) -> [f64; 3] {
    let d = v[0] * up[0] + v[1] * up[1] + v[2] * up[2];
    [0, 1, 2].map(|c| v[c] - d * up[c])
}

/// The Petit–Rouchon suspension motion of the payload-free chain of `model` whose free end
/// follows `path` (its horizontal part): the horizontal position of the suspension point at
/// `t`, (HC3) applied to each component of `P y(t)`, `P = I − up ⊗ up` (m). Its vertical
/// component is zero; compare with the horizontal part of a computed suspension point.
pub fn suspension_horizontal(model: &StringModel, path: &dyn TipTrajectory, t: f64) -> [f64; 3] {
    let chain = HeavyChain::of(model);
    let up = model.up();
    [0, 1, 2].map(|c| {
        let y = |t: f64| horizontal(path.pose(t), up)[c];
        chain.suspension(&y, t, DEFAULT_POINTS)
    })
}

/// The horizontal force (HC4) the suspension point applies to the payload-free chain of
/// `model` whose free end follows `path` (N, vertical component zero; the sign of
/// [`crate::inverse::crane::CraneSolution`]'s actuation).
pub fn suspension_force_horizontal(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t: f64,
) -> [f64; 3] {
    let chain = HeavyChain::of(model);
    let up = model.up();
    [0, 1, 2].map(|c| {
        let v = |t: f64| horizontal(path.velocity(t), up)[c];
        chain.suspension_force(&v, t, DEFAULT_POINTS)
    })
}

/// The suspension point's horizontal velocity `ẋ(t)`, (HC3) applied to `P ẏ` (m/s): with
/// [`suspension_horizontal`], what a forward model replays.
pub fn suspension_velocity_horizontal(
    model: &StringModel,
    path: &dyn TipTrajectory,
    t: f64,
) -> [f64; 3] {
    let chain = HeavyChain::of(model);
    let up = model.up();
    [0, 1, 2].map(|c| {
        let v = |t: f64| horizontal(path.velocity(t), up)[c];
        chain.suspension(&v, t, DEFAULT_POINTS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};

    /// `J_n(a)` for `n = 0, 1` by the power series `Σ_k (−1)^k (a/2)^{2k+n} / (k! (k+n)!)`
    /// (independent of Bessel's integral; fine for `a ≤ 10` in f64).
    fn bessel(n: i32, a: f64) -> f64 {
        let x = 0.5 * a;
        let mut term = if n == 0 { 1.0 } else { x };
        let mut sum = term;
        for k in 1..80 {
            term *= -x * x / (k as f64 * (k + n) as f64);
            sum += term;
        }
        sum
    }

    fn chain() -> HeavyChain {
        HeavyChain {
            length: 2.0,
            rho_a: 1.5,
            g: 9.81,
        }
    }

    /// `y = sin ωt`: the solution of (HC1) bounded at the free end is
    /// `X = J₀(2ω√(z/g)) sin ωt` (Bessel's equation of order 0 in `2ω√(z/g)`), so
    /// `x = J₀(ωT) sin ωt` and `H = ρA g L ∂z X(L) = −ρA √(gL) ω J₁(ωT) sin ωt`.
    #[test]
    fn single_mode_is_the_bessel_solution() {
        let c = chain();
        let big_t = c.half_window();
        let mut worst = (0.0f64, 0.0f64);
        for omega in [0.3, 1.0, 2.5, 5.0, 9.0] {
            let a = omega * big_t;
            let y = |t: f64| (omega * t).sin();
            let yd = |t: f64| omega * (omega * t).cos();
            for t in [0.0, 0.37, 1.9, -2.2] {
                let x = c.suspension(&y, t, 64);
                let xe = bessel(0, a) * (omega * t).sin();
                let h = c.suspension_force(&yd, t, 64);
                let he =
                    -c.rho_a * (c.g * c.length).sqrt() * omega * bessel(1, a) * (omega * t).sin();
                worst.0 = worst.0.max((x - xe).abs());
                worst.1 = worst
                    .1
                    .max((h - he).abs() / (c.rho_a * c.length * omega * omega));
                // and inside the chain
                let z = 0.3 * c.length;
                let xz = c.displacement(z, &y, t, 64);
                let xze = bessel(0, 2.0 * omega * (z / c.g).sqrt()) * (omega * t).sin();
                worst.0 = worst.0.max((xz - xze).abs());
            }
        }
        println!(
            "max |x − J₀ sin| = {:.2e}, max |H − H_J₁|/(ρA L ω²) = {:.2e}",
            worst.0, worst.1
        );
        assert!(worst.0 < 1e-12 && worst.1 < 1e-12, "{worst:?}");
    }

    /// A rest-to-rest free-end motion: the trapezoid rule converges (the `C³` profile: about
    /// `n⁻⁵`), and the force is the chain's momentum balance `H = ρA d²/dt² ∫₀ᴸ X dz` (no
    /// other horizontal force acts: the free end carries no tension).
    #[test]
    fn rest_to_rest_quadrature_and_momentum_balance() {
        let c = chain();
        let p = RestToRestProfile {
            t0: 1.0,
            duration: 2.0,
        };
        let y = |t: f64| 0.1 * p.eval(t)[0];
        let yd = |t: f64| 0.1 * p.eval(t)[1];
        let ts: Vec<f64> = (0..=20).map(|k| 0.2 * k as f64).collect();
        let err = |n: usize| {
            ts.iter()
                .map(|&t| (c.suspension(&y, t, n) - c.suspension(&y, t, DEFAULT_POINTS)).abs())
                .fold(0.0f64, f64::max)
        };
        let e: Vec<f64> = [16, 32, 64, 128].map(err).to_vec();
        println!("trapezoid errors on 16, 32, 64, 128 points: {e:?}");
        assert!(
            e[1] < e[0] / 8.0 && e[2] < e[1] / 8.0 && e[3] < 1e-10,
            "{e:?}"
        );
        // before the window reaches the motion: at rest; after: displaced by 0.1
        let big_t = c.half_window();
        assert_eq!(c.suspension(&y, 1.0 - big_t - 1e-9, 256), 0.0);
        assert!((c.suspension(&y, 3.0 + big_t + 1e-9, 256) - 0.1).abs() < 1e-15);
        // momentum: ∫₀ᴸ X dz by 64-point Gauss in w = √z (X is smooth in w), d²/dt² by
        // central differences (h = 1e-3: error ~ h² X'''' ~ 1e-7 relative)
        let gl = crate::basis::GaussLegendre::new(64);
        let integral = |t: f64| {
            let w1 = c.length.sqrt();
            gl.points
                .iter()
                .zip(&gl.weights)
                .map(|(&u, &w)| {
                    let wv = u * w1;
                    w * w1 * 2.0 * wv * c.displacement(wv * wv, &y, t, DEFAULT_POINTS)
                })
                .sum::<f64>()
        };
        let h = 1e-3;
        let mut worst = 0.0f64;
        let scale = c.rho_a * c.length * 0.1 * (std::f64::consts::PI / 2.0).powi(2);
        for &t in &ts {
            let acc = (integral(t + h) - 2.0 * integral(t) + integral(t - h)) / (h * h);
            let f = c.suspension_force(&yd, t, DEFAULT_POINTS);
            worst = worst.max((c.rho_a * acc - f).abs() / scale);
        }
        println!("momentum balance: max |ρA ∫Ẍ dz − H| / (ρA L max|ÿ|) = {worst:.2e}");
        assert!(worst < 1e-5, "{worst:e}");
    }

    /// The path functions project on the horizontal plane (gravity along −z here).
    #[test]
    fn path_functions_use_the_horizontal_part() {
        let model = StringModel {
            length: 2.0,
            rho_a: 1.5,
            ea: 1e9,
            payload_mass: 0.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0; 3],
        };
        let path = RestToRestLine {
            start: [1.0, 2.0, 3.0],
            delta: [0.1, -0.2, 0.5],
            profile: RestToRestProfile {
                t0: 1.0,
                duration: 2.0,
            },
        };
        let x = suspension_horizontal(&model, &path, 10.0);
        assert!((x[0] - 1.1).abs() < 1e-15 && (x[1] - 1.8).abs() < 1e-15 && x[2].abs() < 1e-15);
        let chain = HeavyChain::of(&model);
        let y = |t: f64| -0.2 * path.profile.eval(t)[0];
        let x = suspension_horizontal(&model, &path, 2.1)[1] - 2.0;
        assert!((x - chain.suspension(&y, 2.1, DEFAULT_POINTS)).abs() < 1e-13);
        let h = suspension_force_horizontal(&model, &path, 2.1);
        assert!(h[2].abs() < 1e-13);
        assert!(h[0] != 0.0 && (h[1] + 2.0 * h[0]).abs() < 1e-12 * h[0].abs());
    }
}
