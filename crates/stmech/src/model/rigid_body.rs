//! Director-based rigid body, [P, Eq. (2)–(7)].
//!
//! A material point with convective coordinates `θ` sits at `φ = φ̄ + θ^i d_i` (Eq. 3). The
//! twelve configuration coordinates are `q = (φ̄, d_1, d_2, d_3)`; the kinetic energy is
//! `½ q̇ᵀ 𝕄 q̇` with the constant mass matrix of Eq. (7),
//!
//! ```text
//! 𝕄 = [ M    S^j ] ⊗ I₃ ,   M = ∫ρ₀ dV,  S^i = ∫ρ₀ θ^i dV,  E^ij = ∫ρ₀ θ^i θ^j dV,
//!     [ S^i  E^ij]
//! ```
//!
//! and the inertia tensor about the reference point is `J = tr(E) I − E` (Remark 2.1).

use crate::math::{Vec3, cross, dot};

/// Mass properties of Eq. (7): total mass `M` (kg), first moments `S^i` (kg·m) and Euler
/// tensor `E^ij` (kg·m²), all with respect to the reference point and the initial directors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// `M = ∫ρ₀ dV` in kg.
    pub mass: f64,
    /// `S^i = ∫ρ₀ θ^i dV` in kg·m.
    pub first_moment: Vec3,
    /// `E^ij = ∫ρ₀ θ^i θ^j dV` in kg·m², symmetric.
    pub euler_tensor: [[f64; 3]; 3],
}

impl MassProperties {
    /// Box of edge lengths `a` (m) along the directors and density `rho` (kg/m³), with the
    /// reference point at `offset` (in convective coordinates, m) from the box centre.
    ///
    /// With `c = −offset` the centroid seen from the reference point:
    /// `S^i = M c_i`, `E^ij = M a_i²/12 δ_ij + M c_i c_j` (parallel-axis theorem for `E`).
    pub fn from_box(edges: Vec3, rho: f64, offset: Vec3) -> Self {
        let m = rho * edges[0] * edges[1] * edges[2];
        let c = [-offset[0], -offset[1], -offset[2]];
        let mut e = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                e[i][j] = m * c[i] * c[j];
            }
            e[i][i] += m * edges[i] * edges[i] / 12.0;
        }
        Self {
            mass: m,
            first_moment: [m * c[0], m * c[1], m * c[2]],
            euler_tensor: e,
        }
    }

    /// The 4×4 matrix `[[M, Sᵀ], [S, E]]`, row-major; `𝕄` is this matrix ⊗ I₃.
    pub fn reduced_mass_matrix(&self) -> [f64; 16] {
        let (m, s, e) = (self.mass, self.first_moment, self.euler_tensor);
        [
            m, s[0], s[1], s[2], //
            s[0], e[0][0], e[0][1], e[0][2], //
            s[1], e[1][0], e[1][1], e[1][2], //
            s[2], e[2][0], e[2][1], e[2][2],
        ]
    }

    /// Inertia tensor about the reference point in the director frame, `J = tr(E) I − E`.
    pub fn inertia_tensor(&self) -> [[f64; 3]; 3] {
        let e = self.euler_tensor;
        let tr = e[0][0] + e[1][1] + e[2][2];
        let mut j = [[0.0; 3]; 3];
        for a in 0..3 {
            for b in 0..3 {
                j[a][b] = -e[a][b];
            }
            j[a][a] += tr;
        }
        j
    }

    /// Whether the 4×4 mass matrix is symmetric positive definite (Cholesky succeeds).
    pub fn is_positive_definite(&self) -> bool {
        let a = self.reduced_mass_matrix();
        let mut l = [0.0f64; 16];
        for i in 0..4 {
            for j in 0..=i {
                let mut s = a[i * 4 + j];
                for k in 0..j {
                    s -= l[i * 4 + k] * l[j * 4 + k];
                }
                if i == j {
                    if s.is_nan() || s <= 1e-14 * a[0].abs().max(1.0) {
                        return false;
                    }
                    l[i * 4 + i] = s.sqrt();
                } else {
                    l[i * 4 + j] = s / l[j * 4 + j];
                }
            }
        }
        (0..4).all(|i| {
            (0..4).all(|j| (a[i * 4 + j] - a[j * 4 + i]).abs() <= 1e-12 * a[0].abs().max(1.0))
        })
    }
}

/// A rigid body with its initial state.
#[derive(Clone, Debug)]
pub struct RigidBody {
    /// Name used in outputs and error messages.
    pub name: String,
    /// Mass properties with respect to the reference point, Eq. (7).
    pub mass: MassProperties,
    /// Initial position of the reference point `φ̄(0)` (m).
    pub position: Vec3,
    /// Initial directors `d_i(0)` (dimensionless, global frame).
    pub directors: [Vec3; 3],
    /// Initial velocity of the reference point `φ̄_t(0)` (m/s).
    pub velocity: Vec3,
    /// Initial director velocities `d_i,t(0)` (1/s).
    pub director_velocities: [Vec3; 3],
}

impl RigidBody {
    /// Number of configuration coordinates per body.
    pub const NQ: usize = 12;

    /// Director velocities of a rigid rotation with global angular velocity `ω`: `ḋ_i = ω × d_i`.
    pub fn director_velocities_from_angular_velocity(
        directors: &[Vec3; 3],
        omega: &Vec3,
    ) -> [Vec3; 3] {
        [
            cross(omega, &directors[0]),
            cross(omega, &directors[1]),
            cross(omega, &directors[2]),
        ]
    }

    /// Initial coordinates `q(0) = (φ̄, d_1, d_2, d_3)`.
    pub fn initial_q(&self) -> [f64; 12] {
        let mut q = [0.0; 12];
        q[..3].copy_from_slice(&self.position);
        for i in 0..3 {
            q[3 + 3 * i..6 + 3 * i].copy_from_slice(&self.directors[i]);
        }
        q
    }

    /// Initial velocities `v(0) = q̇(0) = (φ̄_t, d_1,t, d_2,t, d_3,t)`.
    pub fn initial_v(&self) -> [f64; 12] {
        let mut v = [0.0; 12];
        v[..3].copy_from_slice(&self.velocity);
        for i in 0..3 {
            v[3 + 3 * i..6 + 3 * i].copy_from_slice(&self.director_velocities[i]);
        }
        v
    }

    /// Initial momenta `p(0) = 𝕄 q̇(0)`, i.e. `π̄ = M φ̄_t + S^j d_j,t`, `π_i = S^i φ̄_t + E^ij d_j,t`.
    pub fn initial_p(&self) -> [f64; 12] {
        let m4 = self.mass.reduced_mass_matrix();
        let mut v = [[0.0; 3]; 4];
        v[0] = self.velocity;
        v[1..].copy_from_slice(&self.director_velocities);
        let mut p = [0.0; 12];
        for a in 0..4 {
            for b in 0..4 {
                for k in 0..3 {
                    p[3 * a + k] += m4[a * 4 + b] * v[b][k];
                }
            }
        }
        p
    }

    /// Initial metric `D_ij = d_i(0)·d_j(0)` used by the orthonormality constraint, Eq. (4).
    pub fn initial_metric(&self) -> [[f64; 3]; 3] {
        let d = &self.directors;
        let mut g = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                g[i][j] = dot(&d[i], &d[j]);
            }
        }
        g
    }

    /// Largest `|d/dt Φ_ij(0)| = |½(ḋ_i·d_j + d_i·ḋ_j)|`: non-zero means the initial director
    /// velocities do not describe a rigid motion (the hidden constraint is violated).
    pub fn initial_velocity_constraint_violation(&self) -> f64 {
        let (d, v) = (&self.directors, &self.director_velocities);
        let mut worst: f64 = 0.0;
        for i in 0..3 {
            for j in i..3 {
                worst = worst.max((0.5 * (dot(&v[i], &d[j]) + dot(&d[i], &v[j]))).abs());
            }
        }
        worst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_box_mass_properties() {
        // [P, §4.1]: box 2 × 1 × 1, ρ₀ = 1.5 → M = 3, E = diag(1, 0.25, 0.25), J = diag(0.5, 1.25, 1.25).
        let mp = MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.0; 3]);
        assert!((mp.mass - 3.0).abs() < 1e-15);
        let j = mp.inertia_tensor();
        for (i, want) in [0.5, 1.25, 1.25].iter().enumerate() {
            assert!((j[i][i] - want).abs() < 1e-14);
        }
        assert!((mp.euler_tensor[0][0] - 1.0).abs() < 1e-15);
        assert!(mp.is_positive_definite());
    }

    #[test]
    fn off_centre_reference_point_matches_paper() {
        // [P, §4.2]: cube of edge 0.8, ρ₀ = 1.5, reference point at (−0.1, 0, 0):
        // M = 0.768, S = (0.0768, 0, 0), E = diag(0.0486, 0.0410, 0.0410) (4 digits).
        let mp = MassProperties::from_box([0.8; 3], 1.5, [-0.1, 0.0, 0.0]);
        assert!((mp.mass - 0.768).abs() < 1e-12);
        assert!((mp.first_moment[0] - 0.0768).abs() < 1e-12);
        assert!((mp.euler_tensor[0][0] - 0.0486).abs() < 5e-5);
        assert!((mp.euler_tensor[1][1] - 0.0410).abs() < 5e-5);
    }

    #[test]
    fn angular_velocity_gives_consistent_director_velocities() {
        let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let b = RigidBody {
            name: "b".into(),
            mass: MassProperties::from_box([1.0; 3], 1.0, [0.0; 3]),
            position: [0.0; 3],
            directors: d,
            velocity: [0.0; 3],
            director_velocities: RigidBody::director_velocities_from_angular_velocity(
                &d,
                &[0.3, -1.0, 2.0],
            ),
        };
        assert!(b.initial_velocity_constraint_violation() < 1e-15);
    }
}
