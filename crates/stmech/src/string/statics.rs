//! Statics and small oscillations of the hanging string (issue 17's first checks).
//!
//! * [`solve_static`]: Newton on the free nodes of the linear-element string (one-point
//!   stiffness rule, consistent loads, payload at `s = L`, suspension point fixed), started from
//!   the *unstretched* rope along `up` — it does not use the closed form of
//!   [`StringModel::hanging_nodes`], so it checks it (and the element law).
//! * [`transverse_frequencies`]: the linearised transverse vibration about the hanging
//!   equilibrium, `K φ = ω² M φ` with the consistent mass and the tangent `∂n/∂r'`
//!   (transverse part `N_e/(ν_e h)` per element), the lowest angular frequencies (rad/s). The
//!   continuum problem `ρA ü = ∂s(N u')`, `N = |g|(m + ρA(L − s))`, `u(0) = 0`,
//!   `m ü(L) = −N(L) u'(L)` has, with `σ = m/ρA + L − s`, the modes
//!   `φ = A J₀(2ω√(σ/g)) + B Y₀(2ω√(σ/g))`; without payload `ω_k = j₀,k/2 · √(g/L)` (the
//!   hanging chain, `j₀,k` the zeros of `J₀`), with a heavy payload `ω₁ → √(g/L)` (pendulum).

use super::{Compression, StringModel};
use crate::error::SolveError;
use crate::solve::banded::BandedLu;

/// Newton on the hanging string: nodal positions at equilibrium with the top at `top`.
/// Returns the nodes and the Newton iterations.
pub fn solve_static(
    model: &StringModel,
    elements_s: usize,
    top: [f64; 3],
) -> Result<(Vec<[f64; 3]>, usize), SolveError> {
    let ns = elements_s;
    let hs = model.length / ns as f64;
    let law = model.point_law(Compression::Slack);
    let down = model.up().map(|c| -c);
    // unstretched start: ν = 1 everywhere (no tension, no transverse stiffness), so add a
    // small stretch to make the first Jacobian regular
    let mut r: Vec<[f64; 3]> = (0..=ns)
        .map(|i| [0, 1, 2].map(|c| top[c] + 1.001 * i as f64 * hs * down[c]))
        .collect();
    let mut lu = BandedLu::new(3 * ns, 5, 5);
    let mut res = vec![0.0; 3 * ns];
    let weight = model.g() * (model.payload_mass + model.rho_a * model.length);
    let scale = model.length + top.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for it in 0..50 {
        res.fill(0.0);
        lu.clear();
        for i in 1..=ns {
            let share = if i == ns { 0.5 } else { 1.0 };
            for c in 0..3 {
                res[3 * (i - 1) + c] -= model.rho_a * hs * share * model.gravity[c];
                if i == ns {
                    res[3 * (i - 1) + c] -= model.payload_mass * model.gravity[c];
                }
            }
        }
        for el in 0..ns {
            let d = [0, 1, 2].map(|c| (r[el + 1][c] - r[el][c]) / hs);
            let (f, k) = law
                .force(d, true)
                .map_err(|e| SolveError::Factorization(e.to_string()))?;
            for (node, sign) in [(el, -1.0), (el + 1, 1.0)] {
                if node == 0 {
                    continue;
                }
                for c in 0..3 {
                    res[3 * (node - 1) + c] += sign * f[c];
                }
                for (other, so) in [(el, -1.0), (el + 1, 1.0)] {
                    if other == 0 {
                        continue;
                    }
                    for c in 0..3 {
                        for d in 0..3 {
                            lu.add(
                                3 * (node - 1) + c,
                                3 * (other - 1) + d,
                                sign * so * k[c][d] / hs,
                            );
                        }
                    }
                }
            }
        }
        let norm = res.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if norm < 1e-12 * weight {
            return Ok((r, it));
        }
        lu.factorize()?;
        lu.solve_in_place(&mut res);
        let step = res.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for i in 1..=ns {
            for c in 0..3 {
                r[i][c] -= res[3 * (i - 1) + c];
            }
        }
        // the residual's round-off floor is ~EA ε |r|/h: stop once the update is at the
        // round-off of the positions
        if step <= 1e-14 * scale {
            return Ok((r, it + 1));
        }
    }
    Err(SolveError::Factorization(
        "static Newton of the hanging string did not converge in 50 iterations".into(),
    ))
}

/// The lowest `count` transverse angular frequencies (rad/s) of the discrete string about its
/// hanging equilibrium ([`StringModel::hanging_nodes`]), one transverse direction.
pub fn transverse_frequencies(
    model: &StringModel,
    elements_s: usize,
    count: usize,
) -> Result<Vec<f64>, SolveError> {
    use faer::{Mat, Side};
    let ns = elements_s;
    let hs = model.length / ns as f64;
    let law = model.point_law(Compression::Slack);
    let x = model.hanging_nodes(ns);
    // a horizontal unit vector e ⊥ up: the transverse direction
    let up = model.up();
    let a = if up[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let dot = a[0] * up[0] + a[1] * up[1] + a[2] * up[2];
    let mut e = [0, 1, 2].map(|c| a[c] - dot * up[c]);
    let ne = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
    e = e.map(|c| c / ne);
    let mut k = Mat::<f64>::zeros(ns, ns);
    let mut m = Mat::<f64>::zeros(ns, ns);
    for el in 0..ns {
        let d = [0, 1, 2].map(|c| (x[el + 1][c] - x[el][c]) / hs);
        let (_, kt) = law
            .force(d, true)
            .map_err(|err| SolveError::Factorization(err.to_string()))?;
        // eᵀ (∂n/∂r') e / h
        let mut ke = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                ke += e[i] * kt[i][j] * e[j];
            }
        }
        ke /= hs;
        let me = model.rho_a * hs / 6.0;
        for (p, q, sk, sm) in [
            (el, el, 1.0, 2.0),
            (el + 1, el + 1, 1.0, 2.0),
            (el, el + 1, -1.0, 1.0),
            (el + 1, el, -1.0, 1.0),
        ] {
            if p == 0 || q == 0 {
                continue;
            }
            k[(p - 1, q - 1)] += sk * ke;
            m[(p - 1, q - 1)] += sm * me;
        }
    }
    m[(ns - 1, ns - 1)] += model.payload_mass;
    // M = L Lᵀ, A = L⁻¹ K L⁻ᵀ
    let llt = m
        .llt(Side::Lower)
        .map_err(|_| SolveError::Factorization("mass matrix not positive definite".into()))?;
    let l = llt.L().to_owned();
    let mut linv = Mat::<f64>::identity(ns, ns);
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(
        l.as_ref(),
        linv.as_mut(),
        faer::Par::Seq,
    );
    let amat = &linv * &k * linv.transpose();
    let sym = Mat::<f64>::from_fn(ns, ns, |i, j| 0.5 * (amat[(i, j)] + amat[(j, i)]));
    let ev = sym
        .self_adjoint_eigenvalues(Side::Lower)
        .map_err(|_| SolveError::Factorization("symmetric eigensolver failed".into()))?;
    let mut w: Vec<f64> = ev.iter().map(|&l| l.max(0.0).sqrt()).collect();
    w.sort_by(f64::total_cmp);
    w.truncate(count);
    Ok(w)
}
