//! The director beam element: Lagrange interpolation of order 1 or 2 in `s` of the placement
//! and the three directors, frame-indifferent strains at Gauss points, stresses, forces,
//! tangent, consistent mass and loads (derivation in [`super`]).
//!
//! Local coordinates `q_loc` are the element nodes' 12 coordinates `(φ_a, d1_a, d2_a, d3_a)`
//! concatenated, `n_loc = 12 (p + 1)`. All per-point kernels are allocation-free; the caller
//! provides the output slices (row-major).

use super::section::Section;
use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::math::{Vec3, cross, dot};
use thiserror::Error;

/// Largest number of nodes of an element (order 2).
pub const MAX_NODES: usize = 3;
/// Largest number of strain quadrature points (order 2, full integration).
pub const MAX_POINTS: usize = 3;
/// Largest `n_loc` (order 2).
pub const MAX_NLOC: usize = 12 * MAX_NODES;
/// Gauss points of the mass and load integrals (exact for `N_a N_b` up to order 2 on a straight
/// reference: degree 4 ≤ 2·4 − 1).
const MASS_POINTS: usize = 4;

/// Cyclic index triples `(k, i, j)`: `K_k = ½ (d_j·d_i′ − d_i·d_j′)`.
const CYCLIC: [(usize, usize, usize); 3] = [(0, 1, 2), (1, 2, 0), (2, 0, 1)];

/// Quadrature rule of the strain energy in `s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Integration {
    /// `p` Gauss points for order `p`: uniformly reduced integration, free of shear and
    /// membrane locking, rank-sufficient (no spurious zero-energy modes). The default.
    #[default]
    Reduced,
    /// `p + 1` Gauss points: locks in shear for slender beams (kept for the locking tests).
    Full,
}

/// Invalid element data.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ElementError {
    /// Only orders 1 and 2 exist.
    #[error("element order must be 1 or 2, got {order}")]
    BadOrder {
        /// Requested order.
        order: usize,
    },
    /// The reference coordinates do not have `12 (order + 1)` entries.
    #[error("reference coordinates: expected {expected} values (12 per node), got {got}")]
    WrongLength {
        /// `12 (order + 1)`.
        expected: usize,
        /// Length given.
        got: usize,
    },
    /// A reference coordinate is NaN or infinite.
    #[error("reference coordinate {index} (node {node}) is not finite")]
    NonFinite {
        /// Element-local node.
        node: usize,
        /// Index in `q_loc`.
        index: usize,
    },
    /// Reference directors of a node are not orthonormal.
    #[error("reference frame of element node {node}: d{i}·d{j} = {value:.3e}, must be {} to 1e-8; orthonormalise the frame", if i == j { 1 } else { 0 })]
    NotOrthonormal {
        /// Element-local node.
        node: usize,
        /// First director (1-based).
        i: usize,
        /// Second director (1-based).
        j: usize,
        /// `d_i·d_j`.
        value: f64,
    },
    /// Reference frame of a node is left-handed.
    #[error(
        "reference frame of element node {node} is left-handed ((d1 × d2)·d3 = {det:.3}); use d3 = d1 × d2"
    )]
    LeftHanded {
        /// Element-local node.
        node: usize,
        /// `(d1 × d2)·d3`.
        det: f64,
    },
    /// The interpolated reference centreline has zero speed or folds back at some point.
    #[error(
        "degenerate reference geometry: |∂φ0/∂ξ| = {jacobian:.3e} at ξ = {xi:.3} (mean {mean:.3e}); nodes coincide or the middle node folds the element back"
    )]
    Degenerate {
        /// Reference coordinate in `[0, 1]`.
        xi: f64,
        /// `J(ξ)`.
        jacobian: f64,
        /// Mean `J` over the element.
        mean: f64,
    },
}

/// One director beam element with its stress-free reference and section law.
#[derive(Debug, Clone)]
pub struct DirectorBeamElement {
    order: usize,
    n_nodes: usize,
    n_points: usize,
    /// `N_a(ξ_g)`.
    shape: [[f64; MAX_NODES]; MAX_POINTS],
    /// `dN_a/ds (ξ_g) = (dN_a/dξ)/J(ξ_g)`.
    dshape: [[f64; MAX_NODES]; MAX_POINTS],
    /// Gauss weight × `J(ξ_g)` (m).
    weight: [f64; MAX_POINTS],
    /// Strains of the reference configuration at the points.
    pi0: [[f64; 6]; MAX_POINTS],
    /// `∫ N_a N_b ds` (m).
    mass_nn: [[f64; MAX_NODES]; MAX_NODES],
    /// `∫ N_a ds` (m).
    mass_n: [f64; MAX_NODES],
    section: Section,
}

impl DirectorBeamElement {
    /// Builds an element of `order` 1 or 2 from the stress-free reference coordinates
    /// (`12 (order + 1)` values, layout of `q_loc`; nodes equidistant in `ξ ∈ [0, 1]`, the
    /// middle node of order 2 at `ξ = ½`).
    ///
    /// The reference directors must be orthonormal (to 1e-8) and right-handed; `J(ξ) > 0`.
    pub fn new(
        order: usize,
        reference: &[f64],
        section: Section,
        integration: Integration,
    ) -> Result<Self, ElementError> {
        if !(1..=2).contains(&order) {
            return Err(ElementError::BadOrder { order });
        }
        let n_nodes = order + 1;
        let n_loc = 12 * n_nodes;
        if reference.len() != n_loc {
            return Err(ElementError::WrongLength {
                expected: n_loc,
                got: reference.len(),
            });
        }
        if let Some(index) = reference.iter().position(|x| !x.is_finite()) {
            return Err(ElementError::NonFinite {
                node: index / 12,
                index,
            });
        }
        for node in 0..n_nodes {
            let d = |i: usize| -> Vec3 {
                let o = 12 * node + 3 + 3 * i;
                [reference[o], reference[o + 1], reference[o + 2]]
            };
            for i in 0..3 {
                for j in i..3 {
                    let value = dot(&d(i), &d(j));
                    let want = if i == j { 1.0 } else { 0.0 };
                    if (value - want).abs() > 1e-8 {
                        return Err(ElementError::NotOrthonormal {
                            node,
                            i: i + 1,
                            j: j + 1,
                            value,
                        });
                    }
                }
            }
            let det = dot(&cross(&d(0), &d(1)), &d(2));
            if det <= 0.0 {
                return Err(ElementError::LeftHanded { node, det });
            }
        }

        let basis = LagrangeBasis::new(order);
        // Geometry check on a fine sampling of ξ: J > 0 and the tangent ∂φ0/∂ξ never reverses
        // between samples (a middle node beyond an end node folds the element back).
        let (mut n, mut dn) = ([0.0; MAX_NODES], [0.0; MAX_NODES]);
        let tangent = |xi: f64, n: &mut [f64; MAX_NODES], dn: &mut [f64; MAX_NODES]| -> Vec3 {
            basis.eval_into(xi, &mut n[..n_nodes], &mut dn[..n_nodes]);
            let mut t = [0.0; 3];
            for a in 0..n_nodes {
                for c in 0..3 {
                    t[c] += dn[a] * reference[12 * a + c];
                }
            }
            t
        };
        const SAMPLES: usize = 40;
        let samples: Vec<(f64, Vec3)> = (0..=SAMPLES)
            .map(|k| {
                let xi = k as f64 / SAMPLES as f64;
                (xi, tangent(xi, &mut n, &mut dn))
            })
            .collect();
        let mean =
            samples.iter().map(|s| dot(&s.1, &s.1).sqrt()).sum::<f64>() / samples.len() as f64;
        for (k, (xi, t)) in samples.iter().enumerate() {
            let jacobian = dot(t, t).sqrt();
            let reversed = k > 0 && dot(t, &samples[k - 1].1) <= 0.0;
            if jacobian.is_nan() || jacobian <= 1e-8 * mean || reversed {
                return Err(ElementError::Degenerate {
                    xi: *xi,
                    jacobian,
                    mean,
                });
            }
        }

        let n_points = match integration {
            Integration::Reduced => order,
            Integration::Full => order + 1,
        };
        let rule = GaussLegendre::new(n_points);
        let mut el = Self {
            order,
            n_nodes,
            n_points,
            shape: [[0.0; MAX_NODES]; MAX_POINTS],
            dshape: [[0.0; MAX_NODES]; MAX_POINTS],
            weight: [0.0; MAX_POINTS],
            pi0: [[0.0; 6]; MAX_POINTS],
            mass_nn: [[0.0; MAX_NODES]; MAX_NODES],
            mass_n: [0.0; MAX_NODES],
            section,
        };
        for g in 0..n_points {
            let t = tangent(rule.points[g], &mut n, &mut dn);
            let j = dot(&t, &t).sqrt();
            el.weight[g] = rule.weights[g] * j;
            for a in 0..n_nodes {
                el.shape[g][a] = n[a];
                el.dshape[g][a] = dn[a] / j;
            }
        }
        for g in 0..n_points {
            let mut pi0 = [0.0; 6];
            el.raw_strains(g, reference, &mut pi0);
            el.pi0[g] = pi0;
        }
        let mrule = GaussLegendre::new(MASS_POINTS);
        for g in 0..MASS_POINTS {
            let t = tangent(mrule.points[g], &mut n, &mut dn);
            let w = mrule.weights[g] * dot(&t, &t).sqrt();
            for a in 0..n_nodes {
                el.mass_n[a] += w * n[a];
                for b in 0..n_nodes {
                    el.mass_nn[a][b] += w * n[a] * n[b];
                }
            }
        }
        Ok(el)
    }

    /// Polynomial order `p` in `s`.
    pub fn order(&self) -> usize {
        self.order
    }

    /// Number of nodes `p + 1`.
    pub fn n_nodes(&self) -> usize {
        self.n_nodes
    }

    /// Number of local coordinates `12 (p + 1)`.
    pub fn n_loc(&self) -> usize {
        12 * self.n_nodes
    }

    /// Number of strain quadrature points.
    pub fn n_points(&self) -> usize {
        self.n_points
    }

    /// Quadrature weight of point `g` in arc length, Gauss weight × `J(ξ_g)` (m);
    /// `Σ_g weight(g)` is the length of the interpolated reference.
    #[inline]
    pub fn weight(&self, g: usize) -> f64 {
        self.weight[g]
    }

    /// Length of the interpolated reference by the strain rule, `Σ_g weight(g)` (m).
    pub fn length(&self) -> f64 {
        self.weight[..self.n_points].iter().sum()
    }

    /// Shape function values `N_a(ξ_g)` and arc-length derivatives `N_a′(ξ_g)` (1/m).
    #[inline]
    pub fn shape(&self, g: usize) -> (&[f64], &[f64]) {
        (
            &self.shape[g][..self.n_nodes],
            &self.dshape[g][..self.n_nodes],
        )
    }

    /// The strains `π0` of the reference configuration at point `g` (subtracted by
    /// [`Self::strains_into`]).
    pub fn reference_strains(&self, g: usize) -> &[f64; 6] {
        &self.pi0[g]
    }

    /// The section law.
    pub fn section(&self) -> &Section {
        &self.section
    }

    /// Interpolated `φ′`, `d_i`, `d_i′` at point `g`.
    #[inline]
    fn interpolate(&self, g: usize, q: &[f64]) -> (Vec3, [Vec3; 3], [Vec3; 3]) {
        let (n, dn) = (&self.shape[g], &self.dshape[g]);
        let mut phi_p = [0.0; 3];
        let mut d = [[0.0; 3]; 3];
        let mut dp = [[0.0; 3]; 3];
        for a in 0..self.n_nodes {
            let o = 12 * a;
            for c in 0..3 {
                phi_p[c] += dn[a] * q[o + c];
                for i in 0..3 {
                    d[i][c] += n[a] * q[o + 3 + 3 * i + c];
                    dp[i][c] += dn[a] * q[o + 3 + 3 * i + c];
                }
            }
        }
        (phi_p, d, dp)
    }

    /// Strains without the reference subtracted.
    #[inline]
    fn raw_strains(&self, g: usize, q: &[f64], pi: &mut [f64; 6]) {
        let (phi_p, d, dp) = self.interpolate(g, q);
        for i in 0..3 {
            pi[i] = dot(&d[i], &phi_p);
        }
        for &(k, i, j) in &CYCLIC {
            pi[3 + k] = 0.5 * (dot(&d[j], &dp[i]) - dot(&d[i], &dp[j]));
        }
    }

    /// Strains `π − π0` at point `g` and optionally `B = ∂π/∂q_loc` (row-major `6 × n_loc`,
    /// overwritten):
    ///
    /// ```text
    /// Γ_i = d_i·φ′:                 ∂Γ_i/∂φ_a = N_a′ d_i,      ∂Γ_i/∂d_i,a = N_a φ′,
    /// K_k = ½(d_j·d_i′ − d_i·d_j′):  ∂K_k/∂d_j,a = ½(N_a d_i′ − N_a′ d_i),
    ///                               ∂K_k/∂d_i,a = ½(N_a′ d_j − N_a d_j′),   (k, i, j) cyclic.
    /// ```
    #[inline]
    pub fn strains_into(&self, g: usize, q_loc: &[f64], pi: &mut [f64; 6], b: Option<&mut [f64]>) {
        debug_assert_eq!(q_loc.len(), self.n_loc());
        let (phi_p, d, dp) = self.interpolate(g, q_loc);
        for i in 0..3 {
            pi[i] = dot(&d[i], &phi_p) - self.pi0[g][i];
        }
        for &(k, i, j) in &CYCLIC {
            pi[3 + k] = 0.5 * (dot(&d[j], &dp[i]) - dot(&d[i], &dp[j])) - self.pi0[g][3 + k];
        }
        let Some(b) = b else { return };
        let nl = self.n_loc();
        debug_assert!(b.len() >= 6 * nl);
        b[..6 * nl].fill(0.0);
        let (n, dn) = (&self.shape[g], &self.dshape[g]);
        for a in 0..self.n_nodes {
            let o = 12 * a;
            for i in 0..3 {
                let row = &mut b[i * nl..(i + 1) * nl];
                for c in 0..3 {
                    row[o + c] = dn[a] * d[i][c];
                    row[o + 3 + 3 * i + c] = n[a] * phi_p[c];
                }
            }
            for &(k, i, j) in &CYCLIC {
                let row = &mut b[(3 + k) * nl..(4 + k) * nl];
                for c in 0..3 {
                    row[o + 3 + 3 * j + c] = 0.5 * (n[a] * dp[i][c] - dn[a] * d[i][c]);
                    row[o + 3 + 3 * i + c] = 0.5 * (dn[a] * d[j][c] - n[a] * dp[j][c]);
                }
            }
        }
    }

    /// `h += scale · Σ_k s_k ∂²π_k/∂q_loc²` (row-major `n_loc × n_loc`), independent of `q`:
    ///
    /// ```text
    /// ∂²Γ_i/∂d_i,a ∂φ_b = N_a N_b′ I₃,   ∂²K_k/∂d_j,a ∂d_i,b = ½ (N_a N_b′ − N_a′ N_b) I₃   (+ transposes).
    /// ```
    #[inline]
    pub fn add_stress_hessian(&self, g: usize, s: &[f64; 6], scale: f64, h: &mut [f64]) {
        let nl = self.n_loc();
        debug_assert!(h.len() >= nl * nl);
        let (n, dn) = (&self.shape[g], &self.dshape[g]);
        for a in 0..self.n_nodes {
            for bb in 0..self.n_nodes {
                let (oa, ob) = (12 * a, 12 * bb);
                for i in 0..3 {
                    let v = scale * s[i] * n[a] * dn[bb];
                    let (r, c) = (oa + 3 + 3 * i, ob);
                    for m in 0..3 {
                        h[(r + m) * nl + c + m] += v;
                        h[(c + m) * nl + r + m] += v;
                    }
                }
                for &(k, i, j) in &CYCLIC {
                    let v = scale * s[3 + k] * 0.5 * (n[a] * dn[bb] - dn[a] * n[bb]);
                    let (r, c) = (oa + 3 + 3 * j, ob + 3 + 3 * i);
                    for m in 0..3 {
                        h[(r + m) * nl + c + m] += v;
                        h[(c + m) * nl + r + m] += v;
                    }
                }
            }
        }
    }

    /// Stored energy `Σ_g weight · ½ πᵀ C π` (J).
    pub fn energy(&self, q_loc: &[f64]) -> f64 {
        let mut pi = [0.0; 6];
        (0..self.n_points)
            .map(|g| {
                self.strains_into(g, q_loc, &mut pi, None);
                self.weight[g] * self.section.energy_density(&pi)
            })
            .sum()
    }

    /// Internal force `f = Σ_g weight · Bᵀ C π` (N for `φ`, N·m for the directors), overwritten.
    pub fn internal_force_into(&self, q_loc: &[f64], f: &mut [f64]) {
        let nl = self.n_loc();
        let mut b = [0.0; 6 * MAX_NLOC];
        let mut pi = [0.0; 6];
        f[..nl].fill(0.0);
        for g in 0..self.n_points {
            self.strains_into(g, q_loc, &mut pi, Some(&mut b));
            let s = self.section.elastic_stress(&pi);
            add_bt_s(&b, nl, &s, self.weight[g], f);
        }
    }

    /// Viscous force `Σ_g weight · Bᵀ V B q̇` for the local velocities `v_loc`, overwritten.
    pub fn viscous_force_into(&self, q_loc: &[f64], v_loc: &[f64], f: &mut [f64]) {
        let nl = self.n_loc();
        let mut b = [0.0; 6 * MAX_NLOC];
        let mut pi = [0.0; 6];
        f[..nl].fill(0.0);
        for g in 0..self.n_points {
            self.strains_into(g, q_loc, &mut pi, Some(&mut b));
            let mut rate = [0.0; 6];
            for k in 0..6 {
                rate[k] = (0..nl).map(|c| b[k * nl + c] * v_loc[c]).sum();
            }
            let s = self.section.stress(&[0.0; 6], &rate);
            add_bt_s(&b, nl, &s, self.weight[g], f);
        }
    }

    /// Tangent stiffness `Σ_g weight (Bᵀ C B + Σ_k s_k ∂²π_k/∂q²)` (row-major, overwritten).
    pub fn tangent_into(&self, q_loc: &[f64], k: &mut [f64]) {
        let nl = self.n_loc();
        let mut b = [0.0; 6 * MAX_NLOC];
        let mut cb = [0.0; 6 * MAX_NLOC];
        let mut pi = [0.0; 6];
        let c = self.section.stiffness();
        k[..nl * nl].fill(0.0);
        for g in 0..self.n_points {
            self.strains_into(g, q_loc, &mut pi, Some(&mut b));
            let w = self.weight[g];
            for r in 0..6 {
                for col in 0..nl {
                    cb[r * nl + col] = w * (0..6).map(|m| c[r][m] * b[m * nl + col]).sum::<f64>();
                }
            }
            for row in 0..nl {
                for m in 0..6 {
                    let bm = b[m * nl + row];
                    if bm == 0.0 {
                        continue;
                    }
                    let krow = &mut k[row * nl..(row + 1) * nl];
                    let cbm = &cb[m * nl..(m + 1) * nl];
                    for col in 0..nl {
                        krow[col] += bm * cbm[col];
                    }
                }
            }
            let s = self.section.elastic_stress(&pi);
            self.add_stress_hessian(g, &s, w, k);
        }
    }

    /// `∫ N_a N_b ds` (m), the scalar consistent-mass coefficients.
    pub fn shape_products(&self) -> [[f64; MAX_NODES]; MAX_NODES] {
        self.mass_nn
    }

    /// Consistent mass matrix `∫ N_a N_b ds ⊗ diag-blocks(ρA; E_αβ on (d1, d2); 0 for d3) ⊗ I₃`
    /// (row-major `n_loc × n_loc`, overwritten). Singular: `d3` carries no inertia.
    pub fn mass_matrix_into(&self, m: &mut [f64]) {
        let nl = self.n_loc();
        m[..nl * nl].fill(0.0);
        let e = self.section.euler_tensor();
        let m4 = [
            [self.section.rho_a(), 0.0, 0.0, 0.0],
            [0.0, e[0][0], e[0][1], 0.0],
            [0.0, e[1][0], e[1][1], 0.0],
            [0.0, 0.0, 0.0, 0.0],
        ];
        for a in 0..self.n_nodes {
            for b in 0..self.n_nodes {
                for x in 0..4 {
                    for y in 0..4 {
                        let v = self.mass_nn[a][b] * m4[x][y];
                        if v == 0.0 {
                            continue;
                        }
                        for c in 0..3 {
                            m[(12 * a + 3 * x + c) * nl + 12 * b + 3 * y + c] = v;
                        }
                    }
                }
            }
        }
    }

    /// Consistent nodal loads of a constant distributed force `b` per unit reference length
    /// (N/m): `f_φa = ∫ N_a ds · b`, zero on the directors (overwritten).
    pub fn distributed_force_into(&self, b: &Vec3, f: &mut [f64]) {
        let nl = self.n_loc();
        f[..nl].fill(0.0);
        for a in 0..self.n_nodes {
            for c in 0..3 {
                f[12 * a + c] = self.mass_n[a] * b[c];
            }
        }
    }
}

/// `f += w Bᵀ s`.
#[inline]
fn add_bt_s(b: &[f64], nl: usize, s: &[f64; 6], w: f64, f: &mut [f64]) {
    for k in 0..6 {
        let ws = w * s[k];
        if ws == 0.0 {
            continue;
        }
        for c in 0..nl {
            f[c] += ws * b[k * nl + c];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reference::{ConstantCurvature, rotate};
    use super::super::section::{DiagonalStiffness, SectionInertia};
    use super::*;
    use faer::{Mat, Side};

    /// Deterministic pseudo-random numbers in `[-1, 1)` (tests only).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        }
    }

    fn section() -> Section {
        // Coupled full matrix (diagonal + small couplings) so every entry of C is exercised.
        let mut c = [[0.0; 6]; 6];
        let diag = [40.0, 30.0, 100.0, 2.0, 3.0, 1.5];
        for i in 0..6 {
            c[i][i] = diag[i];
        }
        c[0][4] = 0.5;
        c[4][0] = 0.5;
        c[2][3] = -0.7;
        c[3][2] = -0.7;
        c[1][5] = 0.2;
        c[5][1] = 0.2;
        Section::from_matrix(
            c,
            SectionInertia {
                rho_a: 2.0,
                euler_tensor: [[0.3, 0.05], [0.05, 0.1]],
            },
        )
        .unwrap()
    }

    fn diag_section() -> Section {
        Section::from_diagonal(
            DiagonalStiffness {
                ea: 100.0,
                ga1: 40.0,
                ga2: 30.0,
                ei1: 2.0,
                ei2: 3.0,
                gj: 1.5,
            },
            SectionInertia {
                rho_a: 2.0,
                euler_tensor: [[0.3, 0.0], [0.0, 0.1]],
            },
        )
        .unwrap()
    }

    fn unit(v: Vec3) -> Vec3 {
        let n = dot(&v, &v).sqrt();
        [v[0] / n, v[1] / n, v[2] / n]
    }

    fn tilted_frame() -> [Vec3; 3] {
        let ax = unit([0.2, 0.9, -0.4]);
        [0, 1, 2].map(|i| {
            let mut e = [0.0; 3];
            e[i] = 1.0;
            rotate(&ax, 1.1, &e)
        })
    }

    /// Reference curves: straight, arc, helix (element of length `h` starting at `s0`).
    fn curves() -> [ConstantCurvature; 3] {
        let f = tilted_frame();
        [
            ConstantCurvature::straight([0.1, 0.2, 0.3], f),
            ConstantCurvature {
                origin: [0.0; 3],
                frame: f,
                curvature: [0.0, 1.3, 0.0],
            },
            ConstantCurvature {
                origin: [1.0, -1.0, 0.5],
                frame: f,
                curvature: [0.6, -0.4, 0.9],
            },
        ]
    }

    fn reference_q(curve: &ConstantCurvature, order: usize, s0: f64, h: f64) -> Vec<f64> {
        (0..=order)
            .flat_map(|a| curve.at(s0 + h * a as f64 / order as f64))
            .collect()
    }

    fn elements() -> Vec<DirectorBeamElement> {
        let mut out = Vec::new();
        for curve in curves() {
            for order in [1, 2] {
                for integ in [Integration::Reduced, Integration::Full] {
                    let q0 = reference_q(&curve, order, 0.2, 0.7);
                    out.push(DirectorBeamElement::new(order, &q0, section(), integ).unwrap());
                }
            }
        }
        out
    }

    /// A non-orthonormal, deformed configuration: reference + random perturbation.
    fn perturbed(el: &DirectorBeamElement, rng: &mut Lcg, amp: f64) -> Vec<f64> {
        let curve = ConstantCurvature {
            origin: [0.3, 0.1, -0.2],
            frame: tilted_frame(),
            curvature: [0.4, 0.2, -0.3],
        };
        let q = reference_q(&curve, el.order(), 0.0, 0.9);
        q.iter().map(|x| x + amp * rng.next()).collect()
    }

    #[test]
    fn b_matches_finite_differences() {
        let mut rng = Lcg(1);
        for el in elements() {
            let nl = el.n_loc();
            let q = perturbed(&el, &mut rng, 0.2);
            for g in 0..el.n_points() {
                let mut pi = [0.0; 6];
                let mut b = vec![0.0; 6 * nl];
                el.strains_into(g, &q, &mut pi, Some(&mut b));
                for c in 0..nl {
                    let h = 1e-6;
                    let (mut qp, mut qm) = (q.clone(), q.clone());
                    qp[c] += h;
                    qm[c] -= h;
                    let (mut pp, mut pm) = ([0.0; 6], [0.0; 6]);
                    el.strains_into(g, &qp, &mut pp, None);
                    el.strains_into(g, &qm, &mut pm, None);
                    for k in 0..6 {
                        // π is quadratic: central differences are exact up to round-off.
                        let fd = (pp[k] - pm[k]) / (2.0 * h);
                        assert!(
                            (fd - b[k * nl + c]).abs() < 1e-8 * (1.0 + fd.abs()),
                            "B[{k}][{c}] = {} vs FD {fd}",
                            b[k * nl + c]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn stress_hessian_matches_finite_differences_of_b() {
        let mut rng = Lcg(2);
        for el in elements() {
            let nl = el.n_loc();
            let q = perturbed(&el, &mut rng, 0.2);
            let s = [0.3, -1.2, 0.7, 2.0, -0.4, 1.1];
            for g in 0..el.n_points() {
                let mut h = vec![0.0; nl * nl];
                el.add_stress_hessian(g, &s, 0.5, &mut h);
                let sb = |q: &[f64]| -> Vec<f64> {
                    let mut b = vec![0.0; 6 * nl];
                    el.strains_into(g, q, &mut [0.0; 6], Some(&mut b));
                    (0..nl)
                        .map(|c| (0..6).map(|k| s[k] * b[k * nl + c]).sum())
                        .collect()
                };
                for c in 0..nl {
                    let d = 1e-3; // B is linear in q: any step is exact
                    let (mut qp, mut qm) = (q.clone(), q.clone());
                    qp[c] += d;
                    qm[c] -= d;
                    let (fp, fm) = (sb(&qp), sb(&qm));
                    for r in 0..nl {
                        let fd = 0.5 * (fp[r] - fm[r]) / (2.0 * d);
                        assert!((fd - h[r * nl + c]).abs() < 1e-11, "H[{r}][{c}]");
                        assert_eq!(h[r * nl + c], h[c * nl + r], "symmetric");
                    }
                }
            }
        }
    }

    #[test]
    fn force_is_energy_gradient_and_tangent_is_force_jacobian() {
        let mut rng = Lcg(3);
        for el in elements() {
            let nl = el.n_loc();
            let q = perturbed(&el, &mut rng, 0.15);
            let mut f = vec![0.0; nl];
            let mut k = vec![0.0; nl * nl];
            el.internal_force_into(&q, &mut f);
            el.tangent_into(&q, &mut k);
            let fscale = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let kscale = k.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for c in 0..nl {
                let h = 1e-6;
                let (mut qp, mut qm) = (q.clone(), q.clone());
                qp[c] += h;
                qm[c] -= h;
                let fd_e = (el.energy(&qp) - el.energy(&qm)) / (2.0 * h);
                assert!(
                    (fd_e - f[c]).abs() < 1e-7 * fscale,
                    "f[{c}] {} vs {fd_e}",
                    f[c]
                );
                let (mut fp, mut fm) = (vec![0.0; nl], vec![0.0; nl]);
                el.internal_force_into(&qp, &mut fp);
                el.internal_force_into(&qm, &mut fm);
                for r in 0..nl {
                    let fd = (fp[r] - fm[r]) / (2.0 * h);
                    assert!((fd - k[r * nl + c]).abs() < 1e-7 * kscale, "K[{r}][{c}]");
                    assert!((k[r * nl + c] - k[c * nl + r]).abs() < 1e-12 * kscale);
                }
            }
        }
    }

    #[test]
    fn viscous_force_is_b_transpose_v_b_qdot() {
        let el = DirectorBeamElement::new(
            2,
            &reference_q(&curves()[2], 2, 0.0, 0.5),
            diag_section().with_kelvin_voigt(0.01, 0.002).unwrap(),
            Integration::Reduced,
        )
        .unwrap();
        let mut rng = Lcg(9);
        let q = perturbed(&el, &mut rng, 0.1);
        let v: Vec<f64> = (0..36).map(|_| rng.next()).collect();
        // Dissipated power qdotᵀ f_v = Σ weight π̇ᵀ V π̇ with π̇ = B q̇ (FD in time).
        let mut fv = vec![0.0; 36];
        el.viscous_force_into(&q, &v, &mut fv);
        let power: f64 = (0..36).map(|c| fv[c] * v[c]).sum();
        let dt = 1e-6;
        let mut want = 0.0;
        for g in 0..el.n_points() {
            let qp: Vec<f64> = (0..36).map(|c| q[c] + dt * v[c]).collect();
            let qm: Vec<f64> = (0..36).map(|c| q[c] - dt * v[c]).collect();
            let (mut pp, mut pm) = ([0.0; 6], [0.0; 6]);
            el.strains_into(g, &qp, &mut pp, None);
            el.strains_into(g, &qm, &mut pm, None);
            let rate = [0, 1, 2, 3, 4, 5].map(|k| (pp[k] - pm[k]) / (2.0 * dt));
            want += el.weight(g) * el.section().dissipation_density(&rate);
        }
        assert!(
            power > 0.0 && (power - want).abs() < 1e-7 * want,
            "{power} vs {want}"
        );
    }

    /// Rotates and translates every node: `φ ↦ Rφ + c`, `d_i ↦ R d_i`.
    fn rigid(q: &[f64], axis: &Vec3, angle: f64, c: &Vec3) -> Vec<f64> {
        let mut out = q.to_vec();
        for node in 0..q.len() / 12 {
            for v in 0..4 {
                let o = 12 * node + 3 * v;
                let r = rotate(axis, angle, &[q[o], q[o + 1], q[o + 2]]);
                for m in 0..3 {
                    out[o + m] = r[m] + if v == 0 { c[m] } else { 0.0 };
                }
            }
        }
        out
    }

    #[test]
    fn objectivity_strains_invariant_and_force_balanced() {
        let mut rng = Lcg(4);
        let axis = unit([0.5, -0.3, 0.8]);
        for el in elements() {
            let nl = el.n_loc();
            let q = perturbed(&el, &mut rng, 0.2);
            let moved = rigid(&q, &axis, 2.3, &[4.0, -1.0, 2.5]);
            for g in 0..el.n_points() {
                let (mut p1, mut p2) = ([0.0; 6], [0.0; 6]);
                el.strains_into(g, &q, &mut p1, None);
                el.strains_into(g, &moved, &mut p2, None);
                for k in 0..6 {
                    assert!((p1[k] - p2[k]).abs() < 1e-13, "π_{k} not invariant");
                }
            }
            // Balance of the internal force at an arbitrary (non-orthonormal) configuration.
            let mut f = vec![0.0; nl];
            el.internal_force_into(&q, &mut f);
            let scale = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let (mut force, mut moment) = ([0.0; 3], [0.0; 3]);
            for node in 0..el.n_nodes() {
                for v in 0..4 {
                    let o = 12 * node + 3 * v;
                    let x = [q[o], q[o + 1], q[o + 2]];
                    let fv = [f[o], f[o + 1], f[o + 2]];
                    let m = cross(&x, &fv);
                    for c in 0..3 {
                        moment[c] += m[c];
                        if v == 0 {
                            force[c] += fv[c];
                        }
                    }
                }
            }
            for c in 0..3 {
                assert!(force[c].abs() < 1e-13 * scale, "Σ f_φ = {force:?}");
                assert!(
                    moment[c].abs() < 1e-13 * scale * 10.0,
                    "moment = {moment:?}"
                );
            }
        }
    }

    #[test]
    fn reference_is_stress_free_and_rigid_motions_are_strain_free() {
        let axis = unit([-0.1, 0.7, 0.2]);
        for el in elements() {
            // Rebuild the reference from the element's own data: it is curves()[..] at 0.2..0.9.
            for curve in curves() {
                let q0 = reference_q(&curve, el.order(), 0.2, 0.7);
                let e =
                    DirectorBeamElement::new(el.order(), &q0, diag_section(), Integration::Reduced)
                        .unwrap();
                for q in [q0.clone(), rigid(&q0, &axis, -2.0, &[1.0, 2.0, 3.0])] {
                    for g in 0..e.n_points() {
                        let mut pi = [0.0; 6];
                        e.strains_into(g, &q, &mut pi, None);
                        assert!(pi.iter().all(|x| x.abs() < 1e-13), "{pi:?}");
                    }
                    let mut f = vec![0.0; e.n_loc()];
                    e.internal_force_into(&q, &mut f);
                    assert!(f.iter().all(|x| x.abs() < 1e-11));
                    assert!(e.energy(&q).abs() < 1e-25);
                }
            }
        }
    }

    /// Max over the points of `|π_h − π_exact|` for nodes on a constant-curvature curve of
    /// material curvature `kappa` (orthonormal exact frames at the nodes, straight reference).
    fn curvature_error(order: usize, h: f64, kappa: Vec3) -> (f64, f64) {
        let f = tilted_frame();
        let straight = ConstantCurvature::straight([0.0; 3], f);
        let bent = ConstantCurvature {
            origin: [0.5, 0.5, 0.5],
            frame: f,
            curvature: kappa,
        };
        let el = DirectorBeamElement::new(
            order,
            &reference_q(&straight, order, 0.0, h),
            diag_section(),
            Integration::Reduced,
        )
        .unwrap();
        let q = reference_q(&bent, order, 0.3, h);
        let (mut ek, mut eg) = (0.0f64, 0.0f64);
        for g in 0..el.n_points() {
            let mut pi = [0.0; 6];
            el.strains_into(g, &q, &mut pi, None);
            for k in 0..3 {
                ek = ek.max((pi[3 + k] - kappa[k]).abs());
                eg = eg.max(pi[k].abs());
            }
        }
        (ek, eg)
    }

    #[test]
    fn constant_curvature_is_reproduced_to_discretisation_order() {
        let kappa = [0.8, -0.5, 1.2];
        // Order 1: 2 in both; order 2: 4 in the curvatures, 3 in Γ (measured: 4.00 and 3.02).
        for (order, min_k, min_g) in [(1, 1.95, 1.95), (2, 3.9, 2.9)] {
            let mut prev: Option<(f64, f64)> = None;
            for h in [0.4, 0.2, 0.1, 0.05] {
                let (ek, eg) = curvature_error(order, h, kappa);
                eprintln!("order {order}, h = {h}: |K − κ| = {ek:.3e}, |Γ − Γ0| = {eg:.3e}");
                if let Some((pk, pg)) = prev {
                    let rk = (pk / ek).log2();
                    let rg = (pg / eg).log2();
                    eprintln!("   rates {rk:.2} {rg:.2}");
                    assert!(rk > min_k, "curvature rate {rk}");
                    assert!(rg > min_g, "stretch/shear rate {rg}");
                }
                prev = Some((ek, eg));
            }
            // Exact discrete value for order 1: the nodal frames are Λ_m exp(±(h/2) κ̂), so at
            // the midpoint d_i,h = C e_i, d_i′ = S e_i (mid-frame components) with
            // C = I + (1 − cos(θ/2)) n̂², S = (2 sin(θ/2)/h) n̂, θ = |κ|h, n = κ/|κ|; CᵀS =
            // (sin θ/h) n̂ gives K = κ sin θ/θ exactly (relative error θ²/6).
            if order == 1 {
                for h in [0.4, 0.05] {
                    let (ek, _) = curvature_error(1, h, kappa);
                    let theta = dot(&kappa, &kappa).sqrt() * h;
                    let kmax = kappa.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                    let want = kmax * (1.0 - theta.sin() / theta);
                    assert!((ek - want).abs() < 1e-12, "{ek} vs {want}");
                }
            }
        }
    }

    /// Projection of the element stiffness onto the tangent space of the orthonormality
    /// manifold (`δφ_a = u`, `δd_i,a = w × d_i,a` per node): exactly 6 zero eigenvalues (rigid
    /// body), all others positive, so no spurious zero-energy mode (the assembled, loaded case
    /// is in `tests/director_beam_statics.rs`, `clamped_beam_has_no_zero_energy_modes`).
    #[test]
    fn no_spurious_zero_energy_modes() {
        for curve in curves() {
            for order in [1, 2] {
                for integ in [Integration::Reduced, Integration::Full] {
                    let q0 = reference_q(&curve, order, 0.0, 0.5);
                    let el = DirectorBeamElement::new(order, &q0, diag_section(), integ).unwrap();
                    let nl = el.n_loc();
                    let nn = el.n_nodes();
                    let mut k = vec![0.0; nl * nl];
                    el.tangent_into(&q0, &mut k);
                    let nz = 6 * nn;
                    let z = Mat::<f64>::from_fn(nl, nz, |r, c| {
                        let (node, m) = (c / 6, c % 6);
                        if r / 12 != node {
                            return 0.0;
                        }
                        let l = r % 12;
                        if m < 3 {
                            return if l == m { 1.0 } else { 0.0 };
                        }
                        if l < 3 {
                            return 0.0;
                        }
                        let i = (l - 3) / 3;
                        let o = 12 * node + 3 + 3 * i;
                        let d = [q0[o], q0[o + 1], q0[o + 2]];
                        let mut e = [0.0; 3];
                        e[m - 3] = 1.0;
                        cross(&e, &d)[(l - 3) % 3]
                    });
                    let km = Mat::<f64>::from_fn(nl, nl, |r, c| k[r * nl + c]);
                    let kr = z.transpose() * &km * &z;
                    let ev = kr.self_adjoint_eigenvalues(Side::Lower).unwrap();
                    let max = ev.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                    let zero = ev.iter().filter(|x| x.abs() < 1e-10 * max).count();
                    let neg = ev.iter().filter(|&&x| x < -1e-10 * max).count();
                    let min_pos = ev
                        .iter()
                        .filter(|&&x| x > 1e-10 * max)
                        .fold(f64::MAX, |m, &x| m.min(x));
                    eprintln!(
                        "order {order} {integ:?}: {} modes, {zero} zero, min/max positive {:.2e}",
                        ev.len(),
                        min_pos / max
                    );
                    assert_eq!(zero, 6, "rigid-body modes only: {ev:?}");
                    assert_eq!(neg, 0);
                    // Smallest deformation mode is a physical one (torsion/bending of
                    // GJ/h, EI/h), not a near-singular hourglass: ≥ 1e-4 of the largest (EA/h).
                    assert!(min_pos / max > 1e-4, "{ev:?}");
                }
            }
        }
    }

    #[test]
    fn mass_matrix_and_distributed_load() {
        let sec = diag_section();
        let (ra, e11, e22) = (2.0, 0.3, 0.1);
        let l = 0.8;
        let w = 1.7;
        for order in [1, 2] {
            let f = tilted_frame();
            let q0 = reference_q(&ConstantCurvature::straight([0.0; 3], f), order, 0.0, l);
            let el = DirectorBeamElement::new(order, &q0, sec, Integration::Reduced).unwrap();
            let nl = el.n_loc();
            let mut m = vec![0.0; nl * nl];
            el.mass_matrix_into(&mut m);
            let kinetic = |v: &[f64]| -> f64 {
                0.5 * (0..nl)
                    .map(|r| (0..nl).map(|c| v[r] * m[r * nl + c] * v[c]).sum::<f64>())
                    .sum::<f64>()
            };
            // Rigid velocity field v(x) = u + ω × x, ḋ_i = ω × d_i.
            let rigid_velocity = |u: Vec3, omega: Vec3| -> Vec<f64> {
                let mut v = vec![0.0; nl];
                for node in 0..el.n_nodes() {
                    for k in 0..4 {
                        let o = 12 * node + 3 * k;
                        let x = [q0[o], q0[o + 1], q0[o + 2]];
                        let r = cross(&omega, &x);
                        for c in 0..3 {
                            v[o + c] = r[c] + if k == 0 { u[c] } else { 0.0 };
                        }
                    }
                }
                v
            };
            let t = kinetic(&rigid_velocity([1.0, -2.0, 0.5], [0.0; 3]));
            assert!((t - 0.5 * ra * l * 5.25).abs() < 1e-13, "translation {t}");
            // Spin about the own axis d3 (through the origin): ½ ω² (E11 + E22) L.
            let d = |i: usize| [q0[3 + 3 * i], q0[4 + 3 * i], q0[5 + 3 * i]];
            let d3 = d(2);
            let t = kinetic(&rigid_velocity([0.0; 3], [w * d3[0], w * d3[1], w * d3[2]]));
            assert!(
                (t - 0.5 * w * w * (e11 + e22) * l).abs() < 1e-13,
                "spin {t}"
            );
            // Rotation about d1 through the root: ½ ω² (ρA L³/3 + E22 L).
            let d1 = d(0);
            let t = kinetic(&rigid_velocity([0.0; 3], [w * d1[0], w * d1[1], w * d1[2]]));
            let want = 0.5 * w * w * (ra * l * l * l / 3.0 + e22 * l);
            assert!((t - want).abs() < 1e-13, "bending rotation {t} vs {want}");
            // d3 carries no inertia.
            assert!((0..nl).all(|c| m[9 * nl + c] == 0.0));
            let mut fl = vec![0.0; nl];
            el.distributed_force_into(&[0.0, 0.0, -9.81 * ra], &mut fl);
            let total: f64 = (0..el.n_nodes()).map(|a| fl[12 * a + 2]).sum();
            assert!((total + 9.81 * ra * l).abs() < 1e-13);
            if order == 2 {
                assert!((fl[12 + 2] / total - 2.0 / 3.0).abs() < 1e-14);
            }
            assert!((el.length() - l).abs() < 1e-15);
        }
    }

    #[test]
    fn bad_element_input_is_reported() {
        let f = tilted_frame();
        let q0 = reference_q(&ConstantCurvature::straight([0.0; 3], f), 1, 0.0, 1.0);
        let new = |order, q: &[f64]| {
            DirectorBeamElement::new(order, q, diag_section(), Integration::Reduced)
        };
        assert_eq!(
            new(3, &q0).unwrap_err(),
            ElementError::BadOrder { order: 3 }
        );
        assert!(matches!(
            new(2, &q0),
            Err(ElementError::WrongLength {
                expected: 36,
                got: 24
            })
        ));
        let mut q = q0.clone();
        q[4] *= 1.01;
        assert!(matches!(
            new(1, &q),
            Err(ElementError::NotOrthonormal { node: 0, i: 1, .. })
        ));
        let mut q = q0.clone();
        for c in 0..3 {
            q[12 + 9 + c] = -q0[12 + 9 + c];
        }
        assert!(matches!(
            new(1, &q),
            Err(ElementError::LeftHanded { node: 1, .. })
        ));
        let mut q = q0.clone();
        q[12..15].copy_from_slice(&q0[0..3]);
        assert!(matches!(new(1, &q), Err(ElementError::Degenerate { .. })));
        let mut q = q0.clone();
        q[13] = f64::NAN;
        assert!(matches!(
            new(1, &q),
            Err(ElementError::NonFinite { node: 1, index: 13 })
        ));
        // Quadratic element whose middle node folds it back: J changes sign inside.
        let mut q2 = reference_q(&ConstantCurvature::straight([0.0; 3], f), 2, 0.0, 1.0);
        for c in 0..3 {
            q2[12 + c] = 1.2 * q2[24 + c];
        }
        let e = new(2, &q2).unwrap_err();
        assert!(matches!(e, ElementError::Degenerate { .. }), "{e}");
    }
}
