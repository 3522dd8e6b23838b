//! Applied loads on rigid bodies and their time functions.
//!
//! * Body force per unit mass `b(t)` (e.g. gravity): virtual work `∫ρ₀ δφ·b dV =
//!   δφ̄·(M b) + δd_i·(S^i b)` [P, Eq. (20)].
//! * Global torque `m(t)`: director load `½ m × d^i` with the contravariant directors
//!   `d^i = (G⁻¹)_ij d_j`, `G_ij = d_i·d_j` [P, Eq. (21)]; its virtual work is `m·δθ` for
//!   orthonormal directors.

use crate::math::{Vec3, cross};

/// Scalar multiplier `s(t)` of a load vector.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeFunction {
    /// `s(t) = 1`.
    Constant,
    /// `s(t) = 1` on `[start, end]`, 0 elsewhere (the paper's rectangular load).
    Window {
        /// Start of the window (s).
        start: f64,
        /// End of the window (s).
        end: f64,
    },
    /// Piecewise-linear interpolation of `(t, s)` pairs, constant beyond the ends.
    Table {
        /// Strictly increasing sample times (s).
        times: Vec<f64>,
        /// Values at the sample times.
        values: Vec<f64>,
    },
}

impl TimeFunction {
    /// `s(t)`.
    pub fn value(&self, t: f64) -> f64 {
        match self {
            Self::Constant => 1.0,
            Self::Window { start, end } => f64::from(u8::from(t >= *start && t <= *end)),
            Self::Table { times, values } => {
                if t <= times[0] {
                    return values[0];
                }
                let last = times.len() - 1;
                if t >= times[last] {
                    return values[last];
                }
                // first index with times[k] > t
                let k = times.partition_point(|&x| x <= t);
                let (t0, t1, v0, v1) = (times[k - 1], times[k], values[k - 1], values[k]);
                v0 + (v1 - v0) * (t - t0) / (t1 - t0)
            }
        }
    }

    /// Times where `s` or its derivative jumps. Quadrature splits elements there so that
    /// the load integrals of Eq. (20)–(21) stay exact for any mesh.
    pub fn breakpoints(&self) -> Vec<f64> {
        match self {
            Self::Constant => Vec::new(),
            Self::Window { start, end } => vec![*start, *end],
            Self::Table { times, .. } => times.clone(),
        }
    }
}

/// What a load does to its frame.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadKind {
    /// Body force per unit mass (m/s²), global frame (rigid bodies only: it needs their mass
    /// and first moments).
    BodyForce(Vec3),
    /// Torque (N·m), global frame, applied through Eq. (21).
    Torque(Vec3),
    /// Dead force (N), global frame, at the frame's reference point `φ` (a beam node's
    /// centreline point, a body's reference point): `f_φ = F`.
    Force(Vec3),
}

/// A load on one frame (a rigid body or a beam node): `kind` scaled by `time_function`.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    /// Index of the loaded frame (a rigid body's index, or a node's frame in the system).
    pub body: usize,
    /// Load vector.
    pub kind: LoadKind,
    /// Time function multiplying it.
    pub time_function: TimeFunction,
}

impl Load {
    /// Adds the generalised force `f` of this load at time `t` to `f_body` (12 entries, in
    /// the order `φ̄, d_1, d_2, d_3`) and, if `k_body` is given, adds `−∂f/∂q` to it
    /// (12×12 row-major), i.e. the load's share of the tangent `K = ∂(Gᵀλ − f)/∂q`.
    pub fn add_to(
        &self,
        t: f64,
        q: &[f64],
        mass_first_moment: &Vec3,
        mass: f64,
        f_body: &mut [f64],
        k_body: Option<&mut [f64]>,
    ) {
        let s = self.time_function.value(t);
        if s == 0.0 {
            return;
        }
        match &self.kind {
            LoadKind::BodyForce(b) => {
                // f_φ̄ = M b, f_{d_i} = S^i b: independent of q, no tangent.
                for k in 0..3 {
                    f_body[k] += s * mass * b[k];
                    for i in 0..3 {
                        f_body[3 + 3 * i + k] += s * mass_first_moment[i] * b[k];
                    }
                }
            }
            LoadKind::Torque(m0) => {
                let m = [s * m0[0], s * m0[1], s * m0[2]];
                torque_director_load(&m, q, f_body, k_body);
            }
            LoadKind::Force(f) => {
                for k in 0..3 {
                    f_body[k] += s * f[k];
                }
            }
        }
    }

    /// Potential energy of a conservative load (constant body force, `V = −M b·φ̄ − S^i b·d_i`;
    /// constant dead force, `V = −F·φ`); `None` for loads without a potential.
    pub fn potential(&self, q: &[f64], mass_first_moment: &Vec3, mass: f64) -> Option<f64> {
        match (&self.kind, &self.time_function) {
            (LoadKind::BodyForce(b), TimeFunction::Constant) => {
                let mut v = 0.0;
                for k in 0..3 {
                    v -= mass * b[k] * q[k];
                    for i in 0..3 {
                        v -= mass_first_moment[i] * b[k] * q[3 + 3 * i + k];
                    }
                }
                Some(v)
            }
            (LoadKind::Force(f), TimeFunction::Constant) => {
                Some(-(0..3).map(|k| f[k] * q[k]).sum::<f64>())
            }
            _ => None,
        }
    }
}

/// Director load of a global torque `m`, Eq. (21): `f_{d_i} = ½ m × d^i` with
/// `d^i = (G⁻¹)_ij d_j`, `G_ij = d_i·d_j`. Adds `f` and, optionally, `−∂f/∂q`.
///
/// Tangent: a perturbation `δd_k = e_c` gives `δG_ab = δ_ak d_b[c] + δ_bk d_a[c]`,
/// `δG⁻¹ = −G⁻¹ δG G⁻¹` and `δd^i = δ(G⁻¹)_ij d_j + (G⁻¹)_ik e_c`.
fn torque_director_load(m: &Vec3, q: &[f64], f_body: &mut [f64], k_body: Option<&mut [f64]>) {
    let d = [[q[3], q[4], q[5]], [q[6], q[7], q[8]], [q[9], q[10], q[11]]];
    let mut g = [[0.0; 3]; 3];
    for a in 0..3 {
        for b in 0..3 {
            g[a][b] = crate::math::dot(&d[a], &d[b]);
        }
    }
    let Some(gi) = crate::math::inv3(&g) else {
        // Degenerate directors: the contravariant basis does not exist. Newton will see a
        // residual that does not decrease and report it; no load is better than NaN here.
        return;
    };
    let contra = |gi: &[[f64; 3]; 3], i: usize| -> Vec3 {
        let mut v = [0.0; 3];
        for j in 0..3 {
            for k in 0..3 {
                v[k] += gi[i][j] * d[j][k];
            }
        }
        v
    };
    for i in 0..3 {
        let di = contra(&gi, i);
        let fi = cross(m, &di);
        for k in 0..3 {
            f_body[3 + 3 * i + k] += 0.5 * fi[k];
        }
    }
    let Some(k_body) = k_body else { return };
    for kd in 0..3 {
        for c in 0..3 {
            // δG for δd_kd = e_c
            let mut dg = [[0.0; 3]; 3];
            for a in 0..3 {
                for b in 0..3 {
                    let mut v = 0.0;
                    if a == kd {
                        v += d[b][c];
                    }
                    if b == kd {
                        v += d[a][c];
                    }
                    dg[a][b] = v;
                }
            }
            // δG⁻¹ = −G⁻¹ δG G⁻¹
            let mut tmp = [[0.0; 3]; 3];
            for a in 0..3 {
                for b in 0..3 {
                    tmp[a][b] = (0..3).map(|x| dg[a][x] * gi[x][b]).sum();
                }
            }
            let mut dgi = [[0.0; 3]; 3];
            for a in 0..3 {
                for b in 0..3 {
                    dgi[a][b] = -(0..3).map(|x| gi[a][x] * tmp[x][b]).sum::<f64>();
                }
            }
            let col = 3 + 3 * kd + c;
            for i in 0..3 {
                let mut ddi = [0.0; 3];
                for j in 0..3 {
                    for k in 0..3 {
                        ddi[k] += dgi[i][j] * d[j][k];
                    }
                }
                ddi[c] += gi[i][kd];
                let dfi = cross(m, &ddi);
                for k in 0..3 {
                    k_body[(3 + 3 * i + k) * 12 + col] -= 0.5 * dfi[k];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_functions() {
        let w = TimeFunction::Window {
            start: 0.5,
            end: 1.5,
        };
        assert_eq!(w.value(0.4), 0.0);
        assert_eq!(w.value(1.0), 1.0);
        assert_eq!(w.value(1.6), 0.0);
        let tab = TimeFunction::Table {
            times: vec![0.0, 1.0, 3.0],
            values: vec![0.0, 2.0, -2.0],
        };
        assert!((tab.value(0.5) - 1.0).abs() < 1e-15);
        assert!((tab.value(2.0) - 0.0).abs() < 1e-15);
        assert_eq!(tab.value(-1.0), 0.0);
        assert_eq!(tab.value(5.0), -2.0);
    }

    #[test]
    fn torque_tangent_matches_finite_differences() {
        // Skewed, non-orthonormal directors to exercise the contravariant basis.
        let q = [
            0.1, 0.2, 0.3, 1.0, 0.1, -0.2, 0.05, 0.9, 0.3, -0.1, 0.2, 1.1,
        ];
        let load = Load {
            body: 0,
            kind: LoadKind::Torque([1.0, -2.0, 0.5]),
            time_function: TimeFunction::Constant,
        };
        let mut f0 = [0.0; 12];
        let mut k = vec![0.0; 144];
        load.add_to(0.0, &q, &[0.0; 3], 1.0, &mut f0, Some(&mut k));
        let eps = 1e-7;
        for col in 0..12 {
            let (mut qp, mut qm) = (q, q);
            qp[col] += eps;
            qm[col] -= eps;
            let (mut fp, mut fm) = ([0.0; 12], [0.0; 12]);
            load.add_to(0.0, &qp, &[0.0; 3], 1.0, &mut fp, None);
            load.add_to(0.0, &qm, &[0.0; 3], 1.0, &mut fm, None);
            for row in 0..12 {
                let fd = -(fp[row] - fm[row]) / (2.0 * eps);
                assert!(
                    (fd - k[row * 12 + col]).abs() < 1e-7,
                    "({row},{col}): fd {fd} vs {}",
                    k[row * 12 + col]
                );
            }
        }
    }

    #[test]
    fn torque_virtual_work_is_m_dot_dtheta_for_orthonormal_directors() {
        // For orthonormal directors and δd_i = δθ × d_i, Σ δd_i · ½ m × d_i = m·δθ.
        let c = (0.3f64).cos();
        let s = (0.3f64).sin();
        let q = [0.0, 0.0, 0.0, c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0];
        let m = [0.7, -1.3, 2.1];
        let load = Load {
            body: 0,
            kind: LoadKind::Torque(m),
            time_function: TimeFunction::Constant,
        };
        let mut f = [0.0; 12];
        load.add_to(0.0, &q, &[0.0; 3], 1.0, &mut f, None);
        let dtheta = [0.2, 0.5, -0.4];
        let mut work = 0.0;
        for i in 0..3 {
            let di = [q[3 + 3 * i], q[4 + 3 * i], q[5 + 3 * i]];
            let dd = cross(&dtheta, &di);
            work += (0..3).map(|k| dd[k] * f[3 + 3 * i + k]).sum::<f64>();
        }
        let expect: f64 = (0..3).map(|k| m[k] * dtheta[k]).sum();
        assert!((work - expect).abs() < 1e-14);
    }
}
