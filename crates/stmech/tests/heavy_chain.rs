//! Issue 17 item 2: the linearised heavy chain. The crane inverse FEM without payload
//! (`payload_mass = 0`, a chain with a free end) against the Petit–Rouchon flat output
//! ([`stmech::string::heavy_chain`], docs/theory.md "Linearised heavy chain (Petit & Rouchon)"),
//! docs/verification.md C11.
//!
//! The case ([`common::heavy_chain::chain_case`]): L = 1 m, ρA = 1 kg/m, EA = 10⁶ N, the free
//! end moved horizontally by ε = 1 mm rest-to-rest in 2 s, domain [0, 4] s.
//!
//! * FEM: the mesh ratio binds in the last element, `c = sqrt(g hs/2)`, so `ht ≥ sqrt(hs/(2g))`:
//!   the ladder refines `n_s` ×4 when `n_t` ×2 (`ht ∝ sqrt(hs)`, `μ_last` = 0.903 on every
//!   mesh); the errors of the suspension motion and force fall at order 2 in `ht` (`O(ht²) +
//!   O(hs²) = O(ht²)`).
//! * Model errors, bounded on one mesh: the amplitude (`x(2ε)/2 − x(ε)`, cubic in ε: the
//!   horizontal motion is odd in ε by the mirror symmetry, so there are no even terms) and the
//!   extensibility (EA ×10).
//! * The reference itself, by an independent discretisation: its suspension motion replayed
//!   in the forward string model (midpoint discrete gradient) moves the free end along the
//!   prescribed path (order 1.8 at the free end).
mod common;

use common::heavy_chain::{ChainCase, chain_case};
use stmech::inverse::crane::{self, CraneSolution};
use stmech::inverse::trajectory::TipTrajectory;
use stmech::inverse::{NewtonSettings, SpaceTimeMesh};
use stmech::string::dynamics::StringStepper;
use stmech::string::heavy_chain;

const EPS: f64 = 1e-3;

fn solve(case: &ChainCase, ns: usize, nt: usize) -> CraneSolution {
    let mesh = SpaceTimeMesh {
        t_start: case.t_start,
        t_end: case.t_end,
        elements_s: ns,
        elements_t: nt,
    };
    crane::solve_crane(&case.model, &mesh, &case.path, &NewtonSettings::default()).unwrap()
}

/// `(max |x − x_PR|, max |H − H_PR|)` of a solution.
fn errors(case: &ChainCase, sol: &CraneSolution) -> (f64, f64) {
    let st = &sol.solution;
    let x: Vec<[f64; 3]> = (0..st.t.len()).map(|j| sol.suspension(j)).collect();
    case.errors(&st.t, &x, &st.actuation)
}

#[test]
fn fem_converges_to_petit_rouchon() {
    let case = chain_case(EPS, 1e6);
    let ladder = [(16, 32), (64, 64), (256, 128), (1024, 256)];
    let mut out = Vec::new();
    for (ns, nt) in ladder {
        let t0 = std::time::Instant::now();
        let sol = solve(&case, ns, nt);
        let (ex, ef) = errors(&case, &sol);
        println!(
            "{ns} × {nt} (ht = {:.4} s, μ_last = {:.3}): max |x − x_PR|/ε = {:.3e}, \
             max |H − H_PR|/ε = {:.3e} N/m; Newton {} iterations, {:.2} s",
            sol.solution.mesh.ht(),
            sol.courant,
            ex / EPS,
            ef / EPS,
            sol.solution.newton.iterations,
            t0.elapsed().as_secs_f64()
        );
        out.push((ex, ef));
    }
    for k in 0..out.len() - 1 {
        let (px, pf) = (
            (out[k].0 / out[k + 1].0).log2(),
            (out[k].1 / out[k + 1].1).log2(),
        );
        println!("orders in ht: x {px:.2}, H {pf:.2}");
        assert!(px > 1.8 && px < 2.5 && pf > 1.8 && pf < 2.5, "{px} {pf}");
    }
    let last = out[out.len() - 1];
    assert!(last.0 < 2.5e-5 * EPS && last.1 < 2.5e-4 * EPS, "{last:?}");
}

#[test]
fn model_errors_are_below_the_discretisation_error() {
    let (ns, nt) = (256, 128);
    let case = chain_case(EPS, 1e6);
    let sol = solve(&case, ns, nt);
    let (ex, _) = errors(&case, &sol);
    let diff = |other: &CraneSolution, scale: f64| {
        (0..sol.solution.t.len())
            .map(|j| {
                let (a, b) = (sol.suspension(j), other.suspension(j));
                ((a[0] - scale * b[0]).powi(2) + (a[1] - scale * b[1]).powi(2)).sqrt()
            })
            .fold(0.0f64, f64::max)
    };
    // amplitude: x(ε) = ε x₁ + ε³ x₃ + …, so x(2ε)/2 − x(ε) = 3 ε³ x₃ + …
    let nonlinear = diff(&solve(&chain_case(2.0 * EPS, 1e6), ns, nt), 0.5) / 3.0;
    // extensibility: O(ρA g L/EA) relative; EA ×10 removes 90 % of it
    let stretch = diff(&solve(&chain_case(EPS, 1e7), ns, nt), 1.0) / 0.9;
    println!(
        "{ns} × {nt}: discretisation error/ε {:.3e}, amplitude error/ε {:.3e}, extensibility \
         error/ε {:.3e} (ρA g L/EA = {:.1e})",
        ex / EPS,
        nonlinear / EPS,
        stretch / EPS,
        9.81 / 1e6
    );
    // below a tenth of the finest mesh's error of the ladder (1.77e-5 ε)
    assert!(
        nonlinear < 2e-6 * EPS && stretch < 2e-6 * EPS,
        "{nonlinear:e} {stretch:e}"
    );
}

/// The Petit–Rouchon suspension motion drives the forward model (linear elements, midpoint
/// discrete gradient; it knows nothing of the formula): the free end follows the path, with
/// an error falling under refinement in s and t together. Measured order 1.79 (the pointwise
/// error at the free end, where the tension vanishes; at a fixed Δt = 0.000625 s the spatial
/// ratios are 3.45, 3.2 from 32 to 128 elements, then the extensibility floor ≈ 1.3e-6 ε of
/// EA = 10⁶ N shows: 3.65e-6 ε at 256 elements, 2.47e-6 ε with EA = 10⁷ N). A wrong window or
/// weight would stall at ≳ 1e-3 ε.
#[test]
fn forward_replay_of_the_reference_follows_the_path() {
    let case = chain_case(EPS, 1e6);
    let mut model = case.model;
    model.payload_start = case.path.pose(case.t_start);
    let mut devs = Vec::new();
    for (ns, steps) in [(16, 200), (32, 400), (64, 800)] {
        let top = model.hanging_nodes(ns)[0];
        let susp = |t: f64| {
            let (x, v) = (
                heavy_chain::suspension_horizontal(&model, &case.path, t),
                heavy_chain::suspension_velocity_horizontal(&model, &case.path, t),
            );
            ([x[0], x[1], top[2]], [v[0], v[1], 0.0])
        };
        let mut st = StringStepper::hanging(model, ns, case.t_start, &susp);
        let dt = (case.t_end - case.t_start) / steps as f64;
        let mut dev = 0.0f64;
        for k in 1..=steps {
            st.step(dt).unwrap();
            st.t = case.t_start + k as f64 * dt;
            let (p, y) = (st.payload(), case.path.pose(st.t));
            dev = dev.max(((p[0] - y[0]).powi(2) + (p[1] - y[1]).powi(2)).sqrt());
        }
        println!(
            "forward {ns} elements, Δt = {dt:.4} s: max |r(L) − y|/ε = {:.3e}",
            dev / EPS
        );
        devs.push(dev);
    }
    for k in 0..2 {
        let order = (devs[k] / devs[k + 1]).log2();
        println!("order {order:.2}");
        assert!(order > 1.6, "{order}");
    }
    assert!(devs[2] < 5e-5 * EPS, "{devs:?}");
}

/// The method of characteristics on the same chain: no mesh ratio (semi-Lagrangian), so `hs`
/// and `ht` are refined together (`ht = hs/4`). The free end is a singular point of the
/// characteristics (the transverse speed `√(g z)` vanishes there): the march steps uniformly in
/// the travel time `ζ = 2√(z/g)` near it (intermediate lines, no step longer in `ζ` than the
/// element at the suspension point) and starts from the expansion of the chain about its free
/// end (docs/theory.md, "The free end of the chain"). Measured orders 1.97, 1.95, 1.98 (motion)
/// and 1.98, 2.04, 2.09 (force) from 16 × 256 to 128 × 2048 (docs/verification.md C11; before
/// this treatment 1.8 and 1.4–1.6). `EA = 10⁷ N`: the extensibility of `EA = 10⁶ N`, ≈ 6e-7 ε,
/// would be a third of the finest error; at `10⁷ N` it is measured here against `10⁸ N`.
/// Asserted: every order of both in [1.9, 2.3], the finest errors, and the model error below a
/// tenth of the finest error.
#[test]
fn characteristics_converge_to_petit_rouchon() {
    let case = chain_case(EPS, 1e7);
    let solve_chars = |case: &ChainCase, ns: usize| {
        let mesh = SpaceTimeMesh {
            t_start: case.t_start,
            t_end: case.t_end,
            elements_s: ns,
            elements_t: 16 * ns,
        };
        crane::solve_crane_characteristics(&case.model, &mesh, &case.path, &Default::default())
            .unwrap()
    };
    let mut out = Vec::new();
    let mut at_32 = None;
    for ns in [16, 32, 64, 128] {
        let t0 = std::time::Instant::now();
        let sol = solve_chars(&case, ns);
        let (ex, ef) = errors(&case, &sol);
        let m = sol.march.as_ref().unwrap();
        println!(
            "characteristics {ns} × {}: max |x − x_PR|/ε = {:.3e}, max |H − H_PR|/ε = {:.3e} \
             N/m; {} nodes, {:.2} fixed-point iterations per node, {:.2} s",
            16 * ns,
            ex / EPS,
            ef / EPS,
            m.nodes,
            m.iterations_total as f64 / m.nodes as f64,
            t0.elapsed().as_secs_f64()
        );
        out.push((ex / EPS, ef / EPS));
        if ns == 32 {
            at_32 = Some(sol);
        }
    }
    for w in out.windows(2) {
        let (ox, of) = ((w[0].0 / w[1].0).log2(), (w[0].1 / w[1].1).log2());
        println!("orders {ox:.2} {of:.2}");
        assert!(
            (1.9..2.3).contains(&ox) && (1.9..2.3).contains(&of),
            "orders {ox:.2} {of:.2}"
        );
    }
    let last = out[out.len() - 1];
    assert!(last.0 < 2e-6 && last.1 < 8e-6, "{last:?}");
    // extensibility: O(ρA g L/EA) relative; EA ×10 removes 90 % of it
    let (a, b) = (at_32.unwrap(), solve_chars(&chain_case(EPS, 1e8), 32));
    let stretch = (0..a.solution.t.len())
        .map(|j| {
            let (p, q) = (a.suspension(j), b.suspension(j));
            ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()
        })
        .fold(0.0f64, f64::max)
        / 0.9;
    println!("extensibility error/ε at EA = 1e7 N: {:.2e}", stretch / EPS);
    assert!(stretch / EPS < 0.1 * last.0, "{stretch:e}");
}
