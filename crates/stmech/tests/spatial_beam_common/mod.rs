//! Helpers shared by the spatial-beam dynamics tests (issue 15): beam set-up, independent
//! analytic references (Timoshenko and Euler–Bernoulli cantilevers, with and without a tip
//! body), root finding and observed orders. Included with `#[path]` by each test file.
#![allow(dead_code)]

use stmech::model::director_beam::{BeamSpec, ConstantCurvature, Integration, Section};
use stmech::model::{Deformable, JointBody, Rigid};

/// `(d1, d2, d3) = (e_x, e_y, e_z)`: a beam along `z`, bending about `d1` deflects it along `y`.
pub const FRAME_Z: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A straight beam of `n_el` elements of order `order` from `origin` along `frame[2]`, at rest.
pub fn straight_beam(
    name: &str,
    order: usize,
    n_el: usize,
    length: f64,
    origin: [f64; 3],
    frame: [[f64; 3]; 3],
    section: &Section,
) -> BeamSpec {
    BeamSpec {
        name: name.into(),
        order,
        nodes: ConstantCurvature::straight(origin, frame).nodes(length, n_el, order),
        section: *section,
        integration: Integration::Reduced,
        velocity: [0.0; 3],
        angular_velocity: [0.0; 3],
        distributed: vec![],
        gravity: None,
    }
}

/// Clamp of the first node of a built beam whose first frame in the system is `f0`.
pub fn clamp_first_node(beam: &Deformable, f0: usize) -> Rigid {
    Rigid::new(f0, JointBody::Ground, &beam.initial_q[..12], &[])
}

/// Observed orders `log(e_k/e_{k+1}) / log(r)` for successive refinements by the ratio `r`.
pub fn orders(errors: &[f64], ratio: f64) -> Vec<f64> {
    errors
        .windows(2)
        .map(|w| (w[0] / w[1]).ln() / ratio.ln())
        .collect()
}

/// Data of a uniform cantilever for the analytic frequency equations (SI units).
#[derive(Clone, Copy, Debug)]
pub struct Cantilever {
    /// Length (m).
    pub length: f64,
    /// Bending stiffness in the plane (N·m²).
    pub ei: f64,
    /// Shear stiffness for the deflection in the plane (N).
    pub ga: f64,
    /// Mass per length (kg/m).
    pub rho_a: f64,
    /// Rotary inertia per length about the bending axis (kg·m).
    pub rho_i: f64,
    /// Tip mass (kg).
    pub tip_mass: f64,
    /// Rotary inertia of the tip body about the bending axis through the tip (kg·m²).
    pub tip_inertia: f64,
}

impl Cantilever {
    /// Determinant of the boundary conditions of the Timoshenko beam with rotary inertia (the
    /// exact linearisation of the Simo–Reissner beam with the quadratic law about the straight
    /// state) clamped at `x = 0`, carrying the tip body at `x = L`.
    ///
    /// Harmonic motion `w, ψ ∝ e^{λx}`: `GA(w″ − ψ′) + ρA ω² w = 0`,
    /// `EI ψ″ + GA(w′ − ψ) + ρI ω² ψ = 0` give `ψ = (λ + k/λ) w`, `k = ρA ω²/GA`, and
    /// `EI λ⁴ + (k EI + ρI ω²) λ² + k (ρI ω² − GA) = 0`: below the cut-off `ρI ω² < GA` one
    /// root `λ² = a² > 0` and one `λ² = −b² < 0`. With
    /// `w = C₁ cosh ax + C₂ sinh ax + C₃ cos bx + C₄ sin bx` the conditions are
    /// `w(0) = ψ(0) = 0`, `EI ψ′(L) = J ω² ψ(L)`, `GA (w′ − ψ)(L) = m ω² w(L)` (variational
    /// boundary terms of the tip body).
    pub fn timoshenko_det(&self, omega: f64) -> f64 {
        let (ei, ga, ra, ri, l) = (self.ei, self.ga, self.rho_a, self.rho_i, self.length);
        let w2 = omega * omega;
        let k = ra * w2 / ga;
        let bq = k * ei + ri * w2;
        let cq = k * (ri * w2 - ga);
        let disc = (bq * bq - 4.0 * ei * cq).sqrt();
        let a2 = (-bq + disc) / (2.0 * ei);
        let b2 = (bq + disc) / (2.0 * ei);
        let (a, b) = (a2.sqrt(), b2.sqrt());
        let (ch, sh, c, s) = ((a * l).cosh(), (a * l).sinh(), (b * l).cos(), (b * l).sin());
        // ψ of each basis function: cosh → p sinh, sinh → p cosh, cos → r sin, sin → −r cos
        let p = (a2 + k) / a;
        let r = (k - b2) / b;
        // columns: cosh, sinh, cos, sin
        let w_l = [ch, sh, c, s];
        let psi_l = [p * sh, p * ch, r * s, -r * c];
        let dpsi_l = [p * a * ch, p * a * sh, r * b * c, r * b * s];
        let dw_l = [a * sh, a * ch, -b * s, b * c];
        let (m, j) = (self.tip_mass, self.tip_inertia);
        let mut rows = [[0.0; 4]; 4];
        rows[0] = [1.0, 0.0, 1.0, 0.0];
        rows[1] = [0.0, p, 0.0, -r];
        for col in 0..4 {
            rows[2][col] = ei * dpsi_l[col] - j * w2 * psi_l[col];
            rows[3][col] = ga * (dw_l[col] - psi_l[col]) - m * w2 * w_l[col];
        }
        det4(&rows)
    }

    /// The classical Euler–Bernoulli tip-mass frequency equation (no rotary inertia),
    /// `1 + cos βL cosh βL + (m β/ρA)(cos βL sinh βL − sin βL cosh βL) = 0`,
    /// `β⁴ = ρA ω²/EI`.
    pub fn euler_bernoulli_tip_mass(&self, omega: f64) -> f64 {
        let beta = (self.rho_a * omega * omega / self.ei).powf(0.25);
        let x = beta * self.length;
        1.0 + x.cos() * x.cosh()
            + self.tip_mass * beta / self.rho_a * (x.cos() * x.sinh() - x.sin() * x.cosh())
    }

    /// Euler–Bernoulli frequency `(βL)² sqrt(EI/(ρA L⁴))` (rad/s) for the tabulated `βL`.
    pub fn euler_bernoulli(&self, beta_l: f64) -> f64 {
        beta_l * beta_l * (self.ei / (self.rho_a * self.length.powi(4))).sqrt()
    }
}

/// 4 × 4 determinant by cofactor expansion along the first row.
fn det4(m: &[[f64; 4]; 4]) -> f64 {
    let det3 = |r: [usize; 3], c: [usize; 3]| {
        let a = |i: usize, j: usize| m[r[i]][c[j]];
        a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
            - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
            + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0))
    };
    let mut d = 0.0;
    for (j, &m0j) in m[0].iter().enumerate() {
        let cols: Vec<usize> = (0..4).filter(|&c| c != j).collect();
        let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
        d += sign * m0j * det3([1, 2, 3], [cols[0], cols[1], cols[2]]);
    }
    d
}

/// The first `n` roots of `f` on `(0, ∞)`: scan with step `step` for sign changes, then
/// bisect to machine precision.
pub fn roots(f: impl Fn(f64) -> f64, step: f64, n: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut x0 = step * 1e-3;
    let mut f0 = f(x0);
    while out.len() < n {
        let x1 = x0 + step;
        let f1 = f(x1);
        if f0 == 0.0 || f0.signum() != f1.signum() {
            let (mut a, mut b, mut fa) = (x0, x1, f0);
            for _ in 0..200 {
                let m = 0.5 * (a + b);
                let fm = f(m);
                if fm.signum() == fa.signum() {
                    a = m;
                    fa = fm;
                } else {
                    b = m;
                }
                if b - a <= 4.0 * f64::EPSILON * b {
                    break;
                }
            }
            out.push(0.5 * (a + b));
        }
        x0 = x1;
        f0 = f1;
        assert!(x0 < 1e9, "no more roots found");
    }
    out
}

/// `[1.234e-5, …]` for messages.
pub fn sci(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.3e}")).collect();
    format!("[{}]", parts.join(", "))
}
