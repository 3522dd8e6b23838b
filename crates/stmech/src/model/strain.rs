//! Stored energy of deformable contributions (director beams) as a function of strains that are
//! quadratic forms of the coordinates.
//!
//! A deformable contribution is a set of *strain elements*. Element `e` sees its local
//! coordinates `q_loc = q[indices_e]` and has strain points `g` with weights `w_g` (quadrature
//! weight times the length element, m) at which six strains are defined,
//!
//! ```text
//! π_k(q_loc) = ½ q_locᵀ A_k q_loc − π_k⁰,       k = 1..6,
//! ```
//!
//! quadratic forms of the coordinates minus their reference values (for the director beam:
//! `Γ_i = d_i·φ′`, `K_i` from `d_j·d_k′`, see `model::director_beam`). The stored energy
//! and the Kelvin–Voigt stress are
//!
//! ```text
//! V = Σ_e Σ_g w_g ½ πᵀ C π,          s = C π + 𝕍 π̇,          f_int = −Σ w_g Bᵀ s,
//! ```
//!
//! with `B = ∂π/∂q_loc = (A_k q_loc)_k` linear in `q_loc`, so that `π̇ = B(q) q̇` and
//! `∂(B(q) q̇)/∂q = B(q̇)`, and `Σ_k s_k ∂²π_k/∂q²` does not depend on `q`. Because every strain
//! is invariant under rigid motions (`π(R q + c) = π(q)` for a rotation `R` of all triplets and
//! a translation `c` of the placements), the internal forces `Bᵀs` carry no net force and no
//! net moment for *any* stress `s`. The time discretisation uses exactly this: it may evaluate
//! the stress at an "enhanced" strain (`discretize::strain_time`), and linear and angular
//! momentum stay balanced.

use std::fmt::Debug;

/// One element of a stored energy of quadratic strains, see the module docs.
pub trait StrainElement: Send + Sync + Debug {
    /// Number of local coordinates `n_loc`.
    fn n_loc(&self) -> usize;
    /// Number of strain points.
    fn n_points(&self) -> usize;
    /// Weight `w_g` of point `g` (quadrature weight × length element, m): `Σ_g w_g` is the
    /// element's reference length.
    fn weight(&self, g: usize) -> f64;
    /// Strains `π − π⁰` at point `g` into `pi`, and, if asked, `B = ∂π/∂q_loc` (row-major
    /// `6 × n_loc`). `B` is linear and homogeneous in `q_loc`.
    fn strains_into(&self, g: usize, q_loc: &[f64], pi: &mut [f64; 6], b: Option<&mut [f64]>);
    /// `h += scale · Σ_k s_k ∂²π_k/∂q_loc²` (row-major `n_loc × n_loc`; independent of `q`).
    fn add_stress_hessian(&self, g: usize, s: &[f64; 6], scale: f64, h: &mut [f64]);
    /// Elastic stiffness `C` at point `g` (symmetric positive definite, units of the strains'
    /// conjugate stress resultants: N for `Γ`, N·m² for `K`).
    fn stiffness(&self, g: usize) -> &[[f64; 6]; 6];
    /// Viscosity `𝕍` at point `g` (Kelvin–Voigt, `C` times retardation times), if any.
    fn viscosity(&self, _g: usize) -> Option<&[[f64; 6]; 6]> {
        None
    }
    /// The strain rate `π̇ = B(q_loc) q̇_loc` at point `g`. `b` is scratch of length `6 n_loc`.
    /// The default goes through `B`; elements may compute it directly (same value up to
    /// round-off).
    fn strain_rate(&self, g: usize, q_loc: &[f64], qdot_loc: &[f64], b: &mut [f64]) -> [f64; 6] {
        let n = self.n_loc();
        let mut pi = [0.0; 6];
        self.strains_into(g, q_loc, &mut pi, Some(&mut b[..6 * n]));
        let mut rate = [0.0; 6];
        for (k, r) in rate.iter_mut().enumerate() {
            *r = b[k * n..(k + 1) * n]
                .iter()
                .zip(qdot_loc)
                .map(|(x, y)| x * y)
                .sum();
        }
        rate
    }
    /// `f += scale · B(q_loc)ᵀ s` at point `g` (`f` of length `n_loc`). `b` is scratch of length
    /// `6 n_loc`. The default goes through `B`; elements may compute it directly.
    fn add_stress_force(
        &self,
        g: usize,
        q_loc: &[f64],
        s: &[f64; 6],
        scale: f64,
        f: &mut [f64],
        b: &mut [f64],
    ) {
        let n = self.n_loc();
        let mut pi = [0.0; 6];
        self.strains_into(g, q_loc, &mut pi, Some(&mut b[..6 * n]));
        add_bt_s(&b[..6 * n], s, scale, &mut f[..n]);
    }
}

/// A strain element placed in a system: its global coordinate indices and the positions of its
/// dense local tangent (`n_loc²`, row-major) in the system's `K` pattern.
#[derive(Debug)]
pub struct StrainSlot {
    /// The element.
    pub element: Box<dyn StrainElement>,
    /// Global coordinate index of each local coordinate.
    pub indices: Vec<usize>,
    /// Position in [`crate::model::ConstrainedSystem::k_pattern`] of each local tangent entry.
    pub k_positions: Vec<usize>,
}

/// `s = C π` (6 × 6 times 6).
pub fn stress(c: &[[f64; 6]; 6], pi: &[f64; 6]) -> [f64; 6] {
    let mut s = [0.0; 6];
    for (si, row) in s.iter_mut().zip(c) {
        *si = row.iter().zip(pi).map(|(a, b)| a * b).sum();
    }
    s
}

/// `out += scale · Bᵀ s` (`B` row-major `6 × n`).
pub fn add_bt_s(b: &[f64], s: &[f64; 6], scale: f64, out: &mut [f64]) {
    let n = out.len();
    for (k, &sk) in s.iter().enumerate() {
        let f = scale * sk;
        if f != 0.0 {
            for (o, bk) in out.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *o += f * bk;
            }
        }
    }
}

/// `h += scale · B₁ᵀ C B₂` (`B₁`, `B₂` row-major `6 × n`, `h` row-major `n × n`); `cb` is
/// scratch of length `6 n`.
pub fn add_bt_c_b(
    b1: &[f64],
    c: &[[f64; 6]; 6],
    b2: &[f64],
    scale: f64,
    cb: &mut [f64],
    h: &mut [f64],
) {
    let n = cb.len() / 6;
    // cb = C B₂
    cb.fill(0.0);
    for k in 0..6 {
        for l in 0..6 {
            let ckl = c[k][l];
            if ckl != 0.0 {
                for (x, y) in cb[k * n..(k + 1) * n]
                    .iter_mut()
                    .zip(&b2[l * n..(l + 1) * n])
                {
                    *x += ckl * y;
                }
            }
        }
    }
    for k in 0..6 {
        let b1k = &b1[k * n..(k + 1) * n];
        let cbk = &cb[k * n..(k + 1) * n];
        for (i, &bi) in b1k.iter().enumerate() {
            let f = scale * bi;
            if f != 0.0 {
                for (x, y) in h[i * n..(i + 1) * n].iter_mut().zip(cbk) {
                    *x += f * y;
                }
            }
        }
    }
}

/// Scratch buffers for evaluating one strain element (sized for the largest element).
#[derive(Clone, Debug, Default)]
pub struct StrainScratch {
    /// Local coordinates.
    pub q_loc: Vec<f64>,
    /// `B` (6 × n_loc).
    pub b: Vec<f64>,
    /// `C B` (6 × n_loc).
    pub cb: Vec<f64>,
    /// Local residual (n_loc).
    pub f: Vec<f64>,
    /// Local tangent (n_loc²).
    pub k: Vec<f64>,
}

impl StrainScratch {
    /// Buffers for elements of up to `n_loc` coordinates.
    pub fn new(n_loc: usize) -> Self {
        Self {
            q_loc: vec![0.0; n_loc],
            b: vec![0.0; 6 * n_loc],
            cb: vec![0.0; 6 * n_loc],
            f: vec![0.0; n_loc],
            k: vec![0.0; n_loc * n_loc],
        }
    }
}

/// Pointwise (in time) elastic forces of one slot: `force[indices] −= Σ_g w_g Bᵀ C π` and, if
/// `k` is given, `k[k_positions] += Σ_g w_g (Bᵀ C B + Σ_k s_k ∂²π_k/∂q²)`. Returns the stored
/// energy `Σ_g w_g ½ πᵀ C π` of the element.
pub fn add_elastic(
    slot: &StrainSlot,
    q: &[f64],
    force: &mut [f64],
    force_mag: &mut [f64],
    k: Option<&mut [f64]>,
    scratch: &mut StrainScratch,
) -> f64 {
    let el = slot.element.as_ref();
    let n = el.n_loc();
    let q_loc = &mut scratch.q_loc[..n];
    for (x, &i) in q_loc.iter_mut().zip(&slot.indices) {
        *x = q[i];
    }
    let b = &mut scratch.b[..6 * n];
    let f = &mut scratch.f[..n];
    f.fill(0.0);
    let tangent = k.is_some();
    let kl = &mut scratch.k[..n * n];
    if tangent {
        kl.fill(0.0);
    }
    let mut energy = 0.0;
    let mut pi = [0.0; 6];
    for g in 0..el.n_points() {
        let w = el.weight(g);
        el.strains_into(g, q_loc, &mut pi, Some(b));
        let c = el.stiffness(g);
        let s = stress(c, &pi);
        energy += 0.5 * w * pi.iter().zip(&s).map(|(a, b)| a * b).sum::<f64>();
        add_bt_s(b, &s, w, f);
        if tangent {
            add_bt_c_b(b, c, b, w, &mut scratch.cb[..6 * n], kl);
            el.add_stress_hessian(g, &s, w, kl);
        }
    }
    for (&i, &fi) in slot.indices.iter().zip(f.iter()) {
        force[i] -= fi;
        force_mag[i] += fi.abs();
    }
    if let Some(k) = k {
        for (&pos, &v) in slot.k_positions.iter().zip(kl.iter()) {
            k[pos] += v;
        }
    }
    energy
}

/// Stored energy of one slot at `q`.
pub fn elastic_energy(slot: &StrainSlot, q: &[f64], scratch: &mut StrainScratch) -> f64 {
    let el = slot.element.as_ref();
    let n = el.n_loc();
    let q_loc = &mut scratch.q_loc[..n];
    for (x, &i) in q_loc.iter_mut().zip(&slot.indices) {
        *x = q[i];
    }
    let mut pi = [0.0; 6];
    (0..el.n_points())
        .map(|g| {
            el.strains_into(g, q_loc, &mut pi, None);
            let s = stress(el.stiffness(g), &pi);
            0.5 * el.weight(g) * pi.iter().zip(&s).map(|(a, b)| a * b).sum::<f64>()
        })
        .sum()
}

#[cfg(test)]
pub(crate) mod test_elements {
    //! A strain element for tests of the machinery: an axial spring between the reference
    //! points of two frames, `π₁ = ½(|φ_b − φ_a|² − L²)` (quadratic), other strains zero.
    use super::*;

    /// Spring between the placements of two 12-coordinate frames (local coordinates: the 12 of
    /// frame a, then the 12 of frame b).
    #[derive(Debug)]
    pub struct Spring {
        /// Rest length (m).
        pub length: f64,
        /// Stiffness matrix (only `C₁₁` is used).
        pub c: [[f64; 6]; 6],
        /// Viscosity.
        pub v: Option<[[f64; 6]; 6]>,
    }

    impl Spring {
        /// Spring of rest length `length` and stiffness `k` (N/m⁴ for this strain measure).
        pub fn new(length: f64, k: f64, eta: Option<f64>) -> Self {
            let mut c = [[0.0; 6]; 6];
            c[0][0] = k;
            let v = eta.map(|e| {
                let mut v = [[0.0; 6]; 6];
                v[0][0] = e;
                v
            });
            Self { length, c, v }
        }
    }

    impl StrainElement for Spring {
        fn n_loc(&self) -> usize {
            24
        }
        fn n_points(&self) -> usize {
            1
        }
        fn weight(&self, _g: usize) -> f64 {
            1.0
        }
        fn strains_into(&self, _g: usize, q: &[f64], pi: &mut [f64; 6], b: Option<&mut [f64]>) {
            let d = [q[12] - q[0], q[13] - q[1], q[14] - q[2]];
            *pi = [0.0; 6];
            pi[0] = 0.5 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - self.length * self.length);
            if let Some(b) = b {
                b.fill(0.0);
                for k in 0..3 {
                    b[k] = -d[k];
                    b[12 + k] = d[k];
                }
            }
        }
        fn add_stress_hessian(&self, _g: usize, s: &[f64; 6], scale: f64, h: &mut [f64]) {
            let n = 24;
            for k in 0..3 {
                let v = scale * s[0];
                h[k * n + k] += v;
                h[(12 + k) * n + 12 + k] += v;
                h[k * n + 12 + k] -= v;
                h[(12 + k) * n + k] -= v;
            }
        }
        fn stiffness(&self, _g: usize) -> &[[f64; 6]; 6] {
            &self.c
        }
        fn viscosity(&self, _g: usize) -> Option<&[[f64; 6]; 6]> {
            self.v.as_ref()
        }
    }
}
