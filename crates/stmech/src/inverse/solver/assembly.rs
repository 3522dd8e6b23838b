//! Assembly of the residual and the Jacobian of the whole space-time domain: element terms
//! ([`crate::inverse::element`], in parallel), boundary terms (actuation, tip law, servo
//! constraint), and the Newton starts.

use super::linear::JacobianSink;
use super::{InverseError, NewtonHistory, SpaceTimeMesh, SpaceTimeSolution};
use crate::basis::GaussLegendre;
use crate::discretize::pattern::SKIP;
use crate::error::InputError;
use crate::inverse::body::InverseBody;
use crate::inverse::element::{BilinearElement, ElementError, N_DOF, SpaceTimeElement};
use crate::inverse::sideways::{Problem, Sideways};
use crate::inverse::trajectory::TipTrajectory;
use rayon::prelude::*;

/// Given Neumann data at `s = 0` in forward mode.
pub type ActuationFn<'a> = &'a (dyn Fn(f64) -> [f64; 3] + Sync);

pub(super) enum Mode<'a> {
    Inverse(&'a dyn TipTrajectory),
    Forward(ActuationFn<'a>),
}

/// Elements per parallel batch of the assembly (≈ 4.8 kB of buffer each).
const ELEMENT_CHUNK: usize = 1024;

/// Residual, tangent and status of one element, computed by a worker thread.
#[derive(Clone)]
struct ElementOutput {
    re: [f64; N_DOF],
    ke: [[f64; N_DOF]; N_DOF],
    result: Result<(), ElementError>,
}

impl Default for ElementOutput {
    fn default() -> Self {
        Self {
            re: [0.0; N_DOF],
            ke: [[0.0; N_DOF]; N_DOF],
            result: Ok(()),
        }
    }
}

/// Assembler for one mesh: element, dof maps, CSC positions.
pub(super) struct Assembly<'a, B: InverseBody> {
    pub(super) beam: B,
    pub(super) mesh: SpaceTimeMesh,
    pub(super) mode: Mode<'a>,
    pub(super) element: BilinearElement<B::Law>,
    pub(super) hs: f64,
    pub(super) ht: f64,
    /// Unknowns of the field part.
    pub(super) n_field: usize,
    pub(super) n: usize,
    /// x0 at the space nodes (rest state, v0 = 0).
    pub(super) x0: Vec<[f64; 3]>,
    /// F at t_start (from the initial state; zero for the stress-free start).
    pub(super) f0: [f64; 3],
    /// Time Gauss rule for boundary integrals (4 points).
    pub(super) gauss: GaussLegendre,
}

impl<'a, B: InverseBody> Assembly<'a, B> {
    pub(super) fn new(beam: B, mesh: SpaceTimeMesh, mode: Mode<'a>) -> Result<Self, InverseError> {
        let hs = beam.length() / mesh.elements_s as f64;
        let ht = mesh.ht();
        let ns1 = mesh.elements_s + 1;
        let n_field = 6 * ns1 * mesh.elements_t;
        let n = n_field
            + match mode {
                Mode::Inverse(_) => 3 * mesh.elements_t,
                Mode::Forward(_) => 0,
            };
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
            f0: [0.0; 3],
            gauss: GaussLegendre::new(4),
        };
        asm.f0 = asm.initial_actuation();
        Ok(asm)
    }

    /// `F(t_start)` from the initial state ([`InverseBody::initial_actuation`]): the initial
    /// state is in equilibrium with the actuation it starts with.
    pub(super) fn initial_actuation(&self) -> [f64; 3] {
        self.beam
            .initial_actuation(&self.element, &self.x0, self.hs)
    }

    /// Full nodal value `(x, v)` component `c` at node `(i, j)`.
    pub(super) fn node_value(&self, u: &[f64], i: usize, j: usize, c: usize) -> f64 {
        if j == 0 {
            if c < 3 { self.x0[i][c] } else { 0.0 }
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

    /// Residual into `r` and, if given, the Jacobian into `jac`.
    pub(super) fn assemble(
        &self,
        u: &[f64],
        r: &mut [f64],
        mut jac: Option<&mut dyn JacobianSink>,
    ) -> Result<(), ElementError> {
        r.fill(0.0);
        if let Some(j) = jac.as_deref_mut() {
            j.clear();
        }
        let ns1 = self.ns1();
        let (nes, net) = (self.mesh.elements_s, self.mesh.elements_t);
        // Element residuals and tangents are computed in parallel (rayon, chunks of
        // ELEMENT_CHUNK elements in mesh order) and added serially in mesh order: the sums
        // are those of the serial loop, bit for bit, for any number of threads.
        let want = jac.is_some();
        let n_el = nes * net;
        let chunk = ELEMENT_CHUNK.min(n_el.max(1));
        let mut buf: Vec<ElementOutput> = vec![ElementOutput::default(); chunk];
        let (element, x0) = (&self.element, &self.x0);
        let node_value = |i: usize, j: usize, c: usize| -> f64 {
            if j == 0 {
                if c < 3 { x0[i][c] } else { 0.0 }
            } else {
                u[Self::dof(ns1, i, j, c)]
            }
        };
        for first in (0..n_el).step_by(chunk) {
            let len = chunk.min(n_el - first);
            buf[..len].par_iter_mut().enumerate().for_each(|(k, out)| {
                let (et, es) = ((first + k) / nes, (first + k) % nes);
                let mut q = [0.0; N_DOF];
                for a in 0..4 {
                    for c in 0..6 {
                        q[6 * a + c] = node_value(es + a % 2, et + a / 2, c);
                    }
                }
                out.result = element.residual_into(&q, &mut out.re, want.then_some(&mut out.ke));
            });
            for (k, out) in buf[..len].iter().enumerate() {
                let (et, es) = ((first + k) / nes, (first + k) % nes);
                out.result?;
                let d = Self::element_dofs(ns1, es, et);
                for row in 0..N_DOF {
                    if d[row] != SKIP as usize {
                        r[d[row]] += out.re[row];
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
        if q != [0.0; 3] || ft != [0.0; 3] {
            for j in 1..=net {
                let tj = if j == net { 0.5 * self.ht } else { self.ht };
                for i in 0..ns1 {
                    let si = if i == 0 || i == ns {
                        0.5 * self.hs
                    } else {
                        self.hs
                    };
                    for c in 0..3 {
                        let mut f = q[c] * si;
                        if i == ns {
                            f += ft[c];
                        }
                        r[Self::dof(ns1, i, j, 3 + c)] -= f * tj;
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
                    for c in 0..3 {
                        // + ∫ N_a M_tip ∂t v(L)
                        if let Some(mt) = tip {
                            let row = Self::dof(ns1, ns, ja, 3 + c);
                            if row != SKIP as usize {
                                r[row] += mt[c] * dab * self.node_value(u, ns, jb, 3 + c);
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, Self::dof(ns1, ns, jb, 3 + c), mt[c] * dab);
                                }
                            }
                        }
                        if let Mode::Inverse(_) = self.mode {
                            // − ∫ N_a F  (R2 at s = 0)
                            let row = Self::dof(ns1, 0, ja, 3 + c);
                            if row != SKIP as usize {
                                r[row] -= mab * self.f_value(u, jb, c);
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, self.f_dof(jb, c), -mab);
                                }
                            }
                            // + ∫ N_a x(L)  (R3)
                            let row = self.f_dof(ja, c);
                            if row != SKIP as usize {
                                r[row] += mab * self.node_value(u, ns, jb, c);
                                if let (Some(jv), true) = (jac.as_deref_mut(), jb > 0) {
                                    jv.add(row, Self::dof(ns1, ns, jb, c), mab);
                                }
                            }
                        }
                    }
                }
            }
            // Known functions of time, by 4-point Gauss: − ∫ N_a γ (R3), − ∫ N_a F (forward).
            for (&tau, &w) in self.gauss.points.iter().zip(&self.gauss.weights) {
                let t = self.t_node(et) + tau * self.ht;
                let na = [1.0 - tau, tau];
                let (vals, rows): ([f64; 3], [[usize; 3]; 2]) = match self.mode {
                    Mode::Inverse(tr) => (
                        tr.pose(t),
                        [0, 1].map(|l| [0, 1, 2].map(|c| self.f_dof(js[l], c))),
                    ),
                    // R2 ⊃ − ∫ N_a F, the same sign as the unknown actuation of inverse mode
                    // (a sign flip here was caught by `tests/beam_cross_check.rs`)
                    Mode::Forward(f) => {
                        let g = f(t);
                        (
                            g,
                            [0, 1].map(|l| [0, 1, 2].map(|c| Self::dof(ns1, 0, js[l], 3 + c))),
                        )
                    }
                };
                for l in 0..2 {
                    for c in 0..3 {
                        if rows[l][c] != SKIP as usize {
                            r[rows[l][c]] -= w * self.ht * na[l] * vals[c];
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The rest start: `x = x0`, `v = 0` at every node, `F = F(t_start)` (inverse mode), in the
    /// numbering `layout`.
    pub(super) fn initial_guess_in(&self, layout: &impl Layout) -> Vec<f64> {
        let mut u = vec![0.0; layout.len()];
        for j in 1..=self.mesh.elements_t {
            for i in 0..self.ns1() {
                let k = layout.node(i, j);
                u[k..k + 3].copy_from_slice(&self.x0[i]);
            }
            if let Mode::Inverse(_) = self.mode {
                let k = layout.force(j);
                u[k..k + 3].copy_from_slice(&self.f0);
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
        start: &SpaceTimeSolution<B>,
        layout: &impl Layout,
    ) -> Vec<f64> {
        let mut u = vec![0.0; layout.len()];
        for j in 1..=self.mesh.elements_t {
            let t = self.mesh.t_start + j as f64 * self.ht;
            for i in 0..self.ns1() {
                let (x, v) = start.field_at_cubic(i as f64 * self.hs, t);
                let k = layout.node(i, j);
                u[k..k + 3].copy_from_slice(&x);
                u[k + 3..k + 6].copy_from_slice(&v);
            }
            if let Mode::Inverse(_) = self.mode {
                let k = layout.force(j);
                u[k..k + 3].copy_from_slice(&start.actuation_at_cubic(t));
            }
        }
        u
    }

    /// [`Self::guess_from_in`] in the global numbering.
    pub(super) fn guess_from(&self, start: &SpaceTimeSolution<B>) -> Vec<f64> {
        self.guess_from_in(start, &self.layout())
    }

    /// The grid solution of the unknowns `u` in the numbering `layout`.
    pub(super) fn solution_in(
        &self,
        u: &[f64],
        layout: &impl Layout,
        newton: NewtonHistory,
    ) -> SpaceTimeSolution<B> {
        let ns1 = self.ns1();
        let nt1 = self.mesh.elements_t + 1;
        let mut x = Vec::with_capacity(crate::resources::reserve(ns1, nt1));
        let mut v = Vec::with_capacity(crate::resources::reserve(ns1, nt1));
        x.extend_from_slice(&self.x0);
        v.resize(ns1, [0.0; 3]);
        for j in 1..nt1 {
            for i in 0..ns1 {
                let k = layout.node(i, j);
                x.push([u[k], u[k + 1], u[k + 2]]);
                v.push([u[k + 3], u[k + 4], u[k + 5]]);
            }
        }
        let t: Vec<f64> = (0..nt1).map(|j| self.t_node(j)).collect();
        let actuation = match self.mode {
            Mode::Inverse(_) => std::iter::once(self.f0)
                .chain((1..nt1).map(|j| {
                    let k = layout.force(j);
                    [u[k], u[k + 1], u[k + 2]]
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
    pub(super) fn solution(&self, u: &[f64], newton: NewtonHistory) -> SpaceTimeSolution<B> {
        self.solution_in(u, &self.layout(), newton)
    }

    /// `∫ N_j γ dt` for `j = 1..=n_t` (4-point Gauss per time element): the known part of the
    /// servo rows `R3` (inverse mode; zero in forward mode).
    pub(super) fn servo_integrals(&self) -> Vec<[f64; 3]> {
        let net = self.mesh.elements_t;
        let mut out = vec![[0.0; 3]; net];
        let Mode::Inverse(tr) = self.mode else {
            return out;
        };
        for et in 0..net {
            for (&tau, &w) in self.gauss.points.iter().zip(&self.gauss.weights) {
                let t = self.t_node(et) + tau * self.ht;
                let na = [1.0 - tau, tau];
                let vals = tr.pose(t);
                for l in 0..2 {
                    let j = et + l;
                    if j == 0 {
                        continue;
                    }
                    for c in 0..3 {
                        out[j - 1][c] += w * self.ht * na[l] * vals[c];
                    }
                }
            }
        }
        out
    }

    /// The problem as the streamed sideways elimination sees it (inverse mode).
    pub(super) fn sideways_problem(&self) -> Problem<'_, B::Law> {
        use crate::inverse::element::PointLaw;
        Problem {
            element: &self.element,
            ns: self.mesh.elements_s,
            nt: self.mesh.elements_t,
            hs: self.hs,
            ht: self.ht,
            inertia: self.element.law().inertia(),
            load: self.beam.load(),
            tip_load: self.beam.tip_load(),
            tip_mass: self.beam.tip_mass().unwrap_or([0.0; 3]),
            x0: &self.x0,
            f0: self.f0,
            gamma: self.servo_integrals(),
        }
    }
}

/// Where a node's `(x, v)` (6 contiguous values) and a time node's `F` (3) sit in a vector of
/// unknowns.
pub(super) trait Layout {
    /// First index of `(x, v)` at node `(i, j)`, `j ≥ 1`.
    fn node(&self, i: usize, j: usize) -> usize;
    /// First index of `F` at time node `j ≥ 1` (inverse mode).
    fn force(&self, j: usize) -> usize;
    /// Number of unknowns.
    fn len(&self) -> usize;
}

impl<L: crate::inverse::element::PointLaw> Layout for Sideways<'_, L> {
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
