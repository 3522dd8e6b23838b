//! The spatial Simo–Reissner beam as a point law of the bilinear space-time element
//! ([`PointLaw<6>`]): position and rotation vector per point, `x = (r, ψ)`.
//!
//! # Kinematics
//! The section frame is `R = Q(ψ) R0`, `R0 = [d1 d2 d3]` the straight reference frame (columns
//! the directors at rest, `d3` along the beam) and `Q(ψ) = exp(ψ̂)` ([`crate::math::so3`]). With
//! `T(ψ)` the tangent map (`ω = T ψ̇`, `δθ = T δψ`) and the identities `Qᵀ T = Tᵀ`, `Tᵀ Q = T`:
//!
//! ```text
//! Γ = R0ᵀ Qᵀ r′ − e3          (shear Γ1, Γ2, axial strain Γ3; zero at rest)
//! K = R0ᵀ Tᵀ ψ′               (bending K1, K2 about d1, d2; torsion K3): K = Rᵀ κ, κ̂ = R′ Rᵀ
//! Ψ = ½ πᵀ C π,   π = (Γ, K)  (the one model's section law, [`Section`])
//! ```
//!
//! # Generalised stresses (`g_p = ∂Ψ/∂(r′, ψ′)`, `g_x = ∂Ψ/∂(r, ψ)`)
//! With `s = C π = (N, M)` (director components), `ñ = R0 N`, `m̃ = R0 M` and the spatial force
//! and moment `n = Q ñ`, `m = Q m̃`:
//!
//! ```text
//! g_p = (n, T m̃) = (n, Tᵀ m)
//! g_x = (0, −Tᵀ (r′ × n) + G(m̃, ψ′)),     G(u, w) = ∇ψ [w · T(ψ) u]
//! ```
//!
//! (the first term from `δ(Qᵀ r′) = Qᵀ (r′ × T δψ)`, the second from `m̃ · δ(Tᵀ ψ′)`). The
//! virtual work `g_p · δp + g_x · δx` is `n · δr′ + m · δθ′ − (r′ × n) · δθ`, the classical form
//! of `[I]` Eq. 17-18. The Hessian blocks come from dual numbers through these formulas (exact to
//! round-off); the stresses themselves are checked against central differences of `Ψ`.
//!
//! # Inertia
//! `T_kin = ½ ρA |ṙ|² + ½ Ωᵀ J̃0 Ω` with the convected angular velocity `Ω = Qᵀ ω = Tᵀ ψ̇` and the
//! section inertia `J̃0 = R0 J0 R0ᵀ`, `J0 = tr(E) I − E` from the section's Euler tensor `E_αβ`
//! (rotary inertia `E22` about `d1`, `E11` about `d2`, `E11 + E22` polar). Lagrange's inertia
//! force is the Newton–Euler one mapped by `Tᵀ`: `ρA r̈` (the constant part `A`) and
//!
//! ```text
//! f_ψ = Tᵀ (J α + ω × J ω) = T (J̃0 Ω̇ + Ω × J̃0 Ω),     Ω̇ = Tᵀ ψ̈ + [∂(Tᵀ ψ̇)/∂ψ] ψ̇
//! ```
//!
//! (`J = Q J̃0 Qᵀ`), evaluated with `ψ̇ = v`, `ψ̈ = ∂t v` at the inertia points.
//!
//! # Planar motion
//! For `ψ = θ e` about a fixed axis `e` normal to the plane of `d3` and a principal axis of the
//! section, `T e = e`, `Tᵀ ψ′ = θ′ e` and `f_ψ = J_e θ̈ e`: the equations are those of the planar
//! beam ([`crate::inverse::element::BeamPointLaw`], quadratic law) with `EI`, `ρI` about `e`.

use crate::inverse::element::{ElementError, InertiaPoint, PointLaw, StressPoint};
use crate::math::dual::{Dual, Real};
use crate::math::so3::{Rotation, V3, add, cross, dot, lift, mat_vec};
use crate::model::director_beam::section::Section;
use crate::solve::banded::FixedBandLu;

/// Largest rotation angle `|ψ|` of a section from its start frame that the parametrisation
/// accepts: 90 % of the singular `2π`.
pub const MAX_ROTATION: f64 = 0.9 * 2.0 * std::f64::consts::PI;

/// The point law of the spatial beam (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpatialPointLaw {
    /// `C` on `π = (Γ1, Γ2, Γ3, K1, K2, K3)`.
    c: [[f64; 6]; 6],
    /// The reference directors `d_k = frame[k]` (rows; the columns of `R0`).
    frame: [[f64; 3]; 3],
    /// `ρA` (kg/m).
    rho_a: f64,
    /// `J̃0 = R0 J0 R0ᵀ` (kg·m, global components of the reference frame).
    j0: [[f64; 3]; 3],
}

/// `J̃ = R0 J R0ᵀ` for `J` in director components and `R0` with the columns `frame[k]`.
pub(crate) fn to_global(frame: &[[f64; 3]; 3], j: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|a| {
        std::array::from_fn(|b| {
            let mut s = 0.0;
            for k in 0..3 {
                for l in 0..3 {
                    s += frame[k][a] * j[k][l] * frame[l][b];
                }
            }
            s
        })
    })
}

/// The section's rotary inertia tensor in director components, `J0 = tr(E) I − E` with the
/// Euler tensor `E` padded by zeros in the third row and column.
pub(crate) fn section_rotary_inertia(section: &Section) -> [[f64; 3]; 3] {
    let e = section.euler_tensor();
    let tr = e[0][0] + e[1][1];
    [
        [tr - e[0][0], -e[0][1], 0.0],
        [-e[1][0], tr - e[1][1], 0.0],
        [0.0, 0.0, tr],
    ]
}

/// `Σ_k u_k d_k` (`R0 u`).
#[inline]
fn combine<S: Real>(frame: &[[f64; 3]; 3], u: &[S]) -> V3<S> {
    std::array::from_fn(|a| u[0] * frame[0][a] + u[1] * frame[1][a] + u[2] * frame[2][a])
}

impl SpatialPointLaw {
    /// The law of `section` for a straight reference with the directors `frame`.
    pub fn new(section: &Section, frame: [[f64; 3]; 3]) -> Self {
        Self {
            c: *section.stiffness(),
            frame,
            rho_a: section.rho_a(),
            j0: to_global(&frame, &section_rotary_inertia(section)),
        }
    }

    /// The strains `π` at `ψ`, `r′`, `ψ′`.
    fn strains<S: Real>(&self, rot: &Rotation<S>, rp: &V3<S>, psip: &V3<S>) -> [S; 6] {
        let a = rot.rotate_t(rp);
        let k = rot.tangent_t(psip);
        let d = |i: usize| lift::<S>(&self.frame[i]);
        [
            dot(&d(0), &a),
            dot(&d(1), &a),
            dot(&d(2), &a) - 1.0,
            dot(&d(0), &k),
            dot(&d(1), &k),
            dot(&d(2), &k),
        ]
    }

    /// `(g_p, g_x[3..6])` at `ψ`, `r′`, `ψ′` (module docs).
    pub(crate) fn stresses<S: Real>(&self, psi: V3<S>, rp: V3<S>, psip: V3<S>) -> ([S; 6], V3<S>) {
        let rot = Rotation::new(psi);
        let pi = self.strains(&rot, &rp, &psip);
        let s: [S; 6] = std::array::from_fn(|i| {
            let mut acc = pi[0] * self.c[i][0];
            for j in 1..6 {
                acc = acc + pi[j] * self.c[i][j];
            }
            acc
        });
        let nt = combine(&self.frame, &s[0..3]);
        let mt = combine(&self.frame, &s[3..6]);
        let n = rot.rotate(&nt);
        let gm = rot.tangent(&mt);
        let rn = rot.tangent_t(&cross(&rp, &n));
        let gk = rot.grad_w_t_u(&mt, &psip);
        let gx: V3<S> = std::array::from_fn(|k| gk[k] - rn[k]);
        ([n[0], n[1], n[2], gm[0], gm[1], gm[2]], gx)
    }

    /// The rotational inertia force `T (J̃0 Ω̇ + Ω × J̃0 Ω)` at `ψ`, `ψ̇ = v`, `ψ̈ = a`.
    fn rotary<S: Real>(&self, psi: V3<S>, v: V3<S>, a: V3<S>) -> V3<S> {
        let rot = Rotation::new(psi);
        let om = rot.tangent_t(&v);
        let om_t = add(&rot.tangent_t(&a), &rot.tangent_t_rate(&v, &v));
        let jo = mat_vec(&self.j0, &om);
        let rhs = add(&mat_vec(&self.j0, &om_t), &cross(&om, &jo));
        rot.tangent(&rhs)
    }

    fn check_rotation(psi: &[f64]) -> Result<(), ElementError> {
        let angle = (psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2]).sqrt();
        if !(angle.is_finite() && angle < MAX_ROTATION) {
            return Err(ElementError::RotationLimit {
                angle,
                limit: MAX_ROTATION,
            });
        }
        Ok(())
    }
}

fn v3(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

impl PointLaw<6> for SpatialPointLaw {
    const X_ENTERS: [bool; 6] = [false, false, false, true, true, true];
    const NONLINEAR_INERTIA: bool = true;
    type Band = FixedBandLu<18, 23>;

    fn inertia(&self) -> [f64; 6] {
        [self.rho_a, self.rho_a, self.rho_a, 0.0, 0.0, 0.0]
    }

    fn stress_point(
        &self,
        x: &[f64; 6],
        p: &[f64; 6],
        tangent: bool,
    ) -> Result<StressPoint<6>, ElementError> {
        Self::check_rotation(&x[3..6])?;
        let mut sp = StressPoint::ZERO;
        if !tangent {
            let (gp, gx) = self.stresses(v3(&x[3..6]), v3(&p[0..3]), v3(&p[3..6]));
            sp.gp = gp;
            sp.gx[3..6].copy_from_slice(&gx);
            return Ok(sp);
        }
        // g_p is linear in p = (r′, ψ′) at fixed ψ: H_pp = Bᵀ C B with
        // B = ∂π/∂p = blockdiag(R0ᵀ Qᵀ, R0ᵀ Tᵀ); the ψ-derivatives by dual numbers in ψ only
        let psi = v3(&x[3..6]);
        let var: V3<Dual<3>> = std::array::from_fn(|k| Dual::var(psi[k], k));
        let lift3 = |u: &[f64]| -> V3<Dual<3>> { std::array::from_fn(|k| Dual::cst(u[k])) };
        let (gp, gx) = self.stresses(var, lift3(&p[0..3]), lift3(&p[3..6]));
        for c in 0..6 {
            sp.gp[c] = gp[c].v;
            for d in 0..3 {
                sp.hpx[c][3 + d] = gp[c].d[d];
            }
        }
        for c in 0..3 {
            sp.gx[3 + c] = gx[c].v;
            for d in 0..3 {
                sp.hxx[3 + c][3 + d] = gx[c].d[d];
            }
        }
        let rot = Rotation::new(psi);
        // columns of blockdiag(Q R0, T R0): Q d_k, T d_k
        let cols: [[f64; 3]; 6] = std::array::from_fn(|i| {
            if i < 3 {
                rot.rotate(&self.frame[i])
            } else {
                rot.tangent(&self.frame[i - 3])
            }
        });
        // H_pp[a][b] = Σ_ij Bᵀ[a][i] C[i][j] Bᵀ[b][j], Bᵀ[a][i] = cols[i][a mod 3] in its block
        let mut cb = [[0.0; 6]; 6]; // C Bᵀ rows: cb[i][b] = Σ_j C[i][j] Bᵀ[b][j]
        for i in 0..6 {
            for b in 0..6 {
                let (blk, comp) = (b / 3, b % 3);
                let mut acc = 0.0;
                for j in 3 * blk..3 * blk + 3 {
                    acc += self.c[i][j] * cols[j][comp];
                }
                cb[i][b] = acc;
            }
        }
        for a in 0..6 {
            let (blk, comp) = (a / 3, a % 3);
            for b in 0..6 {
                let mut acc = 0.0;
                for i in 3 * blk..3 * blk + 3 {
                    acc += cols[i][comp] * cb[i][b];
                }
                sp.hpp[a][b] = acc;
            }
        }
        Ok(sp)
    }

    fn energy_density(&self, x: &[f64; 6], p: &[f64; 6]) -> f64 {
        let rot = Rotation::new(v3(&x[3..6]));
        let pi = self.strains(&rot, &v3(&p[0..3]), &v3(&p[3..6]));
        let mut e = 0.0;
        for i in 0..6 {
            for j in 0..6 {
                e += 0.5 * pi[i] * self.c[i][j] * pi[j];
            }
        }
        e
    }

    fn inertia_point(
        &self,
        x: &[f64; 6],
        v: &[f64; 6],
        a: &[f64; 6],
        tangent: bool,
    ) -> InertiaPoint<6> {
        let mut ip = InertiaPoint::ZERO;
        if !tangent {
            let f = self.rotary(v3(&x[3..6]), v3(&v[3..6]), v3(&a[3..6]));
            ip.f[3..6].copy_from_slice(&f);
            return ip;
        }
        // f is linear in a: ∂f/∂a = T J̃0 Tᵀ; the (ψ, ψ̇)-derivatives by dual numbers
        let var = |u: &[f64], o: usize| -> V3<Dual<6>> {
            std::array::from_fn(|k| Dual::var(u[k], o + k))
        };
        let at: V3<Dual<6>> = std::array::from_fn(|k| Dual::cst(a[3 + k]));
        let f = self.rotary(var(&x[3..6], 0), var(&v[3..6], 3), at);
        for c in 0..3 {
            ip.f[3 + c] = f[c].v;
            for d in 0..3 {
                ip.jx[3 + c][3 + d] = f[c].d[d];
                ip.jv[3 + c][3 + d] = f[c].d[3 + d];
            }
        }
        let rot = Rotation::new(v3(&x[3..6]));
        for d in 0..3 {
            let mut e = [0.0; 3];
            e[d] = 1.0;
            let col = rot.tangent(&mat_vec(&self.j0, &rot.tangent_t(&e)));
            for c in 0..3 {
                ip.ja[3 + c][3 + d] = col[c];
            }
        }
        ip
    }

    fn kinetic_density(&self, x: &[f64; 6], v: &[f64; 6]) -> f64 {
        let rot = Rotation::new(v3(&x[3..6]));
        let om = rot.tangent_t(&v3(&v[3..6]));
        let jo = mat_vec(&self.j0, &om);
        0.5 * self.rho_a * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * dot(&om, &jo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::element::{BilinearElement, SpaceTimeElement, element_dofs};
    use crate::math::rotation::rotate;
    use crate::model::director_beam::section::{DiagonalStiffness, SectionInertia};

    /// A section with every stiffness different and a coupled (full, positive definite) `C`.
    fn section(coupled: bool) -> Section {
        let inertia = SectionInertia {
            rho_a: 1.3,
            euler_tensor: [[0.04, 0.01], [0.01, 0.07]],
        };
        if coupled {
            let mut c = [[0.0; 6]; 6];
            let diag = [9.0, 7.0, 30.0, 2.0, 3.0, 1.5];
            for i in 0..6 {
                c[i][i] = diag[i];
            }
            c[0][4] = 0.6;
            c[4][0] = 0.6;
            c[2][5] = -0.8;
            c[5][2] = -0.8;
            c[1][3] = 0.3;
            c[3][1] = 0.3;
            Section::from_matrix(c, inertia).unwrap()
        } else {
            Section::from_diagonal(
                DiagonalStiffness {
                    ea: 30.0,
                    ga1: 9.0,
                    ga2: 7.0,
                    ei1: 2.0,
                    ei2: 3.0,
                    gj: 1.5,
                },
                inertia,
            )
            .unwrap()
        }
    }

    fn tilted_frame() -> [[f64; 3]; 3] {
        let axis = [0.3, -0.5, 0.81];
        let n = dot(&axis, &axis).sqrt();
        let axis = axis.map(|c| c / n);
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].map(|e| rotate(&axis, 0.7, &e))
    }

    const STATES: [([f64; 6], [f64; 6]); 3] = [
        (
            [0.1, 0.2, -0.3, 0.4, -0.7, 0.5],
            [0.3, -0.2, 1.05, 0.2, 0.5, -0.4],
        ),
        (
            [0.0, 0.0, 0.0, 1e-3, 2e-3, -1e-3],
            [0.01, 0.02, 0.98, 0.03, -0.01, 0.02],
        ),
        (
            [0.5, 0.1, 0.2, 2.0, 1.5, -1.9],
            [-0.6, 0.9, 0.4, -0.3, 0.2, 0.7],
        ),
    ];

    /// `g = ∇Ψ` (central differences of the energy) and `H = ∇g` (central differences of `g`,
    /// against the dual numbers), for a diagonal and a coupled `C`.
    #[test]
    fn stresses_and_hessian_are_the_derivatives_of_the_energy() {
        for coupled in [false, true] {
            let law = SpatialPointLaw::new(&section(coupled), tilted_frame());
            for (x, p) in STATES {
                let sp = law.stress_point(&x, &p, true).unwrap();
                let h = 1e-6;
                for c in 0..6 {
                    let (mut pp, mut pm) = (p, p);
                    pp[c] += h;
                    pm[c] -= h;
                    let fd =
                        (law.energy_density(&x, &pp) - law.energy_density(&x, &pm)) / (2.0 * h);
                    assert!((fd - sp.gp[c]).abs() < 1e-7, "gp[{c}] {fd} {}", sp.gp[c]);
                    let (mut xp, mut xm) = (x, x);
                    xp[c] += h;
                    xm[c] -= h;
                    let fd =
                        (law.energy_density(&xp, &p) - law.energy_density(&xm, &p)) / (2.0 * h);
                    assert!((fd - sp.gx[c]).abs() < 1e-7, "gx[{c}] {fd} {}", sp.gx[c]);
                    // Hessian columns
                    let sp_p = law.stress_point(&x, &pp, false).unwrap();
                    let sp_m = law.stress_point(&x, &pm, false).unwrap();
                    let sx_p = law.stress_point(&xp, &p, false).unwrap();
                    let sx_m = law.stress_point(&xm, &p, false).unwrap();
                    for r in 0..6 {
                        let d_pp = (sp_p.gp[r] - sp_m.gp[r]) / (2.0 * h);
                        assert!((d_pp - sp.hpp[r][c]).abs() < 1e-6, "hpp[{r}][{c}]");
                        let d_px = (sx_p.gp[r] - sx_m.gp[r]) / (2.0 * h);
                        assert!((d_px - sp.hpx[r][c]).abs() < 1e-6, "hpx[{r}][{c}]");
                        let d_xx = (sx_p.gx[r] - sx_m.gx[r]) / (2.0 * h);
                        assert!((d_xx - sp.hxx[r][c]).abs() < 1e-6, "hxx[{r}][{c}]");
                    }
                }
                // the Hessian of an energy is symmetric
                for r in 0..6 {
                    for c in 0..6 {
                        assert!((sp.hpp[r][c] - sp.hpp[c][r]).abs() < 1e-12);
                        assert!((sp.hxx[r][c] - sp.hxx[c][r]).abs() < 1e-12);
                    }
                }
            }
        }
    }

    /// The inertia force is Lagrange's `d/dt ∂T/∂ψ̇ − ∂T/∂ψ` of the kinetic energy (central
    /// differences along a quadratic path `ψ(t)`), and its Jacobians are its derivatives.
    #[test]
    fn inertia_is_lagranges_and_its_jacobians_are_exact() {
        let law = SpatialPointLaw::new(&section(false), tilted_frame());
        let psi0 = [0.4, -0.9, 1.1];
        let (w, acc) = ([0.7, 0.3, -0.5], [-0.4, 0.8, 0.2]);
        let path = |t: f64| -> ([f64; 6], [f64; 6]) {
            let mut x = [0.0; 6];
            let mut v = [0.0; 6];
            for k in 0..3 {
                x[3 + k] = psi0[k] + w[k] * t + 0.5 * acc[k] * t * t;
                v[3 + k] = w[k] + acc[k] * t;
            }
            (x, v)
        };
        let h = 1e-5;
        // ∂T/∂v at t ± h by central differences in v, then d/dt
        let dt_dv = |t: f64, k: usize| {
            let (x, v) = path(t);
            let (mut vp, mut vm) = (v, v);
            vp[3 + k] += h;
            vm[3 + k] -= h;
            (law.kinetic_density(&x, &vp) - law.kinetic_density(&x, &vm)) / (2.0 * h)
        };
        let (x, v) = path(0.0);
        let mut a = [0.0; 6];
        a[3..6].copy_from_slice(&acc);
        let ip = law.inertia_point(&x, &v, &a, true);
        for k in 0..3 {
            let ddt = (dt_dv(h, k) - dt_dv(-h, k)) / (2.0 * h);
            let (mut xp, mut xm) = (x, x);
            xp[3 + k] += h;
            xm[3 + k] -= h;
            let dt_dx = (law.kinetic_density(&xp, &v) - law.kinetic_density(&xm, &v)) / (2.0 * h);
            let lagrange = ddt - dt_dx;
            assert!(
                (lagrange - ip.f[3 + k]).abs() < 1e-6,
                "{k}: {lagrange} {}",
                ip.f[3 + k]
            );
        }
        // Jacobians against central differences of f
        for d in 0..3 {
            let f_at = |dx: f64, dv: f64, da: f64| {
                let (mut x1, mut v1, mut a1) = (x, v, a);
                x1[3 + d] += dx;
                v1[3 + d] += dv;
                a1[3 + d] += da;
                law.inertia_point(&x1, &v1, &a1, false).f
            };
            let hh = 1e-6;
            for (jac, (p, m)) in [
                (&ip.jx, (f_at(hh, 0.0, 0.0), f_at(-hh, 0.0, 0.0))),
                (&ip.jv, (f_at(0.0, hh, 0.0), f_at(0.0, -hh, 0.0))),
                (&ip.ja, (f_at(0.0, 0.0, hh), f_at(0.0, 0.0, -hh))),
            ] {
                for c in 0..6 {
                    let fd = (p[c] - m[c]) / (2.0 * hh);
                    assert!((fd - jac[c][3 + d]).abs() < 1e-7, "{c} {d}");
                }
            }
        }
    }

    /// The element with the spatial law: tangent = derivative of the residual; a rigid motion
    /// of a stress-free element leaves no stiffness residual.
    #[test]
    fn element_tangent_matches_finite_differences() {
        let law = SpatialPointLaw::new(&section(true), tilted_frame());
        let el = BilinearElement::with_law(law, 0.3, 0.05);
        let nd = element_dofs(6);
        let mut q = vec![0.0; nd];
        for (i, v) in q.iter_mut().enumerate() {
            *v = 0.05 * ((i as f64) * 1.3).sin();
        }
        let d3 = tilted_frame()[2];
        for a in 0..4 {
            let is = (a % 2) as f64;
            for k in 0..3 {
                q[12 * a + k] += 0.3 * is * d3[k];
                q[12 * a + 3 + k] += [0.3, -0.2, 0.5][k];
            }
        }
        let mut r = vec![0.0; nd];
        let mut k = vec![0.0; nd * nd];
        el.residual_into(&q, &mut r, Some(&mut k)).unwrap();
        let h = 1e-6;
        let scale = k.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut worst: f64 = 0.0;
        for j in 0..nd {
            let (mut qp, mut qm) = (q.clone(), q.clone());
            qp[j] += h;
            qm[j] -= h;
            let (mut rp, mut rm) = (vec![0.0; nd], vec![0.0; nd]);
            el.residual_into(&qp, &mut rp, None).unwrap();
            el.residual_into(&qm, &mut rm, None).unwrap();
            for i in 0..nd {
                worst = worst.max(((rp[i] - rm[i]) / (2.0 * h) - k[i * nd + j]).abs());
            }
        }
        assert!(worst < 1e-7 * scale, "{worst:e} vs {scale:e}");
    }

    /// A rotated and translated stress-free configuration has no stress (frame indifference),
    /// and the strains of a uniformly bent and twisted beam are the curvature.
    #[test]
    fn rigid_rotation_is_stress_free_and_curvature_is_measured() {
        let law = SpatialPointLaw::new(&section(false), tilted_frame());
        let psi = [0.8, -1.2, 0.4];
        let rot = Rotation::new(psi);
        let d3 = rot.rotate(&tilted_frame()[2]);
        let mut x = [0.0; 6];
        x[3..6].copy_from_slice(&psi);
        let mut p = [0.0; 6];
        p[0..3].copy_from_slice(&d3);
        let sp = law.stress_point(&x, &p, false).unwrap();
        assert!(
            sp.gp.iter().chain(&sp.gx).all(|v| v.abs() < 1e-13),
            "{sp:?}"
        );
        // ψ(s) = s κ about a fixed axis: K = R0ᵀ Tᵀ ψ′ = R0ᵀ κ (T κ = κ for ψ ∥ κ)
        let kappa = [0.2, 0.3, -0.1];
        let s = 1.7;
        let x = [0.0, 0.0, 0.0, s * kappa[0], s * kappa[1], s * kappa[2]];
        let rot = Rotation::new([x[3], x[4], x[5]]);
        let mut p = [0.0; 6];
        p[0..3].copy_from_slice(&rot.rotate(&tilted_frame()[2]));
        p[3..6].copy_from_slice(&kappa);
        let pi = law.strains(&rot, &[p[0], p[1], p[2]], &kappa);
        let f = tilted_frame();
        for k in 0..3 {
            assert!(pi[k].abs() < 1e-14);
            assert!((pi[3 + k] - dot(&f[k], &kappa)).abs() < 1e-14);
        }
        assert!(
            law.stress_point(&[0.0, 0.0, 0.0, 6.0, 0.0, 0.0], &p, false)
                .is_err()
        );
    }
}
