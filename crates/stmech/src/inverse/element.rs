//! The bilinear space-time element of a one-dimensional continuum with `N` unknowns per point,
//! `[I]` Eq. 31-33: the planar beam (`N = 3`), the string (`N = 3`) and the spatial beam
//! (`N = 6`, [`crate::inverse::spatial`]).
//!
//! # Continuous form
//! Unknown fields per point `(s, t)`: the configuration `x ∈ R^N` and the velocity `v = ∂t x`.
//! With the kinetic energy `T(x, v)` and the stored energy `Ψ(x, p)`, `p = ∂s x`, per unit
//! reference length, and test functions `w1, w2`, the element contributes to `[I]` Eq. 33:
//!
//! ```text
//! R1 = ∫∫ w1 · (∂t x − v)                                  ds dt
//! R2 = ∫∫ w2 · (A ∂t v + f(x, v, ∂t v))  +  δΨ(x; w2)       ds dt
//! δΨ(x; w) = g_p · ∂s w + g_x · w,     g_p = ∂Ψ/∂p,  g_x = ∂Ψ/∂x
//! ```
//!
//! The inertia is Lagrange's `d/dt ∂T/∂v − ∂T/∂x`, split into a constant diagonal part
//! `A ∂t v` ([`PointLaw::inertia`]) and a nonlinear rest `f` ([`PointLaw::inertia_point`]; zero
//! for the planar beam and the string, the rotary inertia of the spatial beam in its rotation
//! vector), with `d/dt` evaluated as `∂t v` and `ẋ` as `v` at the quadrature point.
//!
//! * Planar beam: `x = (r1, r2, θ)`, `A = diag(ρA, ρA, ρI)`, `g_p = (n1, n2, M)` with the global
//!   force `n = N d3 + Q d1` and the moment `M`, `g_x = (0, 0, −r' × n)` (`r' × n = ν Q − γ N`),
//!   the exact variation of `∫ Ψ(ν, γ, κ) ds` ([`crate::beam::section`]); the same kernel
//!   serves the quadratic and the log law.
//! * String: `x = r`, `A = ρA I`, `g_p = n = N(ν) t`, `g_x = 0` ([`crate::string`]).
//!
//! Boundary terms (actuation at `s = 0`, tip law at `s = L`) and the servo constraint belong to
//! the global assembly ([`super::solver`]), not to the element.
//!
//! # Discrete form
//! Bubnov–Galerkin with bilinear tensor-product shape functions `N_a(s, t) = S_a(s) T_a(t)` for
//! `x`, `v`, `w1` and `w2`. Node order `a = is + 2 it` (`is, it ∈ {0, 1}`), local dof
//! `2N a + c` with `c < N` the components of `x` and `c ≥ N` those of `v`. The residual row
//! `2N a + c` (`c < N`) is `R1` tested with `N_a e_c`, row `2N a + N + c` is `R2` tested with
//! `N_a e_c`.
//!
//! Quadrature: 2 × 2 Gauss points for `R1` and the inertia (exact for bilinear fields and
//! constant `A`), 1 × 2 for `δΨ` (one point in `s`: the standard uniformly reduced integration
//! of linear Simo–Reissner elements, free of shear locking; exact for the linear wave equation).
//!
//! # Tangent
//! `∂R/∂q` is exact: at a stiffness point the law gives the symmetric Hessian of `Ψ` in the
//! variables `(p, x)` as the blocks `H_pp = ∂g_p/∂p`, `H_px = ∂g_p/∂x` and `H_xx = ∂g_x/∂x`
//! (`∂g_x/∂p = H_pxᵀ`), and at an inertia point the Jacobians of `f` with respect to `x`, `v`
//! and `∂t v` ([`InertiaPoint`]). The kernel writes into caller-owned buffers and allocates
//! nothing.

use crate::basis::GaussLegendre;
use crate::beam::section::{
    ConstitutiveLaw, ReferenceStrains, SectionProperties, Strains, strains,
};
use crate::solve::banded::{BandSolver, FixedBandLu};

/// Local unknowns of one element of the planar beam or the string: 4 nodes × (3 + 3).
pub const N_DOF: usize = 24;

/// Local unknowns of one element with `n` components per point: `8 n`.
pub const fn element_dofs(n: usize) -> usize {
    8 * n
}

/// Element failure that a Newton iteration must treat as a rejected step.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum ElementError {
    /// The stretch `ν` left the domain of the law (log law: `ν ≤ 0`) or became non-finite.
    #[error("an element is compressed to zero length (stretch ν = {nu:.3e})")]
    Inverted {
        /// The offending stretch.
        nu: f64,
    },
    /// A rope without tension (`ν ≤ 1`): its transverse waves stop, so the method of
    /// characteristics cannot carry the payload's data up through it.
    #[error(
        "the rope is slack (stretch ν = {nu:.6} ≤ 1): without tension it has no transverse \
         waves and the payload's motion cannot be traced up the rope. Fix: a slower manoeuvre"
    )]
    Slack {
        /// The offending stretch.
        nu: f64,
    },
    /// The rotation vector of a spatial beam section reached the singular angle `2π` of its
    /// parametrisation (or became non-finite).
    #[error(
        "a cross-section of the spatial beam turned by {angle:.4} rad from its start frame, too \
         close to the singularity of the rotation-vector parametrisation at 2π ≈ 6.2832 rad. \
         Fix: a manoeuvre that turns every section by less than {limit:.3} rad from its start \
         frame"
    )]
    RotationLimit {
        /// `|ψ|` (rad).
        angle: f64,
        /// The largest accepted `|ψ|` (rad).
        limit: f64,
    },
}

/// The generalised stresses and their Hessian at one stiffness point (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StressPoint<const N: usize> {
    /// `g_p = ∂Ψ/∂p`.
    pub gp: [f64; N],
    /// `g_x = ∂Ψ/∂x`.
    pub gx: [f64; N],
    /// `H_pp = ∂g_p/∂p` (symmetric).
    pub hpp: [[f64; N]; N],
    /// `H_px = ∂g_p/∂x` (`[c][d] = ∂g_p[c]/∂x[d]`).
    pub hpx: [[f64; N]; N],
    /// `H_xx = ∂g_x/∂x` (symmetric).
    pub hxx: [[f64; N]; N],
}

impl<const N: usize> StressPoint<N> {
    /// All zero.
    pub const ZERO: Self = Self {
        gp: [0.0; N],
        gx: [0.0; N],
        hpp: [[0.0; N]; N],
        hpx: [[0.0; N]; N],
        hxx: [[0.0; N]; N],
    };

    /// Every entry multiplied by `w`.
    #[inline]
    pub fn scaled(&self, w: f64) -> Self {
        let m = |a: &[[f64; N]; N]| a.map(|r| r.map(|v| w * v));
        Self {
            gp: self.gp.map(|v| w * v),
            gx: self.gx.map(|v| w * v),
            hpp: m(&self.hpp),
            hpx: m(&self.hpx),
            hxx: m(&self.hxx),
        }
    }
}

/// The nonlinear inertia force `f(x, v, ∂t v)` at one point and its Jacobians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InertiaPoint<const N: usize> {
    /// `f`.
    pub f: [f64; N],
    /// `∂f/∂x`.
    pub jx: [[f64; N]; N],
    /// `∂f/∂v`.
    pub jv: [[f64; N]; N],
    /// `∂f/∂(∂t v)`.
    pub ja: [[f64; N]; N],
}

impl<const N: usize> InertiaPoint<N> {
    /// All zero.
    pub const ZERO: Self = Self {
        f: [0.0; N],
        jx: [[0.0; N]; N],
        jv: [[0.0; N]; N],
        ja: [[0.0; N]; N],
    };

    /// Every entry multiplied by `w`.
    #[inline]
    pub fn scaled(&self, w: f64) -> Self {
        let m = |a: &[[f64; N]; N]| a.map(|r| r.map(|v| w * v));
        Self {
            f: self.f.map(|v| w * v),
            jx: m(&self.jx),
            jv: m(&self.jv),
            ja: m(&self.ja),
        }
    }
}

/// What a continuum gives the bilinear space-time element at one point: its inertia and its
/// generalised stresses with their Hessian (module docs).
pub trait PointLaw<const N: usize>: std::fmt::Debug + Send + Sync {
    /// Which components of `x` (not `p`) the stored energy depends on (`g_x`, `H_px`, `H_xx`
    /// vanish in the others): the planar beam's `θ`, the spatial beam's rotation vector.
    const X_ENTERS: [bool; N];
    /// Whether [`Self::inertia_point`] is not zero.
    const NONLINEAR_INERTIA: bool = false;
    /// The banded LU of one column of the sideways elimination ([`super::sideways`]): widths
    /// at least `KL = 3N` and `KU = 3N` (`4N − 1` with a nonlinear inertia).
    type Band: BandSolver;
    /// The constant diagonal inertia per unit length `A` (`[I]` Eq. 1).
    fn inertia(&self) -> [f64; N];
    /// The generalised stresses and (if `tangent`) their Hessian at `x` and `p = ∂s x`. Fails
    /// where the law is undefined (zero length, the singular rotation).
    fn stress_point(
        &self,
        x: &[f64; N],
        p: &[f64; N],
        tangent: bool,
    ) -> Result<StressPoint<N>, ElementError>;
    /// Stored energy per unit length at `x`, `p` (J/m).
    fn energy_density(&self, x: &[f64; N], p: &[f64; N]) -> f64;
    /// The nonlinear inertia force and (if `tangent`) its Jacobians at `x`, `v`, `a = ∂t v`
    /// (module docs); zero unless [`Self::NONLINEAR_INERTIA`].
    fn inertia_point(
        &self,
        _x: &[f64; N],
        _v: &[f64; N],
        _a: &[f64; N],
        _tangent: bool,
    ) -> InertiaPoint<N> {
        InertiaPoint::ZERO
    }
    /// Kinetic energy per unit length at `x`, `v` (J/m).
    fn kinetic_density(&self, _x: &[f64; N], v: &[f64; N]) -> f64 {
        let a = self.inertia();
        0.5 * (0..N).map(|c| a[c] * v[c] * v[c]).sum::<f64>()
    }
}

/// Equation groups of the space-time systems for the Newton stop (`solve::newton::measure`):
/// rows of one meaning and one unit. `R1` (kinematics, `∫∫ w (∂t x − v)`: m² or rad·m), `R2`
/// (momentum balance: N·s or N·m·s), `R3` (servo rows `∫ N (x(L) − γ)`: m·s or rad·s), each
/// split into the translations and the rotations (the components the stored energy depends on
/// besides `p = ∂s x`, [`PointLaw::X_ENTERS`]: frame invariance lets the translations enter
/// through `p` only). The unknowns are grouped the same way: `x` with `R1`, `v` with `R2`, `F`
/// with `R3` (the unit differs from the rows', the kind is the same).
pub(crate) const GROUPS: usize = 6;
/// First group of the kinematic rows `R1` (and of the unknowns `x`).
pub(crate) const KINEMATIC: usize = 0;
/// First group of the momentum rows `R2` (and of the unknowns `v`).
pub(crate) const MOMENTUM: usize = 2;
/// First group of the servo rows `R3` (and of the unknowns `F`).
pub(crate) const SERVO: usize = 4;

/// The group of component `c` of rows (unknowns) of kind `kind` ([`GROUPS`]).
#[inline]
pub(crate) fn group<L: PointLaw<N>, const N: usize>(kind: usize, c: usize) -> usize {
    kind + usize::from(L::X_ENTERS[c])
}

/// A space-time element: local residual and tangent of its weak form.
pub trait SpaceTimeElement {
    /// Writes the residual `R^e(q^e)` into `r` and, if `k` is given, the exact tangent
    /// `∂R^e/∂q^e` (row-major, `k[row · n + col]`, `n` the local dofs). Both are overwritten,
    /// not accumulated. `q` and `r` have the element's local dofs.
    fn residual_into(
        &self,
        q: &[f64],
        r: &mut [f64],
        k: Option<&mut [f64]>,
    ) -> Result<(), ElementError> {
        self.residual_terms(q, r, None, k)
    }

    /// [`residual_into`](Self::residual_into), and, if `m` is given, the magnitude of the
    /// terms of every row, `m_i = Σ_t |t_i|` over the terms of the weak form at every
    /// quadrature point (`∂t x`, `v`; inertia, nonlinear inertia, `g_p`, `g_x`): the scale of
    /// the Newton stop (`solve::newton::measure`). Overwritten, like `r`.
    fn residual_terms(
        &self,
        q: &[f64],
        r: &mut [f64],
        m: Option<&mut [f64]>,
        k: Option<&mut [f64]>,
    ) -> Result<(), ElementError>;
}

/// Shape data at one quadrature point: values, `∂s`, `∂t` of the 4 shape functions and the
/// weight times the element area.
#[derive(Clone, Copy, Debug)]
struct Point {
    n: [f64; 4],
    n_s: [f64; 4],
    n_t: [f64; 4],
    w: f64,
}

fn points(hs: f64, ht: f64, ns: usize, nt: usize) -> Vec<Point> {
    let (gs, gt) = (GaussLegendre::new(ns), GaussLegendre::new(nt));
    let mut out = Vec::with_capacity(crate::math::reserve(ns, nt));
    for (&xi, &wx) in gs.points.iter().zip(&gs.weights) {
        for (&tau, &wt) in gt.points.iter().zip(&gt.weights) {
            let s = [1.0 - xi, xi];
            let ds = [-1.0 / hs, 1.0 / hs];
            let t = [1.0 - tau, tau];
            let dt = [-1.0 / ht, 1.0 / ht];
            let mut p = Point {
                n: [0.0; 4],
                n_s: [0.0; 4],
                n_t: [0.0; 4],
                w: wx * wt * hs * ht,
            };
            for a in 0..4 {
                let (is, it) = (a % 2, a / 2);
                p.n[a] = s[is] * t[it];
                p.n_s[a] = ds[is] * t[it];
                p.n_t[a] = s[is] * dt[it];
            }
            out.push(p);
        }
    }
    out
}

/// The bilinear space-time element of a continuum with the point law `L` on a rectangle
/// `hs × ht`.
#[derive(Clone, Debug)]
pub struct BilinearElement<L, const N: usize> {
    law: L,
    inertia_points: Vec<Point>,
    stiffness_points: Vec<Point>,
}

/// The bilinear space-time element of the planar beam.
pub type BeamSpaceTimeElement = BilinearElement<BeamPointLaw, 3>;

/// The planar beam's point law: section, stored energy, straight stress-free reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BeamPointLaw {
    section: SectionProperties,
    law: ConstitutiveLaw,
    reference: ReferenceStrains,
}

impl BeamSpaceTimeElement {
    /// Element of size `hs` (m) by `ht` (s) for a straight stress-free reference.
    pub fn new(section: SectionProperties, law: ConstitutiveLaw, hs: f64, ht: f64) -> Self {
        Self::with_law(
            BeamPointLaw {
                section,
                law,
                reference: ReferenceStrains::STRAIGHT,
            },
            hs,
            ht,
        )
    }
}

impl<L: PointLaw<N>, const N: usize> BilinearElement<L, N> {
    /// Element of size `hs` (m) by `ht` (s) for the point law `law`.
    pub fn with_law(law: L, hs: f64, ht: f64) -> Self {
        Self {
            law,
            inertia_points: points(hs, ht, 2, 2),
            stiffness_points: points(hs, ht, 1, 2),
        }
    }

    /// The point law.
    pub fn law(&self) -> &L {
        &self.law
    }

    /// Stresses and Hessian at one stiffness point ([`PointLaw::stress_point`]).
    #[inline]
    pub fn stress_point(
        &self,
        x: &[f64; N],
        p: &[f64; N],
        tangent: bool,
    ) -> Result<StressPoint<N>, ElementError> {
        self.law.stress_point(x, p, tangent)
    }

    /// Stored energy `∫ Ψ ds` of one space element with end values `x_a`, `x_b` (J); the
    /// same one-point rule as the stiffness term, so it is the energy the discrete
    /// equations conserve (or not).
    pub fn strain_energy(&self, hs: f64, xa: &[f64; N], xb: &[f64; N]) -> f64 {
        let x: [f64; N] = std::array::from_fn(|c| 0.5 * (xa[c] + xb[c]));
        let p: [f64; N] = std::array::from_fn(|c| (xb[c] - xa[c]) / hs);
        hs * self.law.energy_density(&x, &p)
    }
}

impl BeamPointLaw {
    /// The planar beam's stresses in its four strain variables `e = (r1', r2', θ, θ')`:
    /// `g = (n1, n2, −r'×n, M)` and, if `tangent`, the seven entries
    /// `(h00, h01, h11, h02, h12, h22, h33)` of the Hessian `∂g/∂e` (the others vanish):
    /// one `sin_cos` and one evaluation of the law. Fails where the law is not defined (log
    /// law: `ν ≤ 0`) or the stretch is not finite.
    ///
    /// ```text
    /// ∂n/∂r'   = N_ν d3⊗d3 + GA d1⊗d1
    /// ∂n/∂θ    = (N_ν γ − Q) d3 + (N − GA ν) d1          (= ∂(−r'×n)/∂r')
    /// ∂(−r'×n)/∂θ = N_ν γ² − N ν + GA ν² − Q γ
    /// ∂M/∂θ'   = EI
    /// ```
    #[inline]
    fn planar(&self, e: [f64; 4], tangent: bool) -> Result<([f64; 4], [f64; 7]), ElementError> {
        let th = e[2];
        let (sn, cs) = th.sin_cos();
        // strains (crate::beam::section::strains, with the sine and cosine computed once)
        let st = Strains {
            nu: cs * e[0] + sn * e[1],
            gamma: -sn * e[0] + cs * e[1],
            kappa: e[3],
        };
        if !(st.nu.is_finite() && (self.law != ConstitutiveLaw::Log || st.nu > 0.0)) {
            return Err(ElementError::Inverted { nu: st.nu });
        }
        let res = self.law.resultants(&self.section, st, self.reference);
        let (nn, qq, nu, ga) = (res.axial, res.shear, st.nu, st.gamma);
        // n = N d3 + Q d1 with d3 = (cos θ, sin θ), d1 = (−sin θ, cos θ);  −r'×n = N γ − Q ν
        let g = [
            nn * cs - qq * sn,
            nn * sn + qq * cs,
            nn * ga - qq * nu,
            res.moment,
        ];
        let mut h = [0.0; 7];
        if tangent {
            let (dn, dq) = (res.d_axial, res.d_shear);
            h[0] = dn * cs * cs + dq * sn * sn;
            h[1] = dn * cs * sn - dq * sn * cs;
            h[2] = dn * sn * sn + dq * cs * cs;
            let (a3, a1) = (dn * ga - qq, nn - dq * nu);
            h[3] = a3 * cs - a1 * sn;
            h[4] = a3 * sn + a1 * cs;
            h[5] = dn * ga * ga - nn * nu + dq * nu * nu - qq * ga;
            h[6] = res.d_moment;
        }
        Ok((g, h))
    }
}

impl PointLaw<3> for BeamPointLaw {
    const X_ENTERS: [bool; 3] = [false, false, true];
    type Band = FixedBandLu<9, 9>;

    fn inertia(&self) -> [f64; 3] {
        [self.section.rho_a, self.section.rho_a, self.section.rho_i]
    }

    fn energy_density(&self, x: &[f64; 3], p: &[f64; 3]) -> f64 {
        self.law.energy(
            &self.section,
            strains([p[0], p[1]], x[2], p[2]),
            self.reference,
        )
    }

    /// `g_p = (n1, n2, M)`, `g_x = (0, 0, −r'×n)` ([`Self::planar`]).
    #[inline]
    fn stress_point(
        &self,
        x: &[f64; 3],
        p: &[f64; 3],
        tangent: bool,
    ) -> Result<StressPoint<3>, ElementError> {
        let (g, h) = self.planar([p[0], p[1], x[2], p[2]], tangent)?;
        let mut sp = StressPoint::ZERO;
        sp.gp = [g[0], g[1], g[3]];
        sp.gx[2] = g[2];
        if tangent {
            sp.hpp[0][0] = h[0];
            sp.hpp[0][1] = h[1];
            sp.hpp[1][0] = h[1];
            sp.hpp[1][1] = h[2];
            sp.hpp[2][2] = h[6];
            sp.hpx[0][2] = h[3];
            sp.hpx[1][2] = h[4];
            sp.hxx[2][2] = h[5];
        }
        Ok(sp)
    }
}

impl<L: PointLaw<N>, const N: usize> SpaceTimeElement for BilinearElement<L, N> {
    fn residual_terms(
        &self,
        q: &[f64],
        r: &mut [f64],
        mut m: Option<&mut [f64]>,
        mut k: Option<&mut [f64]>,
    ) -> Result<(), ElementError> {
        let nd = 8 * N;
        debug_assert!(q.len() == nd && r.len() == nd);
        r.fill(0.0);
        if let Some(m) = m.as_deref_mut() {
            m.fill(0.0);
        }
        if let Some(k) = k.as_deref_mut() {
            debug_assert_eq!(k.len(), nd * nd);
            k.fill(0.0);
        }
        let (xo, vo) = (|a: usize| 2 * N * a, |a: usize| 2 * N * a + N);
        let a_in = self.law.inertia();
        // R1 = ∫ N_a (∂t x − v), R2 ⊃ ∫ N_a (A ∂t v + f)  (2 × 2 Gauss).
        for p in &self.inertia_points {
            let mut x = [0.0; N];
            let mut x_t = [0.0; N];
            let mut v = [0.0; N];
            let mut v_t = [0.0; N];
            for b in 0..4 {
                for c in 0..N {
                    x[c] += p.n[b] * q[xo(b) + c];
                    x_t[c] += p.n_t[b] * q[xo(b) + c];
                    v[c] += p.n[b] * q[vo(b) + c];
                    v_t[c] += p.n_t[b] * q[vo(b) + c];
                }
            }
            let ip = if L::NONLINEAR_INERTIA {
                self.law.inertia_point(&x, &v, &v_t, k.is_some())
            } else {
                InertiaPoint::ZERO
            };
            for a in 0..4 {
                let wa = p.w * p.n[a];
                for c in 0..N {
                    r[xo(a) + c] += wa * (x_t[c] - v[c]);
                    r[vo(a) + c] += wa * (a_in[c] * v_t[c] + ip.f[c]);
                }
                if let Some(m) = m.as_deref_mut() {
                    let wa = wa.abs();
                    for c in 0..N {
                        m[xo(a) + c] += wa * (x_t[c].abs() + v[c].abs());
                        m[vo(a) + c] += wa * ((a_in[c] * v_t[c]).abs() + ip.f[c].abs());
                    }
                }
            }
            if let Some(k) = k.as_deref_mut() {
                for a in 0..4 {
                    let wa = p.w * p.n[a];
                    for b in 0..4 {
                        let (wt, wn) = (wa * p.n_t[b], wa * p.n[b]);
                        for c in 0..N {
                            k[(xo(a) + c) * nd + xo(b) + c] += wt;
                            k[(xo(a) + c) * nd + vo(b) + c] -= wn;
                            k[(vo(a) + c) * nd + vo(b) + c] += wt * a_in[c];
                            if L::NONLINEAR_INERTIA {
                                let row = (vo(a) + c) * nd;
                                for d in 0..N {
                                    k[row + xo(b) + d] += wn * ip.jx[c][d];
                                    k[row + vo(b) + d] += wn * ip.jv[c][d] + wt * ip.ja[c][d];
                                }
                            }
                        }
                    }
                }
            }
        }
        // δΨ = g_p · ∂s w + g_x · w  (1 × 2 Gauss).
        for p in &self.stiffness_points {
            let mut x = [0.0; N];
            let mut ps = [0.0; N];
            for b in 0..4 {
                for c in 0..N {
                    x[c] += p.n[b] * q[xo(b) + c];
                    ps[c] += p.n_s[b] * q[xo(b) + c];
                }
            }
            let sp = self.law.stress_point(&x, &ps, k.is_some())?;
            for a in 0..4 {
                for c in 0..N {
                    r[vo(a) + c] += p.w * (p.n_s[a] * sp.gp[c] + p.n[a] * sp.gx[c]);
                }
            }
            if let Some(m) = m.as_deref_mut() {
                for a in 0..4 {
                    for c in 0..N {
                        m[vo(a) + c] +=
                            (p.w * p.n_s[a] * sp.gp[c]).abs() + (p.w * p.n[a] * sp.gx[c]).abs();
                    }
                }
            }
            if let Some(k) = k.as_deref_mut() {
                for a in 0..4 {
                    let (sa, na) = (p.w * p.n_s[a], p.w * p.n[a]);
                    for c in 0..N {
                        let row = (vo(a) + c) * nd;
                        for b in 0..4 {
                            let (sb, nb) = (p.n_s[b], p.n[b]);
                            for d in 0..N {
                                // ∂(S_a g_p + N_a g_x)[c] / ∂x_b[d]
                                let v = sa * (sp.hpp[c][d] * sb + sp.hpx[c][d] * nb)
                                    + na * (sp.hpx[d][c] * sb + sp.hxx[c][d] * nb);
                                k[row + xo(b) + d] += v;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: SectionProperties = SectionProperties {
        rho_a: 2.0,
        rho_i: 0.5,
        ea: 30.0,
        ga: 12.0,
        ei: 3.0,
    };

    fn state() -> [f64; N_DOF] {
        let mut q = [0.0; N_DOF];
        for (i, v) in q.iter_mut().enumerate() {
            *v = 0.1 * ((i as f64) * 1.7).sin();
        }
        // positions of a deformed, rotated element: s = 0 at 0, s = hs at about (0.25, 0.1)
        for a in 0..4 {
            let (is, it) = (a % 2, a / 2);
            q[6 * a] += 0.25 * is as f64 + 0.02 * it as f64;
            q[6 * a + 1] += 0.1 * is as f64;
            q[6 * a + 2] += 0.4 + 0.1 * it as f64;
        }
        q
    }

    /// The tangent is the derivative of the residual (central differences, both laws).
    #[test]
    fn tangent_matches_finite_differences() {
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            let el = BeamSpaceTimeElement::new(SEC, law, 0.25, 0.1);
            let q = state();
            let mut r = [0.0; N_DOF];
            let mut k = [[0.0; N_DOF]; N_DOF];
            el.residual_into(&q, &mut r, Some(k.as_flattened_mut()))
                .unwrap();
            let h = 1e-6;
            let mut worst: f64 = 0.0;
            let scale = k.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
            for j in 0..N_DOF {
                let (mut qp, mut qm) = (q, q);
                qp[j] += h;
                qm[j] -= h;
                let (mut rp, mut rm) = ([0.0; N_DOF], [0.0; N_DOF]);
                el.residual_into(&qp, &mut rp, None).unwrap();
                el.residual_into(&qm, &mut rm, None).unwrap();
                for i in 0..N_DOF {
                    let fd = (rp[i] - rm[i]) / (2.0 * h);
                    worst = worst.max((fd - k[i][j]).abs());
                }
            }
            assert!(
                worst < 1e-7 * scale,
                "{law:?}: {worst:e} vs scale {scale:e}"
            );
        }
    }

    /// A rigid motion at constant velocity leaves no residual (frame indifference).
    #[test]
    fn rigid_rotation_at_rest_is_stress_free() {
        let el = BeamSpaceTimeElement::new(SEC, ConstitutiveLaw::Log, 0.5, 0.2);
        let th: f64 = 1.1;
        let mut q = [0.0; N_DOF];
        for a in 0..4 {
            let s = 0.5 * (a % 2) as f64;
            q[6 * a] = 3.0 + s * th.cos();
            q[6 * a + 1] = -1.0 + s * th.sin();
            q[6 * a + 2] = th;
        }
        let mut r = [0.0; N_DOF];
        el.residual_into(&q, &mut r, None).unwrap();
        assert!(r.iter().all(|v| v.abs() < 1e-14), "{r:?}");
    }

    /// `g = ∇Ψ` in the variables `(p, x)` (central differences of the energy density).
    #[test]
    fn stresses_are_the_gradient_of_the_energy() {
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            let pl = BeamPointLaw {
                section: SEC,
                law,
                reference: ReferenceStrains::STRAIGHT,
            };
            let (x, p) = ([0.3, -0.2, 0.7], [1.1, 0.2, 0.4]);
            let sp = pl.stress_point(&x, &p, false).unwrap();
            let h = 1e-6;
            for c in 0..3 {
                let (mut pp, mut pm) = (p, p);
                pp[c] += h;
                pm[c] -= h;
                let fd = (pl.energy_density(&x, &pp) - pl.energy_density(&x, &pm)) / (2.0 * h);
                assert!((fd - sp.gp[c]).abs() < 1e-8, "{law:?} gp[{c}]");
                let (mut xp, mut xm) = (x, x);
                xp[c] += h;
                xm[c] -= h;
                let fd = (pl.energy_density(&xp, &p) - pl.energy_density(&xm, &p)) / (2.0 * h);
                assert!((fd - sp.gx[c]).abs() < 1e-8, "{law:?} gx[{c}]");
            }
        }
    }
}
