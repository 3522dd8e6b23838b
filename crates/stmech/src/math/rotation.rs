//! Rotations: Rodrigues' formula, unit quaternions `q = (w, x, y, z)` and frames (the
//! directors `d_k = R e_k`, the columns of the rotation matrix `R`).
//!
//! Conventions: `q ⊗ p` is the Hamilton product; `q` rotates `v` as `q ⊗ (0, v) ⊗ q*`; the
//! rotation vector `ψ = φ n` (angle `φ`, unit axis `n`) gives `q = (cos φ/2, sin φ/2 n)`. The
//! spatial angular velocity of a moving frame is `ω = 2 vec(q̇ ⊗ q*)`, its derivative
//! `α = 2 vec(q̈ ⊗ q*)` (the scalar part of `q̇ ⊗ q̇*` is `|q̇|²`, real, so it drops out).

use super::{Vec3, cross, dot};

/// A quaternion `(w, x, y, z)`.
pub type Quat = [f64; 4];

/// Rotation of `v` about the unit `axis` by `angle` (Rodrigues).
pub fn rotate(axis: &Vec3, angle: f64, v: &Vec3) -> Vec3 {
    let (s, c) = angle.sin_cos();
    let axv = cross(axis, v);
    let adv = dot(axis, v);
    [
        v[0] * c + axv[0] * s + axis[0] * adv * (1.0 - c),
        v[1] * c + axv[1] * s + axis[1] * adv * (1.0 - c),
        v[2] * c + axv[2] * s + axis[2] * adv * (1.0 - c),
    ]
}

/// Hamilton product `a ⊗ b`.
pub fn quat_mul(a: &Quat, b: &Quat) -> Quat {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// Conjugate `q*`.
pub fn quat_conj(q: &Quat) -> Quat {
    [q[0], -q[1], -q[2], -q[3]]
}

/// `|q|`.
pub fn quat_norm(q: &Quat) -> f64 {
    q.iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// The unit quaternion of the rotation vector `ψ` (angle `|ψ|` about `ψ/|ψ|`).
pub fn quat_from_rotation_vector(psi: &Vec3) -> Quat {
    let phi = dot(psi, psi).sqrt();
    if phi < 1e-8 {
        // sin(φ/2)/φ = 1/2 − φ²/48 + …
        let s = 0.5 - phi * phi / 48.0;
        let w = 1.0 - phi * phi / 8.0;
        let q = [w, s * psi[0], s * psi[1], s * psi[2]];
        let n = quat_norm(&q);
        return q.map(|c| c / n);
    }
    let (s, c) = (0.5 * phi).sin_cos();
    [c, s * psi[0] / phi, s * psi[1] / phi, s * psi[2] / phi]
}

/// The unit quaternion of a rotation matrix given by its columns `d` (the directors), by
/// Shepperd's method (the largest of `w², x², y², z²` first: no cancellation). Assumes `d`
/// orthonormal and right-handed (see [`frame_error`]).
pub fn quat_from_frame(d: &[Vec3; 3]) -> Quat {
    // R_ij = d[j][i]
    let r = |i: usize, j: usize| d[j][i];
    let tr = r(0, 0) + r(1, 1) + r(2, 2);
    let cands = [tr, r(0, 0), r(1, 1), r(2, 2)];
    let k = (0..4)
        .max_by(|&a, &b| cands[a].total_cmp(&cands[b]))
        .unwrap_or(0);
    let q = match k {
        0 => {
            let w = 0.5 * (1.0 + tr).max(0.0).sqrt();
            let f = 0.25 / w;
            [
                w,
                (r(2, 1) - r(1, 2)) * f,
                (r(0, 2) - r(2, 0)) * f,
                (r(1, 0) - r(0, 1)) * f,
            ]
        }
        1 => {
            let x = 0.5 * (1.0 + 2.0 * r(0, 0) - tr).max(0.0).sqrt();
            let f = 0.25 / x;
            [
                (r(2, 1) - r(1, 2)) * f,
                x,
                (r(0, 1) + r(1, 0)) * f,
                (r(0, 2) + r(2, 0)) * f,
            ]
        }
        2 => {
            let y = 0.5 * (1.0 + 2.0 * r(1, 1) - tr).max(0.0).sqrt();
            let f = 0.25 / y;
            [
                (r(0, 2) - r(2, 0)) * f,
                (r(0, 1) + r(1, 0)) * f,
                y,
                (r(1, 2) + r(2, 1)) * f,
            ]
        }
        _ => {
            let z = 0.5 * (1.0 + 2.0 * r(2, 2) - tr).max(0.0).sqrt();
            let f = 0.25 / z;
            [
                (r(1, 0) - r(0, 1)) * f,
                (r(0, 2) + r(2, 0)) * f,
                (r(1, 2) + r(2, 1)) * f,
                z,
            ]
        }
    };
    let n = quat_norm(&q);
    q.map(|c| c / n)
}

/// `q ⊗ (0, v) ⊗ q*` for a unit `q`.
pub fn quat_rotate(q: &Quat, v: &Vec3) -> Vec3 {
    let u = [q[1], q[2], q[3]];
    let t = cross(&u, v).map(|c| 2.0 * c);
    let ut = cross(&u, &t);
    [
        v[0] + q[0] * t[0] + ut[0],
        v[1] + q[0] * t[1] + ut[1],
        v[2] + q[0] * t[2] + ut[2],
    ]
}

/// The frame (directors `d_k = R e_k`) of a unit quaternion.
pub fn frame_of_quat(q: &Quat) -> [Vec3; 3] {
    [
        quat_rotate(q, &[1.0, 0.0, 0.0]),
        quat_rotate(q, &[0.0, 1.0, 0.0]),
        quat_rotate(q, &[0.0, 0.0, 1.0]),
    ]
}

/// How far `d` is from a rotation: `max_ij |d_i · d_j − δ_ij|` and the determinant
/// `d_1 · (d_2 × d_3)` (−1 for a reflection).
pub fn frame_error(d: &[Vec3; 3]) -> (f64, f64) {
    let mut e = 0.0f64;
    for i in 0..3 {
        for j in 0..3 {
            let delta = if i == j { 1.0 } else { 0.0 };
            e = e.max((dot(&d[i], &d[j]) - delta).abs());
        }
    }
    (e, dot(&d[0], &cross(&d[1], &d[2])))
}

/// The rotation vector `ψ` (angle in `[0, π]`) of a unit quaternion.
pub fn rotation_vector_of_quat(q: &Quat) -> Vec3 {
    let q = if q[0] < 0.0 { q.map(|c| -c) } else { *q };
    let s = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let phi = 2.0 * s.atan2(q[0]);
    if s < 1e-12 {
        return [2.0 * q[1], 2.0 * q[2], 2.0 * q[3]];
    }
    [q[1] * phi / s, q[2] * phi / s, q[3] * phi / s]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn quaternion_rotation_is_rodrigues() {
        let psi = [0.3, -1.1, 0.7];
        let phi = dot(&psi, &psi).sqrt();
        let axis = psi.map(|c| c / phi);
        let q = quat_from_rotation_vector(&psi);
        assert!((quat_norm(&q) - 1.0).abs() < 1e-15);
        let v = [0.2, 0.5, -1.3];
        assert!(close(&quat_rotate(&q, &v), &rotate(&axis, phi, &v), 1e-15));
        // composition: the product rotates by one after the other
        let p = quat_from_rotation_vector(&[0.0, 0.4, 0.0]);
        let pq = quat_mul(&p, &q);
        assert!(close(
            &quat_rotate(&pq, &v),
            &quat_rotate(&p, &quat_rotate(&q, &v)),
            1e-15
        ));
        assert!(close(&rotation_vector_of_quat(&q), &psi, 1e-14));
        // small angles
        let tiny = [1e-10, -2e-10, 3e-10];
        assert!(close(
            &rotation_vector_of_quat(&quat_from_rotation_vector(&tiny)),
            &tiny,
            1e-22
        ));
    }

    #[test]
    fn frames_and_quaternions_round_trip() {
        for psi in [
            [0.3, -1.1, 0.7],
            [3.1, 0.0, 0.0],
            [0.0, -3.1, 0.2],
            [0.1, 0.1, 3.13],
            [0.0; 3],
        ] {
            let q = quat_from_rotation_vector(&psi);
            let d = frame_of_quat(&q);
            let (e, det) = frame_error(&d);
            assert!(e < 1e-15 && (det - 1.0).abs() < 1e-15);
            let back = quat_from_frame(&d);
            // q and −q are the same rotation
            let sign =
                if dot(&[back[0], back[1], back[2]], &[q[0], q[1], q[2]]) + back[3] * q[3] < 0.0 {
                    -1.0
                } else {
                    1.0
                };
            assert!(close(&back.map(|c| sign * c), &q, 1e-15), "{psi:?}");
        }
        let reflection = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];
        assert_eq!(frame_error(&reflection).1, -1.0);
    }
}
