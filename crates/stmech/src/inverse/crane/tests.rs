//! Unit tests of the crane inverse problem: which wave speed binds the mesh ratio.

use super::fem::rigid_start;
use super::*;
use crate::inverse::solver::solve_inverse_started;
use crate::inverse::trajectory::{RestToRestLine, RestToRestProfile};

/// Which transverse speed binds the sideways condition on a rope whose tension varies
/// along it (heavy rope: 9.80 m/s at the payload, 14.0 m/s at the top)? A mesh with
/// `μ = 2.5` at the payload (`1.75` at the top: the lower 56 % of the rope violates the
/// local condition) amplifies the spurious three-step wave by `|z| ≈ 2` per violating
/// element: invisible on 32 elements (18 violating, ~10⁵ × round-off), ruinous on 128 (72
/// violating). Only the slowest speed bounds the growth on every mesh.
#[test]
fn the_slowest_transverse_wave_binds_the_mesh_ratio() {
    let model = StringModel {
        length: 10.0,
        rho_a: 2.0,
        ea: 1.0e6,
        payload_mass: 20.0,
        gravity: [0.0, 0.0, -9.81],
        payload_start: [0.0; 3],
    };
    let path = RestToRestLine {
        start: [0.0; 3],
        delta: [8.0, 4.0, 2.0],
        profile: RestToRestProfile {
            t0: 2.0,
            duration: 8.0,
        },
    };
    let rep = check_payload_path(&model, &path, 0.0, 12.0, 1).unwrap();
    let c_min = slowest_speed(&model, &rep);
    let c_top = model.transverse_speed(model.static_tension(0.0));
    let solve = |ns: usize, mu: f64| {
        let hs = model.length / ns as f64;
        let nt = (12.0 * c_min * mu / hs).round() as usize;
        let mesh = SpaceTimeMesh {
            t_start: 0.0,
            t_end: 12.0,
            elements_s: ns,
            elements_t: nt,
        };
        let s = NewtonSettings::with_newton(crate::solve::newton::NewtonParams {
            tolerance: 1e-10,
            max_iterations: 12,
        });
        let mut m = model;
        m.payload_start = path.pose(0.0);
        let start = rigid_start(&m, &mesh, &path);
        (
            mesh,
            solve_inverse_started(
                &m,
                &mesh,
                &crate::inverse::trajectory::Planar(&path),
                &s,
                Some(start),
            ),
        )
    };
    let reference = solve(32, 1.0).1.unwrap();
    let mut out = Vec::new();
    for (ns, mu_payload) in [(32, 1.9), (32, 2.5), (128, 1.9), (128, 2.5)] {
        let (mesh, r) = solve(ns, mu_payload);
        let hs = model.length / ns as f64;
        let mu_top = hs / (c_top * mesh.ht());
        let err = match r {
            Ok(sol) => (0..sol.t.len())
                .map(|j| {
                    let x = sol.x_at(0, j);
                    let (xr, _) = reference.field_at_cubic(0.0, sol.t[j]);
                    (0..3).map(|c| (x[c] - xr[c]).powi(2)).sum::<f64>().sqrt()
                })
                .fold(0.0f64, f64::max),
            Err(_) => f64::INFINITY,
        };
        println!(
            "{ns} elements, μ at the payload {:.2}, at the top {mu_top:.2}: max |x − x_ref| \
             = {err:.3e} m",
            hs / (c_min * mesh.ht())
        );
        out.push((mu_top, err));
    }
    assert!(out[1].0 < 2.0 && out[3].0 < 2.0);
    // within the condition: the discretisation error of the 32-element reference
    assert!(out[0].1 < 1e-3 && out[2].1 < 1e-3, "{out:?}");
    // beyond it at the payload only: fine on 32 elements, not on 128
    assert!(out[3].1 > 100.0 * out[2].1, "{out:?}");
}
/// A chain without payload (`m = 0`): the element-wise condition binds in the last
/// element, `c = sqrt(a_min hs/2)`. With `μ_last = hs/(c ht)` fixed, the number of elements
/// violating `μ_e ≤ 2` is fixed too (`μ_e = μ_last sqrt(1/(2k − 1))` in the `k`-th element
/// from the end: `k < ½ + μ_last²/8`), so a mild violation is harmless (8 violating
/// elements at `μ_last = 8`: 64 × 567 as accurate as the finer time step promises), but a
/// large one is not (32 violating at `μ_last = 16`: Newton diverges). The check is the
/// strict, element-wise one (docs/verification.md, C11).
#[test]
fn the_last_element_binds_the_chain_mesh_ratio() {
    let model = StringModel {
        length: 1.0,
        rho_a: 1.0,
        ea: 1e6,
        payload_mass: 0.0,
        gravity: [0.0, 0.0, -9.81],
        payload_start: [0.0; 3],
    };
    let eps = 1e-3;
    let path = RestToRestLine {
        start: [0.0; 3],
        delta: [0.6 * eps, 0.8 * eps, 0.0],
        profile: RestToRestProfile {
            t0: 1.0,
            duration: 2.0,
        },
    };
    let rep = check_payload_path(&model, &path, 0.0, 4.0, 1).unwrap();
    let ns = 64;
    let hs = model.length / ns as f64;
    // the payload's speed is zero: no mesh would pass a check with it
    assert_eq!(slowest_speed(&model, &rep), 0.0);
    let c = slowest_element_speed(&model, &rep, hs);
    assert!((c - (rep.min_relative_acceleration * hs / 2.0).sqrt()).abs() < 1e-6 * c);
    let mut out = Vec::new();
    for mu in [1.9, 8.0, 16.0] {
        let nt = (4.0 * c * mu / hs).round() as usize;
        let mesh = SpaceTimeMesh {
            t_start: 0.0,
            t_end: 4.0,
            elements_s: ns,
            elements_t: nt,
        };
        let violating = (0..ns)
            .filter(|&k| {
                let s_e = (k as f64 + 0.5) * hs;
                hs / (element_speed(&model, &rep, s_e) * mesh.ht()) > 2.0
            })
            .count();
        let s = NewtonSettings::with_newton(crate::solve::newton::NewtonParams {
            tolerance: 1e-10,
            max_iterations: 12,
        });
        let start = rigid_start(&model, &mesh, &path);
        let err = match solve_inverse_started(
            &model,
            &mesh,
            &crate::inverse::trajectory::Planar(&path),
            &s,
            Some(start),
        ) {
            Ok(sol) => {
                (0..sol.t.len())
                    .map(|j| {
                        let x = sol.x_at(0, j);
                        let xr = crate::string::heavy_chain::suspension_horizontal(
                            &model, &path, sol.t[j],
                        );
                        ((x[0] - xr[0]).powi(2) + (x[1] - xr[1]).powi(2)).sqrt()
                    })
                    .fold(0.0f64, f64::max)
                    / eps
            }
            Err(_) => f64::INFINITY,
        };
        println!(
            "{ns} × {nt}, μ_last = {mu}: {violating} violating elements, max |x − x_PR|/ε = \
             {err:.3e}"
        );
        out.push((violating, err));
        assert_eq!(
            check_mesh_ratio(&model, &rep, 4.0, ns, nt).is_ok(),
            mu <= 2.0
        );
    }
    assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), [0, 8, 32]);
    assert!(out[0].1 < 1e-4 && out[1].1 < 1e-4, "{out:?}");
    assert!(out[2].1 >= 1e-2, "{out:?}");
}

/// The stiffness continuation changes the cost, not the answer (issue 29): where Newton
/// converges directly (the example rope, 16 × 188), the solution reached by the continuation
/// from the rope 100 times softer (two steps ×10, the second from the secant predictor) is the
/// direct one to the Newton tolerance: both solve the same discrete equations to 1e-10 of
/// their terms, so the suspension motions agree to 1e-9 of the rope length and the forces to
/// 1e-8 of their peak.
#[test]
fn the_stiffness_continuation_reaches_the_direct_solution() {
    let path = RestToRestLine::crane_example();
    let mut model = StringModel::crane_example();
    model.payload_start = path.pose(0.0);
    let mesh = auto_mesh(&model, &path, 0.0, 12.0, 16).unwrap();
    let settings = NewtonSettings::default();
    let direct = solve_crane(&model, &mesh, &path, &settings).unwrap();
    let work = direct.continuation.as_ref().unwrap();
    // (directly: the rope's own stiffness on the coarse and on the fine mesh)
    assert_eq!(work.stiffnesses, vec![model.ea; 2]);
    let mut soft = model;
    soft.ea = model.ea / 100.0;
    let start = solve_inverse_started(
        &soft,
        &mesh,
        &crate::inverse::trajectory::Planar(&path),
        &settings,
        Some(rigid_start(&soft, &mesh, &path)),
    )
    .unwrap();
    let mut work = fem::Continuation::default();
    let run = fem::solve_continued(
        &model,
        &mesh,
        &path,
        &settings,
        Some(start),
        true,
        &mut work,
    )
    .unwrap();
    assert_eq!(work.stiffnesses, vec![soft.ea, soft.ea * 10.0, model.ea]);
    let (a, b) = (&direct.solution, &run.solution);
    let peak = a
        .actuation
        .iter()
        .map(|f| dot(*f, *f).sqrt())
        .fold(0.0, f64::max);
    let (mut dx, mut df) = (0.0f64, 0.0f64);
    for j in 0..a.t.len() {
        let (xa, xb) = (a.x_at(0, j), b.x_at(0, j));
        for c in 0..3 {
            dx = dx.max((xa[c] - xb[c]).abs());
            df = df.max((a.actuation[j][c] - b.actuation[j][c]).abs());
        }
    }
    println!(
        "continuation {:?} ({} iterations) against direct: |Δx| {:.1e} of L, |ΔF| {:.1e} of the peak",
        work.stiffnesses,
        work.iterations,
        dx / model.length,
        df / peak
    );
    assert!(
        dx <= 1e-9 * model.length && df <= 1e-8 * peak,
        "{dx:e} {df:e}"
    );
}
