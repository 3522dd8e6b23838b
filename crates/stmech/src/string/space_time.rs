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
//! `R1` rows are scaled by `ρA/ht` (units of `R2`, N·s), which does not change the solution
//! (nor the Newton stop, which measures each kind of row against its own terms). At `s = 0`:
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
//! # The Newton stop
//! The one driver ([`crate::solve::newton::drive`] through [`super::newton::solve_banded`],
//! [`NewtonParams`]: relative tolerance, default `1e-10`), two equation groups: the kinematic
//! rows `R1` (paired with the unknowns `x¹`) and the momentum rows `R2` (with `v¹`). A row's
//! magnitude sums the absolute values of its terms at every quadrature point (the element's
//! [`SpaceTimeElement::residual_terms`]: `∂t x`, `v`; inertia, stress) and of the load, the
//! payload's inertia and the support impulse (docs/theory.md §10). The floor basis is the
//! slab's Jacobian times the largest coordinate of each kind (positions from the origin,
//! velocities), the prescribed suspension point's columns included. A slab accepted at that
//! floor (e.g. a rope at rest, whose kinematic rows have no terms above round-off) is counted
//! in [`SpaceTimeString::at_floor`].
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
use super::newton::{BandedJacobian, BandedSystem, solve_banded};
use super::{Compression, StringModel, StringPointLaw};
use crate::basis::GaussLegendre;
use crate::error::InputError;
use crate::inverse::element::{BilinearElement, ElementError, N_DOF, SpaceTimeElement};
use crate::solve::banded::BandedLu;
use crate::solve::newton::{NewtonContext, NewtonParams, Stage};

const SCHEME: &str = "space-time slab";

/// The string marched in time by space-time slabs (module docs).
pub struct SpaceTimeString<'a> {
    model: StringModel,
    element: BilinearElement<StringPointLaw, 3>,
    ns: usize,
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
    /// Newton's parameters (relative tolerance, iteration limit; module docs).
    pub newton: NewtonParams,
    /// Names the solve in Newton's failures (default [`Stage::StringStep`]).
    stage: Stage,
    /// Slabs taken.
    steps: usize,
    /// Newton iterations (linear solves) of all slabs so far.
    pub iterations: usize,
    /// Slabs accepted at the round-off floor ([`crate::solve::newton::NewtonReport::at_floor`]).
    pub at_floor: usize,
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
            ht,
            actuation,
            gauss: GaussLegendre::new(4),
            lu: BandedLu::new(n, 11, 11),
            t: t0,
            v: vec![[0.0; 3]; r.len()],
            r,
            newton: NewtonParams::default(),
            stage: Stage::StringStep,
            steps: 0,
            iterations: 0,
            at_floor: 0,
            model,
        })
    }

    /// Names the solve in Newton's failures ([`Stage::Replay`] for a closed-loop replay).
    pub fn with_stage(mut self, stage: Stage) -> Self {
        self.stage = stage;
        self
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

    /// Advances by one slab: Newton on the slab equations (module docs) for the new level.
    pub fn step(&mut self) -> Result<(), StringStepError> {
        let (ns, ht) = (self.ns, self.ht);
        let first = self.actuation.first_free_node();
        let t1 = self.t + ht;
        // Dirichlet: the new level of node 0 given; Neumann: ∫_I F dt (4-point Gauss)
        let mut top = ([0.0; 3], [0.0; 3]);
        let mut impulse = [0.0; 3];
        match self.actuation {
            Actuation::Suspension(x) => top = x(t1),
            Actuation::Force(f) => {
                for (&tau, &w) in self.gauss.points.iter().zip(&self.gauss.weights) {
                    let ft = f(self.t + tau * ht);
                    for c in 0..3 {
                        impulse[c] += w * ht * ft[c];
                    }
                }
            }
        }
        // start: x¹ = x⁰ + ht v⁰, v¹ = v⁰
        let mut x: Vec<f64> = (first..=ns)
            .flat_map(|i| {
                let (p, v) = (self.r[i], self.v[i]);
                [0, 1, 2].map(|c| p[c] + ht * v[c]).into_iter().chain(v)
            })
            .collect();
        let groups = (first..=ns).flat_map(|_| [0, 0, 0, 1, 1, 1]).collect();
        let mut sys = Slab {
            element: &self.element,
            ns,
            first,
            ht,
            r1_scale: self.model.rho_a / ht,
            mass: self.model.payload_mass,
            x0: &self.r,
            v0: &self.v,
            top,
            impulse,
            loads: (0..=ns)
                .map(|i| consistent_load(&self.model, ns, i))
                .collect(),
            groups,
            q: [0.0; N_DOF],
            re: [0.0; N_DOF],
            me: [0.0; N_DOF],
            ke: Box::new([[0.0; N_DOF]; N_DOF]),
        };
        let cx = NewtonContext {
            block: self.steps,
            t_start: self.t,
            t_end: t1,
            stage: self.stage,
        };
        let rep = solve_banded(&mut sys, &mut self.lu, &mut x, &self.newton)
            .map_err(|e| StringStepError::from_newton(SCHEME, cx, e))?;
        let (r, v): (Vec<[f64; 3]>, Vec<[f64; 3]>) = (0..=ns).map(|i| sys.level(&x, i)).unzip();
        self.r = r;
        self.v = v;
        self.t = t1;
        self.steps += 1;
        self.iterations += rep.iterations;
        self.at_floor += usize::from(rep.at_floor);
        Ok(())
    }
}

/// The equations of one slab for the new level `(x¹, v¹)` of the free nodes (6 rows each:
/// `R1` in group 0, `R2` in group 1; module docs).
struct Slab<'a> {
    element: &'a BilinearElement<StringPointLaw, 3>,
    ns: usize,
    first: usize,
    ht: f64,
    /// Scale `ρA/ht` of the `R1` rows.
    r1_scale: f64,
    mass: f64,
    x0: &'a [[f64; 3]],
    v0: &'a [[f64; 3]],
    /// The prescribed suspension point's new level (Dirichlet).
    top: ([f64; 3], [f64; 3]),
    /// `∫_I F dt` (Neumann).
    impulse: [f64; 3],
    loads: Vec<[f64; 3]>,
    groups: Vec<u8>,
    q: [f64; N_DOF],
    re: [f64; N_DOF],
    me: [f64; N_DOF],
    ke: Box<[[f64; N_DOF]; N_DOF]>,
}

impl Slab<'_> {
    /// `(x¹_i, v¹_i)`.
    fn level(&self, x: &[f64], i: usize) -> ([f64; 3], [f64; 3]) {
        if i < self.first {
            self.top
        } else {
            let o = 6 * (i - self.first);
            ([x[o], x[o + 1], x[o + 2]], [x[o + 3], x[o + 4], x[o + 5]])
        }
    }
}

impl BandedSystem for Slab<'_> {
    type Error = ElementError;

    fn row_groups(&self) -> &[u8] {
        &self.groups
    }

    fn assemble(
        &mut self,
        x: &[f64],
        res: &mut [f64],
        mag: &mut [f64],
        mut jac: Option<&mut BandedJacobian<'_>>,
    ) -> Result<(), ElementError> {
        let (ns, first, ht) = (self.ns, self.first, self.ht);
        for es in 0..ns {
            // local dof 6a + c, a = i_s + 2 i_t: the old level (i_t = 0) and the new one
            for a in 0..4 {
                let (i, new) = (es + a % 2, a >= 2);
                let (p, v) = if new {
                    self.level(x, i)
                } else {
                    (self.x0[i], self.v0[i])
                };
                self.q[6 * a..6 * a + 3].copy_from_slice(&p);
                self.q[6 * a + 3..6 * a + 6].copy_from_slice(&v);
            }
            let ke = jac.is_some().then_some(self.ke.as_flattened_mut());
            self.element
                .residual_terms(&self.q, &mut self.re, Some(&mut self.me), ke)?;
            // slab row of node es + i_s = element rows (i_s, 0) + (i_s, 1): test w = S_i
            for is in 0..2 {
                let node = es + is;
                if node < first {
                    continue;
                }
                for c in 0..6 {
                    let scale = if c < 3 { self.r1_scale } else { 1.0 };
                    let (ra, rb) = (6 * is + c, 6 * (is + 2) + c);
                    let row = 6 * (node - first) + c;
                    res[row] += scale * (self.re[ra] + self.re[rb]);
                    mag[row] += scale * (self.me[ra] + self.me[rb]);
                    let Some(jac) = jac.as_deref_mut() else {
                        continue;
                    };
                    // unknowns: the new level, local nodes 2 + j_s
                    for js in 0..2 {
                        let other = es + js;
                        for d in 0..6 {
                            let col = 6 * (2 + js) + d;
                            let v = scale * (self.ke[ra][col] + self.ke[rb][col]);
                            if other < first {
                                // the prescribed suspension point: its round-off only
                                jac.add_known(row, v, u8::from(d >= 3));
                            } else {
                                jac.add(row, 6 * (other - first) + d, v);
                            }
                        }
                    }
                }
            }
        }
        // loads, payload inertia, support force (R2 rows)
        for (i, f) in self.loads.iter().enumerate().skip(first) {
            let row = 6 * (i - first) + 3;
            for c in 0..3 {
                res[row + c] -= ht * f[c];
                mag[row + c] += (ht * f[c]).abs();
                if i == ns {
                    let v1 = self.level(x, ns).1;
                    let t = self.mass * (v1[c] - self.v0[ns][c]);
                    res[row + c] += t;
                    mag[row + c] += t.abs();
                    if let Some(jac) = jac.as_deref_mut() {
                        jac.add(row + c, row + c, self.mass);
                    }
                }
                if i == 0 {
                    res[row + c] -= self.impulse[c];
                    mag[row + c] += self.impulse[c].abs();
                }
            }
        }
        Ok(())
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
