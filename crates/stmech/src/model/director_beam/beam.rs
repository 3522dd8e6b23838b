//! A spatial director beam as a contribution to the one model: nodes (12-coordinate frames),
//! elements of order 1 or 2, consistent mass, distributed loads and gravity, built into a
//! [`Deformable`] that [`crate::model::MultibodySystem`] holds beside rigid bodies.
//!
//! Node `a` of a beam whose first frame in the system is `f0` is frame `f0 + a`: joints, point
//! loads and outputs address it like a rigid body.

use super::element::{DirectorBeamElement, ElementError, Integration};
use super::section::Section;
use crate::math::{Vec3, cross, dot, sub};
use crate::model::strain::StrainElement;
use crate::model::{Deformable, NodalForces, TimeFunction};

/// Input of one beam.
#[derive(Debug, Clone)]
pub struct BeamSpec {
    /// Name used in outputs and messages.
    pub name: String,
    /// Element order in `s`: 1 (two nodes) or 2 (three nodes).
    pub order: usize,
    /// Stress-free reference nodes `(φ, d1, d2, d3)` (m, orthonormal right-handed frames), in
    /// order along the beam: `elements · order + 1` of them.
    pub nodes: Vec<[f64; 12]>,
    /// Section law and inertia.
    pub section: Section,
    /// Quadrature of the strain energy in `s`.
    pub integration: Integration,
    /// Initial velocity of the first node (m/s): the beam starts in the rigid motion
    /// `φ̇ = v + ω × (φ − φ_0)`, `ḋ_i = ω × d_i`.
    pub velocity: Vec3,
    /// Initial angular velocity (rad/s, global frame).
    pub angular_velocity: Vec3,
    /// Distributed dead forces per unit reference length (N/m), each with a time function.
    pub distributed: Vec<(Vec3, TimeFunction)>,
    /// Gravity as a body force per unit mass (m/s²): the distributed force `ρA g`.
    pub gravity: Option<Vec3>,
}

/// Invalid beam input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BeamError {
    /// The node count does not fit whole elements of the order.
    #[error(
        "beam '{name}': {nodes} nodes do not make whole elements of order {order} (need elements · {order} + 1 nodes, at least {min})"
    )]
    NodeCount {
        /// Beam name.
        name: String,
        /// Nodes given.
        nodes: usize,
        /// Element order.
        order: usize,
        /// Smallest valid count.
        min: usize,
    },
    /// An element is invalid.
    #[error("beam '{name}', element {element}: {source}")]
    Element {
        /// Beam name.
        name: String,
        /// Element index.
        element: usize,
        /// What is wrong.
        #[source]
        source: ElementError,
    },
}

impl StrainElement for DirectorBeamElement {
    fn n_loc(&self) -> usize {
        DirectorBeamElement::n_loc(self)
    }
    fn n_points(&self) -> usize {
        DirectorBeamElement::n_points(self)
    }
    fn weight(&self, g: usize) -> f64 {
        DirectorBeamElement::weight(self, g)
    }
    fn strains_into(&self, g: usize, q_loc: &[f64], pi: &mut [f64; 6], b: Option<&mut [f64]>) {
        DirectorBeamElement::strains_into(self, g, q_loc, pi, b);
    }
    fn add_stress_hessian(&self, g: usize, s: &[f64; 6], scale: f64, h: &mut [f64]) {
        DirectorBeamElement::add_stress_hessian(self, g, s, scale, h);
    }
    fn stiffness(&self, _g: usize) -> &[[f64; 6]; 6] {
        self.section().stiffness()
    }
    fn viscosity(&self, _g: usize) -> Option<&[[f64; 6]; 6]> {
        self.section()
            .is_viscous()
            .then(|| self.section().viscosity())
    }
    // Direct forms of `B q̇` and `Bᵀ s` (the rows of `B` are written out in
    // `DirectorBeamElement::strains_into`): no `6 × n_loc` matrix is formed.
    fn strain_rate(&self, g: usize, q: &[f64], qd: &[f64], _b: &mut [f64]) -> [f64; 6] {
        let (n, dn) = self.shape(g);
        let (pp, d, dp) = interpolate(n, dn, q);
        let (vpp, vd, vdp) = interpolate(n, dn, qd);
        let mut rate = [0.0; 6];
        for i in 0..3 {
            rate[i] = dot(&vd[i], &pp) + dot(&d[i], &vpp);
        }
        for (k, i, j) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
            rate[3 + k] = 0.5
                * (dot(&vd[j], &dp[i]) + dot(&d[j], &vdp[i])
                    - dot(&vd[i], &dp[j])
                    - dot(&d[i], &vdp[j]));
        }
        rate
    }
    fn add_stress_force(
        &self,
        g: usize,
        q: &[f64],
        s: &[f64; 6],
        scale: f64,
        f: &mut [f64],
        _b: &mut [f64],
    ) {
        let (n, dn) = self.shape(g);
        let (pp, d, dp) = interpolate(n, dn, q);
        let mut force = [0.0; 3];
        for i in 0..3 {
            for c in 0..3 {
                force[c] += s[i] * d[i][c];
            }
        }
        for (a, (&na, &da)) in n.iter().zip(dn).enumerate() {
            let o = 12 * a;
            for c in 0..3 {
                f[o + c] += scale * da * force[c];
            }
            for i in 0..3 {
                let w = scale * na * s[i];
                for c in 0..3 {
                    f[o + 3 + 3 * i + c] += w * pp[c];
                }
            }
            for (k, i, j) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
                let m = 0.5 * scale * s[3 + k];
                for c in 0..3 {
                    f[o + 3 + 3 * j + c] += m * (na * dp[i][c] - da * d[i][c]);
                    f[o + 3 + 3 * i + c] += m * (da * d[j][c] - na * dp[j][c]);
                }
            }
        }
    }
}

/// `φ′`, `d_i` and `d_i′` interpolated with the shape functions `n`, `dn` at a point.
#[inline]
fn interpolate(n: &[f64], dn: &[f64], q: &[f64]) -> (Vec3, [Vec3; 3], [Vec3; 3]) {
    let mut pp = [0.0; 3];
    let mut d = [[0.0; 3]; 3];
    let mut dp = [[0.0; 3]; 3];
    for (a, (&na, &da)) in n.iter().zip(dn).enumerate() {
        let o = 12 * a;
        for c in 0..3 {
            pp[c] += da * q[o + c];
            for i in 0..3 {
                d[i][c] += na * q[o + 3 + 3 * i + c];
                dp[i][c] += da * q[o + 3 + 3 * i + c];
            }
        }
    }
    (pp, d, dp)
}

impl BeamSpec {
    /// Number of elements.
    pub fn elements(&self) -> usize {
        self.nodes.len().saturating_sub(1) / self.order.max(1)
    }

    /// The elements with their stress-free references.
    pub fn build_elements(&self) -> Result<Vec<DirectorBeamElement>, BeamError> {
        let order = self.order;
        let n = self.nodes.len();
        if !(1..=2).contains(&order) || n < order + 1 || !(n - 1).is_multiple_of(order) {
            return Err(BeamError::NodeCount {
                name: self.name.clone(),
                nodes: n,
                order,
                min: order.max(1) + 1,
            });
        }
        (0..self.elements())
            .map(|e| {
                let reference: Vec<f64> = self.nodes[e * order..=e * order + order]
                    .iter()
                    .flatten()
                    .copied()
                    .collect();
                DirectorBeamElement::new(order, &reference, self.section, self.integration).map_err(
                    |source| BeamError::Element {
                        name: self.name.clone(),
                        element: e,
                        source,
                    },
                )
            })
            .collect()
    }

    /// The beam as a [`Deformable`] contribution.
    pub fn build(&self) -> Result<Deformable, BeamError> {
        let elements = self.build_elements()?;
        let n_frames = self.nodes.len();
        let initial_q: Vec<f64> = self.nodes.iter().flatten().copied().collect();
        let mut initial_v = vec![0.0; 12 * n_frames];
        let x0 = [self.nodes[0][0], self.nodes[0][1], self.nodes[0][2]];
        for (a, node) in self.nodes.iter().enumerate() {
            let r = sub(&[node[0], node[1], node[2]], &x0);
            let w = cross(&self.angular_velocity, &r);
            for c in 0..3 {
                initial_v[12 * a + c] = self.velocity[c] + w[c];
            }
            for i in 0..3 {
                let d = [node[3 + 3 * i], node[4 + 3 * i], node[5 + 3 * i]];
                let dd = cross(&self.angular_velocity, &d);
                initial_v[12 * a + 3 + 3 * i..12 * a + 6 + 3 * i].copy_from_slice(&dd);
            }
        }
        let order = self.order;
        let mut mass = Vec::new();
        let mut scratch = vec![0.0; 36 * 36];
        let offset = |e: usize| 12 * e * order;
        for (e, el) in elements.iter().enumerate() {
            let nl = el.n_loc();
            el.mass_matrix_into(&mut scratch);
            for i in 0..nl {
                for j in 0..nl {
                    let m = scratch[i * nl + j];
                    if m != 0.0 {
                        mass.push((offset(e) + i, offset(e) + j, m));
                    }
                }
            }
        }
        let mut loads = Vec::new();
        let mut per_length: Vec<(Vec3, TimeFunction)> = self.distributed.clone();
        if let Some(g) = self.gravity {
            let ra = self.section.rho_a();
            per_length.push(([ra * g[0], ra * g[1], ra * g[2]], TimeFunction::Constant));
        }
        let mut fe = [0.0; 36];
        for (b, tf) in per_length {
            let mut forces = vec![0.0; 12 * n_frames];
            for (e, el) in elements.iter().enumerate() {
                let nl = el.n_loc();
                el.distributed_force_into(&b, &mut fe);
                for (f, x) in forces[offset(e)..offset(e) + nl].iter_mut().zip(&fe[..nl]) {
                    *f += x;
                }
            }
            loads.push(NodalForces {
                forces,
                time_function: tf,
            });
        }
        let elements = elements
            .into_iter()
            .enumerate()
            .map(|(e, el)| {
                let idx: Vec<usize> = (offset(e)..offset(e) + el.n_loc()).collect();
                (Box::new(el) as Box<dyn StrainElement>, idx)
            })
            .collect();
        Ok(Deformable {
            name: self.name.clone(),
            n_frames,
            initial_q,
            initial_v,
            mass,
            elements,
            loads,
        })
    }
}
