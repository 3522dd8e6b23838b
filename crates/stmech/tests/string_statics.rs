//! Issue 17, the geometrically exact string: statics and small oscillations of the hanging
//! rope against analytic results.
//!
//! * Statics: Newton from the unstretched rope ([`solve_static`]) must reproduce the exact
//!   tension `N(s) = |g|(m + ρA(L − s))` at the element midpoints and the exact elongation
//!   `Δ = |g|(mL + ρAL²/2)/EA` to round-off (linear elements with consistent loads carry the
//!   linear `N` exactly), and the closed form of [`StringModel::hanging_nodes`].
//! * Frequencies: the hanging chain without payload, `ω_k = j₀,k/2 · √(g/L)`, and the rope with
//!   a payload against an independent shooting computation of `g(σφ')' + ω²φ = 0`
//!   (RK4, 20 000 steps, bisection); the discrete frequencies converge at order 2 over three
//!   meshes.

use stmech::string::StringModel;
use stmech::string::statics::{solve_static, transverse_frequencies};

fn rope(m: f64) -> StringModel {
    StringModel {
        length: 12.0,
        rho_a: 0.8,
        ea: 3.0e4,
        payload_mass: m,
        gravity: [0.0, 0.0, -9.81],
        payload_start: [0.0, 0.0, 0.0],
    }
}

#[test]
fn hanging_rope_tension_and_elongation_are_exact() {
    for m in [0.0, 25.0] {
        let r = rope(m);
        let ns = 24;
        let top = [1.0, -2.0, 30.0];
        let (x, iterations) = solve_static(&r, ns, top).unwrap();
        let hs = r.length / ns as f64;
        let mut worst: f64 = 0.0;
        for e in 0..ns {
            let d: f64 = (0..3)
                .map(|c| (x[e + 1][c] - x[e][c]).powi(2))
                .sum::<f64>()
                .sqrt()
                / hs;
            let n = r.ea * (d - 1.0);
            let exact = r.static_tension((e as f64 + 0.5) * hs);
            worst = worst.max((n - exact).abs() / exact);
        }
        let elong = top[2] - x[ns][2] - r.length;
        let rel = (elong - r.static_elongation()).abs() / r.static_elongation();
        // vertical, straight
        assert!(
            x.iter()
                .all(|p| (p[0] - 1.0).abs() < 1e-12 && (p[1] + 2.0).abs() < 1e-12)
        );
        println!(
            "m = {m}: Newton {iterations} iterations, max rel. tension error {worst:.2e}, \
             elongation {elong:.9e} (exact {:.9e}, rel. {rel:.2e})",
            r.static_elongation()
        );
        assert!(worst < 1e-9, "{worst:e}");
        assert!(rel < 1e-9, "{rel:e}");
        // the closed form of the solver's initial state is this equilibrium
        let mut rm = r;
        rm.payload_start = x[ns];
        let h = rm.hanging_nodes(ns);
        let dev = (0..=ns)
            .flat_map(|i| (0..3).map(move |c| (i, c)))
            .fold(0.0f64, |a, (i, c)| a.max((h[i][c] - x[i][c]).abs()));
        assert!(dev < 1e-10, "{dev:e}");
    }
}

/// First zeros of J₀.
const J0_ZEROS: [f64; 3] = [
    2.404_825_557_695_773,
    5.520_078_110_286_311,
    8.653_727_912_911_013,
];

#[test]
fn hanging_chain_frequencies_converge_to_bessel_zeros() {
    // a very stiff chain without payload: ω_k = j₀,k/2 √(g/L)
    let mut r = rope(0.0);
    r.ea = 1e12;
    let exact: Vec<f64> = J0_ZEROS
        .iter()
        .map(|j| 0.5 * j * (9.81 / r.length).sqrt())
        .collect();
    let mut errs = Vec::new();
    for ns in [16, 32, 64] {
        let w = transverse_frequencies(&r, ns, 3).unwrap();
        let e: Vec<f64> = (0..3).map(|k| (w[k] - exact[k]).abs() / exact[k]).collect();
        println!(
            "chain ns = {ns}: ω = {w:.6?}, rel. errors {:?}",
            e.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>()
        );
        errs.push(e);
    }
    #[allow(clippy::needless_range_loop)]
    for k in 0..3 {
        let p1 = (errs[0][k] / errs[1][k]).log2();
        let p2 = (errs[1][k] / errs[2][k]).log2();
        println!("mode {k}: orders {p1:.3}, {p2:.3}");
        assert!(p1 > 1.8 && p2 > 1.9, "mode {k}: {p1} {p2}");
    }
    assert!(errs[2][0] < 1e-3);
}

/// Independent reference: `g(σφ')' + ω²φ = 0` on `[σ_L, σ_0]`, `σ_L = m/ρA`,
/// `gφ'(σ_L) + ω²φ(σ_L) = 0`, `φ(σ_0) = 0` (top fixed); RK4 on `(φ, σφ')`.
fn shooting_end(r: &StringModel, w: f64) -> f64 {
    let g = 9.81;
    let (s0, s1) = (
        r.payload_mass / r.rho_a,
        r.payload_mass / r.rho_a + r.length,
    );
    let n = 20_000;
    let h = (s1 - s0) / n as f64;
    let f = |s: f64, y: [f64; 2]| [y[1] / s, -w * w * y[0] / g];
    let mut y = [1.0, s0 * (-w * w / g)];
    let mut s = s0;
    for _ in 0..n {
        let k1 = f(s, y);
        let k2 = f(
            s + 0.5 * h,
            [y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]],
        );
        let k3 = f(
            s + 0.5 * h,
            [y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]],
        );
        let k4 = f(s + h, [y[0] + h * k3[0], y[1] + h * k3[1]]);
        for c in 0..2 {
            y[c] += h / 6.0 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
        }
        s += h;
    }
    y[0]
}

fn shooting_root(r: &StringModel, guess: f64) -> f64 {
    let (mut a, mut b) = (0.9 * guess, 1.1 * guess);
    let (fa, fb) = (shooting_end(r, a), shooting_end(r, b));
    assert!(fa * fb < 0.0, "no bracket around {guess}");
    let sa = fa.signum();
    for _ in 0..80 {
        let c = 0.5 * (a + b);
        if shooting_end(r, c).signum() == sa {
            a = c;
        } else {
            b = c;
        }
    }
    0.5 * (a + b)
}

#[test]
fn rope_with_payload_frequencies_match_shooting_and_pendulum() {
    let mut r = rope(40.0);
    r.ea = 1e12;
    let fine = transverse_frequencies(&r, 128, 3).unwrap();
    let exact: Vec<f64> = fine.iter().map(|&w| shooting_root(&r, w)).collect();
    println!("payload 40 kg, rope 9.6 kg: shooting ω = {exact:.6?}");
    let mut errs = Vec::new();
    for ns in [8, 16, 32] {
        let w = transverse_frequencies(&r, ns, 3).unwrap();
        let e: Vec<f64> = (0..3).map(|k| (w[k] - exact[k]).abs() / exact[k]).collect();
        println!(
            "ns = {ns}: ω = {w:.6?}, rel. errors {:?}",
            e.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>()
        );
        errs.push(e);
    }
    #[allow(clippy::needless_range_loop)]
    for k in 0..3 {
        let p = (errs[1][k] / errs[2][k]).log2();
        assert!(p > 1.9, "mode {k}: order {p}");
    }
    // the pendulum limit: a light rope under a heavy payload swings at √(g/L)
    let mut light = rope(1000.0);
    light.rho_a = 1e-3;
    light.ea = 1e12;
    let w = transverse_frequencies(&light, 32, 1).unwrap()[0];
    let pend = (9.81 / light.length).sqrt();
    println!("pendulum limit: ω₁ = {w:.8}, √(g/L) = {pend:.8}");
    assert!((w - pend).abs() / pend < 1e-5);
}
