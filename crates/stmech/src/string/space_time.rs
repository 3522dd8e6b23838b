//! Forward dynamics of the string by space-time finite elements (issue 17): the suspension
//! point's motion or the force there given, the rope and payload marched in time slab by slab
//! with the bilinear space-time element and the point law of the inverse solver
//! ([`crate::inverse::element::BilinearElement`], [`StringPointLaw`]); docs/theory.md,
//! "Forward dynamics of the string by space-time finite elements".
//!
//! # Why not the inverse solver's weak form as it stands
//! The inverse solver tests `R1`, `R2` with the trial functions that vanish at `t_start`
//! (Bubnov–Galerkin in time): the test function of time node `j` is the hat `T_j` over the
//! slabs `j − 1` and `j`, so its rows couple the levels `j − 1`, `j`, `j + 1`, no row couples
//! levels 0 and 1 alone, and the row of the last level is a half hat. That is a boundary-value
//! problem in time, solved at once on the whole domain (as the inverse problem is); read as a
//! three-level recurrence its kinematic row is Milne–Simpson,
//! `(x_{j+1} − x_{j−1})/2 = ht (v_{j−1} + 4 v_j + v_{j+1})/6`, whose parasitic root `≈ −1` makes
//! it weakly unstable. It is not a time march.
//!
//! # The slab equations: cG(1) Petrov–Galerkin in time
//! On the slab `I = [t⁰, t¹]`, `t¹ = t⁰ + ht`, the trial fields `x`, `v` are bilinear (linear in
//! `s` per element, linear in `t`, continuous across slabs: the old level `(x⁰, v⁰)` is known)
//! and the test functions are `w(s) = S_i(s)`, constant in time on the slab. Since the element's
//! two time shape functions add up to one, `T_0 + T_1 = 1`, each slab row is the *sum* of the
//! element's rows `a = (i_s, 0)` and `a = (i_s, 1)`: the same kernel, the same quadrature
//! (2 × 2 Gauss for `R1` and the inertia, 1 × 2 for the stress), the same point law. Per node
//! `i` (`M_s` the consistent mass `h/6 [1 4 1]`):
//!
//! ```text
//! R1_i = ∫_I ∫ S_i (∂t x − v) ds dt = Σ_k M_s,ik [x¹_k − x⁰_k − ht (v⁰_k + v¹_k)/2]
//! R2_i = ∫_I ∫ S_i ρA ∂t v + S_i' n(x') − S_i ρA g ds dt
//!        + δ_in [m (v¹_n − v⁰_n) − ht m g] − δ_i0 ∫_I F(t) dt
//! n(x') = N(ν) x'/ν,  ν = |x'|,  N = EA (ν − 1)         ([`StringPointLaw`])
//! ```
//!
//! The payload term is the inverse assembly's tip-mass and tip-load term tested with 1; the
//! `R1` rows are scaled by `ρA/ht` (units of `R2`, N·s) before the Newton test, which does not
//! change the solution. At `s = 0`:
//! * Dirichlet ([`Actuation::Suspension`]): `x¹_0 = x(t¹)`, `v¹_0 = ẋ(t¹)`, the rows of node 0
//!   are dropped;
//! * Neumann ([`Actuation::Force`]): node 0 is free and `∫_I F dt` enters its `R2` row by
//!   4-point Gauss (as in the inverse assembly's forward mode).
//!
//! Unknowns per slab: `(x¹, v¹)` of the free nodes, 6 per node, node by node; the slab is solved
//! by Newton with the exact tangent (the element's) and a banded LU (half-bandwidth 11: a
//! node couples with its neighbours). The start is the hanging rope at rest
//! ([`StringModel::hanging_nodes`], the inverse solver's initial nodes).
//!
//! # Accuracy and energy
//! In space the slab equations are the semi-discrete model of [`super::dynamics`] (linear
//! elements, consistent mass and loads, one-point stress rule); in time the scheme is cG(1),
//! second order. Testing `R2` with `x¹ − x⁰ = ht v̄` (what `R1` says node by node when the
//! suspension point is fixed or under a force) gives
//!
//! ```text
//! E¹ − E⁰ = Σ_e h [ht Σ_g w_g n(d(t_g))·ḋ − (Ψ(ν¹_e) − Ψ(ν⁰_e))] + ∫_I F dt·(x¹_0 − x⁰_0)/ht
//! ```
//!
//! with `E` the energy of [`super::dynamics::discrete_energy`] and `d(t)` the element's `x'`,
//! linear in `t`: the bracket is the error of the 2-point Gauss rule for
//! `∫_I dΨ(ν(t))/dt dt`. It vanishes when `Ψ(ν(t))` is a cubic in `t` (a linear problem, an
//! axial motion with a fixed direction) and is `O(ht⁵)` per slab otherwise: the scheme is not
//! exactly energy-conserving for the quadratic-in-`ν` law, its drift on a fixed time interval
//! is `O(ht⁴)` (measured in docs/verification.md, C12).

use super::dynamics::{Actuation, StringStepError, consistent_load, discrete_energy};
use super::{Compression, StringModel, StringPointLaw};
use crate::basis::GaussLegendre;
use crate::error::InputError;
use crate::inverse::element::{BilinearElement, N_DOF, SpaceTimeElement};
use crate::solve::banded::BandedLu;

const SCHEME: &str = "space-time slab";

/// Newton iterations per slab at most.
const MAX_ITERATIONS: usize = 30;

/// The string marched in time by space-time slabs (module docs).
pub struct SpaceTimeString<'a> {
    model: StringModel,
    element: BilinearElement<StringPointLaw, 3>,
    ns: usize,
    hs: f64,
    ht: f64,
    actuation: Actuation<'a>,
    gauss: GaussLegendre,
    lu: BandedLu,
    /// Time of the current level (s).
    pub t: f64,
    /// Node positions `x_0 … x_n` at [`Self::t`] (m).
    pub r: Vec<[f64; 3]>,
    /// Node velocities (m/s).
    pub v: Vec<[f64; 3]>,
    /// Newton tolerance, relative to the weight impulse of a slab `|g|(m + ρA L) ht`.
    pub relative_tolerance: f64,
    /// Newton iterations (linear solves) of all slabs so far.
    pub iterations: usize,
}

impl<'a> SpaceTimeString<'a> {
    /// The rope hanging at rest on `elements_s` elements at `t0`, slabs of `ht`, driven by
    /// `actuation` (whose value at `t0` should be the hanging rope's top, or its support
    /// force [`StringModel::support_force`], for the rope to start at rest), tension law
    /// branch `compression` for `ν < 1` ([`Compression::Slack`]: the physical rope).
    pub fn hanging(
        model: StringModel,
        elements_s: usize,
        ht: f64,
        t0: f64,
        actuation: Actuation<'a>,
        compression: Compression,
    ) -> Result<Self, InputError> {
        model.validate("rope")?;
        let bad = |field: &str, message: String| {
            Err(InputError::Invalid {
                field: field.into(),
                message,
            })
        };
        if elements_s == 0 {
            return bad(
                "mesh.elements_s",
                "needs at least one element along the rope".into(),
            );
        }
        if !(ht.is_finite() && ht > 0.0) {
            return bad(
                "mesh.ht",
                format!("the slab length must be finite and > 0, got {ht}"),
            );
        }
        if !t0.is_finite() {
            return bad("time.start", format!("must be finite, got {t0}"));
        }
        let hs = model.length / elements_s as f64;
        let r = model.hanging_nodes(elements_s);
        let n = 6 * (elements_s + 1 - actuation.first_free_node());
        Ok(Self {
            element: BilinearElement::with_law(model.point_law(compression), hs, ht),
            ns: elements_s,
            hs,
            ht,
            actuation,
            gauss: GaussLegendre::new(4),
            lu: BandedLu::new(n, 11, 11),
            t: t0,
            v: vec![[0.0; 3]; r.len()],
            r,
            relative_tolerance: 1e-10,
            iterations: 0,
            model,
        })
    }

    /// Slab length (s).
    pub fn ht(&self) -> f64 {
        self.ht
    }

    /// The payload position `x_n`.
    pub fn payload(&self) -> [f64; 3] {
        self.r[self.ns]
    }

    /// Total energy `½ vᵀ M v + Σ_e h Ψ(ν_e) − fᵀ r` ([`discrete_energy`], J).
    pub fn energy(&self) -> f64 {
        discrete_energy(&self.model, self.element.law(), &self.r, &self.v)
    }

    /// Newton tolerance of a slab on the largest residual entry (N·s): the relative tolerance
    /// times the weight impulse, but not below the floating-point floor of the stress rows,
    /// `64 ε EA ht X / hs` (`X` the largest coordinate).
    fn tolerance(&self) -> f64 {
        let m = &self.model;
        let x_max = self.r.iter().flatten().fold(0.0f64, |a, c| a.max(c.abs())) + m.length;
        let weight = m.g() * (m.payload_mass + m.rho_a * m.length) * self.ht;
        (self.relative_tolerance * weight)
            .max(64.0 * f64::EPSILON * m.ea * self.ht * x_max / self.hs)
    }

    /// Advances by one slab: Newton on the slab equations (module docs) for the new level.
    pub fn step(&mut self) -> Result<(), StringStepError> {
        let (ns, ht) = (self.ns, self.ht);
        let first = self.actuation.first_free_node();
        let t1 = self.t + ht;
        let (x0, v0) = (&self.r, &self.v);
        // start: x¹ = x⁰ + ht v⁰, v¹ = v⁰
        let mut x1: Vec<[f64; 3]> = (0..=ns)
            .map(|i| [0, 1, 2].map(|c| x0[i][c] + ht * v0[i][c]))
            .collect();
        let mut v1 = v0.clone();
        // Neumann: ∫_I F dt (4-point Gauss)
        let mut impulse = [0.0; 3];
        match self.actuation {
            Actuation::Suspension(x) => (x1[0], v1[0]) = x(t1),
            Actuation::Force(f) => {
                for (&tau, &w) in self.gauss.points.iter().zip(&self.gauss.weights) {
                    let ft = f(self.t + tau * ht);
                    for c in 0..3 {
                        impulse[c] += w * ht * ft[c];
                    }
                }
            }
        }
        let tol = self.tolerance();
        let mass = self.model.payload_mass;
        let r1_scale = self.model.rho_a / ht;
        let loads: Vec<[f64; 3]> = (0..=ns)
            .map(|i| consistent_load(&self.model, ns, i))
            .collect();
        let n = 6 * (ns + 1 - first);
        let mut res = vec![0.0; n];
        let (mut q, mut re) = ([0.0; N_DOF], [0.0; N_DOF]);
        let mut ke = Box::new([[0.0; N_DOF]; N_DOF]);
        let mut last = f64::INFINITY;
        for it in 0..MAX_ITERATIONS {
            res.fill(0.0);
            self.lu.clear();
            for es in 0..ns {
                // local dof 6a + c, a = i_s + 2 i_t: the old level (i_t = 0) and the new one
                for a in 0..4 {
                    let (i, new) = (es + a % 2, a >= 2);
                    let (x, v) = if new { (x1[i], v1[i]) } else { (x0[i], v0[i]) };
                    q[6 * a..6 * a + 3].copy_from_slice(&x);
                    q[6 * a + 3..6 * a + 6].copy_from_slice(&v);
                }
                self.element
                    .residual_into(&q, &mut re, Some(ke.as_flattened_mut()))
                    .map_err(|e| StringStepError::singular(SCHEME, self.t, e))?;
                // slab row of node es + i_s = element rows (i_s, 0) + (i_s, 1): test w = S_i
                for is in 0..2 {
                    let node = es + is;
                    if node < first {
                        continue;
                    }
                    for c in 0..6 {
                        let scale = if c < 3 { r1_scale } else { 1.0 };
                        let (ra, rb) = (6 * is + c, 6 * (is + 2) + c);
                        let row = 6 * (node - first) + c;
                        res[row] += scale * (re[ra] + re[rb]);
                        // unknowns: the new level, local nodes 2 + j_s
                        for js in 0..2 {
                            let other = es + js;
                            if other < first {
                                continue;
                            }
                            for d in 0..6 {
                                let col = 6 * (2 + js) + d;
                                self.lu.add(
                                    row,
                                    6 * (other - first) + d,
                                    scale * (ke[ra][col] + ke[rb][col]),
                                );
                            }
                        }
                    }
                }
            }
            // loads, payload inertia, support force (R2 rows)
            for (i, f) in loads.iter().enumerate().skip(first) {
                let row = 6 * (i - first) + 3;
                for c in 0..3 {
                    res[row + c] -= ht * f[c];
                    if i == ns {
                        res[row + c] += mass * (v1[ns][c] - v0[ns][c]);
                        self.lu.add(row + c, row + c, mass);
                    }
                    if i == 0 {
                        res[row + c] -= impulse[c];
                    }
                }
            }
            let norm = res.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            if !norm.is_finite() {
                break;
            }
            if norm < tol || (it > 2 && norm >= 0.5 * last && norm < 1e3 * tol) {
                self.r = x1;
                self.v = v1;
                self.t = t1;
                return Ok(());
            }
            last = norm;
            self.lu
                .factorize()
                .map_err(|e| StringStepError::singular(SCHEME, self.t, e))?;
            self.lu.solve_in_place(&mut res);
            self.iterations += 1;
            for i in first..=ns {
                for c in 0..3 {
                    x1[i][c] -= res[6 * (i - first) + c];
                    v1[i][c] -= res[6 * (i - first) + 3 + c];
                }
            }
        }
        Err(StringStepError::Newton {
            scheme: SCHEME,
            t: self.t,
            residual: last,
            iterations: MAX_ITERATIONS,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rope() -> StringModel {
        StringModel {
            length: 5.0,
            rho_a: 2.0,
            ea: 5.0e4,
            payload_mass: 10.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.5, -1.0, 2.0],
        }
    }

    fn largest(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
        a.iter()
            .zip(b)
            .flat_map(|(p, q)| (0..3).map(move |c| (p[c] - q[c]).abs()))
            .fold(0.0, f64::max)
    }

    /// The hanging rope stays at rest, held by its fixed top or by its support force.
    #[test]
    fn hanging_rope_stays_at_rest() {
        let model = rope();
        let ns = 12;
        let x0 = model.hanging_nodes(ns);
        let top = x0[0];
        let fixed = move |_t: f64| (top, [0.0; 3]);
        let f0 = model.support_force(ns);
        let held = move |_t: f64| f0;
        for act in [Actuation::Suspension(&fixed), Actuation::Force(&held)] {
            let mut st =
                SpaceTimeString::hanging(model, ns, 0.05, 0.0, act, Compression::Slack).unwrap();
            for _ in 0..40 {
                st.step().unwrap();
            }
            let (dx, v) = (largest(&st.r, &x0), largest(&st.v, &vec![[0.0; 3]; ns + 1]));
            assert!(dx < 1e-11 && v < 1e-10, "{dx:e} {v:e}");
        }
    }

    /// An axial oscillation (every element along the vertical): `ν` is linear in `t` on a
    /// slab, `Ψ(ν(t))` quadratic, the 2-point Gauss rule exact, so the energy is conserved to
    /// the Newton tolerance (module docs).
    #[test]
    fn axial_oscillation_conserves_energy_exactly() {
        let model = rope();
        let ns = 10;
        let top = model.hanging_nodes(ns)[0];
        let fixed = move |_t: f64| (top, [0.0; 3]);
        let mut st = SpaceTimeString::hanging(
            model,
            ns,
            0.02,
            0.0,
            Actuation::Suspension(&fixed),
            Compression::Slack,
        )
        .unwrap();
        for p in st.r.iter_mut() {
            p[2] = top[2] + 1.002 * (p[2] - top[2]);
        }
        let e0 = st.energy();
        let (mut worst, mut moved) = (0.0f64, 0.0f64);
        for _ in 0..200 {
            st.step().unwrap();
            worst = worst.max((st.energy() - e0).abs());
            moved = moved.max((st.payload()[2] - model.payload_start[2]).abs());
        }
        let scale = 9.81 * (10.0 + 10.0) * 5.0;
        println!("axial oscillation: largest energy change {worst:.2e} J (scale {scale} J)");
        assert!(moved > 5e-3, "{moved}");
        assert!(worst < 1e-10 * scale, "{worst:e}");
    }

    /// Momentum balance: the stress rows sum to zero, so the total momentum
    /// `ρA ∫ v ds + m v_n` changes by the weight and the support impulse exactly, slab by slab;
    /// `F` cubic in `t`, integrated exactly by the 4-point rule.
    #[test]
    fn momentum_balance_under_a_force() {
        let model = rope();
        let ns = 8;
        let f0 = model.support_force(ns);
        let (a, b) = ([3.0, -2.0, 5.0], [0.4, 0.7, -0.3]);
        let force = move |t: f64| [0, 1, 2].map(|c| f0[c] + a[c] * t + b[c] * t * t * t);
        let mut st = SpaceTimeString::hanging(
            model,
            ns,
            0.03,
            0.0,
            Actuation::Force(&force),
            Compression::Slack,
        )
        .unwrap();
        let total = model.payload_mass + model.rho_a * model.length;
        let mut worst: f64 = 0.0;
        for _ in 0..100 {
            st.step().unwrap();
            let t = st.t;
            let mut p = [0.0; 3];
            for i in 0..=ns {
                for k in i.saturating_sub(1)..=(i + 1).min(ns) {
                    let m = super::super::dynamics::consistent_mass(&model, ns, i, k);
                    for c in 0..3 {
                        p[c] += m * st.v[k][c];
                    }
                }
            }
            for c in 0..3 {
                let impulse = (f0[c] + total * model.gravity[c]) * t
                    + 0.5 * a[c] * t * t
                    + 0.25 * b[c] * t.powi(4);
                worst = worst.max((p[c] - impulse).abs());
            }
        }
        assert!(worst < 1e-7, "{worst:e}");
    }

    /// Bad data are refused with the field named.
    #[test]
    fn bad_input_is_refused() {
        let model = rope();
        let f = |_t: f64| [0.0; 3];
        let act = Actuation::Force(&f);
        let field = |r: Result<SpaceTimeString, InputError>| match r {
            Err(InputError::Invalid { field, .. }) => field,
            _ => panic!("accepted"),
        };
        let c = Compression::Slack;
        assert_eq!(
            field(SpaceTimeString::hanging(model, 0, 0.1, 0.0, act, c)),
            "mesh.elements_s"
        );
        assert_eq!(
            field(SpaceTimeString::hanging(model, 4, 0.0, 0.0, act, c)),
            "mesh.ht"
        );
        assert_eq!(
            field(SpaceTimeString::hanging(model, 4, f64::NAN, 0.0, act, c)),
            "mesh.ht"
        );
        let mut bad = model;
        bad.ea = -1.0;
        assert_eq!(
            field(SpaceTimeString::hanging(bad, 4, 0.1, 0.0, act, c)),
            "rope.ea"
        );
    }
}
