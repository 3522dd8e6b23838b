//! The semi-discrete constrained mechanical system that every time discretisation consumes:
//!
//! ```text
//! q̇ = v,    𝕄 v̇ + G(q)ᵀ λ = f(q, t),    Φ(q) = 0,        G = ∂Φ/∂q,
//! ```
//!
//! the strong form behind the mixed weak form of [P, Eq. (11)], written with the velocity `v`
//! instead of the momentum `p = 𝕄 v`. For an invertible mass matrix the two forms have the same
//! discrete solutions (the trial space of `v` is that of `p` mapped by the constant `𝕄⁻¹`), and
//! the velocity form needs no inverse: a director beam's mass matrix is singular (the director
//! `d₃` carries no inertia) and is used as it is. A system exposes constant sparsity patterns for
//! `𝕄`, for `G` and for the tangent `K = ∂(Gᵀλ − f)/∂q`, and fills their values at one time
//! point; the space-time assembler maps pattern entries to matrix positions once.

use crate::math::{Vec3, cross};
use crate::model::{Constraint, Load, Orthonormality, RigidBody};
use std::collections::BTreeSet;

/// Values of the system at one time point, in the patterns of [`ConstrainedSystem`].
#[derive(Clone, Debug)]
pub struct PointEval {
    /// Generalised applied force `f(q, t)`, length `n_q`.
    pub force: Vec<f64>,
    /// Constraint values `Φ(q, t)`, length `n_λ`.
    pub phi: Vec<f64>,
    /// Explicit time derivative `∂Φ/∂t` (zero for scleronomic constraints), length `n_λ`.
    pub phi_t: Vec<f64>,
    /// Explicit second time derivative `∂²Φ/∂t²`, length `n_λ`.
    pub phi_tt: Vec<f64>,
    /// Values of `G = ∂Φ/∂q` in [`ConstrainedSystem::g_pattern`] order.
    pub g: Vec<f64>,
    /// Values of `K = ∂(Gᵀλ − f)/∂q` in [`ConstrainedSystem::k_pattern`] order.
    pub k: Vec<f64>,
    /// Values of `∂(G(q) v)/∂q` in [`ConstrainedSystem::g_pattern`] order, filled by
    /// [`ConstrainedSystem::eval_velocity_jacobian`].
    pub gv: Vec<f64>,
    scratch: Vec<f64>,
}

impl PointEval {
    /// Buffers of the given sizes, with `scratch` extra workspace for the system's own use.
    pub fn with_sizes(n_q: usize, n_lambda: usize, n_g: usize, n_k: usize, scratch: usize) -> Self {
        Self {
            force: vec![0.0; n_q],
            phi: vec![0.0; n_lambda],
            phi_t: vec![0.0; n_lambda],
            phi_tt: vec![0.0; n_lambda],
            g: vec![0.0; n_g],
            k: vec![0.0; n_k],
            gv: vec![0.0; n_g],
            scratch: vec![0.0; scratch],
        }
    }
}

/// A constrained mechanical system with constant mass matrix, see the module docs.
pub trait ConstrainedSystem: Sync {
    /// Number of configuration coordinates.
    fn n_q(&self) -> usize;
    /// Number of constraint equations (multipliers).
    fn n_lambda(&self) -> usize;
    /// Non-zero entries `(row, col, value)` of the constant, symmetric mass matrix `𝕄`
    /// (positive semi-definite; singular where a coordinate carries no inertia).
    fn mass(&self) -> &[(usize, usize, f64)];
    /// Pattern `(constraint row, q column)` of `G`.
    fn g_pattern(&self) -> &[(usize, usize)];
    /// Pattern `(q row, q column)` of `K`.
    fn k_pattern(&self) -> &[(usize, usize)];
    /// Buffers sized for [`eval`](Self::eval).
    fn new_point_eval(&self) -> PointEval;
    /// Fills `out` at `(t, q, λ)`; `K` only when `tangent` is true.
    fn eval(&self, t: f64, q: &[f64], lambda: &[f64], out: &mut PointEval, tangent: bool);
    /// Fills `out.gv` with `∂(G(q) v)/∂q` at `(q, v)` (the tangent of the velocity-level
    /// constraint `G(q) q̇ = 0`).
    fn eval_velocity_jacobian(&self, q: &[f64], v: &[f64], out: &mut PointEval);
    /// Times at which applied loads are discontinuous (for exact quadrature).
    fn breakpoints(&self) -> Vec<f64>;
    /// Potential energy of the conservative loads (J).
    fn potential_energy(&self, q: &[f64]) -> f64;
    /// Kinetic energy `½ vᵀ 𝕄 v` (J).
    fn kinetic_energy(&self, v: &[f64]) -> f64 {
        0.5 * self
            .mass()
            .iter()
            .map(|&(i, j, m)| v[i] * m * v[j])
            .sum::<f64>()
    }

    /// Generalised momentum `p = 𝕄 v` into `p` (length `n_q`).
    fn momentum_into(&self, v: &[f64], p: &mut [f64]) {
        p.fill(0.0);
        for &(i, j, m) in self.mass() {
            p[i] += m * v[j];
        }
    }

    /// Angular momentum about the origin (kg·m²/s), global frame: `L = Σ_k q_k × p_k` over the
    /// coordinate triplets `q_k` (placements and directors are all spatial vectors, so this is
    /// the director form of `∫ x × ρ ẋ dV`), `p = 𝕄 v`.
    fn angular_momentum(&self, q: &[f64], v: &[f64]) -> Vec3 {
        let mut p = vec![0.0; q.len()];
        self.momentum_into(v, &mut p);
        let mut l = [0.0; 3];
        for (qk, pk) in q.chunks_exact(3).zip(p.chunks_exact(3)) {
            let c = cross(&[qk[0], qk[1], qk[2]], &[pk[0], pk[1], pk[2]]);
            for k in 0..3 {
                l[k] += c[k];
            }
        }
        l
    }
}

/// Rigid bodies with their orthonormality constraints, further constraints and loads.
///
/// Coordinates: body `b` owns `q[12b..12b+12] = (φ̄, d_1, d_2, d_3)`. Multipliers: the six
/// orthonormality multipliers of each body first (in body order), then those of the extra
/// constraints in the order given.
#[derive(Debug)]
pub struct MultibodySystem {
    bodies: Vec<RigidBody>,
    loads: Vec<Load>,
    constraints: Vec<Box<dyn Constraint>>,
    lambda_offsets: Vec<usize>,
    n_lambda: usize,
    mass: Vec<(usize, usize, f64)>,
    g_pattern: Vec<(usize, usize)>,
    k_pattern: Vec<(usize, usize)>,
    /// Per body: position in `k_pattern` of each entry of its dense 12×12 block.
    body_k_map: Vec<Vec<usize>>,
    /// Per constraint: positions in `g_pattern` (n_eq × n_loc) and `k_pattern` (n_loc²).
    constraint_maps: Vec<(Vec<usize>, Vec<usize>)>,
    max_local: usize,
}

/// Error building a [`MultibodySystem`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SystemError {
    /// The 4×4 mass matrix of a body is not symmetric positive definite.
    #[error("body '{0}': mass matrix [[M, S], [S, E]] is not symmetric positive definite")]
    MassNotPositiveDefinite(String),
    /// A load names a body index that does not exist.
    #[error("load {load} acts on body index {body}, but there are only {n_bodies} bodies")]
    LoadBodyOutOfRange {
        /// Load index.
        load: usize,
        /// Body index it names.
        body: usize,
        /// Number of bodies.
        n_bodies: usize,
    },
}

impl MultibodySystem {
    /// Builds the system; each body gets its orthonormality constraint automatically.
    pub fn new(
        bodies: Vec<RigidBody>,
        loads: Vec<Load>,
        extra_constraints: Vec<Box<dyn Constraint>>,
    ) -> Result<Self, SystemError> {
        for b in &bodies {
            if !b.mass.is_positive_definite() {
                return Err(SystemError::MassNotPositiveDefinite(b.name.clone()));
            }
        }
        for (i, l) in loads.iter().enumerate() {
            if l.body >= bodies.len() {
                return Err(SystemError::LoadBodyOutOfRange {
                    load: i,
                    body: l.body,
                    n_bodies: bodies.len(),
                });
            }
        }
        let mut constraints: Vec<Box<dyn Constraint>> = bodies
            .iter()
            .enumerate()
            .map(|(b, body)| {
                Box::new(Orthonormality::new(12 * b + 3, body.initial_metric()))
                    as Box<dyn Constraint>
            })
            .collect();
        constraints.extend(extra_constraints);
        let mut lambda_offsets = Vec::with_capacity(constraints.len());
        let mut n_lambda = 0;
        for c in &constraints {
            lambda_offsets.push(n_lambda);
            n_lambda += c.n_eq();
        }

        let mut mass = Vec::new();
        for (b, body) in bodies.iter().enumerate() {
            let m4 = body.mass.reduced_mass_matrix();
            for a in 0..4 {
                for c in 0..4 {
                    if m4[a * 4 + c] != 0.0 {
                        for k in 0..3 {
                            mass.push((12 * b + 3 * a + k, 12 * b + 3 * c + k, m4[a * 4 + c]));
                        }
                    }
                }
            }
        }

        let mut kset = BTreeSet::new();
        for b in 0..bodies.len() {
            for i in 0..12 {
                for j in 0..12 {
                    kset.insert((12 * b + i, 12 * b + j));
                }
            }
        }
        let mut gset = BTreeSet::new();
        for (c, off) in constraints.iter().zip(&lambda_offsets) {
            for &i in c.indices() {
                for &j in c.indices() {
                    kset.insert((i, j));
                }
            }
            for e in 0..c.n_eq() {
                for &j in c.indices() {
                    gset.insert((off + e, j));
                }
            }
        }
        let k_pattern: Vec<_> = kset.into_iter().collect();
        let g_pattern: Vec<_> = gset.into_iter().collect();
        let kpos = |i: usize, j: usize| {
            k_pattern
                .binary_search(&(i, j))
                .expect("entry is in the K pattern")
        };
        let gpos = |i: usize, j: usize| {
            g_pattern
                .binary_search(&(i, j))
                .expect("entry is in the G pattern")
        };
        let body_k_map = (0..bodies.len())
            .map(|b| {
                (0..144)
                    .map(|e| kpos(12 * b + e / 12, 12 * b + e % 12))
                    .collect()
            })
            .collect();
        let constraint_maps = constraints
            .iter()
            .zip(&lambda_offsets)
            .map(|(c, off)| {
                let idx = c.indices();
                let g = (0..c.n_eq())
                    .flat_map(|e| idx.iter().map(move |&j| (off + e, j)))
                    .map(|(i, j)| gpos(i, j))
                    .collect();
                let k = idx
                    .iter()
                    .flat_map(|&i| idx.iter().map(move |&j| (i, j)))
                    .map(|(i, j)| kpos(i, j))
                    .collect();
                (g, k)
            })
            .collect();
        let max_local = constraints
            .iter()
            .map(|c| c.indices().len())
            .max()
            .unwrap_or(0)
            .max(12);
        Ok(Self {
            bodies,
            loads,
            constraints,
            lambda_offsets,
            n_lambda,
            mass,
            g_pattern,
            k_pattern,
            body_k_map,
            constraint_maps,
            max_local,
        })
    }

    /// The bodies.
    pub fn bodies(&self) -> &[RigidBody] {
        &self.bodies
    }

    /// The constraints (orthonormality of each body first), with their multiplier offsets.
    pub fn constraints(&self) -> impl Iterator<Item = (&dyn Constraint, usize)> {
        self.constraints
            .iter()
            .map(|c| c.as_ref())
            .zip(self.lambda_offsets.iter().copied())
    }

    /// Initial coordinates and velocities of all bodies.
    pub fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let q = self.bodies.iter().flat_map(|b| b.initial_q()).collect();
        let v = self.bodies.iter().flat_map(|b| b.initial_v()).collect();
        (q, v)
    }
}

impl ConstrainedSystem for MultibodySystem {
    fn n_q(&self) -> usize {
        12 * self.bodies.len()
    }

    fn n_lambda(&self) -> usize {
        self.n_lambda
    }

    fn mass(&self) -> &[(usize, usize, f64)] {
        &self.mass
    }

    fn g_pattern(&self) -> &[(usize, usize)] {
        &self.g_pattern
    }

    fn k_pattern(&self) -> &[(usize, usize)] {
        &self.k_pattern
    }

    fn new_point_eval(&self) -> PointEval {
        let m = self.max_local;
        PointEval {
            force: vec![0.0; self.n_q()],
            phi: vec![0.0; self.n_lambda],
            phi_t: vec![0.0; self.n_lambda],
            phi_tt: vec![0.0; self.n_lambda],
            g: vec![0.0; self.g_pattern.len()],
            k: vec![0.0; self.k_pattern.len()],
            gv: vec![0.0; self.g_pattern.len()],
            // q_loc | G_loc | H_loc (also reused as the 12×12 load tangent)
            scratch: vec![0.0; m + m * self.n_lambda.max(6) + m * m.max(12)],
        }
    }

    fn eval(&self, t: f64, q: &[f64], lambda: &[f64], out: &mut PointEval, tangent: bool) {
        out.force.fill(0.0);
        out.phi.fill(0.0);
        out.phi_t.fill(0.0);
        out.phi_tt.fill(0.0);
        out.g.fill(0.0);
        if tangent {
            out.k.fill(0.0);
        }
        let m = self.max_local;
        let (q_loc, rest) = out.scratch.split_at_mut(m);
        let (g_loc, h_loc) = rest.split_at_mut(m * self.n_lambda.max(6));
        for load in &self.loads {
            let b = load.body;
            let body = &self.bodies[b];
            let qb = &q[12 * b..12 * b + 12];
            let fb = &mut out.force[12 * b..12 * b + 12];
            if tangent {
                let kb = &mut h_loc[..144];
                kb.fill(0.0);
                load.add_to(t, qb, &body.mass.first_moment, body.mass.mass, fb, Some(kb));
                for (e, &pos) in self.body_k_map[b].iter().enumerate() {
                    out.k[pos] += kb[e];
                }
            } else {
                load.add_to(t, qb, &body.mass.first_moment, body.mass.mass, fb, None);
            }
        }
        for ((c, &off), (gmap, kmap)) in self
            .constraints
            .iter()
            .zip(&self.lambda_offsets)
            .zip(&self.constraint_maps)
        {
            let idx = c.indices();
            let n = idx.len();
            let ne = c.n_eq();
            for (a, &i) in idx.iter().enumerate() {
                q_loc[a] = q[i];
            }
            let g = &mut g_loc[..ne * n];
            g.fill(0.0);
            let lam = &lambda[off..off + ne];
            let phi = &mut out.phi[off..off + ne];
            if tangent {
                let h = &mut h_loc[..n * n];
                h.fill(0.0);
                c.eval(&q_loc[..n], lam, phi, g, Some(h));
                for (e, &pos) in kmap.iter().enumerate() {
                    out.k[pos] += h[e];
                }
            } else {
                c.eval(&q_loc[..n], lam, phi, g, None);
            }
            for (e, &pos) in gmap.iter().enumerate() {
                out.g[pos] += g[e];
            }
            c.add_time_terms(
                t,
                phi,
                &mut out.phi_t[off..off + ne],
                &mut out.phi_tt[off..off + ne],
            );
        }
    }

    fn eval_velocity_jacobian(&self, q: &[f64], v: &[f64], out: &mut PointEval) {
        out.gv.fill(0.0);
        let m = self.max_local;
        // q_loc | v_loc | local ∂(Gv)/∂q (fits in the G_loc part of the scratch)
        let (q_loc, rest) = out.scratch.split_at_mut(m);
        let (gv_loc, _) = rest.split_at_mut(m * self.n_lambda.max(6));
        let mut v_loc = [0.0; 64];
        for (c, (gmap, _)) in self.constraints.iter().zip(&self.constraint_maps) {
            let idx = c.indices();
            let n = idx.len();
            assert!(
                n <= v_loc.len(),
                "constraint with more than 64 local coordinates"
            );
            for (a, &i) in idx.iter().enumerate() {
                q_loc[a] = q[i];
                v_loc[a] = v[i];
            }
            let gv = &mut gv_loc[..c.n_eq() * n];
            gv.fill(0.0);
            c.velocity_jacobian(&q_loc[..n], &v_loc[..n], gv);
            for (e, &pos) in gmap.iter().enumerate() {
                out.gv[pos] += gv[e];
            }
        }
    }

    fn breakpoints(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self
            .loads
            .iter()
            .flat_map(|l| l.time_function.breakpoints())
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    }

    fn potential_energy(&self, q: &[f64]) -> f64 {
        self.loads
            .iter()
            .filter_map(|l| {
                let body = &self.bodies[l.body];
                l.potential(
                    &q[12 * l.body..12 * l.body + 12],
                    &body.mass.first_moment,
                    body.mass.mass,
                )
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LoadKind, MassProperties, TimeFunction};

    fn body() -> RigidBody {
        let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        RigidBody {
            name: "box".into(),
            mass: MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.1, 0.0, -0.2]),
            position: [0.0; 3],
            directors: d,
            velocity: [1.0, 0.0, 0.0],
            director_velocities: RigidBody::director_velocities_from_angular_velocity(
                &d,
                &[0.0, 0.0, 1.0],
            ),
        }
    }

    #[test]
    fn system_tangent_matches_finite_differences() {
        let loads = vec![
            Load {
                body: 0,
                kind: LoadKind::Torque([1.0, 2.0, -1.0]),
                time_function: TimeFunction::Constant,
            },
            Load {
                body: 0,
                kind: LoadKind::BodyForce([0.0, 0.0, -9.81]),
                time_function: TimeFunction::Constant,
            },
        ];
        let sys = MultibodySystem::new(vec![body()], loads, vec![]).unwrap();
        let q: Vec<f64> = vec![
            0.1, 0.2, 0.3, 1.0, 0.1, -0.2, 0.05, 0.9, 0.3, -0.1, 0.2, 1.1,
        ];
        let lam = vec![0.3, -1.0, 0.5, 2.0, -0.7, 0.1];
        let mut ev = sys.new_point_eval();
        sys.eval(0.0, &q, &lam, &mut ev, true);
        let resid = |ev: &PointEval| -> Vec<f64> {
            // Gᵀλ − f
            let mut r: Vec<f64> = ev.force.iter().map(|f| -f).collect();
            for (&(i, j), v) in sys.g_pattern().iter().zip(&ev.g) {
                r[j] += v * lam[i];
            }
            r
        };
        let eps = 1e-7;
        let mut kd = vec![0.0; 144];
        for (&(i, j), v) in sys.k_pattern().iter().zip(&ev.k) {
            kd[i * 12 + j] = *v;
        }
        for col in 0..12 {
            let (mut qp, mut qm) = (q.clone(), q.clone());
            qp[col] += eps;
            qm[col] -= eps;
            let mut e2 = sys.new_point_eval();
            sys.eval(0.0, &qp, &lam, &mut e2, false);
            let rp = resid(&e2);
            sys.eval(0.0, &qm, &lam, &mut e2, false);
            let rm = resid(&e2);
            for row in 0..12 {
                let fd = (rp[row] - rm[row]) / (2.0 * eps);
                assert!((fd - kd[row * 12 + col]).abs() < 1e-6, "K[{row},{col}]");
            }
        }
    }

    #[test]
    fn momentum_is_mass_times_velocity() {
        let sys = MultibodySystem::new(vec![body()], vec![], vec![]).unwrap();
        let (_, v) = sys.initial_state();
        let mut p = [0.0; 12];
        sys.momentum_into(&v, &mut p);
        let b = body();
        assert_eq!(p, b.initial_p());
        // L = Σ_b φ̄ × π̄ + Σ_i d_i × π_i for one body
        let q = b.initial_q();
        let l = sys.angular_momentum(&q, &v);
        let mut want = [0.0; 3];
        for a in 0..4 {
            let c = cross(
                &[q[3 * a], q[3 * a + 1], q[3 * a + 2]],
                &[p[3 * a], p[3 * a + 1], p[3 * a + 2]],
            );
            for k in 0..3 {
                want[k] += c[k];
            }
        }
        assert_eq!(l, want);
    }
}
