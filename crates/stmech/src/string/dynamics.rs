//! Forward dynamics of the string with a prescribed suspension point or a prescribed force
//! there: linear finite elements in space, the energy-conserving midpoint discrete gradient in
//! time (issue 17: the second, independent discretisation that checks the space-time solutions,
//! the inverse one of [`crate::inverse::crane`] and the forward one of
//! [`super::space_time`]).
//!
//! # Semi-discrete equations
//! Nodes `r_0 … r_n` at `s_i = i h`, payload on `r_n`:
//! ```text
//! Σ_k M_ik r̈_k + ∂V/∂r_i = f_i + F(t) δ_i0,   V = Σ_e h Ψ(|r_{e+1} − r_e| / h)
//! M = ρA M_s ⊗ I₃ + m e_n e_nᵀ ⊗ I₃,   f_i = ρA g ∫ S_i ds + m g δ_in
//! ```
//! with the consistent mass `M_s = h/6 [1 4 1]`, and at `s = 0` either
//! * Dirichlet ([`Actuation::Suspension`]): `r_0(t) = x(t)`, `ṙ_0 = ẋ(t)` given, the equation
//!   of node 0 dropped (it gives the support force), or
//! * Neumann ([`Actuation::Force`]): the force `F(t)` applied to the rope at `s = 0` given,
//!   node 0 free.
//!
//! # Midpoint discrete gradient (Gonzalez 1996)
//! One step `t_0 → t_1 = t_0 + Δt`: `(r¹ − r⁰)/Δt = (v⁰ + v¹)/2` and
//! `M (v¹ − v⁰)/Δt + ∇̄V(r⁰, r¹) = f + F̄ e_0`, `F̄ = F(t_0 + Δt/2)` (Neumann), where per
//! element, with `d = (r_{e+1} − r_e)/h`, `c = |d|²`, `W(c) = Ψ(√c)`:
//! ```text
//! n̄ = 2 W̄ d_m,   W̄ = (W(c¹) − W(c⁰)) / (c¹ − c⁰),   d_m = (d⁰ + d¹)/2
//! ```
//! (`W̄ = W'((c⁰ + c¹)/2)` when `c¹ ≈ c⁰`). Since `c¹ − c⁰ = 2 d_m·(d¹ − d⁰)`,
//! `n̄·(d¹ − d⁰) = W(c¹) − W(c⁰)` exactly, and with the linear potential of the loads the total
//! energy `E = ½ vᵀ M v + V − fᵀ r` ([`discrete_energy`]) is conserved to the Newton tolerance
//! when the suspension point is fixed or the force is zero (otherwise `E` changes by the work
//! of the support, `F̄·(r¹_0 − r⁰_0)` per step under a force). The scheme is second order. With
//! `v¹ = 2 (r¹ − r⁰)/Δt − v⁰` eliminated, Newton solves for `r¹` of the free nodes with the
//! exact Jacobian `2M/Δt² + ∂∇̄V/∂r¹` (banded, nodes along the rope).

use super::{Compression, StringModel, StringPointLaw};
use crate::solve::banded::BandedLu;

/// Motion of the suspension point: position and velocity at `t`.
pub type SuspensionFn<'a> = &'a (dyn Fn(f64) -> ([f64; 3], [f64; 3]) + Sync);

/// Force applied to the rope at `s = 0` at `t` (N, global frame).
pub type ForceFn<'a> = &'a (dyn Fn(f64) -> [f64; 3] + Sync);

/// What drives the string at `s = 0` (module docs), for both forward discretisations.
#[derive(Clone, Copy)]
pub enum Actuation<'a> {
    /// Dirichlet: the suspension point's position and velocity are given.
    Suspension(SuspensionFn<'a>),
    /// Neumann: the force on the rope at `s = 0` is given.
    Force(ForceFn<'a>),
}

impl Actuation<'_> {
    /// First free node: 1 under a prescribed motion, 0 under a prescribed force.
    pub fn first_free_node(&self) -> usize {
        match self {
            Self::Suspension(_) => 1,
            Self::Force(_) => 0,
        }
    }
}

/// Failure of a forward step of either forward discretisation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StringStepError {
    /// Newton did not converge.
    #[error(
        "the string's {scheme} step at t = {t:.6} s did not converge (residual {residual:.3e} \
         after {iterations} iterations). Remedy: a smaller time step"
    )]
    Newton {
        /// Which discretisation ("midpoint", "space-time slab").
        scheme: &'static str,
        /// Start of the step (s).
        t: f64,
        /// Last residual.
        residual: f64,
        /// Iterations.
        iterations: usize,
    },
    /// An element collapsed to zero length or the Jacobian is singular.
    #[error("the string's {scheme} step at t = {t:.6} s failed: {message}")]
    Singular {
        /// Which discretisation.
        scheme: &'static str,
        /// Start of the step (s).
        t: f64,
        /// What failed.
        message: String,
    },
}

impl StringStepError {
    /// A failed factorisation or element of the step of `scheme` starting at `t`.
    pub fn singular(scheme: &'static str, t: f64, e: impl std::fmt::Display) -> Self {
        Self::Singular {
            scheme,
            t,
            message: e.to_string(),
        }
    }
}

/// Entry `M_ik` (`|i − k| ≤ 1`, scalar per component) of the consistent mass of the string on
/// `ns` elements with the payload on node `ns` (module docs).
pub fn consistent_mass(model: &StringModel, ns: usize, i: usize, k: usize) -> f64 {
    let (m, hs) = (model.rho_a, model.length / ns as f64);
    if i != k {
        m * hs / 6.0
    } else if i == ns {
        m * hs / 3.0 + model.payload_mass
    } else if i == 0 {
        m * hs / 3.0
    } else {
        m * 2.0 * hs / 3.0
    }
}

/// Consistent load `f_i = ρA g ∫ S_i ds + m g δ_in` of node `i` (N).
pub fn consistent_load(model: &StringModel, ns: usize, i: usize) -> [f64; 3] {
    let g = model.gravity;
    let hs = model.length / ns as f64;
    let share = if i == 0 || i == ns { 0.5 } else { 1.0 };
    let mut f = g.map(|c| model.rho_a * hs * share * c);
    if i == ns {
        for c in 0..3 {
            f[c] += model.payload_mass * g[c];
        }
    }
    f
}

/// Total energy `½ vᵀ M v + Σ_e h Ψ(ν_e) − fᵀ r` of the nodal state `r`, `v` (J): the energy
/// both forward discretisations conserve (the midpoint discrete gradient exactly, the
/// space-time slab up to its time quadrature), with the one-point rule `ν_e = |r_{e+1} − r_e|/h`.
pub fn discrete_energy(
    model: &StringModel,
    law: &StringPointLaw,
    r: &[[f64; 3]],
    v: &[[f64; 3]],
) -> f64 {
    let ns = r.len() - 1;
    let hs = model.length / ns as f64;
    let mut e = 0.0;
    for i in 0..=ns {
        for k in i.saturating_sub(1)..=(i + 1).min(ns) {
            let m = consistent_mass(model, ns, i, k);
            e += 0.5 * m * (0..3).map(|c| v[i][c] * v[k][c]).sum::<f64>();
        }
        let f = consistent_load(model, ns, i);
        e -= (0..3).map(|c| f[c] * r[i][c]).sum::<f64>();
    }
    for el in 0..ns {
        let d = [0, 1, 2].map(|c| (r[el + 1][c] - r[el][c]) / hs);
        let nu = d.iter().map(|x| x * x).sum::<f64>().sqrt();
        e += hs * law.energy(nu);
    }
    e
}

/// The semi-discrete string and the midpoint discrete-gradient stepper.
pub struct StringStepper<'a> {
    model: StringModel,
    law: StringPointLaw,
    ns: usize,
    hs: f64,
    actuation: Actuation<'a>,
    /// Time (s).
    pub t: f64,
    /// Node positions `r_0 … r_n` (m).
    pub r: Vec<[f64; 3]>,
    /// Node velocities (m/s).
    pub v: Vec<[f64; 3]>,
    lu: BandedLu,
    /// Newton tolerance on the largest residual entry (N).
    pub tolerance: f64,
}

/// `(W(c), W'(c), W''(c))` for `W(c) = Ψ(√c)`.
fn w_of_c(law: &StringPointLaw, c: f64) -> (f64, f64, f64) {
    let nu = c.sqrt();
    let (n, dn) = law.tension(nu);
    // W' = N/(2ν), W'' = (N' ν − N) / (4 ν³)
    (
        law.energy(nu),
        n / (2.0 * nu),
        (dn * nu - n) / (4.0 * nu * nu * nu),
    )
}

const SCHEME: &str = "midpoint";

impl<'a> StringStepper<'a> {
    /// The rope hanging at rest ([`StringModel::hanging_nodes`], tension-only law) on
    /// `elements_s` elements at `t0`, the suspension point then following `suspension` (its
    /// value at `t0` should be the hanging rope's top, `r_0`).
    pub fn hanging(
        model: StringModel,
        elements_s: usize,
        t0: f64,
        suspension: SuspensionFn<'a>,
    ) -> Self {
        Self::hanging_with(model, elements_s, t0, Actuation::Suspension(suspension))
    }

    /// [`Self::hanging`] driven by `actuation`: a suspension motion or a force at `s = 0`
    /// (whose value at `t0` should be the hanging rope's support force,
    /// [`StringModel::support_force`], for the rope to start at rest).
    pub fn hanging_with(
        model: StringModel,
        elements_s: usize,
        t0: f64,
        actuation: Actuation<'a>,
    ) -> Self {
        let r = model.hanging_nodes(elements_s);
        let n = 3 * (elements_s + 1 - actuation.first_free_node());
        Self {
            law: model.point_law(Compression::Slack),
            hs: model.length / elements_s as f64,
            ns: elements_s,
            actuation,
            t: t0,
            v: vec![[0.0; 3]; r.len()],
            r,
            lu: BandedLu::new(n, 5, 5),
            tolerance: 1e-10 * model.g() * (model.payload_mass + model.rho_a * model.length),
            model,
        }
    }

    /// Element midpoint force `n̄` of the discrete gradient and, if `jac`, `∂n̄/∂d¹`.
    fn element_force(&self, d0: [f64; 3], d1: [f64; 3], jac: bool) -> ([f64; 3], [[f64; 3]; 3]) {
        let dm = [0, 1, 2].map(|c| 0.5 * (d0[c] + d1[c]));
        let c0 = d0.iter().map(|x| x * x).sum::<f64>();
        let c1 = d1.iter().map(|x| x * x).sum::<f64>();
        let (w0, _, _) = w_of_c(&self.law, c0);
        let (w1, w1p, _) = w_of_c(&self.law, c1);
        let dc = c1 - c0;
        let mut k = [[0.0; 3]; 3];
        let (wbar, grad) = if dc.abs() > 1e-7 * c0.max(c1) {
            let wbar = (w1 - w0) / dc;
            // ∂W̄/∂d¹ = 2 d¹ (W'(c¹) − W̄) / (c¹ − c⁰)
            (wbar, d1.map(|x| 2.0 * x * (w1p - wbar) / dc))
        } else {
            let (_, wp, wpp) = w_of_c(&self.law, 0.5 * (c0 + c1));
            (wp, d1.map(|x| wpp * x))
        };
        let f = dm.map(|x| 2.0 * wbar * x);
        if jac {
            // ∂n̄/∂d¹ = W̄ I + 2 d_m ⊗ ∂W̄/∂d¹
            for i in 0..3 {
                for j in 0..3 {
                    k[i][j] = 2.0 * dm[i] * grad[j] + if i == j { wbar } else { 0.0 };
                }
            }
        }
        (f, k)
    }

    /// Total energy `½ vᵀ M v + V − fᵀ r` ([`discrete_energy`], J).
    pub fn energy(&self) -> f64 {
        discrete_energy(&self.model, &self.law, &self.r, &self.v)
    }

    /// Tension of each element at the current state (N).
    pub fn tensions(&self) -> Vec<f64> {
        (0..self.ns)
            .map(|el| {
                let d = [0, 1, 2].map(|c| (self.r[el + 1][c] - self.r[el][c]) / self.hs);
                self.law
                    .tension(d.iter().map(|x| x * x).sum::<f64>().sqrt())
                    .0
            })
            .collect()
    }

    /// The payload position `r_n`.
    pub fn payload(&self) -> [f64; 3] {
        self.r[self.ns]
    }

    /// One midpoint discrete-gradient step of length `dt`.
    pub fn step(&mut self, dt: f64) -> Result<(), StringStepError> {
        let ns = self.ns;
        let model = self.model;
        let first = self.actuation.first_free_node();
        let t1 = self.t + dt;
        let (r0, v0) = (self.r.clone(), self.v.clone());
        // start: r¹ = r⁰ + Δt v⁰
        let mut r1: Vec<[f64; 3]> = (0..=ns)
            .map(|i| [0, 1, 2].map(|c| r0[i][c] + dt * v0[i][c]))
            .collect();
        // Dirichlet: node 0 given; Neumann: F̄ on node 0
        let (xv1, force) = match self.actuation {
            Actuation::Suspension(x) => {
                let (x1, xv1) = x(t1);
                r1[0] = x1;
                (xv1, [0.0; 3])
            }
            Actuation::Force(f) => ([0.0; 3], f(self.t + 0.5 * dt)),
        };
        let v1_of = |r1: &[[f64; 3]], i: usize| -> [f64; 3] {
            if i < first {
                xv1
            } else {
                [0, 1, 2].map(|c| 2.0 * (r1[i][c] - r0[i][c]) / dt - v0[i][c])
            }
        };
        let n = 3 * (ns + 1 - first);
        let mut res = vec![0.0; n];
        let mut last = f64::INFINITY;
        for it in 0..30 {
            res.fill(0.0);
            self.lu.clear();
            // inertia M (v¹ − v⁰)/Δt, Jacobian 2M/Δt²; loads
            for i in first..=ns {
                let row = 3 * (i - first);
                for k in i.saturating_sub(1)..=(i + 1).min(ns) {
                    let m = consistent_mass(&model, ns, i, k);
                    let vk = v1_of(&r1, k);
                    for c in 0..3 {
                        res[row + c] += m * (vk[c] - v0[k][c]) / dt;
                        if k >= first {
                            self.lu
                                .add(row + c, 3 * (k - first) + c, 2.0 * m / (dt * dt));
                        }
                    }
                }
                let f = consistent_load(&model, ns, i);
                for c in 0..3 {
                    res[row + c] -= f[c];
                    if i == 0 {
                        res[row + c] -= force[c];
                    }
                }
            }
            // discrete gradient of the strain energy: −n̄ on node e, +n̄ on node e + 1
            for el in 0..ns {
                let d0 = [0, 1, 2].map(|c| (r0[el + 1][c] - r0[el][c]) / self.hs);
                let d1 = [0, 1, 2].map(|c| (r1[el + 1][c] - r1[el][c]) / self.hs);
                let (f, k) = self.element_force(d0, d1, true);
                for (node, sign) in [(el, -1.0), (el + 1, 1.0)] {
                    if node < first {
                        continue;
                    }
                    for c in 0..3 {
                        res[3 * (node - first) + c] += sign * f[c];
                    }
                    for (other, so) in [(el, -1.0), (el + 1, 1.0)] {
                        if other < first {
                            continue;
                        }
                        for c in 0..3 {
                            for d in 0..3 {
                                self.lu.add(
                                    3 * (node - first) + c,
                                    3 * (other - first) + d,
                                    sign * so * k[c][d] / self.hs,
                                );
                            }
                        }
                    }
                }
            }
            let norm = res.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            if !norm.is_finite() {
                break;
            }
            if norm < self.tolerance
                || (it > 2 && norm >= 0.5 * last && norm < 1e3 * self.tolerance)
            {
                self.r = r1.clone();
                self.v = (0..=ns).map(|i| v1_of(&r1, i)).collect();
                self.t = t1;
                return Ok(());
            }
            last = norm;
            self.lu
                .factorize()
                .map_err(|e| StringStepError::singular(SCHEME, self.t, e))?;
            self.lu.solve_in_place(&mut res);
            for i in first..=ns {
                for c in 0..3 {
                    r1[i][c] -= res[3 * (i - first) + c];
                }
            }
        }
        Err(StringStepError::Newton {
            scheme: SCHEME,
            t: self.t,
            residual: last,
            iterations: 30,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A swing released from a displaced, straight, inclined rope: with the suspension point
    /// fixed the discrete energy is conserved to the Newton tolerance, step after step.
    #[test]
    fn free_swing_conserves_energy() {
        let model = StringModel {
            length: 5.0,
            rho_a: 2.0,
            ea: 5.0e4,
            payload_mass: 10.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0, 0.0, 0.0],
        };
        let top = model.hanging_nodes(16)[0];
        let fixed = move |_t: f64| (top, [0.0; 3]);
        let mut st = StringStepper::hanging(model, 16, 0.0, &fixed);
        // tilt the rope by 40° about the y axis around the top, at rest
        let (sn, cs) = 0.7f64.sin_cos();
        for p in st.r.iter_mut() {
            let d = [p[0] - top[0], p[2] - top[2]];
            *p = [
                top[0] + cs * d[0] - sn * d[1],
                p[1],
                top[2] + sn * d[0] + cs * d[1],
            ];
        }
        let e0 = st.energy();
        let scale = 9.81 * (10.0 + 10.0) * 5.0;
        let mut worst: f64 = 0.0;
        for _ in 0..400 {
            st.step(0.01).unwrap();
            worst = worst.max((st.energy() - e0).abs());
        }
        // the payload swung and the energy stayed
        assert!(st.payload()[0].abs() > 0.1 || st.payload()[2] > 0.5);
        println!("free swing, 400 steps: largest energy change {worst:.2e} J (scale {scale} J)");
        assert!(worst < 1e-9 * scale, "energy drift {worst:e}");
    }

    /// The midpoint discrete gradient is second order in time: payload position after 1 s of
    /// free swing for Δt = 0.02, 0.01, 0.005 against Δt = 0.000625 on the same mesh (the
    /// stiff axial mode, period 0.2 s, is resolved from Δt = 0.02 on).
    #[test]
    fn second_order_in_time() {
        let model = StringModel {
            length: 5.0,
            rho_a: 2.0,
            ea: 5.0e4,
            payload_mass: 10.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0, 0.0, 0.0],
        };
        let top = model.hanging_nodes(8)[0];
        let fixed = move |_t: f64| (top, [0.0; 3]);
        let run = |dt: f64| {
            let mut st = StringStepper::hanging(model, 8, 0.0, &fixed);
            // released with a horizontal velocity: a swing
            for (i, v) in st.v.iter_mut().enumerate() {
                v[0] = 1.5 * i as f64 / 8.0;
            }
            let n = (1.0 / dt).round() as usize;
            for _ in 0..n {
                st.step(dt).unwrap();
            }
            st.payload()
        };
        let reference = run(0.000625);
        let err: Vec<f64> = [0.02, 0.01, 0.005]
            .iter()
            .map(|&dt| {
                let p = run(dt);
                (0..3)
                    .map(|c| (p[c] - reference[c]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        println!(
            "payload error at t = 1 s: {:?}",
            err.iter().map(|e| format!("{e:.3e}")).collect::<Vec<_>>()
        );
        assert!(
            (err[0] / err[1]).log2() > 1.8 && (err[1] / err[2]).log2() > 1.8,
            "{err:?}"
        );
    }

    /// Under a force at `s = 0`: the support force holds the hanging rope at rest, and the
    /// total momentum changes by the weight and the support impulse exactly (the stress
    /// terms cancel in the sum; `F` linear in `t`, so `F(t + Δt/2) Δt` is its impulse).
    #[test]
    fn force_driven_rope_rests_and_balances_momentum() {
        let model = StringModel {
            length: 5.0,
            rho_a: 2.0,
            ea: 5.0e4,
            payload_mass: 10.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0, 0.0, 0.0],
        };
        let ns = 8;
        let f0 = model.support_force(ns);
        let held = move |_t: f64| f0;
        let mut st = StringStepper::hanging_with(model, ns, 0.0, Actuation::Force(&held));
        let x0 = st.r.clone();
        for _ in 0..50 {
            st.step(0.02).unwrap();
        }
        let dx = (0..=ns)
            .flat_map(|i| (0..3).map(move |c| (i, c)))
            .fold(0.0f64, |m, (i, c)| m.max((st.r[i][c] - x0[i][c]).abs()));
        assert!(dx < 1e-11, "{dx:e}");
        let a = [3.0, -2.0, 5.0];
        let force = move |t: f64| [0, 1, 2].map(|c| f0[c] + a[c] * t);
        let mut st = StringStepper::hanging_with(model, ns, 0.0, Actuation::Force(&force));
        let total = model.payload_mass + model.rho_a * model.length;
        let mut worst: f64 = 0.0;
        for _ in 0..100 {
            st.step(0.03).unwrap();
            let t = st.t;
            for c in 0..3 {
                let mut p = 0.0;
                for i in 0..=ns {
                    for k in i.saturating_sub(1)..=(i + 1).min(ns) {
                        p += consistent_mass(&model, ns, i, k) * st.v[k][c];
                    }
                }
                let impulse = (f0[c] + total * model.gravity[c]) * t + 0.5 * a[c] * t * t;
                worst = worst.max((p - impulse).abs());
            }
        }
        assert!(worst < 1e-7, "{worst:e}");
    }
}
