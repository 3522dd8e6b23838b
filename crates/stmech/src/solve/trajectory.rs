//! The result of a forward simulation: nodal values in time plus solver statistics.

use crate::basis::LagrangeBasis;
use crate::model::ConstrainedSystem;
use crate::solve::newton::NewtonReport;

/// Newton statistics of one time block (space-time) or of all steps (time stepping).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BlockReport {
    /// Block start time (s).
    pub t_start: f64,
    /// Block end time (s).
    pub t_end: f64,
    /// Newton report (for time stepping: summed over steps, residual history of the worst step).
    pub newton: NewtonReport,
}

/// Nodal values of a simulation.
///
/// Nodes are ordered in time; between nodes the fields are interpolated with Lagrange
/// polynomials of order [`order`](Self::order) on consecutive groups of `order + 1` nodes
/// (elements). Multipliers are discontinuous at block boundaries: the value stored at a
/// boundary node is the one of the block ending there.
#[derive(Clone, Debug)]
pub struct Trajectory {
    /// Configuration dimension.
    pub n_q: usize,
    /// Number of multipliers.
    pub n_lambda: usize,
    /// Interpolation order between nodes.
    pub order: usize,
    /// Node times (s).
    pub times: Vec<f64>,
    /// `q` at the nodes, node-major (`times.len() × n_q`).
    pub q: Vec<f64>,
    /// Velocities `v = q̇` at the nodes, node-major (momenta: [`ConstrainedSystem::momentum_into`]).
    pub v: Vec<f64>,
    /// `λ` at the nodes, node-major.
    pub lambda: Vec<f64>,
    /// Solver statistics per block.
    pub blocks: Vec<BlockReport>,
    /// Method description for reports.
    pub method: String,
    /// Wall time of the solver's set-up before its first Newton iteration (s): the Newton
    /// system's pattern and positions, the symbolic analysis of its LU, the consistent initial
    /// multipliers (`setup_seconds` of `summary.json`; not deterministic, like every timing).
    /// Measured by the element-wise Petrov–Galerkin solver (`space_time::condensed`), the
    /// path of flexible dynamics; `None` (`null`) where not measured.
    pub setup_seconds: Option<f64>,
}

impl Trajectory {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// True if there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// `q` at node `k`.
    pub fn q_at(&self, k: usize) -> &[f64] {
        &self.q[k * self.n_q..(k + 1) * self.n_q]
    }

    /// `v` at node `k`.
    pub fn v_at(&self, k: usize) -> &[f64] {
        &self.v[k * self.n_q..(k + 1) * self.n_q]
    }

    /// `λ` at node `k`.
    pub fn lambda_at(&self, k: usize) -> &[f64] {
        &self.lambda[k * self.n_lambda..(k + 1) * self.n_lambda]
    }

    /// Final configuration.
    pub fn q_final(&self) -> &[f64] {
        self.q_at(self.len() - 1)
    }

    /// `q_h` at the reference coordinate `tau ∈ [0, 1]` of element `el`.
    pub fn q_in_element(&self, el: usize, tau: f64, out: &mut [f64]) {
        let np = self.order + 1;
        let (mut n, mut dn) = (vec![0.0; np], vec![0.0; np]);
        LagrangeBasis::new(self.order).eval_into(tau, &mut n, &mut dn);
        self.q_with_weights(el, &n, out);
    }

    /// `q_h = Σ_A n[A] q_A` over the nodes of element `el`, for shape values `n` evaluated once.
    pub(crate) fn q_with_weights(&self, el: usize, n: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        for (a, &na) in n.iter().enumerate() {
            for (o, x) in out.iter_mut().zip(self.q_at(el * self.order + a)) {
                *o += na * x;
            }
        }
    }

    /// Number of elements (groups of `order + 1` nodes).
    pub fn n_elements(&self) -> usize {
        (self.len() - 1) / self.order
    }

    /// Total Newton iterations over all blocks.
    pub fn total_newton_iterations(&self) -> usize {
        self.blocks.iter().map(|b| b.newton.iterations).sum()
    }

    /// Largest `|Φ(q)|` at element boundaries (the nodes shared by two elements, where the
    /// Petrov–Galerkin form holds quadratic constraints exactly) and inside elements (interior
    /// nodes for `p ≥ 2` and the midpoint of each element's first node interval).
    pub fn constraint_violation<S: ConstrainedSystem + ?Sized>(&self, sys: &S) -> (f64, f64) {
        let mut ev = sys.new_point_eval();
        let lam = vec![0.0; self.n_lambda];
        let (mut at_ends, mut inside): (f64, f64) = (0.0, 0.0);
        for k in 0..self.len() {
            crate::solve::diagnostics::work::visit(1);
            sys.eval(self.times[k], self.q_at(k), &lam, &mut ev, false);
            let m = ev.phi.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            if k % self.order == 0 {
                at_ends = at_ends.max(m);
            } else {
                inside = inside.max(m);
            }
        }
        (
            at_ends,
            inside.max(self.constraint_violation_at_midpoints(sys)),
        )
    }

    /// Largest `|Φ(q)|` at the midpoint of each element's first node interval: the part of
    /// [`constraint_violation`](Self::constraint_violation) that is not at a node (callers that
    /// already have `|Φ|` at the nodes need only this).
    pub fn constraint_violation_at_midpoints<S: ConstrainedSystem + ?Sized>(&self, sys: &S) -> f64 {
        let mut ev = sys.new_point_eval();
        let lam = vec![0.0; self.n_lambda];
        let mut inside: f64 = 0.0;
        let mut q = vec![0.0; self.n_q];
        // midpoint of the first node interval of each element; shape values are the same for all
        let np = self.order + 1;
        let (mut n, mut dn) = (vec![0.0; np], vec![0.0; np]);
        LagrangeBasis::new(self.order).eval_into(0.5 / self.order as f64, &mut n, &mut dn);
        for el in 0..self.n_elements() {
            crate::solve::diagnostics::work::visit(1);
            self.q_with_weights(el, &n, &mut q);
            sys.eval(self.times[el * self.order], &q, &lam, &mut ev, false);
            inside = ev.phi.iter().fold(inside, |m, x| m.max(x.abs()));
        }
        inside
    }
}
