//! Assembly of the residual and the Jacobian of the whole space-time domain: element terms
//! ([`crate::inverse::element`], in parallel), boundary terms (actuation, tip law, servo
//! constraint), and the Newton starts.

use super::linear::JacobianSink;
use super::{InverseError, NewtonHistory, SpaceTimeMesh, SpaceTimeSolution};
use crate::basis::GaussLegendre;
use crate::discretize::pattern::SKIP;
use crate::error::InputError;
use crate::inverse::body::InverseBody;
use crate::inverse::element::{BilinearElement, ElementError, SpaceTimeElement};
use crate::inverse::sideways::{Problem, Sideways};
use crate::inverse::trajectory::ServoPath;
use rayon::prelude::*;

/// Given Neumann data at `s = 0` in forward mode.
pub type ActuationFn<'a, const N: usize = 3> = &'a (dyn Fn(f64) -> [f64; N] + Sync);

pub(super) enum Mode<'a, const N: usize> {
    Inverse(&'a dyn ServoPath<N>),
    Forward(ActuationFn<'a, N>),
}

/// Local values of the elements per parallel batch of the assembly (1024 elements of the
/// planar beam, ≈ 4.8 MB of buffers).
const CHUNK_VALUES: usize = 1024 * 600;

/// Residual, tangent and status of one element, computed by a worker thread.
#[derive(Clone)]
struct ElementOutput {
    re: Vec<f64>,
    me: Vec<f64>,
    ke: Vec<f64>,
    result: Result<(), ElementError>,
}

impl ElementOutput {
    fn new(nd: usize) -> Self {
        Self {
            re: vec![0.0; nd],
            me: vec![0.0; nd],
            ke: vec![0.0; nd * nd],
            result: Ok(()),
        }
    }
}

/// Assembler for one mesh: element, dof maps, CSC positions.
pub(super) struct Assembly<'a, B: InverseBody<N>, const N: usize> {
    pub(super) beam: B,
    pub(super) mesh: SpaceTimeMesh,
    pub(super) mode: Mode<'a, N>,
    pub(super) element: BilinearElement<B::Law, N>,
    pub(super) hs: f64,
    pub(super) ht: f64,
    /// Unknowns of the field part.
    pub(super) n_field: usize,
    pub(super) n: usize,
    /// x0 at the space nodes (rest state, v0 = 0).
    pub(super) x0: Vec<[f64; N]>,
    /// F at t_start (from the initial state; zero for the stress-free start).
    pub(super) f0: [f64; N],
    /// Time Gauss rule for boundary integrals (4 points).
    pub(super) gauss: GaussLegendre,
    /// Time Gauss rule of the nonlinear tip law (2 points).
    pub(super) gauss2: GaussLegendre,
    /// Components of `x` that the servo rows hold at the base, `x_c(0, t) = x0_c(0)`, instead of
    /// prescribing them at the tip (inverse mode; none by default): the spatial beam's
    /// position-only servo with a clamped base of fixed orientation.
    pub(super) hold: [bool; N],
}

impl<'a, B: InverseBody<N>, const N: usize> Assembly<'a, B, N> {
    pub(super) fn new(
        beam: B,
        mesh: SpaceTimeMesh,
        mode: Mode<'a, N>,
    ) -> Result<Self, InverseError> {
        let hs = beam.length() / mesh.elements_s as f64;
        let ht = mesh.ht();
        let ns1 = mesh.elements_s + 1;
        let n_field = (2 * N).saturating_mul(ns1).saturating_mul(mesh.elements_t);
        let n = n_field.saturating_add(match mode {
            Mode::Inverse(_) => N * mesh.elements_t,
            Mode::Forward(_) => 0,
        });
        if n >= SKIP as usize {
            return Err(InputError::Invalid {
                field: "mesh".into(),
                message: format!("{n} unknowns is too many for one space-time system"),
            }
            .into());
        }
        let x0 = beam.initial_nodes(mesh.elements_s);
        let mut asm = Self {
            beam,
            mesh,
            mode,
            element: beam.element(hs, ht),
            hs,
            ht,
            n_field,
            n,
            x0,
            f0: [0.0; N],
            gauss: GaussLegendre::new(4),
            gauss2: GaussLegendre::new(2),
            hold: [false; N],
        };
        asm.f0 = asm.initial_actuation();
        Ok(asm)
    }

    /// `F(t_start)` from the initial state ([`InverseBody::initial_actuation`]): the initial
    /// state is in equilibrium with the actuation it starts with.
    pub(super) fn initial_actuation(&self) -> [f64; N] {
        self.beam
            .initial_actuation(&self.element, &self.x0, self.hs)
    }

    /// Full nodal value `(x, v)` component `c` at node `(i, j)`.
    pub(super) fn node_value(&self, u: &[f64], i: usize, j: usize, c: usize) -> f64 {
        if j == 0 {
            if c < N { self.x0[i][c] } else { 0.0 }
        } else {
            u[Self::dof(self.ns1(), i, j, c)]
        }
    }

    pub(super) fn f_value(&self, u: &[f64], j: usize, c: usize) -> f64 {
        if j == 0 {
            self.f0[c]
        } else {
            u[self.f_dof(j, c)]
        }
    }

    pub(super) fn t_node(&self, j: usize) -> f64 {
        self.mesh.t_start + j as f64 * self.ht
    }

    /// Residual into `r`, the magnitudes of its terms into `m` (`m_i = Σ_t |t_i|`, the scale
    /// of the Newton stop, `solve::newton::measure`) and, if given, the Jacobian into `jac`.
    /// The servo rows' terms are measured from the tip's start value (`∫ N (x(L) − x(L, 0))`
    /// and `∫ N (γ − x(L, 0))`, whose difference is the row): absolute positions would make
    /// the scale grow with the distance from the origin.
    pub(super) fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        m: &mut [f64],
        mut jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError> {
        r.fill(0.0);
        m.fill(0.0);
        if let Some(j) = jac.as_deref_mut() {
            j.clear();
        }
        let ns1 = self.ns1();
        let (nes, net) = (self.mesh.elements_s, self.mesh.elements_t);
        // Element residuals and tangents are computed in parallel (rayon, chunks of
        // ELEMENT_CHUNK elements in mesh order) and added serially in mesh order: the sums
        // are those of the serial loop, bit for bit, for any number of threads.
        let want = jac.is_some();
        let nd = 8 * N;
        let n_el = nes * net;
        let chunk = (CHUNK_VALUES / (nd * nd)).max(1).min(n_el.max(1));
        let mut buf: Vec<ElementOutput> = vec![ElementOutput::new(nd); chunk];
        let (element, x0) = (&self.element, &self.x0);
        let node_value = |i: usize, j: usize, c: usize| -> f64 {
            if j == 0 {
                if c < N { x0[i][c] } else { 0.0 }
            } else {
                u[Self::dof(ns1, i, j, c)]
            }
        };
        let mut d = vec![0usize; nd];
        for first in (0..n_el).step_by(chunk) {
            let len = chunk.min(n_el - first);
            buf[..len].par_iter_mut().enumerate().for_each(|(k, out)| {
                let (et, es) = ((first + k) / nes, (first + k) % nes);
                let mut q = [0.0; 48];
                let q = &mut q[..nd];
                for a in 0..4 {
                    for c in 0..2 * N {
                        q[2 * N * a + c] = node_value(es + a % 2, et + a / 2, c);
                    }
                }
                out.result = element.residual_terms(
                    q,
                    &mut out.re,
                    Some(&mut out.me),
                    want.then_some(out.ke.as_mut_slice()),
                );
            });
            for (k, out) in buf[..len].iter().enumerate() {
                let (et, es) = ((first + k) / nes, (first + k) % nes);
                out.result?;
                super::numbering::element_dofs::<N>(ns1, es, et, &mut d);
                for row in 0..nd {
                    if d[row] != SKIP as usize {
                        r[d[row]] += out.re[row];
                        m[d[row]] += out.me[row];
                    }
                }
                if let Some(jv) = jac.as_deref_mut() {
                    jv.add_element(es, et, &out.ke);
                }
            }
        }
        // Boundary terms per time element: ∫ N_a N_b dt = ht/6 (1 + δ_ab),
        // ∫ N_a ∂t N_b dt = ±½.
        let ns = nes;
        let tip = self.beam.tip_mass();
        // Constant loads: − q ∫S_i ds ∫T_j dt at every node, − f_tip ∫T_j dt at the tip.
        let (q, ft) = (self.beam.load(), self.beam.tip_load());
        if q != [0.0; N] || ft != [0.0; N] {
            for j in 1..=net {
                let tj = if j == net { 0.5 * self.ht } else { self.ht };
                for i in 0..ns1 {
                    let si = if i == 0 || i == ns {
                        0.5 * self.hs
                    } else {
                        self.hs
                    };
                    for c in 0..N {
                        let mut f = q[c] * si;
                        if i == ns {
                            f += ft[c];
                        }
                        let row = Self::dof(ns1, i, j, N + c);
                        r[row] -= f * tj;
                        m[row] += (f * tj).abs();
                    }
                }
            }
        }
        for et in 0..net {
            let js = [et, et + 1];
            for (la, &ja) in js.iter().enumerate() {
                for (lb, &jb) in js.iter().enumerate() {
                    let mab = self.ht / 6.0 * if la == lb { 2.0 } else { 1.0 };
                    let dab = if lb == 1 { 0.5 } else { -0.5 };
                    for c in 0..N {
                        // + ∫ N_a M_tip ∂t v(L)
                        if let Some(mt) = tip {
                            let row = Self::dof(ns1, ns, ja, N + c);
                            if row != SKIP as usize {
                                let t = mt[c] * dab * self.node_value(u, ns, jb, N + c);
                                r[row] += t;
                                m[row] += t.abs();
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, Self::dof(ns1, ns, jb, N + c), mt[c] * dab);
                                }
                            }
                        }
                        if let Mode::Inverse(_) = self.mode {
                            // − ∫ N_a F  (R2 at s = 0)
                            let row = Self::dof(ns1, 0, ja, N + c);
                            if row != SKIP as usize {
                                let t = mab * self.f_value(u, jb, c);
                                r[row] -= t;
                                m[row] += t.abs();
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, self.f_dof(jb, c), -mab);
                                }
                            }
                            // + ∫ N_a x(L)  (R3), or + ∫ N_a x(0) for a held component
                            let row = self.f_dof(ja, c);
                            let at = if self.hold[c] { 0 } else { ns };
                            if row != SKIP as usize {
                                let x = self.node_value(u, at, jb, c);
                                r[row] += mab * x;
                                m[row] += (mab * (x - self.x0[at][c])).abs();
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, Self::dof(ns1, at, jb, c), mab);
                                }
                            }
                        }
                    }
                }
            }
            // + ∫ N_a f_tip(x, v, ∂t v) at s = L (2-point Gauss): the nonlinear tip law
            if B::NONLINEAR_TIP {
                self.tip_terms(u, et, r, m, jac.as_deref_mut());
            }
            // Known functions of time, by 4-point Gauss: − ∫ N_a γ (R3), − ∫ N_a F (forward).
            for (&tau, &w) in self.gauss.points.iter().zip(&self.gauss.weights) {
                let t = self.t_node(et) + tau * self.ht;
                let na = [1.0 - tau, tau];
                // the servo rows' terms are measured from the start value (see above)
                let (vals, rows, refs): ([f64; N], [[usize; N]; 2], [f64; N]) = match self.mode {
                    Mode::Inverse(tr) => (
                        self.servo_target(tr, t),
                        [0, 1].map(|l| std::array::from_fn(|c| self.f_dof(js[l], c))),
                        std::array::from_fn(|c| self.x0[if self.hold[c] { 0 } else { ns }][c]),
                    ),
                    // R2 ⊃ − ∫ N_a F, the same sign as the unknown actuation of inverse mode
                    // (a sign flip here was caught by `tests/beam_cross_check.rs`)
                    Mode::Forward(f) => {
                        let g = f(t);
                        (
                            g,
                            [0, 1]
                                .map(|l| std::array::from_fn(|c| Self::dof(ns1, 0, js[l], N + c))),
                            [0.0; N],
                        )
                    }
                };
                for l in 0..2 {
                    for c in 0..N {
                        if rows[l][c] != SKIP as usize {
                            let wn = w * self.ht * na[l];
                            r[rows[l][c]] -= wn * vals[c];
                            m[rows[l][c]] += (wn * (vals[c] - refs[c])).abs();
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The target of the servo rows at `t`: the path's, or the rest value at the base for a
    /// held component.
    fn servo_target(&self, tr: &dyn ServoPath<N>, t: f64) -> [f64; N] {
        let g = tr.target(t);
        std::array::from_fn(|c| if self.hold[c] { self.x0[0][c] } else { g[c] })
    }

    /// The nonlinear tip law of time element `et` (2-point Gauss): `+ ∫ T_a f_tip dt` in the
    /// rows `R2(L, t_a)` and its Jacobian.
    fn tip_terms(
        &self,
        u: &[f64],
        et: usize,
        r: &mut [f64],
        m: &mut [f64],
        mut jac: Option<&mut (dyn JacobianSink + '_)>,
    ) {
        let (ns1, ns) = (self.ns1(), self.mesh.elements_s);
        let js = [et, et + 1];
        let val = |j: usize, c: usize| self.node_value(u, ns, j, c);
        for (&tau, &w) in self.gauss2.points.iter().zip(&self.gauss2.weights) {
            let tn = [1.0 - tau, tau];
            let td = [-1.0 / self.ht, 1.0 / self.ht];
            let x: [f64; N] =
                std::array::from_fn(|c| tn[0] * val(js[0], c) + tn[1] * val(js[1], c));
            let v: [f64; N] =
                std::array::from_fn(|c| tn[0] * val(js[0], N + c) + tn[1] * val(js[1], N + c));
            let a: [f64; N] =
                std::array::from_fn(|c| td[0] * val(js[0], N + c) + td[1] * val(js[1], N + c));
            let ip = self.beam.tip_point(&x, &v, &a, jac.is_some());
            let wt = w * self.ht;
            for la in 0..2 {
                for c in 0..N {
                    let row = Self::dof(ns1, ns, js[la], N + c);
                    if row == SKIP as usize {
                        continue;
                    }
                    r[row] += wt * tn[la] * ip.f[c];
                    m[row] += (wt * tn[la] * ip.f[c]).abs();
                    if let Some(jv) = jac.as_deref_mut() {
                        for lb in 0..2 {
                            if js[lb] == 0 {
                                continue;
                            }
                            for d in 0..N {
                                let cx = Self::dof(ns1, ns, js[lb], d);
                                jv.add(row, cx, wt * tn[la] * tn[lb] * ip.jx[c][d]);
                                let cv = Self::dof(ns1, ns, js[lb], N + d);
                                let jvd = tn[lb] * ip.jv[c][d] + td[lb] * ip.ja[c][d];
                                jv.add(row, cv, wt * tn[la] * jvd);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The rest start: `x = x0`, `v = 0` at every node, `F = F(t_start)` (inverse mode), in the
    /// numbering `layout`.
    pub(super) fn initial_guess_in(&self, layout: &impl Layout) -> Vec<f64> {
        let mut u = vec![0.0; layout.len()];
        for j in 1..=self.mesh.elements_t {
            for i in 0..self.ns1() {
                let k = layout.node(i, j);
                u[k..k + N].copy_from_slice(&self.x0[i]);
            }
            if let Mode::Inverse(_) = self.mode {
                let k = layout.force(j);
                u[k..k + N].copy_from_slice(&self.f0);
            }
        }
        u
    }

    /// [`Self::initial_guess_in`] in the global numbering.
    pub(super) fn initial_guess(&self) -> Vec<f64> {
        self.initial_guess_in(&self.layout())
    }

    /// Newton start from another solution of the same domain (see [`solve_inverse_from`]), in
    /// the numbering `layout` (`F` in inverse mode only).
    pub(super) fn guess_from_in(
        &self,
        start: &SpaceTimeSolution<B, N>,
        layout: &impl Layout,
    ) -> Vec<f64> {
        let mut u = vec![0.0; layout.len()];
        for j in 1..=self.mesh.elements_t {
            let t = self.mesh.t_start + j as f64 * self.ht;
            for i in 0..self.ns1() {
                let (x, v) = start.field_at_cubic(i as f64 * self.hs, t);
                let k = layout.node(i, j);
                u[k..k + N].copy_from_slice(&x);
                u[k + N..k + 2 * N].copy_from_slice(&v);
            }
            if let Mode::Inverse(_) = self.mode {
                let k = layout.force(j);
                u[k..k + N].copy_from_slice(&start.actuation_at_cubic(t));
            }
        }
        u
    }

    /// [`Self::guess_from_in`] in the global numbering.
    pub(super) fn guess_from(&self, start: &SpaceTimeSolution<B, N>) -> Vec<f64> {
        self.guess_from_in(start, &self.layout())
    }

    /// The grid solution of the unknowns `u` in the numbering `layout`.
    pub(super) fn solution_in(
        &self,
        u: &[f64],
        layout: &impl Layout,
        newton: NewtonHistory,
    ) -> SpaceTimeSolution<B, N> {
        let ns1 = self.ns1();
        let nt1 = self.mesh.elements_t + 1;
        let mut x = Vec::with_capacity(crate::math::reserve(ns1, nt1));
        let mut v = Vec::with_capacity(crate::math::reserve(ns1, nt1));
        x.extend_from_slice(&self.x0);
        v.resize(ns1, [0.0; N]);
        for j in 1..nt1 {
            for i in 0..ns1 {
                let k = layout.node(i, j);
                x.push(std::array::from_fn(|c| u[k + c]));
                v.push(std::array::from_fn(|c| u[k + N + c]));
            }
        }
        let t: Vec<f64> = (0..nt1).map(|j| self.t_node(j)).collect();
        let actuation = match self.mode {
            Mode::Inverse(_) => std::iter::once(self.f0)
                .chain((1..nt1).map(|j| {
                    let k = layout.force(j);
                    std::array::from_fn(|c| u[k + c])
                }))
                .collect(),
            Mode::Forward(f) => t.iter().map(|&tj| f(tj)).collect(),
        };
        SpaceTimeSolution {
            beam: self.beam,
            mesh: self.mesh,
            s: (0..ns1).map(|i| i as f64 * self.hs).collect(),
            t,
            x,
            v,
            actuation,
            newton,
        }
    }

    /// [`Self::solution_in`] in the global numbering.
    pub(super) fn solution(&self, u: &[f64], newton: NewtonHistory) -> SpaceTimeSolution<B, N> {
        self.solution_in(u, &self.layout(), newton)
    }

    /// `∫ N_j γ dt` for `j = 1..=n_t` (4-point Gauss per time element): the known part of the
    /// servo rows `R3` (inverse mode; zero in forward mode).
    pub(super) fn servo_integrals(&self) -> Vec<[f64; N]> {
        let net = self.mesh.elements_t;
        let mut out = vec![[0.0; N]; net];
        let Mode::Inverse(tr) = self.mode else {
            return out;
        };
        for et in 0..net {
            for (&tau, &w) in self.gauss.points.iter().zip(&self.gauss.weights) {
                let t = self.t_node(et) + tau * self.ht;
                let na = [1.0 - tau, tau];
                let vals = self.servo_target(tr, t);
                for l in 0..2 {
                    let j = et + l;
                    if j == 0 {
                        continue;
                    }
                    for c in 0..N {
                        out[j - 1][c] += w * self.ht * na[l] * vals[c];
                    }
                }
            }
        }
        out
    }

    /// The problem as the streamed sideways elimination sees it (inverse mode).
    pub(super) fn sideways_problem(&self) -> Problem<'_, B, N> {
        use crate::inverse::element::PointLaw;
        Problem {
            body: &self.beam,
            element: &self.element,
            ns: self.mesh.elements_s,
            nt: self.mesh.elements_t,
            hs: self.hs,
            ht: self.ht,
            inertia: self.element.law().inertia(),
            load: self.beam.load(),
            tip_load: self.beam.tip_load(),
            tip_mass: self.beam.tip_mass().unwrap_or([0.0; N]),
            x0: &self.x0,
            f0: self.f0,
            gamma: self.servo_integrals(),
        }
    }
}

/// Where a node's `(x, v)` (`2N` contiguous values) and a time node's `F` (`N`) sit in a
/// vector of unknowns.
pub(super) trait Layout {
    /// First index of `(x, v)` at node `(i, j)`, `j ≥ 1`.
    fn node(&self, i: usize, j: usize) -> usize;
    /// First index of `F` at time node `j ≥ 1` (inverse mode).
    fn force(&self, j: usize) -> usize;
    /// Number of unknowns.
    fn len(&self) -> usize;
}

impl<B: InverseBody<N>, const N: usize> Layout for Sideways<'_, B, N> {
    fn node(&self, i: usize, j: usize) -> usize {
        self.dof(i, j)
    }
    fn force(&self, j: usize) -> usize {
        self.f_dof(j)
    }
    fn len(&self) -> usize {
        self.unknowns()
    }
}
