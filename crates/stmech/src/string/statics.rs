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

use super::newton::{BandedJacobian, BandedSystem, solve_banded};
use super::{Compression, StringModel, StringPointLaw};
use crate::error::SolveError;
use crate::solve::banded::BandedLu;
use crate::solve::newton::{NewtonContext, NewtonParams, Stage};

/// The static equilibrium of the free nodes `1 … n` (3 rows each, one group: forces, N).
struct Hanging<'a> {
    model: &'a StringModel,
    law: StringPointLaw,
    ns: usize,
    hs: f64,
    top: [f64; 3],
    groups: Vec<u8>,
}

impl Hanging<'_> {
    fn node(&self, x: &[f64], i: usize) -> [f64; 3] {
        if i == 0 {
            self.top
        } else {
            [0, 1, 2].map(|c| x[3 * (i - 1) + c])
        }
    }
}

impl BandedSystem for Hanging<'_> {
    type Error = SolveError;

    fn row_groups(&self) -> &[u8] {
        &self.groups
    }

    /// `r_i = Σ_e ±n_e − f_i` (internal minus external force), `m_i = Σ |terms|`.
    fn assemble(
        &mut self,
        x: &[f64],
        res: &mut [f64],
        mag: &mut [f64],
        mut jac: Option<&mut BandedJacobian<'_>>,
    ) -> Result<(), SolveError> {
        let (ns, hs, model) = (self.ns, self.hs, self.model);
        for i in 1..=ns {
            let share = if i == ns { 0.5 } else { 1.0 };
            for c in 0..3 {
                let mut f = model.rho_a * hs * share * model.gravity[c];
                if i == ns {
                    f += model.payload_mass * model.gravity[c];
                }
                res[3 * (i - 1) + c] -= f;
                mag[3 * (i - 1) + c] += f.abs();
            }
        }
        for el in 0..ns {
            let (a, b) = (self.node(x, el), self.node(x, el + 1));
            let d = [0, 1, 2].map(|c| (b[c] - a[c]) / hs);
            let (f, k) = self
                .law
                .force(d, jac.is_some())
                .map_err(|e| SolveError::Factorization(e.to_string()))?;
            for (node, sign) in [(el, -1.0), (el + 1, 1.0)] {
                if node == 0 {
                    continue;
                }
                for c in 0..3 {
                    res[3 * (node - 1) + c] += sign * f[c];
                    mag[3 * (node - 1) + c] += f[c].abs();
                }
                let Some(jac) = jac.as_deref_mut() else {
                    continue;
                };
                for (other, so) in [(el, -1.0), (el + 1, 1.0)] {
                    if other == 0 {
                        continue;
                    }
                    for c in 0..3 {
                        for dd in 0..3 {
                            jac.add(
                                3 * (node - 1) + c,
                                3 * (other - 1) + dd,
                                sign * so * k[c][dd] / hs,
                            );
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Newton on the hanging string: nodal positions at equilibrium with the top at `top`, by the
/// one driver ([`crate::solve::newton::drive`], default [`NewtonParams`]: relative tolerance
/// `1e-10` of the forces at the nodes, the weights and the tensions). Returns the nodes and
/// the Newton iterations.
pub fn solve_static(
    model: &StringModel,
    elements_s: usize,
    top: [f64; 3],
) -> Result<(Vec<[f64; 3]>, usize), SolveError> {
    let ns = elements_s;
    let hs = model.length / ns as f64;
    let down = model.up().map(|c| -c);
    // unstretched start: ν = 1 everywhere (no tension, no transverse stiffness), so add a
    // small stretch to make the first Jacobian regular
    let mut x: Vec<f64> = (1..=ns)
        .flat_map(|i| [0, 1, 2].map(|c| top[c] + 1.001 * i as f64 * hs * down[c]))
        .collect();
    let mut lu = BandedLu::new(3 * ns, 5, 5);
    let mut sys = Hanging {
        model,
        law: model.point_law(Compression::Slack),
        ns,
        hs,
        top,
        groups: vec![0; 3 * ns],
    };
    let cx = NewtonContext {
        stage: Stage::StringStatics,
        ..Default::default()
    };
    let rep = solve_banded(&mut sys, &mut lu, &mut x, &NewtonParams::default())
        .map_err(|e| e.into_solve_error(cx, |_, e| e))?;
    let mut r = vec![top];
    r.extend(x.chunks(3).map(|p| [p[0], p[1], p[2]]));
    Ok((r, rep.iterations))
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
