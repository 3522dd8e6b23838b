//! Issue 17, forward dynamics of the string by space-time finite elements
//! (`stmech::string::space_time`), docs/verification.md C12.
//!
//! * Cross-check: the space-time slab march against the independent midpoint discrete gradient
//!   ([`StringStepper`]) on a 3D transport (Dirichlet: suspension motion) and under a 3D force
//!   history (Neumann): the largest payload difference falls at order 2 over four meshes
//!   refined in space and time together.
//! * Energy: suspension fixed, no damping, a 3D swing from a tilted rope: the slab march is
//!   not exactly energy-conserving (2-point Gauss in time of a non-polynomial `Ψ(ν(t))`); its
//!   drift on [0, 4] s converges at order 4 (the rule's order).
//! * Small oscillations of the hanging chain: the period against the closed form
//!   `ω₁ = j₀,₁/2 · √(g/L)` converges at order 2; on each mesh it is the Crank–Nicolson image
//!   `(2/ht) atan(ω_h ht/2)` of the semi-discrete frequency `ω_h` of `string::statics`
//!   (an eigenvalue solve, not a time march).
//! * Consistency with the inverse solver on the example manoeuvre: the inverse's actuation fed
//!   to the same space-time system solved forward on the whole domain
//!   ([`solve_forward_body`]) gives the inverse solution back to the Newton tolerance; the slab
//!   march (a different test space in time) driven by the inverse's suspension motion moves the
//!   payload along `y(t)` with a deviation that falls at order 2, on the same mesh and on a
//!   mesh twice as fine.

use stmech::inverse::crane;
use stmech::inverse::trajectory::{RestToRestLine, TipTrajectory};
use stmech::inverse::{NewtonSettings, solve_forward_body};
use stmech::string::dynamics::{Actuation, StringStepper};
use stmech::string::space_time::SpaceTimeString;
use stmech::string::statics::transverse_frequencies;
use stmech::string::{Compression, StringModel};

fn rope() -> StringModel {
    StringModel {
        length: 5.0,
        rho_a: 2.0,
        ea: 5.0e4,
        payload_mass: 10.0,
        gravity: [0.0, 0.0, -9.81],
        payload_start: [0.0; 3],
    }
}

/// `p(t) = (1 − cos ωt)²/4` and `p'`: 0 → 1 with `p = p' = p'' = p''' = 0` at `t = 0`.
fn p(t: f64, w: f64) -> (f64, f64) {
    let (s, c) = (w * t).sin_cos();
    (0.25 * (1.0 - c) * (1.0 - c), 0.5 * (1.0 - c) * w * s)
}

const W: [f64; 3] = [2.0, 2.7, 3.1];

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|c| (a[c] - b[c]).powi(2)).sum::<f64>().sqrt()
}

/// Largest payload difference between the slab march and the discrete gradient over
/// `[0, 3]` s on `(ns, nt)` meshes refined together.
fn cross_check(neumann: bool) -> Vec<f64> {
    let model = rope();
    let t_end = 3.0;
    let mut out = Vec::new();
    for (ns, nt) in [(8, 75), (16, 150), (32, 300), (64, 600)] {
        let top = model.hanging_nodes(ns)[0];
        let amp = [1.0, 0.6, 0.2];
        let susp = move |t: f64| {
            let (mut x, mut v) = (top, [0.0; 3]);
            for c in 0..3 {
                let (a, b) = p(t, W[c]);
                x[c] += amp[c] * a;
                v[c] = amp[c] * b;
            }
            (x, v)
        };
        let f0 = model.support_force(ns);
        let famp = [30.0, -20.0, 15.0];
        let force = move |t: f64| {
            let mut f = f0;
            for c in 0..3 {
                f[c] += famp[c] * p(t, W[c]).0;
            }
            f
        };
        let act = if neumann {
            Actuation::Force(&force)
        } else {
            Actuation::Suspension(&susp)
        };
        let ht = t_end / nt as f64;
        let mut st = SpaceTimeString::hanging(model, ns, ht, 0.0, act, Compression::Slack).unwrap();
        let mut dg = StringStepper::hanging_with(model, ns, 0.0, act);
        let mut worst: f64 = 0.0;
        for _ in 0..nt {
            st.step().unwrap();
            dg.step(ht).unwrap();
            worst = worst.max(dist(st.payload(), dg.payload()));
        }
        println!(
            "{}: {ns} elements, ht = {ht:.4} s: max payload difference {worst:.3e} m (payload at \
             t = 3 s: {:.4?}; {:.2} Newton iterations per slab)",
            if neumann { "force" } else { "motion" },
            st.payload(),
            st.iterations as f64 / nt as f64
        );
        // the exact tangent: Newton converges in a few iterations per slab
        assert!(st.iterations <= 4 * nt, "{} iterations", st.iterations);
        out.push(worst);
    }
    out
}

fn assert_order(name: &str, errs: &[f64], min: f64) {
    let orders: Vec<f64> = errs.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    println!("{name}: orders {orders:.3?}");
    assert!(orders.iter().all(|&o| o > min), "{name}: {orders:?}");
}

#[test]
fn slab_march_and_discrete_gradient_agree_under_a_prescribed_motion() {
    let d = cross_check(false);
    assert_order("motion", &d, 1.8);
    assert!(d[3] < 5e-5, "{d:?}");
}

#[test]
fn slab_march_and_discrete_gradient_agree_under_a_prescribed_force() {
    let d = cross_check(true);
    assert_order("force", &d, 1.8);
    assert!(d[3] < 1e-5, "{d:?}");
}

#[test]
fn energy_drift_converges_at_the_order_of_the_time_rule() {
    let model = rope();
    let ns = 16;
    let top = model.hanging_nodes(ns)[0];
    let fixed = move |_t: f64| (top, [0.0; 3]);
    let scale = 9.81 * (10.0 + 10.0) * 5.0;
    let mut drifts = Vec::new();
    for ht in [0.04, 0.02, 0.01, 0.005] {
        let mut st = SpaceTimeString::hanging(
            model,
            ns,
            ht,
            0.0,
            Actuation::Suspension(&fixed),
            Compression::Slack,
        )
        .unwrap();
        // tilted by 40° about the y axis around the top, sideways velocity: a 3D swing
        let (sn, cs) = 0.7f64.sin_cos();
        for p in st.r.iter_mut() {
            let d = [p[0] - top[0], p[2] - top[2]];
            *p = [
                top[0] + cs * d[0] - sn * d[1],
                p[1],
                top[2] + sn * d[0] + cs * d[1],
            ];
        }
        for (i, v) in st.v.iter_mut().enumerate() {
            v[1] = i as f64 / ns as f64;
        }
        let e0 = st.energy();
        let mut worst: f64 = 0.0;
        for _ in 0..(4.0 / ht).round() as usize {
            st.step().unwrap();
            worst = worst.max((st.energy() - e0).abs());
        }
        println!(
            "ht = {ht}: largest energy change over [0, 4] s {worst:.3e} J (scale {scale} J), \
             at the end {:.3e} J",
            st.energy() - e0
        );
        drifts.push(worst);
    }
    assert_order("energy drift", &drifts, 3.3);
    assert!(drifts[0] < 1e-6 * scale, "{drifts:?}");
}

/// `J₀(x)` by its power series (`x ≤ 3` here).
fn j0(x: f64) -> f64 {
    let (mut term, mut sum) = (1.0, 1.0);
    let q = -0.25 * x * x;
    for k in 1..40 {
        term *= q / (k * k) as f64;
        sum += term;
    }
    sum
}

#[test]
fn hanging_chain_period_converges_to_the_bessel_zero() {
    const J01: f64 = 2.404_825_557_695_773;
    // a nearly inextensible chain (N/EA ≤ 1e-5) with a negligible hook
    let model = StringModel {
        length: 12.0,
        rho_a: 0.8,
        ea: 1.0e7,
        payload_mass: 1e-6,
        gravity: [0.0, 0.0, -9.81],
        payload_start: [0.0; 3],
    };
    let g = 9.81;
    let w = 0.5 * J01 * (g / model.length).sqrt();
    let period = 2.0 * std::f64::consts::PI / w;
    let mut errs = Vec::new();
    for (ns, per_period) in [(16, 40), (32, 80), (64, 160)] {
        let ht = period / per_period as f64;
        let top = model.hanging_nodes(ns)[0];
        let fixed = move |_t: f64| (top, [0.0; 3]);
        let mut st = SpaceTimeString::hanging(
            model,
            ns,
            ht,
            0.0,
            Actuation::Suspension(&fixed),
            Compression::Slack,
        )
        .unwrap();
        // the first mode u = a J₀(2ω√(σ/g)), σ = L − s, amplitude 0.1 mm (linear regime),
        // each element turned, not stretched
        let hs = model.length / ns as f64;
        let u: Vec<f64> = (0..=ns)
            .map(|i| 1e-4 * j0(2.0 * w * ((model.length - i as f64 * hs) / g).sqrt()))
            .collect();
        for i in 0..ns {
            let l = st.r[i][2] - st.r[i + 1][2];
            let du = u[i + 1] - u[i];
            st.r[i + 1][0] = st.r[i][0] + du;
            st.r[i + 1][2] = st.r[i][2] - (l * l - du * du).sqrt();
        }
        // zero crossings of the payload's sideways position over 3.5 periods (the trial
        // field is linear in t on a slab)
        let mut crossings = Vec::new();
        let mut prev = (0.0, st.payload()[0]);
        for _ in 0..(7 * per_period / 2) {
            st.step().unwrap();
            let x = st.payload()[0];
            if prev.1 * x < 0.0 {
                crossings.push(prev.0 + (st.t - prev.0) * prev.1 / (prev.1 - x));
            }
            prev = (st.t, x);
        }
        let k = crossings.len();
        assert!(k >= 6, "{k} crossings");
        let measured = std::f64::consts::PI * (k - 1) as f64 / (crossings[k - 1] - crossings[0]);
        let wh = transverse_frequencies(&model, ns, 1).unwrap()[0];
        let cn = 2.0 / ht * (0.5 * wh * ht).atan();
        let err = (measured - w).abs() / w;
        println!(
            "{ns} elements, {per_period} slabs per period: ω = {measured:.8} rad/s, rel. error \
             {err:.3e} vs j₀,₁/2 √(g/L) = {w:.8}; semi-discrete ω_h = {wh:.8}, Crank–Nicolson \
             image {cn:.8} (rel. difference {:.2e})",
            (measured - cn) / cn
        );
        assert!((measured - cn).abs() < 5e-5 * cn, "{measured} vs {cn}");
        errs.push(err);
    }
    assert_order("chain period", &errs, 1.8);
    assert!(errs[2] < 2e-4, "{errs:?}");
}

fn crane_rope() -> StringModel {
    StringModel::crane_example()
}

/// `examples/crane/01_swing_free_transfer.toml`.
fn crane_path() -> RestToRestLine {
    RestToRestLine::crane_example()
}

#[test]
fn the_inverse_actuation_solved_forward_on_the_same_system_gives_the_inverse_back() {
    let (model, path) = (crane_rope(), crane_path());
    for ns in [8, 16] {
        let mesh = crane::auto_mesh(&model, &path, 0.0, 12.0, ns).unwrap();
        let inv = crane::solve_crane(&model, &mesh, &path, &NewtonSettings::default()).unwrap();
        let sol = &inv.solution;
        // F(t): the piecewise-linear interpolant of the nodal actuation (the inverse's trial
        // space; 4-point Gauss integrates it exactly against the hat functions)
        let (ts, fa, ht) = (sol.t.clone(), sol.actuation.clone(), mesh.ht());
        let force = move |t: f64| {
            let k = (((t - ts[0]) / ht).floor().max(0.0) as usize).min(ts.len() - 2);
            let u = (t - ts[k]) / ht;
            [0, 1, 2].map(|c| (1.0 - u) * fa[k][c] + u * fa[k + 1][c])
        };
        let settings = NewtonSettings::default();
        let mut m = model;
        m.payload_start = path.pose(0.0);
        // Newton from the rope at rest, not from the inverse solution
        let fw = solve_forward_body(&m, &mesh, &force, &settings, None).unwrap();
        let (mut dx, mut dy, mut servo) = (0.0f64, 0.0f64, 0.0f64);
        for j in 0..sol.t.len() {
            for i in 0..=ns {
                dx = dx.max(dist(fw.x_at(i, j), sol.x_at(i, j)));
            }
            dy = dy.max(dist(fw.x_at(ns, j), sol.x_at(ns, j)));
            servo = servo.max(dist(sol.x_at(ns, j), path.pose(sol.t[j])));
        }
        println!(
            "{ns} × {}: forward Newton {} iterations from rest; largest |x_fwd − x_inv| over the \
             rope {dx:.2e} m, at the payload {dy:.2e} m (the inverse's nodal payload meets y(t_j) \
             to {servo:.2e} m: the servo constraint holds weakly in time)",
            mesh.elements_t, fw.newton.iterations
        );
        assert!(dx < 1e-9, "{dx:e}");
    }
}

#[test]
fn slab_march_replays_the_inverse_suspension_motion() {
    let (model, path) = (crane_rope(), crane_path());
    let mut same = Vec::new();
    let mut finer = Vec::new();
    for ns in [8, 16, 32] {
        let mesh = crane::auto_mesh(&model, &path, 0.0, 12.0, ns).unwrap();
        let inv = crane::solve_crane(&model, &mesh, &path, &NewtonSettings::default()).unwrap();
        let susp = |t: f64| inv.suspension_at(t);
        let mut m = model;
        m.payload_start = path.pose(0.0);
        for refine in [1usize, 2] {
            let ht = mesh.ht() / refine as f64;
            let mut st = SpaceTimeString::hanging(
                m,
                ns * refine,
                ht,
                0.0,
                Actuation::Suspension(&susp),
                Compression::Slack,
            )
            .unwrap();
            let (mut to_path, mut to_inverse) = (0.0f64, 0.0f64);
            for k in 1..=mesh.elements_t * refine {
                st.step().unwrap();
                let t = k as f64 * ht;
                to_path = to_path.max(dist(st.payload(), path.pose(t)));
                if k % refine == 0 {
                    to_inverse =
                        to_inverse.max(dist(st.payload(), inv.solution.x_at(ns, k / refine)));
                }
            }
            println!(
                "inverse {ns} × {}, slab march on {} elements, ht = {ht:.4} s: max |payload − \
                 y| = {to_path:.3e} m, max |payload − inverse payload| = {to_inverse:.3e} m",
                mesh.elements_t,
                ns * refine
            );
            if refine == 1 { &mut same } else { &mut finer }.push(to_path);
        }
    }
    assert_order("same mesh", &same, 1.8);
    assert_order("mesh twice as fine", &finer, 1.8);
    assert!(finer[2] < 5e-4, "{finer:?}");
}

#[test]
fn closed_loop_offers_the_slab_march_as_replay() {
    let (model, path) = (crane_rope(), crane_path());
    let mesh = crane::auto_mesh(&model, &path, 0.0, 12.0, 16).unwrap();
    let inv = crane::solve_crane(&model, &mesh, &path, &NewtonSettings::default()).unwrap();
    let (dg, dg_samples) = crane::closed_loop(&inv, &path, 2).unwrap();
    let (st, st_samples) =
        crane::closed_loop_with(&inv, &path, 2, crane::Replay::SpaceTime).unwrap();
    println!(
        "16 × {} replayed on 32 elements: max deviation {:.4e} m (discrete gradient), {:.4e} m \
         (space-time slabs)",
        mesh.elements_t, dg.max_deviation, st.max_deviation
    );
    assert_eq!(st_samples.len(), dg_samples.len());
    assert!((st.max_deviation - dg.max_deviation).abs() < 0.05 * dg.max_deviation);
    assert!(st.max_deviation < 1e-3);
}
