//! Independent high-accuracy reference integrator for a single free rigid body.
//!
//! This module deliberately shares **no code** with `crates/stmech/src`: it is the
//! independent check used by the verification tests. It is pure `std` Rust.
//!
//! # Equations
//!
//! Mass `m`, centre of mass `x`, rotation `R` (columns = body directors
//! `d1, d2, d3` in the global frame), body-frame inertia about the centre of
//! mass `J_B` (symmetric 3x3), body-frame angular velocity `Omega`, and a global
//! torque `m_glob(t)` that is piecewise constant in time (no force):
//!
//! ```text
//! x''                        = 0
//! R'                         = R hat(Omega)
//! J_B Omega' + Omega x J_B Omega = R^T m_glob(t)
//! ```
//!
//! The translation is integrated analytically, `x(t) = x0 + v0 t`.
//!
//! # Method
//!
//! The orientation is carried as a quaternion `q = (w, v)` with the kinematic
//! equation `q' = 1/2 q (x) (0, Omega)` (quaternion product), which is the
//! quaternion form of `R' = R hat(Omega)`. The 7-dimensional ODE for
//! `(q, Omega)` is integrated with the `s`-stage **Gauss–Legendre collocation**
//! Runge–Kutta method (order `2s`; here `s = 6`, order 12); see E. Hairer,
//! S. P. Nørsett, G. Wanner, *Solving Ordinary Differential Equations I*,
//! 2nd ed., Springer 1993, Sec. II.7 (collocation methods, Theorem 7.7 / Table
//! 7.4 for the Gauss methods), and E. Hairer, Ch. Lubich, G. Wanner,
//! *Geometric Numerical Integration*, 2nd ed., Springer 2006, Sec. II.1.3 and
//! VIII.6 (fixed-point iteration for the stage equations).
//!
//! The tableau is not transcribed but *computed* at run time to full double
//! precision: the nodes `c_i` are the zeros of the shifted Legendre polynomial
//! `P_s(2t-1)` (Newton iteration), the weights `b_j` are the Gauss quadrature
//! weights, and `a_ij = \int_0^{c_i} l_j(t) dt` with the Lagrange basis `l_j` on
//! the nodes. The latter integral is evaluated exactly with the same `s`-point
//! Gauss rule mapped to `[0, c_i]` (the integrand has degree `s-1 <= 2s-1`).
//!
//! Gauss methods conserve every quadratic first integral exactly, so the
//! quaternion norm `|q|^2` stays 1 up to round-off without any projection; the
//! quaternion is renormalised only when the output state is formed.
//!
//! Step-size control uses step doubling (Hairer–Nørsett–Wanner, Sec. II.4):
//! each step of size `h` is compared with two steps of size `h/2`; the
//! (conservative) raw difference is used as the local error estimate of the
//! step, in the mixed norm `max_i |e_i| / (tol (1 + |y_i|))`, and the more
//! accurate two-half-step result is propagated. The step-size update is the
//! usual `h_new = h * clamp(0.9 err^{-1/(p+1)}, 0.2, 3)` with `p = 2s`.
//!
//! The torque is piecewise constant: the time axis is split at every torque
//! window start and end, and each piece is integrated separately with the
//! torque fixed to its (constant) value on that piece, so a discontinuity never
//! lies inside a step and the last step of a piece lands exactly on the break.

/// A time window `[t_start, t_end)` during which a constant global torque acts.
/// Overlapping windows add up.
#[derive(Clone, Debug)]
pub struct TorqueWindow {
    pub t_start: f64,
    pub t_end: f64,
    pub torque: [f64; 3],
}

/// Description of a free rigid body and its initial state.
#[derive(Clone, Debug)]
pub struct RigidBodyRef {
    pub mass: f64,
    /// Inertia tensor about the centre of mass in the body frame (symmetric).
    pub inertia_body: [[f64; 3]; 3],
    pub x0: [f64; 3],
    pub v0: [f64; 3],
    /// `r0[i]` = director `d_{i+1}` as a global vector (columns of `R0`).
    pub r0: [[f64; 3]; 3],
    /// Body-frame angular velocity at `t = 0`.
    pub omega_body0: [f64; 3],
    pub torques: Vec<TorqueWindow>,
}

/// State of the body at the end of the integration.
#[derive(Clone, Debug)]
pub struct RefState {
    pub x: [f64; 3],
    /// `directors[i]` = director `d_{i+1}` as a global vector.
    pub directors: [[f64; 3]; 3],
    pub omega_body: [f64; 3],
}

/// Number of Gauss–Legendre stages (order `2 * STAGES`).
const STAGES: usize = 6;
/// Classical order of the method.
const ORDER: i32 = 2 * STAGES as i32;
/// Dimension of the ODE state `(q0, q1, q2, q3, Omega1, Omega2, Omega3)`.
const DIM: usize = 7;

type Vec3 = [f64; 3];
type Mat3 = [[f64; 3]; 3];
type State = [f64; DIM];

/// Integrate the rigid body from `t = 0` to `t_end` with local error tolerance
/// `tol` (relative/absolute mixed, per step) and return the final state.
pub fn integrate(body: &RigidBodyRef, t_end: f64, tol: f64) -> RefState {
    assert!(t_end >= 0.0, "t_end must be non-negative");
    assert!(tol > 0.0, "tol must be positive");
    let tableau = GaussTableau::new();
    let j_inv = inverse3(&body.inertia_body);

    // R0[row][col] = r0[col][row]
    let r0_mat: Mat3 = std::array::from_fn(|row| std::array::from_fn(|col| body.r0[col][row]));
    let q0 = quat_from_rotation(&r0_mat);
    let mut y: State = [
        q0[0],
        q0[1],
        q0[2],
        q0[3],
        body.omega_body0[0],
        body.omega_body0[1],
        body.omega_body0[2],
    ];

    // Break points: 0, t_end and every window boundary strictly inside.
    let mut breaks = vec![0.0, t_end];
    for w in &body.torques {
        for t in [w.t_start, w.t_end] {
            if t > 0.0 && t < t_end {
                breaks.push(t);
            }
        }
    }
    breaks.sort_by(f64::total_cmp);
    breaks.dedup();

    let mut h = 0.05_f64;
    for seg in breaks.windows(2) {
        let (a, b) = (seg[0], seg[1]);
        if b <= a {
            continue;
        }
        let mid = 0.5 * (a + b);
        let mut torque = [0.0; 3];
        for w in &body.torques {
            if w.t_start <= mid && mid < w.t_end {
                for (acc, tk) in torque.iter_mut().zip(w.torque) {
                    *acc += tk;
                }
            }
        }
        let rhs = Rhs {
            inertia: body.inertia_body,
            inertia_inv: j_inv,
            torque_global: torque,
        };
        h = integrate_segment(&tableau, &rhs, &mut y, b - a, h, tol);
    }

    let qn = (y[0] * y[0] + y[1] * y[1] + y[2] * y[2] + y[3] * y[3]).sqrt();
    let q = [y[0] / qn, y[1] / qn, y[2] / qn, y[3] / qn];
    let r = rotation_from_quat(&q);
    RefState {
        x: std::array::from_fn(|k| body.x0[k] + body.v0[k] * t_end),
        directors: std::array::from_fn(|i| std::array::from_fn(|row| r[row][i])),
        omega_body: [y[4], y[5], y[6]],
    }
}

/// Integrate over one piece of constant torque of length `len`, starting with
/// step `h`; returns the proposed next step size.
fn integrate_segment(
    tab: &GaussTableau,
    rhs: &Rhs,
    y: &mut State,
    len: f64,
    mut h: f64,
    tol: f64,
) -> f64 {
    let mut t = 0.0_f64;
    let mut h_next = h;
    let mut steps = 0usize;
    while t < len {
        steps += 1;
        assert!(steps < 10_000_000, "reference integrator: too many steps");
        let last = t + h >= len * (1.0 - 4.0 * f64::EPSILON);
        if last {
            h = len - t;
        }
        let full = gauss_step(tab, rhs, y, h);
        let half1 = full.and_then(|_| gauss_step(tab, rhs, y, 0.5 * h));
        let half2 = half1.and_then(|y1| gauss_step(tab, rhs, &y1, 0.5 * h));
        let (Some(y_full), Some(y_half)) = (full, half2) else {
            // Stage iteration did not converge: retry with a smaller step.
            h *= 0.25;
            continue;
        };
        let mut err = 0.0_f64;
        for k in 0..DIM {
            let scale = tol * (1.0 + y[k].abs().max(y_half[k].abs()));
            err = err.max((y_half[k] - y_full[k]).abs() / scale);
        }
        let fac = if err == 0.0 {
            3.0
        } else {
            (0.9 * err.powf(-1.0 / f64::from(ORDER + 1))).clamp(0.2, 3.0)
        };
        if err <= 1.0 {
            *y = y_half;
            if last {
                // Land exactly on the break point; keep the step size that
                // the controller would have used for a full step.
                h_next = if fac > 1.0 {
                    h_next.max(h * fac)
                } else {
                    h * fac
                };
                t = len;
            } else {
                t += h;
                h *= fac;
                h_next = h;
            }
        } else {
            h *= fac;
        }
    }
    h_next
}

/// Right-hand side of the rigid-body ODE on a piece of constant global torque.
struct Rhs {
    inertia: Mat3,
    inertia_inv: Mat3,
    torque_global: Vec3,
}

impl Rhs {
    fn eval(&self, y: &State) -> State {
        let (w, v) = (y[0], [y[1], y[2], y[3]]);
        let om = [y[4], y[5], y[6]];
        // q' = 1/2 q (x) (0, Omega)
        let dw = -0.5 * dot(v, om);
        let vxo = cross(v, om);
        let dv: Vec3 = std::array::from_fn(|k| 0.5 * (w * om[k] + vxo[k]));
        // J Omega' = R^T m - Omega x J Omega
        let r = rotation_from_quat(&[y[0], y[1], y[2], y[3]]);
        let m_body: Vec3 =
            std::array::from_fn(|k| (0..3).map(|i| r[i][k] * self.torque_global[i]).sum());
        let gyro = cross(om, matvec(&self.inertia, om));
        let rhs: Vec3 = std::array::from_fn(|k| m_body[k] - gyro[k]);
        let dom = matvec(&self.inertia_inv, rhs);
        [dw, dv[0], dv[1], dv[2], dom[0], dom[1], dom[2]]
    }
}

/// One step of the Gauss–Legendre method; `None` if the fixed-point iteration
/// for the stage equations fails to converge.
fn gauss_step(tab: &GaussTableau, rhs: &Rhs, y: &State, h: f64) -> Option<State> {
    let f0 = rhs.eval(y);
    // Stage increments Z_i = Y_i - y, initial guess from the explicit Euler.
    let mut z: [State; STAGES] = std::array::from_fn(|i| f0.map(|f| tab.c[i] * h * f));
    let mut f: [State; STAGES] = [[0.0; DIM]; STAGES];
    let scale = 1.0 + y.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let mut prev = f64::INFINITY;
    let mut converged = false;
    for _ in 0..100 {
        for j in 0..STAGES {
            let yj: State = std::array::from_fn(|k| y[k] + z[j][k]);
            f[j] = rhs.eval(&yj);
        }
        let mut change = 0.0_f64;
        for (zi, ai) in z.iter_mut().zip(&tab.a) {
            for (k, zik) in zi.iter_mut().enumerate() {
                let new = h * (0..STAGES).map(|j| ai[j] * f[j][k]).sum::<f64>();
                change = change.max((new - *zik).abs());
                *zik = new;
            }
        }
        // Stop at round-off level, or when the iteration stagnates there.
        if change <= 1e-16 * scale || (change >= prev && change <= 1e-13 * scale) {
            converged = true;
            break;
        }
        prev = change;
    }
    if !converged {
        return None;
    }
    for j in 0..STAGES {
        let yj: State = std::array::from_fn(|k| y[k] + z[j][k]);
        f[j] = rhs.eval(&yj);
    }
    Some(std::array::from_fn(|k| {
        y[k] + h * (0..STAGES).map(|j| tab.b[j] * f[j][k]).sum::<f64>()
    }))
}

/// Butcher tableau of the `STAGES`-stage Gauss–Legendre collocation method.
struct GaussTableau {
    a: [[f64; STAGES]; STAGES],
    b: [f64; STAGES],
    c: [f64; STAGES],
}

impl GaussTableau {
    fn new() -> Self {
        let (x, w) = gauss_legendre(STAGES);
        // Shift from [-1, 1] to [0, 1].
        let c: [f64; STAGES] = std::array::from_fn(|i| 0.5 * (1.0 + x[i]));
        let b: [f64; STAGES] = std::array::from_fn(|i| 0.5 * w[i]);
        // a_ij = int_0^{c_i} l_j(t) dt, exact with the Gauss rule on [0, c_i].
        let a = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                c[i] * (0..STAGES)
                    .map(|k| b[k] * lagrange(&c, j, c[i] * c[k]))
                    .sum::<f64>()
            })
        });
        Self { a, b, c }
    }
}

/// Lagrange basis polynomial `l_j` on `nodes`, evaluated at `t`.
fn lagrange(nodes: &[f64], j: usize, t: f64) -> f64 {
    nodes
        .iter()
        .enumerate()
        .filter(|&(m, _)| m != j)
        .map(|(_, &cm)| (t - cm) / (nodes[j] - cm))
        .product()
}

/// Legendre polynomial `P_n(x)` and its derivative, by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    for k in 2..=n {
        let kf = k as f64;
        let p2 = ((2.0 * kf - 1.0) * x * p1 - (kf - 1.0) * p0) / kf;
        p0 = p1;
        p1 = p2;
    }
    let nf = n as f64;
    (p1, nf * (x * p1 - p0) / (x * x - 1.0))
}

/// Nodes (ascending) and weights of the `n`-point Gauss–Legendre rule on [-1, 1].
fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut x = vec![0.0; n];
    let mut w = vec![0.0; n];
    for i in 0..n {
        // Chebyshev-like initial guess, then Newton on P_n.
        let mut xi = -(std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
        for _ in 0..100 {
            let (p, dp) = legendre(n, xi);
            let dx = p / dp;
            xi -= dx;
            if dx.abs() < 1e-17 {
                break;
            }
        }
        let (_, dp) = legendre(n, xi);
        x[i] = xi;
        w[i] = 2.0 / ((1.0 - xi * xi) * dp * dp);
    }
    (x, w)
}

fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn matvec(m: &Mat3, v: Vec3) -> Vec3 {
    std::array::from_fn(|i| dot(m[i], v))
}

/// Inverse of a 3x3 matrix by cofactors.
fn inverse3(m: &Mat3) -> Mat3 {
    let cof =
        |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let c = [
        [cof(1, 2, 1, 2), -cof(1, 2, 0, 2), cof(1, 2, 0, 1)],
        [-cof(0, 2, 1, 2), cof(0, 2, 0, 2), -cof(0, 2, 0, 1)],
        [cof(0, 1, 1, 2), -cof(0, 1, 0, 2), cof(0, 1, 0, 1)],
    ];
    let det = m[0][0] * c[0][0] + m[0][1] * c[0][1] + m[0][2] * c[0][2];
    assert!(det.abs() > 0.0, "singular inertia tensor");
    // inverse = adjugate / det = cofactor^T / det
    std::array::from_fn(|i| std::array::from_fn(|j| c[j][i] / det))
}

/// Rotation matrix of the quaternion `q = (w, x, y, z)` (homogeneous form; equal
/// to the usual formula for unit `q`).
fn rotation_from_quat(q: &[f64; 4]) -> Mat3 {
    let [w, x, y, z] = *q;
    [
        [
            w * w + x * x - y * y - z * z,
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            w * w - x * x + y * y - z * z,
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            w * w - x * x - y * y + z * z,
        ],
    ]
}

/// Unit quaternion of a rotation matrix (Shepperd's method: pick the largest of
/// `trace, R00, R11, R22` to avoid cancellation).
fn quat_from_rotation(r: &Mat3) -> [f64; 4] {
    let tr = r[0][0] + r[1][1] + r[2][2];
    let q = if tr >= r[0][0] && tr >= r[1][1] && tr >= r[2][2] {
        let w = 0.5 * (1.0 + tr).sqrt();
        let s = 0.25 / w;
        [
            w,
            (r[2][1] - r[1][2]) * s,
            (r[0][2] - r[2][0]) * s,
            (r[1][0] - r[0][1]) * s,
        ]
    } else if r[0][0] >= r[1][1] && r[0][0] >= r[2][2] {
        let x = 0.5 * (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt();
        let s = 0.25 / x;
        [
            (r[2][1] - r[1][2]) * s,
            x,
            (r[0][1] + r[1][0]) * s,
            (r[0][2] + r[2][0]) * s,
        ]
    } else if r[1][1] >= r[2][2] {
        let y = 0.5 * (1.0 - r[0][0] + r[1][1] - r[2][2]).sqrt();
        let s = 0.25 / y;
        [
            (r[0][2] - r[2][0]) * s,
            (r[0][1] + r[1][0]) * s,
            y,
            (r[1][2] + r[2][1]) * s,
        ]
    } else {
        let z = 0.5 * (1.0 - r[0][0] - r[1][1] + r[2][2]).sqrt();
        let s = 0.25 / z;
        [
            (r[1][0] - r[0][1]) * s,
            (r[0][2] + r[2][0]) * s,
            (r[1][2] + r[2][1]) * s,
            z,
        ]
    };
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    q.map(|v| v / n)
}

/// Self-checks of the reference integrator. They are plain functions (not
/// `#[test]`s) so that test binaries which merely use `mod common;` do not
/// re-run them; `tests/reference_selfcheck.rs` wraps each one in a `#[test]`.
#[cfg(test)]
pub mod tests {
    use super::*;

    /// Rotation about the unit `axis` by `angle` (Rodrigues' formula; built
    /// independently of the quaternion code that is under test).
    fn rodrigues(axis: Vec3, angle: f64) -> Mat3 {
        let n = dot(axis, axis).sqrt();
        let k = axis.map(|a| a / n);
        let (s, c) = angle.sin_cos();
        std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let kx = [[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]];
                let id = if i == j { 1.0 } else { 0.0 };
                id * c + s * kx[i][j] + (1.0 - c) * k[i] * k[j]
            })
        })
    }

    /// Directors (`d[i]` = column `i`) of a rotation matrix.
    fn columns(r: &Mat3) -> [Vec3; 3] {
        std::array::from_fn(|i| std::array::from_fn(|row| r[row][i]))
    }

    /// Rotation matrix whose columns are the directors.
    fn from_columns(d: &[Vec3; 3]) -> Mat3 {
        std::array::from_fn(|row| std::array::from_fn(|col| d[col][row]))
    }

    fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }

    fn flat(s: &RefState) -> Vec<f64> {
        s.directors
            .iter()
            .flatten()
            .chain(s.omega_body.iter())
            .chain(s.x.iter())
            .copied()
            .collect()
    }

    fn print_directors(label: &str, s: &RefState) {
        eprintln!("{label}:");
        for (i, d) in s.directors.iter().enumerate() {
            eprintln!(
                "  d{} = ({:+.12}, {:+.12}, {:+.12})",
                i + 1,
                d[0],
                d[1],
                d[2]
            );
        }
        eprintln!(
            "  Omega_body = ({:+.12}, {:+.12}, {:+.12})",
            s.omega_body[0], s.omega_body[1], s.omega_body[2]
        );
        eprintln!("  x = ({:.12}, {:.12}, {:.12})", s.x[0], s.x[1], s.x[2]);
    }

    /// The box `[-1,1] x [-0.5,0.5] x [-0.5,0.5]` with density 1.5.
    fn published_box(torque_window: (f64, f64)) -> RigidBodyRef {
        RigidBodyRef {
            mass: 3.0,
            inertia_body: [[0.5, 0.0, 0.0], [0.0, 1.25, 0.0], [0.0, 0.0, 1.25]],
            x0: [0.0; 3],
            v0: [5.0, 5.0, 5.0],
            r0: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            omega_body0: [0.0; 3],
            torques: vec![TorqueWindow {
                t_start: torque_window.0,
                t_end: torque_window.1,
                torque: [1.0, 1.0, 1.0],
            }],
        }
    }

    /// Asymmetric body with a non-diagonal inertia tensor, tumbling near the
    /// (unstable) intermediate axis, general initial orientation.
    fn asymmetric_body(torques: Vec<TorqueWindow>) -> RigidBodyRef {
        RigidBodyRef {
            mass: 2.0,
            inertia_body: [[2.0, 0.1, -0.05], [0.1, 3.0, 0.2], [-0.05, 0.2, 4.5]],
            x0: [1.0, -2.0, 0.5],
            v0: [0.3, 0.1, -0.2],
            r0: columns(&rodrigues([0.3, -0.7, 0.5], 2.1)),
            omega_body0: [0.2, 1.5, -0.4],
            torques,
        }
    }

    fn energy_and_momentum(body: &RigidBodyRef, s: &RefState) -> (f64, Vec3) {
        let j_om = matvec(&body.inertia_body, s.omega_body);
        let e = 0.5 * dot(s.omega_body, j_om);
        let l = std::array::from_fn(|i| (0..3).map(|k| s.directors[k][i] * j_om[k]).sum());
        (e, l)
    }

    /// Sanity of the computed Gauss–Legendre tableau: order conditions
    /// `sum_j b_j c_j^{k-1} = 1/k` (k <= 2s) and `C(s)`:
    /// `sum_j a_ij c_j^{k-1} = c_i^k / k` (k <= s).
    pub fn tableau_order_conditions() {
        let t = GaussTableau::new();
        let mut worst = 0.0_f64;
        for k in 1..=2 * STAGES {
            let s: f64 = (0..STAGES)
                .map(|j| t.b[j] * t.c[j].powi(k as i32 - 1))
                .sum();
            worst = worst.max((s - 1.0 / k as f64).abs());
        }
        for i in 0..STAGES {
            for k in 1..=STAGES {
                let s: f64 = (0..STAGES)
                    .map(|j| t.a[i][j] * t.c[j].powi(k as i32 - 1))
                    .sum();
                worst = worst.max((s - t.c[i].powi(k as i32) / k as f64).abs());
            }
        }
        eprintln!("Gauss-Legendre s={STAGES}: worst order-condition residual {worst:.2e}");
        assert!(worst < 1e-15, "tableau residual {worst:e}");
    }

    /// Rotation matrix -> quaternion -> rotation matrix round trip, exercising
    /// all four branches of Shepperd's method.
    pub fn quaternion_round_trip() {
        let cases = [
            ([0.3, -0.7, 0.5], 2.1),
            ([1.0, 0.0, 0.0], 3.0),
            ([0.1, 1.0, 0.0], 3.1),
            ([0.0, 0.2, 1.0], -3.0),
            ([1.0, 1.0, 1.0], 0.2),
        ];
        for (axis, angle) in cases {
            let r = rodrigues(axis, angle);
            let back = rotation_from_quat(&quat_from_rotation(&r));
            let d = max_abs_diff(r.as_flattened(), back.as_flattened());
            assert!(d < 1e-15, "round trip error {d:e} for axis {axis:?}");
        }
    }

    /// Check 1: torque-free asymmetric body; kinetic energy and global angular
    /// momentum are conserved over t = 100.
    pub fn torque_free_conservation() {
        let body = asymmetric_body(Vec::new());
        let s0 = integrate(&body, 0.0, 1e-13);
        let (e0, l0) = energy_and_momentum(&body, &s0);
        let l0n = dot(l0, l0).sqrt();
        let (mut worst_e, mut worst_l, mut worst_orth) = (0.0_f64, 0.0_f64, 0.0_f64);
        for k in 1..=10 {
            let t = 10.0 * f64::from(k);
            let s = integrate(&body, t, 1e-13);
            let (e, l) = energy_and_momentum(&body, &s);
            worst_e = worst_e.max((e - e0).abs() / e0);
            worst_l = worst_l.max(max_abs_diff(&l, &l0) / l0n);
            let r = from_columns(&s.directors);
            for i in 0..3 {
                for j in 0..3 {
                    let rtr: f64 = (0..3).map(|m| r[m][i] * r[m][j]).sum();
                    let id = if i == j { 1.0 } else { 0.0 };
                    worst_orth = worst_orth.max((rtr - id).abs());
                }
            }
            let x_exact: Vec3 = std::array::from_fn(|i| body.x0[i] + body.v0[i] * t);
            assert!(max_abs_diff(&s.x, &x_exact) < 1e-14);
        }
        eprintln!(
            "torque-free conservation over t=100 (tol 1e-13): \
             rel. energy error {worst_e:.3e}, rel. global angular momentum error \
             {worst_l:.3e}, |R^T R - I| {worst_orth:.3e}"
        );
        assert!(worst_e < 1e-12, "energy drift {worst_e:e}");
        assert!(worst_l < 1e-12, "angular momentum drift {worst_l:e}");
        assert!(worst_orth < 1e-14);
    }

    /// Check 2: results at tol 1e-10 and 1e-13 agree to better than 1e-8.
    pub fn tolerance_convergence() {
        let torques = vec![
            TorqueWindow {
                t_start: 0.7,
                t_end: 2.3,
                torque: [0.5, -1.0, 0.3],
            },
            TorqueWindow {
                t_start: 1.9,
                t_end: 4.1,
                torque: [-0.2, 0.4, 1.0],
            },
        ];
        let cases = [
            ("published box", published_box((0.5, 1.5)), 4.0),
            (
                "asymmetric, torque-free",
                asymmetric_body(Vec::new()),
                100.0,
            ),
            (
                "asymmetric, overlapping torques",
                asymmetric_body(torques),
                6.0,
            ),
        ];
        for (name, body, t_end) in cases {
            let coarse = integrate(&body, t_end, 1e-10);
            let fine = integrate(&body, t_end, 1e-13);
            let d = max_abs_diff(&flat(&coarse), &flat(&fine));
            eprintln!("tol 1e-10 vs 1e-13, {name} (t={t_end}): max diff {d:.3e}");
            assert!(d < 1e-8, "{name}: tolerance sensitivity {d:e}");
        }
    }

    /// Analytic solutions: steady spin and spin-up from rest about a principal
    /// axis by a torque window (exercises the break points).
    pub fn analytic_principal_axis() {
        // Steady spin about body axis 3 (aligned with global e3).
        let omega = 1.7;
        let body = RigidBodyRef {
            mass: 1.0,
            inertia_body: [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
            x0: [0.0; 3],
            v0: [0.0; 3],
            r0: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            omega_body0: [0.0, 0.0, omega],
            torques: Vec::new(),
        };
        let t = 7.3;
        let s = integrate(&body, t, 1e-13);
        let th = omega * t;
        let exact = [
            [th.cos(), th.sin(), 0.0],
            [-th.sin(), th.cos(), 0.0],
            [0.0, 0.0, 1.0],
        ];
        let d = max_abs_diff(s.directors.as_flattened(), exact.as_flattened());
        eprintln!("steady spin: director error {d:.3e}");
        assert!(d < 1e-12);

        // Spin-up: torque tau e3 on [0.3, 1.1], from rest, t_end = 2.
        let tau = 2.5;
        let body = RigidBodyRef {
            omega_body0: [0.0; 3],
            torques: vec![TorqueWindow {
                t_start: 0.3,
                t_end: 1.1,
                torque: [0.0, 0.0, tau],
            }],
            ..body
        };
        let alpha = tau / 3.0;
        let th = 0.5 * alpha * 0.8 * 0.8 + alpha * 0.8 * (2.0 - 1.1);
        let s = integrate(&body, 2.0, 1e-13);
        let exact = [
            [th.cos(), th.sin(), 0.0],
            [-th.sin(), th.cos(), 0.0],
            [0.0, 0.0, 1.0],
        ];
        let d = max_abs_diff(s.directors.as_flattened(), exact.as_flattened());
        let dw = (s.omega_body[2] - alpha * 0.8).abs();
        eprintln!("spin-up: director error {d:.3e}, omega error {dw:.3e}");
        assert!(d < 1e-12 && dw < 1e-13);
    }

    /// Check 3: the published box case, torque (1,1,1) on [0.5, 1.5], t = 4.
    pub fn published_case() {
        let body = published_box((0.5, 1.5));
        let s = integrate(&body, 4.0, 1e-13);
        print_directors("published case (torque on [0.5,1.5], t=4)", &s);
        let expected = [
            [-0.0182, 0.0186, 0.9997],
            [-0.9047, -0.4260, -0.0086],
            [0.4257, -0.9045, 0.0246],
        ];
        let d = max_abs_diff(s.directors.as_flattened(), expected.as_flattened());
        eprintln!("  max deviation from published 4-digit values: {d:.3e}");
        assert!(d < 2e-4, "published case deviates by {d:e}");
        assert!(max_abs_diff(&s.x, &[20.0, 20.0, 20.0]) < 1e-13);
    }

    /// Check 4: constant torque (1,1,1) on [0, 1], same box, t = 1 (recorded).
    pub fn constant_torque_case() {
        let body = published_box((0.0, 1.0));
        let s = integrate(&body, 1.0, 1e-13);
        print_directors("constant torque (1,1,1) on [0,1], t=1", &s);
        let coarse = integrate(&body, 1.0, 1e-10);
        let d = max_abs_diff(&flat(&coarse), &flat(&s));
        assert!(d < 1e-8);
    }
}
