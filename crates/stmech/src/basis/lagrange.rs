//! Continuous Lagrange shape functions of order `p` on `[0, 1]` with equidistant nodes
//! `τ_A = A/p`, `A = 0..=p`: the temporal shape functions `M_t^A` of [P, Eq. (17)].

/// Lagrange basis of order `p ≥ 1` on the reference interval `[0, 1]`.
#[derive(Clone, Debug)]
pub struct LagrangeBasis {
    order: usize,
    nodes: Vec<f64>,
}

impl LagrangeBasis {
    /// Equidistant nodes `A/p`.
    ///
    /// # Panics
    /// If `order == 0` (a continuous basis needs two nodes; callers validate input first).
    pub fn new(order: usize) -> Self {
        assert!(order >= 1, "Lagrange order must be at least 1");
        let nodes = (0..=order).map(|a| a as f64 / order as f64).collect();
        Self { order, nodes }
    }

    /// Lagrange basis on arbitrary distinct nodes in `[0, 1]` (order `nodes.len() − 1`; a single
    /// node gives the constant function 1). Used for the discontinuous test and multiplier
    /// spaces of the Petrov–Galerkin scheme.
    ///
    /// # Panics
    /// If `nodes` is empty.
    pub fn with_nodes(nodes: Vec<f64>) -> Self {
        assert!(
            !nodes.is_empty(),
            "a Lagrange basis needs at least one node"
        );
        Self {
            order: nodes.len() - 1,
            nodes,
        }
    }

    /// Polynomial order `p`.
    pub fn order(&self) -> usize {
        self.order
    }

    /// Number of nodes `p + 1`.
    pub fn n_nodes(&self) -> usize {
        self.order + 1
    }

    /// Reference node positions in `[0, 1]`.
    pub fn nodes(&self) -> &[f64] {
        &self.nodes
    }

    /// Values `N_A(τ)` and derivatives `dN_A/dτ` at `τ`, written into `n` and `dn` (length p+1).
    pub fn eval_into(&self, tau: f64, n: &mut [f64], dn: &mut [f64]) {
        let np = self.n_nodes();
        for a in 0..np {
            let mut val = 1.0;
            let mut der = 0.0;
            for b in 0..np {
                if b == a {
                    continue;
                }
                let denom = self.nodes[a] - self.nodes[b];
                // product rule: d/dτ Π (τ−τ_b)/(τ_a−τ_b)
                der = der * (tau - self.nodes[b]) / denom + val / denom;
                val *= (tau - self.nodes[b]) / denom;
            }
            n[a] = val;
            dn[a] = der;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_of_unity_and_kronecker_property() {
        for p in 1..=5 {
            let b = LagrangeBasis::new(p);
            let mut n = vec![0.0; p + 1];
            let mut dn = vec![0.0; p + 1];
            for k in 0..=20 {
                let tau = k as f64 / 20.0;
                b.eval_into(tau, &mut n, &mut dn);
                assert!((n.iter().sum::<f64>() - 1.0).abs() < 1e-13);
                assert!(dn.iter().sum::<f64>().abs() < 1e-11);
                // reproduces τ exactly: Σ N_A τ_A = τ, Σ dN_A τ_A = 1
                let t: f64 = n.iter().zip(b.nodes()).map(|(a, x)| a * x).sum();
                let dt: f64 = dn.iter().zip(b.nodes()).map(|(a, x)| a * x).sum();
                assert!((t - tau).abs() < 1e-13 && (dt - 1.0).abs() < 1e-11);
            }
            for (a, &x) in b.nodes().iter().enumerate() {
                b.eval_into(x, &mut n, &mut dn);
                for (c, v) in n.iter().enumerate() {
                    assert!((v - f64::from(u8::from(a == c))).abs() < 1e-13);
                }
            }
        }
    }

    #[test]
    fn derivative_matches_finite_difference() {
        let b = LagrangeBasis::new(3);
        let (mut n1, mut n2, mut n, mut dn, mut scratch) =
            ([0.0; 4], [0.0; 4], [0.0; 4], [0.0; 4], [0.0; 4]);
        let tau = 0.37;
        let eps = 1e-6;
        b.eval_into(tau + eps, &mut n1, &mut scratch);
        b.eval_into(tau - eps, &mut n2, &mut scratch);
        b.eval_into(tau, &mut n, &mut dn);
        for a in 0..4 {
            assert!(((n1[a] - n2[a]) / (2.0 * eps) - dn[a]).abs() < 1e-8);
        }
    }
}
